//! A rebuild cut half way (here: the rebuilt OSS stops taking home-data writes, as a
//! replacement disk or remote OSS that dies during its rebuild) leaves the OSS with only
//! part of its elements, the rest reading as never written (zeros). The store must never
//! take such an OSS back as it is: `online_oss` refuses it, also after a reopen (the
//! rebuild journaled that it began before it removed anything), reads keep rebuilding its
//! elements from parity, and the same rebuild run again restores full redundancy.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{StoreError, WritePath};

/// Bytes of one RAID-5 stripe over 5 OSSs (4 data columns of `UNIT`).
const STRIPE: usize = 4 * UNIT;

#[test]
fn a_rebuild_cut_half_way_leaves_the_oss_failed_until_a_rebuild_completes() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(1, 20 * STRIPE + 777);
    init(dir.path(), CodeSpec::raid5(4), 5, WritePath::Rmw)
        .put("f", &data)
        .unwrap();
    let hooks = Arc::new(Hooks::default());
    let mut store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    store.fail_oss(1).unwrap();
    hooks.fail_home_writes.store(true, Ordering::SeqCst);
    let err = store.rebuild(1, None).unwrap_err();
    assert!(err.to_string().contains("injected"), "{err}");
    hooks.fail_home_writes.store(false, Ordering::SeqCst);

    let err = store.online_oss(1).unwrap_err();
    assert!(matches!(err, StoreError::BadInput(_)), "{err}");
    assert!(err.to_string().contains("did not finish"), "{err}");
    assert_eq!(store.failed_osses(), vec![1]);
    assert!(
        store.get("f").unwrap() == data,
        "degraded reads, from parity"
    );
    store.close().unwrap();

    let mut store = open_hooked(dir.path(), &hooks, &[]).unwrap();
    let err = store.online_oss(1).unwrap_err();
    assert!(
        err.to_string().contains("did not finish"),
        "after a reopen: {err}"
    );
    assert!(store.get("f").unwrap() == data);
    store.rebuild(1, None).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_consistent(&store);
    assert!(store.get("f").unwrap() == data, "after the rebuild");
}
