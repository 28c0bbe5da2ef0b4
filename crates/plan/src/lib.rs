//! exaraid-plan: the pure planner. No I/O and no clock inside: both executors (the store
//! and the simulator) and the tests drive it directly.

/// Element accesses of reads and partial-stripe writes on one stripe of any code.
pub mod element_io;
/// The D-Code paper's I/O-load evaluation (load-balancing factor, I/O cost).
pub mod loads;
