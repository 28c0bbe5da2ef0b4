//! A WCL destage run by the background worker (`Store::serve_background`) that records the
//! bytes of the cache stripe it moves home LOST (a stale cache element raid5 cannot locate,
//! the scene of `stale_cache_element.rs`), beside the client write that completed the stripe
//! (note15 OPEN 1, s15j's leftover). The write's end clears from the lost record the ranges
//! it wrote again (`Rec::Rewritten`): only what was lost before it ran, never a loss recorded
//! while it was in flight, which may describe its own bytes (a stale byte home then read as
//! the write's, exit 0). Recorded after the write returned, the loss is on record (`status`),
//! and reads name it.

mod common;
use common::*;
#[path = "common/hooked.rs"]
mod hooked;
use hooked::*;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{ElementKey, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};
use parking_lot::{Condvar, Mutex};

/// The name of the test's writer thread (the pause hook holds only it).
const WRITER: &str = "exaraid-test-writer";
/// The OSS whose cache zone loses writes: it holds a data column of stripe 0.
const STALE_OSS: usize = 1;
/// The write that completes cache stripe 0 (raid5 over 5, 4096-byte elements).
const STRIPE_BYTES: usize = 16_384;
/// No test waits longer for the other thread (a failing test ends instead of hanging).
const WAIT: Duration = Duration::from_secs(60);
/// Held by a test that sets the pause hook: it is process-wide, and tests run in parallel.
static PAUSE_HOOK_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

/// Puts `snapshot` back as `oss`'s cache zone file at its first cache-zone read once armed
/// (the destage's: the client write of a whole cache stripe reads no cache), after holding
/// that read while `held`: a lost write that shows right before the destage reads.
struct StaleAtFirstCacheRead {
    armed: AtomicBool,
    oss: usize,
    path: PathBuf,
    snapshot: Vec<u8>,
    held: Mutex<bool>,
    released: Condvar,
}

impl StaleAtFirstCacheRead {
    fn release(&self) {
        *self.held.lock() = false;
        self.released.notify_all();
    }
}

impl Hook for StaleAtFirstCacheRead {
    fn before_read(&self, oss: usize, key: ElementKey) {
        if oss == self.oss && key.zone == Zone::Cache && self.armed.swap(false, Ordering::SeqCst) {
            let mut held = self.held.lock();
            while *held {
                assert!(
                    !self.released.wait_for(&mut held, WAIT).timed_out(),
                    "the test never released the destage's read"
                );
            }
            std::fs::write(&self.path, &self.snapshot).unwrap();
        }
    }
}

/// raid5 over 5, WCL: `f` (64 KiB) with cache stripe 0 written whole once and moved home
/// (its chunk free for reuse), stripe 1 cached in part. Opened with the hook armed: the next
/// destage of stripe 0 reads a stale element on `STALE_OSS`. Returns the store, the hook and
/// the acknowledged bytes.
fn scene(dir: &Path, hold_the_destage: bool) -> (Store, Arc<StaleAtFirstCacheRead>, Vec<u8>) {
    let mut expected = pattern(1, 65_536);
    {
        let store = init(dir, CodeSpec::raid5(4), 5, WritePath::Wcl);
        store.put("f", &expected).unwrap();
        for (offset, seed, len) in [(20_000usize, 2u64, 1_000usize), (0, 3, STRIPE_BYTES)] {
            let bytes = pattern(seed, len);
            store.write("f", offset as u64, &bytes).unwrap();
            expected[offset..offset + len].copy_from_slice(&bytes);
        }
    }
    let path = cache_zone_file(dir, STALE_OSS);
    let hook = Arc::new(StaleAtFirstCacheRead {
        armed: AtomicBool::new(true),
        oss: STALE_OSS,
        snapshot: std::fs::read(&path).unwrap(),
        path,
        held: Mutex::new(hold_the_destage),
        released: Condvar::new(),
    });
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    (store, hook, expected)
}

fn wrong_bytes(got: &[u8], expected: &[u8]) -> usize {
    got.iter().zip(expected).filter(|(a, b)| a != b).count() + got.len().abs_diff(expected.len())
}

/// Every 4 KiB of `f` reads as acknowledged or fails naming its loss; returns how many were
/// named lost (only bytes of the destaged stripe may be).
fn assert_reads_right_or_lost(store: &Store, expected: &[u8]) -> usize {
    let mut lost = 0;
    for at in (0..expected.len()).step_by(4096) {
        match store.read("f", at as u64, 4096) {
            Ok(got) => assert!(
                got[..] == expected[at..at + 4096],
                "bytes {at}..{} read {} wrong bytes with success",
                at + 4096,
                wrong_bytes(&got, &expected[at..at + 4096])
            ),
            Err(e) => {
                assert!(
                    matches!(&e, StoreError::DataLost(m) if m.contains("They are lost")),
                    "bytes {at}..: {e}"
                );
                assert!(
                    at < STRIPE_BYTES,
                    "only the destaged stripe's bytes are lost"
                );
                lost += 1;
            }
        }
    }
    lost
}

/// Sets `stop` and releases the destage however the test ends, so a failing test never
/// leaves the worker running inside `thread::scope`; removes the pause hook if `.2` (only the
/// test that set it: the hook is process-wide).
struct StopOnDrop<'a>(&'a AtomicBool, Arc<StaleAtFirstCacheRead>, bool);
impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if self.2 {
            exaraid_store::torture::set_pause_hook(None);
        }
        self.1.release();
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Sets the pause hook: the thread named `WRITER` stops after its write's plans ran (before
/// its end), says so on the first channel and goes on when the second says so. Holds
/// `PAUSE_HOOK_USER` (the hook is process-wide) while the guard lives.
fn hold_the_writer_at_its_end() -> (
    std::sync::MutexGuard<'static, ()>,
    mpsc::Receiver<()>,
    mpsc::Sender<()>,
) {
    let hook_user = PAUSE_HOOK_USER.lock().unwrap_or_else(|e| e.into_inner());
    let (at_end_tx, at_end) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = std::sync::Mutex::new(go_rx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_RAN
            && std::thread::current().name() == Some(WRITER)
        {
            at_end_tx.send(()).unwrap();
            go_rx
                .lock()
                .unwrap()
                .recv_timeout(WAIT)
                .expect("the test lets the writer go on");
        }
    })));
    (hook_user, at_end, go)
}

#[test]
fn a_loss_the_worker_records_while_the_write_is_in_flight_is_never_cleared_as_rewritten() {
    // The writer is held after its plans ran (its bytes durable, the destage of the cache
    // stripe it completed queued for the worker) until the worker's destage recorded the
    // stale bytes lost: what a writer descheduled there meets. On main the write's end
    // then took the loss as one it rewrote (`Rewritten`): stale bytes read with success.
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), false);
    let (_hook_user, at_end, go) = hold_the_writer_at_its_end();
    let bytes = pattern(4, STRIPE_BYTES);
    let stop = AtomicBool::new(false);
    let wrote = std::thread::scope(|s| {
        let _stop = StopOnDrop(&stop, hook.clone(), true);
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else the write runs the destage inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", 0, &bytes))
            .unwrap();
        at_end
            .recv_timeout(WAIT)
            .expect("the writer reaches the end of its write");
        eventually("the worker's destage records the stale bytes lost", || {
            !store.status().unwrap().lost_ranges.is_empty()
        });
        go.send(()).unwrap();
        let wrote = writer.join().unwrap();
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap().unwrap();
        wrote
    });
    expected[..STRIPE_BYTES].copy_from_slice(&bytes);
    assert!(
        !hook.armed.load(Ordering::SeqCst),
        "the destage read the stale cache element"
    );
    let lost = assert_reads_right_or_lost(&store, &expected);
    assert!(lost > 0, "the bytes recorded lost read lost");
    assert!(
        matches!(&wrote, Err(StoreError::DataLost(m)) if m.contains("while it was in flight")),
        "the write whose bytes were recorded lost before it returned says so: {wrote:?}"
    );
    assert!(!store.status().unwrap().lost_ranges.is_empty());
    assert_consistent(&store);
    // The journal replays to the same record.
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(assert_reads_right_or_lost(&store, &expected), lost);
}

#[test]
fn a_loss_the_worker_records_after_the_write_returned_is_listed_and_read_as_lost() {
    // The write returns before its cache stripe's destage reads (the worker's destage is
    // held at its read): it knows of no loss and returns Ok. The loss recorded after is on
    // record (`status`) and every read of those bytes names it.
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), true);
    let bytes = pattern(4, STRIPE_BYTES);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let _stop = StopOnDrop(&stop, hook.clone(), false);
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else the write runs the destage inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        store
            .write("f", 0, &bytes)
            .expect("the write returns before its destage ran");
        hook.release();
        eventually("the worker's destage records the stale bytes lost", || {
            !store.status().unwrap().lost_ranges.is_empty()
        });
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap().unwrap();
    });
    expected[..STRIPE_BYTES].copy_from_slice(&bytes);
    assert!(!hook.armed.load(Ordering::SeqCst));
    let lost = assert_reads_right_or_lost(&store, &expected);
    assert!(lost > 0, "the bytes recorded lost read lost");
    assert_consistent(&store);
}

#[test]
fn a_loss_a_later_writes_destage_records_while_an_earlier_write_is_in_flight_stays() {
    // No background worker: the destage runs inline, in the thread of the write that
    // completes the cache stripe. An earlier write of the same cache stripe (its column on
    // `STALE_OSS`) is held after its plans ran; the completing write's destage reads its
    // bytes stale and records them lost. On main, the earlier write's end then took the
    // loss as one it rewrote (`Rewritten`): stale bytes read with success.
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), false);
    let (held_wrote, completing_wrote, _) = held_write_scene(&store, &hook, &mut expected, None);
    assert!(
        matches!(&completing_wrote, Err(StoreError::DataLost(_))),
        "the completing write's destage recorded its bytes lost: {completing_wrote:?}"
    );
    let lost = assert_reads_right_or_lost(&store, &expected);
    assert!(
        store.read("f", 4_096, 4096).is_err(),
        "the held write's bytes, read stale by the destage, read lost"
    );
    assert!(lost > 0);
    assert!(
        matches!(&held_wrote, Err(StoreError::DataLost(m)) if m.contains("while it was in flight")),
        "the held write whose bytes were recorded lost before it returned says so: {held_wrote:?}"
    );
    assert_consistent(&store);
    // The journal replays to the same record.
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(assert_reads_right_or_lost(&store, &expected), lost);
}

/// The scene of `a_loss_a_later_writes_destage_records_while_an_earlier_write_is_in_flight_stays`:
/// write A of column 1 of stripe 0 (on `STALE_OSS`) held after its plans ran; columns 0,
/// then 2..3 written, the last completes the cache stripe and destages it inline, recording
/// A's bytes (read stale) lost; then, while A is still held, write C of `again` if any; then
/// A ends. Returns the results of A, of the completing write and of C, with `expected` the
/// bytes acknowledged in that order.
#[allow(clippy::type_complexity)]
fn held_write_scene(
    store: &Store,
    hook: &Arc<StaleAtFirstCacheRead>,
    expected: &mut [u8],
    again: Option<(usize, &[u8])>,
) -> (
    Result<(), StoreError>,
    Result<(), StoreError>,
    Option<Result<(), StoreError>>,
) {
    let (_hook_user, at_end, go) = hold_the_writer_at_its_end();
    let held = (4_096usize, pattern(5, 4_096));
    let others = [(0usize, pattern(6, 4_096)), (8_192, pattern(7, 8_192))];
    let stop = AtomicBool::new(true);
    let results = std::thread::scope(|s| {
        let _stop = StopOnDrop(&stop, hook.clone(), true);
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", held.0 as u64, &held.1))
            .unwrap();
        at_end
            .recv_timeout(WAIT)
            .expect("the held writer reaches the end of its write");
        store
            .write("f", others[0].0 as u64, &others[0].1)
            .expect("the stripe is not complete yet: no destage");
        let completing = store.write("f", others[1].0 as u64, &others[1].1);
        let again_wrote = again.map(|(at, bytes)| {
            assert!(
                lost_overlapping(store, held.0 as u64, 4096),
                "the destage recorded the held write's bytes lost before C ran"
            );
            store.write("f", at as u64, bytes)
        });
        go.send(()).unwrap();
        (writer.join().unwrap(), completing, again_wrote)
    });
    assert!(
        !hook.armed.load(Ordering::SeqCst),
        "the destage read the stale cache element"
    );
    for (at, bytes) in [
        (held.0, &held.1[..]),
        (others[0].0, &others[0].1[..]),
        (others[1].0, &others[1].1[..]),
    ]
    .into_iter()
    .chain(again)
    {
        expected[at..at + bytes.len()].copy_from_slice(bytes);
    }
    results
}

/// Does `status` list a loss of `f` overlapping `at..at + len`?
fn lost_overlapping(store: &Store, at: u64, len: u64) -> bool {
    store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .any(|l| l.file == "f" && l.offset_bytes < at + len && at < l.offset_bytes + l.len_bytes)
}

/// Reads `f`'s bytes `at..at + bytes.len()`: they must read back as `bytes`.
fn assert_reads_back(store: &Store, (at, bytes): (usize, &[u8]), what: &str) {
    let got = store.read("f", at as u64, bytes.len() as u64);
    assert!(
        matches!(&got, Ok(b) if b[..] == bytes[..]),
        "{what}: bytes {at}..{} read {:?}",
        at + bytes.len(),
        got.map(|b| format!("{} wrong bytes", wrong_bytes(&b, bytes)))
    );
}

#[test]
fn a_later_writes_acknowledged_bytes_over_an_in_flight_writes_noted_loss_are_never_recorded_lost() {
    // Review s17m M17-1. C overwrites the held write A's lost range whole and returns Ok (its
    // `Rewritten` takes the loss off the record: C's bytes are durable and newer). On main A's
    // end still held the loss on its notes, found it off record and journaled it lost again:
    // C's acknowledged bytes read as LOST, for good (journaled).
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), false);
    let c = pattern(8, 4_096);
    let (held_wrote, completing_wrote, again_wrote) =
        held_write_scene(&store, &hook, &mut expected, Some((4_096, &c)));
    let again_wrote = again_wrote.expect("C ran");
    assert!(
        matches!(&completing_wrote, Err(StoreError::DataLost(_))),
        "the completing write's destage recorded its bytes lost: {completing_wrote:?}"
    );
    assert!(again_wrote.is_ok(), "C is acknowledged: {again_wrote:?}");
    assert_reads_back(&store, (4_096, &c), "C's acknowledged bytes");
    assert!(
        held_wrote.is_ok(),
        "every byte of A recorded lost was rewritten by C, acknowledged: nothing of A is lost: {held_wrote:?}"
    );
    assert!(
        !lost_overlapping(&store, 4_096, 4_096),
        "no loss on record over C's bytes"
    );
    let lost = assert_reads_right_or_lost(&store, &expected);
    assert!(lost > 0, "the rest of the destaged stripe stays lost");
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_reads_back(&store, (4_096, &c), "C's bytes after a reopen");
    assert_eq!(assert_reads_right_or_lost(&store, &expected), lost);
}

#[test]
fn a_later_write_over_part_of_an_in_flight_writes_noted_loss_clears_only_that_part() {
    // C rewrites the first half of A's lost range: that half reads C's bytes; the other
    // half, A's bytes read stale by the destage, stays lost and A's end names it.
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), false);
    let c = pattern(8, 2_048);
    let (held_wrote, _, again_wrote) =
        held_write_scene(&store, &hook, &mut expected, Some((4_096, &c)));
    let again_wrote = again_wrote.expect("C ran");
    assert!(again_wrote.is_ok(), "C is acknowledged: {again_wrote:?}");
    assert_reads_back(&store, (4_096, &c), "C's acknowledged bytes");
    assert!(
        matches!(&held_wrote, Err(StoreError::DataLost(m))
            if m.contains("while it was in flight") && m.contains("bytes 6144..8192")
                && !m.contains("bytes 4096..")),
        "A names the part of its loss C did not rewrite, only it: {held_wrote:?}"
    );
    assert!(
        lost_overlapping(&store, 6_144, 2_048) && !lost_overlapping(&store, 4_096, 2_048),
        "on record: A's part, not C's"
    );
    assert!(
        matches!(store.read("f", 6_144, 2_048), Err(StoreError::DataLost(_))),
        "A's bytes C did not rewrite read lost"
    );
    let lost = assert_reads_right_or_lost(&store, &expected);
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_reads_back(&store, (4_096, &c), "C's bytes after a reopen");
    assert!(matches!(
        store.read("f", 6_144, 2_048),
        Err(StoreError::DataLost(_))
    ));
    assert_eq!(assert_reads_right_or_lost(&store, &expected), lost);
}
