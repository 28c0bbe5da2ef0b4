//! The bench's `home_witness_piece_reads` (s45c's check of the home witness pieces a
//! client write displaces, `check_displaced_home_pieces`) counts DEVICE READS: one per
//! 4 KiB block read whole, however many displaced pieces lie in it (review r52e LOW-3,
//! mended by s52g). Counted with the bench's process-wide probe, so this is the file's
//! only test (no other test in the process adds to it), as `group_commit.rs`.

mod common;
use common::*;

use std::sync::atomic::Ordering;

use exaraid_codes::CodeSpec;
use exaraid_store::bench::PROBE;
use exaraid_store::state::UnplannedReads;
use exaraid_store::WritePath;

/// The probe's home witness counters: (checked steps, checked pieces, piece reads).
fn probe() -> (u64, u64, u64) {
    (
        PROBE.home_witness_checked_steps.load(Ordering::SeqCst),
        PROBE.home_witness_checked_pieces.load(Ordering::SeqCst),
        PROBE.home_witness_piece_reads.load(Ordering::SeqCst),
    )
}

/// A 3+1 rmw store of 4 KiB elements: two small writes leave two home witness pieces in
/// element 1's one block (file bytes 4500..4700 and 5800..6000, OSS 1; each write's input
/// dropped the put's whole-block piece or nothing), then an rmw overwrite of 4600..5900
/// displaces both. Its read step holds only the write's own old bytes, so each piece
/// reaches past it and the check reads their block whole: ONE device read for TWO pieces.
/// Must hold: the probe counts 1 read (2 pieces, 1 step), as the store's own count of
/// reads outside its plans (`unplanned.witness_piece_read` on OSS 1; the cli bench
/// asserts the two equal, `store_bench_json`), the edge check takes that block (no read
/// of its own, s52e), and the write lands.
/// Why: until s52g (6aa2c582's parent) the probe was added per piece reaching past the
/// step, before the block read it shares: this scene counted 2 reads where 1 was made,
/// and the bench's witness cost of overwrites read double wherever pieces share a block.
/// Cannot fail on 61145b52 (s52g's count is in it); it fails on a count per piece.
#[test]
fn two_displaced_home_pieces_in_one_edge_block_count_one_device_read() {
    let tmp = scratch();
    let store = init(tmp.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let mut want = pattern(1, 3 * 3 * UNIT);
    store.put("f", &want).unwrap();
    store.flush().unwrap();
    for (at, seed) in [(4500usize, 2u64), (5800, 3)] {
        let bytes = pattern(seed, 200);
        store.write("f", at as u64, &bytes).unwrap();
        want[at..at + 200].copy_from_slice(&bytes);
    }
    store.flush().unwrap();
    let id = store.file_id("f").unwrap();
    assert_eq!(
        store.layout().locate(id, 4096).oss,
        1,
        "the scene: element 1 on OSS 1"
    );

    let unplanned = |store: &exaraid_store::Store| -> Vec<UnplannedReads> {
        (store.status().unwrap().oss.iter())
            .map(|o| o.unplanned)
            .collect()
    };
    let (probe_before, unplanned_before) = (probe(), unplanned(&store));
    let new = pattern(4, 1300);
    store.write("f", 4600, &new).unwrap();
    want[4600..5900].copy_from_slice(&new);
    store.flush().unwrap();
    let (steps, pieces, reads) = probe();
    let u: Vec<UnplannedReads> = (unplanned(&store).iter())
        .zip(&unplanned_before)
        .map(|(a, b)| a.since(b))
        .collect();

    assert_eq!(steps - probe_before.0, 1, "one read step checked");
    assert_eq!(pieces - probe_before.1, 2, "both displaced pieces checked");
    assert_eq!(
        reads - probe_before.2,
        1,
        "one device read for the block both pieces lie in"
    );
    let witness: Vec<u64> = u.iter().map(|u| u.witness_piece_read).collect();
    assert_eq!(witness, [0, 1, 0, 0], "the store's own count: {u:?}");
    let edge: Vec<u64> = u.iter().map(|u| u.edge_check_read).collect();
    assert_eq!(edge, [0, 0, 0, 0], "the edge check takes the block: {u:?}");
    assert_eq!(store.read("f", 0, want.len() as u64).unwrap(), want);
}
