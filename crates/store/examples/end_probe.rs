//! Bench tool (not CI): where the time of a delayed window's END goes, on the bench's
//! workload (8 writer threads x N writes of 128 KiB, one window around all of them), and
//! the same for full-stripe streaming on rmw.
//!
//! Usage (CARGO_TARGET_DIR/release/examples/end_probe):
//!   end_probe DIR raid5|raid6 [writes_per_thread=64] [fsync=1] [emulate=hdd] [mode=delayed|stream|raid0]
//! Prints the write phase split (writes acknowledged, END) and the probe's counters over END.

use std::sync::atomic::Ordering;
use std::time::Instant;

use exaraid_codes::CodeSpec;
use exaraid_store::bench::PROBE;
use exaraid_store::store::OpenOptions;
use exaraid_store::{InitOptions, Store, WritePath};

/// The CLI's `--emulate hdd` model (crates/cli store_cmd.rs `MeanDevice::hdd`, constants of
/// crates/sim models/device.rs): average seek + half a revolution at 7200 rpm + transfer at
/// 126 MB/s, one request at a time.
struct Hdd;

impl exaraid_store::ServiceTime for Hdd {
    fn name(&self) -> String {
        "hdd".into()
    }
    fn service_ns(&self, op: exaraid_plan::Op, bytes: u64) -> u64 {
        let seek_s = match op {
            exaraid_plan::Op::Read => 7.4e-3,
            exaraid_plan::Op::Write => 8.2e-3,
        };
        ((seek_s + 60.0 / 7200.0 / 2.0 + bytes as f64 / 126.0e6) * 1e9) as u64
    }
    fn parallel_units(&self) -> usize {
        1
    }
}

fn snapshot() -> Vec<(&'static str, u64)> {
    let p = &PROBE;
    let l = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    vec![
        ("cpu_ms", process_cpu_ms()),
        ("plans", l(&p.plans)),
        ("stripe_lock_wait_ms", l(&p.stripe_lock_wait_ns) / 1_000_000),
        ("execute_ms", l(&p.execute_ns) / 1_000_000),
        ("backend_sync_ms", l(&p.backend_sync_ns) / 1_000_000),
        ("core_lock_wait_ms", l(&p.core_lock_wait_ns) / 1_000_000),
        ("journal_durable_ms", l(&p.journal_durable_ns) / 1_000_000),
        ("zone_fsyncs", l(&p.zone_fsyncs)),
        ("zone_fsync_ms", l(&p.zone_fsync_ns) / 1_000_000),
        ("extents_writes", l(&p.extents_writes)),
        ("extents_ms", l(&p.extents_ns) / 1_000_000),
        ("dir_fsyncs", l(&p.dir_fsyncs)),
        ("journal_fsyncs", l(&p.journal_fsyncs)),
    ]
}

/// CPU time of the whole process so far (user + system), in milliseconds.
fn process_cpu_ms() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command name in parentheses: utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<u64> = rest
        .split(' ')
        .skip(11)
        .take(2)
        .map(|x| x.parse().unwrap())
        .collect();
    (f[0] + f[1]) * 10
}

/// One line to stdout; a closed pipe (`| head -1`) is not an error of the measurement.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn print_delta(what: &str, a: &[(&str, u64)], b: &[(&str, u64)]) {
    let parts: Vec<String> = a
        .iter()
        .zip(b)
        .map(|((n, x), (_, y))| format!("{n}={}", y - x))
        .collect();
    say(&format!("{what}: {}", parts.join(" ")));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let k = 4;
    let (code, oss) = match args[2].as_str() {
        "raid5" => (CodeSpec::raid5(k), k + 1),
        _ => (CodeSpec::raid6(k), k + 2),
    };
    let kv = |key: &str, default: &str| -> String {
        args.iter()
            .skip(3)
            .find_map(|a| a.strip_prefix(&format!("{key}=")).map(str::to_string))
            .unwrap_or_else(|| default.to_string())
    };
    let writes: usize = kv("writes_per_thread", "64").parse().unwrap();
    let fsync = kv("fsync", "1") == "1";
    let mode = kv("mode", "delayed");
    let threads = 8;
    let element_bytes = 1 << 20;
    let write_bytes = if mode == "stream" {
        k * element_bytes
    } else {
        128 << 10
    };
    let writes = if mode == "stream" {
        (writes * (128 << 10) / write_bytes).max(4)
    } else {
        writes
    };
    let _ = std::fs::remove_dir_all(&dir);
    let mut init = InitOptions::with_oss_count(&dir, oss, code);
    init.element_bytes = element_bytes;
    init.write_path = match mode.as_str() {
        "delayed" => WritePath::Delayed,
        "raid0" => WritePath::Raid0,
        _ => WritePath::Rmw,
    };
    Store::init(&dir, &init).unwrap().close().unwrap();
    let emulate: Option<std::sync::Arc<dyn exaraid_store::ServiceTime>> =
        (kv("emulate", "") == "hdd").then(|| std::sync::Arc::new(Hdd) as _);
    let store = Store::open_with(
        &dir,
        OpenOptions {
            fsync: fsync && emulate.is_none(),
            emulate,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let token = (mode == "delayed").then(|| store.delayed_start("bench").unwrap());
    let data = vec![7u8; write_bytes];
    let stop = std::sync::atomic::AtomicBool::new(false);
    let s0 = snapshot();
    let start = Instant::now();
    std::thread::scope(|s| {
        let server = s.spawn(|| store.serve_background(&stop));
        let writers: Vec<_> = (0..threads)
            .map(|t| {
                let (store, data) = (&store, &data);
                s.spawn(move || {
                    for i in 0..writes {
                        let o = ((t * writes + i) * write_bytes) as u64;
                        store.write("bench", o, data).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let acked = start.elapsed().as_secs_f64();
        let s1 = snapshot();
        if let Some(t) = &token {
            store.delayed_end(t).unwrap();
        }
        let phase = start.elapsed().as_secs_f64();
        let s2 = snapshot();
        stop.store(true, Ordering::SeqCst);
        server.join().unwrap().unwrap();
        let total = start.elapsed().as_secs_f64();
        say(&format!(
            "{mode} {}: writes acked {acked:.3} s, END {:.3} s, write phase {phase:.3} s ({:.1} MiB/s), total {total:.3} s",
            args[2],
            phase - acked,
            (threads * writes * write_bytes) as f64 / (1 << 20) as f64 / phase
        ));
        print_delta("writes", &s0, &s1);
        print_delta("END", &s1, &s2);
        print_delta("background after END", &s2, &snapshot());
    });
    store.close().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
