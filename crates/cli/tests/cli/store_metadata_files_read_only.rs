//! Review s12r R12-2 (BAD ERROR): metadata FILES this process cannot write, in a metadata
//! directory it can write (a journal made append-only or immutable; a journal or state of
//! another user in a shared directory). Every command, `get` and `status` too, failed with a
//! bare "journal DIR/journal: Operation not permitted (os error 1)", and a refused state
//! checkpoint was blamed on a failing disk (SMART advice) with a `state.tmp` left behind.
//! Specification: reads work, saying which file refuses writes and what to do; a change is
//! refused with nothing done; no `state.tmp` is left; with the file writable again,
//! everything works as before.
//!
//! The files are made unwritable with `chattr +a` / `+i` (root and a file system that
//! supports them): the test says so and passes without checking anything where it cannot.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A file attribute set with chattr, cleared when dropped (also when the test fails, so the
/// temporary directory can be removed). `None`: not permitted here.
struct Attr(PathBuf, &'static str);

impl Attr {
    fn set(path: &Path, flag: &'static str) -> Option<Attr> {
        let set = Command::new("chattr")
            .args([&format!("+{flag}"), s(path)])
            .output()
            .is_ok_and(|o| o.status.success());
        set.then(|| Attr(path.to_path_buf(), flag))
    }
}

impl Drop for Attr {
    fn drop(&mut self) {
        let _ = Command::new("chattr")
            .args([&format!("-{}", self.1), s(&self.0)])
            .status();
    }
}

#[test]
fn unwritable_metadata_files_serve_reads_and_name_the_file() {
    let root = tempfile::tempdir().unwrap();
    let d = root.path().join("s");
    let d = s(&d);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let f = bytes(3, 30_000);
    ok(&["store", "put", d, "f"], &f);
    let meta = Path::new(d);
    for (file, flag) in [("journal", "a"), ("journal", "i"), ("state", "i")] {
        let path = meta.join(file);
        let Some(attr) = Attr::set(&path, flag) else {
            eprintln!("SKIPPED: chattr +{flag} is not permitted here (needs root and ext4/xfs)");
            return;
        };
        let out = exaraid(&["store", "get", d, "f"], b"");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "+{flag} {file}: get: {err}");
        assert_eq!(out.stdout, f, "+{flag} {file}: the bytes read");
        assert!(
            err.contains(&format!("{} cannot be opened for writing", path.display()))
                && err.contains("chattr -a -i")
                && !err.contains("SMART"),
            "+{flag} {file}: names the file and what to do: {err}"
        );
        // Nothing to recover: `status` says read only, not "recovery pending" (merge
        // review of session 12: the label was told by the message's old wording).
        let status =
            String::from_utf8_lossy(&exaraid(&["store", "status", d], b"").stdout).into_owned();
        assert!(
            status.contains("READ ONLY") && !status.contains("RECOVERY PENDING"),
            "+{flag} {file}: status: {status}"
        );
        let refused = fails(&["store", "put", d, "g"], b"new");
        assert!(
            refused.contains("cannot be opened for writing"),
            "{refused}"
        );
        assert!(
            !meta.join("state.tmp").exists(),
            "+{flag} {file}: no state.tmp"
        );
        drop(attr);
    }
    ok(&["store", "put", d, "g"], b"new");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    assert_eq!(ok(&["store", "get", d, "g"], b""), b"new");
}

/// The last journal record's text (records: u32 length, u32 crc, JSON).
fn last_journal_record(dir: &Path) -> String {
    let journal = std::fs::read(dir.join("journal")).unwrap();
    let mut at = 0;
    let mut last = String::new();
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        let end = (at + 8 + len).min(journal.len());
        last = String::from_utf8_lossy(&journal[at + 8..end]).to_string();
        at = end;
    }
    last
}

/// Session 15 (s15h, from s15d's note): an open whose metadata refuses writes does not tell
/// the planner about plans durable before a crash whose `Complete` was not journaled (the
/// writing open tells it and journals it; the full-metadata-disk opens tell it in memory).
/// Specification: that open serves the same bytes as the writing open after it, with every
/// OSS and with one OSS directory missing (a degraded read), on each write path: the
/// planner's view of such a plan as still running names slots nothing has changed since
/// (a WCL destage's cache stripe, a delayed window's cache chunks before its move home
/// completes), as the store's own view does (it learns no completion not journaled).
/// The crash is a kill right after the last `Durable` record of the command's plans.
#[test]
fn a_read_only_metadata_open_after_a_durable_unheard_plan_reads_what_the_writing_open_reads() {
    const RECORDS_MAX: usize = 40;
    let root = fast_tempdir("exaraid-ro-unheard-");
    let base = bytes(4, 60_000);
    let over = bytes(5, 7_000);
    // WCL: partial writes that the killed write completes into a whole stripe (a background
    // destage); delayed: the END of a window (parity, then the move home); rmw: a write.
    for path in ["wcl", "delayed", "rmw"] {
        let scene = |n: usize| -> (std::path::PathBuf, bool) {
            let dir = root.path().join(format!("{path}-{n}"));
            let d = s(&dir);
            init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", path]);
            ok(&["store", "put", d, "a"], &base);
            let token = (path == "delayed").then(|| {
                String::from_utf8(ok(&["store", "delayed", "start", d, "a"], b"")).unwrap()
            });
            for (offset, len) in [(0, 5_000), (5_000, 7_000), (21_000, 7_000)] {
                let offset = offset.to_string();
                ok(
                    &["store", "write", d, "a", "--offset", &offset],
                    &over[..len],
                );
            }
            let kill_at = format!("{}:{n}", exaraid_store::torture::JOURNAL_RECORD);
            let killed = match &token {
                Some(t) => killed_at(&["store", "delayed", "end", d, t.trim()], b"", &kill_at),
                None => killed_at(
                    &["store", "write", d, "a", "--offset", "12000"],
                    &base[..9_000],
                    &kill_at,
                ),
            };
            (dir, killed)
        };
        // The last kill point whose journal ends in a `Durable` record.
        let mut last_durable = None;
        for n in 1..=RECORDS_MAX {
            let (dir, killed) = scene(n);
            let durable = killed && last_journal_record(&dir).contains("\"Durable\"");
            std::fs::remove_dir_all(&dir).unwrap();
            if durable {
                last_durable = Some(n);
            }
            if !killed {
                break;
            }
        }
        let n = last_durable.expect("a kill right after a Durable record");
        let (dir, _) = scene(n);
        let d = s(&dir);
        let journal = dir.join("journal");
        let mut read_only_reads = Vec::new();
        for missing in [None, Some(1)] {
            let Some(attr) = Attr::set(&journal, "i") else {
                eprintln!("SKIPPED: chattr +i is not permitted here (needs root and ext4/xfs)");
                return;
            };
            if let Some(oss) = missing {
                oss_away(&dir, oss);
            }
            let out = exaraid(&["store", "get", d, "a"], b"");
            if let Some(oss) = missing {
                oss_back(&dir, oss);
            }
            drop(attr);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(
                out.status.success() && err.contains("reads only"),
                "{path} killed at record {n}, OSS {missing:?} missing: the read-only open serves the read: {err}"
            );
            read_only_reads.push((missing, out.stdout));
        }
        let written = ok(&["store", "get", d, "a"], b"");
        for (missing, read) in read_only_reads {
            assert!(
                read == written,
                "{path} killed at record {n}, OSS {missing:?} missing: the read-only open read other bytes than the writing open"
            );
        }
        ok(&["store", "scrub", d], b"");
    }
}
