//! Review s19r R19-2: a delayed window's bytes whose only copy (the cache zone, no parity
//! before END) rotted, found by the settle of a `rebuild` of another OSS. Specification
//! (docs/store.md, "Delayed windows": END never exits 0 for a loss of its window): the loss
//! stays on record, and the window's END fails `DataLost` naming the lost range, with a cause
//! that says what happened: a settle (here the rebuild's) moved the window's bytes home and
//! could not read them, not "when the window's parity was computed" (nothing computed it).
//!
//! Scene (as `window_rot_lost_named_by_end.rs`): rs 5+3 over 8 OSSs, 4 KiB unit; window on
//! `w`, 5,000 bytes written at 0: bytes 4096..5000 are column 1 of stripe 0, their only copy
//! in OSS 1's cache zone; one byte of that copy flipped; OSS 6 (no window byte) failed and
//! rebuilt in place.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};
use std::path::Path;

const WINDOW_BYTES: usize = 5000;
/// The window bytes held by OSS 1 and lost with its rotten block.
const LOST: (u64, u64) = (4096, 5000);
/// An OSS that holds none of the window's bytes.
const REBUILT_OSS: usize = 6;

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
fn end_of_a_window_whose_rotten_bytes_a_rebuild_of_another_oss_found_names_the_settle_as_the_cause()
{
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 8, CodeSpec::rs(5, 3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 600_000;
    opts.unprotected_bytes_max = 1 << 30;
    let mut store = Store::init(dir.path(), &opts).unwrap();
    let window_bytes = pattern(1, WINDOW_BYTES);
    let token = store.delayed_start("w").unwrap();
    store.write("w", 0, &window_bytes).unwrap();
    rot_window_block_on_oss_1(dir.path());
    store.fail_oss(REBUILT_OSS).unwrap();
    // The rebuild's settle meets the rotten block: the loss goes on record, the rebuild
    // itself (of an OSS that never held those bytes) is not what failed.
    let _ = store.rebuild(REBUILT_OSS, None);
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.iter().any(|l| l.file == "w"
            && l.offset_bytes == LOST.0
            && l.offset_bytes + l.len_bytes == LOST.1
            && l.oss == 1),
        "the rotten window bytes are on record lost: {lost:?}"
    );
    match store.delayed_end(&token) {
        Err(StoreError::DataLost(m)) => {
            assert!(
                m.contains("file 'w' bytes 4096..5000") && m.contains(&token),
                "END names the lost range and its window: {m}"
            );
            assert!(
                !m.contains("when the window's parity was computed"),
                "nothing computed the window's parity when the loss was found: {m}"
            );
            assert!(
                m.contains("a `rebuild`") && m.contains("bit rot"),
                "the cause names the settles that find such a loss, a rebuild among them: {m}"
            );
        }
        other => {
            panic!("END of a window that lost bytes must fail DataLost naming them, got {other:?}")
        }
    }
    assert_eq!(
        store.read("w", 0, LOST.0).unwrap(),
        window_bytes[..LOST.0 as usize],
        "the window's other bytes read exact"
    );
    store.close().unwrap();
}
