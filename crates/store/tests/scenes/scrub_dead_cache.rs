//! Scrub reads the dead bytes of the cache zone too (issue #4 OPEN 6, left by s5d: "cache-zone
//! dead bytes not scrubbed"). A cache chunk a destage moved home keeps its stale bytes under
//! their checksums and is handed to later cache stripes as it is; scrub read only live cache
//! bytes, so rot there outlived every scrub, and was met only by a later write of part of
//! such a block, which nothing can rebuild (no cache stripe covers stale bytes).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

/// Flip one byte of block `block` of cache-zone slot `slot` on OSS `oss` (on disk).
fn flip_cache_byte(store: &Store, oss: usize, slot: u64, block: usize) {
    const BLOCK: usize = 4096;
    let e = store.superblock().element_bytes;
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    let slot_bytes = e + e / BLOCK * 4;
    let at = slot as usize * slot_bytes + block * BLOCK + 17;
    let mut bytes = std::fs::read(&path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn scrub_reports_and_repairs_rot_in_dead_cache_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(4), 5, WritePath::Wcl);
    // A full stripe: moved home, its cache chunks (slot 0 on every OSS, one element each)
    // free again with the stale bytes in place: dead.
    let f = pattern(1, 4 * UNIT);
    store.write("f", 0, &f).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        0,
        "moved home"
    );
    // Rot on two OSSs: beyond raid5's tolerance, were these bytes live.
    flip_cache_byte(&store, 0, 0, 0);
    flip_cache_byte(&store, 1, 0, 0);
    let report = store.scrub(false).unwrap();
    assert_eq!(
        report.dead_cache_blocks,
        vec![(0, 0, 0, false), (1, 0, 0, false)],
        "both rotten dead blocks reported (scrub read live cache bytes only before)"
    );
    assert!(
        report.corrupt_cache_elements.is_empty(),
        "no live byte is rotten"
    );
    assert_eq!(store.get("f").unwrap(), f, "the file is home, untouched");
    let repaired = store.scrub(true).unwrap();
    assert_eq!(
        repaired.dead_cache_blocks,
        vec![(0, 0, 0, true), (1, 0, 0, true)]
    );
    assert!(store.scrub(false).unwrap().dead_cache_blocks.is_empty());
    // The chunks go to the next cache stripe (g's first column lands on OSS 0's slot 0):
    // its bytes read back, and the store is clean. Unrepaired, this very write failed
    // `DataLost` ("blocks [0] fail their checksum, and the bytes rebuilt from the cache
    // stripe's parity do not match it either"; seen with the dead pass switched off).
    let g = pattern(2, 300);
    store.write("g", 100, &g).unwrap();
    assert_eq!(store.read("g", 100, 300).unwrap(), g);
    assert_eq!(store.get("f").unwrap(), f);
    assert_consistent(&store);
    assert!(store.scrub(false).unwrap().dead_cache_blocks.is_empty());
}

/// Live cache bytes beside dead ones: the dead pass neither reports nor rewrites them
/// (scrub's live pass does, from the cache stripe's parity).
#[test]
fn scrub_of_dead_cache_bytes_leaves_live_ones_to_the_live_pass() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(4), 5, WritePath::Wcl);
    let g = pattern(3, 300);
    store.write("g", 100, &g).unwrap(); // an open cache stripe: slot 0 of its OSSs
    let id = store.file_id("g").unwrap();
    let loc = store.layout().locate(id, 100);
    flip_cache_byte(&store, loc.oss, 0, 0);
    let report = store.scrub(false).unwrap();
    assert!(report.dead_cache_blocks.is_empty(), "{report:?}");
    assert_eq!(report.corrupt_cache_elements.len(), 1, "{report:?}");
    let repaired = store.scrub(true).unwrap();
    assert!(repaired.dead_cache_blocks.is_empty());
    assert!(repaired.corrupt_cache_elements.iter().all(|c| c.repaired));
    assert_eq!(store.read("g", 100, 300).unwrap(), g);
}

/// Review s8s S8-6: a write of part of a rotten DEAD cache block (a chunk the planner hands
/// to a new cache stripe with stale bytes in place) needs no scrub first. Nothing lives
/// there but the write's own bytes, so the rest of the block is zeros to the cache stripe:
/// the write rewrites it as zeros instead of rebuilding bytes nothing covers (it failed
/// `DataLost` before, naming the file's bytes "lost": the wrong cause).
#[test]
fn a_write_into_a_rotten_dead_cache_block_needs_no_scrub_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(4), 5, WritePath::Wcl);
    let f = pattern(1, 4 * UNIT);
    store.write("f", 0, &f).unwrap(); // a full stripe: home, slot 0 of every OSS dead
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0);
    for oss in 0..5 {
        flip_cache_byte(&store, oss, 0, 0);
    }
    let g = pattern(2, 300);
    store
        .write("g", 100, &g)
        .expect("a write into a dead rotten cache block");
    assert_eq!(store.read("g", 100, 300).unwrap(), g);
    assert_eq!(store.get("f").unwrap(), f);
    assert_consistent(&store);
    let report = store.scrub(false).unwrap();
    assert!(report.corrupt_cache_elements.is_empty(), "{report:?}");
    // The blocks g's cache stripe took were rewritten; the others stay rotten and listed.
    assert!(report.dead_cache_blocks.len() < 5, "{report:?}");
}

/// The same in a delayed window (the reviewer's case: the cache chunk an `online`'s settle
/// freed), on raid6: the window's write into a free chunk whose dead block is rotten.
#[test]
fn a_delayed_window_write_into_a_rotten_dead_cache_block_needs_no_scrub_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Delayed);
    let token = store.delayed_start("f").unwrap();
    let f = pattern(3, 4 * UNIT);
    store.write("f", 0, &f).unwrap(); // cached: slot 0 of the data columns' OSSs
    store.delayed_end(&token).unwrap(); // home: those chunks dead, stale bytes in place
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0);
    for oss in 0..6 {
        flip_cache_byte_if_there(&store, oss, 0, 0);
    }
    assert!(!store.scrub(false).unwrap().dead_cache_blocks.is_empty());
    let token = store.delayed_start("g").unwrap();
    let g = pattern(4, 100);
    store
        .write("g", 8192 + 100, &g)
        .expect("a window write into a dead rotten cache block");
    assert_eq!(store.read("g", 8192 + 100, 100).unwrap(), g);
    store.delayed_end(&token).unwrap();
    assert_eq!(store.read("g", 8192 + 100, 100).unwrap(), g);
    assert_eq!(
        store.read("g", 0, 8192 + 100).unwrap(),
        vec![0u8; 8192 + 100]
    );
    assert_eq!(store.get("f").unwrap(), f);
    assert_consistent(&store);
}

/// `flip_cache_byte` on an OSS whose cache zone file holds slot `slot` (a delayed window's
/// data columns land on some OSSs only).
fn flip_cache_byte_if_there(store: &Store, oss: usize, slot: u64, block: usize) {
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        flip_cache_byte(store, oss, slot, block);
    }
}
