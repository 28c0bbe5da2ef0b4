//! Recovery after an interrupted run (see the parent module's docs).

use super::*;

impl Store {
    /// Recovery after an interrupted run (see the module docs).
    pub(super) fn recover(&self, core: &mut Core, undurable: &[IoPlan]) -> Result<(), StoreError> {
        // 1. Torn writes of unacknowledged plans keep what reached the disk.
        let mut stripes: BTreeSet<(u64, u64)> = BTreeSet::new();
        let e = self.sb.element_bytes as u64;
        for plan in undurable {
            for step in plan.steps.iter().filter(|s| s.op == Op::Write) {
                let b = &self.backends[step.oss];
                let mut at = 0u64;
                for piece in &step.pieces {
                    if step.zone != PlanZone::Cache {
                        stripes.insert((step.file, piece.element.stripe));
                    }
                    let mut done = 0u64;
                    while done < piece.element.len_bytes {
                        let a = step.addr_bytes + at + done;
                        let off = a % e;
                        let n = (piece.element.len_bytes - done).min(e - off);
                        if b.healthy() {
                            b.reseal(self.key(step.zone, step.file, a), off as usize, n as usize)?;
                        }
                        done += n;
                    }
                    at += piece.element.len_bytes;
                }
            }
        }
        // 2. Everything home, parity recomputed. A crash during an earlier settle may have
        // torn its own home writes: settle reseals the ranges it may have torn.
        self.settle(core, stripes, true)
    }

    /// Move every cached range home and recompute the parity of `extra` stripes and of every
    /// stripe that had cached bytes; then restart the planner from scratch. Open delayed
    /// windows stay open (their data is now protected early).
    pub(super) fn settle(
        &self,
        core: &mut Core,
        mut stripes: BTreeSet<(u64, u64)>,
        reseal: bool,
    ) -> Result<(), StoreError> {
        let sdb = self.layout.stripe_data_bytes();
        let mut cached: BTreeMap<(u64, u64), Vec<exaraid_plan::Extent>> = BTreeMap::new();
        let files: Vec<u64> = core.state.files.values().map(|m| m.id).collect();
        for file in files {
            for x in self.cached_extents(core, file)? {
                let s = x.file_offset_bytes / sdb;
                stripes.insert((file, s));
                cached.entry((file, s)).or_default().push(x);
            }
        }
        let known: BTreeSet<u64> = core.state.files.values().map(|m| m.id).collect();
        for (file, stripe) in stripes {
            if !known.contains(&file) {
                continue;
            }
            let overlay = cached
                .get(&(file, stripe))
                .map(|v| v.as_slice())
                .unwrap_or(&[]);
            if reseal {
                // A crash during an earlier settle may have torn its home writes. Those
                // rewrote identical bytes except where cached ranges go home and in the
                // parity at the same offsets. The parity there is accepted as it is (it
                // is recomputed below, and one OSS holds one column, so it is not needed
                // to rebuild another). A torn data block under a cached range is not
                // resealed: checksums cover whole blocks, and a block's bytes outside the
                // cached range may be bit rot. It fails verification, is rebuilt from
                // parity like any corrupt block, and the cached bytes go on top.
                for x in overlay {
                    self.reseal_parity(file, stripe, x.element.offset_bytes, x.len_bytes)?;
                }
            }
            let (mut buf, erased, _) = self.read_home_stripe(file, stripe)?;
            let decoded = self.decode_keeping_verified(file, stripe, &mut buf, &erased);
            if let Err(err) = decoded {
                if !matches!(err, StoreError::DataLost(_)) {
                    return Err(err);
                }
                // Corruption beyond the code's tolerance: leave parity and the corrupt blocks
                // as they are (scrub reports them), but still move the cached bytes home so
                // the cache zone can go without losing them.
                self.move_cached_home_unprotected(core, file, overlay)?;
                continue;
            }
            for x in overlay {
                let mut bytes = vec![0u8; x.len_bytes as usize];
                if !self.read_cached_or_record_lost(core, file, x, &mut bytes)? {
                    continue; // on record as lost: the home bytes stay, parity covers them
                }
                let el = buf.element_mut(x.element.pos);
                let o = x.element.offset_bytes as usize;
                el[o..o + bytes.len()].copy_from_slice(&bytes);
            }
            if self.kind != StrategyKind::Raid0 {
                self.code
                    .encode(&mut buf)
                    .map_err(|e| StoreError::Io(e.to_string()))?;
            }
            self.write_home_stripe(file, stripe, &buf, None)?;
        }
        for b in self.backends.iter().filter(|b| b.healthy()) {
            b.sync()?;
        }
        // Restart the planner (durably: only then may the cache zone go); windows still
        // open are started again in the new epoch.
        self.journal(core, Rec::PlannerReset, true)?;
        for b in self.backends.iter().filter(|b| b.healthy()) {
            b.remove_zone(CACHE_OBJECT, Zone::Cache)?;
        }
        core.strategy = replay(self.kind, &self.layout, self.config, &[])?.0;
        self.done.lock().clear();
        // The cache zone is empty and plan ids start again.
        self.cache_chunks.lock().clear();
        *self.cache_stripes.lock() = exec::CacheStripes::default();
        self.restart_windows(core)?;
        self.checkpoint_locked(core)
    }

    /// Recompute the checksums of the parity elements of a home stripe over one element
    /// byte range from their bytes (recovery only: the parity is rewritten right after).
    pub(super) fn reseal_parity(
        &self,
        file: u64,
        stripe: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry().clone();
        for col in 0..g.cols {
            for row in 0..g.rows {
                let Some((oss, key)) = self.home_key(file, stripe, Pos { row, col }) else {
                    continue;
                };
                if key.zone == Zone::Parity && self.backends[oss].healthy() {
                    self.backends[oss].reseal(key, offset_bytes as usize, len_bytes as usize)?;
                }
            }
        }
        Ok(())
    }

    /// Decode a stripe read by recovery, then put back every block of the erased columns
    /// that still verifies on disk: only blocks that fail their checksum (or sit on a failed
    /// OSS) take the decoded bytes. Why: where an interrupted write left data and parity
    /// disagreeing (a write hole) the decode yields garbage; keeping verified blocks confines
    /// that to blocks that were corrupt anyway (a double fault: write hole plus bit rot at
    /// the same offset, which no single-parity decode can repair).
    pub(super) fn decode_keeping_verified(
        &self,
        file: u64,
        stripe: u64,
        buf: &mut StripeBuf,
        erased: &[usize],
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry().clone();
        let block = CHECKSUM_BLOCK_BYTES;
        // (pos, block index, verified bytes) of every readable block of the erased columns.
        let mut verified: Vec<(Pos, usize, Vec<u8>)> = Vec::new();
        for &col in erased {
            for row in 0..g.rows {
                let pos = Pos { row, col };
                let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                    continue;
                };
                let b = &self.backends[oss];
                if !b.healthy() {
                    continue;
                }
                for i in 0..self.sb.element_bytes / block {
                    let mut bytes = vec![0u8; block];
                    match b.read(key, i * block, &mut bytes) {
                        Ok(()) => verified.push((pos, i, bytes)),
                        // Rebuilt by the decode below.
                        Err(err) if err.is_corrupt() || err.is_missing() => {}
                        Err(err) if err.is_unavailable() => break,
                        Err(err) => return Err(err.into()),
                    }
                }
            }
        }
        self.decode(file, stripe, buf, erased)?;
        for (pos, i, bytes) in verified {
            buf.element_mut(pos)[i * block..(i + 1) * block].copy_from_slice(&bytes);
        }
        Ok(())
    }

    /// Write cached ranges of a stripe that cannot be decoded to their home elements,
    /// leaving the parity (and the corrupt blocks) untouched for scrub to report.
    pub(super) fn move_cached_home_unprotected(
        &self,
        core: &mut Core,
        file: u64,
        overlay: &[exaraid_plan::Extent],
    ) -> Result<(), StoreError> {
        for x in overlay {
            let mut bytes = vec![0u8; x.len_bytes as usize];
            if !self.read_cached_or_record_lost(core, file, x, &mut bytes)? {
                continue;
            }
            let Some((oss, key)) = self.home_key(file, x.element.stripe, x.element.pos) else {
                continue;
            };
            if self.backends[oss].healthy() {
                self.count(oss, key.zone, Op::Write, false);
                self.backends[oss].write(key, x.element.offset_bytes as usize, &bytes)?;
            }
        }
        Ok(())
    }

    /// Windows open in the store's state but unknown to the planner's current epoch (after a
    /// reset, or a crash right after one) are started again.
    pub(super) fn restart_windows(&self, core: &mut Core) -> Result<(), StoreError> {
        let started: HashSet<u64> = core
            .state
            .inputs
            .iter()
            .filter_map(|i| {
                if let Input::StartDelayed { window, .. } = i {
                    Some(*window)
                } else {
                    None
                }
            })
            .collect();
        let windows: Vec<Window> = core
            .state
            .windows
            .values()
            .filter(|w| !started.contains(&w.window))
            .cloned()
            .collect();
        for w in windows {
            let now_ns = Self::now_ns(core);
            let plans = core
                .strategy
                .on_hint(
                    &Hint::StartDelayed {
                        window: w.window,
                        file: w.file,
                    },
                    now_ns,
                )
                .map_err(plan_err)?;
            assert!(plans.is_empty(), "START_DELAYED plans no I/O");
            self.journal(
                core,
                Rec::Input(Input::StartDelayed {
                    window: w.window,
                    file: w.file,
                    now_ns,
                }),
                true,
            )?;
        }
        Ok(())
    }
}

/// A fresh strategy fed with `inputs`: the planner's state after them, and every plan they
/// produced (in order).
pub(super) fn replay(
    kind: StrategyKind,
    layout: &Layout,
    config: StrategyConfig,
    inputs: &[Input],
) -> Result<(Box<dyn Strategy>, Vec<(usize, IoPlan)>), StoreError> {
    let mut strategy = exaraid_plan::new_strategy(kind, layout.clone(), config)
        .map_err(|e| StoreError::Metadata(e.to_string()))?;
    let mut plans = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let out = match *input {
            Input::Write {
                file,
                offset_bytes,
                len_bytes,
                now_ns,
            } => strategy.on_write(
                &ClientWrite {
                    client: 0,
                    app: 0,
                    file,
                    offset_bytes,
                    len_bytes,
                },
                now_ns,
            ),
            Input::StartDelayed {
                window,
                file,
                now_ns,
            } => strategy.on_hint(&Hint::StartDelayed { window, file }, now_ns),
            Input::EndDelayed { window, now_ns } => {
                strategy.on_hint(&Hint::EndDelayed { window }, now_ns)
            }
            Input::Tick { now_ns } => strategy.on_tick(now_ns),
            Input::Complete { plan } => strategy.on_complete(plan),
        };
        let out = out.map_err(|e| {
            StoreError::Metadata(format!(
                "replaying journal input {i} ({input:?}) failed: {e}; the journal does not match this exaraid's planner"
            ))
        })?;
        plans.extend(out.into_iter().map(|p| (i, p)));
    }
    Ok((strategy, plans))
}
