//! Review r47a (of s47a): the entry of a home write cut right after its input (its
//! promised crcs never came) keeps its piece through the open's decision. Does a LATER
//! acknowledged write over the same block replace the kept piece (never a false LOST nor a
//! rebuild to old bytes), and does a healthy store with such a cut read every block right?

use crate::common;
use crate::s44b_lost_home_write::{
    every_block_right_or_lost_on_record, lose_a_home_write, FILE_BYTES, WRITE_AT,
};
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const STALE_BLOCK: usize = WRITE_AT / 4096 * 4096;

/// After the cut and its open: write `(at, len)` (acknowledged or refused), reopen twice,
/// every block right or LOST on record; an acknowledged write's blocks read its bytes.
fn later_write_over_the_block(
    dir: &std::path::Path,
    mut acked: Vec<u8>,
    (at, len): (usize, usize),
    what: &str,
) {
    leave_home_write_input_alone(dir, "f", WRITE_AT as u64, 1000);
    let mut store = Store::open(dir).unwrap();
    let new = pattern(9, len);
    // A first write over a lost-write block is refused and records it LOST ("write them
    // again"): the second is the one that must land and read back.
    let mut wrote = store.write("f", at as u64, &new);
    eprintln!("{what}: the later write: {:?}", wrote.as_ref().map(|_| ()));
    if wrote.is_err() {
        let _ = store.close(); // refused half way: reopen, as the message says
        store = Store::open(dir).unwrap();
        wrote = store.write("f", at as u64, &new);
        eprintln!(
            "{what}: the later write again: {:?}",
            wrote.as_ref().map(|_| ())
        );
    }
    if wrote.is_ok() {
        acked[at..at + len].copy_from_slice(&new);
    }
    store.close().unwrap();
    for open in ["reopened", "opened again"] {
        let store = Store::open(dir).unwrap();
        let what = format!("{what} ({open})");
        let gone = every_block_right_or_lost_on_record(&store, &acked, &what);
        if wrote.is_ok() {
            let whole = (at / 4096 * 4096..(at + len).div_ceil(4096) * 4096).step_by(4096);
            for b in whole.filter(|&b| at <= b && b + 4096 <= at + len) {
                assert!(
                    !gone.contains(&b),
                    "{what}: block {b}, written whole by an acknowledged write, reads LOST: {gone:?}"
                );
            }
        }
        store.close().unwrap();
    }
}

fn raid5_p_failed(dir: &std::path::Path) -> Vec<u8> {
    let lost = lose_a_home_write(dir, CodeSpec::raid5(4), 5);
    lose_disk(dir, lost.parity[0]);
    let store = Store::open(dir).unwrap();
    store.fail_oss(lost.parity[0]).unwrap();
    store.close().unwrap();
    lost.acked
}

#[test]
fn r47a_raid5_p_failed_cut_then_acked_whole_block_write() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = raid5_p_failed(&dir);
    later_write_over_the_block(
        &dir,
        acked,
        (STALE_BLOCK, 4096),
        "raid5 P failed, whole block",
    );
}

#[test]
fn r47a_raid5_p_failed_cut_then_acked_write_of_the_cut_range() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = raid5_p_failed(&dir);
    later_write_over_the_block(&dir, acked, (WRITE_AT, 1000), "raid5 P failed, cut range");
}

#[test]
fn r47a_raid5_p_stale_too_cut_then_acked_whole_block_write() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = crate::r45c_review::lose_a_home_write_p_stale_too(tmp.path(), &dir);
    later_write_over_the_block(
        &dir,
        lost.acked,
        (STALE_BLOCK, 4096),
        "raid5 P stale too, whole block",
    );
}

#[test]
fn r47a_raid5_p_stale_too_cut_then_acked_write_of_the_cut_range() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = crate::r45c_review::lose_a_home_write_p_stale_too(tmp.path(), &dir);
    later_write_over_the_block(
        &dir,
        lost.acked,
        (WRITE_AT, 1000),
        "raid5 P stale too, cut range",
    );
}

/// No lost write: a healthy raid5 and raid6 store, an acknowledged write (its pieces in the
/// witness), then a promised input over it cut before its crcs: every block reads right at
/// every open (no false LOST), and after a later write of the cut range too.
#[test]
fn r47a_healthy_cut_before_crcs_reads_every_block_right() {
    for (code, n) in [(CodeSpec::raid5(4), 5), (CodeSpec::raid6(4), 6)] {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let store = init(&dir, code, n, WritePath::Rmw);
        let mut acked = pattern(1, FILE_BYTES);
        store.put("f", &acked).unwrap();
        let new = pattern(2, 3000);
        store.write("f", WRITE_AT as u64, &new).unwrap();
        acked[WRITE_AT..WRITE_AT + 3000].copy_from_slice(&new);
        store.close().unwrap();
        cut_before_crcs_then_rewritten_reads_every_block_right(&dir, code, &mut acked, "healthy");
    }
}

/// No lost write, the cut write's data column on a FAILED OSS (raid5 4+1, raid6 4+2 with
/// a second OSS failed too): the decision rebuilds the block from parity (it matches the
/// piece: kept), and every block reads right at every open (no false LOST), also after a
/// later write of the cut range.
#[test]
fn r47a_degraded_cut_before_crcs_over_a_failed_data_column_reads_every_block_right() {
    for (code, n, second) in [
        (CodeSpec::raid5(4), 5, false),
        (CodeSpec::raid6(4), 6, true),
    ] {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let store = init(&dir, code, n, WritePath::Rmw);
        let mut acked = pattern(1, FILE_BYTES);
        store.put("f", &acked).unwrap();
        let new = pattern(2, 3000);
        store.write("f", WRITE_AT as u64, &new).unwrap();
        acked[WRITE_AT..WRITE_AT + 3000].copy_from_slice(&new);
        let id = store.file_id("f").unwrap();
        let victim = store.layout().locate(id, WRITE_AT as u64).oss;
        let parity = store.layout().parity_oss(id, 0);
        store.close().unwrap();
        let mut failed = vec![victim];
        if second {
            failed.push(parity[0]);
        }
        for &o in &failed {
            lose_disk(&dir, o);
        }
        let store = Store::open(&dir).unwrap();
        for &o in &failed {
            store.fail_oss(o).unwrap();
        }
        store.close().unwrap();
        cut_before_crcs_then_rewritten_reads_every_block_right(&dir, code, &mut acked, "degraded");
    }
}

/// The shared end of the two scenes above: the overwrite of 1000 bytes at `WRITE_AT` is cut
/// right after its input; two opens then read every block right (no false LOST), and so
/// does an open after a later acknowledged write of the cut range.
fn cut_before_crcs_then_rewritten_reads_every_block_right(
    dir: &std::path::Path,
    code: CodeSpec,
    acked: &mut [u8],
    scene: &str,
) {
    leave_home_write_input_alone(dir, "f", WRITE_AT as u64, 1000);
    for open in 0..2 {
        let store = Store::open(dir).unwrap();
        let gone = every_block_right_or_lost_on_record(
            &store,
            acked,
            &format!("{code:?} {scene} cut, open {open}"),
        );
        assert!(gone.is_empty(), "{code:?}: {scene}, false LOST {gone:?}");
        store.close().unwrap();
    }
    let store = Store::open(dir).unwrap();
    let new = pattern(7, 1000);
    store.write("f", WRITE_AT as u64, &new).unwrap();
    acked[WRITE_AT..WRITE_AT + 1000].copy_from_slice(&new);
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    let gone = every_block_right_or_lost_on_record(
        &store,
        acked,
        &format!("{code:?} {scene} after rewrite"),
    );
    assert!(
        gone.is_empty(),
        "{code:?}: {scene} after rewrite, false LOST {gone:?}"
    );
    store.close().unwrap();
}
