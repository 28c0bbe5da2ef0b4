//! Bad input gets a clear error and never damages stored data.

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, WritePath};

fn err_of<T>(r: Result<T, exaraid_store::StoreError>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_unknown_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(err_of(Store::open(&dir.path().join("missing"))).contains("does not exist"));
    assert!(err_of(Store::open(dir.path())).contains("not an exaraid store"));
}

#[test]
fn wrong_code_parameters_and_stripe_units_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    let mut opts = InitOptions::with_oss_count(&d, 3, CodeSpec::raid6(4));
    opts.element_bytes = UNIT;
    assert!(err_of(Store::init(&d, &opts)).contains("needs 6 OSSs"));
    opts.code = CodeSpec::array(CodeKind::Dcode, 4);
    assert!(
        err_of(Store::init(&d, &opts))
            .to_lowercase()
            .contains("prime"),
        "dcode needs a prime p"
    );
    opts.code = CodeSpec::raid5(2);
    opts.element_bytes = 1000;
    assert!(err_of(Store::init(&d, &opts)).contains("multiple of 4096"));
    opts.element_bytes = 8 << 20;
    assert!(err_of(Store::init(&d, &opts)).contains("stripe unit"));
    opts.element_bytes = UNIT;
    opts.oss_dirs = vec![d.join("a"), d.join("a"), d.join("b")];
    assert!(err_of(Store::init(&d, &opts)).contains("given twice"));
    assert!(!d.join("superblock").exists(), "nothing was created");
    let store = init(&d, CodeSpec::raid5(2), 3, WritePath::Rmw);
    store.close().unwrap();
    let opts = InitOptions::with_oss_count(&d, 3, CodeSpec::raid5(2));
    assert!(err_of(Store::init(&d, &opts)).contains("already holds an exaraid store"));
}

#[test]
fn offsets_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    store.put("f", &pattern(1, 1000)).unwrap();
    assert!(err_of(store.read("f", 900, 200)).contains("goes past its end"));
    assert!(err_of(store.read("f", u64::MAX, 2)).contains("goes past its end"));
    assert!(err_of(store.read("g", 0, 1)).contains("no file named 'g'"));
    assert!(err_of(store.write("f", u64::MAX - 3, b"abcdef")).contains("beyond the largest file"));
    assert!(err_of(store.write("f", 0, b"")).contains("0 bytes"));
    assert!(err_of(store.read("f", 0, 0)).contains("0 bytes"));
    assert_eq!(store.get("f").unwrap(), pattern(1, 1000), "nothing changed");
}

/// The largest file follows from the geometry: a zone file holds at most 2^40 slots and no
/// more than ext4 allows one file (16 TiB less one block). A write ending past that is refused
/// before anything is acknowledged, on every write path; one ending right at it is
/// acknowledged and moves home (review s5r R1/R1b: WCL and delayed writes at 2^50 or 2^59
/// were acknowledged into the cache zone, then every settle failed "File too large" or
/// "outside a 4096 byte element", and with it every later command).
#[test]
fn writes_past_the_largest_file_the_geometry_holds_are_refused_before_acknowledgement() {
    for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
        let dir = tempfile::tempdir().unwrap();
        let store = init(dir.path(), CodeSpec::raid6(4), 6, path);
        let max = store.file_bytes_max();
        assert!(
            max < 1 << 60,
            "{path:?}: 4 KiB units limit the file below the planner's 2^60"
        );
        assert!(
            max > 1 << 40,
            "{path:?}: a 4 KiB x 4 store still holds a 1 TiB file"
        );
        store.put("f", &pattern(3, 50_000)).unwrap();
        for at in [max - 5, 1 << 50, 1 << 59] {
            let why = err_of(store.write("f", at, b"0123456789"));
            assert!(
                why.contains("largest file this store holds"),
                "{path:?} at {at}: {why}"
            );
        }
        let last = pattern(4, 10);
        if path == WritePath::Delayed {
            let window = store.delayed_window("f").unwrap();
            store.write("f", max - 10, &last).unwrap();
            window.end().unwrap();
        } else {
            store.write("f", max - 10, &last).unwrap();
        }
        store.flush().unwrap();
        store.close().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.read("f", max - 10, 10).unwrap(), last, "{path:?}");
        assert_eq!(
            store.read("f", 0, 50_000).unwrap(),
            pattern(3, 50_000),
            "{path:?}"
        );
        assert_consistent(&store);
    }
}

/// Review s5r R4: a store (or an OSS directory of a new store) inside another store's OSS
/// directory is refused; nothing is created.
#[test]
fn a_store_inside_another_stores_oss_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outer = init(
        &dir.path().join("outer"),
        CodeSpec::raid5(2),
        3,
        WritePath::Rmw,
    );
    outer.put("f", &pattern(5, 10_000)).unwrap();
    outer.close().unwrap();
    let oss0 = dir.path().join("outer").join("oss-0");
    for inner in [oss0.clone(), oss0.join("objects").join("sub")] {
        let opts = InitOptions::with_oss_count(&inner, 3, CodeSpec::raid5(2));
        let why = err_of(Store::init(&inner, &opts));
        assert!(
            why.contains("an OSS directory of an exaraid store"),
            "{why}"
        );
        assert!(!inner.join("superblock").exists(), "nothing was created");
    }
    let elsewhere = dir.path().join("inner");
    let mut opts = InitOptions::with_oss_count(&elsewhere, 3, CodeSpec::raid5(2));
    opts.oss_dirs[2] = oss0.join("sub");
    let why = err_of(Store::init(&elsewhere, &opts));
    assert!(
        why.contains("an OSS directory of an exaraid store"),
        "{why}"
    );
    let outer = Store::open(&dir.path().join("outer")).unwrap();
    assert_eq!(outer.get("f").unwrap(), pattern(5, 10_000));
    assert_consistent(&outer);
}

/// Damage one metadata file in several ways; every time the store refuses to open with a
/// message naming the file, and once the file is restored everything is intact.
fn damaged_metadata_is_refused(file: &str, expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    let data = pattern(2, 50_000);
    store.put("f", &data).unwrap();
    store.close().unwrap();
    let path = dir.path().join(file);
    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    let at = good.len() / 2;
    flipped[at] ^= 0x20;
    let damages: Vec<Vec<u8>> = vec![
        good[..good.len() / 3].to_vec(),
        flipped,
        Vec::new(),
        b"garbage\n".to_vec(),
    ];
    for damaged in damages {
        std::fs::write(&path, &damaged).unwrap();
        let err = err_of(Store::open(dir.path()));
        assert!(err.contains(expect), "{file}: {err}");
        assert!(err.contains(file), "the message names the file: {err}");
    }
    std::fs::write(&path, &good).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), data, "nothing was damaged");
    assert_consistent(&store);
}

#[test]
fn a_corrupt_or_truncated_superblock_is_refused_without_damage() {
    damaged_metadata_is_refused("superblock", "damaged");
}

#[test]
fn a_corrupt_or_truncated_state_snapshot_is_refused_without_damage() {
    damaged_metadata_is_refused("state", "damaged");
}

#[test]
fn a_full_oss_fails_the_write_before_anything_changes() {
    for path in [WritePath::Rmw, WritePath::Wcl] {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
        opts.element_bytes = UNIT;
        opts.write_path = path;
        opts.oss_capacity_bytes = Some(64 * 1024);
        let store = Store::init(dir.path(), &opts).unwrap();
        let small = pattern(3, 30_000);
        store.put("small", &small).unwrap();
        let err = err_of(store.write("big", 0, &pattern(4, 400_000)));
        assert!(err.contains("full"), "{path:?}: {err}");
        // Overwrites inside the space already held still work, the old file is intact.
        assert_eq!(store.get("small").unwrap(), small);
        store.write("small", 100, &pattern(5, 1000)).unwrap();
        let mut want = small.clone();
        want[100..1100].copy_from_slice(&pattern(5, 1000));
        assert_eq!(store.get("small").unwrap(), want);
        store.close().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.get("small").unwrap(),
            want,
            "{path:?}: intact after reopen"
        );
        assert_consistent(&store);
    }
}

/// flock is per open file description: a second open in this process conflicts too, and
/// the refusal says so (it blamed "another process" only, which sent an API user looking
/// for a process that did not exist).
#[test]
fn a_second_open_in_the_same_process_is_refused_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let _store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let err = err_of(Store::open(dir.path()));
    assert!(
        err.contains("already open, in this process or another"),
        "{err}"
    );
    assert!(err.contains("share the one open `Store`"), "{err}");
}

/// Review E7: deleting files in the store directory (a cleanup script removing a "stale"
/// `DIR/lock`) while a command runs must not let a second process in: both would take file
/// id 0 and acknowledged bytes of each would be lost.
#[test]
fn deleting_a_lock_file_does_not_let_a_second_process_in() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    // The lock file of stores before the directory lock, if any.
    let _ = std::fs::remove_file(dir.path().join("lock"));
    let err = err_of(Store::open(dir.path()));
    assert!(err.contains("already open"), "{err}");
    store.close().unwrap();
    Store::open(dir.path()).expect("the lock goes with the process that held it");
}

#[test]
fn a_journal_damaged_in_the_middle_is_refused_and_a_torn_tail_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    let data = pattern(8, 30_000);
    store.put("f", &data).unwrap();
    drop(store); // no close: the journal keeps its records, as after a crash
    let path = dir.path().join("journal");
    let good = std::fs::read(&path).unwrap();
    assert!(good.len() > 100, "the journal has records");
    let mut damaged = good.clone();
    damaged[good.len() / 3] ^= 0x08;
    std::fs::write(&path, &damaged).unwrap();
    let err = err_of(Store::open(dir.path()));
    assert!(err.contains("journal") && err.contains("damaged"), "{err}");
    // A torn append (a crash in the middle of the last record) is cut silently.
    let mut torn = good.clone();
    torn.extend_from_slice(&[200, 0, 0, 0, 1, 2, 3]);
    std::fs::write(&path, &torn).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
}
