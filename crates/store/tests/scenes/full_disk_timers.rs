//! A write refused for a full OSS still runs the timers it fired: a delayed window whose
//! timeout passed gets its parity then, not only at the next open.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

#[test]
fn a_write_refused_for_a_full_oss_still_gives_a_timed_out_window_its_parity() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.oss_capacity_bytes = Some(256 << 10);
    // Long enough that the first write never outlasts it on a loaded machine (20 ms did:
    // the timeout fired inside the first write and the window had no unprotected bytes).
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let data = pattern(1, 10_000);
    let _window = store.delayed_start("f").unwrap();
    store.write("f", 0, &data).unwrap();
    assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);
    // Past the timeout; `status` runs no timer, the next write does.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);
    let err = store.write("g", 0, &pattern(2, 2_000_000)).unwrap_err();
    assert!(matches!(err, StoreError::NoSpace(_)), "{err}");
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout the refused write fired gave the window its parity"
    );
    assert!(store.get("f").unwrap() == data);
    assert_consistent(&store);
    // Parity protects the window's bytes now: lose the OSS holding the first ones.
    store
        .fail_oss(store.layout().locate(store.file_id("f").unwrap(), 0).oss)
        .unwrap();
    assert!(store.get("f").unwrap() == data);
}

/// Review s17r R17-3, in one process: a due timeout whose record a full metadata disk
/// refuses must leave the planner as the journal has it. Before, the planner kept the
/// tick: its parity plans were dropped unrun, the timeout never fired again, and the
/// window's bytes stayed without parity while the planner took them for protected.
#[test]
fn a_timeout_the_full_metadata_disk_refused_fires_once_there_is_room() {
    let dir = tempfile::tempdir().unwrap();
    let Some(meta) = Tmpfs::mount(&dir.path().join("meta"), 1 << 20) else {
        eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    let store_dir = meta.0.join("s");
    let oss_dirs = (0..4).map(|i| dir.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(oss_dirs, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 400;
    let store = Store::init(&store_dir, &opts).unwrap();
    let data = pattern(1, 10_000);
    let _window = store.delayed_start("f").unwrap();
    store.write("f", 0, &data).unwrap();
    // An empty journal: its next record needs a new block of the full disk.
    store.checkpoint().unwrap();
    meta.fill();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let err = store.tick().unwrap_err();
    assert!(matches!(err, StoreError::NoSpace(_)), "{err}");
    assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);

    meta.unfill();
    store.tick().unwrap();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout fired with room: the window's bytes have parity"
    );
    assert!(store.get("f").unwrap() == data);
    assert_consistent(&store);
    store
        .fail_oss(store.layout().locate(store.file_id("f").unwrap(), 0).oss)
        .unwrap();
    assert!(
        store.get("f").unwrap() == data,
        "decoded through the timeout's parity"
    );
}

/// Session 18 leftover (s18b): the background worker (`serve_background`) of a long-lived
/// store meets a due timeout whose record the full metadata disk refuses. It must keep
/// serving and try again at a bounded pace, so that the timeout fires once there is room,
/// with no command and no restart. Before, the refusal ended the worker: the window's
/// bytes stayed without parity for good, silently (the store no longer settled by itself).
#[test]
fn the_background_worker_keeps_serving_through_a_full_metadata_disk_and_fires_the_timeout_with_room(
) {
    let dir = tempfile::tempdir().unwrap();
    let Some(meta) = Tmpfs::mount(&dir.path().join("meta"), 1 << 20) else {
        eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    let store_dir = meta.0.join("s");
    let oss_dirs = (0..4).map(|i| dir.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(oss_dirs, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // Long enough that START, the write, the checkpoint and the fill end before it on a
    // loaded machine (checked below).
    const TIMEOUT_MS: u64 = 1500;
    opts.window_timeout_ms = TIMEOUT_MS;
    let store = Store::init(&store_dir, &opts).unwrap();
    let data = pattern(1, 10_000);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let served = std::thread::scope(|s| {
        let worker = s.spawn(|| store.serve_background(&stop));
        while !store.serving_background() {
            std::thread::yield_now();
        }
        let started = std::time::Instant::now();
        let _window = store.delayed_start("f").unwrap();
        store.write("f", 0, &data).unwrap();
        // An empty journal: the timeout's record needs a new block of the full disk.
        store.checkpoint().unwrap();
        meta.fill();
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            10_000,
            "the timeout is not due yet (else this machine is too slow for {TIMEOUT_MS} ms)"
        );
        // Past the timeout: the worker has tried it, refused, a few times.
        let refused_a_while = std::time::Duration::from_millis(TIMEOUT_MS + 1000);
        std::thread::sleep(refused_a_while.saturating_sub(started.elapsed()));
        assert!(
            store.serving_background(),
            "the worker keeps serving through the refusal"
        );
        assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);
        assert!(store.get("f").unwrap() == data, "read from the cache zone");

        meta.unfill();
        // The worker retries at least every second (`BACKGROUND_RETRY_MAX_MS`); a loaded
        // machine gets ten times that.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while store.status().unwrap().bytes_unprotected != 0 && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            0,
            "with room the worker fired the timeout by itself: the window's bytes have parity"
        );
        assert!(store.serving_background(), "still serving");
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        worker.join().unwrap()
    });
    assert!(served.is_ok(), "the worker ends when told: {served:?}");
    assert!(store.get("f").unwrap() == data);
    assert_consistent(&store);
    store
        .fail_oss(store.layout().locate(store.file_id("f").unwrap(), 0).oss)
        .unwrap();
    assert!(
        store.get("f").unwrap() == data,
        "decoded through the timeout's parity"
    );
    let warnings = store.close_with_warnings().unwrap();
    let told: Vec<&String> = warnings
        .iter()
        .filter(|w| w.starts_with("the background worker's timers"))
        .collect();
    assert!(
        told.len() == 1 && told[0].contains("ran again without a refusal"),
        "one warning tells the refusal's end (bounded: not one per try): {warnings:?}"
    );
}
