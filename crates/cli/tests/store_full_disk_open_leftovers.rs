//! Session 19 leftovers (s19e) of the work an open does by itself on a full metadata disk
//! (see `store_full_disk_open_work.rs` for the records s19e made deferrable). Each scene
//! runs the CLI with every journal write after the first `n` failing ENOSPC (the nospc
//! shim: a disk that fills at a chosen instant), `n` swept, or under a file-size limit.
//!
//! Specification: on a full metadata disk a read of an untouched file succeeds with its
//! acknowledged bytes, the output names the disk to free, a name no one was ever told of is
//! not listed, and with room again the store is consistent.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// More journal writes than any open below makes before it serves the read.
const JOURNAL_WRITES_MAX: usize = 12;

/// `exaraid args` with every write to the store's journal (and its replacement) after the
/// first `n` failing ENOSPC.
fn with_journal_full_after(shim: &Path, dir: &Path, n: usize, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", format!("{}/journal", s(dir)))
        .env("NOSPCAFTER", n.to_string())
        .output()
        .unwrap()
}

/// A fresh copy of the store `image` at `tmp/store`, canonical (the shim matches paths).
fn fresh_copy(image: &Path, tmp: &Path) -> PathBuf {
    let dir = tmp.join("store");
    copy_store(image, &dir);
    dir.canonicalize().unwrap()
}

/// The names `ls` lists (one per line, the name last).
fn listed_names(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect()
}

/// A journal whose last record was torn by a power cut (a frame cut short): the open cuts
/// it, writes its decision in its place, then owes a metadata-epoch bump at once (the cut
/// record may have been one, told to OSSs missing now). A full disk that took the decision
/// and refused the bump failed the open: `get` of an untouched file exited 1.
#[test]
fn the_epoch_bump_owed_after_a_cut_journal_tail_on_a_full_metadata_disk_leaves_reads_working() {
    let tmp = fast_tempdir("full-disk-tail-bump");
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
    // Records in the journal (a killed put's), then a frame cut short after them.
    let kill_at = format!("{}:1", exaraid_store::torture::JOURNAL_RECORD);
    assert!(killed_at(
        &["store", "put", d, "c"],
        &bytes(3, 9_000),
        &kill_at
    ));
    assert!(
        !journal_records(&image).is_empty(),
        "records before the torn one"
    );
    let mut journal = std::fs::read(image.join("journal")).unwrap();
    journal.extend_from_slice(&200u32.to_le_bytes());
    journal.extend_from_slice(&[0x5a; 14]);
    std::fs::write(image.join("journal"), &journal).unwrap();

    let mut decided_then_refused = 0;
    for n in 0..JOURNAL_WRITES_MAX {
        let dir = fresh_copy(&image, tmp.path());
        let d = s(&dir);
        let out = with_journal_full_after(&shim, &dir, n, &["store", "get", d, "a"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && out.stdout == a,
            "journal writes past {n} refused: get of an untouched file reads it: exit {:?}: {stderr}",
            out.status.code()
        );
        if stderr.contains("metadata epoch") {
            assert!(
                stderr.contains(&format!("Free space on the file system holding {d}")),
                "journal writes past {n} refused: the warning names the disk to free: {stderr}"
            );
            decided_then_refused += 1;
        }
        let out = with_journal_full_after(&shim, &dir, n, &["store", "ls", d]);
        let names = listed_names(&out.stdout);
        assert!(
            out.status.success() && names == ["a", "b"],
            "journal writes past {n} refused: ls lists a and b: {names:?} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Room again.
        assert!(ok(&["store", "get", d, "b"], b"") == b, "after {n}: b");
        ok(&["store", "put", d, "c"], &bytes(4, 7_000));
        ok(&["store", "scrub", d], b"");
    }
    assert!(
        decided_then_refused > 0,
        "some n lets the tail's decision in and refuses the bump after it"
    );
}

/// `fail --oss 1` of a store that needs recovery (a window write killed -9) while OSS 1's
/// mount is away: the failure goes on record before recovery, and recovery first records
/// the open window's bytes whose only copy was on OSS 1 lost (`record_losses`). A full
/// disk that refused that record failed every later open, `get` of an untouched file too.
#[test]
fn recovery_whose_loss_record_a_full_metadata_disk_refuses_opens_for_reads_naming_the_disk() {
    let tmp = fast_tempdir("full-disk-record-losses");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the nospc shim was not built, test skipped");
        return;
    };
    let a = bytes(1, 30_000);
    let b = bytes(2, 5_000);
    let cut = bytes(3, 30_000);
    let image = (1..=JOURNAL_WRITES_MAX)
        .find_map(|k| {
            let dir = tmp.path().join(format!("scene{k}"));
            let d = s(&dir);
            init_store(
                d,
                &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
            );
            ok(&["store", "put", d, "b"], &b);
            ok(&["store", "delayed", "start", d, "a"], b"");
            ok(&["store", "write", d, "a", "--offset", "0"], &a);
            let kill_at = format!("{}:{k}", exaraid_store::torture::JOURNAL_RECORD);
            let args = ["store", "write", d, "a", "--offset", "0"];
            let killed = killed_at(&args, &cut, &kill_at);
            let last = journal_records(&dir).pop().unwrap_or_default();
            (killed && last.contains("\"Write\"")).then_some(dir)
        })
        .expect("a window write killed right after its input record");
    oss_away(&image, 1);

    // The `fail` whose Fail record goes in and whose loss record is refused.
    let dir = (0..JOURNAL_WRITES_MAX)
        .find_map(|n| {
            let dir = fresh_copy(&image, tmp.path());
            let d = s(&dir);
            with_journal_full_after(&shim, &dir, n, &["store", "fail", d, "--oss", "1"]);
            let records = journal_records(&dir);
            let failed = records.iter().position(|r| r.contains("\"Fail\""));
            let lost = records.iter().rposition(|r| r.contains("\"Lost\""));
            let scene = failed.is_some() && lost.is_none_or(|l| l < failed.unwrap());
            scene.then(|| {
                let kept = tmp.path().join("failed");
                copy_store(&dir, &kept);
                kept.canonicalize().unwrap()
            })
        })
        .expect("some n lets the Fail record in and refuses the loss record");
    let d = s(&dir);
    for args in [vec!["store", "get", d, "b"], vec!["store", "ls", d]] {
        let out = with_journal_full_after(&shim, &dir, 0, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success()
                && stderr.contains("reads only")
                && stderr.contains(&format!("Free space on the file system holding {d}")),
            "{args:?} on the full metadata disk serves its read, says the store is open for reads only and names the disk to free: exit {:?}: {stderr}",
            out.status.code()
        );
        match args[1] {
            "get" => assert!(out.stdout == b, "b reads its bytes"),
            _ => assert_eq!(listed_names(&out.stdout), ["a", "b"], "ls"),
        }
    }
    let out = with_journal_full_after(&shim, &dir, 0, &["store", "get", d, "a"]);
    assert!(
        !out.status.success(),
        "a's window bytes had their only copy on OSS 1: never served: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Room again: recovery records the loss, every other byte right.
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    let lost = status["lost_ranges"].as_array().unwrap();
    assert!(
        !lost.is_empty() && lost.iter().all(|l| l["file"] == "a" && l["oss"] == 1),
        "the window's bytes on OSS 1 are recorded lost: {status}"
    );
    assert!(ok(&["store", "get", d, "b"], b"") == b);
    reads_right_outside_its_losses(d, "a", &a, Some(&cut), "after recovery with room");
}

/// A put over `a` killed after its bytes were durable and before its `Replace` leaves its
/// staging file; the open removes it, which a full metadata disk refuses (best effort: the
/// open goes on with a warning). The warning said "stays in the store until the next open
/// or put of that name removes it: removing it now failed": what happened to `a`, and
/// whether anything needs doing, was left to guess (s19e leftover).
#[test]
fn a_staging_file_left_on_a_full_metadata_disk_is_told_as_what_happened_and_what_to_do() {
    let tmp = fast_tempdir("full-disk-staging-wording");
    let a = bytes(1, 20_000);
    let dir = (1..=JOURNAL_WRITES_MAX)
        .find_map(|k| {
            let dir = tmp.path().join(format!("s{k}"));
            let d = s(&dir);
            init_store(d, &["--oss", "5", "--code", "raid5"]);
            ok(&["store", "put", d, "a"], &a);
            let kill_at = format!("{}:{k}", exaraid_store::torture::JOURNAL_RECORD);
            let killed = killed_at(&["store", "put", d, "a"], &bytes(2, 20_000), &kill_at);
            let records = journal_records(&dir);
            let left = records.iter().any(|r| r.contains("a\\u0000put"))
                && records.last().is_some_and(|r| r.contains("\"Complete\""));
            (killed && left).then_some(dir)
        })
        .expect("a put killed after its bytes were durable, before its Replace");
    let d = s(&dir);
    let journal_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    let mut get = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    get.args(["store", "get", d, "a"])
        .stdin(std::process::Stdio::null());
    let out = output_under_file_size_limit(get, journal_bytes);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && out.stdout == a, "a reads: {stderr}");
    assert!(
        stderr.contains("a put of 'a'")
            && stderr.contains("did not finish")
            && stderr.contains("file 'a' keeps the content it had before that put")
            && stderr.contains("Nothing is lost")
            && stderr.contains("free space on the disk the error names")
            && stderr.contains(s(&dir.join("journal"))),
        "the warning says what happened (a put that did not finish, 'a' as before), that nothing is lost, and what to do: {stderr}"
    );
}

/// A `write` creating `g`, refused part way (two OSSs away, past raid5's tolerance): every
/// write to `g` was cut, none acknowledged, and the next open's recovery removes the name.
/// On a full metadata disk that recovery cannot run and the store opens for reads only;
/// `ls` then listed `g` at the cut write's length (zeros or the cut bytes), a name no one
/// was ever told of. It is not listed, and `get g` says why.
#[test]
fn a_reads_only_open_does_not_list_a_new_name_whose_every_write_was_cut() {
    let tmp = fast_tempdir("full-disk-cut-name");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the nospc shim was not built, test skipped");
        return;
    };
    let image = tmp.path().join("image");
    let d = s(&image);
    init_store(d, &["--oss", "4", "--code", "raid5", "--write-path", "wcl"]);
    let f = bytes(5, 20_000);
    ok(&["store", "put", d, "f"], &f);
    for i in [1, 2] {
        let oss = image.join(format!("oss-{i}"));
        std::fs::rename(oss, image.join(format!("away-{i}"))).unwrap();
    }
    fails(
        &["store", "write", d, "g", "--offset", "0"],
        &bytes(6, 20_000),
    );
    for i in [1, 2] {
        let oss = image.join(format!("oss-{i}"));
        std::fs::rename(image.join(format!("away-{i}")), oss).unwrap();
    }

    let mut reads_only = 0;
    for n in 0..JOURNAL_WRITES_MAX {
        let dir = fresh_copy(&image, tmp.path());
        let d = s(&dir);
        let out = with_journal_full_after(&shim, &dir, n, &["store", "ls", d]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let names = listed_names(&out.stdout);
        assert!(
            out.status.success() && names == ["f"],
            "journal writes past {n} refused: ls lists f only: {names:?}: {stderr}"
        );
        if !stderr.contains("reads only") {
            continue;
        }
        let out = with_journal_full_after(&shim, &dir, n, &["store", "get", d, "g"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("no file named 'g'"),
            "journal writes past {n} refused: get g says there is no such file: {err}"
        );
        // Else the recovery had journaled g's removal before the refused record.
        if err.contains("cut every write") {
            assert!(err.contains("reads only"), "n {n}: and why: {err}");
            reads_only += 1;
        }
        let out = with_journal_full_after(&shim, &dir, n, &["store", "get", d, "f"]);
        assert!(out.status.success() && out.stdout == f, "n {n}: f reads");
        let out = with_journal_full_after(&shim, &dir, n, &["store", "status", d, "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status["files"], 1, "n {n}: status counts f only: {status}");
    }
    assert!(
        reads_only > 0,
        "some n leaves the store open for reads only with g's name not yet removed"
    );
}
