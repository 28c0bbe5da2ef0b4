//! Review tool (s7r, not CI): the Rust API as a file-system developer meets it.
//!
//! Usage (CARGO_TARGET_DIR/release/examples/api_review):
//!   api_review matrix DIR [seed] [filter]   every code x write path x unit: concurrent
//!       writer threads on disjoint (stripe-sharing) ranges of one file, a reader of another
//!       file beside them, delayed windows shared by the threads, optional background worker;
//!       then get == model, scrub clean, the code's tolerance of OSSs failed, degraded
//!       concurrent writes, rebuild, scrub, reopen. `filter` keeps cases whose name contains it.
//!   api_review windows DIR   the delayed window guard: dropped without end(), timeout by
//!       tick() and by serve_background, the unprotected bound with and without a worker,
//!       a failure inside a window (end() names the loss), typed errors.
//!   api_review opcounts DIR   per-OSS operation counts of the store vs a fresh planner
//!       (`bench::planner_plans`) for workloads other than the bench's: unaligned, odd-sized,
//!       overlapping single-thread writes, every code x path x unit.
//! Prints one line per check; "PROBLEM" lines are findings; exit 1 if any.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

fn first_diff(a: &[u8], b: &[u8]) -> String {
    if a.len() != b.len() {
        return format!("len {} vs model {}", a.len(), b.len());
    }
    let bad = a.iter().zip(b).filter(|(x, y)| x != y).count();
    let first = a.iter().zip(b).position(|(x, y)| x != y).unwrap();
    format!("{bad} bytes differ, first at {first}")
}

fn check_file(store: &Store, name: &str, model: &[u8], what: &str) {
    match store.get(name) {
        Ok(got) if got == model => {}
        Ok(got) => problem(format!(
            "{what}: get {name} WRONG BYTES: {}",
            first_diff(&got, model)
        )),
        Err(e) => problem(format!("{what}: get {name} failed {}: {e}", kind_of(&e))),
    }
}

fn check_scrub(store: &Store, what: &str) {
    match store.scrub(false) {
        Ok(r) => {
            if !r.corrupt_elements.is_empty()
                || !r.parity_mismatches.is_empty()
                || !r.unrepairable.is_empty()
                || !r.corrupt_cache_elements.is_empty()
                || !r.failed_oss.is_empty()
                || !r.lost_ranges.is_empty()
            {
                problem(format!("{what}: scrub not clean: {r:?}"));
            }
        }
        Err(e) => problem(format!("{what}: scrub failed {}: {e}", kind_of(&e))),
    }
}

fn spec_of(name: &str) -> (CodeSpec, usize) {
    // (spec, OSS count). Horizontal codes over their width; array codes over cols + 1 OSSs
    // so that files are placed round robin.
    let (kind, param) = match name.split_once(':') {
        Some((n, p)) => (n, p.parse::<usize>().unwrap()),
        None => (name, 0),
    };
    let spec = match CodeKind::from_name(kind).unwrap() {
        CodeKind::Raid5 => CodeSpec::raid5(param),
        CodeKind::Raid6 => CodeSpec::raid6(param),
        CodeKind::Rs => CodeSpec::rs(param / 10, param % 10),
        k => CodeSpec::array(k, param),
    };
    let cols = Code::new(spec).unwrap().geometry().cols;
    let oss = if spec.kind.is_array() { cols + 1 } else { cols };
    (spec, oss)
}

struct Case {
    code: &'static str,
    path: WritePath,
    unit: usize,
    background: bool,
}

fn path_name(p: WritePath) -> &'static str {
    match p {
        WritePath::Rmw => "rmw",
        WritePath::Wcl => "wcl",
        WritePath::Delayed => "delayed",
        _ => "other",
    }
}

/// Threads write random sub-ranges of their own region of `f` (regions are not stripe
/// aligned, so neighbours share stripes); a reader thread reads `g` and checks it; the
/// model is updated after the scope (each thread keeps its own region's image).
fn concurrent_writes(
    store: &Store,
    model: &mut [u8],
    g_model: &[u8],
    threads: usize,
    writes: usize,
    seed: u64,
    what: &str,
) {
    let region = model.len() / threads;
    let stop = AtomicBool::new(false);
    let mut images: Vec<Vec<u8>> = (0..threads)
        .map(|t| model[t * region..(t + 1) * region].to_vec())
        .collect();
    std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            let mut rng = Rng(seed ^ 0xAAAA);
            let mut reads = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let off = rng.below(g_model.len() as u64 - 1);
                let len = 1 + rng.below((g_model.len() as u64 - off).min(200_000));
                match store.read("g", off, len) {
                    Ok(b) if b == g_model[off as usize..(off + len) as usize] => {}
                    Ok(b) => problem(format!(
                        "{what}: concurrent read of g WRONG: {}",
                        first_diff(&b, &g_model[off as usize..(off + len) as usize])
                    )),
                    Err(e) => problem(format!(
                        "{what}: concurrent read of g failed {}: {e}",
                        kind_of(&e)
                    )),
                }
                reads += 1;
                if reads > 10_000 {
                    break;
                }
            }
        });
        let handles: Vec<_> = images
            .iter_mut()
            .enumerate()
            .map(|(t, image)| {
                s.spawn(move || {
                    let mut rng = Rng(seed.wrapping_mul(31).wrapping_add(t as u64));
                    for i in 0..writes {
                        let off = rng.below(region as u64 - 1) as usize;
                        let len = 1 + rng.below(((region - off) as u64).min(3 * 65536)) as usize;
                        let data = rng.bytes(len);
                        let at = (t * region + off) as u64;
                        match store.write("f", at, &data) {
                            Ok(()) => image[off..off + len].copy_from_slice(&data),
                            Err(e) => {
                                problem(format!(
                                    "{what}: thread {t} write {i} at {at} len {len} failed {}: {e}",
                                    kind_of(&e)
                                ));
                                return;
                            }
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        stop.store(true, Ordering::SeqCst);
    });
    for (t, image) in images.iter().enumerate() {
        model[t * region..(t + 1) * region].copy_from_slice(image);
    }
}

fn run_case(root: &Path, case: &Case, seed: u64) {
    let (spec, oss) = spec_of(case.code);
    let name = format!(
        "{}-{}-{}{}",
        case.code.replace(':', "_"),
        path_name(case.path),
        case.unit,
        if case.background { "-bg" } else { "" }
    );
    let dir = root.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
    opts.element_bytes = case.unit;
    opts.write_path = case.path;
    let t0 = Instant::now();
    let store = match Store::init(&dir, &opts) {
        Ok(s) => s,
        Err(e) => {
            problem(format!("{name}: init failed {}: {e}", kind_of(&e)));
            return;
        }
    };
    let tolerance = store.code().geometry().fault_tolerance;
    let k = store.code().geometry().data_pos.len() / store.code().geometry().rows;
    let stripe_data = k * store.code().geometry().rows * case.unit;
    let threads = 4;
    // Each region: 1.5 stripes + an odd tail, so threads share stripes.
    let region = stripe_data + stripe_data / 2 + 777;
    let mut rng = Rng(seed);
    let mut model = rng.bytes(region * threads);
    let g_model = rng.bytes(stripe_data * 2 + 4097);
    let step = |what: &str, r: Result<(), StoreError>| {
        if let Err(e) = r {
            problem(format!("{name}: {what} failed {}: {e}", kind_of(&e)));
        }
    };
    step("put f", store.put("f", &model));
    step("put g", store.put("g", &g_model));
    let stop_bg = AtomicBool::new(false);
    let mut store = store;
    {
        let store_ref = &store;
        std::thread::scope(|s| {
            if case.background {
                let stop = &stop_bg;
                s.spawn(move || {
                    if let Err(e) = store_ref.serve_background(stop) {
                        problem(format!("serve_background failed {}: {e}", kind_of(&e)));
                    }
                });
            }
            // Round 1: plain writes (rmw / wcl; delayed outside windows = rmw).
            concurrent_writes(
                store_ref,
                &mut model,
                &g_model,
                threads,
                25,
                seed + 1,
                &format!("{name} round1"),
            );
            check_file(store_ref, "f", &model, &format!("{name} round1"));
            // Round 2 on delayed: a window shared by the threads.
            if case.path == WritePath::Delayed {
                match store_ref.delayed_window("f") {
                    Ok(w) => {
                        concurrent_writes(
                            store_ref,
                            &mut model,
                            &g_model,
                            threads,
                            25,
                            seed + 2,
                            &format!("{name} window"),
                        );
                        match store_ref.status() {
                            Ok(st) if st.open_windows.len() == 1 && st.bytes_unprotected > 0 => {}
                            Ok(st) => problem(format!(
                                "{name}: in window: status {} windows, {} unprotected",
                                st.open_windows.len(),
                                st.bytes_unprotected
                            )),
                            Err(e) => problem(format!("{name}: status {}: {e}", kind_of(&e))),
                        }
                        check_file(store_ref, "f", &model, &format!("{name} in window"));
                        step("end", w.end());
                        match store_ref.status() {
                            Ok(st) if st.open_windows.is_empty() && st.bytes_unprotected == 0 => {}
                            Ok(st) => problem(format!(
                                "{name}: after end: {} windows, {} unprotected",
                                st.open_windows.len(),
                                st.bytes_unprotected
                            )),
                            Err(e) => problem(format!("{name}: status {}: {e}", kind_of(&e))),
                        }
                    }
                    Err(e) => problem(format!(
                        "{name}: delayed_window failed {}: {e}",
                        kind_of(&e)
                    )),
                }
            }
            stop_bg.store(true, Ordering::SeqCst);
        });
    }
    check_file(&store, "f", &model, &format!("{name} after writes"));
    check_scrub(&store, &format!("{name} after writes"));
    // MX_NOFLUSH=1: fail the OSSs with the WCL cached bytes still in the cache zone.
    let noflush = std::env::var("MX_NOFLUSH").is_ok();
    if !noflush {
        step("flush", store.flush());
    }
    if let (false, Ok(st)) = (noflush, store.status()) {
        if st.bytes_waiting_parity != 0 || st.bytes_unprotected != 0 {
            problem(format!(
                "{name}: after flush {} waiting, {} unprotected",
                st.bytes_waiting_parity, st.bytes_unprotected
            ));
        }
    }
    // The code's tolerance of OSSs failed (random set), degraded concurrent writes.
    let mut failed: Vec<usize> = Vec::new();
    while failed.len() < tolerance {
        let o = rng.below(oss as u64) as usize;
        if !failed.contains(&o) {
            failed.push(o);
        }
    }
    for &o in &failed {
        step(&format!("fail {o}"), store.fail_oss(o));
    }
    check_file(&store, "f", &model, &format!("{name} degraded {failed:?}"));
    check_file(
        &store,
        "g",
        &g_model,
        &format!("{name} degraded {failed:?}"),
    );
    concurrent_writes(
        &store,
        &mut model,
        &g_model,
        threads,
        10,
        seed + 3,
        &format!("{name} degraded {failed:?}"),
    );
    check_file(
        &store,
        "f",
        &model,
        &format!("{name} degraded writes {failed:?}"),
    );
    for (i, &o) in failed.iter().enumerate() {
        let to = if i == 0 {
            Some(root.join(format!("{name}-new{o}")))
        } else {
            None
        };
        step(&format!("rebuild {o}"), store.rebuild(o, to.as_deref()));
    }
    check_file(&store, "f", &model, &format!("{name} rebuilt"));
    check_scrub(&store, &format!("{name} rebuilt"));
    if let Ok(st) = store.status() {
        if st.oss.iter().any(|o| !o.healthy) {
            problem(format!("{name}: after rebuild not all healthy"));
        }
    }
    step("close", store.close());
    match Store::open(&dir) {
        Ok(s) => {
            check_file(&s, "f", &model, &format!("{name} reopened"));
            check_file(&s, "g", &g_model, &format!("{name} reopened"));
            let _ = s.close();
        }
        Err(e) => problem(format!("{name}: reopen {}: {e}", kind_of(&e))),
    }
    println!(
        "case {name} done in {:.1} s, problems so far {}",
        t0.elapsed().as_secs_f64(),
        PROBLEMS.load(Ordering::SeqCst)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(root.join(format!(
        "{name}-new{}",
        failed.first().copied().unwrap_or(0)
    )));
}

fn expect_err(what: &str, r: Result<impl std::fmt::Debug, StoreError>, kind: &str) {
    match r {
        Ok(v) => problem(format!("{what}: expected {kind}, got Ok({v:?})")),
        Err(e) if kind_of(&e) == kind => println!("ok {what}: {kind}: {e}"),
        Err(e) => problem(format!("{what}: expected {kind}, got {}: {e}", kind_of(&e))),
    }
}

fn delayed_store(root: &Path, name: &str, timeout_ms: u64, bound: u64) -> (PathBuf, Store) {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = timeout_ms;
    opts.unprotected_bytes_max = bound;
    let s = Store::init(&dir, &opts).unwrap();
    (dir, s)
}

fn windows(root: &Path) {
    let mut rng = Rng(7);
    // 1. Guard dropped without end(): the window stays open; tick() after the timeout
    //    computes its parity; a late END succeeds.
    {
        let (_dir, store) = delayed_store(root, "w-drop", 400, 1 << 30);
        let mut model = rng.bytes(100_000);
        store.put("h", &model).unwrap();
        let token;
        {
            let w = store.delayed_window("h").unwrap();
            token = w.token().to_string();
            let d = rng.bytes(30_000);
            store.write("h", 5000, &d).unwrap();
            model[5000..35000].copy_from_slice(&d);
        } // dropped
        let st = store.status().unwrap();
        println!(
            "drop: windows {} unprotected {}",
            st.open_windows.len(),
            st.bytes_unprotected
        );
        if st.open_windows.len() != 1 || st.bytes_unprotected == 0 {
            problem(format!(
                "drop: window not open after guard drop: {} {}",
                st.open_windows.len(),
                st.bytes_unprotected
            ));
        }
        expect_err("second START on h", store.delayed_start("h"), "BadInput");
        std::thread::sleep(Duration::from_millis(600));
        store.tick().unwrap();
        let st = store.status().unwrap();
        println!(
            "after timeout+tick: windows {} unprotected {} waiting {}",
            st.open_windows.len(),
            st.bytes_unprotected,
            st.bytes_waiting_parity
        );
        if st.bytes_unprotected != 0 {
            problem(format!(
                "timeout+tick: {} bytes still unprotected",
                st.bytes_unprotected
            ));
        }
        match store.delayed_end(&token) {
            Ok(()) => println!("ok late END after timeout"),
            Err(e) => problem(format!("late END after timeout: {}: {e}", kind_of(&e))),
        }
        check_file(&store, "h", &model, "drop");
        check_scrub(&store, "drop");
        // Write after the timeout but before END: unprotected again?
        store.close().unwrap();
    }
    // 1b. Timeout, then more writes in the still-open window, then END.
    {
        let (_dir, store) = delayed_store(root, "w-timeout-more", 400, 1 << 30);
        let mut model = rng.bytes(100_000);
        store.put("h", &model).unwrap();
        let w = store.delayed_window("h").unwrap();
        let d = rng.bytes(10_000);
        store.write("h", 0, &d).unwrap();
        model[0..10_000].copy_from_slice(&d);
        std::thread::sleep(Duration::from_millis(600));
        store.tick().unwrap();
        let st = store.status().unwrap();
        println!(
            "timeout-more: after tick windows {} unprotected {}",
            st.open_windows.len(),
            st.bytes_unprotected
        );
        let d = rng.bytes(10_000);
        match store.write("h", 50_000, &d) {
            Ok(()) => model[50_000..60_000].copy_from_slice(&d),
            Err(e) => println!("timeout-more: write after timeout: {}: {e}", kind_of(&e)),
        }
        let st = store.status().unwrap();
        println!(
            "timeout-more: after write windows {} unprotected {}",
            st.open_windows.len(),
            st.bytes_unprotected
        );
        match w.end() {
            Ok(()) => {}
            Err(e) => problem(format!("timeout-more: end {}: {e}", kind_of(&e))),
        }
        let st = store.status().unwrap();
        if st.bytes_unprotected != 0 || !st.open_windows.is_empty() {
            problem(format!(
                "timeout-more: after END {} unprotected {} windows",
                st.bytes_unprotected,
                st.open_windows.len()
            ));
        }
        check_file(&store, "h", &model, "timeout-more");
        check_scrub(&store, "timeout-more");
        store.close().unwrap();
    }
    // 2. Timeout fired by serve_background alone.
    {
        let (_dir, store) = delayed_store(root, "w-bg-timeout", 300, 1 << 30);
        let mut model = rng.bytes(100_000);
        store.put("h", &model).unwrap();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| store.serve_background(&stop).unwrap());
            let w = store.delayed_window("h").unwrap();
            let d = rng.bytes(40_000);
            store.write("h", 1234, &d).unwrap();
            model[1234..41234].copy_from_slice(&d);
            let t = Instant::now();
            loop {
                let st = store.status().unwrap();
                if st.bytes_unprotected == 0 {
                    println!("bg timeout: protected after {} ms", t.elapsed().as_millis());
                    break;
                }
                if t.elapsed() > Duration::from_secs(10) {
                    problem(format!(
                        "bg timeout: {} bytes still unprotected after 10 s",
                        st.bytes_unprotected
                    ));
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if let Err(e) = w.end() {
                problem(format!("bg timeout: end {}: {e}", kind_of(&e)));
            }
            stop.store(true, Ordering::SeqCst);
        });
        check_file(&store, "h", &model, "bg timeout");
        check_scrub(&store, "bg timeout");
        store.close().unwrap();
    }
    // 3. Unprotected bound, no worker: never more than the bound after a write returns.
    for bg in [false, true] {
        let bound = 20_000u64;
        let (_dir, store) = delayed_store(
            root,
            if bg { "w-bound-bg" } else { "w-bound" },
            600_000,
            bound,
        );
        let mut model = rng.bytes(300_000);
        store.put("h", &model).unwrap();
        let stop = AtomicBool::new(false);
        let mut max_seen = 0u64;
        std::thread::scope(|s| {
            if bg {
                s.spawn(|| store.serve_background(&stop).unwrap());
            }
            let w = store.delayed_window("h").unwrap();
            for i in 0..40 {
                let len = 1 + rng.below(12_000) as usize;
                let off = rng.below(300_000 - len as u64) as usize;
                let d = rng.bytes(len);
                store.write("h", off as u64, &d).unwrap();
                model[off..off + len].copy_from_slice(&d);
                let st = store.status().unwrap();
                max_seen = max_seen.max(st.bytes_unprotected);
                let limit = if bg { 2 * bound } else { bound };
                if st.bytes_unprotected > limit {
                    problem(format!(
                        "bound (bg={bg}): write {i} returned with {} unprotected > {limit}",
                        st.bytes_unprotected
                    ));
                }
            }
            // One write larger than the bound on its own.
            let d = rng.bytes(50_000);
            store.write("h", 100_000, &d).unwrap();
            model[100_000..150_000].copy_from_slice(&d);
            let st = store.status().unwrap();
            println!(
                "bound (bg={bg}): after a 50000-byte write {} unprotected (bound {bound})",
                st.bytes_unprotected
            );
            if !bg && st.bytes_unprotected > bound {
                problem(format!(
                    "bound: a 50000-byte write returned with {} unprotected",
                    st.bytes_unprotected
                ));
            }
            w.end().unwrap();
            stop.store(true, Ordering::SeqCst);
        });
        println!("bound (bg={bg}): max unprotected seen {max_seen}");
        check_file(&store, "h", &model, "bound");
        check_scrub(&store, "bound");
        store.close().unwrap();
    }
    // 4. A failure inside a window: end() names the loss, other bytes read, lost bytes DataLost.
    {
        let (_dir, store) = delayed_store(root, "w-fail", 600_000, 1 << 30);
        let mut model = rng.bytes(200_000);
        store.put("h", &model).unwrap();
        let other = model[..50_000].to_vec();
        store.put("other", &other).unwrap();
        let w = store.delayed_window("h").unwrap();
        let d = rng.bytes(60_000);
        store.write("h", 10_000, &d).unwrap();
        model[10_000..70_000].copy_from_slice(&d);
        store.fail_oss(1).unwrap();
        let st = store.status().unwrap();
        println!(
            "fail in window: lost ranges {:?}",
            st.lost_ranges
                .iter()
                .map(|l| (l.offset_bytes, l.len_bytes, l.oss))
                .collect::<Vec<_>>()
        );
        if st.lost_ranges.is_empty() {
            problem("fail in window: no lost range recorded".into());
        }
        let lost: Vec<(u64, u64)> = st
            .lost_ranges
            .iter()
            .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
            .collect();
        let end = w.end();
        match &end {
            Err(StoreError::DataLost(m)) => println!("ok end after fail: DataLost: {m}"),
            Err(e) => problem(format!(
                "end after fail: expected DataLost, got {}: {e}",
                kind_of(e)
            )),
            Ok(()) => problem("end after fail: Ok".into()),
        }
        // every 4 KiB piece outside lost ranges reads exact, inside fails DataLost
        let mut off = 0u64;
        while off < 200_000 {
            let len = 4096.min(200_000 - off);
            let in_lost = lost.iter().any(|&(a, b)| off < b && a < off + len);
            match store.read("h", off, len) {
                Ok(b) if !in_lost && b == model[off as usize..(off + len) as usize] => {}
                Ok(b) if in_lost => problem(format!(
                    "fail in window: read of lost {off}+{len} returned Ok (equal to model: {})",
                    b == model[off as usize..(off + len) as usize]
                )),
                Ok(b) => problem(format!(
                    "fail in window: read {off}: WRONG {}",
                    first_diff(&b, &model[off as usize..(off + len) as usize])
                )),
                Err(StoreError::DataLost(_)) if in_lost => {}
                Err(e) => problem(format!(
                    "fail in window: read {off}+{len} (lost {in_lost}) {}: {e}",
                    kind_of(&e)
                )),
            }
            off += len;
        }
        check_file(&store, "other", &other, "fail in window other");
        expect_err("second END", store.delayed_end("nonsense"), "BadInput");
        store.close().unwrap();
    }
    // 5. Typed errors.
    {
        let (dir, store) = delayed_store(root, "w-errors", 600_000, 1 << 30);
        store.put("h", &[1u8; 10_000]).unwrap();
        expect_err(
            "write at u64::MAX-10",
            store.write("h", u64::MAX - 10, &[1u8; 20]),
            "BadInput",
        );
        expect_err(
            "write past file_bytes_max",
            store.write("h", store.file_bytes_max(), &[1u8; 1]),
            "BadInput",
        );
        expect_err("read past end", store.read("h", 9_000, 5_000), "BadInput");
        expect_err("read at u64::MAX", store.read("h", u64::MAX, 1), "BadInput");
        expect_err("get unknown", store.get("nope"), "BadInput");
        expect_err("rm unknown", store.remove("nope"), "BadInput");
        expect_err(
            "END unknown token",
            store.delayed_end("t-12345"),
            "BadInput",
        );
        expect_err("END empty token", store.delayed_end(""), "BadInput");
        let w = store.delayed_window("h").unwrap();
        expect_err("second START", store.delayed_start("h"), "BadInput");
        expect_err("put during window", store.put("h", b"x"), "BadInput");
        expect_err("rm during window", store.remove("h"), "BadInput");
        expect_err("fail_oss 99", store.fail_oss(99), "BadInput");
        w.end().unwrap();
        expect_err("empty name put", store.put("", b"x"), "BadInput");
        expect_err("write 0 bytes", store.write("h", 0, &[]), "BadInput");
        expect_err("read 0 bytes", store.read("h", 0, 0), "BadInput");
        store.close().unwrap();
        expect_err("open non-store", Store::open(root).map(|_| ()), "NotAStore");
        // init over an existing store
        let opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
        expect_err(
            "init over a store",
            Store::init(&dir, &opts).map(|_| ()),
            "BadInput",
        );
        let mut bad = InitOptions::with_oss_count(&root.join("w-bad"), 6, CodeSpec::raid6(4));
        bad.element_bytes = 5000;
        expect_err(
            "init unit 5000",
            Store::init(&root.join("w-bad"), &bad).map(|_| ()),
            "BadInput",
        );
        let bad = InitOptions::with_oss_count(&root.join("w-bad2"), 3, CodeSpec::raid6(4));
        expect_err(
            "init raid6 k=4 over 3",
            Store::init(&root.join("w-bad2"), &bad).map(|_| ()),
            "BadInput",
        );
        let bad = InitOptions::with_oss_count(
            &root.join("w-bad3"),
            6,
            CodeSpec::array(CodeKind::Dcode, 4),
        );
        expect_err(
            "init dcode p=4",
            Store::init(&root.join("w-bad3"), &bad).map(|_| ()),
            "BadInput",
        );
    }
}

fn opcounts(root: &Path) {
    let codes = [
        "raid5:4",
        "raid6:4",
        "rs:53",
        "dcode:5",
        "xcode:5",
        "evenodd:5",
        "rdp:5",
        "hcode:5",
        "hdp:5",
    ];
    let mut n = 0u64;
    for code in codes {
        for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
            for unit in [4096usize, 65536] {
                for write_bytes in [5000u64, 4096 * 3, 70_001] {
                    n += 1;
                    let (spec, oss) = spec_of(code);
                    let dir = root.join(format!("oc-{n}"));
                    let _ = std::fs::remove_dir_all(&dir);
                    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
                    opts.element_bytes = unit;
                    opts.write_path = path;
                    let store = Store::init(&dir, &opts).unwrap();
                    // OC_FAIL=I: OSS I failed before the writes (the fresh planner knows
                    // nothing of it): shows whether the comparison can tell a different run.
                    if let Some(f) = std::env::var("OC_FAIL").ok().and_then(|v| v.parse().ok()) {
                        store.fail_oss(f).unwrap();
                    }
                    let mut rng = Rng(n);
                    let span = 3 * unit as u64 * 8;
                    let offsets: Vec<u64> = (0..24).map(|_| rng.below(span)).collect();
                    let data = rng.bytes(write_bytes as usize);
                    let delayed = path == WritePath::Delayed;
                    let token = if delayed {
                        Some(store.delayed_start("w").unwrap())
                    } else {
                        None
                    };
                    for &o in &offsets {
                        store.write("w", o, &data).unwrap();
                    }
                    if let Some(t) = token {
                        store.delayed_end(&t).unwrap();
                    }
                    let got: Vec<_> = store.status().unwrap().oss.iter().map(|o| o.ops).collect();
                    let file = store.file_id("w").unwrap();
                    let plans = exaraid_store::bench::planner_plans(
                        &store,
                        file,
                        &[offsets.clone()],
                        write_bytes,
                        delayed,
                    )
                    .unwrap();
                    let want: Vec<_> = exaraid_plan::counts_per_oss(&plans, oss)
                        .iter()
                        .map(|c| {
                            (
                                c.data_read,
                                c.data_write,
                                c.parity_read,
                                c.parity_write,
                                c.cache_read(),
                                c.cache_write(),
                            )
                        })
                        .collect();
                    let got: Vec<_> = got
                        .iter()
                        .map(|o| {
                            (
                                o.data_read,
                                o.data_write,
                                o.parity_read,
                                o.parity_write,
                                o.cache_read,
                                o.cache_write,
                            )
                        })
                        .collect();
                    let what =
                        format!("{code} {} unit {unit} write {write_bytes}", path_name(path));
                    if got != want {
                        problem(format!("opcounts {what}: store {got:?} planner {want:?}"));
                    } else {
                        let total: u64 =
                            got.iter().map(|t| t.0 + t.1 + t.2 + t.3 + t.4 + t.5).sum();
                        println!("ok opcounts {what}: {total} ops equal");
                    }
                    let _ = store.close();
                    let _ = std::fs::remove_dir_all(&dir);
                }
            }
        }
    }
}

/// Several files at once from threads of one `Arc<Store>` (std::thread::spawn, not scoped):
/// per file a thread that opens a window on it, writes, reads back and ends it, while other
/// threads put and remove their own files, flush, scrub and read. Delayed store.
fn concurrent(root: &Path, code: &str, bg: bool, seed: u64) {
    use std::sync::{Arc, Mutex};
    let (spec, oss) = spec_of(code);
    let name = format!("cc-{}-{bg}", code.replace(':', "_"));
    let dir = root.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Delayed;
    opts.unprotected_bytes_max = 150_000;
    opts.window_timeout_ms = 300;
    let store = Arc::new(Store::init(&dir, &opts).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let worker = bg.then(|| {
        let (s, st) = (store.clone(), stop.clone());
        std::thread::spawn(move || s.serve_background(&st))
    });
    let models: Arc<Mutex<std::collections::BTreeMap<String, Vec<u8>>>> = Arc::default();
    let mut handles = Vec::new();
    for t in 0..6u64 {
        let (store, models) = (store.clone(), models.clone());
        handles.push(std::thread::spawn(move || {
            let mut rng = Rng(seed * 100 + t);
            let file = format!("win{t}");
            let n0 = 50_000 + rng.below(50_000) as usize;
            let mut model = rng.bytes(n0);
            if let Err(e) = store.put(&file, &model) {
                problem(format!("{file}: put {}: {e}", kind_of(&e)));
                return;
            }
            for round in 0..6 {
                let w = match store.delayed_window(&file) {
                    Ok(w) => w,
                    Err(e) => {
                        problem(format!("{file} round {round}: start {}: {e}", kind_of(&e)));
                        return;
                    }
                };
                for _ in 0..8 {
                    let off = rng.below(model.len() as u64 + 3000) as usize;
                    let len = 1 + rng.below(20_000) as usize;
                    let d = rng.bytes(len);
                    match store.write(&file, off as u64, &d) {
                        Ok(()) => {
                            if model.len() < off + len {
                                model.resize(off + len, 0);
                            }
                            model[off..off + len].copy_from_slice(&d);
                        }
                        Err(e) => {
                            problem(format!("{file} round {round}: write {}: {e}", kind_of(&e)))
                        }
                    }
                    if rng.below(4) == 0 {
                        std::thread::sleep(Duration::from_millis(rng.below(400)));
                    }
                }
                match store.get(&file) {
                    Ok(b) if b == model => {}
                    Ok(b) => problem(format!(
                        "{file} round {round}: in window WRONG {}",
                        first_diff(&b, &model)
                    )),
                    Err(e) => problem(format!("{file} round {round}: get {}: {e}", kind_of(&e))),
                }
                if let Err(e) = w.end() {
                    problem(format!("{file} round {round}: end {}: {e}", kind_of(&e)));
                }
            }
            models.lock().unwrap().insert(file, model);
        }));
    }
    for t in 0..2u64 {
        let (store, models) = (store.clone(), models.clone());
        handles.push(std::thread::spawn(move || {
            let mut rng = Rng(seed * 1000 + t);
            for i in 0..30 {
                let file = format!("churn{t}-{}", i % 4);
                if rng.below(3) == 0 {
                    match store.remove(&file) {
                        Ok(()) => {
                            models.lock().unwrap().remove(&file);
                        }
                        Err(StoreError::BadInput(_)) => {}
                        Err(e) => problem(format!("{file}: rm {}: {e}", kind_of(&e))),
                    }
                } else {
                    let n0 = rng.below(30_000) as usize;
                    let d = rng.bytes(n0);
                    match store.put(&file, &d) {
                        Ok(()) => {
                            models.lock().unwrap().insert(file, d);
                        }
                        Err(e) => problem(format!("{file}: put {}: {e}", kind_of(&e))),
                    }
                }
            }
        }));
    }
    {
        let store = store.clone();
        let stop = stop.clone();
        handles.push(std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && i < 40 {
                i += 1;
                if let Err(e) = store.flush() {
                    problem(format!("flush {}: {e}", kind_of(&e)));
                }
                match store.scrub(false) {
                    Ok(r)
                        if !r.parity_mismatches.is_empty()
                            || !r.corrupt_elements.is_empty()
                            || !r.unrepairable.is_empty() =>
                    {
                        problem(format!("concurrent scrub found {r:?}"))
                    }
                    Ok(_) => {}
                    Err(e) => problem(format!("concurrent scrub {}: {e}", kind_of(&e))),
                }
                // Counters read beside writers: a wrapped (underflowed) u64 would show here.
                match store.status() {
                    Ok(st)
                        if st.bytes_unprotected > 1 << 40
                            || st.bytes_waiting_parity > 1 << 40
                            || st.bytes_unprotected > st.bytes_waiting_parity =>
                    {
                        problem(format!(
                            "status beside writers: unprotected {} waiting {}",
                            st.bytes_unprotected, st.bytes_waiting_parity
                        ))
                    }
                    Ok(_) => {}
                    Err(e) => problem(format!("status {}: {e}", kind_of(&e))),
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }));
    }
    let t0 = Instant::now();
    let n = handles.len();
    for (i, h) in handles.into_iter().enumerate() {
        if i == n - 1 {
            stop.store(true, Ordering::SeqCst);
        }
        h.join().unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    if let Some(w) = worker {
        if let Err(e) = w.join().unwrap() {
            problem(format!("{name}: serve_background {}: {e}", kind_of(&e)));
        }
    }
    let models = models.lock().unwrap().clone();
    let mut listed: Vec<(String, u64)> = store.list();
    listed.sort();
    let want: Vec<(String, u64)> = models
        .iter()
        .map(|(k, v)| (k.clone(), v.len() as u64))
        .collect();
    if listed != want {
        problem(format!("{name}: list {listed:?} != model {want:?}"));
    }
    for (f, m) in &models {
        check_file(&store, f, m, &name);
    }
    check_scrub(&store, &name);
    let st = store.status().unwrap();
    if !st.open_windows.is_empty() || st.bytes_unprotected != 0 {
        problem(format!(
            "{name}: after all ENDs {} windows {} unprotected",
            st.open_windows.len(),
            st.bytes_unprotected
        ));
    }
    let store = Arc::try_unwrap(store).ok().unwrap();
    store.close().unwrap();
    println!(
        "concurrent {name} done in {:.1} s, problems so far {}",
        t0.elapsed().as_secs_f64(),
        PROBLEMS.load(Ordering::SeqCst)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Readers beside writers on the SAME bytes: writer thread t owns a region and fills random
/// sub-ranges of it with the byte value i+1 at its i-th write (i < 240), so every byte's
/// value only grows. Reader threads read random ranges: a byte must never be a value its
/// writer has not started yet, and never smaller than a value a reader already saw there
/// after that write was acknowledged (a read returning an older value than an acknowledged
/// one = stale). A background worker and a flushing thread move bytes home meanwhile; on
/// delayed stores each writer round runs in windows.
fn readers(root: &Path, code: &str, path: WritePath, unit: usize, seed: u64) {
    use std::sync::atomic::AtomicU8;
    let (spec, oss) = spec_of(code);
    let name = format!("rd-{}-{}-{unit}", code.replace(':', "_"), path_name(path));
    let dir = root.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
    opts.element_bytes = unit;
    opts.write_path = path;
    opts.window_timeout_ms = 200;
    let store = Store::init(&dir, &opts).unwrap();
    let threads = 3usize;
    let g = store.code().geometry();
    let stripe_data = g.data_pos.len() * unit;
    let region = stripe_data + stripe_data / 3 + 1001;
    let size = region * threads;
    store.put("f", &vec![0u8; size]).unwrap();
    // RD_FAIL=I: OSS I failed first (degraded reads and writes beside each other).
    if let Some(f) = std::env::var("RD_FAIL").ok().and_then(|v| v.parse().ok()) {
        store.fail_oss(f).unwrap();
    }
    // acked[b] = highest value whose write returned Ok covering byte b.
    let acked: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(0)).collect();
    // started[t] = highest value thread t has started writing.
    let started: Vec<AtomicU8> = (0..threads).map(|_| AtomicU8::new(0)).collect();
    let stop = AtomicBool::new(false);
    let writes_done = AtomicUsize::new(0);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        let (store, acked, started, stop, writes_done, name) =
            (&store, &acked, &started, &stop, &writes_done, &name);
        s.spawn(move || {
            if let Err(e) = store.serve_background(stop) {
                problem(format!("{name}: serve_background {}: {e}", kind_of(&e)));
            }
        });
        s.spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if let Err(e) = store.flush() {
                    problem(format!("flush {}: {e}", kind_of(&e)));
                }
                std::thread::sleep(Duration::from_millis(30));
            }
        });
        for r in 0..2u64 {
            s.spawn(move || {
                let mut rng = Rng(seed * 7 + r);
                while !stop.load(Ordering::SeqCst) {
                    let off = rng.below(size as u64 - 1) as usize;
                    let len = 1 + rng.below(((size - off) as u64).min(2 * stripe_data as u64)) as usize;
                    // Values acknowledged before the read began are the floor.
                    let floor: Vec<u8> = (off..off + len).map(|b| acked[b].load(Ordering::SeqCst)).collect();
                    let got = match store.read("f", off as u64, len as u64) {
                        Ok(b) => b,
                        Err(e) => {
                            problem(format!("reader: read {off}+{len} {}: {e}", kind_of(&e)));
                            continue;
                        }
                    };
                    for (i, &v) in got.iter().enumerate() {
                        let b = off + i;
                        let t = (b / region).min(threads - 1);
                        let ceil = started[t].load(Ordering::SeqCst);
                        if v < floor[i] || v > ceil {
                            problem(format!("reader: byte {b} read {v}, acked floor {} started ceiling {ceil} (WRONG/STALE)", floor[i]));
                            break;
                        }
                    }
                }
            });
        }
        let writers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut rng = Rng(seed * 13 + t as u64);
                    let mut window = None;
                    for i in 0..120u8 {
                        if path == WritePath::Delayed && i % 10 == 0 {
                            if let Some(w) = window.take() {
                                if let Err(e) = exaraid_store_end(w) {
                                    problem(format!("writer {t}: end {}: {e}", kind_of(&e)));
                                }
                            }
                            // one window per file: only thread 0 opens it, the others write inside
                            if t == 0 {
                                window = store.delayed_window("f").ok();
                            }
                        }
                        let v = i + 1;
                        let a = rng.below(region as u64 - 1) as usize;
                        let len =
                            1 + rng.below(((region - a) as u64).min(stripe_data as u64)) as usize;
                        let at = t * region + a;
                        started[t].store(v, Ordering::SeqCst);
                        match store.write("f", at as u64, &vec![v; len]) {
                            Ok(()) => {
                                for b in at..at + len {
                                    acked[b].store(v, Ordering::SeqCst);
                                }
                            }
                            Err(e) => problem(format!("writer {t}: write {}: {e}", kind_of(&e))),
                        }
                    }
                    if let Some(w) = window.take() {
                        if let Err(e) = exaraid_store_end(w) {
                            problem(format!("writer {t}: end {}: {e}", kind_of(&e)));
                        }
                    }
                    writes_done.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::SeqCst);
    });
    let model: Vec<u8> = acked.iter().map(|a| a.load(Ordering::SeqCst)).collect();
    check_file(&store, "f", &model, &name);
    check_scrub(&store, &name);
    store.close().unwrap();
    println!(
        "readers {name} done in {:.1} s, problems so far {}",
        t0.elapsed().as_secs_f64(),
        PROBLEMS.load(Ordering::SeqCst)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn exaraid_store_end(w: exaraid_store::store::DelayedWindow<'_>) -> Result<(), StoreError> {
    w.end()
}

/// API uses a file-system developer may try: a second handle in the same process, a handle
/// dropped without close, a window surviving close/reopen, a write across the planner's
/// chunk, names at the limits.
fn misc(root: &Path) {
    let mut rng = Rng(99);
    for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
        let dir = root.join(format!("misc-{}", path_name(path)));
        let _ = std::fs::remove_dir_all(&dir);
        let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
        opts.element_bytes = 65536;
        opts.write_path = path;
        let store = Store::init(&dir, &opts).unwrap();
        // second handle, same process
        let t = Instant::now();
        match Store::open(&dir) {
            Ok(_) => problem(format!(
                "{}: a second Store::open of an open store succeeded",
                path_name(path)
            )),
            Err(e) => println!(
                "ok second open in {} ms: {}: {e}",
                t.elapsed().as_millis(),
                kind_of(&e)
            ),
        }
        let mut model = rng.bytes(1_000_000);
        store.put("f", &model).unwrap();
        let d = rng.bytes(200_000);
        store.write("f", 77_777, &d).unwrap();
        model[77_777..277_777].copy_from_slice(&d);
        let token = if path == WritePath::Delayed {
            let w = store.delayed_window("f").unwrap();
            let d = rng.bytes(100_000);
            store.write("f", 500_000, &d).unwrap();
            model[500_000..600_000].copy_from_slice(&d);
            Some(w.token().to_string())
        } else {
            None
        };
        drop(store); // no close
        match Store::open(&dir) {
            Ok(s) => {
                check_file(
                    &s,
                    "f",
                    &model,
                    &format!("{} after drop without close", path_name(path)),
                );
                if let Some(tok) = &token {
                    let st = s.status().unwrap();
                    println!(
                        "window after reopen: {} open, {} unprotected",
                        st.open_windows.len(),
                        st.bytes_unprotected
                    );
                    if let Err(e) = s.delayed_end(tok) {
                        problem(format!("END after reopen {}: {e}", kind_of(&e)));
                    }
                }
                check_scrub(&s, &format!("{} after drop", path_name(path)));
                // a write across the planner's 64 MiB chunk, unaligned
                let big = rng.bytes((64 << 20) + 12_345);
                match s.write("big", 4095, &big) {
                    Ok(()) => match s.read("big", 4095, big.len() as u64) {
                        Ok(b) if b == big => println!("ok 64 MiB+ write"),
                        Ok(b) => problem(format!(
                            "64 MiB+ write read back WRONG {}",
                            first_diff(&b, &big)
                        )),
                        Err(e) => problem(format!("64 MiB+ read {}: {e}", kind_of(&e))),
                    },
                    Err(e) => problem(format!("64 MiB+ write {}: {e}", kind_of(&e))),
                }
                match s.read("big", 0, 4095) {
                    Ok(b) if b.iter().all(|&x| x == 0) => {}
                    Ok(_) => problem("hole before big not zeros".into()),
                    Err(e) => problem(format!("hole read {}: {e}", kind_of(&e))),
                }
                let long = "n".repeat(1024);
                if let Err(e) = s.put(&long, b"x") {
                    problem(format!("1024-byte name refused {}: {e}", kind_of(&e)));
                }
                expect_err("1025-byte name", s.put(&"n".repeat(1025), b"x"), "BadInput");
                expect_err("NUL in name", s.put("a\0b", b"x"), "BadInput");
                let _ = s.remove("big");
                check_scrub(&s, &format!("{} end", path_name(path)));
                s.close().unwrap();
            }
            Err(e) => problem(format!("reopen after drop {}: {e}", kind_of(&e))),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `put` is all or nothing, also for readers running beside it: a thread puts file `p` again
/// and again, the i-th time `len(i)` bytes all equal to i; reader threads `get` and `read`
/// it: every result must be one whole version (all bytes equal, length of that version),
/// and versions must not go back in time. Writes into `p` beside it too (whole-version check
/// then only for gets that see no write's bytes: writes use value 255).
fn putget(root: &Path) {
    for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
        for bg in [false, true] {
            let dir = root.join(format!("pg-{}-{bg}", path_name(path)));
            let _ = std::fs::remove_dir_all(&dir);
            let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
            opts.element_bytes = 4096;
            opts.write_path = path;
            let store = Store::init(&dir, &opts).unwrap();
            let len = |i: u8| 1000 + (i as usize * 7919) % 120_000;
            store.put("p", &vec![1u8; len(1)]).unwrap();
            let stop = AtomicBool::new(false);
            let t0 = Instant::now();
            let (gets, versions) = (AtomicUsize::new(0), AtomicUsize::new(0));
            std::thread::scope(|s| {
                let (store, stop, gets, versions) = (&store, &stop, &gets, &versions);
                if bg {
                    s.spawn(move || store.serve_background(stop).unwrap());
                }
                let putter = s.spawn(move || {
                    for i in 2..=200u8 {
                        if let Err(e) = store.put("p", &vec![i; len(i)]) {
                            problem(format!("put {i}: {}: {e}", kind_of(&e)));
                        }
                        versions.store(i as usize, Ordering::SeqCst);
                    }
                });
                for r in 0..2 {
                    s.spawn(move || {
                        let mut last = 0u8;
                        while !stop.load(Ordering::SeqCst) {
                            let floor = versions.load(Ordering::SeqCst) as u8;
                            let got = if r == 0 { store.get("p") } else { store.size("p").and_then(|n| store.read("p", 0, n)) };
                            match got {
                                Ok(b) => {
                                    gets.fetch_add(1, Ordering::SeqCst);
                                    let v = b[0];
                                    if b.iter().any(|&x| x != v) || b.len() != len(v) {
                                        // r == 1: size and read are two calls, a put may come between
                                        if r == 0 {
                                            problem(format!("get of p: not one whole version (first byte {v}, len {} want {})", b.len(), len(v)));
                                        }
                                    } else if v < last || v < floor {
                                        problem(format!("get of p went back: {v} after {last} (floor {floor})"));
                                    }
                                    last = last.max(v);
                                }
                                Err(StoreError::BadInput(_)) if r == 1 => {}
                                Err(e) => problem(format!("reader {r}: {}: {e}", kind_of(&e))),
                            }
                        }
                    });
                }
                putter.join().unwrap();
                stop.store(true, Ordering::SeqCst);
            });
            check_file(&store, "p", &vec![200u8; len(200)], "putget final");
            check_scrub(&store, "putget");
            store.close().unwrap();
            println!(
                "putget {} bg={bg}: {} gets in {:.1} s, problems so far {}",
                path_name(path),
                gets.load(Ordering::SeqCst),
                t0.elapsed().as_secs_f64(),
                PROBLEMS.load(Ordering::SeqCst)
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// START (which creates a missing file) racing `put` and `rm` of the same new name: whatever
/// wins, a window that START returned must be on the file the name shows afterwards: a
/// window write must read back through `get`, and END must succeed.
fn startput(root: &Path) {
    let dir = root.join("sp");
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Delayed;
    let store = Store::init(&dir, &opts).unwrap();
    let (mut starts, mut puts) = (0, 0);
    for round in 0..300u32 {
        let name = format!("n{round}");
        let content = vec![7u8; 5000 + round as usize];
        let (w, p, r) = std::thread::scope(|s| {
            let store = &store;
            let (name, content) = (&name, &content);
            let a = s.spawn(move || store.delayed_start(name));
            let b = s.spawn(move || store.put(name, content));
            let c = s.spawn(move || {
                if round % 3 == 0 {
                    store.remove(name)
                } else {
                    Ok(())
                }
            });
            (a.join().unwrap(), b.join().unwrap(), c.join().unwrap())
        });
        let _ = r;
        if p.is_ok() {
            puts += 1;
        }
        match w {
            Ok(tok) => {
                starts += 1;
                let d = vec![9u8; 3000];
                match store.write(&name, 100, &d) {
                    Ok(()) => match store.read(&name, 100, 3000) {
                        Ok(b) if b == d => {}
                        Ok(_) => problem(format!(
                            "{name}: window write does not read back (put {:?})",
                            p.as_ref().map_err(kind_of)
                        )),
                        Err(e) => problem(format!(
                            "{name}: read after window write {}: {e}",
                            kind_of(&e)
                        )),
                    },
                    Err(e) => problem(format!("{name}: write in window {}: {e}", kind_of(&e))),
                }
                let st = store.status().unwrap();
                if !st
                    .open_windows
                    .iter()
                    .any(|x| x.token == tok && x.file == name)
                {
                    problem(format!(
                        "{name}: window {tok} not listed on {name}: {:?}",
                        st.open_windows
                            .iter()
                            .map(|x| (&x.token, &x.file))
                            .collect::<Vec<_>>()
                    ));
                }
                if let Err(e) = store.delayed_end(&tok) {
                    problem(format!("{name}: END {}: {e}", kind_of(&e)));
                }
            }
            Err(e) if kind_of(&e) == "BadInput" => {}
            Err(e) => problem(format!("{name}: START {}: {e}", kind_of(&e))),
        }
    }
    check_scrub(&store, "startput");
    let st = store.status().unwrap();
    if !st.open_windows.is_empty() {
        problem(format!(
            "startput: windows left open {:?}",
            st.open_windows.len()
        ));
    }
    store.close().unwrap();
    println!("startput: {starts} starts, {puts} puts ok of 300 rounds");
    let _ = std::fs::remove_dir_all(&dir);
}

/// END while other threads still write the window's file: writes before END are in the
/// window, writes after it get parity at once. Afterwards no byte may be unprotected, and
/// with the code's tolerance of OSSs failed every byte must still read (parity right).
fn endrace(root: &Path, code: &str, unit: usize, bg: bool, seed: u64) {
    let (spec, oss) = spec_of(code);
    let name = format!("er-{}-{unit}-{bg}", code.replace(':', "_"));
    let dir = root.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, oss, spec);
    opts.element_bytes = unit;
    opts.write_path = WritePath::Delayed;
    let mut store = Store::init(&dir, &opts).unwrap();
    let tolerance = store.code().geometry().fault_tolerance;
    let stripe_data = store.code().geometry().data_pos.len() * unit;
    let threads = 4;
    let region = stripe_data + stripe_data / 2 + 777;
    let mut rng = Rng(seed);
    let mut model = rng.bytes(region * threads);
    store.put("f", &model).unwrap();
    let t0 = Instant::now();
    for round in 0..6u64 {
        let stop = AtomicBool::new(false);
        let mut images: Vec<Vec<u8>> = (0..threads)
            .map(|t| model[t * region..(t + 1) * region].to_vec())
            .collect();
        let delay_ms = rng.below(60);
        std::thread::scope(|s| {
            let store = &store;
            let stop = &stop;
            if bg {
                s.spawn(move || store.serve_background(stop).unwrap());
            }
            let w = store.delayed_window("f").unwrap();
            let hs: Vec<_> = images
                .iter_mut()
                .enumerate()
                .map(|(t, image)| {
                    s.spawn(move || {
                        let mut rng = Rng(seed * 1_000 + round * 10 + t as u64);
                        for _ in 0..20 {
                            let off = rng.below(region as u64 - 1) as usize;
                            let len = 1 + rng.below(((region - off) as u64).min(2 * unit as u64))
                                as usize;
                            let d = rng.bytes(len);
                            match store.write("f", (t * region + off) as u64, &d) {
                                Ok(()) => image[off..off + len].copy_from_slice(&d),
                                Err(e) => problem(format!("endrace write {}: {e}", kind_of(&e))),
                            }
                        }
                    })
                })
                .collect();
            std::thread::sleep(Duration::from_millis(delay_ms));
            if let Err(e) = w.end() {
                problem(format!("{name} round {round}: end {}: {e}", kind_of(&e)));
            }
            for h in hs {
                h.join().unwrap();
            }
            stop.store(true, Ordering::SeqCst);
        });
        for (t, image) in images.iter().enumerate() {
            model[t * region..(t + 1) * region].copy_from_slice(image);
        }
        let st = store.status().unwrap();
        if st.bytes_unprotected != 0 || !st.open_windows.is_empty() {
            problem(format!(
                "{name} round {round}: after END + writes: {} unprotected, {} windows",
                st.bytes_unprotected,
                st.open_windows.len()
            ));
        }
        check_file(&store, "f", &model, &format!("{name} round {round}"));
    }
    check_scrub(&store, &name);
    let failed: Vec<usize> = (0..tolerance).map(|i| (i * 2 + 1) % oss).collect();
    for &o in &failed {
        store.fail_oss(o).unwrap();
    }
    check_file(&store, "f", &model, &format!("{name} degraded {failed:?}"));
    for &o in &failed {
        if let Err(e) = store.rebuild(o, None) {
            problem(format!("{name}: rebuild {o} {}: {e}", kind_of(&e)));
        }
    }
    check_scrub(&store, &format!("{name} rebuilt"));
    check_file(&store, "f", &model, &format!("{name} rebuilt"));
    store.close().unwrap();
    println!(
        "endrace {name} done in {:.1} s, problems so far {}",
        t0.elapsed().as_secs_f64(),
        PROBLEMS.load(Ordering::SeqCst)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("");
    let root = PathBuf::from(
        args.get(2)
            .expect("usage: api_review matrix|windows DIR [seed] [filter]"),
    );
    std::fs::create_dir_all(&root).unwrap();
    match mode {
        "matrix" => {
            let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
            let filter = args.get(4).cloned().unwrap_or_default();
            let codes = [
                "raid5:4",
                "raid6:4",
                "rs:53",
                "dcode:5",
                "xcode:5",
                "evenodd:5",
                "rdp:5",
                "hcode:5",
                "hdp:5",
            ];
            let mut n = 0u64;
            for code in codes {
                for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
                    for unit in [4096usize, 65536] {
                        n += 1;
                        let case = Case {
                            code,
                            path,
                            unit,
                            background: n % 2 == 0,
                        };
                        let name = format!("{code}-{}-{unit}", path_name(path));
                        if !name.contains(&filter) {
                            continue;
                        }
                        run_case(&root, &case, seed * 1000 + n);
                    }
                }
            }
        }
        "windows" => windows(&root),
        "opcounts" => opcounts(&root),
        "misc" => misc(&root),
        "putget" => putget(&root),
        "startput" => startput(&root),
        "endrace" => {
            let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
            for code in ["raid5:4", "raid6:4", "dcode:5", "rs:53"] {
                for unit in [4096usize, 65536] {
                    for bg in [false, true] {
                        endrace(&root, code, unit, bg, seed);
                    }
                }
            }
        }
        "readers" => {
            let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
            let filter = args.get(4).cloned().unwrap_or_default();
            for code in ["raid5:4", "raid6:4", "rs:53", "dcode:5", "xcode:5", "hdp:5"] {
                for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
                    for unit in [4096usize, 65536] {
                        let name = format!("{code}-{}-{unit}", path_name(path));
                        if name.contains(&filter) {
                            readers(&root, code, path, unit, seed);
                        }
                    }
                }
            }
        }
        "concurrent" => {
            let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
            for code in ["raid5:4", "raid6:4", "dcode:5", "rs:42"] {
                for bg in [false, true] {
                    concurrent(&root, code, bg, seed);
                }
            }
        }
        _ => panic!("usage: api_review matrix|windows DIR [seed] [filter]"),
    }
    let p = PROBLEMS.load(Ordering::SeqCst);
    println!("DONE problems {p}");
    std::process::exit(if p > 0 { 1 } else { 0 });
}
