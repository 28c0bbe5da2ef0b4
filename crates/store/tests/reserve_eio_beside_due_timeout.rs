//! Session 20 leftover (s20f item 2): a reservation EIO (a disk whose `fallocate` fails) in
//! a command whose tick fires a delayed window's due timeout. The tick is journaled and its
//! plans (the window's parity, then its move home) are planned; their reservation meets the
//! EIO, so the write is refused, saying to record the OSS failed, and the planner is
//! rebuilt from the journal's inputs, the tick among them: it holds the timeout's plans in
//! flight though none was admitted.
//!
//! Before, a later write over the window's stripes (outside any window) waited forever for
//! the timeout's move home, which nobody would run.
//!
//! Specification: never a wait for a plan nobody runs. The refusal says what failed and that
//! the handle refuses changes until the store is reopened (the timeout's plans did not run);
//! later calls are refused at once saying so (as after any operation that failed half way);
//! the reopen gives the window its parity and takes writes; every acknowledged byte reads
//! back exact.

mod common;
use common::*;
#[path = "common/hooked.rs"]
mod hooked;
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
fn a_reservation_eio_under_a_due_timeout_refuses_until_reopened_instead_of_hanging_the_next_write()
{
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
        err.to_string()
            .contains("refuses changes until the store is reopened"),
        "the refusal says the handle needs a reopen: {err}"
    );

    // The disk reserves again: a write over the window's stripe, outside any window now.
    let over = pattern(4, 2000);
    let later = {
        let (store, over) = (store.clone(), over.clone());
        spawn(move || store.write("w", 100, &over))
    };
    let later = done_in_time(&later, "a write over the timed-out window's stripe");
    let later = later.expect_err("refused until the store is reopened");
    assert!(
        later.to_string().contains("reopen"),
        "the refusal says to reopen: {later}"
    );
    assert!(
        store
            .get("w")
            .is_err_and(|e| e.to_string().contains("reopen")),
        "reads too say to reopen (as after any operation that failed half way)"
    );
    drop(Arc::try_unwrap(store).ok().expect("no other handle"));

    let store = Store::open(&dir).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the reopen gave the window its parity"
    );
    assert!(
        store.get("w").unwrap() == want,
        "w reads exact after a reopen"
    );
    store.write("w", 100, &over).unwrap();
    want[100..2100].copy_from_slice(&over);
    assert!(
        store.get("w").unwrap() == want,
        "w takes the write after the reopen"
    );
    assert_consistent(&store);
}
