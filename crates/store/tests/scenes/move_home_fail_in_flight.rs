//! An OSS fails while a delayed window's move home is in flight, then a crash before the move
//! is durable (S6-4 left by session 7; docs/store.md, "Not covered" of S6-4).
//!
//! The move home rewrites the home blocks it writes only in part (an "edge block": the
//! window's bytes beside older ones) whole, payload first, then its checksum. A crash in
//! between leaves the block failing its old checksum. Its older bytes are true bytes only a
//! decode of the block row could confirm, and beside a failed column raid5 has nothing left
//! to decode with: recovery recorded a HEALTHY OSS's acknowledged bytes lost, and the failed
//! OSS's beside them. Session 7 journals such blocks whole before the move's first write,
//! but only when an OSS of the stripe is down when the move starts; an OSS failing after
//! that (by `fail`, which does not wait for a move, or found down by any write) left the block
//! without a copy. Now the move keeps its edge copies in memory and every failure record
//! journals those beside the failed OSS first.
//!
//! The crash image is built in process: the move is parked (a hooked backend) right before
//! its write of the edge block on a healthy OSS, the OSS beside it fails, the store's
//! directories are copied (what a kill -9 at that instant leaves), and the edge block is then
//! torn in the copy (its new payload under its old checksum, what a kill between the two
//! leaves). The copy is opened (recovery) and must read every acknowledged byte.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{StoreError, WritePath};
use parking_lot::{Condvar, Mutex};

/// The window's write into data element 0 (the edge block's OSS) and, for the OSS that
/// dies under the move, into data element 1: element offset and length (within block 0).
const WINDOW_AT: u64 = 1000;
const WINDOW_BYTES: usize = 600;
const NONE: usize = usize::MAX;

/// Parks home-data writes to OSS `park` while paused; fails every write to OSS `dead`
/// as unavailable (a disk that died) once armed.
struct MoveHook {
    park: AtomicUsize,
    dead: AtomicUsize,
    paused: Mutex<bool>,
    changed: Condvar,
    parked: AtomicUsize,
}

impl Default for MoveHook {
    fn default() -> Self {
        MoveHook {
            park: AtomicUsize::new(NONE),
            dead: AtomicUsize::new(NONE),
            paused: Mutex::new(false),
            changed: Condvar::new(),
            parked: AtomicUsize::new(0),
        }
    }
}

impl MoveHook {
    fn release(&self) {
        *self.paused.lock() = false;
        self.changed.notify_all();
    }
}

impl Hook for MoveHook {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.dead.load(Ordering::SeqCst) {
            return Err(BackendError::Unavailable {
                oss: format!("{oss}"),
                why: "injected: the disk died under the move home".into(),
            });
        }
        if key.zone != Zone::Data || oss != self.park.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut paused = self.paused.lock();
        if *paused {
            self.parked.fetch_add(1, Ordering::SeqCst);
            while *paused {
                self.changed.wait(&mut paused);
            }
            self.parked.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// How the OSS beside the edge block fails while the move is parked.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Failure {
    /// `store fail` (does not wait for a move in flight).
    FailCommand,
    /// Its disk dies, and a client write of another file finds it down (and records it
    /// failed) while the move waits.
    FoundDownByAWrite,
}

/// raid5 4+1, delayed; a window writes part of block 0 of stripe 0's data element 0 (and,
/// with `window_on_failing_oss`, of element 1 too); END runs with its move home parked
/// before its home write on element 0's OSS; element 1's OSS fails as `failure` says; crash
/// image; the edge block torn in it. Returns what reading the image gives (`Err`: the bytes
/// recorded lost).
fn crash_with_an_oss_failed_under_the_move(
    failure: Failure,
    window_on_failing_oss: bool,
) -> Result<(), String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let image = tmp.path().join("image");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Delayed);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let mut other = pattern(7, sdb);
    store.put("g", &other).unwrap();
    let other_id = store.file_id("g").unwrap();
    store.close().unwrap();
    let oss_of_data = |d: usize| layout.oss_of(id, 0, layout.geometry().data_pos[d].col);
    let (edge_oss, failing_oss) = (oss_of_data(0), oss_of_data(1));

    let hook = Arc::new(MoveHook::default());
    let store =
        Arc::new(open_wrapped(&dir, &hook, &[], exaraid_store::OpenOptions::default()).unwrap());
    let token = store.delayed_start("f").unwrap();
    let at = layout.file_offset(0, 0, WINDOW_AT) as usize;
    let new = pattern(2, WINDOW_BYTES);
    store.write("f", at as u64, &new).unwrap();
    model[at..at + WINDOW_BYTES].copy_from_slice(&new);
    if window_on_failing_oss {
        // Cache-only bytes on the OSS that dies: after the crash they decode from the END
        // parity, across the torn edge block.
        let at = layout.file_offset(0, 1, WINDOW_AT) as usize;
        let new = pattern(3, WINDOW_BYTES);
        store.write("f", at as u64, &new).unwrap();
        model[at..at + WINDOW_BYTES].copy_from_slice(&new);
    }

    hook.park.store(edge_oss, Ordering::SeqCst);
    *hook.paused.lock() = true;
    let s = store.clone();
    let end = spawn(move || s.delayed_end(&token));
    eventually("the move home parks before its edge-block write", || {
        hook.parked.load(Ordering::SeqCst) == 1
    });
    match failure {
        Failure::FailCommand => store.fail_oss(failing_oss).unwrap(),
        Failure::FoundDownByAWrite => {
            hook.dead.store(failing_oss, Ordering::SeqCst);
            // g's data element on the dead OSS (g has no window: a home write, degraded).
            let on_dead = |d: &usize| {
                let col = layout.geometry().data_pos[*d].col;
                layout.oss_of(other_id, 0, col) == failing_oss
            };
            let d = (0..4)
                .find(on_dead)
                .expect("g's stripe 0 has a column on each OSS");
            let g_at = layout.file_offset(0, d, 100) as usize;
            let g_new = pattern(8, 200);
            store.write("g", g_at as u64, &g_new).unwrap();
            other[g_at..g_at + g_new.len()].copy_from_slice(&g_new);
        }
    }
    // The disks as a kill -9 at this instant leaves them, the edge block then torn.
    copy_tree(&dir, &image);
    let e0 = layout.file_offset(0, 0, 0) as usize;
    tear_home_block(&image, &layout, id, 0, &model[e0..e0 + UNIT]);

    hook.release();
    done_in_time(&end, "END").unwrap();
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&image, &dir);

    let mut store = open_unsynced(&dir);
    let status = store.status().unwrap();
    assert!(
        !status.oss[failing_oss].healthy && !status.oss[failing_oss].missing,
        "the failure is on record in the crash image"
    );
    match store.get("f") {
        Ok(got) => assert!(got == model, "{failure:?}: WRONG bytes with exit 0"),
        Err(StoreError::DataLost(why)) => return Err(why),
        Err(e) => panic!("{failure:?}: get: {e}"),
    }
    assert!(
        store.get("g").unwrap() == other,
        "{failure:?}: the other file"
    );
    store.rebuild(failing_oss, None).unwrap();
    assert!(
        store.get("f").unwrap() == model,
        "{failure:?}: after rebuild"
    );
    assert!(
        store.get("g").unwrap() == other,
        "{failure:?}: g after rebuild"
    );
    assert_consistent(&store);
    Ok(())
}

#[test]
fn raid5_an_oss_failed_by_the_fail_command_under_a_move_home_then_a_crash_loses_nothing() {
    if let Err(why) = crash_with_an_oss_failed_under_the_move(Failure::FailCommand, false) {
        panic!("acknowledged bytes recorded lost: {why}");
    }
}

#[test]
fn raid5_an_oss_found_dead_by_a_write_under_a_move_home_then_a_crash_loses_nothing() {
    if let Err(why) = crash_with_an_oss_failed_under_the_move(Failure::FoundDownByAWrite, false) {
        panic!("acknowledged bytes recorded lost: {why}");
    }
}

/// OPEN 4 of session 8: the OSS that dies holds window bytes of its own (in its cache zone
/// only until the move writes them home): recovery decodes them from the END parity, which
/// needs the torn edge block's journaled copy (the read ignored it: raid5 LOST).
#[test]
fn raid5_the_oss_holding_window_bytes_fails_under_a_move_home_then_a_crash_loses_nothing() {
    for failure in [Failure::FailCommand, Failure::FoundDownByAWrite] {
        if let Err(why) = crash_with_an_oss_failed_under_the_move(failure, true) {
            panic!("{failure:?}: acknowledged bytes recorded lost: {why}");
        }
    }
}
