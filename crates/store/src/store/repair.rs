//! Failures, scrub and rebuild.

use super::*;

impl Store {
    // ---------------------------------------------------------------- failures, scrub, rebuild

    /// Mark OSS `oss` failed (as if its disk died): reads rebuild its elements from parity,
    /// writes skip it, until `rebuild`.
    pub fn fail_oss(&self, oss: usize) -> Result<(), StoreError> {
        let n = self.backends.len();
        if oss >= n {
            return Err(StoreError::BadInput(format!(
                "OSS {oss} does not exist: this store has OSSs 0..{n}"
            )));
        }
        self.backends[oss].set_failed(true);
        let mut core = self.core.lock();
        if !core.state.failed_oss.contains(&oss) {
            self.journal(&mut core, Rec::Fail { oss }, true)?;
        }
        // Window bytes whose only copy was there are lost: on record from now on, and out
        // of the planner at the next absorb.
        self.absorbed_failures.lock().clear();
        self.record_losses(&mut core)
    }

    pub fn failed_osses(&self) -> Vec<usize> {
        let core = self.core.lock();
        (0..self.backends.len())
            .filter(|&i| !self.backends[i].healthy() || core.state.failed_oss.contains(&i))
            .collect()
    }

    pub(super) fn stripes_of(&self, size_bytes: u64) -> u64 {
        size_bytes.div_ceil(self.layout.stripe_data_bytes())
    }

    /// Check every element's checksums and every stripe's parity; with `repair`, rewrite
    /// corrupt elements from the rest of their stripe and stale parity from the data.
    pub fn scrub(&self, repair: bool) -> Result<ScrubReport, StoreError> {
        self.check_usable()?;
        let files: Vec<(String, u64, u64)> = self
            .core
            .lock()
            .state
            .files
            .iter()
            .map(|(n, m)| (n.clone(), m.id, m.size_bytes))
            .collect();
        let mut report = ScrubReport::default();
        let g = self.layout.geometry().clone();
        for (name, id, size) in files {
            for stripe in 0..self.stripes_of(size) {
                let _guard = self.locks.lock([(id, stripe)].into_iter().collect());
                report.stripes_checked += 1;
                let (mut buf, erased, corrupt) = self.read_home_stripe(id, stripe)?;
                let corrupt_cols: Vec<usize> = corrupt.iter().map(|c| c.1).collect();
                for (row, col, blocks) in &corrupt {
                    let pos = Pos {
                        row: *row,
                        col: *col,
                    };
                    let zone = if matches!(g.cell(pos), Cell::Parity(_)) {
                        "parity"
                    } else {
                        "data"
                    };
                    report.corrupt_elements.push(ScrubFinding {
                        oss: self.layout.oss_of(id, stripe, *col),
                        file: name.clone(),
                        stripe,
                        zone: zone.into(),
                        row: *row,
                        blocks: blocks.clone(),
                        repaired: false,
                    });
                }
                if erased.is_empty() {
                    if self.kind != StrategyKind::Raid0
                        && !self
                            .code
                            .verify(&buf)
                            .map_err(|e| StoreError::Io(e.to_string()))?
                            .is_empty()
                    {
                        report.parity_mismatches.push((name.clone(), stripe));
                        if repair {
                            self.code
                                .encode(&mut buf)
                                .map_err(|e| StoreError::Io(e.to_string()))?;
                            let parity_cols: Vec<usize> =
                                g.parity_pos.iter().map(|p| p.col).collect();
                            self.write_home_stripe(id, stripe, &buf, Some(&parity_cols))?;
                        }
                    }
                    continue;
                }
                if corrupt_cols.is_empty() || !repair {
                    continue;
                }
                match self.decode(id, stripe, &mut buf, &erased) {
                    Ok(()) => {
                        // Rewrite only the corrupt elements (their columns may hold intact ones).
                        for (row, col, _) in &corrupt {
                            let pos = Pos {
                                row: *row,
                                col: *col,
                            };
                            let Some((oss, key)) = self.home_key(id, stripe, pos) else {
                                continue;
                            };
                            self.count(oss, key.zone, Op::Write, key.zone == Zone::Parity);
                            self.backends[oss].write(key, 0, buf.element(pos))?;
                            report.repaired_elements += 1;
                        }
                        let n = report.corrupt_elements.len();
                        for f in &mut report.corrupt_elements[n - corrupt.len()..] {
                            f.repaired = true;
                        }
                    }
                    Err(e) => report.unrepairable.push(e.to_string()),
                }
            }
        }
        if repair {
            for b in self.backends.iter().filter(|b| b.healthy()) {
                b.sync()?;
            }
        }
        Ok(report)
    }

    /// Restore full redundancy on OSS `oss`: rebuild every element it holds from the other
    /// OSSs onto `to` (a new, empty directory) or, without `to`, onto its own directory
    /// (emptied first). Cached data is moved home first.
    pub fn rebuild(&mut self, oss: usize, to: Option<&Path>) -> Result<(), StoreError> {
        self.check_usable()?;
        let n = self.backends.len();
        if oss >= n {
            return Err(StoreError::BadInput(format!(
                "OSS {oss} does not exist: this store has OSSs 0..{n}"
            )));
        }
        if self.tolerance() == 0 {
            return Err(StoreError::BadInput(
                "a raid0 store has no parity to rebuild from".into(),
            ));
        }
        self.fail_oss(oss)?;
        {
            let mut core = self.core.lock();
            self.record_losses(&mut core)?; // settle skips them, forgetting the planner's view
            self.settle(&mut core, BTreeSet::new(), false)?;
        }
        let label = OssLabel {
            store_id: self.sb.store_id.clone(),
            index: oss,
            element_bytes: self.sb.element_bytes,
        };
        let target = match to {
            Some(dir) => dir.to_path_buf(),
            None => self.sb.oss_dirs[oss].clone(),
        };
        if to.is_none() {
            // Rebuild in place: what the directory holds is stale (writes skipped it).
            let _ = std::fs::remove_dir_all(target.join("objects"));
            let _ = std::fs::remove_file(target.join(crate::backend::LABEL_FILE));
        }
        let fresh = DirBackend::create(&target, &label, self.sb.oss_capacity_bytes)?;
        let files: Vec<(u64, u64)> = self
            .core
            .lock()
            .state
            .files
            .values()
            .map(|m| (m.id, m.size_bytes))
            .collect();
        let g = self.layout.geometry().clone();
        for (id, size) in files {
            for stripe in 0..self.stripes_of(size) {
                let cols: Vec<usize> = (0..g.cols)
                    .filter(|&c| self.layout.oss_of(id, stripe, c) == oss)
                    .collect();
                if cols.is_empty() {
                    continue;
                }
                let (mut buf, mut erased, _) = self.read_home_stripe(id, stripe)?;
                erased.extend(cols.iter().copied());
                erased.sort();
                erased.dedup();
                self.decode(id, stripe, &mut buf, &erased)?;
                for &col in &cols {
                    for row in 0..g.rows {
                        let pos = Pos { row, col };
                        let Some((_, key)) = self.home_key(id, stripe, pos) else {
                            continue;
                        };
                        self.count(oss, key.zone, Op::Write, key.zone == Zone::Parity);
                        fresh.write(key, 0, buf.element(pos))?;
                    }
                }
            }
        }
        fresh.sync()?;
        if let Some(dir) = to {
            let canon = dir
                .canonicalize()
                .map_err(|e| StoreError::Io(format!("{}: {e}", dir.display())))?;
            let mut sb = self.sb.clone();
            sb.oss_dirs[oss] = canon;
            sb.save(&self.dir)?;
            self.sb = sb;
        }
        self.backends[oss] = Box::new(fresh);
        let mut core = self.core.lock();
        self.journal(&mut core, Rec::Rebuilt { oss }, true)?;
        // A later failure of this OSS must be absorbed again (see `absorbed_failures`).
        self.absorbed_failures.lock().clear();
        self.checkpoint_locked(&mut core)
    }
}
