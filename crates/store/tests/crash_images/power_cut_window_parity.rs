//! A power cut during a delayed window's parity (END, or the timeout of a window whose END
//! never came), emulated in process (common/powercut.rs: the journal keeps only what its
//! fsyncs covered, each OSS keeps or drops its unsynced writes), then the store opened
//! with every disk, and again with the disk of a data column beside the window dead (the
//! scene of window_timeout_crash_dead_disk.rs, raid5 4+1: no column to spare).
//!
//! Every byte of the file was acknowledged before the operation began: after any such
//! power cut each must read back as it was acknowledged, with nothing on record as lost,
//! and the parity must match. What this checks beyond a kill -9: END's and the timeout's
//! promise that their parity crcs are durable before their first parity write (recovery
//! takes "none on record" for "no parity written" and decodes the dead column through the
//! parity as old: were the record unsynced, a power cut could drop it and keep a parity
//! write, and that decode would give wrong bytes).

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use std::time::{Duration, Instant};

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const K: usize = 4;
const OSS: usize = 5;
const STRIPE_BYTES: usize = K * UNIT;
const FILE_BYTES: usize = 60_000;
const WINDOW_TIMEOUT_MS: u64 = 1500;

/// As in window_timeout_crash_dead_disk.rs: a window beside the OSS of file byte 0.
/// Returns the window's token, the acknowledged bytes and that OSS.
fn window_beside_the_dead_disk(store: &Store) -> (String, Vec<u8>, usize) {
    let mut want = pattern(1, FILE_BYTES);
    store.put("f", &want).unwrap();
    let id = store.file_id("f").unwrap();
    let dead = store.layout().locate(id, 0).oss;
    let token = store.delayed_start("f").unwrap();
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
    (token, want, dead)
}

fn check(laid: &std::path::Path, failed: &[usize], want: &[u8], what: &str) {
    let store = open_laid(laid, failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    let status = store.status().unwrap();
    assert!(
        status.lost_ranges.is_empty(),
        "{what}: acknowledged bytes recorded lost: {:?}",
        status.lost_ranges
    );
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: get: {e}"));
    if got != want {
        let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
        panic!(
            "{what}: WRONG BYTES, read without error: {} differ, first {:?} last {:?}",
            bad.len(),
            bad.first(),
            bad.last()
        );
    }
    if failed.is_empty() {
        assert!(
            store.scrub(false).unwrap().parity_mismatches.is_empty(),
            "{what}: the parity matches the data"
        );
    }
}

/// The window's parity by `end` (END, or else the timeout), power cut at every point.
fn power_cut_during_window_parity(end: bool) {
    images_in_plan_order();
    // tmpfs: every power cut copies the store twice and opens it.
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, OSS, CodeSpec::raid5(K));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = WINDOW_TIMEOUT_MS;
    drop(Store::init(&dir, &opts).unwrap());
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let started = Instant::now();
    let (token, want, dead) = window_beside_the_dead_disk(&store);
    assert!(
        started.elapsed() < Duration::from_millis(WINDOW_TIMEOUT_MS),
        "setup: the window timed out before the test meant it to (a loaded machine?)"
    );
    if !end {
        std::thread::sleep(Duration::from_millis(WINDOW_TIMEOUT_MS + 200));
    }

    cut.arm();
    if end {
        store.delayed_end(&token).unwrap();
    } else {
        store.tick().unwrap();
    }
    cut.last_image();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the parity is computed"
    );
    drop(store);

    let images = cut.images();
    assert!(
        images
            .windows(2)
            .any(|w| w[0].journal_durable_bytes < w[1].journal_durable_bytes),
        "the journal's fsyncs are seen"
    );
    let points = for_each_power_cut(&images, |point| {
        for failed in [vec![], vec![dead]] {
            let what = format!("{}, OSS {failed:?} dead", point.what());
            let laid = top.path().join("try");
            point.lay(&laid);
            check(&laid, &failed, &want, &what);
            std::fs::remove_dir_all(&laid).unwrap();
        }
    });
    eprintln!("{} images, {points} power cuts", images.len());
}

#[test]
fn raid5_power_cut_at_any_point_of_end_keeps_every_acknowledged_byte_beside_a_dead_disk() {
    power_cut_during_window_parity(true);
}

#[test]
fn raid5_power_cut_at_any_point_of_a_window_timeout_keeps_every_acknowledged_byte_beside_a_dead_disk(
) {
    power_cut_during_window_parity(false);
}
