//! s26e: a LOSS from kills alone (the once-seen `store_crash.rs`
//! `wcl_raid6_survives_kill_9_inside_recovery_after_random_crashes` family), cut down to
//! named kill points. WCL raid6 3+2, 4 KiB stripe unit: the `torture` sequence's write 23 of
//! seed 0x5eed4603 (77,605..83,059, an overwrite inside cache stripe 6, which earlier writes
//! filled in part) is killed at its 3rd block write in plan order (`write-torn-block:3`:
//! the running parity P of cache stripe 6 on OSS 2, its payload written, its checksum not).
//! An open's recovery alone decides that cache stripe and reads every acknowledged byte.
//! Killed right after its `SettleBegin` (`settle-begun:1`), the recovery has already
//! rewritten the cache stripe's running parity (P and Q, OSSs 2 and 3) from the data it
//! decided (`decide_cache_stripe`, before the settle begins, no record of it); the next
//! open finds the cut write still in flight beside a running parity that is neither the
//! write's old nor its new one, and records the whole home stripe 6 LOST ("a move of
//! cached bytes home (a settle) could not tell its true bytes"): 11,527 acknowledged bytes
//! lost by crashes alone. Found by `scripts/repro/s26e-wcl-raid6-kill-sweep.py` (seed 0x2,
//! trial 72, there with `settle-element` kills: any kill after the rewrite loses them).
//! Fixed: `stale_beside_cut_write` takes a row that stands as such a rewrite left it
//! (`decided_by_a_recovery_before`) as the first recovery took it.

use crate::common;
use common::torture_scene::{
    cut_write_scene as torture_cut_write_scene,
    reads_every_acknowledged_byte as reads_every_acknowledged_byte_of, RAID6_WCL_4K,
};
use common::{journal_records, killed_at, s};

use exaraid_store::torture::{write_of, SETTLE_BEGUN, WRITE_PAGE_CUT};

const SEED: u64 = 0x5eed_4603;
/// Writes of the sequence acknowledged before the one cut.
const ACKED_WRITES: u64 = 23;
/// The page-cut scene (sweep seed 0x21, trial 40): write 15 of seed 0x5eed7f01
/// (61,712..76,346).
const PAGE_CUT_SEED: u64 = 0x5eed_7f01;
const PAGE_CUT_ACKED_WRITES: u64 = 15;

/// The store after `ACKED_WRITES` acknowledged writes and write `ACKED_WRITES` killed at
/// its 3rd block write (plan order); the acknowledged bytes.
fn cut_write_scene(dir: &str) -> Vec<u8> {
    cut_write_scene_at(dir, SEED, ACKED_WRITES, "write-torn-block:3")
}

/// The store after `acked` acknowledged writes of torture seed `seed` and write `acked`
/// killed at `kill_at` (plan order); the acknowledged bytes.
fn cut_write_scene_at(dir: &str, seed: u64, acked: u64, kill_at: &str) -> Vec<u8> {
    torture_cut_write_scene(dir, RAID6_WCL_4K, seed, acked, kill_at)
}

/// Every acknowledged byte reads back (the cut write's bytes old or new), and scrub is
/// clean.
fn reads_every_acknowledged_byte(dir: &str, acknowledged: &[u8]) {
    reads_every_acknowledged_byte_of(dir, acknowledged, write_of(SEED, ACKED_WRITES));
}

#[test]
fn a_wcl_raid6_write_cut_at_its_running_parity_reads_every_acknowledged_byte_after_recovery() {
    let tmp = common::fast_tempdir("s26e-cut");
    let dir = tmp.path().join("store");
    let acknowledged = cut_write_scene(s(&dir));
    reads_every_acknowledged_byte(s(&dir), &acknowledged);
}

#[test]
fn a_wcl_raid6_recovery_killed_after_it_rewrote_a_cut_writes_running_parity_loses_no_acknowledged_byte(
) {
    let tmp = common::fast_tempdir("s26e-cut-kill");
    let dir = tmp.path().join("store");
    let acknowledged = cut_write_scene(s(&dir));
    assert!(
        killed_at(&["store", "ls", s(&dir)], b"", &format!("{SETTLE_BEGUN}:1")),
        "recovery was not killed after its SettleBegin"
    );
    let records = journal_records(&dir);
    assert!(
        records.last().is_some_and(|r| r.contains("SettleBegin")),
        "the killed recovery's last record is its SettleBegin: {:?}",
        records.last()
    );
    reads_every_acknowledged_byte(s(&dir), &acknowledged);
}

/// Suspect (a) of the item, shown: a kill -9 that stops a WCL raid6 block write at a 4 KiB
/// page boundary of its zone file (`write-page-cut`: new bytes up to it, old from it, the
/// old checksum; s26e's `block-page-cut:4`, the same block write since s27c merged the two
/// page-cut families), with no kill inside recovery, lost an acknowledged 4 KiB block (file
/// bytes 69,632..73,728, OSS 2, cache slot 4: "a move of cached bytes home (a settle) could
/// not tell its true bytes"). Write 15 of torture seed 0x5eed7f01 (61,712..76,346, over two
/// home stripes) cut at its 4th block write in plan order. Fixed (s27c): the write journals
/// the page-cut crcs of its cache data blocks (`WriteParityCrcs::page_cuts`, s26a's
/// record) and recovery keeps such a block whole where both parts match
/// (`cache_page_cut_holds`).
#[test]
fn a_wcl_raid6_write_stopped_at_a_page_boundary_inside_a_block_loses_no_acknowledged_byte() {
    let tmp = common::fast_tempdir("s26e-page-cut");
    let dir = tmp.path().join("store");
    let acknowledged = cut_write_scene_at(
        s(&dir),
        PAGE_CUT_SEED,
        PAGE_CUT_ACKED_WRITES,
        &format!("{WRITE_PAGE_CUT}:4"),
    );
    reads_every_acknowledged_byte_of(
        s(&dir),
        &acknowledged,
        write_of(PAGE_CUT_SEED, PAGE_CUT_ACKED_WRITES),
    );
}
