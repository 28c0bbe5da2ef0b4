//! WCL raid6: a write cut by a crash that puts bytes into TWO data columns of one cache
//! stripe at the same offsets, and the disk of a third data column (acknowledged cached
//! bytes there) gone for good before the next open (issue #4 S1, the last raid6 case of
//! session 8: "two data columns in flight on raid6"). Without the write's crcs the parity
//! equations cannot tell that column: with two data columns and both parities in flight,
//! one column left the same and the dead one erased, a decode agreeing with what is on
//! disk proves nothing (`confirm_by_parity`: `same + known = 1 + 5 < 7`), so every image
//! but the all-old one was lost. With the data crcs (`Rec::WriteCrcs`) and the running
//! parity crcs (`Rec::WriteParityCrcs`) every verified block's version is known, and the
//! dead column decodes from the k = 4 blocks of one version: lost only where no version
//! has 4, never wrong.
//!
//! The crash is built as in `wcl_dead_disk_beside_cut_write.rs`: the store before the write
//! (saved) and after it, the write left in flight in the journal with its crcs, each of its
//! four cache blocks (two data, P, Q) old or landed (torn ones: that file).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec, State};
use exaraid_store::superblock::read_checked;
use exaraid_store::{StoreError, WritePath};

/// The data element whose OSS dies: its whole element is cached (acknowledged).
const DEAD_DATA: usize = 0;
/// The cut write: from byte `CUT_AT` of data element 1 to byte `CUT_AT + CUT_OVERLAP` of
/// data element 2, so that both are in flight at element bytes `CUT_AT..CUT_AT +
/// CUT_OVERLAP` (the same offsets: one block row, elements are one block here).
const CUT_AT: usize = 1000;
const CUT_OVERLAP: usize = 600;

/// Leave a write in flight with `crcs` after it, as a `kill -9` after the store journaled
/// them does (the write's blocks are laid by the caller).
fn leave_write_in_flight(dir: &Path, offset_bytes: u64, len_bytes: u64, crcs: &[Rec]) {
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    let id = state.files["f"].id;
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    let rec = Rec::Input(Input::Write {
        file: id,
        offset_bytes,
        len_bytes,
        now_ns: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
        // An older binary's input (no crcs promised), as before session 27.
        crcs_follow: false,
        home_crcs_follow: false,
    });
    journal.append(&rec, true).unwrap();
    for rec in crcs {
        journal.append(rec, true).unwrap();
    }
}

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    saved: PathBuf,
    after: PathBuf,
    /// Every acknowledged byte of "f" before the cut write.
    model: Vec<u8>,
    new: Vec<u8>,
    cut_at: usize,
    dead: usize,
    /// The journaled crcs of the cut write (data, then running parity).
    crcs: Vec<Rec>,
    /// The cache slots the cut write changed: data element 1, data element 2, P, Q.
    units: [Unit; 4],
}

fn scene() -> Scene {
    let code = CodeSpec::raid6(4);
    let cols = 6;
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after) = (tmp.path().join("saved"), tmp.path().join("after"));
    let store = init(&dir, code, cols, WritePath::Wcl);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    // Cached, acknowledged: the dead column's whole element.
    let dead_at = layout.file_offset(0, DEAD_DATA, 0) as usize;
    let dead_bytes = pattern(5, UNIT);
    store.write("f", dead_at as u64, &dead_bytes).unwrap();
    model[dead_at..dead_at + UNIT].copy_from_slice(&dead_bytes);
    store.close().unwrap();
    copy_tree(&dir, &saved);

    let cut_at = layout.file_offset(0, 1, CUT_AT as u64) as usize;
    assert_eq!(
        layout.file_offset(0, 2, 0) as usize,
        cut_at + UNIT - CUT_AT,
        "data elements 1 and 2 are adjacent in the file"
    );
    let new = pattern(3, UNIT - CUT_AT + CUT_OVERLAP);
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    let journal_copy = tmp.path().join("cut-journal");
    std::fs::copy(dir.join("journal"), &journal_copy).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let (_, records) = Journal::<Rec>::open(&journal_copy).unwrap();
    let crcs: Vec<Rec> = records
        .into_iter()
        .map(|(_, rec)| rec)
        .filter(|rec| matches!(rec, Rec::WriteCrcs(_) | Rec::WriteParityCrcs(_)))
        .collect();
    assert_eq!(crcs.len(), 2, "the write's data and running parity crcs");

    let units = changed_slots(&saved, &after, cols, |_, _| true);
    assert_eq!(
        units.len(),
        4,
        "two data and two parity cache blocks: {units:?}"
    );
    let slot = |u: &Unit| {
        let f = std::fs::read(object_file(&after, u.0, &u.1)).unwrap();
        f[u.2 * SLOT_BYTES..u.2 * SLOT_BYTES + UNIT].to_vec()
    };
    let first = units
        .iter()
        .find(|u| slot(u)[CUT_AT..] == new[..UNIT - CUT_AT])
        .unwrap()
        .clone();
    let second = units
        .iter()
        .find(|u| slot(u)[..CUT_OVERLAP] == new[UNIT - CUT_AT..])
        .unwrap()
        .clone();
    let parity: Vec<Unit> = units
        .iter()
        .filter(|u| **u != first && **u != second)
        .cloned()
        .collect();
    Scene {
        _tmp: tmp,
        dir,
        saved,
        after,
        model,
        new,
        cut_at,
        dead,
        crcs,
        units: [first, second, parity[0].clone(), parity[1].clone()],
    }
}

impl Scene {
    /// The crash image with the cut write's blocks as `blocks` says, the dead disk gone,
    /// opened with that OSS failed; `None` when "f" reads `DataLost`. Panics on a wrong
    /// byte (read block by block: one lost block must not hide a wrong one beside it).
    fn lost(&self, blocks: [Block; 4]) -> bool {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.saved, &self.dir);
        leave_write_in_flight(
            &self.dir,
            self.cut_at as u64,
            self.new.len() as u64,
            &self.crcs,
        );
        for (unit, block) in self.units.iter().zip(blocks) {
            lay_block(&self.after, &self.dir, unit, block);
        }
        lose_disk(&self.dir, self.dead);
        let store = open_failing_unsynced(&self.dir, self.dead);
        let cut = self.cut_at..self.cut_at + self.new.len();
        let mut lost = false;
        for at in (0..self.model.len()).step_by(4096) {
            let got = match store.read("f", at as u64, 4096) {
                Ok(got) => got,
                Err(StoreError::DataLost(_)) => {
                    lost = true;
                    continue;
                }
                Err(e) => panic!("{blocks:?}: read at {at}: {e}"),
            };
            for (j, &x) in got.iter().enumerate() {
                let i = at + j;
                let ok = x == self.model[i] || (cut.contains(&i) && x == self.new[i - cut.start]);
                assert!(
                    ok,
                    "{blocks:?}: WRONG byte {i}: {x:#04x}, was {:#04x}",
                    self.model[i]
                );
            }
        }
        lost
    }
}

/// Does the image `[data 1, data 2, P, Q]` (each old or landed) leave 4 blocks of one
/// version: data element 3 (never written by this cache stripe: zeros in both), both data
/// blocks in the old version (a first write: the stripe before held zeros there) and a
/// landed one in the new, and each parity block in its own?
fn provable([d1, d2, p, q]: [Block; 4]) -> bool {
    let landed = |b: Block| usize::from(b == Block::Landed);
    let old = 1 + 2 + (2 - landed(p) - landed(q));
    let new = 1 + landed(d1) + landed(d2) + landed(p) + landed(q);
    old >= 4 || new >= 4
}

#[test]
fn wcl_raid6_two_data_columns_of_a_cut_write_beside_a_dead_disk_lose_only_what_no_version_tells() {
    use Block::*;
    let s = scene();
    let mut lost = Vec::new();
    let mut provable_count = 0;
    for d1 in [Old, Landed] {
        for d2 in [Old, Landed] {
            for p in [Old, Landed] {
                for q in [Old, Landed] {
                    let blocks = [d1, d2, p, q];
                    if s.lost(blocks) {
                        lost.push(blocks);
                    }
                    provable_count += usize::from(provable(blocks));
                    assert_eq!(
                        lost.contains(&blocks),
                        !provable(blocks),
                        "write blocks {blocks:?}: lost? (lost so far: {lost:?})"
                    );
                }
            }
        }
    }
    // Only the image with both data blocks old and both parity blocks landed tells nothing.
    assert_eq!((lost.len(), provable_count), (1, 15), "{lost:?}");
}
