#![allow(dead_code)]
//! Crash images of one cut write beside a disk that dies, shared by
//! `dead_disk_beside_cut_write.rs` (rmw: home stripes) and `wcl_dead_disk_beside_cut_write.rs`
//! (WCL: cache stripes). One store is saved before the cut write (`saved`) and after it ran
//! whole (`after`); a crash image is the saved store with the write left in flight in the
//! journal (a kill right after journaling its input) and each slot the write changed taken
//! from the run before (old), after (landed), or after for its checksum or its payload only.
//! The tests around it say which images must read back and which must be lost; every image
//! must read right or `DataLost`, never wrong bytes (`CutWriteScene::read_checked`).

use std::path::{Path, PathBuf};

use crate::common::*;
use exaraid_codes::CodeSpec;
use exaraid_plan::Layout;
use exaraid_store::{Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
pub const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;
/// The cut write: bytes 1000..1600 of data element `CUT_DATA` of stripe 0.
pub const CUT_AT: u64 = 1000;
pub const CUT_BYTES: usize = 600;
pub const CUT_DATA: usize = 1;
/// The data element whose OSS dies: another column of stripe 0.
pub const DEAD_DATA: usize = 0;
/// A data element of stripe 0 neither written by the cut write nor dead (its older version
/// is kept: a stale block under a valid checksum).
pub const STALE_DATA: usize = 2;

/// What a slot the cut write changed holds in a crash image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Old,
    Landed,
    /// Its new checksum, its old payload (a power loss that kept the later write only).
    ChecksumOnly,
    /// Its new payload, its old checksum (a kill between the two: the backend writes the
    /// payload first).
    PayloadOnly,
}

/// A slot of an object file: `(oss, file name, slot)`.
pub type Unit = (usize, String, usize);

/// The slots whose bytes differ between two trees of the same store (the object files of
/// `after`; one missing in `before` counts as empty).
pub fn changed_units(before: &Path, after: &Path, oss_count: usize) -> Vec<Unit> {
    let mut units = Vec::new();
    for oss in 0..oss_count {
        for name in object_names(after, oss) {
            let x = std::fs::read(object_file(before, oss, &name)).unwrap_or_default();
            let y = std::fs::read(object_file(after, oss, &name)).unwrap();
            assert_eq!(x.len(), y.len(), "{name}: the write grew no file");
            for slot in 0..x.len() / SLOT_BYTES {
                let r = slot * SLOT_BYTES..(slot + 1) * SLOT_BYTES;
                if x[r.clone()] != y[r] {
                    units.push((oss, name.clone(), slot));
                }
            }
        }
    }
    units
}

/// Copy the bytes `range` of slot `unit` from the tree `from` into `to`.
pub fn copy_slot_bytes(
    from: &Path,
    to: &Path,
    (oss, name, slot): &Unit,
    range: std::ops::Range<usize>,
) {
    let src = std::fs::read(object_file(from, *oss, name)).unwrap();
    let mut dst = std::fs::read(object_file(to, *oss, name)).unwrap();
    let at = slot * SLOT_BYTES;
    dst[at + range.start..at + range.end].copy_from_slice(&src[at + range.start..at + range.end]);
    std::fs::write(object_file(to, *oss, name), dst).unwrap();
}

/// Write `bytes` at `at` into "f" (acknowledged) and into the model.
pub fn write_acked(dir: &Path, model: &mut [u8], at: usize, bytes: &[u8]) {
    let store = open_unsynced(dir);
    store.write("f", at as u64, bytes).unwrap();
    model[at..at + bytes.len()].copy_from_slice(bytes);
    store.close().unwrap();
}

/// One store, saved before the cut write and after it, and where things are.
pub struct CutWriteScene {
    pub _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    /// The store before the cut write.
    pub saved: PathBuf,
    /// The store after the cut write ran whole.
    pub after: PathBuf,
    /// The store before the last acknowledged write of `STALE_DATA`'s element (its slot
    /// there: the same element, older bytes, a valid checksum).
    pub older: PathBuf,
    /// Every acknowledged byte of "f" before the cut write.
    pub model: Vec<u8>,
    /// The cut write's bytes, at file offset `cut_at`.
    pub new: Vec<u8>,
    pub cut_at: usize,
    /// The OSS of data element `DEAD_DATA` of stripe 0, and the file offset of its element.
    pub dead: usize,
    pub dead_at: u64,
    /// The slots the cut write changed: its data element's, then the parity ones (the
    /// running parity on WCL).
    pub data_unit: Unit,
    pub parity_units: Vec<Unit>,
    /// `STALE_DATA`'s slot (in `older`: its older version).
    pub stale_unit: Unit,
}

/// The scene on `code` over one OSS per column, on write path `path`: "f" of two stripes
/// put (`pattern(1)`), then `acknowledge(dir, older, layout, model)` writes what the test
/// needs acknowledged before the cut write (each write into `model`), copies the store to
/// `older` right before the last write of `STALE_DATA`'s element, and returns that write's
/// bytes; then the cut write (`pattern(3)` at `CUT_AT` of element `CUT_DATA`), run whole.
pub fn cut_write_scene(
    code: CodeSpec,
    path: WritePath,
    acknowledge: impl FnOnce(&Path, &Path, &Layout, &mut Vec<u8>) -> Vec<u8>,
) -> CutWriteScene {
    let cols = columns(code);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let (saved, after, older) = (
        tmp.path().join("saved"),
        tmp.path().join("after"),
        tmp.path().join("older"),
    );
    let store = init(&dir, code, cols, path);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    let dead_at = layout.file_offset(0, DEAD_DATA, 0);
    store.close().unwrap();
    let again = acknowledge(&dir, &older, &layout, &mut model);
    let stale_units = changed_units(&older, &dir, cols);
    copy_tree(&dir, &saved);

    let cut_at = layout.file_offset(0, CUT_DATA, CUT_AT) as usize;
    let new = pattern(3, CUT_BYTES);
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);

    let units = changed_units(&saved, &after, cols);
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
        "{code}: the write rewrites two parity blocks: {units:?}"
    );
    let holds_again = |u: &Unit| {
        let f = std::fs::read(object_file(&saved, u.0, &u.1)).unwrap();
        f[u.2 * SLOT_BYTES..u.2 * SLOT_BYTES + UNIT] == again[..]
    };
    let stale_unit = stale_units.into_iter().find(holds_again).unwrap();
    CutWriteScene {
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
        data_unit,
        parity_units,
        stale_unit,
    }
}

impl CutWriteScene {
    /// The crash image, before the dead disk: the saved store with the cut write in flight
    /// (its journaled input stamped `now_ns`), its data and parity slots as `blocks` says.
    pub fn lay_image(&self, blocks: [Block; 3], now_ns: u64) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.saved, &self.dir);
        leave_write_in_flight_at(&self.dir, "f", self.cut_at as u64, CUT_BYTES as u64, now_ns);
        let units = std::iter::once(&self.data_unit).chain(&self.parity_units);
        for (unit, block) in units.zip(blocks) {
            match block {
                Block::Old => {}
                Block::Landed => copy_slot_bytes(&self.after, &self.dir, unit, 0..SLOT_BYTES),
                Block::ChecksumOnly => {
                    copy_slot_bytes(&self.after, &self.dir, unit, UNIT..SLOT_BYTES)
                }
                Block::PayloadOnly => copy_slot_bytes(&self.after, &self.dir, unit, 0..UNIT),
            }
        }
    }

    /// `get` of "f": `None` when it reads `DataLost`; panics on a wrong byte (outside the
    /// cut write: the acknowledged one; inside: the old or the new one).
    pub fn read_checked(&self, store: &Store, what: &str) -> Option<Vec<u8>> {
        let got = match store.get("f") {
            Ok(got) => got,
            Err(StoreError::DataLost(_)) => return None,
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
}

/// The images whose blocks on disk prove the dead column: all old, all landed, and one
/// block of the write checksum-only where the others landed (the decode from the rest gives
/// that block's new bytes, and its new checksum confirms them).
pub fn provable() -> Vec<[Block; 3]> {
    use Block::*;
    vec![
        [Old, Old, Old],
        [Landed, Landed, Landed],
        [ChecksumOnly, Landed, Landed],
        [Landed, ChecksumOnly, Landed],
        [Landed, Landed, ChecksumOnly],
    ]
}

/// The planner's clock as the store stamps its inputs: wall time in nanoseconds.
pub fn wall_clock_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}
