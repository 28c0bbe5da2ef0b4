//! The tape tier simulator: requests, MAIN-SCHEDULER, LOAD-BALANCER (seed section 5), the
//! four policies (seed section 4) executing on drives, robot arms and movers.
//!
//! How a request runs: when a process starts a request it *plans* the whole execution at
//! once -- for every drive (lane) the tape exchanges (rewind, unload, arm move, arm move,
//! load, locate) and the transfers, lockstep where the policy is lockstep -- reserving the
//! robot arms as it goes, and schedules one completion event. Arms are reserved in the
//! order plans are made (first come, first served at plan time). That keeps the event count
//! at about two per request, which is what lets a simulated year at full scale run in
//! seconds. docs/archive.md lists every choice where the seed is silent.

use crate::hardware::{Platform, BYTES_PER_GB};
use crate::layout::{rait_ec_blocks_on_lane, Scheme, TABLE1};
use exaraid_codes::accumulate::ParityAccumulator;
use exaraid_des::{ns_from_s, s_from_ns, Engine, TimeNs, NS_PER_S};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

/// Keys are tape and file ids (u64) that we generate ourselves: a multiply-rotate hash (as
/// in rustc's FxHasher) is enough and several times cheaper than SipHash, which was the
/// largest item in a profile of a saturated year.
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// How a mover ranks for a new process: fits without reclaiming, free drives, free plus
/// reclaimable drives, lowest index.
type MoverPreference = (bool, usize, usize, std::cmp::Reverse<usize>);

/// An archival policy. HETERO is a rule choosing VERTICAL or PARALLEL per file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    Rait,
    Parallel,
    Vertical,
    Hetero,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Rait => "rait",
            Policy::Parallel => "parallel",
            Policy::Vertical => "vertical",
            Policy::Hetero => "hetero",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Policy::Rait => "RAIT",
            Policy::Parallel => "PARALLEL",
            Policy::Vertical => "VERTICAL",
            Policy::Hetero => "HETERO",
        }
    }

    /// The policy that stores a file of `size_bytes` (seed 6.3: HETERO uses VERTICAL for
    /// files smaller than 1 GB and PARALLEL otherwise).
    pub fn concrete(self, size_bytes: f64, hetero_threshold_bytes: f64) -> Policy {
        match self {
            Policy::Hetero if size_bytes < hetero_threshold_bytes => Policy::Vertical,
            Policy::Hetero => Policy::Parallel,
            p => p,
        }
    }

    fn index(self) -> usize {
        match self {
            Policy::Rait => 0,
            Policy::Parallel => 1,
            Policy::Vertical => 2,
            Policy::Hetero => unreachable!("HETERO is resolved per file before it reaches a type"),
        }
    }
}

/// A request type (seed section 5): policy and resiliency scheme. 3 policies x 8 schemes.
pub type TypeId = usize;
const TYPES: usize = 3 * TABLE1.len();

fn type_of(policy: Policy, scheme_index: usize) -> TypeId {
    policy.index() * TABLE1.len() + scheme_index
}
fn type_policy(t: TypeId) -> Policy {
    [Policy::Rait, Policy::Parallel, Policy::Vertical][t / TABLE1.len()]
}
fn type_scheme(t: TypeId) -> Scheme {
    TABLE1[t % TABLE1.len()].0
}

/// The knobs of section 5. The seed names them but gives no values except the
/// MINLBINTERVAL sweep of Figure 10; the defaults are exaraid's choices (docs/archive.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SchedulerParams {
    pub max_light_load: usize,
    pub min_lb_interval_s: f64,
    pub max_waiting_time_s: f64,
    pub max_req_count: usize,
    pub max_imbalance: f64,
}

impl Default for SchedulerParams {
    fn default() -> Self {
        SchedulerParams {
            max_light_load: 0,
            // Seed Figure 10: RAIT and PARALLEL are best at 6 days.
            min_lb_interval_s: 6.0 * 86_400.0,
            max_waiting_time_s: 3_600.0,
            max_req_count: 100,
            max_imbalance: 10.0,
        }
    }
}

/// Hardware compression of a file's data (C_D) and EC blocks (C_P).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub enum Compression {
    /// Seed 6.1: C_D uniform in [1, 3], C_P uniform in [1, C_D].
    Random,
    Fixed {
        data: f64,
        ec: f64,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SimConfig {
    pub policy: Policy,
    /// RAIT's block size B (seed 4.1).
    pub rait_block_bytes: f64,
    /// PARALLEL's block size: only its memory footprint (X+Y)B depends on it here, since the
    /// blocks a data tape receives are consecutive in the file and stream.
    pub parallel_block_bytes: f64,
    pub hetero_threshold_bytes: f64,
    pub size_min_bytes: f64,
    pub size_max_bytes: f64,
    pub arrival_rate_per_hour: f64,
    /// Arrivals happen in [0, duration).
    pub duration_s: f64,
    /// After the arrivals stop, the run goes on at most this long to finish the backlog.
    pub drain_max_s: f64,
    pub compression: Compression,
    pub read_fraction: f64,
    pub new_file_fraction: f64,
    /// Files already in the archive when the run starts (reads and rewrites pick among them
    /// and the files written during the run).
    pub archived_files: u64,
    /// How many files written during the run are remembered for reads (a bound on memory).
    pub recent_files_max: usize,
    pub scheduler: SchedulerParams,
    pub seed: u64,
}

impl SimConfig {
    pub fn new(
        policy: Policy,
        size_min_bytes: f64,
        size_max_bytes: f64,
        arrival_rate_per_hour: f64,
        duration_s: f64,
        seed: u64,
    ) -> SimConfig {
        SimConfig {
            policy,
            rait_block_bytes: 192e6,
            parallel_block_bytes: 256e6,
            hetero_threshold_bytes: BYTES_PER_GB,
            size_min_bytes,
            size_max_bytes,
            arrival_rate_per_hour,
            duration_s,
            drain_max_s: duration_s,
            compression: Compression::Random,
            read_fraction: 0.5,
            new_file_fraction: 0.9,
            archived_files: archived_files_for(size_min_bytes, size_max_bytes),
            recent_files_max: 100_000,
            scheduler: SchedulerParams::default(),
            seed,
        }
    }
}

/// One request as it arrives.
#[derive(Clone, Debug)]
pub struct Request {
    pub arrival_ns: TimeNs,
    pub is_read: bool,
    pub file: u64,
    pub size_bytes: f64,
    pub rtype: TypeId,
    pub c_d: f64,
    pub c_p: f64,
}

/// What the schedulers decided for a request (recorded for tests when asked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Mapped on a running process of its type holding at most MAXLIGHTLOAD requests.
    MappedLight { process: usize },
    /// A new process was created for it.
    Created { process: usize, mover: usize },
    /// No process could be created: mapped on the least loaded process of its type.
    MappedHeavy { process: usize },
    /// Put in the waiting list (file in use, or no process of its type).
    Delayed,
    /// Mapped by LOAD-BALANCER.
    Remapped { process: usize },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LbTrigger {
    WaitingTime,
    RequestCount,
    Imbalance,
}

/// Results of one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Metrics {
    pub requests: u64,
    pub completed: u64,
    pub avg_weighted_response_s_per_gb: f64,
    pub avg_response_s: f64,
    pub throughput_mb_s: f64,
    pub backlog_half: u64,
    pub backlog_end: u64,
    pub saturated: bool,
    pub lb_runs: u64,
    pub tape_mounts: u64,
    pub events: u64,
    /// Requests that went through the waiting list at least once.
    pub delayed: u64,
    /// Idle processes ended by MAIN-SCHEDULER to free their drives.
    pub reclaimed: u64,
    pub processes_created: u64,
    /// Fraction of drive time spent transferring (data or EC) during the run.
    pub drive_transfer_utilization: f64,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrival,
    Done { process: u32, request: u32 },
    LbTick,
    SampleBacklog { end: bool },
}

#[derive(Clone, Debug)]
struct Drive {
    mover: usize,
    owner: Option<usize>,
    mounted: Option<(u64, f64)>,
    free_at_ns: TimeNs,
}

#[derive(Clone, Debug)]
struct Mover {
    idle_drives: Vec<usize>,
    memory_free_bytes: f64,
    disk_free_bytes: f64,
}

/// The tape a lane is writing and how full it is (on-tape bytes).
#[derive(Clone, Copy, Debug, Default)]
struct LaneTape {
    tape: Option<u64>,
    fill_bytes: f64,
}

#[derive(Clone, Debug)]
struct Process {
    rtype: TypeId,
    mover: usize,
    drives: Vec<usize>,
    queue: VecDeque<u32>,
    running: Option<u32>,
    /// LOAD-BALANCER ended it while a request was running: it dies after that request.
    terminating: bool,
    alive: bool,
    memory_bytes: f64,
    disk_bytes: f64,
    lanes: Vec<LaneTape>,
    /// RAIT rotation carried over between requests.
    stripe_counter: u64,
    /// VERTICAL: the EC of the current group of X data tapes, accumulated on the mover's
    /// disk (codes::accumulate, the bookkeeping Delayed Parity shares): data element j is
    /// the j-th data tape of the group, its size the on-tape EC bytes its data produces;
    /// the tape being filled is the next one not yet arrived (tapes close in order).
    vertical_ec: ParityAccumulator,
}

impl Process {
    fn load(&self) -> usize {
        self.queue.len() + usize::from(self.running.is_some())
    }
}

/// One piece of a file as a reader must fetch it: one tape per lane read, where to start,
/// how far the lanes advance and how long the transfer takes once all lanes are ready.
#[derive(Clone, Debug)]
struct Chunk {
    tapes: Vec<(u64, f64)>,
    advance_bytes: f64,
    duration_s: f64,
}

#[derive(Clone, Debug)]
struct FileRec {
    size_bytes: f64,
    rtype: TypeId,
    c_d: f64,
    c_p: f64,
    chunks: Vec<Chunk>,
}

const EPS_BYTES: f64 = 1.0;
/// Fresh (scratch) tapes get ids above the pre-existing archive's.
const SCRATCH_TAPE_BASE: u64 = 1 << 40;

pub struct Sim {
    cfg: SimConfig,
    platform: Platform,
    engine: Engine<Ev>,
    rng: ChaCha8Rng,
    script: Option<VecDeque<Request>>,
    requests: Vec<Request>,
    drives: Vec<Drive>,
    movers: Vec<Mover>,
    arms_free_ns: Vec<TimeNs>,
    tape_drive: IdMap<u64, usize>,
    next_scratch_tape: u64,
    processes: Vec<Process>,
    free_slots: Vec<usize>,
    mover_procs: Vec<Vec<usize>>,
    reclaimed: u64,
    processes_created: u64,
    transfer_drive_s: f64,
    by_type: Vec<Vec<usize>>,
    waiting: VecDeque<u32>,
    /// Requests in the system (waiting, queued or running) per file.
    file_busy: IdMap<u64, u32>,
    /// Requests mapped on a process (queued or running) per file.
    file_mapped: IdMap<u64, u32>,
    in_system_by_type: Vec<u64>,
    catalog: IdMap<u64, FileRec>,
    recent: VecDeque<u64>,
    next_file: u64,
    end_ns: TimeNs,
    // Metrics.
    sum_weighted: f64,
    sum_response_s: f64,
    completed: u64,
    bytes_done: f64,
    last_done_ns: TimeNs,
    backlog_half: u64,
    backlog_end: u64,
    lb_runs: u64,
    tape_mounts: u64,
    delayed: u64,
    pub decisions: Option<Vec<(u32, Decision)>>,
    pub lb_log: Vec<(TimeNs, LbTrigger)>,
}

impl Sim {
    pub fn new(cfg: SimConfig, platform: Platform) -> Sim {
        assert!(cfg.size_min_bytes > 0.0 && cfg.size_max_bytes >= cfg.size_min_bytes);
        assert!(
            cfg.rait_block_bytes > 0.0
                && cfg.rait_block_bytes <= platform.library.tape_capacity_bytes / 10.0
        );
        assert!(cfg.scheduler.min_lb_interval_s > 0.0);
        let drives_per_mover = platform.movers.drives_per_mover;
        let drives = (0..platform.drives())
            .map(|d| Drive {
                mover: d / drives_per_mover,
                owner: None,
                mounted: None,
                free_at_ns: 0,
            })
            .collect();
        let movers = (0..platform.movers.movers)
            .map(|m| Mover {
                idle_drives: (m * drives_per_mover..(m + 1) * drives_per_mover)
                    .rev()
                    .collect(),
                memory_free_bytes: platform.movers.memory_bytes,
                disk_free_bytes: platform.movers.local_disk_bytes,
            })
            .collect();
        let end_ns = ns_from_s(cfg.duration_s);
        Sim {
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            engine: Engine::new(1 << 24),
            script: None,
            requests: Vec::new(),
            drives,
            movers,
            arms_free_ns: vec![0; platform.library.arms],
            tape_drive: IdMap::default(),
            next_scratch_tape: SCRATCH_TAPE_BASE,
            processes: Vec::new(),
            free_slots: Vec::new(),
            mover_procs: vec![Vec::new(); platform.movers.movers],
            reclaimed: 0,
            processes_created: 0,
            transfer_drive_s: 0.0,
            by_type: vec![Vec::new(); TYPES],
            waiting: VecDeque::new(),
            file_busy: IdMap::default(),
            file_mapped: IdMap::default(),
            in_system_by_type: vec![0; TYPES],
            catalog: IdMap::default(),
            recent: VecDeque::new(),
            next_file: cfg.archived_files,
            end_ns,
            sum_weighted: 0.0,
            sum_response_s: 0.0,
            completed: 0,
            bytes_done: 0.0,
            last_done_ns: 0,
            backlog_half: 0,
            backlog_end: 0,
            lb_runs: 0,
            tape_mounts: 0,
            delayed: 0,
            decisions: None,
            lb_log: Vec::new(),
            cfg,
            platform,
        }
    }

    /// Replace the Poisson arrivals by a fixed list (tests: scripted arrivals).
    pub fn with_script(mut self, requests: Vec<Request>) -> Sim {
        assert!(
            requests
                .windows(2)
                .all(|w| w[0].arrival_ns <= w[1].arrival_ns),
            "script must be in arrival order"
        );
        self.script = Some(requests.into());
        self.decisions = Some(Vec::new());
        self
    }

    /// A request for a script: `scheme_index` into Table 1.
    pub fn scripted(
        &self,
        arrival_s: f64,
        is_read: bool,
        file: u64,
        size_bytes: f64,
        scheme_index: usize,
    ) -> Request {
        let policy = self
            .cfg
            .policy
            .concrete(size_bytes, self.cfg.hetero_threshold_bytes);
        Request {
            arrival_ns: ns_from_s(arrival_s),
            is_read,
            file,
            size_bytes,
            rtype: type_of(policy, scheme_index),
            c_d: 2.0,
            c_p: 1.0,
        }
    }

    /// Run to the end and return the metrics.
    pub fn run(mut self) -> (Metrics, Sim) {
        self.schedule_next_arrival(0);
        let lb = ns_from_s(self.cfg.scheduler.min_lb_interval_s);
        self.engine.schedule_at(lb, Ev::LbTick);
        self.engine
            .schedule_at(self.end_ns / 2, Ev::SampleBacklog { end: false });
        self.engine
            .schedule_at(self.end_ns, Ev::SampleBacklog { end: true });
        // The drain lasts at least two LB intervals: requests in the waiting list are served
        // only by LOAD-BALANCER.
        let hard_stop = self.end_ns
            + ns_from_s(
                self.cfg
                    .drain_max_s
                    .max(2.0 * self.cfg.scheduler.min_lb_interval_s),
            );
        while let Some((now, ev)) = self.engine.pop() {
            if now > hard_stop {
                break;
            }
            match ev {
                Ev::Arrival => self.on_arrival(now),
                Ev::Done { process, request } => self.on_done(now, process as usize, request),
                Ev::LbTick => {
                    self.on_lb_tick(now);
                    let in_system = self.requests.len() as u64 - self.completed;
                    if now < self.end_ns || in_system > 0 {
                        self.engine.schedule_at(now + lb, Ev::LbTick);
                    }
                }
                Ev::SampleBacklog { end } => {
                    let backlog = self.requests.len() as u64 - self.completed;
                    if end {
                        self.backlog_end = backlog;
                    } else {
                        self.backlog_half = backlog;
                    }
                }
            }
            let script_done = match &self.script {
                None => true,
                Some(script) => script.is_empty(),
            };
            if now >= self.end_ns && self.completed == self.requests.len() as u64 && script_done {
                break;
            }
        }
        let stop_ns = self.engine.now_ns().min(hard_stop);
        // Requests still in the system are counted with the time they have waited so far
        // (a lower bound): a run that does not drain is saturated anyway.
        let mut sum_weighted = self.sum_weighted;
        let mut sum_response = self.sum_response_s;
        for r in self.unfinished() {
            let resp = s_from_ns(stop_ns.saturating_sub(r.arrival_ns));
            sum_response += resp;
            sum_weighted += resp / (r.size_bytes / BYTES_PER_GB);
        }
        let n = self.requests.len() as u64;
        let arrived_second_half = self
            .requests
            .iter()
            .filter(|r| r.arrival_ns >= self.end_ns / 2)
            .count() as f64;
        let metrics = Metrics {
            requests: n,
            completed: self.completed,
            avg_weighted_response_s_per_gb: if n > 0 { sum_weighted / n as f64 } else { 0.0 },
            avg_response_s: if n > 0 { sum_response / n as f64 } else { 0.0 },
            // Aggregate throughput over the arrival window: bytes of the requests completed
            // in it, divided by its length.
            throughput_mb_s: self.bytes_done / 1e6 / s_from_ns(self.end_ns.max(1)),
            backlog_half: self.backlog_half,
            backlog_end: self.backlog_end,
            saturated: is_saturated(
                self.backlog_half,
                self.backlog_end,
                arrived_second_half,
                n - self.completed,
                n,
            ),
            lb_runs: self.lb_runs,
            tape_mounts: self.tape_mounts,
            events: self.engine.events_fired(),
            delayed: self.delayed,
            reclaimed: self.reclaimed,
            processes_created: self.processes_created,
            drive_transfer_utilization: self.transfer_drive_s
                / (self.drives.len() as f64 * s_from_ns(stop_ns.max(1))),
        };
        (metrics, self)
    }

    fn unfinished(&self) -> Vec<&Request> {
        let mut done = vec![false; self.requests.len()];
        for p in &self.processes {
            for &r in p.queue.iter().chain(p.running.iter()) {
                done[r as usize] = true;
            }
        }
        for &r in &self.waiting {
            done[r as usize] = true;
        }
        // `done` marks the unfinished ones here.
        self.requests
            .iter()
            .zip(done)
            .filter(|(_, unfinished)| *unfinished)
            .map(|(r, _)| r)
            .collect()
    }

    // ----- arrivals -------------------------------------------------------------------

    fn schedule_next_arrival(&mut self, now: TimeNs) {
        if let Some(script) = &self.script {
            if let Some(next) = script.front() {
                let at = next.arrival_ns.max(now);
                self.engine.schedule_at(at, Ev::Arrival);
            }
            return;
        }
        let rate_per_s = self.cfg.arrival_rate_per_hour / 3600.0;
        if rate_per_s <= 0.0 {
            return;
        }
        let gap_s: f64 = Exp::new(rate_per_s)
            .expect("positive rate")
            .sample(&mut self.rng);
        let at = now.saturating_add(ns_from_s(gap_s.min(1e12)));
        if at < self.end_ns {
            self.engine.schedule_at(at, Ev::Arrival);
        }
    }

    fn draw_size(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> f64 {
        if hi <= lo {
            return lo;
        }
        (rng.gen_range(lo.ln()..hi.ln())).exp()
    }

    fn draw_scheme(rng: &mut ChaCha8Rng) -> usize {
        let u: f64 = rng.gen();
        let mut acc = 0.0;
        for (i, (_, p)) in TABLE1.iter().enumerate() {
            acc += p;
            if u < acc {
                return i;
            }
        }
        TABLE1.len() - 1
    }

    fn draw_compression(rng: &mut ChaCha8Rng, c: Compression) -> (f64, f64) {
        match c {
            Compression::Random => {
                let c_d = rng.gen_range(1.0..=3.0);
                let c_p = rng.gen_range(1.0..=c_d);
                (c_d, c_p)
            }
            Compression::Fixed { data, ec } => (data, ec),
        }
    }

    /// A file already in the archive: its attributes and layout follow from its id alone,
    /// so every request for it sees the same file.
    /// `known`: a request for the file fixes its attributes (a file written during the run
    /// whose record was dropped from the bounded catalog keeps its size, type, compression).
    fn archived_file(&self, file: u64, known: Option<&Request>) -> FileRec {
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.cfg.seed ^ file.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5151,
        );
        let size = Self::draw_size(&mut rng, self.cfg.size_min_bytes, self.cfg.size_max_bytes);
        let scheme_index = Self::draw_scheme(&mut rng);
        let (c_d, c_p) = Self::draw_compression(&mut rng, self.cfg.compression);
        let policy = self
            .cfg
            .policy
            .concrete(size, self.cfg.hetero_threshold_bytes);
        let (size, rtype, c_d, c_p) = match known {
            Some(r) => (r.size_bytes, r.rtype, r.c_d, r.c_p),
            None => (size, type_of(policy, scheme_index), c_d, c_p),
        };
        let policy = type_policy(rtype);
        let scheme = type_scheme(rtype);
        let cap = self.platform.library.tape_capacity_bytes;
        let drive = &self.platform.drive;
        // Per lane read: on-tape bytes and transfer time.
        let (lanes, lane_tape_bytes, total_s) = match policy {
            Policy::Rait => {
                let b = self.cfg.rait_block_bytes;
                let stripes = (size / b).ceil().max(1.0) / scheme.x as f64;
                let stripes = stripes.ceil();
                let c_min = if scheme.y > 0 { c_d.min(c_p) } else { c_d };
                (
                    scheme.width(),
                    stripes * b / c_min,
                    stripes * (drive.restart_s() + b / drive.host_rate_bytes_per_s(c_min)),
                )
            }
            Policy::Parallel => {
                let raw = size / scheme.x as f64;
                (scheme.x, raw / c_d, raw / drive.host_rate_bytes_per_s(c_d))
            }
            Policy::Vertical => (1, size / c_d, size / drive.host_rate_bytes_per_s(c_d)),
            Policy::Hetero => unreachable!(),
        };
        let mut chunks = Vec::new();
        let mut remaining = lane_tape_bytes;
        let mut pos = if lane_tape_bytes < cap {
            rng.gen_range(0.0..=(cap - lane_tape_bytes))
        } else {
            0.0
        };
        while remaining > EPS_BYTES {
            let len = remaining.min(cap - pos);
            let tapes = (0..lanes)
                .map(|_| (rng.gen_range(0..self.platform.library.archive_tapes), pos))
                .collect();
            chunks.push(Chunk {
                tapes,
                advance_bytes: len,
                duration_s: total_s * len / lane_tape_bytes,
            });
            remaining -= len;
            pos = 0.0;
        }
        FileRec {
            size_bytes: size,
            rtype,
            c_d,
            c_p,
            chunks,
        }
    }

    fn pick_existing_file(&mut self) -> u64 {
        let n = self.cfg.archived_files + self.recent.len() as u64;
        assert!(
            n > 0,
            "no file to read: archived_files is 0 and nothing was written yet"
        );
        let k = self.rng.gen_range(0..n);
        if k < self.cfg.archived_files {
            k
        } else {
            self.recent[(k - self.cfg.archived_files) as usize]
        }
    }

    fn file_rec(&self, file: u64, known: Option<&Request>) -> FileRec {
        match self.catalog.get(&file) {
            Some(f) => f.clone(),
            None => self.archived_file(file, known),
        }
    }

    fn generate_request(&mut self, now: TimeNs) -> Request {
        let is_read = self.rng.gen::<f64>() < self.cfg.read_fraction;
        let existing = is_read || self.rng.gen::<f64>() >= self.cfg.new_file_fraction;
        if existing && (self.cfg.archived_files > 0 || !self.recent.is_empty()) {
            let file = self.pick_existing_file();
            let rec = self.file_rec(file, None);
            return Request {
                arrival_ns: now,
                is_read,
                file,
                size_bytes: rec.size_bytes,
                rtype: rec.rtype,
                c_d: rec.c_d,
                c_p: rec.c_p,
            };
        }
        let size = Self::draw_size(
            &mut self.rng,
            self.cfg.size_min_bytes,
            self.cfg.size_max_bytes,
        );
        let scheme_index = Self::draw_scheme(&mut self.rng);
        let (c_d, c_p) = Self::draw_compression(&mut self.rng, self.cfg.compression);
        let policy = self
            .cfg
            .policy
            .concrete(size, self.cfg.hetero_threshold_bytes);
        let file = self.next_file;
        self.next_file += 1;
        Request {
            arrival_ns: now,
            is_read: false,
            file,
            size_bytes: size,
            rtype: type_of(policy, scheme_index),
            c_d,
            c_p,
        }
    }

    fn on_arrival(&mut self, now: TimeNs) {
        let request = match &mut self.script {
            Some(script) => script
                .pop_front()
                .expect("arrival without scripted request"),
            None => self.generate_request(now),
        };
        let id = self.requests.len() as u32;
        let conflict = self.file_busy.get(&request.file).copied().unwrap_or(0) > 0
            || (request.is_read && self.file_tapes_in_use(&request, None));
        *self.file_busy.entry(request.file).or_insert(0) += 1;
        self.in_system_by_type[request.rtype] += 1;
        self.requests.push(request);
        self.main_scheduler(id, conflict);
        self.schedule_next_arrival(now);
    }

    // ----- MAIN-SCHEDULER (seed section 5) ---------------------------------------------

    fn main_scheduler(&mut self, r: u32, conflict: bool) {
        if conflict {
            self.waiting.push_back(r);
            self.delayed += 1;
            self.log(r, Decision::Delayed);
            return;
        }
        let rtype = self.requests[r as usize].rtype;
        let least = self.least_loaded(rtype);
        if let Some(p) = least {
            if self.processes[p].load() <= self.cfg.scheduler.max_light_load {
                self.log(r, Decision::MappedLight { process: p });
                self.assign(p, r);
                return;
            }
        }
        if let Some(p) = self.create_process(rtype, true) {
            self.log(
                r,
                Decision::Created {
                    process: p,
                    mover: self.processes[p].mover,
                },
            );
            self.assign(p, r);
            return;
        }
        // A failed creation changes nothing: the least loaded process is still `least`.
        if let Some(p) = least {
            self.log(r, Decision::MappedHeavy { process: p });
            self.assign(p, r);
            return;
        }
        self.waiting.push_back(r);
        self.delayed += 1;
        self.log(r, Decision::Delayed);
    }

    fn log(&mut self, r: u32, d: Decision) {
        if let Some(log) = &mut self.decisions {
            log.push((r, d));
        }
    }

    fn least_loaded(&self, rtype: TypeId) -> Option<usize> {
        self.by_type[rtype]
            .iter()
            .copied()
            .min_by_key(|&p| (self.processes[p].load(), p))
    }

    /// Needs of a process of this type: drives, mover memory, mover disk.
    fn needs(&self, rtype: TypeId) -> (usize, f64, f64) {
        let scheme = type_scheme(rtype);
        match type_policy(rtype) {
            Policy::Rait => (
                scheme.width(),
                scheme.width() as f64 * self.cfg.rait_block_bytes,
                0.0,
            ),
            Policy::Parallel => (
                scheme.width(),
                scheme.width() as f64 * self.cfg.parallel_block_bytes,
                0.0,
            ),
            // Seed 4.3: "enough local storage space to store Y uncompressed tapes".
            Policy::Vertical => (
                1,
                0.0,
                scheme.y as f64 * self.platform.library.tape_capacity_bytes,
            ),
            Policy::Hetero => unreachable!(),
        }
    }

    fn is_idle_process(&self, p: usize) -> bool {
        let q = &self.processes[p];
        q.alive && !q.terminating && q.running.is_none() && q.queue.is_empty()
    }

    /// Create a process on a mover that can host it. `reclaim`: the drives of idle
    /// processes (nothing queued, nothing running) count as idle drives -- MAIN-SCHEDULER's
    /// "mover node having enough idle tape drives" -- and those processes are ended to free
    /// them. LOAD-BALANCER creates only on drives no process holds. Preference: a mover that
    /// needs no reclaiming, then the most free drives, then the lowest index.
    fn create_process(&mut self, rtype: TypeId, reclaim: bool) -> Option<usize> {
        let (drives_needed, memory, disk) = self.needs(rtype);
        let mut best: Option<(MoverPreference, usize)> = None;
        for m in 0..self.movers.len() {
            let mv = &self.movers[m];
            let fits_free = mv.idle_drives.len() >= drives_needed
                && mv.memory_free_bytes >= memory
                && mv.disk_free_bytes >= disk;
            let (mut drives, mut mem, mut dsk) = (
                mv.idle_drives.len(),
                mv.memory_free_bytes,
                mv.disk_free_bytes,
            );
            if reclaim && !fits_free {
                for &p in &self.mover_procs[m] {
                    if self.is_idle_process(p) {
                        drives += self.processes[p].drives.len();
                        mem += self.processes[p].memory_bytes;
                        dsk += self.processes[p].disk_bytes;
                    }
                }
            }
            if drives >= drives_needed && mem >= memory && dsk >= disk {
                let key = (
                    fits_free,
                    mv.idle_drives.len(),
                    drives,
                    std::cmp::Reverse(m),
                );
                let better = match &best {
                    None => true,
                    Some((k, _)) => key > *k,
                };
                if better {
                    best = Some((key, m));
                }
            }
        }
        let (key, mover) = best?;
        if !key.0 {
            let idle: Vec<usize> = self.mover_procs[mover]
                .iter()
                .copied()
                .filter(|&p| self.is_idle_process(p))
                .collect();
            let now = self.engine.now_ns();
            for p in idle {
                let mv = &self.movers[mover];
                if mv.idle_drives.len() >= drives_needed
                    && mv.memory_free_bytes >= memory
                    && mv.disk_free_bytes >= disk
                {
                    break;
                }
                self.terminate(p, now);
                self.reclaimed += 1;
            }
        }
        let mv = &mut self.movers[mover];
        assert!(
            mv.idle_drives.len() >= drives_needed
                && mv.memory_free_bytes >= memory
                && mv.disk_free_bytes >= disk
        );
        let drives: Vec<usize> = (0..drives_needed)
            .map(|_| mv.idle_drives.pop().expect("checked"))
            .collect();
        mv.memory_free_bytes -= memory;
        mv.disk_free_bytes -= disk;
        let scheme = type_scheme(rtype);
        // Reuse the slot of a dead process (no event refers to it any more).
        let id = self.free_slots.pop().unwrap_or(self.processes.len());
        for &d in &drives {
            self.drives[d].owner = Some(id);
        }
        self.mover_procs[mover].push(id);
        self.processes_created += 1;
        let process = Process {
            rtype,
            mover,
            lanes: vec![LaneTape::default(); drives.len()],
            drives,
            queue: VecDeque::new(),
            running: None,
            terminating: false,
            alive: true,
            memory_bytes: memory,
            disk_bytes: disk,
            stripe_counter: 0,
            vertical_ec: ParityAccumulator::sizes_only(scheme.x, scheme.y)
                .expect("Table 1 schemes are valid groups"),
        };
        if id == self.processes.len() {
            self.processes.push(process);
        } else {
            self.processes[id] = process;
        }
        self.by_type[rtype].push(id);
        Some(id)
    }

    fn assign(&mut self, p: usize, r: u32) {
        let file = self.requests[r as usize].file;
        *self.file_mapped.entry(file).or_insert(0) += 1;
        self.processes[p].queue.push_back(r);
        if self.processes[p].running.is_none() {
            self.start_next(p, self.engine.now_ns());
        }
    }

    fn unmap(&mut self, r: u32) {
        let file = self.requests[r as usize].file;
        let c = self.file_mapped.get_mut(&file).expect("mapped request");
        *c -= 1;
        if *c == 0 {
            self.file_mapped.remove(&file);
        }
    }

    /// A read's tapes are in use when one is mounted in a drive, not owned by `owner`, that
    /// is working (its process runs a request, or it is still busy ejecting). A tape that
    /// merely sits in an idle drive is not in use: the reader takes it over (the idle drive
    /// rewinds and unloads it first, see `ensure_mounted`).
    fn file_tapes_in_use(&self, r: &Request, owner: Option<usize>) -> bool {
        let now = self.engine.now_ns();
        let rec = self.file_rec(r.file, Some(r));
        rec.chunks
            .iter()
            .flat_map(|c| c.tapes.iter())
            .any(|(tape, _)| match self.tape_drive.get(tape) {
                None => false,
                Some(&d) => {
                    let drive = &self.drives[d];
                    let mine = owner.is_some() && drive.owner == owner;
                    let working = drive.free_at_ns > now
                        || drive
                            .owner
                            .is_some_and(|p| self.processes[p].running.is_some());
                    !mine && working
                }
            })
    }

    fn start_next(&mut self, p: usize, now: TimeNs) {
        while let Some(r) = self.processes[p].queue.pop_front() {
            let request = self.requests[r as usize].clone();
            if request.is_read && self.file_tapes_in_use(&request, Some(p)) {
                // Seed 5: a read whose tapes are in use is delayed to the waiting list.
                self.unmap(r);
                self.waiting.push_back(r);
                continue;
            }
            let done_ns = if request.is_read {
                self.plan_read(p, &request, now)
            } else {
                self.plan_write(p, &request, now)
            };
            self.processes[p].running = Some(r);
            self.engine.schedule_at(
                done_ns.max(now),
                Ev::Done {
                    process: p as u32,
                    request: r,
                },
            );
            return;
        }
    }

    fn on_done(&mut self, now: TimeNs, p: usize, r: u32) {
        let request = &self.requests[r as usize];
        let response_s = s_from_ns(now - request.arrival_ns);
        self.sum_response_s += response_s;
        self.sum_weighted += response_s / (request.size_bytes / BYTES_PER_GB);
        if now <= self.end_ns {
            self.bytes_done += request.size_bytes;
        }
        self.completed += 1;
        self.last_done_ns = now;
        let (file, rtype) = (request.file, request.rtype);
        self.in_system_by_type[rtype] -= 1;
        let c = self.file_busy.get_mut(&file).expect("busy file");
        *c -= 1;
        if *c == 0 {
            self.file_busy.remove(&file);
        }
        self.unmap(r);
        debug_assert_eq!(self.processes[p].running, Some(r));
        self.processes[p].running = None;
        if self.processes[p].terminating {
            self.terminate(p, now);
        } else {
            self.start_next(p, now);
        }
    }

    // ----- LOAD-BALANCER (seed section 5) ----------------------------------------------

    fn imbalance(&self) -> f64 {
        let mut max = f64::NEG_INFINITY;
        let mut min = f64::INFINITY;
        for t in 0..TYPES {
            let requests = self.in_system_by_type[t];
            let procs = self.by_type[t].len();
            if requests == 0 && procs == 0 {
                continue;
            }
            let load = if procs == 0 {
                f64::INFINITY
            } else {
                requests as f64 / procs as f64
            };
            max = max.max(load);
            min = min.min(load);
        }
        if max.is_finite() || min.is_finite() {
            max - min
        } else if max == f64::INFINITY {
            f64::INFINITY
        } else {
            0.0
        }
    }

    /// Which condition (if any) allows LOAD-BALANCER to run now.
    pub fn lb_condition(&self, now: TimeNs) -> Option<LbTrigger> {
        let s = &self.cfg.scheduler;
        if let Some(&oldest) = self.waiting.front() {
            let r = &self.requests[oldest as usize];
            let waited_s = s_from_ns(now - r.arrival_ns);
            let in_use = self.file_mapped.contains_key(&r.file)
                || (r.is_read && self.file_tapes_in_use(r, None));
            if waited_s > s.max_waiting_time_s && !in_use {
                return Some(LbTrigger::WaitingTime);
            }
        }
        if self.waiting.len() > s.max_req_count {
            return Some(LbTrigger::RequestCount);
        }
        if self.imbalance() > s.max_imbalance {
            return Some(LbTrigger::Imbalance);
        }
        None
    }

    fn on_lb_tick(&mut self, now: TimeNs) {
        if let Some(trigger) = self.lb_condition(now) {
            self.lb_log.push((now, trigger));
            self.load_balance(now);
        }
    }

    fn load_balance(&mut self, now: TimeNs) {
        self.lb_runs += 1;
        // Reset: every pending request becomes unscheduled; running requests go on but
        // their processes end after them; every other process is cancelled now.
        let mut unscheduled: Vec<u32> = self.waiting.drain(..).collect();
        for p in 0..self.processes.len() {
            if !self.processes[p].alive || self.processes[p].terminating {
                continue;
            }
            let queued: Vec<u32> = self.processes[p].queue.drain(..).collect();
            for r in queued {
                self.unmap(r);
                unscheduled.push(r);
            }
            let rtype = self.processes[p].rtype;
            self.by_type[rtype].retain(|&q| q != p);
            if self.processes[p].running.is_some() {
                self.processes[p].terminating = true;
            } else {
                self.terminate(p, now);
            }
        }
        unscheduled.sort_unstable();
        // One process for each required type, then fill the idle drives with processes of
        // the most loaded type until none can be created.
        let mut wanted = [0u64; TYPES];
        for &r in &unscheduled {
            wanted[self.requests[r as usize].rtype] += 1;
        }
        for (t, &count) in wanted.iter().enumerate() {
            if count > 0 {
                self.create_process(t, false);
            }
        }
        loop {
            let mut candidates: Vec<TypeId> = (0..TYPES).filter(|&t| wanted[t] > 0).collect();
            let load = |s: &Sim, t: TypeId| {
                let procs = s.by_type[t].len();
                if procs == 0 {
                    f64::INFINITY
                } else {
                    wanted[t] as f64 / procs as f64
                }
            };
            candidates.sort_by(|&a, &b| {
                load(self, b)
                    .partial_cmp(&load(self, a))
                    .expect("loads are not NaN")
                    .then(a.cmp(&b))
            });
            if !candidates
                .into_iter()
                .any(|t| self.create_process(t, false).is_some())
            {
                break;
            }
        }
        // Least loaded process per type, kept in a heap while mapping (a backlog can hold
        // hundreds of thousands of requests).
        let mut heaps: Vec<std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>>> = (0
            ..TYPES)
            .map(|t| {
                self.by_type[t]
                    .iter()
                    .map(|&p| std::cmp::Reverse((self.processes[p].load(), p)))
                    .collect()
            })
            .collect();
        for r in unscheduled {
            let request = &self.requests[r as usize];
            let in_use = self.file_mapped.contains_key(&request.file)
                || (request.is_read && self.file_tapes_in_use(request, None));
            let rtype = request.rtype;
            let target = if in_use { None } else { heaps[rtype].pop() };
            match target {
                Some(std::cmp::Reverse((load, p))) => {
                    self.log(r, Decision::Remapped { process: p });
                    self.assign(p, r);
                    heaps[rtype].push(std::cmp::Reverse((load + 1, p)));
                }
                None => self.waiting.push_back(r),
            }
        }
    }

    /// End a process: VERTICAL writes its pending EC ("end of data"), every tape is
    /// ejected, the drives, memory and disk go back to the mover.
    fn terminate(&mut self, p: usize, now: TimeNs) {
        assert!(self.processes[p].alive && self.processes[p].running.is_none());
        let rtype = self.processes[p].rtype;
        let mut t = now;
        if type_policy(rtype) == Policy::Vertical
            && self.processes[p].vertical_ec.extent_bytes() > EPS_BYTES
        {
            t = self.vertical_flush_ec(p, t);
        }
        let cap = self.platform.library.tape_capacity_bytes;
        let drives = self.processes[p].drives.clone();
        for &d in &drives {
            let mut td = t.max(self.drives[d].free_at_ns);
            if let Some((tape, pos)) = self.drives[d].mounted.take() {
                td += ns_from_s(
                    self.platform.drive.rewind_s(pos, cap) + self.platform.drive.unload_s,
                );
                self.tape_drive.remove(&tape);
                self.reserve_arm(td);
            }
            self.drives[d].free_at_ns = td;
            self.drives[d].owner = None;
        }
        let proc_ = &mut self.processes[p];
        proc_.alive = false;
        proc_.terminating = false;
        let mv = &mut self.movers[proc_.mover];
        mv.idle_drives.extend(drives.iter().rev());
        mv.memory_free_bytes += proc_.memory_bytes;
        mv.disk_free_bytes += proc_.disk_bytes;
        let mover = proc_.mover;
        self.by_type[rtype].retain(|&q| q != p);
        self.mover_procs[mover].retain(|&q| q != p);
        self.free_slots.push(p);
    }

    // ----- drives, tapes, arms ---------------------------------------------------------

    fn reserve_arm(&mut self, ready_ns: TimeNs) -> TimeNs {
        let (i, start) = self
            .arms_free_ns
            .iter()
            .enumerate()
            .map(|(i, &f)| (i, f.max(ready_ns)))
            .min_by_key(|&(i, s)| (s, i))
            .expect("at least one arm");
        let end = start + ns_from_s(self.platform.library.arm_move_s);
        self.arms_free_ns[i] = end;
        end
    }

    fn scratch_tape(&mut self) -> u64 {
        self.next_scratch_tape += 1;
        self.next_scratch_tape
    }

    /// Have `tape` in drive `d` positioned at `pos_bytes`, starting no earlier than `t`.
    /// Returns when the drive is ready to transfer.
    fn ensure_mounted(&mut self, d: usize, tape: u64, pos_bytes: f64, t: TimeNs) -> TimeNs {
        let cap = self.platform.library.tape_capacity_bytes;
        let spec = self.platform.drive.clone();
        let mut t = t.max(self.drives[d].free_at_ns);
        match self.drives[d].mounted {
            Some((current, at)) if current == tape => {
                t += ns_from_s(spec.locate_s(at, pos_bytes, cap));
            }
            mounted => {
                if let Some((current, at)) = mounted {
                    t += ns_from_s(spec.rewind_s(at, cap) + spec.unload_s);
                    self.tape_drive.remove(&current);
                    self.drives[d].mounted = None;
                    t = self.reserve_arm(t);
                }
                if let Some(&other) = self.tape_drive.get(&tape) {
                    // The cartridge sits in another drive (idle there): that drive rewinds
                    // and unloads it first.
                    let (_, at) = self.drives[other]
                        .mounted
                        .take()
                        .expect("registry matches drives");
                    let t_other = self.drives[other].free_at_ns.max(t)
                        + ns_from_s(spec.rewind_s(at, cap) + spec.unload_s);
                    self.drives[other].free_at_ns = t_other;
                    self.tape_drive.remove(&tape);
                    t = t_other;
                }
                t = self.reserve_arm(t);
                t += ns_from_s(spec.load_to_ready_s + spec.locate_s(0.0, pos_bytes, cap));
                self.tape_drive.insert(tape, d);
                self.tape_mounts += 1;
            }
        }
        self.drives[d].mounted = Some((tape, pos_bytes));
        self.drives[d].free_at_ns = t;
        t
    }

    fn finish_transfer(&mut self, d: usize, pos_bytes: f64, t: TimeNs) {
        if let Some((_, at)) = &mut self.drives[d].mounted {
            *at = pos_bytes;
        }
        self.drives[d].free_at_ns = t;
    }

    fn mount_lanes(&mut self, p: usize, lanes: std::ops::Range<usize>, t: TimeNs) -> TimeNs {
        let mut ready = t;
        for lane in lanes {
            if self.processes[p].lanes[lane].tape.is_none() {
                let tape = self.scratch_tape();
                self.processes[p].lanes[lane] = LaneTape {
                    tape: Some(tape),
                    fill_bytes: 0.0,
                };
            }
            let LaneTape { tape, fill_bytes } = self.processes[p].lanes[lane];
            let d = self.processes[p].drives[lane];
            ready = ready.max(self.ensure_mounted(d, tape.expect("set above"), fill_bytes, t));
        }
        ready
    }

    fn remember_file(&mut self, request: &Request, chunks: Vec<Chunk>) {
        let rec = FileRec {
            size_bytes: request.size_bytes,
            rtype: request.rtype,
            c_d: request.c_d,
            c_p: request.c_p,
            chunks,
        };
        if self.catalog.insert(request.file, rec).is_none() {
            self.recent.push_back(request.file);
            if self.recent.len() > self.cfg.recent_files_max {
                let old = self.recent.pop_front().expect("non-empty");
                self.catalog.remove(&old);
            }
        }
    }

    // ----- the policies (seed section 4) -----------------------------------------------

    fn plan_write(&mut self, p: usize, r: &Request, now: TimeNs) -> TimeNs {
        match type_policy(r.rtype) {
            Policy::Rait => self.write_rait(p, r, now),
            Policy::Parallel => self.write_parallel(p, r, now),
            Policy::Vertical => self.write_vertical(p, r, now),
            Policy::Hetero => unreachable!(),
        }
    }

    /// RAIT: stripes of X data + Y EC blocks of size B on X+Y tapes, rotated one tape per
    /// stripe; lockstep (one stripe in memory, (X+Y)B). Each block on a tape is a separate
    /// piece of the file, so every block costs a stream restart. When any tape is full all
    /// tapes are replaced (seed 6.2, Figure 9 discussion).
    fn write_rait(&mut self, p: usize, r: &Request, now: TimeNs) -> TimeNs {
        let scheme = type_scheme(r.rtype);
        let n = scheme.width();
        let b = self.cfg.rait_block_bytes;
        let cap = self.platform.library.tape_capacity_bytes;
        let (data_tape, ec_tape) = (b / r.c_d, b / r.c_p);
        let c_min = if scheme.y > 0 {
            r.c_d.min(r.c_p)
        } else {
            r.c_d
        };
        let stripe_s =
            self.platform.drive.restart_s() + b / self.platform.drive.host_rate_bytes_per_s(c_min);
        let mut remaining = ((r.size_bytes / b).ceil().max(1.0) as u64).div_ceil(scheme.x as u64);
        let mut t = now;
        let mut chunks = Vec::new();
        while remaining > 0 {
            let ready = self.mount_lanes(p, 0..n, t);
            let first = self.processes[p].stripe_counter;
            let lanes = self.processes[p].lanes.clone();
            let fits = |k: u64| {
                (0..n).all(|lane| {
                    let ec = rait_ec_blocks_on_lane(scheme, lane, first, k);
                    lanes[lane].fill_bytes + (k - ec) as f64 * data_tape + ec as f64 * ec_tape
                        <= cap
                })
            };
            let (mut lo, mut hi) = (0u64, remaining);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if fits(mid) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            let k = lo;
            if k > 0 {
                let end = ready + ns_from_s(k as f64 * stripe_s);
                let mut tapes = Vec::with_capacity(n);
                for lane in 0..n {
                    let ec = rait_ec_blocks_on_lane(scheme, lane, first, k);
                    let d = self.processes[p].drives[lane];
                    let lt = &mut self.processes[p].lanes[lane];
                    tapes.push((lt.tape.expect("mounted"), lt.fill_bytes));
                    lt.fill_bytes += (k - ec) as f64 * data_tape + ec as f64 * ec_tape;
                    let fill = lt.fill_bytes;
                    self.finish_transfer(d, fill, end);
                }
                chunks.push(Chunk {
                    tapes,
                    advance_bytes: k as f64 * data_tape,
                    duration_s: k as f64 * stripe_s,
                });
                self.transfer_drive_s += n as f64 * k as f64 * stripe_s;
                self.processes[p].stripe_counter += k;
                remaining -= k;
                t = end;
            } else {
                t = ready;
            }
            if remaining > 0 {
                // A tape is full: RAIT replaces every tape.
                for lane in 0..n {
                    self.processes[p].lanes[lane] = LaneTape::default();
                }
            }
        }
        self.remember_file(r, chunks);
        t
    }

    /// PARALLEL: X runs of consecutive blocks, one per data tape, streamed in lockstep with
    /// the Y EC tapes. A full EC tape is replaced alone; a full data tape replaces every tape
    /// (seed 4.2, Figure 2 (a) and (b)).
    fn write_parallel(&mut self, p: usize, r: &Request, now: TimeNs) -> TimeNs {
        let scheme = type_scheme(r.rtype);
        let (x, n) = (scheme.x, scheme.width());
        let cap = self.platform.library.tape_capacity_bytes;
        let c_min = if scheme.y > 0 {
            r.c_d.min(r.c_p)
        } else {
            r.c_d
        };
        let rate = self.platform.drive.host_rate_bytes_per_s(c_min);
        let mut remaining_raw = r.size_bytes / x as f64;
        let mut t = now;
        let mut chunks = Vec::new();
        while remaining_raw > EPS_BYTES {
            let ready = self.mount_lanes(p, 0..n, t);
            let lanes = &self.processes[p].lanes;
            let room_data = lanes[..x]
                .iter()
                .map(|l| (cap - l.fill_bytes) * r.c_d)
                .fold(f64::INFINITY, f64::min);
            let room_ec = lanes[x..]
                .iter()
                .map(|l| (cap - l.fill_bytes) * r.c_p)
                .fold(f64::INFINITY, f64::min);
            let step = remaining_raw.min(room_data).min(room_ec);
            t = ready;
            if step > EPS_BYTES {
                let duration_s = step / rate;
                self.transfer_drive_s += n as f64 * duration_s;
                let end = ready + ns_from_s(duration_s);
                let tapes = lanes[..x]
                    .iter()
                    .map(|l| (l.tape.expect("mounted"), l.fill_bytes))
                    .collect();
                chunks.push(Chunk {
                    tapes,
                    advance_bytes: step / r.c_d,
                    duration_s: step / self.platform.drive.host_rate_bytes_per_s(r.c_d),
                });
                for lane in 0..n {
                    let c = if lane < x { r.c_d } else { r.c_p };
                    self.processes[p].lanes[lane].fill_bytes += step / c;
                    let (d, fill) = (
                        self.processes[p].drives[lane],
                        self.processes[p].lanes[lane].fill_bytes,
                    );
                    self.finish_transfer(d, fill, end);
                }
                remaining_raw -= step;
                t = end;
            }
            if remaining_raw > EPS_BYTES {
                let data_full = self.processes[p].lanes[..x]
                    .iter()
                    .any(|l| (cap - l.fill_bytes) * r.c_d <= EPS_BYTES);
                for lane in 0..n {
                    let l = &mut self.processes[p].lanes[lane];
                    let c = if lane < x { r.c_d } else { r.c_p };
                    if data_full || (cap - l.fill_bytes) * c <= EPS_BYTES {
                        *l = LaneTape::default();
                    }
                }
            }
        }
        self.remember_file(r, chunks);
        t
    }

    /// VERTICAL: one drive fills data tapes one by one; the EC of the group is updated on
    /// the mover's disk as data goes by and written to tape after the X-th data tape (or at
    /// the end of data, when the process ends). The request completes when its data is on
    /// tape: its EC is safe on disk -- exactly Delayed Parity's idea on the tape tier.
    fn write_vertical(&mut self, p: usize, r: &Request, now: TimeNs) -> TimeNs {
        let scheme = type_scheme(r.rtype);
        let cap = self.platform.library.tape_capacity_bytes;
        let rate = self.platform.drive.host_rate_bytes_per_s(r.c_d);
        let mut remaining = r.size_bytes;
        let mut t = now;
        let mut chunks = Vec::new();
        while remaining > EPS_BYTES {
            if (cap - self.processes[p].lanes[0].fill_bytes) * r.c_d <= EPS_BYTES {
                // The data tape is full: next data tape, or the EC after the X-th.
                let proc_ = &mut self.processes[p];
                proc_.lanes[0] = LaneTape::default();
                let full_tape = proc_.vertical_ec.arrived_count();
                proc_
                    .vertical_ec
                    .close(full_tape)
                    .expect("the tape being filled is open");
                if proc_.vertical_ec.is_complete() {
                    t = self.vertical_flush_ec(p, t);
                }
            }
            let ready = self.mount_lanes(p, 0..1, t);
            let lane = self.processes[p].lanes[0];
            let step = remaining.min((cap - lane.fill_bytes) * r.c_d);
            let duration_s = step / rate;
            self.transfer_drive_s += duration_s;
            let end = ready + ns_from_s(duration_s);
            chunks.push(Chunk {
                tapes: vec![(lane.tape.expect("mounted"), lane.fill_bytes)],
                advance_bytes: step / r.c_d,
                duration_s,
            });
            let proc_ = &mut self.processes[p];
            proc_.lanes[0].fill_bytes += step / r.c_d;
            let index = proc_.vertical_ec.arrived_count();
            if scheme.y > 0 {
                proc_
                    .vertical_ec
                    .append_size(index, step / r.c_p)
                    .expect("the tape being filled is open and the size finite");
            }
            let (d, fill) = (proc_.drives[0], proc_.lanes[0].fill_bytes);
            self.finish_transfer(d, fill, end);
            remaining -= step;
            t = end;
        }
        self.remember_file(r, chunks);
        t
    }

    /// Write the Y EC areas of the current VERTICAL group on fresh tapes (each area as long
    /// as the longest data tape's contribution; an area that overflows a tape continues on
    /// a new one), then start a new group.
    fn vertical_flush_ec(&mut self, p: usize, t: TimeNs) -> TimeNs {
        let scheme = type_scheme(self.processes[p].rtype);
        let cap = self.platform.library.tape_capacity_bytes;
        let area_bytes = self.processes[p].vertical_ec.extent_bytes();
        let d = self.processes[p].drives[0];
        let mut t = t;
        for _ in 0..scheme.y {
            let mut left = area_bytes;
            while left > EPS_BYTES {
                let tape = self.scratch_tape();
                t = self.ensure_mounted(d, tape, 0.0, t);
                let w = left.min(cap);
                t += ns_from_s(w / self.platform.drive.native_rate_bytes_per_s);
                self.transfer_drive_s += w / self.platform.drive.native_rate_bytes_per_s;
                self.finish_transfer(d, w, t);
                left -= w;
            }
        }
        let proc_ = &mut self.processes[p];
        // A new group: the size-only finish hands back nothing but resets the books.
        let finished = proc_.vertical_ec.finish();
        debug_assert_eq!(finished.extent_bytes, area_bytes);
        proc_.lanes[0] = LaneTape::default();
        t
    }

    /// Read a file with the process's drives: RAIT reads all X+Y tapes (EC blocks cannot be
    /// bypassed), PARALLEL its X data tapes, VERTICAL its data tapes one after the other.
    fn plan_read(&mut self, p: usize, r: &Request, now: TimeNs) -> TimeNs {
        let rec = self.file_rec(r.file, Some(r));
        assert!(rec
            .chunks
            .iter()
            .all(|c| c.tapes.len() <= self.processes[p].drives.len()));
        let mut t = now;
        for chunk in &rec.chunks {
            let mut ready = t;
            for (lane, &(tape, pos)) in chunk.tapes.iter().enumerate() {
                let d = self.processes[p].drives[lane];
                ready = ready.max(self.ensure_mounted(d, tape, pos, t));
            }
            let end = ready + ns_from_s(chunk.duration_s);
            self.transfer_drive_s += chunk.tapes.len() as f64 * chunk.duration_s;
            for (lane, &(_, pos)) in chunk.tapes.iter().enumerate() {
                let d = self.processes[p].drives[lane];
                self.finish_transfer(d, pos + chunk.advance_bytes, end);
            }
            t = end;
        }
        t
    }

    pub fn processes_alive(&self) -> usize {
        self.processes.iter().filter(|p| p.alive).count()
    }

    pub fn waiting_len(&self) -> usize {
        self.waiting.len()
    }

    pub fn drives_mounted(&self) -> usize {
        self.drives.iter().filter(|d| d.mounted.is_some()).count()
    }

    /// (tape, on-tape position) of each lane of process `p` (tests).
    pub fn process_lanes(&self, p: usize) -> Vec<(Option<u64>, f64)> {
        self.processes[p]
            .lanes
            .iter()
            .map(|l| (l.tape, l.fill_bytes))
            .collect()
    }

    pub fn process_drives(&self, p: usize) -> Vec<usize> {
        self.processes[p].drives.clone()
    }

    pub fn now_s(&self) -> f64 {
        s_from_ns(self.engine.now_ns())
    }

    pub fn mover_of_drive(&self, d: usize) -> usize {
        self.drives[d].mover
    }
}

/// "Sustains" (written down in docs/archive.md): the backlog (requests arrived and not yet
/// completed) must not grow over the second half of the arrival window by more than 5% of
/// the requests that arrived in it (plus 10 for small-number noise), and what is left when
/// the drain window closes must stay under 1% of the requests (plus 10). A queue that grows
/// without bound fails the first test; one that cannot finish its work fails the second.
pub fn is_saturated(
    backlog_half: u64,
    backlog_end: u64,
    arrived_second_half: f64,
    undrained: u64,
    requests: u64,
) -> bool {
    backlog_end as f64 > backlog_half as f64 + 0.05 * arrived_second_half + 10.0
        || undrained as f64 > 0.01 * requests as f64 + 10.0
}

/// The archive the run starts from: the seed's full capacity (0.5 EB, section 3.1) filled
/// with files of the experiment's size distribution (log-uniform, mean (b-a)/ln(b/a)).
pub fn archived_files_for(size_min_bytes: f64, size_max_bytes: f64) -> u64 {
    let mean = if size_max_bytes > size_min_bytes {
        (size_max_bytes - size_min_bytes) / (size_max_bytes / size_min_bytes).ln()
    } else {
        size_min_bytes
    };
    (0.5e18 / mean).floor().max(1.0) as u64
}

/// Seconds in a day, for configs.
pub const DAY_S: f64 = 86_400.0;
/// Nanoseconds per second (re-export for tests).
pub const NS_S: TimeNs = NS_PER_S;
