//! `status` tells which OSSs are missing also when the store cannot be used without them:
//! recovery of an interrupted write waits for them (more are missing than the code
//! tolerates), and before, `status` failed like every other command, naming no health.

mod common;
use common::*;

use exaraid_store::torture::WRITE_TORN_BLOCK;

#[test]
fn status_lists_the_missing_osses_while_recovery_waits_for_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "6", "--code", "raid6"]);
    let old = bytes(5, 100_000);
    ok(&["store", "put", d, "f"], &old);
    let new = bytes(6, 20_000);
    let write = ["store", "write", d, "f", "--offset", "5000"];
    assert!(
        killed_at(&write, &new, &format!("{WRITE_TORN_BLOCK}:1")),
        "the write is cut by a crash"
    );
    // Three mounts missing on raid6 (tolerates two): recovery must wait for them.
    for i in 0..3 {
        std::fs::rename(dir.join(format!("oss-{i}")), dir.join(format!("away-{i}"))).unwrap();
    }
    let out = exaraid(&["store", "status", d], b"");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "status reports: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 0..6 {
        let row = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{i} ")))
            .unwrap_or_else(|| panic!("a row for OSS {i}: {stdout}"));
        let health = if i < 3 { "FAILED" } else { "ok" };
        assert!(row.contains(health), "OSS {i} is {health}: {row}");
    }
    assert!(
        stdout.contains("RECOVERY PENDING") && stdout.contains("3 OSSs are unavailable"),
        "says why the store waits: {stdout}"
    );
    let json = ok(&["store", "status", d, "--json"], b"");
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(json["recovery_pending"].is_string(), "{json}");
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(err.contains("3 OSSs are unavailable"), "{err}");
    // The mounts are back: recovery runs, every byte old or new, and status is clean.
    for i in 0..3 {
        std::fs::rename(dir.join(format!("away-{i}")), dir.join(format!("oss-{i}"))).unwrap();
    }
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("RECOVERY PENDING"), "{status}");
    let got = ok(&["store", "get", d, "f"], b"");
    assert_eq!(got.len(), old.len());
    for (i, &b) in got.iter().enumerate() {
        let in_write = (5000..25_000).contains(&i);
        let fine = b == old[i] || (in_write && b == new[i - 5000]);
        assert!(fine, "byte {i} is neither old nor new");
    }
    ok(&["store", "scrub", d], b"");
}
