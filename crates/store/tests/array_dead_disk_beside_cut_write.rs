//! Array codes (X-code, D-code: a column is many symbols), a write killed by a crash, and
//! one disk gone for good before the next open (`store fail`). The cut write's range must
//! read each byte old or new, every other acknowledged byte as written, or `DataLost`
//! naming it; never other bytes.
//!
//! Review s8r R8-7 found WRONG bytes there with exit 0 on main e011ac0 (a block of the dead
//! column the cut write had written whole, decoded through elements of both versions;
//! `scripts/repro/repro-xcode-dead-torn.py`, about 1 try in 2; 0 of 8 with the fix in
//! recovery.rs `reads_one_version`). These images do NOT reproduce it: they pass with that
//! fix reverted too (the reviewer's state needs a partial element beside the dead one,
//! written by a parallel block write; not found in time). What they check is the property
//! over many other cut images of array codes, which no test covered before.
//!
//! The crash images: the write left in flight in the journal, each slot it changed taken
//! from the run before it (old) or after it (landed), in half of them one slot cut between
//! payload and checksums, drawn with a fixed seed; every OSS in turn is the dead one.

mod common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{StoreError, WritePath};

/// Crash images per dead OSS (each one store copied and recovered).
const IMAGES_PER_DEAD_OSS: usize = 8;

#[derive(Clone, Copy, Debug)]
enum Slot {
    Old,
    Landed,
    ChecksumOnly,
    PayloadOnly,
}

/// A small deterministic generator (xorshift64*): the images are the same on every run.
struct Draw(u64);
impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Each slot old or landed (the write's block writes run in parallel: any subset may
    /// have landed), and in half the images one of them cut between payload and checksums.
    /// More torn slots leave more columns erased than the code tolerates: nothing to decode.
    fn image(&mut self, slots: usize) -> Vec<Slot> {
        let mut image: Vec<Slot> = (0..slots)
            .map(|_| {
                if self.next() >> 63 == 0 {
                    Slot::Old
                } else {
                    Slot::Landed
                }
            })
            .collect();
        let torn = self.next();
        if torn >> 63 == 1 {
            let at = (torn % slots as u64) as usize;
            image[at] = if torn >> 62 & 1 == 0 {
                Slot::ChecksumOnly
            } else {
                Slot::PayloadOnly
            };
        }
        image
    }
}

/// Every crash image drawn for `code` over `oss_count` OSSs; returns the counts of 4 KiB
/// blocks lost and read.
/// Panics on a wrong byte.
fn never_wrong(code: CodeSpec, oss_count: usize) -> (usize, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let (saved, after) = (tmp.path().join("saved"), tmp.path().join("after"));
    let store = init(&dir, code, oss_count, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    // Acknowledged writes after the put, as in the reviewer's scene.
    for (seed, at) in [(5u64, 700usize), (6, sdb + 3000)] {
        let bytes = pattern(seed, 5000);
        store.write("f", at as u64, &bytes).unwrap();
        model[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    store.close().unwrap();
    copy_tree(&dir, &saved);
    // The cut write: unaligned, across three data elements of stripe 0.
    let cut_at = 2 * UNIT + 3000;
    let new = pattern(3, 2 * UNIT + 700);
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let units = changed_slots(&saved, &after, oss_count, |_, _| true);
    assert!(units.len() >= 4, "{code}: the cut write changed {units:?}");

    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let (mut lost, mut read) = (0, 0);
    for dead in 0..oss_count {
        for image in 0..IMAGES_PER_DEAD_OSS {
            let slots = draw.image(units.len());
            let what = format!("{code} over {oss_count}: OSS {dead} dead, image {image} {slots:?}");
            std::fs::remove_dir_all(&dir).unwrap();
            copy_tree(&saved, &dir);
            leave_write_in_flight(&dir, "f", cut_at as u64, new.len() as u64);
            for (unit, slot) in units.iter().zip(&slots) {
                match slot {
                    Slot::Old => {}
                    Slot::Landed => copy_slot_bytes(&after, &dir, unit, 0..SLOT_BYTES),
                    Slot::ChecksumOnly => copy_slot_bytes(&after, &dir, unit, UNIT..SLOT_BYTES),
                    Slot::PayloadOnly => copy_slot_bytes(&after, &dir, unit, 0..UNIT),
                }
            }
            lose_disk(&dir, dead);
            let store = open_failing_unsynced(&dir, dead);
            // Block by block: a loss elsewhere must not hide a wrong block.
            let cut = cut_at..cut_at + new.len();
            for at in (0..model.len()).step_by(UNIT) {
                let len = UNIT.min(model.len() - at);
                let got = match store.read("f", at as u64, len as u64) {
                    Ok(got) => got,
                    Err(StoreError::DataLost(_)) => {
                        lost += 1;
                        continue;
                    }
                    Err(e) => panic!("{what}: read at {at}: {e}"),
                };
                read += 1;
                let wrong = (at..at + len)
                    .filter(|&i| {
                        let x = got[i - at];
                        x != model[i] && !(cut.contains(&i) && x == new[i - cut_at])
                    })
                    .count();
                assert_eq!(
                    wrong, 0,
                    "{what}: block {at}: {wrong} bytes neither acknowledged nor the cut write's"
                );
            }
        }
    }
    (lost, read)
}

#[test]
fn xcode_a_dead_disk_beside_a_cut_write_never_reads_wrong_bytes() {
    let (lost, read) = never_wrong(CodeSpec::array(CodeKind::Xcode, 5), 6);
    // Both outcomes occur: the images test the decode, not only the refusal.
    assert!(lost > 0 && read > 0, "lost {lost}, read {read}");
}

#[test]
fn dcode_a_dead_disk_beside_a_cut_write_never_reads_wrong_bytes() {
    let (lost, read) = never_wrong(CodeSpec::array(CodeKind::Dcode, 5), 6);
    assert!(lost > 0 && read > 0, "lost {lost}, read {read}");
}
