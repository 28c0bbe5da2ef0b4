//! A `put` refused on a full disk leaves the store usable (review s6r R6-1). Before, a put
//! over a file with cached bytes that found no room for the settle of the old content (or
//! whose new content failed part-way and could not be removed without a settle) left its
//! staging file `NAME\0put`; every later open tried to remove it, which needs the same
//! settle, and failed: `ls`, `get`, `status`, `rm` and `fail` all failed at open, with
//! `--oss-capacity` for good.

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// The reviewer's store: WCL raid6 4+2 over 7 OSSs, 4 KiB unit, each OSS 60,000 bytes.
fn reviewer_store(dir: &std::path::Path) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 7, CodeSpec::raid6(4));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Wcl;
    opts.oss_capacity_bytes = Some(60_000);
    Store::init(dir, &opts).unwrap()
}

/// The reviewer's commands up to the full disk (scripts/repro/repro-full-put-stuck.py):
/// OSS 3 failed, files f0, f3, f4 with cached bytes. Returns the files' expected bytes.
fn fill_degraded(store: &Store) -> Vec<(&'static str, Vec<u8>)> {
    store.put("f0", &pattern(1, 5562)).unwrap();
    store.fail_oss(3).unwrap();
    store.write("f1", 1835, &pattern(2, 901)).unwrap();
    let f3 = pattern(3, 7610);
    store.write("f3", 3850, &f3).unwrap();
    let f0 = pattern(4, 26476);
    store.put("f0", &f0).unwrap();
    store.remove("f1").unwrap();
    let f4 = pattern(5, 25813);
    store.put("f4", &f4).unwrap();
    let mut f3_whole = vec![0u8; 3850];
    f3_whole.extend_from_slice(&f3);
    vec![("f0", f0), ("f3", f3_whole), ("f4", f4)]
}

fn assert_files(store: &Store, files: &[(&str, Vec<u8>)], when: &str) {
    let names: Vec<String> = store.list().into_iter().map(|(n, _)| n).collect();
    let expected: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, expected, "the files listed {when}");
    for (name, bytes) in files {
        let got = store
            .get(name)
            .unwrap_or_else(|e| panic!("get '{name}' {when}: {e}"));
        assert!(got == *bytes, "'{name}' reads other bytes {when}");
    }
}

#[test]
fn a_put_over_a_file_with_cached_bytes_on_a_full_store_replaces_it_or_leaves_the_store_usable() {
    let dir = scratch();
    let store = reviewer_store(dir.path());
    let mut files = fill_degraded(&store);
    // Over files with cached bytes: the old content must settle, which needs room. On the
    // code before, both were refused after their new content was written, and left it.
    for (name, seed, len) in [("f4", 6, 17032), ("f3", 7, 45185)] {
        let data = pattern(seed, len);
        match store.put(name, &data) {
            Ok(()) => files.iter_mut().find(|(n, _)| *n == name).unwrap().1 = data,
            Err(StoreError::NoSpace(m)) => assert!(m.contains("full"), "says why: {m}"),
            Err(e) => panic!("put {name} on a full store: {e}"),
        }
        assert_files(&store, &files, &format!("after put {name}, same process"));
    }
    drop(store);
    let store = Store::open(dir.path()).expect("the store opens after a put on a full store");
    assert_files(&store, &files, "after the puts, reopened");
    assert!(
        store.close_with_warnings().unwrap().is_empty(),
        "no put left anything behind"
    );
}

/// Yields `bytes`, then reports their end once (so `put_from` writes them as its first
/// piece), then fails: the input broke part-way.
struct BreaksAfter {
    bytes: Vec<u8>,
    at: usize,
    ended: bool,
}

impl std::io::Read for BreaksAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at < self.bytes.len() {
            let n = buf.len().min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        if !self.ended {
            self.ended = true;
            return Ok(0);
        }
        Err(std::io::Error::other("the input broke"))
    }
}

/// Issue #4 OPEN 5 (s6f left): the staging content of a failed put is dropped without a
/// settle. Before, removing its cached bytes needed a settle, which on this full degraded
/// store found no room: the staging file stayed (a warning at every open) and every later
/// put of the name was refused until room came back.
#[test]
fn a_put_whose_partial_content_is_cached_leaves_nothing_behind_on_a_full_store() {
    let dir = scratch();
    let store = reviewer_store(dir.path());
    let files = fill_degraded(&store);
    let mut input = BreaksAfter {
        bytes: pattern(8, 3000),
        at: 0,
        ended: false,
    };
    // The 3,000 bytes go to the cache zone (a settle of them would find no room).
    let m = store
        .put_from("f5", &mut input)
        .expect_err("the input broke part-way")
        .to_string();
    assert!(m.contains("the input broke"), "names the cause: {m}");
    assert!(
        !m.contains("removes it"),
        "nothing of the put stays behind: {m}"
    );
    assert_files(&store, &files, "after a put whose input broke");
    assert!(
        store.close_with_warnings().unwrap().is_empty(),
        "no staging content left to warn of"
    );
    let store = Store::open(dir.path()).expect("reopened");
    assert!(
        store.close_with_warnings().unwrap().is_empty(),
        "no staging content left for an open to remove"
    );
    let store = Store::open(dir.path()).expect("reopened");
    expect_put_f5_goes_through(&store, &files);
}

/// A put of `f5` goes through (the cache chunks and home slots the dropped staging content
/// held are free again), every file reads right, no warning, scrub clean.
fn expect_put_f5_goes_through(store: &Store, files: &[(&'static str, Vec<u8>)]) {
    store
        .put("f5", &pattern(9, 1000))
        .expect("a put of the name once its earlier staging content is gone");
    let mut after = files.to_vec();
    after.push(("f5", pattern(9, 1000)));
    assert_files(store, &after, "after the put of f5");
    assert_consistent(store);
}

/// Tells the child process of the kill sweep below where its store is.
const CHILD_DIR_ENV: &str = "EXARAID_TEST_FULL_DISK_PUT_CHILD_DIR";

/// The killed child of `a_put_whose_input_breaks_killed_anywhere_leaves_nothing_behind`:
/// the put whose input breaks, in a process its parent set to kill itself at a kill point
/// (`EXARAID_KILL_AT`). Run as a test of its own (no store named) it does nothing.
#[test]
fn child_put_whose_input_breaks() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(std::path::Path::new(&dir)).unwrap();
    let mut input = BreaksAfter {
        bytes: pattern(8, 3000),
        at: 0,
        ended: false,
    };
    store
        .put_from("f5", &mut input)
        .expect_err("the input broke");
    store.close_with_warnings().unwrap();
}

/// Run the child above on the store in `dir`, killed at the `n`-th pass of `point`. `true`:
/// killed there; `false`: it ended first, successfully.
fn child_killed_at(dir: &std::path::Path, point: &str, n: u64) -> bool {
    child_test_killed_at(
        concat!(module_path!(), "::child_put_whose_input_breaks"),
        CHILD_DIR_ENV,
        dir,
        point,
        n,
    )
}

/// A kill -9 anywhere in a failed put on the full degraded store, its refusal included
/// (the drop of its staging content: the planner's `Forget`, the `Remove`, each object
/// file deleted): the next open leaves nothing of it behind and the name can be put.
#[test]
fn a_put_whose_input_breaks_killed_anywhere_leaves_nothing_behind() {
    // Bounded: the put passes far fewer points than this.
    const KILL_POINTS_MAX: u64 = 64;
    // Every journal record; every 6th object file deleted (3 zones on each of 6 OSSs up:
    // a kill after one is like a kill after the next, and each round costs a new store).
    for (point, stride) in [
        (exaraid_store::torture::JOURNAL_RECORD, 1),
        (exaraid_store::torture::REMOVE_ZONE, 6),
    ] {
        let mut n = 1;
        loop {
            assert!(n <= KILL_POINTS_MAX, "the put passed {point} too often");
            let dir = scratch();
            let files = fill_degraded(&reviewer_store(dir.path()));
            let killed = child_killed_at(dir.path(), point, n);
            let when = format!("killed at {point}:{n}");
            let store = Store::open(dir.path()).unwrap_or_else(|e| panic!("open {when}: {e}"));
            assert_files(&store, &files, &when);
            let warnings = store.close_with_warnings().unwrap();
            assert!(warnings.is_empty(), "{when}: left behind: {warnings:?}");
            let store = Store::open(dir.path()).unwrap();
            expect_put_f5_goes_through(&store, &files);
            if !killed {
                break;
            }
            n += stride;
        }
        assert!(n > 1, "the put never passed {point}");
    }
}

/// Review s6r R6-2: a `write` of a new name refused for room ("nothing was written") left
/// the name behind, 0 bytes long. Now the refused write leaves no new name.
#[test]
fn a_write_of_a_new_name_refused_for_room_leaves_no_name() {
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), 5, CodeSpec::array(CodeKind::Dcode, 5));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Wcl;
    opts.oss_capacity_bytes = Some(50_000);
    let store = Store::init(dir.path(), &opts).unwrap();
    let files: Vec<(&str, Vec<u8>)> = Vec::new();
    match store.put("a", &pattern(2, 30_000)) {
        Err(StoreError::NoSpace(_)) => {}
        other => panic!("a put larger than the store: {other:?}"),
    }
    assert_files(&store, &files, "after a refused put");
    let refused = |e: StoreError| matches!(e, StoreError::NoSpace(_));
    let far = pattern(3, 100);
    assert!(refused(store.write("a", 900_000, &far).unwrap_err()));
    assert_files(&store, &files, "after a refused write");
    let at = 900_000u64;
    let mut input = far.as_slice();
    assert!(refused(store.write_from("a", at, &mut input).unwrap_err()));
    assert_files(&store, &files, "after a refused streamed write");
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_files(&store, &files, "reopened");
    assert_consistent(&store);
}
