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
/// so (1) the block is read whole before the first write (`heal_unread_edge_blocks`: a
/// rotten rest of it would fail the backend's merge half way through the plan), and (2)
/// the put left home witness pieces (s45c) over those bytes, and the read step holds only
/// part of the piece it overlaps, so the piece is read again whole to check its crc. One
/// read of each kind, on OSS 1 alone.
#[test]
fn a_partial_block_write_s_edge_check_and_witness_piece_reads_are_counted_beside_the_plans_ops() {
    let tmp = scratch();
    let store = store_with_file(tmp.path(), WritePath::Rmw);
    let before = counts(&store);
    store.write("f", 5000, &pattern(2, 1000)).unwrap();
    store.flush().unwrap();
    let u = unplanned_since(&before, &counts(&store));
    let edge: Vec<u64> = u.iter().map(|u| u.edge_check_read).collect();
    assert_eq!(edge, [0, 1, 0, 0], "{u:?}");
    let witness: Vec<u64> = u.iter().map(|u| u.witness_piece_read).collect();
    assert_eq!(witness, [0, 1, 0, 0], "{u:?}");
    assert_eq!(u.iter().map(|u| u.window_old_read).sum::<u64>(), 0, "{u:?}");
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
