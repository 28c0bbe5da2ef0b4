//! `rebuild --to` refuses a target that is (or is inside) one of the store directory's own
//! files (review s17r R17-5): a directory made at `DIR/state.tmp` left every later
//! checkpoint failing for good ("writing s/state: Is a directory") and the journal growing
//! without end. The refusal changes nothing, and a rebuild onto a proper directory inside
//! the store directory still works.

mod common;
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
