//! A power cut during an rmw client write (s22f, OPEN after session 21: "a power cut on rmw
//! can keep OSS bytes of a write whose unsynced input the journal dropped").
//!
//! The power-cut emulation (common/powercut.rs): the journal keeps any record boundary from
//! its last fsync on, each OSS keeps or drops its unsynced writes. An rmw write journals its
//! input (and, on two or more parities, its crcs, `Rec::WriteCrcs`) unsynced, then writes
//! home. A cut that dropped those records while an OSS kept its part of the write leaves a
//! stripe whose data and parity disagree, with nothing on record telling recovery so.
//!
//! What must hold at every power cut: the write was never acknowledged, so each of its bytes
//! reads old or new; every other byte reads as acknowledged, with every disk and with one
//! more OSS failed (before the open's recovery, or after it), or is named LOST on record
//! only where disks are dead. Never wrong bytes with success.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const BLOCK_BYTES: usize = 4096;

fn rmw_write_power_cut_at_every_point(code: CodeSpec) {
    images_in_plan_order();
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let cols = columns(code);
    let mut opts = InitOptions::with_oss_count(&dir, cols, code);
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Rmw;
    drop(Store::init(&dir, &opts).unwrap());
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let g = store.layout().geometry().clone();
    let k = g.data_count();
    let stripe_bytes = k * UNIT;
    let before = pattern(1, 2 * stripe_bytes);
    store.put("f", &before).unwrap();
    let id = store.file_id("f").unwrap();
    // One whole data column of stripe 0 and part of the next: an rmw of two columns.
    let write = UNIT..2 * UNIT + 1000;
    let new = pattern(2, write.len());
    let oss_of = |at: usize| store.layout().locate(id, at as u64).oss;
    let written = [oss_of(write.start), oss_of(write.end - 1)];
    // Every OSS of stripe 0 but the written ones: the neighbours whose acknowledged bytes
    // a stripe left inconsistent would decode wrong.
    let stripe_osses: Vec<usize> = (0..g.cols)
        .map(|col| store.layout().oss_of(id, 0, col))
        .collect();
    let neighbours: Vec<usize> = stripe_osses
        .iter()
        .copied()
        .filter(|o| !written.contains(o))
        .collect();

    cut.arm();
    store.write("f", write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    let images = cut.images();
    let last = images.len() - 1;
    let mut after = before.clone();
    after[write.clone()].copy_from_slice(&new);
    let mut lost_with_dead = 0usize;
    let laid = top.path().join("try");
    let points = for_each_power_cut(&images, |point| {
        let returned = point.image_index == last;
        let (model, cut_range) = if returned {
            (&after[..], 0..0)
        } else {
            (&before[..], write.clone())
        };
        let cut_new: &[u8] = if returned { &[] } else { &new };
        let check = |store: &Store, what: &str, dead: bool| {
            let lost = assert_blocks_read_or_lost_on_record(
                store,
                "f",
                model,
                cut_range.clone(),
                cut_new,
                what,
            );
            let acknowledged: Vec<usize> = lost
                .iter()
                .copied()
                .filter(|&at| !(cut_range.start < at + BLOCK_BYTES && at < cut_range.end))
                .collect();
            if !dead {
                assert!(
                    acknowledged.is_empty(),
                    "{what}: acknowledged blocks at {acknowledged:?} LOST with every disk"
                );
            }
            lost.len()
        };
        // Every disk, then one more OSS failed after the open's recovery.
        for &late in &neighbours {
            let what = format!(
                "{:?}: {}, OSS {late} failed after the open",
                code.kind,
                point.what()
            );
            point.lay(&laid);
            let store = open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
            check(&store, &what, false);
            store.fail_oss(late).unwrap();
            lost_with_dead += check(&store, &what, true);
            drop(store);
            std::fs::remove_dir_all(&laid).unwrap();
        }
        // One OSS dead with the power cut (failed before recovery).
        for &dead in &stripe_osses {
            let what = format!("{:?}: {}, OSS {dead} dead", code.kind, point.what());
            point.lay(&laid);
            let store = open_laid(&laid, &[dead]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
            lost_with_dead += check(&store, &what, true);
            drop(store);
            std::fs::remove_dir_all(&laid).unwrap();
        }
    });
    eprintln!(
        "{:?}: {} images, {points} power cuts, {lost_with_dead} blocks named lost with a disk dead",
        code.kind,
        images.len()
    );
    assert!(points > 1);
}

#[test]
fn raid6_rmw_write_power_cut_at_any_point_reads_old_or_new_and_neighbours_exact() {
    rmw_write_power_cut_at_every_point(CodeSpec::raid6(4));
}

#[test]
fn rs_4_2_rmw_write_power_cut_at_any_point_reads_old_or_new_and_neighbours_exact() {
    rmw_write_power_cut_at_every_point(CodeSpec::rs(4, 2));
}

#[test]
fn raid5_rmw_write_power_cut_at_any_point_reads_old_or_new_and_neighbours_exact() {
    rmw_write_power_cut_at_every_point(CodeSpec::raid5(4));
}
