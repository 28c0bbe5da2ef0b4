//! s28c: a kill -9 between the block writes of one WCL client write never loses an
//! acknowledged byte, also where the write updates one running parity block in two block
//! writes (its delta has two runs in the block: the tail of one data column and the head of
//! the next), each with its checksum.
//!
//! The scene (found by s27c, torture seed 0x5eed6b31 on WCL raid6 3+2 at 4 KiB): write 14
//! (56,315..60,072) writes cache stripe 4's data columns 1 and 2 (OSSs 2 and 3), then its
//! running parity P on OSS 0 in two block writes (pieces 0..2728 and 3067..4096), then Q on
//! OSS 4 in two. Killed after P's first block write, P verifies holding its new bytes in
//! one piece and its old bytes in the other. Before s28c `stale_beside_cut_write` took
//! such a block as either version, no world fit the row, and its acknowledged cached bytes
//! were recorded LOST: on the base (b97f293) `get` failed naming "file 'torture' bytes
//! 49152..53248 (OSS 1, a move of cached bytes home (a settle) could not tell its true
//! bytes ...)", the untouched column 0 beside the write, by a crash alone.

use crate::common;
use common::torture_scene::{cut_write_scene, reads_every_acknowledged_byte, RAID6_WCL_4K};
use common::{killed_at_with, s};

use exaraid_store::torture::{
    write_of, KILL_IN_PLAN_ORDER_ENV, SETTLE_ELEMENT, SETTLE_PAGE_CUT_LAST, WRITE_PAGE_CUT,
    WRITE_TORN_BLOCK,
};

const SEED: u64 = 0x5eed_6b31;
/// Writes of the sequence acknowledged before the one cut.
const ACKED_WRITES: u64 = 14;
/// Block writes of write 14 in plan order: data on OSSs 2 and 3, P twice, Q twice.
const BLOCK_WRITES: u32 = 6;

/// Write 14 killed before its 4th block write: `write-page-cut:4` stops that write at its
/// first 4 KiB boundary inside the block, and cache slot 0 is page-aligned, so it writes
/// nothing of it. P's first block write (3rd) is whole, its second (4th) never began.
#[test]
fn a_wcl_raid6_write_killed_between_the_two_block_writes_of_its_running_parity_block_loses_no_acknowledged_byte(
) {
    let tmp = common::fast_tempdir("s28c-parity-pieces");
    let dir = tmp.path().join("store");
    let kill_at = format!("{WRITE_PAGE_CUT}:4");
    let acknowledged = cut_write_scene(s(&dir), RAID6_WCL_4K, SEED, ACKED_WRITES, &kill_at);
    reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED_WRITES));
}

/// The same write cut before and inside each of its block writes (nothing of it written,
/// or its payload without its checksum): every acknowledged byte reads, scrub clean. On the
/// base only the cut before the 4th failed (the test above); a guard for the others.
#[test]
fn a_wcl_raid6_write_cut_at_any_of_its_block_writes_loses_no_acknowledged_byte() {
    let tmp = common::fast_tempdir("s28c-parity-pieces-every");
    let dir = tmp.path().join("store");
    for point in [WRITE_PAGE_CUT, WRITE_TORN_BLOCK] {
        for n in 1..=BLOCK_WRITES {
            let kill_at = format!("{point}:{n}");
            let acknowledged = cut_write_scene(s(&dir), RAID6_WCL_4K, SEED, ACKED_WRITES, &kill_at);
            reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED_WRITES));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

/// s26e's sweep (seed 0x32, trial 7; `--writer-point write-page-cut --recovery-points ...
/// settle-page-cut-last`): write 13 of torture seed 0x5eed4103 (17,008..35,474) killed before
/// its 7th block write (cache stripe 1: data column 1 on OSS 0 written over acknowledged
/// bytes, column 2 and the running parity not), then the open's recovery killed before its
/// 2nd block write (it rewrote P on OSS 2 from the row as it stands, not Q on OSS 3). The
/// next open finds P of neither version of the cut write, with Q old: on the disk alone
/// nothing is left to check the row with on two parities. On 20c2fb7 it recorded all of
/// cache stripe 1's acknowledged bytes LOST (file bytes 12288..24576, OSSs 4, 0, 1); from
/// s29b (`decided_in_part_by_a_recovery_before`) to 6b51ed6 column 2's block (file bytes
/// 20480..24576: it did not land, and nothing on disk tells it from a stale column) stayed
/// LOST, named: "get after the kills: ... file 'torture' bytes 20480..24576 (OSS 1, ...".
/// Since s30d the killed recovery journaled its decision (every data block's crc, each
/// parity block's it would write) before its first parity write, and the next open decides
/// the row by that record (`decided_by_record`): every acknowledged byte reads, scrub clean.
/// The sweep's second recovery kill (`settle-element:2`) changes nothing.
#[test]
fn a_wcl_raid6_recovery_killed_between_its_two_running_parity_rewrites_loses_no_acknowledged_byte()
{
    const SEED: u64 = 0x5eed_4103;
    const ACKED: u64 = 13;
    let tmp = common::fast_tempdir("s28c-recovery-parity-rewrite");
    let dir = tmp.path().join("store");
    let kill_at = format!("{WRITE_PAGE_CUT}:7");
    let acknowledged = cut_write_scene(s(&dir), RAID6_WCL_4K, SEED, ACKED, &kill_at);
    for recovery_kill in [
        format!("{SETTLE_PAGE_CUT_LAST}:2"),
        format!("{SETTLE_ELEMENT}:2"),
    ] {
        let ls = ["store", "ls", s(&dir)];
        assert!(
            killed_at_with(&ls, b"", &recovery_kill, &[KILL_IN_PLAN_ORDER_ENV]),
            "recovery was not killed at {recovery_kill}"
        );
    }
    reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
}
