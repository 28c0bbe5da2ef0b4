//! s20a's check of a cache stripe row beside a cut client write (`stale_beside_cut`) on a
//! WIDE write: more in-flight blocks in one row than `ASSIGNED_BLOCKS_MAX` (10), which
//! returned "agrees" unchecked (session 22, s22d; "unproven path" of the Limits).
//!
//! The scene, as power_cut_client_write_stale_cache.rs but wide: rs 12+3 (and raid6 over 12
//! data columns), 4 KiB elements, WCL. Data element 1 of cache stripe 0 is stale (its OSS
//! lost the write: old bytes under valid checksums). A client write over data columns
//! 2..=11 of the same cache stripe (the last one partial, so the stripe stays unwhole and no
//! destage runs) is cut by a power cut: 10 data blocks and every running parity block of
//! the row in flight, 13 (12 on raid6), above the bound.
//!
//! Found (main 32a1b03): "power cut before mutating call N ... 'f' WRONG byte 4096": the
//! row was left unchecked, its running parity rewritten from the data, stale element and
//! all, and the settle moved the stale bytes home. The bound was meant for the worlds
//! enumerated (2^blocks whose version the write's crcs do not tell), but it counted every
//! in-flight block, told or not: where the crcs tell them all there is one world.
//!
//! Specification: after the next open and a settle, every acknowledged block reads its
//! bytes or is named LOST on record, and the stale element never reads with success.

use crate::common;
use crate::powercut;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};
use powercut::*;

/// Runs the scene at every power cut of the wide write where either every OSS keeps its
/// writes or every OSS drops its unsynced ones (each journal cut); returns the cuts checked.
/// The single-OSS masks are left out: fifteen OSSs make them many times slower, and the
/// bound is about the count of in-flight blocks, not which OSS dropped them.
fn wide_cut_write_beside_stale_cache(code: CodeSpec) -> usize {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let data_cols = stripe_bytes / UNIT;
    assert_eq!(data_cols, 12, "the scene: twelve data columns");

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 2 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, layout.geometry().data_pos[1].col);
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    // Elements 0 and 1 of stripe 0 in the cache zone, twice; the stale OSS loses the second.
    write(&store, 0, 3, 2 * UNIT);
    let zone_file = object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, 0, 5, 2 * UNIT);
    std::fs::write(&zone_file, &snapshot).unwrap();
    let before = before;

    // The write under test: data columns 2..=11, the last one short of its end.
    let cut_range = 2 * UNIT..stripe_bytes - 512;
    let new = pattern(4, cut_range.len());
    cut.cut_journal_since_previous_call();
    cut.arm();
    store.write("f", cut_range.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);

    let stale_range = UNIT..2 * UNIT;
    let images = cut.images();
    // Per image, how many OSSs hold unsynced writes (the mask dropping them all).
    let unsynced: Vec<usize> = (images.iter())
        .map(|image| {
            (image.oss_durable.iter().enumerate())
                .filter(|(oss, durable)| {
                    trees_differ(&image.dir.join(format!("oss-{oss}")), durable)
                })
                .count()
        })
        .collect();
    let mut points = 0;
    for_each_power_cut(&images, |point| {
        let dropped = point.dropped.iter().filter(|&&d| d).count();
        if dropped != 0 && dropped != unsynced[point.image_index] {
            return;
        }
        points += 1;
        let what = format!("{:?}: {}", code.kind, point.what());
        let laid = top.path().join("try");
        point.lay(&laid);
        let store = open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        assert_blocks_read_or_lost_on_record(&store, "f", &before, cut_range.clone(), &new, &what);
        if let Ok(got) = store.read("f", stale_range.start as u64, UNIT as u64) {
            assert!(
                got == before[stale_range.clone()],
                "{what}: the stale element read with success"
            );
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{:?}: {} images, {points} power cuts checked",
        code.kind,
        images.len()
    );
    points
}

/// Do the directory trees differ in any file's name or bytes?
fn trees_differ(a: &std::path::Path, b: &std::path::Path) -> bool {
    let names = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let (na, nb) = (names(a), names(b));
    na != nb
        || na.iter().any(|n| {
            let (pa, pb) = (a.join(n), b.join(n));
            if pa.is_dir() {
                !pb.is_dir() || trees_differ(&pa, &pb)
            } else {
                std::fs::read(&pa).unwrap() != std::fs::read(&pb).unwrap()
            }
        })
}

#[test]
fn rs_12_3_a_wide_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    assert!(wide_cut_write_beside_stale_cache(CodeSpec::rs(12, 3)) > 1);
}

#[test]
fn raid6_12_a_wide_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    assert!(wide_cut_write_beside_stale_cache(CodeSpec::raid6(12)) > 1);
}
