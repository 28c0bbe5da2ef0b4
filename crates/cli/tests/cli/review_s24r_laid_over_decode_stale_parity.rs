//! Review s24r R24-4 (OPEN): a delayed window's END cut by a crash, one rotten bit in a home
//! data block the window's bytes are laid over, beside a stale parity element (its OSS lost
//! an acknowledged write's parity update): the decode through the stale parity reads back
//! with success.
//!
//! The scene: raid6 over 6 OSSs (4 data columns), 4 KiB elements, delayed. `put` of 32,768
//! bytes; an acknowledged write of 50 bytes at 100 (outside any window: rmw, data column 0 and
//! both parities of stripe 0); then the first parity slot that write changed is put back as it
//! was before it (a lost write: old bytes under their valid checksum, suspect to nobody). A
//! window on the file, 2,000 bytes written in it at 5,000 (data column 1, cached), and its
//! `delayed end` killed at its 2nd block write (plan order). Then one bit of data column 1's
//! home block rots (element byte 3,000: outside the window's bytes). Two faults (the stale
//! parity, the rot) on raid6: within the tolerance.
//! On dc625c2 `get` exits 0 with file bytes 4,196..4,246 wrong (all 50): column 1 decoded
//! through the stale parity (the lost write's delta shows at its offsets).
//! Expected: every byte old or new, or the block recorded LOST and named.
//! Without the kill (END finishes) the same rot is refused and named LOST: only recovery's
//! path takes the decode.
//!
//! Cause (found by s24e under gdb; the reviewer's first guess, `laid_over_decode_confirmed`,
//! was not reached): recovery.rs `decide_by_end_versions` took the decode of the rotten block
//! under the window's bytes with as many columns erased as the code tolerates (END's torn
//! parity and the rotten block), so nothing checked it and the stale parity went through.
//! Fixed in session 24 (s24e): taken only where a spare column or the block's checksum
//! proves it; else LOST and named.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const ELEMENT_BYTES: usize = 4096;
/// One slot on disk: the element, then a crc per 4 KiB block.
const SLOT_BYTES: usize = ELEMENT_BYTES + 4;
const PUT_BYTES: usize = 32_768;
const LOST_WRITE_AT: usize = 100;
const LOST_WRITE_BYTES: usize = 50;
const WINDOW_WRITE_AT: usize = 5_000;
const WINDOW_WRITE_BYTES: usize = 2_000;
/// Inside column 1's element, outside the window's bytes (904..2,904 of it).
const ROT_AT: usize = 3_000;

fn zone_files(dir: &Path, zone: &str) -> Vec<PathBuf> {
    (0..6)
        .map(|o| dir.join(format!("oss-{o}/objects/0.{zone}")))
        .filter(|p| p.exists())
        .collect()
}

fn slot(bytes: &[u8], i: usize) -> &[u8] {
    &bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
}

#[test]
fn cut_end_never_reads_a_rotten_laid_over_block_decoded_through_a_stale_parity() {
    let tmp = fast_tempdir("exaraid-s24r-laid-over");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let old = random_bytes(1, PUT_BYTES);
    ok(&["store", "put", d, "f"], &old);

    let parity_before: Vec<(PathBuf, Vec<u8>)> = zone_files(&dir, "parity")
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    let lost = random_bytes(2, LOST_WRITE_BYTES);
    let at = LOST_WRITE_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], &lost);
    let mut acked = old.clone();
    put_over(&mut acked, LOST_WRITE_AT, &lost);
    // The write's parity update on one OSS is lost: that slot back as it was.
    let changed: Vec<(PathBuf, usize)> = (parity_before.iter())
        .flat_map(|(p, before)| {
            let now = std::fs::read(p).unwrap();
            (0..before.len() / SLOT_BYTES)
                .filter(|&i| slot(&now, i) != slot(before, i))
                .map(|i| (p.clone(), i))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        changed.len(),
        2,
        "the write changed both parities of stripe 0: {changed:?}"
    );
    let (path, i) = &changed[0];
    let before = &parity_before.iter().find(|(p, _)| p == path).unwrap().1;
    let mut now = std::fs::read(path).unwrap();
    now[i * SLOT_BYTES..(i + 1) * SLOT_BYTES].copy_from_slice(slot(before, *i));
    std::fs::write(path, &now).unwrap();
    // Data column 1 of stripe 0 (file bytes 4096..8192), found by its bytes.
    let column_1: Vec<(PathBuf, usize)> = (zone_files(&dir, "data").into_iter())
        .flat_map(|p| {
            let b = std::fs::read(&p).unwrap();
            (0..b.len() / SLOT_BYTES)
                .filter(|&i| slot(&b, i)[..ELEMENT_BYTES] == old[4096..8192])
                .map(|i| (p.clone(), i))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(column_1.len(), 1, "data column 1 found once: {column_1:?}");

    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.split_whitespace().last().unwrap().to_string();
    let window = random_bytes(3, WINDOW_WRITE_BYTES);
    let at = WINDOW_WRITE_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], &window);
    let mut new = acked.clone();
    put_over(&mut new, WINDOW_WRITE_AT, &window);
    assert!(
        killed_at_with(
            &["store", "delayed", "end", d, &token],
            b"",
            "write-torn-block:2",
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "END is killed at write-torn-block:2"
    );
    let (path, i) = &column_1[0];
    let mut b = std::fs::read(path).unwrap();
    b[i * SLOT_BYTES + ROT_AT] ^= 0x04;
    std::fs::write(path, &b).unwrap();

    let what = "END killed at write-torn-block:2, parity slot lost its update, \
                column 1's home block rotten at element byte 3000";
    let got = exaraid(&["store", "get", d, "f"], b"");
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains("lost"),
            "{what}: a refused read names the bytes lost: {err}"
        );
        return;
    }
    let got = got.stdout;
    assert_eq!(got.len(), PUT_BYTES, "{what}: length");
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&x| got[x] != acked[x] && got[x] != new[x])
        .collect();
    assert!(
        wrong.is_empty(),
        "{what}: {} byte(s) neither acknowledged version read with success, first {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(4)]
    );
}
