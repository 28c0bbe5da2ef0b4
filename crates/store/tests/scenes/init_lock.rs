//! `init` takes the store's lock (review s11r R11-2): two `init`s of one directory at once
//! both succeeded, and the later one wrote an empty state over the store the other had made
//! after a `put` into it was acknowledged. An init now holds the lock (the `flock` on the
//! store directory every other command takes) from its checks to its superblock, and refuses
//! a directory whose lock another process (or another open in this one) holds.

use crate::common;
use common::*;

use std::os::unix::io::AsRawFd;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// The lock another command (or a racing init) holds: an exclusive flock on the directory.
fn hold_lock(dir: &std::path::Path) -> std::fs::File {
    let f = std::fs::File::open(dir).unwrap();
    let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the test takes the store's lock");
    f
}

#[test]
fn init_of_a_directory_locked_by_another_process_is_refused_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    std::fs::create_dir(&dir).unwrap();
    let lock = hold_lock(&dir);
    let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = UNIT;
    let err = match Store::init(&dir, &opts) {
        Ok(_) => panic!("init ran while another process held the directory's lock"),
        Err(e) => e,
    };
    assert!(matches!(err, StoreError::Busy(_)), "refused as busy: {err}");
    assert!(
        err.to_string().contains("init"),
        "the error says another process holds the directory: {err}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "a refused init made nothing: {left:?}");
    drop(lock);
    let store = Store::init(&dir, &opts).expect("with the lock free, init works");
    store.put("precious", &pattern(1, 10_000)).unwrap();
    store.close().unwrap();
}

#[test]
fn init_of_an_open_store_is_refused_and_the_store_keeps_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir, CodeSpec::raid6(4), 6, WritePath::Wcl);
    let precious = pattern(2, 10_000);
    store.put("precious", &precious).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = UNIT;
    // While the store is open (another process's command holds it) and after.
    assert!(Store::init(&dir, &opts).is_err(), "init of an open store");
    store.close().unwrap();
    let err = match Store::init(&dir, &opts) {
        Ok(_) => panic!("init over a store succeeded"),
        Err(e) => e,
    };
    assert!(
        err.to_string().contains("already holds an exaraid store"),
        "{err}"
    );
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.get("precious").unwrap(), precious);
}
