//! Acknowledged cached bytes of a failed OSS survive a WCL write cut in their cache stripe
//! (review s5r, R5). A WCL store with one OSS failed on record keeps that OSS's acknowledged
//! cached bytes only as a decode of their cache stripe (data and running parity of the
//! other columns). A write into the same cache stripe rewrites its running parity in place;
//! cut between that rewrite and its `Durable` record (one transient EIO at a sync: the write
//! is not acknowledged, the next open recovers it; a `kill -9` there leaves the same disk),
//! recovery used to record the failed OSS's cached bytes of the stripe lost, also in the
//! 4 KiB blocks the write never touched, with one failure on a 2-tolerant code. Now every
//! acknowledged byte reads back, and the cut write's bytes read old or new.
//!
//! Elements are 16 KiB (four checksum blocks), raid6(4) over 6 OSSs, write path WCL.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{BackendError, ElementKey};
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};

const ELEMENT_BYTES: usize = 16384;

/// Fails the `n`-th backend sync (from 1) after `armed`, once: a transient EIO.
#[derive(Default)]
struct FailOneSync {
    armed: AtomicBool,
    syncs: AtomicUsize,
    at: AtomicUsize,
    failed: AtomicBool,
}

impl Hook for FailOneSync {
    fn before_write(&self, _oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        Ok(())
    }
    fn before_sync(&self, _oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        let n = self.syncs.fetch_add(1, Ordering::SeqCst) + 1;
        if n != self.at.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.failed.store(true, Ordering::SeqCst);
        Err(BackendError::Io {
            oss: "test".into(),
            why: "injected: one transient EIO at a sync".into(),
        })
    }
}

/// "a": one stripe home (put), then acknowledged writes cached in the WCL cache zone over
/// elements 0 and 1 of stripe 0 (every block of element 1); the OSS of element 1 failed on
/// record; the store closed. Returns the acknowledged bytes and that OSS.
fn cached_bytes_on_a_failed_oss(dir: &Path, code: CodeSpec, oss: usize) -> (Vec<u8>, usize) {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(dir, &opts).unwrap();
    let k = store.layout().geometry().data_pos.len();
    let mut acked = pattern(1, k * ELEMENT_BYTES + 5000);
    store.put("a", &acked).unwrap();
    let over = pattern(2, 2 * ELEMENT_BYTES - 1000);
    store.write("a", 1000, &over).unwrap();
    acked[1000..1000 + over.len()].copy_from_slice(&over);
    assert!(
        store.status().unwrap().bytes_waiting_parity > 0,
        "the write waits in the cache zone"
    );
    let id = store.file_id("a").unwrap();
    let failed = store.layout().locate(id, ELEMENT_BYTES as u64).oss;
    store.fail_oss(failed).unwrap();
    store.close().unwrap();
    (acked, failed)
}

/// Write `len` bytes at `offset` with the `at`-th backend sync failing; reopen (recovery);
/// every acknowledged byte reads back, the cut write's bytes old or new. Returns whether the
/// EIO hit the write (a write with fewer syncs than `at` succeeds).
fn cut_by_one_sync_eio(code: CodeSpec, oss: usize, offset: usize, len: usize, at: usize) -> bool {
    let tmp = scratch();
    let dir = tmp.path();
    let (mut acked, failed) = cached_bytes_on_a_failed_oss(dir, code, oss);
    let hook = Arc::new(FailOneSync::default());
    hook.at.store(at, Ordering::SeqCst);
    let store = open_wrapped(dir, &hook, &[failed], OpenOptions::default()).unwrap();
    let new = pattern(3, len);
    hook.armed.store(true, Ordering::SeqCst);
    let r = store.write("a", offset as u64, &new);
    hook.armed.store(false, Ordering::SeqCst);
    let hit = hook.failed.load(Ordering::SeqCst);
    let what = format!("{code}, OSS {failed} failed, write {offset}+{len}, sync {at} failing");
    if !hit {
        r.unwrap_or_else(|e| panic!("{what}: no EIO, yet the write failed: {e}"));
        acked[offset..offset + len].copy_from_slice(&new);
    }
    drop(store);

    let store = Store::open(dir).unwrap();
    let lost = store.status().unwrap().lost_ranges;
    assert!(lost.is_empty(), "{what}: recovery recorded {lost:?} lost");
    let got = store
        .get("a")
        .unwrap_or_else(|e| panic!("{what}: get after reopen: {e}"));
    assert_eq!(got.len(), acked.len(), "{what}: length");
    for (i, &b) in got.iter().enumerate() {
        let in_write = (offset..offset + len).contains(&i);
        let ok = b == acked[i] || (in_write && b == new[i - offset]);
        assert!(
            ok,
            "{what}: byte {i} reads {b:#04x}, acknowledged {:#04x}",
            acked[i]
        );
    }
    hit
}

/// Cut the write of `len` bytes at `offset` at each of the first `syncs` syncs in turn.
fn cut_at_each_sync(code: CodeSpec, oss: usize, offset: usize, len: usize, syncs: usize) {
    let mut hits = 0;
    for at in 1..=syncs {
        hits += cut_by_one_sync_eio(code, oss, offset, len, at) as usize;
    }
    assert!(hits >= 2, "{code}: the EIO hit the write at {hits} syncs");
}

/// The reviewer's simplest case: 4 KiB at offset 0 (element 0, block 0), cut at each sync
/// of the write in turn; the failed OSS's cached element 1 shares the cache stripe.
#[test]
fn raid6_wcl_write_cut_at_any_sync_keeps_the_failed_oss_cached_bytes() {
    cut_at_each_sync(CodeSpec::raid6(4), 6, 0, 4096, 8);
}

/// The cut write elsewhere in the cache stripe, adding bytes to it: inside block 1 of
/// element 2, and across elements 2 and 3. (A cut write that only overwrites bytes already
/// cached, with both its data and running parity on disk, tears nothing: the row agrees.)
#[test]
fn raid6_wcl_writes_cut_elsewhere_in_the_cache_stripe_keep_the_failed_oss_cached_bytes() {
    let e = ELEMENT_BYTES;
    cut_at_each_sync(CodeSpec::raid6(4), 6, 2 * e + 5000, 300, 4);
    cut_at_each_sync(CodeSpec::raid6(4), 6, 3 * e - 100, 2000, 4);
}

/// The same on Reed-Solomon and on an array code (X-code: several rows per column, each
/// byte offset a codeword across them), and on single parity (no redundancy left beside
/// the failed OSS: nothing to check the decode against).
#[test]
fn rs_xcode_and_raid5_wcl_writes_cut_at_a_sync_keep_the_failed_oss_cached_bytes() {
    let codes = [
        (CodeSpec::rs(4, 3), 7),
        (CodeSpec::array(CodeKind::Xcode, 5), 5),
        (CodeSpec::raid5(3), 4),
    ];
    for (code, oss) in codes {
        cut_at_each_sync(code, oss, 0, 4096, 4);
        cut_at_each_sync(code, oss, 2 * ELEMENT_BYTES + 5000, 300, 4);
    }
}
