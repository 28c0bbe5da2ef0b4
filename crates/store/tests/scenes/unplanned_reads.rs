//! Device reads the store makes outside its plans' steps are counted, per OSS and kind, in
//! `status`'s `unplanned` (`UnplannedReads`, session 51, task s51d), beside the plan steps'
//! `ops` and never in them. Each test makes one kind of read happen on a 4 KiB-element
//! store, sees it counted on the OSS it read, and sees the plan steps' counts still equal
//! the executed plans' own (`plan_op_counts`): the bench compares those with the planner's,
//! so an unplanned read counted into `ops` would make every partial write's counts "false".
//! Why: before, these reads were made and shown nowhere, and a comparison of write paths by
//! the bench's op counts missed what a partial write pays the devices.

use crate::common::*;
use exaraid_codes::CodeSpec;
use exaraid_plan::OpCounts;
use exaraid_store::state::{OssOps, UnplannedReads};
use exaraid_store::{Store, WritePath};

/// Per OSS: the plan steps' counts (`status`), the reads outside the plans (`status`), and
/// the executed plans' own counts (`plan_op_counts`).
type Counts = (Vec<OssOps>, Vec<UnplannedReads>, Vec<OpCounts>);

fn counts(store: &Store) -> Counts {
    let st = store.status().unwrap();
    (
        st.oss.iter().map(|o| o.ops).collect(),
        st.oss.iter().map(|o| o.unplanned).collect(),
        store.plan_op_counts(),
    )
}

/// What ran between `before` and `after`: the reads outside the plans per OSS, after
/// asserting that the plan steps counted in `ops` are exactly the executed plans' steps.
fn unplanned_since(before: &Counts, after: &Counts) -> Vec<UnplannedReads> {
    for oss in 0..after.0.len() {
        let (a, b) = (&after.0[oss], &before.0[oss]);
        let plan = OssOps::from(&after.2[oss]).since(&OssOps::from(&before.2[oss]));
        assert_eq!(
            a.since(b),
            plan,
            "OSS {oss}: ops are the plans' steps alone"
        );
    }
    (after.1.iter().zip(&before.1))
        .map(|(a, b)| a.since(b))
        .collect()
}

/// A 3+1 store of `path` holding one file over 3 stripes, flushed.
fn store_with_file(dir: &std::path::Path, path: WritePath) -> Store {
    let store = init(dir, CodeSpec::raid5(3), 4, path);
    store.put("f", &pattern(1, 3 * 3 * UNIT)).unwrap();
    store.flush().unwrap();
    store
}

/// An rmw write of 1000 bytes inside one 4 KiB block (file bytes 5000..6000: element 1,
/// OSS 1) over bytes the file's put wrote. Its plan reads only the write's own old bytes,
/// so (1) the block must be read whole before the first write (`heal_unread_edge_blocks`:
/// a rotten rest of it would fail the backend's merge half way through the plan), and (2)
/// the put left home witness pieces (s45c) over those bytes, and the read step holds only
/// part of the piece it overlaps, so the piece's block is read to check its crc. Since
/// session 52 (s52e) the witness check reads the block whole and the edge check takes
/// those verified bytes: one read on OSS 1 alone, counted as the witness's (s51d counted
/// one of each kind: the same block read twice).
#[test]
fn a_partial_block_write_s_edge_check_and_witness_piece_reads_are_counted_beside_the_plans_ops() {
    let tmp = scratch();
    let store = store_with_file(tmp.path(), WritePath::Rmw);
    let before = counts(&store);
    store.write("f", 5000, &pattern(2, 1000)).unwrap();
    store.flush().unwrap();
    let u = unplanned_since(&before, &counts(&store));
    let edge: Vec<u64> = u.iter().map(|u| u.edge_check_read).collect();
    assert_eq!(edge, [0, 0, 0, 0], "{u:?}");
    let witness: Vec<u64> = u.iter().map(|u| u.witness_piece_read).collect();
    assert_eq!(witness, [0, 1, 0, 0], "{u:?}");
    assert_eq!(u.iter().map(|u| u.window_old_read).sum::<u64>(), 0, "{u:?}");
}

/// An rmw overwrite of file bytes 5000..9000 on a 3+1 store of 4 KiB elements (one block
/// each): two partial edge blocks, element 1's (OSS 1, kept 4096..5000) and element 2's
/// (OSS 2, kept 9000..12288), both under the put's home witness pieces. Each edge block is
/// read from its device ONCE outside the plan (task s52e): s45c's witness check and the
/// edge check before the first write need the same verified bytes of the same block, and
/// on 6ec697f1 each read it (edge check 1 + witness 1 on OSS 1 and on OSS 2). The check
/// still runs on those bytes: the write lands and every byte reads back as written.
#[test]
fn s52e_an_rmw_overwrite_reads_each_partial_edge_block_once_outside_its_plan() {
    let tmp = scratch();
    let store = store_with_file(tmp.path(), WritePath::Rmw);
    let before = counts(&store);
    let new = pattern(2, 4000);
    store.write("f", 5000, &new).unwrap();
    store.flush().unwrap();
    let u = unplanned_since(&before, &counts(&store));
    // Reads of an edge block outside the plan, per OSS: the edge check's and the witness's.
    let edge_block_reads: Vec<u64> = (u.iter())
        .map(|u| u.edge_check_read + u.witness_piece_read)
        .collect();
    assert_eq!(
        edge_block_reads,
        [0, 1, 1, 0],
        "one read per edge block: {u:?}"
    );
    assert_eq!(u.iter().map(|u| u.total()).sum::<u64>(), 2, "{u:?}");
    let mut want = pattern(1, 3 * 3 * UNIT);
    want[5000..9000].copy_from_slice(&new);
    assert_eq!(store.read("f", 0, want.len() as u64).unwrap(), want);
    assert_consistent(&store);
}

/// A stale edge block is still caught with the shared read (task s52e): OSS 1 loses the
/// write of file bytes 5000..6000 (its data zone file put back: old bytes under valid
/// checksums), then an rmw overwrites 5000..5500, part of that block. The witness check
/// reads the block, finds the lost write's piece stale, rebuilds the block from parity and
/// writes it back before the delta (s45c); a block rewritten so is not handed to the edge
/// check (its bytes read before are no longer on disk): the edge check reads it again.
/// Every acknowledged byte reads right and the stripe agrees with itself.
#[test]
fn s52e_a_lost_write_on_an_rmw_overwrite_s_edge_block_is_still_caught() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = store_with_file(&dir, WritePath::Rmw);
    let mut acked = pattern(1, 3 * 3 * UNIT);
    let id = store.file_id("f").unwrap();
    let victim = store.layout().locate(id, 5000).oss;
    assert_eq!(victim, 1, "the scene: element 1 on OSS 1");
    let zone_file = object_file(&dir, victim, &format!("{id}.data"));
    let before_lost = std::fs::read(&zone_file).unwrap();
    let lost = pattern(2, 1000);
    store.write("f", 5000, &lost).unwrap();
    acked[5000..6000].copy_from_slice(&lost);
    store.close().unwrap();
    std::fs::write(&zone_file, &before_lost).unwrap();

    let store = Store::open(&dir).unwrap();
    let before = counts(&store);
    let after = pattern(3, 500);
    store.write("f", 5000, &after).unwrap();
    acked[5000..5500].copy_from_slice(&after);
    store.flush().unwrap();
    // (Not `unplanned_since`: the rebuild from parity counts its reads in `ops`, as every
    // repair does, beside the plan's steps.)
    let now = counts(&store);
    let u: Vec<UnplannedReads> = (now.1.iter().zip(&before.1))
        .map(|(a, b)| a.since(b))
        .collect();
    // The witness check's read, then the edge check's of the block it rewrote.
    let edge: Vec<u64> = u.iter().map(|u| u.edge_check_read).collect();
    assert_eq!(edge, [0, 1, 0, 0], "the rewritten block read again: {u:?}");
    assert!(u[1].witness_piece_read >= 1, "{u:?}");
    assert!(
        store.get("f").unwrap() == acked,
        "every acknowledged byte reads right"
    );
    assert_consistent(&store);
    let report = store.scrub(false).unwrap();
    assert!(
        report.parity_mismatches.is_empty() && report.unrepairable.is_empty(),
        "{report:?}"
    );
}

/// Two delayed windows, each writing 1000 bytes inside one 4 KiB block of element 1: the
/// second window's cache block exists on disk (the first window's slot), so its old bytes
/// are read before the window write to journal the block's crcs
/// (`journal_window_block_crcs`). Counted as window reads, on OSS 1 alone, and the moves
/// home's edge blocks as the plan's own reads (in `ops`, equal to the plans').
#[test]
fn a_window_write_s_read_of_its_cache_block_s_old_bytes_is_counted_beside_the_plans_ops() {
    let tmp = scratch();
    let store = store_with_file(tmp.path(), WritePath::Delayed);
    let before = counts(&store);
    for i in 0..2u64 {
        let token = store.delayed_start("f").unwrap();
        store
            .write("f", 5000 + 10 * i, &pattern(2 + i, 1000))
            .unwrap();
        store.delayed_end(&token).unwrap();
        store.flush().unwrap();
    }
    let u = unplanned_since(&before, &counts(&store));
    let window: Vec<u64> = u.iter().map(|u| u.window_old_read).collect();
    assert_eq!(window[0] + window[2] + window[3], 0, "{u:?}");
    assert!(
        window[1] >= 1,
        "the second window's cache block read: {u:?}"
    );
    let mut want = pattern(1, 3 * 3 * UNIT);
    want[5010..6010].copy_from_slice(&pattern(3, 1000));
    want[5000..5010].copy_from_slice(&pattern(2, 10));
    assert_eq!(store.read("f", 0, want.len() as u64).unwrap(), want);
}

/// WCL writes of whole 4 KiB blocks into one cache stripe, one after another: from the
/// second on, the write's plan reads the cache stripe's running parity, and a cache data
/// block with a page cut inside (zone slots are 4096 + 4 bytes per block, so pages fall
/// inside blocks) has its old bytes read for its page-cut crcs (`page_cut_crcs`, s44d):
/// no read step and no edge check holds them (the write covers the block whole). Counted
/// as page cut reads, never in `ops`.
#[test]
fn a_wcl_write_s_page_cut_block_old_bytes_read_is_counted_beside_the_plans_ops() {
    let tmp = scratch();
    let store = init(tmp.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    store.put("f", &pattern(1, 3 * 3 * UNIT)).unwrap();
    let before = counts(&store);
    for i in 0..6u64 {
        store
            .write("f", i * UNIT as u64, &pattern(2 + i, UNIT))
            .unwrap();
    }
    store.flush().unwrap();
    let u = unplanned_since(&before, &counts(&store));
    let page_cut: u64 = u.iter().map(|u| u.page_cut_read).sum();
    assert!(page_cut >= 1, "{u:?}");
}
