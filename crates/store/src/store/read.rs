//! Reads: home stripes, degraded reads (decode from the survivors), the newest bytes of a range.

use super::*;

impl Store {
    /// An OSS stopped answering: record it (once) and check the code still covers the loss.
    pub(super) fn note_failed(&self, oss: usize) -> Result<(), StoreError> {
        self.backends[oss].set_failed(true);
        let mut core = self.core.lock();
        // Past the tolerance nothing goes on record: it could never be undone (probed, as
        // one missing directory often means all are: a moved store directory).
        let down = self.unavailable_set(&core);
        if down.len() > self.tolerance() {
            return Err(self.too_many_unavailable(&down));
        }
        if !core.state.failed_oss.contains(&oss) {
            self.journal(&mut core, Rec::Fail { oss }, true)?;
        }
        self.absorbed_failures.lock().clear();
        self.record_losses(&mut core)?;
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
    /// OSS, checksum mismatch, or a written element whose slot is gone), which are left zero,
    /// and the corrupt or missing elements (row, col, blocks).
    pub(super) fn read_home_stripe(
        &self,
        file: u64,
        stripe: u64,
    ) -> Result<(StripeBuf, Vec<usize>, Vec<(usize, usize, Vec<usize>)>), StoreError> {
        let g = self.layout.geometry();
        let e = self.sb.element_bytes;
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, e);
        let mut erased = BTreeSet::new();
        let mut corrupt = Vec::new();
        for col in 0..g.cols {
            for row in 0..g.rows {
                let pos = Pos { row, col };
                let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                    continue;
                };
                self.count(oss, key.zone, Op::Read, key.zone == Zone::Parity);
                let b = &self.backends[oss];
                match b.read(key, 0, buf.element_mut(pos)) {
                    Ok(()) => {}
                    Err(err) if err.is_corrupt() => {
                        let blocks = b.verify(key).unwrap_or_default();
                        corrupt.push((row, col, blocks));
                        erased.insert(col);
                    }
                    Err(err) if err.is_missing() => {
                        // Written, then deleted or truncated outside exaraid: every block is lost.
                        corrupt.push((row, col, (0..e / CHECKSUM_BLOCK_BYTES).collect()));
                        erased.insert(col);
                    }
                    Err(err) if err.is_unavailable() => {
                        erased.insert(col);
                    }
                    Err(err) => return Err(err.into()),
                }
            }
        }
        Ok((buf, erased.into_iter().collect(), corrupt))
    }

    /// Rebuild one home element from the rest of its stripe (degraded read).
    pub(super) fn rebuild_element(
        &self,
        file: u64,
        stripe: u64,
        pos: Pos,
    ) -> Result<Vec<u8>, StoreError> {
        let (mut buf, mut erased, _) = self.read_home_stripe(file, stripe)?;
        if !erased.contains(&pos.col) {
            erased.push(pos.col); // the caller could not read it even if this pass could
            erased.sort();
        }
        self.decode(file, stripe, &mut buf, &erased)?;
        Ok(buf.element(pos).to_vec())
    }

    /// A degraded read rebuilt a home element from parity because a block of it failed its
    /// checksum. Before the rebuilt bytes `from..from + len` are returned, every checksum
    /// block they touch is confirmed: its rebuilt bytes match its stored checksum, or equal
    /// the bytes on disk (then the checksum itself rotted). Why: parity that disagrees with
    /// the data (a write hole, a stale parity element carrying a valid checksum) rebuilds
    /// wrong bytes, and nothing else would notice. Not confirmed: `DataLost` naming the range.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn confirm_rebuilt(
        &self,
        oss: usize,
        key: ElementKey,
        file: u64,
        element: &exaraid_plan::ElementRange,
        whole: &[u8],
        from: usize,
        len: usize,
    ) -> Result<(), StoreError> {
        assert!(from + len <= whole.len());
        let block = CHECKSUM_BLOCK_BYTES;
        let b = &self.backends[oss];
        let mut on_disk = vec![0u8; whole.len()];
        let on_disk_read = b.read_unverified(key, &mut on_disk).is_ok();
        for i in from / block..(from + len).div_ceil(block) {
            let rebuilt = &whole[i * block..(i + 1) * block];
            let confirmed = b.checksum_matches(key, i, rebuilt).unwrap_or(false)
                || (on_disk_read && on_disk[i * block..(i + 1) * block] == *rebuilt);
            if confirmed {
                continue;
            }
            let name = self
                .core
                .lock()
                .state
                .file_by_id(file)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| format!("#{file}"));
            let sdb = self.layout.stripe_data_bytes();
            let stripe = element.stripe;
            return Err(StoreError::DataLost(format!(
                "file '{name}' bytes {}..{} (stripe {stripe}) are lost: block {i} of column {} fails its checksum, and the bytes rebuilt from parity do not match it either (data and parity disagree there); write the stripe again, or restore the file",
                stripe * sdb,
                (stripe + 1) * sdb,
                element.pos.col
            )));
        }
        Ok(())
    }

    pub(super) fn decode(
        &self,
        file: u64,
        stripe: u64,
        buf: &mut StripeBuf,
        erased: &[usize],
    ) -> Result<(), StoreError> {
        self.decode_in(None, file, stripe, buf, erased)
    }

    /// `decode` for a caller that may hold the core lock (a settle reading cached ranges):
    /// `core` is that lock's content, where the error message finds the file's name. The
    /// lock is not reentrant: taking it again there would wait forever.
    pub(super) fn decode_in(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        buf: &mut StripeBuf,
        erased: &[usize],
    ) -> Result<(), StoreError> {
        if erased.is_empty() {
            return Ok(());
        }
        if erased.len() > self.tolerance() {
            let name_in = |c: &Core| {
                c.state
                    .file_by_id(file)
                    .map(|(n, _)| n.clone())
                    .unwrap_or_else(|| format!("#{file}"))
            };
            let name = match core {
                Some(c) => name_in(c),
                None => name_in(&self.core.lock()),
            };
            let sdb = self.layout.stripe_data_bytes();
            return Err(StoreError::DataLost(format!(
                "file '{name}' bytes {}..{} (stripe {stripe}) are lost: columns {erased:?} are unreadable but the code tolerates {}",
                stripe * sdb,
                (stripe + 1) * sdb,
                self.tolerance()
            )));
        }
        self.code
            .decode(buf, erased)
            .map_err(|e| StoreError::DataLost(e.to_string()))
    }

    /// Write every element of a home stripe (skipping failed OSSs).
    pub(super) fn write_home_stripe(
        &self,
        file: u64,
        stripe: u64,
        buf: &StripeBuf,
        only_cols: Option<&[usize]>,
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry();
        for col in 0..g.cols {
            if only_cols.is_some_and(|c| !c.contains(&col)) {
                continue;
            }
            for row in 0..g.rows {
                let pos = Pos { row, col };
                let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                    continue;
                };
                let b = &self.backends[oss];
                if !b.healthy() {
                    continue;
                }
                self.count(oss, key.zone, Op::Write, key.zone == Zone::Parity);
                b.write(key, 0, buf.element(pos))?;
            }
        }
        Ok(())
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
        self.check_usable()?;
        let _shared = self.gate.read();
        let (file, size) = self.file(name)?;
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
        if len_bytes > usize::MAX as u64 / 2 {
            return Err(StoreError::BadInput("read too large".into()));
        }
        {
            // Never zeros and never the bytes from before the window: the home bytes under a
            // lost range are not the file's.
            let core = self.core.lock();
            let lost = core.state.lost_in(file, offset_bytes, len_bytes);
            if !lost.is_empty() {
                let what = format!(
                    "reading '{name}' bytes {offset_bytes}..{} failed",
                    offset_bytes + len_bytes
                );
                return Err(self.lost_error(&core, &lost, &what));
            }
        }
        let mut out = vec![0u8; len_bytes as usize];
        let mut at = offset_bytes;
        while at < offset_bytes + len_bytes {
            let chunk = (offset_bytes + len_bytes - at).min(WRITE_CHUNK_BYTES_MAX);
            let (extents, ticket) = {
                let stripes: BTreeSet<(u64, u64)> = {
                    let sdb = self.layout.stripe_data_bytes();
                    (at / sdb..=(at + chunk - 1) / sdb)
                        .map(|s| (file, s))
                        .collect()
                };
                let mut core = self.core.lock();
                let ticket = self.locks.enqueue(stripes);
                let extents = core.strategy.lookup(file, at, chunk).map_err(plan_err)?;
                core.reads_in_flight += 1;
                (extents, ticket)
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
                    result =
                        self.read_range(None, x.oss, x.zone, file, x.addr_bytes, &x.element, buf);
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
            at += chunk;
        }
        Ok(out)
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
        let extents = core
            .strategy
            .lookup(file, 0, meta.size_bytes)
            .map_err(plan_err)?;
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
