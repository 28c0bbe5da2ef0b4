//! Bit rot in blocks the file never wrote. A file's holes (stripes, elements or 4 KiB blocks
//! no write ever touched) still have slots in the zone files (a zone file grows to its last
//! written slot), so their bytes can rot like any other. Scrub visits only the stripes of a
//! file's written runs (a sparse file costs what was written, not its size), so rot in a
//! hole stripe is never repaired and can pile up, one OSS after another, until a block row
//! holds more unreadable blocks than the code tolerates. The store knows those blocks'
//! true bytes without parity: zeros, by its own record of what the file wrote. So a block
//! never written is never an erasure: reads of a hole give zeros, and bytes written beside
//! rotten hole blocks are rebuilt as if the holes were clean.
//!
//! Found by `crates/cli/tests/cli/store_crash.rs` (`*_recovery_rebuilds_bit_rot_beside_the_
//! write_in_flight`): on a loaded machine its writer child acknowledged only a few writes
//! before each kill, stripe 2 stayed a hole, the flips of round 0 (OSS 0) survived its
//! scrub --repair there, and round 1's flips (OSS 1) made row 0 of that hole undecodable.

use crate::common;
use common::*;

use exaraid_codes::{Cell, CodeSpec, Pos};
use exaraid_store::{Store, WritePath};

const BLOCK: usize = 4096;
/// raid5 3+1 with the 4 KiB unit: one block row per stripe, 12 KiB of data a stripe.
const STRIPE_BYTES: usize = 3 * UNIT;

/// Flip one byte of block 0 of the home element at `pos` of `stripe` of file `name` in its
/// OSS's zone file. A slot past the end of the file is made first (zeros, as a later write
/// of another slot would leave it): rot needs bytes on disk to rot.
fn flip(store: &Store, name: &str, stripe: u64, pos: Pos) {
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
    let slot = (layout.home_addr(stripe, pos, 0) / e as u64) as usize;
    let slot_bytes = e + e / BLOCK * 4;
    let mut bytes = std::fs::read(&path).unwrap_or_default();
    if bytes.len() < (slot + 1) * slot_bytes {
        bytes.resize((slot + 1) * slot_bytes, 0);
    }
    bytes[slot * slot_bytes + 777] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
}

fn data(store: &Store, d: usize) -> Pos {
    store.layout().geometry().data_pos[d]
}

fn parity(store: &Store) -> Pos {
    store.layout().geometry().parity_pos[0]
}

/// Stripes 0 and 3 written, 1 and 2 holes inside the file.
fn store_with_holes(dir: &std::path::Path) -> (Store, Vec<u8>) {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let mut want = vec![0u8; 4 * STRIPE_BYTES];
    for stripe in [0, 3] {
        let bytes = pattern(stripe as u64 + 1, STRIPE_BYTES);
        store
            .write("f", (stripe * STRIPE_BYTES) as u64, &bytes)
            .unwrap();
        want[stripe * STRIPE_BYTES..(stripe + 1) * STRIPE_BYTES].copy_from_slice(&bytes);
    }
    (store, want)
}

/// A raid5 3+1 WCL store whose file `f` has only its last stripe (3) written, moved home:
/// stripes 0..3 are holes at home. Returns the store and every byte `f` reads.
fn wcl_store_with_home_tail(dir: &std::path::Path) -> (Store, Vec<u8>) {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Wcl);
    let mut want = vec![0u8; 4 * STRIPE_BYTES];
    let tail = pattern(9, STRIPE_BYTES);
    store.write("f", 3 * STRIPE_BYTES as u64, &tail).unwrap();
    want[3 * STRIPE_BYTES..].copy_from_slice(&tail);
    store.flush().unwrap();
    (store, want)
}

/// Reads of a hole stripe whose row holds rot on two OSSs (beyond raid5's tolerance) give
/// zeros: nothing was ever written there. Before: `DataLost` for bytes no write touched.
#[test]
fn a_hole_stripe_with_rot_on_two_osss_reads_as_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let (store, want) = store_with_holes(dir.path());
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, data(&store, 2));
    flip(&store, "f", 1, parity(&store));
    let hole = store.read("f", STRIPE_BYTES as u64, STRIPE_BYTES as u64);
    assert!(
        hole.as_ref().is_ok_and(|b| b.iter().all(|&x| x == 0)),
        "a hole reads as zeros: {:?}",
        hole.map(|b| b.len())
    );
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("f").unwrap() == want);
}

/// Acknowledged bytes beside rot in a block the file never wrote: row 0 of stripe 1 holds
/// a rotten never-written data block and the rotten written one. Single parity rebuilds
/// the written block, the hole block being zeros by record. Scrub --repair then rewrites
/// both (the never-written one as zeros) and the store is clean.
#[test]
fn written_bytes_beside_rot_in_a_never_written_block_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let (store, mut want) = store_with_holes(dir.path());
    // Element 2 of stripe 1 written; elements 0 and 1 never.
    let at = STRIPE_BYTES + 2 * UNIT + 100;
    let bytes = pattern(77, 1000);
    store.write("f", at as u64, &bytes).unwrap();
    want[at..at + bytes.len()].copy_from_slice(&bytes);
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, data(&store, 2));
    assert!(
        store.read("f", at as u64, bytes.len() as u64).unwrap() == bytes,
        "the written bytes are rebuilt"
    );
    assert!(store.get("f").unwrap() == want);
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{:?}", report.unrepairable);
    assert_eq!(report.corrupt_elements.len(), 2, "{report:?}");
    assert!(
        report.corrupt_elements.iter().all(|f| f.repaired),
        "{report:?}"
    );
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == want);
}

/// A partial write into a rotten never-written block, beside another rotten never-written
/// block of the same row: its read-modify-write reads the old bytes (zeros by record) and
/// succeeds. Before: `DataLost` (two unreadable blocks in the row) and the write failed.
#[test]
fn a_write_into_a_rotten_hole_beside_another_rotten_hole_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let (store, mut want) = store_with_holes(dir.path());
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, data(&store, 1));
    let at = STRIPE_BYTES + 300;
    let bytes = pattern(78, 500);
    store.write("f", at as u64, &bytes).unwrap();
    want[at..at + bytes.len()].copy_from_slice(&bytes);
    assert!(store.get("f").unwrap() == want);
    store.scrub(true).unwrap();
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == want);
}

/// WCL: acknowledged bytes 2611..12288 of stripe 0 wait in the cache zone; home stripe 0
/// was never written, and every home block of its row has rotted (the hole was never
/// scrubbed). A read of the whole stripe takes the cached bytes from the cache and bytes
/// 0..2611 (never written) as zeros; the flush that moves the cached bytes home lays them
/// over those zeros, not over a decode of the rotten row. Before: `DataLost` for both.
#[test]
fn wcl_cached_bytes_beside_a_rotten_never_written_home_row_read_and_go_home() {
    let dir = tempfile::tempdir().unwrap();
    let (store, mut want) = wcl_store_with_home_tail(dir.path());
    let (a, z) = (2611, STRIPE_BYTES);
    let bytes = pattern(10, z - a);
    store.write("f", a as u64, &bytes).unwrap();
    want[a..z].copy_from_slice(&bytes);
    for d in 0..3 {
        flip(&store, "f", 0, data(&store, d));
    }
    flip(&store, "f", 0, parity(&store));
    assert!(
        store.read("f", 0, STRIPE_BYTES as u64).unwrap() == want[..STRIPE_BYTES],
        "read beside the rotten never-written home row"
    );
    store.flush().unwrap();
    assert!(store.get("f").unwrap() == want, "after the move home");
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("f").unwrap() == want);
    assert_consistent(&store);
}

/// A write cut by a crash lands on a hole whose data block 0 rotted earlier (never
/// scrubbed: a hole), and its row's parity rotted since (on another OSS). The cut write
/// reached nothing, yet its range counts as written (journaled before it ran), so to reads
/// after recovery its rotten block was an erasure beside the rotten parity: beyond raid5's
/// tolerance, `DataLost` for bytes nobody ever acknowledged and for the zeros beside them
/// (`store_crash::recovery_after_kill_9_does_not_bless_bit_rot_on_one_oss` under load).
/// The block's bytes before the cut write are zeros by record (no earlier write touched
/// them), and the write was never acknowledged: zeros are a true outcome.
fn a_write_cut_on_a_rotten_hole_beside_rotten_parity(path: WritePath) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, path);
    let mut want = vec![0u8; 4 * STRIPE_BYTES];
    for stripe in [0, 3] {
        let bytes = pattern(stripe as u64 + 1, STRIPE_BYTES);
        store
            .write("f", (stripe * STRIPE_BYTES) as u64, &bytes)
            .unwrap();
        want[stripe * STRIPE_BYTES..(stripe + 1) * STRIPE_BYTES].copy_from_slice(&bytes);
    }
    store.flush().unwrap();
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, parity(&store));
    store.close().unwrap();
    leave_write_in_flight(dir.path(), "f", STRIPE_BYTES as u64 + 100, 20);
    let store = Store::open(dir.path()).unwrap();
    let got = store.get("f");
    assert!(
        got.as_ref().is_ok_and(|b| *b == want),
        "the cut write reached nothing: its bytes are old (zeros): {:?}",
        got.map(|b| b.len())
    );
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{report:?}");
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("f").unwrap() == want);
}

#[test]
fn rmw_a_write_cut_on_a_rotten_hole_beside_rotten_parity_leaves_zeros() {
    a_write_cut_on_a_rotten_hole_beside_rotten_parity(WritePath::Rmw);
}

#[test]
fn wcl_a_write_cut_on_a_rotten_hole_beside_rotten_parity_leaves_zeros() {
    a_write_cut_on_a_rotten_hole_beside_rotten_parity(WritePath::Wcl);
}

/// The same cut write, but the row's other rotten block holds acknowledged bytes (element
/// 2 of the stripe, written before the crash): with the cut write's block known (zeros
/// before it, never acknowledged), single parity rebuilds the acknowledged block. Before:
/// both were erasures and the acknowledged bytes were marked lost.
#[test]
fn acknowledged_bytes_beside_a_write_cut_on_a_rotten_hole_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let (store, mut want) = store_with_holes(dir.path());
    let at = STRIPE_BYTES + 2 * UNIT + 100;
    let bytes = pattern(79, 1000);
    store.write("f", at as u64, &bytes).unwrap();
    want[at..at + bytes.len()].copy_from_slice(&bytes);
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, data(&store, 2));
    store.close().unwrap();
    leave_write_in_flight(dir.path(), "f", STRIPE_BYTES as u64 + 100, 20);
    let store = Store::open(dir.path()).unwrap();
    let got = store.get("f");
    assert!(
        got.as_ref().is_ok_and(|b| *b == want),
        "acknowledged bytes rebuilt, the cut write's old (zeros): {:?}",
        got.map(|b| b.len())
    );
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{report:?}");
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == want);
}

/// WCL: acknowledged bytes 0..50 of a hole's block wait in the cache zone, then a write of
/// bytes 100..120 of the same block is cut by a crash; the block and its row's parity rot
/// at home. Recovery moves the cached bytes home: the block is whole from them, the zeros
/// the cut write's range held before it, and the never-written zeros. Before: the block
/// was lost, and the acknowledged bytes with it.
#[test]
fn wcl_acknowledged_cached_bytes_beside_a_write_cut_on_a_rotten_hole_go_home() {
    let dir = tempfile::tempdir().unwrap();
    let (store, mut want) = wcl_store_with_home_tail(dir.path());
    let at = STRIPE_BYTES;
    let cached = pattern(11, 50);
    store.write("f", at as u64, &cached).unwrap();
    want[at..at + cached.len()].copy_from_slice(&cached);
    flip(&store, "f", 1, data(&store, 0));
    flip(&store, "f", 1, parity(&store));
    drop(store); // a crash after the acknowledgement: the cached bytes stay cached
    leave_write_in_flight(dir.path(), "f", at as u64 + 100, 20);
    let store = Store::open(dir.path()).unwrap();
    let got = store.get("f");
    assert!(
        got.as_ref().is_ok_and(|b| *b == want),
        "the cached bytes went home, the cut write's bytes are old (zeros): {:?}",
        got.map(|b| b.len())
    );
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{report:?}");
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == want);
}
