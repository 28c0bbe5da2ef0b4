//! A settle that fails AFTER it began (review s4e E6 remainder): an I/O error (or ENOSPC where
//! the reserved slots do not guarantee room: thin provisioning, copy-on-write file systems)
//! under its home writes. Its `SettleBegin` is on record, so every open redoes it; while the
//! cause lasts that failed, and every command with it, even `get`. Now such an open serves
//! reads (the store is open for reads only, with a warning naming the cause), refuses every
//! change naming the same cause, and the first open after the cause is gone finishes the
//! settle.
//!
//! The failure is a hooked backend whose home-data writes fail with an I/O error after the
//! first `HOME_WRITES_OK` (a settle partly written home).

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

/// Home-data writes that succeed before the failing ones: the settle stops part way.
const HOME_WRITES_OK: usize = 1;

/// Fails home-data writes with an I/O error (not "unavailable": the OSS answers, the write
/// does not land) once `HOME_WRITES_OK` have gone through, while `failing`.
#[derive(Default)]
struct FailingHomeWrites {
    failing: AtomicBool,
    home_writes: AtomicUsize,
}

impl Hook for FailingHomeWrites {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone != Zone::Data || !self.failing.load(Ordering::SeqCst) {
            return Ok(());
        }
        if self.home_writes.fetch_add(1, Ordering::SeqCst) < HOME_WRITES_OK {
            return Ok(());
        }
        Err(BackendError::Io {
            oss: format!("{oss}"),
            why: "injected: Input/output error".into(),
        })
    }
}

fn open(dir: &Path, hook: &Arc<FailingHomeWrites>) -> Result<Store, StoreError> {
    let options = OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    };
    open_wrapped(dir, hook, &[], options)
}

/// A WCL store (raid5 4+1) with `f`'s bytes cached (not home), a `flush` whose home writes
/// fail part way (the settle began), and the failure lasting. Returns the store's bytes.
fn store_with_a_failed_settle(dir: &Path, hook: &Arc<FailingHomeWrites>) -> Vec<u8> {
    drop(init(dir, CodeSpec::raid5(4), 5, WritePath::Wcl));
    let store = open(dir, hook).unwrap();
    let sdb = store.layout().stripe_data_bytes() as usize;
    let mut model = pattern(1, 5 * sdb);
    store.put("f", &model).unwrap();
    store.flush().unwrap(); // home, with parity
                            // Overwrites in the middle of elements: cached, waiting for their settle.
    for (i, at) in [(0usize, 1000usize), (1, sdb + 5000), (2, 3 * sdb + 77)] {
        let new = pattern(10 + i as u64, 3000);
        store.write("f", at as u64, &new).unwrap();
        model[at..at + new.len()].copy_from_slice(&new);
    }
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    hook.failing.store(true, Ordering::SeqCst);
    let flushed = store.flush();
    assert!(
        matches!(
            flushed,
            Err(StoreError::Backend(_)) | Err(StoreError::Io(_))
        ),
        "the settle fails on the injected error: {flushed:?}"
    );
    assert!(
        hook.home_writes.load(Ordering::SeqCst) > HOME_WRITES_OK,
        "the settle began writing home before it failed"
    );
    drop(store);
    model
}

#[test]
fn a_settle_that_cannot_finish_leaves_the_store_readable_and_refuses_changes_until_it_can() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let hook = Arc::new(FailingHomeWrites::default());
    let model = store_with_a_failed_settle(&dir, &hook);

    // The cause lasts: the open retries the settle, which fails again.
    hook.home_writes.store(0, Ordering::SeqCst);
    let store = open(&dir, &hook).expect("an open whose settle cannot finish serves reads");
    assert!(
        hook.home_writes.load(Ordering::SeqCst) > HOME_WRITES_OK,
        "the open tried the settle again"
    );
    assert!(
        store.get("f").unwrap() == model,
        "every acknowledged byte reads"
    );
    let part = store.read("f", 900, 300).unwrap();
    assert_eq!(part, model[900..1200]);
    let refused = store.write("f", 0, b"new").unwrap_err();
    let why = refused.to_string();
    assert!(
        why.contains("reads only") && why.contains("injected: Input/output error"),
        "a change is refused naming the cause: {why}"
    );
    assert!(store.remove("f").is_err(), "rm is a change too");
    let warnings = store.close_with_warnings().unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("reads only")),
        "closing tells the user: {warnings:?}"
    );

    // The cause is gone: the next open finishes the settle, and the store works.
    hook.failing.store(false, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    assert!(store.get("f").unwrap() == model);
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0);
    store.write("f", 0, b"new").unwrap();
    let mut model = model;
    model[..3].copy_from_slice(b"new");
    assert!(store.get("f").unwrap() == model);
    assert_consistent(&store);
    store.close().unwrap();
}

/// A degraded read of a stripe the unfinished settle was rewriting is refused (its data and
/// parity may be of different versions), never decoded; other stripes read degraded as
/// usual. The OSS is failed by `fail`, which a store open for reads only accepts (a disk
/// failing its writes is taken out so that the settle can go on without it).
#[test]
fn with_the_settle_unfinished_a_decode_in_a_stripe_it_names_is_refused_not_guessed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let hook = Arc::new(FailingHomeWrites::default());
    let model = store_with_a_failed_settle(&dir, &hook);
    hook.home_writes.store(0, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    let layout = store.layout().clone();
    let id = store.file_id("f").unwrap();
    let data_oss =
        |stripe: u64, d: usize| layout.oss_of(id, stripe, layout.geometry().data_pos[d].col);
    // Data element 1 of stripe 0 (the settle names stripe 0; no cached bytes there).
    let dead = data_oss(0, 1);
    store.fail_oss(dead).unwrap();
    let at = layout.file_offset(0, 1, 0);
    match store.read("f", at, 100) {
        Err(StoreError::Io(why)) => assert!(why.contains("settle"), "{why}"),
        other => panic!("a decode in a stripe the settle names: {other:?}"),
    }
    // Stripes 2 and 4 hold no cached bytes: the settle does not name them.
    let (stripe, d) = [2u64, 4]
        .into_iter()
        .flat_map(|s| (0..4).map(move |d| (s, d)))
        .find(|&(s, d)| data_oss(s, d) == dead)
        .expect("the dead OSS holds data of stripe 2 or 4");
    let at = layout.file_offset(stripe, d, 0) as usize;
    assert_eq!(
        store.read("f", at as u64, 100).unwrap(),
        model[at..at + 100],
        "a stripe the settle does not name reads degraded"
    );
    drop(store);

    // The cause gone: the settle finishes without the failed OSS. Never a wrong byte; on
    // raid5 the failed OSS's bytes in the stripes the cut settle was rewriting (without
    // copies: it began with every OSS up) may be recorded lost (S2 remainder, OPEN 1).
    hook.failing.store(false, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0);
    for at in (0..model.len()).step_by(UNIT) {
        let stripe = (at / layout.stripe_data_bytes() as usize) as u64;
        let d = (at % layout.stripe_data_bytes() as usize) / UNIT;
        match store.read("f", at as u64, UNIT as u64) {
            Ok(got) => assert!(got == model[at..at + UNIT], "WRONG bytes at {at}"),
            Err(StoreError::DataLost(_)) => assert!(
                data_oss(stripe, d) == dead && [0, 1, 3].contains(&stripe),
                "lost bytes at {at}, not the failed OSS's in a stripe the settle named"
            ),
            Err(e) => panic!("read at {at}: {e}"),
        }
    }
}

/// Review s8s S8-4: a verify-only `scrub` changes nothing, and it is the one tool that says
/// what the unfinished settle left: served while the store is open for reads only (it was
/// refused as a change). The stripes the settle names are checked for checksums but their
/// parity is not compared (listed instead); `scrub --repair` stays refused. S8-2: the
/// refusal's advice tells the truth about `fail` (window bytes in that OSS's cache zone are
/// lost on every code) and names `online` as the way back.
#[test]
fn a_verify_only_scrub_is_served_while_open_for_reads_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let hook = Arc::new(FailingHomeWrites::default());
    let model = store_with_a_failed_settle(&dir, &hook);
    hook.home_writes.store(0, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    let report = store
        .scrub(false)
        .expect("a verify-only scrub is served for reads only");
    assert!(!report.unsettled_stripes.is_empty(), "{report:?}");
    assert!(report.corrupt_elements.is_empty(), "{report:?}");
    assert!(report.parity_mismatches.is_empty(), "{report:?}");
    let refused = store.scrub(true).unwrap_err().to_string();
    assert!(refused.contains("reads only"), "{refused}");
    assert!(
        refused.contains("on every code") && refused.contains("exaraid store online"),
        "the advice says what `fail` costs and the way back: {refused}"
    );
    assert!(store.get("f").unwrap() == model);
    drop(store);
    hook.failing.store(false, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    let report = store.scrub(false).unwrap();
    assert!(report.unsettled_stripes.is_empty(), "settled: {report:?}");
    assert!(report.parity_mismatches.is_empty(), "{report:?}");
    assert!(store.get("f").unwrap() == model);
}

/// Merge finding s11k: a journal tail cut on record and a store open for reads only (the
/// settle cannot finish). A verify-only scrub skips the parity of the unsettled stripes, so
/// it has not checked what the cut write may have left: the cut stays on record (reads
/// keep refusing unchecked decodes) and the store, which promises that nothing changes,
/// journals nothing. The open that finishes the settle then deals with the cut itself.
#[test]
fn a_verify_only_scrub_open_for_reads_only_keeps_a_tail_cut_on_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let hook = Arc::new(FailingHomeWrites::default());
    let model = store_with_a_failed_settle(&dir, &hook);
    // A torn tail (zeros a crash left past the last record): the next open cuts it.
    let journal = dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(&[0u8; 100]);
    std::fs::write(&journal, &bytes).unwrap();
    hook.home_writes.store(0, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    assert!(
        store.journal_tail_cut_warning().is_some(),
        "the cut is on record"
    );
    let journal_bytes = std::fs::metadata(&journal).unwrap().len();
    let report = store.scrub(false).unwrap();
    assert!(!report.unsettled_stripes.is_empty(), "{report:?}");
    assert_eq!(report.journal_tail_cuts_checked, 0, "{report:?}");
    assert!(
        store.status().unwrap().journal_tail_cut.is_some(),
        "a scrub that skipped stripes leaves the cut on record"
    );
    assert_eq!(
        std::fs::metadata(&journal).unwrap().len(),
        journal_bytes,
        "a store open for reads only appends nothing to its journal"
    );
    drop(store);
    let store = open(&dir, &hook).unwrap();
    assert!(
        store.journal_tail_cut_warning().is_some(),
        "the next open still has the cut on record"
    );
    drop(store);
    hook.failing.store(false, Ordering::SeqCst);
    let store = open(&dir, &hook).unwrap();
    assert!(
        store.journal_tail_cut_warning().is_none(),
        "the open that finishes the settle scrubs and clears the cut"
    );
    assert!(store.get("f").unwrap() == model);
}
