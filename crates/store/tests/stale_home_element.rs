//! A stale home element (review s11r R11-9, the home part): one OSS loses a write at home
//! (its data zone file put back to a copy from before the write: old bytes under valid
//! checksums, the checksums seeded with the address, not a version). Checksums cannot see
//! it; the stripe's parity can, and `scrub` reports the stripe. A later write that computes
//! new parity from home columns it reads must not take the stale column as right: a
//! reconstruct-write (rmw: it reads the columns it does not write) or a WCL settle of a
//! partial cache stripe (it reads the whole home stripe and lays the cached bytes over it)
//! made the stale bytes the stripe's data under parity computed from them: scrub clean,
//! the acknowledged bytes gone for good. Now: located and left out of the new parity where
//! the code can (raid6), else refused (a client write) or recorded lost (a settle), by name.

mod common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const FILE_BYTES: usize = 65_536;
/// Data elements per stripe in every layout here (raid5 4+1, raid6 4+2).
const K: usize = 4;
/// The stale data element of stripe 0; the later partial write covers elements 2 and 3.
const STALE_ELEMENT: usize = 1;

fn wrong_bytes(got: &[u8], expected: &[u8]) -> usize {
    got.iter().zip(expected).filter(|(a, b)| a != b).count() + got.len().abs_diff(expected.len())
}

/// The OSS holding data element `STALE_ELEMENT` of stripe 0 of `f`, and its data zone file.
fn stale_oss(store: &Store, dir: &Path) -> (usize, PathBuf) {
    let id = store.file_id("f").unwrap();
    let layout = store.layout();
    let pos = layout.geometry().data_pos[STALE_ELEMENT];
    let oss = layout.oss_of(id, 0, pos.col);
    (oss, object_file(dir, oss, &format!("{id}.data")))
}

/// A store whose stripe 0 was written whole (acknowledged, home) while the OSS of its data
/// element 1 lost that write: its data zone file is put back to the copy from before.
/// Returns the acknowledged bytes and the stale OSS. The store is closed.
fn store_with_stale_home_element(
    dir: &Path,
    code: CodeSpec,
    oss: usize,
    path: WritePath,
) -> (Vec<u8>, usize) {
    let mut expected = pattern(1, FILE_BYTES);
    let (stale, file, snapshot) = {
        let store = init(dir, code, oss, path);
        assert_eq!(store.layout().geometry().data_pos.len(), K);
        store.put("f", &expected).unwrap();
        store.flush().unwrap();
        let (stale, file) = stale_oss(&store, dir);
        let snapshot = std::fs::read(&file).unwrap();
        let whole = pattern(2, K * UNIT);
        store.write("f", 0, &whole).unwrap();
        store.flush().unwrap();
        expected[..whole.len()].copy_from_slice(&whole);
        (stale, file, snapshot)
    };
    std::fs::write(&file, snapshot).unwrap();
    let store = Store::open(dir).unwrap();
    let got = store.get("f").unwrap();
    let stale_range = STALE_ELEMENT * UNIT..(STALE_ELEMENT + 1) * UNIT;
    assert_ne!(
        got[stale_range.clone()],
        expected[stale_range],
        "the setup leaves element {STALE_ELEMENT} stale (reads of it are stale: a documented limit)"
    );
    assert_eq!(
        wrong_bytes(&got, &expected),
        wrong_bytes(&got[..UNIT * 2], &expected[..UNIT * 2]),
        "only stripe 0's element {STALE_ELEMENT} is stale"
    );
    let report = store.scrub(false).unwrap();
    assert!(
        report.parity_mismatches.contains(&("f".to_string(), 0)),
        "scrub sees the stale element before the write: {report:?}"
    );
    (expected, stale)
}

/// The partial write of elements 2 and 3 of stripe 0: on raid5 4+1 and raid6 4+2 a
/// reconstruct-write (it needs elements 0 and 1, fewer reads than data + parity).
fn write_elements_2_and_3(
    store: &Store,
    expected: &mut [u8],
) -> Result<(), exaraid_store::StoreError> {
    let bytes = pattern(3, 2 * UNIT);
    store.write("f", 2 * UNIT as u64, &bytes)?;
    expected[2 * UNIT..4 * UNIT].copy_from_slice(&bytes);
    Ok(())
}

#[test]
fn a_raid6_reconstruct_write_leaves_a_stale_home_column_out_of_its_parity() {
    let dir = scratch();
    let (mut expected, _) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
    {
        let store = Store::open(dir.path()).unwrap();
        write_elements_2_and_3(&store, &mut expected).unwrap();
    }
    // The acknowledged bytes of the stale column are still what the parity says: failing
    // the stale OSS decodes them (before the fix the parity was computed from the stale
    // bytes, and the decode gave them back: wrong bytes, exit 0).
    {
        let store = Store::open(dir.path()).unwrap();
        let report = store.scrub(false).unwrap();
        assert!(
            report.parity_mismatches.contains(&("f".to_string(), 0)),
            "after the write scrub still sees the stale element (it was made permanent): {report:?}"
        );
        let repaired = store.scrub(true).unwrap();
        assert!(
            !repaired.stale_repaired.is_empty() && repaired.unrepairable.is_empty(),
            "{repaired:?}"
        );
        let got = store.get("f").unwrap();
        assert!(
            got == expected,
            "after the repair a read returned {} wrong bytes with success",
            wrong_bytes(&got, &expected)
        );
        assert_consistent(&store);
    }
}

#[test]
fn a_raid6_reconstruct_write_over_a_stale_column_keeps_the_acknowledged_bytes_decodable() {
    let dir = scratch();
    let (mut expected, stale) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
    let store = Store::open(dir.path()).unwrap();
    write_elements_2_and_3(&store, &mut expected).unwrap();
    store.fail_oss(stale).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == expected,
        "with the stale OSS failed a degraded read returned {} wrong bytes with success",
        wrong_bytes(&got, &expected)
    );
}

#[test]
fn a_raid5_reconstruct_write_over_a_stale_home_column_is_refused_changing_nothing() {
    // raid5 cannot tell which column is stale: the write would encode new parity from
    // bytes nobody can tell. Refused, nothing written; the stripe stays as it was (scrub
    // reports it, failing the stale OSS reads the acknowledged bytes).
    let dir = scratch();
    let (expected, stale) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid5(4), 5, WritePath::Rmw);
    let before = all_object_files(dir.path());
    {
        let store = Store::open(dir.path()).unwrap();
        let mut ignored = expected.clone();
        let err = write_elements_2_and_3(&store, &mut ignored)
            .expect_err("the write must not encode parity from a stripe it cannot tell");
        let msg = err.to_string();
        assert!(
            msg.contains("refused") && msg.contains("stripe 0") && msg.contains("scrub"),
            "the error says what was wrong and what to do: {msg}"
        );
    }
    assert_eq!(before, all_object_files(dir.path()), "no OSS byte changed");
    let store = Store::open(dir.path()).unwrap();
    let report = store.scrub(false).unwrap();
    assert!(
        report.parity_mismatches.contains(&("f".to_string(), 0)),
        "{report:?}"
    );
    store.fail_oss(stale).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == expected,
        "with the stale OSS failed a degraded read returned {} wrong bytes",
        wrong_bytes(&got, &expected)
    );
    // A whole-stripe write reads nothing and needs no check.
    let whole = pattern(9, K * UNIT);
    store.write("f", 0, &whole).unwrap();
}

#[test]
fn a_raid6_wcl_settle_of_a_partial_cache_stripe_corrects_a_stale_home_column() {
    let dir = scratch();
    let (mut expected, _stale) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid6(4), 6, WritePath::Wcl);
    let store = Store::open(dir.path()).unwrap();
    // Element 2 in part: a partial cache stripe; the flush settles it over home.
    let bytes = pattern(4, 3000);
    store.write("f", 2 * UNIT as u64, &bytes).unwrap();
    expected[2 * UNIT..2 * UNIT + 3000].copy_from_slice(&bytes);
    store.flush().unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == expected,
        "after the flush a read returned {} wrong bytes with success",
        wrong_bytes(&got, &expected)
    );
    assert_consistent(&store);
    assert!(store.status().unwrap().lost_ranges.is_empty());
}

#[test]
fn a_raid5_wcl_settle_over_a_stale_home_column_records_the_unknown_bytes_lost() {
    let dir = scratch();
    let (mut expected, _stale) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid5(4), 5, WritePath::Wcl);
    let store = Store::open(dir.path()).unwrap();
    let bytes = pattern(4, 3000);
    store.write("f", 2 * UNIT as u64, &bytes).unwrap();
    expected[2 * UNIT..2 * UNIT + 3000].copy_from_slice(&bytes);
    let err = store
        .flush()
        .expect_err("the flush says which home bytes it could not tell");
    assert!(
        err.to_string().contains("disagreed with its parity"),
        "{err}"
    );
    let lost = store.status().unwrap().lost_ranges;
    assert!(!lost.is_empty(), "the unknown bytes are on record lost");
    // Every byte outside the lost ranges reads as acknowledged (the cached bytes too).
    let mut spans: Vec<(u64, u64)> = lost
        .iter()
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    spans.sort();
    assert!(
        spans
            .iter()
            .any(|&(a, z)| a < (2 * UNIT) as u64 && (UNIT as u64) < z),
        "the stale element's bytes are among them: {spans:?}"
    );
    spans.push((expected.len() as u64, expected.len() as u64));
    let mut at = 0u64;
    for (a, z) in spans {
        if at < a {
            let got = store.read("f", at, a - at).unwrap();
            assert_eq!(got, expected[at as usize..a as usize], "bytes {at}..{a}");
        }
        at = at.max(z);
    }
}

/// Every OSS object file of the store, by path.
fn all_object_files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for oss in std::fs::read_dir(dir).unwrap().flatten() {
        if let Ok(entries) = std::fs::read_dir(oss.path().join("objects")) {
            for e in entries.flatten() {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_reconstruct_write_inside_larger_elements_checks_the_blocks_it_reads() {
    // raid6 3+2, 16 KiB elements (four 4 KiB blocks): a write inside one element is a
    // reconstruct-write (it needs the two other data elements: fewer reads than data, P
    // and Q), and it reads the stripe over blocks 1 and 2 only. Element 1 is stale in every
    // block; the check of those two blocks must locate it there (its offsets in the
    // element, not in the window read).
    const ELEMENT: usize = 4 * UNIT;
    let dir = scratch();
    let mut expected = pattern(1, 3 * ELEMENT * 2);
    let (stale, file, snapshot) = {
        let mut opts = InitOptions::with_oss_count(dir.path(), 5, CodeSpec::raid6(3));
        opts.element_bytes = ELEMENT;
        opts.write_path = WritePath::Rmw;
        let store = Store::init(dir.path(), &opts).unwrap();
        store.put("f", &expected).unwrap();
        let (stale, file) = stale_oss(&store, dir.path());
        let snapshot = std::fs::read(&file).unwrap();
        let whole = pattern(2, 3 * ELEMENT);
        store.write("f", 0, &whole).unwrap();
        expected[..whole.len()].copy_from_slice(&whole);
        (stale, file, snapshot)
    };
    std::fs::write(&file, snapshot).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let at = 2 * ELEMENT + UNIT + 100;
    let bytes = pattern(3, UNIT);
    store.write("f", at as u64, &bytes).unwrap();
    expected[at..at + UNIT].copy_from_slice(&bytes);
    store.fail_oss(stale).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == expected,
        "with the stale OSS failed a degraded read returned {} wrong bytes with success",
        wrong_bytes(&got, &expected)
    );
}

/// OPEN (docs/store.md Limits, R11-9): a read-modify-write over the stale column itself.
/// It reads that column's old (stale) bytes and the old parity, and the delta carries the
/// stale bytes' difference into the new parity: the stripe then disagrees with itself as if
/// the newly written column were stale, so raid6's location blames it, and `scrub --repair`
/// (or a decode of that column with its OSS failed) gives back wrong bytes. Catching it
/// takes the stripe's other columns, which a small write does not read (the seed's 4 and
/// 6 operations per write); not done. Ignored: it states what is wanted.
#[test]
#[ignore = "OPEN: a read-modify-write over a stale column folds it into the parity delta"]
fn a_raid6_read_modify_write_over_the_stale_column_keeps_its_new_bytes_after_repair() {
    let dir = scratch();
    let (mut expected, _) =
        store_with_stale_home_element(dir.path(), CodeSpec::raid6(4), 6, WritePath::Rmw);
    let store = Store::open(dir.path()).unwrap();
    let at = STALE_ELEMENT * UNIT + 100;
    let bytes = pattern(5, 100);
    store.write("f", at as u64, &bytes).unwrap();
    expected[at..at + 100].copy_from_slice(&bytes);
    store.scrub(true).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got[at..at + 100] == expected[at..at + 100],
        "after scrub --repair the newly written bytes read back wrong: {} of 100",
        wrong_bytes(&got[at..at + 100], &expected[at..at + 100])
    );
}
