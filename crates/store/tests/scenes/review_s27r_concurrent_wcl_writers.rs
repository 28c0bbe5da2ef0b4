//! Review s27r R27-1: concurrent writer threads on a WCL store, with NO fault at all (no
//! crash, no rot, no failed disk), get writes refused naming acknowledged bytes LOST: "these
//! acknowledged bytes sat in a WCL cache stripe whose running parity disagrees with its data
//! (an OSS lost a write into its cache zone: a stale element) and the code could not locate
//! the stale column, so they were recorded lost". Found with scripts/repro/s22r-api-killmid.rs
//! (`s22r_killmid run DIR raid6 wcl 1 4 30 16384`, no kill armed). The existing
//! `concurrency.rs` test writes disjoint ranges with 4 KiB stripe units; here the threads
//! write overlapping ranges of one file (what the API allows: nothing says writers
//! must stay apart) with 16 KiB units, so writes share cache stripes and elements.
//!
//! Fixed in session 28 (s28a): a write's check of its cache stripe against its running
//! parity took that cache stripe's written bytes from the planner's lookup, which hides
//! bytes a write queued behind it rewrote into a newer cache stripe of the same home
//! stripe; the deterministic scene is `s28a_wcl_writer_check_beside_newer_cache_stripe.rs`.

use crate::common;
use common::scratch;

use std::sync::Mutex;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const UNIT_BYTES: usize = 16384;
const THREADS: u64 = 4;
const WRITES_PER_THREAD: u64 = 30;
/// Rounds of the whole workload (a race: each round is a fresh store, fixed seeds).
const ROUNDS_MAX: u64 = 6;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The byte write `id` puts at file offset `x`.
fn byte_of(id: u64, x: u64) -> u8 {
    splitmix64(id.wrapping_mul(1_000_003) ^ x) as u8
}

/// One round: a put, then THREADS threads each writing WRITES_PER_THREAD random (overlapping)
/// ranges of the file, then the whole file read back (each byte must be the put's or one of
/// the writes' covering it, which one depends on the race; zero in a hole), flushed, read
/// again and scrubbed. Returns what went wrong (nothing expected: no fault).
fn round(
    dir: &std::path::Path,
    spec: CodeSpec,
    oss: usize,
    seed: u64,
    disjoint: bool,
) -> Vec<String> {
    let mut opts = InitOptions::with_oss_count(dir, oss, spec);
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(dir, &opts).unwrap();
    let span_bytes = (UNIT_BYTES * 10) as u64;
    let put: Vec<u8> = (0..span_bytes / 2 + 777).map(|x| byte_of(7, x)).collect();
    store.put("f", &put).unwrap();
    let errors = Mutex::new(Vec::new());
    // Every write's (id, offset, length), to tell what each byte may hold after the race.
    let writes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (store, errors, writes) = (&store, &errors, &writes);
            s.spawn(move || {
                for i in 0..WRITES_PER_THREAD {
                    let id = 100 + t * 100_000 + i;
                    let h = splitmix64(seed ^ splitmix64(id));
                    let len_bytes = 1 + h % (UNIT_BYTES as u64 * 2 + 500);
                    let off = if disjoint {
                        // Thread t's own quarter of the span.
                        let quarter = span_bytes / THREADS;
                        t * quarter + splitmix64(h) % (quarter - len_bytes.min(quarter - 1))
                    } else {
                        splitmix64(h) % (span_bytes - len_bytes)
                    };
                    let len_bytes = if disjoint {
                        len_bytes.min((t + 1) * (span_bytes / THREADS) - off)
                    } else {
                        len_bytes
                    };
                    let data: Vec<u8> = (off..off + len_bytes).map(|x| byte_of(id, x)).collect();
                    writes.lock().unwrap().push((id, off, len_bytes));
                    if let Err(e) = store.write("f", off, &data) {
                        errors
                            .lock()
                            .unwrap()
                            .push(format!("write {id} {off}+{len_bytes}: {e}"));
                        return;
                    }
                }
            });
        }
    });
    let mut errors = errors.into_inner().unwrap();
    if !errors.is_empty() {
        return errors;
    }
    let writes = writes.into_inner().unwrap();
    let check = |when: &str| -> Option<String> {
        let got = match store.get("f") {
            Err(e) => return Some(format!("get {when}: {e}")),
            Ok(got) => got,
        };
        let wrong = (0..got.len() as u64).find(|&x| {
            let b = got[x as usize];
            let by_put = x < put.len() as u64 && b == put[x as usize];
            let mut covering = (writes.iter()).filter(|&&(_, off, len)| off <= x && x < off + len);
            let by_write = covering.clone().any(|&(id, _, _)| b == byte_of(id, x));
            // Past the put's end and under no write: a hole, read as zeros.
            let hole = x >= put.len() as u64 && covering.next().is_none() && b == 0;
            !by_put && !by_write && !hole
        });
        wrong.map(|x| {
            format!(
                "get {when}: WRONG BYTES: byte {x} is neither the put's nor any covering write's"
            )
        })
    };
    errors.extend(check("after the writes"));
    if let Err(e) = store.flush() {
        errors.push(format!("flush: {e}"));
    }
    errors.extend(check("after a flush"));
    match store.scrub(false) {
        Ok(r) if r.corrupt_elements.is_empty() && r.parity_mismatches.is_empty() => {}
        Ok(r) => errors.push(format!(
            "scrub: corrupt {:?}, parity mismatches {:?}",
            r.corrupt_elements, r.parity_mismatches
        )),
        Err(e) => errors.push(format!("scrub: {e}")),
    }
    errors
}

fn scenes(spec: CodeSpec, oss: usize, disjoint: bool) {
    let mut failures = Vec::new();
    for seed in 1..=ROUNDS_MAX {
        let dir = scratch();
        let errors = round(dir.path(), spec, oss, seed, disjoint);
        if !errors.is_empty() {
            failures.push(format!("seed {seed}: {}", errors.join(" | ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ROUNDS_MAX} rounds ({spec:?} over {oss} OSSs, WCL, unit {UNIT_BYTES}, {THREADS} \
         threads, disjoint {disjoint}, no fault): a write, read, flush or scrub failed: {}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn concurrent_wcl_writers_over_one_file_never_lose_acknowledged_bytes_without_a_fault() {
    scenes(CodeSpec::raid6(4), 6, false);
}

/// Control: the same workload with each thread in its own quarter of the span (quarters share
/// stripes and elements, not bytes) passes on 7a361a1.
#[test]
fn concurrent_wcl_writers_on_disjoint_ranges_never_lose_acknowledged_bytes_without_a_fault() {
    scenes(CodeSpec::raid6(4), 6, true);
}

#[test]
fn concurrent_wcl_writers_on_raid5_never_lose_acknowledged_bytes_without_a_fault() {
    scenes(CodeSpec::raid5(4), 5, false);
}
