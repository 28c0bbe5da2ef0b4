//! Review s32r, R32-1 and R32-2: ONE WCL write cut (a crash, or a power cut) while ONE OSS
//! is already failed, on codes that tolerate two failures. Scene (every test): a put of two
//! stripes, acknowledged writes 100+4096 and 8292+4096 (home stripe 0 cached in every data
//! column), `fail_oss(dead)`, then the write `4000+200` (across the column 0/1 boundary)
//! cut at every power cut of it; its block writes run in plan order, so every run lays the
//! same disks. Each cut is laid with the dead OSS's directory emptied (the disk is gone) and
//! opened with it down; every 4 KiB block of `f` is read, and again after a `flush`.
//!
//! The rule: one failed OSS and a crash (or a power cut dropping unsynced writes) is within
//! the tolerance of raid6 and rs 4+2: no acknowledged byte may be LOST, and no read may
//! return a byte neither acknowledged nor the cut write's. Wrong bytes fail every test here
//! at once.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;

/// Which cuts of the degraded write to check.
#[derive(Clone, Copy, PartialEq)]
enum Cuts {
    /// Only those a kill -9 leaves: nothing dropped, the image's whole journal.
    KillLike,
    /// Every power cut `for_each_power_cut` lays.
    All,
}

/// Checked cuts, losing cuts, and the first loss. A wrong byte panics.
fn losing_cuts_of_a_write_beside_a_failed_oss(
    code: CodeSpec,
    dead: usize,
    write: std::ops::Range<usize>,
    which: Cuts,
) -> (usize, usize, String) {
    let DegradedCutWrite {
        top,
        base,
        new,
        flight,
        images,
        ..
    } = degraded_cut_write(code, dead, write.clone());

    let last = images.len() - 1;
    let (mut checked, mut losing, mut first) = (0, 0, String::new());
    let laid = top.path().join("try");
    for_each_power_cut(&images, |point| {
        let journal_bytes = std::fs::metadata(point.image.dir.join("journal"))
            .unwrap()
            .len();
        let kill_like =
            !point.dropped.iter().any(|&d| d) && point.journal_cut_bytes == journal_bytes;
        if which == Cuts::KillLike && !kill_like {
            return;
        }
        checked += 1;
        point.lay(&laid);
        lose_disk(&laid, dead);
        let mut acked = base.clone();
        if point.image_index == last {
            acked[write.clone()].copy_from_slice(&new);
        }
        let store =
            open_laid(&laid, &[dead]).unwrap_or_else(|e| panic!("{}: open: {e}", point.what()));
        let lost = lost_blocks_across_a_flush(&store, &acked, &flight, &point.what());
        if !lost.is_empty() {
            losing += 1;
            if first.is_empty() {
                first = format!(
                    "{}: blocks at {lost:?} (before, then after the flush) LOST",
                    point.what()
                );
            }
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    assert!(checked > 0, "the write was cut somewhere");
    (checked, losing, first)
}

fn assert_no_cut_loses(code: CodeSpec, dead: usize, which: Cuts) {
    let (checked, losing, first) =
        losing_cuts_of_a_write_beside_a_failed_oss(code, dead, 4000..4200, which);
    assert_eq!(
        losing, 0,
        "{losing} of {checked} cuts of write 4000+200 with OSS {dead} failed lost acknowledged bytes; first: {first}"
    );
}

// R32-1: the failed OSS holds column 2, which the write does not reach. The write journals
// column 2's cached bytes (`FailedColumnCopy`) and its crcs; a crash ALONE before the
// running parity's last pieces land (mutating call 12 of 15: data columns 0 and 1 new, P
// in part, Q old) records all four data blocks of home stripe 0 LOST, columns 1 and 3
// (alive, the write's column 1 part aside untouched) included. Fixed in session 32 (s32f):
// the plan's copy of column 2 is a known column in both versions (`stale_beside_cut.rs`,
// `known_by_failed_column_copies`); both tests fail on c3ad65a.

#[test]
fn raid6_wcl_crash_beside_a_failed_oss_the_write_does_not_reach_loses_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::raid6(4), 2, Cuts::KillLike);
}

#[test]
fn rs_4_2_wcl_crash_beside_a_failed_oss_the_write_does_not_reach_loses_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::rs(4, 2), 2, Cuts::KillLike);
}

// R32-2: the failed OSS holds column 1, which the write reaches (its bytes 0..104 go to the
// journal as a `FailedColumnCopy`); a power cut before the write's last Q piece (P new, Q
// in part) that drops OSS 0's unsynced cache block (column 0 back to its acknowledged old
// bytes, told by its crcs) recorded all four data blocks LOST: column 1 erased in both
// versions left no segment of the row checked in either. Fixed in session 33 (s33a): the
// copy, matching the write's journaled crc of column 1's cut range, is column 1's block in
// the new version (`known_by_failed_column_copies`); both tests fail on 8b60df4 ("1 of 29
// cuts ... OSS [0] dropped").

#[test]
fn raid6_wcl_power_cut_beside_a_failed_column_the_write_reaches_loses_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::raid6(4), 1, Cuts::All);
}

#[test]
fn rs_4_2_wcl_power_cut_beside_a_failed_column_the_write_reaches_loses_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::rs(4, 2), 1, Cuts::All);
}

// Controls: the same write and cuts where they read every byte on c3ad65a.

#[test]
fn raid6_wcl_power_cuts_beside_a_failed_parity_oss_lose_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::raid6(4), 4, Cuts::All);
}

#[test]
fn raid6_wcl_power_cuts_beside_failed_column_0_lose_no_acknowledged_byte() {
    assert_no_cut_loses(CodeSpec::raid6(4), 0, Cuts::All);
}
