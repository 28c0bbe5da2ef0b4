//! Scrub of hole stripes (docs/store.md "Bit rot in never-written blocks", left open in
//! session 4): stripes a file never wrote whose slots hold bytes on disk can rot like any
//! other (a copy that filled the holes, a zone file rewritten whole). Reads take them as
//! zeros by record, so the rot was harmless but piled up unseen: scrub visited only the
//! stripes of a file's written runs. Now scrub also visits the never-written stripes whose
//! slots hold bytes on some OSS (`Backend::allocated_slots`, SEEK_DATA/SEEK_HOLE), reports
//! their rot and `--repair` rewrites it as zeros; the holes of a sparse file (no bytes on
//! disk) are still never visited.

use crate::common;
use common::*;

use exaraid_codes::{Cell, CodeSpec, Pos};
use exaraid_store::{Store, WritePath};
use std::os::unix::fs::FileExt;

const BLOCK: usize = 4096;
/// raid5 3+1 with the 4 KiB unit: one block row per stripe, 12 KiB of data a stripe.
const STRIPE_BYTES: usize = 3 * UNIT;

/// Flip one byte of block 0 of the home element at `pos` of `stripe` of file `name`, in
/// place: only that file-system block gets bytes on disk (the rest stays a hole).
fn flip_in_place(store: &Store, name: &str, stripe: u64, pos: Pos) {
    let id = store.file_id(name).unwrap();
    let layout = store.layout();
    let e = store.superblock().element_bytes;
    let zone = match layout.geometry().cell(pos) {
        Cell::Data(_) => "data",
        Cell::Parity(_) => "parity",
        Cell::Empty => panic!("{pos:?} holds no element"),
    };
    let oss = layout.oss_of(id, stripe, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.{zone}"));
    let slot = layout.home_addr(stripe, pos, 0) / e as u64;
    let slot_bytes = (e + e / BLOCK * 4) as u64;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false) // rot in place: the slots around it stay
        .open(&path)
        .unwrap();
    if f.metadata().unwrap().len() < (slot + 1) * slot_bytes {
        // Sparse, as a later write of a slot further out leaves it.
        f.set_len((slot + 1) * slot_bytes).unwrap();
    }
    let at = slot * slot_bytes + 777;
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x10], at).unwrap();
    f.sync_all().unwrap();
}

/// `f` with stripes `written` written (and the stripes between them holes).
fn store_with(dir: &std::path::Path, written: &[u64]) -> (Store, Vec<u8>) {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let last = *written.iter().max().unwrap() as usize;
    let mut want = vec![0u8; (last + 1) * STRIPE_BYTES];
    for &stripe in written {
        let s = stripe as usize;
        let bytes = pattern(stripe + 1, STRIPE_BYTES);
        store.write("f", (s * STRIPE_BYTES) as u64, &bytes).unwrap();
        want[s * STRIPE_BYTES..(s + 1) * STRIPE_BYTES].copy_from_slice(&bytes);
    }
    (store, want)
}

/// Rot in a data block of hole stripe 1 and in the parity of hole stripe 2 (written
/// stripes 0 and 3): scrub reports both (before: 2 stripes checked, nothing found), and
/// `--repair` rewrites them (as zeros): a second scrub is clean, reads unchanged.
#[test]
fn scrub_reports_rot_in_hole_stripes_and_repair_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, want) = store_with(dir.path(), &[0, 3]);
    let g = store.layout().geometry().clone();
    flip_in_place(&store, "f", 1, g.data_pos[0]);
    flip_in_place(&store, "f", 2, g.parity_pos[0]);
    assert_eq!(store.get("f").unwrap(), want, "reads take holes as zeros");

    let report = store.scrub(false).unwrap();
    let found: Vec<(u64, String)> = report
        .corrupt_elements
        .iter()
        .map(|c| (c.stripe, c.zone.clone()))
        .collect();
    assert_eq!(
        found,
        vec![(1, "data".to_string()), (2, "parity".to_string())],
        "{report:?}"
    );
    assert_eq!(report.stripes_checked, 4);

    let repaired = store.scrub(true).unwrap();
    assert_eq!(repaired.corrupt_elements.len(), 2);
    assert!(repaired.unrepairable.is_empty(), "{repaired:?}");
    let after = store.scrub(false).unwrap();
    assert!(
        after.corrupt_elements.is_empty() && after.parity_mismatches.is_empty(),
        "{after:?}"
    );
    assert_eq!(store.get("f").unwrap(), want);
    // And a write into the repaired hole finds its row clean (its old bytes: zeros).
    let w = pattern(77, 100);
    store.write("f", STRIPE_BYTES as u64 + 50, &w).unwrap();
    let mut want = want;
    want[STRIPE_BYTES + 50..STRIPE_BYTES + 150].copy_from_slice(&w);
    assert_eq!(store.get("f").unwrap(), want);
    assert_consistent(&store);
}

/// Only slots with bytes on disk: a file written at stripe 0 and 100,000 stripes further
/// (a 1.2 GB hole) is scrubbed in its two written stripes plus the hole stripe whose slot
/// got a flipped byte (and at most its neighbour), never the hole's other stripes. Before,
/// it checked 2 and did not see the rot.
#[test]
fn scrub_visits_no_hole_stripe_without_bytes_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let far = 100_000u64;
    store.write("f", 0, &pattern(1, STRIPE_BYTES)).unwrap();
    store
        .write("f", far * STRIPE_BYTES as u64, &pattern(2, STRIPE_BYTES))
        .unwrap();
    assert_eq!(store.scrub(false).unwrap().stripes_checked, 2);
    let g = store.layout().geometry().clone();
    flip_in_place(&store, "f", 5_000, g.data_pos[1]);
    let report = store.scrub(false).unwrap();
    // The flipped byte's file-system block may hold the next slot's first bytes too (a
    // 4 KiB unit's slot is 4100 bytes): that stripe has bytes on disk as well.
    assert!(
        (3..=4).contains(&report.stripes_checked),
        "the two written stripes and the rotten hole's, not 100,001: {report:?}"
    );
    assert_eq!(report.corrupt_elements.len(), 1);
    assert_eq!(report.corrupt_elements[0].stripe, 5_000);
    store.scrub(true).unwrap();
    assert!(store.scrub(false).unwrap().corrupt_elements.is_empty());
}
