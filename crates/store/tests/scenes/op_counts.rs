//! The store executes exactly the planner's operations: for the bench workload (several
//! writer threads, non-overlapping writes, background destage on its own thread) the
//! per-OSS operation counts the store executed equal those of the plans a fresh planner
//! makes for the same writes.

use exaraid_codes::CodeSpec;
use exaraid_store::bench::{run_path, BenchOptions};
use exaraid_store::WritePath;

#[test]
fn store_bench_op_counts_equal_the_planners() {
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = BenchOptions::new(tmp.path().to_path_buf(), true);
    opts.threads = 3;
    opts.writes_per_thread = 10;
    opts.write_bytes = 8 << 10;
    opts.element_bytes = 16 << 10;
    opts.k = 3;
    opts.fsync = false;
    for (code, oss) in [(CodeSpec::raid5(3), 4), (CodeSpec::raid6(3), 6)] {
        for path in [
            WritePath::Raid0,
            WritePath::Rmw,
            WritePath::Wcl,
            WritePath::Delayed,
        ] {
            eprintln!("running {code} {path:?}");
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
            assert!(total >= 30, "{code} {path:?}: the workload did I/O");
            assert_eq!(
                r.ops_per_oss, r.planner_ops_per_oss,
                "{code} {path:?}: store vs planner, per OSS"
            );
            assert!(r.ops_match_planner);
        }
    }
}
