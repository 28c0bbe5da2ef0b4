//! Zone files deleted or truncated behind the store's back: bytes that were written but are
//! gone must never read as zeros. A read rebuilds them from parity, scrub reports them and
//! `scrub --repair` rewrites the DATA from parity (never parity over the lost bytes).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

/// The zone files (`<object>.<zone>`) of every OSS directory that hold `suffix`.
fn zone_files(store: &Store, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for d in &store.superblock().oss_dirs {
        for e in std::fs::read_dir(d.join("objects")).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().unwrap().to_string_lossy().ends_with(suffix) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Damage one data zone file of "a" with `damage`, reopen, and check read, scrub and repair.
fn damaged_data_file_is_rebuilt(damage: fn(&std::path::Path)) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let a = pattern(21, 150_000);
    store.put("a", &a).unwrap();
    let id = store.file_id("a").unwrap();
    let victim = zone_files(&store, &format!("{id}.data"))
        .into_iter()
        .next()
        .expect("a data zone file of 'a'");
    store.close().unwrap();
    damage(&victim);

    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "a lost extent is rebuilt from parity, never read as zeros"
    );
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_elements.is_empty(),
        "scrub reports the lost elements"
    );
    assert!(
        report.corrupt_elements.iter().all(|f| f.zone == "data"),
        "{:?}",
        report.corrupt_elements
    );
    let repaired = store.scrub(true).unwrap();
    assert!(repaired.repaired_elements > 0);
    assert!(
        repaired.unrepairable.is_empty(),
        "{:?}",
        repaired.unrepairable
    );
    assert_consistent(&store);
    store.close().unwrap();

    // The repaired store reads right after a restart.
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("a").unwrap(), a);
    assert_consistent(&store);
}

#[test]
fn a_deleted_data_zone_file_is_rebuilt_from_parity_not_read_as_zeros() {
    damaged_data_file_is_rebuilt(|p| std::fs::remove_file(p).unwrap());
}

#[test]
fn a_truncated_data_zone_file_is_rebuilt_from_parity_not_read_as_zeros() {
    damaged_data_file_is_rebuilt(|p| {
        let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
        let len = f.metadata().unwrap().len();
        assert!(len > 0);
        f.set_len(len / 3).unwrap();
    });
}

#[test]
fn repair_rewrites_lost_data_rather_than_parity_over_zeros() {
    // After repair, lose the parity: the data must still be right, which it is not if repair
    // had recomputed parity over the zeros of the lost extent.
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let a = pattern(22, 150_000);
    store.put("a", &a).unwrap();
    let id = store.file_id("a").unwrap();
    let victim = zone_files(&store, &format!("{id}.data"))
        .into_iter()
        .next()
        .unwrap();
    let parity = zone_files(&store, &format!("{id}.parity"));
    store.close().unwrap();
    std::fs::remove_file(&victim).unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.scrub(true).unwrap();
    store.close().unwrap();
    for p in parity {
        std::fs::remove_file(p).unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "the repaired data holds the bytes, not zeros"
    );
}

#[test]
fn a_deleted_cache_zone_file_is_rebuilt_from_the_cache_stripe() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    let a = pattern(23, 60_000);
    store.put("a", &a).unwrap();
    let caches = zone_files(&store, ".cache");
    assert!(!caches.is_empty(), "WCL writes land in the cache zone");
    store.close().unwrap();
    let victim = caches
        .into_iter()
        .find(|p| p.exists())
        .expect("close keeps the cache zone");
    std::fs::remove_file(&victim).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "a lost cache extent is rebuilt, never read as zeros"
    );
}
