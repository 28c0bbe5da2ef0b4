//! The background worker holds WCL destage back while client writes execute
//! (`OpenOptions::destage_defer_max_bytes`): moving a complete cache stripe home is work
//! "out of the critical path" (the seed) that would otherwise compete with the writes for
//! the devices. What must hold: the destage runs once the writers pause; nothing that waits
//! for the destage (a read queued behind it on its stripe) is left waiting meanwhile; and a
//! bound of 0 destages at once, as before the policy existed.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};
use parking_lot::{Condvar, Mutex};

/// How long the worker gets to (wrongly) run a held-back destage. If it were not held back
/// it would run within its 5 ms poll; a slower machine can only make the test pass
/// vacuously, never fail spuriously.
const WORKER_CHANCE: Duration = Duration::from_millis(200);
/// Data bytes of one RAID-5 3+1 stripe.
const STRIPE: usize = 3 * UNIT;

/// Parks the next cache-zone write (any thread) until released, and counts the home data
/// writes of every object: a destage is the only plan that writes a WCL file home.
#[derive(Default)]
struct Probe {
    /// Cache writes still to park; the parked ones wait while `holding`.
    to_park: AtomicUsize,
    holding: Mutex<bool>,
    released: Condvar,
    parked: AtomicUsize,
    home_writes: Mutex<HashMap<u64, u64>>,
}

impl Probe {
    fn park_next_cache_write(&self) {
        *self.holding.lock() = true;
        self.to_park.store(1, Ordering::SeqCst);
    }
    fn release(&self) {
        *self.holding.lock() = false;
        self.released.notify_all();
    }
    fn home_writes_of(&self, object: u64) -> u64 {
        self.home_writes.lock().get(&object).copied().unwrap_or(0)
    }
}

impl Hook for Probe {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Data {
            *self.home_writes.lock().entry(key.object).or_default() += 1;
        }
        let take = |n: usize| n.checked_sub(1);
        if key.zone != Zone::Cache
            || self
                .to_park
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, take)
                .is_err()
        {
            return Ok(());
        }
        let mut holding = self.holding.lock();
        self.parked.fetch_add(1, Ordering::SeqCst);
        while *holding {
            self.released.wait(&mut holding);
        }
        self.parked.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }
}

fn open_probed(dir: &Path, probe: &Arc<Probe>, destage_defer_max_bytes: u64) -> Store {
    let options = OpenOptions {
        fsync: false,
        destage_defer_max_bytes,
        ..OpenOptions::default()
    };
    open_wrapped(dir, probe, &[], options).unwrap()
}

/// A served WCL RAID-5 3+1 store where a client write of file "b" is parked inside its plan
/// (executing: one of its cache writes waits), and file "a" was then written whole: its complete cache stripe's destage is
/// queued for the worker. Returns the store, the probe, a's id, a's bytes, the parked writer
/// and the worker (stop it with the flag).
struct Scene {
    _dir: tempfile::TempDir,
    store: Arc<Store>,
    probe: Arc<Probe>,
    a: u64,
    a_bytes: Vec<u8>,
    b_bytes: Vec<u8>,
    writer: mpsc::Receiver<Result<(), exaraid_store::StoreError>>,
    stop: Arc<AtomicBool>,
    worker: mpsc::Receiver<Result<(), exaraid_store::StoreError>>,
}

fn scene(destage_defer_max_bytes: u64) -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    Store::init(dir.path(), &opts).unwrap().close().unwrap();
    let probe = Arc::new(Probe::default());
    let store = Arc::new(open_probed(dir.path(), &probe, destage_defer_max_bytes));
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        spawn(move || store.serve_background(&stop))
    };
    // Else a write runs its background plans inline (no worker serves yet).
    eventually("the worker serves", || store.serving_background());
    let b_first = pattern(1, 100);
    store.write("b", 0, &b_first).unwrap();
    probe.park_next_cache_write();
    let b_second = pattern(2, 200);
    let writer = {
        let (store, b_second) = (store.clone(), b_second.clone());
        spawn(move || store.write("b", 100, &b_second))
    };
    eventually("the write of b parks in its plan", || {
        probe.parked.load(Ordering::SeqCst) > 0
    });
    let a_bytes = pattern(3, STRIPE);
    // Two writes that complete one cache stripe (a whole-stripe write would go home at once):
    // its destage is queued.
    store.write("a", 0, &a_bytes[..UNIT]).unwrap();
    store.write("a", UNIT as u64, &a_bytes[UNIT..]).unwrap();
    let a = store.file_id("a").unwrap();
    let mut b_bytes = b_first;
    b_bytes.extend_from_slice(&b_second);
    Scene {
        _dir: dir,
        store,
        probe,
        a,
        a_bytes,
        b_bytes,
        writer,
        stop,
        worker,
    }
}

impl Scene {
    fn finish(self) {
        self.probe.release();
        done_in_time(&self.writer, "the parked write of b").expect("the write of b");
        self.stop.store(true, Ordering::SeqCst);
        done_in_time(&self.worker, "the worker").expect("the worker");
        assert!(self.store.get("a").unwrap() == self.a_bytes);
        assert!(self.store.get("b").unwrap() == self.b_bytes);
        assert_consistent(&self.store);
    }
}

#[test]
fn a_destage_waits_while_a_client_write_executes_and_runs_when_the_writers_pause() {
    let s = scene(exaraid_store::store::DESTAGE_DEFER_MAX_BYTES);
    std::thread::sleep(WORKER_CHANCE);
    assert_eq!(
        s.probe.home_writes_of(s.a),
        0,
        "the destage of a ran while the write of b was executing"
    );
    assert!(s.store.status().unwrap().bytes_waiting_parity >= STRIPE as u64);
    s.probe.release();
    // The worker is still serving (not stopped): the pause alone lets the destage run.
    eventually(
        "the destage of a runs once no client write executes",
        || s.probe.home_writes_of(s.a) > 0,
    );
    s.finish();
}

#[test]
fn a_read_queued_behind_a_held_back_destage_is_not_left_waiting() {
    let s = scene(exaraid_store::store::DESTAGE_DEFER_MAX_BYTES);
    // The read takes its place on a's stripe after the destage: the worker must run the
    // destage now, although the write of b is still executing.
    let read = {
        let store = s.store.clone();
        spawn(move || store.get("a"))
    };
    let got = done_in_time(&read, "a read behind the held-back destage").expect("read a");
    assert!(got == s.a_bytes);
    assert!(
        s.probe.parked.load(Ordering::SeqCst) > 0,
        "b is still parked"
    );
    s.finish();
}

#[test]
fn with_a_bound_of_zero_the_destage_runs_at_once_beside_the_writes() {
    let s = scene(0);
    eventually("the destage of a runs while b is still parked", || {
        s.probe.home_writes_of(s.a) > 0
    });
    assert!(
        s.probe.parked.load(Ordering::SeqCst) > 0,
        "b is still parked"
    );
    s.finish();
}
