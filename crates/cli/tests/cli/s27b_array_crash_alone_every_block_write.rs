//! s27b (review s26r R26-1): on an ARRAY code, rmw or delayed outside a window, a client
//! write killed at ANY of its block writes (torn: payload without its checksum; or stopped
//! at a 4 KiB page boundary of the zone file inside the block, s26a's `write-page-cut` /
//! `write-page-cut-last`), and nothing else (no rot, no failed disk): every acknowledged
//! byte reads back (the put's, or the cut write's where it reached), and `scrub` finds the
//! stripes' parity matching their data (exit 0), so one later failed disk still rebuilds.
//!
//! R26-1's scene (`review_s26r_array_crash_alone_edge_block.rs`) swept over every block
//! write of the cut write in plan order, on both non-WCL write paths and both kinds of cut
//! a kill -9 leaves in a block. Each trial starts from one copy of the store after the
//! `put` (`copy_store`), so a trial runs three commands.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 16384;
const PUT_BYTES: usize = 169_901;
/// R26-1's cut write: `(offset, length)`, both ends inside a 4 KiB block.
const R26_1: (usize, usize) = (49_919, 61_947);
/// Block writes of the cut write at most (hcode p=5 rmw writes 14; past them the write
/// finishes and the sweep stops).
const BLOCK_WRITES_MAX: usize = 24;
/// The kinds of cut a kill -9 leaves in a block write.
const CUTS: [&str; 3] = ["write-torn-block", "write-page-cut", "write-page-cut-last"];

/// Every byte of `got` is the put's or the cut write's (at `write_at`), and its length one of
/// theirs.
fn wrong_bytes(got: &[u8], old: &[u8], write_at: usize, new_bytes: &[u8]) -> Option<String> {
    let mut new = old.to_vec();
    put_over(&mut new, write_at, new_bytes);
    if got.len() != old.len() && got.len() != new.len() {
        return Some(format!("length {}", got.len()));
    }
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| got[i] != old.get(i).copied().unwrap_or(0) && got[i] != new[i])
        .collect();
    (!wrong.is_empty()).then(|| {
        format!(
            "{} byte(s) neither the put's nor the cut write's, first {}",
            wrong.len(),
            wrong[0]
        )
    })
}

/// Sweep a cut write of `write_bytes` at `write_at` over every block write and every kind of
/// cut, on `code_args` with write path `path`; panics naming every trial that lost, read
/// wrong or left a scrub finding. At least `kills_min` trials must have killed the write.
fn crash_alone_sweep(
    code_args: &[&str],
    path: &str,
    (write_at, write_bytes): (usize, usize),
    kills_min: usize,
) {
    let tmp = fast_tempdir("exaraid-s27b-array-edge");
    let image = tmp.path().join("image");
    let dir_path = tmp.path().join("store");
    let dir = s(&dir_path).to_string();
    let mut args = vec!["--write-path", path];
    args.extend_from_slice(code_args);
    init_store_unit(s(&image), UNIT_BYTES, &args);
    let old = random_bytes(0x5327_b001, PUT_BYTES);
    ok(&["store", "put", s(&image), "f"], &old);
    let new_bytes = random_bytes(0x5327_b002, write_bytes);
    let offset = write_at.to_string();
    let mut failures = Vec::new();
    let mut kills = 0;
    for cut in CUTS {
        for n in 1..=BLOCK_WRITES_MAX {
            copy_store(&image, &dir_path);
            let kill_at = format!("{cut}:{n}");
            if !killed_at_with(
                &["store", "write", &dir, "f", "--offset", &offset],
                &new_bytes,
                &kill_at,
                &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
            ) {
                break;
            }
            kills += 1;
            let what = format!(
                "{code_args:?} {path} write {write_at}+{write_bytes} killed at {kill_at}, no other fault"
            );
            let check = |got: &[u8]| {
                wrong_bytes(got, &old, write_at, &new_bytes).map(|w| format!("WRONG: {w}"))
            };
            failures.extend(get_then_scrub_problem(&dir, &what, &check));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {kills} killed trials:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        kills >= kills_min,
        "{code_args:?} {path}: only {kills} kills"
    );
}

#[test]
fn an_hdp_rmw_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "4", "--code", "hdp", "--p", "5"],
        "rmw",
        R26_1,
        12,
    );
}

#[test]
fn an_hdp_delayed_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "4", "--code", "hdp", "--p", "5"],
        "delayed",
        R26_1,
        12,
    );
}

#[test]
fn an_hcode_rmw_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "6", "--code", "hcode", "--p", "5"],
        "rmw",
        R26_1,
        12,
    );
}

#[test]
fn an_hcode_delayed_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "6", "--code", "hcode", "--p", "5"],
        "delayed",
        R26_1,
        12,
    );
}

#[test]
fn a_dcode_rmw_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "5", "--code", "dcode", "--p", "5"],
        "rmw",
        R26_1,
        12,
    );
}

#[test]
fn a_dcode_delayed_write_killed_at_any_block_write_loses_no_acknowledged_byte_and_scrubs_clean() {
    crash_alone_sweep(
        &["--oss", "5", "--code", "dcode", "--p", "5"],
        "delayed",
        R26_1,
        12,
    );
}

/// A write of whole 4 KiB blocks (file bytes 0..131072: half of hcode p=5's stripe) cut at a
/// page boundary inside one of its blocks: that block's bytes are all the cut write's range,
/// yet the put's there are acknowledged until the write is. On 7a361a1 `get` named them LOST
/// at `write-page-cut:6`, `:8` and `write-page-cut-last:6`, `:8` ("recovery could not tell its
/// true bytes (a write cut by a crash beside bit rot)"): the page-cut crcs of blocks the plan
/// did not read take one read of their old bytes (s26a's rule), on array codes too.
#[test]
fn an_hcode_rmw_write_of_whole_blocks_killed_at_any_block_write_loses_no_acknowledged_byte() {
    crash_alone_sweep(
        &["--oss", "6", "--code", "hcode", "--p", "5"],
        "rmw",
        (0, 131_072),
        12,
    );
}
