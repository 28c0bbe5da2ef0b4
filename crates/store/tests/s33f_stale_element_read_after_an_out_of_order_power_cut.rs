//! s33f (step 4 of "OPEN after session 32" item (5)): s32a's suspected WRONG BYTES in
//! `stale_beside_cut_write`'s `fits` (session 31's item (1)) REACHED by a power cut that
//! keeps a LATER unsynced call of an OSS beside an EARLIER one dropped (the power-cut
//! model's out-of-order mode, `powercut::OutOfOrder`; the all-or-none model and a kill never
//! lay this disk). Two faults, both within xcode's tolerance of two: a stale element (a
//! lost write of data element 1's OSS, its cache zone put back as before the write) and
//! one power cut.
//!
//! Scene: s32a's (`s32a_stale_element_completable_by_one_version_beside_a_partial_parity.rs`,
//! `common/stale_cut.rs`): xcode p=5, 16 KiB elements, WCL; `f` put over four stripes;
//! elements 0..1 of stripe 0 written (cached); a write over element 1's bytes 100..900 lost
//! by its OSS; then the write from element 3's byte 3000 to element 7's byte 1000 cut by a
//! power cut before its mutating call 23, the journal at its durable length, every
//! unsynced call landed but `DROPPED` (one call of OSS 1 and one of OSS 3, each beside a
//! LATER call of its OSS that landed), found by `EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only`
//! on s32a's test `xcode_write_3_to_7_...` and cut down by
//! `probe_smallest_dropped_set_reading_wrong_bytes`. The same image with each OSS's calls
//! all kept or all dropped (32 cuts) reads right: the order is what matters.
//!
//! Specification (s19f's, `stale_cut.rs`): after the open and a `flush`, every acknowledged
//! block reads its bytes (or, in the cut write's range, the write's) or is named LOST on
//! record; the stale element never reads its stale bytes with success. On 8b60df4 (and
//! 39e5b6e) the read of element 1 succeeds with the lost write's bytes missing: 'f' WRONG
//! byte 16484; since s34a the block row is named LOST.

mod common;
use common::*;
#[path = "common/powercut.rs"]
mod powercut;
use powercut::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::StoreError;

const ELEMENT_BYTES: usize = 16 * 1024;
/// The image the cut comes before (its mutating call's index).
const IMAGE: usize = 23;
/// The OSSs' calls unsynced at `IMAGE`, per OSS (the scene's plan order).
const UNSYNCED: [&[usize]; 5] = [
    &[10, 11, 12],
    &[13, 14, 15],
    &[16, 17],
    &[18, 21, 22],
    &[19, 20],
];
/// The unsynced calls the cut loses: OSS 1's call 14 (its call 15 kept) and OSS 3's call
/// 21 (its call 22 kept); every other call at `IMAGE` lands. The sweep's first WRONG cut
/// dropped [10, 11, 12, 13, 14, 17, 18, 21, 20]; `probe_smallest_dropped_set_reading_wrong_bytes`
/// cut it down to these two.
const DROPPED: &[usize] = &[14, 21];

struct Scene {
    top: tempfile::TempDir,
    images: Vec<PowerCutImage>,
    before: Vec<u8>,
    cut_write: std::ops::Range<usize>,
    new: Vec<u8>,
    stripe_bytes: usize,
}

fn scene() -> Scene {
    images_in_plan_order();
    let code = CodeSpec::array(CodeKind::Xcode, 5);
    let element = ELEMENT_BYTES;
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, layout.geometry().data_pos[1].col);
    let mut write = |store: &exaraid_store::Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    write(&store, 0, 3, 2 * element);
    let zone_file = object_file(
        &dir,
        stale_oss,
        &format!("{}.cache", exaraid_store::store::CACHE_OBJECT),
    );
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, element + 100, 5, 800);
    std::fs::write(&zone_file, &snapshot).unwrap();
    cut.cut_journal_since_previous_call();
    let cut_write = 3 * element + 3000..7 * element + 1000;
    let new = pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    Scene {
        top,
        images: cut.images(),
        before,
        cut_write,
        new,
        stripe_bytes,
    }
}

/// The cut before call `IMAGE` with the unsynced calls `dropped` lost: its problem, if any
/// (a panic's message: a wrong byte, a loss not on record, the stale element read).
fn problem_at(s: &Scene, calls: &CallChanges, dropped: &[usize]) -> Option<String> {
    let unsynced = calls.unsynced(&s.images, IMAGE);
    let kept: Vec<usize> = (unsynced.iter().flatten().copied())
        .filter(|j| !dropped.contains(j))
        .collect();
    let units = calls.units_of_calls(&s.images, IMAGE, &kept);
    let image = lay_out_of_order_image(&s.images, calls, IMAGE, &units);
    let what = format!("dropped calls {dropped:?}");
    let laid = s.top.path().join("laid");
    PowerCutPoint {
        image_index: IMAGE,
        image: &image,
        journal_cut_bytes: image.journal_durable_bytes,
        dropped: vec![false; image.oss_durable.len()],
    }
    .lay(&laid);
    let check = || {
        let store = powercut::open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        let lost = assert_blocks_read_or_lost_on_record(
            &store,
            "f",
            &s.before,
            s.cut_write.clone(),
            &s.new,
            &what,
        );
        let outside: Vec<usize> = (lost.into_iter())
            .filter(|&at| at >= s.stripe_bytes)
            .collect();
        assert!(
            outside.is_empty(),
            "{what}: blocks at {outside:?} outside the stale cache stripe LOST"
        );
        if let Ok(got) = store.read("f", ELEMENT_BYTES as u64, ELEMENT_BYTES as u64) {
            assert!(
                got == s.before[ELEMENT_BYTES..2 * ELEMENT_BYTES],
                "{what}: the stale element read with success"
            );
        }
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
    std::fs::remove_dir_all(&laid).unwrap();
    std::fs::remove_dir_all(&image.dir).unwrap();
    caught.err().map(|panic| {
        (panic.downcast_ref::<String>().cloned())
            .or_else(|| panic.downcast_ref::<&str>().map(|m| m.to_string()))
            .unwrap_or_default()
    })
}

fn scene_and_calls() -> (Scene, CallChanges) {
    let s = scene();
    let calls = CallChanges::of(&s.images);
    let unsynced = calls.unsynced(&s.images, IMAGE);
    assert_eq!(
        unsynced,
        UNSYNCED.iter().map(|c| c.to_vec()).collect::<Vec<_>>(),
        "the scene's unsynced calls at image {IMAGE} (plan order)"
    );
    (s, calls)
}

/// s34a: the arm was not `fits` (no world was listed): the two running parity blocks the cut
/// left failing their checksum, (3,1) and (3,3), made columns 1 and 3 blind (xcode's
/// tolerance), and `stale_beside_cut_write` returned `Agrees` on the claim that a failing
/// block's decode is confirmed by its stored checksum, which holds for no running parity
/// block. Now the row must be proven by a world, else it is lost on record (block row 0 of
/// the cache stripe is named LOST here). Fails on 39e5b6e ('f' WRONG byte 16484).
#[test]
fn xcode_stale_element_never_reads_its_stale_bytes_after_an_out_of_order_power_cut() {
    let (s, calls) = scene_and_calls();
    let found = problem_at(&s, &calls, DROPPED);
    assert!(found.is_none(), "{}", found.unwrap());
}

/// The same cut with every unsynced call of each OSS kept or dropped as one (the
/// all-or-none model), at the same image: no problem, so the order is what matters.
#[test]
fn xcode_stale_element_beside_the_same_cut_with_each_oss_all_or_none_reads_right() {
    let (s, calls) = scene_and_calls();
    for mask in 0..1usize << UNSYNCED.len() {
        let dropped: Vec<usize> = (0..UNSYNCED.len())
            .filter(|o| mask >> o & 1 == 1)
            .flat_map(|o| UNSYNCED[o].iter().copied())
            .collect();
        let found = problem_at(&s, &calls, &dropped);
        assert!(found.is_none(), "{}", found.unwrap());
    }
}

/// Greedy: drop one call of `DROPPED` from the set at a time while the cut still reads
/// wrong; prints the smallest set found. Since s34a the cut reads right (LOST on record), so
/// this probe's first assertion fails: kept for the next such cut.
#[test]
#[ignore = "probe: the smallest set of dropped calls that still reads wrong"]
fn probe_smallest_dropped_set_reading_wrong_bytes() {
    let (s, calls) = scene_and_calls();
    let mut dropped = DROPPED.to_vec();
    assert!(
        problem_at(&s, &calls, &dropped).is_some(),
        "the sweep's cut reads wrong"
    );
    let mut k = 0;
    while k < dropped.len() {
        let mut fewer = dropped.clone();
        fewer.remove(k);
        match problem_at(&s, &calls, &fewer) {
            Some(p) if p.contains("WRONG") || p.contains("stale element read") => dropped = fewer,
            _ => k += 1,
        }
    }
    eprintln!(
        "smallest dropped set: {dropped:?}: {}",
        problem_at(&s, &calls, &dropped).unwrap()
    );
}
