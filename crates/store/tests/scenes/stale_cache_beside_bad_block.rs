//! Review s13r R13-2 (WRONG BYTES, exit 0, every array code): one OSS's WCL cache zone file
//! rolled back to an older copy (a disk that acknowledged writes, then lost its volatile
//! cache: the file's last writes and its growth gone). On an array code an OSS's column
//! holds several rows of one cache stripe, so the column can hold a stale element (old bytes
//! under a valid checksum) beside elements the older file does not hold at all (checksum-bad:
//! missing). The running-parity check skipped a cache stripe with a block that does not
//! read ("the checksum pass's"), and the flush moved the stale element home under fresh
//! parity: the lost write's range read the bytes from before it, rc 0, scrub clean.
//!
//! Specification: such a cache stripe is checked with the bad blocks erased. Erasing them
//! erases their column (a code decodes columns), so the decode gives the whole column from
//! the others and the parity equations left check it: where they hold, the column's
//! readable elements that differ from the decode are the stale ones and go home corrected;
//! where they do not, the bytes are recorded lost. Never the stale bytes moved home as if
//! right. Deterministic scene after `ONLY=16 AFTER=0 CODE="dcode --p 5" NOSS=5
//! scripts/repro/stale-cache-fuzz.py 20 9`: D-code p=5 over 5 OSSs, 16 KiB elements.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{InitOptions, Store, WritePath};

const ELEMENT_BYTES: usize = 16_384;
const FILE_BYTES: usize = 203_666;

fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

struct Scene {
    acked: Vec<u8>,
    /// The file's bytes before the lost writes.
    before_lost: Vec<u8>,
    /// The lost write that a readable (stale) element holds.
    stale_range: (usize, usize),
}

/// `put f`; a cached write into data element 0 (opens stripe 0's cache stripe); OSS V's
/// cache zone file copied (V: element 0's OSS); two more cached writes, lost by V: one
/// over element 0 again (stale after the rollback), one into the element of V's column at
/// its last data row; the copy put back, cut where that element begins (so it and the
/// column's parity rows after it are missing, as the round's shorter older file left them).
fn scene(dir: &Path, code: CodeSpec, oss: usize) -> Scene {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(dir, &opts).unwrap();
    let mut acked = pattern(1, FILE_BYTES);
    store.put("f", &acked).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout().clone();
    let write = |acked: &mut Vec<u8>, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        acked[at..at + len].copy_from_slice(&bytes);
    };
    write(&mut acked, 202, 2, 2960);
    let victim = layout.locate(id, 0).oss;
    let col = layout.geometry().data_pos[0].col;
    // Data element of stripe 0 in V's column at the row furthest down.
    let (far, _) = layout
        .geometry()
        .data_pos
        .iter()
        .enumerate()
        .filter(|(_, p)| p.col == col)
        .max_by_key(|(_, p)| p.row)
        .unwrap();
    assert!(far > 0, "an array code: V's column holds several data rows");
    let copy = std::fs::read(cache_zone_file(dir, victim)).unwrap();
    let before_lost = acked.clone();
    let stale_range = (4340, 4340 + 1820);
    write(&mut acked, stale_range.0, 3, 1820);
    write(&mut acked, far * ELEMENT_BYTES + 100, 4, 9000);
    store.close().unwrap();
    let grown = std::fs::read(cache_zone_file(dir, victim)).unwrap();
    std::fs::write(cache_zone_file(dir, victim), &copy).unwrap();
    // The element of the lost write to data row 2, and every slot after it, are gone: the
    // file ends where that element began (its slot: the row-0 slot, the lowest one the lost
    // writes changed, plus its row), as when the older file was shorter.
    let slot_bytes = ELEMENT_BYTES + ELEMENT_BYTES / 4096 * 4;
    let first_changed = (0..copy.len()).find(|&i| copy[i] != grown[i]).unwrap();
    let row_0_slot = first_changed / slot_bytes;
    let end = (row_0_slot + layout.geometry().data_pos[far].row) * slot_bytes;
    assert!(end < copy.len(), "the older file is cut");
    std::fs::write(cache_zone_file(dir, victim), &copy[..end]).unwrap();
    Scene {
        acked,
        before_lost,
        stale_range,
    }
}

fn array_codes() -> Vec<(&'static str, CodeSpec, usize)> {
    vec![
        ("dcode p=5", CodeSpec::array(CodeKind::Dcode, 5), 5),
        ("xcode p=5", CodeSpec::array(CodeKind::Xcode, 5), 5),
    ]
}

/// Every 4 KiB block of "f" reads as acknowledged, or its read fails naming the loss;
/// never other bytes with success.
fn assert_acked_or_refused(store: &Store, scene: &Scene, what: &str) {
    let (a, z) = scene.stale_range;
    for at in (0..FILE_BYTES).step_by(4096) {
        let n = 4096.min(FILE_BYTES - at);
        match store.read("f", at as u64, n as u64) {
            Ok(got) => {
                let wrong = (0..n).filter(|&i| got[i] != scene.acked[at + i]).count();
                let stale = (a.max(at)..z.min(at + n)).all(|i| got[i - at] == scene.before_lost[i]);
                assert!(
                    wrong == 0,
                    "{what}: bytes {at}..{} read {wrong} wrong bytes with success (the lost write's range reads the bytes from before it: {stale})",
                    at + n
                );
            }
            Err(e) => assert!(e.to_string().contains("lost"), "{what}: {e}"),
        }
    }
}

#[test]
fn flush_never_moves_a_stale_cache_element_beside_a_missing_one_home() {
    for (what, code, oss) in array_codes() {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let s = scene(&dir, code, oss);
        let store = Store::open(&dir).unwrap();
        let _ = store.flush();
        assert_acked_or_refused(&store, &s, what);
        // Here the decode with the missing column erased satisfies the equation left: the
        // stale element is located and goes home corrected, nothing lost.
        assert!(store.status().unwrap().lost_ranges.is_empty(), "{what}");
        assert!(store.get("f").unwrap() == s.acked, "{what}");
        assert_consistent(&store);
        store.close().unwrap();
        let store = Store::open(&dir).unwrap();
        assert_acked_or_refused(&store, &s, &format!("{what}, reopened"));
    }
}

/// Scrub sees the stale element although its cache stripe has blocks that do not read, and
/// after `--repair` the flush moves the acknowledged bytes home.
#[test]
fn scrub_checks_a_cache_stripe_with_a_missing_element_against_its_running_parity() {
    for (what, code, oss) in array_codes() {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let s = scene(&dir, code, oss);
        let store = Store::open(&dir).unwrap();
        let report = store.scrub(false).unwrap();
        assert!(
            report.parity_mismatches.contains(&("f".to_string(), 0)),
            "{what}: the stale element beside the missing ones is seen: {report:?}"
        );
        let _ = store.scrub(true).unwrap();
        store.flush().unwrap();
        assert_acked_or_refused(&store, &s, what);
        assert_consistent(&store);
    }
}

/// The scene, then an acknowledged overwrite of part of the stale range before the flush:
/// its running-parity delta reads the stale element as the old value. The check before the
/// delta corrects it first (located by the decode of the column with its missing blocks
/// erased), so the delta keeps the running parity right and the flush moves every
/// acknowledged byte home.
#[test]
fn an_overwrite_of_a_stale_cache_element_beside_a_missing_one_goes_home_right() {
    for (what, code, oss) in array_codes() {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let mut s = scene(&dir, code, oss);
        let store = Store::open(&dir).unwrap();
        let at = s.stale_range.0 + 500;
        let bytes = pattern(7, 700);
        store.write("f", at as u64, &bytes).unwrap();
        s.acked[at..at + bytes.len()].copy_from_slice(&bytes);
        let _ = store.flush();
        assert_acked_or_refused(&store, &s, what);
        assert!(store.status().unwrap().lost_ranges.is_empty(), "{what}");
        assert!(store.get("f").unwrap() == s.acked, "{what}");
        assert_consistent(&store);
    }
}
