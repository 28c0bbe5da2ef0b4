//! A write killed inside a gap merge of an OSS zone file (review s5s S3). Past
//! `EXTENTS_RUNS_PER_ZONE_MAX` (1,024) runs of written slots in one zone file, the first
//! write of a new slot merges the smallest gap: it writes zero-block checksums into the
//! gap's never-written slots. A kill inside one of those 4-byte writes left half a
//! checksum in a slot nobody wrote, outside every range recovery decides: `scrub` then
//! exited 2 ("corrupt" in a stripe the file never wrote) until `scrub --repair`.
//! Recovery must leave a clean scrub and every acknowledged byte.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const UNIT_BYTES: usize = 4096;
/// raid5 3+1 over 4 OSSs: one 4 KiB slot per element, 12 KiB of data a stripe.
const STRIPE_BYTES: usize = 3 * UNIT_BYTES;
/// Full stripes written at every third stripe: each OSS's data zone holds a slot of 3 in
/// 4 of them with two or more never-written slots between, so 1,400 stripes make ~1,050
/// runs per data zone, past the 1,024 at which every new scattered slot merges a gap (the
/// reviewer's store: 1-byte writes at every third stripe).
const WRITTEN_STRIPES: u64 = 1400;

/// The store above, then a 1-byte write at the next scattered stripe (one data element and
/// its parity: one data zone merges a gap, on one thread) killed at the `n`-th zero-block
/// checksum its merge writes, half written; `scrub` must then find nothing.
fn write_killed_inside_a_gap_merge(n: u64) {
    let tmp = fast_tempdir("exaraid-torn-gap");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut model: Vec<u8> = Vec::new();
    {
        let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
        opts.element_bytes = UNIT_BYTES;
        opts.write_path = WritePath::Rmw;
        let store = Store::init(&dir, &opts).unwrap();
        for i in 0..WRITTEN_STRIPES {
            let at = (3 * i) as usize * STRIPE_BYTES;
            let stripe = bytes(i as u8, STRIPE_BYTES);
            store.write("f", at as u64, &stripe).unwrap();
            model.resize(at + STRIPE_BYTES, 0);
            model[at..].copy_from_slice(&stripe);
        }
        store.close().unwrap();
    }
    let at = 3 * WRITTEN_STRIPES as usize * STRIPE_BYTES;
    let cut = [0xccu8];
    let offset = at.to_string();
    let kill_at = format!("{}:{n}", exaraid_store::torture::GAP_FILL_TORN);
    assert!(
        killed_at(
            &["store", "write", d, "f", "--offset", &offset],
            &cut,
            &kill_at
        ),
        "{kill_at}: the write finished first: the store has too few runs for the scenario"
    );

    let scrub = exaraid(&["store", "scrub", d], b""); // its open recovers the cut write
    assert!(
        scrub.status.success(),
        "{kill_at}: scrub after the recovery of a write killed in a gap merge (exit {:?}): {}{}",
        scrub.status.code(),
        String::from_utf8_lossy(&scrub.stdout),
        String::from_utf8_lossy(&scrub.stderr)
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(
        got.len() == model.len() || got.len() == at + cut.len(),
        "{kill_at}: f is {} bytes, acknowledged {}",
        got.len(),
        model.len()
    );
    assert!(
        got[..model.len()] == model[..],
        "{kill_at}: acknowledged bytes of f changed"
    );
    for (i, &b) in got.iter().enumerate().skip(model.len()) {
        let new = if i >= at { cut[i - at] } else { 0 };
        assert!(
            b == 0 || b == new,
            "{kill_at}: byte {i} (of the cut write, or the hole before it) is {b}: neither old (0) nor new ({new})"
        );
    }
}

/// The merge fills the smallest gap, two never-written slots of one data zone: at least one
/// of them holds a data element of that OSS (the parity moves from OSS to OSS stripe by
/// stripe), so a torn checksum there is one scrub reads; hence both.
#[test]
fn a_write_killed_inside_a_gap_merge_leaves_a_clean_scrub_after_recovery() {
    for n in 1..=2 {
        write_killed_inside_a_gap_merge(n);
    }
}
