//! Session 46 (s46a): a partial rmw overwrite of a LOST home write (s44b's scene: the OSS
//! of data element 1 acknowledged bytes `WRITE_AT..WRITE_AT + WRITE_BYTES` and kept its
//! older ones), cut by a `kill -9` between any two of its block writes. The overwrite
//! (bytes `WRITE_AT..WRITE_AT + 1000`) is not acknowledged; the lost write is.
//!
//! What must hold after the reopen, for every kill point: each 4 KiB block of "f" reads its
//! last acknowledged bytes (the lost write's: the row's parity holds them), or the cut
//! write's new bytes over them where recovery kept what landed, or fails `DataLost` with
//! the loss on record; never the stale bytes with success. With every OSS up nothing is
//! lost at all: before the first block write the stale block is rebuilt from the untouched
//! parity (by the write's read step, s45c, or, killed before its write-back, by the open's
//! decision, s46a); once the write's data block landed, its bytes are the cut write's
//! (its crc says so) and must not be taken for stale (a rebuild from parity that recovery
//! re-encoded from them cannot match the lost write's piece: LOST for nothing).
//!
//! Why (review r45c HIGH): the lost write's witness piece was dropped at the overwrite's
//! input (in the journal, so also at replay), and s45c's copy of it lived in memory only:
//! after a kill right after the input the rest of the lost write read stale with success
//! (`r45c_raid5_partial_overwrite_of_a_lost_home_write_cut_after_its_input`). The
//! neighbours here are the kills after the read step (before and after its write-back)
//! and after the data block write, before `Durable`.

use crate::common;
use crate::s44b_lost_home_write::{lose_a_home_write, WRITE_AT};
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError};

const CHILD_DIR_ENV: &str = "EXARAID_S46A_CHILD_DIR";
/// The cut overwrite's bytes: inside the lost write, inside block 1 (4096..8192).
const OVER_BYTES: usize = 1000;
/// Most block writes one overwrite makes (its read step's write-back, the data block, up
/// to three parity blocks): the sweep ends where the child ends first.
const KILLS_MAX: u64 = 8;

/// The killed child of the sweeps below: the overwrite, in a process set to kill itself
/// at a kill point (`EXARAID_KILL_AT`). Run as a test of its own it does nothing.
#[test]
fn child_overwrite() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store
        .write("f", WRITE_AT as u64, &pattern(3, OVER_BYTES))
        .unwrap();
    store.close().unwrap();
}

/// Every block of "f": `acked`'s bytes, or `cut`'s (the acknowledged bytes with the cut
/// write over them), or `DataLost` on record. Returns the blocks read lost.
fn every_block_acked_cut_or_lost(
    store: &Store,
    acked: &[u8],
    cut: &[u8],
    what: &str,
) -> Vec<usize> {
    let mut lost = Vec::new();
    for at in (0..acked.len()).step_by(4096) {
        let len = 4096.min(acked.len() - at);
        match store.read("f", at as u64, len as u64) {
            Ok(got) => assert!(
                got == acked[at..at + len] || got == cut[at..at + len],
                "{what}: 'f' block {at} read with success but WRONG: byte {:?} (neither the acknowledged bytes nor the cut write's)",
                (0..len).find(|&j| got[j] != acked[at + j]).map(|j| at + j)
            ),
            Err(StoreError::DataLost(why)) => {
                let on_record = store.status().unwrap().lost_ranges;
                assert!(
                    on_record.iter().any(|l| l.file == "f"
                        && l.offset_bytes < (at + len) as u64
                        && at as u64 <= l.offset_bytes + l.len_bytes),
                    "{what}: block {at} read lost but not on record: {why}; {on_record:?}"
                );
                lost.push(at);
            }
            Err(e) => panic!("{what}: block {at}: {e}"),
        }
    }
    lost
}

/// Lose s44b's write on `code`, then kill the overwrite before each of its block writes in
/// turn (`write-before-block:n`), reopen and read every block, twice (the second open
/// replays what the first decided). Returns the kill points reached.
fn sweep(code: CodeSpec, oss: usize, what: &str) -> u64 {
    let tmp = scratch();
    let base = tmp.path().join("base");
    let lost = lose_a_home_write(&base, code, oss);
    let mut cut = lost.acked.clone();
    cut[WRITE_AT..WRITE_AT + OVER_BYTES].copy_from_slice(&pattern(3, OVER_BYTES));
    let mut reached = 0;
    for n in 1..=KILLS_MAX {
        let dir = tmp.path().join(format!("kill-{n}"));
        copy_tree(&base, &dir);
        let child = concat!(module_path!(), "::child_overwrite");
        if !child_test_killed_at(child, CHILD_DIR_ENV, &dir, "write-before-block", n) {
            break;
        }
        reached = n;
        let what = format!("{what}, killed before block write {n}");
        for open in ["reopened", "opened again"] {
            let store = Store::open(&dir).unwrap();
            let gone = every_block_acked_cut_or_lost(&store, &lost.acked, &cut, &what);
            assert!(
                gone.is_empty(),
                "{what} ({open}): every OSS up, yet blocks {gone:?} LOST: the parity held the acknowledged bytes, or the cut write's bytes landed"
            );
            store.close().unwrap();
        }
    }
    assert!(
        reached >= 2,
        "{what}: the overwrite made {reached} block writes"
    );
    reached
}

/// raid5 4+1: kills before the read step's write-back (the stale block, parity
/// untouched), before the data block (written back: acknowledged), before P (the data
/// block landed, P old).
#[test]
fn s46a_raid5_partial_overwrite_of_a_lost_home_write_killed_between_its_block_writes() {
    let n = sweep(CodeSpec::raid5(4), 5, "raid5 4+1");
    eprintln!("raid5 4+1: {n} kill points");
}

/// raid6 4+2: as raid5, and between P and Q (parities of two versions).
#[test]
fn s46a_raid6_partial_overwrite_of_a_lost_home_write_killed_between_its_block_writes() {
    let n = sweep(CodeSpec::raid6(4), 6, "raid6 4+2");
    eprintln!("raid6 4+2: {n} kill points");
}

/// raid6 4+2, the r45c scene (a kill right after the overwrite's input, nothing of it on
/// disk): the lost write's bytes come back from parity.
#[test]
fn s46a_raid6_partial_overwrite_of_a_lost_home_write_cut_after_its_input() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = lose_a_home_write(&dir, CodeSpec::raid6(4), 6);
    leave_write_in_flight(&dir, "f", WRITE_AT as u64, OVER_BYTES as u64);
    for _ in 0..2 {
        let store = Store::open(&dir).unwrap();
        let gone = every_block_acked_cut_or_lost(
            &store,
            &lost.acked,
            &lost.acked,
            "raid6, cut after input",
        );
        assert!(
            gone.is_empty(),
            "raid6, cut after input: blocks {gone:?} LOST"
        );
        store.close().unwrap();
    }
}

/// raid5 4+1 with P's OSS failed, the overwrite cut right after its input: nothing
/// rebuilds the stale block, so it must read LOST on record, never stale. Why a test of
/// its own: the open appends its own records after the cut input before it decides the
/// displaced piece; a rule dropping an input's entry at a next record that is not its
/// crcs lost the piece there (WRONG 4396; with every OSS up the rebuild before the settle
/// hid it). Mended in session 47 (s47a): the input promises its home crcs
/// (`Input::Write::home_crcs_follow`), and an entry whose promised crcs never came stays
/// for the open's decision, which keeps its piece (nothing of the write is on disk).
#[test]
fn s46a_raid5_partial_overwrite_of_a_lost_home_write_cut_after_its_input_beside_a_failed_p() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = lose_a_home_write(&dir, CodeSpec::raid5(4), 5);
    lose_disk(&dir, lost.parity[0]);
    {
        let store = Store::open(&dir).unwrap();
        store.fail_oss(lost.parity[0]).unwrap();
        store.close().unwrap();
    }
    leave_home_write_input_alone(&dir, "f", WRITE_AT as u64, OVER_BYTES as u64);
    for _ in 0..2 {
        let store = Store::open(&dir).unwrap();
        let gone = every_block_acked_cut_or_lost(
            &store,
            &lost.acked,
            &lost.acked,
            "raid5 P failed, cut after input",
        );
        assert!(
            gone.contains(&4096),
            "raid5 P failed, cut after input: the stale block reads LOST: {gone:?}"
        );
        store.close().unwrap();
    }
}
