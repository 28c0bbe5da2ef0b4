//! Bench tool (not CI): WCL client write throughput on H-code p=5 and raid6 4+2, the
//! bench's workload (`bench::run_path`: THREADS writers x N writes of 128 KiB, 1 MiB stripe
//! unit, fsync on), with its journal fsyncs. Session 24 (s24b) measured with it the cost of
//! syncing a WCL client write's input before its first cache write on array codes (one-row
//! codes since s21d): run it with and without `EXARAID_BENCH_WRITE_CRCS=none` (which
//! journals no write crcs and syncs nothing before the cache writes, on every code).
//!
//! Usage (CARGO_TARGET_DIR/release/examples/wcl_array_sync_bench):
//!   wcl_array_sync_bench DIR [threads=1] [writes_per_thread=64]

use exaraid_codes::{CodeKind, CodeSpec};
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
    for code in [CodeSpec::array(CodeKind::Hcode, 5), CodeSpec::raid6(4)] {
        let oss = exaraid_codes::Code::new(code).unwrap().geometry().cols;
        let r = run_path(
            &opts,
            &dir.join("store"),
            code,
            oss,
            WritePath::Wcl,
            128 << 10,
        )
        .unwrap();
        println!(
            "{code} wcl threads {threads} writes {} crcs={crcs}: {:.1} MiB/s, journal fsyncs {}",
            threads * writes,
            r.throughput_mib_s,
            r.time.journal_fsyncs
        );
    }
}
