//! A write that returns an error leaves the file as it was (issue #4, finding F4).
//!
//! The plan of a small write whose read fails (bytes lost beyond the code's tolerance) must
//! not write anything: before, the executor ran the writes of a plan that do not depend on
//! the failed read (a reconstruct-write's new data) and only then looked at the read's
//! result, so the write returned an error *and* changed the file.

use crate::common;
use common::*;

use std::collections::BTreeMap;
use std::path::PathBuf;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

/// Every object file of every OSS (element bytes and their checksums), by path.
fn object_files(store: &Store) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for dir in &store.superblock().oss_dirs {
        for entry in std::fs::read_dir(dir.join("objects")).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// What reading each UNIT-sized piece of the file returns: its bytes, or that it failed.
fn pieces(store: &Store, size: usize) -> Vec<Result<Vec<u8>, String>> {
    (0..size)
        .step_by(UNIT)
        .map(|at| {
            let len = UNIT.min(size - at) as u64;
            store.read("f", at as u64, len).map_err(|e| e.to_string())
        })
        .collect()
}

/// put 6 units; rot block 0 of the second data element of stripe 0 and of every parity
/// element (so that element cannot be rebuilt: beyond the code's tolerance); a write of
/// `len` bytes at `offset` into the first data element, whose plan reads the second one
/// (a reconstruct-write), fails naming the loss and changes no byte of any OSS; after
/// reopening, every piece of the file reads as before (the lost piece still fails).
fn failed_read_stops_the_write(code: CodeSpec, oss: usize, offset: usize, len: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Rmw);
    let size = 6 * UNIT;
    store.put("f", &pattern(1, size)).unwrap();
    let geometry = store.layout().geometry().clone();
    assert!(
        offset + len <= UNIT,
        "the write stays in the first data element"
    );
    flip_home_byte(&store, "f", geometry.data_pos[1], 0, 30);
    for &p in &geometry.parity_pos {
        flip_home_byte(&store, "f", p, 0, 60);
    }
    let before = pieces(&store, size);
    assert!(before[0].is_ok(), "the element written into reads before");
    assert!(
        before[1].is_err(),
        "the rotten element is lost before the write"
    );
    let disk_before = object_files(&store);

    let what = format!("{code:?}: write {offset}..{}", offset + len);
    match store.write("f", offset as u64, &pattern(2, len)) {
        Err(StoreError::DataLost(_)) => {}
        other => panic!("{what}: the plan's read of the lost element must fail it: {other:?}"),
    }
    let disk_after = object_files(&store);
    for (path, bytes) in &disk_before {
        assert!(
            disk_after.get(path) == Some(bytes),
            "{what}: the failed write changed {path:?}"
        );
    }
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    let after = pieces(&store, size);
    let original = pattern(1, size);
    for (i, (was, is)) in before.iter().zip(&after).enumerate() {
        // A lost piece stays lost (the message may now name recovery's verdict on it), or
        // reads its original bytes: recovery, deciding the stripe the failed write left in
        // flight, may rebuild it where a decode matches its stored checksum (raid6: the rot
        // at the same byte of P and Q cancels out of a decode with another column erased).
        let restored = is
            .as_ref()
            .is_ok_and(|b| b[..] == original[i * UNIT..(i * UNIT + b.len())]);
        assert!(
            was == is || (was.is_err() && (is.is_err() || restored)),
            "{what}: after reopen, piece {i} (file bytes {}..) reads differently: before {:?}, now {:?}",
            i * UNIT,
            was,
            is
        );
    }
}

/// raid5 with 2 data columns: a small write reads the other data element (1 read instead of
/// old data + parity), and writes its new data without waiting for that read.
#[test]
fn raid5_k2_write_whose_read_fails_changes_nothing() {
    failed_read_stops_the_write(CodeSpec::raid5(2), 3, 0, 50);
    failed_read_stops_the_write(CodeSpec::raid5(2), 3, 100, 3000);
    failed_read_stops_the_write(CodeSpec::raid5(2), 3, 0, UNIT);
}

#[test]
fn raid6_k3_write_whose_read_fails_changes_nothing() {
    failed_read_stops_the_write(CodeSpec::raid6(3), 5, 0, 50);
    failed_read_stops_the_write(CodeSpec::raid6(3), 5, 0, UNIT);
}
