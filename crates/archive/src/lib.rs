//! exaraid-archive: the tape archival tier of the Blue Waters study (Cappello et al.,
//! "Comparing archival policies for Blue Waters", INRIA RR-7583): RAIT, PARALLEL, VERTICAL
//! and HETERO on one library of 500 drives, 20 robot arms and 50 movers, with the seed's
//! MAIN-SCHEDULER and LOAD-BALANCER. See docs/archive.md and docs/models.md.
//!
//! VERTICAL is the tape-tier twin of Delayed Parity: the EC is accumulated on the side (the
//! mover's persistent disk) while data streams to tape, and written after the data. The
//! bookkeeping is shared code, `exaraid_codes::accumulate::ParityAccumulator`: size mode in
//! the simulator, byte mode in [`layout::vertical_write_bytes`] (checked against the full
//! X+Y encode in tests/vertical_ec_bytes.rs).

pub mod experiment;
pub mod hardware;
pub mod layout;
pub mod sim;

pub use experiment::{ExperimentToml, CSV_HEADER};
pub use hardware::Platform;
pub use sim::{Decision, Metrics, Policy, Sim, SimConfig};
