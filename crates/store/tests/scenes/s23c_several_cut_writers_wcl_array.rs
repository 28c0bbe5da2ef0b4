//! Session 23 (s23c), unproven path of "OPEN after session 22": "several cut writers on WCL
//! and array codes (s22f covered rmw one-row codes)".
//!
//! The scene of `several_cut_writers_rot.rs` on the WCL write path (raid6, rs 4+2, hcode)
//! and on rmw with array codes (hcode, xcode, dcode: a column is several symbols): two
//! client writes on one stripe, A (data element 0) and B (data element 1), both cut by one
//! kill (their `Durable` records gone); A whole, B's every changed slot (its data or cache
//! element and every parity or running-parity slot it changed) old, landed or torn (new
//! payload under the old checksum); then one slot rots: B's own data (or cache) slot, or a
//! home data slot neither writer touched.
//!
//! What must hold: every 4 KiB block reads its acknowledged bytes (inside A's and B's
//! ranges, old or new: never acknowledged), or fails naming a loss on record. Never a
//! rotten byte with success.
//!
//! Shown safe on 9e15292 and after s23c (no fix; pinned so that a change is seen): on rmw
//! with array codes B's three slots' 27 images by 2 rots read old, new or one block named
//! lost; on WCL (three cache slots, each rotting in turn, and the home slot) every image
//! reads old or new bytes.
//! Not built: a settle in flight beside the cut writers, more than two writers.

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::WritePath;

/// The store's journal with every `Durable` record from byte `from` on taken out: the
/// plans that wrote since are cut (their writes are on disk, their acknowledgements not).
fn drop_durable_records_since(journal: &Path, from: usize) -> usize {
    let bytes = std::fs::read(journal).unwrap();
    let mut kept = bytes[..from].to_vec();
    let mut dropped = 0;
    for (at, len, kind) in journal_record_kinds(&bytes) {
        if at < from {
            continue;
        }
        if kind == "Durable" {
            dropped += 1;
        } else {
            kept.extend_from_slice(&bytes[at..at + len]);
        }
    }
    std::fs::write(journal, kept).unwrap();
    dropped
}

/// Flip a byte of the payload of slot `unit` in the tree `dir`: bit rot (the block then
/// fails its checksum).
fn rot(dir: &Path, (oss, name, slot): &Unit) {
    let path = object_file(dir, *oss, name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + 1234] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
}

fn two_cut_writers_on_one_stripe_then_rot(code: CodeSpec, path: WritePath) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let store = init(&dir, code, columns(code), path);
    let layout = store.layout().clone();
    let g = layout.geometry().clone();
    let k = g.data_count();
    assert!(k >= 3, "the scene needs a third data column");
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let mut before = pattern(1, 2 * stripe_bytes);
    store.put("f", &before).unwrap();
    // On WCL the cache zone files get their room now, so that B's slots can be laid back
    // old over the tree before it (no object file grows between the two trees).
    let warm = pattern(4, 2 * UNIT);
    store.write("f", 0, &warm).unwrap();
    before[..warm.len()].copy_from_slice(&warm);
    store.flush().unwrap();
    let before = before;
    let id = store.file_id("f").unwrap();

    let journal = dir.join("journal");
    let journal_before = std::fs::metadata(&journal).unwrap().len() as usize;
    let new_a = pattern(2, UNIT);
    let new_b = pattern(3, UNIT);
    let b_at = layout.file_offset(0, 1, 0);
    assert_eq!(
        b_at, UNIT as u64,
        "the scene: element 1 follows element 0 in the file"
    );
    store.write("f", 0, &new_a).unwrap();
    let mid = top.path().join("mid");
    copy_tree(&dir, &mid);
    store.write("f", b_at, &new_b).unwrap();
    let after = top.path().join("after");
    copy_tree(&dir, &after);
    drop(store);
    let dropped = drop_durable_records_since(&after.join("journal"), journal_before);
    assert_eq!(dropped, 2, "the scene: one Durable record per write");

    let oss_count = columns(code);
    // A cache zone file B's write created or extended: before it, a power cut leaves the
    // extension as zeros (no bytes, no valid checksum), which is how "old" lays it.
    for oss in 0..oss_count {
        for name in object_names(&after, oss) {
            let grown = std::fs::metadata(object_file(&after, oss, &name))
                .unwrap()
                .len();
            let path = object_file(&mid, oss, &name);
            let f = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .unwrap();
            if f.metadata().unwrap().len() < grown {
                f.set_len(grown).unwrap();
            }
        }
    }
    let b_units = changed_slots(&mid, &after, oss_count, |_, n| {
        n.ends_with(".data") || n.ends_with(".parity") || n.ends_with(".cache")
    });
    assert!(
        (2..=5).contains(&b_units.len()),
        "B writes its data and some parity (at most 3^5 images): {b_units:?}"
    );
    // B's data slot; on WCL its cached element, which the file does not tell from the
    // running parity slots it changed: each of them rots in turn.
    let b_data: Vec<Unit> = b_units
        .iter()
        .filter(|u| u.1.ends_with(".data") || u.1.ends_with(".cache"))
        .cloned()
        .collect();
    assert!(!b_data.is_empty(), "B's data or cache slot: {b_units:?}");
    let untouched_pos = g.data_pos[2];
    let untouched: Unit = (
        layout.oss_of(id, 0, untouched_pos.col),
        format!("{id}.data"),
        (layout.home_addr(0, untouched_pos, 0) / UNIT as u64) as usize,
    );

    let mut new = new_a.clone();
    new.extend_from_slice(&new_b);
    let states = [Block::Old, Block::Landed, Block::PayloadOnly];
    let mut points = 0;
    let mut lost_blocks = 0;
    let n = b_units.len();
    for code_n in 0..states.len().pow(n as u32) {
        let laid: Vec<Block> = (0..n)
            .map(|j| states[code_n / states.len().pow(j as u32) % states.len()])
            .collect();
        for rotten in b_data.iter().chain([&untouched]) {
            let what = format!(
                "{code} {path:?}: A whole, B's slots {b_units:?} {laid:?}, rot in {rotten:?}"
            );
            let crash = top.path().join("crash");
            copy_tree(&after, &crash);
            for (unit, &state) in b_units.iter().zip(&laid) {
                // The crash tree holds B landed: lay back what B did not get onto the disk.
                match state {
                    Block::Landed => {}
                    Block::Old => copy_slot_bytes(&mid, &crash, unit, 0..SLOT_BYTES),
                    Block::PayloadOnly => copy_slot_bytes(&mid, &crash, unit, UNIT..SLOT_BYTES),
                    Block::ChecksumOnly => unreachable!(),
                }
            }
            rot(&crash, rotten);
            let store =
                open_own_dirs_unsynced(&crash, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
            let lost = assert_blocks_read_or_lost_on_record(
                &store,
                "f",
                &before,
                0..2 * UNIT,
                &new,
                &what,
            );
            lost_blocks += lost.len();
            drop(store);
            std::fs::remove_dir_all(&crash).unwrap();
            points += 1;
        }
    }
    eprintln!("{code} {path:?}: {points} crash images, {lost_blocks} blocks named lost");
}

#[test]
fn wcl_raid6_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::raid6(4), WritePath::Wcl);
}

#[test]
fn wcl_rs_4_2_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::rs(4, 2), WritePath::Wcl);
}

#[test]
fn wcl_hcode_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::array(CodeKind::Hcode, 5), WritePath::Wcl);
}

#[test]
fn rmw_hcode_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::array(CodeKind::Hcode, 5), WritePath::Rmw);
}

#[test]
fn rmw_xcode_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::array(CodeKind::Xcode, 5), WritePath::Rmw);
}

#[test]
fn rmw_dcode_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::array(CodeKind::Dcode, 5), WritePath::Rmw);
}
