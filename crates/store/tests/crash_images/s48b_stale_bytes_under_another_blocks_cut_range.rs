//! Session 48 (s48b): review r45d's scene (a WCL store; data element 2's OSS loses an
//! acknowledged cache write over file bytes `lost`, its block left STALE under a valid
//! checksum; then a client write over those bytes cut by every power cut of `16,1,pages`)
//! in the shapes s47b left WRONG: the stale bytes lie under the write range of ANOTHER
//! in-flight block of the row (the other data block's, or every torn running parity
//! block's), so the old version of the row, those blocks erased there, had no column to
//! spare at the stale offsets and the stale block was kept as the write's old block.
//! Each acknowledged byte must read its last acknowledged value or be named LOST: a cut
//! write may land per block, so inside its range the write's bytes are right too.
//!
//! A torn DATA block of the write known in the old version on the sides of its page
//! boundary where its page-cut record's OLD crc holds (s47c's `torn_block_in_pages`, proven
//! byte for byte) leaves the old version a column to spare at the stale offsets where the
//! torn data block was the second erasure there: the stale block is refuted and the row
//! LOST on record (`stale_beside_cut/old_in_pages.rs`). Where the other erasures there are
//! torn RUNNING PARITY blocks, s48b had no crc of their old bytes on record (OPEN then);
//! since session 49 (s49a) the write journals, per running parity piece, the crc of its
//! old bytes on each side of a page boundary inside its part of a block
//! (`ParityPieceCrcs::old_page_sides`), and a torn parity block is known in the old version
//! where a part's bytes as they stand hold its old crc (`torn_parity_parts_old`): the
//! four shapes below pinned OPEN by s48b pass. Traces and cells: docs/results/s48-s48b.md,
//! docs/results/s49-s49a.md.

use crate::review_r45d_stale_block_under_a_cut_write::stale_bytes_under_a_cut_write_read_no_wrong_byte_of;

use exaraid_codes::CodeSpec;

const UNIT: usize = crate::common::UNIT;

/// raid6:4 at 8 KiB, the cut write 12000..24000 (element 1's 3808..8192, element 2's
/// 0..7616), the stale bytes 20400..20500 (element 2's 4016..4116), seed 1. 1 of 176 cuts
/// reads WRONG on 3ab4cbf7 and on s48b (#170, "'f' WRONG byte 20400"): row 0 holds D1
/// torn but whole new by its crc (its part 3808..4096), D2 STALE (`Old`), P torn (its piece
/// 0..3808 landed, 3808..4096 not; its page boundary at 4072, inside that piece), Q old; no
/// world checked, and at the stale offsets 4016..4096, under D1's write range, D1's old
/// bytes and P are both unknown: no column to spare on raid6. P's side past 4072 did not
/// land (its piece across the boundary failed, the side before it is new), but on s48b
/// nothing on record proved those bytes old. Since s49a the piece's old crc of its side
/// past 4072 (`old_page_sides`) can prove P old at 4072..4096: a column is spare there and
/// the stale D2 is refuted, the row LOST on record (0 WRONG; fails on 0fa3470a: "1 WRONG:
/// Raid6: cut #170").
#[test]
fn raid6_8k_stale_bytes_under_the_other_data_blocks_cut_range_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::raid6(4),
        2 * UNIT,
        20400..20500,
        12000..24000,
        1,
        176,
    );
}

/// The same scene at seed 2: 1 of 176 cuts WRONG on 3ab4cbf7; since s48b 0 (the torn data
/// block's page-cut record makes it known at the stale offsets in the old version).
#[test]
fn raid6_8k_stale_bytes_under_the_other_data_blocks_cut_range_seed_2_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::raid6(4),
        2 * UNIT,
        20400..20500,
        12000..24000,
        2,
        176,
    );
}

/// rs 4+3 at 4 KiB, the lost write over 11242..11342 (element 2's 3050..3150), the cut
/// write 11192..13288 (element 2's 3000..4096, element 3's 0..1000), seed 2. On 3ab4cbf7
/// 1 of 198 cuts read WRONG (#183, byte 11242): row 0 holds D2 STALE and D3 `Old`, P torn
/// (piece 0..1000 landed, 3000..4096 not), Q new, R torn (no piece landed); at 3000..4096
/// the old version erased P, Q (new) and R: three, the tolerance, nothing to spare. Their
/// old bytes there were on no record (OPEN on s48b); since s49a a torn parity block's
/// parts whose bytes hold their journaled old crc (per side of a page boundary) are known
/// old, which leaves a column to spare there (0 WRONG; fails on 0fa3470a: "1 WRONG: Rs:
/// cut #183").
#[test]
fn rs_4_3_4k_stale_bytes_under_torn_parity_cut_ranges_seed_2_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::rs(4, 3),
        UNIT,
        11242..11342,
        11192..13288,
        2,
        198,
    );
}

/// The same scene at seed 3: 1 of 198 cuts WRONG on 3ab4cbf7 and on 0fa3470a (#183 as
/// well); 0 since s49a.
#[test]
fn rs_4_3_4k_stale_bytes_under_torn_parity_cut_ranges_seed_3_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::rs(4, 3),
        UNIT,
        11242..11342,
        11192..13288,
        3,
        198,
    );
}

/// rs 4+3 at 8 KiB, the lost write over 20400..20500, the cut write 19384..25576, seed 4.
/// On 3ab4cbf7 1 of 280 cuts read WRONG (#263, byte 20400): row 0 holds D2 STALE (`Old`),
/// D3 torn (acknowledged 0..4096, its write 0..1000), P, Q and R torn; the arm that
/// confirms a torn block's decode by its stored checksum kept the stale block. D3 is known
/// old since s48b (its page-cut record), but P, Q and R are torn with their pieces
/// 3000..4096 across their page boundary (4072): at the stale offsets three erasures,
/// the tolerance (OPEN on s48b). Since s49a their side past 4072 is known old where its
/// journaled old crc (`old_page_sides`) holds: 0 WRONG (fails on 0fa3470a: "1 WRONG: Rs:
/// cut #263").
#[test]
fn rs_4_3_8k_stale_bytes_under_torn_parity_cut_ranges_seed_4_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::rs(4, 3),
        2 * UNIT,
        20400..20500,
        19384..25576,
        4,
        280,
    );
}

/// Review r46b's shape (raid6:4 at 8 KiB, the cut write 15384..21576 over the end of data
/// element 1 and the start of element 2, the stale bytes 20400..20500) at seed 2: 3 of 226
/// cuts read WRONG on 3ab4cbf7 (the torn data block D1 with acknowledged bytes over the
/// whole row and P torn left no column to spare at the stale offsets). Seed 1 is
/// `review_r45d_..._over_elements_1_and_2_read_no_wrong_byte`.
#[test]
fn raid6_8k_stale_bytes_under_a_cut_write_over_elements_1_and_2_seed_2_read_no_wrong_byte() {
    stale_bytes_under_a_cut_write_read_no_wrong_byte_of(
        CodeSpec::raid6(4),
        2 * UNIT,
        20400..20500,
        15384..21576,
        2,
        226,
    );
}
