//! Session 30 (s30b), R29-1's power-cut gap: two API writers of one WCL `Store` over one
//! home stripe; the first write's plan P1 is cut by a power cut after its writes returned
//! and left their stripe, but before its own OSS sync; the second, P2, took the stripe after
//! P1 (stripe-lock order) and is durable (acknowledged). Since session 29 the open keeps
//! P1's writes where a later durable plan took the stripe (`finished_later_stripes`): they
//! returned before P2 began. Returned is not durable: a power cut drops the writes an OSS
//! did not sync, and P2 syncs only its own OSSs.
//!
//! Specification: a power cut while P1's syncs are in flight, at the first instant P2 is
//! acknowledged or waits for the stripe; after it, the next open, before any settle and
//! after one, every acknowledged byte reads back with success and a cut write's bytes read
//! as before it or as it wrote them: never other bytes (WRONG BYTES), never LOST.
//!
//! On 6b51ed6 (P1 left its stripes before its sync) P2 is acknowledged with P1's syncs
//! parked, the power cut drops P1's cache block on OSS 0 (P2 synced only OSSs 1 and parity),
//! and raid5 records P2's acknowledged bytes LOST ("its WCL cache stripe's running parity
//! disagrees with its data and no single stale column explains it"; raid6 locates the stale
//! column). No WRONG BYTES were seen: the open's recovery checks the cache stripe against
//! its running parity before any read. Since session 30 a plan holds its stripes across its
//! own sync: P2 waits, and the cut finds P2 unacknowledged.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey};
use exaraid_store::{InitOptions, OpenOptions, Store, StoreError, WritePath};
use parking_lot::{Condvar, Mutex};

/// How long the test waits for a writer to reach its sync: a bound, not a timing.
const WAIT_MS_MAX: u64 = 20_000;

/// Parks every OSS sync while `park` is on (P1's), records which OSSs were written and
/// which were really synced since `arm`.
#[derive(Default)]
struct ParkSyncs {
    armed: AtomicBool,
    park: AtomicBool,
    state: Mutex<Seen>,
    changed: Condvar,
}

#[derive(Default)]
struct Seen {
    written: BTreeSet<usize>,
    synced: BTreeSet<usize>,
    parked: BTreeSet<usize>,
    released: bool,
}

impl Hook for ParkSyncs {
    fn before_write(&self, oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        if self.armed.load(Ordering::SeqCst) {
            self.state.lock().written.insert(oss);
        }
        Ok(())
    }
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut seen = self.state.lock();
        if self.park.load(Ordering::SeqCst) {
            seen.parked.insert(oss);
            self.changed.notify_all();
            while !seen.released {
                self.changed.wait(&mut seen);
            }
            // Synced after the power cut's image: not counted.
            return Ok(());
        }
        // Counted before the sync runs: the image is taken after P2 returned, when every
        // sync it asked for has run.
        seen.synced.insert(oss);
        Ok(())
    }
}

/// Every byte of `got` is `acked`, or, in a cut write's range, that write's byte: returns
/// the first offset that is neither.
fn first_wrong_byte(
    got: &[u8],
    acked: &[u8],
    cut: &[(std::ops::Range<usize>, Vec<u8>)],
) -> Option<usize> {
    assert_eq!(got.len(), acked.len());
    let cut_byte = |i: usize| {
        cut.iter()
            .any(|(range, bytes)| range.contains(&i) && bytes[i - range.start] == got[i])
    };
    (0..got.len()).find(|&i| got[i] != acked[i] && !cut_byte(i))
}

fn the_store(dir: &Path, code: CodeSpec) -> Store {
    std::fs::create_dir(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, columns(code), code);
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    opts.window_timeout_ms = 3_600_000;
    Store::init(dir, &opts).unwrap()
}

/// The scene on `code`; `older_slot`: before it, a write of stripe 1's column 0 moved home
/// (its cache slot then holds bytes of another stripe under a verifying checksum).
fn power_cut_between_cut_writers_writes_and_its_sync(code: CodeSpec, older_slot: bool) {
    let top = scratch();
    let dir = top.path().join("store");
    let layout = the_store(&dir, code).layout().clone();
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(
        stripe_bytes / UNIT >= 3,
        "P1 and P2 write columns 0 and 1 of a partial stripe"
    );

    let hook = Arc::new(ParkSyncs::default());
    let store = Arc::new(open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap());
    let mut model = pattern(1, 2 * stripe_bytes);
    store.put("f", &model).unwrap();
    if older_slot {
        let other = pattern(2, UNIT);
        store.write("f", stripe_bytes as u64, &other).unwrap();
        model[stripe_bytes..stripe_bytes + UNIT].copy_from_slice(&other);
        store.flush().unwrap();
    }
    // Every OSS as its last sync left it (each operation above synced what it wrote).
    let durable_then = top.path().join("durable-then");
    copy_tree(&dir, &durable_then);

    let p1_bytes = pattern(3, UNIT);
    let p2_bytes = pattern(4, UNIT);
    hook.armed.store(true, Ordering::SeqCst);
    hook.park.store(true, Ordering::SeqCst);
    let p1 = {
        let (store, bytes) = (store.clone(), p1_bytes.clone());
        std::thread::spawn(move || store.write("f", 0, &bytes))
    };
    {
        // P1's writes returned (it syncs after them): all its OSSs parked in their sync.
        let mut seen = hook.state.lock();
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(WAIT_MS_MAX);
        while seen.parked.is_empty() || seen.parked != seen.written {
            assert!(
                !hook.changed.wait_until(&mut seen, deadline).timed_out(),
                "P1 reaches its sync"
            );
        }
        hook.park.store(false, Ordering::SeqCst);
    }
    // P2 on its own thread: on 6b51ed6 it took the stripe P1 had left and returned while
    // P1's syncs were parked (the gap); a plan that holds its stripes across its sync makes
    // P2 wait for them. The power cut comes at whichever is first: P2 acknowledged, or P2
    // waiting for the stripe with P1's syncs still parked.
    let p2 = {
        let (store, bytes) = (store.clone(), p2_bytes.clone());
        spawn(move || store.write("f", UNIT as u64, &bytes))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(WAIT_MS_MAX);
    let p2_acknowledged = loop {
        match p2.try_recv() {
            Ok(done) => {
                done.unwrap();
                break true;
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(e) => panic!("P2's thread: {e}"),
        }
        if store.stripe_lock_waiters() > 0 {
            break false;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "P2 neither returns nor waits for its stripe"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let (p1_osses, synced) = {
        let seen = hook.state.lock();
        (seen.parked.clone(), seen.synced.clone())
    };
    // The power cut now: the journal as it is (what P1 and P2 journaled so far taken as
    // kept), each OSS no plan synced since P1 began as it was before P1.
    let image = top.path().join("image");
    copy_tree(&dir, &image);
    let dropped: Vec<usize> = p1_osses.difference(&synced).copied().collect();
    for &oss in &dropped {
        let d = image.join(format!("oss-{oss}"));
        std::fs::remove_dir_all(&d).unwrap();
        copy_tree(&durable_then.join(format!("oss-{oss}")), &d);
    }
    hook.state.lock().released = true;
    hook.changed.notify_all();
    p1.join().unwrap().unwrap();
    if !p2_acknowledged {
        done_in_time(&p2, "P2 once P1's syncs returned").unwrap();
    }
    drop(store);
    assert!(
        !dropped.is_empty(),
        "the scene: P1 wrote an OSS no plan synced (P1 {p1_osses:?}, synced {synced:?})"
    );
    eprintln!(
        "P1 wrote OSSs {p1_osses:?}, synced since {synced:?}, dropped {dropped:?}, P2 acknowledged before the cut: {p2_acknowledged}"
    );

    // Acknowledged bytes must read; a cut write's range may read as before it or as it wrote.
    let mut cut = vec![(0..UNIT, p1_bytes.clone())];
    if p2_acknowledged {
        model[UNIT..2 * UNIT].copy_from_slice(&p2_bytes);
    } else {
        cut.push((UNIT..2 * UNIT, p2_bytes.clone()));
    }
    let store = open_own_dirs_unsynced(&image, &[]).unwrap();
    for when in ["before any settle", "after a flush"] {
        if when == "after a flush" {
            match store.flush() {
                Ok(()) | Err(StoreError::DataLost(_)) => {}
                Err(e) => panic!("flush: {e}"),
            }
        }
        let got = store
            .get("f")
            .unwrap_or_else(|e| panic!("{when}: read refused: {e}"));
        if let Some(at) = first_wrong_byte(&got, &model, &cut) {
            panic!(
                "{when}: WRONG BYTES at file byte {at}: {} (acknowledged or before the cut writes: {})",
                got[at], model[at]
            );
        }
    }
}

#[test]
fn raid5_wcl_a_writer_cut_by_a_power_cut_before_its_sync_beside_a_later_durable_writer_reads_right()
{
    power_cut_between_cut_writers_writes_and_its_sync(CodeSpec::raid5(4), false);
}

#[test]
fn raid5_wcl_a_cut_writers_dropped_block_over_an_older_cache_stripes_bytes_never_reads_back() {
    power_cut_between_cut_writers_writes_and_its_sync(CodeSpec::raid5(4), true);
}

#[test]
fn raid6_wcl_a_cut_writers_dropped_block_over_an_older_cache_stripes_bytes_never_reads_back() {
    power_cut_between_cut_writers_writes_and_its_sync(CodeSpec::raid6(4), true);
}
