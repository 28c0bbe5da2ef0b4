//! Array codes on WCL (issue #4, s6e's left: "array codes on WCL only the crash after every
//! write cut"): an OSS dying in the middle of a settle (a flush), one code per family
//! (horizontal: RDP; vertical, parity rows in the data columns: X-code; hybrid: HDP), then
//! the settle cut by a crash some home writes later, or not cut at all.
//!
//! As `settle_fail_midway.rs` (raid6): once armed, the OSS of the n-th cache-zone read of
//! the settle answers nothing any more (reads and writes fail: the disk died); `cut_after`
//! home writes later every write fails (the crash; the store is dropped without `close`).
//! The next open (the OSS back, failed on record) must read every acknowledged byte exact,
//! name nothing lost and scrub clean.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};

const NONE: usize = usize::MAX;

struct DiesMidSettle {
    die_at_cache_read: usize,
    /// Home writes after the death that land before the crash (`NONE`: no crash).
    cut_after: usize,
    cache_reads: AtomicUsize,
    dead: AtomicUsize,
    home_writes_before: AtomicUsize,
    home_writes_after: AtomicUsize,
}

impl DiesMidSettle {
    fn new(die_at_cache_read: usize, cut_after: usize) -> DiesMidSettle {
        DiesMidSettle {
            die_at_cache_read,
            cut_after,
            cache_reads: AtomicUsize::new(0),
            dead: AtomicUsize::new(NONE),
            home_writes_before: AtomicUsize::new(0),
            home_writes_after: AtomicUsize::new(0),
        }
    }
    fn died(&self, oss: usize) -> Result<(), BackendError> {
        Err(BackendError::Unavailable {
            oss: format!("OSS {oss}"),
            why: "injected: the disk died".into(),
        })
    }
}

impl Hook for DiesMidSettle {
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache
            && self.cache_reads.fetch_add(1, Ordering::SeqCst) + 1 == self.die_at_cache_read
        {
            self.dead.store(oss, Ordering::SeqCst);
        }
        if self.dead.load(Ordering::SeqCst) == oss {
            return self.died(oss);
        }
        Ok(())
    }

    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let dead = self.dead.load(Ordering::SeqCst);
        if dead == oss {
            return self.died(oss);
        }
        if key.zone == Zone::Cache {
            return Ok(()); // settle copies: part of the settle, not counted
        }
        if dead == NONE {
            self.home_writes_before.fetch_add(1, Ordering::SeqCst);
            return Ok(());
        }
        if self.home_writes_after.fetch_add(1, Ordering::SeqCst) < self.cut_after {
            return Ok(());
        }
        Err(BackendError::Io {
            oss: format!("OSS {oss}"),
            why: "injected: the crash cuts the settle here".into(),
        })
    }

    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if self.dead.load(Ordering::SeqCst) == oss {
            return self.died(oss);
        }
        Ok(())
    }
}

/// Three files waiting in the cache zone over several home stripes, some partial; the
/// store closed. Returns their bytes.
fn cached_files(dir: &std::path::Path, code: CodeSpec, oss_count: usize) -> Vec<Vec<u8>> {
    let files: Vec<Vec<u8>> = (0..3)
        .map(|i| pattern(70 + i, 9_000 + 40_001 * i as usize))
        .collect();
    let store = init(dir, code, oss_count, WritePath::Wcl);
    for (i, f) in files.iter().enumerate() {
        store.write(&format!("f{i}"), 0, f).unwrap();
    }
    // A second write over part of f2: more cached bytes beside older ones.
    let over = pattern(79, 5_000);
    store.write("f2", 3_000, &over).unwrap();
    let mut files = files;
    files[2][3_000..8_000].copy_from_slice(&over);
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    store.close().unwrap();
    files
}

fn dies_mid_settle(code: CodeSpec) {
    let cols = columns(code);
    // How many cache-zone reads a whole settle of this store makes (nothing fails).
    let cache_reads = {
        let dir = scratch();
        cached_files(dir.path(), code, cols);
        let hook = Arc::new(DiesMidSettle::new(NONE, NONE));
        let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
        store.flush().unwrap();
        hook.cache_reads.load(Ordering::SeqCst)
    };
    assert!(cache_reads >= 4, "{code}: {cache_reads} cache reads");
    // At most 6 death points, spread over the settle (the test stays short).
    let step = cache_reads.div_ceil(6);
    let mut cut_cases = 0;
    for die_at in (1..=cache_reads).step_by(step) {
        for cut_after in [0, 3, NONE] {
            let dir = scratch();
            let files = cached_files(dir.path(), code, cols);
            let hook = Arc::new(DiesMidSettle::new(die_at, cut_after));
            let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
            let flushed = store.flush();
            let oss = hook.dead.load(Ordering::SeqCst);
            let case = format!(
                "{code}: OSS {oss} dies at cache read {die_at}, the settle cut {} home writes later",
                if cut_after == NONE { "no".to_string() } else { cut_after.to_string() }
            );
            assert!(oss != NONE, "{case}: the settle read the cache zone");
            assert_eq!(store.failed_osses(), vec![oss], "{case}: failed on record");
            if cut_after == NONE {
                flushed.unwrap_or_else(|e| panic!("{case}: flush: {e}"));
            } else if flushed.is_err() {
                cut_cases += 1;
            }
            drop(store); // as after a kill: no close
                         // The OSS answers again (failed on record: unused until rebuilt).
            let store = Store::open(dir.path()).unwrap_or_else(|e| panic!("{case}: open: {e}"));
            assert_eq!(store.failed_osses(), vec![oss], "{case}");
            let lost = store.status().unwrap().lost_ranges;
            assert!(lost.is_empty(), "{case}: recorded lost: {lost:?}");
            for (i, f) in files.iter().enumerate() {
                let got = store
                    .get(&format!("f{i}"))
                    .unwrap_or_else(|e| panic!("{case}: get f{i}: {e}"));
                let wrong = got.iter().zip(f).filter(|(a, b)| a != b).count();
                assert!(
                    got.len() == f.len() && wrong == 0,
                    "{case}: f{i} reads {wrong} wrong bytes"
                );
            }
            assert_consistent(&store);
        }
    }
    assert!(
        cut_cases >= 2,
        "{code}: the crash cut the settle {cut_cases} times"
    );
}

#[test]
fn rdp_an_oss_dying_mid_settle_then_a_crash_loses_nothing() {
    dies_mid_settle(CodeSpec::array(CodeKind::Rdp, 5));
}

#[test]
fn xcode_an_oss_dying_mid_settle_then_a_crash_loses_nothing() {
    dies_mid_settle(CodeSpec::array(CodeKind::Xcode, 5));
}

#[test]
fn hdp_an_oss_dying_mid_settle_then_a_crash_loses_nothing() {
    dies_mid_settle(CodeSpec::array(CodeKind::Hdp, 5));
}
