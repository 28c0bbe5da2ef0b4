//! Review tool (s15r, not CI): the Rust API as an application uses it.
//!
//! Build: cp scripts/repro/s15r-api.rs crates/store/examples/s15r_api.rs &&
//!   CARGO_TARGET_DIR=/work/target-s15r cargo build --release -p exaraid-store --example s15r_api
//!   (then remove the copy: the crate's examples stay CI's).
//! Usage: s15r_api endrace DIR CODE PATH [rounds] [seed]
//!          a delayed window (or none on rmw/wcl) on one file, 3 writer threads on disjoint
//!          ranges of it, the window's `end()` racing the writers (and a second window started
//!          and dropped without end), a flush thread on wcl; then scrub must be clean (every
//!          acknowledged byte protected or on record), the file == model, one OSS failed:
//!          degraded read == model, rebuild, reopen every 2nd round.
//!        s15r_api panics DIR CODE PATH
//!          a `put_from` / `write_from` whose reader panics part way (caught), a writer
//!          thread that panics holding a window guard, two `Store` handles in one process;
//!          then the store must keep working and read the model.
//! Prints PROBLEM lines; exit 1 if any.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

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
    (spec, cols + 1)
}

fn path_of(s: &str) -> WritePath {
    match s {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        _ => WritePath::Delayed,
    }
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

fn check(store: &Store, name: &str, model: &[u8], what: &str) {
    match store.get(name) {
        Ok(got) => {
            if got.len() != model.len() {
                problem(format!("{what}: {name} len {} vs model {}", got.len(), model.len()));
            }
            let n = got.iter().zip(model).filter(|(a, b)| a != b).count();
            if n > 0 {
                let first = got.iter().zip(model).position(|(a, b)| a != b);
                problem(format!("{what}: {name} WRONG BYTES {n}, first at {first:?}"));
            }
        }
        Err(e) => problem(format!("{what}: get {name} {}: {e}", kind_of(&e))),
    }
}

fn scrub_clean(store: &Store, what: &str) {
    match store.scrub(false) {
        Ok(r) if r.parity_mismatches.is_empty()
            && r.corrupt_elements.is_empty()
            && r.unrepairable.is_empty()
            && r.lost_ranges.is_empty()
            && r.corrupt_cache_elements.is_empty() => {}
        Ok(r) => problem(format!(
            "{what}: scrub mismatches {:?} corrupt {} unrepairable {:?} lost {} cache {}",
            r.parity_mismatches,
            r.corrupt_elements.len(),
            r.unrepairable,
            r.lost_ranges.len(),
            r.corrupt_cache_elements.len()
        )),
        Err(e) => problem(format!("{what}: scrub {}: {e}", kind_of(&e))),
    }
}

fn endrace(dir: &Path, code: &str, path: &str, rounds: usize, seed: u64) {
    let (spec, oss) = spec_of(code);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = 4096;
    opts.write_path = path_of(path);
    opts.window_timeout_ms = 200 + seed % 3 * 400;
    let threads = 3usize;
    let region = 3 * 4096 * 4 + 1234; // disjoint per thread, sharing stripes at the seams
    let file_bytes = region * threads + 777;
    let mut store = Store::init(dir, &opts).unwrap();
    let mut r = Rng(seed);
    let model: Mutex<Vec<u8>> = Mutex::new(r.bytes(file_bytes));
    store.put("w", &model.lock().unwrap()).unwrap();
    let delayed = path == "delayed";
    for round in 0..rounds {
        let stop = AtomicBool::new(false);
        let writes = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 0..threads {
                let store = &store;
                let model = &model;
                let stop = &stop;
                let writes = &writes;
                let tseed = seed * 1000 + round as u64 * 10 + t as u64;
                s.spawn(move || {
                    let mut r = Rng(tseed);
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) && n < 200 {
                        let len = 1 + r.below(9000) as usize;
                        let off = t * region + r.below((region - len.min(region - 1)) as u64) as usize;
                        let len = len.min(region - (off - t * region));
                        let data = r.bytes(len);
                        match store.write("w", off as u64, &data) {
                            Ok(()) => {
                                model.lock().unwrap()[off..off + len].copy_from_slice(&data);
                            }
                            Err(e) => {
                                problem(format!("round {round}: thread {t} write {off}+{len} {}: {e}", kind_of(&e)));
                                return;
                            }
                        }
                        n += 1;
                        writes.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
            if path == "wcl" {
                let store = &store;
                let stop = &stop;
                s.spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        if let Err(e) = store.flush() {
                            problem(format!("round {round}: flush {}: {e}", kind_of(&e)));
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(7));
                    }
                });
            }
            // Main thread: windows racing the writers.
            for w in 0..4 {
                std::thread::sleep(Duration::from_millis(r.below(30)));
                if delayed {
                    match store.delayed_window("w") {
                        Ok(g) => {
                            std::thread::sleep(Duration::from_millis(r.below(40)));
                            if w == 3 && round % 2 == 1 {
                                drop(g); // left to its timeout
                            } else if let Err(e) = g.end() {
                                problem(format!("round {round}: end {}: {e}", kind_of(&e)));
                            }
                        }
                        Err(e) => problem(format!("round {round}: start {}: {e}", kind_of(&e))),
                    }
                } else {
                    let _ = store.tick();
                }
            }
            std::thread::sleep(Duration::from_millis(r.below(20)));
            stop.store(true, Ordering::SeqCst);
        });
        let model_now = model.lock().unwrap().clone();
        check(&store, "w", &model_now, &format!("round {round} after writers ({} writes)", writes.load(Ordering::SeqCst)));
        if delayed && round % 2 == 1 {
            // Let the dropped window's timeout fire.
            std::thread::sleep(Duration::from_millis(opts.window_timeout_ms + 50));
            let _ = store.tick();
            // The dropped window stays open (by design) and is started again by the next
            // settle: END it by its listed token before the failure below.
            for w in store.status().unwrap().open_windows {
                if let Err(e) = store.delayed_end(&w.token) {
                    problem(format!("round {round}: end of the dropped window {}: {e}", kind_of(&e)));
                }
            }
        }
        if !delayed || round % 2 == 0 {
            scrub_clean(&store, &format!("round {round}"));
        } else if let Err(e) = store.flush() {
            problem(format!("round {round}: flush {}: {e}", kind_of(&e)));
        } else {
            scrub_clean(&store, &format!("round {round} after flush"));
        }
        let f = r.below(oss as u64) as usize;
        if let Err(e) = store.fail_oss(f) {
            problem(format!("round {round}: fail {f} {}: {e}", kind_of(&e)));
        }
        check(&store, "w", &model_now, &format!("round {round} degraded (OSS {f} failed)"));
        if let Err(e) = store.rebuild(f, None) {
            problem(format!("round {round}: rebuild {f} {}: {e}", kind_of(&e)));
        }
        check(&store, "w", &model_now, &format!("round {round} rebuilt"));
        if round % 2 == 1 {
            store.close().unwrap();
            store = Store::open(dir).unwrap();
            check(&store, "w", &model_now, &format!("round {round} reopened"));
        }
        println!("round {round}: {} writes", writes.load(Ordering::SeqCst));
    }
    scrub_clean(&store, "end");
}

struct PanicReader {
    data: Vec<u8>,
    at: usize,
    panic_at: usize,
}

impl std::io::Read for PanicReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.panic_at {
            panic!("reader panics at {}", self.at);
        }
        let n = buf.len().min(self.panic_at - self.at).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn panics(dir: &Path, code: &str, path: &str) {
    let (spec, oss) = spec_of(code);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = 4096;
    opts.write_path = path_of(path);
    opts.window_timeout_ms = 300;
    let store = Store::init(dir, &opts).unwrap();
    let mut r = Rng(7);
    let a = r.bytes(100_000);
    store.put("a", &a).unwrap();
    // Two handles in one process.
    match Store::open(dir) {
        Ok(_) => problem("a second Store::open of an open store succeeded".into()),
        Err(StoreError::Busy(_)) => println!("second open: Busy (right)"),
        Err(e) => problem(format!("second open: {} {e}", kind_of(&e))),
    }
    std::panic::set_hook(Box::new(|_| {}));
    // put_from whose reader panics after 30 MB (several pieces written).
    for panic_at in [0usize, 5000, 9 << 20, 20 << 20] {
        let big = r.bytes(24 << 20);
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut rd = PanicReader { data: big.clone(), at: 0, panic_at };
            store.put_from("a", &mut rd)
        }));
        match res {
            Err(_) => println!("put_from panic_at {panic_at}: panicked (caught)"),
            Ok(Ok(n)) => println!("put_from panic_at {panic_at}: Ok({n}) (no panic: input shorter)"),
            Ok(Err(e)) => println!("put_from panic_at {panic_at}: {}", kind_of(&e)),
        }
        let expect = if panic_at > big.len() { &big } else { &a };
        if panic_at <= big.len() {
            check(&store, "a", expect, &format!("after put_from panic at {panic_at}"));
        }
        let l = store.list();
        if l.len() != 1 {
            problem(format!("after put_from panic at {panic_at}: list {:?}", l));
        }
        // write_from with a panicking reader on another file.
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut rd = PanicReader { data: big.clone(), at: 0, panic_at };
            store.write_from("b", 1000, &mut rd)
        }));
        println!("write_from panic_at {panic_at}: {}", if res.is_err() { "panicked" } else { "returned" });
        if let Ok(sz) = store.size("b") {
            println!("  b size {sz}");
            if let Err(e) = store.get("b") {
                problem(format!("after write_from panic at {panic_at}: get b {}: {e}", kind_of(&e)));
            }
        }
        let _ = store.remove("b");
    }
    // A writer thread that panics holding a window guard.
    if path == "delayed" {
        let w = r.bytes(5000);
        let res = std::thread::scope(|s| {
            s.spawn(|| {
                let g = store.delayed_window("a").unwrap();
                store.write("a", 300, &w).unwrap();
                let _keep = &g;
                panic!("writer dies in its window");
            })
            .join()
        });
        println!("window writer: {}", if res.is_err() { "panicked" } else { "returned" });
        let mut m = a.clone();
        m[300..5300].copy_from_slice(&w);
        check(&store, "a", &m, "after the window writer's panic");
        match store.put("a", &a) {
            Ok(()) => println!("put over a file with a dead thread's window: Ok"),
            Err(e) => println!("put over a file with a dead thread's window: {} {}", kind_of(&e), &e.to_string()[..e.to_string().len().min(200)]),
        }
        std::thread::sleep(Duration::from_millis(400));
        let _ = store.tick();
        match store.put("a", &a) {
            Ok(()) => println!("put after the dead window's timeout: Ok"),
            Err(e) => {
                println!("put after the dead window's timeout + tick: {} {e}", kind_of(&e));
                let st = store.status().unwrap();
                println!("status open windows: {:?}", st.open_windows);
                std::thread::sleep(Duration::from_millis(2000));
                let _ = store.tick();
                // A window stays open until END, its timeout fired or not (by design): END it
                // by the token `status` lists, as an application that lost the guard must.
                for w in store.status().unwrap().open_windows {
                    store.delayed_end(&w.token).unwrap();
                }
                match store.put("a", &a) {
                    Ok(()) => println!("put after END by the listed token: Ok"),
                    Err(e) => problem(format!("put after END by the listed token: {} {e}", kind_of(&e))),
                }
            }
        }
    }
    let _ = std::panic::take_hook();
    store.put("c", &a).unwrap();
    check(&store, "c", &a, "put after panics");
    scrub_clean(&store, "after panics");
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    check(&store, "c", &a, "reopened");
    let l = store.list();
    println!("list after reopen: {:?}", l);
    scrub_clean(&store, "reopened");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&args[2]);
    match args[1].as_str() {
        "endrace" => endrace(
            &dir,
            &args[3],
            &args[4],
            args.get(5).map_or(4, |s| s.parse().unwrap()),
            args.get(6).map_or(1, |s| s.parse().unwrap()),
        ),
        "panics" => panics(&dir, &args[3], &args[4]),
        other => panic!("mode {other}"),
    }
    let n = PROBLEMS.load(Ordering::SeqCst);
    println!("DONE problems {n}");
    std::process::exit(if n > 0 { 1 } else { 0 });
}
