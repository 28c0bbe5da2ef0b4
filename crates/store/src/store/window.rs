//! Delayed-parity windows (START_DELAYED / END_DELAYED).
//!
//! # An OSS failure inside an open window
//! Window bytes have one copy (the cache zone of their data OSS) and no parity until END, so
//! a failed OSS loses those it held. The store makes that a defined event:
//! 1. As soon as it knows of the failure (`fail_oss`, an I/O error, an OSS gone at open) it
//!    journals the lost ranges ([`Rec::Lost`], [`Store::record_losses`]); `status` lists them
//!    and reads of them fail with `DataLost` naming them, until they are written again.
//! 2. Before anything could read the lost cache (a write and the timers it runs, END, a
//!    tick, rm, rebuild, recovery) the store settles ([`Store::absorb_losses`]): every other
//!    cached byte goes home with parity, the lost ones are skipped (their stripes keep the
//!    old home bytes, which match their parity), and the planner forgets them. Windows stay
//!    open. So no plan ever reads a lost byte, and no failure makes the store unusable.
//! 3. A window write whose only copy would go to a failed OSS is refused (`write_chunk`):
//!    acknowledging it would store it nowhere.
//! 4. END closes the window like any END and then fails naming every range it lost. An OSS
//!    that fails during END itself takes none of the bytes END read: its parity plan
//!    journals them before the failure goes on record (`copy_columns_of_failing_oss`), and
//!    `planner_lost` counts them kept (review E11 item 2). An OSS that `fail_oss` fails
//!    after END planned but before its parity plan read (another thread; the plan holds no
//!    failure gate while queued) loses the window's bytes there as in 1.; the parity plan
//!    reads the home bytes under them instead (`window_reads_lost`), so END still gives the
//!    rest its parity and names the loss (review s9r R9-2).

use super::*;

impl Store {
    // ---------------------------------------------------------------- delayed windows

    /// START_DELAYED on file `name` (created if missing): writes to it go to the cache zone
    /// without parity until [`Store::delayed_end`]. Returns the window's token.
    pub fn delayed_start(&self, name: &str) -> Result<String, StoreError> {
        self.check_usable()?;
        if self.kind != StrategyKind::Delayed {
            return Err(StoreError::BadInput(format!(
                "this store's write path is {}: delayed windows need a store created with --write-path delayed",
                self.sb.write_path.name()
            )));
        }
        // Unconfirmed until its `WindowStart` (a START refused or killed before it leaves no
        // name behind: the next open removes it).
        let file = self.file_or_create(name, true)?;
        let _shared = self.gate.read();
        let (token, plans) = {
            let mut core = self.core.lock();
            // As for a write (`write_id`): an `rm` may have run since the lookup.
            if core.state.file_by_id(file).is_none() {
                return Err(StoreError::BadInput(format!(
                    "'{name}' was removed (`rm`, or replaced by a `put`) while START waited to run; no window was started: START again"
                )));
            }
            if let Some((t, w)) = core.state.windows.iter().find(|(_, w)| w.file == file) {
                // A window whose timeout fired is no longer open to the planner, but stays
                // listed until its END: "already open" sent the user looking for a writer
                // that may be long gone (note16 OPEN 8).
                if w.timed_out || !core.strategy.window_open(w.window) {
                    return Err(StoreError::BadInput(format!(
                        "file '{name}' has a delayed window (token {t}) that timed out: its parity was computed at the timeout (writes to the file since are protected at once), but it was never ended; nothing was started: end it with `exaraid store delayed end {} {t}` (it says whether any of its bytes were lost), then start a new window",
                        self.dir.display()
                    )));
                }
                return Err(StoreError::BadInput(format!(
                    "file '{name}' already has an open delayed window (token {t}); end it with `exaraid store delayed end` first"
                )));
            }
            let now_ns = Self::now_ns(&core);
            let window = core.state.next_window;
            let plans = core
                .strategy
                .on_hint(&Hint::StartDelayed { window, file }, now_ns)
                .map_err(plan_err)?;
            let token = format!("{}-{window}", &self.sb.store_id[..8]);
            let w = Window {
                window,
                file,
                name: name.to_string(),
                started_unix_ns: unix_now_ns(),
                timed_out: false,
            };
            // The user's record first, the planner's input second (durable together): a
            // crash between them leaves a window the state lists and the planner lacks, which
            // open starts again (`restart_windows`), so START took effect whole. The other
            // order left a window only the planner knew: writes without parity, no token to
            // END it, START refused (review d, D2).
            self.journal_after_hint(
                &mut core,
                Rec::WindowStart {
                    token: token.clone(),
                    window: w,
                },
                false,
            )?;
            self.journal_after_hint(
                &mut core,
                Rec::Input(Input::StartDelayed {
                    window,
                    file,
                    now_ns,
                }),
                true,
            )?;
            // Review s8r R8-1: the window took writes and then refused those touching the
            // failed OSS, which the user learned only at the first such write.
            let failed: Vec<usize> = core.state.failed_oss.iter().copied().collect();
            if !failed.is_empty() {
                self.deferred_warnings.lock().push(format!(
                    "window {token} opened on '{name}' with OSS {failed:?} failed: a write in it whose bytes would go to a failed OSS is refused (their only copy, without parity, would be on it); writes to the other OSSs go on. `exaraid store rebuild` the OSS first to write anywhere in the window"
                ));
            }
            (token, self.admit(plans))
        };
        self.run_plans(plans, None)?;
        Ok(token)
    }

    /// Journal a record of a START or END whose hint the planner has already taken. If the
    /// record cannot be written (a full or failing disk), the planner is ahead of the journal
    /// and the state (a window open in one and not the other: the crash states of D1 and D2,
    /// in a live process), so the store refuses further work until it is reopened, which
    /// rebuilds both from the journal.
    fn journal_after_hint(&self, core: &mut Core, rec: Rec, sync: bool) -> Result<(), StoreError> {
        self.journal(core, rec, sync).inspect_err(|_| {
            self.poisoned
                .store(true, std::sync::atomic::Ordering::SeqCst)
        })
    }

    /// Before a settle's planner reset: journal every window the state lists that the
    /// planner started in this epoch and has closed (its timeout fired, or a restart
    /// started it closed), not yet on record so, again with `Window::timed_out` set. The
    /// reset drops the inputs that told the planner; with this on record first, every
    /// restart after it (the settle's own, an open's after a crash anywhere in between)
    /// starts the window closed (review s15r2 R15b-2: a kill between the reset and the
    /// re-ended window started it fresh: writes to its file went unprotected again, for a
    /// new timeout). Unsynced: the reset after them rides on the same fsync, and a journal
    /// keeps a prefix. A window the planner never heard of in this epoch (a crash between
    /// START's two records) is left to start as the restart finds it. Bounded by the
    /// windows listed.
    /// A window still open whose timeout is due now goes on record closed too, as its tick
    /// would have closed it (the settle moves its bytes home, with their parity): the
    /// restart gave it a fresh timeout, and where the tick had not run (its plans found no
    /// room, a reservation EIO, then the failure's settle) writes to its file went
    /// unprotected again for a whole new timeout (s22e leftover). A window's due time never
    /// moves later because of an error.
    pub(super) fn record_closed_windows(&self, core: &mut Core) -> Result<(), StoreError> {
        let now_ns = Self::now_ns(core);
        let mut recs = closed_window_records(&core.state, core.strategy.as_ref());
        let started: BTreeSet<u64> = core
            .state
            .inputs
            .iter()
            .filter_map(|i| match *i {
                Input::StartDelayed { window, .. } => Some(window),
                _ => None,
            })
            .collect();
        recs.extend(
            core.state
                .windows
                .iter()
                .filter(|(_, w)| !w.timed_out && started.contains(&w.window))
                .filter(|(_, w)| core.strategy.window_due(w.window, now_ns))
                .map(|(token, w)| Rec::WindowStart {
                    token: token.clone(),
                    window: Window {
                        timed_out: true,
                        ..w.clone()
                    },
                }),
        );
        for rec in recs {
            self.journal(core, rec, false)?;
        }
        Ok(())
    }

    /// End every window the planner holds open and the state does not list, returning the
    /// plans that compute their parity. Called on open. Why: such a window has no token (an
    /// exaraid that journaled START's planner input before its `WindowStart` record, killed
    /// between the two; review d, D2), so nobody would END it, its file's writes would get
    /// no parity until the timeout, and START on the file would be refused. (The window the
    /// state lists and the planner lacks is the other half: `restart_windows`.)
    pub(super) fn end_unlisted_windows(&self, core: &mut Core) -> Result<Vec<IoPlan>, StoreError> {
        let listed: BTreeSet<u64> = core.state.windows.values().map(|w| w.window).collect();
        let mut started: BTreeSet<u64> = BTreeSet::new();
        for input in &core.state.inputs {
            match *input {
                Input::StartDelayed { window, .. } => {
                    started.insert(window);
                }
                Input::EndDelayed { window, .. } => {
                    started.remove(&window);
                }
                _ => {}
            }
        }
        let mut plans = Vec::new();
        for window in started.difference(&listed).copied() {
            let now_ns = Self::now_ns(core);
            match core.strategy.on_hint(&Hint::EndDelayed { window }, now_ns) {
                Ok(ended) => {
                    self.journal(
                        core,
                        Rec::Input(Input::EndDelayed {
                            window,
                            now_ns,
                            parity_crcs_synced: true,
                        }),
                        false,
                    )?;
                    plans.extend(ended);
                }
                // Closed by its timeout already (remembered, or forgotten since): its parity
                // is planned.
                Err(PlanError::WindowTimedOut { .. }) | Err(PlanError::UnknownWindow { .. }) => {}
                Err(e) => return Err(plan_err(e)),
            }
        }
        Ok(plans)
    }

    /// Bytes the planner holds only in the cache zone of a failed OSS, without parity (open
    /// windows, and ended ones whose parity is not yet computed), with their window's token.
    pub(super) fn planner_lost(&self, core: &Core) -> Vec<LostRange> {
        if self.kind != StrategyKind::Delayed || !self.any_oss_failed(core) {
            return Vec::new(); // fast path: only a failed OSS loses window bytes
        }
        let kept = self.kept_window_bytes(core);
        let none: Vec<(u64, u64)> = Vec::new();
        self.unprotected_now(core)
            .into_iter()
            // Recorded failures only: an OSS merely unavailable now (a missing mount) may
            // come back with its bytes; a write or END records its failure first.
            .filter(|u| core.state.failed_oss.contains(&u.oss))
            // Failed after a settle had synced its home writes on every OSS: that settle
            // wrote these bytes home with parity, durable on the other OSSs, and the redo of
            // the settle at open decodes them from home (`settle_inner`).
            .filter(|u| !core.state.failed_after_settle_synced.contains(&u.oss))
            .flat_map(|u| {
                let (a, z) = (u.file_offset_bytes, u.file_offset_bytes + u.len_bytes);
                let mut left = vec![(a, z)];
                for &(p, q) in kept.get(&u.file).unwrap_or(&none) {
                    crate::state::sub_range(&mut left, p, q);
                }
                left.into_iter().map(move |(a, z)| (u, a, z))
            })
            .map(|(u, a, z)| LostRange {
                file: u.file,
                offset_bytes: a,
                len_bytes: z - a,
                oss: u.oss,
                token: core
                    .state
                    .windows
                    .iter()
                    .find(|(_, w)| w.window == u.window)
                    .map(|(t, _)| t.clone())
                    .or_else(|| core.ending_windows.get(&u.window).cloned())
                    .unwrap_or_else(|| format!("#{}", u.window)),
                cache_addr_bytes: None,
                made_final_by_rebuild: false,
            })
            .collect()
    }

    /// The planner's unprotected window bytes less those of windows whose parity plan is
    /// durable but not yet heard by the planner (`Core::window_parity_unheard`): home parity
    /// covers those already.
    pub(super) fn unprotected_now(&self, core: &Core) -> Vec<exaraid_plan::UnprotectedRange> {
        let mut ranges = core.strategy.unprotected();
        if !core.window_parity_unheard.is_empty() {
            ranges.retain(|u| !core.window_parity_unheard.values().any(|&w| w == u.window));
        }
        ranges
    }

    /// Per file, the window bytes a parity plan read from an OSS that then failed under it
    /// and copied into the journal before the failure went on record
    /// (`copy_columns_of_failing_oss`): not lost, though the planner still holds them only
    /// on that OSS until the plan is durable (its `Durable` record drops the copies; its
    /// parity then covers them) or a crash's recovery lays them over their stripes.
    fn kept_window_bytes(&self, core: &Core) -> BTreeMap<u64, Vec<(u64, u64)>> {
        let g = self.layout.geometry();
        let mut kept: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
        for (_, c) in core
            .state
            .failed_column_copies
            .iter()
            .filter(|(_, c)| c.cache)
        {
            let pos = Pos {
                row: c.row,
                col: c.col,
            };
            let Cell::Data(d) = g.cell(pos) else {
                continue;
            };
            if c.bytes.is_empty() {
                continue;
            }
            let a = self.layout.file_offset(c.stripe, d, c.offset_bytes);
            crate::state::add_range(kept.entry(c.file).or_default(), a, a + c.bytes.len() as u64);
        }
        kept
    }

    pub(super) fn oss_failed(&self, core: &Core, oss: usize) -> bool {
        !self.backends[oss].healthy() || core.state.failed_oss.contains(&oss)
    }

    fn any_oss_failed(&self, core: &Core) -> bool {
        !core.state.failed_oss.is_empty() || self.backends.iter().any(|b| !b.healthy())
    }

    fn failed_set(&self, core: &Core) -> BTreeSet<usize> {
        (0..self.backends.len())
            .filter(|&i| self.oss_failed(core, i))
            .collect()
    }

    /// Journal (durably) every lost range the planner holds that is not recorded yet. Called
    /// as soon as a failure is known and before anything forgets the planner's view (a
    /// settle, a planner reset): the record is then the only trace of the loss.
    /// Returns the ranges it recorded.
    pub(super) fn record_losses(&self, core: &mut Core) -> Result<Vec<LostRange>, StoreError> {
        self.record_losses_addressed(core, None)
    }

    /// `record_losses`; the ranges on `addressed` (an OSS `fail_oss` has just recorded
    /// failed, between plans, while it answered) carry their cache-zone address, split per
    /// cache extent. Why only then: every plan that began writing those bytes was durable
    /// before the `Fail` (the failure gate), so the bytes are on that OSS at that address,
    /// and no plan writes a failed OSS afterwards; a loss found later (a window write that
    /// skipped the failed OSS) names a cache chunk that holds older bytes under valid
    /// checksums (they are seeded with the address, not a version), which `online` must
    /// never take back. Not the bytes of a write in flight: its plans hold the gate only
    /// once they run, so an admitted one may not have run yet (review s19r R19-3).
    pub(super) fn record_losses_addressed(
        &self,
        core: &mut Core,
        addressed: Option<usize>,
    ) -> Result<Vec<LostRange>, StoreError> {
        let new: Vec<LostRange> = self
            .planner_lost(core)
            .into_iter()
            .filter(|l| {
                // Already recorded when one record covers it (records are disjoint).
                !core
                    .state
                    .lost_in(l.file, l.offset_bytes, l.len_bytes)
                    .iter()
                    .any(|r| r.offset_bytes <= l.offset_bytes && l.end_bytes() <= r.end_bytes())
            })
            .collect();
        let new: Vec<LostRange> = match addressed {
            None => new,
            Some(oss) => new
                .into_iter()
                .map(|l| self.split_by_cache_address(core, oss, l))
                .collect::<Result<Vec<Vec<LostRange>>, StoreError>>()?
                .into_iter()
                .flatten()
                .collect(),
        };
        if new.is_empty() {
            return Ok(new);
        }
        // Several records if need be: one record stays far below the journal's record limit.
        for ranges in new.chunks(LOST_RANGES_PER_RECORD_MAX) {
            self.journal(
                core,
                Rec::Lost {
                    ranges: ranges.to_vec(),
                },
                true,
            )?;
        }
        // A write in flight names them with its result (merge review s18m M18-2).
        for w in core.writes_in_flight.values_mut() {
            w.note_failure_lost(&new);
        }
        Ok(new)
    }

    /// Lost range `l` split where the planner's cache extents of it on `oss` split, each
    /// piece with its cache-zone address there (`None` for a piece elsewhere).
    fn split_by_cache_address(
        &self,
        core: &Core,
        oss: usize,
        l: LostRange,
    ) -> Result<Vec<LostRange>, StoreError> {
        if l.oss != oss {
            return Ok(vec![l]);
        }
        let extents = core
            .strategy
            .lookup(l.file, l.offset_bytes, l.len_bytes)
            .map_err(plan_err)?;
        // Bytes of writes in flight: their plans were admitted (the planner names their
        // cache address) but may not have run, and none runs now on `oss` (review s19r
        // R19-3: taken back, such an address gave a hole or an older chunk as the file's
        // bytes). Not addressed: they stay lost. A write whose plans did run before the
        // failure is refused all the same (`write_chunk_once`), so nothing acknowledged is
        // given up.
        let in_flight: Vec<(u64, u64)> = core
            .writes_in_flight
            .values()
            .filter(|w| w.file == l.file)
            .map(|w| (w.offset_bytes, w.offset_bytes + w.len_bytes))
            .collect();
        let mut pieces = Vec::with_capacity(extents.len());
        for x in extents {
            let a = x.file_offset_bytes.max(l.offset_bytes);
            let z = (x.file_offset_bytes + x.len_bytes).min(l.end_bytes());
            if a >= z {
                continue;
            }
            let cached_here = x.zone == PlanZone::Cache && x.oss == oss;
            let mut cuts: Vec<u64> = vec![a, z];
            if cached_here {
                for &(p, q) in &in_flight {
                    cuts.extend([p, q].into_iter().filter(|&c| a < c && c < z));
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            for cut in cuts.windows(2) {
                let (s, e) = (cut[0], cut[1]);
                let unconfirmed = in_flight.iter().any(|&(p, q)| p < e && s < q);
                pieces.push(LostRange {
                    offset_bytes: s,
                    len_bytes: e - s,
                    cache_addr_bytes: (cached_here && !unconfirmed)
                        .then(|| x.addr_bytes + (s - x.file_offset_bytes)),
                    ..l.clone()
                });
            }
        }
        let covered: u64 = pieces.iter().map(|p| p.len_bytes).sum();
        assert_eq!(
            covered, l.len_bytes,
            "the planner's extents cover a lost range"
        );
        Ok(pieces)
    }

    /// Make the planner forget bytes it holds only on a failed OSS: record them as lost, then
    /// settle (every other cached byte goes home with parity; the lost ones are skipped and
    /// their stripes keep parity that matches the home bytes). Afterwards no plan the planner
    /// makes (END, a timeout, a move) reads the lost cache, so nothing fails on it; windows
    /// stay open. Call without the core lock or the gate held.
    pub(super) fn absorb_losses(&self) -> Result<(), StoreError> {
        if self.kind != StrategyKind::Delayed {
            return Ok(());
        }
        {
            let core = self.core.lock();
            if !self.any_oss_failed(&core)
                || *self.absorbed_failures.lock() == self.failed_set(&core)
            {
                return Ok(());
            }
        }
        self.check_usable()?;
        // Exclusive: no plan is in flight, so none planned before a failure is still to run.
        let _exclusive = self.gate_exclusive()?;
        let queued: Vec<Admitted> = self.background.lock().drain(..).collect();
        self.run_plans_from(queued, None, true)?;
        let mut core = self.core.lock();
        self.record_losses(&mut core)?;
        let failed = self.failed_set(&core);
        if !self.planner_lost(&core).is_empty() {
            self.settle(&mut core, BTreeSet::new()).map_err(|e| {
                if !matches!(e, StoreError::NoSpace(_)) || self.poisoned.load(Ordering::SeqCst) {
                    return e;
                }
                // Refused unchanged: said as why this settle runs, which the user did not
                // ask for (review s17r R17-1).
                let list: Vec<String> = failed.iter().map(|o| o.to_string()).collect();
                let osses = match list.len() {
                    1 => format!("OSS {}", list[0]),
                    _ => format!("OSSs {}", list.join(", ")),
                };
                e.with_context(&format!(
                    "this settle is the store's own: {osses} failed while a delayed window was open, the window bytes whose only copy was there are recorded lost (`exaraid store status` lists them), and the window's other cached bytes must go home with parity before any write, END, window timeout or flush runs; until then those are refused, and reads work"
                ))
            })?;
        }
        assert!(
            self.planner_lost(&core).is_empty(),
            "settle keeps no lost bytes"
        );
        *self.absorbed_failures.lock() = failed;
        Ok(())
    }

    /// The token of the lost range `[a, z)` of `file` whose cached copy a settle could
    /// neither read nor rebuild. Bytes of a window (in the planner's `unprotected` ranges)
    /// the state still lists, or whose END runs, carry its token after the cause, so that
    /// its END names them whatever settle found them (review s18r R18-3); other cached bytes
    /// carry the cause alone (`UNREADABLE_CACHE`).
    pub(super) fn unreadable_cache_token(
        &self,
        core: &Core,
        unprotected: &[exaraid_plan::UnprotectedRange],
        file: u64,
        (a, z): (u64, u64),
    ) -> String {
        unprotected
            .iter()
            .filter(|u| u.file == file)
            .find(|u| u.file_offset_bytes < z && a < u.file_offset_bytes + u.len_bytes)
            .and_then(|u| {
                let listed = core
                    .state
                    .windows
                    .iter()
                    .find(|(_, w)| w.window == u.window);
                listed
                    .map(|(t, _)| t.clone())
                    .or_else(|| core.ending_windows.get(&u.window).cloned())
            })
            .map_or_else(
                || UNREADABLE_CACHE.to_string(),
                |token| super::exec::window_cache_unreadable(&token),
            )
    }

    /// Every lost range on record of a window's bytes whose only copy was unreadable, named
    /// with its window (for a warning).
    pub(super) fn window_bytes_unreadable_on_record(&self) -> Vec<String> {
        let core = self.core.lock();
        core.state
            .lost
            .iter()
            .filter_map(|l| {
                let window = l.token.strip_prefix(super::exec::WINDOW_CACHE_UNREADABLE)?;
                let name = core
                    .state
                    .file_by_id(l.file)
                    .map(|(n, _)| read::describe_file_name(n))
                    .unwrap_or_else(|| format!("removed file #{}", l.file));
                Some(format!(
                    "{name} bytes {}..{} (OSS {}, delayed window {window})",
                    l.offset_bytes,
                    l.end_bytes(),
                    l.oss
                ))
            })
            .collect()
    }

    /// The error for reading (or ending a window with) lost bytes, naming every range.
    pub(super) fn lost_error(&self, core: &Core, lost: &[&LostRange], what: &str) -> StoreError {
        let list = self.lost_range_names(core, lost);
        self.lost_error_named(lost, &list, what)
    }

    /// Each of `lost` as "file 'NAME' bytes A..Z (OSS I, window TOKEN)".
    pub(super) fn lost_range_names(&self, core: &Core, lost: &[&LostRange]) -> Vec<String> {
        lost.iter()
            .map(|l| {
                let name = core
                    .state
                    .file_by_id(l.file)
                    .map(|(n, _)| read::describe_file_name(n))
                    .unwrap_or_else(|| format!("removed file #{}", l.file));
                // A loss outside any window (a stale or unreadable cache stripe, recovery's
                // or a cut record's) has its cause in place of a window token, "none: ..."
                // (as `status` shows it); named as a window it read "window none: ..." on a
                // store with no window (review s13r R13-1).
                let (window, token) = match l.token.strip_prefix("none: ") {
                    Some(why) => ("", why),
                    None => ("window ", l.token.as_str()),
                };
                format!(
                    "{name} bytes {}..{} (OSS {}, {window}{token})",
                    l.offset_bytes,
                    l.end_bytes(),
                    l.oss,
                )
            })
            .collect()
    }

    /// `lost_error` with the ranges named (`list`).
    fn lost_error_named(&self, lost: &[&LostRange], list: &[String], what: &str) -> StoreError {
        // Two causes share the record: an OSS that failed inside an open window, and cached
        // bytes a settle could neither read nor rebuild (corruption beyond the code's
        // tolerance); the message names the one that happened.
        let undecidable = |token: &str| {
            token == super::recovery::UNDECIDABLE_AFTER_CRASH
                || token == super::recovery::UNDECIDABLE_MOVING_HOME
                || token == super::recovery::UNDECIDABLE_OSS_FAILED
                || token == super::recovery::UNDECIDABLE_CUT_BLOCK
        };
        let unreadable = |token: &str| super::exec::is_unreadable_cache(token);
        let cut_acknowledgement =
            |l: &&LostRange| l.token == super::cut_durable::CUT_ACKNOWLEDGEMENT_UNPROVEN;
        let why = if lost.iter().all(cut_acknowledgement) {
            "the journal's last record was damaged (see the warning) and may have been the acknowledgement of the write of these bytes, whose new bytes could not be proven on disk, so they are recorded lost rather than read as they were before that write"
        } else if lost
            .iter()
            .all(|l| l.token == super::cut_deletions::OBJECTS_DELETED)
        {
            "a removal of the file (a `put` over it or an `rm`) deleted its objects, and the journal record that said so was damaged and cut off when the store opened, so which content the name holds cannot be told"
        } else if lost
            .iter()
            .all(|l| l.token == super::cut_deletions::OBJECTS_REMOVED_SINCE)
        {
            "the store was opened with state and journal older than its OSS directories (every OSS's metadata epoch file was removed), and a `put` over the file or an `rm` that only newer metadata knew of deleted the objects holding these bytes, so no OSS holds them"
        } else if lost
            .iter()
            .all(|l| l.token == super::repair::UNCHECKED_DECODE_AFTER_TAIL_CUT)
        {
            "the journal's last record was cut off while their OSS was failed, and when that OSS was put back (`online`) or rebuilt, only a decode through parity the cut write may have left stale could give these bytes (written while it was failed, or on a rebuilt OSS), so they were recorded lost rather than written back unchecked"
        } else if (lost.iter()).all(|l| l.token == super::recovery::UNDECIDABLE_CUT_BLOCK) {
            "recovery after a crash could not tell the true bytes of these acknowledged bytes: a write the crash cut reached part of their 4 KiB block, which then failed its checksum, and nothing on record (no crc of the whole new block, no decode its stored checksum proves) told whether its other bytes were torn by the crash or rotten, so it marked them lost rather than guess"
        } else if (lost.iter()).all(|l| l.token == super::recovery::UNDECIDABLE_MOVING_HOME) {
            "the store could not tell the true bytes of these acknowledged bytes when it moved cached bytes of their stripe home (a settle: a delayed window's END, a `flush`, or an open's recovery finishing one that did not end, whether a crash cut it or it failed): their 4 KiB block failed its checksum (rotten, or torn by a crash that cut the move) and no decode from parity was confirmed by it (data and parity disagree there: a stale element, such as an OSS that lost a write, or more damage than the parity places), so it marked them lost rather than guess"
        } else if lost.iter().all(|l| undecidable(&l.token)) {
            "recovery after a crash could not tell the true bytes of these acknowledged bytes (a write cut by the crash beside unreadable or rotten blocks, where no decode could be confirmed: the cut write left parity that could not be told old or new, or more such blocks than the parity can place), so it marked them lost rather than guess"
        } else if lost.iter().any(|l| undecidable(&l.token)) {
            "these bytes are lost (an OSS failed inside a delayed window, cached bytes could not be read or rebuilt, or recovery after a crash could not tell their true bytes)"
        } else if lost
            .iter()
            .all(|l| l.token == super::stale_cache::STALE_CACHE)
        {
            "these acknowledged bytes sat in a WCL cache stripe whose running parity disagrees with its data (an OSS lost a write into its cache zone: a stale element) and the code could not locate the stale column, so they were recorded lost rather than moved home as if right"
        } else if lost
            .iter()
            .all(|l| l.token.starts_with(super::exec::WINDOW_CACHE_UNREADABLE))
        {
            // Only a settle records this token (`unreadable_cache_token`), and every settle
            // moves open windows' bytes home: a `rebuild` or `online` of another OSS, an `rm`
            // or an open's recovery too, not only what computes the window's parity (review
            // s19r R19-2: the END of a loss a rebuild found said "when the window's parity
            // was computed").
            "these bytes of a delayed window had their only copy in the cache zone, without parity yet, and it could neither be read nor rebuilt (a corrupted block: bit rot) when the store moved the window's cached bytes home with parity (a settle: at the window's END, its timeout or the bound on unprotected bytes, or in a `flush`, a `rebuild` or `online` of any OSS, an `rm`, or an open's recovery)"
        } else if lost.iter().all(|l| unreadable(&l.token)) {
            "these acknowledged bytes sat in the cache zone and could neither be read nor rebuilt (corruption or failures beyond the code's tolerance)"
        } else if lost
            .iter()
            .all(|l| unreadable(&l.token) || l.token == super::stale_cache::STALE_CACHE)
        {
            "these acknowledged bytes sat in the cache zone and could neither be read nor rebuilt, or their cache stripe's running parity disagrees with its data and the stale column could not be located"
        } else if lost.iter().any(|l| unreadable(&l.token)) {
            "these bytes had their only copy in the cache zone of a failed OSS inside an open delayed window, or could neither be read nor rebuilt from the cache zone (beyond the code's tolerance)"
        } else if lost.iter().all(|l| {
            // The witnesses' tokens (reviews r45a LOW-1, r45c LOW): no window is involved.
            [
                super::stale_cache::WITNESS_STALE,
                super::stale_cache::WITNESS_DECODE_LOST,
                super::home_witness::HOME_WITNESS_STALE,
            ]
            .contains(&l.token.as_str())
        }) {
            "an OSS lost a write: these acknowledged bytes' 4 KiB block holds other bytes under a valid checksum (their crc on record, the last acknowledged write's, differs), and no rebuild from parity matched them"
        } else {
            "an OSS failed while a delayed window was open, and these bytes had their only copy in its cache zone, without parity"
        };
        StoreError::DataLost(format!(
            "{what}: {why}: {}. They are lost; every other byte reads. Write them again (or remove the file): `exaraid store status` lists lost ranges",
            list.join(", ")
        ))
    }

    /// END_DELAYED: returns when the parity of every stripe the window touched is durable.
    /// If an OSS failed inside the window and bytes of it had their only copy there, the
    /// window still ends (the surviving bytes get their parity, the lost ones stay recorded
    /// as lost) and END returns `DataLost` naming every lost range; a second END then says
    /// the token is unknown.
    pub fn delayed_end(&self, token: &str) -> Result<(), StoreError> {
        self.check_usable()?;
        self.record_unavailable_window_osses()?;
        self.absorb_losses()?;
        self.settle_before_end_over_unreadable_window_bytes(token)?;
        let _shared = self.gate.read();
        let (plans, w_window) = {
            let mut core = self.core.lock();
            let Some(w) = core.state.windows.get(token).cloned() else {
                return Err(StoreError::BadInput(format!(
                    "no open delayed window has token '{}'; `exaraid store status` lists the open windows",
                    shown_token(token)
                )));
            };
            let now_ns = Self::now_ns(&core);
            let plans = match core
                .strategy
                .on_hint(&Hint::EndDelayed { window: w.window }, now_ns)
            {
                Ok(plans) => {
                    self.journal_after_hint(
                        &mut core,
                        Rec::Input(Input::EndDelayed {
                            window: w.window,
                            now_ns,
                            parity_crcs_synced: true,
                        }),
                        false,
                    )?;
                    self.admit(plans)
                }
                // The planner closed the window already (a timeout, or an END whose
                // `WindowEnd` record a crash cut, journaled by an older exaraid): the close
                // computed its parity, END has nothing left to do but forget the token. Not
                // journaled as an input: the planner refused it, and replay treats a refused
                // input as a journal that does not match.
                Err(PlanError::WindowTimedOut { .. }) | Err(PlanError::UnknownWindow { .. }) => {
                    Vec::new()
                }
                Err(e) => return Err(plan_err(e)),
            };
            // The window leaves the state in the same breath as its END input, before the
            // parity plans run: a crash after both records leaves the window gone and its
            // plans undurable, which recovery settles (everything home with parity); a crash
            // between them leaves it listed, recovery settles its bytes and, the planner having
            // closed it, starts it and ends it again at once (s15g: a settle's reset keeps a
            // closed window closed); `status` lists it until a second END takes it off the
            // state (merge review s15m M15-4). Journaled after the plans, a crash between
            // left a window listed forever that END said was never started (review d, D1).
            self.journal_after_hint(
                &mut core,
                Rec::WindowEnd {
                    token: token.to_string(),
                },
                true,
            )?;
            let ending = core.ending_windows.insert(w.window, token.to_string());
            assert!(ending.is_none(), "one END per window");
            (plans, w.window)
        };
        let ran = self.run_plans(plans, None);
        let mut core = self.core.lock();
        core.ending_windows.remove(&w_window);
        // Every lost range of the window, also those an OSS failed during END took (they
        // are recorded under the token through `ending_windows`): END never reports success
        // for bytes it could not keep (review E11).
        let lost: Vec<&LostRange> = core
            .state
            .lost
            .iter()
            .filter(|l| super::exec::lost_by_window(&l.token, token))
            .collect();
        if !lost.is_empty() {
            let what = match &ran {
                Ok(()) => {
                    format!("delayed window {token} ended, but not all of its bytes are protected")
                }
                Err(e) => format!(
                    "delayed window {token} failed while computing its parity ({e}), and not all of its bytes are protected"
                ),
            };
            return Err(self.lost_error(&core, &lost, &what));
        }
        ran
    }

    /// A delayed window as a guard: `end()` returns when the parity is durable. Dropping the
    /// guard without `end()` leaves the window open (its timeout will protect the data).
    pub fn delayed_window(&self, name: &str) -> Result<DelayedWindow<'_>, StoreError> {
        Ok(DelayedWindow {
            store: self,
            token: self.delayed_start(name)?,
        })
    }
}

/// An open delayed window (see [`Store::delayed_window`]).
pub struct DelayedWindow<'a> {
    store: &'a Store,
    token: String,
}

impl DelayedWindow<'_> {
    pub fn token(&self) -> &str {
        &self.token
    }
    /// END_DELAYED: returns when the parity of the window's stripes is durable.
    pub fn end(self) -> Result<(), StoreError> {
        self.store.delayed_end(&self.token)
    }
}

/// A token as a refusal shows it: the caller's garbled token may hold control characters
/// (an escape sequence would reach the terminal) or be of any length (review s9r R9-4), so
/// escaped and cut to its first 64 characters, as a refused file name is (`check_name`).
fn shown_token(token: &str) -> String {
    const SHOWN_CHARS_MAX: usize = 64;
    let shown: String = token.chars().take(SHOWN_CHARS_MAX).collect();
    let more = if shown.len() < token.len() {
        format!("... ({} bytes)", token.len())
    } else {
        String::new()
    };
    format!("{}{more}", shown.escape_debug())
}

/// The `WindowStart` records, marked `timed_out`, of every window `state` lists that
/// `strategy` (the planner of `state.inputs`) started in this epoch and has closed, not yet
/// on record so: what a settle journals before its planner reset (see
/// `Store::record_closed_windows`), and what an open that rolls a settle's end forward
/// (`cut_deletions`) journals before the `PlannerReset` it infers. Bounded by the windows
/// listed.
pub(super) fn closed_window_records(state: &State, strategy: &dyn Strategy) -> Vec<Rec> {
    let started: BTreeSet<u64> = state
        .inputs
        .iter()
        .filter_map(|i| match *i {
            Input::StartDelayed { window, .. } => Some(window),
            _ => None,
        })
        .collect();
    state
        .windows
        .iter()
        .filter(|(_, w)| !w.timed_out && started.contains(&w.window))
        .filter(|(_, w)| !strategy.window_open(w.window))
        .map(|(token, w)| Rec::WindowStart {
            token: token.clone(),
            window: Window {
                timed_out: true,
                ..w.clone()
            },
        })
        .collect()
}
