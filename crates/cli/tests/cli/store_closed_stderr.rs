//! Review s13r R13-5: a reader of stderr that went away (`2>&1 | head -1`, a log shipper
//! that exited) must not turn a message into a panic. The command keeps its own exit code,
//! and a read that only warned still writes its bytes to stdout.

use crate::common;
use common::*;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs exaraid with stderr a pipe whose read end is closed before the child starts: every
/// write to stderr fails with EPIPE (SIGPIPE is ignored by the Rust runtime).
fn with_stderr_closed(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(writer)
        .output()
        .unwrap()
}

/// A store holding `f`, whose journal ends in a torn append (a length field pointing past
/// the end of the file): the next open cuts it and warns on stderr.
fn store_that_warns_on_open(dir: &std::path::Path, content: &[u8]) {
    let d = s(dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    ok(&["store", "put", d, "f"], content);
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("journal"))
        .unwrap();
    journal.write_all(&[0xff, 0xff, 0x00, 0x00, 1, 2]).unwrap();
}

#[test]
fn an_error_keeps_its_exit_code_when_stderr_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let out = with_stderr_closed(&["store", "get", d, "nosuch"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn a_read_that_warns_still_writes_its_bytes_when_stderr_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let content = bytes(7, 30_000);
    // The scene does warn: seen with stderr open.
    let seen = tmp.path().join("seen");
    store_that_warns_on_open(&seen, &content);
    let out = exaraid(&["store", "get", s(&seen), "f"], b"");
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warning"),
        "the scene must warn for this test to mean anything: {out:?}"
    );
    // The same scene with stderr gone: the bytes come out, exit 0.
    let dir = tmp.path().join("store");
    store_that_warns_on_open(&dir, &content);
    let out = with_stderr_closed(&["store", "get", s(&dir), "f"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout == content, "stdout {} bytes", out.stdout.len());
}
