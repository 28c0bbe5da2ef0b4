//! Review s23r R23-4 (fixed, s23d): WCL, one write cut by a crash, one bit of rot in another OSS's
//! cache zone: the rotten byte reads back with success.
//!
//! The crash image (`fixtures/s23r_wcl_cut_cache_rot.tgz`, 600 KB: random bytes) is what a kill
//! left of a raid6 store (7 OSSs, 16 KiB unit, wcl; `scripts/repro/s23r-two-cut-writes.py
//! /tmp/s23r-t11 raid6:7 16384 wcl 25 2 24`, trial 22): `put` of 152,442 bytes (`put.bin`),
//! write A of 39,587 bytes at 8,001 ACKNOWLEDGED (`write-a-8001.bin`, cached), then write B of
//! 76,447 bytes at 0 (`write-b-0.bin`) killed at `write-torn-block:6` (plan order), the torn
//! block on OSS 5. File byte 9,265 is in both writes: A's 0xdc (acknowledged) or B's 0xe6 (cut)
//! are right there. OSS 0's cache zone holds B's 0xe6 for it at offset 9,265.
//!
//! The test flips one bit of that cache byte (bit rot after the crash, before the open): two
//! faults (the torn block on OSS 5, the rot on OSS 0) on a 2-parity code, within the tolerance.
//! On 9e15292 `get` returns 0xe4 (B's byte with the bit flipped, a byte no write wrote) with
//! success; every one of the 8 bits does the same.

use crate::common;
use common::unpack_fixture;

use std::path::Path;

use exaraid_store::Store;

const ZONE_FILE: &str = "oss-0/objects/18446744073709551615.cache";
const ZONE_FILE_OFFSET: usize = 9265;
const BYTE_AT: usize = 9265;

fn unpack(into: &Path) -> std::path::PathBuf {
    unpack_fixture(into, "s23r_wcl_cut_cache_rot.tgz").join("s23r-wcl-cut-cache-rot")
}

#[test]
fn wcl_rot_in_cache_beside_a_cut_write_never_reads_back_with_success() {
    let tmp = tempfile::tempdir().unwrap();
    let base = unpack(tmp.path());
    let dir = base.join("store");
    let put = std::fs::read(base.join("put.bin")).unwrap();
    let a = std::fs::read(base.join("write-a-8001.bin")).unwrap();
    let b = std::fs::read(base.join("write-b-0.bin")).unwrap();
    let zone = dir.join(ZONE_FILE);
    let mut bytes = std::fs::read(&zone).unwrap();
    assert_eq!(
        bytes[ZONE_FILE_OFFSET], b[BYTE_AT],
        "the cache holds B's byte there"
    );
    bytes[ZONE_FILE_OFFSET] ^= 0x02;
    std::fs::write(&zone, &bytes).unwrap();

    let store = Store::open(&dir).expect("the open recovers the crash");
    match store.get("f") {
        Ok(got) => {
            assert_eq!(got.len(), put.len(), "length");
            // A is acknowledged and B (cut) covers it whole: where B covers, A's or B's
            // byte; elsewhere the put's or B's.
            for (x, &v) in got.iter().enumerate() {
                let mut ok = vec![put[x]];
                if (8001..8001 + a.len()).contains(&x) {
                    ok = vec![a[x - 8001]];
                }
                if x < b.len() {
                    ok.push(b[x]);
                }
                assert!(
                    ok.contains(&v),
                    "byte {x} read back as {v:#04x} with success; allowed {ok:02x?} (rot in OSS 0's cache kept beside a cut write)"
                );
            }
        }
        Err(e) => assert!(
            e.to_string().contains("lost"),
            "a refused read must name the bytes lost: {e}"
        ),
    }
}
