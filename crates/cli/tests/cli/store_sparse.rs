//! A sparse file (a few bytes written a terabyte into it) costs what was written, not what
//! its size spans: every command runs under an address-space cap far below the file's
//! element count times the size of one extent (1 TiB / 4 KiB = 2^28 elements), and scrub
//! and rebuild visit only the written stripe (counted, not timed).

use crate::common;
use common::*;
use std::path::Path;
use std::process::Output;

/// Address space each command may use: the whole-file walks this replaces needed 25 GB for
/// the 1 TiB file (and, for the `get` below, one buffer of the file's 190 MiB).
const COMMAND_ADDRESS_SPACE_BYTES: u64 = 160 << 20;
const TIB: u64 = 1 << 40;

/// Run the CLI under the command cap, stdout into `out`.
fn capped(args: &[&str], stdin: &[u8], out: &Path) -> Output {
    capped_at(COMMAND_ADDRESS_SPACE_BYTES, args, stdin, out)
}

fn capped_ok(args: &[&str], stdin: &[u8], out: &Path) -> Vec<u8> {
    capped_ok_at(COMMAND_ADDRESS_SPACE_BYTES, args, stdin, out)
}

fn ten_bytes_a_terabyte_in(write_path: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let out = tmp.path().join("stdout");
    let o = &out;
    init_store(
        d,
        &["--oss", "4", "--code", "raid5", "--write-path", write_path],
    );
    let at = TIB.to_string();
    let token = if write_path == "delayed" {
        // The bytes stay in the cache zone, unprotected, across the commands below.
        let t = capped_ok(&["store", "delayed", "start", d, "f"], b"", o);
        Some(String::from_utf8(t).unwrap().trim().to_string())
    } else {
        None
    };
    capped_ok(
        &["store", "write", d, "f", "--offset", &at],
        b"0123456789",
        o,
    );
    let ls = capped_ok(&["store", "ls", d, "--json"], b"", o);
    let ls: serde_json::Value = serde_json::from_slice(&ls).unwrap();
    assert_eq!(ls[0]["size_bytes"], TIB + 10);
    capped_ok(&["store", "status", d, "--json"], b"", o);
    let read = &["store", "read", d, "f", "--offset", &at, "--length", "10"];
    assert_eq!(capped_ok(read, b"", o), b"0123456789");
    // One read returns one buffer: past the limit it is refused, not attempted.
    let huge = &[
        "store",
        "read",
        d,
        "f",
        "--offset",
        "0",
        "--length",
        "8589934592",
    ];
    let refused = capped(huge, b"", o);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        refused.status.code() == Some(1) && err.contains("larger than the limit of 4294967296"),
        "{}: {err}",
        refused.status
    );
    let scrub = capped_ok(&["store", "scrub", d, "--json"], b"", o);
    let scrub: serde_json::Value = serde_json::from_slice(&scrub).unwrap();
    assert_eq!(
        scrub["stripes_checked"], 1,
        "only the written stripe: {scrub}"
    );
    if let Some(token) = &token {
        capped_ok(&["store", "delayed", "end", d, token], b"", o);
    }
    capped_ok(&["store", "fail", d, "--oss", "1"], b"", o);
    capped_ok(&["store", "rebuild", d, "--oss", "1"], b"", o);
    assert_eq!(capped_ok(read, b"", o), b"0123456789");
    // Next to it, a file whose `get` is legitimately longer than the cap: it streams.
    let mid = (190u64 << 20).to_string();
    capped_ok(&["store", "write", d, "g", "--offset", &mid], b"abc", o);
    let got = capped_ok(&["store", "get", d, "g"], b"", o);
    assert_eq!(got.len() as u64, (190 << 20) + 3);
    assert!(got[..190 << 20].iter().all(|&b| b == 0));
    assert_eq!(&got[190 << 20..], b"abc");
    drop(got);
    capped_ok(&["store", "rm", d, "f"], b"", o);
    capped_ok(&["store", "rm", d, "g"], b"", o);
    assert_eq!(capped_ok(&["store", "ls", d], b"", o), b"");
}

#[test]
fn a_sparse_terabyte_file_on_rmw_costs_one_stripe() {
    ten_bytes_a_terabyte_in("rmw");
}

#[test]
fn a_sparse_terabyte_file_on_wcl_costs_one_stripe() {
    ten_bytes_a_terabyte_in("wcl");
}

#[test]
fn a_sparse_terabyte_file_in_an_open_delayed_window_costs_one_stripe() {
    ten_bytes_a_terabyte_in("delayed");
}
