//! A delayed window's END over a stripe whose home data block, beside the window's bytes,
//! rotted (review s18r R18-5): one rotten block is within the code's tolerance, so END must
//! succeed, every window byte read back, and scrub be clean (it said "bytes 4096..6000 are
//! lost" though nothing was). Why it failed: the END parity, durable before the move home
//! runs, covers the window's bytes while the home data under them is still the old one; the
//! move's heal of its partial edge block decoded that stripe as it stood (old data, new
//! parity), which disagrees (docs/reviews/session18-r.md, "Root cause (s19c)").

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{StoreError, WritePath};

/// The window of most cases writes file bytes 0..6000 over stripe 0 (4 KiB unit): column 0
/// whole and bytes 0..1904 of column 1's block 0, the move's partial edge block.
const WINDOW_BYTES: usize = 6000;

/// raid6/rs/raid5 over `oss` OSSs; `write f` `first_len_bytes` at 0 (home, with parity);
/// one byte of data column `rot_col`'s home block 0 at `rot_at_bytes` flipped; a window
/// writes `0..window_bytes`; END. Returns END's result; when it succeeded, the window's
/// bytes read back exact and scrub is clean.
fn end_over_rot(
    code: CodeSpec,
    oss: usize,
    first_len_bytes: usize,
    window_bytes: usize,
    (rot_col, rot_at_bytes): (usize, usize),
) -> (tempfile::TempDir, Result<(), StoreError>, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Delayed);
    store.write("f", 0, &pattern(1, first_len_bytes)).unwrap();
    let pos = store.layout().geometry().data_pos[rot_col];
    flip_home_byte(&store, "f", pos, 0, rot_at_bytes);
    let token = store.delayed_start("f").unwrap();
    let new = pattern(2, window_bytes);
    store.write("f", 0, &new).unwrap();
    let what = format!(
        "{code}, first {first_len_bytes} B, rot at file byte {}, window 0..{window_bytes}",
        4096 * rot_col + rot_at_bytes
    );
    let ended = store.delayed_end(&token);
    if ended.is_ok() {
        let got = store.get("f").unwrap();
        assert_eq!(got.len(), window_bytes.max(first_len_bytes), "{what}: size");
        assert!(
            got[..window_bytes] == new[..],
            "{what}: window bytes after END"
        );
        assert_consistent(&store);
    }
    (dir, ended, what)
}

/// Rot past the window's bytes (file byte 8092: in the never-written rest of the block
/// when the first write was shorter than 8192 bytes, else in written bytes).
fn end_over_rot_beside_hole(code: CodeSpec, oss: usize, first_len_bytes: usize) {
    let (_dir, ended, what) = end_over_rot(code, oss, first_len_bytes, WINDOW_BYTES, (1, 3996));
    ended.unwrap_or_else(|e| panic!("{what}: END failed: {e}"));
}

#[test]
fn raid6_end_over_a_rotten_block_beside_a_hole_succeeds() {
    end_over_rot_beside_hole(CodeSpec::raid6(4), 6, 3000);
}

#[test]
fn raid6_end_over_a_rotten_block_beside_written_bytes_succeeds() {
    end_over_rot_beside_hole(CodeSpec::raid6(4), 6, 6000);
}

/// raid5 (a guard, as below); the 8192-byte first write (rot in written bytes) on raid5 and
/// rs are guards too: the END parity's read of the block heals it first.
#[test]
fn raid5_end_over_a_rotten_block_beside_the_window_succeeds() {
    end_over_rot_beside_hole(CodeSpec::raid5(4), 5, 3000);
    end_over_rot_beside_hole(CodeSpec::raid5(4), 5, 6000);
    end_over_rot_beside_hole(CodeSpec::raid5(4), 5, 8192);
}

#[test]
fn rs_4_3_end_over_a_rotten_block_beside_the_window_succeeds() {
    end_over_rot_beside_hole(CodeSpec::rs(4, 3), 7, 6000);
    end_over_rot_beside_hole(CodeSpec::rs(4, 3), 7, 8192);
}

/// Rot in the window's own bytes of the edge block (file byte 5096, which the move
/// replaces), the rest of the block never written. raid6's END parity is a reconstruct-write
/// that reads only that rest, served as zeros by the store's record without touching the
/// block, so nothing healed it; the move's heal confirms the rest by that record (the decode
/// with the moved bytes laid over gives zeros there), not by the block's checksum, which
/// covers the rotten byte.
#[test]
fn raid6_end_over_a_rotten_byte_under_the_window_beside_a_hole_succeeds() {
    let (_dir, ended, what) = end_over_rot(CodeSpec::raid6(4), 6, 3000, WINDOW_BYTES, (1, 1000));
    ended.unwrap_or_else(|e| panic!("{what}: END failed: {e}"));
}

/// raid5 (a guard: it passes without the fix too): its END parity is a read-modify-write
/// whose read of the block's old bytes under the window heals the block before the parity
/// changes.
#[test]
fn raid5_end_over_a_rotten_byte_under_the_window_beside_a_hole_succeeds() {
    for first_len_bytes in [3000, 6000] {
        let (_dir, ended, what) = end_over_rot(
            CodeSpec::raid5(4),
            5,
            first_len_bytes,
            WINDOW_BYTES,
            (1, 1000),
        );
        ended.unwrap_or_else(|e| panic!("{what}: END failed: {e}"));
    }
}

/// Rot under the window's bytes beside written ones, which the END parity never reads: rs
/// 4+3, a window inside column 2 (file bytes 10537..11742, its bytes 2345..3550), whose END
/// parity is a reconstruct-write reading columns 0, 1 and 3 over those bytes only (3 reads
/// against the read-modify-write's 4). The block's checksum covers the rotten old byte, the
/// kept bytes 0..2345 were written: the move's heal confirms them by the spare parity
/// equations its decode leaves (from the reviewer's fuzz, `s18r-rot-end-fuzz.py rs:4:3`).
#[test]
fn rs_4_3_end_over_a_rotten_byte_under_a_window_inside_one_element_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::rs(4, 3), 7, WritePath::Delayed);
    let first = pattern(1, 11523);
    store.write("f", 0, &first).unwrap();
    let pos = store.layout().geometry().data_pos[2];
    flip_home_byte(&store, "f", pos, 0, 3314);
    let token = store.delayed_start("f").unwrap();
    let (at, new) = (10537usize, pattern(2, 1205));
    store.write("f", at as u64, &new).unwrap();
    store
        .delayed_end(&token)
        .unwrap_or_else(|e| panic!("rot at file byte 11506 under the window: END failed: {e}"));
    let mut want = first.clone();
    want.resize(at + new.len(), 0);
    want[at..].copy_from_slice(&new);
    assert!(store.get("f").unwrap() == want, "every byte after END");
    assert_consistent(&store);
}
