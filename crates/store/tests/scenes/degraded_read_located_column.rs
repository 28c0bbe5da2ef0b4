//! A degraded read beside a column the parity equations locate (note14 item 4, s14b's
//! leftover), rs 4+3 (a code that locates one wrong column with one column erased): one
//! OSS lost a home write (its data zone file put back: old bytes under valid checksums),
//! another block of that element rots, and another OSS of the stripe fails. A read of the
//! element decodes it block row by block row; in the row of the lost write the check of
//! the failed column's decode (two parities left over) locates the element's column as
//! "stale", and the decode put the parity's version over the column's own, checksum-valid
//! bytes: the read then failed naming the whole stripe lost, for a checksum failure of the
//! wrong block (the rebuilt bytes of the clean block did not match its own checksum).
//!
//! Specification, "named, never wrong": nothing on disk tells a lost write (the data stale,
//! the parity right) from a lost write an acknowledged read-modify-write XORed out of the
//! parity (the data right, the parity on a third value: review R13-4), so a degraded read
//! never returns, for blocks it can read with valid checksums, other bytes than the column
//! holds: it returns what a healthy read returned before the failure (here the stale bytes,
//! the documented stale read, which scrub reports). The failed column's bytes are decoded
//! with the located column erased (right whichever of the two holds the truth), and the
//! rotten block is rebuilt and confirmed by its checksum.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const ELEMENT_BYTES: usize = 16_384;
const LOST_BYTES: usize = 3000;

#[test]
fn a_degraded_read_returns_a_located_column_as_it_holds_it() {
    for failed_element in 1..4 {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let mut opts = InitOptions::with_oss_count(&dir, 7, CodeSpec::rs(4, 3));
        opts.element_bytes = ELEMENT_BYTES;
        opts.write_path = WritePath::Rmw;
        let store = Store::init(&dir, &opts).unwrap();
        let stripe_bytes = 4 * ELEMENT_BYTES;
        store.put("f", &pattern(1, 2 * stripe_bytes)).unwrap();
        let id = store.file_id("f").unwrap();
        let layout = store.layout().clone();
        let victim = layout.locate(id, 0).oss;
        let zone_file = object_file(&dir, victim, &format!("{id}.data"));
        let before_lost = std::fs::read(&zone_file).unwrap();
        store.write("f", 0, &pattern(2, LOST_BYTES)).unwrap();
        store.close().unwrap();
        // OSS `victim` lost that write: its zone file as it was before, valid checksums.
        std::fs::write(&zone_file, &before_lost).unwrap();
        let store = Store::open(&dir).unwrap();
        let healthy = store.get("f").unwrap();
        // Block 1 of the element rots; another data column's OSS fails.
        flip_home_byte(&store, "f", layout.geometry().data_pos[0], 1, 7);
        let failed = layout
            .locate(id, (failed_element * ELEMENT_BYTES) as u64)
            .oss;
        assert_ne!(failed, victim);
        store.fail_oss(failed).unwrap();
        for (what, got) in [
            ("the element", store.read("f", 0, ELEMENT_BYTES as u64)),
            ("the stripe", store.read("f", 0, stripe_bytes as u64)),
            ("get", store.get("f")),
        ] {
            let got = got.unwrap_or_else(|e| {
                panic!("OSS {failed} failed: {what}: one rotten block and one failed OSS are within rs 4+3's tolerance, and every other block reads: {e}")
            });
            let changed = (0..got.len()).filter(|&i| got[i] != healthy[i]).count();
            assert_eq!(
                changed, 0,
                "OSS {failed} failed: {what} read {changed} bytes other than a healthy read returned (the column's own bytes are checksum-valid)"
            );
        }
    }
}
