//! Failure handling never destroys or strands intact data (the CLI review of issue #4):
//! a rebuild is only of a failed OSS, a failure past the code's tolerance is never recorded
//! (it could never be undone), a read records no failure, an OSS recorded failed by mistake
//! comes back with `online_oss` while nothing was written since, and OSS directories must be
//! empty when they become an OSS.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::backend::{OssLabel, LABEL_FILE};
use exaraid_store::{InitOptions, Store, WritePath};

fn raid5() -> CodeSpec {
    CodeSpec::raid5(4)
}

fn oss_dir(store_dir: &Path, i: usize) -> PathBuf {
    store_dir.join(format!("oss-{i}"))
}

fn object_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("objects"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// raid5 over 5 OSSs with file `f` (several stripes on every OSS).
fn store_with_file(dir: &Path, path: WritePath) -> (Store, Vec<u8>) {
    let store = init(dir, raid5(), 5, path);
    let data = pattern(1, 20 * UNIT + 123);
    store.put("f", &data).unwrap();
    (store, data)
}

#[test]
fn rebuild_of_a_healthy_oss_is_refused_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (mut store, data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(3).unwrap();
    let held = object_files(&oss_dir(&dir, 1));
    assert!(held > 0);
    // The typo: OSS 1 for OSS 3.
    let err = store.rebuild(1, None).unwrap_err().to_string();
    assert!(
        err.contains("OSS 1 is healthy") && err.contains("[3]"),
        "{err}"
    );
    assert_eq!(
        object_files(&oss_dir(&dir, 1)),
        held,
        "OSS 1 kept its bytes"
    );
    assert_eq!(store.failed_osses(), vec![3]);
    assert_eq!(store.get("f").unwrap(), data);
    // Also to a new directory: a healthy OSS is not rebuilt (fail it first to migrate).
    let new = tmp.path().join("new");
    assert!(store.rebuild(1, Some(&new)).is_err());
    assert_eq!(store.failed_osses(), vec![3]);
    // The failed one rebuilds.
    store.rebuild(3, None).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
}

#[test]
fn rebuild_with_another_oss_missing_past_the_tolerance_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(3).unwrap();
    store.close().unwrap();
    std::fs::rename(oss_dir(&dir, 0), tmp.path().join("away")).unwrap();
    let mut store = Store::open(&dir).unwrap();
    let err = store.rebuild(3, None).unwrap_err().to_string();
    assert!(err.contains("[0]") && err.contains("mounted"), "{err}");
    drop(store);
    std::fs::rename(tmp.path().join("away"), oss_dir(&dir, 0)).unwrap();
    let mut store = Store::open(&dir).unwrap();
    assert_eq!(store.failed_osses(), vec![3]);
    store.rebuild(3, None).unwrap();
    assert_eq!(store.get("f").unwrap(), data);
}

#[test]
fn fail_past_the_tolerance_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(3).unwrap();
    let err = store.fail_oss(1).unwrap_err().to_string();
    assert!(
        err.contains("refused") && err.contains("tolerates 1"),
        "{err}"
    );
    assert_eq!(store.failed_osses(), vec![3]);
    assert_eq!(store.get("f").unwrap(), data);
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.failed_osses(), vec![3]);
    assert_eq!(store.get("f").unwrap(), data);
}

/// Every OSS directory moved away during a write (unmounted disks; before session 14 also
/// `mv D D2; write D2 ...; mv D2 D`, when the superblock named them by absolute path: now
/// a moved store carries them along, `copied_store.rs`), then put back. Nothing may be
/// recorded as failed.
#[test]
fn a_write_with_every_oss_directory_missing_records_no_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let (store, data) = store_with_file(&dir, WritePath::Rmw);
    let oss_dirs = store.superblock().oss_dirs.clone();
    store.close().unwrap();
    let aside = |i: usize| tmp.path().join(format!("aside-{i}"));
    for (i, d) in oss_dirs.iter().enumerate() {
        std::fs::rename(d, aside(i)).unwrap();
    }
    {
        let store = Store::open(&dir).unwrap();
        let err = store
            .write("f", 0, &pattern(2, 100))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("5 OSSs are unavailable") && err.contains("mounted"),
            "{err}"
        );
        // The store does not close (a failed write); the next open recovers.
    }
    for (i, d) in oss_dirs.iter().enumerate() {
        std::fs::rename(aside(i), d).unwrap();
    }
    let store = Store::open(&dir).unwrap();
    assert!(
        store.failed_osses().is_empty(),
        "{:?}",
        store.failed_osses()
    );
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
}

/// A read changes nothing, so a missing OSS directory during it is not recorded.
#[test]
fn a_degraded_read_records_no_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, data) = store_with_file(&dir, WritePath::Rmw);
    store.close().unwrap();
    let away = tmp.path().join("away");
    std::fs::rename(oss_dir(&dir, 2), &away).unwrap();
    {
        let store = Store::open(&dir).unwrap();
        assert_eq!(store.get("f").unwrap(), data, "degraded read");
        store.close().unwrap();
    }
    std::fs::rename(&away, oss_dir(&dir, 2)).unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_eq!(store.get("f").unwrap(), data);
}

/// An open delayed window keeps its bytes only in the cache zone of their data OSS: a read
/// while that OSS's directory is away must not record them as lost.
#[test]
fn a_read_inside_a_delayed_window_with_an_oss_away_loses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir, raid5(), 5, WritePath::Delayed);
    let token = store.delayed_start("w").unwrap();
    let data = pattern(3, 40 * UNIT);
    store.write("w", 0, &data).unwrap();
    store.close().unwrap();
    let away = tmp.path().join("away");
    std::fs::rename(oss_dir(&dir, 1), &away).unwrap();
    {
        let store = Store::open(&dir).unwrap();
        // Bytes held elsewhere read; those on OSS 1 fail (no parity yet), recording nothing.
        let _ = store.read("w", 0, UNIT as u64);
        let _ = store.get("w");
        drop(store);
    }
    std::fs::rename(&away, oss_dir(&dir, 1)).unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.failed_osses().is_empty());
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert_eq!(store.get("w").unwrap(), data);
    store.delayed_end(&token).unwrap();
    assert_eq!(store.get("w").unwrap(), data);
    assert_consistent(&store);
}

#[test]
fn online_brings_back_an_oss_failed_by_mistake_while_nothing_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(2).unwrap();
    assert_eq!(store.get("f").unwrap(), data, "reads change nothing");
    store.close().unwrap();
    let mut store = Store::open(&dir).unwrap();
    // OSS 1 is not failed: online already, nothing to do (Ok since s21e, R20-4's edge).
    store.online_oss(1).unwrap();
    assert_eq!(store.failed_osses(), vec![2], "nothing changed");
    store.online_oss(2).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.failed_osses().is_empty());
}

/// Session 8 (review s6r R6-6): a write skipped the failed OSS, so its columns of the
/// stripes written are stale; `online` rewrites them from the others (they are on record)
/// instead of demanding a rebuild (it refused before).
#[test]
fn online_after_a_write_skipped_the_failed_oss_rewrites_its_stale_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, mut data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(2).unwrap();
    let new = pattern(4, 3 * UNIT);
    store.write("f", 0, &new).unwrap();
    data[..new.len()].copy_from_slice(&new);
    store.close().unwrap();
    let mut store = Store::open(&dir).unwrap();
    store.online_oss(2).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
    // Its columns are current: with another OSS failed, they decode the new bytes.
    store.fail_oss(0).unwrap();
    assert_eq!(store.get("f").unwrap(), data);
}

#[test]
fn scrub_reports_failed_osses_and_lost_ranges() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (store, _) = store_with_file(&dir, WritePath::Rmw);
    assert!(store.scrub(false).unwrap().failed_oss.is_empty());
    store.fail_oss(4).unwrap();
    let report = store.scrub(false).unwrap();
    assert_eq!(report.failed_oss, vec![4]);
    assert!(report.lost_ranges.is_empty());
}

/// What a killed `rebuild --to NEW` leaves: NEW labelled as this store's OSS, some objects.
#[test]
fn rebuild_to_accepts_its_own_unfinished_leftover_but_not_another_oss() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let (mut store, data) = store_with_file(&dir, WritePath::Rmw);
    store.fail_oss(2).unwrap();
    let leftover = tmp.path().join("new");
    std::fs::create_dir_all(leftover.join("objects")).unwrap();
    std::fs::write(leftover.join("objects").join("junk"), b"half a rebuild").unwrap();
    let store_id = store.superblock().store_id.clone();
    let block_crc_seed = store.superblock().block_crc_seed;
    let label = |index: usize| OssLabel {
        store_id: store_id.clone(),
        index,
        element_bytes: UNIT,
        block_crc_seed,
        settings: None,
    };
    let write_label = |l: &OssLabel| {
        std::fs::write(leftover.join(LABEL_FILE), serde_json::to_vec(l).unwrap()).unwrap();
    };
    // Another OSS's label: refused, untouched.
    write_label(&label(3));
    let err = store.rebuild(2, Some(&leftover)).unwrap_err().to_string();
    assert!(err.contains("pick an empty directory"), "{err}");
    assert!(leftover.join("objects").join("junk").exists());
    // Its own leftover: taken over.
    write_label(&label(2));
    store.rebuild(2, Some(&leftover)).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_eq!(
        store.superblock().oss_dirs[2],
        leftover.canonicalize().unwrap()
    );
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
    // A directory with other files is no rebuild target either.
    store.fail_oss(0).unwrap();
    let busy = tmp.path().join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), b"mine").unwrap();
    let err = store.rebuild(0, Some(&busy)).unwrap_err().to_string();
    assert!(
        err.contains("not empty") && err.contains("notes.txt"),
        "{err}"
    );
    assert!(busy.join("notes.txt").exists());
}

#[test]
fn init_refuses_an_oss_directory_holding_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let mut opts = InitOptions::with_oss_count(&dir, 5, raid5());
    opts.element_bytes = UNIT;
    let user = tmp.path().join("home");
    std::fs::create_dir_all(user.join("objects")).unwrap();
    std::fs::write(user.join("objects").join("thesis.tex"), b"precious").unwrap();
    opts.oss_dirs[3] = user.clone();
    let err = Store::init(&dir, &opts).err().unwrap().to_string();
    assert!(
        err.contains("not empty") && err.contains("objects"),
        "{err}"
    );
    assert!(!dir.join("superblock").exists(), "no store was made");
    assert!(user.join("objects").join("thesis.tex").exists());
    // An empty existing directory is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    opts.oss_dirs[3] = empty;
    Store::init(&dir, &opts).unwrap();
}
