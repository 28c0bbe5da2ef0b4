//! Review s18r R18-3: a delayed window's bytes lost because their only copy (the cache zone,
//! no parity before END) rotted, found by a settle other than the window's own END.
//! Specification (docs/store.md, "Delayed windows": END never exits 0 for a loss of its
//! window; issue #4: END fails with a clear error naming the lost bytes):
//! - whoever settles the rotten block (the bound on unprotected bytes, a flush, the window's
//!   timeout), the loss stays on record (status lists it, reads of it fail naming it), every
//!   other byte reads exact, and the window's END fails `DataLost` naming the lost range;
//! - a due timeout that meets the rotten block does not refuse an open made for another file
//!   (it refused the first command after the timeout, whatever it named).
//!
//! Scene (as `scripts/repro/repro-r18-3*.sh`): rs 5+3 over 8 OSSs, 4 KiB unit; window on
//! `w`, 5,000 bytes written at 0: bytes 4096..5000 are column 1 of stripe 0, their only copy
//! in OSS 1's cache zone; one byte of that copy flipped.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};
use std::path::Path;

const WINDOW_BYTES: usize = 5000;
/// The window bytes held by OSS 1 (column 1 of stripe 0) and lost with its rotten block.
const LOST: (u64, u64) = (4096, 5000);

fn init_rs(dir: &Path, timeout_ms: u64, unprotected_max_bytes: u64) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 8, CodeSpec::rs(5, 3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = timeout_ms;
    opts.unprotected_bytes_max = unprotected_max_bytes;
    Store::init(dir, &opts).unwrap()
}

/// Flip one byte of OSS 1's cache zone file: the window's bytes `LOST`, their only copy.
fn rot_window_block_on_oss_1(dir: &Path) {
    let path = dir
        .join("oss-1")
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&path).unwrap();
    on_disk[100] ^= 0xff;
    std::fs::write(&path, on_disk).unwrap();
}

/// The loss is on record, reads of it fail naming it, the rest of `w` reads exact.
fn lost_on_record_and_refused(store: &Store, window_bytes: &[u8]) {
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.iter().any(|l| l.file == "w"
            && l.offset_bytes == LOST.0
            && l.offset_bytes + l.len_bytes == LOST.1
            && l.oss == 1),
        "the rotten window bytes are on record lost: {lost:?}"
    );
    match store.read("w", LOST.0, LOST.1 - LOST.0) {
        Err(StoreError::DataLost(m)) => {
            assert!(m.contains("bytes 4096..5000"), "the read names them: {m}")
        }
        other => panic!("a read of lost bytes must fail DataLost, got {other:?}"),
    }
    assert_eq!(
        store.read("w", 0, LOST.0).unwrap(),
        window_bytes[..LOST.0 as usize],
        "the window's other bytes read exact"
    );
}

/// END of the window fails `DataLost`, naming the lost range and the window.
fn end_names_the_loss(store: &Store, token: &str) {
    match store.delayed_end(token) {
        Err(StoreError::DataLost(m)) => {
            assert!(
                m.contains("file 'w' bytes 4096..5000") && m.contains(token),
                "END names the lost range and its window: {m}"
            );
            assert!(
                !m.contains("an OSS failed"),
                "no OSS failed: the only copy rotted: {m}"
            );
        }
        other => {
            panic!("END of a window that lost bytes must fail DataLost naming them, got {other:?}")
        }
    }
}

#[test]
fn end_names_window_bytes_lost_by_rot_when_the_unprotected_bound_settled_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), 60_000, 8192);
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    rot_window_block_on_oss_1(dir.path());
    // Another file's window write past the bound: its settle meets the rotten block, records
    // the loss, and the write goes on.
    let other = store.delayed_start("x").unwrap();
    let x_bytes = pattern(2, 6000);
    store.write("x", 0, &x_bytes).unwrap();
    store.delayed_end(&other).unwrap();
    assert_eq!(store.get("x").unwrap(), x_bytes);
    lost_on_record_and_refused(&store, &window_bytes);
    end_names_the_loss(&store, &token);
    lost_on_record_and_refused(&store, &window_bytes);
    store.close().unwrap();
}

#[test]
fn end_names_window_bytes_lost_by_rot_when_a_flush_settled_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_rs(dir.path(), 60_000, 1 << 30);
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    rot_window_block_on_oss_1(dir.path());
    match store.flush() {
        Err(StoreError::DataLost(m)) => assert!(
            m.contains("file 'w' bytes 4096..5000") && m.contains(&token),
            "flush names the loss and its window: {m}"
        ),
        other => panic!("flush over a rotten window block must fail DataLost, got {other:?}"),
    }
    lost_on_record_and_refused(&store, &window_bytes);
    // Also after a close and an open (the record is the only trace).
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    end_names_the_loss(&store, &token);
    lost_on_record_and_refused(&store, &window_bytes);
    store.close().unwrap();
}

#[test]
fn a_timeout_over_a_rotten_window_block_lets_the_next_open_go_on_and_end_names_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    // Long enough that the setup never outlasts it on a loaded machine.
    let timeout_ms = 400;
    let store = init_rs(dir.path(), timeout_ms, 1 << 30);
    let other = pattern(3, 30_000);
    store.put("other", &other).unwrap();
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    store.close().unwrap();
    rot_window_block_on_oss_1(dir.path());
    std::thread::sleep(std::time::Duration::from_millis(timeout_ms + 200));
    // The open's upkeep fires the timeout: what the open was for (a read of another file)
    // goes on.
    let store = Store::open(dir.path())
        .expect("an open after a window's timeout over its rotten block goes on");
    assert_eq!(store.get("other").unwrap(), other);
    lost_on_record_and_refused(&store, &window_bytes);
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout gave the window's other bytes their parity"
    );
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    end_names_the_loss(&store, &token);
    lost_on_record_and_refused(&store, &window_bytes);
    assert_consistent(&store);
    store.close().unwrap();
}
