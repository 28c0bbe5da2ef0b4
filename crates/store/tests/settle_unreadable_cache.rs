//! A settle (flush, recovery) moves every cached range home while it holds the store's core
//! lock. When a cached range cannot be read and its cache stripe cannot rebuild it (more
//! unreadable columns than the code tolerates), the settle must never wait forever for the
//! lock it holds itself, and must not fail either (the next open's recovery would fail the
//! same way, forever): the bytes are lost, their home blocks are marked so, and reads fail
//! with `DataLost` naming the file and range. The scenario runs on a thread with a deadline,
//! so a deadlock fails the test instead of hanging it.

mod common;
use common::*;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;
/// Far longer than the flush takes (milliseconds): only a deadlock reaches it.
const DEADLINE: Duration = Duration::from_secs(30);

fn cache_zone_file(store: &Store, oss: usize) -> PathBuf {
    store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"))
}

#[test]
fn a_flush_that_cannot_rebuild_a_cached_range_marks_it_lost_instead_of_deadlocking() {
    let dir = tempfile::tempdir().unwrap();
    // RAID-5 3+1 WCL: 5000 bytes of "a" wait in one cache stripe (slot 0 of every cache
    // zone: two data elements and the running parity).
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    store.write("a", 0, &pattern(71, 5000)).unwrap();
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 5000);
    // Bit rot in every element of the cache stripe: no column can be rebuilt.
    let mut flipped = 0;
    for oss in 0..4 {
        let path = cache_zone_file(&store, oss);
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.len() < SLOT_BYTES {
            continue;
        }
        bytes[100] ^= 0x08;
        std::fs::write(&path, bytes).unwrap();
        flipped += 1;
    }
    assert_eq!(flipped, 3, "two cached data elements and the parity");

    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let result = store.flush();
        let _ = tx.send((store, result));
    });
    let (store, result) = rx
        .recv_timeout(DEADLINE)
        .expect("flush deadlocked: the settle waits for the core lock it holds");
    // The flush finishes (failing it would fail every later open's recovery too): the
    // bytes are lost, and reads say so, naming the file and range.
    result.expect("the flush marks the unreadable cached bytes lost and goes on");
    let lost = |store: &Store| match store.read("a", 0, 5000) {
        Err(StoreError::DataLost(msg)) => {
            eprintln!("reported: {msg}");
            assert!(
                msg.contains("'a'") && msg.contains("bytes 0..12288"),
                "the error names the file and its range: {msg}"
            );
        }
        other => panic!("expected DataLost, got {other:?}"),
    };
    lost(&store);
    assert!(
        !store.scrub(false).unwrap().corrupt_elements.is_empty(),
        "scrub reports the lost blocks"
    );
    store.close().unwrap();
    let store = Store::open(dir.path()).expect("the store opens again");
    lost(&store);
    let whole = pattern(72, 3 * UNIT);
    store.write("a", 0, &whole).unwrap();
    assert!(
        store.get("a").unwrap() == whole,
        "a write of the stripe clears the loss"
    );
}
