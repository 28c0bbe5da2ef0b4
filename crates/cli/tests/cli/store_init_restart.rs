//! L3: `init` is restartable. An init killed before its superblock leaves OSS directories
//! that are not empty and a store directory with no superblock; the next init recognises
//! them as its own half-made OSSs and finishes, and never clears a directory that holds
//! anything else (a user's file, the OSS of another store).

use crate::common;
use common::*;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

const OSS_COUNT: usize = 4;
/// `init-step` kill points of an init of `OSS_COUNT` OSSs: after its marker, after each
/// OSS directory, before the superblock.
const INIT_STEPS: u64 = OSS_COUNT as u64 + 2;

fn oss_dirs(root: &Path, prefix: &str) -> String {
    let dirs: Vec<String> = (0..OSS_COUNT)
        .map(|i| s(&root.join(format!("{prefix}{i}"))).to_string())
        .collect();
    dirs.join(",")
}

/// Run `init` killed at its `n`-th init step; true if the kill landed.
fn init_killed_at(dir: &Path, oss_dirs: &str, n: u64) -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "init", s(dir), "--oss-dirs", oss_dirs])
        .args(["--code", "raid5", "--stripe-unit", "4096"])
        .env("EXARAID_KILL_AT", format!("init-step:{n}"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if out.status.success() {
        return false;
    }
    assert_eq!(
        out.status.signal(),
        Some(9),
        "init at step {n}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

fn init(dir: &Path, oss_dirs: &str) {
    ok(
        &[
            "store",
            "init",
            s(dir),
            "--oss-dirs",
            oss_dirs,
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
}

#[test]
fn an_init_killed_at_any_step_is_finished_by_the_next_init() {
    let mut kills = 0;
    for n in 1..=INIT_STEPS + 1 {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        let oss = oss_dirs(tmp.path(), "oss-");
        if !init_killed_at(&dir, &oss, n) {
            assert_eq!(n, INIT_STEPS + 1, "init finished before step {n}");
            break;
        }
        kills += 1;
        let err = fails(&["store", "status", s(&dir)], b"");
        assert!(
            err.contains("was cut short; run the same init again"),
            "step {n}: {err}"
        );
        init(&dir, &oss);
        let data = bytes(n as u8, 30_000);
        ok(&["store", "put", s(&dir), "f"], &data);
        assert_eq!(ok(&["store", "get", s(&dir), "f"], b""), data, "step {n}");
        ok(&["store", "fail", s(&dir), "--oss", "2"], b"");
        assert_eq!(ok(&["store", "get", s(&dir), "f"], b""), data, "step {n}");
    }
    assert_eq!(kills, INIT_STEPS);
}

#[test]
fn a_restarted_init_never_clears_a_users_file_or_another_stores_oss() {
    let tmp = tempfile::tempdir().unwrap();
    // A user's file in a half-made OSS directory: refused, left where it is.
    let dir = tmp.path().join("store");
    let oss = oss_dirs(tmp.path(), "oss-");
    assert!(init_killed_at(&dir, &oss, INIT_STEPS));
    let users = tmp.path().join("oss-1").join("notes.txt");
    std::fs::write(&users, b"mine").unwrap();
    let err = fails(
        &[
            "store",
            "init",
            s(&dir),
            "--oss-dirs",
            &oss,
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    assert!(
        err.contains("is not empty") && err.contains("notes.txt"),
        "{err}"
    );
    assert_eq!(std::fs::read(&users).unwrap(), b"mine");
    std::fs::remove_file(&users).unwrap();
    init(&dir, &oss);

    // The OSS of another, complete store among the OSSs of an unfinished init: refused,
    // and that store keeps working. (It holds no object yet, as a half-made OSS would: only
    // its label's store id tells them apart.)
    let other = tmp.path().join("other");
    let other_oss = oss_dirs(tmp.path(), "other-oss-");
    init(&other, &other_oss);
    let mixed_dir = tmp.path().join("mixed");
    let mixed_oss = oss_dirs(tmp.path(), "mixed-oss-");
    assert!(init_killed_at(&mixed_dir, &mixed_oss, 1));
    let taken = s(&tmp.path().join("other-oss-0")).to_string();
    let mixed_oss = mixed_oss.replacen(s(&tmp.path().join("mixed-oss-0")), &taken, 1);
    let err = fails(
        &[
            "store",
            "init",
            s(&mixed_dir),
            "--oss-dirs",
            &mixed_oss,
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    assert!(err.contains("is not empty"), "{err}");
    ok(&["store", "put", s(&other), "g"], b"kept");
    assert_eq!(ok(&["store", "get", s(&other), "g"], b""), b"kept");
    ok(&["store", "scrub", s(&other)], b"");
}
