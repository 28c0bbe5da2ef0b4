//! A partial-block WCL write over a cache block that rotted on disk (issue #4 F1, in the
//! cache zone): the bytes wait in a cache stripe, one of its blocks rots, and a write lands
//! in that block without covering it whole. Before, the backend verified the rest of the
//! block inside the write and refused it half-way through the plan ("checksum mismatch"),
//! and the next open kept the rotten byte (`get` returned a byte neither old nor new, exit
//! 0, scrub clean). Now the executor rebuilds the block from its cache stripe, confirms it
//! against its checksum and writes it back before the plan's first write: the write
//! succeeds and every byte reads back right.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

/// Flip byte `byte` of the payload of cache slot `slot` on `oss`.
fn flip_cache_byte(store: &Store, oss: usize, slot: usize, byte: usize) {
    assert!(byte < UNIT);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + byte] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
}

/// A cache chunk reused by a new cache stripe keeps the stale bytes of the destaged one
/// beyond the new stripe's live bytes (review s9s S9-2): one rotten block there, within the
/// code's tolerance, and a small write into that block failed ("data and parity disagree"),
/// because the rebuild gives the stale bytes as zeros and the whole block was confirmed
/// against its checksum. Only the live bytes need confirming: the write goes through,
/// wherever in the block the rot is (live byte or stale one), and every byte reads back.
fn write_over_rot_beside_stale_cache_bytes(
    code: CodeSpec,
    oss: usize,
    rot_at: usize,
    offset: usize,
    len: usize,
) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Wcl);
    let sdb = store.layout().stripe_data_bytes() as usize;
    // Cached bytes of another file keep the cache zone in use (an empty one is truncated).
    let other = pattern(6, 100);
    store.write("b", 0, &other).unwrap();
    // A stripe of "a" through the cache in two writes (a whole stripe goes home directly):
    // complete, it is destaged, and its cache chunks are free again, their bytes stale.
    let mut model = pattern(5, sdb);
    store.write("a", 0, &model[..sdb - 1]).unwrap();
    store.write("a", sdb as u64 - 1, &model[sdb - 1..]).unwrap();
    store.tick().unwrap();
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        other.len() as u64,
        "setup: only \"b\" waits in the cache"
    );
    // A new cache stripe for 100 bytes, in a reused chunk.
    let live = pattern(7, 100);
    store.write("a", 0, &live).unwrap();
    model[..live.len()].copy_from_slice(&live);
    let file = store.file_id("a").unwrap();
    let col0_oss = store.layout().locate(file, 0).oss;
    // The reused chunk: the slot of OSS `col0_oss` that starts with the live bytes.
    let path = store.superblock().oss_dirs[col0_oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    let zone = std::fs::read(&path).unwrap();
    let slots: Vec<usize> = (0..zone.len() / SLOT_BYTES)
        .filter(|&i| zone[i * SLOT_BYTES..i * SLOT_BYTES + live.len()] == live[..])
        .collect();
    assert_eq!(
        slots.len(),
        1,
        "setup: one cache slot of OSS {col0_oss} holds the live bytes"
    );
    let slot = &zone[slots[0] * SLOT_BYTES..slots[0] * SLOT_BYTES + UNIT];
    assert!(
        slot[live.len()..].iter().any(|&b| b != 0),
        "setup: the live bytes' block holds stale bytes beside them (a reused chunk)"
    );
    flip_cache_byte(&store, col0_oss, slots[0], rot_at);
    let what =
        format!("{code:?}: rot at byte {rot_at} of a reused cache block, write {offset}+{len}");

    let new = pattern(9, len);
    store
        .write("a", offset as u64, &new)
        .unwrap_or_else(|e| panic!("{what}: write failed: {e}"));
    model[offset..offset + len].copy_from_slice(&new);
    assert!(
        store.get("a").unwrap() == model,
        "{what}: get after the write"
    );
    assert_consistent(&store);
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("a").unwrap() == model, "{what}: get after reopen");
    assert_consistent(&store);
}

fn stale_cases(code: CodeSpec, oss: usize) {
    write_over_rot_beside_stale_cache_bytes(code, oss, 2000, 150, 20); // rot in a stale byte
    write_over_rot_beside_stale_cache_bytes(code, oss, 50, 150, 20); // rot in a live byte
    write_over_rot_beside_stale_cache_bytes(code, oss, 50, 40, 20); // the write over the rot
    write_over_rot_beside_stale_cache_bytes(code, oss, 2000, 95, 20); // across the live end
}

#[test]
fn raid6_wcl_small_write_into_a_reused_rotten_cache_block_succeeds() {
    stale_cases(CodeSpec::raid6(3), 5);
}

#[test]
fn raid5_wcl_small_write_into_a_reused_rotten_cache_block_succeeds() {
    stale_cases(CodeSpec::raid5(3), 4);
}

/// WCL store, 5000 bytes written (one incomplete cache stripe: every chunk is cache slot 0);
/// rot the cache byte of file byte `rot_at`; write `len` bytes at `offset`: the write
/// succeeds, `get` returns the model before and after reopening, scrub is clean.
fn write_over_cache_rot(code: CodeSpec, oss: usize, rot_at: usize, offset: usize, len: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Wcl);
    let mut model = pattern(21, 5000);
    store.write("a", 0, &model).unwrap();
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 5000);
    let file = store.file_id("a").unwrap();
    let rot_oss = store.layout().locate(file, rot_at as u64).oss;
    flip_cache_byte(&store, rot_oss, 0, rot_at % UNIT);
    let what = format!("{code:?}: cache rot at file byte {rot_at}, write {offset}+{len}");

    let new = pattern(3, len);
    store
        .write("a", offset as u64, &new)
        .unwrap_or_else(|e| panic!("{what}: write failed: {e}"));
    if model.len() < offset + len {
        model.resize(offset + len, 0);
    }
    model[offset..offset + len].copy_from_slice(&new);
    assert!(
        store.get("a").unwrap() == model,
        "{what}: get after the write"
    );
    assert_consistent(&store);
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("a").unwrap() == model, "{what}: get after reopen");
    assert_consistent(&store);
}

fn cases(code: CodeSpec, oss: usize) {
    write_over_cache_rot(code, oss, 100, 50, 20); // beside the rot, same block
    write_over_cache_rot(code, oss, 100, 90, 20); // over the rot (an overwrite in the cache)
    write_over_cache_rot(code, oss, 4196, 5000, 50); // appending into the rotten block
    write_over_cache_rot(code, oss, 4196, 4150, 10);
}

#[test]
fn raid5_wcl_partial_write_over_a_rotten_cache_block_succeeds() {
    cases(CodeSpec::raid5(3), 4);
}

#[test]
fn raid6_wcl_partial_write_over_a_rotten_cache_block_succeeds() {
    cases(CodeSpec::raid6(3), 5);
}
