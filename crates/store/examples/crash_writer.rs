//! Review tool (not CI): kill -9 a process whose threads write through the Rust
//! API, reopen, and check that every write whose call returned Ok is there.
//!
//! Usage (CARGO_TARGET_DIR/debug/examples/crash_writer):
//!   crash_writer sweep DIR ROUNDS CODE OSS PATH [key=value ...]
//!     CODE: raid5 | raid6 | rs:M | <array code>:P (e.g. xcode:5); PATH: rmw | wcl | delayed
//!     keys: threads=4 seed=1 prefail=I (fail OSS I before the child runs)
//!           midfail=I (the child fails OSS I after failms ms) failms=50
//!           bg=1 (child runs serve_background) flushms=N (a child thread flushes every N ms)
//!           readers=1 (a child thread reads all the time) second=I (after the check, fail OSS
//!           I too and check again) killmin=20 killmax=400 (ms before the kill)
//!           windows=1 (delayed: each writer thread opens a window, writes, ends it)
//!           keep=1 (keep DIR of a failed round; DIR/killed is its store as the kill left it)
//!   crash_writer child DIR SEED THREADS ... (spawned by sweep)
//!
//! The child's writer thread t owns bytes [t*REGION, (t+1)*REGION) of file "f" and writes
//! random sub-ranges of it one after another; after write i returns Ok it appends "i" to
//! DIR/ack-t and fsyncs that file before the next write. So after the kill, writes
//! 0..n-1 (n = lines in ack-t) were acknowledged; write n may or may not have happened
//! (byte by byte: old or new); nothing after it ran.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, WritePath};

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
// Geometry overrides (review s4e): CW_UNIT (stripe unit bytes, default 4096), CW_REGION (bytes
// each writer thread owns, default 48 KiB), CW_WIDTH (stripe width of raid5/raid6/rs when
// there are more OSSs than the width, files then placed round robin; default the OSS count).
// The child inherits the environment, so parent and child agree.
fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
fn region() -> u64 {
    env_or("CW_REGION", 48 * 1024)
}
fn unit() -> usize {
    env_or("CW_UNIT", 4096) as usize
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = mix(seed) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Write `i` of thread `t`: (offset in file, bytes).
fn write_of(seed: u64, t: u64, i: u64) -> (u64, Vec<u8>) {
    let h = mix(seed ^ mix(t * 1_000_003 + i));
    let len = 1 + mix(h) % (region() / 3);
    let off = mix(h ^ 7) % (region() - len);
    (t * region() + off, pattern(h, len as usize))
}

const G_SEED: u64 = 77_000;
fn g_len(k: u64) -> usize {
    1000 + (mix(k) % 60_000) as usize
}

/// File "g" after the churn thread's acked ops: `None` = absent. The in-flight op k = n
/// may have happened too.
fn check_g(dir: &Path, store: &Store, what: &str) -> Vec<String> {
    let n = lines(&dir.join("ack-g")).len() as u64;
    if n == 0 && !dir.join("err-g").exists() && std::fs::metadata(dir.join("ack-g")).is_err() {
        // No churn thread ran, or it had no op acked: g absent or the first put.
    }
    let state = |k: u64| -> Option<Vec<u8>> {
        // After ops 0..k (k ops done).
        if k == 0 || k % 2 == 0 {
            None
        } else {
            Some(pattern(G_SEED + k - 1, g_len(k - 1)))
        }
    };
    let allowed = [state(n), state(n + 1)];
    let got = match store.get("g") {
        Ok(b) => Some(b),
        Err(exaraid_store::StoreError::BadInput(_)) => None,
        Err(e) => return vec![format!("{what}: get g: {e}")],
    };
    if allowed.contains(&got) {
        Vec::new()
    } else {
        vec![format!(
            "{what}: g after {n} acked ops is {:?} bytes, allowed {:?}",
            got.as_ref().map(|g| g.len()),
            allowed
                .iter()
                .map(|a| a.as_ref().map(|g| g.len()))
                .collect::<Vec<_>>()
        )]
    }
}

fn initial(threads: u64) -> Vec<u8> {
    pattern(0xabc, (threads * region()) as usize)
}

fn kv(args: &[String], key: &str) -> Option<String> {
    args.iter()
        .find_map(|a| a.strip_prefix(&format!("{key}=")).map(|v| v.to_string()))
}

fn kvn(args: &[String], key: &str, default: u64) -> u64 {
    kv(args, key).map(|v| v.parse().unwrap()).unwrap_or(default)
}

fn code_spec(code: &str, oss: usize) -> CodeSpec {
    let (name, param) = match code.split_once(':') {
        Some((n, p)) => (n, Some(p.parse::<usize>().unwrap())),
        None => (code, None),
    };
    let oss = env_or("CW_WIDTH", oss as u64) as usize;
    match CodeKind::from_name(name).unwrap() {
        CodeKind::Raid5 => CodeSpec::raid5(oss - 1),
        CodeKind::Raid6 => CodeSpec::raid6(oss - 2),
        CodeKind::Rs => CodeSpec::rs(oss - param.unwrap(), param.unwrap()),
        kind => CodeSpec::array(kind, param.unwrap()),
    }
}

fn append_sync(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(line.as_bytes()).unwrap();
    f.sync_all().unwrap();
}

fn child(args: &[String]) {
    let dir = PathBuf::from(&args[0]);
    let seed: u64 = args[1].parse().unwrap();
    let threads: u64 = args[2].parse().unwrap();
    let rest = &args[3..];
    // nofsync=1: no backend or journal syncs (so no extents record written while writes run).
    let store = if kvn(rest, "nofsync", 0) == 1 {
        let opts = exaraid_store::OpenOptions {
            fsync: false,
            ..Default::default()
        };
        Arc::new(Store::open_with(&dir.join("store"), opts).unwrap())
    } else {
        Arc::new(Store::open(&dir.join("store")).unwrap())
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    if kvn(rest, "bg", 0) == 1 {
        let (s, st) = (store.clone(), stop.clone());
        handles.push(std::thread::spawn(move || {
            if let Err(e) = s.serve_background(&st) {
                eprintln!("serve_background: {e}");
            }
        }));
    }
    if let Some(oss) = kv(rest, "midfail") {
        let oss: usize = oss.parse().unwrap();
        let ms = kvn(rest, "failms", 50);
        let (s, d) = (store.clone(), dir.clone());
        handles.push(std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(ms));
            let r = s.fail_oss(oss);
            append_sync(&d.join("midfail"), &format!("{r:?}\n"));
        }));
    }
    if let Some(ms) = kv(rest, "flushms") {
        let ms: u64 = ms.parse().unwrap();
        let (s, st, d) = (store.clone(), stop.clone(), dir.clone());
        handles.push(std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(ms));
                if let Err(e) = s.flush() {
                    append_sync(&d.join("flush-err"), &format!("{e}\n"));
                }
            }
        }));
    }
    if kvn(rest, "readers", 0) == 1 {
        let (s, st, d) = (store.clone(), stop.clone(), dir.clone());
        handles.push(std::thread::spawn(move || {
            let mut x = 1u64;
            while !st.load(Ordering::SeqCst) {
                x = mix(x);
                let at = x % (threads * region() - 1);
                let len = 1 + mix(x) % (threads * region() - at).min(20000);
                if let Err(e) = s.read("f", at, len) {
                    append_sync(&d.join("read-err"), &format!("{at}+{len}: {e}\n"));
                }
            }
        }));
    }
    if kvn(rest, "churn", 0) == 1 {
        // put/rm of file "g" over and over: op k is put of pattern(G_SEED + k) when k is
        // even, rm when odd; acked ops logged to DIR/ack-g.
        let (s, st, d) = (store.clone(), stop.clone(), dir.clone());
        handles.push(std::thread::spawn(move || {
            for k in 0u64.. {
                if st.load(Ordering::SeqCst) {
                    return;
                }
                let r = if k % 2 == 0 {
                    s.put("g", &pattern(G_SEED + k, g_len(k)))
                } else {
                    s.remove("g")
                };
                match r {
                    Ok(()) => append_sync(&d.join("ack-g"), &format!("{k}\n")),
                    Err(e) => {
                        append_sync(&d.join("err-g"), &format!("{k} {e}\n"));
                        return;
                    }
                }
            }
        }));
    }
    let windows = kvn(rest, "windows", 0) == 1;
    let writes_max = kvn(rest, "writes", u64::MAX);
    let per_file = kvn(rest, "files", 0) == 1;
    let serial = kvn(rest, "serial", 0) == 1;
    let others = handles;
    let mut handles = Vec::new();
    for t in 0..threads {
        let (s, d) = (store.clone(), dir.clone());
        handles.push(std::thread::spawn(move || {
            let ack = d.join(format!("ack-{t}"));
            // files=1: thread t writes its region of its own file "f<t>" (same offsets).
            let name = if per_file {
                format!("f{t}")
            } else {
                "f".to_string()
            };
            let mut token: Option<String> = None;
            for i in 0..writes_max {
                if windows && i % 4 == 0 {
                    match s.delayed_start(&name) {
                        Ok(tk) => token = Some(tk),
                        Err(_) => token = None, // another thread's window on f
                    }
                }
                let (off, data) = write_of(seed, t, i);
                // serial=1: one write at a time over all threads (same workload, no overlap).
                let _one = if serial {
                    Some(SERIAL.lock().unwrap())
                } else {
                    None
                };
                match s.write(&name, off, &data) {
                    Ok(()) => append_sync(&ack, &format!("{i}\n")),
                    Err(e) => {
                        append_sync(&d.join(format!("err-{t}")), &format!("{i} {e}\n"));
                        return;
                    }
                }
                if i % 4 == 3 {
                    if let Some(tk) = token.take() {
                        if let Err(e) = s.delayed_end(&tk) {
                            append_sync(&d.join(format!("enderr-{t}")), &format!("{i} {e}\n"));
                        }
                    }
                }
            }
        }));
    }
    for h in handles {
        let _ = h.join();
    }
    // Only with writes=N: every writer is done; stop the helpers and close.
    stop.store(true, Ordering::SeqCst);
    for h in others {
        let _ = h.join();
    }
    match Arc::try_unwrap(store) {
        Ok(store) => store.close().unwrap(),
        Err(_) => panic!("store still shared"),
    }
    append_sync(&dir.join("closed"), "closed\n");
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(|l| l.to_string()).collect())
        .unwrap_or_default()
}

/// Check the reopened store against the acknowledged writes. Returns problems found.
fn check(dir: &Path, seed: u64, threads: u64, store: &Store, what: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut model = initial(threads);
    let mut maybe = vec![false; model.len()];
    let mut alt = model.clone(); // the in-flight write's bytes where maybe
    for t in 0..threads {
        let acked = lines(&dir.join(format!("ack-{t}")));
        for (j, l) in acked.iter().enumerate() {
            assert_eq!(l.parse::<usize>().unwrap(), j, "ack log order");
        }
        // Self-test of this checker: count the in-flight write as acknowledged too (and the
        // one after it as in flight): rounds must then report wrong bytes.
        let extra = std::env::var("H_SELFTEST").is_ok() as usize;
        let acked: Vec<String> = (0..acked.len() + extra).map(|j| j.to_string()).collect();
        for i in 0..acked.len() as u64 {
            let (off, data) = write_of(seed, t, i);
            let o = off as usize;
            model[o..o + data.len()].copy_from_slice(&data);
        }
        let (off, data) = write_of(seed, t, acked.len() as u64);
        let o = off as usize;
        for (j, b) in data.iter().enumerate() {
            maybe[o + j] = true;
            alt[o + j] = *b;
        }
    }
    let per_file = std::env::var("H_FILES").is_ok();
    let got = if per_file {
        // Region t of file "f<t>", the rest of each file as put.
        let mut all = Vec::new();
        let mut err = None;
        for t in 0..threads {
            match store.get(&format!("f{t}")) {
                Ok(b) => {
                    let (a, z) = ((t * region()) as usize, ((t + 1) * region()) as usize);
                    if b.len() == model.len() {
                        all.extend_from_slice(&b[a..z]);
                    } else {
                        err = Some(format!("f{t} has {} bytes", b.len()));
                    }
                }
                Err(e) => err = Some(format!("f{t}: {e}")),
            }
        }
        match err {
            Some(e) => Err(e),
            None => Ok(all),
        }
    } else {
        store.get("f").map_err(|e| e.to_string())
    };
    match got {
        Err(e) => problems.push(format!("{what}: get f: {e}")),
        Ok(got) => {
            if got.len() != model.len() {
                problems.push(format!("{what}: size {} != {}", got.len(), model.len()));
            }
            let mut bad = Vec::new();
            for (i, (&g, &m)) in got.iter().zip(model.iter()).enumerate() {
                if g != m && !(maybe[i] && g == alt[i]) {
                    bad.push(i);
                }
            }
            if !bad.is_empty() {
                // Ranges of bad bytes.
                let mut ranges = Vec::new();
                let mut start = bad[0];
                let mut prev = bad[0];
                for &b in &bad[1..] {
                    if b != prev + 1 {
                        ranges.push((start, prev + 1));
                        start = b;
                    }
                    prev = b;
                }
                ranges.push((start, prev + 1));
                let in_flight: Vec<usize> = bad.iter().copied().filter(|&i| maybe[i]).collect();
                // What the bad bytes are: the initial content, zeros, or an older write.
                let init = initial(threads);
                let (mut stale_init, mut zeros, mut older) = (0, 0, 0);
                for &i in &bad {
                    if got[i] == init[i] {
                        stale_init += 1;
                    } else if got[i] == 0 {
                        zeros += 1;
                    } else {
                        let t = i as u64 / region();
                        let n = lines(&dir.join(format!("ack-{t}"))).len() as u64;
                        if (0..n).any(|j| {
                            let (off, data) = write_of(seed, t, j);
                            let o = off as usize;
                            i >= o && i < o + data.len() && data[i - o] == got[i]
                        }) {
                            older += 1;
                        }
                    }
                }
                if std::env::var("H_DUMP").is_ok() {
                    let i = bad[0];
                    let t = i as u64 / region();
                    let n = lines(&dir.join(format!("ack-{t}"))).len() as u64;
                    let (off, data) = write_of(seed, t, n);
                    eprintln!(
                        "first bad byte {i}: thread {t}, in-flight write {n} at {off}+{}; got {:02x?} model {:02x?} new {:02x?}",
                        data.len(),
                        &got[i..(i + 8).min(got.len())],
                        &model[i..(i + 8).min(got.len())],
                        &alt[i..(i + 8).min(got.len())]
                    );
                    // Is the got run somewhere else in the new data (misplaced)?
                    let needle = &got[i..(i + 16).min(got.len())];
                    if let Some(p) = data.windows(needle.len()).position(|w| w == needle) {
                        eprintln!(
                            "  got bytes are new data at write offset {p} (placed at {})",
                            i as u64 - off
                        );
                    }
                    if let Some(p) = got.windows(needle.len()).position(|w| w == needle) {
                        eprintln!("  first occurrence of got run in file: {p}");
                    }
                }
                problems.push(format!(
                    "{what}: bad bytes = initial {stale_init}, zero {zeros}, an older acked write {older}, other {}",
                    bad.len() - stale_init - zeros - older
                ));
                problems.push(format!(
                    "{what}: WRONG BYTES exit Ok: {} bytes (in the in-flight ranges: {}), ranges {:?}",
                    bad.len(),
                    in_flight.len(),
                    &ranges[..ranges.len().min(8)]
                ));
            }
        }
    }
    problems
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn sweep(args: &[String]) {
    let dir = PathBuf::from(&args[0]);
    let rounds: u64 = args[1].parse().unwrap();
    let code = code_spec(&args[2], args[3].parse().unwrap());
    let oss: usize = args[3].parse().unwrap();
    let path = match args[4].as_str() {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        "delayed" => WritePath::Delayed,
        p => panic!("path {p}"),
    };
    let rest = &args[5..];
    let threads = kvn(rest, "threads", 4);
    let seed0 = kvn(rest, "seed", 1);
    let (kmin, kmax) = (kvn(rest, "killmin", 20), kvn(rest, "killmax", 400));
    let mut failures = 0;
    for r in 0..rounds {
        let seed = seed0 * 1000 + r;
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let sdir = dir.join("store");
        {
            let mut opts = InitOptions::with_oss_count(&sdir, oss, code);
            opts.element_bytes = unit();
            opts.write_path = path;
            if let Some(ms) = kv(rest, "timeoutms") {
                opts.window_timeout_ms = ms.parse().unwrap();
            }
            if let Some(b) = kv(rest, "unprot") {
                opts.unprotected_bytes_max = b.parse().unwrap();
            }
            let store = Store::init(&sdir, &opts).unwrap();
            store.put("f", &initial(threads)).unwrap();
            if kvn(rest, "files", 0) == 1 {
                std::env::set_var("H_FILES", "1");
                for t in 0..threads {
                    store.put(&format!("f{t}"), &initial(threads)).unwrap();
                }
            }
            if let Some(o) = kv(rest, "prefail") {
                store.fail_oss(o.parse().unwrap()).unwrap();
            }
            store.close().unwrap();
        }
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.arg("child")
            .arg(&dir)
            .arg(seed.to_string())
            .arg(threads.to_string());
        for a in rest {
            cmd.arg(a);
        }
        if let Some(point) = kv(rest, "killat") {
            // A kill point inside the store (EXARAID_KILL_AT), its count = kill point n + round.
            let (name, n) = point.split_once(':').unwrap();
            let n: u64 = n.parse().unwrap();
            cmd.env("EXARAID_KILL_AT", format!("{name}:{}", n + r));
        }
        let mut child = cmd.spawn().unwrap();
        let delay_ms = kmin + mix(seed ^ 0x55) % (kmax - kmin + 1);
        let started = Instant::now();
        if kvn(rest, "nokill", 0) == 1 {
            let st = child.wait().unwrap();
            assert!(st.success(), "child without kill: {st:?}");
        } else if kv(rest, "killat").is_some() {
            // The child kills itself; a backstop if the point is never reached.
            let deadline = Instant::now() + Duration::from_secs(5);
            while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
        } else {
            std::thread::sleep(Duration::from_millis(delay_ms));
        }
        let exited_early = child.try_wait().unwrap();
        let _ = child.kill();
        let _ = child.wait();
        if kvn(rest, "keep", 0) == 1 {
            // The store as the kill left it, before recovery (to replay a failed round: move
            // it back to DIR/store, whose absolute path the superblock names).
            copy_tree(&sdir, &dir.join("killed"));
        }
        let acks: Vec<usize> = (0..threads)
            .map(|t| lines(&dir.join(format!("ack-{t}"))).len())
            .collect();
        let mut notes = Vec::new();
        for f in ["midfail", "flush-err", "read-err", "err-g"] {
            let l = lines(&dir.join(f));
            if !l.is_empty() {
                notes.push(format!("{f}: {}", l[0]));
            }
        }
        for t in 0..threads {
            for f in ["err", "enderr"] {
                let l = lines(&dir.join(format!("{f}-{t}")));
                if !l.is_empty() {
                    notes.push(format!("{f}-{t}: {}", l[0]));
                }
            }
        }
        let mut problems = Vec::new();
        if kvn(rest, "keep", 0) == 1 {
            // The store as the kill left it (the check below recovers it in place).
            let _ = Command::new("cp")
                .arg("-a")
                .arg(&sdir)
                .arg(dir.join("store-at-kill"))
                .status();
        }
        match Store::open(&sdir) {
            Err(e) => problems.push(format!("open after kill: {e}")),
            Ok(store) => {
                problems.extend(check(&dir, seed, threads, &store, "after kill"));
                if kvn(rest, "churn", 0) == 1 {
                    problems.extend(check_g(&dir, &store, "after kill"));
                }
                if let Some(o) = kv(rest, "second") {
                    match store.fail_oss(o.parse().unwrap()) {
                        Err(e) => notes.push(format!("second fail refused: {e}")),
                        Ok(()) => {
                            problems.extend(check(&dir, seed, threads, &store, "second fail"))
                        }
                    }
                }
                if store.failed_osses().is_empty() {
                    match store.scrub(false) {
                        Err(e) => problems.push(format!("scrub: {e}")),
                        Ok(rep) => {
                            if !rep.corrupt_elements.is_empty() || !rep.parity_mismatches.is_empty()
                            {
                                problems.push(format!(
                                    "scrub: corrupt {:?} mismatches {:?}",
                                    rep.corrupt_elements, rep.parity_mismatches
                                ));
                            }
                        }
                    }
                }
                if let Err(e) = store.close() {
                    problems.push(format!("close: {e}"));
                }
                // And once more through a fresh open (recovery twice).
                match Store::open(&sdir) {
                    Err(e) => problems.push(format!("second open: {e}")),
                    Ok(store) => {
                        if kv(rest, "second").is_none() {
                            problems.extend(check(&dir, seed, threads, &store, "reopen"));
                        }
                    }
                }
            }
        }
        println!(
            "round {r} seed {seed} kill@{delay_ms}ms{} acks {acks:?} {}{}",
            if exited_early.is_some() {
                " (child had exited!)"
            } else {
                ""
            },
            if notes.is_empty() {
                String::new()
            } else {
                format!("notes {notes:?} ")
            },
            if problems.is_empty() {
                "ok".to_string()
            } else {
                format!("PROBLEMS {problems:?}")
            }
        );
        let _ = started;
        if !problems.is_empty() {
            failures += 1;
            if kvn(rest, "keep", 0) == 1 {
                let keep = PathBuf::from(format!("{}-fail-{seed}", dir.display()));
                let _ = std::fs::remove_dir_all(&keep);
                std::fs::rename(&dir, &keep).unwrap();
                println!("kept {}", keep.display());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{failures} of {rounds} rounds with problems");
}

/// Put `mine` as g, then read g right after it returned Ok (the other put may still run):
/// it must read a or b whole, never part of one.
fn put_then_read(
    store: &Store,
    mine: &[u8],
    a: &[u8],
    b: &[u8],
    r: u64,
) -> Result<(), exaraid_store::StoreError> {
    let res = store.put("g", mine);
    if res.is_ok() {
        match store.get("g") {
            Ok(g) if g == a || g == b => {}
            Ok(g) => println!(
                "round {r}: read right after an acked put: WRONG BYTES ({} bytes, neither a nor b)",
                g.len()
            ),
            Err(e) => println!("round {r}: read right after an acked put: {e}"),
        }
    }
    res
}

/// Two threads put the same name at once, `rounds` times; after each round the file must be
/// one of the two contents (last writer wins), and a put that returned Ok must not have
/// left anything else. No kill.
fn race_put(args: &[String]) {
    let dir = PathBuf::from(&args[0]);
    let rounds: u64 = args[1].parse().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = unit();
    let store = Store::init(&dir, &opts).unwrap();
    store.put("g", b"start").unwrap();
    let mut bad = 0;
    for r in 0..rounds {
        let a = pattern(r * 2, 20_000 + (r as usize % 7) * 3000);
        let b = pattern(r * 2 + 1, 30_000 + (r as usize % 5) * 5000);
        let (ra, rb) = std::thread::scope(|s| {
            let ha = s.spawn(|| put_then_read(&store, &a, &a, &b, r));
            let hb = s.spawn(|| put_then_read(&store, &b, &a, &b, r));
            (ha.join().unwrap(), hb.join().unwrap())
        });
        let got = store.get("g");
        let ok_content = match &got {
            Ok(g) => *g == a || *g == b,
            Err(_) => false,
        };
        if !ok_content || ra.is_err() || rb.is_err() {
            bad += 1;
            println!(
                "round {r}: put a {:?}, put b {:?}; get {}",
                ra.as_ref().err().map(|e| e.to_string()),
                rb.as_ref().err().map(|e| e.to_string()),
                match &got {
                    Ok(g) if *g == a => "= a".to_string(),
                    Ok(g) if *g == b => "= b".to_string(),
                    Ok(g) => format!("WRONG BYTES ({} bytes, neither a nor b)", g.len()),
                    Err(e) => format!("error {e}"),
                }
            );
            if bad > 5 {
                break;
            }
        }
    }
    println!(
        "{bad} of {rounds} rounds with problems; files {:?}",
        store.list()
    );
    let _ = store.close();
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(|s| s.as_str()) {
        Some("child") => child(&args[1..]),
        Some("sweep") => sweep(&args[1..]),
        Some("race-put") => race_put(&args[1..]),
        _ => eprintln!("usage: see the file's header"),
    }
}
