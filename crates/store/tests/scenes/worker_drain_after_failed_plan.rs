//! Session 20 lead of s20d: the background worker (`serve_background`) whose plan fails half
//! way returns its error, but first drains its queue (`run_plans`). A delayed window's
//! timeout queues two plans: its parity plan and its move home, which runs after the parity
//! plan (`after_plans`). The parity plan's fsync failing (an EIO: the store is poisoned,
//! the next open recovers) left the move waiting for a plan that would never be done, and
//! the worker (with every caller that joins it: the CLI's scoped worker) never returned.
//!
//! Specification: a plan waiting for a plan that failed (the store poisoned) stops waiting
//! and is refused as any plan after a failed one is; the worker returns the failed plan's
//! error (what went wrong, not the refusal of the plan behind it); the next open recovers
//! and every acknowledged byte of the window reads back exact.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::BackendError;
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Long enough that the window's write returns before its timeout on a loaded machine
/// (checked: the scene asserts the failed syncs came from the timeout's plans).
const TIMEOUT_MS: u64 = 600;
const WORKER: &str = "exaraid-test-worker";

/// Every fsync of every OSS fails while armed (an fsync EIO).
#[derive(Default)]
struct SyncsFail {
    armed: AtomicBool,
    failed: AtomicUsize,
}

impl Hook for SyncsFail {
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.failed.fetch_add(1, Ordering::SeqCst);
        Err(BackendError::Io {
            oss: format!("oss-{oss}"),
            why: "injected: fsync EIO".into(),
        })
    }
}

#[test]
fn a_worker_whose_window_parity_plan_fails_returns_its_error_not_waits_for_the_move_forever() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = TIMEOUT_MS;
    opts.unprotected_bytes_max = 1 << 30;
    Store::init(&dir, &opts).unwrap().close().unwrap();

    let hook = Arc::new(SyncsFail::default());
    let store = Arc::new(open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name(WORKER.into())
            .spawn(move || {
                let _ = tx.send(store.serve_background(&stop));
            })
            .unwrap();
        rx
    };
    eventually("the worker serves", || store.serving_background());

    let window_bytes = pattern(1, 5000);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    let written = Instant::now();
    hook.armed.store(true, Ordering::SeqCst);
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        window_bytes.len() as u64,
        "the timeout has not fired before the syncs fail (else this machine is too slow for {TIMEOUT_MS} ms)"
    );
    // The timeout counts by the wall clock: wait until it is due; the worker fires it.
    std::thread::sleep(Duration::from_millis(TIMEOUT_MS + 200).saturating_sub(written.elapsed()));
    stop.store(true, Ordering::SeqCst);

    let served = done_in_time(&worker, "the worker after its window parity plan failed");
    let err = served.expect_err("the worker's plan failed: it returns an error");
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "the scene: the timeout's parity plan ran and its fsync failed"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("fsync EIO"),
        "the worker returns the failed plan's error (what went wrong), not the refusal of the plan behind it: {msg}"
    );
    assert!(
        store.write("x", 0, b"later").is_err(),
        "the store refuses changes after a plan failed half way (reopen)"
    );

    // The next open recovers: the window's acknowledged bytes read back exact.
    hook.armed.store(false, Ordering::SeqCst);
    drop(
        Arc::try_unwrap(store)
            .ok()
            .expect("the worker returned its handle"),
    );
    let store = Store::open(&dir).unwrap();
    assert!(
        store.get("w").unwrap() == window_bytes,
        "the window's bytes read back exact after the reopen"
    );
    let _ = token;
    assert_consistent(&store);
}
