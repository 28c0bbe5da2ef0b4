//! An I/O error inside `delayed end` (review E11, E11c). END either protects every byte of
//! its window or fails naming the ranges that lost their only copy; an OSS that fails
//! during END itself takes none of the bytes END had read (E11 item 2); one transient read
//! error never gives up acknowledged window bytes.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

/// Answers the next `writes_to_fail` home-data writes and the next `reads_to_fail`
/// cache-zone reads of OSS `oss` with the error an EIO maps to. Unarmed (`oss` = MAX) until
/// the test knows which OSS holds the bytes it wants.
struct Eio {
    oss: AtomicUsize,
    writes_to_fail: AtomicUsize,
    reads_to_fail: AtomicUsize,
}

fn take(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

impl Hook for Eio {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.oss.load(Ordering::SeqCst)
            && key.zone != Zone::Cache
            && take(&self.writes_to_fail)
        {
            return Err(BackendError::Unavailable {
                oss: format!("oss-{oss}"),
                why: "injected EIO on a write".into(),
            });
        }
        Ok(())
    }
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.oss.load(Ordering::SeqCst)
            && key.zone == Zone::Cache
            && take(&self.reads_to_fail)
        {
            return Err(BackendError::Unavailable {
                oss: format!("oss-{oss}"),
                why: "injected transient EIO on a read".into(),
            });
        }
        Ok(())
    }
}

/// A raid5 3+1 delayed store with a window on `ckpt` holding one element on each data OSS
/// of stripe 0 (their only copies, in the cache zones). Returns the store, the window's
/// token, the window's bytes, and the OSS holding ckpt bytes UNIT..2*UNIT, on which `eio`
/// is armed (nothing fails yet).
fn window_open(dir: &std::path::Path, eio: &Arc<Eio>) -> (Store, String, Vec<u8>, usize, usize) {
    drop(init(dir, CodeSpec::raid5(3), 4, WritePath::Delayed));
    let store = open_wrapped(dir, eio, &[], OpenOptions::default()).unwrap();
    let token = store.delayed_start("ckpt").unwrap();
    let ckpt = pattern(51, 6 * UNIT);
    store.write("ckpt", 0, &ckpt).unwrap();
    // raid5 3+1 over 4 OSSs: the OSS holding no data of stripe 1 holds its parity.
    let id = store.file_id("ckpt").unwrap();
    let oss_at = |offset: usize| store.layout().locate(id, offset as u64).oss;
    let victim = (0..4)
        .find(|&o| (3..6).all(|d| oss_at(d * UNIT) != o))
        .expect("one OSS holds stripe 1's parity");
    let victim_offset = (0..3)
        .map(|d| d * UNIT)
        .find(|&at| oss_at(at) == victim)
        .expect("the parity OSS of stripe 1 holds data of stripe 0");
    eio.oss.store(victim, Ordering::SeqCst);
    (store, token, ckpt, victim, victim_offset)
}

/// `writes_to_fail` for an OSS that died: more failures than any test makes calls.
const DEAD: usize = 1_000_000;

fn unarmed() -> Arc<Eio> {
    Arc::new(Eio {
        oss: AtomicUsize::new(usize::MAX),
        writes_to_fail: AtomicUsize::new(0),
        reads_to_fail: AtomicUsize::new(0),
    })
}

#[test]
fn end_keeps_the_bytes_it_read_when_an_oss_fails_during_end_and_names_only_bytes_truly_lost() {
    let dir = tempfile::tempdir().unwrap();
    let eio = unarmed();
    let (store, token, ckpt, victim, victim_offset) = window_open(dir.path(), &eio);
    // A second window, on another file, with bytes whose only copy is on the victim too.
    let other_token = store.delayed_start("other").unwrap();
    let other = pattern(53, 6 * UNIT);
    store.write("other", 0, &other).unwrap();
    let other_id = store.file_id("other").unwrap();
    let other_lost: Vec<usize> = (0..6 * UNIT)
        .step_by(UNIT)
        .filter(|&at| store.layout().locate(other_id, at as u64).oss == victim)
        .collect();
    assert!(!other_lost.is_empty(), "'other' has data on the victim");
    // END of 'ckpt': its parity write to the victim (stripe 1's parity) fails, the OSS died
    // (every write fails from now on: one transient error is retried), and the failure goes
    // on record in the middle of END. END had read every byte of its window, also the
    // victim's element of stripe 0 (its only copy): it keeps them (review E11 item 2;
    // before, they were recorded lost and END failed naming them).
    eio.writes_to_fail.store(DEAD, Ordering::SeqCst);
    store.delayed_end(&token).unwrap();
    assert!(
        eio.writes_to_fail.load(Ordering::SeqCst) < DEAD,
        "the error was injected"
    );
    let status = store.status().unwrap();
    assert!(
        !status.oss[victim].healthy,
        "the write failure is on record"
    );
    let kept = store
        .read("ckpt", victim_offset as u64, UNIT as u64)
        .unwrap();
    assert_eq!(
        kept,
        ckpt[victim_offset..victim_offset + UNIT],
        "the victim's element"
    );
    assert_eq!(store.get("ckpt").unwrap(), ckpt, "END kept every byte");
    // What END never read is truly lost: the other window's bytes on the victim. Only they
    // are on record, under their own window, and only their END names them.
    let lost: Vec<(u64, u64)> = status
        .lost_ranges
        .iter()
        .map(|l| {
            assert_eq!(l.file, "other", "{l:?}");
            assert_eq!(l.window, other_token, "{l:?}");
            (l.offset_bytes, l.len_bytes)
        })
        .collect();
    let want: Vec<(u64, u64)> = other_lost
        .iter()
        .map(|&at| (at as u64, UNIT as u64))
        .collect();
    assert_eq!(lost, want);
    let err = store
        .delayed_end(&other_token)
        .expect_err("the other window lost bytes");
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    let msg = err.to_string();
    for &at in &other_lost {
        let range = format!("'other' bytes {at}..{}", at + UNIT);
        assert!(msg.contains(&range), "END names {range}: {msg}");
    }
    assert!(!msg.contains("'ckpt'"), "{msg}");
    // Every other byte of 'other' reads; the lost ones fail naming their range.
    for at in (0..6 * UNIT).step_by(UNIT) {
        let got = store.read("other", at as u64, UNIT as u64);
        if other_lost.contains(&at) {
            assert!(matches!(got, Err(StoreError::DataLost(_))), "{got:?}");
        } else {
            assert_eq!(got.unwrap(), other[at..at + UNIT], "'other' bytes at {at}");
        }
    }
    // And after a clean close and open too.
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), ckpt);
}

/// After a transient error: nothing on record as lost, the OSS `victim` still healthy,
/// `ckpt` reads `want`, and parity matches the data.
fn assert_nothing_lost(store: &Store, victim: usize, want: &[u8]) {
    let status = store.status().unwrap();
    assert!(status.lost_ranges.is_empty(), "nothing lost");
    assert!(status.oss[victim].healthy, "a transient error fails no OSS");
    assert_eq!(store.get("ckpt").unwrap(), want);
    assert_consistent(store);
}

#[test]
fn one_transient_read_error_during_end_gives_up_no_window_byte() {
    let dir = tempfile::tempdir().unwrap();
    let eio = unarmed();
    let (store, token, ckpt, victim, _) = window_open(dir.path(), &eio);
    // END reads the window's cache to compute parity; the first read of the victim's cache
    // fails once. The bytes are there: a retry reads them, nothing is lost or failed.
    eio.reads_to_fail.store(1, Ordering::SeqCst);
    store.delayed_end(&token).unwrap();
    assert_eq!(
        eio.reads_to_fail.load(Ordering::SeqCst),
        0,
        "the error was injected"
    );
    assert_nothing_lost(&store, victim, &ckpt);
}

#[test]
fn one_transient_read_error_during_a_parity_advance_gives_up_no_window_byte() {
    let dir = tempfile::tempdir().unwrap();
    let eio = unarmed();
    let (store, token, ckpt, victim, _) = window_open(dir.path(), &eio);
    // A write over the window's bytes reads the old cached ones (read-modify-write of the
    // cache stripe or a move home); the first read of the victim's cache fails once.
    eio.reads_to_fail.store(1, Ordering::SeqCst);
    let more = pattern(52, 4 * UNIT);
    store.write("ckpt", 6 * UNIT as u64, &more).unwrap();
    store.delayed_end(&token).unwrap();
    let mut want = ckpt.clone();
    want.extend_from_slice(&more);
    assert_nothing_lost(&store, victim, &want);
}

#[test]
fn one_transient_write_error_during_end_gives_up_no_window_byte() {
    let dir = tempfile::tempdir().unwrap();
    let eio = unarmed();
    let (store, token, ckpt, victim, _) = window_open(dir.path(), &eio);
    // END's parity write to the victim fails once; the retry writes it.
    eio.writes_to_fail.store(1, Ordering::SeqCst);
    store.delayed_end(&token).unwrap();
    assert_eq!(
        eio.writes_to_fail.load(Ordering::SeqCst),
        0,
        "the error was injected"
    );
    assert_nothing_lost(&store, victim, &ckpt);
}
