//! Review r46a of s46a. A home write refused by s45c's read-step check (a lost write under
//! a partial overwrite, P failed: nothing rebuilds it) leaves its displaced entry
//! (`State::home_witness_displaced`) for the next open to decide, which journals
//! `Rec::HomePiecesDecided`. An open whose metadata directory refuses writes (a read-only
//! file system: `open for reads only`) must still open for reads, as it did on 7c9d35f8.

use crate::common;
use crate::s44b_lost_home_write::{lose_a_home_write, WRITE_AT};
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError};

#[test]
fn r46a_refused_overwrite_then_a_read_only_open() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = lose_a_home_write(&dir, CodeSpec::raid5(4), 5);
    lose_disk(&dir, lost.parity[0]);
    {
        let store = Store::open(&dir).unwrap();
        store.fail_oss(lost.parity[0]).unwrap();
        store.close().unwrap();
    }
    let store = Store::open(&dir).unwrap();
    let r = store.write("f", WRITE_AT as u64, &pattern(3, 1000));
    eprintln!("the partial overwrite: {r:?}");
    assert!(matches!(r, Err(StoreError::DataLost(_))), "refused: {r:?}");
    let _ = store.close();
    let mounted = tmp.path().join("mounted");
    let Some(_mount) = ReadOnlyMount::new(&dir, &mounted) else {
        eprintln!("SKIPPED: a read-only bind mount is not permitted here (needs root)");
        return;
    };
    let opened = Store::open(&mounted);
    if let Err(e) = &opened {
        let e = e.to_string();
        // Recovery is due (the refused plan): both binaries refuse alike, nothing shown.
        assert!(
            e.contains("needs crash recovery"),
            "the read-only open failed: {e}"
        );
        return;
    }
    let store = opened.unwrap();
    let r = store.read("f", 0, 4096);
    eprintln!(
        "read 0..4096 on the read-only open: {:?}",
        r.as_ref().map(|b| b.len())
    );
    assert!(r.unwrap() == lost.acked[..4096]);
    drop(store);
}

/// Review r46a: the OPEN of s46a (an input cut right after it, its displaced entry dropped
/// by the open's own first records) is not confined to a failed OSS: with EVERY OSS up
/// but the row's P stale too (it lost the write as well: r45c's `p_stale_too` scene), the
/// open's rebuild before the settle matches no piece (data and P agree on the stale
/// bytes), the settle's first record drops the entry, and the decision after the settle
/// has nothing to put back: the stale block reads with success. It did (WRONG byte 4396),
/// on 7c9d35f8 and c092d8a5 too: s46a mends r45c HIGH only where the row's parity
/// rebuilds the block. Mended in session 47 (s47a): the input promises its crcs
/// (`home_crcs_follow`), so the entry of a write cut before them stays for the decision,
/// which keeps the piece: the block reads LOST on record.
#[test]
fn r46a_raid5_cut_after_input_p_stale_too_every_oss_up() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = crate::r45c_review::lose_a_home_write_p_stale_too(tmp.path(), &dir);
    leave_home_write_input_alone(&dir, "f", WRITE_AT as u64, 1000);
    for round in 0..2 {
        let store = Store::open(&dir).unwrap();
        let gone = crate::s44b_lost_home_write::every_block_right_or_lost_on_record(
            &store,
            &lost.acked,
            &format!("raid5, P stale too, cut after input, open {round}"),
        );
        eprintln!("open {round}: blocks read LOST {gone:?}");
        store.close().unwrap();
    }
}

const OPEN_CHILD_DIR_ENV: &str = "EXARAID_R46A_OPEN_CHILD_DIR";
const WRITE_CHILD_DIR_ENV: &str = "EXARAID_R46A_WRITE_CHILD_DIR";

/// Child: the overwrite of s46a's scene (killed at a kill point). Alone: nothing.
#[test]
fn r46a_child_overwrite() {
    let Ok(dir) = std::env::var(WRITE_CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store
        .write("f", WRITE_AT as u64, &pattern(3, 1000))
        .unwrap();
    store.close().unwrap();
}

/// Child: an open (its recovery killed at a journal record). Alone: nothing.
#[test]
fn r46a_child_open() {
    let Ok(dir) = std::env::var(OPEN_CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.close().unwrap();
}

/// Review r46a: the open's recovery killed between its settle and its
/// `HomePiecesDecided` (each journal record of the open in turn) leaves the displaced
/// entry for the next open's "no recovery" branch, which journals its decision: with the
/// metadata on a read-only file system that open fails (on 7c9d35f8 it opened for reads).
/// (Passes on a6800d2c: no kill point of this sweep leaves an undecided entry to an open
/// without recovery; kept as a guard. The refused-overwrite test above needs recovery on
/// both binaries: it shows nothing, kept as a guard too.)
#[test]
fn r46a_open_killed_before_its_decision_then_a_read_only_open() {
    let tmp = scratch();
    let base = tmp.path().join("base");
    let lost = lose_a_home_write(&base, CodeSpec::raid5(4), 5);
    // The overwrite killed before its data block (after s45c's write-back): its input and
    // crcs on record, the entry waits for the open's decision.
    let cut = tmp.path().join("cut");
    copy_tree(&base, &cut);
    let child = concat!(module_path!(), "::r46a_child_overwrite");
    assert!(child_test_killed_at(
        child,
        WRITE_CHILD_DIR_ENV,
        &cut,
        "write-before-block",
        2
    ));
    let mut failures = Vec::new();
    for n in 1..=12u64 {
        let dir = tmp.path().join(format!("open-kill-{n}"));
        copy_tree(&cut, &dir);
        let child = concat!(module_path!(), "::r46a_child_open");
        if !child_test_killed_at(child, OPEN_CHILD_DIR_ENV, &dir, "journal-record", n) {
            eprintln!("the open journals {} records", n - 1);
            break;
        }
        let mounted = tmp.path().join(format!("ro-{n}"));
        let Some(mount) = ReadOnlyMount::new(&dir, &mounted) else {
            eprintln!("SKIPPED: a read-only bind mount is not permitted here (needs root)");
            return;
        };
        match Store::open(&mounted) {
            Ok(store) => {
                let r = store.read("f", 0, 4096);
                eprintln!(
                    "killed at journal-record:{n}: read-only open OK, read {:?}",
                    r.map(|b| b == lost.acked[..4096])
                );
                drop(store);
            }
            Err(e) => {
                let e = e.to_string();
                eprintln!("killed at journal-record:{n}: read-only open: {e}");
                if !e.contains("needs crash recovery") {
                    failures.push((n, e));
                }
            }
        }
        drop(mount);
        // And read-write: every block right or lost on record.
        let store = Store::open(&dir).unwrap();
        crate::s44b_lost_home_write::every_block_right_or_lost_on_record(
            &store,
            &lost.acked,
            &format!("open killed at journal-record:{n}, reopened"),
        );
        store.close().unwrap();
    }
    assert!(failures.is_empty(), "read-only opens refused: {failures:?}");
}
