//! Recovery's decode of a plain rotten block where nothing is in flight (s22f, OPEN after
//! session 21: "recovery takes an unconfirmed decode of a plain rotten block where nothing
//! is in flight").
//!
//! The scene: a stripe holding a stale data element (its OSS lost an acknowledged write:
//! old bytes under their valid old checksums, which no checksum can see) and, in another
//! data column, a block that rotted (it fails its checksum); a kill leaves a client write
//! cut on the same stripe at other offsets (block row 0), so the next open's recovery
//! settles the stripe while nothing is in flight at the rotten block's row (block row 1).
//! The row's decode of the rotten block reads the stale column: wrong bytes. Its stored
//! checksum (that of its true bytes: nothing in flight touched it) tells so.
//!
//! What must hold: the rotten block reads its acknowledged bytes or fails naming a loss on
//! record, never the wrong decode with success; every block outside the stale column
//! likewise (the stale column itself reading its old bytes is the documented lost-write
//! limit, "Checksums are not versioned"). A read without the crash (a degraded read checks
//! its decode against the parity left) already refuses the wrong decode.

use crate::common;
use common::*;

use exaraid_codes::{CodeSpec, Pos};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

const BLOCK_BYTES: usize = 4096;
/// Two checksum blocks per element: a cut write over block row 0 leaves row 1 quiet.
const ELEMENT_BYTES: usize = 2 * BLOCK_BYTES;

fn rotten_block_beside_stale_element(code: CodeSpec, cut_write: bool) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(&dir, &opts).unwrap();
    let layout = store.layout().clone();
    let g = layout.geometry().clone();
    assert!(g.data_count() >= 3, "the scene needs three data columns");
    let stripe_bytes = g.data_count() * ELEMENT_BYTES;
    let mut acknowledged = pattern(1, 2 * stripe_bytes);
    store.put("f", &acknowledged).unwrap();
    let id = store.file_id("f").unwrap();

    // Data element 1 of stripe 0 goes stale: its OSS loses an acknowledged overwrite.
    let stale_pos = g.data_pos[1];
    let stale_oss = layout.oss_of(id, 0, stale_pos.col);
    let zone_file = object_file(&dir, stale_oss, &format!("{id}.data"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    let stale = ELEMENT_BYTES..2 * ELEMENT_BYTES;
    let overwrite = pattern(2, stale.len());
    store.write("f", stale.start as u64, &overwrite).unwrap();
    acknowledged[stale.clone()].copy_from_slice(&overwrite);
    std::fs::write(&zone_file, &snapshot).unwrap();

    // Block 1 of data element 2 rots.
    let rotten_pos: Pos = g.data_pos[2];
    flip_home_byte(&store, "f", rotten_pos, 1, 77);
    let rotten = 2 * ELEMENT_BYTES + BLOCK_BYTES..3 * ELEMENT_BYTES;
    store.close().unwrap();

    // A client write of block 0 of data element 0, cut by a kill after its input: nothing of
    // it reached the disk (its bytes may read old; nothing else is allowed).
    if cut_write {
        leave_write_in_flight(&dir, "f", 0, BLOCK_BYTES as u64);
    }
    let store = open_unsynced(&dir);
    let on_record: Vec<(u64, u64)> = store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .filter(|l| l.file == "f")
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    let what = format!("{:?}, cut write {cut_write}", code.kind);
    for at in (0..acknowledged.len()).step_by(BLOCK_BYTES) {
        if stale.contains(&at) {
            continue; // the lost-write limit: checksums are not versioned
        }
        match store.read("f", at as u64, BLOCK_BYTES as u64) {
            Ok(got) => {
                let want = &acknowledged[at..at + BLOCK_BYTES];
                let wrong = got.iter().zip(want).filter(|(x, y)| x != y).count();
                assert!(
                    wrong == 0,
                    "{what}: 'f' bytes {at}..{} read with success, {wrong} bytes WRONG{}",
                    at + BLOCK_BYTES,
                    if rotten.contains(&at) {
                        " (the rotten block: its decode read the stale column)"
                    } else {
                        ""
                    }
                );
            }
            Err(StoreError::DataLost(msg)) => {
                let (a, z) = (at as u64, (at + BLOCK_BYTES) as u64);
                assert!(
                    rotten.contains(&at),
                    "{what}: 'f' bytes {a}..{z} LOST ({msg}): only the rotten block may be"
                );
                // The open's recovery decided the block: its loss goes on record. Without a
                // crash the read refuses it (an error naming the bytes; nothing recorded).
                assert!(
                    !cut_write || on_record.iter().any(|&(s, e)| s < z && a < e),
                    "{what}: 'f' bytes {a}..{z} read DataLost ({msg}) but no loss is on record: {on_record:?}"
                );
            }
            Err(e) => panic!("{what}: read at {at}: {e}"),
        }
    }
}

#[test]
fn raid6_recovery_never_takes_a_rotten_blocks_decode_through_a_stale_element() {
    rotten_block_beside_stale_element(CodeSpec::raid6(4), true);
}

#[test]
fn raid6_read_never_takes_a_rotten_blocks_decode_through_a_stale_element() {
    rotten_block_beside_stale_element(CodeSpec::raid6(4), false);
}

#[test]
fn raid5_recovery_never_takes_a_rotten_blocks_decode_through_a_stale_element() {
    rotten_block_beside_stale_element(CodeSpec::raid5(4), true);
}

#[test]
fn raid5_read_never_takes_a_rotten_blocks_decode_through_a_stale_element() {
    rotten_block_beside_stale_element(CodeSpec::raid5(4), false);
}
