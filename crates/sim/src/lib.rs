//! exaraid-sim: the exascale PFS simulator. It times the planner's plans (crates/plan: the
//! same write paths the real store runs) on models of devices, OSS service threads and the
//! network, for FLASH-like workloads of up to 500,000 clients over 512 OSSs, and reproduces
//! the seed's Figure 3 (experiments/fig3a..d.toml).
//!
//! - `models`: devices (HDD, SSD, measured table), network, with every constant's source;
//! - `workload`: applications, clients, weak and strong scaling;
//! - `port`: the planner behind the interface the executor drives;
//! - `executor`: the event loop that runs one point;
//! - `experiment`: TOML experiment files, points in parallel, results.csv and figures;
//! - `bench`: the event-engine benchmark (`exaraid sim bench`).

pub mod bench;
pub mod executor;
pub mod experiment;
pub mod models;
pub mod port;
pub mod workload;
