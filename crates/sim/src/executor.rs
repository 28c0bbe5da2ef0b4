//! The simulator executor: runs the planner's plans on the device, OSS and network models.
//!
//! Read this file top to bottom for one client write:
//! 1. an application iteration starts (`start_iteration`): every client of the application
//!    hands its write to the planner (`PlannerPort::write`) and gets a plan back;
//! 2. each step whose dependencies are met is *issued* (`issue`): a client-issued step is an
//!    RPC over the client's link and the OSS's link; an OSS-issued step (END parity, moves
//!    home) starts at its OSS, after any data it needs has been shipped from the OSS that
//!    read it;
//! 3. at the OSS the request waits in the OSS queue for one of the service threads, which
//!    hands it to the device (`dispatch`); the device model times it (`DevDone`);
//! 4. the reply travels back (`Delivered`); dependents of the step become ready;
//! 5. when every step of a client's plan is done, the client's write is complete; when the
//!    application's writes are all complete (and, for Delayed Parity, the END parity plan
//!    the master triggered), the next iteration starts.
//!
//! Nothing here knows how a strategy writes: that is the planner's (`port.rs`).

use crate::models::device::{Device, DeviceKind, DeviceRequest, IoKind};
use crate::models::network::{self, LinkSide, NetworkParams};
use crate::port::{splitmix, PlanOut, PlannerPort, StepSpec, ZoneClass};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Plan ids are small increasing integers: a multiply-shift hash is enough and much
/// cheaper than SipHash (the inflight map is touched twice per plan).
#[derive(Default)]
struct IdHasher(u64);
impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
}
type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;
use crate::workload::Workload;
use exaraid_des::{ns_from_s, Engine, TimeNs};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// When a point stops (see docs/models.md, "stop rule").
#[derive(Clone, Debug)]
pub struct StopRule {
    /// Application iterations (per application, on average) before measuring.
    pub warmup_rounds: u64,
    /// Application iterations (per application, on average) measured.
    pub measure_rounds: u64,
    /// At least this many client writes in the measured window.
    pub min_measured_writes: u64,
    /// At least this much simulated time in total (the seed's rule is 1000 s).
    pub min_sim_ns: TimeNs,
    /// Drain mode (tests): every application runs exactly this many iterations and the run
    /// ends when nothing is left to do; the window is the whole run.
    pub iterations: Option<u64>,
    /// A bound on events: a run that needs more is reported as an error, not hung.
    pub max_events: u64,
}

impl Default for StopRule {
    fn default() -> Self {
        StopRule {
            warmup_rounds: 1,
            measure_rounds: 3,
            min_measured_writes: 100_000,
            min_sim_ns: 0,
            iterations: None,
            max_events: 4_000_000_000,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PointParams {
    pub oss_count: u32,
    pub device: DeviceKind,
    pub network: NetworkParams,
    pub service_threads: usize,
    pub workload: Workload,
    pub stop: StopRule,
    pub seed: u64,
}

/// Op counters per OSS: data read, data write, parity read, parity write (the cache zone
/// counts as data: it holds data).
pub type OpCounts = [u64; 4];

#[derive(Clone, Debug)]
pub struct PointResult {
    pub sim_seconds: f64,
    pub window_seconds: f64,
    pub bandwidth_mib_s: f64,
    /// Bandwidth over the first and second half of the window (a steady-state check).
    pub first_half_mib_s: f64,
    pub second_half_mib_s: f64,
    pub writes_measured: u64,
    pub ops: OpCounts,
    pub ops_per_oss: Vec<OpCounts>,
    pub events: u64,
    pub iterations_completed: u64,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    IterStart { app: u32 },
    Arrive { plan: u32, step: u16 },
    DevDone { oss: u32, plan: u32, step: u16 },
    Delivered { plan: u32, step: u16 },
    PlanEmpty { plan: u32 },
    Tick,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// A foreground plan of a client's write.
    Client {
        app: u32,
        client: u64,
    },
    AppEnd {
        app: u32,
    },
    Background,
}

struct StepRt {
    spec: StepSpec,
    deps_left: u16,
    /// Data shipped OSS-to-OSS arrives here before the step starts (OSS-issued plans).
    ready_at_ns: TimeNs,
}

struct PlanRt {
    /// The planner's plan id.
    id: u64,
    /// Plans (of `after_plans`) still running: the steps start when this reaches 0.
    waiting_for: u32,
    steps: Vec<StepRt>,
    /// CSR adjacency: dependents of step i are dependents[dep_start[i]..dep_start[i+1]].
    dep_start: Vec<u32>,
    dependents: Vec<u16>,
    remaining: u32,
    owner: Owner,
}

struct Oss {
    queue: VecDeque<(u32, u16)>,
    threads_busy: usize,
    device: Device<(u32, u16)>,
    tx: LinkSide,
    rx: LinkSide,
}

#[derive(Clone, Copy, Default)]
struct AppRt {
    iteration: u64,
    /// Foreground plans of the current phase (client writes, then the END parity).
    outstanding: u32,
    /// In the END phase (delayed parity): waiting for the END's foreground plans.
    ending: bool,
    done: bool,
}

#[derive(Clone, Copy, Default)]
struct ClientLinks {
    tx: LinkSide,
    rx: LinkSide,
}

/// Regions of a device per zone: the home data zone, the WCL cache zone, parity.
const ZONE_FRACTIONS: [(f64, f64); 3] = [(0.0, 0.5), (0.5, 0.8), (0.8, 1.0)];

pub struct Executor<'p, P: PlannerPort> {
    params: PointParams,
    planner: &'p mut P,
    engine: Engine<Ev>,
    rng: ChaCha8Rng,
    oss: Vec<Oss>,
    clients: Vec<ClientLinks>,
    apps: Vec<AppRt>,
    plans: Vec<Option<PlanRt>>,
    free_plans: Vec<u32>,
    /// Planner plan id -> executor slot, for plans not yet complete.
    inflight: IdMap<u32>,
    /// Planner plan id -> slots of plans waiting for it (`after_plans`).
    waiters: IdMap<Vec<u32>>,
    ops_per_oss: Vec<OpCounts>,
    tick_at_ns: Option<TimeNs>,
    // Measurement.
    iterations_completed: u64,
    writes_completed: u64,
    window_start: Option<(TimeNs, u64)>,
    window_mid: Option<(TimeNs, u64)>,
    window_end: Option<(TimeNs, u64)>,
    latency_ns: TimeNs,
}

impl<'p, P: PlannerPort> Executor<'p, P> {
    pub fn new(params: PointParams, planner: &'p mut P) -> Executor<'p, P> {
        assert!(params.oss_count > 0 && params.service_threads > 0);
        let oss = (0..params.oss_count)
            .map(|_| Oss {
                queue: VecDeque::new(),
                threads_busy: 0,
                device: Device::new(params.device.clone()),
                tx: LinkSide::default(),
                rx: LinkSide::default(),
            })
            .collect();
        let w = &params.workload;
        let latency_ns = ns_from_s(params.network.fabric_latency_s);
        Executor {
            rng: ChaCha8Rng::seed_from_u64(params.seed),
            clients: vec![ClientLinks::default(); w.clients as usize],
            apps: vec![AppRt::default(); w.apps() as usize],
            // Pending events are bounded by in-flight steps: a few per client.
            engine: Engine::new((w.clients as usize * 16).max(1 << 20)),
            oss,
            plans: Vec::new(),
            free_plans: Vec::new(),
            inflight: IdMap::default(),
            waiters: IdMap::default(),
            ops_per_oss: vec![[0; 4]; params.oss_count as usize],
            tick_at_ns: None,
            iterations_completed: 0,
            writes_completed: 0,
            window_start: None,
            window_mid: None,
            window_end: None,
            latency_ns,
            planner,
            params,
        }
    }

    pub fn run(mut self) -> anyhow::Result<PointResult> {
        for app in 0..self.apps.len() as u32 {
            self.engine.schedule_at(0, Ev::IterStart { app });
        }
        if self.params.stop.iterations.is_some() {
            self.window_start = Some((0, 0));
        }
        while let Some((now, ev)) = self.engine.pop() {
            if self.engine.events_fired() > self.params.stop.max_events {
                anyhow::bail!(
                    "point did not reach its stop rule within {} events (at {:.1} s simulated): lower min_measured_writes or measure_rounds",
                    self.params.stop.max_events,
                    now as f64 / 1e9
                );
            }
            match ev {
                Ev::IterStart { app } => self.start_iteration(now, app)?,
                Ev::Arrive { plan, step } => self.arrive(now, plan, step),
                Ev::DevDone { oss, plan, step } => self.device_done(now, oss, plan, step),
                Ev::Delivered { plan, step } => self.delivered(now, plan, step)?,
                Ev::PlanEmpty { plan } => self.plan_complete(now, plan)?,
                Ev::Tick => self.tick(now)?,
            }
            if self.window_end.is_some() {
                break;
            }
        }
        let now = self.engine.now_ns();
        if self.params.stop.iterations.is_some() {
            self.window_end = Some((now, self.writes_completed));
        }
        let (t0, w0) = self
            .window_start
            .ok_or_else(|| anyhow::anyhow!("the run ended before its warm-up finished"))?;
        let (t1, w1) = self
            .window_end
            .ok_or_else(|| anyhow::anyhow!("the run ended before its measured window finished"))?;
        let (tm, wm) = self.window_mid.unwrap_or((t0, w0));
        let write_bytes = self.params.workload.write_bytes as f64;
        let mib_s = |writes: u64, ns: TimeNs| {
            if ns == 0 {
                0.0
            } else {
                writes as f64 * write_bytes / (1u64 << 20) as f64 / (ns as f64 / 1e9)
            }
        };
        let mut ops = [0u64; 4];
        for o in &self.ops_per_oss {
            for k in 0..4 {
                ops[k] += o[k];
            }
        }
        Ok(PointResult {
            sim_seconds: now as f64 / 1e9,
            window_seconds: (t1 - t0) as f64 / 1e9,
            bandwidth_mib_s: mib_s(w1 - w0, t1 - t0),
            first_half_mib_s: mib_s(wm - w0, tm - t0),
            second_half_mib_s: mib_s(w1 - wm, t1 - tm),
            writes_measured: w1 - w0,
            ops,
            ops_per_oss: self.ops_per_oss,
            events: self.engine.events_fired(),
            iterations_completed: self.iterations_completed,
        })
    }

    // --- applications -------------------------------------------------------------------

    fn start_iteration(&mut self, now: TimeNs, app: u32) -> anyhow::Result<()> {
        let w = self.params.workload.clone();
        let iteration = self.apps[app as usize].iteration;
        let file = w.file_id(app as u64, iteration);
        if self.planner.uses_hints() {
            // The master's START_DELAYED; the window is named after the file (one window
            // per application and iteration).
            let plans = self.planner.start_delayed(now, file, file)?;
            self.start_plans(now, plans, Owner::Background);
        }
        let n = w.app_clients(app as u64);
        let a = &mut self.apps[app as usize];
        a.outstanding = 0;
        a.ending = false;
        for rank in 0..n {
            let client = w.client_id(app as u64, rank);
            let plans = self.planner.write(
                now,
                client,
                app as u64,
                file,
                w.offset_bytes(rank),
                w.write_bytes,
            )?;
            anyhow::ensure!(
                plans.iter().any(|p| p.foreground),
                "the planner returned no foreground plan for a client write"
            );
            self.start_plans(now, plans, Owner::Client { app, client });
        }
        self.schedule_tick();
        Ok(())
    }

    /// A foreground plan of `app` completed.
    fn foreground_done(&mut self, now: TimeNs, app: u32) -> anyhow::Result<()> {
        let a = &mut self.apps[app as usize];
        assert!(
            a.outstanding > 0,
            "foreground completion without an outstanding plan"
        );
        a.outstanding -= 1;
        if a.outstanding > 0 {
            return Ok(());
        }
        if a.ending || !self.planner.uses_hints() {
            if !a.ending {
                self.writes_completed += self.params.workload.app_clients(app as u64);
            }
            self.iteration_done(now, app);
            return Ok(());
        }
        // Every client has written: the master sends END_DELAYED and all wait for parity.
        self.writes_completed += self.params.workload.app_clients(app as u64);
        let file = self.params.workload.file_id(app as u64, a.iteration);
        a.ending = true;
        let plans = self.planner.end_delayed(now, file)?;
        if !plans.iter().any(|p| p.foreground) {
            // Nothing to wait for (e.g. the window timed out already).
            self.start_plans(now, plans, Owner::Background);
            self.iteration_done(now, app);
        } else {
            self.start_plans(now, plans, Owner::AppEnd { app });
        }
        self.schedule_tick();
        Ok(())
    }

    fn iteration_done(&mut self, now: TimeNs, app: u32) {
        self.iterations_completed += 1;
        let apps = self.apps.len() as u64;
        let stop = self.params.stop.clone();
        let a = &mut self.apps[app as usize];
        a.iteration += 1;
        a.ending = false;
        match stop.iterations {
            Some(n) => {
                if a.iteration >= n {
                    a.done = true;
                    return;
                }
            }
            None => {
                if self.window_start.is_none()
                    && self.iterations_completed >= stop.warmup_rounds * apps
                {
                    self.window_start = Some((now, self.writes_completed));
                }
                if self.window_mid.is_none()
                    && self.iterations_completed
                        >= (stop.warmup_rounds * 2 + stop.measure_rounds) * apps / 2
                {
                    self.window_mid = Some((now, self.writes_completed));
                }
                if let Some((_, w0)) = self.window_start {
                    if self.iterations_completed
                        >= (stop.warmup_rounds + stop.measure_rounds) * apps
                        && self.writes_completed - w0 >= stop.min_measured_writes
                        && now >= stop.min_sim_ns
                    {
                        self.window_end = Some((now, self.writes_completed));
                    }
                }
            }
        }
        self.engine.schedule_at(now, Ev::IterStart { app });
    }

    // --- plans --------------------------------------------------------------------------

    /// Start the plans of one planner answer. Foreground plans belong to `owner` (the
    /// client, or the application's END); background plans to nobody.
    fn start_plans(&mut self, now: TimeNs, plans: Vec<PlanOut>, owner: Owner) {
        for plan in plans {
            let owner = if plan.foreground {
                owner
            } else {
                Owner::Background
            };
            match owner {
                Owner::Client { app, .. } | Owner::AppEnd { app } => {
                    self.apps[app as usize].outstanding += 1
                }
                Owner::Background => {}
            }
            self.start_plan(now, plan, owner);
        }
    }

    fn start_plan(&mut self, now: TimeNs, mut spec: PlanOut, owner: Owner) {
        let n = spec.steps.len();
        assert!(
            n < u16::MAX as usize,
            "a plan of {n} steps exceeds the executor's limit"
        );
        // CSR adjacency from the edge list: sort by the step that must complete first.
        spec.dep_edges.sort_unstable();
        let mut dep_start = vec![0u32; n + 1];
        let mut deps_left = vec![0u16; n];
        for &(d, j) in &spec.dep_edges {
            assert!(
                (d as usize) < n && (j as usize) < n,
                "step dependency out of range"
            );
            dep_start[d as usize + 1] += 1;
            deps_left[j as usize] += 1;
        }
        for i in 0..n {
            dep_start[i + 1] += dep_start[i];
        }
        let dependents: Vec<u16> = spec.dep_edges.iter().map(|e| e.1).collect();
        let steps: Vec<StepRt> = spec
            .steps
            .into_iter()
            .zip(deps_left)
            .map(|(s, deps_left)| StepRt {
                deps_left,
                spec: s,
                ready_at_ns: now,
            })
            .collect();
        let plan = PlanRt {
            id: spec.id,
            waiting_for: 0,
            steps,
            dep_start,
            dependents,
            remaining: n as u32,
            owner,
        };
        let slot = match self.free_plans.pop() {
            Some(slot) => {
                self.plans[slot as usize] = Some(plan);
                slot
            }
            None => {
                self.plans.push(Some(plan));
                (self.plans.len() - 1) as u32
            }
        };
        self.inflight.insert(spec.id, slot);
        let mut waiting_for = 0;
        for dep in spec.after_plans {
            if self.inflight.contains_key(&dep) {
                self.waiters.entry(dep).or_default().push(slot);
                waiting_for += 1;
            }
        }
        self.plans[slot as usize]
            .as_mut()
            .expect("live plan")
            .waiting_for = waiting_for;
        if waiting_for == 0 {
            self.launch(now, slot);
        }
    }

    /// Issue the plan's steps that have no dependencies.
    fn launch(&mut self, now: TimeNs, slot: u32) {
        let n = self.plan(slot).steps.len();
        if n == 0 {
            self.engine.schedule_at(now, Ev::PlanEmpty { plan: slot });
            return;
        }
        for step in 0..n {
            if self.plan(slot).steps[step].deps_left == 0 {
                self.issue(now, slot, step as u16);
            }
        }
    }

    fn plan(&self, id: u32) -> &PlanRt {
        self.plans[id as usize].as_ref().expect("live plan")
    }

    /// Send a ready step to its OSS.
    fn issue(&mut self, now: TimeNs, plan_id: u32, step: u16) {
        let net = &self.params.network;
        let plan = self.plans[plan_id as usize].as_ref().expect("live plan");
        let spec = &plan.steps[step as usize].spec;
        let oss = spec.oss as usize;
        match plan.owner {
            Owner::Client { client, .. } => {
                let data = if spec.kind == IoKind::Write {
                    spec.size_bytes
                } else {
                    0
                };
                let wire =
                    network::wire_bytes(network::rpc_bytes(network::OST_REQUEST_BYTES, data));
                let sent = self.clients[client as usize]
                    .tx
                    .occupy(now, network::wire_ns(wire, net.client_link_bytes_per_s));
                let arrive = self.oss[oss].rx.occupy(
                    sent + self.latency_ns,
                    network::wire_ns(wire, net.oss_link_bytes_per_s),
                );
                self.engine.schedule_at(
                    arrive,
                    Ev::Arrive {
                        plan: plan_id,
                        step,
                    },
                );
            }
            Owner::AppEnd { .. } | Owner::Background => {
                let at = plan.steps[step as usize].ready_at_ns.max(now);
                self.engine.schedule_at(
                    at,
                    Ev::Arrive {
                        plan: plan_id,
                        step,
                    },
                );
            }
        }
    }

    fn arrive(&mut self, now: TimeNs, plan: u32, step: u16) {
        let oss = self.plan(plan).steps[step as usize].spec.oss as usize;
        self.oss[oss].queue.push_back((plan, step));
        self.dispatch(now, oss);
    }

    /// Service threads take queued requests to the device; free device units start them.
    fn dispatch(&mut self, now: TimeNs, oss: usize) {
        let threads = self.params.service_threads;
        let oss_count = self.params.oss_count as u64;
        let seed = self.params.seed;
        while self.oss[oss].threads_busy < threads && self.oss[oss].device.has_room() {
            let Some((plan, step)) = self.oss[oss].queue.pop_front() else {
                break;
            };
            let spec =
                &self.plans[plan as usize].as_ref().expect("live plan").steps[step as usize].spec;
            let capacity = self.oss[oss].device.capacity_bytes();
            let request = DeviceRequest {
                kind: spec.kind,
                address_bytes: device_address(spec, capacity, oss as u64, oss_count, seed),
                size_bytes: spec.size_bytes,
            };
            let o = &mut self.oss[oss];
            o.threads_busy += 1;
            o.device.enqueue(request, (plan, step));
        }
        while let Some(((plan, step), service_ns)) = self.oss[oss].device.start_next(&mut self.rng)
        {
            self.engine.schedule_at(
                now + service_ns,
                Ev::DevDone {
                    oss: oss as u32,
                    plan,
                    step,
                },
            );
        }
    }

    fn device_done(&mut self, now: TimeNs, oss_id: u32, plan_id: u32, step: u16) {
        let oss = oss_id as usize;
        {
            let o = &mut self.oss[oss];
            o.device.finish();
            o.threads_busy -= 1;
        }
        let net = self.params.network.clone();
        let plan = self.plans[plan_id as usize].as_mut().expect("live plan");
        let spec = &plan.steps[step as usize].spec;
        let class = match (spec.zone.is_parity(), spec.kind) {
            (false, IoKind::Read) => 0,
            (false, IoKind::Write) => 1,
            (true, IoKind::Read) => 2,
            (true, IoKind::Write) => 3,
        };
        self.ops_per_oss[oss][class] += 1;
        match plan.owner {
            Owner::Client { client, .. } => {
                let data = if spec.kind == IoKind::Read {
                    spec.size_bytes
                } else {
                    0
                };
                let wire = network::wire_bytes(network::rpc_bytes(network::OST_REPLY_BYTES, data));
                let sent = self.oss[oss]
                    .tx
                    .occupy(now, network::wire_ns(wire, net.oss_link_bytes_per_s));
                let back = self.clients[client as usize].rx.occupy(
                    sent + self.latency_ns,
                    network::wire_ns(wire, net.client_link_bytes_per_s),
                );
                self.engine.schedule_at(
                    back,
                    Ev::Delivered {
                        plan: plan_id,
                        step,
                    },
                );
            }
            Owner::AppEnd { .. } | Owner::Background => {
                // Data read here travels to the OSSs of the steps that need it.
                if spec.kind == IoKind::Read {
                    let bytes = network::wire_bytes(network::rpc_bytes(
                        network::OST_REQUEST_BYTES,
                        spec.size_bytes,
                    ));
                    let (a, b) = (
                        plan.dep_start[step as usize] as usize,
                        plan.dep_start[step as usize + 1] as usize,
                    );
                    for k in a..b {
                        let j = plan.dependents[k] as usize;
                        let dest = plan.steps[j].spec.oss as usize;
                        if dest != oss {
                            let sent = self.oss[oss]
                                .tx
                                .occupy(now, network::wire_ns(bytes, net.oss_link_bytes_per_s));
                            let got = self.oss[dest].rx.occupy(
                                sent + self.latency_ns,
                                network::wire_ns(bytes, net.oss_link_bytes_per_s),
                            );
                            plan.steps[j].ready_at_ns = plan.steps[j].ready_at_ns.max(got);
                        }
                    }
                }
                self.engine.schedule_at(
                    now,
                    Ev::Delivered {
                        plan: plan_id,
                        step,
                    },
                );
            }
        }
        self.dispatch(now, oss);
    }

    fn delivered(&mut self, now: TimeNs, plan_id: u32, step: u16) -> anyhow::Result<()> {
        let plan = self.plans[plan_id as usize].as_mut().expect("live plan");
        plan.remaining -= 1;
        let (a, b) = (
            plan.dep_start[step as usize] as usize,
            plan.dep_start[step as usize + 1] as usize,
        );
        for k in a..b {
            let plan = self.plans[plan_id as usize].as_mut().expect("live plan");
            let j = plan.dependents[k];
            let s = &mut plan.steps[j as usize];
            s.deps_left -= 1;
            if s.deps_left == 0 {
                self.issue(now, plan_id, j);
            }
        }
        let done = self.plan(plan_id).remaining == 0;
        if done {
            self.plan_complete(now, plan_id)?;
        }
        Ok(())
    }

    fn plan_complete(&mut self, now: TimeNs, slot: u32) -> anyhow::Result<()> {
        let plan = self.plans[slot as usize].take().expect("live plan");
        self.free_plans.push(slot);
        self.inflight.remove(&plan.id);
        if let Some(waiting) = self.waiters.remove(&plan.id) {
            for w in waiting {
                let p = self.plans[w as usize]
                    .as_mut()
                    .expect("waiting plan is live");
                p.waiting_for -= 1;
                if p.waiting_for == 0 {
                    self.launch(now, w);
                }
            }
        }
        // The planner may free cache space or start deferred work now.
        let more = self.planner.complete(plan.id)?;
        self.start_plans(now, more, Owner::Background);
        match plan.owner {
            Owner::Client { app, .. } | Owner::AppEnd { app } => self.foreground_done(now, app)?,
            Owner::Background => {}
        }
        Ok(())
    }

    // --- planner timer ------------------------------------------------------------------

    fn schedule_tick(&mut self) {
        if let Some(at) = self.planner.next_tick_ns() {
            let at = at.max(self.engine.now_ns());
            if self.tick_at_ns.map_or(true, |t| at < t) {
                self.tick_at_ns = Some(at);
                self.engine.schedule_at(at, Ev::Tick);
            }
        }
    }

    fn tick(&mut self, now: TimeNs) -> anyhow::Result<()> {
        if self.tick_at_ns != Some(now) {
            return Ok(()); // superseded by an earlier tick
        }
        self.tick_at_ns = None;
        let plans = self.planner.tick(now)?;
        self.start_plans(now, plans, Owner::Background);
        // Only keep ticking while applications still run (drain mode ends otherwise).
        if self.apps.iter().any(|a| !a.done)
            || self.planner.next_tick_ns().is_some_and(|t| t <= now)
        {
            self.schedule_tick();
        }
        Ok(())
    }
}

/// Map a step's (zone, object, address) to a byte address on its OSS's device.
///
/// Each zone owns a region of the device. A file's object starts at a pseudo-random,
/// 1 MiB-aligned place of its zone (drawn from the run's seed, the file and the OSS: "the
/// seeds control how requests are mapped into each storage device", seed section 3), so
/// different files are far apart and one file's extents are contiguous.
fn device_address(spec: &StepSpec, capacity: u64, oss: u64, _oss_count: u64, seed: u64) -> u64 {
    let (lo, hi) = ZONE_FRACTIONS[spec.zone.region()];
    let zone_start = (capacity as f64 * lo) as u64 / 4096 * 4096;
    let zone_bytes = ((capacity as f64 * (hi - lo)) as u64 / (1 << 20)).max(1) << 20;
    let base = match spec.zone {
        // The cache zone is a log shared by all files: its addresses are already per OSS.
        ZoneClass::CacheData | ZoneClass::CacheParity => 0,
        ZoneClass::Data | ZoneClass::Parity => {
            (splitmix(seed ^ splitmix(spec.object.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ oss))
                % (zone_bytes >> 20))
                << 20
        }
    };
    zone_start + (base + spec.address_bytes) % zone_bytes
}
