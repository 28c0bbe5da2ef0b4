//! A column without bytes proven beside the cut plan's copies of failed columns (session
//! 34, s34h; review s33r R33-4's rest).
//!
//! Why: rs 4+3, OSS 0 failed, a WCL write reaching columns 0 and 1 cut with its running
//! parity part written (P new, Q between its piece writes, R old), then OSS 1 lost before
//! the next open. `confirm_by_versions` erased column 0 in both versions (its OSS holds no
//! bytes) although the plan journaled them (`Rec::FailedColumnCopy`: the write's own bytes
//! there, the crc-checked new block, and the acknowledged bytes beside them). With column 1
//! and the two running parities not new also erased, each version erased four columns of a
//! three-parity code, and column 1's acknowledged cached bytes were recorded LOST: two
//! erasures and one torn parity, within the tolerance (4 of 49 cuts).
//!
//! How: the row widened by `known_by_failed_column_copies` (each copied column a verified
//! block, its copy told new by the write's crc, known in the new version whole and in the
//! old one beside the write's range) is decided by `confirm_by_versions` again. Its decode
//! is taken where a column is left over to check it at every byte offset, or where the
//! bytes it gives the wanted column are, over all its acknowledged bytes in the row, those
//! the write journaled a crc for.

use super::*;

impl Store {
    /// Block `v.i` of data column `pos`, whose OSS failed after the cut write and that no
    /// copy covers (`decide_cache_stripe`'s `uncopied`), where `confirm_by_parity` and
    /// `confirm_by_versions` proved nothing on the row as read: decided by
    /// `confirm_by_versions` over the row widened by the cut plan's copies of failed columns
    /// (`known_by_failed_column_copies`). `old_row`: the row as the planner knew it before
    /// the write (a column without bytes holds zeros there). `v.held` must be
    /// `cache_stripe_proof_held`'s. `None`: nothing copied here, or not proven.
    ///
    /// Why each copied byte is known where it is taken (WRONG BYTES is worse than LOST):
    /// - beside the write's range in the row, a copy holds the column's acknowledged cached
    ///   bytes, journaled by the plan (before its first write, or mid-plan by
    ///   `copy_columns_of_failing_oss`, decoded from the stripe as it was before the plan),
    ///   on an OSS that no write reaches since it failed: the same bytes in both versions
    ///   (as s32f takes them);
    /// - inside the write's range, the copy is the write's own bytes there, and it is taken
    ///   only where it matches the crc the write journaled for exactly that range, read the
    ///   same way `confirm_by_versions` reads it (`write_crc_of`): that reader then knows
    ///   the column in the new version only (told new by the match), never in the old one
    ///   unless the write is a first write there (zeros in the planner's view). Where the
    ///   two readers of the crc on record could disagree, nothing is widened: a verified
    ///   block whose bytes miss the crc is taken as the OLD block, and the copy of new
    ///   bytes would stand for old ones.
    ///
    /// Why the decode is taken only so (the write's crcs check only its own ranges): with
    /// fewer columns erased than the tolerance (`spare_column_required`), a known column
    /// left over checks the decode at every offset, so one stale column among the known
    /// ones is seen (s33i's argument); with exactly the tolerance erased, an error in a
    /// known column moves every erased column's decode at that offset (an MDS code), so the
    /// decode is proven only where a crc covers it: here where `pos`'s acknowledged bytes in
    /// the row lie inside the write's range on `pos` and the decode's bytes there match the
    /// crc the write journaled for exactly that range (the write's new bytes: right, as the
    /// block of a write that may have landed).
    pub(super) fn confirm_beside_copied_columns(
        &self,
        v: &stale_beside_cut::RowView,
        pos: Pos,
        old_row: &StripeBuf,
    ) -> Option<Vec<u8>> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let none: Ranges = Vec::new();
        if g.rows != 1 || v.c.writers.len() != 1 {
            return None; // `confirm_by_versions` decides one-row codes beside one write only
        }
        let plan = *v.c.writers.keys().next()?;
        let w = self.known_by_failed_column_copies(v, plan)?;
        assert!(
            !w.cols.contains(&pos.col),
            "a column no copy covers is not made known by the copies"
        );
        let mut widened_row = old_row.clone();
        for &col in &w.cols {
            let p = Pos { row: 0, col };
            let Cell::Data(d) = g.cell(p) else {
                unreachable!("only data columns are copied");
            };
            assert!(
                old_row.element(p).iter().all(|&b| b == 0),
                "a column without bytes holds zeros in the planner's view"
            );
            let own = intersect(v.c.ranges.get(&p).unwrap_or(&none), &[(start, end)]);
            for &(a, z) in &own {
                let at = self.layout.file_offset(v.stripe, d, a);
                let crc = self.write_crc_of(v.core, (plan, v.file), (at, at + (z - a)));
                let copy = &w.raw[&p][a as usize..z as usize];
                if crc != Some(crc32c::crc32c(copy)) {
                    return None; // see the doc: never a copy of new bytes taken as old
                }
            }
            // The acknowledged bytes beside the write's range, as the copies lay them (the
            // write's range stays as the planner knew it before the write: zeros).
            let mut beside = intersect(v.acked.get(&p).unwrap_or(&none), &[(start, end)]);
            for &(a, z) in &own {
                crate::state::sub_range(&mut beside, a, z);
            }
            for (a, z) in beside {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                widened_row.element_mut(p)[x..y]
                    .copy_from_slice(&w.buf.element(p)[a as usize..z as usize]);
            }
        }
        let decide = |spare_column_required: bool| {
            self.confirm_by_versions(
                (v.core, v.file, v.stripe),
                v.c,
                (v.i, pos),
                &widened_row,
                (v.acked, v.parity_live),
                &w.held,
                (&w.raw, v.parity_raw),
                None,
                spare_column_required,
            )
        };
        if let Some(bytes) = decide(true) {
            return Some(bytes);
        }
        let bytes = decide(false)?;
        assert_eq!(bytes.len(), block as usize);
        // Exactly the tolerance erased: taken only where a crc of the write covers every
        // acknowledged byte of `pos` in the row and the decode matches it.
        let Cell::Data(d) = g.cell(pos) else {
            return None;
        };
        let own = intersect(v.c.ranges.get(&pos).unwrap_or(&none), &[(start, end)]);
        let [(a, z)] = own[..] else {
            return None; // one write meets a block in one range
        };
        let wanted = intersect(v.acked.get(&pos).unwrap_or(&none), &[(start, end)]);
        if !wanted.iter().all(|&(x, y)| a <= x && y <= z) {
            return None; // acknowledged bytes beside the write's range: no crc covers them
        }
        let at = self.layout.file_offset(v.stripe, d, a);
        let crc = self.write_crc_of(v.core, (plan, v.file), (at, at + (z - a)))?;
        let decoded = &bytes[(a - start) as usize..(z - start) as usize];
        (crc32c::crc32c(decoded) == crc).then_some(bytes)
    }
}
