//! Bad sectors under one OSS's cache zone file: every read of a cache element of that OSS
//! fails EIO while the OSS is up (note16 OPEN 4, the cache half of review s16r R16-5).
//! Under `wcl` and `delayed` the newest copy of acknowledged bytes waits there for destage,
//! so an element that does not read is bytes at risk: reads decode it from the cache
//! stripe's parity, and scrub said nothing of it (the OSS's home elements were named by
//! s16i, its cache elements were skipped). Now scrub names each such element with the file
//! bytes it holds; `--repair` rewrites a WCL element from its cache stripe (a write remaps a
//! bad sector) and reads it back, or, when the rewrite fails too, records the OSS failed;
//! bytes of an open delayed window (no parity) are named as their only copy, never guessed.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{Store, WritePath};
use parking_lot::Mutex;

/// Bytes written and left in the cache zone (two data elements of the first cache stripe).
const CACHED_BYTES: usize = 5000;

fn eio(oss: usize) -> BackendError {
    BackendError::Unavailable {
        oss: format!("{oss} (test: bad sectors)"),
        why: "Input/output error (os error 5)".into(),
    }
}

/// Every cache-zone read of `victim` fails EIO, but for the elements written since (a write
/// remaps a bad sector); with `writes_fail` those writes fail EIO as well (a disk out of
/// spare sectors).
struct BadCacheSectors {
    victim: usize,
    writes_fail: AtomicBool,
    remapped: Mutex<BTreeSet<ElementKey>>,
}

impl Hook for BadCacheSectors {
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.victim && key.zone == Zone::Cache && !self.remapped.lock().contains(&key) {
            return Err(eio(oss));
        }
        Ok(())
    }
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.victim && key.zone == Zone::Cache {
            if self.writes_fail.load(Ordering::SeqCst) {
                return Err(eio(oss));
            }
            self.remapped.lock().insert(key);
        }
        Ok(())
    }
}

/// A WCL store whose file "a" has `CACHED_BYTES` bytes, all in the cache zone, reopened
/// over bad sectors under the cache zone of the OSS holding bytes 0..4096. Returns the
/// store, the hook and the bytes.
fn wcl_bad_cache(
    dir: &std::path::Path,
    code: CodeSpec,
    oss_count: usize,
) -> (Store, Arc<BadCacheSectors>, Vec<u8>) {
    let data = pattern(31, CACHED_BYTES);
    let victim;
    {
        let store = init(dir, code, oss_count, WritePath::Wcl);
        store.write("a", 0, &data).unwrap();
        assert_eq!(
            store.status().unwrap().bytes_waiting_parity,
            CACHED_BYTES as u64,
            "the bytes wait in the cache zone"
        );
        victim = store.layout().locate(store.file_id("a").unwrap(), 0).oss;
        store.close().unwrap();
    }
    let hook = Arc::new(BadCacheSectors {
        victim,
        writes_fail: AtomicBool::new(false),
        remapped: Mutex::new(BTreeSet::new()),
    });
    let store = open_wrapped(dir, &hook, &[], Default::default()).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        CACHED_BYTES as u64,
        "still in the cache zone after the reopen"
    );
    (store, hook, data)
}

fn wcl_cases() -> Vec<(&'static str, CodeSpec, usize)> {
    vec![
        ("raid5 3+1", CodeSpec::raid5(3), 4),
        ("raid6 4+2", CodeSpec::raid6(4), 6),
    ]
}

/// A verify-only scrub names the element that does not read, with the file bytes whose
/// newest copy it holds, repairs nothing and leaves the OSS up; reads decode the bytes.
#[test]
fn scrub_names_a_cache_element_that_does_not_read() {
    for (what, code, oss_count) in wcl_cases() {
        let tmp = scratch();
        let (store, hook, data) = wcl_bad_cache(tmp.path(), code, oss_count);
        let report = store.scrub(false).unwrap();
        assert_eq!(
            report.unreadable_cache_elements.len(),
            1,
            "{what}: {report:?}"
        );
        let f = &report.unreadable_cache_elements[0];
        assert_eq!(
            (f.oss, f.file.as_str(), f.zone.as_str()),
            (hook.victim, "a", "data"),
            "{what}: {f:?}"
        );
        assert_eq!(f.stripe, 0, "{what}");
        assert_eq!(
            f.file_ranges,
            vec![(0, UNIT as u64)],
            "{what}: the bytes at risk"
        );
        assert!(!f.without_parity, "{what}: a WCL cache stripe has parity");
        assert!(f.why.contains("Input/output error"), "{what}: {f:?}");
        assert!(!f.repaired, "{what}: a verify-only scrub repairs nothing");
        assert!(
            report.failed_oss.is_empty(),
            "{what}: the OSS stays up: {report:?}"
        );
        assert!(hook.remapped.lock().is_empty(), "{what}: nothing written");
        assert_eq!(store.get("a").unwrap(), data, "{what}: decoded");
        store.close().unwrap();
    }
}

/// `scrub --repair` rewrites the element from its cache stripe and reads it back: the next
/// scrub is clean, nothing is failed, and the bytes on disk are right (moved home after a
/// reopen without the hook, they read straight).
#[test]
fn scrub_repair_rewrites_a_cache_element_that_does_not_read() {
    for (what, code, oss_count) in wcl_cases() {
        let tmp = scratch();
        let (store, hook, data) = wcl_bad_cache(tmp.path(), code, oss_count);
        let report = store.scrub(true).unwrap();
        assert_eq!(
            report.unreadable_cache_elements.len(),
            1,
            "{what}: {report:?}"
        );
        assert!(
            report.unreadable_cache_elements[0].repaired,
            "{what}: {report:?}"
        );
        assert_eq!(report.repaired_elements, 1, "{what}");
        assert!(report.unrepairable.is_empty(), "{what}: {report:?}");
        assert!(report.failed_oss.is_empty(), "{what}: {report:?}");
        assert_eq!(
            hook.remapped.lock().len(),
            1,
            "{what}: one element rewritten"
        );
        let again = store.scrub(false).unwrap();
        assert!(
            again.unreadable_cache_elements.is_empty(),
            "{what}: {again:?}"
        );
        assert_eq!(store.get("a").unwrap(), data, "{what}");
        store.close().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        assert_consistent(&store);
        store.flush().unwrap();
        assert_consistent(&store);
        assert_eq!(
            store.get("a").unwrap(),
            data,
            "{what}: reopened without the hook, moved home"
        );
        store.close().unwrap();
    }
}

/// `scrub --repair` whose rewrite fails EIO too: the OSS is recorded failed, the scrub says
/// to rebuild it, nothing is recorded lost, and the bytes read right (from the cache
/// stripe's parity).
#[test]
fn scrub_repair_records_the_oss_failed_when_the_cache_rewrite_fails() {
    for (what, code, oss_count) in wcl_cases() {
        let tmp = scratch();
        let (store, hook, data) = wcl_bad_cache(tmp.path(), code, oss_count);
        hook.writes_fail.store(true, Ordering::SeqCst);
        let report = store.scrub(true).unwrap();
        assert_eq!(
            report.unreadable_cache_elements.len(),
            1,
            "{what}: {report:?}"
        );
        assert!(!report.unreadable_cache_elements[0].repaired, "{what}");
        assert_eq!(report.failed_oss, vec![hook.victim], "{what}: {report:?}");
        assert!(
            report
                .unrepairable
                .iter()
                .any(|u| u.contains("rebuild") && u.contains(&format!("OSS {}", hook.victim))),
            "{what}: the scrub says to rebuild the OSS: {report:?}"
        );
        assert!(report.lost_ranges.is_empty(), "{what}: {report:?}");
        assert_eq!(store.failed_osses(), vec![hook.victim], "{what}");
        assert_eq!(store.get("a").unwrap(), data, "{what}");
        store.close().unwrap();
    }
}

/// An open delayed window's bytes have no parity: the element that does not read holds
/// their only copy. Scrub names the bytes (also with `--repair`, which cannot rebuild
/// them), fails no OSS and records nothing lost (a later read may still succeed: named,
/// never guessed).
#[test]
fn scrub_names_open_window_bytes_whose_only_copy_does_not_read() {
    let tmp = scratch();
    let dir = tmp.path();
    let (token, data, victim) = {
        let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Delayed);
        let token = store.delayed_start("ckpt").unwrap();
        let data = pattern(33, 3 * UNIT);
        store.write("ckpt", 0, &data).unwrap();
        let victim = store
            .layout()
            .locate(store.file_id("ckpt").unwrap(), UNIT as u64)
            .oss;
        store.close().unwrap();
        (token, data, victim)
    };
    let hook = Arc::new(BadCacheSectors {
        victim,
        writes_fail: AtomicBool::new(false),
        remapped: Mutex::new(BTreeSet::new()),
    });
    let store = open_wrapped(dir, &hook, &[], Default::default()).unwrap();
    assert!(
        store.status().unwrap().bytes_unprotected > 0,
        "the window is open"
    );
    for repair in [false, true] {
        let report = store.scrub(repair).unwrap();
        assert_eq!(report.unreadable_cache_elements.len(), 1, "{report:?}");
        let f = &report.unreadable_cache_elements[0];
        assert_eq!((f.oss, f.file.as_str()), (victim, "ckpt"), "{f:?}");
        assert_eq!(f.file_ranges, vec![(UNIT as u64, 2 * UNIT as u64)]);
        assert!(f.without_parity, "{f:?}");
        assert!(!f.repaired, "no parity: nothing to rebuild from");
        assert!(
            report
                .unrepairable
                .iter()
                .any(|u| u.contains("'ckpt' bytes 4096..8192")
                    && u.contains(&format!("OSS {victim}"))
                    && u.contains("only copy")),
            "names the file, the bytes and the OSS: {report:?}"
        );
        assert!(report.failed_oss.is_empty(), "{report:?}");
        assert!(report.lost_ranges.is_empty(), "{report:?}");
        assert!(hook.remapped.lock().is_empty(), "nothing written");
    }
    store.close().unwrap();
    // The disk reads again: the window's bytes were never changed.
    let store = Store::open(dir).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), data);
    store.delayed_end(&token).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), data);
    assert_consistent(&store);
    store.close().unwrap();
}
