//! Session 26 (s26d): refusals that end with advice to write bytes again, followed
//! literally. s25d found "write these bytes again" refused by itself where data and parity
//! disagree (a write of the lost block alone reads the stripe for its parity delta) and
//! changed it to "write the whole stripe again from your own copy, file bytes A..B"; these
//! scenes check that advice where it was not checked.
//!
//! - The whole-stripe advice in a file's last, short stripe (the file ends inside it): the
//!   advice names the bytes up to the end of the file; a write of them is not a write of
//!   every data byte of the stripe (the rest lies past the end of the file).
//! - Too many unreadable blocks in one row (two rotten blocks on raid5, not adjacent): each
//!   lost range written again alone reads the other rotten block; the refusal names the
//!   whole stripe (s27d; it said "write these bytes again" first).
//!
//! Bytes are splitmix64 (`random_bytes`); elements are 4 KiB (one 4 KiB block, so one row
//! per stripe).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const ELEMENT_BYTES: usize = 4096;
/// One slot on disk: the element, then a crc per 4 KiB block.
const SLOT_BYTES: usize = ELEMENT_BYTES + 4;
/// Inside an element: the bit that rots.
const ROT_AT: usize = 3_000;

fn slot(bytes: &[u8], i: usize) -> &[u8] {
    &bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
}

/// The OSS zone file and slot of the data element holding `content` (found by its bytes).
fn data_slot_holding(dir: &Path, oss_count: usize, content: &[u8]) -> (PathBuf, usize) {
    let found: Vec<(PathBuf, usize)> = (0..oss_count)
        .flat_map(|o| {
            let p = dir.join(format!("oss-{o}/objects/0.data"));
            let b = std::fs::read(&p).unwrap_or_default();
            (0..b.len() / SLOT_BYTES)
                .filter(|&i| &slot(&b, i)[..ELEMENT_BYTES] == content)
                .map(|i| (p.clone(), i))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(found.len(), 1, "the element found once: {found:?}");
    found.into_iter().next().unwrap()
}

/// One bit of the data element holding `content` flipped on disk (its crc kept: rot).
fn rot(dir: &Path, oss_count: usize, content: &[u8]) {
    let (path, i) = data_slot_holding(dir, oss_count, content);
    let mut b = std::fs::read(&path).unwrap();
    b[i * SLOT_BYTES + ROT_AT] ^= 0x04;
    std::fs::write(&path, &b).unwrap();
}

fn parity_files(dir: &Path, oss_count: usize) -> Vec<PathBuf> {
    (0..oss_count)
        .map(|o| dir.join(format!("oss-{o}/objects/0.parity")))
        .filter(|p| p.exists())
        .collect()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// raid6 over 6 OSSs (4 data columns, stripes of 16,384 file bytes): a file of 25,384 bytes
/// (its stripe 1 short: 16,384..25,384), an acknowledged write of 50 bytes at 16,484 whose
/// first parity update is then put back as it was (a lost write: a stale parity under a
/// valid checksum), and one rotten bit in data column 1 of stripe 1 (bytes 20,480..24,576).
/// s25d's R24-6 scene, in the short last stripe.
#[test]
fn the_whole_stripe_advice_in_a_files_short_last_stripe_works_when_followed() {
    const OSS_COUNT: usize = 6;
    const STRIPE_BYTES: usize = 16_384;
    const FILE_BYTES: usize = STRIPE_BYTES + 9_000;
    const LOST_WRITE_AT: usize = STRIPE_BYTES + 100;
    let tmp = fast_tempdir("s26d-short-stripe");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "6", "--code", "raid6"]);
    let mut acked = random_bytes(1, FILE_BYTES);
    ok(&["store", "put", d, "f"], &acked);
    let before: Vec<(PathBuf, Vec<u8>)> = parity_files(&dir, OSS_COUNT)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    let lost_write = random_bytes(2, 50);
    let at = LOST_WRITE_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], &lost_write);
    put_over(&mut acked, LOST_WRITE_AT, &lost_write);
    let changed: Vec<(PathBuf, usize)> = (before.iter())
        .flat_map(|(p, old)| {
            let now = std::fs::read(p).unwrap();
            (0..old.len() / SLOT_BYTES)
                .filter(|&i| slot(&now, i) != slot(old, i))
                .map(|i| (p.clone(), i))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        changed.len(),
        2,
        "the write changed both parities: {changed:?}"
    );
    let (path, i) = &changed[0];
    let old = &before.iter().find(|(p, _)| p == path).unwrap().1;
    let mut now = std::fs::read(path).unwrap();
    now[i * SLOT_BYTES..(i + 1) * SLOT_BYTES].copy_from_slice(slot(old, *i));
    std::fs::write(path, &now).unwrap();
    rot(&dir, OSS_COUNT, &acked[20_480..24_576]);

    let err = fails(&["store", "get", d, "f"], b"");
    let advice = format!(
        "write the whole stripe again from your own copy, file bytes {STRIPE_BYTES}..{FILE_BYTES}"
    );
    assert!(
        err.contains("bytes 20480..24576 are lost") && err.contains(&advice),
        "the scene: the refusal names the rotten block and advises the whole (short) stripe: {err}"
    );
    // The advice, literally.
    let offset = STRIPE_BYTES.to_string();
    let out = exaraid(
        &["store", "write", d, "f", "--offset", &offset],
        &acked[STRIPE_BYTES..],
    );
    assert!(
        out.status.success(),
        "a write of the stripe's bytes up to the end of the file works: {}",
        text(&out)
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert!(scrub.status.success(), "scrub is clean: {}", text(&scrub));
}

/// raid5 over 5 OSSs (4 data columns): a file of two stripes, one rotten bit in data
/// columns 0 and 2 of stripe 0 (bytes 0..4,096 and 8,192..12,288): two unreadable blocks
/// in one row, past raid5's tolerance.
#[test]
fn too_many_rotten_blocks_in_a_row_advise_a_write_that_works_when_followed() {
    const OSS_COUNT: usize = 5;
    const STRIPE_BYTES: usize = 16_384;
    const FILE_BYTES: usize = 2 * STRIPE_BYTES;
    let tmp = fast_tempdir("s26d-too-many");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let acked = random_bytes(3, FILE_BYTES);
    ok(&["store", "put", d, "f"], &acked);
    rot(&dir, OSS_COUNT, &acked[0..4096]);
    rot(&dir, OSS_COUNT, &acked[8192..12_288]);

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("0..4096") && err.contains("8192..12288") && err.contains("tolerance"),
        "the scene: the refusal names both rotten blocks, past the tolerance: {err}"
    );
    // The advice: the whole stripe (s27d: it said "write these bytes again" first, which a
    // write of each range alone refused, and the whole stripe only then; review s26r R26-2).
    // A write of each range alone is still refused, saying what works.
    let whole =
        format!("write the whole stripe again from your own copy, file bytes 0..{STRIPE_BYTES}");
    assert!(
        !err.contains("write these bytes again") && err.contains(&whole),
        "the refusal advises the write that reads nothing of the stripe: {err}"
    );
    let mut refused = 0;
    for (a, z) in [(0, 4096), (8192, 12_288)] {
        let offset = a.to_string();
        let out = exaraid(
            &["store", "write", d, "f", "--offset", &offset],
            &acked[a..z],
        );
        if !out.status.success() {
            refused += 1;
            assert!(
                text(&out).contains(&whole),
                "a write of bytes {a}..{z} alone refused says what works: {}",
                text(&out)
            );
        }
    }
    assert!(
        refused > 0,
        "the scene: a write of one range alone reads the other rotten block"
    );
    ok(
        &["store", "write", d, "f", "--offset", "0"],
        &acked[..STRIPE_BYTES],
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert!(scrub.status.success(), "scrub is clean: {}", text(&scrub));
}

/// raid5 over 5 OSSs (4 data columns): a file of two stripes, an acknowledged write of 50
/// bytes at 100 whose parity update is then put back as it was (a stale parity under a
/// valid checksum), and one rotten bit in data column 1 of stripe 0 (bytes 4,096..8,192):
/// its decode goes through the stale parity and misses its checksum.
#[test]
fn a_rotten_block_beside_a_stale_parity_on_raid5_advises_a_write_that_works_when_followed() {
    const OSS_COUNT: usize = 5;
    const STRIPE_BYTES: usize = 16_384;
    const FILE_BYTES: usize = 2 * STRIPE_BYTES;
    let tmp = fast_tempdir("s26d-raid5-stale");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let mut acked = random_bytes(4, FILE_BYTES);
    ok(&["store", "put", d, "f"], &acked);
    let before: Vec<(PathBuf, Vec<u8>)> = parity_files(&dir, OSS_COUNT)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    let lost_write = random_bytes(5, 50);
    ok(&["store", "write", d, "f", "--offset", "100"], &lost_write);
    put_over(&mut acked, 100, &lost_write);
    for (p, old) in &before {
        std::fs::write(p, old).unwrap();
    }
    rot(&dir, OSS_COUNT, &acked[4096..8192]);

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("4096..8192") && err.contains("lost"),
        "the scene: the refusal names the rotten block: {err}"
    );
    let whole =
        format!("write the whole stripe again from your own copy, file bytes 0..{STRIPE_BYTES}");
    assert!(
        err.contains(&whole),
        "the refusal advises the write that reads nothing of the stripe: {err}"
    );
    // The write it used to advise ("write these bytes again") is refused, saying what works.
    let block_only = fails(
        &["store", "write", d, "f", "--offset", "4096"],
        &acked[4096..8192],
    );
    assert!(
        block_only.contains(&whole),
        "a write of the lost bytes alone is refused, saying what works: {block_only}"
    );
    ok(
        &["store", "write", d, "f", "--offset", "0"],
        &acked[..STRIPE_BYTES],
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert!(scrub.status.success(), "scrub is clean: {}", text(&scrub));
}
