//! `fail` never waits for a plan that is only queued on its stripes, and so never deadlocks
//! with the plans ahead of it (OPEN 4 of session 8, s8d's suspicion).
//!
//! Plans that copy failed columns (client writes, delayed parity plans) hold `failure_gate`
//! shared while they execute; `fail` takes it exclusively (review H6). The gate is a fair
//! parking_lot lock: a shared request waits behind a waiting `fail`. The trap: plan B (a
//! window write) took the gate and then waited for its stripe, behind plan A (a write outside
//! the window, waiting for the move home ahead of it); `fail` waited for B; the move home
//! finished; A asked for the gate and queued behind `fail`: A waited for `fail`, `fail` for
//! B, B for A. Now a plan takes the gate once its stripes are its own (it then waits only
//! for plans that execute, and those wait for nothing it holds), so `fail` does not wait for
//! queued plans at all.
//!
//! The scene is built with a hooked backend and counters, no timing: the move home is parked
//! at its home write, A waits for it (`plans_waiting_for_earlier`), B waits for its stripe
//! (`stripe_lock_waiters`), then `fail` must return while the move is still parked, and every
//! thread must finish once it is let go. A step that never returns fails the test after a
//! liveness limit instead of hanging the suite.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{OpenOptions, WritePath};

/// The window's bytes (and the later writes) within data element 0 or 1 of stripe 0.
const AT_BYTES: u64 = 1000;
const LEN_BYTES: usize = 600;

/// `LEN_BYTES` new bytes for file offset `at`, laid over `model`.
fn new_bytes(model: &mut [u8], at: usize, seed: u64) -> Vec<u8> {
    let bytes = pattern(seed, LEN_BYTES);
    model[at..at + LEN_BYTES].copy_from_slice(&bytes);
    bytes
}

#[test]
fn fail_returns_while_a_plan_waits_for_its_stripe_and_nothing_deadlocks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Delayed);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    let oss_of_data = |d: usize| layout.oss_of(id, 0, layout.geometry().data_pos[d].col);
    // An OSS none of the writes below touches (its failure changes no plan's bytes).
    let failing_oss = oss_of_data(3);

    let hooks = Arc::new(Hooks::default());
    hooks.park_any_thread.store(true, Ordering::SeqCst);
    let store = Arc::new(open_wrapped(&dir, &hooks, &[], OpenOptions::default()).unwrap());

    // 1. A window on f, ended: its move home parks before its home write (no gate held).
    let token = store.delayed_start("f").unwrap();
    let at0 = layout.file_offset(0, 0, AT_BYTES) as usize;
    let bytes = new_bytes(&mut model, at0, 2);
    store.write("f", at0 as u64, &bytes).unwrap();
    hooks.pause();
    let end = {
        let s = store.clone();
        spawn(move || s.delayed_end(&token))
    };
    eventually("the move home parks before its home write", || {
        hooks.parked.load(Ordering::SeqCst) == 1
    });

    // 2. Plan A: a write outside any window on the same stripe, planned after the move
    //    (it waits for it before it runs).
    let at1 = layout.file_offset(0, 1, AT_BYTES) as usize;
    let a_bytes = new_bytes(&mut model, at1, 3);
    let a = {
        let s = store.clone();
        spawn(move || s.write("f", at1 as u64, &a_bytes))
    };
    eventually("A waits for the move home", || {
        store.plans_waiting_for_earlier() == 1
    });

    // 3. Plan B: a window write on the same stripe, planned after A (behind it on the
    //    stripe, with nothing to wait for before that).
    let token = store.delayed_start("f").unwrap();
    let at2 = layout.file_offset(0, 0, AT_BYTES + 2 * LEN_BYTES as u64) as usize;
    let b_bytes = new_bytes(&mut model, at2, 4);
    let b = {
        let s = store.clone();
        spawn(move || s.write("f", at2 as u64, &b_bytes))
    };
    eventually("B waits for its stripe", || {
        store.stripe_lock_waiters() == 1
    });

    // 4. `fail` while the move is parked and A and B wait: it waits for no queued plan.
    let fail = {
        let s = store.clone();
        spawn(move || s.fail_oss(failing_oss))
    };
    let failed = fail.recv_timeout(NO_PROGRESS);
    hooks.release();
    if failed.is_err() {
        // The old order: B held the gate while queued. Once the move goes, A queues for
        // the gate behind `fail`, which waits for B, which waits for A.
        let moved_on = a.recv_timeout(NO_PROGRESS).is_ok();
        panic!(
            "`fail` waited {NO_PROGRESS:?} for plans queued behind a parked move home; after letting the move go, A {}",
            if moved_on {
                "finished"
            } else {
                "still made no progress: DEADLOCK (A waits for the gate behind `fail`, `fail` for B, B for A)"
            }
        );
    }
    failed.unwrap().unwrap();

    // 5. Everything finishes, with every byte.
    done_in_time(&end, "END of the first window").unwrap();
    done_in_time(&a, "A (the write outside the window)").unwrap();
    done_in_time(&b, "B (the window write)").unwrap();
    store.delayed_end(&token).unwrap();
    assert!(
        store.get("f").unwrap() == model,
        "f after the writes and the failure"
    );
    eventually("the threads let the store go", || {
        Arc::strong_count(&store) == 1
    });
    let mut store = Arc::into_inner(store).expect("the last handle");
    store.rebuild(failing_oss, None).unwrap();
    assert!(store.get("f").unwrap() == model, "f after the rebuild");
    assert_consistent(&store);
}
