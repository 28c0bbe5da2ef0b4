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

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec, State};
use exaraid_store::superblock::read_checked;
use exaraid_store::{Store, StoreError, WritePath};

/// The cut write: bytes 1000..1600 of data element `CUT_DATA` of stripe 0.
const CUT_AT: u64 = 1000;
const CUT_BYTES: usize = 600;
const CUT_DATA: usize = 1;
/// How the cut write meets its cache stripe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// It overwrites bytes its cache stripe holds (the cut column's whole element was
    /// written into it before): the stripe before the write is on disk wherever the write
    /// changed it, old or new, so the second parity can prove the dead column.
    Overwrite,
    /// It writes bytes its cache stripe never held (beside the cut column's acknowledged
    /// bytes at `FIRST_WRITE_BESIDE_AT..`): the old stripe counts them as zeros, but a
    /// reused cache chunk holds stale bytes there under a valid checksum, and only the
    /// write's journaled crcs (`Rec::WriteCrcs`, session 8) tell its landed data block from
    /// the block before it; never wrong.
    FirstWrite,
}
const FIRST_WRITE_BESIDE_AT: u64 = 3000;
/// The data element whose OSS dies: its whole element is cached (acknowledged).
const DEAD_DATA: usize = 0;
/// A cached data element neither written by the cut write nor dead.
const STALE_DATA: usize = 2;

const BLOCKS: [Block; 4] = [
    Block::Old,
    Block::Landed,
    Block::ChecksumOnly,
    Block::PayloadOnly,
];

/// Leave a write in flight, as a `kill -9` right after the store journaled its input does.
fn leave_write_in_flight(dir: &Path, name: &str, offset_bytes: u64, len_bytes: u64) {
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    let id = state.files[name].id;
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    let rec = Rec::Input(Input::Write {
        file: id,
        offset_bytes,
        len_bytes,
        // The planner's clock only goes forward (the store's earlier inputs are stamped
        // with the wall clock).
        now_ns: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
        // An older binary's input (no crcs promised), as before session 27.
        crcs_follow: false,
        home_crcs_follow: false,
    });
    journal.append(&rec, true).unwrap();
}

/// The disk of OSS `oss` is gone: its directory is there again, empty (a new disk mounted).
/// One store, saved before the cut write and after it, and where things are.
struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// The store before the cut write.
    saved: PathBuf,
    /// The store after the cut write ran whole.
    after: PathBuf,
    /// The store before the last acknowledged write of `STALE_DATA`'s element (its cache
    /// slot there: the same element, older bytes, a valid checksum).
    older: PathBuf,
    /// Every acknowledged byte of "f" before the cut write.
    model: Vec<u8>,
    /// The cut write's bytes, at file offset `cut_at`.
    new: Vec<u8>,
    cut_at: usize,
    /// The OSS of data element `DEAD_DATA` of stripe 0, and the file offset of its element.
    dead: usize,
    dead_at: u64,
    /// The cut write's journaled crcs (`Rec::WriteCrcs`), as the real write appended them
    /// after its input; `None`: the store journaled none (an older binary's journal).
    crcs: Option<Rec>,
    /// Its running parity crcs (`Rec::WriteParityCrcs`, session 9), as its plan appended
    /// them before its parity writes; empty: none (a session-8 binary's journal).
    parity_crcs: Vec<Rec>,
    /// The cache slots the cut write changed: its data element's, then the running parity's.
    data_unit: Unit,
    parity_units: Vec<Unit>,
    stale_unit: Unit,
}

/// Write `bytes` at `at` into "f" (acknowledged) and into the model.
fn write_acked(dir: &Path, model: &mut [u8], at: usize, bytes: &[u8]) {
    let store = open_unsynced(dir);
    store.write("f", at as u64, bytes).unwrap();
    model[at..at + bytes.len()].copy_from_slice(bytes);
    store.close().unwrap();
}

fn scene(code: CodeSpec, cut: Cut) -> Scene {
    let cols = exaraid_codes::Code::new(code).unwrap().geometry().cols;
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after, older) = (
        tmp.path().join("saved"),
        tmp.path().join("after"),
        tmp.path().join("older"),
    );
    let store = init(&dir, code, cols, WritePath::Wcl);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    store.close().unwrap();
    // Cached, acknowledged: the dead column's whole element, the cut column's bytes beside
    // the cut write, and the stale column's element twice (`older` holds the first).
    let dead_at = layout.file_offset(0, DEAD_DATA, 0);
    write_acked(&dir, &mut model, dead_at as usize, &pattern(5, UNIT));
    let cut_column_acked_at = match cut {
        Cut::Overwrite => 0,
        Cut::FirstWrite => FIRST_WRITE_BESIDE_AT,
    };
    let beside_at = layout.file_offset(0, CUT_DATA, cut_column_acked_at) as usize;
    write_acked(
        &dir,
        &mut model,
        beside_at,
        &pattern(6, UNIT - cut_column_acked_at as usize),
    );
    let stale_at = layout.file_offset(0, STALE_DATA, 0) as usize;
    write_acked(&dir, &mut model, stale_at, &pattern(7, UNIT));
    copy_tree(&dir, &older);
    let again = pattern(4, UNIT);
    write_acked(&dir, &mut model, stale_at, &again);
    let stale_units = changed_slots(&older, &dir, cols, |_, _| true);
    copy_tree(&dir, &saved);

    let cut_at = layout.file_offset(0, CUT_DATA, CUT_AT) as usize;
    let new = pattern(3, CUT_BYTES);
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    // The records the write journaled, before `close` checkpoints them away.
    let journal_copy = tmp.path().join("cut-journal");
    std::fs::copy(dir.join("journal"), &journal_copy).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let (_, records) = Journal::<Rec>::open(&journal_copy).unwrap();
    let records: Vec<Rec> = records.into_iter().map(|(_, rec)| rec).collect();
    let crcs = records
        .iter()
        .find(|rec| matches!(rec, Rec::WriteCrcs(_)))
        .cloned();
    assert!(crcs.is_some(), "{code}: a WCL write journals its crcs");
    let parity_crcs: Vec<Rec> = records
        .into_iter()
        .filter(|rec| matches!(rec, Rec::WriteParityCrcs(_)))
        .collect();
    assert!(
        !parity_crcs.is_empty(),
        "{code}: a WCL write journals its running parity crcs"
    );

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
        "{code}: the write rewrites two running-parity blocks: {units:?}"
    );
    let holds_again = |u: &Unit| {
        let f = std::fs::read(object_file(&saved, u.0, &u.1)).unwrap();
        f[u.2 * SLOT_BYTES..u.2 * SLOT_BYTES + UNIT] == again[..]
    };
    let stale_unit = stale_units.into_iter().find(holds_again).unwrap();
    if cut == Cut::FirstWrite {
        // The case: the chunk the write goes to was used before, and the block before the
        // write holds stale bytes (under a valid checksum) where the write puts new ones.
        let f = std::fs::read(object_file(&saved, data_unit.0, &data_unit.1)).unwrap();
        let p = data_unit.2 * SLOT_BYTES + CUT_AT as usize;
        assert!(
            f[p..p + CUT_BYTES].iter().any(|&b| b != 0) && f[p..p + CUT_BYTES] != new[..],
            "{code}: the cut write's cache chunk held no stale bytes: the test proves nothing"
        );
    }
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
        dead_at,
        crcs,
        parity_crcs,
        data_unit,
        parity_units,
        stale_unit,
    }
}

impl Scene {
    /// The crash image before the dead disk: the write in flight, its data and running
    /// parity blocks as `blocks` says.
    fn image(&self, blocks: [Block; 3]) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.saved, &self.dir);
        leave_write_in_flight(&self.dir, "f", self.cut_at as u64, CUT_BYTES as u64);
        if let Some(crcs) = &self.crcs {
            let (mut journal, _) = Journal::<Rec>::open(&self.dir.join("journal")).unwrap();
            journal.append(crcs, true).unwrap();
            for rec in &self.parity_crcs {
                journal.append(rec, true).unwrap();
            }
        }
        let units = std::iter::once(&self.data_unit).chain(&self.parity_units);
        for (unit, block) in units.zip(blocks) {
            lay_block(&self.after, &self.dir, unit, block);
        }
    }

    /// The dead OSS's disk gone; opened with that OSS failed (recovery runs).
    fn open_dead(&self) -> Store {
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

    /// Every byte of "f" read block by block: each block reads right (as `read_checked`)
    /// or `DataLost` with the loss on record; panics otherwise. Why beside `get`: one lost
    /// block fails the whole `get`, and a wrong byte beside it (the cut column's, above
    /// all) went unseen.
    fn read_blocks_checked(&self, store: &Store, what: &str) {
        let cut = self.cut_at..self.cut_at + CUT_BYTES;
        assert_blocks_read_or_lost_on_record(store, "f", &self.model, cut, &self.new, what);
    }
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

/// Does the image of the cut write's blocks `[data, P, Q]` prove the dead column (session
/// 9)? Every block of the write read verified (whole old or whole new: `Old`, `Landed`) is
/// told by the write's crcs (data: `Rec::WriteCrcs`; running parity: `Rec::WriteParityCrcs`),
/// and the dead column decodes from the k = 4 blocks of ONE version of the stripe: the two
/// data columns the write did not touch, and the write's blocks of that version. A first
/// write's data block counts in the old version either way (the stripe before it held
/// zeros there, whatever stale bytes the chunk holds); an overwrite's only in its own. A
/// torn block (checksum or payload only) counts in neither, except a data block torn with
/// its new payload under its old checksum (payload only): that payload matches the crc the
/// write journaled for exactly that block, so it counts as landed (session 26, s26b:
/// `cut_block_whole_new`). Lost, never guessed: an image
/// with no version of 4 known blocks (e.g. the data block old beside a torn P and a landed
/// Q: the old version has 3, the new 3).
fn provable(cut: Cut, [data, p, q]: [Block; 3]) -> bool {
    use Block::*;
    let beside = 2;
    let mut known = [beside, beside]; // [old, new]
    match data {
        Old => known[0] += 1,
        Landed | PayloadOnly if cut == Cut::FirstWrite => known = [known[0] + 1, known[1] + 1],
        Landed | PayloadOnly => known[1] += 1,
        ChecksumOnly => {}
    }
    for parity in [p, q] {
        match parity {
            Old => known[0] += 1,
            Landed => known[1] += 1,
            ChecksumOnly | PayloadOnly => {}
        }
    }
    known.iter().any(|&n| n >= 4)
}

/// `all`: every image, else some of each kind (CI time): the lost images are exactly the
/// ones `provable` says nothing tells.
fn assert_lost_exactly_the_unprovable_images(code: CodeSpec, cut: Cut, all: bool) {
    use Block::*;
    let mut images = Vec::new();
    if all {
        for d in BLOCKS {
            for p in BLOCKS {
                for q in BLOCKS {
                    images.push([d, p, q]);
                }
            }
        }
    } else {
        images = vec![
            [Old, Old, Old],
            [Landed, Landed, Landed],
            [Landed, Landed, Old],
            [Old, Landed, Old],
            [Old, Old, Landed],
            [Old, Landed, Landed],
            [Landed, ChecksumOnly, Landed],
            [Old, PayloadOnly, Landed],
            [ChecksumOnly, Old, Old],
            [PayloadOnly, Landed, Landed],
        ];
    }
    let lost = these_images_lost(code, cut, &images);
    for blocks in images {
        assert_eq!(
            lost.contains(&blocks),
            !provable(cut, blocks),
            "{code} {cut:?}: write blocks {blocks:?}: lost? (lost images: {lost:?})"
        );
    }
}

#[test]
fn wcl_raid6_a_dead_disk_beside_a_cut_cache_write_loses_nothing_the_second_parity_proves() {
    assert_lost_exactly_the_unprovable_images(CodeSpec::raid6(4), Cut::Overwrite, true);
}

#[test]
fn wcl_rs_4_2_a_dead_disk_beside_a_cut_cache_write_loses_nothing_the_second_parity_proves() {
    assert_lost_exactly_the_unprovable_images(CodeSpec::rs(4, 2), Cut::Overwrite, false);
}

/// A cut write of bytes its cache stripe never held (issue #4 S1, first writes): its cache
/// chunk held stale bytes there under a valid checksum, so only the write's journaled crcs
/// tell a landed data block from the one before it; with them the provable images read
/// right (every image: right or `DataLost`, `images_lost` panics on a wrong byte). Before
/// session 8 every image but the all-old one was lost. With a running-parity block torn
/// (payload landed, checksum not) the settle decoded the dead column through data and
/// parity of different versions with no redundancy left to check it: WRONG bytes on main
/// 0295300 (`[Old, Landed, PayloadOnly]`).
#[test]
fn wcl_raid6_a_dead_disk_beside_a_cut_first_cache_write_loses_nothing_the_crcs_prove() {
    assert_lost_exactly_the_unprovable_images(CodeSpec::raid6(4), Cut::FirstWrite, true);
}

#[test]
fn wcl_rs_4_2_a_dead_disk_beside_a_cut_first_cache_write_loses_nothing_the_crcs_prove() {
    assert_lost_exactly_the_unprovable_images(CodeSpec::rs(4, 2), Cut::FirstWrite, false);
}

/// Without the write's crcs on record (a journal an older binary wrote) a landed first
/// write is told from stale bytes by nothing: lost, never decoded through them.
#[test]
fn wcl_raid6_a_cut_first_cache_write_without_crcs_is_lost_not_guessed() {
    let mut s = scene(CodeSpec::raid6(4), Cut::FirstWrite);
    s.crcs = None;
    for blocks in [[Block::Landed; 3], [Block::Old; 3]] {
        s.image(blocks);
        let store = s.open_dead();
        let what = format!("no crcs, write blocks {blocks:?}");
        let got = s.read_checked(&store, &what);
        assert_eq!(got.is_none(), blocks == [Block::Landed; 3], "{what}: lost?");
    }
}

/// With the data crcs but no running parity crcs on record (a session-8 binary's journal),
/// data and running parity of different versions tell nothing: lost, never guessed; one
/// version whole still proves the dead column.
#[test]
fn wcl_raid6_a_half_written_cache_stripe_without_parity_crcs_is_lost_not_guessed() {
    use Block::*;
    for cut in [Cut::Overwrite, Cut::FirstWrite] {
        let mut s = scene(CodeSpec::raid6(4), cut);
        s.parity_crcs.clear();
        for blocks in [[Landed, Landed, Old], [Old, Landed, Old], [Landed; 3]] {
            s.image(blocks);
            let store = s.open_dead();
            let what = format!("{cut:?}: no parity crcs, write blocks {blocks:?}");
            let got = s.read_checked(&store, &what);
            assert_eq!(got.is_none(), blocks != [Landed; 3], "{what}: lost?");
        }
    }
}

/// A cache block left in the decode with wrong bytes under a valid checksum (element
/// `STALE_DATA`'s cache slot put back to an older acknowledged version, as a lost write
/// leaves it): no decode agrees with every block, so nothing is proven, and the dead
/// column is lost, not decoded through the stale block. Every write block landed: without
/// the stale block this image is proven (above).
fn assert_stale_cache_block_never_taken_for_proof(cut: Cut) {
    let s = scene(CodeSpec::raid6(4), cut);
    s.image([Block::Landed; 3]);
    copy_slot_bytes(&s.older, &s.dir, &s.stale_unit, 0..SLOT_BYTES);
    let store = s.open_dead();
    match store.get("f") {
        Err(StoreError::DataLost(msg)) => assert!(
            msg.contains(&format!("bytes {}..", s.dead_at)),
            "{cut:?}: the dead OSS's bytes are named lost: {msg}"
        ),
        other => panic!("{cut:?}: a stale cache block left in proved a decode: {other:?}"),
    }
}

#[test]
fn wcl_raid6_a_stale_cache_block_beside_the_dead_disk_is_never_taken_for_proof() {
    assert_stale_cache_block_never_taken_for_proof(Cut::Overwrite);
}

#[test]
fn wcl_raid6_a_stale_cache_block_beside_the_dead_disk_and_a_first_write_is_never_taken_for_proof() {
    assert_stale_cache_block_never_taken_for_proof(Cut::FirstWrite);
}

/// A flipped bit in a cache block beside the dead column (it fails its checksum): erased
/// too, the rest of the landed cache stripe decodes both, and the rotten block's own
/// checksum confirms the decode: every acknowledged byte reads back.
fn assert_rotten_cache_block_rebuilt(cut: Cut) {
    let s = scene(CodeSpec::raid6(4), cut);
    s.image([Block::Landed; 3]);
    let (oss, name, slot) = &s.stale_unit;
    let path = object_file(&s.dir, *oss, name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + 77] ^= 0x04;
    std::fs::write(&path, bytes).unwrap();
    let store = s.open_dead();
    let got = s.read_checked(
        &store,
        &format!("{cut:?}: rotten cache block beside the dead disk"),
    );
    assert!(
        got.is_some(),
        "{cut:?}: the rotten block and the dead column were both proven"
    );
}

#[test]
fn wcl_raid6_a_rotten_cache_block_beside_the_dead_disk_is_rebuilt_too() {
    assert_rotten_cache_block_rebuilt(Cut::Overwrite);
}

#[test]
fn wcl_raid6_a_rotten_cache_block_beside_the_dead_disk_and_a_first_write_is_rebuilt_too() {
    assert_rotten_cache_block_rebuilt(Cut::FirstWrite);
}
