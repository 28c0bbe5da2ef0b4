//! A store with many files under a small open-file limit (review s11r R11-7): commands that
//! visit every file (`scrub`, `flush`, `rebuild`) used to keep every zone file they touched
//! open, ran out of descriptors (EMFILE) and, near the limit, recorded healthy OSSs failed.
//! The OSSs now keep a bounded set of files open, and running out of descriptors is never
//! taken for a disk failure.

use crate::common;
use common::*;

use std::process::{Command, Output, Stdio};

/// Run the CLI with at most `nofile` open files (`prlimit --nofile`, soft and hard).
fn with_open_files_limit(nofile: u64, args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg(format!("--nofile={nofile}"))
        .arg(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("prlimit (util-linux) runs the CLI under an open-file limit")
}

fn ok_limited(nofile: u64, args: &[&str]) -> Vec<u8> {
    let out = with_open_files_limit(nofile, args);
    assert!(
        out.status.success(),
        "exaraid {args:?} under `ulimit -n {nofile}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Far fewer than files x OSSs x zones (6 x 48 x 2 = 576), more than the process needs
/// besides its zone files (its journal, lock, extents logs, stdio).
const OPEN_FILES_LIMIT: u64 = 64;
const FILES: usize = 48;

fn healthy_osses(d: &str) -> Vec<bool> {
    let status: serde_json::Value = serde_json::from_str(
        &String::from_utf8(ok(&["store", "status", d, "--json"], b"")).unwrap(),
    )
    .unwrap();
    status["oss"]
        .as_array()
        .expect("status lists the OSSs")
        .iter()
        .map(|o| {
            o["healthy"]
                .as_bool()
                .expect("each OSS says if it is healthy")
        })
        .collect()
}

#[test]
fn scrub_flush_and_rebuild_of_many_files_work_under_a_small_open_file_limit() {
    let tmp = fast_tempdir("s11i-nofile");
    let d = tmp.path().join("s");
    let d = s(&d);
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "wcl"]);
    let mut expect = Vec::new();
    for i in 0..FILES {
        let name = format!("f{i}");
        let mut content = bytes(i as u8, 9_000);
        ok(&["store", "put", d, &name], &content);
        // A cached partial write per file: `flush` then has every file's cache to move home.
        let patch = bytes(100 + i as u8, 3_000);
        ok(&["store", "write", d, &name, "--offset", "100"], &patch);
        put_over(&mut content, 100, &patch);
        expect.push((name, content));
    }
    for args in [
        vec!["store", "scrub", d],
        vec!["store", "flush", d],
        vec!["store", "scrub", d],
    ] {
        ok_limited(OPEN_FILES_LIMIT, &args);
        assert!(
            healthy_osses(d).iter().all(|&h| h),
            "{args:?} recorded no OSS failed"
        );
    }
    ok(&["store", "fail", d, "--oss", "2"], b"");
    ok_limited(OPEN_FILES_LIMIT, &["store", "rebuild", d, "--oss", "2"]);
    assert!(healthy_osses(d).iter().all(|&h| h), "OSS 2 is back");
    ok_limited(OPEN_FILES_LIMIT, &["store", "scrub", d]);
    for (name, content) in &expect {
        assert!(
            ok_limited(OPEN_FILES_LIMIT, &["store", "get", d, name]) == *content,
            "{name} reads back as written"
        );
    }
}
