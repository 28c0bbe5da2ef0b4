//! File names with control characters are printed escaped, as `ls` prints them, by `status`,
//! `fail`, `scrub` and `get` too (review s11r R11-1): a newline in a name forged a line
//! ("LOST: ...", "open window ...") of the output scripts parse, and an ESC sequence went raw
//! to the terminal.

use crate::common;
use common::*;

/// Every line of `text` that names the file shows it escaped, and no raw control character
/// other than the line ends is left.
fn check_escaped(what: &str, text: &str) {
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what}: no raw control character: {text:?}"
    );
    for line in text.lines().filter(|l| l.contains("RED")) {
        assert!(
            line.contains(r"x\ny\u{1b}[31mRED"),
            "{what}: the name is escaped on its line: {line:?}"
        );
    }
    assert!(
        !text.lines().any(|l| l.starts_with("y")),
        "{what}: no line starts inside the name: {text:?}"
    );
}

#[test]
fn status_fail_scrub_and_get_escape_control_characters_in_file_names() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("s");
    let d = s(&d);
    init_store(
        d,
        &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
    );
    let name = "x\ny\u{1b}[31mRED";
    ok(&["store", "delayed", "start", d, name], b"");
    ok(
        &["store", "write", d, name, "--offset", "0"],
        &bytes(1, 30_000),
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(status.contains("open window"), "{status}");
    check_escaped("status with the window open", &status);
    let failed = String::from_utf8(ok(&["store", "fail", d, "--oss", "1"], b"")).unwrap();
    assert!(
        failed.contains("LOST: "),
        "the failure loses window bytes: {failed}"
    );
    check_escaped("fail", &failed);
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(status.contains("LOST: "), "{status}");
    check_escaped("status", &status);
    let out = exaraid(&["store", "get", d, name], b"");
    assert!(!out.status.success(), "a get of lost bytes fails");
    check_escaped("get", &String::from_utf8(out.stderr).unwrap());
    let out = exaraid(&["store", "scrub", d], b"");
    let scrub = String::from_utf8(out.stdout).unwrap();
    assert!(scrub.contains("LOST: "), "{scrub}");
    check_escaped("scrub", &scrub);
}
