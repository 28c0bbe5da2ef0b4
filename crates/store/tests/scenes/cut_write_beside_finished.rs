//! A write into the cache zone (WCL, or inside a delayed window) cut by a crash while a
//! later write of another thread finished (review h, finding H1): after reopen, the cut
//! write's bytes read old or new, never what its cache slot held before it (zeros, or
//! stale bytes of an older cache stripe or window), and every acknowledged byte reads exact.
//!
//! Why it needs two writers: with one, every plan after the cut one is cut too and recovery
//! replays the planner only up to the first cut input (the cut write was never made). With
//! a later plan durable, the planner state must keep the later write, and it used to keep
//! the cut one's ranges pointing at its cache slot, whose bytes it may never have written.
//!
//! How the crash is made, deterministically and in process: writer A's plan is parked at
//! its first cache read (the running parity it updates), writer B (admitted after A) then
//! writes another stripe into a fresh cache stripe (no cache read) and is acknowledged;
//! A's cache writes then fail, so A returns an error having written nothing; the store is
//! dropped without `close` (no flush: as a kill leaves it) and opened again.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::{Condvar, Mutex};

/// Parks every cache-zone read while paused (and every cache-zone write too when
/// `park_writes`); fails every cache-zone write once `cut`.
#[derive(Default)]
struct CutCache {
    paused: Mutex<bool>,
    changed: Condvar,
    parked: AtomicUsize,
    park_writes: AtomicBool,
    cut: AtomicBool,
}

impl CutCache {
    fn park(&self) {
        let mut paused = self.paused.lock();
        if *paused {
            self.parked.fetch_add(1, Ordering::SeqCst);
            while *paused {
                self.changed.wait(&mut paused);
            }
        }
    }
}

impl Hook for CutCache {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        if key.zone == Zone::Cache {
            self.park();
        }
    }
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache && self.park_writes.load(Ordering::SeqCst) {
            self.park();
        }
        if key.zone == Zone::Cache && self.cut.load(Ordering::SeqCst) {
            return Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the crash cuts this write before it lands".into(),
            });
        }
        Ok(())
    }
}

/// File "f" of 3 stripes; W0 (acknowledged) opens stripe 0's cache stripe in data element
/// 0; A (cut) writes into data element 1 of the same cache stripe; B (acknowledged, after A)
/// writes data element 0 of stripe 1.
fn cut_write_beside_a_finished_one(code: CodeSpec, oss: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Wcl);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let size = 3 * sdb;
    let mut model = pattern(1, size);
    store.put("f", &model).unwrap();
    // Another file through the same cache slots: they hold its bytes when W0 reuses them
    // (else the stale bytes under A's range would be f's own old bytes, hiding the bug).
    store.put("g", &pattern(5, size)).unwrap();
    store.close().unwrap();

    let hook = Arc::new(CutCache::default());
    let store = Arc::new(open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap());
    let w0 = (0usize, pattern(2, 1000));
    store.write("f", w0.0 as u64, &w0.1).unwrap();
    model[w0.0..w0.0 + w0.1.len()].copy_from_slice(&w0.1);

    *hook.paused.lock() = true;
    let a = (UNIT, pattern(3, 1000));
    let writer_a = {
        let (store, bytes) = (store.clone(), a.1.clone());
        spawn(move || store.write("f", a.0 as u64, &bytes))
    };
    eventually("writer A parks at its cache read", || {
        hook.parked.load(Ordering::SeqCst) > 0
    });
    let b = (sdb, pattern(4, UNIT));
    store.write("f", b.0 as u64, &b.1).unwrap();
    model[b.0..b.0 + b.1.len()].copy_from_slice(&b.1);

    hook.cut.store(true, Ordering::SeqCst);
    *hook.paused.lock() = false;
    hook.changed.notify_all();
    let cut = done_in_time(&writer_a, "writer A");
    assert!(
        cut.is_err(),
        "{code:?}: writer A's cache writes fail: {cut:?}"
    );
    drop(store); // no close: the crash

    let store = Store::open(dir.path()).unwrap();
    let got = store.get("f").unwrap();
    assert_eq!(got.len(), size);
    let (ax, az) = (a.0, a.0 + a.1.len());
    for i in (0..size).filter(|&i| i < ax || i >= az) {
        assert_eq!(
            got[i], model[i],
            "{code:?}: acknowledged byte {i} is wrong after the crash"
        );
    }
    let old = &model[ax..az];
    assert!(
        &got[ax..az] == old || got[ax..az] == a.1[..],
        "{code:?}: the cut write's bytes {ax}..{az} are neither old nor new (zeros: {}, g's bytes: {})",
        got[ax..az].iter().all(|&x| x == 0),
        got[ax..az] == pattern(5, size)[ax..az]
    );
    assert_consistent(&store);
}

#[test]
fn raid5_cut_wcl_write_beside_a_finished_one_reads_old_or_new() {
    cut_write_beside_a_finished_one(CodeSpec::raid5(3), 4);
}

#[test]
fn raid6_cut_wcl_write_beside_a_finished_one_reads_old_or_new() {
    cut_write_beside_a_finished_one(CodeSpec::raid6(3), 5);
}

/// Delayed: W0 (acknowledged) opens a window on "f" (cache zone, no parity); A (cut) writes
/// another element of "f" inside the window, parked at its cache write; B (acknowledged,
/// after A) writes file "h", which has no window (home, with parity: no cache write).
fn cut_window_write_beside_a_finished_one(code: CodeSpec, oss: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Delayed);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let size = 3 * sdb;
    let mut model = pattern(1, size);
    store.put("f", &model).unwrap();
    let h = pattern(6, size);
    store.put("h", &h).unwrap();
    // A window of another file through the same cache slots: they hold its bytes when f's
    // window reuses them (else A's slot would read f's own old bytes, hiding the bug).
    let g = pattern(5, size);
    store.put("g", &g).unwrap();
    let token = store.delayed_start("g").unwrap();
    store.write("g", 0, &g).unwrap();
    store.delayed_end(&token).unwrap();
    store.close().unwrap();

    let hook = Arc::new(CutCache::default());
    let store = Arc::new(open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap());
    store.delayed_start("f").unwrap();
    let w0 = (0usize, pattern(2, 1000));
    store.write("f", w0.0 as u64, &w0.1).unwrap();
    model[w0.0..w0.0 + w0.1.len()].copy_from_slice(&w0.1);

    hook.park_writes.store(true, Ordering::SeqCst);
    *hook.paused.lock() = true;
    let a = (UNIT, pattern(3, 1000));
    let writer_a = {
        let (store, bytes) = (store.clone(), a.1.clone());
        spawn(move || store.write("f", a.0 as u64, &bytes))
    };
    eventually("writer A parks at its cache write", || {
        hook.parked.load(Ordering::SeqCst) > 0
    });
    let b = (sdb, pattern(4, UNIT));
    store.write("h", b.0 as u64, &b.1).unwrap();

    hook.cut.store(true, Ordering::SeqCst);
    *hook.paused.lock() = false;
    hook.changed.notify_all();
    let cut = done_in_time(&writer_a, "writer A");
    assert!(
        cut.is_err(),
        "{code:?}: writer A's cache write fails: {cut:?}"
    );
    drop(store); // no close: the crash

    let store = Store::open(dir.path()).unwrap();
    let mut h_model = h.clone();
    h_model[b.0..b.0 + b.1.len()].copy_from_slice(&b.1);
    assert!(store.get("h").unwrap() == h_model, "{code:?}: h is exact");
    let got = store.get("f").unwrap();
    assert_eq!(got.len(), size);
    let (ax, az) = (a.0, a.0 + a.1.len());
    for i in (0..size).filter(|&i| i < ax || i >= az) {
        assert_eq!(
            got[i], model[i],
            "{code:?}: acknowledged byte {i} is wrong after the crash"
        );
    }
    assert!(
        got[ax..az] == model[ax..az] || got[ax..az] == a.1[..],
        "{code:?}: the cut window write's bytes {ax}..{az} are neither old nor new (zeros: {}, g's bytes: {})",
        got[ax..az].iter().all(|&x| x == 0),
        got[ax..az] == g[ax..az]
    );
}

#[test]
fn raid6_cut_window_write_beside_a_finished_one_reads_old_or_new() {
    cut_window_write_beside_a_finished_one(CodeSpec::raid6(3), 5);
}
