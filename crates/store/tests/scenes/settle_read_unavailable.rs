//! Review s4e E12: an OSS whose reads fail (a mount that dropped for a while, a read error
//! that persists over the store's retries) while a settle moves a WCL store's cached bytes
//! home. The read itself may decode around the OSS without a record, but the settle then
//! writes the stripe home without that OSS: it must record the OSS failed first (so it is
//! stale and rebuilt, never read again as it is). Before the fix the settle skipped the
//! OSS's home writes with nothing on record, and once the OSS answered again its
//! never-written home slots read as zeros, exit 0. (A single transient read error is
//! retried and fails nothing: `tests/scenes/end_eio.rs`.)
use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};

/// Once armed, the OSS of the next verified read of the WCL cache zone answers no read any
/// more (for this open: a plain open later reads it again).
struct CacheReadsFail {
    armed: AtomicUsize,
    failed_oss: AtomicUsize,
}

impl Default for CacheReadsFail {
    fn default() -> Self {
        CacheReadsFail {
            armed: AtomicUsize::new(0),
            failed_oss: AtomicUsize::new(usize::MAX),
        }
    }
}

impl Hook for CacheReadsFail {
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let down = self.failed_oss.load(Ordering::SeqCst) == oss
            || (key.zone == Zone::Cache && self.armed.swap(0, Ordering::SeqCst) == 1 && {
                self.failed_oss.store(oss, Ordering::SeqCst);
                true
            });
        if !down {
            return Ok(());
        }
        Err(BackendError::Unavailable {
            oss: format!("OSS {oss}"),
            why: "injected: its reads fail".into(),
        })
    }
}

#[test]
fn a_settle_that_could_not_read_an_oss_records_it_failed_before_writing_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<Vec<u8>> = (0..4)
        .map(|i| pattern(40 + i, 9_000 + 13_001 * i as usize))
        .collect();
    {
        // raid6 4+2 over 9 OSSs, WCL: every file waits in the cache zone.
        let store = init(dir.path(), CodeSpec::raid6(4), 9, WritePath::Wcl);
        for (i, f) in files.iter().enumerate() {
            store.write(&format!("f{i}"), 0, f).unwrap();
        }
        assert!(store.status().unwrap().bytes_waiting_parity > 0);
        store.close().unwrap();
    }
    let hook = Arc::new(CacheReadsFail::default());
    let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
    hook.armed.store(1, Ordering::SeqCst);
    store.flush().unwrap();
    assert_eq!(
        hook.armed.load(Ordering::SeqCst),
        0,
        "the settle read the cache zone"
    );
    let oss = hook.failed_oss.load(Ordering::SeqCst);
    assert_eq!(
        store.failed_osses(),
        vec![oss],
        "the settle wrote home without OSS {oss}: it must be failed on record"
    );
    store.close().unwrap();
    // The OSS answers again (a plain open): every file reads its acknowledged bytes.
    let mut store = Store::open(dir.path()).unwrap();
    assert_eq!(store.failed_osses(), vec![oss], "failed on record");
    for (i, f) in files.iter().enumerate() {
        let got = store.read(&format!("f{i}"), 0, f.len() as u64).unwrap();
        let wrong = got.iter().zip(f).filter(|(a, b)| a != b).count();
        assert_eq!(wrong, 0, "f{i}: {wrong} wrong bytes");
    }
    // Session 8: `online` rewrites its columns of the stripes the settle wrote without it.
    store.online_oss(oss).unwrap();
    assert!(store.failed_osses().is_empty());
    for (i, f) in files.iter().enumerate() {
        assert!(
            store.read(&format!("f{i}"), 0, f.len() as u64).unwrap() == *f,
            "f{i}"
        );
    }
    assert_consistent(&store);
}
