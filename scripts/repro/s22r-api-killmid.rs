//! Review tool (s22r, not CI): SEVERAL writer threads cut at once. Writer threads write
//! overlapping ranges of one file through the Rust API; the process is killed at a named kill
//! point (`EXARAID_KILL_AT`, set by the caller: every thread in flight is cut together, which a
//! CLI `write` never does: one command is one writer). A second run (`check`) opens the store
//! (its recovery runs) and checks every byte comes from a write issued over it (the put before
//! them, an acknowledged or a cut one), and that the length covers every acknowledged write;
//! then `scrub(false)` must be clean. The caller may damage zone files between the two runs.
//!
//! Build: cp scripts/repro/s22r-api-killmid.rs crates/store/examples/s22r_killmid.rs &&
//!   cargo build --release -p exaraid-store --example s22r_killmid  (then remove the copy).
//! Usage: s22r_killmid run DIR CODE PATH [seed] [threads] [writes] [unit]   (CODE raid6 rs:43 hdp:5 ..)
//!        s22r_killmid check DIR
//! Env (run): S22R_BG=1 (background worker), S22R_FLUSH=1 (a thread flushing).
//!   s26r: S26R_WINDOW_MS=N (path delayed): a thread opens a delayed window on "f", holds it N ms
//!   while the writers write (their bytes go to the cache zone, no parity), ends it, and again;
//!   S26R_TIMEOUT_MS=T / S26R_BOUND_BYTES=B: the store's window timeout and unprotected bound
//!   (with S22R_BG=1 the background worker settles due windows). Example:
//!   S22R_BG=1 S26R_WINDOW_MS=5 S26R_TIMEOUT_MS=3 EXARAID_KILL_AT=journal-record:40 s22r_killmid run /tmp/s26r-x hcode:5 delayed 1 4 30 16384
//! The log DIR.log holds "I id off len" before each write and "A id" after its acknowledgement.
//! Prints PROBLEM lines; exit 1 if any.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use exaraid_codes::{Code, CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, WritePath};

static PROBLEMS: AtomicUsize = AtomicUsize::new(0);
fn problem(msg: String) {
    PROBLEMS.fetch_add(1, Ordering::SeqCst);
    println!("PROBLEM {msg}");
}
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
/// The byte write `id` puts at file offset `x` (never 0: zeros are no write's).
fn byte_of(id: u64, x: u64) -> u8 {
    (mix(id.wrapping_mul(1_000_003) ^ x) as u8) | 1
}
fn spec_of(name: &str) -> (CodeSpec, usize) {
    let (kind, param) = name.split_once(':').unwrap_or((name, "0"));
    let param: usize = param.parse().unwrap();
    let spec = match CodeKind::from_name(kind).unwrap() {
        CodeKind::Raid5 => CodeSpec::raid5(4),
        CodeKind::Raid6 => CodeSpec::raid6(4),
        CodeKind::Rs => CodeSpec::rs(param / 10, param % 10),
        k => CodeSpec::array(k, param),
    };
    let cols = Code::new(spec).unwrap().geometry().cols;
    (spec, cols)
}
const PUT_ID: u64 = 7;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = Path::new(&a[2]);
    let logp = dir.with_extension("log");
    if a[1] == "check" {
        check(dir, &logp);
    } else {
        run(&a, dir, &logp);
    }
    if PROBLEMS.load(Ordering::SeqCst) > 0 {
        std::process::exit(1);
    }
}

fn run(a: &[String], dir: &Path, logp: &Path) {
    let (spec, oss) = spec_of(&a[3]);
    let path = match a[4].as_str() {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        _ => WritePath::Delayed,
    };
    let seed: u64 = a.get(5).map_or(1, |s| s.parse().unwrap());
    let threads: u64 = a.get(6).map_or(4, |s| s.parse().unwrap());
    let writes: u64 = a.get(7).map_or(40, |s| s.parse().unwrap());
    let unit: usize = a.get(8).map_or(4096, |s| s.parse().unwrap());
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = unit;
    opts.write_path = path;
    let env_u64 = |k: &str| std::env::var(k).ok().map(|v| v.parse::<u64>().unwrap());
    if let Some(t) = env_u64("S26R_TIMEOUT_MS") {
        opts.window_timeout_ms = t;
    }
    if let Some(b) = env_u64("S26R_BOUND_BYTES") {
        opts.unprotected_bytes_max = b;
    }
    let window_ms = env_u64("S26R_WINDOW_MS");
    let store = Store::init(dir, &opts).unwrap();
    let span = (unit * 10) as u64;
    let put_len = span / 2 + 777;
    let log = Mutex::new(std::fs::File::create(logp).unwrap());
    let put: Vec<u8> = (0..put_len).map(|x| byte_of(PUT_ID, x)).collect();
    store.put("f", &put).unwrap();
    writeln!(log.lock().unwrap(), "I {PUT_ID} 0 {put_len}\nA {PUT_ID}").unwrap();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        if std::env::var_os("S22R_BG").is_some() {
            s.spawn(|| store.serve_background(&stop));
        }
        if let Some(ms) = window_ms {
            let (store, log, stop) = (&store, &log, &stop);
            s.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match store.delayed_window("f") {
                        Ok(w) => {
                            writeln!(log.lock().unwrap(), "W start {}", w.token()).unwrap();
                            std::thread::sleep(std::time::Duration::from_millis(ms));
                            let token = w.token().to_string();
                            match w.end() {
                                Ok(()) => writeln!(log.lock().unwrap(), "W end {token}").unwrap(),
                                // A window its timeout closed first: END says the token is unknown.
                                Err(e) if e.to_string().contains("unknown") => {}
                                Err(e) => {
                                    problem(format!("window end: {e}"));
                                    return;
                                }
                            }
                        }
                        Err(e) => {
                            problem(format!("window start: {e}"));
                            return;
                        }
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            });
        }
        if std::env::var_os("S22R_FLUSH").is_some() {
            s.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    if let Err(e) = store.flush() {
                        problem(format!("flush: {e}"));
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            });
        }
        let mut hs = Vec::new();
        for t in 0..threads {
            let (store, log) = (&store, &log);
            hs.push(s.spawn(move || {
                for i in 0..writes {
                    let id = 100 + t * 100_000 + i;
                    let h = mix(seed ^ mix(id));
                    let len = 1 + h % (unit as u64 * 2 + 500);
                    let off = mix(h) % (span - len);
                    let data: Vec<u8> = (off..off + len).map(|x| byte_of(id, x)).collect();
                    writeln!(log.lock().unwrap(), "I {id} {off} {len}").unwrap();
                    match store.write("f", off, &data) {
                        Ok(()) => writeln!(log.lock().unwrap(), "A {id}").unwrap(),
                        Err(e) => {
                            problem(format!("write {id} {off}+{len}: {e}"));
                            return;
                        }
                    }
                }
            }));
        }
        for h in hs {
            h.join().unwrap();
        }
        stop.store(true, Ordering::SeqCst);
    });
    println!("run finished (no kill)");
}

fn check(dir: &Path, logp: &Path) {
    let text = std::fs::read_to_string(logp).unwrap();
    let mut issued: Vec<(u64, u64, u64)> = Vec::new();
    let mut acked = std::collections::BTreeSet::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["I", id, off, len] => issued.push((id.parse().unwrap(), off.parse().unwrap(), len.parse().unwrap())),
            ["A", id] => {
                acked.insert(id.parse::<u64>().unwrap());
            }
            _ => {} // a line cut by the kill
        }
    }
    let store = match Store::open(dir) {
        Ok(s) => s,
        Err(e) => {
            problem(format!("open: {e}"));
            return;
        }
    };
    let got = match store.get("f") {
        Ok(g) => g,
        Err(e) => {
            let m = e.to_string();
            println!("get refused: {}", &m[..m.len().min(600)]);
            if !m.to_lowercase().contains("lost") {
                problem(format!("get: {m}"));
            }
            return;
        }
    };
    let min_len = issued
        .iter()
        .filter(|w| acked.contains(&w.0))
        .map(|w| w.1 + w.2)
        .max()
        .unwrap_or(0);
    if (got.len() as u64) < min_len {
        problem(format!("length {} < acknowledged end {min_len}", got.len()));
    }
    let mut bad = 0;
    for (x, &b) in got.iter().enumerate() {
        let x = x as u64;
        let over: Vec<&(u64, u64, u64)> = issued.iter().filter(|&&(_, o, l)| o <= x && x < o + l).collect();
        let any_acked = over.iter().any(|w| acked.contains(&w.0));
        let ok = over.iter().any(|&&(id, _, _)| byte_of(id, x) == b) || (b == 0 && !any_acked);
        if !ok {
            if bad < 4 {
                let ids: Vec<(u64, bool, u8)> = over.iter().map(|w| (w.0, acked.contains(&w.0), byte_of(w.0, x))).collect();
                problem(format!("byte {x} = {b:#04x} from no write over it (writes over it: id, acked, byte: {ids:?})"));
            }
            bad += 1;
        }
    }
    if bad > 0 {
        problem(format!("{bad} bytes wrong of {}", got.len()));
    }
    match store.scrub(false) {
        Ok(r) => {
            if !r.parity_mismatches.is_empty() || !r.unrepairable.is_empty() || !r.corrupt_elements.is_empty() {
                problem(format!(
                    "scrub after recovery: mismatches {:?} unrepairable {:?} corrupt {}",
                    r.parity_mismatches,
                    r.unrepairable,
                    r.corrupt_elements.len()
                ));
            }
        }
        Err(e) => problem(format!("scrub: {e}")),
    }
    println!("check done: {} bytes, {} writes issued, {} acknowledged", got.len(), issued.len(), acked.len());
}
