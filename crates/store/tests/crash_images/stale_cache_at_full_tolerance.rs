//! A stale WCL cache element (its OSS lost a write: old bytes under valid checksums) in an
//! open cache stripe with as many of its other columns out of service as the code
//! tolerates (session 22, s22a; issue #4 OPEN 0's second half).
//!
//! Why it went wrong: the settle's check of the cache stripe against its running parity
//! (`read_and_check_cache_stripe`) erases a column on a failed OSS, and a block row with as
//! many erased columns as the code tolerates has no parity equation left: the check
//! returned the whole cache stripe unchecked, and `flush` moved the stale element home
//! (and decoded the failed columns through it): read back with success (raid6: the failed
//! data column's bytes WRONG; rs 4+3 likewise).
//!
//! What is proven there: nothing checks the cache stripe's data in such a row (its stored
//! checksums vouch only for bytes its OSS still holds, and a lost write keeps old bytes
//! under valid ones). So the settle records those rows' acknowledged cached bytes LOST,
//! named (`UNCHECKED_CACHE`), and never moves them home as if right. Rows where a column
//! is left to check with are checked as before (the stale element located or lost).
//!
//! Specification: after `flush`, every acknowledged block of the file reads its bytes or
//! is named LOST on record, none outside the stale cache stripe, and the stale element's
//! block never reads the stale bytes with success.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};

/// The columns of cache stripe 0 that fail: data columns by index, parity by index.
struct Failed {
    data: &'static [usize],
    parity: &'static [usize],
}

fn stale_element_beside_tolerance_many_failed_columns(code: CodeSpec, failed: Failed) {
    cache_stripe_beside_tolerance_many_failed_columns(code, failed, true);
}

/// The scene; `stale`: whether the stale OSS loses the second write (else no fault but the
/// failed columns).
fn cache_stripe_beside_tolerance_many_failed_columns(code: CodeSpec, failed: Failed, stale: bool) {
    images_in_plan_order();
    let (_top, dir, layout) = init_wcl_without_timeout(code);
    let g = layout.geometry().clone();
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let failed_osses: Vec<usize> = (failed.data.iter().map(|&d| g.data_pos[d].col))
        .chain(failed.parity.iter().map(|&q| g.parity_pos[q].col))
        .map(|col| layout.oss_of(0, 0, col))
        .collect();
    assert_eq!(
        failed_osses.len(),
        g.parity_pos.len(),
        "the scene: full tolerance"
    );
    let stale_data = 1;
    let stale_oss = layout.oss_of(0, 0, g.data_pos[stale_data].col);
    assert!(!failed_osses.contains(&stale_oss), "the scene");
    // Written: the stale column and every failed data column (the cache stripe open: its
    // last data column never written).
    let written_cols = 1 + failed
        .data
        .iter()
        .max()
        .copied()
        .unwrap_or(stale_data)
        .max(stale_data);
    assert!(
        written_cols < g.data_count(),
        "the scene: an open cache stripe"
    );

    let store = open_own_dirs_unsynced(&dir, &[]).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let mut write = |store: &Store, seed: u64| {
        let bytes = pattern(seed, written_cols * UNIT);
        store.write("f", 0, &bytes).unwrap();
        before[..bytes.len()].copy_from_slice(&bytes);
    };
    // Written into the cache zone twice; the stale OSS loses the second write.
    write(&store, 3);
    let zone_file = object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, 5);
    if stale {
        std::fs::write(&zone_file, &snapshot).unwrap();
    }
    let before = before;
    drop(store);

    let what = format!("{code}: OSSs {failed_osses:?} failed, OSS {stale_oss} stale");
    let store =
        open_own_dirs_unsynced(&dir, &failed_osses).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    if !stale {
        // Within the tolerance: nothing lost, every byte read.
        assert!(
            store.status().unwrap().lost_ranges.is_empty(),
            "{what}: lost"
        );
        assert!(store.get("f").unwrap() == before, "{what}: f reads whole");
        return;
    }
    let lost = assert_blocks_read_or_lost_on_record(&store, "f", &before, 0..0, &[], &what);
    let outside: Vec<usize> = lost.into_iter().filter(|&at| at >= stripe_bytes).collect();
    assert!(
        outside.is_empty(),
        "{what}: acknowledged blocks at {outside:?} outside the stale cache stripe LOST"
    );
    let stale_at = stale_data * UNIT;
    if let Ok(got) = store.read("f", stale_at as u64, UNIT as u64) {
        assert!(
            got == before[stale_at..stale_at + UNIT],
            "{what}: the stale element read with success"
        );
    }
}

/// Within the tolerance nothing is lost: the cache stripe goes home in degraded mode (s22a
/// recorded it LOST: a raid6 WCL store with two OSSs failed lost every cached byte).
#[test]
fn raid6_and_rs_4_3_a_cache_stripe_beside_tolerance_many_failed_columns_goes_home_whole() {
    let raid6 = Failed {
        data: &[0, 2],
        parity: &[],
    };
    cache_stripe_beside_tolerance_many_failed_columns(CodeSpec::raid6(4), raid6, false);
    let rs = Failed {
        data: &[0, 2],
        parity: &[0],
    };
    cache_stripe_beside_tolerance_many_failed_columns(CodeSpec::rs(4, 3), rs, false);
}

// A stale cache element beside as many failed columns as the code tolerates is a fault
// beyond the tolerance (a lost write, and the failed OSSs): since session 23 the settle
// takes such a row home in degraded mode, unchecked, so that a store at full tolerance
// loses nothing (docs/store.md, "Changed in session 23 (lead)"). These two pinned s22a's
// LOST rule there; kept, ignored, as the limit's scene.
// Passes since session 43: s43b's cache-zone witness tells the stale element by the crc of
// its lost write, kept apart from it (FAILS on d1404252, common/mod.rs:663).
#[test]
fn raid6_a_stale_cache_element_beside_two_failed_columns_is_never_moved_home_unproven() {
    let failed = Failed {
        data: &[0, 2],
        parity: &[],
    };
    stale_element_beside_tolerance_many_failed_columns(CodeSpec::raid6(4), failed);
}

// Passes since session 43: s43b's cache-zone witness tells the stale element by the crc of
// its lost write, kept apart from it (FAILS on d1404252, common/mod.rs:663).
#[test]
fn rs_4_3_a_stale_cache_element_beside_three_failed_columns_is_never_moved_home_unproven() {
    let failed = Failed {
        data: &[0, 2],
        parity: &[0],
    };
    stale_element_beside_tolerance_many_failed_columns(CodeSpec::rs(4, 3), failed);
}

// The same beside a client write into the cache stripe cut by a power cut at every point
// (recovery's check beside a cut write, `stale_beside_cut`, returned such a row unchecked
// too): common/stale_cut.rs's scene with a data and a parity column dead.
use crate::stale_cut;

// Split in session 24 (s24b) by what the journal holds. Where it holds none of the client
// write (the power cuts before it syncs its input: its first nine mutating calls are
// cache-slot reservations, its first cache write follows the sync) or all of it (its `Durable` on record), nothing is in
// flight: the flush's check of the cache stripe, every block row at full tolerance (a data
// and a parity column dead), which goes home unchecked in degraded mode, beyond the
// tolerance as above. The other power cuts leave the write cut: recovery's check beside a
// cut write (`stale_beside_cut`) decides the row, and never moves it home unproven.
// Passes since session 43: s43b's cache-zone witness tells the stale element by the crc of
// its lost write, kept apart from it (FAILS on d1404252, common/mod.rs:663).
#[test]
fn raid6_a_stale_cache_element_and_two_dead_columns_with_no_write_in_flight_after_a_power_cut_is_never_moved_home_unproven(
) {
    let points = stale_cut::power_cut_client_write_beside_stale_cache_and_failed_at(
        CodeSpec::raid6(4),
        &[0],
        &[0],
        stale_cut::Cuts::NothingInFlight,
    );
    assert!(points > 0);
}

#[test]
fn raid6_a_cut_client_write_beside_a_stale_cache_element_and_two_dead_columns_is_never_moved_home_unproven(
) {
    let points = stale_cut::power_cut_client_write_beside_stale_cache_and_failed_at(
        CodeSpec::raid6(4),
        &[0],
        &[0],
        stale_cut::Cuts::WriteInFlight,
    );
    assert!(points > 1);
}
