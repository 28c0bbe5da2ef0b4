//! A settle (a flush) cut by a crash while every OSS was up, then the disk of ANOTHER data
//! column of a stripe it was writing home gone for good before the next open (`store fail`,
//! `OpenOptions::fail_down_osses_before_recovery`): review s5s S2, its remainder (issue #4
//! OPEN 1). The settle made no copy of that column (its OSS was up), so recovery must
//! decode it from a stripe whose blocks the kill left each old or new. Before the settle
//! journaled the checksums of every block it writes and of what the blocks held
//! (`Rec::SettleSums`), recovery could not tell the versions apart and recorded the dead
//! column's acknowledged bytes lost wherever the parity left did not confirm the stripe as
//! it was (raid6 and rs 4+2: 55 of the 64 images below each; raid5: all 16, with the sums
//! left unused by recovery, as on main e011ac0). Now it decodes
//! the dead column from the blocks of one version, old or new, and takes the decode only
//! where that version's checksum of the dead column confirms it: with two parities every
//! image of the cut settle's three blocks decodes (data partly new and both parities old:
//! from the old parity with the old data; a parity landed: from the new one).
//!
//! Never WRONG instead of lost: a torn parity block (half new, half old: neither version)
//! beside a landed data block and an old second parity, and a rotten data block beside a
//! half-landed stripe, leave no version with enough blocks: lost, never decoded through.
//! On raid5 (one parity) a landed data block beside the old parity cannot tell the dead
//! column (its old bytes are gone): exactly those 4 images stay lost.
//!
//! The crash is built from three runs of one store: the settle cut before its first home
//! write (a hook fails every home write: the settle's records are on record, no block
//! changed, what a kill -9 there leaves), the same settle run whole (after), and each block
//! the settle changed taken from the cut run (old), from after (landed), after for its
//! checksum only, or after for its payload only (the backend writes a block's payload,
//! then its checksum: a kill in between).

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::journal::Journal;
use exaraid_store::state::Rec;
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

/// The cached write the settle moves home: bytes 1000..1600 of data element `CUT_DATA` of
/// stripe 0.
const CUT_AT: u64 = 1000;
const CUT_BYTES: usize = 600;
const CUT_DATA: usize = 1;
/// The data element whose OSS dies: another column of stripe 0.
const DEAD_DATA: usize = 0;
/// A data element of stripe 0 the settle rewrites with the same bytes (rot goes there).
const ROT_DATA: usize = 2;

/// What a block the settle changed holds in a crash image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Old,
    Landed,
    /// Its new checksum over its old payload (not what a kill leaves; a machine crash may).
    ChecksumOnly,
    /// Its new payload under its old checksum (a kill between the two).
    PayloadOnly,
    /// Its new payload up to the middle of the cached write's range, the rest old, its old
    /// checksum (a torn write: neither version).
    Torn,
}
const IMAGES: [Block; 4] = [
    Block::Old,
    Block::Landed,
    Block::ChecksumOnly,
    Block::PayloadOnly,
];

/// Fails every home write (data and parity) once armed: the settle is cut before its first
/// home write, with its records (`SettleBegin`, the stripe's `SettleSums`) journaled.
#[derive(Default)]
struct CutSettle {
    armed: AtomicBool,
}

impl Hook for CutSettle {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache || !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        Err(BackendError::Io {
            oss: "test".into(),
            why: "injected: the settle is cut here".into(),
        })
    }
}

/// On tmpfs when there is one: the test opens many copies of a small store.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().unwrap()
}

fn unsynced() -> OpenOptions {
    OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    }
}

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// The store with the settle cut before its first home write.
    cut: PathBuf,
    /// The store after the same settle ran whole.
    after: PathBuf,
    /// Every acknowledged byte of "f" (the cached write included).
    model: Vec<u8>,
    /// The OSS of data element `DEAD_DATA` of stripe 0.
    dead: usize,
    /// The slots the settle changed: its data element, then the parity ones.
    data_unit: Unit,
    parity_units: Vec<Unit>,
    /// The slot of data element `ROT_DATA` of stripe 0.
    rot_unit: Unit,
}

fn scene(code: CodeSpec) -> Scene {
    let cols = exaraid_codes::Code::new(code).unwrap().geometry().cols;
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, cut, after) = (
        tmp.path().join("saved"),
        tmp.path().join("cut"),
        tmp.path().join("after"),
    );
    let store = init(&dir, code, cols, WritePath::Wcl);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.write("f", 0, &model).unwrap();
    store.flush().unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    // An acknowledged write waiting in the cache zone for its settle.
    let cut_at = layout.file_offset(0, CUT_DATA, CUT_AT) as usize;
    let new = pattern(3, CUT_BYTES);
    store.write("f", cut_at as u64, &new).unwrap();
    model[cut_at..cut_at + CUT_BYTES].copy_from_slice(&new);
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    store.close().unwrap();
    copy_tree(&dir, &saved);
    // (Every run opens `dir`: the superblock names its OSS directories by absolute path.)
    let store = open_unsynced(&dir);
    store.flush().unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);

    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&saved, &dir);
    let hook = Arc::new(CutSettle::default());
    let store = open_wrapped(&dir, &hook, &[], unsynced()).unwrap();
    hook.armed.store(true, Ordering::SeqCst);
    assert!(store.flush().is_err(), "{code}: the settle is cut");
    drop(store);
    copy_tree(&dir, &cut);
    // The cut settle's records: begun, not ended, the stripe's sums before its writes.
    let (_, records) = Journal::<Rec>::open(&cut.join("journal")).unwrap();
    let sums: Vec<_> = records
        .iter()
        .filter_map(|(_, r)| match r {
            Rec::SettleSums(s) => Some((s.file, s.stripe)),
            _ => None,
        })
        .collect();
    assert_eq!(sums, vec![(id, 0)], "{code}: the sums of the one stripe");
    assert!(!records.iter().any(|(_, r)| matches!(r, Rec::PlannerReset)));

    let units = changed_slots(&saved, &after, cols, |_, name| {
        name.ends_with(".data") || name.ends_with(".parity")
    });
    let holds_new = |u: &Unit| {
        let f = std::fs::read(object_file(&after, u.0, &u.1)).unwrap();
        let p = u.2 * SLOT_BYTES + CUT_AT as usize;
        f[p..p + CUT_BYTES] == new[..]
    };
    let data_unit = units.iter().find(|u| holds_new(u)).unwrap().clone();
    let parity_units: Vec<Unit> = units.iter().filter(|&u| *u != data_unit).cloned().collect();
    assert_eq!(
        parity_units.len(),
        layout.geometry().parity_pos.len(),
        "{code}: the settle rewrites the parity blocks"
    );
    let rot_pos = layout.geometry().data_pos[ROT_DATA];
    let rot_oss = layout.oss_of(id, 0, rot_pos.col);
    let rot_slot = (layout.home_addr(0, rot_pos, 0) / UNIT as u64) as usize;
    Scene {
        _tmp: tmp,
        dir,
        cut,
        after,
        model,
        dead,
        data_unit,
        parity_units,
        rot_unit: (rot_oss, format!("{id}.data"), rot_slot),
    }
}

impl Scene {
    /// The crash image: the settle cut, its blocks as `blocks` says (data, then parity),
    /// `rot` flips a bit of data element `ROT_DATA`, the dead OSS's disk gone; opened with
    /// that OSS failed (recovery finishes the settle).
    fn crash(&self, blocks: &[Block], rot: bool) -> Store {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.cut, &self.dir);
        let units = std::iter::once(&self.data_unit).chain(&self.parity_units);
        assert_eq!(blocks.len(), 1 + self.parity_units.len());
        for (unit, block) in units.zip(blocks) {
            let range = match block {
                Block::Old => continue,
                Block::Landed => 0..SLOT_BYTES,
                Block::ChecksumOnly => UNIT..SLOT_BYTES,
                Block::PayloadOnly => 0..UNIT,
                Block::Torn => 0..CUT_AT as usize + CUT_BYTES / 2,
            };
            copy_slot_bytes(&self.after, &self.dir, unit, range);
        }
        if rot {
            let (oss, name, slot) = &self.rot_unit;
            let path = object_file(&self.dir, *oss, name);
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[slot * SLOT_BYTES + 77] ^= 0x04;
            std::fs::write(&path, bytes).unwrap();
        }
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }

    /// `get` of "f": `None` when it reads `DataLost` (naming the dead OSS's bytes; then
    /// every other block must read right and every block that does not must be lost on
    /// record); panics on a wrong byte. Read right, recovery's stripe is consistent but
    /// for the dead OSS.
    fn read_checked(&self, store: &Store, what: &str) -> Option<()> {
        let got = match store.get("f") {
            Ok(got) => got,
            Err(StoreError::DataLost(msg)) => {
                let dead_at = store.layout().file_offset(0, DEAD_DATA, 0);
                assert!(msg.contains(&format!("bytes {dead_at}..")), "{what}: {msg}");
                // The settle moved acknowledged bytes only: no byte may read other bytes.
                assert_blocks_read_or_lost_on_record(store, "f", &self.model, 0..0, &[], what);
                return None;
            }
            Err(e) => panic!("{what}: get: {e}"),
        };
        assert_eq!(got.len(), self.model.len(), "{what}: length");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != self.model[i]) {
            panic!(
                "{what}: WRONG byte {i}: {:#04x}, acknowledged {:#04x}",
                got[i], self.model[i]
            );
        }
        let report = store.scrub(false).unwrap();
        assert!(report.parity_mismatches.is_empty(), "{what}: {report:?}");
        Some(())
    }
}

/// Every image of the settle's blocks (data, then each parity: old, landed, checksum only,
/// payload only); returns the lost ones.
fn images_lost(code: CodeSpec) -> Vec<Vec<Block>> {
    let s = scene(code);
    let n = 1 + s.parity_units.len();
    let mut lost = Vec::new();
    for k in 0..IMAGES.len().pow(n as u32) {
        let blocks: Vec<Block> = (0..n)
            .map(|j| IMAGES[k / IMAGES.len().pow(j as u32) % IMAGES.len()])
            .collect();
        let what = format!("{code}: OSS {} dead, settle blocks {blocks:?}", s.dead);
        let store = s.crash(&blocks, false);
        if s.read_checked(&store, &what).is_none() {
            lost.push(blocks);
        }
    }
    lost
}

#[test]
fn raid6_every_image_of_a_cut_settle_beside_a_dead_disk_reads_back() {
    let lost = images_lost(CodeSpec::raid6(4));
    assert!(
        lost.is_empty(),
        "raid6: the dead OSS's acknowledged bytes were recorded lost though one version's blocks prove them, in {} of 64 images: {lost:?}",
        lost.len()
    );
}

#[test]
fn rs_4_2_every_image_of_a_cut_settle_beside_a_dead_disk_reads_back() {
    let lost = images_lost(CodeSpec::rs(4, 2));
    assert!(
        lost.is_empty(),
        "rs 4+2: {} of 64 images lost: {lost:?}",
        lost.len()
    );
}

/// One parity: the new stripe needs the parity landed (the data's new bytes are known from
/// the cache), the old one needs the data block old; a landed data block beside the old
/// parity tells neither (the data's old bytes are gone): lost, never guessed.
#[test]
fn raid5_a_cut_settle_beside_a_dead_disk_loses_only_new_data_beside_old_parity() {
    use self::Block::*;
    let lost = images_lost(CodeSpec::raid5(4));
    let payload_new = |b: Block| matches!(b, Landed | PayloadOnly);
    let mut expected = Vec::new();
    for p in IMAGES {
        for d in IMAGES {
            if payload_new(d) && !payload_new(p) {
                expected.push(vec![d, p]);
            }
        }
    }
    assert_eq!(lost, expected, "raid5: lost images ({} of 16)", lost.len());
}

/// A parity block torn inside its payload holds neither version: beside a landed data
/// block and the other parity old, no version has enough blocks left, and the dead column
/// is lost, never decoded through the torn block.
#[test]
fn raid6_a_torn_parity_block_beside_the_dead_disk_is_never_decoded_through() {
    use self::Block::*;
    let s = scene(CodeSpec::raid6(4));
    for blocks in [[Landed, Torn, Old], [Landed, Old, Torn]] {
        let what = format!("settle blocks {blocks:?}");
        let store = s.crash(&blocks, false);
        assert!(s.read_checked(&store, &what).is_none(), "{what}: lost");
        let lost = store.status().unwrap().lost_ranges;
        assert_eq!(lost.len(), 1, "{what}: the dead column's block: {lost:?}");
    }
    // With the other parity landed, the new version is whole but for the torn block.
    let store = s.crash(&[Landed, Torn, Landed], false);
    assert!(s.read_checked(&store, "torn P, Q landed").is_some());
}

/// A rotten data block (it fails its checksum, and matches neither version's sum) beside
/// the dead column: erased too. Where the rest of one version decodes both, each is
/// confirmed by its own sum and rebuilt; where it does not (the settle half landed), lost.
#[test]
fn raid6_a_rotten_block_beside_the_dead_disk_is_rebuilt_or_lost_never_wrong() {
    use self::Block::*;
    let s = scene(CodeSpec::raid6(4));
    for blocks in [[Old, Old, Old], [Landed, Landed, Landed]] {
        let what = format!("rot, settle blocks {blocks:?}");
        let store = s.crash(&blocks, true);
        assert!(s.read_checked(&store, &what).is_some(), "{what}: rebuilt");
    }
    for blocks in [[Landed, Landed, Old], [Landed, Old, Old]] {
        let what = format!("rot, settle blocks {blocks:?}");
        let store = s.crash(&blocks, true);
        assert!(s.read_checked(&store, &what).is_none(), "{what}: lost");
    }
}
