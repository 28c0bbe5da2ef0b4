//! A delayed window whose timeout fired stays closed through a settle (review s15r R15-1).
//! Specification: after its timeout, writes to the window's file are protected at once
//! (home with parity); a settle (`flush`, the store's planner reset) and the opens after it
//! do not start the window again as a fresh one (they did: the settle's reset started every
//! window the state lists anew, with a new timeout, and writes to that file went
//! unprotected again until it fired once more; with an OSS failed, writes accepted a moment
//! before were refused). The user's late END has nothing left to do.

mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

#[test]
fn a_timed_out_window_stays_closed_through_a_flush_and_the_opens_after() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // Long enough that the setup never outlasts it on a loaded machine.
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let mut expected = pattern(1, 60_000);
    store.put("f", &expected).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 100, &pattern(2, 3000)).unwrap();
    expected[100..3100].copy_from_slice(&pattern(2, 3000));
    assert!(store.status().unwrap().bytes_unprotected > 0);
    std::thread::sleep(std::time::Duration::from_millis(500));
    store.tick().unwrap();
    let mut write = |store: &Store, seed: u64, offset: usize, what: &str| {
        let bytes = pattern(seed, 500);
        store.write("f", offset as u64, &bytes).unwrap();
        expected[offset..offset + 500].copy_from_slice(&bytes);
        assert_eq!(
            store.status().unwrap().bytes_unprotected,
            0,
            "{what}: the window timed out, writes to its file are protected at once"
        );
    };
    write(&store, 3, 9000, "after the timeout");
    store.flush().unwrap();
    write(&store, 4, 20_000, "after a flush");
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    write(&store, 5, 30_000, "after a close and an open");
    store.flush().unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    write(&store, 6, 40_000, "after a second flush and an open");
    store.delayed_end(&token).unwrap(); // a late END has nothing left to do
    assert_eq!(store.status().unwrap().open_windows.len(), 0);
    assert_eq!(store.get("f").unwrap(), expected);
    assert_consistent(&store);
    store.close().unwrap();
}
