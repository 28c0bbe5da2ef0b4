//! s22g (review s22r R22-1): the crash image of `review_s22r_several_cut_writers_crash_image.rs`
//! as the kill left it, without rot. Its torn block (OSS 2) and the blocks beside it that cut
//! writes reached hold no rot, so recovery must keep every acknowledged byte readable: a
//! block of cut writes is now kept only where their crcs or its stored checksum prove it
//! (`decide_unproven_cut_block`), and that must not cost acknowledged bytes in a plain kill.

use crate::common;
use common::unpack_fixture;

use std::path::Path;

use exaraid_store::Store;

/// File byte 20372 of `f`: acknowledged write 101's byte, nothing issued after it over it.
const BYTE_AT: u64 = 20372;
const ACKNOWLEDGED_BYTE: u8 = 0x39;
const FILE_BYTES: u64 = 40809;

fn unpack(into: &Path) -> std::path::PathBuf {
    unpack_fixture(into, "s22r_several_cut_writers_crash_image.tgz").join("trial-25")
}

#[test]
fn several_cut_writers_crash_image_without_rot_reads_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = unpack(tmp.path());
    let store = Store::open(&dir).expect("the open recovers the crash");
    let all = store
        .read("f", 0, FILE_BYTES)
        .unwrap_or_else(|e| panic!("a plain kill within the tolerance loses nothing: {e}"));
    assert_eq!(all.len() as u64, FILE_BYTES);
    assert_eq!(all[BYTE_AT as usize], ACKNOWLEDGED_BYTE, "write 101's byte");
}
