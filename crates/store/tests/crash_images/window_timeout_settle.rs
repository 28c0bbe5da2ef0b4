//! A delayed window whose timeout fired stays closed through a settle (review s15r R15-1).
//! Specification: after its timeout, writes to the window's file are protected at once
//! (home with parity); a settle (`flush`, the store's planner reset) and the opens after it
//! do not start the window again as a fresh one (they did: the settle's reset started every
//! window the state lists anew, with a new timeout, and writes to that file went
//! unprotected again until it fired once more; with an OSS failed, writes accepted a moment
//! before were refused). The user's late END has nothing left to do.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

#[test]
fn a_timed_out_window_stays_closed_through_a_flush_and_the_opens_after() {
    images_in_plan_order();
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // Long enough that the setup never outlasts it on a loaded machine.
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let mut expected = pattern(1, 60_000);
    store.put("f", &expected).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 100, &pattern(2, 3000)).unwrap();
    expected[100..3100].copy_from_slice(&pattern(2, 3000));
    assert!(store.status().unwrap().bytes_unprotected > 0);
    std::thread::sleep(std::time::Duration::from_millis(500));
    store.tick().unwrap();
    let mut write = |store: &Store, seed: u64, offset: usize, what: &str| {
        let bytes = pattern(seed, 500);
        store.write("f", offset as u64, &bytes).unwrap();
        expected[offset..offset + 500].copy_from_slice(&bytes);
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            0,
            "{what}: the window timed out, writes to its file are protected at once"
        );
    };
    write(&store, 3, 9000, "after the timeout");
    store.flush().unwrap();
    write(&store, 4, 20_000, "after a flush");
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    write(&store, 5, 30_000, "after a close and an open");
    store.flush().unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    write(&store, 6, 40_000, "after a second flush and an open");
    store.delayed_end(&token).unwrap(); // a late END has nothing left to do
    assert_eq!(store.status().unwrap().open_windows.len(), 0);
    assert_eq!(store.get("f").unwrap(), expected);
    assert_consistent(&store);
    store.close().unwrap();
}

/// Tells the child process of the kill sweep below where its store is.
const CHILD_DIR_ENV: &str = "EXARAID_TEST_WINDOW_TIMEOUT_SETTLE_CHILD_DIR";

/// The killed child of `a_kill_anywhere_in_a_flush_keeps_a_timed_out_window_closed`: open
/// and `flush` (a settle: the planner reset, then the timed-out window started and ended
/// again), in a process its parent set to kill itself at a kill point (`EXARAID_KILL_AT`).
/// Run as a test of its own (no store named) it does nothing.
#[test]
fn child_flush_after_a_timeout() {
    images_in_plan_order();
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(std::path::Path::new(&dir)).unwrap();
    store.flush().unwrap();
    store.close().unwrap();
}

/// Review s15r2 R15b-2: a kill -9 inside a settle between its planner reset and the
/// re-ended window (the reset had dropped the timeout's `Tick`) made the next open start
/// the timed-out window again as a fresh one: writes to its file went unprotected again for
/// up to a new timeout, and a disk failure in that time lost them. Specification: a kill at
/// every journal record and every zone removal of the flush; after the next open a write
/// to the window's file is protected at once, the bytes are right, and the user's late END
/// still works.
#[test]
fn a_kill_anywhere_in_a_flush_keeps_a_timed_out_window_closed() {
    images_in_plan_order();
    // Bounded: the open and the flush pass far fewer points than this.
    const KILL_POINTS_MAX: u64 = 200;
    let template = scratch();
    let mut opts = InitOptions::with_oss_count(template.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // Long enough that nothing after a reopen outlasts a fresh window's timeout on a loaded
    // machine (a fresh window that timed out again would hide the fault).
    opts.window_timeout_ms = 2000;
    let store = Store::init(template.path(), &opts).unwrap();
    let mut expected = pattern(1, 60_000);
    store.put("f", &expected).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 100, &pattern(2, 3000)).unwrap();
    expected[100..3100].copy_from_slice(&pattern(2, 3000));
    assert!(store.status().unwrap().bytes_unprotected > 0);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    store.tick().unwrap();
    store.write("f", 9000, &pattern(3, 500)).unwrap();
    expected[9000..9500].copy_from_slice(&pattern(3, 500));
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the window timed out: writes to its file are protected at once"
    );
    store.close().unwrap();
    let after = pattern(4, 500);
    let mut expected_after = expected.clone();
    expected_after[20_000..20_500].copy_from_slice(&after);
    for point in [
        exaraid_store::torture::JOURNAL_RECORD,
        exaraid_store::torture::REMOVE_ZONE,
    ] {
        let mut n = 1;
        loop {
            assert!(n <= KILL_POINTS_MAX, "the flush passed {point} too often");
            let scratch = scratch();
            let dir = scratch.path().join("s");
            copy_tree(template.path(), &dir);
            let killed = child_test_killed_at(
                concat!(module_path!(), "::child_flush_after_a_timeout"),
                CHILD_DIR_ENV,
                &dir,
                point,
                n,
            );
            let when = format!("killed at {point}:{n}");
            let store = Store::open(&dir).unwrap_or_else(|e| panic!("open {when}: {e}"));
            assert_eq!(store.get("f").unwrap(), expected, "{when}");
            store.write("f", 20_000, &after).unwrap();
            assert_eq!(
                store.status().unwrap().bytes_unprotected,
                0,
                "{when}: the window had timed out, a write to its file is protected at once"
            );
            store.delayed_end(&token).unwrap(); // a late END has nothing left to do
            assert_eq!(store.status().unwrap().open_windows.len(), 0, "{when}");
            assert_eq!(store.get("f").unwrap(), expected_after, "{when}");
            store.close().unwrap();
            if !killed {
                break;
            }
            n += 1;
        }
        assert!(n > 1, "the flush never passed {point}");
    }
}

/// What a settle keeps on record of a timed-out window is for that window alone: a window
/// still open beside it stays open through the flush and the open after (its new bytes
/// unprotected until its END), and both files read right.
#[test]
fn a_flush_keeps_an_open_window_open_beside_a_timed_out_one() {
    images_in_plan_order();
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // g's window must not time out while the test runs: far longer than its steps take.
    opts.window_timeout_ms = 2000;
    let store = Store::init(dir.path(), &opts).unwrap();
    let mut f = pattern(1, 30_000);
    let mut g = pattern(2, 30_000);
    store.put("f", &f).unwrap();
    store.put("g", &g).unwrap();
    let f_token = store.delayed_start("f").unwrap();
    store.write("f", 100, &pattern(3, 3000)).unwrap();
    f[100..3100].copy_from_slice(&pattern(3, 3000));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    store.tick().unwrap();
    let g_token = store.delayed_start("g").unwrap();
    let mut write = |store: &Store, name: &str, seed: u64, offset: usize| {
        let bytes = pattern(seed, 500);
        store.write(name, offset as u64, &bytes).unwrap();
        let file = if name == "f" { &mut f } else { &mut g };
        file[offset..offset + 500].copy_from_slice(&bytes);
        store.status().unwrap().bytes_unprotected
    };
    assert_eq!(write(&store, "f", 4, 9000), 0, "f's window timed out");
    assert_eq!(write(&store, "g", 5, 9000), 500, "g's window is open");
    store.flush().unwrap();
    assert_eq!(
        write(&store, "f", 6, 12_000),
        0,
        "after a flush: f's window stays closed"
    );
    assert_eq!(
        write(&store, "g", 7, 12_000),
        500,
        "after a flush: g's window stays open"
    );
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        write(&store, "f", 8, 15_000),
        500,
        "g's bytes after the open, none of f's"
    );
    store.delayed_end(&g_token).unwrap();
    store.delayed_end(&f_token).unwrap();
    assert_eq!(store.status().unwrap().bytes_unprotected, 0);
    assert_eq!(store.get("f").unwrap(), f);
    assert_eq!(store.get("g").unwrap(), g);
    assert_consistent(&store);
    store.close().unwrap();
}

/// A power cut anywhere in the settle of a store with a timed-out window (`flush`, with
/// another window's cached bytes to move home), emulated in process (common/powercut.rs:
/// the journal keeps only what its fsyncs covered, each OSS keeps or drops its unsynced
/// writes; the flush's closing checkpoint is not modelled, the kill sweep above covers its
/// records). Specification: after any such power cut the open reads both files as
/// acknowledged, names nothing lost, the timed-out window stays closed (a write to its
/// file is protected at once: review s15r2 R15b-2, the window's mark and the planner's
/// reset are durable together or not at all), the open window stays open, and both ENDs
/// work.
#[test]
fn a_power_cut_anywhere_in_a_flush_keeps_a_timed_out_window_closed() {
    images_in_plan_order();
    const FILE_BYTES: usize = 30_000;
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 2000;
    drop(Store::init(&dir, &opts).unwrap());
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut f = pattern(1, FILE_BYTES);
    let mut g = pattern(2, FILE_BYTES);
    store.put("f", &f).unwrap();
    store.put("g", &g).unwrap();
    let f_token = store.delayed_start("f").unwrap();
    store.write("f", 100, &pattern(3, 3000)).unwrap();
    f[100..3100].copy_from_slice(&pattern(3, 3000));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    store.tick().unwrap();
    // An open window whose cached bytes the flush moves home.
    let g_token = store.delayed_start("g").unwrap();
    store.write("g", 5000, &pattern(4, 3000)).unwrap();
    g[5000..8000].copy_from_slice(&pattern(4, 3000));
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        3000,
        "g's bytes only"
    );

    cut.arm();
    store.flush().unwrap();
    cut.disarm();
    drop(store);

    let images = cut.images();
    assert!(
        images
            .windows(2)
            .any(|w| w[0].journal_durable_bytes < w[1].journal_durable_bytes),
        "the journal's fsyncs are seen"
    );
    let after = pattern(5, 500);
    let mut f_after = f.clone();
    f_after[20_000..20_500].copy_from_slice(&after);
    let points = for_each_power_cut(&images, |point| {
        let what = point.what();
        let laid = top.path().join("try");
        point.lay(&laid);
        let store = open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let status = store.status().unwrap();
        assert!(
            status.lost_ranges.is_empty(),
            "{what}: {:?}",
            status.lost_ranges
        );
        assert_eq!(store.get("f").unwrap(), f, "{what}");
        assert_eq!(store.get("g").unwrap(), g, "{what}");
        let unprotected_before = status.bytes_unprotected;
        store.write("f", 20_000, &after).unwrap();
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            unprotected_before,
            "{what}: f's window had timed out, a write to its file is protected at once"
        );
        assert_eq!(store.status().unwrap().open_windows.len(), 2, "{what}");
        store.delayed_end(&f_token).unwrap();
        store.delayed_end(&g_token).unwrap();
        assert_eq!(store.status().unwrap().bytes_unprotected, 0, "{what}");
        assert_eq!(store.get("f").unwrap(), f_after, "{what}");
        assert_eq!(store.get("g").unwrap(), g, "{what}");
        assert_consistent(&store);
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    assert!(points > images.len(), "a power cut at every image");
}
