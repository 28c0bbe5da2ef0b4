//! kill -9 of `rm`, and of a `put` over an existing file, at every object file the removal
//! deletes and after every journal record. The removal used to delete the old content's
//! object files after its record with nothing on record about them: a kill part-way left
//! the rest on the OSSs for ever (a half-deleted file nobody could see or delete, its space
//! lost). Now the record names the file as being removed until an `ObjectsRemoved` record,
//! and every open deletes what is left. After every kill: the file is whole (old content,
//! or the put's new one) or gone, the other file is whole, no object file of a removed file
//! is left, scrub is clean, and a rebuild of an OSS works.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{bytes, exaraid, fast_tempdir, killed_at, ok, s};
use exaraid_store::superblock::Superblock;
use exaraid_store::torture::{JOURNAL_RECORD, REMOVE_ZONE};
use exaraid_store::Store;

/// More kill points than any command here passes (it then finishes).
const KILLS_MAX: u64 = 64;
const OLD_BYTES: usize = 40_000;
const NEW_BYTES: usize = 30_000;
const OTHER_BYTES: usize = 50_000;

#[derive(Clone, Copy, Debug)]
enum Command {
    Rm,
    Put,
}

/// A raid6 4+2 store holding `f` and `other`.
fn store_with_two_files(dir: &Path) {
    common::init_store(s(dir), &["--code", "raid6", "--k", "4", "--oss", "6"]);
    ok(&["store", "put", s(dir), "other"], &bytes(2, OTHER_BYTES));
    ok(&["store", "put", s(dir), "f"], &bytes(1, OLD_BYTES));
}

/// Every object file on every OSS belongs to a file in the table (opening the store first:
/// the open finishes removals a crash cut).
fn assert_no_object_of_a_removed_file(dir: &Path, what: &str) {
    let store = Store::open(dir).unwrap();
    let live: BTreeSet<u64> = store
        .list()
        .iter()
        .map(|(name, _)| store.file_id(name).unwrap())
        .collect();
    store.close().unwrap();
    for oss_dir in Superblock::load(dir).unwrap().oss_dirs {
        for entry in std::fs::read_dir(oss_dir.join("objects")).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let id: u64 = name.split('.').next().unwrap().parse().unwrap();
            assert!(
                live.contains(&id) || id == u64::MAX,
                "{what}: {} holds {name}, an object of a removed file (live files: {live:?})",
                oss_dir.display()
            );
        }
    }
}

fn check_after_kill(dir: &Path, command: Command, what: &str) {
    ok(&["store", "ls", s(dir)], b"");
    let got = exaraid(&["store", "get", s(dir), "f"], b"");
    let old = bytes(1, OLD_BYTES);
    match command {
        Command::Rm => assert!(
            !got.status.success() || got.stdout == old,
            "{what}: f is neither whole nor gone ({} bytes)",
            got.stdout.len()
        ),
        Command::Put => assert!(
            got.status.success() && (got.stdout == old || got.stdout == bytes(3, NEW_BYTES)),
            "{what}: f is neither the old nor the new content: {}",
            String::from_utf8_lossy(&got.stderr)
        ),
    }
    assert_eq!(
        ok(&["store", "get", s(dir), "other"], b""),
        bytes(2, OTHER_BYTES),
        "{what}: the other file"
    );
    assert_no_object_of_a_removed_file(dir, what);
    ok(&["store", "scrub", s(dir)], b"");
}

fn killed_at_every(command: Command, point: &str) {
    let mut finished = false;
    for n in 1..=KILLS_MAX {
        let tmp = fast_tempdir("exaraid-remove-crash");
        let dir = tmp.path().join("store");
        store_with_two_files(&dir);
        let new = bytes(3, NEW_BYTES);
        let (args, stdin): (Vec<&str>, &[u8]) = match command {
            Command::Rm => (vec!["store", "rm", s(&dir), "f"], b""),
            Command::Put => (vec!["store", "put", s(&dir), "f"], &new),
        };
        let what = format!("{command:?} killed at {point}:{n}");
        if !killed_at(&args, stdin, &format!("{point}:{n}")) {
            check_after_kill(&dir, command, &what);
            // The store stays whole through a rebuild after the removal.
            ok(&["store", "fail", s(&dir), "--oss", "1"], b"");
            ok(&["store", "rebuild", s(&dir), "--oss", "1"], b"");
            check_after_kill(&dir, command, &format!("{what}, after a rebuild"));
            finished = true;
            break;
        }
        check_after_kill(&dir, command, &what);
    }
    assert!(
        finished,
        "{command:?} passed {point} more than {KILLS_MAX} times"
    );
}

#[test]
fn rm_killed_at_every_deleted_object_file_leaves_the_file_gone_and_nothing_of_it() {
    killed_at_every(Command::Rm, REMOVE_ZONE);
}

#[test]
fn rm_killed_after_every_journal_record_leaves_the_file_whole_or_gone() {
    killed_at_every(Command::Rm, JOURNAL_RECORD);
}

#[test]
fn put_killed_at_every_deleted_object_file_of_the_old_content_leaves_one_whole_content() {
    killed_at_every(Command::Put, REMOVE_ZONE);
}

/// Review s12r (small notes): `rm` while one OSS directory was missing (a mount not there)
/// exited 0, and once the directory was back the removed file's objects stayed on it for
/// good (nothing listed or deleted them). The removal stays pending until that OSS is
/// back: the next command's open deletes them, and the file stays removed meanwhile.
#[test]
fn rm_with_an_oss_directory_missing_deletes_its_objects_when_it_is_back() {
    let tmp = fast_tempdir("rm-oss-away");
    let dir = tmp.path().join("store");
    store_with_two_files(&dir);
    let oss_1 = dir.join("oss-1");
    let away = dir.join("away");
    std::fs::rename(&oss_1, &away).unwrap();
    ok(&["store", "rm", s(&dir), "f"], b"");
    ok(&["store", "ls", s(&dir)], b"");
    std::fs::rename(&away, &oss_1).unwrap();

    assert_no_object_of_a_removed_file(&dir, "rm with OSS 1 away, then OSS 1 back");
    let listed = String::from_utf8(ok(&["store", "ls", s(&dir)], b"")).unwrap();
    assert!(
        listed
            .lines()
            .all(|l| l.split_whitespace().last() != Some("f")),
        "f stays removed: {listed}"
    );
    assert!(ok(&["store", "get", s(&dir), "other"], b"") == bytes(2, OTHER_BYTES));
    ok(&["store", "scrub", s(&dir)], b"");
}
