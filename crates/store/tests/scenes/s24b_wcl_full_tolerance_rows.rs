//! A WCL cache stripe of a one-row code (raid6, rs 4+2) whose block rows are not all at
//! full tolerance: one 4 KiB block row has as many erased columns as the code tolerates (a
//! failed OSS and a rotten cache block, or two rotten cache blocks), another holds a stale
//! cache element (its OSS lost a write: old bytes under valid checksums).
//!
//! Why it went wrong (session 23, the lead's change): the settle's check of the cache
//! stripe against its running parity (`read_and_check_cache_stripe`) returned the WHOLE
//! cache stripe unchecked on one-row codes as soon as one block row was at full tolerance,
//! so the stale element in a row that could be checked went home unseen: `flush`, then
//! `get`, read the bytes from before the lost write with success; `scrub` saw nothing, and
//! an overwrite's check before its running-parity delta skipped it too.
//!
//! Specification: every block row that can be checked is checked as usual (a located stale
//! element goes home corrected; an unlocated row is recorded LOST and named); only the row
//! at full tolerance goes home unchecked, in degraded mode, with every acknowledged byte
//! (not lost: nothing else is left to check it with, a fault beyond the tolerance).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

const ELEMENT_BYTES: usize = 16_384;
const BLOCK_BYTES: usize = 4096;
const SLOT_BYTES: usize = ELEMENT_BYTES + ELEMENT_BYTES / BLOCK_BYTES * 4;
/// The block row of every element at full tolerance.
const FULL_ROW: usize = 0;
/// The block row of data element 1 its OSS loses a write to.
const STALE_ROW: usize = 2;

fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

/// The other column out of service in `FULL_ROW`, beside data element 0's rotten block.
#[derive(Clone, Copy, Debug)]
enum Beside {
    /// Parity P's OSS failed: every row has one erased column, so the stale row cannot be
    /// located (one equation left): LOST, named.
    FailedParityOss,
    /// Data element 1's block in that row rotten too: the stale row has both parities
    /// left and the stale element is located and corrected.
    RottenBlock,
}

struct Scene {
    dir: PathBuf,
    _top: tempfile::TempDir,
    acked: Vec<u8>,
    /// File bytes of the stale block and what they held before the lost write.
    stale: std::ops::Range<usize>,
    stale_bytes: Vec<u8>,
    failed: Vec<usize>,
    what: String,
}

/// `put f` (4 stripes); data elements 0 and 1 of stripe 0 written into the cache zone (the
/// cache stripe open); block `STALE_ROW` of element 1 written again, lost by its OSS (its
/// cache zone file put back); then, store closed, block `FULL_ROW` of element 0 rotten (one
/// byte flipped in its cache slot) and the second column of `beside`.
fn scene(code: CodeSpec, beside: Beside) -> Scene {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Wcl;
    opts.window_timeout_ms = 3_600_000;
    let layout = Store::init(&dir, &opts).unwrap().layout().clone();
    let g = layout.geometry().clone();
    assert_eq!(g.rows, 1, "the scene: a one-row code");
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let oss_of_data = |d: usize| layout.oss_of(0, 0, g.data_pos[d].col);
    let p_oss = layout.oss_of(0, 0, g.parity_pos[0].col);

    let store = open_own_dirs_unsynced(&dir, &[]).unwrap();
    let mut acked = pattern(1, 4 * stripe_bytes);
    store.put("f", &acked).unwrap();
    let write = |acked: &mut Vec<u8>, store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        acked[at..at + len].copy_from_slice(&bytes);
    };
    let zones_before: Vec<Vec<u8>> = (0..2)
        .map(|d| std::fs::read(cache_zone_file(&dir, oss_of_data(d))).unwrap_or_default())
        .collect();
    write(&mut acked, &store, 0, 3, 2 * ELEMENT_BYTES);
    let stale_oss = oss_of_data(1);
    let zone_file = cache_zone_file(&dir, stale_oss);
    let snapshot = std::fs::read(&zone_file).unwrap();
    let stale =
        ELEMENT_BYTES + STALE_ROW * BLOCK_BYTES..ELEMENT_BYTES + (STALE_ROW + 1) * BLOCK_BYTES;
    let stale_bytes = acked[stale.clone()].to_vec();
    write(&mut acked, &store, stale.start, 5, BLOCK_BYTES);
    drop(store);
    std::fs::write(&zone_file, &snapshot).unwrap();

    // The cache slot of data element d: the first slot its first cache write changed.
    let rot = |d: usize| {
        let file = cache_zone_file(&dir, oss_of_data(d));
        let mut bytes = std::fs::read(&file).unwrap();
        let before = &zones_before[d];
        let first = (0..bytes.len())
            .find(|&i| before.get(i) != Some(&bytes[i]))
            .expect("the cache write changed the zone file");
        let at = first / SLOT_BYTES * SLOT_BYTES + FULL_ROW * BLOCK_BYTES + 100;
        bytes[at] ^= 0x20;
        std::fs::write(&file, &bytes).unwrap();
    };
    rot(0);
    let failed = match beside {
        Beside::FailedParityOss => vec![p_oss],
        Beside::RottenBlock => {
            rot(1);
            Vec::new()
        }
    };
    assert!(
        stale_bytes != acked[stale.clone()],
        "the scene: the lost write changed bytes"
    );
    Scene {
        dir,
        _top: top,
        acked,
        stale,
        stale_bytes,
        failed,
        what: format!("{code}, {beside:?}"),
    }
}

/// After the flush: every acknowledged block reads its bytes or is named LOST on record;
/// nothing lost outside the stale row of the cache stripe; the stale bytes never read with
/// success. Returns the blocks lost.
fn assert_flushed_right(store: &Store, s: &Scene) -> Vec<usize> {
    let what = &s.what;
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    let lost = assert_blocks_read_or_lost_on_record(store, "f", &s.acked, 0..0, &[], what);
    let outside: Vec<usize> = (lost.iter().copied())
        .filter(|&at| at % ELEMENT_BYTES != STALE_ROW * BLOCK_BYTES || at >= 2 * ELEMENT_BYTES)
        .collect();
    assert!(
        outside.is_empty(),
        "{what}: acknowledged blocks at {outside:?} outside the stale block row LOST (the row at full tolerance goes home in degraded mode)"
    );
    if let Ok(got) = store.read("f", s.stale.start as u64, s.stale.len() as u64) {
        assert!(
            got != s.stale_bytes,
            "{what}: the stale cache element went home and read with success"
        );
    }
    lost
}

#[test]
fn flush_checks_the_rows_beside_a_row_at_full_tolerance_and_corrects_a_stale_element() {
    for code in [CodeSpec::raid6(4), CodeSpec::rs(4, 2)] {
        let s = scene(code, Beside::RottenBlock);
        let store = open_own_dirs_unsynced(&s.dir, &s.failed).unwrap();
        let lost = assert_flushed_right(&store, &s);
        // Both parities left in the stale row: located, corrected, nothing lost.
        assert!(lost.is_empty(), "{}: lost {lost:?}", s.what);
        assert!(store.get("f").unwrap() == s.acked, "{}", s.what);
        assert_consistent(&store);
        drop(store);
        let store = open_own_dirs_unsynced(&s.dir, &s.failed).unwrap();
        assert!(store.get("f").unwrap() == s.acked, "{}: reopened", s.what);
    }
}

#[test]
fn flush_with_an_oss_failed_names_a_stale_row_lost_and_takes_the_row_at_full_tolerance_home_whole()
{
    for code in [CodeSpec::raid6(4), CodeSpec::rs(4, 2)] {
        let s = scene(code, Beside::FailedParityOss);
        let store = open_own_dirs_unsynced(&s.dir, &s.failed).unwrap();
        let lost = assert_flushed_right(&store, &s);
        // One equation left in the stale row: not located, its data bytes LOST and named.
        assert!(
            lost.contains(&s.stale.start),
            "{}: the stale block is neither corrected nor named lost",
            s.what
        );
        let lost_ranges = store.status().unwrap().lost_ranges;
        assert!(
            lost_ranges
                .iter()
                .any(|l| l.window.contains("running parity disagrees")),
            "{}: the loss names the stale cache stripe: {lost_ranges:?}",
            s.what
        );
    }
}

#[test]
fn scrub_sees_and_repairs_a_stale_element_beside_a_row_at_full_tolerance() {
    for code in [CodeSpec::raid6(4), CodeSpec::rs(4, 2)] {
        let s = scene(code, Beside::RottenBlock);
        let store = open_own_dirs_unsynced(&s.dir, &s.failed).unwrap();
        let report = store.scrub(false).unwrap();
        assert!(
            report.parity_mismatches.contains(&("f".to_string(), 0)),
            "{}: the stale element beside the row at full tolerance is seen: {report:?}",
            s.what
        );
        let report = store.scrub(true).unwrap();
        assert!(
            !report.stale_repaired.is_empty(),
            "{}: the stale element is rewritten: {report:?}",
            s.what
        );
        assert_flushed_right(&store, &s);
        assert!(store.get("f").unwrap() == s.acked, "{}", s.what);
    }
}

/// An overwrite of part of the stale block before the flush: its running-parity delta
/// reads the stale bytes as the old value. The check before the delta corrects them first,
/// so the delta keeps the running parity right and the flush moves every byte home.
#[test]
fn an_overwrite_of_a_stale_element_beside_a_row_at_full_tolerance_goes_home_right() {
    for code in [CodeSpec::raid6(4), CodeSpec::rs(4, 2)] {
        let mut s = scene(code, Beside::RottenBlock);
        let store = open_own_dirs_unsynced(&s.dir, &s.failed).unwrap();
        let at = s.stale.start + 500;
        let bytes = pattern(7, 700);
        store.write("f", at as u64, &bytes).unwrap();
        s.acked[at..at + bytes.len()].copy_from_slice(&bytes);
        let lost = assert_flushed_right(&store, &s);
        assert!(lost.is_empty(), "{}: lost {lost:?}", s.what);
        assert!(store.get("f").unwrap() == s.acked, "{}", s.what);
    }
}
