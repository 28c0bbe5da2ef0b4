//! Session 46 (s46c, review r45c MEDIUM): the home witness picks among the parity subsets.
//! A data column and one parity lost the same write (their zone files put back), the other
//! parity holds it: the decode of the stale column through the stale parity rebuilds the
//! stale bytes, the spare parity disagrees, and no single column explains it (two columns
//! are wrong). The witness's piece of the write is the tiebreak: of the rebuilds from each
//! subset of survivors the code allows, the one matching the piece is served (and, by
//! `scrub --repair`, written back with the stale parity). Where no rebuild matches (or two
//! that match disagree), the block is LOST on record as before: never a guess.

use crate::common;
use crate::r45c_review::{lose_on, scrub_repair_then_check};
use crate::s44b_lost_home_write::{every_block_right_or_lost_on_record, WRITE_AT, WRITE_BYTES};
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

/// `code` on `oss` OSSs at `dir`: the data column of `WRITE_AT` and the first `parities`
/// parity columns of stripe 0 lost the write `WRITE_AT..+WRITE_BYTES`; the other parities
/// hold it. Returns the acknowledged bytes.
fn data_and_parities_stale(
    dir: &std::path::Path,
    code: CodeSpec,
    oss: usize,
    parities: usize,
) -> Vec<u8> {
    let (acked, _) = lose_on(dir, code, oss, WRITE_AT, WRITE_BYTES, |s, id| {
        let mut v = vec![s.layout().locate(id, WRITE_AT as u64).oss];
        v.extend(s.layout().parity_oss(id, 0).into_iter().take(parities));
        v
    });
    acked
}

/// A client read of every block (no scrub first): every byte the acknowledged ones,
/// nothing on record; again after a reopen.
fn reads_right(dir: &std::path::Path, acked: &[u8], what: &str) {
    for _ in 0..2 {
        let store = Store::open(dir).unwrap();
        let gone = every_block_right_or_lost_on_record(&store, acked, what);
        assert!(gone.is_empty(), "{what}: blocks {gone:?} LOST where the right parity rebuilds them to the witness's piece");
        let on_record = store.status().unwrap().lost_ranges;
        assert!(on_record.is_empty(), "{what}: {on_record:?}");
        store.close().unwrap();
    }
}

/// raid6 4+2, the data column and P stale, Q right (review r45c MEDIUM's scene, read
/// first): Q's rebuild is served, nothing on record.
#[test]
fn s46c_raid6_read_data_and_p_stale_takes_the_rebuild_from_q() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = data_and_parities_stale(&dir, CodeSpec::raid6(4), 6, 1);
    reads_right(&dir, &acked, "raid6 4+2, data and P stale, read");
}

/// rs 4+2, the data column and P stale, Q right: as raid6 (two parities, one wrong, the
/// spare equation cannot locate it beside the erased column); the read takes Q's rebuild.
#[test]
fn s46c_rs42_read_data_and_p_stale_takes_the_rebuild_from_q() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = data_and_parities_stale(&dir, CodeSpec::rs(4, 2), 6, 1);
    reads_right(&dir, &acked, "rs 4+2, data and P stale, read");
}

/// rs 4+2, the same, `scrub --repair` first: the block and P rewritten, nothing LOST.
#[test]
fn s46c_rs42_scrub_repair_data_and_p_stale() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = data_and_parities_stale(&dir, CodeSpec::rs(4, 2), 6, 1);
    scrub_repair_then_check(&dir, &acked, "rs 4+2, data and P stale");
    reads_right(&dir, &acked, "rs 4+2, data and P stale, after the repair");
}

/// rs 4+3, the data column and TWO parities stale, the third right: the erased column and
/// two more is the code's tolerance; of the 15 subsets only those dropping both stale
/// parities rebuild the piece, and they agree: served.
#[test]
fn s46c_rs43_read_data_and_two_parities_stale_takes_the_third() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = data_and_parities_stale(&dir, CodeSpec::rs(4, 3), 7, 2);
    reads_right(&dir, &acked, "rs 4+3, data, P and Q stale, read");
}

/// A second data column of the same block row as `WRITE_AT` (data element 2 of stripe 0).
const OTHER_AT: usize = 8192 + 300;
const OTHER_BYTES: usize = 1000;

/// raid6 4+2 at `dir`: the data column of `WRITE_AT` and P lost that write; then a write
/// of `OTHER_AT..+OTHER_BYTES` (another data column, same block row) that Q lost. Every
/// column but the first data one is checksum-clean and matches the witness: the decode
/// of the stale column goes through one stale parity whichever it takes (P lacks the
/// first write, Q the second), and no subset rebuilds the piece. Returns the acknowledged
/// bytes.
fn no_subset_rebuilds_the_piece(dir: &std::path::Path) -> Vec<u8> {
    let store = init(dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let mut acked = pattern(1, 65_536);
    store.put("f", &acked).unwrap();
    let id = store.file_id("f").unwrap();
    let d = store.layout().locate(id, WRITE_AT as u64).oss;
    let x = store.layout().locate(id, OTHER_AT as u64).oss;
    let (p, q) = (
        store.layout().parity_oss(id, 0)[0],
        store.layout().parity_oss(id, 0)[1],
    );
    assert!(d != x, "two data columns of one row");
    let save = |victims: &[usize]| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut saved = Vec::new();
        for &v in victims {
            for z in ["data", "parity"] {
                let f = object_file(dir, v, &format!("{id}.{z}"));
                if let Ok(b) = std::fs::read(&f) {
                    saved.push((f, b));
                }
            }
        }
        saved
    };
    let saved = save(&[d, p]);
    let first = pattern(2, WRITE_BYTES);
    store.write("f", WRITE_AT as u64, &first).unwrap();
    acked[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&first);
    store.close().unwrap();
    for (f, b) in saved {
        std::fs::write(f, b).unwrap();
    }
    let store = Store::open(dir).unwrap();
    let saved = save(&[q]);
    let second = pattern(3, OTHER_BYTES);
    store.write("f", OTHER_AT as u64, &second).unwrap();
    acked[OTHER_AT..OTHER_AT + OTHER_BYTES].copy_from_slice(&second);
    store.close().unwrap();
    for (f, b) in saved {
        std::fs::write(f, b).unwrap();
    }
    acked
}

/// `no_subset_rebuilds_the_piece`, read (no scrub): the stale block is LOST on record
/// (never one of the rebuilds, each wrong), every other block reads right.
#[test]
fn s46c_raid6_no_subset_matches_the_witness_lost_on_record() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = no_subset_rebuilds_the_piece(&dir);
    let store = Store::open(&dir).unwrap();
    let what = "raid6, no subset matches, read";
    let gone = every_block_right_or_lost_on_record(&store, &acked, what);
    assert_eq!(gone, vec![4096], "{what}: only the stale block");
    store.close().unwrap();
}

/// The same, `scrub --repair` first: nothing rewritten from a guess; the stale block LOST
/// on record, every other block right.
#[test]
fn s46c_raid6_no_subset_matches_the_witness_scrub_repair_records_it_lost() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = no_subset_rebuilds_the_piece(&dir);
    let store = Store::open(&dir).unwrap();
    let what = "raid6, no subset matches, scrub --repair";
    let repaired = store.scrub(true).unwrap();
    eprintln!("{what}: {repaired:?}");
    let on_record = store.status().unwrap().lost_ranges;
    assert!(
        on_record.iter().any(|l| l.offset_bytes == 4096),
        "{what}: the stale block not on record: {on_record:?}"
    );
    let gone = every_block_right_or_lost_on_record(&store, &acked, what);
    assert_eq!(gone, vec![4096], "{what}: only the stale block");
    store.close().unwrap();
}
