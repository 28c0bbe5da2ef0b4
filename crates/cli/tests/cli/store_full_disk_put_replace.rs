//! `put` over an existing name on a nearly full metadata disk (s20e leftover). The put
//! writes the new content under a staging name, journals its `Replace` (synced: from there
//! the name holds the new content for good), then deletes the old content's objects,
//! journaling a record before and one after. When the disk took the `Replace` and refused a
//! record after it, `put` exited 1 though the name held the new content: a script took the
//! put for undone (the old content kept) and put it again or gave up.
//!
//! Specification: whatever the journal write the disk refuses first, `put` either replaced
//! the content (exit 0; a cleanup it could not finish is told as a warning naming what is
//! left) or did not (exit 1, the name reads its old content). With room again the store is
//! consistent.

use crate::common;
use common::*;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// More journal writes than the `put` below (with its open and close) makes: past it, the
/// put finishes.
const JOURNAL_WRITES_MAX: usize = 24;

/// `exaraid store put DIR NAME < content` with every journal write after the first
/// `allowed` failing ENOSPC: a metadata disk that fills there.
fn put_with_journal_writes(shim: &Path, dir: &str, allowed: usize, content: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "put", dir, "a"])
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", format!("{dir}/journal"))
        .env("NOSPCAFTER", allowed.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A put refused before it reads its input closes the pipe: the exit status tells.
    let _ = child.stdin.take().unwrap().write_all(content);
    child.wait_with_output().unwrap()
}

#[test]
fn put_over_a_name_on_a_nearly_full_metadata_disk_exits_0_once_the_name_holds_the_new_content() {
    let tmp = fast_tempdir("full-disk-put-replace");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the nospc shim was not built, test skipped");
        return;
    };
    let image = tmp.path().join("image");
    let d = s(&image);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let old = bytes(1, 30_000);
    let new = bytes(7, 5_000);
    let b = bytes(2, 5_000);
    ok(&["store", "put", d, "a"], &old);
    ok(&["store", "put", d, "b"], &b);

    let (mut replaced, mut refused, mut deferred) = (0, 0, 0);
    for n in 0..JOURNAL_WRITES_MAX {
        let dir = tmp.path().join("store");
        copy_store(&image, &dir);
        let dir = dir.canonicalize().unwrap();
        let d = s(&dir);
        let out = put_with_journal_writes(&shim, d, n, &new);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reads = ok(&["store", "get", d, "a"], b"");
        match out.status.code() {
            Some(0) => {
                assert!(
                    reads == new,
                    "journal writes past {n} refused: put exited 0 and 'a' does not read the new content: {stderr}"
                );
                if stderr.contains("deleting its old content's objects") {
                    assert!(
                        stderr.contains("file 'a' holds the put's new content")
                            && stderr.contains("every open tries again"),
                        "journal writes past {n} refused: the warning says the put is done and what cleanup is left: {stderr}"
                    );
                    deferred += 1;
                }
                replaced += 1;
            }
            Some(1) => {
                assert!(
                    reads == old,
                    "journal writes past {n} refused: put exited 1 though 'a' reads the new content: {stderr}"
                );
                refused += 1;
            }
            other => panic!("journal writes past {n} refused: put exit {other:?}: {stderr}"),
        }
        // Room again: every byte right, nothing of the replacement left half done.
        assert!(ok(&["store", "get", d, "b"], b"") == b, "after {n}: b");
        ok(&["store", "scrub", d], b"");
        let out = exaraid(&["store", "ls", d], b"");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "after {n}: with room the open finishes what put deferred: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        replaced > 0 && refused > 0 && deferred > 0,
        "the sweep reaches every outcome: replaced {replaced} (its cleanup deferred {deferred}), refused {refused}"
    );
}
