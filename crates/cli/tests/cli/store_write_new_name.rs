//! A `write` to a NEW name creates the name only together with its bytes (review s16r2
//! R16b-3). A write refused because too many OSSs are out of service ("... the operation was
//! not completed", which poisons the store before the write can take its name back), or one
//! killed -9 before any byte of it went on record, left the name in the store, 0 bytes
//! long, for good: an application that tests for a file's presence (a checkpoint, a flag
//! file) saw a file that was never written. Now the next open removes such a name. An empty
//! `put` is acknowledged with its name alone: that name stays, also when a later write to it
//! is killed.

use crate::common;

use std::path::Path;

use common::{bytes, exaraid, fails, fast_tempdir, killed_at, ok, s};
use exaraid_store::torture::{JOURNAL_RECORD, WRITE_TORN_BLOCK};

/// More journal records than a `write` of a new name passes (it then finishes).
const KILLS_MAX: u64 = 40;
const OLD_BYTES: usize = 50_000;
const NEW_BYTES: usize = 7_552;

/// The names `ls` lists with their sizes.
fn listed(dir: &Path) -> Vec<(String, u64)> {
    let out = ok(&["store", "ls", s(dir), "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = f["name"].as_str().unwrap().to_string();
            (name, f["size_bytes"].as_u64().unwrap())
        })
        .collect()
}

/// raid6 4+2 holding `f`.
fn store_with_one_file(dir: &Path) {
    common::init_store(s(dir), &["--code", "raid6", "--k", "4", "--oss", "6"]);
    ok(&["store", "put", s(dir), "f"], &bytes(1, OLD_BYTES));
}

/// The reviewer's case: raid6, OSS 0 and 4 failed on record (the tolerance used up), OSS
/// 2's directory not mounted. `write` to a new name is refused; once OSS 2 is back, `ls`
/// lists `f` only and `get` of the new name says there is no such file.
#[test]
fn a_write_to_a_new_name_refused_for_osses_out_of_service_leaves_no_name() {
    let tmp = fast_tempdir("write-new-name-refused");
    let dir = tmp.path().join("store");
    store_with_one_file(&dir);
    ok(&["store", "fail", s(&dir), "--oss", "0"], b"");
    ok(&["store", "fail", s(&dir), "--oss", "4"], b"");
    common::oss_away(&dir, 2);
    let new = bytes(2, NEW_BYTES);
    let err = fails(
        &["store", "write", s(&dir), "newfile", "--offset", "0"],
        &new,
    );
    assert!(
        err.contains("the operation was not completed") && err.contains("removes it"),
        "the refusal says nothing was done and that the name goes: {err}"
    );
    common::oss_back(&dir, 2);

    assert_eq!(
        listed(&dir),
        vec![("f".to_string(), OLD_BYTES as u64)],
        "the refused write's name is gone"
    );
    let err = fails(&["store", "get", s(&dir), "newfile"], b"");
    assert!(err.contains("no file named 'newfile'"), "{err}");
    assert!(ok(&["store", "get", s(&dir), "f"], b"") == bytes(1, OLD_BYTES));
    // The name is free for a write that goes through.
    ok(&["store", "rebuild", s(&dir), "--oss", "0"], b"");
    ok(&["store", "rebuild", s(&dir), "--oss", "4"], b"");
    ok(
        &["store", "write", s(&dir), "newfile", "--offset", "0"],
        &new,
    );
    assert!(ok(&["store", "get", s(&dir), "newfile"], b"") == new);
    ok(&["store", "scrub", s(&dir)], b"");
}

/// Merge review s17m M17-3: with WCL the refused write had begun (its columns on the OSSs
/// that answer, `FailedColumnCopy` records), so the next open's recovery decided it as a cut
/// write and kept the name at the write's length: `ls` listed it 20000 bytes long and `get`
/// returned 20000 zero bytes with exit 0, though the refusal said the name would go. Every
/// write path: raid5 over 4, 4 KiB stripe units, OSS 1 and 2 not mounted for the write.
#[test]
fn a_write_to_a_new_name_refused_part_way_leaves_no_name_on_every_write_path() {
    for write_path in ["rmw", "delayed", "wcl"] {
        let tmp = fast_tempdir("write-new-name-refused-wcl");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        common::init_store(
            d,
            &["--oss", "4", "--code", "raid5", "--write-path", write_path],
        );
        let old = bytes(5, 20_000);
        ok(&["store", "put", d, "f"], &old);
        for i in [1, 2] {
            let oss = dir.join(format!("oss-{i}"));
            std::fs::rename(&oss, dir.join(format!("away-{i}"))).unwrap();
        }
        let err = fails(
            &["store", "write", d, "g", "--offset", "0"],
            &bytes(6, 20_000),
        );
        assert!(
            err.contains("the operation was not completed") && err.contains("removes it"),
            "{write_path}: the refusal says the name goes: {err}"
        );
        for i in [1, 2] {
            let oss = dir.join(format!("oss-{i}"));
            std::fs::rename(dir.join(format!("away-{i}")), &oss).unwrap();
        }

        assert_eq!(
            listed(&dir),
            vec![("f".to_string(), old.len() as u64)],
            "{write_path}: the refused write's name is gone"
        );
        let err = fails(&["store", "get", d, "g"], b"");
        assert!(err.contains("no file named 'g'"), "{write_path}: {err}");
        assert!(ok(&["store", "get", d, "f"], b"") == old, "{write_path}: f");
        ok(&["store", "scrub", d], b"");
    }
}

/// After a kill: `f` whole, and the new name either not listed or listed with bytes, each
/// of them old (zero: the name had none) or the write's.
fn check_after_kill(dir: &Path, name: &str, new: &[u8], what: &str) {
    let files = listed(dir);
    assert!(
        ok(&["store", "get", s(dir), "f"], b"") == bytes(1, OLD_BYTES),
        "{what}: f"
    );
    match files.iter().find(|(n, _)| n == name) {
        None => {}
        Some((_, size)) => {
            assert!(
                *size > 0,
                "{what}: '{name}' is listed 0 bytes long: {files:?}"
            );
            let got = ok(&["store", "get", s(dir), name], b"");
            assert!(
                got.iter().enumerate().all(|(i, &b)| b == 0 || b == new[i]),
                "{what}: '{name}' holds bytes the write never wrote"
            );
        }
    }
    ok(&["store", "scrub", s(dir)], b"");
}

/// A `write` to a new name killed -9 after every journal record it appends (the name's
/// `Create` among them): no kill leaves the name listed empty. On the code before, the kill
/// right after the `Create` record left it 0 bytes long for good.
#[test]
fn a_write_to_a_new_name_killed_after_every_journal_record_leaves_no_empty_name() {
    let new = bytes(3, NEW_BYTES);
    let mut finished = false;
    for n in 1..=KILLS_MAX {
        let tmp = fast_tempdir("write-new-name-kill");
        let dir = tmp.path().join("store");
        store_with_one_file(&dir);
        let args = ["store", "write", s(&dir), "newfile", "--offset", "0"];
        let what = format!("write killed at {JOURNAL_RECORD}:{n}");
        if !killed_at(&args, &new, &format!("{JOURNAL_RECORD}:{n}")) {
            assert!(
                ok(&["store", "get", s(&dir), "newfile"], b"") == new,
                "{what}"
            );
            finished = true;
            break;
        }
        check_after_kill(&dir, "newfile", &new, &what);
    }
    assert!(finished, "the write passed more than {KILLS_MAX} records");
}

/// An empty `put` is acknowledged with its name alone: it stays, 0 bytes long, across
/// reopens, and also after a later write to it killed -9 after every journal record.
#[test]
fn an_acknowledged_empty_put_stays_also_when_a_later_write_to_it_is_killed() {
    let new = bytes(4, NEW_BYTES);
    let mut finished = false;
    for n in 1..=KILLS_MAX {
        let tmp = fast_tempdir("empty-put-stays");
        let dir = tmp.path().join("store");
        store_with_one_file(&dir);
        ok(&["store", "put", s(&dir), "empty"], b"");
        assert!(
            listed(&dir).contains(&("empty".to_string(), 0)),
            "the empty put"
        );
        let args = ["store", "write", s(&dir), "empty", "--offset", "0"];
        let what = format!("write to the empty file killed at {JOURNAL_RECORD}:{n}");
        let killed = killed_at(&args, &new, &format!("{JOURNAL_RECORD}:{n}"));
        let files = listed(&dir);
        let size = files.iter().find(|(n, _)| n == "empty").map(|(_, s)| *s);
        assert!(
            size.is_some(),
            "{what}: the empty put's name is gone: {files:?}"
        );
        let got = exaraid(&["store", "get", s(&dir), "empty"], b"");
        assert!(got.status.success(), "{what}");
        assert!(
            got.stdout
                .iter()
                .enumerate()
                .all(|(i, &b)| b == 0 || b == new[i]),
            "{what}: bytes the write never wrote"
        );
        if !killed {
            assert!(got.stdout == new, "{what}");
            finished = true;
            break;
        }
    }
    assert!(finished, "the write passed more than {KILLS_MAX} records");
}

/// s18d's leftover: the open that recovers a write to a new name killed -9 inside its first
/// block (every write to the name cut, never acknowledged) removes the name; killed -9 after
/// any journal record of its own, the open after it still removes it: the name is never
/// listed again, on any write path. On the code before, a kill after the recovery's
/// `PlannerReset` and before the removal kept it for good, listed at the write's length.
#[test]
fn a_cut_new_name_stays_gone_when_the_recovering_open_is_killed_after_any_record() {
    let new = bytes(7, NEW_BYTES);
    for write_path in ["wcl", "rmw", "delayed"] {
        let mut finished = false;
        for n in 1..=KILLS_MAX {
            let tmp = fast_tempdir("cut-new-name-recovery-kill");
            let dir = tmp.path().join("store");
            let d = s(&dir);
            common::init_store(
                d,
                &["--oss", "4", "--code", "raid5", "--write-path", write_path],
            );
            ok(&["store", "put", d, "f"], &bytes(1, OLD_BYTES));
            let args = ["store", "write", d, "newfile", "--offset", "0"];
            assert!(
                killed_at(&args, &new, &format!("{WRITE_TORN_BLOCK}:1")),
                "{write_path}: the scene: the write is killed in its first block"
            );
            let what = format!("{write_path}: recovering open killed at {JOURNAL_RECORD}:{n}");
            let killed = killed_at(&["store", "ls", d], b"", &format!("{JOURNAL_RECORD}:{n}"));
            let files = listed(&dir);
            assert!(
                !files.iter().any(|(name, _)| name == "newfile"),
                "{what}: the cut write's name is listed: {files:?}"
            );
            assert!(
                ok(&["store", "get", d, "f"], b"") == bytes(1, OLD_BYTES),
                "{what}: f"
            );
            ok(&["store", "scrub", d], b"");
            if !killed {
                finished = true;
                break;
            }
        }
        assert!(
            finished,
            "{write_path}: the recovering open passed more than {KILLS_MAX} records"
        );
    }
}

/// Merge review s18m M18-4: when the open that recovers could not remove such a name (a full
/// metadata disk refused its `Remove` record: best effort, the open went on), the warning
/// said the name "stays, empty", though a name whose every write was cut keeps the cut
/// write's length. Since s19f the recovering open journals that `Remove` inside its settle,
/// before the `PlannerReset`: a full metadata disk now either lets the `Remove` in (the name
/// is gone) or stops the recovery, and the store opens for reads only saying so (s19e). The
/// scene of the test above (wcl), then the next open with every journal write after the
/// first `n` failing ENOSPC (the nospc shim), `n` from 0 up: whenever `g` is still listed
/// the open said it is for reads only, no message calls `g` empty, and some `n` removes it.
#[test]
fn a_cut_new_name_on_a_full_metadata_disk_is_removed_or_the_open_says_it_is_for_reads_only() {
    let tmp = fast_tempdir("write-new-name-full-metadata");
    let Some(shim) = common::build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the nospc shim was not built, test skipped");
        return;
    };
    let image = tmp.path().join("image");
    let d = s(&image);
    common::init_store(d, &["--oss", "4", "--code", "raid5", "--write-path", "wcl"]);
    ok(&["store", "put", d, "f"], &bytes(5, 20_000));
    for i in [1, 2] {
        std::fs::rename(
            image.join(format!("oss-{i}")),
            image.join(format!("away-{i}")),
        )
        .unwrap();
    }
    fails(
        &["store", "write", d, "g", "--offset", "0"],
        &bytes(6, 20_000),
    );
    for i in [1, 2] {
        std::fs::rename(
            image.join(format!("away-{i}")),
            image.join(format!("oss-{i}")),
        )
        .unwrap();
    }

    let (mut kept_read_only, mut removed) = (0, 0);
    for n in 0..KILLS_MAX {
        let dir = tmp.path().join("store");
        common::copy_store(&image, &dir);
        let dir = dir.canonicalize().unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(["store", "ls", s(&dir)])
            .env("LD_PRELOAD", &shim)
            .env("NOSPCFILE", format!("{}/journal", s(&dir)))
            .env("NOSPCAFTER", n.to_string())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let listed = String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.split_whitespace().last() == Some("g"));
        assert!(
            !err.contains("stays, empty"),
            "journal writes past {n} refused: {err}"
        );
        // Since s20e a reads-only open does not list `g` (`reads_only_cut_names`): it
        // counts as kept by what the open says.
        if listed || err.contains("open for reads only") {
            assert!(
                err.contains("open for reads only") && err.contains("disk is full"),
                "journal writes past {n} refused: 'g' is still listed and the open did not say it was for reads only: {err}"
            );
            kept_read_only += 1;
        } else {
            removed += 1;
        }
    }
    assert!(
        kept_read_only > 0 && removed > 0,
        "the scene reaches both outcomes: kept (reads only) {kept_read_only}, removed {removed}"
    );
}
