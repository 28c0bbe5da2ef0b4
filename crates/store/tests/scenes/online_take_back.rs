//! `online` takes back an OSS failed by mistake after the store changed (review s6r R6-6):
//! the `fail` inside an open delayed window recorded the window bytes on it lost, writes
//! and settles then skipped it. `online` reads those bytes back from its cache zone (where
//! every block's checksum verifies), rewrites its columns of the stripes changed while it
//! was failed, and writes the bytes again: every acknowledged byte reads back, a write made
//! in between wins over the old bytes, and a directory that is not the one that failed (a
//! rolled-back copy, another store's OSS) is refused.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};
use std::path::Path;

/// raid5 3+1 delayed: `other` written outside any window, a window on `ckpt` with
/// `WINDOW_ELEMENTS` elements in its cache zones (several on every OSS).
const WINDOW_ELEMENTS: usize = 12;

struct Setup {
    store: Store,
    token: String,
    other: Vec<u8>,
    ckpt: Vec<u8>,
    victim: usize,
}

fn setup(dir: &Path) -> Setup {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Delayed);
    let other = pattern(50, 60_000);
    store.put("other", &other).unwrap();
    let token = store.delayed_start("ckpt").unwrap();
    let ckpt = pattern(51, WINDOW_ELEMENTS * UNIT);
    store.write("ckpt", 0, &ckpt).unwrap();
    let victim = oss_of(&store, "ckpt", UNIT as u64);
    Setup {
        store,
        token,
        other,
        ckpt,
        victim,
    }
}

fn oss_of(store: &Store, name: &str, offset: u64) -> usize {
    store
        .layout()
        .locate(store.file_id(name).unwrap(), offset)
        .oss
}

fn lost_count(store: &Store) -> usize {
    store.status().unwrap().lost_ranges.len()
}

fn assert_whole_and_clean(store: &Store) {
    let report = store.scrub(false).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert!(
        json["failed_oss"].as_array().unwrap().is_empty()
            && json["lost_ranges"].as_array().unwrap().is_empty(),
        "{json}"
    );
    assert_consistent(store);
}

/// A fail inside the window, the store written (outside the window) and settled while the
/// OSS is failed, then `online`: the window's bytes on it are back (the window still open,
/// END gives them parity), the write made meanwhile stays, and scrub is clean.
#[test]
fn a_mistaken_fail_inside_an_open_window_is_taken_back_with_every_acknowledged_byte() {
    let dir = scratch();
    let s = setup(dir.path());
    s.store.fail_oss(s.victim).unwrap();
    assert!(
        lost_count(&s.store) > 0,
        "the fail recorded window bytes lost"
    );
    let mut other = s.other.clone();
    let new_bytes = pattern(52, 20_000);
    other[10_000..30_000].copy_from_slice(&new_bytes);
    s.store.write("other", 10_000, &new_bytes).unwrap();
    s.store.flush().unwrap();
    let token = s.token.clone();
    s.store.close().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    store.online_oss(s.victim).unwrap();
    assert_eq!(lost_count(&store), 0, "nothing is lost any more");
    assert_eq!(store.get("ckpt").unwrap(), s.ckpt);
    assert_eq!(store.get("other").unwrap(), other);
    store.delayed_end(&token).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), s.ckpt);
    assert_whole_and_clean(&store);
    // The OSS is in service: failing another one reads every byte from parity.
    let second = (s.victim + 1) % 4;
    store.fail_oss(second).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), s.ckpt);
    assert_eq!(store.get("other").unwrap(), other);
}

/// A write into a lost range after the window ended (home, with parity, the OSS failed):
/// `online` takes back the rest of the range, never the old bytes under the new ones.
#[test]
fn a_write_into_a_lost_range_before_online_keeps_its_new_bytes() {
    let dir = scratch();
    let s = setup(dir.path());
    s.store.fail_oss(s.victim).unwrap();
    assert!(matches!(
        s.store.delayed_end(&s.token),
        Err(StoreError::DataLost(_))
    ));
    let at = UNIT + 1000;
    let new_bytes = pattern(53, 2000);
    s.store.write("ckpt", at as u64, &new_bytes).unwrap();
    let mut want = s.ckpt.clone();
    want[at..at + 2000].copy_from_slice(&new_bytes);
    s.store.close().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    store.online_oss(s.victim).unwrap();
    assert_eq!(lost_count(&store), 0);
    assert_eq!(store.get("ckpt").unwrap(), want);
    assert_eq!(store.get("other").unwrap(), s.other);
    assert_whole_and_clean(&store);
}

/// The failed OSS's directory replaced by a copy taken before the window's writes (a
/// rolled-back directory: its generation is behind the record), or by another store's OSS:
/// refused naming `rebuild`, the bytes stay lost (never the copy's stale bytes), and a
/// rebuild brings the store back whole.
#[test]
fn a_rolled_back_or_foreign_directory_is_refused_and_nothing_stale_is_taken_back() {
    for foreign in [false, true] {
        let dir = scratch();
        let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
        store.put("other", &pattern(54, 30_000)).unwrap();
        store.close().unwrap();
        let old_copy = dir.path().join("old-copy");
        let victim_dir = |v: usize| dir.path().join(format!("oss-{v}"));
        let mut store = Store::open(dir.path()).unwrap();
        let token = store.delayed_start("ckpt").unwrap();
        let ckpt = pattern(55, WINDOW_ELEMENTS * UNIT);
        store.write("ckpt", 0, &ckpt).unwrap();
        let victim = oss_of(&store, "ckpt", UNIT as u64);
        if foreign {
            let elsewhere = scratch();
            let other_store = init(elsewhere.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
            other_store.put("x", &pattern(56, 5000)).unwrap();
            other_store.close().unwrap();
            copy_tree(&elsewhere.path().join(format!("oss-{victim}")), &old_copy);
        } else {
            // What the directory held before the window wrote it (its generation then).
            store.close().unwrap();
            store = Store::open(dir.path()).unwrap();
            std::fs::remove_dir_all(&old_copy).ok();
            copy_tree(&victim_dir(victim), &old_copy);
            // A window write on the victim after the copy: its generation moves past it.
            let at = (WINDOW_ELEMENTS..WINDOW_ELEMENTS + 8)
                .map(|e| (e * UNIT) as u64)
                .find(|&o| oss_of(&store, "ckpt", o) == victim)
                .expect("the victim holds a data element of the next stripes");
            store.write("ckpt", at, &pattern(57, UNIT)).unwrap();
        }
        store.fail_oss(victim).unwrap();
        let lost_before = lost_count(&store);
        assert!(lost_before > 0);
        std::fs::remove_dir_all(victim_dir(victim)).unwrap();
        std::fs::rename(&old_copy, victim_dir(victim)).unwrap();
        let err = store.online_oss(victim).unwrap_err().to_string();
        assert!(err.contains("rebuild"), "foreign {foreign}: {err}");
        assert_eq!(lost_count(&store), lost_before, "nothing taken back");
        // The operator replaces the disk (an empty directory) and rebuilds.
        std::fs::remove_dir_all(victim_dir(victim)).unwrap();
        std::fs::create_dir_all(victim_dir(victim)).unwrap();
        store.rebuild(victim, None).unwrap();
        let _ = store.delayed_end(&token);
        assert_eq!(store.get("other").unwrap(), pattern(54, 30_000));
        assert_consistent(&store);
    }
}

/// Review s8s S8-5: a directory whose object files were deleted, cut short or zeroed while
/// it was failed was taken back as it was ("online again"): the store counted on its
/// redundancy, which was gone until a scrub found it. `online` checks every zone file its
/// extents record names (exists, long enough, first block verifies) and refuses, naming
/// `rebuild`; the rebuild makes it whole.
#[test]
fn online_refuses_a_directory_whose_objects_were_deleted_cut_or_zeroed_while_failed() {
    for damage in ["delete", "truncate", "zero"] {
        let dir = scratch();
        let mut store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
        let f1 = pattern(60, 70_000);
        store.put("f1", &f1).unwrap();
        let victim = 2;
        store.fail_oss(victim).unwrap();
        let objects = dir.path().join(format!("oss-{victim}")).join("objects");
        let mut damaged = 0;
        for entry in std::fs::read_dir(&objects).unwrap() {
            let path = entry.unwrap().path();
            let len = std::fs::metadata(&path).unwrap().len();
            if len == 0 {
                continue;
            }
            damaged += 1;
            match damage {
                "delete" => std::fs::remove_file(&path).unwrap(),
                "truncate" => std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(100)
                    .unwrap(),
                _ => std::fs::write(&path, vec![0u8; len as usize]).unwrap(),
            }
        }
        assert!(damaged > 0, "OSS {victim} holds objects of f1");
        let err = store.online_oss(victim).unwrap_err().to_string();
        assert!(
            err.contains("not as it was written") && err.contains("rebuild"),
            "{damage}: {err}"
        );
        assert_eq!(store.failed_osses(), vec![victim], "{damage}: still failed");
        store.rebuild(victim, None).unwrap();
        // Two more failures: f1 reads from what the rebuilt OSS holds.
        store.fail_oss(0).unwrap();
        store.fail_oss(4).unwrap();
        assert!(store.get("f1").unwrap() == f1, "{damage}");
    }
}

/// The check costs nothing where nothing happened: an intact directory is taken back.
#[test]
fn online_takes_back_an_intact_directory_after_the_check() {
    let dir = scratch();
    let mut store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
    let f1 = pattern(61, 70_000);
    store.put("f1", &f1).unwrap();
    store.fail_oss(2).unwrap();
    store.online_oss(2).unwrap();
    store.fail_oss(0).unwrap();
    store.fail_oss(4).unwrap();
    assert!(store.get("f1").unwrap() == f1);
}

/// Note 8 OPEN 5 (no test before): past `CHANGED_WHILE_FAILED_MAX` changes recorded while an
/// OSS was failed, the record is dropped and `online` refuses, naming the bound and
/// `rebuild` (its columns of the changed stripes can no longer be listed); the rebuild
/// makes it whole. One write fewer and `online` takes it back: the bound is exact.
#[test]
fn online_past_the_bound_of_changes_recorded_while_failed_is_refused_naming_rebuild() {
    use exaraid_store::state::CHANGED_WHILE_FAILED_MAX;
    use exaraid_store::OpenOptions;
    for past in [false, true] {
        let dir = scratch();
        drop(init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw));
        let options = OpenOptions {
            fsync: false, // thousands of small writes; durability is not what is tested
            ..OpenOptions::default()
        };
        let store = Store::open_with(dir.path(), options.clone()).unwrap();
        let ranges = CHANGED_WHILE_FAILED_MAX + usize::from(past);
        let mut model = pattern(70, 2 * ranges);
        store.put("f", &model).unwrap();
        // Reopened: the `fail` seeds its record with the writes since the planner's last
        // restart, and the put's range would swallow every one-byte write below.
        store.close().unwrap();
        let mut store = Store::open_with(dir.path(), options).unwrap();
        store.fail_oss(1).unwrap();
        // One byte at every other offset: as many disjoint ranges (adjacent ones merge).
        for i in 0..ranges {
            let at = 2 * i;
            model[at] = !model[at];
            store.write("f", at as u64, &model[at..at + 1]).unwrap();
        }
        let online = store.online_oss(1);
        if past {
            let err = online.unwrap_err().to_string();
            assert!(
                err.contains(&format!("more places than {CHANGED_WHILE_FAILED_MAX}"))
                    && err.contains("rebuild"),
                "{err}"
            );
            assert_eq!(store.failed_osses(), vec![1]);
            store.rebuild(1, None).unwrap();
        } else {
            online.expect("at the bound: taken back");
        }
        assert!(store.failed_osses().is_empty(), "past {past}");
        store.fail_oss(2).unwrap(); // f reads through OSS 1's columns
        assert!(store.get("f").unwrap() == model, "past {past}");
    }
}
