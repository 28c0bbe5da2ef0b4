//! `rm` on a nearly full metadata disk (session 19 leftover of s19e). `rm` journals the
//! file's `Remove` (synced), then deletes its objects, journaling a record before and one
//! after. When the disk took the `Remove` and refused a record after it, `rm` exited 1
//! though the name was gone for good: a script retried an `rm` of a file that no longer
//! existed, or took a done removal for a failed one.
//!
//! Specification: whatever the journal write the disk refuses first, `rm` either removed
//! the name (exit 0; a cleanup it could not finish is told as a warning) or did not (exit
//! 1, the name and its bytes still there). With room again the store is consistent.

use crate::common;
use common::*;

use std::path::Path;
use std::process::Command;

/// More journal writes than `rm` (with its open and close) makes: past it, `rm` finishes.
const JOURNAL_WRITES_MAX: usize = 12;

/// The names `ls` lists.
fn names(dir: &Path) -> Vec<String> {
    let out = ok(&["store", "ls", s(dir), "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let files = v.as_array().unwrap().iter();
    files
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rm_on_a_nearly_full_metadata_disk_exits_0_when_the_name_is_gone_and_1_only_when_it_stays() {
    let tmp = fast_tempdir("full-disk-rm");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the nospc shim was not built, test skipped");
        return;
    };
    let image = tmp.path().join("image");
    let d = s(&image);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let a = bytes(1, 30_000);
    let b = bytes(2, 5_000);
    ok(&["store", "put", d, "a"], &a);
    ok(&["store", "put", d, "b"], &b);

    let (mut removed, mut refused, mut deferred) = (0, 0, 0);
    for n in 0..JOURNAL_WRITES_MAX {
        let dir = tmp.path().join("store");
        copy_store(&image, &dir);
        let dir = dir.canonicalize().unwrap();
        let d = s(&dir);
        // Every journal write after the first `n` fails ENOSPC: a disk that fills there.
        let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(["store", "rm", d, "a"])
            .env("LD_PRELOAD", &shim)
            .env("NOSPCFILE", format!("{d}/journal"))
            .env("NOSPCAFTER", n.to_string())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let listed = names(&dir);
        match out.status.code() {
            Some(0) => {
                assert!(
                    !listed.contains(&"a".to_string()),
                    "journal writes past {n} refused: rm exited 0 and 'a' is still listed: {stderr}"
                );
                if stderr.contains("deleting its objects") {
                    assert!(
                        stderr.contains("file 'a' is removed") && stderr.contains("every open tries again"),
                        "journal writes past {n} refused: the warning says the name is gone and the cleanup comes later: {stderr}"
                    );
                    deferred += 1;
                }
                removed += 1;
            }
            Some(1) => {
                assert!(
                    listed.contains(&"a".to_string()),
                    "journal writes past {n} refused: rm exited 1 though 'a' is gone: {stderr}"
                );
                assert!(
                    ok(&["store", "get", d, "a"], b"") == a,
                    "journal writes past {n} refused: rm refused, 'a' reads its bytes"
                );
                refused += 1;
            }
            other => panic!("journal writes past {n} refused: rm exit {other:?}: {stderr}"),
        }
        // Room again: every byte right, nothing of the removal left half done.
        assert!(ok(&["store", "get", d, "b"], b"") == b, "after {n}: b");
        ok(&["store", "scrub", d], b"");
        let out = exaraid(&["store", "ls", d], b"");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "after {n}: with room the open finishes what rm deferred: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        removed > 0 && refused > 0 && deferred > 0,
        "the sweep reaches every outcome: removed {removed} (its cleanup deferred {deferred}), refused {refused}"
    );
}
