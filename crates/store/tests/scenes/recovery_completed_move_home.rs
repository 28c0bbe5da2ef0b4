//! Recovery after a crash where every plan from the first interrupted write on was
//! interrupted too replays the planner only up to that write (its bytes then read as never
//! written). A move home of a delayed window that was running when that write was journaled,
//! and finished (durable, `Complete` journaled) before the crash, came after it in the
//! journal: the shortened replay never heard that it finished, so the settle read the
//! window's bytes from the cache slots the move home had freed. A later interrupted write
//! may have reused those slots (review H1: kill -9 of several API writers with delayed
//! windows left thousands of wrong acknowledged bytes, exit 0, scrub clean). Here every
//! cache slot is overwritten with checksum-valid garbage after the crash, as such writes
//! would: the window's bytes must read back from home, where the move put them. The same
//! with a WCL destage (the raid5 WCL rounds of H1 had wrong acknowledged bytes too).

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{Backend, BackendError, DirBackend, ElementKey, OssLabel, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::superblock::Superblock;
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::{Condvar, Mutex};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

/// Parks every write into the zones in `parked` until they are released.
#[derive(Default)]
struct Gate {
    parked_zones: Mutex<Vec<Zone>>,
    changed: Condvar,
    waiting: AtomicUsize,
}

impl Gate {
    fn park(&self, zone: Zone) {
        self.parked_zones.lock().push(zone);
    }
    fn release(&self, zone: Zone) {
        self.parked_zones.lock().retain(|&z| z != zone);
        self.changed.notify_all();
    }
    fn wait_for_parked(&self, n: usize) {
        eventually("writes parked", || self.waiting.load(Ordering::SeqCst) >= n);
    }
}

impl Hook for Gate {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let mut zones = self.parked_zones.lock();
        if zones.contains(&key.zone) {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            while zones.contains(&key.zone) {
                self.changed.wait(&mut zones);
            }
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// Overwrite every cache slot of every OSS with garbage under valid checksums (what later
/// writes into freed slots leave).
fn scribble_over_the_cache_zone(dir: &Path) {
    let sb = Superblock::load(dir).unwrap();
    for (index, d) in sb.oss_dirs.iter().enumerate() {
        let path = d.join("objects").join(format!("{CACHE_OBJECT}.cache"));
        let slots = std::fs::metadata(&path).map_or(0, |m| m.len() as usize / SLOT_BYTES);
        let label = OssLabel {
            store_id: sb.store_id.clone(),
            index,
            element_bytes: sb.element_bytes,
            block_crc_seed: sb.block_crc_seed,
            settings: None,
        };
        let backend = DirBackend::open(d, &label, None).unwrap();
        for slot in 0..slots {
            let key = ElementKey {
                object: CACHE_OBJECT,
                zone: Zone::Cache,
                slot: slot as u64,
            };
            backend
                .write(key, 0, &pattern(900 + slot as u64, UNIT))
                .unwrap();
        }
        backend.sync().unwrap();
    }
}

/// A raid6 3+2 store over 5 OSSs (`path`) with file `f` (3 stripes) and `g` (1 stripe),
/// closed. Returns the stripe's data bytes and `f`'s content.
fn store_with_f_and_g(dir: &Path, path: WritePath) -> (usize, Vec<u8>) {
    let store = init(dir, CodeSpec::raid6(3), 5, path);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let model = pattern(1, 3 * sdb);
    store.put("f", &model).unwrap();
    store.put("g", &pattern(2, sdb)).unwrap();
    store.close().unwrap();
    (sdb, model)
}

#[test]
fn a_move_home_that_finished_after_the_first_interrupted_write_is_not_read_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, crashed) = (tmp.path().join("store"), tmp.path().join("crashed"));
    let (_, mut model) = store_with_f_and_g(&dir, WritePath::Delayed);

    let gate = Arc::new(Gate::default());
    let store = Arc::new(open_wrapped(&dir, &gate, &[], OpenOptions::default()).unwrap());
    // Window A on f: its bytes wait in the cache zone until its END moves them home.
    let a = store.delayed_start("f").unwrap();
    let window_bytes = pattern(3, 2 * UNIT + 100);
    store.write("f", 100, &window_bytes).unwrap();
    model[100..100 + window_bytes.len()].copy_from_slice(&window_bytes);
    // END of A, its move home held at its first home data write.
    gate.park(Zone::Data);
    let ending = {
        let store = store.clone();
        spawn(move || store.delayed_end(&a))
    };
    gate.wait_for_parked(1);
    // A write into window B on g, journaled now and held at its cache write: interrupted.
    gate.park(Zone::Cache);
    let b = store.delayed_start("g").unwrap();
    let interrupted = {
        let store = store.clone();
        spawn(move || store.write("g", 0, &pattern(4, 3000)))
    };
    gate.wait_for_parked(2);
    // The move home finishes (durable, completed) after that write's input.
    gate.release(Zone::Data);
    done_in_time(&ending, "END of window A").unwrap();
    // kill -9 here: the store as it is on disk.
    copy_tree(&dir, &crashed);
    gate.release(Zone::Cache);
    done_in_time(&interrupted, "the held write").unwrap();
    drop(b);
    drop(store);
    reopen_the_crashed_store_and_check(&dir, &crashed, &model, "the window's bytes");
}

/// The same with WCL: a destage of a complete cache stripe that finished after the first
/// interrupted write was journaled.
#[test]
fn a_destage_that_finished_after_the_first_interrupted_write_is_not_read_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, crashed) = (tmp.path().join("store"), tmp.path().join("crashed"));
    let (sdb, mut model) = store_with_f_and_g(&dir, WritePath::Wcl);

    let gate = Arc::new(Gate::default());
    let options = OpenOptions {
        destage_defer_max_bytes: 0,
        ..OpenOptions::default()
    };
    let store = Arc::new(open_wrapped(&dir, &gate, &[], options).unwrap());
    // Stripe 1 of f written in two halves: the second completes its cache stripe, whose
    // destage then moves it home, held at its first home data write.
    let cached = pattern(3, sdb);
    store.write("f", sdb as u64, &cached[..sdb / 2]).unwrap();
    gate.park(Zone::Data);
    let completing = {
        let store = store.clone();
        let rest = cached[sdb / 2..].to_vec();
        spawn(move || store.write("f", (sdb + sdb / 2) as u64, &rest))
    };
    model[sdb..2 * sdb].copy_from_slice(&cached);
    gate.wait_for_parked(1);
    // A write into g's cache, journaled now and held at its cache write: interrupted.
    gate.park(Zone::Cache);
    let interrupted = {
        let store = store.clone();
        spawn(move || store.write("g", 0, &pattern(4, 3000)))
    };
    gate.wait_for_parked(2);
    // The destage finishes (durable, completed) after that write's input.
    gate.release(Zone::Data);
    done_in_time(&completing, "the write completing stripe 1").unwrap();
    // (Only the held write's 3000 bytes are still waiting for parity: stripe 1 is home.)
    eventually("the destage completed", || {
        store.status().unwrap().bytes_waiting_parity <= 3000
    });
    // kill -9 here: the store as it is on disk.
    copy_tree(&dir, &crashed);
    gate.release(Zone::Cache);
    done_in_time(&interrupted, "the held write").unwrap();
    drop(store);
    reopen_the_crashed_store_and_check(&dir, &crashed, &model, "the destaged bytes");
}

/// Puts the store back as the kill left it (`crashed`), with its cache zone scribbled over
/// (so bytes read from freed slots show), opens it (recovery) and checks that `f` reads its
/// acknowledged bytes `model` and that parity matches the data.
fn reopen_the_crashed_store_and_check(
    dir: &std::path::Path,
    crashed: &std::path::Path,
    model: &[u8],
    what: &str,
) {
    std::fs::remove_dir_all(dir).unwrap();
    copy_tree(crashed, dir);
    scribble_over_the_cache_zone(dir);

    let store = Store::open(dir).unwrap();
    let got = store.get("f").unwrap();
    assert_eq!(got.len(), model.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i] != model[i]) {
        panic!(
            "acknowledged byte {i} of f reads {:#04x}, was {:#04x}: {what} were read from freed cache slots",
            got[i], model[i]
        );
    }
    assert_consistent(&store);
}
