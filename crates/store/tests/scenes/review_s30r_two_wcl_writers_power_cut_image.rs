//! Review s30r R30-2 (fixed in session 31, s31e): a POWER CUT (not a kill) with two WCL API writers of one `Store`
//! in flight records acknowledged bytes LOST: the session-29 OPEN bullet's suspected case
//! ("a plan leaves its stripes before its own sync, so after a power cut ... recovery's
//! `finished_by_later` skips checking the cut plan's pieces there"), now with a scene. Not
//! wrong bytes here: a loss.
//!
//! Found by `review_s30r_power_cut_several_wcl_writers.rs`'s probe (`S30R_CODE=rdp:5
//! S30R_SEEDS=5`, two threads, six writes each, disjoint ranges of home stripe 0; the threads'
//! interleaving varies run to run, so the image was kept with `S30R_KEEP`). rdp p=5 (5 OSSs),
//! 4 KiB unit, WCL. The image (`fixtures/s30r_rdp_two_wcl_writers_power_cut_image.tgz`, the
//! power cut already laid): "power cut before mutating call 62, journal kept to byte 10485
//! (durable 10485), unsynced writes of OSS [0, 1] dropped". Its journal after the put and two
//! acknowledged writes (100+4096, 8292+4096): plan 7 (write 1924+4722, thread 0) has its
//! input, `WriteCrcs` and `WriteParityCrcs` but no `Durable`; plan 8 (write 8833+7502, thread
//! 1, the same home stripe) is `Durable` (its OSS syncs done, plan 7's cache blocks on OSS 0
//! and 1 not synced by anyone: dropped). On 6b51ed6 every 4 KiB block of home stripe 0
//! (file bytes 0..16384) reads LOST, before and after a `flush`; the first message: "file
//! 'f' bytes 100..4096 (OSS 0, its WCL cache stripe's running parity disagrees with its data
//! and no single stale column explains it)". Bytes 100..1924 there are acknowledged (the
//! write of 100+4096) and no write in flight covers them.
//!
//! The image carries what the probe knew at the cut: `s30r-acked.bin` (every byte of `f` as
//! acknowledged then), `s30r-flight.bin` and `s30r-flight-mask.bin` (the byte a write in
//! flight would leave, where mask is 1). Specification: a power cut is one fault; every
//! byte reads as acknowledged or, inside a write in flight, as it wrote it; nothing is LOST;
//! also after a `flush`.
//!
//! Session 31 (s31e): the open proves plan 7's cache blocks on the OSSs no later durable
//! plan synced by the crcs plan 7 journaled (`recovery/dropped_cut_blocks.rs`): the two
//! that do not match are decoded from the running parity, proven by those crcs and by the
//! bytes beside them, and written back. Without that step this test fails as on 6b51ed6.

use crate::common;
use common::*;

#[test]
fn a_power_cut_of_two_wcl_rdp_writers_loses_no_acknowledged_byte() {
    let tmp = tempfile::tempdir().unwrap();
    unpack_fixture(tmp.path(), "s30r_rdp_two_wcl_writers_power_cut_image.tgz");
    let image = tmp.path().join("image");
    let (acked, flight) = image_model(&image, "s30r");
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the power cut");
    let lost = lost_blocks_across_a_flush(&store, &acked, &flight, "before the settle");
    assert!(
        lost.is_empty(),
        "a power cut (one fault) lost acknowledged bytes: blocks at {lost:?}"
    );
}
