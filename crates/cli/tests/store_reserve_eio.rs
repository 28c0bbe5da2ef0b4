//! A disk that returns EIO to `fallocate` (a dying disk) met first by a reservation (a write
//! into new slots) is named with the way out that works (review s17r R17-4): the message said
//! "writes need `exaraid store rebuild`", which was refused as "OSS 3 is healthy". Now it says
//! the disk failed on reserving room and names `fail` then `rebuild`; both commands work and
//! the file reads exact after them.

mod common;
use common::*;

use std::process::{Command, Stdio};

const DYING_OSS: usize = 3;

#[test]
fn falloc_eio_names_fail_then_rebuild_and_they_work() {
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

    let more = bytes(9, 50_000);
    std::fs::write(tmp.path().join("w"), &more).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "write", s(&dir), "a", "--offset", "90000"])
        .stdin(std::fs::File::open(tmp.path().join("w")).unwrap())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .env("LD_PRELOAD", &shim)
        .env("NOSPCFILE", format!("oss-{DYING_OSS}/objects"))
        .env("NOSPCAFTER", "0")
        .env("NOSPCERRNO", "5")
        .env("NOSPCKIND", "falloc")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the reservation met EIO: {err}");
    let fail = format!("exaraid store fail {} --oss {DYING_OSS}", s(&dir));
    assert!(err.contains("I/O error on reserving room"), "{err}");
    assert!(err.contains(&fail), "names `{fail}`: {err}");
    assert!(!err.contains("writes need"), "{err}");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), base);

    // The way out the message names works.
    let oss = DYING_OSS.to_string();
    ok(&["store", "fail", s(&dir), "--oss", &oss], b"");
    let new = tmp.path().join("new-disk");
    ok(
        &["store", "rebuild", s(&dir), "--oss", &oss, "--to", s(&new)],
        b"",
    );
    ok(
        &["store", "write", s(&dir), "a", "--offset", "90000"],
        &more,
    );
    let mut want = base.clone();
    put_over(&mut want, 90_000, &more);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
}
