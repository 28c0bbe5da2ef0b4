//! The [`Store`]: files striped over OSS backends, written by executing the planner's IoPlans.
//!
//! # The write path, top to bottom (one place, all strategies)
//! 1. Under the core lock: give the write to the planner's strategy (`on_write`), get its
//!    plans, reserve the slots every write step will touch (a full disk fails here, before
//!    anything changes, and the planner is rolled back by replay), journal the input. A
//!    delayed-window write whose only copy would land on a failed OSS is refused the same
//!    way (see `window.rs` on failures inside a window).
//! 2. For each plan, in order: wait for its `after_plans`, take the stripe locks of every
//!    stripe it touches ([`StripeLocks`], the one place of per-stripe coordination), execute
//!    its steps in order (reads, parity computes, writes; see [`Store::execute`]).
//! 3. Sync the backends, journal `Durable { plan }` (fsync'd): the write is acknowledged
//!    (unless an OSS holding window bytes of it failed meanwhile: then `DataLost`, and the
//!    bytes are on record as lost; a write over lost bytes takes them off the record).
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
//! never acknowledged. On open the store then moves every cached range home, recomputes the
//! parity of every stripe touched (full encode from the data), and restarts the planner
//! (re-opening the delayed windows still open). Afterwards every stripe has parity matching
//! its data and every acknowledged byte is where reads find it.
//! Nothing is resealed: recovery reads blocks unverified and decides per 4 KiB checksum block
//! (`recovery.rs` explains how). The ranges the interrupted writes covered keep what reached
//! the disk (old or new); every other byte of a block that fails its checksum -- including
//! the rest of a torn write's edge block -- is rebuilt from the other columns where none was
//! in flight, or confirmed against the block's stored checksum. What cannot be confirmed
//! (bit rot inside a raid5 write hole) is never guessed: the block and its row's parity keep
//! failing checksums, so reads report `DataLost` naming the range and scrub reports it.
//! Recovery is restartable by construction: a settle journals `SettleBegin` (its stripes)
//! before its first write and `PlannerReset` after its last; the next settle (the recovery
//! of the next open, or a flush) finishes one that began and did not end, treating the ranges
//! it rewrote as in flight. Open recovers when an unacknowledged plan is left *or* a settle
//! began and did not end (a killed flush leaves no unacknowledged plan, only its torn blocks).

mod beyond_lineage;
mod cache_witness;
#[cfg(test)]
mod core_held;
mod cut_deletions;
mod cut_durable;
mod exec;
mod home_witness;
mod journal_marks;
mod label_repair;
#[cfg(test)]
mod lock_errors;
#[cfg(test)]
mod open_checks;
mod read;
mod recovery;
mod repair;
mod reserve_losses;
mod shared_oss;
mod stale_cache;
#[cfg(test)]
mod state_version;
mod tail_cut_repair;
mod window;
mod window_rot;

use beyond_lineage::OssEpochsChecked;
use exec::ElementRead;
use exec::UNREADABLE_CACHE;
pub use label_repair::LabelRepair;
use read::ReadEnd;
use recovery::replay;
pub use window::DelayedWindow;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{Cell, Code, CodeSpec, Pos, StripeBuf};
use exaraid_plan::{
    Bytes, ClientWrite, Hint, IoPlan, Layout, Op, OpCounts, PlanError, PlanId, Step, Strategy,
    StrategyConfig, StrategyKind, Zone as PlanZone,
};
use parking_lot::{Condvar, Mutex};
use serde::Serialize;

use crate::backend::{
    Backend, BlockCrcSeed, ChecksumWitness, DirBackend, ElementKey, MetadataEpoch, OssLabel, Zone,
    CHECKSUM_BLOCK_BYTES, ELEMENT_BYTES_MAX, ELEMENT_BYTES_MIN,
};
use crate::journal::Journal;
use crate::state::{
    Input, LostRange, OssOps, Rec, State, UnplannedReads, Window, METADATA_EPOCH_KEY,
};
use crate::superblock::{
    read_checked, read_checked_version, set_header_version, write_checked, write_checked_version,
    StoredCode, Superblock, WritePath, FORMAT_VERSION,
};
use crate::StoreError;

/// The object id of each OSS's cache zone (the planner addresses the cache zone per OSS, not
/// per file).
pub const CACHE_OBJECT: u64 = u64::MAX;
/// Longest file name.
pub const FILE_NAME_BYTES_MAX: usize = 1024;
/// Largest file offset + length (the planner's limit). A store's own limit can be lower:
/// see `Store::file_bytes_max`.
pub const FILE_BYTES_MAX: u64 = exaraid_plan::layout::FILE_BYTES_MAX;
/// A write is given to the planner in chunks of at most this many bytes (bounds one plan).
pub const WRITE_CHUNK_BYTES_MAX: u64 = 64 << 20;
/// Largest single `read` (and `get`): the bytes are returned in one buffer, so this bounds
/// the memory of one call. Longer ranges (a sparse file can be 1 TiB long) are read in
/// pieces; the CLI's `get` streams in pieces of [`WRITE_CHUNK_BYTES_MAX`].
pub const READ_BYTES_MAX: u64 = 1 << 32;
/// Most OSSs of one store.
pub const OSS_COUNT_MAX: usize = 4096;
/// Planner inputs kept for replay before a close settles the store to start a new log.
pub const PLANNER_INPUTS_MAX: usize = 100_000;

/// The step of `Store::close_locked` that failed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CloseStep {
    /// The settle that replaces a planner input log past [`PLANNER_INPUTS_MAX`].
    InputLogSettle,
    /// The planner reset or the state checkpoint (with its losses on record first).
    Checkpoint,
}

/// Lost ranges in one journal record (about 100 bytes each: far below the record limit).
pub const LOST_RANGES_PER_RECORD_MAX: usize = 10_000;
/// Checkpoint (snapshot the state, truncate the journal) when the journal grows past this.
pub const JOURNAL_BYTES_CHECKPOINT: u64 = 16 << 20;

const STATE_FILE: &str = "state";
const JOURNAL_FILE: &str = "journal";
/// Every name the store writes directly in its directory, besides the OSS directories: its
/// metadata files, the temporary names of their atomic replacement (`with_extension("tmp")`)
/// and the init marker. A directory under one of these names breaks the store for good.
const STORE_DIR_OWN_FILES: [&str; 7] = [
    STATE_FILE,
    "state.tmp",
    JOURNAL_FILE,
    "journal.tmp",
    crate::superblock::SUPERBLOCK_FILE,
    "superblock.tmp",
    INIT_MARKER_FILE,
];
/// Attempts (10 ms apart) to take the store's lock before giving up: 3 s.
const LOCK_ATTEMPTS: usize = 300;
/// While a background worker serves, it advances the parity once the unprotected bytes pass
/// the bound; a writer waits for it only past this many times the bound (a hard limit).
pub const UNPROTECTED_LAG_FACTOR: u64 = 2;
/// How long the background worker polls its queue and timers between plans.
const SERVE_POLL_MS: u64 = 5;
/// How long the worker waits for exclusive use of the store before serving its queue again
/// (a writer holding the store may wait for a queued background plan only it runs).
const ADVANCE_GATE_WAIT_MS: u64 = 20;
/// Longest wait of the background worker between tries of its timers refused for room (a
/// full metadata or OSS disk): the wait doubles from [`SERVE_POLL_MS`] up to this, so a
/// full disk costs a few refused tries a second, and a timeout fires within this of the
/// room coming back.
pub const BACKGROUND_RETRY_MAX_MS: u64 = 1000;

/// The background worker's pace of retries of its timers refused for room
/// (`Store::serve_timers_retrying`).
#[derive(Default)]
struct TimersRetry {
    /// Not before this instant; `None`: the timers are not refused.
    next_try: Option<std::time::Instant>,
    /// The wait before `next_try`, doubled on each refusal.
    wait_ms: u64,
}
/// Default bound on the WCL destage writes the background worker holds back while client
/// writes run (`OpenOptions::destage_defer_max_bytes`). Why defer at all: a destage moves a
/// complete cache stripe home, work "out of the critical path" (the seed, section 2.1) that
/// otherwise competes with the client writes for the same devices. Its bytes stay protected
/// by the cache stripe's parity meanwhile, so the bound is about space in the cache zone and
/// the backlog left after a burst (256 MiB over 5 HDD-class OSSs: about 0.5 s of writes),
/// not about safety.
pub const DESTAGE_DEFER_MAX_BYTES: u64 = 256 << 20;

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
    /// [`BlockCrcSeed::NEW_STORES`]; [`BlockCrcSeed::Address`] makes a store as binaries
    /// before session 12 did (tests that such stores keep working).
    pub block_crc_seed: BlockCrcSeed,
    /// Record the OSS directories inside the store directory relative to it (superblock
    /// header version 3, see `SUPERBLOCK_VERSION_RELATIVE_OSS_DIRS`); `false` records every
    /// one absolute, as binaries before session 14 did (tests that such stores keep working).
    pub oss_dirs_relative: bool,
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
            block_crc_seed: BlockCrcSeed::NEW_STORES,
            oss_dirs_relative: true,
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

/// What an open is for, where crash recovery is due and cannot run for OSSs not answering:
/// `Use` refuses; `Status` opens without recovering past the tolerance (every operation
/// refused but `status`: `Store::open_for_status`); `LabelRepair` opens without recovering
/// whenever an OSS not failed on record does not answer (every operation refused but
/// `repair_label`: `Store::open_for_label_repair`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OpenFor {
    Use,
    Status,
    LabelRepair,
}

/// How to open a store.
#[derive(Clone)]
pub struct OpenOptions {
    /// fsync backends and journal before acknowledging (off only for benchmarks that say so).
    pub fsync: bool,
    /// Benchmarks: add an emulated device's service time to every plan step.
    pub emulate: Option<Arc<dyn ServiceTime>>,
    /// A background worker (`serve_background`) holds WCL destage plans back while client
    /// writes execute, up to this many bytes of destage writes queued; 0 destages at once.
    pub destage_defer_max_bytes: u64,
    /// OSSs the operator knows are gone (`store fail DIR --oss I`): when the store needs
    /// crash recovery, each of them that is down now (its directory missing) is recorded
    /// failed *before* recovery runs, which then decides without it (and may record bytes
    /// as lost). Recovery refuses to run while an OSS not failed on record is down (review
    /// s4e E13: it recorded the acknowledged bytes of a merely missing mount as lost).
    pub fail_down_osses_before_recovery: Vec<usize>,
    /// OSSs the operator asked to rebuild (`store rebuild DIR --oss I`): when the store
    /// needs crash recovery, each of them that answers but whose own metadata is damaged
    /// (`Backend::problem`: its extents log or label) goes on record failed before recovery
    /// runs, as for `fail_down_osses_before_recovery`. Why (review s22r R22-2): recovery
    /// waited for such an OSS as for a missing mount, and `rebuild`, the way out `status`
    /// gives, was refused with it; its record of written slots cannot be trusted, so its
    /// bytes count as unknown and the rebuild rewrites them from the others. One merely not
    /// answering (a missing mount) is still waited for: its bytes may be intact.
    pub fail_damaged_osses_before_recovery: Vec<usize>,
    /// Tests only: accept WCL and delayed writes up to the largest file of a binary from
    /// before session 6 (every slot of a zone file, not half: review s6r R6-5), to build the
    /// store such a binary could leave (bytes past today's limit). Never set otherwise.
    #[doc(hidden)]
    pub file_bytes_max_before_session_6: bool,
    /// Tests only: hold the cache-zone witness at its bound (`CACHE_WITNESS_PIECES_MAX`)
    /// for this store: no piece goes in, at run time and in this open's journal replay
    /// (`State::cache_witness_held_at_bound`), so a scene reads where the witness holds no
    /// piece (past its bound, concurrent overlapping writers, a checkpoint between a write's
    /// input and its crcs, a store of a binary before session 43; docs/store.md Limits) and
    /// a guard of recovery's own rules there can fail (review r49b MEDIUM-2). Per store,
    /// not a process-wide switch: test binaries run their tests in parallel threads. Set it
    /// on every open of the store (a reopen after a power cut replays the journal and would
    /// put the pieces in again). The home witness has none: the scenes that need this are
    /// WCL stores, whose client writes are cache writes (no home piece). No command sets
    /// it. Never set otherwise.
    #[doc(hidden)]
    pub cache_witness_held_at_bound: bool,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            fsync: true,
            emulate: None,
            destage_defer_max_bytes: DESTAGE_DEFER_MAX_BYTES,
            fail_down_osses_before_recovery: Vec::new(),
            fail_damaged_osses_before_recovery: Vec::new(),
            file_bytes_max_before_session_6: false,
            cache_witness_held_at_bound: false,
        }
    }
}

/// An emulated device: the service time of one request, and how many requests it serves at
/// once. Per plan step the store takes the OSS's unit that frees first and sleeps until the
/// request's service there ends (`Store::emulate_device`), so the write paths can be compared
/// at a realistic device cost on one machine.
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
    /// Device reads made outside the plans' steps (checks before a write: see
    /// `UnplannedReads`), beside `ops` and not in it: `ops` holds the plan steps alone.
    pub unplanned: UnplannedReads,
    /// Why the OSS cannot be used although it answers (see `Store::oss_problems`), or what
    /// to do about a missing one (`missing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Not healthy because its directory (or the OSS label in it) is not found, and not
    /// failed on record: a mount missing or a directory moved. Why apart from failed: nothing
    /// was written without it (a write would have recorded it failed), so mounting it back
    /// makes it healthy as it is; `exaraid store fail` records it failed (a rebuild follows).
    pub missing: bool,
    /// Failed on record (`fail`, or a write or settle that went on without it): `online`
    /// takes it back, `rebuild` replaces it. Not healthy and not on record (`problem`
    /// says why, e.g. a stale generation): only `rebuild` helps, `online` refuses it.
    pub failed_on_record: bool,
    /// In service but not told the store's latest metadata epoch (its epoch file refuses
    /// writes, or it was away at the last writing command): what that risks and what to do
    /// (`Store::epoch_not_told_warning`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch_not_told: Option<String>,
}

/// An open delayed window in `status`.
#[derive(Clone, Debug, Serialize)]
pub struct WindowStatus {
    pub token: String,
    pub file: String,
    pub unprotected_bytes: u64,
    pub started_unix_ns: u64,
}

/// Bytes that lost their only copy (an OSS failed inside a delayed window), in `status`.
#[derive(Clone, Debug, Serialize)]
pub struct LostRangeStatus {
    pub file: String,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// The failed OSS that held the only copy.
    pub oss: usize,
    /// The token of the window the bytes were written in (lost with a failed OSS), or
    /// `none: CAUSE` for a loss with another cause; a window's bytes whose only copy was
    /// unreadable: `none: ...; delayed window TOKEN` (its END names them).
    pub window: String,
    /// Recorded with their cache address (a `fail` of an OSS that still answered): `online`
    /// of that OSS reads them back where every block's checksum verifies, and so does a
    /// `rebuild --to` of it while its old directory still reads (in place, a rebuild makes
    /// the loss final).
    pub restorable: bool,
}

/// `exaraid store status --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    pub oss: Vec<OssStatus>,
    pub bytes_waiting_parity: u64,
    pub bytes_unprotected: u64,
    pub open_windows: Vec<WindowStatus>,
    /// Reads of these fail with `DataLost` until they are written again.
    pub lost_ranges: Vec<LostRangeStatus>,
    pub code: String,
    pub element_bytes: usize,
    pub write_path: String,
    pub files: usize,
    /// Why the store cannot be used until it is reopened (an interrupted operation waits
    /// for its recovery, see [`Store::open_for_status`]); `None` when it can.
    pub recovery_pending: Option<String>,
    /// The journal's last record was cut off at an open and no scrub has checked the
    /// parity since: what happened and what to do (`Store::journal_tail_cut_warning`).
    pub journal_tail_cut: Option<String>,
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
    /// Some of `blocks` lie in block rows past the code's tolerance (more bad blocks there,
    /// in this and other elements, than parity rebuilds), so no repair can rebuild them:
    /// the file bytes lost there and why (as `UnreadableFinding::lost`).
    pub lost: Option<String>,
}

/// An element scrub could not read although its OSS is up (see
/// `ScrubReport::unreadable_elements`).
#[derive(Clone, Debug, Serialize)]
pub struct UnreadableFinding {
    pub oss: usize,
    pub file: String,
    pub stripe: u64,
    pub zone: String,
    pub row: usize,
    /// The read error (e.g. "Input/output error (os error 5)").
    pub why: String,
    /// `repair`: rewritten from the decode and read back right.
    pub repaired: bool,
    /// Plain scrub: its stripe is past the code's tolerance (other columns down too), so no
    /// decode rebuilds it and no repair can rewrite it: the bytes that do not read now.
    pub lost: Option<String>,
}

/// Where a cache-zone element that scrub found damaged or unreadable lies, and what it
/// holds (`CacheScrubFinding`, `UnreadableCacheFinding`).
#[derive(Clone, Debug, Serialize)]
pub struct CacheElementAt {
    pub oss: usize,
    /// The element's slot in the OSS's cache zone (object [`CACHE_OBJECT`], zone `cache`).
    pub cache_slot: u64,
    pub file: String,
    /// The home stripe whose newest bytes (or WCL running parity) the element holds.
    pub stripe: u64,
    /// `data`, or `parity` (the running parity of a WCL cache stripe).
    pub zone: String,
    pub row: usize,
    /// File byte ranges `[start, end)` whose newest copy lies in the damaged blocks (the
    /// corrupt ones; all of an unreadable element) of a data element; empty for parity
    /// (then the cache stripe's redundancy is at risk).
    pub file_ranges: Vec<(u64, u64)>,
}

/// A damaged element of an OSS's cache zone that holds live data, found by scrub.
#[derive(Clone, Debug, Serialize)]
pub struct CacheScrubFinding {
    /// Flattened: the JSON keys stay the finding's own, as before the type was shared.
    #[serde(flatten)]
    pub at: CacheElementAt,
    pub blocks: Vec<usize>,
    pub repaired: bool,
}

/// A cache-zone element of an OSS that is up whose read failed (EIO: bad sectors), found by
/// scrub (see `ScrubReport::unreadable_cache_elements`).
#[derive(Clone, Debug, Serialize)]
pub struct UnreadableCacheFinding {
    /// Flattened: the JSON keys stay the finding's own, as before the type was shared.
    #[serde(flatten)]
    pub at: CacheElementAt,
    /// Some of `file_ranges` have no parity anywhere (an open delayed window): the element
    /// holds their only copy.
    pub without_parity: bool,
    /// The read error (e.g. "Input/output error (os error 5)").
    pub why: String,
    /// `repair`: rewritten from the cache stripe's parity and read back right.
    pub repaired: bool,
}

impl CacheElementAt {
    /// Cache slot `slot` of OSS `oss`, holding row `row` of `zone` (`data` / `parity`) of
    /// stripe `stripe` of file `name`.
    pub(crate) fn new(
        (oss, cache_slot): (usize, u64),
        (name, stripe): (&str, u64),
        zone: &str,
        row: usize,
        file_ranges: Vec<(u64, u64)>,
    ) -> CacheElementAt {
        CacheElementAt {
            oss,
            cache_slot,
            file: name.to_string(),
            stripe,
            zone: zone.to_string(),
            row,
            file_ranges,
        }
    }
}

// Why Deref: the location reads as each finding's own fields (`f.oss`, `f.cache_slot`), as
// its JSON shows them and as callers read them before the type was shared.
impl std::ops::Deref for CacheScrubFinding {
    type Target = CacheElementAt;
    fn deref(&self) -> &CacheElementAt {
        &self.at
    }
}

impl std::ops::Deref for UnreadableCacheFinding {
    type Target = CacheElementAt;
    fn deref(&self) -> &CacheElementAt {
        &self.at
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ScrubReport {
    pub stripes_checked: u64,
    pub corrupt_elements: Vec<ScrubFinding>,
    /// Elements of an OSS that is up whose read failed (EIO: bad sectors), found by scrub:
    /// the stripe verified on the other columns, without that redundancy. With `repair`
    /// each is rewritten from the decode (a write remaps a bad sector) and read back, or,
    /// where that fails, its OSS is recorded failed (see `failed_oss`).
    pub unreadable_elements: Vec<UnreadableFinding>,
    /// Stripes whose parity does not match their (checksum-clean) data.
    pub parity_mismatches: Vec<(String, u64)>,
    /// With `repair`: stale elements (valid checksum, wrong content) located by the parity
    /// equations and rewritten, one line each.
    pub stale_repaired: Vec<String>,
    pub repaired_elements: u64,
    pub unrepairable: Vec<String>,
    /// Cache-zone elements holding live data (WCL, delayed) whose checksums were verified.
    pub cache_elements_checked: u64,
    pub corrupt_cache_elements: Vec<CacheScrubFinding>,
    /// Cache-zone elements holding live data or WCL running parity, of an OSS that is up,
    /// whose read failed (review s16r R16-5's cache half): the newest copy of those bytes
    /// (waiting for destage) or the cache stripe's redundancy is at risk. With `repair` a
    /// WCL element is rewritten from its cache stripe and read back, or, where that fails,
    /// its OSS is recorded failed (as for `unreadable_elements`); bytes without parity are
    /// named in `unrepairable`.
    pub unreadable_cache_elements: Vec<UnreadableCacheFinding>,
    /// Cache-zone blocks holding no live byte (stale bytes of an older cache stripe, a chunk
    /// no cache stripe uses now) whose checksum fails: `(oss, cache slot, block, repaired)`.
    /// With `repair` they are rewritten as zeros (they hold nothing of any file).
    pub dead_cache_blocks: Vec<(usize, u64, usize, bool)>,
    /// OSSs failed or unavailable: their elements were not checked, and the stripes on
    /// them run without their redundancy until `rebuild`.
    pub failed_oss: Vec<usize>,
    /// Of those, the ones whose own metadata is damaged: `(oss, what is wrong and what to
    /// do)` (see `Store::oss_problems`).
    pub oss_problems: Vec<(usize, String)>,
    /// Bytes recorded as lost (as in `status`): reads of them fail until written again.
    pub lost_ranges: Vec<LostRangeStatus>,
    /// A verify-only scrub of a store open for reads only: the stripes of the settle that
    /// could not finish, whose parity was not compared (data and parity may be of different
    /// versions there until the settle finishes; their checksums were checked).
    pub unsettled_stripes: Vec<(String, u64)>,
    /// Journal tail cuts on record (`Rec::JournalTailCut`) this scrub dealt with: every
    /// stripe's parity matched (or `--repair` fixed it) and every OSS was checked; 0 when
    /// none was on record or the scrub did not clear them.
    pub journal_tail_cuts_checked: usize,
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
    /// Callers blocked in `acquire` (the background worker holds no destage back while any
    /// is: it may be first in their queue).
    waiting: AtomicUsize,
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
        let first = |t: &LockTable| {
            ticket
                .keys
                .iter()
                .all(|k| t.queues.get(k).and_then(|q| q.front()) == Some(&ticket.number))
        };
        if !first(&t) {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            while !first(&t) {
                self.freed.wait(&mut t);
            }
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        StripeGuard { _ticket: ticket }
    }

    /// Whether the queue of `key` holds a ticket other than `own`'s (which must be first
    /// there: held). Exact under the core lock: every plan is admitted (its ticket taken)
    /// under the same core-lock hold that journals its input (`admit`), so a ticket not yet
    /// here belongs to an input journaled after the caller's next record.
    pub fn queued_besides(&self, key: (u64, u64), own: &StripeGuard) -> bool {
        let t = self.table.lock();
        let q = t.queues.get(&key);
        let own_number = own._ticket.number;
        assert!(
            q.and_then(|q| q.front()) == Some(&own_number),
            "the caller holds the stripe it asks about"
        );
        q.is_some_and(|q| q.iter().any(|&n| n != own_number))
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

/// Witness pieces `(first byte, end byte, crc32c)` of one file (`State::home_witness_in`).
type WitnessPieces = Vec<(u64, u64, u32)>;

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
    /// Delayed: the cache ranges copied home by a move plan that executed but whose
    /// completion the planner has not heard (its durable record not yet written, or
    /// held back), `(oss, cache address) -> (end address, move plan)`. The
    /// planner's lookup still names them as the newest bytes; a read takes home instead
    /// (see `Store::lookup_newest`). Emptied as those completions are delivered.
    moved_home: BTreeMap<(usize, u64), (u64, PlanId)>,
    /// Windows whose END is running, `window -> token`: END drops the window from the state
    /// before its parity plans run, and an OSS that fails during them must still record the
    /// bytes it took under the window's token, so that END names them (review E11).
    ending_windows: BTreeMap<u64, String>,
    /// The header version of the state file on disk: the highest `Rec::reader_version` of a
    /// record it or the journal may hold (see `superblock::STATE_VERSION_NEWER_RECORDS` and
    /// `STATE_VERSION_SESSION9_RECORDS`), else `FORMAT_VERSION`.
    state_file_version: u32,
    /// Delayed: per move home executing on a store with every OSS of its stripes up, the
    /// new bytes of the home blocks it writes only in part (`copy_moved_edge_blocks`), from
    /// before its first write until its `Durable` record is appended. A failure recorded
    /// meanwhile journals those beside the failed OSS first (`journal_fail`).
    move_edge_copies: BTreeMap<PlanId, Vec<crate::state::FailedColumnCopy>>,
    /// Delayed: parity plans of ENDs and timeouts that are durable but whose completion
    /// the planner has not heard yet (a read in flight holds it back), `plan -> window`.
    /// Their windows' bytes are covered by home parity already, though the planner still
    /// lists them unprotected: `unprotected_now` leaves them out, so an OSS failing
    /// meanwhile records none of them lost and a move home decodes them (review s9r R9-2).
    /// Each entry is also in `deferred_completions` and leaves with it.
    window_parity_unheard: BTreeMap<PlanId, u64>,
    /// The metadata epoch is bumped before the next journal record (`bump_epoch`): set at
    /// open and by every checkpoint.
    epoch_due: bool,
    /// This session bumped the metadata epoch (it journaled something): its close bumps it
    /// once more (`close_locked`).
    epoch_bumped: bool,
    /// The open cut the journal's torn tail: it may have held the bump of the epoch after
    /// the one on record (damaged after its fsync), told to OSSs missing at this open, so
    /// its token is lost. The next bump skips that number: the lineage then holds no token
    /// for it and those OSSs, back later, are behind on this store's line, not refused as
    /// another copy's (with a new token at that number they were). At most one number: a
    /// journal holds one bump, near its start (after the open's tail-cut records and the
    /// way out's `HomeWitnessCleared` at most; `checkpoint_locked` truncates it).
    epoch_number_cut: bool,
    /// The open took the epoch refusal's way out and cleared the home witness in memory
    /// (`witness_untrusted`), and neither a `Rec::HomeWitnessCleared` nor a checkpoint has
    /// put that on disk yet: the next epoch bump journals the record first (`bump_epoch`).
    /// Why: the bump's epoch files hide the way out from the next open (review r45b
    /// MEDIUM-1).
    home_witness_clear_unjournaled: bool,
    /// The state checkpoint was written (fsync'd and renamed) and emptying the journal after
    /// it failed its fsync (the error): the store is poisoned, but nothing is lost, since
    /// the journal on disk holds either its records (all in the checkpoint, skipped by the
    /// next open's replay) or none. `close_with_warnings` tells it as a warning, as it does
    /// a checkpoint not written.
    checkpoint_truncation_failed: Option<String>,
    /// Per OSS, the metadata epoch this process knows it holds: read at the open, then each
    /// epoch told it. `None`: not known (down at the open, never told). What a bump that
    /// cannot tell it records it left at (`Store::note_osses_left_behind`).
    epochs_held: Vec<Option<MetadataEpoch>>,
    /// This session looked for objects on the OSSs of file ids at or above
    /// `State::next_file_id` (see `new_file_id`).
    file_ids_checked: bool,
    /// Client writes between their `Input` record and their end (`Store::write_chunk`), by
    /// a number of this session (see `WriteInFlight`). Memory only: a crash ends every
    /// write in flight.
    writes_in_flight: BTreeMap<u64, WriteInFlight>,
    /// The number the next write in flight gets.
    write_in_flight_next: u64,
    /// Home witness pieces `(first, end, crc32c)` a client write's input dropped (s45c), by
    /// its plan ids, from its input until its end: its read steps check the old bytes they
    /// read against them before any delta (`check_displaced_home_pieces`), since the state
    /// no longer has them. At most one entry per plan of a write in flight, each at most
    /// the pieces the witness held (`HOME_WITNESS_PIECES_MAX`). Memory only.
    displaced_home_pieces: BTreeMap<PlanId, Arc<WitnessPieces>>,
    /// While a settle runs (`Store::settle_exclusive`): every range a `Rec::Lost` put on
    /// record, for the settle to return. Why: the callers that tell what a settle lost
    /// (`rm`, `put`, `flush`, the bound's advance) cloned the whole lost list before it to
    /// tell its new ranges by difference (bounded only by the list's bound).
    lost_recorded: Option<Vec<LostRange>>,
}

/// A client write in flight and the ranges that plans admitted after its write plan
/// recorded lost so far. Why (note16 OPEN 0, WRONG BYTES): such a plan reads a cache stripe
/// after this write's bytes are in it (plans of a stripe run in the order they were
/// admitted), so what it records lost are this write's own bytes (or stale bytes standing
/// for them) or newer ones, never older: the move home (destage) of the cache stripe this
/// write or a later one completed, run by the background worker while this write is between
/// its plans and its end, or a later write's check of the running parity before its delta
/// (`verify_cache_before_delta`). Their `Rec::Lost` came before this write's
/// `Rec::Rewritten`, which cleared them: stale bytes then read as this write's with success.
/// The write's end puts these back on record after its `Rewritten` and fails naming them.
/// A loss recorded by its own write plan's check (which reads the OLDER bytes this write
/// then overwrites whole: `stale_cache_overwrite.rs`) or by a plan admitted before it is
/// cleared by the `Rewritten` as before: those bytes are gone for good.
struct WriteInFlight {
    file: u64,
    offset_bytes: u64,
    len_bytes: u64,
    /// The write's own write plan (the highest of them): losses of later plans are noted.
    write_plan: PlanId,
    /// What they recorded lost while the write was in flight (any range; the end keeps
    /// those inside the write), less what a later write rewrote since (`forget_rewritten`),
    /// at most `WRITE_IN_FLIGHT_LOST_RANGES_MAX`; past it, the whole write (named lost
    /// rather than maybe wrong) less what later writes rewrote.
    lost: Vec<LostRange>,
    /// The notes outgrew their bound: a later note adds nothing (the whole write is named).
    collapsed: bool,
    /// `(file, offset_bytes, len_bytes)` a later write rewrote while this one was in flight
    /// (`forget_rewritten`), so that neither a collapse of the notes brings them back (a
    /// false LOST over that write's acknowledged bytes, merge review s18m M18-3) nor the
    /// end's check of its own destage's losses expects them on the notes (a panic, M18-1).
    /// At most `WRITE_IN_FLIGHT_LOST_RANGES_MAX`; past it `rewritten_overflow`.
    rewritten: Vec<(u64, u64, u64)>,
    rewritten_overflow: bool,
    /// Window bytes `record_losses` recorded lost while the write was in flight (an OSS
    /// recorded failed meanwhile: by a step of this write, or otherwise), at most
    /// `FAILURE_LOST_NOTED_MAX` (`failure_lost_more` past it): the write's result names them
    /// (merge review s18m M18-2).
    failure_lost: Vec<LostRange>,
    failure_lost_more: bool,
}

/// Bound on the window byte ranges a write keeps to name as lost by an OSS failure while it
/// ran (`WriteInFlight::failure_lost`, `FailureNotes`); `status` lists them all.
const FAILURE_LOST_NOTED_MAX: usize = 1 << 10;
/// How many of them a message names.
const FAILURE_LOST_NAMED_MAX: usize = 32;

/// What a client write (one chunk) learnt of OSS failures while it ran, told with its result.
/// Why (merge review s18m M18-2): such a failure records the window bytes whose only copy was
/// on that OSS lost, and the write's refusal (or success) said nothing of them: only a later
/// `status`, read or END named them.
#[derive(Default)]
struct FailureNotes {
    /// OSSs this write recorded failed because their disk failed its reservation with an I/O
    /// error, with that error.
    reserve_failed: Vec<(usize, String)>,
    /// Window bytes recorded lost by those failures or while the write was in flight, not
    /// the write's own (its own message names those), at most `FAILURE_LOST_NOTED_MAX`.
    lost: Vec<LostRange>,
    /// More were lost than kept (`status` lists them all).
    lost_more: bool,
    /// The write's refusal advises the rebuild of this OSS onto a new disk already (a
    /// window write whose bytes would go to it after its reservation's EIO): the notes'
    /// message does not say it again (s20c: the same advice twice in one message).
    rebuild_to_advised: Option<usize>,
}

impl FailureNotes {
    fn note_lost(&mut self, ranges: impl IntoIterator<Item = LostRange>) {
        for l in ranges {
            if self.lost.len() < FAILURE_LOST_NOTED_MAX {
                self.lost.push(l);
            } else {
                self.lost_more = true;
            }
        }
    }
}

/// Bound on `WriteInFlight::lost` (memory: a 64 MiB chunk's destages may name one range per
/// block and column).
const WRITE_IN_FLIGHT_LOST_RANGES_MAX: usize = 1 << 16;

impl WriteInFlight {
    /// Note window bytes `record_losses` has just recorded lost (see `failure_lost`).
    fn note_failure_lost(&mut self, ranges: &[LostRange]) {
        let room = FAILURE_LOST_NOTED_MAX.saturating_sub(self.failure_lost.len());
        self.failure_lost_more |= ranges.len() > room;
        self.failure_lost.extend(ranges.iter().take(room).cloned());
    }

    /// Note `ranges` of `self.file`, which `plan` (a destage or a write's check) journaled
    /// lost, if `plan` was admitted after this write's write plan.
    fn note_lost_by_plan(&mut self, plan: PlanId, ranges: &[LostRange]) {
        if plan <= self.write_plan || self.collapsed {
            // Once the whole write is noted, a later note adds nothing; extended, the list
            // would no longer be the collapse the end relies on (one range: the whole write).
            return;
        }
        let mut mine = ranges
            .iter()
            .filter(|l| l.overlaps(self.file, self.offset_bytes, self.len_bytes))
            .peekable();
        let Some(&first) = mine.peek() else {
            return;
        };
        let first = first.clone();
        self.lost.extend(mine.cloned());
        if self.lost.len() > WRITE_IN_FLIGHT_LOST_RANGES_MAX {
            let mut whole = vec![LostRange {
                file: self.file,
                offset_bytes: self.offset_bytes,
                len_bytes: self.len_bytes,
                ..first
            }];
            for &(file, offset_bytes, len_bytes) in &self.rewritten {
                whole = whole
                    .into_iter()
                    .flat_map(|l| l.outside(file, offset_bytes, len_bytes))
                    .collect();
            }
            self.lost = whole;
            self.collapsed = true;
        }
    }

    /// Take `[offset_bytes, offset_bytes + len_bytes)` of `file` out of the noted losses,
    /// as a later write's `Rec::Rewritten` takes it off the record (review s17m M17-1): that
    /// write was admitted after this one, so its bytes there are newer (plans of a stripe run
    /// in admission order) and durable; a loss it had not rewritten is on its own notes and
    /// never in its `Rewritten`. Kept, this write's end found the range off record and
    /// journaled it lost again over the later write's acknowledged bytes (a false LOST).
    fn forget_rewritten(&mut self, file: u64, offset_bytes: u64, len_bytes: u64) {
        self.lost = std::mem::take(&mut self.lost)
            .into_iter()
            .flat_map(|l| l.outside(file, offset_bytes, len_bytes))
            .collect();
        if self.rewritten.len() < WRITE_IN_FLIGHT_LOST_RANGES_MAX {
            self.rewritten.push((file, offset_bytes, len_bytes));
        } else {
            self.rewritten_overflow = true;
        }
    }

    /// Whether a loss this write's own destage recorded may be missing from the notes: they
    /// collapsed, or a later write rewrote (part of) it since.
    fn may_lack_note_of(&self, l: &LostRange) -> bool {
        self.collapsed
            || self.rewritten_overflow
            || self
                .rewritten
                .iter()
                .any(|&(file, offset_bytes, len_bytes)| l.overlaps(file, offset_bytes, len_bytes))
    }
}

/// A parity-protected store over OSS directories.
pub struct Store {
    dir: PathBuf,
    sb: Superblock,
    code: Code,
    layout: Layout,
    kind: StrategyKind,
    config: StrategyConfig,
    /// One per OSS, behind the trait: the write paths never know what an OSS is made of.
    backends: Vec<Box<dyn Backend>>,
    /// The backends came from the caller (`open_with_backends`), not the OSS directories.
    backends_supplied: bool,
    core: Mutex<Core>,
    done: Mutex<HashSet<PlanId>>,
    done_cv: Condvar,
    locks: Arc<StripeLocks>,
    /// Operations that plan or execute hold it shared; `flush` holds it exclusively, so it
    /// runs when nothing is in flight.
    gate: parking_lot::RwLock<()>,
    /// Plans that copy failed columns hold it shared from before their copy check until
    /// their `Durable` record is on disk; `fail_oss` holds it exclusively (review H6).
    failure_gate: parking_lot::RwLock<()>,
    /// Where the planner put each column of the newest cache stripe of each home stripe
    /// `(file, stripe)`: `col -> (oss, chunk address)`, learnt from the plans it made (scrub).
    cache_chunks: Mutex<HashMap<(u64, u64), exec::Chunks>>,
    /// WCL: the chunks of each cache stripe, by home stripe (two may exist while an older
    /// one is destaged), so that a degraded read decodes a cache stripe from its own elements.
    cache_stripes: Mutex<exec::CacheStripes>,
    /// Background plans wait here when a background worker serves them.
    background: Mutex<VecDeque<Admitted>>,
    background_cv: Condvar,
    background_served: AtomicBool,
    /// Why the background worker's timers (due timeouts, the parity advance) are refused
    /// now (a full disk), while it retries them (`serve_background`); `None` when they run.
    background_refused: Mutex<Option<String>>,
    /// See `OpenOptions::destage_defer_max_bytes`.
    destage_defer_max_bytes: u64,
    /// Client write plans executing their steps now (the foreground a destage is held back
    /// for), and plans waiting for other plans to finish (`after_plans`): one of those may be
    /// a held-back destage, so while any waits nothing is held back.
    client_plans_executing: AtomicUsize,
    plans_waiting: AtomicUsize,
    /// Callers waiting for exclusive use of the store (`gate_exclusive`): lets a test see
    /// a scrub or flush wait behind a held background plan without timing it.
    exclusive_waiting: AtomicUsize,
    /// A writer saw more unprotected bytes than the bound while a worker serves.
    advance_requested: AtomicBool,
    /// Parity advances (flushes) and bound checks done, so a writer past the hard limit can
    /// wait for the next one.
    advances: Mutex<u64>,
    advance_cv: Condvar,
    /// Emulated device per OSS (benchmarks): service time and free units.
    emulate: Option<Arc<dyn ServiceTime>>,
    /// Per OSS, when each of its units is free (see `emulate_device`).
    device_units: Vec<Mutex<Vec<std::time::Instant>>>,
    /// Operations executed since open (per OSS), every kind (plans, recovery, scrub, rebuild).
    ops: Mutex<Vec<OssOps>>,
    /// Device reads outside the plans' steps since open (or the last checkpoint), per OSS.
    unplanned: Mutex<Vec<UnplannedReads>>,
    /// Operations of executed plan steps only, per OSS, in the planner's own counting.
    plan_counts: Mutex<Vec<OpCounts>>,
    fsync: bool,
    /// Group commit of the journal's durable records (see `Store::sync_journal_through`):
    /// a handle on the journal file to fsync without the core lock, the highest sequence
    /// number whose append has returned, and what the fsyncs so far cover.
    journal_file: File,
    journal_appended_seq: AtomicU64,
    group_commit: Mutex<exec::GroupCommit>,
    group_commit_cv: Condvar,
    /// Set when a plan failed half way: the store must be reopened (which recovers).
    poisoned: AtomicBool,
    /// Set (with `poisoned`) by `open_for_label_repair`, and by `open_for_status` within the
    /// code's tolerance, when crash recovery is due but could not run (OSSs not answering):
    /// nothing was recovered, only `repair_label` (and `status`) may run.
    recovery_waits: AtomicBool,
    /// Set (with `poisoned`) when this open's crash recovery could not finish (an I/O error,
    /// a full OSS), in a settle that began before or in deciding plans a crash cut: why.
    /// Reads are served, every change is refused, and the next open tries the recovery again
    /// (see `open_inner`, reviews s4e E6, s9s S9-4).
    reads_only: Mutex<Option<ReadsOnly>>,
    /// With `reads_only`: the stripes `(file, stripe)` of the plans a crash cut, which
    /// recovery had to decide and could not: no read of them is served (their home and
    /// cache may hold data and parity of different versions, torn blocks, bytes no one
    /// acknowledged), every other stripe reads as without them.
    reads_only_cut_stripes: Mutex<BTreeSet<(u64, u64)>>,
    /// With `reads_only_cut_stripes`: the files whose every write the crash cut
    /// (`recovery::cut_writes_only_files`), whose names the recovery that could not run
    /// removes. Not listed and not served by name meanwhile: their bytes are zeros or a cut
    /// write's, never acknowledged (`ls` listed such a name at the cut write's length).
    reads_only_cut_names: Mutex<BTreeSet<u64>>,
    /// The store's metadata directory refuses writes (a read-only file system: review
    /// R10-3): the store is open for reads only (`reads_only` holds the cause), its journal
    /// only read (`Journal::open_read_only`), and nothing is journaled. Also (kind
    /// `TailDecisionUnwritten`) when the open's decision about the journal's cut tail could
    /// not be written on a full metadata disk: decided in memory, the tail left in the file,
    /// every change refused (`journal_seq`). `Some(why)`, as `reads_only` names it.
    metadata_read_only: Option<ReadsOnly>,
    /// Names with a `put` in progress. Why: a put writes its new content under the name's
    /// staging name (`NAME\0put`); two puts of one name at once (API threads) shared it, and
    /// one could give the name the other's half-written content (review H3: wrong bytes
    /// read right after an acknowledged put). Puts of one name take turns.
    puts_in_progress: Mutex<HashSet<String>>,
    put_done_cv: Condvar,
    /// The failed OSSs as of the last [`Store::absorb_losses`]: while no other OSS fails, the
    /// planner cannot get new lost bytes (window writes to a failed OSS are refused), so the
    /// per-write check is a set comparison, not a walk over every window range.
    absorbed_failures: Mutex<BTreeSet<usize>>,
    /// OSSs whose `Online` record this open replayed from the journal: an `online` of each
    /// was cut after that record (its last step, the checkpoint, empties the journal), and
    /// this open finished it. Why: docs/store.md promises that rerunning the cut `online`
    /// finishes it; the rerun must say so and succeed, not fail "nothing to do" (s20r R20-4).
    online_finished_at_open: BTreeSet<usize>,
    /// OSSs this open recorded failed before crash recovery, as the operator asked
    /// (`OpenOptions`): recovery ran without them, and may have recorded bytes lost.
    failed_before_recovery: Mutex<Vec<usize>>,
    /// What this process could not do and left for later without losing anything (a put's
    /// staging content that could not be removed: review s6r R6-1), told at close (see
    /// [`Store::close_with_warnings`]). Bounded: one per staging name left.
    deferred_warnings: Mutex<Vec<String>>,
    /// Acknowledged window bytes a `rebuild --to` of this process left lost for good: it
    /// read none of them back from the old directory (past `RESTORE_BYTES_MAX`, or that
    /// directory refused). See [`Store::rebuild_left_lost_bytes`].
    rebuild_left_lost_bytes: AtomicU64,
    /// Acknowledged window bytes an `online` could not take back and made final (warned).
    /// See [`Store::online_left_lost_bytes`].
    online_left_lost_bytes: AtomicU64,
    /// See `OpenOptions::file_bytes_max_before_session_6`.
    file_bytes_max_before_session_6: bool,
    _lock_file: File,
}

/// Who settles past the bound on unprotected bytes, as its warnings name it.
const BOUND_SETTLE: &str = "the parity advance past the bound on unprotected bytes";

/// Who settles before a file with cached bytes goes (`detach`), as its warnings name it.
const REMOVAL_SETTLE: &str =
    "the settle before a file's removal or replacement (`rm`, or `put` over its name)";

/// Most lost ranges a warning names one by one (the list on record may be long).
const WARNING_RANGES_NAMED_MAX: usize = 8;

/// `items` joined, the first `max` of them, then how many more.
fn named_at_most(items: &[String], max: usize) -> String {
    let shown = items[..items.len().min(max)].join(", ");
    match items.len().saturating_sub(max) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

fn plan_err(e: PlanError) -> StoreError {
    match e {
        PlanError::BeyondFileLimit { .. }
        | PlanError::WriteTooLarge { .. }
        | PlanError::EmptyWrite => StoreError::BadInput(e.to_string()),
        other => StoreError::BadInput(other.to_string()),
    }
}

/// Most bytes `put_from` and `write_from` hold in memory at once (one piece of their input).
pub const PUT_PIECE_BYTES: usize = 8 << 20;

/// Fill `piece` with the next up to [`PUT_PIECE_BYTES`] bytes of `input` (fewer only at its
/// end; empty: the input is done).
fn read_piece(input: &mut dyn std::io::Read, piece: &mut Vec<u8>) -> Result<(), StoreError> {
    piece.clear();
    use std::io::Read;
    Read::take(&mut *input, PUT_PIECE_BYTES as u64)
        .read_to_end(piece)
        .map_err(|e| StoreError::Io(format!("reading the input: {e}")))?;
    assert!(piece.len() <= PUT_PIECE_BYTES);
    Ok(())
}

/// What a store open for reads only (`Store::reads_only`) tells the user: the cause and the
/// way out.
/// Does the store's metadata directory refuse writes? `Some(cause)`: a read-only file
/// system (or, for a user other than root, no write permission). Why asked up front: the
/// journal is opened for appends, and every command failed there with a bare EROFS
/// (review R10-3), reads included.
fn metadata_dir_read_only(dir: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `path` is a valid NUL-terminated string; access(2) only reads it.
    if unsafe { libc::access(path.as_ptr(), libc::W_OK) } == 0 {
        return None;
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EROFS) | Some(libc::EACCES) | Some(libc::EPERM) => Some(err.to_string()),
        _ => None, // anything else fails where it is met, as before
    }
}

/// Do the metadata files refuse this process's writes although their directory takes
/// them? `Some(cause)` naming the file: no write permission (a store made by another user
/// in a shared directory), an append-only or immutable attribute, a read-only file system.
/// Why (review s12r R12-2): the journal's open for writing failed every command, reads
/// too, with a bare errno, and a refused state checkpoint was blamed on a failing disk.
/// The probe opens for writing without creating or truncating: it changes nothing.
fn metadata_files_read_only(dir: &Path) -> Option<String> {
    for name in [JOURNAL_FILE, STATE_FILE] {
        let path = dir.join(name);
        if let Err(err) = std::fs::OpenOptions::new().write(true).open(&path) {
            match err.raw_os_error() {
                Some(libc::EROFS) | Some(libc::EACCES) | Some(libc::EPERM) => {
                    return Some(format!(
                        "{} cannot be opened for writing by this user: {err}",
                        path.display()
                    ))
                }
                _ => {} // missing (made later) or anything else: met where it is used
            }
        }
    }
    None
}

/// Why a store is open for reads only (`Store::reads_only`): the cause it names, and the
/// cause's kind, which picks the advice (`reads_only_why`). Why a kind and not the cause's
/// text (review of session 11's merge, item 9): a recovery whose sync ran out of
/// descriptors failed with a message that did not start with the words the advice looked
/// for, and was told to free space or fail a healthy OSS.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ReadsOnly {
    kind: ReadsOnlyKind,
    cause: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadsOnlyKind {
    /// The metadata directory refuses writes (`Store::metadata_read_only`).
    MetadataReadOnly,
    /// The open's recovery could not finish: the process ran out of file descriptors.
    OutOfDescriptors,
    /// The open's recovery could not finish: an OSS's I/O error, a full OSS.
    RecoveryUnfinished,
    /// The open could not journal the completion of plans durable before it: the metadata
    /// disk is full (review s11r R11-4).
    MetadataDiskFull,
    /// The open could not write its decision about the journal's cut last record (the
    /// journal's replacement) on a full metadata disk: decided in memory for this process
    /// only (note14 item 6; before session 15 the open failed, reads too).
    TailDecisionUnwritten,
    /// Files the store writes in place are hard-linked: shared with another copy of the
    /// store (`Store::hard_linked_cause`; review s16r2 R16b-1).
    HardLinked,
}

impl ReadsOnly {
    fn metadata_read_only(cause: &str) -> ReadsOnly {
        ReadsOnly {
            kind: ReadsOnlyKind::MetadataReadOnly,
            cause: cause.to_string(),
        }
    }
}

/// What a store open for reads only tells the user (see `reads_only_why`).
fn reads_only_message(why: &ReadsOnly, dir: &Path) -> String {
    if why.kind != ReadsOnlyKind::MetadataReadOnly {
        return reads_only_why(why, dir);
    }
    let cause = &why.cause;
    format!(
        "its metadata (directory {}) refuses writes ({cause}); reads, `ls`, `status` and a verify-only `scrub` work, every change (put, write, rm, fail, rebuild, scrub --repair, ...) is refused with nothing done. To change the store, make its metadata writable for this user and retry: remount a read-only file system read-write (for example `mount -o remount,rw` of it); for a permission error give this user write permission on the directory and its `state` and `journal` files (or run as their owner), and clear an append-only or immutable attribute (`lsattr`, `chattr -a -i`)",
        dir.display()
    )
}

fn reads_only_why(why: &ReadsOnly, dir: &Path) -> String {
    let cause = &why.cause;
    // The process's open-file limit (EMFILE) is no disk's fault: failing an OSS or freeing
    // space would not help, and `fail` would cost redundancy (and window bytes) for nothing.
    if why.kind == ReadsOnlyKind::OutOfDescriptors {
        return format!(
            "the recovery this open runs (deciding writes a crash cut, or finishing a settle that moves cached bytes home with parity) could not finish ({cause}); reads and a verify-only `scrub` work, but nothing can change until it finishes. No OSS is at fault and none is failed: raise the open-file limit (e.g. `ulimit -n 4096`) or close other files, then rerun the command on {dir}: every open tries the recovery again",
            dir = dir.display()
        );
    }
    if why.kind == ReadsOnlyKind::TailDecisionUnwritten {
        return format!(
            "{cause}; this command uses that decision in memory only: reads, `ls`, `status` and a verify-only `scrub` work, every change (put, write, rm, fail, rebuild, scrub --repair, ...) is refused with nothing done, and the journal is left as it was. Free space on the file system holding {dir} (its journal and state, and room for a copy of the journal), then rerun any command: its open writes the decision (made again from the same journal and disks, so the same one) and the store takes changes again",
            dir = dir.display()
        );
    }
    if why.kind == ReadsOnlyKind::HardLinked {
        return format!(
            "{cause}; reads, `ls`, `status` and a verify-only `scrub` work, every change (put, write, rm, fail, online, rebuild, scrub --repair, ...) is refused with nothing done. {}",
            hard_linked_way_out(dir)
        );
    }
    if why.kind == ReadsOnlyKind::MetadataDiskFull {
        return format!(
            "{cause}; reads, `ls`, `status` and a verify-only `scrub` work, every change is refused with nothing done. Nothing acknowledged is lost. Free space on the file system holding {dir} (its journal and state), then rerun the command: the next open journals what this one could not and the store takes changes again",
            dir = dir.display()
        );
    }
    format!(
        "the recovery this open runs (deciding writes a crash cut, or finishing a settle that moves cached bytes home with parity) could not finish ({cause}); reads and a verify-only `scrub` work (a read of a stripe a cut write touched, or needing a decode in a stripe that settle was rewriting, is refused naming the stripe), but nothing can change until it finishes (`rm` included: it cannot make room here). Fix the cause (free space on the file system holding the OSS named, outside the store, or grow it; or repair the disk), then run any command: every open tries the recovery again. A disk that keeps failing its writes can be taken out with `exaraid store fail {dir} --oss I`: the settle goes on without it, but on every code the bytes of open delayed windows whose only copy is in its cache zone are then recorded lost (`fail` lists them; on a single-parity code also its bytes in the stripes the settle was rewriting). Once that disk's writes work again, `exaraid store online {dir} --oss I` takes the window bytes back from it, as does a `rebuild --to NEWDIR` of it while its old directory still reads (in place, a rebuild makes their loss final)",
        dir = dir.display()
    )
}

/// What to do about a store whose files are hard-linked (`ReadsOnlyKind::HardLinked`).
fn hard_linked_way_out(dir: &Path) -> String {
    format!(
        "The store needs files of its own to change: if the other copy is not wanted, delete it (`find {dir} -type f -links +1` lists the files still shared; once none is, the store takes changes again); to keep two stores, delete the hard-link copy and copy the store again, closed, with `cp -a` (without -l), which copies the bytes. See \"Copying and moving a store\" in docs/store.md",
        dir = dir.display()
    )
}

/// The error of a streaming write's piece after earlier pieces were acknowledged, before
/// `write_from` says what is durable: its cause speaks of the one write that failed
/// ("nothing was written"), which, beside "the first N bytes ... are written", told two
/// things at once (review s12r). Only the phrase goes; the kind and the rest stay.
fn piece_failure(e: StoreError) -> StoreError {
    let scoped = |m: String| {
        m.replace(
            "nothing was written to it",
            "the failed piece was not written to it",
        )
        .replace(", nothing was written", "")
        .replace("; nothing was written:", ":")
        .replace(
            "nothing was written",
            "the failed piece was not acknowledged",
        )
    };
    match e {
        StoreError::NoSpace(m) => StoreError::NoSpace(scoped(m)),
        StoreError::Backend(b) if b.is_no_space() => StoreError::NoSpace(scoped(b.to_string())),
        StoreError::BadInput(m) => StoreError::BadInput(scoped(m)),
        StoreError::Io(m) => StoreError::Io(scoped(m)),
        StoreError::Backend(b) => StoreError::Io(scoped(b.to_string())),
        other => other,
    }
}

/// Most bytes a damaged metadata-epoch bump record may differ in from its frame and still
/// be told for it (`Store::cut_tail_is_bump`): a few flipped bits or bytes, far fewer than
/// the token's 8 hex digits and the epoch's digits together.
const BUMP_DAMAGED_BYTES_MAX: usize = 4;

/// How `reads_only_cause` starts the cause of an open that ran out of file descriptors.
const OUT_OF_DESCRIPTORS_CAUSE: &str = "this process ran out of file descriptors";

/// The cause of an open that could not journal what it must before any change (the
/// completion of plans durable before it) on a full metadata disk.
const METADATA_DISK_FULL_CAUSE: &str =
    "this open must journal the completion of writes that finished before it, and the store's metadata disk is full";
/// The cause of an open that could not journal the START (or END) of delayed windows the
/// planner's epoch lacks (`Store::restart_windows`) on a full metadata disk.
const RESTART_WINDOWS_CAUSE: &str =
    "this open must journal the restart of open delayed windows (a settle, or a crash right after one, left the planner without them), and the store's metadata disk is full";
/// The cause of an open that could not journal the END of a window a crash left without a
/// token (`Store::end_unlisted_windows`) on a full metadata disk.
const END_UNLISTED_WINDOWS_CAUSE: &str =
    "this open must journal the end of a delayed window a crash left without its token (its bytes then get parity), and the store's metadata disk is full";
/// The cause of an open whose recovery could not journal what it decided (or checkpoint
/// it) on a full metadata disk.
const RECOVERY_METADATA_DISK_FULL_CAUSE: &str =
    "the recovery this open runs must journal what it decides, and the store's metadata disk is full";
/// How a settle refused for room ends its message: the way out when the store is open for
/// changes. Cut from the cause of a store open for reads only, where `rm` is refused like
/// every change until the recovery finishes (review s12r R12-3: the advice looped).
pub(crate) const SETTLE_NO_SPACE_WAY_OUT: &str =
    " Free space on that disk (or grow it), or `exaraid store rm` a file that has no bytes waiting for parity, then retry";

/// The cause a store open for reads only names: the error, without a backend's advice for
/// an unavailable OSS ("reads fall back to parity, writes need `exaraid store rebuild`"),
/// which is wrong here: the OSS answers reads, the store is not degraded, and a rebuild is
/// refused like every change (review s9s S9-4).
fn reads_only_cause(e: &StoreError, dir: &Path) -> ReadsOnly {
    let unfinished = |cause: String| ReadsOnly {
        kind: ReadsOnlyKind::RecoveryUnfinished,
        cause,
    };
    // The recovery's own journal append or state checkpoint on a full metadata disk: no OSS
    // is full and `fail --oss` cannot help (review s13r R13-3). Told by the file the error
    // names (the journal's and the checkpoint's I/O errors name their path).
    if let StoreError::NoSpace(why) = e {
        let journal = format!("journal {}", dir.join("journal").display());
        let state = format!("writing {}", dir.join("state").display());
        if why.starts_with(&journal) || why.starts_with(&state) {
            return ReadsOnly {
                kind: ReadsOnlyKind::MetadataDiskFull,
                cause: format!("{RECOVERY_METADATA_DISK_FULL_CAUSE} ({why})"),
            };
        }
    }
    match e {
        StoreError::Backend(crate::backend::BackendError::OutOfDescriptors { oss, why }) => {
            ReadsOnly {
                kind: ReadsOnlyKind::OutOfDescriptors,
                cause: format!("{OUT_OF_DESCRIPTORS_CAUSE} (OSS {oss}: {why})"),
            }
        }
        StoreError::Backend(crate::backend::BackendError::Unavailable { oss, why }) => {
            unfinished(format!("OSS {oss} failed an I/O operation ({why})"))
        }
        StoreError::NoSpace(why) => unfinished(
            why.strip_suffix(SETTLE_NO_SPACE_WAY_OUT)
                .unwrap_or(why)
                .to_string(),
        ),
        other => unfinished(other.to_string()),
    }
}

/// How far the wall clock may be behind the store's time before a command journals a skew
/// (`Store::keep_clock_skew`): nodes' clocks a little apart, or an NTP slew, hold the
/// store's time (and window timeouts) at most this long.
const CLOCK_BEHIND_SLACK_NS: u64 = 1_000_000_000;

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

/// A random token of a metadata epoch (`MetadataEpoch::token`).
fn random_token() -> u32 {
    let mut bytes = [0u8; 4];
    if let Ok(mut f) = File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut bytes);
    }
    u32::from_le_bytes(bytes) ^ (unix_now_ns() as u32) ^ std::process::id().rotate_left(16)
}

/// Why a reservation (`Store::try_reserve_keys`) failed.
pub(super) enum ReserveError {
    /// Anything but a disk failing: no room (`NoSpace`), another backend error.
    Store(StoreError),
    /// OSS `oss` (at `name`), up until now, failed the reservation as unavailable over
    /// `IO_TRIES_MAX` tries (`why`: an EIO from `fallocate`, a dying disk).
    Down {
        oss: usize,
        name: String,
        why: String,
    },
}

/// One process at a time: an exclusive `flock` on the store directory itself. Why the
/// directory, not a lock file in it: a lock file deleted while a command runs (a cleanup
/// script removing "stale" locks) let a second process create a new one and lock that, so
/// both wrote the store and acknowledged bytes were lost (review E7); the directory cannot
/// be deleted while it holds the store.
fn lock_dir(dir: &Path) -> Result<File, StoreError> {
    let f = File::open(dir)
        .map_err(|e| StoreError::from_io(e, &format!("opening {}", dir.display())))?;
    lock_open_dir(dir, f)
}

/// `lock_dir` on `f`, a handle of `dir`. Only EWOULDBLOCK says another open holds the lock
/// (waited for, then `Busy`); any other errno is the lock call failing, refused at once and
/// named (`lock_failed`). Why (review s10 R10-2): every failure read "already open", so a
/// filesystem without locks (ENOLCK) sent the user looking for a process that did not exist
/// and the CLI waited its whole `--lock-wait-ms` for an error that never passes.
fn lock_open_dir(dir: &Path, f: File) -> Result<File, StoreError> {
    use std::os::unix::io::AsRawFd;
    // Wait a little: a process that just ended (or a fork that has not yet exec'd and so
    // still shares the descriptor) may hold the lock for a moment.
    for attempt in 0..=LOCK_ATTEMPTS {
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(f);
        }
        let err = std::io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EWOULDBLOCK) => {}
            // A signal (not with LOCK_NB on Linux, but allowed by POSIX): try again.
            Some(libc::EINTR) => continue,
            _ => return Err(lock_failed(dir, &err)),
        }
        if attempt < LOCK_ATTEMPTS {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    // flock conflicts between two opens of one process too (the lock belongs to the open
    // file description): a second `Store::open` here is refused the same way, so the message
    // must not blame another process only.
    Err(StoreError::Busy(format!(
        "the store {} is already open, in this process or another (one open at a time): wait until it is closed and retry (a program that opens it twice: share the one open `Store` between its threads)",
        dir.display()
    )))
}

/// The lock call on the store directory failed (not: another open holds it), with `err`.
fn lock_failed(dir: &Path, err: &std::io::Error) -> StoreError {
    let why = match err.raw_os_error() {
        Some(libc::ENOLCK) => "the filesystem holding it keeps no locks (an NFS mount without its lock service, or one mounted with `nolock`), and the store needs one so that two processes never write it at once: put the store directory on a filesystem with locks (its OSS directories may stay where they are), or enable locking on the mount".to_string(),
        _ => "this is not another process having the store open: the lock call itself failed; check the filesystem holding the store directory (the kernel log) and retry".to_string(),
    };
    StoreError::Io(format!(
        "locking the store directory {} failed ({err}): {why} (nothing was done)",
        dir.display()
    ))
}

fn to_backend_zone(z: PlanZone) -> Zone {
    match z {
        PlanZone::Data => Zone::Data,
        PlanZone::Parity => Zone::Parity,
        PlanZone::Cache => Zone::Cache,
    }
}

/// Most bytes of file stripes the open scrubs and repairs by itself after a journal tail
/// cut (see `Store::repair_after_tail_cut`): reading them takes a few seconds on one disk.
/// A larger store is left to the user's `scrub --repair` (the warning says so); until then
/// no read decodes through its parity (`refuse_decode_after_tail_cut`).
const TAIL_CUT_REPAIR_BYTES_MAX: u64 = 1 << 30;

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
        // Name at most the first 64 characters: a refused name may be very long.
        let shown: String = name.chars().take(64).collect();
        let more = if shown.len() < name.len() { "..." } else { "" };
        return Err(StoreError::BadInput(format!(
            "file name '{}{more}' ({} bytes) is not allowed: use 1..={FILE_NAME_BYTES_MAX} bytes without NUL",
            shown.escape_debug(),
            name.len()
        )));
    }
    Ok(())
}

/// A directory that is to become an OSS must hold nothing (or not exist yet). Why: an
/// in-place rebuild empties the OSS's `objects/`, and files of the user's there would go.
/// `lost+found` (the root of a fresh ext filesystem) is allowed.
/// `p` absolute and resolved (symlinks, `..`) as far as it exists, the rest appended: for
/// comparing directories that may not exist yet.
pub(super) fn resolved_dir(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    for ancestor in abs.ancestors() {
        if let Ok(real) = ancestor.canonicalize() {
            return real.join(abs.strip_prefix(ancestor).expect("an ancestor"));
        }
    }
    abs
}

/// Is one of two directories inside (or the same as) the other? Why it matters: exaraid
/// owns everything in an OSS directory (a rebuild empties it), so an OSS directory inside
/// another's (review E5: `rebuild --to oss-2/objects/sub`) is deleted with it.
pub(super) fn dirs_nest(a: &Path, b: &Path) -> bool {
    let (a, b) = (resolved_dir(a), resolved_dir(b));
    a.starts_with(&b) || b.starts_with(&a)
}

/// Refuses `target` (a directory exaraid is to own: an OSS directory, a rebuild target) when it
/// is, or is inside, one of the store directory's own files (`STORE_DIR_OWN_FILES`). Why
/// (review s17r R17-5): a directory at `DIR/state.tmp` makes every later checkpoint fail for
/// good; one at `DIR/state` makes the init itself fail after labelling its OSSs. `what` names
/// the target in the message, `example` is a directory to offer instead. Changes nothing.
pub(super) fn refuse_store_own_file(
    store_dir: &Path,
    target: &Path,
    what: &str,
    example: &Path,
) -> Result<(), StoreError> {
    let resolved_store = resolved_dir(store_dir);
    let own_name = resolved_dir(target)
        .strip_prefix(&resolved_store)
        .ok()
        .and_then(|rest| rest.components().next())
        .map(|first| first.as_os_str().to_string_lossy().into_owned())
        .filter(|first| STORE_DIR_OWN_FILES.contains(&first.as_str()));
    match own_name {
        Some(name) => Err(StoreError::BadInput(format!(
            "refused, nothing changed: {what} {} is (or is inside) {}, a file of the store's own (its metadata and their temporary copies: {}); pick another directory, e.g. {}",
            target.display(),
            resolved_store.join(&name).display(),
            STORE_DIR_OWN_FILES.join(", "),
            example.display()
        ))),
        None => Ok(()),
    }
}

/// Refuses a new store directory `dir` that is, or is inside, one of another store
/// directory's own names (`STORE_DIR_OWN_FILES`). Why (review s18r R18-2): `init S1/state.tmp`
/// was accepted, and S1 could never write its checkpoint again (every command warned of a
/// failing disk, its journal grew without end). A store directory: one holding a
/// superblock, an init marker or exaraid's metadata files. Changes nothing.
fn refuse_store_dir_in_store_own_file(dir: &Path) -> Result<(), StoreError> {
    let resolved = resolved_dir(dir);
    for store in resolved.ancestors().skip(1) {
        let under_own_name = resolved
            .strip_prefix(store)
            .ok()
            .and_then(|rest| rest.components().next())
            .is_some_and(|first| {
                STORE_DIR_OWN_FILES.contains(&first.as_os_str().to_string_lossy().as_ref())
            });
        if !under_own_name {
            continue;
        }
        let a_store = Superblock::path(store).exists()
            || store.join(INIT_MARKER_FILE).exists()
            || !crate::superblock::store_metadata_files(store).0.is_empty();
        if a_store {
            refuse_store_own_file(store, dir, "store directory", &store.join("new-store"))?;
        }
    }
    Ok(())
}

/// The OSS directory of some store (it holds an OSS label) that `d` is inside or is, if any.
/// Why: exaraid owns everything in an OSS directory; a store made inside one (review s5r R4)
/// lives at the mercy of the other store's rebuilds.
fn enclosing_oss_dir(d: &Path) -> Option<PathBuf> {
    resolved_dir(d)
        .ancestors()
        .find(|a| a.join(crate::backend::LABEL_FILE).is_file())
        .map(Path::to_path_buf)
}

pub(super) fn check_oss_dir_empty(d: &Path) -> Result<(), StoreError> {
    let entries = match std::fs::read_dir(d) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => {
            return Err(StoreError::from_io(
                err,
                &format!("reading {}", d.display()),
            ))
        }
    };
    let mut held: Vec<String> = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|err| StoreError::from_io(err, &format!("reading {}", d.display())))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != "lost+found" {
            held.push(name);
        }
    }
    if held.is_empty() {
        return Ok(());
    }
    held.sort();
    held.truncate(5);
    Err(StoreError::BadInput(format!(
        "OSS directory {} is not empty (it holds {}): an OSS directory must be empty or not exist yet, since exaraid owns everything in it; pick an empty directory",
        d.display(),
        held.join(", ")
    )))
}

/// Written into the store directory before `init` touches any OSS directory and removed
/// once the superblock is written: it names the store id of the OSS labels the init writes.
/// Why: an init cut short (kill, power loss) leaves OSS directories that are not empty, and
/// a store directory with no superblock; with this file the next init recognises them as
/// its own half-made OSSs and finishes the job, and never mistakes the OSS of another store
/// (another id) or a user's directory (other files) for one.
pub const INIT_MARKER_FILE: &str = "exaraid-init.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct InitMarker {
    store_id: String,
}

/// What `DirBackend::create` puts in an OSS directory (with the temporary names of its
/// atomic writes) besides an empty `objects` directory: all a half-made OSS can hold.
const HALF_MADE_OSS_FILES: [&str; 5] = [
    crate::backend::LABEL_FILE,
    crate::backend::EXTENTS_FILE,
    crate::backend::EXTENTS_LOG_FILE,
    "exaraid-oss.tmp",
    "exaraid-extents.tmp",
];

/// Ok if OSS directory `d` is empty, missing, or a half-made OSS of the init of store
/// `store_id` (only the files `HALF_MADE_OSS_FILES`, an empty `objects`, and a label, if
/// any, of that store id). Anything else is refused as `check_oss_dir_empty` does.
fn check_half_made_oss_dir(d: &Path, store_id: &str) -> Result<(), StoreError> {
    let Err(not_empty) = check_oss_dir_empty(d) else {
        return Ok(());
    };
    let io = |err: std::io::Error| StoreError::from_io(err, &format!("reading {}", d.display()));
    for entry in std::fs::read_dir(d).map_err(io)? {
        let name = entry
            .map_err(io)?
            .file_name()
            .to_string_lossy()
            .into_owned();
        let known = HALF_MADE_OSS_FILES.contains(&name.as_str()) || name == "lost+found";
        if !known && name != "objects" {
            return Err(not_empty);
        }
    }
    match std::fs::read_dir(d.join("objects")) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return Err(not_empty), // not a directory
        Ok(mut objects) => {
            if objects.next().is_some() {
                return Err(not_empty); // init writes no object: this OSS was used
            }
        }
    }
    let label_path = d.join(crate::backend::LABEL_FILE);
    if label_path.exists() {
        let label: Option<OssLabel> = std::fs::read(&label_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        if label.map_or(true, |l| l.store_id != store_id) {
            return Err(not_empty); // another store's OSS (or a damaged one): not ours
        }
    }
    Ok(())
}

/// Empty a directory `check_half_made_oss_dir` accepted.
fn clear_half_made_oss_dir(d: &Path) -> Result<(), StoreError> {
    for name in HALF_MADE_OSS_FILES {
        match std::fs::remove_file(d.join(name)) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(StoreError::from_io(
                    err,
                    &format!("clearing the half-made OSS directory {}", d.display()),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// What `Store::init` checks of `dir` and the OSS directories before it touches them: no
/// store there yet, and OSS directories empty (or those of an init cut short, whose marker
/// is returned: the init redoes it).
fn init_checks(dir: &Path, opts: &InitOptions) -> Result<Option<InitMarker>, StoreError> {
    if Superblock::path(dir).exists() {
        return Err(StoreError::BadInput(format!(
            "{} already holds an exaraid store; pick another directory or remove it first",
            dir.display()
        )));
    }
    // The other order of R18-2 (`refuse_store_dir_in_store_own_file`): a directory already at
    // one of the store's own names, where the store could never write its metadata.
    for name in STORE_DIR_OWN_FILES {
        let own = dir.join(name);
        if std::fs::symlink_metadata(&own).is_ok_and(|m| m.is_dir()) {
            return Err(StoreError::BadInput(format!(
                "refused, nothing changed: {} is a directory, but {name} is a file of the store's own (its metadata and their temporary copies: {}), which the store could then never write; move that directory away, or pick another directory for the store",
                own.display(),
                STORE_DIR_OWN_FILES.join(", ")
            )));
        }
    }
    let marker_path = dir.join(INIT_MARKER_FILE);
    let unfinished: Option<InitMarker> = if marker_path.exists() {
        Some(read_checked(&marker_path, "init-marker")?)
    } else {
        None
    };
    // A store that lost only its superblock (review s15r R15-2): an init here would write a
    // fresh state over the one naming every file's objects.
    // Both files (merge review s15m M15-3): with the journal gone too, an init over the state
    // still replaced the file table naming every object.
    let (metadata_left, foreign) = crate::superblock::store_metadata_files(dir);
    if unfinished.is_none() && !metadata_left.is_empty() {
        return Err(StoreError::BadInput(format!(
            "{} holds an exaraid store's {} but no superblock: the superblock was deleted or lost, and an init here would \
             throw away the store's file table. Restore {} from a backup of {}, or pick another directory",
            dir.display(),
            metadata_left.join(" and "),
            Superblock::path(dir).display(),
            dir.display()
        )));
    }
    // Not a store's (review s15l L15-4), but an init writes its state and journal there.
    if unfinished.is_none() && !foreign.is_empty() {
        return Err(StoreError::BadInput(format!(
            "{}, and an init in {} would write over it; pick another directory for the store, or move that file away; nothing was changed",
            crate::superblock::foreign_metadata_files(dir, &foreign),
            dir.display()
        )));
    }
    // Every OSS directory is checked before any is touched: a refusal changes nothing.
    for d in &opts.oss_dirs {
        match &unfinished {
            Some(m) => check_half_made_oss_dir(d, &m.store_id)?,
            None => check_oss_dir_empty(d)?,
        }
    }
    Ok(unfinished)
}

impl Store {
    /// Create a new store in `dir` (which must not hold one) with its OSS directories.
    /// Restartable: an init cut short (see [`INIT_MARKER_FILE`]) is redone by the next one.
    pub fn init(dir: &Path, opts: &InitOptions) -> Result<Store, StoreError> {
        let e = opts.element_bytes;
        if !(ELEMENT_BYTES_MIN..=ELEMENT_BYTES_MAX).contains(&e) || e % ELEMENT_BYTES_MIN != 0 {
            return Err(StoreError::BadInput(format!(
                "stripe unit {e} bytes is not allowed: use a multiple of 4096 between {ELEMENT_BYTES_MIN} and {ELEMENT_BYTES_MAX} (default 1048576)"
            )));
        }
        if let Some(capacity) = opts.oss_capacity_bytes {
            // Below one stripe unit an OSS could hold no element at all: every write would
            // fail as full, a store that looks made but can hold nothing (review s6r R6-3).
            if capacity < e as u64 {
                return Err(StoreError::BadInput(format!(
                    "an OSS capacity of {capacity} bytes is less than one stripe unit ({e} bytes): an OSS could hold nothing; give --oss-capacity {e} or more (or a smaller --stripe-unit)"
                )));
            }
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
        for (i, a) in opts.oss_dirs.iter().enumerate() {
            for b in &opts.oss_dirs[i + 1..] {
                if dirs_nest(a, b) {
                    return Err(StoreError::BadInput(format!(
                        "OSS directories {} and {} are one inside the other (or the same): each OSS needs a directory of its own, outside every other OSS directory, since exaraid owns everything in it",
                        a.display(),
                        b.display()
                    )));
                }
            }
            refuse_store_own_file(dir, a, "OSS directory", &dir.join(format!("oss-{i}")))?;
            if resolved_dir(dir).starts_with(resolved_dir(a)) {
                return Err(StoreError::BadInput(format!(
                    "OSS directory {} is (or contains) the store directory {}: give each OSS a directory of its own (the default puts them inside the store directory)",
                    a.display(),
                    dir.display()
                )));
            }
        }
        refuse_store_dir_in_store_own_file(dir)?;
        // An OSS directory that holds a label itself is refused below (not empty) unless it
        // is one of an init cut short: only what encloses it counts here.
        let enclosing = std::iter::once(enclosing_oss_dir(dir)).chain(
            opts.oss_dirs
                .iter()
                .map(|d| d.parent().and_then(enclosing_oss_dir)),
        );
        for (d, found) in std::iter::once(dir)
            .chain(opts.oss_dirs.iter().map(|d| d.as_path()))
            .zip(enclosing)
        {
            if let Some(oss) = found {
                return Err(StoreError::BadInput(format!(
                    "{} is inside {}, an OSS directory of an exaraid store (it holds {}): exaraid owns everything in an OSS directory, so pick a directory outside it",
                    d.display(),
                    oss.display(),
                    crate::backend::LABEL_FILE
                )));
            }
        }
        // Checked before anything is made (a refusal changes nothing), and again under the
        // lock, where the answer cannot change (another init may have run meanwhile).
        init_checks(dir, opts)?;
        std::fs::create_dir_all(dir)
            .map_err(|err| StoreError::from_io(err, &format!("creating {}", dir.display())))?;
        let dir = dir
            .canonicalize()
            .map_err(|err| StoreError::Io(format!("{}: {err}", dir.display())))?;
        // The store's lock, held until the superblock is saved. Why (review s11r R11-2): two
        // inits of one directory at once both passed the checks; the later wrote an empty
        // state over the store the other had made, after a put into it was acknowledged.
        let lock = lock_dir(&dir).map_err(|err| match err {
            StoreError::Busy(_) => StoreError::Busy(format!(
                "{} is in use by another exaraid process (another `init` of it, or a command on the store it holds): wait until that one ends and retry; if it was an init, the store it made is there to use",
                dir.display()
            )),
            other => other,
        })?;
        let unfinished = init_checks(&dir, opts)?;
        let marker_path = dir.join(INIT_MARKER_FILE);
        // The unfinished init's id, kept: a kill during this init leaves only labels of it.
        let store_id = match unfinished {
            Some(m) => {
                for d in &opts.oss_dirs {
                    clear_half_made_oss_dir(d)?;
                }
                m.store_id
            }
            None => {
                let marker = InitMarker {
                    store_id: random_id(),
                };
                write_checked(&marker_path, "init-marker", &marker)?;
                marker.store_id
            }
        };
        crate::torture::kill_point(crate::torture::INIT_STEP);
        let mut oss_dirs = Vec::with_capacity(n);
        for (index, d) in opts.oss_dirs.iter().enumerate() {
            let label = OssLabel {
                store_id: store_id.clone(),
                index,
                element_bytes: e,
                block_crc_seed: opts.block_crc_seed,
                settings: Some(Superblock::settings_text(
                    &StoredCode::from_spec(opts.code),
                    opts.write_path,
                    n,
                )),
            };
            DirBackend::create(d, &label, opts.oss_capacity_bytes)?;
            crate::torture::kill_point(crate::torture::INIT_STEP);
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
            block_crc_seed: opts.block_crc_seed,
            oss_dirs_relative: opts.oss_dirs_relative,
        };
        let state = State {
            ops: vec![OssOps::default(); n],
            unplanned: vec![UnplannedReads::default(); n],
            ..State::default()
        };
        write_checked(&dir.join(STATE_FILE), "state", &state)?;
        let _ = std::fs::remove_file(dir.join(JOURNAL_FILE));
        crate::torture::kill_point(crate::torture::INIT_STEP);
        // The superblock last: its presence is what makes the directory a store.
        sb.save(&dir)?;
        // A marker left by a kill here is harmless: init refuses a directory with a
        // superblock before it looks at the marker.
        match std::fs::remove_file(&marker_path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(StoreError::from_io(err, "removing the init marker"))
            }
            _ => {}
        }
        // `open` takes the lock itself (flock conflicts within one process too). An init that
        // takes it in between finds the superblock and refuses.
        drop(lock);
        Store::open(&dir)
    }

    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(dir, OpenOptions::default())
    }

    /// Open a store, replay its journal and recover from an interrupted run if needed.
    pub fn open_with(dir: &Path, options: OpenOptions) -> Result<Store, StoreError> {
        Store::open_inner(dir, options, None, OpenFor::Use)
    }

    /// Open only to look: where recovery must run but more OSSs are unavailable than the
    /// code tolerates (so `open` refuses, waiting for them: a missing mount is the likely
    /// cause), the store opens without recovering, refuses every operation, and `status`
    /// lists each OSS's health and says why (`Status::recovery_pending`). Why: `status` is
    /// the command that tells which OSSs are missing; it failed in just that case.
    pub fn open_for_status(dir: &Path) -> Result<Store, StoreError> {
        Store::open_inner(dir, OpenOptions::default(), None, OpenFor::Status)
    }

    /// Open for `repair_label` only: where crash recovery is due but cannot run (an OSS not
    /// answering and not failed on record, or more than the code tolerates), the store opens
    /// without recovering, as for `open_for_status`, and only `repair_label` runs on it;
    /// recovery waits for the next open. Why (merge review s17m M17-2): recovery refuses while
    /// an OSS does not answer, and an OSS whose label is damaged does not answer until
    /// `repair_label` rewrites it, which needed an open that recovered first: a loop, the
    /// refusal naming `repair-label` as the way out. The label's rewrite needs no recovery:
    /// it checks that OSS's written blocks and writes one file in its directory.
    pub fn open_for_label_repair(dir: &Path) -> Result<Store, StoreError> {
        Store::open_inner(dir, OpenOptions::default(), None, OpenFor::LabelRepair)
    }

    /// Open a store whose OSSs are the caller's backends (for example clients of remote OSS
    /// daemons), one per OSS in the superblock's order, instead of the superblock's OSS
    /// directories. The store's metadata (superblock, state, journal, lock) stays in `dir`.
    /// Each backend must hold what that OSS holds (the same elements under the same keys).
    /// `rebuild` needs OSS directories, so it is refused on such a store.
    pub fn open_with_backends(
        dir: &Path,
        options: OpenOptions,
        backends: Vec<Box<dyn Backend>>,
    ) -> Result<Store, StoreError> {
        Store::open_inner(dir, options, Some(backends), OpenFor::Use)
    }

    fn open_inner(
        dir: &Path,
        options: OpenOptions,
        supplied: Option<Vec<Box<dyn Backend>>>,
        open_for: OpenFor,
    ) -> Result<Store, StoreError> {
        // Backends the caller supplied are gone with the first try's store: no second try.
        let may_reopen = supplied.is_none();
        let mut timeout_met_lost_bytes = false;
        match Store::open_once(
            dir,
            options.clone(),
            supplied,
            open_for,
            &mut timeout_met_lost_bytes,
        ) {
            // A due window timeout whose parity plan met window bytes it could not read
            // (their only copy rotten: no parity yet) failed half way, and the open with
            // it, whatever the command was for (review s18r R18-3 (a): a read of another
            // file was refused with the window file's error; the next command worked). The
            // reopen's recovery settles: the unreadable bytes go on record lost under the
            // window's token (status lists them, reads name them, the window's END fails
            // naming them) and every other byte gets its parity; then the command goes on.
            Err(e) if may_reopen && timeout_met_lost_bytes => {
                let store = Store::open_once(dir, options, None, open_for, &mut false)?;
                let lost = store.window_bytes_unreadable_on_record();
                let warning = if lost.is_empty() {
                    format!(
                        "a delayed window's due timeout could not compute its parity ({e}); the store reopened and recovered, and this command went on"
                    )
                } else {
                    format!(
                        "a delayed window's due timeout met window bytes whose only copy (in the cache zone, without parity yet) could not be read, and failed; the store reopened and recovered, and this command went on. Window bytes on record lost so (reads of them fail, `exaraid store status` lists them, their window's `delayed end` fails naming them): {}; every other byte has its parity. Write the lost bytes again",
                        named_at_most(&lost, WARNING_RANGES_NAMED_MAX)
                    )
                };
                store.deferred_warnings.lock().push(warning);
                Ok(store)
            }
            r => r,
        }
    }

    /// `open_inner`, once; `timeout_met_lost_bytes` is set when it failed because a due
    /// window timeout met window bytes it could not read (see `upkeep_at_open`).
    fn open_once(
        dir: &Path,
        options: OpenOptions,
        supplied: Option<Vec<Box<dyn Backend>>>,
        open_for: OpenFor,
        timeout_met_lost_bytes: &mut bool,
    ) -> Result<Store, StoreError> {
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
        let backends_supplied = supplied.is_some();
        let mut backends: Vec<Box<dyn Backend>> = Vec::with_capacity(n);
        let mut hard_linked;
        if let Some(supplied) = supplied {
            if supplied.len() != n {
                return Err(StoreError::BadInput(format!(
                    "{} backends were given but the store has {n} OSSs: give one backend per OSS, in the superblock's order",
                    supplied.len()
                )));
            }
            for (index, b) in supplied.iter().enumerate() {
                if b.element_bytes() != sb.element_bytes {
                    return Err(StoreError::BadInput(format!(
                        "backend {index} ({}) has {} byte elements but the store's stripe unit is {} bytes",
                        b.location(),
                        b.element_bytes(),
                        sb.element_bytes
                    )));
                }
            }
            backends = supplied;
            hard_linked = Store::hard_linked_cause(dir, &[]);
        } else {
            let mut opened: Vec<DirBackend> = Vec::with_capacity(n);
            for (index, d) in sb.oss_dirs.iter().enumerate() {
                let label = sb.oss_label(index);
                opened.push(DirBackend::open(d, &label, sb.oss_capacity_bytes)?);
            }
            Store::refuse_superblock_against_labels(&opened)?;
            hard_linked = Store::hard_linked_cause(dir, &opened);
            backends.extend(opened.into_iter().map(|b| Box::new(b) as Box<dyn Backend>));
            Store::refuse_shared_oss_dirs(dir, &sb)?;
        }
        let (mut state, mut state_file_version): (State, u32) =
            read_checked_version(&dir.join(STATE_FILE), "state")?;
        // Before the journal's replay: its `Durable`s put no piece in either (tests only).
        state.cache_witness_held_at_bound = options.cache_witness_held_at_bound;
        // Each file's written runs as checkpointed, before the journal's writes: with the
        // writes that are not cut by the crash, what was written before the cut ones. A
        // replayed `PlannerReset` adds the runs as of it (below).
        let mut checkpointed_runs: HashMap<u64, Vec<(u64, u64)>> = state
            .files
            .values()
            .map(|m| (m.id, m.written_runs()))
            .collect();
        let mut metadata_read_only = metadata_dir_read_only(dir)
            .or_else(|| metadata_files_read_only(dir))
            .map(|cause| ReadsOnly::metadata_read_only(&cause))
            .or_else(|| {
                hard_linked.take().map(|cause| ReadsOnly {
                    kind: ReadsOnlyKind::HardLinked,
                    cause,
                })
            });
        let journal_path = dir.join(JOURNAL_FILE);
        if !journal_path.exists() {
            // Before `Journal::open` creates it empty: a refusal then changes nothing.
            let checked = Store::refuse_older_metadata(dir, &backends, &state, None)?;
            Store::take_beyond_lineage_out(dir, (&backends, &state), &checked, &layout)?;
            if let Some(why) = metadata_read_only
                .as_ref()
                .filter(|why| why.kind == ReadsOnlyKind::HardLinked)
            {
                return Err(StoreError::Metadata(format!(
                    "{}: the store's journal {} is missing, and {}; an open needs the journal (it would start an empty one, a change), so nothing was read or changed. {}",
                    dir.display(),
                    journal_path.display(),
                    why.cause,
                    hard_linked_way_out(dir)
                )));
            }
            if let Some(ReadsOnly { cause, .. }) = &metadata_read_only {
                return Err(StoreError::Metadata(format!(
                    "{}: the store's journal {} is missing, and its metadata directory refuses writes ({cause}), so the empty journal an open starts cannot be created; nothing was read or changed. Make the metadata writable for this user (remount a read-only file system read-write, for example `mount -o remount,rw` of it; or fix the permissions or clear an append-only or immutable attribute of the files named, `lsattr`, `chattr -a -i`) and retry: the open checks the state against the OSS directories first. (If the journal was deleted, acknowledged writes since the last checkpoint may be gone: the open then refuses, saying so)",
                    dir.display(),
                    journal_path.display()
                )));
            }
        }
        // The torn tail stays in the file until the metadata is checked against the OSSs
        // (below): an open refused there changes nothing.
        let (mut journal, records) = match &metadata_read_only {
            Some(_) => Journal::<Rec>::open_read_only(&journal_path)?,
            None => Journal::<Rec>::open_keeping_tail(&journal_path)?,
        };
        let mut journal_tail_cut = journal.tail_cut();
        journal.advance_to(state.last_seq + 1);
        let cut_record = cut_durable::CutRecord::of(&journal);
        // Files created since the planner's last reset: every write to each of them is
        // among the planner's inputs (`recovery::cut_writes_only_files`).
        let mut created_since_reset: BTreeSet<u64> = BTreeSet::new();
        let mut online_finished_at_open: BTreeSet<usize> = BTreeSet::new();
        for (seq, rec) in &records {
            if *seq > state.last_seq {
                state.apply(*seq, rec);
                match rec {
                    Rec::Create { id, .. } => {
                        created_since_reset.insert(*id);
                    }
                    Rec::Online { oss } => {
                        online_finished_at_open.insert(*oss);
                    }
                    Rec::PlannerReset => {
                        created_since_reset.clear();
                        // The reset drops the inputs before it, acknowledged writes among
                        // them: their runs count as written before any later cut write,
                        // as a checkpoint's would (`recovery::cut_only_ranges`). Why: a
                        // kill between a reset and its checkpoint left them in neither, so
                        // a later cut write over them took them for never written, and
                        // recovery laid zeros over acknowledged bytes home could not tell.
                        for m in state.files.values() {
                            let runs = checkpointed_runs.entry(m.id).or_default();
                            for (a, z) in m.written_runs() {
                                crate::state::add_range(runs, a, z);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        state.ops.resize(n, OssOps::default());
        state.unplanned.resize(n, UnplannedReads::default());
        // Before anything is written: a refusal changes nothing.
        tail_cut_repair::refuse_damaged_tail_cut_repairs(
            dir,
            &state.tail_cut_repairs,
            layout.geometry(),
            sb.element_bytes,
        )?;
        let cut_tail = journal.tail_bytes().map(|b| (b, journal.next_seq()));
        let checked = Store::refuse_older_metadata(dir, &backends, &state, cut_tail)?;
        // Before anything is written (the mend below): a refusal changes nothing.
        Store::take_beyond_lineage_out(dir, (&backends, &state), &checked, &layout)?;
        Store::refuse_journal_behind_marks(
            dir,
            &backends,
            &state,
            journal.next_seq() - 1,
            journal.tail_cut().is_some(),
        )?;
        let mut bump_mended = None;
        if let Some((seq, rec)) = checked.recovered {
            // The cut tail was this epoch's bump record, damaged after its fsync (the OSSs
            // were told it only then): its effect, which the OSS vouches for, is applied as
            // if it had been read, so the next bump goes past the epoch that OSS holds.
            state.apply(seq, &rec);
            bump_mended = Store::mend_bump_tail(&mut journal, seq, &rec, dir)?;
            journal.advance_to(seq + 1);
            if bump_mended.is_some() {
                journal_tail_cut = None;
            }
        }
        // The torn tail stays in the file until `cut_tail_finishing` below cuts it with the
        // open's decisions written in its place; a damaged epoch bump was rewritten in
        // place above.
        crate::torture::kill_point(crate::torture::JOURNAL_TAIL);
        Store::refuse_rolled_back(&backends, &state);
        for &i in &state.failed_oss {
            if i < n {
                backends[i].set_failed(true);
            }
        }
        let config = StrategyConfig {
            window_timeout_ns: sb.window_timeout_ms.saturating_mul(1_000_000),
            ..StrategyConfig::default()
        };
        // Deletions the cut record allowed may have run (an older binary's journal): on
        // record before the replay, written with the decision below (also when the
        // metadata refuses writes: then in memory only, as that decision; s13m P4).
        // The same for metadata opened after every OSS's epoch file was removed (the escape
        // hatch of `refuse_older_metadata`, review s14r R14-2): removals the metadata does
        // not know of deleted objects it calls written. Their bytes are recorded lost,
        // durably before the first epoch bump tells the OSSs an epoch again (after which
        // no open could tell).
        // Older metadata first, whatever its tail (s14m F3): a newer metadata's removal
        // or settle explains a deleted object or cache zone as well as the cut record
        // does, so no settle is rolled forward on the cut record's word, and the losses
        // are named as removed since (they were worded as the cut record's).
        let older_metadata =
            !backends_supplied && cut_deletions::epoch_files_removed(&backends, &state);
        // The refusal's way out taken (every epoch file removed): the home witness may hold
        // crcs of bytes the OSSs have since overwritten in place (acknowledged by the newer
        // metadata that is gone), which would read LOST as lost writes (review r44b
        // MEDIUM-1). None is trusted, from before anything reads; the checkpoint at the end
        // of this open keeps it so (the epoch files this open writes hide the way out from
        // the next open). The cache witness stays: a cache slot the newer metadata reused
        // holds another write's bytes, maybe another file's, which the older metadata's
        // planner would read as its own (a LOST there is right, not a false positive).
        let witness_untrusted = older_metadata
            && cut_deletions::epoch_files_taken_away(&backends, &state)
            && !(state.home_witness.is_empty()
                && state.home_witness_pending.is_empty()
                && state.home_witness_displaced.is_empty());
        if witness_untrusted {
            // The pieces a cut write displaced (s46a) too: the open's decision would
            // otherwise give them back after the settle, and a block the newer metadata
            // overwrote in place would read LOST.
            state.home_witness.clear();
            state.home_witness_pending.clear();
            state.home_witness_displaced.clear();
        }
        let deletions_token = match journal_tail_cut {
            _ if older_metadata => Some(cut_deletions::OBJECTS_REMOVED_SINCE),
            Some(_) => Some(cut_deletions::OBJECTS_DELETED),
            None => None,
        };
        let deletion_recs = match deletions_token {
            Some(token) => {
                let first = journal.next_seq();
                let b = &backends;
                let (s, seq) = (&mut state, (first, token));
                cut_deletions::cut_deletion_records(b, &layout, kind, config, s, seq)?
            }
            None => Vec::new(),
        };
        let (mut strategy, plans) = replay(kind, &layout, config, &state.inputs)?;
        // The torn tail is cut here, with the open's decision of what it may have stood for
        // (review s12r R12-1: a cut cached write's acknowledgement; not when an epoch bump
        // took the cut record's place) and the cut itself on record (`Rec::JournalTailCut`:
        // warned until a scrub) written in its place, all or nothing.
        let cut = cut_record.filter(|c| c.seq == journal.next_seq());
        let finishing = cut_durable::cut_tail_finishing(
            (cut.as_ref(), journal_tail_cut),
            (&backends, &layout),
            (
                &mut state,
                &mut journal,
                (&dir.join(STATE_FILE), &mut state_file_version),
            ),
            (&plans, deletion_recs.clone()),
            (metadata_read_only.is_none(), options.fsync),
        );
        match finishing {
            Ok(_) => {}
            // The journal's replacement could not be written on a full metadata disk (see
            // `cut_tail_writing`: all or nothing, so the journal and `state` are as they
            // were, the tail still in the file). Before session 15 the open failed here,
            // reads too (note14 item 6). The same decision is applied in memory only, as
            // for a metadata directory that refuses writes, and the store is open for reads
            // only: nothing this process does may be journaled after a tail the journal
            // still holds. The next open with room decides again from the same journal and
            // the same OSS contents (nothing here writes them), so reads now return what it
            // will decide. Only the replacement's write: a record appended after a tail
            // already gone (`!tail_in_file`) is not all or nothing, so it fails as before.
            Err(StoreError::NoSpace(why)) if journal_tail_cut.is_some() => {
                let decided = cut_durable::cut_tail_finishing(
                    (cut.as_ref(), journal_tail_cut),
                    (&backends, &layout),
                    (
                        &mut state,
                        &mut journal,
                        (&dir.join(STATE_FILE), &mut state_file_version),
                    ),
                    (&plans, deletion_recs),
                    (false, options.fsync),
                )?;
                metadata_read_only = Some(ReadsOnly {
                    kind: ReadsOnlyKind::TailDecisionUnwritten,
                    cause: cut_durable::unwritten_decision_cause(
                        cut.as_ref(),
                        journal_tail_cut,
                        &decided,
                        &why,
                    ),
                });
            }
            // The journal's replacement could not be written (see `cut_tail_writing`): no
            // OSS is at fault, and nothing changed (item 7 of the session-13 note: this
            // was a plain I/O error, no word of the metadata disk).
            Err(StoreError::NoSpace(why)) => {
                return Err(StoreError::NoSpace(format!(
                    "the store's metadata disk is full: this open must first journal what it decided about the journal's cut last record, and could not ({why}); nothing was changed, the journal keeps that record and the next open decides again. Free space on the file system holding {} (its journal and state, room for a copy of the journal), then retry",
                    dir.display()
                )))
            }
            Err(e) => return Err(e),
        }
        let undurable: Vec<(usize, IoPlan)> = plans
            .iter()
            .filter(|(_, p)| !state.durable.contains(&p.id))
            .cloned()
            .collect();
        // Per interrupted plan, its stripes that a later plan (in stripe-lock order, which is
        // planning order) made durable: its writes there returned and were synced before that
        // plan began (a plan leaves its stripes only after its own OSS syncs, session 30
        // s30b; and no plan runs after one that failed: `run_plans_from`), so they are on
        // disk, not in flight. Built once: the planner's `forget_writes` and recovery both
        // take it. Why (review h, copy gap): that later plan's `Durable` record drops the
        // interrupted plan's failed-column copies of the stripe; taken as in flight without
        // them, the failed OSS's bytes at its offsets read as lost after the crash.
        let later_stripes = LaterDurableStripes::of(&plans, &state.durable);
        let finished_by_later: HashMap<PlanId, BTreeSet<(u64, u64)>> = undurable
            .iter()
            .map(|(_, cut)| (cut.id, later_stripes.finished(cut)))
            .collect();
        // Per interrupted plan and stripe a later durable plan took, the OSSs such plans
        // synced: a journal of a binary before session 30 (s30b) may hold a power cut that
        // dropped the interrupted plan's writes on the others (review s30r R30-2), which
        // recovery proves by its crcs (`restore_dropped_cut_cache_blocks`).
        let later_synced: HashMap<PlanId, BTreeMap<(u64, u64), BTreeSet<usize>>> = undurable
            .iter()
            .map(|(_, cut)| {
                let by_stripe = (finished_by_later[&cut.id].iter())
                    .map(|&s| (s, later_stripes.synced_osses(cut, s)))
                    .collect();
                (cut.id, by_stripe)
            })
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
                // Completions journaled after the first interrupted input are of plans made
                // before it (every later plan is interrupted: no completion): tell the
                // planner, in order; the plans they release are not run (the settle moves
                // every cached byte home itself). Why: dropping them left a completed WCL
                // destage in flight in the planner, which then named its cache stripe for
                // bytes already home, while the store (which learns completions from every
                // journaled input) had forgotten that cache stripe; with its OSS failed the
                // bytes could not be decoded and acknowledged bytes read as lost (found with
                // `crash_writer sweep DIR 30 raid6 5 wcl prefail=2`, beside review H6).
                let made_before: BTreeSet<PlanId> = plans
                    .iter()
                    .filter(|(i, _)| *i < first)
                    .map(|(_, p)| p.id)
                    .collect();
                for input in &state.inputs[first..] {
                    match input {
                        Input::Complete { plan } if made_before.contains(plan) => {
                            strategy.on_complete(*plan).map_err(plan_err)?;
                        }
                        // A staging file dropped after them (none is dropped while a plan
                        // is in flight, so this does not happen today). Refused here, its
                        // cached bytes stay known and the settle moves them home: as safe.
                        Input::Forget { file } => {
                            let _refused_is_safe = strategy.forget_file(*file);
                        }
                        _ => {}
                    }
                }
            } else {
                // Concurrent writers: a plan cut by the crash, then a later one that finished
                // (its input came after). The planner state must keep the later one, but the
                // cut write's cache slot may hold zeros or stale bytes of an older cache
                // stripe (review h, H1): its ranges read from what held them before it.
                // Not where a later durable plan took the stripe: the cut plan's writes there
                // are on disk (`finished_by_later`), and that plan's running parity counts
                // them (review s29r R29-1: forgotten, the later write's acknowledged bytes
                // were recorded LOST after a crash alone). A delayed window keeps them only
                // where later plans also synced every OSS they are on
                // (`LaterDurableStripes::synced`): the rule of session 29, from before a plan
                // held its stripes across its sync, kept for journals an older binary wrote
                // (a delayed cache has no parity to catch a block a power cut dropped).
                let cut: exaraid_plan::CutWrites = undurable
                    .iter()
                    .map(|(_, p)| {
                        let whole = match kind {
                            StrategyKind::Wcl => finished_by_later[&p.id].clone(),
                            _ => later_stripes.synced(p, &finished_by_later[&p.id]),
                        };
                        (p.id, plan_stripes(p).difference(&whole).copied().collect())
                    })
                    .collect();
                strategy.forget_writes(&cut);
            }
        }
        let input_of: HashMap<PlanId, usize> = undurable.iter().map(|(i, p)| (p.id, *i)).collect();
        let cut_only = recovery::cut_only_ranges(&state, &plans, &checkpointed_runs);
        let cut_writes_only = recovery::cut_writes_only_files(&state, &plans, &created_since_reset);
        let undurable: Vec<IoPlan> = undurable.into_iter().map(|(_, p)| p).collect();
        let replayed: Vec<IoPlan> = plans.into_iter().map(|(_, p)| p).collect();
        let journal_file = journal.sync_handle()?;
        // Checked by `refuse_older_metadata` above; one small read more per OSS and open.
        let epochs_held: Vec<Option<MetadataEpoch>> = backends
            .iter()
            .map(|b| match b.healthy() {
                true => b.metadata_epoch().ok().flatten(),
                false => None,
            })
            .collect();
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
                moved_home: BTreeMap::new(),
                ending_windows: BTreeMap::new(),
                state_file_version,
                move_edge_copies: BTreeMap::new(),
                window_parity_unheard: BTreeMap::new(),
                epoch_due: true,
                epoch_bumped: false,
                epoch_number_cut: journal_tail_cut.is_some(),
                home_witness_clear_unjournaled: witness_untrusted,
                checkpoint_truncation_failed: None,
                epochs_held,
                file_ids_checked: false,
                writes_in_flight: BTreeMap::new(),
                displaced_home_pieces: BTreeMap::new(),
                write_in_flight_next: 0,
                lost_recorded: None,
            }),
            done: Mutex::new(HashSet::new()),
            done_cv: Condvar::new(),
            locks: Arc::new(StripeLocks::default()),
            gate: parking_lot::RwLock::new(()),
            failure_gate: parking_lot::RwLock::new(()),
            cache_chunks: Mutex::new(HashMap::new()),
            cache_stripes: Mutex::new(exec::CacheStripes::default()),
            background: Mutex::new(VecDeque::new()),
            background_cv: Condvar::new(),
            background_served: AtomicBool::new(false),
            background_refused: Mutex::new(None),
            destage_defer_max_bytes: options.destage_defer_max_bytes,
            client_plans_executing: AtomicUsize::new(0),
            plans_waiting: AtomicUsize::new(0),
            exclusive_waiting: AtomicUsize::new(0),
            advance_requested: AtomicBool::new(false),
            advances: Mutex::new(0),
            advance_cv: Condvar::new(),
            device_units: (0..n)
                .map(|_| {
                    let units = options.emulate.as_ref().map_or(0, |e| e.parallel_units());
                    Mutex::new(vec![std::time::Instant::now(); units.max(1)])
                })
                .collect(),
            emulate: options.emulate.clone(),
            ops: Mutex::new(vec![OssOps::default(); n]),
            unplanned: Mutex::new(vec![UnplannedReads::default(); n]),
            plan_counts: Mutex::new(vec![OpCounts::default(); n]),
            fsync: options.fsync,
            journal_file,
            journal_appended_seq: AtomicU64::new(0),
            group_commit: Mutex::new(exec::GroupCommit::default()),
            group_commit_cv: Condvar::new(),
            poisoned: AtomicBool::new(false),
            recovery_waits: AtomicBool::new(false),
            reads_only: Mutex::new(None),
            reads_only_cut_stripes: Mutex::new(BTreeSet::new()),
            reads_only_cut_names: Mutex::new(BTreeSet::new()),
            metadata_read_only,
            puts_in_progress: Mutex::new(HashSet::new()),
            put_done_cv: Condvar::new(),
            absorbed_failures: Mutex::new(BTreeSet::new()),
            online_finished_at_open,
            failed_before_recovery: Mutex::new(Vec::new()),
            deferred_warnings: Mutex::new(Vec::new()),
            rebuild_left_lost_bytes: AtomicU64::new(0),
            online_left_lost_bytes: AtomicU64::new(0),
            file_bytes_max_before_session_6: options.file_bytes_max_before_session_6,
            _lock_file: lock_file,
            backends,
            backends_supplied,
            sb,
        };
        if let Some(note) = bump_mended {
            store.deferred_warnings.lock().push(note);
        }
        {
            // A cut tail may have been an epoch bump told to OSSs missing now: the bump past
            // its number (`Core::epoch_number_cut`) is due at once. Until s14a it rode on
            // the journaled `JournalTailCut`; in the cut write, this open journals nothing,
            // and such an OSS, back later, was ahead of the record ("older metadata").
            let mut core = store.core.lock();
            if core.epoch_number_cut && store.metadata_read_only.is_none() {
                match store.bump_epoch(&mut core) {
                    Ok(()) => {}
                    // A full metadata disk that took the cut tail's decision and refuses the
                    // bump after it: the bump stays due (`epoch_due`, `epoch_number_cut`:
                    // nothing was appended), so every record this process journals bumps
                    // first and is refused with it while the disk is full; an open that
                    // journals nothing is as one whose metadata refuses writes, which skips
                    // the bump. Why not fail: every command failed, `get` and `ls` too,
                    // while the metadata disk was full (session 19 leftover).
                    Err(e @ StoreError::NoSpace(_)) => {
                        store.deferred_warnings.lock().push(format!(
                            "this open cut the journal's damaged last record and could not journal the new metadata epoch it owes after it ({e}); reads work and nothing is lost, but every change journals that epoch first and is refused, nothing done, while the disk is full. Free space on the file system holding {} (its journal and state): the next change or open journals it",
                            store.dir.display()
                        ));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        {
            // The cache stripes of plans a crash cut before they began are not learnt: a
            // destage waiting for a cut write named its cache stripe complete (every byte
            // written, so decoded whole) when the write that completes it never ran, and a
            // degraded read of it then met a running parity that disagrees (acknowledged
            // bytes read as lost; `crash_writer sweep DIR 30 raid6 5 wcl prefail=2`).
            let core = store.core.lock();
            let undurable_ids: BTreeSet<PlanId> = undurable.iter().map(|p| p.id).collect();
            let queued_behind = recovery::queued_behind_unrun(&undurable);
            let ids = (&undurable_ids, &queued_behind);
            let began: Vec<IoPlan> = replayed
                .into_iter()
                .filter(|p| {
                    !undurable_ids.contains(&p.id) || !store.never_began(&core, p, &input_of, ids)
                })
                .collect();
            drop(core);
            store.learn_replayed(&began);
        }
        if let Some(why) = &store.metadata_read_only {
            // Reads only, from the planner's view as replayed: nothing below may run, each
            // writes the journal (recovery, restarted windows, timers, removals).
            let settling = store.core.lock().state.settling.is_some();
            let cause = &why.cause;
            let recovery_due = !undurable.is_empty() || settling;
            if recovery_due && why.kind == ReadsOnlyKind::TailDecisionUnwritten {
                // Recovery (which journals) decides the cut writes' stripes: until it runs,
                // no read of them is served, and every other stripe reads as the plans
                // before the crash left it, as when recovery could not finish (below,
                // s4e E6). Not with an OSS failed or missing: recovery would first record
                // window bytes lost with it, or wait for it, and reads here would not know.
                let down = store.unavailable_set(&store.core.lock());
                if !down.is_empty() {
                    return Err(StoreError::NoSpace(format!(
                        "{cause}; and the store needs crash recovery (a write or settle was cut) with OSS {down:?} failed or missing, which writes its metadata too, so nothing can be read until it runs; nothing was read or changed. Free space on the file system holding {} (its journal and state, and room for a copy of the journal), then retry: the next open decides the cut record and recovers",
                        dir.display()
                    )));
                }
                *store.reads_only_cut_stripes.lock() =
                    store.recovery_decides(&undurable, &cut_only);
                *store.reads_only_cut_names.lock() = cut_writes_only.clone();
            } else if recovery_due && why.kind == ReadsOnlyKind::HardLinked {
                return Err(StoreError::Io(format!(
                    "the store needs crash recovery (a write or settle was cut), which writes its journal and OSS files, and {cause}; nothing was read or changed. {}",
                    hard_linked_way_out(dir)
                )));
            } else if recovery_due {
                return Err(StoreError::Io(format!(
                    "the store needs crash recovery (a write or settle was cut), which writes its metadata, but its metadata directory {} refuses writes ({cause}); nothing was read or changed. Make it writable for this user (remount a read-only file system read-write, for example `mount -o remount,rw` of it; or fix the permissions or clear an append-only or immutable attribute of the files named, `lsattr`, `chattr -a -i`) and retry: the next open recovers",
                    dir.display()
                )));
            }
            if why.kind == ReadsOnlyKind::TailDecisionUnwritten {
                // Durable plans whose completion the planner never heard (a cut write this
                // open finished; a crash between the two records): told, not journaled, as
                // the writable open's journaled `Complete` would, so reads see what it will
                // (as for R11-4 below). The plans they release are not run.
                let mut core = store.core.lock();
                let unheard = store.durable_unheard(&core);
                for &p in &unheard {
                    core.strategy.on_complete(p).map_err(plan_err)?;
                }
                drop(core);
                store.forget_cache_stripes(&unheard);
            }
            store.poisoned.store(true, Ordering::SeqCst);
            *store.reads_only.lock() = Some(why.clone());
            return Ok(store);
        }
        let more = {
            let mut core = store.core.lock();
            let durable: Vec<PlanId> = core.state.durable.iter().copied().collect();
            store.done.lock().extend(durable.iter().copied());
            // A settle cut by a crash (`SettleBegin` without its end) left torn home writes
            // of its own, even when every plan was durable (a killed flush or close):
            // recovery finishes it before anything reads those stripes.
            if !undurable.is_empty() || core.state.settling.is_some() {
                // Recovery rewrites stripes from what it can read: with more OSSs missing
                // than the code covers it would record their bytes as lost for good, when
                // the likely cause is a missing mount. Wait for them, changing nothing.
                let down = store.unavailable_set(&core);
                if down.len() > store.tolerance() {
                    if open_for != OpenFor::Use {
                        // Nothing recovered, nothing written: every operation refuses
                        // (`check_usable`) and close writes no checkpoint.
                        drop(core);
                        store.poisoned.store(true, Ordering::SeqCst);
                        let label_repair = open_for == OpenFor::LabelRepair;
                        store.recovery_waits.store(label_repair, Ordering::SeqCst);
                        return Ok(store);
                    }
                    return Err(store.too_many_unavailable(&core, &down));
                }
                // One OSS down but not failed on record is waited for too, changing
                // nothing (review s4e E13): recovery would record it failed and decide the
                // stripes the crash cut without its column, and where a cut write's torn
                // blocks use up the rest of the code's tolerance it records that OSS's
                // acknowledged bytes as lost, though they are intact on a mount that comes
                // back. (An interrupted settle's stripes are worse: copies of a column
                // exist only for OSSs failed before the settle.) With the mount back, or
                // the OSS failed on record by the operator, the next open recovers.
                // The operator said the disk is gone (`store fail`): on record first, so
                // recovery decides without it. (Even when another OSS is waited for below:
                // two disks gone take two `fail` commands, one OSS each.)
                let mut recorded: Vec<usize> = Vec::new();
                let damaged = options
                    .fail_damaged_osses_before_recovery
                    .iter()
                    .copied()
                    .filter(|&oss| {
                        oss < store.backends.len() && store.backends[oss].problem().is_some()
                    });
                for oss in options
                    .fail_down_osses_before_recovery
                    .iter()
                    .copied()
                    .chain(damaged)
                {
                    match store.fail_down_oss_before_recovery(&mut core, oss) {
                        Ok(true) => recorded.push(oss),
                        Ok(false) => {}
                        Err(e) => return Err(store.fail_before_recovery_refused(oss, &recorded, e)),
                    }
                }
                store.failed_before_recovery.lock().clone_from(&recorded);
                let merely_down: BTreeSet<usize> = down
                    .iter()
                    .copied()
                    .filter(|i| !core.state.failed_oss.contains(i))
                    .collect();
                if !merely_down.is_empty() {
                    if open_for != OpenFor::Use {
                        // As past the tolerance above: nothing recovered or written. Also
                        // for `status`, which says what recovery waits for (`status`): the
                        // open's refusal refused `status` too, the one command that tells
                        // the user what is wrong (session 23, s23b).
                        assert!(recorded.is_empty(), "a label repair or status fails no OSS");
                        drop(core);
                        store.poisoned.store(true, Ordering::SeqCst);
                        store.recovery_waits.store(true, Ordering::SeqCst);
                        return Ok(store);
                    }
                    return Err(store.down_at_recovery(&merely_down, &recorded));
                }
                // Durable plans whose completion the planner never heard (a crash between
                // the two records): tell it first, unjournaled (the settle resets the
                // planner; a crash inside it decides the same way again). Why: a delayed
                // window's END parity plan durable without its `Complete` input left the
                // window's bytes listed as unprotected, so the settle did not lay them over
                // home as the data that parity covers, and with a failed OSS it could not
                // decode that OSS's data beside them (review H5: acknowledged bytes lost
                // with one failure on raid6). The plans it releases are not run: the settle
                // moves every cached byte home itself.
                let durable_unheard = store.durable_unheard(&core);
                for p in durable_unheard {
                    core.strategy.on_complete(p).map_err(plan_err)?;
                }
                // The stripes recovery decides, should it not finish (below): those of the
                // cut plans, and of bytes only cut writes wrote (their planner view names
                // slots those writes may never have reached).
                let cut_stripes = store.recovery_decides(&undurable, &cut_only);
                // Recovery settles (forgetting the planner's view): window bytes lost with a
                // failed OSS go on record first, and settle skips them. Refused (a full
                // metadata disk: its first record, or the epoch bump before it), nothing
                // was decided or written yet: as a recovery that could not finish, below.
                // Why (session 19 leftover): the refusal failed the open, `get` and `ls` of
                // untouched files too, while the disk was full. The bytes it would record
                // lost are still the planner's, on the failed OSS only: a read of them is
                // refused (their only copy is unreadable), never served.
                // The stale blocks under the home witness pieces the cut writes displaced
                // are rebuilt first (s46a): recovery's settle re-encodes parity from the
                // data, which would take a lost write's stale block for its bytes; the
                // pieces are decided after it, on the bytes it kept.
                let mut proven_stale = home_witness::ProvenStale::new();
                let recovered = (store.record_losses(&mut core))
                    .and_then(|_| {
                        proven_stale = store.rebuild_stale_displaced_blocks(&mut core)?;
                        Ok(())
                    })
                    .and_then(|_| {
                        store.recover(
                            &mut core,
                            &undurable,
                            &input_of,
                            &finished_by_later,
                            &later_synced,
                            cut_only,
                            &cut_writes_only,
                        )
                    })
                    .and_then(|_| store.decide_displaced_home_pieces(&mut core, &proven_stale));
                match recovered {
                    Ok(()) => {}
                    // A settle on record that could not finish: the planner's view
                    // (cached bytes in the cache zone, which a settle never writes) and
                    // home (rewritten with the same bytes outside cached ranges) still
                    // serve every acknowledged byte, except a decode in a stripe the
                    // settle names, where data and parity may be of different versions
                    // (`rebuild_element` refuses those). The stripes of plans a crash cut
                    // need recovery's decisions to read (torn blocks, a write hole, bytes
                    // never acknowledged): no read of them is served (`read_to`). Every
                    // other stripe is as the plans before the crash left it: a cut plan
                    // writes only its own stripes, and the planner's view of the others
                    // does not depend on it. Before session 9 an open with a cut plan
                    // failed here, every open, while the cause lasted (review s4e E6).
                    // Also when recovery broke before its settle began (no `SettleBegin`:
                    // the WCL path decides the cut writes' cache stripes first, and a disk
                    // refusing those writes failed every open, `get` of untouched files
                    // too: review s9s S9-4): what it wrote by then is inside the cut
                    // stripes, which no read is served from, and the next open decides
                    // them again from the start, as after a crash at that point.
                    Err(e)
                        if matches!(
                            e,
                            StoreError::Io(_) | StoreError::NoSpace(_) | StoreError::Backend(_)
                        ) =>
                    {
                        drop(core);
                        store.poisoned.store(true, Ordering::SeqCst);
                        *store.reads_only_cut_stripes.lock() = cut_stripes;
                        *store.reads_only_cut_names.lock() = cut_writes_only;
                        *store.reads_only.lock() = Some(reads_only_cause(&e, &store.dir));
                        return Ok(store);
                    }
                    Err(e) => return Err(e),
                }
                Vec::new()
            } else {
                // Pieces a write that wrote nothing displaced, or left by a kill after the
                // settle that decided its stripes (s46a): decided now. Refused (a full
                // metadata disk), they stay displaced for the next open to decide; on
                // read-only metadata nothing is journaled, so they wait too (review r46a
                // LOW-3: the open failed there).
                if store.metadata_read_only.is_none() {
                    match store.decide_displaced_home_pieces(&mut core, &Default::default()) {
                        Ok(()) | Err(StoreError::NoSpace(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
                match store.journal_open_records(&mut core) {
                    Ok(more) => store.admit(more),
                    // A full metadata disk (review s11r R11-4 for the completions; session
                    // 19 for the windows' records): nothing after the refused record was
                    // appended, so the next open with room does the rest. Meanwhile reads
                    // are right from the planner as the journal has it, and nothing else
                    // may be journaled after a record the journal lacks: reads only (see
                    // `open_for_reads_on_full_metadata`). Before session 19 a refused
                    // window record failed the open, `ls` and `get` too.
                    Err((e @ StoreError::NoSpace(_), cause)) => {
                        store.open_for_reads_on_full_metadata(core, &format!("{cause} ({e})"))?;
                        return Ok(store);
                    }
                    Err((e, _)) => return Err(e),
                }
            }
        };
        store.run_plans(more, None)?;
        store.keep_clock_skew();
        store.upkeep_at_open(timeout_met_lost_bytes)?;
        // A write killed after its bytes were journaled but before its parity advance
        // leaves more unprotected bytes than the bound; nothing else would advance them
        // until the next window write, END, flush or timeout (review s8r R8-2).
        store.keep_unprotected_bound("the store opened and recovered")?;
        store.drop_staging_files()?;
        store.drop_unconfirmed_files(&cut_writes_only)?;
        // Removals a crash cut after their record: their objects go now.
        store.finish_removals_at_open()?;
        store.repair_after_tail_cut();
        store.check_cache_witness_when_degraded();
        if witness_untrusted
            && store.metadata_read_only.is_none()
            && store.reads_only.lock().is_none()
        {
            // Best effort: on a metadata disk too full for a snapshot the journal still
            // replays the witness at the next open, whose reads may then record blocks LOST
            // that the OSSs hold right (never a wrong byte). A reads-only open writes
            // nothing: no epoch file either, so the next open clears the witness again.
            let _ = store.checkpoint();
        }
        Ok(store)
    }

    /// The stripes an open's recovery decides: those of the cut plans, and of bytes only cut
    /// writes wrote (their planner view names slots those writes may never have reached).
    /// Until it has, no read of them is served (`reads_only_cut_stripes`).
    fn recovery_decides(
        &self,
        undurable: &[IoPlan],
        cut_only: &BTreeMap<u64, Vec<(u64, u64)>>,
    ) -> BTreeSet<(u64, u64)> {
        let sdb = self.layout.stripe_data_bytes();
        undurable
            .iter()
            .flat_map(plan_stripes)
            .chain(cut_only.iter().flat_map(|(&file, runs)| {
                runs.iter()
                    .flat_map(move |&(a, z)| (a / sdb..z.div_ceil(sdb)).map(move |s| (file, s)))
            }))
            .collect()
    }

    /// A journal tail cut on record (`Rec::JournalTailCut`), every OSS up and a store of at
    /// most `TAIL_CUT_REPAIR_BYTES_MAX` bytes of stripes: scrub and repair it now, before
    /// any OSS can fail. Why repair and not only check (review R10-5): the cut write's
    /// stripes may keep parity that does not match their data, and one more failed OSS
    /// then decoded wrong bytes through it with exit 0; the parity is re-encoded from the
    /// data there (see `reencode_parity_after_tail_cut`). Clean or repaired whole, the
    /// scrub journals the check and the cut becomes a note at close; else the warning stays
    /// and says what to do, and reads refuse decodes meanwhile. Best effort: a scrub that
    /// fails leaves the warning as it was, with a note saying why.
    fn repair_after_tail_cut(&self) {
        let sdb = self.layout.stripe_data_bytes();
        let stripes_bytes: u64 = {
            let core = self.core.lock();
            if core.state.journal_tail_cuts.is_empty() {
                return;
            }
            if !self.unavailable_set(&core).is_empty() {
                return; // nothing can check a stripe's parity without all its columns
            }
            core.state
                .files
                .values()
                .map(|m| m.size_bytes.div_ceil(sdb).saturating_mul(sdb))
                .fold(0u64, u64::saturating_add)
        };
        if stripes_bytes > TAIL_CUT_REPAIR_BYTES_MAX || self.check_usable().is_err() {
            return;
        }
        let said = "the journal's last record was damaged or torn by a power cut and was cut off when the store opened; the open checked every stripe's parity";
        let note = match self.scrub_as(true, true) {
            Ok(report) if report.journal_tail_cuts_checked > 0 && report.repaired_elements == 0 => {
                format!(
                    "{said} ({} stripes) and it matches: {}",
                    report.stripes_checked,
                    self.parity_check_settles_tail()
                )
            }
            Ok(report) if report.journal_tail_cuts_checked > 0 => format!(
                "{said} ({} stripes) and repaired {} elements: {}",
                report.stripes_checked,
                report.repaired_elements,
                report.stale_repaired.join("; ")
            ),
            Ok(report) => format!(
                "{said} ({} stripes) but could not repair all of it ({}): `exaraid store scrub {}` lists what is left",
                report.stripes_checked,
                report.unrepairable.join("; "),
                self.dir.display()
            ),
            Err(e) => format!("{said}, but that scrub did not finish: {e}"),
        };
        self.deferred_warnings.lock().push(note);
    }

    /// Durable plans whose `Complete` input is not journaled (a crash between the two
    /// records), oldest first: the replayed planner still counts them as running.
    fn durable_unheard(&self, core: &Core) -> Vec<PlanId> {
        let completed: HashSet<PlanId> = core
            .state
            .inputs
            .iter()
            .filter_map(|i| match i {
                Input::Complete { plan } => Some(*plan),
                _ => None,
            })
            .collect();
        let mut unheard: Vec<PlanId> = core
            .state
            .durable
            .iter()
            .copied()
            .filter(|p| !completed.contains(p))
            .collect();
        unheard.sort_unstable();
        unheard
    }

    /// The records a writable open journals first when no recovery is due: windows the
    /// planner's epoch lacks started again (`restart_windows`), completions of durable plans
    /// the planner never heard (a crash between the two records; the plans they release are
    /// returned), then the end of windows a crash left without a token
    /// (`end_unlisted_windows`; their parity plans are returned). A refusal comes with what
    /// was being journaled, in the user's words.
    fn journal_open_records(
        &self,
        core: &mut Core,
    ) -> Result<Vec<IoPlan>, (StoreError, &'static str)> {
        self.restart_windows(core)
            .map_err(|e| (e, RESTART_WINDOWS_CAUSE))?;
        let mut more = Vec::new();
        for p in self.durable_unheard(core) {
            let released = core.strategy.on_complete(p).map_err(plan_err);
            more.extend(released.map_err(|e| (e, METADATA_DISK_FULL_CAUSE))?);
            let complete = Rec::Input(Input::Complete { plan: p });
            self.journal(core, complete, false)
                .map_err(|e| (e, METADATA_DISK_FULL_CAUSE))?;
            self.forget_cache_stripes(&[p]);
        }
        let ended = self.end_unlisted_windows(core);
        more.extend(ended.map_err(|e| (e, END_UNLISTED_WINDOWS_CAUSE))?);
        Ok(more)
    }

    /// An open whose own first records (`journal_open_records`) a full metadata disk
    /// refused goes on for reads only (`ReadsOnlyKind::MetadataDiskFull`), with the planner
    /// as the journal has it (rebuilt from the inputs on record: the refused record told the
    /// next open nothing) and told, unjournaled, of every durable plan's completion, as
    /// recovery does: the plans are durable. The plans they release are not run. Reads are
    /// then what the next open with room serves: an empty window's START or END, which a
    /// restart journals, plans no I/O and moves no byte; a window left unended keeps its
    /// bytes in the cache zone, which reads serve. Why not writable: a write to such a
    /// window's file would be planned by a planner that differs from the next open's (a
    /// timed-out window not closed again takes it unprotected, review s15r R15-1), and a
    /// record after one the journal lacks would be replayed without it.
    fn open_for_reads_on_full_metadata(
        &self,
        mut core: parking_lot::MutexGuard<'_, Core>,
        cause: &str,
    ) -> Result<(), StoreError> {
        core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
        let unheard = self.durable_unheard(&core);
        for &p in &unheard {
            core.strategy.on_complete(p).map_err(plan_err)?;
        }
        self.forget_cache_stripes(&unheard);
        drop(core);
        self.poisoned.store(true, Ordering::SeqCst);
        *self.reads_only.lock() = Some(ReadsOnly {
            kind: ReadsOnlyKind::MetadataDiskFull,
            cause: cause.to_string(),
        });
        Ok(())
    }

    /// Threads waiting for their turn in the stripe queues now (plans and reads): lets a
    /// test see a read wait behind a plan without timing it.
    #[doc(hidden)]
    pub fn stripe_lock_waiters(&self) -> usize {
        self.locks.waiting.load(Ordering::SeqCst)
    }

    /// Plans waiting for earlier plans to be done (`after_plans`) before they run: lets a
    /// test see a plan queued behind a move home without timing it.
    #[doc(hidden)]
    pub fn plans_waiting_for_earlier(&self) -> usize {
        self.plans_waiting.load(Ordering::SeqCst)
    }

    /// Callers waiting for exclusive use of the store now (`flush`, `rm`, a WCL or delayed
    /// scrub's dead cache block pass): lets a test see one wait without timing it.
    #[doc(hidden)]
    pub fn exclusive_waiters(&self) -> usize {
        self.exclusive_waiting.load(Ordering::SeqCst)
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
            if let Some(why) = self.reads_only.lock().as_ref() {
                return Err(StoreError::Io(format!(
                    "the store is open for reads only: {}; this change was refused, nothing was done",
                    reads_only_message(why, &self.dir)
                )));
            }
            return Err(StoreError::Io(
                "an earlier operation failed half way; reopen the store (it recovers on open)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `check_usable` for a read: also served while the store is open for reads only.
    fn check_readable(&self) -> Result<(), StoreError> {
        if self.reads_only.lock().is_some() {
            return Ok(());
        }
        self.check_usable()
    }

    /// The store's time: the wall clock plus the skew on record, never behind the last time
    /// any input carried (see `State::clock_skew_ns`).
    fn now_ns(core: &Core) -> u64 {
        let skewed = unix_now_ns().saturating_add(core.state.clock_skew_ns);
        skewed.max(core.state.last_now_ns)
    }

    /// Where the wall clock (plus the skew on record) is more than `CLOCK_BEHIND_SLACK_NS`
    /// behind the store's time, journal the skew that makes the store's time go on from
    /// there at the wall clock's pace (review s11r R11-5: else it stays still, and so do
    /// window timeouts, until the real clock catches up). Within the slack (clocks of
    /// nodes a little apart, an NTP slew) the store's time waits that little instead of
    /// journaling a record each command. Best effort: a skew that cannot be journaled (a
    /// full metadata disk) leaves the time as before, and the next command tries again.
    fn keep_clock_skew(&self) {
        if self.metadata_read_only.is_some() || self.poisoned.load(Ordering::SeqCst) {
            return;
        }
        let mut core = self.core.lock();
        let wall_ns = unix_now_ns();
        let last_ns = core.state.last_now_ns;
        let skewed_ns = wall_ns.saturating_add(core.state.clock_skew_ns);
        if skewed_ns.saturating_add(CLOCK_BEHIND_SLACK_NS) >= last_ns {
            return;
        }
        let skew_ns = last_ns - wall_ns;
        assert!(skew_ns > core.state.clock_skew_ns, "the skew only grows");
        let _ = self.journal(&mut core, Rec::ClockSkew { skew_ns }, false);
    }

    /// Append `rec` to the journal (durable with `sync`: its fsync takes the journal's
    /// turn, `journal_fsync_turn`, which latches a failure into the group commit and
    /// poisons the store before any other fsync of the journal may start). Why: the kernel
    /// reports a writeback error once per open file, so another fsync of the journal (a
    /// writer's group commit on the shared file) running beside it or after it could
    /// return success over records that never reached the disk and acknowledge them
    /// (merge review of s35o: a timeout's synced tick failing in the background worker, a
    /// writer acknowledged after it, then a power cut; session 35's open item 5: the two
    /// at once).
    fn append_latching(&self, core: &mut Core, rec: &Rec, sync: bool) -> Result<u64, StoreError> {
        if !sync {
            return core.journal.append(rec, false);
        }
        let seq = core.journal.next_seq();
        let appended = core.journal.append_synced_in(rec, &|fsync| {
            // Its write returned (the turn is taken after it): the fsync covers it.
            self.journal_appended_seq.fetch_max(seq, Ordering::SeqCst);
            self.journal_fsync_turn(fsync)
        });
        if appended.is_err() && core.journal.sync_failed().is_some() {
            assert!(
                self.group_commit.lock().failed.is_some(),
                "a failed journal fsync is latched by its turn"
            );
            assert!(
                self.poisoned.load(Ordering::SeqCst),
                "and poisons the store"
            );
        }
        appended
    }

    /// `Journal::sync` in the journal's fsync turn (see `append_latching`).
    fn sync_journal_locked(&self, core: &mut Core) -> Result<(), StoreError> {
        core.journal
            .sync_in(&|fsync| self.journal_fsync_turn(fsync))
    }

    fn journal(&self, core: &mut Core, rec: Rec, sync: bool) -> Result<(), StoreError> {
        self.journal_seq(core, rec, sync).map(|_| ())
    }

    /// `journal`, returning the record's sequence number.
    fn journal_seq(&self, core: &mut Core, rec: Rec, sync: bool) -> Result<u64, StoreError> {
        if let Some(why) = &self.metadata_read_only {
            // Every change goes through here first (a journal record before its effect):
            // one place refuses all of them, those that skip `check_usable` too (`fail`).
            return Err(StoreError::Io(format!(
                "the store is open for reads only: {}; this change was refused, nothing was done",
                reads_only_message(why, &self.dir)
            )));
        }
        if core.epoch_due {
            self.bump_epoch(core)?;
        }
        if sync && !matches!(rec, Rec::OssGenerations { .. }) {
            // Rides on this record's fsync (settles, removals, rebuilds change OSSs too).
            self.note_generations(core)?;
        }
        let reader_version = rec.reader_version();
        if reader_version > core.state_file_version {
            self.mark_state_file_newer(core, reader_version);
        }
        let seq = self.append_latching(core, &rec, sync && self.fsync)?;
        // After the append's write returned: a group commit fsync that reads this covers it.
        self.journal_appended_seq.fetch_max(seq, Ordering::SeqCst);
        crate::torture::kill_point(crate::torture::JOURNAL_RECORD);
        core.state.apply(seq, &rec);
        if let (Rec::Lost { ranges }, Some(recorded)) = (&rec, core.lost_recorded.as_mut()) {
            recorded.extend(ranges.iter().cloned());
        }
        Ok(seq)
    }

    /// Before the first journal record an older binary cannot read: the state file's header
    /// says so, so that such a binary refuses the store, changing nothing, instead of
    /// cutting the record off as a torn tail (see `superblock::STATE_VERSION_NEWER_RECORDS`).
    /// Best effort: a failure (a full metadata disk) must not fail the operation, which
    /// this binary replays correctly either way; it is retried before the next such record.
    fn mark_state_file_newer(&self, core: &mut Core, version: u32) {
        let path = self.dir.join(STATE_FILE);
        if set_header_version(&path, "state", version).is_ok() {
            core.state_file_version = version;
        }
    }

    /// Journal, fsync'd, a record after the `Replace`, `Remove` or settle's `PlannerReset`
    /// that allows deletions no replay can undo (a removed file's objects, a settled cache
    /// zone), before the first of them. Why (review s12r R12-7, R12-8): the open cuts a
    /// damaged LAST record as a torn append, as if never made; were that the record whose
    /// deletions had begun, the name would point at deleted objects again (or the planner
    /// at a deleted cache zone), which read as never-written slots: zeros, exit 0. With a
    /// record after it, a damaged last record is this one (cut, the records before it
    /// still say what goes, and the open deletes it again) or one whose deletions never
    /// began. Any record does; this one (the OSS generations grown since the last record,
    /// often none) every binary reads, so the state header stays as it is.
    fn journal_before_deletions(&self, core: &mut Core) -> Result<(), StoreError> {
        self.note_generations(core)?;
        let rec = Rec::OssGenerations {
            generations: Vec::new(),
        };
        assert_eq!(
            rec.reader_version(),
            FORMAT_VERSION,
            "every binary reads it"
        );
        self.journal(core, rec, true)
    }

    /// Journal (unsynced: the next fsync'd record carries it) the generations the OSSs
    /// reached beyond the store's record (see `Rec::OssGenerations`). Cheap: one atomic
    /// load per OSS, a record only when one grew (a sync that appended to its extents log).
    fn note_generations(&self, core: &mut Core) -> Result<(), StoreError> {
        let generations: Vec<(usize, u64)> = self
            .backends
            .iter()
            .enumerate()
            .filter(|(i, _)| !core.state.failed_oss.contains(i))
            .filter_map(|(i, b)| Some((i, b.generation()?)))
            .filter(|&(i, g)| g > core.state.oss_generations.get(&i).copied().unwrap_or(0))
            .collect();
        if generations.is_empty() {
            return Ok(());
        }
        self.journal(core, Rec::OssGenerations { generations }, false)
    }

    /// The metadata epoch after the one on record (after the one a cut tail may have held:
    /// `Core::epoch_number_cut`), with a new token.
    fn next_epoch(core: &Core) -> MetadataEpoch {
        let number = core.state.metadata_epoch().map_or(0, |e| e.number)
            + 1
            + u64::from(core.epoch_number_cut);
        assert!(
            number <= crate::backend::METADATA_EPOCH_NUMBER_MAX,
            "metadata epoch {number}"
        );
        MetadataEpoch {
            number,
            token: random_token(),
        }
    }

    /// Bump the metadata epoch (see `backend::MetadataEpoch`): on record first (journaled,
    /// fsync'd), then on every OSS that answers. Before the first record of a session and
    /// the first after each checkpoint, so every OSS is told the new epoch before it changes
    /// under it: a copy of the metadata from before (or a journal deleted or emptied since
    /// the checkpoint it followed) is then behind the OSSs. Not through `journal_seq`: the
    /// record is no operation's (kill points count operations' records). Cost: one fsync'd
    /// record and one small file overwritten and fdatasync'd per OSS, per session that
    /// writes and per checkpoint (every `JOURNAL_BYTES_CHECKPOINT` of journal), not per write.
    fn bump_epoch(&self, core: &mut Core) -> Result<(), StoreError> {
        if core.home_witness_clear_unjournaled {
            self.journal_home_witness_cleared(core)?;
        }
        let before = core.state.metadata_epoch();
        let epoch = Store::next_epoch(core);
        let rec = Rec::OssGenerations {
            generations: vec![(METADATA_EPOCH_KEY, epoch.packed())],
        };
        assert_eq!(
            rec.reader_version(),
            FORMAT_VERSION,
            "every binary reads it"
        );
        let seq = self.append_latching(core, &rec, self.fsync)?;
        self.journal_appended_seq.fetch_max(seq, Ordering::SeqCst);
        core.state.apply(seq, &rec);
        core.epoch_due = false;
        core.epoch_bumped = true;
        core.epoch_number_cut = false;
        let told = self.tell_osses_epoch(epoch);
        self.note_osses_left_behind(core, before, epoch, &told)
    }

    /// Journal `Rec::HomeWitnessCleared` (unsynced: the bump's fsync that follows it makes
    /// both durable, in order, before any OSS is told the epoch). The open cleared the
    /// home witness in memory already: applied here, it clears nothing more, since the
    /// bump comes before any record of this session that could add a piece (`epoch_due` is
    /// set at open). Refused (a full metadata disk), the bump is refused with it and no
    /// epoch file is written: the next open sees the way out again. Not through
    /// `journal_seq`, as the bump's.
    fn journal_home_witness_cleared(&self, core: &mut Core) -> Result<(), StoreError> {
        assert!(core.epoch_due, "the clear rides on the open's first bump");
        // The open cleared them in memory and nothing journaled since could add one
        // (every such record goes through `journal_seq`, which bumps first): the record
        // replays to the very state memory holds (review r46d LOW-1).
        assert!(
            core.state.home_witness.is_empty()
                && core.state.home_witness_pending.is_empty()
                && core.state.home_witness_displaced.is_empty(),
            "no home witness piece before the way out's clear is journaled"
        );
        let rec = Rec::HomeWitnessCleared;
        let reader_version = rec.reader_version();
        if reader_version > core.state_file_version {
            self.mark_state_file_newer(core, reader_version);
        }
        let seq = self.append_latching(core, &rec, false)?;
        self.journal_appended_seq.fetch_max(seq, Ordering::SeqCst);
        core.state.apply(seq, &rec);
        core.home_witness_clear_unjournaled = false;
        Ok(())
    }

    /// After a bump to `epoch` (from `before`) told the OSSs `told`: record each OSS not
    /// told at the epoch it holds (`State::oss_left_at`), so that back later at any
    /// distance it is recognised as this store's own (review s15r R15-3). One fsync'd
    /// record, only when an entry grows: an OSS down for many bumps costs one. Not through
    /// `journal_seq`, as the bump's.
    fn note_osses_left_behind(
        &self,
        core: &mut Core,
        before: Option<MetadataEpoch>,
        epoch: MetadataEpoch,
        told: &[bool],
    ) -> Result<(), StoreError> {
        assert_eq!(told.len(), core.epochs_held.len());
        let mut left = Vec::new();
        for (i, &told) in told.iter().enumerate() {
            if told {
                core.epochs_held[i] = Some(epoch);
                continue;
            }
            if let Some(at) = Store::left_behind_at(core, i, before) {
                left.push((crate::state::left_behind_key(i), at.packed()));
            }
        }
        if left.is_empty() {
            return Ok(());
        }
        let rec = Rec::OssGenerations { generations: left };
        let seq = self.append_latching(core, &rec, self.fsync)?;
        self.journal_appended_seq.fetch_max(seq, Ordering::SeqCst);
        core.state.apply(seq, &rec);
        Ok(())
    }

    /// The epoch OSS `oss`, not told a bump past `before`, is left at, if that is not on
    /// record yet: the one this process knows it holds; else the one on record for it (left
    /// behind by an earlier session); else `before` (it missed no bump before this one, so
    /// it was told that one, unless a crash came between a bump and telling it: then the
    /// entry is no proof, and the lineage rules apply as without it).
    fn left_behind_at(
        core: &Core,
        oss: usize,
        before: Option<MetadataEpoch>,
    ) -> Option<MetadataEpoch> {
        let recorded = core.state.oss_left_at(oss);
        let at = core.epochs_held[oss].or(recorded).or(before)?;
        recorded
            .is_none_or(|r| at.packed() > r.packed())
            .then_some(at)
    }

    /// Best effort per OSS: one OSS told is enough for `refuse_older_metadata`, and one not
    /// told (down, failed, its disk full) keeps an older epoch, which is never refused.
    /// One OSS after the other, not a thread each: every thread's own malloc arena took 64
    /// MiB of address space, and `get` under a memory cap failed to allocate its buffer.
    /// Returns, per OSS, whether it was told (one not told is recorded by the caller:
    /// `note_osses_left_behind`).
    /// Always fsync'd: a bump's epoch is what an OSS down later is recorded as left at, and so
    /// is the close's seal (review s15r2 R15b-1).
    fn tell_osses_epoch(&self, epoch: MetadataEpoch) -> Vec<bool> {
        let store_dir = self.epoch_store_dir();
        self.backends
            .iter()
            .map(|b| {
                b.healthy()
                    && b.set_metadata_epoch(epoch, store_dir.as_deref(), true)
                        .is_ok()
            })
            .collect()
    }

    /// Refuse the open when the OSS labels that disagree with the superblock on settings or
    /// block crc seed are not outnumbered by labels that agree in full: then the superblock
    /// is the likely one edited or replaced (R12-6), and reading with it could read wrong
    /// bytes. Otherwise each disagreeing label is that OSS's damage (review s16r R16-1: one
    /// rotten label on one disk), already set by `DirBackend::open`: the OSS is decoded
    /// around and `status` names the label file.
    fn refuse_superblock_against_labels(opened: &[DirBackend]) -> Result<(), StoreError> {
        let disagreeing: Vec<&DirBackend> = opened
            .iter()
            .filter(|b| b.settings_disagreement().is_some())
            .collect();
        let agreeing = opened.iter().filter(|b| b.label_agrees()).count();
        assert!(agreeing + disagreeing.len() <= opened.len());
        match disagreeing.first() {
            Some(first) if agreeing <= disagreeing.len() => Err(StoreError::Backend(
                crate::backend::BackendError::BadRequest {
                    oss: first.location(),
                    why: format!(
                        "{} ({} of {} OSS labels disagree with the superblock, {agreeing} agree)",
                        first.settings_disagreement().expect("filtered"),
                        disagreeing.len(),
                        opened.len()
                    ),
                },
            )),
            _ => Ok(()),
        }
    }

    /// At open, before anything reads or writes an OSS: refuse metadata (state and journal)
    /// that an OSS is ahead of, or at the same epoch with another token (see
    /// `backend::MetadataEpoch`). An OSS behind the record is fine: a crash between the
    /// record and telling it, or an OSS down at the bump. Review s10 R10-1 and R10-4: the
    /// store opened such metadata silently, read stale bytes with exit 0 and wrote parity
    /// over data it did not know of.
    ///
    /// `cut_tail`: the journal's torn tail (not cut yet) and the sequence number its record
    /// had. An OSS one epoch ahead is not refused when that tail is the bump record of the
    /// epoch it holds, damaged (see `cut_tail_is_bump`): returned, `(seq, record)`, for the
    /// caller to apply. Why: the bump is fsync'd before any OSS is told, so a power cut never
    /// tears it once an OSS holds it, but damage to the journal's last record after its
    /// fsync (review s9r R9-3) cut it, and every later open was refused as "behind". An
    /// OSS past the epoch lineage that nothing proves this store's is returned too, for the
    /// caller to take out of service (`take_beyond_lineage_out`).
    fn refuse_older_metadata(
        dir: &Path,
        backends: &[Box<dyn Backend>],
        state: &State,
        cut_tail: Option<(&[u8], u64)>,
    ) -> Result<OssEpochsChecked, StoreError> {
        let on_record = state.metadata_epoch();
        let recorded_number = on_record.map_or(0, |e| e.number);
        let mut checked = OssEpochsChecked::default();
        for (i, b) in backends.iter().enumerate() {
            let told = match b.metadata_epoch() {
                Ok(Some(told)) => told,
                Ok(None) => continue,
                // Failed on record, or not in service (no label: a missing mount; its own
                // files damaged): never read as it is, so nothing to check.
                Err(_) if state.failed_oss.contains(&i) || !b.healthy() => continue,
                Err(e) => {
                    return Err(StoreError::Metadata(format!(
                        "{}: {e}, so the open cannot check that the store's state and journal are not older than its OSS directories (see `{}` in docs/store.md); nothing was changed. Make the file readable (check OSS {i}'s mount, permissions and disk) and retry. If that disk is failing, take it out of the way (unmount it, or move the directory aside): the store then opens without OSS {i}, degraded, and `exaraid store fail` and `rebuild` replace it",
                        dir.display(),
                        crate::backend::EPOCH_FILE
                    )))
                }
            };
            if told.number == recorded_number + 1 {
                if let Some(rec) = cut_tail.and_then(|(bytes, seq)| {
                    Store::cut_tail_is_bump(bytes, seq, told).map(|rec| (seq, rec))
                }) {
                    checked.recovered = Some(rec);
                    continue;
                }
            }
            let what_to_do = format!(
                "Nothing was changed. Put back this store's newest state and journal ({0}/state, {0}/journal), or restore the OSS directories from the same backup as them. If those are gone for good, removing {1} from every OSS directory opens the store as this older metadata has it: files made since are not listed (their space stays used), files removed or replaced since are recorded lost (`get` and `exaraid store scrub {0}` name their bytes), and bytes written since into the files it lists read back as the OSSs hold them now",
                dir.display(),
                crate::backend::EPOCH_FILE
            );
            if told.number > recorded_number {
                return Err(StoreError::Metadata(format!(
                    "{}: the store's state and journal are older than its OSS directories: OSS {i} ({}) was told metadata epoch {} but the state and journal reach only epoch {recorded_number}. They were replaced by an older copy (a restore or snapshot of the store directory), the journal was deleted or emptied, or they are another copy of this store's metadata (a copied store directory whose superblock names these same OSS directories, such as OSS directories given with --oss-dirs outside it: then that copy wrote to them; or a hard-link copy, `cp -al`, written by a binary before session 17, which wrote into these very files; see \"Copying and moving a store\" in docs/store.md); opened, the store would read stale bytes and write parity over data it does not know of. {what_to_do}",
                    dir.display(),
                    b.location(),
                    told.number,
                )));
            }
            // One failed on record is not read: `online` checks it before taking it back.
            let another_line = Some(told)
                .filter(|_| !state.failed_oss.contains(&i))
                .and_then(|told| Store::epoch_of_another_line(state, told));
            if let Some(ours) = another_line {
                return Err(StoreError::Metadata(format!(
                    "{}: {} {what_to_do}. If only OSS {i}'s directory is another copy's, move it aside instead: the store then opens without OSS {i}, degraded, and `exaraid store fail` and `rebuild` replace it",
                    dir.display(),
                    Store::another_line_problem(i, &b.location(), told, ours, recorded_number),
                )));
            }
            // Not provably this store's, but no proof of another copy either: the caller
            // takes it out of service (`take_beyond_lineage_out`), not the whole store.
            if !state.failed_oss.contains(&i)
                && Store::epoch_beyond_lineage(state, told)
                && state.oss_left_at(i) != Some(told)
            {
                checked.beyond_lineage.push((i, told));
                continue;
            }
            if told.number == recorded_number && Some(told) != on_record {
                return Err(StoreError::Metadata(format!(
                    "{}: OSS {i} ({}) belongs to another copy of this store: it was told metadata epoch {} with token {:08x}, but this store's state and journal made epoch {} with token {:08x}. A copy of the store (its directory or its OSS directories) went on on its own and its OSS directory is mixed in here; opened, the store would read that copy's bytes as its own. {what_to_do}",
                    dir.display(),
                    b.location(),
                    told.number,
                    told.token,
                    recorded_number,
                    on_record.map_or(0, |e| e.token),
                )));
            }
        }
        Ok(checked)
    }

    /// This store's token for epoch `told.number` if `told` is not it: an OSS told `told` was
    /// told it by another copy of the store (or this metadata is another copy's). Only epochs
    /// behind the record, within the lineage the state keeps (`EPOCH_LINEAGE_LEN`); the
    /// epoch on record itself is compared by the caller (as before the lineage).
    fn epoch_of_another_line(state: &State, told: MetadataEpoch) -> Option<u32> {
        let recorded_number = state.metadata_epoch().map_or(0, |e| e.number);
        if told.number >= recorded_number {
            return None;
        }
        state
            .epoch_lineage_token(told.number)
            .filter(|&ours| ours != told.token)
    }

    /// Is `told` so far behind the record that the lineage no longer keeps its token
    /// (`EPOCH_LINEAGE_LEN`)? Then nothing tells this store's own OSS left behind from
    /// another copy's: refused, never taken as current (its epoch may be an older binary's,
    /// which kept no lineage: refused alike, as the same could be said of it).
    fn epoch_beyond_lineage(state: &State, told: MetadataEpoch) -> bool {
        let recorded_number = state.metadata_epoch().map_or(0, |e| e.number);
        told.number < recorded_number
            && recorded_number - told.number >= crate::state::EPOCH_LINEAGE_LEN
    }

    /// What `epoch_beyond_lineage` found, for the open's and `online`'s refusals.
    pub(super) fn beyond_lineage_problem(
        oss: usize,
        location: &str,
        told: MetadataEpoch,
        recorded_number: u64,
    ) -> String {
        assert!(told.number < recorded_number);
        format!(
            "OSS {oss} ({location}) was told metadata epoch {} with token {:08x}, {} epochs behind this store's state and journal (epoch {recorded_number}); the state keeps the tokens of its latest {} epochs only, so it cannot prove that this directory is this store's own OSS left behind (down or not told at every bump since) and not another copy's, and does not take it as current.",
            told.number,
            told.token,
            recorded_number - told.number,
            crate::state::EPOCH_LINEAGE_LEN,
        )
    }

    /// What `epoch_of_another_line` found, for the open's and `online`'s refusals.
    pub(super) fn another_line_problem(
        oss: usize,
        location: &str,
        told: MetadataEpoch,
        ours: u32,
        recorded_number: u64,
    ) -> String {
        assert!(told.token != ours && told.number < recorded_number);
        format!(
            "OSS {oss} ({location}) belongs to another copy of this store, or this store's state and journal are another copy's: the OSS was told metadata epoch {} with token {:08x}, but this store's state and journal made epoch {} with token {ours:08x} (and went on to epoch {recorded_number}). A copy of the store (its directory and OSS directories) went on on its own, and its OSS directory is mixed in here or its state and journal were put over this store's; opened, the store would read that copy's bytes as its own.",
            told.number, told.token, told.number,
        )
    }

    /// The bump record of `told` (`bump_epoch`'s record, as record `seq`), if the journal's
    /// torn tail `bytes` is it, damaged: the frame of exactly its length that differs from
    /// it in at most `BUMP_DAMAGED_BYTES_MAX` bytes. Why so strict: an older copy of the
    /// metadata one epoch behind with a torn tail of its own (a snapshot taken during a
    /// write) must still be refused. Its tail is another record, or this bump's record cut
    /// short (a copy taken while it was written, before the OSSs were told and the store
    /// went on): neither is the whole frame of the random token the OSS holds, while a bit
    /// flip in the fsync'd record leaves that frame but for a few bytes. A bump record lost
    /// in a larger way (zeroed, cut short) is still refused, with the message of an older
    /// copy.
    fn cut_tail_is_bump(bytes: &[u8], seq: u64, told: MetadataEpoch) -> Option<Rec> {
        let rec = Rec::OssGenerations {
            generations: vec![(METADATA_EPOCH_KEY, told.packed())],
        };
        let frame = Journal::<Rec>::frame(seq, &rec);
        if frame.len() != bytes.len() {
            return None;
        }
        let differing = frame.iter().zip(bytes).filter(|(a, b)| a != b).count();
        (differing <= BUMP_DAMAGED_BYTES_MAX).then_some(rec)
    }

    /// The journal's torn tail is `rec`, record `seq`, the metadata epoch's bump damaged
    /// after its fsync (`cut_tail_is_bump`): write its frame over it in place
    /// (`Journal::rewrite_tail`), so that no open, even one killed right after, leaves a
    /// journal without the epoch the OSSs hold (session 12's cut did: every later open
    /// refused). No write's record is lost, so this is no tail cut (no warning, no scrub):
    /// the note returned says what happened. `None`: the journal is read-only, the tail
    /// stays and is dealt with as a cut one.
    fn mend_bump_tail(
        journal: &mut Journal<Rec>,
        seq: u64,
        rec: &Rec,
        dir: &Path,
    ) -> Result<Option<String>, StoreError> {
        let frame = Journal::<Rec>::frame(seq, rec);
        let at_byte = journal.len_bytes();
        let differing = journal
            .tail_bytes()
            .map_or(0, |t| t.iter().zip(&frame).filter(|(a, b)| a != b).count());
        if !journal.rewrite_tail(seq, &frame)? {
            return Ok(None);
        }
        Ok(Some(format!(
            "the journal's last record (record {seq}, at byte {at_byte} of {}/{JOURNAL_FILE}), the metadata epoch's bump, was damaged after it was written ({differing} bytes differed); the OSSs hold that epoch, so the record was written again in place. No acknowledged write was in it: nothing is lost. Damage to a written file points at the metadata disk: check it (SMART, `dmesg`)",
            dir.display()
        )))
    }

    /// At open, before anything reads an OSS: an OSS whose generation is below the one the
    /// store recorded for it lost changes it had made durable, so it is an older copy of
    /// itself (a snapshot or backup restored, a stale mirror leg) or its extents log was
    /// cut: its elements may be stale under valid checksums and its extents record may call
    /// written slots never written (zeros). It is taken as unavailable (reads decode around
    /// it, writes record it failed) until rebuilt (review s4e E4c). A crash never makes an
    /// OSS behind its record: the record is taken from the OSS after its fdatasync.
    fn refuse_rolled_back(backends: &[Box<dyn Backend>], state: &State) {
        for (i, b) in backends.iter().enumerate() {
            let recorded = state.oss_generations.get(&i).copied().unwrap_or(0);
            let Some(generation) = b.generation() else {
                continue;
            };
            if generation < recorded {
                b.set_rolled_back(Store::rolled_back_problem(generation, recorded));
            }
        }
    }

    /// What is wrong with an OSS behind its recorded generation (see `refuse_rolled_back`).
    pub(super) fn rolled_back_problem(generation: u64, recorded: u64) -> String {
        assert!(generation < recorded);
        format!(
            "it is at generation {generation} but the store recorded generation {recorded} for it: the directory lost changes it had made durable (it was rolled back to an older copy, a snapshot or backup restore or a stale mirror, or its extents log {} was cut) or it is the OSS's directory from before its last rebuild (its old disk mounted there again, a backup put back), so its bytes may be stale; the OSS is unavailable (its elements are rebuilt from parity) until it is rebuilt",
            crate::backend::EXTENTS_LOG_FILE
        )
    }

    // ---------------------------------------------------------------- files

    pub fn list(&self) -> Vec<(String, u64)> {
        let cut_names = self.reads_only_cut_names.lock().clone();
        // Names with NUL are `put`'s temporary files (one left by a crash is not a user's file).
        self.core
            .lock()
            .state
            .files
            .iter()
            .filter(|(n, m)| !n.contains('\0') && !cut_names.contains(&m.id))
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
        let found = core.state.files.get(name).map(|m| (m.id, m.size_bytes));
        if let Some((id, _)) = found.filter(|(id, _)| self.reads_only_cut_names.lock().contains(id))
        {
            let why = self
                .reads_only
                .lock()
                .as_ref()
                .map(|w| reads_only_message(w, &self.dir));
            return Err(StoreError::BadInput(format!(
                "no file named '{name}' in the store: a crash cut every write to that new name (none was acknowledged), and the recovery that removes the name (file #{id}) could not run: the store is open for reads only: {}",
                why.unwrap_or_default()
            )));
        }
        found.ok_or_else(|| {
            StoreError::BadInput(format!(
                "no file named '{name}' in the store; `exaraid store ls` lists the files"
            ))
        })
    }

    /// `unconfirmed`: see `Rec::Create::unconfirmed`.
    fn file_or_create(&self, name: &str, unconfirmed: bool) -> Result<u64, StoreError> {
        self.file_or_create_new(name, unconfirmed).map(|(id, _)| id)
    }

    /// The id for a new file: `State::next_file_id`, moved past every id the OSSs hold
    /// objects of (looked for once per session; the `Create` record of the id keeps the
    /// move). Why (review s14r R14-2): metadata older than its OSSs (opened after every
    /// epoch file was removed) is behind on ids, and a new file with the id of a newer
    /// metadata's file whose objects are still there read that file's bytes in its holes.
    /// The same after a cut `Create` record whose put had begun writing. Those objects
    /// stay (no metadata names them; nothing reads them).
    fn new_file_id(&self, core: &mut Core) -> u64 {
        if !core.file_ids_checked {
            core.file_ids_checked = true;
            // An OSS whose listing fails tells nothing here (its reads and writes fail).
            let held_max = self
                .backends
                .iter()
                .filter(|b| b.healthy())
                .filter_map(|b| b.objects().ok())
                .flatten()
                .map(|(object, ..)| object)
                .filter(|&object| object != CACHE_OBJECT)
                .max();
            if let Some(held_max) = held_max.filter(|&m| m >= core.state.next_file_id) {
                core.state.next_file_id = held_max + 1;
            }
        }
        core.state.next_file_id
    }

    /// `file_or_create`, and whether this call created the file.
    fn file_or_create_new(&self, name: &str, unconfirmed: bool) -> Result<(u64, bool), StoreError> {
        check_name(name)?;
        let mut core = self.core.lock();
        if let Some(m) = core.state.files.get(name) {
            return Ok((m.id, false));
        }
        let id = self.new_file_id(&mut core);
        self.journal(
            &mut core,
            Rec::Create {
                name: name.to_string(),
                id,
                unconfirmed,
            },
            true,
        )?;
        Ok((id, true))
    }

    /// A write that created file `name` (#`id`) failed: the name goes again if nothing was
    /// ever written to the file (no write admitted: a refused write journals none) and no
    /// window is open on it, so that a write refused with "nothing was written" leaves no
    /// new empty name behind (review s6r R6-2). Returns `e`, saying so where the name stays.
    fn unmake_failed_new_file(&self, e: StoreError, name: &str, id: u64) -> StoreError {
        if self.poisoned.load(Ordering::SeqCst) {
            // Only a reopen (recovery) may change the store now.
            return e.with_context(&format!(
                "the write had created '{name}': the next open of the store removes it again if no byte of it was written"
            ));
        }
        let removed = (|| -> Result<bool, StoreError> {
            // Exclusive: a concurrent writer of the name finishes (and leaves bytes) first.
            let exclusive = self.gate_exclusive()?;
            {
                let mut core = self.core.lock();
                let Some((_, meta)) = core.state.file_by_id(id) else {
                    return Ok(true); // removed meanwhile (`rm`)
                };
                let window = core.state.windows.values().any(|w| w.file == id);
                if meta.size_bytes > 0 || !meta.written_runs().is_empty() || window {
                    return Ok(false); // written (or about to be) by another writer: stays
                }
                assert!(
                    self.cached_extents(&core, id)?.is_empty(),
                    "an empty file has nothing in the cache zone"
                );
                let rec = Rec::Remove {
                    name: name.to_string(),
                };
                self.journal(&mut core, rec, true)?;
            }
            self.finish_removals(&exclusive)?;
            Ok(true)
        })();
        match removed {
            Ok(_) => e,
            Err(cleanup) => e.with_context(&format!(
                "the write had created '{name}', which stays, empty (removing it failed: {cleanup}); `exaraid store rm` it"
            )),
        }
    }

    /// Remove a file: its objects on every OSS and its metadata. Refused while the file has
    /// an open delayed window (see `refuse_open_window`).
    pub fn remove(&self, name: &str) -> Result<(), StoreError> {
        self.check_usable()?;
        let (id, _) = self.file(name)?;
        self.refuse_open_window(&self.core.lock(), id, name, "rm", "remove")?;
        // Exclusive from the record to the last deleted object: no read, plan or scrub of the
        // file runs meanwhile (they hold the gate shared), so none reads a half-deleted file
        // (a read of a deleted element reads zeros: wrong bytes, not an error).
        let exclusive = self.gate_exclusive()?;
        let mut settle_lost = Vec::new();
        self.detach(&exclusive, id, &mut settle_lost)?;
        {
            let mut core = self.core.lock();
            // Again under the lock of the record: a window may have started meanwhile.
            self.refuse_open_window(&core, id, name, "rm", "remove")?;
            self.journal(
                &mut core,
                Rec::Remove {
                    name: name.to_string(),
                },
                true,
            )?;
        }
        // After the `Remove`, which took the removed file's own losses off the record: the
        // ones named are other files' bytes its settle found unreadable (s20d leftover: on
        // record, but `rm` said nothing).
        self.warn_cache_losses(&settle_lost, REMOVAL_SETTLE);
        // The name is gone for good from here (its `Remove` is durable): what is left is
        // cleanup, which every open does again, so its failure is no failure of `rm`. Why
        // (session 19 leftover): a nearly full metadata disk took the `Remove` and refused
        // a record after it, and `rm` failed though the name was gone; a script retried an
        // `rm` of a file that no longer existed or took the removal for undone. Only a
        // failure that poisoned the store (the next open recovers) is returned, saying so.
        self.finish_removals_after_durable(&exclusive, || {
            format!(
                "{} is removed (its name is gone for good), but deleting its objects on the OSSs failed",
                read::describe_file_name(name)
            )
        })
    }

    /// `finish_removals` after the caller's record that made the objects unreachable (a
    /// `Remove` or `Replace`) is durable: the caller's change is done, so a cleanup that
    /// failed without poisoning the store is a warning (`done` says what was done and what
    /// failed), not the caller's failure. A poisoning failure is returned (the next open
    /// recovers), with `done` as its context.
    fn finish_removals_after_durable(
        &self,
        exclusive: &parking_lot::RwLockWriteGuard<'_, ()>,
        done: impl FnOnce() -> String,
    ) -> Result<(), StoreError> {
        let Err(e) = self.finish_removals(exclusive) else {
            return Ok(());
        };
        let done = done();
        if self.poisoned.load(Ordering::SeqCst) {
            return Err(e.with_context(&done));
        }
        self.defer_removals_warning(&format!("{done}: {e}"));
        Ok(())
    }

    /// `put` and `rm` of a file with an open delayed window are refused, nothing changed.
    /// Why: the window's writer is still writing and means to END it; replacing or removing
    /// the file under it would drop the window silently, its END would then fail with
    /// "unknown token" (or, worse, the writer would go on writing into the new content). The
    /// user ends the window first (END also tells what, if anything, was lost in it).
    fn refuse_open_window(
        &self,
        core: &Core,
        id: u64,
        name: &str,
        command: &str,
        verb: &str,
    ) -> Result<(), StoreError> {
        let Some((token, _)) = core.state.windows.iter().find(|(_, w)| w.file == id) else {
            return Ok(());
        };
        Err(StoreError::BadInput(format!(
            "refused, nothing changed: '{name}' has an open delayed window (token {token}); {command} would {verb} the file under it and the window's END could no longer find it; end the window first with `exaraid store delayed end {} {token}`, then {command} again",
            self.dir.display()
        )))
    }

    /// Before a file's metadata goes: nothing of it may stay in the cache zone. (Its open
    /// windows are the caller's to refuse, see `refuse_open_window`.)
    /// Ranges its settle recorded lost are added to `settle_lost`, also when it fails.
    fn detach(
        &self,
        exclusive: &parking_lot::RwLockWriteGuard<'_, ()>,
        id: u64,
        settle_lost: &mut Vec<LostRange>,
    ) -> Result<(), StoreError> {
        let cached = {
            let core = self.core.lock();
            self.cached_extents(&core, id)?
        };
        if !cached.is_empty() {
            // Data of this file still in the cache zone: settle it first so that the cache
            // zone holds nothing of a removed file.
            self.settle_exclusive(exclusive, settle_lost)?;
        }
        Ok(())
    }

    /// At open: drop the staging files of `put`s cut by a crash (`NAME\0put`: a put over an
    /// existing file writes there first; no put runs while the store opens). Why: they hold
    /// no acknowledged byte (only `Replace` makes one a user's file), yet a stripe of theirs
    /// that could not be told (written with a failed OSS, which `copy_failed_columns` does
    /// not protect for them, or bit rot beside a failed OSS) made `rebuild` fail on a file
    /// nobody can see, until the next put of the name. One that cannot be removed now stays
    /// (see `drop_staging`): the open goes on.
    fn drop_staging_files(&self) -> Result<(), StoreError> {
        let staging: Vec<String> = {
            let core = self.core.lock();
            let names = core.state.files.keys();
            names.filter(|n| n.ends_with("\0put")).cloned().collect()
        };
        for name in staging {
            self.drop_staging(&name)?;
        }
        Ok(())
    }

    /// At open, after recovery: remove every file a `write` or `delayed start` created
    /// (`FileMeta::unconfirmed`) that is still empty, with no window: no byte of it was
    /// ever written (an acknowledged write leaves its size past 0, and only a refused
    /// write's `WroteNothing` takes a size back) and no START on it took effect, so its
    /// name was never the user's (review s16r2 R16b-3: a write refused for too many OSSs
    /// out of service, which poisons the store before the write can take its name back,
    /// or killed before any byte, left it 0 bytes long for good). An empty `put`'s name is
    /// confirmed and stays. One with cached bytes on record (none is expected: the size is
    /// 0) stays as before. Bounded by the files listed.
    /// Also, whatever their size, the files of `cut_writes_only` (this open's recovery
    /// decided every write ever made to them as cut, never acknowledged:
    /// `recovery::cut_writes_only_files`): their bytes are zeros or a cut write's, and the
    /// name was never the user's either (merge review s17m M17-3: a WCL write refused part
    /// way, after it began, left the name at its length, zero-filled, reading with success,
    /// though its refusal said the next open removes it).
    fn drop_unconfirmed_files(&self, cut_writes_only: &BTreeSet<u64>) -> Result<(), StoreError> {
        if self.metadata_read_only.is_some() || self.poisoned.load(Ordering::SeqCst) {
            return Ok(()); // nothing may be journaled: the names stay until an open that may
        }
        let mut core = self.core.lock();
        let unconfirmed: Vec<(String, u64, u64)> = core
            .state
            .files
            .iter()
            .filter(|(_, m)| {
                m.unconfirmed && (m.size_bytes == 0 || cut_writes_only.contains(&m.id))
            })
            .map(|(name, m)| (name.clone(), m.id, m.size_bytes))
            .collect();
        for (name, id, size_bytes) in unconfirmed {
            let window = core.state.windows.values().any(|w| w.file == id);
            if window || !self.cached_extents(&core, id)?.is_empty() {
                continue;
            }
            // Synced: a removal's objects go only after its record is durable
            // (`finish_removals`, which the open runs next).
            let removed = self.journal(&mut core, Rec::Remove { name: name.clone() }, true);
            if let Err(e) = removed {
                // Best effort, as for a put's staging file: the open goes on (a full
                // metadata disk must not refuse `ls` and `get`), the next open tries again.
                // A name whose every write was cut keeps the cut write's length (merge
                // review s18m M18-4: "stays, empty" was said of it too).
                let stays = if size_bytes == 0 {
                    "that wrote no byte of it (never acknowledged) and stays, empty,".to_string()
                } else {
                    format!("and every write to it was cut (none acknowledged); it stays, {size_bytes} bytes long (zeros or a cut write's bytes),")
                };
                let warning = format!(
                    "{} was created by a write {stays} until an open removes it: removing it now failed: {e}",
                    read::describe_file_name(&name)
                );
                self.deferred_warnings.lock().push(warning);
                break;
            }
        }
        Ok(())
    }

    /// Remove a put's staging file (`NAME\0put`: never acknowledged, never listed). When
    /// that fails having changed nothing (its cached bytes need a settle, refused before it
    /// began for want of room), the staging file stays, a warning says so at close, and the
    /// next open or put of the name tries again; returns that failure. Why not
    /// fail (review s6r R6-1): every open removes staging files, so one that could not be
    /// removed on a full disk failed every later command (`ls`, `get`, `rm`, `fail`), with
    /// `--oss-capacity` for good, for bytes nobody was ever told were stored. A failure
    /// that did change something (a settle that began and failed: the store is poisoned
    /// and the next open recovers) is returned.
    fn drop_staging(&self, staging: &str) -> Result<Option<StoreError>, StoreError> {
        assert!(
            staging.ends_with("\0put"),
            "not a staging name: {staging:?}"
        );
        let Err(e) = self.remove_staging(staging) else {
            return Ok(None);
        };
        if self.poisoned.load(Ordering::SeqCst) {
            return Err(e);
        }
        // Said as what happened to the user's name and what (if anything) to do: the old
        // wording ("stays in the store until ...: removing it now failed") left the user to
        // guess whether the put or the file was at stake (s19e leftover).
        let user = staging.strip_suffix("\0put").expect("asserted above");
        let user_name = read::describe_file_name(user);
        let name_now = match self.core.lock().state.files.contains_key(user) {
            true => format!("{user_name} keeps the content it had before that put"),
            false => format!("no {user_name} exists (that put was of a new name)"),
        };
        let way_out = match e {
            StoreError::NoSpace(_) => {
                "; to have it removed sooner, free space on the disk the error names"
            }
            _ => "",
        };
        let warning = format!(
            "{} stays in the store: that put did not finish (a crash cut it, or it was refused) and removing its content now failed, changing nothing ({e}). {name_now}: the put's content was never acknowledged, is not listed and is read by nobody, it only takes space. Nothing is lost and nothing needs doing: the next open or put of that name removes it{way_out}",
            read::describe_file_name(staging)
        );
        let mut warnings = self.deferred_warnings.lock();
        // Bounded: at most one warning per staging name (each open or put retries).
        warnings.retain(|w| !w.starts_with(&read::describe_file_name(staging)));
        warnings.push(warning);
        Ok(Some(e))
    }

    /// `remove` of a put's staging file, dropping its cached bytes without a settle: they
    /// were never acknowledged, so the planner forgets them (`Input::Forget`) and nothing
    /// moves home. Why (review s6r R6-1, left open in session 6): the settle `remove` runs
    /// needs room for its home writes and, with an OSS failed, its settle copies; on a full
    /// store a put refused for room then left its staging file behind until room came back.
    /// Where the planner cannot forget (a plan of the file not yet complete to it; the
    /// delayed path, which caches nothing for a staging file) this is `remove`, settle and
    /// all. Crash safety: a kill before the `Remove` record leaves the staging file, which
    /// every open removes again (its cached bytes forgotten or not, which both replay).
    fn remove_staging(&self, staging: &str) -> Result<(), StoreError> {
        assert!(
            staging.ends_with("\0put"),
            "only a staging file's bytes may be dropped: {staging:?}"
        );
        self.check_usable()?;
        let (id, _) = self.file(staging)?;
        // Exclusive: no plan is in flight, and the queued background plans (a destage of
        // this file among them) run first, so the planner may forget every plan of it.
        let exclusive = self.gate_exclusive()?;
        let queued: Vec<Admitted> = self.background.lock().drain(..).collect();
        self.run_plans_from(queued, None, true)?;
        let forgotten = {
            let mut core = self.core.lock();
            if self.cached_extents(&core, id)?.is_empty() {
                true
            } else {
                match core.strategy.forget_file(id) {
                    Ok(()) => {
                        let forget = Rec::Input(Input::Forget { file: id });
                        if let Err(e) = self.journal(&mut core, forget, false) {
                            // Not on record: the planner must not differ from the journal.
                            core.strategy =
                                replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                            return Err(e);
                        }
                        self.forget_cache_chunks_of(id);
                        true
                    }
                    Err(PlanError::PlansInFlight { .. } | PlanError::ForgetNotSupported { .. }) => {
                        false
                    }
                    Err(e) => return Err(plan_err(e)),
                }
            }
        };
        if !forgotten {
            drop(exclusive);
            return self.remove(staging);
        }
        {
            let mut core = self.core.lock();
            // Synced: carries the `Forget` before it (one journal, appended in order).
            let remove = Rec::Remove {
                name: staging.to_string(),
            };
            self.journal(&mut core, remove, true)?;
        }
        self.finish_removals(&exclusive)
    }

    /// Delete the objects of every removed file still in `State::removing` on the OSSs that
    /// are up, then journal that they are gone. Under the gate exclusive (see `remove`). A
    /// crash part-way leaves the file out of the table and in `removing`: the next open
    /// deletes the rest (deleting is idempotent). A failed OSS keeps its objects of removed
    /// files until it is rebuilt (which empties it; the `Remove` made it stale). An OSS down
    /// but not failed on record (its directory missing: a mount not there) keeps the removal
    /// pending (no `ObjectsRemoved`): every open tries again, and its objects go when it is
    /// back. Why (review s12r): they stayed on it for good, nothing listed them.
    fn finish_removals(
        &self,
        _exclusive: &parking_lot::RwLockWriteGuard<'_, ()>,
    ) -> Result<(), StoreError> {
        let removing: Vec<u64> = self.core.lock().state.removing.iter().copied().collect();
        if removing.is_empty() {
            return Ok(());
        }
        // Ids no OSS that is up holds any more wait only for an OSS that is away (s13k):
        // nothing to delete, so nothing to journal on every open meanwhile (merge review
        // s13m P5: each open journaled and synced a record, and bumped the epoch). A
        // listing that fails counts as holding everything.
        // Away: down but not failed on record (a failed OSS's rebuild empties it).
        let any_osses_away = {
            let failed = &self.core.lock().state.failed_oss;
            let mut backends = self.backends.iter().enumerate();
            backends.any(|(oss, b)| !b.healthy() && !failed.contains(&oss))
        };
        // Listed only with an OSS away (a listing costs a directory read per OSS; s13m2 N2).
        let held: Vec<Option<BTreeSet<u64>>> = if any_osses_away {
            self.backends
                .iter()
                .filter(|b| b.healthy())
                .map(|b| {
                    b.objects()
                        .ok()
                        .map(|o| o.into_iter().map(|(id, ..)| id).collect())
                })
                .collect()
        } else {
            vec![None]
        };
        let still_held = |id: u64| {
            held.iter()
                .any(|h| h.as_ref().is_none_or(|h| h.contains(&id)))
        };
        let removing: Vec<u64> = removing
            .into_iter()
            .filter(|&id| still_held(id) || !any_osses_away)
            .collect();
        if removing.is_empty() {
            return Ok(());
        }
        // The `Replace` or `Remove` that named these is no longer the journal's last record.
        if removing.iter().any(|&id| still_held(id)) {
            self.journal_before_deletions(&mut self.core.lock())?;
        }
        for id in removing {
            assert!(
                self.core.lock().state.file_by_id(id).is_none(),
                "removing the objects of file #{id}, which is still in the file table"
            );
            let mut left_on_an_oss_away = false;
            for (oss, b) in self.backends.iter().enumerate() {
                if !b.healthy() {
                    left_on_an_oss_away |= !self.core.lock().state.failed_oss.contains(&oss);
                    continue;
                }
                match b.remove_object(id) {
                    Ok(()) => {}
                    Err(e) if e.is_unavailable() => {
                        self.fail_after_removal_error(&mut self.core.lock(), oss, &e, true)?
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if left_on_an_oss_away {
                continue;
            }
            // Not synced by itself: lost in a crash, the next open deletes nothing again.
            let mut core = self.core.lock();
            self.journal(&mut core, Rec::ObjectsRemoved { id }, false)?;
        }
        Ok(())
    }

    /// `finish_removals` at open (removals a crash cut after their record, or that waited for
    /// an OSS away). Refused for room (a full metadata disk refused the record before the
    /// deletions, or the `ObjectsRemoved` after them) it is deferred with a warning told at
    /// close and the open goes on. Why it is safe: the removed names are gone from the file
    /// table for good (their `Remove` or `Replace` is durable) and file ids are never
    /// reused, so objects left on the OSSs are read by nobody; the ids stay in
    /// `State::removing`, and every open deletes them again (deleting is idempotent).
    /// Nothing the open journaled is missing (a refused append leaves no record), so the
    /// store stays writable. Before session 19 the refusal failed the open, so every
    /// command (`ls`, `get`) failed while the metadata disk was full.
    fn finish_removals_at_open(&self) -> Result<(), StoreError> {
        let Err(e) = self.finish_removals(&self.gate_exclusive()?) else {
            return Ok(());
        };
        if !matches!(e, StoreError::NoSpace(_)) || self.poisoned.load(Ordering::SeqCst) {
            return Err(e);
        }
        let files = self.core.lock().state.removing.len();
        self.defer_removals_warning(&format!(
            "deleting the objects of {files} removed file(s) (their names are gone; a crash or an OSS away had cut the deletion) was deferred: {e}"
        ));
        Ok(())
    }

    /// Tell at close that deleting removed files' objects was put off (`what` says whose
    /// and why), with why no byte is at stake and what happens next.
    fn defer_removals_warning(&self, what: &str) {
        self.deferred_warnings.lock().push(format!(
            "{what}. No file's bytes are affected: the objects only take space on the OSSs until an open with room deletes them (every open tries again; free space on the file system holding {} if it is full)",
            self.dir.display()
        ));
    }

    /// Deleting objects nothing reads any more (a removed file's, a settled cache zone) on
    /// OSS `oss` failed with `err`, an unavailable disk: most often the fsync of its extents
    /// log (EIO), after which its disk may have dropped bytes (see
    /// `distrust_after_failed_sync`). On record as failed, as for any OSS found down, with a
    /// warning naming the rebuild; the caller goes on without it. Why (review s7s S7-1): the
    /// command failed with the backend's "writes need `exaraid store rebuild`" and recorded
    /// nothing, so status showed every OSS healthy and nothing to rebuild. `losses`: record
    /// the window bytes lost with it (not after a settle's end: it moved every cached byte
    /// home, though the planner it replaces still lists them).
    fn fail_after_removal_error(
        &self,
        core: &mut Core,
        oss: usize,
        err: &crate::backend::BackendError,
        losses: bool,
    ) -> Result<(), StoreError> {
        self.backends[oss].set_failed(true);
        self.fail_down_osses_on_record(core, losses)?;
        assert!(core.state.failed_oss.contains(&oss));
        let warning = format!(
            "OSS {oss} ({}) is recorded failed: deleting objects no longer in use on it failed ({err}); every byte reads degraded. Run `exaraid store rebuild {} --oss {oss}` (onto a new disk with --to if it keeps failing)",
            self.backends[oss].location(),
            self.dir.display()
        );
        let mut warnings = self.deferred_warnings.lock();
        // Bounded: one warning per OSS.
        let prefix = format!("OSS {oss} (");
        if !warnings.iter().any(|w| w.starts_with(&prefix)) {
            warnings.push(warning);
        }
        Ok(())
    }

    /// Store `data` as file `name`, replacing any previous content. The new content is written
    /// first under a temporary name and then takes the name, so a put that fails (a full OSS)
    /// or is cut by a crash leaves the old content whole (or, for a new name, no file); over
    /// an existing file it needs room for both meanwhile.
    pub fn put(&self, name: &str, data: &[u8]) -> Result<(), StoreError> {
        self.put_from(name, &mut &data[..]).map(|_| ())
    }

    /// `put` of everything `input` yields, read and written in pieces of at most
    /// [`PUT_PIECE_BYTES`] (memory stays bounded whatever the size; the store's file limit
    /// applies). Returns the bytes stored. Atomic like `put`: a failure or crash part-way,
    /// reading `input` included, leaves the old content (or no file).
    pub fn put_from(&self, name: &str, input: &mut dyn std::io::Read) -> Result<u64, StoreError> {
        check_name(name)?;
        self.check_usable()?;
        let _turn = PutTurn::take(self, name);
        let old = self.core.lock().state.files.get(name).map(|m| m.id);
        if let Some(old) = old {
            self.refuse_open_window(&self.core.lock(), old, name, "put", "replace")?;
        }
        let mut piece = Vec::new();
        read_piece(input, &mut piece)?;
        if old.is_none() && piece.is_empty() {
            // Confirmed: an empty put is acknowledged with its name alone.
            self.file_or_create(name, false)?;
            return Ok(0);
        }
        // A new name too: a put cut by a crash must leave no file rather than part of the
        // new content (issue #4 F3: a killed put of a new name left it 0 bytes or torn).
        // NUL is refused in user names (`check_name`), so this name is never a user's file.
        let temp = format!("{name}\0put");
        if self.core.lock().state.files.contains_key(&temp) {
            // Left by a put that crashed or failed: never acknowledged. Gone before this
            // put writes there (the new content must not mix with the old staging bytes).
            if let Some(e) = self.drop_staging(&temp)? {
                return Err(e.with_context(&format!(
                    "the unfinished content of an earlier put of '{name}' (never acknowledged, not listed) must be removed before this put and could not be: '{name}' reads as before"
                )));
            }
        }
        // The old content's cached bytes go home first (a settle, see `detach`), before the
        // new content is written. Why first (review s6r R6-1): refused for room after the new
        // content was written, the put left that content staged; now a refusal here leaves
        // nothing behind. (`detach` below settles again only if a concurrent write cached
        // bytes of the old file meanwhile.)
        // What the settles of `detach` recorded lost: other files' cached bytes they found
        // unreadable. Told whether the put then succeeds (a warning) or fails (its error:
        // a failed command tells no warnings; s21 leftover, the loss went unsaid).
        let mut settle_lost = Vec::new();
        let replaced = (|| {
            if let Some(old) = old {
                let exclusive = self.gate_exclusive()?;
                self.detach(&exclusive, old, &mut settle_lost)?;
            }
            let id = {
                let mut core = self.core.lock();
                let id = self.new_file_id(&mut core);
                self.journal(
                    &mut core,
                    Rec::Create {
                        name: temp.clone(),
                        id,
                        unconfirmed: false,
                    },
                    true,
                )?;
                id
            };
            let mut at_bytes = 0u64;
            while !piece.is_empty() {
                let piece_bytes = piece.len() as u64;
                let written = self
                    .write_id(id, at_bytes, &piece)
                    .and_then(|()| read_piece(input, &mut piece));
                at_bytes += piece_bytes;
                if let Err(e) = written {
                    // Drop the partial new content; the old file was not touched.
                    return Err(self.put_failed(e, name, &temp));
                }
            }
            // Exclusive from the record to the old content's last deleted object (see
            // `remove`).
            let exclusive = self.gate_exclusive()?;
            if let Some(old) = old {
                if let Err(e) = self.detach(&exclusive, old, &mut settle_lost) {
                    drop(exclusive);
                    return Err(self.put_failed(e, name, &temp));
                }
            }
            {
                let mut core = self.core.lock();
                // Again under the lock of the record: a window may have started meanwhile.
                let current = core.state.files.get(name).map(|m| m.id);
                let refused = match current {
                    Some(id) => self.refuse_open_window(&core, id, name, "put", "replace"),
                    None => Ok(()),
                };
                if let Err(e) = refused {
                    drop(core);
                    drop(exclusive);
                    return Err(self.put_failed(e, name, &temp));
                }
                self.journal(
                    &mut core,
                    Rec::Replace {
                        from: temp.clone(),
                        to: name.to_string(),
                    },
                    true,
                )?;
            }
            Ok((at_bytes, exclusive))
        })();
        let (at_bytes, exclusive) = match replaced {
            Ok(replaced) => replaced,
            Err(e) => return Err(self.with_cache_losses(e, &settle_lost, REMOVAL_SETTLE)),
        };
        // As `remove` does (the old content's own losses left the record with the
        // `Replace`).
        self.warn_cache_losses(&settle_lost, REMOVAL_SETTLE);
        // The name holds the new content for good from here (its `Replace` is durable): a
        // refused deletion of the old content's objects is cleanup every open does again,
        // not a failed put (s20e leftover: exit 1 here read as "the name keeps its old
        // content", and a script put the content again or gave up on a put that was done).
        self.finish_removals_after_durable(&exclusive, || {
            format!(
                "{} holds the put's new content (the put succeeded), but deleting its old content's objects on the OSSs failed",
                read::describe_file_name(name)
            )
        })?;
        Ok(at_bytes)
    }

    /// A put of `name` failed with `e` before its `Replace`: the old content is whole. Its
    /// new content (staging file `temp`, never acknowledged) goes; the error says so where
    /// it could not go yet (see `drop_staging`) or where removing it failed too.
    fn put_failed(&self, e: StoreError, name: &str, temp: &str) -> StoreError {
        match self.drop_staging(temp) {
            Ok(None) => e,
            Ok(Some(_)) => e.with_context(&format!(
                "'{name}' reads as before; the put's partial new content (never acknowledged, not listed) could not be removed yet (the settle that needs finds no room) and the next open or put of '{name}' removes it"
            )),
            Err(cleanup) => StoreError::Io(format!(
                "{e}; removing the partial new content failed too: {cleanup}"
            )),
        }
    }

    /// The byte ranges of `name` ever written, sorted and disjoint (a superset: see
    /// `FileMeta::written`); every byte outside them reads as zero. Why: a reader of a sparse
    /// file (the CLI's `get`) writes its holes as zeros without reading them.
    pub fn written_runs(&self, name: &str) -> Result<Vec<(u64, u64)>, StoreError> {
        let (id, _) = self.file(name)?;
        let core = self.core.lock();
        let (_, meta) = core
            .state
            .file_by_id(id)
            .expect("looked up under the lock before");
        Ok(meta.written_runs())
    }

    /// The whole content of a file.
    pub fn get(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        // The size is looked up under the same hold of the gate as the read: a `put` of the
        // name between the two made `get` return the new bytes cut to the old length (s7r R7-8).
        self.read_to(name, 0, ReadEnd::EndOfFile)
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
        self.check_file_end(offset_bytes, data.len() as u64)?;
        let (file, created) = self.file_or_create_new(name, true)?;
        let size_before_bytes = self.file_size_of(file);
        match self.write_id(file, offset_bytes, data) {
            Err(e) if created => Err(self.unmake_failed_new_file(e, name, file)),
            Err(e) => {
                // A write of several plans (stripes) that failed part way leaves the plans
                // before the failure durable: their bytes, and the file's growth, stay
                // (review s8s S8-6: `ls` showed the file grown, the error said nothing).
                let size_after_bytes = self.file_size_of(file);
                match (size_before_bytes, size_after_bytes) {
                    (Some(before), Some(after)) if after > before => Err(e.with_context(&format!(
                        "the write was not acknowledged, but part of it went through: '{name}' is now {after} bytes long (was {before}), and bytes {offset_bytes}..{} may hold new or old bytes; write them again",
                        offset_bytes + data.len() as u64
                    ))),
                    _ => Err(e),
                }
            }
            done => done,
        }
    }

    /// The size of file `file` on record now (`None`: removed).
    fn file_size_of(&self, file: u64) -> Option<u64> {
        self.core
            .lock()
            .state
            .file_by_id(file)
            .map(|(_, m)| m.size_bytes)
    }

    /// The largest file (offset + length) this store holds: the planner's limit, or less where
    /// the last stripe's home slots would lie beyond what a zone file may hold
    /// (`backend::zone_slots_max`: 2^40 slots, and the ext4 file size limit). Writes past it
    /// are refused before anything is acknowledged: an acknowledged WCL or delayed write
    /// whose home no settle could write would fail every settle (review s5r R1, R1b).
    /// With a cache zone (WCL, delayed) the home slots may fill only half a zone file: a
    /// settle with a failed OSS copies that OSS's data at twice the home slot
    /// (`recovery::SETTLE_COPY_SLOTS_PER_HOME_SLOT`); past half, every degraded settle of
    /// the file failed "File too large", so neither `rebuild` nor `rm` could ever run
    /// (review s6r R6-5).
    pub fn file_bytes_max(&self) -> u64 {
        let rows = self.layout.rows() as u64;
        assert!(rows > 0);
        let zone_slots_max = crate::backend::zone_slots_max(self.sb.element_bytes);
        let home_slots_max = match self.kind {
            _ if self.file_bytes_max_before_session_6 => zone_slots_max,
            StrategyKind::Wcl | StrategyKind::Delayed => {
                zone_slots_max / recovery::SETTLE_COPY_SLOTS_PER_HOME_SLOT
            }
            StrategyKind::Rmw | StrategyKind::Raid0 => zone_slots_max,
        };
        let stripes_max = home_slots_max / rows;
        stripes_max
            .saturating_mul(self.layout.stripe_data_bytes())
            .min(FILE_BYTES_MAX)
    }

    fn check_file_end(&self, offset_bytes: u64, len: u64) -> Result<(), StoreError> {
        let max = self.file_bytes_max();
        if offset_bytes.checked_add(len).map_or(true, |end| end > max) {
            return Err(StoreError::BadInput(format!(
                "offset {offset_bytes} + {len} bytes ends beyond the largest file this store holds ({max} bytes: its home objects would outgrow what a zone file may hold, {} bytes per OSS file, with a {} byte stripe unit; half of that with a cache zone, WCL and delayed, whose degraded settles copy data at twice the home offset); nothing was written: write below it, or init a store with a larger stripe unit or more data columns for bigger files",
                crate::backend::ZONE_FILE_BYTES_MAX,
                self.sb.element_bytes
            )));
        }
        Ok(())
    }

    /// `write` of everything `input` yields at `offset_bytes` of file `name` (created if
    /// missing), read and written in pieces of at most [`PUT_PIECE_BYTES`], so memory stays
    /// bounded whatever the size. Returns the bytes written, all durable (acknowledged).
    ///
    /// Each piece is one `write`: acknowledged (durable) before the next piece is read, so
    /// at most one piece is ever unacknowledged. A failure or crash part-way (reading
    /// `input` included) leaves the pieces before it written and durable, the failed piece's
    /// range each byte old or new (a cut write, as for `write`), and nothing after it. Why
    /// not atomic like `put`: a write updates the file in place (no staging name to switch),
    /// and one `write` of more than a plan's chunk was never atomic either. The error says
    /// how far the input is durable, so the rest can be written again from there.
    pub fn write_from(
        &self,
        name: &str,
        offset_bytes: u64,
        input: &mut dyn std::io::Read,
    ) -> Result<u64, StoreError> {
        self.check_usable()?;
        let mut piece = Vec::new();
        read_piece(input, &mut piece)?;
        if piece.is_empty() {
            return Err(StoreError::BadInput(
                "a write of 0 bytes does nothing: give at least one byte".into(),
            ));
        }
        // Before the name is created, as `write` does: a write refused at once leaves no file.
        self.check_file_end(offset_bytes, piece.len() as u64)?;
        let (file, created) = self.file_or_create_new(name, true)?;
        let mut done_bytes = 0u64;
        while !piece.is_empty() {
            assert!(piece.len() <= PUT_PIECE_BYTES);
            // No overflow: a piece written ended at most at `file_bytes_max` (`write_id`).
            let at_bytes = offset_bytes + done_bytes;
            let next = self.write_id(file, at_bytes, &piece).and_then(|()| {
                done_bytes += piece.len() as u64;
                read_piece(input, &mut piece)
            });
            if let Err(e) = next {
                if done_bytes == 0 && created {
                    return Err(self.unmake_failed_new_file(e, name, file));
                }
                if done_bytes == 0 {
                    return Err(e); // nothing acknowledged: the error as `write` gives it
                }
                let durable_end = offset_bytes + done_bytes;
                return Err(piece_failure(e).with_context(&format!(
                    "the first {done_bytes} bytes of the input are written at offsets \
                     {offset_bytes}..{durable_end} and durable; the piece from offset \
                     {durable_end} (at most {PUT_PIECE_BYTES} bytes) was not acknowledged \
                     (each of its bytes old or new) and nothing after it was written: write \
                     the rest of the input from offset {durable_end}"
                )));
            }
        }
        Ok(done_bytes)
    }

    /// `write` to a file known by id (the temporary file of `put` has no user name).
    fn write_id(&self, file: u64, offset_bytes: u64, data: &[u8]) -> Result<(), StoreError> {
        let len = data.len() as u64;
        self.check_file_end(offset_bytes, len)?;
        // Window bytes held only on a failed OSS go out of the planner first (recorded as
        // lost), so that this write's plans (and the timers it runs) never read them.
        self.record_unavailable_window_osses()?;
        self.absorb_losses()?;
        // The timers this write runs must not meet a window's unreadable only copy.
        self.settle_before_timeout_over_unreadable_window_bytes()?;
        {
            let _shared = self.gate.read();
            // A removal (exclusive) may have run between the name's lookup and this share:
            // writing on would plan into a file whose objects are gone, and make them again
            // where nothing ever deletes them (and cache bytes of a file no one can read).
            if self.core.lock().state.file_by_id(file).is_none() {
                return Err(StoreError::BadInput(format!(
                    "the file (#{file}) was removed (`rm`, or replaced by a `put`) while this write waited to run; nothing of this write was done: write again to write into the file of that name now"
                )));
            }
            let mut done = 0u64;
            while done < len {
                let chunk = (len - done).min(WRITE_CHUNK_BYTES_MAX);
                let piece = &data[done as usize..(done + chunk) as usize];
                self.write_chunk(file, offset_bytes + done, piece)?;
                done += chunk;
            }
        }
        // The write is durable from here on: what follows is upkeep, and its failure must
        // not read as a failed write (review s6r R6-4: "Nothing was changed" while the
        // bytes were in the file, against docs/store.md F4).
        let durable = "this write's bytes are written and durable (the file has them)";
        self.keep_unprotected_bound(durable)?;
        if self.core.lock().journal.len_bytes() > JOURNAL_BYTES_CHECKPOINT {
            self.checkpoint().map_err(|e| {
                e.with_context(&format!("{durable}; the checkpoint after it failed"))
            })?;
        }
        Ok(())
    }

    /// The upkeep every open runs on its own: losses of an OSS failed inside a delayed
    /// window absorbed (their settle), then due window timeouts fired. Refused for room (a
    /// full OSS or metadata disk) before it changed anything, it is deferred with a warning
    /// told at close, as `keep_unprotected_bound` does, and the open goes on. Why (review
    /// s17r R17-1, R17-1b, R17-3): the refusal failed the open, so every command, `get` of
    /// an untouched file and `status` included, was refused while the disk was full, and
    /// the way out the message named (`rm`) too. Deferred, nothing is lost or misread: the
    /// lost bytes are on record (reads of them are refused naming them), the window's other
    /// bytes read from the cache zone, and every write, END, timeout and flush runs this
    /// upkeep first, refused the same way until there is room; the next open tries again.
    /// `timeout_met_lost_bytes` is set when a due timeout's parity plan failed half way on
    /// window bytes it could neither read nor rebuild (the store is poisoned; a reopen
    /// recovers, recording them lost).
    fn upkeep_at_open(&self, timeout_met_lost_bytes: &mut bool) -> Result<(), StoreError> {
        let deferred = |e: StoreError, what: &str, refused: &str| -> Result<(), StoreError> {
            let refused_unchanged =
                matches!(e, StoreError::NoSpace(_)) && !self.poisoned.load(Ordering::SeqCst);
            if !refused_unchanged {
                return Err(e);
            }
            self.deferred_warnings.lock().push(format!(
                "{what} was deferred: {e}. This command went on without it, and what it read is right; every later command tries it again first{refused}"
            ));
            Ok(())
        };
        if let Err(e) = self.absorb_losses() {
            // Its error says what is refused meanwhile (see `absorb_losses`).
            let what = "the store's own settle after an OSS failure inside a delayed window";
            return deferred(e, what, "");
        }
        if let Err(e) = self.tick() {
            *timeout_met_lost_bytes = matches!(e, StoreError::DataLost(_))
                && self.poisoned.load(Ordering::SeqCst)
                && self.reads_only.lock().is_none();
            return deferred(
                e,
                "a delayed window's due timeout (its parity; `exaraid store status` lists the open windows, whose bytes stay readable in the cache zone meanwhile)",
                ", and writes and END are refused until it is done",
            );
        }
        Ok(())
    }

    /// Advance the parity if more bytes are without it than the bound, after `done` (what
    /// is already durable, said in any error). A full disk that refuses the advance before it
    /// changed anything leaves a warning, not an error: the bytes stay unprotected past the
    /// bound until a settle finds room.
    fn keep_unprotected_bound(&self, done: &str) -> Result<(), StoreError> {
        if let Err(e) = self.enforce_unprotected_bound() {
            let refused_unchanged =
                matches!(e, StoreError::NoSpace(_)) && !self.poisoned.load(Ordering::SeqCst);
            if !refused_unchanged {
                return Err(e.with_context(&format!(
                    "{done}; what failed is the parity advance past the bound on unprotected bytes that followed it"
                )));
            }
            // As a write past the bound keeps its bytes while a background worker lags.
            let warning = format!(
                "{} bytes stay without parity, past the bound of {} (--unprotected-max-bytes): advancing the parity needs room that is not there ({e}); {done}. `exaraid store flush` once there is room",
                self.unprotected_bytes(),
                self.sb.unprotected_bytes_max
            );
            let mut warnings = self.deferred_warnings.lock();
            // Bounded: the latest such warning only.
            warnings.retain(|w| !w.contains("--unprotected-max-bytes"));
            warnings.push(warning);
        }
        Ok(())
    }

    /// More bytes without parity than the store's bound: advance the parity (seed 004
    /// section 2.2: "The WCL ... can also advance the calculation in the background"). The
    /// planner has no input for a partial advance, so the store settles: every cached byte
    /// goes home with parity and open windows stay open (later writes in them are again
    /// unprotected until END).
    ///
    /// The rule: without a background worker the writer advances the parity itself before
    /// it returns (unprotected bytes <= bound when a write returns). While a worker serves
    /// ([`Store::serve_background`]) the writer only asks it and returns; past
    /// [`UNPROTECTED_LAG_FACTOR`] times the bound (the worker lags far behind) the writer
    /// waits until the worker has advanced the parity or found the bound kept (and advances
    /// it itself if the worker stops). So a write never returns having seen more than that
    /// hard limit of unprotected bytes.
    fn enforce_unprotected_bound(&self) -> Result<(), StoreError> {
        let max = self.sb.unprotected_bytes_max;
        let unprotected = self.unprotected_bytes();
        if unprotected <= max {
            return Ok(());
        }
        if !self.background_served.load(Ordering::SeqCst) {
            return self.settle_telling_cache_losses(BOUND_SETTLE);
        }
        // Every advance that ends after this point started after this write was done (the
        // write held the gate shared, an advance holds it exclusively), so it covers it.
        let epoch = *self.advances.lock();
        self.advance_requested.store(true, Ordering::SeqCst);
        self.background_cv.notify_all();
        if unprotected <= max.saturating_mul(UNPROTECTED_LAG_FACTOR) {
            return Ok(());
        }
        let mut advances = self.advances.lock();
        while *advances == epoch {
            // A worker whose timers a full disk refuses retries them at its pace: this writer
            // tries the advance itself (refused the same way, a warning: `keep_unprotected_bound`).
            let refused = self.background_refused.lock().is_some();
            if !self.background_served.load(Ordering::SeqCst) || refused {
                drop(advances);
                return self.settle_telling_cache_losses(BOUND_SETTLE);
            }
            self.check_usable()?;
            self.advance_cv.wait_for(
                &mut advances,
                std::time::Duration::from_millis(SERVE_POLL_MS),
            );
        }
        Ok(())
    }

    fn unprotected_bytes(&self) -> u64 {
        let core = self.core.lock();
        core.strategy
            .unprotected()
            .iter()
            .map(|u| u.len_bytes)
            .sum()
    }

    fn write_chunk(&self, file: u64, offset_bytes: u64, data: &[u8]) -> Result<(), StoreError> {
        let failed_before = self.core.lock().state.failed_oss.clone();
        let mut notes = FailureNotes::default();
        // Admitted again only after an OSS whose disk failed the reservation was recorded
        // failed (a failed OSS is not reserved on): once per OSS at most, and past the
        // tolerance the recording refuses.
        let mut written = || -> Result<(), StoreError> {
            for _ in 0..=self.backends.len() {
                let mut admit_again = false;
                self.write_chunk_once(file, offset_bytes, data, &mut admit_again, &mut notes)?;
                if !admit_again {
                    return Ok(());
                }
            }
            unreachable!("each new admission follows one more OSS recorded failed");
        };
        let written = written();
        let len_bytes = data.len() as u64;
        self.tell_failure_notes(
            written,
            &failed_before,
            notes,
            (file, offset_bytes, len_bytes),
        )
    }

    /// `written`, a write chunk's result, with what `notes` and the OSSs recorded failed
    /// since `failed_before` tell (merge review s18m M18-2): a refusal names the OSSs recorded
    /// failed while the write ran and the acknowledged window bytes that lost their only copy
    /// with them (those still lost on record), or says none did; a write that went on
    /// degraded stays Ok and warns (told at close) naming them, if any.
    fn tell_failure_notes(
        &self,
        written: Result<(), StoreError>,
        failed_before: &BTreeSet<usize>,
        notes: FailureNotes,
        (file, offset_bytes, len_bytes): (u64, u64, u64),
    ) -> Result<(), StoreError> {
        let core = self.core.lock();
        let newly: Vec<usize> = core
            .state
            .failed_oss
            .difference(failed_before)
            .copied()
            .collect();
        if newly.is_empty() && notes.lost.is_empty() {
            return written;
        }
        let mut lost: Vec<LostRange> = Vec::new();
        for l in &notes.lost {
            for r in core.state.lost_in(l.file, l.offset_bytes, l.len_bytes) {
                let (a, z) = (
                    r.offset_bytes.max(l.offset_bytes),
                    r.end_bytes().min(l.end_bytes()),
                );
                if a < z {
                    lost.push(LostRange {
                        offset_bytes: a,
                        len_bytes: z - a,
                        ..l.clone()
                    });
                }
            }
        }
        lost.sort_by(|x, y| {
            (x.file, x.offset_bytes, x.len_bytes).cmp(&(y.file, y.offset_bytes, y.len_bytes))
        });
        lost.dedup_by(|x, y| {
            (x.file, x.offset_bytes, x.len_bytes) == (y.file, y.offset_bytes, y.len_bytes)
        });
        if written.is_ok() && lost.is_empty() {
            return written; // degraded, nothing lost: as any write past a failed OSS
        }
        let dir = self.dir.display();
        let failed = if newly.is_empty() {
            "an OSS failed".to_string()
        } else {
            newly
                .iter()
                .map(|&oss| match notes.reserve_failed.iter().find(|(o, _)| *o == oss) {
                    Some((_, why)) => format!(
                        "OSS {oss} was recorded failed (its disk returned an I/O error on reserving room for new elements: {why})"
                    ),
                    None => format!("OSS {oss} was recorded failed"),
                })
                .collect::<Vec<String>>()
                .join(", ")
        };
        let rebuild = match newly.first() {
            // A refusal that advises it already says it once.
            Some(&oss) if written.is_err() && notes.rebuild_to_advised == Some(oss) => {
                String::new()
            }
            Some(oss) => format!(
                "; rebuild it onto a new disk: `exaraid store rebuild {dir} --oss {oss} --to NEWDIR`"
            ),
            None => String::new(),
        };
        // Window bytes on a failed OSS not yet on record (a failure recorded without its
        // losses, which the next open records: a poisoned store): none can be said lost or not.
        let unrecorded = self.poisoned.load(Ordering::SeqCst)
            || self.planner_lost(&core).iter().any(|l| {
                let on_record_bytes: u64 = core
                    .state
                    .lost_in(l.file, l.offset_bytes, l.len_bytes)
                    .iter()
                    .map(|r| r.end_bytes().min(l.end_bytes()) - r.offset_bytes.max(l.offset_bytes))
                    .sum();
                on_record_bytes < l.len_bytes
            });
        let later = if unrecorded {
            "; more may go on record when the store is next opened"
        } else {
            ""
        };
        let what = if lost.is_empty() && unrecorded {
            format!("the window bytes it lost, if any, go on record when the store is next opened (`exaraid store status {dir}` lists every lost range){rebuild}")
        } else if lost.is_empty() {
            format!("no acknowledged byte had its only copy there: none was lost{rebuild}")
        } else {
            let refs: Vec<&LostRange> = lost.iter().take(FAILURE_LOST_NAMED_MAX).collect();
            let mut names = self.lost_range_names(&core, &refs);
            let unnamed = lost.len() - refs.len();
            if unnamed > 0 || notes.lost_more {
                names.push(format!("and more ({unnamed}+ ranges)"));
            }
            let all: Vec<&LostRange> = lost.iter().collect();
            format!(
                "that lost the only copy of these acknowledged bytes, written inside a delayed window and without parity yet: {}. Reads of them fail until they are written again (`exaraid store status {dir}` lists every lost range){later}{}{rebuild}",
                names.join(", "),
                self.restorable_hint(&core, &dir.to_string(), &all),
            )
        };
        match written {
            Err(e) => Err(e.with_context(&format!("while this write ran, {failed}: {what}"))),
            Ok(()) => {
                let name = core
                    .state
                    .file_by_id(file)
                    .map(|(n, _)| read::describe_file_name(n))
                    .unwrap_or_else(|| format!("file #{file}"));
                self.deferred_warnings.lock().push(format!(
                    "the write of {name} bytes {offset_bytes}..{} went on degraded, but while it ran {failed}: {what}",
                    offset_bytes + len_bytes
                ));
                Ok(())
            }
        }
    }

    /// `write_chunk`, one admission; `admit_again` set (and nothing of the write done) when
    /// its reservation recorded an OSS failed (noted on `notes` with the bytes it lost).
    fn write_chunk_once(
        &self,
        file: u64,
        offset_bytes: u64,
        data: &[u8],
        admit_again: &mut bool,
        notes: &mut FailureNotes,
    ) -> Result<(), StoreError> {
        let write = ClientWrite {
            client: 0,
            app: 0,
            file,
            offset_bytes,
            len_bytes: data.len() as u64,
        };
        let (tick_plans, plans, unprotected_writes, refusal, in_flight_id) = {
            let mut core = self.core.lock();
            let now_ns = Self::now_ns(&core);
            let tick_plans = self.tick_locked(&mut core, now_ns, true)?;
            let plans = match core.strategy.on_write(&write, now_ns) {
                Ok(plans) => plans,
                Err(e) => {
                    // Refused before it changed the planner (a WCL cache stripe with too
                    // many writes in flight); the timers' plans still run: their tick is
                    // journaled and the planner waits for them.
                    let tick_plans = self.admit(tick_plans);
                    drop(core);
                    self.run_plans(tick_plans, None)?;
                    return Err(plan_err(e));
                }
            };
            let unprotected_writes = self.unprotected_writes(&plans);
            let doomed: Vec<&(usize, u64, u64)> = unprotected_writes
                .iter()
                .filter(|(oss, _, _)| self.oss_failed(&core, *oss))
                .collect();
            if !doomed.is_empty() {
                // Acknowledging it would keep these bytes nowhere (a failed OSS takes no
                // writes and no parity covers window bytes). Refuse it whole: forget the write
                // by rebuilding the planner without it, still run the timers' plans.
                let list: Vec<String> = doomed
                    .iter()
                    .map(|(oss, at, n)| format!("bytes {at}..{} (OSS {oss})", at + n))
                    .collect();
                let token = core
                    .state
                    .windows
                    .iter()
                    .find(|(_, w)| w.file == file)
                    .map(|(t, _)| t.clone())
                    .unwrap_or_default();
                let name = core
                    .state
                    .file_by_id(file)
                    .map(|(n, _)| n.clone())
                    .unwrap_or_default();
                core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                let tick_plans = self.admit(tick_plans);
                drop(core);
                self.run_plans(tick_plans, None)?;
                let oss = doomed[0].0;
                let dir = self.dir.display();
                // Its disk failed this write's reservation: rebuilt in place, the new
                // elements would go to that failing disk again.
                let rebuild = match notes.reserve_failed.iter().any(|(o, _)| *o == oss) {
                    true => {
                        notes.rebuild_to_advised = Some(oss);
                        format!("rebuild the OSS onto a new disk (`exaraid store rebuild {dir} --oss {oss} --to NEWDIR`)")
                    }
                    false => format!("rebuild the OSS (`exaraid store rebuild {dir} --oss {oss}`)"),
                };
                return Err(StoreError::Io(format!(
                    "write of '{name}' bytes {offset_bytes}..{} refused, nothing of it was written: the file has the open delayed window {token}, which keeps written bytes only in the cache zone of their data OSS, without parity, and {} of them would go to a failed OSS. End the window first (`exaraid store delayed end {dir} {token}`: writes outside a window get parity, also with a failed OSS) or {rebuild}",
                    offset_bytes + write.len_bytes,
                    list.join(", "),
                )));
            }
            // The timers' plans have their room already (`tick_locked`): the room this write
            // asks for is not what they then lack.
            let reserved = self
                .reserve(&plans)
                .and_then(|()| self.reserve_home_of_write(file, offset_bytes, write.len_bytes));
            if let Err(e) = reserved {
                // Nothing was written; forget the write by rebuilding the planner without it.
                // The timers' plans stay (their tick is journaled, the rebuilt planner waits
                // for them) and run now (they have their room), so a window that timed out
                // gets its parity now, not at the next open.
                core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                // A disk that failed the reservation (review s17r R17-4: an EIO from
                // `fallocate`) is recorded failed as a write step that meets it records it,
                // and the write is admitted again, degraded; refused alike it was refused at
                // every retry, and the `rebuild` the backend's message named was refused as
                // "healthy". Not with timers' plans made: a window timeout planned with
                // that OSS up may read window bytes the failure makes lost, a plan that
                // could never run (see `tick_locked`); the message names `fail` then.
                let err = match e {
                    ReserveError::Down { oss, name, why } if tick_plans.is_empty() => {
                        let lost = self.note_reserve_failed(&mut core, oss, &name, &why, true)?;
                        notes.reserve_failed.push((oss, why));
                        notes.note_lost(lost);
                        None
                    }
                    other => Some(self.reserve_error(other)),
                };
                let tick_plans = self.admit(tick_plans);
                drop(core);
                self.run_plans(tick_plans, None)?;
                return match err {
                    Some(e) => Err(e),
                    None => {
                        *admit_again = true;
                        Ok(())
                    }
                };
            }
            let size_before_bytes = core.state.file_by_id(file).map_or(0, |(_, m)| m.size_bytes);
            // The pieces this write's input drops (s45c): its read steps check the old bytes
            // they read against them (a lost write under a partial overwrite). Not those over
            // bytes lost on record: their loss is told already, and the write of them again
            // reads what a lost-row reset or recovery left there, not the piece's bytes.
            let displaced: WitnessPieces = match self.home_witnessed() {
                true => (core.state)
                    .home_witness_in(file, offset_bytes, offset_bytes + write.len_bytes)
                    .into_iter()
                    .filter(|&(pa, pz, _)| core.state.lost_in(file, pa, pz - pa).is_empty())
                    .collect(),
                false => Vec::new(),
            };
            let crcs = self.write_crcs(&plans, file, offset_bytes, data);
            let journaled = self.journal(
                &mut core,
                Rec::Input(Input::Write {
                    file,
                    offset_bytes,
                    len_bytes: write.len_bytes,
                    now_ns,
                    crcs_follow: crcs.is_some()
                        && self.write_crcs_journaled(crate::state::WriteCrcsJournaled::Data),
                    // Its home crcs are the next record (below, under this lock).
                    home_crcs_follow: crcs.is_some()
                        && !self.write_crcs_journaled(crate::state::WriteCrcsJournaled::Data),
                }),
                false,
            );
            if let Err(e) = journaled {
                // Not on record (a full metadata disk): forget the write as a refused
                // reservation does, and run the timers' plans. Why (review s28r R28-1):
                // left in the planner, its plans never ran, yet a WCL lookup named its cache
                // slots as the newest bytes (a read returned bytes no write put, with
                // success) and the journal's next completions named plan ids a replay never
                // gives (the store no longer opened).
                core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                let tick_plans = self.admit(tick_plans);
                drop(core);
                self.run_plans(tick_plans, None)?;
                return Err(e);
            }
            let refusal = exec::Refusal {
                then_dropped: plans.iter().map(|p| p.id).collect(),
                file,
                offset_bytes,
                len_bytes: write.len_bytes,
                size_before_bytes,
                input_index: core.state.inputs.len() - 1,
            };
            if let Some(crcs) = crcs {
                if let Err(e) = self.journal(&mut core, Rec::WriteCrcs(crcs), false) {
                    // The write is on record, its crcs are not: none of its plans may run (a
                    // write with no crcs after its input is taken at the next open as never
                    // begun or, at full tolerance, as cut right after its input, which
                    // recovery handles), and no replay forgets it. Left going, this
                    // process's planner would name cache slots nobody wrote as the newest
                    // bytes (WCL, review s28r R28-1), and on rmw the state would hold the
                    // write's size and written runs without its bytes (a read of an
                    // extension read never-written slots: review of the fix). Poisoned, the
                    // store reads and changes nothing more until it is reopened; reads
                    // check that under the core lock (`read_to`).
                    self.poisoned.store(true, Ordering::SeqCst);
                    return Err(e.with_context(
                        "the write was refused, nothing of it was written; reopen the store (it recovers on open)",
                    ));
                }
            }
            // Before any of its plans can run (they are admitted below, under this lock): a
            // later plan that records a loss finds the write in flight. Ids are given in
            // order: a plan with a higher id was planned (and admitted) after these.
            let write_plan = plans
                .iter()
                .filter(|p| matches!(p.cause, exaraid_plan::PlanCause::Write { .. }))
                .map(|p| p.id)
                .max()
                .unwrap_or(PlanId::MAX);
            if !displaced.is_empty() {
                let displaced = Arc::new(displaced);
                for p in plans.iter().filter(|p| p.id <= write_plan) {
                    core.displaced_home_pieces.insert(p.id, displaced.clone());
                }
            }
            let in_flight_id = core.write_in_flight_next;
            core.write_in_flight_next += 1;
            let in_flight = WriteInFlight {
                file,
                offset_bytes,
                len_bytes: write.len_bytes,
                write_plan,
                lost: Vec::new(),
                collapsed: false,
                rewritten: Vec::new(),
                rewritten_overflow: false,
                failure_lost: Vec::new(),
                failure_lost_more: false,
            };
            assert!(
                core.writes_in_flight
                    .insert(in_flight_id, in_flight)
                    .is_none(),
                "write in flight numbers are unique"
            );
            (
                self.admit(tick_plans),
                self.admit(plans),
                unprotected_writes,
                refusal,
                in_flight_id,
            )
        };
        crate::torture::pause_point(crate::torture::WRITE_PLANS_ADMITTED);
        // A plan that fails before its first write says so (`Rec::WroteNothing`), naming
        // this write's plans that then never run: the next open takes the write as never
        // made (review s9s S9-1, S9-3), not as cut by a crash.
        let mut destage_lost: Vec<LostRange> = Vec::new();
        let ran = self
            .run_plans_refusable(
                tick_plans,
                None,
                false,
                Some(&refusal),
                &mut Vec::new(),
                None,
            )
            .and_then(|()| {
                let refusal = exec::Refusal {
                    then_dropped: Vec::new(),
                    ..refusal
                };
                self.run_plans_refusable(
                    plans,
                    Some((&write, data)),
                    false,
                    Some(&refusal),
                    &mut destage_lost,
                    None,
                )
            });
        if ran.is_ok() {
            crate::torture::pause_point(crate::torture::WRITE_PLANS_RAN);
        }
        let mut core = self.core.lock();
        let in_flight = core
            .writes_in_flight
            .remove(&in_flight_id)
            .expect("a write stays in flight until its end");
        // Its plans ran (or never will): their displaced pieces are checked or moot.
        for id in &refusal.then_dropped {
            core.displaced_home_pieces.remove(id);
        }
        // Window bytes an OSS failure took while this write ran, less this write's own
        // (named below): told with the write's result (`write_chunk`).
        let not_own = |l: &LostRange| -> Vec<LostRange> {
            unprotected_writes
                .iter()
                .fold(vec![l.clone()], |left, &(_, at, n)| {
                    left.into_iter()
                        .flat_map(|l| l.outside(file, at, n))
                        .collect()
                })
        };
        notes.lost_more |= in_flight.failure_lost_more;
        notes.note_lost(in_flight.failure_lost.iter().flat_map(not_own));
        ran?;
        // An OSS that failed while this write ran took its window bytes with it (the
        // executor skips a failed OSS, relying on parity that window bytes do not have).
        let lost: Vec<&(usize, u64, u64)> = unprotected_writes
            .iter()
            .filter(|(oss, _, _)| self.oss_failed(&core, *oss))
            .collect();
        if !lost.is_empty() {
            let list: Vec<String> = lost
                .iter()
                .map(|(oss, at, n)| format!("bytes {at}..{} (OSS {oss})", at + n))
                .collect();
            // Earlier window bytes too when the failure left them off record till now.
            let recorded = self.record_losses(&mut core)?;
            notes.note_lost(recorded.iter().flat_map(not_own));
            return Err(StoreError::DataLost(format!(
                "write failed: an OSS failed while it was written inside a delayed window, and these bytes had their only copy there: {}; they are recorded as lost (`exaraid store status`), write them again",
                list.join(", ")
            )));
        }
        // Bytes of this write that a destage of its cache stripe, run after the write was
        // durable, could not tell (see `destage_reads_by_check`): lost after this write,
        // on record already (the destage journaled them, synced), never cleared as
        // rewritten below, and the write says so rather than return as if every byte of
        // it reads. Inline, the
        // destage ran in this thread (`destage_lost`); run by the background worker, or any
        // later plan's check, while this write was in flight: noted on `in_flight` (both,
        // inline).
        for l in destage_lost
            .iter()
            .filter(|l| l.overlaps(file, offset_bytes, write.len_bytes))
        {
            assert!(
                in_flight.lost.contains(l) || in_flight.may_lack_note_of(l),
                "a destage of this write's plans noted its losses on the write in flight"
            );
        }
        let end_bytes = offset_bytes + write.len_bytes;
        let own_lost: Vec<LostRange> = in_flight
            .lost
            .into_iter()
            .filter(|l| l.overlaps(file, offset_bytes, write.len_bytes))
            .map(|l| {
                let a = l.offset_bytes.max(offset_bytes);
                let z = l.end_bytes().min(end_bytes);
                LostRange {
                    offset_bytes: a,
                    len_bytes: z - a,
                    ..l
                }
            })
            .collect();
        // On record already (a later write's `Rewritten` takes its range off the notes of
        // the writes in flight before it, as off the record), unless the notes outgrew
        // their bound and name the whole write: then again, before any `Rewritten` (which
        // never covers them, below).
        let off_record = own_lost.iter().any(|l| {
            let on_record_bytes: u64 = core
                .state
                .lost_in(file, l.offset_bytes, l.len_bytes)
                .iter()
                .map(|r| r.end_bytes().min(l.end_bytes()) - r.offset_bytes.max(l.offset_bytes))
                .sum();
            on_record_bytes < l.len_bytes
        });
        if off_record {
            self.journal(
                &mut core,
                Rec::Lost {
                    ranges: own_lost.clone(),
                },
                true,
            )?;
        }
        // Durable again: the rest of this write's bytes read as written from now on. Never
        // its own bytes lost since (`own_lost`): a `Rewritten` over them would clear the
        // destage's record of them, and journaling them lost again after it left a power
        // cut between the two records that kept the stale bytes home with no loss on
        // record, read with success (s17f, note16 OPEN 6a). So one `Rewritten` per part of
        // the write between them, the last one synced: a cut before it leaves older losses
        // of the write's range on record (named, never wrong; the write had not returned).
        // Losses recorded outside plans while this write was in flight are not noted, and
        // cleared here: rightly (s17a's leftover, s18e). The write holds the gate shared and
        // the store borrowed, so settle, recovery, `online`, `rebuild`, a removal's records
        // (exclusive gate, `&mut self`, the open) never run meanwhile and scrub records no
        // loss; what can is `record_losses` (`fail_oss`, a tick, a read, another write's
        // end): a delayed window's bytes whose only copy is on a failed OSS. Were they this
        // write's, the check above (same lock hold) found its unprotected write on that
        // failed OSS and returned before any `Rewritten`; else they are older bytes this
        // write replaced with its own, durable.
        let mut rewritten: Vec<(u64, u64)> = Vec::new();
        let mut at = offset_bytes;
        let mut holes: Vec<(u64, u64)> = own_lost
            .iter()
            .map(|l| (l.offset_bytes, l.end_bytes()))
            .collect();
        holes.sort_unstable();
        for (a, z) in holes
            .into_iter()
            .chain(std::iter::once((end_bytes, end_bytes)))
        {
            if at < a && !core.state.lost_in(file, at, a - at).is_empty() {
                rewritten.push((at, a));
            }
            at = at.max(z);
        }
        assert!(
            rewritten.len() <= own_lost.len() + 1,
            "one part of the write before, between and after its own lost ranges"
        );
        let last = rewritten.len().saturating_sub(1);
        for (i, &(a, z)) in rewritten.iter().enumerate() {
            self.journal(
                &mut core,
                Rec::Rewritten {
                    file,
                    offset_bytes: a,
                    len_bytes: z - a,
                },
                i == last,
            )?;
            // Under the same lock as the record changes: see `forget_rewritten`. Only the
            // writes admitted before this one (lower numbers): a loss noted on a later one
            // came from a plan admitted after this write's plans, so it is on this write's
            // notes too (`own_lost`) and outside every `Rewritten` here.
            for w in core
                .writes_in_flight
                .range_mut(..in_flight_id)
                .map(|(_, w)| w)
            {
                w.forget_rewritten(file, a, z - a);
            }
        }
        if !own_lost.is_empty() {
            let refs: Vec<&LostRange> = own_lost.iter().collect();
            return Err(self.lost_error(
                &core,
                &refs,
                "write: every byte of it is durable but these, which the move home of its complete WCL cache stripe (a destage), or a later write's check, run while it was in flight, could not tell",
            ));
        }
        Ok(())
    }

    /// The crcs of a client write's bytes, journaled with its input (`Rec::WriteCrcs`),
    /// where its plans write a WCL cache stripe (see `write_crcs_journaled`), or home data
    /// on a non-WCL store whose code tolerates two or more failures
    /// (`home_write_crcs_journaled`).
    fn write_crcs(
        &self,
        plans: &[IoPlan],
        file: u64,
        offset_bytes: u64,
        data: &[u8],
    ) -> Option<crate::state::WriteCrcs> {
        let zone = if self.write_crcs_journaled(crate::state::WriteCrcsJournaled::Data) {
            PlanZone::Cache
        } else if self.home_write_crcs_journaled() {
            PlanZone::Data
        } else {
            return None;
        };
        let client_plans: Vec<u64> = plans
            .iter()
            .filter(|p| matches!(p.cause, exaraid_plan::PlanCause::Write { .. }))
            .filter(|p| p.steps.iter().any(|s| s.op == Op::Write && s.zone == zone))
            .map(|p| p.id)
            .collect();
        if client_plans.is_empty() {
            return None;
        }
        Some(crate::state::WriteCrcs::of(
            client_plans,
            file,
            offset_bytes,
            data,
        ))
    }

    /// Does a client write of this store journal its crcs of kind `what` (`Rec::WriteCrcs`
    /// with its input, `Rec::WriteParityCrcs` before its running parity writes)? Every WCL
    /// store: the open proves by them a write cut after its acknowledgement whole on disk
    /// (`cut_durable`), on any code. Recovery's parity proofs use them only where they prove
    /// something (`Store::parity_proofs_use_write_crcs`). `EXARAID_BENCH_WRITE_CRCS`
    /// (`none`, `data`; read once) turns them off for a benchmark of their cost, side by
    /// side in one process: never set by the tests, never set in production (recovery then
    /// proves less, as with a journal of an older binary).
    pub(super) fn write_crcs_journaled(&self, what: crate::state::WriteCrcsJournaled) -> bool {
        self.kind == StrategyKind::Wcl && what <= write_crcs_bench_limit()
    }

    /// Does a client write of this non-WCL store journal the crcs of the bytes it writes
    /// home (`Rec::WriteCrcs` with its input, unsynced: a kill keeps both)? Where the code
    /// tolerates two or more failures. Why: a torn home block of a cut read-modify-write
    /// (new payload under its old checksum) and a block that rotted beside it fail their
    /// checksums alike, and within the tolerance the stripe can still decode the rotten
    /// one; the crcs tell recovery which is which (`home_block_landed`, review s20r R20-1,
    /// s19r R19-1). On single parity too since s25b (review s24r R24-2, its home-zone
    /// variant): a torn block and a rotten bit on the SAME OSS are one column, within the
    /// tolerance, and without the crcs recovery kept the rotten bytes as torn ones (raid5
    /// rmw: a flipped bit read back with success). Synced with the input before the first
    /// home write (s22f's fsync): no fsync more.
    pub(super) fn home_write_crcs_journaled(&self) -> bool {
        self.kind != StrategyKind::Wcl
            && self.tolerance() >= 1
            && crate::state::WriteCrcsJournaled::Data <= write_crcs_bench_limit()
    }

    /// Does a client plan of this non-WCL store journal the crcs of the home parity it
    /// writes (`Rec::WriteParityCrcs`, before its first write, unsynced), beside its data
    /// crcs (`home_write_crcs_journaled`)? On one-row codes of two or more parities, where
    /// recovery's proofs read them (`confirm_by_one_version`, review s21r R21-2; on single
    /// parity it reads none, nor on an array code, whose column is many symbols).
    pub(super) fn home_parity_crcs_journaled(&self) -> bool {
        self.home_edge_crcs_journaled() && self.tolerance() >= 2 && self.layout.geometry().rows == 1
    }

    /// Does a client plan of this non-WCL store read its home data edge blocks whole and
    /// journal the crc of each as a whole after the write (`WriteParityCrcs::edge_blocks`,
    /// s24a)? Wherever its data crcs are journaled: those tell recovery a torn block from a
    /// rotten one only in the write's part, and a torn edge block whose part matches falls
    /// to s22g's rule (`decide_unproven_cut_block`), which without this crc recorded a crash
    /// alone's acknowledged bytes beside the part LOST. Where no parity crcs are journaled
    /// (single parity since s25b, array codes since s27b) the record holds these crcs
    /// alone (no parity pieces). Array codes too since s27b (review s26r R26-1): a
    /// half-written stripe of new data columns and old parity decodes no version the
    /// block's old checksum proves, so a crash alone lost the block's acknowledged bytes
    /// beside the write and left its row's parity marked bad; the crcs name the element's
    /// row (`EdgeBlockCrc::row`, `WindowPageCutCrcs::row`), as s25a's cache edge crcs do.
    pub(super) fn home_edge_crcs_journaled(&self) -> bool {
        self.home_write_crcs_journaled()
            && crate::state::WriteCrcsJournaled::DataAndParity <= write_crcs_bench_limit()
    }

    /// Does a WCL client plan journal the crc of each whole new cache data edge block
    /// (`WriteParityCrcs::edge_blocks`, s24d)? Every WCL store: its parity crcs record is
    /// synced before its first cache write (`sync_write_crcs_before_cache_writes`, on array
    /// codes since s24b: no fsync more; the plan reads the block anyway: no read more) and
    /// recovery reads it (`cache_whole_block_crcs`, review s24r R24-1; on array codes since
    /// s25a, R24-3: the crcs name the element's row).
    pub(super) fn cache_edge_crcs_journaled(&self) -> bool {
        self.write_crcs_journaled(crate::state::WriteCrcsJournaled::DataAndParity)
    }

    /// Do recovery's parity proofs of a cut WCL write (`confirm_by_parity` over the views of
    /// `first_write_views`, `confirm_by_versions`) take the write's journaled crcs? Only on a
    /// one-row code with two or more parities, where they were made and checked for (session
    /// 8 and 9): on fewer, nor on an array code (a column is many symbols), they are not
    /// relied on; there the crcs serve `cut_durable` alone.
    pub(super) fn parity_proofs_use_write_crcs(&self) -> bool {
        self.layout.geometry().rows == 1 && self.tolerance() >= 2
    }

    /// The file bytes the plans write with no parity at all: `(oss, file offset, length)` of
    /// every cache-zone write of a delayed window (WCL cache stripes have their own parity).
    fn unprotected_writes(&self, plans: &[IoPlan]) -> Vec<(usize, u64, u64)> {
        if self.kind != StrategyKind::Delayed {
            return Vec::new();
        }
        let mut out = Vec::new();
        for plan in plans {
            for step in &plan.steps {
                if step.op != Op::Write || step.zone != PlanZone::Cache {
                    continue;
                }
                for piece in &step.pieces {
                    let Some(Bytes::Client { file_offset_bytes }) = piece.source else {
                        continue;
                    };
                    out.push((step.oss, file_offset_bytes, piece.element.len_bytes));
                }
            }
        }
        out
    }

    /// Reserve every slot the plans write, so that a full OSS fails before any write.
    fn reserve(&self, plans: &[IoPlan]) -> Result<(), ReserveError> {
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
        self.try_reserve_keys(per_oss)
    }

    /// Reserve the home slots (every data and parity element) of the stripes a write lands
    /// in, when it is admitted. Why (review s4e E6): a settle, a destage or a window's END
    /// moves cached bytes home and writes every element of their stripes; on a nearly full
    /// OSS those home slots could not be allocated any more, and the acknowledged bytes were
    /// stuck in the cache zone (every later settle failed, also the one `rm` needs to free
    /// space). Reserved at admission, a full OSS refuses the write (nothing written) and
    /// whatever is acknowledged can always go home. Every write path, rmw and raid0 too:
    /// the recovery of a write a crash cut settles its stripes, and a settle writes every
    /// element of them, also those the write itself did not touch (review s12r R12-3: an
    /// rmw write killed on a full store left a recovery that found no room, at every open).
    /// Slots already allocated cost one `fstat` each.
    fn reserve_home_of_write(
        &self,
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<(), ReserveError> {
        if len_bytes == 0 {
            return Ok(());
        }
        let sdb = self.layout.stripe_data_bytes();
        let first = offset_bytes / sdb;
        let last = (offset_bytes + len_bytes - 1) / sdb;
        assert!(first <= last);
        let stripes: BTreeSet<(u64, u64)> = (first..=last).map(|s| (file, s)).collect();
        self.reserve_home_stripes(&stripes)
    }

    /// Reserve every home slot (data and parity) of `stripes` on the OSSs that are up
    /// (a failed OSS takes no writes: a rebuild allocates its slots).
    pub(super) fn reserve_home_stripes(
        &self,
        stripes: &BTreeSet<(u64, u64)>,
    ) -> Result<(), ReserveError> {
        let g = self.layout.geometry();
        let mut per_oss: BTreeMap<usize, BTreeSet<ElementKey>> = BTreeMap::new();
        for &(file, stripe) in stripes {
            for col in 0..g.cols {
                for row in 0..g.rows {
                    if let Some((oss, key)) = self.home_key(file, stripe, Pos { row, col }) {
                        per_oss.entry(oss).or_default().insert(key);
                    }
                }
            }
        }
        self.try_reserve_keys(per_oss)
    }

    /// Reserve `keys` on each OSS that is up; a full one is `NoSpace`. An OSS whose disk
    /// fails the reservation is told apart (`ReserveError::Down`): a write or a settle
    /// records that OSS failed and goes on degraded, as a write step does (review s17r
    /// R17-4). Tried again like a write step (`IO_TRIES_MAX`):
    /// reserving a slot that is reserved already changes nothing.
    pub(super) fn try_reserve_keys(
        &self,
        per_oss: BTreeMap<usize, BTreeSet<ElementKey>>,
    ) -> Result<(), ReserveError> {
        for (oss, keys) in per_oss {
            let b = &self.backends[oss];
            if !b.healthy() {
                continue;
            }
            let keys: Vec<ElementKey> = keys.into_iter().collect();
            let mut tries = 1;
            loop {
                match b.reserve(&keys) {
                    Ok(()) => break,
                    Err(e) if e.is_unavailable() && b.healthy() && tries < exec::IO_TRIES_MAX => {
                        tries += 1;
                    }
                    Err(crate::backend::BackendError::Unavailable { oss: name, why }) => {
                        return Err(ReserveError::Down { oss, name, why });
                    }
                    Err(e @ crate::backend::BackendError::NoSpace { .. }) => {
                        return Err(ReserveError::Store(StoreError::NoSpace(format!("{e}"))));
                    }
                    Err(other) => return Err(ReserveError::Store(StoreError::Backend(other))),
                }
            }
        }
        Ok(())
    }

    /// A `ReserveError` as the caller's error: `Down` names `fail` then `rebuild`, not the
    /// backend's "writes need `exaraid store rebuild`" (nothing recorded this OSS failed, so
    /// that rebuild was refused as healthy: review s17r R17-4).
    pub(super) fn reserve_error(&self, e: ReserveError) -> StoreError {
        match e {
            ReserveError::Store(e) => e,
            ReserveError::Down { oss, name, why } => {
                let dir = self.dir.display();
                StoreError::Io(format!(
                    "OSS {oss} ({name}): its disk returned an I/O error on reserving room for new elements ({why}); the command stopped there. The disk may be failing: record the OSS failed with `exaraid store fail {dir} --oss {oss}` (every byte then reads degraded), then rebuild it, onto a new disk: `exaraid store rebuild {dir} --oss {oss} --to NEWDIR`"
                ))
            }
        }
    }

    /// A reservation met OSS `oss`'s disk failing (`ReserveError::Down`): record the OSS
    /// failed as a write step that meets the EIO does (`note_all_failed_then_durable`), so
    /// the write (or settle) can be admitted again, degraded. A write calls it with the
    /// planner rebuilt without the write (its bytes are not on record: none of them may
    /// count as lost); a settle before its `SettleBegin` (nothing of it done). Past the
    /// tolerance nothing goes on record and the error says so.
    /// Returns the window bytes recorded lost with it, with their cache address when the
    /// OSS answered until now and `planner_addresses_filled` (the caller's planner names no
    /// address a cut write never filled: not in recovery): only its `fallocate` failed, its
    /// disk may still read them, and `online` takes back what verifies (as after
    /// `fail_oss`; the same argument holds, see `record_losses_addressed`: under the core
    /// lock no plan is admitted, and bytes of writes in flight stay unaddressed).
    fn note_reserve_failed(
        &self,
        core: &mut Core,
        oss: usize,
        name: &str,
        why: &str,
        planner_addresses_filled: bool,
    ) -> Result<Vec<LostRange>, StoreError> {
        let keep_addresses = self.backends[oss].healthy() && planner_addresses_filled;
        self.backends[oss].set_failed(true);
        let down = self.unavailable_set(core);
        if down.len() > self.tolerance() {
            // Up again for this process, as it was: the refusal changed nothing (reads of
            // it still work, past the tolerance they are the only way to the bytes).
            self.backends[oss].set_failed(false);
            return Err(self.reserve_down_past_tolerance(core, oss, name, why, &down));
        }
        let mut lost = Vec::new();
        if !core.state.failed_oss.contains(&oss) {
            self.journal_fails(core, &[oss], false, None)?;
            lost = self.record_losses_addressed(core, keep_addresses.then_some(oss))?;
        }
        self.absorbed_failures.lock().clear();
        Ok(lost)
    }

    /// The refusal when OSS `oss`'s disk failed a reservation (`name`, `why`) and recording
    /// it failed would put the OSSs out of service (`down`, `oss` among them) past the
    /// tolerance. Why not `too_many_unavailable`: it counted that OSS among those "not
    /// answering" and told to check that their directories are mounted, but its disk
    /// answered, with an I/O error; only OSSs whose directory does not answer are named to
    /// mount, each with its path.
    fn reserve_down_past_tolerance(
        &self,
        core: &Core,
        oss: usize,
        name: &str,
        why: &str,
        down: &BTreeSet<usize>,
    ) -> StoreError {
        let named = |i: usize| match self.backends[i].problem() {
            Some(problem) => format!("OSS {i} ({}: {problem})", self.backends[i].location()),
            None => format!("OSS {i} ({})", self.backends[i].location()),
        };
        let failed: Vec<usize> = (down.iter().copied())
            .filter(|i| *i != oss && core.state.failed_oss.contains(i))
            .collect();
        let missing: Vec<usize> = (down.iter().copied())
            .filter(|i| *i != oss && !core.state.failed_oss.contains(i))
            .collect();
        let list = |osses: &[usize]| {
            osses
                .iter()
                .map(|&i| named(i))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let dir = self.dir.display();
        let mut out_already = Vec::new();
        if !failed.is_empty() {
            out_already.push(format!("failed on record: {}", list(&failed)));
        }
        if !missing.is_empty() {
            out_already.push(format!("not answering now: {}", list(&missing)));
        }
        // A directory that does not answer may be a missing mount; one whose own metadata
        // is damaged answers (named with its problem above).
        let unmounted: Vec<usize> = (missing.iter().copied())
            .filter(|&i| self.backends[i].problem().is_none())
            .collect();
        let mut ways = Vec::new();
        if !unmounted.is_empty() {
            ways.push(format!(
                "mount the directories of those not answering again ({}: their paths are in the superblock, {})",
                list(&unmounted),
                self.dir.join(crate::superblock::SUPERBLOCK_FILE).display()
            ));
        }
        if let Some(&first) = failed.first() {
            ways.push(format!(
                "bring a failed one back (`exaraid store rebuild {dir} --oss {first} --to NEWDIR`, or `exaraid store online {dir} --oss {first}` if its disk works again)"
            ));
        }
        let way_out = match ways.is_empty() {
            // No redundancy (raid0): nothing to wait for.
            true => format!(
                "{} keeps no redundancy: copy the files off while they read (`exaraid store get`)",
                self.layout.code_name()
            ),
            false => format!(
                "it can be recorded failed only with fewer OSSs out: {}, then retry; the command then records OSS {oss} failed and goes on degraded, and `exaraid store rebuild {dir} --oss {oss} --to NEWDIR` replaces its disk. A rebuild or online that first moves cached bytes home may need room on OSS {oss} too and is refused alike; reads work meanwhile: copy the files off (`exaraid store get`)",
                ways.join(", or ")
            ),
        };
        let out = match out_already.is_empty() {
            true => String::new(),
            false => format!(" ({})", out_already.join("; ")),
        };
        StoreError::Io(format!(
            "OSS {oss} ({name}): its disk returned an I/O error on reserving room for new elements ({why}), and it cannot be recorded failed: {} tolerates {} OSSs out of service and {} are out already{out}. Nothing was changed: no OSS was recorded failed and every byte reads as before. The disk of OSS {oss} may be failing (its directory answers: no mount to check); {way_out}",
            self.layout.code_name(),
            self.tolerance(),
            down.len() - 1,
        ))
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
    /// `reserve_first` (a write's tick, which reserves before it admits): the timeout's
    /// plans get their room before its tick is journaled, or it does not fire now (see
    /// `timeout_without_room`).
    fn tick_locked(
        &self,
        core: &mut Core,
        now_ns: u64,
        reserve_first: bool,
    ) -> Result<Vec<IoPlan>, StoreError> {
        let due = core
            .strategy
            .next_deadline_ns()
            .is_some_and(|d| d <= now_ns);
        if !due {
            return Ok(Vec::new());
        }
        if core
            .strategy
            .unprotected()
            .iter()
            .any(|u| self.oss_failed(core, u.oss) && !core.state.failed_oss.contains(&u.oss))
        {
            // Window bytes on an OSS unavailable now but not recorded failed (timers run in
            // every command, reads too, which record nothing): wait for it or for a write.
            return Ok(Vec::new());
        }
        if !self.planner_lost(core).is_empty() {
            // A timeout now would plan parity from window bytes lost with a failed OSS, and
            // that plan could never run. Record them; the timers run once
            // `absorb_losses` (at the next tick, write or END) has taken them out of the
            // planner.
            self.record_losses(core)?;
            return Ok(Vec::new());
        }
        let plans = core.strategy.on_tick(now_ns).map_err(plan_err)?;
        if reserve_first {
            if let Err(e) = self.reserve(&plans) {
                // Not journaled, so not made: a tick on record whose plans cannot be
                // admitted holds their window's stripes for plans nobody runs (s20f: the
                // next write there hung; s21: the handle then refused everything until
                // reopened, where a later command could just fire it again). Rebuilt from
                // the inputs on record the timeout stays due, as for a refused record
                // below: the next command that finds room fires it. The write goes on
                // without it; a disk failing reservations is recorded failed by the
                // write's own (no timers' plans made that could read bytes it loses).
                core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
                self.timeout_without_room(e);
                return Ok(Vec::new());
            }
        }
        let tick = Input::Tick {
            now_ns,
            parity_crcs_synced: true,
        };
        // Synced where it made plans, before they run, as END's input is (its `WindowEnd`
        // record is synced before its plans run). Why (review s34r R34-4): on the array
        // codes no synced record precedes a timeout's first parity write
        // (`journal_end_parity_crcs` records one-row codes only), so a power cut could keep
        // that write and drop the tick. The open then saw no plan in flight, fired the
        // timeout again, and its plan read the parity it had torn: `DataLost` on a healthy
        // store; or, over a parity block that had landed whole, would add the window's change
        // to it a second time (the plan reads the parity and the home data under the
        // window: a delta): parity stale under a valid checksum. Durable first, every cut
        // that changed a parity block leaves the timeout's plan in flight, and recovery
        // settles its stripes. A tick with no plans writes nothing: no fsync.
        let sync = !plans.is_empty();
        if let Err(e) = self.journal(core, Rec::Input(tick), sync) {
            // Refused (a full metadata disk: review s17r R17-3; or its fsync failed, and
            // the append was cut off again), nothing appended. The
            // planner must not keep a tick the journal lacks: its later records would
            // follow an input replay never sees, and the timeout's plans, never admitted,
            // would hold their window's stripes. Rebuilt from the inputs on record, it
            // still has the timeout due: the next tick with room fires it.
            core.strategy = replay(self.kind, &self.layout, self.config, &core.state.inputs)?.0;
            return Err(e);
        }
        Ok(plans)
    }

    /// A due delayed-window timeout whose plans found no room (`refused`) did not fire: say
    /// so once per handle (told at close, or in Rust by `close_with_warnings`), with what to
    /// do. The window's bytes stay without parity until a command with room fires it.
    fn timeout_without_room(&self, refused: ReserveError) {
        const TOLD: &str = "a delayed window's timeout was due, but its plans";
        let dir = self.dir.display();
        let why = match refused {
            ReserveError::Store(e) => format!("{e}; free space on the OSSs"),
            ReserveError::Down { oss, name, why } => format!(
                "OSS {oss} ({name}): its disk returned an I/O error on reserving room for new elements ({why}); the disk may be failing: record it failed (`exaraid store fail {dir} --oss {oss}`), then rebuild it onto a new disk (`exaraid store rebuild {dir} --oss {oss} --to NEWDIR`)"
            ),
        };
        let mut warnings = self.deferred_warnings.lock();
        if !warnings.iter().any(|w| w.starts_with(TOLD)) {
            warnings.push(format!(
                "{TOLD} (the window's parity) found no room, so it did not fire: {why}. The window's bytes stay without parity until a later command (any `exaraid store` command, or `delayed end`) finds room and fires it; nothing was lost"
            ));
        }
    }

    /// Run the planner's timers now (the CLI calls this on every command).
    pub fn tick(&self) -> Result<(), StoreError> {
        self.run_timers(false)
    }

    /// `tick`; `on_server`: the caller is the background worker, which must never wait
    /// behind an exclusive caller for its share of the store (see `gate_shared_on_server`).
    fn run_timers(&self, on_server: bool) -> Result<(), StoreError> {
        self.check_usable()?;
        self.absorb_losses()?;
        self.settle_before_timeout_over_unreadable_window_bytes()?;
        let _shared = if on_server {
            self.gate_shared_on_server()
        } else {
            self.gate.read()
        };
        let plans = {
            let mut core = self.core.lock();
            let now = Self::now_ns(&core);
            let plans = self.tick_locked(&mut core, now, false)?;
            self.admit(plans)
        };
        self.run_plans(plans, None)
    }

    /// Whether a thread serves background plans now (`serve_background` began and has not
    /// returned): writes queue their background plans for it instead of running them. For
    /// tests, which must not write before the worker they spawned serves.
    #[doc(hidden)]
    pub fn serving_background(&self) -> bool {
        self.background_served.load(Ordering::SeqCst)
    }

    /// Serve background plans (WCL destage, delayed-parity moves, timeouts) in this thread
    /// until `stop` is set and none is left. While it runs, writes return as soon as their
    /// foreground plans are durable. Without a server, background plans run inline.
    ///
    /// The worker also keeps the planner's timers and the unprotected bound on time without
    /// any command: a delayed window past its timeout gets its parity within a poll interval
    /// ([`SERVE_POLL_MS`]), and when a writer reports more unprotected bytes than the bound
    /// the worker advances the parity (see `enforce_unprotected_bound` for the rule).
    pub fn serve_background(&self, stop: &AtomicBool) -> Result<(), StoreError> {
        self.background_served.store(true, Ordering::SeqCst);
        let mut retry = TimersRetry::default();
        let result = (|| loop {
            let ready = {
                let mut q = self.background.lock();
                if q.is_empty() {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    self.background_cv
                        .wait_for(&mut q, std::time::Duration::from_millis(SERVE_POLL_MS));
                    false // what arrived meanwhile is looked at (held back or not) next round
                } else if !stop.load(Ordering::SeqCst) && self.hold_destage_back(&q) {
                    self.background_cv
                        .wait_for(&mut q, std::time::Duration::from_millis(SERVE_POLL_MS));
                    false
                } else {
                    true
                }
            };
            if ready {
                // The share first, then the plan: see `pop_background`.
                let _shared = self.gate_shared_on_server();
                if let Some(a) = self.pop_background() {
                    self.run_plans_on_worker(vec![a], stop)?;
                }
            }
            self.serve_timers_retrying(&mut retry)?;
        })();
        self.background_served.store(false, Ordering::SeqCst);
        // A writer waiting for this worker's advance advances the parity itself now.
        self.advance_cv.notify_all();
        let _shared = self.gate_shared_on_server();
        let rest: Vec<Admitted> = self.background.lock().drain(..).collect();
        let drained = self.run_plans(rest, None);
        // The worker's own failure first: it says what went wrong, the drain's refusal of
        // the plans behind it only that the store is poisoned.
        result.and(drained)
    }

    /// The next queued background plan, for a caller that holds a share of the gate (the
    /// assertion cannot see whose share, nor tell a share from an exclusive caller that
    /// already waits for the shares to end; the callers take it just before). Why the share
    /// comes first: a settle (`flush_exclusive`, `absorb_losses`) holds the gate exclusive,
    /// runs or drains the queue and resets the planner and its plan ids. A plan taken off
    /// the queue before the share could be run after such a settle: its steps would move
    /// cache bytes the settle already moved home (and the new planner may have handed to new
    /// writes), its completion would fail "not in flight" (the worker died), or it would wait
    /// forever for `after_plans` the reset discarded while its stripe ticket blocks every
    /// later writer of the stripe (review H4). Under a share no settle runs, so whatever is
    /// in the queue was admitted by the current planner.
    fn pop_background(&self) -> Option<Admitted> {
        assert!(
            self.gate.is_locked(),
            "background plans are taken off the queue under a share of the gate"
        );
        self.background.lock().pop_front()
    }

    /// Whether the worker holds the destage first in its queue back for now: while client
    /// writes execute, so that moving complete cache stripes home does not compete with them
    /// for the devices (the destage runs when the writers pause). Never while any plan or
    /// reader waits (it may wait for this very destage) nor past the bound on held-back
    /// destage bytes (a sustained stream destages as before, it only never grows the
    /// backlog past the bound).
    fn hold_destage_back(&self, queue: &VecDeque<Admitted>) -> bool {
        let is_destage =
            |a: &Admitted| matches!(a.plan.cause, exaraid_plan::PlanCause::Destage { .. });
        if !queue.front().is_some_and(is_destage) {
            return false;
        }
        if self.client_plans_executing.load(Ordering::SeqCst) == 0
            || self.plans_waiting.load(Ordering::SeqCst) > 0
            || self.locks.waiting.load(Ordering::SeqCst) > 0
        {
            return false;
        }
        let held_bytes: u64 = queue
            .iter()
            .filter(|a| is_destage(a))
            .flat_map(|a| a.plan.steps.iter())
            .filter(|step| step.op == Op::Write)
            .map(|step| step.len_bytes)
            .sum();
        held_bytes < self.destage_defer_max_bytes
    }

    /// `serve_timers`, which a full disk refuses before it changed anything (a timeout's
    /// record or a settle's first record refused by the metadata disk, a settle's home room
    /// by an OSS: `NoSpace`, the store not poisoned): the worker goes on serving its queue
    /// and tries again after a wait that doubles up to [`BACKGROUND_RETRY_MAX_MS`]. The
    /// refusal is told once when it begins and once when it ends (a warning at close each,
    /// and `Store::background_refused` meanwhile), not per try. Why (session 18 leftover of
    /// s18b): the refusal ended the worker, so with an API user's long-lived store the
    /// timeouts and the parity advance silently stopped for good, though the disk got room
    /// again. Writers waiting at the hard limit on unprotected bytes advance the parity
    /// themselves meanwhile (`enforce_unprotected_bound`), refused the same way.
    fn serve_timers_retrying(&self, retry: &mut TimersRetry) -> Result<(), StoreError> {
        let now = std::time::Instant::now();
        if retry.next_try.is_some_and(|at| now < at) {
            return Ok(());
        }
        let e = match self.serve_timers() {
            Ok(()) => {
                if retry.next_try.take().is_some() {
                    retry.wait_ms = 0;
                    let why = self.background_refused.lock().take().unwrap_or_default();
                    self.tell_background_refusal(format!(
                        "the background worker's timers (due window timeouts, the parity advance past the bound), refused for room ({why}), ran again without a refusal"
                    ));
                }
                return Ok(());
            }
            Err(e) => e,
        };
        if !matches!(e, StoreError::NoSpace(_)) || self.poisoned.load(Ordering::SeqCst) {
            return Err(e);
        }
        retry.wait_ms = (retry.wait_ms * 2).clamp(SERVE_POLL_MS, BACKGROUND_RETRY_MAX_MS);
        retry.next_try = Some(now + std::time::Duration::from_millis(retry.wait_ms));
        let mut refused = self.background_refused.lock();
        if refused.is_none() {
            self.tell_background_refusal(format!(
                "the background worker's timers (due window timeouts, the parity advance past the bound) were refused for room: {e}. The worker keeps serving and tries them again at least every {BACKGROUND_RETRY_MAX_MS} ms; the window bytes waiting for them stay readable in the cache zone"
            ));
        }
        *refused = Some(e.to_string());
        Ok(())
    }

    /// A change of the background worker's refusal state, told at close: bounded, the
    /// latest only (a long-lived store whose disk fills and empties many times keeps one).
    fn tell_background_refusal(&self, warning: String) {
        let mut warnings = self.deferred_warnings.lock();
        warnings.retain(|w| !w.starts_with("the background worker's timers"));
        warnings.push(warning);
    }

    /// Why the background worker's timers (due window timeouts, the parity advance past the
    /// bound) are refused now, a full disk named, while `serve_background` retries them;
    /// `None` while they run. For an API user's monitoring: the worker does not stop.
    pub fn background_refused(&self) -> Option<String> {
        self.background_refused.lock().clone()
    }

    /// The background worker's share of the timers: window timeouts that are due, and the
    /// parity advance writers asked for.
    fn serve_timers(&self) -> Result<(), StoreError> {
        // A long-lived process sees the wall clock stepped back too.
        self.keep_clock_skew();
        let due = {
            let core = self.core.lock();
            let now_ns = Self::now_ns(&core);
            core.strategy
                .next_deadline_ns()
                .is_some_and(|d| d <= now_ns)
        };
        if due {
            self.run_timers(true)?; // its plans are background: queued for this worker
        }
        if !self.advance_requested.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        if self.unprotected_bytes() > self.sb.unprotected_bytes_max {
            // Never block on the gate: a writer holding it shared may wait for a queued
            // background plan that only this thread runs. Serve the queue and retry.
            let wait = std::time::Duration::from_millis(ADVANCE_GATE_WAIT_MS);
            let Some(exclusive) = self.gate.try_write_for(wait) else {
                self.advance_requested.store(true, Ordering::SeqCst);
                return Ok(());
            };
            self.check_usable()?;
            let mut settle_lost = Vec::new();
            // Refused (a full disk), the request stands: the worker's retry advances then.
            let advanced = self.flush_exclusive(exclusive, &mut settle_lost);
            match advanced {
                Ok(()) => self.warn_cache_losses(&settle_lost, BOUND_SETTLE),
                Err(_) => self.advance_requested.store(true, Ordering::SeqCst),
            }
            return advanced;
        }
        // The bound holds again (END or a timeout gave the bytes parity): writers waiting at
        // the hard limit may go on.
        *self.advances.lock() += 1;
        self.advance_cv.notify_all();
        Ok(())
    }

    /// Move everything in the cache zone home with parity (also ends the effect of open
    /// windows early: their data gets parity now).
    pub fn flush(&self) -> Result<(), StoreError> {
        let mut settle_lost = Vec::new();
        self.settle_all_recording(&mut settle_lost)?;
        // Cached bytes the settle could neither read nor rebuild are on record as lost now;
        // the caller asked for everything home, so say which did not make it.
        let core = self.core.lock();
        let settle_lost = window_rot::still_on_record(&core, settle_lost);
        let named = |token: &str| -> Vec<String> {
            settle_lost
                .iter()
                .filter(|l| l.token == token)
                .map(|l| {
                    let name = core
                        .state
                        .file_by_id(l.file)
                        .map(|(n, _)| read::describe_file_name(n))
                        .unwrap_or_else(|| format!("removed file #{}", l.file));
                    format!("{name} bytes {}..{}", l.offset_bytes, l.end_bytes())
                })
                .collect()
        };
        // A stale WCL cache element no single column explains (review s11r R11-9).
        let stale = named(stale_cache::STALE_CACHE);
        if !stale.is_empty() {
            return Err(StoreError::DataLost(format!(
                "flush moved every other cached byte home with parity, but the cached copy of these bytes disagrees with its cache stripe's running parity (a stale element: an OSS that lost a write) and the stale column could not be located, so they are recorded as lost, not moved home as if right: {}. Reads of them fail until they are written again; `exaraid store status` lists them",
                stale.join(", ")
            )));
        }
        let lost: Vec<String> = settle_lost
            .iter()
            .filter(|l| exec::is_unreadable_cache(&l.token))
            .map(|l| window_rot::describe_cache_loss(&core, l))
            .collect();
        if !lost.is_empty() {
            return Err(StoreError::DataLost(format!(
                "flush moved every other cached byte home with parity, but these cached bytes could be neither read nor rebuilt (more unreadable elements than the code tolerates, or a delayed window's only copy) and are recorded as lost: {}. Reads of them fail until they are written again; `exaraid store status` lists them",
                lost.join(", ")
            )));
        }
        Ok(())
    }

    /// `flush` for the store's own needs (before a remove, past the unprotected bound): bytes
    /// it finds lost go on record, and the caller's operation goes on.
    fn settle_all(&self) -> Result<(), StoreError> {
        self.settle_all_recording(&mut Vec::new())
    }

    /// `settle_all`, adding the ranges it recorded lost to `settle_lost` (also when it
    /// fails).
    fn settle_all_recording(&self, settle_lost: &mut Vec<LostRange>) -> Result<(), StoreError> {
        self.check_usable()?;
        // Exclusive: no plan is in flight (writers, readers and the background server hold
        // the gate shared); queued background plans run first.
        let exclusive = self.gate_exclusive()?;
        self.flush_exclusive(exclusive, settle_lost)
    }

    /// The background worker's share of the store. A fair lock keeps new readers out while
    /// an exclusive caller waits; but a writer already holding a share may be waiting for
    /// the very plan the worker is about to run (a destage or move queued before it on its
    /// stripe), and the exclusive caller waits for that writer: the worker joins the shares
    /// already held instead of queueing behind the exclusive caller.
    fn gate_shared_on_server(&self) -> parking_lot::RwLockReadGuard<'_, ()> {
        self.gate.read_recursive()
    }

    /// Exclusive use of the store (no plan in flight), for `flush`, `remove` and the
    /// absorption of lost window bytes. Never waits on the gate alone: a holder of a share
    /// may wait for a queued background plan, so between bounded waits this thread runs the
    /// queued background plans itself (as `serve_timers` does for the worker).
    fn gate_exclusive(&self) -> Result<parking_lot::RwLockWriteGuard<'_, ()>, StoreError> {
        let wait = std::time::Duration::from_millis(ADVANCE_GATE_WAIT_MS);
        self.exclusive_waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = DecrementOnDrop(&self.exclusive_waiting);
        loop {
            if let Some(exclusive) = self.gate.try_write_for(wait) {
                return Ok(exclusive);
            }
            loop {
                // The share first, then the plan: see `pop_background`.
                let _shared = self.gate_shared_on_server();
                let Some(next) = self.pop_background() else {
                    break;
                };
                self.run_plans_from(vec![next], None, true)?;
            }
        }
    }

    fn flush_exclusive(
        &self,
        exclusive: parking_lot::RwLockWriteGuard<'_, ()>,
        settle_lost: &mut Vec<LostRange>,
    ) -> Result<(), StoreError> {
        self.settle_exclusive(&exclusive, settle_lost)
    }

    /// `flush_exclusive` for a caller that goes on using the store exclusively (`remove`).
    /// Every range recorded lost meanwhile (`Core::lost_recorded`) is added to
    /// `settle_lost`, also when it fails part way.
    fn settle_exclusive(
        &self,
        _exclusive: &parking_lot::RwLockWriteGuard<'_, ()>,
        settle_lost: &mut Vec<LostRange>,
    ) -> Result<(), StoreError> {
        // A settle inside another's (none is expected) leaves the outer one its ranges too.
        let outer = self.core.lock().lost_recorded.replace(Vec::new());
        let settled = (|| {
            let queued: Vec<Admitted> = self.background.lock().drain(..).collect();
            self.run_plans_from(queued, None, true)?;
            let mut core = self.core.lock();
            self.record_losses(&mut core)?; // settle forgets the planner's view
            self.settle(&mut core, BTreeSet::new())
        })();
        {
            let mut core = self.core.lock();
            let recorded = std::mem::replace(&mut core.lost_recorded, outer)
                .expect("armed above, under the store's exclusive gate");
            if let Some(outer) = core.lost_recorded.as_mut() {
                outer.extend(recorded.iter().cloned());
            }
            settle_lost.extend(recorded);
        }
        settled?;
        *self.advances.lock() += 1;
        self.advance_cv.notify_all();
        Ok(())
    }

    fn checkpoint_locked(&self, core: &mut Core) -> Result<(), StoreError> {
        core.checkpoint_truncation_failed = None;
        self.note_generations(core)?;
        // Every OSS's last journal mark durable (a sync fdatasyncs it at most once a second):
        // a store closed cleanly keeps them all. Best effort: a mark not durable only lags,
        // which refuses nothing wrongly; a failed fsync is latched by the OSS, whose next
        // sync fails and names it.
        for (i, b) in self.backends.iter().enumerate() {
            if b.healthy() && !core.state.failed_oss.contains(&i) {
                let _ = b.sync_journal_mark();
            }
        }
        {
            let ops = self.ops.lock();
            let mut snapshot = core.state.clone();
            for (i, o) in ops.iter().enumerate() {
                snapshot.ops[i].add(o);
            }
            let unplanned = self.unplanned.lock();
            snapshot
                .unplanned
                .resize(unplanned.len(), UnplannedReads::default());
            for (i, u) in unplanned.iter().enumerate() {
                snapshot.unplanned[i].add(u);
            }
            // Newer while the journal, still to be truncated, may hold newer records.
            let version = snapshot.reader_version().max(core.state_file_version);
            write_checked_version(&self.dir.join(STATE_FILE), "state", version, &snapshot)?;
            core.state_file_version = version;
            // The snapshot holds the cleared witness (no record needed any more).
            core.home_witness_clear_unjournaled = false;
        }
        // The snapshot now holds the counters; restart the in-memory ones from zero.
        let ops_now: Vec<OssOps> = std::mem::replace(
            &mut *self.ops.lock(),
            vec![OssOps::default(); self.backends.len()],
        );
        for (i, o) in ops_now.iter().enumerate() {
            core.state.ops[i].add(o);
        }
        let unplanned_now: Vec<UnplannedReads> = std::mem::replace(
            &mut *self.unplanned.lock(),
            vec![UnplannedReads::default(); self.backends.len()],
        );
        (core.state.unplanned).resize(unplanned_now.len(), UnplannedReads::default());
        for (i, u) in unplanned_now.iter().enumerate() {
            core.state.unplanned[i].add(u);
        }
        // In the journal's fsync turn: a failure latches as an append's does (the records
        // are in the snapshot, but the emptied file's state on disk is not known).
        if let Err(e) = core
            .journal
            .truncate_in(&|fsync| self.journal_fsync_turn(fsync))
        {
            // The state file holds every record here, whether `set_len` or its fsync
            // failed: a close told "not written" was wrong (s37a's LOW; session 38). The
            // flag cannot tell a later close's failure "written": every checkpoint and
            // every close clears it first (merge review of s37a, MEDIUM-1).
            core.checkpoint_truncation_failed = Some(e.to_string());
            return Err(e);
        }
        // The next record follows a new epoch: a journal deleted or emptied since this
        // checkpoint is then behind the OSSs (see `bump_epoch`).
        core.epoch_due = true;
        let snapshot_version = core.state.reader_version();
        if core.state_file_version > snapshot_version {
            // The journal is empty and the snapshot holds nothing newer: older binaries may
            // open the store again (a clean close usually ends here). Best effort, as above.
            let path = self.dir.join(STATE_FILE);
            if set_header_version(&path, "state", snapshot_version).is_ok() {
                core.state_file_version = snapshot_version;
            }
        }
        Ok(())
    }

    /// Snapshot the state and truncate the journal.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        let mut core = self.core.lock();
        self.checkpoint_locked(&mut core)
    }

    /// Close the store: if nothing waits in the cache zone and no window is open, restart the
    /// planner (dropping the input log); checkpoint. A checkpoint that cannot be written
    /// (a full metadata disk) is not an error when the journal is durable: see
    /// [`Store::close_with_warnings`].
    pub fn close(self) -> Result<(), StoreError> {
        self.close_with_warnings().map(|_| ())
    }

    /// `close`, returning what could not be done without losing anything (a checkpoint
    /// not written) for the caller to tell the user. Why (review s4e E1): on a full
    /// metadata disk every command, even `get` and `status`, failed after its output when
    /// its close could not write the state checkpoint, so scripts took good reads for
    /// failed ones. The checkpoint only shortens the journal and saves the operation
    /// counters: once every journaled record is synced, the next open replays the journal
    /// to the same state, so nothing is lost without it.
    pub fn close_with_warnings(self) -> Result<Vec<String>, StoreError> {
        if let Some(why) = self.reads_only.lock().as_ref() {
            // Nothing was changed; the next open tries the settle again.
            return Ok(vec![format!(
                "the store was open for reads only: {}",
                reads_only_message(why, &self.dir)
            )]);
        }
        if self.poisoned.load(Ordering::SeqCst) {
            return Ok(Vec::new()); // the next open recovers
        }
        let mut warnings = std::mem::take(&mut *self.deferred_warnings.lock());
        let mut core = self.core.lock();
        // A checkpoint earlier in the session whose truncation failed left the flag; this
        // close's failure before its own checkpoint must not read it as "written".
        core.checkpoint_truncation_failed = None;
        let closed = self.close_locked(&mut core);
        let Err((err, refused)) = closed else {
            return Ok(warnings);
        };
        if let Some(why) = core.checkpoint_truncation_failed.take() {
            // The checkpoint is durable; only the journal's emptying after it failed (its
            // `set_len`, the file unchanged, or its fsync, latched: the store is poisoned,
            // no fsync of the journal runs again here). Not an error of the command, whose
            // changes were durable before: the next open replays the journal past the
            // checkpoint, whatever length the file has. Before session 37 a second fsync here could pass
            // falsely (the kernel reports a writeback error once per open file).
            warnings.push(format!(
                "the state checkpoint was written, but emptying the journal {} after it failed ({why}); nothing is lost: the next command skips the records the checkpoint holds. This was an I/O error: the disk holding {} may be failing. Check it (the kernel log, its SMART status) and, if errors go on, copy the store's metadata (superblock, state, journal) to a sound disk",
                self.dir.join(JOURNAL_FILE).display(),
                self.dir.display(),
            ));
            return Ok(warnings);
        }
        // A settle that began and failed poisoned the store: that is not a checkpoint.
        let checkpoint_only = !self.poisoned.load(Ordering::SeqCst);
        if !checkpoint_only || !matches!(err, StoreError::NoSpace(_) | StoreError::Io(_)) {
            return Err(err);
        }
        // The journal holds every record this process made: durable, it is enough.
        if let Err(sync_err) = self.sync_journal_locked(&mut core) {
            return Err(StoreError::Io(format!(
                "{err}; and the journal could not be synced either ({sync_err}): changes since the last checkpoint may not be durable"
            )));
        }
        if refused == CloseStep::InputLogSettle {
            // Not the checkpoint's disk (session 18 leftover: the warning said "the state
            // checkpoint was not written" and told to free the metadata disk, when the settle
            // had been refused, often for room on an OSS): its error names the disk to free.
            warnings.push(format!(
                "the settle that starts a new planner input log at close was refused ({err}); nothing is lost: the journal {} holds every change, and the state checkpoint after that settle waits with it. The log holds more than {PLANNER_INPUTS_MAX} inputs, which every open replays (slower opens meanwhile); every close tries that settle again",
                self.dir.join(JOURNAL_FILE).display(),
            ));
            return Ok(warnings);
        }
        // The advice for what happened: room for a full disk; for an I/O error (a failed
        // fsync of the state or the journal: review s7s S7-2) freeing space does nothing,
        // the disk itself may be failing.
        let advice = match err {
            StoreError::NoSpace(_) => format!(
                "Free space on the disk holding {} so that checkpoints (which keep the journal short) work again",
                self.dir.display()
            ),
            _ => format!(
                "This was an I/O error, not a full disk: the disk holding {} may be failing. Check it (the kernel log, its SMART status) and, if errors go on, copy the store's metadata (superblock, state, journal) to a sound disk",
                self.dir.display()
            ),
        };
        warnings.push(format!(
            "the state checkpoint was not written ({err}); nothing is lost: the journal {} holds every change and the next command replays it. {advice}",
            self.dir.join(JOURNAL_FILE).display(),
        ));
        Ok(warnings)
    }

    /// What `close_with_warnings` does: a planner reset or settle of a long input log, then
    /// the checkpoint. A failure comes with the step it failed in, for the warning.
    fn close_locked(&self, core: &mut Core) -> Result<(), (StoreError, CloseStep)> {
        let checkpoint = |e| (e, CloseStep::Checkpoint);
        // Both ways below forget the planner's view: lost window bytes must be on record.
        self.record_losses(core).map_err(checkpoint)?;
        let all_durable = {
            let done = self.done.lock();
            core.state.durable.iter().all(|p| done.contains(p))
        };
        let mut quiet = all_durable && core.state.windows.is_empty();
        if quiet {
            let files: Vec<u64> = core.state.files.values().map(|m| m.id).collect();
            for f in files {
                if !self.cached_extents(core, f).map_err(checkpoint)?.is_empty() {
                    quiet = false;
                    break;
                }
            }
        }
        if quiet && !core.state.inputs.is_empty() {
            self.journal(core, Rec::PlannerReset, true)
                .map_err(checkpoint)?;
            core.strategy = replay(self.kind, &self.layout, self.config, &[])
                .map_err(checkpoint)?
                .0;
            Self::forget_deferred_completions(core);
        } else if all_durable && core.state.inputs.len() > PLANNER_INPUTS_MAX {
            // The input log would make every open slow: settle (everything home with
            // parity, windows stay open) and start a new, empty log.
            let settled = self.settle(core, BTreeSet::new());
            return settled.map_err(|e| {
                // With the new log begun (the reset on record), what failed is the
                // settle's own checkpoint at its end.
                match core.state.inputs.len() > PLANNER_INPUTS_MAX {
                    true => (e, CloseStep::InputLogSettle),
                    false => (e, CloseStep::Checkpoint),
                }
            });
        }
        // A session that wrote ends in an epoch of its own, on record with the checkpoint and
        // told the OSSs after it: a copy of the metadata taken while it ran is then behind the
        // OSSs too, not only once the next session writes (see `bump_epoch`). Fsync'd on the
        // OSSs (one small fdatasync per OSS per writing session): an OSS down at the next open
        // is recorded as left at this seal (`left_behind_at`), which is proof only if it holds
        // it; unsynced, a power cut in the writeback seconds after any clean command left it
        // at the session's first epoch, and ~512 commands later its return refused the whole
        // store (review s15r2 R15b-1).
        let seal = core.epoch_bumped.then(|| Store::next_epoch(core));
        if let Some(epoch) = seal {
            let before = core.state.metadata_epoch();
            core.state.set_metadata_epoch(epoch);
            // This is the bump of what the checkpoint may still journal (generations).
            core.epoch_due = false;
            // Who is left behind goes on record with the checkpoint, before the telling:
            // an OSS down now is left at what it holds; one with an entry told an epoch
            // since (back, healthy) gets the seal as its entry, which it is told next, so
            // that down at the next open it is still known (an OSS refusing the seal keeps
            // an entry it does not hold: no proof, as a crash's).
            for (i, b) in self.backends.iter().enumerate() {
                let at = match b.healthy() {
                    false => Store::left_behind_at(core, i, before),
                    true => core
                        .state
                        .oss_left_at(i)
                        .zip(core.epochs_held[i])
                        .filter(|(left, held)| held.number > left.number)
                        .map(|_| epoch),
                };
                if let Some(at) = at {
                    core.state.set_oss_left_at(i, at);
                }
            }
        }
        self.checkpoint_locked(core).map_err(checkpoint)?;
        if let Some(epoch) = seal {
            for (i, told) in self.tell_osses_epoch(epoch).into_iter().enumerate() {
                if told {
                    core.epochs_held[i] = Some(epoch);
                }
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- status

    /// Operation counts of executed plan steps, per OSS (the planner's own counting).
    pub fn plan_op_counts(&self) -> Vec<OpCounts> {
        self.plan_counts.lock().clone()
    }

    pub fn reset_op_counts(&self) {
        *self.plan_counts.lock() = vec![OpCounts::default(); self.backends.len()];
    }

    /// What crash recovery waits for on a store opened without it (`recovery_waits`), as the
    /// open refused it: the OSSs `down` that are not failed on record, and the ways out.
    fn recovery_waits_for(&self, core: &Core, down: &BTreeSet<usize>) -> Option<String> {
        if !self.recovery_waits.load(Ordering::SeqCst) {
            return None;
        }
        let merely_down: BTreeSet<usize> = (down.iter().copied())
            .filter(|i| !core.state.failed_oss.contains(i))
            .collect();
        (!merely_down.is_empty()).then(|| self.down_at_recovery(&merely_down, &[]).to_string())
    }

    pub fn status(&self) -> Result<Status, StoreError> {
        let recovery_pending = self.poisoned.load(Ordering::SeqCst).then(|| {
            let core = self.core.lock();
            let down = self.unavailable_set(&core);
            if down.len() > self.tolerance() {
                self.too_many_unavailable(&core, &down).to_string()
            } else if let Some(why) = self.reads_only.lock().as_ref() {
                format!(
                    "open for reads only: {}",
                    reads_only_message(why, &self.dir)
                )
            } else if let Some(waits) = self.recovery_waits_for(&core, &down) {
                waits
            } else {
                "an operation failed half way: the next open of the store recovers it".into()
            }
        });
        let mut problems: BTreeMap<usize, String> = self.oss_problems().into_iter().collect();
        let core = self.core.lock();
        let ops = self.ops.lock();
        let oss = self
            .backends
            .iter()
            .enumerate()
            .map(|(index, b)| {
                let mut o = core.state.ops.get(index).copied().unwrap_or_default();
                o.add(&ops[index]);
                let mut unplanned = (core.state.unplanned.get(index).copied()).unwrap_or_default();
                unplanned.add(&self.unplanned.lock()[index]);
                let on_record = core.state.failed_oss.contains(&index);
                let problem = problems.remove(&index);
                let missing = !b.healthy()
                    && !on_record
                    && problem.is_none()
                    && !self.backends_supplied
                    && !self.sb.oss_dirs[index]
                        .join(crate::backend::LABEL_FILE)
                        .exists();
                let problem = problem.or_else(|| {
                    missing.then(|| {
                        format!(
                            "its directory {} is not found (or holds no OSS label): mount it and retry; if the disk is gone for good, record it failed with `exaraid store fail {} --oss {index}` (then rebuild it)",
                            self.sb.oss_dirs[index].display(),
                            self.dir.display()
                        )
                    })
                });
                OssStatus {
                    index,
                    path: b.location(),
                    healthy: b.healthy() && !on_record,
                    ops: o,
                    unplanned,
                    problem,
                    missing,
                    failed_on_record: on_record,
                    epoch_not_told: self.epoch_not_told_warning(&core, index),
                }
            })
            .collect();
        // Window bytes on a failed OSS are not waiting for parity any more: they are lost
        // (and listed as such below).
        let unprotected: Vec<_> = core
            .strategy
            .unprotected()
            .into_iter()
            .filter(|u| !self.oss_failed(&core, u.oss))
            .collect();
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
        let lost_ranges = core
            .state
            .lost
            .iter()
            .map(|l| LostRangeStatus {
                file: core
                    .state
                    .file_by_id(l.file)
                    .map(|(n, _)| n.clone())
                    .unwrap_or_else(|| format!("#{}", l.file)),
                offset_bytes: l.offset_bytes,
                len_bytes: l.len_bytes,
                oss: l.oss,
                window: l.token.clone(),
                restorable: l.cache_addr_bytes.is_some(),
            })
            .collect();
        Ok(Status {
            oss,
            bytes_waiting_parity: cached_bytes,
            bytes_unprotected,
            open_windows,
            lost_ranges,
            code: self.layout.code_name().to_string(),
            element_bytes: self.sb.element_bytes,
            write_path: self.sb.write_path.name().to_string(),
            // As `list` does: a put's staging file (`NAME\0put`) is not a user's file, nor
            // a name whose every write was cut (`reads_only_cut_names`).
            files: core
                .state
                .files
                .iter()
                .filter(|(n, m)| {
                    !n.contains('\0') && !self.reads_only_cut_names.lock().contains(&m.id)
                })
                .count(),
            recovery_pending,
            journal_tail_cut: self.tail_cut_warning_locked(&core),
        })
    }

    /// While a journal tail cut is on record (`Rec::JournalTailCut`): what happened, what
    /// may be wrong and what to do. Every CLI command prints it on stderr, `status` too.
    pub fn journal_tail_cut_warning(&self) -> Option<String> {
        let core = self.core.lock();
        self.tail_cut_warning_locked(&core)
    }

    fn tail_cut_warning_locked(&self, core: &Core) -> Option<String> {
        let damage = self.tail_damage_warning(core);
        let cuts = &core.state.journal_tail_cuts;
        let Some(last) = cuts.last() else {
            return damage;
        };
        let earlier = match cuts.len() {
            1 => String::new(),
            n => format!(" ({} earlier cuts are on record too)", n - 1),
        };
        let dir = self.dir.display();
        Some(format!(
            "the journal's last record, at byte {} ({} bytes), was damaged or torn by a power cut and was cut off when the store opened{earlier}. If it was a write whose OSS writes had begun, that write was not recovered and a stripe's parity may not match its data (one more failed OSS could then lose acknowledged bytes of that stripe). Run `exaraid store scrub {dir}` to check every stripe's parity, and `exaraid store scrub {dir} --repair` if it reports mismatches; this warning stays until a scrub finds every stripe's parity matching",
            last.at_byte, last.cut_bytes
        ))
        .map(|parity| match damage {
            Some(damage) => format!("{damage}. And: {parity}"),
            None => parity,
        })
    }

    pub fn oss_count(&self) -> usize {
        self.backends.len()
    }
}

/// Bytes `range` of every element of `from`, as the stripe `into` (its elements are
/// `range.len()` bytes). Why: every code here works byte by byte across elements, so one
/// 4 KiB block row of a stripe is a codeword of its own; recovery, degraded reads and scrub
/// decide block rows separately.
fn slice_stripe_into(from: &StripeBuf, range: std::ops::Range<usize>, into: &mut StripeBuf) {
    assert_eq!((into.rows, into.cols), (from.rows, from.cols));
    assert_eq!(into.element_bytes, range.len());
    for col in 0..from.cols {
        for row in 0..from.rows {
            let pos = Pos { row, col };
            into.element_mut(pos)
                .copy_from_slice(&from.element(pos)[range.clone()]);
        }
    }
}

/// The stripes of every durable plan, by plan id (planning order), computed once per open:
/// `finished` and `synced` ask them per interrupted plan.
struct LaterDurableStripes<'p> {
    durable: Vec<(&'p IoPlan, BTreeSet<(u64, u64)>)>,
}

impl<'p> LaterDurableStripes<'p> {
    fn of(plans: &'p [(usize, IoPlan)], durable: &BTreeSet<PlanId>) -> Self {
        let mut durable: Vec<(&IoPlan, BTreeSet<(u64, u64)>)> = (plans.iter())
            .map(|(_, p)| p)
            .filter(|p| durable.contains(&p.id))
            .map(|p| (p, plan_stripes(p)))
            .collect();
        durable.sort_by_key(|(p, _)| p.id);
        LaterDurableStripes { durable }
    }

    /// The durable plans made after the interrupted plan `cut`, with their stripes.
    fn after(
        &self,
        cut: &IoPlan,
    ) -> impl Iterator<Item = &(&'p IoPlan, BTreeSet<(u64, u64)>)> + '_ {
        assert!(
            self.durable.iter().all(|(p, _)| p.id != cut.id),
            "only an interrupted plan is cut"
        );
        let first = self.durable.partition_point(|(p, _)| p.id < cut.id);
        self.durable[first..].iter()
    }

    /// The stripes of the interrupted plan `cut` that a later durable plan took (see
    /// `finished_by_later` in `Store::open`): `cut`'s writes there returned and were synced
    /// before it began.
    fn finished(&self, cut: &IoPlan) -> BTreeSet<(u64, u64)> {
        let later: Vec<&BTreeSet<(u64, u64)>> = self.after(cut).map(|(_, s)| s).collect();
        plan_stripes(cut)
            .into_iter()
            .filter(|s| later.iter().any(|stripes| stripes.contains(s)))
            .collect()
    }

    /// Of `finished` (`cut`'s stripes a later durable plan took), those where later durable
    /// plans synced every OSS `cut` wrote there: each took the stripe after `cut`'s writes
    /// returned and synced its OSSs before its `Durable` record, and an OSS's sync drains
    /// every write it holds (`Backend::sync`; a failed earlier sync fails it). Why (review
    /// of session 29, R29-1's first fix): until session 30 a plan left its stripes before
    /// its own sync, so with a later plan on other OSSs a power cut could drop `cut`'s
    /// cache block under a checksum that still verifies (an older window's bytes), and a
    /// window moved them home with success. A journal an older binary wrote can hold that.
    fn synced(&self, cut: &IoPlan, finished: &BTreeSet<(u64, u64)>) -> BTreeSet<(u64, u64)> {
        (finished.iter().copied())
            .filter(|&(file, stripe)| {
                let synced = self.synced_osses(cut, (file, stripe));
                (cut.steps.iter())
                    .filter(|step| step.op == Op::Write && step.file == file)
                    .filter(|step| step.pieces.iter().any(|pc| pc.element.stripe == stripe))
                    .all(|step| synced.contains(&step.oss))
            })
            .collect()
    }
}

impl LaterDurableStripes<'_> {
    /// The OSSs the durable plans made after `cut` that took stripe `(file, stripe)` synced
    /// before their `Durable` records.
    fn synced_osses(&self, cut: &IoPlan, (file, stripe): (u64, u64)) -> BTreeSet<usize> {
        (self.after(cut))
            .filter(|(_, stripes)| stripes.contains(&(file, stripe)))
            .flat_map(|(p, _)| p.osses())
            .collect()
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

/// This thread's turn to `put` one name (see `Store::puts_in_progress`), until dropped.
struct PutTurn<'a> {
    store: &'a Store,
    name: String,
}

impl<'a> PutTurn<'a> {
    fn take(store: &'a Store, name: &str) -> Self {
        let mut names = store.puts_in_progress.lock();
        while names.contains(name) {
            store.put_done_cv.wait(&mut names);
        }
        names.insert(name.to_string());
        PutTurn {
            store,
            name: name.to_string(),
        }
    }
}

impl Drop for PutTurn<'_> {
    fn drop(&mut self) {
        let removed = self.store.puts_in_progress.lock().remove(&self.name);
        assert!(removed, "a put's turn is taken once");
        self.store.put_done_cv.notify_all();
    }
}

#[cfg(test)]
mod reads_only_message_tests {
    use super::*;

    #[test]
    fn out_of_descriptors_advises_the_open_file_limit_not_failing_an_oss() {
        let e = StoreError::Backend(crate::backend::BackendError::OutOfDescriptors {
            oss: "0".to_string(),
            why: "Too many open files (os error 24)".to_string(),
        });
        let msg = reads_only_message(&reads_only_cause(&e, Path::new("/s")), Path::new("/s"));
        assert!(msg.contains("ulimit -n"), "{msg}");
        assert!(!msg.contains("store fail"), "{msg}");
        assert!(!msg.contains("free space"), "{msg}");
    }

    /// A settle with no cached bytes (an rmw store caches nothing: here the stripes a
    /// crash cut) that finds no room says what it was doing, not "moving the cached bytes
    /// home" (session 14 brief s14d, item 5).
    #[test]
    fn a_settle_without_cached_bytes_and_without_room_does_not_speak_of_cached_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let mut opts = InitOptions::with_oss_count(tmp.path(), 3, CodeSpec::raid5(2));
        opts.element_bytes = 4096;
        opts.write_path = WritePath::Rmw;
        opts.oss_capacity_bytes = Some(64 * 1024);
        let store = Store::init(tmp.path(), &opts).unwrap();
        store.put("f", &[7u8; 8192]).unwrap();
        let id = store.core.lock().state.files["f"].id;
        // More home stripes than the OSSs have room for.
        let stripes: BTreeSet<(u64, u64)> = (0..64).map(|stripe| (id, stripe)).collect();
        let err = {
            let core = store.core.lock();
            (store.reserve_settle(&core, &stripes, &BTreeMap::new()))
                .map_err(|e| store.reserve_error(e))
        };
        let err = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.contains("rewriting home stripes with their parity")
                && err.contains("needs room that is not there")
                && err.contains("Nothing was changed")
                && !err.contains("cached"),
            "{err}"
        );
        assert!(err.ends_with(SETTLE_NO_SPACE_WAY_OUT), "{err}");
    }

    #[test]
    fn a_settle_without_room_in_a_reads_only_open_does_not_offer_rm() {
        let e = StoreError::NoSpace(format!(
            "moving the cached bytes home needs room that is not there: OSS 0 is full.{SETTLE_NO_SPACE_WAY_OUT}"
        ));
        let msg = reads_only_message(&reads_only_cause(&e, Path::new("/s")), Path::new("/s"));
        assert!(msg.contains("OSS 0 is full"), "{msg}");
        assert!(!msg.contains("store rm` a file"), "{msg}");
        assert!(msg.contains("`rm` included"), "{msg}");
        assert!(msg.contains("grow it"), "{msg}");
    }

    /// Review s13r R13-3: the recovery's journal append on a full metadata disk named "the
    /// OSS" and advised `fail --oss`; it is the metadata disk's room that is missing.
    #[test]
    fn a_full_metadata_disk_in_recovery_gets_the_metadata_advice_not_the_oss_one() {
        for file in ["journal /s/journal", "writing /s/state.tmp"] {
            let e = StoreError::NoSpace(format!(
                "{file}: the disk is full (No space left on device (os error 28)); free space and retry, nothing acknowledged was lost"
            ));
            let why = reads_only_cause(&e, Path::new("/s"));
            assert_eq!(why.kind, ReadsOnlyKind::MetadataDiskFull, "{file}");
            let msg = reads_only_message(&why, Path::new("/s"));
            assert!(msg.contains("file system holding /s"), "{msg}");
            assert!(!msg.contains("store fail"), "{msg}");
            assert!(!msg.contains("the OSS named"), "{msg}");
        }
        // An OSS's own full disk keeps the OSS wording.
        let e = StoreError::NoSpace(
            "OSS 2 (/s/oss-2) is full (No space left on device (os error 28))".into(),
        );
        assert_eq!(
            reads_only_cause(&e, Path::new("/s")).kind,
            ReadsOnlyKind::RecoveryUnfinished
        );
    }

    #[test]
    fn a_failing_oss_still_gets_the_fail_advice() {
        let e = StoreError::Backend(crate::backend::BackendError::Unavailable {
            oss: "1".to_string(),
            why: "Input/output error".to_string(),
        });
        let msg = reads_only_message(&reads_only_cause(&e, Path::new("/s")), Path::new("/s"));
        assert!(msg.contains("store fail"), "{msg}");
    }
}

#[cfg(test)]
mod write_in_flight_tests {
    use super::*;

    /// Bytes 4096..20480 of file 7, write plan 5.
    fn write_in_flight() -> WriteInFlight {
        WriteInFlight {
            file: 7,
            offset_bytes: 4096,
            len_bytes: 16_384,
            write_plan: 5,
            lost: Vec::new(),
            collapsed: false,
            rewritten: Vec::new(),
            rewritten_overflow: false,
            failure_lost: Vec::new(),
            failure_lost_more: false,
        }
    }

    fn lost(file: u64, offset_bytes: u64, len_bytes: u64) -> LostRange {
        LostRange {
            file,
            offset_bytes,
            len_bytes,
            oss: 1,
            token: "t".into(),
            cache_addr_bytes: None,
            made_final_by_rebuild: false,
        }
    }

    #[test]
    fn only_losses_of_later_plans_inside_the_write_are_noted() {
        let mut w = write_in_flight();
        // Its own write plan's check (older bytes it overwrites) and an earlier plan's.
        w.note_lost_by_plan(5, &[lost(7, 4096, 100)]);
        w.note_lost_by_plan(2, &[lost(7, 4096, 100)]);
        assert!(w.lost.is_empty());
        // A later plan (its destage): the ranges inside the write, whole.
        w.note_lost_by_plan(
            6,
            &[
                lost(7, 0, 4096),
                lost(7, 4000, 200),
                lost(8, 8192, 50),
                lost(7, 8192, 50),
            ],
        );
        w.note_lost_by_plan(9, &[]);
        assert_eq!(w.lost, vec![lost(7, 4000, 200), lost(7, 8192, 50)]);
    }

    #[test]
    fn once_collapsed_to_the_whole_write_later_notes_do_not_extend_it() {
        // Review s17m (minor): a note after the collapse made the list 2 long, and the end's
        // check that every destage loss is noted (`len() == 1 || contains`) could then fail
        // for a range the collapse had folded in.
        let mut w = write_in_flight();
        let many: Vec<LostRange> = (0..=WRITE_IN_FLIGHT_LOST_RANGES_MAX as u64)
            .map(|i| lost(7, 4096 + i % 16_384, 1))
            .collect();
        w.note_lost_by_plan(6, &many);
        let whole = vec![lost(7, 4096, 16_384)];
        assert_eq!(w.lost, whole);
        w.note_lost_by_plan(7, &[lost(7, 5000, 1), lost(7, 9000, 3)]);
        w.note_lost_by_plan(8, &[lost(7, 4096, 16_384)]);
        assert_eq!(
            w.lost, whole,
            "the collapse holds: one range, the whole write"
        );
    }

    #[test]
    fn past_the_bound_the_whole_write_is_noted_lost() {
        let mut w = write_in_flight();
        let many: Vec<LostRange> = (0..WRITE_IN_FLIGHT_LOST_RANGES_MAX as u64)
            .map(|i| lost(7, 4096 + i % 16_384, 1))
            .collect();
        w.note_lost_by_plan(6, &many);
        assert_eq!(w.lost.len(), WRITE_IN_FLIGHT_LOST_RANGES_MAX);
        w.note_lost_by_plan(6, &[lost(7, 5000, 1)]);
        assert_eq!(
            w.lost,
            vec![lost(7, 4096, 16_384)],
            "named lost whole rather than a range dropped"
        );
    }

    #[test]
    fn a_range_a_later_write_rewrote_never_returns_to_the_notes_by_a_collapse() {
        // Merge review s18m M18-3 (s18d collapse vs s18e forget_rewritten), a repro: the end
        // journals the notes lost where they are off record, so a range a later write rewrote
        // (and took off the record) must never come back to the notes. The collapse past the
        // bound names the whole write, rewritten ranges included: a false LOST over the later
        // write's acknowledged bytes (M17-1 again, past the bound).
        let mut w = write_in_flight();
        w.note_lost_by_plan(6, &[lost(7, 4096, 100)]);
        w.forget_rewritten(7, 8192, 4096);
        let many: Vec<LostRange> = (0..=WRITE_IN_FLIGHT_LOST_RANGES_MAX as u64)
            .map(|i| lost(7, 4096 + i % 4096, 1))
            .collect();
        w.note_lost_by_plan(7, &many);
        assert!(
            w.lost
                .iter()
                .all(|l| l.outside(7, 8192, 4096) == vec![l.clone()]),
            "the rewritten bytes 8192..12288 are back on the notes: {:?}",
            w.lost
        );
    }

    #[test]
    fn a_later_writes_rewritten_range_leaves_the_notes_and_only_it() {
        let mut w = write_in_flight();
        w.note_lost_by_plan(6, &[lost(7, 4096, 8192), lost(7, 16_384, 100)]);
        // Another file's rewrite, then bytes 6000..8000 of this one.
        w.forget_rewritten(8, 4096, 16_384);
        w.forget_rewritten(7, 6000, 2000);
        assert_eq!(
            w.lost,
            vec![
                lost(7, 4096, 1904),
                lost(7, 8000, 4288),
                lost(7, 16_384, 100)
            ],
            "what was not rewritten stays noted"
        );
        w.forget_rewritten(7, 0, 20_480);
        assert!(w.lost.is_empty());
    }

    #[test]
    fn a_lost_range_split_by_a_rewrite_keeps_each_pieces_cache_address() {
        let l = LostRange {
            cache_addr_bytes: Some(1_000_000),
            ..lost(7, 4096, 8192)
        };
        assert_eq!(l.outside(7, 0, 100), vec![l.clone()], "no overlap");
        assert_eq!(l.outside(8, 4096, 8192), vec![l.clone()], "another file");
        assert_eq!(
            l.outside(7, 6000, 2000),
            vec![
                LostRange {
                    len_bytes: 1904,
                    ..l.clone()
                },
                LostRange {
                    offset_bytes: 8000,
                    len_bytes: 4288,
                    cache_addr_bytes: Some(1_000_000 + 3904),
                    ..l.clone()
                },
            ]
        );
        assert!(l.outside(7, 4096, 8192).is_empty());
    }

    /// The window bytes an OSS failure lost while a write was in flight are kept to name,
    /// up to the bound; past it the write says more were lost (`status` lists them).
    #[test]
    fn failure_losses_noted_on_a_write_in_flight_stop_at_the_bound_and_say_more() {
        let mut w = write_in_flight();
        let first: Vec<LostRange> = (0..FAILURE_LOST_NOTED_MAX as u64 - 1)
            .map(|i| lost(9, i * 8192, 4096))
            .collect();
        w.note_failure_lost(&first);
        assert_eq!(w.failure_lost, first);
        assert!(!w.failure_lost_more);
        w.note_failure_lost(&[lost(9, 1 << 40, 4096), lost(9, 1 << 41, 4096)]);
        assert_eq!(w.failure_lost.len(), FAILURE_LOST_NOTED_MAX);
        assert_eq!(w.failure_lost.last(), Some(&lost(9, 1 << 40, 4096)));
        assert!(w.failure_lost_more);
    }
}

/// How far `EXARAID_BENCH_WRITE_CRCS` (`none`, `data`; read once) lets client writes
/// journal their crcs (`Store::write_crcs_journaled`, `Store::home_write_crcs_journaled`):
/// a benchmark of their cost, side by side in one process; never set by the tests, never
/// in production (recovery then proves less, as with a journal of an older binary).
fn write_crcs_bench_limit() -> crate::state::WriteCrcsJournaled {
    use crate::state::WriteCrcsJournaled;
    static BENCH_LIMIT: std::sync::OnceLock<WriteCrcsJournaled> = std::sync::OnceLock::new();
    *BENCH_LIMIT.get_or_init(
        || match std::env::var("EXARAID_BENCH_WRITE_CRCS").as_deref() {
            Ok("none") => WriteCrcsJournaled::Nothing,
            Ok("data") => WriteCrcsJournaled::Data,
            _ => WriteCrcsJournaled::DataAndParity,
        },
    )
}

/// Counts one waiter off when the wait ends, by any way out (`?` included).
struct DecrementOnDrop<'a>(&'a AtomicUsize);
impl Drop for DecrementOnDrop<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
