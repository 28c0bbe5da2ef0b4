//! Review s16r R16-1, R16-3, R16-4: ONE OSS's own metadata that cannot be read (EIO, EISDIR)
//! or does not parse (a flipped bit in its label, which has no checksum) refused every
//! command of the store, `status`, `fail` and `rebuild` of that OSS included, even with the
//! OSS failed on record; `online` of it panicked. Specification:
//! - an OSS whose label or extents record cannot be read or parsed is that OSS unavailable,
//!   as when the file is missing: `get` decodes around it (exact bytes, nothing read from
//!   it), `status` names the file, and `fail` + `rebuild` (in place, or `--to`) replace it;
//! - a label disagreeing with the superblock on its settings while the other labels agree is
//!   that label's damage (the advice names the label, not the superblock); every label
//!   disagreeing still refuses the open, blaming the superblock (R12-6);
//! - a parseable label naming another index (misordered directories) still refuses the open;
//! - `online` of an OSS whose label does not read is refused, nothing changed (no panic).

use crate::common;
use common::*;
use std::path::{Path, PathBuf};

const LABEL: &str = "exaraid-oss.json";

fn label_of(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}")).join(LABEL)
}

/// raid6 over 6 OSSs (two may be down) holding `f`.
fn store_with_f(tmp: &Path) -> (PathBuf, Vec<u8>) {
    let dir = tmp.join("s");
    init_store(s(&dir), &["--oss", "6", "--code", "raid6"]);
    let f = bytes(7, 50_000);
    ok(&["store", "put", s(&dir), "f"], &f);
    (dir, f)
}

/// Replace `from` with `to` in the file at `path`, once (a byte-level edit of a label).
fn edit(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len(), "an edit in place keeps the length");
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{from:?} once in {text}");
    std::fs::write(path, text.replace(from, to)).unwrap();
}

fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// `status` exits 0 and names `file` (the damaged metadata) for the OSS.
fn status_names(dir: &Path, file: &Path) {
    let out = exaraid(&["store", "status", s(dir)], b"");
    let text = said(&out);
    assert!(
        out.status.success() && text.contains(s(file)),
        "status opens and names {}: {text}",
        file.display()
    );
}

fn scrub_clean(dir: &Path) {
    let out = exaraid(&["store", "scrub", s(dir)], b"");
    assert!(out.status.success(), "scrub clean: {}", said(&out));
}

#[test]
fn a_label_that_does_not_parse_is_that_oss_down_and_fail_rebuild_replace_it() {
    let tmp = fast_tempdir("s16h-label-parse");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    // One bit of the quote opening the settings value: `"` (0x22) becomes `#` (0x23).
    edit(&label_of(&dir, 1), "\"settings\": \"", "\"settings\": #");
    assert_eq!(
        ok(&["store", "get", d, "f"], b""),
        f,
        "decoded around OSS 1"
    );
    status_names(&dir, &label_of(&dir, 1));
    let err = fails(&["store", "online", d, "--oss", "1"], b"");
    assert!(
        err.contains(LABEL),
        "online refused naming the label: {err}"
    );
    ok(&["store", "fail", d, "--oss", "1"], b"");
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
    let label = std::fs::read_to_string(label_of(&dir, 1)).unwrap();
    assert!(
        label.contains("\"settings\": \""),
        "the rebuild wrote a whole label: {label}"
    );
}

#[test]
fn an_oss_failed_on_record_whose_label_rots_is_still_read_around_and_rebuilt_to_a_new_dir() {
    let tmp = fast_tempdir("s16h-label-failed");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    edit(&label_of(&dir, 1), "\"store_id\"", "#store_id\"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    let new = tmp.path().join("newdisk");
    ok(&["store", "rebuild", d, "--oss", "1", "--to", s(&new)], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
}

#[test]
fn one_label_disagreeing_on_settings_is_that_label_damaged_all_of_them_blame_the_superblock() {
    let tmp = fast_tempdir("s16h-label-settings");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    edit(&label_of(&dir, 1), "code raid6", "cnde raid6");
    assert_eq!(
        ok(&["store", "get", d, "f"], b""),
        f,
        "decoded around OSS 1"
    );
    status_names(&dir, &label_of(&dir, 1));
    let out = exaraid(&["store", "status", d], b"");
    assert!(
        !said(&out).contains("restore it from a backup"),
        "the superblock is not blamed: {}",
        said(&out)
    );
    // The same disagreement on every label: the superblock is the odd one out.
    for oss in 0..6 {
        if oss != 1 {
            edit(&label_of(&dir, oss), "code raid6", "cnde raid6");
        }
    }
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("the superblock was edited or replaced"),
        "all labels against the superblock: refused, blaming it: {err}"
    );
    // Put back: the store is whole again.
    for oss in 0..6 {
        edit(&label_of(&dir, oss), "cnde raid6", "code raid6");
    }
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
}

#[test]
fn a_label_naming_another_index_still_refuses_the_store() {
    let tmp = fast_tempdir("s16h-label-index");
    let (dir, f) = store_with_f(tmp.path());
    edit(&label_of(&dir, 1), "\"index\": 1", "\"index\": 3");
    let err = fails(&["store", "get", s(&dir), "f"], b"");
    assert!(
        err.contains("check the order of the OSS directories") && err.contains("move it aside"),
        "misordered directories are refused as before, with the way out for a damaged label: {err}"
    );
    // The way out the message gives: the label moved aside, the OSS is missing and decoded
    // around, then `fail` and `rebuild` restore it.
    let label = label_of(&dir, 1);
    std::fs::rename(&label, label.with_extension("damaged")).unwrap();
    assert_eq!(ok(&["store", "get", s(&dir), "f"], b""), f);
    ok(&["store", "fail", s(&dir), "--oss", "1"], b"");
    ok(&["store", "rebuild", s(&dir), "--oss", "1"], b"");
    assert_eq!(ok(&["store", "get", s(&dir), "f"], b""), f);
    scrub_clean(&dir);
}

/// A directory where OSS 1's file `name` was (its read fails EISDIR, as EIO under a bad
/// sector would): the OSS is down, read around, and replaced by `rebuild --to`.
fn unreadable_extents_file_is_that_oss_down(name: &str) {
    let tmp = fast_tempdir("s16h-extents");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    let path = dir.join("oss-1").join(name);
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert_eq!(
        ok(&["store", "get", d, "f"], b""),
        f,
        "decoded around OSS 1"
    );
    status_names(&dir, &path);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let new = tmp.path().join("newdisk");
    ok(&["store", "rebuild", d, "--oss", "1", "--to", s(&new)], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
}

#[test]
fn an_extents_snapshot_that_cannot_be_read_is_that_oss_down() {
    unreadable_extents_file_is_that_oss_down("exaraid-extents.json");
}

#[test]
fn an_extents_log_that_cannot_be_read_is_that_oss_down() {
    unreadable_extents_file_is_that_oss_down("exaraid-extents.log");
}

#[test]
fn online_of_an_oss_whose_label_does_not_read_is_refused_not_a_panic() {
    let tmp = fast_tempdir("s16h-online");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let label = label_of(&dir, 1);
    let kept = label.with_extension("kept");
    std::fs::rename(&label, &kept).unwrap();
    std::fs::create_dir(&label).unwrap();
    let out = exaraid(&["store", "online", d, "--oss", "1"], b"");
    assert_eq!(
        out.status.code(),
        Some(1),
        "refused, no panic: {}",
        said(&out)
    );
    assert!(
        said(&out).contains(s(&label)),
        "names the label: {}",
        said(&out)
    );
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    std::fs::remove_dir(&label).unwrap();
    std::fs::rename(&kept, &label).unwrap();
    ok(&["store", "online", d, "--oss", "1"], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
}

/// OSS 1's extents log ends in a torn record (a crash inside its last append) and cutting
/// it off at open fails (note16 OPEN 9: the file's writes fail, scripts/eioshim.c
/// FAILWRITESUNDER; a read-only file or mount does the same). Before, that refused every
/// command of the store; now the OSS is unavailable for that command, decoded around, and
/// `status` names the log; once the file can be written again the next command cuts the
/// tail and the store is whole.
#[test]
fn an_extents_log_whose_torn_tail_cannot_be_cut_is_that_oss_down() {
    let tmp = fast_tempdir("s17e-torn-log");
    let Some(shim) = build_c_shim(tmp.path(), "eioshim") else {
        panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
    };
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    let log = dir.join("oss-1").join("exaraid-extents.log");
    let intact = std::fs::metadata(&log).unwrap().len();
    let mut torn = std::fs::read(&log).unwrap();
    torn.extend_from_slice(&[0xff; 7]);
    // Torn again before each command: the shim fails the cut's sync, not its truncate.
    let cut_fails = |args: &[&str]| {
        std::fs::write(&log, &torn).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(args)
            .env("LD_PRELOAD", &shim)
            .env("FAILWRITESUNDER", s(&log))
            .output()
            .unwrap()
    };
    let out = cut_fails(&["store", "get", d, "f"]);
    assert!(out.status.success(), "get opens: {}", said(&out));
    assert!(out.stdout == f, "decoded around OSS 1");
    let out = cut_fails(&["store", "status", d]);
    let text = said(&out);
    assert!(
        out.status.success() && text.contains(s(&log)) && text.contains("torn record"),
        "status names the log and why: {text}"
    );
    // The file can be written again: the next open cuts the tail, and OSS 1 is back.
    std::fs::write(&log, &torn).unwrap();
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    assert_eq!(
        std::fs::metadata(&log).unwrap().len(),
        intact,
        "the torn tail cut"
    );
    scrub_clean(&dir);
}

/// A directory where OSS 1's label or extents file belongs (EISDIR): an in-place `rebuild`
/// stopped midway on "Is a directory", with advice to make the directory writable (note16
/// OPEN 9). Now it is refused before anything changes, naming the path and the ways out
/// (move it aside, or `--to`); moved aside, the in-place rebuild finishes and the store is
/// whole.
fn in_place_rebuild_over_a_directory(name: &str) {
    let tmp = fast_tempdir("s17e-eisdir");
    let (dir, f) = store_with_f(tmp.path());
    let d = s(&dir);
    let path = dir.join("oss-1").join(name);
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let out = exaraid(&["store", "rebuild", d, "--oss", "1"], b"");
    let text = said(&out);
    assert_eq!(out.status.code(), Some(1), "refused: {text}");
    assert!(
        text.contains("nothing changed")
            && text.contains(&format!("{} is a directory", s(&path)))
            && text.contains("mv ")
            && text.contains("--to"),
        "names the path and the ways out: {text}"
    );
    assert!(path.is_dir(), "not deleted");
    assert_eq!(
        ok(&["store", "get", d, "f"], b""),
        f,
        "decoded around OSS 1"
    );
    std::fs::rename(&path, path.with_extension("aside")).unwrap();
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), f);
    scrub_clean(&dir);
}

#[test]
fn in_place_rebuild_over_a_label_that_is_a_directory_says_the_way_out() {
    in_place_rebuild_over_a_directory(LABEL);
}

#[test]
fn in_place_rebuild_over_an_extents_file_that_is_a_directory_says_the_way_out() {
    in_place_rebuild_over_a_directory("exaraid-extents.json");
}

/// `status` and `online` of an OSS whose label does not parse give the way out once: the
/// exact `rebuild` command (note16 OPEN 9: the label's own text told a generic "fail then
/// rebuild, or rebuild --to" before the caller's command).
#[test]
fn a_damaged_label_s_way_out_is_told_once() {
    let tmp = fast_tempdir("s17e-once");
    let (dir, _f) = store_with_f(tmp.path());
    let d = s(&dir);
    std::fs::write(label_of(&dir, 1), b"garbage").unwrap();
    let status = said(&exaraid(&["store", "status", d], b""));
    let online = said(&exaraid(&["store", "online", d, "--oss", "1"], b""));
    for text in [status, online] {
        assert_eq!(
            text.matches("store rebuild").count(),
            1,
            "one way out, the exact command: {text}"
        );
        assert!(
            text.contains(&format!("`exaraid store rebuild {d} --oss 1`")),
            "{text}"
        );
    }
}
