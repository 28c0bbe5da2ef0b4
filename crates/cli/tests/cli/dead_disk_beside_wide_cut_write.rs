//! Review s21r R21-2 (s22b, after s21f's spec): a read-modify-write over three or more
//! data columns of a stripe cut by a crash, then the disk of one of its columns gone and
//! recorded failed (`store fail`). Every column left is in flight, so the stripe's own
//! redundancy proves no decode of the failed column, and its acknowledged bytes were
//! recorded LOST even where the write wrote nothing. The write's journaled crcs (data with
//! its input, home parity before its plan's first write) tell each block old or new, and a
//! plan with no parity crcs on record wrote nothing: the failed column decodes from the
//! columns of one version, checked by one more (`recovery/one_version.rs`). Never wrong
//! bytes: where nothing proves a decode (a torn block beside the dead disk leaves too few
//! columns of one version) the bytes stay recorded lost, named.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 56_644;
/// The OSS of stripe 1's first data column (file bytes 16384..20480) on 6 OSSs.
const DEAD_OSS: usize = 5;

/// What `get` gave after the cut write and the failed OSS.
enum Outcome {
    /// Every byte the put's or the cut write's.
    Read,
    /// Refused, naming lost bytes (the stderr).
    Lost(String),
}

/// A store of `code` (6 OSSs, rmw, 4 KiB unit), a put, a write of `new_len` bytes at
/// `offset` killed at `kill_at` (block writes in plan order: the n-th is the same in every
/// run), OSS `DEAD_OSS` gone and failed, then `get`. Panics on a byte neither old nor new.
fn scene(code: &[&str], offset: usize, new_len: usize, kill_at: &str) -> Outcome {
    let tmp = fast_tempdir("exaraid-s22b-dead-wide");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut args = vec!["--oss", "6", "--write-path", "rmw"];
    args.extend_from_slice(code);
    init_store_unit(d, UNIT_BYTES, &args);
    let old = bytes(7, OLD_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let new_bytes = bytes(8, new_len);
    let at = offset.to_string();
    assert!(
        killed_at_with(
            &["store", "write", d, "f", "--offset", &at],
            &new_bytes,
            kill_at,
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "the write finished before {kill_at}"
    );
    let gone = tmp.path().join("oss-gone");
    std::fs::rename(dir.join(format!("oss-{DEAD_OSS}")), gone).unwrap();
    ok(&["store", "fail", d, "--oss", &DEAD_OSS.to_string()], b"");
    let got = exaraid(&["store", "get", d, "f"], b"");
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr).to_string();
        assert!(
            err.contains("bytes"),
            "a refusal names the lost bytes: {err}"
        );
        return Outcome::Lost(err);
    }
    let mut new = old.clone();
    put_over(&mut new, offset, &new_bytes);
    let got = got.stdout;
    assert_eq!(got.len(), new.len().max(OLD_BYTES));
    let wrong = (0..got.len())
        .filter(|&i| old.get(i) != Some(&got[i]) && got[i] != new[i])
        .count();
    assert_eq!(
        wrong, 0,
        "{code:?} {offset}+{new_len} {kill_at}: bytes neither old nor the cut write's"
    );
    Outcome::Read
}

/// Writes over three or more data columns of stripe 1 (file bytes 16384..32768), each over
/// OSS 5's bytes 16384..20480 or beside them: the whole stripe, three stripes, three
/// columns in part, and the review's fourth (its first column from byte 20000).
const WIDE_WRITES: [(usize, usize); 4] = [
    (16_384, 16_384),
    (14_992, 19_371),
    (16_484, 9_000),
    (20_000, 10_000),
];

/// Killed after its input (`journal-record:1`), its data crcs (`:2`) or its home parity
/// crcs (`:3`), before its first block write: every acknowledged byte reads.
#[test]
fn wide_write_cut_before_its_first_block_beside_one_dead_disk_reads_every_byte() {
    for code in [RAID6, RS_4_2] {
        for (offset, len) in WIDE_WRITES {
            for kill_at in ["journal-record:1", "journal-record:2", "journal-record:3"] {
                match scene(code, offset, len, kill_at) {
                    Outcome::Read => {}
                    Outcome::Lost(e) => panic!("{code:?} write {offset}+{len} {kill_at}: {e}"),
                }
            }
        }
    }
}

/// Killed amid its block writes: bytes of one version read, or are recorded lost and
/// named where no version is proven; never a byte neither old nor new.
#[test]
fn wide_write_torn_beside_one_dead_disk_never_reads_wrong_bytes() {
    for code in [RAID6, RS_4_2] {
        for (offset, len) in WIDE_WRITES {
            for n in [1, 2, 3, 5] {
                let _ = scene(code, offset, len, &format!("write-torn-block:{n}"));
            }
        }
    }
}
