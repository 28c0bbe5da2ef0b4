//! A settle (flush, recovery) moves every cached range home while it holds the store's core
//! lock. When a cached range cannot be read and its cache stripe cannot rebuild it (more
//! unreadable columns than the code tolerates), the settle must never wait forever for the
//! lock it holds itself, and must not fail either (the next open's recovery would fail the
//! same way, forever): the bytes go on record as lost ranges (the home bytes under them and
//! the parity stay consistent, so scrub stays clean), flush says which, and reads fail with
//! `DataLost` naming the file and range. The scenario runs on a thread with a deadline, so a
//! deadlock fails the test instead of hanging it.

use crate::common;
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
    // The flush finishes, says which cached bytes did not make it home (a caller asked for
    // everything home), and the store goes on: failing the settle would fail every later
    // open's recovery too.
    match result {
        Err(StoreError::DataLost(msg)) => assert!(
            msg.contains("'a' bytes 0..4096") && msg.contains("'a' bytes 4096..5000"),
            "the flush names the lost bytes: {msg}"
        ),
        other => panic!("expected DataLost naming the lost bytes, got {other:?}"),
    }
    let lost = |store: &Store| match store.read("a", 0, 5000) {
        Err(StoreError::DataLost(msg)) => {
            eprintln!("reported: {msg}");
            assert!(
                msg.contains("'a' bytes 0..4096") && msg.contains("'a' bytes 4096..5000"),
                "the error names the file and its ranges: {msg}"
            );
        }
        other => panic!("expected DataLost, got {other:?}"),
    };
    lost(&store);
    let lost_ranges = store.status().unwrap().lost_ranges;
    assert_eq!(lost_ranges.len(), 2, "status lists them: {lost_ranges:?}");
    // The home bytes under the lost ranges stay, with parity consistent with them: nothing
    // is marked corrupt, and the rest of each row stays protected.
    assert_consistent(&store);
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

#[test]
fn unreadable_cached_bytes_inside_a_block_are_lost_exactly_and_the_home_bytes_beside_them_read() {
    let dir = tempfile::tempdir().unwrap();
    // RAID-5 3+1 WCL: a whole stripe of "a" at home with parity (the flush empties the cache
    // zone), then 100 new bytes inside its first 4 KiB block wait in a fresh cache stripe.
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Wcl);
    let old = pattern(73, 3 * UNIT);
    store.write("a", 0, &old).unwrap();
    store.flush().unwrap();
    store.write("a", 100, &pattern(74, 100)).unwrap();
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 100);
    // Bit rot inside the new bytes in every element of the cache stripe (the cached data
    // element and the running parity): beyond what RAID-5 rebuilds.
    let mut flipped = 0;
    for oss in 0..4 {
        let path = cache_zone_file(&store, oss);
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.len() < SLOT_BYTES {
            continue;
        }
        bytes[150] ^= 0x08;
        std::fs::write(&path, bytes).unwrap();
        flipped += 1;
    }
    assert!(
        flipped >= 2,
        "the cached data element and the running parity"
    );

    let err = store.flush().unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    assert!(err.to_string().contains("'a' bytes 100..200"), "{err}");
    // Exactly the unreadable bytes are on record; the rest of their block is home bytes that
    // never stopped being the file's, and reads (the home block is not marked lost).
    let lost = store.status().unwrap().lost_ranges;
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!((lost[0].offset_bytes, lost[0].len_bytes), (100, 100));
    assert!(store.read("a", 0, 100).unwrap() == old[..100]);
    assert!(store.read("a", 200, (3 * UNIT - 200) as u64).unwrap() == old[200..]);
    for (at, len) in [(100, 100), (150, 1), (0, 4096)] {
        let err = store.read("a", at, len).unwrap_err();
        assert!(matches!(err, StoreError::DataLost(_)), "{err}");
        assert!(err.to_string().contains("'a' bytes 100..200"), "{err}");
    }
    assert_consistent(&store);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(
        store.read("a", 120, 10).is_err(),
        "still lost after reopening"
    );
    assert!(store.read("a", 0, 100).unwrap() == old[..100]);
    let new = pattern(75, 100);
    store.write("a", 100, &new).unwrap();
    let mut model = old.clone();
    model[100..200].copy_from_slice(&new);
    assert!(store.get("a").unwrap() == model, "written again, it reads");
    assert_consistent(&store);
}
