//! Review s22r R22-2: a write killed inside its plans (crash recovery due), then one OSS's
//! own extents log (`exaraid-extents.log`) damaged with intact records after the damage.
//! Every command was refused saying the OSS "is not answering ... mount it and retry" (the
//! disk was mounted; its log was damaged), and `rebuild` of it, what `status` advises, was
//! refused the same way; only `fail` then `rebuild` worked.
//!
//! Specification:
//! - the refusal says the OSS answers and its own metadata is damaged, naming the file and
//!   the byte, and never says to mount it;
//! - the command it advises works: `exaraid store rebuild DIR --oss I` records the OSS
//!   failed before crash recovery, which runs without it (its contents count as unknown,
//!   never trusted), then rebuilds it; every byte then reads as the put's or the cut
//!   write's, nothing lost, scrub clean;
//! - an OSS merely not answering (its directory away) is still waited for: `rebuild` of it
//!   with recovery due is refused, nothing recorded failed (its bytes may be intact).

use crate::common;
use common::*;

use exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV;
use std::path::Path;

const FILE_BYTES: usize = 30_000;
const WRITE_AT: usize = 5_000;
const WRITE_BYTES: usize = 30_000;
const DAMAGED_OSS: usize = 3;
/// The byte of the extents log flipped (bit 2), as in the review's repro: inside its first
/// record, with intact records after it.
const FLIPPED_BYTE: usize = 30;

/// raid6 over 6 OSSs, 4 KiB unit, `f` put, then a write over it killed at its third torn
/// block (plan order): `(old f, the cut write's bytes)`.
fn crashed_store(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let d = s(dir);
    init_store_unit(d, 4096, &["--oss", "6", "--code", "raid6"]);
    let old = bytes(1, FILE_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let new = bytes(2, WRITE_BYTES);
    let at = WRITE_AT.to_string();
    assert!(
        killed_at_with(
            &["store", "write", d, "f", "--offset", &at],
            &new,
            "write-torn-block:3",
            &[KILL_IN_PLAN_ORDER_ENV],
        ),
        "the write was killed inside its plans"
    );
    (old, new)
}

fn flip_extents_log_bit(dir: &Path, oss: usize) -> std::path::PathBuf {
    let log = dir.join(format!("oss-{oss}")).join("exaraid-extents.log");
    let mut b = std::fs::read(&log).unwrap();
    assert!(
        b.len() > 2 * FLIPPED_BYTE,
        "the log holds records after the flipped one: {} bytes",
        b.len()
    );
    b[FLIPPED_BYTE] ^= 1 << 2;
    std::fs::write(&log, b).unwrap();
    log
}

/// `f` reads whole, each byte the put's or the cut write's (a cut write lands or not per
/// byte), past the old end the cut write's or never-written zeros.
fn reads_old_or_cut(d: &str, old: &[u8], new: &[u8]) {
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(
        got.len() == FILE_BYTES || got.len() == WRITE_AT + WRITE_BYTES,
        "f is the put's length or the cut write's: {}",
        got.len()
    );
    for (i, &b) in got.iter().enumerate() {
        let was = old.get(i).copied().unwrap_or(0);
        let cut = i
            .checked_sub(WRITE_AT)
            .and_then(|j| new.get(j).copied())
            .unwrap_or(was);
        assert!(
            b == was || b == cut,
            "f byte {i} = {b:#04x}: neither the put's {was:#04x} nor the cut write's {cut:#04x}"
        );
    }
}

fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn a_damaged_extents_log_after_a_crash_is_named_and_the_rebuild_it_advises_works() {
    let tmp = fast_tempdir("s23b-extents-log");
    let dir = tmp.path().join("S");
    let d = s(&dir);
    let (old, new) = crashed_store(&dir);
    let log = flip_extents_log_bit(&dir, DAMAGED_OSS);

    let err = fails(&["store", "get", d, "f"], b"");
    let rebuild = format!("exaraid store rebuild {d} --oss {DAMAGED_OSS}");
    assert!(
        err.contains(s(&log))
            && err.contains("damaged at byte")
            && err.contains("answers")
            && err.contains(&rebuild),
        "the refusal names the damaged log and its byte, says the OSS answers, and advises `{rebuild}`: {err}"
    );
    assert!(
        !err.contains("not answering") && !err.contains("mount it"),
        "no mount advice for an OSS that answers: {err}"
    );
    // `status` (refused too while recovery waits) gives the same way out.
    let status = said(&exaraid(&["store", "status", d], b""));
    assert!(
        status.contains(s(&log)) && status.contains(&rebuild),
        "status names the log and the rebuild: {status}"
    );

    let out = exaraid(
        &["store", "rebuild", d, "--oss", &DAMAGED_OSS.to_string()],
        b"",
    );
    assert!(
        out.status.success(),
        "the advised rebuild works: {}",
        said(&out)
    );
    assert!(
        said(&out).contains("recorded failed before the crash recovery"),
        "the rebuild says recovery ran without the OSS: {}",
        said(&out)
    );
    reads_old_or_cut(d, &old, &new);
    let status = said(&exaraid(&["store", "status", d], b""));
    assert!(!status.contains("LOST"), "nothing lost: {status}");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn an_oss_away_after_a_crash_is_still_waited_for_by_rebuild() {
    let tmp = fast_tempdir("s23b-away");
    let dir = tmp.path().join("S");
    let d = s(&dir);
    let (old, new) = crashed_store(&dir);
    oss_away(&dir, DAMAGED_OSS);

    let err = fails(
        &["store", "rebuild", d, "--oss", &DAMAGED_OSS.to_string()],
        b"",
    );
    assert!(
        err.contains("not answering") && err.contains("mount it and retry"),
        "a missing mount is waited for, not rebuilt: {err}"
    );
    oss_back(&dir, DAMAGED_OSS);
    reads_old_or_cut(d, &old, &new);
    let status = said(&exaraid(&["store", "status", d], b""));
    assert!(
        !status.contains("FAILED") && !status.contains("LOST"),
        "nothing was recorded failed or lost: {status}"
    );
    ok(&["store", "scrub", d], b"");
}
