//! The CLI on a metadata disk that takes no more bytes, and into a reader that went away
//! (review s4e E1 and Minor): reads and `status` still succeed, writes fail before they
//! acknowledge anything, and `... | head -1` ends quietly without changing the store.

mod common;
use common::*;

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run the CLI where no file may grow past `fsize_bytes` (`prlimit --fsize`, SIGXFSZ
/// ignored so that a write past it fails with EFBIG as on a full disk instead of killing
/// the process). The state checkpoint and the journal are files like any other: none of
/// them can be written, as on a full metadata disk.
fn with_file_size_limit(fsize_bytes: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; exec prlimit --fsize=\"$0\" \"$@\"")
        .arg(fsize_bytes.to_string())
        .arg(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh and prlimit (util-linux) run the CLI under a file-size limit")
}

/// Smaller than any record of the journal and than the state file: nothing grows.
const NO_ROOM_BYTES: u64 = 64;

#[test]
fn a_full_metadata_disk_fails_writes_but_not_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("s");
    let d = s(&d);
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "wcl"]);
    let p0 = bytes(1, 100_000);
    ok(&["store", "put", d, "p0"], &p0);
    for args in [
        vec!["store", "status", d],
        vec!["store", "ls", d],
        vec!["store", "get", d, "p0"],
        vec!["store", "read", d, "p0", "--offset", "10", "--length", "20"],
    ] {
        let out = with_file_size_limit(NO_ROOM_BYTES, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?} changed nothing, so a checkpoint it cannot write is no failure: {stderr}"
        );
        assert!(
            stderr.contains("warning") && stderr.contains("nothing is lost"),
            "{args:?} says the checkpoint was not written: {stderr}"
        );
        if args[1] == "get" {
            assert!(out.stdout == p0, "get wrote the file's bytes");
        }
        if args[1] == "read" {
            assert!(out.stdout == p0[10..30], "read wrote the range's bytes");
        }
    }
    // A write needs the journal: refused before it acknowledges anything, saying why.
    let out = with_file_size_limit(NO_ROOM_BYTES, &["store", "rm", d, "p0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "rm cannot be journaled");
    assert!(
        stderr.contains("full"),
        "the error says the disk is full: {stderr}"
    );
    // Room again: every byte as before, and the store writes again.
    assert!(ok(&["store", "get", d, "p0"], b"") == p0);
    assert!(ok(&["store", "ls", d], b"").ends_with(b"p0\n"));
    ok(
        &["store", "write", d, "p0", "--offset", "5000"],
        &bytes(2, 3000),
    );
    let mut expect = p0.clone();
    expect[5000..8000].copy_from_slice(&bytes(2, 3000));
    assert!(ok(&["store", "get", d, "p0"], b"") == expect);
    ok(&["store", "scrub", d], b"");
}

/// Run the CLI with stdout into a socket whose reading end is already closed: its first
/// write fails with EPIPE, deterministically (a reader that exited, as `head -1` does).
fn into_closed_pipe(args: &[&str]) -> Output {
    let (ours, theirs) = UnixStream::pair().unwrap();
    drop(ours);
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(OwnedFd::from(theirs)))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn metadata_files(d: &Path) -> Vec<(String, Vec<u8>)> {
    ["state", "journal"]
        .iter()
        .map(|name| {
            let bytes = std::fs::read(d.join(name)).unwrap_or_default();
            (name.to_string(), bytes)
        })
        .collect()
}

#[test]
fn commands_into_a_closed_pipe_end_quietly_and_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5", "--write-path", "wcl"]);
    let f = bytes(3, 300_000);
    ok(&["store", "put", d, "f"], &f);
    ok(
        &["store", "write", d, "f", "--offset", "1000"],
        &bytes(4, 500),
    );
    for args in [
        vec!["store", "status", d],
        vec!["store", "status", d, "--json"],
        vec!["store", "ls", d],
        vec!["store", "get", d, "f"],
        vec![
            "store", "read", d, "f", "--offset", "0", "--length", "100000",
        ],
        vec!["store", "scrub", d],
    ] {
        let out = into_closed_pipe(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "{args:?} into a closed pipe: exit {:?}, stderr: {stderr}",
            out.status.code()
        );
    }
    // `get` stops at its first piece: the store stays exactly as it was.
    let before = metadata_files(&dir);
    let out = into_closed_pipe(&["store", "get", d, "f"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        metadata_files(&dir) == before,
        "a get into a closed pipe left the store's state and journal as they were"
    );
    let mut expect = f.clone();
    expect[1000..1500].copy_from_slice(&bytes(4, 500));
    assert!(ok(&["store", "get", d, "f"], b"") == expect);
}
