//! One process at a time: a command that finds the store open in another process waits for
//! it (`--lock-wait-ms`, default 60 s) instead of failing after the library's few seconds
//! (review s7r R7-7: 14 of 48 concurrent `store write`s of one job failed).

use crate::common;

use common::*;
use std::os::unix::io::AsRawFd;
use std::time::{Duration, Instant};

/// Hold the store's lock (a flock on its directory, as a running command does) for `hold`.
fn hold_lock(dir: &std::path::Path, hold: Duration) -> std::thread::JoinHandle<()> {
    let f = std::fs::File::open(dir).unwrap();
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the test takes the store's lock first");
    std::thread::spawn(move || {
        std::thread::sleep(hold);
        drop(f);
    })
}

#[test]
fn a_command_waits_for_another_process_past_the_librarys_few_seconds() {
    let dir = fast_tempdir("lockwait");
    let d = s(dir.path());
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let data = bytes(3, 10_000);
    ok(&["store", "put", d, "f", "--lock-wait-ms", "1000"], &data);

    // Held 4.5 s: longer than one open's own wait (3 s), so the command must retry.
    let start = Instant::now();
    let holder = hold_lock(dir.path(), Duration::from_millis(4_500));
    let got = ok(&["store", "get", d, "f"], b"");
    assert_eq!(got, data);
    assert!(
        start.elapsed() >= Duration::from_millis(4_500),
        "the get ran while the lock was held"
    );
    holder.join().unwrap();

    // With a short wait it gives up, names the wait, and changes nothing. The lock is held
    // until the command has exited, however long its one attempt takes on a loaded machine
    // (a 4.5 s hold was outlasted under load 24: s8e).
    let f = std::fs::File::open(dir.path()).unwrap();
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the test takes the store's lock first");
    let err = fails(
        &[
            "store",
            "write",
            d,
            "f",
            "--offset",
            "0",
            "--lock-wait-ms",
            "0",
        ],
        &bytes(9, 100),
    );
    assert!(
        err.contains("already open, in this process or another"),
        "{err}"
    );
    assert!(err.contains("--lock-wait-ms"), "{err}");
    drop(f);
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);

    let err = fails(&["store", "ls", d, "--lock-wait-ms", "999999999999"], b"");
    assert!(err.contains("more than a day"), "{err}");
}

#[test]
fn flush_gives_open_window_bytes_their_parity_and_says_so() {
    let dir = fast_tempdir("flushcli");
    let d = s(dir.path());
    init_store(
        d,
        &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
    );
    let data = bytes(5, 40_000);
    ok(&["store", "put", d, "f"], &data);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.trim();
    let new = bytes(6, 20_000);
    ok(&["store", "write", d, "f", "--offset", "0"], &new);
    let status = String::from_utf8(ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert!(!status.contains("\"bytes_unprotected\": 0,"), "{status}");

    let out = String::from_utf8(ok(&["store", "flush", d], b"")).unwrap();
    assert!(out.contains("0 bytes unprotected"), "{out}");
    // The window's bytes have parity now: failing the OSS that holds them loses nothing (the
    // documented way to move a healthy OSS: flush, fail, rebuild --to).
    for oss in 0..5 {
        let out =
            String::from_utf8(ok(&["store", "fail", d, "--oss", &oss.to_string()], b"")).unwrap();
        assert!(!out.contains("LOST"), "OSS {oss}: {out}");
        let mut want = data.clone();
        want[..new.len()].copy_from_slice(&new);
        assert_eq!(ok(&["store", "get", d, "f"], b""), want, "OSS {oss} failed");
        let to = dir.path().join(format!("new-{oss}"));
        ok(
            &[
                "store",
                "rebuild",
                d,
                "--oss",
                &oss.to_string(),
                "--to",
                s(&to),
            ],
            b"",
        );
    }
    ok(&["store", "delayed", "end", d, token], b"");
    ok(&["store", "scrub", d], b"");
}
