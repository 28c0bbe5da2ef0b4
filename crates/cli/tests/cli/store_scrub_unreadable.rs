//! A real EIO on every read of one OSS's zone file (`scripts/repro/s16r-readeio-shim.c`:
//! bad sectors under it; review s16r R16-5). Before, `scrub` and `scrub --repair` exited 0
//! with "corrupt elements: 0", rewrote nothing and `status` showed the OSS ok, while the
//! stripes ran without that redundancy (on raid5, all of it). Now `scrub` names each element
//! it could not read and exits 2; `scrub --repair`, whose rewrite here still does not read
//! back (the shim fails every read of the file), records the OSS failed and says to
//! rebuild it; after the rebuild (the disk replaced: no shim) the store is clean and exact.
//! A `get` that decodes around the error says so on stderr (it was silent); a `get` with
//! the OSS unmounted stays as it was (no such warning: `status` and `scrub` say it).

use crate::common;

use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// The zone file of the first file's home data on OSS 1.
const BAD_FILE: &str = "oss-1/objects/0.data";

fn with_bad_sectors(shim: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .env("LD_PRELOAD", shim)
        .env("EIOREAD", BAD_FILE)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn scrub_finds_and_repair_fails_the_oss(code: &str, oss: &str, write_path: &str) {
    let what = format!("{code} {write_path}");
    let tmp = fast_tempdir("scrubeio");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s16r-readeio-shim") else {
        panic!("no C compiler (cc) to build scripts/repro/s16r-readeio-shim.c: install gcc (scripts/setup.sh)");
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", oss, "--code", code, "--write-path", write_path],
    );
    let f = bytes(5, 50_000);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "flush", d], b"");
    assert!(dir.join(BAD_FILE).exists(), "{what}: the scene's zone file");

    let out = with_bad_sectors(&shim, &["store", "scrub", d]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{what}: scrub: {t}");
    assert!(
        t.contains("unreadable: OSS 1 file 'f' stripe 0"),
        "{what}: {t}"
    );
    assert!(t.contains("Input/output error"), "{what}: {t}");
    assert!(t.contains("scrub --repair"), "{what}: says what to do: {t}");

    let out = with_bad_sectors(&shim, &["store", "get", d, "f"]);
    assert!(out.status.success(), "{what}: get: {}", text(&out));
    assert!(out.stdout == f, "{what}: get decodes the exact bytes");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: OSS 1") && err.contains("a read failed") && err.contains("scrub"),
        "{what}: get says it decoded around a read error of an OSS that is up: {err}"
    );

    let out = with_bad_sectors(&shim, &["store", "scrub", d, "--repair"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{what}: scrub --repair: {t}");
    assert!(t.contains("FAILED: OSS 1"), "{what}: {t}");
    assert!(t.contains("store rebuild"), "{what}: {t}");

    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        status.to_lowercase().contains("failed"),
        "{what}: status shows OSS 1 failed: {status}"
    );
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    let t = String::from_utf8(ok(&["store", "scrub", d], b"")).unwrap();
    assert!(t.contains("unreadable elements: 0"), "{what}: {t}");
    assert!(ok(&["store", "get", d, "f"], b"") == f, "{what}: f exact");
}

#[test]
fn raid5_rmw_scrub_names_unreadable_elements() {
    scrub_finds_and_repair_fails_the_oss("raid5", "5", "rmw");
}

#[test]
fn raid5_wcl_scrub_names_unreadable_elements() {
    scrub_finds_and_repair_fails_the_oss("raid5", "5", "wcl");
}

#[test]
fn raid6_rmw_scrub_names_unreadable_elements() {
    scrub_finds_and_repair_fails_the_oss("raid6", "6", "rmw");
}

#[test]
fn raid6_wcl_scrub_names_unreadable_elements() {
    scrub_finds_and_repair_fails_the_oss("raid6", "6", "wcl");
}

/// An OSS away (its directory moved aside: an unmount) is not a read error of its disk: the
/// `get` decodes without the bad-sector warning.
#[test]
fn an_unmounted_oss_gets_no_read_error_warning() {
    let tmp = fast_tempdir("scrubeioaway");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5", "--write-path", "rmw"]);
    let f = bytes(6, 50_000);
    ok(&["store", "put", d, "f"], &f);
    oss_away(&dir, 1);
    let out = exaraid(&["store", "get", d, "f"], b"");
    assert!(out.status.success(), "{}", text(&out));
    assert!(out.stdout == f, "f exact, decoded");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("a read failed"), "{err}");
    oss_back(&dir, 1);
}

/// The cache zone file of a WCL OSS (note16 OPEN 4): every read of OSS `oss`'s cache zone
/// file fails EIO while 5000 bytes wait there for destage. Before, `scrub` named nothing of
/// it (the element was skipped; the cache stripe's check then took the OSS out for the rest
/// of the run and called it "UNAVAILABLE ... not checked" while `status` showed it ok). Now
/// it names the element and what it holds and exits 2; `--repair` (its rewrite does not
/// read back under the shim) records the OSS failed; after the rebuild the store is clean.
fn wcl_cache_eio(oss: usize, holds: &str) {
    let tmp = fast_tempdir("scrubcacheeio");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s16r-readeio-shim") else {
        panic!("no C compiler (cc) to build scripts/repro/s16r-readeio-shim.c: install gcc (scripts/setup.sh)");
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5", "--write-path", "wcl"]);
    let f = bytes(7, 5000);
    ok(&["store", "put", d, "f"], &f);
    let cache_file = format!("oss-{oss}/objects/18446744073709551615.cache");
    assert!(
        dir.join(&cache_file).exists(),
        "the scene's cache zone file"
    );
    let bad = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(args)
            .env("LD_PRELOAD", &shim)
            .env("EIOREAD", &cache_file)
            .output()
            .unwrap()
    };

    let out = bad(&["store", "scrub", d]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "scrub: {t}");
    assert!(
        t.contains(&format!("unreadable cache: OSS {oss} cache slot 0")) && t.contains(holds),
        "names the element and what it holds: {t}"
    );
    assert!(
        t.contains("Input/output error") && t.contains("scrub --repair"),
        "{t}"
    );
    assert!(
        !t.contains("UNAVAILABLE"),
        "the OSS is up (as status says): {t}"
    );

    let out = bad(&["store", "scrub", d, "--repair"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "scrub --repair: {t}");
    assert!(
        t.contains(&format!("FAILED: OSS {oss}")) && t.contains("store rebuild"),
        "{t}"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f, "f exact, decoded");
    ok(&["store", "rebuild", d, "--oss", &oss.to_string()], b"");
    let t = String::from_utf8(ok(&["store", "scrub", d], b"")).unwrap();
    assert!(t.contains("unreadable cache elements: 0"), "{t}");
    assert!(
        ok(&["store", "get", d, "f"], b"") == f,
        "f exact after the rebuild"
    );
}

#[test]
fn wcl_scrub_names_an_unreadable_cache_data_element() {
    wcl_cache_eio(0, "the newest copy of bytes [0..4096]");
}

#[test]
fn wcl_scrub_names_an_unreadable_cache_running_parity() {
    wcl_cache_eio(3, "the running parity of a cache stripe");
}

/// raid5 with OSS 0 failed on record (a dead disk awaiting replacement) and OSS 1's zone file
/// unreadable: the unreadable elements are past the tolerance, so plain `scrub` says they
/// cannot be rebuilt and names the bytes that do not read, instead of advising a `--repair`
/// that cannot rewrite them (review s17r R17-2).
#[test]
fn raid5_scrub_past_the_tolerance_says_not_rebuildable() {
    let tmp = fast_tempdir("scrubeio-past");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s16r-readeio-shim") else {
        panic!("no C compiler (cc) to build scripts/repro/s16r-readeio-shim.c: install gcc (scripts/setup.sh)");
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let f = bytes(5, 50_000);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "fail", d, "--oss", "0"], b"");

    let out = with_bad_sectors(&shim, &["store", "scrub", d]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "scrub: {t}");
    assert!(t.contains("unreadable: OSS 1 file 'f' stripe 0"), "{t}");
    assert!(
        t.contains("past the code's tolerance") && t.contains("cannot be rebuilt"),
        "{t}"
    );
    assert!(
        t.contains("file 'f' bytes 0..") && t.contains("lost"),
        "names the bytes: {t}"
    );
    assert!(
        !t.contains("rewrites it from parity"),
        "no repair advice: {t}"
    );

    // The disk's errors gone, every byte is exact.
    assert!(ok(&["store", "get", d, "f"], b"") == f, "f exact");
}

/// Flip one bit at byte `at` of `path` (silent corruption under a valid checksum).
fn flip_bit(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 0x10;
    std::fs::write(path, b).unwrap();
}

/// raid5 (tolerance 1), real bit flips in two elements of the same 4 KiB block row of stripe
/// 0 (OSS 0 and OSS 1): past the tolerance. Plain `scrub` said only "corrupt: ..." of each,
/// as of any element it rebuilds (review s17r R17-2, left by s17h); now it says that they
/// cannot be rebuilt and names the bytes lost, as for unreadable elements. `--repair` writes
/// none of them (no wrong bytes made "clean"), exits 2 naming them unrepairable; `get` refuses
/// the bytes. A single flip in stripe 1 (within the tolerance) is repaired as before.
#[test]
fn raid5_scrub_names_bit_flips_past_the_tolerance_and_repair_leaves_them() {
    let tmp = fast_tempdir("scrub-flips-past");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let f = bytes(5, 50_000);
    ok(&["store", "put", d, "f"], &f);
    let slot_on_disk_bytes = 4096 + 4; // one 4 KiB block and its crc
    let zone = |oss: usize| dir.join(format!("oss-{oss}/objects/0.data"));
    flip_bit(&zone(0), 100);
    flip_bit(&zone(1), 100);
    flip_bit(&zone(2), slot_on_disk_bytes + 100);
    let flipped: Vec<Vec<u8>> = (0..2)
        .map(|oss| std::fs::read(zone(oss)).unwrap())
        .collect();

    let out = exaraid(&["store", "scrub", d], b"");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "scrub: {t}");
    let lines: Vec<&str> = t.lines().filter(|l| l.starts_with("corrupt: ")).collect();
    assert_eq!(lines.len(), 3, "{t}");
    for oss in [0, 1] {
        let line = lines
            .iter()
            .find(|l| l.contains(&format!("OSS {oss} file 'f' stripe 0 ")))
            .unwrap_or_else(|| panic!("OSS {oss} stripe 0 named: {t}"));
        assert!(
            line.contains("past the code's tolerance") && line.contains("cannot be rebuilt"),
            "{line}"
        );
        assert!(
            line.contains("file 'f' bytes ") && line.contains("lost"),
            "names the bytes: {line}"
        );
    }
    let within = lines
        .iter()
        .find(|l| l.contains("OSS 2 file 'f' stripe 1 "))
        .unwrap_or_else(|| panic!("OSS 2 stripe 1 named: {t}"));
    assert!(
        !within.contains("tolerance"),
        "within the tolerance: {within}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&exaraid(&["store", "scrub", d, "--json"], b"").stdout).unwrap();
    let lost_noted = json["corrupt_elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["lost"].is_string())
        .count();
    assert_eq!(lost_noted, 2, "{json}");

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(err.contains("lost"), "get refuses the bytes: {err}");

    let out = exaraid(&["store", "scrub", d, "--repair"], b"");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "scrub --repair: {t}");
    assert!(
        t.lines()
            .any(|l| l.starts_with("unrepairable: ") && l.contains("file 'f' bytes ")),
        "{t}"
    );
    assert!(
        t.contains("stripe 1") && t.contains("(repaired)"),
        "the flip within the tolerance is repaired: {t}"
    );
    for oss in 0..2 {
        assert_eq!(
            std::fs::read(zone(oss)).unwrap(),
            flipped[oss],
            "OSS {oss}: nothing rebuilt into its past-tolerance block"
        );
    }
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("lost"),
        "still refused, never wrong bytes: {err}"
    );
    let rest = ok(
        &[
            "store", "read", d, "f", "--offset", "16384", "--length", "33616",
        ],
        b"",
    );
    assert!(rest == f[16_384..], "the other stripes read exact");
}
