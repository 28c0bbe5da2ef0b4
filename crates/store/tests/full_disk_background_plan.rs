//! Session 19 leftover (s19e): the background worker (`serve_background`) of a long-lived
//! store runs a plan (here a WCL destage) whose writes succeed and whose `Durable` record a
//! full metadata disk refuses. Before, that refusal ended the worker and poisoned the store:
//! every later change was refused until the store was reopened, though the disk got room
//! again, and the destage was left to the next open. The worker retried its timers since
//! s19e, not its plans.
//!
//! Specification: the worker keeps the plan and tries its record again with the timers'
//! back-off; reads not queued behind it go on meanwhile (those behind it wait for room);
//! with room the record goes in by itself, the store takes changes, every byte is right, and
//! the refusal is told once when it begins and once when it ends.

mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WORKER: &str = "background-worker";
const WAIT: Duration = Duration::from_secs(60);

/// Tells the worker to stop when dropped: a failed assertion must not leave it serving
/// (the scope would wait for it forever).
struct StopOnDrop<'a>(&'a AtomicBool);
impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct UnhookOnDrop;
impl Drop for UnhookOnDrop {
    fn drop(&mut self) {
        exaraid_store::torture::set_pause_hook(None);
    }
}

#[test]
fn a_background_plan_whose_record_the_full_metadata_disk_refuses_waits_for_room_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let Some(meta) = Tmpfs::mount(&dir.path().join("meta"), 1 << 20) else {
        eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    let store_dir = meta.0.join("s");
    let oss_dirs = (0..4).map(|i| dir.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(oss_dirs, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(&store_dir, &opts).unwrap();
    // Written before the worker serves: its plans ran inline, none is queued behind the
    // refused one.
    let e = pattern(3, 3 * 3 * UNIT + 1000);
    store.write("e", 0, &e).unwrap();

    // The worker stops at its first plan's `Durable` record, says so, and goes on when told.
    let (at_tx, at) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let held_once = AtomicBool::new(false);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::BACKGROUND_PLAN_WRITTEN
            && std::thread::current().name() == Some(WORKER)
            && !held_once.swap(true, Ordering::SeqCst)
        {
            at_tx.send(()).unwrap();
            let go = go_rx.lock().unwrap();
            go.recv_timeout(WAIT)
                .expect("the test lets the worker go on");
        }
    })));
    let _unhook = UnhookOnDrop;

    // Three full stripes: their destages are the worker's plans.
    let data = pattern(1, 3 * 3 * UNIT);
    let stop = AtomicBool::new(false);
    let served = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        let _stop_on_failure = StopOnDrop(&stop);
        while !store.serving_background() {
            std::thread::yield_now();
        }
        store.write("f", 0, &data).unwrap();
        at.recv_timeout(WAIT)
            .expect("the worker runs a destage of f's complete cache stripes");
        // An empty journal: the plan's record needs a new block of the full disk.
        store.checkpoint().unwrap();
        meta.fill();
        go.send(()).unwrap();

        let deadline = Instant::now() + WAIT;
        while store.background_refused().is_none()
            && store.serving_background()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            store.serving_background(),
            "the worker keeps serving through the refusal (it ended; a change now: {:?})",
            store.write("h", 0, b"x").err()
        );
        let refused = store.background_refused();
        assert!(
            refused.as_deref().is_some_and(|r| r.contains("full")),
            "the refusal is on view while the worker retries: {refused:?}"
        );
        // Reads of stripes no queued plan waits for go on. (Those of f's other stripes wait
        // behind their queued destages, which wait for this one: for room.)
        assert!(store.get("e").unwrap() == e, "e reads meanwhile");

        meta.unfill();
        // The worker retries at least every `BACKGROUND_RETRY_MAX_MS` (1 s); a loaded
        // machine gets many times that.
        let deadline = Instant::now() + WAIT;
        while store.background_refused().is_some() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            store.background_refused(),
            None,
            "with room the plan's record went in by itself"
        );
        assert!(store.get("f").unwrap() == data, "f reads");
        // The store takes changes: nothing was poisoned.
        let more = pattern(2, 5_000);
        store.write("g", 0, &more).unwrap();
        assert!(store.get("g").unwrap() == more);
        assert!(store.serving_background(), "still serving");
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap()
    });
    assert!(served.is_ok(), "the worker ends when told: {served:?}");
    assert!(store.get("f").unwrap() == data);
    assert!(store.get("e").unwrap() == e);
    assert_consistent(&store);
    store.flush().unwrap();
    // Parity protects the destaged bytes: lose the OSS holding f's first element.
    store
        .fail_oss(store.layout().locate(store.file_id("f").unwrap(), 0).oss)
        .unwrap();
    assert!(store.get("f").unwrap() == data, "decoded through parity");
    let warnings = store.close_with_warnings().unwrap();
    let told: Vec<&String> = warnings
        .iter()
        .filter(|w| w.starts_with("the background worker's plans"))
        .collect();
    assert!(
        told.len() == 1 && told[0].contains("on record again"),
        "one warning tells the refusal's end (bounded: not one per try): {warnings:?}"
    );
}
