//! Session 15's s15e question (note15 OPEN item 5): the decode users that do not call
//! `keep_data_as_read` (a degraded read and scrub do) — the failed-column copies a write
//! journals before it changes a stripe with a column on a failed OSS (`copy_failed_columns`,
//! laid over the stripe by recovery if the write is cut), and the reset of lost rows before
//! a write (`reset_lost_rows_written_whole`) — never take a located column's bytes from the
//! parity. By reading: both write only erased blocks (the failed OSS's column; the
//! unreadable blocks of rows beyond the tolerance, zeroed), and an erased block decoded
//! beside a located column is right whichever of the two holds the truth (its decode erases
//! the located column too). This test pins the first with a scene where taking the parity's
//! version would show: rs 4+3 (a code that locates one wrong column with one erased).
//!
//! Scene: OSS L lost a home write of data element 0 (its zone file put back: old bytes under
//! valid checksums: the parity holds the lost write's version), then the OSS F of data
//! element 1 is failed on record, and a write of data element 2 is cut after its block
//! writes (journal cut before its `Durable`; the write journaled F's column, decoded with L
//! located, first). Specification ("named, never wrong"): after recovery every 4 KiB block
//! reads what a healthy read returned before the crash (element 0: L's own bytes, the
//! documented stale read; element 1: F's decoded bytes), the cut write's range its old or
//! its new bytes, or it is `DataLost` and on record.

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec};
use exaraid_store::{Store, WritePath};

const LOST_WRITE_BYTES: usize = 3000;
const CUT_BYTES: usize = 3000;
/// Data elements of stripe 0: the one whose OSS lost a write, the failed one, the cut one.
const LOST_DATA: usize = 0;
const FAILED_DATA: usize = 1;
const CUT_DATA: usize = 2;

/// Rewrite the journal in `dir` without its records from the first `Durable` after the last
/// write's input on. Returns whether that write journaled a failed column's copy.
fn cut_journal_before_durable(dir: &Path) -> bool {
    let path = dir.join("journal");
    let (_, records) = Journal::<Rec>::open(&path).unwrap();
    let input = records
        .iter()
        .rposition(|(_, r)| matches!(r, Rec::Input(Input::Write { .. })))
        .expect("the write's input is journaled");
    let durable = input
        + records[input..]
            .iter()
            .position(|(_, r)| matches!(r, Rec::Durable { .. }))
            .expect("the write is durable in the run after");
    let copied = records[input..durable]
        .iter()
        .any(|(_, r)| matches!(r, Rec::FailedColumnCopy { .. }));
    std::fs::remove_file(&path).unwrap();
    let (mut journal, _) = Journal::<Rec>::open(&path).unwrap();
    if let Some(&(first, _)) = records.first() {
        journal.advance_to(first);
    }
    for (_, rec) in &records[..durable] {
        journal.append(rec, false).unwrap();
    }
    copied
}

#[test]
fn a_cut_write_beside_a_located_column_and_a_failed_one_reads_as_before_or_lost() {
    let code = CodeSpec::rs(4, 3);
    let cols = 7;
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after) = (tmp.path().join("saved"), tmp.path().join("after"));
    let store = init(&dir, code, cols, WritePath::Rmw);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    store.put("f", &pattern(1, 2 * sdb)).unwrap();
    let id = store.file_id("f").unwrap();
    let oss_of = |d: usize| layout.oss_of(id, 0, layout.geometry().data_pos[d].col);
    let lost_at = layout.file_offset(0, LOST_DATA, 0);
    let zone_file = object_file(&dir, oss_of(LOST_DATA), &format!("{id}.data"));
    let before_lost = std::fs::read(&zone_file).unwrap();
    store
        .write("f", lost_at, &pattern(2, LOST_WRITE_BYTES))
        .unwrap();
    store.close().unwrap();
    // OSS L lost that write: its zone file as before, valid checksums.
    std::fs::write(&zone_file, &before_lost).unwrap();
    let store = Store::open(&dir).unwrap();
    let healthy = store.get("f").unwrap();
    store.fail_oss(oss_of(FAILED_DATA)).unwrap();
    assert!(
        store.get("f").unwrap() == healthy,
        "a degraded read beside the located column returns what a healthy one did"
    );
    store.close().unwrap();

    let store = open_unsynced(&dir);
    copy_tree(&dir, &saved);
    let cut_at = layout.file_offset(0, CUT_DATA, 0) as usize;
    let new = pattern(3, CUT_BYTES);
    store.write("f", cut_at as u64, &new).unwrap();
    copy_tree(&dir, &after);
    drop(store);
    assert!(
        cut_journal_before_durable(&after),
        "the write journals the failed column's copy before its block writes"
    );
    let units = changed_slots(&saved, &after, cols, |oss, _| oss != oss_of(FAILED_DATA));
    assert!(!units.is_empty(), "the cut write changed slots");
    // Every subset of the write's slots landed, the others old (a kill between them).
    for landed in 0u32..1 << units.len() {
        let image = tmp.path().join("image");
        if image.exists() {
            std::fs::remove_dir_all(&image).unwrap();
        }
        copy_tree(&after, &image);
        for (n, unit) in units.iter().enumerate() {
            if landed & (1 << n) == 0 {
                copy_slot_bytes(&saved, &image, unit, 0..SLOT_BYTES);
            }
        }
        let store = open_unsynced(&image);
        let what = format!("slots landed {landed:#b} of {units:?}");
        // A first pass: since session 44 (s44b) the home witness finds element 0's stale
        // block, which recovery's re-encode of the row left its parity agreeing with, and
        // the read records it LOST itself (before: the documented stale read). The check
        // below takes the record before it reads.
        for at in (0..healthy.len()).step_by(4096) {
            let len = 4096.min(healthy.len() - at);
            let _ = store.read("f", at as u64, len as u64);
        }
        assert_blocks_read_or_lost_on_record(
            &store,
            "f",
            &healthy,
            cut_at..cut_at + CUT_BYTES,
            &new,
            &what,
        );
        drop(store);
    }
}
