//! A degraded settle whose fsync of a settle copy fails (a real EIO from
//! `scripts/eioshim.c`), then a kill -9 a few durable calls later, in the middle of the
//! settle's home writes (s8a left, issue #4 OPEN 3 of note8): raid6 4+2 on WCL, OSS 1 failed
//! on record, `rebuild --oss 1` settles the cached bytes first. The copy of OSS 1's column of
//! the stripe being settled goes to OSS 0; its sync fails, so OSS 0 is distrusted and the
//! copy with it. The stripe's home writes then skip OSS 0 and OSS 1: a kill cutting them
//! leaves the stripe with two unknown columns and nothing to confirm a decode with, so every
//! acknowledged byte there depends on a copy of both columns kept on OSSs still trusted.
//! Before the fix s8a measured 5 of 5 kills recording f1 bytes 0..16384 LOST ("too few
//! columns left to tell").

use crate::common;

use common::*;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

/// Copy directory `from` to `to` (files and directories only: a store holds nothing else).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The files of the scene and their acknowledged bytes.
type Model = Vec<(&'static str, Vec<u8>)>;

/// raid6 over 6 OSSs on WCL: three files put, OSS 1 failed, three acknowledged writes (cached
/// bytes in the cache zone, some of them OSS 1's: the settle copies its column).
fn degraded_wcl_scene(d: &str) -> Model {
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "wcl"]);
    let mut f1 = bytes(1, 40_000);
    let f2 = bytes(2, 9_000);
    let mut f3 = bytes(3, 70_000);
    ok(&["store", "put", d, "f1"], &f1);
    ok(&["store", "put", d, "f2"], &f2);
    ok(&["store", "put", d, "f3"], &f3);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    for (name, offset, data) in [
        ("f1", 5_000, bytes(11, 3_000)),
        ("f3", 20_000, bytes(12, 9_000)),
        ("f1", 30_000, bytes(13, 12_000)),
    ] {
        ok(
            &["store", "write", d, name, "--offset", &offset.to_string()],
            &data,
        );
        put_over(if name == "f1" { &mut f1 } else { &mut f3 }, offset, &data);
    }
    vec![("f1", f1), ("f2", f2), ("f3", f3)]
}

/// Every acknowledged byte reads back and nothing is on record lost.
fn every_byte_reads_back(d: &str, model: &Model, point: &str) {
    for (name, want) in model {
        let got = exaraid(&["store", "get", d, name], b"");
        assert!(
            got.status.success(),
            "{point}: get {name}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert!(got.stdout == *want, "{point}: {name} WRONG bytes");
    }
    let status = String::from_utf8(ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert!(
        status.contains("\"lost_ranges\": []"),
        "{point}: nothing recorded lost: {status}"
    );
}

/// Syncs of the rebuild's settle copies on OSS 0 (counted by the shim over the command), each
/// with the kills that follow it: the first copy (the first degraded stripe with cached
/// bytes), and a later one (earlier stripes were settled home, their copies of OSS 1's
/// column on OSS 0 go with it: those stripes, written home whole, decode from the crcs the
/// settle journaled, `Rec::SettleSums`). The check below fails if a change moves them: list
/// the shim's "EIOSHIM: sync N fails: fdatasync(...)" line of each N of a rebuild again.
/// (Session 11: 6 later, after the metadata epoch's syncs: its journal record and the epoch
/// file of each of the 5 OSSs not failed. Session 12: 1 later, after the rebuild floor's
/// journal record, fsync'd before `RebuildBegin`. Session 16: one more before each settled
/// stripe's home writes, its `SettleSums` record, fsync'd since s16e: 12 -> 13, 19 -> 22.)
const COPY_SYNCS: [(u32, &[u32]); 2] = [(13, &[10, 11, 12, 13, 14]), (22, &[10, 12, 14])];

#[test]
fn a_settle_copy_whose_sync_fails_then_a_kill_loses_no_acknowledged_byte() {
    let tmp = fast_tempdir("settlecopysynceio");
    let Some(shim) = build_shim(tmp.path()) else {
        panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
    };
    // The superblock names its OSS directories by absolute path: every point runs at the
    // same path, restored from a copy of the scene.
    let point_dir = tmp.path().join("pt");
    let store = point_dir.join("s");
    let template = tmp.path().join("template");
    let model = degraded_wcl_scene(s(&store));
    copy_tree(&point_dir, &template);
    for (sync_fail_n, kills) in COPY_SYNCS {
        for &kill_after in kills {
            std::fs::remove_dir_all(&point_dir).unwrap();
            copy_tree(&template, &point_dir);
            let d = s(&store);
            let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
                .args(["store", "rebuild", d, "--oss", "1"])
                .env("LD_PRELOAD", &shim)
                .env("SYNCFAILN", sync_fail_n.to_string())
                .env("FAILSTICKY", "1")
                .env("SYNCKILLAFTER", kill_after.to_string())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let point = format!("sync {sync_fail_n} failing, kill {kill_after} calls later");
            let failed_sync = format!("EIOSHIM: sync {sync_fail_n} fails: fdatasync(");
            let line = stderr
                .lines()
                .find(|l| l.starts_with(&failed_sync))
                .unwrap_or_else(|| panic!("{point}: the shim failed no sync: {stderr}"));
            assert!(
                line.contains("/oss-0/objects/0.cache"),
                "{point}: the failing sync is a settle copy's on OSS 0: {line}"
            );
            assert_eq!(
                out.status.signal(),
                Some(9),
                "{point}: killed by the shim: {stderr}"
            );
            every_byte_reads_back(d, &model, &point);
        }
    }
}
