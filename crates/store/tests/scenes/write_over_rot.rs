//! A partial-block write over a block that rotted on disk (issue #4, finding F1). The
//! read-modify-write reads the old bytes first; the rotten block fails its checksum and is
//! rebuilt from parity. The write that follows must then succeed, and leave the block whole:
//! before, the partial-block write verified the rotten edge block, failed half-way through
//! the plan, and the next open kept the rotten byte under a fresh checksum (`get` returned a
//! byte that was neither old nor new with exit 0, and scrub found nothing).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const BLOCK: usize = 4096;

/// Which element rots: the first data element of stripe 0 (file bytes 0..unit) or the
/// first parity element whose equation holds it.
#[derive(Clone, Copy, Debug)]
enum Rot {
    Data,
    Parity,
}

/// put, rot byte 30 of block 0 of an element, write `len` bytes at `offset`: the write
/// succeeds, `get` returns the model before and after reopening, and scrub is clean.
fn write_over_rot(code: CodeSpec, oss: usize, rot: Rot, offset: usize, len: usize) {
    write_over_rot_in(code, oss, UNIT, rot, &[(0, 30)], offset, len);
}

/// `write_over_rot` with stripe unit `unit_bytes`, rotting byte `at` of checksum block
/// `block` of the element for each `(block, at)` of `rots`.
fn write_over_rot_in(
    code: CodeSpec,
    oss: usize,
    unit_bytes: usize,
    rot: Rot,
    rots: &[(usize, usize)],
    offset: usize,
    len: usize,
) {
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), oss, code);
    opts.element_bytes = unit_bytes;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(dir.path(), &opts).unwrap();
    let mut model = pattern(7, 20 * unit_bytes);
    store.put("f", &model).unwrap();
    let geometry = store.layout().geometry().clone();
    let pos = match rot {
        Rot::Data => geometry.data_pos[0],
        // A parity the write changes (on array codes not every parity covers data 0).
        Rot::Parity => geometry.parity_pos[geometry.data_parities[0][0]],
    };
    for &(block, at) in rots {
        flip_home_byte(&store, "f", pos, block, at);
    }
    assert_eq!(
        store.scrub(false).unwrap().corrupt_elements.len(),
        1,
        "the flips must land in checksummed blocks of one element"
    );

    let new = pattern(8, len);
    let what = format!(
        "{code:?} unit {unit_bytes}: {rot:?} rot at {rots:?}, write {offset}..{}",
        offset + len
    );
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
    write_over_rot(code, oss, Rot::Data, 0, 50);
    write_over_rot(code, oss, Rot::Data, 100, 50);
    write_over_rot(code, oss, Rot::Data, 4000, 200); // the rotten block and the next element
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
fn raid6_k3_reconstruct_write_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    write_over_rot(CodeSpec::raid6(3), 5, Rot::Data, 0, 50);
}

#[test]
fn rs_4_2_rmw_partial_write_over_a_rotten_block_succeeds_and_heals_it() {
    all_cases(CodeSpec::rs(4, 2), 6);
}

/// Codes whose small writes are reconstruct-writes (the plan reads the other data elements,
/// not the one it writes into, nor the parity): the edge blocks of a partial-block write are
/// never read by the plan, so a rotten one must be found and healed before the first write
/// (issue #4 F1). Stripe unit 16 KiB, the write covers bytes 100..2*4096+300 of the first
/// data element: both edge blocks (0 and 2) partial; the rot sits in each edge block outside
/// the written bytes (then the old byte must come back), and inside them.
fn reconstruct_write_cases(code: CodeSpec, oss: usize) {
    let (offset, len) = (100, 2 * BLOCK + 200);
    for rot in [Rot::Data, Rot::Parity] {
        for rots in [
            &[(0, 30)][..],
            &[(2, 3000)],
            &[(0, 30), (2, 3000)],
            &[(0, 130)],
        ] {
            write_over_rot_in(code, oss, 4 * BLOCK, rot, rots, offset, len);
        }
    }
}

#[test]
fn raid5_k2_reconstruct_write_heals_rotten_edge_blocks_before_writing() {
    reconstruct_write_cases(CodeSpec::raid5(2), 3);
}

#[test]
fn raid6_k3_reconstruct_write_heals_rotten_edge_blocks_before_writing() {
    reconstruct_write_cases(CodeSpec::raid6(3), 5);
}

#[test]
fn rs_3_2_reconstruct_write_heals_rotten_edge_blocks_before_writing() {
    reconstruct_write_cases(CodeSpec::rs(3, 2), 5);
}

/// X-code (p = 5, 15 data elements per stripe): a write over 3 elements from byte 100 of
/// the first to byte 100 of the fourth is planned without reading the first element's block
/// 0 (both the first and the last block written are partial).
#[test]
fn xcode_partial_write_heals_rotten_edge_blocks_before_writing() {
    let code = CodeSpec::array(exaraid_codes::CodeKind::Xcode, 5);
    let unit = 4 * BLOCK;
    for rot in [Rot::Data, Rot::Parity] {
        for rots in [&[(0, 30)][..], &[(0, 30), (3, 3000)], &[(0, 130)]] {
            write_over_rot_in(code, 5, unit, rot, rots, 100, 3 * unit);
        }
    }
}
