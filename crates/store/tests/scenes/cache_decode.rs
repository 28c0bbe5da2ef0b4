//! Rebuilding unreadable cache-zone bytes never returns wrong bytes and never makes the store
//! unopenable:
//! - an ended delayed window's bytes (END parity durable, not yet moved home) are covered by
//!   the home parity: a flipped bit in their cache copy, or the failure of the OSS holding it,
//!   is rebuilt by decoding the home stripe with the newest bytes of the other columns laid
//!   over home (by the move home, by recovery at open);
//! - beyond the code's tolerance the store still opens, the lost range reads as `DataLost`
//!   naming it, and every other byte reads;
//! - a WCL cache stripe is decoded only from its own elements, never mixed with a newer
//!   cache stripe of the same home stripe (two exist while the older one is being destaged).
//!
//! The tests flip real bits in the OSS cache zone files and hold the background worker in a
//! plan of another file so that a move home or destage waits in the queue.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::superblock::Superblock;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;
/// Data bytes of one RAID-5 3+1 stripe.
const STRIPE: usize = 3 * UNIT;

fn new_store(dir: &Path, path: WritePath) {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = path;
    Store::init(dir, &opts).unwrap().close().unwrap();
}

fn cache_zone_file(store: &Store, oss: usize) -> PathBuf {
    store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"))
}

/// Flip one bit in the cache-zone slot of `oss` whose payload is `payload` (found by content).
fn flip_cached_bit(store: &Store, oss: usize, payload: &[u8]) {
    assert_eq!(payload.len(), UNIT);
    let path = cache_zone_file(store, oss);
    let mut bytes = std::fs::read(&path).unwrap();
    let slot = (0..bytes.len() / SLOT_BYTES)
        .find(|s| &bytes[s * SLOT_BYTES..s * SLOT_BYTES + UNIT] == payload)
        .expect("the element is in the cache zone of its OSS");
    bytes[slot * SLOT_BYTES + 100] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
}

/// Sets `stop` and releases the worker however the test ends.
struct StopOnDrop<'a>(&'a AtomicBool, Arc<Hooks>);
impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.1.release();
        self.0.store(true, Ordering::SeqCst);
    }
}

/// End a window on `file` whose move home then parks the worker.
fn park_the_worker(store: &Store, hooks: &Hooks, file: &str, seed: u64) {
    hooks.pause();
    let w = store.delayed_window(file).unwrap();
    store.write(file, 0, &pattern(seed, UNIT)).unwrap();
    w.end().unwrap(); // parity durable; the move home is the worker's
    eventually("the worker parks in the move home", || {
        hooks.parked.load(Ordering::SeqCst) > 0
    });
}

/// A delayed store where "f" had a window over bytes `0..len` that ENDed (its home parity
/// is durable) while its move home waits in the worker's queue; `meanwhile` runs then, and
/// the worker is let go. Returns the worker's result.
fn ended_window_waiting_for_its_move(
    dir: &Path,
    data: &[u8],
    meanwhile: impl FnOnce(&Store),
) -> (Store, Result<(), StoreError>) {
    new_store(dir, WritePath::Delayed);
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir, &hooks, &[]).unwrap();
    store.write("g", 0, &pattern(7, 2 * STRIPE)).unwrap(); // another file, at home
    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, hooks.clone());
        park_the_worker(&store, &hooks, "x", 3);
        let w = store.delayed_window("f").unwrap();
        store.write("f", 0, data).unwrap();
        w.end().unwrap();
        assert_eq!(store.status().unwrap().bytes_unprotected, 0, "END parity");
        assert!(
            store.status().unwrap().bytes_waiting_parity > 0,
            "not home yet"
        );
        meanwhile(&store);
        hooks.release();
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap()
    });
    (store, result)
}

#[test]
fn a_flipped_bit_in_an_ended_windows_cache_is_rebuilt_from_home_parity_when_it_moves_home() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(1, STRIPE + 5000);
    let (store, worker) = ended_window_waiting_for_its_move(dir.path(), &data, |store| {
        let oss = store.layout().locate(store.file_id("f").unwrap(), 0).oss;
        flip_cached_bit(store, oss, &data[..UNIT]);
    });
    worker.expect("the move home rebuilds the rotten cache element from home parity");
    assert!(store.get("f").unwrap() == data, "f reads as written");
    assert!(store.get("g").unwrap() == pattern(7, 2 * STRIPE));
    assert_eq!(store.get("x").unwrap(), pattern(3, UNIT));
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("f").unwrap() == data, "and after reopening");
}

#[test]
fn an_oss_failing_after_end_before_the_move_home_loses_no_byte_of_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(2, STRIPE + 5000);
    let mut failed = 0;
    let (store, worker) = ended_window_waiting_for_its_move(dir.path(), &data, |store| {
        failed = store.layout().locate(store.file_id("f").unwrap(), 0).oss;
        store.fail_oss(failed).unwrap();
        assert!(
            store.status().unwrap().lost_ranges.is_empty(),
            "END parity covers the window's bytes: nothing is lost"
        );
    });
    worker.expect("the move home rebuilds the failed OSS's cache bytes from home parity");
    assert!(
        store.get("f").unwrap() == data,
        "degraded reads give the window's bytes"
    );
    store.flush().unwrap();
    assert!(store.get("f").unwrap() == data, "after a flush");
    assert!(store.get("g").unwrap() == pattern(7, 2 * STRIPE));
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.failed_osses(), vec![failed]);
    assert!(store.get("f").unwrap() == data, "and after reopening");
}

/// "f" had a window over `data` that ENDed; the move home was cut (an I/O error: the store
/// asks to be reopened, as after a crash). Returns the directory's store closed.
fn move_home_cut_after_end(dir: &Path, data: &[u8]) {
    new_store(dir, WritePath::Delayed);
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir, &hooks, &[]).unwrap();
    store.write("g", 0, &pattern(7, 2 * STRIPE)).unwrap();
    let w = store.delayed_window("f").unwrap();
    store.write("f", 0, data).unwrap();
    hooks.fail_home_writes.store(true, Ordering::SeqCst);
    let err = w.end().unwrap_err(); // the parity plan ran, the move home failed
    assert!(err.to_string().contains("injected"), "{err}");
    drop(store);
}

#[test]
fn recovery_rebuilds_a_flipped_bit_in_an_ended_windows_cache_from_home_parity() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(4, STRIPE + 5000);
    move_home_cut_after_end(dir.path(), &data);
    flip_in_any_cache_zone(dir.path(), &data[..UNIT]);
    let store = Store::open(dir.path()).expect("recovery rebuilds the rotten cache element");
    assert!(store.get("f").unwrap() == data, "f reads as written");
    assert!(store.get("g").unwrap() == pattern(7, 2 * STRIPE));
    assert_consistent(&store);
}

#[test]
fn recovery_rebuilds_an_ended_windows_bytes_on_an_oss_that_failed_before_the_move_home() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(5, STRIPE + 5000);
    move_home_cut_after_end(dir.path(), &data);
    let failed = oss_of_cached(dir.path(), &data[..UNIT]);
    let hooks = Arc::new(Hooks::default());
    let mut store = open_hooked(dir.path(), &hooks, &[failed])
        .expect("recovery rebuilds the failed OSS's cache bytes from home parity");
    assert!(
        store.get("f").unwrap() == data,
        "degraded reads give the window's bytes"
    );
    assert!(store.get("g").unwrap() == pattern(7, 2 * STRIPE));
    // The replaced OSS is rebuilt from the others: full redundancy again.
    store.rebuild(failed, None).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == data, "after the rebuild");
}

#[test]
fn beyond_the_codes_tolerance_the_store_opens_names_the_lost_range_and_reads_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(6, STRIPE + 5000);
    move_home_cut_after_end(dir.path(), &data);
    // Two columns of stripe 0 gone under RAID-5: element 0's cache copy rots and the OSS
    // holding element 1 (cache copy and home) fails.
    let rotten = flip_in_any_cache_zone(dir.path(), &data[..UNIT]);
    let failed = oss_of_cached(dir.path(), &data[UNIT..2 * UNIT]);
    assert_ne!(rotten, failed);
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir.path(), &hooks, &[failed]).expect("the store opens");
    let err = store.get("f").unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    assert!(err.to_string().contains("'f' bytes 0..4096"), "{err}");
    assert!(err.to_string().contains("'f' bytes 4096..8192"), "{err}");
    // Never the old home bytes in place of the lost ones.
    for (at, len) in [(0, UNIT), (UNIT, UNIT), (100, 10)] {
        let err = store.read("f", at as u64, len as u64).unwrap_err();
        assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    }
    // Every other byte reads: the rest of stripe 0, stripe 1, the other file.
    let rest = store.read("f", 2 * UNIT as u64, (data.len() - 2 * UNIT) as u64);
    assert!(rest.unwrap() == data[2 * UNIT..]);
    assert!(store.get("g").unwrap() == pattern(7, 2 * STRIPE));
    // Written again, the range reads. (The END that failed left the window open: end it, so
    // the write gets parity rather than going to the failed OSS's cache zone.)
    for w in store.status().unwrap().open_windows {
        store.delayed_end(&w.token).unwrap();
    }
    store.write("f", 0, &data[..2 * UNIT]).unwrap();
    assert!(store.get("f").unwrap() == data);
}

/// The OSS whose cache zone holds `payload` (the store is closed).
fn oss_of_cached(dir: &Path, payload: &[u8]) -> usize {
    let sb = Superblock::load(dir).unwrap();
    (0..sb.oss_dirs.len())
        .find(|&oss| {
            let path = sb.oss_dirs[oss]
                .join("objects")
                .join(format!("{CACHE_OBJECT}.cache"));
            std::fs::read(path).is_ok_and(|bytes| {
                (0..bytes.len() / SLOT_BYTES)
                    .any(|s| &bytes[s * SLOT_BYTES..s * SLOT_BYTES + UNIT] == payload)
            })
        })
        .expect("some cache zone holds the element")
}

/// Flip a bit in whichever OSS's cache zone holds `payload` (the store is closed).
fn flip_in_any_cache_zone(dir: &Path, payload: &[u8]) -> usize {
    let sb = Superblock::load(dir).unwrap();
    for (oss, d) in sb.oss_dirs.iter().enumerate() {
        let path = d.join("objects").join(format!("{CACHE_OBJECT}.cache"));
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Some(slot) = (0..bytes.len() / SLOT_BYTES)
            .find(|s| &bytes[s * SLOT_BYTES..s * SLOT_BYTES + UNIT] == payload)
        {
            bytes[slot * SLOT_BYTES + 100] ^= 0x10;
            std::fs::write(&path, bytes).unwrap();
            return oss;
        }
    }
    panic!("no cache zone holds the element");
}

/// End a WCL write that fills a stripe of `file`: its destage then parks the worker.
fn park_the_wcl_worker(store: &Store, hooks: &Hooks, file: &str, seed: u64) {
    hooks.pause();
    store.write(file, 0, &pattern(seed, STRIPE)).unwrap();
    eventually("the worker parks in the destage", || {
        hooks.parked.load(Ordering::SeqCst) > 0
    });
}

#[test]
fn a_destaging_wcl_cache_stripe_is_decoded_from_its_own_elements_not_the_newer_ones() {
    let dir = tempfile::tempdir().unwrap();
    new_store(dir.path(), WritePath::Wcl);
    let hooks = Arc::new(Hooks::default());
    hooks.park_any_thread.store(true, Ordering::SeqCst); // WCL: foreground writes no home data
    let store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    // Cache slots that held other bytes before: the newer cache stripe reuses them.
    store.write("old", 0, &pattern(8, 2 * STRIPE)).unwrap();
    let older = pattern(9, STRIPE);
    let newer = pattern(10, 300);
    let mut model = older.clone();
    model[5000..5300].copy_from_slice(&newer);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, hooks.clone());
        park_the_wcl_worker(&store, &hooks, "t", 11);
        // The older cache stripe of "f" stripe 0 is complete: its destage waits in the queue.
        store.write("f", 0, &older).unwrap();
        let f = store.file_id("f").unwrap();
        flip_cached_bit(&store, store.layout().locate(f, 0).oss, &older[..UNIT]);
        // A newer cache stripe of the same home stripe is planned (its write waits for the
        // destage, which holds the stripe first).
        let writer = s.spawn(|| store.write("f", 5000, &newer));
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !writer.is_finished(),
            "the newer write waits for the destage"
        );
        hooks.release();
        writer.join().unwrap().expect("the newer write");
        stop.store(true, Ordering::SeqCst);
        worker
            .join()
            .unwrap()
            .expect("the destage rebuilds the rotten element from its own cache stripe");
    });
    assert!(store.get("f").unwrap() == model, "f reads as written");
    assert!(store.get("t").unwrap() == pattern(11, STRIPE));
    assert!(store.get("old").unwrap() == pattern(8, 2 * STRIPE));
    store.flush().unwrap();
    assert!(store.get("f").unwrap() == model, "after the flush");
    assert_consistent(&store);
}

#[test]
fn columns_with_bytes_of_an_open_window_are_not_used_to_decode_an_ended_ones() {
    // RAID-6 4+2: the ended window's rotten element and the open window's column are two
    // erasures, within the code's tolerance. The home parity covers the ended window's bytes
    // but not the open window's newer ones over them: decoding with those would be wrong.
    const STRIPE6: usize = 4 * UNIT;
    let dir = tempfile::tempdir().unwrap();
    {
        let mut opts = InitOptions::with_oss_count(dir.path(), 6, CodeSpec::raid6(4));
        opts.element_bytes = UNIT;
        opts.write_path = WritePath::Delayed;
        Store::init(dir.path(), &opts).unwrap().close().unwrap();
    }
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    let ended = pattern(12, STRIPE6);
    let open = pattern(13, 3000);
    let mut model = ended.clone();
    model[UNIT + 500..UNIT + 3500].copy_from_slice(&open);
    let stop = AtomicBool::new(false);
    let worker = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, hooks.clone());
        park_the_worker(&store, &hooks, "x", 3);
        let w = store.delayed_window("f").unwrap();
        store.write("f", 0, &ended).unwrap();
        w.end().unwrap(); // parity durable, the move home queued
        let w2 = store.delayed_window("f").unwrap();
        // Element 1, no parity yet. Planned now; it runs after the move (which holds the
        // stripe first), so the move's rebuild sees these bytes as the newest of column 1.
        let writer = s.spawn(|| store.write("f", (UNIT + 500) as u64, &open));
        eventually("the window write is planned", || {
            store.status().unwrap().bytes_unprotected == open.len() as u64
        });
        assert!(
            !writer.is_finished(),
            "the window write waits for the move home"
        );
        let oss = store.layout().locate(store.file_id("f").unwrap(), 0).oss;
        flip_cached_bit(&store, oss, &ended[..UNIT]);
        hooks.release();
        writer.join().unwrap().expect("the window write");
        w2.end().unwrap();
        stop.store(true, Ordering::SeqCst);
        worker.join().unwrap()
    });
    worker.expect("the move home decodes the rotten element with two erasures");
    assert!(store.get("f").unwrap() == model, "f reads as written");
    assert_consistent(&store);
}

#[test]
fn every_element_of_a_destaging_wcl_cache_stripe_is_rebuilt_from_its_own_cache_stripe() {
    let dir = tempfile::tempdir().unwrap();
    new_store(dir.path(), WritePath::Wcl);
    let hooks = Arc::new(Hooks::default());
    hooks.park_any_thread.store(true, Ordering::SeqCst); // WCL: foreground writes no home data
    let store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    let stop = AtomicBool::new(false);
    let mut models: Vec<(String, Vec<u8>)> = Vec::new();
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name(WORKER.into())
            .spawn_scoped(s, || store.serve_background(&stop))
            .unwrap();
        // Else a write runs its background plans inline (no worker serves yet).
        eventually("the worker serves", || store.serving_background());
        let _stop = StopOnDrop(&stop, hooks.clone());
        // Each round rots another element of the older cache stripe: data 0, 1, 2, then
        // the running parity (RAID-5: the XOR of the data elements).
        for victim in 0..4u64 {
            let name = format!("f{victim}");
            park_the_wcl_worker(&store, &hooks, &format!("t{victim}"), 20 + victim);
            let older = pattern(30 + victim, STRIPE);
            store.write(&name, 0, &older).unwrap(); // complete: its destage is queued
            let payload: Vec<u8> = if victim < 3 {
                let d = victim as usize;
                older[d * UNIT..(d + 1) * UNIT].to_vec()
            } else {
                (0..UNIT)
                    .map(|i| older[i] ^ older[UNIT + i] ^ older[2 * UNIT + i])
                    .collect()
            };
            flip_in_any_cache_zone(dir.path(), &payload);
            // The newer cache stripe of stripe 0, and bytes of stripe 1 (which show the
            // write is planned: they count as waiting in the cache zone at once).
            let newer = pattern(40 + victim, STRIPE + 700 - 5000);
            let waiting = store.status().unwrap().bytes_waiting_parity;
            let writer = {
                let (store, name, newer) = (&store, name.clone(), newer.clone());
                s.spawn(move || store.write(&name, 5000, &newer))
            };
            eventually("the newer write is planned", || {
                store.status().unwrap().bytes_waiting_parity >= waiting + 700
            });
            hooks.release();
            writer.join().unwrap().expect("the newer write");
            // Every parked thread is on its way before the next round pauses again.
            eventually("the parked threads left", || {
                hooks.parked.load(Ordering::SeqCst) == 0
            });
            let mut model = older.clone();
            model.resize(STRIPE + 700, 0);
            model[5000..].copy_from_slice(&newer);
            models.push((name, model));
        }
        stop.store(true, Ordering::SeqCst);
        worker
            .join()
            .unwrap()
            .expect("the destages rebuild the rotten elements from their own cache stripes");
    });
    for (name, model) in &models {
        assert!(
            store.get(name).unwrap() == *model,
            "{name} reads as written"
        );
    }
    store.flush().unwrap();
    for (name, model) in &models {
        assert!(store.get(name).unwrap() == *model, "{name} after the flush");
    }
    assert_consistent(&store);
}

#[test]
fn a_flush_that_cannot_rebuild_cached_bytes_says_which_and_the_rest_goes_home() {
    // An open WCL cache stripe (file bytes 0..5000) with a rotten data element and a rotten
    // running parity: two erasures, RAID-5 tolerates one.
    let dir = tempfile::tempdir().unwrap();
    new_store(dir.path(), WritePath::Wcl);
    let store = Store::open(dir.path()).unwrap();
    let data = pattern(50, 5000);
    store.write("a", 0, &data).unwrap();
    store.write("b", 0, &pattern(51, 2 * STRIPE)).unwrap(); // complete: home with parity
    flip_in_any_cache_zone(dir.path(), &data[..UNIT]);
    let mut parity = data[..UNIT].to_vec();
    for (p, d) in parity.iter_mut().zip(&data[UNIT..]) {
        *p ^= d; // the running parity: unwritten bytes count as zeros
    }
    flip_in_any_cache_zone(dir.path(), &parity);

    let err = store.flush().unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    assert!(err.to_string().contains("'a' bytes 0..4096"), "{err}");
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        0,
        "all else home"
    );
    let lost = store.status().unwrap().lost_ranges;
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!((lost[0].offset_bytes, lost[0].len_bytes), (0, UNIT as u64));
    // Never the old home bytes (zeros) in their place; everything else reads.
    let err = store.read("a", 10, 10).unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    assert!(store.read("a", UNIT as u64, (5000 - UNIT) as u64).unwrap() == data[UNIT..]);
    assert!(store.get("b").unwrap() == pattern(51, 2 * STRIPE));
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(
        store.read("a", 0, 10).is_err(),
        "still lost after reopening"
    );
    store.write("a", 0, &data[..UNIT]).unwrap();
    assert!(store.get("a").unwrap() == data, "written again, it reads");
}

/// Flip a bit in whichever OSS's home data of object `object` holds `payload` (the store is
/// closed).
fn flip_at_home(dir: &Path, object: u64, payload: &[u8]) {
    let sb = Superblock::load(dir).unwrap();
    for d in &sb.oss_dirs {
        let path = d.join("objects").join(format!("{object}.data"));
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Some(slot) = (0..bytes.len() / SLOT_BYTES)
            .find(|s| &bytes[s * SLOT_BYTES..s * SLOT_BYTES + UNIT] == payload)
        {
            bytes[slot * SLOT_BYTES + 50] ^= 0x04;
            std::fs::write(&path, bytes).unwrap();
            return;
        }
    }
    panic!("no home data holds the element");
}

#[test]
fn recovery_rebuilds_bit_rot_at_home_beside_an_ended_windows_cut_move_home() {
    // Element 1 of "f" got new bytes in a window whose END parity is durable; the move home
    // was cut, and element 0 rotted at home. The home parity covers the cached bytes laid
    // over home, not the old home bytes the cut move left: recovery decodes element 0 from
    // the cached bytes (not a write hole to give up on, not the old bytes to decode from).
    let dir = tempfile::tempdir().unwrap();
    new_store(dir.path(), WritePath::Delayed);
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    let old = pattern(60, STRIPE);
    store.write("f", 0, &old).unwrap(); // home, with parity
    let object = store.file_id("f").unwrap();
    let w = store.delayed_window("f").unwrap();
    let new = pattern(61, 100);
    store.write("f", UNIT as u64, &new).unwrap();
    hooks.fail_home_writes.store(true, Ordering::SeqCst);
    let err = w.end().unwrap_err(); // the parity plan ran, the move home failed
    assert!(err.to_string().contains("injected"), "{err}");
    drop(store);
    flip_at_home(dir.path(), object, &old[..UNIT]);
    let store = Store::open(dir.path()).expect("recovery");
    let mut model = old.clone();
    model[UNIT..UNIT + 100].copy_from_slice(&new);
    assert!(store.get("f").unwrap() == model, "f reads as written");
    assert_consistent(&store);
}
