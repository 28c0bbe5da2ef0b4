//! `exaraid store bench`: the seed's workload on the real store.
//!
//! Several writer threads issue 128 KiB non-overlapping writes (each thread its own region of
//! one file, as the seed's clients "partition the data to avoid overwrites") on RAID-5 and
//! RAID-6 stores, once per write path (raid0, rmw, wcl, delayed). Per path the bench reports
//! the write-phase throughput (until the last write is acknowledged; for delayed, until END
//! returns with parity durable; background destage and moves are served by a background
//! thread and are not on the clock), the total time including the background work, and the
//! operations per OSS -- beside the operations the planner predicts for the same workload,
//! fed to a fresh strategy. In the same run it measures the raw write bandwidth of the same
//! directories (the same bytes as plain 128 KiB writes) and full-stripe streaming on rmw.
//! `Workload::Overwrite` (session 49) times overwrites of part of every such write instead,
//! after an untimed first pass, so that rmw's read steps meet home witness pieces.
//!
//! With an emulated device (`OpenOptions::emulate`) every plan step (and every raw write)
//! holds one unit of its OSS's device for the model's service time, so the paths compare at
//! a device's cost rather than at page-cache speed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use exaraid_codes::CodeSpec;
use exaraid_plan::{ClientWrite, Hint, IoPlan, Strategy, StrategyConfig};
use parking_lot::Mutex;
use serde::Serialize;

use crate::state::{OssOps, UnplannedReads};
use crate::store::{InitOptions, OpenOptions, ServiceTime};
use crate::{Store, StoreError, WritePath};

/// What to run.
#[derive(Clone)]
pub struct BenchOptions {
    /// Stores and raw files are created (and removed) under this directory.
    pub base_dir: PathBuf,
    pub emulate: Option<Arc<dyn ServiceTime>>,
    pub threads: usize,
    pub writes_per_thread: usize,
    /// The seed's write size: 128 KiB.
    pub write_bytes: usize,
    /// The stripe unit (the seed: 1 MiB).
    pub element_bytes: usize,
    /// Data columns of the RAID-5 / RAID-6 stripes.
    pub k: usize,
    /// fsync before acknowledging (the store's default). Emulated runs turn it off: the
    /// device model is the cost, the host's disk is not part of the experiment.
    pub fsync: bool,
    /// `OpenOptions::destage_defer_max_bytes` of the stores (0: WCL destage competes with
    /// the writes, as before it existed).
    pub destage_defer_max_bytes: u64,
    /// What the timed writes do (default: the seed's fresh regions).
    pub workload: Workload,
}

/// What the timed writes of a run do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// The seed's: each thread writes its own fresh region (nothing is ever overwritten).
    Fresh,
    /// A first pass, untimed (its background work drained before the timer), writes the
    /// seed's regions; the timed pass then overwrites part of every one of those writes
    /// (`overwrite_range`). Why (review r45c MEDIUM, OPEN since session 46): on fresh regions
    /// a write's input drops no home witness piece, so s45c's read-step check
    /// (`check_displaced_home_pieces`) only ever took its early return in a bench; an
    /// overwrite of acknowledged, witnessed blocks is its full path. The ranges end in the
    /// middle of 4 KiB blocks, so each write's two edge blocks hold pieces reaching past its
    /// read step (read again from disk by the check): the check's dearest case.
    Overwrite,
}

/// One pass of a run's writes: per thread, `(offset, length)` in the order it writes them.
pub type PassWrites = Vec<Vec<(u64, u64)>>;

/// Bytes the overwrite's ranges are shifted off block boundaries: half a checksum block.
pub const OVERWRITE_MISALIGN_BYTES: u64 = 2048;

/// Smallest write the overwrite workload takes: its range (half the write, shifted by a
/// quarter plus `OVERWRITE_MISALIGN_BYTES`) must lie inside the write it overwrites.
pub const OVERWRITE_WRITE_MIN_BYTES: u64 = 4 * OVERWRITE_MISALIGN_BYTES;

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Fresh => "fresh",
            Workload::Overwrite => "overwrite",
        }
    }

    pub fn parse(s: &str) -> Option<Workload> {
        [Workload::Fresh, Workload::Overwrite]
            .into_iter()
            .find(|w| w.name() == s)
    }

    /// The writes of a run, `(offset, length)` per thread in order: the untimed first pass
    /// (empty for `Fresh`) and the timed pass.
    pub fn writes(
        self,
        threads: usize,
        writes_per_thread: usize,
        write_bytes: usize,
    ) -> (PassWrites, PassWrites) {
        let wb = write_bytes as u64;
        let fresh: Vec<Vec<(u64, u64)>> = workload(threads, writes_per_thread, write_bytes)
            .into_iter()
            .map(|offs| offs.into_iter().map(|o| (o, wb)).collect())
            .collect();
        match self {
            Workload::Fresh => (Vec::new(), fresh),
            Workload::Overwrite => {
                let (shift, len) = overwrite_range(wb);
                let timed = (fresh.iter())
                    .map(|t| t.iter().map(|&(o, _)| (o + shift, len)).collect())
                    .collect();
                (fresh, timed)
            }
        }
    }
}

/// The part of a `write_bytes` write the overwrite workload writes again: `(shift, len)`,
/// half of it, from a quarter in plus half a checksum block (both ends mid-block).
pub fn overwrite_range(write_bytes: u64) -> (u64, u64) {
    assert!(
        write_bytes >= OVERWRITE_WRITE_MIN_BYTES,
        "the overwrite workload needs writes of at least {OVERWRITE_WRITE_MIN_BYTES} bytes"
    );
    let (shift, len) = (write_bytes / 4 + OVERWRITE_MISALIGN_BYTES, write_bytes / 2);
    assert!(shift + len <= write_bytes && len > 0);
    (shift, len)
}

impl BenchOptions {
    pub fn new(base_dir: PathBuf, quick: bool) -> BenchOptions {
        BenchOptions {
            base_dir,
            emulate: None,
            threads: 8,
            writes_per_thread: if quick { 16 } else { 64 },
            write_bytes: 128 << 10,
            element_bytes: 1 << 20,
            k: 4,
            fsync: true,
            destage_defer_max_bytes: crate::store::DESTAGE_DEFER_MAX_BYTES,
            workload: Workload::Fresh,
        }
    }
}

/// One write path on one code.
#[derive(Clone, Debug, Serialize)]
pub struct PathResult {
    pub code: String,
    pub path: String,
    pub bytes: u64,
    /// Until the last write is acknowledged (delayed: until END returned).
    pub write_phase_s: f64,
    /// Until the last write is acknowledged (delayed: before END; END took the rest of the
    /// write phase).
    pub writes_acked_s: f64,
    /// Including the background work (destage, moves).
    pub total_s: f64,
    pub throughput_mib_s: f64,
    /// Operations the store executed per OSS (foreground and background).
    pub ops_per_oss: Vec<OssOps>,
    /// Operations the planner's plans contain for the same workload, per OSS.
    pub planner_ops_per_oss: Vec<OssOps>,
    pub ops_match_planner: bool,
    /// Device reads the store made outside the plans' steps, per OSS (the checks before a
    /// write, `UnplannedReads`): not in `ops_per_oss` and in no planner count. Without
    /// them `ops_per_oss` undercounts what a path paid the devices (session 51). Not in
    /// them: the backend's own read of a partial block it merges inside a write.
    pub unplanned_per_oss: Vec<UnplannedReads>,
    /// Where the time went (thread-seconds, summed over writer and background threads).
    pub time: TimeBreakdown,
    /// With an emulated device: the busiest OSS's device time over the planner's plans for
    /// this workload (service time of every step / parallel units), i.e. the write phase
    /// if that device never idled. `foreground` counts the plans a writer waits for,
    /// `all` adds background plans (WCL destage, delayed moves). 0 without `--emulate`.
    pub model_bound_foreground_s: f64,
    pub model_bound_all_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RawResult {
    pub code: String,
    pub oss: usize,
    /// Bytes per write request.
    pub write_bytes: usize,
    pub bytes: u64,
    pub seconds: f64,
    pub throughput_mib_s: f64,
    /// With an emulated device: the busiest directory's device time (the writes are spread
    /// evenly, so every directory's), i.e. the run's time if no device ever idled.
    pub model_bound_s: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Ratio {
    pub code: String,
    pub what: String,
    pub value: f64,
    pub goal: f64,
    pub met: bool,
    /// With an emulated device, the ratio its busiest OSS allows for the planner's plans
    /// (see `PathResult::model_bound_*`): `foreground` if background work were free, `all`
    /// if it competes for the devices within the write phase. A goal above both cannot be
    /// met by any executor on this device model.
    pub model_bound_foreground: Option<f64>,
    pub model_bound_all: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// `fresh` (the seed's) or `overwrite` (no raw, streaming or ratios: see `Workload`).
    pub workload: Workload,
    pub emulate: Option<String>,
    pub threads: usize,
    pub writes_per_thread: usize,
    pub write_bytes: usize,
    pub element_bytes: usize,
    pub fsync: bool,
    pub destage_defer_max_bytes: u64,
    pub results: Vec<PathResult>,
    pub raw: Vec<RawResult>,
    /// Full-stripe writes on rmw (each write one whole stripe).
    pub streaming: Vec<PathResult>,
    pub ratios: Vec<Ratio>,
}

/// Where the time of a run goes: process-wide counters that the write path and the
/// directory backend add to, and that the bench reads as differences around one run (it runs
/// one store at a time). Why process-wide and not per store: the counters are a measuring
/// instrument, not part of the store; a relaxed atomic add per plan step costs nanoseconds
/// against the micro- to milliseconds of the work it measures.
pub struct Probe {
    /// Waiting for the stripe locks of a plan (plans of other writers on the same stripes).
    pub stripe_lock_wait_ns: AtomicU64,
    /// Executing the steps of plans (reads, parity arithmetic, writes, emulated devices).
    pub execute_ns: AtomicU64,
    /// `Backend::sync` of the OSSs a plan touched (before the plan is journaled durable).
    pub backend_sync_ns: AtomicU64,
    pub backend_syncs: AtomicU64,
    /// Waiting for the store's core lock after a plan, and the journal's durable record
    /// (an fsync of the journal when fsync is on) with the planner's completion under it.
    pub core_lock_wait_ns: AtomicU64,
    pub journal_durable_ns: AtomicU64,
    pub plans: AtomicU64,
    /// Waiting for a free unit of an emulated device (queueing), and the service time held.
    pub device_queue_ns: AtomicU64,
    pub device_busy_ns: [AtomicU64; PROBE_OSS_MAX],
    /// Zone files fsync'd by `DirBackend::sync` and the time in those fsyncs.
    pub zone_fsyncs: AtomicU64,
    pub zone_fsync_ns: AtomicU64,
    /// Writes of the per-OSS extents record (see `backend::EXTENTS_FILE`) and their time.
    pub extents_writes: AtomicU64,
    pub extents_ns: AtomicU64,
    /// fsyncs of the objects directory (new or removed zone files).
    pub dir_fsyncs: AtomicU64,
    /// Group-commit fsyncs of the journal (each covers the durable records of every plan
    /// that finished meanwhile; about one per plan without concurrency).
    pub journal_fsyncs: AtomicU64,
    /// fsyncs of the OSSs' journal mark files (see `backend::JOURNAL_MARK_FILE`): one per
    /// OSS per sync that made cache zone bytes durable past the last mark.
    pub journal_mark_fsyncs: AtomicU64,
    /// `DirBackend::healthy` calls (each stats the OSS label file).
    pub healthy_calls: AtomicU64,
    /// Read steps of client writes whose plan holds home witness pieces its input displaced
    /// (s45c's check past its early return: `check_displaced_home_pieces`), the pieces they
    /// overlapped and checked, and the device reads it made for those reaching past the
    /// step (one per 4 KiB block read whole; a second piece in a block already read costs
    /// none: per read, not per piece, since review r52e LOW-3).
    pub home_witness_checked_steps: AtomicU64,
    pub home_witness_checked_pieces: AtomicU64,
    pub home_witness_piece_reads: AtomicU64,
    /// Time in that check, every data read step of a client write (its early return too).
    pub home_witness_check_ns: AtomicU64,
}

/// OSSs the probe keeps device time for (the bench uses at most k + 2).
pub const PROBE_OSS_MAX: usize = 16;

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);

pub static PROBE: Probe = Probe {
    stripe_lock_wait_ns: ZERO,
    execute_ns: ZERO,
    backend_sync_ns: ZERO,
    backend_syncs: ZERO,
    core_lock_wait_ns: ZERO,
    journal_durable_ns: ZERO,
    plans: ZERO,
    device_queue_ns: ZERO,
    device_busy_ns: [ZERO; PROBE_OSS_MAX],
    zone_fsyncs: ZERO,
    zone_fsync_ns: ZERO,
    extents_writes: ZERO,
    extents_ns: ZERO,
    dir_fsyncs: ZERO,
    journal_fsyncs: ZERO,
    journal_mark_fsyncs: ZERO,
    healthy_calls: ZERO,
    home_witness_checked_steps: ZERO,
    home_witness_checked_pieces: ZERO,
    home_witness_piece_reads: ZERO,
    home_witness_check_ns: ZERO,
};

/// Add to a probe counter.
pub(crate) fn probe_add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

/// Nanoseconds since `t`, saturating (for probe counters).
pub(crate) fn probe_ns_since(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A copy of the probe's counters (seconds are summed over threads: "thread-seconds").
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeBreakdown {
    pub plans: u64,
    pub stripe_lock_wait_s: f64,
    pub execute_s: f64,
    pub backend_sync_s: f64,
    pub backend_syncs: u64,
    pub core_lock_wait_s: f64,
    pub journal_durable_s: f64,
    pub device_queue_s: f64,
    /// Service time charged per OSS by the emulated device, divided by its parallel units
    /// (comparable with the write phase: 1.0 x the write phase = the device never idled; 0
    /// without `--emulate`).
    pub device_busy_s: Vec<f64>,
    pub zone_fsyncs: u64,
    pub zone_fsync_s: f64,
    pub extents_writes: u64,
    pub extents_s: f64,
    pub dir_fsyncs: u64,
    pub journal_fsyncs: u64,
    pub journal_mark_fsyncs: u64,
    pub healthy_calls: u64,
    pub home_witness_checked_steps: u64,
    pub home_witness_checked_pieces: u64,
    pub home_witness_piece_reads: u64,
    pub home_witness_check_s: f64,
}

impl TimeBreakdown {
    fn now(oss: usize) -> TimeBreakdown {
        let s = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64 * 1e-9;
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let p = &PROBE;
        TimeBreakdown {
            plans: n(&p.plans),
            stripe_lock_wait_s: s(&p.stripe_lock_wait_ns),
            execute_s: s(&p.execute_ns),
            backend_sync_s: s(&p.backend_sync_ns),
            backend_syncs: n(&p.backend_syncs),
            core_lock_wait_s: s(&p.core_lock_wait_ns),
            journal_durable_s: s(&p.journal_durable_ns),
            device_queue_s: s(&p.device_queue_ns),
            device_busy_s: p.device_busy_ns[..oss.min(PROBE_OSS_MAX)]
                .iter()
                .map(s)
                .collect(),
            zone_fsyncs: n(&p.zone_fsyncs),
            zone_fsync_s: s(&p.zone_fsync_ns),
            extents_writes: n(&p.extents_writes),
            extents_s: s(&p.extents_ns),
            dir_fsyncs: n(&p.dir_fsyncs),
            journal_fsyncs: n(&p.journal_fsyncs),
            journal_mark_fsyncs: n(&p.journal_mark_fsyncs),
            healthy_calls: n(&p.healthy_calls),
            home_witness_checked_steps: n(&p.home_witness_checked_steps),
            home_witness_checked_pieces: n(&p.home_witness_checked_pieces),
            home_witness_piece_reads: n(&p.home_witness_piece_reads),
            home_witness_check_s: s(&p.home_witness_check_ns),
        }
    }

    /// `self - before`: what one run added.
    fn since(&self, before: &TimeBreakdown) -> TimeBreakdown {
        TimeBreakdown {
            plans: self.plans - before.plans,
            stripe_lock_wait_s: self.stripe_lock_wait_s - before.stripe_lock_wait_s,
            execute_s: self.execute_s - before.execute_s,
            backend_sync_s: self.backend_sync_s - before.backend_sync_s,
            backend_syncs: self.backend_syncs - before.backend_syncs,
            core_lock_wait_s: self.core_lock_wait_s - before.core_lock_wait_s,
            journal_durable_s: self.journal_durable_s - before.journal_durable_s,
            device_queue_s: self.device_queue_s - before.device_queue_s,
            device_busy_s: self
                .device_busy_s
                .iter()
                .zip(&before.device_busy_s)
                .map(|(a, b)| a - b)
                .collect(),
            zone_fsyncs: self.zone_fsyncs - before.zone_fsyncs,
            zone_fsync_s: self.zone_fsync_s - before.zone_fsync_s,
            extents_writes: self.extents_writes - before.extents_writes,
            extents_s: self.extents_s - before.extents_s,
            dir_fsyncs: self.dir_fsyncs - before.dir_fsyncs,
            journal_fsyncs: self.journal_fsyncs - before.journal_fsyncs,
            journal_mark_fsyncs: self.journal_mark_fsyncs - before.journal_mark_fsyncs,
            healthy_calls: self.healthy_calls - before.healthy_calls,
            home_witness_checked_steps: self.home_witness_checked_steps
                - before.home_witness_checked_steps,
            home_witness_checked_pieces: self.home_witness_checked_pieces
                - before.home_witness_checked_pieces,
            home_witness_piece_reads: self.home_witness_piece_reads
                - before.home_witness_piece_reads,
            home_witness_check_s: self.home_witness_check_s - before.home_witness_check_s,
        }
    }
}

/// Each thread's write offsets: thread `t` writes its own contiguous region in order.
pub fn workload(threads: usize, writes_per_thread: usize, write_bytes: usize) -> Vec<Vec<u64>> {
    (0..threads)
        .map(|t| {
            (0..writes_per_thread)
                .map(|i| ((t * writes_per_thread + i) * write_bytes) as u64)
                .collect()
        })
        .collect()
}

/// The planner's operation counts for a workload: a fresh strategy fed the same writes (and,
/// for delayed, the same window), every plan completed in order.
pub fn planner_counts(
    store: &Store,
    file: u64,
    offsets: &[Vec<u64>],
    write_bytes: u64,
    delayed: bool,
) -> Result<Vec<OssOps>, StoreError> {
    let plans = planner_plans(store, file, offsets, write_bytes, delayed)?;
    let counts = exaraid_plan::counts_per_oss(&plans, store.oss_count());
    Ok(counts.iter().map(OssOps::from).collect())
}

/// The busiest OSS's emulated device time over `plans` (seconds): the shortest time in which
/// the devices can serve these plans, whatever the executor does.
pub fn model_bound_s(
    plans: &[IoPlan],
    oss: usize,
    model: &dyn ServiceTime,
    foreground_only: bool,
) -> f64 {
    let mut busy_ns = vec![0u128; oss];
    for plan in plans {
        if foreground_only && plan.kind == exaraid_plan::PlanKind::Background {
            continue;
        }
        for step in &plan.steps {
            busy_ns[step.oss] += u128::from(model.service_ns(step.op, step.len_bytes));
        }
    }
    let units = model.parallel_units().max(1) as u128;
    busy_ns.iter().map(|&ns| ns / units).max().unwrap_or(0) as f64 * 1e-9
}

/// The planner's plans for a workload (see [`planner_counts`]).
pub fn planner_plans(
    store: &Store,
    file: u64,
    offsets: &[Vec<u64>],
    write_bytes: u64,
    delayed: bool,
) -> Result<Vec<IoPlan>, StoreError> {
    let writes: Vec<Vec<(u64, u64)>> = (offsets.iter())
        .map(|t| t.iter().map(|&o| (o, write_bytes)).collect())
        .collect();
    Ok(planner_plans_of_passes(store, file, &[], &writes, delayed)?.1)
}

/// The planner's plans for a run's two passes (`Workload::writes`): a fresh strategy fed the
/// untimed first pass, then the timed pass (for delayed, in a window: the first pass is
/// written outside any, as the run writes it), every plan completed in order. Returns the
/// plans of each pass.
pub fn planner_plans_of_passes(
    store: &Store,
    file: u64,
    first: &[Vec<(u64, u64)>],
    timed: &[Vec<(u64, u64)>],
    delayed: bool,
) -> Result<(Vec<IoPlan>, Vec<IoPlan>), StoreError> {
    let mut strategy: Box<dyn Strategy> = exaraid_plan::new_strategy(
        store.strategy_kind(),
        store.layout().clone(),
        StrategyConfig::default(),
    )
    .map_err(|e| StoreError::BadInput(e.to_string()))?;
    let err = |e: exaraid_plan::PlanError| StoreError::BadInput(e.to_string());
    let feed = |strategy: &mut Box<dyn Strategy>,
                new: Vec<IoPlan>,
                plans: &mut Vec<IoPlan>|
     -> Result<(), StoreError> {
        let mut queue: std::collections::VecDeque<IoPlan> = new.into();
        while let Some(p) = queue.pop_front() {
            queue.extend(strategy.on_complete(p.id).map_err(err)?);
            plans.push(p);
        }
        Ok(())
    };
    let write = |strategy: &mut Box<dyn Strategy>,
                 pass: &[Vec<(u64, u64)>],
                 plans: &mut Vec<IoPlan>|
     -> Result<(), StoreError> {
        for thread in pass {
            for &(offset_bytes, len_bytes) in thread {
                let w = ClientWrite {
                    client: 0,
                    app: 0,
                    file,
                    offset_bytes,
                    len_bytes,
                };
                let p = strategy.on_write(&w, 0).map_err(err)?;
                feed(strategy, p, plans)?;
            }
        }
        Ok(())
    };
    let mut first_plans: Vec<IoPlan> = Vec::new();
    write(&mut strategy, first, &mut first_plans)?;
    let mut plans: Vec<IoPlan> = Vec::new();
    if delayed {
        let p = strategy
            .on_hint(&Hint::StartDelayed { window: 0, file }, 0)
            .map_err(err)?;
        feed(&mut strategy, p, &mut plans)?;
    }
    write(&mut strategy, timed, &mut plans)?;
    if delayed {
        let p = strategy
            .on_hint(&Hint::EndDelayed { window: 0 }, 0)
            .map_err(err)?;
        feed(&mut strategy, p, &mut plans)?;
    }
    Ok((first_plans, plans))
}

fn payload(seed: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8 ^ seed as u8)
        .collect()
}

/// One pass of a run's writes: a thread per entry of `writes`, each writing its own in order
/// (`data[t]` cut to each write's length), with a thread serving the background plans; a
/// delayed window (`token`) ends after the writes. Returns when the last write was
/// acknowledged, when the pass's write phase ended (delayed: END returned) and, once the
/// background server drained, the whole pass (seconds since `start`).
fn run_pass(
    store: &Store,
    name: &str,
    writes: &[Vec<(u64, u64)>],
    data: &[Vec<u8>],
    token: Option<&str>,
    start: Instant,
) -> Result<(f64, f64, f64), StoreError> {
    assert_eq!(writes.len(), data.len(), "a payload per thread");
    let stop = AtomicBool::new(false);
    let (writes_acked_s, write_phase_s, result) = std::thread::scope(|s| {
        let server = s.spawn(|| store.serve_background(&stop));
        let writers: Vec<_> = writes
            .iter()
            .enumerate()
            .map(|(t, ws)| {
                let data = &data[t];
                s.spawn(move || -> Result<(), StoreError> {
                    for &(o, len) in ws {
                        store.write(name, o, &data[..len as usize])?;
                    }
                    Ok(())
                })
            })
            .collect();
        let mut result = Ok(());
        for w in writers {
            if let Err(e) = w.join().expect("writer thread") {
                result = Err(e);
            }
        }
        let writes_acked_s = start.elapsed().as_secs_f64();
        if let (Some(token), Ok(())) = (token, &result) {
            result = store.delayed_end(token);
        }
        let write_phase_s = start.elapsed().as_secs_f64();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Err(e) = server.join().expect("background thread") {
            result = result.and(Err(e));
        }
        (writes_acked_s, write_phase_s, result)
    });
    result?;
    Ok((writes_acked_s, write_phase_s, start.elapsed().as_secs_f64()))
}

/// `a - b`, per OSS and kind: the operations of what ran between two counts.
fn ops_since(a: &[OssOps], b: &[OssOps]) -> Vec<OssOps> {
    assert_eq!(a.len(), b.len(), "the same OSSs");
    (a.iter().zip(b)).map(|(a, b)| a.since(b)).collect()
}

/// Run one write path on one code; the store lives in `dir` (created and removed). With
/// `Workload::Overwrite`, the first pass runs before the timer (and before a delayed
/// store's window), and every figure of the result (time, operations, the planner's
/// operations and bounds, the probe's breakdown) is of the timed pass alone.
pub fn run_path(
    opts: &BenchOptions,
    dir: &Path,
    code: CodeSpec,
    oss: usize,
    path: WritePath,
    write_bytes: usize,
) -> Result<PathResult, StoreError> {
    let _ = std::fs::remove_dir_all(dir);
    let mut init = InitOptions::with_oss_count(dir, oss, code);
    init.element_bytes = opts.element_bytes;
    init.write_path = path;
    Store::init(dir, &init)?.close()?;
    let store = Store::open_with(
        dir,
        OpenOptions {
            fsync: opts.fsync,
            emulate: opts.emulate.clone(),
            destage_defer_max_bytes: opts.destage_defer_max_bytes,
            ..OpenOptions::default()
        },
    )?;
    let (first, timed) = opts
        .workload
        .writes(opts.threads, opts.writes_per_thread, write_bytes);
    let delayed = path == WritePath::Delayed;
    let name = "bench";
    let first_data: Vec<Vec<u8>> = (0..opts.threads).map(|t| payload(t, write_bytes)).collect();
    // The overwrite's bytes differ from the first pass's, so the read back tells them apart.
    let data: Vec<Vec<u8>> = match opts.workload {
        Workload::Fresh => first_data.clone(),
        Workload::Overwrite => (0..opts.threads)
            .map(|t| payload(t + opts.threads + 1, write_bytes))
            .collect(),
    };
    if !first.is_empty() {
        run_pass(&store, name, &first, &first_data, None, Instant::now())?;
    }
    let status_before = store.status()?;
    let ops_before: Vec<OssOps> = status_before.oss.iter().map(|o| o.ops).collect();
    let unplanned_before: Vec<UnplannedReads> =
        status_before.oss.iter().map(|o| o.unplanned).collect();
    let token = if delayed {
        Some(store.delayed_start(name)?)
    } else {
        None
    };
    let probe_before = TimeBreakdown::now(oss);
    let start = Instant::now();
    let (writes_acked_s, write_phase_s, total_s) =
        run_pass(&store, name, &timed, &data, token.as_deref(), start)?;
    let mut time = TimeBreakdown::now(oss).since(&probe_before);
    if let Some(m) = &opts.emulate {
        let units = m.parallel_units().max(1) as f64;
        time.device_busy_s.iter_mut().for_each(|b| *b /= units);
    }
    let bytes: u64 = timed.iter().flatten().map(|&(_, len)| len).sum();
    let file = store.file_id(name)?;
    let status_now = store.status()?;
    let ops_now: Vec<OssOps> = status_now.oss.iter().map(|o| o.ops).collect();
    let ops_per_oss = ops_since(&ops_now, &ops_before);
    assert_eq!(
        status_now.oss.len(),
        unplanned_before.len(),
        "the same OSSs"
    );
    let unplanned_per_oss: Vec<UnplannedReads> = (status_now.oss.iter().zip(&unplanned_before))
        .map(|(now, before)| now.unplanned.since(before))
        .collect();
    let (_, plans) = planner_plans_of_passes(&store, file, &first, &timed, delayed)?;
    let planner_ops_per_oss: Vec<OssOps> = exaraid_plan::counts_per_oss(&plans, oss)
        .iter()
        .map(OssOps::from)
        .collect();
    let (model_bound_foreground_s, model_bound_all_s) = match &opts.emulate {
        Some(m) => (
            model_bound_s(&plans, oss, m.as_ref(), true),
            model_bound_s(&plans, oss, m.as_ref(), false),
        ),
        None => (0.0, 0.0),
    };
    // The bench checks what it measured: every byte of each thread's first two writes
    // reads back (overwritten: the first pass's bytes with the overwrite's part over them).
    let wb = write_bytes as u64;
    for t in 0..opts.threads {
        let whole = first.get(t).unwrap_or(&timed[t]);
        for (i, &(o, len)) in whole.iter().take(2).enumerate() {
            let mut want = match opts.workload {
                Workload::Fresh => data[t][..len as usize].to_vec(),
                Workload::Overwrite => first_data[t][..len as usize].to_vec(),
            };
            if opts.workload == Workload::Overwrite {
                let (to, tlen) = timed[t][i];
                let at = (to - o) as usize;
                assert!(
                    to >= o && to + tlen <= o + wb,
                    "an overwrite lies in its write"
                );
                want[at..at + tlen as usize].copy_from_slice(&data[t][..tlen as usize]);
            }
            if store.read(name, o, len)? != want {
                return Err(StoreError::Io(format!(
                    "bench: bytes at {o} do not read back on {}",
                    path.name()
                )));
            }
        }
    }
    store.close()?;
    let _ = std::fs::remove_dir_all(dir);
    Ok(PathResult {
        code: code.to_string(),
        path: path.name().to_string(),
        bytes,
        write_phase_s,
        writes_acked_s,
        total_s,
        throughput_mib_s: bytes as f64 / (1 << 20) as f64 / write_phase_s,
        ops_match_planner: ops_per_oss == planner_ops_per_oss,
        ops_per_oss,
        planner_ops_per_oss,
        unplanned_per_oss,
        time,
        model_bound_foreground_s,
        model_bound_all_s,
    })
}

/// Emulated devices for raw writes (the same model the store uses per step, served the same
/// way: see `Store::emulate_device`).
struct RawDevices {
    model: Arc<dyn ServiceTime>,
    /// Per directory, when each unit is free.
    units: Vec<Mutex<Vec<Instant>>>,
}

impl RawDevices {
    fn serve(&self, oss: usize, bytes: u64) {
        let service_ns = self.model.service_ns(exaraid_plan::Op::Write, bytes);
        let arrived = Instant::now();
        let done = {
            let mut free_at = self.units[oss].lock();
            let unit = (0..free_at.len())
                .min_by_key(|&u| free_at[u])
                .expect("an emulated device has a unit");
            let start = free_at[unit].max(arrived);
            free_at[unit] = start + std::time::Duration::from_nanos(service_ns);
            free_at[unit]
        };
        std::thread::sleep(done.saturating_duration_since(Instant::now()));
    }
}

/// How the raw baseline writes `oss` directories: the same data bytes as the store run
/// (`threads x bytes_per_thread`) as plain writes of `write_bytes`, by `threads` rounded up
/// to a multiple of `oss` writers, each writing its equal share sequentially into its own
/// file of directory `writer % oss`. Why the rounding: raw must measure what the directories
/// can take. Earlier versions put 8 writers on 5 directories by `t % oss` (2/8 of the bytes
/// on the busiest directory instead of 1/5) and measured raw bandwidth 1.25x (RAID-6, 6
/// directories: 1.5x) too low, flattering the store's streaming ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawPlan {
    pub oss: usize,
    pub writers: usize,
    pub writes_per_writer: usize,
    pub write_bytes: usize,
}

impl RawPlan {
    pub fn new(threads: usize, oss: usize, write_bytes: usize, bytes_per_thread: usize) -> RawPlan {
        let writers = threads.div_ceil(oss) * oss;
        let total_bytes = threads * bytes_per_thread;
        RawPlan {
            oss,
            writers,
            writes_per_writer: (total_bytes / writers / write_bytes).max(1),
            write_bytes,
        }
    }

    /// Bytes each writer's file holds when its writes are done (all reserved before them).
    pub fn file_bytes(&self) -> u64 {
        (self.writes_per_writer * self.write_bytes) as u64
    }

    fn file_path(&self, dir: &Path, writer: usize) -> PathBuf {
        dir.join(format!("oss-{}/raw-{writer}", writer % self.oss))
    }
}

/// The raw baseline's files, made ready before its timer as the store's backend makes a
/// zone file ready for a write (`DirBackend::reserve`): opened with the same flags (read,
/// write, create: page-cache writes, no `O_DIRECT` / `O_SYNC`), their whole extent reserved
/// with `posix_fallocate`, and their new directory entries made durable. Why (s17g, store
/// bench on this disk): new files written with delayed allocation ran up to 13x slower than
/// reserved ones from one moment to the next, so a raw baseline into new files came out far
/// below its device bound and streaming/raw far above its cap (1.88 against 0.80). The
/// baseline is the directories' best case: the store pays its own reservations inside its
/// timed writes, so they count as its overhead.
pub fn prepare_raw_files(plan: &RawPlan, dir: &Path) -> Result<Vec<std::fs::File>, StoreError> {
    use std::os::unix::io::AsRawFd;
    let io = |e: std::io::Error| StoreError::Io(format!("raw bench in {}: {e}", dir.display()));
    let _ = std::fs::remove_dir_all(dir);
    for i in 0..plan.oss {
        std::fs::create_dir_all(dir.join(format!("oss-{i}"))).map_err(io)?;
    }
    let mut files = Vec::with_capacity(plan.writers);
    for t in 0..plan.writers {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            // The directory was just emptied; no O_TRUNC, as a zone file's open.
            .truncate(false)
            .open(plan.file_path(dir, t))
            .map_err(io)?;
        let rc =
            unsafe { libc::posix_fallocate(f.as_raw_fd(), 0, plan.file_bytes() as libc::off_t) };
        if rc != 0 {
            return Err(io(std::io::Error::from_raw_os_error(rc)));
        }
        files.push(f);
    }
    for i in 0..plan.oss {
        std::fs::File::open(dir.join(format!("oss-{i}")))
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    Ok(files)
}

/// Raw write bandwidth of `oss` directories (see `RawPlan`): the timer covers the writes
/// into the prepared files (`prepare_raw_files`) and, with fsync on, each file's
/// `fdatasync`, as `DirBackend::sync` syncs a zone file.
fn run_raw(
    opts: &BenchOptions,
    dir: &Path,
    code: &str,
    oss: usize,
    write_bytes: usize,
    bytes_per_thread: usize,
) -> Result<RawResult, StoreError> {
    let plan = RawPlan::new(opts.threads, oss, write_bytes, bytes_per_thread);
    use std::os::unix::fs::FileExt;
    let io = |e: std::io::Error| StoreError::Io(format!("raw bench in {}: {e}", dir.display()));
    let files = prepare_raw_files(&plan, dir)?;
    let devices = opts.emulate.as_ref().map(|m| RawDevices {
        model: m.clone(),
        units: (0..oss)
            .map(|_| Mutex::new(vec![Instant::now(); m.parallel_units().max(1)]))
            .collect(),
    });
    let start = Instant::now();
    std::thread::scope(|s| -> Result<(), StoreError> {
        let handles: Vec<_> = files
            .iter()
            .enumerate()
            .map(|(t, f)| {
                let devices = &devices;
                s.spawn(move || -> Result<(), StoreError> {
                    let target = t % oss;
                    let data = payload(t, write_bytes);
                    for i in 0..plan.writes_per_writer {
                        if let Some(d) = devices {
                            d.serve(target, write_bytes as u64);
                        }
                        f.write_all_at(&data, (i * write_bytes) as u64)
                            .map_err(io)?;
                    }
                    if opts.fsync {
                        f.sync_data().map_err(io)?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().expect("raw writer")?;
        }
        Ok(())
    })?;
    let seconds = start.elapsed().as_secs_f64();
    drop(files);
    let _ = std::fs::remove_dir_all(dir);
    let writers = plan.writers;
    let writes_per_writer = plan.writes_per_writer;
    let bytes = (writers * writes_per_writer * write_bytes) as u64;
    let model_bound_s = opts.emulate.as_ref().map_or(0.0, |m| {
        let per_dir = (writers / oss * writes_per_writer) as u128;
        let ns = per_dir * u128::from(m.service_ns(exaraid_plan::Op::Write, write_bytes as u64));
        (ns / m.parallel_units().max(1) as u128) as f64 * 1e-9
    });
    Ok(RawResult {
        code: code.to_string(),
        oss,
        write_bytes,
        bytes,
        seconds,
        throughput_mib_s: bytes as f64 / (1 << 20) as f64 / seconds,
        model_bound_s,
    })
}

/// Run the whole bench. `progress` hears one line per finished run.
pub fn run(opts: &BenchOptions, mut progress: impl FnMut(&str)) -> Result<BenchReport, StoreError> {
    assert!(opts.threads >= 1 && opts.writes_per_thread >= 1);
    if opts.workload == Workload::Overwrite && (opts.write_bytes as u64) < OVERWRITE_WRITE_MIN_BYTES
    {
        return Err(StoreError::BadInput(format!(
            "the overwrite workload needs writes of at least {OVERWRITE_WRITE_MIN_BYTES} bytes"
        )));
    }
    std::fs::create_dir_all(&opts.base_dir)
        .map_err(|e| StoreError::Io(format!("{}: {e}", opts.base_dir.display())))?;
    let mut results = Vec::new();
    let mut raw = Vec::new();
    let mut streaming = Vec::new();
    let mut ratios = Vec::new();
    for (code, oss, wcl_goal) in [
        (CodeSpec::raid5(opts.k), opts.k + 1, 1.33),
        (CodeSpec::raid6(opts.k), opts.k + 2, 1.2),
    ] {
        let mut by_path = std::collections::BTreeMap::new();
        let mut bound_of = std::collections::BTreeMap::new();
        for path in [
            WritePath::Raid0,
            WritePath::Rmw,
            WritePath::Wcl,
            WritePath::Delayed,
        ] {
            let r = run_path(
                opts,
                &opts.base_dir.join("store"),
                code,
                oss,
                path,
                opts.write_bytes,
            )?;
            progress(&format!(
                "{code} {}: {:.1} MiB/s",
                r.path, r.throughput_mib_s
            ));
            by_path.insert(path.name(), r.throughput_mib_s);
            bound_of.insert(
                path.name(),
                (r.model_bound_foreground_s, r.model_bound_all_s),
            );
            results.push(r);
        }
        if opts.workload != Workload::Fresh {
            // Raw writes, full-stripe streaming and the goals are the seed's workload's: an
            // overwrite run reports its paths alone.
            continue;
        }
        let r = run_raw(
            opts,
            &opts.base_dir.join("raw"),
            &code.to_string(),
            oss,
            opts.write_bytes,
            opts.writes_per_thread * opts.write_bytes,
        )?;
        progress(&format!(
            "{code} raw {} KiB writes: {:.1} MiB/s",
            opts.write_bytes >> 10,
            r.throughput_mib_s
        ));
        raw.push(r);
        // Full-stripe streaming: each write is one whole stripe (k elements).
        let mut stream_opts = opts.clone();
        stream_opts.writes_per_thread =
            (opts.writes_per_thread * opts.write_bytes / (opts.k * opts.element_bytes)).max(4);
        let stream_bytes = opts.k * opts.element_bytes;
        // Streaming is compared with raw writes of the stripe unit (the requests the store
        // sends each OSS when it writes full stripes), the same data bytes per thread.
        let r = run_raw(
            opts,
            &opts.base_dir.join("raw"),
            &code.to_string(),
            oss,
            opts.element_bytes,
            stream_opts.writes_per_thread * stream_bytes,
        )?;
        progress(&format!(
            "{code} raw {} KiB writes: {:.1} MiB/s",
            opts.element_bytes >> 10,
            r.throughput_mib_s
        ));
        let raw_mib_s = r.throughput_mib_s;
        let raw_bound_mib_s = r.bytes as f64 / (1 << 20) as f64 / r.model_bound_s;
        raw.push(r);
        let s = run_path(
            &stream_opts,
            &opts.base_dir.join("store"),
            code,
            oss,
            WritePath::Rmw,
            stream_bytes,
        )?;
        progress(&format!(
            "{code} full-stripe streaming (rmw): {:.1} MiB/s",
            s.throughput_mib_s
        ));
        let stream_mib_s = s.throughput_mib_s;
        // Full stripes write (k + m) / k bytes per byte of data: on devices that are the
        // bottleneck, streaming can reach at most k / (k + m) of raw (RAID-6 4+2: 0.67).
        let stream_bound_mib_s = s.bytes as f64 / (1 << 20) as f64 / s.model_bound_all_s;
        let stream_bound = opts
            .emulate
            .as_ref()
            .map(|_| stream_bound_mib_s / raw_bound_mib_s);
        streaming.push(s);
        let emulated = opts.emulate.is_some();
        // Throughput ratio a / b allowed by the device model: b's bound time over a's.
        let bound = |a: &str, b: &str| -> (Option<f64>, Option<f64>) {
            let ((a_fg, a_all), (_, b_all)) = (bound_of[a], bound_of[b]);
            if !emulated || a_fg <= 0.0 || a_all <= 0.0 {
                return (None, None);
            }
            // Foreground: the numerator's background is free; the denominator's counts in
            // full (raid0 and rmw have no background plans, so both bounds agree there).
            (Some(b_all / a_fg), Some(b_all / a_all))
        };
        let mut ratio = |what: &str, value: f64, goal: f64, bounds: (Option<f64>, Option<f64>)| {
            ratios.push(Ratio {
                code: code.to_string(),
                what: what.to_string(),
                value,
                goal,
                met: value >= goal,
                model_bound_foreground: bounds.0,
                model_bound_all: bounds.1,
            });
        };
        ratio(
            "wcl / rmw",
            by_path["wcl"] / by_path["rmw"],
            wcl_goal,
            bound("wcl", "rmw"),
        );
        ratio(
            "delayed / raid0",
            by_path["delayed"] / by_path["raid0"],
            0.9,
            bound("delayed", "raid0"),
        );
        ratio(
            "full-stripe streaming / raw (stripe-unit writes)",
            stream_mib_s / raw_mib_s,
            0.8,
            (stream_bound, stream_bound),
        );
    }
    Ok(BenchReport {
        workload: opts.workload,
        emulate: opts.emulate.as_ref().map(|e| e.name()),
        threads: opts.threads,
        writes_per_thread: opts.writes_per_thread,
        write_bytes: opts.write_bytes,
        element_bytes: opts.element_bytes,
        fsync: opts.fsync,
        destage_defer_max_bytes: opts.destage_defer_max_bytes,
        results,
        raw,
        streaming,
        ratios,
    })
}

/// Smallest, median and largest of a set of measurements.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Spread {
        assert!(!values.is_empty());
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Spread {
            min: v[0],
            median,
            max: v[n - 1],
        }
    }
}

/// One goal over all repetitions.
#[derive(Clone, Debug, Serialize)]
pub struct RatioSummary {
    pub code: String,
    pub what: String,
    pub goal: f64,
    /// The ratio of each repetition, in run order.
    pub values: Vec<f64>,
    pub spread: Spread,
    /// Repetitions in which the goal was met.
    pub met_runs: usize,
    pub model_bound_foreground: Option<Spread>,
    pub model_bound_all: Option<Spread>,
}

/// One write path's throughput over all repetitions.
#[derive(Clone, Debug, Serialize)]
pub struct ThroughputSummary {
    pub code: String,
    pub path: String,
    pub values_mib_s: Vec<f64>,
    pub spread_mib_s: Spread,
}

/// The whole bench repeated: each repetition runs every configuration once, in the same
/// order, so every ratio has one value per repetition.
#[derive(Clone, Debug, Serialize)]
pub struct BenchSeries {
    pub repetitions: usize,
    pub ratios: Vec<RatioSummary>,
    pub throughput: Vec<ThroughputSummary>,
    pub runs: Vec<BenchReport>,
}

/// Run the bench `repetitions` times and summarise every ratio and throughput.
pub fn run_repeated(
    opts: &BenchOptions,
    repetitions: usize,
    mut progress: impl FnMut(&str),
) -> Result<BenchSeries, StoreError> {
    assert!(repetitions >= 1);
    let mut runs = Vec::with_capacity(repetitions);
    for i in 0..repetitions {
        progress(&format!("repetition {} of {repetitions}", i + 1));
        runs.push(run(opts, &mut progress)?);
    }
    let first = &runs[0];
    let ratios = (0..first.ratios.len())
        .map(|j| {
            let of = |f: &dyn Fn(&Ratio) -> Option<f64>| -> Option<Spread> {
                let v: Option<Vec<f64>> = runs.iter().map(|r| f(&r.ratios[j])).collect();
                v.map(|v| Spread::of(&v))
            };
            let values: Vec<f64> = runs.iter().map(|r| r.ratios[j].value).collect();
            RatioSummary {
                code: first.ratios[j].code.clone(),
                what: first.ratios[j].what.clone(),
                goal: first.ratios[j].goal,
                spread: Spread::of(&values),
                met_runs: runs.iter().filter(|r| r.ratios[j].met).count(),
                values,
                model_bound_foreground: of(&|r| r.model_bound_foreground),
                model_bound_all: of(&|r| r.model_bound_all),
            }
        })
        .collect();
    let throughput = (0..first.results.len() + first.streaming.len())
        .map(|j| {
            let pick = |r: &BenchReport| -> PathResult {
                r.results
                    .iter()
                    .chain(r.streaming.iter())
                    .nth(j)
                    .expect("same runs")
                    .clone()
            };
            let values: Vec<f64> = runs.iter().map(|r| pick(r).throughput_mib_s).collect();
            let p = pick(first);
            ThroughputSummary {
                code: p.code,
                path: if j >= first.results.len() {
                    format!("{} full stripes", p.path)
                } else {
                    p.path
                },
                spread_mib_s: Spread::of(&values),
                values_mib_s: values,
            }
        })
        .chain((0..first.raw.len()).map(|j| {
            let values: Vec<f64> = runs.iter().map(|r| r.raw[j].throughput_mib_s).collect();
            ThroughputSummary {
                code: first.raw[j].code.clone(),
                path: format!("raw {} KiB writes", first.raw[j].write_bytes >> 10),
                spread_mib_s: Spread::of(&values),
                values_mib_s: values,
            }
        }))
        .collect();
    Ok(BenchSeries {
        repetitions,
        ratios,
        throughput,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// The raw baseline must write into space reserved as the store's slots are, not into
    /// new files (delayed allocation made raw slower than the store, streaming/raw 1.88).
    #[test]
    fn raw_baseline_files_are_reserved_whole_before_the_timed_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("raw");
        let oss = 5;
        // The quick bench's stripe-unit raw run: 8 threads x 4 stripes of 4 x 1 MiB.
        let plan = RawPlan::new(8, oss, 1 << 20, 4 * (4 << 20));
        assert_eq!((plan.writers, plan.writes_per_writer), (10, 12));
        let files = prepare_raw_files(&plan, &dir).unwrap();
        assert_eq!(files.len(), plan.writers, "one file per writer");
        for t in 0..plan.writers {
            let path = dir.join(format!("oss-{}/raw-{t}", t % oss));
            let m = std::fs::metadata(&path).unwrap();
            let allocated_bytes = m.blocks() * 512;
            assert!(
                m.len() == plan.file_bytes() && allocated_bytes >= plan.file_bytes(),
                "{}: {} bytes long, {allocated_bytes} bytes allocated before its timed writes; wants both {}",
                path.display(),
                m.len(),
                plan.file_bytes()
            );
        }
    }
}
