//! Two client writes cut on one stripe (s22f, "several cut writers", OPEN after session 21).
//!
//! rmw runs plans of one stripe one at a time, but a plan leaves its stripe locks when its
//! writes return, before its OSS syncs and its `Durable` record: a second writer of the
//! same stripe (another thread, a disjoint range) may write while the first is not yet
//! durable. A kill -9 then leaves both cut: recovery finds two client writes in flight on
//! the stripe. Writer A (data column 0) is whole; writer B (data column 1, with P and Q)
//! is caught at any of its block writes (each old, landed, or torn: new payload under the
//! old checksum). Then one block rots before the next open: B's own data block, or a data
//! block neither writer touched.
//!
//! What must hold (one crash and one rotten block, within raid6's and rs 4+2's tolerance of
//! two): every 4 KiB block reads its acknowledged bytes (inside A's and B's ranges, old or
//! new: never acknowledged), or fails naming a loss on record. Never a rotten byte with
//! success. Before s22f, with one cut writer the write's journaled crcs told B's rotten
//! block from a torn one (s21a), but with two the old keep rule kept the rotten bytes on
//! disk where B's parity had landed and its data block had not.

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// The store's journal with every `Durable` record from byte `from` on taken out: the
/// plans that wrote since are cut (their writes are on disk, their acknowledgements not).
fn drop_durable_records_since(journal: &Path, from: usize) {
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
    assert_eq!(dropped, 2, "the scene: one Durable record per write");
    std::fs::write(journal, kept).unwrap();
}

/// Flip a byte of the payload of slot `unit` in the tree `dir`: bit rot (the block then
/// fails its checksum).
fn rot(dir: &Path, (oss, name, slot): &Unit) {
    let path = object_file(dir, *oss, name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + 1234] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
}

fn two_cut_writers_on_one_stripe_then_rot(code: CodeSpec) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let store = init(&dir, code, columns(code), WritePath::Rmw);
    let layout = store.layout().clone();
    let g = layout.geometry().clone();
    let k = g.data_count();
    assert!(k >= 3, "the scene needs a third data column");
    let stripe_bytes = k * UNIT;
    let before = pattern(1, 2 * stripe_bytes);
    store.put("f", &before).unwrap();
    let id = store.file_id("f").unwrap();
    assert_eq!(id, 0, "the scene: 'f' is object 0");

    // Kill images of the store open (no checkpoint by a close): before A, between A and B
    // (A whole), after B.
    let journal = dir.join("journal");
    let journal_before = std::fs::metadata(&journal).unwrap().len() as usize;
    let new_a = pattern(2, UNIT);
    let new_b = pattern(3, UNIT);
    store.write("f", 0, &new_a).unwrap();
    let mid = top.path().join("mid");
    copy_tree(&dir, &mid);
    store.write("f", UNIT as u64, &new_b).unwrap();
    let after = top.path().join("after");
    copy_tree(&dir, &after);
    drop(store);
    drop_durable_records_since(&after.join("journal"), journal_before);

    let oss_count = columns(code);
    let b_units = changed_slots(&mid, &after, oss_count, |_, n| {
        n.ends_with(".data") || n.ends_with(".parity")
    });
    assert_eq!(
        b_units.len(),
        1 + g.parity_count(),
        "B writes its data block and every parity: {b_units:?}"
    );
    let b_data = b_units
        .iter()
        .find(|u| u.1.ends_with(".data"))
        .expect("B's data slot")
        .clone();
    let untouched_pos = g.data_pos[2];
    let untouched: Unit = (
        layout.oss_of(id, 0, untouched_pos.col),
        "0.data".to_string(),
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
        for rotten in [&b_data, &untouched] {
            let what = format!(
                "{:?}: A whole, B's slots {:?} {laid:?}, rot in {rotten:?}",
                code.kind,
                b_units.iter().map(|u| (u.0, &u.1)).collect::<Vec<_>>()
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
    eprintln!(
        "{:?}: {points} crash images, {lost_blocks} blocks named lost",
        code.kind
    );
    assert_eq!(points, 2 * 27);
}

#[test]
fn raid6_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::raid6(4));
}

#[test]
fn rs_4_2_two_cut_writers_on_one_stripe_then_one_rotten_block_read_old_new_or_lost() {
    two_cut_writers_on_one_stripe_then_rot(CodeSpec::rs(4, 2));
}
