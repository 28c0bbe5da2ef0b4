//! A written slot with only SOME of its checksums zeroed outside exaraid (session 22, s22d;
//! an "unproven path" of docs/store.md's Limits after session 21: s21c made a slot whose
//! checksums are ALL zero read Missing, reviews E8/E10). A stored crc of 0 inside a written
//! slot is damage, never "never written": it must not vouch for any bytes, whether its
//! payload is intact or zeroed with it.
//!
//! The scenes: raid6 over 6 OSSs, rmw, 64 KiB elements, a file of 4 stripes. In data
//! element 1 of stripe 0 (file bytes 65536..131072), block 3's crc is zeroed, alone or with
//! its payload; then `get`, `scrub`, `scrub --repair`, a degraded read (another data OSS of
//! the stripe failed), beside a stale parity element (a lost write: old bytes under valid
//! checksums) and beside a write killed with a torn block in another column of the same
//! block row. Each reads every byte right (old or the cut write's, where one was cut) or
//! fails naming lost bytes; never a wrong byte with exit 0.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const UNIT_BYTES: usize = 65536;
const BLOCK_BYTES: usize = 4096;
const SLOT_BYTES: usize = UNIT_BYTES + UNIT_BYTES / BLOCK_BYTES * 4;
const OSS_COUNT: usize = 6;
const FILE_BYTES: usize = 16 * UNIT_BYTES;
/// The damaged block: block 3 of the element holding file bytes 65536..131072.
const ELEMENT_AT: usize = UNIT_BYTES;
const BLOCK: usize = 3;

#[derive(Clone, Copy, Debug)]
enum Zeroed {
    Crc,
    CrcAndPayload,
}

struct Store {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    model: Vec<u8>,
}

impl Store {
    fn d(&self) -> &str {
        s(&self.dir)
    }
}

fn new_store() -> Store {
    let tmp = fast_tempdir("exaraid-s22d-zero-crc");
    let dir = tmp.path().join("store");
    init_store_unit(
        s(&dir),
        UNIT_BYTES as u64,
        &["--oss", "6", "--code", "raid6", "--write-path", "rmw"],
    );
    // Each element its own bytes (`bytes` repeats every 64 KiB): `home_of` finds one.
    let model: Vec<u8> = (0..FILE_BYTES / UNIT_BYTES)
        .flat_map(|e| bytes(7 + e as u8, UNIT_BYTES))
        .collect();
    ok(&["store", "put", s(&dir), "f"], &model);
    Store {
        _tmp: tmp,
        dir,
        model,
    }
}

fn zone_file(dir: &Path, oss: usize, zone: &str) -> PathBuf {
    dir.join(format!("oss-{oss}/objects/0.{zone}"))
}

/// The OSS and slot of the home data element holding file bytes `at..at + UNIT_BYTES`
/// (found by its first block's bytes, which the test's pattern makes unique).
fn home_of(st: &Store, at: usize) -> (usize, usize) {
    let want = &st.model[at..at + BLOCK_BYTES];
    for oss in 0..OSS_COUNT {
        let Ok(bytes) = std::fs::read(zone_file(&st.dir, oss, "data")) else {
            continue;
        };
        for slot in 0..bytes.len() / SLOT_BYTES {
            if &bytes[slot * SLOT_BYTES..slot * SLOT_BYTES + BLOCK_BYTES] == want {
                return (oss, slot);
            }
        }
    }
    panic!("no home element holds file bytes {at}..");
}

fn zero_block(st: &Store, (oss, slot): (usize, usize), zeroed: Zeroed) {
    let path = zone_file(&st.dir, oss, "data");
    let mut bytes = std::fs::read(&path).unwrap();
    let crc = slot * SLOT_BYTES + UNIT_BYTES + BLOCK * 4;
    bytes[crc..crc + 4].fill(0);
    if let Zeroed::CrcAndPayload = zeroed {
        let at = slot * SLOT_BYTES + BLOCK * BLOCK_BYTES;
        bytes[at..at + BLOCK_BYTES].fill(0);
    }
    std::fs::write(&path, bytes).unwrap();
}

/// `get f`: every byte the model's, or a cut write's (`cut`: its range and bytes), or a
/// failure naming lost bytes. Returns whether it succeeded.
fn get_right_or_lost(st: &Store, cut: Option<(usize, &[u8])>, what: &str) -> bool {
    let got = exaraid(&["store", "get", st.d(), "f"], b"");
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains("lost"),
            "{what}: get failed without naming lost bytes: {err}"
        );
        return false;
    }
    let got = got.stdout;
    assert_eq!(got.len(), st.model.len(), "{what}: length");
    let wrong: Vec<String> = (0..got.len())
        .filter(|&i| {
            let new = cut.and_then(|(a, b)| (a..a + b.len()).contains(&i).then(|| b[i - a]));
            got[i] != st.model[i] && Some(got[i]) != new
        })
        .take(4)
        .map(|i| format!("{i}: got {:#04x} acknowledged {:#04x}", got[i], st.model[i]))
        .collect();
    assert!(
        wrong.is_empty(),
        "{what}: get exited 0 with wrong bytes: {wrong:?}"
    );
    true
}

fn stderr_and_stdout(args: &[&str]) -> (bool, String) {
    let out = exaraid(args, b"");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn a_zeroed_crc_in_a_written_slot_reads_right_and_scrub_finds_and_repairs_it() {
    for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
        let what = format!("{zeroed:?} of one block zeroed");
        let st = new_store();
        let home = home_of(&st, ELEMENT_AT);
        zero_block(&st, home, zeroed);
        assert!(
            get_right_or_lost(&st, None, &what),
            "{what}: get lost bytes"
        );
        let (clean, report) = stderr_and_stdout(&["store", "scrub", st.d()]);
        assert!(!clean, "{what}: scrub found nothing: {report}");
        let (_, report) = stderr_and_stdout(&["store", "scrub", st.d(), "--repair"]);
        let (clean, after) = stderr_and_stdout(&["store", "scrub", st.d()]);
        assert!(
            clean,
            "{what}: scrub after `scrub --repair` ({report}): {after}"
        );
        assert!(
            get_right_or_lost(&st, None, &what),
            "{what}: get after repair lost bytes"
        );
    }
}

#[test]
fn a_zeroed_crc_in_a_written_slot_beside_a_failed_oss_reads_right_or_lost() {
    for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
        let st = new_store();
        let home = home_of(&st, ELEMENT_AT);
        let (other, _) = home_of(&st, 0);
        zero_block(&st, home, zeroed);
        let other = other.to_string();
        ok(&["store", "fail", st.d(), "--oss", &other], b"");
        let what = format!("{zeroed:?} of one block zeroed, OSS {other} failed");
        get_right_or_lost(&st, None, &what);
    }
}

/// A stale parity element of the stripe (its OSS lost the last write there: old bytes under
/// valid checksums) beside the zeroed crc: the zeroed block's decode through the stale
/// parity must not be taken on the zero crc's word.
#[test]
fn a_zeroed_crc_beside_a_stale_parity_element_never_reads_wrong_bytes() {
    for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
        for parity_index in 0..2 {
            let mut st = new_store();
            let home = home_of(&st, ELEMENT_AT);
            let parity: Vec<(PathBuf, Vec<u8>)> = (0..OSS_COUNT)
                .map(|oss| zone_file(&st.dir, oss, "parity"))
                .filter(|p| p.exists())
                .map(|p| {
                    let b = std::fs::read(&p).unwrap();
                    (p, b)
                })
                .collect();
            // A write over the same block row of data element 2 of stripe 0.
            let at = 2 * UNIT_BYTES + BLOCK * BLOCK_BYTES;
            let new = bytes(50, BLOCK_BYTES);
            ok(
                &["store", "write", st.d(), "f", "--offset", &at.to_string()],
                &new,
            );
            st.model[at..at + BLOCK_BYTES].copy_from_slice(&new);
            let changed: Vec<&(PathBuf, Vec<u8>)> = (parity.iter())
                .filter(|(p, b)| std::fs::read(p).unwrap() != *b)
                .collect();
            assert_eq!(changed.len(), 2, "the write changed both parities");
            let (path, old) = changed[parity_index];
            std::fs::write(path, old).unwrap();
            zero_block(&st, home, zeroed);
            let what = format!(
                "{zeroed:?} of one block zeroed beside stale parity {}",
                path.display()
            );
            get_right_or_lost(&st, None, &what);
            let _ = exaraid(&["store", "scrub", st.d(), "--repair"], b"");
            get_right_or_lost(&st, None, &format!("{what}, after scrub --repair"));
        }
    }
}

/// A write over the same block row of data element 2 killed with a torn block (every block
/// write of it in turn), then the crc zeroed: recovery decides the cut write's stripe with
/// a block that has no checksum to confirm its decode.
#[test]
fn a_zeroed_crc_beside_a_cut_write_reads_old_or_new_or_lost() {
    let mut runs = 0;
    for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
        for kill_at in 1..=4 {
            let st = new_store();
            let home = home_of(&st, ELEMENT_AT);
            let at = 2 * UNIT_BYTES + BLOCK * BLOCK_BYTES + 1000;
            let new = bytes(60, 1000);
            if !killed_at_with(
                &["store", "write", st.d(), "f", "--offset", &at.to_string()],
                &new,
                &format!("write-torn-block:{kill_at}"),
                &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
            ) {
                break;
            }
            runs += 1;
            zero_block(&st, home, zeroed);
            let what = format!(
                "{zeroed:?} of one block zeroed beside a write killed at block write {kill_at}"
            );
            get_right_or_lost(&st, Some((at, &new)), &what);
        }
    }
    assert!(runs >= 4, "the cut write tore blocks in {runs} runs");
}
