//! Review s5s S2: a settle (the one `rm` runs on WCL) killed -9 while every OSS was up, then
//! one OSS's disk gone for good, and the operator's `store fail` (the way out recovery
//! offers): every acknowledged byte reads exactly, or (where recovery cannot tell) `fail`
//! names it LOST and reads refuse it. Never wrong bytes with exit 0: before the fix recovery
//! took a stripe without settle copies as never written home and decoded the dead OSS's
//! column from a stripe the settle had torn (`get` exit 0, ~50 KB wrong).
//! The store is the review's repro (scripts/repro/repro-settle-dead-disk-wrong.py): WCL
//! raid6 k=4 over 6 OSSs, 64 KiB unit, the same file sizes and writes.

use crate::common;
use common::*;
use std::path::Path;

const UNIT_BYTES: u64 = 64 * 1024;
const FILE_BYTES: [usize; 4] = [257_162, 603_054, 166_469, 294_382];
/// `(offset, length)` of the writes into f1 after the puts: they sit in the cache zone until
/// the settle of `rm f3` moves them home.
const WRITES_TO_F1: [(usize, usize); 4] = [
    (50_631, 9_495),
    (561_913, 12_338),
    (383_452, 76_388),
    (60_816, 119_237),
];

/// Bytes without structure (xorshift): columns that repeat each other could hide a wrong
/// decode.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// WCL raid5 k=4 over 5 OSSs: with one OSS gone, no redundancy is left to confirm a stripe.
const RAID5: &[&str] = &[
    "--oss",
    "5",
    "--code",
    "raid5",
    "--k",
    "4",
    "--write-path",
    "wcl",
];

/// f0..f3 put, then the writes into f1 (cached). Returns every file's acknowledged bytes.
fn cached_store(d: &str, geometry: &[&str]) -> Vec<Vec<u8>> {
    init_store_unit(d, UNIT_BYTES, geometry);
    let mut files: Vec<Vec<u8>> = FILE_BYTES
        .iter()
        .enumerate()
        .map(|(i, &n)| noise(100 + i as u64, n))
        .collect();
    for (i, f) in files.iter().enumerate() {
        ok(&["store", "put", d, &format!("f{i}")], f);
    }
    for (n, &(offset, len)) in WRITES_TO_F1.iter().enumerate() {
        let w = noise(200 + n as u64, len);
        ok(
            &["store", "write", d, "f1", "--offset", &offset.to_string()],
            &w,
        );
        files[1][offset..offset + len].copy_from_slice(&w);
    }
    files
}

/// The disk behind OSS `oss` is gone for good: an empty mount point.
fn disk_gone(dir: &Path, oss: usize) {
    let at = dir.join(format!("oss-{oss}"));
    std::fs::remove_dir_all(&at).unwrap();
    std::fs::create_dir(&at).unwrap();
}

/// `rm f3` killed at `kill_at`, OSS `oss`'s disk gone, `store fail --oss oss`: every file
/// reads its acknowledged bytes, or fails naming bytes `fail` recorded LOST. Returns the
/// LOST lines `fail` printed.
fn settle_cut_then_disk_gone(geometry: &[&str], kill_at: &str, oss: usize) -> Vec<String> {
    let tmp = fast_tempdir("exaraid-s2");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let files = cached_store(d, geometry);
    assert!(
        killed_at(&["store", "rm", d, "f3"], b"", kill_at),
        "rm f3 ended before {kill_at}: pick a kill point inside its settle"
    );
    disk_gone(&dir, oss);
    let err = fails(&["store", "get", d, "f1"], b"");
    assert!(err.contains("needs crash recovery"), "{kill_at}: {err}");
    let said = ok(&["store", "fail", d, "--oss", &oss.to_string()], b"");
    let said = String::from_utf8_lossy(&said).to_string();
    let lost: Vec<String> = said
        .lines()
        .filter(|l| l.contains("LOST"))
        .map(String::from)
        .collect();
    for l in &lost {
        // The cause named is the failed OSS, not bit rot (there is none here).
        assert!(
            !l.contains("bit rot") && (!l.contains("could not tell") || l.contains("OSS failed")),
            "{kill_at}: {l}"
        );
    }
    let listed = String::from_utf8_lossy(&ok(&["store", "ls", d], b"")).to_string();
    for (i, acked) in files.iter().enumerate() {
        let name = format!("f{i}");
        if i == 3
            && !listed
                .lines()
                .any(|l| l.split_whitespace().next() == Some("f3"))
        {
            continue; // the cut `rm` took effect
        }
        let got = exaraid(&["store", "get", d, &name], b"");
        if got.status.success() {
            let wrong = got.stdout.iter().zip(acked).filter(|(a, b)| a != b).count();
            assert!(
                got.stdout.len() == acked.len() && wrong == 0,
                "{kill_at}, OSS {oss} gone: {name} reads {wrong} wrong bytes with exit 0 \
                 (length {} for {}); fail said: {said}",
                got.stdout.len(),
                acked.len()
            );
        } else {
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(
                lost.iter().any(|l| l.contains(&format!("'{name}'"))),
                "{kill_at}, OSS {oss} gone: {name} refused though fail named nothing of it \
                 LOST: {err}; fail said: {said}"
            );
            assert!(err.contains("lost"), "{kill_at}: {err}");
            let what = format!("{kill_at}, OSS {oss} gone");
            reads_right_outside_its_losses(d, &name, acked, None, &what);
        }
    }
    lost
}

/// Points that read wrong bytes with exit 0 before the fix: on raid6, the settle cut after
/// it wrote part of f1's first stripe home (data new on two OSSs, parity old), with the
/// dead OSS's column new (OSS 0) and old (OSS 2, its element cut between payload and
/// checksum); and in f1's second stripe (the review's 55,560 wrong bytes); on raid5, f1's
/// first stripe cut after its data. Torn with the dead column's bytes beside the cut:
/// `fail` records them lost (what the parity left cannot confirm). (That was the old
/// write order, data first; since session 9 the settle writes each stripe's parity first,
/// so these points cut other elements of the same stripes, and raid6 loses nothing there:
/// `crates/store/tests/scenes/dead_disk_beside_settle_write_order.rs`.)
#[test]
fn a_settle_cut_then_a_dead_disk_and_fail_never_read_wrong_bytes() {
    for (geometry, kill_at, oss) in [
        (RAID6_4_2_WCL, "settle-element:8", 0),
        (RAID6_4_2_WCL, "settle-torn-block:8", 2),
        (RAID6_4_2_WCL, "settle-element:16", 0),
        (RAID5, "settle-element:9", 0),
    ] {
        let lost = settle_cut_then_disk_gone(geometry, kill_at, oss);
        eprintln!("{kill_at} OSS {oss}: {} LOST lines", lost.len());
    }
}

/// The settle wrote f1's first stripe home whole before the cut (the next stripe
/// untouched): the parity left confirms both, so nothing is lost. Also where the cut fell
/// between the last parity element's payload and its checksum: that element fails its
/// checksum, but the stripe with its cached bytes laid over it satisfies both parities.
#[test]
fn a_stripe_the_settle_wrote_whole_or_never_reached_loses_nothing() {
    for (kill_at, oss) in [("settle-element:12", 0), ("settle-torn-block:12", 0)] {
        let lost = settle_cut_then_disk_gone(RAID6_4_2_WCL, kill_at, oss);
        assert!(lost.is_empty(), "{kill_at}, OSS {oss} gone: {lost:?}");
    }
}

/// raid5 with one OSS gone has no redundancy left to confirm a stripe: recovery tells the
/// stripes the settle never reached by an element of theirs it never wrote (a kill leaves
/// every returned write on disk, and the settle writes stripe after stripe, element after
/// element). Cut in f0's stripe (before f1's), nothing of f1 is lost.
#[test]
fn raid5_stripes_the_cut_settle_never_reached_lose_nothing() {
    for (kill_at, oss) in [("settle-element:4", 0), ("settle-torn-block:4", 2)] {
        let lost = settle_cut_then_disk_gone(RAID5, kill_at, oss);
        assert!(lost.is_empty(), "{kill_at}, OSS {oss} gone: {lost:?}");
    }
}
