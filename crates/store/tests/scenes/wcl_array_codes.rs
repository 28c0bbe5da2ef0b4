//! WCL with array codes (several rows per column: evenodd, rdp, xcode, dcode, hdp, hcode):
//! bytes that sit in the cache zone when an OSS fails, or whose cache copy has a flipped
//! bit, read back exactly as written (rebuilt from their own cache stripe), and scrub's
//! repair writes back the right bytes. raid6 (one row per column) is the control.
//!
//! Found through the CLI (issue #4): every array code returned wrong bytes with exit 0 from
//! the first cached byte on, after a tolerated OSS failure.

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{Backend, DirBackend, ElementKey, OssLabel, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::superblock::Superblock;
use exaraid_store::{InitOptions, OpenOptions, Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

fn codes() -> Vec<CodeSpec> {
    let mut v: Vec<CodeSpec> = [
        CodeKind::Evenodd,
        CodeKind::Rdp,
        CodeKind::Xcode,
        CodeKind::Dcode,
        CodeKind::Hdp,
        CodeKind::Hcode,
    ]
    .into_iter()
    .map(|k| CodeSpec::array(k, 5))
    .collect();
    v.push(CodeSpec::raid6(4));
    v
}

/// A WCL store over as many OSSs as the code has columns, a whole file put, then two
/// partial-stripe writes whose bytes stay in the cache zone (their cache stripes are open).
/// Returns the store and the model of the file's bytes.
fn wcl_store_with_cached_writes(dir: &Path, code: CodeSpec) -> (Store, Vec<u8>) {
    let cols = exaraid_codes::Code::new(code)
        .expect("a valid code")
        .geometry()
        .cols;
    let mut opts = InitOptions::with_oss_count(dir, cols, code);
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    Store::init(dir, &opts).unwrap().close().unwrap();
    let store = open(dir);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let mut model = pattern(1, 3 * sdb + sdb / 3);
    store.put("f", &model).unwrap();
    // Not element- or row-aligned, inside one stripe each: partial cache stripes.
    for (seed, at) in [(2u64, sdb / 5 + 7), (3, 2 * sdb + sdb / 2 + 11)] {
        let s = pattern(seed, sdb / 4 + 3);
        store.write("f", at as u64, &s).unwrap();
        model[at..at + s.len()].copy_from_slice(&s);
    }
    (store, model)
}

/// Without fsync: these tests build hundreds of small stores and crash none of them.
fn open(dir: &Path) -> Store {
    let options = OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    };
    Store::open_with(dir, options).unwrap()
}

fn assert_same(code: CodeSpec, what: &str, got: &[u8], want: &[u8]) {
    assert_eq!(got.len(), want.len(), "{code}: {what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{code}: {what}: wrong bytes from offset {i}");
    }
}

/// Put the store at `dir` back to the closed state saved in `saved` (same absolute paths:
/// the superblock names its OSS directories). Why not a new store per case: an init costs
/// ~100 ms of fsyncs, and a rebuild in place rewrites the cache zone it reads from.
fn restore(dir: &Path, saved: &Path) {
    std::fs::remove_dir_all(dir).unwrap();
    copy_tree(saved, dir);
}

#[test]
fn cached_bytes_read_back_exactly_after_every_tolerated_failure_and_rebuild() {
    for code in codes() {
        let dir = scratch();
        let saved = scratch();
        let (store, model) = wcl_store_with_cached_writes(dir.path(), code);
        let osses = store.oss_count();
        let tolerance = store.code().geometry().fault_tolerance;
        assert_same(code, "healthy", &store.get("f").unwrap(), &model);
        store.close().unwrap();
        copy_tree(dir.path(), saved.path());
        let mut sets: Vec<Vec<usize>> = (0..osses).map(|a| vec![a]).collect();
        if tolerance >= 2 {
            for a in 0..osses {
                for b in a + 1..osses {
                    sets.push(vec![a, b]);
                }
            }
        }
        for failed in sets {
            restore(dir.path(), saved.path());
            let mut store = open(dir.path());
            for &oss in &failed {
                store.fail_oss(oss).unwrap();
            }
            let got = store
                .get("f")
                .unwrap_or_else(|e| panic!("{code}: OSSs {failed:?} failed: get: {e}"));
            assert_same(code, &format!("OSSs {failed:?} failed"), &got, &model);
            if failed.len() > 1 {
                continue;
            }
            // As the CLI runs it: each command opens the store (the planner state replayed).
            store.close().unwrap();
            store = open(dir.path());
            let got = store
                .get("f")
                .unwrap_or_else(|e| panic!("{code}: OSSs {failed:?} failed, reopened: get: {e}"));
            assert_same(
                code,
                &format!("OSSs {failed:?} failed, reopened"),
                &got,
                &model,
            );
            // Rebuilt in place, the OSS holds the right bytes again (its cache zone too).
            store.rebuild(failed[0], None).unwrap();
            assert_consistent(&store);
            let got = store.get("f").unwrap();
            assert_same(code, &format!("OSSs {failed:?} rebuilt"), &got, &model);
            // ... and they are what the other OSSs rebuild from.
            let other = (failed[0] + 1) % osses;
            store.fail_oss(other).unwrap();
            let got = store.get("f").unwrap();
            assert_same(
                code,
                &format!("OSSs {failed:?} rebuilt, OSS {other} failed"),
                &got,
                &model,
            );
        }
    }
}

/// Flip one byte in every slot of the cache-zone file of `oss`.
fn flip_every_cache_slot(store: &Store, oss: usize) -> usize {
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    let Ok(mut bytes) = std::fs::read(&path) else {
        return 0;
    };
    let slots = bytes.len() / SLOT_BYTES;
    for s in 0..slots {
        bytes[s * SLOT_BYTES + 100] ^= 0x10;
    }
    std::fs::write(&path, bytes).unwrap();
    slots
}

#[test]
fn flipped_cache_bits_read_back_exactly_and_scrub_repairs_them_with_the_right_bytes() {
    for code in codes() {
        let dir = scratch();
        let saved = scratch();
        let (store, model) = wcl_store_with_cached_writes(dir.path(), code);
        let osses = store.oss_count();
        store.close().unwrap();
        copy_tree(dir.path(), saved.path());
        for oss in 0..osses {
            restore(dir.path(), saved.path());
            let store = open(dir.path());
            if flip_every_cache_slot(&store, oss) == 0 {
                continue;
            }
            let got = store
                .get("f")
                .unwrap_or_else(|e| panic!("{code}: OSS {oss} cache bits flipped: get: {e}"));
            assert_same(code, &format!("OSS {oss} cache bits flipped"), &got, &model);
            let report = store.scrub(true).unwrap();
            assert!(
                report.unrepairable.is_empty(),
                "{code}: OSS {oss}: unrepairable: {:?}",
                report.unrepairable
            );
            assert!(
                report.repaired_elements > 0,
                "{code}: OSS {oss}: nothing repaired"
            );
            let clean = store.scrub(false).unwrap();
            assert!(
                clean.corrupt_cache_elements.is_empty() && clean.corrupt_elements.is_empty(),
                "{code}: OSS {oss}: corruption left after repair"
            );
            assert_same(
                code,
                &format!("OSS {oss} repaired"),
                &store.get("f").unwrap(),
                &model,
            );
            // The repaired bytes are the written ones: decoding with them (another OSS
            // failed) gives the written bytes.
            let other = (oss + 1) % osses;
            store.fail_oss(other).unwrap();
            assert_same(
                code,
                &format!("OSS {oss} repaired, OSS {other} failed"),
                &store.get("f").unwrap(),
                &model,
            );
        }
    }
}

/// The slot of the cache-zone file of `oss` whose payload is `payload`.
fn cache_slot_holding(dir: &Path, oss: usize, payload: &[u8]) -> Option<u64> {
    let sb = Superblock::load(dir).unwrap();
    let path = sb.oss_dirs[oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    let bytes = std::fs::read(path).ok()?;
    (0..bytes.len() / SLOT_BYTES)
        .find(|s| &bytes[s * SLOT_BYTES..s * SLOT_BYTES + UNIT] == payload)
        .map(|s| s as u64)
}

#[test]
fn a_corrupt_cached_block_is_never_replaced_by_bytes_its_checksum_does_not_confirm() {
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    Store::init(dir.path(), &opts).unwrap().close().unwrap();
    let store = open(dir.path());
    // One element of an open cache stripe: its RAID-5 running parity equals its bytes.
    let written = pattern(7, UNIT);
    store.write("f", 0, &written).unwrap();
    let file = store.file_id("f").unwrap();
    let (_, element) = store.layout().split(0, 1).unwrap()[0];
    let data_oss = store.layout().oss_of(file, element.stripe, element.pos.col);
    store.close().unwrap();
    let data_slot = cache_slot_holding(dir.path(), data_oss, &written).expect("cached");
    let (parity_oss, parity_slot) = (0..4)
        .filter(|&o| o != data_oss)
        .find_map(|o| cache_slot_holding(dir.path(), o, &written).map(|s| (o, s)))
        .expect("the running parity in the cache zone");

    // The running parity disagrees with the data under a valid checksum (a write the
    // device acknowledged and lost, a misdirected write), and the cached data block rots.
    let sb = Superblock::load(dir.path()).unwrap();
    let label = |index| OssLabel {
        store_id: sb.store_id.clone(),
        index,
        element_bytes: sb.element_bytes,
        block_crc_seed: sb.block_crc_seed,
        settings: None,
    };
    let parity_backend =
        DirBackend::open(&sb.oss_dirs[parity_oss], &label(parity_oss), None).unwrap();
    let key = |slot| ElementKey {
        object: CACHE_OBJECT,
        zone: Zone::Cache,
        slot,
    };
    parity_backend
        .write(key(parity_slot), 0, &pattern(8, UNIT))
        .unwrap();
    parity_backend.sync().unwrap();
    drop(parity_backend);
    let path = sb.oss_dirs[data_oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[data_slot as usize * SLOT_BYTES + 100] ^= 0x10;
    std::fs::write(&path, bytes).unwrap();

    let store = open(dir.path());
    match store.get("f") {
        Err(StoreError::DataLost(why)) => assert!(why.contains("checksum"), "{why}"),
        Ok(got) => panic!(
            "read returned {} bytes without an error (written bytes: {})",
            got.len(),
            got == written
        ),
        Err(e) => panic!("unexpected error: {e}"),
    }
    // Scrub does not "repair" the block with the unconfirmed rebuilt bytes.
    let report = store.scrub(true).unwrap();
    assert_eq!(report.repaired_elements, 0);
    assert!(!report.unrepairable.is_empty());
    assert!(matches!(store.get("f"), Err(StoreError::DataLost(_))));
}

#[test]
fn a_cached_element_of_a_failed_oss_is_not_rebuilt_from_a_running_parity_that_disagrees() {
    let dir = scratch();
    let mut opts = InitOptions::with_oss_count(dir.path(), 6, CodeSpec::raid6(4));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    Store::init(dir.path(), &opts).unwrap().close().unwrap();
    let store = open(dir.path());
    // One element of an open cache stripe: its running parities are coefficient multiples
    // of its bytes (the first Q coefficient is 1, so both may equal them).
    let written = pattern(7, UNIT);
    store.write("f", 0, &written).unwrap();
    let file = store.file_id("f").unwrap();
    let (_, element) = store.layout().split(0, 1).unwrap()[0];
    let data_oss = store.layout().oss_of(file, element.stripe, element.pos.col);
    store.close().unwrap();

    // Every running parity slot holding the element's bytes disagrees with them under a
    // valid checksum (lost or misdirected writes), each differently.
    let sb = Superblock::load(dir.path()).unwrap();
    let mut changed = 0;
    for oss in (0..6).filter(|&o| o != data_oss) {
        let Some(slot) = cache_slot_holding(dir.path(), oss, &written) else {
            continue;
        };
        let label = OssLabel {
            store_id: sb.store_id.clone(),
            index: oss,
            element_bytes: sb.element_bytes,
            block_crc_seed: sb.block_crc_seed,
            settings: None,
        };
        let backend = DirBackend::open(&sb.oss_dirs[oss], &label, None).unwrap();
        let key = ElementKey {
            object: CACHE_OBJECT,
            zone: Zone::Cache,
            slot,
        };
        backend
            .write(key, 0, &pattern(10 + oss as u64, UNIT))
            .unwrap();
        backend.sync().unwrap();
        changed += 1;
    }
    assert!(changed >= 1, "the running parity is in the cache zone");

    // The data OSS fails: no stored checksum confirms a rebuild, but the parity equations
    // the decode did not use show the disagreement.
    let store = open(dir.path());
    store.fail_oss(data_oss).unwrap();
    match store.get("f") {
        Err(StoreError::DataLost(why)) => assert!(why.contains("disagrees"), "{why}"),
        Ok(got) => panic!(
            "read returned {} bytes without an error (written bytes: {})",
            got.len(),
            got == written
        ),
        Err(e) => panic!("unexpected error: {e}"),
    }
}
