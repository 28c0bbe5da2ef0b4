//! Session 20 leftover (s20f item 2): `rebuild` of a failed OSS whose settle (cached bytes
//! go home first) meets a reservation EIO on another OSS: recording that one failed too
//! would be past the code's tolerance (raid5: one).
//!
//! Specification: the rebuild stops with an error naming the OSS whose disk failed and what
//! to do; nothing acknowledged is lost or read wrong (the OSS being rebuilt stays failed,
//! its bytes decode from the others); once the disk reserves again the rebuild runs and
//! every byte reads back exact, in process and after a reopen.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::BackendError;
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Reservations on OSS `oss` fail as a disk whose `fallocate` returns EIO, while armed.
#[derive(Default)]
struct ReserveEio {
    armed: AtomicBool,
    oss: AtomicUsize,
    failed: AtomicUsize,
}

impl Hook for ReserveEio {
    fn before_reserve(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) || oss != self.oss.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.failed.fetch_add(1, Ordering::SeqCst);
        Err(BackendError::Unavailable {
            oss: format!("oss-{oss}"),
            why: "injected: fallocate EIO".into(),
        })
    }
}

#[test]
fn a_rebuild_whose_settle_meets_a_reservation_eio_past_the_tolerance_stops_and_loses_nothing() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let mut opts = InitOptions::with_oss_count(&dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    Store::init(&dir, &opts).unwrap().close().unwrap();

    let hook = Arc::new(ReserveEio::default());
    let mut store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
    let mut want = pattern(1, 2 * 3 * UNIT);
    store.put("f", &want).unwrap();
    store.flush().unwrap();
    // Cached (an open cache stripe): the rebuild's settle moves it home.
    let over = pattern(2, 2000);
    store.write("f", 100, &over).unwrap();
    want[100..2100].copy_from_slice(&over);
    store.fail_oss(0).unwrap();

    let victim = 1;
    hook.oss.store(victim, Ordering::SeqCst);
    hook.armed.store(true, Ordering::SeqCst);
    let stopped = store.rebuild(0, None);
    hook.armed.store(false, Ordering::SeqCst);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "the scene: the rebuild reserved room on OSS {victim}"
    );
    let err = stopped.expect_err("past the tolerance the rebuild cannot go on");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("OSS {victim}")) && msg.contains("reserv"),
        "the error names the OSS whose disk failed the reservation: {msg}"
    );
    eprintln!("the rebuild's error: {msg}");
    let lost = store.status().map(|s| s.lost_ranges);
    assert!(
        lost.as_ref().map_or(true, |l| l.is_empty()),
        "nothing recorded lost: {lost:?}"
    );
    drop(store);

    // The disk reserves again: a reopen, then the rebuild runs.
    let mut store = Store::open(&dir).unwrap();
    assert!(
        store.get("f").unwrap() == want,
        "f reads exact before the rebuild"
    );
    store.rebuild(0, None).unwrap();
    assert!(
        store.get("f").unwrap() == want,
        "f reads exact after the rebuild"
    );
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.get("f").unwrap() == want, "f after a reopen");
}
