//! Review r46c (of s46c's `Store::witness_pick`): the pick's "equals the disk outside the
//! pieces" trusts the disk where no piece covers a block. Where those bytes are themselves
//! stale (a lost write whose piece the witness no longer holds: evicted past
//! `HOME_WITNESS_PIECES_MAX`, a journal tail cut, a binary before session 44), the right
//! rebuild (from the right parity) is rejected for differing from the stale disk there and
//! the rebuild through the STALE parity, which reproduces exactly those stale bytes plus the
//! newer write's piece, is the one candidate: served with success, and the right parity
//! "located" as wrong. On 7c9d35f8 the row was `Disagree`: LOST on record.

use crate::common;
use crate::r45c_review::lose_on;
use crate::s44b_lost_home_write::{every_block_right_or_lost_on_record, WRITE_AT, WRITE_BYTES};
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::Store;

/// A second write in the same 4 KiB block as `WRITE_AT..+WRITE_BYTES` (block 4096..8192),
/// not overlapping it.
const LATER_AT: usize = 4096 + 3400;
const LATER_BYTES: usize = 500;

/// raid6 4+2: W0 (`WRITE_AT`) lost by its data column and P (Q holds it); 256 MiB + 4 KiB
/// written to another file since (W0's piece evicted, the oldest); then W1 (`LATER_AT`, same
/// block) lost by the data column alone (its rmw took P and Q as they were: P without W0,
/// Q with it). Returns the acknowledged bytes of "f".
fn stale_outside_the_pieces(dir: &std::path::Path) -> Vec<u8> {
    let (mut acked, victims) = lose_on(
        dir,
        CodeSpec::raid6(4),
        6,
        WRITE_AT,
        WRITE_BYTES,
        |s, id| {
            vec![
                s.layout().locate(id, WRITE_AT as u64).oss,
                s.layout().parity_oss(id, 0)[0],
            ]
        },
    );
    let store = Store::open(dir).unwrap();
    // Past the home witness's bound: its oldest quarter (f's pieces, W0's among them) goes.
    let big = vec![0x5au8; (1 << 28) + 4096];
    store.put("g", &big).unwrap();
    drop(big);
    let id = store.file_id("f").unwrap();
    let d = victims[0];
    assert_eq!(
        d,
        store.layout().locate(id, LATER_AT as u64).oss,
        "same column"
    );
    let mut saved = Vec::new();
    for z in ["data", "parity"] {
        let f = object_file(dir, d, &format!("{id}.{z}"));
        if let Ok(b) = std::fs::read(&f) {
            saved.push((f, b));
        }
    }
    let later = pattern(9, LATER_BYTES);
    store.write("f", LATER_AT as u64, &later).unwrap();
    acked[LATER_AT..LATER_AT + LATER_BYTES].copy_from_slice(&later);
    store.close().unwrap();
    for (f, b) in saved {
        std::fs::write(f, b).unwrap();
    }
    acked
}

/// A client read: each block of "f" its acknowledged bytes or LOST on record, never W0's
/// stale bytes with success. FAILS on 994afd85 (s46c): WRONG byte 4396.
#[test]
fn r46c_witness_pick_serves_stale_bytes_outside_the_pieces() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = stale_outside_the_pieces(&dir);
    let store = Store::open(&dir).unwrap();
    let gone = every_block_right_or_lost_on_record(&store, &acked, "r46c read");
    eprintln!("r46c read: LOST {gone:?}");
    store.close().unwrap();
}

/// `scrub --repair` first: it must not rewrite Q (the one column holding W0's acknowledged
/// bytes) to the stale rebuild. Afterwards every block right or LOST on record.
#[test]
fn r46c_witness_pick_repair_overwrites_the_right_parity() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = stale_outside_the_pieces(&dir);
    let store = Store::open(&dir).unwrap();
    let repaired = store.scrub(true).unwrap();
    eprintln!("r46c repair: {repaired:?}");
    let gone = every_block_right_or_lost_on_record(&store, &acked, "r46c after repair");
    eprintln!("r46c after repair: LOST {gone:?}");
    store.close().unwrap();
}
