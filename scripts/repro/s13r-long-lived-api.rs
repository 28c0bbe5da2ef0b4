//! Review tool (s13r, not CI): one long-lived `Store` (an application) while OSS directories
//! vanish under it (renamed away: a disk gone, not `fail_oss`) and come back, with writer
//! threads, a background worker, window guards dropped without `end()`, then `online_oss`
//! / `rebuild`, a reopen, and every byte checked against a per-thread model.
//!
//! Build: cp scripts/repro/s13r-long-lived-api.rs crates/store/examples/s13r_long_lived.rs &&
//!   cargo build --release -p exaraid-store --example s13r_long_lived (kept here, as
//!   repro-r12-1-api.rs is, so the crate's examples stay CI's).
//! Usage: s13r_long_lived DIR CODE PATH [cycles] [seed]
//!   CODE: raid5 | raid6 | rs:42 | dcode:5 | xcode:5 | ...; PATH: rmw | wcl | delayed
//! Each thread owns one file; an acknowledged write updates the model; a failed write makes
//! its range "either" (old or new allowed, and a DataLost read of it too). Prints PROBLEM
//! lines; exit 1 if any.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use exaraid_codes::{Code, CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

static PROBLEMS: AtomicUsize = AtomicUsize::new(0);

fn problem(msg: String) {
    PROBLEMS.fetch_add(1, Ordering::SeqCst);
    println!("PROBLEM {msg}");
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A file's model: the acknowledged bytes, and per byte the other values allowed (a failed
/// write's new bytes).
struct Model {
    bytes: Vec<u8>,
    alt: Vec<Option<u8>>,
    lost_ok: Vec<bool>,
}

impl Model {
    fn write(&mut self, off: usize, data: &[u8], acked: bool) {
        let end = off + data.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
            self.alt.resize(end, None);
            self.lost_ok.resize(end, false);
        }
        for (i, &b) in data.iter().enumerate() {
            if acked {
                self.bytes[off + i] = b;
                self.alt[off + i] = None;
                self.lost_ok[off + i] = false;
            } else {
                self.alt[off + i] = Some(b);
                self.lost_ok[off + i] = true;
            }
        }
    }
    /// Bytes that are neither the acknowledged nor an allowed other value.
    fn wrong(&self, got: &[u8]) -> (usize, Option<usize>) {
        let mut n = 0;
        let mut first = None;
        for (i, &g) in got.iter().enumerate() {
            let ok = i < self.bytes.len() && (g == self.bytes[i] || self.alt[i] == Some(g));
            if !ok {
                n += 1;
                first.get_or_insert(i);
            }
        }
        (n, first)
    }
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

fn kind_of(e: &StoreError) -> &'static str {
    match e {
        StoreError::NotAStore(_) => "NotAStore",
        StoreError::BadInput(_) => "BadInput",
        StoreError::Metadata(_) => "Metadata",
        StoreError::Io(_) => "Io",
        StoreError::NoSpace(_) => "NoSpace",
        StoreError::Backend(_) => "Backend",
        StoreError::DataLost(_) => "DataLost",
        StoreError::Busy(_) => "Busy",
    }
}

fn check_all(store: &Store, models: &[Mutex<Model>], what: &str) {
    for (t, m) in models.iter().enumerate() {
        let name = format!("t{t}");
        let m = m.lock().unwrap();
        match store.get(&name) {
            Ok(got) => {
                if got.len() != m.bytes.len() {
                    problem(format!("{what}: {name} len {} vs model {}", got.len(), m.bytes.len()));
                }
                let (n, first) = m.wrong(&got);
                if n > 0 {
                    problem(format!("{what}: {name} WRONG BYTES: {n}, first at {first:?}"));
                }
            }
            Err(StoreError::DataLost(msg)) if m.lost_ok.iter().any(|&b| b) => {
                println!("note {what}: {name} DataLost (a failed write's range may be): {}", &msg[..msg.len().min(200)]);
            }
            Err(e) => problem(format!("{what}: get {name} {}: {e}", kind_of(&e))),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&args[1]);
    let (spec, oss) = spec_of(&args[2]);
    let path = match args[3].as_str() {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        _ => WritePath::Delayed,
    };
    let cycles: usize = args.get(4).map_or(4, |s| s.parse().unwrap());
    let seed: u64 = args.get(5).map_or(1, |s| s.parse().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
    opts.element_bytes = 4096 << (seed % 3 * 2);
    opts.write_path = path;
    opts.window_timeout_ms = 300;
    let tolerance = Code::new(spec).unwrap().geometry().fault_tolerance;
    let threads = 4;
    let file_bytes = opts.element_bytes * 12;
    let models: Vec<Mutex<Model>> = (0..threads)
        .map(|_| {
            Mutex::new(Model {
                bytes: Vec::new(),
                alt: Vec::new(),
                lost_ok: Vec::new(),
            })
        })
        .collect();
    let mut store = Store::init(&dir, &opts).unwrap();
    {
        let mut r = Rng(seed);
        for (t, m) in models.iter().enumerate() {
            let b = r.bytes(file_bytes);
            store.put(&format!("t{t}"), &b).unwrap();
            m.lock().unwrap().write(0, &b, true);
        }
    }
    println!("{} {:?} unit {} oss {oss} tolerance {tolerance}", args[2], path, opts.element_bytes);
    let oss_dir = |i: usize| dir.join(format!("oss-{i}"));
    let away = |i: usize| dir.join(format!("away-{i}"));
    for cycle in 0..cycles {
        let victim = (cycle * 7 + seed as usize) % oss;
        let stop = AtomicBool::new(false);
        let writes_done = AtomicUsize::new(0);
        std::thread::scope(|s| {
            let st = &store;
            let stop_ref = &stop;
            let bg = s.spawn(move || st.serve_background(stop_ref));
            let mut hs = Vec::new();
            for t in 0..threads {
                let (models, wd) = (&models, &writes_done);
                hs.push(s.spawn(move || {
                    let mut r = Rng(seed * 1000 + cycle as u64 * 10 + t as u64);
                    let name = format!("t{t}");
                    for i in 0..40 {
                        let window = (path == WritePath::Delayed && i % 10 == 0)
                            .then(|| st.delayed_window(&name));
                        let len = 1 + r.below(3 * 4096) as usize;
                        let off = r.below(file_bytes as u64 - len as u64) as usize;
                        let data = r.bytes(len);
                        let res = st.write(&name, off as u64, &data);
                        let acked = res.is_ok();
                        if let Err(e) = &res {
                            println!("note cycle {cycle}: write {name} {off}+{len} {}: {}", kind_of(e), &e.to_string()[..e.to_string().len().min(160)]);
                        }
                        models[t].lock().unwrap().write(off, &data, acked);
                        wd.fetch_add(1, Ordering::SeqCst);
                        match window {
                            // Half the windows are dropped without end() (their timeout ends them).
                            Some(Ok(w)) if i % 20 == 0 => {
                                if let Err(e) = w.end() {
                                    println!("note cycle {cycle}: end {}: {e}", kind_of(&e));
                                }
                            }
                            Some(Ok(w)) => drop(w),
                            Some(Err(e)) => println!("note cycle {cycle}: start {}: {e}", kind_of(&e)),
                            None => {}
                        }
                    }
                }));
            }
            // The victim's directory goes away while the writers run, and comes back.
            while writes_done.load(Ordering::SeqCst) < 30 {
                std::thread::yield_now();
            }
            std::fs::rename(oss_dir(victim), away(victim)).unwrap();
            while writes_done.load(Ordering::SeqCst) < 100 {
                std::thread::yield_now();
            }
            std::fs::rename(away(victim), oss_dir(victim)).unwrap();
            for h in hs {
                h.join().unwrap();
            }
            stop.store(true, Ordering::SeqCst);
            if let Err(e) = bg.join().unwrap() {
                problem(format!("cycle {cycle}: serve_background {}: {e}", kind_of(&e)));
            }
        });
        // A failed OSS sync poisons the store by design (docs/store.md: reopen, it recovers).
        if let Err(StoreError::Io(msg)) = store.get("t0") {
            if msg.contains("failed half way") {
                println!("note cycle {cycle}: poisoned (a failed sync): reopened");
                let _ = store.close();
                store = Store::open(&dir).unwrap();
            }
        }
        let failed = store.failed_osses();
        println!("cycle {cycle}: victim {victim} failed now {failed:?}");
        check_all(&store, &models, &format!("cycle {cycle} degraded"));
        if let Err(e) = store.flush() {
            println!("note cycle {cycle}: flush {}: {e}", kind_of(&e));
        }
        for &f in &failed {
            let how = if cycle % 2 == 0 { "online" } else { "rebuild" };
            let res = if how == "online" {
                store.online_oss(f)
            } else {
                store.rebuild(f, None)
            };
            if let Err(e) = res {
                println!("note cycle {cycle}: {how} {f} {}: {e}", kind_of(&e));
                if let Err(e) = store.rebuild(f, None) {
                    problem(format!("cycle {cycle}: rebuild {f} after {how} refused {}: {e}", kind_of(&e)));
                }
            }
        }
        check_all(&store, &models, &format!("cycle {cycle} after repair"));
        // Every OSS but the tolerance's first few failed in turn: reads decode through the
        // repaired one.
        match store.scrub(false) {
            Ok(r) if r.parity_mismatches.is_empty() && r.corrupt_elements.is_empty() && r.unrepairable.is_empty() && r.failed_oss.is_empty() => {}
            Ok(r) => problem(format!("cycle {cycle}: scrub {:?} {:?} {:?} failed {:?} lost {}", r.parity_mismatches, r.corrupt_elements.len(), r.unrepairable, r.failed_oss, r.lost_ranges.len())),
            Err(e) => problem(format!("cycle {cycle}: scrub {}: {e}", kind_of(&e))),
        }
        if cycle % 2 == 1 {
            store.close().unwrap();
            store = Store::open(&dir).unwrap();
            check_all(&store, &models, &format!("cycle {cycle} reopened"));
        }
    }
    let _ = Path::new("");
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    for o in 0..tolerance.min(oss) {
        let _ = store.fail_oss(o);
    }
    check_all(&store, &models, "end, tolerance failed");
    let n = PROBLEMS.load(Ordering::SeqCst);
    println!("DONE problems {n}");
    std::process::exit(if n > 0 { 1 } else { 0 });
}
