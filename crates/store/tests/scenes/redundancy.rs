//! Failures, silent corruption, rebuild: the store reads through up to the code's fault
//! tolerance of failed OSSs, scrub finds flipped bits and repairs them from parity, rebuild
//! restores full redundancy.

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{Store, WritePath};

fn filled(
    dir: &std::path::Path,
    code: CodeSpec,
    oss: usize,
    path: WritePath,
) -> (Store, Vec<u8>, Vec<u8>) {
    let store = init(dir, code, oss, path);
    let a = pattern(11, 150_000);
    let b = pattern(12, 33_333);
    store.put("a", &a).unwrap();
    store.put("b", &b).unwrap();
    store.write("a", 5000, &pattern(13, 9000)).unwrap();
    let mut a2 = a.clone();
    a2[5000..14000].copy_from_slice(&pattern(13, 9000));
    (store, a2, b)
}

#[test]
fn reads_survive_as_many_failed_osss_as_the_code_tolerates() {
    for (code, oss) in [
        (CodeSpec::raid5(3), 4),
        (CodeSpec::raid6(4), 7),
        (CodeSpec::array(CodeKind::Rdp, 5), 6),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (store, a, b) = filled(dir.path(), code, oss, WritePath::Rmw);
        let tolerance = store.code().geometry().fault_tolerance;
        for i in 0..tolerance {
            store.fail_oss(i * 2 % oss).unwrap();
        }
        assert_eq!(store.get("a").unwrap(), a, "{code}: degraded read");
        assert_eq!(store.get("b").unwrap(), b);
        // Writes in degraded mode keep the surviving parity right.
        store.write("b", 100, &pattern(14, 20_000)).unwrap();
        let mut b2 = b.clone();
        b2[100..20_100].copy_from_slice(&pattern(14, 20_000));
        assert_eq!(
            store.get("b").unwrap(),
            b2,
            "{code}: degraded write then read"
        );
        // One failure more than tolerated: a clear error naming the lost range.
        let extra = (0..oss)
            .find(|i| !store.failed_osses().contains(i))
            .unwrap();
        // `fail` past the tolerance is refused (it could never be undone); a directory
        // gone meanwhile is the same loss, and reads say so.
        let refused = store.fail_oss(extra).unwrap_err().to_string();
        assert!(refused.contains("refused"), "{code}: {refused}");
        let extra_dir = store.superblock().oss_dirs[extra].clone();
        std::fs::rename(&extra_dir, dir.path().join("away")).unwrap();
        let err = store.get("a").unwrap_err().to_string();
        assert!(
            err.contains("lost") || err.contains("tolerates"),
            "{code}: {err}"
        );
    }
}

#[test]
fn a_missing_oss_directory_is_a_failed_oss() {
    let dir = tempfile::tempdir().unwrap();
    let (store, a, _) = filled(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let oss2 = store.superblock().oss_dirs[2].clone();
    store.close().unwrap();
    std::fs::remove_dir_all(&oss2).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(!store.status().unwrap().oss[2].healthy);
    assert_eq!(store.get("a").unwrap(), a);
}

#[test]
fn rebuild_restores_full_redundancy_in_place_and_onto_a_new_directory() {
    rebuild_restores_full_redundancy(WritePath::Rmw);
}

#[test]
fn wcl_cached_bytes_of_failed_osss_are_rebuilt_from_the_cache_stripe() {
    // The tail of each file is still in the cache zone (incomplete cache stripes): reads and
    // rebuild use the cache stripe's running parity.
    rebuild_restores_full_redundancy(WritePath::Wcl);
}

fn rebuild_restores_full_redundancy(path: WritePath) {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, a, b) = filled(dir.path(), CodeSpec::raid6(3), 5, path);
    if path == WritePath::Wcl {
        assert!(
            store.status().unwrap().bytes_waiting_parity > 0,
            "some bytes are in the cache zone"
        );
    }
    store.fail_oss(1).unwrap();
    store.fail_oss(3).unwrap();
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "{path:?}: degraded read with two OSSs failed"
    );
    assert_eq!(store.get("b").unwrap(), b);
    store.write("a", 70_000, &pattern(15, 10_000)).unwrap(); // degraded write
    let mut a2 = a.clone();
    a2[70_000..80_000].copy_from_slice(&pattern(15, 10_000));
    store.rebuild(1, None).unwrap();
    let new_dir = dir.path().join("replacement");
    store.rebuild(3, Some(&new_dir)).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_consistent(&store);
    store.close().unwrap();
    // Full redundancy again: two other OSSs may fail now.
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.superblock().oss_dirs[3],
        new_dir.canonicalize().unwrap()
    );
    store.fail_oss(0).unwrap();
    store.fail_oss(4).unwrap();
    assert_eq!(store.get("a").unwrap(), a2);
    assert_eq!(store.get("b").unwrap(), b);
}

/// Flip one random bit in `count` random places of the OSS files (payload bytes only, so the
/// flips hit data or parity, never only a checksum).
/// At most `tolerance` flips land in one stripe (same object, same slot), so every flip is
/// repairable.
fn flip_bits(store: &Store, count: usize, seed: u64) -> usize {
    let tolerance = store.code().geometry().fault_tolerance;
    let mut per_stripe = std::collections::HashMap::<(String, usize), usize>::new();
    let mut rng = Rng(seed);
    let slot = UNIT + UNIT / 4096 * 4;
    let mut flipped = 0;
    let mut files = Vec::new();
    for d in &store.superblock().oss_dirs {
        for e in std::fs::read_dir(d.join("objects")).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".data") || name.ends_with(".parity") {
                files.push(p);
            }
        }
    }
    files.sort();
    for _ in 0..count {
        let p = &files[rng.below(files.len() as u64) as usize];
        let mut bytes = std::fs::read(p).unwrap();
        let slots = bytes.len() / slot;
        if slots == 0 {
            continue;
        }
        let s = rng.below(slots as u64) as usize;
        let object = p.file_stem().unwrap().to_string_lossy().to_string();
        let hits = per_stripe.entry((object, s)).or_default();
        if *hits == tolerance {
            continue;
        }
        *hits += 1;
        let at = s * slot + rng.below(UNIT as u64) as usize;
        bytes[at] ^= 1 << rng.below(8);
        std::fs::write(p, bytes).unwrap();
        flipped += 1;
    }
    flipped
}

#[test]
fn scrub_finds_flipped_bits_and_repair_fixes_them_from_parity() {
    let dir = tempfile::tempdir().unwrap();
    let (store, a, b) = filled(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_consistent(&store);
    let flipped = flip_bits(&store, 6, 77);
    assert!(flipped > 0);
    let report = store.scrub(false).unwrap();
    assert!(!report.corrupt_elements.is_empty(), "scrub finds the flips");
    let repaired = store.scrub(true).unwrap();
    assert!(repaired.repaired_elements > 0);
    assert!(
        repaired.unrepairable.is_empty(),
        "{:?}",
        repaired.unrepairable
    );
    assert_consistent(&store);
    assert_eq!(store.get("a").unwrap(), a);
    assert_eq!(store.get("b").unwrap(), b);
}

#[test]
fn a_corrupt_element_is_rebuilt_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let (store, a, _) = filled(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    flip_bits(&store, 3, 5);
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "reads verify checksums and rebuild what fails"
    );
}
