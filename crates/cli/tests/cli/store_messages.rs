//! L2: errors name a file by the name the user gave it, never by its internal id.

use crate::common;
use common::*;

/// The reviewer's case: raid5 WCL, cached bytes rotten in two columns of one cache stripe
/// (beyond what raid5 tolerates: the loss is right), and the error said "file id 0".
#[test]
fn a_cache_stripe_beyond_repair_is_named_by_its_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5", "--write-path", "wcl"]);
    // Less than a stripe: it stays in the cache zone (WCL destages complete stripes).
    ok(&["store", "put", d, "c"], &bytes(3, 10_000));
    let cache = format!("{}.cache", u64::MAX);
    for oss in 0..2 {
        let path = dir.join(format!("oss-{oss}")).join("objects").join(&cache);
        let mut on_disk = std::fs::read(&path).unwrap();
        on_disk[100] ^= 0xff;
        std::fs::write(&path, on_disk).unwrap();
    }
    let err = fails(&["store", "get", d, "c"], b"");
    assert!(
        err.contains("file 'c' stripe 0") && !err.contains("file id"),
        "{err}"
    );
}

/// Review s5r R3: a name may hold any bytes but NUL. Plain `ls` shows a name with a newline
/// or an escape sequence escaped (one line per file, nothing for the terminal to obey);
/// `--json` keeps it exact; a refused name is not echoed whole.
#[test]
fn odd_names_list_one_line_each_and_long_names_are_not_echoed_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "3", "--code", "raid5"]);
    let odd = ["a\nb", "red\u{1b}[31m", "plain"];
    for name in odd {
        ok(&["store", "put", d, name], b"x");
    }
    let listed = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    assert_eq!(listed.lines().count(), odd.len(), "{listed}");
    assert!(!listed.contains('\u{1b}'), "{listed:?}");
    assert!(
        listed.contains("a\\nb") && listed.contains("plain"),
        "{listed}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "ls", d, "--json"], b"")).unwrap();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for name in odd {
        assert!(names.contains(&name), "{names:?}");
    }
    let long = "n".repeat(5000);
    let err = fails(&["store", "put", d, &long], b"x");
    assert!(err.contains("5000 bytes") && err.len() < 400, "{err}");
}

/// Review s6r R6-3: `init` took code parameters the code does not use (`--k` for an array
/// code, `--p` for raid5, `--m` for raid6) and an OSS capacity below one stripe unit, and made
/// a store anyway. Each is refused, naming the flag, and leaves no store behind.
#[test]
fn init_refuses_parameters_its_code_does_not_take() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let refused: [(&[&str], &str); 5] = [
        (
            &["--code", "xcode", "--p", "5", "--k", "3"],
            "--k does not apply to xcode",
        ),
        (
            &["--code", "raid5", "--p", "5"],
            "--p does not apply to raid5",
        ),
        (
            &["--code", "raid6", "--m", "3"],
            "--m does not apply to raid6",
        ),
        (
            &["--code", "rs", "--m", "2", "--p", "5"],
            "--p does not apply to rs",
        ),
        (
            &["--code", "raid5", "--oss-capacity", "1"],
            "less than one stripe unit",
        ),
    ];
    for (args, expected) in refused {
        let mut line = vec!["store", "init", d, "--oss", "6"];
        line.extend_from_slice(args);
        let err = fails(&line, b"");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?} left a store behind");
    }
    // The same codes with the parameters they take are made.
    init_store(d, &["--oss", "6", "--code", "xcode", "--p", "5"]);
}

/// Review s8r R8-3: a metadata file of another format version (another exaraid release
/// wrote it) is refused saying what to do, and nothing is changed.
#[test]
fn a_state_of_another_format_version_names_the_way_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    ok(&["store", "put", d, "f"], &bytes(1, 5_000));
    let state = dir.join("state");
    let on_disk = std::fs::read(&state).unwrap();
    let header_end = on_disk.iter().position(|&b| b == b'\n').unwrap();
    let header = String::from_utf8(on_disk[..header_end].to_vec()).unwrap();
    assert!(header.starts_with("EXARAID state v1 "), "{header}");
    // The checksum covers the body only: the header's version alone changes.
    let mut other = header.replacen(" v1 ", " v99 ", 1).into_bytes();
    other.extend_from_slice(&on_disk[header_end..]);
    std::fs::write(&state, &other).unwrap();
    let err = fails(&["store", "status", d], b"");
    assert!(
        err.contains("format version 99")
            && err.contains("use the release that wrote the store")
            && err.contains("nothing was changed"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&state).unwrap(),
        other,
        "the state was changed"
    );
}

/// Review s9r R9-4: `delayed end` with a garbled token is refused naming the token escaped
/// (a control character would reach the terminal raw) and cut to 64 characters (it may be of
/// any length), as a refused file name is; the window stays open and ends with its token.
#[test]
fn a_garbled_window_token_is_echoed_escaped_and_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", "4", "--code", "raid5", "--write-path", "delayed"],
    );
    ok(&["store", "put", d, "f"], &bytes(1, 5_000));
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.trim();
    let err = fails(&["store", "delayed", "end", d, "a\tb\x1b[31m"], b"");
    assert!(
        err.contains("no open delayed window has token 'a\\tb\\u{1b}[31m'"),
        "{err}"
    );
    assert!(!err.contains('\t') && !err.contains('\x1b'), "{err:?}");
    let long = "7".repeat(300);
    let err = fails(&["store", "delayed", "end", d, &long], b"");
    assert!(
        err.contains(&format!("token '{}... (300 bytes)'", "7".repeat(64))),
        "{err}"
    );
    assert!(!err.contains(&"7".repeat(65)), "{err}");
    ok(&["store", "delayed", "end", d, token], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), bytes(1, 5_000));
}
