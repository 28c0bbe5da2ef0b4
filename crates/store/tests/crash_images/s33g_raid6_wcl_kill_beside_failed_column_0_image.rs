//! Session 33 (s33g), found by the seeded step order (`EXARAID_STEP_ORDER_SEED=2`): review
//! s32r's control `raid6_wcl_power_cuts_beside_failed_column_0_lose_no_acknowledged_byte`
//! (`review_s32r_wcl_crash_beside_failed_oss.rs`: raid6 4+2 WCL, `f` put over two stripes,
//! acknowledged writes 100+4096 and 8292+4096, OSS 0 failed, then the write 4000+200, which
//! reaches failed column 0 and live column 1) passes in plan order, and loses under order
//! seeds 2 (2 of 33 cuts) and 3 (1 of 33); seed 1 none. The image is seed 2's first losing
//! cut: "power cut before mutating call 10, journal kept to byte 19441 (durable 19441),
//! unsynced writes of OSS [] dropped": nothing dropped and the whole journal, what a kill -9
//! leaves. Every block of home stripe 0 (bytes 0..16384) reads LOST, before and after a
//! flush: one failed OSS and one crash on a code that tolerates two (LOSS within the
//! tolerance). Likely R32-2's family (a failed column the cut write reaches, s33a's item):
//! there the cut dropped column 0's block beside failed column 1. Read right since s33a's
//! R32-2 rule (a failed column the write reaches taken as the write's landed block where the
//! plan's copy matches its journaled crc): failed on s33g's branch (8b60df4 + the knob),
//! passes on the merge (lead, session 33, 4 of 4 runs).
//!
//! The image is laid without the failed disk's loss (the test empties OSS 0's directory, as
//! the scene does). Its model is the scene's: bytes as acknowledged before the cut write,
//! the cut write's bytes in flight.
//!
//! Specification: a crash beside one failed OSS (two faults, raid6 tolerates two) loses no
//! acknowledged byte of `f`.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

/// Data bytes of one raid6 4+2 stripe at `UNIT` per element.
const STRIPE_BYTES: usize = 4 * UNIT;
const DEAD_OSS: usize = 0;
const CUT_WRITE: std::ops::Range<usize> = 4000..4200;

/// (acknowledged bytes of `f` at the cut, the cut write's bytes where it covers): as
/// `powercut::degraded_cut_write` wrote them.
fn scene_model() -> (Vec<u8>, Vec<Option<u8>>) {
    let mut acked = pattern(1, 2 * STRIPE_BYTES);
    for (at, s) in [(100usize, 11u64), (2 * UNIT + 100, 12)] {
        acked[at..at + UNIT].copy_from_slice(&pattern(s, UNIT));
    }
    let new = bytes_of(1000, CUT_WRITE.start as u64, CUT_WRITE.len() as u64);
    let mut flight = vec![None; acked.len()];
    for (j, &b) in new.iter().enumerate() {
        flight[CUT_WRITE.start + j] = Some(b);
    }
    (acked, flight)
}

#[test]
fn raid6_a_kill_of_a_write_reaching_failed_column_0_loses_no_acknowledged_byte() {
    let tmp = tempfile::tempdir().unwrap();
    unpack_fixture(
        tmp.path(),
        "s33g_raid6_wcl_kill_beside_failed_column_0_image.tgz",
    );
    let image = tmp.path().join("image");
    lose_disk(&image, DEAD_OSS);
    let (acked, flight) = scene_model();
    let store = open_laid(&image, &[DEAD_OSS]).expect("the open recovers the crash");
    let lost = lost_blocks_across_a_flush(&store, &acked, &flight, "the kept cut");
    assert!(
        lost.is_empty(),
        "a crash beside one failed OSS lost acknowledged bytes: blocks at {lost:?}"
    );
}
