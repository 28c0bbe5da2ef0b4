//! `rm` and `put` (over an existing file) delete the old content's object files. They did it
//! after their record, without the store's gate: a `get` or a `scrub` of that content already
//! under way read some elements before the deletion and the rest after it, where a deleted
//! element reads as never written (zeros). So a `get` returned wrong bytes (part old content,
//! part zeros) with no error, and a scrub reported a parity mismatch on a healthy store (and
//! `--repair` wrote the removed file's parity back, an object nobody deletes).
//! Now the removal holds the gate exclusive from its record to the last deleted file: what
//! runs before it sees the whole old content, what runs after it no file.
//!
//! The reader tests park the reader at its second element read of the file, then start the
//! removal, give it a moment to finish (the unfixed store deletes then) and let the reader
//! go on. The last test races writes against an `rm`.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::ElementKey;
use exaraid_store::superblock::Superblock;
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::{Condvar, Mutex};

/// How long the removal gets to finish while the reader is parked. The fixed store waits for
/// the reader whatever this is; the unfixed one deletes in a few milliseconds.
const REMOVAL_GRACE: Duration = Duration::from_millis(300);

/// Parks the `nth` read of one object (file id) until released.
#[derive(Default)]
struct ParkNthRead {
    object: Mutex<Option<u64>>,
    nth: AtomicUsize,
    reads: AtomicUsize,
    parked: AtomicBool,
    released: Mutex<bool>,
    released_cv: Condvar,
}

impl Hook for ParkNthRead {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        if *self.object.lock() != Some(key.object) {
            return;
        }
        if self.reads.fetch_add(1, Ordering::SeqCst) + 1 != self.nth.load(Ordering::SeqCst) {
            return;
        }
        self.parked.store(true, Ordering::SeqCst);
        let mut released = self.released.lock();
        while !*released {
            self.released_cv.wait(&mut released);
        }
    }
}

impl ParkNthRead {
    fn arm(&self, object: u64, nth: usize) {
        self.nth.store(nth, Ordering::SeqCst);
        *self.object.lock() = Some(object);
    }
    fn release(&self) {
        *self.released.lock() = true;
        self.released_cv.notify_all();
    }
}

const OLD_BYTES: usize = 40_000;

/// A raid5 3+1 rmw store holding `f` (several stripes), reopened with `hook` on every OSS.
fn store_with_f(dir: &Path, hook: &Arc<ParkNthRead>) -> Store {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    store.put("f", &pattern(1, OLD_BYTES)).unwrap();
    store.put("g", &pattern(2, 30_000)).unwrap();
    store.close().unwrap();
    open_wrapped(dir, hook, &[], OpenOptions::default()).unwrap()
}

/// Run `reader` until it parks, then `removal` beside it; release the reader after the
/// removal returned or `REMOVAL_GRACE`, whichever comes first. Returns what the reader got.
fn race<R: Send>(
    hook: &ParkNthRead,
    reader: impl FnOnce() -> R + Send,
    removal: impl FnOnce() + Send,
) -> R {
    std::thread::scope(|s| {
        let reading = s.spawn(reader);
        eventually("the reader parks at its second element read", || {
            hook.parked.load(Ordering::SeqCst)
        });
        let removing = s.spawn(removal);
        let start = std::time::Instant::now();
        while !removing.is_finished() && start.elapsed() < REMOVAL_GRACE {
            std::thread::sleep(Duration::from_millis(5));
        }
        hook.release();
        let got = reading.join().unwrap();
        removing.join().unwrap();
        got
    })
}

/// No object file of file `id` is left on any OSS.
fn assert_objects_gone(dir: &Path, id: u64) {
    for oss_dir in Superblock::load(dir).unwrap().oss_dirs {
        for zone in ["data", "parity", "cache"] {
            let path = oss_dir.join("objects").join(format!("{id}.{zone}"));
            assert!(
                !path.exists(),
                "{} of the removed file is still there",
                path.display()
            );
        }
    }
}

#[test]
fn a_get_under_way_while_rm_runs_returns_the_whole_old_content() {
    let dir = tempfile::tempdir().unwrap();
    let hook = Arc::new(ParkNthRead::default());
    let store = store_with_f(dir.path(), &hook);
    let id = store.file_id("f").unwrap();
    hook.arm(id, 2);
    let got = race(&hook, || store.get("f"), || store.remove("f").unwrap());
    let got = got.expect("a get begun before the rm reads the file");
    assert!(
        got == pattern(1, OLD_BYTES),
        "a get begun before the rm returned wrong bytes ({} of {} differ): part of the file was deleted under it",
        got.iter().zip(pattern(1, OLD_BYTES)).filter(|(a, b)| *a != b).count(),
        got.len()
    );
    assert!(store.get("f").is_err(), "f is removed");
    assert_eq!(store.get("g").unwrap(), pattern(2, 30_000));
    assert_objects_gone(dir.path(), id);
}

#[test]
fn a_get_under_way_while_put_replaces_the_file_returns_the_whole_old_content() {
    let dir = tempfile::tempdir().unwrap();
    let hook = Arc::new(ParkNthRead::default());
    let store = store_with_f(dir.path(), &hook);
    let id = store.file_id("f").unwrap();
    hook.arm(id, 2);
    let new = pattern(3, 25_000);
    let got = race(&hook, || store.get("f"), || store.put("f", &new).unwrap());
    let got = got.expect("a get begun before the put reads the file");
    assert!(
        got == pattern(1, OLD_BYTES),
        "a get begun before the put returned neither the old nor the new content ({} bytes)",
        got.len()
    );
    assert_eq!(store.get("f").unwrap(), new);
    assert_objects_gone(dir.path(), id);
}

#[test]
fn a_scrub_under_way_while_rm_runs_finds_nothing_and_writes_nothing_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let hook = Arc::new(ParkNthRead::default());
    let store = store_with_f(dir.path(), &hook);
    let id = store.file_id("f").unwrap();
    hook.arm(id, 2);
    let report = race(
        &hook,
        || store.scrub(true).unwrap(),
        || store.remove("f").unwrap(),
    );
    assert!(
        report.corrupt_elements.is_empty()
            && report.parity_mismatches.is_empty()
            && report.unrepairable.is_empty(),
        "a scrub of a healthy store beside an rm found problems: {:?} {:?} {:?}",
        report.corrupt_elements.len(),
        report.parity_mismatches,
        report.unrepairable
    );
    assert_objects_gone(dir.path(), id);
    let report = store.scrub(false).unwrap();
    assert!(report.parity_mismatches.is_empty() && report.corrupt_elements.is_empty());
    assert_eq!(store.get("g").unwrap(), pattern(2, 30_000));
}

/// Rounds of writes racing an `rm` of their file (most rounds hit the race on the store
/// this was written on: 253 of 300 left objects behind before the fix).
const WRITE_RM_ROUNDS: usize = 20;

/// A write that looked the file up before an `rm` and got the store after it wrote into
/// the removed file: its objects came back, on no one's list, for ever. Now such a write
/// fails, nothing written; whatever the interleaving, nothing of a removed file is left.
#[test]
fn writes_racing_an_rm_leave_nothing_of_the_removed_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    for round in 0..WRITE_RM_ROUNDS {
        store.write("f", 0, &pattern(1, 5000)).unwrap();
        let id = store.file_id("f").unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..5 {
                    // Fails once the rm ran; may create `f` anew after it (another id).
                    let _ = store.write("f", 100, &pattern(2, 3000));
                }
            });
            s.spawn(|| store.remove("f").unwrap());
        });
        assert_ne!(
            store.file_id("f").ok(),
            Some(id),
            "round {round}: f was removed"
        );
        assert_objects_gone(dir.path(), id);
        let _ = store.remove("f"); // one a late write created anew
    }
}
