//! s30e (s27e's sweep, trials 40 and 46 of `s25r-crash-rebuild.py MISSING=1 WP=rmw ACK=1`,
//! raid6 + rs 4+2, seed 7; seed 8's trial 23): raid6 and rs 4+2 (tolerance 2),
//! read-modify-write, 6 OSSs, 4 KiB unit. A write over PART of data column 3 of stripe 0
//! (element bytes 1349..3349, file bytes 13637..15637) is killed in plan order (column 3,
//! P, Q): at P's block write (P torn: its new payload under its old checksum; Q old), at
//! Q's (P landed, Q torn), or at Q's with Q then never written (P landed; Q old). Then the
//! disk of column 0, 1, 2 or 3 is gone at the next open and recorded failed. Faults: the
//! crash and one disk: within the tolerance.
//!
//! The new version has exactly k columns (the untouched ones by their checksums, column 3
//! and P by the crcs the write journaled for their parts) and Q, old or torn on disk, is
//! covered by the write only in part: s27e's check (`journaled_crcs_check`) took only a
//! block the write covers whole, so the dead column's acknowledged bytes were recorded LOST
//! ("too few columns left to tell"). Now the decode's Q must equal the disk's Q beside the
//! write's part (the same bytes in both versions there) and match Q's journaled crc inside
//! it; and P torn in part may be one of the k (its part proven by its crc, the bytes beside
//! it by the check, as an untouched column's are).
//!
//! Beside it, a stale column 1 among the k (a lost write over its element bytes 0..1000,
//! outside the cut write's range): the decode is wrong there only, in column 0 and in Q;
//! Q's crc (inside the range) cannot see it, the comparison with the disk's Q beside the
//! range does, and refuses.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 32_768;
/// Column 3 of stripe 0 is file bytes 12288..16384: the write covers its element bytes
/// 1349..3349 only (so P's and Q's too).
const WRITE_OFFSET: usize = 12_288 + 1_349;
const WRITE_BYTES: usize = 2_000;
/// Bytes of one slot of an object file at a 4 KiB unit: the payload, then its crc32c.
const SLOT_BYTES: usize = UNIT_BYTES as usize + 4;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cut {
    /// Killed at P's block write (the 2nd in plan order): P torn, Q old.
    PTornQOld,
    /// Killed at Q's (the 3rd): P landed, Q torn in part (its part new, beside it its old
    /// bytes, under its old checksum).
    QTorn,
    /// Killed at Q's (the 3rd), then Q's slot put back as before the write: P landed, Q
    /// never written (a kill just before Q's write leaves that).
    QNeverWritten,
}

impl Cut {
    fn kill_at(self) -> &'static str {
        match self {
            Cut::PTornQOld => "write-torn-block:2",
            Cut::QTorn | Cut::QNeverWritten => "write-torn-block:3",
        }
    }
}

/// The parity slots of `dir` whose payload differs from `before`'s: (torn: checksum as
/// before, landed: checksum new). With `unwrite_torn`, the torn ones get `before`'s payload
/// back (never written).
fn parity_slots(
    before: &std::path::Path,
    dir: &std::path::Path,
    unwrite_torn: bool,
) -> (usize, usize) {
    let unit = UNIT_BYTES as usize;
    let (mut torn, mut landed) = (0, 0);
    for oss in 0..6 {
        let objects = dir.join(format!("oss-{oss}")).join("objects");
        for entry in std::fs::read_dir(&objects).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if !name.ends_with(".parity") {
                continue;
            }
            let old = std::fs::read(before.join(format!("oss-{oss}/objects/{name}"))).unwrap();
            let mut now = std::fs::read(objects.join(&name)).unwrap();
            assert_eq!(old.len(), now.len());
            for slot in 0..now.len() / SLOT_BYTES {
                let at = slot * SLOT_BYTES;
                let (payload, crc) = (at..at + unit, at + unit..at + SLOT_BYTES);
                if old[payload.clone()] == now[payload.clone()] {
                    continue;
                }
                if old[crc.clone()] == now[crc] {
                    torn += 1;
                    if unwrite_torn {
                        now[payload.clone()].copy_from_slice(&old[payload]);
                    }
                } else {
                    landed += 1;
                }
            }
            std::fs::write(objects.join(&name), now).unwrap();
        }
    }
    (torn, landed)
}

/// A fault beyond the tolerance beside the crash and the dead disk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Beyond {
    Nothing,
    /// A lost write over column 1's element bytes 0..1000 (its data zone file put back as
    /// the put left it: the put's bytes under valid checksums), before the cut write.
    StaleColumn1,
    /// Rot in P's block of stripe 0 at element byte 100 (beside the cut write's part),
    /// after the crash, before the next open.
    RotInP,
}

/// The store (rmw, 6 OSSs, `code`), the put, the fault `beyond`, the write cut as `cut`
/// says, the disk of `dead_oss` gone and failed (the open after the crash). Returns the store's directory, the acknowledged bytes, and the file as
/// the cut write would leave it whole.
fn cut_and_fail(
    tmp: &tempfile::TempDir,
    code: &[&str],
    cut: Cut,
    dead_oss: usize,
    beyond: Beyond,
) -> (std::path::PathBuf, Vec<u8>, Vec<u8>) {
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut args = vec!["--oss", "6", "--write-path", "rmw"];
    args.extend_from_slice(code);
    init_store_unit(d, UNIT_BYTES, &args);
    let mut acked = random_bytes(30_001, OLD_BYTES);
    ok(&["store", "put", d, "f"], &acked);
    if beyond == Beyond::StaleColumn1 {
        // Column 1 of stripe 0 (file bytes 4096..8192) is on OSS 1.
        let zone = dir.join("oss-1/objects/0.data");
        let stale = std::fs::read(&zone).unwrap();
        let again = random_bytes(30_003, 1_000);
        ok(&["store", "write", d, "f", "--offset", "4096"], &again);
        std::fs::write(&zone, &stale).unwrap();
        put_over(&mut acked, 4096, &again);
    }
    let before = tmp.path().join("before");
    copy_store(&dir, &before);
    let new_bytes = random_bytes(30_002, WRITE_BYTES);
    let at = WRITE_OFFSET.to_string();
    assert!(
        killed_at_with(
            &["store", "write", d, "f", "--offset", &at],
            &new_bytes,
            cut.kill_at(),
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "the write finished before {cut:?}"
    );
    let slots = parity_slots(&before, &dir, cut == Cut::QNeverWritten);
    let want = match cut {
        Cut::PTornQOld => (1, 0),
        Cut::QTorn | Cut::QNeverWritten => (1, 1),
    };
    assert_eq!(
        slots, want,
        "{code:?} {cut:?}: (torn, landed) parity blocks"
    );
    if beyond == Beyond::RotInP {
        // P of stripe 0 is on OSS 4, its slot 0 in the parity zone file.
        let zone = dir.join("oss-4/objects/0.parity");
        let mut p = std::fs::read(&zone).unwrap();
        p[100] ^= 0x5a;
        std::fs::write(&zone, &p).unwrap();
    }
    std::fs::rename(
        dir.join(format!("oss-{dead_oss}")),
        tmp.path().join("oss-gone"),
    )
    .unwrap();
    ok(&["store", "fail", d, "--oss", &dead_oss.to_string()], b"");
    let mut new = acked.clone();
    put_over(&mut new, WRITE_OFFSET, &new_bytes);
    (dir, acked, new)
}

/// Before s30e: "'f' bytes 0..4096 (OSS 0, recovery could not tell its true bytes (...
/// too few columns left to tell))", and the same for OSS 1 and 2 (OSS 3 read): 18 of 24
/// LOST.
#[test]
fn a_write_over_part_of_its_parity_cut_with_exactly_k_columns_beside_a_dead_column_loses_nothing() {
    let mut lost = Vec::new();
    for code in [RAID6, RS_4_2] {
        for cut in [Cut::PTornQOld, Cut::QTorn, Cut::QNeverWritten] {
            for dead_oss in [0, 1, 2, 3] {
                let tmp = fast_tempdir("exaraid-s30e-part-parity");
                let (dir, old, new) = cut_and_fail(&tmp, code, cut, dead_oss, Beyond::Nothing);
                let got = exaraid(&["store", "get", s(&dir), "f"], b"");
                if !got.status.success() {
                    let err = String::from_utf8_lossy(&got.stderr).to_string();
                    lost.push(format!("{code:?} {cut:?} OSS {dead_oss} dead: {err}"));
                    continue;
                }
                let got = got.stdout;
                assert_eq!(got.len(), OLD_BYTES);
                let wrong = (0..got.len())
                    .filter(|&i| got[i] != old[i] && got[i] != new[i])
                    .count();
                assert_eq!(
                    wrong, 0,
                    "{code:?} {cut:?} OSS {dead_oss} dead: bytes neither old nor new"
                );
            }
        }
    }
    assert!(
        lost.is_empty(),
        "a write over part of its parity, cut with exactly k columns of its new version beside one dead disk, recorded acknowledged bytes LOST:\n{}",
        lost.join("\n")
    );
}

/// Beyond the tolerance (crash, dead column 0, stale column 1): the decode through the
/// stale column is wrong at column 0's bytes 0..1000 only, outside the write's range, where
/// Q's journaled crc says nothing. It is refused, named, never read: with the check by Q's
/// crc alone (the comparison with the disk's Q beside the range left out) column 0 read
/// WRONG bytes here.
#[test]
fn a_decode_through_a_stale_column_wrong_only_beside_the_write_is_refused_by_the_disk_bytes_of_q() {
    for code in [RAID6, RS_4_2] {
        for cut in [Cut::PTornQOld, Cut::QTorn, Cut::QNeverWritten] {
            let tmp = fast_tempdir("exaraid-s30e-part-parity-stale");
            let (dir, acked, _) = cut_and_fail(&tmp, code, cut, 0, Beyond::StaleColumn1);
            column_0_is_refused_never_read_wrong(&dir, &acked, &format!("{code:?} {cut:?}"));
        }
    }
}

/// Beyond the tolerance the other way (crash, dead column 0, rot in P's torn block at
/// element byte 100, beside the write's part that P's crc proves): P torn in part is one of
/// the k, so the decode is wrong at byte 100 of column 0 and of Q, and the disk's Q refuses
/// it there: refused, named (with the comparison left out: WRONG bytes, raid6 and rs 4+2).
#[test]
fn rot_beside_the_part_of_a_torn_parity_taken_among_the_k_is_refused_by_the_disk_bytes_of_q() {
    for code in [RAID6, RS_4_2] {
        let tmp = fast_tempdir("exaraid-s30e-part-parity-rot");
        let (dir, acked, _) = cut_and_fail(&tmp, code, Cut::PTornQOld, 0, Beyond::RotInP);
        column_0_is_refused_never_read_wrong(&dir, &acked, &format!("{code:?}"));
    }
}

/// Column 0's first unit read: never with success and other bytes than `acked`'s, and the
/// refusal names column 0's bytes (beyond the tolerance: refused, named).
fn column_0_is_refused_never_read_wrong(dir: &std::path::Path, acked: &[u8], scene: &str) {
    let got = exaraid(
        &[
            "store",
            "read",
            s(dir),
            "f",
            "--offset",
            "0",
            "--length",
            "4096",
        ],
        b"",
    );
    assert!(
        !got.status.success() || got.stdout[..] == acked[..UNIT_BYTES as usize],
        "{scene}: column 0 read WRONG bytes"
    );
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(
        err.contains("'f' bytes 0..4096 (OSS 0"),
        "{scene}: the refusal names column 0's bytes: {err}"
    );
}
