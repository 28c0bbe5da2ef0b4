//! Session 20 (s20g), review s20r R20-4 and R20-2: what the user is told.
//! - R20-4: an `online` killed after its `Online` record, run again as docs/store.md says
//!   ("the same command finishes it, also after `Online`"), exits 0 saying so; it said
//!   "not recorded as failed ...: nothing to do", exit 1, failing a script that reruns it.
//! - R20-2: a read of a delayed window's bytes whose only copy is on an OSS whose directory
//!   is only missing (unmounted, not failed) names it MISSING and says to mount it, as
//!   `status` does; it said "unavailable (marked failed) ... writes need `rebuild`".

use crate::common;
use common::*;

/// raid6 4+2 rmw: a file written while OSS 2 was failed, then `online` of it killed at
/// `kill_at` (after its `Online` record); the rerun exits 0 and every byte reads back.
fn rerun_of_online_killed_after_its_online_record_succeeds(kill_at: &str) {
    let tmp = fast_tempdir("s20g-online");
    let dir = tmp.path().join("S");
    let d = s(&dir);
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "rmw"]);
    let mut model = bytes(20, 30_000);
    ok(&["store", "put", d, "f"], &model);
    ok(&["store", "fail", d, "--oss", "2"], b"");
    let changed = bytes(21, 9000);
    ok(&["store", "write", d, "f", "--offset", "5000"], &changed);
    model[5000..14000].copy_from_slice(&changed);
    assert!(
        killed_at(&["store", "online", d, "--oss", "2"], b"", kill_at),
        "online finished before {kill_at}"
    );

    let rerun = exaraid(&["store", "online", d, "--oss", "2"], b"");
    let (out, err) = (
        String::from_utf8_lossy(&rerun.stdout),
        String::from_utf8_lossy(&rerun.stderr),
    );
    assert!(
        rerun.status.success(),
        "the rerun of an `online` cut at {kill_at} failed: {err}"
    );
    assert!(
        out.contains("OSS 2 is online again") && out.contains("is finished"),
        "the rerun does not say the cut `online` is finished: {out}"
    );
    assert_eq!(
        ok(&["store", "get", d, "f"], b""),
        model,
        "bytes after the rerun"
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("FAILED"), "an OSS still failed: {status}");
    // Once finished, a further `online` has nothing to do and says so, exit 0 (s21e: it
    // was refused "not recorded as failed", exit 1).
    let again = String::from_utf8(ok(&["store", "online", d, "--oss", "2"], b"")).unwrap();
    assert!(again.contains("nothing to do: OSS 2 is online"), "{again}");
}

#[test]
fn rerun_of_online_killed_right_after_its_online_record_exits_0() {
    rerun_of_online_killed_after_its_online_record_succeeds("online-back:1");
}

#[test]
fn rerun_of_online_killed_at_the_journal_record_after_online_exits_0() {
    rerun_of_online_killed_after_its_online_record_succeeds("journal-record:3");
}

#[test]
fn read_of_window_bytes_only_on_an_unmounted_oss_says_missing_and_mount_it() {
    let tmp = fast_tempdir("s20g-missing");
    let dir = tmp.path().join("S");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let mut model = bytes(30, 30_000);
    ok(&["store", "put", d, "f"], &model);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let window = bytes(31, 9000);
    ok(&["store", "write", d, "f", "--offset", "5000"], &window);
    model[5000..14000].copy_from_slice(&window);
    // OSS 1 holds the window's bytes 5000..8192 in its cache zone (raid6 4+2, 4 KiB units).
    let away = tmp.path().join("oss-1.unmounted");
    std::fs::rename(dir.join("oss-1"), &away).unwrap();

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("MISSING") && err.contains("mount it"),
        "the read does not say the OSS is missing and to mount it: {err}"
    );
    assert!(
        !err.contains("marked failed") && !err.contains("rebuild"),
        "the read advises as if the OSS were failed: {err}"
    );
    // Nothing was recorded: mounted back, the window ends and every byte reads.
    std::fs::rename(&away, dir.join("oss-1")).unwrap();
    ok(&["store", "delayed", "end", d, token.trim()], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), model);
}
