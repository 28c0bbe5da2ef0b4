//! The zone files of a store's OSSs as bytes, for tests that put a slot back as it was (a
//! lost write) or flip a bit of it (rot) by hand.

use std::path::{Path, PathBuf};

/// One zone-file slot: the element, then a crc per 4 KiB block.
pub fn slot_bytes(element_bytes: usize) -> usize {
    assert!(
        element_bytes > 0 && element_bytes % 4096 == 0,
        "whole 4 KiB blocks"
    );
    element_bytes + element_bytes / 4096 * 4
}

/// Every zone file of the store's OSSs, by path, as it is now (sorted by path).
pub fn zone_files(dir: &Path, oss_count: usize) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for o in 0..oss_count {
        let Ok(entries) = std::fs::read_dir(dir.join(format!("oss-{o}/objects"))) else {
            continue;
        };
        for p in entries.map(|e| e.unwrap().path()) {
            let b = std::fs::read(&p).unwrap();
            files.push((p, b));
        }
    }
    files.sort();
    files
}

/// The `(zone file, slot)`s whose bytes differ between `before` and `after` (two
/// `zone_files` of one store; no zone file made in between).
pub fn changed_slots(
    before: &[(PathBuf, Vec<u8>)],
    after: &[(PathBuf, Vec<u8>)],
    element_bytes: usize,
) -> Vec<(PathBuf, usize)> {
    let slot = slot_bytes(element_bytes);
    assert_eq!(before.len(), after.len(), "no zone file made in between");
    let mut changed = Vec::new();
    for ((p, now), (q, old)) in after.iter().zip(before) {
        assert_eq!(p, q, "no zone file made in between");
        for i in 0..now.len() / slot {
            if old.get(i * slot..(i + 1) * slot) != Some(&now[i * slot..(i + 1) * slot]) {
                changed.push((p.clone(), i));
            }
        }
    }
    changed
}

/// Slot `i` of zone file `path` put back to its bytes in `old` (that zone file's bytes
/// before): a write the OSS lost, under checksums that verify.
pub fn put_slot_back(path: &Path, old: &[u8], element_bytes: usize, i: usize) {
    let slot = slot_bytes(element_bytes);
    let mut now = std::fs::read(path).unwrap();
    now[i * slot..(i + 1) * slot].copy_from_slice(&old[i * slot..(i + 1) * slot]);
    std::fs::write(path, &now).unwrap();
}

/// One bit of byte `at` of slot `i` of `path` flipped (its crc kept: rot).
pub fn rot_slot_at(path: &Path, element_bytes: usize, i: usize, at: usize) {
    assert!(at < element_bytes);
    let mut b = std::fs::read(path).unwrap();
    b[i * slot_bytes(element_bytes) + at] ^= 0x10;
    std::fs::write(path, &b).unwrap();
}
