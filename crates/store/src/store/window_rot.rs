//! A delayed window's only copy (the cache zone, no parity before END) found unreadable by
//! a long-lived process: a due timeout, the window's END, the bound on unprotected bytes
//! (session 19 leftover of s19b, R18-3).
//!
//! A timeout's or END's parity plan that meets such a block fails half way: nothing is
//! written, but the plan was admitted, so the store is poisoned and refuses every change
//! until a reopen's recovery records the bytes lost. s19b made the CLI's open reopen once;
//! an API user's long-lived `Store` (`tick`, a write's timers, `serve_background`, END) had
//! no way on. So before a due timeout fires (or END plans), the window bytes it would read
//! are read once; where one does not verify, the store settles first, as the bound on
//! unprotected bytes does: every readable cached byte goes home with parity, the unreadable
//! ones go on record lost under their window's token (reads of them fail naming them, the
//! window's END fails naming them), the planner forgets them, and the timeout or END then
//! has nothing unreadable left to read. The settle, not this check, decides what is lost
//! (it reads under the exclusive gate): a block torn by a window write in flight during the
//! check costs one settle, never a false loss. A rot that lands between the check and the
//! plan's read still fails that call as before (the error says to reopen).

use super::*;

impl Store {
    /// Before a due window timeout fires: settle first when a window byte it would read has
    /// an only copy that does not verify (see the module docs). Only when a timeout is due
    /// (one read of the open windows' cached bytes per timeout, bounded by the bound on
    /// unprotected bytes); call without the core lock or the gate held.
    pub(super) fn settle_before_timeout_over_unreadable_window_bytes(
        &self,
    ) -> Result<(), StoreError> {
        if self.kind != StrategyKind::Delayed {
            return Ok(());
        }
        let extents = {
            let core = self.core.lock();
            let now_ns = Self::now_ns(&core);
            let due = core
                .strategy
                .next_deadline_ns()
                .is_some_and(|d| d <= now_ns);
            // Not while window bytes sit on an OSS unavailable now and not recorded failed:
            // the timeout waits for it (`tick_locked`), and a read per write meanwhile
            // would be for nothing.
            let waits =
                core.strategy.unprotected().iter().any(|u| {
                    self.oss_failed(&core, u.oss) && !core.state.failed_oss.contains(&u.oss)
                });
            if !due || waits {
                return Ok(());
            }
            self.window_cache_extents(&core, None)?
        };
        self.settle_if_any_unreadable(&extents, "a delayed window's due timeout")
    }

    /// Before END of window `token` plans its parity: settle first when one of its bytes has
    /// an only copy that does not verify, as before a timeout. Why: END's parity plan failed
    /// half way on it as a timeout's did (the store refused changes until reopened, and the
    /// loss went on record without the window's token). Cost: one more read of the window's
    /// cached bytes per END (just written: mostly the page cache), beside the fsyncs END
    /// waits for.
    pub(super) fn settle_before_end_over_unreadable_window_bytes(
        &self,
        token: &str,
    ) -> Result<(), StoreError> {
        let extents = {
            let core = self.core.lock();
            let Some(w) = core.state.windows.get(token) else {
                return Ok(()); // END refuses the token itself
            };
            if !core.strategy.window_open(w.window) {
                return Ok(()); // closed by its timeout: its parity is planned
            }
            self.window_cache_extents(&core, Some(w.window))?
        };
        self.settle_if_any_unreadable(&extents, &format!("END of delayed window {token}"))
    }

    /// Settle (`by` names who asks) when a block of `extents` does not verify on its OSS.
    fn settle_if_any_unreadable(
        &self,
        extents: &[(u64, exaraid_plan::Extent)],
        by: &str,
    ) -> Result<(), StoreError> {
        let e = self.sb.element_bytes as u64;
        let unreadable = extents.iter().any(|(file, x)| {
            let mut buf = vec![0u8; x.len_bytes as usize];
            let mut done = 0usize;
            while done < buf.len() {
                let a = x.addr_bytes + done as u64;
                let off = (a % e) as usize;
                let n = (buf.len() - done).min(e as usize - off);
                let key = self.key(PlanZone::Cache, *file, a);
                match self.backends[x.oss].read(key, off, &mut buf[done..done + n]) {
                    Err(err) if err.is_corrupt() || err.is_missing() => return true,
                    // An OSS not answering: the timers wait for it or for its failure on
                    // record (`tick_locked`), END records it (`record_unavailable_window_osses`).
                    _ => {}
                }
                done += n;
            }
            false
        });
        if !unreadable {
            return Ok(());
        }
        self.settle_telling_cache_losses(by)
    }

    /// The cache extents of window bytes without parity (of window `only`, or of every
    /// window) on an OSS that answers, with their file (those of a failed OSS are the
    /// failure's: `planner_lost`).
    fn window_cache_extents(
        &self,
        core: &Core,
        only: Option<u64>,
    ) -> Result<Vec<(u64, exaraid_plan::Extent)>, StoreError> {
        let mut extents = Vec::new();
        for u in self.unprotected_now(core) {
            if self.oss_failed(core, u.oss) || only.is_some_and(|w| w != u.window) {
                continue;
            }
            let found = core
                .strategy
                .lookup(u.file, u.file_offset_bytes, u.len_bytes)
                .map_err(plan_err)?;
            extents.extend(
                found
                    .into_iter()
                    .filter(|x| x.zone == PlanZone::Cache && !self.oss_failed(core, x.oss))
                    .map(|x| (u.file, x)),
            );
        }
        Ok(extents)
    }

    /// `settle_all` for the store's own upkeep (`by` names it), with a warning (told at
    /// close: `close_with_warnings`, the CLI's stderr) naming every cached range it recorded
    /// lost: the command that ran it goes on (its own bytes are acknowledged), so the
    /// warning is where the loss is told. Why (s19b's bound case): a write of another file
    /// that settled a window's rotten only copy exited 0 saying nothing.
    pub(super) fn settle_telling_cache_losses(&self, by: &str) -> Result<(), StoreError> {
        let mut settle_lost = Vec::new();
        self.settle_all_recording(&mut settle_lost)?;
        self.warn_cache_losses(&settle_lost, by);
        Ok(())
    }

    /// Push a warning naming every cached range a settle by `by` recorded lost
    /// (`settle_lost`: unreadable, or a stale WCL element) still on record.
    pub(super) fn warn_cache_losses(&self, settle_lost: &[LostRange], by: &str) {
        let Some(told) = self.cache_losses_told(settle_lost, by) else {
            return;
        };
        self.deferred_warnings.lock().push(format!(
            "{told}. Every other byte has its parity and this command went on. Write the lost bytes again"
        ));
    }

    /// `e`, the error of a command that failed after a settle by `by` recorded
    /// `settle_lost`, naming the cached bytes among them (a failed command tells no
    /// warnings at close).
    pub(super) fn with_cache_losses(
        &self,
        e: StoreError,
        settle_lost: &[LostRange],
        by: &str,
    ) -> StoreError {
        match self.cache_losses_told(settle_lost, by) {
            Some(told) => e.with_context(&format!(
                "before it failed, {told}; write the lost bytes again"
            )),
            None => e,
        }
    }

    /// What `settle_lost` (recorded by a settle by `by`) holds of cached ranges lost
    /// (unreadable, or a stale WCL element) still on record, said; `None` when nothing.
    fn cache_losses_told(&self, settle_lost: &[LostRange], by: &str) -> Option<String> {
        let core = self.core.lock();
        let named: Vec<String> = still_on_record(&core, settle_lost.to_vec())
            .iter()
            .filter(|l| exec::is_unreadable_cache(&l.token) || l.token == stale_cache::STALE_CACHE)
            .map(|l| describe_cache_loss(&core, l))
            .collect();
        if named.is_empty() {
            return None;
        }
        Some(format!(
            "{by} moved the cached bytes home with parity and found these acknowledged bytes in the cache zone unreadable (bit rot; no parity could rebuild them): {}. They are recorded lost: reads of them fail naming them, `exaraid store status` lists them, and a delayed window's `delayed end` fails naming its own",
            named_at_most(&named, WARNING_RANGES_NAMED_MAX)
        ))
    }
}

/// The ranges of `recorded` (by a settle) still on record lost, once each: a later record
/// (a file's `Remove`, a range found again) may have replaced or dropped some.
pub(super) fn still_on_record(core: &Core, mut recorded: Vec<LostRange>) -> Vec<LostRange> {
    recorded.retain(|l| core.state.lost.contains(l));
    let mut seen = BTreeSet::new();
    recorded.retain(|l| seen.insert((l.file, l.offset_bytes, l.len_bytes)));
    recorded
}

/// A cached range on record lost, as "file 'NAME' bytes A..Z (OSS I)", with ", delayed
/// window T, no parity yet" for a delayed window's only copy (its END names it too). One
/// wording for every command that tells such a loss (`flush`, the store's own settles).
pub(super) fn describe_cache_loss(core: &Core, l: &LostRange) -> String {
    let name = core
        .state
        .file_by_id(l.file)
        .map(|(n, _)| read::describe_file_name(n))
        .unwrap_or_else(|| format!("removed file #{}", l.file));
    let window = l
        .token
        .strip_prefix(exec::WINDOW_CACHE_UNREADABLE)
        .map(|t| format!(", delayed window {t}, no parity yet"))
        .unwrap_or_default();
    format!(
        "{name} bytes {}..{} (OSS {}{window})",
        l.offset_bytes,
        l.end_bytes(),
        l.oss
    )
}
