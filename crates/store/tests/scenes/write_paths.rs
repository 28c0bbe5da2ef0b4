//! The write paths on real bytes: whatever the path, reads return what was written, parity
//! matches data, and everything survives close and reopen.

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{Store, WritePath};

/// Random overlapping writes against an in-memory model.
fn random_writes_match_the_model(code: CodeSpec, oss: usize, path: WritePath, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, path);
    let sdb = store.layout().stripe_data_bytes();
    let mut model = vec![0u8; (6 * sdb) as usize];
    let mut size = 0usize;
    let mut rng = Rng(seed);
    for i in 0..40 {
        let off = rng.below(5 * sdb) as usize;
        let len = 1 + rng.below(if i % 3 == 0 { 2 * sdb } else { 3 * UNIT as u64 }) as usize;
        let len = len.min(model.len() - off);
        let data = pattern(seed * 1000 + i, len);
        store.write("f", off as u64, &data).unwrap();
        model[off..off + len].copy_from_slice(&data);
        size = size.max(off + len);
        if i % 10 == 9 {
            assert_eq!(store.get("f").unwrap(), &model[..size], "after write {i}");
        }
    }
    assert_eq!(store.size("f").unwrap(), size as u64);
    assert_eq!(store.get("f").unwrap(), &model[..size]);
    let partial = store.read("f", 17, 5000).unwrap();
    assert_eq!(partial, &model[17..5017]);
    // Home parity matches home data at every quiet moment, cache zone or not.
    assert_consistent(&store);
    let status = store.status().unwrap();
    let cache_writes: u64 = status.oss.iter().map(|o| o.ops.cache_write).sum();
    let parity_writes: u64 = status.oss.iter().map(|o| o.ops.parity_write).sum();
    match path {
        WritePath::Wcl => assert!(cache_writes > 0, "wcl writes land in the cache zone"),
        _ => assert_eq!(cache_writes, 0),
    }
    assert!(parity_writes > 0 || path == WritePath::Raid0);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), &model[..size], "after reopen");
    store.flush().unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("f").unwrap(), &model[..size], "after flush");
}

#[test]
fn rmw_raid5_reads_what_was_written() {
    random_writes_match_the_model(CodeSpec::raid5(3), 4, WritePath::Rmw, 1);
}

#[test]
fn rmw_raid6_on_more_osss_than_the_stripe_is_wide() {
    random_writes_match_the_model(CodeSpec::raid6(3), 7, WritePath::Rmw, 2);
}

#[test]
fn rmw_array_code_with_several_rows() {
    random_writes_match_the_model(CodeSpec::array(CodeKind::Dcode, 5), 5, WritePath::Rmw, 3);
}

#[test]
fn wcl_raid5_reads_what_was_written() {
    random_writes_match_the_model(CodeSpec::raid5(4), 5, WritePath::Wcl, 4);
}

#[test]
fn wcl_raid6_reads_what_was_written() {
    random_writes_match_the_model(CodeSpec::raid6(4), 6, WritePath::Wcl, 5);
}

#[test]
fn raid0_reads_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Raid0);
    let data = pattern(9, 70_000);
    store.put("x", &data).unwrap();
    assert_eq!(store.get("x").unwrap(), data);
}

#[test]
fn put_replaces_and_rm_removes() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    store.put("a", &pattern(1, 50_000)).unwrap();
    store.put("a", &pattern(2, 1000)).unwrap();
    assert_eq!(store.get("a").unwrap(), pattern(2, 1000));
    store.put("b", b"hello").unwrap();
    assert_eq!(store.list().len(), 2);
    store.remove("a").unwrap();
    assert_eq!(store.list(), vec![("b".to_string(), 5)]);
    assert!(store
        .get("a")
        .unwrap_err()
        .to_string()
        .contains("no file named 'a'"));
    assert_consistent(&store);
}
