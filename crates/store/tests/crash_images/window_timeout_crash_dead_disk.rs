//! A delayed window whose END never came gets its parity at the timeout (a `Tick` input,
//! then the timeout's parity plan). That plan is killed -9 at any point, and then the disk
//! of a data column beside the window's bytes is dead (the timeout's twin of
//! crates/cli/tests/cli/store_window_end_crash_dead_disk.rs, s14c for END). The dead column's
//! home bytes are acknowledged and the window never touched them: within raid5's tolerance
//! each of them must read back after the kill, decoded from the other columns and a parity
//! block of one version.
//!
//! Before session 15 the timeout's parity crcs (`EndParityCrcs`) were journaled unsynced
//! and its input promised nothing, so recovery could not take "no crcs on record" for "no
//! parity written" (a power cut may drop the record and keep a parity write): killed after
//! its `Tick` record, before its first parity write, the dead column's home bytes were
//! recorded LOST although nothing had been written. The timeout now syncs its crcs before
//! its first parity write and its `Tick` says so, as END does.
//!
//! How the kill is made, in process: common/imaged.rs (an image of the store before each
//! mutating backend call, cut at each journal record boundary).

use crate::common;
use crate::hooked;
use crate::imaged;
use common::*;
use imaged::*;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};

/// raid5 4+1: single parity, no column to spare beside the dead one.
const K: usize = 4;
const OSS: usize = 5;
const STRIPE_BYTES: usize = K * UNIT;
const FILE_BYTES: usize = 60_000;
/// Long enough that the in-process setup never outlasts it (a loaded machine); the test
/// waits it out once.
const WINDOW_TIMEOUT_MS: u64 = 1500;

/// Nothing hooked: the imager alone.
struct NoHook;
impl hooked::Hook for NoHook {}

/// The scene before the timeout: "f" put whole, a window open on it whose writes cover
/// part of every element of stripes 0 and 1 and the whole of stripe 2's, except the
/// elements on the OSS whose disk will die, the OSS of file byte 0 (never written in the
/// window). Returns the acknowledged bytes and that OSS.
fn window_beside_the_dead_disk(store: &Store) -> (Vec<u8>, usize) {
    let mut want = pattern(1, FILE_BYTES);
    store.put("f", &want).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = store.layout().locate(id, 0).oss;
    store.delayed_start("f").unwrap();
    for stripe in 0..3 {
        for d in 0..K {
            let at = stripe * STRIPE_BYTES + d * UNIT;
            if store.layout().locate(id, at as u64).oss == dead {
                continue;
            }
            let (a, z) = if stripe == 2 {
                (at, at + UNIT)
            } else {
                (at + 500, at + 3500)
            };
            let new = pattern(10 + (stripe * K + d) as u64, z - a);
            store.write("f", a as u64, &new).unwrap();
            want[a..z].copy_from_slice(&new);
        }
    }
    (want, dead)
}

/// Open the disk a kill left with `dead` failed (its disk gone): every acknowledged byte
/// reads back and nothing is on record as lost; the parity matches on the survivors.
fn check_after_kill(image: &Path, dead: usize, want: &[u8], what: &str) {
    let store = open_image(image, &[dead]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    let status = store.status().unwrap();
    assert!(
        status.lost_ranges.is_empty(),
        "{what}: acknowledged bytes recorded lost although the timeout's plan cannot have changed them: {:?}",
        status.lost_ranges
    );
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: get: {e}"));
    if got != want {
        let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
        panic!(
            "{what}: wrong bytes: {} differ, first {:?} last {:?}",
            bad.len(),
            bad.first(),
            bad.last()
        );
    }
}

#[test]
fn raid5_window_timeout_killed_at_any_point_then_a_dead_disk_keeps_every_acknowledged_byte() {
    images_in_plan_order();
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, OSS, CodeSpec::raid5(K));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = WINDOW_TIMEOUT_MS;
    drop(Store::init(&dir, &opts).unwrap());
    let imager = Imager::new(&dir);
    let store = open_imaged(&dir, &imager, &Arc::new(NoHook), OpenOptions::default()).unwrap();
    let started = Instant::now();
    let (want, dead) = window_beside_the_dead_disk(&store);
    assert!(
        started.elapsed() < Duration::from_millis(WINDOW_TIMEOUT_MS),
        "setup: the window timed out before the test meant it to (a loaded machine?)"
    );
    assert!(store.status().unwrap().bytes_unprotected > 0, "setup");
    std::thread::sleep(Duration::from_millis(WINDOW_TIMEOUT_MS + 200));
    let journal_at_tick_bytes = journal_records(&dir).last().unwrap().0;

    imager.arm();
    store.tick().unwrap();
    imager.disarm();
    imager.last_image();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout computed the parity"
    );
    let records: Vec<String> = journal_records(&dir)
        .into_iter()
        .filter(|(end, _)| *end > journal_at_tick_bytes)
        .map(|(_, p)| p)
        .collect();
    assert!(
        records.iter().any(|p| p.contains("\"Tick\""))
            && records.iter().any(|p| p.contains("EndParityCrcs")),
        "setup: the tick ran the timeout's parity plan: {records:?}"
    );

    let images = imager.images();
    let mut kill_points = 0;
    for_each_kill_point(&images, journal_at_tick_bytes, |kill| {
        let attempt = top.path().join("try");
        kill.lay(&attempt);
        check_after_kill(&attempt, dead, &want, &kill.what());
        std::fs::remove_dir_all(&attempt).unwrap();
        kill_points += 1;
    });
    assert!(kill_points > 3, "{kill_points} kill points");
    eprintln!("{} images, {kill_points} kill points", images.len());
    drop(store);
}
