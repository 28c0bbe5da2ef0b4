//! Review s4e E12/E13: an OSS directory missing for a while (a dropped mount, within the code's
//! tolerance) while a command moves bytes home — a settle (`rm` on WCL), a `rebuild` of another
//! OSS (it settles first), or crash recovery at the next open (which runs without a missing
//! OSS only once the operator `fail`s it: it waits for the mount otherwise, E13 remainder,
//! `store_recovery_missing_mount.rs`). The command may go on without
//! that OSS only if it records it failed first: once the directory is back, every file still
//! reads its acknowledged bytes (never the OSS's never-written home slots, zeros), status names
//! the OSS failed, `online` refuses it (its bytes are stale) and a rebuild makes it whole.
//! Before the fix each command skipped the OSS without a record and exited 0; the mount's
//! return then gave wrong bytes with exit 0.

use crate::common;
use common::*;

const FILES: usize = 4;

/// raid6 k=4 over 9 OSSs, WCL, 4 KiB unit; f0..f3 put through the cache zone, then 4 small
/// writes to f1 (cached too). Returns every file's acknowledged bytes.
fn cached_store(d: &str) -> Vec<Vec<u8>> {
    init_store(d, RAID6_4_2_WCL_OVER_9);
    let mut files: Vec<Vec<u8>> = (0..FILES)
        .map(|i| bytes(11 + i as u8, 9_000 + i * 13_001))
        .collect();
    for (i, f) in files.iter().enumerate() {
        ok(&["store", "put", d, &format!("f{i}")], f);
    }
    for (n, offset) in [777usize, 5_000, 12_345, 18_000].into_iter().enumerate() {
        let w = bytes(90 + n as u8, 3_000);
        ok(
            &["store", "write", d, "f1", "--offset", &offset.to_string()],
            &w,
        );
        files[1][offset..offset + w.len()].copy_from_slice(&w);
    }
    files
}

/// Every file reads exactly its acknowledged bytes (`None`: removed).
fn check(d: &str, files: &[Option<Vec<u8>>], when: &str) {
    for (i, f) in files.iter().enumerate() {
        let Some(f) = f else { continue };
        let got = ok(&["store", "get", d, &format!("f{i}")], b"");
        let wrong = got.iter().zip(f).filter(|(a, b)| a != b).count();
        assert!(
            got.len() == f.len() && wrong == 0,
            "{when}: f{i} reads {wrong} wrong bytes (length {} for {})",
            got.len(),
            f.len()
        );
    }
}

/// After the mount is back: the OSS skipped while missing is failed on record and stale;
/// `online` (session 8; a rebuild before) makes the store whole again.
fn recorded_failed_then_rebuilt(d: &str, oss: usize, files: &[Option<Vec<u8>>]) {
    check(d, files, "the mount is back");
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert!(
        status.contains("FAILED"),
        "OSS {oss} was skipped while missing, so it must be failed on record:\n{status}"
    );
    // Session 8: `online` rewrites its columns of what was written without it (it refused
    // before, as stale; a rebuild made the store whole).
    ok(&["store", "online", d, "--oss", &oss.to_string()], b"");
    check(d, files, "after online");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn a_settle_with_an_oss_directory_missing_records_it_failed() {
    let tmp = fast_tempdir("exaraid-e12-settle");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let files = cached_store(d);
    oss_away(&dir, 0);
    // `rm` settles the cache zone: OSS 0 holds home slots the settle must write.
    ok(&["store", "rm", d, "f3"], b"");
    oss_back(&dir, 0);
    let mut left: Vec<Option<Vec<u8>>> = files.into_iter().map(Some).collect();
    left[3] = None;
    recorded_failed_then_rebuilt(d, 0, &left);
}

#[test]
fn a_rebuild_with_another_oss_directory_missing_records_it_failed() {
    let tmp = fast_tempdir("exaraid-e12-rebuild");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let files = cached_store(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let w = bytes(200, 6_000);
    ok(&["store", "write", d, "f2", "--offset", "1000"], &w);
    let mut files: Vec<Option<Vec<u8>>> = files.into_iter().map(Some).collect();
    files[2].as_mut().unwrap()[1000..7000].copy_from_slice(&w);
    oss_away(&dir, 0);
    // The rebuild settles first (the settle writes home slots on OSS 0), then rebuilds OSS 1.
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    oss_back(&dir, 0);
    recorded_failed_then_rebuilt(d, 0, &files);
}

#[test]
fn crash_recovery_with_an_oss_directory_missing_records_it_failed() {
    let tmp = fast_tempdir("exaraid-e13-recovery");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let files = cached_store(d);
    // Killed after its settle was on record, before it wrote anything home.
    let kill_at = format!("{}:1", exaraid_store::torture::SETTLE_BEGUN);
    assert!(killed_at(&["store", "rm", d, "f3"], b"", &kill_at));
    oss_away(&dir, 0);
    // The next open needs recovery, which waits for a mount that is merely missing (E13
    // remainder: `store_recovery_missing_mount.rs`); the operator records OSS 0 failed
    // instead, and recovery finishes the settle without it (OSS 0 holds home slots it writes).
    let err = fails(&["store", "ls", d], b"");
    assert!(err.contains("mount it and retry"), "{err}");
    // `status` opens without recovery (s24c) and says what it waits for.
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert!(
        status.contains("RECOVERY PENDING") && status.contains("mount it and retry"),
        "{status}"
    );
    ok(&["store", "fail", d, "--oss", "0"], b"");
    oss_back(&dir, 0);
    let mut left: Vec<Option<Vec<u8>>> = files.into_iter().map(Some).collect();
    left[3] = None;
    recorded_failed_then_rebuilt(d, 0, &left);
}
