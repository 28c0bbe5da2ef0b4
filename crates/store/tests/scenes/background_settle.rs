//! A settle (`flush`, the settle before `rm`) resets the planner: every plan admitted before
//! it either ran before it or is dropped by it, never run after it. The background worker
//! (`Store::serve_background`) takes its plans from a queue that a settle drains; it must
//! never run one the settle has made obsolete (review H4: the worker popped a plan, a flush
//! or rm settled, then the worker ran the stale plan and died with "plan N is not in flight",
//! or waited forever for plans the reset had discarded while its stripe ticket blocked every
//! later writer).
//!
//! A race, so a workload rather than a single schedule: writers, a worker, a thread flushing
//! and a thread doing put/rm, all for a bounded number of operations. Liveness is bounded by
//! `done_in_time`; nothing asserts on timing.

use crate::common;
use common::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

const WRITERS: u64 = 4;
const WRITES_PER_WRITER: u64 = 30;
const REGION_BYTES: u64 = 48 * 1024;
const CHURN_OPS: u64 = 40;
const ROUNDS: u64 = 2;

fn write_of(seed: u64, writer: u64, i: u64) -> (u64, Vec<u8>) {
    let mut rng = Rng(seed ^ (writer * 1_000_003 + i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let len_bytes = 1 + rng.below(REGION_BYTES / 3);
    let offset_bytes = rng.below(REGION_BYTES - len_bytes);
    (
        writer * REGION_BYTES + offset_bytes,
        pattern(rng.next(), len_bytes as usize),
    )
}

fn churn_content(k: u64) -> Vec<u8> {
    pattern(77_000 + k, 1000 + (k as usize * 7919) % 60_000)
}

/// One round: every thread's errors, and the expected content of "f" (last write wins per
/// byte, each writer owns its region) and of "g" (the churn's last op).
fn round(seed: u64) {
    let dir = scratch();
    let store = Arc::new(init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Wcl));
    let stop = Arc::new(AtomicBool::new(false));

    let worker = {
        let (store, stop) = (store.clone(), stop.clone());
        spawn(move || store.serve_background(&stop))
    };
    // Else a write runs its background plans inline (no worker serves yet).
    eventually("the worker serves", || store.serving_background());
    let flusher = {
        let (store, stop) = (store.clone(), stop.clone());
        spawn(move || -> Result<u64, String> {
            let mut flushes = 0;
            while !stop.load(Ordering::SeqCst) {
                store.flush().map_err(|e| format!("flush {flushes}: {e}"))?;
                flushes += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok(flushes)
        })
    };
    let churn = {
        let store = store.clone();
        spawn(move || -> Result<(), String> {
            for k in 0..CHURN_OPS {
                let r = if k % 2 == 0 {
                    store.put("g", &churn_content(k))
                } else {
                    store.remove("g")
                };
                r.map_err(|e| format!("churn op {k}: {e}"))?;
            }
            Ok(())
        })
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let store = store.clone();
            spawn(move || -> Result<(), String> {
                for i in 0..WRITES_PER_WRITER {
                    let (offset_bytes, data) = write_of(seed, w, i);
                    store
                        .write("f", offset_bytes, &data)
                        .map_err(|e| format!("writer {w} write {i}: {e}"))?;
                }
                Ok(())
            })
        })
        .collect();

    // Every thread's outcome before any assertion: the first error poisons the store, and
    // the others then only report that.
    let mut errors: Vec<String> = Vec::new();
    for (w, rx) in writers.iter().enumerate() {
        errors.extend(done_in_time(rx, &format!("writer {w}")).err());
    }
    errors.extend(done_in_time(&churn, "put/rm churn").err());
    stop.store(true, Ordering::SeqCst);
    errors.extend(done_in_time(&flusher, "flushing thread").err());
    let served = done_in_time(&worker, "background worker");
    errors.extend(served.err().map(|e| format!("background worker: {e}")));
    assert!(errors.is_empty(), "round {seed}: {errors:#?}");

    let mut expected = vec![0u8; (WRITERS * REGION_BYTES) as usize];
    for w in 0..WRITERS {
        for i in 0..WRITES_PER_WRITER {
            let (offset_bytes, data) = write_of(seed, w, i);
            let at = offset_bytes as usize;
            expected[at..at + data.len()].copy_from_slice(&data);
        }
    }
    let stored = store.get("f").unwrap();
    assert_eq!(stored.len(), expected[..stored.len()].len());
    assert!(
        stored == expected[..stored.len()],
        "round {seed}: file f differs from its acknowledged writes"
    );
    // CHURN_OPS is even: the last op was a remove.
    assert!(store.get("g").is_err(), "g was removed last");
    assert_consistent(&store);
}

#[test]
fn a_settle_never_lets_the_worker_run_a_plan_made_before_it() {
    for seed in 0..ROUNDS {
        round(seed);
    }
}
