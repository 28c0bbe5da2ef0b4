//! Session 23 (s23c), unproven path of "OPEN after session 22": "one failed column beside
//! a cut write whose two versions together leave no redundancy is proven from exactly k
//! blocks by `confirm_by_versions` (s22a)".
//!
//! The scene (WCL, raid6 and rs 4+2): data elements 0, 1 and 2 of a cache stripe cached
//! twice; the OSS of element 1 loses the second write (a stale cache element: old bytes
//! under valid checksums); then a client OVERWRITE of cached element 0 is cut by a power
//! cut at every point (its data element and its running parity blocks each old or new:
//! e.g. data and P landed, Q old, which leaves each version exactly k columns), and the
//! OSS of element 2 (acknowledged cached bytes) dies with the power cut (failed on record
//! before recovery).
//!
//! What must hold: after the open and a `flush`, every acknowledged block reads its bytes
//! or is named LOST on record (inside the overwrite's range old or new bytes), none outside
//! the stale cache stripe; the failed column's bytes are never a decode through the stale
//! column read with success.
//!
//! Clean on 9e15292 and after s23c (38 power cuts each; where the stale column is on disk the cache
//! stripe's three cached blocks are named LOST, elsewhere everything reads). Not shown:
//! that an image here reaches `confirm_by_versions` with the stale column among exactly k
//! known ones (s22a's carried-over check may refuse the row first); the path stays on the
//! unproven list, this test pins the scene.

use crate::common;
use crate::powercut;

use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};

fn overwrite_cut_beside_stale_cache_and_failed(code: CodeSpec, failed_data: usize) -> usize {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let g = layout.geometry().clone();
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(
        g.data_count() >= 4,
        "the scene: an open cache stripe of three columns"
    );

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, g.data_pos[1].col);
    let failed = vec![layout.oss_of(0, 0, g.data_pos[failed_data].col)];
    assert!(!failed.contains(&stale_oss), "the scene");
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    write(&store, 0, 3, 3 * UNIT);
    let zone_file = object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, 0, 5, 3 * UNIT);
    std::fs::write(&zone_file, &snapshot).unwrap();
    let before = before;

    // The write under test: an overwrite of cached element 0.
    cut.cut_journal_since_previous_call();
    let new = pattern(4, UNIT);
    cut.arm();
    store.write("f", 0, &new).unwrap();
    cut.last_image();
    drop(store);

    let images = cut.images();
    let mut points = 0;
    let mut lost_blocks = 0;
    for_each_power_cut(&images, |point| {
        points += 1;
        let what = format!("{code} failed {failed:?}: {}", point.what());
        let laid = top.path().join("try");
        point.lay(&laid);
        let store = open_laid(&laid, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        let lost = assert_blocks_read_or_lost_on_record(&store, "f", &before, 0..UNIT, &new, &what);
        lost_blocks += lost.len();
        let outside: Vec<usize> = (lost.into_iter())
            .filter(|&at| at >= stripe_bytes)
            .collect();
        assert!(
            outside.is_empty(),
            "{what}: acknowledged blocks at {outside:?} outside the stale cache stripe LOST"
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{code} failed {failed:?}: {} images, {points} power cuts checked",
        images.len()
    );
    points
}

#[test]
fn raid6_a_cut_overwrite_beside_a_stale_cache_element_and_a_dead_column_never_reads_wrong() {
    assert!(overwrite_cut_beside_stale_cache_and_failed(CodeSpec::raid6(4), 2) > 1);
}

#[test]
fn rs_4_2_a_cut_overwrite_beside_a_stale_cache_element_and_a_dead_column_never_reads_wrong() {
    assert!(overwrite_cut_beside_stale_cache_and_failed(CodeSpec::rs(4, 2), 2) > 1);
}
