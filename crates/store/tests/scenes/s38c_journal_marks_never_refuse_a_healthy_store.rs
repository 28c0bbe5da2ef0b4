//! Session 38 (s38c, R32-3): each OSS keeps a journal mark (`backend::JOURNAL_MARK_FILE`),
//! the journal record known durable when it made cache zone bytes durable, and an open that
//! finds a mark past the journal refuses the store (`review_s32r_journal_cut_at_rest.rs`).
//! These tests hold the other side: the mark never refuses a store no one cut. A clean
//! close, a checkpoint (which truncates the journal), a kill -9 at any journal record or
//! mark write, a rebuilt OSS, and a store from before marks all open and read their
//! acknowledged bytes.

use crate::common;

use std::path::Path;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::backend::JOURNAL_MARK_FILE;
use exaraid_store::torture;
use exaraid_store::Store;

/// Tells the child process of the kill sweep where its store is.
const CHILD_DIR_ENV: &str = "EXARAID_TEST_S38C_JOURNAL_MARKS_CHILD_DIR";
/// More passes than the child's writes make of any point below (each sweep ends when the
/// child finishes first; the bound only keeps a runaway sweep finite).
const KILL_PASSES_MAX: u64 = 200;

/// An acknowledged WCL write makes marks (so the tests below check a live mark), and a
/// clean close and reopen, fsync'd or not, opens and reads it.
#[test]
fn a_clean_close_and_reopen_is_not_refused() {
    for fsync in [true, false] {
        let code = CodeSpec::raid6(4);
        let (_top, dir, _layout) = init_wcl_without_timeout(code);
        let store = match fsync {
            true => Store::open(&dir).unwrap(),
            false => open_unsynced(&dir),
        };
        store.put("f", &pattern(1, 8 * UNIT)).unwrap();
        let new = pattern(2, UNIT);
        store.write("f", 100, &new).unwrap();
        assert!(
            !osses_with_a_mark(&dir, columns(code)).is_empty(),
            "fsync {fsync}: the WCL write left marks"
        );
        store.close().unwrap();
        // Twice: the second open after a session whose close bumped the epoch.
        for session in 0..2 {
            let store = Store::open(&dir).unwrap();
            assert_eq!(
                store.read("f", 100, UNIT as u64).unwrap(),
                new,
                "fsync {fsync}, session {session}"
            );
            store.close().unwrap();
        }
    }
}

/// A checkpoint truncates the journal: the marks made before it are below the state's last
/// record. The store's image right after the checkpoint, and after one more write, opens.
#[test]
fn a_checkpoint_does_not_make_the_marks_refuse_the_store() {
    let code = CodeSpec::raid6(4);
    let (top, dir, _layout) = init_wcl_without_timeout(code);
    let store = Store::open(&dir).unwrap();
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    let first = pattern(2, UNIT);
    store.write("f", 100, &first).unwrap();
    store.checkpoint().unwrap();
    assert!(!osses_with_a_mark(&dir, columns(code)).is_empty());
    let after_checkpoint = top.path().join("after-checkpoint");
    copy_tree(&dir, &after_checkpoint);
    let second = pattern(3, UNIT);
    store.write("f", 3 * UNIT as u64, &second).unwrap();
    let after_write = top.path().join("after-write");
    copy_tree(&dir, &after_write);
    drop(store);
    for (image, reads) in [
        (&after_checkpoint, vec![(100u64, &first)]),
        (
            &after_write,
            vec![(100, &first), (3 * UNIT as u64, &second)],
        ),
    ] {
        let store = Store::open(image).unwrap();
        for (at, bytes) in reads {
            assert_eq!(
                &store.read("f", at, UNIT as u64).unwrap(),
                bytes,
                "{}",
                image.display()
            );
        }
    }
}

/// The killed child of the sweep below: WCL writes into a store, fsync'd, in a process its
/// parent set to kill itself at a kill point (`EXARAID_KILL_AT`). Run as a test of its own
/// (no store named) it does nothing.
#[test]
fn child_writes() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    store.write("f", 100, &pattern(2, UNIT)).unwrap();
    store.write("f", 5000, &pattern(3, 2 * UNIT)).unwrap();
    store.checkpoint().unwrap();
    store.write("f", 100, &pattern(4, UNIT)).unwrap();
    store.close().unwrap();
}

/// A kill -9 at every journal record (and its fsync), every mark written and every extents
/// log fdatasync of those writes leaves a store the next open accepts: the journal is
/// written ahead of the marks.
#[test]
fn a_kill_9_at_any_record_or_mark_of_wcl_writes_is_not_refused() {
    let code = CodeSpec::raid6(4);
    let (top, base, _layout) = init_wcl_without_timeout(code);
    let mut marks_seen = false;
    for point in [
        torture::JOURNAL_MARK_WRITTEN,
        torture::JOURNAL_RECORD,
        torture::EXTENTS_SYNCED,
    ] {
        let mut finished = false;
        let mut kills = 0;
        for n in 1..=KILL_PASSES_MAX {
            let trial = top.path().join(format!("{point}-{n}"));
            copy_tree(&base, &trial);
            if !child_test_killed_at(
                concat!(module_path!(), "::child_writes"),
                CHILD_DIR_ENV,
                &trial,
                point,
                n,
            ) {
                finished = true;
                break;
            }
            kills += 1;
            marks_seen |= !osses_with_a_mark(&trial, columns(code)).is_empty();
            match Store::open(&trial) {
                Ok(store) => store.close().unwrap(),
                Err(e) => panic!("killed at {point}:{n}, the open refused the store: {e}"),
            }
            std::fs::remove_dir_all(&trial).unwrap();
        }
        assert!(finished, "{point}: the child finished within the sweep");
        assert!(kills > 0, "{point}: the child passed it");
        eprintln!("{point}: {kills} kills, each opened");
    }
    assert!(marks_seen, "some kill left marks to check");
}

/// An OSS failed and rebuilt (its directory emptied: no mark), then more writes: the store
/// opens, and reads every write.
#[test]
fn a_rebuilt_oss_is_not_refused() {
    let code = CodeSpec::raid6(4);
    let (_top, dir, _layout) = init_wcl_without_timeout(code);
    let mut store = Store::open(&dir).unwrap();
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    let first = pattern(2, UNIT);
    store.write("f", 100, &first).unwrap();
    let marked = osses_with_a_mark(&dir, columns(code));
    assert!(!marked.is_empty());
    let oss = marked[0];
    store.fail_oss(oss).unwrap();
    lose_disk(&dir, oss);
    store.rebuild(oss, None).unwrap();
    let second = pattern(3, UNIT);
    store.write("f", 3 * UNIT as u64, &second).unwrap();
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.read("f", 100, UNIT as u64).unwrap(), first);
    assert_eq!(
        store.read("f", 3 * UNIT as u64, UNIT as u64).unwrap(),
        second
    );
}

/// A store from before marks (none on any OSS) is not checked: it opens, also with its
/// journal cut as in R32-3, as every store did before (the known limit stays for it until
/// its next WCL write makes marks).
#[test]
fn a_store_without_marks_opens_unchecked() {
    let code = CodeSpec::raid6(4);
    let (top, dir, _layout) = init_wcl_without_timeout(code);
    let store = open_unsynced(&dir);
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    let journal = dir.join("journal");
    let before_write = std::fs::metadata(&journal).unwrap().len();
    store.write("f", 100, &pattern(2, UNIT)).unwrap();
    let saved = top.path().join("saved");
    copy_tree(&dir, &saved);
    drop(store);
    let mut removed = 0;
    for oss in 0..columns(code) {
        let mark = saved.join(format!("oss-{oss}")).join(JOURNAL_MARK_FILE);
        if mark.exists() {
            std::fs::remove_file(mark).unwrap();
            removed += 1;
        }
    }
    assert!(removed > 0, "the write had left marks");
    restore_with_journal_cut(&saved, &dir, &journal, before_write);
    // Only that the open is not refused: what the read returns is R32-3's known limit for
    // a store without marks (review r38c LOW-8: not pinned here).
    drop(open_unsynced(&dir));
}
