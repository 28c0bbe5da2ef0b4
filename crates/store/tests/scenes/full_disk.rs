//! A full OSS refuses a write without losing what was there: `put` over an existing file
//! that does not fit leaves the old content readable (the error says nothing was written).

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

fn small_store(dir: &std::path::Path, capacity_bytes: u64) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Rmw;
    opts.oss_capacity_bytes = Some(capacity_bytes);
    Store::init(dir, &opts).unwrap()
}

#[test]
fn a_refused_put_over_an_existing_file_keeps_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), 256 << 10);
    let old = pattern(31, 100_000);
    store.put("a", &old).unwrap();
    let too_big = pattern(32, 2_000_000);
    let err = store.put("a", &too_big).unwrap_err();
    assert!(matches!(err, StoreError::NoSpace(_)), "{err}");
    assert!(
        store.get("a").unwrap() == old,
        "the refused put left the old content"
    );
    assert_eq!(
        store.list().len(),
        1,
        "no temporary file is left: {:?}",
        store.list()
    );
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.get("a").unwrap() == old, "and after a restart");
    // A put that fits still replaces the content.
    let new = pattern(33, 50_000);
    store.put("a", &new).unwrap();
    assert!(store.get("a").unwrap() == new);
    assert_eq!(store.list(), vec![("a".to_string(), 50_000)]);
    assert_consistent(&store);
}
