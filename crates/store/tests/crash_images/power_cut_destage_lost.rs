//! A power cut at any point of a WCL write whose inline destage records the write's own
//! bytes LOST (a stale cache element no parity can locate: raid5), the journal cut also
//! between two of its own fsyncs (note16 OPEN 6a). The destage journals the loss (synced);
//! the write's end clears what was lost in its range as rewritten (`Rewritten`). Before
//! session 17 it cleared the destage's loss too and journaled it again after (`Lost`, a
//! second fsync): a power cut between the two kept the home stripe the destage wrote (the
//! stale element's bytes under parity encoded from them) with no loss on record, and the
//! next open read those bytes, neither the old nor the new ones, with success.
//!
//! At every power cut checked, with every disk: every 4 KiB block of "f" reads its
//! acknowledged bytes, or inside the write (never acknowledged: it fails naming its lost
//! bytes) the old or the new ones, or is named LOST on record; outside the write nothing is
//! lost.
//!
//! On raid6 the destage's check locates the stale element and moves its right bytes home:
//! at every power cut every block reads its acknowledged bytes (or the cut write's), none
//! is lost.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use std::sync::atomic::{AtomicBool, Ordering};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::Zone;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};

/// The OSS whose cache element goes stale: it holds a data column of stripe 0.
const STALE_OSS: usize = 1;

/// Run the scene (see the module doc) on `code` and check its power cuts whose image
/// `checked` takes. Returns how many were checked. A code tolerating two failures or more
/// locates the stale element (its check corrects it): the write returns, and no power cut
/// leaves a byte lost.
fn power_cut_destage_lost(code: CodeSpec, checked: impl Fn(usize, usize) -> bool) -> usize {
    images_in_plan_order();
    let locates = code.kind != exaraid_codes::CodeKind::Raid5;
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    // Stripe 1 in part keeps the cache zone file; stripe 0 whole goes home (destaged).
    write(&store, stripe_bytes + 3000, 2, 1000);
    write(&store, 0, 3, stripe_bytes);
    // The stale OSS's cache zone as it is now: stripe 0's chunk holds the seed-3 bytes.
    let zone_file = object_file(&dir, STALE_OSS, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    // Acknowledged now: other bytes (seed 5) in stripe 0, so the stale ones are neither
    // the old nor the new bytes of the write under test.
    write(&store, 0, 5, stripe_bytes);
    let before = before;

    // The write under test completes stripe 0's cache stripe; at the destage's first read of
    // the stale OSS's cache zone, that OSS has lost the write's element (its zone file put
    // back: old bytes under valid checksums, seeded with the address, not a version).
    let armed = AtomicBool::new(true);
    cut.before_read(Box::new(move |oss, key| {
        if oss == STALE_OSS && key.zone == Zone::Cache && armed.swap(false, Ordering::SeqCst) {
            std::fs::write(&zone_file, &snapshot).unwrap();
        }
    }));
    cut.cut_journal_since_previous_call();
    let new = pattern(4, stripe_bytes);
    cut.arm();
    let wrote = store.write("f", 0, &new);
    cut.last_image();
    drop(store);
    if locates {
        assert!(
            wrote.is_ok(),
            "the scene: the write's destage located and corrected its stale element: {wrote:?}"
        );
    } else {
        assert!(
            matches!(&wrote, Err(StoreError::DataLost(m)) if m.contains("could not tell")),
            "the scene: the write's destage could not tell its stale element: {wrote:?}"
        );
    }

    let mut after = before.clone();
    after[..stripe_bytes].copy_from_slice(&new);
    let images = cut.images();
    let last = images.len() - 1;
    let mut points = 0;
    for_each_power_cut(&images, |point| {
        if !checked(point.image_index, last) {
            return;
        }
        points += 1;
        let what = format!("{:?}: {}", code.kind, point.what());
        if std::env::var_os("POWER_CUT_SAY").is_some() {
            let journal = std::fs::read(point.image.dir.join("journal")).unwrap();
            eprintln!(
                "{what}: {:?}",
                journal_record_kinds(&journal)
                    .into_iter()
                    .filter(|r| r.0 as u64 >= point.image.journal_cuts_from_bytes)
                    .collect::<Vec<_>>()
            );
        }
        let laid = top.path().join("try");
        point.lay(&laid);
        let store = open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        // Returned (with DataLost): every byte of the write not named lost is its new one.
        let journal_bytes = std::fs::metadata(point.image.dir.join("journal"))
            .unwrap()
            .len();
        let returned = point.image_index == last && point.journal_cut_bytes == journal_bytes;
        let (model, cut_write) = if returned {
            (&after[..], 0..0)
        } else {
            (&before[..], 0..stripe_bytes)
        };
        let new_of_cut = if cut_write.is_empty() {
            &[][..]
        } else {
            &new[..]
        };
        let lost =
            assert_blocks_read_or_lost_on_record(&store, "f", model, cut_write, new_of_cut, &what);
        assert!(
            !locates || lost.is_empty(),
            "{what}: a located stale element, yet acknowledged blocks at {lost:?} LOST"
        );
        let outside: Vec<usize> = lost.into_iter().filter(|&at| at >= stripe_bytes).collect();
        assert!(
            outside.is_empty(),
            "{what}: acknowledged blocks at {outside:?} outside the write LOST"
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{code:?}: {} images, {points} power cuts checked",
        images.len()
    );
    points
}

/// The write's end: its destage's loss durable, the power cut anywhere in the records the
/// end journals after (the last image, its journal cut from what was durable before the
/// last OSS call on). Before session 17: `Rewritten` cleared the destage's loss, a second
/// fsync journaled it again; cut between them, the stale bytes read with success.
#[test]
fn raid5_power_cut_at_the_end_of_a_write_whose_destage_records_its_bytes_lost() {
    let points = power_cut_destage_lost(CodeSpec::raid5(4), |image, last| image == last);
    assert!(points > 1);
}

/// Every power cut of the write. Before session 18 (WRONG BYTES, found by s17f): the stale
/// element (a lost write) and a crash after the destage's plan input is on record and
/// before its check's `Lost` (also a kill -9: the journal cut at its length then):
/// recovery moved the stale element home unchecked, a read returned it with success. The
/// recovery of a cut destage checks its cache stripe as the destage does.
#[test]
fn raid5_power_cut_or_kill_before_the_destage_check_of_a_stale_cache_element() {
    let points = power_cut_destage_lost(CodeSpec::raid5(4), |_, _| true);
    assert!(points > 1);
}

/// The same on raid6, where the destage's check locates the stale element and moves its
/// right bytes home: cut before its home writes are durable, the recovery of the destage
/// locates and corrects it too (before session 18 the stale bytes went home unchecked).
#[test]
fn raid6_power_cut_or_kill_in_the_destage_of_a_located_stale_cache_element() {
    let points = power_cut_destage_lost(CodeSpec::raid6(4), |_, _| true);
    assert!(points > 1);
}

/// The same on every RAID-6 array code (p = 5): the destage's check locates the stale
/// column (data and, on the vertical codes, parity rows of it) and moves its right bytes
/// home, and so does the recovery of a destage cut before its home writes are durable.
#[test]
fn array_codes_power_cut_or_kill_in_the_destage_of_a_located_stale_cache_element() {
    for kind in ARRAY_CODE_KINDS {
        let points = power_cut_destage_lost(CodeSpec::array(kind, 5), |_, _| true);
        assert!(points > 1, "{kind:?}");
    }
}
