//! Review r50c (of s50c): a delayed window's move home whose edge block rotted is healed
//! (`heal_moved_edge_block`) before its writes; before s50c `journal_move_home_crcs` then
//! read the healed block and journaled its crc (`Rec::MoveHomeCrcs`), the proof recovery
//! takes for that block when a kill tears it (payload without checksum) and a disk dies
//! after the crash (`known_by_move_home_crcs`, S9-5 / s12u). Since s50c it takes the bytes
//! of the plan's edge read, made BEFORE the heal: that read failed its checksum, so the block
//! got no crc and a torn block beside a dead disk would be recorded lost where base knew
//! it. Mended by the lead (session 50): a failed edge read is read again after the heal,
//! as before s50c. This test fails on 8b16d2fb (s50c) and passes on 8ffe22a5 and since.
//!
//! Scene (as scenes/end_over_rot_beside_holes.rs raid6 6000): raid6 4+2, 4 KiB unit, "f"
//! 0..6000 home, one byte of data column 1's block 0 (file byte 8092, never written)
//! flipped, a window writes 0..6000 (column 0 whole, column 1 bytes 0..1904: its only
//! partial block), END. raid6's END parity is a reconstruct-write that reads the block's
//! rest served as zeros without healing it, so the move's heal is what heals it.

#[path = "common/mod.rs"]
mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// The journal's intact records' payloads (as crash_images' `journal_records`).
fn journal_payloads(dir: &std::path::Path) -> Vec<String> {
    let bytes = std::fs::read(dir.join("journal")).unwrap();
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > bytes.len() {
            break;
        }
        out.push(String::from_utf8_lossy(&bytes[at + 8..at + 8 + len]).into_owned());
        at += 8 + len;
    }
    out
}

#[test]
fn a_move_home_journals_the_crc_of_an_edge_block_its_heal_mended() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Delayed);
    store.write("f", 0, &pattern(1, 6000)).unwrap();
    let pos = store.layout().geometry().data_pos[1];
    flip_home_byte(&store, "f", pos, 0, 3996);
    let before = journal_payloads(dir.path()).len();
    let token = store.delayed_start("f").unwrap();
    let new = pattern(2, 6000);
    store.write("f", 0, &new).unwrap();
    store.delayed_end(&token).unwrap();
    assert!(store.get("f").unwrap() == new, "window bytes after END");
    let records = journal_payloads(dir.path());
    assert!(
        records.len() > before,
        "setup: the journal still holds END's records"
    );
    let moved: Vec<&String> = records[before..]
        .iter()
        .filter(|p| p.contains("MoveHomeCrcs"))
        .collect();
    assert!(
        !moved.is_empty(),
        "the move home journaled no crc of column {}'s healed edge block 0 (recovery cannot \
         prove it if a kill tears it beside a dead disk); records since the window: {:?}",
        pos.col,
        records[before..]
            .iter()
            .map(|p| p.chars().take(60).collect::<String>())
            .collect::<Vec<_>>()
    );
    assert!(
        moved
            .iter()
            .any(|p| p.contains(&format!("\"col\":{}", pos.col))),
        "{moved:?}"
    );
}
