//! A WCL cache stripe row decided by the record of an earlier recovery's decision
//! (`Rec::RecoveryDecision`, session 30, s30d).
//!
//! Why: `decide_cache_stripe` rewrites a cut write's cache stripe row's running parity from
//! the data it decided, one block write per parity block. A recovery killed between two of
//! them leaves parity of neither version of the cut write, and the disk alone cannot tell
//! that row from one with a stale column: s29b's rule left a block of raid6 LOST named (and
//! rs k+2's whole row: Cauchy coefficients are never 1), and s28b's read a stale xcode
//! element with success (s29c, WRONG BYTES). So the recovery journals, fsync'd, after its
//! data writes of the cache stripe and before its first running parity write, the crc32c of
//! each data block it decided and of each parity block it will write; the next open decides
//! such a row by that record alone, before any rule on the disk:
//!
//! - a block whose bytes (as the running parity covers them) match its recorded crc is
//!   known, and so are the zeros the running parity covers where no chunk holds a data
//!   element (a partly filled cache stripe) or no term of a parity has acknowledged bytes
//!   (s31c); every other one is erased;
//! - erased data is decoded from the known blocks (whole columns where as many as the code
//!   tolerates are erased, then equation by equation: a parity equation with one unknown
//!   term), and a decoded block is taken only where it matches its recorded crc;
//! - every data block then matches the record: the row is the decision, its running parity
//!   is rewritten from it (a new record first). Else its acknowledged bytes are LOST: a
//!   block that no longer holds what the recovery decided, and cannot be decoded back to it,
//!   is a fault after the decision (a lost write, rot), never taken as it stands.
//!
//! Bound: one record per cut cache stripe (a later decision of the same one replaces it),
//! one entry per block row the recovery rewrote; `PlannerReset` (the end of the settle that
//! moves the stripe home, every write of it synced) drops them all.
//!
//! Not decided here (the rules on the disk decide it, as before): a row with a column
//! without bytes (an OSS failed after the decision: its decode would go to the settle as a
//! proven piece, not built), and a cache stripe whose chunks differ from the recorded ones.

use super::*;

/// The running parity rewrite `decide_cache_stripe` leaves to its caller, which journals
/// `decision` (fsync'd) after syncing the OSSs of `data_osses` (the decision's own data
/// writes) and before the first of `writes` (`(oss, key, element offset, bytes)`).
pub(super) struct ParityRewrite {
    pub(super) decision: crate::state::RecoveryDecision,
    pub(super) writes: Vec<(usize, ElementKey, usize, Vec<u8>)>,
    pub(super) data_osses: BTreeSet<usize>,
}

/// What the record of an earlier recovery says of one block row.
pub(super) enum ByRecord {
    /// Every data block is the decision: these data blocks (`(pos, block bytes)`, as the
    /// running parity covers them) are to be written back (decoded, or failing their
    /// checksum); the rest stand.
    Decided(Vec<(Pos, Vec<u8>)>),
    /// Some data block is not the decision and cannot be decoded back to it.
    Unproven,
}

impl Store {
    /// Journal `rewrite.decision` and make the rewrite (see `ParityRewrite`); nothing
    /// without a parity write.
    pub(super) fn rewrite_running_parity(
        &self,
        core: &mut Core,
        rewrite: ParityRewrite,
    ) -> Result<(), StoreError> {
        if rewrite.writes.is_empty() {
            return Ok(());
        }
        assert!(
            rewrite.decision.rows.len() <= self.sb.element_bytes / CHECKSUM_BLOCK_BYTES,
            "one decided row per block row at most"
        );
        // The record says what the data blocks hold: they must be on disk first, also
        // across a power cut (else the next open finds them not decided and loses them).
        let osses: Vec<usize> = rewrite.data_osses.iter().copied().collect();
        if let Some((_, err)) = self.sync_osses(&osses).into_iter().next() {
            return Err(err.into());
        }
        self.journal(core, Rec::RecoveryDecision(rewrite.decision), true)?;
        for (oss, key, at, bytes) in rewrite.writes {
            self.count(oss, Zone::Cache, Op::Write, true);
            self.backends[oss].write(key, at, &bytes)?;
        }
        Ok(())
    }

    /// Encode block row `i` of the cache stripe `buf` holds as decided (data masked to
    /// its acknowledged bytes) and add its running parity writes and its decided row to
    /// `rewrite`. Only a block some plan wrote: where the running parity is live (a write
    /// of one of its terms wrote it) or where the cut write wrote it. Every other block of
    /// the chunk is never read (readers mask the running parity to its live ranges), and
    /// its slot may be one no write reserved: an array code's write updates only the
    /// parities of the data it writes, so the other parity rows of its chunks were never
    /// allocated, and on a full disk rewriting them failed ENOSPC at every open (review
    /// s12r R12-3).
    pub(super) fn add_row_parity_rewrite(
        &self,
        (buf, i): (&StripeBuf, usize),
        keys: &BTreeMap<Pos, (usize, ElementKey)>,
        held: &BTreeMap<Pos, Vec<Held>>,
        (parity_live, cut_ranges): (&[Ranges], &BTreeMap<Pos, Ranges>),
        rewrite: &mut ParityRewrite,
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let (start, end) = ((i * block) as u64, ((i + 1) * block) as u64);
        let mut one = StripeBuf::zeroed(g.rows, g.cols, block);
        slice_stripe_into(buf, start as usize..end as usize, &mut one);
        self.code
            .encode(&mut one)
            .map_err(|e| StoreError::Io(e.to_string()))?;
        let mut row = crate::state::DecidedRow {
            block: i as u64,
            data: Vec::new(),
            parity: Vec::new(),
        };
        for (&p, &(oss, _)) in keys {
            if matches!(g.cell(p), Cell::Data(_)) {
                row.data
                    .push((p.row, p.col, crc32c::crc32c(one.element(p))));
                // Every data block the record names must be on disk before it, not only the
                // ones this recovery wrote (review of session 30's merge, F3): an earlier
                // killed recovery's unsynced restore of a stale element, read back from the
                // page cache here, reverts at a power cut and the record proves nothing.
                if self.backends[oss].healthy() {
                    rewrite.data_osses.insert(oss);
                }
            }
        }
        for (q, &p) in g.parity_pos.iter().enumerate() {
            let Some(&(oss, key)) = keys.get(&p) else {
                continue;
            };
            let cut_wrote = cut_ranges.get(&p).is_some_and(|r| overlaps(r, start, end));
            if !overlaps(&parity_live[q], start, end) && !cut_wrote {
                continue;
            }
            if self.backends[oss].healthy() && held[&p][i] != Held::Absent {
                let bytes = one.element(p).to_vec();
                row.parity.push((p.row, p.col, crc32c::crc32c(&bytes)));
                rewrite.writes.push((oss, key, start as usize, bytes));
            }
        }
        if !row.parity.is_empty() {
            rewrite.decision.rows.push(row);
        }
        Ok(())
    }

    /// The record of an earlier recovery's decision of cache stripe `(file, stripe)` held in
    /// `chunks`, if any.
    pub(super) fn recorded_decision<'c>(
        core: &'c Core,
        (file, stripe): (u64, u64),
        chunks: &[(usize, usize, u64)],
    ) -> Option<&'c crate::state::RecoveryDecision> {
        (core.state.recovery_decisions.iter())
            .find(|d| d.file == file && d.stripe == stripe && d.chunks == chunks)
    }

    /// Block row `row.block` of a cache stripe by the record `row` (module docs). `data`:
    /// every data element with a chunk, as the running parity covers it (block row sliced
    /// out of the whole stripe); `parity`: every running parity element with a chunk, as on
    /// disk; `failed`: the positions whose block fails its checksum; `parity_not_live`: the
    /// running parity positions no term of which has acknowledged bytes in this block row.
    /// `None` where the record does not apply (see the module docs).
    pub(super) fn decided_by_record(
        &self,
        row: &crate::state::DecidedRow,
        (data, parity): (&BTreeMap<Pos, &[u8]>, &BTreeMap<Pos, &[u8]>),
        failed: &BTreeSet<Pos>,
        parity_not_live: &BTreeSet<Pos>,
    ) -> Option<ByRecord> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let data_crc: BTreeMap<Pos, u32> = (row.data.iter())
            .map(|&(r, c, crc)| (pos_of(r, c), crc))
            .collect();
        let parity_crc: BTreeMap<Pos, u32> = (row.parity.iter())
            .map(|&(r, c, crc)| (pos_of(r, c), crc))
            .collect();
        // The record names the same data elements as the chunks hold now (they are the
        // recorded chunks): else it is not this row's.
        if data_crc.keys().ne(data.keys()) || !parity_crc.keys().all(|p| parity.contains_key(p)) {
            return None;
        }
        let mut known: BTreeMap<Pos, Vec<u8>> = BTreeMap::new();
        for (&pos, bytes) in data {
            assert_eq!(bytes.len(), block, "one block row");
            if crc32c::crc32c(bytes) == data_crc[&pos] {
                known.insert(pos, bytes.to_vec());
            }
        }
        for (&pos, bytes) in parity {
            if parity_crc.get(&pos) == Some(&crc32c::crc32c(bytes)) {
                known.insert(pos, bytes.to_vec());
            }
        }
        // The decision's codeword holds zeros where no chunk holds a data element (a partly
        // filled cache stripe: the running parity covers it as zeros) and at a running parity
        // none of whose terms has acknowledged bytes here (every term masked to zeros): both
        // are known, not erased (s31c, F4: counted erased, a partly filled cache stripe went
        // past the tolerance and lost acknowledged bytes after ONE bad block). A wrong guess
        // here cannot slip through: every decoded block is taken only by its recorded crc.
        let zeros = vec![0u8; block];
        for &pos in g.data_pos.iter().filter(|p| !data.contains_key(p)) {
            known.insert(pos, zeros.clone());
        }
        for &pos in parity_not_live {
            assert!(matches!(g.cell(pos), Cell::Parity(_)), "a parity position");
            if !parity_crc.contains_key(&pos) {
                known.insert(pos, zeros.clone());
            }
        }
        let unknown_data: Vec<Pos> = (data.keys())
            .filter(|p| !known.contains_key(p))
            .copied()
            .collect();
        let mut decoded: BTreeMap<Pos, Vec<u8>> = BTreeMap::new();
        if !unknown_data.is_empty() {
            self.decode_by_columns(data, &known, &mut decoded);
            // A decode that is not the decision must not feed the equations below.
            decoded.retain(|p, b| !known.contains_key(p) && crc32c::crc32c(b) == data_crc[p]);
            self.decode_by_equations(&known, &mut decoded);
        }
        let mut writes = Vec::new();
        for &pos in data.keys() {
            if let Some(bytes) = decoded.get(&pos).filter(|_| !known.contains_key(&pos)) {
                if crc32c::crc32c(bytes) != data_crc[&pos] {
                    return Some(ByRecord::Unproven);
                }
                writes.push((pos, bytes.clone()));
            } else if !known.contains_key(&pos) {
                return Some(ByRecord::Unproven);
            } else if failed.contains(&pos) {
                writes.push((pos, known[&pos].clone()));
            }
        }
        assert!(
            writes
                .iter()
                .all(|(p, b)| g.cell(*p) != Cell::Empty && b.len() == block),
            "only data blocks of the row are written back"
        );
        Some(ByRecord::Decided(writes))
    }

    /// Decode the columns holding an unknown position (data or running parity) from the
    /// known ones, where no more than the code tolerates: every decoded data block goes into
    /// `decoded` (checked by its recorded crc by the caller).
    fn decode_by_columns(
        &self,
        data: &BTreeMap<Pos, &[u8]>,
        known: &BTreeMap<Pos, Vec<u8>>,
        decoded: &mut BTreeMap<Pos, Vec<u8>>,
    ) {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let mut erased: Vec<usize> = (0..g.cols)
            .filter(|&col| {
                (0..g.rows).any(|row| {
                    let pos = pos_of(row, col);
                    g.cell(pos) != Cell::Empty && !known.contains_key(&pos)
                })
            })
            .collect();
        erased.sort_unstable();
        if erased.is_empty() || erased.len() > self.tolerance() {
            return;
        }
        let mut one = StripeBuf::zeroed(g.rows, g.cols, block);
        for (pos, bytes) in known {
            one.element_mut(*pos).copy_from_slice(bytes);
        }
        if self.code.decode(&mut one, &erased).is_err() {
            return;
        }
        for pos in data.keys() {
            if erased.contains(&pos.col) {
                decoded.insert(*pos, one.element(*pos).to_vec());
            }
        }
    }

    /// Solve parity equations with exactly one data term unknown (neither known nor in
    /// `decoded`) and their parity block known, until none is left: array codes, whose
    /// unknown blocks rarely fill whole columns.
    fn decode_by_equations(
        &self,
        known: &BTreeMap<Pos, Vec<u8>>,
        decoded: &mut BTreeMap<Pos, Vec<u8>>,
    ) {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        // Each round solves one term at least, or stops: at most one per data element.
        for _ in 0..=g.data_count() {
            let mut solved = false;
            for (q, terms) in g.parity_terms.iter().enumerate() {
                let Some(p) = known.get(&g.parity_pos[q]) else {
                    continue;
                };
                let value = |d: usize| {
                    let pos = g.data_pos[d];
                    known.get(&pos).or_else(|| decoded.get(&pos))
                };
                let unknown: Vec<&exaraid_codes::Term> =
                    terms.iter().filter(|t| value(t.data).is_none()).collect();
                let [u] = unknown[..] else {
                    continue;
                };
                let mut sum = p.clone();
                for t in terms.iter().filter(|t| t.data != u.data) {
                    let d = value(t.data).expect("every other term known");
                    for (s, &b) in sum.iter_mut().zip(d) {
                        *s ^= exaraid_codes::gf256::mul(t.coef, b);
                    }
                }
                assert_ne!(u.coef, 0, "no zero coefficient (`Geometry`)");
                let inverse = exaraid_codes::gf256::inv(u.coef);
                let bytes: Vec<u8> = (sum.iter())
                    .map(|&s| exaraid_codes::gf256::mul(inverse, s))
                    .collect();
                assert_eq!(bytes.len(), block);
                decoded.insert(g.data_pos[u.data], bytes);
                solved = true;
            }
            if !solved {
                return;
            }
        }
    }
}
