//! Session 20 leftover (s20f item 2): a reservation EIO (a disk whose `fallocate` fails) in
//! a command whose tick fires a delayed window's due timeout. Before, a later write over the
//! window's stripes (outside any window) waited forever for the timeout's move home, which
//! nobody would run: its tick was journaled and its plans planned, but their reservation
//! met the EIO. Session 21 poisoned the handle then (reopen); session 22 (s22e) reserves the
//! timeout's plans before its tick is journaled, so without room the timeout does not fire
//! yet and nothing waits for plans nobody runs.
//!
//! Specification: never a wait for a plan nobody runs, and no reopen needed. With every
//! disk failing reservations the write meets the EIO as any write does (s17r R17-4): one OSS
//! recorded failed (the window bytes whose only copy was there named LOST), the next one
//! refused past the tolerance, saying what failed; later calls go on once the disks reserve
//! again; every acknowledged byte reads back exact or is on record lost.

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

/// Every reservation fails as a disk whose `fallocate` returns EIO, while armed.
#[derive(Default)]
struct ReserveEio {
    armed: AtomicBool,
}

impl Hook for ReserveEio {
    fn before_reserve(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        Err(BackendError::Unavailable {
            oss: format!("oss-{oss}"),
            why: "injected: fallocate EIO".into(),
        })
    }
}

#[test]
fn a_reservation_eio_under_a_due_timeout_never_hangs_the_next_write_nor_needs_a_reopen() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = TIMEOUT_MS;
    opts.unprotected_bytes_max = 1 << 30;
    Store::init(&dir, &opts).unwrap().close().unwrap();

    let hook = Arc::new(ReserveEio::default());
    let store = Arc::new(open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap());
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
    std::thread::sleep(Duration::from_millis(TIMEOUT_MS + 200).saturating_sub(written.elapsed()));

    // The write's tick fires the due timeout; the reservation of its plans meets the EIO.
    hook.armed.store(true, Ordering::SeqCst);
    let x = pattern(3, 3 * UNIT);
    let refused = store.write("x", 0, &x);
    hook.armed.store(false, Ordering::SeqCst);
    let err = refused.expect_err("the reservation failed");
    assert!(
        err.to_string().contains("reserving room"),
        "the refusal says what failed: {err}"
    );

    assert!(
        !err.to_string().contains("reopen"),
        "the handle stays usable: {err}"
    );

    // The disks reserve again: a write over the window's stripe ends in time. Where it
    // still goes into the window (its timeout waits while the failure's lost bytes are
    // taken out of the planner, whose settle starts it afresh) and its bytes would have
    // their only copy on the failed OSS, it is refused whole, as documented; never "reopen".
    let over = pattern(4, 2000);
    let later = {
        let (store, over) = (store.clone(), over.clone());
        spawn(move || store.write("w", 100, &over))
    };
    match done_in_time(&later, "a write over the timed-out window's stripe") {
        Ok(()) => want[100..2100].copy_from_slice(&over),
        Err(e) => assert!(
            e.to_string().contains("would go to a failed OSS"),
            "only the documented refusal: {e}"
        ),
    }
    let lost = store.status().unwrap().lost_ranges;
    let every_byte_or_lost = |store: &Store, want: &[u8]| {
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
    };
    every_byte_or_lost(&store, &want);
    drop(Arc::try_unwrap(store).ok().expect("no other handle"));

    let store = Store::open(&dir).unwrap();
    every_byte_or_lost(&store, &want);
    assert_consistent(&store);
}
