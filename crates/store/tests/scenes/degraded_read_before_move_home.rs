//! A degraded read of a failed column between a delayed window's END (its parity durable)
//! and the window's move home, run by the background worker (s7a's suspicion, OPEN 4 of
//! session 7).
//!
//! In that interval the END parity covers the window's bytes, which are still only in the
//! cache zone: home holds the older bytes under them. A decode of the failed column from
//! home data and that parity would mix the two versions and return wrong bytes. It must not
//! happen: the read queues in the stripe queues after the move (both plans of END are
//! admitted at once, before END returns), so it decodes once home holds the window's bytes.
//! The move is parked in the worker (a hooked backend) right before its first home write;
//! the read must wait for it (seen in the stripe queues), then read the acknowledged bytes.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

#[test]
fn a_degraded_read_of_a_failed_column_waits_for_the_window_move_home_and_reads_right() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let store = init(dir, CodeSpec::raid5(4), 5, WritePath::Delayed);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    let failed = layout.oss_of(id, 0, layout.geometry().data_pos[1].col);

    let hooks = Arc::new(Hooks::default());
    let store = Arc::new(open_hooked(dir, &hooks, &[]).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::Builder::new()
            .name(WORKER.into())
            .spawn(move || store.serve_background(&stop))
            .unwrap()
    };
    // Else a write runs its background plans inline (no worker serves yet).
    eventually("the worker serves", || store.serving_background());
    // The window writes data element 0 of stripe 0 in part (blocks beside it stay older).
    let token = store.delayed_start("f").unwrap();
    let (at, len) = (1000usize, 600usize);
    let new = pattern(2, len);
    store.write("f", at as u64, &new).unwrap();
    model[at..at + len].copy_from_slice(&new);
    // Data element 1 of stripe 0 is on the failed OSS, outside the window's bytes.
    store.fail_oss(failed).unwrap();

    hooks.park_any_thread.store(true, Ordering::SeqCst); // only the move writes home data
    hooks.pause();
    store.delayed_end(&token).unwrap(); // returns once the parity is durable
    eventually(
        "the worker's move home parks before its first home write",
        || hooks.parked.load(Ordering::SeqCst) >= 1,
    );
    let e1 = layout.file_offset(0, 1, 0) as usize;
    let waiting_before = store.stripe_lock_waiters();
    let read = {
        let store = store.clone();
        spawn(move || store.read("f", e1 as u64, UNIT as u64))
    };
    // Either the read waits behind the move (as it must), or it returned early: then its
    // bytes are what it decoded beside a home element the move has not written yet.
    let mut early = None;
    eventually("the read waits behind the move, or returns", || {
        if let Ok(r) = read.try_recv() {
            early = Some(r);
            return true;
        }
        store.stripe_lock_waiters() > waiting_before
    });
    if let Some(r) = early {
        let got = r.expect("the degraded read returns bytes");
        assert!(
            got == model[e1..e1 + UNIT],
            "a degraded read before the move home returned WRONG bytes ({} of {UNIT} differ)",
            got.iter()
                .zip(&model[e1..e1 + UNIT])
                .filter(|(a, b)| a != b)
                .count()
        );
        panic!("the degraded read did not wait for the move home (its bytes were right)");
    }
    hooks.release();
    let got = done_in_time(&read, "the degraded read").unwrap();
    assert!(
        got == model[e1..e1 + UNIT],
        "the degraded read returned WRONG bytes"
    );
    assert!(store.get("f").unwrap() == model, "every byte, degraded");

    stop.store(true, Ordering::SeqCst);
    worker.join().unwrap().unwrap();
    let mut store = Arc::try_unwrap(store).ok().expect("the only handle");
    store.rebuild(failed, None).unwrap();
    assert!(store.get("f").unwrap() == model);
    assert_consistent(&store);
}
