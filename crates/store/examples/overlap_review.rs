//! Review tool (not CI; session 9 review s9r): many threads on one `Store` write OVERLAPPING
//! ranges of one file while other threads read it, open and end delayed windows on other
//! files, flush, scrub and call `fail_oss`; then every byte is checked against the log of
//! writes (begin / end sequence numbers of one process-wide counter).
//!
//! Usage (CARGO_TARGET_DIR/release/examples/overlap_review):
//!   overlap_review run DIR CODE OSS PATH [key=value ...]
//!     CODE: raid5 | raid6 | rs:M | <array code>:P; PATH: rmw | wcl | delayed
//!     keys: threads=6 writes=300 (per thread) file=65536 wmax=6000 unit=4096 seed=1
//!           readers=1 (threads reading f, each read checked)  flushloop=1  scrubloop=1
//!           bg=1 (serve_background)  windows=1 (delayed: a thread opens START/END windows on
//!           files w0..w3 and writes in them)  prefail=N (fail OSSs 0..N-1 before the run)
//!           failloop=I (a thread calls fail_oss(I) every ms: with prefail = tolerance it is
//!           refused each time, after taking the failure gate for writing)
//!           failat=I (fail OSS I once, failms ms into the run)  failms=200
//!           failatend=I (windows=1: fail OSS I once, the moment the window thread's
//!           endnth-th END begins, racing it: review s9r R9-2)  endnth=3
//!           kill=1 (the writers run in a child process, killed -9 after killms ms; the
//!           parent reopens and checks)  killms=300  hang=30 (s without progress = HANG: a
//!           gdb backtrace of every thread goes to DIR/hang-bt.txt, exit 3)
//!   exit 0 clean, 1 problems, 3 hang.
//!
//! Documented events are notes, not problems (they print, and the run stays clean): with an
//! OSS failed, a window write refused because its only copy would go to that OSS, a window
//! write or END that names bytes lost with it (`DataLost`), and lost ranges on record that
//! lie in a window file (w0..w3) on the failed OSS. Those ranges must read as `DataLost`;
//! every other byte of the file is checked as usual. Anything else (a lost range elsewhere,
//! an END that fails as a plan, a poisoned store) is a problem.
//!
//! What is checked, per byte x of a file (value v): the writers W covering x whose pattern has
//! v at x (or the initial put, write 0) are the candidates. None: WRONG (bytes no write wrote).
//! A candidate V is allowed only if no acknowledged write covering x began after V ended
//! (V unfinished or failed: never ended): none allowed = LOST ACKED (an older value is visible
//! although a later acknowledged write covers it). Where x has one candidate, every other
//! completed write covering x is ordered before it; a cycle among acknowledged writes = the
//! final bytes fit no order of whole writes (TORN). Reads are checked the same way against the
//! writes that ended before the read began.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, WritePath};

static SEQ: AtomicU64 = AtomicU64::new(1);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static PROGRESS: AtomicU64 = AtomicU64::new(0);
const UNENDED: u64 = u64::MAX;
const WINDOW_FILES: u64 = 4;

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Byte of write `id` at file offset `o` (independent per byte, so one byte rarely fits two
/// writes by chance, and a run of bytes never does).
fn byte_of(id: u64, o: u64) -> u8 {
    (mix(id.wrapping_mul(0x1_0000_0001) ^ o.wrapping_mul(0x9E37)) >> 29) as u8
}

fn data_of(id: u64, off: u64, len: u64) -> Vec<u8> {
    (off..off + len).map(|o| byte_of(id, o)).collect()
}

/// Whether `e` (a window write's or END's error) is a documented event of an OSS failed
/// inside a delayed window (see the module doc), not a problem.
fn documented_window_loss(e: &str) -> bool {
    let refused =
        e.contains("refused, nothing of it was written") && e.contains("would go to a failed OSS");
    let write_lost = e.contains("an OSS failed while it was written inside a delayed window");
    let end_lost = e.contains("ended, but not all of its bytes are protected");
    refused || write_lost || end_lost
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
    match CodeKind::from_name(name).unwrap() {
        CodeKind::Raid5 => CodeSpec::raid5(oss - 1),
        CodeKind::Raid6 => CodeSpec::raid6(oss - 2),
        CodeKind::Rs => CodeSpec::rs(oss - param.unwrap(), param.unwrap()),
        kind => CodeSpec::array(kind, param.unwrap()),
    }
}

#[derive(Clone, Debug)]
struct Op {
    id: u64,
    file: String,
    off: u64,
    len: u64,
    begin: u64,
    end: u64, // UNENDED: not acknowledged (failed, or in flight at the kill)
    ok: bool,
}

struct Log {
    file: Mutex<std::fs::File>,
    ops: Mutex<Vec<Op>>,
}

impl Log {
    fn line(&self, s: &str) {
        // Unbuffered write(2): survives a kill -9 of this process (page cache), no fsync.
        self.file.lock().unwrap().write_all(s.as_bytes()).unwrap();
    }
}

fn do_write(store: &Store, log: &Log, file: &str, off: u64, len: u64) -> Result<(), String> {
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
    let data = data_of(id, off, len);
    let begin = SEQ.fetch_add(1, Ordering::SeqCst);
    log.line(&format!("b {id} {begin} {file} {off} {len}\n"));
    let r = store.write(file, off, &data);
    let end = SEQ.fetch_add(1, Ordering::SeqCst);
    let ok = r.is_ok();
    log.line(&format!("e {id} {end} {}\n", if ok { "ok" } else { "err" }));
    log.ops.lock().unwrap().push(Op {
        id,
        file: file.to_string(),
        off,
        len,
        begin,
        end: if ok { end } else { UNENDED },
        ok,
    });
    PROGRESS.fetch_add(1, Ordering::SeqCst);
    r.map_err(|e| format!("write {file} {off}+{len}: {e}"))
}

struct Read {
    file: String,
    off: u64,
    begin: u64,
    end: u64,
    bytes: Vec<u8>,
}

fn parse_log(path: &Path) -> Vec<Op> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut ops: BTreeMap<u64, Op> = BTreeMap::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split(' ').collect();
        match w[0] {
            "b" if w.len() == 6 => {
                let id: u64 = w[1].parse().unwrap();
                ops.insert(
                    id,
                    Op {
                        id,
                        begin: w[2].parse().unwrap(),
                        file: w[3].to_string(),
                        off: w[4].parse().unwrap(),
                        len: w[5].parse().unwrap(),
                        end: UNENDED,
                        ok: false,
                    },
                );
            }
            "e" if w.len() == 4 => {
                let id: u64 = w[1].parse().unwrap();
                if let Some(op) = ops.get_mut(&id) {
                    if w[3] == "ok" {
                        op.end = w[2].parse().unwrap();
                        op.ok = true;
                    }
                }
            }
            _ => {} // a line cut by the kill
        }
    }
    ops.into_values().collect()
}

/// Checks `bytes` (file `file` from offset `at`) against the writes `ops`; `before` = only
/// writes acknowledged before this sequence number must be visible (a read), `visible_until`
/// = writes that began after it cannot be visible. Returns problem lines.
fn check_bytes(
    what: &str,
    file: &str,
    at: u64,
    bytes: &[u8],
    ops: &[Op],
    acked_before: u64,
    visible_until: u64,
    order: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let end_at = at + bytes.len() as u64;
    let mine: Vec<&Op> = ops
        .iter()
        .filter(|o| o.file == file && o.off < end_at && o.off + o.len > at)
        .filter(|o| o.id == 0 || o.begin < visible_until)
        .collect();
    let (mut wrong, mut lost) = (Vec::new(), Vec::new());
    let mut edges: HashSet<(u64, u64)> = HashSet::new();
    for (i, &v) in bytes.iter().enumerate() {
        let x = at + i as u64;
        let cover: Vec<&&Op> = mine
            .iter()
            .filter(|o| o.off <= x && x < o.off + o.len)
            .collect();
        let cands: Vec<&&Op> = cover
            .iter()
            .copied()
            .filter(|o| byte_of(o.id, x) == v)
            .collect();
        if cands.is_empty() {
            wrong.push(x);
            continue;
        }
        let allowed = cands.iter().any(|c| {
            !cover
                .iter()
                .any(|w| w.ok && w.end < acked_before && w.begin > c.end)
        });
        if !allowed {
            lost.push(x);
        }
        if order && cands.len() == 1 && cands[0].ok {
            for w in &cover {
                if w.id != cands[0].id && w.ok {
                    edges.insert((w.id, cands[0].id));
                }
            }
        }
    }
    let ranges = |xs: &[u64]| -> String {
        let mut out = Vec::new();
        let mut i = 0;
        while i < xs.len() && out.len() < 8 {
            let mut j = i;
            while j + 1 < xs.len() && xs[j + 1] == xs[j] + 1 {
                j += 1;
            }
            out.push(format!("{}..{}", xs[i], xs[j] + 1));
            i = j + 1;
        }
        out.join(",")
    };
    if !wrong.is_empty() {
        problems.push(format!(
            "{what}: WRONG BYTES: {} bytes of {file} no write wrote: {}",
            wrong.len(),
            ranges(&wrong)
        ));
    }
    if !lost.is_empty() {
        problems.push(format!(
            "{what}: LOST ACKED: {} bytes of {file} older than an acknowledged write: {}",
            lost.len(),
            ranges(&lost)
        ));
    }
    if order {
        // Kahn over the "before" edges: a cycle = no order of whole writes fits.
        let mut indeg: HashMap<u64, usize> = HashMap::new();
        let mut out: HashMap<u64, Vec<u64>> = HashMap::new();
        for &(a, b) in &edges {
            indeg.entry(a).or_insert(0);
            *indeg.entry(b).or_insert(0) += 1;
            out.entry(a).or_default().push(b);
        }
        let mut ready: Vec<u64> = indeg.iter().filter(|e| *e.1 == 0).map(|e| *e.0).collect();
        let mut seen = 0;
        while let Some(n) = ready.pop() {
            seen += 1;
            for &m in out.get(&n).map(|v| v.as_slice()).unwrap_or(&[]) {
                let d = indeg.get_mut(&m).unwrap();
                *d -= 1;
                if *d == 0 {
                    ready.push(m);
                }
            }
        }
        if seen < indeg.len() {
            let left: Vec<u64> = indeg.iter().filter(|e| *e.1 > 0).map(|e| *e.0).collect();
            problems.push(format!(
                "{what}: TORN: {file}: {} acknowledged writes fit no order (e.g. {:?})",
                left.len(),
                &left[..left.len().min(6)]
            ));
        }
    }
    problems
}

/// The lost ranges on record of file `name`, `(offset, end, oss)`, sorted.
fn lost_of(store: &Store, name: &str) -> Result<Vec<(u64, u64, usize)>, String> {
    let status = store.status().map_err(|e| format!("status: {e}"))?;
    let mut lost: Vec<(u64, u64, usize)> = status
        .lost_ranges
        .iter()
        .filter(|l| l.file == name)
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes, l.oss))
        .collect();
    lost.sort();
    Ok(lost)
}

/// A file with lost ranges on record: each must be a documented window loss (a window file,
/// the failed OSS) and read as `DataLost`; every other byte is checked against the writes.
fn check_around_lost(
    what: &str,
    store: &Store,
    ops: &[Op],
    (name, size): (&str, u64),
    lost: &[(u64, u64, usize)],
    failed: Option<usize>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut at = 0u64;
    for &(a, z, oss) in lost {
        if !name.starts_with('w') || Some(oss) != failed {
            problems.push(format!(
                "{what}: LOST: {name} bytes {a}..{z} (OSS {oss}) lost on record, not a window file's bytes on the failed OSS {failed:?}"
            ));
        } else {
            eprintln!("note: {what}: {name} bytes {a}..{z} lost on record (OSS {oss}, documented)");
        }
        match store.read(name, a, z - a) {
            Err(exaraid_store::StoreError::DataLost(_)) => {}
            other => problems.push(format!(
                "{what}: {name} bytes {a}..{z} are lost on record but read as {:?}",
                other.map(|b| b.len())
            )),
        }
        if at < a {
            match store.read(name, at, a - at) {
                Ok(bytes) => problems.extend(check_bytes(
                    what, name, at, &bytes, ops, UNENDED, UNENDED, true,
                )),
                Err(e) => problems.push(format!("{what}: read {name} {at}..{a}: {e}")),
            }
        }
        at = at.max(z);
    }
    if at < size {
        match store.read(name, at, size - at) {
            Ok(bytes) => problems.extend(check_bytes(
                what, name, at, &bytes, ops, UNENDED, UNENDED, true,
            )),
            Err(e) => problems.push(format!("{what}: read {name} {at}..{size}: {e}")),
        }
    }
    problems
}

fn check_store(
    what: &str,
    store: &Store,
    ops: &[Op],
    files: &[(String, u64)],
    failed: Option<usize>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, size) in files {
        match lost_of(store, name) {
            Ok(lost) if lost.is_empty() => {}
            Ok(lost) => {
                problems.extend(check_around_lost(
                    what,
                    store,
                    ops,
                    (name, *size),
                    &lost,
                    failed,
                ));
                continue;
            }
            Err(e) => problems.push(format!("{what}: {e}")),
        }
        match store.get(name) {
            Ok(mut bytes) => {
                // Self-test of the checker: OR_SELFTEST=1 changes one byte, OR_SELFTEST=2 drops
                // the newest acknowledged write's bytes (puts the initial ones back): the
                // check must then report WRONG / LOST ACKED.
                match std::env::var("OR_SELFTEST").as_deref() {
                    Ok("1") if !bytes.is_empty() => bytes[0] ^= 0x5a,
                    Ok("2") => {
                        if let Some(w) = ops
                            .iter()
                            .filter(|o| &o.file == name && o.ok && o.id != 0)
                            .max_by_key(|o| o.end)
                        {
                            for x in w.off..w.off + w.len {
                                bytes[x as usize] = byte_of(0, x);
                            }
                        }
                    }
                    _ => {}
                }
                if bytes.len() as u64 != *size {
                    problems.push(format!(
                        "{what}: SIZE: {name} is {} bytes, expected {size}",
                        bytes.len()
                    ));
                }
                let n = bytes.len().min(*size as usize);
                problems.extend(check_bytes(
                    what,
                    name,
                    0,
                    &bytes[..n],
                    ops,
                    UNENDED,
                    UNENDED,
                    true,
                ));
            }
            Err(e) => problems.push(format!("{what}: get {name}: {e}")),
        }
    }
    problems
}

struct Run {
    dir: PathBuf,
    args: Vec<String>,
}

fn initial_ops(file_bytes: u64, windows: bool) -> (Vec<Op>, Vec<(String, u64)>) {
    let mut files = vec![("f".to_string(), file_bytes)];
    if windows {
        for k in 0..WINDOW_FILES {
            files.push((format!("w{k}"), 16384));
        }
    }
    let ops = files
        .iter()
        .map(|(name, size)| Op {
            id: 0,
            file: name.clone(),
            off: 0,
            len: *size,
            begin: 0,
            end: 0,
            ok: true,
        })
        .collect();
    (ops, files)
}

/// The workload: returns (ops, reads, errors). Runs until every writer did its writes.
fn workload(store: Arc<Store>, r: &Run) -> (Vec<Op>, Vec<Read>, Vec<String>) {
    let a = &r.args;
    let threads = kvn(a, "threads", 6);
    let writes = kvn(a, "writes", 300);
    let file_bytes = kvn(a, "file", 65536);
    let wmax = kvn(a, "wmax", 6000);
    let seed = kvn(a, "seed", 1);
    let log = Arc::new(Log {
        file: Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(r.dir.join("log"))
                .unwrap(),
        ),
        ops: Mutex::new(Vec::new()),
    });
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let reads = Arc::new(Mutex::new(Vec::<Read>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut helpers = Vec::new();
    if kvn(a, "bg", 0) == 1 {
        let (s, st, er) = (store.clone(), stop.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            if let Err(e) = s.serve_background(&st) {
                er.lock().unwrap().push(format!("serve_background: {e}"));
            }
        }));
    }
    if let Some(oss) = kv(a, "failloop") {
        let oss: usize = oss.parse().unwrap();
        let (s, st, er) = (store.clone(), stop.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            let mut refused = 0u64;
            while !st.load(Ordering::SeqCst) {
                match s.fail_oss(oss) {
                    Ok(()) => er.lock().unwrap().push(format!("fail_oss({oss}) Ok")),
                    Err(_) => refused += 1,
                }
                std::thread::sleep(Duration::from_micros(kvn_static("failsleep", 300)));
            }
            eprintln!("failloop: {refused} refused");
        }));
    }
    if let Some(oss) = kv(a, "failat") {
        let oss: usize = oss.parse().unwrap();
        let ms = kvn(a, "failms", 200);
        let (s, er) = (store.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(ms));
            let r = s.fail_oss(oss);
            er.lock()
                .unwrap()
                .push(format!("note: failat fail_oss({oss}): {r:?}"));
        }));
    }
    if kvn(a, "flushloop", 0) == 1 {
        let (s, st, er) = (store.clone(), stop.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                if let Err(e) = s.flush() {
                    er.lock().unwrap().push(format!("flush: {e}"));
                }
                std::thread::sleep(Duration::from_millis(3));
            }
        }));
    }
    if kvn(a, "scrubloop", 0) == 1 {
        let (s, st, er) = (store.clone(), stop.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match s.scrub(false) {
                    Ok(rep) => {
                        if !rep.corrupt_elements.is_empty()
                            || !rep.parity_mismatches.is_empty()
                            || !rep.corrupt_cache_elements.is_empty()
                        {
                            er.lock().unwrap().push(format!(
                                "scrub during writes: corrupt {} mismatches {:?} cache {}",
                                rep.corrupt_elements.len(),
                                rep.parity_mismatches,
                                rep.corrupt_cache_elements.len()
                            ));
                        }
                    }
                    Err(e) => er.lock().unwrap().push(format!("scrub: {e}")),
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }));
    }
    for t in 0..kvn(a, "readers", 1) {
        let (s, st, rd) = (store.clone(), stop.clone(), reads.clone());
        helpers.push(std::thread::spawn(move || {
            let mut x = mix(seed ^ 0x5eed ^ t);
            let mut n = 0;
            while !st.load(Ordering::SeqCst) && n < 3000 {
                x = mix(x);
                let off = x % file_bytes;
                let len = 1 + mix(x ^ 3) % (file_bytes - off).min(wmax);
                let begin = SEQ.fetch_add(1, Ordering::SeqCst);
                let got = s.read("f", off, len);
                let end = SEQ.fetch_add(1, Ordering::SeqCst);
                if let Ok(bytes) = got {
                    rd.lock().unwrap().push(Read {
                        file: "f".into(),
                        off,
                        begin,
                        end,
                        bytes,
                    });
                }
                n += 1;
            }
        }));
    }
    // ENDs the window thread began: `failatend` fails its OSS the moment one begins.
    let ends = Arc::new(AtomicU64::new(0));
    if let Some(oss) = kv(a, "failatend") {
        let oss: usize = oss.parse().unwrap();
        let nth = kvn(a, "endnth", 3);
        let (s, st, er, ends) = (store.clone(), stop.clone(), errors.clone(), ends.clone());
        helpers.push(std::thread::spawn(move || {
            while ends.load(Ordering::SeqCst) < nth && !st.load(Ordering::SeqCst) {
                // A short sleep, not a spin: the machine's cores are shared.
                std::thread::sleep(Duration::from_micros(50));
            }
            let r = s.fail_oss(oss);
            er.lock()
                .unwrap()
                .push(format!("note: failatend fail_oss({oss}): {r:?}"));
        }));
    }
    if kvn(a, "windows", 0) == 1 {
        let ends = ends.clone();
        let (s, st, lg, er) = (store.clone(), stop.clone(), log.clone(), errors.clone());
        helpers.push(std::thread::spawn(move || {
            let mut x = mix(seed ^ 0x3173);
            let mut k = 0u64;
            while !st.load(Ordering::SeqCst) {
                let name = format!("w{}", k % WINDOW_FILES);
                k += 1;
                let token = match s.delayed_start(&name) {
                    Ok(tk) => tk,
                    Err(e) => {
                        er.lock().unwrap().push(format!("start {name}: {e}"));
                        return;
                    }
                };
                for _ in 0..1 + k % 3 {
                    x = mix(x);
                    let off = x % 16000;
                    let len = 1 + mix(x ^ 9) % (16384 - off).min(5000);
                    if let Err(e) = do_write(&s, &lg, &name, off, len) {
                        if documented_window_loss(&e) {
                            er.lock().unwrap().push(format!("note: {e}"));
                            continue;
                        }
                        er.lock().unwrap().push(e);
                        return;
                    }
                }
                ends.fetch_add(1, Ordering::SeqCst);
                if let Err(e) = s.delayed_end(&token) {
                    let e = format!("end {name}: {e}");
                    if documented_window_loss(&e) {
                        er.lock().unwrap().push(format!("note: {e}"));
                        continue;
                    }
                    er.lock().unwrap().push(e);
                    return;
                }
            }
        }));
    }
    // Watchdog: no write, read or fail for `hang` seconds while writers run = HANG.
    let hang_s = kvn(a, "hang", 30);
    {
        let (st, dir) = (stop.clone(), r.dir.clone());
        std::thread::spawn(move || {
            let mut last = (PROGRESS.load(Ordering::SeqCst), Instant::now());
            loop {
                std::thread::sleep(Duration::from_millis(500));
                if st.load(Ordering::SeqCst) {
                    return;
                }
                let p = PROGRESS.load(Ordering::SeqCst);
                if p != last.0 {
                    last = (p, Instant::now());
                } else if last.1.elapsed() > Duration::from_secs(hang_s) {
                    let pid = std::process::id();
                    // gdb's output straight into a file: a pipe read by this (stopped)
                    // process would fill and hang gdb with it.
                    let bt = std::fs::File::create(dir.join("hang-bt.txt")).unwrap();
                    let _ = std::process::Command::new("gdb")
                        .args([
                            "-p",
                            &pid.to_string(),
                            "-batch",
                            "-ex",
                            "thread apply all bt 20",
                        ])
                        .stdout(bt)
                        .stderr(std::process::Stdio::null())
                        .status();
                    eprintln!(
                        "HANG: no progress for {hang_s} s (backtraces in {dir:?}/hang-bt.txt)"
                    );
                    std::process::exit(3);
                }
            }
        });
    }
    let mut writers = Vec::new();
    for t in 0..threads {
        let (s, lg, er) = (store.clone(), log.clone(), errors.clone());
        writers.push(std::thread::spawn(move || {
            let mut x = mix(seed ^ (t + 1) * 0x1234_5678);
            for _ in 0..writes {
                x = mix(x);
                // Offsets drawn from a few hot spots so that writes overlap a lot.
                let hot = (x % 4) * (file_bytes / 4);
                let off = (hot + mix(x ^ 1) % (file_bytes / 4)).min(file_bytes - 1);
                let len = 1 + mix(x ^ 2) % (file_bytes - off).min(wmax);
                if let Err(e) = do_write(&s, &lg, "f", off, len) {
                    er.lock().unwrap().push(e);
                    return;
                }
            }
        }));
    }
    for w in writers {
        let _ = w.join();
    }
    stop.store(true, Ordering::SeqCst);
    for h in helpers {
        let _ = h.join();
    }
    let ops = std::mem::take(&mut *log.ops.lock().unwrap());
    let reads = std::mem::take(&mut *reads.lock().unwrap());
    let errors = errors.lock().unwrap().clone();
    (ops, reads, errors)
}

fn init_store(r: &Run) -> (Vec<Op>, Vec<(String, u64)>) {
    let a = &r.args;
    let (code, oss, path) = (&a[0], a[1].parse::<usize>().unwrap(), &a[2]);
    let sdir = r.dir.join("store");
    let _ = std::fs::remove_dir_all(&r.dir);
    std::fs::create_dir_all(&r.dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&sdir, oss, code_spec(code, oss));
    opts.element_bytes = kvn(a, "unit", 4096) as usize;
    opts.write_path = match path.as_str() {
        "rmw" => WritePath::Rmw,
        "wcl" => WritePath::Wcl,
        "delayed" => WritePath::Delayed,
        p => panic!("path {p}"),
    };
    let store = Store::init(&sdir, &opts).unwrap();
    let windows = kvn(a, "windows", 0) == 1;
    let (ops, files) = initial_ops(kvn(a, "file", 65536), windows);
    for (name, size) in &files {
        store.put(name, &data_of(0, 0, *size)).unwrap();
    }
    for i in 0..kvn(a, "prefail", 0) as usize {
        store.fail_oss(i).unwrap();
    }
    store.close().unwrap();
    (ops, files)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args[0].as_str();
    let r = Run {
        dir: PathBuf::from(&args[1]),
        args: args[2..].to_vec(),
    };
    match mode {
        "run" => {
            let (mut ops, files) = init_store(&r);
            let mut problems = Vec::new();
            // The OSS the run fails (where window bytes may be lost, documented).
            let failed: Option<usize> = kv(&r.args, "failat")
                .or_else(|| kv(&r.args, "failatend"))
                .map(|v| v.parse().unwrap());
            if kvn(&r.args, "kill", 0) == 1 {
                let exe = std::env::current_exe().unwrap();
                let mut child = std::process::Command::new(exe)
                    .arg("child")
                    .args(&args[1..])
                    .spawn()
                    .unwrap();
                let ms = kvn(&r.args, "killms", 300);
                std::thread::sleep(Duration::from_millis(ms));
                let finished = child.try_wait().unwrap();
                let _ = child.kill();
                let status = child.wait().unwrap();
                eprintln!(
                    "child {status} (finished before the kill: {})",
                    finished.is_some()
                );
                if let Some(st) = finished {
                    if st.code() == Some(3) {
                        std::process::exit(3);
                    }
                }
                ops.extend(parse_log(&r.dir.join("log")));
            } else {
                let store = Arc::new(Store::open(&r.dir.join("store")).unwrap());
                let (wops, reads, errors) = workload(store.clone(), &r);
                // Window-write notes come by the dozen once an OSS failed: the first few
                // shown, the rest counted.
                const WRITE_NOTES_SHOWN: usize = 3;
                let mut write_notes = 0usize;
                for e in &errors {
                    if !e.starts_with("note:") {
                        problems.push(format!("error during run: {e}"));
                    } else if e.starts_with("note: write") {
                        write_notes += 1;
                        if write_notes <= WRITE_NOTES_SHOWN {
                            eprintln!("{e}");
                        }
                    } else {
                        eprintln!("{e}");
                    }
                }
                if write_notes > WRITE_NOTES_SHOWN {
                    eprintln!(
                        "note: {} more documented window-write notes",
                        write_notes - WRITE_NOTES_SHOWN
                    );
                }
                ops.extend(wops);
                let mut torn_reads = 0;
                for rd in &reads {
                    let p = check_bytes(
                        &format!("read {}+{}", rd.off, rd.bytes.len()),
                        &rd.file,
                        rd.off,
                        &rd.bytes,
                        &ops,
                        rd.begin,
                        rd.end,
                        false,
                    );
                    torn_reads += !p.is_empty() as usize;
                    problems.extend(p.into_iter().take(3));
                }
                eprintln!(
                    "{} writes ({} failed), {} reads checked ({} bad)",
                    ops.len() - files.len(),
                    ops.iter().filter(|o| !o.ok).count(),
                    reads.len(),
                    torn_reads
                );
                problems.extend(check_store("live", &store, &ops, &files, failed));
                match Arc::try_unwrap(store) {
                    Ok(s) => s.close().unwrap(),
                    Err(_) => panic!("store still shared"),
                }
            }
            // Reopen (recovery after a kill) and check every byte, then scrub.
            match Store::open(&r.dir.join("store")) {
                Ok(store) => {
                    problems.extend(check_store("reopened", &store, &ops, &files, failed));
                    match store.scrub(false) {
                        Ok(rep) => {
                            if !rep.corrupt_elements.is_empty()
                                || !rep.parity_mismatches.is_empty()
                                || !rep.corrupt_cache_elements.is_empty()
                            {
                                problems.push(format!(
                                    "scrub after: corrupt {} mismatches {:?} cache {}",
                                    rep.corrupt_elements.len(),
                                    rep.parity_mismatches,
                                    rep.corrupt_cache_elements.len()
                                ));
                            }
                        }
                        Err(e) => problems.push(format!("scrub after: {e}")),
                    }
                    if let Err(e) = store.close() {
                        problems.push(format!("close: {e}"));
                    }
                }
                Err(e) => problems.push(format!("reopen: {e}")),
            }
            let n = ops.iter().filter(|o| o.id != 0).count();
            for p in &problems {
                println!("{p}");
            }
            println!(
                "{} writes logged ({} acknowledged): {}",
                n,
                ops.iter().filter(|o| o.id != 0 && o.ok).count(),
                if problems.is_empty() {
                    "CLEAN"
                } else {
                    "PROBLEMS"
                }
            );
            std::process::exit(if problems.is_empty() { 0 } else { 1 });
        }
        "child" => {
            let store = Arc::new(Store::open(&r.dir.join("store")).unwrap());
            let (_ops, _reads, errors) = workload(store, &r);
            for e in errors {
                eprintln!("child: {e}");
            }
            std::process::exit(0);
        }
        m => panic!("mode {m}"),
    }
}

/// A key from the command line where the args are not at hand (a helper thread's loop).
fn kvn_static(key: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    kvn(&args, key, default)
}
