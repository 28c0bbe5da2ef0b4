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

mod common;

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
