//! A close settles a store whose planner input log grew past `PLANNER_INPUTS_MAX` (every
//! open replays it). That settle refused for room is no failure (nothing is lost: the
//! journal holds every change), but its warning must name what was refused and the disk to
//! free. Before (session 18 leftover of s18b) it said "the state checkpoint was not
//! written", though what the full disk refused was the settle (its first record), and the
//! checkpoint only waits for it.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::store::PLANNER_INPUTS_MAX;
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};

#[test]
fn a_close_whose_input_log_settle_the_full_metadata_disk_refuses_warns_naming_the_settle() {
    let dir = tempfile::tempdir().unwrap();
    // Room for a journal of over 100 000 records.
    let Some(disk) = Tmpfs::mount(&dir.path().join("mnt"), 64 << 20) else {
        eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
        return;
    };
    let store_dir = disk.0.join("s");
    let oss_dirs = (0..4).map(|i| dir.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(oss_dirs, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    Store::init(&store_dir, &opts).unwrap().close().unwrap();
    // Unsynced: the test journals over 100 000 records.
    let options = OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    };
    let store = Store::open_with(&store_dir, options).unwrap();
    let data = pattern(1, 10_000);
    // Cached bytes in an open window: the close's settle has home writes to reserve.
    let _window = store.delayed_start("f").unwrap();
    store.write("f", 0, &data).unwrap();
    // Each START and END of a window on an empty file is one planner input, and no I/O.
    for _ in 0..=PLANNER_INPUTS_MAX / 2 {
        let token = store.delayed_start("g").unwrap();
        store.delayed_end(&token).unwrap();
    }
    // An empty journal: the settle's first record needs a new block of the full disk.
    store.checkpoint().unwrap();
    disk.fill();

    let warnings = store.close_with_warnings().unwrap();
    let told = warnings.join("\n");
    let journal = store_dir.join("journal");
    assert!(
        told.contains("settle")
            && told.contains("input log")
            && told.contains(journal.to_str().unwrap())
            && told.contains("the disk is full"),
        "the warning names the refused settle and the full disk: {told}"
    );
    assert!(
        !told.contains("the state checkpoint was not written"),
        "the checkpoint was not what the disk refused: {told}"
    );

    // Nothing lost: the journal holds every change; with room the next close settles.
    disk.unfill();
    let store = Store::open(&store_dir).unwrap();
    assert!(store.get("f").unwrap() == data);
    assert_eq!(store.close_with_warnings().unwrap(), Vec::<String>::new());
    let store = Store::open(&store_dir).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the settle moved the window's bytes home with parity"
    );
    assert!(store.get("f").unwrap() == data);
    assert_consistent(&store);
}
