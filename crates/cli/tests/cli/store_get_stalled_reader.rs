//! A `get` whose reader stops taking its output (a pager left open, a stopped job, a slow
//! `| ssh`) must not hold the store (review s11r R11-8): it held the store's lock while its
//! write to stdout blocked, and every other command of every process waited for it and gave
//! up after `--lock-wait-ms`. A file of up to one streamed piece is read whole and the store
//! closed before the output is written.

use crate::common;
use common::*;

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_get_into_a_reader_that_does_not_read_does_not_hold_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    // Far more than a pipe holds (64 KiB on Linux): the get's write blocks until it is read.
    let f = bytes(1, 1_000_000);
    ok(&["store", "put", d, "f"], &f);
    let mut get = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "get", d, "f"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its first byte: the get has had the store (it writes only once it has read), and
    // its write of the rest now waits for a reader.
    let mut stdout = get.stdout.take().unwrap();
    let mut out = vec![0u8; 1];
    stdout.read_exact(&mut out).unwrap();
    // Nobody reads the rest yet: other commands still get the store.
    let status = exaraid(&["store", "status", d, "--lock-wait-ms", "5000"], b"");
    assert!(
        status.status.success(),
        "status beside a get whose output is not read: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    ok(
        &["store", "put", d, "g", "--lock-wait-ms", "5000"],
        &bytes(2, 10_000),
    );
    // The reader comes back: every byte of the file as it was when the get read it.
    stdout.read_to_end(&mut out).unwrap();
    let done = get.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(out == f, "the get wrote the file's bytes");
    assert!(ok(&["store", "get", d, "g"], b"") == bytes(2, 10_000));
}
