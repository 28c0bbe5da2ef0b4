//! Executing IoPlans: admission, stripe locks, the steps of a plan on the backends.

use super::*;

use std::time::Instant;

use crate::backend::BackendError;
use crate::state::Unplanned;

/// Adds the time since its start to a probe counter when dropped (also on early return).
struct DeferAdd<'a>(&'a std::sync::atomic::AtomicU64, Instant);

impl Drop for DeferAdd<'_> {
    fn drop(&mut self) {
        crate::bench::probe_add(self.0, crate::bench::probe_ns_since(self.1));
    }
}

/// The window token of a lost range whose cache copy could be neither read nor rebuilt
/// (beyond the code's tolerance), recorded by a settle.
pub(super) const UNREADABLE_CACHE: &str =
    "none: its cache copy is unreadable beyond the code's tolerance";

/// The start of the token of a lost range of a delayed window's bytes whose only copy (the
/// cache zone, no parity yet) a settle could neither read nor rebuild; the window's token
/// follows. Why both: the cause is not an OSS failure (status and reads say what it is), and
/// the window's END must name the loss whoever found it: the window's own END, its timeout,
/// the bound on unprotected bytes or a flush (review s18r R18-3: recorded as
/// `UNREADABLE_CACHE`, the loss was never told to the END, which exited 0).
/// On record, it makes the state header version 8 (`LostRange::needs_session19_reader`).
pub(super) const WINDOW_CACHE_UNREADABLE: &str = crate::state::WINDOW_CACHE_UNREADABLE_TOKEN;

/// The lost-range token of window `token`'s bytes whose only copy is unreadable.
pub(super) fn window_cache_unreadable(token: &str) -> String {
    format!("{WINDOW_CACHE_UNREADABLE}{token}")
}

/// Whether a lost range's token says its cached copy could neither be read nor rebuilt
/// (in or out of a delayed window).
pub(super) fn is_unreadable_cache(token: &str) -> bool {
    token == UNREADABLE_CACHE || token.starts_with(WINDOW_CACHE_UNREADABLE)
}

/// Whether a lost range's token names window `window` as the one whose bytes it lost (an
/// OSS failure's loss carries the bare token; an unreadable copy's, the token after its
/// cause).
pub(super) fn lost_by_window(lost_token: &str, window: &str) -> bool {
    lost_token == window || lost_token.strip_prefix(WINDOW_CACHE_UNREADABLE) == Some(window)
}

/// Tries of one backend read or write that fails as unavailable on an OSS not marked failed
/// (see `Store::read_retrying`, `Store::write_step`): a transient error passes, a dead OSS
/// costs little.
pub(super) const IO_TRIES_MAX: u32 = 3;
/// Most 4 KiB parity blocks one `Rec::EndParityCrcs` names (4 GiB of parity per write wave
/// of a window's parity plan; about 11 MiB of record, under `journal::RECORD_BYTES_MAX`).
const END_PARITY_CRCS_MAX: usize = 1 << 20;

/// Each step run, with the bytes it read (read steps) or `None` (write steps).
type StepOutputs = Vec<(usize, Option<Vec<u8>>)>;

/// Where the planner put each column of one cache stripe: `col -> (oss, chunk address)`.
pub(super) type Chunks = BTreeMap<usize, (usize, u64)>;

/// A rebuilt cache element and the element ranges `[a, z)` that hold live bytes of its
/// cache stripe (the rest of the element is nothing: zeros).
pub(super) type RebuiltElement = (Vec<u8>, Vec<(u64, u64)>);

/// A client read's WCL cache-stripe decode that failed (s45a): the error, and, where the
/// decode got as far as reading the stripe's columns, which columns it erased and why. The
/// caller weighs by it what the failure means for the record: whether an OSS only away
/// could bring the bytes back (`away_column_could_help`: refuse, record nothing), or the
/// loss stands whatever is mounted (`witness_decode_lost_for_good`: record it).
pub(super) struct CacheRebuildFailure {
    pub(super) err: StoreError,
    /// Boxed: the error travels through every `?` of a decode (clippy's large `Err`).
    pub(super) columns: Option<Box<DecodeColumns>>,
}

/// The columns of a failed cache-stripe decode (see `CacheRebuildFailure`).
pub(super) struct DecodeColumns {
    /// Where each column of the cache stripe holding a chunk is (`col -> (oss, chunk)`).
    pub(super) chunks: Chunks,
    /// Every column the decode erased: the wanted one, the unreadable ones, and
    /// `witness_erased`.
    pub(super) erased: Vec<usize>,
    /// The columns erased because their bytes fail their witness piece (a lost write).
    pub(super) witness_erased: Vec<usize>,
    /// Of each column in `witness_erased`, the element blocks (4 KiB, by index) whose
    /// pieces fail: the decode erases the whole column, but its other blocks hold their
    /// acknowledged bytes, so a loss beside it stands for good only in these blocks.
    pub(super) witness_stale_blocks: BTreeMap<usize, BTreeSet<u64>>,
    /// The decode failed for want of columns (more erased than the code tolerates), not
    /// on a check after a decode (a running parity that disagrees with its data).
    pub(super) past_tolerance: bool,
}

impl From<StoreError> for CacheRebuildFailure {
    fn from(err: StoreError) -> Self {
        CacheRebuildFailure { err, columns: None }
    }
}

impl From<CacheRebuildFailure> for StoreError {
    fn from(f: CacheRebuildFailure) -> Self {
        f.err
    }
}

/// The WCL cache stripes of every home stripe, each decoded only from its own chunks.
#[derive(Default)]
pub(super) struct CacheStripes {
    pub(super) by_stripe: HashMap<(u64, u64), Generations>,
    /// The home stripe of each destage plan, until the planner hears of its completion.
    pub(super) destage_plans: HashMap<PlanId, (u64, u64)>,
    /// Per admitted WCL write plan not yet executed: the cache bytes it adds to its cache
    /// stripes. Why: the planner's lookup (and a complete cache stripe) names them as
    /// written from planning on, but until the plan runs the chunk holds stale bytes there
    /// (a reused chunk) and the running parity does not cover them yet. A rebuild meanwhile
    /// (the plan's own read of old bytes on a failed OSS, or a read queued before a later
    /// write) must count them as nothing, else it decodes stale bytes into the element.
    pub(super) unexecuted: HashMap<PlanId, Vec<NewCacheBytes>>,
}

/// Bytes `[a, z)` of the cache element at `pos` of home stripe `key` that a write plan
/// writes into the cache chunk `chunk` (`(oss, chunk address)`) without them being there
/// before it (no read of their old value).
#[derive(Clone, Copy, Debug)]
pub(super) struct NewCacheBytes {
    pub(super) key: (u64, u64),
    pub(super) pos: Pos,
    pub(super) chunk: (usize, u64),
    pub(super) a: u64,
    pub(super) z: u64,
}

/// A client write whose plans `run_plans_refusable` runs (or whose timers' plans it runs
/// first): what a `Rec::WroteNothing` needs of it.
pub(super) struct Refusal {
    /// The write's plans that never run if this call fails (its own, while its timers'
    /// plans run first; none while its own run: they are the call's queue).
    pub(super) then_dropped: Vec<PlanId>,
    pub(super) file: u64,
    pub(super) offset_bytes: u64,
    pub(super) len_bytes: u64,
    /// The file's size before the write's `Input::Write`, and that input's index in
    /// `State::inputs` (both taken under the core lock that journaled it).
    pub(super) size_before_bytes: u64,
    pub(super) input_index: usize,
}

impl Refusal {
    /// `(file, size)`: the file's size without this write, when that is smaller than its
    /// size now: the size before it, or the end of a later write's input (another writer's,
    /// acknowledged or in flight: its own refusal restores its own part).
    pub(super) fn size_without(&self, state: &crate::state::State) -> Option<(u64, u64)> {
        let (_, meta) = state.file_by_id(self.file)?;
        let own = state.inputs.get(self.input_index)?;
        let mine = matches!(*own, Input::Write { file, offset_bytes, len_bytes, .. }
            if (file, offset_bytes, len_bytes) == (self.file, self.offset_bytes, self.len_bytes));
        if !mine {
            return None; // not where it was journaled (a planner restart): keep the size
        }
        let later_end_bytes = state.inputs[self.input_index + 1..]
            .iter()
            .filter_map(|i| match *i {
                Input::Write {
                    file,
                    offset_bytes,
                    len_bytes,
                    ..
                } if file == self.file => Some(offset_bytes + len_bytes),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let size_bytes = self.size_before_bytes.max(later_end_bytes);
        (size_bytes < meta.size_bytes).then_some((self.file, size_bytes))
    }
}

/// Where one read of an element range lies (`Store::read_range`): the OSS and zone that
/// hold it, the file whose bytes they are, the address there, and the element range itself
/// (what a block the OSS cannot give is rebuilt as). One value: every caller takes these
/// from one extent or one plan step.
#[derive(Clone, Copy)]
pub(super) struct ElementRead<'a> {
    pub(super) oss: usize,
    pub(super) zone: PlanZone,
    pub(super) file: u64,
    pub(super) addr_bytes: u64,
    pub(super) element: &'a exaraid_plan::ElementRange,
}

impl<'a> ElementRead<'a> {
    /// The bytes of extent `x` of file `file`.
    pub(super) fn of_extent(file: u64, x: &'a exaraid_plan::Extent) -> Self {
        ElementRead {
            oss: x.oss,
            zone: x.zone,
            file,
            addr_bytes: x.addr_bytes,
            element: &x.element,
        }
    }
}

/// Group commit of the journal (`Store::sync_journal_through`): one fsync at a time, each
/// covering every record appended before it started.
#[derive(Default)]
pub(super) struct GroupCommit {
    /// Every record up to this sequence number is durable.
    pub(super) synced_through_seq: u64,
    /// An fsync is running (its leader updates `synced_through_seq` when it returns).
    pub(super) syncing: bool,
    /// An fsync of the journal failed: what was appended since the last good one may not be
    /// on disk, and a retried fsync cannot tell (the kernel may have dropped the pages).
    /// Nothing waiting on it is acknowledged; the store must be reopened.
    pub(super) failed: Option<String>,
    /// Threads waiting in `Store::journal_fsync_turn` for the running fsync.
    pub(super) turn_waiters: usize,
}

/// One background plan's wait for room for its `Durable` record
/// (`Store::wait_for_room_on_worker`).
#[derive(Default)]
pub(super) struct RoomWait {
    /// The wait before the next try, doubled on each refusal.
    wait_ms: u64,
    /// The record was refused at least once.
    refused: bool,
}

impl RoomWait {
    /// The record went in: a refusal this plan met is over, told once.
    pub(super) fn told_end(&self, store: &Store) {
        if !self.refused {
            return;
        }
        let why = store.background_refused.lock().take().unwrap_or_default();
        store.tell_background_plans(format!(
            "the background worker's plans, refused for room after their writes ({why}), are on record again: nothing was lost"
        ));
    }
}

/// The cache stripes of one home stripe.
#[derive(Default)]
pub(super) struct Generations {
    /// The open cache stripe (columns written so far).
    pub(super) open: Chunks,
    /// Complete cache stripes being moved home, oldest first, by destage plan.
    pub(super) destaging: Vec<(PlanId, Chunks)>,
}

/// Wakes the plans waiting for `after_plans` (`run_plans_refusable`) when the call it lives
/// in leaves the store poisoned: a plan that failed half way, and every plan queued behind it
/// in that call, will never be done. Under the lock the waiters check `poisoned` under, so
/// none misses it. Every error return of `run_plans_refusable` that drops plans unrun
/// poisons the store first.
struct WakeAfterPlansWaiters<'a>(&'a Store);

impl Drop for WakeAfterPlansWaiters<'_> {
    fn drop(&mut self) {
        if self.0.poisoned.load(Ordering::SeqCst) {
            let _done = self.0.done.lock();
            self.0.done_cv.notify_all();
        }
    }
}

impl Store {
    /// Hold one unit of the emulated device of `oss` for the service time of a request.
    /// The device serves its requests in arrival order on its own clock: a request starts on
    /// the unit that frees first, when it frees (or on arrival), and the caller sleeps until
    /// its service ends. Why not hand the unit from thread to thread (as until session 13):
    /// then the unit stayed idle until the thread that held it was scheduled again to pass
    /// it on, and the next one to take it, so the host's scheduling latency was charged to
    /// the device, most where many threads share few cores (task s13c: at load 16-20 on 2
    /// cores full-stripe streaming ran at 0.73-0.78 of its device bound, 0.79-0.90 with
    /// this). A device with a queue serves the next request without the host.
    pub(super) fn emulate_device(&self, oss: usize, op: Op, bytes: u64) {
        let Some(model) = &self.emulate else { return };
        let service_ns = model.service_ns(op, bytes);
        let arrived = Instant::now();
        let done = {
            let mut free_at = self.device_units[oss].lock();
            let unit = (0..free_at.len())
                .min_by_key(|&u| free_at[u])
                .expect("an emulated device has a unit");
            let start = free_at[unit].max(arrived);
            free_at[unit] = start + std::time::Duration::from_nanos(service_ns);
            free_at[unit]
        };
        let probe = &crate::bench::PROBE;
        let queued = done.saturating_duration_since(arrived).as_nanos() as u64;
        crate::bench::probe_add(&probe.device_queue_ns, queued.saturating_sub(service_ns));
        if let Some(busy) = probe.device_busy_ns.get(oss) {
            crate::bench::probe_add(busy, service_ns);
        }
        std::thread::sleep(done.saturating_duration_since(Instant::now()));
    }

    /// Tell the planner of completed plans, unless a read is in flight (see `Core`): each
    /// `Complete` record first, then the planner, so that the planner never knows of a
    /// completion the journal lacks. A record a full metadata disk refuses (`NoSpace`,
    /// nothing appended) leaves that plan and the ones after it held back, in order, for the
    /// next call, as a read in flight does; the call is not failed for it: the plans are
    /// durable, and recovery takes a durable plan without its `Complete` as complete. Why
    /// (session 20 lead of s20e): the planner heard the completion before the record was
    /// refused, and the completions after it were dropped unheard. A WCL destage never heard
    /// kept its cache stripe as the newest copy of its home stripe, so once a later write's
    /// destage moved newer bytes home, reads served the old cached bytes with success; and a
    /// planner rebuilt from the journal's inputs (a refused write) lost the completion heard.
    /// Any other refusal poisons the store: its caller returns it after plans went durable.
    pub(super) fn complete_deferred(&self, core: &mut Core) -> Result<Vec<IoPlan>, StoreError> {
        let mut more = Vec::new();
        if core.reads_in_flight > 0 {
            return Ok(more);
        }
        let mut completed = std::mem::take(&mut core.deferred_completions);
        let mut refused = None;
        for (i, &id) in completed.iter().enumerate() {
            if let Err(e) = self.journal(core, Rec::Input(Input::Complete { plan: id }), false) {
                core.deferred_completions = completed.split_off(i);
                refused = Some(e);
                break;
            }
            more.extend(core.strategy.on_complete(id).map_err(plan_err)?);
        }
        core.window_parity_unheard
            .retain(|plan, _| !completed.contains(plan));
        if !core.moved_home.is_empty() {
            // The planner hears of these now: its lookup stops naming their cache ranges,
            // and it may give them to another window.
            core.moved_home
                .retain(|_, (_, plan)| !completed.contains(plan));
        }
        self.forget_cache_stripes(&completed);
        match refused {
            Some(e) if !matches!(e, StoreError::NoSpace(_)) => {
                self.poisoned.store(true, Ordering::SeqCst);
                Err(e)
            }
            _ => Ok(more),
        }
    }

    /// The move home `plan` executed: until the planner hears of its completion (after its
    /// durable record, or later while reads are in flight: `complete_deferred`), a read or
    /// scrub must know its cache bytes are home now (a write after the move may go home over
    /// them, and the cache copy may rot once the move read it). Call under the move's stripe
    /// locks. Why there and not at the durable record: the locks are let go before the
    /// syncs and the record, and a scrub queued behind the move looked the stripe up in that
    /// gap and called the cache copy, rotten after the move read it, a corrupt live element
    /// of the file, unrepairable (CI, session 27's stop: 5 of 200 runs of
    /// `window_cache_rot_after_end_parity`).
    fn note_moved_home(&self, core: &mut Core, plan: &IoPlan) {
        for step in plan.steps.iter() {
            if step.op == Op::Read && step.zone == PlanZone::Cache {
                let end = step.addr_bytes + step.len_bytes;
                let old = core
                    .moved_home
                    .insert((step.oss, step.addr_bytes), (end, plan.id));
                assert!(old.is_none(), "a cache range is moved home once");
            }
        }
    }

    /// A planner reset (a settle, a quiet close) starts plan ids again: completions held
    /// back (`complete_deferred`) name plans of the planner it drops, and the new planner
    /// must never hear them.
    pub(super) fn forget_deferred_completions(core: &mut Core) {
        core.deferred_completions.clear();
        core.window_parity_unheard.clear();
        core.moved_home.clear();
    }

    /// Give plans their places in the stripe queues. Call with the core lock held, right
    /// after planning, so the queues follow planning order.
    pub(super) fn admit(&self, plans: Vec<IoPlan>) -> Vec<Admitted> {
        for plan in &plans {
            self.learn_cache_chunks(plan);
            self.learn_unexecuted(plan);
        }
        plans
            .into_iter()
            .map(|plan| Admitted {
                ticket: self.locks.enqueue(plan_stripes(&plan)),
                plan,
            })
            .collect()
    }

    /// Record where a plan's cache steps put each column of their cache stripe.
    pub(super) fn learn_cache_chunks(&self, plan: &IoPlan) {
        let e = self.sb.element_bytes as u64;
        // WCL: the chunks this plan names, per home stripe.
        let track = self.kind == StrategyKind::Wcl;
        let mut mine: BTreeMap<(u64, u64), Chunks> = BTreeMap::new();
        {
            let mut map = self.cache_chunks.lock();
            for step in plan.steps.iter().filter(|s| s.zone == PlanZone::Cache) {
                let mut at = 0u64;
                for piece in &step.pieces {
                    let el = &piece.element;
                    let base = step.addr_bytes + at - el.pos.row as u64 * e - el.offset_bytes;
                    map.entry((step.file, el.stripe))
                        .or_default()
                        .insert(el.pos.col, (step.oss, base));
                    if track {
                        mine.entry((step.file, el.stripe))
                            .or_default()
                            .insert(el.pos.col, (step.oss, base));
                    }
                    at += el.len_bytes;
                }
            }
        }
        if mine.is_empty() {
            return;
        }
        // WCL: one home stripe may have two cache stripes at once (an open one and older
        // ones being destaged); each is decoded only from its own chunks.
        let mut stripes = self.cache_stripes.lock();
        for (key, chunks) in mine {
            // A chunk belongs to one live cache stripe: an older one sharing a chunk with
            // this plan's is gone (its destage completed), never to be decoded from again.
            let g = stripes.by_stripe.entry(key).or_default();
            let mut gone: Vec<PlanId> = Vec::new();
            g.destaging.retain(|(p, c)| {
                let shares = c.iter().any(|(col, v)| chunks.get(col) == Some(v));
                if shares {
                    gone.push(*p);
                }
                !shares
            });
            for p in gone {
                stripes.destage_plans.remove(&p);
            }
            if let exaraid_plan::PlanCause::Destage { .. } = plan.cause {
                // The destage reads every column of the complete cache stripe: the open
                // one, which a later write will not extend (it opens a new one).
                let g = stripes.by_stripe.entry(key).or_default();
                if g.open.iter().all(|(c, v)| chunks.get(c) == Some(v)) {
                    g.open.clear();
                }
                g.destaging.push((plan.id, chunks));
                stripes.destage_plans.insert(plan.id, key);
            } else {
                let g = stripes.by_stripe.entry(key).or_default();
                let same = chunks
                    .iter()
                    .all(|(c, v)| !matches!(g.open.get(c), Some(o) if o != v));
                if !same {
                    g.open.clear(); // (only after a planner restart) a new cache stripe
                }
                g.open.extend(chunks);
            }
        }
    }

    /// WCL: record the cache bytes a write plan adds to its cache stripes, until it has run
    /// (see `CacheStripes::unexecuted`): what it writes into the cache zone as data, less
    /// what it reads there first (overwritten bytes, there before it).
    fn learn_unexecuted(&self, plan: &IoPlan) {
        if self.kind != StrategyKind::Wcl
            || !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
        {
            return;
        }
        let e = self.sb.element_bytes as u64;
        // Element ranges `[a, z)` per (home stripe, element position), written per chunk.
        type Slot = ((u64, u64), Pos);
        type Ranges = Vec<(u64, u64)>;
        let mut written: BTreeMap<(Slot, (usize, u64)), Ranges> = BTreeMap::new();
        let mut read: BTreeMap<Slot, Ranges> = BTreeMap::new();
        let cache_steps = plan.steps.iter().filter(|s| s.zone == PlanZone::Cache);
        for step in cache_steps {
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                at += el.len_bytes;
                if !matches!(el.cell, Cell::Data(_)) {
                    continue;
                }
                let base =
                    step.addr_bytes + at - el.len_bytes - el.pos.row as u64 * e - el.offset_bytes;
                let key = (step.file, el.stripe);
                let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
                assert!(a < z && z <= e, "a cache piece within one element");
                match step.op {
                    Op::Write => crate::state::add_range(
                        written
                            .entry(((key, el.pos), (step.oss, base)))
                            .or_default(),
                        a,
                        z,
                    ),
                    Op::Read => {
                        crate::state::add_range(read.entry((key, el.pos)).or_default(), a, z)
                    }
                }
            }
        }
        let mut new_bytes: Vec<NewCacheBytes> = Vec::new();
        for (((key, pos), chunk), mut ranges) in written {
            for &(a, z) in read.get(&(key, pos)).map(|r| r.as_slice()).unwrap_or(&[]) {
                crate::state::sub_range(&mut ranges, a, z);
            }
            new_bytes.extend(ranges.into_iter().map(|(a, z)| NewCacheBytes {
                key,
                pos,
                chunk,
                a,
                z,
            }));
        }
        if !new_bytes.is_empty() {
            let old = self
                .cache_stripes
                .lock()
                .unexecuted
                .insert(plan.id, new_bytes);
            assert!(old.is_none(), "a plan is admitted once");
        }
    }

    /// Plans replayed at open: learn their cache chunks; destages completed before are gone.
    pub(super) fn learn_replayed(&self, plans: &[IoPlan]) {
        for p in plans {
            self.learn_cache_chunks(p);
        }
        // Destages completed before are gone; files whose cached bytes the planner forgot
        // (`Input::Forget`, a failed put's staging content) had their chunks go to other
        // stripes, as they did live.
        let (mut completed, mut forgotten): (Vec<PlanId>, Vec<u64>) = (Vec::new(), Vec::new());
        for input in self.core.lock().state.inputs.iter() {
            match input {
                Input::Complete { plan } => completed.push(*plan),
                Input::Forget { file } => forgotten.push(*file),
                _ => {}
            }
        }
        self.forget_cache_stripes(&completed);
        for file in forgotten {
            self.forget_cache_chunks_of(file);
        }
    }

    /// The planner heard of these plans' completion: a destaged cache stripe's chunks may go
    /// to another stripe now.
    pub(super) fn forget_cache_stripes(&self, plans: &[PlanId]) {
        let mut stripes = self.cache_stripes.lock();
        for plan in plans {
            let Some(key) = stripes.destage_plans.remove(plan) else {
                continue;
            };
            if let Some(g) = stripes.by_stripe.get_mut(&key) {
                g.destaging.retain(|(p, _)| p != plan);
                if g.open.is_empty() && g.destaging.is_empty() {
                    stripes.by_stripe.remove(&key);
                }
            }
        }
    }

    /// The planner forgot `file`'s cached bytes (`Input::Forget`): so does the store, whose
    /// maps would otherwise name chunks the planner now gives to other stripes. Called with
    /// no plan of the file in flight (see `Strategy::forget_file`).
    pub(super) fn forget_cache_chunks_of(&self, file: u64) {
        self.cache_chunks.lock().retain(|&(f, _), _| f != file);
        let mut stripes = self.cache_stripes.lock();
        stripes.by_stripe.retain(|&(f, _), _| f != file);
        stripes.destage_plans.retain(|_, &mut (f, _)| f != file);
        assert!(
            stripes
                .unexecuted
                .values()
                .flatten()
                .all(|n| n.key.0 != file),
            "a plan of file #{file} not executed while its cached bytes are forgotten"
        );
    }

    /// Rebuild bytes of a cache-zone element from the rest of the newest cache stripe of
    /// its home stripe (scrub's repair), with the element ranges that hold live bytes of
    /// that cache stripe (the rest is nothing: zeros in the rebuilt element).
    pub(super) fn rebuild_cache_element(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
    ) -> Result<RebuiltElement, StoreError> {
        let newest = self
            .cache_chunks
            .lock()
            .get(&(file, stripe))
            .and_then(|c| c.get(&pos.col).copied());
        let Some((oss, base)) = newest else {
            return Err(StoreError::DataLost(format!(
                "{} stripe {stripe}: no cache stripe is known for column {}",
                self.file_name_in(core, file),
                pos.col
            )));
        };
        let e = self.sb.element_bytes as u64;
        if self.kind == StrategyKind::Wcl {
            return self.rebuild_from_cache_stripe(core, file, stripe, pos, oss, base, (0, e), &[]);
        }
        let whole = self.rebuild_cached(core, file, stripe, pos, oss, base, (0, e), false)?;
        Ok((whole, vec![(0, e)]))
    }

    /// The checksum blocks among `blocks` of the cache element at `key` on `oss` whose
    /// rebuilt bytes `whole` cannot be confirmed against what the element stores. Of each
    /// block only the `live` element ranges matter (the rest of a reused chunk holds stale
    /// bytes of an older cache stripe, which the rebuild gives as zeros). A block is
    /// confirmed when its live bytes on disk equal the rebuilt ones (the damage is
    /// elsewhere in the block), or when the block with its live bytes rebuilt (or rebuilt
    /// whole) matches its stored checksum. Why: a decode from a cache stripe whose parity
    /// disagrees with its data rebuilds wrong bytes and nothing else would notice. An
    /// element without readable checksums (missing, its OSS down) has nothing to confirm
    /// against: no block is reported.
    pub(super) fn unconfirmed_cache_blocks(
        &self,
        oss: usize,
        key: ElementKey,
        whole: &[u8],
        live: &[(u64, u64)],
        blocks: impl IntoIterator<Item = usize>,
    ) -> Vec<usize> {
        let block_bytes = CHECKSUM_BLOCK_BYTES;
        assert_eq!(whole.len(), self.sb.element_bytes);
        let b = &self.backends[oss];
        let mut on_disk = vec![0u8; whole.len()];
        if b.read_unverified(key, &mut on_disk).is_err() {
            return Vec::new();
        }
        let mut unconfirmed = Vec::new();
        for i in blocks {
            let (bs, be) = (i * block_bytes, (i + 1) * block_bytes);
            assert!(be <= whole.len(), "a checksum block within the element");
            let parts: Vec<(usize, usize)> = live
                .iter()
                .map(|&(a, z)| ((a as usize).max(bs), (z as usize).min(be)))
                .filter(|&(a, z)| a < z)
                .collect();
            if parts.iter().all(|&(a, z)| on_disk[a..z] == whole[a..z]) {
                continue;
            }
            let mut candidate = on_disk[bs..be].to_vec();
            for &(a, z) in &parts {
                candidate[a - bs..z - bs].copy_from_slice(&whole[a..z]);
            }
            // A checksum that is gone (no witness) confirms neither: the decode through a
            // cache stripe whose parity disagrees would be taken on its word (session 23).
            let confirms = |bytes: &[u8]| {
                b.checksum_witness(key, i, bytes)
                    .is_ok_and(ChecksumWitness::confirms_decode)
            };
            if confirms(&candidate) || confirms(&whole[bs..be]) {
                continue;
            }
            unconfirmed.push(i);
        }
        unconfirmed
    }

    /// Rebuild the element at `pos` of the cache chunk at `chunk_base` on `oss`, of which
    /// the caller needs element bytes `want` (`(offset, len)`): never from bytes of another
    /// cache stripe.
    /// - WCL: decoded from the elements of the same cache stripe (its running parity covers
    ///   every byte written into it; unwritten bytes count as zeros).
    /// - Delayed: bytes of an ended window whose END parity is durable are covered by the
    ///   home parity: decoded from the home stripe with the newest bytes of the other
    ///   columns (cache over home). Bytes without parity yet (an open window) are lost.
    ///
    /// `client_read` (s44c): on a client read of a WCL store (`read_range_repairing`), the
    /// columns whose bytes fail their cache-zone witness piece are erasures of the decode
    /// (`witness_failing_columns`), not inputs. Why a client read only: a destage, a
    /// settle and recovery check what they read themselves and record what they find
    /// (`check_destage_reads`, `witness_stale_blocks`); a stale column erased inside their
    /// decodes changed what they decide (s44c tried it: destages beside a failed OSS then
    /// left rows home that read DataLost with nothing on record, and a flush named a block
    /// outside the stale row LOST; five scenes tests).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rebuild_cached(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        oss: usize,
        chunk_base: u64,
        want: (u64, u64),
        client_read: bool,
    ) -> Result<Vec<u8>, CacheRebuildFailure> {
        match self.kind {
            StrategyKind::Wcl => {
                let at = (file, stripe, pos, oss, chunk_base);
                (self.rebuild_from_cache_stripe_with(core, at, want, &[], client_read))
                    .map(|(whole, _)| whole)
            }
            StrategyKind::Delayed => Ok(self.rebuild_from_home_parity(core, file, stripe, pos, oss, want)?),
            _ => Err(StoreError::DataLost(format!(
                "{} stripe {stripe}: these bytes sit only in the cache zone of OSS {oss}, without parity",
                self.file_name_in(core, file)
            ))
            .into()),
        }
    }

    /// WCL: `rebuild_cached` from the cache stripe of the chunk at `chunk_base` on `oss`.
    /// Only the checksum blocks around element bytes `want` (`(offset, len)`) are vouched
    /// for: the rest of the returned element is decoded but unchecked. `before_plan`:
    /// element bytes `(pos, offset, bytes)` of the cache stripe as they were before a write
    /// plan that is running now (its reads of running parity and of overwritten data), laid
    /// over the disk and read instead of it (see `decode_cache_of_failing_oss`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rebuild_from_cache_stripe(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        oss: usize,
        chunk_base: u64,
        want: (u64, u64),
        before_plan: &[(Pos, u64, &[u8])],
    ) -> Result<RebuiltElement, StoreError> {
        let at = (file, stripe, pos, oss, chunk_base);
        (self.rebuild_from_cache_stripe_with(core, at, want, before_plan, false))
            .map_err(StoreError::from)
    }

    /// `rebuild_from_cache_stripe`, with `witness`: columns whose bytes fail their witness
    /// piece erased (see `rebuild_cached`, `client_read`).
    fn rebuild_from_cache_stripe_with(
        &self,
        core: Option<&Core>,
        (file, stripe, pos, oss, chunk_base): (u64, u64, Pos, usize, u64),
        (want_offset_bytes, want_len_bytes): (u64, u64),
        before_plan: &[(Pos, u64, &[u8])],
        witness: bool,
    ) -> Result<RebuiltElement, CacheRebuildFailure> {
        let e = self.sb.element_bytes;
        assert!(want_len_bytes > 0 && want_offset_bytes + want_len_bytes <= e as u64);
        // The cache stripe the element belongs to, by its chunk's address: complete (being
        // destaged: every byte written) or the open one (written bytes only).
        let found = {
            let stripes = self.cache_stripes.lock();
            let unexecuted: Vec<NewCacheBytes> = stripes
                .unexecuted
                .values()
                .flatten()
                .filter(|n| n.key == (file, stripe))
                .copied()
                .collect();
            let g = stripes.by_stripe.get(&(file, stripe));
            let mine = |c: &Chunks| c.get(&pos.col) == Some(&(oss, chunk_base));
            match g.and_then(|g| g.destaging.iter().find(|(_, c)| mine(c))) {
                Some((_, c)) => Some((c.clone(), true, unexecuted)),
                None => g
                    .filter(|g| mine(&g.open))
                    .map(|g| (g.open.clone(), false, unexecuted)),
            }
        };
        // Named after the cache-stripe lock is dropped: naming the file may take the core lock.
        let Some((chunks, complete, unexecuted)) = found else {
            return Err(StoreError::DataLost(format!(
                "{} stripe {stripe}: the cache stripe of the chunk at {chunk_base} on OSS {oss} is not known",
                self.file_name_in(core, file)
            ))
            .into());
        };
        let g = self.layout.geometry().clone();
        let e_bytes = e as u64;
        // The element ranges written into this cache stripe: a complete one holds every
        // byte; of the open one, what the planner wrote into its chunks (not what its
        // lookup names there: see `planned_cache_written`). The running parity
        // exists exactly over the union of its terms' written ranges (the planner
        // initialises a parity range when a write of one of its terms reaches it). Why
        // that matters: a chunk is reused after a destage, so a parity range no write of
        // this cache stripe reached holds a stale parity of an older cache stripe. With one
        // row per column (raid5/6, rs) every write reaches every parity at the same
        // offsets and the stale bytes never meet live ones, but an array code decodes a
        // column through row and diagonal parities of several rows, and a stale parity
        // met there silently turns the rebuilt bytes into garbage. Unwritten counts as
        // zero, for parity as for data. Bytes of write plans not yet run count as unwritten
        // (see `CacheStripes::unexecuted`): the lookup and a complete cache stripe name them
        // from planning on.
        let live: Vec<Vec<(u64, u64)>> = {
            let mut written: Vec<Vec<(u64, u64)>> = if complete {
                vec![vec![(0, e_bytes)]; g.data_count()]
            } else {
                self.planned_cache_written(core, file, stripe, &chunks)
            };
            for n in &unexecuted {
                if chunks.get(&n.pos.col) != Some(&n.chunk) {
                    continue; // another cache stripe of this home stripe
                }
                if let Cell::Data(d) = g.cell(n.pos) {
                    crate::state::sub_range(&mut written[d], n.a, n.z);
                }
            }
            let mut live = written.clone();
            for terms in &g.parity_terms {
                let mut init: Vec<(u64, u64)> = Vec::new();
                for t in terms {
                    for &(a, z) in &written[t.data] {
                        crate::state::add_range(&mut init, a, z);
                    }
                }
                live.push(init);
            }
            live
        };
        let live_of = |p: Pos| -> &[(u64, u64)] {
            match g.cell(p) {
                Cell::Data(d) => &live[d],
                Cell::Parity(q) => &live[g.data_count() + q],
                Cell::Empty => &[],
            }
        };
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, e);
        let mut erased: BTreeSet<usize> = [pos.col].into_iter().collect();
        let has_parity_chunk = g.parity_pos.iter().any(|p| chunks.contains_key(&p.col));
        if !has_parity_chunk || self.tolerance() == 0 {
            return Err(StoreError::DataLost(format!(
                "{} stripe {stripe}: these bytes sit only in the cache zone of a failed OSS, without parity",
                self.file_name_in(core, file)
            ))
            .into());
        }
        for col in 0..g.cols {
            if erased.contains(&col) {
                continue;
            }
            let Some(&(oss, base)) = chunks.get(&col) else {
                continue;
            }; // never written: zeros
            if !self.backends[oss].healthy() {
                erased.insert(col);
                continue;
            }
            for row in 0..g.rows {
                let p = Pos { row, col };
                let key = self.key(PlanZone::Cache, file, base + row as u64 * e_bytes);
                let mut from_disk = live_of(p).to_vec();
                for &(_, a, bytes) in before_plan.iter().filter(|(q, _, _)| *q == p) {
                    crate::state::sub_range(&mut from_disk, a, a + bytes.len() as u64);
                }
                for (a, z) in from_disk {
                    let (a, z) = (a as usize, z as usize);
                    if self
                        .read_retrying(oss, key, a, &mut buf.element_mut(p)[a..z])
                        .is_err()
                    {
                        erased.insert(col);
                    }
                }
            }
        }
        // A column whose bytes fail their witness piece is an erasure too (s44c), not an
        // input: a decode through it rebuilds wrong bytes no checksum sees. Not the columns
        // a running plan's bytes before it are laid over (their disk bytes are not read).
        let laid_over: BTreeSet<usize> = before_plan.iter().map(|(p, ..)| p.col).collect();
        let skip: BTreeSet<usize> = erased.union(&laid_over).copied().collect();
        let witness_stale_blocks = match witness {
            true => self.witness_failing_columns(core, (file, stripe), &chunks, &buf, &skip),
            false => BTreeMap::new(),
        };
        let witness_erased: Vec<usize> = witness_stale_blocks.keys().copied().collect();
        erased.extend(witness_erased.iter().copied());
        for &(p, a, bytes) in before_plan {
            if erased.contains(&p.col) {
                continue; // decoded (the element rebuilt, or a column unreadable)
            }
            let a = a as usize;
            buf.element_mut(p)[a..a + bytes.len()].copy_from_slice(bytes);
        }
        let erased: Vec<usize> = erased.into_iter().collect();
        // What the decode erased and why, for the caller to weigh a failure by (s45a).
        let columns = |past_tolerance: bool| DecodeColumns {
            chunks: chunks.clone(),
            erased: erased.clone(),
            witness_erased: witness_erased.clone(),
            witness_stale_blocks: witness_stale_blocks.clone(),
            past_tolerance,
        };
        let block = CHECKSUM_BLOCK_BYTES;
        let check_from = want_offset_bytes as usize / block * block;
        let check_to = ((want_offset_bytes + want_len_bytes) as usize)
            .div_ceil(block)
            .saturating_mul(block)
            .min(e);
        // A lost write stales only its own blocks (session 45, lead; s46c): where the
        // witness erased columns, the wanted block rows are decoded one by one, each
        // erasing the witness's columns only where they are stale IN THAT ROW, so a row
        // where a stale column holds its acknowledged bytes decodes within the tolerance.
        // The rest of the element is not decoded (nothing vouches for it: see above).
        let erased_in_row = |b: usize| -> Vec<usize> {
            (erased.iter().copied())
                .filter(|col| {
                    (witness_stale_blocks.get(col)).is_none_or(|s| s.contains(&(b as u64)))
                })
                .collect()
        };
        let per_row = !witness_erased.is_empty();
        let past_tolerance = match per_row {
            true => (check_from / block..check_to / block)
                .any(|b| erased_in_row(b).len() > self.tolerance()),
            false => erased.len() > self.tolerance(),
        };
        if per_row && !past_tolerance {
            let mut row = StripeBuf::zeroed(g.rows, g.cols, block);
            for b in check_from / block..check_to / block {
                let cols = erased_in_row(b);
                assert!(cols.len() <= self.tolerance(), "a row within the tolerance");
                slice_stripe_into(&buf, b * block..(b + 1) * block, &mut row);
                self.decode_or_lost(&mut row, &cols, String::new)
                    .map_err(|err| CacheRebuildFailure { err, columns: None })?;
                for &col in &cols {
                    for r in 0..g.rows {
                        let p = Pos { row: r, col };
                        buf.element_mut(p)[b * block..(b + 1) * block]
                            .copy_from_slice(row.element(p));
                    }
                }
            }
        }
        (if per_row && !past_tolerance {
            Ok(())
        } else {
            self.decode_or_lost(&mut buf, &erased, || {
            format!(
                "{} stripe {stripe}: columns {erased:?} of its cache stripe are unreadable{} but the code tolerates {}",
                self.file_name_in(core, file),
                if witness_erased.is_empty() {
                    String::new()
                } else {
                    format!(" (columns {witness_erased:?} hold bytes older than their crc on record: an OSS lost a write)")
                },
                self.tolerance()
            )
        })
        })
        .map_err(|err| CacheRebuildFailure {
            err,
            columns: past_tolerance.then(|| Box::new(columns(true))),
        })?;
        // The decoded cache stripe must satisfy every parity equation, also those the
        // decode did not use (redundancy left when fewer columns are erased than the code
        // tolerates). Why: a failed OSS leaves no stored checksum to confirm rebuilt bytes
        // against, and a decode from a running parity that disagrees with its data rebuilds
        // wrong bytes silently; one encode of the stripe is cheap beside its reads. Checked
        // in the checksum blocks around the wanted bytes only: every byte offset of a stripe
        // is a codeword of its own (in every code here, array codes too), so a row torn by
        // an interrupted write in another block says nothing of these bytes. Checked over
        // the whole element, such a row made every other block of a failed OSS's cached
        // element unreadable too: recovery after one cut write on raid6 recorded
        // acknowledged bytes the write never touched lost (review s5r, R5).
        let mut check = buf.clone();
        self.code
            .encode(&mut check)
            .map_err(|e| StoreError::DataLost(e.to_string()))?;
        if let Some(p) = g.parity_pos.iter().find(|p| {
            !erased.contains(&p.col)
                && check.element(**p)[check_from..check_to]
                    != buf.element(**p)[check_from..check_to]
        }) {
            // Named by its file bytes (element offsets told the user nothing), with what was
            // shown to work (s27d: "write these bytes again" was refused with this message,
            // though that refused write, a `flush` or a rebuild records the cache stripe's
            // bytes lost, after which a write of each lost range works).
            let file_bytes = match g.cell(pos) {
                Cell::Data(d) => {
                    let size = self.file_size_for_clipping(core, file);
                    // An element's bytes are contiguous file bytes (`check_to` may be the
                    // element's end, which `file_offset` does not take).
                    let a = self.layout.file_offset(stripe, d, check_from as u64);
                    let z = (a + (check_to - check_from) as u64).min(size);
                    if a < z {
                        format!(" (file bytes {a}..{z})")
                    } else {
                        String::new()
                    }
                }
                _ => String::new(),
            };
            return Err(CacheRebuildFailure {
                err: StoreError::DataLost(format!(
                "{} stripe {stripe}: its cache stripe's running parity at row {} column {} disagrees with its data in element bytes {check_from}..{check_to}: the element at row {} column {}{file_bytes} cannot be rebuilt there (a stale element: an OSS that lost a write, and which column is stale cannot be told); nothing was recorded by this read. A write of these bytes is refused with this message, and it, a `flush` or a rebuild records the cache stripe's acknowledged bytes lost (none can be told right); then write each lost range again from your own copy (`exaraid store status {}` lists them), which works",
                self.file_name_in(core, file),
                p.row, p.col, pos.row, pos.col,
                self.dir.display()
            )),
                columns: Some(Box::new(columns(false))),
            });
        }
        Ok((buf.element(pos).to_vec(), live_of(pos).to_vec()))
    }

    /// Home blocks of `home` that fail their checksum on an OSS that answers, whose payload
    /// on disk is exactly a journaled copy of that block (`copies`): known, laid in and no
    /// longer unreadable. Why (OPEN 4 of session 8): a move home cut by a crash between an
    /// edge block's payload and its checksum leaves the block failing its old checksum; the
    /// move journaled the block's new bytes whole (`copy_moved_edge_blocks`, with an OSS of
    /// the stripe failed) and the settle lays them over the stripe, but a decode from home
    /// parity (a failed OSS's window bytes, `rebuild_from_home_parity`) counted the block
    /// as an erasure beside the failed column: raid5 lost the failed OSS's window bytes.
    /// Only where the payload equals the copy: that is the torn write's own new payload
    /// (the copy's bytes reached the disk, only the checksum did not); any other payload
    /// (bit rot beside the tear, or a later plan's bytes) stays unreadable, never replaced
    /// by an older copy.
    fn prove_torn_blocks_by_copies(
        &self,
        home: &mut super::read::HomeStripe,
        file: u64,
        stripe: u64,
        copies: &[crate::state::FailedColumnCopy],
    ) {
        if copies.is_empty() || home.corrupt.is_empty() {
            return;
        }
        let block = CHECKSUM_BLOCK_BYTES;
        let e = self.sb.element_bytes;
        for corrupt in home.corrupt.iter_mut().filter(|c| !c.missing) {
            let pos = corrupt.pos;
            let mine: Vec<&crate::state::FailedColumnCopy> = copies
                .iter()
                .filter(|c| c.row == pos.row && c.col == pos.col && c.bytes.len() == block)
                .filter(|c| c.offset_bytes % block as u64 == 0)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                continue;
            };
            if !self.backends[oss].healthy() {
                continue;
            }
            let mut on_disk = vec![0u8; e];
            self.count(oss, key.zone, Op::Read, false);
            if self.backends[oss]
                .read_unverified(key, &mut on_disk)
                .is_err()
            {
                continue; // as unreadable as before
            }
            let proven: Vec<usize> = corrupt
                .blocks
                .iter()
                .copied()
                .filter(|&i| {
                    let payload = &on_disk[i * block..(i + 1) * block];
                    mine.iter()
                        .any(|c| c.offset_bytes as usize == i * block && c.bytes == payload)
                })
                .collect();
            for i in proven {
                home.buf.element_mut(pos)[i * block..(i + 1) * block]
                    .copy_from_slice(&on_disk[i * block..(i + 1) * block]);
                corrupt.blocks.remove(&i);
            }
        }
        home.corrupt.retain(|c| c.missing || !c.blocks.is_empty());
    }

    /// Delayed: decode a data element of an ended window from the home stripe (see
    /// `rebuild_cached`). Columns holding bytes the home parity does not cover yet (an open
    /// window, or an END whose parity is not durable) count as erased.
    fn rebuild_from_home_parity(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        oss: usize,
        (offset_bytes, len_bytes): (u64, u64),
    ) -> Result<Vec<u8>, StoreError> {
        let g = self.layout.geometry().clone();
        let Cell::Data(d) = g.cell(pos) else {
            return Err(StoreError::DataLost(format!(
                "{} stripe {stripe}: a delayed window's cache holds no parity",
                self.file_name_in(core, file)
            )));
        };
        let sdb = self.layout.stripe_data_bytes();
        let (extents, unprotected, name, edge_copies) = {
            let held;
            let c = match core {
                Some(c) => c,
                None => {
                    held = self.core.lock();
                    &*held
                }
            };
            // The newest copy of each column (a move home already executed but not yet
            // heard by the planner reads home: see `lookup_newest`); checked under the lock
            // a poisoning takes (see `read_to`).
            self.check_readable()?;
            let extents = self.lookup_newest(c, file, stripe * sdb, sdb)?;
            let unprotected: Vec<_> = self
                .unprotected_now(c)
                .into_iter()
                .filter(|u| u.file == file && u.stripe == stripe)
                .collect();
            let name = c
                .state
                .file_by_id(file)
                .map(|(n, _)| read::describe_file_name(n))
                .unwrap_or_else(|| format!("removed file #{file}"));
            // Journaled edge-block copies of a move home cut by a crash (or in flight):
            // the true bytes of home blocks it writes in part (`copy_moved_edge_blocks`).
            let edge_copies: Vec<crate::state::FailedColumnCopy> = c
                .state
                .failed_column_copies
                .iter()
                .map(|(_, copy)| copy)
                .filter(|copy| !copy.cache && copy.file == file && copy.stripe == stripe)
                .cloned()
                .collect();
            (extents, unprotected, name, edge_copies)
        };
        let want_a = self.layout.file_offset(stripe, d, offset_bytes);
        let want_z = want_a + len_bytes;
        if unprotected
            .iter()
            .any(|u| u.file_offset_bytes < want_z && want_a < u.file_offset_bytes + u.len_bytes)
        {
            return Err(StoreError::DataLost(format!(
                "{name} bytes {want_a}..{want_z}: their only copy, in the cache zone of OSS {oss}, {ONLY_COPY_NO_PARITY} (a delayed window without a durable END parity)"
            )));
        }
        let mut erased: BTreeSet<usize> = [pos.col].into_iter().collect();
        for u in &unprotected {
            for (_, el) in self
                .layout
                .split(u.file_offset_bytes, u.len_bytes)
                .map_err(plan_err)?
            {
                erased.insert(el.pos.col);
            }
        }
        let mut home = self.read_home_blocks(core, file, stripe)?;
        self.prove_torn_blocks_by_copies(&mut home, file, stripe, &edge_copies);
        erased.extend(home.erased_cols());
        let mut buf = home.buf;
        // The newest bytes over home: what the END parity was computed from.
        let e = self.sb.element_bytes as u64;
        for x in extents.iter().filter(|x| x.zone == PlanZone::Cache) {
            let col = x.element.pos.col;
            if erased.contains(&col) {
                continue;
            }
            let o = x.element.offset_bytes as usize;
            let n = x.len_bytes as usize;
            assert!(o + n <= e as usize, "a cache extent within one element");
            let key = self.key(PlanZone::Cache, file, x.addr_bytes);
            self.count(x.oss, Zone::Cache, Op::Read, false);
            let el = buf.element_mut(x.element.pos);
            if self
                .read_retrying(x.oss, key, (x.addr_bytes % e) as usize, &mut el[o..o + n])
                .is_err()
            {
                erased.insert(col);
            }
        }
        let erased: Vec<usize> = erased.into_iter().collect();
        self.decode_or_lost(&mut buf, &erased, || {
            format!(
                "{name} bytes {want_a}..{want_z} are lost: their copy in the cache zone of OSS {oss} is unreadable and columns {erased:?} of stripe {stripe} are unreadable or not yet covered by its home parity, but {} tolerates {}",
                self.layout.code_name(),
                self.tolerance()
            )
        })?;
        Ok(buf.element(pos).to_vec())
    }

    /// Execute plans in order; each becomes durable (journaled) on success, then the planner
    /// hears of its completion and whatever that returns runs too.
    pub(super) fn run_plans(
        &self,
        plans: Vec<Admitted>,
        client: Option<(&ClientWrite, &[u8])>,
    ) -> Result<(), StoreError> {
        self.run_plans_from(plans, client, false)
    }

    /// `run_plans`; `on_server` says the caller is the background server (which runs
    /// background plans itself instead of queueing them).
    pub(super) fn run_plans_from(
        &self,
        plans: Vec<Admitted>,
        client: Option<(&ClientWrite, &[u8])>,
        on_server: bool,
    ) -> Result<(), StoreError> {
        self.run_plans_refusable(plans, client, on_server, None, &mut Vec::new(), None)
    }

    /// `run_plans_from` on the background worker (`serve_background`, told to end by
    /// `stop`): a plan whose `Durable` record a full metadata disk refuses after its writes
    /// waits for room and tries again (`wait_for_room_on_worker`) instead of ending the
    /// worker and the store's use.
    pub(super) fn run_plans_on_worker(
        &self,
        plans: Vec<Admitted>,
        stop: &AtomicBool,
    ) -> Result<(), StoreError> {
        self.run_plans_refusable(plans, None, true, None, &mut Vec::new(), Some(stop))
    }

    /// `run_plans_from`, where a plan that fails before its first write journals so
    /// (`Rec::WroteNothing`) with every plan that then never runs: the rest of the queue
    /// and `refusal`'s plans (a client write's, whose timers' plans run first), and with
    /// the file size `refusal` restores when no plan of this call finished (see
    /// `Refusal`). Why (review s9s S9-1, S9-3): left without it, the next open recovered
    /// the refused write as a crash-cut one.
    /// `destage_lost`: the ranges its destages recorded lost are added (a client write's
    /// own bytes among them are lost after it was durable: see `Store::write`).
    /// `worker_stop`: the caller is the background worker (see `run_plans_on_worker`).
    pub(super) fn run_plans_refusable(
        &self,
        plans: Vec<Admitted>,
        client: Option<(&ClientWrite, &[u8])>,
        on_server: bool,
        refusal: Option<&Refusal>,
        destage_lost: &mut Vec<LostRange>,
        worker_stop: Option<&AtomicBool>,
    ) -> Result<(), StoreError> {
        let mut any_durable = false;
        let mut queue: VecDeque<Admitted> = plans.into();
        let _wake = WakeAfterPlansWaiters(self);
        while let Some(Admitted { plan, ticket }) = queue.pop_front() {
            if !on_server
                && plan.kind == exaraid_plan::PlanKind::Background
                && self.background_served.load(Ordering::SeqCst)
            {
                self.background.lock().push_back(Admitted { plan, ticket });
                self.background_cv.notify_all();
                continue;
            }
            {
                let mut done = self.done.lock();
                if !plan.after_plans.iter().all(|p| done.contains(p)) {
                    // Counted: the background worker holds no destage back meanwhile.
                    self.plans_waiting.fetch_add(1, Ordering::SeqCst);
                    // A plan waited for that failed half way (the store poisoned) is never
                    // done, nor is any plan after it: stop waiting and be refused as every
                    // plan after a failed one is. Why (session 20 lead of s20d): the
                    // background worker's drain, after its window parity plan failed, waited
                    // here forever for it (the move home's `after_plans`), and so did every
                    // caller joining the worker.
                    while !plan.after_plans.iter().all(|p| done.contains(p))
                        && !self.poisoned.load(Ordering::SeqCst)
                    {
                        self.done_cv.wait(&mut done);
                    }
                    self.plans_waiting.fetch_sub(1, Ordering::SeqCst);
                }
            }
            self.check_usable()?;
            let is_client_plan = matches!(plan.cause, exaraid_plan::PlanCause::Write { .. });
            // Held from before the plan's copy check until its `Durable` record is on disk (or
            // the store is poisoned): `fail_oss` records a failure only between such plans
            // (review H6; see `fail_oss`). Every error return below poisons the store first.
            // Taken once the plan's stripes are its own, not before it queues for them. Why
            // (OPEN 4 of session 8, a deadlock): the gate is fair, so a share asked for while
            // `fail_oss` waits for the gate queues behind it. A plan B that held its share
            // while it waited for its stripes, behind plan A (queued earlier, but waiting
            // for a move home before asking for its share), kept `fail_oss` waiting; A then
            // asked, queued behind `fail_oss`, and A waited for `fail_oss`, `fail_oss` for B,
            // B for A (`tests/scenes/failure_gate_queue.rs`). Taken after the stripes, a share is
            // held only by a plan that executes, which waits for nothing a plan waiting for
            // the gate holds (its stripes are its own; the core lock, the journal and the
            // backends are never held across a wait for the gate), and `fail_oss` waits for
            // executing plans only, never for queued ones. The copy check is in `execute`,
            // after this, so the H6 argument stands. (Not `read_recursive`: it lets a share
            // past a waiting `fail_oss`, which a steady stream of writes could then starve.)
            let mut _failure_share = None;
            let poison = |e: StoreError| {
                self.poisoned.store(true, Ordering::SeqCst);
                e
            };
            let probe = &crate::bench::PROBE;
            let (add, since) = (crate::bench::probe_add, crate::bench::probe_ns_since);
            // Held until the plan's own OSS syncs returned, not only its writes. Why (R29-1's
            // power-cut gap, session 30 s30b): recovery takes a cut plan's writes in a stripe
            // a later durable plan took as on disk (`finished_by_later`, and the open keeps
            // them in the planner), which a kill alone allows but a power cut does not when
            // the cut plan left its stripes before its sync: its block on an OSS the later
            // plan did not sync was dropped under the later plan's synced running parity,
            // and the acknowledged bytes of the later plan were recorded LOST
            // (`s30b_wcl_cut_writer_unsynced_power_cut.rs`). Costs same-stripe writers one
            // fsync wait each (docs/results/s30-s30b-sync-under-stripe-locks.md).
            let stripes_held;
            let result = {
                let waiting = Instant::now();
                stripes_held = self.locks.acquire(ticket);
                add(&probe.stripe_lock_wait_ns, since(waiting));
                _failure_share = super::recovery::copies_failed_columns(&plan.cause)
                    .then(|| self.failure_gate.read());
                // A plan that failed half way poisons the store before it leaves its stripes,
                // and no plan runs after that. Why: recovery takes a plan cut by a crash as
                // whole on a stripe where a later plan of that stripe is durable (it ran
                // after this one's writes and syncs returned: `finished_by_later`), which
                // holds only if a plan after a failed one never runs.
                self.check_usable()?;
                let executing = Instant::now();
                if is_client_plan {
                    self.client_plans_executing.fetch_add(1, Ordering::SeqCst);
                }
                let client = if is_client_plan { client } else { None };
                let mut began_writing = false;
                let r = self.execute(&plan, client, &mut began_writing, destage_lost);
                if is_client_plan {
                    self.client_plans_executing.fetch_sub(1, Ordering::SeqCst);
                }
                if r.is_ok() {
                    // Still under the stripe locks: no rebuild sees the bytes on disk yet
                    // counted as nothing.
                    self.cache_stripes.lock().unexecuted.remove(&plan.id);
                    if matches!(plan.cause, exaraid_plan::PlanCause::WindowMove { .. }) {
                        self.note_moved_home(&mut self.core.lock(), &plan);
                    }
                } else {
                    self.poisoned.store(true, Ordering::SeqCst);
                    if !began_writing {
                        // Still under the stripe locks: no later plan of these stripes ran.
                        let never_run = queue.iter().map(|a| a.plan.id);
                        self.journal_wrote_nothing(&plan, never_run, refusal, any_durable);
                    }
                }
                add(&probe.execute_ns, since(executing));
                r
            };
            if let Err(e) = result {
                self.poisoned.store(true, Ordering::SeqCst);
                return Err(e);
            }
            if self.fsync {
                let syncing = Instant::now();
                let mut failed = self.sync_osses(&plan.osses());
                self.drop_syncs_of_osses_failed_on_record(&mut failed);
                if !failed.is_empty() {
                    // A move's home bytes may not be on disk (a failed sync may drop the
                    // pages): reads take its cache ranges again (`note_moved_home`).
                    self.core
                        .lock()
                        .moved_home
                        .retain(|_, (_, moved_by)| *moved_by != plan.id);
                }
                self.refuse_out_of_descriptors(&failed)?;
                if !failed.is_empty() {
                    return Err(poison(self.sync_failed(&plan, failed)));
                }
                add(&probe.backend_sync_ns, since(syncing));
            } else {
                // No fsync, no `sync_osses`: the journal mark written as it would keep it,
                // unsynced (a kill keeps it, as it keeps the journal records it names).
                let appended_seq = self.journal_appended_seq.load(Ordering::SeqCst);
                for oss in plan.osses() {
                    let b = &self.backends[oss];
                    if b.healthy() {
                        b.note_journal_through(appended_seq, false);
                        // Best effort: a mark not written is no mark, which refuses nothing.
                        let _ = b.write_journal_mark_unsynced();
                    }
                }
            }
            drop(stripes_held);
            {
                let mut counts = self.plan_counts.lock();
                plan.add_counts_per_oss(&mut counts);
            }
            add(&probe.plans, 1);
            if worker_stop.is_some() {
                crate::torture::pause_point(crate::torture::BACKGROUND_PLAN_WRITTEN);
            }
            let waiting = Instant::now();
            let durable = Rec::Durable {
                plans: vec![plan.id],
            };
            // Group commit: with fsync on, the durable record is appended under the core lock
            // but fsync'd outside it, by one fsync shared with every plan that appended
            // meanwhile (`sync_journal_through`). Why: one fsync per plan under the global
            // lock made every acknowledgement in the store wait for the others' fsyncs one
            // at a time. Nothing else changes order: the plan counts as done, and the planner
            // hears of it (which may release dependent plans), only once the record is on
            // disk; a crash before that leaves the plan in flight, as it always could.
            let mut room = RoomWait::default();
            let seq = loop {
                let appended = {
                    let mut core = self.core.lock();
                    add(&probe.core_lock_wait_ns, since(waiting));
                    let journaling = Instant::now();
                    let _time_journal = DeferAdd(&probe.journal_durable_ns, journaling);
                    // The generations this plan's syncs reached, before its acknowledgement.
                    let seq = self
                        .note_generations(&mut core)
                        .and_then(|()| self.journal_seq(&mut core, durable.clone(), false));
                    if seq.is_ok() {
                        self.forget_move_edge_copies(&mut core, plan.id);
                    }
                    seq
                };
                match appended {
                    Ok(seq) => break seq,
                    Err(e) => self
                        .wait_for_room_on_worker(&plan, e, worker_stop, &mut room)
                        .map_err(poison)?,
                }
            };
            room.told_end(self);
            if self.fsync {
                let journaling = Instant::now();
                let _time_journal = DeferAdd(&probe.journal_durable_ns, journaling);
                self.sync_journal_through(seq)?;
            }
            let waiting = Instant::now();
            let more = {
                let mut core = self.core.lock();
                add(&probe.core_lock_wait_ns, since(waiting));
                self.done.lock().insert(plan.id);
                self.done_cv.notify_all();
                any_durable = true;
                core.deferred_completions.push(plan.id);
                if let exaraid_plan::PlanCause::WindowEnd { window, .. }
                | exaraid_plan::PlanCause::WindowTimeout { window, .. } = plan.cause
                {
                    // Still under the failure gate: a `fail` records its losses either
                    // before this plan executed or after its parity counts here.
                    core.window_parity_unheard.insert(plan.id, window);
                    assert!(
                        core.window_parity_unheard.len() <= core.deferred_completions.len(),
                        "every unheard parity plan is a deferred completion"
                    );
                }
                let more = self.complete_deferred(&mut core)?;
                self.admit(more)
            };
            queue.extend(more);
        }
        Ok(())
    }

    /// The background worker's plan `plan` ran its writes and a full disk refused its
    /// `Durable` record (`e`: `NoSpace`, nothing appended): wait (a back-off doubling up to
    /// [`BACKGROUND_RETRY_MAX_MS`], as the worker's timers) and let the caller try again,
    /// holding what the plan holds (its share of the gate and of the failure gate, so no
    /// settle, reset or `fail` comes between its writes and its record). The refusal is told
    /// once when it begins and once when it ends (`RoomWait::told_end`), as the timers'.
    /// Returns `e` (the caller poisons the store; the next open recovers the plan as one a
    /// crash cut, its writes synced) for anything else, off the worker, or once the worker is
    /// told to stop. Why (session 19 leftover of s19e): the refusal ended the worker and
    /// poisoned a long-lived store, so the plan was left to the next open though the disk
    /// got room again. Meanwhile plans that wait for this one and callers that need the gate
    /// exclusive (a settle, `rm`) wait too; other writes go on or are refused for room.
    pub(super) fn wait_for_room_on_worker(
        &self,
        plan: &IoPlan,
        e: StoreError,
        worker_stop: Option<&AtomicBool>,
        room: &mut RoomWait,
    ) -> Result<(), StoreError> {
        let Some(stop) = worker_stop else {
            return Err(e);
        };
        if !matches!(e, StoreError::NoSpace(_)) || self.poisoned.load(Ordering::SeqCst) {
            return Err(e);
        }
        if stop.load(Ordering::SeqCst) {
            return Err(e.with_context(&format!(
                "the background worker was told to stop while the record of its plan {} ({:?}) waited for room: its writes are done but not on record, so the store refuses changes until it is reopened, and the next open finishes the plan (as after a crash). Free space on the file system holding {} before that",
                plan.id,
                plan.cause,
                self.dir.display()
            )));
        }
        room.wait_ms = (room.wait_ms * 2).clamp(SERVE_POLL_MS, BACKGROUND_RETRY_MAX_MS);
        let mut refused = self.background_refused.lock();
        if !room.refused && refused.is_none() {
            self.tell_background_plans(format!(
                "the background worker's plans (moving cached bytes home, giving delayed windows their parity) were refused for room after their writes: {e}. The worker keeps each such plan and tries its record again at least every {BACKGROUND_RETRY_MAX_MS} ms; every byte stays readable, and what waits for such a plan (a settle, `rm`, a write behind it) waits for room"
            ));
        }
        room.refused = true;
        *refused = Some(e.to_string());
        drop(refused);
        std::thread::sleep(std::time::Duration::from_millis(room.wait_ms));
        Ok(())
    }

    /// A change of the background worker's refusal state for its plans, told at close:
    /// bounded, the latest only (see `tell_background_refusal` for its timers).
    fn tell_background_plans(&self, warning: String) {
        let mut warnings = self.deferred_warnings.lock();
        warnings.retain(|w| !w.starts_with("the background worker's plans"));
        warnings.push(warning);
    }

    /// Journal (synced) that `failed` and `never_run` wrote nothing (`Rec::WroteNothing`),
    /// with `refusal`'s plans and, when no plan of the call finished (`any_durable`), the
    /// size its file has without the refused write. Best effort: the store is poisoned
    /// already and the caller returns the plan's error; without the record the next open
    /// recovers the plans as cut by a crash, as before it existed.
    fn journal_wrote_nothing(
        &self,
        failed: &IoPlan,
        never_run: impl Iterator<Item = PlanId>,
        refusal: Option<&Refusal>,
        any_durable: bool,
    ) {
        let mut plans: Vec<PlanId> = std::iter::once(failed.id).chain(never_run).collect();
        let mut core = self.core.lock();
        let mut file_sizes = Vec::new();
        if let Some(r) = refusal {
            plans.extend(r.then_dropped.iter().copied());
            // The write's own plans never ran, or none of this call's finished.
            if !r.then_dropped.is_empty() || !any_durable {
                file_sizes.extend(r.size_without(&core.state));
            }
        }
        plans.sort_unstable();
        plans.dedup();
        plans.retain(|p| !core.state.durable.contains(p));
        assert!(plans.contains(&failed.id), "a failed plan is not durable");
        let rec = Rec::WroteNothing { plans, file_sizes };
        let _best_effort = self.journal(&mut core, rec, true);
    }

    /// Return when the journal record `seq` is durable. Group commit: if no fsync of the
    /// journal runs, this thread runs one, covering every record whose append returned
    /// before it started (`journal_appended_seq`); else it waits for the running one and,
    /// if that did not cover `seq`, for the next (which it may lead). So N plans finishing
    /// together share about two fsyncs instead of taking N one after another.
    pub(super) fn sync_journal_through(&self, seq: u64) -> Result<(), StoreError> {
        let failed = |why: &str| {
            StoreError::Io(format!(
                "journal fsync failed ({why}): the last writes were not acknowledged; reopen the store (it recovers)"
            ))
        };
        let mut group = self.group_commit.lock();
        loop {
            if let Some(why) = &group.failed {
                return Err(failed(why));
            }
            if group.synced_through_seq >= seq {
                return Ok(());
            }
            if !group.syncing {
                break;
            }
            self.group_commit_cv.wait(&mut group);
        }
        assert!(
            self.journal_appended_seq.load(Ordering::SeqCst) >= seq,
            "record {seq} was appended before its fsync"
        );
        let result = self.run_journal_fsync(group, &mut || {
            crate::bench::probe_add(&crate::bench::PROBE.journal_fsyncs, 1);
            crate::torture::pause_point(crate::torture::JOURNAL_GROUP_FSYNC);
            // A power-cut test's measure: what was written before the fsync began is durable.
            let tracked_len_bytes = crate::torture::journal_syncs_tracked()
                .then(|| self.journal_file.metadata().map(|m| m.len()).ok())
                .flatten();
            let result = crate::torture::journal_fsync(|| self.journal_file.sync_data());
            if let (Ok(()), Some(len_bytes)) = (&result, tracked_len_bytes) {
                crate::torture::journal_synced(&self.dir.join(super::JOURNAL_FILE), len_bytes);
            }
            result
        });
        result.map_err(|e| failed(&e.to_string()))
    }

    /// The one path of every fsync of the journal file once the store holds a second handle
    /// on it (`journal_file`): the group commit's (`sync_journal_through`), a synced
    /// append's, `Journal::sync_in`'s and the checkpoint's truncation (`Journal::
    /// truncate_in`), each under the core lock. One at a time, and none after one failed:
    /// the kernel reports a writeback error once per open file (which both handles share),
    /// so two fsyncs at once could split it, one failing, the other returning success over
    /// pages the kernel dropped; were that the group commit's, writers were acknowledged
    /// over records not on disk. Here the failure is latched (`GroupCommit::failed`, the
    /// store poisoned) before the next fsync may start, and that one is refused.
    /// Why waiting here under the core lock cannot deadlock: the turn is held only by a
    /// thread inside `run_journal_fsync`, which until it gives the turn back takes no lock
    /// but `group_commit` (its fsync closures: the file's fsync, the torture and bench
    /// counters, leaf locks), whatever it holds. A group commit's leader holds no core lock
    /// either (`sync_input_before_home_writes` takes it itself before leading, the plan's
    /// `Durable` is synced after its block drops it), and any other holder of the turn
    /// holds the core lock, so it cannot be running while this thread, holding it, waits.
    pub(super) fn journal_fsync_turn(
        &self,
        fsync: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut group = self.group_commit.lock();
        while group.syncing {
            group.turn_waiters += 1;
            self.group_commit_cv.wait(&mut group);
            group.turn_waiters -= 1;
        }
        if let Some(why) = &group.failed {
            return Err(std::io::Error::other(format!(
                "an earlier fsync of the journal failed ({why}): nothing since is durable; reopen the store (it recovers)"
            )));
        }
        self.run_journal_fsync(group, fsync)
    }

    /// Run `fsync` (one fsync of the journal file) as the holder of the turn, `group`
    /// showing none running and none failed; then record what it covers (every record
    /// appended before it began) or latch its failure, and wake the waiting ones.
    fn run_journal_fsync(
        &self,
        mut group: parking_lot::MutexGuard<'_, GroupCommit>,
        fsync: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        assert!(!group.syncing, "two fsyncs of the journal at once");
        assert!(group.failed.is_none(), "a journal fsync after one failed");
        group.syncing = true;
        let target_seq = self.journal_appended_seq.load(Ordering::SeqCst);
        drop(group);
        let result = fsync();
        let mut group = self.group_commit.lock();
        assert!(group.syncing, "the turn was held");
        assert!(
            group.failed.is_none(),
            "a journal fsync failed during another's turn"
        );
        group.syncing = false;
        match &result {
            Ok(()) => group.synced_through_seq = group.synced_through_seq.max(target_seq),
            Err(e) => {
                group.failed = Some(e.to_string());
                self.poisoned.store(true, Ordering::SeqCst);
            }
        }
        self.group_commit_cv.notify_all();
        result
    }

    /// Threads waiting for the journal's fsync turn (`journal_fsync_turn`) now: lets a test
    /// see an fsync wait behind another without timing it.
    #[doc(hidden)]
    pub fn journal_fsync_waiters(&self) -> usize {
        self.group_commit.lock().turn_waiters
    }

    /// Make the writes of a plan durable on every healthy OSS it touched, the OSSs in
    /// parallel. Why parallel: each OSS is its own device (a disk, later a server); syncing
    /// them one after the other made an acknowledgement wait for the sum of their flush
    /// latencies instead of the largest. Returns when all have answered: the OSSs whose sync
    /// failed, with their errors (none: all durable).
    pub(super) fn sync_osses(&self, osses: &[usize]) -> Vec<(usize, BackendError)> {
        let probe = &crate::bench::PROBE;
        let healthy: Vec<usize> = osses
            .iter()
            .copied()
            .filter(|&oss| self.backends[oss].healthy())
            .collect();
        crate::bench::probe_add(&probe.backend_syncs, healthy.len() as u64);
        // What each OSS keeps as its journal mark if this sync makes cache zone bytes durable
        // (see `backend::JOURNAL_MARK_FILE`): only records already durable (written, on a
        // store that does not fsync, which a kill keeps), so no crash leaves a mark past the
        // journal. A WCL client plan synced its input before its cache writes
        // (`sync_write_crcs_before_cache_writes`), so its mark covers the write's records.
        let journal_durable_seq = match self.fsync {
            true => self.group_commit.lock().synced_through_seq,
            false => self.journal_appended_seq.load(Ordering::SeqCst),
        };
        for &oss in &healthy {
            self.backends[oss].note_journal_through(journal_durable_seq, true);
        }
        // One at a time on this thread when a kill test (or an in-process power-cut test)
        // asks for plan order, as `run_steps` does: `extents-synced` is counted per sync, so
        // in thread order its n-th pass was another OSS from run to run (s33c's audit).
        // Reversed plan order runs the OSSs last to first, as it does the steps.
        let in_plan_order = crate::torture::steps_in_plan_order();
        let results: Vec<(usize, Result<(), BackendError>)> = if healthy.len() <= 1 || in_plan_order
        {
            let mut order = healthy;
            if crate::torture::steps_in_reversed_plan_order() {
                order.reverse();
            }
            order
                .iter()
                .map(|&oss| (oss, self.backends[oss].sync()))
                .collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = healthy
                    .iter()
                    .map(|&oss| s.spawn(move || (oss, self.backends[oss].sync())))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("sync thread"))
                    .collect()
            })
        };
        results
            .into_iter()
            .filter_map(|(oss, r)| r.err().map(|err| (oss, err)))
            .collect()
    }

    /// Drop from `failed` (a plan's sync errors) those of OSSs failed on record by now: a
    /// `fail_oss` (or another plan's failed step) that landed between the plan's writes and
    /// its syncs, whose sync then refused "unavailable (marked failed)". Such an OSS is
    /// skipped as one failed before the sync (`sync_osses` filters those): nothing counts
    /// on its bytes until `rebuild`, or `online` rewrites its stripes changed since the
    /// failure, and the plan's durability rests on the other OSSs. Why (review s19r R19-4):
    /// taken as a dropped fsync, END returned "not acknowledged" and poisoned the handle,
    /// where a failure during END is a defined window-loss event (R9-2). An OSS not on
    /// record (a real fsync error, a missing mount) still goes through `sync_failed`.
    fn drop_syncs_of_osses_failed_on_record(&self, failed: &mut Vec<(usize, BackendError)>) {
        if failed.is_empty() {
            return;
        }
        let core = self.core.lock();
        failed.retain(|(oss, _)| {
            !(core.state.failed_oss.contains(oss) && !self.backends[*oss].healthy())
        });
    }

    /// The syncs of `failed` OSSs failed after every write of `plan` returned (the other
    /// OSSs it wrote are durable). The plan is not acknowledged (the caller poisons the
    /// store and returns this error), but first each such OSS is recorded failed and then
    /// the plan durable, so that no acknowledged byte depends on those OSSs. Why failed: an
    /// fsync error says the OSS may have dropped the plan's bytes (Linux marks the dirty
    /// pages clean and a later fsync succeeds), and a dropped block reads back later as its
    /// old bytes under its old checksum, wrong and unnoticed. Why durable: the other OSSs
    /// hold the plan's new version of every stripe it wrote, synced, so the failed OSSs'
    /// columns decode from them; left in flight with an OSS failed, recovery had no copy
    /// of the columns the plan's writes tie and named their acknowledged bytes lost (and a
    /// WCL cache stripe on single parity decoded wrong bytes there). Beyond the code's
    /// tolerance nothing is recorded (`note_failed` refuses): the plan stays in flight
    /// and the next open recovers it as a crash cut it.
    /// A sync that could not open a file for want of descriptors (EMFILE, ENFILE) never
    /// reached the disk: nothing says the OSS dropped bytes, so it is not recorded failed
    /// (review s11r R11-7: a flush near the limit recorded two healthy raid6 OSSs failed).
    /// The command stops unacknowledged instead, the store poisoned: the next open redoes
    /// what was under way, as after a crash.
    pub(super) fn refuse_out_of_descriptors(
        &self,
        failed: &[(usize, BackendError)],
    ) -> Result<(), StoreError> {
        let Some((oss, err)) = failed.iter().find(|(_, e)| e.is_out_of_descriptors()) else {
            return Ok(());
        };
        self.poisoned.store(true, Ordering::SeqCst);
        // Kept an out-of-descriptors error: an open whose recovery stops here tells the
        // advice that fits by the error's kind (`reads_only_cause`), not a failing disk's.
        Err(StoreError::Backend(BackendError::OutOfDescriptors {
            oss: format!("{oss} ({})", self.backends[*oss].location()),
            why: format!(
                "its sync could not run, so this command stopped before acknowledging anything: {err}"
            ),
        }))
    }

    fn sync_failed(&self, plan: &IoPlan, failed: Vec<(usize, BackendError)>) -> StoreError {
        assert!(!failed.is_empty());
        let names: Vec<String> = failed
            .iter()
            .map(|(oss, err)| format!("OSS {oss} ({}): {err}", self.backends[*oss].location()))
            .collect();
        let osses: Vec<usize> = failed.iter().map(|(oss, _)| *oss).collect();
        // The window bytes lost with them go on record at the next open, which knows this
        // plan durable: recorded now, the bytes an END parity plan read from such an OSS
        // (and protected, its parity synced elsewhere) were named lost for good.
        // The failure and the plan's durability in one record (`SyncFailedDurable`):
        // a kill between two records left the plan in flight with the OSS failed, and its
        // window bytes on that OSS (an END's, read, now covered by the parity synced on the
        // other OSSs) were named lost. Never the plan before a failure: an OSS whose sync
        // failed, not yet on record, would be trusted beside a durable plan.
        // Several OSSs: all of them and the plan in one record (`Rec::SyncsFailed`): a kill
        // after the first one's record alone left the others trusted (s8a left), their
        // dropped bytes readable as old bytes under old, valid checksums.
        let recorded = self.note_all_failed_then_durable(&osses, false, Some(plan.id));
        match recorded {
            Ok(()) => StoreError::Io(format!(
                "this write was not acknowledged (its bytes read old or new): the sync of OSS {osses:?} failed after its bytes went out, so that OSS is recorded failed (its disk may have dropped them) and every other byte reads degraded; reopen the store, then run `exaraid store rebuild DIR --oss I` for it (onto a new disk with --to if it keeps failing). The sync errors: {}",
                names.join("; ")
            )),
            Err(e) => StoreError::Io(format!(
                "this write was not acknowledged: the sync of OSS {osses:?} failed after its bytes went out, and recording that OSS failed did not succeed ({e}); reopen the store (it recovers). The sync errors: {}",
                names.join("; ")
            )),
        }
    }

    /// Execute one plan's steps on real bytes: every read first, then the writes in waves by
    /// dependency depth, stopping at the first error.
    ///
    /// Why reads first: a write that returns an error must leave the file as it was (issue
    /// #4 F4). A read that fails (bytes lost beyond the code's tolerance) would otherwise
    /// leave the writes that do not depend on it (a reconstruct-write's data, a full
    /// element) already on disk. The planner's reads depend on nothing, so running them all
    /// before the first write changes no order the plan asks for.
    /// `began_writing`: set before the plan's first write that may change what an OSS holds
    /// (a lost-row reset that failed, the first wave of its own writes). Left `false` on an
    /// error, the plan changed nothing (edge-block heals write back confirmed true bytes, or
    /// zeros where nothing live is: no change of any byte read).
    /// `destage_lost`: where a destage records bytes lost, their ranges are added.
    pub(super) fn execute(
        &self,
        plan: &IoPlan,
        client: Option<(&ClientWrite, &[u8])>,
        began_writing: &mut bool,
        destage_lost: &mut Vec<LostRange>,
    ) -> Result<(), StoreError> {
        // The steps of one wave (no path between them, as the planner promises) run in
        // parallel, one thread per OSS, when they reach more than one OSS.
        let n = plan.steps.len();
        let mut depth = vec![0usize; n];
        for i in 0..n {
            depth[i] = plan.steps[i]
                .after
                .iter()
                .map(|&a| depth[a] + 1)
                .max()
                .unwrap_or(0);
        }
        let reads: Vec<usize> = (0..n).filter(|&i| plan.steps[i].op == Op::Read).collect();
        for &i in &reads {
            assert_eq!(
                depth[i], 0,
                "plan {}: read step {i} waits for another step; reads must run before any write",
                plan.id
            );
        }
        if let Err(e) = self.reset_lost_rows_written_whole(plan) {
            // It may have failed between its resets' writes: a row torn.
            *began_writing = true;
            return Err(e);
        }
        let mut read_bytes: Vec<Option<Vec<u8>>> = vec![None; n];
        let mut computed: Vec<Option<Vec<u8>>> = vec![None; plan.computes.len()];
        // Never an unverified old value of a cache stripe in a delta (review s13r R13-1).
        self.verify_cache_before_delta(plan)?;
        let lost = self.window_reads_lost(plan);
        let (edge_steps, move_edges) = self.read_move_edge_blocks(plan);
        // A move's read steps may number up to `WINDOW_RANGES_MAX` per kind (review r50c
        // LOW-2): the edge steps come in step order, so a binary search per read.
        debug_assert!(edge_steps.is_sorted());
        let reads: Vec<usize> = reads
            .into_iter()
            .filter(|i| edge_steps.binary_search(i).is_err())
            .collect();
        // Whole home data blocks s45c's witness check read verified (task s52e): the heal
        // below takes them instead of reading the same blocks a second time.
        let witness_blocks = Mutex::new(EdgeBlocks::new());
        let read = self.run_reads_computing(
            plan,
            &reads,
            client,
            &mut read_bytes,
            &mut computed,
            (&lost, &witness_blocks),
        );
        if let exaraid_plan::PlanCause::Destage { file, stripe } = plan.cause {
            // Never a stale cache element home as if right (review s11r R11-9); a block no
            // read could rebuild is decided as a settle decides it (s15j).
            destage_lost.extend(match read {
                Ok(()) => self.check_destage_reads(plan, (file, stripe), &mut read_bytes)?,
                Err(e) => self.destage_reads_by_check(plan, (file, stripe), &mut read_bytes, e)?,
            });
        } else {
            read?;
        }
        // With a failed OSS: its data that this plan's writes could make undecidable, made
        // durable first (see `copy_failed_columns`). After the reads, so that the plan's own
        // bytes bound for a failed OSS are known also when a read or a compute makes them
        // (a cut write's range then reads its new bytes, not lost), and so that an OSS a
        // read found down is copied too; before the first write (and the edge-block heal).
        self.copy_failed_columns(plan, client, &move_edges, &mut |source, len| {
            self.resolve(plan, source, len, client, &read_bytes, &mut computed)
        })?;
        let witness_blocks = witness_blocks.into_inner();
        // Bounded by the plan's read steps: at most two edge blocks per piece of a data read
        // step (review r52e LOW-5; each is one 4 KiB block held until the heal).
        let read_pieces: usize = (plan.steps.iter())
            .filter(|s| s.op == Op::Read && s.zone == PlanZone::Data)
            .map(|s| s.pieces.len())
            .sum();
        assert!(
            witness_blocks.len()
                <= super::home_witness::WITNESS_BLOCKS_PER_STEP_PIECE_MAX * read_pieces
        );
        let edge_old = self.heal_unread_edge_blocks(
            plan,
            &move_edges,
            &witness_blocks,
            &mut |source, len| self.resolve(plan, source, len, client, &read_bytes, &mut computed),
        )?;
        // An OSS that goes down under one of the writes below: what the plan holds of it in
        // memory is journaled before its failure goes on record (review E11 item 2).
        let copy_failing =
            |oss: usize| self.copy_columns_of_failing_oss(plan, client, &read_bytes, oss);
        let waves = depth.iter().copied().max().map_or(0, |d| d + 1);
        // The bytes of every wave's writes (sources are the reads, the client buffer or
        // parity computes over those), all known before the first write: every read ran
        // first. So a client plan journals the crcs of every wave's running parity before
        // its first write, and one fsync makes them durable with its data crcs (see
        // `sync_write_crcs_before_cache_writes`), not one per wave.
        let mut waves_bytes: Vec<(Vec<usize>, Vec<(usize, Vec<u8>)>)> = Vec::with_capacity(waves);
        for wave in 0..waves {
            let writes: Vec<usize> = (0..n)
                .filter(|&i| depth[i] == wave && plan.steps[i].op == Op::Write)
                .collect();
            let mut write_bytes: Vec<(usize, Vec<u8>)> = Vec::with_capacity(writes.len());
            for &i in &writes {
                let step = &plan.steps[i];
                let mut bytes = Vec::with_capacity(step.len_bytes as usize);
                for piece in &step.pieces {
                    let source = piece.source.expect("write pieces name their bytes");
                    self.resolve_into(
                        &mut bytes,
                        plan,
                        source,
                        piece.element.len_bytes,
                        client,
                        &read_bytes,
                        &mut computed,
                    )?;
                }
                assert_eq!(bytes.len() as u64, step.len_bytes);
                write_bytes.push((i, bytes));
            }
            waves_bytes.push((writes, write_bytes));
        }
        if client.is_some() {
            // The whole new crcs of the plan's edge blocks ride on its first parity crcs
            // record: the same append, made durable by the same sync below (s24a).
            let mut edges = self.edge_block_crcs(plan, &waves_bytes, &edge_old);
            let mut page_cuts = self.page_cut_crcs(plan, &waves_bytes, &edge_old, &read_bytes);
            for (_, write_bytes) in &waves_bytes {
                self.journal_parity_crcs(
                    plan,
                    write_bytes,
                    &read_bytes,
                    &mut edges,
                    &mut page_cuts,
                )?;
            }
        }
        if client.is_some() {
            let writes: Vec<usize> = waves_bytes.iter().flat_map(|(w, _)| w).copied().collect();
            self.sync_write_crcs_before_cache_writes(plan, &writes)?;
            self.sync_input_before_home_writes(plan, &writes)?;
        }
        for (writes, write_bytes) in waves_bytes {
            if client.is_some() {
                self.journal_window_block_crcs(plan, &write_bytes)?;
            }
            self.journal_end_parity_crcs(plan, &write_bytes)?;
            self.journal_move_home_crcs(plan, &write_bytes, &move_edges)?;
            *began_writing |= !writes.is_empty();
            let refused = Mutex::new(Vec::new());
            let wave = self.run_steps(
                plan,
                &writes,
                &write_bytes,
                &copy_failing,
                (&LostReads::new(), &Mutex::new(EdgeBlocks::new())),
                &refused,
            );
            if let Err(e) = wave {
                let refused = refused.into_inner();
                self.journal_refused_blocks(plan, &write_bytes, &read_bytes, &edge_old, refused);
                return Err(e);
            }
            crate::torture::write_wave_done();
        }
        Ok(())
    }

    /// A client plan's home data writes refused on blocks that failed their checksum
    /// (`refused`: write step, key, block of the key's element, as `run_steps` met them):
    /// journaled, synced, as `Rec::RefusedBlocks` with each block's change (see
    /// `RefusedBlock::delta`) where a read step of the plan read the old bytes the write
    /// overwrites in it (verified, before the rot). The backend verifies a partial block
    /// before it writes any byte of that call, so nothing of these blocks changed. Best
    /// effort: the plan's own error is what the caller hears; without the record recovery
    /// decides the block as before.
    fn journal_refused_blocks(
        &self,
        plan: &IoPlan,
        write_bytes: &[(usize, Vec<u8>)],
        read_bytes: &[Option<Vec<u8>>],
        edge_old: &EdgeBlocks,
        refused: Vec<(usize, ElementKey, usize)>,
    ) {
        if !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. }) {
            return;
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        let mut blocks = Vec::new();
        let mut file = None;
        for (i, key, b) in refused {
            let step = &plan.steps[i];
            if step.zone != PlanZone::Data || step.is_parity() || key.zone != Zone::Data {
                continue;
            }
            // The block's addresses, and the part of them the step writes.
            let at = key.slot * e + b as u64 * block;
            let (a, z) = (
                at.max(step.addr_bytes),
                (at + block).min(step.addr_bytes + step.len_bytes),
            );
            if a >= z {
                continue;
            }
            // Its element, from the step's pieces (back to back from the step's address).
            let mut piece_at = step.addr_bytes;
            let mut element = None;
            for piece in &step.pieces {
                let x = &piece.element;
                if piece_at <= a && a < piece_at + x.len_bytes {
                    element = Some((x.stripe, x.pos, x.offset_bytes + (a - piece_at)));
                }
                piece_at += x.len_bytes;
            }
            let Some((stripe, pos, offset_bytes)) = element else {
                continue;
            };
            if offset_bytes / block != b as u64 {
                continue; // not the block the step's pieces say: record nothing of it
            }
            let Some((_, new)) = write_bytes.iter().find(|(w, _)| *w == i) else {
                continue;
            };
            let new = &new[(a - step.addr_bytes) as usize..(z - step.addr_bytes) as usize];
            let old = plan.steps.iter().enumerate().find_map(|(r, s)| {
                let covers = s.op == Op::Read
                    && s.oss == step.oss
                    && s.zone == step.zone
                    && s.file == step.file
                    && s.addr_bytes <= a
                    && z <= s.addr_bytes + s.len_bytes;
                let bytes = read_bytes.get(r)?.as_ref().filter(|_| covers)?;
                Some(&bytes[(a - s.addr_bytes) as usize..(z - s.addr_bytes) as usize])
            });
            let old = old.or_else(|| {
                let whole = edge_old.get(&(step.oss, key, b))?;
                Some(&whole[(a - at) as usize..(z - at) as usize])
            });
            let delta = old.map(|old| {
                let mut d = vec![0u8; block as usize];
                let skip = (a - at) as usize;
                for (j, (o, n)) in old.iter().zip(new).enumerate() {
                    d[skip + j] = o ^ n;
                }
                d
            });
            file = Some(step.file);
            blocks.push(crate::state::RefusedBlock {
                stripe,
                row: pos.row,
                col: pos.col,
                block: b as u64,
                delta,
            });
        }
        let Some(file) = file else {
            return;
        };
        let rec = Rec::RefusedBlocks(crate::state::RefusedBlocks {
            plan: plan.id,
            file,
            blocks,
        });
        let mut core = self.core.lock();
        if let Err(e) = self.journal(&mut core, rec, true) {
            eprintln!("exaraid: warning: the blocks plan {} was refused on were not journaled ({e}); the next open decides them as a cut write's", plan.id);
        }
    }

    /// Before a client plan's first write (`write_bytes`: one wave's steps and their bytes):
    /// the crcs of that wave's running parity writes (`Rec::WriteParityCrcs`), where its
    /// write journaled its data crcs (`write_crcs_journaled`); appended unsynced, made
    /// durable before the first write on one-row codes (`sync_write_crcs_before_cache_
    /// writes`). A kill keeps the append, as it keeps any write that returned. Why: a write cut between its block writes leaves data and
    /// running parity of different versions, and recovery tells each parity block's
    /// version by these crcs (`confirm_by_versions`).
    /// On a store that journals its home writes' data crcs with their input
    /// (`home_parity_crcs_journaled`), the same record holds the crcs of the home parity a
    /// client plan writes (s22b, review s21r R21-2): with both, recovery tells every block of
    /// a cut read-modify-write old or new, and a plan with none on record wrote nothing
    /// (every wave's record precedes the plan's first write), so a column whose disk died
    /// since decodes from the columns of one version (`confirm_by_one_version`).
    /// `edges` (`edge_block_crcs`): taken into the first record this journals.
    fn journal_parity_crcs(
        &self,
        plan: &IoPlan,
        write_bytes: &[(usize, Vec<u8>)],
        read_bytes: &[Option<Vec<u8>>],
        edges: &mut Vec<crate::state::EdgeBlockCrc>,
        page_cuts: &mut Vec<crate::state::WindowPageCutCrcs>,
    ) -> Result<(), StoreError> {
        let zone = if self.write_crcs_journaled(crate::state::WriteCrcsJournaled::DataAndParity) {
            PlanZone::Cache
        } else if self.home_parity_crcs_journaled()
            && matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
        {
            PlanZone::Parity
        } else if self.home_edge_crcs_journaled()
            && matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
        {
            // Single parity (s25b): no parity crcs (recovery reads none there), the edge
            // blocks' whole crcs alone, in the first record as elsewhere.
            return self.journal_edge_crcs_alone(plan, edges, page_cuts);
        } else {
            return Ok(());
        };
        let mut pieces = Vec::new();
        let mut file = None;
        let e = self.sb.element_bytes as u64;
        for (i, bytes) in write_bytes {
            let step = &plan.steps[*i];
            if step.op != Op::Write || step.zone != zone || !step.is_parity() {
                continue;
            }
            let mut at = 0usize;
            for piece in &step.pieces {
                let x = &piece.element;
                let len = x.len_bytes as usize;
                let at_pos = (x.stripe, x.pos.row, x.pos.col);
                let new = &bytes[at..at + len];
                let addr = step.addr_bytes + at as u64;
                assert_eq!(
                    addr % e,
                    x.offset_bytes,
                    "a piece sits at its element offset"
                );
                let slot = self.key(step.zone, step.file, addr).slot;
                // Only the cache zone's running parity is checked by them
                // (`live_pieces_refute`); a home read-modify-write would journal them for
                // nothing (review r42a LOW-1).
                let base = match zone {
                    PlanZone::Cache => Self::parity_base_read(plan, piece.source, read_bytes),
                    _ => None,
                };
                pieces.push(match base {
                    // With the old bytes per side of each page boundary inside the piece
                    // (s49a): a power cut may keep one of the two pages and drop the other.
                    Some(base) => crate::state::ParityPieceCrcs::of_with_old(
                        at_pos,
                        x.offset_bytes,
                        new,
                        &base[..len],
                    )
                    .with_old_page_sides(&base[..len], |b| {
                        crate::backend::page_cut_in_block(e as usize, slot, b as usize)
                    })
                    // And the new bytes per side (s52c): a cut that keeps one page and
                    // drops the other leaves the piece new on that side only.
                    .with_new_page_sides(new, |b| {
                        crate::backend::page_cut_in_block(e as usize, slot, b as usize)
                    }),
                    None => crate::state::ParityPieceCrcs::of(at_pos, x.offset_bytes, new),
                });
                at += len;
            }
            assert_eq!(at, bytes.len(), "a step's pieces lie back to back");
            file = Some(step.file);
        }
        let Some(file) = file else {
            return Ok(()); // no running parity in this wave
        };
        let g = self.layout.geometry();
        assert!(pieces.len() <= plan.steps.len() * g.cols * g.rows);
        self.journal_write_parity_crcs(plan, file, pieces, edges, page_cuts)
    }

    /// The running parity bytes a parity write piece (`source`) laid its delta over, as
    /// read (`ParityCompute::base`), from the piece's first byte on: `None` where the base
    /// is not a read (zeros: offsets no running parity byte was live at; a full encode).
    /// Journaled as `ParityPieceCrcs::old_block_crcs`.
    fn parity_base_read<'r>(
        plan: &IoPlan,
        source: Option<Bytes>,
        read_bytes: &'r [Option<Vec<u8>>],
    ) -> Option<&'r [u8]> {
        let Some(Bytes::Computed {
            compute,
            offset_bytes,
        }) = source
        else {
            return None;
        };
        let Bytes::Read {
            step,
            offset_bytes: base_at,
        } = plan.computes[compute].base
        else {
            return None;
        };
        let read = read_bytes[step]
            .as_ref()
            .expect("a parity compute's base is read before the plan's writes");
        Some(&read[(base_at + offset_bytes) as usize..])
    }

    /// Append (unsynced) one `Rec::WriteParityCrcs` of client plan `plan` on `file`, taking
    /// the edge block and page-cut crcs gathered for it. The one place that builds this
    /// record, so the parity crcs and the single-parity edge crcs cannot drift apart.
    fn journal_write_parity_crcs(
        &self,
        plan: &IoPlan,
        file: u64,
        pieces: Vec<crate::state::ParityPieceCrcs>,
        edges: &mut Vec<crate::state::EdgeBlockCrc>,
        page_cuts: &mut Vec<crate::state::WindowPageCutCrcs>,
    ) -> Result<(), StoreError> {
        let rec = Rec::WriteParityCrcs(crate::state::WriteParityCrcs {
            plan: plan.id,
            file,
            pieces,
            edge_blocks: std::mem::take(edges),
            page_cuts: std::mem::take(page_cuts),
        });
        let mut core = self.core.lock();
        self.journal(&mut core, rec, false)
    }

    /// A client plan's whole new edge block crcs (`edges`, `edge_block_crcs`) where no
    /// parity crcs are journaled (`home_edge_crcs_journaled` without
    /// `home_parity_crcs_journaled`: single parity, s25b; array codes, s27b): one `Rec::WriteParityCrcs` with
    /// no pieces, appended unsynced before the plan's first write and made durable by the
    /// input's sync (`sync_input_before_home_writes`), as on codes of two or more parities.
    /// Nothing when there is no edge block (a write of whole blocks).
    fn journal_edge_crcs_alone(
        &self,
        plan: &IoPlan,
        edges: &mut Vec<crate::state::EdgeBlockCrc>,
        page_cuts: &mut Vec<crate::state::WindowPageCutCrcs>,
    ) -> Result<(), StoreError> {
        if edges.is_empty() && page_cuts.is_empty() {
            return Ok(());
        }
        let file = (plan.steps.iter())
            .find(|s| s.op == Op::Write && s.zone == PlanZone::Data && !s.is_parity())
            .map(|s| s.file)
            .expect("edge blocks come from the plan's home data writes");
        let g = self.layout.geometry();
        assert!(edges.len() <= plan.steps.len() * g.rows * g.cols * 2);
        self.journal_write_parity_crcs(plan, file, Vec::new(), edges, page_cuts)
    }

    /// The zone whose data blocks a client write `plan` journals whole-block and page-cut
    /// crcs for (`edge_block_crcs`, `page_cut_crcs`): home where home edge crcs are journaled
    /// (non-WCL), the cache zone where cache edge crcs are (WCL); none for other plans (a
    /// destage, a move home: recovery redoes those from the cache zone).
    fn client_block_crcs_zone(&self, plan: &IoPlan) -> Option<PlanZone> {
        if !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. }) {
            return None;
        }
        if self.home_edge_crcs_journaled() {
            Some(PlanZone::Data)
        } else if self.cache_edge_crcs_journaled() {
            Some(PlanZone::Cache)
        } else {
            None
        }
    }

    /// The crc32c of every home data block a client plan writes in part, as a whole after
    /// the write: its old bytes as read before the plan's first write (`edge_old`, which
    /// `heal_unread_edge_blocks` fills for every such block where these are journaled) with
    /// the plan's bytes laid over (`waves_bytes`). Why (s24a, review s23r R23-3): the
    /// write's own crcs cover only its part of the block, and a crash that tore the block
    /// (its new payload under its old checksum) after other data columns of the write landed
    /// and before its parity leaves no k columns of one version to decode the rest by: s22g
    /// then recorded the acknowledged bytes beside the write lost. With this crc on record
    /// recovery proves the torn block new as a whole, and rot anywhere in it still fails the
    /// proof (review s22r R22-1). Only where home data crcs are journaled
    /// (`home_edge_crcs_journaled`: non-WCL; on single parity since s25b and on array codes
    /// since s27b, in a record of their own, `journal_edge_crcs_alone`); a block whose old bytes
    /// were not read (a slot not written yet, an OSS down) gets none, as before s24a.
    /// On a WCL store the same for the cache data edge blocks, on every code since s25a
    /// (`cache_edge_crcs_journaled`, s24d, review s24r R24-1, R24-3): the block's acknowledged
    /// bytes beside the write's part are copied with it, and a block that fails its
    /// checksum after a crash is kept whole only where it matches this crc or a proof.
    fn edge_block_crcs(
        &self,
        plan: &IoPlan,
        waves_bytes: &[WaveBytes],
        edge_old: &EdgeBlocks,
    ) -> Vec<crate::state::EdgeBlockCrc> {
        let Some(zone) = self.client_block_crcs_zone(plan) else {
            return Vec::new();
        };
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        let mut out = Vec::new();
        for (step, el, addr, piece_bytes) in written_data_pieces(plan, waves_bytes, zone, e) {
            let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
            for first in partial_edge_blocks(a, z, block) {
                let block_addr = addr - el.offset_bytes + first;
                let key = self.key(step.zone, step.file, block_addr);
                let Some(old) = edge_old.get(&(step.oss, key, (first / block) as usize)) else {
                    continue;
                };
                assert_eq!(old.len() as u64, block);
                let whole = block_after_piece(old, first, (a, z), piece_bytes);
                out.push(crate::state::EdgeBlockCrc {
                    stripe: el.stripe,
                    row: el.pos.row,
                    col: el.pos.col,
                    block: first / block,
                    crc: crc32c::crc32c(&whole),
                });
            }
        }
        out
    }

    /// The page-cut crcs (`WriteParityCrcs::page_cuts`, s26a) of every home data block a
    /// client plan writes, whole or in part, that a page boundary of its zone file cuts
    /// (`backend::page_cut_in_block`: every block of a slot but slot 0's, slots carrying
    /// their checksum areas): the crc32c of the block's head (before the boundary) after
    /// the write and of its tail before it. The old bytes come from `edge_old` (edge
    /// blocks, read whole already), else a read step of the plan that covers the block
    /// whole (a read-modify-write reads the old bytes it overwrites), else one read per
    /// piece (a reconstruct write: the blocks' old bytes were not read); a slot not written
    /// yet is zeros. A block whose old bytes cannot be read gets none (recovery then decides
    /// it as before). Where home edge crcs are journaled (`home_edge_crcs_journaled`:
    /// non-WCL, single parity since s25b, array codes since s27b), client writes only.
    /// On a WCL store the same for the cache data blocks a client write writes, on every
    /// code (`cache_edge_crcs_journaled`, s27c; no read more where the plan reads no cache,
    /// a write into a fresh cache stripe): a kill that stopped a cache block's pwrite
    /// at its page boundary left a block matching neither the write's crcs nor its
    /// checksum, which recovery took for rot beside the cut write and, with the write's
    /// other columns in flight, recorded its acknowledged bytes LOST (s26e's page-cut test).
    fn page_cut_crcs(
        &self,
        plan: &IoPlan,
        waves_bytes: &[WaveBytes],
        edge_old: &EdgeBlocks,
        read_bytes: &[Option<Vec<u8>>],
    ) -> Vec<crate::state::WindowPageCutCrcs> {
        let Some(zone) = self.client_block_crcs_zone(plan) else {
            return Vec::new();
        };
        assert_eq!(read_bytes.len(), plan.steps.len());
        let plan_reads_cache =
            (plan.steps.iter()).any(|s| s.op == Op::Read && s.zone == PlanZone::Cache);
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        let mut out = Vec::new();
        for (step, el, addr, piece_bytes) in written_data_pieces(plan, waves_bytes, zone, e) {
            let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
            let element_addr = addr - el.offset_bytes;
            let (b0, b1) = (a / block, z.div_ceil(block));
            // The piece's blocks' old bytes in one read, made only where some block
            // needs it (nothing else holds its old bytes).
            let mut piece_old: Option<Option<Vec<u8>>> = None;
            for b in b0..b1 {
                let first = b * block;
                let key = self.key(step.zone, step.file, element_addr + first);
                let Some(cut_at) =
                    crate::backend::page_cut_in_block(e as usize, key.slot, b as usize)
                else {
                    continue;
                };
                let from_reads = || {
                    (plan.steps.iter().enumerate()).find_map(|(r, s)| {
                        let covers = s.op == Op::Read
                            && (s.oss, s.zone, s.file) == (step.oss, step.zone, step.file)
                            && s.addr_bytes <= element_addr + first
                            && element_addr + first + block <= s.addr_bytes + s.len_bytes;
                        let got = read_bytes[r].as_ref().filter(|_| covers)?;
                        let x = (element_addr + first - s.addr_bytes) as usize;
                        (got.len() as u64 == s.len_bytes)
                            .then(|| got[x..x + block as usize].to_vec())
                    })
                };
                let old = match edge_old.get(&(step.oss, key, b as usize)) {
                    Some(old) => Some(old.clone()),
                    // No read more for a cache block of a plan that reads no cache
                    // (s27c): a WCL write into a fresh cache stripe, whose old bytes are
                    // nobody's (recovery keeps such a block as it stands anyway); it read
                    // nothing before, and tests hold the first cache read to stage races.
                    None if zone == PlanZone::Cache && !plan_reads_cache => from_reads(),
                    None => from_reads().or_else(|| {
                        let whole = piece_old.get_or_insert_with(|| {
                            let mut buf = vec![0u8; ((b1 - b0) * block) as usize];
                            let k = self.key(step.zone, step.file, element_addr + b0 * block);
                            let at = (b0 * block) as usize;
                            match self.read_unplanned(Unplanned::PageCut, step.oss, k, at, &mut buf)
                            {
                                Ok(()) => Some(buf),
                                Err(err) if err.is_missing() => Some(buf), // zeros
                                Err(_) => None,
                            }
                        });
                        let x = ((b - b0) * block) as usize;
                        whole.as_ref().map(|w| w[x..x + block as usize].to_vec())
                    }),
                };
                let Some(old) = old else {
                    continue; // unknown: no crc, recovery proves nothing by it
                };
                assert_eq!(old.len() as u64, block);
                let new = block_after_piece(&old, first, (a, z), piece_bytes);
                out.push(crate::state::WindowPageCutCrcs {
                    stripe: el.stripe,
                    row: el.pos.row,
                    col: el.pos.col,
                    block: b,
                    cut_at_bytes: cut_at as u32,
                    new_head_crc: crc32c::crc32c(&new[..cut_at]),
                    old_tail_crc: crc32c::crc32c(&old[cut_at..]),
                    // The other two halves (s44d): a power cut writing pages back out of
                    // order may keep the tail's page and drop the head's.
                    old_head_crc: Some(crc32c::crc32c(&old[..cut_at])),
                    new_tail_crc: Some(crc32c::crc32c(&new[cut_at..])),
                });
            }
        }
        let g = self.layout.geometry();
        assert!(
            out.len() as u64 <= plan.steps.len() as u64 * (g.rows * g.cols) as u64 * (e / block)
        );
        out
    }

    /// Before a WCL client plan's cache writes (`writes`: this wave's steps) on a one-row
    /// code: the write's crcs (`Rec::WriteCrcs`, appended with its input, and this wave's
    /// `Rec::WriteParityCrcs`) made durable by a group-commit fsync of the journal. Why
    /// (OPEN 4 of session 20, s20a's cost): a power cut keeps any prefix of the unsynced
    /// journal and, per OSS, its writes or not. One that kept the write's data block and
    /// dropped its running parity (a write hole) and dropped the crcs too left raid5 unable
    /// to tell the hole from a stale element, so recovery recorded the row's acknowledged
    /// cached bytes at the write's offsets LOST (`stale_beside_cut`). Synced first, every
    /// power cut that changed a block of the write leaves its crcs, which tell each block's
    /// version; one before this fsync changed no block, and the row as it stood fits. Cost:
    /// one fsync per write more (shared by writes running together; docs/results/
    /// s21d-wcl-crcs-fsync.md). On array codes too since session 24 (s24b), for the input
    /// (recovery reads no crcs for their rows: they serve `cut_durable`): a power cut that
    /// dropped it and kept part of the cache writes left a stale element with nothing on
    /// record, so the settle could not take a block row at full tolerance home unchecked
    /// and recorded its acknowledged cached bytes LOST (`read_and_check_cache_stripe`).
    fn sync_write_crcs_before_cache_writes(
        &self,
        plan: &IoPlan,
        writes: &[usize],
    ) -> Result<(), StoreError> {
        if !self.fsync || !self.write_crcs_journaled(crate::state::WriteCrcsJournaled::Data) {
            return Ok(());
        }
        let writes_cache = writes
            .iter()
            .any(|&i| plan.steps[i].op == Op::Write && plan.steps[i].zone == PlanZone::Cache);
        if !writes_cache {
            return Ok(());
        }
        // Every record this thread appended before (the crcs among them) is at or below it.
        let appended_seq = self.journal_appended_seq.load(Ordering::SeqCst);
        self.sync_journal_through(appended_seq)
    }

    /// Before the first home write of a client plan on a store that writes home in place
    /// (rmw; delayed outside a window): its input (`Rec::Input`, and `Rec::WriteCrcs` where
    /// journaled) made durable by a group-commit fsync of the journal (shared by writes
    /// running together). Why (s22f): a power cut keeps any prefix of the unsynced journal
    /// and, per OSS, its writes or not. One that dropped the input and kept some OSS's
    /// blocks of the write left data and parity of different versions with nothing on
    /// record: recovery settled nothing there, and after one more failure a degraded read
    /// decoded a neighbour's acknowledged bytes through the mismatch (raid5: wrong bytes
    /// with success; raid6 and rs: refused, no loss on record). Durable first, every cut
    /// that changed a block leaves the write in flight, and recovery settles its stripes.
    /// Not for a put's staging file (`NAME\0put`): the open drops it unless its rename,
    /// journaled after its plans' `Durable` records, was kept.
    fn sync_input_before_home_writes(
        &self,
        plan: &IoPlan,
        writes: &[usize],
    ) -> Result<(), StoreError> {
        if !self.fsync || self.kind == StrategyKind::Wcl {
            return Ok(()); // WCL client writes go to the cache zone (`sync_write_crcs_...`)
        }
        let Some(file) = writes
            .iter()
            .map(|&i| &plan.steps[i])
            .find(|s| s.op == Op::Write && s.zone != PlanZone::Cache)
            .map(|s| s.file)
        else {
            return Ok(());
        };
        let staging = (self.core.lock().state.file_by_id(file))
            .is_some_and(|(name, _)| name.ends_with("\0put"));
        if staging {
            return Ok(());
        }
        // Every record this thread appended before (the input among them) is at or below it.
        let appended_seq = self.journal_appended_seq.load(Ordering::SeqCst);
        self.sync_journal_through(appended_seq)
    }

    /// Before a delayed window client plan's cache writes (`write_bytes`: this wave's steps
    /// and their bytes): the crc32c of every whole 4 KiB block they write, as it will be
    /// after the write, journaled unsynced (`Rec::WindowBlockCrcs`). A partial block's other
    /// bytes are read (verified) from the disk, as the backend's merge reads them (and its
    /// sectors' crcs before and after the write journaled: a power cut may tear it); one that
    /// does not verify gets no crc (the write then fails on it, before it changes it). Why:
    /// a window block has no parity, and recovery must tell a torn block of a cut write
    /// whose new payload landed (keep it) from one holding bit rot of the block before
    /// (never reseal it: its acknowledged bytes are lost, on record).
    fn journal_window_block_crcs(
        &self,
        plan: &IoPlan,
        write_bytes: &[(usize, Vec<u8>)],
    ) -> Result<(), StoreError> {
        if self.kind != StrategyKind::Delayed {
            return Ok(());
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        // Per element block `(stripe, row, col, block)`: where it is and the pieces laid in.
        type Laid = (usize, u64, Vec<(u64, Vec<u8>)>);
        let mut blocks: BTreeMap<(u64, usize, usize, u64), Laid> = BTreeMap::new();
        let mut file = None;
        for (i, bytes) in write_bytes {
            let step = &plan.steps[*i];
            if step.op != Op::Write || step.zone != PlanZone::Cache || step.is_parity() {
                continue;
            }
            file = Some(step.file);
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
                assert!(z <= e, "a piece within one element");
                let element_addr = step.addr_bytes + at - el.offset_bytes;
                for b in a / block..z.div_ceil(block) {
                    let (p, q) = (a.max(b * block), z.min((b + 1) * block));
                    let from = (at + p - a) as usize..(at + q - a) as usize;
                    let laid = blocks
                        .entry((el.stripe, el.pos.row, el.pos.col, b))
                        .or_insert_with(|| (step.oss, element_addr, Vec::new()));
                    laid.2.push((p - b * block, bytes[from].to_vec()));
                }
                at += el.len_bytes;
            }
            assert_eq!(at, bytes.len() as u64, "a step's pieces lie back to back");
        }
        let Some(file) = file else {
            return Ok(()); // no window bytes in this wave
        };
        let mut old_blocks = self.window_old_blocks(file, &blocks);
        let mut pieces: Vec<crate::state::WindowPieceCrcs> = Vec::new();
        let mut edges: Vec<crate::state::WindowEdgeCrcs> = Vec::new();
        let mut page_cuts: Vec<crate::state::WindowPageCutCrcs> = Vec::new();
        for ((stripe, row, col, b), (oss, element_addr, laid)) in blocks {
            let covered: u64 = laid.iter().map(|(_, x)| x.len() as u64).sum();
            let mut whole = vec![0u8; block as usize];
            let mut old_sector_crcs = None;
            let key = self.key(PlanZone::Cache, file, element_addr + b * block);
            let cut_at = crate::backend::page_cut_in_block(e as usize, key.slot, b as usize);
            // A whole block's bytes before the write are read only for its page cut's crc.
            let mut old_tail_crc = None;
            if covered < block || cut_at.is_some() {
                let read_before = old_blocks.remove(&(stripe, row, col, b));
                let old = match read_before {
                    Some(bytes) => {
                        whole.copy_from_slice(&bytes);
                        Ok(())
                    }
                    None => {
                        let at = (b * block) as usize;
                        self.read_unplanned(Unplanned::WindowOld, oss, key, at, &mut whole)
                    }
                };
                let old_known = match old {
                    Ok(()) => true,
                    Err(err) if err.is_missing() => true, // the write creates it: zeros
                    Err(_) if covered < block => continue, // unknown: no crc, recovery proves nothing by it
                    Err(_) => false, // a whole block: its crc below, no page cut's
                };
                if !old_known {
                    whole.fill(0);
                } else if covered < block {
                    old_sector_crcs = Some(crate::state::sector_crcs(&whole));
                }
                if old_known {
                    old_tail_crc = cut_at.map(|at| crc32c::crc32c(&whole[at..]));
                }
            }
            for (o, x) in &laid {
                whole[*o as usize..*o as usize + x.len()].copy_from_slice(x);
            }
            if let (Some(at), Some(old_tail_crc)) = (cut_at, old_tail_crc) {
                page_cuts.push(crate::state::WindowPageCutCrcs {
                    stripe,
                    row,
                    col,
                    block: b,
                    cut_at_bytes: at as u32,
                    new_head_crc: crc32c::crc32c(&whole[..at]),
                    old_tail_crc,
                    // A delayed window's blocks: recovery's window rules read only the
                    // two crcs above (s44d's halves are a client write's, `page_cut_crcs`).
                    old_head_crc: None,
                    new_tail_crc: None,
                });
            }
            if let Some(old_sector_crcs) = old_sector_crcs {
                edges.push(crate::state::WindowEdgeCrcs {
                    stripe,
                    row,
                    col,
                    block: b,
                    old_sector_crcs,
                    new_sector_crcs: crate::state::sector_crcs(&whole),
                });
            }
            let crc = crc32c::crc32c(&whole);
            match pieces.last_mut() {
                Some(p)
                    if (p.stripe, p.row, p.col) == (stripe, row, col)
                        && p.first_block + p.block_crcs.len() as u64 == b =>
                {
                    p.block_crcs.push(crc)
                }
                _ => pieces.push(crate::state::WindowPieceCrcs {
                    stripe,
                    row,
                    col,
                    first_block: b,
                    block_crcs: vec![crc],
                }),
            }
        }
        let rec = Rec::WindowBlockCrcs(crate::state::WindowBlockCrcs {
            plan: plan.id,
            file,
            pieces,
            edges,
            page_cuts,
        });
        let mut core = self.core.lock();
        self.journal(&mut core, rec, false)
    }

    /// The bytes before the write of the blocks `journal_window_block_crcs` reads (a partial
    /// block, or one with a page boundary inside: nearly every block, zone slots being
    /// 4096 + 4 bytes per block), one verified read per run of adjacent such blocks of an
    /// element instead of one per block (task s13c: a 128 KiB window write made 32 reads of
    /// three syscalls each). A run that does not read whole and verified is left out: its
    /// blocks are read one by one there, as before, each deciding for itself.
    #[allow(clippy::type_complexity)]
    fn window_old_blocks(
        &self,
        file: u64,
        blocks: &BTreeMap<(u64, usize, usize, u64), (usize, u64, Vec<(u64, Vec<u8>)>)>,
    ) -> BTreeMap<(u64, usize, usize, u64), Vec<u8>> {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        // Runs: (element (stripe, row, col), oss, element address, first block, blocks).
        let mut runs: Vec<((u64, usize, usize), usize, u64, u64, u64)> = Vec::new();
        for (&(stripe, row, col, b), (oss, element_addr, laid)) in blocks {
            let covered: u64 = laid.iter().map(|(_, x)| x.len() as u64).sum();
            let key = self.key(PlanZone::Cache, file, element_addr + b * block);
            let cut_at = crate::backend::page_cut_in_block(e as usize, key.slot, b as usize);
            if covered >= block && cut_at.is_none() {
                continue;
            }
            match runs.last_mut() {
                Some((el, o, addr, first, n))
                    if *el == (stripe, row, col)
                        && (*o, *addr) == (*oss, *element_addr)
                        && *first + *n == b =>
                {
                    *n += 1
                }
                _ => runs.push(((stripe, row, col), *oss, *element_addr, b, 1)),
            }
        }
        let mut out = BTreeMap::new();
        for ((stripe, row, col), oss, element_addr, first, n) in runs {
            if n < 2 {
                continue; // one block: read where it is used
            }
            assert!((first + n) * block <= e, "a run within one element");
            let key = self.key(PlanZone::Cache, file, element_addr + first * block);
            let mut bytes = vec![0u8; (n * block) as usize];
            let at = (first * block) as usize;
            if (self.read_unplanned(Unplanned::WindowOld, oss, key, at, &mut bytes)).is_err() {
                continue;
            }
            for (i, old) in bytes.chunks_exact(block as usize).enumerate() {
                out.insert((stripe, row, col, first + i as u64), old.to_vec());
            }
        }
        out
    }

    /// A delayed window's move home (`PlanCause::WindowMove`): its plan reads each home
    /// block it writes only in part (`exaraid_plan::delayed::MOVE_EDGE_BLOCK_BYTES`), once,
    /// before any write. Executed here, not as the plan's other reads: verified, never
    /// rebuilt nor healed (between END and the move, home data and the END parity disagree
    /// where the window wrote, so a decode there would be wrong; a block that fails is
    /// healed by `heal_unread_edge_blocks` from the stripe with the moved bytes laid over,
    /// as before). Counted as the plan counts it, also on an OSS that is down (not read:
    /// `None`, as a write step to it is counted and skipped). The bytes serve every user of
    /// the block's old bytes: the edge-block copies (`copy_moved_edge_blocks`), the heal's
    /// check and `journal_move_home_crcs`, each of which read the block again before (task
    /// s50c: the first read was counted outside the plan, the others not at all). Returns
    /// the steps read this way (none for any other plan) and what each found.
    fn read_move_edge_blocks(&self, plan: &IoPlan) -> (Vec<usize>, MoveEdgeReads) {
        let mut steps = Vec::new();
        let mut out = MoveEdgeReads::new();
        if !move_edges_of(plan) {
            return (steps, out);
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        const _: () = assert!(
            exaraid_plan::delayed::MOVE_EDGE_BLOCK_BYTES == CHECKSUM_BLOCK_BYTES as u64,
            "the planner's edge block is the backend's checksum block"
        );
        for (i, step) in plan.steps.iter().enumerate() {
            if step.op != Op::Read || step.zone != PlanZone::Data {
                continue;
            }
            assert_eq!(
                step.pieces.len(),
                1,
                "plan {}: an edge read is one block",
                plan.id
            );
            let el = &step.pieces[0].element;
            assert!(
                el.offset_bytes % block == 0 && el.len_bytes == block,
                "plan {}: an edge read is one whole block",
                plan.id
            );
            steps.push(i);
            self.count(step.oss, Zone::Data, Op::Read, false);
            self.emulate_device(step.oss, Op::Read, step.len_bytes);
            let b = el.offset_bytes / block;
            let found = match self.home_key(step.file, el.stripe, el.pos) {
                Some((oss, key)) if self.backends[oss].healthy() => {
                    assert_eq!(oss, step.oss, "plan {}: the edge read's OSS", plan.id);
                    let mut bytes = vec![0u8; block as usize];
                    let r = self.read_retrying(oss, key, el.offset_bytes as usize, &mut bytes);
                    Some(r.map(|()| bytes))
                }
                _ => None,
            };
            let old = out.insert((step.file, el.stripe, el.pos, b), found);
            assert!(old.is_none(), "plan {}: one read per edge block", plan.id);
        }
        (steps, out)
    }

    /// Before a delayed window's move home writes home data (`write_bytes`: this wave's
    /// steps and their bytes): the crc32c of each partial 4 KiB block it writes, as the
    /// block will be after the write (its bytes on disk, as the plan's edge read found them
    /// verified, `move_edges`: a missing element is zeros, a block that did not read gets
    /// no crc; with the window's bytes laid in), journaled unsynced
    /// (`Rec::MoveHomeCrcs`; a kill keeps the append, as it keeps any write that returned).
    /// Why (S9-5, task s12u): a kill between such a block's payload and its checksum left
    /// its acknowledged home bytes beside the window unknown, and with a disk dead after
    /// the crash too few columns were left to decode them; recovery now takes the block's
    /// payload where its crc tells it is the new block (`known_by_move_home_crcs`). Whole
    /// blocks need none (the window's cached bytes cover them); a block that does not read
    /// verified gets none (recovery decides it as before: lost where it cannot tell).
    fn journal_move_home_crcs(
        &self,
        plan: &IoPlan,
        write_bytes: &[(usize, Vec<u8>)],
        move_edges: &MoveEdgeReads,
    ) -> Result<(), StoreError> {
        let move_home = matches!(plan.cause, exaraid_plan::PlanCause::WindowMove { .. });
        if self.kind != StrategyKind::Delayed || !move_home {
            return Ok(());
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        // Per home block `(stripe, row, col, block)`: the pieces laid in (offset, bytes).
        type Laid = Vec<(u64, Vec<u8>)>;
        let mut blocks: BTreeMap<(u64, usize, usize, u64), Laid> = BTreeMap::new();
        let mut file = None;
        for (i, bytes) in write_bytes {
            let step = &plan.steps[*i];
            if step.op != Op::Write || step.zone != PlanZone::Data {
                continue;
            }
            assert!(
                file.is_none_or(|f| f == step.file),
                "plan {}: a move home writes one file",
                plan.id
            );
            file = Some(step.file);
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
                assert!(z <= e, "a piece within one element");
                for b in a / block..z.div_ceil(block) {
                    let (p, q) = (a.max(b * block), z.min((b + 1) * block));
                    let from = (at + p - a) as usize..(at + q - a) as usize;
                    blocks
                        .entry((el.stripe, el.pos.row, el.pos.col, b))
                        .or_default()
                        .push((p - b * block, bytes[from].to_vec()));
                }
                at += el.len_bytes;
            }
            assert_eq!(at, bytes.len() as u64, "a step's pieces lie back to back");
        }
        let Some(file) = file else {
            return Ok(()); // no home data write in this wave
        };
        let mut pieces: Vec<crate::state::WindowPieceCrcs> = Vec::new();
        for ((stripe, row, col, b), laid) in blocks {
            let covered: u64 = laid.iter().map(|(_, x)| x.len() as u64).sum();
            if covered >= block {
                continue; // whole: the window's cached bytes tell it
            }
            let pos = Pos { row, col };
            let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                continue;
            };
            // The block as its plan's edge read found it (`read_move_edge_blocks`).
            let read = move_edges
                .get(&(file, stripe, pos, b))
                .unwrap_or_else(|| panic!("plan {}: the move reads every home block it writes in part (stripe {stripe} {pos:?} block {b})", plan.id));
            let mut whole = vec![0u8; block as usize];
            match read {
                Some(Ok(bytes)) => whole.copy_from_slice(bytes),
                Some(Err(err)) if err.is_missing() => whole.fill(0), // the write creates it
                // Rot (or an OSS that did not answer) at the edge read: the heal
                // (`heal_unread_edge_blocks`) has mended the block on disk since, so the
                // block is read again, as before session 50 (review r50c MEDIUM-1: without
                // it a healed edge block got no crc and recovery lost what it proved).
                // Uncounted like the heal's own reads: only where the edge read failed.
                Some(Err(_)) => {
                    let at = (b * block) as usize;
                    match self.read_unplanned(Unplanned::EdgeCheck, oss, key, at, &mut whole) {
                        Ok(()) => {}
                        Err(err) if err.is_missing() => whole.fill(0),
                        Err(_) => continue, // unknown: no crc, recovery proves nothing by it
                    }
                }
                None => continue, // the OSS is down: the move writes nothing there
            }
            for (o, x) in &laid {
                whole[*o as usize..*o as usize + x.len()].copy_from_slice(x);
            }
            pieces.push(crate::state::WindowPieceCrcs {
                stripe,
                row,
                col,
                first_block: b,
                block_crcs: vec![crc32c::crc32c(&whole)],
            });
        }
        if pieces.is_empty() {
            return Ok(());
        }
        let rec = Rec::MoveHomeCrcs(crate::state::WindowBlockCrcs {
            plan: plan.id,
            file,
            pieces,
            edges: Vec::new(),
            page_cuts: Vec::new(),
        });
        let mut core = self.core.lock();
        self.journal(&mut core, rec, false)
    }

    /// Before a delayed window's parity plan (END, or its timeout) writes home parity
    /// (`write_bytes`: this wave's steps and their bytes): their crcs per 4 KiB block,
    /// journaled and synced (`Rec::EndParityCrcs`). Why (review s9s S9-5): a kill amid them leaves each parity
    /// block old or new beside home data that is all old, and recovery decodes a column
    /// whose disk died after the crash from blocks of one version, each parity block told
    /// by these crcs (`decide_by_end_versions`). Bounded: a wave with more than
    /// `END_PARITY_CRCS_MAX` blocks journals an empty one (recovery then decides its stripes
    /// as without them: lost where it cannot tell, never wrong).
    fn journal_end_parity_crcs(
        &self,
        plan: &IoPlan,
        write_bytes: &[(usize, Vec<u8>)],
    ) -> Result<(), StoreError> {
        use exaraid_plan::PlanCause;
        let window_parity = matches!(
            plan.cause,
            PlanCause::WindowEnd { .. } | PlanCause::WindowTimeout { .. }
        );
        // Array codes hold several parity cells in one column and the crcs name columns:
        // only one-row geometries (every code but the array codes) journal them.
        let one_row = self.layout.geometry().rows == 1;
        if self.kind != StrategyKind::Delayed || !window_parity || !one_row {
            return Ok(());
        }
        let mut pieces = Vec::new();
        let mut file = None;
        let mut blocks = 0usize;
        for (i, bytes) in write_bytes {
            let step = &plan.steps[*i];
            if step.op != Op::Write || step.zone != PlanZone::Parity {
                continue;
            }
            // One crc per block of the step, not per piece: the step writes each block
            // once (new bytes, then checksum), so a block holds all of its part of the step
            // or none, and where the new bytes of a piece equal its old ones (a data change
            // that cancels in the parity) the step's crc still tells old from new.
            let first = &step
                .pieces
                .first()
                .expect("a write step has pieces")
                .element;
            let mut end = first.offset_bytes;
            for piece in &step.pieces {
                let x = &piece.element;
                assert!(
                    matches!(x.cell, Cell::Parity(_))
                        && (x.stripe, x.pos) == (first.stripe, first.pos)
                        && x.offset_bytes == end,
                    "plan {}: a parity step writes one run of one parity element",
                    plan.id
                );
                end += x.len_bytes;
            }
            assert_eq!(end - first.offset_bytes, bytes.len() as u64);
            let crcs = crate::state::ParityPieceCrcs::of(
                (first.stripe, first.pos.row, first.pos.col),
                first.offset_bytes,
                bytes,
            );
            blocks += crcs.block_crcs.len();
            pieces.push(crcs);
            assert!(
                file.is_none_or(|f| f == step.file),
                "plan {}: a window's parity plan writes one file",
                plan.id
            );
            file = Some(step.file);
        }
        let Some(file) = file else {
            return Ok(()); // no parity write in this wave
        };
        // END's plan and a timeout's (their inputs say so: `parity_crcs_synced` of
        // `Input::EndDelayed` and `Input::Tick`) sync the record before the wave's first
        // parity write, so that a power cut cannot keep a parity write and drop the record:
        // with none on record for the plan, recovery knows it wrote no parity (S9-5 left on
        // raid5, s13k; the timeout since session 15). A wave too large for crcs journals an
        // empty one, which says only "may have written".
        if blocks > END_PARITY_CRCS_MAX {
            pieces.clear();
        }
        let rec = Rec::EndParityCrcs(crate::state::WriteParityCrcs {
            plan: plan.id,
            file,
            pieces,
            edge_blocks: Vec::new(),
            page_cuts: Vec::new(),
        });
        let mut core = self.core.lock();
        self.journal(&mut core, rec, true)
    }

    /// Run the read steps `reads` of `plan` as `run_steps` does (one thread per OSS, the
    /// steps of one OSS in order, the error of the first failed step in plan order, no step
    /// started after a failure), filling `read_bytes`; meanwhile this thread computes every
    /// parity compute of the plan as soon as the reads it needs are in, into `computed`.
    /// Why: a plan with many stripes (a delayed window's END: every element of the window
    /// read, the parity of each stripe computed) spent its parity arithmetic after its last
    /// read, with the devices idle; now it overlaps the reads of the other stripes. No write
    /// starts before every read is done (see `execute`), and a compute is a pure function of
    /// bytes already read, so nothing else changes: a plan whose read fails has computed
    /// some parity for nothing.
    fn run_reads_computing(
        &self,
        plan: &IoPlan,
        reads: &[usize],
        client: Option<(&ClientWrite, &[u8])>,
        read_bytes: &mut [Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
        (lost, witness_blocks): (&LostReads, &Mutex<EdgeBlocks>),
    ) -> Result<(), StoreError> {
        assert_eq!(read_bytes.len(), plan.steps.len());
        assert_eq!(computed.len(), plan.computes.len());
        let mut per_oss: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in reads {
            assert_eq!(plan.steps[i].op, Op::Read);
            per_oss.entry(plan.steps[i].oss).or_default().push(i);
        }
        let in_plan_order = crate::torture::steps_in_plan_order(); // a kill test's choice
        if plan.computes.is_empty() || per_oss.len() <= 1 || in_plan_order {
            // Nothing to overlap (the computes run when the writes need them, as before).
            let nothing_to_copy = |_oss: usize| Ok(());
            let refused = Mutex::new(Vec::new());
            let reading = (lost, witness_blocks);
            for (i, bytes) in
                self.run_steps(plan, reads, &[], &nothing_to_copy, reading, &refused)?
            {
                read_bytes[i] = Some(bytes.expect("a read step returns its bytes"));
            }
            return Ok(());
        }
        let failed = AtomicBool::new(false);
        let (done_tx, done_rx) = std::sync::mpsc::channel::<(usize, Result<Vec<u8>, StoreError>)>();
        std::thread::scope(|s| {
            for mine in per_oss.into_values() {
                let (done_tx, failed) = (done_tx.clone(), &failed);
                s.spawn(move || {
                    for i in mine {
                        if failed.load(Ordering::SeqCst) {
                            break;
                        }
                        let r = self.read_plan_step(plan, i, lost, witness_blocks);
                        let bad = r.is_err();
                        if bad {
                            failed.store(true, Ordering::SeqCst);
                        }
                        // Fails only when the receiver gave up after an error: nothing to do.
                        let _ = done_tx.send((i, r));
                        if bad {
                            break;
                        }
                    }
                });
            }
            drop(done_tx);
            let mut first_error: Option<(usize, StoreError)> = None;
            let mut waiting: Vec<usize> = (0..plan.computes.len()).collect();
            for (i, r) in done_rx.iter() {
                match r {
                    Ok(bytes) => {
                        assert_eq!(bytes.len() as u64, plan.steps[i].len_bytes);
                        read_bytes[i] = Some(bytes);
                    }
                    Err(e) => {
                        if first_error.as_ref().map_or(true, |(j, _)| i < *j) {
                            first_error = Some((i, e));
                        }
                    }
                }
                if first_error.is_some() {
                    continue; // the plan fails: its parity is not needed
                }
                let mut still_waiting = Vec::with_capacity(waiting.len());
                for c in waiting {
                    if computed[c].is_some() {
                        continue;
                    }
                    if !compute_ready(plan, c, client.is_some(), read_bytes) {
                        still_waiting.push(c);
                        continue;
                    }
                    if let Err(e) = self.compute(plan, c, client, read_bytes, computed) {
                        failed.store(true, Ordering::SeqCst);
                        return Err(e);
                    }
                }
                waiting = still_waiting;
            }
            match first_error {
                Some((_, e)) => Err(e),
                None => Ok(()),
            }
        })
    }

    /// Run `steps` of `plan` (all of one direction), one thread per OSS when they reach more
    /// than one; the steps of one OSS run in order (two steps may share a checksum block of
    /// one element, and a device serves its queue anyway). Returns each step with its read
    /// bytes, or the error of the first step (in plan order) that failed; after a failure no
    /// step that has not started yet starts, on any OSS. `copy_failing` runs before a write
    /// step records its OSS failed (see `write_step`).
    fn run_steps(
        &self,
        plan: &IoPlan,
        steps: &[usize],
        write_bytes: &[(usize, Vec<u8>)],
        copy_failing: &(dyn Fn(usize) -> Result<(), StoreError> + Sync),
        (lost, witness_blocks): (&LostReads, &Mutex<EdgeBlocks>),
        refused: &Mutex<Vec<(usize, ElementKey, usize)>>,
    ) -> Result<StepOutputs, StoreError> {
        let run = |i: usize| -> Result<Option<Vec<u8>>, StoreError> {
            let step = &plan.steps[i];
            match step.op {
                Op::Read => self.read_plan_step(plan, i, lost, witness_blocks).map(Some),
                Op::Write => {
                    let (_, bytes) = write_bytes
                        .iter()
                        .find(|(w, _)| *w == i)
                        .expect("a write step's bytes are resolved before it runs");
                    let r = self.write_step(step, bytes, copy_failing).map(|_| None);
                    if let Err(StoreError::Backend(BackendError::Corrupt { key, block, .. })) = &r {
                        refused.lock().push((i, *key, *block));
                    }
                    r
                }
            }
        };
        let mut per_oss: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in steps {
            per_oss.entry(plan.steps[i].oss).or_default().push(i);
        }
        type StepResults = Vec<(usize, Result<Option<Vec<u8>>, StoreError>)>;
        // One at a time in plan order also when a kill test asks (deterministic kill points),
        // or in a seeded order when a test sweeps the threads' interleavings.
        let seed = crate::torture::step_order_seed();
        let one_thread =
            per_oss.len() <= 1 || crate::torture::steps_in_plan_order() || seed.is_some();
        let mut results: StepResults = if one_thread {
            let mut out: StepResults = Vec::with_capacity(steps.len());
            let mut order: Vec<usize> = steps.to_vec();
            if let Some(seed) = seed {
                // A test's seeded interleaving of the per-OSS threads (STEP_ORDER_SEED_ENV).
                let lists: Vec<&[usize]> = per_oss.values().map(Vec::as_slice).collect();
                order = crate::torture::steps_in_seeded_order(seed, &lists);
                assert_eq!(order.len(), steps.len());
            } else if crate::torture::steps_in_reversed_plan_order() {
                // The OSSs last to first, each OSS's steps in plan order.
                let mut oss_order: Vec<usize> = Vec::with_capacity(per_oss.len());
                for &i in steps {
                    if !oss_order.contains(&plan.steps[i].oss) {
                        oss_order.push(plan.steps[i].oss);
                    }
                }
                order = oss_order
                    .iter()
                    .rev()
                    .flat_map(|o| per_oss[o].clone())
                    .collect();
                assert_eq!(order.len(), steps.len());
            }
            for i in order {
                let r = run(i);
                let failed = r.is_err();
                out.push((i, r));
                if failed {
                    break;
                }
            }
            out
        } else {
            let failed = AtomicBool::new(false);
            std::thread::scope(|s| {
                let handles: Vec<_> = per_oss
                    .into_values()
                    .map(|mine| {
                        let (run, failed) = (&run, &failed);
                        s.spawn(move || {
                            let mut out: StepResults = Vec::with_capacity(mine.len());
                            for i in mine {
                                if failed.load(Ordering::SeqCst) {
                                    break;
                                }
                                let r = run(i);
                                let bad = r.is_err();
                                out.push((i, r));
                                if bad {
                                    failed.store(true, Ordering::SeqCst);
                                    break;
                                }
                            }
                            out
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("step thread"))
                    .collect()
            })
        };
        results.sort_by_key(|(i, _)| *i);
        results
            .into_iter()
            .map(|(i, r)| r.map(|b| (i, b)))
            .collect()
    }

    /// A client write that overwrites whole every unreadable data block of a home block row
    /// holding bytes lost on record (`Rec::Lost`: recovery marked the row's data and parity
    /// lost) could not run: its read-modify-write needs the old bytes and parity of that
    /// row, and they are the lost ones, so the documented way out, writing the lost bytes
    /// again, failed (review s5s S1). Those rows are first made whole as if the lost
    /// blocks held zeros: the row's parity computed from its other (readable) data and zeros
    /// there, written with the zeros where those blocks' OSSs are up. The plan then reads
    /// zeros and that parity, and replaces both: its new bytes and their true parity.
    /// The lost record stays until the write is durable (`Rec::Rewritten`), so the zeros
    /// are never read as the file's, also after a crash in between (recovery settles the
    /// row as any cut write's). Rows with a lost block the write does not cover whole, or
    /// whose readable blocks disagree with their parity, are left as they are (the write
    /// fails as before, naming them); a row with an unreadable block NOT lost on record that
    /// the write covers whole resets no row at all (the write fails at its reads, before
    /// any write: review s6s S6-1). Costs nothing while no byte of the file is lost.
    fn reset_lost_rows_written_whole(&self, plan: &IoPlan) -> Result<(), StoreError> {
        if !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. }) || self.tolerance() == 0 {
            return Ok(());
        }
        let block = CHECKSUM_BLOCK_BYTES;
        // The home data ranges the plan writes, per stripe and element.
        type Ranges = Vec<(u64, u64)>;
        let mut written: BTreeMap<(u64, u64), BTreeMap<Pos, Ranges>> = BTreeMap::new();
        let home_writes = plan
            .steps
            .iter()
            .filter(|s| s.op == Op::Write && s.zone == PlanZone::Data);
        for step in home_writes {
            for piece in step.pieces.iter().filter(|p| p.element.len_bytes > 0) {
                let el = &piece.element;
                let ranges = written
                    .entry((step.file, el.stripe))
                    .or_default()
                    .entry(el.pos)
                    .or_default();
                crate::state::add_range(ranges, el.offset_bytes, el.offset_bytes + el.len_bytes);
            }
        }
        let sdb = self.layout.stripe_data_bytes();
        let lost_stripes: BTreeSet<(u64, u64)> = self.with_core(None, |c| {
            written
                .keys()
                .copied()
                .filter(|&(file, stripe)| !c.state.lost_in(file, stripe * sdb, sdb).is_empty())
                .collect()
        });
        let g = self.layout.geometry();
        // Every row is judged before the first reset is written: a row that must not be
        // reset (below) fails the write at its reads, and a refused write changes nothing.
        let mut resets: Vec<(u64, u64, usize, StripeBuf, Vec<Pos>)> = Vec::new();
        for (file, stripe) in lost_stripes {
            let mine = &written[&(file, stripe)];
            let mut home = self.read_home_blocks(None, file, stripe)?;
            let lost_rows = self.decode_blocks(&mut home)?;
            for i in lost_rows.difference(&home.disagree).copied() {
                let (a, z) = ((i * block) as u64, ((i + 1) * block) as u64);
                let unreadable: Vec<Pos> = g
                    .data_pos
                    .iter()
                    .copied()
                    .filter(|&pos| home.is_bad(pos, i))
                    .collect();
                let overwritten = |pos: &Pos| {
                    mine.get(pos)
                        .is_some_and(|r| r.iter().any(|&(p, q)| p <= a && z <= q))
                };
                // Only blocks whose loss is ON RECORD may be zeroed: the record keeps reads
                // of them failing until the write is durable. An unreadable block not on
                // record (rot found now) would read as silent zeros after a crash before
                // that (review s6s S6-1): the write fails as before, naming it, and no row
                // is reset.
                let on_record = |pos: &Pos| {
                    let d = g
                        .data_pos
                        .iter()
                        .position(|p| p == pos)
                        .expect("an unreadable data block is in data_pos");
                    let at = self.layout.file_offset(stripe, d, a);
                    self.with_core(None, |c| {
                        !c.state.lost_in(file, at, block as u64).is_empty()
                    })
                };
                if unreadable.is_empty() || !unreadable.iter().all(overwritten) {
                    continue;
                }
                if !unreadable.iter().all(on_record) {
                    return Ok(());
                }
                let mut row = StripeBuf::zeroed(g.rows, g.cols, block);
                slice_stripe_into(&home.buf, i * block..(i + 1) * block, &mut row);
                for &pos in &unreadable {
                    row.element_mut(pos).fill(0);
                }
                self.code
                    .encode(&mut row)
                    .map_err(|e| StoreError::Io(e.to_string()))?;
                resets.push((file, stripe, i, row, unreadable));
            }
        }
        for (file, stripe, i, row, unreadable) in resets {
            let rewritten = g
                .parity_pos
                .iter()
                .chain(&unreadable)
                .copied()
                .collect::<Vec<Pos>>();
            for pos in rewritten {
                let Some((oss, key)) = self.home_key(file, stripe, pos) else {
                    continue;
                };
                if !self.backends[oss].healthy() {
                    continue; // failed: its bytes are decoded from the row written here
                }
                self.count(oss, key.zone, Op::Write, key.zone == Zone::Parity);
                self.backends[oss].write(key, i * block, row.element(pos))?;
            }
        }
        Ok(())
    }

    /// Make sure every partial checksum block a write of `plan` lands in is healthy before
    /// the plan's first write, repairing a rotten one from parity. Why: a write that does not
    /// cover whole 4 KiB blocks makes the backend verify the rest of its edge blocks; one
    /// that rotted on disk failed that write half-way through the plan, after other steps
    /// (parity) had run, and the next open kept its rotten byte (issue #4 F1). A home block
    /// that a read of the plan touched is healthy already (the read verified it, or rebuilt
    /// and wrote it back): only blocks no read covers are checked, one 4 KiB read each, so a
    /// 4 KiB-aligned write costs nothing more. A rotten block is rebuilt from the rest of its
    /// stripe (a cache block: from its cache stripe), confirmed against its stored checksum
    /// and written back whole (the stripe locks of the plan are held); one that cannot be
    /// fails the plan before any write. A cache block is checked even when a read of the plan
    /// covers it: a cache read rebuilds without writing back. A rotten cache block holding
    /// no live byte but the plan's own (stale bytes of an older cache stripe, a chunk given
    /// to a new one) is not rebuilt (nothing covers those bytes: the rebuild failed the
    /// write, review s8s S8-6) but rewritten as zeros (`cache_block_dead`). Known limit
    /// (reasoned, not tested): a block with live bytes of an older cache stripe beside
    /// stale ones still cannot be confirmed: the write then fails, before any change, with
    /// `DataLost`.
    /// A delayed window's move home (`PlanCause::WindowMove`) heals its home edge blocks
    /// from the stripe with the moved bytes laid over (`heal_moved_edge_block`); `resolve`
    /// gives a write piece's bytes (the plan's reads have run).
    fn heal_unread_edge_blocks(
        &self,
        plan: &IoPlan,
        move_edges: &MoveEdgeReads,
        witness_blocks: &EdgeBlocks,
        resolve: &mut dyn FnMut(Bytes, u64) -> Result<Vec<u8>, StoreError>,
    ) -> Result<EdgeBlocks, StoreError> {
        let mut edge_old = EdgeBlocks::new();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let e = self.sb.element_bytes as u64;
        // Home addresses `[a, z)` each read step of the plan verified, per (OSS, zone, file).
        // A read of bytes the file never wrote does not count: when their block fails its
        // checksum, `read_range_repairing` serves them as zeros from the store's record
        // without verifying or healing the block, and the partial write into it then failed
        // half-way through the plan (review s18r R18-1; on hdp the next open's recovery of
        // that cut write kept the rotten byte under a valid checksum, R18-4).
        let covered = |oss: usize, zone: PlanZone, file: u64, a: u64, z: u64| {
            plan.steps.iter().any(|r| {
                if r.op != Op::Read
                    || (r.oss, r.zone, r.file) != (oss, zone, file)
                    || r.addr_bytes >= z
                    || a >= r.addr_bytes + r.len_bytes
                {
                    return false;
                }
                let mut at = r.addr_bytes;
                r.pieces.iter().all(|piece| {
                    let el = &piece.element;
                    let (pa, pz) = (at, at + el.len_bytes);
                    at = pz;
                    let (oa, oz) = (pa.max(a), pz.min(z));
                    oa >= oz
                        || !self.never_written(
                            None,
                            file,
                            el,
                            (el.offset_bytes + (oa - pa)) as usize,
                            (oz - oa) as usize,
                        )
                })
            })
        };
        for step in plan.steps.iter().filter(|s| s.op == Op::Write) {
            if !self.backends[step.oss].healthy() {
                continue; // a degraded write: parity carries this element
            }
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let addr = step.addr_bytes + at;
                at += el.len_bytes;
                assert_eq!(
                    addr % e,
                    el.offset_bytes,
                    "a piece sits at its element offset"
                );
                let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
                assert!(a < z && z <= e, "a piece within one element");
                for first in partial_edge_blocks(a, z, block) {
                    let block_addr = addr - el.offset_bytes + first;
                    if step.is_parity()
                        && step.addr_bytes <= block_addr
                        && block_addr + block <= step.addr_bytes + step.len_bytes
                    {
                        // A parity block this step's pieces write whole in one request (a
                        // reconstruct write's segments cut inside it): no old byte of it is
                        // kept, so none needs checking, and its rot beside a stale parity
                        // refused the very write that replaces it (s27d: the parity-only
                        // advice "write them again" in a file's short last stripe).
                        continue;
                    }
                    // The addresses this piece writes in the block: a client write's home
                    // data block whose old bytes there no read step of the plan holds is read
                    // here too (a reconstruct write), so that a write refused on it (it rotted
                    // after this check) can journal its change (`journal_refused_blocks`).
                    let (oa, oz) = (
                        block_addr + a.max(first) - first,
                        block_addr + z.min(first + block) - first,
                    );
                    let own_read = plan.steps.iter().any(|r| {
                        r.op == Op::Read
                            && (r.oss, r.zone, r.file) == (step.oss, step.zone, step.file)
                            && r.addr_bytes <= oa
                            && oz <= r.addr_bytes + r.len_bytes
                    });
                    let home_data = step.zone == PlanZone::Data
                        && !step.is_parity()
                        && matches!(plan.cause, exaraid_plan::PlanCause::Write { .. });
                    // (A cache-zone read rebuilds without writing back: checked anyway.)
                    // A client write's home data edge block is read whole where its whole
                    // new crc is journaled (`edge_block_crcs`, s24a): the plan's reads
                    // verified it but hold only the write's part of it.
                    let whole_crc_wanted = home_data && self.home_edge_crcs_journaled();
                    // The same for a WCL client write's cache data edge block, read below
                    // in any case (s24d, review s24r R24-1).
                    let cache_data = step.zone == PlanZone::Cache
                        && !step.is_parity()
                        && matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
                        && self.cache_edge_crcs_journaled();
                    // A move home's edge reads (`read_move_edge_blocks`) verify without
                    // healing: its edge blocks are checked here whatever the plan reads.
                    let move_home = move_edges_of(plan);
                    if step.zone != PlanZone::Cache
                        && (own_read || !home_data)
                        && !whole_crc_wanted
                        && !move_home
                        && covered(
                            step.oss,
                            step.zone,
                            step.file,
                            block_addr,
                            block_addr + block,
                        )
                    {
                        continue;
                    }
                    let key = self.key(step.zone, step.file, block_addr);
                    let mut buf = vec![0u8; block as usize];
                    let i = (first / block) as usize;
                    // A move home's edge block its plan read verified: those bytes, not a
                    // second read (task s50c). Any other outcome reads it here, as before,
                    // so that every arm below decides as it did.
                    let edge_read = (move_home && step.zone == PlanZone::Data)
                        .then(|| move_edges.get(&(step.file, el.stripe, el.pos, i as u64)))
                        .flatten();
                    // A client write's home data block s45c's check read whole and verified
                    // (`check_displaced_home_pieces`: this plan's stripe locks held, no write
                    // of the block since): those bytes, not a second read of it (task s52e,
                    // s51d's count). The arms below decide on them as on a read's.
                    let witness_read = home_data
                        .then(|| witness_blocks.get(&(step.oss, key, i)))
                        .flatten();
                    let read = match (edge_read, witness_read) {
                        (Some(Some(Ok(bytes))), _) | (_, Some(bytes)) => {
                            buf.copy_from_slice(bytes);
                            Ok(())
                        }
                        _ => {
                            let (k, at) = (Unplanned::EdgeCheck, first as usize);
                            self.read_unplanned(k, step.oss, key, at, &mut buf)
                        }
                    };
                    match read {
                        Ok(()) => {
                            if home_data || cache_data {
                                edge_old.insert((step.oss, key, i), buf);
                            }
                        }
                        Err(err)
                            if err.is_corrupt()
                                && step.zone == PlanZone::Cache
                                && self.cache_block_dead(plan, step.oss, block_addr, block)? =>
                        {
                            // No live byte of any file or running parity there but the
                            // plan's own new ones: stale bytes of an older cache stripe,
                            // which nothing reads. Zeros, as `scrub --repair` writes them
                            // (unwritten bytes are zeros to every cache stripe); the write
                            // then merges into a block that verifies (review s8s S8-6: the
                            // write failed naming the file's "only copy" lost).
                            let zeros = vec![0u8; block as usize];
                            self.count(step.oss, Zone::Cache, Op::Write, false);
                            self.write_back_block(step.oss, key, first as usize, &zeros)?;
                        }
                        Err(err) if err.is_corrupt() && self.kind == StrategyKind::Wcl => {
                            // Rebuilt from its cache stripe and confirmed on its live
                            // bytes only: the rest of a reused chunk's block holds stale
                            // bytes of an older cache stripe, which the decode gives as
                            // zeros, so the whole block never matched its checksum and
                            // one rotten block within the code's tolerance failed the
                            // write (review s9s S9-2).
                            let slot_addr = addr - el.offset_bytes;
                            let chunk_base = slot_addr - el.pos.row as u64 * e;
                            let (whole, live) = self
                                .rebuild_from_cache_stripe(
                                    None,
                                    step.file,
                                    el.stripe,
                                    el.pos,
                                    step.oss,
                                    chunk_base,
                                    (first, block),
                                    &[],
                                )
                                .map_err(|why| {
                                    StoreError::DataLost(format!(
                                        "{err}; rebuilding it failed: {why}"
                                    ))
                                })?;
                            let i = (first / block) as usize;
                            let bad =
                                self.unconfirmed_cache_blocks(step.oss, key, &whole, &live, [i]);
                            if !bad.is_empty() {
                                return Err(StoreError::DataLost(format!(
                                    "{} stripe {} bytes {first}..{} of the element at row {} column {} in the cache zone of OSS {}: the block fails its checksum, and its live bytes rebuilt from the cache stripe's parity do not match it either (data and parity disagree there), so those bytes cannot be told; nothing of this write was done. Write whole 4 KiB blocks over the file's bytes there to replace them",
                                    self.file_name_in(None, step.file),
                                    el.stripe,
                                    first + block,
                                    el.pos.row,
                                    el.pos.col,
                                    step.oss
                                )));
                            }
                            // Stale bytes go back as zeros, as every decode of the cache
                            // stripe counts them (and `cache_block_dead` writes them).
                            let start = first as usize;
                            let healed = &whole[start..start + block as usize];
                            self.write_back_block(step.oss, key, start, healed)?;
                        }
                        Err(err)
                            if err.is_corrupt()
                                && step.zone == PlanZone::Data
                                && matches!(
                                    plan.cause,
                                    exaraid_plan::PlanCause::WindowMove { .. }
                                ) =>
                        {
                            self.heal_moved_edge_block(plan, resolve, step, el, key, first, err)?;
                        }
                        Err(err) if err.is_corrupt() => {
                            let whole_block = exaraid_plan::ElementRange {
                                offset_bytes: first,
                                len_bytes: block,
                                ..*el
                            };
                            let at = ElementRead {
                                oss: step.oss,
                                zone: step.zone,
                                file: step.file,
                                addr_bytes: block_addr,
                                element: &whole_block,
                            };
                            let repair = step.zone != PlanZone::Cache;
                            self.read_range_repairing(None, at, &mut buf, repair, false)?;
                            if home_data {
                                edge_old.insert((step.oss, key, i), buf.clone());
                            }
                            if step.zone == PlanZone::Cache {
                                // Rebuilt from the cache stripe and confirmed against the
                                // block's checksum (bytes no write of the cache stripe reached
                                // count as zeros there, as in every decode of it).
                                self.write_back_block(step.oss, key, first as usize, &buf)?;
                            }
                        }
                        // Unavailable: the write step records the failure; missing: a slot
                        // not written yet, which the write creates (as without this check).
                        Err(_) => {}
                    }
                }
            }
        }
        Ok(edge_old)
    }

    /// Heal the rotten home block at byte `first` of the element `el` of the move home
    /// `plan` (step `step` writes part of it), before the move's first write. Why (review
    /// s18r R18-5): the window's END parity, durable before the move runs, covers the
    /// window's bytes while the home data under them is still the old one, so the home
    /// stripe as it stands disagrees with its parity and a rebuild from it (`read_range_
    /// repairing`) failed the move, and END with it, naming window bytes lost that every
    /// read gave back exact. The stripe's true data is its home data with the moved bytes
    /// laid over (as recovery composes it, see `copy_moved_edge_blocks`): that is decoded,
    /// block row by block row. The block's bytes the move leaves as they are come from the
    /// decode, and are confirmed by one of: the block's stored checksum over them with its
    /// own bytes on disk under the moved range (the block as it was, rot mended: written
    /// back so, a pure heal); the file never wrote them (zeros by the store's record, as the
    /// END parity read them) and the decode gives zeros; the decode equals the block's bytes
    /// on disk that the move keeps and the moved bytes (the rot lies under the moved bytes
    /// only: recovery's `confirm_block` takes the same block so, session 21); a parity
    /// equation the decode did not need holds (fewer columns erased in the row than the
    /// code tolerates). All but the first write the block back as it is after the move.
    /// Either way the move's partial write then finds the block healthy. One confirmed by
    /// none (rot in the kept bytes beside rot under the moved ones on a code with no spare
    /// parity left, a row with more unreadable blocks than the code tolerates, data and
    /// parity disagreeing) fails the move before any write, naming the block's file bytes;
    /// the reopen's recovery then records them lost (`laid_over_decode_confirmed`). Where it arises: a read of the block by the END parity plan
    /// heals it before the parity changes, but a reconstruct-write reads only the other
    /// columns over the window's byte ranges and this column's bytes beside them, so a
    /// block whose bytes it reads are all never written (served as zeros, unhealed), or
    /// none of it (rs 4+3, a window inside one element), or one that rotted after the END
    /// parity (a move queued for the background worker), gets here.
    #[allow(clippy::too_many_arguments)]
    fn heal_moved_edge_block(
        &self,
        plan: &IoPlan,
        resolve: &mut dyn FnMut(Bytes, u64) -> Result<Vec<u8>, StoreError>,
        step: &Step,
        el: &exaraid_plan::ElementRange,
        key: ElementKey,
        first: u64,
        err: BackendError,
    ) -> Result<(), StoreError> {
        let block = CHECKSUM_BLOCK_BYTES;
        let e = self.sb.element_bytes;
        let (file, stripe, pos) = (step.file, el.stripe, el.pos);
        let i = first as usize / block;
        let mut home = self.read_home_blocks(None, file, stripe)?;
        // The moved runs of this stripe, per element: its newest data, which the END
        // parity covers.
        let mut moved: BTreeMap<Pos, Vec<(usize, usize)>> = BTreeMap::new();
        let home_writes = plan
            .steps
            .iter()
            .filter(|s| s.op == Op::Write && s.zone == PlanZone::Data && s.file == file);
        for s in home_writes {
            for piece in &s.pieces {
                let x = &piece.element;
                if x.stripe != stripe || x.len_bytes == 0 {
                    continue;
                }
                let source = piece.source.expect("a write piece has a source");
                let bytes = resolve(source, x.len_bytes)?;
                let (a, z) = (
                    x.offset_bytes as usize,
                    (x.offset_bytes + x.len_bytes) as usize,
                );
                home.buf.element_mut(x.pos)[a..z].copy_from_slice(&bytes);
                moved.entry(x.pos).or_default().push((a, z));
            }
        }
        let covers_whole = |p: Pos, b: usize| {
            let (a, z) = (b * block, (b + 1) * block);
            let runs = moved.get(&p).map(Vec::as_slice).unwrap_or(&[]);
            (a..z).all(|at| runs.iter().any(|&(p, q)| p <= at && at < q))
        };
        // A block the move writes whole is known (its bytes are the moved ones): no erasure.
        for c in home.corrupt.iter_mut() {
            let p = c.pos;
            c.blocks.retain(|&b| !covers_whole(p, b));
        }
        home.corrupt.retain(|c| !c.blocks.is_empty());
        if !home.unavailable_cols.contains(&pos.col) && !home.is_bad(pos, i) {
            // The edge read failed even if this pass read the block.
            home.never_written.remove(&(pos, i));
            home.corrupt.push(super::read::CorruptElement {
                pos,
                blocks: [i].into(),
                missing: false,
            });
        }
        // Whether the decode of row `i` is checked by a parity equation it did not need:
        // fewer columns erased there than the code tolerates, and none located as stale.
        let g = self.layout.geometry();
        let erased_in_row = (0..g.cols)
            .filter(|&col| {
                (0..g.rows).any(|row| {
                    let p = Pos { row, col };
                    g.cell(p) != Cell::Empty && home.is_bad(p, i)
                })
            })
            .count();
        // The block with the moved bytes laid over, before the decode replaces it.
        let laid = home.buf.element(pos)[i * block..(i + 1) * block].to_vec();
        let lost = self.decode_blocks(&mut home)?;
        let checked_by_parity =
            erased_in_row < self.tolerance() && !home.located.iter().any(|&(r, _)| r == i);
        let name = self.file_name_in(None, file);
        if lost.contains(&i) {
            return Err(StoreError::DataLost(format!(
                "{err}; rebuilding it from the stripe with the delayed window's bytes laid over failed: {}; nothing of the window's move home was written",
                self.lost_blocks_error(None, file, stripe, &home, &lost)
            )));
        }
        let mut before = home.buf.element(pos)[i * block..(i + 1) * block].to_vec();
        let mut on_disk = vec![0u8; e];
        let b = &self.backends[step.oss];
        let on_disk_read = b.read_unverified(key, &mut on_disk).is_ok();
        for &(a, z) in moved.get(&pos).map(Vec::as_slice).unwrap_or(&[]) {
            let (p, q) = (a.max(i * block), z.min((i + 1) * block));
            if p < q {
                before[p - i * block..q - i * block].copy_from_slice(&on_disk[p..q]);
            }
        }
        // Never on a gone checksum's word (no witness): it would vouch for a decode through
        // stale parity; the proofs below still apply.
        let before_proven = on_disk_read
            && b.checksum_witness(key, i, &before)
                .is_ok_and(ChecksumWitness::confirms_decode);
        if before_proven {
            self.count(step.oss, Zone::Data, Op::Write, false);
            return self.write_back_block(step.oss, key, first as usize, &before);
        }
        let after = &home.buf.element(pos)[i * block..(i + 1) * block];
        // The block's bytes the move keeps, as runs within the element.
        let mut kept: Vec<(usize, usize)> = Vec::new();
        let mut at = i * block;
        for (a, z) in moved_runs_in(moved.get(&pos), i * block, (i + 1) * block) {
            if at < a {
                kept.push((at, a));
            }
            at = at.max(z);
        }
        if at < (i + 1) * block {
            kept.push((at, (i + 1) * block));
        }
        let holes_decoded_as_zeros = kept.iter().all(|&(a, z)| {
            self.never_written(None, file, el, a, z - a)
                && after[a - i * block..z - i * block].iter().all(|&x| x == 0)
        });
        if holes_decoded_as_zeros {
            // Bytes the file never wrote are zeros by the store's record (the END parity
            // read them so), and the decode gives zeros there: both agree. Written back as
            // the block is after the move: a crash before the move is durable finds it as a
            // move cut after this block (recovery lays the moved bytes over home, equal).
            self.count(step.oss, Zone::Data, Op::Write, false);
            return self.write_back_block(step.oss, key, first as usize, after);
        }
        let moved_here = |at: usize| {
            (moved.get(&pos).map(Vec::as_slice).unwrap_or(&[]))
                .iter()
                .any(|&(a, z)| a <= at && at < z)
        };
        let decode_is_on_disk = on_disk_read
            && (i * block..(i + 1) * block).all(|at| {
                let want = match moved_here(at) {
                    true => laid[at - i * block],
                    false => on_disk[at],
                };
                after[at - i * block] == want
            });
        if decode_is_on_disk {
            // The decode equals the block's bytes on disk the move keeps, and the moved
            // bytes: the rot lies under the moved bytes only (they replace it). Recovery
            // takes the same block so (`confirm_block`: the decode equal to the bytes on
            // disk with the known ones laid over); written back as after the move, as above.
            self.count(step.oss, Zone::Data, Op::Write, false);
            return self.write_back_block(step.oss, key, first as usize, after);
        }
        if checked_by_parity {
            // The rot lies under the moved bytes (they replace it) beside written ones: the
            // block's checksum covers the rotten old bytes, but the decode satisfied every
            // parity equation of the stripe the END parity encodes. Written back as after
            // the move, as above.
            self.count(step.oss, Zone::Data, Op::Write, false);
            return self.write_back_block(step.oss, key, first as usize, after);
        }
        let Cell::Data(d) = el.cell else {
            unreachable!("a move home writes data elements")
        };
        let at = self.layout.file_offset(stripe, d, (i * block) as u64);
        Err(StoreError::DataLost(format!(
            "{name} bytes {at}..{} (stripe {stripe}, 4 KiB block {i} of the element at row {} column {} on OSS {}) cannot be confirmed: the block fails its checksum ({err}), and its bytes the delayed window's move home does not replace, rebuilt from the stripe with the window's bytes laid over, do not match that checksum with the block's bytes on disk under the window's, nor the block's bytes on disk, are not all bytes the file never wrote, and no spare parity is left to check them (the block rotted beside the window's bytes as well as under them on a code with no spare parity in that row, or data and parity disagree); nothing of the move was written (the window's bytes stay in the cache zone, their END parity durable), and this handle refuses further calls. Reopen the store (any next command does): its recovery moves the window's bytes home and records this block's bytes lost, as nothing confirms them; `exaraid store status` then names the lost range (write those bytes again)",
            at + block as u64,
            pos.row,
            pos.col,
            step.oss
        )))
    }

    /// Whether the cache-zone block `[block_addr, block_addr + block_bytes)` of OSS `oss`
    /// holds no live byte the plan does not write itself: no newest byte of any file there
    /// outside `plan`'s own cache writes. A block of a running-parity chunk (WCL) counts as
    /// dead only when its whole cache stripe holds no live byte but the plan's: a stripe the
    /// plan opens, whose parity it writes without reading (unwritten bytes are zeros to
    /// it); else parity is live (as in `scrub_dead_cache_blocks`). Only asked for a block
    /// that failed its checksum, so the scan of every file's cached extents costs nothing
    /// on the healthy path. Stable while the plan runs: the planner gave the chunk to this
    /// plan's cache stripe, whose stripe lock the plan holds.
    fn cache_block_dead(
        &self,
        plan: &IoPlan,
        oss: usize,
        block_addr: u64,
        block_bytes: u64,
    ) -> Result<bool, StoreError> {
        let e = self.sb.element_bytes as u64;
        assert_eq!(block_addr % block_bytes, 0, "a block at its own boundary");
        let slot = block_addr / e;
        // Address runs `(oss, a, z)` that must hold no live byte but the plan's.
        let mut regions: Vec<(usize, u64, u64)> = vec![(oss, block_addr, block_addr + block_bytes)];
        {
            let g = self.layout.geometry();
            let stripes = self.cache_stripes.lock();
            for gens in stripes.by_stripe.values() {
                let all = std::iter::once(&gens.open).chain(gens.destaging.iter().map(|(_, c)| c));
                for chunks in all {
                    let parity_here = chunks.iter().any(|(&col, &(chunk_oss, base))| {
                        chunk_oss == oss
                            && (0..g.rows).any(|row| {
                                (base + row as u64 * e) / e == slot
                                    && matches!(g.cell(Pos { row, col }), Cell::Parity(_))
                            })
                    });
                    if parity_here {
                        // The whole cache stripe: every chunk, every row.
                        regions.extend(
                            chunks.values().map(|&(chunk_oss, base)| {
                                (chunk_oss, base, base + g.rows as u64 * e)
                            }),
                        );
                    }
                }
            }
        }
        // Live bytes there, as `(oss, a, z)` address runs.
        let mut live: Vec<(usize, u64, u64)> = Vec::new();
        {
            let core = self.core.lock();
            let files: Vec<u64> = core.state.files.values().map(|m| m.id).collect();
            for file in files {
                for x in self.cached_extents(&core, file)? {
                    if x.zone != PlanZone::Cache {
                        continue;
                    }
                    for &(r_oss, ra, rz) in &regions {
                        let (a, z) = (x.addr_bytes.max(ra), (x.addr_bytes + x.len_bytes).min(rz));
                        if x.oss == r_oss && a < z {
                            live.push((r_oss, a, z));
                        }
                    }
                }
            }
        }
        // Less what the plan writes there itself (its bytes are the ones the planner lists).
        let written: Vec<(usize, u64, u64)> = plan
            .steps
            .iter()
            .filter(|w| w.op == Op::Write && w.zone == PlanZone::Cache)
            .map(|w| (w.oss, w.addr_bytes, w.addr_bytes + w.len_bytes))
            .collect();
        Ok(live.iter().all(|&(l_oss, a, z)| {
            // Every byte of the run lies in some write of the plan: walk it.
            let mut at = a;
            while at < z {
                match written
                    .iter()
                    .find(|&&(w_oss, wa, wz)| w_oss == l_oss && wa <= at && at < wz)
                {
                    Some(&(_, _, wz)) => at = wz.min(z),
                    None => return false,
                }
            }
            true
        }))
    }

    /// Append the bytes a source names to `out`. Why not `resolve` + `extend`: that copies
    /// every written byte twice (into the returned buffer, then into the step's); the client
    /// bytes, read bytes and computed parity are copied once here.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolve_into(
        &self,
        out: &mut Vec<u8>,
        plan: &IoPlan,
        source: Bytes,
        len: u64,
        client: Option<(&ClientWrite, &[u8])>,
        read_bytes: &[Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
    ) -> Result<(), StoreError> {
        let n = len as usize;
        match source {
            Bytes::Zero => out.resize(out.len() + n, 0),
            Bytes::Client { file_offset_bytes } => {
                let (w, data) =
                    client.expect("a plan that copies client bytes runs with the client's buffer");
                let at = (file_offset_bytes - w.offset_bytes) as usize;
                out.extend_from_slice(&data[at..at + n]);
            }
            Bytes::Read { step, offset_bytes } => {
                let b = read_bytes[step]
                    .as_ref()
                    .expect("a step reads before it is used");
                out.extend_from_slice(&b[offset_bytes as usize..offset_bytes as usize + n]);
            }
            Bytes::Computed {
                compute,
                offset_bytes,
            } => {
                if computed[compute].is_none() {
                    // Computed once, into its cache, by `resolve`.
                    self.resolve(plan, source, len, client, read_bytes, computed)?;
                }
                let b = computed[compute].as_ref().expect("just computed");
                out.extend_from_slice(&b[offset_bytes as usize..offset_bytes as usize + n]);
            }
        }
        Ok(())
    }

    /// The bytes a source names.
    pub(super) fn resolve(
        &self,
        plan: &IoPlan,
        source: Bytes,
        len: u64,
        client: Option<(&ClientWrite, &[u8])>,
        read_bytes: &[Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
    ) -> Result<Vec<u8>, StoreError> {
        let len = len as usize;
        Ok(match source {
            Bytes::Zero => vec![0u8; len],
            Bytes::Client { file_offset_bytes } => {
                let (w, data) =
                    client.expect("a plan that copies client bytes runs with the client's buffer");
                let at = (file_offset_bytes - w.offset_bytes) as usize;
                data[at..at + len].to_vec()
            }
            Bytes::Read { step, offset_bytes } => {
                let b = read_bytes[step]
                    .as_ref()
                    .expect("a step reads before it is used");
                b[offset_bytes as usize..offset_bytes as usize + len].to_vec()
            }
            Bytes::Computed {
                compute,
                offset_bytes,
            } => {
                if computed[compute].is_none() {
                    self.compute(plan, compute, client, read_bytes, computed)?;
                }
                let b = computed[compute].as_ref().expect("just computed");
                b[offset_bytes as usize..offset_bytes as usize + len].to_vec()
            }
        })
    }

    /// Compute parity compute `compute` of `plan` into `computed` (its sources must be
    /// there: read, client or other computes).
    fn compute(
        &self,
        plan: &IoPlan,
        compute: usize,
        client: Option<(&ClientWrite, &[u8])>,
        read_bytes: &[Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
    ) -> Result<(), StoreError> {
        assert!(computed[compute].is_none(), "a compute runs once");
        let c = &plan.computes[compute];
        let engine = exaraid_codes::engine::engine();
        let mut out = self.resolve(plan, c.base, c.len_bytes, client, read_bytes, computed)?;
        assert_eq!(out.len() as u64, c.len_bytes);
        for t in &c.terms {
            // A term with no old value is the new bytes themselves: read in place, not
            // copied (an END's parity has one such term per data element of its stripe).
            if t.old == Bytes::Zero {
                if let Some(new) = borrowed(t.new, c.len_bytes, client, read_bytes) {
                    engine.gf_mul_xor(t.coef, new, &mut out);
                    continue;
                }
            }
            let mut x = self.resolve(plan, t.new, c.len_bytes, client, read_bytes, computed)?;
            if t.old != Bytes::Zero {
                let old = self.resolve(plan, t.old, c.len_bytes, client, read_bytes, computed)?;
                engine.xor_into(&mut x, &old);
            }
            engine.gf_mul_xor(t.coef, &x, &mut out);
        }
        computed[compute] = Some(out);
        Ok(())
    }

    /// Count one device read made outside the plan's steps (`UnplannedReads`), of `kind`.
    pub(super) fn count_unplanned(&self, oss: usize, kind: crate::state::Unplanned) {
        self.unplanned.lock()[oss].count(kind);
    }

    /// `read_retrying`, counted as a read outside the plan (`kind`) where the OSS was read:
    /// an answer "missing" (no such slot yet) or "unavailable" read nothing.
    pub(super) fn read_unplanned(
        &self,
        kind: crate::state::Unplanned,
        oss: usize,
        key: ElementKey,
        offset_bytes: usize,
        buf: &mut [u8],
    ) -> Result<(), crate::backend::BackendError> {
        let r = self.read_retrying(oss, key, offset_bytes, buf);
        if !matches!(&r, Err(err) if err.is_missing() || err.is_unavailable()) {
            self.count_unplanned(oss, kind);
        }
        r
    }

    pub(super) fn count(&self, oss: usize, zone: Zone, op: Op, parity: bool) {
        let mut ops = self.ops.lock();
        let o = &mut ops[oss];
        match (zone, op) {
            (Zone::Data, Op::Read) => o.data_read += 1,
            (Zone::Data, Op::Write) => o.data_write += 1,
            (Zone::Parity, Op::Read) => o.parity_read += 1,
            (Zone::Parity, Op::Write) => o.parity_write += 1,
            (Zone::Cache, Op::Read) => o.cache_read += 1,
            (Zone::Cache, Op::Write) => o.cache_write += 1,
        }
        let _ = parity;
    }

    /// One read step: one backend request, split at element boundaries. A home element that
    /// cannot be read (failed OSS, checksum mismatch) is rebuilt from the rest of its stripe.
    /// Read step `i` of `plan`: its bytes lost on record (`window_reads_lost`) as the home
    /// bytes under them, the rest as `read_step` reads them. `witness_blocks`: the whole
    /// blocks s45c's check reads, for the heal to take (`check_displaced_home_pieces`).
    fn read_plan_step(
        &self,
        plan: &IoPlan,
        i: usize,
        lost: &LostReads,
        witness_blocks: &Mutex<EdgeBlocks>,
    ) -> Result<Vec<u8>, StoreError> {
        match self.read_plan_step_as_planned(plan, i, lost) {
            // Bytes nothing will hold: every write they feed is skipped (degraded), so a
            // decode refused for them is no reason to fail the client's write. Why (s23c's
            // scene, OPEN after session 23): on WCL, a stale element beside the failed OSS
            // of a cache stripe's P made the decode of the old running P disagree with Q;
            // the write completing the cache stripe failed and poisoned the handle, though
            // only P's own skipped write needed it. The cache stripe's check is left to its
            // destage, whose own read of P fails the same way and records what nothing
            // locates LOST (`destage_reads_by_check`).
            Err(StoreError::DataLost(_)) if self.read_feeds_only_failed_writes(plan, i) => {
                Ok(vec![0u8; plan.steps[i].len_bytes as usize])
            }
            // Old home bytes of a client write: checked against the witness pieces its
            // input dropped before a delta takes them (s45c).
            // Timed whole, early return included (the bench's `home_witness_check_s`).
            Ok(mut bytes) => {
                let t = std::time::Instant::now();
                let checked = self.check_displaced_home_pieces(plan, i, &mut bytes, witness_blocks);
                let probe = &crate::bench::PROBE.home_witness_check_ns;
                crate::bench::probe_add(probe, crate::bench::probe_ns_since(t));
                checked?;
                Ok(bytes)
            }
            read => read,
        }
    }

    /// Whether read step `i` of client write `plan` reads running parity in the cache zone
    /// of an OSS out of service, for nothing but writes to OSSs out of service (its own
    /// column's new running parity, which `write_step` skips). Only a client write's: a
    /// destage's reads of a cache stripe are its check (`check_destage_reads`).
    fn read_feeds_only_failed_writes(&self, plan: &IoPlan, i: usize) -> bool {
        let step = &plan.steps[i];
        let of_parity = step
            .pieces
            .iter()
            .all(|p| matches!(p.element.cell, Cell::Parity(_)));
        if !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
            || step.op != Op::Read
            || step.zone != PlanZone::Cache
            || !of_parity
            || self.backends[step.oss].healthy()
        {
            return false;
        }
        let reads_it = |b: Bytes| matches!(b, Bytes::Read { step, .. } if step == i);
        let users: BTreeSet<usize> = (plan.computes.iter().enumerate())
            .filter(|(_, c)| {
                reads_it(c.base) || c.terms.iter().any(|t| reads_it(t.new) || reads_it(t.old))
            })
            .map(|(c, _)| c)
            .collect();
        let feeds = |b: Bytes| match b {
            Bytes::Computed { compute, .. } => users.contains(&compute),
            other => reads_it(other),
        };
        plan.steps.iter().all(|w| {
            w.op != Op::Write
                || !self.backends[w.oss].healthy()
                || !w.pieces.iter().any(|p| p.source.is_some_and(feeds))
        })
    }

    /// `read_plan_step` as the plan says, whatever the bytes are for.
    fn read_plan_step_as_planned(
        &self,
        plan: &IoPlan,
        i: usize,
        lost: &LostReads,
    ) -> Result<Vec<u8>, StoreError> {
        let step = &plan.steps[i];
        let Some(lost) = lost.get(&i) else {
            return self.read_step(step);
        };
        assert!(step.op == Op::Read && step.zone == PlanZone::Cache);
        self.count(step.oss, Zone::Cache, Op::Read, false);
        self.emulate_device(step.oss, Op::Read, step.len_bytes);
        let mut out = vec![0u8; step.len_bytes as usize];
        let mut at = 0u64;
        for piece in &step.pieces {
            let el = &piece.element;
            let a = self
                .layout
                .file_offset_of(el)
                .expect("a window's cache read is of data");
            let z = a + el.len_bytes;
            // Runs of the piece, `(from, to, lost)` in file offsets, back to back.
            let mut runs: Vec<(u64, u64, bool)> = Vec::new();
            let mut p = a;
            for &(la, lz) in lost.iter().filter(|&&(la, lz)| la < z && a < lz) {
                let (la, lz) = (la.max(a), lz.min(z));
                if p < la {
                    runs.push((p, la, false));
                }
                runs.push((la, lz, true));
                p = lz;
            }
            if p < z {
                runs.push((p, z, false));
            }
            for (p, q, is_lost) in runs {
                let sub = exaraid_plan::ElementRange {
                    offset_bytes: el.offset_bytes + (p - a),
                    len_bytes: q - p,
                    ..*el
                };
                let from = (at + p - a) as usize;
                let buf = &mut out[from..from + (q - p) as usize];
                let read = if is_lost {
                    // What the stripe's home parity covers there (home data and parity
                    // agree: the window's parity is not written yet): decoded from home.
                    ElementRead {
                        oss: step.oss,
                        zone: PlanZone::Data,
                        file: step.file,
                        addr_bytes: self.layout.home_addr(el.stripe, el.pos, sub.offset_bytes),
                        element: &sub,
                    }
                } else {
                    ElementRead {
                        oss: step.oss,
                        zone: step.zone,
                        file: step.file,
                        addr_bytes: step.addr_bytes + at + (p - a),
                        element: &sub,
                    }
                };
                self.read_range_repairing(None, read, buf, true, false)?;
            }
            at += el.len_bytes;
        }
        assert_eq!(at, step.len_bytes, "a step's pieces lie back to back");
        Ok(out)
    }

    /// The parity plan of a window's END (or timeout) reads the window's bytes from the
    /// cache zones; those on an OSS failed on record since the plan was made (`fail_oss`
    /// while END was queued: review s9r R9-2) are lost on record and their only copy is
    /// gone. Per read step, the file ranges it reads that are lost on its OSS: the plan
    /// reads the home bytes under them instead, so its parity covers what home holds there
    /// (the bytes stay lost on record, and END names them), and every other byte of the
    /// window gets its parity. Empty for every other plan, and while no OSS is failed.
    fn window_reads_lost(&self, plan: &IoPlan) -> LostReads {
        let mut lost = LostReads::new();
        if !matches!(
            plan.cause,
            exaraid_plan::PlanCause::WindowEnd { .. }
                | exaraid_plan::PlanCause::WindowTimeout { .. }
        ) {
            return lost;
        }
        let core = self.core.lock();
        if core.state.failed_oss.is_empty() || core.state.lost.is_empty() {
            return lost;
        }
        let reads = plan.steps.iter().enumerate().filter(|(_, s)| {
            s.op == Op::Read && s.zone == PlanZone::Cache && core.state.failed_oss.contains(&s.oss)
        });
        for (i, step) in reads {
            for piece in &step.pieces {
                let Some(a) = self.layout.file_offset_of(&piece.element) else {
                    continue;
                };
                let len = piece.element.len_bytes;
                for l in core.state.lost_in(step.file, a, len) {
                    if l.oss != step.oss {
                        continue;
                    }
                    let (p, q) = (l.offset_bytes.max(a), l.end_bytes().min(a + len));
                    crate::state::add_range(lost.entry(i).or_default(), p, q);
                }
            }
        }
        lost
    }

    pub(super) fn read_step(&self, step: &Step) -> Result<Vec<u8>, StoreError> {
        self.count(
            step.oss,
            to_backend_zone(step.zone),
            Op::Read,
            step.is_parity(),
        );
        self.emulate_device(step.oss, Op::Read, step.len_bytes);
        let mut out = vec![0u8; step.len_bytes as usize];
        let mut at = 0usize;
        for piece in &step.pieces {
            let len = piece.element.len_bytes as usize;
            let buf = &mut out[at..at + len];
            let addr = step.addr_bytes + at as u64;
            // Repair what the read rebuilds: a later partial-block write of this plan to the
            // same element must find healthy edge blocks, or it fails half-way (issue #4 F1).
            let piece_at = ElementRead {
                oss: step.oss,
                zone: step.zone,
                file: step.file,
                addr_bytes: addr,
                element: &piece.element,
            };
            self.read_range_repairing(None, piece_at, buf, true, false)?;
            at += len;
        }
        Ok(out)
    }

    /// Reads `buf.len()` bytes at `at`; a block the OSS cannot give (unavailable, corrupt,
    /// missing) is rebuilt from the rest of its stripe.
    pub(super) fn read_range(
        &self,
        core: Option<&Core>,
        at: ElementRead,
        buf: &mut [u8],
    ) -> Result<(), StoreError> {
        self.read_range_repairing(core, at, buf, false, false)
    }

    /// `read_range` for a client's read (`Store::read`): also refuses a decode nothing can
    /// check while a journal tail cut is on record (`refuse_decode_after_tail_cut`). Only
    /// there: a refused decode inside a plan or recovery would fail it half way.
    pub(super) fn read_range_for_client(
        &self,
        at: ElementRead,
        buf: &mut [u8],
    ) -> Result<(), StoreError> {
        self.read_range_repairing(None, at, buf, false, true)
    }

    /// `oss` as `status` words it where only its directory is missing (not failed on record,
    /// no other problem: an unmount, not a dead disk), else `None`. Why (review s20r R20-2):
    /// a read whose bytes only that OSS holds told "unavailable (marked failed) ... rebuild",
    /// advice that is wrong for an OSS only away: the bytes come back with the mount.
    pub(super) fn missing_oss_dir(&self, core: Option<&Core>, oss: usize) -> Option<String> {
        let failed_on_record = match core {
            Some(core) => core.state.failed_oss.contains(&oss),
            None => self.core.lock().state.failed_oss.contains(&oss),
        };
        let dir = &self.sb.oss_dirs[oss];
        let missing = !failed_on_record
            && !self.backends_supplied
            && self.backends[oss].problem().is_none()
            && !dir.join(crate::backend::LABEL_FILE).exists();
        missing.then(|| {
            format!(
                "OSS {oss} is MISSING (not failed on record): its directory {} is not found (or holds no OSS label)",
                dir.display()
            )
        })
    }

    /// `missing_oss_dir` of the first OSS of `element`'s row other than the element's own
    /// that is only away, else `None`: a rebuild of the element that failed may have failed
    /// for want of it, and the bytes it holds come back with the mount (s44c). Bounded by
    /// the code's width.
    fn missing_oss_of_row(
        &self,
        core: Option<&Core>,
        file: u64,
        element: &exaraid_plan::ElementRange,
    ) -> Option<String> {
        let own = self.layout.oss_of(file, element.stripe, element.pos.col);
        (0..self.layout.width())
            .map(|col| self.layout.oss_of(file, element.stripe, col))
            .filter(|&o| o != own)
            .find_map(|o| self.missing_oss_dir(core, o))
    }

    /// `read_range`, and with `repair` a home block that failed its checksum, was rebuilt
    /// from parity and confirmed against its stored checksum is written back whole. Only a
    /// plan's read step repairs: it holds the stripe locks of its plan, so no other write can
    /// race the write-back; a `get` holds none and must leave the disk alone.
    fn read_range_repairing(
        &self,
        core: Option<&Core>,
        at: ElementRead,
        buf: &mut [u8],
        repair: bool,
        client_read: bool,
    ) -> Result<(), StoreError> {
        let ElementRead {
            oss,
            zone,
            file,
            addr_bytes: addr,
            element,
        } = at;
        let e = self.sb.element_bytes as u64;
        let mut done = 0usize;
        while done < buf.len() {
            let a = addr + done as u64;
            let off = (a % e) as usize;
            let n = (buf.len() - done).min(e as usize - off);
            let key = self.key(zone, file, a);
            match self.read_retrying(oss, key, off, &mut buf[done..done + n]) {
                // A client's read; a settle and a destage check what they read themselves
                // (`witness_stale_blocks`), and record what they find. Home bytes too: a
                // destage with an OSS out of service carries cached bytes home unchecked,
                // and their pieces stay until the settle's `PlannerReset`.
                Ok(())
                    if client_read
                        && (self.kind == StrategyKind::Wcl
                            || (zone == PlanZone::Data && self.home_witnessed())) =>
                {
                    let chunk_base = (zone == PlanZone::Cache)
                        .then(|| addr - element.offset_bytes - element.pos.row as u64 * e);
                    let read = (chunk_base, key, done);
                    self.check_cache_witness(
                        core,
                        oss,
                        file,
                        element,
                        read,
                        &mut buf[done..done + n],
                    )?;
                }
                Ok(()) => {}
                // Missing: the planner says these bytes are here, so they were written and
                // the slot was deleted or truncated outside exaraid; never read it as zeros.
                Err(err)
                    if (err.is_unavailable() || err.is_corrupt() || err.is_missing())
                        && zone != PlanZone::Cache =>
                {
                    if err.is_unavailable() {
                        self.warn_read_error_of_up_oss(oss, &err);
                        self.note_unavailable(core, oss)?; // a read records nothing
                    }
                    let from = element.offset_bytes as usize + done;
                    if self.never_written(core, file, element, from, n) {
                        // Zeros by the store's own record, whatever the disk or the rest
                        // of the stripe holds (see `HomeStripe::never_written`).
                        buf[done..done + n].fill(0);
                        done += n;
                        continue;
                    }
                    let (whole, checked_rows) = self.rebuild_element(
                        core,
                        file,
                        element.stripe,
                        element.pos,
                        (from, n),
                        client_read,
                    )?;
                    if err.is_corrupt() {
                        let rebuilt = (whole.as_slice(), &checked_rows);
                        self.confirm_rebuilt(core, oss, key, file, element, rebuilt, from, n)?;
                        if repair {
                            self.write_back_confirmed(oss, key, &whole, from, n)?;
                        }
                    }
                    // After the checksum's own refusals (their advice stands), and only on
                    // a client read (`repair` is a plan's, which checks its own reads).
                    if client_read && (self.kind == StrategyKind::Wcl || self.home_witnessed()) {
                        self.check_rebuilt_against_witness(
                            core, oss, file, element, &whole, from, n,
                        )?;
                    }
                    buf[done..done + n].copy_from_slice(&whole[from..from + n]);
                }
                Err(err) if err.is_unavailable() || err.is_corrupt() || err.is_missing() => {
                    if err.is_unavailable() {
                        self.warn_read_error_of_up_oss(oss, &err);
                        self.note_unavailable(core, oss)?; // a read records nothing
                    }
                    // The element's cache chunk (a column of one cache stripe).
                    let chunk_base = addr - element.offset_bytes - element.pos.row as u64 * e;
                    let want = (element.offset_bytes + done as u64, n as u64);
                    let whole = self
                        .rebuild_cached(
                            core,
                            file,
                            element.stripe,
                            element.pos,
                            oss,
                            chunk_base,
                            want,
                            client_read,
                        )
                        .map_err(|f| match self.missing_oss_dir(core, oss) {
                            // Not "marked failed ... rebuild": nothing is failed, and a
                            // rebuild would discard bytes intact on the unmounted disk.
                            // Still `DataLost` (unreadable now) for API callers that match it.
                            Some(missing) => StoreError::DataLost(format!(
                                "{missing}; without it: {}; nothing was changed or recorded lost: mount it and retry (the bytes are on it)",
                                f.err
                            )),
                            None => {
                                let failed = read_rebuild_failed(&err, oss, f.err);
                                match (&f.columns, client_read) {
                                    (Some(columns), true) => self.witness_decode_lost_for_good(
                                        core, (oss, file, element), want, columns, failed,
                                    ),
                                    _ => failed,
                                }
                            }
                        })?;
                    let from = element.offset_bytes as usize + done;
                    if err.is_corrupt() {
                        let block = CHECKSUM_BLOCK_BYTES;
                        let live = [(from as u64, (from + n) as u64)];
                        let blocks = from / block..(from + n).div_ceil(block);
                        let bad = self.unconfirmed_cache_blocks(oss, key, &whole, &live, blocks);
                        if !bad.is_empty() {
                            // Named by file bytes, with what was shown to work (s28e: "write
                            // these bytes again" was refused with this same message; that
                            // refused write records the bytes lost, after which a write of
                            // each lost range works).
                            let file_bytes = match self.layout.file_offset_of(element) {
                                Some(a) => {
                                    let a = a + done as u64;
                                    format!(" (file bytes {a}..{})", a + n as u64)
                                }
                                None => String::new(),
                            };
                            return Err(StoreError::DataLost(format!(
                                "{} stripe {} bytes {from}..{} of the element at row {} column {}{file_bytes} in the cache zone of OSS {oss}: blocks {bad:?} fail their checksum, and the bytes rebuilt from the cache stripe's parity do not match them either (data and parity disagree there: rot beside a stale element, an OSS that lost a write; which bytes are right cannot be told); nothing was recorded by this read. A write of these bytes is refused with this message and records them lost; then write each lost range again from your own copy (`exaraid store status {}` lists them), which works",
                                self.file_name_in(core, file),
                                element.stripe,
                                from + n,
                                element.pos.row,
                                element.pos.col,
                                self.dir.display()
                            )));
                        }
                    }
                    // As in the home arm above.
                    if client_read && self.kind == StrategyKind::Wcl {
                        self.check_rebuilt_against_witness(
                            core, oss, file, element, &whole, from, n,
                        )?;
                    }
                    buf[done..done + n].copy_from_slice(&whole[from..from + n]);
                }
                Err(err) => return Err(err.into()),
            }
            done += n;
        }
        Ok(())
    }

    /// Bytes `buf` of `element` (from its byte `element.offset_bytes + done`, read with
    /// verified checksums from the cache chunk at `chunk_base` of `oss`, or home) checked
    /// against the
    /// cache-zone witness (`State::cache_witness`): a piece whose crc differs holds bytes
    /// older than the last acknowledged ones (a lost write: a stale element under a valid
    /// checksum), an erasure. Its element is rebuilt from its cache stripe's parity and
    /// taken where every piece then matches; else its blocks are recorded LOST (when the
    /// caller holds no core lock: a read outside any plan) and the read fails `DataLost`,
    /// never returning the stale bytes with success. A piece reaching past `buf` is read
    /// on its own; one reaching past the element, or that does not read, is not checked
    /// (today's checks alone).
    fn check_cache_witness(
        &self,
        core: Option<&Core>,
        oss: usize,
        file: u64,
        element: &exaraid_plan::ElementRange,
        (chunk_base, key, done): (Option<u64>, ElementKey, usize),
        buf: &mut [u8],
    ) -> Result<(), StoreError> {
        let Some(file_at) = self.layout.file_offset_of(element) else {
            return Ok(());
        };
        let e = self.sb.element_bytes as u64;
        // File bytes `fa..fz` are `buf`; element byte `eb` is file byte `fa - from + eb`.
        let from = element.offset_bytes + done as u64;
        let fa = file_at + done as u64;
        let fz = fa + buf.len() as u64;
        let pieces = self.witness_in(core, file, fa, fz);
        if pieces.is_empty() {
            return Ok(());
        }
        let element_byte =
            |x: u64| -> Option<u64> { (x + from).checked_sub(fa).filter(|&b| b <= e) };
        let mut stale = Vec::new();
        for &(pa, pz, crc) in &pieces {
            let (Some(ea), Some(ez)) = (element_byte(pa), element_byte(pz)) else {
                continue;
            };
            let got = if fa <= pa && pz <= fz {
                crc32c::crc32c(&buf[(pa - fa) as usize..(pz - fa) as usize])
            } else {
                let mut piece = vec![0u8; (ez - ea) as usize];
                let kind = Unplanned::WitnessPiece;
                if (self.read_unplanned(kind, oss, key, ea as usize, &mut piece)).is_err() {
                    continue;
                }
                crc32c::crc32c(&piece)
            };
            if got != crc {
                stale.push((pa, pz, crc, ea, ez));
            }
        }
        if stale.is_empty() {
            return Ok(());
        }
        let want = (from, buf.len() as u64);
        let rebuilt = match chunk_base {
            Some(base) => {
                let at = (element.stripe, element.pos, oss, base);
                self.rebuild_cached(core, file, at.0, at.1, at.2, at.3, want, true)
            }
            // A non-WCL store's home element (the home witness, s44b): rebuilt from its
            // row's parity, the stale blocks erased (`erase_home_blocks_failing_the_witness`).
            None if self.home_witnessed() => self
                .rebuild_element(
                    core,
                    file,
                    element.stripe,
                    element.pos,
                    (from as usize, buf.len()),
                    true,
                )
                .map(|(whole, _)| whole)
                .map_err(CacheRebuildFailure::from),
            // WCL home bytes are not rebuilt: the destage that carried them home with an
            // OSS out of service left no parity that knows better (LOST, never a guess).
            None => Err(StoreError::DataLost(
                "they went home from the cache zone unchecked".into(),
            )
            .into()),
        };
        if let Ok(whole) = &rebuilt {
            assert_eq!(whole.len() as u64, e, "a rebuilt element is whole");
            let right = |&(pa, pz, crc, ea, ez): &(u64, u64, u32, u64, u64)| {
                pa < pz && crc32c::crc32c(&whole[ea as usize..ez as usize]) == crc
            };
            let pieces_right =
                pieces.iter().all(
                    |&(pa, pz, crc)| match (element_byte(pa), element_byte(pz)) {
                        (Some(ea), Some(ez)) => right(&(pa, pz, crc, ea, ez)),
                        _ => true,
                    },
                );
            // The decode went through every other column of the row; bytes no stale piece
            // covers were read from disk under a valid checksum. Where the two differ a
            // second column lost a write too (past the tolerance): neither is known right,
            // so the read is not served from either (review r43b MEDIUM-1).
            let in_stale = |x: u64| stale.iter().any(|&(pa, pz, ..)| pa <= x && x < pz);
            let rebuilt_bytes = &whole[from as usize..from as usize + buf.len()];
            let outside_agree = (buf.iter().zip(rebuilt_bytes).enumerate())
                .all(|(i, (read, decoded))| read == decoded || in_stale(fa + i as u64));
            if pieces_right && outside_agree {
                buf.copy_from_slice(rebuilt_bytes);
                return Ok(());
            }
        }
        let parity = match chunk_base {
            Some(_) => "its cache stripe's parity",
            None => "its stripe's parity",
        };
        // A column the rebuild needs is only away (its directory unmounted, not failed on
        // record): the bytes that prove this block may be on it, so refuse and record
        // nothing, as `check_rebuilt_against_witness` does for its own OSS (s44c). Weighed
        // (s45a, review r44c MEDIUM-1): a cache stripe's decode counts an away OSS only
        // where its column holds a chunk of that cache stripe the decode erased, and the
        // decode would have been within the code's tolerance with it; an OSS the decode
        // never needed left a real loss off the record (`status` clean) while it was away.
        // A home row (the home witness) is not weighed yet: any away OSS of the row.
        let away = match (&rebuilt, chunk_base) {
            (Err(f), Some(_)) => {
                (f.columns.as_ref()).and_then(|c| self.away_column_could_help(core, c))
            }
            (Err(_), None) if self.home_witnessed() => self.missing_oss_of_row(core, file, element),
            _ => None,
        };
        if let (Err(f), Some(missing)) = (&rebuilt, away) {
            return Err(StoreError::DataLost(format!(
                "{missing}; without it: {} file bytes from {fa}: they sit on OSS {oss} under a valid checksum, but their crc on record (the last acknowledged write's) differs (the OSS lost a write, or the metadata is older than the OSSs), and no rebuild from {parity}: {}; nothing was changed or recorded lost: mount it and retry (the bytes are on it)",
                self.file_name_in(core, file),
                f.err
            )));
        }
        let why = match &rebuilt {
            Ok(_) => format!("the bytes rebuilt from {parity} do not match it either"),
            Err(f) => format!("no rebuild from {parity}: {}", f.err),
        };
        let starts: Vec<u64> = stale.iter().map(|&(pa, ..)| pa).collect();
        Err(self.witness_stale_lost(
            core,
            oss,
            file,
            element,
            &starts,
            format!(
                "they sit on OSS {oss} under a valid checksum, but their crc on record (the last acknowledged write's) differs: the OSS lost a write (or the metadata is older than the OSSs); {why}"
            ),
        ))
    }

    /// The bytes `from..from + n` of `element` rebuilt from parity (`whole`, the element:
    /// its OSS out of service or its block failing its checksum) checked against the
    /// cache-zone witness. Why: the decode goes through every other column of the row, and
    /// a stale one among them (a lost write: old bytes under a valid checksum) makes the
    /// rebuilt bytes wrong under no checksum at all; the piece of the rebuilt block tells
    /// (review r43b: raid5, data OSS 0 failed, element 2 stale: 'f' WRONG byte 0 before).
    /// A mismatch is LOST, as `check_cache_witness` records it.
    #[allow(clippy::too_many_arguments)]
    fn check_rebuilt_against_witness(
        &self,
        core: Option<&Core>,
        oss: usize,
        file: u64,
        element: &exaraid_plan::ElementRange,
        whole: &[u8],
        from: usize,
        n: usize,
    ) -> Result<(), StoreError> {
        let Some(file_at) = self.layout.file_offset_of(element) else {
            return Ok(());
        };
        // File byte `x` is element byte `x - file_at + element.offset_bytes`.
        let element_byte = |x: u64| -> Option<usize> {
            (x + element.offset_bytes)
                .checked_sub(file_at)
                .map(|b| b as usize)
                .filter(|&b| b <= whole.len())
        };
        let fa = file_at + (from as u64 - element.offset_bytes);
        let pieces = self.witness_in(core, file, fa, fa + n as u64);
        let starts: Vec<u64> = (pieces.iter())
            .filter(
                |&&(pa, pz, crc)| match (element_byte(pa), element_byte(pz)) {
                    (Some(ea), Some(ez)) => crc32c::crc32c(&whole[ea..ez]) != crc,
                    _ => false,
                },
            )
            .map(|&(pa, ..)| pa)
            .collect();
        if starts.is_empty() {
            return Ok(());
        }
        if let Some(missing) = self.missing_oss_dir(core, oss) {
            // Its own bytes are on the unmounted disk: nothing to record lost.
            return Err(StoreError::DataLost(format!(
                "{missing}; without it: {} file bytes from {fa}: the bytes rebuilt from parity differ from their crc on record (a column the decode went through lost a write); nothing was changed or recorded lost: mount it and retry (the bytes are on it)",
                self.file_name_in(core, file)
            )));
        }
        Err(self.witness_stale_lost(
            core,
            oss,
            file,
            element,
            &starts,
            "the bytes rebuilt from parity differ from their crc on record (the last acknowledged write's): a column the decode went through lost a write".into(),
        ))
    }

    /// The error for witness pieces starting at file bytes `starts` that do not match,
    /// their whole 4 KiB file blocks recorded LOST first when the caller holds no core
    /// lock (a read outside any plan). Each block is clipped to the bytes the extent
    /// `element` holds: the block's other bytes may be newest in another extent, where
    /// they read right (review r43b LOW-1).
    pub(super) fn witness_stale_lost(
        &self,
        core: Option<&Core>,
        oss: usize,
        file: u64,
        element: &exaraid_plan::ElementRange,
        starts: &[u64],
        why: String,
    ) -> StoreError {
        let token = match self.kind {
            StrategyKind::Wcl => super::stale_cache::WITNESS_STALE,
            _ => super::home_witness::HOME_WITNESS_STALE,
        };
        self.blocks_lost(core, (oss, file, element), starts, token, why)
    }

    /// `witness_stale_lost` with the `Lost` record's token `token`: the whole 4 KiB file
    /// blocks starting at `starts`, clipped to `element`'s extent and the file's size,
    /// recorded LOST when the caller holds no core lock; the error names them and `why`.
    pub(super) fn blocks_lost(
        &self,
        core: Option<&Core>,
        (oss, file, element): (usize, u64, &exaraid_plan::ElementRange),
        starts: &[u64],
        token: &str,
        why: String,
    ) -> StoreError {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let size = self.file_size_for_clipping(core, file);
        let extent = match self.layout.file_offset_of(element) {
            Some(at) => (at, at + element.len_bytes),
            None => (0, u64::MAX),
        };
        let mut ranges: Vec<LostRange> = Vec::new();
        for &pa in starts {
            let a = (pa / block * block).max(extent.0);
            let z = (pa / block * block + block).min(size).min(extent.1);
            if a < z && !ranges.iter().any(|r| r.offset_bytes == a) {
                ranges.push(LostRange {
                    file,
                    offset_bytes: a,
                    len_bytes: z - a,
                    oss,
                    token: token.into(),
                    cache_addr_bytes: None,
                    made_final_by_rebuild: false,
                });
            }
        }
        let listed: Vec<String> = (ranges.iter())
            .map(|r| format!("{}..{}", r.offset_bytes, r.offset_bytes + r.len_bytes))
            .collect();
        let recorded = if core.is_none() && !ranges.is_empty() {
            let mut c = self.core.lock();
            if let Err(err) = self.journal(&mut c, Rec::Lost { ranges }, true) {
                return err;
            }
            "recorded lost"
        } else {
            "not recorded by this read"
        };
        StoreError::DataLost(format!(
            "{} bytes {} are lost ({recorded}): {why}. Write them again from your own copy",
            self.file_name_in(core, file),
            listed.join(", "),
        ))
    }

    /// Writes back the checksum blocks touching `from..from + len` of an element rebuilt from
    /// parity, which `confirm_rebuilt` has just confirmed: whole blocks, so the backend has no
    /// edge block to verify, and the bytes are the ones already acknowledged (old bytes, not
    /// the plan's new ones), so a crash at any point leaves the element as good as before.
    /// An OSS that fails meanwhile is left to the plan's write step, which records it.
    pub(super) fn write_back_confirmed(
        &self,
        oss: usize,
        key: ElementKey,
        whole: &[u8],
        from: usize,
        len: usize,
    ) -> Result<(), StoreError> {
        let block = CHECKSUM_BLOCK_BYTES;
        assert_eq!(whole.len(), self.sb.element_bytes);
        assert_eq!(whole.len() % block, 0);
        assert!(len > 0 && from + len <= whole.len());
        let first_bytes = from / block * block;
        let end_bytes = (from + len).div_ceil(block) * block;
        match self.backends[oss].write(key, first_bytes, &whole[first_bytes..end_bytes]) {
            Ok(()) => Ok(()),
            Err(err) if err.is_unavailable() => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    /// Writes back one whole checksum block of a cache element rebuilt and confirmed by
    /// `heal_unread_edge_blocks` (see `write_back_confirmed` for home elements).
    fn write_back_block(
        &self,
        oss: usize,
        key: ElementKey,
        first_bytes: usize,
        block: &[u8],
    ) -> Result<(), StoreError> {
        assert_eq!(block.len(), CHECKSUM_BLOCK_BYTES);
        assert_eq!(first_bytes % CHECKSUM_BLOCK_BYTES, 0);
        match self.backends[oss].write(key, first_bytes, block) {
            Ok(()) => Ok(()),
            Err(err) if err.is_unavailable() => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    /// A backend read, tried again (at most `IO_TRIES_MAX` times in all) while it fails as
    /// unavailable and the OSS is not marked failed. Why: a caller takes an unavailable
    /// answer as the OSS gone (it is marked failed, and a delayed window's bytes whose only
    /// copy sat in its cache zone are then lost, review E11c); one transient error (an EIO
    /// a retry does not see) must not decide that. A dead OSS costs its callers only the
    /// retries' failed calls.
    pub(super) fn read_retrying(
        &self,
        oss: usize,
        key: ElementKey,
        offset_bytes: usize,
        buf: &mut [u8],
    ) -> Result<(), crate::backend::BackendError> {
        let b = &self.backends[oss];
        let mut tries = 1;
        loop {
            match b.read(key, offset_bytes, buf) {
                Err(err) if err.is_unavailable() && b.healthy() && tries < IO_TRIES_MAX => {
                    tries += 1;
                }
                r => return r,
            }
        }
    }

    /// One write step. An OSS found down (not answering, or failing as unavailable over
    /// `IO_TRIES_MAX` tries) is recorded failed and the step skips it (parity carries its
    /// element); `copy_failing(oss)` runs first, so that what the plan holds of that OSS
    /// in memory is journaled before the failure is (`copy_columns_of_failing_oss`).
    pub(super) fn write_step(
        &self,
        step: &Step,
        bytes: &[u8],
        copy_failing: &(dyn Fn(usize) -> Result<(), StoreError> + Sync),
    ) -> Result<(), StoreError> {
        assert_eq!(bytes.len() as u64, step.len_bytes);
        self.count(
            step.oss,
            to_backend_zone(step.zone),
            Op::Write,
            step.is_parity(),
        );
        self.emulate_device(step.oss, Op::Write, step.len_bytes);
        let b = &self.backends[step.oss];
        if !b.healthy() {
            copy_failing(step.oss)?;
            return self.note_failed(step.oss); // degraded write: parity carries this element
        }
        let e = self.sb.element_bytes as u64;
        let mut done = 0usize;
        while done < bytes.len() {
            let a = step.addr_bytes + done as u64;
            let off = (a % e) as usize;
            let n = (bytes.len() - done).min(e as usize - off);
            // Tried again like a read (see `read_retrying`): a write that fails as
            // unavailable marks the OSS failed, which loses a delayed window's bytes whose
            // only copy is in its cache zone (review E11c: one transient EIO, also inside
            // the backend's read of a partial checksum block). Writing the same bytes to the
            // same place again is harmless whatever the failed try left.
            let mut tries = 1;
            loop {
                match b.write(
                    self.key(step.zone, step.file, a),
                    off,
                    &bytes[done..done + n],
                ) {
                    Ok(()) => break,
                    Err(err) if err.is_unavailable() && b.healthy() && tries < IO_TRIES_MAX => {
                        tries += 1;
                    }
                    Err(err) if err.is_unavailable() => {
                        copy_failing(step.oss)?;
                        return self.note_failed(step.oss);
                    }
                    Err(err) => return Err(err.into()),
                }
            }
            done += n;
        }
        Ok(())
    }
}

/// Home data edge blocks a plan read verified (or rebuilt) before its first write
/// (`heal_unread_edge_blocks`), by `(oss, key, block of the element)`.
pub(super) type EdgeBlocks = BTreeMap<(usize, ElementKey, usize), Vec<u8>>;

/// One wave of a plan's writes: its steps, and each step's bytes.
/// The data pieces of `zone` a client plan's waves write (`waves_bytes`), each with its
/// step, its element range, its zone address and its bytes from its first on: the one walk
/// of `edge_block_crcs` and `page_cut_crcs`.
fn written_data_pieces<'a>(
    plan: &'a IoPlan,
    waves_bytes: &'a [WaveBytes],
    zone: PlanZone,
    element_bytes: u64,
) -> impl Iterator<
    Item = (
        &'a exaraid_plan::Step,
        &'a exaraid_plan::ElementRange,
        u64,
        &'a [u8],
    ),
> + 'a {
    (waves_bytes.iter().flat_map(|(_, w)| w))
        .map(|(i, bytes)| (&plan.steps[*i], bytes))
        .filter(move |(step, _)| step.op == Op::Write && step.zone == zone && !step.is_parity())
        .flat_map(move |(step, bytes)| {
            let mut at = 0u64;
            step.pieces.iter().map(move |piece| {
                let el = &piece.element;
                let (addr, piece_at) = (step.addr_bytes + at, at);
                at += el.len_bytes;
                assert_eq!(
                    addr % element_bytes,
                    el.offset_bytes,
                    "a piece sits at its element offset"
                );
                (step, el, addr, &bytes[piece_at as usize..])
            })
        })
}

type WaveBytes = (Vec<usize>, Vec<(usize, Vec<u8>)>);

/// The blocks (of `block` bytes, by first byte within the element) that the piece `[a, z)`
/// covers only in part: at most two, one block may be both edges.
fn partial_edge_blocks(a: u64, z: u64, block: u64) -> Vec<u64> {
    assert!(block > 0);
    let mut edges: Vec<u64> = Vec::with_capacity(2);
    if a % block != 0 {
        edges.push(a / block * block);
    }
    if z % block != 0 && !edges.contains(&(z / block * block)) {
        edges.push(z / block * block);
    }
    edges
}

/// The runs of `runs` (unsorted, may overlap) within `[a, z)`, clipped, sorted and merged.
fn moved_runs_in(runs: Option<&Vec<(usize, usize)>>, a: usize, z: usize) -> Vec<(usize, usize)> {
    let mut inside: Vec<(usize, usize)> = runs
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(|&(p, q)| (p.max(a), q.min(z)))
        .filter(|&(p, q)| p < q)
        .collect();
    inside.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(inside.len());
    for (p, q) in inside {
        match merged.last_mut() {
            Some(last) if p <= last.1 => last.1 = last.1.max(q),
            _ => merged.push((p, q)),
        }
    }
    merged
}

/// Per read step of a plan, the file ranges it reads as the home bytes under them
/// (`Store::window_reads_lost`), sorted and disjoint.
type LostReads = BTreeMap<usize, Vec<(u64, u64)>>;

/// The bytes a read or client source names, in place; `None` for other sources.
fn borrowed<'a>(
    source: Bytes,
    len: u64,
    client: Option<(&ClientWrite, &'a [u8])>,
    read_bytes: &'a [Option<Vec<u8>>],
) -> Option<&'a [u8]> {
    let len = len as usize;
    match source {
        Bytes::Read { step, offset_bytes } => {
            let b = read_bytes[step]
                .as_ref()
                .expect("a step reads before it is used");
            Some(&b[offset_bytes as usize..offset_bytes as usize + len])
        }
        Bytes::Client { file_offset_bytes } => {
            let (w, data) =
                client.expect("a plan that copies client bytes runs with the client's buffer");
            let at = (file_offset_bytes - w.offset_bytes) as usize;
            Some(&data[at..at + len])
        }
        Bytes::Zero | Bytes::Computed { .. } => None,
    }
}

/// Whether every source compute `compute` of `plan` needs is at hand: its reads done and the
/// client's buffer given. A compute over another compute's output (the planner makes none:
/// `IoPlan::validate`) is never taken as ready here; it is computed when a write needs it.
fn compute_ready(
    plan: &IoPlan,
    compute: usize,
    has_client: bool,
    read_bytes: &[Option<Vec<u8>>],
) -> bool {
    let c = &plan.computes[compute];
    let source_ready = |source: Bytes| match source {
        Bytes::Zero => true,
        Bytes::Client { .. } => has_client,
        Bytes::Read { step, .. } => read_bytes[step].is_some(),
        Bytes::Computed { .. } => false,
    };
    source_ready(c.base)
        && c.terms
            .iter()
            .all(|t| source_ready(t.new) && source_ready(t.old))
}

/// Why a window byte read fails where its only copy does not read: the cache copy's
/// error is said without the backend's advice, which assumes parity.
const ONLY_COPY_NO_PARITY: &str = "is unreadable and has no parity yet";

/// A client read of a cached element failed with `err` on OSS `oss` and rebuilding it
/// failed with `rebuilt`. Where the bytes are a delayed window's only copy the backend's
/// advice ("`scrub --repair` rebuilds them from parity", "reads fall back to parity")
/// cannot help (review s18r, minor: the advice contradicted the reason after it): the
/// error says what can.
fn read_rebuild_failed(
    err: &crate::backend::BackendError,
    oss: usize,
    rebuilt: StoreError,
) -> StoreError {
    use crate::backend::BackendError;
    if !rebuilt.to_string().contains(ONLY_COPY_NO_PARITY) {
        return StoreError::DataLost(format!("{err}; rebuilding it failed: {rebuilt}"));
    }
    let (cause, way_out) = match err {
        BackendError::Corrupt { oss: at, key, block } => (
            format!("OSS {at}: checksum mismatch in {key} block {block}: the bytes on disk were silently corrupted"),
            "no parity exists to rebuild them (`scrub --repair` cannot either): write them again; until then the window's `delayed end` fails naming them".to_string(),
        ),
        BackendError::Unavailable { oss: at, why } => (
            format!("OSS {at} is unavailable ({why})"),
            format!("no parity exists to rebuild them: they read again once OSS {oss}'s disk answers (see `exaraid store status`), else write them again"),
        ),
        other => (
            other.to_string(),
            "no parity exists to rebuild them: write them again".to_string(),
        ),
    };
    StoreError::DataLost(format!("{cause}; {rebuilt}; {way_out}"))
}

/// Block `[first, first + 4 KiB)` of an element after a write piece covering element bytes
/// `[a, z)` (`piece`: its bytes from `a` on) is laid over its `old` bytes. The one place
/// the edge-block crcs (s24a) and the page-cut crcs (s26a) compute the new block, so the
/// two records can never disagree on what the write leaves there.
fn block_after_piece(old: &[u8], first: u64, (a, z): (u64, u64), piece: &[u8]) -> Vec<u8> {
    let block = CHECKSUM_BLOCK_BYTES as u64;
    assert_eq!(old.len() as u64, block);
    let (oa, oz) = (a.max(first), z.min(first + block));
    assert!(oa < oz, "the piece overlaps the block");
    let from = (oa - a) as usize;
    let mut whole = old.to_vec();
    whole[(oa - first) as usize..(oz - first) as usize]
        .copy_from_slice(&piece[from..from + (oz - oa) as usize]);
    whole
}

/// What a move home's edge reads found (`read_move_edge_blocks`), per home block `(file,
/// stripe, element position, block of the element)`: `None` where the OSS was down.
pub(super) type MoveEdgeReads =
    BTreeMap<(u64, u64, Pos, u64), Option<Result<Vec<u8>, BackendError>>>;

/// Whether `plan` is a delayed window's move home, whose home data reads are its edge
/// blocks (`read_move_edge_blocks`).
pub(super) fn move_edges_of(plan: &IoPlan) -> bool {
    matches!(plan.cause, exaraid_plan::PlanCause::WindowMove { .. })
}
