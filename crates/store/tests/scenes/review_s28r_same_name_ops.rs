//! Review s28r probe: API threads of one `Store` run `put`, `rm`, `write`, `get`, delayed
//! windows and `scrub` on ONE name at once (no crash, no rot, no failed disk). Every byte a
//! read returns must be one some operation put at that offset (each 8-byte word carries its
//! operation's id and a splitmix tag of its file offset, so a word from elsewhere, a decode
//! through a wrong column or a half-deleted object's zeros inside a word cannot pass), the
//! store must stay consistent (scrub clean after the threads end) and a reopen must read
//! what the last read before the close read.

use crate::common;
use common::*;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const NAME: &str = "g";
const WORD_BYTES: usize = 8;
/// Largest put or write, in words: a few stripes of 4 KiB elements.
const OP_WORDS_MAX: u64 = 6 * 1024;
const OFFSET_WORDS_MAX: u64 = 8 * 1024;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn word(op_id: u64, word_index: u64) -> u64 {
    assert!(op_id > 0 && op_id < 1 << 32);
    (op_id << 32) | (splitmix64(op_id << 40 ^ word_index) & 0xFFFF_FFFF)
}

fn bytes_of(op_id: u64, offset_words: u64, words: u64) -> Vec<u8> {
    (offset_words..offset_words + words)
        .flat_map(|i| word(op_id, i).to_le_bytes())
        .collect()
}

/// The first word of `got` no operation put at its offset, with its offset in bytes. A
/// zero word is a hole (a write past the end, or a file's tail after a shorter put).
fn foreign_word(got: &[u8]) -> Option<(usize, u64)> {
    for (i, chunk) in got.chunks(WORD_BYTES).enumerate() {
        if chunk.len() < WORD_BYTES {
            return Some((i * WORD_BYTES, 0));
        }
        let w = u64::from_le_bytes(chunk.try_into().unwrap());
        if w == 0 {
            continue;
        }
        let id = w >> 32;
        if id == 0 || id >= 1 << 32 || word(id, i as u64) != w {
            return Some((i * WORD_BYTES, w));
        }
    }
    None
}

fn absent(e: &exaraid_store::StoreError) -> bool {
    let m = e.to_string();
    m.contains("no file") || m.contains("not found") || m.contains("does not exist")
}

/// An error a thread may meet by design while another thread works on the name.
fn by_design(e: &exaraid_store::StoreError) -> bool {
    let m = e.to_string();
    absent(e)
        || m.contains("open delayed window")
        || m.contains("window")
        || m.contains("was removed (`rm`, or replaced by a `put`) while this write waited")
}

/// Probe switch: the scrubbing thread repairs (`scrub --repair`) what it finds.
fn repair_beside_writers() -> bool {
    std::env::var("S28R_REPAIR").is_ok_and(|v| v == "1")
}

fn run_round(code: CodeSpec, oss: usize, path: WritePath, seed: u64, ops_per_thread: u64) {
    let dir = scratch();
    let store = init(dir.path(), code, oss, path);
    let next_id = AtomicU64::new(1);
    let problems: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let note = |s: String| problems.lock().unwrap().push(s);
    let threads = if path == WritePath::Delayed { 6 } else { 5 };
    std::thread::scope(|s| {
        for t in 0..threads {
            let store = &store;
            let next_id = &next_id;
            let note = &note;
            s.spawn(move || {
                let mut rng = Rng(splitmix64(seed ^ (t as u64 + 1) * 0x1234_5678_9ABC) | 1);
                for _ in 0..ops_per_thread {
                    let id = next_id.fetch_add(1, Ordering::Relaxed);
                    let words = 1 + rng.below(OP_WORDS_MAX);
                    let off = rng.below(OFFSET_WORDS_MAX);
                    let r = match t {
                        0 => store
                            .put(NAME, &bytes_of(id, 0, words))
                            .map(|_| ())
                            .map_err(|e| ("put", e)),
                        1 => store.remove(NAME).map_err(|e| ("rm", e)),
                        2 => store
                            .write(NAME, off * 8, &bytes_of(id, off, words))
                            .map_err(|e| ("write", e)),
                        3 => match store.get(NAME) {
                            Ok(got) => {
                                if let Some((at, w)) = foreign_word(&got) {
                                    note(format!(
                                        "seed {seed}: get of {} bytes: word at byte {at} is {w:#x}, no operation put it there",
                                        got.len()
                                    ));
                                }
                                Ok(())
                            }
                            Err(e) => Err(("get", e)),
                        },
                        4 => match store.scrub(repair_beside_writers()) {
                            Ok(r) => {
                                if !r.corrupt_elements.is_empty()
                                    || !r.parity_mismatches.is_empty()
                                    || !r.unreadable_elements.is_empty()
                                {
                                    note(format!(
                                        "seed {seed}: scrub beside the writers reported corrupt {:?} mismatches {:?} unreadable {:?}",
                                        r.corrupt_elements, r.parity_mismatches, r.unreadable_elements
                                    ));
                                }
                                Ok(())
                            }
                            Err(e) => Err(("scrub", e)),
                        },
                        _ => match store.delayed_window(NAME) {
                            Ok(w) => {
                                let a = store
                                    .write(NAME, off * 8, &bytes_of(id, off, words))
                                    .map_err(|e| ("window write", e));
                                let b = w.end().map_err(|e| ("end", e));
                                a.and(b)
                            }
                            Err(e) => Err(("start", e)),
                        },
                    };
                    if let Err((what, e)) = r {
                        if !by_design(&e) {
                            note(format!("seed {seed}: thread {t} {what}: {e}"));
                        }
                    }
                }
            });
        }
    });
    let before = match store.get(NAME) {
        Ok(got) => {
            if let Some((at, w)) = foreign_word(&got) {
                note(format!(
                    "seed {seed}: final get: word at byte {at} is {w:#x}"
                ));
            }
            Some(got)
        }
        Err(e) if absent(&e) => None,
        Err(e) => {
            note(format!("seed {seed}: final get: {e}"));
            None
        }
    };
    match store.scrub(false) {
        Ok(r) => {
            if !r.corrupt_elements.is_empty() || !r.parity_mismatches.is_empty() {
                note(format!(
                    "seed {seed}: scrub after the threads: corrupt {:?} mismatches {:?}",
                    r.corrupt_elements, r.parity_mismatches
                ));
            }
        }
        Err(e) => note(format!("seed {seed}: scrub after the threads: {e}")),
    }
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let after = store.get(NAME).ok();
    if after != before {
        note(format!(
            "seed {seed}: reopen read {:?} bytes, the read before the close {:?}",
            after.as_ref().map(|v| v.len()),
            before.as_ref().map(|v| v.len())
        ));
    }
    let p = problems.into_inner().unwrap();
    assert!(
        p.is_empty(),
        "{code:?} {path:?}: {} problems:\n{}",
        p.len(),
        p.join("\n")
    );
}

#[test]
#[ignore = "probe (threads; run by hand): clean in review s28r but for one scrub report, see docs/reviews/session28-r.md"]
fn put_rm_write_get_and_scrub_of_one_name_at_once_read_only_bytes_someone_put_rmw() {
    for seed in 1..=3 {
        run_round(CodeSpec::raid6(4), 6, WritePath::Rmw, seed, 25);
    }
}

#[test]
#[ignore = "probe (threads; run by hand): clean in review s28r but for one scrub report, see docs/reviews/session28-r.md"]
fn put_rm_write_get_and_scrub_of_one_name_at_once_read_only_bytes_someone_put_wcl() {
    for seed in 1..=3 {
        run_round(CodeSpec::raid6(4), 6, WritePath::Wcl, seed, 25);
    }
}

#[test]
#[ignore = "probe (threads; run by hand): clean in review s28r but for one scrub report, see docs/reviews/session28-r.md"]
fn put_rm_write_get_windows_and_scrub_of_one_name_at_once_read_only_bytes_someone_put_delayed() {
    for seed in 1..=3 {
        run_round(CodeSpec::raid6(4), 6, WritePath::Delayed, seed, 25);
    }
}

/// Probe: S28R_SEEDS rounds of S28R_OPS operations per thread on every code and path.
#[test]
#[ignore = "probe: long; run by hand"]
fn probe_every_code_and_path() {
    use exaraid_codes::CodeKind;
    let seeds: u64 = std::env::var("S28R_SEEDS").map_or(4, |s| s.parse().unwrap());
    let ops: u64 = std::env::var("S28R_OPS").map_or(100, |s| s.parse().unwrap());
    let only = std::env::var("S28R_ONLY").ok();
    let codes = [
        (CodeSpec::raid5(4), 5),
        (CodeSpec::raid6(4), 6),
        (CodeSpec::rs(4, 2), 6),
        (CodeSpec::array(CodeKind::Hdp, 5), 4),
        (CodeSpec::array(CodeKind::Xcode, 5), 5),
        (CodeSpec::array(CodeKind::Dcode, 5), 5),
        (CodeSpec::array(CodeKind::Evenodd, 5), 7),
    ];
    for (code, oss) in codes {
        for path in [WritePath::Rmw, WritePath::Wcl, WritePath::Delayed] {
            if only
                .as_ref()
                .is_some_and(|o| !format!("{code:?} {path:?}").contains(o.as_str()))
            {
                continue;
            }
            for seed in 1..=seeds {
                let r = std::panic::catch_unwind(|| run_round(code, oss, path, seed, ops));
                if let Err(e) = r {
                    let m = e
                        .downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_else(|| "?".into());
                    println!("PROBLEM {}", &m[..m.len().min(1500)]);
                }
            }
        }
    }
}
