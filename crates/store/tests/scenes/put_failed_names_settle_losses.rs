//! Session 22 (s22e), s21 leftover: `put` over a name whose old content has bytes in the
//! cache zone settles first (`detach`), and that settle may record other files' cached bytes
//! lost (unreadable: bit rot past the code's tolerance). A put that then succeeds warns
//! naming them (s21e, `remove_settle_names_rot_losses.rs`); one that then fails (no room for
//! its new content) said nothing of them, and a failed command tells no warnings: the loss
//! went on record unsaid.
//! Specification (issue #4: nothing acknowledged vanishes silently): the failed put's error
//! names the bytes its settle recorded lost, and the old content stays.
//!
//! Scene as `remove_settle_names_rot_losses.rs`: raid5 over 5 OSSs, 4 KiB unit, WCL, no
//! background worker: `w` and then `a` written (cached); `w`'s cache stripe (the zone's
//! first) rotten on two columns; then reservations refused as a full disk once the settle has
//! moved bytes home, so the put's new content of `a` finds no room after its settle ran.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, WritePath};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// While armed, every reservation after the first home write (the settle's move home) is
/// refused as a full disk: the settle gets its room, the put's new content does not.
#[derive(Default)]
struct NoRoomAfterTheSettle {
    armed: AtomicBool,
    settled: AtomicBool,
}

impl Hook for NoRoomAfterTheSettle {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if self.armed.load(Ordering::SeqCst) && key.zone != Zone::Cache {
            self.settled.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    fn before_reserve(&self, oss: usize) -> Result<(), BackendError> {
        if !self.settled.load(Ordering::SeqCst) {
            return Ok(());
        }
        Err(BackendError::NoSpace {
            oss: format!("oss-{oss}"),
            why: "injected: no space left on device".into(),
        })
    }
}

/// Flip one byte of the first cache element of OSSs 0 and 1: two columns of `w`'s cache
/// stripe (written first: the zone's first).
fn rot_two_columns_of_the_first_cache_stripe(dir: &Path) {
    for oss in [0, 1] {
        let path = dir
            .join(format!("oss-{oss}"))
            .join("objects")
            .join(format!("{}.cache", u64::MAX));
        let mut on_disk = std::fs::read(&path).unwrap();
        on_disk[100] ^= 0xff;
        std::fs::write(&path, on_disk).unwrap();
    }
}

#[test]
fn put_that_fails_after_its_settle_recorded_another_files_losses_names_them_in_its_error() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), CodeSpec::raid5(4), 5, WritePath::Wcl)
        .close()
        .unwrap();
    let hook = Arc::new(NoRoomAfterTheSettle::default());
    let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
    store.write("w", 0, &pattern(1, 5000)).unwrap();
    let a = pattern(2, 5000);
    store.write("a", 0, &a).unwrap();
    rot_two_columns_of_the_first_cache_stripe(dir.path());
    assert!(
        store.status().unwrap().lost_ranges.is_empty(),
        "nothing read the rotten blocks yet"
    );

    hook.armed.store(true, Ordering::SeqCst);
    let refused = store.put("a", &pattern(3, 3 * UNIT));
    hook.armed.store(false, Ordering::SeqCst);
    hook.settled.store(false, Ordering::SeqCst);
    let err = refused
        .expect_err("no room for the new content")
        .to_string();

    let lost = store.status().unwrap().lost_ranges;
    let named: Vec<String> = lost
        .iter()
        .filter(|l| l.file == "w")
        .map(|l| {
            format!(
                "file 'w' bytes {}..{}",
                l.offset_bytes,
                l.offset_bytes + l.len_bytes
            )
        })
        .collect();
    assert!(
        !named.is_empty(),
        "the put's settle moved `w`'s cached bytes home and recorded the rotten ones lost: {lost:?} ({err})"
    );
    for n in &named {
        assert!(
            err.contains(n.as_str()),
            "the failed put's error names the lost bytes {n}: {err}"
        );
    }
    assert!(
        err.contains("room") || err.contains("space"),
        "the error still says why the put failed: {err}"
    );
    assert!(store.get("a").unwrap() == a, "a keeps its old content");
}
