//! Review s25r R25-1 (LOSS named within the tolerance; fixed by s26c): raid6 and rs 4+2 (tolerance
//! 2), read-modify-write, 6 OSSs, 4 KiB unit. A write over data columns 2 and 3 of stripe 0
//! (file bytes 8292..16292) is killed at its LAST block write, the torn second parity (in
//! plan order: column 2, column 3, P, then Q torn: its new payload under its old checksum).
//! Every data block and P landed whole; Q's payload is the new Q. Then the disk of data
//! column 0 (or 1), which the write never touched, is gone at the next open (its directory
//! missing) and recorded failed with `store fail`, as the open's refusal advises. The same
//! with the disk of column 2 or 3 (the write's own, acknowledged bytes beside its range).
//! Faults: the crash and one disk: within the tolerance.
//!
//! Column 0 decodes from the new version: column 1 (untouched, its checksum), columns 2
//! and 3 (their bytes match the write's journaled crcs), P (matches the journaled home
//! parity crc, s22b's `WriteParityCrcs`): k columns, and Q's torn payload matches its
//! journaled crc too, one more column that agrees (s22b's own rule: "decoded from k
//! columns of one version and taken only when one more column ... agrees"). Recovery
//! recorded the put's bytes 0..4096 (the whole untouched column) LOST instead ("too few
//! columns left to tell"). With the disk gone AFTER the open (recovery ran with it) every
//! byte reads. Found by `scripts/repro/s25r-crash-rebuild.py` (`MISSING=1`).
//!
//! Fixed (s26c): `confirm_by_one_version` skipped every block failing its checksum, so the
//! torn Q was never checked against the parity crc it matches. A block failing its
//! checksum now counts as a check of the new version's decode where its whole payload
//! matches what the write journaled for that element block (`torn_block_whole_new`), and
//! must agree with the decode; it is never one of the k columns decoded from. Also here:
//! P torn with Q landed, rs 4+3, `online` of the returned disk, and a stale column whose
//! decode the torn Q refuses.
//!
//! Changed (s27e): R25-1's exactly-k cases, P torn with Q old and Q never written, read
//! every byte: the new version's k columns, each proven (by its journaled crc, or its
//! checksum where the write did not touch it; a torn block whole new by its crc may be one
//! of them), decode the dead column, checked by the crc the write journaled for Q (a block
//! of the new version the disk does not hold). A stale column among the k fails that check.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 32_768;
const WRITE_OFFSET: usize = 8_292;
const WRITE_BYTES: usize = 8_000;

/// splitmix64 bytes: a wrong decode cannot agree with them by chance (the common helpers'
/// patterned `bytes()` can).
fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// How the cut write's blocks are left by the kill.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Torn {
    /// As the kill left them.
    AsKilled,
    /// The torn parity and the one landed whole swapped, after the fact: the one landed
    /// gets its checksum from before the write back (its new payload under its old
    /// checksum, as a kill between the two leaves it), the torn one the checksum the same
    /// write, run whole on the same image, landed. Killed at Q's write, this is the
    /// review's scene with P torn and Q landed (plan order always writes P first).
    SwappedParity,
    /// The torn parity's slot put back as it was before the write, payload and checksum:
    /// the disk a kill just before that block write leaves. Killed at Q's write, Q was
    /// never written (review s25r's found-by trial 19: P landed, Q old).
    NeverWritten,
}

/// A store of `code` over `oss_count` OSSs (rmw, 4 KiB unit), the put, the write killed at
/// `kill_at` (plan order), its blocks left as `torn` says, the disk of `dead_oss` gone and
/// failed. Returns the store's directory (in `tmp`), the put's bytes and the cut write's
/// file as it would be whole.
fn cut_and_fail(
    tmp: &tempfile::TempDir,
    (code, oss_count): (&[&str], usize),
    kill_at: &str,
    torn: Torn,
    dead_oss: usize,
) -> (std::path::PathBuf, Vec<u8>, Vec<u8>) {
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let oss = oss_count.to_string();
    let mut args = vec!["--oss", oss.as_str(), "--write-path", "rmw"];
    args.extend_from_slice(code);
    init_store_unit(d, UNIT_BYTES, &args);
    let old = random_bytes(25_001, OLD_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let before = tmp.path().join("before");
    copy_store(&dir, &before);
    let new_bytes = random_bytes(25_002, WRITE_BYTES);
    let at = WRITE_OFFSET.to_string();
    let whole = tmp.path().join("whole");
    if torn == Torn::SwappedParity {
        // The same write run whole on the same image, for the checksums it lands; then the
        // image back (in place: the superblock names its OSS directories by path).
        ok(&["store", "write", d, "f", "--offset", &at], &new_bytes);
        copy_store(&dir, &whole);
        copy_store(&before, &dir);
    }
    assert!(
        killed_at_with(
            &["store", "write", d, "f", "--offset", &at],
            &new_bytes,
            kill_at,
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "the write finished before {kill_at}"
    );
    if torn == Torn::SwappedParity {
        swap_torn_parity((&before, &whole), &dir, oss_count);
    }
    if torn == Torn::NeverWritten {
        unwrite_torn_parity(&before, &dir, oss_count);
    }
    std::fs::rename(
        dir.join(format!("oss-{dead_oss}")),
        tmp.path().join("oss-gone"),
    )
    .unwrap();
    ok(&["store", "fail", d, "--oss", &dead_oss.to_string()], b"");
    let mut new = old.clone();
    put_over(&mut new, WRITE_OFFSET, &new_bytes);
    (dir, old, new)
}

/// Bytes of one slot of an object file at a 4 KiB unit: the payload, then its crc32c.
const SLOT_BYTES: usize = UNIT_BYTES as usize + 4;

/// In the cut store at `dir`, the one parity slot the write tore (its payload new, its
/// checksum `before`'s) gets the checksum the write run whole left (`whole`): landed; the
/// one it landed (payload and checksum new) gets `before`'s checksum back: torn.
fn swap_torn_parity(
    (before, whole): (&std::path::Path, &std::path::Path),
    dir: &std::path::Path,
    oss_count: usize,
) {
    let unit = UNIT_BYTES as usize;
    let (mut landed_now, mut torn_now) = (0, 0);
    for oss in 0..oss_count {
        let objects = dir.join(format!("oss-{oss}")).join("objects");
        for entry in std::fs::read_dir(&objects).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if !name.ends_with(".parity") {
                continue;
            }
            let in_tree = |tree: &std::path::Path| {
                std::fs::read(tree.join(format!("oss-{oss}/objects/{name}"))).unwrap()
            };
            let (old, run_whole) = (in_tree(before), in_tree(whole));
            let mut now = std::fs::read(objects.join(&name)).unwrap();
            assert!(old.len() == now.len() && run_whole.len() == now.len());
            for slot in 0..now.len() / SLOT_BYTES {
                let at = slot * SLOT_BYTES;
                let (payload, crc) = (at..at + unit, at + unit..at + SLOT_BYTES);
                if old[payload.clone()] == now[payload.clone()] {
                    continue; // the cut write did not write it
                }
                assert!(
                    now[payload.clone()] == run_whole[payload],
                    "{name}: one write"
                );
                if old[crc.clone()] == now[crc.clone()] {
                    now[crc.clone()].copy_from_slice(&run_whole[crc]);
                    landed_now += 1;
                } else {
                    now[crc.clone()].copy_from_slice(&old[crc]);
                    torn_now += 1;
                }
            }
            std::fs::write(objects.join(&name), now).unwrap();
        }
    }
    assert_eq!(
        (landed_now, torn_now),
        (1, 1),
        "one parity block torn, one landed whole"
    );
}

/// In the cut store at `dir`, the one parity slot the write tore (its payload new, its
/// checksum `before`'s) gets `before`'s payload back: that block never written.
fn unwrite_torn_parity(before: &std::path::Path, dir: &std::path::Path, oss_count: usize) {
    let unit = UNIT_BYTES as usize;
    let mut unwritten = 0;
    for oss in 0..oss_count {
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
                if old[payload.clone()] != now[payload.clone()] && old[crc.clone()] == now[crc] {
                    now[payload.clone()].copy_from_slice(&old[payload]);
                    unwritten += 1;
                }
            }
            std::fs::write(objects.join(&name), now).unwrap();
        }
    }
    assert_eq!(unwritten, 1, "one parity block torn");
}

/// The scene; `None` when every byte read old or new, else the refusal.
fn scene(
    (code, oss_count): (&[&str], usize),
    kill_at: &str,
    torn: Torn,
    dead_oss: usize,
) -> Option<String> {
    let tmp = fast_tempdir("exaraid-s25r-torn-parity");
    let (dir, old, new) = cut_and_fail(&tmp, (code, oss_count), kill_at, torn, dead_oss);
    let got = exaraid(&["store", "get", s(&dir), "f"], b"");
    if !got.status.success() {
        return Some(String::from_utf8_lossy(&got.stderr).to_string());
    }
    let got = got.stdout;
    assert_eq!(got.len(), OLD_BYTES);
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| got[i] != old[i] && got[i] != new[i])
        .collect();
    assert!(
        wrong.is_empty(),
        "{code:?} {kill_at} OSS {dead_oss} dead: {} bytes neither old nor new, first {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(4)]
    );
    None
}

/// The 4th block write in plan order is Q of stripe 0 (column 2, column 3, P, Q): the write
/// is whole but for Q's checksum.
#[test]
fn a_write_torn_only_in_its_last_parity_beside_a_dead_untouched_column_loses_nothing() {
    let mut lost = Vec::new();
    for code in [RAID6, RS_4_2] {
        // 0, 1: columns the write never touched; 2, 3: its own columns (the put's bytes
        // beside its range, 8192..8292 and 16292..16384, are acknowledged).
        for dead_oss in [0, 1, 2, 3] {
            let kill = "write-torn-block:4";
            if let Some(err) = scene((code, 6), kill, Torn::AsKilled, dead_oss) {
                lost.push(format!("{code:?} OSS {dead_oss} dead: {err}"));
            }
        }
    }
    assert!(
        lost.is_empty(),
        "a write cut at its torn Q, beside one dead disk it never touched, recorded acknowledged bytes LOST:\n{}",
        lost.join("\n")
    );
}

/// The same with P torn and Q landed whole (`Torn::SwappedParity` after the kill at Q's
/// write): Q, verified and new by its journaled crc, is one of the k columns of the new
/// version, and P's torn payload, matching its journaled crc, is the column more that
/// agrees.
#[test]
fn a_write_torn_only_in_its_first_parity_beside_a_dead_column_loses_nothing() {
    let mut lost = Vec::new();
    for code in [RAID6, RS_4_2] {
        for dead_oss in [0, 1, 2, 3] {
            let kill = "write-torn-block:4";
            if let Some(err) = scene((code, 6), kill, Torn::SwappedParity, dead_oss) {
                lost.push(format!("{code:?} OSS {dead_oss} dead: {err}"));
            }
        }
    }
    assert!(
        lost.is_empty(),
        "a write torn only in P, beside one dead disk, recorded acknowledged bytes LOST:\n{}",
        lost.join("\n")
    );
}

/// rs 4+3 over 7 OSSs (plan order: column 2, column 3, P, Q, R): killed at Q's write (Q
/// torn, R old) the new version has k columns (1, 2, 3, P) and Q's torn payload agrees;
/// killed at R's (R torn) it has k + 1 verified ones. Either way every byte reads.
#[test]
fn rs_4_3_a_write_torn_in_one_parity_beside_a_dead_column_loses_nothing() {
    let mut lost = Vec::new();
    for kill in ["write-torn-block:4", "write-torn-block:5"] {
        for dead_oss in [0, 1, 2, 3] {
            if let Some(err) = scene((RS_4_3, 7), kill, Torn::AsKilled, dead_oss) {
                lost.push(format!("{kill} OSS {dead_oss} dead: {err}"));
            }
        }
    }
    assert!(
        lost.is_empty(),
        "rs 4+3, a write torn in one parity beside one dead disk, recorded acknowledged bytes LOST:\n{}",
        lost.join("\n")
    );
}

/// Killed at P's write (P torn, Q old), and at Q's with Q then never written (P landed,
/// Q old): the new version has exactly k columns, each proven (column 1 untouched, by its
/// checksum; columns 2 and 3 and P by the crcs the write journaled for them, P's torn
/// payload whole), and no column left to check with; but the write journaled Q's new crc,
/// and the decode's Q must match it (s27e). Before s27e both stayed LOST by s22b's rule
/// ("P torn with Q old ... stays LOST and named" was pinned here): "'f' bytes 0..4096
/// (OSS 0 ...) are lost".
#[test]
fn a_write_cut_with_exactly_k_columns_of_its_new_version_beside_a_dead_column_loses_nothing() {
    let mut lost = Vec::new();
    for code in [RAID6, RS_4_2] {
        for (kill, torn, what) in [
            ("write-torn-block:3", Torn::AsKilled, "P torn, Q old"),
            ("write-torn-block:4", Torn::NeverWritten, "Q never written"),
        ] {
            for dead_oss in [0, 1, 2, 3] {
                if let Some(err) = scene((code, 6), kill, torn, dead_oss) {
                    lost.push(format!("{code:?} {what}, OSS {dead_oss} dead: {err}"));
                }
            }
        }
    }
    assert!(
        lost.is_empty(),
        "a write cut with exactly k columns of its new version, beside one dead disk, recorded acknowledged bytes LOST:\n{}",
        lost.join("\n")
    );
}

/// Beyond the tolerance: column 1's OSS lost an acknowledged write of its whole element
/// (its data zone file put back as it was before: the put's bytes under valid checksums, a
/// stale element), then the write cut as `kill_at` and `torn` say and the disk of column 0
/// gone. Returns column 0's bytes as read, or the refusal; panics where they read wrong.
fn stale_column_scene(code: &[&str], kill_at: &str, torn: Torn) -> Result<(), String> {
    let tmp = fast_tempdir("exaraid-s25r-torn-parity-stale");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut args = vec!["--oss", "6", "--write-path", "rmw"];
    args.extend_from_slice(code);
    init_store_unit(d, UNIT_BYTES, &args);
    let old = random_bytes(25_001, OLD_BYTES);
    ok(&["store", "put", d, "f"], &old);
    // Column 1 of stripe 0 (file bytes 4096..8192) is on OSS 1; its data zone file as
    // the put left it.
    let zone = dir.join("oss-1/objects/0.data");
    let stale = std::fs::read(&zone).unwrap();
    let again = random_bytes(25_003, UNIT_BYTES as usize);
    let column_1 = UNIT_BYTES.to_string();
    ok(&["store", "write", d, "f", "--offset", &column_1], &again);
    std::fs::write(&zone, &stale).unwrap();
    let mut acked = old.clone();
    put_over(&mut acked, UNIT_BYTES as usize, &again);
    let before = tmp.path().join("before");
    copy_store(&dir, &before);
    let new_bytes = random_bytes(25_002, WRITE_BYTES);
    let at = WRITE_OFFSET.to_string();
    assert!(killed_at_with(
        &["store", "write", d, "f", "--offset", &at],
        &new_bytes,
        kill_at,
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    ));
    match torn {
        Torn::AsKilled => {}
        Torn::NeverWritten => unwrite_torn_parity(&before, &dir, 6),
        Torn::SwappedParity => unreachable!("not a scene of this test"),
    }
    std::fs::rename(dir.join("oss-0"), tmp.path().join("oss-gone")).unwrap();
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let got = exaraid(
        &["store", "read", d, "f", "--offset", "0", "--length", "4096"],
        b"",
    );
    if !got.status.success() {
        return Err(String::from_utf8_lossy(&got.stderr).to_string());
    }
    assert!(
        got.stdout[..] == acked[..UNIT_BYTES as usize],
        "{code:?} {kill_at}: column 0 read WRONG bytes through the stale column"
    );
    Ok(())
}

/// The torn block's other duty: the write torn at Q. The new version's k verified columns
/// (1 stale, 2, 3, P) decode a wrong column 0; Q's torn payload, whole new by its journaled
/// crc, disagrees with that decode, so nothing is taken: column 0's bytes read right or are
/// refused, never wrong. (A rule counting the torn Q as a check without asking it to agree
/// read them wrong here.)
#[test]
fn a_torn_q_that_disagrees_with_a_decode_through_a_stale_column_refuses_it() {
    for code in [RAID6, RS_4_2] {
        let _ = stale_column_scene(code, "write-torn-block:4", Torn::AsKilled);
    }
}

/// s27e's check: with exactly k columns of the new version (P torn with Q old; Q never
/// written) and the stale column 1 among them, the decode is wrong, and the crc the write
/// journaled for Q refuses it: column 0's bytes are refused, named (the rule taking k
/// proven columns without that check read them wrong here: "column 0 read WRONG bytes
/// through the stale column").
#[test]
fn a_decode_from_exactly_k_columns_through_a_stale_one_is_refused_by_a_journaled_parity_crc() {
    for code in [RAID6, RS_4_2] {
        for (kill, torn) in [
            ("write-torn-block:3", Torn::AsKilled),
            ("write-torn-block:4", Torn::NeverWritten),
        ] {
            let err = stale_column_scene(code, kill, torn)
                .expect_err("a decode through the stale column cannot read right");
            assert!(
                err.contains("'f' bytes 0..4096 (OSS 0"),
                "{code:?} {kill}: the refusal names column 0's bytes: {err}"
            );
        }
    }
}

/// After the fix the returned disk's column is its own bytes again: the disk of column 0
/// back and `online`, its object files are byte for byte what it held when it went away
/// (nothing rewrote its intact column with other bytes: the review's second symptom),
/// `scrub` finds nothing, and with both parity OSSs failed every byte reads from the data
/// columns, the returned one's included.
#[test]
fn the_returned_disk_of_the_untouched_column_keeps_its_own_bytes_after_online() {
    for code in [RAID6, RS_4_2] {
        let tmp = fast_tempdir("exaraid-s25r-torn-parity-online");
        let kill = "write-torn-block:4";
        let (dir, old, new) = cut_and_fail(&tmp, (code, 6), kill, Torn::AsKilled, 0);
        let d = s(&dir);
        let got = ok(&["store", "get", d, "f"], b"");
        assert!((0..OLD_BYTES).all(|i| got[i] == old[i] || got[i] == new[i]));
        let gone = tmp.path().join("oss-gone");
        let held = tmp.path().join("oss-0-when-gone");
        copy_store(&gone, &held);
        std::fs::rename(&gone, dir.join("oss-0")).unwrap();
        ok(&["store", "online", d, "--oss", "0"], b"");
        for entry in std::fs::read_dir(held.join("objects")).unwrap() {
            let name = entry.unwrap().file_name();
            let was = std::fs::read(held.join("objects").join(&name)).unwrap();
            let is = std::fs::read(dir.join("oss-0/objects").join(&name)).unwrap();
            assert!(
                was == is,
                "{code:?}: `online` rewrote OSS 0's object {name:?} with other bytes"
            );
        }
        ok(&["store", "scrub", d], b"");
        ok(&["store", "fail", d, "--oss", "4"], b"");
        ok(&["store", "fail", d, "--oss", "5"], b"");
        let again = ok(&["store", "get", d, "f"], b"");
        assert!(
            again == got,
            "{code:?}: with both parity OSSs failed the file reads as before"
        );
    }
}

/// The same disk gone AFTER the open (recovery ran with every column): every byte reads.
/// This is the control: the loss above comes from deciding the cut write without the disk.
#[test]
fn the_same_torn_parity_with_the_disk_gone_after_recovery_reads_every_byte() {
    for code in [RAID6, RS_4_2] {
        let tmp = fast_tempdir("exaraid-s25r-torn-parity-ctl");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        let mut args = vec!["--oss", "6", "--write-path", "rmw"];
        args.extend_from_slice(code);
        init_store_unit(d, UNIT_BYTES, &args);
        let old = random_bytes(25_001, OLD_BYTES);
        ok(&["store", "put", d, "f"], &old);
        let new_bytes = random_bytes(25_002, WRITE_BYTES);
        let at = WRITE_OFFSET.to_string();
        assert!(killed_at_with(
            &["store", "write", d, "f", "--offset", &at],
            &new_bytes,
            "write-torn-block:4",
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ));
        ok(&["store", "status", d], b"");
        ok(&["store", "fail", d, "--oss", "0"], b"");
        let got = ok(&["store", "get", d, "f"], b"");
        let mut new = old.clone();
        put_over(&mut new, WRITE_OFFSET, &new_bytes);
        assert_eq!(got.len(), OLD_BYTES);
        assert!((0..got.len()).all(|i| got[i] == old[i] || got[i] == new[i]));
    }
}
