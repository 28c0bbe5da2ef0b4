//! Merge review s13m N3 (WRONG BYTES, exit 0) and N4: the open that cuts a damaged journal
//! tail writes its decisions in the tail's place (`Journal::cut_tail_writing`): the
//! deletions a cut removal let run (s13b: a file's bytes recorded lost), the `Lost` of a
//! cut acknowledged write it cannot prove whole (s13a), and the cut itself on record (the
//! warning kept until a scrub and the operator deal with it). That write was one write()
//! over the tail, and a power cut can keep its first pages and lose the later ones: the
//! tail overwritten, the journal ending cleanly on the first records, the next open saw no
//! tail and read the acknowledged write's OLD bytes with Ok; and the warning, appended
//! after the cut, was forgotten by a kill between the two.
//!
//! Specification: the open's cut write stopped after any of its records (a kill point after
//! each, `torture::JOURNAL_CUT_WRITE`: what a power cut keeping that prefix of its pages
//! leaves) leaves a store whose next opens read every acknowledged byte right or fail
//! naming it lost, never old bytes with Ok, and warn of the damaged record.
use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

const OSS: usize = 5;
const OLD_BYTES: usize = 65536;
const WRITE_AT_BYTES: u64 = 1000;
const WRITE_BYTES: usize = 3000;
/// Bounded: the cut write passes far fewer points (one per record, one after the rename).
const KILL_POINTS_MAX: u64 = 16;

/// Tells the child process of the sweep below where its store is.
const CHILD_DIR_ENV: &str = "EXARAID_TEST_CUT_WRITE_CRASH_CHILD_DIR";

/// The start of the journal's last few intact records, last first (what a failure shows).
fn last_records(store_dir: &Path) -> Vec<String> {
    let bytes = std::fs::read(store_dir.join("journal")).unwrap();
    let mut payloads = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let Some(payload) = bytes.get(at + 8..at + 8 + len) else {
            break; // a torn tail
        };
        payloads.push(String::from_utf8_lossy(payload).chars().take(48).collect());
        at += 8 + len;
    }
    payloads.into_iter().rev().take(5).collect()
}

struct Scene {
    _dir: tempfile::TempDir,
    store_dir: PathBuf,
    /// The store as the power cut left it, before any open.
    crashed: PathBuf,
    f_old: Vec<u8>,
    f_acked: Vec<u8>,
    g: Vec<u8>,
}

/// raid5 WCL (no crcs journaled of a cached write: the open cannot prove one whole): f and
/// g put and flushed home, then an acknowledged WCL write into f; the power cut right after
/// it returned (the unsynced records after its `Durable` dropped), that `Durable` damaged
/// (one bit), and one of g's data zone files deleted (outside exaraid: the open takes it for
/// a removal the cut record let run). The open's cut write then holds g's `Lost` (first),
/// f's `Lost`, and the cut and its damage on record.
fn scene() -> Scene {
    let dir = scratch();
    let store_dir = dir.path().join("s");
    let store = init(&store_dir, CodeSpec::raid5(4), OSS, WritePath::Wcl);
    let f_old = pattern(1, OLD_BYTES);
    let g = pattern(3, OLD_BYTES);
    let g_id = put_f_then_g_flushed(&store, &store_dir, OSS, &f_old, &g);
    let new = pattern(2, WRITE_BYTES);
    let f_acked =
        acknowledged_write_then_power_cut(store, &store_dir, &f_old, WRITE_AT_BYTES, &new);

    let dropped = end_journal_on_last(&store_dir, "Durable", RecordEnd::BitFlipped);
    for r in &dropped {
        assert_eq!(r.2, "Input", "only unsynced records follow: {dropped:?}");
    }

    delete_zone_file(&store_dir, OSS, g_id, "data");

    let crashed = dir.path().join("crashed");
    copy_tree(&store_dir, &crashed);
    Scene {
        _dir: dir,
        store_dir,
        crashed,
        f_old,
        f_acked,
        g,
    }
}

/// The store back as the power cut left it.
fn lay_crashed(scene: &Scene) {
    std::fs::remove_dir_all(&scene.store_dir).unwrap();
    copy_tree(&scene.crashed, &scene.store_dir);
}

/// The killed child of the sweep below: an open of the store, in a process its parent set
/// to kill itself at a kill point (`EXARAID_KILL_AT`). Run as a test of its own (no store
/// named) it does nothing.
#[test]
fn child_open() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.close().unwrap();
}

/// Run the child above on the store in `dir`, killed at the `n`-th pass of `point`. `true`:
/// killed there; `false`: it ended first, successfully.
fn child_killed_at(dir: &Path, point: &str, n: u64) -> bool {
    child_test_killed_at(
        concat!(module_path!(), "::child_open"),
        CHILD_DIR_ENV,
        dir,
        point,
        n,
    )
}

/// f reads its acknowledged bytes, or fails naming them lost (and `status` lists the
/// write's range); never the old bytes with Ok. g reads right or fails naming it lost. The
/// damaged record is on record: the warning names the operator's action. (The cut's own
/// warning, parity unchecked, is cleared by the open's parity check with every OSS up.)
fn assert_named_never_wrong(scene: &Scene, store: &Store, when: &str) {
    match store.get("f") {
        Ok(got) => {
            assert!(got != scene.f_old, "{when}: f read its OLD bytes with Ok");
            assert!(got == scene.f_acked, "{when}: f read wrong bytes with Ok");
        }
        Err(StoreError::DataLost(m)) => {
            let lost = store.status().unwrap().lost_ranges;
            let covered = |i: u64| {
                lost.iter().any(|l| {
                    l.file == "f" && l.offset_bytes <= i && i < l.offset_bytes + l.len_bytes
                })
            };
            let write = WRITE_AT_BYTES..WRITE_AT_BYTES + WRITE_BYTES as u64;
            assert!(
                write.clone().all(covered),
                "{when}: the write's bytes are on record as lost: {lost:?} ({m})"
            );
        }
        Err(e) => panic!("{when}: f: {e}"),
    }
    match store.get("g") {
        Ok(got) => assert!(got == scene.g, "{when}: g read wrong bytes with Ok"),
        Err(e) => assert!(e.to_string().contains("lost"), "{when}: g: {e}"),
    }
    let warning = store
        .journal_tail_cut_warning()
        .unwrap_or_else(|| panic!("{when}: the damaged record's warning is gone"));
    assert!(
        warning.contains("--accept-journal-damage"),
        "{when}: the damage is on record: {warning}"
    );
}

#[test]
fn the_opens_cut_write_stopped_after_any_record_loses_no_decision() {
    let scene = scene();
    let point = exaraid_store::torture::JOURNAL_CUT_WRITE;
    let mut n = 1;
    while child_killed_at(&scene.store_dir, point, n) {
        assert!(
            n < KILL_POINTS_MAX,
            "the cut write passes {point} at most so often"
        );
        eprintln!(
            "killed at {point}:{n}: the journal's last records, last first: {:?}",
            last_records(&scene.store_dir)
        );
        for open in 0..2 {
            let when = format!("killed at {point}:{n}, open {open}");
            let store = Store::open(&scene.store_dir).unwrap();
            assert_named_never_wrong(&scene, &store, &when);
            store.close().unwrap();
        }
        lay_crashed(&scene);
        n += 1;
    }
    assert!(n > 2, "the cut write was stopped after its records: {n}");
    // And not stopped at all: the same.
    for open in 0..2 {
        let store = Store::open(&scene.store_dir).unwrap();
        assert_named_never_wrong(&scene, &store, &format!("not killed, open {open}"));
        store.close().unwrap();
    }
}
