//! `rebuild --to` refuses a target that is (or is inside) one of the store directory's own
//! files (review s17r R17-5): a directory made at `DIR/state.tmp` left every later
//! checkpoint failing for good ("writing s/state: Is a directory") and the journal growing
//! without end. The refusal changes nothing, and a rebuild onto a proper directory inside
//! the store directory still works.

use crate::common;
use common::*;
use std::path::Path;

/// The store directory's own names that are not there between commands (the temporary names
/// of its metadata's atomic replacement, the init marker), and a path inside one of them.
/// (`state`, `journal`, `superblock` exist, so are refused as files already.)
const OWN_TARGETS: [&str; 5] = [
    "state.tmp",
    "journal.tmp",
    "superblock.tmp",
    "exaraid-init.json",
    "state.tmp/sub",
];

#[test]
fn rebuild_onto_a_store_file_name_is_refused_and_changes_nothing() {
    let tmp = fast_tempdir("exaraid-rebuild-own-");
    let dir = tmp.path().join("s");
    init_store(s(&dir), &["--oss", "6", "--code", "raid6"]);
    let data = bytes(5, 100_000);
    ok(&["store", "put", s(&dir), "a"], &data);
    ok(&["store", "fail", s(&dir), "--oss", "1"], b"");

    for name in OWN_TARGETS {
        let target = dir.join(name);
        let before: Vec<(String, Vec<u8>)> = ["state", "journal", "superblock"]
            .iter()
            .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
            .collect();
        let err = fails(
            &[
                "store",
                "rebuild",
                s(&dir),
                "--oss",
                "1",
                "--to",
                s(&target),
            ],
            b"",
        );
        assert!(
            err.contains("refused, nothing changed") && err.contains("a file of the store's own"),
            "--to {name}: {err}"
        );
        assert!(err.contains("pick another directory"), "{err}");
        let top = name.split('/').next().unwrap();
        assert!(
            !dir.join(top).exists(),
            "--to {name}: nothing made at {top}"
        );
        for (f, bytes) in &before {
            assert_eq!(&std::fs::read(dir.join(f)).unwrap(), bytes, "{f} unchanged");
        }
    }

    // A directory of its own inside the store directory is still a fine target, and the
    // store checkpoints after it without a warning.
    let good = dir.join("oss-1-new");
    let out = exaraid(
        &["store", "rebuild", s(&dir), "--oss", "1", "--to", s(&good)],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ok(&["store", "put", s(&dir), "b"], &data);
    let status = exaraid(&["store", "status", s(&dir)], b"");
    assert!(status.status.success());
    assert!(
        status.stderr.is_empty(),
        "no warning: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    ok(&["store", "fail", s(&dir), "--oss", "0"], b"");
    ok(&["store", "fail", s(&dir), "--oss", "2"], b"");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), data);
    assert_eq!(ok(&["store", "get", s(&dir), "b"], b""), data);
}

/// The same rule at `init` (review s17r R17-5, left by s17h): an OSS directory that is (or is
/// inside) one of the store directory's own names was accepted; `--oss-dirs s/state,...`
/// failed only after labelling every OSS directory ("writing s/state: Is a directory"),
/// `s/journal.tmp` made a store whose every torn-tail decision would meet a directory. Now
/// refused before anything is made, and the store's own directory is not even created.
#[test]
fn init_with_an_oss_directory_named_like_a_store_file_is_refused_and_makes_nothing() {
    let tmp = fast_tempdir("exaraid-init-own-");
    let dir = tmp.path().join("s");
    let others: Vec<String> = (1..4)
        .map(|i| s(&tmp.path().join(format!("o{i}"))).to_string())
        .collect();
    for name in [
        "state",
        "state.tmp",
        "journal",
        "journal.tmp",
        "superblock",
        "state.tmp/sub",
    ] {
        let own = dir.join(name);
        let dirs = [s(&own), &others[0], &others[1], &others[2]].join(",");
        let err = fails(
            &[
                "store",
                "init",
                s(&dir),
                "--code",
                "raid5",
                "--oss-dirs",
                &dirs,
            ],
            b"",
        );
        assert!(
            err.contains("refused, nothing changed")
                && err.contains("OSS directory")
                && err.contains("a file of the store's own")
                && err.contains("pick another directory"),
            "--oss-dirs {name}: {err}"
        );
        assert!(
            !dir.exists(),
            "--oss-dirs {name}: the store directory is not made"
        );
        for o in &others {
            assert!(
                !Path::new(o).exists(),
                "--oss-dirs {name}: {o} not labelled"
            );
        }
    }

    // An OSS directory of its own inside the store directory is still fine.
    let inside = dir.join("disk-0");
    let dirs = [s(&inside), &others[0], &others[1], &others[2]].join(",");
    ok(
        &[
            "store",
            "init",
            s(&dir),
            "--code",
            "raid5",
            "--oss-dirs",
            &dirs,
        ],
        b"",
    );
    let data = bytes(9, 50_000);
    ok(&["store", "put", s(&dir), "a"], &data);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), data);
}

/// The same rule for the store directory itself (review s18r R18-2): `store init S1/state.tmp`
/// made a new store inside S1's own name, and S1 never checkpointed again ("writing
/// S1/state: Is a directory", the journal growing without end). Now refused before anything
/// is made, S1 unchanged and warning-free; a store in a directory of its own inside S1 is
/// still fine.
#[test]
fn init_of_a_store_directory_at_another_stores_own_file_name_is_refused_and_makes_nothing() {
    let tmp = fast_tempdir("exaraid-init-dir-own-");
    let s1 = tmp.path().join("s1");
    init_store(s(&s1), &["--oss", "3", "--code", "raid5"]);
    let data = bytes(7, 5_000);
    ok(&["store", "put", s(&s1), "f"], &data);
    let before: Vec<(String, Vec<u8>)> = ["state", "journal", "superblock"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(s1.join(f)).unwrap()))
        .collect();
    for name in OWN_TARGETS {
        let new = s1.join(name);
        let err = fails(
            &["store", "init", s(&new), "--oss", "3", "--code", "raid5"],
            b"",
        );
        assert!(
            err.contains("refused, nothing changed")
                && err.contains("store directory")
                && err.contains("a file of the store's own")
                && err.contains("pick another directory"),
            "init {name}: {err}"
        );
        let top = name.split('/').next().unwrap();
        assert!(!s1.join(top).exists(), "init {name}: nothing made at {top}");
        for (f, bytes) in &before {
            assert_eq!(&std::fs::read(s1.join(f)).unwrap(), bytes, "{f} unchanged");
        }
    }

    // S1 checkpoints as before: a write, then a command without any warning.
    ok(&["store", "write", s(&s1), "f", "--offset", "10"], b"abc");
    let status = exaraid(&["store", "status", s(&s1)], b"");
    assert!(status.status.success());
    assert!(
        status.stderr.is_empty(),
        "no warning: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut want = data.clone();
    want[10..13].copy_from_slice(b"abc");
    assert_eq!(ok(&["store", "get", s(&s1), "f"], b""), want);

    // A directory of its own inside S1 is still a fine place for another store.
    let inner = s1.join("inner");
    init_store(s(&inner), &["--oss", "3", "--code", "raid5"]);
    ok(&["store", "put", s(&inner), "g"], &data);
    assert_eq!(ok(&["store", "get", s(&inner), "g"], b""), data);
}

/// The other order: a directory left at one of a store directory's own names (an earlier
/// `init S/state.tmp`, or made by hand) before `init S`; the new store could never replace
/// its state. Refused, nothing made.
#[test]
fn init_of_a_directory_holding_a_directory_at_its_own_file_name_is_refused() {
    let tmp = fast_tempdir("exaraid-init-holds-own-");
    for name in ["state.tmp", "journal.tmp", "superblock.tmp"] {
        let dir = tmp.path().join(format!("s-{name}"));
        std::fs::create_dir_all(dir.join(name)).unwrap();
        let err = fails(
            &["store", "init", s(&dir), "--oss", "3", "--code", "raid5"],
            b"",
        );
        assert!(
            err.contains("refused, nothing changed")
                && err.contains(name)
                && err.contains("a file of the store's own"),
            "{name}: {err}"
        );
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec![name.to_string()], "nothing made beside it");
    }
}
