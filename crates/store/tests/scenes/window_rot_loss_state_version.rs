//! Review s19m: session 19 (s19b) records a delayed window's bytes whose only copy rotted
//! under a new token form ("none: its only copy ... is unreadable; delayed window T"), which
//! binaries of sessions 14 to 18 parse but misread: their END of that window exits 0 saying
//! nothing (R18-3 again), their reads name an OSS failure as the cause, and their `online`
//! write-back does not keep older restored bytes off it. Specification (as for every record
//! an older binary cannot read right, docs/store.md "Format"): while such a loss is on
//! record, the state header says version 8 (`STATE_VERSION_SESSION19_RECORDS`), which those
//! binaries refuse, changing nothing; once it is rewritten, a clean close turns it back to 1.
//!
//! Scene (as `window_rot_lost_named_by_end.rs`): rs 5+3 over 8 OSSs, 4 KiB unit; window on
//! `w`, 5,000 bytes written at 0; one byte of OSS 1's cache copy of 4096..5000 flipped; a
//! `flush` records those bytes lost.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};
use std::path::Path;

const WINDOW_BYTES: usize = 5000;
const LOST: (u64, u64) = (4096, 5000);

fn state_header_version(dir: &Path) -> u32 {
    let bytes = std::fs::read(dir.join("state")).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = String::from_utf8(bytes[..nl].to_vec()).unwrap();
    let rest = header
        .strip_prefix("EXARAID state v")
        .unwrap_or_else(|| panic!("a state header: {header}"));
    rest.split(' ').next().unwrap().parse().unwrap()
}

fn rot_window_block_on_oss_1(dir: &Path) {
    let path = dir
        .join("oss-1")
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&path).unwrap();
    on_disk[100] ^= 0xff;
    std::fs::write(&path, on_disk).unwrap();
}

#[test]
fn a_window_loss_of_a_rotten_only_copy_keeps_the_state_header_at_version_8_until_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 8, CodeSpec::rs(5, 3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 600_000;
    opts.unprotected_bytes_max = 1 << 30;
    let store = Store::init(dir.path(), &opts).unwrap();
    let mut window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    rot_window_block_on_oss_1(dir.path());
    match store.flush() {
        Err(StoreError::DataLost(m)) => assert!(m.contains("bytes 4096..5000"), "{m}"),
        other => panic!("the scene: flush records the rotten window bytes lost, got {other:?}"),
    }
    store.close().unwrap();
    assert_eq!(
        state_header_version(dir.path()),
        exaraid_store::superblock::STATE_VERSION_SESSION19_RECORDS,
        "the loss is on record in session 19's token form: older binaries must refuse the store"
    );

    // Still on record after an open and a clean close of this binary.
    let store = Store::open(dir.path()).unwrap();
    assert!(store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .any(|l| l.offset_bytes == LOST.0 && l.offset_bytes + l.len_bytes == LOST.1));
    store.close().unwrap();
    assert_eq!(
        state_header_version(dir.path()),
        exaraid_store::superblock::STATE_VERSION_SESSION19_RECORDS
    );

    // Rewritten (and the window ended: nothing of it left), the store is for every binary.
    let store = Store::open(dir.path()).unwrap();
    let again = pattern(2, (LOST.1 - LOST.0) as usize);
    store.write("w", LOST.0, &again).unwrap();
    window_bytes[LOST.0 as usize..LOST.1 as usize].copy_from_slice(&again);
    store.delayed_end(&token).unwrap();
    assert_eq!(store.get("w").unwrap(), window_bytes);
    store.close().unwrap();
    assert_eq!(state_header_version(dir.path()), 1);
}
