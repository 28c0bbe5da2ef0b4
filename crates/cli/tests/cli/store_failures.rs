//! The CLI review of issue #4, failure handling, from the command line (raid5 over 5 OSSs):
//! a rebuild typo does not destroy a healthy OSS, a moved store directory records no
//! failure, `fail` past the tolerance is refused, `online` undoes a mistaken `fail`, and
//! scrub reports failed OSSs with exit code 2.

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Stdio};

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = exaraid(args, stdin);
    assert!(
        out.status.success(),
        "exaraid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn get(d: &str) -> Vec<u8> {
    let out = exaraid(&["store", "get", d, "F"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn data() -> Vec<u8> {
    random_bytes(201, 300_000)
}

fn init(d: &str) {
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "5",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    ok(&["store", "put", d, "F"], &data());
}

fn objects(d: &Path, oss: usize) -> usize {
    std::fs::read_dir(d.join(format!("oss-{oss}")).join("objects"))
        .map(|r| r.count())
        .unwrap_or(0)
}

#[test]
fn a_rebuild_typo_keeps_the_healthy_oss_and_fail_past_the_tolerance_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init(d);
    ok(&["store", "fail", d, "--oss", "3"], b"");
    let held = objects(&dir, 1);
    let err = fails(&["store", "rebuild", d, "--oss", "1"], b"");
    assert!(
        err.contains("OSS 1 is healthy") && err.contains("--oss 3"),
        "{err}"
    );
    assert_eq!(objects(&dir, 1), held);
    let err = fails(&["store", "fail", d, "--oss", "1"], b"");
    assert!(err.contains("refused"), "{err}");
    assert_eq!(get(d), data());
    // Scrub: nothing corrupt, but a failed OSS is a finding (exit 2).
    let out = exaraid(&["store", "scrub", d], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAILED: OSS 3"));
    ok(&["store", "rebuild", d, "--oss", "3"], b"");
    ok(&["store", "scrub", d], b"");
    assert_eq!(get(d), data());
}

/// Every OSS directory moved away (unmounted) during `exaraid store write D ...`, then put
/// back (before session 14 also `mv D D2; write D2 ...; mv D2 D`, when the superblock named
/// them by absolute path; now a moved store carries them along): afterwards the store is
/// as it was.
#[test]
fn every_oss_directory_away_records_no_failure_and_online_undoes_a_mistaken_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init(d);
    let aside = |i: usize| tmp.path().join(format!("away-{i}"));
    for i in 0..5 {
        std::fs::rename(dir.join(format!("oss-{i}")), aside(i)).unwrap();
    }
    let err = fails(&["store", "write", d, "F", "--offset", "0"], b"new bytes");
    assert!(
        err.contains("unavailable") && err.contains("mounted"),
        "{err}"
    );
    let _ = exaraid(&["store", "get", d, "F"], b"");
    for i in 0..5 {
        std::fs::rename(aside(i), dir.join(format!("oss-{i}"))).unwrap();
    }
    let status: serde_json::Value =
        serde_json::from_str(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    for o in status["oss"].as_array().unwrap() {
        assert_eq!(o["healthy"], true, "{status}");
    }
    assert_eq!(get(d), data());
    // A mistaken `fail`, nothing written since: `online` takes it back.
    ok(&["store", "fail", d, "--oss", "2"], b"");
    ok(&["store", "get", d, "F"], b"");
    ok(&["store", "online", d, "--oss", "2"], b"");
    ok(&["store", "scrub", d], b"");
    // After a write skipped it, `online` rewrites its stale columns (session 8; before,
    // only a rebuild was allowed).
    ok(&["store", "fail", d, "--oss", "2"], b"");
    ok(&["store", "write", d, "F", "--offset", "0"], b"new bytes");
    ok(&["store", "online", d, "--oss", "2"], b"");
    let mut want = data();
    want[..9].copy_from_slice(b"new bytes");
    assert_eq!(get(d), want);
    ok(&["store", "scrub", d], b"");
}

/// Delayed path: a window's bytes live only in the cache zone of their data OSS. With OSS 1's
/// directory away, a `read` of other bytes succeeds and records nothing; with it back, every
/// window byte is there and END gives them parity.
#[test]
fn a_read_with_an_oss_away_inside_a_delayed_window_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let d = s(&dir);
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "5",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
            "--write-path",
            "delayed",
        ],
        b"",
    );
    let token = ok(&["store", "delayed", "start", d, "W"], b"")
        .trim()
        .to_string();
    let window: Vec<u8> = random_bytes(202, 600_000);
    ok(&["store", "write", d, "W", "--offset", "0"], &window);
    let elsewhere = {
        let store = exaraid_store::Store::open(&dir).unwrap();
        let file = store.file_id("W").unwrap();
        let at = (0..100u64)
            .map(|i| i * 4096)
            .find(|&o| store.layout().locate(file, o).oss != 1)
            .unwrap();
        store.close().unwrap();
        at
    };
    let away = tmp.path().join("away");
    std::fs::rename(dir.join("oss-1"), &away).unwrap();
    let out = exaraid(
        &[
            "store",
            "read",
            d,
            "W",
            "--offset",
            &elsewhere.to_string(),
            "--length",
            "4096",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let at = elsewhere as usize;
    assert_eq!(out.stdout, &window[at..at + 4096]);
    std::fs::rename(&away, dir.join("oss-1")).unwrap();
    let status: serde_json::Value =
        serde_json::from_str(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert!(
        status["lost_ranges"].as_array().unwrap().is_empty(),
        "{status}"
    );
    ok(&["store", "delayed", "end", d, &token], b"");
    let got = exaraid(&["store", "get", d, "W"], b"");
    assert!(got.status.success());
    assert_eq!(got.stdout, window);
    ok(&["store", "scrub", d], b"");
}

/// `exaraid store rebuild ARGS` killed with SIGKILL the `n`-th time it passes kill point
/// `point` (`EXARAID_KILL_AT`): a rebuild cut at a named place, every time.
fn rebuild_killed_at(args: &[&str], point: &str, n: u64) {
    use std::os::unix::process::ExitStatusExt;
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "rebuild"])
        .args(args)
        .env(exaraid_store::torture::KILL_AT_ENV, format!("{point}:{n}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(9), // SIGKILL
        "rebuild {args:?} was not killed at {point}:{n}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An in-place rebuild empties the OSS directory, writes a fresh label, then rewrites the
/// elements one by one: killed half way, the OSS holds only some of them and the rest read
/// as never written (zeros). `online` must refuse it (it did accept it, and reads returned
/// zeros with exit 0); the same rebuild run again finishes it.
#[test]
fn online_refuses_an_oss_whose_rebuild_was_killed_and_a_retry_finishes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    rebuild_killed_at(
        &[d, "--oss", "1"],
        exaraid_store::torture::REBUILD_ELEMENT,
        3,
    );
    let err = fails(&["store", "online", d, "--oss", "1"], b"");
    assert!(
        err.contains("did not finish") && err.contains("exaraid store rebuild"),
        "{err}"
    );
    // Still failed: reads rebuild OSS 1's elements from parity, not from the half-rebuilt
    // directory.
    assert_eq!(get(d), data());
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    assert_eq!(get(d), data());
    ok(&["store", "scrub", d], b"");
    // Rebuilt: the OSS is healthy, there is nothing to take online (said, exit 0: s21e).
    let out = ok(&["store", "online", d, "--oss", "1"], b"");
    assert!(out.contains("nothing to do: OSS 1 is online"), "{out}");
}

/// A `rebuild --to X` killed anywhere: `online` refuses the OSS (conservative: its rebuild
/// began and did not finish), and running the same rebuild again takes X over, whether the
/// kill left X with part of the elements or after the superblock already names X.
#[test]
fn a_killed_rebuild_to_a_new_directory_is_refused_online_and_retried_onto_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let new = tmp.path().join("NEW");
    let d = s(&dir);
    init(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let args = [d, "--oss", "1", "--to", s(&new)];
    rebuild_killed_at(&args, exaraid_store::torture::REBUILD_ELEMENT, 3);
    let err = fails(&["store", "online", d, "--oss", "1"], b"");
    assert!(err.contains("did not finish"), "{err}");
    assert_eq!(get(d), data());
    // Killed after the superblock switched to NEW, before the rebuild was recorded done.
    rebuild_killed_at(&args, exaraid_store::torture::REBUILD_SWITCHED, 1);
    let err = fails(&["store", "online", d, "--oss", "1"], b"");
    assert!(err.contains("did not finish"), "{err}");
    assert_eq!(get(d), data());
    ok(
        &["store", "rebuild"]
            .iter()
            .copied()
            .chain(args)
            .collect::<Vec<_>>(),
        b"",
    );
    assert_eq!(get(d), data());
    ok(&["store", "scrub", d], b"");
    assert!(
        objects(&dir, 1) > 0,
        "the old directory of OSS 1 is left alone"
    );
    assert!(new.join("exaraid-oss.json").exists());
}

/// A `rebuild --to X` killed before X got its label leaves X holding `objects/` and a
/// half-written `exaraid-oss.tmp` (an atomic write cut before its rename: emulated here
/// on top of a rebuild killed right after it was journaled). The same rebuild run again
/// takes X over (it was refused: "X is not empty"); a file exaraid did not write there
/// keeps X refused, and nothing is removed.
#[test]
fn a_rebuild_to_killed_before_the_label_is_retried_onto_the_same_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let new = tmp.path().join("NEW");
    let d = s(&dir);
    init(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let args = [d, "--oss", "1", "--to", s(&new)];
    rebuild_killed_at(&args, exaraid_store::torture::REBUILD_BEGUN, 1);
    std::fs::create_dir_all(new.join("objects")).unwrap();
    std::fs::write(new.join("exaraid-oss.tmp"), b"{\"store_id\": \"").unwrap();
    let rebuild: Vec<&str> = ["store", "rebuild"].iter().copied().chain(args).collect();
    // Not ours: refused, X as it was.
    std::fs::write(new.join("notes.txt"), b"mine").unwrap();
    let err = fails(&rebuild, b"");
    assert!(err.contains("notes.txt"), "{err}");
    assert!(new.join("exaraid-oss.tmp").exists());
    std::fs::remove_file(new.join("notes.txt")).unwrap();
    ok(&rebuild, b"");
    assert!(!new.join("exaraid-oss.tmp").exists());
    assert!(new.join("exaraid-oss.json").exists());
    assert_eq!(get(d), data());
    ok(&["store", "scrub", d], b"");
}

/// One OSS's extents log damaged in the middle (a flipped byte): that OSS is unavailable, not
/// the store. get decodes around it; status and scrub (exit 2) say which OSS, what is wrong
/// and the rebuild to run; `online` refuses it; after the rebuild scrub is clean.
#[test]
fn a_damaged_extents_log_makes_one_oss_unavailable_until_rebuilt_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init(d);
    let log = dir.join("oss-2").join("exaraid-extents.log");
    let mut bytes = std::fs::read(&log).unwrap();
    assert!(bytes.len() >= 48, "two records at least");
    bytes[3] ^= 0xff;
    std::fs::write(&log, bytes).unwrap();
    assert_eq!(get(d), data());
    let rebuild = format!("exaraid store rebuild {d} --oss 2");
    let status = ok(&["store", "status", d], b"");
    assert!(
        status.contains("UNAVAILABLE: OSS 2")
            && status.contains("extents log")
            && status.contains(&rebuild),
        "{status}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert_eq!(json["oss"][2]["healthy"], false);
    assert!(json["oss"][2]["problem"]
        .as_str()
        .unwrap()
        .contains("damaged at byte 0"));
    let out = exaraid(&["store", "scrub", d], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    // Worded as `status` words it (UNAVAIL, not failed on record), with its problem and
    // what to do; FAILED is for an OSS failed on record (s16f).
    assert!(
        text.contains("UNAVAILABLE: OSS 2 (not failed on record)")
            && text.contains("extents log")
            && text.contains(&rebuild)
            && !text.contains("FAILED: OSS 2"),
        "{text}"
    );
    // Writes go on degraded; once recorded failed, `online` cannot take it back as it is.
    ok(&["store", "write", d, "F", "--offset", "0"], b"new");
    ok(&["store", "fail", d, "--oss", "2"], b"");
    let err = fails(&["store", "online", d, "--oss", "2"], b"");
    assert!(
        err.contains("extents log") && err.contains(&rebuild),
        "{err}"
    );
    ok(&["store", "rebuild", d, "--oss", "2"], b"");
    ok(&["store", "scrub", d], b"");
    let mut want = data();
    want[..3].copy_from_slice(b"new");
    assert_eq!(get(d), want);
    assert!(!ok(&["store", "status", d], b"").contains("UNAVAILABLE"));
}
