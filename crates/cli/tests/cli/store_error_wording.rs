//! Session 14 (s14d): an error says what went wrong, as it happened, and what to do; a
//! message shaped for another case (a delayed window on a store without one, "unavailable"
//! for a failed OSS, "nothing was written" after part of a rebuild was, a bare "File too
//! large") sends the operator the wrong way.

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run the CLI with its files limited to `fsize_bytes` (RLIMIT_FSIZE, as `ulimit -f` sets
/// it; SIGXFSZ at its default disposition, as a shell leaves it) and stdout to `stdout`.
fn with_file_size_limit(fsize_bytes: u64, args: &[&str], stdout: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(stdout).unwrap())
        .stderr(Stdio::piped());
    output_under_file_size_limit(command, fsize_bytes)
}

/// Cached bytes of a WCL store rotten on every OSS (beyond what raid5 tolerates): the flush
/// records them lost. A read of them says so: not "an OSS failed while a delayed window was
/// open ... window none: ..." (review s13r R13-1's raid5 paragraph: no window, no OSS
/// failed), nor the hedge between two causes when only one happened.
#[test]
fn cached_bytes_lost_beyond_the_tolerance_read_as_that_not_as_a_window_loss() {
    let tmp = fast_tempdir("s14d-cache-loss");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "3", "--code", "raid5", "--write-path", "wcl"]);
    ok(&["store", "put", d, "f"], &bytes(1, 65_536));
    // Less than a stripe: it stays in the cache zone (WCL destages complete stripes).
    ok(
        &["store", "write", d, "f", "--offset", "0"],
        &bytes(2, 3000),
    );
    let cache = format!("{}.cache", u64::MAX);
    for oss in 0..3 {
        let path = dir.join(format!("oss-{oss}")).join("objects").join(&cache);
        let mut on_disk = std::fs::read(&path).unwrap();
        for at in (0..on_disk.len().min(4096)).step_by(7) {
            on_disk[at] ^= 0x55;
        }
        std::fs::write(&path, on_disk).unwrap();
    }
    let flushed = fails(&["store", "flush", d], b"");
    assert!(
        flushed.contains("could be neither read nor rebuilt") && flushed.contains("bytes 0..3000"),
        "{flushed}"
    );

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("could neither be read nor rebuilt (corruption or failures beyond the code's tolerance)")
            && err.contains("bytes 0..3000 (OSS ")
            && err.contains(", its cache copy is unreadable beyond the code's tolerance)"),
        "{err}"
    );
    assert!(
        !err.contains("window") && !err.contains("stale column"),
        "no window, no stale column: {err}"
    );
}

/// One OSS failed on record (`fail`), another's directory missing: a write is past raid5's
/// tolerance. The failed one is named failed, with its way back (a rebuild); only the
/// missing one is sent to check its mount.
#[test]
fn a_write_past_the_tolerance_names_the_failed_oss_failed_and_the_missing_one_missing() {
    let tmp = fast_tempdir("s14d-past-tolerance");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "3", "--code", "raid5"]);
    let f = bytes(1, 65_536);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    oss_away(&dir, 1);

    let err = fails(
        &["store", "write", d, "f", "--offset", "0"],
        &bytes(2, 3000),
    );
    let failed_at = err.find("failed (on record");
    let missing_at = err.find("not answering now:");
    assert!(
        failed_at.is_some() && missing_at.is_some() && !err.contains("are unavailable"),
        "{err}"
    );
    let (failed, missing) = err.split_at(missing_at.unwrap());
    assert!(
        failed.contains("OSS 0 (") && !failed.contains("OSS 1 ("),
        "{err}"
    );
    assert!(missing.contains("OSS 1 ("), "{err}");
    assert!(
        err.contains("mounted") && err.contains(&format!("exaraid store rebuild {d} --oss I")),
        "{err}"
    );
    oss_back(&dir, 1);
    assert!(
        ok(&["store", "get", d, "f"], b"") == f,
        "the write changed nothing"
    );
}

/// `rebuild --to` a directory whose file system has too little room (a file size limit
/// here: the same error as a full disk). It stops with part of the elements written there:
/// the message says so (not "nothing was written"), that the OSS stays failed, and how to
/// go on; going on that way works.
#[test]
fn a_rebuild_onto_too_small_a_file_system_says_what_was_written_and_how_to_go_on() {
    let tmp = fast_tempdir("s14d-rebuild-full");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "3", "--code", "raid5"]);
    let f = bytes(1, 200_000);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let small = tmp.path().join("small");
    let out = with_file_size_limit(
        40 * 1024,
        &["store", "rebuild", d, "--oss", "1", "--to", s(&small)],
        &tmp.path().join("stdout"),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        std::fs::read_dir(small.join("objects")).unwrap().count() > 0,
        "elements were written there"
    );
    assert!(
        err.contains("rebuilding OSS 1 stopped")
            && err.contains("were written there")
            && err.contains("OSS 1 stays failed")
            && err.contains("--to NEWDIR")
            && !err.contains("nothing was written"),
        "{err}"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    // "run the same rebuild again" with room: the leftover is emptied and rebuilt onto.
    ok(
        &["store", "rebuild", d, "--oss", "1", "--to", s(&small)],
        b"",
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("FAILED"), "{status}");
}

/// `get > file` where that file may not grow past `ulimit -f`: the error says it was
/// stdout's file that hit the limit and that nothing in the store changed (it said only
/// "File too large (os error 27)", which reads as the store's own disk).
#[test]
fn get_into_a_file_past_the_size_limit_says_so_and_that_the_store_is_unchanged() {
    let tmp = fast_tempdir("s14d-get-fsize");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "3", "--code", "raid5"]);
    let f = bytes(1, 200_000);
    ok(&["store", "put", d, "f"], &f);
    let got = tmp.path().join("got");
    let out = with_file_size_limit(40 * 1024, &["store", "get", d, "f"], &got);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("stdout")
            && err.contains("file size limit")
            && err.contains("nothing in the store changed"),
        "{err}"
    );
    assert!(std::fs::metadata(&got).unwrap().len() < f.len() as u64);
    assert!(ok(&["store", "get", d, "f"], b"") == f);
}

/// Review s15r R15-2: a store directory that lost its superblock (a mistaken rm, a restore
/// that skipped it) is not "not a store": the error says restore it, and `init` over it is
/// refused rather than writing a fresh file table over the store's. With the file put back,
/// every byte reads as before. A lost `state` says it is missing and to restore it, not a
/// bare "No such file or directory".
#[test]
fn a_store_dir_that_lost_a_metadata_file_says_restore_it_and_init_does_not_overwrite_it() {
    let tmp = fast_tempdir("s15-lost-metadata");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store_unit(d, 4096, &["--oss", "5", "--code", "raid6"]);
    let data = bytes(3, 40_000);
    ok(&["store", "put", d, "f"], &data);

    let superblock = std::fs::read(dir.join("superblock")).unwrap();
    std::fs::remove_file(dir.join("superblock")).unwrap();
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("has no superblock but holds an exaraid store's")
            && err.contains("Restore")
            && !err.contains("create one with"),
        "{err}"
    );
    let err = fails(
        &[
            "store",
            "init",
            d,
            "--oss",
            "5",
            "--code",
            "raid6",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    assert!(
        err.contains("no superblock") && err.contains("would") && err.contains("Restore"),
        "{err}"
    );
    std::fs::write(dir.join("superblock"), &superblock).unwrap();
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);

    let state = std::fs::read(dir.join("state")).unwrap();
    std::fs::remove_file(dir.join("state")).unwrap();
    let err = fails(&["store", "status", d], b"");
    assert!(
        err.contains("state is missing (deleted or lost)") && err.contains("Restore this file"),
        "{err}"
    );
    std::fs::write(dir.join("state"), &state).unwrap();
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);

    // Superblock and journal both gone (merge review s15m M15-3): the state alone still names
    // every object, and an init onto new OSS directories must not replace it.
    let journal = std::fs::read(dir.join("journal")).unwrap();
    let state = std::fs::read(dir.join("state")).unwrap();
    std::fs::remove_file(dir.join("superblock")).unwrap();
    std::fs::remove_file(dir.join("journal")).unwrap();
    let fresh: Vec<String> = (0..5)
        .map(|i| s(&tmp.path().join(format!("new-{i}"))).to_string())
        .collect();
    let err = fails(
        &[
            "store",
            "init",
            d,
            "--oss-dirs",
            &fresh.join(","),
            "--code",
            "raid6",
        ],
        b"",
    );
    assert!(
        err.contains("holds an exaraid store's state but no superblock"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("state")).unwrap(), state);
    std::fs::write(dir.join("superblock"), &superblock).unwrap();
    std::fs::write(dir.join("journal"), &journal).unwrap();
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);
}

/// Review s15l L15-4: a directory without a superblock that holds a file exaraid did not
/// write, only named `journal` or `state` (notes, another program's files), is not "an
/// exaraid store" that lost its superblock: `status` says it is not a store and names the
/// file as not exaraid's (no advice to restore a superblock it never had), and `init` there
/// is refused naming the file (it would write its own state and journal over it), the file
/// left as it was. A store's own files keep R15-2's wording (the test above).
#[test]
fn a_file_named_journal_or_state_that_exaraid_did_not_write_is_named_not_taken_for_a_store() {
    let tmp = fast_tempdir("s16f-foreign-metadata");
    for name in ["journal", "state"] {
        let dir = tmp.path().join(format!("notes-{name}"));
        let d = s(&dir);
        std::fs::create_dir(&dir).unwrap();
        let notes = b"notes\nthings to do\n".to_vec();
        let file = dir.join(name);
        std::fs::write(&file, &notes).unwrap();
        let named = format!("{} is a file not written by exaraid", file.display());

        let err = fails(&["store", "status", d], b"");
        assert!(
            err.contains("is not an exaraid store")
                && err.contains(&named)
                && !err.contains("exaraid store's")
                && !err.contains("Restore"),
            "{name}: {err}"
        );
        let err = fails(&["store", "init", d, "--oss", "3", "--code", "raid5"], b"");
        assert!(
            err.contains(&named)
                && err.contains("pick another directory")
                && !err.contains("exaraid store's")
                && !err.contains("Restore"),
            "{name}: {err}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), notes, "{name}");
        assert!(!dir.join("superblock").exists() && !dir.join("oss-0").exists());
    }
}

/// Session 15's s15f leftover: `scrub` said `FAILED: OSS 2 is failed or unavailable ...
/// rebuild` for an OSS whose directory is only not mounted, which `status` calls `MISSING`
/// (mount it back; `fail` only if the disk is gone), and which a rebuild does not need.
/// Specification: scrub words each OSS it could not check as `status` does, with that
/// case's advice, and still exits 2 (the store is not whole); once recorded failed it is
/// `FAILED`, with the rebuild.
#[test]
fn scrub_words_an_unmounted_oss_as_status_does_not_as_failed() {
    let tmp = fast_tempdir("s16f-scrub-missing");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    ok(&["store", "put", d, "f"], &bytes(4, 50_000));
    let away = tmp.path().join("oss-2.away");
    std::fs::rename(dir.join("oss-2"), &away).unwrap();

    let status = ok(&["store", "status", d], b"");
    let status = String::from_utf8_lossy(&status);
    assert!(status.contains("MISSING: OSS 2: its directory"), "{status}");
    let out = exaraid(&["store", "scrub", d], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("MISSING: OSS 2 (not failed on record): its elements were not checked")
            && text.contains("mount it and retry")
            && !text.contains("FAILED")
            && !text.contains(&format!("rebuild {d}")),
        "{text}"
    );

    ok(&["store", "fail", d, "--oss", "2"], b"");
    let out = exaraid(&["store", "scrub", d], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("FAILED: OSS 2 is failed on record")
            && text.contains(&format!("exaraid store rebuild {d} --oss 2"))
            && !text.contains("MISSING"),
        "{text}"
    );
}

/// Review s33r (outside its items): after a killed `rebuild --to` and a lost disk, a second
/// `rebuild 0 --to ..` with OSS 1 down but not failed on record was refused "OSS 0 is healthy
/// ...; no OSS is failed, there is nothing to rebuild": the hint read only the OSSs failed on
/// record and named none to rebuild where one is missing. Specification: the refusal of a
/// healthy OSS names each OSS down but not failed on record, what to do if its disk still
/// reads (mount it back) and if it is gone (rebuild that OSS, with the command), and never
/// says there is nothing to rebuild while one is down; with none down the old wording holds.
#[test]
fn a_rebuild_of_a_healthy_oss_beside_a_missing_one_names_the_missing_one_and_its_rebuild() {
    let tmp = fast_tempdir("s34d-rebuild-healthy-beside-missing");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    ok(&["store", "put", d, "f"], &bytes(34, 50_000));
    let new = tmp.path().join("new-0");
    let to = s(&new);

    // Nothing down: the old wording stays.
    let err = fails(&["store", "rebuild", d, "--oss", "0", "--to", to], b"");
    assert!(
        err.contains("OSS 0 is healthy")
            && err.contains("no OSS is failed, there is nothing to rebuild"),
        "{err}"
    );

    std::fs::rename(dir.join("oss-1"), tmp.path().join("oss-1.away")).unwrap();
    let err = fails(&["store", "rebuild", d, "--oss", "0", "--to", to], b"");
    assert!(
        err.contains("OSS 0 is healthy")
            && !err.contains("there is nothing to rebuild")
            && err.contains("OSSs [1] are down but not failed on record")
            && err.contains("mount each back")
            && err.contains(&format!("exaraid store rebuild {d} --oss 1 --to NEWDIR")),
        "{err}"
    );
    // Refused: nothing changed, the file reads whole from the three OSSs left.
    assert_eq!(ok(&["store", "get", d, "f"], b""), bytes(34, 50_000));
    assert!(!new.exists() || std::fs::read_dir(&new).unwrap().next().is_none());
}
