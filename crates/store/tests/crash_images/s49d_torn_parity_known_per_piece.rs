//! A power cut ALONE (no second fault) that writes pages back out of order, tearing BOTH
//! (raid6) or all three (rs 4+3) running parity blocks of a cut overwrite, must lose no
//! acknowledged byte (session 49, s49d; docs/store.md "Limits": the blind-row trade of s34a).
//!
//! The scene is s35f's probe in its overwrite variant (s43a, s47c): a first write of 3.5
//! elements acknowledged, then the `cross` write (element 2's tail and element 3's head) cut
//! by every power cut of `16,SEED,pages`; nothing stale, no OSS failed. Each pinned cut tears
//! every running parity block of block row 0 (its checksum page and payload pages of two
//! versions) while each of the write's pieces in them (0..1000 and 3000..4096) holds, byte
//! for byte, its new crc or the crc of the bytes the write read there (s42a's
//! `old_block_crcs`). Counted blind, the parity columns used up the tolerance, no world was
//! checked and the whole block row, acknowledged bytes of elements 0 and 1 the write never
//! touched among them, was named LOST on 0fa3470a. Known per piece
//! (`stale_beside_cut/torn_parity_in_pieces.rs`), every segment of the row is checked in
//! some version: the crash alone reads right. What each OSS holds per cut: the traces in
//! docs/results/s49-s49d.md.

use crate::common::*;
use crate::powercut;
use crate::stale_cut;

use exaraid_codes::CodeSpec;

/// The cut write, file offsets: element 2's bytes 3000..8192 and element 3's 0..1000 at
/// 8 KiB elements (s43a's `cross`).
const CROSS_8K: std::ops::Range<usize> = 19384..25576;
/// The same at 4 KiB elements: element 2's 3000..4096, element 3's 0..1000.
const CROSS_4K: std::ops::Range<usize> = 11192..13288;
/// The first write's bytes per 4 KiB of element (s35f's `OVERWRITE_FIRST_WRITE_BYTES`).
const FIRST_WRITE_BYTES_PER_UNIT: usize = 7 * UNIT / 2;

/// Cut `cut` of the scene at `element_bytes` (`write`, `16,seed,pages`): no problem, and no
/// acknowledged block named LOST.
fn cut_of_an_overwrite_torn_in_pages_loses_nothing(
    code: CodeSpec,
    element_bytes: usize,
    write: std::ops::Range<usize>,
    seed: u64,
    cut: usize,
) {
    let (points, problems, losses) =
        stale_cut::power_cut_client_write_beside_stale_bytes_after_first_write_problems_and_losses(
            code,
            stale_cut::Stale {
                element_bytes,
                lost_write: 0..2 * element_bytes,
            },
            (&[], &[]),
            stale_cut::Cuts::Nth(cut),
            write,
            true,
            false,
            FIRST_WRITE_BYTES_PER_UNIT * element_bytes / UNIT,
            Some(powercut::OutOfOrder {
                subsets_per_image: 16,
                seed,
                pages: true,
                only: false,
            }),
        );
    assert_eq!(points, 1, "the one cut pinned");
    assert!(problems.is_empty(), "{:?}", problems.first());
    assert!(
        losses.is_empty(),
        "a power cut alone: blocks {losses:?} LOST"
    );
}

/// raid6 8 KiB, seed 1, cut #107 (power cut before call 15): P's two pieces hold their new
/// crcs, Q's two their old ones, both fail their checksums; elements 2 and 3 read verified
/// (element 2 new, element 3 old). Per piece, the old version checks 0..1000 (Q old, P
/// erased), the new one 3000..4096 (P new, Q erased), and 1000..3000, which the write never
/// changed, has both parities to spare. LOST on 0fa3470a ("blocks [[0, 8192, 16384,
/// 24576]]").
#[test]
fn raid6_8k_seed_1_cut_107_p_new_and_q_old_per_piece_both_torn_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), 2 * UNIT, CROSS_8K, 1, 107);
}

/// raid6 8 KiB, seed 1, cut #110: element 2 old (verified), element 3 whole new under its
/// old checksum (`cut_block_whole_new`), P's pieces new, Q's first piece new and its second
/// old. The new version decodes element 2's part through P and checks it by the write's
/// crc. LOST on 0fa3470a.
#[test]
fn raid6_8k_seed_1_cut_110_q_new_and_old_per_piece_beside_a_whole_new_block_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), 2 * UNIT, CROSS_8K, 1, 110);
}

/// raid6 8 KiB, seed 2, cut #113: P's second piece (3000..4096) torn across its slot's page
/// boundary (neither crc: P stays unknown), Q's pieces new then old, element 2 old, element 3
/// whole new under its old checksum. The old version at 3000..4096 knows element 3 there
/// (the write did not reach it; its block is the write's by the journaled crc) and Q: P is
/// the one erasure, Q checks element 2's old bytes kept. LOST on 0fa3470a.
#[test]
fn raid6_8k_seed_2_cut_113_p_torn_in_a_piece_beside_q_known_per_piece_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), 2 * UNIT, CROSS_8K, 2, 113);
}

/// raid6 8 KiB, seed 4, cut #100: P's pieces new then old, Q's both old, element 2 old and
/// element 3 new (both read verified). LOST on 0fa3470a.
#[test]
fn raid6_8k_seed_4_cut_100_p_new_and_old_per_piece_q_old_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), 2 * UNIT, CROSS_8K, 4, 100);
}

/// rs 4+3 8 KiB, seed 4, cut #164: P's pieces both old, Q's first old and its second torn
/// across the page boundary (unknown), R's new then old; element 2 old, element 3 torn in
/// pages (whole new under its old checksum). Two parities known per piece leave the row
/// a column to spare. LOST on
/// 0fa3470a.
#[test]
fn rs_4_3_8k_seed_4_cut_164_two_of_three_torn_parities_known_per_piece_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::rs(4, 3), 2 * UNIT, CROSS_8K, 4, 164);
}

/// raid6 4 KiB, seed 1, cut #107 (power cut before call 15): elements 2 and 3 read
/// verified, both OLD (element 3 at 0..1000 over acknowledged bytes); P's first piece new,
/// its second (3000..4096) torn across its slot's page boundary at 4084 (neither crc); Q's
/// first piece new, its second old. 1000..4096 is proven (the old version there erases P
/// only), but at 0..1000 both parities hold the NEW bytes: the old version erases P and Q
/// (nothing to spare), and the new one, which checks the row there by element 3's decode
/// and the write's crc, does not know element 3's OLD bytes that go home
/// (`segments_proven_across_versions`: a kept old block must be known where it is proven).
/// Nothing on record checks those old bytes but their own checksum and the page-cut
/// record's old crcs, which a stale block the write read would hold too. OPEN s49d: a
/// roll forward of element 3's part to the new version (decoded and checked by the
/// write's crc) would read right; s48a's roll forward was withdrawn for its witness gate.
#[test]
#[ignore = "OPEN s49d: raid6 4 KiB seed 1 #107, element 3 kept old at 0..1000 where both parities are new: no check of its old bytes (docs/results/s49-s49d.md)"]
fn raid6_4k_seed_1_cut_107_an_old_block_under_two_new_parities_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), UNIT, CROSS_4K, 1, 107);
}

/// raid6 4 KiB, seed 1, cut #103: P's first piece old and its second torn across the page
/// boundary (unknown), Q's both pieces old, element 3 whole new under its old checksum.
/// Q known per piece leaves each segment a column to spare. LOST on 0fa3470a.
#[test]
fn raid6_4k_seed_1_cut_103_q_old_per_piece_beside_p_torn_in_a_piece_loses_nothing() {
    cut_of_an_overwrite_torn_in_pages_loses_nothing(CodeSpec::raid6(4), UNIT, CROSS_4K, 1, 103);
}
