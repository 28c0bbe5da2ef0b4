//! The record of the open's repair after a journal tail cut (`Rec::TailCutRepair`, session
//! 33, s33e), and the degraded decode it proves.
//!
//! Why (s32g): `reencode_parity_after_tail_cut` rewrites the parity of a stripe whose
//! checksum-clean data and parity disagree after a tail cut, one block write per parity
//! element, and journaled no decision. Killed between its P and Q writes (or tearing P), the
//! stripe holds parity of two versions of the cut write; one lost data OSS after that, and
//! the decode of its column disagreed ("no single column explains it") or, beside the torn
//! P, was refused naming the cut: acknowledged bytes the cut write never touched, which read
//! with the same loss before the repair, were LOST (18 blocks of s32g's sweep).
//!
//! So the repair journals, fsync'd, before its first parity write, per 4 KiB block row it
//! re-encodes: the crc32c of every data block as it keeps it (as read), of every parity
//! block it writes, and of each data block as a degraded read decoded it before the repair
//! (its column erased, decoded from the parity as found and checked by a spare equation:
//! the bytes such a read returned). A degraded read of a recorded row then takes a decode
//! only where every block it rebuilds matches one of those crcs of its own block; any set
//! of surviving columns may feed it (the parity the repair wrote, the one it did not reach,
//! or both), since the crcs, not the parity, are the proof. A row whose readable data
//! blocks do not all match their recorded crcs is one a later write changed: the record
//! says nothing of it and the rules on the disk decide it, as before.
//!
//! What the decode may return is what the store returned or decided before the kill: the
//! data the repair kept (the cut write's old or new bytes in its range, acknowledged bytes
//! elsewhere), or the bytes a checked degraded read returned before the repair began.
//!
//! Bound: one record per repaired stripe (a later repair of it replaces its rows, and keeps
//! the rows it did not repair again), one entry per block row; `JournalTailChecked` (a scrub
//! found every stripe's parity matching) drops them all.

use super::*;

use super::read::HomeStripe;
use crate::state::{RepairedRow, TailCutRepair};

/// Columns a proof may erase besides the unreadable ones, tried in rising count: at most
/// the code's tolerance in all (3 for the codes exaraid knows), so at most
/// C(cols, 3) decodes of one 4 KiB block row.
const PROOF_ERASED_COLUMNS_MAX: usize = 3;

impl Store {
    /// The record `reencode_parity_after_tail_cut` journals before it rewrites the parity of
    /// block rows `rows` of `home` (its data as kept, its parity as found, every column
    /// read): the crcs of each data block, of each data block as a checked degraded read
    /// decoded it, and of each parity block `encoded` holds (the stripe as it will be).
    pub(super) fn tail_cut_repair_record(
        &self,
        home: &HomeStripe,
        encoded: &StripeBuf,
        rows: &[usize],
    ) -> Result<TailCutRepair, StoreError> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        assert!(home.unavailable_cols.is_empty() && home.corrupt.is_empty());
        assert!(
            rows.len() <= self.sb.element_bytes / block,
            "one entry per block row"
        );
        let cells = |want_data: bool| -> Vec<Pos> {
            (0..g.cols)
                .flat_map(|col| (0..g.rows).map(move |row| Pos { row, col }))
                .filter(|&p| match g.cell(p) {
                    Cell::Data(_) => want_data,
                    Cell::Parity(_) => !want_data,
                    _ => false,
                })
                .collect()
        };
        let (data, parity) = (cells(true), cells(false));
        let data_cols: BTreeSet<usize> = data.iter().map(|p| p.col).collect();
        let mut found = StripeBuf::zeroed(g.rows, g.cols, block);
        let mut one = StripeBuf::zeroed(g.rows, g.cols, block);
        let mut record = TailCutRepair {
            file: home.file,
            stripe: home.stripe,
            rows: Vec::with_capacity(rows.len()),
        };
        for &i in rows {
            let range = i * block..(i + 1) * block;
            slice_stripe_into(&home.buf, range.clone(), &mut found);
            let crc_of = |buf: &StripeBuf, p: Pos| (p.row, p.col, crc32c::crc32c(buf.element(p)));
            let mut row = RepairedRow {
                block: i as u64,
                data: data.iter().map(|&p| crc_of(&found, p)).collect(),
                parity: Vec::with_capacity(parity.len()),
                found_decodes: Vec::new(),
            };
            // Only a decode a spare equation checked is what a degraded read returned (one
            // with no equation left was refused naming the cut, or unchecked): none on raid5.
            if self.tolerance() > 1 {
                for &col in &data_cols {
                    one.clone_from(&found);
                    if self.decode_checked(&mut one, &[col])? == read::DecodeCheck::Consistent {
                        let column = data.iter().filter(|p| p.col == col);
                        row.found_decodes.extend(column.map(|&p| crc_of(&one, p)));
                    }
                }
            }
            slice_stripe_into(encoded, range, &mut one);
            row.parity = parity.iter().map(|&p| crc_of(&one, p)).collect();
            record.rows.push(row);
        }
        Ok(record)
    }

    /// Block rows of `home` (as read) that a repair's record after a tail cut proves
    /// (see the module's comment): their unreadable blocks are put in `home.buf` from a
    /// decode whose every rebuilt data block matches a recorded crc of its own block (the
    /// parity blocks among them re-encoded from that data), and the rows go in
    /// `home.proven_by_repair`, which `decode_blocks` leaves as they are.
    pub(super) fn decode_by_tail_cut_repair(&self, core: Option<&Core>, home: &mut HomeStripe) {
        let rows: Vec<RepairedRow> = self.with_core(core, |c| {
            let mut records = c.state.tail_cut_repairs.iter();
            let record = records.find(|r| (r.file, r.stripe) == (home.file, home.stripe));
            record.map(|r| r.rows.clone()).unwrap_or_default()
        });
        if rows.is_empty() || self.kind == StrategyKind::Raid0 {
            return;
        }
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let blocks_per_element = self.sb.element_bytes / block;
        let tolerance = self.tolerance();
        assert!(
            tolerance <= PROOF_ERASED_COLUMNS_MAX,
            "tolerance {tolerance}"
        );
        let mut one = StripeBuf::zeroed(g.rows, g.cols, block);
        for r in &rows {
            let i = r.block as usize;
            assert!(i < blocks_per_element, "recorded block row {i}");
            let range = i * block..(i + 1) * block;
            let cells = (0..g.cols)
                .flat_map(|col| (0..g.rows).map(move |row| Pos { row, col }))
                .filter(|&p| g.cell(p) != Cell::Empty);
            let (bad, good): (Vec<Pos>, Vec<Pos>) = cells.partition(|&p| home.is_bad(p, i));
            let is_data = |p: &Pos| matches!(g.cell(*p), Cell::Data(_));
            let bad_data: Vec<Pos> = bad.iter().copied().filter(is_data).collect();
            if bad_data.is_empty() {
                continue; // every data block reads: nothing to prove
            }
            let recorded = |list: &[(usize, usize, u32)], p: Pos, bytes: &[u8]| {
                let crc = crc32c::crc32c(bytes);
                list.iter()
                    .any(|&(row, col, c)| (row, col, c) == (p.row, p.col, crc))
            };
            let kept = |p: Pos| recorded(&r.data, p, &home.buf.element(p)[range.clone()]);
            if !good.iter().copied().filter(is_data).all(kept) {
                continue; // a later write changed the row: the record says nothing of it
            }
            let erased: BTreeSet<usize> = bad.iter().map(|p| p.col).collect();
            if erased.len() > tolerance {
                continue;
            }
            let survivors: Vec<usize> = (0..g.cols).filter(|c| !erased.contains(c)).collect();
            let proven = (0..=tolerance - erased.len()).find_map(|extra| {
                subsets(&survivors, extra).into_iter().find_map(|more| {
                    let cols: Vec<usize> = erased.iter().copied().chain(more).collect();
                    slice_stripe_into(&home.buf, range.clone(), &mut one);
                    self.code.decode(&mut one, &cols).ok()?;
                    let proven = |&p: &Pos| {
                        recorded(&r.data, p, one.element(p))
                            || recorded(&r.found_decodes, p, one.element(p))
                    };
                    bad_data.iter().all(proven).then(|| {
                        let blocks: Vec<(Pos, Vec<u8>)> = bad_data
                            .iter()
                            .map(|&p| (p, one.element(p).to_vec()))
                            .collect();
                        blocks
                    })
                })
            });
            let Some(blocks) = proven else {
                continue;
            };
            for (p, bytes) in blocks {
                home.buf.element_mut(p)[range.clone()].copy_from_slice(&bytes);
            }
            // Unreadable parity blocks of the row follow its proven data.
            slice_stripe_into(&home.buf, range.clone(), &mut one);
            if self.code.encode(&mut one).is_err() {
                continue;
            }
            for p in bad.iter().filter(|p| !is_data(p)) {
                home.buf.element_mut(*p)[range.clone()].copy_from_slice(one.element(*p));
            }
            home.proven_by_repair.insert(i);
        }
    }
}

/// Every `n`-element subset of `items`, in lexicographic order (`n` at most
/// `PROOF_ERASED_COLUMNS_MAX`).
fn subsets(items: &[usize], n: usize) -> Vec<Vec<usize>> {
    assert!(n <= PROOF_ERASED_COLUMNS_MAX, "{n} columns");
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for (at, &first) in items.iter().enumerate() {
        for mut rest in subsets(&items[at + 1..], n - 1) {
            rest.insert(0, first);
            all.push(rest);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::subsets;

    #[test]
    fn subsets_of_n_columns_are_each_choice_once() {
        assert_eq!(subsets(&[1, 2, 3], 0), vec![Vec::<usize>::new()]);
        assert_eq!(
            subsets(&[1, 2, 3], 2),
            vec![vec![1, 2], vec![1, 3], vec![2, 3]]
        );
        assert_eq!(subsets(&[0, 1, 2, 3, 4, 5], 3).len(), 20);
        assert!(subsets(&[1], 2).is_empty());
    }
}
