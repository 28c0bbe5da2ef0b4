//! A cut write's TORN running parity blocks known per piece by the write's journaled crcs
//! (session 49, s49d; docs/store.md "Limits": the blind-row trade of s34a, raid6 8 KiB
//! `cross` seed 1 cuts #107 #110, seed 4 #100).
//!
//! A power cut alone that writes pages back out of order may drop the zone page holding a
//! running parity block's checksum and keep the pages holding its payload (or the
//! reverse): the block fails its checksum though each of the write's pieces in it holds,
//! byte for byte, either the bytes the write put there (the piece's journaled crc,
//! `ParityPieceCrcs::block_crcs`) or the bytes it read and laid its delta over (s42a's
//! `old_block_crcs`). Counted blind, P and Q both torn used up raid6's tolerance, no world
//! was checked and the whole block row was named LOST (`blind_unconfirmed`), acknowledged
//! bytes of elements the write never touched among them. Traces (docs/results/s49-s49d.md):
//! raid6 8 KiB seed 1 #107, block row 0: P's two pieces (0..1000, 3000..4096) new by their
//! crcs, Q's two old by theirs; #110: P's both new, Q's first new and its second old.
//!
//! Known per piece, each version of the world holds the parity block where its pieces hold
//! that version's crc, and, where the write changed nothing (no piece, no write range of
//! the block or of a data block of its equation), the bytes as they stand in both: the
//! write left them alone, so a power cut alone leaves them as they were. Those last bytes
//! are proven by nothing on record (the block fails its checksum: rot there is possible),
//! so every version so widened must check every segment of the row
//! (`Version::every_segment_checked`, s47c): rot there breaks an equation with a column to
//! spare, or a decode that a told crc then refutes, and the world does not fit (LOST as
//! before, never a byte taken unproven). A piece holding neither crc (torn inside it, at
//! the parity slot's page boundary, or rotten) leaves the block unknown as before: the
//! other LOST cuts of s43a's probe are of that shape (a piece 3000..4096 across the page
//! boundary at 4072), and need per page side crcs of both versions (s49a's records).

use super::*;

/// `stale_beside_cut_write`'s check of one world (`fits`): `None` unchecked, `Some(None)`
/// refuted, `Some(Some(decode))` fitted.
type WorldFits<'f> = dyn Fn(&[Version; 2], Option<usize>) -> Option<Option<StripeBuf>> + 'f;

impl Store {
    /// Torn running parity block `pos` of row `v.i` known per piece: `[old, new]`, the
    /// parts (absolute element offsets) whose bytes on disk hold that version, or `None`
    /// (not a torn parity block of the write, no piece, overlapping pieces, a piece without
    /// both crcs on record, or a piece holding neither).
    ///
    /// With `per_page_side` (the rolls' new version, s52c; every arm since session 53) a
    /// piece holding neither whole crc and cut by the block's page boundary is known per
    /// side where both sides' crcs of both versions are on record (`old_page_sides_of`,
    /// `new_page_sides_of`) and each side as it stands holds one of its two: a power cut
    /// kept one page of the block and dropped the other (review r51b HIGH-1, rs 4+3 8 KiB
    /// seed 4 #147: P and Q new on 0..4072, old on 4072..4096). A side holding neither
    /// (torn inside a page, or rot) leaves the block unknown as before.
    fn torn_parity_in_pieces(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        pos: Pos,
        per_page_side: bool,
    ) -> Option<[Ranges; 2]> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let Cell::Parity(q) = g.cell(pos) else {
            return None;
        };
        if v.held.get(&pos).is_none_or(|h| h[v.i] != Held::Failed) {
            return None;
        }
        let bytes = v.parity_raw.get(&pos)?;
        // Where the block's page boundary lies (from its first byte), if one does and the
        // sides are asked for.
        let cut = match (per_page_side, v.keys.get(&pos)) {
            (true, Some((_, key))) => {
                crate::backend::page_cut_in_block(v.buf.element_bytes, key.slot, v.i)
            }
            _ => None,
        };
        // Per piece: its range in the row, its new crc and its old one; and its sides'
        // `[new, old]` crcs where the boundary cuts its part and both are on record.
        type Sides = Option<[[((u64, u64), u32); 2]; 2]>;
        let mut pieces: Vec<(u64, u64, u32, u32, Sides)> = (crcs.parity.iter())
            .filter(|w| (w.row, w.col) == (pos.row, pos.col))
            .filter_map(|w| {
                let (a, z) = (
                    w.offset_bytes.max(start),
                    (w.offset_bytes + w.len_bytes).min(end),
                );
                (a < z).then_some(())?;
                let sides = cut.and_then(|c| {
                    let new = w.new_page_sides_of(v.i as u64, c)?;
                    let old = w.old_page_sides_of(v.i as u64, c)?;
                    // The sides of exactly this part (a record that says otherwise tells
                    // nothing: never a panic on what the journal holds).
                    let same = new.iter().zip(&old).all(|(n, o)| n.0 == o.0)
                        && new[0].0 .0 == a
                        && new[1].0 .1 == z;
                    same.then_some([new, old])
                });
                Some((a, z, w.crc_of(a, z)?, w.old_crc_of(a, z)?, sides))
            })
            .collect();
        // Every piece of the write meeting the block must be known: one without both crcs
        // on record (an older record, or a base of zeros: nothing read) is left out above,
        // and the block then stays unknown. The count is bounded by the plan's steps.
        let pieces_in_flight = (crcs.parity.iter())
            .filter(|w| (w.row, w.col) == (pos.row, pos.col))
            .filter(|w| w.offset_bytes < end && start < w.offset_bytes + w.len_bytes)
            .count();
        if pieces.is_empty() || pieces.len() != pieces_in_flight {
            return None;
        }
        pieces.sort_unstable_by_key(|&(a, z, ..)| (a, z));
        if pieces.windows(2).any(|w| w[0].1 > w[1].0) {
            return None; // pieces that overlap tell no piece alone
        }
        // Where the write changed nothing: outside its pieces and outside every write range
        // of this block and of the data blocks of its equation.
        let none: Ranges = Vec::new();
        let mut untouched: Ranges = vec![(start, end)];
        let mut changed: Vec<(u64, u64)> = v.c.ranges.get(&pos).unwrap_or(&none).clone();
        for t in &g.parity_terms[q] {
            changed.extend(v.c.ranges.get(&g.data_pos[t.data]).unwrap_or(&none));
        }
        changed.extend(pieces.iter().map(|&(a, z, ..)| (a, z)));
        for (a, z) in changed {
            crate::state::sub_range(&mut untouched, a, z);
        }
        let [mut old, mut new] = [untouched.clone(), untouched];
        for &(a, z, new_crc, old_crc, sides) in &pieces {
            assert!(
                start <= a && a < z && z <= end,
                "a piece lies inside the block row"
            );
            let on_disk = crc32c::crc32c(&bytes[a as usize..z as usize]);
            // The piece whole, or (holding neither whole crc) each side of the boundary.
            let parts: Vec<((u64, u64), u32, u32)> =
                match (on_disk == old_crc || on_disk == new_crc, sides) {
                    (false, Some([new_sides, old_sides])) => (new_sides.iter().zip(&old_sides))
                        .map(|(&(r, n), &(_, o))| (r, n, o))
                        .collect(),
                    _ => vec![((a, z), new_crc, old_crc)],
                };
            for ((x, y), new_crc, old_crc) in parts {
                assert!(a <= x && x < y && y <= z, "a side inside its piece");
                let on_disk = crc32c::crc32c(&bytes[x as usize..y as usize]);
                match (on_disk == old_crc, on_disk == new_crc) {
                    (false, false) => return None, // torn inside the piece or a page, or rot
                    (is_old, is_new) => {
                        if is_old {
                            crate::state::add_range(&mut old, x, y);
                        }
                        if is_new {
                            crate::state::add_range(&mut new, x, y);
                        }
                    }
                }
            }
        }
        Some([old, new])
    }

    /// World `w` (assignment `assigned`) of a row lost unless a world proves it
    /// (`blind_unconfirmed`) with each torn running parity block of the write known per
    /// piece (`torn_parity_in_pieces`), and then each data block of the write read
    /// verified (or whole new by its journaled crc, `cut_block_whole_new`) known, in the
    /// version it is not, where the write does not reach it in the row (its bytes there
    /// are both versions', as `known_pieces` knows them beside a `Partial` block). Each version so widened must check every segment
    /// (`Version::every_segment_checked`). Nothing is widened where no torn parity block is
    /// known per piece.
    ///
    /// `per_page_side`: see `torn_parity_in_pieces` (true for the three arms' rolls; a refit
    /// of a blind row with it: OPEN).
    pub(super) fn know_torn_parity_in_pieces(
        &self,
        v: &RowView,
        (crcs, plan): (&RowCrcs, PlanId),
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &mut [Version; 2],
        per_page_side: bool,
    ) -> bool {
        let g = self.layout.geometry();
        let torn_parity: Vec<(Pos, [Ranges; 2])> = (assigned.iter())
            .filter(|(p, &s)| s == BlockVersion::Torn && matches!(g.cell(**p), Cell::Parity(_)))
            .filter_map(|(&p, _)| Some((p, self.torn_parity_in_pieces(v, crcs, p, per_page_side)?)))
            .collect();
        if torn_parity.is_empty() {
            return false;
        }
        let raw_of = |p: &Pos| match g.cell(*p) {
            Cell::Parity(_) => &v.parity_raw[p],
            _ => &v.raw[p],
        };
        let widen = |ver: &mut Version, pos: Pos, parts: &Ranges| {
            if ver.known[&pos] || parts.is_empty() {
                return;
            }
            let start = ver.start_bytes;
            let live = ver.live[&pos].clone();
            for &(a, z) in parts {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                // Zeros where this version holds nothing (as the view masks it), the bytes
                // on disk where it is live.
                ver.row.element_mut(pos)[x..y].fill(0);
                for (a, z) in intersect(&live, &[(a, z)]) {
                    ver.row.element_mut(pos)[(a - start) as usize..(z - start) as usize]
                        .copy_from_slice(&raw_of(&pos)[a as usize..z as usize]);
                }
                crate::state::add_range(ver.known_parts.entry(pos).or_default(), a, z);
            }
            ver.every_segment_checked = true;
        };
        for (pos, parts) in &torn_parity {
            for (k, ver) in w.iter_mut().enumerate() {
                widen(ver, *pos, &parts[k]);
            }
        }
        // The write's data blocks read verified, or failing their checksum but whole the
        // write's new block by its journaled crc (`cut_block_whole_new`: the write's bytes
        // merged into the old bytes it read): their bytes outside the write's range in the
        // row are both versions' (the write did not reach them).
        let block = CHECKSUM_BLOCK_BYTES;
        let proven_whole = |pos: Pos, state: BlockVersion| match v.held.get(&pos).map(|h| h[v.i]) {
            Some(Held::Verified) => true,
            Some(Held::Failed) => {
                state == BlockVersion::New
                    && v.raw.get(&pos).is_some_and(|r| {
                        let payload = &r[v.i * block..(v.i + 1) * block];
                        self.cut_block_whole_new(
                            v.core,
                            plan,
                            (v.file, v.stripe, pos),
                            v.i,
                            payload,
                        )
                    })
            }
            _ => false,
        };
        for (&pos, &state) in assigned.iter() {
            if !matches!(g.cell(pos), Cell::Data(_))
                || !matches!(state, BlockVersion::Old | BlockVersion::New)
                || !proven_whole(pos, state)
            {
                continue;
            }
            let parts = self.known_pieces(v, crcs, pos, state);
            for (k, ver) in w.iter_mut().enumerate() {
                widen(ver, pos, &parts[k]);
            }
        }
        true
    }

    /// Each world of `worlds` (its assignment in `assignments`) that `fit` does not call
    /// fitted, widened by `know_torn_parity_in_pieces` and decided again as
    /// `stale_beside_cut_write` decides a world (`fits`, then
    /// `segments_proven_across_versions` where no version checks it): where it fits so,
    /// it replaces the world as built and is fitted. Nothing else changes: a world that
    /// fits as built is left alone (widened, a version must check every segment, which a
    /// world fitted by a check of some segment may not: hdp's
    /// `hdp_r39a_cut_alone_loses_nothing` lost its row so), and a widened world that does
    /// not fit leaves the world as it was (the row is LOST unless some world fits).
    pub(super) fn refit_with_torn_parity_in_pieces(
        &self,
        v: &RowView,
        (crcs, plan, assignments): (&RowCrcs, PlanId, &[BTreeMap<Pos, BlockVersion>]),
        worlds: &mut [[Version; 2]],
        fit: &mut [Option<bool>],
        fits: &WorldFits,
    ) {
        assert_eq!(worlds.len(), assignments.len(), "one world per assignment");
        assert!(
            fit.len() >= worlds.len(),
            "a fit per world (and unlisted ones)"
        );
        for (k, assigned) in assignments.iter().enumerate() {
            // Only a world no check decided: one refuted as built stays refuted (review r49d
            // MEDIUM-1: a widened version's check stops at its first unchecked segment, so a
            // disagreement already found could be lost and the world pass another way).
            if fit[k].is_some() {
                continue;
            }
            let mut widened = worlds[k].clone();
            if !self.know_torn_parity_in_pieces(v, (crcs, plan), assigned, &mut widened, false) {
                continue;
            }
            let fitted = match fits(&widened, None) {
                Some(d) => d.is_some(),
                None => self.segments_proven_across_versions(v, &widened, assigned),
            };
            if fitted {
                worlds[k] = widened;
                fit[k] = Some(true);
            }
        }
    }
}
