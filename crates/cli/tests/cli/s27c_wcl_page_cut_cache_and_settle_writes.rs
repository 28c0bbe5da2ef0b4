//! s27c: a kill -9 that stops a WCL cache block write, or a settle's (move home) block
//! write, at a 4 KiB page boundary of its zone file inside a block never loses an
//! acknowledged byte. Such a kill leaves the block's new bytes before the boundary and its
//! old bytes from it on, under its old checksum (Linux checks for a fatal signal before
//! each page it copies; slots are not page-aligned past slot 0). The kill points
//! `write-page-cut[-last]` / `settle-page-cut[-last]` (one family since s27c) make that
//! state at the n-th block write (plan order).
//!
//! Before s27c a WCL client write journaled no page-cut crcs for its cache blocks, so a
//! cache data block cut that way matched neither the write's crcs nor its checksum, was
//! taken for rot beside the cut write, and with the write's other columns in flight its
//! acknowledged bytes were recorded LOST ("a move of cached bytes home (a settle) could
//! not tell its true bytes"). The write now journals them in its `WriteParityCrcs` record
//! (s26a's `page_cuts`, synced before its first cache write) and recovery keeps such a
//! block whole where both parts match (`cache_page_cut_holds`).

use crate::common;
use common::torture_scene::{cut_write_scene, reads_every_acknowledged_byte, XCODE_WCL_16K};
use common::{exaraid, init_store_unit, killed_at_with, ok, random_bytes, s};

use exaraid_store::torture::{
    write_of, KILL_IN_PLAN_ORDER_ENV, SETTLE_PAGE_CUT, SETTLE_PAGE_CUT_LAST, SETTLE_TORN_BLOCK,
    WRITE_PAGE_CUT, WRITE_TORN_BLOCK,
};

/// WCL raid6 3+2 at a 16 KiB stripe unit (4 blocks an element).
const RAID6_WCL_16K: (u64, &[&str]) = (
    16384,
    &[
        "--oss",
        "5",
        "--code",
        "raid6",
        "--k",
        "3",
        "--write-path",
        "wcl",
    ],
);
/// Most block writes a flush or recovery of these scenes makes: past it the sweep stops.
const KILL_POINTS_MAX: u32 = 64;

/// Found by `scripts/repro/s26e-wcl-raid6-kill-sweep.py` (seed 0x21, `--code raid6:5
/// --unit 16384 --writer-point write-page-cut`, trial 56): write 36 of torture seed
/// 0x5eedf5fe stopped at its 4th block write in plan order, a page boundary inside block 3
/// of cache slot 1 on OSS 4. On the base: "file 'torture' bytes 61440..65536 (OSS 4, a
/// move of cached bytes home (a settle) could not tell its true bytes ...)".
#[test]
fn a_wcl_raid6_write_stopped_at_a_page_boundary_inside_a_16k_cache_element_loses_no_acknowledged_byte(
) {
    const SEED: u64 = 0x5eed_f5fe;
    const ACKED: u64 = 36;
    let tmp = common::fast_tempdir("s27c-raid6-page-cut");
    let dir = tmp.path().join("store");
    let acknowledged = cut_write_scene(
        s(&dir),
        RAID6_WCL_16K,
        SEED,
        ACKED,
        &format!("{WRITE_PAGE_CUT}:4"),
    );
    reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
}

/// Found by the same sweep (seed 0x22, `--code xcode:5:5 --unit 4096 --writer-point
/// write-page-cut`, trial 93; at 16 KiB 200 trials found none without a recovery kill):
/// write 19 of torture seed 0x5eed4be3 stopped at its 7th block write in plan order, a page
/// boundary inside cache slot 5 on OSS 4. On the base: "file 'torture' bytes 16384..20480
/// (OSS 4, a move of cached bytes home (a settle) could not tell its true bytes ...)".
#[test]
fn a_wcl_xcode_write_stopped_at_a_page_boundary_inside_a_cache_block_loses_no_acknowledged_byte() {
    const SEED: u64 = 0x5eed_4be3;
    const ACKED: u64 = 19;
    let xcode_4k: (u64, &[&str]) = (4096, XCODE_WCL_16K.1);
    let tmp = common::fast_tempdir("s27c-xcode-page-cut");
    let dir = tmp.path().join("store");
    let acknowledged = cut_write_scene(
        s(&dir),
        xcode_4k,
        SEED,
        ACKED,
        &format!("{WRITE_PAGE_CUT}:7"),
    );
    reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
}

/// The acknowledged bytes of the settle scenes: a put and an overwrite inside it, both
/// cached (WCL), moved home by the settle the tests cut.
fn cached_scene(dir: &str, code: (u64, &[&str])) -> Vec<u8> {
    init_store_unit(dir, code.0, code.1);
    let mut acknowledged = random_bytes(0x27c1, 150_000);
    ok(&["store", "put", dir, "f"], &acknowledged);
    let over = random_bytes(0x27c2, 30_000);
    ok(&["store", "write", dir, "f", "--offset", "12345"], &over);
    common::put_over(&mut acknowledged, 12_345, &over);
    acknowledged
}

fn reads_back(dir: &str, acknowledged: &[u8], what: &str) {
    let got = exaraid(&["store", "get", dir, "f"], b"");
    assert!(
        got.status.success(),
        "{what}: get: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert!(got.stdout == acknowledged, "{what}: wrong bytes read back");
    let scrub = exaraid(&["store", "scrub", dir], b"");
    assert!(scrub.status.success(), "{what}: scrub: {scrub:?}");
}

/// A `flush` (a settle: the cached bytes move home) killed at each of its block writes at
/// the first and the last page boundary inside it: the next open finishes the settle and
/// every acknowledged byte reads back, scrub clean. Passes on the base too (the open
/// redoes the whole settle from the cache zone, which the settle never changed): a guard.
fn flush_cut_at_every_page_boundary(code: (u64, &[&str])) {
    let tmp = common::fast_tempdir("s27c-flush-page-cut");
    let scene = tmp.path().join("scene");
    let acknowledged = cached_scene(s(&scene), code);
    let dir = tmp.path().join("store");
    for point in [SETTLE_PAGE_CUT, SETTLE_PAGE_CUT_LAST] {
        let mut killed = 0;
        for n in 1..=KILL_POINTS_MAX {
            common::copy_store(&scene, &dir);
            let kill_at = format!("{point}:{n}");
            let flush = ["store", "flush", s(&dir)];
            if !killed_at_with(&flush, b"", &kill_at, &[KILL_IN_PLAN_ORDER_ENV]) {
                break;
            }
            killed += 1;
            reads_back(
                s(&dir),
                &acknowledged,
                &format!("flush killed at {kill_at}"),
            );
        }
        assert!(
            killed >= 4,
            "{point}: the flush was killed {killed} times only"
        );
    }
}

#[test]
fn a_wcl_raid6_flush_stopped_at_a_page_boundary_inside_any_block_loses_no_acknowledged_byte() {
    flush_cut_at_every_page_boundary(RAID6_WCL_16K);
}

#[test]
fn a_wcl_xcode_flush_stopped_at_a_page_boundary_inside_any_block_loses_no_acknowledged_byte() {
    flush_cut_at_every_page_boundary(XCODE_WCL_16K);
}

/// s26e's first scene (write 23 of torture seed 0x5eed4603 on raid6 3+2 at 4 KiB, cut at
/// its running parity P, `write-torn-block:3`), then the open's recovery (which rewrites
/// cache blocks and moves the cache stripe home) killed at each of its block writes at a
/// page boundary, then an open that finishes it: every acknowledged byte reads back.
#[test]
fn a_wcl_raid6_recovery_stopped_at_a_page_boundary_inside_any_block_loses_no_acknowledged_byte() {
    const SEED: u64 = 0x5eed_4603;
    const ACKED: u64 = 23;
    let raid6_4k: (u64, &[&str]) = (4096, RAID6_WCL_16K.1);
    let tmp = common::fast_tempdir("s27c-recovery-page-cut");
    let scene = tmp.path().join("scene");
    let cut = format!("{WRITE_TORN_BLOCK}:3");
    let acknowledged = cut_write_scene(s(&scene), raid6_4k, SEED, ACKED, &cut);
    let dir = tmp.path().join("store");
    for point in [SETTLE_PAGE_CUT, SETTLE_PAGE_CUT_LAST] {
        let mut killed = 0;
        for n in 1..=KILL_POINTS_MAX {
            common::copy_store(&scene, &dir);
            let kill_at = format!("{point}:{n}");
            let ls = ["store", "ls", s(&dir)];
            if !killed_at_with(&ls, b"", &kill_at, &[KILL_IN_PLAN_ORDER_ENV]) {
                break;
            }
            killed += 1;
            reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
        }
        assert!(
            killed >= 2,
            "{point}: recovery was killed {killed} times only"
        );
    }
}

/// The page-cut rule as first written (the block kept as it stands ahead of every other
/// rule) lost acknowledged bytes where a decode had proven the block: found by the sweep
/// (seed 0x31, `--code xcode:5:5 --unit 4096`, trial 118). Write 23 of torture seed
/// 0x5eed0cdd stopped at its first block write at a page boundary (cache slot 1 on OSS 0),
/// then the open's recovery killed at its 2nd..5th torn block write (in plan order: the
/// rewrite of cache slot 3 on OSSs 4, 0, 1, 2): the next open found a row holding the
/// mixed block, which fits neither version of the cut write, beside a running parity
/// rewritten in part, and recorded 3 blocks LOST (file bytes 61440..73728). The base and
/// the rule now (the block kept as it stands only where nothing else proves it) read every
/// byte.
#[test]
fn a_wcl_xcode_recovery_killed_after_a_page_cut_write_loses_no_acknowledged_byte() {
    const SEED: u64 = 0x5eed_0cdd;
    const ACKED: u64 = 23;
    let xcode_4k: (u64, &[&str]) = (4096, XCODE_WCL_16K.1);
    let tmp = common::fast_tempdir("s27c-xcode-page-cut-recovery");
    let scene = tmp.path().join("scene");
    let cut = format!("{WRITE_PAGE_CUT}:1");
    let acknowledged = cut_write_scene(s(&scene), xcode_4k, SEED, ACKED, &cut);
    let dir = tmp.path().join("store");
    for m in 1..=8 {
        common::copy_store(&scene, &dir);
        let kill_at = format!("{SETTLE_TORN_BLOCK}:{m}");
        let ls = ["store", "ls", s(&dir)];
        assert!(
            killed_at_with(&ls, b"", &kill_at, &[KILL_IN_PLAN_ORDER_ENV]),
            "recovery was not killed at {kill_at}"
        );
        reads_every_acknowledged_byte(s(&dir), &acknowledged, write_of(SEED, ACKED));
    }
}
