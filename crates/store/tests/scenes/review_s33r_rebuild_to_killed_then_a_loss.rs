//! Review s33r, item (3): `rebuild --to NEWDIR` of a failed OSS killed (kill -9 at a kill
//! point, in a child process), then, before the rebuild is redone, the NEW directory lost
//! (emptied) or another OSS lost, within the code's tolerance; the store opened and read,
//! then the rebuild redone onto a fresh directory and read again. A probe (ignored): it
//! prints what it found; LOSS within the tolerance or WRONG BYTES is a finding.
//!
//! Scene (WCL, 4 KiB unit): put `f` (two stripes), acknowledged writes 100+4096 and
//! 2 units + 100 (cached), a write `S33R_WRITE` (default 4000+200), `fail_oss(0)`, closed.
//! Kill points tried: `rebuild-begun`, `rebuild-element:n`, `settle-before-block:n`,
//! `rebuild-switched`, `rebuild-done` (every n until the rebuild ends first).
//! Knobs: `S33R_CODE` (default `rs:4:3`), `S33R_LOSE=new|I` (what is lost after the kill:
//! the new directory, default, or OSS I's disk).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_store::torture::{
    REBUILD_BEGUN, REBUILD_DONE, REBUILD_ELEMENT, REBUILD_SWITCHED, SETTLE_BEFORE_BLOCK,
};
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

const CHILD_DIR_ENV: &str = "EXARAID_TEST_S33R_REBUILD_TO_CHILD_DIR";
/// Passes of one kill point tried (the scene's rebuild writes a few elements).
const KILLS_PER_POINT_MAX: u64 = 48;

fn new_dir_of(store_dir: &Path) -> PathBuf {
    store_dir.parent().unwrap().join("new-0")
}

fn open_failing(dir: &Path, down: &[usize]) -> Result<Store, StoreError> {
    let options = OpenOptions {
        fsync: false,
        fail_down_osses_before_recovery: down.to_vec(),
        ..OpenOptions::default()
    };
    Store::open_with(dir, options)
}

/// The killed child: open the store at `$CHILD_DIR_ENV` and rebuild OSS 0 onto `new-0`
/// beside it, in a process set to kill itself at a kill point. Run on its own it does nothing.
#[test]
fn child_rebuild_to_new_dir() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let mut store = open_failing(&dir, &[]).unwrap();
    store.rebuild(0, Some(&new_dir_of(&dir))).unwrap();
}

fn empty_dir(d: &Path) {
    if d.exists() {
        std::fs::remove_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(d).unwrap();
}

#[test]
#[ignore = "probe: S33R_CODE=rs:4:3 S33R_LOSE=new|1"]
fn probe_rebuild_to_killed_then_a_loss() {
    let code = code_of_env("S33R_CODE", "rs:4:3");
    let lose = std::env::var("S33R_LOSE").unwrap_or_else(|_| "new".into());
    let write = cut_write_of_env("S33R_WRITE");
    let top = scratch();
    let before = top.path().join("before");
    std::fs::create_dir(&before).unwrap();
    let mut opts = exaraid_store::InitOptions::with_oss_count(&before, columns(code), code);
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    opts.window_timeout_ms = 3_600_000;
    let store = Store::init(&before, &opts).unwrap();
    let stripe_bytes = store.layout().stripe_data_bytes() as usize;
    let mut acked = put_f_with_two_acknowledged_writes(&store, stripe_bytes);
    let new = bytes_of(1000, write.start as u64, write.len() as u64);
    store.write("f", write.start as u64, &new).unwrap();
    acked[write.clone()].copy_from_slice(&new);
    store.fail_oss(0).unwrap();
    drop(store);
    let no_flight = vec![None; acked.len()];

    // Each case runs in `w/store` (the superblock names OSS directories relative to it, and
    // the new directory by its absolute path, the same in every case).
    let w = top.path().join("w");
    let dir = w.join("store");
    let (mut cases, mut lost_cases, mut wrong_cases, mut refused) = (0, 0, 0, 0);
    for point in [
        REBUILD_BEGUN,
        SETTLE_BEFORE_BLOCK,
        REBUILD_ELEMENT,
        REBUILD_SWITCHED,
        REBUILD_DONE,
    ] {
        for n in 1..=KILLS_PER_POINT_MAX {
            empty_dir(&w);
            copy_tree(&before, &dir);
            if !child_test_killed_at(
                concat!(module_path!(), "::child_rebuild_to_new_dir"),
                CHILD_DIR_ENV,
                &dir,
                point,
                n,
            ) {
                break;
            }
            cases += 1;
            let what = format!("{code:?} killed at {point}:{n}, then {lose} lost");
            let down: Vec<usize> = if lose == "new" {
                empty_dir(&new_dir_of(&dir));
                vec![0]
            } else {
                let i: usize = lose.parse().unwrap();
                lose_disk(&dir, i);
                vec![i]
            };
            let mut store = match open_failing(&dir, &down) {
                Ok(s) => s,
                Err(e) => {
                    refused += 1;
                    eprintln!("REFUSED {what}: open: {e}");
                    continue;
                }
            };
            let mut report =
                |when: &str, store: &Store| match check_reads(store, &acked, &no_flight) {
                    Err(e) => {
                        wrong_cases += 1;
                        eprintln!("WRONG {what}: {when}: {e}");
                    }
                    Ok((l, m)) if !l.is_empty() => {
                        lost_cases += 1;
                        eprintln!("LOST {what}: {when}: blocks at {l:?}: {m}");
                    }
                    Ok(_) => {}
                };
            report("at the open", &store);
            let again = w.join("new-0-again");
            match store.rebuild(0, Some(&again)) {
                Ok(()) => report("after the rebuild redone", &store),
                Err(e) => eprintln!("REBUILD-AGAIN-FAILED {what}: {e}"),
            }
        }
    }
    eprintln!(
        "S33R-REBUILD-TO {:?} lose {lose}: {cases} kills, lost {lost_cases}, wrong {wrong_cases}, open refused {refused}",
        code.kind
    );
    assert!(cases > 0);
}
