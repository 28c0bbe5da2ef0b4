//! An OSS fails while a WCL destage is in flight, then a crash tears a home block of the
//! destage on another OSS (OPEN 4 of session 8: does the destage share the torn edge-block
//! gap of the delayed move home, `move_home_fail_in_flight.rs`?).
//!
//! It does not: a destage moves a *complete* cache stripe home (every data element whole,
//! with its full running parity), so it writes whole elements, never a block in part, and
//! the cache stripe (which the destage never writes, and which stays the newest copy until
//! the destage is durable) holds every byte of every block it writes, the failed OSS's
//! column as a decode of its running parity. No home byte older than the destage is needed,
//! so no copy is either. This test holds that: every home write of the destage parked, the
//! OSS of data element 1 failed, the crash image taken, a home block of data element 0
//! torn in it (its new payload under its old checksum), and every acknowledged byte must
//! read from the image.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, StoreError, WritePath};
use parking_lot::{Condvar, Mutex};

/// Parks every home write (data and parity) of any thread while paused.
#[derive(Default)]
struct HomeWritesHook {
    paused: Mutex<bool>,
    changed: Condvar,
    parked: AtomicUsize,
}

impl HomeWritesHook {
    fn release(&self) {
        *self.paused.lock() = false;
        self.changed.notify_all();
    }
}

impl Hook for HomeWritesHook {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache {
            return Ok(());
        }
        let mut paused = self.paused.lock();
        if *paused {
            self.parked.fetch_add(1, Ordering::SeqCst);
            while *paused {
                self.changed.wait(&mut paused);
            }
            self.parked.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

#[test]
fn raid5_an_oss_failed_under_a_wcl_destage_then_a_crash_with_a_torn_home_block_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let image = tmp.path().join("image");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Wcl);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    let failing_oss = layout.oss_of(id, 0, layout.geometry().data_pos[1].col);

    let hook = Arc::new(HomeWritesHook::default());
    let store = Arc::new(open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap());
    // Stripe 0 written whole: its cache stripe is complete, and the destage follows the
    // write's own plan on the writing thread (no background worker here).
    let new = pattern(2, sdb);
    model[..sdb].copy_from_slice(&new);
    *hook.paused.lock() = true;
    let write = {
        let s = store.clone();
        spawn(move || s.write("f", 0, &new))
    };
    // Every column's home write of the destage is parked (one per OSS).
    eventually("the destage parks all its home writes", || {
        hook.parked.load(Ordering::SeqCst) == layout.width()
    });
    store.fail_oss(failing_oss).unwrap();

    // The disks as a kill -9 at this instant leaves them, data element 0 then torn.
    copy_tree(&dir, &image);
    let e0 = layout.file_offset(0, 0, 0) as usize;
    let before = tear_home_block(&image, &layout, id, 0, &model[e0..e0 + UNIT]);
    assert_ne!(
        before,
        &model[e0..e0 + UNIT],
        "the destage had not written this block yet"
    );

    hook.release();
    done_in_time(&write, "the write and its destage").unwrap();
    assert!(store.get("f").unwrap() == model, "the live store");
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&image, &dir);

    let mut store = open_unsynced(&dir);
    let status = store.status().unwrap();
    assert!(
        !status.oss[failing_oss].healthy && !status.oss[failing_oss].missing,
        "the failure is on record in the crash image"
    );
    match store.get("f") {
        Ok(got) => assert!(got == model, "WRONG bytes with exit 0"),
        Err(StoreError::DataLost(why)) => panic!("acknowledged bytes recorded lost: {why}"),
        Err(e) => panic!("get: {e}"),
    }
    store.rebuild(failing_oss, None).unwrap();
    assert!(store.get("f").unwrap() == model, "after rebuild");
    assert_consistent(&store);
}
