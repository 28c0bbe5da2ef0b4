//! Review s16r2 R16b-2: one bit flipped in an OSS's label (`exaraid-oss.json`, no checksum)
//! makes that OSS unavailable; beside a failed disk that used raid5's tolerance up, `get` and
//! `rebuild --to` of the dead disk were refused, though the OSS's data was intact and every
//! field of its label is known from the superblock. The advice said "or the file is
//! restored", but nothing keeps a copy of a label. Specification:
//! - `status` and the refused `get` name `exaraid store repair-label`;
//! - `repair-label DIR --oss I` rewrites the label from the superblock once every written
//!   block on the OSS verifies under this store's and this index's checksums; then `get` is
//!   byte-exact and `rebuild --to` of the dead disk works;
//! - also once a write was cut while labels were damaged (crash recovery then due, and
//!   refused while those OSSs do not answer): `repair-label` runs without recovery, which
//!   waits for the next command (merge review s17m M17-2: every command, `repair-label`
//!   too, was refused naming `repair-label`, a loop), one damaged label or two (past
//!   raid5's tolerance);
//! - refused, nothing changed: when the OSS's epoch file names another store directory
//!   (here: a copy's OSS, told by the original), when the label parses and agrees, and when
//!   the directory's elements are another OSS's (they fail this index's checksums).

use crate::common;
use common::*;
use std::path::{Path, PathBuf};

fn label_of(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}")).join("exaraid-oss.json")
}

/// One bit of byte 3 of `path` flipped: the label no longer parses (review s16r2's repro).
fn flip_bit(path: &Path) {
    let mut b = std::fs::read(path).unwrap();
    b[3] ^= 1;
    std::fs::write(path, b).unwrap();
}

/// raid5 over 5 OSSs (one may be down), 4 KiB stripe units, holding `f`.
fn raid5_with_f(dir: &Path) -> Vec<u8> {
    init_store_unit(s(dir), 4096, &["--oss", "5", "--code", "raid5"]);
    let f = bytes(11, 50_000);
    ok(&["store", "put", s(dir), "f"], &f);
    f
}

#[test]
fn a_rotted_label_beside_a_dead_disk_is_rewritten_and_the_disk_rebuilt() {
    let tmp = fast_tempdir("s17d-label");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let f = raid5_with_f(&dir);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let label = label_of(&dir, 1);
    let good = std::fs::read(&label).unwrap();
    flip_bit(&label);

    let repair = format!("exaraid store repair-label {d} --oss 1");
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("exaraid store repair-label") && err.contains("--oss 1"),
        "the refused get names the way out: {err}"
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        status.contains(&repair) && status.contains(s(&label)),
        "status names the label and the command: {status}"
    );

    let said = String::from_utf8(ok(&["store", "repair-label", d, "--oss", "1"], b"")).unwrap();
    assert!(said.contains("verified"), "{said}");
    assert_eq!(
        std::fs::read(&label).unwrap(),
        good,
        "the label rewritten from the superblock is the one init wrote"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f, "byte-exact");
    let new0 = tmp.path().join("new0");
    ok(
        &["store", "rebuild", d, "--oss", "0", "--to", s(&new0)],
        b"",
    );
    assert!(
        ok(&["store", "get", d, "f"], b"") == f,
        "byte-exact after the rebuild"
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("UNAVAIL") && !status.contains("FAILED"),
        "{status}"
    );
    ok(&["store", "scrub", d], b"");
}

/// The label file is exactly as it was and the command said why it refused.
fn refused_unchanged(d: &str, label: &Path, why: &str) {
    let before = std::fs::read(label).unwrap();
    let err = fails(&["store", "repair-label", d, "--oss", "1"], b"");
    assert!(
        err.contains("refused, nothing changed") && err.contains(why),
        "refused because {why:?}: {err}"
    );
    assert_eq!(std::fs::read(label).unwrap(), before, "nothing changed");
}

#[test]
fn a_label_that_parses_and_agrees_is_left_alone() {
    let tmp = fast_tempdir("s17d-label");
    let dir = tmp.path().join("s");
    let f = raid5_with_f(&dir);
    refused_unchanged(
        s(&dir),
        &label_of(&dir, 1),
        "parses and agrees with the superblock",
    );
    assert!(ok(&["store", "get", s(&dir), "f"], b"") == f);
}

#[test]
fn an_oss_whose_epoch_file_names_another_store_directory_is_refused() {
    let tmp = fast_tempdir("s17d-label");
    let (orig, copy) = (tmp.path().join("s"), tmp.path().join("c"));
    let f = raid5_with_f(&orig);
    copy_store(&orig, &copy);
    // The copy's OSSs were last told an epoch by the original, which still exists.
    flip_bit(&label_of(&copy, 1));
    refused_unchanged(s(&copy), &label_of(&copy, 1), s(&orig));
    assert!(ok(&["store", "get", s(&orig), "f"], b"") == f);
    assert!(
        ok(&["store", "get", s(&copy), "f"], b"") == f,
        "decoded around OSS 1"
    );
}

#[test]
fn an_oss_directory_holding_another_oss_elements_is_refused() {
    let tmp = fast_tempdir("s17d-label");
    let dir = tmp.path().join("s");
    let f = raid5_with_f(&dir);
    // OSS 2's elements and extents in OSS 1's directory (its epoch file still this store's).
    let (one, two) = (dir.join("oss-1"), dir.join("oss-2"));
    for name in ["objects", "exaraid-extents.json", "exaraid-extents.log"] {
        let _ = std::fs::remove_dir_all(one.join(name));
        let _ = std::fs::remove_file(one.join(name));
    }
    let status = std::process::Command::new("cp")
        .args(["-a"])
        .arg(two.join("objects"))
        .arg(two.join("exaraid-extents.json"))
        .arg(two.join("exaraid-extents.log"))
        .arg(&one)
        .status()
        .unwrap();
    assert!(status.success());
    flip_bit(&label_of(&dir, 1));
    refused_unchanged(s(&dir), &label_of(&dir, 1), "fail the checksums of OSS 1");
    assert!(
        ok(&["store", "get", s(&dir), "f"], b"") == f,
        "decoded around OSS 1"
    );
}

/// A flip that keeps the label parseable (the index digit 1 -> 3, another valid index)
/// refuses the open as misordered directories; moved aside, the label is rewritten once the
/// data verifies as OSS 1's.
#[test]
fn a_parseable_flip_moved_aside_is_rewritten() {
    let tmp = fast_tempdir("s17d-label");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let f = raid5_with_f(&dir);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let label = label_of(&dir, 1);
    let good = std::fs::read(&label).unwrap();
    let text = String::from_utf8(good.clone()).unwrap();
    assert_eq!(text.matches("\"index\": 1").count(), 1, "{text}");
    std::fs::write(&label, text.replace("\"index\": 1", "\"index\": 3")).unwrap();
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("move it aside") && err.contains("repair-label"),
        "{err}"
    );
    std::fs::rename(&label, tmp.path().join("bad-label")).unwrap();
    ok(&["store", "repair-label", d, "--oss", "1"], b"");
    assert_eq!(std::fs::read(&label).unwrap(), good);
    assert!(ok(&["store", "get", d, "f"], b"") == f, "byte-exact");
}

/// An empty directory where OSS 1's should be (a disk not mounted): no epoch file of this
/// store, so nothing is written there.
#[test]
fn an_empty_mount_point_is_refused() {
    let tmp = fast_tempdir("s17d-label");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let f = raid5_with_f(&dir);
    let one = dir.join("oss-1");
    std::fs::rename(&one, tmp.path().join("away")).unwrap();
    std::fs::create_dir(&one).unwrap();
    let err = fails(&["store", "repair-label", d, "--oss", "1"], b"");
    assert!(
        err.contains("refused, nothing changed") && err.contains("names no store directory"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(&one).unwrap().next().is_none(),
        "nothing written"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f);
}

/// raid5 over 4 OSSs, WCL, 4 KiB stripe units, holding `f`; the labels of OSS 1 and 2 are
/// garbage and a `write` of a new name is refused part way (2 OSSs unavailable): a cut write,
/// so every open needs crash recovery. The review's scene (`scripts/repro/repro-m17-2.sh`).
/// Returns `f`'s bytes and the good labels of OSS 1 and 2.
fn cut_write_beside_two_damaged_labels(dir: &Path) -> (Vec<u8>, Vec<Vec<u8>>) {
    let d = s(dir);
    init_store_unit(
        d,
        4096,
        &["--oss", "4", "--code", "raid5", "--write-path", "wcl"],
    );
    let f = bytes(17, 20_000);
    ok(&["store", "put", d, "f"], &f);
    let good: Vec<Vec<u8>> = [1, 2]
        .iter()
        .map(|&i| std::fs::read(label_of(dir, i)).unwrap())
        .collect();
    for i in [1, 2] {
        std::fs::write(label_of(dir, i), b"garbage\n").unwrap();
    }
    ok(&["store", "ls", d], b"");
    let err = fails(&["store", "write", d, "g", "--offset", "0"], &f);
    assert!(err.contains("2 OSSs are unavailable"), "{err}");
    (f, good)
}

/// `repair-label --oss I` after a cut write: it succeeds, says recovery is still due, and
/// writes the label init wrote.
fn repaired_with_recovery_due(dir: &Path, oss: usize, good: &[u8]) {
    let i = oss.to_string();
    let said = String::from_utf8(ok(&["store", "repair-label", s(dir), "--oss", &i], b"")).unwrap();
    assert!(
        said.contains("verified") && said.contains("still needs crash recovery"),
        "{said}"
    );
    assert_eq!(std::fs::read(label_of(dir, oss)).unwrap(), good);
}

/// Two labels damaged (past raid5's tolerance) and a cut write: every command is refused
/// naming `repair-label`, and `repair-label` of each works; then recovery runs, `f` reads as
/// put, and the store is whole.
#[test]
fn repair_label_runs_after_a_cut_write_with_two_labels_damaged() {
    let tmp = fast_tempdir("s18d-label-cut");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let (f, good) = cut_write_beside_two_damaged_labels(&dir);
    let err = fails(&["store", "ls", d], b"");
    assert!(
        err.contains("exaraid store repair-label") && err.contains("--oss 1"),
        "the refusal names the way out: {err}"
    );

    repaired_with_recovery_due(&dir, 1, &good[0]);
    // One OSS still does not answer: recovery still waits, naming it and its way out.
    let err = fails(&["store", "ls", d], b"");
    assert!(
        err.contains("exaraid store repair-label") && err.contains("--oss 2"),
        "{err}"
    );
    repaired_with_recovery_due(&dir, 2, &good[1]);

    assert!(ok(&["store", "get", d, "f"], b"") == f, "f reads as put");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("UNAVAIL") && !status.contains("FAILED") && !status.contains("RECOVERY"),
        "{status}"
    );
    ok(&["store", "scrub", d], b"");
}

/// One label damaged and a cut write (the other label restored by hand): recovery waits for
/// that OSS, and the refusal's way out, `repair-label`, works.
#[test]
fn repair_label_runs_after_a_cut_write_with_one_label_damaged() {
    let tmp = fast_tempdir("s18d-label-cut");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let (f, good) = cut_write_beside_two_damaged_labels(&dir);
    std::fs::write(label_of(&dir, 1), &good[0]).unwrap();
    let err = fails(&["store", "ls", d], b"");
    assert!(
        err.contains("needs crash recovery")
            && err.contains("exaraid store repair-label")
            && err.contains("--oss 2"),
        "the refusal names the way out: {err}"
    );

    repaired_with_recovery_due(&dir, 2, &good[1]);

    assert!(ok(&["store", "get", d, "f"], b"") == f, "f reads as put");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("UNAVAIL") && !status.contains("FAILED") && !status.contains("RECOVERY"),
        "{status}"
    );
    ok(&["store", "scrub", d], b"");
}
