//! Review s14r2 (minor): `put` with stdin closed (`<&-`, fd 0 not open, e.g. from a daemon or
//! a batch wrapper) exited 0 and replaced the file with an empty one, because Rust's runtime
//! reopens a closed fd 0 as /dev/null. A closed stdin is no input: refused, naming it, the
//! file unchanged. An empty stdin (`< /dev/null`) stays a legal put of an empty file.

use crate::common;
use common::*;

use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

/// Runs exaraid with file descriptor 0 not open at all (the shell's `<&-`).
fn with_stdin_closed(args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: close(2) is async-signal-safe; it runs in the child after its stdio is set up,
    // so the null stdin above is what it closes.
    unsafe {
        command.pre_exec(|| {
            if libc::close(0) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    command.output().unwrap()
}

fn store_holding_f(dir: &std::path::Path, content: &[u8]) {
    let d = s(dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    ok(&["store", "put", d, "f"], content);
}

fn refused_naming_closed_stdin(out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        err.contains("stdin is closed") && err.contains("nothing changed"),
        "{err}"
    );
}

#[test]
fn put_with_stdin_closed_is_refused_and_the_file_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let content = bytes(3, 20_000);
    store_holding_f(&dir, &content);
    refused_naming_closed_stdin(&with_stdin_closed(&["store", "put", d, "f"]));
    assert!(ok(&["store", "get", d, "f"], b"") == content);
    // A new name is not created either.
    refused_naming_closed_stdin(&with_stdin_closed(&["store", "put", d, "g"]));
    let listing = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    assert!(!listing.contains(" g"), "{listing}");
}

#[test]
fn write_with_stdin_closed_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let content = bytes(4, 20_000);
    store_holding_f(&dir, &content);
    refused_naming_closed_stdin(&with_stdin_closed(&[
        "store", "write", d, "f", "--offset", "100",
    ]));
    assert!(ok(&["store", "get", d, "f"], b"") == content);
}

#[test]
fn put_of_an_empty_stdin_still_stores_an_empty_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    store_holding_f(&dir, &bytes(5, 20_000));
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "put", d, "f"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(ok(&["store", "get", d, "f"], b""), b"");
}

/// Runs exaraid with file descriptor 0 open but for writing only (the shell's `0> FILE`).
fn with_stdin_write_only(args: &[&str], file: &std::path::Path) -> Output {
    let write_only = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(file)
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::from(write_only))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Review s16r R16-2: a read of a write-only fd 0 fails EBADF, which Rust's `Stdin` takes
/// as end of input: `put` replaced the file with an empty one, exit 0. No input is not an
/// empty input: refused, the file unchanged.
#[test]
fn put_and_write_with_stdin_open_for_writing_only_are_refused_and_the_file_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let content = bytes(6, 20_000);
    store_holding_f(&dir, &content);
    let sink = tmp.path().join("sink");
    for args in [
        &["store", "put", d, "f"][..],
        &["store", "write", d, "f", "--offset", "100"][..],
    ] {
        let out = with_stdin_write_only(args, &sink);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        assert!(
            err.contains("open for writing only") && err.contains("nothing changed"),
            "{err}"
        );
        assert!(ok(&["store", "get", d, "f"], b"") == content);
    }
}
