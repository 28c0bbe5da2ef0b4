//! Review s4e E12, the narrow case: an OSS recorded failed in the *middle* of a settle (its
//! cache-zone reads fail from some stripe on), then the settle is cut before its end (here by
//! a write error on a later stripe, which leaves the store as a kill -9 there would: every
//! write that returned is on disk, the settle is on record without its end). The stripes
//! settled before the failure was recorded have no settle copies of that OSS's column, so the
//! next open takes them as never written home by the settle ("as consistent as before"). This
//! test shows that is safe under a kill: those stripes' writes all returned before the next
//! stripe was read, so they are whole and consistent, and the failed OSS's column decodes
//! right from them. (What it does not cover: a machine crash that loses writes the settle had
//! not synced yet, see docs/store.md Limits.) Note: this passes too with those stripes taken
//! as in flight instead (checked by changing `SettleCopies::Missing => continue` in
//! recovery.rs): on whole stripes both decisions give the true bytes, so the test guards the
//! outcome of the scenario, not that one branch.
use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};

const NONE: usize = usize::MAX;

/// Once armed: the OSS of the `fail_at_cache_read`-th cache-zone read answers no read any
/// more (for this open); then, `writes_after_failure` home writes later, every write fails
/// (the settle is cut there).
struct FailMidway {
    fail_at_cache_read: usize,
    writes_after_failure: usize,
    cache_reads: AtomicUsize,
    failed_oss: AtomicUsize,
    home_writes_before_failure: AtomicUsize,
    home_writes_after_failure: AtomicUsize,
}

impl FailMidway {
    fn new(fail_at_cache_read: usize, writes_after_failure: usize) -> FailMidway {
        FailMidway {
            fail_at_cache_read,
            writes_after_failure,
            cache_reads: AtomicUsize::new(0),
            failed_oss: AtomicUsize::new(NONE),
            home_writes_before_failure: AtomicUsize::new(0),
            home_writes_after_failure: AtomicUsize::new(0),
        }
    }
}

impl Hook for FailMidway {
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache
            && self.cache_reads.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at_cache_read
        {
            self.failed_oss.store(oss, Ordering::SeqCst);
        }
        if self.failed_oss.load(Ordering::SeqCst) != oss {
            return Ok(());
        }
        Err(BackendError::Unavailable {
            oss: format!("OSS {oss}"),
            why: "injected: its reads fail".into(),
        })
    }

    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache {
            return Ok(()); // settle copies: part of the settle, not counted
        }
        if self.failed_oss.load(Ordering::SeqCst) == NONE {
            self.home_writes_before_failure
                .fetch_add(1, Ordering::SeqCst);
            return Ok(());
        }
        let n = self
            .home_writes_after_failure
            .fetch_add(1, Ordering::SeqCst);
        if n < self.writes_after_failure {
            return Ok(());
        }
        Err(BackendError::Io {
            oss: format!("OSS {oss}"),
            why: "injected: the settle is cut here".into(),
        })
    }
}

/// raid6 4+2 over 9 OSSs, WCL, 4 KiB unit: four files waiting in the cache zone over many
/// home stripes. Returns their bytes.
fn cached_files(dir: &std::path::Path) -> Vec<Vec<u8>> {
    let files: Vec<Vec<u8>> = (0..4)
        .map(|i| pattern(60 + i, 9_000 + 13_001 * i as usize))
        .collect();
    let store = init(dir, CodeSpec::raid6(4), 9, WritePath::Wcl);
    for (i, f) in files.iter().enumerate() {
        store.write(&format!("f{i}"), 0, f).unwrap();
    }
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    store.close().unwrap();
    files
}

#[test]
fn a_settle_cut_after_an_oss_failed_midway_loses_nothing() {
    // How many cache-zone reads a whole settle of this store makes (nothing fails).
    let cache_reads = {
        let dir = scratch();
        cached_files(dir.path());
        let hook = Arc::new(FailMidway::new(NONE, 0));
        let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
        store.flush().unwrap();
        hook.cache_reads.load(Ordering::SeqCst)
    };
    assert!(cache_reads >= 8, "{cache_reads} cache reads");
    let mut cases = 0;
    // At most 16 fail points, spread over the settle (the test stays short).
    let step = cache_reads.div_ceil(16);
    for fail_at_cache_read in (1..=cache_reads).step_by(step) {
        for writes_after_failure in [0, 5] {
            let dir = scratch();
            let files = cached_files(dir.path());
            let hook = Arc::new(FailMidway::new(fail_at_cache_read, writes_after_failure));
            let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
            let cut = store.flush();
            let oss = hook.failed_oss.load(Ordering::SeqCst);
            let case = format!(
                "OSS {oss} down at cache read {fail_at_cache_read}, settle cut {writes_after_failure} home writes later"
            );
            assert!(oss != NONE, "{case}: the settle read the cache zone");
            assert_eq!(store.failed_osses(), vec![oss], "{case}: failed on record");
            drop(store); // as after a kill: no close
            if hook.home_writes_before_failure.load(Ordering::SeqCst) == 0 || cut.is_ok() {
                continue; // not the narrow case: no stripe settled before, or none after
            }
            // The OSS answers again; the next open finishes the settle.
            let store = Store::open(dir.path()).unwrap();
            assert_eq!(store.failed_osses(), vec![oss], "{case}");
            assert!(
                store.status().unwrap().lost_ranges.is_empty(),
                "{case}: nothing lost"
            );
            for (i, f) in files.iter().enumerate() {
                let got = store.read(&format!("f{i}"), 0, f.len() as u64).unwrap();
                let wrong = got.iter().zip(f).filter(|(a, b)| a != b).count();
                assert_eq!(wrong, 0, "{case}: f{i} reads {wrong} wrong bytes");
            }
            assert_consistent(&store);
            cases += 1;
        }
    }
    // Most fail points are the narrow case (only the first stripe's reads come before any
    // home write).
    assert!(
        cases * 2 >= cache_reads,
        "{cases} narrow cases of {cache_reads} cache reads"
    );
}
