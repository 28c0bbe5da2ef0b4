//! Review s6s S6-2: a degraded raid5 rmw write (OSS 0's disk gone and failed on record) cut
//! by a kill between a live column's payload and its checksums. Recovery laid the failed
//! column's pre-write copy (its OLD bytes) over the stripe and then decoded the torn live
//! block from the NEW parity through it: `read` returned new(1) ^ new(0) ^ old(0), neither
//! old nor new bytes, with exit 0, and scrub and rebuild kept them. Every block the cut
//! write touched must read its old bytes, its new bytes, or fail; never anything else.

use crate::common;
use common::*;

const UNIT: usize = 65536;
const BLOCK: usize = 4096;

fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn a_degraded_write_torn_in_a_live_column_never_reads_as_other_bytes() {
    let old = noise(1, 4 * UNIT);
    // Elements 0 (the failed OSS's) and 1 of stripe 0 from block 3 on: both columns and
    // their shared parity rows in one write.
    let at = 3 * BLOCK;
    let new = noise(2, UNIT + BLOCK);
    // The case: the parity's block write done, the live column's torn (the second block
    // write). The plan's threads (one per OSS) race for which write is second, so the point
    // runs 40 times (on the code before the fix, 20 rounds failed the test in 4 runs of 6).
    for _round in 0..40 {
        let kill_at = "write-torn-block:2";
        let tmp = fast_tempdir("exaraid-s6-2");
        let dir = tmp.path().join("D");
        let d = s(&dir);
        init_store_unit(d, UNIT as u64, &["--oss", "5", "--code", "raid5"]);
        ok(&["store", "put", d, "f"], &old);
        std::fs::remove_dir_all(dir.join("oss-0")).unwrap();
        std::fs::create_dir(dir.join("oss-0")).unwrap();
        ok(&["store", "fail", d, "--oss", "0"], b"");
        let off = at.to_string();
        if !killed_at(&["store", "write", d, "f", "--offset", &off], &new, kill_at) {
            continue; // fewer block writes than n this time
        }
        let whole = exaraid(&["store", "get", d, "f"], b"");
        if whole.status.success() {
            assert_eq!(whole.stdout.len(), old.len(), "{kill_at}: length");
            for b in 0..old.len() / BLOCK {
                let (a, got) = (b * BLOCK, &whole.stdout[b * BLOCK..(b + 1) * BLOCK]);
                let in_cut = (at..at + new.len()).contains(&a);
                assert!(
                    got == &old[a..a + BLOCK] || (in_cut && got == &new[a - at..a - at + BLOCK]),
                    "{kill_at}: file bytes {a}..{} read with exit 0 are neither old nor new",
                    a + BLOCK
                );
            }
            continue;
        }
        // Block by block: a refusal is no licence for wrong bytes beside it, and it must be
        // on record (status names the loss).
        let status: serde_json::Value =
            serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
        let on_record: Vec<(usize, usize)> = status["lost_ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let o = l["offset_bytes"].as_u64().unwrap() as usize;
                (o, o + l["len_bytes"].as_u64().unwrap() as usize)
            })
            .collect();
        for b in 0..old.len() / BLOCK {
            let a = b * BLOCK;
            let got = exaraid(
                &[
                    "store",
                    "read",
                    d,
                    "f",
                    "--offset",
                    &a.to_string(),
                    "--length",
                    &BLOCK.to_string(),
                ],
                b"",
            );
            if !got.status.success() {
                assert!(
                    on_record.iter().any(|&(x, y)| x < a + BLOCK && a < y),
                    "{kill_at}: file bytes {a}..{} refused ({}) but not lost on record: {on_record:?}",
                    a + BLOCK,
                    String::from_utf8_lossy(&got.stderr)
                );
                continue;
            }
            let was = &old[a..a + BLOCK];
            let in_cut = (at..at + new.len()).contains(&a);
            assert!(
                got.stdout == was || (in_cut && got.stdout == new[a - at..a - at + BLOCK]),
                "{kill_at}: file bytes {a}..{} read with exit 0 are neither old nor new",
                a + BLOCK
            );
        }
    }
}
