//! Review r49d (of s49d's `refit_with_torn_parity_in_pieces`): the rule that knows a cut
//! write's TORN running parity block per piece by the write's journaled new or OLD crc
//! (s42a's `old_block_crcs`: the crc of the bytes the write READ) beside a lost write on a
//! running PARITY OSS (review r44a LOW-4's caveat: the old crc is then of STALE bytes, a
//! piece holding them is "known old"). s49d's own tests pin power cuts ALONE; none had the
//! rule run beside a stale element. These sweeps (review r45d's scene, the lost write on
//! the OSS of parity column `col` over file bytes 20400..20500, element 2's 4016..4116, then
//! the cut write 19384..25576, every cut of `16,SEED,pages`) must read no WRONG byte, and
//! the rows the rule proves there are no longer LOST: traced (env-gated eprintln, removed),
//! every refit in them came from an unchecked world (`fit == None`), never a refuted one.
//! Counts (cuts / WRONG / LOST cuts), 0fa3470a -> 219ca943:
//! - raid6 8 KiB, Q (col 5) stale, seed 1: 234/0/59 -> 234/0/55 (saved #168 #200 #202 #218)
//! - raid6 8 KiB, P (col 4) stale, seed 2: 230/0/46 -> 230/0/43 (saved #212 #218 #220)
//! - rs 4+3 8 KiB, R (col 6) stale, seed 2: 294/0/85 -> 294/0/81 (saved #225 #259 #283 #289)

use crate::common::*;
use crate::powercut::OutOfOrder;
use crate::review_r45d_stale_block_under_a_cut_write::stale_block_under_the_cut_write_in_col;

use exaraid_codes::CodeSpec;

fn stale_parity_sweep(code: CodeSpec, col: usize, seed: u64, lost_cuts_at_most: usize) {
    let e = 2 * UNIT;
    let (points, problems, losses) = stale_block_under_the_cut_write_in_col(
        code,
        e,
        7 * e / 2,
        2,
        Some(col),
        20400..20500,
        19384..25576,
        true,
        Some(OutOfOrder {
            subsets_per_image: 16,
            seed,
            pages: true,
            only: false,
        }),
    );
    assert!(points > 100, "the sweep ran: {points} cuts");
    assert!(
        problems.is_empty(),
        "{} problems, first: {:?}",
        problems.len(),
        problems.first()
    );
    assert!(
        losses.len() <= lost_cuts_at_most,
        "{} of {points} cuts LOST (at most {lost_cuts_at_most} since s49d)",
        losses.len()
    );
}

#[test]
fn raid6_8k_stale_q_beside_torn_parity_known_per_piece_reads_right() {
    stale_parity_sweep(CodeSpec::raid6(4), 5, 1, 55);
}

#[test]
fn raid6_8k_stale_p_beside_torn_parity_known_per_piece_reads_right() {
    stale_parity_sweep(CodeSpec::raid6(4), 4, 2, 43);
}

#[test]
fn rs_4_3_8k_stale_r_beside_torn_parity_known_per_piece_reads_right() {
    stale_parity_sweep(CodeSpec::rs(4, 3), 6, 2, 81);
}

/// Review r49d HIGH-1, found beside s49d (NOT caused by it: the same on 0fa3470a and
/// 219ca943; closed in session 50, s50e): raid6 4 KiB, data element 3's OSS loses an
/// acknowledged write over file bytes 13000..13100 (element 3's 712..812, INSIDE the cut
/// write 11192..13288's range there, element 3's 0..1000), every cut of `16,SEED,pages`.
/// Each acknowledged byte must read its last acknowledged value or be named LOST; inside
/// the cut write's range the write's own bytes are right too (a cut write may land per
/// block), the stale 0xf3 never. And no more LOST cuts than before the mend: the roll
/// replaces only a decision "as before" that kept the stale block.
///
/// Seed 2 cut #132 (power cut before mutating call 16; OSS 3's calls 10 and 12 dropped
/// whole, OSS 4's 13 and 14 in pages) read "'f' WRONG byte 13000: 0xf3, acknowledged
/// 0xf1" on efa366f8. Traced (s50d, docs/results/s50-s50d.md): D3 verified and STALE, told
/// `Old` (the write's crc does not hold on it), D2 torn (old on 0..4084 by its page-cut
/// record), P torn (its new piece 0..1000 landed), Q `Partial` (new at 0..1000): no old
/// version has a column to spare at 0..1000, D2's torn block takes the `confirms` arm,
/// `every_world_old_refuted` refutes nothing and the row was decided as before. The new
/// version proves D3's part there (D2 outside its range, P and Q by their landed pieces'
/// crcs: a column to spare, and the write's crc of the part holds): since s50e
/// (`old_kept_unproven`) the part is rolled forward, the write's bytes read; where the
/// roll is not proven the row is still decided as before (s50d's first rule named it
/// LOST and cost 16 crash_images tests). 142 cuts: 1 WRONG, 23 LOST on efa366f8; none
/// WRONG, 23 LOST since.
#[test]
fn raid6_4k_stale_element_3_under_the_cut_write_seed_2_reads_no_wrong_byte() {
    stale_element_3_under_the_cut_write(2, 23);
}

/// The same scene at seed 7: cut #128 (OSS 3's calls dropped whole, P `New`, Q torn with
/// its old crc holding on 3000..4096 only) read "'f' WRONG byte 13000: 0xf3" on efa366f8
/// by the same `confirms` arm (traced, s50d), rolled forward since s50e. 142 cuts: 1 WRONG,
/// 25 LOST on efa366f8; none WRONG, 25 LOST since. Seeds 9 (#138), 11 (#123) and 12 (#85,
/// #133) read WRONG too on efa366f8 and none since (s50e's table, docs/results/s50-s50e.md;
/// not pinned: each seed is a sweep of its own).
#[test]
fn raid6_4k_stale_element_3_under_the_cut_write_seed_7_reads_no_wrong_byte() {
    stale_element_3_under_the_cut_write(7, 25);
}

/// r49d HIGH-1's scene at `seed`: every cut of 142 read right or LOST on record, none
/// WRONG, at most `lost_cuts_at_most` cuts LOST (the count on efa366f8, before the roll).
fn stale_element_3_under_the_cut_write(seed: u64, lost_cuts_at_most: usize) {
    let e = UNIT;
    let (points, problems, losses) = stale_block_under_the_cut_write_in_col(
        CodeSpec::raid6(4),
        e,
        7 * e / 2,
        2,
        Some(3),
        13000..13100,
        11192..13288,
        true,
        Some(OutOfOrder {
            subsets_per_image: 16,
            seed,
            pages: true,
            only: false,
        }),
    );
    assert_eq!(points, 142, "the sweep ran every cut");
    assert!(
        problems.is_empty(),
        "{} problems, first: {:?}",
        problems.len(),
        problems.first()
    );
    assert!(
        losses.len() <= lost_cuts_at_most,
        "{} of {points} cuts LOST (at most {lost_cuts_at_most}, as on efa366f8)",
        losses.len()
    );
}
