//! The cache-zone witness checked at open (session 43, s43b; see `State::cache_witness`).
//!
//! Why at open, with an OSS out of service: there a cache stripe row may have no column to
//! spare, and a stale element (a lost write: old bytes under their valid checksum) in it
//! can be neither located by the running parity nor rebuilt. A read of it finds it by the
//! witness and records it LOST itself (`check_cache_witness`), but a loss is owed to the
//! record before any read is served (`status` lists it, every reader is told the same),
//! so a degraded open reads every witnessed cached block once. With every OSS up a stale
//! block is rebuilt from parity by its read (and located by the settle's check), so a
//! healthy open reads nothing more. Bounded: at most `CACHE_WITNESS_PIECES_MAX` pieces,
//! read as runs of adjacent pieces.

use super::*;

impl Store {
    /// Read every witnessed block (cached, or carried home by a destage), when an OSS is
    /// failed on record or out of service, so that the stale ones go on record (LOST) now.
    /// Best effort: a read that fails otherwise leaves its block to the read's own check.
    pub(super) fn check_cache_witness_when_degraded(&self) {
        if self.kind != StrategyKind::Wcl || self.tolerance() == 0 {
            return;
        }
        let runs: Vec<(u64, u64, u64)> = {
            let core = self.core.lock();
            let degraded =
                !core.state.failed_oss.is_empty() || self.backends.iter().any(|b| !b.healthy());
            if !degraded || core.state.cache_witness.is_empty() {
                return;
            }
            let mut runs: Vec<(u64, u64, u64)> = Vec::new();
            for (&file, pieces) in &core.state.cache_witness {
                for (&a, &(z, _)) in pieces {
                    match runs.last_mut() {
                        Some((f, _, end)) if *f == file && *end >= a => *end = (*end).max(z),
                        _ => runs.push((file, a, z)),
                    }
                }
            }
            runs
        };
        for (file, a, z) in runs {
            let mut at = a;
            while at < z {
                let len = (z - at).min(WRITE_CHUNK_BYTES_MAX);
                let extents = {
                    let core = self.core.lock();
                    if !core.state.lost_in(file, at, len).is_empty() {
                        // Already on record: reads refuse it (a piece beside it is read
                        // by its own read's check).
                        at += len;
                        continue;
                    }
                    match self.lookup_newest(&core, file, at, len) {
                        Ok(x) => x,
                        Err(_) => break,
                    }
                };
                for x in &extents {
                    let mut buf = vec![0u8; x.len_bytes as usize];
                    // The read checks the witness and records a stale block LOST; any
                    // error is its reader's to meet again.
                    let _ =
                        self.read_range_for_client(exec::ElementRead::of_extent(file, x), &mut buf);
                }
                at += len;
            }
        }
    }
}

impl Store {
    /// The data columns of the cache stripe of `(file, stripe)` (its chunks `chunks`, their
    /// live bytes read into `buf`) whose bytes fail a piece of the cache-zone witness: each
    /// holds bytes older than the last acknowledged ones (a lost write under a valid
    /// checksum), so a decode must count it an erasure, not an input. Why (s44c; docs/store.md
    /// Limits before session 44): a decode through such a column into a column with no piece
    /// of its own (its block partly overwritten, so its piece dropped) rebuilt wrong bytes
    /// nothing checked: raid5, a failed data OSS beside a stale one read WRONG byte 0.
    /// Returns each such column with the element blocks (4 KiB, by index) whose pieces fail.
    /// Only where the planner's lookup names this very chunk as the newest copy of the
    /// piece's bytes (a piece is the crc of the newest write, and an older cache stripe of
    /// the same home stripe holds older bytes by right); columns in `skip` (erased already,
    /// or laid over by a running plan's bytes before it) are not checked. Bounded: one
    /// lookup per data element of one stripe, and the pieces within it.
    pub(super) fn witness_failing_columns(
        &self,
        core: Option<&Core>,
        (file, stripe): (u64, u64),
        chunks: &exec::Chunks,
        buf: &StripeBuf,
        skip: &BTreeSet<usize>,
    ) -> BTreeMap<usize, BTreeSet<u64>> {
        let mut failing: BTreeMap<usize, BTreeSet<u64>> = BTreeMap::new();
        if self.kind != StrategyKind::Wcl {
            return failing;
        }
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        self.with_core(core, |c| {
            if !c.state.cache_witness.contains_key(&file) {
                return failing;
            }
            for (d, p) in g.data_pos.iter().enumerate() {
                if skip.contains(&p.col) {
                    continue;
                }
                let Some(&(oss, base)) = chunks.get(&p.col) else {
                    continue; // never written in this cache stripe: nothing read
                };
                let fa = self.layout.file_offset(stripe, d, 0);
                let Ok(extents) = self.lookup_newest(c, file, fa, e) else {
                    continue; // past the file's end, say: nothing checked (today's checks)
                };
                let row_base = base + p.row as u64 * e;
                for x in &extents {
                    let here = x.zone == PlanZone::Cache
                        && x.oss == oss
                        && x.addr_bytes == row_base + x.element.offset_bytes;
                    if !here {
                        continue;
                    }
                    let (xa, xz) = (x.file_offset_bytes, x.file_offset_bytes + x.len_bytes);
                    for (pa, pz, crc) in c.state.cache_witness_in(file, xa, xz) {
                        if !(xa <= pa && pz <= xz) {
                            continue;
                        }
                        let ea = x.element.offset_bytes + (pa - xa);
                        let ez = ea + (pz - pa);
                        assert!(ez <= e, "a piece lies within its element");
                        assert_eq!(ea / block, (ez - 1) / block, "a piece lies within a block");
                        if crc32c::crc32c(&buf.element(*p)[ea as usize..ez as usize]) != crc {
                            failing.entry(p.col).or_default().insert(ea / block);
                        }
                    }
                }
            }
            failing
        })
    }
}

impl Store {
    /// A client read's cache-stripe decode failed (`columns`): the first OSS only away (its
    /// directory unmounted, not failed on record) whose mount could change the outcome, as
    /// `missing_oss_dir` names it; else `None`, and the failure is decided as with every OSS
    /// present. Could change it: its column holds a chunk of this cache stripe that the
    /// decode erased (an OSS holding no chunk of it adds nothing to the decode), and either
    /// the decode failed for want of columns and would have been within the code's
    /// tolerance with the away ones read, or it failed on a check after the decode (a
    /// running parity disagreeing with its data), which an erased column read may settle.
    /// Why (s45a, review r44c MEDIUM-1): s44c refused wherever ANY other OSS of the row was
    /// away, so two lost writes in one raid5 row (a loss for good) stayed off the record,
    /// `status` clean, while an OSS the decode never needed was away. Bounded by the code's
    /// width (one directory check per erased column).
    pub(super) fn away_column_could_help(
        &self,
        core: Option<&Core>,
        columns: &exec::DecodeColumns,
    ) -> Option<String> {
        let away: Vec<String> = (columns.erased.iter())
            .filter(|col| !columns.witness_erased.contains(col))
            .filter_map(|col| columns.chunks.get(col))
            .filter_map(|&(oss, _)| self.missing_oss_dir(core, oss))
            .collect();
        assert!(
            away.len() <= columns.erased.len(),
            "away columns were erased"
        );
        let first = away.first()?;
        let could =
            !columns.past_tolerance || columns.erased.len() - away.len() <= self.tolerance();
        could.then(|| first.clone())
    }

    /// A client read's decode of a WCL cache element (`oss`, `element`; element bytes
    /// `want` as `(offset, len)`) failed for want of columns (`columns`) with columns the
    /// witness erased (a lost write under a valid checksum), and every other erased column,
    /// the wanted one too, is on an OSS failed on record: no remount brings the bytes back,
    /// so the wanted blocks are recorded LOST (`WITNESS_DECODE_LOST`) when the caller holds
    /// no core lock, and the error says so; else `failed` as it is (a column only away or
    /// not answering may come back: refused, nothing recorded). Why (s45a, review r44c
    /// MEDIUM-2): s44c's witness erasure turned such reads into `DataLost` with nothing on
    /// record, so `status` showed no loss while the block could never be read; the home
    /// witness's `witness_decode_lost` records its decodes' losses the same way. The stale
    /// column's own blocks go on record at their own read (`check_cache_witness`).
    pub(super) fn witness_decode_lost_for_good(
        &self,
        core: Option<&Core>,
        (oss, file, element): (usize, u64, &exaraid_plan::ElementRange),
        (want_offset_bytes, want_len_bytes): (u64, u64),
        columns: &exec::DecodeColumns,
        failed: StoreError,
    ) -> StoreError {
        if core.is_some() || !columns.past_tolerance || columns.witness_erased.is_empty() {
            return failed;
        }
        let for_good = {
            let c = self.core.lock();
            (columns.erased.iter())
                .filter(|col| !columns.witness_erased.contains(col))
                .all(|col| {
                    (columns.chunks.get(col)).is_some_and(|(o, _)| c.state.failed_oss.contains(o))
                })
        };
        let Some(file_at) = self.layout.file_offset_of(element) else {
            return failed;
        };
        if !for_good {
            // Nothing goes on record. Where an erased column is only away and its mount
            // would bring the decode within the tolerance, the refusal says so (s46d, review
            // r45a MEDIUM-2: raid6, the wanted OSS failed, a stale column, P away: the
            // refusal named the failed OSS's rebuild and "the code tolerates 2", not the
            // mount that brings the bytes back). An away OSS that could not help either is
            // not weighed here (OPEN: refused, nothing on record, until it is back).
            return match self.away_column_could_help(core, columns) {
                Some(missing) => StoreError::DataLost(format!(
                    "{missing}; without it: {failed}; nothing was changed or recorded lost: mount it and retry (the decode needs its column)"
                )),
                None => failed,
            };
        }
        assert!(want_offset_bytes >= element.offset_bytes && want_len_bytes > 0);
        let block = CHECKSUM_BLOCK_BYTES as u64;
        // File byte of element byte 0 (elements are whole 4 KiB blocks of the file).
        let element_at = file_at - element.offset_bytes;
        assert_eq!(element_at % block, 0, "an element starts on a block");
        // The witness erased its columns whole, but a column is stale only in the blocks
        // whose pieces fail: a wanted block is past the tolerance for good only where the
        // erasures in its own block row are (session 45, lead: at 8 KiB elements a column
        // stale in block 0 recorded the wanted block 1 LOST, which decodes right).
        let erased_whole = columns.erased.len() - columns.witness_erased.len();
        let starts: Vec<u64> = (want_offset_bytes / block
            ..(want_offset_bytes + want_len_bytes).div_ceil(block))
            .filter(|b| {
                let stale = (columns.witness_stale_blocks.values())
                    .filter(|blocks| blocks.contains(b))
                    .count();
                erased_whole + stale > self.tolerance()
            })
            .map(|b| element_at + b * block)
            .collect();
        if starts.is_empty() {
            return failed;
        }
        let columns_stale = &columns.witness_erased;
        // `element` is the read's piece of the element, and `blocks_lost` clips to it: the
        // whole element, so that each wanted block goes on record whole (review r45a
        // MEDIUM-1: a read of 0..1000 recorded 0..1000 only). Every byte of such a block is
        // lost alike: its OSS is failed on record (no direct read, now or after a remount),
        // and the decode's erasures in its block row (the failed column whole, the stale
        // columns by block: `witness_stale_blocks`) are the same at each of its offsets, so
        // a later read of the block's other bytes is refused the same way (and recorded).
        let whole_element = exaraid_plan::ElementRange {
            offset_bytes: 0,
            len_bytes: self.sb.element_bytes as u64,
            ..*element
        };
        assert!(element.offset_bytes + element.len_bytes <= whole_element.len_bytes);
        self.blocks_lost(
            core,
            (oss, file, &whole_element),
            &starts,
            super::stale_cache::WITNESS_DECODE_LOST,
            format!(
                "{failed}; no remount brings them back: their OSS {oss} is failed on record, and the decode from the cache stripe's parity needs columns {columns_stale:?}, which hold bytes other than the last acknowledged ones (their crc on record differs: an OSS lost a write)"
            ),
        )
    }
}
