//! s31c (review of session 30's merge, F4): a recovery's record (`Rec::RecoveryDecision`,
//! s30d) decides a partly filled WCL cache stripe with its chunkless columns KNOWN (zeros,
//! as the running parity covers them), not erased. Counted erased, two chunkless columns of a
//! 4+2 code plus ONE bad block went past the tolerance: the next open found the row
//! `Unproven` and named the put's acknowledged bytes LOST, though the parity the record
//! proves holds them.
//!
//! Scene: a put of one 4 KiB element (column 0 of home stripe 0), a write of the next 4 KiB
//! (column 1) killed at its first block write, the open's recovery killed after its record
//! (`settle-before-block:n`), one bit of column 0's cache block flipped, then `get`.

use crate::common;
use common::{
    exaraid, killed_recovery_of_a_cut_cache_write, random_bytes, s, RAID6_4_2_WCL, RS_4_2_WCL,
};
use exaraid_store::torture::SETTLE_BEFORE_BLOCK;
use std::path::Path;

const UNIT_BYTES: usize = 4096;
const CACHE_FILE: &str = "objects/18446744073709551615.cache";
/// Recovery block writes tried: before the record's first parity write (1), between its two
/// (2), after both (3).
const RECOVERY_KILLS: u32 = 3;

/// `(col, oss, base address)` of the chunks the last record of a recovery's decision names.
fn recorded_chunks(dir: &Path) -> Vec<(u64, u64, u64)> {
    let record = common::journal_records(dir)
        .into_iter()
        .filter(|r| r.contains("RecoveryDecision"))
        .last()
        .expect("the killed recovery journaled its decision");
    let v: serde_json::Value = serde_json::from_str(&record).unwrap();
    let chunks = &v["rec"]["RecoveryDecision"]["chunks"];
    (chunks.as_array().expect("chunks").iter())
        .map(|c| {
            (
                c[0].as_u64().unwrap(),
                c[1].as_u64().unwrap(),
                c[2].as_u64().unwrap(),
            )
        })
        .collect()
}

fn flip_one_bit_of_column_0(dir: &Path, chunks: &[(u64, u64, u64)]) {
    let &(_, oss, base) = (chunks.iter().find(|c| c.0 == 0)).expect("column 0 has a chunk");
    let slot = base / UNIT_BYTES as u64;
    let at = slot * exaraid_store::backend::slot_bytes_on_disk(UNIT_BYTES) + 100;
    let zone = dir.join(format!("oss-{oss}")).join(CACHE_FILE);
    let mut bytes = std::fs::read(&zone).unwrap();
    bytes[at as usize] ^= 0x04;
    std::fs::write(&zone, &bytes).unwrap();
}

fn one_bad_block_after_a_killed_recovery_reads_every_acknowledged_byte(name: &str, init: &[&str]) {
    for n in 1..=RECOVERY_KILLS {
        let tmp = common::fast_tempdir("s31c-partly-filled");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        let old = random_bytes(0x31c0 + n as u64, UNIT_BYTES);
        let new = random_bytes(0x31c1 + n as u64, UNIT_BYTES);
        killed_recovery_of_a_cut_cache_write(d, name, init, (&old, &new), n);
        let recovery_kill = format!("{SETTLE_BEFORE_BLOCK}:{n}");
        let chunks = recorded_chunks(&dir);
        // Partly filled: two of the four data columns have no chunk (the scene's premise).
        let data_chunks = chunks.iter().filter(|c| c.0 < 4).count();
        assert_eq!(data_chunks, 2, "{name}: chunks {chunks:?}");
        flip_one_bit_of_column_0(&dir, &chunks);
        let got = exaraid(&["store", "get", d, "f"], b"");
        assert!(
            got.status.success(),
            "{name}, recovery killed at {recovery_kill}, one bad block: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        let got = got.stdout;
        assert_eq!(&got[..UNIT_BYTES], &old[..], "{name}: the put's bytes");
        // The cut write's bytes: each old (none: zeros past the put's end) or new, as
        // `torture_scene::reads_every_acknowledged_byte` takes them.
        assert!(
            got.len() == UNIT_BYTES || got.len() == 2 * UNIT_BYTES,
            "{name}: {} bytes read",
            got.len()
        );
        let wrong = (got[UNIT_BYTES..].iter().zip(&new))
            .filter(|&(&g, &n)| g != 0 && g != n)
            .count();
        assert_eq!(wrong, 0, "{name}: cut write's bytes neither old nor new");
        let scrub = exaraid(&["store", "scrub", d], b"");
        assert!(scrub.status.success(), "{name}: scrub: {scrub:?}");
    }
}

#[test]
fn an_rs_4_2_record_of_a_partly_filled_cache_stripe_survives_one_bad_block() {
    one_bad_block_after_a_killed_recovery_reads_every_acknowledged_byte("rs 4+2", RS_4_2_WCL);
}

#[test]
fn a_raid6_4_2_record_of_a_partly_filled_cache_stripe_survives_one_bad_block() {
    one_bad_block_after_a_killed_recovery_reads_every_acknowledged_byte("raid6 4+2", RAID6_4_2_WCL);
}
