//! A write refused for a full OSS still runs the timers it fired: a delayed window whose
//! timeout passed gets its parity then, not only at the next open.

mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

#[test]
fn a_write_refused_for_a_full_oss_still_gives_a_timed_out_window_its_parity() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.oss_capacity_bytes = Some(256 << 10);
    // Long enough that the first write never outlasts it on a loaded machine (20 ms did:
    // the timeout fired inside the first write and the window had no unprotected bytes).
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let data = pattern(1, 10_000);
    let _window = store.delayed_start("f").unwrap();
    store.write("f", 0, &data).unwrap();
    assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);
    // Past the timeout; `status` runs no timer, the next write does.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(store.status().unwrap().bytes_unprotected, 10_000);
    let err = store.write("g", 0, &pattern(2, 2_000_000)).unwrap_err();
    assert!(matches!(err, StoreError::NoSpace(_)), "{err}");
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout the refused write fired gave the window its parity"
    );
    assert!(store.get("f").unwrap() == data);
    assert_consistent(&store);
    // Parity protects the window's bytes now: lose the OSS holding the first ones.
    store
        .fail_oss(store.layout().locate(store.file_id("f").unwrap(), 0).oss)
        .unwrap();
    assert!(store.get("f").unwrap() == data);
}
