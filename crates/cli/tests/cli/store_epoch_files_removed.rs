//! Review s14r R14-2: the store's state and journal put back from an older copy are refused
//! ("older than its OSS directories"), and the refusal's last advice opens them anyway once
//! every OSS's `exaraid-epoch.json` is removed. Followed, files REPLACED or REMOVED since
//! the copy read as all zeros with exit 0 and scrub was clean: the removals, which only the
//! lost newer metadata knew of, deleted their objects, and the OSSs report the slots never
//! written. And the older metadata's `next_file_id` is behind, so a new file took the id of
//! a newer file whose objects were still on the OSSs: `read` of a hole in it returned that
//! file's bytes while `get` wrote zeros. Now such bytes are recorded LOST, named by `get`
//! and by scrub (exit 2); a new file's id is past every id the OSSs hold objects of.

use crate::common;
use common::*;
use std::path::Path;

/// The metadata files of a store directory (what a restore of it brings back).
const METADATA: [&str; 3] = ["superblock", "state", "journal"];

fn copy_metadata(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for name in METADATA {
        let _ = std::fs::remove_file(to.join(name));
        if from.join(name).exists() {
            std::fs::copy(from.join(name), to.join(name)).unwrap();
        }
    }
}

/// The refusal's escape hatch: every OSS directory's epoch file removed.
fn remove_epoch_files(dir: &Path, osses: usize) {
    for i in 0..osses {
        std::fs::remove_file(dir.join(format!("oss-{i}")).join("exaraid-epoch.json")).unwrap();
    }
}

/// A raid6 4+2 rmw store of 5 OSSs (the review's repro) holding `f` and `g` and `k`,
/// whose metadata is then put back from a copy taken before `f` was replaced and `g`
/// removed, and opened through the escape hatch. `k` is untouched since the copy. Also
/// returned: the refusal before the hatch.
fn store_behind_its_osses(tmp: &Path) -> (std::path::PathBuf, String) {
    let dir = tmp.join("y");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid6", "--write-path", "rmw"]);
    ok(&["store", "put", d, "f"], &bytes(1, 40_000));
    ok(&["store", "put", d, "g"], &bytes(2, 40_000));
    ok(&["store", "put", d, "k"], &bytes(3, 12_000));
    let backup = tmp.join("bak");
    copy_metadata(&dir, &backup);
    ok(&["store", "put", d, "f"], &bytes(4, 30_000));
    ok(&["store", "rm", d, "g"], b"");
    copy_metadata(&backup, &dir);
    let refused = fails(&["store", "get", d, "f"], b"");
    assert!(
        refused.contains("older than its OSS directories"),
        "{refused}"
    );
    remove_epoch_files(&dir, 5);
    (dir, refused)
}

#[test]
fn files_removed_since_an_older_metadata_are_named_lost_not_read_as_zeros() {
    let tmp = fast_tempdir("s14f-lost");
    let (dir, refused) = store_behind_its_osses(tmp.path());
    let d = s(&dir);
    for name in ["f", "g"] {
        let err = fails(&["store", "get", d, name], b"");
        assert!(
            err.contains(&format!("file '{name}' bytes 0..40000"))
                && err.contains("its objects were removed from the OSSs"),
            "get {name} names its bytes lost and why: {err}"
        );
    }
    // Every other byte reads.
    assert!(ok(&["store", "get", d, "k"], b"") == bytes(3, 12_000));
    let scrub = exaraid(&["store", "scrub", d], b"");
    let out = String::from_utf8_lossy(&scrub.stdout);
    assert_eq!(scrub.status.code(), Some(2), "scrub: {out}");
    assert!(
        out.contains("LOST: 'f' bytes 0..40000") && out.contains("LOST: 'g' bytes 0..40000"),
        "scrub names the lost bytes: {out}"
    );
    // On record: later opens (the OSSs told an epoch again) still name them.
    let err = fails(
        &["store", "read", d, "g", "--offset", "100", "--length", "10"],
        b"",
    );
    assert!(err.contains("file 'g' bytes 0..40000"), "{err}");
    // The refusal promised just that (before: "read back stale or as lost").
    assert!(
        refused.contains("files removed or replaced since are recorded lost"),
        "the refusal says what its escape hatch gives: {refused}"
    );
}

#[test]
fn a_new_file_after_an_older_metadata_reads_its_holes_as_zeros() {
    let tmp = fast_tempdir("s14f-ids");
    let (dir, _) = store_behind_its_osses(tmp.path());
    let d = s(&dir);
    let head = bytes(5, 5000);
    ok(&["store", "put", d, "h"], &head);
    ok(&["store", "write", d, "h", "--offset", "20000"], b"TAIL");
    let hole = ok(
        &[
            "store", "read", d, "h", "--offset", "5000", "--length", "15000",
        ],
        b"",
    );
    assert!(hole.iter().all(|&b| b == 0), "read of h's hole: zeros");
    let mut want = head.clone();
    want.resize(20_000, 0);
    want.extend_from_slice(b"TAIL");
    assert!(ok(&["store", "get", d, "h"], b"") == want, "get of h");
}

/// s14m F3: the same older metadata with a torn journal tail (an append cut by a crash,
/// here half a record) opened through the hatch. Its losses were worded as a removal whose
/// journal record was damaged and cut off (`OBJECTS_DELETED`), and the open rolled a
/// settle forward from a missing cache zone, although with metadata older than its OSSs a
/// newer metadata's removal or settle explains both (as without the torn tail). The older
/// metadata decides now, whatever the tail: named as removed since, no roll-forward.
#[test]
fn files_removed_since_an_older_metadata_with_a_torn_journal_tail_are_named_removed_since() {
    use std::io::Write;
    let tmp = fast_tempdir("s14f-torn");
    let (dir, _) = store_behind_its_osses(tmp.path());
    let d = s(&dir);
    // Half a record: a length of 100 bytes, a crc, and 12 of the 100 bytes.
    let mut torn = 100u32.to_le_bytes().to_vec();
    torn.extend_from_slice(&[0xAB; 16]);
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("journal"))
        .unwrap();
    journal.write_all(&torn).unwrap();
    drop(journal);
    for name in ["f", "g"] {
        let err = fails(&["store", "get", d, name], b"");
        assert!(
            err.contains(&format!("file '{name}' bytes 0..40000"))
                && err.contains("its objects were removed from the OSSs")
                && !err.contains("journal record that said so was damaged"),
            "get {name} names its bytes lost as removed since the older metadata: {err}"
        );
    }
    assert!(ok(&["store", "get", d, "k"], b"") == bytes(3, 12_000));
}
