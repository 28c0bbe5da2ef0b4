//! Review s12r R12-4 from the command line, with the rebuild killed -9 at each of its
//! steps and run again: an OSS's old directory from before its in-place rebuild, put back at
//! its path after the rebuild finished and the store was written (the old disk mounted
//! there again), must be refused (UNAVAILABLE, reads decode around it), never read: it holds
//! the bytes of before the rebuild under valid checksums. A rebuild killed anywhere and run
//! again must still start the new directory above the old one.

use crate::common;
use common::*;

use std::path::Path;

const CODE_ARGS: [&str; 4] = ["--oss", "5", "--code", "raid5"];

/// `bytes` written at `offset` in file `f`, and in `acked`.
fn write_at(d: &str, acked: &mut [u8], offset: usize, bytes: &[u8]) {
    let at = offset.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], bytes);
    acked[offset..offset + bytes.len()].copy_from_slice(bytes);
}

/// The R12-4 history with the rebuild killed at each `kill_at` in turn before it is run to
/// the end; returns `get f` and `status` with the old directory back at OSS 1's path.
fn old_directory_back_after(scratch: &Path, kill_at: &[&str]) -> (Vec<u8>, Vec<u8>, String) {
    let dir = scratch.join("s");
    let d = s(&dir);
    init_store(d, &CODE_ARGS);
    let mut acked = bytes(1, 100_000);
    ok(&["store", "put", d, "f"], &acked);
    for seed in 2..5 {
        write_at(d, &mut acked, 0, &bytes(seed, 60_000));
    }
    let old = scratch.join("old-oss-1");
    std::fs::rename(dir.join("oss-1"), &old).unwrap();
    ok(&["store", "fail", d, "--oss", "1"], b"");
    std::fs::create_dir(dir.join("oss-1")).unwrap();
    for point in kill_at {
        assert!(
            killed_at(&["store", "rebuild", d, "--oss", "1"], b"", point),
            "the rebuild passes {point}"
        );
    }
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    write_at(d, &mut acked, 5_000, &bytes(9, 40_000));
    assert_eq!(ok(&["store", "get", d, "f"], b""), acked);
    std::fs::rename(dir.join("oss-1"), scratch.join("rebuilt-oss-1")).unwrap();
    std::fs::rename(&old, dir.join("oss-1")).unwrap();
    let got = exaraid(&["store", "get", d, "f"], b"");
    assert!(
        got.status.success(),
        "{kill_at:?}: degraded reads succeed: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    (got.stdout, acked, status)
}

#[test]
fn an_old_directory_put_back_after_a_rebuild_killed_anywhere_and_rerun_is_refused() {
    use exaraid_store::torture::{JOURNAL_RECORD, REBUILD_BEGUN, REBUILD_ELEMENT};
    let one = |point: &str, n: u32| format!("{point}:{n}");
    // The rebuild's first records are its floor and its `RebuildBegin` (OSS 1 is failed
    // already); then the directory is emptied and recreated, then its elements written.
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec![one(JOURNAL_RECORD, 1)],
        vec![one(JOURNAL_RECORD, 2)],
        vec![one(REBUILD_BEGUN, 1)],
        vec![one(REBUILD_ELEMENT, 3)],
        vec![one(REBUILD_ELEMENT, 3), one(JOURNAL_RECORD, 1)],
    ];
    for case in cases {
        let scratch = fast_tempdir("s12v-");
        let kill_at: Vec<&str> = case.iter().map(String::as_str).collect();
        let (got, acked, status) = old_directory_back_after(scratch.path(), &kill_at);
        assert!(got == acked, "{kill_at:?}: the acknowledged bytes");
        assert!(
            status.contains("UNAVAILABLE: OSS 1: it is at generation")
                && status.contains("from before its last rebuild"),
            "{kill_at:?}: status names OSS 1's directory refused:\n{status}"
        );
    }
}
