//! Session 28 (s28a), review s27r R27-1 cut down: concurrent WCL writers of one file, no
//! fault at all, and a write refused naming acknowledged bytes lost ("running parity
//! disagrees with its data ... could not locate the stale column").
//!
//! The scene, made deterministic with a hooked backend: write X holds stripe 0 (parked at
//! its cache writes); behind it in the stripe queue, write P overwrites cached bytes of the
//! open cache stripe G1 (so P checks G1 against its running parity before its delta,
//! `verify_cache_before_delta`), write W2 fills G1 (G1 complete: its destage is planned)
//! and write W3 rewrites bytes G1 already holds, in a new cache stripe G2 of the same home
//! stripe. When P runs, the planner already knows W3: its lookup names G2 as the newest
//! copy of W3's bytes. P's check took G1's live bytes from that lookup, so it counted the
//! bytes G1 holds under W3's range (an earlier, acknowledged write's, covered by G1's
//! running parity) as never written, found the running parity disagreeing with its data,
//! located no single stale column and recorded every data byte of those checksum blocks
//! LOST (and encoded their running parity from zeros).

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::WritePath;
use parking_lot::{Condvar, Mutex};

/// Parks every cache-zone write while `paused` (any thread: the executor writes on threads
/// of its own); the only plan executing while paused is the one the test parks.
#[derive(Default)]
struct ParkCacheWrites {
    paused: Mutex<bool>,
    changed: Condvar,
    parked: AtomicUsize,
}

impl Hook for ParkCacheWrites {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone != Zone::Cache {
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

impl ParkCacheWrites {
    fn set(&self, paused: bool) {
        *self.paused.lock() = paused;
        self.changed.notify_all();
    }
}

/// The scene of the module docs on `spec` with one OSS per column; every write must succeed
/// and every byte read back as written, in the stripe queue's order (X, P, W2, W3).
fn scene(spec: CodeSpec) {
    let tmp = scratch();
    let dir = tmp.path();
    let store = init(dir, spec, columns(spec), WritePath::Wcl);
    let sdb = store.layout().stripe_data_bytes();
    let mut model = bytes_of(1, 0, 2 * sdb);
    store.put("f", &model).unwrap();
    store.close().unwrap();
    let hook = Arc::new(ParkCacheWrites::default());
    let store = Arc::new(open_wrapped(dir, &hook, &[], Default::default()).unwrap());
    let write = |model: &mut Vec<u8>, id: u64, off: u64, len_bytes: u64| {
        let data = bytes_of(id, off, len_bytes);
        model[off as usize..(off + len_bytes) as usize].copy_from_slice(&data);
        data
    };
    let unit = UNIT as u64;
    assert!(sdb >= 4 * unit, "data elements 0..3 in stripe 0");
    // W0, acknowledged: opens cache stripe G1 of home stripe 0 with data element 0 whole
    // and bytes 0..1000 of element 1 (so the running parity at element offsets 0..500
    // covers more than one element: leaving element 0's bytes out there shows).
    let w0 = write(&mut model, 10, 0, unit + 1000);
    store.write("f", 0, &w0).unwrap();

    // X: new bytes into G1, parked at its cache writes, holding stripe 0.
    hook.set(true);
    let spawn_write = |id: u64, off: u64, data: Vec<u8>| {
        let store = store.clone();
        spawn(move || {
            store
                .write("f", off, &data)
                .map_err(|e| format!("write {id}: {e}"))
        })
    };
    let x = spawn_write(
        11,
        2 * unit + 100,
        write(&mut model, 11, 2 * unit + 100, 1000),
    );
    eventually("X parks at its cache writes", || {
        hook.parked.load(Ordering::SeqCst) >= 1
    });
    // P: overwrites W0's cached bytes (reads them: the check before its delta runs).
    let p = spawn_write(12, 100, write(&mut model, 12, 100, 200));
    eventually("P waits behind X", || store.stripe_lock_waiters() == 1);
    // W2: fills the rest of G1 (complete: its destage is planned, after X, P and W2).
    let w2_at = unit + 1000;
    let w2 = spawn_write(13, w2_at, write(&mut model, 13, w2_at, sdb - w2_at));
    eventually("W2 waits behind P", || store.stripe_lock_waiters() == 2);
    // W3: W0's bytes again, into G2 (G1 is being destaged): the planner's newest copy.
    let w3 = spawn_write(14, 0, write(&mut model, 14, 0, 500));
    eventually("W3 waits behind W2", || store.stripe_lock_waiters() == 3);
    hook.set(false);

    let mut failed = Vec::new();
    for (rx, what) in [(x, "X"), (p, "P"), (w2, "W2"), (w3, "W3")] {
        if let Err(e) = done_in_time(&rx, what) {
            failed.push(e);
        }
    }
    assert!(
        failed.is_empty(),
        "{spec:?}, WCL, no fault: writes refused: {}",
        failed.join(" | ")
    );
    assert!(store.get("f").unwrap() == model, "every byte reads back");
    store.flush().unwrap();
    assert!(store.get("f").unwrap() == model, "every byte, flushed");
    assert_consistent(&store);
}

#[test]
fn a_wcl_write_checking_its_cache_stripe_counts_bytes_a_later_queued_write_rewrote_in_a_newer_one_raid6(
) {
    scene(CodeSpec::raid6(4));
}

#[test]
fn a_wcl_write_checking_its_cache_stripe_counts_bytes_a_later_queued_write_rewrote_in_a_newer_one_raid5(
) {
    scene(CodeSpec::raid5(4));
}

#[test]
fn a_wcl_write_checking_its_cache_stripe_counts_bytes_a_later_queued_write_rewrote_in_a_newer_one_hdp(
) {
    scene(CodeSpec::array(CodeKind::Hdp, 5));
}
