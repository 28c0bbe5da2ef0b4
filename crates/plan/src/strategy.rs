//! The strategy interface: one state machine per write path, fed with client writes, hints
//! and timer ticks, answering with [`IoPlan`]s. No clock inside: the executor passes `now_ns`.

use crate::layout::{ElementRange, Layout};
use crate::plan::{IoPlan, Zone};
use crate::{ClientId, FileId, PlanId, WindowId};
use serde::Serialize;

/// Per plan a crash cut, the home stripes `(file, stripe)` where its writes may not have
/// reached the disk (`Strategy::forget_writes`).
pub type CutWrites = std::collections::BTreeMap<PlanId, std::collections::BTreeSet<(FileId, u64)>>;

/// Largest single client write accepted: 4 GiB. Bounds the steps of one plan.
pub const WRITE_BYTES_MAX: u64 = 1 << 32;
/// Most element pieces one write may touch (bounds the steps of one plan; a 1 GiB write over
/// 1 MiB elements touches 1,024).
pub const ELEMENTS_PER_WRITE_MAX: u64 = 1 << 18;
/// Most contiguous written ranges one delayed-parity window may hold (bounds the steps of
/// its END plans, which read each range once).
pub const WINDOW_RANGES_MAX: u64 = 1 << 20;
/// Most delayed-parity windows open at once (the seed's largest run: 500,000 clients in
/// applications of ~150 clients, i.e. a few thousand windows).
pub const OPEN_WINDOWS_MAX: usize = 1 << 20;
/// Timed-out windows remembered so that a late END gets a precise error.
pub const TIMED_OUT_WINDOWS_REMEMBERED_MAX: usize = 1 << 16;

/// One client write: `len_bytes` bytes at `offset_bytes` of `file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClientWrite {
    pub client: ClientId,
    /// The application (group of clients) the client belongs to; informative.
    pub app: u64,
    pub file: FileId,
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

/// Application hints (seed 004 section 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hint {
    /// START_DELAYED: writes to `file` go to the cache zone without parity until END.
    StartDelayed { window: WindowId, file: FileId },
    /// END_DELAYED: compute the parity of the window's stripes and move its data home.
    EndDelayed { window: WindowId },
}

/// The four write paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StrategyKind {
    Raid0,
    Rmw,
    Wcl,
    Delayed,
}

impl StrategyKind {
    pub const ALL: [StrategyKind; 4] = [
        StrategyKind::Raid0,
        StrategyKind::Rmw,
        StrategyKind::Wcl,
        StrategyKind::Delayed,
    ];

    /// Name on the command line and in output files (the seed's names in `paper_name`).
    pub fn name(self) -> &'static str {
        match self {
            StrategyKind::Raid0 => "raid0",
            StrategyKind::Rmw => "rmw",
            StrategyKind::Wcl => "wcl",
            StrategyKind::Delayed => "delayed",
        }
    }

    /// The seed's label in Figure 3.
    pub fn paper_name(self) -> &'static str {
        match self {
            StrategyKind::Raid0 => "RAID-0",
            StrategyKind::Rmw => "STD-RAID",
            StrategyKind::Wcl => "WCL",
            StrategyKind::Delayed => "Delayed Parity",
        }
    }

    pub fn from_name(name: &str) -> Result<StrategyKind, crate::PlanError> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| crate::PlanError::UnknownStrategy(name.to_string()))
    }
}

/// Tunables of the strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StrategyConfig {
    /// Delayed parity: a window with no START, write or END for this long is closed as if
    /// END had come (seed: "Failure in acquiring the END signal can be detected with
    /// timeouts"). Measured from the window's last activity.
    pub window_timeout_ns: u64,
    /// Delayed parity: most windows open at once.
    pub max_open_windows: usize,
}

impl Default for StrategyConfig {
    fn default() -> StrategyConfig {
        // 600 s: longer than any single checkpoint phase of the seed's runs (1000 s total),
        // short enough that a crashed master does not leave data unprotected for hours.
        StrategyConfig {
            window_timeout_ns: 600 * 1_000_000_000,
            max_open_windows: 65_536,
        }
    }
}

/// Where the newest bytes of a file range are: at home or in a cache zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Extent {
    pub file_offset_bytes: u64,
    pub len_bytes: u64,
    pub oss: usize,
    /// `Zone::Data` (home) or `Zone::Cache`.
    pub zone: Zone,
    /// Offset in the file's home object (Data) or in the OSS's cache zone (Cache).
    pub addr_bytes: u64,
    pub element: ElementRange,
}

/// A file range written inside an open delayed-parity window: its only copy is in the
/// cache zone of `oss`, with no parity. If `oss` fails these bytes are lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnprotectedRange {
    pub window: WindowId,
    pub file: FileId,
    pub stripe: u64,
    pub file_offset_bytes: u64,
    pub len_bytes: u64,
    pub oss: usize,
}

/// Everything that can be wrong with an input. Messages say what was wrong and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("bad layout: {0}")]
    BadLayout(String),
    #[error("unknown strategy '{0}': expected one of raid0, rmw, wcl, delayed")]
    UnknownStrategy(String),
    #[error("a write of 0 bytes does nothing: give a length of at least 1 byte")]
    EmptyWrite,
    #[error("a write of {len_bytes} bytes is larger than the limit of {max_bytes} bytes: split it into smaller writes")]
    WriteTooLarge { len_bytes: u64, max_bytes: u64 },
    #[error("a write of {len_bytes} bytes touches {elements} elements of {element_bytes} bytes, more than the limit of {max} per write: split it into smaller writes or use a larger stripe unit")]
    TooManyElements {
        len_bytes: u64,
        element_bytes: u64,
        elements: u64,
        max: u64,
    },
    #[error("window {window} holds {ranges} written ranges, the limit is {max}: send END_DELAYED for it (and START a new window) before writing more")]
    WindowTooLarge {
        window: WindowId,
        ranges: u64,
        max: u64,
    },
    #[error("the range at offset {offset_bytes} + {len_bytes} bytes ends beyond the file size limit of {max_bytes} bytes")]
    BeyondFileLimit {
        offset_bytes: u64,
        len_bytes: u64,
        max_bytes: u64,
    },
    #[error("START_DELAYED for window {window} on file {file}, but window {open} is already open on that file: send END_DELAYED for window {open} first")]
    WindowAlreadyOpenOnFile {
        window: WindowId,
        file: FileId,
        open: WindowId,
    },
    #[error("START_DELAYED for window {window}, but that window id is already open (on file {file}): use a new window id")]
    WindowIdInUse { window: WindowId, file: FileId },
    #[error("END_DELAYED for window {window}, which was never started (or already ended): send START_DELAYED first")]
    UnknownWindow { window: WindowId },
    #[error("END_DELAYED for window {window} came after its timeout closed it at {closed_at_ns} ns: its parity was already computed, nothing to do; raise window_timeout_ns if the application needs longer windows")]
    WindowTimedOut { window: WindowId, closed_at_ns: u64 },
    #[error("{open} delayed-parity windows are open, the limit is {max}: end some windows or raise max_open_windows")]
    TooManyWindows { open: usize, max: usize },
    #[error("the strategy {strategy} does not take hints (only 'delayed' does): remove the hint or use the delayed strategy")]
    HintNotSupported { strategy: &'static str },
    #[error("time went backwards: now_ns {now_ns} is before the last time seen, {last_ns}: the executor must pass a monotonic clock")]
    TimeWentBackwards { now_ns: u64, last_ns: u64 },
    #[error("plan {plan} is not in flight: it was never returned or was already completed")]
    UnknownPlan { plan: PlanId },
    #[error("file {file}'s cached bytes cannot be dropped: plan {plan} of it is still in flight; drop the file once every plan of it has completed, or move its cached bytes home first")]
    PlansInFlight { file: FileId, plan: PlanId },
    #[error("the {strategy} write path cannot drop a file's cached bytes: move them home first")]
    ForgetNotSupported { strategy: &'static str },
    #[error("stripe {stripe} of file {file} has {ranges} ranges of writes still in flight in its cache stripe, the limit is {max}: nothing of this write was done; retry it once earlier writes complete")]
    CacheStripeBusy {
        file: FileId,
        stripe: u64,
        ranges: u64,
        max: u64,
    },
}

/// A write path as a state machine.
///
/// Contract for executors:
/// - every call returns the plans to run, foreground plans first; a foreground plan is on
///   the caller's critical path (the client waits for it), background plans are not;
/// - a plan may start once every plan in its `after_plans` has completed (plans returned by
///   earlier calls); steps within a plan follow their `after` lists;
/// - an executor that reuses cache-zone space must call [`Strategy::on_complete`] when a
///   plan has completed; until then the planner never reuses the cache space that plan reads;
/// - `now_ns` must never decrease between calls.
pub trait Strategy: Send {
    fn kind(&self) -> StrategyKind;
    fn layout(&self) -> &Layout;

    /// A client write. Returns its foreground plan (and maybe background plans it triggers,
    /// e.g. a WCL destage of the stripe it completed).
    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError>;

    /// A hint. Strategies other than `delayed` reject hints with `HintNotSupported`.
    fn on_hint(&mut self, hint: &Hint, now_ns: u64) -> Result<Vec<IoPlan>, PlanError>;

    /// Time passed: returns the work of expired timers (delayed-parity window timeouts).
    fn on_tick(&mut self, now_ns: u64) -> Result<Vec<IoPlan>, PlanError>;

    /// The earliest `now_ns` at which `on_tick` would do something (None: no timer armed).
    fn next_deadline_ns(&self) -> Option<u64> {
        None
    }

    /// The executor finished plan `plan`. Frees cache space it was the last reader of.
    fn on_complete(&mut self, plan: PlanId) -> Result<Vec<IoPlan>, PlanError> {
        let _ = plan;
        Ok(Vec::new())
    }

    /// Recovery: the plans keyed in `cut` were cut by a crash (no durable record) while later
    /// plans finished. In the home stripes `(file, stripe)` listed for a plan, its client
    /// writes' bytes may never have reached the places the planner gave them: forget them
    /// there where that would expose other bytes than the old ones (WCL cache slots). A cut
    /// plan's stripes left out of its set are ones a later durable plan proves it finished
    /// (stripe locks are granted in planning order), so its bytes there stay counted: the
    /// later plan's running parity covers them (review s29r R29-1: forgetting them there
    /// lost acknowledged bytes of the later write after a crash alone). In-place strategies
    /// have nothing to forget (a cut home write leaves old or new bytes).
    fn forget_writes(&mut self, cut: &CutWrites) {
        let _ = cut;
    }

    /// The executor drops `file` without moving its cached bytes home: they were never
    /// acknowledged (the store's case: the staging content of a `put` that failed). Every
    /// cache stripe of the file is forgotten and its cache chunks are free for reuse (their
    /// stale bytes count as nothing to the next cache stripe, as after a destage); `lookup`
    /// then names home for every byte of it. Why an input of its own: dropping the bytes
    /// otherwise takes a settle, which moves every cached byte home and needs room the
    /// store may not have (review s6r R6-1). Refused, changing nothing, while a plan of the
    /// file is in flight (a chunk it reads or writes must not be reused): `PlansInFlight`.
    /// Home-only strategies have nothing to drop; the default refuses a file with cached
    /// bytes (`ForgetNotSupported`).
    fn forget_file(&mut self, file: FileId) -> Result<(), PlanError> {
        if self.cached_stripes(file).is_empty() {
            return Ok(());
        }
        Err(PlanError::ForgetNotSupported {
            strategy: self.kind().name(),
        })
    }

    /// Where the newest bytes of `[offset_bytes, offset_bytes + len_bytes)` of `file` are, in
    /// file order. Reads are served from these extents.
    fn lookup(
        &self,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<Extent>, PlanError>;

    /// WCL: the element ranges `[a, z)` written into one cache stripe of home stripe
    /// `(file, stripe)` (open or being destaged), per data element, planned writes
    /// included: the cache stripe whose chunk of each column `col` in `chunks` is at cache
    /// address `addr` (`(col, addr)` pairs; at least one). `None`: no cache stripe of that
    /// home stripe has those chunks (every other strategy). Why not [`Strategy::lookup`]:
    /// it names the newest copy of each byte, so bytes a later write put into a newer cache
    /// stripe of the same home stripe vanish from an older one's extents, while that older
    /// one's chunks and running parity still hold them (review s27r R27-1: a check of the
    /// older cache stripe against its running parity took them for never written).
    fn cache_stripe_written(
        &self,
        file: FileId,
        stripe: u64,
        chunks: &[(usize, u64)],
    ) -> Option<Vec<Vec<(u64, u64)>>> {
        let _ = (file, stripe, chunks);
        None
    }

    /// The stripes of `file` with bytes in the cache zone, ascending. Lets an executor visit
    /// only what is cached instead of looking up the file's whole address range (a sparse
    /// file may be a terabyte long with one element written). Empty for home-only strategies.
    fn cached_stripes(&self, file: FileId) -> Vec<u64> {
        let _ = file;
        Vec::new()
    }

    /// Is delayed-parity window `window` open (started, neither ended nor timed out)? An
    /// executor that starts the planner again (a reset) starts again only the windows that
    /// were open: one that timed out stays closed. False for every other strategy.
    fn window_open(&self, window: WindowId) -> bool {
        let _ = window;
        false
    }

    /// Is delayed-parity window `window` open with its timeout due at `now_ns` (no START,
    /// write or END for `window_timeout_ns`), its tick not yet run? An executor that starts
    /// the planner again (a reset) starts such a window closed, as the tick would have
    /// closed it: a reset must never move a window's due time later. False for every other
    /// strategy.
    fn window_due(&self, window: WindowId, now_ns: u64) -> bool {
        let _ = (window, now_ns);
        false
    }

    /// Ranges whose only copy is unprotected (delayed parity windows still open). Empty for
    /// every other strategy (RAID-0 is unprotected by design and reports nothing here).
    fn unprotected(&self) -> Vec<UnprotectedRange> {
        Vec::new()
    }
}

/// Build a strategy.
pub fn new_strategy(
    kind: StrategyKind,
    layout: Layout,
    config: StrategyConfig,
) -> Result<Box<dyn Strategy>, PlanError> {
    Ok(match kind {
        StrategyKind::Raid0 => Box::new(crate::raid0::Raid0::new(layout)),
        StrategyKind::Rmw => Box::new(crate::rmw::Rmw::new(layout)),
        StrategyKind::Wcl => Box::new(crate::wcl::Wcl::new(layout)),
        StrategyKind::Delayed => Box::new(crate::delayed::Delayed::new(layout, config)?),
    })
}

/// Check a client write against the limits (shared by all strategies).
pub(crate) fn check_write(layout: &Layout, w: &ClientWrite) -> Result<(), PlanError> {
    if w.len_bytes > WRITE_BYTES_MAX {
        return Err(PlanError::WriteTooLarge {
            len_bytes: w.len_bytes,
            max_bytes: WRITE_BYTES_MAX,
        });
    }
    // Pieces = elements touched: at most ceil(len / element) + 1 (a misaligned start).
    let elements = w.len_bytes.div_ceil(layout.element_bytes()) + 1;
    if elements > ELEMENTS_PER_WRITE_MAX {
        return Err(PlanError::TooManyElements {
            len_bytes: w.len_bytes,
            element_bytes: layout.element_bytes(),
            elements,
            max: ELEMENTS_PER_WRITE_MAX,
        });
    }
    layout.check_range(w.offset_bytes, w.len_bytes)
}

/// Home-only lookup (strategies without a cache): every byte is at home.
pub(crate) fn home_lookup(
    layout: &Layout,
    file: FileId,
    offset_bytes: u64,
    len_bytes: u64,
) -> Result<Vec<Extent>, PlanError> {
    let pieces = layout.split(offset_bytes, len_bytes)?;
    Ok(pieces
        .into_iter()
        .map(|(file_off, e)| Extent {
            file_offset_bytes: file_off,
            len_bytes: e.len_bytes,
            oss: layout.oss_of(file, e.stripe, e.pos.col),
            zone: Zone::Data,
            addr_bytes: layout.home_addr(e.stripe, e.pos, e.offset_bytes),
            element: e,
        })
        .collect())
}

/// Monotonic clock guard used by the stateful strategies.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Clock {
    last_ns: u64,
}

impl Clock {
    pub fn advance(&mut self, now_ns: u64) -> Result<(), PlanError> {
        if now_ns < self.last_ns {
            return Err(PlanError::TimeWentBackwards {
                now_ns,
                last_ns: self.last_ns,
            });
        }
        self.last_ns = now_ns;
        Ok(())
    }
}
