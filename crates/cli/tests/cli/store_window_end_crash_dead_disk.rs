//! A delayed window's END killed -9, then a disk dead before the next open (review s9s
//! S9-5). END writes the parity of the window's stripes and only then moves the window's
//! bytes home, so a kill anywhere in its parity writes leaves every home data block as it
//! was and each parity block old or new. The dead disk holds a data column of those
//! stripes beside the window's bytes (none of the window's bytes): acknowledged home bytes
//! whose only other trace is a decode of the other columns. Within the code's tolerance
//! every one of them must read back after `fail`, and the disk must rebuild and scrub
//! clean. They used to be recorded lost ("too few columns left to tell") at every kill
//! point between END's record and its parity's `Durable` record, on rs 4+3 and raid6 (one
//! dead disk beside two or three parities) and raid5.
//!
//! The move home after the parity writes home data blocks in part (the window's bytes laid
//! over home's): a kill between such a block's payload and its checksum left the block's
//! home bytes beside the window unknown, and with the dead column beside it raid5 recorded
//! them lost (6 of its 12 block kill points), as did raid6 where a kill caught two OSSs'
//! write threads in such a block at once (the fresh-clone CI run of session 11). The move
//! home journals those blocks' crcs now (`Rec::MoveHomeCrcs`). Every kill here runs END's
//! steps in plan order (`torture::KILL_IN_PLAN_ORDER_ENV`): point `n` is the same block write
//! in every run, whatever the load (counted over the per-OSS threads it was not).

use crate::common;

use std::path::Path;

use common::{bytes, exaraid, fast_tempdir, killed_at_with, ok, s};
use exaraid_store::torture::{
    JOURNAL_RECORD, KILL_IN_PLAN_ORDER_ENV, KILL_TEAR_EVERY_OSS_ENV, WRITE_TORN_BLOCK,
};

/// Data columns per stripe of every code below (the stripe unit is one 4 KiB element).
const K: usize = 4;
const UNIT_BYTES: usize = 4096;
const STRIPE_BYTES: usize = K * UNIT_BYTES;
const FILE_BYTES: usize = 60_000;
/// The OSS whose disk dies after the kill. A file's first OSS is 0 and columns rotate
/// left by one per stripe (`Layout::oss_of`): it holds data column `s` of stripe `s`, here
/// file bytes 0..4096 (stripe 0), 20480..24576 (stripe 1) and 40960..45056 (stripe 2).
const DEAD_OSS: &str = "0";
/// The window's writes `(offset, length)`: in stripes 0-2, beside the dead OSS's columns
/// and never on them (checked), in part of some columns (stripes 0 and 1: the parity is
/// updated from home) and whole in the others (stripe 2: the parity is computed anew).
const WINDOW_WRITES: [(usize, usize); 5] = [
    (5000, 3000),
    (9000, 6000),
    (16484, 3000),
    (25076, 4000),
    (32768, 8192),
];
/// Written whole last: the rest of stripe 2 beside the dead OSS's column.
const WINDOW_WRITE_LAST: (usize, usize) = (45056, 4096);
/// More kill points than one END passes (the sweep stops at the first it survives).
const KILLS_MAX: u64 = 64;

#[derive(Clone, Copy)]
struct Code {
    args: &'static [&'static str],
    oss: &'static str,
}
const RS_4_3: Code = Code {
    args: &["--code", "rs", "--k", "4", "--m", "3"],
    oss: "7",
};
const RAID6: Code = Code {
    args: &["--code", "raid6"],
    oss: "6",
};
const RAID5: Code = Code {
    args: &["--code", "raid5"],
    oss: "5",
};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A healthy delayed store of `code` holding `f` with an open window on it (the window's
/// writes done). Returns the window's token and every acknowledged byte of `f`.
fn store_with_open_window(dir: &Path, code: Code) -> (String, Vec<u8>) {
    let d = s(dir);
    let mut init = vec![
        "store",
        "init",
        d,
        "--oss",
        code.oss,
        "--stripe-unit",
        "4096",
        "--write-path",
        "delayed",
        "--window-timeout-ms",
        "600000",
    ];
    init.extend_from_slice(code.args);
    ok(&init, b"");
    let mut model = bytes(1, FILE_BYTES);
    ok(&["store", "put", d, "f"], &model);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.trim().to_string();
    let writes = WINDOW_WRITES.iter().chain([&WINDOW_WRITE_LAST]);
    for (i, &(offset, len)) in writes.enumerate() {
        let stripe = offset / STRIPE_BYTES;
        let dead = stripe * STRIPE_BYTES + stripe * UNIT_BYTES
            ..stripe * STRIPE_BYTES + (stripe + 1) * UNIT_BYTES;
        assert!(
            offset + len <= dead.start || dead.end <= offset,
            "setup: window write {offset}+{len} on the dead OSS's column {dead:?}"
        );
        assert!(offset + len <= FILE_BYTES && stripe <= 2);
        let new = bytes(10 + i as u8, len);
        ok(
            &["store", "write", d, "f", "--offset", &offset.to_string()],
            &new,
        );
        model[offset..offset + len].copy_from_slice(&new);
    }
    (token, model)
}

/// Empty the dead OSS's directory (its disk died, nothing recovered yet) and `fail` it.
fn dead_disk_then_fail(dir: &Path) -> String {
    let oss = dir.join(format!("oss-{DEAD_OSS}"));
    std::fs::remove_dir_all(&oss).unwrap();
    std::fs::create_dir_all(&oss).unwrap();
    let fail = exaraid(&["store", "fail", s(dir), "--oss", DEAD_OSS], b"");
    assert!(
        fail.status.success(),
        "fail of the dead OSS: {}",
        String::from_utf8_lossy(&fail.stderr)
    );
    String::from_utf8_lossy(&fail.stdout).into_owned()
}

fn end_killed_at_every(point: &str, code: Code) {
    end_killed_at(point, code, 1..=KILLS_MAX, &[KILL_IN_PLAN_ORDER_ENV]);
}

/// END killed with every OSS caught in a torn block write at once, from its `n`-th block
/// write on, for each `n` (`torture::KILL_TEAR_EVERY_OSS_ENV`): what a SIGKILL does to the
/// per-OSS write threads at worst, and what the merged session-11 CI run met (two columns
/// of one stripe torn in the move home beside the dead one, raid6: 3 blocks LOST).
fn end_killed_with_every_oss_torn(code: Code) {
    let envs = [KILL_IN_PLAN_ORDER_ENV, KILL_TEAR_EVERY_OSS_ENV];
    end_killed_at(WRITE_TORN_BLOCK, code, 1..=KILLS_MAX, &envs);
}

/// Kill END at the `n`-th pass of kill point `point` for each `n` of `kill_points` (the
/// sweep stops at the first `n` END survives), then the dead disk: every acknowledged byte
/// must read back.
fn end_killed_at(
    point: &str,
    code: Code,
    kill_points: std::ops::RangeInclusive<u64>,
    envs: &[&str],
) {
    let every = *kill_points.end() == KILLS_MAX;
    let tmp = fast_tempdir("exaraid-window-end-dead-disk");
    // The superblock names its OSS directories by absolute path: every run uses the same
    // store directory, restored from a copy of the store as it was before END.
    let dir = tmp.path().join("store");
    let pristine = tmp.path().join("pristine");
    let (token, model) = store_with_open_window(&dir, code);
    copy_dir(&dir, &pristine);
    let d = s(&dir);
    // The premise: without a kill, END and then the dead disk lose nothing.
    ok(&["store", "delayed", "end", d, &token], b"");
    let fail = dead_disk_then_fail(&dir);
    assert!(!fail.contains("LOST"), "without a kill: {fail}");
    assert!(
        ok(&["store", "get", d, "f"], b"") == model,
        "without a kill"
    );
    let mut kills = 0;
    for n in kill_points.clone() {
        std::fs::remove_dir_all(&dir).unwrap();
        copy_dir(&pristine, &dir);
        let killed = killed_at_with(
            &["store", "delayed", "end", d, &token],
            b"",
            &format!("{point}:{n}"),
            envs,
        );
        let fail = dead_disk_then_fail(&dir);
        let get = exaraid(&["store", "get", d, "f"], b"");
        assert!(
            get.status.success() && !fail.contains("LOST"),
            "END killed at {point}:{n}, then OSS {DEAD_OSS} dead: acknowledged bytes lost: {fail}{}",
            String::from_utf8_lossy(&get.stderr)
        );
        if get.stdout != model {
            let bad: Vec<usize> = (0..model.len().min(get.stdout.len()))
                .filter(|&i| get.stdout[i] != model[i])
                .collect();
            panic!(
                "END killed at {point}:{n}, then OSS {DEAD_OSS} dead: wrong bytes, exit 0: {} bytes (of {}), {} differ, first {:?} last {:?}",
                get.stdout.len(),
                model.len(),
                bad.len(),
                bad.first(),
                bad.last()
            );
        }
        let rebuild = exaraid(&["store", "rebuild", d, "--oss", DEAD_OSS], b"");
        assert!(
            rebuild.status.success(),
            "END killed at {point}:{n}: rebuild fails: {}",
            String::from_utf8_lossy(&rebuild.stderr)
        );
        assert!(
            ok(&["store", "get", d, "f"], b"") == model,
            "END killed at {point}:{n}: the file changed in the rebuild"
        );
        ok(&["store", "scrub", d], b"");
        if !killed {
            break;
        }
        kills += 1;
    }
    if every {
        assert!(kills >= 3, "only {kills} kills at {point} landed in END");
        assert!(
            kills < KILLS_MAX,
            "END never finished within {KILLS_MAX} kill points at {point}"
        );
    } else {
        assert_eq!(
            kills,
            kill_points.count() as u64,
            "END finished before kill point {point} was passed as often"
        );
    }
}

#[test]
fn rs_4_3_end_killed_after_any_journal_record_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(JOURNAL_RECORD, RS_4_3);
}

#[test]
fn rs_4_3_end_killed_at_any_block_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(WRITE_TORN_BLOCK, RS_4_3);
}

#[test]
fn raid6_end_killed_after_any_journal_record_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(JOURNAL_RECORD, RAID6);
}

#[test]
fn raid6_end_killed_at_any_block_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(WRITE_TORN_BLOCK, RAID6);
}

/// raid5: at each of END's parity block writes (one parity block per stripe, stripes 0-2)
/// and each block of its move home. A home data block the move home tore beside the dead
/// column is told by its journaled crc: single parity has no column to spare for it.
#[test]
fn raid5_end_killed_at_any_block_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(WRITE_TORN_BLOCK, RAID5);
}

/// raid5 at each journal record of END (s13k: after its `Input(EndDelayed)` and after its
/// `WindowEnd`, before any parity write, OSS 0's home bytes were recorded lost: single
/// parity has no column to spare, and nothing on record said no parity was written). END's
/// parity crcs are synced before its first parity write now, so none on record says so.
#[test]
fn raid5_end_killed_after_any_journal_record_then_a_dead_disk_keeps_every_acknowledged_byte() {
    end_killed_at_every(JOURNAL_RECORD, RAID5);
}

#[test]
fn raid6_end_killed_with_every_oss_in_a_torn_block_then_a_dead_disk_keeps_every_acknowledged_byte()
{
    end_killed_with_every_oss_torn(RAID6);
}

#[test]
fn raid5_end_killed_with_every_oss_in_a_torn_block_then_a_dead_disk_keeps_every_acknowledged_byte()
{
    end_killed_with_every_oss_torn(RAID5);
}

#[test]
fn rs_4_3_end_killed_with_every_oss_in_a_torn_block_then_a_dead_disk_keeps_every_acknowledged_byte()
{
    end_killed_with_every_oss_torn(RS_4_3);
}
