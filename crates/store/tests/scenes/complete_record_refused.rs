//! Session 20 lead of s20e: `complete_deferred` told the planner a plan's completion
//! (`on_complete`) before it journaled the `Complete` record. A full metadata disk refusing
//! that record failed the call after the planner had heard it, and the completions held back
//! behind it (a read in flight holds them back) were dropped, never heard.
//!
//! Scene (WCL, raid5 3+1, metadata on a small tmpfs): a read of another file is held in
//! flight while a write fills a whole stripe of `f` (its cache write and its destage are
//! durable, their completions held back); the journal is checkpointed empty and the
//! metadata disk filled, so the held-back `Complete` records need a block the disk does not
//! have; then the read ends. Before: the read failed for the bookkeeping, the destage's
//! completion was never heard, and its cache stripe stayed the planner's newest copy of the
//! home stripe, so after a later write of new bytes (with room again) and its destage,
//! `get f` returned the OLD bytes with success.
//!
//! Specification: a refused `Complete` is not a failure of the call (the plans are durable;
//! recovery takes a durable plan without its record as complete); the completions stay held
//! back, in order, and are heard (and journaled) by a later call with room; every read
//! returns the newest acknowledged bytes, in process and after a reopen.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_hooked, Hooks};

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// One stripe of raid5 3+1 with 4 KiB elements.
const STRIPE_BYTES: usize = 3 * UNIT;

#[test]
fn a_complete_record_refused_for_room_keeps_the_completions_and_reads_return_the_newest_bytes() {
    let tmp = scratch();
    let Some(meta) = Tmpfs::mount(&tmp.path().join("meta"), 1 << 20) else {
        eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    let dir = meta.0.join("s");
    let oss_dirs = (0..4).map(|i| tmp.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(oss_dirs, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(&dir, &opts).unwrap();
    // `r` home (not in the cache zone): its read can be held at its own object's reads.
    let r = pattern(9, STRIPE_BYTES);
    store.put("r", &r).unwrap();
    store.flush().unwrap();
    let r_id = store.file_id("r").unwrap();
    store.close().unwrap();

    let hooks = Arc::new(Hooks::default());
    let store = Arc::new(open_hooked(&dir, &hooks, &[]).unwrap());
    hooks.pause_reads_of(r_id);
    let read = {
        let store = store.clone();
        spawn(move || store.get("r"))
    };
    eventually("the read of r is in flight", || {
        hooks.reads_parked.load(Ordering::SeqCst) > 0
    });

    // A whole stripe: its cache write, then its destage, both durable; their completions
    // are held back behind the read.
    let old = pattern(1, STRIPE_BYTES);
    store.write("f", 0, &old).unwrap();
    // The held-back `Complete` records now need a new block of the full disk.
    store.checkpoint().unwrap();
    meta.fill();
    hooks.release_reads();
    let read = done_in_time(&read, "the read of r");

    meta.unfill();
    let new = pattern(2, STRIPE_BYTES);
    store.write("f", 0, &new).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == new,
        "f reads its newest acknowledged bytes (old bytes: {}, new: {})",
        got == old,
        got == new
    );
    let read =
        read.expect("a read whose bytes were served is not failed by a refused Complete record");
    assert!(read == r, "r reads exact");
    assert_consistent(&store);
    drop(
        Arc::try_unwrap(store)
            .ok()
            .expect("the read returned its handle")
            .close(),
    );

    let store = Store::open(&dir).unwrap();
    assert!(store.get("f").unwrap() == new, "f after a reopen");
    assert!(store.get("r").unwrap() == r, "r after a reopen");
    assert_consistent(&store);
}
