//! A disk that returns EIO to `fallocate` (a dying disk) met first by a reservation (a write
//! into new slots) is treated as a write step's EIO is (review s17r R17-4): the OSS is recorded
//! failed and the write goes on degraded; past the tolerance the write is refused, nothing
//! recorded, and the message says why. Before, the write was refused at every retry and
//! the OSS never recorded failed (s17h fixed only the message: it named `fail`, `rebuild`).

mod common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

const DYING_OSS: usize = 3;

/// `store write DIR a --offset OFFSET` of `data` with every `fallocate` on `DYING_OSS`'s
/// objects failing EIO.
fn write_with_falloc_eio(shim: &Path, dir: &Path, offset: u64, data: &[u8]) -> Output {
    let input = dir.with_extension("input");
    std::fs::write(&input, data).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args([
            "store",
            "write",
            s(dir),
            "a",
            "--offset",
            &offset.to_string(),
        ])
        .stdin(std::fs::File::open(&input).unwrap())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", format!("oss-{DYING_OSS}/objects"))
        .env("NOSPCAFTER", "0")
        .env("NOSPCERRNO", "5")
        .env("NOSPCKIND", "falloc")
        .output()
        .unwrap();
    std::fs::remove_file(&input).unwrap();
    out
}

fn healthy(dir: &Path) -> Vec<bool> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    status["oss"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["healthy"].as_bool().unwrap())
        .collect()
}

#[test]
fn falloc_eio_records_the_oss_failed_and_the_write_goes_on_degraded() {
    let tmp = fast_tempdir("exaraid-reserve-eio-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    init_store(
        s(&dir),
        &["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"],
    );
    let base = bytes(3, 100_000);
    ok(&["store", "put", s(&dir), "a"], &base);

    // Past the end of the file: new slots on every OSS, OSS 3's reservation meets the EIO.
    let more = bytes(9, 50_000);
    let out = write_with_falloc_eio(&shim, &dir, 90_000, &more);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the write goes on degraded: {err}");
    let mut want = base.clone();
    put_over(&mut want, 90_000, &more);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
    let up = healthy(&dir);
    assert!(!up[DYING_OSS], "OSS {DYING_OSS} recorded failed: {up:?}");
    assert_eq!(
        up.iter().filter(|h| !**h).count(),
        1,
        "only OSS {DYING_OSS}: {up:?}"
    );

    // A second write while the disk still fails: the OSS is failed, nothing reserves on it.
    let again = bytes(11, 30_000);
    let out = write_with_falloc_eio(&shim, &dir, 150_000, &again);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    put_over(&mut want, 150_000, &again);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);

    // The way back: the rebuild the failure calls for works, every byte exact.
    let oss = DYING_OSS.to_string();
    let new = tmp.path().join("new-disk");
    ok(
        &["store", "rebuild", s(&dir), "--oss", &oss, "--to", s(&new)],
        b"",
    );
    assert!(healthy(&dir).iter().all(|h| *h));
    for other in ["0", "1", "2"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }
    assert_eq!(
        ok(&["store", "get", s(&dir), "a"], b""),
        want,
        "OSS 3 rebuilt right"
    );
}

/// Past the tolerance (rs 4+3 with OSSs 0, 1, 2 failed already) the EIO cannot be recorded as
/// a failure: the write is refused, nothing of it written, and the message says the disk
/// failed the reservation and how many OSSs are out.
#[test]
fn falloc_eio_past_the_tolerance_refuses_the_write_and_changes_nothing() {
    let tmp = fast_tempdir("exaraid-reserve-eio-past-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    init_store(
        s(&dir),
        &["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"],
    );
    let base = bytes(3, 100_000);
    ok(&["store", "put", s(&dir), "a"], &base);
    for other in ["0", "1", "2"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }
    let out = write_with_falloc_eio(&shim, &dir, 90_000, &bytes(9, 50_000));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "past the tolerance: {err}");
    assert!(
        err.contains(&format!("OSS {DYING_OSS}"))
            && err.contains("I/O error on reserving room")
            && err.contains("cannot be recorded failed")
            && err.contains("tolerates 3"),
        "{err}"
    );
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), base);
    let up = healthy(&dir);
    assert!(up[DYING_OSS], "OSS {DYING_OSS} not recorded failed: {up:?}");
}
