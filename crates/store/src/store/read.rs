//! Reads: home stripes, degraded reads (decode from the survivors), the newest bytes of a range.

use super::*;

/// A home stripe as read block by block (see `Store::read_home_blocks`).
pub(super) struct HomeStripe {
    pub(super) buf: StripeBuf,
    /// Columns on an OSS that did not answer: every block of theirs is unreadable.
    pub(super) unavailable_cols: BTreeSet<usize>,
    /// Of the elements in `unavailable_cols`, those of an OSS that is up (healthy, not
    /// failed on record) whose read failed all the same (EIO: bad sectors under them), with
    /// the error. Why: they are erased like a failed OSS's column, but nothing else records
    /// them, and scrub said clean while the stripe had lost that redundancy (review s16r
    /// R16-5).
    pub(super) unreadable: Vec<(Pos, String)>,
    /// Elements with blocks that fail their checksum or are gone; their other blocks are
    /// in `buf`.
    pub(super) corrupt: Vec<CorruptElement>,
    /// Unreadable blocks (in `corrupt` or in `unavailable_cols`) whose true bytes are known
    /// without parity: the file never wrote them, so they are zeros (zero in `buf`). Never
    /// erasures. Why: scrub visits written stripes only, so rot in a hole is never repaired
    /// and piles up, one OSS after another; counted as erasures, a row of a hole (or written
    /// bytes beside it) would be lost for bytes nobody wrote.
    pub(super) never_written: BTreeSet<(Pos, usize)>,
    /// Block rows whose readable blocks disagree with the parity and no single column
    /// explains it (`DecodeCheck::Disagree`): they are in the lost rows `decode_blocks`
    /// returns, for this reason rather than too many unreadable blocks.
    pub(super) disagree: BTreeSet<usize>,
    /// `(block row, column)`: a readable column whose checksum-clean blocks in that row
    /// disagree with the rest (stale: a lost write), located and rebuilt by `decode_blocks`.
    pub(super) located: Vec<(usize, usize)>,
    /// The entries of `located` the home witness located (`Store::witness_pick`, s46c): a
    /// rebuild from a subset of the survivors matched the acknowledged writes' pieces where
    /// the parity equations located another column or none. Only `scrub --repair`'s report
    /// reads it, to say which evidence chose the column (review r46c LOW-3).
    pub(super) witness_located: BTreeSet<(usize, usize)>,
    /// `(block row, data element)`: data blocks of a readable column the parity equations
    /// located as stale that its rebuild would change, left as read (see
    /// `Store::keep_data_as_read`).
    pub(super) located_data: Vec<(usize, Pos)>,
    /// Block rows whose unreadable blocks a repair's record after a tail cut proved and put
    /// in `buf` (`Store::decode_by_tail_cut_repair`): `decode_blocks` leaves them as they are.
    pub(super) proven_by_repair: BTreeSet<usize>,
    /// The home witness's pieces over this stripe's file bytes (`file first, file end,
    /// crc32c`) and the data blocks failing them that `erase_home_blocks_failing_the_witness`
    /// erased (`(position, block)`); empty where nothing erased by the witness. Why here:
    /// a block row whose decode the parity equations cannot settle (`Disagree`) is tried
    /// again from each subset of its survivors the code allows, and the pieces pick the
    /// one (`Store::witness_pick`, s46c).
    pub(super) witness_pieces: Vec<(u64, u64, u32)>,
    pub(super) witness_erased: BTreeSet<(Pos, usize)>,
    /// Whose stripe this is: `decode_blocks` reads the stored checksums of its corrupt
    /// blocks (see `decode_refused_by_checksum`).
    pub(super) file: u64,
    pub(super) stripe: u64,
}

pub(super) struct CorruptElement {
    pub(super) pos: Pos,
    /// Checksum block numbers that could not be read.
    pub(super) blocks: BTreeSet<usize>,
    /// The slot is gone (deleted or truncated outside exaraid): it has no checksums left.
    pub(super) missing: bool,
}

/// A corrupt or missing element as `read_home_stripe` names it: row, column, and the
/// checksum block numbers that could not be read.
pub(super) type DamagedElement = (usize, usize, Vec<usize>);

/// What a decode learned from the parity equations it did not need (see
/// `Store::decode_checked`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DecodeCheck {
    /// Every parity equation holds, or none was left to check (as many columns erased as
    /// the code tolerates).
    Consistent,
    /// One surviving column disagreed with the rest: it is the only column whose rebuild
    /// from the others satisfies every equation, and the stripe holds its rebuilt bytes.
    Located(usize),
    /// The equations disagree and no single surviving column explains it: the stripe is
    /// left as read (erased columns not rebuilt).
    Disagree,
}

impl HomeStripe {
    /// Columns with at least one unreadable block (a failed OSS's column always; a corrupt
    /// element's only if a block of it is not known as never written).
    pub(super) fn erased_cols(&self) -> Vec<usize> {
        let mut cols = self.unavailable_cols.clone();
        cols.extend(
            self.corrupt
                .iter()
                .filter(|c| c.blocks.iter().any(|&i| self.is_bad(c.pos, i)))
                .map(|c| c.pos.col),
        );
        cols.into_iter().collect()
    }

    /// Has the element at `pos` no bytes at all (its OSS did not answer, its slot is gone)?
    pub(super) fn has_no_bytes(&self, pos: Pos) -> bool {
        self.unavailable_cols.contains(&pos.col)
            || self.corrupt.iter().any(|c| c.pos == pos && c.missing)
    }

    /// Is block `i` of the element at `pos` unreadable (and not known as never written)?
    pub(super) fn is_bad(&self, pos: Pos, i: usize) -> bool {
        if self.never_written.contains(&(pos, i)) {
            return false;
        }
        self.unavailable_cols.contains(&pos.col)
            || self
                .corrupt
                .iter()
                .any(|c| c.pos == pos && c.blocks.contains(&i))
    }
}

/// Where a read ends.
#[derive(Clone, Copy, Debug)]
pub(super) enum ReadEnd {
    Length(u64),
    /// The file's end when the read takes the store's gate.
    EndOfFile,
}

impl Store {
    /// An OSS stopped answering: record it (once) and check the code still covers the loss.
    pub(super) fn note_failed(&self, oss: usize) -> Result<(), StoreError> {
        self.note_failed_recording(oss, true)
    }

    /// `note_failed`; with `losses` false the window bytes lost with it are not recorded
    /// here: for a caller that makes a plan durable next which protects some of them (its
    /// parity synced on the other OSSs) and then poisons the store, so that the next open,
    /// knowing the plan durable, records exactly the rest (`sync_failed`).
    pub(super) fn note_failed_recording(&self, oss: usize, losses: bool) -> Result<(), StoreError> {
        self.note_failed_then_durable(oss, losses, None)
    }

    /// `note_failed_recording`; with `durable` (a plan whose sync failed on `oss` only after
    /// every other OSS it wrote synced), that plan goes durable in the same record as the
    /// failure (`Rec::SyncFailedDurable`): no crash falls between the two.
    pub(super) fn note_failed_then_durable(
        &self,
        oss: usize,
        losses: bool,
        durable: Option<u64>,
    ) -> Result<(), StoreError> {
        self.note_all_failed_then_durable(&[oss], losses, durable)
    }

    /// `note_failed_then_durable` of every OSS of `osses` at once: their failures (and the
    /// plan) in one record (`journal_fails`), so that no kill leaves one of them trusted on
    /// record beside the others failed (several syncs failing under one plan).
    pub(super) fn note_all_failed_then_durable(
        &self,
        osses: &[usize],
        losses: bool,
        durable: Option<u64>,
    ) -> Result<(), StoreError> {
        assert!(!osses.is_empty() && osses.len() <= self.backends.len());
        for &oss in osses {
            self.backends[oss].set_failed(true);
        }
        let mut core = self.core.lock();
        // Past the tolerance nothing goes on record: it could never be undone (probed, as
        // one missing directory often means all are: a moved store directory).
        let down = self.unavailable_set(&core);
        if down.len() > self.tolerance() {
            return Err(self.too_many_unavailable(&core, &down));
        }
        let new: Vec<usize> = osses
            .iter()
            .copied()
            .filter(|oss| !core.state.failed_oss.contains(oss))
            .collect();
        if !new.is_empty() {
            self.journal_fails(&mut core, &new, false, durable)?;
            // Only now: a write that finds an OSS failed on record down again has nothing
            // new to record (the first record did), and a window's move home right after
            // its END parity plan must not record that plan's kept bytes lost while the
            // planner has not heard of the plan's completion yet (a read in flight defers
            // it), after its `Durable` record dropped their copies (review E11 item 2).
            if losses {
                self.record_losses(&mut core)?;
            }
        } else if let Some(plan) = durable {
            // Its failure was on record already (another plan's sync): only the plan.
            let rec = Rec::Durable { plans: vec![plan] };
            self.journal(&mut core, rec, true)?;
            self.forget_move_edge_copies(&mut core, plan);
        }
        self.absorbed_failures.lock().clear();
        let failed = core.state.failed_oss.len();
        let tolerance = self.tolerance();
        if failed > tolerance {
            return Err(StoreError::DataLost(format!(
                "{failed} OSSs have failed ({:?}) but {} tolerates {tolerance}: data may be lost; rebuild failed OSSs with `exaraid store rebuild`",
                core.state.failed_oss, self.layout.code_name()
            )));
        }
        Ok(())
    }

    pub(super) fn tolerance(&self) -> usize {
        if self.kind == StrategyKind::Raid0 {
            0
        } else {
            self.code.geometry().fault_tolerance
        }
    }

    /// `f` on the core: the caller's when it holds the core lock (`core`), else the lock is
    /// taken here. Why: the lock is not reentrant, so an error path that takes it again under
    /// a caller holding it (a settle reading cached ranges) would wait forever.
    pub(super) fn with_core<R>(&self, core: Option<&Core>, f: impl FnOnce(&Core) -> R) -> R {
        match core {
            Some(c) => f(c),
            None => f(&self.core.lock()),
        }
    }

    /// File `file`'s size, to clip the byte ranges a message names; `u64::MAX` (nothing
    /// clipped) once it is removed.
    pub(super) fn file_size_for_clipping(&self, core: Option<&Core>, file: u64) -> u64 {
        self.with_core(core, |c| {
            c.state
                .file_by_id(file)
                .map(|(_, m)| m.size_bytes)
                .unwrap_or(u64::MAX)
        })
    }

    /// File `file` as messages name it (see [`describe_file_name`]; `removed file #id` once
    /// it is removed).
    pub(super) fn file_name_in(&self, core: Option<&Core>, file: u64) -> String {
        self.with_core(core, |c| {
            c.state
                .file_by_id(file)
                .map(|(n, _)| describe_file_name(n))
                .unwrap_or_else(|| format!("removed file #{file}"))
        })
    }

    // ---------------------------------------------------------------- stripes at home

    pub(super) fn home_key(&self, file: u64, stripe: u64, pos: Pos) -> Option<(usize, ElementKey)> {
        let zone = match self.layout.geometry().cell(pos) {
            Cell::Data(_) => PlanZone::Data,
            Cell::Parity(_) => PlanZone::Parity,
            Cell::Empty => return None,
        };
        let oss = self.layout.oss_of(file, stripe, pos.col);
        Some((
            oss,
            self.key(zone, file, self.layout.home_addr(stripe, pos, 0)),
        ))
    }

    /// Read a whole home stripe; returns it with the columns that could not be read (failed
    /// OSS, checksum mismatch, or a written element whose slot is gone), and the corrupt or
    /// missing elements (row, col, blocks). The readable blocks of a corrupt element are in
    /// the stripe; its unreadable blocks and unavailable columns are left zero.
    pub(super) fn read_home_stripe(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
    ) -> Result<(StripeBuf, Vec<usize>, Vec<DamagedElement>), StoreError> {
        let home = self.read_home_blocks(core, file, stripe)?;
        let erased = home.erased_cols();
        let corrupt = home
            .corrupt
            .iter()
            .map(|c| (c.pos.row, c.pos.col, c.blocks.iter().copied().collect()))
            .collect();
        Ok((home.buf, erased, corrupt))
    }

    /// Read a whole home stripe block by block: every 4 KiB checksum block that reads clean
    /// is in the stripe, and the unreadable ones are named (see `HomeStripe`). `core`: the
    /// core lock's content if the caller holds it (the file's written runs are read there).
    pub(super) fn read_home_blocks(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
    ) -> Result<HomeStripe, StoreError> {
        let g = self.layout.geometry();
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        assert_eq!(e % block, 0, "elements are whole checksum blocks");
        let blocks_per_element = e / block;
        let mut home = HomeStripe {
            buf: StripeBuf::zeroed(g.rows, g.cols, e),
            unavailable_cols: BTreeSet::new(),
            unreadable: Vec::new(),
            corrupt: Vec::new(),
            never_written: BTreeSet::new(),
            disagree: BTreeSet::new(),
            located: Vec::new(),
            witness_located: BTreeSet::new(),
            located_data: Vec::new(),
            proven_by_repair: BTreeSet::new(),
            witness_pieces: Vec::new(),
            witness_erased: BTreeSet::new(),
            file,
            stripe,
        };
        for col in 0..g.cols {
            for row in 0..g.rows {
                let pos = Pos { row, col };
                let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                    continue;
                };
                self.count(oss, key.zone, Op::Read, key.zone == Zone::Parity);
                let b = &self.backends[oss];
                let all: BTreeSet<usize> = (0..blocks_per_element).collect();
                match self.read_retrying(oss, key, 0, home.buf.element_mut(pos)) {
                    Ok(()) => {}
                    Err(err) if err.is_corrupt() => {
                        // Which blocks fail their checksum; not knowing, all of them.
                        let mut bad: BTreeSet<usize> = b
                            .verify(key)
                            .unwrap_or_default()
                            .into_iter()
                            .filter(|&i| i < blocks_per_element)
                            .collect();
                        if bad.is_empty() {
                            bad = all.clone();
                        }
                        // The clean blocks, read verified in runs between the bad ones: a
                        // row of blocks with few enough bad ones is rebuilt from them.
                        let element = home.buf.element_mut(pos);
                        let mut i = 0;
                        while i < blocks_per_element {
                            if bad.contains(&i) {
                                i += 1;
                                continue;
                            }
                            let z = (i..blocks_per_element)
                                .find(|n| bad.contains(n))
                                .unwrap_or(blocks_per_element);
                            if b.read(key, i * block, &mut element[i * block..z * block])
                                .is_err()
                            {
                                element.fill(0);
                                bad = all.clone();
                                break;
                            }
                            i = z;
                        }
                        home.corrupt.push(CorruptElement {
                            pos,
                            blocks: bad,
                            missing: false,
                        });
                    }
                    Err(err) if err.is_missing() => {
                        // Written, then deleted or truncated outside exaraid: every block is lost.
                        home.corrupt.push(CorruptElement {
                            pos,
                            blocks: all,
                            missing: true,
                        });
                    }
                    Err(err) if err.is_unavailable() => {
                        home.unavailable_cols.insert(col);
                        // An OSS still up after the retries: the error is of its disk under
                        // this element, not of the OSS being away (unmounted, failed).
                        if b.healthy() {
                            let why = match err {
                                crate::backend::BackendError::Unavailable { why, .. } => why,
                                other => other.to_string(),
                            };
                            home.unreadable.push((pos, why));
                        }
                    }
                    Err(err) => return Err(err.into()),
                }
            }
        }
        if !home.unavailable_cols.is_empty() || !home.corrupt.is_empty() {
            self.note_never_written(core, file, stripe, &mut home);
        }
        Ok(home)
    }

    /// Did the file never write bytes `from..from + len` of the home data element `element`
    /// names (none of them is in its written runs)? Then they are zeros. Parity, or a
    /// removed file: `false` (not known this way).
    pub(super) fn never_written(
        &self,
        core: Option<&Core>,
        file: u64,
        element: &exaraid_plan::ElementRange,
        from: usize,
        len: usize,
    ) -> bool {
        let Cell::Data(d) = self.layout.geometry().cell(element.pos) else {
            return false;
        };
        assert!(len > 0 && from + len <= self.sb.element_bytes);
        let a = self.layout.file_offset(element.stripe, d, from as u64);
        let z = a + len as u64;
        self.with_core(core, |c| {
            c.state
                .file_by_id(file)
                .is_some_and(|(_, m)| never_written_in(m, a, z) == [(a, z)])
        })
    }

    /// Put the unreadable blocks of `home` that the file never wrote in
    /// `home.never_written` (zeros in its buffer). A data block is never written if no byte
    /// of its file range is in the file's written runs (a superset of what was written, so
    /// a written block is never taken for a hole); a parity block if block `i` of every
    /// data element is (block `i` of every element is a codeword of the code on its own:
    /// parity of zeros is zeros). The runs include a write in flight from before its first
    /// block is written (its `Input::Write` is journaled first), so the old bytes a plan
    /// reads under its own range are not known this way. A removed file: nothing is known.
    pub(super) fn note_never_written(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        home: &mut HomeStripe,
    ) {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let blocks_per_element = self.sb.element_bytes / block;
        let data_never: Option<Vec<Vec<bool>>> = self.with_core(core, |c| {
            let (_, meta) = c.state.file_by_id(file)?;
            let never = (0..g.data_count())
                .map(|d| {
                    (0..blocks_per_element)
                        .map(|i| {
                            let a = self.layout.file_offset(stripe, d, (i * block) as u64);
                            let z = a + block as u64;
                            never_written_in(meta, a, z) == [(a, z)]
                        })
                        .collect()
                })
                .collect();
            Some(never)
        });
        let Some(data_never) = data_never else {
            return;
        };
        for col in 0..g.cols {
            for row in 0..g.rows {
                let pos = Pos { row, col };
                for i in 0..blocks_per_element {
                    let never = match g.cell(pos) {
                        Cell::Data(d) => data_never[d][i],
                        Cell::Parity(_) => data_never.iter().all(|blocks| blocks[i]),
                        Cell::Empty => false,
                    };
                    let unreadable = home.unavailable_cols.contains(&col)
                        || home
                            .corrupt
                            .iter()
                            .any(|c| c.pos == pos && c.blocks.contains(&i));
                    if never && unreadable {
                        home.buf.element_mut(pos)[i * block..(i + 1) * block].fill(0);
                        home.never_written.insert((pos, i));
                    }
                }
            }
        }
    }

    /// Rebuild the unreadable blocks of a home stripe, one row of 4 KiB blocks at a time:
    /// block `i` of every element of the stripe is a codeword of the same code (every code
    /// exaraid knows works byte by byte across elements: XOR and GF(2^8) kernels, for array
    /// codes too, as each element of a multi-row column is its own checksummed slot), so a
    /// block row with at most `tolerance` columns unreadable is rebuilt whatever the other
    /// rows hold. A row with more, all of them parity, is encoded again from its data. Only
    /// the unreadable blocks are replaced: clean blocks keep their verified bytes. Returns
    /// the block rows that cannot be rebuilt (their unreadable blocks stay zero).
    pub(super) fn decode_blocks(
        &self,
        home: &mut HomeStripe,
    ) -> Result<BTreeSet<usize>, StoreError> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES;
        let blocks_per_element = self.sb.element_bytes / block;
        let tolerance = self.tolerance();
        let mut lost = BTreeSet::new();
        if home.unavailable_cols.is_empty() && home.corrupt.is_empty() {
            return Ok(lost);
        }
        if home.corrupt.is_empty() && home.proven_by_repair.is_empty() {
            // Whole columns (failed OSSs) erased alike in every row: one decode of the stripe.
            if home.unavailable_cols.len() > tolerance {
                return Ok((0..blocks_per_element).collect());
            }
            let erased: Vec<usize> = home.unavailable_cols.iter().copied().collect();
            match self.decode_checked(&mut home.buf, &erased)? {
                DecodeCheck::Consistent => return Ok(lost),
                DecodeCheck::Located(col) => {
                    home.located
                        .extend((0..blocks_per_element).map(|i| (i, col)));
                    return Ok(lost);
                }
                // The stripe (left as read) disagrees with its parity somewhere: block row
                // by block row below, each checked, and its wrong column located, alone.
                DecodeCheck::Disagree => {}
            }
        }
        let mut row = StripeBuf::zeroed(g.rows, g.cols, block);
        for i in 0..blocks_per_element {
            let bad: Vec<Pos> = (0..g.cols)
                .flat_map(|col| (0..g.rows).map(move |r| Pos { row: r, col }))
                .filter(|&pos| home.is_bad(pos, i) && g.cell(pos) != Cell::Empty)
                .collect();
            if bad.is_empty() || home.proven_by_repair.contains(&i) {
                continue;
            }
            let erased: BTreeSet<usize> = bad.iter().map(|p| p.col).collect();
            let only_parity = bad.iter().all(|&p| matches!(g.cell(p), Cell::Parity(_)));
            if self.kind == StrategyKind::Raid0 || (erased.len() > tolerance && !only_parity) {
                lost.insert(i);
                continue;
            }
            slice_stripe_into(&home.buf, i * block..(i + 1) * block, &mut row);
            let erased: Vec<usize> = erased.into_iter().collect();
            let mut rewrite = bad;
            if erased.len() > tolerance {
                self.code
                    .encode(&mut row)
                    .map_err(|e| StoreError::DataLost(e.to_string()))?;
            } else {
                let as_read_row = row.clone();
                let check = self.decode_checked(&mut row, &erased)?;
                // Where the home witness erased blocks of this row and the decode (or, on
                // `Disagree`, the row as read) does not give their pieces, the witness may
                // settle what the parity equations did not (`witness_pick`, s46c): a data
                // column and a parity that lost the same write made the decode rebuild the
                // stale bytes (raid6: `Disagree`; rs 4+3 with two parities stale: the one
                // right parity `Located` as the wrong one). The row is then the one rebuild
                // from a subset of survivors that matches the pieces, the columns it
                // changed located as wrong; else the check's word stands as before.
                let picked = match self.witness_row_confirmed(home, i, &row, &as_read_row) {
                    true => None,
                    false => self.witness_pick(home, i, &as_read_row, &erased)?,
                };
                let located_cols: Vec<usize> = match (picked, check) {
                    (Some((picked, wrong_cols)), _) => {
                        row = picked;
                        home.witness_located
                            .extend(wrong_cols.iter().map(|&col| (i, col)));
                        wrong_cols
                    }
                    // Nothing was left to check it with but the stored checksums of the
                    // erased blocks that have bytes, and a block without bytes (a failed
                    // OSS, a gone slot) has no checksum to confirm its decode later, as
                    // `confirm_rebuilt` does a rotten one's: a decode through a stale column
                    // (beside a failed OSS and a rotten block, s23c) read wrong with success.
                    (None, DecodeCheck::Consistent)
                        if erased.len() == tolerance
                            && rewrite.iter().any(|&p| home.has_no_bytes(p))
                            && self.decode_refused_by_checksum(home, &row, i) =>
                    {
                        home.disagree.insert(i);
                        lost.insert(i);
                        continue;
                    }
                    (None, DecodeCheck::Consistent) => Vec::new(),
                    (None, DecodeCheck::Located(col)) => vec![col],
                    (None, DecodeCheck::Disagree) => {
                        home.disagree.insert(i);
                        lost.insert(i);
                        continue;
                    }
                };
                for col in located_cols {
                    home.located.push((i, col));
                    rewrite.extend(
                        (0..g.rows)
                            .map(|r| Pos { row: r, col })
                            .filter(|&pos| g.cell(pos) != Cell::Empty),
                    );
                }
            }
            for pos in rewrite {
                home.buf.element_mut(pos)[i * block..(i + 1) * block]
                    .copy_from_slice(row.element(pos));
            }
        }
        Ok(lost)
    }

    /// Was block row `i` of `home`, as `decode_blocks` left it, checked by a parity equation
    /// the decode did not need? Fewer columns unreadable there than the code tolerates
    /// (`decode_checked` then verified every equation), no column located as stale there,
    /// and the equations not in disagreement. Why (session 23): a rebuilt block whose
    /// checksum is gone (`ChecksumWitness::NoWitness`) has no checksum to confirm it, and
    /// parity that agrees with itself is the proof left; without it a decode through a
    /// stale element reads wrong bytes with success.
    pub(super) fn decode_row_checked(&self, home: &HomeStripe, i: usize) -> bool {
        let g = self.layout.geometry();
        let erased_in_row = (0..g.cols)
            .filter(|&col| {
                (0..g.rows).any(|row| {
                    let p = Pos { row, col };
                    g.cell(p) != Cell::Empty && home.is_bad(p, i)
                })
            })
            .count();
        self.kind != StrategyKind::Raid0
            && erased_in_row < self.tolerance()
            && !home.located.iter().any(|&(r, _)| r == i)
            && !home.disagree.contains(&i)
    }

    /// Does a stored checksum of an unreadable block of block row `i` (bytes on disk failing
    /// it, not a gone slot or a failed OSS) refuse its bytes in the decoded `row`? Nothing is
    /// in flight in a stripe decoded here (its locks are held, or recovery settled it), so
    /// that checksum is of the block's true bytes: a refusal says the decode read a column
    /// whose bytes are not those the parity was made from (a stale element), unless the
    /// decode equals the bytes on disk (the checksum rotted, not the bytes). A checksum
    /// that is gone matches anything and refuses nothing.
    fn decode_refused_by_checksum(&self, home: &HomeStripe, row: &StripeBuf, i: usize) -> bool {
        for c in home.corrupt.iter().filter(|c| !c.missing) {
            if !c.blocks.contains(&i) || !home.is_bad(c.pos, i) {
                continue;
            }
            let Some((oss, key)) = self.home_key(home.file, home.stripe, c.pos) else {
                continue;
            };
            let b = &self.backends[oss];
            let decoded = row.element(c.pos);
            // A checksum that cannot be read tells nothing: the decode stands as before.
            if !b.healthy()
                || (b.checksum_witness(key, i, decoded))
                    .map_or(true, |w| w != ChecksumWitness::Differs)
            {
                continue;
            }
            // A rotten checksum over intact bytes: the decode equal to the bytes on disk is
            // proven by them (as in `confirm_rebuilt`).
            let block = CHECKSUM_BLOCK_BYTES;
            let mut on_disk = vec![0u8; self.sb.element_bytes];
            let equal = b.read_unverified(key, &mut on_disk).is_ok()
                && on_disk[i * block..(i + 1) * block] == *decoded;
            if !equal {
                return true;
            }
        }
        false
    }

    /// Decode the columns `erased` of `buf` (a stripe, or one block row of one), then check
    /// the result against every parity equation while the code has redundancy left (fewer
    /// columns erased than it tolerates). Why: a surviving element can be stale with a
    /// valid checksum (a lost write, an OSS restored from an older copy: checksums are not
    /// versioned), and a decode through it rebuilds wrong bytes that nothing else would
    /// notice. When the equations disagree, each surviving column is erased in turn: the
    /// only choice whose decode satisfies every equation is the wrong column (a code
    /// tolerating t erasures locates one wrong column among e erased ones while 2 + e <= t:
    /// raid6 with none erased, rs k+3 with one). With several such choices (or none) the
    /// stripe cannot say which bytes are true: `Disagree`. Cost: one parity check per
    /// decode with redundancy left (reads of a healthy stripe never decode); the location
    /// trials only where the check failed.
    pub(super) fn decode_checked(
        &self,
        buf: &mut StripeBuf,
        erased: &[usize],
    ) -> Result<DecodeCheck, StoreError> {
        let tolerance = self.tolerance();
        assert!(erased.len() <= tolerance, "decode within the tolerance");
        let decode = |b: &mut StripeBuf, cols: &[usize]| -> Result<(), StoreError> {
            if cols.is_empty() {
                return Ok(());
            }
            self.code
                .decode(b, cols)
                .map_err(|e| StoreError::DataLost(e.to_string()))
        };
        let consistent = |b: &StripeBuf| -> Result<bool, StoreError> {
            Ok(self
                .code
                .verify(b)
                .map_err(|e| StoreError::DataLost(e.to_string()))?
                .is_empty())
        };
        if erased.len() == tolerance {
            decode(buf, erased)?;
            return Ok(DecodeCheck::Consistent);
        }
        let read = buf.clone();
        decode(buf, erased)?;
        if consistent(buf)? {
            return Ok(DecodeCheck::Consistent);
        }
        let mut found: Option<(usize, StripeBuf)> = None;
        for col in (0..buf.cols).filter(|c| !erased.contains(c)) {
            let mut trial = read.clone();
            let mut cols = erased.to_vec();
            cols.push(col);
            cols.sort_unstable();
            if decode(&mut trial, &cols).is_err() || !consistent(&trial)? {
                continue;
            }
            if found.is_some() {
                *buf = read;
                return Ok(DecodeCheck::Disagree);
            }
            found = Some((col, trial));
        }
        match found {
            Some((col, trial)) => {
                *buf = trial;
                Ok(DecodeCheck::Located(col))
            }
            None => {
                *buf = read;
                Ok(DecodeCheck::Disagree)
            }
        }
    }

    /// The file bytes lost in the block rows `lost` of a home stripe: its unreadable data
    /// blocks there (clean blocks of those rows read fine), within the file's size.
    pub(super) fn lost_file_ranges(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        home: &HomeStripe,
        lost: &BTreeSet<usize>,
    ) -> Vec<(u64, u64)> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let size = self.file_size_for_clipping(core, file);
        let mut ranges = Vec::new();
        for &i in lost {
            for (d, &pos) in g.data_pos.iter().enumerate() {
                if !home.is_bad(pos, i) {
                    continue;
                }
                let a = self.layout.file_offset(stripe, d, i as u64 * block);
                let z = (a + block).min(size);
                if a < z {
                    crate::state::add_range(&mut ranges, a, z);
                }
            }
        }
        ranges
    }

    /// Can `scrub --repair` locate a single stale column in block row `i` of `home`, a row
    /// whose readable blocks disagree with the parity (`HomeStripe::disagree`), once every
    /// OSS is back? Only the columns of OSSs that did not answer (not failed on record, not
    /// an EIO of a disk that is up) come back; locating one stale column beside `e` erased
    /// ones needs `e + 2 <= tolerance` (one more column left out, and an equation left to
    /// check it). Why (review s24r R24-6): a stale parity beside a rotten block on raid6
    /// advised `scrub --repair`, which then found the same disagreement and repeated it.
    fn scrub_can_locate_in_row(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        home: &HomeStripe,
        i: usize,
    ) -> bool {
        assert!(home.disagree.contains(&i), "row {i} disagrees");
        let g = self.layout.geometry();
        let failed: BTreeSet<usize> = self.with_core(core, |c| c.state.failed_oss.clone());
        let mut returning = 0usize;
        let mut stays = 0usize;
        for col in 0..g.cols {
            let cells = (0..g.rows)
                .map(|row| Pos { row, col })
                .filter(|&p| g.cell(p) != Cell::Empty);
            let bad: Vec<Pos> = cells.filter(|&p| home.is_bad(p, i)).collect();
            if bad.is_empty() {
                continue;
            }
            let away = home.unavailable_cols.contains(&col)
                && !home.unreadable.iter().any(|(p, _)| p.col == col)
                && !failed.contains(&self.layout.oss_of(file, stripe, col));
            if away {
                returning += 1;
            } else {
                stays += 1;
            }
        }
        returning > 0 && stays + 2 <= self.tolerance()
    }

    /// `DataLost` naming the file bytes of a home stripe whose block rows `lost` hold more
    /// unreadable blocks than the code tolerates.
    pub(super) fn lost_blocks_error(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        home: &HomeStripe,
        lost: &BTreeSet<usize>,
    ) -> StoreError {
        let ranges = self.lost_file_ranges(core, file, stripe, home, lost);
        let name = self.file_name_in(core, file);
        let listed: Vec<String> = ranges.iter().map(|(a, z)| format!("{a}..{z}")).collect();
        let too_many: BTreeSet<usize> = lost.difference(&home.disagree).copied().collect();
        let disagree: BTreeSet<usize> = lost.intersection(&home.disagree).copied().collect();
        let mut why = Vec::new();
        if !too_many.is_empty() {
            why.push(format!(
                "its 4 KiB block rows {too_many:?} are past the code's tolerance: they have more unreadable blocks than {} tolerates ({})",
                self.layout.code_name(),
                self.tolerance()
            ));
        }
        let (scrub_locates, stays): (BTreeSet<usize>, BTreeSet<usize>) = disagree
            .iter()
            .partition(|&&i| self.scrub_can_locate_in_row(core, file, stripe, home, i));
        if !scrub_locates.is_empty() {
            why.push(format!(
                "in its 4 KiB block rows {scrub_locates:?} the readable blocks disagree with the parity and no single column explains it (a stale element with a valid checksum: a lost write, or an OSS restored from an older copy), so no rebuilt byte there can be confirmed; with every OSS back, `exaraid store scrub --repair` locates a single stale element there"
            ));
        }
        if !stays.is_empty() {
            why.push(format!(
                "in its 4 KiB block rows {stays:?} the readable blocks disagree with the parity (a stale element with a valid checksum: a lost write, or an OSS restored from an older copy) beside blocks that are rotten, gone, unreadable or on an OSS failed on record, which leave {} too few parity equations to tell which column is stale, so no rebuilt byte there can be confirmed, and `scrub --repair` cannot repair it either",
                self.layout.code_name()
            ));
        }
        let why = why.join("; and ");
        // The bytes the advice names stop at the end of the file: a stripe's whole width in
        // a file's short last stripe, read, fails past the end, and written, grows the file
        // (s27d).
        let (from, to) = self.stripe_file_bytes(core, file, stripe);
        if ranges.is_empty() && !disagree.is_empty() {
            // Only parity blocks are unreadable there: the data reads, unconfirmed.
            return StoreError::DataLost(format!(
                "{name} stripe {stripe} (file bytes {from}..{to}): {why}; its unreadable blocks there were not rebuilt; read these bytes and check them, then write them again (which rewrites the parity), or restore the file",
            ));
        }
        if ranges.is_empty() {
            // The unreadable blocks lie past the end of the file: no file byte is lost.
            return StoreError::DataLost(format!(
                "{name} stripe {stripe}: {why}; the unreadable blocks are all past the end of the file (no file byte is lost), so they cannot be rebuilt; write the stripe's file bytes again, {from}..{to} (they read), which rewrites its parity, or restore the file"
            ));
        }
        // A write of the lost bytes alone reads the stripe: where data and parity disagree,
        // for its parity delta (s25d: "write these bytes again" was refused with itself);
        // where a row holds more unreadable blocks than the code tolerates, the old bytes of
        // its own blocks or the row's other unreadable ones (review s26r R26-2: a refused
        // rebuild's "write these bytes again", each range written alone, refused the same
        // way). A write of every data byte of the stripe reads none of it: that is the
        // advice in both (s27d).
        let again = self.write_whole_stripe_again(core, file, stripe);
        StoreError::DataLost(format!(
            "{name} bytes {} are lost (stripe {stripe}, which holds file bytes {from}..{to}: {why}; the rest of the stripe reads); {again}",
            listed.join(", "),
        ))
    }

    /// The file bytes of home stripe `stripe`, up to the end of the file: a write of them
    /// is a write of every data byte of the stripe (shown to read nothing in a file's
    /// short last stripe too, s26d).
    fn stripe_file_bytes(&self, core: Option<&Core>, file: u64, stripe: u64) -> (u64, u64) {
        let sdb = self.layout.stripe_data_bytes();
        let size = self.file_size_for_clipping(core, file);
        let from = stripe * sdb;
        // Not below `from`: a stripe read holds file bytes, but an error path never panics.
        (from, ((stripe + 1) * sdb).min(size).max(from))
    }

    /// The advice for bytes lost in a home stripe whose other blocks a write of them alone
    /// would read and be refused on: write every data byte of the stripe (up to the end of
    /// the file: shown to read nothing in a short last stripe, s26d), or restore the file.
    pub(super) fn write_whole_stripe_again(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
    ) -> String {
        let (from, to) = self.stripe_file_bytes(core, file, stripe);
        format!(
            "write the whole stripe again from your own copy, file bytes {from}..{to} (a write of every data byte of a stripe reads none of it; one of fewer bytes reads the stripe and may be refused the same way; the stripe's bytes not named lost still read, if your copy lacks them), or restore the file"
        )
    }

    /// Rebuild one home element from the rest of its stripe (degraded read), block row by
    /// block row. The caller could not read `from..from + len` of it; fails with `DataLost`
    /// only if an unreadable block of that range is in a block row beyond the tolerance
    /// (or, for a `client_read`, see `refuse_decode_after_tail_cut`). Returns the element
    /// and the block rows whose decode a spare parity equation checked
    /// (`decode_row_checked`), for `confirm_rebuilt`.
    pub(super) fn rebuild_element(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        (from, len): (usize, usize),
        client_read: bool,
    ) -> Result<(Vec<u8>, BTreeSet<usize>), StoreError> {
        let block = CHECKSUM_BLOCK_BYTES;
        assert!(len > 0 && from + len <= self.sb.element_bytes);
        if self.reads_only.lock().is_some() {
            // A stripe the unfinished settle names may hold data and parity of different
            // versions (it was being rewritten): a decode there could return wrong bytes.
            let settling = self.with_core(core, |c| {
                c.state
                    .settling
                    .as_ref()
                    .is_some_and(|s| s.contains(&(file, stripe)))
            });
            if settling {
                return Err(StoreError::Io(format!(
                    "{} stripe {stripe} needs a decode from parity to be read (a block unreadable, or its OSS failed), and the settle that could not finish was rewriting that stripe, so its parity cannot be trusted yet; nothing was read. The other stripes read; finish the settle first (see the warning)",
                    self.file_name_in(core, file)
                )));
            }
        }
        let wanted: BTreeSet<usize> = (from / block..(from + len).div_ceil(block)).collect();
        let mut home = self.read_home_blocks(core, file, stripe)?;
        let read_here =
            !home.unavailable_cols.contains(&pos.col) && !home.corrupt.iter().any(|c| c.pos == pos);
        // No decode through a column that lost a write (the home witness, s44b). Before the
        // wanted blocks are erased below: those this pass read are checked too, so that a
        // row past what its parity settles knows which of them the witness erased and
        // holds their pieces (`witness_pick`, s46c).
        let mut witness_erased = match client_read {
            true => self.erase_home_blocks_failing_the_witness(core, file, stripe, &mut home),
            false => Vec::new(),
        };
        if read_here {
            // What `witness_decode_lost` weighs stays as before s46c: the caller's own
            // blocks are the caller's to record (`check_cache_witness` first asks whether
            // an OSS only away could bring them back: s45b's blank disk beside a lost
            // write, "mount it and retry", nothing on record).
            witness_erased.retain(|&(p, i)| p != pos || !wanted.contains(&i));
            // The caller could not read these blocks even if this pass could.
            match home.corrupt.iter_mut().find(|c| c.pos == pos) {
                Some(c) => c.blocks.extend(wanted.iter().copied()),
                None => home.corrupt.push(CorruptElement {
                    pos,
                    blocks: wanted.clone(),
                    missing: false,
                }),
            }
        }
        // Rows a repair's record after the tail cut proves need no refusal (s33e).
        self.decode_by_tail_cut_repair(core, &mut home, &wanted);
        if client_read && !wanted.is_subset(&home.proven_by_repair) {
            self.refuse_decode_after_tail_cut(core, file, stripe, pos, &home)?;
        }
        let as_read = home.buf.clone();
        let lost = self.decode_blocks(&mut home)?;
        // A data column the check located as stale keeps its checksum-valid bytes as read:
        // the parity's version may be the wrong one (a lost write an acknowledged rmw
        // XORed out of the parity, review R13-4), and a degraded read must not return, for
        // a readable block, other bytes than a healthy read does (note14 item 4). The
        // erased blocks decoded beside it are right either way (see `keep_data_as_read`).
        self.keep_data_as_read(&mut home, &as_read);
        if wanted
            .iter()
            .any(|i| lost.contains(i) && home.is_bad(pos, *i))
        {
            let err = self.lost_blocks_error(core, file, stripe, &home, &lost);
            let rows = (&wanted, &lost);
            return Err(self.witness_decode_lost(
                core,
                file,
                stripe,
                pos,
                rows,
                &witness_erased,
                err,
            ));
        }
        let checked_rows = wanted
            .into_iter()
            .filter(|&i| self.decode_row_checked(&home, i) || home.proven_by_repair.contains(&i))
            .collect();
        Ok((home.buf.element(pos).to_vec(), checked_rows))
    }

    /// While a journal tail cut is on record (`Rec::JournalTailCut`, no scrub since found
    /// every stripe's parity matching): a decode of the element at `pos` that nothing can
    /// check is refused. That is one whose column has no checksum to confirm it (its OSS
    /// failed or not answering, its slot missing) and whose stripe has no parity left over
    /// to check the decode (`decode_checked`: as many columns erased as the code
    /// tolerates). Why (review R10-5): the cut write may have left this stripe's parity
    /// stale, and such a decode then returns wrong bytes with nothing to notice it; a read
    /// refused names the cause and what to do instead. A client's read only: a plan's read
    /// step, recovery and rebuild still decode there (a refusal would fail them half way;
    /// see docs/store.md, Limits, R10-5).
    fn refuse_decode_after_tail_cut(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        home: &HomeStripe,
    ) -> Result<(), StoreError> {
        let cut = self.with_core(core, |c| c.state.journal_tail_cuts.last().copied());
        let Some(cut) = cut else {
            return Ok(());
        };
        let unconfirmable = home.unavailable_cols.contains(&pos.col)
            || home.corrupt.iter().any(|c| c.pos == pos && c.missing);
        if !unconfirmable || home.erased_cols().len() < self.tolerance() {
            return Ok(());
        }
        let oss = self.layout.oss_of(file, stripe, pos.col);
        let sdb = self.layout.stripe_data_bytes();
        Err(StoreError::DataLost(format!(
            "{} stripe {stripe} (file bytes {}..{}) needs a decode from parity to be read (OSS {oss}, which holds its column {}, is failed or not answering), and the journal's last record was cut off (at byte {}) with no scrub since that found every stripe's parity matching: the cut write may have left this stripe's parity stale, and the decode could return wrong bytes, so nothing was read. Bring OSS {oss} back (mount it; `exaraid store online {dir} --oss {oss}` if it is recorded failed: it keeps the bytes its disk holds and records lost those written while it was failed, which only this unchecked decode could give) and the next open repairs the parity by itself; if its disk is gone for good, `exaraid store rebuild {dir} --oss {oss}` rebuilds it and records lost the bytes of its columns in the stripes changed while it was failed (only this unchecked decode could give them). Every stripe readable without a decode still reads",
            self.file_name_in(core, file),
            stripe * sdb,
            (stripe + 1) * sdb,
            pos.col,
            cut.at_byte,
            dir = self.dir.display(),
        )))
    }

    /// A degraded read rebuilt a home element from parity because a block of it failed its
    /// checksum. Before the rebuilt bytes `from..from + len` are returned, every checksum
    /// block they touch is confirmed: its rebuilt bytes match its stored checksum, or equal
    /// the bytes on disk (then the checksum itself rotted), or, for a block whose checksum
    /// is gone (no witness), its block row is in `checked_rows` (a spare parity equation
    /// checked the decode: `rebuild_element`). Why: parity that disagrees with the data (a
    /// write hole, a stale parity element carrying a valid checksum) rebuilds wrong bytes,
    /// and nothing else would notice; a gone checksum notices nothing either (session 23:
    /// raid6 with another column erased in the row read a decode through a stale parity
    /// with success). Not confirmed: `DataLost` naming the range.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn confirm_rebuilt(
        &self,
        core: Option<&Core>,
        oss: usize,
        key: ElementKey,
        file: u64,
        element: &exaraid_plan::ElementRange,
        (whole, checked_rows): (&[u8], &BTreeSet<usize>),
        from: usize,
        len: usize,
    ) -> Result<(), StoreError> {
        assert!(from + len <= whole.len());
        let block = CHECKSUM_BLOCK_BYTES;
        let b = &self.backends[oss];
        let mut on_disk = vec![0u8; whole.len()];
        let on_disk_read = b.read_unverified(key, &mut on_disk).is_ok();
        let mut no_witness = Vec::new();
        let unconfirmed: Vec<usize> = (from / block..(from + len).div_ceil(block))
            .filter(|&i| {
                let rebuilt = &whole[i * block..(i + 1) * block];
                let on_disk_agrees =
                    on_disk_read && on_disk[i * block..(i + 1) * block] == *rebuilt;
                let confirmed = match b.checksum_witness(key, i, rebuilt) {
                    // A foreign block holds no bytes of its own: parity is the witness,
                    // as for a missing slot (see `ChecksumWitness::Foreign`).
                    Ok(ChecksumWitness::Matches | ChecksumWitness::Foreign) => true,
                    Ok(ChecksumWitness::NoWitness) => {
                        no_witness.push(i);
                        checked_rows.contains(&i) || on_disk_agrees
                    }
                    Ok(ChecksumWitness::Differs) | Err(_) => {
                        on_disk_agrees
                            || (on_disk_read
                                && self.home_witness_confirms(
                                    core,
                                    file,
                                    element,
                                    i,
                                    rebuilt,
                                    &on_disk[i * block..(i + 1) * block],
                                ))
                    }
                };
                !confirmed
            })
            .collect();
        if unconfirmed.is_empty() {
            return Ok(());
        }
        no_witness.retain(|i| unconfirmed.contains(i));
        // Named exactly (session 15's s15e leftover): the file bytes of the blocks that
        // failed, on which OSS and column; before, the whole stripe was named lost for the
        // first such block alone, though its other blocks read.
        let name = self.file_name_in(core, file);
        let stripe = element.stripe;
        let (row, col) = (element.pos.row, element.pos.col);
        let mut why = format!(
            "4 KiB blocks {unconfirmed:?} of the element at row {row} column {col} (OSS {oss}) fail their checksums, and the bytes rebuilt from parity do not match them either (data and parity disagree there: an element stale under a valid checksum, or a write that did not finish)"
        );
        if !no_witness.is_empty() {
            why = format!(
                "{why}; of them, blocks {no_witness:?} have no checksum left (zeroed on disk outside exaraid) and no spare parity checked their rebuilt bytes (too many columns unreadable in their block rows), so nothing proves them"
            );
        }
        let Cell::Data(d) = element.cell else {
            return Err(StoreError::DataLost(format!(
                "{name} stripe {stripe}'s parity cannot be read: {why}; no file byte is in it, and the stripe's data reads; write the stripe again to rewrite its parity"
            )));
        };
        let size = self.file_size_for_clipping(core, file);
        let mut ranges = Vec::new();
        for &i in &unconfirmed {
            let a = self.layout.file_offset(stripe, d, (i * block) as u64);
            let z = (a + block as u64).min(size);
            if a < z {
                crate::state::add_range(&mut ranges, a, z);
            }
        }
        let listed: Vec<String> = ranges.iter().map(|(a, z)| format!("{a}..{z}")).collect();
        // Data and parity disagree here: a write of these bytes alone reads the stripe for
        // its parity delta and is refused the same way (s26d: raid5, a stale parity beside
        // a rotten block, "write these bytes again" followed and refused).
        Err(StoreError::DataLost(format!(
            "{name} bytes {} are lost (stripe {stripe}): {why}; the stripe's other bytes read; {}",
            listed.join(", "),
            self.write_whole_stripe_again(core, file, stripe),
        )))
    }

    /// The one place a stripe (home, or a cache stripe) is decoded for a read: the columns
    /// `erased` rebuilt from the others, or `DataLost` with the caller's words (`lost`, which
    /// names what is gone) when they are more than the code tolerates.
    pub(super) fn decode_or_lost(
        &self,
        buf: &mut StripeBuf,
        erased: &[usize],
        lost: impl FnOnce() -> String,
    ) -> Result<(), StoreError> {
        if erased.is_empty() {
            return Ok(());
        }
        if erased.len() > self.tolerance() {
            return Err(StoreError::DataLost(lost()));
        }
        self.code
            .decode(buf, erased)
            .map_err(|e| StoreError::DataLost(e.to_string()))
    }

    // ---------------------------------------------------------------- reads

    /// Read `len_bytes` at `offset_bytes` of a file: from wherever the planner says the newest
    /// bytes are (cache zone or home), rebuilding from parity what a failed OSS holds.
    pub fn read(
        &self,
        name: &str,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<u8>, StoreError> {
        self.read_to(name, offset_bytes, ReadEnd::Length(len_bytes))
    }

    /// `read`, its end given as a length or as the file's end (taken under the read's own
    /// hold of the gate, so a `put` cannot come between the size and the bytes).
    pub(super) fn read_to(
        &self,
        name: &str,
        offset_bytes: u64,
        end: ReadEnd,
    ) -> Result<Vec<u8>, StoreError> {
        self.check_readable()?;
        crate::torture::pause_point(crate::torture::READ_CHECKED);
        let _shared = self.gate.read();
        let (file, size) = self.file(name)?;
        let len_bytes = match end {
            ReadEnd::Length(len_bytes) => len_bytes,
            ReadEnd::EndOfFile if offset_bytes >= size => return Ok(Vec::new()),
            ReadEnd::EndOfFile => size - offset_bytes,
        };
        if len_bytes == 0 {
            return Err(StoreError::BadInput(
                "a read of 0 bytes: give --length of at least 1".into(),
            ));
        }
        match offset_bytes.checked_add(len_bytes) {
            Some(end) if end <= size => {}
            _ => {
                return Err(StoreError::BadInput(format!(
                    "'{name}' is {size} bytes long: the range {offset_bytes}+{len_bytes} goes past its end"
                )))
            }
        }
        if len_bytes > READ_BYTES_MAX {
            return Err(StoreError::BadInput(format!(
                "a read of {len_bytes} bytes of '{name}' is larger than the limit of \
                 {READ_BYTES_MAX} bytes per read (one buffer holds it): read it in pieces \
                 of at most {READ_BYTES_MAX} bytes (the CLI's `get` streams in pieces)"
            )));
        }
        {
            // Never zeros and never the bytes from before the window: the home bytes under a
            // lost range are not the file's.
            let core = self.core.lock();
            let lost = core.state.lost_in(file, offset_bytes, len_bytes);
            if !lost.is_empty() {
                let what = format!(
                    "reading {} bytes {offset_bytes}..{} failed",
                    describe_file_name(name),
                    offset_bytes + len_bytes
                );
                return Err(self.lost_error(&core, &lost, &what));
            }
        }
        self.refuse_cut_stripes(name, file, offset_bytes, len_bytes)?;
        let mut out = vec![0u8; len_bytes as usize];
        let mut at = offset_bytes;
        while at < offset_bytes + len_bytes {
            let chunk = (offset_bytes + len_bytes - at).min(WRITE_CHUNK_BYTES_MAX);
            let (extents, ticket, holes) = {
                let stripes: BTreeSet<(u64, u64)> = {
                    let sdb = self.layout.stripe_data_bytes();
                    (at / sdb..=(at + chunk - 1) / sdb)
                        .map(|s| (file, s))
                        .collect()
                };
                let mut core = self.core.lock();
                // Again under the lock a poisoning takes: a write refused after its input
                // went on record poisons the store and leaves its plans, never to run, in the
                // planner (review of R28-1's fix), whose lookup would name its unwritten
                // cache slots as the newest bytes to a read that began before.
                self.check_readable()?;
                let ticket = self.locks.enqueue(stripes);
                let extents = self.lookup_newest(&core, file, at, chunk)?;
                // Never-written runs read as zeros, as `get` writes them without reading
                // (`Store::written_runs`): taken with the lookup, so the writes ordered
                // before this read are in them. Why (review s14r R14-2): slots of a reused
                // file id held another file's bytes, which `read` returned and `get` not.
                let holes = match core.state.file_by_id(file) {
                    Some((_, meta)) => never_written_in(meta, at, at + chunk),
                    None => Vec::new(),
                };
                core.reads_in_flight += 1;
                (extents, ticket, holes)
            };
            // Plans admitted before this read (in planning order) run first; plans admitted
            // later on these stripes wait for it; cache space it names is not reused meanwhile.
            let result = {
                let _guard = self.locks.acquire(ticket);
                let mut result = Ok(());
                for x in extents {
                    let from = (x.file_offset_bytes - offset_bytes) as usize;
                    let buf = &mut out[from..from + x.len_bytes as usize];
                    self.count(x.oss, to_backend_zone(x.zone), Op::Read, false);
                    result = self.read_range_for_client(ElementRead::of_extent(file, &x), buf);
                    if result.is_err() {
                        break;
                    }
                }
                result
            };
            let more = {
                let mut core = self.core.lock();
                core.reads_in_flight -= 1;
                let more = self.complete_deferred(&mut core)?;
                self.admit(more)
            };
            self.run_plans(more, None)?;
            result?;
            for (a, z) in holes {
                assert!(at <= a && a < z && z <= at + chunk);
                let from = (a - offset_bytes) as usize;
                out[from..(z - offset_bytes) as usize].fill(0);
            }
            at += chunk;
        }
        Ok(out)
    }

    /// Open for reads only with plans a crash cut (`Store::reads_only_cut_stripes`): a read
    /// touching one of their stripes is refused, naming it, never served from a stripe
    /// recovery has not decided.
    fn refuse_cut_stripes(
        &self,
        name: &str,
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<(), StoreError> {
        assert!(len_bytes > 0);
        let cut = self.reads_only_cut_stripes.lock();
        if cut.is_empty() {
            return Ok(());
        }
        let sdb = self.layout.stripe_data_bytes();
        let (first, last) = (offset_bytes / sdb, (offset_bytes + len_bytes - 1) / sdb);
        let Some(&(_, stripe)) = cut.range((file, first)..=(file, last)).next() else {
            return Ok(());
        };
        let why = self.reads_only.lock().clone().expect("open for reads only");
        Err(StoreError::Io(format!(
            "'{name}' stripe {stripe} (file bytes {}..{}) was being written when the store last stopped, and the recovery that decides what it holds could not finish, so no byte of it is served yet; nothing was read. Stripes no cut write touched read. The store is open for reads only: {}",
            stripe * sdb,
            (stripe + 1) * sdb,
            reads_only_why(&why, &self.dir)
        )))
    }

    /// Where the newest bytes of `file` bytes `offset_bytes..+len_bytes` are: the planner's
    /// lookup, except that cache ranges a move home already copied home are read at home.
    ///
    /// Why: while a read is in flight the store holds back the completion of a delayed
    /// window's move home (`Core::reads_in_flight`), so the planner's lookup keeps naming the
    /// window's cache copy as the newest bytes. A write outside any window goes home, after
    /// the move, and is acknowledged meanwhile; the cache copy is then older than home. Once
    /// the move executed, home holds the window's bytes or newer ones, so home is right in
    /// every case. Why not make that write wait for the completion to be delivered instead:
    /// with reads arriving back to back the count of reads in flight may never reach zero,
    /// and holding new reads off to let it drain adds a second wait between reads and
    /// writes; the planner cannot be told early either (it would reuse cache space the read
    /// in flight may still be reading). WCL needs nothing: every write goes into a cache
    /// stripe that its lookup names before older ones, so no write goes around its cache.
    pub(super) fn lookup_newest(
        &self,
        core: &Core,
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<exaraid_plan::Extent>, StoreError> {
        let mut extents = core
            .strategy
            .lookup(file, offset_bytes, len_bytes)
            .map_err(plan_err)?;
        if core.moved_home.is_empty() {
            return Ok(extents);
        }
        for x in extents.iter_mut().filter(|x| x.zone == PlanZone::Cache) {
            let (a, z) = (x.addr_bytes, x.addr_bytes + x.len_bytes);
            // The moved range that starts last before `z`: ranges are disjoint, so it is the
            // only one that can overlap `a..z`.
            let Some((&(oss, moved_a), &(moved_z, _))) =
                core.moved_home.range(..(x.oss, z)).next_back()
            else {
                continue;
            };
            if oss != x.oss || moved_z <= a {
                continue;
            }
            // The move reads every written run whole, and the lookup splits at those runs.
            assert!(
                moved_a <= a && z <= moved_z,
                "a cache extent lies within one range moved home"
            );
            let el = &x.element;
            assert_eq!(x.oss, self.layout.oss_of(file, el.stripe, el.pos.col));
            x.zone = PlanZone::Data;
            x.addr_bytes = self.layout.home_addr(el.stripe, el.pos, el.offset_bytes);
        }
        Ok(extents)
    }

    // ---------------------------------------------------------------- recovery and flush

    /// File ranges whose newest bytes are in the cache zone.
    pub(super) fn cached_extents(
        &self,
        core: &Core,
        file: u64,
    ) -> Result<Vec<exaraid_plan::Extent>, StoreError> {
        let Some((_, meta)) = core.state.file_by_id(file) else {
            return Ok(Vec::new());
        };
        if meta.size_bytes == 0 {
            return Ok(Vec::new());
        }
        // Only the stripes the planner has cached: looking up the whole file would build one
        // extent per element of its address range (a sparse file 1 TiB long with 10 bytes
        // written took 25 GB here, at every open and close).
        let sdb = self.layout.stripe_data_bytes();
        let mut extents = Vec::new();
        for stripe in core.strategy.cached_stripes(file) {
            let start = stripe * sdb;
            if start >= meta.size_bytes {
                continue;
            }
            let len = sdb.min(meta.size_bytes - start);
            extents.extend(
                core.strategy
                    .lookup(file, start, len)
                    .map_err(plan_err)?
                    .into_iter()
                    .filter(|x| x.zone == PlanZone::Cache),
            );
        }
        // Lost window bytes (on record, on a failed OSS) have nothing left to wait for:
        // settle skips them, and they are not waiting for parity.
        let lost = core.state.lost_in(file, 0, meta.size_bytes);
        Ok(extents
            .into_iter()
            .filter(|x| x.zone == PlanZone::Cache)
            .filter(|x| {
                lost.is_empty()
                    || !(self.oss_failed(core, x.oss)
                        && lost
                            .iter()
                            .any(|l| l.overlaps(file, x.file_offset_bytes, x.len_bytes)))
            })
            .collect())
    }
}

/// The parts of file bytes `a..z` that `meta`'s written runs (sorted, disjoint, a superset
/// of what was written) do not cover: bytes the file never wrote, zeros. Borrows the runs
/// and visits only those overlapping `a..z` (a settle asks once per element of every
/// stripe it writes, with up to `WRITTEN_RUNS_MAX` runs a file).
pub(super) fn never_written_in(meta: &crate::state::FileMeta, a: u64, z: u64) -> Vec<(u64, u64)> {
    assert!(a < z);
    let whole = [(0, meta.size_bytes)];
    let runs: &[(u64, u64)] = match &meta.written {
        Some(runs) => runs,
        None => &whole, // a state from before the runs: the whole file counts as written
    };
    let mut gaps = Vec::new();
    let mut at = a;
    for &(ra, rz) in &runs[runs.partition_point(|&(_, rz)| rz <= a)..] {
        if ra >= z {
            break;
        }
        if ra > at {
            gaps.push((at, ra));
        }
        at = at.max(rz);
        if at >= z {
            break;
        }
    }
    if at < z {
        gaps.push((at, z));
    }
    gaps
}

/// A file as messages name it: `file 'a'`, with control characters escaped; a put's staging
/// file (`a\0put`, see `Store::put`) as what it is to the user, who never named it.
pub(super) fn describe_file_name(name: &str) -> String {
    let quoted = |n: &str| -> String {
        n.chars()
            .flat_map(|c| -> Vec<char> {
                if c.is_control() {
                    c.escape_default().collect()
                } else {
                    vec![c]
                }
            })
            .collect()
    };
    match name.strip_suffix("\0put") {
        Some(user) => format!("the new content of a put of '{}'", quoted(user)),
        None => format!("file '{}'", quoted(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::{describe_file_name, never_written_in};
    use crate::state::FileMeta;

    #[test]
    fn never_written_bytes_are_the_gaps_between_written_runs() {
        let mut meta = FileMeta::new(0);
        meta.size_bytes = 40;
        meta.written = Some(vec![(10, 20), (30, 40)]);
        assert_eq!(
            never_written_in(&meta, 0, 50),
            vec![(0, 10), (20, 30), (40, 50)]
        );
        assert_eq!(never_written_in(&meta, 12, 18), vec![]);
        assert_eq!(never_written_in(&meta, 20, 30), vec![(20, 30)]);
        assert_eq!(never_written_in(&meta, 19, 31), vec![(20, 30)]);
        assert_eq!(never_written_in(&meta, 45, 50), vec![(45, 50)]);
        // A state from before the runs: the whole file counts as written.
        meta.written = None;
        assert_eq!(never_written_in(&meta, 0, 40), vec![]);
        assert_eq!(never_written_in(&meta, 35, 45), vec![(40, 45)]);
    }

    #[test]
    fn messages_name_files_as_the_user_knows_them() {
        assert_eq!(describe_file_name("c"), "file 'c'");
        // A put's staging file: the user never named it.
        assert_eq!(
            describe_file_name("a\0put"),
            "the new content of a put of 'a'"
        );
        // Control characters are escaped, not printed raw into a terminal.
        assert_eq!(describe_file_name("x\ny\u{1b}"), "file 'x\\ny\\u{1b}'");
    }
}
