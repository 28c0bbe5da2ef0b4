//! Review s12r R12-7 / R12-8: a command killed -9 while it deletes what nothing reads any
//! more (a `put`'s or `rm`'s old objects, a settle's cache zone), then one bit of the
//! journal's LAST record flipped (damage after its fsync: bit rot, a restore that cut a few
//! bytes). The open cuts a damaged last record as a torn append, as if never made. When
//! that record was the `Replace`, `Remove` or `PlannerReset` whose deletions had begun, the
//! name pointed at deleted objects again, or the planner at a deleted cache zone, and both
//! read as never-written slots: zeros, exit 0, scrub clean (13 of 61 put kill points, 13 of
//! 36 rm, 9 of 111 WCL flush in the review's sweep). Whatever the kill point: every file
//! reads its acknowledged bytes (the killed command's file its old or its new content),
//! never other bytes with exit 0.

use crate::common;

use std::path::Path;

use common::{bytes, exaraid, fast_tempdir, killed_at, ok, s};
use exaraid_store::torture::REMOVE_ZONE;

/// More deletions than any command here makes (5 OSSs, 3 zones per object, one cache zone
/// per OSS, and a settle first for WCL): the command then finishes, ending the sweep.
const KILLS_MAX: u64 = 40;
const F_BYTES: usize = 30_000;
const G_BYTES: usize = 20_000;
const WRITE_AT: usize = 700;
const WRITE_BYTES: usize = 5_000;

/// raid5 4+1 over 5 OSSs, 4 KiB unit, holding f and g (their partial stripes cached on
/// the WCL path); on the delayed path a window is open on f.
fn store_with_f_and_g(dir: &Path, write_path: &str) {
    common::init_store(
        s(dir),
        &["--oss", "5", "--code", "raid5", "--write-path", write_path],
    );
    ok(&["store", "put", s(dir), "f"], &bytes(1, F_BYTES));
    ok(&["store", "put", s(dir), "g"], &bytes(2, G_BYTES));
}

/// Flip one bit in the middle of the payload of the journal's last record (records: length
/// u32 LE, crc32c u32 LE, payload), as the review's `tail-flip-kill-sweep.py` does.
fn damage_last_journal_record(dir: &Path) {
    let path = dir.join("journal");
    let mut journal = std::fs::read(&path).unwrap();
    let mut at = 0usize;
    let mut last = None;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        last = Some((at, len));
        at += 8 + len;
    }
    assert_eq!(
        at,
        journal.len(),
        "the killed command's journal ends on a record"
    );
    let (start, len) = last.expect("the journal holds a record");
    let flip = start + 8 + len / 2;
    journal[flip] ^= 0x08;
    std::fs::write(&path, &journal).unwrap();
}

/// `get name` reads exactly one of `allowed` (or, with `absent_ok`, says there is no such
/// file); anything else, above all other bytes with exit 0, fails the test.
fn reads_one_of(dir: &Path, name: &str, allowed: &[&[u8]], absent_ok: bool, what: &str) {
    let out = exaraid(&["store", "get", s(dir), name], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        let zeros = out.stdout.iter().filter(|&&b| b == 0).count();
        assert!(
            allowed.iter().any(|a| out.stdout == *a),
            "{what}: '{name}' read {} bytes ({zeros} zeros) that are none of its acknowledged contents, exit 0",
            out.stdout.len()
        );
    } else {
        assert!(
            absent_ok && err.contains("no file"),
            "{what}: '{name}' refused: {err}"
        );
    }
}

/// Kill `args` at its k-th deletion of a zone file, for every k until it finishes; after
/// each kill the journal's last record is damaged and `check` reads the store.
fn at_every_deletion(
    write_path: &str,
    prepare: impl Fn(&Path),
    args: impl Fn(&str) -> Vec<String>,
    stdin: &[u8],
    check: impl Fn(&Path, &str),
) {
    let root = fast_tempdir("exaraid-damaged-tail-deletions-");
    let mut killed_points = 0;
    for k in 1..=KILLS_MAX {
        let dir = root.path().join(format!("k{k}"));
        store_with_f_and_g(&dir, write_path);
        prepare(&dir);
        let args = args(s(&dir));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if !killed_at(&args, stdin, &format!("{REMOVE_ZONE}:{k}")) {
            break;
        }
        killed_points += 1;
        damage_last_journal_record(&dir);
        check(
            &dir,
            &format!("{write_path} {args:?} killed at deletion {k}"),
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(killed_points >= 5, "the command deletes on every OSS");
}

/// `put f` over an existing file, killed while it deletes the old content's objects (and,
/// on the WCL path, while its settle of the old content deletes the cache zone).
#[test]
fn a_put_killed_while_deleting_then_its_last_record_damaged_reads_old_or_new() {
    let new = bytes(3, F_BYTES);
    for write_path in ["rmw", "wcl"] {
        at_every_deletion(
            write_path,
            |_| {},
            |d| vec!["store".into(), "put".into(), d.into(), "f".into()],
            &new,
            |dir, what| {
                reads_one_of(dir, "f", &[&bytes(1, F_BYTES), &new], false, what);
                reads_one_of(dir, "g", &[&bytes(2, G_BYTES)], false, what);
            },
        );
    }
}

/// `rm f`, killed while it deletes f's objects: f is gone or reads whole.
#[test]
fn an_rm_killed_while_deleting_then_its_last_record_damaged_leaves_f_whole_or_gone() {
    for write_path in ["rmw", "wcl"] {
        at_every_deletion(
            write_path,
            |_| {},
            |d| vec!["store".into(), "rm".into(), d.into(), "f".into()],
            b"",
            |dir, what| {
                reads_one_of(dir, "f", &[&bytes(1, F_BYTES)], true, what);
                reads_one_of(dir, "g", &[&bytes(2, G_BYTES)], false, what);
            },
        );
    }
}

/// `flush` of cached bytes (WCL) or of an open window's bytes (delayed), killed while its
/// settle deletes the cache zone: every file reads every acknowledged byte, g too, which
/// the flush only moved home.
#[test]
fn a_flush_killed_while_deleting_the_cache_zone_then_its_last_record_damaged_reads_right() {
    let written = bytes(4, WRITE_BYTES);
    let mut f_now = bytes(1, F_BYTES);
    f_now[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&written);
    for write_path in ["wcl", "delayed"] {
        at_every_deletion(
            write_path,
            |dir| {
                if write_path == "delayed" {
                    ok(&["store", "delayed", "start", s(dir), "f"], b"");
                }
                let at = WRITE_AT.to_string();
                ok(&["store", "write", s(dir), "f", "--offset", &at], &written);
            },
            |d| vec!["store".into(), "flush".into(), d.into()],
            b"",
            |dir, what| {
                reads_one_of(dir, "f", &[&f_now], false, what);
                reads_one_of(dir, "g", &[&bytes(2, G_BYTES)], false, what);
            },
        );
    }
}

/// The kinds of the journal's records, in order (payload JSON: `{"seq": N, "rec": KIND or
/// {KIND: ...}}`), with where each starts.
fn journal_records(journal: &[u8]) -> Vec<(usize, String)> {
    let mut records = Vec::new();
    let mut at = 0usize;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        let payload: serde_json::Value =
            serde_json::from_slice(&journal[at + 8..at + 8 + len]).unwrap();
        let kind = match &payload["rec"] {
            serde_json::Value::String(kind) => kind.clone(),
            rec => rec.as_object().unwrap().keys().next().unwrap().clone(),
        };
        records.push((at, kind));
        at += 8 + len;
    }
    records
}

/// The journal as a binary before session 13 leaves it: no record between the one that
/// allowed the deletions (`Replace`, `Remove`, `PlannerReset`) and them. The records after
/// the last such one are cut off; `false` when there is none, or nothing after it.
fn as_an_older_binary_left_it(dir: &Path) -> bool {
    let path = dir.join("journal");
    let journal = std::fs::read(&path).unwrap();
    let records = journal_records(&journal);
    let allowed = ["Replace", "Remove", "PlannerReset"];
    let Some(j) = records
        .iter()
        .rposition(|(_, k)| allowed.contains(&k.as_str()))
    else {
        return false;
    };
    let Some(&(end, _)) = records.get(j + 1) else {
        return false;
    };
    std::fs::write(&path, &journal[..end]).unwrap();
    true
}

/// The safety net under the fix, for journals an older binary wrote (no record between
/// the one that allows deletions and them): a put, rm or flush killed at every zone-file
/// deletion, the journal cut back to the
/// record that allowed the deletions, that record damaged. The open sees the deletions on
/// the OSSs: a settle's end is rolled forward (its bytes are home), a removed file's bytes
/// are recorded lost, named; never zeros with exit 0.
#[test]
fn deletions_after_a_damaged_record_of_an_older_binary_read_right_or_lost_never_zeros() {
    let new = bytes(3, F_BYTES);
    let old = bytes(1, F_BYTES);
    let written = bytes(4, WRITE_BYTES);
    let mut f_now = old.clone();
    f_now[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&written);
    let lost_or = |dir: &Path, allowed: &[&[u8]], what: &str| {
        let out = exaraid(&["store", "get", s(dir), "f"], b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            if out.status.success() {
                allowed.iter().any(|a| out.stdout == *a)
            } else {
                err.contains("are lost") || err.contains("no file")
            },
            "{what}: 'f' read {} bytes ({} zeros), exit {:?}: {err}",
            out.stdout.len(),
            out.stdout.iter().filter(|&&b| b == 0).count(),
            out.status.code()
        );
        reads_one_of(dir, "g", &[&bytes(2, G_BYTES)], false, what);
    };
    let write_f = |dir: &Path| {
        let at = WRITE_AT.to_string();
        ok(&["store", "write", s(dir), "f", "--offset", &at], &written);
    };
    let scenes: [(&str, &str, &[u8]); 4] = [
        ("rmw", "put", &new),
        ("rmw", "rm", b""),
        ("wcl", "flush", b""),
        ("wcl", "put", &new),
    ];
    for (write_path, command, stdin) in scenes {
        let root = fast_tempdir("exaraid-damaged-tail-older-");
        let mut scenes_seen = 0;
        for k in 1..=KILLS_MAX {
            let dir = root.path().join(format!("k{k}"));
            store_with_f_and_g(&dir, write_path);
            if command == "flush" {
                write_f(&dir);
            }
            let mut args = vec!["store", command, s(&dir)];
            if command != "flush" {
                args.push("f");
            }
            if !killed_at(&args, stdin, &format!("{REMOVE_ZONE}:{k}")) {
                break;
            }
            let what =
                format!("{write_path} {command} killed at deletion {k}, an older binary's journal");
            if as_an_older_binary_left_it(&dir) {
                scenes_seen += 1;
                damage_last_journal_record(&dir);
                if command == "flush" {
                    // Rolled forward: the settle had moved every cached byte home.
                    reads_one_of(&dir, "f", &[&f_now], false, &what);
                    reads_one_of(&dir, "g", &[&bytes(2, G_BYTES)], false, &what);
                } else {
                    lost_or(&dir, &[&old, &new], &what);
                }
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
        assert!(
            scenes_seen >= 5,
            "{write_path} {command}: {scenes_seen} scenes"
        );
    }
}

/// A delayed window's timeout in the test below: long enough that the commands between
/// a window's START and the flush never outlast it on a loaded machine (a fresh window
/// that timed out again would hide the fault), short enough to wait for once.
const WINDOW_TIMEOUT_MS: u64 = 3_000;

/// `journal` without the `WindowStart` records marked `timed_out` (what a binary before
/// session 16 never wrote: its settle journaled no marks before its reset). Sequence
/// numbers only need to increase. Returns how many it dropped.
fn without_timed_out_marks(dir: &Path) -> usize {
    let path = dir.join("journal");
    let journal = std::fs::read(&path).unwrap();
    let records = journal_records(&journal);
    let mut kept = Vec::new();
    let mut dropped = 0;
    for (i, &(at, ref kind)) in records.iter().enumerate() {
        let end = records.get(i + 1).map_or(journal.len(), |&(next, _)| next);
        let payload: serde_json::Value = serde_json::from_slice(&journal[at + 8..end]).unwrap();
        if kind == "WindowStart" && payload["rec"]["WindowStart"]["window"]["timed_out"] == true {
            dropped += 1;
            continue;
        }
        kept.extend_from_slice(&journal[at..end]);
    }
    std::fs::write(&path, &kept).unwrap();
    dropped
}

/// note16 OPEN 8 (s16d leftover): an open that rolls a settle's end forward from the OSSs
/// (a `flush` killed while it deletes the cache zone, its `PlannerReset` the journal's
/// damaged last record, written by a binary before session 16: no `timed_out` marks before
/// the reset) journaled the reset without marking the windows the planner had closed: a
/// window whose timeout had fired started fresh, and writes to its file went unprotected
/// again for a new timeout. The open now journals the marks before the reset it infers, as
/// the settle does: a write to that file is protected at once.
#[test]
fn a_settle_end_rolled_forward_keeps_a_timed_out_window_closed() {
    use exaraid_store::Store;
    let root = fast_tempdir("exaraid-damaged-tail-timed-out-");
    let mut scenes_seen = 0;
    let timeout = WINDOW_TIMEOUT_MS.to_string();
    for k in 1..=KILLS_MAX {
        let dir = root.path().join(format!("k{k}"));
        let args = [
            "--oss",
            "5",
            "--code",
            "raid5",
            "--write-path",
            "delayed",
            "--window-timeout-ms",
            &timeout,
        ];
        common::init_store(s(&dir), &args);
        ok(&["store", "put", s(&dir), "f"], &bytes(1, F_BYTES));
        ok(&["store", "delayed", "start", s(&dir), "f"], b"");
        let at = WRITE_AT.to_string();
        let written = bytes(4, WRITE_BYTES);
        ok(&["store", "write", s(&dir), "f", "--offset", &at], &written);
        std::thread::sleep(std::time::Duration::from_millis(WINDOW_TIMEOUT_MS + 500));
        // This command's open fires f's timeout; h's window is fresh and holds cached bytes
        // for the flush's settle to move home.
        ok(&["store", "delayed", "start", s(&dir), "h"], b"");
        ok(
            &["store", "write", s(&dir), "h", "--offset", "0"],
            &bytes(5, G_BYTES),
        );
        if !killed_at(
            &["store", "flush", s(&dir)],
            b"",
            &format!("{REMOVE_ZONE}:{k}"),
        ) {
            break;
        }
        let what = format!("flush killed at deletion {k}, a session-15 binary's journal");
        if as_an_older_binary_left_it(&dir) && without_timed_out_marks(&dir) > 0 {
            scenes_seen += 1;
            damage_last_journal_record(&dir);
            let store = Store::open(&dir).unwrap_or_else(|e| panic!("{what}: open: {e}"));
            store.write("f", 20_000, &bytes(6, 500)).unwrap();
            assert_eq!(
                store.status().unwrap().bytes_unprotected,
                0,
                "{what}: f's window had timed out, a write to its file is protected at once"
            );
            let mut f_now = bytes(1, F_BYTES);
            f_now[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&written);
            f_now[20_000..20_500].copy_from_slice(&bytes(6, 500));
            assert!(store.get("f").unwrap() == f_now, "{what}: f");
            assert!(store.get("h").unwrap() == bytes(5, G_BYTES), "{what}: h");
            store.close().unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(scenes_seen >= 1, "{scenes_seen} scenes");
}
