//! OSS directories given or found in bad places: review E5 (a rebuild target inside another
//! OSS's directory, later deleted with it), E9 (an OSS whose objects/ directory vanished).

use crate::common;
use common::*;

fn raid5_store(d: &str) -> Vec<u8> {
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let data = bytes(7, 200_000);
    ok(&["store", "put", d, "t"], &data);
    data
}

/// E5: `rebuild --to` inside (or around) another OSS directory, or around the store
/// directory, is refused naming both, and changes nothing.
#[test]
fn a_rebuild_target_inside_another_oss_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let data = raid5_store(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let inside = dir.join("oss-2/objects/sub");
    let err = fails(
        &["store", "rebuild", d, "--oss", "1", "--to", s(&inside)],
        b"",
    );
    assert!(
        err.contains("refused, nothing changed") && err.contains("oss-2") && err.contains("OSS 2"),
        "{err}"
    );
    assert!(!inside.exists());
    let err = fails(
        &["store", "rebuild", d, "--oss", "1", "--to", s(tmp.path())],
        b"",
    );
    assert!(err.contains("refused, nothing changed"), "{err}");
    let err = fails(&["store", "rebuild", d, "--oss", "9"], b"");
    assert!(err.contains("OSSs 0 to 3"), "{err}");
    // A directory of its own inside the store directory is fine.
    ok(
        &[
            "store",
            "rebuild",
            d,
            "--oss",
            "1",
            "--to",
            s(&dir.join("oss-1b")),
        ],
        b"",
    );
    assert!(ok(&["store", "get", d, "t"], b"") == data);
    ok(&["store", "scrub", d], b"");
}

/// E5: an in-place rebuild empties only what exaraid wrote in the OSS directory.
#[test]
fn an_in_place_rebuild_removes_only_what_exaraid_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let data = raid5_store(d);
    let foreign = dir.join("oss-2/objects/not-exaraid");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("keep"), b"mine").unwrap();
    ok(&["store", "fail", d, "--oss", "2"], b"");
    ok(&["store", "rebuild", d, "--oss", "2"], b"");
    assert_eq!(std::fs::read(foreign.join("keep")).unwrap(), b"mine");
    assert!(ok(&["store", "get", d, "t"], b"") == data);
    ok(&["store", "scrub", d], b"");
}

/// E5: `init --oss-dirs` with one directory inside another, or around the store directory.
#[test]
fn init_refuses_nested_oss_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let a = tmp.path().join("a");
    let nested = a.join("objects/b");
    let others: Vec<String> = (0..2)
        .map(|i| s(&tmp.path().join(format!("o{i}"))).to_string())
        .collect();
    let dirs = [s(&a), s(&nested), &others[0], &others[1]].join(",");
    let err = fails(
        &["store", "init", d, "--code", "raid5", "--oss-dirs", &dirs],
        b"",
    );
    assert!(
        err.contains(s(&a)) && err.contains(s(&nested)) && err.contains("inside"),
        "{err}"
    );
    assert!(!dir.join("superblock").exists());
    // An OSS directory around the store directory (the store inside `s`, an OSS at `s`).
    let inner = dir.join("store");
    let dirs = [d, s(&a), &others[0], &others[1]].join(",");
    let err = fails(
        &[
            "store",
            "init",
            s(&inner),
            "--code",
            "raid5",
            "--oss-dirs",
            &dirs,
        ],
        b"",
    );
    assert!(err.contains("store directory"), "{err}");
}

/// E9: an OSS whose objects/ directory vanished is UNAVAILABLE in status with the reason;
/// writes go on degraded and `rebuild` of it (which the messages name) restores it.
#[test]
fn an_oss_whose_objects_directory_vanished_is_unavailable_until_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let mut data = raid5_store(d);
    std::fs::remove_dir_all(dir.join("oss-1/objects")).unwrap();
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        status.contains("UNAVAILABLE: OSS 1") && status.contains("objects directory"),
        "{status}"
    );
    assert!(status.contains("rebuild"), "{status}");
    assert!(ok(&["store", "get", d, "t"], b"") == data);
    let w = bytes(8, 5000);
    ok(&["store", "write", d, "t", "--offset", "100000"], &w);
    data[100_000..105_000].copy_from_slice(&w);
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("UNAVAILABLE"), "{status}");
    assert!(ok(&["store", "get", d, "t"], b"") == data);
    ok(&["store", "scrub", d], b"");
}

/// `rebuild --to FILE` (a file, or a path inside one, where a directory is wanted) is
/// refused naming the file and what --to wants, not with a bare "Not a directory (os error
/// 20)"; nothing changes: the file keeps its bytes, the OSS stays failed, and a rebuild to
/// a directory then works.
#[test]
fn a_rebuild_target_that_is_a_file_is_refused_saying_what_to_give() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let data = raid5_store(d);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    let file = tmp.path().join("not-a-dir");
    std::fs::write(&file, b"a file of the user's").unwrap();
    let err = fails(
        &["store", "rebuild", d, "--oss", "1", "--to", s(&file)],
        b"",
    );
    assert!(
        err.contains("refused, nothing changed")
            && err.contains(&format!("{} is a file, not a directory", file.display()))
            && err.contains("rebuild in place without one"),
        "{err}"
    );
    let below = file.join("oss-1");
    let err = fails(
        &["store", "rebuild", d, "--oss", "1", "--to", s(&below)],
        b"",
    );
    assert!(
        err.contains(&format!("is inside {}, which is a file", file.display())),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"a file of the user's");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(status.contains("FAILED"), "{status}");
    ok(
        &[
            "store",
            "rebuild",
            d,
            "--oss",
            "1",
            "--to",
            s(&tmp.path().join("new")),
        ],
        b"",
    );
    assert!(ok(&["store", "get", d, "t"], b"") == data);
}
