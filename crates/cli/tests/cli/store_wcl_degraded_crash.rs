//! kill -9 of a WCL write while one OSS is failed, at every block the write puts on disk
//! (issue #4, review finding D5). The failed OSS holds acknowledged cached bytes: they exist
//! only as a decode of their WCL cache stripe, whose data and running parity the cut write
//! leaves of different versions. On array codes (xcode, dcode, evenodd, rdp) the next `get`
//! used to return thousands of those acknowledged bytes decoded from a half-updated running
//! parity, neither old nor new, with exit 0 (and the settle then wrote them home for good);
//! at other kill points they were `DataLost`. With one failure on a 2-tolerant code nothing
//! acknowledged may be lost or changed: every acknowledged byte must read exactly and the
//! cut write's range old or new. raid6 is the control (one row: never affected).
//!
//! Each round writes the same acknowledged writes (they fill the cache stripe with bytes on
//! the failed OSS), then the cut write with `EXARAID_KILL_AT=write-torn-block:n` (SIGKILL
//! between a block's new bytes and its checksum) for n = 1, 2, ... until it finishes, and
//! the recovery after each kill is killed once too (in its first block write). The
//! offsets are the reviewer's reproduction (seeded random writes into a 50,000-byte file):
//! the cut write shares element offsets with cached bytes of OSS 0 on every code here.

use crate::common;

use common::{bytes, fast_tempdir, killed_at_with, ok, s};
use exaraid_store::torture::{KILL_IN_PLAN_ORDER_ENV, SETTLE_TORN_BLOCK, WRITE_TORN_BLOCK};

/// The kills run the plan's steps in plan order (s34d, item (7) of "OPEN after session 33"):
/// in thread order the n-th block write was another block from run to run, so a failure at
/// one n could not be repeated and a block could go unswept.
const IN_PLAN_ORDER: &[&str] = &[KILL_IN_PLAN_ORDER_ENV];

const FILE_BYTES: usize = 50_000;
/// Acknowledged writes `(offset, length)` before the cut one, in order.
const ACKED_WRITES: [(usize, usize); 5] = [
    (21222, 2472),
    (25875, 792),
    (4747, 8780),
    (6168, 5992),
    (38193, 951),
];
/// The write cut by the kill: `(offset, length)`.
const CUT_WRITE: (usize, usize) = (33255, 7036);
/// The failed OSS of the array-code tests (each code's sweep over every OSS below).
const FAILED_OSS: usize = 0;
/// More kill points than the cut write passes (it then finishes).
const KILLS_MAX: u64 = 32;

fn degraded_wcl_write_killed_at_every_block(code: &[&str], failed_oss: usize) {
    let failed = failed_oss.to_string();
    let tmp = fast_tempdir("exaraid-wcl-degraded-crash");
    let dir = tmp.path().join("store");
    let mut args = vec!["store", "init", s(&dir)];
    args.extend_from_slice(code);
    args.extend_from_slice(&["--stripe-unit", "4096", "--write-path", "wcl"]);
    ok(&args, b"");
    let mut model = bytes(7, FILE_BYTES);
    ok(&["store", "put", s(&dir), "f"], &model);
    ok(&["store", "fail", s(&dir), "--oss", &failed], b"");
    let (a, z) = (CUT_WRITE.0, CUT_WRITE.0 + CUT_WRITE.1);
    let cut_offset = a.to_string();
    let (mut kills, mut recovery_kills) = (0, 0);
    for n in 1..=KILLS_MAX {
        for (i, &(offset, len)) in ACKED_WRITES.iter().enumerate() {
            let new = bytes(10 + 5 * n as u8 + i as u8, len);
            let offset_arg = offset.to_string();
            ok(
                &["store", "write", s(&dir), "f", "--offset", &offset_arg],
                &new,
            );
            model[offset..offset + len].copy_from_slice(&new);
        }
        let new = bytes(200 + n as u8, CUT_WRITE.1);
        let write = ["store", "write", s(&dir), "f", "--offset", &cut_offset];
        let killed = killed_at_with(
            &write,
            &new,
            &format!("{WRITE_TORN_BLOCK}:{n}"),
            IN_PLAN_ORDER,
        );
        if killed {
            // The recovery that follows, killed too (torn in its first block write): the
            // next open must still know the failed OSS's cached bytes.
            let get = ["store", "get", s(&dir), "f"];
            let point = format!("{SETTLE_TORN_BLOCK}:1");
            recovery_kills += killed_at_with(&get, b"", &point, IN_PLAN_ORDER) as usize;
        }
        let out = common::exaraid(&["store", "get", s(&dir), "f"], b"");
        assert!(
            out.status.success(),
            "{code:?}, OSS {failed_oss} failed, write killed at block {n}: get fails: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = out.stdout;
        assert_eq!(
            got.len(),
            model.len(),
            "{code:?}, OSS {failed_oss} failed at {n}: size"
        );
        let wrong: Vec<usize> = (0..got.len())
            .filter(|&i| got[i] != model[i] && !((a..z).contains(&i) && got[i] == new[i - a]))
            .collect();
        assert!(
            wrong.is_empty(),
            "{code:?}, OSS {failed_oss} failed, write {a}..{z} killed at block {n}: {} bytes \
             neither acknowledged nor (in the cut range) new, first {:?} last {:?}",
            wrong.len(),
            wrong.first(),
            wrong.last()
        );
        if !killed {
            assert_eq!(
                got[a..z],
                new[..],
                "{code:?}, OSS {failed_oss} failed: the finished write"
            );
            model = got;
            break;
        }
        kills += 1;
        model = got;
    }
    assert!(
        kills >= 2,
        "{code:?}, OSS {failed_oss} failed: only {kills} kills landed in the write"
    );
    assert!(
        recovery_kills >= 1,
        "{code:?}, OSS {failed_oss} failed: no kill landed in a recovery"
    );
    // What the recoveries wrote home is whole: rebuilt, the failed OSS gives the same bytes
    // and scrub finds nothing.
    ok(&["store", "rebuild", s(&dir), "--oss", &failed], b"");
    let scrub = common::exaraid(&["store", "scrub", s(&dir)], b"");
    assert!(
        scrub.status.success(),
        "{code:?}, OSS {failed_oss} failed: scrub after rebuild: {}{}",
        String::from_utf8_lossy(&scrub.stdout),
        String::from_utf8_lossy(&scrub.stderr)
    );
    assert!(
        ok(&["store", "get", s(&dir), "f"], b"") == model,
        "{code:?}, OSS {failed_oss} failed: rebuild changed f"
    );
}

#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_xcode() {
    degraded_wcl_write_killed_at_every_block(
        &["--oss", "5", "--code", "xcode", "--p", "5"],
        FAILED_OSS,
    );
}

#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_dcode() {
    degraded_wcl_write_killed_at_every_block(
        &["--oss", "5", "--code", "dcode", "--p", "5"],
        FAILED_OSS,
    );
}

#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_evenodd() {
    degraded_wcl_write_killed_at_every_block(
        &["--oss", "7", "--code", "evenodd", "--p", "5"],
        FAILED_OSS,
    );
}

#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_rdp() {
    degraded_wcl_write_killed_at_every_block(
        &["--oss", "6", "--code", "rdp", "--p", "5"],
        FAILED_OSS,
    );
}

/// The control: one row per column, so a decode never meets a half-updated parity of
/// another row (never affected by D5).
#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_raid6() {
    degraded_wcl_write_killed_at_every_block(&["--oss", "5", "--code", "raid6"], FAILED_OSS);
}

/// Every OSS failed in turn (review r37c L3: the test above covered raid6 with OSS 0 failed
/// only): whatever the layout puts on the failed OSS in the cut write's cache stripe (a data
/// column or a running parity one), a kill alone beside it is within the code's tolerance and
/// must lose nothing. The stale-beside-cut rules for a row with a failed parity OSS and a
/// torn running parity block (s35f, s37c, s38a) meet such kills here.
#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_raid6_every_failed_oss() {
    for failed_oss in 0..5 {
        degraded_wcl_write_killed_at_every_block(&["--oss", "5", "--code", "raid6"], failed_oss);
    }
}

/// rs 4+3 (three parities: P, Q and R), every OSS failed in turn, as above.
#[test]
fn a_degraded_wcl_write_killed_at_any_block_keeps_every_acknowledged_byte_rs_4_3_every_failed_oss()
{
    let code = ["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"];
    for failed_oss in 0..7 {
        degraded_wcl_write_killed_at_every_block(&code, failed_oss);
    }
}
