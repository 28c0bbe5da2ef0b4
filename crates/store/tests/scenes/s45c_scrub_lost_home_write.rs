//! Session 45 (s45c): `scrub` and `scrub --repair` after a lost write of an rmw HOME
//! element. The scene is s44b's (`s44b_lost_home_write::lose_a_home_write`): "f" put (64
//! KiB, 4 KiB elements), an acknowledged write of bytes 4396..7396 (data element 1 of
//! stripe 0), then the OSS holding that element loses it (its data zone file put back from
//! a copy taken before the write: older bytes under their older, valid checksums). The
//! home witness (`State::home_witness`) holds the write's crcs; the row's parity took the
//! write's delta, so it holds the acknowledged bytes too, and the data column alone is
//! stale.
//!
//! What must hold:
//! - plain `scrub` finds the stripe (it changes nothing);
//! - after `scrub --repair` every 4 KiB block of "f" reads the acknowledged bytes, or
//!   `DataLost` with the loss on record; never a stale byte with success;
//! - where the row's parity rebuilds the block to bytes that match its witness piece,
//!   `--repair` rewrites THAT block (the data, not the parity): a second scrub is clean,
//!   and the acknowledged bytes read right even once the parity's OSSs are gone. Why: the
//!   repair's alternative, parity re-encoded from the stale data, destroys the only copy
//!   of the acknowledged bytes; and a repair that leaves the stale block leaves the bytes
//!   hanging on the parity alone (one more failure and they are lost);
//! - where nothing rebuilds the block (raid5 with P's OSS failed), `--repair` puts it on
//!   record LOST itself (`status` lists it before any read).
//!
//! On 1d205592 (before this session): raid5 `--repair` reported the stripe unrepairable
//! ("cannot tell which column is wrong") and rewrote nothing, raid6 located the column but
//! kept it ("nothing on disk tells which is right"); a second scrub saw the same mismatch
//! (the acknowledged bytes left on the parity alone); with P's OSS failed, `--repair`
//! recorded nothing; see docs/results/s45-s45c.md.

use crate::common;
use crate::s44b_lost_home_write::{
    every_block_right_or_lost_on_record, lose_a_home_write, WRITE_AT,
};
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::store::ScrubReport;
use exaraid_store::Store;

/// Does `report` name stripe 0 of "f" (a corrupt or stale element, or a parity mismatch)?
fn names_stripe_0(report: &ScrubReport) -> bool {
    report
        .parity_mismatches
        .iter()
        .any(|(f, s)| f == "f" && *s == 0)
        || report
            .corrupt_elements
            .iter()
            .any(|c| c.file == "f" && c.stripe == 0)
}

/// A stripe nothing is wrong with, by `report`.
fn clean(report: &ScrubReport) -> bool {
    report.parity_mismatches.is_empty()
        && report.corrupt_elements.is_empty()
        && report.unrepairable.is_empty()
        && report.lost_ranges.is_empty()
}

/// Every OSS up: plain scrub finds the stripe, `--repair` rewrites the stale data block
/// from parity, a second scrub is clean, and with every parity OSS of the stripe failed
/// afterwards every byte still reads the acknowledged ones (they are on the data OSS now).
fn repair_rewrites_the_stale_block(code: CodeSpec, oss: usize, what: &str) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let lost = lose_a_home_write(&dir, code, oss);
    let store = Store::open(&dir).unwrap();
    let plain = store.scrub(false).unwrap();
    assert!(
        names_stripe_0(&plain),
        "{what}: plain scrub finds it: {plain:?}"
    );
    let repaired = store.scrub(true).unwrap();
    let gone = every_block_right_or_lost_on_record(&store, &lost.acked, what);
    assert!(
        gone.is_empty(),
        "{what}: parity rebuilds the block, nothing lost: {gone:?}; {repaired:?}"
    );
    let again = store.scrub(false).unwrap();
    assert!(
        clean(&again),
        "{what}: the repair rewrote the stale data block, a second scrub is clean: {again:?}; the repair said {repaired:?}"
    );
    store.close().unwrap();
    // The parity's OSSs gone for good: the acknowledged bytes must be on the data OSS.
    for &p in &lost.parity {
        lose_disk(&dir, p);
    }
    let store = Store::open(&dir).unwrap();
    for &p in &lost.parity {
        store.fail_oss(p).unwrap();
    }
    let gone = every_block_right_or_lost_on_record(&store, &lost.acked, what);
    assert!(
        gone.is_empty(),
        "{what}: after the repair, with the parity OSSs {:?} failed, blocks {gone:?} read lost (the acknowledged bytes were on the parity alone: the repair left the stale data)",
        lost.parity
    );
    store.close().unwrap();
}

#[test]
fn s45c_raid5_scrub_repair_rewrites_a_lost_home_write_from_parity() {
    repair_rewrites_the_stale_block(CodeSpec::raid5(4), 5, "raid5 4+1");
}

#[test]
fn s45c_raid6_scrub_repair_rewrites_a_lost_home_write_from_parity() {
    repair_rewrites_the_stale_block(CodeSpec::raid6(4), 6, "raid6 4+2");
}

/// raid5 with P's OSS failed: nothing rebuilds the stale block. `--repair` records it
/// LOST (`status` lists it before any read), rewrites nothing, and every block then reads
/// the acknowledged bytes or LOST on record.
#[test]
fn s45c_raid5_scrub_repair_beside_a_failed_p_records_a_lost_home_write_lost() {
    let what = "raid5 4+1, P's OSS failed";
    let tmp = scratch();
    let probe = lose_a_home_write(&tmp.path().join("probe"), CodeSpec::raid5(4), 5);
    let dir = tmp.path().join("store");
    let lost = lose_a_home_write(&dir, CodeSpec::raid5(4), 5);
    assert_eq!(lost.parity, probe.parity, "one layout");
    lose_disk(&dir, lost.parity[0]);
    let store = Store::open(&dir).unwrap();
    store.fail_oss(lost.parity[0]).unwrap();
    store.scrub(false).unwrap();
    let repaired = store.scrub(true).unwrap();
    let (at, block) = (WRITE_AT as u64, WRITE_AT / 4096 * 4096);
    let on_record = store.status().unwrap().lost_ranges;
    assert!(
        on_record
            .iter()
            .any(|l| l.file == "f" && l.offset_bytes <= at && at < l.offset_bytes + l.len_bytes),
        "{what}: scrub --repair puts the stale block {block} on record LOST: {on_record:?}; {repaired:?}"
    );
    let gone = every_block_right_or_lost_on_record(&store, &lost.acked, what);
    assert!(gone.contains(&block), "{what}: {gone:?}");
    store.close().unwrap();
}
