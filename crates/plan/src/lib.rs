//! exaraid-plan: the pure planner. No I/O and no clock inside: both executors (the store
//! and the simulator) and the tests drive it directly. (Model documentation: see below;
//! filled in as the strategies land.)

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
mod update;
pub mod wcl;

pub use layout::{DataAddress, ElementRange, Layout};
pub use plan::{
    counts_by_kind, counts_per_oss, total_counts, Bytes, ComputeId, ContentCounts, IoPlan, Op, OpCounts, ParityCompute,
    ParityMethod, ParityTerm, Piece, PlanCause, PlanKind, Step, StepId, Zone,
};
pub use strategy::{
    new_strategy, ClientWrite, Extent, Hint, PlanError, Strategy, StrategyConfig, StrategyKind, UnprotectedRange,
};

/// A file of the parallel file system.
pub type FileId = u64;
/// A client (compute node process).
pub type ClientId = u64;
/// A delayed-parity window (one START_DELAYED .. END_DELAYED of an application).
pub type WindowId = u64;
/// A plan, unique per strategy instance.
pub type PlanId = u64;
