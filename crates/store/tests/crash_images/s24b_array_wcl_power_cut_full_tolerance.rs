//! A WCL store of an array code (H-code p=5) with as many OSSs failed as the code tolerates
//! (two), after a power cut during a client write into an open cache stripe whose other
//! columns hold acknowledged cached bytes.
//!
//! Why it loses bytes: the settle's check of a cache stripe against its running parity
//! has nothing left to check a block row with two erased columns. On one-row codes such a
//! row goes home in degraded mode (a cut cache write is always on record: s21d syncs its
//! input before its first cache write, so recovery decides its rows). Array codes sync
//! nothing before their first cache write, so a power cut could leave a stale element there
//! with nothing on record, and they keep s22a's rule: the row's cached bytes are recorded
//! LOST (`UNCHECKED_CACHE`), although no fault beyond the tolerance happened.
//!
//! Specification (issue #4, s24b item 3): after any power cut during the write, two OSSs
//! failed, the next open and a `flush`, every acknowledged byte reads back with success or
//! is named LOST on record, and the cut write's bytes read as before it or as it wrote
//! them. Where the journal holds none of the write or all of it (nothing in flight: the
//! settle's check decides the cache stripe), nothing is recorded lost. Where it holds the
//! write cut, recovery decides the rows it reached and records those it cannot prove LOST
//! (`stale_beside_cut`, at full tolerance on every code of two or more parities).

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::{CodeKind, CodeSpec};

/// Power cuts through a WCL write into data element 2 of cache stripe 0, whose data
/// elements 0 and 1 hold acknowledged bytes; then the OSSs of data element 0 and parity 0
/// fail. Returns how many power cuts were checked.
fn power_cut_wcl_write_then_two_osses_fail(code: CodeSpec) -> usize {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let g = layout.geometry().clone();
    assert!(g.rows > 1, "the scene: an array code");
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(
        stripe_bytes / UNIT >= 4,
        "the scene: the cache stripe stays open"
    );
    let failed: Vec<usize> = [g.data_pos[0].col, g.parity_pos[0].col]
        .into_iter()
        .map(|col| layout.oss_of(0, 0, col))
        .collect();
    let written_oss = layout.oss_of(0, 0, g.data_pos[2].col);
    assert!(
        failed[0] != failed[1] && !failed.contains(&written_oss),
        "the scene"
    );

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut model = pattern(1, 2 * stripe_bytes);
    store.put("f", &model).unwrap();
    let first = pattern(3, 2 * UNIT);
    store.write("f", 0, &first).unwrap();
    model[..2 * UNIT].copy_from_slice(&first);
    let model = model;

    let new = pattern(4, UNIT);
    let journal_before_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    cut.arm();
    store.write("f", 2 * UNIT as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    // The write is done on record where the journal holds its `Durable` record.
    let write_done_bytes = durable_record_end_after(&dir.join("journal"), journal_before_bytes);

    let images = cut.images();
    let mut points = 0;
    for_each_power_cut(&images, |point| {
        points += 1;
        let what = format!("{code}, OSSs {failed:?} failed: {}", point.what());
        let laid = top.path().join("try");
        point.lay(&laid);
        let (store, lost) =
            open_laid_flush_and_read(&laid, &failed, &model, 2 * UNIT..3 * UNIT, &new, &what);
        let in_flight =
            (journal_before_bytes + 1..write_done_bytes).contains(&point.journal_cut_bytes);
        assert!(
            in_flight || lost.is_empty(),
            "{what}: acknowledged blocks at {lost:?} recorded LOST with nothing in flight, within the tolerance: {:?}",
            store.status().unwrap().lost_ranges
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{code}: {} images, {points} power cuts checked",
        images.len()
    );
    points
}

#[test]
fn hcode_a_power_cut_wcl_write_then_two_failed_osses_loses_no_acknowledged_byte() {
    let points = power_cut_wcl_write_then_two_osses_fail(CodeSpec::array(CodeKind::Hcode, 5));
    assert!(points > 1);
}
