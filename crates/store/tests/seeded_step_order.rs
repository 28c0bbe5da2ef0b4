//! `EXARAID_STEP_ORDER_SEED` (torture::STEP_ORDER_SEED_ENV, session 33, s33g): where a test
//! runs a plan's steps one at a time, a seed picks the interleaving of the per-OSS step lists,
//! so a sweep over seeds checks interleavings the per-OSS threads give rarely and never twice
//! alike (s32e: R30-1 lost a stripe in 104 of 300 raid6 seeds, 0 of 30 thread-order runs).
//!
//! Specification: the same seed gives the same block-write order in every run; two seeds give
//! two orders of a plan reaching several OSSs; each OSS's own block writes keep their order
//! (what its per-OSS thread would do), whatever the seed.
//!
//! Each run is a child process (the seed is read once per process): this binary's own
//! `child_process_helper_records_block_writes`, which writes a raid6 4+2 WCL file and prints
//! the OSS and element of every block write in the order they reached the backends.

mod common;
use common::*;
#[path = "common/hooked.rs"]
mod hooked;
use hooked::{open_wrapped, Hook};

use std::process::Command;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey};
use exaraid_store::OpenOptions;
use parking_lot::Mutex;

const CHILD_ENV: &str = "S33G_SEEDED_ORDER_CHILD";
const ORDER_LINE: &str = "BLOCK WRITES ";
/// Block writes of the child's scene at most (its writes reach a few dozen).
const BLOCK_WRITES_MAX: usize = 4096;

#[derive(Default)]
struct Recorder {
    writes: Mutex<Vec<(usize, String)>>,
}

impl Hook for Recorder {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let mut w = self.writes.lock();
        assert!(
            w.len() < BLOCK_WRITES_MAX,
            "the scene writes a bounded number of blocks"
        );
        w.push((oss, key.to_string()));
        Ok(())
    }
}

#[test]
fn child_process_helper_records_block_writes() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return; // run by the tests below only
    }
    // Without a seed, plan order: the baseline is the same order in every run.
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let code = CodeSpec::raid6(4);
    let (_top, store_dir, _) = init_wcl_without_timeout(code);
    let recorder = Arc::new(Recorder::default());
    let store = open_wrapped(&store_dir, &recorder, &[], OpenOptions::default()).unwrap();
    // Two stripes whole, then writes inside one element and across elements of the cache.
    store
        .put("f", &bytes_of(1, 0, 2 * 4 * UNIT as u64))
        .unwrap();
    store.write("f", 1000, &bytes_of(2, 1000, 3000)).unwrap();
    store.write("f", 6000, &bytes_of(3, 6000, 9000)).unwrap();
    store.flush().unwrap();
    let writes = recorder.writes.lock().clone();
    let line: Vec<String> = writes.iter().map(|(o, k)| format!("{o}:{k}")).collect();
    // On a line of its own: the test harness prints the test's name before its output.
    println!("\n{ORDER_LINE}{}", line.join(";"));
}

/// The block writes (OSS, element) of the child's scene run under `seed` (`None`: plan order).
fn block_writes_under(seed: Option<u64>) -> Vec<(usize, String)> {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "child_process_helper_records_block_writes",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ENV, "1")
    .env_remove(exaraid_store::torture::STEP_ORDER_SEED_ENV);
    if let Some(seed) = seed {
        cmd.env(
            exaraid_store::torture::STEP_ORDER_SEED_ENV,
            seed.to_string(),
        );
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once(ORDER_LINE).map(|(_, order)| order))
        .unwrap_or_else(|| panic!("the child printed no order: {stdout}"));
    let writes: Vec<(usize, String)> = line
        .split(';')
        .map(|w| {
            let (oss, key) = w.split_once(':').expect("oss:key");
            (oss.parse().unwrap(), key.to_string())
        })
        .collect();
    assert!(writes.len() > 8, "the scene writes blocks to several OSSs");
    writes
}

fn of_oss(writes: &[(usize, String)], oss: usize) -> Vec<String> {
    writes
        .iter()
        .filter(|(o, _)| *o == oss)
        .map(|(_, k)| k.clone())
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_block_write_order_in_every_run() {
    for seed in [3u64, 11] {
        let first = block_writes_under(Some(seed));
        assert_eq!(first, block_writes_under(Some(seed)), "seed {seed}");
    }
}

#[test]
fn two_seeds_give_two_block_write_orders_each_oss_keeping_its_own() {
    let plan_order = block_writes_under(None);
    let a = block_writes_under(Some(1));
    let b = block_writes_under(Some(2));
    assert_ne!(
        a, b,
        "two seeds, one order: the seed does not reach the step order"
    );
    assert_ne!(a, plan_order, "seed 1 ran the plan order");
    for oss in 0..columns(CodeSpec::raid6(4)) {
        let mine = of_oss(&plan_order, oss);
        assert_eq!(
            of_oss(&a, oss),
            mine,
            "seed 1 reordered OSS {oss}'s own writes"
        );
        assert_eq!(
            of_oss(&b, oss),
            mine,
            "seed 2 reordered OSS {oss}'s own writes"
        );
    }
}
