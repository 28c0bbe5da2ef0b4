//! Session 22 (s22e): errors and messages left open after session 21 (docs/store.md Limits,
//! "OPEN after session 21", Errors):
//! - a rerun of a finished `rebuild --to NEWDIR` exits 0 saying there is nothing to do (it
//!   exited 1, "OSS is healthy", and a script retrying until exit 0 took the finished
//!   rebuild for failed); another NEWDIR is still refused, and a rebuild killed part way is
//!   still finished by the rerun;
//! - `rebuild --to` of an OSS whose window bytes lost with its cache zone are more than it
//!   takes back (`RESTORE_BYTES_MAX`, 8 MiB) names those bytes and says why they stay lost
//!   (it gave only their count).

use crate::common;
use common::*;

use std::path::Path;

/// `status --json`'s lost ranges: `(file, offset_bytes, len_bytes)`.
fn lost(d: &str) -> Vec<(String, u64, u64)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["offset_bytes"].as_u64().unwrap(),
                l["len_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn failed_on_record(d: &str) -> Vec<u64> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    let oss = status["oss"].as_array().unwrap().iter();
    oss.filter(|o| o["failed_on_record"].as_bool().unwrap())
        .map(|o| o["index"].as_u64().unwrap())
        .collect()
}

/// raid6 over 6 OSSs holding `f` (returned), OSS 2 failed.
fn oss_2_failed(dir: &Path) -> Vec<u8> {
    let d = s(dir);
    init_store(d, &["--oss", "6", "--code", "raid6"]);
    let f = bytes(1, 50_000);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "fail", d, "--oss", "2"], b"");
    f
}

#[test]
fn a_rerun_of_a_finished_rebuild_to_newdir_exits_0_saying_there_is_nothing_to_do() {
    let tmp = fast_tempdir("s22e-rebuild-rerun");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let f = oss_2_failed(&dir);
    let new = tmp.path().join("new-2");
    let rebuild = ["store", "rebuild", d, "--oss", "2", "--to", s(&new)];
    let first = String::from_utf8(ok(&rebuild, b"")).unwrap();
    assert!(first.contains("OSS 2 rebuilt"), "{first}");

    let again = exaraid(&rebuild, b"");
    let (out, err) = (
        String::from_utf8_lossy(&again.stdout),
        String::from_utf8_lossy(&again.stderr),
    );
    assert!(
        again.status.success(),
        "a rerun of the finished rebuild succeeds: {err}"
    );
    assert!(
        out.contains("nothing to do") && out.contains(s(&new)),
        "it says there was nothing to do, and where the OSS is: {out}"
    );
    // The same directory named another way (a trailing `/.`) is the same directory.
    let dotted = format!("{}/.", s(&new));
    let out = ok(&["store", "rebuild", d, "--oss", "2", "--to", &dotted], b"");
    assert!(String::from_utf8_lossy(&out).contains("nothing to do"));

    // Another directory is no rerun: refused, as a rebuild of a healthy OSS.
    let other = tmp.path().join("other-2");
    let err = fails(
        &["store", "rebuild", d, "--oss", "2", "--to", s(&other)],
        b"",
    );
    assert!(err.contains("healthy"), "another NEWDIR is refused: {err}");
    assert!(!other.join("objects").exists(), "nothing written there");
    assert_eq!(failed_on_record(d), [] as [u64; 0]);
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    ok(&["store", "scrub", d], b"");
}

#[test]
fn a_rerun_of_a_rebuild_to_newdir_killed_part_way_finishes_it_and_says_rebuilt() {
    for point in ["rebuild-element:1", "rebuild-switched:1"] {
        let tmp = fast_tempdir("s22e-rebuild-killed");
        let dir = tmp.path().join("D");
        let d = s(&dir);
        let f = oss_2_failed(&dir);
        let new = tmp.path().join("new-2");
        let rebuild = ["store", "rebuild", d, "--oss", "2", "--to", s(&new)];
        assert!(
            killed_at(&rebuild, b"", point),
            "the rebuild finished before {point}"
        );
        assert_eq!(failed_on_record(d), [2], "{point}: still failed");
        let out = String::from_utf8(ok(&rebuild, b"")).unwrap();
        assert!(
            out.contains("OSS 2 rebuilt") && !out.contains("nothing to do"),
            "{point}: the rerun did the rest: {out}"
        );
        assert_eq!(failed_on_record(d), [] as [u64; 0], "{point}");
        assert!(ok(&["store", "get", d, "f"], b"") == f, "{point}");
        ok(&["store", "scrub", d], b"");
    }
}

/// The take-back bound of `online` and `rebuild --to` (`RESTORE_BYTES_MAX` in
/// crates/store/src/store/repair.rs).
const RESTORE_BYTES_MAX: u64 = 8 << 20;

#[test]
fn a_rebuild_to_past_the_take_back_bound_names_the_window_bytes_it_leaves_lost_and_why() {
    let tmp = fast_tempdir("s22e-restore-bound");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    // raid5 over 3 OSSs, 1 MiB units: a third of a window's bytes is cached on each OSS.
    init_store_unit(
        d,
        1 << 20,
        &["--oss", "3", "--code", "raid5", "--write-path", "delayed"],
    );
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let window = bytes(7, 30 << 20);
    ok(&["store", "write", d, "f", "--offset", "0"], &window);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let on_record = lost(d);
    let lost_bytes: u64 = on_record.iter().map(|(_, _, n)| n).sum();
    assert!(
        lost_bytes > RESTORE_BYTES_MAX,
        "the scene: more window bytes lost with OSS 0 than a rebuild takes back ({lost_bytes})"
    );

    let new = tmp.path().join("new-0");
    let out = exaraid(&["store", "rebuild", d, "--oss", "0", "--to", s(&new)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    // Exit 2 since s25d: rebuilt, but acknowledged bytes are lost for good (it exited 0, and
    // a script read success; s25d_take_back_bound_advice.rs).
    assert_eq!(
        out.status.code(),
        Some(2),
        "the rebuild itself goes on, and says bytes are lost: {err}"
    );
    assert!(
        err.contains("made final the loss") && err.contains(&RESTORE_BYTES_MAX.to_string()),
        "it says the bytes were not taken back, and why (the bound): {err}"
    );
    // Which bytes: the first ranges one by one (the warning's bound on names), the count.
    for (file, at, len) in on_record.iter().take(4) {
        let range = format!("'{file}' bytes {at}..{}", at + len);
        assert!(err.contains(&range), "the warning names {range}: {err}");
    }
    assert!(
        err.contains(&format!("{lost_bytes} bytes")),
        "and how many: {err}"
    );
    assert_eq!(lost(d), on_record, "they stay lost, on record");
    fails(&["store", "delayed", "end", d, token.trim()], b"");
}
