//! A backend sync (fsync) that fails after a plan's writes all returned (issue #4, s5b's
//! left: "a backend sync failing after a plan's writes poisons the store without copies").
//!
//! The write whose sync failed is not acknowledged (it fails, the store is poisoned), but
//! an fsync error says the OSS may have dropped the plan's bytes: its disk is not to be
//! trusted with them. If that OSS is then gone for good (`store fail`), its acknowledged
//! bytes beside the write in the blocks the write ties must still read back: the stripe on
//! the other OSSs (synced) is the plan's new version, so the OSS's column decodes from
//! them, provided recovery does not take the plan as cut half way. Before the fix the plan
//! was left in flight with its OSS failed and no copy: recovery named those bytes lost.
//!
//! Also: with the OSS back (a transient EIO), nothing is lost either.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, SyncFails};

use std::sync::atomic::Ordering;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{OpenOptions, Store, WritePath};

/// "f": two stripes put, element 1 written again (acknowledged; cached on WCL); then a
/// write of element 0 whole and the first 1,100 bytes of element 1 whose sync on element
/// 1's OSS X fails. Reopened with X dead (`dead_after`) or back: every acknowledged byte
/// reads back exact, the failed write's bytes old or new, nothing recorded lost.
fn sync_fails(code: CodeSpec, oss_count: usize, path: WritePath, dead_after: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let store = init(dir, code, oss_count, path);
    let (acked, x) = put_two_stripes_and_rewrite_element_1(&store, 11);
    store.close().unwrap();

    let what = format!("{code} {path:?}, fsync of OSS {x} fails, X dead after: {dead_after}");
    let hook = Arc::new(SyncFails::default());
    hook.oss.store(x, Ordering::SeqCst);
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let new = pattern(13, UNIT + 1100);
    hook.armed.store(true, Ordering::SeqCst);
    let written = store.write("f", 0, &new);
    hook.armed.store(false, Ordering::SeqCst);
    let err = written.expect_err("a write whose fsync failed is not acknowledged");
    assert!(
        hook.failed.load(Ordering::SeqCst) > 0,
        "{what}: the sync ran"
    );
    drop(store); // poisoned: the next open recovers

    let failed: Vec<usize> = if dead_after { vec![x] } else { Vec::new() };
    let mut store: Store = open_wrapped(dir, &hook, &failed, OpenOptions::default())
        .unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: get: {e}"));
    assert_eq!(got.len(), acked.len(), "{what}");
    for (i, &b) in got.iter().enumerate() {
        let in_write = i < new.len();
        assert!(
            b == acked[i] || (in_write && b == new[i]),
            "{what}: byte {i} reads {b:#04x}, acknowledged {:#04x}",
            acked[i]
        );
    }
    let lost = store.status().unwrap().lost_ranges;
    assert!(lost.is_empty(), "{what}: recorded lost: {lost:?}");
    assert!(
        err.to_string().contains(&format!("OSS {x} (")),
        "{what}: the error names the OSS: {err}"
    );
    if !dead_after {
        // An OSS whose fsync failed holds bytes nobody can vouch for: recorded failed, a
        // `rebuild` restores it.
        let healthy = store.status().unwrap().oss[x].healthy;
        if !healthy {
            store
                .rebuild(x, None)
                .unwrap_or_else(|e| panic!("{what}: rebuild: {e}"));
        }
        assert_consistent(&store);
        assert_eq!(store.get("f").unwrap(), got, "{what}: after the rebuild");
    }
}

fn both(code: CodeSpec, oss_count: usize, path: WritePath) {
    sync_fails(code, oss_count, path, true);
    sync_fails(code, oss_count, path, false);
}

#[test]
fn rmw_an_fsync_failing_after_a_write_loses_no_acknowledged_byte() {
    both(CodeSpec::raid5(3), 4, WritePath::Rmw);
    both(CodeSpec::raid6(3), 5, WritePath::Rmw);
}

#[test]
fn wcl_an_fsync_failing_after_a_write_loses_no_acknowledged_byte() {
    both(CodeSpec::raid5(3), 4, WritePath::Wcl);
    both(CodeSpec::raid6(4), 6, WritePath::Wcl);
}
