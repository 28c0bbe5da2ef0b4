//! Session 22 (s22e) note, "a reservation EIO under a due timeout seems to restart the
//! window's deadline": a delayed window idle past its timeout, then a write whose tick
//! finds the timeout due but whose reservation meets an EIO (the timeout does not fire, one
//! OSS goes on record failed). The next command takes the failure's lost bytes out of the
//! planner by a settle, which restarts the planner and, with it, every window still open in
//! it: the due window came back with a fresh timeout, so writes to its file went into the
//! cache zone without parity again, for a whole new timeout, although the window had been
//! idle past its own.
//!
//! Specification: a window's due time never moves later because of an error. Once its
//! timeout is due, writes to its file are protected at once (no byte waits for parity), an
//! error and the settle after it between or not.

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
fn a_reservation_eio_under_a_due_timeout_does_not_give_the_window_a_new_timeout() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = TIMEOUT_MS;
    opts.unprotected_bytes_max = 1 << 30;
    Store::init(&dir, &opts).unwrap().close().unwrap();

    let hook = Arc::new(ReserveEio::default());
    let store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
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
    // The timeout is what is tested: the window must be idle past it.
    std::thread::sleep(Duration::from_millis(TIMEOUT_MS + 200).saturating_sub(written.elapsed()));

    // The write's tick finds the timeout due; its reservation meets the EIO: the timeout
    // does not fire, one OSS goes on record failed.
    hook.armed.store(true, Ordering::SeqCst);
    let refused = store.write("x", 0, &pattern(3, 3 * UNIT));
    hook.armed.store(false, Ordering::SeqCst);
    refused.expect_err("the reservation failed");
    assert_eq!(
        store.failed_osses().len(),
        1,
        "the EIO recorded one OSS failed"
    );
    // The timers take the failure's lost bytes out of the planner (a settle: every window
    // byte goes home).
    store.tick().unwrap();
    assert_eq!(store.status().unwrap().bytes_unprotected, 0, "settled");

    // Writes to the window's file now, one block each, wherever one is taken (a block that
    // would go into a window chunk on the failed OSS is refused whole, as documented).
    let mut taken = 0;
    for at in (0..W_BYTES).step_by(UNIT) {
        let block = pattern(10 + at as u64, UNIT);
        match store.write("w", at as u64, &block) {
            Ok(()) => {
                want[at..at + UNIT].copy_from_slice(&block);
                taken += 1;
            }
            Err(e) => assert!(
                e.to_string().contains("would go to a failed OSS"),
                "only the documented refusal: {e}"
            ),
        }
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            0,
            "a write to w at {at} after its window's due time waits for no parity (the \
             window was given a new timeout by the settle after the EIO)"
        );
    }
    assert!(taken > 0, "some write to w was taken");

    let lost = store.status().unwrap().lost_ranges;
    for at in (0..W_BYTES).step_by(UNIT) {
        match store.read("w", at as u64, UNIT as u64) {
            Ok(got) => assert!(got == want[at..at + UNIT], "w bytes {at}..{}", at + UNIT),
            Err(e) => assert!(
                lost.iter().any(|l| l.file == "w"
                    && l.offset_bytes < (at + UNIT) as u64
                    && at as u64 <= l.offset_bytes + l.len_bytes),
                "w bytes {at}.. fail ({e}) but are not on record lost: {lost:?}"
            ),
        }
    }
    drop(store);
    let store = Store::open(&dir).unwrap();
    assert_consistent(&store);
}
