//! A zone file deleted outside exaraid (by hand, a stray `rm`) on one OSS, met by the open's
//! look for deletions that a removal ran (`cut_deletions`): after a cut journal tail
//! (note14 item 9), and after every OSS's epoch file was removed, the "older metadata"
//! escape hatch (note14 item 8). A removal forgets a zone's extents durably before it
//! deletes the file; a file deleted outside exaraid leaves them naming it written. Taken
//! for a removal, its whole file was recorded lost (`OBJECTS_DELETED`,
//! `OBJECTS_REMOVED_SINCE`) although every byte decodes from the other OSSs.
//!
//! Specification: what parity can prove is decoded, only what it cannot is lost. One zone
//! file gone is within every redundant code's tolerance: the file reads right, nothing is
//! recorded lost, and `scrub --repair` puts the element back. Beyond the tolerance the read
//! fails naming the loss, never zeros. A true removal's deletions keep their meaning (the
//! tests of `cut_tail_decisions_together.rs` and the CLI's `store_epoch_files_removed.rs`).

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

const FILE_BYTES: usize = 65_536;

/// `put f` on raid6 4+2 (rmw), then `put g`; the store's image as a power cut leaves it
/// (taken while open: a close checkpoints the journal away). Returns f's id and the bytes.
fn two_files(dir: &Path) -> (u64, Vec<u8>, Vec<u8>) {
    let store = init(dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let f = pattern(1, FILE_BYTES);
    store.put("f", &f).unwrap();
    let g = pattern(2, FILE_BYTES);
    store.put("g", &g).unwrap();
    let id = store.file_id("f").unwrap();
    let image = dir.with_extension("image");
    copy_tree(dir, &image);
    drop(store);
    std::fs::remove_dir_all(dir).unwrap();
    copy_tree(&image, dir);
    std::fs::remove_dir_all(&image).unwrap();
    (id, f, g)
}

/// The journal's last record damaged by one flipped bit (the open cuts it off).
fn damage_last_record(dir: &Path) {
    let journal = dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let recs = journal_record_kinds(&bytes);
    let (start, len, _) = *recs.last().unwrap();
    bytes[start + 8 + (len - 8) / 2] ^= 0x10;
    std::fs::write(&journal, &bytes).unwrap();
}

/// Remove f's data zone files on the first `count` OSSs that hold one.
fn delete_f_data_zones(dir: &Path, id: u64, count: usize) -> Vec<usize> {
    let mut deleted = Vec::new();
    for oss in 0..6 {
        if deleted.len() == count {
            break;
        }
        let path = object_file(dir, oss, &format!("{id}.data"));
        if path.exists() {
            std::fs::remove_file(path).unwrap();
            deleted.push(oss);
        }
    }
    assert_eq!(
        deleted.len(),
        count,
        "f has data zone files on {count} OSSs"
    );
    deleted
}

/// `g`: g's bytes where its `put` is on record (the cut tail is its last record).
fn assert_reads_right_nothing_lost(store: &Store, f: &[u8], g: Option<&[u8]>, what: &str) {
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.is_empty(),
        "{what}: bytes recorded lost though every byte decodes: {lost:?}"
    );
    let got = store.get("f").unwrap_or_else(|e| panic!("{what}: f: {e}"));
    assert!(got == f, "{what}: f read wrong bytes with success");
    if let Some(g) = g {
        assert!(store.get("g").unwrap() == g, "{what}: g");
    }
    let report = store.scrub(true).unwrap();
    assert!(
        report.unrepairable.is_empty(),
        "{what}: scrub --repair: {report:?}"
    );
    assert_consistent(store);
}

#[test]
fn a_zone_file_deleted_by_hand_beside_a_cut_tail_decodes_not_lost() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (id, f, _) = two_files(&dir);
    damage_last_record(&dir);
    delete_f_data_zones(&dir, id, 1);
    let store = Store::open(&dir).unwrap();
    assert!(
        store.journal_tail_cut_warning().is_some(),
        "the scene: the open cut the damaged record"
    );
    // The cut record is g's put: g is not in the store.
    assert_reads_right_nothing_lost(&store, &f, None, "beside a cut tail");
}

#[test]
fn a_zone_file_deleted_by_hand_under_the_older_metadata_signature_decodes_not_lost() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (id, f, g) = two_files(&dir);
    for oss in 0..6 {
        std::fs::remove_file(dir.join(format!("oss-{oss}")).join("exaraid-epoch.json")).unwrap();
    }
    delete_f_data_zones(&dir, id, 1);
    let store = Store::open(&dir).unwrap();
    assert_reads_right_nothing_lost(&store, &f, Some(&g), "every epoch file removed");
}

#[test]
fn zone_files_deleted_by_hand_beyond_the_tolerance_read_as_lost_never_zeros() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (id, f, _) = two_files(&dir);
    damage_last_record(&dir);
    let deleted = delete_f_data_zones(&dir, id, 3);
    let store = Store::open(&dir).unwrap();
    match store.get("f") {
        Ok(got) => panic!(
            "f read with success with its data zone files gone on OSSs {deleted:?} (right: {})",
            got == f
        ),
        Err(e) => assert!(
            matches!(&e, StoreError::DataLost(_)) || e.to_string().contains("lost"),
            "the read names the loss: {e}"
        ),
    }
}
