//! Bad sectors under one OSS's home elements: every read of them fails EIO while the OSS
//! is up (review s16r R16-5). Reads decode around them, so only scrub can find them, and
//! it said clean: "corrupt elements: 0", nothing rewritten, the OSS `ok`, while the
//! stripes ran without that redundancy (on raid5, all of it). Now scrub names each
//! element it could not read; `--repair` rewrites it from the decode (a write remaps a bad
//! sector) and reads it back, or, when the rewrite fails too, records the OSS failed (as a
//! write meeting the same EIO does) so that `status` and `rebuild` see it.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::WritePath;
use parking_lot::Mutex;

/// The OSS with the bad sectors.
const VICTIM: usize = 1;
/// Stripes of the file.
const STRIPES: usize = 3;

fn eio(oss: usize) -> BackendError {
    BackendError::Unavailable {
        oss: format!("{oss} (test: bad sectors)"),
        why: "Input/output error (os error 5)".into(),
    }
}

/// Every home-zone read of `VICTIM` fails EIO, but for the elements written since (a
/// write remaps a bad sector); with `writes_fail` those writes fail EIO as well (a disk
/// out of spare sectors).
#[derive(Default)]
struct BadSectors {
    writes_fail: AtomicBool,
    remapped: Mutex<BTreeSet<ElementKey>>,
}

fn home(key: ElementKey) -> bool {
    matches!(key.zone, Zone::Data | Zone::Parity)
}

impl Hook for BadSectors {
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == VICTIM && home(key) && !self.remapped.lock().contains(&key) {
            return Err(eio(oss));
        }
        Ok(())
    }
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == VICTIM && home(key) {
            if self.writes_fail.load(Ordering::SeqCst) {
                return Err(eio(oss));
            }
            self.remapped.lock().insert(key);
        }
        Ok(())
    }
}

/// `f` of `STRIPES` stripes, flushed home, then the store opened over the bad sectors.
/// Returns the store, the hook and `f`'s bytes.
fn bad_sectors_under_f(
    dir: &std::path::Path,
    code: CodeSpec,
    oss_count: usize,
    path: WritePath,
) -> (exaraid_store::Store, Arc<BadSectors>, Vec<u8>) {
    let acked;
    {
        let store = init(dir, code, oss_count, path);
        acked = pattern(7, STRIPES * store.layout().stripe_data_bytes() as usize);
        store.put("f", &acked).unwrap();
        store.flush().unwrap();
        store.close().unwrap();
    }
    let hook = Arc::new(BadSectors::default());
    let store = open_wrapped(dir, &hook, &[], Default::default()).unwrap();
    (store, hook, acked)
}

fn cases() -> Vec<(&'static str, CodeSpec, usize, WritePath)> {
    vec![
        ("raid5 3+1 rmw", CodeSpec::raid5(3), 4, WritePath::Rmw),
        ("raid5 3+1 wcl", CodeSpec::raid5(3), 4, WritePath::Wcl),
        ("raid6 4+2 rmw", CodeSpec::raid6(4), 6, WritePath::Rmw),
        ("raid6 4+2 wcl", CodeSpec::raid6(4), 6, WritePath::Wcl),
    ]
}

/// A verify-only scrub names every element of the OSS it could not read (one per stripe:
/// every OSS holds one column of each), with the error, and repairs nothing; the reads
/// still return the acknowledged bytes.
#[test]
fn scrub_names_every_element_that_does_not_read() {
    for (what, code, oss_count, path) in cases() {
        let tmp = scratch();
        let (store, _hook, acked) = bad_sectors_under_f(tmp.path(), code, oss_count, path);
        let report = store.scrub(false).unwrap();
        assert_eq!(report.stripes_checked, STRIPES as u64, "{what}");
        assert_eq!(
            report.unreadable_elements.len(),
            STRIPES,
            "{what}: one element of OSS {VICTIM} per stripe does not read: {report:?}"
        );
        for f in &report.unreadable_elements {
            assert_eq!(f.oss, VICTIM, "{what}: {f:?}");
            assert_eq!(f.file, "f", "{what}: {f:?}");
            assert!(f.why.contains("Input/output error"), "{what}: {f:?}");
            assert!(!f.repaired, "{what}: a verify-only scrub repairs nothing");
        }
        let stripes: BTreeSet<u64> = report
            .unreadable_elements
            .iter()
            .map(|f| f.stripe)
            .collect();
        assert_eq!(stripes, (0..STRIPES as u64).collect(), "{what}");
        assert!(report.corrupt_elements.is_empty(), "{what}: {report:?}");
        assert_eq!(store.get("f").unwrap(), acked, "{what}");
        store.close().unwrap();
    }
}

/// `scrub --repair` rewrites each element from the decode and reads it back: the next
/// scrub is clean, nothing is failed, and the bytes on disk are right (a later open
/// without the hook reads them straight).
#[test]
fn scrub_repair_rewrites_elements_that_do_not_read() {
    for (what, code, oss_count, path) in cases() {
        let tmp = scratch();
        let (store, hook, acked) = bad_sectors_under_f(tmp.path(), code, oss_count, path);
        let report = store.scrub(true).unwrap();
        assert_eq!(
            report.unreadable_elements.len(),
            STRIPES,
            "{what}: {report:?}"
        );
        assert!(
            report.unreadable_elements.iter().all(|f| f.repaired),
            "{what}: every element rewritten and read back: {report:?}"
        );
        assert_eq!(report.repaired_elements, STRIPES as u64, "{what}");
        assert!(report.unrepairable.is_empty(), "{what}: {report:?}");
        assert!(report.failed_oss.is_empty(), "{what}: {report:?}");
        assert_eq!(
            hook.remapped.lock().len(),
            STRIPES,
            "{what}: rewritten elements"
        );
        let again = store.scrub(false).unwrap();
        assert!(again.unreadable_elements.is_empty(), "{what}: {again:?}");
        assert_consistent(&store);
        assert_eq!(store.get("f").unwrap(), acked, "{what}");
        store.close().unwrap();
        let store = exaraid_store::Store::open(tmp.path()).unwrap();
        assert_consistent(&store);
        assert_eq!(
            store.get("f").unwrap(),
            acked,
            "{what}: reopened without the hook"
        );
        store.close().unwrap();
    }
}

/// `scrub --repair` whose rewrites fail EIO too: the OSS is recorded failed (as a write
/// meeting EIO records it), the scrub says to rebuild it, and the bytes read right.
#[test]
fn scrub_repair_records_the_oss_failed_when_the_rewrite_fails() {
    for (what, code, oss_count, path) in cases() {
        let tmp = scratch();
        let (store, hook, acked) = bad_sectors_under_f(tmp.path(), code, oss_count, path);
        hook.writes_fail.store(true, Ordering::SeqCst);
        let report = store.scrub(true).unwrap();
        assert!(!report.unreadable_elements.is_empty(), "{what}: {report:?}");
        assert!(
            report.unreadable_elements.iter().all(|f| !f.repaired),
            "{what}: {report:?}"
        );
        assert_eq!(report.failed_oss, vec![VICTIM], "{what}: {report:?}");
        assert!(
            report
                .unrepairable
                .iter()
                .any(|u| u.contains("rebuild") && u.contains(&format!("OSS {VICTIM}"))),
            "{what}: the scrub says to rebuild OSS {VICTIM}: {report:?}"
        );
        assert_eq!(store.failed_osses(), vec![VICTIM], "{what}");
        assert_eq!(store.get("f").unwrap(), acked, "{what}");
        store.close().unwrap();
    }
}
