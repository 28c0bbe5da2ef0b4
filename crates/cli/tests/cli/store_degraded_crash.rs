//! kill -9 of a write or a put while one OSS is failed (within the code's tolerance), at
//! every block the command writes (issue #4 F2, F3). The failed OSS holds a data column of
//! the written stripe that the write does not touch: its bytes exist only as a decode of
//! the other columns, and a write cut between data and parity used to leave them
//! undecidable (`DataLost` for acknowledged bytes after reopen). Each command runs with
//! `EXARAID_KILL_AT=write-torn-block:n` (SIGKILL between a block's new bytes and its
//! checksum) for n = 1, 2, ... until it finishes; after every kill the store is reopened
//! and every acknowledged byte checked.

use crate::common;

use std::path::Path;

use common::{bytes, fast_tempdir, ok, s};
use exaraid_store::torture::{JOURNAL_RECORD, SETTLE_TORN_BLOCK, WRITE_TORN_BLOCK};
use exaraid_store::Store;

const UNIT_BYTES: u64 = 4096;
const FILE_BYTES: usize = 64 * 1024;
/// More kill points than any command here passes (it then finishes).
const KILLS_MAX: u64 = 64;

/// Run `exaraid args` with `stdin`, set to SIGKILL itself at the `n`-th torn block write,
/// the plan's steps in plan order (s34d, item (7) of "OPEN after session 33": in thread
/// order the sweep's n-th kill was another block from run to run, so a failure could not be
/// repeated and a block could go unswept; the other sweeps here run in plan order too).
/// `true`: killed there; `false`: it finished first. Anything else fails the test.
fn killed_at_block(args: &[&str], stdin: &[u8], n: u64) -> bool {
    common::killed_at_with(
        args,
        stdin,
        &format!("{WRITE_TORN_BLOCK}:{n}"),
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    )
}

/// Where the sweep kills the write: at its n-th torn block write, or right after its n-th
/// journal record (the first one, the planner's input, comes before the failed column's
/// copy is on record: review H2).
#[derive(Clone, Copy, Debug)]
enum Kill {
    Block,
    Record,
}

/// The OSS holding a data column of the stripe of file byte `at` other than the column of
/// `at` itself (its bytes are not rewritten by a small write at `at`).
fn oss_of_other_data_column(dir: &Path, name: &str, at: u64) -> usize {
    let store = Store::open(dir).unwrap();
    let id = store.file_id(name).unwrap();
    let layout = store.layout();
    let sdb = layout.stripe_data_bytes();
    let (_, written) = layout.split(at, 1).unwrap()[0];
    let stripe_start = at / sdb * sdb;
    let other = (stripe_start..stripe_start + sdb)
        .step_by(UNIT_BYTES as usize)
        .map(|o| layout.split(o, 1).unwrap()[0].1)
        .find(|el| el.pos.col != written.pos.col)
        .expect("a stripe has two data columns");
    let oss = layout.oss_of(id, written.stripe, other.pos.col);
    store.close().unwrap();
    oss
}

fn init(dir: &Path, code: &[&str]) {
    common::init_store(s(dir), code);
}

/// Every order (see `Order`), each on a fresh store: a sweep in the threads' own order met
/// the losing state of session 29 once in CI and in none of 90 local runs.
fn degraded_write_killed_at_every_block(code: &[&str]) {
    for order in [
        Order::Plan,
        Order::Reversed,
        Order::PlanTear,
        Order::ReversedTear,
    ] {
        degraded_write_killed_at_every_in(code, Kill::Block, order);
    }
}

/// In which order the write's block writes reach the kill count, and what the kill leaves
/// (never the per-OSS threads' own order, which depends on the machine's load).
/// `Reversed`: the plan's OSSs last to first (`torture::KILL_IN_REVERSED_PLAN_ORDER_ENV`), so
/// a two-write plan has its parity block torn before its data block is written. `Tear`:
/// every OSS's block write from the `n`-th on is torn at once
/// (`torture::KILL_TEAR_EVERY_OSS_ENV`), as a SIGKILL catches per-OSS threads each between a
/// block's payload and its checksum. Each is deterministic, where the threads' own order
/// reaches one of these states or another with the machine's load.
#[derive(Clone, Copy, Debug)]
enum Order {
    Plan,
    Reversed,
    PlanTear,
    ReversedTear,
}

/// Journal records are appended by the calling thread, but a failing OSS's copies and the
/// plan's steps between them are not: both step orders.
fn degraded_write_killed_at_every(code: &[&str], at: Kill) {
    for order in [Order::Plan, Order::Reversed] {
        degraded_write_killed_at_every_in(code, at, order);
    }
}

fn degraded_write_killed_at_every_in(code: &[&str], at: Kill, order: Order) {
    let tmp = fast_tempdir("exaraid-degraded-crash");
    let dir = tmp.path().join("store");
    init(&dir, code);
    let mut model = bytes(3, FILE_BYTES);
    ok(&["store", "put", s(&dir), "c"], &model);
    // 100 bytes inside the first data element of the file's last stripe.
    let sdb = Store::open(&dir).unwrap().layout().stripe_data_bytes();
    let off = (FILE_BYTES as u64 / sdb - 1) * sdb + 1000;
    let len = 100usize;
    let failed = oss_of_other_data_column(&dir, "c", off);
    ok(
        &["store", "fail", s(&dir), "--oss", &failed.to_string()],
        b"",
    );
    let offset = off.to_string();
    let (mut kills, mut recovery_kills) = (0, 0);
    for n in 1..=KILLS_MAX {
        let new = bytes(100 + n as u8, len);
        let args = ["store", "write", s(&dir), "c", "--offset", &offset];
        let point = match at {
            Kill::Block => WRITE_TORN_BLOCK,
            Kill::Record => JOURNAL_RECORD,
        };
        use exaraid_store::torture::{
            KILL_IN_PLAN_ORDER_ENV as PLAN, KILL_IN_REVERSED_PLAN_ORDER_ENV as REVERSED,
            KILL_TEAR_EVERY_OSS_ENV as TEAR,
        };
        let envs: &[&str] = match order {
            Order::Plan => &[PLAN],
            Order::Reversed => &[REVERSED],
            Order::PlanTear => &[PLAN, TEAR],
            Order::ReversedTear => &[REVERSED, TEAR],
        };
        let killed = common::killed_at_with(&args, &new, &format!("{point}:{n}"), envs);
        if killed {
            // The recovery that follows, killed too (torn in its own first block write): the
            // next open must still know the failed column's bytes.
            let point = format!("{SETTLE_TORN_BLOCK}:1");
            let get = ["store", "get", s(&dir), "c"];
            recovery_kills += common::killed_at_with(&get, b"", &point, envs) as usize;
        }
        let out = common::exaraid(&["store", "get", s(&dir), "c"], b"");
        assert!(
            out.status.success(),
            "{code:?}, OSS {failed} failed, write killed at {at:?} {n} in {order:?} order: get fails: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = out.stdout;
        assert_eq!(got.len(), model.len(), "{code:?} at {n}: size");
        let (a, z) = (off as usize, off as usize + len);
        for (i, (&g, &m)) in got.iter().zip(&model).enumerate() {
            let acknowledged = i < a || i >= z;
            assert!(
                g == m || (!acknowledged && g == new[i - a]),
                "{code:?}, OSS {failed} failed, write killed at {at:?} {n} in {order:?} order: byte {i} is {g}, acknowledged {m}{}",
                if acknowledged { String::new() } else { format!(" or new {}", new[i - a]) }
            );
        }
        if !killed {
            assert_eq!(got[a..z], new[..], "{code:?}: the finished write");
            model = got;
            break;
        }
        kills += 1;
        model = got;
    }
    // Full redundancy again, from what the kills left.
    let failed = failed.to_string();
    let out = common::exaraid(&["store", "rebuild", s(&dir), "--oss", &failed], b"");
    assert!(
        out.status.success(),
        "{code:?}, {at:?} kills: rebuild of OSS {failed} fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rebuilt = ok(&["store", "get", s(&dir), "c"], b"");
    assert!(
        rebuilt == model,
        "{code:?}: the file changed in the rebuild"
    );
    assert!(
        kills >= 2,
        "{code:?}: only {kills} kills landed in the write"
    );
    assert!(
        recovery_kills >= 1,
        "{code:?}: no kill landed in a recovery"
    );
}

#[test]
fn a_degraded_write_killed_at_any_block_keeps_every_acknowledged_byte_raid5() {
    degraded_write_killed_at_every_block(&["--oss", "4", "--code", "raid5"]);
}

/// Session 29 (the CI of 8aa0b29 failed once here in thread order): raid5 3+1, one data
/// column's OSS failed, a small write killed with its data block and its parity block both
/// torn (new payload, checksum not written: the two per-OSS threads each caught between the
/// two); the next `get` named the stripe's bytes of the written and of the failed column
/// LOST ("too few columns left to tell").
#[test]
fn a_degraded_raid5_write_torn_in_its_data_and_parity_blocks_at_once_keeps_every_acknowledged_byte()
{
    degraded_write_killed_at_every_in(
        &["--oss", "4", "--code", "raid5"],
        Kill::Block,
        Order::PlanTear,
    );
}

#[test]
fn a_degraded_write_killed_at_any_block_keeps_every_acknowledged_byte_raid6() {
    degraded_write_killed_at_every_block(&["--oss", "5", "--code", "raid6"]);
}

#[test]
fn a_degraded_write_killed_at_any_block_keeps_every_acknowledged_byte_rs_4_2() {
    degraded_write_killed_at_every_block(&["--oss", "6", "--code", "rs", "--k", "4", "--m", "2"]);
}

#[test]
fn a_degraded_write_killed_at_any_block_keeps_every_acknowledged_byte_xcode() {
    degraded_write_killed_at_every_block(&["--oss", "5", "--code", "xcode", "--p", "5"]);
}

/// Review H2: killed right after any of its journal records, in particular the first (the
/// planner's input, before the failed column's copy is on record: nothing reached any OSS),
/// a degraded write keeps every acknowledged byte and `rebuild` works. Recovery used to read
/// such a write as in flight over a stripe whose failed column it could then not decode,
/// and marked acknowledged bytes lost.
#[test]
fn a_degraded_write_killed_after_any_journal_record_keeps_every_acknowledged_byte_rs_4_2() {
    degraded_write_killed_at_every(
        &["--oss", "6", "--code", "rs", "--k", "4", "--m", "2"],
        Kill::Record,
    );
}

#[test]
fn a_degraded_write_killed_after_any_journal_record_keeps_every_acknowledged_byte_xcode() {
    degraded_write_killed_at_every(&["--oss", "5", "--code", "xcode", "--p", "5"], Kill::Record);
}

/// F3: a `put` over an existing file, killed at any block with one OSS failed (each OSS in
/// turn), leaves the old content whole and nothing that makes `rebuild` fail (its staging
/// file held no acknowledged byte: recovery drops it). The new content ends early in its
/// last stripe, so that stripe has data columns the put never writes.
#[test]
fn a_degraded_put_killed_at_any_block_keeps_the_old_file_and_rebuild_works() {
    let tmp = fast_tempdir("exaraid-degraded-crash");
    let dir = tmp.path().join("store");
    let oss_count = 6;
    init(
        &dir,
        &["--oss", "6", "--code", "rs", "--k", "4", "--m", "2"],
    );
    let old = bytes(5, FILE_BYTES);
    ok(&["store", "put", s(&dir), "b"], &old);
    let new_bytes = 3 * 4 * UNIT_BYTES as usize + UNIT_BYTES as usize + 100;
    for failed in 0..oss_count {
        let failed = failed.to_string();
        let mut kills = 0;
        for n in 1..=KILLS_MAX {
            ok(&["store", "fail", s(&dir), "--oss", &failed], b"");
            let new = bytes(50 + n as u8, new_bytes);
            let killed = killed_at_block(&["store", "put", s(&dir), "b"], &new, n);
            let got = ok(&["store", "get", s(&dir), "b"], b"");
            let listed = String::from_utf8(ok(&["store", "ls", s(&dir)], b"")).unwrap();
            // L1: status counts what ls lists (it counted the hidden staging file too).
            let status = ok(&["store", "status", s(&dir), "--json"], b"");
            let status: serde_json::Value = serde_json::from_slice(&status).unwrap();
            assert_eq!(
                status["files"], 1,
                "at {n}: status counts one file: {status}"
            );
            let out = common::exaraid(&["store", "rebuild", s(&dir), "--oss", &failed], b"");
            assert!(
                out.status.success(),
                "OSS {failed} failed, put killed at block {n}: rebuild fails: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let again = ok(&["store", "get", s(&dir), "b"], b"");
            assert!(
                again == got,
                "OSS {failed}, put killed at block {n}: rebuild changed b"
            );
            assert_eq!(listed.lines().count(), 1, "at {n}: one file: {listed}");
            if !killed {
                assert!(got == new, "OSS {failed}: the finished put");
                // The next round puts over this content.
                ok(&["store", "put", s(&dir), "b"], &old);
                break;
            }
            assert!(
                got == old,
                "OSS {failed}, put killed at block {n}: b is not its old content"
            );
            kills += 1;
        }
        assert!(
            kills >= 2,
            "OSS {failed}: only {kills} kills landed in the put"
        );
    }
}

/// F3: a `put` of a new name, killed at any block with one OSS failed, leaves no file or
/// the whole new content (it used to leave the name 0 bytes long, or torn).
#[test]
fn a_degraded_put_of_a_new_name_killed_at_any_block_leaves_no_file_or_all_of_it() {
    let tmp = fast_tempdir("exaraid-degraded-crash");
    let dir = tmp.path().join("store");
    init(&dir, &["--oss", "5", "--code", "raid6"]);
    ok(&["store", "fail", s(&dir), "--oss", "1"], b"");
    let new = bytes(9, FILE_BYTES - 5000);
    let mut kills = 0;
    for n in 1..=KILLS_MAX {
        let killed = killed_at_block(&["store", "put", s(&dir), "fresh"], &new, n);
        let out = common::exaraid(&["store", "get", s(&dir), "fresh"], b"");
        if !killed {
            assert!(
                out.status.success() && out.stdout == new,
                "the finished put"
            );
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("no file named"),
            "put of a new name killed at block {n}: get gave {} bytes ({err})",
            out.stdout.len()
        );
        let listed = ok(&["store", "ls", s(&dir)], b"");
        assert!(
            listed.is_empty(),
            "at {n}: {}",
            String::from_utf8_lossy(&listed)
        );
        kills += 1;
    }
    assert!(kills >= 2, "only {kills} kills landed in the put");
}
