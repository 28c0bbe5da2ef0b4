//! Session 21 (s21e): errors and minors left open after session 20 (docs/store.md Limits,
//! "OPEN after session 20", item 5). Each test is one message, exit code or untested path:
//! - `fail --oss I` of a store that needs crash recovery, with OSS I's directory gone, whose
//!   record of the failure the metadata disk refuses: the error says OSS I is not on record
//!   as failed, that recovery did not run, and what to do (it was the journal's bare
//!   "Input/output error");
//! - `rebuild --to` of an OSS whose window bytes were lost with their cache address (a
//!   reservation's EIO, as a `fail` of an OSS that answers) takes them back from the old
//!   directory while it reads, as `online` does (s20c: the rebuild made the loss final);
//! - a reservation EIO met by the open's own recovery settle names the window bytes lost
//!   (s20c: untested);
//! - a window write refused after its reservation's EIO advises the rebuild onto a new disk
//!   once (s20c: twice in one message).

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `exaraid ARGS < stdin` under the s17r shim: every write-type call (`kind`: `write`,
/// `falloc`, or both when `None`) past the first `after` on files whose path contains
/// `file` fails with `errno`.
fn with_shim(
    shim: &Path,
    (file, after, errno, kind): (&str, usize, i32, Option<&str>),
    args: &[&str],
    stdin: &[u8],
) -> Output {
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), stdin).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    command
        .args(args)
        .stdin(Stdio::from(std::fs::File::open(input.path()).unwrap()))
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", file)
        .env("NOSPCAFTER", after.to_string())
        .env("NOSPCERRNO", errno.to_string());
    if let Some(kind) = kind {
        command.env("NOSPCKIND", kind);
    }
    command.output().unwrap()
}

const EIO: i32 = 5;
const ENOSPC: i32 = 28;

/// Every range `status` lists lost in file `name`: `(offset_bytes, end_bytes, oss, restorable)`.
fn lost_ranges(dir: &Path, name: &str) -> Vec<(u64, u64, u64, bool)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["file"] == name)
        .map(|l| {
            let at = l["offset_bytes"].as_u64().unwrap();
            let end = at + l["len_bytes"].as_u64().unwrap();
            (
                at,
                end,
                l["oss"].as_u64().unwrap(),
                l["restorable"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn failed_on_record(dir: &Path) -> Vec<u64> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    let oss = status["oss"].as_array().unwrap().iter();
    oss.filter(|o| o["failed_on_record"].as_bool().unwrap())
        .map(|o| o["index"].as_u64().unwrap())
        .collect()
}

/// raid6 over 6 OSSs holding `f` with a write to it killed (recovery due), OSS 2's directory
/// then gone: only `fail --oss 2` lets the store recover.
fn recovery_due_with_oss_2_away(dir: &Path) {
    let d = s(dir);
    init_store(d, &["--oss", "6", "--code", "raid6"]);
    ok(&["store", "put", d, "f"], &bytes(1, 30_000));
    assert!(
        killed_at(
            &["store", "write", d, "f", "--offset", "5000"],
            &bytes(2, 9000),
            "write-torn-block:1"
        ),
        "the write finished before its kill point"
    );
    oss_away(dir, 2);
}

#[test]
fn fail_before_recovery_refused_by_the_metadata_disk_says_the_oss_is_not_failed_and_what_to_do() {
    let tmp = fast_tempdir("s21e-fail-refused");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the shim was not built, test skipped");
        return;
    };
    for (errno, fix) in [
        (EIO, "check the disk holding"),
        (ENOSPC, "free space on the file system holding"),
    ] {
        let dir = tmp.path().join(format!("s-{errno}"));
        recovery_due_with_oss_2_away(&dir);
        let d = s(&dir);
        let journal = format!("{d}/journal");
        let out = with_shim(
            &shim,
            (&journal, 0, errno, None),
            &["store", "fail", d, "--oss", "2"],
            b"",
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "errno {errno}: {err}");
        assert!(
            err.contains("OSS 2 is not on record as failed")
                && err.contains("recovery did not run"),
            "errno {errno}: the error says what did not happen: {err}"
        );
        assert!(
            err.contains(fix) && err.contains(&format!("`exaraid store fail {d} --oss 2` again")),
            "errno {errno}: the error says what to do: {err}"
        );
        assert!(
            err.contains("mount OSS 2's directory back"),
            "errno {errno}: the other way out: {err}"
        );
        // As it says: with the disk working the same command records it and recovers.
        ok(&["store", "fail", d, "--oss", "2"], b"");
        assert_eq!(failed_on_record(&dir), vec![2]);
        ok(&["store", "ls", d], b"");
    }
}

const A_BYTES: usize = 65_536;
/// Acknowledged inside the window at 0: one 4 KiB element on each of OSSs 0..3.
const WINDOW_BYTES: usize = 16_384;

/// rs 4+3 over 7 OSSs, delayed, 4 KiB unit: `a` (`A_BYTES`) with a window open on it and
/// `WINDOW_BYTES` written at 0 inside it; OSS 3 then `fail`ed (its window element lost with
/// its cache address). Returns the bytes `a` reads.
fn window_scene_oss_3_failed(dir: &Path) -> Vec<u8> {
    let d = s(dir);
    init_store(
        d,
        &[
            "--oss",
            "7",
            "--code",
            "rs",
            "--k",
            "4",
            "--m",
            "3",
            "--write-path",
            "delayed",
        ],
    );
    let mut want = bytes(3, A_BYTES);
    ok(&["store", "put", d, "a"], &want);
    ok(&["store", "delayed", "start", d, "a"], b"");
    let window = bytes(5, WINDOW_BYTES);
    ok(&["store", "write", d, "a", "--offset", "0"], &window);
    put_over(&mut want, 0, &window);
    ok(&["store", "fail", d, "--oss", "3"], b"");
    want
}

/// `window_scene_oss_3_failed`, then a `flush` whose copy of OSS 3's column meets an EIO
/// from OSS 0's `fallocate`: OSS 0 recorded failed, its window element lost with its
/// cache address (its disk still reads).
fn flush_loses_oss_0_window_bytes(shim: &Path, dir: &Path) -> Vec<u8> {
    let want = window_scene_oss_3_failed(dir);
    let out = with_shim(
        shim,
        ("oss-0/objects", 0, EIO, Some("falloc")),
        &["store", "flush", s(dir)],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        lost_ranges(dir, "a"),
        vec![(0, 4096, 0, true), (12_288, 16_384, 3, true)],
        "OSS 0's window element lost by the flush, OSS 3's by `fail`, both restorable"
    );
    want
}

/// `rebuild --oss 0 --to NEWDIR` of the flush's scene takes OSS 0's window bytes back from
/// its old directory (an in-place rebuild empties that directory: the loss stays final
/// there, as documented).
#[test]
fn rebuild_onto_a_new_directory_takes_back_window_bytes_lost_with_their_cache_address() {
    let tmp = fast_tempdir("s21e-rebuild-takes-back");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let want = flush_loses_oss_0_window_bytes(&shim, &dir);
    let new_dir = tmp.path().join("new-0");
    ok(
        &["store", "rebuild", d, "--oss", "0", "--to", s(&new_dir)],
        b"",
    );
    assert_eq!(
        lost_ranges(&dir, "a"),
        vec![(12_288, 16_384, 3, true)],
        "the rebuild took back OSS 0's window bytes from its old directory"
    );
    assert_eq!(
        ok(
            &["store", "read", d, "a", "--offset", "0", "--length", "12288"],
            b""
        ),
        want[..12_288],
        "taken back exact"
    );
    ok(&["store", "online", d, "--oss", "3"], b"");
    assert_eq!(lost_ranges(&dir, "a"), vec![]);
    assert_eq!(ok(&["store", "get", d, "a"], b""), want);
    ok(&["store", "scrub", d], b"");
}

/// The old directory's copy rotted: the block that does not verify stays lost, named by
/// `status`; the rebuild itself is done, and says that loss is now final: exit 2, as a
/// rebuild past the take-back bound (s25d). (It exited 0 naming nothing until s26d: a
/// rebuild that leaves acknowledged bytes lost for good is not a success a script can
/// take for "every byte is back".)
#[test]
fn rebuild_leaves_lost_a_window_block_whose_old_copy_does_not_verify() {
    let tmp = fast_tempdir("s21e-rebuild-rotten");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    flush_loses_oss_0_window_bytes(&shim, &dir);
    let cache = dir
        .join("oss-0/objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&cache).unwrap();
    for at in (100..on_disk.len()).step_by(4096) {
        on_disk[at] ^= 0xff; // every block of its cache zone
    }
    std::fs::write(&cache, on_disk).unwrap();
    let new_dir = tmp.path().join("new-0");
    let out = exaraid(
        &["store", "rebuild", d, "--oss", "0", "--to", s(&new_dir)],
        b"",
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("lost for good")
            && said.contains("made final the loss")
            && said.contains("'a' bytes 0..4096"),
        "the rebuild names the block whose loss it made final: {said}"
    );
    let lost = lost_ranges(&dir, "a");
    assert!(
        lost.iter()
            .any(|&(at, end, oss, _)| oss == 0 && at == 0 && end == 4096),
        "a block that does not verify is not taken back: {lost:?}"
    );
    let err = fails(
        &["store", "read", d, "a", "--offset", "0", "--length", "4096"],
        b"",
    );
    assert!(err.contains("bytes 0..4096"), "{err}");
}

/// The open's own recovery settle (a `flush` killed after its `SettleBegin`) meets an EIO
/// from OSS 0's `fallocate`: the command that opened says which OSS it recorded failed and
/// names the window bytes that lost their only copy with it; `status` lists them.
#[test]
fn a_reservation_eio_in_the_opens_recovery_settle_names_the_window_bytes_it_lost() {
    let tmp = fast_tempdir("s21e-recovery-reserve-eio");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let want = window_scene_oss_3_failed(&dir);
    assert!(
        killed_at(&["store", "flush", d], b"", "settle-begun:1"),
        "the flush finished before its kill point"
    );
    let out = with_shim(
        &shim,
        ("oss-0/objects", 0, EIO, Some("falloc")),
        &["store", "ls", d],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the open recovers degraded: {err}");
    assert!(
        err.contains("OSS 0 was recorded failed") && err.contains("I/O error on reserving room"),
        "the open says which OSS its settle recorded failed and why: {err}"
    );
    assert!(
        err.contains("file 'a' bytes 0..4096 (OSS 0"),
        "the open names the window bytes that failure lost: {err}"
    );
    let lost: Vec<(u64, u64, u64)> = lost_ranges(&dir, "a")
        .into_iter()
        .map(|(at, end, oss, _)| (at, end, oss))
        .collect();
    assert_eq!(lost, vec![(0, 4096, 0), (12_288, 16_384, 3)]);
    assert_eq!(
        ok(
            &["store", "read", d, "a", "--offset", "4096", "--length", "8192"],
            b""
        ),
        want[4096..12_288],
        "every byte not lost reads exact"
    );
    assert_eq!(
        ok(
            &["store", "read", d, "a", "--offset", "16384", "--length", "49152"],
            b""
        ),
        want[16_384..],
    );
}

/// raid5 over 5 OSSs, delayed: a window write past the end of `a` whose reservation meets
/// OSS 3's EIO is refused (its bytes would go to the failed OSS); the refusal advises the
/// rebuild onto a new disk once.
#[test]
fn a_window_write_refused_after_its_reservation_eio_gives_the_rebuild_advice_once() {
    let tmp = fast_tempdir("s21e-advice-once");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
    );
    ok(&["store", "put", d, "a"], &bytes(3, A_BYTES));
    ok(&["store", "delayed", "start", d, "a"], b"");
    ok(
        &["store", "write", d, "a", "--offset", "0"],
        &bytes(5, WINDOW_BYTES),
    );
    let offset = A_BYTES.to_string();
    let out = with_shim(
        &shim,
        ("oss-3/objects", 0, EIO, Some("falloc")),
        &["store", "write", d, "a", "--offset", &offset],
        &bytes(9, 262_144),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused: {err}");
    let advice = format!("`exaraid store rebuild {d} --oss 3 --to NEWDIR`");
    assert_eq!(
        err.matches(&advice).count(),
        1,
        "the rebuild advice once: {err}"
    );
    assert!(
        err.contains("file 'a' bytes 12288..16384 (OSS 3"),
        "the window bytes lost are still named: {err}"
    );
}

/// rs 5+3 over 8 OSSs, delayed: a window on `w` with 5,000 bytes written at 0; bytes
/// 4096..5000, their only copy in OSS 1's cache zone (no parity inside a window), rot. A
/// read of them fails naming them, and its advice is what can help (write them again), not
/// `scrub --repair`, which has no parity to rebuild them from (review s18r, minor: "`exaraid
/// store scrub --repair` rebuilds them from parity; rebuilding it failed: ... has no parity
/// yet").
#[test]
fn a_read_of_a_rotten_window_byte_advises_writing_it_again_not_scrub_repair() {
    let tmp = fast_tempdir("s21e-rotten-window-read");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(
        d,
        &[
            "--oss",
            "8",
            "--code",
            "rs",
            "--k",
            "5",
            "--m",
            "3",
            "--write-path",
            "delayed",
        ],
    );
    ok(&["store", "put", d, "other"], &bytes(1, 30_000));
    ok(&["store", "delayed", "start", d, "w"], b"");
    ok(
        &["store", "write", d, "w", "--offset", "0"],
        &bytes(2, 5000),
    );
    let cache = dir
        .join("oss-1/objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&cache).unwrap();
    on_disk[100] ^= 0xff;
    std::fs::write(&cache, on_disk).unwrap();

    for read in [
        vec![
            "store", "read", d, "w", "--offset", "4096", "--length", "10",
        ],
        vec!["store", "get", d, "w"],
    ] {
        let err = fails(&read, b"");
        assert!(
            err.contains("file 'w' bytes 4096..") && err.contains("no parity yet"),
            "{read:?}: the error names the bytes and why: {err}"
        );
        assert!(
            !err.contains("rebuilds them from parity"),
            "{read:?}: no advice that cannot help: {err}"
        );
        assert!(
            err.contains("write them again"),
            "{read:?}: the advice that can: {err}"
        );
    }
}

/// R20-4's edge (docs/reviews/session20-r.md): an `online` killed after its `Online`
/// record, then another command (a `get`) whose open finished it and whose close
/// checkpointed the record away; the rerun of `online` cannot tell it was cut, and exited 1
/// "not recorded as failed ...: nothing to do", failing a script that reruns `online` until
/// it succeeds. The OSS is online: exit 0, saying there is nothing to do.
#[test]
fn rerun_of_a_finished_online_after_another_command_exits_0_with_nothing_to_do() {
    let tmp = fast_tempdir("s21e-online-rerun");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "rmw"]);
    let mut model = bytes(20, 30_000);
    ok(&["store", "put", d, "f"], &model);
    ok(&["store", "fail", d, "--oss", "2"], b"");
    let changed = bytes(21, 9000);
    ok(&["store", "write", d, "f", "--offset", "5000"], &changed);
    model[5000..14000].copy_from_slice(&changed);
    assert!(
        killed_at(&["store", "online", d, "--oss", "2"], b"", "online-back:1"),
        "online finished before its kill point"
    );
    assert_eq!(ok(&["store", "get", d, "f"], b""), model);

    let rerun = exaraid(&["store", "online", d, "--oss", "2"], b"");
    let (out, err) = (
        String::from_utf8_lossy(&rerun.stdout),
        String::from_utf8_lossy(&rerun.stderr),
    );
    assert!(
        rerun.status.success(),
        "the rerun of a finished `online` failed: {err}"
    );
    assert!(
        out.contains("nothing to do: OSS 2 is online"),
        "the rerun says there is nothing to do: {out}"
    );
    assert_eq!(ok(&["store", "get", d, "f"], b""), model);
    assert!(failed_on_record(&dir).is_empty());
}
