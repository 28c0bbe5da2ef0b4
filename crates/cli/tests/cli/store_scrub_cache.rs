//! `exaraid store scrub` covers the cache zone: a flipped bit in bytes that live only in an
//! OSS's cache zone is reported (exit 2) with the OSS, cache slot and file range; `--repair`
//! rebuilds a WCL cache element from its cache stripe; bytes of an open delayed window have
//! no parity and stay reported as unrepairable (exit 2), naming file and byte range.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const UNIT: usize = 4096;
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

fn cache_file(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}/objects/{}.cache", u64::MAX))
}

/// The OSS whose cache slot 0 starts with `head` (the cache chunk holding file offset 0).
fn oss_caching(dir: &Path, oss_count: usize, head: &[u8]) -> usize {
    (0..oss_count)
        .find(|&o| {
            std::fs::read(cache_file(dir, o))
                .map(|b| b.len() >= head.len() && &b[..head.len()] == head)
                .unwrap_or(false)
        })
        .expect("some OSS caches the file's first bytes")
}

fn flip(dir: &Path, oss: usize, byte: usize) {
    let path = cache_file(dir, oss);
    let mut b = std::fs::read(&path).unwrap();
    assert!(byte < UNIT && b.len() >= SLOT_BYTES);
    b[byte] ^= 0x40;
    std::fs::write(&path, b).unwrap();
}

fn init(dir: &Path, path: &str) {
    let d = dir.to_str().unwrap();
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
            path,
        ],
        b"",
    );
}

#[test]
fn scrub_reports_and_repairs_a_flipped_bit_in_the_wcl_cache_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = dir.to_str().unwrap();
    init(&dir, "wcl");
    let data = bytes(7, 5000);
    ok(&["store", "write", d, "f", "--offset", "0"], &data);
    let oss = oss_caching(&dir, 4, &data[..64]);
    flip(&dir, oss, 100);

    let out = exaraid(&["store", "scrub", d, "--json"], b"");
    assert_eq!(out.status.code(), Some(2), "damage found: exit 2");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = report["corrupt_cache_elements"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["oss"], oss);
    assert_eq!(found[0]["cache_slot"], 0);
    assert_eq!(found[0]["file"], "f");
    assert_eq!(found[0]["file_ranges"], serde_json::json!([[0, 4096]]));
    assert_eq!(found[0]["repaired"], false);

    let out = exaraid(&["store", "scrub", d], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("corrupt cache: OSS {oss} cache slot 0"))
            && text.contains("file 'f'")
            && text.contains("bytes [0..4096]"),
        "{text}"
    );

    let report: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "scrub", d, "--repair", "--json"], b"")).unwrap();
    assert_eq!(report["corrupt_cache_elements"][0]["repaired"], true);
    assert_eq!(report["repaired_elements"], 1);
    ok(&["store", "scrub", d], b"");
    assert_eq!(ok(&["store", "get", d, "f"], b""), data);
}

#[test]
fn scrub_names_corrupt_bytes_of_an_open_delayed_window_as_unrepairable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = dir.to_str().unwrap();
    init(&dir, "delayed");
    ok(&["store", "delayed", "start", d, "ckpt"], b"");
    let data = bytes(9, 2 * UNIT);
    ok(&["store", "write", d, "ckpt", "--offset", "0"], &data);
    let oss = oss_caching(&dir, 4, &data[..64]);
    flip(&dir, oss, 10);
    for repair in [false, true] {
        let mut args = vec!["store", "scrub", d];
        if repair {
            args.push("--repair");
        }
        let out = exaraid(&args, b"");
        assert_eq!(out.status.code(), Some(2), "repair {repair}: exit 2");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("unrepairable: file 'ckpt' bytes 0..4096")
                && text.contains(&format!("OSS {oss}"))
                && text.contains("no parity"),
            "{text}"
        );
    }
}
