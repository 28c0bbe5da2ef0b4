//! A backend sync (fsync) failing outside a client write's plan (issue #4, s6e's left:
//! "syncs of settle/recovery, scrub repair and rebuild still poison the store without
//! recording the OSS failed").
//!
//! An fsync error says the OSS may have dropped the bytes written since its last sync
//! (Linux marks the dirty pages clean, and a later fsync succeeds), so it can no longer be
//! trusted with them: the defined outcome, as for a client write (`sync_fails_after_write.rs`),
//! is that OSS recorded failed (within the code's tolerance), the operation finished (or
//! failing with an error naming the OSS) without a wrong or lost acknowledged byte, and every
//! later open working degraded, also while the OSS's fsyncs keep failing, until `rebuild`.
//! Before: a settle (flush, the settle of `rm`, of a rebuild, of recovery at open) whose final
//! sync failed left the store poisoned and redid the settle at every open, which failed again
//! while the disk's fsync did: no command could open the store.
//!
//! The syncs fail from the moment the hook is armed until it is disarmed (a disk whose
//! flushes keep failing); the test then "replaces the disk" (disarms) and rebuilds.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, SyncFails};

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use exaraid_codes::{CodeSpec, Pos};
use exaraid_store::{OpenOptions, Store, WritePath};

/// What the store must hold: `(name, bytes)`.
type Files = Vec<(String, Vec<u8>)>;

/// "f": two stripes put, its element 1 written again (cached on WCL: a settle moves it
/// home); "g": one stripe put. Returns the files and the OSS of "f"'s element 1 (written by
/// every settle of "f").
fn cached_store(dir: &Path, code: CodeSpec, oss_count: usize, path: WritePath) -> (Files, usize) {
    let store = init(dir, code, oss_count, path);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let (f, x) = put_two_stripes_and_rewrite_element_1(&store, 21);
    let g = pattern(23, sdb - 100);
    store.put("g", &g).unwrap();
    if path == WritePath::Wcl {
        assert!(
            store.status().unwrap().bytes_waiting_parity > 0,
            "cached bytes wait for a settle"
        );
    }
    store.close().unwrap();
    (vec![("f".into(), f), ("g".into(), g)], x)
}

/// Every file of `files` reads back exact, nothing is recorded lost.
fn assert_files(store: &Store, files: &Files, what: &str) {
    for (name, bytes) in files {
        let got = store
            .get(name)
            .unwrap_or_else(|e| panic!("{what}: get {name}: {e}"));
        assert!(got == *bytes, "{what}: {name} reads wrong bytes");
    }
    let lost = store.status().unwrap().lost_ranges;
    assert!(lost.is_empty(), "{what}: recorded lost: {lost:?}");
}

/// Reopened while OSS `x`'s fsyncs still fail: the open works, `x` is failed on record and
/// every file reads back; then the disk is replaced (the hook disarmed), `x` rebuilt, and
/// the store is whole again.
fn reopen_degraded_then_rebuild(
    dir: &Path,
    hook: &Arc<SyncFails>,
    x: usize,
    files: &Files,
    what: &str,
) {
    let store = open_wrapped(dir, hook, &[], OpenOptions::default())
        .unwrap_or_else(|e| panic!("{what}: reopen while OSS {x}'s fsync still fails: {e}"));
    assert_eq!(
        store.failed_osses(),
        vec![x],
        "{what}: OSS {x} failed on record"
    );
    assert_files(&store, files, &format!("{what}, reopened degraded"));
    store.close().unwrap();
    hook.disarm();
    let mut store = open_wrapped(dir, hook, &[], OpenOptions::default()).unwrap();
    store
        .rebuild(x, None)
        .unwrap_or_else(|e| panic!("{what}: rebuild of OSS {x}: {e}"));
    assert!(store.failed_osses().is_empty(), "{what}: rebuilt");
    assert_files(&store, files, &format!("{what}, rebuilt"));
    assert_consistent(&store);
}

/// The error of an operation whose sync failed names the OSS (when it fails at all).
fn assert_names(result: Result<(), exaraid_store::StoreError>, x: usize, what: &str) {
    if let Err(e) = result {
        assert!(
            e.to_string().contains(&format!("OSS {x}")),
            "{what}: the error names OSS {x}: {e}"
        );
    }
}

/// A flush (the settle that moves every cached byte home with parity) whose final syncs fail
/// on the OSS that received the moved bytes.
fn flush_sync_fails(code: CodeSpec, oss_count: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, x) = cached_store(dir, code, oss_count, WritePath::Wcl);
    let what = format!("{code} WCL flush, fsync of OSS {x} fails");
    let hook = SyncFails::on(x);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let flushed = store.flush();
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert_names(flushed, x, &what);
    drop(store);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
}

#[test]
fn a_flush_whose_sync_fails_records_the_oss_failed_and_the_store_opens() {
    flush_sync_fails(CodeSpec::raid5(3), 4);
    flush_sync_fails(CodeSpec::raid6(4), 6);
}

/// `rm` of a file with cached bytes settles them first; that settle's sync fails.
#[test]
fn an_rm_whose_settle_sync_fails_records_the_oss_failed_and_the_store_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, x) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Wcl);
    let what = format!("raid5 WCL rm, fsync of OSS {x} fails");
    let hook = SyncFails::on(x);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let removed = store.remove("f");
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    let files: Files = if removed.is_ok() {
        files.into_iter().filter(|(n, _)| n != "f").collect()
    } else {
        files
    };
    assert_names(removed, x, &what);
    drop(store);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
}

/// Recovery at open: a settle cut half way (its home writes fail, as a kill there leaves
/// it), then the next open's recovery redoes it while OSS `x`'s fsync fails.
#[test]
fn recovery_whose_sync_fails_records_the_oss_failed_and_the_store_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, x) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Wcl);
    let what = format!("raid5 WCL recovery, fsync of OSS {x} fails");
    let hook = Arc::new(SyncFails::default());
    hook.oss.store(x, Ordering::SeqCst);
    hook.cut_home_writes.store(true, Ordering::SeqCst);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    assert!(store.flush().is_err(), "{what}: the settle is cut");
    drop(store); // as after a kill: the next open recovers
    hook.cut_home_writes.store(false, Ordering::SeqCst);
    hook.armed.store(true, Ordering::SeqCst);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
}

/// END of a delayed window: its parity plan and the move of its bytes home; the fsyncs of
/// the OSS holding the window's first element fail.
#[test]
fn an_end_whose_syncs_fail_records_the_oss_failed_and_the_store_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (mut files, _) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Delayed);
    let store = Store::open(dir).unwrap();
    let id = store.file_id("f").unwrap();
    let x = store.layout().locate(id, 0).oss;
    let window = store.delayed_window("f").unwrap();
    let new = pattern(24, 2 * UNIT + 300);
    store.write("f", 0, &new).unwrap();
    files[0].1[..new.len()].copy_from_slice(&new);
    let token = window.token().to_string();
    drop(window); // open across the reopen
    store.close().unwrap();
    let what = format!("raid5 delayed END, fsync of OSS {x} fails");
    let hook = SyncFails::on(x);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let ended = store.delayed_end(&token);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert_names(ended, x, &what);
    drop(store);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
}

/// `scrub --repair` rewrites a rotten block on OSS `x`, whose fsync then fails.
#[test]
fn a_scrub_repair_whose_sync_fails_records_the_oss_failed_and_the_store_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, _) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let store = Store::open(dir).unwrap();
    let id = store.file_id("g").unwrap();
    let pos = Pos { row: 0, col: 1 };
    let x = store.layout().oss_of(id, 0, pos.col);
    flip_home_byte(&store, "g", pos, 0, 77);
    store.close().unwrap();
    let what = format!("raid5 scrub --repair, fsync of OSS {x} fails");
    let hook = SyncFails::on(x);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let scrubbed = store.scrub(true);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert_names(scrubbed.map(|_| ()), x, &what);
    drop(store);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
}

/// `rebuild` of a failed OSS: its settle's syncs fail on another OSS (raid6: within the
/// tolerance), or the rebuilt OSS's own final sync fails (it stays failed).
#[test]
fn a_rebuild_whose_sync_fails_leaves_a_store_that_opens() {
    // The settle of the rebuild: OSS y's fsync fails while OSS r is rebuilt.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, y) = cached_store(dir, CodeSpec::raid6(4), 6, WritePath::Wcl);
    let r = (y + 1) % 6;
    let what = format!("raid6 WCL rebuild of OSS {r}, fsync of OSS {y} fails in its settle");
    let hook = SyncFails::on(y);
    let mut store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    store.fail_oss(r).unwrap();
    let rebuilt = store.rebuild(r, None);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert_names(rebuilt, y, &what);
    drop(store);
    let mut store = open_wrapped(dir, &hook, &[], OpenOptions::default())
        .unwrap_or_else(|e| panic!("{what}: reopen while OSS {y}'s fsync still fails: {e}"));
    assert!(
        store.failed_osses().contains(&y),
        "{what}: OSS {y} failed on record"
    );
    assert_files(&store, &files, &format!("{what}, reopened degraded"));
    hook.disarm();
    for oss in store.failed_osses() {
        store
            .rebuild(oss, None)
            .unwrap_or_else(|e| panic!("{what}: rebuild of OSS {oss}: {e}"));
    }
    assert_files(&store, &files, &format!("{what}, rebuilt"));
    assert_consistent(&store);
    drop(store);

    // The rebuilt OSS's own sync fails: it stays failed, the store opens degraded.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, x) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Wcl);
    let what = format!("raid5 WCL rebuild of OSS {x}, its own fsync fails");
    let hook = SyncFails::on(x);
    let mut store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    store.fail_oss(x).unwrap();
    let rebuilt = store.rebuild(x, None);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert!(
        rebuilt.is_err(),
        "{what}: a rebuild not durable is not done"
    );
    assert_names(rebuilt, x, &what);
    assert_eq!(store.failed_osses(), vec![x], "{what}: still failed");
    drop(store);
    reopen_degraded_then_rebuild(dir, &hook, x, &files, &what);
}

/// The other side of END's case: a write inside an open window whose sync fails on OSS `x`
/// that holds earlier acknowledged window bytes, their only copy (no parity yet). Those are
/// lost with `x` and must be named lost at the next open (never read as other bytes), while
/// every byte outside them reads back.
#[test]
fn a_window_write_whose_sync_fails_names_the_window_bytes_lost_with_the_oss() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (files, _) = cached_store(dir, CodeSpec::raid5(3), 4, WritePath::Delayed);
    let store = Store::open(dir).unwrap();
    let id = store.file_id("f").unwrap();
    let x = store.layout().locate(id, 0).oss;
    let window = store.delayed_window("f").unwrap();
    let first = pattern(25, 1000);
    store.write("f", 0, &first).unwrap();
    drop(window); // open across the reopen
    store.close().unwrap();
    let what = format!("raid5 delayed window write, fsync of OSS {x} fails");
    let hook = SyncFails::on(x);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let second = pattern(26, 500);
    let written = store.write("f", 2000, &second);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    assert!(written.is_err(), "{what}: not acknowledged");
    assert_names(written, x, &what);
    drop(store);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default())
        .unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
    assert_eq!(store.failed_osses(), vec![x], "{what}");
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.iter()
            .any(|l| l.offset_bytes == 0 && l.len_bytes >= 1000),
        "{what}: the window's first bytes are named lost: {lost:?}"
    );
    assert!(
        store.read("f", 0, 1000).is_err(),
        "{what}: lost bytes read as an error"
    );
    let f = &files[0].1;
    let tail = store
        .read("f", UNIT as u64, (f.len() - UNIT) as u64)
        .unwrap();
    assert!(tail == f[UNIT..], "{what}: the rest reads back");
    assert!(
        store.get("g").unwrap() == files[1].1,
        "{what}: g reads back"
    );
}
