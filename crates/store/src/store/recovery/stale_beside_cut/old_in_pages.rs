//! The old version of a cut write's block row refuted with the write's TORN blocks known
//! per page (session 48, s48b; review r45d's shapes s47b left: a write of 12000+12000, rs
//! 4+3 4 KiB seeds 2 and 3, rs 4+3 8 KiB seed 4).
//!
//! s47b's refutation (`unchecked_worlds_refuted`, `every_world_old_refuted`, called a
//! second time with `in_pages`) knows the
//! write's other in-flight blocks in the old version only where both versions hold the same
//! bytes (`old_in_pieces`). A block the cut tore (it fails its checksum) is known there only
//! outside its live ranges. Where the stale block's offsets lie under the write's range of
//! ANOTHER in-flight block (the other data block's, or every torn running parity block's),
//! those blocks stay erased there and the old version has no column to spare: the stale
//! block was kept as the write's old block and went home (traces: docs/results/s48-s48b.md).
//!
//! A torn DATA block of the write is known per page where its page-cut record proves it
//! (`torn_block_in_pages`, s47c: each side of the page boundary inside the block holds the
//! crc the record journaled for its old or its new bytes). s47b's refutation did not use it
//! (only `blind_unconfirmed` rows did, to fit a world): the old version now knows such a
//! block on the sides where the OLD crc holds, and where that leaves a column to spare at
//! the stale offsets a decode refutes the stale block (the row LOST on record).
//!
//! Tried and dropped (s48b's report): taking a torn RUNNING PARITY block's side of its page
//! boundary as old where a piece of the write there did not land. Not proven by any crc
//! (none of the old parity bytes is on record), and a tear inside a page (s35f's crash-alone
//! scenes tear blocks at byte 1300) breaks the side's "one version whole": 9 of s35f's
//! crash-alone tests beside a failed P OSS lost rows. rs 4+3 4 KiB (#183) and 8 KiB (#263)
//! and 12000+12000 seed 1 (#170) needed it and stayed OPEN.
//!
//! Session 49 (s49a): the write journals the crc of a running parity piece's old bytes on
//! each side of a page boundary inside its part of a block (`ParityPieceCrcs::
//! old_page_sides`), and a torn running parity block is known in the old version on each
//! part whose bytes as they stand hold its old crc (`torn_parity_parts_old`): proven, not
//! inferred, so a tear inside a page leaves the part unknown. #170, #183 and #263 are
//! refuted (LOST on record); s35f's crash-alone tests pass (docs/results/s49-s49a.md).

use super::*;

impl Store {
    /// World `w`'s (`assigned`'s) old version as the two refutations build it: with
    /// `in_pages` (the cut plan) as `old_in_pages`, else as `old_in_pieces`.
    pub(super) fn old_known(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        in_pages: Option<PlanId>,
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &[Version; 2],
    ) -> Version {
        match in_pages {
            Some(plan) => self.old_in_pages(v, crcs, plan, assigned, w),
            None => self.old_in_pieces(v, crcs, assigned, w),
        }
    }

    /// World `w`'s (`assigned`'s) old version as `old_in_pieces` knows it, and besides, each
    /// torn DATA block of the write known on each side of its page boundary where its
    /// page-cut record's OLD crc holds on the side as it stands (`know_torn_blocks_in_pages`,
    /// s47c: proven byte for byte, so a crash alone agrees there; a side holding neither
    /// version's crc, a tear inside a page or rot, is not known, as before), and its told
    /// old crcs only of sides wholly inside the block's live ranges; and each torn RUNNING
    /// PARITY block of the write known on the parts its journaled old crcs prove
    /// (`torn_parity_parts_old`, s49a). Used by the two refutations only (`old_refuted`):
    /// it never makes a world fit.
    fn old_in_pages(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        plan: PlanId,
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &[Version; 2],
    ) -> Version {
        let mut paged = w.clone();
        self.know_torn_blocks_in_pages(v, plan, assigned, &mut paged);
        // A side's told OLD crc is of the slot's raw bytes as the write read them, and the
        // old version is the planner's view, zeros outside the block's live ranges: where
        // a side reaches past them (a write extending a partly acknowledged block; a reused
        // chunk holds an older cache stripe's bytes there) that crc can never match the
        // version's decode and would refute the TRUE row of a power cut alone (review r48b
        // MEDIUM-1: raid6 8 KiB, 12000+12000, 2 -> 3..4 LOST cuts per seed). Such a crc
        // tells nothing here: dropped (the side stays unknown, as before s48b).
        let start = paged[0].start_bytes;
        let before = w[0].told.len();
        let mut k = 0;
        let live = paged[0].live.clone();
        paged[0].told.retain(|(p, (x, y), _)| {
            k += 1;
            k <= before || {
                let side = (start + *x as u64, start + *y as u64);
                intersect(&live[p], &[side]) == [side]
            }
        });
        assert!(
            paged[0].told.len() >= before,
            "the version's own told crcs stay"
        );
        let mut ver = self.old_in_pieces(v, crcs, assigned, &paged);
        // Each torn RUNNING PARITY block of the write known where its pieces' journaled old
        // crcs hold on the bytes as they stand (s49a): after `old_in_pieces`, which leaves
        // a position with known parts as it found it, so its dead ranges and these merge.
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let start = v.i as u64 * block;
        for (&p, _) in assigned.iter().filter(|(_, &s)| s == BlockVersion::Torn) {
            if ver.known[&p] {
                continue;
            }
            let old = self.torn_parity_parts_old(v, crcs, p);
            // Its bytes on disk where the running parity was live before the write, zeros
            // elsewhere (the encode of the planner's view, which masks dead data to zeros):
            // the crc proved the raw bytes, the version holds them masked.
            let live = ver.live[&p].clone();
            for &(a, z) in &old {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                ver.row.element_mut(p)[x..y].fill(0);
                for (a, z) in intersect(&live, &[(a, z)]) {
                    ver.row.element_mut(p)[(a - start) as usize..(z - start) as usize]
                        .copy_from_slice(&v.parity_raw[&p][a as usize..z as usize]);
                }
                crate::state::add_range(ver.known_parts.entry(p).or_default(), a, z);
            }
        }
        ver
    }

    /// The parts (absolute element offsets) of torn running parity block `pos` of row `v.i`
    /// whose bytes as they stand are the block's bytes BEFORE the write, each proven by a
    /// crc the write journaled of exactly that part: a piece's part of the block lying on
    /// one side of the block's page boundary by `ParityPieceCrcs::old_crc_of` (s42a), a
    /// part across it per side by `old_page_sides_of` (s49a). A part whose bytes hold
    /// neither (new, torn inside a page, rot, or no crc on record: an older binary's record
    /// or zeros under the piece) is not known, as before s49a.
    ///
    /// Why (review r45d's last WRONG shapes: raid6 12000+12000 seed 1 #170, rs 4+3 4 KiB
    /// seeds 2/3 #183, rs 4+3 8 KiB seed 4 #263): the stale data block's offsets lie under
    /// the write's range of torn running parity blocks, one page of each kept new and the
    /// other dropped, so in the old version no column was spare there and the stale block
    /// was kept. Known on the dropped page's side, a column is spare and a decode refutes
    /// the stale block (the row LOST on record). s48b inferred such a side old from a piece
    /// not landing, and a tear inside a page (s35f's crash-alone scenes) broke it; a crc of
    /// the side's own bytes holds only where every byte is old, so a crash alone, whose old
    /// version is the true row there, is never refuted by it.
    fn torn_parity_parts_old(&self, v: &RowView, crcs: &RowCrcs, pos: Pos) -> Ranges {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let torn = v.held.get(&pos).is_some_and(|h| h[v.i] == Held::Failed);
        if !torn || !matches!(self.layout.geometry().cell(pos), Cell::Parity(_)) {
            return Vec::new();
        }
        let (Some((_, key)), Some(bytes)) = (v.keys.get(&pos), v.parity_raw.get(&pos)) else {
            return Vec::new();
        };
        assert!(
            bytes.len() >= end as usize,
            "a running parity block's bytes cover the block row"
        );
        let cut = crate::backend::page_cut_in_block(v.buf.element_bytes, key.slot, v.i);
        let parts_in_row: Vec<(&crate::state::ParityPieceCrcs, (u64, u64))> = (crcs.parity)
            .iter()
            .filter(|w| w.row == pos.row && w.col == pos.col)
            .map(|w| {
                let (a, z) = (
                    w.offset_bytes.max(start),
                    (w.offset_bytes + w.len_bytes).min(end),
                );
                (*w, (a, z))
            })
            .filter(|(_, (a, z))| a < z)
            .collect();
        // A piece's "old" crc is of the bytes the write read before laying it: the old
        // version's only where no other piece of the write lays bytes at the same offsets
        // (one wave's new bytes would be the next one's "old"). The planner writes a
        // range once per plan; a record that says otherwise proves nothing here.
        let mut covered: Ranges = Vec::new();
        for &(_, (a, z)) in &parts_in_row {
            if overlaps(&covered, a, z) {
                return Vec::new();
            }
            crate::state::add_range(&mut covered, a, z);
        }
        let mut old: Ranges = Vec::new();
        for (w, (a, z)) in parts_in_row {
            let parts: Vec<((u64, u64), Option<u32>)> = match cut {
                Some(c) if a < start + c as u64 && (start + c as u64) < z => {
                    match w.old_page_sides_of(v.i as u64, c) {
                        Some(sides) => sides.iter().map(|&(r, crc)| (r, Some(crc))).collect(),
                        None => continue, // no side on record: the part is not proven
                    }
                }
                _ => vec![((a, z), w.old_crc_of(a, z))],
            };
            for ((x, y), crc) in parts {
                assert!(
                    start <= x && x < y && y <= end,
                    "a part inside the block row"
                );
                if crc == Some(crc32c::crc32c(&bytes[x as usize..y as usize])) {
                    crate::state::add_range(&mut old, x, y);
                }
            }
        }
        old
    }
}
