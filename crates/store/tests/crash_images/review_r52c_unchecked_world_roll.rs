//! Review r52c LOW-2: s52c's roll call in the unchecked-world arm of
//! `stale_beside_cut_write_arms` (`old_kept_unproven_rolled_forward(.., (true, true))`,
//! before the arm's last `Agrees`) had no test of either outcome. One traced cut of each,
//! both in probe cell `rs4k` (r45d's scene on rs 4+3 at 4 KiB elements: a first write over
//! 0..14336, data element 2's OSS loses the acknowledged write 11242..11342 (D2's
//! 3050..3150, a STALE block), the cut write 11192..13288: D2's part 3000..4096, D3's part
//! 0..1000 of block row 0; every cut of `16,SEED,pages`, 198 cuts).
//!
//! How the path is known (session 53, s53b; docs/results/s53-s53b.md): a temporary
//! env-gated eprintln at the call and at each return of `old_kept_unproven_rolled_forward`
//! with `per_page_side` (the unchecked-world arm alone asks it), over probe cells
//! rs8k-s1..8, rs4k-s1..4, ars-s1..4: 199 calls, 196 `AsBefore` (168 "no block of the
//! write kept old over acknowledged bytes", 28 "the kept part's old version proven"; no
//! other refusal reached), 3 `Rolled` (rs4k-s4 #187, rs8k-s6 #246 and #272), none `Lost`.
//! Every `Rolled` row and every "nothing kept old" row has a data block `Held::Failed` (D2
//! or D3 torn); only "old proven" was seen with every data block verified (12 calls).
//! Removed before commit.
//! Each pin: the scene's cut count (so the cut is the traced one), no WRONG byte, and
//! nothing LOST (both read right on 61145b52).

use crate::review_r45d_stale_block_under_a_cut_write::{
    no_cut_wrong_and_lost_at_most, stale_d2_cell_cut,
};

use exaraid_codes::CodeSpec;

/// Probe cell `rs4k-sSEED`'s cut `cut` alone: (cuts, WRONG problems, LOST cuts' blocks).
fn rs4k_cut(seed: u64, cut: usize) -> (usize, Vec<String>, Vec<Vec<usize>>) {
    stale_d2_cell_cut(
        (CodeSpec::rs(4, 3), 4096),
        (11242..11342, 11192..13288),
        (seed, cut),
    )
}

/// The REFUSAL (`KeptUnproven::AsBefore`, the row stays `Agrees`), with no data block
/// failing its checksum: rs4k seed 2, cut #162 (power cut before mutating call 19, out of
/// order). Block row 0 held: D0..D3 verified, P and Q failed (torn), R verified; its one
/// world, checked by no version, {D2 New, D3 Old, P Torn, Q Torn, R Old}: D3 is kept OLD
/// over acknowledged bytes (its part 0..1000, acknowledged 0..2048), and the roll is
/// refused because the old version proves that part (`refuted_offsets` checks every byte
/// of it, nothing refuted: "proven", the trace's reason). So the row is read as it stands:
/// D3's old bytes are the acknowledged ones (D3's OSS lost nothing) and D2 holds the cut
/// write's new part over the stale bytes. Must read every byte right (no WRONG, no LOST).
/// Why: a roll where the old version is proven would serve the cut write's bytes over a
/// block that is not stale: harmless for a cut write's own range, but the rule is
/// "roll only what nothing proves"; and a LOST here would be a loss of a row that reads
/// right. The lead's session-53 guard (no roll beside a `Failed` data block) does not
/// touch this row.
#[test]
fn r52c_rs_4_3_4k_seed_2_cut_162_unchecked_world_roll_refused_old_proven_reads_right() {
    let (cuts, problems, losses) = rs4k_cut(2, 162);
    no_cut_wrong_and_lost_at_most((cuts, &problems, losses.len()), 198, Some(0));
}

/// The ROLL (`KeptUnproven::Rolled`, the row `Located` with D3's fix): rs4k seed 4, cut
/// #187 (power cut before mutating call 20, out of order), one of s52c's saves (LOST
/// before s52c, review r52c). Block row 0 held: D0, D1, D3 verified, D2 FAILED (torn), P
/// failed, Q and R verified; its one world {D2 Torn, D3 Old, P Torn, Q New, R Old}: D3 kept
/// OLD over acknowledged bytes its old version does not prove, its part 0..1000 decodes
/// from the new version (P known per page side by s52c's `new_page_sides`) with a column
/// to spare and holds the write's journaled crc: rolled forward to the cut write's bytes.
/// Must read every byte right (no WRONG, no LOST). No `Rolled` cut of the 16 cells has
/// every data block verified: this row has D2 `Held::Failed`, so the lead's session-53
/// guard (review r52c MEDIUM-1: no roll where a data block of the row is Failed) skips
/// this roll; where that makes the cut LOST, this pin fails and names the trade.
#[test]
fn r52c_rs_4_3_4k_seed_4_cut_187_unchecked_world_roll_rolled_reads_right() {
    let (cuts, problems, losses) = rs4k_cut(4, 187);
    no_cut_wrong_and_lost_at_most((cuts, &problems, losses.len()), 198, Some(0));
}
