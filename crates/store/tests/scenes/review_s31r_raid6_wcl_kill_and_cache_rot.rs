//! Review s31r R31-1 (fixed by s31g): raid6 WCL, a crash (kill -9: nothing dropped, the whole journal)
//! during a client write into columns 0 and 1 of a cached home stripe, and ONE flipped bit
//! in column 3's cache block, which no write in flight reached: the open records column 3's
//! acknowledged block (file bytes 12288..16384) LOST. raid6 tolerates two erasures; the cut
//! write's data and parity blocks are each told by their journaled crcs (`WriteCrcs`,
//! `WriteParityCrcs`), so the rotten block is the one unknown and a decode its stored
//! checksum proves should read it.
//!
//! Found by `review_s31r_power_cut_delayed_window_and_flip.rs`'s probe (`S31R_PATH=wcl
//! S31R_CODE=raid6:4 S31R_THREADS=1 S31R_SEEDS=1 S31R_FLIP=1 S31R_KILL_ONLY=1
//! S31R_KEEP=DIR`): put f (32768 bytes), acknowledged writes 100+4096 and 8292+4096 (home
//! stripe 0 cached), then write 2296+3141 cut "before mutating call 11, journal kept to
//! byte 4990 (durable 4990), unsynced writes of OSS [] dropped" (a kill-like cut). The image
//! (`fixtures/s31r_raid6_wcl_kill_cache_rot_image.tgz`) is that crash's disk WITHOUT the
//! flip; the test flips bit 7 of byte 7791 of `oss-3/objects/18446744073709551615.cache`
//! (the cache file of OSS 3: column 3's cache block of home stripe 0, bytes the write of
//! 8292+4096 and the put acknowledged). `s30r-acked.bin`, `s30r-flight.bin`,
//! `s30r-flight-mask.bin`: every byte of `f` as acknowledged at the cut, and the byte the
//! write in flight would leave where the mask is 1 (the probe's file names).
//!
//! Fixed by s31g (`versions_decode_per_range`): the rot lies in the block's bytes beside
//! the acknowledged 0..100 (what the write of 8292+4096 merged in), so no decode matched the
//! stored checksum; per offset, the columns the cut write does not reach there read the
//! same in both versions and leave a column over to check the decode of the old version.
//! On 2eb0122: "blocks at [12288] LOST before the settle: ... their 4 KiB block failed its
//! checksum (rotten, or torn by a crash that cut the move) and no decode from parity was
//! confirmed by it". The control (the same image, no flip) reads every byte.

use crate::common;
use common::*;

const ROT_FILE: &str = "oss-3/objects/18446744073709551615.cache";
const ROT_BYTE: usize = 7791;
const ROT_BIT: u32 = 7;

fn open_and_read_all(flip: bool) -> Vec<usize> {
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_fixture(tmp.path(), "s31r_raid6_wcl_kill_cache_rot_image.tgz").join("image");
    if flip {
        let f = image.join(ROT_FILE);
        let mut b = std::fs::read(&f).unwrap();
        assert!(b[ROT_BYTE] != 0, "the flip lands on a byte the block holds");
        b[ROT_BYTE] ^= 1 << ROT_BIT;
        std::fs::write(&f, &b).unwrap();
    }
    let (acked, flight) = image_model(&image, "s30r");
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the crash");
    lost_blocks_across_a_flush(&store, &acked, &flight, "before the settle")
}

#[test]
fn raid6_wcl_crash_and_one_rotten_cache_block_loses_no_acknowledged_byte() {
    let lost = open_and_read_all(true);
    assert!(
        lost.is_empty(),
        "a crash and one rotten bit (two erasures at most on raid6) lost acknowledged bytes: blocks at {lost:?}"
    );
}

#[test]
fn raid6_wcl_crash_alone_of_the_same_image_reads_every_byte() {
    let lost = open_and_read_all(false);
    assert!(lost.is_empty(), "the crash alone lost blocks at {lost:?}");
}
