//! A stale element: one OSS returns an element's old content with its old, valid checksum
//! (a lost write, or an OSS object file restored from an older copy; checksums are seeded
//! with the address, not a version). Only the parity equations can tell.
//!
//! - `scrub --repair` on a code with two parities locates the one wrong column (the only
//!   column whose rebuild from the others satisfies every equation). A parity column is
//!   rewritten. A data column is not (review s13r R13-4: an acknowledged read-modify-write
//!   over a lost write leaves the same picture with the data right and the parity wrong,
//!   and nothing on disk tells the two apart): it is reported unrepairable, naming the file
//!   bytes and the OSS, and nothing changes. It never re-encodes the parity from the stale
//!   data either (review s4e E4: that destroyed the acknowledged bytes for good and left a
//!   clean scrub).
//! - Where the column cannot be located (raid5: one equation), `--repair` reports the
//!   stripe unrepairable, naming the file bytes, and changes nothing.
//! - Since session 45 (s45c): where the home witness holds the lost write's crcs (these
//!   scenes), the stale data blocks fail their pieces; scrub reports them and `--repair`
//!   rewrites them from the parity where the rebuild matches the pieces (the two bullets
//!   above then hold for stale data without a piece: writes before session 44, or past
//!   the witness's bound).
//! - A degraded read decoding through a stale parity element (one failed OSS on raid6)
//!   is checked against the other parity: the acknowledged bytes or `DataLost`, never
//!   wrong bytes (review s4e E4b / E10c); with a third parity it locates the stale one.
//!
//! Elements are 16 KiB (four 4 KiB checksum blocks), files one stripe long, write path
//! rmw; the stale range covers blocks 0 and 1 of data element 1 only.

use crate::common;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

const ELEMENT_BYTES: usize = 4 * UNIT;

fn init16(dir: &Path, code: CodeSpec, oss: usize) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Rmw;
    Store::init(dir, &opts).unwrap()
}

/// Every object file of one zone (`data` or `parity`) of file `f`, by OSS index.
fn zone_files(store: &Store, zone: &str) -> BTreeMap<usize, PathBuf> {
    let id = store.file_id("f").unwrap();
    store
        .superblock()
        .oss_dirs
        .iter()
        .enumerate()
        .map(|(i, d)| (i, d.join("objects").join(format!("{id}.{zone}"))))
        .filter(|(_, p)| p.exists())
        .collect()
}

fn snapshot(files: &BTreeMap<usize, PathBuf>) -> BTreeMap<usize, Vec<u8>> {
    files
        .iter()
        .map(|(&i, p)| (i, std::fs::read(p).unwrap()))
        .collect()
}

struct Stale {
    dir: PathBuf,
    /// The file's acknowledged content.
    acked: Vec<u8>,
    /// The OSSs whose `zone` file changed with the write, the one made stale first.
    changed: Vec<usize>,
}

/// Put a one-stripe file, write 5000 bytes into data element 1 (acknowledged), then put
/// back the old content of OSS `changed[pick]`'s `zone` file. The store is closed.
fn make_stale(dir: PathBuf, code: CodeSpec, oss: usize, zone: &str, pick: usize) -> Stale {
    let store = init16(&dir, code, oss);
    let k = store.layout().geometry().data_pos.len();
    let mut acked = pattern(7, k * ELEMENT_BYTES);
    store.put("f", &acked).unwrap();
    let files = zone_files(&store, zone);
    let before = snapshot(&files);
    let at = ELEMENT_BYTES + 100;
    let new = pattern(8, 5000);
    store.write("f", at as u64, &new).unwrap();
    acked[at..at + new.len()].copy_from_slice(&new);
    let after = snapshot(&files);
    store.close().unwrap();
    let mut changed: Vec<usize> = files
        .keys()
        .copied()
        .filter(|i| before[i] != after[i])
        .collect();
    assert!(pick < changed.len(), "the write changed {changed:?}");
    let stale = changed.remove(pick);
    changed.insert(0, stale);
    std::fs::write(&files[&stale], &before[&stale]).unwrap();
    Stale {
        dir,
        acked,
        changed,
    }
}

fn two_parity_codes() -> Vec<(&'static str, CodeSpec, usize)> {
    vec![
        ("raid6", CodeSpec::raid6(4), 6),
        ("rs 4+2", CodeSpec::rs(4, 2), 6),
        ("rdp 5", CodeSpec::array(CodeKind::Rdp, 5), 6),
    ]
}

/// Was `scrub_repair_locates_a_stale_data_element_and_rewrites_it_not_the_parity` until
/// session 14, then `scrub_repair_reports_a_stale_data_element_and_changes_nothing` (the
/// located data column named, both versions kept: review s13r R13-4's scene looks the same
/// to the parity equations). Since session 45 (s45c) the stale element's blocks fail the
/// home witness (the lost write's crcs on record), which names the column the equations
/// could not vouch for: plain scrub reports them (a corrupt element, blocks 0 and 1),
/// `--repair` rewrites them from the parity, confirmed by their pieces, and the stripe is
/// consistent after it. (R13-4's own scene, an acknowledged rmw over the lost write, no
/// longer leaves the parity wrong: the write's read step checks the same pieces,
/// `lost_home_write_repair.rs`.)
#[test]
fn scrub_repair_rewrites_a_stale_data_element_its_home_witness_names() {
    for (what, code, oss) in two_parity_codes() {
        let tmp = scratch();
        let s = make_stale(tmp.path().join("store"), code, oss, "data", 0);
        assert_eq!(s.changed.len(), 1, "{what}: one data element written");
        let store = Store::open(&s.dir).unwrap();
        // A healthy read does not check parity (by design), but since session 44 (s44b)
        // the home witness (the write's crcs on record) finds the stale block and the read
        // rebuilds it from the parity: the acknowledged bytes (before: the stale ones).
        let healthy = store.read("f", 0, s.acked.len() as u64).unwrap();
        assert!(
            healthy == s.acked,
            "{what}: the stale block is rebuilt from parity"
        );
        let stale_found = |r: &exaraid_store::store::ScrubReport, repaired: bool| {
            r.corrupt_elements.len() == 1
                && r.corrupt_elements[0].oss == s.changed[0]
                && r.corrupt_elements[0].blocks == vec![0, 1]
                && r.corrupt_elements[0].repaired == repaired
        };
        let report = store.scrub(false).unwrap();
        assert!(stale_found(&report, false), "{what}: {report:?}");

        let report = store.scrub(true).unwrap();
        assert!(stale_found(&report, true), "{what}: {report:?}");
        assert!(report.unrepairable.is_empty(), "{what}: {report:?}");
        assert!(store.read("f", 0, s.acked.len() as u64).unwrap() == s.acked);
        assert_consistent(&store);
        // The stale OSS holds the acknowledged bytes now: without it they still decode.
        let mut store = store;
        store.fail_oss(s.changed[0]).unwrap();
        assert_eq!(
            store.read("f", 0, s.acked.len() as u64).unwrap(),
            s.acked,
            "{what}: decoded without the stale OSS"
        );
        store.rebuild(s.changed[0], None).unwrap();
        assert_eq!(store.read("f", 0, s.acked.len() as u64).unwrap(), s.acked);
        assert_consistent(&store);
    }
}

#[test]
fn scrub_repair_rewrites_a_stale_parity_element() {
    for (what, code, oss) in two_parity_codes() {
        for pick in 0..2 {
            let tmp = scratch();
            let s = make_stale(tmp.path().join("store"), code, oss, "parity", pick);
            let store = Store::open(&s.dir).unwrap();
            let report = store.scrub(true).unwrap();
            assert!(report.unrepairable.is_empty(), "{what}: {report:?}");
            assert!(!report.stale_repaired.is_empty(), "{what}: {report:?}");
            for line in &report.stale_repaired {
                assert!(line.contains(&format!("on OSS {}", s.changed[0])), "{line}");
            }
            assert_consistent(&store);
            assert_eq!(store.read("f", 0, s.acked.len() as u64).unwrap(), s.acked);
        }
    }
}

/// raid5 has one parity equation: it sees that the stripe disagrees, not which column
/// (`scrub_repair_on_raid5_reports_a_mismatch_it_cannot_locate_and_changes_nothing` until
/// session 45). The home witness does (s45c): the stale element's blocks fail their pieces,
/// `--repair` rewrites them from the parity (the rebuild matches the pieces), and the
/// stripe is consistent after it.
#[test]
fn scrub_repair_on_raid5_rewrites_a_stale_data_element_its_home_witness_names() {
    let tmp = scratch();
    let s = make_stale(tmp.path().join("store"), CodeSpec::raid5(3), 4, "data", 0);
    let store = Store::open(&s.dir).unwrap();
    let report = store.scrub(true).unwrap();
    assert!(report.parity_mismatches.is_empty(), "{report:?}");
    assert!(report.unrepairable.is_empty(), "{report:?}");
    assert_eq!(report.corrupt_elements.len(), 1, "{report:?}");
    let found = &report.corrupt_elements[0];
    assert!(
        found.oss == s.changed[0] && found.blocks == vec![0, 1] && found.repaired,
        "{report:?}"
    );
    assert_eq!(store.read("f", 0, s.acked.len() as u64).unwrap(), s.acked);
    assert_consistent(&store);
    // The stale OSS holds the acknowledged bytes now: without it they still decode.
    store.fail_oss(s.changed[0]).unwrap();
    assert_eq!(store.read("f", 0, s.acked.len() as u64).unwrap(), s.acked);
}

/// E4b: a stale parity element plus one failed data OSS (two faults, within raid6's
/// tolerance): every read returns the acknowledged bytes or fails with `DataLost`
/// naming the range; a decode through the stale parity must fail at least once.
#[test]
fn a_degraded_read_through_a_stale_parity_checks_the_other_parity() {
    for (what, code, oss) in two_parity_codes() {
        let mut lost = 0;
        for pick in 0..2 {
            let tmp = scratch();
            let s = make_stale(tmp.path().join("store"), code, oss, "parity", pick);
            let mut store = Store::open(&s.dir).unwrap();
            let data_osses: Vec<usize> = zone_files(&store, "data").keys().copied().collect();
            for i in data_osses {
                if s.changed[0] == i {
                    continue; // an array code's column may hold data and parity
                }
                store.fail_oss(i).unwrap();
                match store.read("f", 0, s.acked.len() as u64) {
                    Ok(got) => assert!(
                        got == s.acked,
                        "{what}: stale parity on OSS {}, OSS {i} failed: wrong bytes, exit 0",
                        s.changed[0]
                    ),
                    Err(StoreError::DataLost(msg)) => {
                        assert!(
                            msg.contains("file 'f' bytes") && msg.contains("disagree"),
                            "{what}: names the range and why: {msg}"
                        );
                        lost += 1;
                    }
                    Err(e) => panic!("{what}: {e}"),
                }
                store.online_oss(i).unwrap();
            }
        }
        assert!(lost > 0, "{what}: no read decoded through the stale parity");
    }
}

/// With three parities, one stale parity beside one failed OSS is located: the read
/// returns the acknowledged bytes.
#[test]
fn a_third_parity_locates_the_stale_one_during_a_degraded_read() {
    for pick in 0..3 {
        let tmp = scratch();
        let s = make_stale(
            tmp.path().join("store"),
            CodeSpec::rs(4, 3),
            7,
            "parity",
            pick,
        );
        let mut store = Store::open(&s.dir).unwrap();
        let data_osses: Vec<usize> = zone_files(&store, "data").keys().copied().collect();
        for i in data_osses {
            store.fail_oss(i).unwrap();
            assert_eq!(
                store.read("f", 0, s.acked.len() as u64).unwrap(),
                s.acked,
                "stale parity on OSS {}, OSS {i} failed",
                s.changed[0]
            );
            store.online_oss(i).unwrap();
        }
    }
}

/// A rebuild of the failed OSS decodes through the same stale parity: it must stop with
/// `DataLost` rather than write wrong bytes under fresh checksums (permanent).
#[test]
fn a_rebuild_through_a_stale_parity_stops_instead_of_writing_wrong_bytes() {
    let mut stopped = 0;
    for pick in 0..2 {
        let tmp = scratch();
        let s = make_stale(
            tmp.path().join("store"),
            CodeSpec::raid6(4),
            6,
            "parity",
            pick,
        );
        let data_osses: Vec<usize> = {
            let store = Store::open(&s.dir).unwrap();
            zone_files(&store, "data").keys().copied().collect()
        };
        for i in data_osses {
            // The same stale store again (deterministic), one per failed OSS.
            let s = make_stale(
                tmp.path().join(format!("store-{i}")),
                CodeSpec::raid6(4),
                6,
                "parity",
                pick,
            );
            let mut store = Store::open(&s.dir).unwrap();
            store.fail_oss(i).unwrap();
            match store.rebuild(i, None) {
                Ok(()) => assert!(
                    store.read("f", 0, s.acked.len() as u64).unwrap() == s.acked,
                    "rebuilt OSS {i} beside stale parity on OSS {}: wrong bytes",
                    s.changed[0]
                ),
                Err(StoreError::DataLost(msg)) => {
                    assert!(
                        msg.contains("disagree") && msg.contains("file 'f'"),
                        "{msg}"
                    );
                    stopped += 1;
                    // Still failed: reads decode, checked, and never return wrong bytes.
                    if let Ok(got) = store.read("f", 0, s.acked.len() as u64) {
                        assert!(got == s.acked, "wrong bytes after the stopped rebuild");
                    }
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
    assert!(stopped > 0, "no rebuild decoded through the stale parity");
}
