//! s30d: a recovery killed between its own running parity rewrites loses no acknowledged
//! byte: before its first parity write it journals its decision (`Rec::RecoveryDecision`:
//! the crc of every data block it decided, of every parity block it will write), and the
//! next open decides the row by that record (`decided_by_record`), where the disk alone
//! holds parity of neither version of the cut write.

use crate::common;
use common::torture_scene::{cut_write_scene, reads_every_acknowledged_byte, RAID6_WCL_4K};
use common::{s, RS_4_2_WCL};

use exaraid_store::torture::{
    write_of, KILL_IN_PLAN_ORDER_ENV, SETTLE_BEFORE_BLOCK, SETTLE_PAGE_CUT, WRITE_PAGE_CUT,
};

/// WCL rs 4+2 at a 4 KiB stripe unit.
const RS_4_2_WCL_4K: (u64, &[&str]) = (4096, RS_4_2_WCL);

/// s26e's sweep, seed 0x32, rs 4+2, trial 52 (docs/results/s29b-recovery-parity-rewrite-in-part.md):
/// write 30 of torture seed 0x5eed14b2 killed at `write-page-cut:3`, then the open's recovery
/// killed at `settle-page-cut:2`, inside its second running parity write of the cut cache
/// stripe. s29b's rule (the crcs of the write's parity, combined over terms of coefficient
/// 1) cannot confirm a row of a Cauchy code: on 6b51ed6 `get` failed, "reading file
/// 'torture' bytes 6233..95130 failed: the store could not tell the true bytes ..." (file
/// bytes 32768..49152 LOST, a crash alone).
#[test]
fn an_rs_4_2_recovery_killed_between_its_running_parity_rewrites_loses_no_acknowledged_byte() {
    const SEED: u64 = 0x5eed_14b2;
    const ACKED: u64 = 30;
    let tmp = common::fast_tempdir("s30d-rs-recovery-parity-rewrite");
    let dir = tmp.path().join("store");
    let kill_at = format!("{WRITE_PAGE_CUT}:3");
    let acknowledged = cut_write_scene(s(&dir), RS_4_2_WCL_4K, SEED, ACKED, &kill_at);
    let recovery_kill = format!("{SETTLE_PAGE_CUT}:2");
    let ls = ["store", "ls", s(&dir)];
    assert!(
        common::killed_at_with(&ls, b"", &recovery_kill, &[KILL_IN_PLAN_ORDER_ENV]),
        "recovery was not killed at {recovery_kill}"
    );
    reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
}

/// Recovery block writes the sweep below kills before (the cut cache stripe's running
/// parity rewrites come first, then the settle's home writes).
const RECOVERY_BLOCK_WRITES: u32 = 4;

/// s29b's raid6 scene (write 13 of torture seed 0x5eed4103 killed before its 7th block
/// write), its recovery killed BETWEEN two of its own block writes (`settle-before-block`,
/// s30d: before, a recovery was stopped only inside a block write), at each of its first
/// writes, then opened once more: every acknowledged byte reads, scrub clean.
#[test]
fn a_wcl_raid6_recovery_killed_before_any_of_its_block_writes_loses_no_acknowledged_byte() {
    const SEED: u64 = 0x5eed_4103;
    const ACKED: u64 = 13;
    let tmp = common::fast_tempdir("s30d-raid6-recovery-before-block");
    let dir = tmp.path().join("store");
    for n in 1..=RECOVERY_BLOCK_WRITES {
        let kill_at = format!("{WRITE_PAGE_CUT}:7");
        let acknowledged = cut_write_scene(s(&dir), RAID6_WCL_4K, SEED, ACKED, &kill_at);
        let recovery_kill = format!("{SETTLE_BEFORE_BLOCK}:{n}");
        let ls = ["store", "ls", s(&dir)];
        assert!(
            common::killed_at_with(&ls, b"", &recovery_kill, &[KILL_IN_PLAN_ORDER_ENV]),
            "recovery was not killed at {recovery_kill}"
        );
        reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
