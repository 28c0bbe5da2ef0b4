//! Session 22 (s22e), s21 leftover: a write whose tick fires a delayed window's due timeout,
//! where the timeout's plans (the window's parity) find no room: a full disk, or a disk
//! failing its reservations with EIO. Since s20f the tick was journaled first, so the
//! planner held those plans in flight though none could be admitted; the handle was then
//! poisoned ("refuses changes until the store is reopened") where a later command could
//! simply fire the timeout again once there was room.
//!
//! Specification: the timeout's plans get their room before its tick is journaled; without
//! room it does not fire now (its window keeps its bytes, without parity a while longer) and
//! the handle is told once why (a warning at close) and stays usable: the write itself goes
//! on or is refused for its own room, and the next write with room fires the timeout with
//! no reopen. Never a wait for a plan nobody runs; every acknowledged byte reads back exact
//! or is on record lost.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::BackendError;
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Long enough that the window's write returns before its timeout on a loaded machine
/// (checked below).
const TIMEOUT_MS: u64 = 600;
const W_BYTES: usize = 2 * 3 * UNIT;
const WINDOW_BYTES: usize = 5000;

/// Reservations refused while armed: as a full disk (`NoSpace`) or as a disk whose
/// `fallocate` returns EIO, on every OSS or only on `only`.
struct Refuse {
    armed: AtomicBool,
    eio: bool,
    only: Option<usize>,
}

impl Hook for Refuse {
    fn before_reserve(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) || self.only.is_some_and(|o| o != oss) {
            return Ok(());
        }
        let (oss, why) = (format!("oss-{oss}"), "injected".to_string());
        Err(match self.eio {
            true => BackendError::Unavailable { oss, why },
            false => BackendError::NoSpace { oss, why },
        })
    }
}

/// raid5 over 4 OSSs, delayed, timeout `TIMEOUT_MS`: `w` put, a window on it wrote its first
/// `WINDOW_BYTES`, and the timeout is due now. Returns the store and `w`'s acknowledged
/// bytes.
fn timeout_due(dir: &std::path::Path, hook: &Arc<Refuse>) -> (Arc<Store>, Vec<u8>) {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = TIMEOUT_MS;
    opts.unprotected_bytes_max = 1 << 30;
    Store::init(dir, &opts).unwrap().close().unwrap();
    let store = Arc::new(open_wrapped(dir, hook, &[], OpenOptions::default()).unwrap());
    let mut want = pattern(1, W_BYTES);
    store.put("w", &want).unwrap();
    store.delayed_start("w").unwrap();
    let window = pattern(2, WINDOW_BYTES);
    store.write("w", 0, &window).unwrap();
    let written = Instant::now();
    want[..WINDOW_BYTES].copy_from_slice(&window);
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        WINDOW_BYTES as u64,
        "the timeout has not fired yet (else this machine is too slow for {TIMEOUT_MS} ms)"
    );
    // The timeout's deadline passing is the scene itself: no hook stands for the clock.
    std::thread::sleep(Duration::from_millis(TIMEOUT_MS + 200).saturating_sub(written.elapsed()));
    (store, want)
}

/// A write over the window's stripe from another thread, which must end in time (a wait
/// for a plan nobody runs would hang it).
fn write_over_the_window(store: &Arc<Store>, over: &[u8]) -> Result<(), String> {
    let later = {
        let (store, over) = (store.clone(), over.to_vec());
        spawn(move || store.write("w", 100, &over).map_err(|e| e.to_string()))
    };
    done_in_time(&later, "a write over the timed-out window's stripe")
}

#[test]
fn a_due_timeout_without_room_waits_and_the_next_write_with_room_fires_it_without_a_reopen() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let hook = Arc::new(Refuse {
        armed: AtomicBool::new(false),
        eio: false,
        only: None,
    });
    let (store, mut want) = timeout_due(&dir, &hook);

    // The write's tick finds the timeout due; no room for its plans, nor for the write.
    hook.armed.store(true, Ordering::SeqCst);
    let refused = store.write("x", 0, &pattern(3, 3 * UNIT));
    hook.armed.store(false, Ordering::SeqCst);
    let err = refused.expect_err("no room for the write").to_string();
    assert!(
        !err.contains("reopen"),
        "the handle is not given up for a timeout that can fire later: {err}"
    );
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        WINDOW_BYTES as u64,
        "the timeout did not fire: the window keeps its bytes (no parity yet)"
    );

    // Room again: the next write fires the timeout (its tick first), then goes outside any
    // window, protected at once.
    let over = pattern(4, 2000);
    write_over_the_window(&store, &over).expect("the next write with room goes on");
    want[100..2100].copy_from_slice(&over);
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout fired: the window has its parity"
    );
    assert!(store.get("w").unwrap() == want, "w reads exact");
    let x = pattern(5, 3 * UNIT);
    store.write("x", 0, &x).unwrap();
    assert!(store.get("x").unwrap() == x);
    assert_consistent(&store);
    let warnings = Arc::try_unwrap(store)
        .ok()
        .expect("no other handle")
        .close_with_warnings()
        .unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("timeout was due") && w.contains("did not fire")),
        "the handle told why the timeout waited: {warnings:?}"
    );

    let store = Store::open(&dir).unwrap();
    assert!(store.get("w").unwrap() == want, "w after a reopen");
    assert!(store.get("x").unwrap() == x, "x after a reopen");
    assert_consistent(&store);
}

#[test]
fn a_due_timeout_beside_a_disk_failing_reservations_never_needs_a_reopen() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let hook = Arc::new(Refuse {
        armed: AtomicBool::new(false),
        eio: true,
        only: Some(3),
    });
    let (store, mut want) = timeout_due(&dir, &hook);

    hook.armed.store(true, Ordering::SeqCst);
    let x = pattern(3, 3 * UNIT);
    let written = store.write("x", 0, &x);
    hook.armed.store(false, Ordering::SeqCst);
    if let Err(e) = &written {
        assert!(!e.to_string().contains("reopen"), "{e}");
    }

    let over = pattern(4, 2000);
    write_over_the_window(&store, &over).expect("a later write goes on, no reopen");
    want[100..2100].copy_from_slice(&over);
    // Every byte of w: the acknowledged one, or on record lost (window bytes whose only
    // copy was on the OSS recorded failed).
    let lost = store.status().unwrap().lost_ranges;
    for at in (0..W_BYTES).step_by(UNIT) {
        let n = UNIT.min(W_BYTES - at);
        match store.read("w", at as u64, n as u64) {
            Ok(got) => assert!(got == want[at..at + n], "w bytes {at}..{}", at + n),
            Err(e) => assert!(
                lost.iter().any(|l| l.file == "w"
                    && l.offset_bytes < (at + n) as u64
                    && at as u64 <= l.offset_bytes + l.len_bytes),
                "w bytes {at}..{} fail ({e}) but are not on record lost: {lost:?}",
                at + n
            ),
        }
    }
    if written.is_ok() {
        assert!(store.get("x").unwrap() == x, "x reads as acknowledged");
    }
    drop(Arc::try_unwrap(store).ok().expect("no other handle"));
    let store = Store::open(&dir).unwrap();
    assert_consistent(&store);
}
