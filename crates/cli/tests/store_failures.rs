//! The CLI review of issue #4, failure handling, from the command line (raid5 over 5 OSSs):
//! a rebuild typo does not destroy a healthy OSS, a moved store directory records no
//! failure, `fail` past the tolerance is refused, `online` undoes a mistaken `fail`, and
//! scrub reports failed OSSs with exit code 2.

mod common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn exaraid(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

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
    (0..300_000u32).map(|i| (i * 7 + i / 251) as u8).collect()
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

/// `mv D D2; exaraid store write D2 ...; mv D2 D`: the OSS directories are absolute paths
/// under D, so all are missing during the write; afterwards the store is as it was.
#[test]
fn a_moved_store_directory_records_no_failure_and_online_undoes_a_mistaken_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("D");
    let moved = tmp.path().join("D2");
    let d = s(&dir);
    init(d);
    std::fs::rename(&dir, &moved).unwrap();
    let err = fails(
        &["store", "write", s(&moved), "F", "--offset", "0"],
        b"new bytes",
    );
    assert!(
        err.contains("unavailable") && err.contains("mounted"),
        "{err}"
    );
    let _ = exaraid(&["store", "get", s(&moved), "F"], b"");
    std::fs::rename(&moved, &dir).unwrap();
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
    // After a write skipped it, only a rebuild is safe.
    ok(&["store", "fail", d, "--oss", "2"], b"");
    ok(&["store", "write", d, "F", "--offset", "0"], b"new bytes");
    let err = fails(&["store", "online", d, "--oss", "2"], b"");
    assert!(err.contains("rebuild"), "{err}");
    ok(&["store", "rebuild", d, "--oss", "2"], b"");
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
    let window: Vec<u8> = (0..600_000u32).map(|i| (i * 13 + i / 509) as u8).collect();
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
