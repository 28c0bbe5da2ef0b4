//! The [`Store`]: files striped over OSS backends, written by executing the planner's IoPlans.
//!
//! # The write path, top to bottom (one place, all strategies)
//! 1. Under the core lock: give the write to the planner's strategy (`on_write`), get its
//!    plans, reserve the slots every write step will touch (a full disk fails here, before
//!    anything changes, and the planner is rolled back by replay), journal the input.
//! 2. For each plan, in order: wait for its `after_plans`, take the stripe locks of every
//!    stripe it touches ([`StripeLocks`], the one place of per-stripe coordination), execute
//!    its steps in order (reads, parity computes, writes; see [`Store::execute`]).
//! 3. Sync the backends, journal `Durable { plan }` (fsync'd): the write is acknowledged.
//!    Tell the planner (`on_complete`) and run whatever that returns.
//!
//! # Persistence of the planner's state
//! The strategies (WCL cache index, delayed windows) keep their state in memory. The store
//! journals every input in planning order; opening a store replays them into a fresh
//! strategy, which rebuilds its exact state because the planner is deterministic and gets
//! its time from the inputs. When nothing is left in the cache zone and no window is open the
//! planner is reset and the input log dropped.
//!
//! # Recovery
//! A plan without its `Durable` record was cut by a crash (or an I/O failure). Its writes were
//! never acknowledged. On open the store then: reseals the checksums of every range those
//! plans wrote (torn writes keep whatever bytes reached the disk), moves every cached range
//! home, recomputes the parity of every stripe touched (full encode from the data), and
//! restarts the planner (re-opening the delayed windows still open). Afterwards every stripe
//! has parity matching its data and every acknowledged byte is where reads find it.
//! Only the ranges the interrupted plans wrote (and the home ranges cached bytes move to)
//! get fresh checksums: any other block of those stripes that fails its checksum is bit rot,
//! rebuilt from parity before the parity is recomputed (or, beyond the code's tolerance,
//! left as it is for scrub to report), never blessed.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::{Cell, Code, CodeSpec, Pos, StripeBuf};
use exaraid_plan::{
    Bytes, ClientWrite, Hint, IoPlan, Layout, Op, OpCounts, PlanError, PlanId, Step, Strategy,
    StrategyConfig, StrategyKind, Zone as PlanZone,
};
use parking_lot::{Condvar, Mutex};
use serde::Serialize;

use crate::backend::{
    Backend, DirBackend, ElementKey, OssLabel, Zone, CHECKSUM_BLOCK_BYTES, ELEMENT_BYTES_MAX,
    ELEMENT_BYTES_MIN,
};
use crate::journal::Journal;
use crate::state::{Input, OssOps, Rec, State, Window};
use crate::superblock::{
    read_checked, write_checked, StoredCode, Superblock, WritePath, FORMAT_VERSION,
};
use crate::StoreError;

/// The object id of each OSS's cache zone (the planner addresses the cache zone per OSS, not
/// per file).
pub const CACHE_OBJECT: u64 = u64::MAX;
/// Longest file name.
pub const FILE_NAME_BYTES_MAX: usize = 1024;
/// Largest file offset + length (the planner's limit).
pub const FILE_BYTES_MAX: u64 = exaraid_plan::layout::FILE_BYTES_MAX;
/// A write is given to the planner in chunks of at most this many bytes (bounds one plan).
pub const WRITE_CHUNK_BYTES_MAX: u64 = 64 << 20;
/// Most OSSs of one store.
pub const OSS_COUNT_MAX: usize = 4096;
/// Planner inputs kept for replay before a close settles the store to start a new log.
pub const PLANNER_INPUTS_MAX: usize = 100_000;
/// Checkpoint (snapshot the state, truncate the journal) when the journal grows past this.
pub const JOURNAL_BYTES_CHECKPOINT: u64 = 16 << 20;

const STATE_FILE: &str = "state";
const JOURNAL_FILE: &str = "journal";
const LOCK_FILE: &str = "lock";
/// Attempts (10 ms apart) to take the store's lock before giving up: 3 s.
const LOCK_ATTEMPTS: usize = 300;

/// How to create a store.
#[derive(Clone, Debug)]
pub struct InitOptions {
    pub oss_dirs: Vec<PathBuf>,
    pub code: CodeSpec,
    /// The stripe unit (bytes of one element): 4 KiB ..= 4 MiB, a multiple of 4 KiB.
    pub element_bytes: usize,
    pub write_path: WritePath,
    pub oss_capacity_bytes: Option<u64>,
    pub window_timeout_ms: u64,
    pub unprotected_bytes_max: u64,
}

impl InitOptions {
    pub fn new(oss_dirs: Vec<PathBuf>, code: CodeSpec) -> InitOptions {
        InitOptions {
            oss_dirs,
            code,
            element_bytes: 1 << 20,
            write_path: WritePath::Rmw,
            oss_capacity_bytes: None,
            window_timeout_ms: 600_000,
            unprotected_bytes_max: 1 << 30,
        }
    }
    /// `count` OSS directories `oss-0 .. oss-{count-1}` inside the store directory.
    pub fn with_oss_count(dir: &Path, count: usize, code: CodeSpec) -> InitOptions {
        InitOptions::new(
            (0..count).map(|i| dir.join(format!("oss-{i}"))).collect(),
            code,
        )
    }
}

/// How to open a store.
#[derive(Clone)]
pub struct OpenOptions {
    /// fsync backends and journal before acknowledging (off only for benchmarks that say so).
    pub fsync: bool,
    /// Benchmarks: add an emulated device's service time to every plan step.
    pub emulate: Option<Arc<dyn ServiceTime>>,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            fsync: true,
            emulate: None,
        }
    }
}

/// An emulated device: the service time of one request, and how many requests it serves at
/// once. The store sleeps that long per plan step, holding one of the OSS's units, so the
/// write paths can be compared at a realistic device cost on one machine.
pub trait ServiceTime: Send + Sync {
    fn name(&self) -> String;
    fn service_ns(&self, op: Op, bytes: u64) -> u64;
    fn parallel_units(&self) -> usize;
}

/// One OSS in `status`.
#[derive(Clone, Debug, Serialize)]
pub struct OssStatus {
    pub index: usize,
    pub path: String,
    pub healthy: bool,
    pub ops: OssOps,
}

/// An open delayed window in `status`.
#[derive(Clone, Debug, Serialize)]
pub struct WindowStatus {
    pub token: String,
    pub file: String,
    pub unprotected_bytes: u64,
    pub started_unix_ns: u64,
}

/// `exaraid store status --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub oss: Vec<OssStatus>,
    pub bytes_waiting_parity: u64,
    pub bytes_unprotected: u64,
    pub open_windows: Vec<WindowStatus>,
    pub code: String,
    pub element_bytes: usize,
    pub write_path: String,
    pub files: usize,
}

/// A damaged element found by scrub.
#[derive(Clone, Debug, Serialize)]
pub struct ScrubFinding {
    pub oss: usize,
    pub file: String,
    pub stripe: u64,
    pub zone: String,
    pub row: usize,
    pub blocks: Vec<usize>,
    pub repaired: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ScrubReport {
    pub stripes_checked: u64,
    pub corrupt_elements: Vec<ScrubFinding>,
    /// Stripes whose parity does not match their (checksum-clean) data.
    pub parity_mismatches: Vec<(String, u64)>,
    pub repaired_elements: u64,
    pub unrepairable: Vec<String>,
}

/// Per-stripe coordination, in one place. Every plan (and every read, scrub pass, rebuild
/// step) takes a *ticket* on each `(file, stripe)` it touches, in planning order (the caller
/// holds the core lock while it plans and takes tickets), and runs only when its ticket is
/// first in the queue of every one of its stripes. So plans on one stripe run one at a time
/// and in the order the planner made them -- which the WCL running parity needs: the first
/// write to a cache-stripe range writes its parity without reading it -- while plans on
/// different stripes run in parallel. Tickets are globally ordered and a plan waits only for
/// earlier ones, so there is no deadlock.
#[derive(Default)]
pub struct StripeLocks {
    table: Mutex<LockTable>,
    freed: Condvar,
}

#[derive(Default)]
struct LockTable {
    next_ticket: u64,
    queues: HashMap<(u64, u64), VecDeque<u64>>,
}

/// A place in the queues of some stripes. Dropping it (run or not) leaves the queues.
pub struct Ticket {
    locks: Arc<StripeLocks>,
    number: u64,
    keys: Vec<(u64, u64)>,
}

/// Exclusive use of the ticket's stripes until dropped.
pub struct StripeGuard {
    _ticket: Ticket,
}

impl StripeLocks {
    /// Take a place in the queue of every `(file, stripe)` in `keys`.
    pub fn enqueue(self: &Arc<Self>, keys: BTreeSet<(u64, u64)>) -> Ticket {
        let mut t = self.table.lock();
        let number = t.next_ticket;
        t.next_ticket += 1;
        for k in &keys {
            t.queues.entry(*k).or_default().push_back(number);
        }
        Ticket {
            locks: self.clone(),
            number,
            keys: keys.into_iter().collect(),
        }
    }

    /// Wait until the ticket is first on all its stripes.
    pub fn acquire(&self, ticket: Ticket) -> StripeGuard {
        let mut t = self.table.lock();
        while !ticket
            .keys
            .iter()
            .all(|k| t.queues.get(k).and_then(|q| q.front()) == Some(&ticket.number))
        {
            self.freed.wait(&mut t);
        }
        StripeGuard { _ticket: ticket }
    }

    /// Enqueue and wait.
    pub fn lock(self: &Arc<Self>, keys: BTreeSet<(u64, u64)>) -> StripeGuard {
        let ticket = self.enqueue(keys);
        self.acquire(ticket)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut t = self.locks.table.lock();
        for k in &self.keys {
            if let Some(q) = t.queues.get_mut(k) {
                q.retain(|&n| n != self.number);
                if q.is_empty() {
                    t.queues.remove(k);
                }
            }
        }
        self.locks.freed.notify_all();
    }
}

/// A plan with its place in the stripe queues.
struct Admitted {
    plan: IoPlan,
    ticket: Ticket,
}

struct Core {
    strategy: Box<dyn Strategy>,
    journal: Journal<Rec>,
    state: State,
    /// Reads between their lookup and their last byte: while any runs, completions are held
    /// back, because `on_complete` lets the planner reuse cache space a read may still need.
    reads_in_flight: usize,
    deferred_completions: Vec<PlanId>,
}

/// A parity-protected store over OSS directories.
pub struct Store {
    dir: PathBuf,
    sb: Superblock,
    code: Code,
    layout: Layout,
    kind: StrategyKind,
    config: StrategyConfig,
    backends: Vec<DirBackend>,
    core: Mutex<Core>,
    done: Mutex<HashSet<PlanId>>,
    done_cv: Condvar,
    locks: Arc<StripeLocks>,
    /// Operations that plan or execute hold it shared; `flush` holds it exclusively, so it
    /// runs when nothing is in flight.
    gate: parking_lot::RwLock<()>,
    /// Where the planner put each column of each cache stripe `(file, stripe)`: `col ->
    /// (oss, chunk address)`, learnt from the plans it made (for degraded reads of the cache).
    cache_chunks: Mutex<HashMap<(u64, u64), BTreeMap<usize, (usize, u64)>>>,
    /// Background plans wait here when a background worker serves them.
    background: Mutex<VecDeque<Admitted>>,
    background_cv: Condvar,
    background_served: AtomicBool,
    /// Emulated device per OSS (benchmarks): service time and free units.
    emulate: Option<Arc<dyn ServiceTime>>,
    device_units: Vec<(Mutex<usize>, Condvar)>,
    /// Operations executed since open (per OSS), every kind (plans, recovery, scrub, rebuild).
    ops: Mutex<Vec<OssOps>>,
    /// Operations of executed plan steps only, per OSS, in the planner's own counting.
    plan_counts: Mutex<Vec<OpCounts>>,
    fsync: bool,
    /// Set when a plan failed half way: the store must be reopened (which recovers).
    poisoned: AtomicBool,
    _lock_file: File,
}

fn plan_err(e: PlanError) -> StoreError {
    match e {
        PlanError::BeyondFileLimit { .. }
        | PlanError::WriteTooLarge { .. }
        | PlanError::EmptyWrite => StoreError::BadInput(e.to_string()),
        other => StoreError::BadInput(other.to_string()),
    }
}

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn random_id() -> String {
    let mut bytes = [0u8; 8];
    if let Ok(mut f) = File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut bytes);
    }
    let mixed = u64::from_le_bytes(bytes) ^ unix_now_ns() ^ ((std::process::id() as u64) << 32);
    format!("{mixed:016x}")
}

fn lock_dir(dir: &Path) -> Result<File, StoreError> {
    use std::os::unix::io::AsRawFd;
    let path = dir.join(LOCK_FILE);
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| StoreError::from_io(e, &format!("opening {}", path.display())))?;
    // Wait a little: a process that just ended (or a fork that has not yet exec'd and so
    // still shares the descriptor) may hold the lock for a moment.
    for attempt in 0..=LOCK_ATTEMPTS {
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(f);
        }
        if attempt < LOCK_ATTEMPTS {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    Err(StoreError::BadInput(format!(
        "the store {} is open in another process; wait for it to finish (one process at a time)",
        dir.display()
    )))
}

fn to_backend_zone(z: PlanZone) -> Zone {
    match z {
        PlanZone::Data => Zone::Data,
        PlanZone::Parity => Zone::Parity,
        PlanZone::Cache => Zone::Cache,
    }
}

fn strategy_kind(w: WritePath) -> StrategyKind {
    match w {
        WritePath::Raid0 => StrategyKind::Raid0,
        WritePath::Rmw => StrategyKind::Rmw,
        WritePath::Wcl => StrategyKind::Wcl,
        WritePath::Delayed => StrategyKind::Delayed,
    }
}

fn check_name(name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.len() > FILE_NAME_BYTES_MAX || name.contains('\0') {
        return Err(StoreError::BadInput(format!(
            "file name '{name}' is not allowed: use 1..={FILE_NAME_BYTES_MAX} bytes without NUL"
        )));
    }
    Ok(())
}

impl Store {
    /// Create a new store in `dir` (which must not hold one) with its OSS directories.
    pub fn init(dir: &Path, opts: &InitOptions) -> Result<Store, StoreError> {
        let e = opts.element_bytes;
        if !(ELEMENT_BYTES_MIN..=ELEMENT_BYTES_MAX).contains(&e) || e % ELEMENT_BYTES_MIN != 0 {
            return Err(StoreError::BadInput(format!(
                "stripe unit {e} bytes is not allowed: use a multiple of 4096 between {ELEMENT_BYTES_MIN} and {ELEMENT_BYTES_MAX} (default 1048576)"
            )));
        }
        let code = Code::new(opts.code)
            .map_err(|err| StoreError::BadInput(format!("code {}: {err}", opts.code)))?;
        code.check_element_bytes(e)
            .map_err(|err| StoreError::BadInput(err.to_string()))?;
        let n = opts.oss_dirs.len();
        if n > OSS_COUNT_MAX {
            return Err(StoreError::BadInput(format!(
                "{n} OSS directories: at most {OSS_COUNT_MAX}"
            )));
        }
        let cols = code.geometry().cols;
        if n < cols {
            return Err(StoreError::BadInput(format!(
                "{} needs {cols} OSSs (one per stripe column) but {n} were given: pass --oss {cols} or more",
                opts.code
            )));
        }
        let distinct: BTreeSet<&PathBuf> = opts.oss_dirs.iter().collect();
        if distinct.len() != n {
            return Err(StoreError::BadInput(
                "the same OSS directory is given twice: each OSS needs its own directory".into(),
            ));
        }
        if Superblock::path(dir).exists() {
            return Err(StoreError::BadInput(format!(
                "{} already holds an exaraid store; pick another directory or remove it first",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|err| StoreError::from_io(err, &format!("creating {}", dir.display())))?;
        let dir = dir
            .canonicalize()
            .map_err(|err| StoreError::Io(format!("{}: {err}", dir.display())))?;
        let store_id = random_id();
        let mut oss_dirs = Vec::with_capacity(n);
        for (index, d) in opts.oss_dirs.iter().enumerate() {
            let label = OssLabel {
                store_id: store_id.clone(),
                index,
                element_bytes: e,
            };
            DirBackend::create(d, &label, opts.oss_capacity_bytes)?;
            oss_dirs.push(
                d.canonicalize()
                    .map_err(|err| StoreError::Io(format!("{}: {err}", d.display())))?,
            );
        }
        let sb = Superblock {
            format_version: FORMAT_VERSION,
            store_id,
            code: StoredCode::from_spec(opts.code),
            element_bytes: e,
            oss_dirs,
            write_path: opts.write_path,
            oss_capacity_bytes: opts.oss_capacity_bytes,
            window_timeout_ms: opts.window_timeout_ms,
            unprotected_bytes_max: opts.unprotected_bytes_max,
        };
        let state = State {
            ops: vec![OssOps::default(); n],
            ..State::default()
        };
        write_checked(&dir.join(STATE_FILE), "state", &state)?;
        let _ = std::fs::remove_file(dir.join(JOURNAL_FILE));
        // The superblock last: its presence is what makes the directory a store.
        sb.save(&dir)?;
        Store::open(&dir)
    }

    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(dir, OpenOptions::default())
    }

    /// Open a store, replay its journal and recover from an interrupted run if needed.
    pub fn open_with(dir: &Path, options: OpenOptions) -> Result<Store, StoreError> {
        let sb = Superblock::load(dir)?;
        let lock_file = lock_dir(dir)?;
        let spec = sb.code.spec()?;
        let code = Code::new(spec)
            .map_err(|e| StoreError::Metadata(format!("superblock names a bad code: {e}")))?;
        let n = sb.oss_dirs.len();
        let kind = strategy_kind(sb.write_path);
        let layout = if kind == StrategyKind::Raid0 {
            Layout::raid0(code.geometry().cols, sb.element_bytes as u64, n)
        } else {
            Layout::new(&code, sb.element_bytes as u64, n)
        }
        .map_err(|e| StoreError::Metadata(e.to_string()))?;
        let mut backends = Vec::with_capacity(n);
        for (index, d) in sb.oss_dirs.iter().enumerate() {
            let label = OssLabel {
                store_id: sb.store_id.clone(),
                index,
                element_bytes: sb.element_bytes,
            };
            backends.push(DirBackend::open(d, &label, sb.oss_capacity_bytes)?);
        }
        let mut state: State = read_checked(&dir.join(STATE_FILE), "state")?;
        let (mut journal, records) = Journal::<Rec>::open(&dir.join(JOURNAL_FILE))?;
        journal.advance_to(state.last_seq + 1);
        for (seq, rec) in &records {
            if *seq > state.last_seq {
                state.apply(*seq, rec);
            }
        }
        state.ops.resize(n, OssOps::default());
        for &i in &state.failed_oss {
            if i < n {
                backends[i].set_failed(true);
            }
        }
        let config = StrategyConfig {
            window_timeout_ns: sb.window_timeout_ms.saturating_mul(1_000_000),
            ..StrategyConfig::default()
        };
        let (mut strategy, plans) = replay(kind, &layout, config, &state.inputs)?;
        let undurable: Vec<(usize, IoPlan)> = plans
            .iter()
            .filter(|(_, p)| !state.durable.contains(&p.id))
            .cloned()
            .collect();
        if let Some(first) = undurable.iter().map(|(i, _)| *i).min() {
            // If no input from the first interrupted one on produced a durable plan, recovery
            // works on the planner state from before them: the interrupted writes then read
            // as never made (their bytes stay old, or new where a torn home write reached
            // the disk), instead of exposing cache slots they did not finish writing.
            let tail_undurable = plans
                .iter()
                .filter(|(i, _)| *i >= first)
                .all(|(_, p)| !state.durable.contains(&p.id));
            if tail_undurable {
                strategy = replay(kind, &layout, config, &state.inputs[..first])?.0;
            }
        }
        let undurable: Vec<IoPlan> = undurable.into_iter().map(|(_, p)| p).collect();
        let replayed: Vec<IoPlan> = plans.into_iter().map(|(_, p)| p).collect();
        let store = Store {
            dir: dir.to_path_buf(),
            code,
            layout,
            kind,
            config,
            core: Mutex::new(Core {
                strategy,
                journal,
                state,
                reads_in_flight: 0,
                deferred_completions: Vec::new(),
            }),
            done: Mutex::new(HashSet::new()),
            done_cv: Condvar::new(),
            locks: Arc::new(StripeLocks::default()),
            gate: parking_lot::RwLock::new(()),
            cache_chunks: Mutex::new(HashMap::new()),
            background: Mutex::new(VecDeque::new()),
            background_cv: Condvar::new(),
            background_served: AtomicBool::new(false),
            device_units: (0..n)
                .map(|_| {
                    (
                        Mutex::new(options.emulate.as_ref().map_or(0, |e| e.parallel_units())),
                        Condvar::new(),
                    )
                })
                .collect(),
            emulate: options.emulate.clone(),
            ops: Mutex::new(vec![OssOps::default(); n]),
            plan_counts: Mutex::new(vec![OpCounts::default(); n]),
            fsync: options.fsync,
            poisoned: AtomicBool::new(false),
            _lock_file: lock_file,
            backends,
            sb,
        };
        for p in &replayed {
            store.learn_cache_chunks(p);
        }
        let more = {
            let mut core = store.core.lock();
            let durable: Vec<PlanId> = core.state.durable.iter().copied().collect();
            store.done.lock().extend(durable.iter().copied());
            if !undurable.is_empty() {
                store.recover(&mut core, &undurable)?;
                Vec::new()
            } else {
                store.restart_windows(&mut core)?;
                // Durable plans whose completion the planner never heard (a crash between
                // the two records): tell it now.
                let completed: HashSet<PlanId> = core
                    .state
                    .inputs
                    .iter()
                    .filter_map(|i| {
                        if let Input::Complete { plan } = i {
                            Some(*plan)
                        } else {
                            None
                        }
                    })
                    .collect();
                let mut more = Vec::new();
                for p in durable.into_iter().filter(|p| !completed.contains(p)) {
                    more.extend(core.strategy.on_complete(p).map_err(plan_err)?);
                    store.journal(&mut core, Rec::Input(Input::Complete { plan: p }), false)?;
                }
                store.admit(more)
            }
        };
        store.run_plans(more, None)?;
        store.tick()?;
        Ok(store)
    }

    pub fn superblock(&self) -> &Superblock {
        &self.sb
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn code(&self) -> &Code {
        &self.code
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn strategy_kind(&self) -> StrategyKind {
        self.kind
    }

    fn check_usable(&self) -> Result<(), StoreError> {
        if self.poisoned.load(Ordering::SeqCst) {
            return Err(StoreError::Io(
                "an earlier operation failed half way; reopen the store (it recovers on open)"
                    .into(),
            ));
        }
        Ok(())
    }

    fn now_ns(core: &Core) -> u64 {
        unix_now_ns().max(core.state.last_now_ns)
    }

    fn journal(&self, core: &mut Core, rec: Rec, sync: bool) -> Result<(), StoreError> {
        let seq = core.journal.append(&rec, sync && self.fsync)?;
        core.state.apply(seq, &rec);
        Ok(())
    }

    // ---------------------------------------------------------------- files

    pub fn list(&self) -> Vec<(String, u64)> {
        // Names with NUL are `put`'s temporary files (one left by a crash is not a user's file).
        self.core
            .lock()
            .state
            .files
            .iter()
            .filter(|(n, _)| !n.contains('\0'))
            .map(|(n, m)| (n.clone(), m.size_bytes))
            .collect()
    }

    /// The planner's file id of `name` (its object name on every OSS).
    pub fn file_id(&self, name: &str) -> Result<u64, StoreError> {
        self.file(name).map(|(id, _)| id)
    }

    pub fn size(&self, name: &str) -> Result<u64, StoreError> {
        self.file(name).map(|(_, s)| s)
    }

    fn file(&self, name: &str) -> Result<(u64, u64), StoreError> {
        let core = self.core.lock();
        core.state
            .files
            .get(name)
            .map(|m| (m.id, m.size_bytes))
            .ok_or_else(|| {
                StoreError::BadInput(format!(
                    "no file named '{name}' in the store; `exaraid store ls` lists the files"
                ))
            })
    }

    fn file_or_create(&self, name: &str) -> Result<u64, StoreError> {
        check_name(name)?;
        let mut core = self.core.lock();
        if let Some(m) = core.state.files.get(name) {
            return Ok(m.id);
        }
        let id = core.state.next_file_id;
        self.journal(
            &mut core,
            Rec::Create {
                name: name.to_string(),
                id,
            },
            true,
        )?;
        Ok(id)
    }

    /// Remove a file: its objects on every OSS and its metadata.
    pub fn remove(&self, name: &str) -> Result<(), StoreError> {
        self.check_usable()?;
        let (id, _) = self.file(name)?;
        self.detach(id)?;
        let mut core = self.core.lock();
        self.journal(
            &mut core,
            Rec::Remove {
                name: name.to_string(),
            },
            true,
        )?;
        drop(core);
        self.remove_objects(id)
    }

    /// Before a file's metadata goes: nothing of it may stay in the cache zone and its open
    /// windows end.
    fn detach(&self, id: u64) -> Result<(), StoreError> {
        {
            let core = self.core.lock();
            let cached = self.cached_extents(&core, id)?;
            if !cached.is_empty() || core.state.windows.values().any(|w| w.file == id) {
                drop(core);
                // Data of this file still in the cache zone (or an open window): settle it
                // first so that the cache zone holds nothing of a removed file.
                self.flush()?;
            }
        }
        let mut core = self.core.lock();
        let tokens: Vec<String> = core
            .state
            .windows
            .iter()
            .filter(|(_, w)| w.file == id)
            .map(|(t, _)| t.clone())
            .collect();
        for token in tokens {
            self.journal(&mut core, Rec::WindowEnd { token }, false)?;
        }
        Ok(())
    }

    fn remove_objects(&self, id: u64) -> Result<(), StoreError> {
        for b in &self.backends {
            if b.healthy() {
                b.remove_object(id)?;
            }
        }
        Ok(())
    }

    /// Store `data` as file `name`, replacing any previous content. Over an existing file the
    /// new content is written first under a temporary name and then takes the name, so a put
    /// that fails (a full OSS) leaves the old content whole; it needs room for both meanwhile.
    pub fn put(&self, name: &str, data: &[u8]) -> Result<(), StoreError> {
        check_name(name)?;
        self.check_usable()?;
        let old = self.core.lock().state.files.get(name).map(|m| m.id);
        let Some(old) = old else {
            self.file_or_create(name)?;
            if !data.is_empty() {
                self.write(name, 0, data)?;
            }
            return Ok(());
        };
        // NUL is refused in user names (`check_name`), so this name is never a user's file.
        let temp = format!("{name}\0put");
        if self.core.lock().state.files.contains_key(&temp) {
            self.remove(&temp)?; // left by a put that crashed: never acknowledged
        }
        let id = {
            let mut core = self.core.lock();
            let id = core.state.next_file_id;
            self.journal(
                &mut core,
                Rec::Create {
                    name: temp.clone(),
                    id,
                },
                true,
            )?;
            id
        };
        if !data.is_empty() {
            if let Err(e) = self.write_id(id, 0, data) {
                // Drop the partial new content; the old file was not touched.
                if let Err(cleanup) = self.remove(&temp) {
                    return Err(StoreError::Io(format!(
                        "{e}; removing the partial new content failed too: {cleanup}"
                    )));
                }
                return Err(e);
            }
        }
        self.detach(old)?;
        {
            let mut core = self.core.lock();
            self.journal(
                &mut core,
                Rec::Replace {
                    from: temp,
                    to: name.to_string(),
                },
                true,
            )?;
        }
        self.remove_objects(old)
    }

    /// The whole content of a file.
    pub fn get(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        let (_, size) = self.file(name)?;
        if size == 0 {
            return Ok(Vec::new());
        }
        self.read(name, 0, size)
    }

    // ---------------------------------------------------------------- write path

    /// Write `data` at `offset_bytes` of file `name` (created if missing). Returns when the
    /// write is durable (acknowledged).
    pub fn write(&self, name: &str, offset_bytes: u64, data: &[u8]) -> Result<(), StoreError> {
        self.check_usable()?;
        if data.is_empty() {
            return Err(StoreError::BadInput(
                "a write of 0 bytes does nothing: give at least one byte".into(),
            ));
        }
        let len = data.len() as u64;
        if offset_bytes
            .checked_add(len)
            .map_or(true, |end| end > FILE_BYTES_MAX)
        {
            return Err(StoreError::BadInput(format!(
                "offset {offset_bytes} + {len} bytes ends beyond the largest file ({FILE_BYTES_MAX} bytes)"
            )));
        }
        let file = self.file_or_create(name)?;
        self.write_id(file, offset_bytes, data)
    }

    /// `write` to a file known by id (the temporary file of `put` has no user name).
    fn write_id(&self, file: u64, offset_bytes: u64, data: &[u8]) -> Result<(), StoreError> {
        let len = data.len() as u64;
        if offset_bytes
            .checked_add(len)
            .map_or(true, |end| end > FILE_BYTES_MAX)
        {
            return Err(StoreError::BadInput(format!(
                "offset {offset_bytes} + {len} bytes ends beyond the largest file ({FILE_BYTES_MAX} bytes)"
            )));
        }
        {
            let _shared = self.gate.read();
            let mut done = 0u64;
            while done < len {
                let chunk = (len - done).min(WRITE_CHUNK_BYTES_MAX);
                let piece = &data[done as usize..(done + chunk) as usize];
                self.write_chunk(file, offset_bytes + done, piece)?;
                done += chunk;
            }
        }
        self.enforce_unprotected_bound()?;
        if self.core.lock().journal.len_bytes() > JOURNAL_BYTES_CHECKPOINT {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// More bytes without parity than the store's bound: advance the parity now (seed 004
    /// section 2.2: "The WCL ... can also advance the calculation in the background"). The
    /// planner has no input for a partial advance, so the store settles: every cached byte
    /// goes home with parity and open windows stay open (later writes in them are again
    /// unprotected until END).
    fn enforce_unprotected_bound(&self) -> Result<(), StoreError> {
        let over = {
            let core = self.core.lock();
            let unprotected: u64 = core
                .strategy
                .unprotected()
                .iter()
                .map(|u| u.len_bytes)
                .sum();
            unprotected > self.sb.unprotected_bytes_max
        };
        if over {
            self.flush()?;
        }
        Ok(())
    }

    fn write_chunk(&self, file: u64, offset_bytes: u64, data: &[u8]) -> Result<(), StoreError> {
        let write = ClientWrite {
            client: 0,
            app: 0,
            file,
            offset_bytes,
            len_bytes: data.len() as u64,
        };
        let (tick_plans, plans) = {
            let mut core = self.core.lock();
            let now_ns = Self::now_ns(&core);
            let tick_plans = self.tick_locked(&mut core, now_ns)?;
            let plans = core.strategy.on_write(&write, now_ns).map_err(plan_err)?;
            if let Err(e) = self.reserve(&plans) {
                // Nothing was written; forget the write by rebuilding the planner without it.
                core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                return Err(e);
            }
            self.journal(
                &mut core,
                Rec::Input(Input::Write {
                    file,
                    offset_bytes,
                    len_bytes: write.len_bytes,
                    now_ns,
                }),
                false,
            )?;
            (self.admit(tick_plans), self.admit(plans))
        };
        self.run_plans(tick_plans, None)?;
        self.run_plans(plans, Some((&write, data)))
    }

    /// Reserve every slot the plans write, so that a full OSS fails before any write.
    fn reserve(&self, plans: &[IoPlan]) -> Result<(), StoreError> {
        let mut per_oss: BTreeMap<usize, BTreeSet<ElementKey>> = BTreeMap::new();
        for plan in plans {
            for step in plan.steps.iter().filter(|s| s.op == Op::Write) {
                let e = self.sb.element_bytes as u64;
                let mut addr = step.addr_bytes;
                let end = step.addr_bytes + step.len_bytes;
                while addr < end {
                    per_oss
                        .entry(step.oss)
                        .or_default()
                        .insert(self.key(step.zone, step.file, addr));
                    addr = (addr / e + 1) * e;
                }
            }
        }
        for (oss, keys) in per_oss {
            let b = &self.backends[oss];
            if !b.healthy() {
                continue; // a failed OSS: its writes are skipped (degraded mode)
            }
            let keys: Vec<ElementKey> = keys.into_iter().collect();
            b.reserve(&keys).map_err(|e| match e {
                crate::backend::BackendError::NoSpace { .. } => StoreError::NoSpace(format!("{e}")),
                other => StoreError::Backend(other),
            })?;
        }
        Ok(())
    }

    fn key(&self, zone: PlanZone, file: u64, addr_bytes: u64) -> ElementKey {
        let e = self.sb.element_bytes as u64;
        let object = if zone == PlanZone::Cache {
            CACHE_OBJECT
        } else {
            file
        };
        ElementKey {
            object,
            zone: to_backend_zone(zone),
            slot: addr_bytes / e,
        }
    }

    /// The planner's timers (delayed-window timeouts). Called with the core lock held.
    fn tick_locked(&self, core: &mut Core, now_ns: u64) -> Result<Vec<IoPlan>, StoreError> {
        let due = core
            .strategy
            .next_deadline_ns()
            .is_some_and(|d| d <= now_ns);
        if !due {
            return Ok(Vec::new());
        }
        let plans = core.strategy.on_tick(now_ns).map_err(plan_err)?;
        self.journal(core, Rec::Input(Input::Tick { now_ns }), false)?;
        Ok(plans)
    }

    /// Run the planner's timers now (the CLI calls this on every command).
    pub fn tick(&self) -> Result<(), StoreError> {
        self.check_usable()?;
        let _shared = self.gate.read();
        let plans = {
            let mut core = self.core.lock();
            let now = Self::now_ns(&core);
            let plans = self.tick_locked(&mut core, now)?;
            self.admit(plans)
        };
        self.run_plans(plans, None)
    }

    /// Serve background plans (WCL destage, delayed-parity moves, timeouts) in this thread
    /// until `stop` is set and none is left. While it runs, writes return as soon as their
    /// foreground plans are durable. Without a server, background plans run inline.
    pub fn serve_background(&self, stop: &AtomicBool) -> Result<(), StoreError> {
        self.background_served.store(true, Ordering::SeqCst);
        let result = (|| loop {
            let next = {
                let mut q = self.background.lock();
                if q.is_empty() {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    self.background_cv
                        .wait_for(&mut q, std::time::Duration::from_millis(5));
                }
                q.pop_front()
            };
            if let Some(a) = next {
                let _shared = self.gate.read();
                self.run_plans_from(vec![a], None, true)?;
            }
        })();
        self.background_served.store(false, Ordering::SeqCst);
        let rest: Vec<Admitted> = self.background.lock().drain(..).collect();
        self.run_plans(rest, None)?;
        result
    }

    /// Hold one unit of the emulated device of `oss` for the service time of a request.
    fn emulate_device(&self, oss: usize, op: Op, bytes: u64) {
        let Some(model) = &self.emulate else { return };
        let (units, freed) = &self.device_units[oss];
        {
            let mut free = units.lock();
            while *free == 0 {
                freed.wait(&mut free);
            }
            *free -= 1;
        }
        std::thread::sleep(std::time::Duration::from_nanos(model.service_ns(op, bytes)));
        *units.lock() += 1;
        freed.notify_one();
    }

    /// Tell the planner of completed plans, unless a read is in flight (see `Core`).
    fn complete_deferred(&self, core: &mut Core) -> Result<Vec<IoPlan>, StoreError> {
        let mut more = Vec::new();
        if core.reads_in_flight > 0 {
            return Ok(more);
        }
        for id in std::mem::take(&mut core.deferred_completions) {
            more.extend(core.strategy.on_complete(id).map_err(plan_err)?);
            self.journal(core, Rec::Input(Input::Complete { plan: id }), false)?;
        }
        Ok(more)
    }

    /// Give plans their places in the stripe queues. Call with the core lock held, right
    /// after planning, so the queues follow planning order.
    fn admit(&self, plans: Vec<IoPlan>) -> Vec<Admitted> {
        for plan in &plans {
            self.learn_cache_chunks(plan);
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
    fn learn_cache_chunks(&self, plan: &IoPlan) {
        let e = self.sb.element_bytes as u64;
        let mut map = self.cache_chunks.lock();
        for step in plan.steps.iter().filter(|s| s.zone == PlanZone::Cache) {
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let base = step.addr_bytes + at - el.pos.row as u64 * e - el.offset_bytes;
                map.entry((step.file, el.stripe))
                    .or_default()
                    .insert(el.pos.col, (step.oss, base));
                at += el.len_bytes;
            }
        }
    }

    /// Rebuild bytes of a cache stripe's element from the rest of the cache stripe (WCL: the
    /// running parity covers every byte written into it; unwritten bytes count as zeros).
    fn rebuild_cache_element(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
    ) -> Result<Vec<u8>, StoreError> {
        let e = self.sb.element_bytes;
        let chunks = self
            .cache_chunks
            .lock()
            .get(&(file, stripe))
            .cloned()
            .unwrap_or_default();
        let sdb = self.layout.stripe_data_bytes();
        let extents = match core {
            Some(c) => c.strategy.lookup(file, stripe * sdb, sdb),
            None => self.core.lock().strategy.lookup(file, stripe * sdb, sdb),
        }
        .map_err(plan_err)?;
        let g = self.layout.geometry().clone();
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, e);
        let mut erased: BTreeSet<usize> = [pos.col].into_iter().collect();
        let has_parity_chunk = g.parity_pos.iter().any(|p| chunks.contains_key(&p.col));
        if !has_parity_chunk || self.tolerance() == 0 {
            return Err(StoreError::DataLost(format!(
                "file id {file} stripe {stripe}: these bytes sit only in the cache zone of a failed OSS, without parity (a delayed window or raid0)"
            )));
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
                let slot_addr = base + (row * e) as u64;
                let key = self.key(PlanZone::Cache, file, slot_addr);
                match g.cell(p) {
                    Cell::Parity(_) => {
                        if self.backends[oss].read(key, 0, buf.element_mut(p)).is_err() {
                            erased.insert(col);
                        }
                    }
                    Cell::Data(_) => {
                        // Only the bytes written into this cache stripe; the rest is zero.
                        for x in extents
                            .iter()
                            .filter(|x| x.zone == PlanZone::Cache && x.element.pos == p)
                        {
                            if x.addr_bytes < slot_addr || x.addr_bytes >= slot_addr + e as u64 {
                                continue;
                            }
                            let o = x.element.offset_bytes as usize;
                            let n = x.len_bytes as usize;
                            if self.backends[oss]
                                .read(key, o, &mut buf.element_mut(p)[o..o + n])
                                .is_err()
                            {
                                erased.insert(col);
                            }
                        }
                    }
                    Cell::Empty => {}
                }
            }
        }
        let erased: Vec<usize> = erased.into_iter().collect();
        self.decode(file, stripe, &mut buf, &erased)?;
        Ok(buf.element(pos).to_vec())
    }

    /// Execute plans in order; each becomes durable (journaled) on success, then the planner
    /// hears of its completion and whatever that returns runs too.
    fn run_plans(
        &self,
        plans: Vec<Admitted>,
        client: Option<(&ClientWrite, &[u8])>,
    ) -> Result<(), StoreError> {
        self.run_plans_from(plans, client, false)
    }

    /// `run_plans`; `on_server` says the caller is the background server (which runs
    /// background plans itself instead of queueing them).
    fn run_plans_from(
        &self,
        plans: Vec<Admitted>,
        client: Option<(&ClientWrite, &[u8])>,
        on_server: bool,
    ) -> Result<(), StoreError> {
        let mut queue: VecDeque<Admitted> = plans.into();
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
                while !plan.after_plans.iter().all(|p| done.contains(p)) {
                    self.done_cv.wait(&mut done);
                }
            }
            let is_client_plan = matches!(plan.cause, exaraid_plan::PlanCause::Write { .. });
            let result = {
                let _guard = self.locks.acquire(ticket);
                self.execute(&plan, if is_client_plan { client } else { None })
            };
            if let Err(e) = result {
                self.poisoned.store(true, Ordering::SeqCst);
                return Err(e);
            }
            if self.fsync {
                for oss in plan.osses() {
                    if self.backends[oss].healthy() {
                        self.backends[oss].sync()?;
                    }
                }
            }
            {
                let mut counts = self.plan_counts.lock();
                plan.add_counts_per_oss(&mut counts);
            }
            let more = {
                let mut core = self.core.lock();
                self.journal(
                    &mut core,
                    Rec::Durable {
                        plans: vec![plan.id],
                    },
                    true,
                )?;
                self.done.lock().insert(plan.id);
                self.done_cv.notify_all();
                core.deferred_completions.push(plan.id);
                let more = self.complete_deferred(&mut core)?;
                self.admit(more)
            };
            queue.extend(more);
        }
        Ok(())
    }

    /// Execute one plan's steps on real bytes, in step order (every `after` points backwards).
    fn execute(
        &self,
        plan: &IoPlan,
        client: Option<(&ClientWrite, &[u8])>,
    ) -> Result<(), StoreError> {
        // Steps run in waves by dependency depth: a step's `after` steps are all in earlier
        // waves, and the steps of one wave (no path between them, as the planner promises)
        // run in parallel, one thread per step, when they reach more than one OSS.
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
        let waves = depth.iter().copied().max().map_or(0, |d| d + 1);
        let mut read_bytes: Vec<Option<Vec<u8>>> = vec![None; n];
        let mut computed: Vec<Option<Vec<u8>>> = vec![None; plan.computes.len()];
        for wave in 0..waves {
            let members: Vec<usize> = (0..n).filter(|&i| depth[i] == wave).collect();
            // The bytes of this wave's writes (sources are reads of earlier waves, the client
            // buffer or parity computes over those).
            let mut write_bytes: Vec<(usize, Vec<u8>)> = Vec::new();
            for &i in &members {
                let step = &plan.steps[i];
                if step.op != Op::Write {
                    continue;
                }
                let mut bytes = Vec::with_capacity(step.len_bytes as usize);
                for piece in &step.pieces {
                    let source = piece.source.expect("write pieces name their bytes");
                    let b = self.resolve(
                        plan,
                        source,
                        piece.element.len_bytes,
                        client,
                        &read_bytes,
                        &mut computed,
                    )?;
                    bytes.extend_from_slice(&b);
                }
                write_bytes.push((i, bytes));
            }
            let reads: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| plan.steps[i].op == Op::Read)
                .collect();
            let osses: BTreeSet<usize> = members.iter().map(|&i| plan.steps[i].oss).collect();
            if osses.len() <= 1 {
                for &i in &reads {
                    read_bytes[i] = Some(self.read_step(&plan.steps[i])?);
                }
                for (i, bytes) in &write_bytes {
                    self.write_step(&plan.steps[*i], bytes)?;
                }
                continue;
            }
            // Reads first, then writes (a degraded read rebuilds from the rest of the stripe
            // and must see it as it was before this plan), each phase with one thread per
            // OSS: the steps of one OSS run in order (two steps may share a checksum block of
            // one element, and a device serves its queue anyway).
            type StepResults = Vec<(usize, Result<Option<Vec<u8>>, StoreError>)>;
            let mut results: StepResults = Vec::new();
            for phase in [Op::Read, Op::Write] {
                let mut per_oss: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
                for &i in members.iter().filter(|&&i| plan.steps[i].op == phase) {
                    per_oss.entry(plan.steps[i].oss).or_default().push(i);
                }
                let write_bytes = &write_bytes;
                let out: StepResults = std::thread::scope(|s| {
                    let handles: Vec<_> = per_oss
                        .into_values()
                        .map(|steps| {
                            s.spawn(move || {
                                let mut out: StepResults = Vec::new();
                                for i in steps {
                                    let step = &plan.steps[i];
                                    let r = match step.op {
                                        Op::Read => self.read_step(step).map(Some),
                                        Op::Write => {
                                            let bytes = &write_bytes
                                                .iter()
                                                .find(|(w, _)| *w == i)
                                                .expect("resolved")
                                                .1;
                                            self.write_step(step, bytes).map(|_| None)
                                        }
                                    };
                                    let failed = r.is_err();
                                    out.push((i, r));
                                    if failed {
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
                });
                results.extend(out);
            }
            for (i, r) in results {
                if let Some(bytes) = r? {
                    read_bytes[i] = Some(bytes);
                }
            }
        }
        Ok(())
    }

    /// The bytes a source names.
    fn resolve(
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
                    let c = &plan.computes[compute];
                    let engine = exaraid_codes::engine::engine();
                    let mut out =
                        self.resolve(plan, c.base, c.len_bytes, client, read_bytes, computed)?;
                    for t in &c.terms {
                        let mut x =
                            self.resolve(plan, t.new, c.len_bytes, client, read_bytes, computed)?;
                        if t.old != Bytes::Zero {
                            let old = self.resolve(
                                plan,
                                t.old,
                                c.len_bytes,
                                client,
                                read_bytes,
                                computed,
                            )?;
                            engine.xor_into(&mut x, &old);
                        }
                        engine.gf_mul_xor(t.coef, &x, &mut out);
                    }
                    computed[compute] = Some(out);
                }
                let b = computed[compute].as_ref().expect("just computed");
                b[offset_bytes as usize..offset_bytes as usize + len].to_vec()
            }
        })
    }

    fn count(&self, oss: usize, zone: Zone, op: Op, parity: bool) {
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
    fn read_step(&self, step: &Step) -> Result<Vec<u8>, StoreError> {
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
            self.read_range(
                None,
                step.oss,
                step.zone,
                step.file,
                addr,
                &piece.element,
                buf,
            )?;
            at += len;
        }
        Ok(out)
    }

    fn read_range(
        &self,
        core: Option<&Core>,
        oss: usize,
        zone: PlanZone,
        file: u64,
        addr: u64,
        element: &exaraid_plan::ElementRange,
        buf: &mut [u8],
    ) -> Result<(), StoreError> {
        let e = self.sb.element_bytes as u64;
        let mut done = 0usize;
        while done < buf.len() {
            let a = addr + done as u64;
            let off = (a % e) as usize;
            let n = (buf.len() - done).min(e as usize - off);
            let key = self.key(zone, file, a);
            match self.backends[oss].read(key, off, &mut buf[done..done + n]) {
                Ok(()) => {}
                // Missing: the planner says these bytes are here, so they were written and
                // the slot was deleted or truncated outside exaraid; never read it as zeros.
                Err(err)
                    if (err.is_unavailable() || err.is_corrupt() || err.is_missing())
                        && zone != PlanZone::Cache =>
                {
                    if err.is_unavailable() {
                        self.note_failed(oss)?;
                    }
                    let whole = self.rebuild_element(file, element.stripe, element.pos)?;
                    let from = element.offset_bytes as usize + done;
                    buf[done..done + n].copy_from_slice(&whole[from..from + n]);
                }
                Err(err) if err.is_unavailable() || err.is_corrupt() || err.is_missing() => {
                    if err.is_unavailable() {
                        if core.is_some() {
                            self.backends[oss].set_failed(true);
                        } else {
                            self.note_failed(oss)?;
                        }
                    }
                    let whole = self
                        .rebuild_cache_element(core, file, element.stripe, element.pos)
                        .map_err(|e| {
                            StoreError::DataLost(format!(
                                "{err}; rebuilding from the cache stripe failed: {e}"
                            ))
                        })?;
                    let from = element.offset_bytes as usize + done;
                    buf[done..done + n].copy_from_slice(&whole[from..from + n]);
                }
                Err(err) => return Err(err.into()),
            }
            done += n;
        }
        Ok(())
    }

    fn write_step(&self, step: &Step, bytes: &[u8]) -> Result<(), StoreError> {
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
            return self.note_failed(step.oss); // degraded write: parity carries this element
        }
        let e = self.sb.element_bytes as u64;
        let mut done = 0usize;
        while done < bytes.len() {
            let a = step.addr_bytes + done as u64;
            let off = (a % e) as usize;
            let n = (bytes.len() - done).min(e as usize - off);
            match b.write(
                self.key(step.zone, step.file, a),
                off,
                &bytes[done..done + n],
            ) {
                Ok(()) => {}
                Err(err) if err.is_unavailable() => return self.note_failed(step.oss),
                Err(err) => return Err(err.into()),
            }
            done += n;
        }
        Ok(())
    }

    /// An OSS stopped answering: record it (once) and check the code still covers the loss.
    fn note_failed(&self, oss: usize) -> Result<(), StoreError> {
        self.backends[oss].set_failed(true);
        let mut core = self.core.lock();
        if !core.state.failed_oss.contains(&oss) {
            self.journal(&mut core, Rec::Fail { oss }, true)?;
        }
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

    fn tolerance(&self) -> usize {
        if self.kind == StrategyKind::Raid0 {
            0
        } else {
            self.code.geometry().fault_tolerance
        }
    }

    // ---------------------------------------------------------------- stripes at home

    fn home_key(&self, file: u64, stripe: u64, pos: Pos) -> Option<(usize, ElementKey)> {
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
    fn read_home_stripe(
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
    fn rebuild_element(&self, file: u64, stripe: u64, pos: Pos) -> Result<Vec<u8>, StoreError> {
        let (mut buf, mut erased, _) = self.read_home_stripe(file, stripe)?;
        if !erased.contains(&pos.col) {
            erased.push(pos.col); // the caller could not read it even if this pass could
            erased.sort();
        }
        self.decode(file, stripe, &mut buf, &erased)?;
        Ok(buf.element(pos).to_vec())
    }

    fn decode(
        &self,
        file: u64,
        stripe: u64,
        buf: &mut StripeBuf,
        erased: &[usize],
    ) -> Result<(), StoreError> {
        if erased.is_empty() {
            return Ok(());
        }
        if erased.len() > self.tolerance() {
            let name = self
                .core
                .lock()
                .state
                .file_by_id(file)
                .map(|(n, _)| n.clone())
                .unwrap_or_else(|| format!("#{file}"));
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
    fn write_home_stripe(
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
    fn cached_extents(
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
        Ok(extents
            .into_iter()
            .filter(|x| x.zone == PlanZone::Cache)
            .collect())
    }

    /// Recovery after an interrupted run (see the module docs).
    fn recover(&self, core: &mut Core, undurable: &[IoPlan]) -> Result<(), StoreError> {
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
    fn settle(
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
                self.count(x.oss, Zone::Cache, Op::Read, false);
                self.read_range(
                    Some(core),
                    x.oss,
                    x.zone,
                    file,
                    x.addr_bytes,
                    &x.element,
                    &mut bytes,
                )?;
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
        self.restart_windows(core)?;
        self.checkpoint_locked(core)
    }

    /// Recompute the checksums of the parity elements of a home stripe over one element
    /// byte range from their bytes (recovery only: the parity is rewritten right after).
    fn reseal_parity(
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
    fn decode_keeping_verified(
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
    fn move_cached_home_unprotected(
        &self,
        core: &Core,
        file: u64,
        overlay: &[exaraid_plan::Extent],
    ) -> Result<(), StoreError> {
        for x in overlay {
            let mut bytes = vec![0u8; x.len_bytes as usize];
            self.count(x.oss, Zone::Cache, Op::Read, false);
            self.read_range(
                Some(core),
                x.oss,
                x.zone,
                file,
                x.addr_bytes,
                &x.element,
                &mut bytes,
            )?;
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
    fn restart_windows(&self, core: &mut Core) -> Result<(), StoreError> {
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

    /// Move everything in the cache zone home with parity (also ends the effect of open
    /// windows early: their data gets parity now).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.check_usable()?;
        // Exclusive: no plan is in flight (writers, readers and the background server hold
        // the gate shared); queued background plans run first.
        let _exclusive = self.gate.write();
        let queued: Vec<Admitted> = self.background.lock().drain(..).collect();
        self.run_plans_from(queued, None, true)?;
        let mut core = self.core.lock();
        self.settle(&mut core, BTreeSet::new(), false)
    }

    fn checkpoint_locked(&self, core: &mut Core) -> Result<(), StoreError> {
        {
            let ops = self.ops.lock();
            let mut snapshot = core.state.clone();
            for (i, o) in ops.iter().enumerate() {
                snapshot.ops[i].add(o);
            }
            write_checked(&self.dir.join(STATE_FILE), "state", &snapshot)?;
        }
        // The snapshot now holds the counters; restart the in-memory ones from zero.
        let ops_now: Vec<OssOps> = std::mem::replace(
            &mut *self.ops.lock(),
            vec![OssOps::default(); self.backends.len()],
        );
        for (i, o) in ops_now.iter().enumerate() {
            core.state.ops[i].add(o);
        }
        core.journal.truncate()?;
        Ok(())
    }

    /// Snapshot the state and truncate the journal.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        let mut core = self.core.lock();
        self.checkpoint_locked(&mut core)
    }

    /// Close the store: if nothing waits in the cache zone and no window is open, restart the
    /// planner (dropping the input log); checkpoint.
    pub fn close(self) -> Result<(), StoreError> {
        if self.poisoned.load(Ordering::SeqCst) {
            return Ok(()); // the next open recovers
        }
        let mut core = self.core.lock();
        let all_durable = {
            let done = self.done.lock();
            core.state.durable.iter().all(|p| done.contains(p))
        };
        let mut quiet = all_durable && core.state.windows.is_empty();
        if quiet {
            let files: Vec<u64> = core.state.files.values().map(|m| m.id).collect();
            for f in files {
                if !self.cached_extents(&core, f)?.is_empty() {
                    quiet = false;
                    break;
                }
            }
        }
        if quiet && !core.state.inputs.is_empty() {
            self.journal(&mut core, Rec::PlannerReset, true)?;
            core.strategy = replay(self.kind, &self.layout, self.config, &[])?.0;
        } else if all_durable && core.state.inputs.len() > PLANNER_INPUTS_MAX {
            // The input log would make every open slow: settle (everything home with
            // parity, windows stay open) and start a new, empty log.
            return self.settle(&mut core, BTreeSet::new(), false);
        }
        self.checkpoint_locked(&mut core)
    }

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
        Ok(())
    }

    pub fn failed_osses(&self) -> Vec<usize> {
        let core = self.core.lock();
        (0..self.backends.len())
            .filter(|&i| !self.backends[i].healthy() || core.state.failed_oss.contains(&i))
            .collect()
    }

    fn stripes_of(&self, size_bytes: u64) -> u64 {
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
        self.backends[oss] = fresh;
        let mut core = self.core.lock();
        self.journal(&mut core, Rec::Rebuilt { oss }, true)?;
        self.checkpoint_locked(&mut core)
    }

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
        let file = self.file_or_create(name)?;
        let _shared = self.gate.read();
        let (token, plans) = {
            let mut core = self.core.lock();
            if let Some((t, _)) = core.state.windows.iter().find(|(_, w)| w.file == file) {
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
            };
            self.journal(
                &mut core,
                Rec::Input(Input::StartDelayed {
                    window,
                    file,
                    now_ns,
                }),
                false,
            )?;
            self.journal(
                &mut core,
                Rec::WindowStart {
                    token: token.clone(),
                    window: w,
                },
                true,
            )?;
            (token, self.admit(plans))
        };
        self.run_plans(plans, None)?;
        Ok(token)
    }

    /// The byte ranges of a window whose only copy sat on a failed OSS.
    fn lost_ranges(&self, core: &Core, window: u64) -> Vec<(String, u64, u64, usize)> {
        core.strategy
            .unprotected()
            .into_iter()
            .filter(|u| {
                u.window == window
                    && (!self.backends[u.oss].healthy() || core.state.failed_oss.contains(&u.oss))
            })
            .map(|u| {
                let name = core
                    .state
                    .file_by_id(u.file)
                    .map(|(n, _)| n.clone())
                    .unwrap_or_default();
                (
                    name,
                    u.file_offset_bytes,
                    u.file_offset_bytes + u.len_bytes,
                    u.oss,
                )
            })
            .collect()
    }

    /// END_DELAYED: returns when the parity of every stripe the window touched is durable.
    pub fn delayed_end(&self, token: &str) -> Result<(), StoreError> {
        self.check_usable()?;
        let _shared = self.gate.read();
        let plans = {
            let mut core = self.core.lock();
            let Some(w) = core.state.windows.get(token).cloned() else {
                return Err(StoreError::BadInput(format!(
                    "no open delayed window has token '{token}'; `exaraid store status` lists the open windows"
                )));
            };
            let lost = self.lost_ranges(&core, w.window);
            if !lost.is_empty() {
                let list: Vec<String> = lost
                    .iter()
                    .map(|(n, s, e, oss)| format!("'{n}' bytes {s}..{e} (OSS {oss})"))
                    .collect();
                return Err(StoreError::DataLost(format!(
                    "delayed window {token} cannot end: an OSS failed while the window was open and these ranges had their only copy there, without parity: {}. Everything else stays readable; rewrite these ranges (or remove the file) and end the window again",
                    list.join(", ")
                )));
            }
            let now_ns = Self::now_ns(&core);
            let plans = match core
                .strategy
                .on_hint(&Hint::EndDelayed { window: w.window }, now_ns)
            {
                Ok(p) => p,
                // The timeout already computed the parity: END has nothing left to do.
                Err(PlanError::WindowTimedOut { .. }) => Vec::new(),
                Err(e) => return Err(plan_err(e)),
            };
            self.journal(
                &mut core,
                Rec::Input(Input::EndDelayed {
                    window: w.window,
                    now_ns,
                }),
                false,
            )?;
            self.admit(plans)
        };
        self.run_plans(plans, None)?;
        let mut core = self.core.lock();
        self.journal(
            &mut core,
            Rec::WindowEnd {
                token: token.to_string(),
            },
            true,
        )?;
        Ok(())
    }

    /// A delayed window as a guard: `end()` returns when the parity is durable. Dropping the
    /// guard without `end()` leaves the window open (its timeout will protect the data).
    pub fn delayed_window(&self, name: &str) -> Result<DelayedWindow<'_>, StoreError> {
        Ok(DelayedWindow {
            store: self,
            token: self.delayed_start(name)?,
        })
    }

    // ---------------------------------------------------------------- status

    /// Operation counts of executed plan steps, per OSS (the planner's own counting).
    pub fn plan_op_counts(&self) -> Vec<OpCounts> {
        self.plan_counts.lock().clone()
    }

    pub fn reset_op_counts(&self) {
        *self.plan_counts.lock() = vec![OpCounts::default(); self.backends.len()];
    }

    pub fn status(&self) -> Result<Status, StoreError> {
        let core = self.core.lock();
        let ops = self.ops.lock();
        let oss = self
            .backends
            .iter()
            .enumerate()
            .map(|(index, b)| {
                let mut o = core.state.ops.get(index).copied().unwrap_or_default();
                o.add(&ops[index]);
                OssStatus {
                    index,
                    path: b.location(),
                    healthy: b.healthy() && !core.state.failed_oss.contains(&index),
                    ops: o,
                }
            })
            .collect();
        let unprotected = core.strategy.unprotected();
        let bytes_unprotected: u64 = unprotected.iter().map(|u| u.len_bytes).sum();
        let mut cached_bytes = 0u64;
        let files: Vec<u64> = core.state.files.values().map(|m| m.id).collect();
        for f in files {
            cached_bytes += self
                .cached_extents(&core, f)?
                .iter()
                .map(|x| x.len_bytes)
                .sum::<u64>();
        }
        let open_windows = core
            .state
            .windows
            .iter()
            .map(|(token, w)| WindowStatus {
                token: token.clone(),
                file: w.name.clone(),
                unprotected_bytes: unprotected
                    .iter()
                    .filter(|u| u.window == w.window)
                    .map(|u| u.len_bytes)
                    .sum(),
                started_unix_ns: w.started_unix_ns,
            })
            .collect();
        Ok(Status {
            oss,
            bytes_waiting_parity: cached_bytes,
            bytes_unprotected,
            open_windows,
            code: self.layout.code_name().to_string(),
            element_bytes: self.sb.element_bytes,
            write_path: self.sb.write_path.name().to_string(),
            files: core.state.files.len(),
        })
    }

    pub fn oss_count(&self) -> usize {
        self.backends.len()
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

/// The (file, stripe) pairs a plan touches: what it must lock.
fn plan_stripes(plan: &IoPlan) -> BTreeSet<(u64, u64)> {
    let mut set = BTreeSet::new();
    for step in &plan.steps {
        for piece in &step.pieces {
            set.insert((step.file, piece.element.stripe));
        }
    }
    for c in &plan.computes {
        set.insert((c.file, c.stripe));
    }
    set
}

/// A fresh strategy fed with `inputs`: the planner's state after them, and every plan they
/// produced (in order).
fn replay(
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
