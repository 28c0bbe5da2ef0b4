//! A partial-block write over a block that rotted on disk (issue #4, finding F1). The
//! read-modify-write reads the old bytes first; the rotten block fails its checksum and is
//! rebuilt from parity. The write that follows must then succeed, and leave the block whole:
//! before, the partial-block write verified the rotten edge block, failed half-way through
//! the plan, and the next open kept the rotten byte under a fresh checksum (`get` returned a
//! byte that was neither old nor new with exit 0, and scrub found nothing).

mod common;
use common::*;

use exaraid_codes::{Cell, CodeSpec, Pos};
use exaraid_store::{Store, WritePath};

const BLOCK: usize = 4096;

/// Flip byte `at_bytes` of checksum block 0 of the stripe-0 element at `pos` of file `name`,
/// in its OSS's zone file (payload only: the block then fails its crc32c).
fn flip(store: &Store, name: &str, pos: Pos, at_bytes: usize) {
    assert!(at_bytes < BLOCK);
    let id = store.file_id(name).unwrap();
    let layout = store.layout();
    let e = store.superblock().element_bytes;
    let zone = match layout.geometry().cell(pos) {
        Cell::Data(_) => "data",
        Cell::Parity(_) => "parity",
        Cell::Empty => panic!("{pos:?} holds no element"),
    };
    let oss = layout.oss_of(id, 0, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.{zone}"));
    let slot = layout.home_addr(0, pos, 0) / e as u64;
    let slot_bytes = e + e / BLOCK * 4;
    let at = slot as usize * slot_bytes + at_bytes;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
}

/// Which element rots: the first data element of stripe 0 (file bytes 0..UNIT on these
/// one-row codes) or its first parity element.
#[derive(Clone, Copy, Debug)]
enum Rot {
    Data,
    Parity,
}

/// put, rot byte 30 of block 0 of an element, write `len` bytes at `offset`: the write
/// succeeds, `get` returns the model before and after reopening, and scrub is clean.
fn write_over_rot(code: CodeSpec, oss: usize, rot: Rot, offset: usize, len: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Rmw);
    let mut model = pattern(7, 3 * UNIT);
    store.put("f", &model).unwrap();
    let geometry = store.layout().geometry().clone();
    let pos = match rot {
        Rot::Data => geometry.data_pos[0],
        Rot::Parity => geometry.parity_pos[0],
    };
    flip(&store, "f", pos, 30);
    assert_eq!(
        store.scrub(false).unwrap().corrupt_elements.len(),
        1,
        "the flip must land in a checksummed block"
    );

    let new = pattern(8, len);
    let what = format!("{rot:?} rot, write {offset}..{}", offset + len);
    store
        .write("f", offset as u64, &new)
        .unwrap_or_else(|e| panic!("{what}: write failed: {e}"));
    model[offset..offset + len].copy_from_slice(&new);
    assert!(
        store.get("f").unwrap() == model,
        "{what}: get after the write"
    );
    assert_consistent(&store);
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("f").unwrap() == model, "{what}: get after reopen");
    assert_consistent(&store);
}

/// Every case for one code: the write covers the rotten byte, shares only its block, or
/// rewrites a data element whose parity block rotted.
fn all_cases(code: CodeSpec, oss: usize) {
    write_over_rot(code.clone(), oss, Rot::Data, 0, 50);
    write_over_rot(code.clone(), oss, Rot::Data, 100, 50);
    write_over_rot(code.clone(), oss, Rot::Data, 4000, 200); // the rotten block and the next element
    write_over_rot(code, oss, Rot::Parity, 0, 50);
}

#[test]
fn raid5_rmw_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    all_cases(CodeSpec::raid5(4), 5);
}

#[test]
fn raid6_rmw_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    all_cases(CodeSpec::raid6(4), 6);
}

/// raid6 with 3 data columns: a write inside one element takes the reconstruct-write path
/// (2 reads of the other data elements instead of 3: old data, P, Q), so the rotten element
/// is never read before its partial-block write, and the read-step repair does not reach it.
#[test]
#[ignore = "known bug (issue #4 F1, reconstruct-write): the partial-block write verifies the unread rotten edge block and fails mid-plan"]
fn raid6_k3_reconstruct_write_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    write_over_rot(CodeSpec::raid6(3), 5, Rot::Data, 0, 50);
}

#[test]
fn rs_4_2_rmw_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    all_cases(CodeSpec::rs(4, 2), 6);
}
