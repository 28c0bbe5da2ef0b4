//! s35b (OPEN after session 34 (2)(d), s34a's last WRONG cut, one of many on e4b1aa9):
//! s32a's xcode scene (`s32a_stale_element_completable_by_one_version_beside_a_partial_parity.rs`,
//! as `s33f_stale_element_read_after_an_out_of_order_power_cut.rs` lays it: p=5, 16 KiB
//! elements, WCL, data element 1's OSS lost a write over its bytes 100..900) with the write
//! from element 5's byte 3000 to element 14's byte 1000 cut by a power cut before mutating
//! call 21, each OSS keeping a LATER unsynced call beside an earlier one dropped
//! (`EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on s32a's `xcode_write_5_to_14_...`: 65 of
//! 278 cuts read 'f' WRONG byte 16484 on e4b1aa9; this is the first). A zone page shared by
//! a slot's checksums and the next slot's payload lays new checksums over old payloads:
//! data blocks of the write wholly inside its range (nothing acknowledged there) and a
//! running parity block fail their checksum. s34b's `torn_over_nothing_acked` counts those
//! data blocks known in the old version (no blind column), so s34a's blind-columns rule was
//! not asked; each version still erased more than xcode's tolerance, no world was checked,
//! and the unchecked-world arm took the row on "the decisions below confirm a failing
//! block's decode", which none of those blocks gets: the stale element went home.
//!
//! Specification (s19f's, `stale_cut.rs`): after the open and a `flush`, every acknowledged
//! block reads its bytes (or, in the cut write's range, the write's) or is named LOST on
//! record; the stale element never reads its stale bytes with success.

mod common;
use common::*;
#[path = "common/powercut.rs"]
mod powercut;
use powercut::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::StoreError;

const ELEMENT_BYTES: usize = 16 * 1024;
/// The image the cut comes before (its mutating call's index).
const IMAGE: usize = 21;
/// The OSSs' calls unsynced at `IMAGE`, per OSS (the scene's plan order).
const UNSYNCED: [&[usize]; 5] = [
    &[10, 11, 12, 13],
    &[14, 15, 16, 17],
    &[18, 19, 20],
    &[],
    &[],
];
/// The unsynced calls the cut loses, each whole (the sweep's first WRONG cut on
/// e4b1aa9): OSS 0's call 10 (its 11..13 kept), OSS 1's 15 and 17 (14 and 16 kept), OSS 2's
/// 19 (18 and 20 kept).
const DROPPED: &[usize] = &[10, 15, 17, 19];

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
    let cut_write = 5 * element + 3000..14 * element + 1000;
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

/// Fails on e4b1aa9 ('f' WRONG byte 16484); the row is named LOST since s35b.
#[test]
fn xcode_stale_element_beside_blocks_torn_over_nothing_acknowledged_is_never_read() {
    let (s, calls) = scene_and_calls();
    let found = problem_at(&s, &calls, DROPPED);
    assert!(found.is_none(), "{}", found.unwrap());
}
