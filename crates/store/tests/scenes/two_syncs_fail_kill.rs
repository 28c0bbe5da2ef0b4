//! A client write on raid6 whose syncs fail on two OSSs (s8a left, issue #4 OPEN 3 of
//! note8), both disks dropping what the write sent them (Linux may mark the pages of a failed
//! fsync clean: the OSS then serves the old bytes under their old, valid checksums), then a
//! kill at every journal record boundary after the write began. Before, the first OSS went on
//! record failed alone and the second with the plan's durability in a later record: a kill
//! between the two left the second OSS trusted with its stale bytes beside the first one
//! failed, and the decode of the failed column through them could not be told right.
//!
//! A kill -9 keeps every write that returned: the disk it leaves is the store as it is after
//! the write, the two OSSs rolled back to their last sync, with the journal cut at a record
//! boundary (records are appended one write each).

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::BackendError;
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

/// Every sync of OSSs `osses` fails (two disks whose flushes fail).
struct SyncsFail {
    osses: [usize; 2],
    failed: AtomicUsize,
}

impl Hook for SyncsFail {
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if !self.osses.contains(&oss) {
            return Ok(());
        }
        self.failed.fetch_add(1, Ordering::SeqCst);
        Err(BackendError::Io {
            oss: format!("oss-{oss}"),
            why: "injected: fsync EIO".into(),
        })
    }
}

/// No fault: the disks answer again after the reboot.
struct NoFault;
impl Hook for NoFault {}

#[test]
fn a_write_whose_syncs_fail_on_two_osses_then_a_kill_at_any_record_reads_no_stale_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let old = pattern(31, 2 * sdb);
    store.put("f", &old).unwrap();
    let g = pattern(32, sdb + 700);
    store.put("g", &g).unwrap();
    let id = store.file_id("f").unwrap();
    // Data elements 0 and 1 of stripe 0: the write covers the one on the higher OSS whole
    // and the first half of the other, whose second half (acknowledged, unchanged) shares
    // its parity rows with bytes the write changed on the first.
    let oss_of = |element: usize| store.layout().locate(id, (element * UNIT) as u64).oss;
    let (lo, hi) = if oss_of(0) < oss_of(1) {
        (0, 1)
    } else {
        (1, 0)
    };
    let (lo_oss, hi_oss) = (oss_of(lo), oss_of(hi));
    store.close().unwrap();
    // The two OSSs as of their last sync: what a disk that drops unsynced pages keeps.
    let synced = tmp.path().join("synced");
    for oss in [lo_oss, hi_oss] {
        copy_tree(
            &dir.join(format!("oss-{oss}")),
            &synced.join(format!("oss-{oss}")),
        );
    }

    let hook = Arc::new(SyncsFail {
        osses: [lo_oss, hi_oss],
        failed: AtomicUsize::new(0),
    });
    let store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
    let journal = dir.join("journal");
    let before = std::fs::metadata(&journal).unwrap().len();
    let mut writes: Vec<(usize, Vec<u8>)> = vec![
        (hi * UNIT, pattern(33, UNIT)),
        (lo * UNIT, pattern(34, UNIT / 2)),
    ];
    writes.sort();
    let mut new = old.clone();
    for (offset, bytes) in &writes {
        new[*offset..*offset + bytes.len()].copy_from_slice(bytes);
    }
    // One write of both ranges: one plan, whose syncs fail on both OSSs.
    let (from, to) = (
        writes[0].0,
        writes.iter().map(|(o, b)| o + b.len()).max().unwrap(),
    );
    let written = store.write("f", from as u64, &new[from..to]);
    assert!(
        hook.failed.load(Ordering::SeqCst) >= 2,
        "the syncs of OSS {lo_oss} and {hi_oss} ran and failed"
    );
    assert!(
        written.is_err(),
        "a write is not acknowledged over failed syncs"
    );
    drop(store); // no close: the disk as a kill leaves it
    for oss in [lo_oss, hi_oss] {
        let d = dir.join(format!("oss-{oss}"));
        std::fs::remove_dir_all(&d).unwrap();
        copy_tree(&synced.join(format!("oss-{oss}")), &d);
    }
    // The open told the OSSs a new epoch with the operation's first record (the hooked
    // backends forward it since s17f): the kills from there on.
    let cuts = record_boundaries(&journal, cuts_after_epoch_bump(&journal, before));
    assert!(cuts.len() >= 3, "the write journaled records: {cuts:?}");
    // The image is restored in place: the superblock names its OSS directories by path.
    let saved = tmp.path().join("saved");
    copy_tree(&dir, &saved);
    for (i, &cut) in cuts.iter().enumerate() {
        let what = format!(
            "kill after the write's record {i} of {} (syncs of OSS {lo_oss} and {hi_oss} failed, their bytes dropped)",
            cuts.len() - 1
        );
        restore_with_journal_cut(&saved, &dir, &journal, cut);
        let store: Store = open_wrapped(&dir, &Arc::new(NoFault), &[], OpenOptions::default())
            .unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let got_g = store
            .get("g")
            .unwrap_or_else(|e| panic!("{what}: get g: {e}"));
        assert!(got_g == g, "{what}: g reads wrong bytes");
        let got = match store.get("f") {
            Ok(got) => got,
            Err(StoreError::DataLost(why)) => panic!("{what}: acknowledged bytes of f lost: {why}"),
            Err(e) => panic!("{what}: get f: {e}"),
        };
        assert_eq!(got.len(), old.len(), "{what}: f's size");
        // Each byte old or new inside the unacknowledged write, old everywhere else.
        for (at, (&o, &n)) in old.iter().zip(&new).enumerate() {
            let b = got[at];
            assert!(
                b == o || b == n,
                "{what}: f byte {at} is {b}, neither old {o} nor new {n}"
            );
        }
        let lost = store.status().unwrap().lost_ranges;
        assert!(lost.is_empty(), "{what}: recorded lost: {lost:?}");
        drop(store);
    }
}
