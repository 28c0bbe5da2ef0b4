//! Bench tool (not CI): rmw client write throughput on raid5 4+1 (5 OSSs), the bench's
//! workload (`bench::run_path`: THREADS writers x N writes, 1 MiB stripe unit, fsync on),
//! writes of 128 KiB (whole 4 KiB blocks) and of 130,001 bytes (two edge blocks each, read
//! whole since s25b). Session 25 (s25b) measured with it the cost of journaling a raid5 home
//! write's crcs (`Rec::WriteCrcs`) and its edge blocks' whole crcs (one 4 KiB read per
//! edge block): run it with and without `EXARAID_BENCH_WRITE_CRCS=none` (which journals no
//! write crcs and reads no edge block: raid5 rmw as before s25b).
//!
//! Usage (CARGO_TARGET_DIR/release/examples/raid5_home_crcs_bench):
//!   raid5_home_crcs_bench DIR [threads=1] [writes_per_thread=64]

use exaraid_codes::CodeSpec;
use exaraid_store::bench::{run_path, BenchOptions};
use exaraid_store::WritePath;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: DIR [threads] [writes]"));
    let threads: usize = args.get(2).map_or(1, |a| a.parse().unwrap());
    let writes: usize = args.get(3).map_or(64, |a| a.parse().unwrap());
    let mut opts = BenchOptions::new(dir.clone(), false);
    opts.threads = threads;
    opts.writes_per_thread = writes;
    std::fs::create_dir_all(&dir).unwrap();
    let crcs = std::env::var("EXARAID_BENCH_WRITE_CRCS").unwrap_or_else(|_| "all".into());
    let code = CodeSpec::raid5(4);
    for write_bytes in [128 << 10, 130_001] {
        let r = run_path(
            &opts,
            &dir.join("store"),
            code,
            5,
            WritePath::Rmw,
            write_bytes,
        )
        .unwrap();
        println!(
            "{code} rmw threads {threads} writes {} of {write_bytes} bytes crcs={crcs}: {:.1} MiB/s, journal fsyncs {}",
            threads * writes,
            r.throughput_mib_s,
            r.time.journal_fsyncs
        );
    }
}
