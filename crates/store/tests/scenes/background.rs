//! The API user's background worker (`Store::serve_background`) keeps the delayed-parity
//! promises without any command: a window whose END does not come gets its parity at the
//! timeout, and past the bound on unprotected bytes the worker (not the writer) advances the
//! parity; a writer waits only when the worker lags beyond `UNPROTECTED_LAG_FACTOR` times the
//! bound. Assertions poll `status()` up to a generous deadline; nothing asserts on timing.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_hooked, Hooks, WORKER};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::store::UNPROTECTED_LAG_FACTOR;
use exaraid_store::{InitOptions, Store, WritePath};

fn delayed_store(dir: &std::path::Path, timeout_ms: u64, unprotected_max: u64) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = timeout_ms;
    opts.unprotected_bytes_max = unprotected_max;
    Store::init(dir, &opts).unwrap()
}

/// Sets `stop` (and releases the parked worker) however the test ends, so a failing test
/// never leaves the worker thread running inside `thread::scope`.
struct StopOnDrop<'a>(&'a AtomicBool, Option<Arc<Hooks>>);
impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(p) = &self.1 {
            p.release();
        }
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn the_worker_gives_a_window_its_parity_at_the_timeout_without_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let store = delayed_store(dir.path(), 50, 1 << 30);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let worker = s.spawn(|| store.serve_background(&stop));
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, None);
        let token = store.delayed_start("f").unwrap();
        store.write("f", 0, &pattern(1, 20_000)).unwrap();
        assert!(store.status().unwrap().bytes_unprotected > 0);
        // Only `status` from here on: it runs no timer.
        eventually("the timeout gave the window's bytes parity", || {
            store.status().unwrap().bytes_unprotected == 0
        });
        assert_consistent(&store);
        store.delayed_end(&token).unwrap(); // a late END has nothing left to do
        assert!(store.status().unwrap().open_windows.is_empty());
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap().unwrap();
    });
    assert_eq!(store.get("f").unwrap(), pattern(1, 20_000));
    // Parity protects the window's bytes: lose an OSS.
    store.fail_oss(1).unwrap();
    assert_eq!(store.get("f").unwrap(), pattern(1, 20_000));
}

/// Park the worker inside a background plan (the move home of an ended window): `Hooks`
/// parks home-data writes of the worker thread while paused.
fn open_pausable(dir: &std::path::Path, pause: &Arc<Hooks>) -> Store {
    open_hooked(dir, pause, &[]).unwrap()
}

/// End a window on `file` whose move home then parks the worker.
fn park_the_worker(store: &Store, pause: &Hooks, file: &str, seed: u64) {
    pause.pause();
    let w = store.delayed_window(file).unwrap();
    store.write(file, 0, &pattern(seed, UNIT)).unwrap();
    w.end().unwrap(); // parity durable; the move home is the worker's
    eventually("the worker parks in the move home", || {
        pause.parked.load(Ordering::SeqCst) > 0
    });
}

#[test]
fn past_the_bound_the_worker_advances_the_parity_and_the_writer_waits_only_past_twice_the_bound() {
    const MAX: u64 = 20_000;
    const CHUNK: usize = 8000;
    let dir = tempfile::tempdir().unwrap();
    delayed_store(dir.path(), 600_000, MAX).close().unwrap();
    let pause = Arc::new(Hooks::default());
    let store = open_pausable(dir.path(), &pause);
    let data = pattern(2, 9 * CHUNK);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, Some(pause.clone()));
        let window = store.delayed_window("f").unwrap();

        // 1. The worker is busy (parked). Three writes go past the bound: the third asks the
        // worker to advance the parity and returns without doing it (doing it would need the
        // whole store, which the parked worker holds a share of).
        park_the_worker(&store, &pause, "x", 3);
        let writer = s.spawn(|| {
            for i in 0..3 {
                let at = i * CHUNK;
                store.write("f", at as u64, &data[at..at + CHUNK]).unwrap();
            }
        });
        eventually("the writer returns while the worker is parked", || {
            writer.is_finished()
        });
        writer.join().unwrap();
        let status = store.status().unwrap();
        assert_eq!(
            status.bytes_unprotected,
            3 * CHUNK as u64,
            "the writer left the advance to the worker"
        );
        assert!(status.bytes_unprotected > MAX);
        // Released, the worker advances the parity on its own: no command runs.
        pause.release();
        eventually("the worker advanced the parity", || {
            store.status().unwrap().bytes_unprotected <= MAX
        });
        assert_eq!(store.status().unwrap().open_windows.len(), 1, "window open");

        // 2. The worker lags: parked again, writes go on up to the hard limit; the write
        // that passes it waits for the worker.
        park_the_worker(&store, &pause, "y", 4);
        let writer = s.spawn(|| {
            for i in 3..9 {
                let at = i * CHUNK;
                store.write("f", at as u64, &data[at..at + CHUNK]).unwrap();
            }
        });
        let hard_limit = MAX * UNPROTECTED_LAG_FACTOR;
        eventually("the writer reaches the hard limit", || {
            store.status().unwrap().bytes_unprotected > hard_limit
        });
        // A writer that did not wait would be done within moments; one that waits never is
        // while the worker is parked (so this cannot fail on a slow machine).
        for _ in 0..100 {
            assert!(
                !writer.is_finished(),
                "past {hard_limit} unprotected bytes the writer waits for the parked worker"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        pause.release();
        writer.join().unwrap();
        assert!(
            store.status().unwrap().bytes_unprotected <= MAX,
            "the write returned after the worker's advance"
        );
        window.end().unwrap();
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap().unwrap();
    });
    assert_eq!(store.get("f").unwrap(), data);
    assert_eq!(store.get("x").unwrap(), pattern(3, UNIT));
    assert_eq!(store.get("y").unwrap(), pattern(4, UNIT));
    assert_consistent(&store);
}
