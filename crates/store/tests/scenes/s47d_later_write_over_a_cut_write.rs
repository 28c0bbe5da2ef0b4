//! Session 47 (s47d), review r46a MEDIUM-2: a cut write's displaced pieces (s46a) are
//! decided by its own bytes: where the block holds the cut write's crc over its part
//! ("landed") the lost write's piece is dropped. A LATER write over the cut write's range
//! changes those bytes, and "landed" can no longer tell; the review feared the piece would
//! then go back over landed bytes (LOST on record, never WRONG). What must hold, whatever
//! the order: every block reads its last acknowledged bytes (or a cut write's where recovery
//! kept them) with success, never stale bytes; with every OSS up, nothing LOST.
//!
//! The scene: s44b's lost home write (raid6 4+2, bytes `WRITE_AT..WRITE_AT + 3000` lost by
//! data element 1's OSS, the parity right), s46a's partial overwrite of it (`WRITE_AT..+1000`)
//! killed before each of its block writes, the reopen (which decides the displaced piece),
//! then a later write over part of the cut write's range. Found while writing it (see the
//! report): the open decides every displaced entry before it accepts a write, and a write
//! refused by s45c's check poisons the handle, so no later write runs while the cut
//! write's entry waits; these scenes pin the orders that can happen.

use crate::common;
use crate::s44b_lost_home_write::{lose_a_home_write, WRITE_AT};
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError};

/// s46a's killed child: the overwrite `WRITE_AT..WRITE_AT + CUT_BYTES`.
const CUT_CHILD: &str = "scenes::s46a_cut_overwrite_of_a_lost_home_write::child_overwrite";
const CUT_CHILD_DIR_ENV: &str = "EXARAID_S46A_CHILD_DIR";
const CUT_BYTES: usize = 1000;
/// The later write: over the first half of the cut write's range (inside the lost write's
/// piece too: in this geometry the cut write lies inside it).
const LATER_BYTES: usize = 500;
const LATER_CHILD_DIR_ENV: &str = "EXARAID_S47D_LATER_CHILD_DIR";
/// Most block writes one rmw write makes here (read step's write-back, data, P, Q).
const KILLS_MAX: u64 = 8;

fn later_bytes() -> Vec<u8> {
    pattern(4, LATER_BYTES)
}

/// The later write, killed at a kill point (`EXARAID_KILL_AT`). Alone it does nothing.
#[test]
fn child_later_write() {
    let Ok(dir) = std::env::var(LATER_CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.write("f", WRITE_AT as u64, &later_bytes()).unwrap();
    store.close().unwrap();
}

/// "f" as read now, every block with success and nothing on record lost (every OSS is up:
/// the parity held the lost write's bytes, or the cut write's bytes landed).
fn read_whole(store: &Store, len: usize, what: &str) -> Vec<u8> {
    let got = (store.read("f", 0, len as u64))
        .unwrap_or_else(|e| panic!("{what}: every OSS up, yet 'f' reads: {e}"));
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.is_empty(),
        "{what}: every OSS up, yet lost on record: {lost:?}"
    );
    got
}

/// Is `got` one of `versions`? Names the first byte that differs from the first version.
fn assert_one_of(got: &[u8], versions: &[&[u8]], what: &str) {
    assert!(
        versions.contains(&got),
        "{what}: 'f' read WRONG with success: byte {:?} is none of the allowed versions",
        (0..got.len()).find(|&j| got[j] != versions[0][j])
    );
}

/// The lost write, the overwrite killed before block write `n` (false: it ended first), the
/// reopen. Returns the file as read then, checked against the lost write's bytes and the
/// cut write's over them.
fn cut_then_reopen(base: &Path, dir: &Path, acked: &[u8], n: u64) -> Option<Vec<u8>> {
    copy_tree(base, dir);
    if !child_test_killed_at(CUT_CHILD, CUT_CHILD_DIR_ENV, dir, "write-before-block", n) {
        return None;
    }
    let mut cut = acked.to_vec();
    cut[WRITE_AT..WRITE_AT + CUT_BYTES].copy_from_slice(&pattern(3, CUT_BYTES));
    let what = format!("the overwrite killed before block write {n}, reopened");
    let store = Store::open(dir).unwrap();
    let now = read_whole(&store, acked.len(), &what);
    assert_one_of(&now, &[acked, &cut], &what);
    store.close().unwrap();
    Some(now)
}

/// raid6 4+2: for every kill point of the cut overwrite, the reopen, then a later
/// acknowledged write over half of the cut write's range, closed, reopened twice: every
/// byte reads as acknowledged (the later write over what the reopen read), nothing lost.
#[test]
fn s47d_raid6_a_later_acknowledged_write_over_a_cut_writes_range_reads_right() {
    let tmp = scratch();
    let base = tmp.path().join("base");
    let lost = lose_a_home_write(&base, CodeSpec::raid6(4), 6);
    let mut reached = 0;
    for n in 1..=KILLS_MAX {
        let dir = tmp.path().join(format!("cut-{n}"));
        let Some(mut now) = cut_then_reopen(&base, &dir, &lost.acked, n) else {
            break;
        };
        reached = n;
        let store = Store::open(&dir).unwrap();
        store.write("f", WRITE_AT as u64, &later_bytes()).unwrap();
        now[WRITE_AT..WRITE_AT + LATER_BYTES].copy_from_slice(&later_bytes());
        store.close().unwrap();
        for open in ["reopened after the later write", "opened again"] {
            let what = format!("cut before block write {n}, {open}");
            let store = Store::open(&dir).unwrap();
            assert_one_of(&read_whole(&store, now.len(), &what), &[&now], &what);
            store.close().unwrap();
        }
    }
    assert!(reached >= 3, "the overwrite made {reached} block writes");
}

/// raid6 4+2: the cut overwrite killed before each block write, reopened; then the later
/// write itself killed before each of its block writes (its range over the cut write's
/// bytes, as the reopen left them): reopened twice, every block reads what the first
/// reopen read or the later write over it, with success, nothing lost.
#[test]
fn s47d_raid6_a_later_write_killed_over_a_cut_writes_range_reads_right() {
    let tmp = scratch();
    let base = tmp.path().join("base");
    let lost = lose_a_home_write(&base, CodeSpec::raid6(4), 6);
    let mut points = 0;
    for n in 1..=KILLS_MAX {
        let first = tmp.path().join(format!("cut-{n}"));
        let Some(now) = cut_then_reopen(&base, &first, &lost.acked, n) else {
            break;
        };
        let mut later = now.clone();
        later[WRITE_AT..WRITE_AT + LATER_BYTES].copy_from_slice(&later_bytes());
        for m in 1..=KILLS_MAX {
            let dir = tmp.path().join(format!("cut-{n}-later-{m}"));
            copy_tree(&first, &dir);
            let child = concat!(module_path!(), "::child_later_write");
            if !child_test_killed_at(child, LATER_CHILD_DIR_ENV, &dir, "write-before-block", m) {
                break;
            }
            points += 1;
            for open in ["reopened", "opened again"] {
                let what = format!(
                    "cut before block write {n}, the later write killed before block write {m}, {open}"
                );
                let store = Store::open(&dir).unwrap();
                match store.read("f", 0, now.len() as u64) {
                    Ok(got) => assert_one_of(&got, &[&now, &later], &what),
                    Err(StoreError::DataLost(e)) => panic!("{what}: every OSS up, yet LOST: {e}"),
                    Err(e) => panic!("{what}: {e}"),
                }
                let lost = store.status().unwrap().lost_ranges;
                assert!(lost.is_empty(), "{what}: lost on record: {lost:?}");
                store.close().unwrap();
            }
        }
    }
    assert!(points >= 3, "the later write killed at {points} points");
}
