//! The `exaraid store` command line on a fresh store: every command, its JSON, its errors.

use crate::common;
use common::*;

#[test]
fn a_user_session_init_put_get_write_read_ls_rm_status() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "5",
            "--code",
            "raid6",
            "--stripe-unit",
            "4096",
            "--write-path",
            "wcl",
        ],
        b"",
    );
    let data = bytes(1, 100_000);
    ok(&["store", "put", d, "big"], &data);
    assert_eq!(ok(&["store", "get", d, "big"], b""), data);
    ok(
        &["store", "write", d, "big", "--offset", "99000"],
        &bytes(2, 3000),
    );
    let mut want = data.clone();
    want.truncate(99_000);
    want.extend(bytes(2, 3000));
    assert_eq!(
        ok(
            &["store", "read", d, "big", "--offset", "98000", "--length", "4000"],
            b""
        ),
        &want[98_000..102_000]
    );
    ok(&["store", "put", d, "small"], b"hello");
    let ls: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "ls", d, "--json"], b"")).unwrap();
    assert_eq!(ls.as_array().unwrap().len(), 2);
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    let oss = status["oss"].as_array().unwrap();
    assert_eq!(oss.len(), 5);
    for (i, o) in oss.iter().enumerate() {
        assert_eq!(o["index"], i);
        assert!(o["path"].is_string());
        assert_eq!(o["healthy"], true);
        for k in [
            "data_read",
            "data_write",
            "parity_read",
            "parity_write",
            "cache_read",
            "cache_write",
        ] {
            assert!(o["ops"][k].is_u64(), "ops.{k}");
        }
        // The plan steps' six keys above; the reads outside the plans beside them, never
        // in them (session 51: `UnplannedReads`).
        assert_eq!(o["ops"].as_object().unwrap().len(), 6, "ops: {o}");
        let unplanned = o["unplanned"].as_object().expect("unplanned beside ops");
        let keys: Vec<&str> = unplanned.keys().map(|k| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "edge_check_read",
                "page_cut_read",
                "window_old_read",
                "witness_piece_read"
            ],
            "unplanned: {o}"
        );
        assert!(unplanned.values().all(|v| v.is_u64()), "unplanned: {o}");
    }
    assert!(
        oss.iter()
            .map(|o| o["ops"]["cache_write"].as_u64().unwrap())
            .sum::<u64>()
            > 0,
        "wcl wrote its cache zone"
    );
    assert!(status["bytes_waiting_parity"].is_u64());
    assert!(status["bytes_unprotected"].is_u64());
    assert!(status["open_windows"].is_array());
    ok(&["store", "rm", d, "small"], b"");
    assert!(fails(&["store", "get", d, "small"], b"").contains("no file named 'small'"));
    let text = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(text.contains("bytes waiting for parity"));
}

#[test]
fn fail_degraded_read_rebuild_and_scrub_repair_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "4",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    let data = bytes(3, 60_000);
    ok(&["store", "put", d, "f"], &data);
    ok(&["store", "fail", d, "--oss", "2"], b"");
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert_eq!(status["oss"][2]["healthy"], false);
    assert_eq!(ok(&["store", "get", d, "f"], b""), data, "degraded read");
    let new_dir = tmp.path().join("new-oss");
    ok(
        &["store", "rebuild", d, "--oss", "2", "--to", s(&new_dir)],
        b"",
    );
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert_eq!(status["oss"][2]["healthy"], true);
    assert!(status["oss"][2]["path"]
        .as_str()
        .unwrap()
        .contains("new-oss"));
    // Flip a bit in a data file of OSS 0: scrub finds it (exit 2), --repair fixes it.
    let obj = dir.join("oss-0/objects/0.data");
    let mut b = std::fs::read(&obj).unwrap();
    b[100] ^= 4;
    std::fs::write(&obj, b).unwrap();
    let out = exaraid(&["store", "scrub", d, "--json"], b"");
    assert_eq!(
        out.status.code(),
        Some(2),
        "scrub without --repair reports damage with exit code 2"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["corrupt_elements"].as_array().unwrap().len(), 1);
    let report: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "scrub", d, "--repair", "--json"], b"")).unwrap();
    assert_eq!(report["repaired_elements"], 1);
    let report: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "scrub", d, "--json"], b"")).unwrap();
    assert!(report["corrupt_elements"].as_array().unwrap().is_empty());
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);
}

#[test]
fn a_delayed_window_spans_several_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "4",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
            "--write-path",
            "delayed",
        ],
        b"",
    );
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "ckpt"], b""))
        .unwrap()
        .trim()
        .to_string();
    ok(
        &["store", "write", d, "ckpt", "--offset", "0"],
        &bytes(4, 20_000),
    );
    ok(
        &["store", "write", d, "ckpt", "--offset", "20000"],
        &bytes(5, 20_000),
    );
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert_eq!(status["open_windows"].as_array().unwrap().len(), 1);
    assert_eq!(status["open_windows"][0]["token"], token.as_str());
    assert_eq!(status["bytes_unprotected"], 40_000);
    let err = fails(&["store", "delayed", "start", d, "ckpt"], b"");
    assert!(err.contains("already has an open delayed window"), "{err}");
    // put and rm would drop the window under its writer: refused, naming the END to run.
    for cmd in [
        &["store", "put", d, "ckpt"][..],
        &["store", "rm", d, "ckpt"][..],
    ] {
        let err = fails(cmd, b"new content");
        let end = format!("exaraid store delayed end {d} {token}");
        assert!(
            err.contains("refused, nothing changed") && err.contains(&end),
            "{err}"
        );
    }
    ok(&["store", "delayed", "end", d, &token], b"");
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert_eq!(status["bytes_unprotected"], 0);
    assert!(status["open_windows"].as_array().unwrap().is_empty());
    let err = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(err.contains("no open delayed window"), "{err}");
    let mut want = bytes(4, 20_000);
    want.extend(bytes(5, 20_000));
    assert_eq!(ok(&["store", "get", d, "ckpt"], b""), want);
    ok(&["store", "scrub", d], b"");
}

#[test]
fn bad_command_lines_get_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("nothing");
    assert!(fails(&["store", "ls", s(&d)], b"").contains("does not exist"));
    let dir = tmp.path().join("store");
    let err = fails(
        &["store", "init", s(&dir), "--oss", "4", "--code", "raid7"],
        b"",
    );
    assert!(err.contains("unknown code 'raid7'"), "{err}");
    let err = fails(
        &["store", "init", s(&dir), "--oss", "4", "--code", "dcode"],
        b"",
    );
    assert!(err.contains("--p"), "{err}");
    let err = fails(
        &[
            "store",
            "init",
            s(&dir),
            "--oss",
            "4",
            "--code",
            "raid5",
            "--write-path",
            "fast",
        ],
        b"",
    );
    assert!(err.contains("unknown write path 'fast'"), "{err}");
    ok(
        &[
            "store",
            "init",
            s(&dir),
            "--oss",
            "4",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
        ],
        b"",
    );
    let err = fails(
        &[
            "store",
            "read",
            s(&dir),
            "none",
            "--offset",
            "0",
            "--length",
            "1",
        ],
        b"",
    );
    assert!(err.contains("no file named"), "{err}");
    let err = fails(&["store", "fail", s(&dir), "--oss", "9"], b"");
    assert!(err.contains("OSS 9 does not exist"), "{err}");
    std::fs::write(
        dir.join("superblock"),
        b"EXARAID superblock v1 len=3 crc32c=00000000\n{}\n",
    )
    .unwrap();
    let err = fails(&["store", "ls", s(&dir)], b"");
    assert!(err.contains("damaged"), "{err}");
}

/// The reviewer's scenario: a zone file deleted (or truncated) behind the store's back must
/// not read as zeros; scrub reports it (exit 2) and --repair rebuilds the data from parity,
/// so the data survives even when the parity is lost afterwards.
#[test]
fn a_deleted_zone_file_is_rebuilt_from_parity_from_the_command_line() {
    for damage in ["rm", "truncate"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("store");
        let d = s(&dir);
        ok(
            &[
                "store",
                "init",
                d,
                "--oss",
                "4",
                "--code",
                "raid5",
                "--stripe-unit",
                "4096",
            ],
            b"",
        );
        let data = bytes(5, 60_000);
        ok(&["store", "put", d, "f"], &data);
        let obj = dir.join("oss-2/objects/0.data");
        match damage {
            "rm" => std::fs::remove_file(&obj).unwrap(),
            _ => {
                let f = std::fs::OpenOptions::new().write(true).open(&obj).unwrap();
                let len = f.metadata().unwrap().len();
                f.set_len(len / 2).unwrap();
            }
        }
        assert!(
            ok(&["store", "get", d, "f"], b"") == data,
            "{damage}: read rebuilds from parity, not zeros"
        );
        let out = exaraid(&["store", "scrub", d, "--json"], b"");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{damage}: scrub reports the lost elements"
        );
        let report: serde_json::Value =
            serde_json::from_slice(&ok(&["store", "scrub", d, "--repair", "--json"], b"")).unwrap();
        assert!(
            report["repaired_elements"].as_u64().unwrap() > 0,
            "{damage}: {report}"
        );
        assert!(
            report["parity_mismatches"].as_array().unwrap().is_empty(),
            "{damage}: parity is not recomputed over zeros"
        );
        // The data itself is back, not parity over zeros: delete every parity file and read.
        for oss in 0..4 {
            let _ = std::fs::remove_file(dir.join(format!("oss-{oss}/objects/0.parity")));
        }
        assert!(
            ok(&["store", "get", d, "f"], b"") == data,
            "{damage}: the repaired data holds the bytes"
        );
    }
}

/// `put` over an existing file on a full OSS is refused and leaves the old content.
#[test]
fn a_refused_put_on_a_full_oss_keeps_the_old_file_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "4",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
            "--oss-capacity",
            "262144",
        ],
        b"",
    );
    let old = bytes(6, 100_000);
    ok(&["store", "put", d, "f"], &old);
    let err = fails(&["store", "put", d, "f"], &bytes(7, 2_000_000));
    assert!(err.contains("full"), "{err}");
    assert!(
        ok(&["store", "get", d, "f"], b"") == old,
        "the old content is intact"
    );
    let ls: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "ls", d, "--json"], b"")).unwrap();
    assert_eq!(ls.as_array().unwrap().len(), 1, "{ls}");
}
