//! Taking the whole store (`flush`, `remove`: anything exclusive) never deadlocks against the
//! background worker. The trap: a writer holds the store shared and waits for a background
//! plan queued before it on its stripe (a WCL destage); a flush waits for exclusive use; a
//! fair lock then keeps the worker (which needs a share to run the queued plan) out, so
//! nobody could move. Each scenario runs on its own threads and the test fails (instead of
//! hanging) when they make no progress within a liveness limit.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// Data bytes of one RAID-5 3+1 stripe.
const STRIPE: usize = 3 * UNIT;

/// How long each step of a scenario may take before the test fails as hung (a liveness
/// limit, not a timing assertion: every step needs milliseconds). Generous, so a loaded CI
/// machine never fails it; finite, so a step that never returns fails the test with its
/// name instead of hanging the suite (a write here hung once under load, session 5).
const STEP_DEADLINE: Duration = Duration::from_secs(120);

/// The result of a `spawn`ed step; fails naming `what` after `STEP_DEADLINE`, first letting
/// the parked threads go (so that they do not hold the store after the test failed).
fn done_within<T>(rx: &mpsc::Receiver<T>, hooks: &Hooks, what: &str) -> T {
    rx.recv_timeout(STEP_DEADLINE).unwrap_or_else(|_| {
        hooks.release();
        panic!("hung: {what} did not return within {STEP_DEADLINE:?}")
    })
}

/// `store.write(name, offset, bytes)` on a thread of its own, within `STEP_DEADLINE`.
fn write_within(store: &Arc<Store>, hooks: &Hooks, name: &'static str, offset: u64, bytes: &[u8]) {
    let rx = {
        let (store, bytes) = (store.clone(), bytes.to_vec());
        spawn(move || store.write(name, offset, &bytes))
    };
    let what = format!("the write of {} bytes of {name} at {offset}", bytes.len());
    done_within(&rx, hooks, &what).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// A WCL store served by a worker that is parked in a destage of file "t"; file "f" has a
/// complete cache stripe whose destage waits in the queue, and a writer of "f" waits for
/// that destage while it holds its share of the store. Then `exclusive` runs on another
/// thread and the worker is let go: everything must finish.
fn writer_waits_for_a_queued_destage_while(
    exclusive: impl FnOnce(&Store) -> Result<(), StoreError> + Send + 'static,
) {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
        opts.element_bytes = UNIT;
        opts.write_path = WritePath::Wcl;
        Store::init(dir.path(), &opts).unwrap().close().unwrap();
    }
    let hooks = Arc::new(Hooks::default());
    hooks.park_any_thread.store(true, Ordering::SeqCst); // WCL: foreground writes no home data
    let store = Arc::new(open_hooked(dir.path(), &hooks, &[]).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name(WORKER.into())
            .spawn(move || {
                let _ = tx.send(store.serve_background(&stop));
            })
            .unwrap();
        rx
    };
    // Else a write runs its background plans inline (no worker serves yet).
    eventually("the worker serves", || store.serving_background());
    hooks.pause();
    write_within(&store, &hooks, "t", 0, &pattern(1, STRIPE));
    eventually("the worker parks in the destage of t", || {
        hooks.parked.load(Ordering::SeqCst) > 0
    });
    let first = pattern(2, STRIPE);
    // Complete: its destage is queued.
    write_within(&store, &hooks, "f", 0, &first);
    // Over the end of stripe 0 into stripe 1: the stripe-1 bytes count as waiting in the
    // cache zone as soon as the write is planned.
    let second = pattern(3, STRIPE + 300 - 5000);
    let waiting = store.status().unwrap().bytes_waiting_parity;
    let writer = {
        let (store, second) = (store.clone(), second.clone());
        spawn(move || store.write("f", 5000, &second))
    };
    eventually("the writer is planned", || {
        store.status().unwrap().bytes_waiting_parity >= waiting + 300
    });
    let exclusive = {
        let store = store.clone();
        spawn(move || exclusive(&store))
    };
    // The exclusive call is waiting now (for the writer); without this pause the scenario
    // may not arise, and the test then passes vacuously (it never fails spuriously).
    std::thread::sleep(Duration::from_millis(200));
    hooks.release();
    done_within(&writer, &hooks, "the writer").expect("the writer");
    done_within(&exclusive, &hooks, "the exclusive call").expect("the exclusive call");
    stop.store(true, Ordering::SeqCst);
    done_within(&worker, &hooks, "the worker").expect("the worker");
    let mut model = first;
    model.resize(STRIPE + 300, 0);
    model[5000..].copy_from_slice(&second);
    assert!(store.get("f").unwrap() == model);
    if store.list().iter().any(|(n, _)| n == "t") {
        assert!(store.get("t").unwrap() == pattern(1, STRIPE));
    }
    assert_consistent(&store);
}

#[test]
fn a_flush_while_a_writer_waits_for_a_queued_destage_does_not_deadlock() {
    writer_waits_for_a_queued_destage_while(|store| store.flush());
}

#[test]
fn a_remove_while_a_writer_waits_for_a_queued_destage_does_not_deadlock() {
    // Removing another file with cached bytes flushes (exclusive) first.
    writer_waits_for_a_queued_destage_while(|store| store.remove("t"));
}
