//! Session 23 (s23c), unproven path of "OPEN after session 22": "a missing block with nothing
//! in flight is decoded through `confirm_by_parity`, which trusts columns that pass their
//! checksums (a stale one, s22f)".
//!
//! The scene: a stripe holding a stale data element (its OSS lost an acknowledged overwrite:
//! old bytes under their valid old checksums, which no checksum can see) and, in another
//! data column, a block with no bytes at all: its OSS failed (disk gone, `fail`ed before the
//! open) or its zone file emptied outside exaraid. Optionally a kill leaves a client write
//! cut on the same stripe at other offsets (block row 0 of data element 0), so the next
//! open's recovery settles the stripe while nothing is in flight at block row 1.
//!
//! Any decode of the missing block reads the stale column or must check against it; with
//! two parities, one missing column and one stale one leave exactly one unit of
//! redundancy: enough to see that the row is wrong, not to locate the stale column. So
//! the missing block's acknowledged bytes are unknowable: they must read `DataLost` (on
//! record where recovery or scrub decided them), never the decode through the stale column
//! with success. Every block outside the stale column and the missing one reads exact (the
//! stale column itself reading its old bytes is the documented lost-write limit, "Checksums
//! are not versioned"). Then `scrub --repair` must not turn that into wrong bytes either
//! (rebuilding the missing block from the stale column and resealing the stripe).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};
use std::path::Path;

const BLOCK_BYTES: usize = 4096;
/// Two checksum blocks per element: a cut write over block row 0 leaves row 1 quiet.
const ELEMENT_BYTES: usize = 2 * BLOCK_BYTES;

#[derive(Clone, Copy, Debug)]
enum Missing {
    /// The OSS's disk is gone and the OSS `fail`ed before the open.
    FailedOss,
    /// The OSS's zone file of the file emptied outside exaraid (`set_len(0)`).
    EmptiedSlot,
}

/// Every block of 'f' outside the stale element reads its acknowledged bytes, or fails
/// `DataLost` when it is a missing (or rotten) one, and then, if `recorded`, with that loss
/// on record.
fn check_reads(
    store: &Store,
    acknowledged: &[u8],
    stale: &std::ops::Range<usize>,
    missing: &[std::ops::Range<usize>],
    what: &str,
    recorded: bool,
) {
    let on_record: Vec<(u64, u64)> = store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .filter(|l| l.file == "f")
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    for at in (0..acknowledged.len()).step_by(BLOCK_BYTES) {
        if stale.contains(&at) {
            continue; // the lost-write limit: checksums are not versioned
        }
        let (a, z) = (at as u64, (at + BLOCK_BYTES) as u64);
        match store.read("f", a, BLOCK_BYTES as u64) {
            Ok(got) => {
                let want = &acknowledged[at..at + BLOCK_BYTES];
                let wrong = got.iter().zip(want).filter(|(x, y)| x != y).count();
                assert!(
                    wrong == 0,
                    "{what}: 'f' bytes {a}..{z} read with success, {wrong} bytes WRONG{}",
                    if missing.iter().any(|m| m.contains(&at)) {
                        " (the missing block: its decode read the stale column)"
                    } else {
                        ""
                    }
                );
            }
            Err(StoreError::DataLost(msg)) => {
                assert!(
                    missing.iter().any(|m| m.contains(&at)),
                    "{what}: 'f' bytes {a}..{z} LOST ({msg}): only the missing block may be \
                     (lost on record: {on_record:?})"
                );
                // The open's recovery decided the block: its loss goes on record. Without a
                // crash the read refuses it (an error naming the bytes; nothing recorded).
                assert!(
                    !recorded || on_record.iter().any(|&(s, e)| s < z && a < e),
                    "{what}: 'f' bytes {a}..{z} read DataLost ({msg}) but no loss is on record: {on_record:?}"
                );
            }
            Err(e) => panic!("{what}: read at {at}: {e}"),
        }
    }
}

fn missing_block_beside_stale_element(code: CodeSpec, how: Missing, cut_write: bool, rot: bool) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = exaraid_store::InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(&dir, &opts).unwrap();
    let layout = store.layout().clone();
    let g = layout.geometry().clone();
    assert!(g.data_count() >= 4, "the scene needs four data columns");
    let stripe_bytes = g.data_count() * ELEMENT_BYTES;
    let mut acknowledged = pattern(1, 2 * stripe_bytes);
    store.put("f", &acknowledged).unwrap();
    let id = store.file_id("f").unwrap();

    // Data element 1 of stripe 0 goes stale: its OSS loses an acknowledged overwrite.
    let stale_oss = layout.oss_of(id, 0, g.data_pos[1].col);
    let zone_file = object_file(&dir, stale_oss, &format!("{id}.data"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    let stale = ELEMENT_BYTES..2 * ELEMENT_BYTES;
    let overwrite = pattern(2, stale.len());
    store.write("f", stale.start as u64, &overwrite).unwrap();
    acknowledged[stale.clone()].copy_from_slice(&overwrite);
    std::fs::write(&zone_file, &snapshot).unwrap();
    // Block 1 of data element 3 rots: with the missing block the row has no column to
    // spare, and only its stored checksum can tell the decode through the stale column.
    let rotten = 3 * ELEMENT_BYTES + BLOCK_BYTES..4 * ELEMENT_BYTES;
    if rot {
        flip_home_byte(&store, "f", g.data_pos[3], 1, 77);
    }
    store.close().unwrap();

    // Data element 2 of stripe 0 has no bytes: both its blocks (row 0 beside the cut write,
    // row 1 with nothing in flight).
    let missing_oss = layout.oss_of(id, 0, g.data_pos[2].col);
    assert_ne!(missing_oss, stale_oss);
    let missing = 2 * ELEMENT_BYTES..3 * ELEMENT_BYTES;
    // A block of the missing OSS in stripe 1 is missing too; those are read exact (stripe
    // 1 has no stale column), so only stripe 0's are allowed to be lost.
    match how {
        Missing::FailedOss => lose_disk(&dir, missing_oss),
        Missing::EmptiedSlot => {
            let path = object_file(&dir, missing_oss, &format!("{id}.data"));
            let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            f.set_len(0).unwrap();
        }
    }

    // A client write of block 0 of data element 0, cut by a kill after its input: nothing of
    // it reached the disk (its bytes may read old; nothing else is allowed).
    if cut_write {
        leave_write_in_flight(&dir, "f", 0, BLOCK_BYTES as u64);
    }
    let store = match how {
        Missing::FailedOss => open_failing_unsynced(&dir, missing_oss),
        Missing::EmptiedSlot => open_unsynced(&dir),
    };
    let what = format!("{:?}, {how:?}, cut write {cut_write}, rot {rot}", code.kind);
    // The rotten block may be lost too: its decode needs the missing one.
    let mut missing = vec![missing];
    if rot {
        missing.push(rotten);
    }
    check_reads(&store, &acknowledged, &stale, &missing, &what, cut_write);
    let report = store.scrub(true).unwrap();
    let what_after = format!("{what}, after scrub --repair ({report:?})");
    check_reads(
        &store,
        &acknowledged,
        &stale,
        &missing,
        &what_after,
        cut_write,
    );
    store.close().unwrap();
    let store = reopen(&dir, how, missing_oss);
    let what_reopened = format!("{what_after}, reopened");
    check_reads(
        &store,
        &acknowledged,
        &stale,
        &missing,
        &what_reopened,
        cut_write,
    );
}

fn reopen(dir: &Path, how: Missing, missing_oss: usize) -> Store {
    match how {
        Missing::FailedOss => open_failing_unsynced(dir, missing_oss),
        Missing::EmptiedSlot => open_unsynced(dir),
    }
}

#[test]
fn raid6_recovery_never_takes_a_failed_columns_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::FailedOss, true, false);
}

#[test]
fn raid6_read_never_takes_a_failed_columns_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::FailedOss, false, false);
}

#[test]
fn raid6_recovery_never_takes_an_emptied_slots_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::EmptiedSlot, true, false);
}

#[test]
fn raid6_read_never_takes_an_emptied_slots_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::EmptiedSlot, false, false);
}

#[test]
fn rs_4_2_recovery_never_takes_a_failed_columns_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::rs(4, 2), Missing::FailedOss, true, false);
}

#[test]
fn rs_4_2_read_never_takes_a_failed_columns_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::rs(4, 2), Missing::FailedOss, false, false);
}

#[test]
fn rs_4_2_recovery_never_takes_an_emptied_slots_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::rs(4, 2), Missing::EmptiedSlot, true, false);
}

#[test]
fn rs_4_2_read_never_takes_an_emptied_slots_decode_through_a_stale_element() {
    missing_block_beside_stale_element(CodeSpec::rs(4, 2), Missing::EmptiedSlot, false, false);
}

#[test]
fn raid6_recovery_never_takes_a_failed_columns_decode_through_a_stale_element_beside_rot() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::FailedOss, true, true);
}

#[test]
fn rs_4_2_recovery_never_takes_an_emptied_slots_decode_through_a_stale_element_beside_rot() {
    missing_block_beside_stale_element(CodeSpec::rs(4, 2), Missing::EmptiedSlot, true, true);
}

#[test]
fn raid6_read_never_takes_a_failed_columns_decode_through_a_stale_element_beside_rot() {
    missing_block_beside_stale_element(CodeSpec::raid6(4), Missing::FailedOss, false, true);
}
