//! Review s16r2 R16b-1 (LOST by a user action): a hard-link copy of a closed store (`cp -al`,
//! an rsnapshot-style snapshot) makes new directories around the very same files: every
//! zone, cache, epoch and extents file of every OSS, and the journal. The copy's first write
//! was not refused (the sharing check of session 15 compares OSS directories), it changed
//! the original's zone files in place, and the original was refused for good afterwards.
//!
//! Specification: a store whose files it writes in place are hard-linked opens for reads
//! only, whichever of the two it is (the store cannot tell the copy from the original, and
//! either one writing changes the other): every change is refused with nothing changed in
//! either directory, naming an OSS and a hard-linked file, saying that writing would change
//! the other copy too and what to do (`cp -a` without -l, or delete the other copy); `get`,
//! `ls` and `status` work, with a warning. Once the other copy is deleted, the store takes
//! changes again.

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cp -al FROM TO` (TO must not exist): a copy of every file as a hard link.
fn copy_hard_linked(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .args(["-al", s(from), s(to)])
        .status()
        .unwrap();
    assert!(status.success(), "cp -al {from:?} {to:?}");
}

/// Every file under `dir` and its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// A raid6 store `a` on write path `write_path` holding "f", and `b`, its hard-link copy.
struct Scene {
    _root: tempfile::TempDir,
    a: PathBuf,
    b: PathBuf,
    f: Vec<u8>,
}

impl Scene {
    fn new(write_path: &str) -> Scene {
        let root = fast_tempdir("exaraid-hard-link-copy-");
        let a = root.path().join("a");
        let b = root.path().join("b");
        init_store(
            s(&a),
            &["--oss", "6", "--code", "raid6", "--write-path", write_path],
        );
        let f = bytes(1, 50_000);
        ok(&["store", "put", s(&a), "f"], &f);
        copy_hard_linked(&a, &b);
        Scene {
            _root: root,
            a,
            b,
            f,
        }
    }
}

/// `write` (and `put`, `rm`) through `dir` are refused, naming a hard-linked OSS file and
/// the way out, and change no byte of `dir` or of `other`.
fn changes_refused(dir: &Path, other: &Path) {
    let (dir_before, other_before) = (tree(dir), tree(other));
    let err = fails(
        &["store", "write", s(dir), "f", "--offset", "5000"],
        &bytes(7, 20_000),
    );
    assert!(
        err.contains("OSS 0's file") && err.contains("hard links"),
        "names the OSS and its hard-linked file: {err}"
    );
    assert!(
        err.contains("cp -al")
            && err.contains("would change the other copy's bytes too")
            && err.contains("`cp -a` (without -l)")
            && err.contains("delete it")
            && err.contains("nothing was done"),
        "says what sharing files means and what to do: {err}"
    );
    let err = fails(&["store", "put", s(dir), "g"], &bytes(8, 9_000));
    assert!(err.contains("hard links"), "{err}");
    let err = fails(&["store", "rm", s(dir), "f"], b"");
    assert!(err.contains("hard links"), "{err}");
    assert!(tree(dir) == dir_before, "nothing changed in {dir:?}");
    assert!(tree(other) == other_before, "nothing changed in {other:?}");
}

/// `get`, `ls` and `status` of `dir` work, reading `f`, and say the store is hard-linked.
fn reads_work(dir: &Path, f: &[u8]) {
    let out = exaraid(&["store", "get", s(dir), "f"], b"");
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stdout == f,
        "get of {dir:?} reads the acknowledged bytes"
    );
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(
        warning.contains("open for reads only") && warning.contains("hard links"),
        "the read warns: {warning}"
    );
    let ls = String::from_utf8_lossy(&ok(&["store", "ls", s(dir)], b"")).to_string();
    assert!(ls.contains(" f"), "{ls}");
    let status = String::from_utf8_lossy(&ok(&["store", "status", s(dir)], b"")).to_string();
    assert!(
        status.contains("HARD-LINKED (reads work, every change is refused)"),
        "{status}"
    );
}

/// Writes through `dir` work again (its files are its own).
fn writes_work(dir: &Path, f: &[u8]) {
    let w = bytes(9, 20_000);
    ok(&["store", "write", s(dir), "f", "--offset", "5000"], &w);
    let mut expect = f.to_vec();
    put_over(&mut expect, 5000, &w);
    let out = exaraid(&["store", "get", s(dir), "f"], b"");
    assert!(out.status.success() && out.stdout == expect, "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn a_write_into_the_copy_is_refused(write_path: &str) {
    let sc = Scene::new(write_path);
    changes_refused(&sc.b, &sc.a);
    reads_work(&sc.b, &sc.f);
    reads_work(&sc.a, &sc.f);
    // The copy was a snapshot no longer wanted: the original is its own again.
    std::fs::remove_dir_all(&sc.b).unwrap();
    writes_work(&sc.a, &sc.f);
}

fn a_write_into_the_original_is_refused(write_path: &str) {
    let sc = Scene::new(write_path);
    changes_refused(&sc.a, &sc.b);
    reads_work(&sc.a, &sc.f);
    reads_work(&sc.b, &sc.f);
    // The original deleted, the copy is a whole store of its own.
    std::fs::remove_dir_all(&sc.a).unwrap();
    writes_work(&sc.b, &sc.f);
}

#[test]
fn a_write_into_a_hard_link_copy_is_refused_raid6_rmw() {
    a_write_into_the_copy_is_refused("rmw");
}

#[test]
fn a_write_into_a_hard_link_copy_is_refused_raid6_wcl() {
    a_write_into_the_copy_is_refused("wcl");
}

#[test]
fn a_write_into_the_original_of_a_hard_link_copy_is_refused_raid6_rmw() {
    a_write_into_the_original_is_refused("rmw");
}

#[test]
fn a_write_into_the_original_of_a_hard_link_copy_is_refused_raid6_wcl() {
    a_write_into_the_original_is_refused("wcl");
}

/// Control: a `cp -a` copy shares no file, and both stores take writes.
#[test]
fn a_copy_without_hard_links_takes_writes() {
    let root = fast_tempdir("exaraid-hard-link-copy-");
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    init_store(s(&a), &["--oss", "6", "--code", "raid6"]);
    let f = bytes(1, 50_000);
    ok(&["store", "put", s(&a), "f"], &f);
    copy_store(&a, &b);
    writes_work(&b, &f);
    writes_work(&a, &f);
}

/// A store a write was killed in (its open must run crash recovery, which writes), copied
/// with `cp -al`: the copy's open, a read too, is refused naming the recovery and the hard
/// links, nothing changed in either directory; once the copy is deleted, the original
/// recovers and reads each byte of the cut write old or new, every other byte as it was.
#[test]
fn a_hard_link_copy_of_a_store_that_needs_recovery_is_refused_changing_nothing() {
    let root = fast_tempdir("exaraid-hard-link-copy-");
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    init_store(s(&a), &["--oss", "6", "--code", "raid6"]);
    let f = bytes(1, 50_000);
    ok(&["store", "put", s(&a), "f"], &f);
    let w = bytes(2, 20_000);
    let args = ["store", "write", s(&a), "f", "--offset", "5000"];
    assert!(
        killed_at(&args, &w, "write-torn-block:1"),
        "the write was not killed at its block write"
    );
    copy_hard_linked(&a, &b);
    let (a_before, b_before) = (tree(&a), tree(&b));
    for dir in [&b, &a] {
        let err = fails(&["store", "get", s(dir), "f"], b"");
        assert!(
            err.contains("needs crash recovery")
                && err.contains("hard links")
                && err.contains("nothing was read or changed")
                && err.contains("`cp -a` (without -l)"),
            "{err}"
        );
    }
    assert!(
        tree(&a) == a_before && tree(&b) == b_before,
        "nothing changed"
    );
    std::fs::remove_dir_all(&b).unwrap();
    let out = exaraid(&["store", "get", s(&a), "f"], b"");
    assert!(out.status.success(), "{out:?}");
    let got = out.stdout;
    assert_eq!(got.len(), f.len());
    for (i, &byte) in got.iter().enumerate() {
        let written = (5000..25_000).contains(&i);
        assert!(
            byte == f[i] || (written && byte == w[i - 5000]),
            "byte {i}: {byte} is neither the old nor (inside the cut write) the new byte"
        );
    }
}

/// Review s17m (minor): a damaged label on a hard-link copy. `status` named `repair-label`,
/// or `fail` then `rebuild`, each refused on a store that shares its files; it now says
/// those are refused here and what to do first (files of its own: delete the other copy,
/// or `cp -a` without -l), and `repair-label` is still refused, nothing changed.
#[test]
fn status_of_a_hard_linked_store_with_a_damaged_label_names_no_refused_way_out() {
    let scene = Scene::new("rmw");
    let b = s(&scene.b);
    // Written in place: the label file is shared, so both stores see it damaged.
    let label = scene.b.join("oss-1").join("exaraid-oss.json");
    std::fs::write(&label, b"garbage\n").unwrap();
    let status = String::from_utf8_lossy(&ok(&["store", "status", b], b"")).to_string();
    assert!(
        status.contains("HARD-LINKED") && status.contains("UNAVAILABLE: OSS 1"),
        "{status}"
    );
    for refused in [
        format!("exaraid store repair-label {b} --oss 1"),
        format!("exaraid store fail {b} --oss 1"),
        format!("exaraid store rebuild {b} --oss 1"),
    ] {
        assert!(
            !status.contains(&refused),
            "status advises `{refused}`, refused on this store: {status}"
        );
    }
    assert!(
        status.contains("are refused here") && status.contains("`cp -a`, without -l"),
        "{status}"
    );
    let before = tree(&scene.b);
    let err = fails(&["store", "repair-label", b, "--oss", "1"], b"");
    assert!(err.contains("reads only"), "{err}");
    assert!(tree(&scene.b) == before, "nothing changed");
    assert!(
        ok(&["store", "get", b, "f"], b"") == scene.f,
        "decoded around OSS 1"
    );
}
