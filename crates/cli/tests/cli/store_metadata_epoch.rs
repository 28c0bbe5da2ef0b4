//! Review s10 R10-1 and R10-4: the store's metadata (state and journal, in the store
//! directory) replaced by an older copy, or its journal deleted or emptied after a kill -9,
//! or an OSS directory of another copy of the store mixed in: the store opened it silently
//! and read stale bytes with exit 0 (and wrote parity over data it did not know of). Now
//! the metadata and every OSS keep a metadata epoch (`backend::MetadataEpoch`), bumped on
//! record before any OSS is told, and open refuses metadata an OSS is ahead of, or at its
//! epoch with another token, changing nothing and saying what to do.

use crate::common;
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The metadata files of a store directory (what a restore of it brings back).
const METADATA: [&str; 3] = ["superblock", "state", "journal"];
/// What every refusal of metadata behind its OSSs says (the lead and s11h rely on it).
const BEHIND: &str = "the store's state and journal are older than its OSS directories";
const WHAT_TO_DO: &str = "Put back this store's newest state and journal";

fn copy_metadata(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for name in METADATA {
        let _ = std::fs::remove_file(to.join(name));
        if from.join(name).exists() {
            std::fs::copy(from.join(name), to.join(name)).unwrap();
        }
    }
}

/// `cp -a from to` (`to` must not exist).
fn copy_dir(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp -a {from:?} {to:?}");
}

/// Every file under `dir` (recursively) with its bytes: to show a refusal changed nothing.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                all.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    all
}

/// A raid5 WCL store of 4 OSSs at `s` in a scratch directory (kept alive by the first
/// value) holding "f" (`bytes(1, 40_000)`, the second value).
fn store_holding_f(prefix: &str) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let tmp = fast_tempdir(prefix);
    let dir = tmp.path().join("s");
    init_store(
        s(&dir),
        &["--oss", "4", "--code", "raid5", "--write-path", "wcl"],
    );
    let f = bytes(1, 40_000);
    ok(&["store", "put", s(&dir), "f"], &f);
    (tmp, dir, f)
}

/// Every command refuses with `want` and the advice, and nothing under `dir` changes.
fn refused_changing_nothing(d: &str, want: &str) {
    let before = tree(Path::new(d));
    for args in [
        vec!["store", "get", d, "f"],
        vec!["store", "status", d],
        vec!["store", "scrub", d],
        vec!["store", "write", d, "f", "--offset", "0"],
    ] {
        let err = fails(&args, &bytes(99, 5000));
        assert!(
            err.contains(want) && err.contains(WHAT_TO_DO) && err.contains("Nothing was changed"),
            "{args:?}: {err}"
        );
    }
    assert!(tree(Path::new(d)) == before, "a refused open changed files");
}

/// R10-1: the store directory's metadata restored from a copy taken between two commands,
/// after more writes: before, `get` returned the file's old bytes with exit 0 (WCL: the
/// newer bytes sit in the cache zone, which only the lost journal records point at).
#[test]
fn metadata_restored_from_an_older_copy_is_refused_until_the_newest_is_back() {
    let (tmp, dir, old) = store_holding_f("s11g-restore");
    let d = s(&dir);
    let backup = tmp.path().join("backup");
    copy_metadata(&dir, &backup);
    let patch = bytes(2, 9000);
    ok(&["store", "write", d, "f", "--offset", "4096"], &patch);
    ok(&["store", "put", d, "g"], &bytes(3, 7000));
    let newest = tmp.path().join("newest");
    copy_metadata(&dir, &newest);

    copy_metadata(&backup, &dir);
    refused_changing_nothing(d, BEHIND);

    // What the message says to do: the newest metadata back, and every byte is right.
    copy_metadata(&newest, &dir);
    let mut want = old.clone();
    put_over(&mut want, 4096, &patch);
    assert!(ok(&["store", "get", d, "f"], b"") == want);
    assert!(ok(&["store", "get", d, "g"], b"") == bytes(3, 7000));
    ok(&["store", "scrub", d], b"");
}

/// A whole backup (the store directory with its OSS directories inside, taken together)
/// restored is consistent: it opens, with the backup's bytes.
#[test]
fn a_whole_store_restored_from_one_backup_opens() {
    let (tmp, dir, f) = store_holding_f("s11g-whole");
    let d = s(&dir);
    let backup = tmp.path().join("backup");
    copy_dir(&dir, &backup);
    ok(
        &["store", "write", d, "f", "--offset", "0"],
        &bytes(2, 9000),
    );
    std::fs::remove_dir_all(&dir).unwrap();
    copy_dir(&backup, &dir);
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    ok(&["store", "scrub", d], b"");
}

/// Kill `args` after the last journal record it makes (its write acknowledged, the close's
/// checkpoint not written), starting from the store image `pristine` each time.
fn kill_after_last_record(dir: &Path, pristine: &Path, args: &[&str], stdin: &[u8]) {
    let mut last_killing = None;
    for n in 1..200 {
        std::fs::remove_dir_all(dir).unwrap();
        copy_dir(pristine, dir);
        if !killed_at(args, stdin, &format!("journal-record:{n}")) {
            break;
        }
        last_killing = Some(n);
    }
    let n = last_killing.expect("the command journals something");
    std::fs::remove_dir_all(dir).unwrap();
    copy_dir(pristine, dir);
    assert!(killed_at(args, stdin, &format!("journal-record:{n}")));
}

/// R10-4: a kill -9 after an acknowledged write (its records in the journal, not yet in a
/// checkpoint of the state), then the journal deleted or emptied: before, the journal was
/// silently recreated empty and `get` returned the old bytes with exit 0.
#[test]
fn a_journal_deleted_or_emptied_after_a_kill_is_refused() {
    let (tmp, dir, old) = store_holding_f("s11g-journal");
    let d = s(&dir);
    let pristine = tmp.path().join("pristine");
    copy_dir(&dir, &pristine);
    let patch = bytes(2, 9000);
    let write = ["store", "write", d, "f", "--offset", "8192"];
    kill_after_last_record(&dir, &pristine, &write, &patch);
    let journal = dir.join("journal");
    let kept = std::fs::read(&journal).unwrap();
    assert!(
        !kept.is_empty(),
        "the killed write's records are in the journal"
    );

    std::fs::remove_file(&journal).unwrap();
    refused_changing_nothing(d, BEHIND);
    assert!(!journal.exists(), "the journal is not recreated");
    std::fs::write(&journal, b"").unwrap();
    refused_changing_nothing(d, BEHIND);

    // The journal back: recovery keeps the acknowledged write.
    std::fs::write(&journal, &kept).unwrap();
    let mut want = old.clone();
    put_over(&mut want, 8192, &patch);
    assert!(ok(&["store", "get", d, "f"], b"") == want);
    ok(&["store", "scrub", d], b"");
}

/// An OSS directory of another copy of the store (same store id and index: a whole copy
/// that went on on its own) put in place of one of this store's: refused, naming the OSS.
#[test]
fn an_oss_directory_of_another_copy_of_the_store_is_refused() {
    let (tmp, dir, _) = store_holding_f("s11g-foreign");
    let d = s(&dir);
    let backup = tmp.path().join("backup");
    copy_dir(&dir, &backup);
    // One copy writes, then is put aside ...
    let write = ["store", "write", d, "f", "--offset", "0"];
    ok(&write, &bytes(2, 12_000));
    let other = tmp.path().join("other");
    std::fs::rename(&dir, &other).unwrap();
    // ... the backup goes on instead, with the same command and other bytes ...
    copy_dir(&backup, &dir);
    ok(&write, &bytes(3, 12_000));
    // ... and the other copy's OSS 1 is mixed in (a mount of the wrong disk).
    std::fs::remove_dir_all(dir.join("oss-1")).unwrap();
    copy_dir(&other.join("oss-1"), &dir.join("oss-1"));
    refused_changing_nothing(d, "OSS 1 (");
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("belongs to another copy of this store"),
        "{err}"
    );
}

/// Review s15r2 R15b-1: after a clean writing command, every OSS holds the command's last
/// epoch (its seal) durably, as of its epoch file's last fsync. An OSS down at the next open
/// is recorded as left at that seal, and taken back however far behind only if it holds
/// exactly that; with the seal unsynced, a power cut in the writeback seconds after the
/// command left it at the command's first epoch, and its return ~512 commands later refused
/// the whole store. The shim keeps each epoch file as its last fsync left it (what a power
/// cut keeps).
#[test]
fn a_clean_writing_command_leaves_every_oss_holding_its_seal_durably() {
    let tmp = fast_tempdir("s15-seal-durable");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s15r2-syncsnapshim") else {
        eprintln!("no C compiler: skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store_unit(d, 4096, &["--oss", "6", "--code", "raid6"]);
    ok(&["store", "put", d, "a"], &bytes(1, 100_000));
    let snapshots = tmp.path().join("snap");
    std::fs::create_dir(&snapshots).unwrap();
    std::fs::write(tmp.path().join("w"), bytes(2, 100)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "write", d, "a", "--offset", "0"])
        .env("LD_PRELOAD", &shim)
        .env("SNAPDIR", &snapshots)
        .stdin(std::fs::File::open(tmp.path().join("w")).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for oss in 0..6 {
        let path = dir.join(format!("oss-{oss}")).join("exaraid-epoch.json");
        let flat = path.to_str().unwrap().replace('/', "%");
        let synced = std::fs::read(snapshots.join(&flat))
            .unwrap_or_else(|_| panic!("OSS {oss}: its epoch file was never fsync'd by the write"));
        let now = std::fs::read(&path).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&synced),
            String::from_utf8_lossy(&now),
            "OSS {oss}: the epoch it holds is not durable (a power cut would take it back)"
        );
    }
}
