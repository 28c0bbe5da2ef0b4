//! Rot in the part of a torn EDGE block outside the cut write's range (session 22, s22d; an
//! "unproven path" of docs/store.md's Limits after session 21: s21a kept such bytes).
//!
//! The scene: raid6 and rs 4+2, rmw, 64 KiB elements. A write of part of one 4 KiB block of
//! a data element (or from inside one block of element 1 to inside the same block row of
//! element 2, so that the other column is in flight at the edge block's other offsets) is
//! killed at its n-th block write in plan order with that block torn (its new payload under
//! its old checksum: `write-torn-block`; also every OSS caught at once); before the next
//! open one bit of the torn edge block is flipped OUTSIDE the bytes the write changed (their
//! acknowledged value is the old one). `get` returns, byte by byte, the old or the cut
//! write's bytes, or fails naming lost bytes; never a rotten byte with exit 0.
//!
//! Found SAFE on main 32a1b03 (every run: the rot is decoded away, or the row is named LOST
//! where every OSS was caught): recovery takes the decode for the part of a torn block
//! outside its own in-flight ranges, and where another column is in flight at those offsets
//! the write's journaled crcs (`Rec::WriteCrcs`) tell that column's version, so the decode
//! there is of a known world; with more torn columns than the code tolerates the stripe
//! proves nothing and the block is lost. This pins that.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const UNIT_BYTES: usize = 65536;
const BLOCK_BYTES: usize = 4096;
const SLOT_BYTES: usize = UNIT_BYTES + UNIT_BYTES / BLOCK_BYTES * 4;

/// The zone files of object 0 (the file 'f') on every OSS.
fn zone_files(dir: &Path, oss_count: usize) -> Vec<PathBuf> {
    (0..oss_count)
        .flat_map(|oss| ["0.data", "0.parity"].map(|z| dir.join(format!("oss-{oss}/objects/{z}"))))
        .filter(|p| p.exists())
        .collect()
}

/// Blocks whose payload changed while their stored crc did not (torn): (zone file, slot,
/// block, the changed byte offsets inside the block as a range).
fn torn_blocks(
    before: &[(PathBuf, Vec<u8>)],
) -> Vec<(PathBuf, usize, usize, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for (path, old) in before {
        let new = std::fs::read(path).unwrap();
        for slot in 0..new.len().min(old.len()) / SLOT_BYTES {
            for b in 0..UNIT_BYTES / BLOCK_BYTES {
                let at = slot * SLOT_BYTES + b * BLOCK_BYTES;
                let crc = slot * SLOT_BYTES + UNIT_BYTES + b * 4;
                let (po, pn) = (&old[at..at + BLOCK_BYTES], &new[at..at + BLOCK_BYTES]);
                if po == pn || old[crc..crc + 4] != new[crc..crc + 4] {
                    continue;
                }
                let first = (0..BLOCK_BYTES).find(|&i| po[i] != pn[i]).unwrap();
                let last = (0..BLOCK_BYTES).rev().find(|&i| po[i] != pn[i]).unwrap();
                out.push((path.clone(), slot, b, first..last + 1));
            }
        }
    }
    out
}

fn flip_bit(file: &Path, at: usize) {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[at] ^= 0x10;
    std::fs::write(file, bytes).unwrap();
}

/// How the kill catches the write: one block write torn (plan order), or every OSS caught
/// in a torn block write at once (`KILL_TEAR_EVERY_OSS_ENV`).
#[derive(Clone, Copy, Debug)]
enum Tear {
    One,
    EveryOss,
}

/// One run: `code_args` over 6 OSSs, a file of 16 elements, a write of `len` bytes at `at`
/// killed at block write `kill_at` (plan order) with it torn; one bit flipped in the torn
/// edge block (a data one where several are torn) outside the bytes the write changed in
/// it. Returns `None` where the write finished first or tore no edge block, else whether
/// `get` succeeded.
fn torn_edge_block_then_rot_outside_range(
    code_args: &[&str],
    (at, len): (usize, usize),
    kill_at: usize,
    tear: Tear,
) -> Option<bool> {
    let tmp = fast_tempdir("exaraid-s22d-edge-rot");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut args = vec!["--oss", "6", "--write-path", "rmw"];
    args.extend_from_slice(code_args);
    init_store_unit(d, UNIT_BYTES as u64, &args);
    let old = bytes(7, 16 * UNIT_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let before: Vec<(PathBuf, Vec<u8>)> = zone_files(&dir, 6)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    let new_bytes = bytes(99, len);
    let offset = at.to_string();
    let mut envs = vec![exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV];
    if let Tear::EveryOss = tear {
        envs.push(exaraid_store::torture::KILL_TEAR_EVERY_OSS_ENV);
    }
    if !killed_at_with(
        &["store", "write", d, "f", "--offset", &offset],
        &new_bytes,
        &format!("write-torn-block:{kill_at}"),
        &envs,
    ) {
        return None;
    }
    // An edge block: the write changed only part of it (well inside, not by chance).
    let mut edges: Vec<_> = (torn_blocks(&before).into_iter())
        .filter(|(_, _, _, changed)| changed.start >= 500 || changed.end <= 3500)
        .collect();
    edges.sort_by_key(|(path, ..)| !path.to_string_lossy().ends_with(".data"));
    let (path, slot, block, changed) = edges.into_iter().next()?;
    let flip_at = if changed.start >= 500 {
        changed.start / 2
    } else {
        (changed.end + BLOCK_BYTES) / 2
    };
    flip_bit(&path, slot * SLOT_BYTES + block * BLOCK_BYTES + flip_at);
    let what = format!(
        "{code_args:?} write {at}+{len} killed at block write {kill_at} ({tear:?} torn: {} slot {slot} block {block}, bytes {changed:?} changed), bit flipped at byte {flip_at} of it",
        path.display()
    );
    let got = exaraid(&["store", "get", d, "f"], b"");
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains("lost"),
            "{what}: get failed without naming lost bytes: {err}"
        );
        eprintln!("{what}: lost, named");
        return Some(false);
    }
    eprintln!("{what}: read with success");
    let mut new = old.clone();
    put_over(&mut new, at, &new_bytes);
    let got = got.stdout;
    assert_eq!(got.len(), old.len(), "{what}: length");
    let wrong: Vec<String> = (0..got.len())
        .filter(|&i| got[i] != old[i] && got[i] != new[i])
        .take(4)
        .map(|i| {
            format!(
                "{i}: got {:#04x} old {:#04x} new {:#04x}",
                got[i], old[i], new[i]
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{what}: get exited 0 with bytes that are neither old nor the cut write's: {wrong:?}"
    );
    Some(true)
}

/// Every block write of the scene's write torn in turn; returns the runs that tore an edge
/// block (each checked).
fn sweep(code_args: &[&str], write: (usize, usize), tear: Tear) -> usize {
    let mut torn_runs = 0;
    for kill_at in 1..=4 {
        torn_runs += usize::from(
            torn_edge_block_then_rot_outside_range(code_args, write, kill_at, tear).is_some(),
        );
    }
    torn_runs
}

/// Bytes 1000..2000 of block 3 of data element 1 of stripe 0: one block, both edges in it.
const ONE_BLOCK: (usize, usize) = (UNIT_BYTES + 3 * BLOCK_BYTES + 1000, 1000);
/// From byte 1000 of block 3 of data element 1 to byte 1000 of block 3 of element 2: each
/// edge block shares its offsets with the other column's write (both in flight there).
const TWO_COLUMNS: (usize, usize) = (UNIT_BYTES + 3 * BLOCK_BYTES + 1000, UNIT_BYTES);

#[test]
fn raid6_rot_outside_the_range_of_a_torn_edge_block_never_reads_with_success() {
    assert!(sweep(RAID6, ONE_BLOCK, Tear::One) >= 3);
    assert!(sweep(RAID6, TWO_COLUMNS, Tear::One) >= 2);
}

#[test]
fn rs_4_2_rot_outside_the_range_of_a_torn_edge_block_never_reads_with_success() {
    assert!(sweep(RS_4_2, ONE_BLOCK, Tear::One) >= 3);
    assert!(sweep(RS_4_2, TWO_COLUMNS, Tear::One) >= 2);
}

#[test]
fn rot_outside_the_range_of_edge_blocks_torn_on_every_oss_never_reads_with_success() {
    for code in [RAID6, RS_4_2] {
        assert!(sweep(code, ONE_BLOCK, Tear::EveryOss) >= 1);
        assert!(sweep(code, TWO_COLUMNS, Tear::EveryOss) >= 1);
    }
}
