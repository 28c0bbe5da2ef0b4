//! R31-1's rest (s31g's open 17 of 116 kill-like cuts): raid6 4+2 WCL, a crash (kill -9:
//! nothing dropped, the whole journal) LATE in a client write into columns 0 and 1 of a
//! cached home stripe, plus ONE flipped bit in column 3's cache block, which no write in
//! flight reached. Within raid6's tolerance (the crash tears nothing; the rot is one
//! erasure), yet on c3ad65a the open records column 3's acknowledged block (file bytes
//! 12288..16384) LOST.
//!
//! Why it was lost: at the cut, data column 1 holds the write's new bytes while P and Q
//! still hold the old parity, so at each offset of column 3's acknowledged bytes version 0
//! (before the write) erases columns 1 and 3, version 1 erases 3, P and Q: neither version
//! has a column left over to check a decode of column 3 (s31g's rule).
//! The rule that reads it (s32b, `versions_decode_per_range`): column 3 never moves, so
//! version 0's decode of it holds in version 1 too; carried there, version 1 decodes P and
//! Q from the four data columns, and the write's journaled parity crcs
//! (`WriteParityCrcs`) check both. With every column of version 1 known or checked, a wrong
//! column beside the rotten one cannot pass (raid6's distance is 3).
//!
//! Fixture `s32b_raid6_wcl_kill_late_cut_cache_rot_image.tgz` (105 KB), laid by
//! `review_s31r_power_cut_delayed_window_and_flip.rs`'s probe on c3ad65a (`S31R_CODE=raid6:4
//! S31R_WRITE=2296+3141 S31R_KEEP=DIR ... probe_kill_cuts_beside_column_3_rot`): put f
//! (32768 bytes), acknowledged writes 100+4096 and 8292+4096, then write 2296+3141 cut
//! "before mutating call 12 (image 12 of 16), journal kept to byte 4990, unsynced writes of
//! OSS [] dropped". The image is the disk WITHOUT the flip; the test flips bit 7 of byte
//! 7791 of `oss-3/objects/18446744073709551615.cache` (R31-1's flip). `s30r-acked.bin`,
//! `s30r-flight.bin`, `s30r-flight-mask.bin`: every byte as acknowledged at the cut, and
//! the byte the write in flight would leave where the mask is 1.
//! On c3ad65a: "blocks at [12288, 12288]" lost (before and after the flush).
//!
//! Fixture `s32b_raid6_wcl_kill_parity_in_pieces_cache_rot_image.tgz`: the same scene one
//! mutating call later (image 13 of 16, laid with s32b's first rule in: it read block 12288
//! LOST). There P is between its piece writes (the running parity is written once per data
//! element the write reaches): its pieces 0..1341 and 2296..4096 are of different
//! versions, so P counts in neither version as a whole and each version erases three
//! columns. The rule: each parity piece is old or new by its journaled crc, known per piece
//! in that version (`known_parts`).

use crate::common;
use common::*;

const FIXTURE: &str = "s32b_raid6_wcl_kill_late_cut_cache_rot_image.tgz";
const FIXTURE_PARITY_IN_PIECES: &str = "s32b_raid6_wcl_kill_parity_in_pieces_cache_rot_image.tgz";
const ROT_FILE: &str = "oss-3/objects/18446744073709551615.cache";
const ROT_BYTE: usize = 7791;
const ROT_BIT: u32 = 7;

fn open_and_read_all(fixture: &str, flip: bool) -> Vec<usize> {
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_fixture(tmp.path(), fixture).join("image");
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
fn raid6_wcl_late_crash_and_one_rotten_cache_block_no_write_reached_loses_no_acknowledged_byte() {
    let lost = open_and_read_all(FIXTURE, true);
    assert!(
        lost.is_empty(),
        "a crash and one rotten bit (two erasures at most on raid6) lost acknowledged bytes: blocks at {lost:?}"
    );
}

#[test]
fn raid6_wcl_crash_between_parity_piece_writes_and_one_rotten_cache_block_loses_no_acknowledged_byte(
) {
    let lost = open_and_read_all(FIXTURE_PARITY_IN_PIECES, true);
    assert!(
        lost.is_empty(),
        "a crash and one rotten bit (two erasures at most on raid6) lost acknowledged bytes: blocks at {lost:?}"
    );
}

#[test]
fn raid6_wcl_crash_alone_between_parity_piece_writes_reads_every_byte() {
    let lost = open_and_read_all(FIXTURE_PARITY_IN_PIECES, false);
    assert!(lost.is_empty(), "the crash alone lost blocks at {lost:?}");
}

#[test]
fn raid6_wcl_late_crash_alone_of_the_same_image_reads_every_byte() {
    let lost = open_and_read_all(FIXTURE, false);
    assert!(lost.is_empty(), "the crash alone lost blocks at {lost:?}");
}
