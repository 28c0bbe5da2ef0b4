//! Review s12r R12-4: an OSS's old directory from before its in-place rebuild (the original
//! disk mounted at the path again after a reboot, a nightly backup restored) put back after
//! the rebuild and more writes must not be taken as the OSS: it holds the bytes of before
//! the rebuild under valid checksums. The rebuild restarted the OSS's generation at 0, so
//! the old directory was ahead of the store's record (taken as a crash's harmless lead),
//! passed every check, and `get` returned stale bytes with no error. Now it is refused as
//! rolled back (unavailable, reads decode around it), and `online` refuses it too.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

const OSS: usize = 1;

/// OSS `oss`'s directory (`init`'s default place).
fn oss_dir(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}"))
}

/// The R12-4 history up to the rebuild: a file overwritten in several commands (each one a
/// generation of OSS 1's), OSS 1's directory moved away (its disk dropped out), failed,
/// rebuilt in place onto an empty directory, then one more acknowledged write. Returns the
/// bytes acknowledged and where the old directory is kept.
fn rebuilt_after_its_disk_went(dir: &Path, away: &Path, code: CodeSpec) -> Vec<u8> {
    let mut data = pattern(1, 100_000);
    init(dir, code, 5, WritePath::Rmw).put("f", &data).unwrap();
    for seed in 2..5 {
        let store = Store::open(dir).unwrap();
        let bytes = pattern(seed, 60_000);
        store.write("f", 0, &bytes).unwrap();
        data[..60_000].copy_from_slice(&bytes);
        store.close().unwrap();
    }
    let path = oss_dir(dir, OSS);
    std::fs::rename(&path, away).unwrap();
    std::fs::create_dir(&path).unwrap();
    let mut store = Store::open(dir).unwrap();
    store.fail_oss(OSS).unwrap();
    store.rebuild(OSS, None).unwrap();
    assert!(store.failed_osses().is_empty());
    let bytes = pattern(9, 40_000);
    store.write("f", 5_000, &bytes).unwrap();
    data[5_000..45_000].copy_from_slice(&bytes);
    assert!(store.get("f").unwrap() == data);
    store.close().unwrap();
    data
}

/// The old directory at the OSS's path again (the rebuilt one moved aside).
fn put_old_directory_back(dir: &Path, away: &Path, aside: &Path) {
    let path = oss_dir(dir, OSS);
    std::fs::rename(&path, aside).unwrap();
    std::fs::rename(away, &path).unwrap();
}

#[test]
fn an_oss_directory_from_before_its_rebuild_put_back_is_refused_and_reads_stay_right() {
    for code in [CodeSpec::raid5(4), CodeSpec::raid6(3)] {
        let scratch = scratch();
        let dir = scratch.path().join("s");
        let away = scratch.path().join("old-oss-1");
        let data = rebuilt_after_its_disk_went(&dir, &away, code);
        put_old_directory_back(&dir, &away, &scratch.path().join("rebuilt-oss-1"));

        let store = Store::open(&dir).unwrap();
        let problems = store.oss_problems();
        assert_eq!(problems.len(), 1, "{code:?}: {problems:?}");
        assert_eq!(problems[0].0, OSS, "{code:?}: {problems:?}");
        assert!(
            problems[0].1.contains("from before its last rebuild"),
            "{code:?}: the message names the likely cause: {}",
            problems[0].1
        );
        assert_eq!(store.failed_osses(), vec![OSS], "{code:?}");
        assert!(
            store.get("f").unwrap() == data,
            "{code:?}: the acknowledged bytes, decoded around the old directory"
        );
        store.close().unwrap();
    }
}

/// Part b: the OSS failed again after its rebuild (a mistaken `fail`), the store written
/// meanwhile, then its old directory put at its path and `online` asked for: refused.
#[test]
fn online_refuses_an_oss_directory_from_before_its_rebuild() {
    let scratch = scratch();
    let dir = scratch.path().join("s");
    let away = scratch.path().join("old-oss-1");
    let mut data = rebuilt_after_its_disk_went(&dir, &away, CodeSpec::raid5(4));
    let store = Store::open(&dir).unwrap();
    store.fail_oss(OSS).unwrap();
    let bytes = pattern(11, 20_000);
    store.write("f", 50_000, &bytes).unwrap();
    data[50_000..70_000].copy_from_slice(&bytes);
    store.close().unwrap();
    put_old_directory_back(&dir, &away, &scratch.path().join("rebuilt-oss-1"));

    let mut store = Store::open(&dir).unwrap();
    let err = store.online_oss(OSS).unwrap_err();
    assert!(matches!(err, StoreError::BadInput(_)), "{err}");
    assert!(
        err.to_string().contains("refused, nothing changed"),
        "{err}"
    );
    assert_eq!(store.failed_osses(), vec![OSS]);
    assert!(store.get("f").unwrap() == data, "degraded reads, right");
    store.close().unwrap();
}
