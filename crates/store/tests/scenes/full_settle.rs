//! A nearly full WCL or delayed store stays usable (review s4e E6): acknowledged cached
//! bytes always have room to go home, and a settle that finds no room (its settle copies
//! on a degraded store) fails before it changes anything, so no later open redoes it and
//! reads, `status` and `rm` keep working. Before, a settle that began on a full OSS failed
//! at every later open (also `get` and `status`), with `--oss-capacity` for good.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// Stripe unit of these stores: the reviewer's 64 KiB, so that a few writes fill an OSS.
const UNIT_BYTES: usize = 65536;
/// Emulated disk of every OSS: about 15 elements.
const CAPACITY_BYTES: u64 = 1_000_000;
/// Bytes of one client write (not aligned to the unit, as in the review).
const WRITE_BYTES: usize = 50_000;
/// More writes than any OSS of `CAPACITY_BYTES` takes.
const WRITES_MAX: u64 = 60;

fn small_store(dir: &std::path::Path, path: WritePath) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = path;
    opts.oss_capacity_bytes = Some(CAPACITY_BYTES);
    Store::init(dir, &opts).unwrap()
}

/// Write `WRITE_BYTES` pieces one after the other into `name` from piece `first` on, until
/// a write is refused for room (nothing of it written); returns the file's expected bytes
/// with `expect` extended, and the index of the refused piece.
fn fill(store: &Store, name: &str, first: u64, expect: &mut Vec<u8>) -> u64 {
    for i in first..WRITES_MAX {
        let data = pattern(i + 1, WRITE_BYTES);
        let offset_bytes = i * WRITE_BYTES as u64;
        match store.write(name, offset_bytes, &data) {
            Ok(()) => {
                let at = offset_bytes as usize;
                expect.resize(expect.len().max(at + WRITE_BYTES), 0);
                expect[at..at + WRITE_BYTES].copy_from_slice(&data);
            }
            Err(StoreError::NoSpace(_)) => return i,
            Err(e) => panic!("write {i}: {e}"),
        }
    }
    panic!("{WRITES_MAX} writes of {WRITE_BYTES} bytes fit OSSs of {CAPACITY_BYTES} bytes");
}

fn assert_reads(store: &Store, name: &str, expect: &[u8], when: &str) {
    let got = store
        .get(name)
        .unwrap_or_else(|e| panic!("get '{name}' {when}: {e}"));
    assert!(got == expect, "'{name}' reads other bytes {when}");
}

#[test]
fn wcl_full_store_with_a_failed_oss_keeps_reading_when_the_rebuild_finds_no_room() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = small_store(dir.path(), WritePath::Wcl);
    let mut expect = Vec::new();
    fill(&store, "c", 0, &mut expect);
    assert!(
        store.status().unwrap().bytes_waiting_parity > 0,
        "the test needs acknowledged bytes in the cache zone"
    );
    store.fail_oss(2).unwrap();
    // The rebuild settles first, and with OSS 2 failed the settle copies OSS 2's data
    // elsewhere: on full OSSs there may be no room for that. Either it works, or it fails
    // saying so, having changed nothing.
    match store.rebuild(2, None) {
        Ok(()) => {}
        Err(StoreError::NoSpace(why)) => {
            assert!(why.contains("Nothing was changed"), "{why}");
            assert!(why.contains("is full"), "names the full OSS: {why}");
            assert_reads(&store, "c", &expect, "after the refused rebuild");
        }
        Err(e) => panic!("rebuild: {e}"),
    }
    store.close().unwrap();
    let store = Store::open(dir.path()).expect("the next open does not redo a failed settle");
    assert_reads(&store, "c", &expect, "after a reopen");
    let status = store.status().unwrap();
    assert!(status.lost_ranges.is_empty(), "{:?}", status.lost_ranges);
}

#[test]
fn wcl_full_store_moves_every_acknowledged_cached_byte_home() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), WritePath::Wcl);
    let other = pattern(99, 300_000);
    store.put("other", &other).unwrap();
    let mut expect = Vec::new();
    fill(&store, "c", 0, &mut expect);
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    // The reviewer's repro C: `rm` (which settles a file's cached bytes first) is what the
    // error of the refused write advises; it bricked the store.
    store
        .remove("other")
        .expect("rm on a full store settles and frees room");
    assert_reads(&store, "c", &expect, "after the rm");
    store
        .flush()
        .expect("every acknowledged cached byte has its home slots");
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_reads(&store, "c", &expect, "after a reopen");
    assert_consistent(&store);
}

#[test]
fn delayed_window_on_a_full_store_ends_with_parity() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), WritePath::Delayed);
    let mut expect = Vec::new();
    // Outside a window (rmw) up to 40 pieces, then a window until the OSSs are full.
    for i in 0..40u64 {
        let data = pattern(i + 1, WRITE_BYTES);
        if store.write("c", i * WRITE_BYTES as u64, &data).is_err() {
            break;
        }
        expect.extend_from_slice(&data);
    }
    let first = (expect.len() / WRITE_BYTES) as u64;
    let token = store.delayed_start("c").unwrap();
    let refused = fill(&store, "c", first, &mut expect);
    assert!(refused > first, "the window took at least one write");
    assert!(store.status().unwrap().bytes_unprotected > 0);
    // Repro D: END needed home room the window's writes had filled; every command failed.
    store
        .delayed_end(&token)
        .expect("END finds the home slots its window's writes reserved");
    assert_eq!(store.status().unwrap().bytes_unprotected, 0);
    assert_reads(&store, "c", &expect, "after END");
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_reads(&store, "c", &expect, "after a reopen");
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert_consistent(&store);
}
