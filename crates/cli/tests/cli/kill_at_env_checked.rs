//! A kill test arms a kill point by name (`EXARAID_KILL_AT=<point>:<n>`). A name the store
//! does not pass killed nothing and the run went on unkilled, so a sweep armed with a
//! misspelled or retired point (s26e's `block-page-cut`, merged into `write-page-cut` in
//! session 27) looked clean. The binary now refuses such a value before any work.

use crate::common;
use common::*;
use std::process::Command;

fn run_with_kill_at(value: &str, dir: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "init", dir, "--oss", "4", "--code", "raid5"])
        .env(exaraid_store::torture::KILL_AT_ENV, value)
        .output()
        .unwrap()
}

#[test]
fn an_unknown_kill_point_is_refused_with_exit_2_before_any_work() {
    let tmp = fast_tempdir("exaraid-kill-at-checked");
    let dir = tmp.path().join("store");
    let out = run_with_kill_at("block-page-cut:4", s(&dir));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`block-page-cut` is not a kill point"),
        "{err}"
    );
    assert!(
        err.contains("write-page-cut"),
        "names the known points: {err}"
    );
    assert!(
        !dir.exists(),
        "nothing was done: the store directory exists"
    );
}

#[test]
fn a_known_kill_point_still_kills() {
    let tmp = fast_tempdir("exaraid-kill-at-checked");
    let dir = tmp.path().join("store");
    let point = format!("{}:1", exaraid_store::torture::INIT_STEP);
    assert!(killed_at(
        &["store", "init", s(&dir), "--oss", "4", "--code", "raid5"],
        b"",
        &point
    ));
}
