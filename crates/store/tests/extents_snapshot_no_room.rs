//! Session 15's s15h at the store level (note15 OPEN item 9): an OSS whose disk is full
//! when its extents snapshot is rewritten (past 4096 extents log records) loses nothing, so
//! the store must not record it failed. Before s15h the refused rewrite failed the OSS's
//! sync, and a healthy OSS on a full disk was recorded failed (the stripes it holds then
//! read degraded, and only a rebuild brought it back). The backend's own test
//! (`backend::tests::a_snapshot_rewrite_refused_for_room_keeps_the_log_and_the_sync`)
//! shows the sync succeeds; this one runs the store's writes over it.
//!
//! The full disk is `scripts/eioshim.c` (ENOSPC on every write of the snapshot's temporary
//! copy of one OSS) preloaded into a child run of this test executable: the test says so
//! and passes without checking anything where no C compiler builds it.

mod common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

/// Where the parent tells its child the store directory (the child runs under the shim).
const DIR_ENV: &str = "EXARAID_TEST_SNAPSHOT_NO_ROOM_STORE";
/// The OSS whose disk is full for its snapshot rewrite.
const FULL_OSS: usize = 1;
/// Bytes of one extents log record, and the records past which the snapshot is rewritten
/// (`EXTENTS_RECORD_BYTES`, `EXTENTS_LOG_RECORDS_MAX` in backend.rs).
const LOG_RECORD_BYTES: u64 = 24;
const LOG_RECORDS_MAX: u64 = 4096;
/// Files the child puts past that point: every one a sync that tries the rewrite again.
const FILES_PAST_THE_REWRITE: usize = 64;
/// A bound on the child's puts (each writes a slot on every OSS: about one log record).
const FILES_MAX: usize = 3 * LOG_RECORDS_MAX as usize;
/// One stripe of raid5 2+1 with 4 KiB units: every file writes a slot on every OSS.
const FILE_BYTES: usize = 2 * UNIT;

fn oss_dir(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}"))
}

fn log_records(dir: &Path) -> u64 {
    let log = oss_dir(dir, FULL_OSS).join("exaraid-extents.log");
    std::fs::metadata(log).map_or(0, |m| m.len()) / LOG_RECORD_BYTES
}

fn snapshot_copy(dir: &Path) -> PathBuf {
    oss_dir(dir, FULL_OSS).join("exaraid-extents.tmp")
}

fn contents(n: usize) -> Vec<u8> {
    pattern(n as u64 + 1, FILE_BYTES)
}

/// Every file reads its bytes, no OSS is failed or unavailable, no byte is lost.
fn assert_whole(store: &Store, files: usize, when: &str) {
    assert!(
        store.failed_osses().is_empty(),
        "{when}: OSSs {:?} failed or unavailable; OSS {FULL_OSS}'s disk was only full for its extents snapshot",
        store.failed_osses()
    );
    let status = store.status().unwrap();
    assert!(
        status.oss.iter().all(|o| o.healthy),
        "{when}: {:?}",
        status.oss
    );
    assert!(
        status.lost_ranges.is_empty(),
        "{when}: {:?}",
        status.lost_ranges
    );
    for n in 0..files {
        assert!(
            store.get(&format!("f{n}")).unwrap() == contents(n),
            "{when}: f{n} reads other bytes"
        );
    }
}

#[test]
fn an_oss_whose_disk_is_full_at_its_extents_snapshot_rewrite_is_not_recorded_failed() {
    let tmp = scratch();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/eioshim.c");
    let shim = tmp.path().join("eioshim.so");
    let built = std::process::Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&shim)
        .arg(&src)
        .arg("-ldl")
        .status()
        .is_ok_and(|st| st.success());
    if !built {
        eprintln!("SKIPPED: no C compiler built scripts/eioshim.c");
        return;
    }
    let dir = tmp.path().join("store");
    init(&dir, CodeSpec::raid5(2), 3, WritePath::Rmw)
        .close()
        .unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "snapshot_no_room_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LD_PRELOAD", &shim)
        .env("FAILERRNO", "ENOSPC")
        .env("FAILWRITESUNDER", snapshot_copy(&dir))
        .env(DIR_ENV, &dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success() && out.contains("1 passed"),
        "the child under the shim: {out}{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let files: usize = out
        .lines()
        .find_map(|l| l.split("FILES ").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .expect("the child says how many files it put");
    // Room again: the store opens whole, and the next sync rewrites the snapshot.
    let store = Store::open(&dir).unwrap();
    assert_whole(&store, files, "reopened with room");
    assert!(
        log_records(&dir) > LOG_RECORDS_MAX,
        "the log was kept whole"
    );
    store.put(&format!("f{files}"), &contents(files)).unwrap();
    assert!(
        log_records(&dir) < LOG_RECORDS_MAX,
        "the snapshot was rewritten and the log emptied: {} records",
        log_records(&dir)
    );
    assert_whole(&store, files + 1, "after the rewrite");
    store.close().unwrap();
}

/// The child of the test above: OSS `FULL_OSS` refuses every write of its snapshot copy.
/// Puts files until its log is past the rewrite point and a few syncs beyond; prints how
/// many (`FILES n`). Does nothing run on its own (no `DIR_ENV`).
#[test]
fn snapshot_no_room_child() {
    let Some(dir) = std::env::var_os(DIR_ENV).map(PathBuf::from) else {
        return;
    };
    let store = Store::open(&dir).unwrap();
    let mut files = 0;
    let mut past = 0;
    while past < FILES_PAST_THE_REWRITE {
        assert!(
            files < FILES_MAX,
            "{} log records after {files} puts",
            log_records(&dir)
        );
        store.put(&format!("f{files}"), &contents(files)).unwrap();
        assert!(
            store.failed_osses().is_empty(),
            "put {files} ({} log records on OSS {FULL_OSS}): OSSs {:?} recorded failed",
            log_records(&dir),
            store.failed_osses()
        );
        files += 1;
        if log_records(&dir) > LOG_RECORDS_MAX {
            past += 1;
        }
    }
    assert!(!snapshot_copy(&dir).exists(), "no partial copy takes room");
    assert_whole(&store, files, "under the full disk");
    store.close().unwrap();
    println!("FILES {files}");
}
