//! s35f ("OPEN after session 34" (2)(f), the merge review of s34a, traced by hand):
//! `stale_beside_cut`'s failed-OSS exception (`absent_here`) takes a cache stripe row with
//! as many blind columns as the code tolerates unchecked beside ANY column without bytes.
//! Beside a failed PARITY OSS the decisions after it prove nothing (that column holds no
//! acknowledged byte to prove), and a decode through a stale element beside the cut write
//! was read with success.
//!
//! Scene (WCL, rs 4+3, 4 KiB unit, one block per element, splitmix bytes): cache stripe 0
//! holds data element 0 whole, data element 1's bytes `CUT_AT..CUT_AT + CUT_BYTES` and data
//! element 2 whole, each acknowledged; element 2 is written twice and its OSS loses the
//! second write (a stale element: old bytes under a valid checksum). A client overwrite of
//! exactly element 1's acknowledged bytes is cut: its input and crcs journaled, its data
//! block and Q's running parity block torn (a part of the write's payload landed, the old
//! checksum kept: they fail their checksum and are neither version), R's old or landed.
//! P's OSS dies with the crash (failed on record before recovery). Three faults of the
//! row's own (the stale element, P's disk, the crash) with seven columns: rs 4+3 cannot
//! locate the stale column beside three blind ones, so the row must be named LOST; the
//! write's journaled crcs (the torn data block's new crc, R's) refute every world that
//! decodes through the stale element.
//!
//! What must hold: after the open and after a `flush`, every acknowledged block of `f`
//! reads its bytes (inside the cut write old or new) or is named LOST on record, and none
//! outside cache stripe 0 is lost.
//!
//! Found (s35f, on e4b1aa9): the row has three blind columns (P without bytes, Q and the data
//! block torn) and no failing data block with acknowledged bytes beside the write's range;
//! the failed-OSS exception (`absent_here`) took it unchecked (`Agrees`) beside P, and the
//! open read the torn data block decoded through the stale element: "'f' WRONG byte 5096:
//! 0x72, acknowledged 0x00" (R old; 0x9f with R landed). With the exception kept to a data
//! block without bytes the worlds check the row: none fits, and data elements 0, 1 and 2 of
//! stripe 0 are named LOST (every other block reads).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec};
use exaraid_store::{Store, StoreError, WritePath};

/// The cut write: bytes `CUT_AT..CUT_AT + CUT_BYTES` of data element `CUT_DATA` of stripe 0,
/// exactly the bytes an earlier acknowledged write cached there.
const CUT_AT: usize = 1000;
const CUT_BYTES: usize = 600;
const CUT_DATA: usize = 1;
/// The cached data element whose OSS loses its second write.
const STALE_DATA: usize = 2;
/// A cached data element beside them, whole.
const WHOLE_DATA: usize = 0;
/// The torn blocks keep the write's new payload at `CUT_AT..TORN_AT` only (in the block),
/// unless a test says how far (`..._torn_to`).
const TORN_AT: usize = CUT_AT + CUT_BYTES / 2;
/// The stale element's lost write (element offsets): the whole element (s35f's scene), its
/// stale bytes then lie at the cut write's offsets too.
const LOST_WHOLE: std::ops::Range<usize> = 0..UNIT;
/// A lost write away from the cut write's offsets (r37c MEDIUM-1): the cut write's told crcs
/// cover none of its stale bytes.
const LOST_AWAY: std::ops::Range<usize> = 2000..3000;
/// A lost write inside the cut write's offsets (r38a MEDIUM-2): no calm offset holds a
/// stale byte, so the calm-offsets check cannot see the stale element.
const LOST_UNDER: std::ops::Range<usize> = 1100..1500;

/// The acknowledged cached bytes of the row before the cut write (element offsets) of
/// data elements `WHOLE_DATA`, `CUT_DATA` and `STALE_DATA` (the last written again, its
/// OSS losing that write).
#[derive(Clone, Debug)]
struct Acked {
    whole: std::ops::Range<usize>,
    cut: std::ops::Range<usize>,
    stale: std::ops::Range<usize>,
}

/// s35f's layout: elements 0 and 2 whole, element 1 exactly the cut write's bytes.
const ACKED_WHOLE: Acked = Acked {
    whole: 0..UNIT,
    cut: CUT_AT..CUT_AT + CUT_BYTES,
    stale: 0..UNIT,
};
/// Partial acknowledged data (r39b MEDIUM-2): no running parity byte was live past
/// `PART_END`, and the cut write reaches `PART_END..CUT_AT + CUT_BYTES`, where the torn
/// parity block's old bytes are not known.
const PART_END: usize = 1500;
const ACKED_PART: Acked = Acked {
    whole: 0..CUT_AT,
    cut: CUT_AT..PART_END,
    stale: CUT_AT..PART_END,
};

/// One store saved before the cut write, after it, and before the stale element's lost
/// write.
struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    saved: PathBuf,
    after: PathBuf,
    older: PathBuf,
    model: Vec<u8>,
    new: Vec<u8>,
    cut_at: usize,
    /// The cut write's journal records: its input, data crcs and running parity crcs.
    records: Vec<Rec>,
    data_unit: Unit,
    /// Running parity slots of the cut write, by parity index (P, Q, R).
    parity_units: Vec<Unit>,
    stale_unit: Unit,
    /// P's OSS (failed with the crash unless a test fails `failed_oss`).
    p_oss: usize,
    /// The OSS of data element `WHOLE_DATA` ("OPEN after session 35" (1)(d) fails it).
    whole_oss: usize,
    /// The OSS the crash image loses and the open names failed (`p_oss` by default).
    failed_oss: usize,
    stripe_bytes: usize,
    code: CodeSpec,
}

fn write_acked(dir: &Path, model: &mut [u8], at: usize, bytes: &[u8]) {
    let store = open_unsynced(dir);
    store.write("f", at as u64, bytes).unwrap();
    model[at..at + bytes.len()].copy_from_slice(bytes);
    store.close().unwrap();
}

/// `lost`: the element offsets of the stale element's second write (the one its OSS loses);
/// `acked`: the row's acknowledged cached bytes before it.
fn scene(code: CodeSpec, lost: std::ops::Range<usize>, acked: &Acked) -> Scene {
    scene_lost_bytes(code, lost, acked, &|_, n| splitmix_bytes(4, n))
}

/// The cut write's new bytes.
fn cut_bytes() -> Vec<u8> {
    splitmix_bytes(3, CUT_BYTES)
}

/// The scenes' start: a WCL store of `code` in a scratch directory (`dir`, beside it the
/// copies `saved`, `after` and `older`), `f` put over two stripes (`model`, id `id`), closed.
struct Start {
    tmp: tempfile::TempDir,
    dir: PathBuf,
    saved: PathBuf,
    after: PathBuf,
    older: PathBuf,
    cols: usize,
    layout: exaraid_plan::Layout,
    model: Vec<u8>,
    id: u64,
}

fn start(code: CodeSpec) -> Start {
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
    let model = splitmix_bytes(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    Start {
        tmp,
        dir,
        saved,
        after,
        older,
        cols,
        layout,
        model,
        id,
    }
}

/// The cut write: `new` written at file byte `cut_at` of the closed store at `dir` (closed
/// again after), the disk after it copied to `after`, and its journal records up to its
/// writes: its input, data crcs and running parity crcs, and with `copies` its copies of
/// failed columns.
fn write_the_cut(
    tmp: &Path,
    dir: &Path,
    after: &Path,
    cut_at: usize,
    new: &[u8],
    copies: bool,
) -> Vec<Rec> {
    let store = open_unsynced(dir);
    store.write("f", cut_at as u64, new).unwrap();
    let journal_copy = tmp.join("cut-journal");
    std::fs::copy(dir.join("journal"), &journal_copy).unwrap();
    store.close().unwrap();
    copy_tree(dir, after);
    let (_, records) = Journal::<Rec>::open(&journal_copy).unwrap();
    (records.into_iter().map(|(_, rec)| rec))
        .filter(|rec| match rec {
            Rec::Input(Input::Write { offset_bytes, .. }) => *offset_bytes == cut_at as u64,
            Rec::WriteCrcs(_) | Rec::WriteParityCrcs(_) => true,
            Rec::FailedColumnCopy { .. } => copies,
            _ => false,
        })
        .collect()
}

/// `scene`, the stale element's lost write's bytes `again_of(model before it, length)`.
fn scene_lost_bytes(
    code: CodeSpec,
    lost: std::ops::Range<usize>,
    acked: &Acked,
    again_of: &dyn Fn(&[u8], usize) -> Vec<u8>,
) -> Scene {
    assert!(lost.start < lost.end && lost.end <= UNIT);
    assert!(
        acked.stale.start <= lost.start && lost.end <= acked.stale.end,
        "the lost write is over acknowledged bytes of the stale element"
    );
    let Start {
        tmp,
        dir,
        saved,
        after,
        older,
        cols,
        layout,
        mut model,
        id,
    } = start(code);
    let g = layout.geometry().clone();
    let at = |d: usize, o: usize| layout.file_offset(0, d, o as u64) as usize;
    for (d, range, seed) in [
        (WHOLE_DATA, &acked.whole, 5),
        (CUT_DATA, &acked.cut, 6),
        (STALE_DATA, &acked.stale, 7),
    ] {
        let bytes = splitmix_bytes(seed, range.len());
        write_acked(&dir, &mut model, at(d, range.start), &bytes);
    }
    let cut_at = at(CUT_DATA, CUT_AT);
    copy_tree(&dir, &older);
    let again = again_of(&model, lost.len());
    write_acked(&dir, &mut model, at(STALE_DATA, lost.start), &again);
    let stale_units = changed_slots(&older, &dir, cols, |_, _| true);
    copy_tree(&dir, &saved);

    let new = cut_bytes();
    let records = write_the_cut(tmp.path(), &dir, &after, cut_at, &new, false);
    assert!(
        matches!(records.first(), Some(Rec::Input(_))) && records.len() >= 3,
        "the cut write's input, data crcs and running parity crcs: {} records",
        records.len()
    );

    let units = changed_slots(&saved, &after, cols, |_, _| true);
    let holds_new = |u: &Unit| {
        let f = std::fs::read(object_file(&after, u.0, &u.1)).unwrap();
        let p = u.2 * SLOT_BYTES + CUT_AT;
        f[p..p + CUT_BYTES] == new[..]
    };
    let data_unit = units.iter().find(|u| holds_new(u)).unwrap().clone();
    let parity_units: Vec<Unit> = (0..g.parity_pos.len())
        .map(|q| {
            let oss = layout.oss_of(id, 0, g.parity_pos[q].col);
            let of_q: Vec<&Unit> = units.iter().filter(|u| u.0 == oss).collect();
            assert_eq!(
                of_q.len(),
                1,
                "one running parity slot of parity {q}: {units:?}"
            );
            of_q[0].clone()
        })
        .collect();
    assert_eq!(units.len(), 1 + parity_units.len(), "{units:?}");
    let holds_again = |u: &Unit| {
        let f = std::fs::read(object_file(&saved, u.0, &u.1)).unwrap();
        let p = u.2 * SLOT_BYTES + lost.start;
        f[p..p + lost.len()] == again[..]
    };
    let stale_unit = stale_units.into_iter().find(holds_again).unwrap();
    let p_oss = parity_units[0].0;
    let whole_oss = layout.oss_of(id, 0, g.data_pos[WHOLE_DATA].col);
    assert!(
        !units.iter().any(|u| u.0 == whole_oss),
        "the cut write does not touch data element {WHOLE_DATA}'s OSS"
    );
    Scene {
        _tmp: tmp,
        dir,
        saved,
        after,
        older,
        model,
        new,
        cut_at,
        records,
        data_unit,
        parity_units,
        stale_unit,
        p_oss,
        whole_oss,
        failed_oss: p_oss,
        stripe_bytes: layout.stripe_data_bytes() as usize,
        code,
    }
}

/// How the crash left R's running parity block (rs 4+3; raid6 has none).
#[derive(Clone, Copy, Debug)]
enum R {
    Old,
    Landed,
    /// Torn as Q is (s35f review P1's scene).
    Torn,
}

/// How the crash left the cut write's data block.
#[derive(Clone, Copy, Debug)]
enum DataBlock {
    /// A part of the new payload landed under the old checksum (s35f's scene).
    Torn,
    /// Landed whole with its checksum: it verifies and holds the write's crcs (s35f review
    /// P1's scene: every data block reads, every blind column is running parity).
    Whole,
    /// Not written: it verifies and holds the bytes before the write (s37c's open shape: no
    /// world is checked beside P's failed OSS and Q torn).
    Old,
}

impl Scene {
    /// The disk before the write with the write's records journaled (in flight), its data
    /// block as `data` says (torn: new to `torn_at`).
    fn image_with_the_data_block(&self, data: DataBlock, torn_at: usize) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.saved, &self.dir);
        let state: exaraid_store::state::State =
            exaraid_store::superblock::read_checked(&self.dir.join("state"), "state").unwrap();
        let (mut journal, _) = Journal::<Rec>::open(&self.dir.join("journal")).unwrap();
        journal.advance_to(state.last_seq + 1);
        for rec in &self.records {
            journal.append(rec, true).unwrap();
        }
        drop(journal);
        let data_range = match data {
            DataBlock::Torn => CUT_AT..torn_at,
            DataBlock::Whole => 0..SLOT_BYTES,
            DataBlock::Old => 0..0,
        };
        copy_slot_bytes(&self.after, &self.dir, &self.data_unit, data_range);
    }

    /// The crash image: the write in flight (its records journaled), its data block as
    /// `data` says, Q's torn, R's (rs 4+3) as `r` says, the stale element's slot put back
    /// where `stale`, P's disk gone.
    fn image(&self, data: DataBlock, r: R, stale: bool, torn_at: usize) {
        self.image_with_the_data_block(data, torn_at);
        copy_slot_bytes(
            &self.after,
            &self.dir,
            &self.parity_units[1],
            CUT_AT..torn_at,
        );
        if let Some(r_unit) = self.parity_units.get(2) {
            match r {
                R::Old => {}
                R::Landed => copy_slot_bytes(&self.after, &self.dir, r_unit, 0..SLOT_BYTES),
                R::Torn => copy_slot_bytes(&self.after, &self.dir, r_unit, CUT_AT..torn_at),
            }
        }
        if stale {
            copy_slot_bytes(&self.older, &self.dir, &self.stale_unit, 0..SLOT_BYTES);
        }
        lose_disk(&self.dir, self.failed_oss);
    }

    /// The crash image of "OPEN after session 35" (1)(e): the write in flight, its data block
    /// as `data` says, P landed, every other parity old, the stale element's slot put back
    /// where `stale`, every OSS up.
    fn image_p_landed_others_old(&self, data: DataBlock, stale: bool) {
        self.image_with_the_data_block(data, TORN_AT);
        copy_slot_bytes(&self.after, &self.dir, &self.parity_units[0], 0..SLOT_BYTES);
        if stale {
            copy_slot_bytes(&self.older, &self.dir, &self.stale_unit, 0..SLOT_BYTES);
        }
    }

    fn open(&self) -> Store {
        open_failing_unsynced(&self.dir, self.failed_oss)
    }

    /// Every block of `f` read right or LOST on record (panics on a wrong byte).
    fn check(&self, store: &Store, what: &str) -> Vec<usize> {
        let cut = self.cut_at..self.cut_at + CUT_BYTES;
        assert_blocks_read_or_lost_on_record(store, "f", &self.model, cut, &self.new, what)
    }

    /// The image opened, checked, flushed and checked again: the blocks LOST on record.
    fn lost_after_the_open_and_a_flush(&self, what: &str) -> Vec<usize> {
        let store = self.open();
        let mut lost = self.check(&store, &format!("{what}: after the open"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        lost.extend(self.check(&store, &format!("{what}: after the flush")));
        lost
    }

    /// `lost_after_the_open_and_a_flush`, every loss inside cache stripe 0, and none by the
    /// crash beside the failed (`failed`: "parity" or "data") OSS alone (`!stale`).
    fn assert_lost_only_in_stripe_0_and_only_beside_the_stale_element(
        &self,
        what: &str,
        stale: bool,
        failed: &str,
    ) {
        let lost = self.lost_after_the_open_and_a_flush(what);
        eprintln!("{what}: blocks at {lost:?} LOST");
        assert!(
            lost.iter().all(|&at| at < self.stripe_bytes),
            "{what}: blocks at {lost:?} LOST outside cache stripe 0"
        );
        assert!(
            stale || lost.is_empty(),
            "{what}: blocks at {lost:?} LOST by the crash beside a failed {failed} OSS alone"
        );
    }
}

/// The scene with the stale element (`stale`) or without it (the crash beside P's failed
/// OSS alone, which must lose nothing).
fn a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
    code: CodeSpec,
    data: DataBlock,
    r: R,
    stale: bool,
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        code, data, r, stale, LOST_WHOLE,
    );
}

/// The same, the stale element's lost write at element offsets `lost`.
fn a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
    code: CodeSpec,
    data: DataBlock,
    r: R,
    stale: bool,
    lost: std::ops::Range<usize>,
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked(
        code,
        data,
        r,
        stale,
        lost,
        &ACKED_WHOLE,
    );
}

/// The same, the row's acknowledged cached bytes as `acked` lays them.
fn a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked(
    code: CodeSpec,
    data: DataBlock,
    r: R,
    stale: bool,
    lost: std::ops::Range<usize>,
    acked: &Acked,
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
        code, data, r, stale, lost, acked, TORN_AT,
    );
}

/// The same, the torn blocks keeping the write's new payload at `CUT_AT..torn_at`.
fn a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
    code: CodeSpec,
    data: DataBlock,
    r: R,
    stale: bool,
    lost: std::ops::Range<usize>,
    acked: &Acked,
    torn_at: usize,
) {
    assert!(
        CUT_AT < torn_at && torn_at <= CUT_AT + CUT_BYTES,
        "a tear inside the cut write"
    );
    let s = scene(code, lost.clone(), acked);
    s.image(data, r, stale, torn_at);
    let what = format!(
        "{:?}, P's OSS {} failed, data block {data:?}, R {r:?}, stale element {stale} (lost \
         write at {lost:?}, {acked:?}, torn blocks new to {torn_at})",
        s.code, s.p_oss
    );
    s.assert_lost_only_in_stripe_0_and_only_beside_the_stale_element(&what, stale, "parity");
}

#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_parity_oss_and_a_stale_element_reads_no_wrong_byte_r_old(
) {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::rs(4, 3),
        DataBlock::Torn,
        R::Old,
        true,
    );
}

#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_parity_oss_and_a_stale_element_reads_no_wrong_byte_r_landed(
) {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::rs(4, 3),
        DataBlock::Torn,
        R::Landed,
        true,
    );
}

// s35f review P1 ("OPEN after session 35" (1)(c)): the cut write's data block landed whole
// (it verifies, its crcs hold), every other running parity block torn. Every data block
// reads and every blind column is running parity, one of them a failed OSS: found (s37c, on
// dba232e) taken by `stale_beside_cut_write`'s parity-only arm unchecked (`Agrees`), the
// running parity rewritten from the data and the stale element moved home with success.
#[test]
fn rs_4_3_a_whole_cut_data_block_beside_a_failed_p_oss_torn_q_and_r_and_a_stale_element_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::rs(4, 3),
        DataBlock::Whole,
        R::Torn,
        true,
    );
}

#[test]
fn raid6_a_whole_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_a_stale_element_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::raid6(4),
        DataBlock::Whole,
        R::Old, // no R
        true,
    );
}

// "OPEN after session 35" (1)(d), s35f review P2: s35f's scene with the OSS of the WHOLE
// acknowledged data element 0 failed instead of P's (P's OSS alive, its running parity old):
// the cut write's data block D1 and Q torn, R as each variant says, D2 stale. The
// failed-column exception holds where the failed column is a data element with
// acknowledged bytes, so the row is not proven beside D0's decode and D2's stale bytes go
// home (traced by hand in the review). Built (s41d, on 638d4690): every R reads "'f' WRONG
// byte 8192: 0xd7, acknowledged 0xca" after the open (byte 8192 is D2's first: its stale
// bytes read with success). With R landed or torn each version has four blind columns
// (beyond rs 4+3), so LOST is the right answer there too, never the stale bytes. Decided
// (a temporary eprintln!, removed) by `stale_beside_cut_write`'s failed-OSS exception
// (recovery/stale_beside_cut.rs, `absent_data_here && cells.iter().any(fails)`: D0's
// column holds a data block without bytes) returning `Agrees`, unchecked, for all three.
// Closed (s42b): that exception now checks the row at its calm offsets first, D1 and Q (torn
// by the write) known there, only D0 erased (`calm_offsets_contradict_beside_torn_cut_blocks`):
// D2's stale bytes at 0..1000 and 1600..4096 disagree, and the row is named LOST.
fn a_torn_write_beside_a_failed_whole_data_oss_and_a_stale_element(r: R, stale: bool) {
    let mut s = scene(CodeSpec::rs(4, 3), LOST_WHOLE, &ACKED_WHOLE);
    s.failed_oss = s.whole_oss;
    s.image(DataBlock::Torn, r, stale, TORN_AT);
    let what = format!(
        "{:?}, data element {WHOLE_DATA}'s OSS {} failed, data block Torn, R {r:?}, stale \
         element {stale}",
        s.code, s.failed_oss
    );
    s.assert_lost_only_in_stripe_0_and_only_beside_the_stale_element(&what, stale, "data");
}

#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_whole_data_oss_and_a_stale_element_reads_no_wrong_byte_r_old(
) {
    a_torn_write_beside_a_failed_whole_data_oss_and_a_stale_element(R::Old, true);
}

#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_whole_data_oss_and_a_stale_element_reads_no_wrong_byte_r_landed(
) {
    a_torn_write_beside_a_failed_whole_data_oss_and_a_stale_element(R::Landed, true);
}

#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_whole_data_oss_and_a_stale_element_reads_no_wrong_byte_r_torn(
) {
    a_torn_write_beside_a_failed_whole_data_oss_and_a_stale_element(R::Torn, true);
}

// The crash beside the failed data OSS alone (no stale element), R old (three blind
// columns: D0, D1, Q, within rs 4+3's tolerance): every block reads right on 638d4690; a fix
// of (1)(d) must keep it. With R landed (D0 and D1 LOST) or torn (D0 LOST) the crash alone is
// beyond tolerance and names its losses, so they are no guard.
#[test]
fn rs_4_3_a_torn_cut_write_beside_a_failed_whole_data_oss_alone_loses_nothing() {
    a_torn_write_beside_a_failed_whole_data_oss_and_a_stale_element(R::Old, false);
}

// "OPEN after session 35" (1)(e), s35a review M1: `decode_checked_by_a_spare_column` on a
// two-parity code. One column erased (the cut data block D1, torn), P landed (new), Q old,
// D2 stale at the write's offsets with its lost write's bytes chosen so that the five
// columns left in (D0, D2 stale, D3, P new, Q old) fit one code word there: the stale delta
// is b1 * (new - old) / (b1 * a2 / a1 + b2) per byte (P = sum a_d D_d, Q = sum b_d D_d), so
// D1's decode from D0, D2, D3 and P (new plus the delta) agrees with Q old: a code word of
// neither version, which the spare-column check would take as proven. Built (s41d, on
// 638d4690): raid6 and rs 4+2 name stripe 0's blocks 0, 4096 and 8192 LOST, none wrong,
// and the spare check's arm (`rotten_cut`) is not entered (a temporary eprintln!): a
// running guard; the crash alone reads every block.
fn the_stale_delta_fitting_p_new_q_old(code: CodeSpec, model: &[u8], n: usize) -> Vec<u8> {
    use exaraid_codes::gf256::{inv, mul};
    assert_eq!(
        n, CUT_BYTES,
        "the lost write lies at the cut write's offsets"
    );
    let g = exaraid_codes::Code::new(code).unwrap().geometry().clone();
    let coef = |q: usize, d: usize| {
        (g.parity_terms[q].iter())
            .find(|t| t.data == d)
            .map_or(0, |t| t.coef)
    };
    let (a1, a2, b1, b2) = (
        coef(0, CUT_DATA),
        coef(0, STALE_DATA),
        coef(1, CUT_DATA),
        coef(1, STALE_DATA),
    );
    let denominator = mul(mul(b1, a2), inv(a1)) ^ b2;
    assert!(
        a1 != 0 && denominator != 0,
        "{code:?}: a fitting delta exists"
    );
    let new = cut_bytes();
    // Elements of one 4 KiB unit: data element d of stripe 0 starts at file byte d * UNIT.
    let old_cut = &model[CUT_DATA * UNIT + CUT_AT..][..CUT_BYTES];
    let stale = &model[STALE_DATA * UNIT + CUT_AT..][..CUT_BYTES];
    (0..CUT_BYTES)
        .map(|j| {
            let delta = mul(mul(b1, new[j] ^ old_cut[j]), inv(denominator));
            stale[j] ^ delta
        })
        .collect()
}

fn a_torn_cut_write_beside_p_new_q_old_and_a_fitting_stale_element(code: CodeSpec, stale: bool) {
    let s = scene_lost_bytes(
        code,
        CUT_AT..CUT_AT + CUT_BYTES,
        &ACKED_WHOLE,
        &|model, n| the_stale_delta_fitting_p_new_q_old(code, model, n),
    );
    s.image_p_landed_others_old(DataBlock::Torn, stale);
    let what =
        format!("{code:?}, data block torn, P landed, Q old, stale element {stale} (fitting)");
    let store = open_unsynced(&s.dir);
    let mut lost = s.check(&store, &format!("{what}: after the open"));
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    lost.extend(s.check(&store, &format!("{what}: after the flush")));
    eprintln!("{what}: blocks at {lost:?} LOST");
    assert!(
        lost.iter().all(|&at| at < s.stripe_bytes),
        "{what}: blocks at {lost:?} LOST outside cache stripe 0"
    );
    assert!(
        stale || lost.is_empty(),
        "{what}: blocks at {lost:?} LOST by the crash alone"
    );
}

#[test]
fn raid6_a_torn_cut_write_beside_p_new_q_old_and_a_stale_element_fitting_both_reads_no_wrong_byte()
{
    a_torn_cut_write_beside_p_new_q_old_and_a_fitting_stale_element(CodeSpec::raid6(4), true);
}

#[test]
fn rs_4_2_a_torn_cut_write_beside_p_new_q_old_and_a_stale_element_fitting_both_reads_no_wrong_byte()
{
    a_torn_cut_write_beside_p_new_q_old_and_a_fitting_stale_element(CodeSpec::rs(4, 2), true);
}

#[test]
fn raid6_a_torn_cut_write_beside_p_new_q_old_alone_loses_nothing() {
    a_torn_cut_write_beside_p_new_q_old_and_a_fitting_stale_element(CodeSpec::raid6(4), false);
}

#[test]
fn rs_4_2_a_torn_cut_write_beside_p_new_q_old_alone_loses_nothing() {
    a_torn_cut_write_beside_p_new_q_old_and_a_fitting_stale_element(CodeSpec::rs(4, 2), false);
}

// r37c MEDIUM-1: the stale element's lost write away from the cut write's offsets (bytes
// 2000..3000 of element 2, the cut write at 1000..1600 of element 1), so Q's (and R's) told
// crcs, which cover only the write's offsets, cannot refute a world through it. Found (s38a,
// on 1469c6d6 and dba232e): "'f' WRONG byte 10192" on both codes, the world fitted by the
// told crcs and the row taken with the stale bytes.
#[test]
fn rs_4_3_a_whole_cut_data_block_beside_a_failed_p_oss_torn_q_and_r_and_an_element_stale_away_from_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 3),
        DataBlock::Whole,
        R::Torn,
        true,
        LOST_AWAY,
    );
}

#[test]
fn raid6_a_whole_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_away_from_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::raid6(4),
        DataBlock::Whole,
        R::Old, // no R
        true,
        LOST_AWAY,
    );
}

// s37c's open shape ("Open" in docs/results/s37-s37c.md (c)): the cut write's data block not
// yet written, Q torn, P's OSS failed: no world is checked, and the row was decided as
// before, unchecked.
#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_away_from_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_AWAY,
    );
}

// r38a MEDIUM-2: s37c's open shape with the stale element's lost write at the cut write's
// own offsets (bytes 1100..1500 of element 2, the cut write at 1000..1600 of element 1):
// every parity column of the row is blind (P failed, Q torn), no world is checked, and the
// calm offsets hold no stale byte.
#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_UNDER,
    );
}

#[test]
fn rs_4_3_an_old_cut_data_block_beside_a_failed_p_oss_torn_q_and_r_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        true,
        LOST_UNDER,
    );
}

#[test]
fn rs_4_2_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 2),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_UNDER,
    );
}

// r39b MEDIUM-2: r38a MEDIUM-2's scene over partial acknowledged data (element 0 at
// 0..1000, elements 1 and 2 at 1000..1500, the lost write at 1100..1500 of element 2): the
// cut write (1000..1600 of element 1) reaches offsets 1500..1600 no running parity byte was
// live at, so `torn_parity_beside_absent_unproven` does not try the torn parity block's
// checksum (its old bytes there are not known) and the row was decided unchecked: "'f'
// WRONG byte 9292: 0x4b, acknowledged 0xca" (64901551, 28327fda, both codes). Two read-side
// witnesses were reverted: s40c's (the checksum tried with the disk's bytes or zeros past
// the live offsets: a crash alone whose torn Q landed its payload there was LOST, r40c
// HIGH-1) and s41b's (no piece whole, so the bytes past the live offsets are old: but the
// checksum is on another page than the block's tail for elements of 8 KiB and more, a
// power cut in pages keeps Q's NEW checksum, and the crash alone was LOST, r41b HIGH-1;
// the guards below). Fixed (s42a) on the write side: the write journals the crc of the
// running parity bytes it read under each live piece (`ParityPieceCrcs::old_block_crcs`),
// and `live_pieces_refute` checks the row's encode there against it (or the piece's new
// crc) without reading the torn block: stripe 0's blocks 0, 4096 and 8192 LOST on record.
#[test]
fn raid6_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_UNDER,
        &ACKED_PART,
    );
}

#[test]
fn rs_4_3_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_torn_q_and_r_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        true,
        LOST_UNDER,
        &ACKED_PART,
    );
}

// s41b's open sibling of r39b MEDIUM-2: the torn blocks keep the write's new payload to
// 1550, so the live piece (1000..1500) landed whole and the piece past it (1500..1600) did
// not; element 1's new bytes at 1550..1600 and Q's old bytes at 1500..1550 are gone, and
// nothing on disk tells this from the crash alone torn to 1550 (the guards below). The
// journaled crc of Q's live piece before the write does (s42a).
#[test]
fn raid6_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_a_q_torn_past_them_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_UNDER,
        &ACKED_PART,
        1550,
    );
}

#[test]
fn rs_4_3_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_q_and_r_torn_past_them_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        true,
        LOST_UNDER,
        &ACKED_PART,
        1550,
    );
}

// s41b (r40c MEDIUM-1's witness): r39b MEDIUM-2's scene with the torn parity blocks holding
// the write's WHOLE new piece (1000..1600, told new by its piece crc) past the offsets they
// were live at, under their old checksum: their old bytes at 1500..1600 are gone, so the old
// checksum cannot be tried, and the row was decided unchecked (s40c's "still OPEN"). Q told
// new decodes the old cut data block's new bytes beside the stale element, and the write's
// data crc refutes that decode.
#[test]
fn raid6_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_a_q_landed_past_them_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_UNDER,
        &ACKED_PART,
        CUT_AT + CUT_BYTES,
    );
}

#[test]
fn rs_4_3_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_q_and_r_landed_past_them_and_an_element_stale_under_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        true,
        LOST_UNDER,
        &ACKED_PART,
        CUT_AT + CUT_BYTES,
    );
}

// The same crashes without the stale element: every acknowledged block reads right, the
// torn parity blocks holding the write's new payload to `TORN_AT` (inside their live
// bytes; s40c: its witness's first try lost them without its on-disk candidate), and past
// the offsets they were live at (`PART_END`), over an older cache stripe's nonzero bytes
// (review r40c MEDIUM-2): to 1550 (a part of the write's parity piece: its old bytes at
// 1500..1550 are gone and on no record) and to 1600 (the whole piece, told by the write's
// piece crc). Every block reads right on 64901551; s40c's witness (reverted) LOST stripe
// 0's blocks 0, 4096 and 8192 at 1550. A fix of r39b MEDIUM-2 must keep them all.
#[test]
fn raid6_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_and_a_torn_q_alone_loses_nothing(
) {
    for torn_at in [TORN_AT, 1550, CUT_AT + CUT_BYTES] {
        a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
            CodeSpec::raid6(4),
            DataBlock::Old,
            R::Old, // no R
            false,
            LOST_UNDER,
            &ACKED_PART,
            torn_at,
        );
    }
}

#[test]
fn rs_4_3_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_and_torn_q_and_r_alone_loses_nothing(
) {
    for torn_at in [TORN_AT, 1550, CUT_AT + CUT_BYTES] {
        a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at_acked_torn_to(
            CodeSpec::rs(4, 3),
            DataBlock::Old,
            R::Torn,
            false,
            LOST_UNDER,
            &ACKED_PART,
            torn_at,
        );
    }
}

// Review r41b HIGH-1: the crash alone of r39b MEDIUM-2's scene with Q (and R) torn with
// the write's new payload at the head (to 1100, `TORN_AT`, 1450: inside the live bytes,
// no piece of the write whole, the bytes past the live offsets old) and its NEW checksum
// landed: the slot's checksum area is on another page than the block's tail for elements
// of 8 KiB and more (the 1 MiB default), and a power cut in pages keeps the one and drops
// the other. Laid by hand here (4 KiB elements: the checksum bytes copied from the image
// after the write). Every acknowledged block reads right on 175ee2cd; s41b's
// `old_bytes_past_live_on_disk` (reverted) tried the old bytes against the new checksum
// and LOST stripe 0's blocks 0, 4096 and 8192.
fn lost_with_the_new_checksum_landed(code: CodeSpec, r: R, torn_at: usize) -> Vec<usize> {
    let s = scene(code, LOST_UNDER, &ACKED_PART);
    s.image(DataBlock::Old, r, false, torn_at);
    let mut torn = vec![s.parity_units[1].clone()];
    if let (Some(u), R::Torn) = (s.parity_units.get(2), r) {
        torn.push(u.clone());
    }
    for u in &torn {
        copy_slot_bytes(&s.after, &s.dir, u, UNIT..SLOT_BYTES);
    }
    let what = format!("{:?}, the new checksum landed, torn to {torn_at}", s.code);
    s.lost_after_the_open_and_a_flush(&what)
}

fn assert_the_new_checksum_landed_alone_loses_nothing(code: CodeSpec, r: R) {
    for torn_at in [1100, TORN_AT, 1450] {
        let lost = lost_with_the_new_checksum_landed(code, r, torn_at);
        assert!(
            lost.is_empty(),
            "torn to {torn_at}, the new checksum landed: blocks at {lost:?} LOST by the crash beside a failed parity OSS alone"
        );
    }
}

#[test]
fn raid6_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_and_a_head_torn_q_with_the_new_checksum_landed_alone_loses_nothing(
) {
    assert_the_new_checksum_landed_alone_loses_nothing(CodeSpec::raid6(4), R::Old);
}

#[test]
fn rs_4_3_an_old_cut_data_block_past_the_acknowledged_bytes_beside_a_failed_p_oss_and_head_torn_q_and_r_with_the_new_checksums_landed_alone_loses_nothing(
) {
    assert_the_new_checksum_landed_alone_loses_nothing(CodeSpec::rs(4, 3), R::Torn);
}

// r38a LOW-3: s37c's open shape on rs 4+3 (R torn too: every parity column blind) and rs
// 4+2, the stale element away from the write (fixed by s38a's unchecked-arm check).
#[test]
fn rs_4_3_an_old_cut_data_block_beside_a_failed_p_oss_torn_q_and_r_and_an_element_stale_away_from_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        true,
        LOST_AWAY,
    );
}

#[test]
fn rs_4_2_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_away_from_the_write_reads_no_wrong_byte(
) {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 2),
        DataBlock::Old,
        R::Old, // no R
        true,
        LOST_AWAY,
    );
}

#[test]
fn rs_4_3_an_old_cut_data_block_beside_a_failed_p_oss_and_torn_q_and_r_alone_loses_nothing() {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 3),
        DataBlock::Old,
        R::Torn,
        false,
        LOST_UNDER,
    );
}

#[test]
fn rs_4_2_an_old_cut_data_block_beside_a_failed_p_oss_and_a_torn_q_alone_loses_nothing() {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::rs(4, 2),
        DataBlock::Old,
        R::Old, // no R
        false,
        LOST_UNDER,
    );
}

#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_and_a_torn_q_alone_loses_nothing() {
    a_torn_write_beside_a_failed_parity_oss_and_an_element_stale_at(
        CodeSpec::raid6(4),
        DataBlock::Old,
        R::Old, // no R
        false,
        LOST_AWAY,
    );
}

// The same crashes without the stale element: every block must read (a rule that loses a
// crash beside one failed OSS, within tolerance, is no fix).
#[test]
fn rs_4_3_a_whole_cut_data_block_beside_a_failed_p_oss_and_torn_q_and_r_alone_loses_nothing() {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::rs(4, 3),
        DataBlock::Whole,
        R::Torn,
        false,
    );
}

#[test]
fn raid6_a_whole_cut_data_block_beside_a_failed_p_oss_and_a_torn_q_alone_loses_nothing() {
    a_torn_write_beside_a_failed_parity_oss_and_a_stale_element(
        CodeSpec::raid6(4),
        DataBlock::Whole,
        R::Old, // no R
        false,
    );
}

// The sweep (scripts/repro/s35f-stale-beside-failed-parity-sweep.sh): common/stale_cut.rs's
// scene (a stale element, a client write cut by a power cut at every point) with P's OSS
// dead after the cut, every problem collected (WRONG bytes, a loss outside the cache stripe)
// and the cuts that name a loss printed (`LOST-CUT`). Knobs: `S35F_CODE`
// (`common::code_of_env`), `S35F_WRITE` (`AT+LEN`), and the out-of-order model's
// `EXARAID_POWER_CUT_OUT_OF_ORDER` (pages mode tears blocks as this scene's crash does);
// `S35F_FAILED_PARITY`: the index of the parity whose OSS fails (default 0, P; r38a's
// MEDIUM-1 fails the last one); `S35F_STALE=0`: no stale element (the power cut alone, its
// losses counted by the LOST-CUT lines); `S35F_OVERWRITE=1`: the first write covers 3.5
// elements (the cut write overwrites acknowledged bytes). s42c: `S35F_FAILED_PARITY=none`
// fails no OSS (with `S35F_STALE=0`, the power cut ALONE); `S35F_ELEMENT_BYTES` (4096 where
// unset, a multiple of 4096): the element size, the scene's offsets scaled with it (the
// lost write over elements 0 and 1, the default cut write element 2 whole, the overwrite
// variant's first write 3.5 elements; `S35F_WRITE` is file bytes, taken as given). At 8 KiB
// and more a block's checksum lies on another zone page than its tail (r41b HIGH-1).
use crate::powercut;
use crate::stale_cut;

/// The probe's overwrite variant (`S35F_OVERWRITE=1`, review r39b MEDIUM-3): the cache
/// stripe's first write covers 3.5 data elements, so a cut write into elements 2 and 3
/// overwrites acknowledged bytes.
const OVERWRITE_FIRST_WRITE_BYTES: usize = 7 * UNIT / 2;

#[test]
#[ignore = "probe: S35F_CODE=rs:4:3 S35F_WRITE=9192+4096 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,pages"]
fn probe_stale_element_beside_a_failed_parity_oss_power_cut_code_of_env() {
    let code = code_of_env("S35F_CODE", "rs:4:3");
    let env_usize = |name: &str, default: usize| {
        std::env::var(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
        })
    };
    let element_bytes = env_usize("S35F_ELEMENT_BYTES", UNIT);
    assert!(
        element_bytes >= UNIT && element_bytes % UNIT == 0,
        "S35F_ELEMENT_BYTES={element_bytes}: a multiple of {UNIT}"
    );
    let write = match std::env::var("S35F_WRITE") {
        Ok(_) => cut_write_of_env("S35F_WRITE"),
        Err(_) => 2 * element_bytes..3 * element_bytes,
    };
    let failed_parity: Vec<usize> = match std::env::var("S35F_FAILED_PARITY").as_deref() {
        Ok("none") => vec![],
        _ => vec![env_usize("S35F_FAILED_PARITY", 0)],
    };
    let stale_lost = env_usize("S35F_STALE", 1) != 0;
    let first_write_bytes = match env_usize("S35F_OVERWRITE", 0) {
        0 => 2 * element_bytes,
        _ => OVERWRITE_FIRST_WRITE_BYTES * element_bytes / UNIT,
    };
    let (points, problems) =
        stale_cut::power_cut_client_write_beside_stale_bytes_after_first_write_problems(
            code,
            stale_cut::Stale {
                element_bytes,
                lost_write: 0..2 * element_bytes,
            },
            (&[], &failed_parity),
            stale_cut::Cuts::All,
            write.clone(),
            true,
            stale_lost,
            first_write_bytes,
            powercut::OutOfOrder::from_env(),
        );
    let wrong = problems.iter().filter(|p| p.contains("WRONG")).count();
    eprintln!(
        "S35F {code:?} element {element_bytes} write {}+{}: {points} cuts, {} problems, wrong \
         {wrong}, failed parity {failed_parity:?}, stale element {stale_lost}, first write \
         0..{first_write_bytes}",
        write.start,
        write.len(),
        problems.len()
    );
    assert!(problems.is_empty(), "first: {:?}", problems.first());
}

// r38a MEDIUM-1 where the s35f scene above cannot reach it: the write covers TWO data blocks
// of the row (elements 2 and 3 whole), the LAST parity's OSS (Q) fails after the cut, P
// landed, both data blocks old, data element 1 stale. OPEN (s39b, traced on 860666e2 and
// its fix of MEDIUM-2): the one world (both data blocks told old, P told new) checks
// nothing (old version: P and Q unknown; new version: both data blocks and Q unknown), no
// calm offset is left (the write covers the whole block), and the row is decided unchecked:
// "'f' WRONG byte 4096: 0xda, acknowledged 0xf8" at the cut before mutating call 15. Nothing
// on record tells it from the crash alone (stale element 1 or not, P's new bytes are the
// sum with two unknown new blocks, constrained only by crc32c's affine checks), so naming
// the row LOST loses the crash beside one failed OSS alone: not done.
// CLOSED by s43b's cache-zone witness (`State::cache_witness`: the crc of the stale element's
// lost write kept apart from it until its stripe is settled): passes since session 43.
#[test]
fn raid6_two_old_cut_data_blocks_beside_a_landed_p_and_a_failed_q_oss_and_a_stale_element_read_no_wrong_byte(
) {
    let (points, problems) = stale_cut::power_cut_client_write_beside_stale_bytes_or_alone_problems(
        CodeSpec::raid6(4),
        stale_cut::Stale {
            element_bytes: UNIT,
            lost_write: 0..2 * UNIT,
        },
        (&[], &[1]),
        stale_cut::Cuts::All,
        2 * UNIT..4 * UNIT,
        true,
        true,
    );
    assert!(points > 1);
    assert!(
        problems.is_empty(),
        "first of {}: {:?}",
        problems.len(),
        problems.first()
    );
}

// r39b MEDIUM-3: the probe's overwrite variant (`S35F_OVERWRITE=1`: the first write covers
// 3.5 elements, so the cut write 10000+3000 overwrites acknowledged bytes of elements 2 and
// 3), P's OSS failed, pages mode (`EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,pages`): 13 of 161
// cuts read "'f' WRONG byte 4096: 0xda, acknowledged 0xf8" (the stale element 1 taken). The
// first of them, cut #35: before mutating call 12, the write's journal kept whole, pages 3
// and 4 of call 10 (OSS 1) and page 4 of call 11 (OSS 2) dropped. OPEN. Traced (s40c, on
// 64901551): the row's blind columns are data element 2 (the write's block, failing, with
// acknowledged bytes beside the write's range) and P (no bytes); `stale_beside_cut_write`'s
// `confirms` arm returns `Agrees` ("the decisions below confirm its decode"), but in
// `decide_cache_stripe` element 2 is `rotten_cut` and KEPT (`landed Some(None)`, erased
// [2, 4]), so nothing checks the stale element 1: D0, D1, D3 and Q are exactly k columns,
// and the running parity is rewritten from the data. Not r38a MEDIUM-1's shape: once
// element 2 is proven by its own stored checksum, Q (told by the write's crcs) is a column
// left over that would check element 1 (a likely witness, not implemented; merge review
// r40c LOW-2: not shown, since which rule kept element 2 was not traced: name it first).
// Closed (s42b, by the fix of "OPEN after session 35" (1)(d), not aimed at it): the
// `confirms` arm now checks the row at its calm offsets first, element 2's torn block known
// there and only P erased (`calm_offsets_contradict_beside_torn_cut_blocks`): the stale
// element 1 disagrees there, LOST. FAILS on 28327fda with the message above (cut #35).
#[test]
fn raid6_a_cut_overwrite_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element_reads_no_wrong_byte(
) {
    a_cut_overwrite_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element(
        CodeSpec::raid6(4),
        10000..13000,
        35,
    );
}

// s43a (the probe's overwrite variant, P's OSS failed, at 4 KiB elements with s42c's `cross`
// write: `S35F_OVERWRITE=1 S35F_CODE=raid6:4 S35F_STALE=1 S35F_FAILED_PARITY=0
// S35F_WRITE=11192+2096 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,pages`: 2 of 161 cuts, #86 and
// #114; rs 4+3: 3 of 221, #82, #147, #165; none at 8 KiB, `cross` 19384+6192): r39b MEDIUM-3's
// shape (a cut overwrite torn in pages beside a failed P OSS and a stale element 1), closed by
// s42b for write 10000+3000 above, is still WRONG for this write: "'f' WRONG byte 4096: 0xda,
// acknowledged 0xf8" (element 1's first byte). OPEN. Traced (s43a, a temporary eprintln,
// removed; raid6 cut #86, rs 4+3 cut #82 alike): `decide_cache_stripe` ->
// `stale_beside_cut_write` returns `Agrees` at the end of its `fit.contains(&None) &&
// (versions_told || some_block_fails)` arm (one world, nothing checks it; every refuting check
// there says no). Row 0 (raid6): D2 (write 3000..4096) verifies, D3 (write 0..1000,
// acknowledged 0..2048) fails its checksum but is `whole_new` (its payload matches the write's
// crc), P absent (its OSS failed), Q verifies; rs 4+3 alike, D2 failing too. The arm's
// `calm_offsets_contradict` erases every column not verified (D3 and P; rs: D2, D3, P):
// exactly the tolerance, nothing left over, so the calm offsets 1000..3000 (where Q, known
// there, should disagree with the stale D1: not shown) are never checked. Mend to weigh (not
// done: src is another helper's this session): check this arm as the `confirms` arm does since
// s42b, a cut block known at the calm offsets
// (`calm_offsets_contradict_beside_torn_cut_blocks`); for rs 4+3 that leaves a column over;
// for raid6 only if a `whole_new` block is not taken as one that may explain a disagreement
// alone (its payload is proven by the write's crc, not rotten), else D3 and P use up the
// erasures again.
// CLOSED by s43b's cache-zone witness (`State::cache_witness`: the crc of the stale element's
// lost write kept apart from it until its stripe is settled): passes since session 43.
#[test]
fn raid6_a_cut_overwrite_of_two_elements_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element_reads_no_wrong_byte(
) {
    a_cut_overwrite_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element(
        CodeSpec::raid6(4),
        11192..13288,
        86,
    );
}

// Its rs 4+3 twin (the probe's cut #82 of 221; #147 and #165 read the same WRONG byte).
// CLOSED by s43b's cache-zone witness (`State::cache_witness`: the crc of the stale element's
// lost write kept apart from it until its stripe is settled): passes since session 43.
#[test]
fn rs_4_3_a_cut_overwrite_of_two_elements_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element_reads_no_wrong_byte(
) {
    a_cut_overwrite_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element(
        CodeSpec::rs(4, 3),
        11192..13288,
        82,
    );
}

/// The probe's overwrite variant at 4 KiB elements, P's OSS failed, data element 1 stale,
/// the cut write `write` (r39b MEDIUM-3's 10000+3000, or s42c's `cross` 11192+2096: element
/// 2's last 1096 bytes, element 3's first 1000), the `nth` cut of `16,1,pages` (seed 1):
/// exactly that cut checked, no problem.
fn a_cut_overwrite_torn_in_pages_beside_a_failed_p_oss_and_a_stale_element(
    code: CodeSpec,
    write: std::ops::Range<usize>,
    nth: usize,
) {
    let (points, problems) =
        stale_cut::power_cut_client_write_beside_stale_bytes_after_first_write_problems(
            code,
            stale_cut::Stale {
                element_bytes: UNIT,
                lost_write: 0..2 * UNIT,
            },
            (&[], &[0]),
            stale_cut::Cuts::Nth(nth),
            write,
            true,
            true,
            OVERWRITE_FIRST_WRITE_BYTES,
            Some(powercut::OutOfOrder {
                subsets_per_image: 16,
                seed: 1,
                pages: true,
                only: false,
            }),
        );
    assert_eq!(points, 1, "the one pinned cut");
    assert!(problems.is_empty(), "{:?}", problems.first());
}

// s44a: the probe's overwrite variant after a power cut ALONE (no stale element, no failed
// OSS: `S35F_OVERWRITE=1 S35F_STALE=0 S35F_FAILED_PARITY=none`), pages mode, s42c's `cross`
// write (element 2's last bytes, element 3's first). Session 43 (s43a) found acknowledged
// bytes LOST there (raid5:4 at 4 KiB: block 8192 in 10 of 59 cuts): the RAID-5 write hole
// the store promises to close. Traced (cut #15, raid5:4, 4 KiB): the write's block of
// element 2 (cache slot 3, a zone file page boundary 4084 bytes into it) lost the page
// with its head (bytes 0..4084, old: acknowledged 0..3000, the write's 3000..4084 old) and
// kept the page with its tail and its NEW checksum (4084..4096 new). D0, D1, D3 and P
// verify, all old. Block 8192 fails its checksum and matches none of the write's crcs
// (`landed` Some(None): `rotten_cut`); `page_cut` (s27c: head NEW, tail old, under the old
// checksum) does not hold, `decide_rotten_cache_block` finds no proof (the decode differs
// from the disk at 4084..4096) and `confirm_by_versions` needs a column to spare (raid5 has
// none): LOST. The decode IS the old block, provably: its tail holds the cut write's
// page-cut record's `old_tail_crc`, and its head equals the block's own head on disk at
// every acknowledged byte (each byte offset its own code word: a stale column or a column
// of the other version shows there). Fixed (`cache_head_page_dropped`, the rotten-cut arm
// of `decide_cache_stripe`); raid6 alike where the decode, with the write's other data
// block erased too, is the old block (cut #26: element 3's tail page dropped as well).
// FAIL on af8127a3 ("blocks [8192] LOST", "[20480]" at 8 KiB); pass since s44a.

#[test]
fn raid5_a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::Nth(15),
        1,
    );
}

/// At 8 KiB elements (`cross` 19384+6192: element 2's tail block 20480 torn the same way,
/// its zone file pages 6 and 7 dropped, cut #17 of 67).
#[test]
fn raid5_8k_a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        2 * UNIT,
        19384..25576,
        stale_cut::Cuts::Nth(17),
        1,
    );
}

#[test]
fn raid6_a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid6(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::Nth(26),
        1,
    );
}

// s44d: the rest of s44a's scene, where no decode proves the torn block. The same block
// 8192 of element 2 (head page dropped: bytes 0..4084 old, acknowledged 0..3000 right;
// tail 4084..4096 and checksum new) beside a second column torn or of the other version, so
// that every decode from the row's other columns is neither version at that column's
// offsets and `cache_head_page_dropped` (s44a) finds no proof: raid5 cut #24 (element 3
// torn the kill's way too, its head page with the write's bytes 0..1000 kept, its tail
// page dropped; P old: two erasures), raid5 cut #31 (element 3 whole new beside P old),
// raid6 cut #45 (elements 2 and 3 torn as in #24, P new, Q old). The probe's dropped-pages
// lines name the on-disk state. Fixed by the page-cut record's other two crcs
// (`WindowPageCutCrcs::old_head_crc`, `new_tail_crc`, journaled by the cut write before
// its first cache write): block 8192's head holds the crc of its bytes before the write,
// its tail the crc of its bytes after it, so every byte is old or new and the
// acknowledged ones (the same in both) are right without a decode
// (`holds_head_dropped`, `cache_page_cut_holds`). FAIL on 07159b44 ("blocks [[8192]] LOST").

#[test]
fn raid5_a_cut_overwrite_torn_in_pages_beside_a_second_torn_column_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::Nth(24),
        1,
    );
}

#[test]
fn raid5_a_cut_overwrite_torn_in_pages_beside_a_new_column_and_old_parity_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::Nth(31),
        1,
    );
}

#[test]
fn raid6_a_cut_overwrite_torn_in_pages_beside_parities_of_two_versions_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid6(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::Nth(45),
        1,
    );
}

/// Every cut of the whole sweep the pinned cuts above come from (review r44a LOW-2: a
/// pinned index that drifts onto an untorn cut would pass testing nothing): all 59 power
/// cuts of raid5's `cross` overwrite at 4 KiB elements in pages mode (seed 1) lose nothing
/// since s44d (10 cuts LOST on af8127a3, 7 after s44a).
#[test]
fn raid5_no_cut_of_an_overwrite_torn_in_pages_by_a_power_cut_alone_loses_anything() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        UNIT,
        11192..13288,
        stale_cut::Cuts::All,
        59,
    );
}

// s45d (s44d's OPEN: raid5:4 `cross` 19384+6192 at 8 KiB, `16,1,pages`, cuts #26, #37,
// #49 of 67 lose block 16384, element 2's first block, whose bytes 3000..4096 the cut
// write covers). At 8 KiB a slot is 8200 bytes: the element's two blocks, then their two
// crcs (`slot_bytes_on_disk`). Element 2's cache slot 3 lies at 24600..32800 of the zone
// file: block 0 on pages 6 and 7 (cut at 4072), block 1 on pages 7 and 8, the crcs on page
// 8. Each losing cut writes call 8 (OSS 2, that slot) back with pages 6 and 7 dropped and
// page 8 kept: block 0 stands WHOLE OLD under its NEW crc (block 1 old head, new tail:
// `holds_head_dropped`). The journal's page-cut record of block 0 (cut at 4072) holds
// `new_head_crc`, `old_tail_crc` and s44d's `old_head_crc`, `new_tail_crc`; `holds` needs
// a new head, `holds_head_dropped` a new tail: neither. The decode is no proof either:
// element 3's block 0 is new at 0..1000 (#26: torn, #37: whole new; #49: P torn) beside P
// old, so a decode of element 2 is neither version there, `cache_head_page_dropped`'s
// head check fails, raid5 has no column to spare: the rotten-cut arm's `None`, LOST. The
// 4 KiB rules reasoned about one block per slot, its crc on the same page as its tail;
// at 8 KiB the crc can land without either page of the block. Provable: the block holds
// the record's old head crc AND old tail crc, so it is the block before the write, whose
// acknowledged bytes 0..3000 the write leaves as they were. Fixed:
// `WindowPageCutCrcs::holds_one_version` (both halves old, or both new), taken by
// `cache_page_cut_holds`. FAIL on 1d205592 (3 cuts: "blocks [[16384], [16384], [16384]]
// LOST").

/// Every cut of raid5's `cross` overwrite at 8 KiB elements in pages mode (seed 1): all 67
/// power cuts lose nothing since s45d (20 LOST on af8127a3, 8 after s44a, 3 after s44d).
#[test]
fn raid5_8k_no_cut_of_an_overwrite_torn_in_pages_by_a_power_cut_alone_loses_anything() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid5(4),
        2 * UNIT,
        19384..25576,
        stale_cut::Cuts::All,
        67,
    );
}

/// OPEN s45d (raid6:4 `cross` 19384+6192 at 8 KiB, `16,1,pages`, seed 1): cut #77, one
/// of 6 of 119 cuts (#77, #80, #88, #100, #106, #111) losing block row 1 of the stripe
/// whole (blocks 4096, 12288, 20480: acknowledged bytes of elements 0 and 1 the write never
/// touches among them). The power cut before mutating call 14 (Q's write): Q old, verifying;
/// call 10 (element 2's slot 3) with page 7 dropped: element 2's block 1 (wholly the write's
/// bytes, on pages 7 and 8) head old, tail and crcs new (`holds_head_dropped` keeps it);
/// P's two pieces (calls 12, 13) in flight, pages 6 and 8 of call 12 and page 8 of call
/// 13 dropped: P's block 1 fails its crc. Traced (s45d, a temporary eprintln, removed):
/// `stale_beside_cut_write` (recovery/stale_beside_cut.rs) sees blind columns {2, 4},
/// worlds D2 `Torn`, P `Torn`, Q `Old`: as many blind columns as raid6 tolerates, no world
/// checked, `blind_unconfirmed`: `Unlocated`, the row LOST (s34a's rule: a stale column
/// there could not be located). The row is provable in principle: element 2's bytes are
/// known per offset by its page-cut crcs (old before 4072, new from it), so it need not
/// be blind; Q (old) then checks the head offsets directly and, at the tail offsets, a
/// decode of element 2's OLD tail through Q must hold the record's `old_tail_crc`. The
/// other 2 raid6 8 KiB cuts (#107, #110) tear P and Q both: s34a's blind-row trade, not
/// this. Fixed by s47c: where the row is lost unless a world proves it
/// (`blind_unconfirmed`), each torn data block of the write whose halves hold its page-cut
/// record's crcs is known per page in each version (`know_torn_blocks_in_pages`,
/// recovery/stale_beside_cut.rs), the crc of each half a version does not know told there,
/// and such a version must check every segment of the row: the old version here keeps Q
/// and element 2's old head (Q checks it, P erased) and decodes element 2's old tail
/// through Q against `old_tail_crc`. FAIL on c092d8a5 ("blocks [[4096, 12288, 20480]]
/// LOST").
#[test]
fn raid6_8k_a_cut_overwrite_torn_in_pages_beside_a_torn_p_and_an_old_q_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid6(4),
        2 * UNIT,
        19384..25576,
        stale_cut::Cuts::Nth(77),
        1,
    );
}

/// Every cut of raid6's `elem2` overwrite at 8 KiB elements (16384..24576, element 2
/// whole) in pages mode (seed 1): all 44 power cuts lose nothing since s47c (9 LOST on
/// c092d8a5, each at `blind_unconfirmed`: an element 2 block torn in pages beside a torn
/// parity, known per page now). The whole sweep, not one cut (review r44a LOW-2).
#[test]
fn raid6_8k_no_cut_of_an_element_overwrite_torn_in_pages_by_a_power_cut_alone_loses_anything() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid6(4),
        2 * UNIT,
        16384..24576,
        stale_cut::Cuts::All,
        44,
    );
}

/// The same at 4 KiB elements (8192..12288, element 2 whole): all 36 cuts lose nothing
/// since s47c (4 LOST on c092d8a5).
#[test]
fn raid6_4k_no_cut_of_an_element_overwrite_torn_in_pages_by_a_power_cut_alone_loses_anything() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::raid6(4),
        UNIT,
        8192..12288,
        stale_cut::Cuts::All,
        36,
    );
}

/// The same shape on three parities: rs 4+3's `cross` overwrite at 8 KiB elements
/// (19384..25576) in pages mode (seed 1), cut #129 (power cut before call 18, R's write):
/// element 2's block 1 head page dropped, P and Q torn, R old: three blind columns, block
/// row 1 LOST on c092d8a5 ("blocks [[4096, 12288, 20480]]"; with #133 the 2 of 175 cuts
/// LOST there). Since s47c the whole sweep loses nothing (the s35f probe, seed 1); one cut
/// pinned here because the 175-cut sweep takes about 2 s in debug.
#[test]
fn rs_4_3_8k_a_cut_overwrite_torn_in_pages_beside_torn_p_and_q_and_an_old_r_loses_nothing() {
    a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
        CodeSpec::rs(4, 3),
        2 * UNIT,
        19384..25576,
        stale_cut::Cuts::Nth(129),
        1,
    );
}

/// The probe's overwrite variant at `element_bytes`, nothing stale and no OSS failed, the
/// cut write `write`, the `cuts` of `16,1,pages` (seed 1), `points` of them: no problem,
/// and no acknowledged block named LOST (a power cut alone loses nothing).
fn a_cut_overwrite_torn_in_pages_by_a_power_cut_alone_loses_nothing(
    code: CodeSpec,
    element_bytes: usize,
    write: std::ops::Range<usize>,
    cuts: stale_cut::Cuts,
    points_want: usize,
) {
    let (points, problems, losses) =
        stale_cut::power_cut_client_write_beside_stale_bytes_after_first_write_problems_and_losses(
            code,
            stale_cut::Stale {
                element_bytes,
                lost_write: 0..2 * element_bytes,
            },
            (&[], &[]),
            cuts,
            write,
            true,
            false,
            OVERWRITE_FIRST_WRITE_BYTES * element_bytes / UNIT,
            Some(powercut::OutOfOrder {
                subsets_per_image: 16,
                seed: 1,
                pages: true,
                only: false,
            }),
        );
    assert_eq!(points, points_want, "the cuts of the scene");
    assert!(problems.is_empty(), "{:?}", problems.first());
    assert!(
        losses.is_empty(),
        "a power cut alone: blocks {losses:?} LOST"
    );
}

// s42c (the probe at 8 KiB elements: `S35F_CODE=raid6:4 S35F_ELEMENT_BYTES=8192
// S35F_FAILED_PARITY=none S35F_WRITE=17384+600 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,pages`,
// 12 of 36 cuts WRONG; rs 4+3 9 of 62; at 4096 the same scene, write 9192+600, reads no
// wrong byte in either code, its stale row LOST on record): data element 1 stale (its OSS
// lost the second write over elements 0 and 1, both its blocks), the cut write at element
// 2's bytes 1000..1600 (block row 0 only), nothing failed, the all-or-none model. The
// power cut before mutating call 11 (element 2's block and P's piece landed, Q not
// written) reads "'f' WRONG byte 12288: 0x84, acknowledged 0xdc": element 1's block 1, in
// block row 1, which the write never reaches. At 4 KiB elements every block of the stale
// element is in the write's row. OPEN. Traced (s42c, temporary eprintlns, removed; 2 of 22
// cuts WRONG without the out-of-order model: #15 nothing dropped, #17 OSS 2's block
// dropped; every cut dropping P's piece reads right): `decide_cache_stripe` checks block
// row 0 only; `stale_beside_cut_write` names it `Unlocated` at its last arm (a world
// located the stale column, but none is proven with a column to spare), so stripe 0's
// blocks 0 and 8192 are LOST on record. Block row 1 is skipped there ("not touched: the
// settle's verified reads cover it"), but the settle's `stale_cache_checks` run only where
// `untouched_by_cut_writes`, which requires `lost_cached` empty: in exactly these 2 cuts it
// holds row 0's two blocks, so no check of the stripe runs and the stale block 1 goes home
// (the other 20 cuts: `lost_cached` empty, checks run, row 1 caught). One block row per
// element (4 KiB) hid it. A mend to weigh: run the checks there too, forgetting the lost
// rows' blocks (`forget_blocks`, as for `cache_decided`).
// Fixed (s42d): the settle checks such a stripe too, the lost rows' blocks forgotten
// (recovery.rs, `untouched_by_cut_writes`); row 1's stale block is located (raid6, rs) or
// LOST on record (raid5), row 0 LOST as before.
#[test]
fn raid6_8k_stale_element_row_beside_a_cut_write_in_another_block_row_reads_no_wrong_byte() {
    stale_element_row_beside_a_cut_write_in_another_block_row(CodeSpec::raid6(4), 2 * UNIT, None);
}

// The same scene for rs 4+3 and raid5 (s42c's probe: 9 of 62 and 7 of 18 cuts WRONG at
// 8 KiB, `16,1,pages`), each WRONG at element 1's block row 1 before s42d's mend.
#[test]
fn rs_4_3_8k_stale_element_row_beside_a_cut_write_in_another_block_row_reads_no_wrong_byte() {
    stale_element_row_beside_a_cut_write_in_another_block_row(CodeSpec::rs(4, 3), 2 * UNIT, None);
}

#[test]
fn raid5_8k_stale_element_row_beside_a_cut_write_in_another_block_row_reads_no_wrong_byte() {
    stale_element_row_beside_a_cut_write_in_another_block_row(CodeSpec::raid5(4), 2 * UNIT, None);
}

/// s42c's scene: elements 0 and 1 stale (at 8 KiB both their block rows), the cut write in
/// element 2's block row 0 only (bytes 1000..1600), nothing failed; every cut of
/// `out_of_order`'s model (None: all-or-none).
fn stale_element_row_beside_a_cut_write_in_another_block_row(
    code: CodeSpec,
    element_bytes: usize,
    out_of_order: Option<powercut::OutOfOrder>,
) {
    let (points, problems) =
        stale_cut::power_cut_client_write_beside_stale_bytes_after_first_write_problems(
            code,
            stale_cut::Stale {
                element_bytes,
                lost_write: 0..2 * element_bytes,
            },
            (&[], &[]),
            stale_cut::Cuts::All,
            2 * element_bytes + 1000..2 * element_bytes + 1600,
            true,
            true,
            2 * element_bytes,
            out_of_order,
        );
    assert!(points > 1, "the cuts");
    assert!(
        problems.is_empty(),
        "{} of {points} cuts, first: {:?}",
        problems.len(),
        problems.first()
    );
}

// The same scene at 4 KiB elements (write 9192+600): the twin, no wrong byte.
#[test]
fn raid6_4k_stale_element_beside_a_cut_write_in_its_block_row_reads_no_wrong_byte() {
    stale_element_row_beside_a_cut_write_in_another_block_row(CodeSpec::raid6(4), UNIT, None);
}

/// s35f's scene on the disk as the store left it before the cut write (closed, nothing in
/// flight, no crash), data element `STALE_DATA`'s slot put back as before its lost write
/// where `stale`, P's OSS failed: the blocks LOST on record after the open and a flush (a
/// wrong byte panics), each inside cache stripe 0.
fn a_failed_p_oss_beside_a_stale_element_without_a_crash(
    code: CodeSpec,
    stale: bool,
) -> Vec<usize> {
    a_failed_oss_beside_a_stale_element_without_a_crash(code, stale, false)
}

/// The same with the OSS of data element `WHOLE_DATA` failed instead of P's where
/// `dead_whole_data`: its cached element is read decoded from the row, through the stale
/// element.
fn a_failed_oss_beside_a_stale_element_without_a_crash(
    code: CodeSpec,
    stale: bool,
    dead_whole_data: bool,
) -> Vec<usize> {
    let mut s = scene(code, LOST_WHOLE, &ACKED_WHOLE);
    if dead_whole_data {
        s.failed_oss = s.whole_oss;
    }
    std::fs::remove_dir_all(&s.dir).unwrap();
    copy_tree(&s.saved, &s.dir);
    if stale {
        copy_slot_bytes(&s.older, &s.dir, &s.stale_unit, 0..SLOT_BYTES);
    }
    lose_disk(&s.dir, s.failed_oss);
    let what = format!(
        "{:?}, OSS {} failed (P's: {}), no crash, stale element {stale}",
        s.code, s.failed_oss, s.p_oss
    );
    let store = s.open();
    {
        // Failed on record (no crash: the open fails no OSS), so that a loss goes on record
        // (only away, a read of it refuses and records nothing: the bytes are on the disk;
        // since s44c also where P's OSS is the one away, s44c_cache_witness_gaps.rs).
        store.fail_oss(s.failed_oss).unwrap();
        // The first reads, before anything else runs: each reads the acknowledged bytes or
        // fails `DataLost`, never a wrong byte (review r43b's scene: a `get` after the
        // open). A read that finds a decoded block wrong records it itself, and a row whose
        // stale column cannot be located is recorded by a flush, so both come before the
        // checks below (which take the record before they read).
        for at in (0..s.model.len()).step_by(4096) {
            let len = 4096.min(s.model.len() - at);
            match store.read("f", at as u64, len as u64) {
                Ok(got) => {
                    if let Some(j) = (0..len).find(|&j| got[j] != s.model[at + j]) {
                        panic!(
                            "{what}: first read: 'f' WRONG byte {}: {:#04x}, acknowledged {:#04x}",
                            at + j,
                            got[j],
                            s.model[at + j]
                        );
                    }
                }
                Err(StoreError::DataLost(_)) => {}
                Err(e) => panic!("{what}: first read at {at}: {e}"),
            }
        }
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("flush with OSS {} failed: {e}", s.failed_oss),
        }
    }
    let read = |when: &str| {
        // Nothing in flight: every acknowledged byte reads `model`'s (no cut range).
        let what = format!("{what}: {when}");
        assert_blocks_read_or_lost_on_record(&store, "f", &s.model, 0..0, &[], &what)
    };
    let mut lost = read("after the open");
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    lost.extend(read("after the flush"));
    eprintln!("{what}: blocks at {lost:?} LOST");
    assert!(
        lost.iter().all(|&at| at < s.stripe_bytes),
        "{what}: blocks at {lost:?} LOST outside cache stripe 0"
    );
    lost
}

// s42d's "Open" (docs/results/s42-s42d.md; docs/store.md Limits: "no test"): raid5 with a
// stale element AND its parity's OSS failed, seen by the s35f probe beside a power cut at
// every element size and write. No crash is needed (s42e): s35f's scene closed before its
// cut write (data elements 0 and 2 whole and element 1's 1000..1600 cached and
// acknowledged, element 2's OSS having lost its second write: old bytes under their valid
// checksum), then P's OSS failed. Two faults on a one-fault code: the row is exactly its k
// data columns, nothing is left to check element 2 with (the lost write's crcs left the
// state when its plan was durable). OPEN: FAILS on 9c6eabe0 and on 28327fda alike, "after
// the open: 'f' WRONG byte 8192: 0xd7, acknowledged 0xca" (byte 8192: element 2's first).
// Closing it would take a record that tells the element's bytes until they go home; LOST
// on record would do, never the stale bytes read with success. Closed in session 43 (s43b):
// the cache-zone witness (`State::cache_witness`) keeps the crc of the lost write's bytes
// until its cache stripe goes home, so the read finds element 2's block stale and, P's OSS
// failed, records it LOST (un-ignored: it passes since).
#[test]
fn raid5_a_stale_element_beside_a_failed_p_oss_without_a_crash_reads_no_wrong_byte() {
    a_failed_p_oss_beside_a_stale_element_without_a_crash(CodeSpec::raid5(4), true);
}

// Its twin: P's OSS failed, nothing stale: every acknowledged block reads right (the
// degraded row's k data columns are all there), nothing LOST.
#[test]
fn raid5_a_failed_p_oss_without_a_stale_element_loses_nothing() {
    let lost = a_failed_p_oss_beside_a_stale_element_without_a_crash(CodeSpec::raid5(4), false);
    assert!(
        lost.is_empty(),
        "blocks at {lost:?} LOST by a failed P OSS alone"
    );
}

// Review r43b (of s43b's witness): the same scene with data element 0's OSS failed instead
// of P's. A read of element 0 decodes it from the row, THROUGH the stale element 2: the
// decoded bytes are wrong under no checksum at all, and the witness was checked only on
// bytes read from disk: "'f' WRONG byte 0: 0x47, acknowledged 0x5a" on d1404252 and on
// s43b's head. Since the lead's mend the decoded bytes are checked against the pieces of
// their own blocks: LOST on record (the row holds no column to spare: raid5), never read.
#[test]
fn raid5_a_stale_element_beside_a_failed_data_oss_without_a_crash_reads_no_wrong_byte() {
    a_failed_oss_beside_a_stale_element_without_a_crash(CodeSpec::raid5(4), true, true);
}

// raid6 beside it: a column to spare, still no wrong byte.
#[test]
fn raid6_a_stale_element_beside_a_failed_data_oss_without_a_crash_reads_no_wrong_byte() {
    a_failed_oss_beside_a_stale_element_without_a_crash(CodeSpec::raid6(4), true, true);
}

// Their twin: data element 0's OSS failed, nothing stale: the decode reads right, nothing
// LOST (the check of decoded bytes refutes no right one).
#[test]
fn raid5_and_raid6_a_failed_data_oss_without_a_stale_element_lose_nothing() {
    for code in [CodeSpec::raid5(4), CodeSpec::raid6(4)] {
        let lost = a_failed_oss_beside_a_stale_element_without_a_crash(code, false, true);
        assert!(
            lost.is_empty(),
            "{code:?}: blocks at {lost:?} LOST by a failed data OSS alone"
        );
    }
}

// s43c, review r42a MEDIUM-1: `live_pieces_refute` takes a row whose encode at a wholly
// live piece of the torn parity matches the piece's NEW crc (the write's new running parity
// there), and no test reached that arm. Traced (s43c, temporary eprintln!s, removed): where
// the cut data block landed (verified new, or torn whole-new) the row never gets there: the
// new version then knows every data block, Q's pieces are told by their crcs and check it
// (`version_check`), so the world is checked and decided before the witness (fits: the
// calm-offset checks and `Agrees`; does not: locating). Where the data block is old (told
// by the write's data crc), the row's encode at a live piece is the block before the write
// in a crash alone, which is its OLD crc. The one scene that reaches the NEW crc: the stale
// element's lost write chosen so that the row as it stands (the cut data block old, the
// stale element's older bytes) encodes Q's new piece at the live offsets: per byte
// `older ^ b1 * (new ^ old) / b2` (Q = sum b_d D_d). Two faults beside the crash (P's disk,
// the lost write), as s35f's fitting test above. The data crc tells the cut block OLD, so
// the new piece cannot be the row's: the row must be LOST (stripe 0's blocks 0, 4096 and
// 8192), never the stale bytes read.
fn the_stale_delta_fitting_q_new_at_the_live_piece(
    code: CodeSpec,
    model: &[u8],
    n: usize,
) -> Vec<u8> {
    use exaraid_codes::gf256::{inv, mul};
    assert_eq!(
        n,
        PART_END - CUT_AT,
        "the lost write lies at the live piece's offsets"
    );
    let g = exaraid_codes::Code::new(code).unwrap().geometry().clone();
    let coef = |q: usize, d: usize| {
        (g.parity_terms[q].iter())
            .find(|t| t.data == d)
            .map_or(0, |t| t.coef)
    };
    let (b1, b2) = (coef(1, CUT_DATA), coef(1, STALE_DATA));
    assert!(b1 != 0 && b2 != 0, "{code:?}: Q holds both data elements");
    let new = cut_bytes();
    // Elements of one 4 KiB unit: data element d of stripe 0 starts at file byte d * UNIT.
    let old_cut = &model[CUT_DATA * UNIT + CUT_AT..][..n];
    let older = &model[STALE_DATA * UNIT + CUT_AT..][..n];
    (0..n)
        .map(|j| older[j] ^ mul(mul(b1, new[j] ^ old_cut[j]), inv(b2)))
        .collect()
}

/// r39b MEDIUM-2's scene (`ACKED_PART`, the cut data block old, Q torn to `torn_at`, P's OSS
/// failed) with the stale element's lost write over the whole live piece (1000..1500 of
/// element 2) fitting Q's new piece (`stale`), or that write not lost (the crash alone).
fn an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_fitting_q_new(
    code: CodeSpec,
    stale: bool,
    torn_at: usize,
) -> Vec<usize> {
    let s = scene_lost_bytes(code, CUT_AT..PART_END, &ACKED_PART, &|model, n| {
        the_stale_delta_fitting_q_new_at_the_live_piece(code, model, n)
    });
    s.image(DataBlock::Old, R::Old, stale, torn_at);
    let what = format!(
        "{code:?}, P's OSS {} failed, data block old, Q torn to {torn_at}, stale element \
         {stale} (its lost write fitting Q's new live piece)",
        s.p_oss
    );
    let lost = s.lost_after_the_open_and_a_flush(&what);
    eprintln!("{what}: blocks at {lost:?} LOST");
    lost
}

// Reached (the temporary trace: Q's piece 1000..1500 encoded 0xfc8bb5d9 = its new crc, old
// 0xb951fe01): the row is not refuted, decided `Agrees`, and the stale bytes read with
// success: "after the open: 'f' WRONG byte 9192: 0xd7, acknowledged 0x2f" (d1404252). OPEN:
// with the new-crc match ignored (a temporary switch) the row is LOST (blocks 0, 4096 and
// 8192) and every other test of this file passes; no scene was found that needs the match
// (the cut block landed never reaches the witness: traced on raid6 and rs 4+3, torn to
// 1300, 1550 and 1600, with and without the stale element).
// CLOSED by s43b's cache-zone witness (`State::cache_witness`: the crc of the stale element's
// lost write kept apart from it until its stripe is settled): passes since session 43.
#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_fitting_q_new_reads_no_wrong_byte(
) {
    let lost =
        an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_fitting_q_new(
            CodeSpec::raid6(4),
            true,
            TORN_AT,
        );
    assert!(lost.iter().all(|&at| at < UNIT * 4), "{lost:?}");
}

// The same with Q torn to 1550: its live piece landed whole, and there it IS the row's
// encode, so `torn_parity_beside_absent_unproven` takes the block as holding "the encode of
// the row as the planner knew it" (`candidate == disk`) and never asks the witness: "after
// the open: 'f' WRONG byte 9192: 0xd7, acknowledged 0x2f" (d1404252), with the new-crc
// match ignored too. OPEN: the shortcut would need the old crc as well.
// CLOSED by s43b's cache-zone witness (`State::cache_witness`: the crc of the stale element's
// lost write kept apart from it until its stripe is settled): passes since session 43.
#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_a_q_torn_past_the_live_piece_and_an_element_stale_fitting_q_new_reads_no_wrong_byte(
) {
    let lost =
        an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_fitting_q_new(
            CodeSpec::raid6(4),
            true,
            1550,
        );
    assert!(lost.iter().all(|&at| at < UNIT * 4), "{lost:?}");
}

// The twin: the same lost write not lost (the crash beside P's failed OSS alone): the
// witness sees the OLD crc (traced) and every block reads right. FAILS where the witness
// refutes every row it reaches (a temporary switch: "blocks at [0, 4096, 8192, ...] LOST").
#[test]
fn raid6_an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_fitting_q_new_alone_loses_nothing(
) {
    for torn_at in [TORN_AT, 1550] {
        let lost =
            an_old_cut_data_block_beside_a_failed_p_oss_a_torn_q_and_an_element_stale_fitting_q_new(
                CodeSpec::raid6(4),
                false,
                torn_at,
            );
        assert!(
            lost.is_empty(),
            "torn to {torn_at}: blocks at {lost:?} LOST by the crash beside a failed P OSS alone"
        );
    }
}

// rs 4+3 with Q and R torn: one stale element cannot fit both Q's and R's new pieces (their
// coefficients differ), so R's live piece refutes the row where Q's took the new crc
// (traced at 1300: Q "new", R refuted; at 1550 Q skipped as above, R refuted): LOST, stripe
// 0's blocks 0, 4096 and 8192. FAILS with the witness off (a temporary switch).
#[test]
fn rs_4_3_an_old_cut_data_block_beside_a_failed_p_oss_torn_q_and_r_and_an_element_stale_fitting_q_new_is_lost(
) {
    for torn_at in [TORN_AT, 1550] {
        let s = scene_lost_bytes(
            CodeSpec::rs(4, 3),
            CUT_AT..PART_END,
            &ACKED_PART,
            &|model, n| {
                the_stale_delta_fitting_q_new_at_the_live_piece(CodeSpec::rs(4, 3), model, n)
            },
        );
        s.image(DataBlock::Old, R::Torn, true, torn_at);
        let what = format!("rs 4+3, stale element fitting Q's new piece, torn to {torn_at}");
        let lost = s.lost_after_the_open_and_a_flush(&what);
        assert_eq!(lost, [0, 4096, 8192, 0, 4096, 8192], "{what}");
    }
}

// s43c, review r42a LOW-2 (a trade, pinned: this test records it, it guards nothing). P's
// OSS failed (on record, `fail_oss`), then a write of element 2's bytes 1100..1500 whose Q
// OSS lost its running parity write (Q stale under its valid checksum; the data right), then
// a client write of element 1's 1000..1600 that reads that Q as its base (journaling the
// stale bytes' crc as the block before it) and is cut with Q torn (to 1300 or 1550) and its
// data block not written. Element 1 holds no acknowledged cached byte there (a first write:
// no cached data is read, so `verify_cache_before_delta` does not run) or holds 1000..1500
// (an overwrite: it runs, but with P erased it locates nothing). The row's right data
// encodes neither the stale base's crc nor the new piece's at Q's live piece, and
// `live_pieces_refute` names the row LOST: stripe 0's acknowledged cached blocks (0 and
// 8192; 4096 too where element 1 had cached bytes). With the witness off (a temporary
// switch, as before s42a) every block reads right: the torn Q was rewritten from the right
// data. Nothing on record tells this Q from a stale data element (P has no bytes, the lost
// write's crcs left the journal when it was durable). No WRONG either way. rs 4+3 with R
// untouched reads right (R, verified, checks the row): the trade needs every parity blind.
fn a_stale_q_read_as_the_base_of_a_cut_write(
    code: CodeSpec,
    cut_acked: std::ops::Range<usize>,
    torn_at: usize,
    q_stale: bool,
) -> Vec<usize> {
    let Start {
        tmp,
        dir,
        saved,
        after,
        older,
        cols,
        layout,
        mut model,
        id,
    } = start(code);
    let g = layout.geometry().clone();
    let at = |d: usize, o: usize| layout.file_offset(0, d, o as u64) as usize;
    for (d, range, seed) in [
        (WHOLE_DATA, 0..CUT_AT, 5),
        (CUT_DATA, cut_acked.clone(), 6),
        (STALE_DATA, CUT_AT..PART_END, 7),
    ] {
        if !range.is_empty() {
            let bytes = splitmix_bytes(seed, range.len());
            write_acked(&dir, &mut model, at(d, range.start), &bytes);
        }
    }
    let p_oss = layout.oss_of(id, 0, g.parity_pos[0].col);
    let q_oss = layout.oss_of(id, 0, g.parity_pos[1].col);
    let store = open_unsynced(&dir);
    store.fail_oss(p_oss).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &older);
    let again = splitmix_bytes(8, LOST_UNDER.len());
    write_acked(&dir, &mut model, at(STALE_DATA, LOST_UNDER.start), &again);
    let q_units = changed_slots(&older, &dir, cols, |oss, _| oss == q_oss);
    assert_eq!(q_units.len(), 1, "the lost write's Q slot: {q_units:?}");
    if q_stale {
        copy_slot_bytes(&older, &dir, &q_units[0], 0..SLOT_BYTES);
    }
    copy_tree(&dir, &saved);
    let cut_at = at(CUT_DATA, CUT_AT);
    let new = cut_bytes();
    // Beside a failed OSS its copy of the failed columns too (recovery takes a plan
    // without it as never begun).
    let records = write_the_cut(tmp.path(), &dir, &after, cut_at, &new, true);
    assert_eq!(records.len(), 4, "input, data crcs, copies, parity crcs");
    let units = changed_slots(&saved, &after, cols, |_, _| true);
    let [q_unit] = &units.iter().filter(|u| u.0 == q_oss).collect::<Vec<_>>()[..] else {
        panic!("one running parity slot of Q: {units:?}");
    };
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&saved, &dir);
    let state: exaraid_store::state::State =
        exaraid_store::superblock::read_checked(&dir.join("state"), "state").unwrap();
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    for rec in &records {
        journal.append(rec, true).unwrap();
    }
    drop(journal);
    copy_slot_bytes(&after, &dir, q_unit, CUT_AT..torn_at);
    lose_disk(&dir, p_oss);
    let what = format!(
        "{code:?}, P's OSS {p_oss} failed, Q stale {q_stale}, element 1 cached at \
         {cut_acked:?}, Q torn to {torn_at}"
    );
    let store = open_failing_unsynced(&dir, p_oss);
    let cut = cut_at..cut_at + CUT_BYTES;
    let read = |when: &str| {
        let what = format!("{what}: {when}");
        assert_blocks_read_or_lost_on_record(&store, "f", &model, cut.clone(), &new, &what)
    };
    let mut lost = read("after the open");
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    lost.extend(read("after the flush"));
    eprintln!("{what}: blocks at {lost:?} LOST");
    lost
}

#[test]
fn raid6_a_stale_q_read_as_the_base_of_a_cut_write_beside_a_failed_p_oss_is_lost_a_trade() {
    for torn_at in [TORN_AT, 1550] {
        let lost = a_stale_q_read_as_the_base_of_a_cut_write(
            CodeSpec::raid6(4),
            CUT_AT..CUT_AT,
            torn_at,
            true,
        );
        assert_eq!(lost, [0, 8192, 0, 8192], "first write, torn to {torn_at}");
        let lost = a_stale_q_read_as_the_base_of_a_cut_write(
            CodeSpec::raid6(4),
            CUT_AT..PART_END,
            torn_at,
            true,
        );
        assert_eq!(
            lost,
            [0, 4096, 8192, 0, 4096, 8192],
            "overwrite, torn to {torn_at}"
        );
    }
}

// Its twins: Q not stale (the crash beside P's failed OSS alone) loses nothing on raid6;
// rs 4+3 (R untouched by the crash) reads right with Q stale too.
#[test]
fn raid6_a_right_q_read_as_the_base_of_a_cut_write_beside_a_failed_p_oss_loses_nothing() {
    for cut_acked in [CUT_AT..CUT_AT, CUT_AT..PART_END] {
        for torn_at in [TORN_AT, 1550] {
            let lost = a_stale_q_read_as_the_base_of_a_cut_write(
                CodeSpec::raid6(4),
                cut_acked.clone(),
                torn_at,
                false,
            );
            assert!(
                lost.is_empty(),
                "{cut_acked:?}, torn to {torn_at}: {lost:?}"
            );
        }
    }
}

#[test]
fn rs_4_3_a_stale_q_read_as_the_base_of_a_cut_write_beside_a_failed_p_oss_and_a_verified_r_loses_nothing(
) {
    for cut_acked in [CUT_AT..CUT_AT, CUT_AT..PART_END] {
        for torn_at in [TORN_AT, 1550] {
            let lost = a_stale_q_read_as_the_base_of_a_cut_write(
                CodeSpec::rs(4, 3),
                cut_acked.clone(),
                torn_at,
                true,
            );
            assert!(
                lost.is_empty(),
                "{cut_acked:?}, torn to {torn_at}: {lost:?}"
            );
        }
    }
}
