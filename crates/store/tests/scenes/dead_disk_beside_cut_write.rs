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

use crate::common;
use common::*;

use std::path::PathBuf;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

/// The cut write: bytes 1000..1600 of data element `CUT_DATA` of stripe 0.
const CUT_AT: u64 = 1000;
const CUT_BYTES: usize = 600;
const CUT_DATA: usize = 1;
/// The data element whose OSS dies: another column of stripe 0.
const DEAD_DATA: usize = 0;
/// A data element of stripe 0 neither written nor dead.
const STALE_DATA: usize = 2;

const BLOCKS: [Block; 3] = [Block::Old, Block::Landed, Block::ChecksumOnly];

/// The disk of OSS `oss` is gone: its directory is there again, empty (a new disk mounted).
/// One store, saved before the cut write and after it, and where things are.
struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// The store before the cut write.
    saved: PathBuf,
    /// The store after the cut write ran whole.
    after: PathBuf,
    /// The store before the last acknowledged write of `STALE_DATA`'s element (its slot
    /// there: the same element, older bytes, a valid checksum).
    older: PathBuf,
    /// Every acknowledged byte of "f" before the cut write.
    model: Vec<u8>,
    /// The cut write's bytes, at file offset `cut_at`.
    new: Vec<u8>,
    cut_at: usize,
    /// The OSS of data element `DEAD_DATA` of stripe 0.
    dead: usize,
    /// The slots the cut write changed: its data element, then the parity ones.
    data_unit: Unit,
    parity_units: Vec<Unit>,
    stale_unit: Unit,
}

fn scene(code: CodeSpec) -> Scene {
    let cols = exaraid_codes::Code::new(code).unwrap().geometry().cols;
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after, older) = (
        tmp.path().join("saved"),
        tmp.path().join("after"),
        tmp.path().join("older"),
    );
    let store = init(&dir, code, cols, WritePath::Rmw);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    store.close().unwrap();
    copy_tree(&dir, &older);
    // An acknowledged overwrite of element `STALE_DATA`: `older` holds it stale.
    let stale_at = layout.file_offset(0, STALE_DATA, 0) as usize;
    let store = open_unsynced(&dir);
    let again = pattern(4, UNIT);
    store.write("f", stale_at as u64, &again).unwrap();
    model[stale_at..stale_at + UNIT].copy_from_slice(&again);
    store.close().unwrap();
    let stale_units = changed_slots(&older, &dir, cols, |_, _| true);
    copy_tree(&dir, &saved);

    let cut_at = layout.file_offset(0, CUT_DATA, CUT_AT) as usize;
    let new = pattern(3, CUT_BYTES);
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);

    let units = changed_slots(&saved, &after, cols, |_, _| true);
    let holds_new = |u: &Unit| {
        let f = std::fs::read(object_file(&after, u.0, &u.1)).unwrap();
        let p = u.2 * SLOT_BYTES + CUT_AT as usize;
        f[p..p + CUT_BYTES] == new[..]
    };
    let data_unit = units.iter().find(|u| holds_new(u)).unwrap().clone();
    let parity_units: Vec<Unit> = units.iter().filter(|&u| *u != data_unit).cloned().collect();
    assert_eq!(
        parity_units.len(),
        2,
        "{code}: the write rewrites two parity blocks"
    );
    let holds_again = |u: &Unit| {
        let f = std::fs::read(object_file(&saved, u.0, &u.1)).unwrap();
        f[u.2 * SLOT_BYTES..u.2 * SLOT_BYTES + UNIT] == again[..]
    };
    let stale_unit = stale_units.into_iter().find(holds_again).unwrap();
    Scene {
        _tmp: tmp,
        dir,
        saved,
        after,
        older,
        model,
        new,
        cut_at,
        dead,
        data_unit,
        parity_units,
        stale_unit,
    }
}

impl Scene {
    /// The crash image: the write in flight, its data and parity blocks as `blocks` says,
    /// the dead OSS's disk gone; opened with that OSS failed (recovery runs).
    fn crash(&self, blocks: [Block; 3]) -> Store {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.saved, &self.dir);
        leave_write_in_flight_at(&self.dir, "f", self.cut_at as u64, CUT_BYTES as u64, 1);
        let units = std::iter::once(&self.data_unit).chain(&self.parity_units);
        for (unit, block) in units.zip(blocks) {
            lay_block(&self.after, &self.dir, unit, block);
        }
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }

    /// `get` of "f": `None` when it reads `DataLost` (then every block that reads must
    /// read right, and every block that does not must be lost on record); panics on a
    /// wrong byte (outside the cut write: the acknowledged one; inside: the old or the new
    /// one).
    fn read_checked(&self, store: &Store, what: &str) -> Option<Vec<u8>> {
        let got = match store.get("f") {
            Ok(got) => got,
            Err(StoreError::DataLost(_)) => {
                self.read_blocks_checked(store, what);
                return None;
            }
            Err(e) => panic!("{what}: get: {e}"),
        };
        assert_eq!(got.len(), self.model.len(), "{what}: length");
        let cut = self.cut_at..self.cut_at + CUT_BYTES;
        for (i, &x) in got.iter().enumerate() {
            let ok = x == self.model[i] || (cut.contains(&i) && x == self.new[i - cut.start]);
            assert!(
                ok,
                "{what}: WRONG byte {i}: {x:#04x}, was {:#04x}",
                self.model[i]
            );
        }
        Some(got)
    }

    /// Every byte of "f" read block by block: each block reads right (outside the cut
    /// write the acknowledged byte, inside it the old or the new one) or `DataLost` with the
    /// loss on record; panics otherwise. Returns the blocks lost. Why not `get` alone: one
    /// lost block fails the whole `get`, and a wrong byte beside it went unseen.
    fn read_blocks_checked(&self, store: &Store, what: &str) -> Vec<usize> {
        let cut = self.cut_at..self.cut_at + CUT_BYTES;
        assert_blocks_read_or_lost_on_record(store, "f", &self.model, cut, &self.new, what)
    }
}

/// s7c's question (issue #4 S1 remainder): does the home path's `compose_stripe` decode a
/// column through two parities of different versions, as `decide_cache_stripe` did on WCL?
/// Every image of the cut write's three blocks with a torn state of either kind (checksum
/// or payload only), the dead column beside it: every block of the file, the cut column's
/// bytes beside the write above all, reads right or `DataLost`, never wrong.
fn assert_no_block_read_wrong(code: CodeSpec) {
    use Block::*;
    let all = [Old, Landed, ChecksumOnly, PayloadOnly];
    let s = scene(code);
    for d in all {
        for p in all {
            for q in all {
                let blocks = [d, p, q];
                let what = format!("{code}: OSS {} dead, write blocks {blocks:?}", s.dead);
                let store = s.crash(blocks);
                s.read_blocks_checked(&store, &what);
            }
        }
    }
}

#[test]
fn raid6_no_block_beside_a_dead_disk_and_a_cut_write_reads_wrong() {
    assert_no_block_read_wrong(CodeSpec::raid6(4));
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

/// The images whose blocks on disk prove the dead column (see the module docs): all old,
/// all landed, and one block of the write checksum-only where the others landed (the
/// decode from the rest gives that block's new bytes, and its new checksum confirms them).
fn provable() -> Vec<[Block; 3]> {
    use Block::*;
    vec![
        [Old, Old, Old],
        [Landed, Landed, Landed],
        [ChecksumOnly, Landed, Landed],
        [Landed, ChecksumOnly, Landed],
        [Landed, Landed, ChecksumOnly],
    ]
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
    std::fs::remove_dir_all(&s.dir).unwrap();
    copy_tree(&s.saved, &s.dir);
    leave_write_in_flight_at(&s.dir, "f", s.cut_at as u64, CUT_BYTES as u64, 1);
    for unit in std::iter::once(&s.data_unit).chain(&s.parity_units) {
        copy_slot_bytes(&s.after, &s.dir, unit, 0..SLOT_BYTES);
    }
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
    std::fs::remove_dir_all(&s.dir).unwrap();
    copy_tree(&s.saved, &s.dir);
    leave_write_in_flight_at(&s.dir, "f", s.cut_at as u64, CUT_BYTES as u64, 1);
    for unit in std::iter::once(&s.data_unit).chain(&s.parity_units) {
        copy_slot_bytes(&s.after, &s.dir, unit, 0..SLOT_BYTES);
    }
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
