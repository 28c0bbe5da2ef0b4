//! Session 19 leftover of s19b (R18-3 in a long-lived Rust `Store`): a delayed window's only
//! copy of some bytes (the cache zone, no parity before END) rots, then its timeout fires in
//! the same process. s19b made the CLI's open reopen once; in one process the timeout's
//! parity plan failed half way and the store refused every change until reopened.
//! Specification (docs/store.md "Delayed windows": END never exits 0 for a loss of its
//! window; issue #4: nothing acknowledged comes back wrong or vanishes silently):
//! - whatever fires the timeout (`tick`, a write of another file, the background worker),
//!   that call goes on: the loss goes on record under the window's token (status lists it,
//!   reads of it fail naming it), every other byte reads exact and gets its parity, and a
//!   warning (`close_with_warnings`) names the lost bytes;
//! - the store takes changes afterwards without a reopen, and the window's END fails
//!   `DataLost` naming the lost range and the window.
//! - the bound on unprotected bytes settling the rotten copy under another file's write
//!   keeps that write Ok and warns naming the lost bytes (it was silent).
//!
//! Scene (as `window_rot_lost_named_by_end.rs`): rs 5+3 over 8 OSSs, 4 KiB unit; window on
//! `w`, 5,000 bytes written at 0: bytes 4096..5000 are column 1 of stripe 0, their only copy
//! in OSS 1's cache zone; one byte of that copy flipped.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WINDOW_BYTES: usize = 5000;
/// The window bytes held by OSS 1 (column 1 of stripe 0) and lost with its rotten block.
const LOST: (u64, u64) = (4096, 5000);
/// Long enough that the window's setup never outlasts it on a loaded machine (checked).
const TIMEOUT_MS: u64 = 600;

fn init_rs(dir: &Path, timeout_ms: u64, unprotected_max_bytes: u64) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 8, CodeSpec::rs(5, 3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = timeout_ms;
    opts.unprotected_bytes_max = unprotected_max_bytes;
    Store::init(dir, &opts).unwrap()
}

/// Flip one byte of OSS 1's cache zone file: the window's bytes `LOST`, their only copy.
fn rot_window_block_on_oss_1(dir: &Path) {
    let path = dir
        .join("oss-1")
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&path).unwrap();
    on_disk[100] ^= 0xff;
    std::fs::write(&path, on_disk).unwrap();
}

/// A window on `w` whose bytes `LOST` rotted, its timeout not yet due; returns its token,
/// its bytes and when its last write returned (the timeout counts from there).
fn window_with_rotten_only_copy(store: &Store, dir: &Path) -> (String, Vec<u8>, Instant) {
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    let written = Instant::now();
    rot_window_block_on_oss_1(dir);
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        WINDOW_BYTES as u64,
        "the timeout has not fired yet (else this machine is too slow for {TIMEOUT_MS} ms)"
    );
    (token, window_bytes, written)
}

/// Wait until the window's timeout is due (the wall clock is what it counts by).
fn past_the_timeout(written: Instant) {
    let due = Duration::from_millis(TIMEOUT_MS + 200);
    std::thread::sleep(due.saturating_sub(written.elapsed()));
}

/// The loss is on record under the window's token, reads of it fail naming it, the rest
/// of `w` reads exact and every other byte has its parity.
fn lost_on_record_and_refused(store: &Store, token: &str, window_bytes: &[u8]) {
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.iter().any(|l| l.file == "w"
            && l.offset_bytes == LOST.0
            && l.offset_bytes + l.len_bytes == LOST.1
            && l.oss == 1
            && l.window.contains(token)),
        "the rotten window bytes are on record lost under the window's token: {lost:?}"
    );
    match store.read("w", LOST.0, LOST.1 - LOST.0) {
        Err(StoreError::DataLost(m)) => {
            assert!(m.contains("bytes 4096..5000"), "the read names them: {m}")
        }
        other => panic!("a read of lost bytes must fail DataLost, got {other:?}"),
    }
    assert_eq!(
        store.read("w", 0, LOST.0).unwrap(),
        window_bytes[..LOST.0 as usize],
        "the window's other bytes read exact"
    );
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout gave the window's other bytes their parity"
    );
}

/// The store takes changes without a reopen, END of the window fails naming the loss, and
/// the warnings at close name the lost bytes.
fn store_goes_on_and_end_names_the_loss(store: Store, token: &str) {
    let later = pattern(7, 9000);
    store
        .put("later", &later)
        .expect("the store takes changes after the timeout, no reopen");
    assert_eq!(store.get("later").unwrap(), later);
    match store.delayed_end(token) {
        Err(StoreError::DataLost(m)) => assert!(
            m.contains("file 'w' bytes 4096..5000") && m.contains(token),
            "END names the lost range and its window: {m}"
        ),
        other => {
            panic!("END of a window that lost bytes must fail DataLost naming them, got {other:?}")
        }
    }
    assert_consistent(&store);
    let warnings = store.close_with_warnings().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("file 'w' bytes 4096..5000") && w.contains(token)),
        "a warning names the lost bytes and their window: {warnings:?}"
    );
}

#[test]
fn tick_over_a_rotten_window_block_records_the_loss_and_the_store_goes_on_without_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), TIMEOUT_MS, 1 << 30);
    let (token, window_bytes, written) = window_with_rotten_only_copy(&store, dir.path());
    past_the_timeout(written);
    store
        .tick()
        .expect("a tick whose timeout meets a rotten only copy goes on");
    lost_on_record_and_refused(&store, &token, &window_bytes);
    store_goes_on_and_end_names_the_loss(store, &token);
}

#[test]
fn a_write_of_another_file_firing_the_timeout_over_a_rotten_window_block_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), TIMEOUT_MS, 1 << 30);
    let (token, window_bytes, written) = window_with_rotten_only_copy(&store, dir.path());
    past_the_timeout(written);
    let other = pattern(2, 6000);
    store
        .write("other", 0, &other)
        .expect("a write of another file that fires the timeout goes on");
    assert_eq!(store.get("other").unwrap(), other);
    lost_on_record_and_refused(&store, &token, &window_bytes);
    store_goes_on_and_end_names_the_loss(store, &token);
}

#[test]
fn the_background_worker_firing_the_timeout_over_a_rotten_window_block_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(init_rs(dir.path(), TIMEOUT_MS, 1 << 30));
    let stop = Arc::new(AtomicBool::new(false));
    // A thread of its own, not a scope: a worker stuck on a failed plan must fail this
    // test, not hang it on the join.
    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        spawn(move || store.serve_background(&stop))
    };
    while !store.serving_background() {
        std::thread::yield_now();
    }
    let (token, window_bytes, _written) = window_with_rotten_only_copy(&store, dir.path());
    // No command: the worker's timers fire the timeout.
    eventually(
        "the worker's timeout records the rotten window bytes lost",
        || !store.status().unwrap().lost_ranges.is_empty() || !store.serving_background(),
    );
    assert!(
        store.serving_background(),
        "the worker keeps serving through the timeout"
    );
    lost_on_record_and_refused(&store, &token, &window_bytes);
    let beside = pattern(3, 7000);
    store
        .put("beside", &beside)
        .expect("writes go on beside the worker after the timeout");
    assert_eq!(store.get("beside").unwrap(), beside);
    stop.store(true, Ordering::SeqCst);
    done_in_time(&worker, "the stopped worker")
        .expect("the worker ends without an error when stopped");
    let store = Arc::into_inner(store).expect("the worker's handle is dropped");
    store_goes_on_and_end_names_the_loss(store, &token);
}

/// Item 2 (s19b's bound case): the write that settled the rotten window copy (another
/// file's, past the bound on unprotected bytes) stays Ok for its own acknowledged bytes,
/// and a warning names the loss it found (it was silent).
#[test]
fn a_write_past_the_unprotected_bound_that_settles_a_rotten_window_block_warns_naming_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), 60_000, 8192);
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    rot_window_block_on_oss_1(dir.path());
    let other = store.delayed_start("x").unwrap();
    let x_bytes = pattern(2, 6000);
    store
        .write("x", 0, &x_bytes)
        .expect("the write past the bound is acknowledged: its own bytes are kept");
    store.delayed_end(&other).unwrap();
    assert_eq!(store.get("x").unwrap(), x_bytes);
    lost_on_record_and_refused(&store, &token, &window_bytes);
    store_goes_on_and_end_names_the_loss(store, &token);
}

/// The window's own END over its rotten only copy (no timeout): END fails naming the loss,
/// and the store goes on without a reopen.
#[test]
fn end_over_its_own_rotten_only_copy_names_the_loss_and_the_store_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), 60_000, 1 << 30);
    let (token, window_bytes, _written) = window_with_rotten_only_copy(&store, dir.path());
    match store.delayed_end(&token) {
        Err(StoreError::DataLost(m)) => assert!(
            m.contains("file 'w' bytes 4096..5000") && m.contains(&token),
            "END names the lost range and its window: {m}"
        ),
        other => panic!("END over its rotten only copy must fail DataLost, got {other:?}"),
    }
    let later = pattern(7, 9000);
    store
        .put("later", &later)
        .expect("the store takes changes after that END, no reopen");
    lost_on_record_and_refused(&store, &token, &window_bytes);
    assert_consistent(&store);
    store.close().unwrap();
}
