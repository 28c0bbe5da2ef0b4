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
//! The record speaks only of the row as the repair left it (s34e, merge review of session
//! 33, finding (i): after one lost OSS, a later acknowledged write to the row and its lost Q
//! write, the decode through the stale Q matched the record's decode before the repair and
//! read the bytes before the write with success). So a row is taken only where each
//! readable data block matches its kept crc AND each readable parity block matches its crc
//! as the repair found it or as it wrote it; and a journaled write to the file, a settle of
//! the stripe, or the file's removal drops the record (`State::apply_change`). The drop
//! covers a write (END, tick) journaled AFTER the record: each journals its input before
//! its first OSS write. One journaled before the record but run after it is the queue
//! check's (merge review of s34e, HIGH-1): the repair journals no record while any other
//! ticket waits on the stripe (`StripeLocks::queued_besides`, under the core lock, under
//! which every plan's input is journaled and its ticket taken), so every plan that changes
//! the row after the record journals its input after it. The crc checks cover a change the
//! journal does not show (a lost write, bit rot, an OSS restored): a later change of the
//! row is a nonzero codeword difference (the codes are MDS, and an rmw adds the encoded
//! delta to whatever parity is on disk), which touches at least tolerance + 1 columns; for
//! every readable block to still pass, each touched column must be erased, hold a lost
//! write, or move a parity block exactly from one of its two recorded versions to the
//! other (a write that undoes the cut write's landed bytes: then the row is as recorded).
//!
//! Bound: one record per repaired stripe (a later repair of it replaces its rows, and keeps
//! the rows it did not repair again, and an earlier row's found decodes and found parity
//! where the data is the same), one entry per block row; `JournalTailChecked` (a scrub found every stripe's
//! parity matching) drops them all. A degraded read decodes only the rows it wants, at most
//! C(cols, 3) decodes each. Codes of more than 3 parities get no record (the decodes per
//! row would grow as C(cols, tolerance)): the repair journals none, and a read ignores one.

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
    /// decoded it, and of each parity block as found and as `encoded` holds it (the stripe
    /// as it will be). `None` on a code of more than `PROOF_ERASED_COLUMNS_MAX` parities.
    pub(super) fn tail_cut_repair_record(
        &self,
        home: &HomeStripe,
        encoded: &StripeBuf,
        rows: &[usize],
    ) -> Result<Option<TailCutRepair>, StoreError> {
        if self.tolerance() > PROOF_ERASED_COLUMNS_MAX {
            return Ok(None);
        }
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
                found_parity: parity.iter().map(|&p| crc_of(&found, p)).collect(),
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
        Ok(Some(record))
    }

    /// Block rows among `wanted` of `home` (as read) that a repair's record after a tail
    /// cut proves (see the module's comment): their unreadable blocks are put in
    /// `home.buf` from a decode whose every rebuilt data block matches a recorded crc of
    /// its own block (the parity blocks among them re-encoded from that data), and the rows
    /// go in `home.proven_by_repair`, which `decode_blocks` leaves as they are. Rows not
    /// wanted are not decoded (merge review of session 33, finding (iii): every recorded
    /// row on every degraded read).
    pub(super) fn decode_by_tail_cut_repair(
        &self,
        core: Option<&Core>,
        home: &mut HomeStripe,
        wanted: &BTreeSet<usize>,
    ) {
        // Above 3 parities no record is journaled, and one on record (a damaged journal)
        // is not read: the proof's decodes would grow as C(cols, tolerance).
        if self.kind == StrategyKind::Raid0 || self.tolerance() > PROOF_ERASED_COLUMNS_MAX {
            return;
        }
        let rows: Vec<RepairedRow> = self.with_core(core, |c| {
            let mut records = c.state.tail_cut_repairs.iter();
            let record = records.find(|r| (r.file, r.stripe) == (home.file, home.stripe));
            let rows = record.into_iter().flat_map(|r| r.rows.iter());
            rows.filter(|r| wanted.contains(&(r.block as usize)))
                .cloned()
                .collect()
        });
        if rows.is_empty() {
            return;
        }
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let blocks_per_element = self.sb.element_bytes / block;
        let tolerance = self.tolerance();
        let mut one = StripeBuf::zeroed(g.rows, g.cols, block);
        for r in &rows {
            let i = r.block as usize;
            // The open refuses a record naming a row outside the element
            // (`refuse_damaged_tail_cut_repairs`), and `wanted` lies within it.
            assert!(i < blocks_per_element, "recorded block row {i}");
            #[cfg(test)]
            tests::ROWS_TRIED[tolerance.min(tests::TOLERANCE_SLOTS - 1)]
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
            // Nor where a readable parity block is neither as the repair found it nor as it
            // wrote it: a later write reached the row (its data on an erased column), and a
            // parity block it left stale may decode the bytes before it (finding (i)).
            let as_left = |p: Pos| {
                let bytes = &home.buf.element(p)[range.clone()];
                recorded(&r.parity, p, bytes) || recorded(&r.found_parity, p, bytes)
            };
            let is_parity = |p: &Pos| matches!(g.cell(*p), Cell::Parity(_));
            if !good.iter().copied().filter(is_parity).all(as_left) {
                continue;
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
                    #[cfg(test)]
                    tests::DECODES_TRIED[tolerance.min(tests::TOLERANCE_SLOTS - 1)]
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

/// Refuses a state whose repair records after a tail cut name a block row outside the
/// element or a cell outside the code's grid or of the other kind (a damaged journal or
/// state file: a degraded read would index by them). Why at open (merge review of session
/// 33, finding (ii)): `State::apply` knows no geometry, and a panic in a read later is no
/// answer; refused here, nothing was changed.
pub(super) fn refuse_damaged_tail_cut_repairs(
    dir: &Path,
    records: &[TailCutRepair],
    g: &exaraid_codes::Geometry,
    element_bytes: usize,
) -> Result<(), StoreError> {
    let blocks_per_element = (element_bytes / CHECKSUM_BLOCK_BYTES) as u64;
    for record in records {
        for r in &record.rows {
            let cell_is = |&(row, col, _): &(usize, usize, u32), data: bool| {
                row < g.rows
                    && col < g.cols
                    && match g.cell(Pos { row, col }) {
                        Cell::Data(_) => data,
                        Cell::Parity(_) => !data,
                        _ => false,
                    }
            };
            let cells_ok = r.data.iter().all(|c| cell_is(c, true))
                && r.found_decodes.iter().all(|c| cell_is(c, true))
                && r.parity.iter().all(|c| cell_is(c, false))
                && r.found_parity.iter().all(|c| cell_is(c, false));
            if r.block < blocks_per_element && cells_ok {
                continue;
            }
            return Err(StoreError::Metadata(format!(
                "{}: the journal or state file holds a record of the repair after a journal tail cut (TailCutRepair) of file {} stripe {} that names 4 KiB block row {} ({} per element here) or cells outside this store's code ({} rows, {} columns, data and parity cells where the record names them): the record is damaged, so the open stopped and nothing was changed. Restore the store's metadata (journal and state file) from a backup, or report it",
                dir.display(),
                record.file,
                record.stripe,
                r.block,
                blocks_per_element,
                g.rows,
                g.cols
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::subsets;
    use super::*;
    use crate::state::State;
    use crate::InitOptions;

    /// Slots of the counters below, by the code's tolerance (the last one counts the rest).
    pub(super) const TOLERANCE_SLOTS: usize = 8;
    #[allow(clippy::declare_interior_mutable_const)]
    const ZERO: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    /// Recorded block rows `decode_by_tail_cut_repair` tried to prove, by the code's
    /// tolerance (any thread: a read may run on the executor's). One test reads with a
    /// record per slot (raid6: `a_degraded_read_tries_only_the_recorded_rows_it_wants`;
    /// rs 4+4: `a_record_on_a_code_of_four_parities_is_ignored_not_a_panic`; the other
    /// tests' records are never read), so each count is its test's own.
    pub(super) static ROWS_TRIED: [std::sync::atomic::AtomicUsize; TOLERANCE_SLOTS] =
        [ZERO; TOLERANCE_SLOTS];
    /// Decodes `decode_by_tail_cut_repair` ran, by the code's tolerance (as `ROWS_TRIED`).
    pub(super) static DECODES_TRIED: [std::sync::atomic::AtomicUsize; TOLERANCE_SLOTS] =
        [ZERO; TOLERANCE_SLOTS];

    /// A store of `code` (rmw, `element_bytes` elements) holding "f", one stripe of
    /// `content`, with a journal tail cut on record and `record` journaled, the OSS of stripe
    /// 0's data column 0 failed.
    fn store_with_record(
        dir: &Path,
        code: CodeSpec,
        element_bytes: usize,
        record: impl Fn(&Store, u64) -> TailCutRepair,
    ) -> (Store, Vec<u8>) {
        let cols = exaraid_codes::Code::new(code).unwrap().geometry().cols;
        let mut opts = InitOptions::with_oss_count(dir, cols, code);
        opts.element_bytes = element_bytes;
        opts.write_path = crate::WritePath::Rmw;
        let store = Store::init(dir, &opts).unwrap();
        let sdb = store.layout.stripe_data_bytes() as usize;
        let content: Vec<u8> = (0..sdb).map(|i| (i * 7 + i / 251) as u8).collect();
        store.put("f", &content).unwrap();
        let id = store.file_id("f").unwrap();
        {
            let mut core = store.core.lock();
            let cut = Rec::JournalTailCut {
                at_byte: 1234,
                cut_bytes: 56,
            };
            store.journal(&mut core, cut, true).unwrap();
            drop(core);
            let rec = Rec::TailCutRepair(record(&store, id));
            let mut core = store.core.lock();
            store.journal(&mut core, rec, true).unwrap();
        }
        let column0 = store.layout.geometry().data_pos[0].col;
        store.fail_oss(store.layout.oss_of(id, 0, column0)).unwrap();
        (store, content)
    }

    /// Rows `blocks` of stripe 0 of `file`, each naming data block (0, 0) with crc 1.
    fn rows_of(file: u64, blocks: std::ops::Range<u64>) -> TailCutRepair {
        let row = |block| RepairedRow {
            block,
            data: vec![(0, 0, 1)],
            parity: Vec::new(),
            found_parity: Vec::new(),
            found_decodes: Vec::new(),
        };
        TailCutRepair {
            file,
            stripe: 0,
            rows: blocks.map(row).collect(),
        }
    }

    /// Merge review of session 33, finding (ii): rs k+4 stores are accepted by init, and a
    /// degraded read of a stripe with a record on record asserted a tolerance of at most 3
    /// (a panic on the reapplied s33e, 754c44c). Such a record is never journaled by this
    /// binary; one on record is ignored, and the read decodes by the rules on the disk.
    /// The record here matches the stripe as read (every cell's crc), so only the guard
    /// keeps the read from its decode loop (merge review of s34e, MEDIUM-1: a record no crc
    /// matched stopped before any decode, guard or not); with the guard removed a row is
    /// tried and decoded.
    #[test]
    fn a_record_on_a_code_of_four_parities_is_ignored_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let (store, content) = store_with_record(dir.path(), CodeSpec::rs(4, 4), 4096, |s, id| {
            let home = s.read_home_blocks(None, id, 0).unwrap();
            assert!(home.unavailable_cols.is_empty() && home.corrupt.is_empty());
            let g = s.layout.geometry();
            let mut row = RepairedRow {
                block: 0,
                data: Vec::new(),
                parity: Vec::new(),
                found_parity: Vec::new(),
                found_decodes: Vec::new(),
            };
            for col in 0..g.cols {
                for r in 0..g.rows {
                    let p = Pos { row: r, col };
                    let crc = (r, col, crc32c::crc32c(&home.buf.element(p)[..4096]));
                    match g.cell(p) {
                        Cell::Data(_) => row.data.push(crc),
                        Cell::Parity(_) => row.parity.push(crc),
                        _ => {}
                    }
                }
            }
            TailCutRepair {
                file: id,
                stripe: 0,
                rows: vec![row],
            }
        });
        let tried = |counter: &[std::sync::atomic::AtomicUsize]| {
            counter[4].load(std::sync::atomic::Ordering::Relaxed)
        };
        assert_eq!(store.read("f", 0, content.len() as u64).unwrap(), content);
        assert_eq!((tried(&ROWS_TRIED), tried(&DECODES_TRIED)), (0, 0));
    }

    /// Finding (ii): a damaged journal's record naming a block row outside the element, or
    /// a cell outside the code's grid, made a degraded read index by it (a panic on
    /// 754c44c, which opened such a store). The open refuses it, saying what is damaged,
    /// and changes nothing.
    #[test]
    fn a_damaged_record_naming_a_row_or_cell_outside_the_code_is_refused_at_open() {
        let damaged: [(&str, fn(u64) -> TailCutRepair); 2] = [
            ("block row 1", |id| rows_of(id, 1..2)),
            ("cells outside", |id| {
                let mut r = rows_of(id, 0..1);
                r.rows[0].found_decodes.push((0, 9, 1));
                r
            }),
        ];
        for (what, record) in damaged {
            let dir = tempfile::tempdir().unwrap();
            let (store, _) =
                store_with_record(dir.path(), CodeSpec::raid6(4), 4096, |_, id| record(id));
            drop(store);
            let journal = std::fs::read(dir.path().join("journal")).unwrap();
            match Store::open(dir.path()) {
                Ok(_) => panic!("{what}: the open took a damaged record"),
                Err(StoreError::Metadata(m)) => {
                    assert!(m.contains("TailCutRepair") && m.contains(what), "{m}")
                }
                Err(e) => panic!("{what}: {e}"),
            }
            let after = std::fs::read(dir.path().join("journal")).unwrap();
            assert!(
                after == journal,
                "{what}: the refused open changed the journal"
            );
        }
    }

    /// Finding (iii): a degraded read decoded every recorded row of the stripe (up to
    /// C(cols, 3) decodes each), whatever it wanted. A read of one 4 KiB block of a 64 KiB
    /// element tries that block row only (16 on 754c44c).
    #[test]
    fn a_degraded_read_tries_only_the_recorded_rows_it_wants() {
        let dir = tempfile::tempdir().unwrap();
        let (store, content) = store_with_record(dir.path(), CodeSpec::raid6(4), 65536, |_, id| {
            rows_of(id, 0..16)
        });
        ROWS_TRIED[2].store(0, std::sync::atomic::Ordering::Relaxed);
        // The record's crcs match nothing: the rules on the disk decide, and the decode
        // reads right (one column erased, a parity left to check it).
        assert_eq!(store.read("f", 0, 4096).unwrap(), content[..4096]);
        assert_eq!(ROWS_TRIED[2].load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    /// Finding (iv): a second repair of a row (the first killed between its parity writes)
    /// found parity of two versions, no spare equation checked a decode, and its record
    /// replaced the first's row with no found decodes: the first's proof of the bytes a
    /// degraded read returned before any repair was gone. Kept where the data is the same;
    /// dropped where it changed (another version of the row).
    /// A raid6 4+2 repair of block 0 of stripe 0 of file 1: data column 0's crc
    /// `data_crc`, the rest fixed.
    fn repair_of(
        data_crc: u32,
        found_parity: Vec<(usize, usize, u32)>,
        found_decodes: Vec<(usize, usize, u32)>,
    ) -> TailCutRepair {
        TailCutRepair {
            file: 1,
            stripe: 0,
            rows: vec![RepairedRow {
                block: 0,
                data: vec![(0, 0, data_crc), (0, 1, 11)],
                parity: vec![(0, 4, 21), (0, 5, 22)],
                found_parity,
                found_decodes,
            }],
        }
    }

    #[test]
    fn a_second_repair_of_a_row_keeps_the_first_repairs_found_decodes() {
        let first = |data_crc, decodes| repair_of(data_crc, vec![(0, 4, 31), (0, 5, 32)], decodes);
        let mut state = State::default();
        state.apply(1, &Rec::TailCutRepair(first(10, vec![(0, 0, 41)])));
        state.apply(2, &Rec::TailCutRepair(first(10, Vec::new())));
        assert_eq!(state.tail_cut_repairs.len(), 1);
        assert_eq!(
            state.tail_cut_repairs[0].rows[0].found_decodes,
            vec![(0, 0, 41)]
        );
        state.apply(3, &Rec::TailCutRepair(first(12, vec![(0, 1, 43)])));
        assert_eq!(
            state.tail_cut_repairs[0].rows[0].found_decodes,
            vec![(0, 1, 43)]
        );
    }

    /// Merge review of s34e, LOW-1: the first repair's found parity is kept beside the
    /// second's where the data is the same (a parity block the second's kill left unwritten
    /// is still as the first found it); dropped where the data changed.
    #[test]
    fn a_second_repair_of_a_row_keeps_the_first_repairs_found_parity() {
        let repair = |data_crc, found_parity| repair_of(data_crc, found_parity, Vec::new());
        let mut state = State::default();
        state.apply(
            1,
            &Rec::TailCutRepair(repair(10, vec![(0, 4, 31), (0, 5, 32)])),
        );
        state.apply(
            2,
            &Rec::TailCutRepair(repair(10, vec![(0, 4, 21), (0, 5, 32)])),
        );
        assert_eq!(
            state.tail_cut_repairs[0].rows[0].found_parity,
            vec![(0, 4, 21), (0, 5, 32), (0, 4, 31)]
        );
        state.apply(
            3,
            &Rec::TailCutRepair(repair(12, vec![(0, 4, 41), (0, 5, 42)])),
        );
        assert_eq!(
            state.tail_cut_repairs[0].rows[0].found_parity,
            vec![(0, 4, 41), (0, 5, 42)]
        );
    }

    /// Finding (i), the journal's half: a write to the file, a settle of the stripe, the
    /// file's removal, and a window's END or a tick while a window is open on the file
    /// (their plans write home) each drop the record (the crc checks of a read are the other half:
    /// s32g's `a_write_after_a_killed_repair_then_a_lost_parity_write`).
    #[test]
    fn a_write_a_settle_or_a_removal_drops_the_files_repair_records() {
        let record = |file, stripe| {
            let mut r = rows_of(file, 0..1);
            r.stripe = stripe;
            Rec::TailCutRepair(r)
        };
        let write = |file| {
            Rec::Input(crate::state::Input::Write {
                file,
                offset_bytes: 0,
                len_bytes: 1,
                now_ns: 1,
                crcs_follow: false,
                home_crcs_follow: false,
            })
        };
        let settle = Rec::SettleBegin {
            stripes: vec![(1, 0)],
            records_every_stripe: true,
        };
        let kept = |state: &State| -> Vec<(u64, u64)> {
            (state.tail_cut_repairs.iter())
                .map(|r| (r.file, r.stripe))
                .collect()
        };
        let mut state = State::default();
        for (seq, rec) in [record(1, 0), record(1, 1), record(2, 0)]
            .iter()
            .enumerate()
        {
            state.apply(seq as u64 + 1, rec);
        }
        state.apply(4, &settle);
        assert_eq!(kept(&state), vec![(1, 1), (2, 0)]);
        state.apply(5, &write(1));
        assert_eq!(kept(&state), vec![(2, 0)]);
        state.apply(6, &record(1, 0));
        state.apply(7, &write(3));
        assert_eq!(kept(&state), vec![(2, 0), (1, 0)]);
        let create = Rec::Create {
            name: "g".into(),
            id: 2,
            unconfirmed: false,
        };
        state.apply(8, &create);
        state.apply(9, &Rec::Remove { name: "g".into() });
        assert_eq!(kept(&state), vec![(1, 0)]);
        // A window on file 1: its END (or a tick, which may time it out) writes home.
        let window = crate::state::Window {
            window: 5,
            file: 1,
            name: "f".into(),
            started_unix_ns: 0,
            timed_out: false,
        };
        let start = Rec::WindowStart {
            token: "t".into(),
            window,
        };
        state.apply(10, &start);
        state.apply(11, &record(2, 0));
        let end = |window| crate::state::Input::EndDelayed {
            window,
            now_ns: 2,
            parity_crcs_synced: true,
        };
        state.apply(12, &Rec::Input(end(6)));
        assert_eq!(kept(&state), vec![(1, 0), (2, 0)]);
        state.apply(13, &Rec::Input(end(5)));
        assert_eq!(kept(&state), vec![(2, 0)]);
        state.apply(14, &record(1, 0));
        let tick = crate::state::Input::Tick {
            now_ns: 3,
            parity_crcs_synced: true,
        };
        state.apply(15, &Rec::Input(tick));
        assert_eq!(kept(&state), vec![(2, 0)]);
    }

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
