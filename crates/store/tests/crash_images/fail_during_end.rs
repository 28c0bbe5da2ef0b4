//! `fail_oss` from one thread while another thread's delayed END runs is a defined event
//! (review s9r R9-2): END records the window's bytes whose only copy was on the failed OSS as
//! lost (file and byte ranges), gives every other byte of the window its parity, and returns
//! the documented "window lost data" error naming them. The store stays usable in-process:
//! every other byte reads, writes go on, later opens and scrub agree. Before the fix END's
//! parity plan read the failed OSS's cache zone, failed as a plan ("failed while computing
//! its parity") and poisoned the store: every later call failed until a reopen.
//!
//! Two moments, each built with a hooked backend and counters, no timing:
//! - before END's reads: END's parity plan is queued behind a read holding its stripe when
//!   the OSS fails (it holds no failure gate while queued, so `fail` goes first);
//! - after END's parity is durable but before the planner hears of it (a read of another
//!   file is in flight, which holds completions back): the bytes are protected, nothing is
//!   lost, and END's move home must decode them instead of failing.
//!
//! And a kill -9 at every point of END after the failure (an image of the store before each
//! mutating backend call, cut at each journal record boundary): the next open agrees.

use crate::common;
use crate::hooked;
use crate::imaged;
use common::*;
use hooked::*;
use imaged::*;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::WritePath;
use exaraid_store::{OpenOptions, Store, StoreError};
use parking_lot::{Condvar, Mutex};

/// Where a thread waits until the test lets it go (armed), or passes (not armed).
#[derive(Default)]
struct Park {
    armed: Mutex<bool>,
    changed: Condvar,
    parked: AtomicUsize,
}

impl Park {
    fn arm(&self) {
        *self.armed.lock() = true;
    }
    fn release(&self) {
        *self.armed.lock() = false;
        self.changed.notify_all();
    }
    fn here(&self) {
        let mut armed = self.armed.lock();
        if *armed {
            self.parked.fetch_add(1, Ordering::SeqCst);
            while *armed {
                self.changed.wait(&mut armed);
            }
            self.parked.fetch_sub(1, Ordering::SeqCst);
        }
    }
    fn parked(&self) -> usize {
        self.parked.load(Ordering::SeqCst)
    }
}

/// The scene's hook: home reads of one object park at `reads` (a read that holds its
/// stripes, and completions back, while parked); with `after_parity` armed, the first cache
/// read after any parity write parks there (END's move home, after its parity plan: the
/// parity plan does every read before its first write).
/// With `before_sync` armed, the first sync of OSS `sync_of` after a home-data write to it
/// that follows a parity write parks there (END's move home, between its writes and its
/// syncs: it holds no failure gate).
#[derive(Default)]
struct Scene {
    home_reads_of: AtomicU64,
    reads: Park,
    parity_written: AtomicBool,
    after_parity: Park,
    sync_of: AtomicUsize,
    home_written_after_parity: AtomicBool,
    before_sync: Park,
}

impl Scene {
    fn new() -> Arc<Scene> {
        let s = Scene::default();
        s.home_reads_of.store(u64::MAX, Ordering::SeqCst);
        s.sync_of.store(usize::MAX, Ordering::SeqCst);
        Arc::new(s)
    }
}

impl Hook for Scene {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        if key.zone != Zone::Cache && key.object == self.home_reads_of.load(Ordering::SeqCst) {
            self.reads.here();
        }
        if key.zone == Zone::Cache && self.parity_written.load(Ordering::SeqCst) {
            self.after_parity.here();
        }
    }
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Parity {
            self.parity_written.store(true, Ordering::SeqCst);
        }
        if key.zone == Zone::Data
            && oss == self.sync_of.load(Ordering::SeqCst)
            && self.parity_written.load(Ordering::SeqCst)
        {
            self.home_written_after_parity.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if oss == self.sync_of.load(Ordering::SeqCst)
            && self.home_written_after_parity.load(Ordering::SeqCst)
        {
            self.before_sync.here();
        }
        Ok(())
    }
}

/// One store of `code` over `oss_count` OSSs with `f` (two stripes) and `g` put, reopened
/// with the scene's hook, and a window open on `f` whose bytes cover every data element of
/// stripe 0 in part or whole (`WINDOW_FROM`..stripe end - `WINDOW_FROM`).
struct Setup {
    store: Arc<Store>,
    scene: Arc<Scene>,
    token: String,
    f: Vec<u8>,
    g: Vec<u8>,
    /// The window's file range.
    window: (u64, u64),
}

const WINDOW_FROM: u64 = 1000;

fn setup(dir: &Path, code: CodeSpec, oss_count: usize) -> Setup {
    let store = init(dir, code, oss_count, WritePath::Delayed);
    let sdb = store.layout().stripe_data_bytes();
    let mut f = pattern(1, 2 * sdb as usize);
    let g = pattern(2, 3000);
    store.put("f", &f).unwrap();
    store.put("g", &g).unwrap();
    store.close().unwrap();
    let scene = Scene::new();
    let store = Arc::new(open_wrapped(dir, &scene, &[], OpenOptions::default()).unwrap());
    let token = store.delayed_start("f").unwrap();
    let window = (WINDOW_FROM, sdb - WINDOW_FROM);
    let bytes = pattern(3, (window.1 - window.0) as usize);
    store.write("f", window.0, &bytes).unwrap();
    f[window.0 as usize..window.1 as usize].copy_from_slice(&bytes);
    Setup {
        store,
        scene,
        token,
        f,
        g,
        window,
    }
}

/// The OSS of data element `d` of stripe 0 of `f`.
fn oss_of_data(store: &Store, d: usize) -> usize {
    let layout = store.layout();
    let id = store.file_id("f").unwrap();
    layout.oss_of(id, 0, layout.geometry().data_pos[d].col)
}

/// The window's bytes on data element `d` of stripe 0 (a file range): its only copy was on
/// that element's OSS.
fn window_on_data(s: &Setup, d: usize) -> (u64, u64) {
    let layout = s.store.layout();
    let a = layout.file_offset(0, d, 0);
    let z = a + layout.element_bytes() * layout.geometry().rows as u64;
    (a.max(s.window.0), z.min(s.window.1))
}

/// `status --json`'s lost ranges as (file, offset, end, OSS), sorted.
fn lost_ranges(store: &Store) -> Vec<(String, u64, u64, usize)> {
    let json = serde_json::to_value(store.status().unwrap()).unwrap();
    let list = json["lost_ranges"]
        .as_array()
        .expect("status lists lost_ranges");
    let mut out: Vec<(String, u64, u64, usize)> = list
        .iter()
        .map(|l| {
            let a = l["offset_bytes"].as_u64().unwrap();
            (
                l["file"].as_str().unwrap().to_string(),
                a,
                a + l["len_bytes"].as_u64().unwrap(),
                l["oss"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    out.sort();
    // Adjacent records of one OSS are one range to the reader (records split at cache
    // extents).
    let mut merged: Vec<(String, u64, u64, usize)> = Vec::new();
    for r in out {
        match merged.last_mut() {
            Some(m) if m.0 == r.0 && m.3 == r.3 && m.2 == r.1 => m.2 = r.2,
            _ => merged.push(r),
        }
    }
    merged
}

/// Every byte of `f` outside `lost` reads as `f`; each lost range is `DataLost` naming it.
fn assert_reads(store: &Store, f: &[u8], lost: &[(u64, u64)], when: &str) {
    let mut at = 0u64;
    let mut edges: Vec<(u64, u64)> = lost.to_vec();
    edges.sort();
    for &(a, z) in &edges {
        if at < a {
            let got = store.read("f", at, a - at);
            assert!(
                got.as_deref().ok() == Some(&f[at as usize..a as usize]),
                "{when}: f bytes {at}..{a} (not lost) read back: {:?}",
                got.map(|b| b.len())
            );
        }
        match store.read("f", a, z - a) {
            Err(StoreError::DataLost(msg)) => assert!(
                msg.contains(&format!("'f' bytes {a}..{z}")),
                "{when}: the lost range {a}..{z} is named: {msg}"
            ),
            other => panic!(
                "{when}: reading lost bytes {a}..{z} must be DataLost, got {:?}",
                other.map(|b| b.len())
            ),
        }
        at = z;
    }
    let n = f.len() as u64;
    if at < n {
        let got = store.read("f", at, n - at);
        assert!(
            got.as_deref().ok() == Some(&f[at as usize..]),
            "{when}: f bytes {at}..{n} (not lost) read back: {:?}",
            got.map(|b| b.len())
        );
    }
    if lost.is_empty() {
        assert!(store.get("f").unwrap() == f, "{when}: f byte-exact");
    }
}

/// END's answer when bytes were lost: the documented window-loss error, naming each range
/// and the window; not a plan failure.
fn assert_end_names_losses(end: Result<(), StoreError>, token: &str, lost: &[(u64, u64)]) {
    let msg = match end {
        Err(StoreError::DataLost(msg)) => msg,
        other => panic!("END must return the window-loss DataLost error, got {other:?}"),
    };
    assert!(
        msg.contains(&format!(
            "delayed window {token} ended, but not all of its bytes are protected"
        )),
        "END ended the window and says so (not a failed parity plan): {msg}"
    );
    for (a, z) in lost {
        assert!(
            msg.contains(&format!("'f' bytes {a}..{z}")),
            "END names lost range {a}..{z}: {msg}"
        );
    }
}

/// The answer of a call running on a thread of its own.
type Answer<T> = std::sync::mpsc::Receiver<Result<T, StoreError>>;

/// Park a read of `f`'s home bytes 0..100 (stripe 0: END's parity plan queues behind it),
/// start END on another thread and wait until its parity plan waits for the stripe.
fn end_queued_behind_a_read(s: &Setup) -> (Answer<Vec<u8>>, Answer<()>) {
    s.scene
        .home_reads_of
        .store(s.store.file_id("f").unwrap(), Ordering::SeqCst);
    s.scene.reads.arm();
    let read = {
        let st = s.store.clone();
        spawn(move || st.read("f", 0, 100))
    };
    eventually("the read of f parks holding stripe 0", || {
        s.scene.reads.parked() == 1
    });
    let end = {
        let (st, token) = (s.store.clone(), s.token.clone());
        spawn(move || st.delayed_end(&token))
    };
    eventually("END's parity plan waits for stripe 0", || {
        s.store.stripe_lock_waiters() == 1
    });
    (read, end)
}

fn fail_in_time(store: &Arc<Store>, oss: usize) -> Result<(), StoreError> {
    let st = store.clone();
    done_in_time(&spawn(move || st.fail_oss(oss)), "fail_oss")
}

/// After the scene: the lost ranges are on record and named, every other byte reads, writes
/// work, another open agrees, a rebuild and a scrub find everything consistent, and writing
/// the lost bytes again makes the file whole.
fn assert_after(dir: &Path, s: Setup, failed: &[usize], lost: &[(u64, u64)]) {
    let Setup {
        store, scene, f, g, ..
    } = s;
    let expected: Vec<(String, u64, u64, usize)> = {
        let mut e: Vec<_> = lost
            .iter()
            .map(|&(a, z)| {
                let oss = store.layout().locate(store.file_id("f").unwrap(), a).oss;
                ("f".to_string(), a, z, oss)
            })
            .collect();
        e.sort();
        e
    };
    assert_eq!(lost_ranges(&store), expected, "the lost ranges on record");
    assert_reads(&store, &f, lost, "in-process after END");
    assert_eq!(store.get("g").unwrap(), g, "g, nothing of it lost");
    // Not poisoned: a write outside the lost ranges works and reads back.
    let mut f = f;
    let late = pattern(9, 700);
    let late_at = f.len() as u64 - 2000;
    store.write("f", late_at, &late).unwrap();
    f[late_at as usize..late_at as usize + late.len()].copy_from_slice(&late);
    assert_reads(&store, &f, lost, "after a later write");
    drop(scene);
    eventually("the threads let the store go", || {
        Arc::strong_count(&store) == 1
    });
    let store = Arc::into_inner(store).expect("the last handle");
    store.close().unwrap();

    // Another open agrees.
    let mut store = Store::open(dir).unwrap();
    assert_eq!(
        lost_ranges(&store),
        expected,
        "the lost ranges after reopen"
    );
    assert_reads(&store, &f, lost, "after reopen");
    for &oss in failed {
        store.rebuild(oss, None).unwrap();
    }
    assert_eq!(
        lost_ranges(&store),
        expected,
        "the lost ranges after rebuild"
    );
    assert_reads(&store, &f, lost, "after rebuild");
    assert_consistent(&store);
    for &(a, z) in lost {
        let again = pattern(10 + a, (z - a) as usize);
        store.write("f", a, &again).unwrap();
        f[a as usize..z as usize].copy_from_slice(&again);
    }
    assert!(lost_ranges(&store).is_empty(), "rewritten: nothing lost");
    assert_reads(&store, &f, &[], "after writing the lost bytes again");
    assert_eq!(store.get("g").unwrap(), g);
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    assert_reads(&store, &f, &[], "after the last reopen");
    assert_consistent(&store);
}

/// The OSS fails while END's parity plan waits for its stripe: END names the window's bytes
/// on it lost, the rest of the window gets its parity (a second failure, where the code
/// tolerates one, then reads them from it).
fn fail_before_end_reads(code: CodeSpec, oss_count: usize, tolerance: usize) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let s = setup(&dir, code, oss_count);
    let victim = oss_of_data(&s.store, 1);
    let lost = [window_on_data(&s, 1)];
    let (read, end) = end_queued_behind_a_read(&s);
    fail_in_time(&s.store, victim).unwrap();
    s.scene.reads.release();
    assert_eq!(
        done_in_time(&read, "the parked read").unwrap(),
        &s.f[..100],
        "the parked read of home bytes"
    );
    assert_end_names_losses(done_in_time(&end, "END"), &s.token, &lost);
    let mut failed = vec![victim];
    if tolerance >= 2 {
        // The window's bytes of data element 0 read from END's parity alone.
        let second = oss_of_data(&s.store, 0);
        s.store.fail_oss(second).unwrap();
        failed.push(second);
    }
    assert_after(&dir, s, &failed, &lost);
}

#[test]
fn raid5_fail_before_end_reads_names_the_lost_bytes_and_the_store_stays_usable() {
    fail_before_end_reads(CodeSpec::raid5(3), 4, 1);
}

#[test]
fn raid6_fail_before_end_reads_names_the_lost_bytes_and_the_store_stays_usable() {
    fail_before_end_reads(CodeSpec::raid6(4), 6, 2);
}

#[test]
fn rs_fail_before_end_reads_names_the_lost_bytes_and_the_store_stays_usable() {
    fail_before_end_reads(CodeSpec::rs(4, 2), 6, 2);
}

/// The OSS fails after END's parity plan is durable, while the planner has not heard of it
/// yet (a read of `g` in flight holds completions back) and END's move home has not read the
/// cache: every window byte is protected, so nothing is lost and END succeeds.
fn fail_after_end_parity(code: CodeSpec, oss_count: usize, tolerance: usize) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let s = setup(&dir, code, oss_count);
    let victim = oss_of_data(&s.store, 1);
    s.scene
        .home_reads_of
        .store(s.store.file_id("g").unwrap(), Ordering::SeqCst);
    s.scene.reads.arm();
    let read = {
        let st = s.store.clone();
        spawn(move || st.read("g", 0, 100))
    };
    eventually("the read of g parks", || s.scene.reads.parked() == 1);
    s.scene.after_parity.arm();
    let end = {
        let (st, token) = (s.store.clone(), s.token.clone());
        spawn(move || st.delayed_end(&token))
    };
    // (One thread per OSS: several of its reads may park.)
    eventually("END's move home parks before its cache reads", || {
        s.scene.after_parity.parked() >= 1
    });
    fail_in_time(&s.store, victim).unwrap();
    s.scene.after_parity.release();
    let ended = done_in_time(&end, "END");
    s.scene.reads.release();
    assert_eq!(done_in_time(&read, "the parked read").unwrap(), &s.g[..100]);
    ended.expect("END: every window byte has its parity, nothing is lost");
    fail_a_second_within_tolerance_then_assert_after(&dir, s, victim, tolerance);
}

#[test]
fn raid5_fail_after_end_parity_is_durable_loses_nothing() {
    fail_after_end_parity(CodeSpec::raid5(3), 4, 1);
}

#[test]
fn raid6_fail_after_end_parity_is_durable_loses_nothing() {
    fail_after_end_parity(CodeSpec::raid6(4), 6, 2);
}

#[test]
fn rs_fail_after_end_parity_is_durable_loses_nothing() {
    fail_after_end_parity(CodeSpec::rs(4, 2), 6, 2);
}

/// The OSS fails after END's move home wrote its home bytes but before it synced that OSS
/// (review s19r R19-4): the sync meets an OSS failed on record, which is skipped as one
/// failed before the plan, not taken for a dropped fsync. END's parity is durable, so
/// nothing is lost, END succeeds and the store stays usable (before: END returned `Io` "the
/// sync of OSS [v] failed" and poisoned the handle).
fn fail_between_end_move_writes_and_syncs(code: CodeSpec, oss_count: usize, tolerance: usize) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let s = setup(&dir, code, oss_count);
    let victim = oss_of_data(&s.store, 1);
    s.scene.sync_of.store(victim, Ordering::SeqCst);
    s.scene.before_sync.arm();
    let end = {
        let (st, token) = (s.store.clone(), s.token.clone());
        spawn(move || st.delayed_end(&token))
    };
    eventually(
        "END's move home parks before its sync of the victim",
        || s.scene.before_sync.parked() == 1,
    );
    fail_in_time(&s.store, victim).unwrap();
    s.scene.before_sync.release();
    done_in_time(&end, "END").expect("END: every window byte has its parity, nothing is lost");
    fail_a_second_within_tolerance_then_assert_after(&dir, s, victim, tolerance);
}

#[test]
fn raid5_fail_between_end_move_writes_and_syncs_loses_nothing_and_end_succeeds() {
    fail_between_end_move_writes_and_syncs(CodeSpec::raid5(3), 4, 1);
}

#[test]
fn raid6_fail_between_end_move_writes_and_syncs_loses_nothing_and_end_succeeds() {
    fail_between_end_move_writes_and_syncs(CodeSpec::raid6(4), 6, 2);
}

#[test]
fn rs_fail_between_end_move_writes_and_syncs_loses_nothing_and_end_succeeds() {
    fail_between_end_move_writes_and_syncs(CodeSpec::rs(4, 2), 6, 2);
}

/// raid5: a second `fail` while END waits is refused (beyond the tolerance, nothing
/// changed); END then names the first OSS's window bytes only.
#[test]
fn raid5_a_second_failure_while_end_waits_is_refused_and_end_names_the_first() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let s = setup(&dir, CodeSpec::raid5(3), 4);
    let victim = oss_of_data(&s.store, 1);
    let lost = [window_on_data(&s, 1)];
    let (read, end) = end_queued_behind_a_read(&s);
    fail_in_time(&s.store, victim).unwrap();
    match fail_in_time(&s.store, oss_of_data(&s.store, 2)) {
        Err(StoreError::BadInput(msg)) => {
            assert!(msg.contains("refused, nothing changed"), "{msg}")
        }
        other => panic!("a second failure on raid5 must be refused, got {other:?}"),
    }
    s.scene.reads.release();
    done_in_time(&read, "the parked read").unwrap();
    assert_end_names_losses(done_in_time(&end, "END"), &s.token, &lost);
    assert_after(&dir, s, &[victim], &lost);
}

/// raid6: two OSSs fail while END waits: END names the window's bytes of both, the rest of
/// the window gets its parity; a third failure is refused.
#[test]
fn raid6_two_failures_while_end_waits_are_both_named_and_a_third_is_refused() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let s = setup(&dir, CodeSpec::raid6(4), 6);
    let (first, second) = (oss_of_data(&s.store, 1), oss_of_data(&s.store, 3));
    let lost = [window_on_data(&s, 1), window_on_data(&s, 3)];
    let (read, end) = end_queued_behind_a_read(&s);
    fail_in_time(&s.store, first).unwrap();
    fail_in_time(&s.store, second).unwrap();
    match fail_in_time(&s.store, oss_of_data(&s.store, 0)) {
        Err(StoreError::BadInput(msg)) => {
            assert!(msg.contains("refused, nothing changed"), "{msg}")
        }
        other => panic!("a third failure on raid6 must be refused, got {other:?}"),
    }
    s.scene.reads.release();
    done_in_time(&read, "the parked read").unwrap();
    assert_end_names_losses(done_in_time(&end, "END"), &s.token, &lost);
    assert_after(&dir, s, &[first, second], &lost);
}

// ---------------------------------------------------------------- a kill at any point

/// Every 4 KiB of `f` reads as `want` or fails as DataLost, never with other bytes; returns
/// how many failed outside `lost` (a range lost on record, which must fail).
fn never_wrong(store: &Store, want: &[u8], lost: (u64, u64), what: &str) -> usize {
    let mut unreadable = 0;
    for at in (0..want.len()).step_by(UNIT) {
        let n = UNIT.min(want.len() - at);
        let in_lost = (at as u64) < lost.1 && lost.0 < (at + n) as u64;
        match store.read("f", at as u64, n as u64) {
            Ok(_) if in_lost => panic!("{what}: f bytes {at}..{} (lost on record) read", at + n),
            Err(StoreError::DataLost(_)) if in_lost => {}
            Ok(bytes) => assert!(
                bytes == want[at..at + n],
                "{what}: f bytes {at}..{} read WRONG",
                at + n
            ),
            Err(StoreError::DataLost(_)) => unreadable += 1,
            Err(e) => panic!("{what}: f bytes {at}..{}: {e}", at + n),
        }
    }
    unreadable
}

/// raid6: the OSS fails while END's parity plan waits; a kill -9 at any point of what END
/// does after that (before each backend write, sync or removal, and at each journal record
/// boundary in between) leaves a store whose next open reads every byte of `f` right except
/// the window's bytes on the failed OSS, which are lost on record and named, whose parity
/// matches its data, and which still reads right with a second OSS failed.
#[test]
fn raid6_a_kill_at_any_point_of_end_after_the_failure_loses_only_the_named_bytes() {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let store = init(&dir, CodeSpec::raid6(4), 6, WritePath::Delayed);
    let sdb = store.layout().stripe_data_bytes();
    let mut want = pattern(1, 2 * sdb as usize);
    store.put("f", &want).unwrap();
    store.close().unwrap();
    let imager = Imager::new(&dir);
    let scene = Scene::new();
    let store = Arc::new(open_imaged(&dir, &imager, &scene, OpenOptions::default()).unwrap());
    let token = store.delayed_start("f").unwrap();
    let window = (WINDOW_FROM, sdb - WINDOW_FROM);
    let bytes = pattern(3, (window.1 - window.0) as usize);
    store.write("f", window.0, &bytes).unwrap();
    want[window.0 as usize..window.1 as usize].copy_from_slice(&bytes);
    let layout = store.layout().clone();
    let id = store.file_id("f").unwrap();
    let data_oss = |d: usize| layout.oss_of(id, 0, layout.geometry().data_pos[d].col);
    let (victim, second) = (data_oss(1), data_oss(0));
    let on_data = |d: usize| {
        let a = layout.file_offset(0, d, 0);
        (a.max(window.0), (a + layout.element_bytes()).min(window.1))
    };
    let lost = on_data(1);

    // END queued behind a parked read of f; the failure goes first.
    scene.home_reads_of.store(id, Ordering::SeqCst);
    scene.reads.arm();
    let read = {
        let st = store.clone();
        spawn(move || st.read("f", 0, 100))
    };
    eventually("the read of f parks", || scene.reads.parked() == 1);
    let end = {
        let (st, token) = (store.clone(), token.clone());
        spawn(move || st.delayed_end(&token))
    };
    eventually("END's parity plan waits for stripe 0", || {
        store.stripe_lock_waiters() == 1
    });
    fail_in_time(&store, victim).unwrap();
    let journal_at_fail_bytes = journal_records(&dir).last().unwrap().0;
    imager.arm();
    scene.reads.release();
    done_in_time(&read, "the parked read").unwrap();
    let ended = done_in_time(&end, "END");
    // Killed after END returned: the last image.
    imager.last_image();
    let images = imager.images();
    assert!(images.len() > 4, "END made several backend calls");

    let kill_points = for_each_kill_point(&images, journal_at_fail_bytes, |kill| {
        let what = kill.what();
        let attempt = top.path().join("try");
        kill.lay(&attempt);
        let image_store = open_image(&attempt, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let on_record: Vec<(u64, u64, usize)> = image_store
            .status()
            .unwrap()
            .lost_ranges
            .iter()
            .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes, l.oss))
            .collect();
        assert_eq!(
            on_record,
            vec![(lost.0, lost.1, victim)],
            "{what}: exactly the window's bytes on the failed OSS are lost on record"
        );
        assert_reads(&image_store, &want, &[lost], &what);
        assert!(
            image_store
                .scrub(false)
                .unwrap()
                .parity_mismatches
                .is_empty(),
            "{what}: parity matches the data"
        );
        // A second failure, within raid6's tolerance: every byte but the lost ones
        // still reads. (Before recovery skipped a move home's writes to the failed
        // OSS, kills after END's parity was durable left the lost block's row with its
        // parity marked lost: bytes beside it read DataLost, 9 of 20 kill points.)
        image_store.fail_oss(second).unwrap();
        let what = format!("{what}, OSS {second} failed too");
        let unreadable = never_wrong(&image_store, &want, lost, &what);
        assert_eq!(
            unreadable, 0,
            "{what}: 4 KiB pieces of f outside the lost range read DataLost"
        );
        drop(image_store);
        std::fs::remove_dir_all(&attempt).unwrap();
    });
    eprintln!("{} images, {kill_points} kill points", images.len());
    assert!(kill_points > images.len(), "{kill_points} kill points");
    assert_end_names_losses(ended, &token, &[lost]);
}

/// With `victim` failed: a second data OSS failed too where the code tolerates two, then
/// every byte checked (`assert_after`) with those OSSs down.
fn fail_a_second_within_tolerance_then_assert_after(
    dir: &Path,
    s: Setup,
    victim: usize,
    tolerance: usize,
) {
    let mut failed = vec![victim];
    if tolerance >= 2 {
        let second = oss_of_data(&s.store, 0);
        s.store.fail_oss(second).unwrap();
        failed.push(second);
    }
    assert_after(dir, s, &failed, &[]);
}
