//! Review tool (s19r, not CI): writer threads + a rot thread + scrub --repair through the Rust API.
//!
//! Build: cp scripts/repro/s19r-api-rotrace.rs crates/store/examples/s19r_rotrace.rs &&
//!   CARGO_TARGET_DIR=/work/target-s19r cargo build --release -p exaraid-store --example s19r_rotrace
//!   (then remove the copy).
//! Usage: s19r_rotrace DIR CODE PATH [rounds] [seed] [failed OSSs]   (CODE raid6, rs:43, hdp:5 ...)
//!        s19r_rotrace DIR CODE winfail [rounds] [seed]   (delayed windows per thread, one OSS failed mid-round)
//! rotrace env: S19R_THREADS (writers, default 3), S19R_ONEFLIP (one flip per round, no scrub
//!   beside the writers), S19R_NOFLIP (no flips), S19R_FLIPGATE (flips never inside a write).
//!   A handle poisoned by a write that failed half way is reopened after the round and every
//!   byte checked old-or-new (review R19-1). winfail: review R19-3 (`online`), R19-4 (END Io).
//! CODE: raid5 / raid6 are 4 data columns (+1 spare OSS), rs:KM (rs:43 = 4+3), array codes :P.
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


/// Writer threads on disjoint regions of one file, each reading back its own region after
/// every acknowledged write (only it changes that region: any other byte is wrong); a
/// background worker (`serve_background`, WCL) or flushes; a rot thread flipping one byte
/// of a random OSS object file at a time and then `scrub(true)` (so at most one rot is
/// outstanding beside FAIL failed OSSs: within the tolerance when FAIL < m).
fn rotrace(dir: &Path, code: &str, path: &str, rounds: usize, seed: u64, fail: usize) {
    let (spec, oss) = spec_of(code);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = 4096;
    opts.write_path = path_of(path);
    // S19R_THREADS: writer threads (default 3); S19R_ONEFLIP=1: one flip per round and no
    // scrub while the writers run (isolates writes vs a concurrent scrub --repair).
    let threads: usize = std::env::var("S19R_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let one_flip = std::env::var("S19R_ONEFLIP").is_ok();
    // S19R_NOFLIP=1: no flips at all, scrub --repair still runs beside the writers.
    let no_flip = std::env::var("S19R_NOFLIP").is_ok();
    // S19R_FLIPGATE=1: a flip never lands while a write or read-back is running (writers hold
    // a read lock around each, the flip takes the write lock): rules out a rot arriving
    // inside a write's plan; scrub --repair still runs beside the writers.
    let gate = std::sync::RwLock::new(());
    let gate_on = std::env::var("S19R_FLIPGATE").is_ok();
    let gate = &gate;
    let region = 3 * 4096 * 4 + 1234;
    let file_bytes = region * threads + 777;
    let mut store = Store::init(dir, &opts).unwrap();
    let mut r = Rng(seed);
    let model: Mutex<Vec<u8>> = Mutex::new(r.bytes(file_bytes));
    // Writes refused without a read-back (the store poisoned): each byte old or new.
    let refused: Mutex<Vec<(usize, Vec<u8>)>> = Mutex::new(Vec::new());
    store.put("w", &model.lock().unwrap()).unwrap();
    if path != "rmw" {
        store.flush().unwrap();
    }
    for f in 0..fail {
        store.fail_oss((seed as usize + f * 3) % oss).unwrap();
    }
    let failed = store.failed_osses();
    for round in 0..rounds {
        let stop = AtomicBool::new(false);
        let bg_stop = AtomicBool::new(false);
        let writes = AtomicUsize::new(0);
        std::thread::scope(|s| {
            let mut writers = Vec::new();
            for t in 0..threads {
                let store = &store;
                let model = &model;
                let stop = &stop;
                let writes = &writes;
                let refused = &refused;
                let tseed = seed * 1000 + round as u64 * 10 + t as u64;
                writers.push(s.spawn(move || {
                    let mut r = Rng(tseed);
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) && n < 150 {
                        let len = 1 + r.below(9000) as usize;
                        let off = t * region + r.below((region - len.min(region - 1)) as u64) as usize;
                        let len = len.min(region - (off - t * region));
                        let data = r.bytes(len);
                        let _g = if gate_on { Some(gate.read().unwrap()) } else { None };
                        match store.write("w", off as u64, &data) {
                            Ok(()) => {
                                model.lock().unwrap()[off..off + len].copy_from_slice(&data);
                            }
                            Err(e) => {
                                println!("  round {round}: thread {t} write {off}+{len} refused {}: {e}", kind_of(&e));
                                // a refused write: its bytes are old or new; take what reads
                                if let Ok(got) = store.read("w", off as u64, len as u64) {
                                    let mut m = model.lock().unwrap();
                                    for i in 0..len {
                                        if got[i] != data[i] && got[i] != m[off + i] {
                                            problem(format!("round {round}: refused write {off}+{len}: byte {} neither old nor new", off + i));
                                            break;
                                        }
                                    }
                                    m[off..off + len].copy_from_slice(&got);
                                } else {
                                    refused.lock().unwrap().push((off, data.clone()));
                                }
                            }
                        }
                        let (a, z) = (t * region, (t + 1) * region);
                        match store.read("w", a as u64, (z - a) as u64) {
                            Ok(got) => {
                                let m = model.lock().unwrap();
                                if got[..] != m[a..z] {
                                    let first = got.iter().zip(&m[a..z]).position(|(x, y)| x != y).unwrap();
                                    let nb = got.iter().zip(&m[a..z]).filter(|(x, y)| x != y).count();
                                    problem(format!("round {round}: thread {t} read-back WRONG BYTES {nb}, first at {}", a + first));
                                    return;
                                }
                            }
                            Err(e) => println!("  round {round}: thread {t} read-back refused {}: {e}", kind_of(&e)),
                        }
                        n += 1;
                        writes.fetch_add(1, Ordering::SeqCst);
                    }
                }));
            }
            if path == "wcl" {
                let store = &store;
                let bg_stop = &bg_stop;
                s.spawn(move || {
                    if let Err(e) = store.serve_background(bg_stop) {
                        problem(format!("round {round}: serve_background {}: {e}", kind_of(&e)));
                    }
                });
            }
            // Rot thread (this one): one flip, a pause, then scrub --repair.
            let mut flips = 0;
            // S19R_RACEFAIL=1: one OSS failed by this thread while the writers run (taken back
            // with `online` after the round): `fail_oss` racing WCL/rmw writes and destages.
            let race_fail = std::env::var("S19R_RACEFAIL").is_ok();
            let race_victim = (seed as usize + round) % oss;
            let mut raced = false;
            while !writers.iter().all(|w| w.is_finished()) {
                if race_fail && !raced && r.below(4) == 0 {
                    raced = true;
                    if let Err(e) = store.fail_oss(race_victim) {
                        problem(format!("round {round}: fail {race_victim} {}: {e}", kind_of(&e)));
                    }
                }
                let files: Vec<PathBuf> = (0..oss)
                    .filter(|o| !failed.contains(o))
                    .flat_map(|o| {
                        std::fs::read_dir(dir.join(format!("oss-{o}")).join("objects"))
                            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect::<Vec<_>>())
                            .unwrap_or_default()
                    })
                    .filter(|p| std::fs::metadata(p).map(|m| m.len() > 0).unwrap_or(false))
                    .collect();
                if !files.is_empty() && !(one_flip && flips > 0) && !no_flip {
                    let f = &files[r.below(files.len() as u64) as usize];
                    let len = std::fs::metadata(f).unwrap().len();
                    let at = r.below(len);
                    let _g = if gate_on { Some(gate.write().unwrap()) } else { None };
                    let mut bytes = std::fs::read(f).unwrap();
                    if (at as usize) < bytes.len() {
                        use std::io::{Seek, SeekFrom, Write};
                        let mut h = std::fs::OpenOptions::new().write(true).open(f).unwrap();
                        bytes[at as usize] ^= 1 << r.below(8);
                        h.seek(SeekFrom::Start(at)).unwrap();
                        h.write_all(&bytes[at as usize..at as usize + 1]).unwrap();
                        flips += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(r.below(40)));
                if one_flip {
                    continue;
                }
                match store.scrub(true) {
                    Ok(rep) if !rep.unrepairable.is_empty() || !rep.lost_ranges.is_empty() => problem(format!(
                        "round {round}: scrub --repair unrepairable {:?} lost {:?}",
                        rep.unrepairable, rep.lost_ranges
                    )),
                    Ok(_) => {}
                    Err(e) => println!("  round {round}: scrub --repair refused {}: {e}", kind_of(&e)),
                }
            }
            stop.store(true, Ordering::SeqCst);
            bg_stop.store(true, Ordering::SeqCst);
            println!("round {round}: {} writes, {flips} flips", writes.load(Ordering::SeqCst));
        });
        if std::env::var("S19R_RACEFAIL").is_ok() {
            let v = (seed as usize + round) % oss;
            if store.failed_osses().contains(&v) {
                let model_now = model.lock().unwrap().clone();
                check(&store, "w", &model_now, &format!("round {round} degraded (OSS {v} failed)"));
                match store.online_oss(v) {
                    Ok(()) => println!("  round {round}: OSS {v} failed mid-round, online"),
                    Err(e) => println!("  round {round}: online {v} {}: {e}", kind_of(&e)),
                }
                check(&store, "w", &model_now, &format!("round {round} after online {v}"));
            }
        }
        if let Err(StoreError::Io(_)) = store.get("w") {
            // Poisoned by a write that failed half way: reopen (recovery), then every byte must
            // be the model's or that of a refused write covering it (review R18-4's question on
            // raid6/rs with real timing).
            drop(store);
            store = Store::open(dir).unwrap();
            let mut m = model.lock().unwrap();
            let rf = std::mem::take(&mut *refused.lock().unwrap());
            match store.get("w") {
                Ok(got) => {
                    let mut bad = 0;
                    let mut first: Option<usize> = None;
                    for i in 0..got.len().min(m.len()) {
                        if got[i] != m[i] && !rf.iter().any(|(o, d)| i >= *o && i < o + d.len() && d[i - o] == got[i]) {
                            bad += 1;
                            first.get_or_insert(i);
                        }
                    }
                    if bad > 0 || got.len() != m.len() {
                        let i = first.unwrap_or(0);
                        problem(format!(
                            "round {round}: after reopen WRONG BYTES {bad} (neither old nor a refused write's), first at {first:?}: got {:#04x} old {:#04x} (xor {:#04x}), refused writes over it {}, len {} vs {}",
                            got[i], m[i], got[i] ^ m[i],
                            rf.iter().filter(|(o, d)| i >= *o && i < o + d.len()).count(),
                            got.len(), m.len()
                        ));
                    } else {
                        println!("  round {round}: reopened after a poisoning, {} refused writes: every byte old or new", rf.len());
                    }
                    let n = m.len();
                    m.copy_from_slice(&got[..n]);
                }
                Err(e) => println!("  round {round}: after reopen get {}: {e}", kind_of(&e)),
            }
        }
        let _ = store.scrub(true);
        let model_now = model.lock().unwrap().clone();
        check(&store, "w", &model_now, &format!("round {round} end"));
        if path != "rmw" {
            if let Err(e) = store.flush() {
                problem(format!("round {round}: flush {}: {e}", kind_of(&e)));
            }
        }
        let _ = store.scrub(true);
        scrub_clean(&store, &format!("round {round} after repair"));
        check(&store, "w", &model_now, &format!("round {round} after repair"));
    }
}


/// Delayed windows on one file per thread (start, 1-4 writes, end), a failure of one OSS
/// from the main thread at a random moment; after the threads: every 4 KiB block of each
/// file reads the model (the window's bytes where its `end()` returned Ok or the write was
/// before the failure) or is refused; never other bytes with success. Then `online` and
/// check again, scrub.
fn winfail(dir: &Path, code: &str, rounds: usize, seed: u64) {
    let (spec, oss) = spec_of(code);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 150;
    let threads = 3usize;
    let size = 40_000usize;
    let mut store = Store::init(dir, &opts).unwrap();
    let mut r = Rng(seed);
    // Per file: candidates per byte are hard: keep a model of acknowledged bytes and a
    // "maybe" overlay for window writes whose end failed (old or new allowed, or refused).
    #[allow(clippy::type_complexity)]
    let models: Vec<Mutex<(Vec<u8>, Vec<Vec<u8>>, Option<Vec<u8>>, Vec<Vec<u8>>)>> = (0..threads)
        .map(|t| {
            let m = r.bytes(size);
            store.put(&format!("w{t}"), &m).unwrap();
            Mutex::new((m.clone(), vec![Vec::new(); size], Some(m), vec![Vec::new(); size]))
        })
        .collect();
    store.flush().unwrap();
    // S19R_FAILGATE=1: `fail_oss` never lands while a window write or END runs (writers hold a
    // read lock around each call, the failure takes the write lock): the control for R19-3.
    let gate = std::sync::RwLock::new(());
    let gate_on = std::env::var("S19R_FAILGATE").is_ok();
    let gate = &gate;
    for round in 0..rounds {
        let stop = AtomicBool::new(false);
        let victim = r.below(oss as u64) as usize;
        std::thread::scope(|s| {
            for t in 0..threads {
                let store = &store;
                let models = &models;
                let stop = &stop;
                let tseed = seed * 1000 + round as u64 * 10 + t as u64;
                s.spawn(move || {
                    let mut r = Rng(tseed);
                    let name = format!("w{t}");
                    while !stop.load(Ordering::SeqCst) {
                        let g = match store.delayed_window(&name) {
                            Ok(g) => g,
                            Err(e) => {
                                println!("  round {round}: {name} start refused {}: {e}", kind_of(&e));
                                std::thread::sleep(Duration::from_millis(20));
                                continue;
                            }
                        };
                        // In order: (offset, bytes, acknowledged). Applied at END in order: an
                        // acknowledged write replaces the bytes (and every earlier candidate), a
                        // refused one adds its bytes as candidates (each byte old or new).
                        let mut pending: Vec<(usize, Vec<u8>, bool)> = Vec::new();
                        for _ in 0..1 + r.below(4) {
                            let len = 1 + r.below(9000) as usize;
                            let off = r.below((size - len) as u64) as usize;
                            let data = r.bytes(len);
                            let ok = {
                                let _g = if gate_on { Some(gate.read().unwrap()) } else { None };
                                store.write(&name, off as u64, &data).is_ok()
                            };
                            pending.push((off, data, ok));
                            std::thread::sleep(Duration::from_millis(r.below(5)));
                        }
                        let res = {
                            let _g = if gate_on { Some(gate.read().unwrap()) } else { None };
                            g.end()
                        };
                        let mut m = models[t].lock().unwrap();
                        for (off, data, acked) in pending {
                            for i in 0..data.len() {
                                m.3[off + i].push(data[i]);
                                if acked {
                                    m.0[off + i] = data[i];
                                    m.1[off + i].clear();
                                } else {
                                    m.1[off + i].push(data[i]);
                                }
                            }
                        }
                        if let Err(e) = res {
                            let full = std::env::var("S19R_FULL").is_ok() || matches!(e, StoreError::Io(_));
                            let msg = e.to_string();
                            println!("  round {round}: {name} end {}: {}", kind_of(&e), if full { &msg[..] } else { &msg[..msg.len().min(200)] });
                        }
                    }
                });
            }
            std::thread::sleep(Duration::from_millis(10 + r.below(60)));
            let _fg = if gate_on { Some(gate.write().unwrap()) } else { None };
            match store.fail_oss(victim) {
                Ok(()) => {}
                Err(e) => problem(format!("round {round}: fail {victim} {}: {e}", kind_of(&e))),
            }
            drop(_fg);
            std::thread::sleep(Duration::from_millis(10 + r.below(60)));
            stop.store(true, Ordering::SeqCst);
        });
        let verify = |store: &Store, what: &str| {
            for t in 0..threads {
                let name = format!("w{t}");
                let m = models[t].lock().unwrap();
                let mut refused = 0;
                let mut refused_at = Vec::new();
                for b in (0..size).step_by(4096) {
                    let n = 4096.min(size - b);
                    match store.read(&name, b as u64, n as u64) {
                        Ok(got) => {
                            for i in 0..n {
                                let ok = got[i] == m.0[b + i] || m.1[b + i].contains(&got[i]);
                                if !ok {
                                    let bad = (0..n).filter(|&j| got[j] != m.0[b + j] && !m.1[b + j].contains(&got[j])).count();
                                    let zeros = (0..n).filter(|&j| got[j] != m.0[b + j] && !m.1[b + j].contains(&got[j]) && got[j] == 0).count();
                                    let hist = (0..n).filter(|&j| got[j] != m.0[b + j] && !m.1[b + j].contains(&got[j]) && m.3[b + j].contains(&got[j])).count();
                                    let prev = m.2.as_ref().map_or(0, |p: &Vec<u8>| (0..n).filter(|&j| got[j] != m.0[b + j] && !m.1[b + j].contains(&got[j]) && got[j] == p[b + j]).count());
                                    problem(format!("round {round} {what}: {name} WRONG BYTE at {} (block {b}): got {:#04x} model {:#04x} refused writes' bytes {:?}; {bad} wrong in the block, {zeros} of them zero, {prev} equal to the bytes before this round, {hist} equal to an earlier write of this round; lost on record: {:?}",
                                        b + i, got[i], m.0[b + i], m.1[b + i],
                                        store.status().map(|st| st.lost_ranges.iter().filter(|l| l.file == name).map(|l| (l.offset_bytes, l.len_bytes)).collect::<Vec<_>>()).unwrap_or_default()));
                                    break;
                                }
                            }
                        }
                        Err(_) => {
                            refused += 1;
                            refused_at.push(b);
                        }
                    }
                }
                if refused > 0 {
                    println!("  round {round} {what}: {name} {refused} blocks refused (lost): {refused_at:?}");
                }
            }
        };
        verify(&store, "after the failure");
        // S19R_REBUILD=1: rebuild the failed OSS in place instead of `online`.
        let taken_back = if std::env::var("S19R_REBUILD").is_ok() {
            store.rebuild(victim, None)
        } else {
            store.online_oss(victim)
        };
        match taken_back {
            Ok(()) => {}
            Err(e) => {
                println!("  round {round}: online {victim} {}: {e}", kind_of(&e));
                if let Err(e) = store.rebuild(victim, None) {
                    problem(format!("round {round}: rebuild {victim} {}: {e}", kind_of(&e)));
                }
            }
        }
        verify(&store, "after online");
        // Reset: rewrite every file whole (takes the losses off), so the next round starts clean.
        for t in 0..threads {
            let mut m = models[t].lock().unwrap();
            let fresh = r.bytes(size);
            if let Err(e) = store.put(&format!("w{t}"), &fresh) {
                problem(format!("round {round}: reset put {}: {e}", kind_of(&e)));
            }
            *m = (fresh.clone(), vec![Vec::new(); size], Some(fresh), vec![Vec::new(); size]);
        }
        let _ = store.flush();
        scrub_clean(&store, &format!("round {round} after reset"));
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&a[1]);
    let rounds = a.get(4).map(|s| s.parse().unwrap()).unwrap_or(3);
    let seed = a.get(5).map(|s| s.parse().unwrap()).unwrap_or(1);
    let fail = a.get(6).map(|s| s.parse().unwrap()).unwrap_or(0);
    if a[3] == "winfail" {
        winfail(&dir, &a[2], rounds, seed);
    } else {
        rotrace(&dir, &a[2], &a[3], rounds, seed, fail);
    }
    let n = PROBLEMS.load(Ordering::SeqCst);
    println!("problems {n}");
    std::process::exit(if n > 0 { 1 } else { 0 });
}
