//! WCL: a write killed by a crash into a cache stripe, and the disk of ANOTHER data column
//! of that cache stripe gone for good before the next open (`store fail`,
//! `OpenOptions::fail_down_osses_before_recovery`): review s5s S1 on the WCL path (issue #4
//! OPEN 3). That column's acknowledged cached bytes exist only as a decode of the cache
//! stripe. On a code with two parities, one failed column beside one cut write of one data
//! column leaves one unit of redundancy: wherever the blocks left on disk are all of the
//! cache stripe before the write or all of the one after it (the running parity included),
//! the failed column's decode is proven by the second parity and its acknowledged bytes
//! read back. Recovery recorded them lost instead (the images below but all-old, on main
//! 0295300: the planner is rolled back to before the cut write, so the running parity the
//! write left no longer matches the data the planner names, and the settle's decode of the
//! failed column failed its parity check).
//!
//! Never WRONG instead of lost: data and running parity of different versions (the kill
//! between two of the write's block writes) cannot tell the failed column, and neither can
//! a block left in that holds wrong bytes under a valid checksum (a stale cache block): both
//! must read `DataLost`, never other bytes. A rotten block beside the failed column (it
//! fails its checksum) is rebuilt too.
//!
//! The crash is built from two runs of the same store, before the write (saved) and after
//! it, as in `dead_disk_beside_cut_write.rs`: the write left in flight in the journal (a
//! kill after journaling its input), each cache block it changed taken from the run before
//! (old), after (landed), or after for its checksum only or its payload only. Every image
//! is checked for wrong bytes (with the payload of a running-parity block landed and its
//! checksum not, and the cut data block old, the settle's unchecked decode of the dead
//! column read wrong bytes on main 0295300).

mod common;
use common::*;
#[path = "common/cut_write_images.rs"]
mod cut_write_images;
use cut_write_images::{CutWriteScene as Scene, *};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

/// How the cut write meets its cache stripe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// It overwrites bytes its cache stripe holds (the cut column's whole element was
    /// written into it before): the stripe before the write is on disk wherever the write
    /// changed it, old or new, so the second parity can prove the dead column.
    Overwrite,
    /// It writes bytes its cache stripe never held (beside the cut column's acknowledged
    /// bytes at `FIRST_WRITE_BESIDE_AT..`): the old stripe counts them as zeros, but a
    /// reused cache chunk holds stale bytes there, so nothing proves the dead column past
    /// the stripe as the planner knows it; never wrong.
    FirstWrite,
}
const FIRST_WRITE_BESIDE_AT: u64 = 3000;

const BLOCKS: [Block; 4] = [
    Block::Old,
    Block::Landed,
    Block::ChecksumOnly,
    Block::PayloadOnly,
];

fn scene(code: CodeSpec, cut: Cut) -> Scene {
    cut_write_scene(code, WritePath::Wcl, |dir, older, layout, model| {
        // Cached, acknowledged: the dead column's whole element (`DEAD_DATA`), the cut
        // column's bytes beside the cut write, and the stale column's element twice
        // (`older` holds the first).
        let dead_at = layout.file_offset(0, DEAD_DATA, 0);
        write_acked(dir, model, dead_at as usize, &pattern(5, UNIT));
        let cut_column_acked_at = match cut {
            Cut::Overwrite => 0,
            Cut::FirstWrite => FIRST_WRITE_BESIDE_AT,
        };
        let beside_at = layout.file_offset(0, CUT_DATA, cut_column_acked_at) as usize;
        write_acked(
            dir,
            model,
            beside_at,
            &pattern(6, UNIT - cut_column_acked_at as usize),
        );
        let stale_at = layout.file_offset(0, STALE_DATA, 0) as usize;
        write_acked(dir, model, stale_at, &pattern(7, UNIT));
        copy_tree(dir, older);
        let again = pattern(4, UNIT);
        write_acked(dir, model, stale_at, &again);
        again
    })
}

impl Scene {
    /// The crash image before the dead disk: the write in flight, its data and running
    /// parity blocks as `blocks` says.
    fn image(&self, blocks: [Block; 3]) {
        self.lay_image(blocks, wall_clock_ns());
    }

    /// The dead OSS's disk gone; opened with that OSS failed (recovery runs).
    fn open_dead(&self) -> Store {
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }
}

/// Every image of the cut write's three cache blocks; returns the lost ones.
fn images_lost(code: CodeSpec, cut: Cut) -> Vec<[Block; 3]> {
    let mut images = Vec::new();
    for d in BLOCKS {
        for p in BLOCKS {
            for q in BLOCKS {
                images.push([d, p, q]);
            }
        }
    }
    these_images_lost(code, cut, &images)
}

/// The lost ones of `images`.
fn these_images_lost(code: CodeSpec, cut: Cut, images: &[[Block; 3]]) -> Vec<[Block; 3]> {
    let s = scene(code, cut);
    let mut lost = Vec::new();
    for &blocks in images {
        let what = format!(
            "{code} {cut:?}: OSS {} dead, write blocks {blocks:?}",
            s.dead
        );
        s.image(blocks);
        let store = s.open_dead();
        if s.read_checked(&store, &what).is_none() {
            lost.push(blocks);
        } else {
            // Recovery moved the cache home and wrote what it decided: consistent.
            let report = store.scrub(false).unwrap();
            assert!(report.parity_mismatches.is_empty(), "{what}: {report:?}");
        }
    }
    lost
}

/// `all`: every image, else the provable ones and one half-written one (CI time).
fn assert_provable_images_not_lost(code: CodeSpec, all: bool) {
    let lost = if all {
        images_lost(code, Cut::Overwrite)
    } else {
        let mut images = provable();
        images.push([Block::Landed, Block::Landed, Block::Old]);
        these_images_lost(code, Cut::Overwrite, &images)
    };
    for blocks in provable() {
        assert!(
            !lost.contains(&blocks),
            "{code}: write blocks {blocks:?}: the dead OSS's acknowledged cached bytes were recorded lost, though the cache stripe proves them (lost images: {lost:?})"
        );
    }
    // Data and running parity of different versions cannot be told: lost, never guessed.
    assert!(
        lost.contains(&[Block::Landed, Block::Landed, Block::Old]),
        "{code}: a half-written cache stripe cannot prove the dead column, so it must be lost (lost images: {lost:?})"
    );
}

#[test]
fn wcl_raid6_a_dead_disk_beside_a_cut_cache_write_loses_nothing_the_second_parity_proves() {
    assert_provable_images_not_lost(CodeSpec::raid6(4), true);
}

#[test]
fn wcl_rs_4_2_a_dead_disk_beside_a_cut_cache_write_loses_nothing_the_second_parity_proves() {
    assert_provable_images_not_lost(CodeSpec::rs(4, 2), false);
}

/// A cut write of bytes its cache stripe never held: every image reads right or `DataLost`
/// (`images_lost` panics on a wrong byte), the all-old one reads right. With a
/// running-parity block torn (payload landed, checksum not) the settle decoded the dead
/// column through data and parity of different versions with no redundancy left to check
/// it: WRONG bytes on main 0295300 (`[Old, Landed, PayloadOnly]`).
#[test]
fn wcl_raid6_a_dead_disk_beside_a_cut_first_cache_write_is_never_read_wrong() {
    let lost = images_lost(CodeSpec::raid6(4), Cut::FirstWrite);
    assert!(!lost.contains(&[Block::Old; 3]), "lost images: {lost:?}");
}

/// A cache block left in the decode with wrong bytes under a valid checksum (element
/// `STALE_DATA`'s cache slot put back to an older acknowledged version, as a lost write
/// leaves it): no decode agrees with every block, so nothing is proven, and the dead
/// column is lost, not decoded through the stale block. Every write block landed: without
/// the stale block this image is proven (above).
#[test]
fn wcl_raid6_a_stale_cache_block_beside_the_dead_disk_is_never_taken_for_proof() {
    let s = scene(CodeSpec::raid6(4), Cut::Overwrite);
    s.image([Block::Landed; 3]);
    copy_slot_bytes(&s.older, &s.dir, &s.stale_unit, 0..SLOT_BYTES);
    let store = s.open_dead();
    match store.get("f") {
        Err(StoreError::DataLost(msg)) => assert!(
            msg.contains(&format!("bytes {}..", s.dead_at)),
            "the dead OSS's bytes are named lost: {msg}"
        ),
        other => panic!("a stale cache block left in proved a decode: {other:?}"),
    }
}

/// A flipped bit in a cache block beside the dead column (it fails its checksum): erased
/// too, the rest of the landed cache stripe decodes both, and the rotten block's own
/// checksum confirms the decode: every acknowledged byte reads back.
#[test]
fn wcl_raid6_a_rotten_cache_block_beside_the_dead_disk_is_rebuilt_too() {
    let s = scene(CodeSpec::raid6(4), Cut::Overwrite);
    s.image([Block::Landed; 3]);
    let (oss, name, slot) = &s.stale_unit;
    let path = object_file(&s.dir, *oss, name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + 77] ^= 0x04;
    std::fs::write(&path, bytes).unwrap();
    let store = s.open_dead();
    let got = s.read_checked(&store, "rotten cache block beside the dead disk");
    assert!(
        got.is_some(),
        "the rotten block and the dead column were both proven"
    );
}
