//! An OSS directory that refuses writes (mounted read-only, files made read-only) is still
//! read (review s4e E2: zone files were opened read-write for reads, so `get` failed with
//! one such OSS within the tolerance), and a write that needs it fails before it changes
//! anything, naming the OSS and what to do.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store};

/// Every zone file of an OSS, and its `objects/` directory, refuse writes until dropped:
/// `chattr +i` as root (root ignores file modes; a read-only bind mount needs privileges
/// tests do not have everywhere), `chmod a-w` otherwise.
struct RefusesWrites {
    paths: Vec<PathBuf>,
    as_root: bool,
}

impl RefusesWrites {
    /// `None`: this file system cannot make files immutable (root only; the test says so).
    fn make(oss_dir: &Path) -> Option<RefusesWrites> {
        let objects = oss_dir.join("objects");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&objects)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.push(objects);
        let as_root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
        let mut made = RefusesWrites {
            paths: Vec::new(),
            as_root,
        };
        for p in paths {
            let done = if as_root {
                Command::new("chattr")
                    .arg("+i")
                    .arg(&p)
                    .status()
                    .is_ok_and(|s| s.success())
            } else {
                Command::new("chmod")
                    .arg("a-w")
                    .arg(&p)
                    .status()
                    .is_ok_and(|s| s.success())
            };
            if !done {
                return None; // `made` undoes the ones done so far
            }
            made.paths.push(p);
        }
        Some(made)
    }
}

impl Drop for RefusesWrites {
    fn drop(&mut self) {
        for p in &self.paths {
            let (tool, arg) = if self.as_root {
                ("chattr", "-i")
            } else {
                ("chmod", "u+w")
            };
            let _ = Command::new(tool).arg(arg).arg(p).status();
        }
    }
}

#[test]
fn a_read_only_oss_is_read_and_a_write_that_needs_it_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 6, CodeSpec::raid6(4));
    opts.element_bytes = 65536;
    let store = Store::init(dir.path(), &opts).unwrap();
    let data = pattern(7, 700_000);
    store.put("r0", &data).unwrap();
    store.close().unwrap();
    let oss_dir = Store::open(dir.path()).unwrap().superblock().oss_dirs[1].clone();
    let Some(read_only) = RefusesWrites::make(&oss_dir) else {
        eprintln!("skipped: `chattr +i` does not work on this file system (needs root and ext4/xfs/btrfs)");
        return;
    };
    let store = Store::open(dir.path()).unwrap();
    let got = store
        .get("r0")
        .expect("a read needs no write access to the OSS");
    assert!(got == data, "r0 reads other bytes");
    // A full-stripe write: every OSS, the read-only one too.
    let err = store
        .write("r0", 0, &pattern(8, 4 * 65536))
        .expect_err("the read-only OSS cannot take its element");
    let why = err.to_string();
    assert!(
        why.contains(&oss_dir.display().to_string()) && why.contains("refuses writes"),
        "names the OSS and the cause: {why}"
    );
    assert!(
        why.contains("read-write") && why.contains("exaraid store fail"),
        "says what to do: {why}"
    );
    drop(store);
    drop(read_only);
    let store = Store::open(dir.path()).unwrap();
    assert!(
        store.get("r0").unwrap() == data,
        "the refused write changed nothing"
    );
    let new = pattern(9, 4 * 65536);
    store.write("r0", 0, &new).unwrap();
    let mut expect = data;
    expect[..new.len()].copy_from_slice(&new);
    assert!(store.get("r0").unwrap() == expect);
    assert_consistent(&store);
}
