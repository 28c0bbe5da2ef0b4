//! A write killed by a crash, and the disk of ANOTHER data column of its stripe gone for
//! good before the next open (`store fail`, `OpenOptions::fail_down_osses_before_recovery`):
//! review s5s S1. On a code with two parities, one failed column beside one cut write of one
//! data column leaves the stripe one unit of redundancy: wherever the blocks left on disk
//! are all of the old stripe or all of the new one (a write killed before its first block
//! write, or after its last one but before its `Durable` record), the failed column's
//! decode is proven by the second parity, and its acknowledged bytes read back. Recovery
//! recorded them lost instead (every such image below lost 4 KiB on main f09ad09).
//!
//! Never WRONG instead of lost: an image with data and parity of different versions (the
//! kill between two of the write's block writes) cannot tell the failed column (two
//! stripes fit the blocks left on disk), and neither can one with a block left in that
//! holds wrong bytes under a valid checksum (a stale element): both must read `DataLost`,
//! never other bytes.
//!
//! And the way out of such a loss (review s5s S1 follow-ons): `rebuild` of the failed OSS
//! goes on past the bytes lost on record (it stopped at them, naming the whole stripe), and
//! writing the lost bytes again works on the rmw path (its read-modify-write read the lost
//! parity and failed, a loop only `put` or `rm` of the whole file left).
//!
//! The crash is built from two runs of the same store, before the write (saved) and after
//! it, as in `rot_beside_torn_write.rs`: the write is left in flight in the journal (a kill
//! after journaling its input) and each block it changed is taken from the run before
//! (old), after (landed), or after for its checksum only (the backend writes a block's
//! checksum before its payload: a kill in between).

mod common;
use common::*;
#[path = "common/cut_write_images.rs"]
mod cut_write_images;
use cut_write_images::{CutWriteScene as Scene, *};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

/// The blocks of the rmw images: old, landed, or checksum-only.
const BLOCKS: [Block; 3] = [Block::Old, Block::Landed, Block::ChecksumOnly];

fn scene(code: CodeSpec) -> Scene {
    cut_write_scene(code, WritePath::Rmw, |dir, older, layout, model| {
        copy_tree(dir, older);
        // An acknowledged overwrite of element `STALE_DATA`: `older` holds it stale.
        let again = pattern(4, UNIT);
        write_acked(
            dir,
            model,
            layout.file_offset(0, STALE_DATA, 0) as usize,
            &again,
        );
        again
    })
}

impl Scene {
    /// The crash image: the write in flight, its data and parity blocks as `blocks` says,
    /// the dead OSS's disk gone; opened with that OSS failed (recovery runs).
    fn crash(&self, blocks: [Block; 3]) -> Store {
        self.lay_image(blocks, 1);
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }
}

/// Every image of the cut write's three blocks; returns the lost ones.
fn images_lost(code: CodeSpec) -> Vec<[Block; 3]> {
    let s = scene(code);
    let mut lost = Vec::new();
    for d in BLOCKS {
        for p in BLOCKS {
            for q in BLOCKS {
                let blocks = [d, p, q];
                let what = format!("{code}: OSS {} dead, write blocks {blocks:?}", s.dead);
                let store = s.crash(blocks);
                if s.read_checked(&store, &what).is_none() {
                    lost.push(blocks);
                } else {
                    // Recovery wrote the stripe it decided: consistent, but for the dead OSS.
                    let report = store.scrub(false).unwrap();
                    assert!(report.parity_mismatches.is_empty(), "{what}: {report:?}");
                }
            }
        }
    }
    lost
}

fn assert_provable_images_not_lost(code: CodeSpec) {
    let lost = images_lost(code);
    for blocks in provable() {
        assert!(
            !lost.contains(&blocks),
            "{code}: write blocks {blocks:?}: the dead OSS's acknowledged bytes were recorded lost, though the stripe proves them (lost images: {lost:?})"
        );
    }
    // Data and parity of different versions cannot be told: lost, never guessed.
    assert!(
        lost.contains(&[Block::Landed, Block::Landed, Block::Old]),
        "{code}: a half-written stripe cannot prove the dead column, so it must be lost"
    );
}

#[test]
fn raid6_a_dead_disk_beside_a_cut_write_loses_nothing_the_second_parity_proves() {
    assert_provable_images_not_lost(CodeSpec::raid6(4));
}

#[test]
fn rs_4_2_a_dead_disk_beside_a_cut_write_loses_nothing_the_second_parity_proves() {
    assert_provable_images_not_lost(CodeSpec::rs(4, 2));
}

/// A block left in the decode with wrong bytes under a valid checksum (element
/// `STALE_DATA` put back to an older acknowledged version, as a lost write leaves it): no
/// decode agrees with every block, so nothing is proven, and the dead column is lost, not
/// decoded through the stale block. Every write block landed: without the stale block this
/// image is proven (above).
#[test]
fn raid6_a_stale_block_beside_the_dead_disk_is_never_taken_for_proof() {
    let s = scene(CodeSpec::raid6(4));
    s.lay_image([Block::Landed; 3], 1);
    copy_slot_bytes(&s.older, &s.dir, &s.stale_unit, 0..SLOT_BYTES);
    lose_disk(&s.dir, s.dead);
    let store = open_failing_unsynced(&s.dir, s.dead);
    let dead_at = store.layout().file_offset(0, DEAD_DATA, 0);
    match store.get("f") {
        Err(StoreError::DataLost(msg)) => assert!(
            msg.contains(&format!("bytes {dead_at}..")),
            "the dead OSS's bytes are named lost: {msg}"
        ),
        other => panic!("a stale block left in proved a decode: {other:?}"),
    }
}

/// A flipped bit in a block beside the dead column (it fails its checksum): erased too, the
/// rest of the landed stripe decodes both, and the rotten block's own checksum confirms
/// the decode: every acknowledged byte reads back.
#[test]
fn raid6_a_rotten_block_beside_the_dead_disk_is_rebuilt_too() {
    let s = scene(CodeSpec::raid6(4));
    s.lay_image([Block::Landed; 3], 1);
    let (oss, name, slot) = &s.stale_unit;
    let path = object_file(&s.dir, *oss, name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + 77] ^= 0x04;
    std::fs::write(&path, bytes).unwrap();
    lose_disk(&s.dir, s.dead);
    let store = open_failing_unsynced(&s.dir, s.dead);
    let got = s.read_checked(&store, "rotten block beside the dead disk");
    assert!(
        got.is_some(),
        "the rotten block and the dead column were both proven"
    );
}

/// After a loss recovery could not avoid (data and parity of different versions), the way
/// out works: writing the lost bytes again (the rmw path, with the OSS still failed, and
/// after its rebuild), and the rebuild of the dead OSS goes on past the lost bytes.
#[test]
fn raid6_bytes_lost_beside_a_cut_write_are_written_again_and_rebuilt_around() {
    for write_first in [true, false] {
        let s = scene(CodeSpec::raid6(4));
        let what = format!("write first {write_first}");
        let store = s.crash([Block::Landed, Block::Landed, Block::Old]);
        assert!(s.read_checked(&store, &what).is_none(), "{what}: lost");
        let lost = store.status().unwrap().lost_ranges;
        let dead_at = store.layout().file_offset(0, DEAD_DATA, 0);
        assert_eq!(
            lost.iter()
                .map(|l| (l.offset_bytes, l.len_bytes))
                .collect::<Vec<_>>(),
            vec![(dead_at, UNIT as u64)],
            "{what}: the dead column's block is lost on record"
        );
        let mut s = s;
        let again = pattern(9, UNIT);
        let mut store = store;
        if write_first {
            store.write("f", dead_at, &again).unwrap();
            store.rebuild(s.dead, None).unwrap();
        } else {
            store.rebuild(s.dead, None).unwrap();
            store.write("f", dead_at, &again).unwrap();
        }
        let at = dead_at as usize;
        s.model[at..at + UNIT].copy_from_slice(&again);
        assert!(
            store.status().unwrap().lost_ranges.is_empty(),
            "{what}: written again"
        );
        assert!(s.read_checked(&store, &what).is_some(), "{what}: reads");
        assert_consistent(&store);
        store.close().unwrap();
        let store = open_unsynced(&s.dir);
        assert!(s.read_checked(&store, &what).is_some(), "{what}: reopened");
    }
}
