//! OPEN 4 of session 20 (s20a's availability cost): a raid5 WCL client write over a cached
//! column of a cache stripe whose other columns hold acknowledged bytes at the same offsets, cut by a
//! power cut that keeps the write's data block and drops its running parity (or the other
//! way round: a write hole). Single parity cannot tell such a hole from a stale element
//! unless the write's crcs (`Rec::WriteCrcs`, `Rec::WriteParityCrcs`) say which version
//! each block holds. They were journaled unsynced, so the same power cut could drop them,
//! and recovery then recorded the acknowledged bytes of the row's other columns LOST
//! (never guessed, but nothing was wrong with them). Now they are fsync'd before the
//! write's first cache write.
//!
//! Specification: after any power cut during the write (the journal cut anywhere its
//! fsyncs allow, each OSS keeping or dropping its unsynced writes), the next open and a
//! `flush`, every acknowledged byte reads back with success, and the cut write's bytes read
//! as before it or as it wrote them; nothing is recorded lost.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;

/// Power cuts through a WCL write over data column 2 of cache stripe 0, whose columns 0 to
/// 2 hold acknowledged bytes; returns how many were checked.
fn power_cut_wcl_write_beside_acknowledged_columns(code: CodeSpec) -> usize {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(
        stripe_bytes / UNIT >= 4,
        "the scene needs four data columns (the stripe not whole)"
    );

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut model = pattern(1, 2 * stripe_bytes);
    store.put("f", &model).unwrap();
    // Columns 0, 1 and 2 of stripe 0 in the cache zone: acknowledged, the stripe not whole.
    // The cut write overwrites column 2 there: not a first write (before one, the block's
    // old version is known to be zeros, and the row can be checked without the crcs).
    let first = pattern(3, 3 * UNIT);
    store.write("f", 0, &first).unwrap();
    model[..3 * UNIT].copy_from_slice(&first);
    let model = model;

    let new = pattern(4, UNIT);
    cut.arm();
    store.write("f", 2 * UNIT as u64, &new).unwrap();
    cut.last_image();
    drop(store);

    let images = cut.images();
    let mut points = 0;
    let mut holes = 0;
    for_each_power_cut(&images, |point| {
        points += 1;
        let what = format!("{:?}: {}", code.kind, point.what());
        holes += usize::from(point.dropped.iter().any(|&d| d));
        let laid = top.path().join("try");
        point.lay(&laid);
        let (store, lost) =
            open_laid_flush_and_read(&laid, &[], &model, 2 * UNIT..3 * UNIT, &new, &what);
        assert!(
            lost.is_empty(),
            "{what}: acknowledged blocks at {lost:?} recorded LOST though every byte of them is on disk"
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    assert!(
        holes > 0,
        "the scene: some power cut drops an OSS's unsynced writes"
    );
    eprintln!(
        "{:?}: {} images, {points} power cuts checked",
        code.kind,
        images.len()
    );
    points
}

#[test]
fn raid5_a_power_cut_write_hole_beside_acknowledged_cached_columns_loses_nothing() {
    assert!(power_cut_wcl_write_beside_acknowledged_columns(CodeSpec::raid5(4)) > 1);
}

#[test]
fn raid6_a_power_cut_write_hole_beside_acknowledged_cached_columns_loses_nothing() {
    assert!(power_cut_wcl_write_beside_acknowledged_columns(CodeSpec::raid6(4)) > 1);
}
