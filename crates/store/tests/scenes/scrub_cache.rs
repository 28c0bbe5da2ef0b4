//! Scrub covers the cache zone: under `wcl` and `delayed` the newest copy of acknowledged
//! bytes may live only in an OSS's cache zone. Scrub verifies every cache element holding
//! live data, `--repair` rebuilds a WCL cache element from its cache stripe's running parity,
//! and corrupt bytes of an open delayed window (no parity) are reported as unrepairable,
//! naming the file and byte range. The tests flip real bits in the OSS cache zone files.

use crate::common;
use common::*;

use std::path::PathBuf;

use exaraid_codes::{Cell, CodeSpec, Pos};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

fn cache_zone_file(store: &Store, oss: usize) -> PathBuf {
    store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"))
}

/// Flip one bit of the payload of `slot` in the cache zone of `oss`.
fn flip_cache_bit(store: &Store, oss: usize, slot: usize, byte: usize) {
    assert!(byte < UNIT);
    let path = cache_zone_file(store, oss);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + byte] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();
}

fn cache_slot_payload(store: &Store, oss: usize, slot: usize) -> Vec<u8> {
    let bytes = std::fs::read(cache_zone_file(store, oss)).unwrap();
    bytes[slot * SLOT_BYTES..slot * SLOT_BYTES + UNIT].to_vec()
}

/// A RAID-5 3+1 WCL store whose file "a" has 5000 bytes, all still in the cache zone (one
/// incomplete cache stripe, so its chunk on every OSS is slot 0 of the cache zone).
fn wcl_store_with_cached_bytes(dir: &std::path::Path) -> (Store, Vec<u8>) {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Wcl);
    let data = pattern(21, 5000);
    store.write("a", 0, &data).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        5000,
        "the bytes wait in the cache zone"
    );
    (store, data)
}

#[test]
fn a_clean_cache_zone_scrubs_clean() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = wcl_store_with_cached_bytes(dir.path());
    let report = store.scrub(false).unwrap();
    // Two data elements (bytes 0..4096 and 4096..5000) and the running parity.
    assert_eq!(report.cache_elements_checked, 3);
    assert!(
        report.corrupt_cache_elements.is_empty(),
        "{:?}",
        report.corrupt_cache_elements
    );
    assert!(report.unrepairable.is_empty());
}

#[test]
fn wcl_scrub_finds_a_flipped_bit_in_cached_data_and_repair_rebuilds_it_from_the_cache_stripe() {
    let dir = tempfile::tempdir().unwrap();
    let (store, data) = wcl_store_with_cached_bytes(dir.path());
    let file = store.file_id("a").unwrap();
    let oss = store.layout().locate(file, 0).oss;
    let clean = cache_slot_payload(&store, oss, 0);
    flip_cache_bit(&store, oss, 0, 100);

    let report = store.scrub(false).unwrap();
    assert_eq!(
        report.corrupt_cache_elements.len(),
        1,
        "{:?}",
        report.corrupt_cache_elements
    );
    let f = &report.corrupt_cache_elements[0];
    assert_eq!((f.oss, f.cache_slot, f.stripe), (oss, 0, 0));
    assert_eq!((f.file.as_str(), f.zone.as_str()), ("a", "data"));
    assert_eq!(f.file_ranges, vec![(0, 4096)], "the file range it backs");
    assert_eq!(f.blocks, vec![0]);
    assert!(!f.repaired);
    assert_ne!(
        cache_slot_payload(&store, oss, 0),
        clean,
        "scrub without --repair writes nothing"
    );

    let report = store.scrub(true).unwrap();
    assert_eq!(report.corrupt_cache_elements.len(), 1);
    assert!(report.corrupt_cache_elements[0].repaired);
    assert_eq!(report.repaired_elements, 1);
    assert!(report.unrepairable.is_empty(), "{:?}", report.unrepairable);
    assert_eq!(
        cache_slot_payload(&store, oss, 0),
        clean,
        "the flipped bit is rebuilt on disk from the cache stripe's parity"
    );
    assert!(store
        .scrub(false)
        .unwrap()
        .corrupt_cache_elements
        .is_empty());
    assert_eq!(store.get("a").unwrap(), data);
    // The repaired bytes survive a reopen and the destage home.
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.flush().unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("a").unwrap(), data);
}

#[test]
fn wcl_scrub_repairs_the_running_parity_of_a_cache_stripe() {
    let dir = tempfile::tempdir().unwrap();
    let (store, data) = wcl_store_with_cached_bytes(dir.path());
    let file = store.file_id("a").unwrap();
    let g = store.code().geometry().clone();
    let parity_pos: Pos = g.parity_pos[0];
    assert!(matches!(g.cell(parity_pos), Cell::Parity(_)));
    let parity_oss = store.layout().oss_of(file, 0, parity_pos.col);
    flip_cache_bit(&store, parity_oss, 0, 7);

    let report = store.scrub(false).unwrap();
    assert_eq!(
        report.corrupt_cache_elements.len(),
        1,
        "{:?}",
        report.corrupt_cache_elements
    );
    let f = &report.corrupt_cache_elements[0];
    assert_eq!(
        (f.oss, f.cache_slot, f.zone.as_str()),
        (parity_oss, 0, "parity")
    );
    assert!(f.file_ranges.is_empty());

    let report = store.scrub(true).unwrap();
    assert!(report.corrupt_cache_elements[0].repaired);
    assert!(report.unrepairable.is_empty(), "{:?}", report.unrepairable);
    assert!(store
        .scrub(false)
        .unwrap()
        .corrupt_cache_elements
        .is_empty());
    // The repaired running parity really protects the cached bytes: lose the OSS holding
    // bytes 0..4096 and read them back from the cache stripe.
    store.fail_oss(store.layout().locate(file, 0).oss).unwrap();
    assert_eq!(store.get("a").unwrap(), data);
}

#[test]
fn a_flipped_bit_in_an_open_delayed_window_is_reported_unrepairable_with_its_file_range() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let other = pattern(22, 40_000);
    store.put("other", &other).unwrap();
    let _token = store.delayed_start("ckpt").unwrap();
    // One element of window data on each data OSS of stripe 0: cache slot 0 of each.
    let data = pattern(23, 3 * UNIT);
    store.write("ckpt", 0, &data).unwrap();
    let victim = store
        .layout()
        .locate(store.file_id("ckpt").unwrap(), UNIT as u64)
        .oss;
    assert!(store
        .scrub(false)
        .unwrap()
        .corrupt_cache_elements
        .is_empty());
    flip_cache_bit(&store, victim, 0, 10);
    let flipped = cache_slot_payload(&store, victim, 0);

    for repair in [false, true] {
        let report = store.scrub(repair).unwrap();
        assert_eq!(
            report.corrupt_cache_elements.len(),
            1,
            "{:?}",
            report.corrupt_cache_elements
        );
        let f = &report.corrupt_cache_elements[0];
        assert_eq!((f.oss, f.cache_slot), (victim, 0));
        assert_eq!(f.file_ranges, vec![(4096, 8192)]);
        assert!(!f.repaired, "no parity: nothing to rebuild from");
        assert_eq!(report.unrepairable.len(), 1, "{:?}", report.unrepairable);
        let why = &report.unrepairable[0];
        assert!(
            why.contains("'ckpt' bytes 4096..8192") && why.contains(&format!("OSS {victim}")),
            "names the file, the byte range and the OSS: {why}"
        );
        assert!(why.contains("no parity"), "{why}");
        assert_eq!(report.repaired_elements, 0);
        assert_eq!(
            cache_slot_payload(&store, victim, 0),
            flipped,
            "nothing is invented"
        );
    }
    // Everything else stays readable.
    assert_eq!(store.get("other").unwrap(), other);
    assert_eq!(store.read("ckpt", 0, UNIT as u64).unwrap(), &data[..UNIT]);
    assert!(store.read("ckpt", UNIT as u64, 10).is_err());
}

/// Two corrupt elements of one RAID-6 cache stripe (a data element and a running-parity
/// element): both rebuilt from the rest of the cache stripe, on disk bit for bit, and the
/// cache stripe then survives two failed OSSs again.
#[test]
fn raid6_wcl_scrub_repairs_two_corrupt_elements_of_one_cache_stripe() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Wcl);
    let data = pattern(24, 2 * UNIT + 100);
    store.write("a", 0, &data).unwrap();
    let file = store.file_id("a").unwrap();
    let g = store.code().geometry().clone();
    let data_oss = store.layout().locate(file, 0).oss;
    let parity_oss = store.layout().oss_of(file, 0, g.parity_pos[1].col);
    let clean: Vec<Vec<u8>> = [data_oss, parity_oss]
        .iter()
        .map(|&o| cache_slot_payload(&store, o, 0))
        .collect();
    flip_cache_bit(&store, data_oss, 0, 50);
    flip_cache_bit(&store, parity_oss, 0, 4000);

    let report = store.scrub(true).unwrap();
    let mut found: Vec<(usize, String, bool)> = report
        .corrupt_cache_elements
        .iter()
        .map(|f| (f.oss, f.zone.clone(), f.repaired))
        .collect();
    found.sort();
    let mut want = vec![
        (data_oss, "data".to_string(), true),
        (parity_oss, "parity".to_string(), true),
    ];
    want.sort();
    assert_eq!(found, want, "{:?}", report.corrupt_cache_elements);
    assert!(report.unrepairable.is_empty(), "{:?}", report.unrepairable);
    assert_eq!(cache_slot_payload(&store, data_oss, 0), clean[0]);
    assert_eq!(cache_slot_payload(&store, parity_oss, 0), clean[1]);
    let report = store.scrub(false).unwrap();
    assert!(report.corrupt_cache_elements.is_empty());
    assert_eq!(report.cache_elements_checked, 5, "3 data + P + Q");
    store.fail_oss(data_oss).unwrap();
    store
        .fail_oss(store.layout().locate(file, UNIT as u64).oss)
        .unwrap();
    assert_eq!(store.get("a").unwrap(), data, "P and Q of the cache stripe");
}

/// An array code with several rows per stripe (RDP p=5: 4 rows): the cache element of a
/// lower row is rebuilt from the cache stripe.
#[test]
fn rdp_wcl_scrub_repairs_a_cache_element_of_a_lower_row() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(
        dir.path(),
        CodeSpec::array(exaraid_codes::CodeKind::Rdp, 5),
        6,
        WritePath::Wcl,
    );
    let sdb = store.layout().stripe_data_bytes() as usize;
    let data = pattern(25, sdb / 2 + 300);
    store.write("a", 0, &data).unwrap();
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    let file = store.file_id("a").unwrap();
    // The data element of the last byte: some row below the first.
    let last = (data.len() - 1) as u64;
    let at = store.layout().locate(file, last);
    // The cache chunk on that OSS is slots 0..rows (the first chunk): row r is slot r.
    let row = at.pos.row;
    assert!(row > 0, "the test wants a lower row");
    let clean = cache_slot_payload(&store, at.oss, row);
    flip_cache_bit(&store, at.oss, row, 1);
    let report = store.scrub(true).unwrap();
    assert_eq!(
        report.corrupt_cache_elements.len(),
        1,
        "{:?}",
        report.corrupt_cache_elements
    );
    let f = &report.corrupt_cache_elements[0];
    assert_eq!((f.oss, f.cache_slot, f.row), (at.oss, row as u64, row));
    assert!(f.repaired, "{:?}", report.unrepairable);
    assert_eq!(cache_slot_payload(&store, at.oss, row), clean);
    assert_eq!(store.get("a").unwrap(), data);
}
