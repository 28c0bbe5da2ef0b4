//! An acknowledged overwrite of cached bytes whose earlier cache write one OSS lost (review
//! s13r R13-1). The overwrite lands in the same open WCL cache stripe and updates its
//! running parity by a delta: it XORs out the old value it reads. That old value is the
//! stale one (the lost write's OSS holds older bytes under a valid checksum), so without a
//! check the parity encodes `new ^ lost ^ stale` while the element holds `new`; the check
//! before the next move home then "locates" the right bytes as the stale ones and replaces
//! acknowledged bytes with wrong ones (raid6), or records them lost (raid5). Every byte
//! acknowledged must read back right after the move home, and the store agree with itself.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, WritePath};

fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

/// The OSS that loses the first overwrite: it holds data column 0 of stripe 0 here.
const STALE_OSS: usize = 0;

/// The repro's scene: `put f` (64 KiB); `STALE_OSS`'s cache zone file copied; a write of
/// `lost` bytes at 0; the copy put back (that OSS lost the write: old bytes, valid
/// checksums); a write of `after` bytes at 0 (covers the lost range whole). Returns the
/// store (open) and the acknowledged bytes.
fn store_after_overwrite_of_lost_cache_write(
    dir: &Path,
    code: CodeSpec,
    oss: usize,
    (lost, after): (usize, usize),
) -> (Store, Vec<u8>) {
    let mut expected = pattern(1, 65_536);
    let store = init(dir, code, oss, WritePath::Wcl);
    store.put("f", &expected).unwrap();
    let mut write = |store: &Store, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", 0, &bytes).unwrap();
        expected[..len].copy_from_slice(&bytes);
    };
    drop(store);
    let path = cache_zone_file(dir, STALE_OSS);
    let snapshot = std::fs::read(&path).ok();
    let store = Store::open(dir).unwrap();
    write(&store, 2, lost);
    drop(store);
    match snapshot {
        Some(bytes) => std::fs::write(&path, bytes).unwrap(),
        None => std::fs::remove_file(&path).unwrap(),
    }
    let store = Store::open(dir).unwrap();
    write(&store, 3, after);
    (store, expected)
}

fn wrong_bytes(got: &[u8], expected: &[u8]) -> usize {
    got.iter().zip(expected).filter(|(a, b)| a != b).count() + got.len().abs_diff(expected.len())
}

fn assert_reads_right(store: &Store, expected: &[u8], when: &str) {
    match store.get("f") {
        Ok(got) => assert!(
            got == expected,
            "{when}: a read returned {} wrong bytes with success",
            wrong_bytes(&got, expected)
        ),
        Err(e) => panic!("{when}: the acknowledged bytes do not read: {e}"),
    }
}

#[test]
fn raid6_overwrite_of_a_lost_cache_write_reads_right_after_flush() {
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid6(4),
        6,
        (3_000, 8_192),
    );
    assert_reads_right(&store, &expected, "after the overwrite");
    store.flush().unwrap();
    assert_reads_right(&store, &expected, "after flush");
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert_consistent(&store);
}

#[test]
fn raid6_whole_stripe_overwrite_of_a_lost_cache_write_goes_home_right() {
    // The later write fills the cache stripe: it is destaged at once, through the check.
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid6(4),
        6,
        (3_000, 16_384),
    );
    assert_reads_right(&store, &expected, "after the overwrite (destaged)");
    store.flush().unwrap();
    assert_reads_right(&store, &expected, "after flush");
    assert_consistent(&store);
}

#[test]
fn raid6_scrub_repair_then_flush_keeps_the_overwrite() {
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid6(4),
        6,
        (3_000, 8_192),
    );
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{report:?}");
    assert_reads_right(&store, &expected, "after scrub --repair");
    store.flush().unwrap();
    assert_reads_right(&store, &expected, "after flush");
    assert_consistent(&store);
}

#[test]
fn raid6_overwrite_of_a_lost_cache_write_reads_right_after_reopen_and_flush() {
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid6(4),
        6,
        (3_000, 8_192),
    );
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    store.flush().unwrap();
    assert_reads_right(&store, &expected, "after reopen and flush");
    assert_consistent(&store);
}

#[test]
fn raid5_overwrite_of_a_lost_cache_write_is_not_recorded_lost() {
    // One parity cannot say which column is stale; but the overwrite covers every byte
    // of the disagreeing blocks that the lost write reached, so every acknowledged byte is
    // known: none may be recorded lost, and the move home must agree with itself.
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid5(4),
        5,
        (3_000, 8_192),
    );
    assert_reads_right(&store, &expected, "after the overwrite");
    store.flush().unwrap();
    assert_reads_right(&store, &expected, "after flush");
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert_consistent(&store);
}

#[test]
fn raid5_lost_cache_bytes_the_overwrite_leaves_are_named_lost_without_window_wording() {
    // The later write covers only part of the lost range: the rest of it cannot be told
    // (stale or lost, one parity), so it is recorded lost, by name; the overwrite's bytes
    // and every other byte read right. The read's error names a stale cache stripe, not a
    // delayed window or a failed OSS (neither exists here).
    let dir = scratch();
    let (store, expected) = store_after_overwrite_of_lost_cache_write(
        dir.path(),
        CodeSpec::raid5(4),
        5,
        (3_000, 1_000),
    );
    store.flush().ok();
    let lost: Vec<(u64, u64)> = store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    assert_eq!(
        lost,
        vec![(1_000, 3_000)],
        "only the lost write's bytes the overwrite left"
    );
    let err = store.get("f").expect_err("a read of lost bytes fails");
    let text = err.to_string();
    assert!(text.contains("running parity"), "{text}");
    assert!(
        !text.contains("delayed window") && !text.contains("OSS failed"),
        "{text}"
    );
    let read = |a: u64, n: u64| store.read("f", a, n).unwrap();
    assert_eq!(read(0, 1_000), expected[..1_000]);
    assert_eq!(read(3_000, 65_536 - 3_000), expected[3_000..]);
    assert_consistent(&store);
}
