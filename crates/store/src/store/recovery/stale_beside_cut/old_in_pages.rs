//! The old version of a cut write's block row refuted with the write's TORN blocks known
//! per page (session 48, s48b; review r45d's shapes s47b left: a write of 12000+12000, rs
//! 4+3 4 KiB seeds 2 and 3, rs 4+3 8 KiB seed 4).
//!
//! s47b's refutation (`unchecked_worlds_refuted`, `every_world_old_refuted`) knows the
//! write's other in-flight blocks in the old version only where both versions hold the same
//! bytes (`old_in_pieces`). A block the cut tore (it fails its checksum) is known there only
//! outside its live ranges. Where the stale block's offsets lie under the write's range of
//! ANOTHER in-flight block (the other data block's, or every torn running parity block's),
//! those blocks stay erased there and the old version has no column to spare: the stale
//! block was kept as the write's old block and went home (traces: docs/results/s48-s48b.md).
//!
//! A torn block is not torn byte by byte: an out-of-order power cut keeps or drops whole
//! pages, and a kill stops a block's pwrite at a page boundary (`page_cut_in_block`), so each
//! side of the one page boundary inside a block holds ONE version of it (the slot is
//! rewritten whole). Here, for the refutation only:
//! - a torn DATA block is known in the old version where its page-cut record's OLD crc holds
//!   on the half as it stands (`torn_block_in_pages`, s47c: proven byte for byte);
//! - a torn RUNNING PARITY block is known in the old version on a side of its page boundary
//!   where some piece of the write lying wholly on that side did NOT land (its journaled
//!   crc fails there) and none there did, or where a piece across the boundary did not land
//!   and the other side is new: that side is not the new version, so it is the block's
//!   bytes before the write. Not proven by a crc (none of the old parity bytes is on
//!   record), so it is used only to REFUTE: a wrong guess there (rot, a third value) makes
//!   a decode disagree and the row LOST on record, never a byte read wrong; it never makes a
//!   world fit (`old_kept_proven_or_rolled_forward` and the fits do not use it).

use super::*;

impl Store {
    /// `every_world_old_refuted` (the `confirms` arm) with the write's torn blocks known per
    /// page in each world's old version (`old_in_pages`).
    pub(super) fn every_world_old_refuted_in_pages(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        choices: &[(Pos, Vec<BlockVersion>)],
    ) -> bool {
        let Some((assignments, false)) = self.checkable_assignments(choices) else {
            return false;
        };
        assert!(assignments.len() <= 1 << ASSIGNED_BLOCKS_MAX);
        !assignments.is_empty()
            && assignments.iter().all(|a| {
                self.old_kept_over_acked(v, crcs, a) && {
                    let w = self.cut_row_versions(v, crcs, a);
                    self.old_refuted(&self.old_in_pages(v, crcs, plan, a, &w))
                }
            })
    }

    /// `unchecked_worlds_refuted` (no world checked by a decode) with the write's torn
    /// blocks known per page in each unchecked world's old version (`old_in_pages`).
    pub(super) fn unchecked_worlds_refuted_in_pages(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        assignments: &[BTreeMap<Pos, BlockVersion>],
        worlds: &[[Version; 2]],
        fit: &[Option<bool>],
    ) -> bool {
        assert_eq!(assignments.len(), worlds.len(), "one world per assignment");
        assert!(
            fit.len() >= worlds.len(),
            "a fit per world, one more where unlisted"
        );
        // An unlisted world (`fit` past the listed ones) checks nothing: not refuted.
        if fit.len() > worlds.len() || fit.contains(&Some(true)) {
            return false;
        }
        let unchecked: Vec<usize> = (0..worlds.len()).filter(|&k| fit[k].is_none()).collect();
        !unchecked.is_empty()
            && unchecked.iter().all(|&k| {
                self.old_kept_over_acked(v, crcs, &assignments[k])
                    && self.old_refuted(&self.old_in_pages(
                        v,
                        crcs,
                        plan,
                        &assignments[k],
                        &worlds[k],
                    ))
            })
    }

    /// World `w`'s (`assigned`'s) old version as `old_in_pieces` knows it, and besides, each
    /// torn block of the write known per page where the page tells its old bytes (the
    /// module's doc): a torn data block by its page-cut record's old crc
    /// (`know_torn_blocks_in_pages`), a torn running parity block on a side of its page
    /// boundary where a piece of the write did not land (`torn_parity_sides_not_new`). For a
    /// refutation only (`old_refuted`): never to fit a world.
    fn old_in_pages(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &[Version; 2],
    ) -> Version {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let start = v.i as u64 * block;
        let mut paged = w.clone();
        self.know_torn_blocks_in_pages(v, plan, assigned, &mut paged);
        let mut ver = self.old_in_pieces(v, crcs, assigned, &paged);
        for (&p, _) in assigned.iter().filter(|(_, &s)| s == BlockVersion::Torn) {
            if ver.known[&p] || !matches!(self.layout.geometry().cell(p), Cell::Parity(_)) {
                continue;
            }
            let sides = self.torn_parity_sides_not_new(v, crcs, p);
            if sides.is_empty() {
                continue;
            }
            // Its bytes on disk where the running parity was live before the write; zeros
            // elsewhere (the encode of the planner's view, which masks dead data to zeros).
            let live = ver.live[&p].clone();
            let bytes = &v.parity_raw[&p];
            for &(a, z) in &sides {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                ver.row.element_mut(p)[x..y].fill(0);
                for (a, z) in intersect(&live, &[(a, z)]) {
                    ver.row.element_mut(p)[(a - start) as usize..(z - start) as usize]
                        .copy_from_slice(&bytes[a as usize..z as usize]);
                }
                crate::state::add_range(ver.known_parts.entry(p).or_default(), a, z);
            }
        }
        ver
    }

    /// The sides of torn running parity block `pos`'s page boundary in row `v.i` (absolute
    /// element offsets; the whole block where no boundary falls inside it) that hold its
    /// bytes BEFORE the write: some piece of the write lies wholly on that side and did not
    /// land (its journaled crc fails on the bytes as they stand), and none there landed (one
    /// did and one did not: neither version whole, rot or a third value, not known); or no
    /// piece lies wholly on it, the other side is new (a piece wholly there landed, none
    /// failed) and a piece across the boundary did not land (its bytes on the new side are
    /// new, so the ones on this side are not). A side
    /// is one page's part of the block, kept or dropped whole by a power cut (a kill stops
    /// at a page boundary too), and the write rewrites the block's slot whole, so a side
    /// that is not new is the old version. Pages larger than 4 KiB put both sides in one
    /// page: each side is still whole one version.
    fn torn_parity_sides_not_new(&self, v: &RowView, crcs: &RowCrcs, pos: Pos) -> Ranges {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let torn = v.held.get(&pos).is_some_and(|h| h[v.i] == Held::Failed);
        let (Some((_, key)), Some(bytes)) = (v.keys.get(&pos), v.parity_raw.get(&pos)) else {
            return Vec::new();
        };
        if !torn || !matches!(self.layout.geometry().cell(pos), Cell::Parity(_)) {
            return Vec::new();
        }
        let element_bytes = v.buf.element_bytes;
        assert!(
            bytes.len() >= end as usize,
            "a running parity block's bytes cover the block row"
        );
        let sides: Vec<(u64, u64)> =
            match crate::backend::page_cut_in_block(element_bytes, key.slot, v.i) {
                Some(cut_at) => vec![(start, start + cut_at as u64), (start + cut_at as u64, end)],
                None => vec![(start, end)],
            };
        let pieces = self.parity_cut(v, crcs, pos);
        let landed =
            |&(a, z, crc): &(u64, u64, u32)| crc32c::crc32c(&bytes[a as usize..z as usize]) == crc;
        // Per side: did the pieces lying wholly on it land (all: new; none: old)?
        let wholly: Vec<Vec<bool>> = (sides.iter())
            .map(|&(s, t)| {
                (pieces.iter())
                    .filter(|&&(a, z, _)| s <= a && z <= t)
                    .map(landed)
                    .collect()
            })
            .collect();
        let new_side = |k: usize| !wholly[k].is_empty() && !wholly[k].contains(&false);
        let mut old: Ranges = Vec::new();
        for (k, &(s, t)) in sides.iter().enumerate() {
            let not_new_alone = !wholly[k].is_empty() && !wholly[k].contains(&true);
            // A piece across the boundary that did not land, the other side new (a piece
            // wholly there landed, none failed): its bytes on that side are new, so this
            // side is not (review r45d's 12000+12000 seed 1, #170: P's boundary at 4072
            // inside its piece 3808..4096, the piece 0..3808 landed).
            let not_new_across = wholly[k].is_empty()
                && (0..sides.len()).any(|j| j != k && new_side(j))
                && (pieces.iter()).any(|piece| {
                    let (a, z, _) = *piece;
                    a < t && s < z && !(s <= a && z <= t) && !landed(piece)
                });
            if not_new_alone || not_new_across {
                crate::state::add_range(&mut old, s, t);
            }
        }
        old
    }
}
