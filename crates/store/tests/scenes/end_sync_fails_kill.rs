//! END of a delayed window whose sync fails on the OSS holding the window's bytes, and a
//! kill at every journal record boundary after that (review s7s, s7d's "Left": a kill
//! between that OSS's `Fail` record and the plan's `Durable` record named the window's
//! bytes on it lost, though the END parity, synced on the other OSSs, covers them).
//!
//! A kill -9 keeps every write that returned: the disk it leaves is the store as it is
//! after the END, with the journal cut at a record boundary (records are appended one write
//! each). Each cut is opened while that OSS's fsyncs still fail.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::BackendError;
use exaraid_store::{OpenOptions, Store, WritePath};

/// Every sync of OSS `oss` fails (a disk whose flushes fail).
struct SyncFails {
    oss: usize,
    failed: AtomicUsize,
}

impl Hook for SyncFails {
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if oss != self.oss {
            return Ok(());
        }
        self.failed.fetch_add(1, Ordering::SeqCst);
        Err(BackendError::Io {
            oss: format!("oss-{oss}"),
            why: "injected: fsync EIO".into(),
        })
    }
}

#[test]
fn an_end_whose_sync_fails_then_a_kill_at_any_record_loses_no_window_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    // "f": two stripes put, then a window over it with new bytes in its first stripe
    // (cache-only on their data OSSs until END's parity).
    let store = init(&dir, CodeSpec::raid5(3), 4, WritePath::Delayed);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let mut f = pattern(21, 2 * sdb);
    store.put("f", &f).unwrap();
    let g = pattern(23, sdb - 100);
    store.put("g", &g).unwrap();
    let id = store.file_id("f").unwrap();
    let x = store.layout().locate(id, 0).oss;
    let window = store.delayed_window("f").unwrap();
    let new = pattern(24, 2 * UNIT + 300);
    store.write("f", 0, &new).unwrap();
    f[..new.len()].copy_from_slice(&new);
    let token = window.token().to_string();
    drop(window); // open across the reopen
    store.close().unwrap();
    let files = [("f", f), ("g", g)];

    let hook = Arc::new(SyncFails {
        oss: x,
        failed: AtomicUsize::new(0),
    });
    let store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
    let journal = dir.join("journal");
    let before = std::fs::metadata(&journal).unwrap().len();
    let ended = store.delayed_end(&token);
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "the sync of OSS {x} ran"
    );
    assert!(ended.is_err(), "END is not acknowledged over a failed sync");
    drop(store); // no close: the disk as a kill leaves it
                 // The open told the OSSs a new epoch with the operation's first record (the hooked
                 // backends forward it since s17f): the kills from there on.
    let cuts = record_boundaries(&journal, cuts_after_epoch_bump(&journal, before));
    assert!(cuts.len() >= 3, "END journaled records: {cuts:?}");
    // The image is restored in place: the superblock names its OSS directories by path.
    let saved = tmp.path().join("saved");
    copy_tree(&dir, &saved);
    for (i, &cut) in cuts.iter().enumerate() {
        let what = format!(
            "kill after END's record {i} of {} (OSS {x})",
            cuts.len() - 1
        );
        restore_with_journal_cut(&saved, &dir, &journal, cut);
        let store: Store = open_wrapped(&dir, &hook, &[], OpenOptions::default())
            .unwrap_or_else(|e| panic!("{what}: open: {e}"));
        for (name, bytes) in &files {
            let got = store
                .get(name)
                .unwrap_or_else(|e| panic!("{what}: get {name}: {e}"));
            assert!(got == *bytes, "{what}: {name} reads wrong bytes");
        }
        let lost = store.status().unwrap().lost_ranges;
        assert!(lost.is_empty(), "{what}: recorded lost: {lost:?}");
        drop(store);
    }
}
