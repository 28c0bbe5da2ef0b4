//! Bytes written at the end of the largest file a WCL or delayed store holds settle with an
//! OSS failed (review s6r R6-5). Before, `Store::file_bytes_max` bounded only the home zone
//! files, but a settle with a failed OSS copies that OSS's data element of home slot `s` to
//! slot `2s` of the file's cache-zone object: past half the largest file every degraded
//! settle failed "File too large", so the failed OSS could never be rebuilt and the file
//! never removed (the acknowledged write was stuck in the cache zone for good).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

#[test]
fn bytes_at_the_end_of_the_largest_file_settle_rebuild_and_go_with_an_oss_failed() {
    for (path, fail_before_write) in [
        (WritePath::Wcl, false),
        (WritePath::Wcl, true),
        (WritePath::Delayed, false),
    ] {
        let case = format!("{path:?}, OSS failed before the write: {fail_before_write}");
        let dir = tempfile::tempdir().unwrap();
        let mut store = init(dir.path(), CodeSpec::raid6(4), 6, path);
        let max = store.file_bytes_max();
        store.put("a", &pattern(1, 5000)).unwrap();
        let last = pattern(2, 2);
        let at = max - last.len() as u64;
        // The OSS of the written element: its data must be copied by the degraded settle.
        let oss = store.layout().locate(store.file_id("a").unwrap(), at).oss;
        if fail_before_write {
            store.fail_oss(oss).unwrap();
        }
        if path == WritePath::Delayed {
            let window = store.delayed_window("a").unwrap();
            store.write("a", at, &last).unwrap();
            window.end().unwrap();
        } else {
            store.write("a", at, &last).unwrap();
        }
        if !fail_before_write {
            store.fail_oss(oss).unwrap();
        }
        store
            .flush()
            .unwrap_or_else(|e| panic!("{case}: the degraded settle: {e}"));
        assert_eq!(store.read("a", at, 2).unwrap(), last, "{case}");
        store
            .rebuild(oss, None)
            .unwrap_or_else(|e| panic!("{case}: rebuild of OSS {oss}: {e}"));
        assert_eq!(store.read("a", at, 2).unwrap(), last, "{case}");
        assert_eq!(
            store.read("a", 0, 5000).unwrap(),
            pattern(1, 5000),
            "{case}"
        );
        assert_consistent(&store);
        store
            .remove("a")
            .unwrap_or_else(|e| panic!("{case}: rm: {e}"));
    }
}

/// Issue #4 OPEN 5 (s6f left): bytes a binary from before session 6 wrote past half the
/// largest file of a WCL store (it took every slot of a zone file; today's limit is half).
/// Their settle copies lay past what a zone file holds, so with an OSS failed every settle
/// failed "File too large": `flush`, `rebuild` and `rm` for good. Now those copies go to a
/// far object: the bytes settle, rebuild and go; today's binary reads them and refuses,
/// saying why, to write there again.
#[test]
fn bytes_an_older_binary_wrote_past_half_the_largest_file_settle_with_an_oss_failed() {
    for fail_before_write in [false, true] {
        let case = format!("OSS failed before the older binary's write: {fail_before_write}");
        let dir = tempfile::tempdir().unwrap();
        let store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Wcl);
        let max_today = store.file_bytes_max();
        store.put("a", &pattern(1, 5000)).unwrap();
        drop(store);
        let older = OpenOptions {
            file_bytes_max_before_session_6: true,
            ..OpenOptions::default()
        };
        let store = Store::open_with(dir.path(), older).unwrap();
        let max_then = store.file_bytes_max();
        assert!(
            max_then > max_today + max_today / 2,
            "today's limit is half"
        );
        let last = pattern(2, 2);
        let at = max_then - last.len() as u64;
        let oss = store.layout().locate(store.file_id("a").unwrap(), at).oss;
        if fail_before_write {
            store.fail_oss(oss).unwrap();
        }
        store.write("a", at, &last).unwrap();
        drop(store); // its bytes stay in the cache zone
        let mut store = Store::open(dir.path()).unwrap();
        match store.write("a", at, &last) {
            Err(StoreError::BadInput(m)) => assert!(m.contains("largest file"), "{case}: {m}"),
            other => panic!("{case}: a write past today's limit: {other:?}"),
        }
        assert_eq!(store.read("a", at, 2).unwrap(), last, "{case}");
        if !fail_before_write {
            store.fail_oss(oss).unwrap();
        }
        store
            .flush()
            .unwrap_or_else(|e| panic!("{case}: the degraded settle: {e}"));
        assert_eq!(store.read("a", at, 2).unwrap(), last, "{case}");
        store
            .rebuild(oss, None)
            .unwrap_or_else(|e| panic!("{case}: rebuild of OSS {oss}: {e}"));
        assert_eq!(store.read("a", at, 2).unwrap(), last, "{case}");
        assert_eq!(
            store.read("a", 0, 5000).unwrap(),
            pattern(1, 5000),
            "{case}"
        );
        assert_consistent(&store);
        store
            .remove("a")
            .unwrap_or_else(|e| panic!("{case}: rm: {e}"));
    }
}
