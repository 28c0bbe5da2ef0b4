//! Review s19r minor (session19-r.md): a `scrub(true)` running beside a write that failed
//! half way (its data written, its parity write refused) went on into the stripe the write
//! tore and reported it `unrepairable`, its bytes "lost" ("no single column explains it"),
//! while nothing recorded them lost; the reopen's recovery then gave them back. A store
//! whose plan failed half way refuses every later call ("reopen the store"): a scrub that
//! was already running must stop the same way at its next stripe, naming nothing lost
//! that no record holds.
//!
//! Scene: raid5 3+1, 4 KiB unit, rmw. Files `a` (scanned first) and `b`. The scrub parks
//! on its read of `a`; meanwhile a write into `b` writes its data and has its parity write
//! refused (an I/O error: the plan fails half way, the store is poisoned); then the scrub
//! goes on.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook, Hooks};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{Store, StoreError, WritePath};
use parking_lot::Mutex;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// `Hooks` (parks reads of one object) and a refusal of parity writes of one object.
#[derive(Default)]
struct ScrubHook {
    hooks: Hooks,
    refuse_parity_of: Mutex<Option<u64>>,
}

impl Hook for ScrubHook {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        self.hooks.before_read(key)
    }
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Parity && *self.refuse_parity_of.lock() == Some(key.object) {
            return Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the parity write of this plan fails".into(),
            });
        }
        Ok(())
    }
}

#[test]
fn a_scrub_running_when_a_write_fails_half_way_refuses_instead_of_naming_its_stripe_lost() {
    let dir = tempfile::tempdir().unwrap();
    let a = pattern(1, 3 * UNIT);
    let b_old = pattern(2, 3 * UNIT);
    {
        let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
        store.put("a", &a).unwrap();
        store.put("b", &b_old).unwrap();
        store.close().unwrap();
    }
    let hook = Arc::new(ScrubHook::default());
    let store = open_wrapped(dir.path(), &hook, &[], Default::default()).unwrap();
    let a_id = store.file_id("a").unwrap();
    let b_id = store.file_id("b").unwrap();
    let b_new = pattern(3, 100);
    let scrubbed = std::thread::scope(|s| {
        hook.hooks.pause_reads_of(a_id);
        let scrub = s.spawn(|| store.scrub(true));
        eventually("the scrub parks on its read of 'a'", || {
            hook.hooks.reads_parked.load(Ordering::SeqCst) > 0
        });
        *hook.refuse_parity_of.lock() = Some(b_id);
        let write = store.write("b", 0, &b_new);
        assert!(
            write.is_err(),
            "the write whose parity write fails is refused: {write:?}"
        );
        *hook.refuse_parity_of.lock() = None;
        hook.hooks.release_reads();
        scrub.join().unwrap()
    });
    match scrubbed {
        Err(StoreError::Io(m)) => assert!(m.contains("reopen"), "{m}"),
        Ok(report) => panic!(
            "a scrub beside a write that failed half way must refuse as other calls do, not report its stripe (unrepairable {:?}, parity mismatches {:?})",
            report.unrepairable, report.parity_mismatches
        ),
        Err(e) => panic!("expected the poisoned store's refusal, got {e}"),
    }
    drop(store);
    // The reopen's recovery decides the cut write: every byte old or new, nothing lost.
    let store = Store::open(dir.path()).unwrap();
    assert!(store.status().unwrap().lost_ranges.is_empty());
    let b = store.get("b").unwrap();
    let mut b_written = b_old.clone();
    b_written[..b_new.len()].copy_from_slice(&b_new);
    assert!(
        b == b_old || b == b_written,
        "the cut write reads old or new"
    );
    assert_eq!(store.get("a").unwrap(), a);
    assert_consistent(&store);
    store.close().unwrap();
}
