//! Review s12r (small notes): a zone file replaced by a directory outside exaraid
//! (`objects/0.data` a directory) failed `get` and `scrub` with a bare "Is a directory (os
//! error 21)", where raid5 reads around one OSS. Specification: whatever is in a zone
//! file's place that is not a regular file holds none of its elements: they read as
//! missing, decoded around within the code's tolerance, a clear error beyond it (never a
//! bare errno), once it is moved aside `scrub --repair` writes them again, and `rm` of the
//! file finishes (a directory there failed every later open).

use crate::common;
use common::*;
use std::path::{Path, PathBuf};

const BARE_EISDIR: &str = "Is a directory (os error";

/// The zone files of object 0 (the first file) on OSS `oss`.
fn data_zone(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}"))
        .join("objects")
        .join("0.data")
}

/// A directory in place of the zone file at `path` (with something in it, as a mistaken
/// copy would leave); the file is kept beside it for the test to put back.
fn replace_with_directory(path: &Path) -> PathBuf {
    let kept = path.with_extension("kept");
    std::fs::rename(path, &kept).unwrap();
    std::fs::create_dir(path).unwrap();
    std::fs::write(path.join("x"), b"not a zone file").unwrap();
    kept
}

#[test]
fn a_zone_file_replaced_by_a_directory_reads_around_it() {
    let tmp = fast_tempdir("zone-not-a-file");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let f = bytes(1, 100_000);
    ok(&["store", "put", d, "f"], &f);

    let one = data_zone(&dir, 1);
    let kept_one = replace_with_directory(&one);
    assert!(
        ok(&["store", "get", d, "f"], b"") == f,
        "raid5 decodes around one OSS's missing elements"
    );
    let scrub = exaraid(&["store", "scrub", d], b"");
    let said = String::from_utf8_lossy(&scrub.stdout).to_string()
        + &String::from_utf8_lossy(&scrub.stderr);
    assert!(
        scrub.status.code() == Some(2)
            && !said.contains(BARE_EISDIR)
            && said.contains("corrupt: OSS 1 file 'f' stripe 0"),
        "scrub names OSS 1's elements, as for a deleted zone file, no bare errno: {said}"
    );

    // Two OSSs on raid5: beyond its tolerance, a clear error and no bytes.
    let two = data_zone(&dir, 2);
    let kept_two = replace_with_directory(&two);
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        !err.contains(BARE_EISDIR) && err.contains("lost"),
        "beyond the tolerance: a named loss, no bare errno: {err}"
    );

    // A repair while the directory is still there says what to do.
    let repair = exaraid(&["store", "scrub", d, "--repair"], b"");
    let said = String::from_utf8_lossy(&repair.stdout).to_string()
        + &String::from_utf8_lossy(&repair.stderr);
    assert!(
        !said.contains(BARE_EISDIR),
        "a repair into a directory names it and what to do: {said}"
    );

    // The directories moved aside (one file back, one lost for good): the repair writes
    // the missing elements again and every byte reads back.
    std::fs::remove_dir_all(&two).unwrap();
    std::fs::rename(&kept_two, &two).unwrap();
    std::fs::remove_dir_all(&one).unwrap();
    std::fs::remove_file(&kept_one).unwrap();
    ok(&["store", "scrub", d, "--repair"], b"");
    ok(&["store", "scrub", d], b"");
    assert!(ok(&["store", "get", d, "f"], b"") == f);

    // `rm` of the file with a directory in a zone file's place: the removal finishes (the
    // directory, not exaraid's, stays), and every later command runs.
    let kept = replace_with_directory(&one);
    std::fs::remove_file(kept).unwrap();
    ok(&["store", "rm", d, "f"], b"");
    ok(&["store", "status", d], b"");
    let listed = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    assert!(listed.trim().is_empty(), "f is removed: {listed}");
}
