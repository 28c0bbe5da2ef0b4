//! exaraid-plan: the pure write planner. No I/O and no clock inside: both executors (the
//! real store and the simulator) and the tests drive it directly -- "one planner, two
//! executors" -- so the per-OSS operation counts of a workload are the same in both.
//!
//! # Model
//!
//! **Layout** ([`layout`]). A code's geometry is a grid of `rows x cols` *elements* of
//! `element_bytes` (the stripe unit); the stripe width is `cols`, one OSS per column. File
//! bytes fill stripe after stripe, and inside a stripe the data elements in the code's data
//! order. A file lives on `width` consecutive OSSs (of `oss_count >= width`) starting at
//! `(file * width) % oss_count`; code column `c` of stripe `s` sits on slot
//! `(c + width - s % width) % width` of them: left-symmetric parity rotation, each OSS holding
//! parity equally often over `width` stripes. Each OSS keeps one home object per file (stripe
//! `s`'s column at offset `s * rows * element_bytes`) and one cache zone.
//!
//! **Zones** ([`Zone`]): `Data` and `Parity` are the home locations of data and parity
//! elements; `Cache` is the OSS's write cache zone (the seed's "cache zone or working zone
//! using the available space in the storage devices connected to each OSS"), handed out in
//! chunks of one stripe column.
//!
//! **One op** is one request to one OSS: a read or a write of one contiguous byte range of
//! one zone (a [`Step`]). Contiguous requests of one plan to the same OSS and zone are merged
//! into one (a client write spanning stripes sends one request per OSS object extent).
//! [`OpCounts`] counts ops per zone and direction; [`OpCounts::by_content`] folds cache ops
//! into data / parity, the seed's accounting.
//!
//! **Plans** ([`IoPlan`]): the steps with their dependencies (`after`), the parity
//! computations ([`ParityCompute`]: `base ^ sum coef * (new ^ old)` over one byte range of
//! one parity element, inputs named as [`Bytes`]: client data, an earlier read, zero), and
//! `after_plans` between plans. Foreground plans are on the client's critical path,
//! background plans are not.
//!
//! **Strategies** ([`Strategy`], built by [`new_strategy`]) are state machines fed with
//! client writes, hints and `now_ns` ticks:
//!
//! | strategy | a write inside one element costs (RAID-5 / RAID-6 P+Q) |
//! |---|---|
//! | [`raid0`] | 1 data write / 1 |
//! | [`rmw`] (STD-RAID) | read old data + old parity, write both: 4 ops on 2 OSSs / 6 on 3 |
//! | [`wcl`] | data write to the cache + running parity read + write: 3 / 5 (2 / 3 for the first write of a cache-stripe range) |
//! | [`delayed`] (in a window) | 1 cache write / 1; at END: one cache read per written element + one parity write per stripe and parity; then the move home |
//!
//! - STD-RAID, seed 004 section 1: "updating a datum in RAID-5 requires four I/O requests
//!   (reading the original datum and the old parity and writing the new datum and the new
//!   parity) and six I/O requests in RAID-6 (due it uses two parity checksums)". A write
//!   covering several elements of a stripe picks read-modify-write or reconstruct-write,
//!   whichever needs fewer reads (ties: RMW); a full-stripe write reads nothing.
//! - WCL, section 2.1: "redirects all write operations to it. This effectively allows the
//!   WCL to treat all data writes as new data writes instead of updates, which allows to
//!   compute the parities based only on the new data written"; "reducing the number of
//!   operations when writing new data by 25 % in RAID-5 and 16 % in RAID-6"; "using the WCL
//!   approach requires a parity for each write (a read and a write to the Parity OSS)". The
//!   parity read and written is the cache stripe's *running parity*; a complete cache stripe
//!   is destaged home by a background plan ("full-stripe reads (probably cached in the OSS)
//!   and writes that can happen out of the critical path").
//! - Delayed parity, section 2.2: "When the WCL receives a START_DELAYED hint, redirects all
//!   write operations to the caching zone and disables the parity computations for this
//!   data. Once the corresponding END_DELAYED hint is received, the WCL computes the parities
//!   of all the full stripes affected by the hints, and moves (rewrites) the data to its
//!   original location in the OSS"; "Failure in acquiring the END signal can be detected
//!   with timeouts" (`StrategyConfig::window_timeout_ns`, fired by `on_tick`).
//!
//! Each strategy's module documents its model in full; [`strategy`] states the executor
//! contract (plan order, `on_complete`, monotonic `now_ns`).
//!
//! # Where exaraid differs from the seed, and why
//!
//! - WCL: the first write touching a byte range of a cache stripe's parity has no running
//!   parity to read (it is zero), so it costs 2 (RAID-5) / 3 (RAID-6) ops, not 3 / 5. The
//!   seed counts every write as 3 / 5; with its 512-wide stripes this is 1 write in 511.
//! - WCL overwrites of bytes already in the open cache stripe are read-modify-writes inside
//!   the cache (the seed leaves the non-overwriting transformation to log/versioning layers
//!   "out of the scope of this paper").
//! - Delayed parity: stripes a window wrote only in part are completed from home at END
//!   (the seed speaks of "full stripes"; a partial one must be protected too). Writes to a
//!   file without an open window take the STD-RAID path. The data move home is a background
//!   plan that reads the cache again (the seed expects such reads to hit the OSS cache).
//! - Parity-update ops are merged per contiguous range, so an END writes each stripe's parity
//!   element once ("it only needs to send them the consolidated writes").

/// Element accesses of reads and partial-stripe writes on one stripe of any code.
pub mod element_io;
/// The D-Code paper's I/O-load evaluation (load-balancing factor, I/O cost).
pub mod loads;

mod cache;
pub mod delayed;
pub mod interval;
pub mod layout;
pub mod plan;
pub mod raid0;
pub mod rmw;
pub mod strategy;
pub mod testing;
pub mod update;
pub mod wcl;

pub use layout::{DataAddress, ElementRange, Layout};
pub use plan::{
    counts_by_kind, counts_per_oss, total_counts, Bytes, ComputeId, ContentCounts, IoPlan, Op,
    OpCounts, ParityCompute, ParityMethod, ParityTerm, Piece, PlanCause, PlanKind, Step, StepId,
    Zone,
};
pub use strategy::{
    new_strategy, ClientWrite, CutWrites, Extent, Hint, PlanError, Strategy, StrategyConfig,
    StrategyKind, UnprotectedRange,
};

/// A file of the parallel file system.
pub type FileId = u64;
/// A client (compute node process).
pub type ClientId = u64;
/// A delayed-parity window (one START_DELAYED .. END_DELAYED of an application).
pub type WindowId = u64;
/// A plan, unique per strategy instance.
pub type PlanId = u64;
