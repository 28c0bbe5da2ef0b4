//! Review s30r R30-1, fixed in s31a: ONE power cut during ONE WCL client write over a cached
//! home stripe recorded the home stripe's acknowledged bytes LOST. The scene
//! (`review_s30r_raid5_wcl_power_cut_loses_acknowledged_stripe.rs`) loses at 1 of ~25..49
//! cuts, and which cut depends on which thread issues the Nth mutating call (2 cores, CI):
//! these images are losing cuts it laid (`S31A_KEEP`), so the rule is tested
//! deterministically. Each image holds the laid disk (the power cut already applied) and what
//! the scene knew: `s31a-acked.bin` (every byte of `f` as acknowledged), `s31a-flight.bin`
//! and `s31a-flight-mask.bin` (the byte the cut write would leave, where mask is 1).
//!
//! The shape (s30f's diagnosis): the cut write's running parity block is `Partial` (some of
//! its `WriteParityCrcs` pieces landed, others not), one in-flight data block `Old` and one
//! `New`, each told by `WriteCrcs`. Each segment of the row decodes with redundancy in only
//! one version, so no single version checks the row and every acknowledged block of the
//! row was recorded LOST. Rule (s31a, `segments_proven_across_versions`): each segment is
//! checked in whichever version decodes it; the row is proven when every segment holding
//! acknowledged bytes is.
//!
//! Specification: a power cut is one fault; every byte of `f` reads as acknowledged or,
//! inside the cut write, as it wrote it; nothing is LOST; also after a `flush`.

use crate::common;
use common::*;

fn the_image_loses_no_acknowledged_byte(fixture: &str) {
    let tmp = tempfile::tempdir().unwrap();
    unpack_fixture(tmp.path(), fixture);
    let image = tmp.path().join("image");
    let (acked, flight) = image_model(&image, "s31a");
    assert!(
        flight.iter().any(Option::is_some),
        "the image is of a cut write that did not return"
    );
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the power cut");
    let lost = lost_blocks_across_a_flush(&store, &acked, &flight, "before the flush");
    assert!(
        lost.is_empty(),
        "{fixture}: a power cut (one fault) lost acknowledged bytes: blocks at {lost:?}"
    );
}

/// raid5 4+1, the scene's default write (bytes 2296..5437 of `f`) after two acknowledged
/// writes: "power cut before mutating call 11, journal kept to byte 4239 (durable 4239),
/// unsynced writes of OSS [0] dropped". On 2eb0122 every block of home stripe 0 (bytes
/// 0..16384) read LOST, before and after the flush.
#[test]
fn raid5_a_power_cut_leaving_partial_running_parity_loses_no_acknowledged_byte() {
    the_image_loses_no_acknowledged_byte("s31a_raid5_wcl_power_cut_partial_parity_image.tgz");
}

/// raid6 4+2, the same scene: "power cut before mutating call 13, journal kept to byte 4990
/// (durable 4990), unsynced writes of OSS [] dropped": nothing dropped and the whole journal
/// kept, what a kill -9 leaves (a crash ALONE). Session 32 (s32e) laid it on 2eb0122 (the
/// parent of s31a's rule) with a scratch build whose plans ran their steps in one thread in a
/// seeded random merge of the per-OSS step lists (an order the per-OSS threads can give;
/// never plan order), order seed 3: there every block of home stripe 0 read LOST.
#[test]
fn raid6_a_kill_leaving_partial_running_parity_loses_no_acknowledged_byte() {
    the_image_loses_no_acknowledged_byte("s32e_raid6_wcl_power_cut_kill_like_image.tgz");
}

/// raid6 4+2, CI's shape of 0fae08a: "power cut before mutating call 14, journal kept to byte
/// 4990 (durable 4990), unsynced writes of OSS [0] dropped", laid as the one above (order
/// seed 4); on 2eb0122 every block of home stripe 0 read LOST.
#[test]
fn raid6_a_power_cut_leaving_partial_running_parity_loses_no_acknowledged_byte() {
    the_image_loses_no_acknowledged_byte("s32e_raid6_wcl_power_cut_oss_0_dropped_image.tgz");
}

/// dcode p=5, the same scene: "power cut before mutating call 13, journal kept to byte 6849
/// (durable 6849), unsynced writes of OSS [] dropped" (a crash ALONE), laid on 2eb0122 as the
/// raid6 images (order seed 1, the scene's run 6); every block of home stripe 0 read LOST.
#[test]
fn dcode_a_kill_leaving_partial_running_parity_loses_no_acknowledged_byte() {
    the_image_loses_no_acknowledged_byte("s32e_dcode_wcl_power_cut_kill_like_image.tgz");
}
