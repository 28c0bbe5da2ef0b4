//! A real fsync EIO (`scripts/eioshim.c`) outside the OSSs' object writes, in `rm` of a file of
//! a raid5 read-modify-write store (review s7s S7-1 and S7-2, fixed in session 8 without a
//! test):
//! - S7-1: the fdatasync of an OSS's extents log (the removal of the file's objects) fails.
//!   Before, `rm` exited 1 with "writes need `exaraid store rebuild`" and recorded nothing:
//!   `status` showed every OSS healthy and nothing to rebuild. Now that OSS is recorded
//!   failed, a warning names the rebuild, the `rm` is done and every other file reads.
//! - S7-2: the fsync of the state checkpoint fails once. The warning said to free space on
//!   the disk (the advice for ENOSPC); with EIO the disk may be failing, and it says so.

use crate::common;

use common::*;
use std::path::Path;
use std::process::Command;

/// raid5 over 5 OSSs, read-modify-write: three files put, two of them written again.
/// Returns the files that stay after `rm f1`, with their bytes.
fn rmw_scene(d: &str) -> Vec<(&'static str, Vec<u8>)> {
    init_store(d, &["--oss", "5", "--code", "raid5", "--write-path", "rmw"]);
    let f2 = bytes(2, 9_000);
    let mut f3 = bytes(3, 70_000);
    ok(&["store", "put", d, "f1"], &bytes(1, 40_000));
    ok(&["store", "put", d, "f2"], &f2);
    ok(&["store", "put", d, "f3"], &f3);
    ok(
        &["store", "write", d, "f1", "--offset", "5000"],
        &bytes(11, 3_000),
    );
    let w = bytes(12, 9_000);
    ok(&["store", "write", d, "f3", "--offset", "20000"], &w);
    f3[20_000..29_000].copy_from_slice(&w);
    vec![("f2", f2), ("f3", f3)]
}

/// `rm f1` with the shim failing the `sync_fail_n`-th fsync of the command (`sticky`: every
/// later durable call under the same directory fails too). Returns its exit code and stderr.
fn rm_with_sync_failing(d: &str, shim: &Path, sync_fail_n: u32, sticky: bool) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "rm", d, "f1"])
        .env("LD_PRELOAD", shim)
        .env("SYNCFAILN", sync_fail_n.to_string())
        .env("FAILSTICKY", if sticky { "1" } else { "0" })
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), stderr)
}

fn every_file_reads_back(d: &str, files: &[(&str, Vec<u8>)], point: &str) {
    for (name, want) in files {
        assert!(
            ok(&["store", "get", d, name], b"") == *want,
            "{point}: {name} WRONG bytes"
        );
    }
    let listed = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    assert!(!listed.contains("f1"), "{point}: f1 is removed: {listed}");
}

/// The fsyncs of `rm f1` (counted by the shim over the command): the metadata epoch's (its
/// journal record, then each OSS's epoch file: 6, session 11), the journal, then the
/// extents log of each OSS whose objects of f1 were deleted, OSS 0 first (after the one
/// synced record that comes between the `Remove` and the deletions, session 13). The check below
/// fails if a change moves it (then list the shim's "EIOSHIM: sync N fails: ..." line of
/// each N again).
const OSS_0_EXTENTS_LOG_SYNC_N: u32 = 9;
/// The fsync of the state checkpoint (`state.tmp`) at the end of `rm f1`.
const STATE_CHECKPOINT_SYNC_N: u32 = 17;

#[test]
fn an_extents_log_sync_failing_in_rm_records_that_oss_failed_and_rm_succeeds() {
    let tmp = fast_tempdir("rmsynceio");
    let Some(shim) = build_shim(tmp.path()) else {
        panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let files = rmw_scene(d);
    let (rc, stderr) = rm_with_sync_failing(d, &shim, OSS_0_EXTENTS_LOG_SYNC_N, true);
    let failed_sync = format!("EIOSHIM: sync {OSS_0_EXTENTS_LOG_SYNC_N} fails: fdatasync(");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&failed_sync) && l.contains("/oss-0/exaraid-extents.log")),
        "the failing sync is OSS 0's extents log: {stderr}"
    );
    assert_eq!(rc, 0, "rm is done: {stderr}");
    assert!(
        stderr.contains("OSS 0 (")
            && stderr.contains("is recorded failed")
            && stderr.contains("exaraid store rebuild"),
        "a warning names OSS 0 failed and the rebuild: {stderr}"
    );
    let status = String::from_utf8(ok(&["store", "status", d, "--json"], b"")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&status).unwrap();
    let unhealthy: Vec<u64> = json["oss"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| !o["healthy"].as_bool().unwrap_or(true))
        .map(|o| o["index"].as_u64().unwrap())
        .collect();
    assert_eq!(unhealthy, vec![0], "OSS 0 is on record failed: {status}");
    every_file_reads_back(d, &files, "after rm");
    ok(&["store", "rebuild", d, "--oss", "0"], b"");
    every_file_reads_back(d, &files, "after the rebuild");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn a_checkpoint_fsync_eio_says_the_disk_may_be_failing_not_to_free_space() {
    let tmp = fast_tempdir("checkpointeio");
    let Some(shim) = build_shim(tmp.path()) else {
        panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let files = rmw_scene(d);
    // Once (not sticky): the journal's own sync works, so nothing is lost and the command
    // succeeds with a warning.
    let (rc, stderr) = rm_with_sync_failing(d, &shim, STATE_CHECKPOINT_SYNC_N, false);
    let failed_sync = format!("EIOSHIM: sync {STATE_CHECKPOINT_SYNC_N} fails: fsync(");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&failed_sync) && l.ends_with("/state.tmp)")),
        "the failing sync is the state checkpoint's: {stderr}"
    );
    assert_eq!(rc, 0, "rm is done, the journal holds it: {stderr}");
    assert!(
        stderr.contains("the state checkpoint was not written"),
        "a warning says so: {stderr}"
    );
    assert!(
        stderr.contains("may be failing") && !stderr.contains("Free space"),
        "an I/O error is not a full disk: {stderr}"
    );
    every_file_reads_back(d, &files, "after rm");
}
