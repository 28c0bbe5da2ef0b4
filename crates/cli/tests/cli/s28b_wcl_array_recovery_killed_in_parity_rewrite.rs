//! s28b (review s27r R27-2): on WCL array codes a client write killed at a torn cache block,
//! then the next open's recovery killed while it rewrote the cut write's cache stripe's
//! running parity from the data it decided (`decide_cache_stripe`, before its settle
//! begins, nothing on record): two crashes ALONE recorded acknowledged bytes LOST.
//!
//! Cause: that rewrite encodes the data as decided (each in-flight block old or new as it
//! stands, a first write's unacknowledged bytes as zeros). On an array code a running parity
//! block whose chain mixes a landed block of the write with one that did not land (or with
//! a first write's bytes) then holds neither the write's old nor its new version. The
//! rewrite goes one parity block at a time; killed between two of them, the next open met
//! such blocks beside blocks still of the write's versions, no world fitted its check
//! (`stale_beside_cut_write`), s26e's `decided_by_a_recovery_before` (every parity block
//! rewritten) did not apply, and the row's acknowledged cached bytes were recorded LOST
//! (xcode 4 KiB: every block of a stripe). Rule: such blocks count as unknown in both
//! versions and the row must then fit a world, checked
//! (`fits_rewritten_in_part_by_a_recovery`).
//!
//! Each scene: `store torture` writes `acked` writes, write `acked` killed at
//! `write-torn-block:w` (plan order), then `store ls` (its open's recovery) killed at
//! `settle-torn-block:r` (plan order); `get` must read every acknowledged byte (the cut
//! write's old or new) and `scrub` exit 0. On b97f293 (before the rule): xcode 4 KiB, seed
//! 101, 22 of the 70 pairs `w` 1..=7 x `r` 1..=10 lost; xcode 16 KiB seed 0x5eed0717 (s27c's
//! scene) 6 of 84 pairs `w` 1..=6 x `r` 1..=14 (`w` 2..4 with `r` 9, 10: one 4 KiB block,
//! bytes 20480..24576); hdp p=5 over 4 OSSs, seed 101, 2 of 112.

use crate::common;
use common::torture_scene::{
    cut_write_scene, reads_every_acknowledged_byte, XCODE_WCL, XCODE_WCL_16K,
};
use common::{copy_store, exaraid, fast_tempdir, killed_at_with, s};
use exaraid_store::torture::{write_of, FILE, KILL_IN_PLAN_ORDER_ENV};

/// The scenes' failures, said: `(w, r)` pairs whose `get` failed, with the error.
fn losses(
    (unit_bytes, init_args): (u64, &[&str]),
    (seed, acked): (u64, u64),
    write_kills: std::ops::RangeInclusive<u32>,
    recovery_kills: &[u32],
) -> Vec<String> {
    let tmp = fast_tempdir("s28b-recovery-killed");
    let mut failures = Vec::new();
    for w in write_kills {
        let cut_dir = tmp.path().join(format!("cut-{w}"));
        let acknowledged = cut_write_scene(
            s(&cut_dir),
            (unit_bytes, init_args),
            seed,
            acked,
            &format!("write-torn-block:{w}"),
        );
        for &r in recovery_kills {
            let dir = tmp.path().join(format!("cut-{w}-recovery-{r}"));
            copy_store(&cut_dir, &dir);
            let point = format!("settle-torn-block:{r}");
            let killed = killed_at_with(
                &["store", "ls", s(&dir)],
                b"",
                &point,
                &[KILL_IN_PLAN_ORDER_ENV],
            );
            let get = exaraid(&["store", "get", s(&dir), FILE], b"");
            if !get.status.success() {
                let err = String::from_utf8_lossy(&get.stderr);
                failures.push(format!(
                    "{init_args:?} unit {unit_bytes}, torture seed {seed:#x} write {acked} killed \
                     at write-torn-block:{w}, recovery {} at {point}: get failed: {}",
                    if killed { "killed" } else { "not killed" },
                    &err[..err.len().min(400)]
                ));
                continue;
            }
            // No wrong byte and no loss: the bytes and scrub (panics on a wrong byte).
            reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(seed, acked));
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::remove_dir_all(&cut_dir).unwrap();
    }
    failures
}

const HDP_WCL: &[&str] = &[
    "--oss",
    "4",
    "--code",
    "hdp",
    "--p",
    "5",
    "--write-path",
    "wcl",
];

#[test]
fn a_wcl_xcode_recovery_killed_anywhere_in_its_running_parity_rewrite_loses_no_acknowledged_byte() {
    let failures = losses((4096, XCODE_WCL), (101, 26), 1..=5, &[4, 5, 7, 9]);
    assert!(
        failures.is_empty(),
        "{} lost: {:#?}",
        failures.len(),
        failures
    );
}

/// s27c's scene (docs/store.md "OPEN after session 27"): 16 KiB elements, 4 blocks per
/// element, the rewrite cut in a later block row of the stripe, where the decided parity
/// mixes a landed block's bytes over acknowledged ones with its first-write bytes masked.
#[test]
fn a_wcl_xcode_16k_recovery_killed_in_a_later_block_rows_parity_rewrite_loses_no_acknowledged_byte()
{
    let failures = losses(XCODE_WCL_16K, (0x5eed_0717, 8), 2..=4, &[8, 9, 10, 11]);
    assert!(
        failures.is_empty(),
        "{} lost: {:#?}",
        failures.len(),
        failures
    );
}

#[test]
fn a_wcl_hdp_recovery_killed_in_its_running_parity_rewrite_loses_no_acknowledged_byte() {
    let failures = losses((4096, HDP_WCL), (101, 26), 1..=2, &[4, 5, 6]);
    assert!(
        failures.is_empty(),
        "{} lost: {:#?}",
        failures.len(),
        failures
    );
}
