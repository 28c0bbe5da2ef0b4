//! A failed fsync of the journal (`scripts/eioshim.c`, one fsync failing with ENOSPC, the
//! disk fine after it) never lets the command that met it succeed (merge review of s35o).
//! Why: the kernel reports a writeback error once per open file, so the next fsync of the
//! journal (a writer's group commit shares the open file) could return success over records
//! that never reached the disk, and acknowledge them. The scene: a delayed window whose
//! timeout is due when `write` of another file opens the store, so the open fires it and
//! journals the timeout's tick synced (s35o) in the same process as the write. Before the
//! latch, that tick's failed fsync with ENOSPC was taken for a full disk ("nothing changed,
//! fire it later") and the write went on and was acknowledged.

use crate::common;

use common::*;
use std::process::Command;

/// The fsyncs tried, at most (the loop ends at the first N the command does not reach).
const SYNC_FAIL_N_MAX: u32 = 60;
const A_BYTES: usize = 20_000;
const B_BYTES: usize = 9_000;

#[test]
fn a_failed_journal_fsync_fails_the_command_and_loses_nothing() {
    let tmp = fast_tempdir("journalsynceio");
    let Some(shim) = build_shim(tmp.path()) else {
        panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
    };
    let mut journal_failures = 0;
    for n in 1..=SYNC_FAIL_N_MAX {
        let dir = tmp.path().join(format!("s{n}"));
        let d = s(&dir);
        init_store(
            d,
            &[
                "--oss",
                "5",
                "--code",
                "raid5",
                "--write-path",
                "delayed",
                "--window-timeout-ms",
                "500",
            ],
        );
        let mut a = bytes(1, A_BYTES);
        let b_old = bytes(2, B_BYTES);
        ok(&["store", "put", d, "a"], &a);
        ok(&["store", "put", d, "b"], &b_old);
        ok(&["store", "delayed", "start", d, "a"], b"");
        let w = bytes(3, 3_000);
        ok(&["store", "write", d, "a", "--offset", "5000"], &w);
        a[5_000..8_000].copy_from_slice(&w);
        std::thread::sleep(std::time::Duration::from_millis(600));
        let b_new = bytes(4, B_BYTES);
        let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(["store", "write", d, "b", "--offset", "0"])
            .env("LD_PRELOAD", &shim)
            .env("SYNCFAILN", n.to_string())
            .env("FAILERRNO", "ENOSPC")
            .env("FAILSTICKY", "0")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(&b_new)?;
                child.wait_with_output()
            })
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let failed_sync = stderr
            .lines()
            .find(|l| l.starts_with(&format!("EIOSHIM: sync {n} fails")));
        let Some(failed_sync) = failed_sync else {
            assert!(out.status.success(), "sync {n}: no fsync failed: {stderr}");
            break;
        };
        // Appends and the group commit sync the journal with fdatasync; the one fsync of it
        // (the checkpoint's reset, at close) comes after every acknowledgement and only
        // warns, as it must: the journal it would shorten still holds every change (and a
        // poisoned store skips the checkpoint at close).
        if failed_sync.contains(&format!("fdatasync({}/journal)", d)) {
            journal_failures += 1;
            assert!(
                !out.status.success(),
                "sync {n}: the journal's fsync failed ({failed_sync}) and the command succeeded: {stderr}"
            );
        }
        // Whatever failed, the next open recovers: the window's bytes and b (old or new:
        // not acknowledged where the command failed) read back.
        assert_eq!(ok(&["store", "get", d, "a"], b""), a, "sync {n}: a");
        let b = ok(&["store", "get", d, "b"], b"");
        assert!(
            b == b_new || (!out.status.success() && b == b_old),
            "sync {n}: b WRONG bytes"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(journal_failures > 0, "no fsync of the journal was reached");
}
