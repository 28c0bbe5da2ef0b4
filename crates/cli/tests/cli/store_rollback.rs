//! Review s4e E4c: an OSS directory rolled back to an older copy of itself (a snapshot or
//! backup restore, a stale mirror leg) or whose extents log was cut at a record boundary
//! holds valid checksums over stale bytes, and an extents record that calls slots written
//! since then never written (zeros). Before generations the store read it as healthy: `get`
//! returned the old bytes and zeros with exit 0. Now the store records the generation
//! each OSS reached and takes an OSS answering with less as unavailable (reads decode around
//! it) until `rebuild`. And a kill -9 between the OSS's generation becoming durable and the
//! store's record of it never makes a healthy OSS look rolled back.

use crate::common;
use common::*;
use std::path::Path;
use std::process::Command;

const UNIT: usize = 65536;

fn init_raid6(d: &str, write_path: &str) {
    init_store_unit(
        d,
        UNIT as u64,
        &["--oss", "6", "--code", "raid6", "--write-path", write_path],
    );
}

/// `cp -a from to`: the copy a snapshot or backup keeps (`to` must not exist).
fn copy_dir(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp -a {from:?} {to:?}");
}

/// Put the old copy `snap` back in place of `oss_dir`, as a restore does.
fn restore_dir(snap: &Path, oss_dir: &Path) {
    std::fs::remove_dir_all(oss_dir).unwrap();
    copy_dir(snap, oss_dir);
}

fn status(d: &str) -> String {
    String::from_utf8(ok(&["store", "status", d], b"")).unwrap()
}

fn assert_rolled_back(d: &str, oss: usize) {
    let st = status(d);
    assert!(
        st.contains(&format!("UNAVAILABLE: OSS {oss}: it is at generation"))
            && st.contains("rolled back to an older copy")
            && st.contains(&format!("exaraid store rebuild {d} --oss {oss}")),
        "status names OSS {oss} rolled back and says to rebuild it:\n{st}"
    );
}

/// The store's bytes are right, also from the OSS that was rolled back and rebuilt: with
/// two other OSSs failed (raid6's tolerance), its elements are read, not decoded.
fn assert_rebuilt_and_read(d: &str, oss: usize, want: &[(&str, &[u8])]) {
    ok(&["store", "rebuild", d, "--oss", &oss.to_string()], b"");
    assert!(!status(d).contains("UNAVAILABLE"), "{}", status(d));
    ok(&["store", "scrub", d], b"");
    let others: Vec<usize> = (0..6).filter(|&o| o != oss).take(2).collect();
    for o in &others {
        ok(&["store", "fail", d, "--oss", &o.to_string()], b"");
    }
    for (name, bytes) in want {
        assert!(
            ok(&["store", "get", d, name], b"") == *bytes,
            "'{name}' with OSSs {others:?} failed, read from the rebuilt OSS {oss}"
        );
    }
}

/// The E4c repro: OSS 1 copied after `put l0`, then six writes to l0 and a new file n1,
/// then the copy put back. Before: status "ok", `get l0` rc 0 with OSS 1's old bytes, `get
/// n1` rc 0 with 72032 wrong bytes (zeros), scrub blind to it (3 parity mismatches).
#[test]
fn an_oss_directory_rolled_back_to_an_older_copy_is_unavailable_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_raid6(d, "rmw");
    let mut l0 = bytes(1, 600_000);
    ok(&["store", "put", d, "l0"], &l0);
    let snap = tmp.path().join("snap");
    copy_dir(&dir.join("oss-1"), &snap);
    let w = bytes(2, 20_000);
    for off in [0usize, 65536, 131072, 196608, 262144, 327680] {
        ok(
            &["store", "write", d, "l0", "--offset", &off.to_string()],
            &w,
        );
        l0[off..off + w.len()].copy_from_slice(&w);
    }
    let n1 = bytes(3, 400_000);
    ok(&["store", "put", d, "n1"], &n1);
    restore_dir(&snap, &dir.join("oss-1"));

    assert!(
        ok(&["store", "get", d, "l0"], b"") == l0,
        "l0: no stale bytes"
    );
    assert!(ok(&["store", "get", d, "n1"], b"") == n1, "n1: no zeros");
    assert_rolled_back(d, 1);
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert_eq!(
        scrub.status.code(),
        Some(2),
        "scrub: the store is not whole"
    );
    assert!(String::from_utf8_lossy(&scrub.stdout).contains("UNAVAILABLE: OSS 1"));
    // A write goes on degraded (OSS 1 recorded failed), never into the old copy.
    let w2 = bytes(4, 5000);
    ok(&["store", "write", d, "l0", "--offset", "70000"], &w2);
    l0[70000..75000].copy_from_slice(&w2);
    assert_rebuilt_and_read(d, 1, &[("l0", &l0), ("n1", &n1)]);
}

/// docs/store.md Limits, "Extents record": a log cut exactly at a record boundary reads as
/// an older record. With the zone files of the slots its lost records named gone too (a
/// partial restore, a file system that lost its last changes), the slots read as never
/// written: before, `get` returned zeros with exit 0.
#[test]
fn an_extents_log_cut_at_a_record_boundary_makes_the_oss_unavailable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_raid6(d, "rmw");
    let f = bytes(5, 300_000);
    ok(&["store", "put", d, "f"], &f);
    let oss_dir = dir.join("oss-2");
    let log = oss_dir.join("exaraid-extents.log");
    let log_len_after_f = std::fs::metadata(&log).unwrap().len();
    let objects_after_f: Vec<_> = std::fs::read_dir(oss_dir.join("objects"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let g = bytes(6, 500_000);
    ok(&["store", "put", d, "g"], &g);
    let log_len = std::fs::metadata(&log).unwrap().len();
    assert!(log_len > log_len_after_f, "g's first writes were logged");
    assert_eq!(log_len_after_f % 24, 0, "a record boundary");
    // The log as it was after f: every record g's put appended is gone, whole.
    let file = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
    file.set_len(log_len_after_f).unwrap();
    for e in std::fs::read_dir(oss_dir.join("objects")).unwrap() {
        let e = e.unwrap();
        if !objects_after_f.contains(&e.file_name()) {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    assert!(ok(&["store", "get", d, "g"], b"") == g, "g: no zeros");
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    assert_rolled_back(d, 2);
    assert_rebuilt_and_read(d, 2, &[("f", &f), ("g", &g)]);
}

/// A failed OSS restored from an older copy while it was failed: `online` (which takes an
/// OSS back as it is) must refuse it. Before, it took it back and `get` returned its old
/// bytes with exit 0.
#[test]
fn online_refuses_an_oss_restored_from_an_older_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_raid6(d, "rmw");
    let mut f = bytes(7, 300_000);
    ok(&["store", "put", d, "f"], &f);
    let snap = tmp.path().join("snap");
    copy_dir(&dir.join("oss-1"), &snap);
    let w = bytes(8, 30_000);
    ok(&["store", "write", d, "f", "--offset", "65536"], &w);
    f[65536..95536].copy_from_slice(&w);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    restore_dir(&snap, &dir.join("oss-1"));
    let err = fails(&["store", "online", d, "--oss", "1"], b"");
    assert!(
        err.contains("refused, nothing changed")
            && err.contains("rolled back to an older copy")
            && err.contains("rebuild"),
        "{err}"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    assert_rebuilt_and_read(d, 1, &[("f", &f)]);
}

/// Crash consistency: an OSS's generation is durable on the OSS (its extents log append
/// fdatasync'd) before the store journals it, so a kill -9 in between leaves the OSS ahead
/// of the record, which is fine; a kill at every such point and at every journal record of
/// a `put`, a `write` and an `rm` never leaves an OSS that reads as rolled back, and the
/// store stays whole (scrub clean). `wcl` too: its cache zone's first writes and the
/// destage's home writes sync other zone files.
#[test]
fn a_kill_between_an_oss_generation_and_its_record_never_reads_as_a_rollback() {
    for write_path in ["rmw", "wcl"] {
        let tmp = fast_tempdir("s5d-rollback-crash");
        let dir = tmp.path().join("s");
        let d = s(&dir);
        init_raid6(d, write_path);
        ok(&["store", "put", d, "f"], &bytes(9, 200_000));
        let commands: [(&[&str], Vec<u8>); 3] = [
            (&["store", "put", d, "g"], bytes(10, 150_000)),
            (
                &["store", "write", d, "f", "--offset", "70000"],
                bytes(11, 9000),
            ),
            (&["store", "rm", d, "g"], Vec::new()),
        ];
        let mut kills = 0;
        for (args, stdin) in &commands {
            for point in ["extents-synced", "journal-record"] {
                for n in 1.. {
                    if args[1] == "rm" {
                        ok(&["store", "put", d, "g"], &commands[0].1);
                    }
                    if !killed_at(args, stdin, &format!("{point}:{n}")) {
                        break;
                    }
                    kills += 1;
                    let st = status(d);
                    assert!(
                        !st.contains("UNAVAILABLE") && !st.contains("FAILED"),
                        "{write_path}: after a kill at {point}:{n} of {args:?}:\n{st}"
                    );
                    ok(&["store", "scrub", d], b"");
                    assert!(n < 200, "{point} passed too often");
                }
                // Redo the command whole (a killed `put` may have finished).
                if args[1] != "rm" {
                    ok(args, stdin);
                }
            }
        }
        eprintln!("{write_path}: {kills} kills");
        assert!(kills > 10, "{write_path}: the sweep killed ({kills})");
        assert!(!status(d).contains("UNAVAILABLE"));
    }
}
