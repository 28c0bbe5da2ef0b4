//! A data block of the cut write kept OLD over acknowledged bytes that nothing proves old:
//! rolled forward where its part of the write is proven new byte for byte, else decided
//! as before (session 50: s50d's trace, s50e's roll-only rule; review r49d HIGH-1).
//!
//! A block that verifies and does not hold the write's journaled crc over its part is told
//! `Old` (`told_state`): it holds the bytes the write READ. Where its OSS lost an
//! acknowledged write (a stale block: old bytes under a valid checksum) those bytes are
//! not the last acknowledged ones, and the write's own records cannot tell (its page-cut
//! "old" crcs are of the slot as the write read it, stale too: r44a LOW-4). Only the
//! running parity from before the write (a column to spare at those offsets) or the new
//! version (the write is cut, unacknowledged, and may land per block) decides such bytes.
//!
//! Traced (docs/results/s50-s50d.md): raid6 4 KiB, element 3's lost write 13000+100
//! INSIDE the cut write 11192+2096 (element 3's 712..812 under its part 0..1000), six
//! WRONG cuts over seeds 1..12 (seed 2 #132, seed 7 #128, seed 9 #138, seed 11 #123,
//! seed 12 #85 and #133). Every one leaves D3 `Old` (stale, verified: OSS 3's two calls
//! dropped whole), D2 torn (its page-cut record proves 0..4084 old), and at D3's part one
//! running parity column new or torn over it and the other erased or new there too: no
//! version of the old row checks 0..1000. Two paths decided the row "as before":
//! - `confirms` (D2's decode confirmed by its stored checksum) when P or Q is torn:
//!   `every_world_old_refuted` refutes nothing (no column to spare at 0..1000), `Agrees`;
//! - a fitted world (P `Partial`, Q old): `old_kept_proven_or_rolled_forward` finds the
//!   old version unchecked at the part and no whole new decode: `AsBefore`.
//!
//! Here such a world's old version (as the refutations build it: `old_in_pieces`,
//! `old_in_pages`) is proven where it checks every acknowledged byte of the kept part
//! (`refuted_offsets`: a segment with a column to spare, or a told crc that holds) and is
//! refuted nowhere. Where it is not, and the row has one world, the kept part is rolled
//! forward where its NEW bytes decode from the new version with the write's torn blocks
//! known per page and per piece by the write's crcs (`know_torn_blocks_in_pages`,
//! `know_torn_parity_in_pieces`), agree with every position known there and hold the
//! write's journaled crc of the part, and the block's acknowledged bytes outside the part
//! are checked by a version that knows them (review r48a HIGH's gate). In the traced cuts
//! the new version knows D2 outside its range, P and Q by their landed pieces' crcs, and
//! decodes D3's part with a column to spare: the cut write's bytes, proven by its crc.
//!
//! Where the roll is not proven the row is decided exactly as before: s50d's first rule
//! named such rows LOST and lost rows 16 crash_images tests read right (raid5, beside a
//! failed OSS, power cuts alone: the old version has no column to spare at the kept part
//! there, merely unchecked, and the caller's later decisions prove the row). But not
//! where the one FITTED world's old version is REFUTED by a decode (session 51, s51a;
//! review r50e HIGH-1, raid6 8 KiB with D2 and D3 both stale, seed 6 cut #85: refuted
//! outside the kept part, so the roll is refused, and "as before" read 'f' WRONG byte
//! 24700): that world is the row and some block it keeps old is not the old block, so the
//! row's unproven blocks are LOST on record: since session 52 (s52d, review r51a
//! MEDIUM-1) only the blocks of the write and those no version of the row proves
//! (`unproven_blocks_of_refuted_row`), not D0's and D1's, which the checks prove. A stale
//! block kept old where neither version proves its part and nothing refutes it stays
//! OPEN (docs/store.md, Limits).

use super::*;

/// What `old_kept_unproven_rolled_forward` decides for the row.
pub(super) enum KeptUnproven {
    /// The kept parts rolled forward: `(pos, block bytes)`, the part new, the rest as it
    /// stands (`kept_old_rolled_forward`).
    Rolled(Vec<(Pos, Vec<u8>)>),
    /// The row's one world is the row, its old version refuted, the roll not proven: the
    /// acknowledged cached bytes of these data blocks of the row LOST on record, every
    /// block the row's checks prove spared (`unproven_blocks_of_refuted_row`; the caller
    /// names them in `CutRowStale::AgreesBeside`). Never empty: the kept-old blocks are in
    /// it.
    Lost(Vec<Pos>),
    /// Decided as before.
    AsBefore,
}

impl Store {
    /// Where `stale_beside_cut_write` would decide the row as before (the `confirms` arm
    /// after `every_world_old_refuted`, or a fitted world `old_kept_proven_or_rolled_forward`
    /// leaves `AsBefore`): `Rolled`, the fixes rolling the kept parts forward
    /// (`kept_old_rolled_forward`) where `worlds` (assignments) is the row's one world, it
    /// keeps a data block of the write OLD over acknowledged bytes and its old version does
    /// not prove those parts. With `refuted_not_the_row` (the `confirms` arm), a refuted
    /// world is not the row: `AsBefore`. Without it (the fitted arm: the one world IS the
    /// row) a refuted old version whose roll is not proven is `Lost` (session 51, s51a).
    /// `AsBefore` otherwise: decided as before.
    ///
    /// `per_page_side` (s52c): the roll's new version also knows a torn running parity
    /// piece per side of its page boundary by the write's side crcs
    /// (`torn_parity_in_pieces`). Asked by every arm since session 53: s52c's trial of it in
    /// the `confirms` arm rolled rows that then read LOST where they read right before
    /// (rs8k-s3 #244, s8 #248: a torn data block of the row decided after the roll from the
    /// rolled row), which the per-block pass now also decides from the row as it stood
    /// (`decide_rotten_cache_block`'s third view, docs/results/s53-lead.md).
    pub(super) fn old_kept_unproven_rolled_forward(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        worlds: &[&BTreeMap<Pos, BlockVersion>],
        (refuted_not_the_row, per_page_side): (bool, bool),
    ) -> KeptUnproven {
        assert!(
            worlds.len() <= 1 << ASSIGNED_BLOCKS_MAX,
            "the worlds are bounded"
        );
        // Which world is the row is not known where several are listed: which bytes to
        // roll is not either (decided as before, a limit).
        let [assigned] = worlds else {
            return KeptUnproven::AsBefore;
        };
        // Not beside a column without bytes (a failed OSS), as s50a's roll: there the new
        // version decodes the part with no column to spare (the dead column and the block
        // erased), and the rule changed rows the scenes pin as LOST
        // (`wcl_dead_disk_beside_cut_write`: raid6 and rs 4+2, data old, P landed, Q with
        // its new payload under its old checksum read right instead). Decided as before
        // there until such a pin is rewritten on purpose (s50e's report).
        if (v.held.values()).any(|h| h[v.i] == Held::Absent) {
            return KeptUnproven::AsBefore;
        }
        if !self.old_kept_over_acked(v, crcs, assigned) {
            return KeptUnproven::AsBefore;
        }
        let w = self.cut_row_versions(v, crcs, assigned);
        let olds = [
            self.old_in_pieces(v, crcs, assigned, &w),
            self.old_known(v, crcs, Some(plan), assigned, &w),
        ];
        let checks: Vec<(Vec<bool>, Vec<bool>)> =
            olds.iter().map(|o| self.refuted_offsets(o)).collect();
        let refuted = checks.iter().any(|(wrong, _)| wrong.iter().any(|&b| b));
        if refuted && refuted_not_the_row {
            return KeptUnproven::AsBefore;
        }
        let parts = self.kept_old_acked_parts(v, crcs, assigned);
        assert!(
            !parts.is_empty(),
            "a world keeping a block old over acked bytes"
        );
        let proven = !refuted
            && (checks.iter()).any(|(_, checked)| {
                (parts.iter()).all(|&(_, (x, y))| checked[x..y].iter().all(|&b| b))
            });
        if proven {
            return KeptUnproven::AsBefore;
        }
        if let Some(fixes) = self.kept_old_rolled_forward(v, crcs, plan, assigned, per_page_side) {
            assert!(
                fixes.len() <= self.layout.geometry().data_pos.len(),
                "one fix per data block"
            );
            return KeptUnproven::Rolled(fixes);
        }
        // The roll is not proven. Where the row's one world's old version is refuted by a
        // decode (a segment with a column to spare, or a told crc, disagrees: some block
        // it keeps old is not the old block, a STALE block of a lost write) and the world
        // is the row (the fitted arm), the kept part holds bytes nothing proves and a
        // version of the row proves wrong beside them: LOST on record, with every block
        // the row's checks cannot prove (`unproven_blocks_of_refuted_row`; review r50e
        // HIGH-1: raid6 8 KiB, D2 and D3 both stale, seed 6 cut #85, row 0, the one world
        // {D2 Torn, D3 Old, P Partial, Q Old}: `old_in_pages` knows torn D2 old per page
        // with its stale bytes 4016..4072 and is refuted over the segment 0..4072, outside
        // D3's kept part 0..1000 too, so the r48a gate refuses the roll, and "as before"
        // kept stale D3: 'f' WRONG byte 24700; s51a's report has the trace). A crash
        // ALONE (no stale block) refutes no old version, so the rows s46b's and s50d's
        // first rules lost (fitted or confirmed worlds whose old version is merely
        // unchecked) stay as before. In the `confirms` arm a refuted world is not the row
        // (returned above): not here.
        assert!(!refuted_not_the_row || !refuted, "returned above");
        if refuted {
            let new =
                self.new_known_in_pages_and_pieces(v, crcs, plan, assigned, &w, per_page_side);
            let [old_in_pieces, old_in_pages] = olds;
            let versions = [old_in_pieces, old_in_pages, new];
            let unproven = self.unproven_blocks_of_refuted_row(v, assigned, &versions);
            assert!(
                (parts.iter()).all(|(p, _)| unproven.contains(p)),
                "every kept-old block is named lost"
            );
            return KeptUnproven::Lost(unproven);
        }
        KeptUnproven::AsBefore
    }

    /// The data blocks of the row whose acknowledged bytes are LOST where the one world's
    /// old version is refuted and no roll is proven (`KeptUnproven::Lost`): every block of
    /// the cut write in the row (kept old over bytes nothing proves, or of a version
    /// nothing tells), every block that does not verify (the caller would decode it
    /// through the blocks named lost), and every other block with an acknowledged byte of
    /// the row that no version of `versions` (`old_in_pieces`, `old_in_pages`, the new one
    /// as `new_known_in_pages_and_pieces` builds it) proves. A version proves a block's
    /// byte where it knows the block there and checks the offset without refuting it
    /// (`refuted_offsets`: a segment decoded with a column to spare agreeing there, or a
    /// told crc holding over it), the standard of review r48a's gate in
    /// `kept_old_rolled_forward`. In `data_pos` order.
    ///
    /// Why (review r51a MEDIUM-1): s51a's LOST named the whole row, D0's and D1's blocks
    /// too, which no write touched and which read right before. "No write touched it" is
    /// no proof: the block may be STALE itself (a lost write on its OSS verifies). A check
    /// at its offset is: a stale byte there breaks the decode's agreement or the crc, as
    /// it does for the kept-old block, unless another known column is wrong at the same
    /// offset in a way that cancels (the single-fault standard every check here keeps).
    /// The spared blocks read as they stand (the caller writes nothing in the row and
    /// leaves its running parity as the cut write left it, so the next open decides the
    /// row alike; home, a row with a lost block gets its parity marked lost, so no
    /// degraded read decodes through the lost blocks).
    fn unproven_blocks_of_refuted_row(
        &self,
        v: &RowView,
        assigned: &BTreeMap<Pos, BlockVersion>,
        versions: &[Version; 3],
    ) -> Vec<Pos> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let none: Ranges = Vec::new();
        let checks: Vec<(Vec<bool>, Vec<bool>)> = (versions.iter())
            .map(|ver| self.refuted_offsets(ver))
            .collect();
        let mut unproven: Vec<Pos> = Vec::new();
        for &p in &g.data_pos {
            let acked = intersect(v.acked.get(&p).unwrap_or(&none), &[(start, end)]);
            if acked.is_empty() {
                continue; // nothing acknowledged here: nothing to lose
            }
            let of_the_write = assigned.contains_key(&p)
                || (v.c.ranges.get(&p)).is_some_and(|r| overlaps(r, start, end));
            let verified = v.held.get(&p).is_some_and(|h| h[v.i] == Held::Verified);
            let proven = |b: usize| {
                (versions.iter().zip(&checks))
                    .any(|(ver, (wrong, checked))| checked[b] && !wrong[b] && ver.known_at(&p, b))
            };
            let every_byte_proven = acked.iter().all(|&(a, z)| {
                assert!(
                    start <= a && a < z && z <= end,
                    "an acked run inside the row"
                );
                ((a - start) as usize..(z - start) as usize).all(proven)
            });
            if of_the_write || !verified || !every_byte_proven {
                unproven.push(p);
            }
        }
        assert!(
            unproven.len() <= g.data_pos.len(),
            "one entry per data block"
        );
        unproven
    }

    /// The data blocks world `assigned` keeps OLD whose part of the cut write overlaps
    /// acknowledged bytes: `(pos, (x, y) relative to the block row, the write's crc of the
    /// part if on record)`. Shared by s50e's kept-old roll, its LOST (s51a) and s49b's
    /// refuted-row roll (`refuted_parts_proven_new`).
    pub(super) fn kept_old_cut_parts(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        assigned: &BTreeMap<Pos, BlockVersion>,
    ) -> Vec<(Pos, (usize, usize), Option<u32>)> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let none: Ranges = Vec::new();
        let mut kept = Vec::new();
        for (&p, &state) in assigned {
            if state != BlockVersion::Old || !matches!(g.cell(p), Cell::Data(_)) {
                continue;
            }
            let Some(((a, z), crc, _)) = self.data_cut(v, crcs, p) else {
                continue;
            };
            if !overlaps(v.acked.get(&p).unwrap_or(&none), a, z) {
                continue;
            }
            assert!(start <= a && a < z && z <= end, "a cut part inside the row");
            kept.push((p, ((a - start) as usize, (z - start) as usize), crc));
        }
        assert!(kept.len() <= g.data_pos.len(), "one part per data block");
        kept
    }

    /// The acknowledged bytes of the write's parts of the data blocks world `assigned`
    /// keeps OLD: `(pos, (x, y))`, relative to the block row, one run per piece.
    fn kept_old_acked_parts(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        assigned: &BTreeMap<Pos, BlockVersion>,
    ) -> Vec<(Pos, (usize, usize))> {
        let start = v.i as u64 * CHECKSUM_BLOCK_BYTES as u64;
        let none: Ranges = Vec::new();
        let mut parts = Vec::new();
        for (p, (x, y), _) in self.kept_old_cut_parts(v, crcs, assigned) {
            let part = (start + x as u64, start + y as u64);
            for (a, z) in intersect(v.acked.get(&p).unwrap_or(&none), &[part]) {
                parts.push((p, ((a - start) as usize, (z - start) as usize)));
            }
        }
        parts
    }

    /// The fixes (`(pos, block bytes)`: the write's part new, the rest as it stands), per
    /// data block world `assigned` keeps old over acknowledged bytes (review r50e HIGH-2:
    /// all-or-nothing, one block's unprovable part refused another's proven roll), where:
    /// 1. no version (`old_in_pieces`, `old_in_pages`, the new one) is refuted outside the
    ///    kept-old blocks' parts, the new version nowhere (a second stale range: review
    ///    r48a HIGH's shape; the whole row decided as before otherwise);
    /// 2. the block's part has the write's crc on record (the caller lays a fix over
    ///    acknowledged bytes only, so a part acknowledged in part rolls too);
    /// 3. it keeps its acknowledged bytes outside the part as they stand only where a
    ///    version checks them and knows the block there (`refuted_offsets`, r48a's gate);
    /// 4. its part decodes from the new version (`new_known_in_pages_and_pieces`,
    ///    `part_decoded_new`) and holds the crc;
    /// 5. its part shares no offset of the block row with the part of a kept-old block
    ///    NOT rolled (to a fixpoint): every code here is a codeword per element offset,
    ///    so at each offset the row then reads either exactly as before (no rolled part
    ///    there) or exactly as the whole roll would (no unrolled part there), never a
    ///    rolled block beside an unrolled one in one codeword;
    /// 6. every offset a version refutes lies under a rolled part (session 51, the merge
    ///    of s51a and s51b: a refuted offset under a block left as it stands would serve
    ///    its stale bytes, where s51a's caller names the row LOST).
    ///
    /// A block failing 2..5 is left exactly as it stands. `None` where none rolls or 6
    /// fails.
    fn kept_old_rolled_forward(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        assigned: &BTreeMap<Pos, BlockVersion>,
        per_page_side: bool,
    ) -> Option<Vec<(Pos, Vec<u8>)>> {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let none: Ranges = Vec::new();
        // The kept-old blocks over acknowledged bytes, their parts and the write's crcs.
        let kept = self.kept_old_cut_parts(v, crcs, assigned);
        if kept.is_empty() {
            return None;
        }
        let inside =
            |p: Pos, x: usize| (kept.iter()).any(|&(q, (a, z), _)| q == p && a <= x && x < z);
        let inside_any = |x: usize| kept.iter().any(|&(_, (a, z), _)| a <= x && x < z);
        let w = self.cut_row_versions(v, crcs, assigned);
        let new = self.new_known_in_pages_and_pieces(v, crcs, plan, assigned, &w, per_page_side);
        let versions = [
            self.old_in_pieces(v, crcs, assigned, &w),
            self.old_known(v, crcs, Some(plan), assigned, &w),
            new.clone(),
        ];
        let checks: Vec<(Vec<bool>, Vec<bool>)> = versions
            .iter()
            .map(|ver| self.refuted_offsets(ver))
            .collect();
        // (1) Refuted only inside the kept parts (a stale range there is what is rolled
        // away: (6) checks it is), the new version nowhere.
        for (k, (wrong, _)) in checks.iter().enumerate() {
            let is_new = k + 1 == checks.len();
            if (0..wrong.len()).any(|x| wrong[x] && (is_new || !inside_any(x))) {
                return None;
            }
        }
        // (2..4) Per block: the crc, the rest of the block checked, the part decoded.
        let mut parts: Vec<Option<Vec<u8>>> = (kept.iter())
            .map(|&(p, (a, z), crc)| {
                let crc = crc?;
                let acked = v.acked.get(&p).unwrap_or(&none);
                for (s, e) in intersect(acked, &[(start, end)]) {
                    let (x, y) = ((s - start) as usize, (e - start) as usize);
                    let proven = |b: usize| {
                        (versions.iter().zip(&checks))
                            .any(|(ver, (_, checked))| checked[b] && ver.known_at(&p, b))
                    };
                    if (x..y).any(|b| !inside(p, b) && !proven(b)) {
                        return None;
                    }
                }
                self.part_decoded_new(&new, p, (a, z), crc).ok()
            })
            .collect();
        // (5) Not beside an unrolled part at an offset: unrolling one may uncover another.
        let ranges: Vec<(usize, usize)> = kept.iter().map(|&(_, r, _)| r).collect();
        let proven: Vec<bool> = parts.iter().map(Option::is_some).collect();
        for (part, rolls) in parts
            .iter_mut()
            .zip(rolled_apart_from_unrolled(&ranges, &proven))
        {
            if !rolls {
                *part = None;
            }
        }
        // (6) Every refuted offset under a rolled part: a refutation is the sign of a stale
        // range, and one left under a block that stays as it stands would be served as
        // the block's old bytes. No partial roll then: `None`, which the caller names
        // LOST where a version is refuted (s51a). With every block rolled this is (1).
        let rolled_at = |x: usize| {
            (kept.iter().zip(&parts))
                .any(|(&(_, (a, z), _), part)| part.is_some() && a <= x && x < z)
        };
        if (checks.iter()).any(|(wrong, _)| (0..wrong.len()).any(|x| wrong[x] && !rolled_at(x))) {
            return None;
        }
        let mut fixes: Vec<(Pos, Vec<u8>)> = Vec::new();
        for (&(p, (a, z), _), part) in kept.iter().zip(parts) {
            let Some(part) = part else {
                continue; // left as it stands: decided as before
            };
            let mut right = v.raw[&p][start as usize..end as usize].to_vec();
            right[a..z].copy_from_slice(&part);
            fixes.push((p, right));
        }
        if fixes.is_empty() {
            return None;
        }
        Some(fixes)
    }

    /// World `w`'s (`assigned`'s) NEW version knowing, besides what `version_in_pieces`
    /// knows: each torn running parity block of the write per piece by the write's
    /// journaled crcs and its untouched bytes (`know_torn_parity_in_pieces`, s49d); each
    /// torn data block of the write per page by its page-cut record (s47c), and on its
    /// sides that hold the OLD crc also in this version outside the block's write range
    /// (the write did not reach those bytes: both versions hold them).
    fn new_known_in_pages_and_pieces(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &[Version; 2],
        per_page_side: bool,
    ) -> Version {
        let none: Ranges = Vec::new();
        let mut wide = w.clone();
        // Per page side where a cut kept one page of a torn parity block and dropped the
        // other, where asked (s52c): each side proven by the write's crc of that side.
        self.know_torn_parity_in_pieces(v, (crcs, plan), assigned, &mut wide, per_page_side);
        self.know_torn_blocks_in_pages(v, plan, assigned, &mut wide);
        let ver = &mut wide[1];
        let start = ver.start_bytes;
        for (&p, _) in assigned.iter().filter(|(_, &s)| s == BlockVersion::Torn) {
            if ver.known[&p] || !matches!(self.layout.geometry().cell(p), Cell::Data(_)) {
                continue;
            }
            let Some(pages) = self.torn_block_in_pages(v, plan, p) else {
                continue;
            };
            let mut untouched = pages.known[0].clone();
            for &(a, z) in v.c.ranges.get(&p).unwrap_or(&none) {
                crate::state::sub_range(&mut untouched, a, z);
            }
            let live = ver.live[&p].clone();
            for &(a, z) in &untouched {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                ver.row.element_mut(p)[x..y].fill(0);
                for (a, z) in intersect(&live, &[(a, z)]) {
                    ver.row.element_mut(p)[(a - start) as usize..(z - start) as usize]
                        .copy_from_slice(&v.raw[&p][a as usize..z as usize]);
                }
                crate::state::add_range(ver.known_parts.entry(p).or_default(), a, z);
            }
        }
        self.version_in_pieces(v, crcs, assigned, &wide, 1)
    }
}

/// Step (5) of `kept_old_rolled_forward`, pure: which of the kept-old parts (`ranges`,
/// offsets of the block row) roll, given which are `proven`. A proven part sharing an
/// offset with a part that does not roll does not roll either, to a fixpoint (unrolling
/// one may uncover another): at every offset either every kept part rolls or none does,
/// so no codeword mixes a rolled block with an unrolled one (review r51b MEDIUM-2: no
/// probe cell reaches two parts sharing an offset, hence the unit tests).
fn rolled_apart_from_unrolled(ranges: &[(usize, usize)], proven: &[bool]) -> Vec<bool> {
    assert_eq!(ranges.len(), proven.len(), "one flag per part");
    assert!(ranges.iter().all(|&(a, z)| a < z), "parts are not empty");
    let mut rolls = proven.to_vec();
    for round in 0..=ranges.len() {
        let beside_unrolled = |k: usize| {
            let (a, z) = ranges[k];
            (0..ranges.len()).any(|j| !rolls[j] && ranges[j].0 < z && a < ranges[j].1)
        };
        let unroll: Vec<usize> = (0..ranges.len())
            .filter(|&k| rolls[k] && beside_unrolled(k))
            .collect();
        if unroll.is_empty() {
            break;
        }
        assert!(round < ranges.len(), "each round unrolls a part");
        for k in unroll {
            rolls[k] = false;
        }
    }
    rolls
}

#[cfg(test)]
mod tests {
    use super::rolled_apart_from_unrolled as rolls;

    #[test]
    fn proven_parts_apart_from_every_unrolled_part_roll() {
        // r50e HIGH-2's shape: D2's part 3000..4096 undecodable, D3's 0..1000 proven.
        assert_eq!(
            rolls(&[(3000, 4096), (0, 1000)], &[false, true]),
            [false, true]
        );
        assert_eq!(
            rolls(&[(0, 1000), (1000, 2000)], &[true, true]),
            [true, true]
        );
        assert_eq!(rolls(&[], &[]), Vec::<bool>::new());
    }

    #[test]
    fn a_proven_part_sharing_an_offset_with_an_unrolled_one_does_not_roll() {
        // Review r51b's case: D1's tail, D2 whole and D3's head share offsets of the row;
        // D2 unproven leaves nothing rolled.
        let ranges = [(2000, 4096), (0, 4096), (0, 1000)];
        assert_eq!(rolls(&ranges, &[true, false, true]), [false, false, false]);
        // Touching ends share no offset.
        assert_eq!(
            rolls(&[(0, 1000), (1000, 2000)], &[false, true]),
            [false, true]
        );
    }

    #[test]
    fn unrolling_is_carried_to_a_fixpoint() {
        // A chain: C unproven unrolls B (they share 2500..3000) and D (inside C), and B
        // then unrolls A (2000..2500): A shares no offset with C, yet does not roll.
        let ranges = [(0, 2500), (2000, 3000), (2500, 4096), (3000, 3001)];
        let got = rolls(&ranges, &[true, true, false, true]);
        assert_eq!(got, [false, false, false, false]);
        let ranges = [(0, 2100), (2000, 3000), (2500, 4096), (4000, 4096)];
        assert_eq!(
            rolls(&ranges, &[true, true, false, true]),
            [false, false, false, false]
        );
        // A and D share no offset with any part that does not roll: they roll.
        let ranges = [(0, 1000), (2000, 3000), (2500, 4096), (1000, 1500)];
        assert_eq!(
            rolls(&ranges, &[true, true, false, true]),
            [true, false, false, true]
        );
    }
}
