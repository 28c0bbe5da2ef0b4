//! The store executes exactly the planner's operations: for the bench workloads (several
//! writer threads, background destage on its own thread; `Workload::Fresh`, the seed's
//! non-overlapping writes, and `Workload::Overwrite`, whose timed pass rewrites part of
//! every write of an untimed first pass) the per-OSS operation counts the store executed
//! equal those of the plans a fresh planner makes for the same writes (for the overwrite,
//! the timed pass's, the planner fed the first pass before it). No adjustment on any
//! path: a delayed move home's edge-block reads are plan steps since s50c.

use exaraid_codes::CodeSpec;
use exaraid_store::bench::{run_path, BenchOptions, Workload};
use exaraid_store::WritePath;

#[test]
fn store_bench_op_counts_equal_the_planners() {
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = BenchOptions::new(tmp.path().to_path_buf(), true);
    opts.threads = 3;
    opts.writes_per_thread = 10;
    opts.element_bytes = 16 << 10;
    opts.k = 3;
    opts.fsync = false;
    // Overwrite: 16 KiB writes, so its range (6..14 KiB of each write) ends mid-block.
    for (workload, write_bytes) in [(Workload::Fresh, 8 << 10), (Workload::Overwrite, 16 << 10)] {
        opts.workload = workload;
        opts.write_bytes = write_bytes;
        for (code, oss) in [(CodeSpec::raid5(3), 4), (CodeSpec::raid6(3), 6)] {
            for path in [
                WritePath::Raid0,
                WritePath::Rmw,
                WritePath::Wcl,
                WritePath::Delayed,
            ] {
                eprintln!("running {workload:?} {code} {path:?}");
                let r = run_path(
                    &opts,
                    &tmp.path().join("s"),
                    code,
                    oss,
                    path,
                    opts.write_bytes,
                )
                .unwrap();
                let total: u64 = r.ops_per_oss.iter().map(|o| o.total()).sum();
                assert!(
                    total >= 30,
                    "{workload:?} {code} {path:?}: the workload did I/O"
                );
                assert_eq!(
                    r.ops_per_oss, r.planner_ops_per_oss,
                    "{workload:?} {code} {path:?}: store vs planner, per OSS"
                );
                if (workload, path) == (Workload::Overwrite, WritePath::Delayed) {
                    // Not vacuous: the move home rewrites both edge blocks of every
                    // overwrite in part, and reads each first as a step of its plan
                    // (`MOVE_EDGE_BLOCK_BYTES`; before s50c, outside it: +2 per write).
                    for o in &r.ops_per_oss {
                        assert_eq!(
                            o.data_read,
                            2 * o.data_write,
                            "{code}: two edge reads per home write of the move"
                        );
                    }
                }
                assert_eq!(r.ops_match_planner, r.ops_per_oss == r.planner_ops_per_oss);
            }
        }
    }
}
