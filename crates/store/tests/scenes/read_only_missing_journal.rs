//! Review of session 11's merge, item 6: a store whose metadata directory is on a read-only
//! file system and has no journal file (deleted, or lost) failed every command with a bare
//! "journal ...: No such file or directory (os error 2)". Specification: the open is
//! refused saying the journal is missing, that the directory refuses writes, and what to
//! do; with the file system read-write again the store opens (an empty journal is made).
//!
//! The read-only file system is a read-only bind mount of the metadata directory, which
//! needs root and a kernel that allows it: the test says so and passes without checking
//! anything where it cannot mount.

use crate::common::ReadOnlyMount;
use std::path::PathBuf;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store};

#[test]
fn a_read_only_metadata_directory_without_its_journal_says_so() {
    let root = tempfile::tempdir().unwrap();
    let meta = root.path().join("meta");
    let writable = meta.join("s");
    let osses: Vec<PathBuf> = (0..4)
        .map(|i| root.path().join(format!("oss-{i}")))
        .collect();
    let mut opts = InitOptions::with_oss_count(&writable, 4, CodeSpec::raid5(3));
    opts.oss_dirs = osses;
    opts.element_bytes = 4096;
    let store = Store::init(&writable, &opts).unwrap();
    store.put("f", &[3u8; 20_000]).unwrap();
    store.close().unwrap();
    // After a clean close every record is in the state: the journal is empty.
    let journal = writable.join("journal");
    assert_eq!(std::fs::metadata(&journal).unwrap().len(), 0);
    std::fs::remove_file(&journal).unwrap();

    let mounted = root.path().join("mounted");
    let Some(mount) = ReadOnlyMount::new(&meta, &mounted) else {
        eprintln!("SKIPPED: a read-only bind mount is not permitted here (needs root)");
        return;
    };
    let err = Store::open(&mounted.join("s")).err().map(|e| e.to_string());
    let err = err.expect("the store cannot open its journal");
    assert!(
        err.contains("journal") && err.contains("is missing") && err.contains("refuses writes"),
        "{err}"
    );
    assert!(err.contains("remount"), "says what to do: {err}");
    drop(mount);
    let store = Store::open(&writable).unwrap();
    assert!(store.get("f").unwrap() == vec![3u8; 20_000]);
    store.close().unwrap();
}
