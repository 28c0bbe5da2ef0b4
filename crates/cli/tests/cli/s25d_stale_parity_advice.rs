//! Session 25 (s25d), review s24r R24-6: a read refused for a stale parity element beside
//! a rotten block advised "with every OSS back, `exaraid store scrub --repair` locates a
//! single stale element on a code with two parities". Every OSS was back; `scrub --repair`
//! (exit 2) said the stripe was "past the code's tolerance" (it is not: two faults on
//! raid6) and repeated the same advice: one rotten block beside the stale parity leaves no
//! equation to locate the stale column with.
//!
//! The scene (R24-4's, END not killed; no window is needed: the rot comes after it): raid6
//! over 6 OSSs (4 data columns), 4 KiB elements. `put` of 32,768 bytes (splitmix64); an
//! acknowledged write of 50 bytes at 100 (rmw: data column 0 and both parities of stripe 0);
//! then the first parity slot that write changed is put back as it was (a lost write: old
//! bytes under a valid checksum). Then one bit of data column 1's home block rots.
//!
//! Specification: the refusal names bytes 4096..8192 lost and advises only what can act:
//! no `scrub --repair` there (nothing locates the stale column beside the rot), but writing
//! the whole stripe again (file bytes 0..16384; "write these bytes again", its advice on
//! a40ace1, is refused the same way: a write of the lost block alone reads the stripe for its
//! parity delta); `scrub --repair` says it cannot rebuild them, not "past the code's
//! tolerance", and gives no advice to run itself; writing the stripe again from a copy then
//! makes the file read as acknowledged. Where the block beside the stale parity is only
//! away (its OSS not answering), the advice to `scrub --repair` with every OSS back stays,
//! and following it repairs the stale parity.
//!
//! On a40ace1: the refusal says "with every OSS back, `exaraid store scrub --repair` locates
//! a single stale element on a code with two parities", and `scrub --repair` says "its
//! stripe is past the code's tolerance".

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const ELEMENT_BYTES: usize = 4096;
/// One slot on disk: the element, then a crc per 4 KiB block.
const SLOT_BYTES: usize = ELEMENT_BYTES + 4;
const PUT_BYTES: usize = 32_768;
const LOST_WRITE_AT: usize = 100;
const LOST_WRITE_BYTES: usize = 50;
/// Inside data column 1's element (file bytes 4096..8192).
const ROT_AT: usize = 3_000;
const OSS_COUNT: usize = 6;
/// File bytes of one stripe (4 data columns of 4 KiB).
const STRIPE_BYTES: usize = 16_384;

// Bytes with no structure (splitmix64 of `seed`).
use common::random_bytes;

fn zone_files(dir: &Path, zone: &str) -> Vec<PathBuf> {
    (0..OSS_COUNT)
        .map(|o| dir.join(format!("oss-{o}/objects/0.{zone}")))
        .filter(|p| p.exists())
        .collect()
}

fn slot(bytes: &[u8], i: usize) -> &[u8] {
    &bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
}

/// The OSS index and slot of the data element holding `content` (found by its bytes).
fn data_slot_holding(dir: &Path, content: &[u8]) -> (usize, PathBuf, usize) {
    let found: Vec<(usize, PathBuf, usize)> = (0..OSS_COUNT)
        .flat_map(|o| {
            let p = dir.join(format!("oss-{o}/objects/0.data"));
            let b = std::fs::read(&p).unwrap_or_default();
            (0..b.len() / SLOT_BYTES)
                .filter(|&i| &slot(&b, i)[..ELEMENT_BYTES] == content)
                .map(|i| (o, p.clone(), i))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(found.len(), 1, "the element found once: {found:?}");
    found.into_iter().next().unwrap()
}

/// The scene up to the lost parity update (`init_args` after the code's); returns the
/// acknowledged bytes of `f`.
fn stale_parity_scene(dir: &Path, init_args: &[&str]) -> Vec<u8> {
    let d = s(dir);
    let mut args = vec!["--oss", "6", "--code", "raid6"];
    args.extend_from_slice(init_args);
    init_store(d, &args);
    let old = random_bytes(1, PUT_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let parity_before: Vec<(PathBuf, Vec<u8>)> = zone_files(dir, "parity")
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
    acked
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_stale_parity_beside_a_rotten_block_advises_writing_the_stripe_again_not_a_scrub_that_cannot_repair_it(
) {
    let tmp = fast_tempdir("s25d-stale-parity-rot");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let acked = stale_parity_scene(&dir, &[]);
    let (_, path, i) = data_slot_holding(&dir, &acked[4096..8192]);
    let mut b = std::fs::read(&path).unwrap();
    b[i * SLOT_BYTES + ROT_AT] ^= 0x04;
    std::fs::write(&path, &b).unwrap();

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("bytes 4096..8192 are lost"),
        "the refusal names the bytes it cannot confirm: {err}"
    );
    assert!(
        !err.contains("scrub --repair` locates"),
        "no advice to run a scrub that cannot locate the stale column beside the rot: {err}"
    );
    assert!(
        err.contains("`scrub --repair` cannot repair it")
            && err.contains("write the whole stripe again from your own copy, file bytes 0..16384"),
        "says what can be done: {err}"
    );

    let scrub = exaraid(&["store", "scrub", d, "--repair"], b"");
    let said = text(&scrub);
    assert_eq!(
        scrub.status.code(),
        Some(2),
        "scrub --repair leaves it: {said}"
    );
    assert!(
        !said.contains("past the code's tolerance") && !said.contains("scrub --repair` locates"),
        "scrub says no false cause and no advice to run itself: {said}"
    );
    assert!(
        said.contains("cannot be rebuilt")
            && said.contains("bytes 4096..8192 are lost")
            && said.contains("write the whole stripe again"),
        "scrub names the bytes and what can be done: {said}"
    );

    // What it advises works: the stripe's bytes written again whole (from the user's copy),
    // every byte reads as acknowledged. (The lost bytes alone do not: that write reads the
    // rotten block for its parity delta and is refused with the same disagreement.)
    let block_only = fails(
        &["store", "write", d, "f", "--offset", "4096"],
        &acked[4096..8192],
    );
    assert!(
        block_only.contains("write the whole stripe again"),
        "a write of the lost bytes alone is refused, saying what works: {block_only}"
    );
    ok(
        &["store", "write", d, "f", "--offset", "0"],
        &acked[..STRIPE_BYTES],
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
}

#[test]
fn a_stale_parity_beside_an_oss_away_advises_the_scrub_that_then_repairs_it() {
    let tmp = fast_tempdir("s25d-stale-parity-away");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let acked = stale_parity_scene(&dir, &[]);
    let (oss, _, _) = data_slot_holding(&dir, &acked[8192..12288]);
    oss_away(&dir, oss);

    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("with every OSS back, `exaraid store scrub --repair` locates a single stale element there"),
        "the stale column can be located once OSS {oss} is back: {err}"
    );

    oss_back(&dir, oss);
    let scrub = exaraid(&["store", "scrub", d, "--repair"], b"");
    assert!(scrub.status.success(), "scrub --repair: {}", text(&scrub));
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert!(scrub.status.success(), "clean: {}", text(&scrub));
}

/// Item 4 of s25d (s24c leftover): the same stale parity and rotten block, the rot before a
/// delayed window's END (the window's 2,000 bytes at 5,000 lie in the rotten block's
/// element, 904..2,904 of it; the rot at 3,000). END is not killed: it fails, as its move
/// home cannot confirm the block, and the next command's recovery records the block lost.
/// On a40ace1 `get` then said "recovery after a crash could not tell the true bytes ... (a
/// write cut by the crash beside unreadable or rotten blocks ...)": there was no crash and
/// no cut write. Specification: the refusal names the bytes, says what happened (a move of
/// cached bytes home met a block failing its checksum that no decode confirmed), never a
/// cut write; every byte it does not name reads as acknowledged (old or the window's).
#[test]
fn an_end_that_failed_on_a_rotten_block_beside_a_stale_parity_is_not_said_a_write_cut_by_a_crash() {
    const WINDOW_WRITE_AT: usize = 5_000;
    const WINDOW_WRITE_BYTES: usize = 2_000;
    let tmp = fast_tempdir("s25d-end-failed");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let acked = stale_parity_scene(&dir, &["--write-path", "delayed"]);
    let (_, path, i) = data_slot_holding(&dir, &acked[4096..8192]);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.split_whitespace().last().unwrap().to_string();
    let window = random_bytes(3, WINDOW_WRITE_BYTES);
    let at = WINDOW_WRITE_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], &window);
    let mut new = acked.clone();
    put_over(&mut new, WINDOW_WRITE_AT, &window);
    let mut b = std::fs::read(&path).unwrap();
    b[i * SLOT_BYTES + ROT_AT] ^= 0x04;
    std::fs::write(&path, &b).unwrap();

    let end = exaraid(&["store", "delayed", "end", d, &token], b"");
    let ended = text(&end);
    assert!(!end.status.success(), "the scene: END fails: {ended}");
    assert!(
        !ended.contains("panicked"),
        "END fails with a message: {ended}"
    );

    let got = exaraid(&["store", "get", d, "f"], b"");
    let err = text(&got);
    assert!(!got.status.success(), "the block is refused: {err}");
    assert!(
        err.contains("bytes 4096..8192"),
        "names the block's bytes: {err}"
    );
    assert!(
        !err.contains("a write cut by") && !err.contains("recovery after a crash"),
        "no crash, no cut write is named: {err}"
    );
    assert!(
        err.contains("when it moved cached bytes of their stripe home"),
        "says what happened: {err}"
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        status.contains("LOST: 'f' bytes 4096..8192") && !status.contains("a write cut by"),
        "status says the same: {status}"
    );
    reads_right_outside_its_losses(d, "f", &acked, Some(&new), "END failed");
    // What it advises works: the bytes written again, every byte reads, scrub is clean.
    ok(
        &["store", "write", d, "f", "--offset", "4096"],
        &new[4096..8192],
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == new, "f reads every acknowledged byte");
    ok(&["store", "scrub", d], b"");
    eprintln!("END said: {ended}");
}
