//! Review tool (s21r copy of s20r-api-overlap.rs, adds S21R_SCRUB=1: a thread running `scrub(true)`
//! (repair) in a loop beside the writers, no damage made, so any repair, mismatch or unrepairable
//! element it reports is a PROBLEM; S21R_PUTG=1: a thread that puts/removes/rewrites file "g" and reads
//! it back after each acknowledged change; S21R_WIN=1 (delayed): a thread opening and ending delayed
//! windows on file "h" with writes inside, read back after each END.)
//! Review tool (s20r, not CI): writer threads on OVERLAPPING ranges of one file through the Rust
//! API (the repo's concurrency tests use disjoint ranges), optionally with `serve_background`,
//! readers, and `flush` beside them. After the threads: every byte must come from a write that
//! covered it (or be zero where none did); the parity must agree (`scrub(false)` clean); every
//! set of `tolerance` OSSs failed must read the same bytes as the healthy store (degraded decode
//! over the parity the racing writes left); reopen and read again.
//!
//! Build: cp scripts/repro/s20r-api-overlap.rs crates/store/examples/s20r_overlap.rs &&
//!   CARGO_TARGET_DIR=/work/target-s20r cargo build --release -p exaraid-store --example s20r_overlap
//!   (then remove the copy).
//! Usage: s20r_overlap DIR CODE PATH [seed] [threads] [writes] [unit]   (CODE raid5 raid6 rs:43 hdp:5 ...)
//! Env: S20R_BG=1 (background worker), S20R_FLUSH=1 (a thread flushing), S20R_READERS=1.
//! Prints PROBLEM lines; exit 1 if any.

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
/// The byte write `id` puts at file offset `x`: tells every write apart at every byte.
fn byte_of(id: u64, x: u64) -> u8 {
    if id == 0 {
        return 0;
    }
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

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = Path::new(&a[1]);
    let (spec, oss) = spec_of(&a[2]);
    let path = match a[3].as_str() {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        _ => WritePath::Delayed,
    };
    let seed: u64 = a.get(4).map_or(1, |s| s.parse().unwrap());
    let threads: u64 = a.get(5).map_or(4, |s| s.parse().unwrap());
    let writes: u64 = a.get(6).map_or(40, |s| s.parse().unwrap());
    let unit: usize = a.get(7).map_or(4096, |s| s.parse().unwrap());
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = unit;
    opts.write_path = path;
    let mut store = Store::init(dir, &opts).unwrap();
    let tol = store.code().geometry().fault_tolerance;
    let span = (unit * 10) as u64;
    // (id, offset, len) of every acknowledged write
    let done: Mutex<Vec<(u64, u64, u64)>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let bg = std::env::var_os("S20R_BG").is_some();
    // S20R_WINDOW=1 (delayed path): every writer writes into one delayed window on f, ended after
    let window = if std::env::var_os("S20R_WINDOW").is_some() {
        store.write("f", 0, &[0u8; 1]).unwrap();
        done.lock().unwrap().push((0, 0, 1));
        Some(store.delayed_window("f").unwrap())
    } else {
        None
    };
    std::thread::scope(|s| {
        if bg {
            s.spawn(|| store.serve_background(&stop));
        }
        if std::env::var_os("S20R_FLUSH").is_some() {
            s.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    if let Err(e) = store.flush() {
                        problem(format!("flush: {e}"));
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(3));
                }
            });
        }
        if std::env::var_os("S21R_SCRUB").is_some() {
            s.spawn(|| {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    match store.scrub(true) {
                        Ok(r) => {
                            n += 1;
                            if !r.parity_mismatches.is_empty() || !r.unrepairable.is_empty() || !r.corrupt_elements.is_empty() {
                                problem(format!(
                                    "racing scrub(true) #{n}: mismatches {:?} unrepairable {:?} corrupt {:?}",
                                    r.parity_mismatches, r.unrepairable, r.corrupt_elements
                                ));
                            }
                        }
                        Err(e) => {
                            problem(format!("racing scrub(true) #{n}: {e}"));
                            return;
                        }
                    }
                }
                println!("racing scrubs: {n}");
            });
        }
        if std::env::var_os("S21R_PUTG").is_some() {
            s.spawn(|| {
                let mut model: Option<Vec<u8>> = None;
                let mut i = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    i += 1;
                    let h = mix(seed ^ 0x5151 ^ i);
                    let r = match h % 4 {
                        0 => {
                            let len = (h >> 8) as usize % (unit * 9 + 333);
                            let d: Vec<u8> = (0..len as u64).map(|x| byte_of(7_000_000 + i, x)).collect();
                            store.put("g", &d).map(|_| model = Some(d))
                        }
                        1 if model.is_some() => store.remove("g").map(|_| model = None),
                        _ => {
                            let off = (h >> 8) % (unit as u64 * 12);
                            let len = 1 + (h >> 24) % (unit as u64 * 3);
                            let d: Vec<u8> = (off..off + len).map(|x| byte_of(8_000_000 + i, x)).collect();
                            store.write("g", off, &d).map(|_| {
                                let m = model.get_or_insert_with(Vec::new);
                                if m.len() < (off + len) as usize {
                                    m.resize((off + len) as usize, 0);
                                }
                                m[off as usize..(off + len) as usize].copy_from_slice(&d);
                            })
                        }
                    };
                    if let Err(e) = r {
                        problem(format!("g op {i}: {e}"));
                        return;
                    }
                    let got = store.get("g");
                    match (&model, got) {
                        (Some(m), Ok(g)) if *m == g => {}
                        (None, Err(_)) => {}
                        (m, g) => {
                            problem(format!("g after op {i}: model {:?} got {:?}", m.as_ref().map(|m| m.len()), g.map(|g| g.len())));
                            return;
                        }
                    }
                }
                println!("g ops: {i}");
            });
        }
        if std::env::var_os("S21R_WIN").is_some() {
            s.spawn(|| {
                let mut model: Vec<u8> = Vec::new();
                let mut i = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    i += 1;
                    let w = match store.delayed_window("h") {
                        Ok(w) => w,
                        Err(e) => {
                            problem(format!("h window {i}: {e}"));
                            return;
                        }
                    };
                    for j in 0..3u64 {
                        let h = mix(seed ^ 0x7777 ^ (i * 10 + j));
                        let off = h % (unit as u64 * 8);
                        let len = 1 + (h >> 20) % (unit as u64 * 2);
                        let id = 9_000_000 + i * 10 + j;
                        let d: Vec<u8> = (off..off + len).map(|x| byte_of(id, x)).collect();
                        if let Err(e) = store.write("h", off, &d) {
                            problem(format!("h write {i}.{j}: {e}"));
                            return;
                        }
                        if model.len() < (off + len) as usize {
                            model.resize((off + len) as usize, 0);
                        }
                        model[off as usize..(off + len) as usize].copy_from_slice(&d);
                    }
                    if let Err(e) = w.end() {
                        problem(format!("h END {i}: {e}"));
                        return;
                    }
                    match store.get("h") {
                        Ok(g) if g == model => {}
                        Ok(g) => {
                            let d: Vec<usize> = (0..g.len().min(model.len())).filter(|&x| g[x] != model[x]).collect();
                            problem(format!("h after END {i}: len {} vs {}, differ at {} first {:?}", g.len(), model.len(), d.len(), &d[..d.len().min(4)]));
                            return;
                        }
                        Err(e) => {
                            problem(format!("h get {i}: {e}"));
                            return;
                        }
                    }
                }
                println!("h windows: {i}");
            });
        }
        let mut hs = Vec::new();
        for t in 0..threads {
            let (store, done) = (&store, &done);
            hs.push(s.spawn(move || {
                for i in 0..writes {
                    let id = 1 + t * 100_000 + i;
                    let h = mix(seed ^ mix(id));
                    let len = 1 + h % (unit as u64 * 2 + 500);
                    let off = mix(h) % (span - len);
                    let data: Vec<u8> = (off..off + len).map(|x| byte_of(id, x)).collect();
                    match store.write("f", off, &data) {
                        Ok(()) => done.lock().unwrap().push((id, off, len)),
                        Err(e) => {
                            problem(format!("write {id} {off}+{len}: {e}"));
                            return;
                        }
                    }
                    if std::env::var_os("S20R_READERS").is_some() {
                        let _ = store.read("f", off, len);
                    }
                }
            }));
        }
        // S20R_FAILMID=V: OSS V fails (fail_oss) while the writers run; `online` after them
        if let Some(v) = std::env::var("S20R_FAILMID").ok().and_then(|v| v.parse::<usize>().ok()) {
            std::thread::sleep(std::time::Duration::from_millis(20 + seed % 40));
            if let Err(e) = store.fail_oss(v) {
                println!("fail_oss {v}: {e}");
            }
        }
        for h in hs {
            h.join().unwrap();
        }
        stop.store(true, Ordering::SeqCst);
    });
    if let Some(w) = window {
        if let Err(e) = w.end() {
            problem(format!("END: {e}"));
        }
    }
    if let Some(v) = std::env::var("S20R_FAILMID").ok().and_then(|v| v.parse::<usize>().ok()) {
        if let Err(e) = store.online_oss(v) {
            problem(format!("online {v}: {e}"));
        }
    }
    let done = done.into_inner().unwrap();
    let check = |store: &Store, tag: &str| -> Option<Vec<u8>> {
        let got = match store.get("f") {
            Ok(g) => g,
            Err(e) => {
                problem(format!("{tag}: get: {e}"));
                return None;
            }
        };
        let mut bad = 0;
        for (x, &b) in got.iter().enumerate() {
            let x = x as u64;
            let ok = (b == 0 && !done.iter().any(|&(_, o, l)| o <= x && x < o + l))
                || done
                    .iter()
                    .any(|&(id, o, l)| o <= x && x < o + l && byte_of(id, x) == b);
            if !ok {
                if bad < 3 {
                    problem(format!("{tag}: byte {x} = {b:#x} from no write over it"));
                }
                bad += 1;
            }
        }
        Some(got)
    };
    let healthy = check(&store, "healthy");
    match store.scrub(false) {
        Ok(r) => {
            if !r.parity_mismatches.is_empty() || !r.unrepairable.is_empty() || !r.corrupt_elements.is_empty() {
                problem(format!(
                    "scrub: mismatches {:?} unrepairable {:?} corrupt {}",
                    r.parity_mismatches,
                    r.unrepairable,
                    r.corrupt_elements.len()
                ));
            }
        }
        Err(e) => problem(format!("scrub: {e}")),
    }
    drop(store);
    // degraded reads: every pair (or single) of OSSs failed must give the healthy bytes
    let sets: Vec<Vec<usize>> = if tol >= 2 {
        (0..oss).flat_map(|i| (i + 1..oss).map(move |j| vec![i, j])).collect()
    } else {
        (0..oss).map(|i| vec![i]).collect()
    };
    let copy = dir.with_extension("copy");
    for set in sets.iter().take(12) {
        let _ = std::fs::remove_dir_all(&copy);
        let st = std::process::Command::new("cp").arg("-a").arg(dir).arg(&copy).status().unwrap();
        assert!(st.success());
        // the copy's superblock names OSS dirs relative to the store: opening the copy is a copy
        let s2 = match Store::open(&copy) {
            Ok(s) => s,
            Err(e) => {
                problem(format!("open copy: {e}"));
                break;
            }
        };
        for &o in set {
            if let Err(e) = s2.fail_oss(o) {
                problem(format!("fail {o}: {e}"));
            }
        }
        match s2.get("f") {
            Ok(g) => {
                if Some(&g) != healthy.as_ref() {
                    let h = healthy.as_ref().unwrap();
                    let d: Vec<usize> = (0..g.len().min(h.len())).filter(|&i| g[i] != h[i]).collect();
                    problem(format!("degraded {set:?}: differs from healthy at {} bytes, first {:?}", d.len(), &d[..d.len().min(4)]));
                }
            }
            Err(e) => problem(format!("degraded {set:?}: get: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&copy);
    let store = Store::open(dir).unwrap();
    check(&store, "reopened");
    println!("writes {} problems {}", done.len(), PROBLEMS.load(Ordering::SeqCst));
    std::process::exit(if PROBLEMS.load(Ordering::SeqCst) > 0 { 1 } else { 0 });
}
