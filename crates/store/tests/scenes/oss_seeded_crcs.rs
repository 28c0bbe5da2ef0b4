//! Review s11r R11-3 (WRONG BYTES, exit 0): a zone file copied from another OSS of the
//! store (same object, same slots: a restore from the wrong OSS's backup, a remote OSS
//! answering for the wrong target) passed every block checksum, because the crc seed named
//! the block's address on its OSS but not the OSS. `get` returned the other OSS's bytes;
//! in the WCL cache zone scrub did not see them and a flush made them permanent.
//! Stores made from session 12 on seed block crcs with the store id and the OSS index too:
//! such a copy is rot on the OSS it landed on, read around from parity, found by scrub and
//! repaired. Stores made before (address-only seed, superblock header version 1) keep
//! working as they were.

use crate::common;
use common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BlockCrcSeed, LABEL_FILE};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::superblock::{Superblock, SUPERBLOCK_FILE};
use exaraid_store::{InitOptions, Store, WritePath};

/// Copy zone file `name` of OSS `from` over the same-named zone file of OSS `to`, in the
/// store in `dir` (closed: no process holds the file open).
fn copy_zone_file(dir: &Path, from: usize, to: usize, name: &str) {
    let dirs = Superblock::load(dir).unwrap().oss_dirs;
    let from = dirs[from].join("objects").join(name);
    let to = dirs[to].join("objects").join(name);
    std::fs::copy(&from, &to).unwrap();
}

/// `got` is `want`; else how many bytes differ (not the bytes: they are many).
fn assert_reads(got: Vec<u8>, want: &[u8], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let differing = got.iter().zip(want).filter(|(g, w)| g != w).count();
    assert_eq!(
        differing, 0,
        "{what}: bytes differing from the acknowledged ones"
    );
}

fn init_with(dir: &Path, code: CodeSpec, oss: usize, path: WritePath, seed: BlockCrcSeed) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = UNIT;
    opts.write_path = path;
    opts.block_crc_seed = seed;
    // An address-only store is one made before session 12: absolute OSS paths too.
    opts.oss_dirs_relative = seed != BlockCrcSeed::Address;
    Store::init(dir, &opts).unwrap()
}

/// The review's repro (raid6 4+2, 4 KiB unit, a 100,000-byte put, OSS 2's data zone file
/// copied over OSS 1's): reads give the put's bytes (OSS 1's blocks fail their crcs and
/// are rebuilt from parity), scrub names OSS 1's elements corrupt and `--repair` rewrites
/// them. Its raid5 variant moved to s23a_gone_checksum_beside_stale_parity.rs (session 23):
/// where OSS 2 held no slot, the copy zeroes the crcs of OSS 1's written slots, and on one
/// parity nothing is left to prove their decode: those bytes are lost.
#[test]
fn a_data_zone_file_copied_from_another_oss_is_read_around_and_repaired() {
    let (code, oss) = (CodeSpec::raid6(4), 6);
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Rmw);
    let data = pattern(3, 100_000);
    store.put("f", &data).unwrap();
    let zone_file = format!("{}.data", store.file_id("f").unwrap());
    drop(store);
    copy_zone_file(dir.path(), 2, 1, &zone_file);

    let store = Store::open(dir.path()).unwrap();
    assert_reads(
        store.get("f").unwrap(),
        &data,
        &format!("{code:?}: the put's bytes"),
    );
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_elements.is_empty(),
        "{code:?}: scrub names the copied elements"
    );
    assert!(
        report.corrupt_elements.iter().all(|c| c.oss == 1),
        "{code:?}: only OSS 1's: {:?}",
        report.corrupt_elements
    );
    let repaired = store.scrub(true).unwrap();
    assert!(
        repaired.unrepairable.is_empty(),
        "{:?}",
        repaired.unrepairable
    );
    assert_consistent(&store);
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_reads(
        store.get("f").unwrap(),
        &data,
        &format!("{code:?}: after repair"),
    );
}

/// The review's WCL repro: an overwrite still in the cache zone, OSS 2's cache zone file
/// copied over OSS 1's. Reads give the acknowledged bytes, scrub names the cache elements
/// corrupt (before, it said nothing), and a flush moves the right bytes home, not OSS 2's.
#[test]
fn a_cache_zone_file_copied_from_another_oss_is_never_read_nor_flushed_home() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(4), 6, WritePath::Wcl);
    let old = pattern(5, 100_000);
    store.put("f", &old).unwrap();
    let new = pattern(6, 30_000);
    store.write("f", 0, &new).unwrap();
    let mut want = old.clone();
    want[..new.len()].copy_from_slice(&new);
    assert!(store.status().unwrap().bytes_waiting_parity > 0, "cached");
    drop(store);
    copy_zone_file(dir.path(), 2, 1, &format!("{CACHE_OBJECT}.cache"));

    let store = Store::open(dir.path()).unwrap();
    assert_reads(store.get("f").unwrap(), &want, "get");
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_cache_elements.is_empty()
            && report.corrupt_cache_elements.iter().all(|c| c.oss == 1),
        "{:?}",
        report.corrupt_cache_elements
    );
    store.flush().unwrap();
    assert_reads(store.get("f").unwrap(), &want, "after flush");
    assert_consistent(&store);
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_reads(store.get("f").unwrap(), &want, "after reopen");
}

/// `rebuild --to` gives OSS #1 a new directory: its blocks are OSS #1's (the seed is the
/// index, not the directory), so they read back, and a copy from OSS 2 into the new
/// directory is still caught.
#[test]
fn blocks_rebuilt_into_a_new_directory_take_the_seed_of_their_oss_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let mut store = init(&dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let data = pattern(7, 100_000);
    store.put("f", &data).unwrap();
    store.fail_oss(1).unwrap();
    let new_dir = tmp.path().join("new-oss-1");
    store.rebuild(1, Some(&new_dir)).unwrap();
    assert_consistent(&store);
    let zone_file = format!("{}.data", store.file_id("f").unwrap());
    drop(store);
    let store = Store::open(&dir).unwrap();
    assert_reads(store.get("f").unwrap(), &data, "get");
    assert_consistent(&store);
    drop(store);
    copy_zone_file(&dir, 2, 1, &zone_file);
    let store = Store::open(&dir).unwrap();
    assert_reads(store.get("f").unwrap(), &data, "get");
    assert!(!store.scrub(false).unwrap().corrupt_elements.is_empty());
}

/// A store made as binaries before session 12 made it (address-only seed): superblock
/// header version 1 and labels without a seed, as those binaries write and read them, and
/// it keeps working with this build: writes, reads, WCL flush, scrub, `rebuild --to`, and
/// it stays in that format (an older binary can still open it).
#[test]
fn a_store_with_the_address_only_seed_keeps_working_and_keeps_its_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let mut store = init_with(
        &dir,
        CodeSpec::raid6(4),
        6,
        WritePath::Wcl,
        BlockCrcSeed::Address,
    );
    let old = pattern(11, 100_000);
    store.put("f", &old).unwrap();
    let new = pattern(12, 30_000);
    store.write("f", 5_000, &new).unwrap();
    let mut want = old.clone();
    want[5_000..35_000].copy_from_slice(&new);
    assert_reads(store.get("f").unwrap(), &want, "get");
    store.fail_oss(3).unwrap();
    store
        .rebuild(3, Some(&tmp.path().join("new-oss-3")))
        .unwrap();
    store.flush().unwrap();
    assert_consistent(&store);
    let dirs = store.superblock().oss_dirs.clone();
    drop(store);

    let text = std::fs::read_to_string(dir.join(SUPERBLOCK_FILE)).unwrap();
    assert!(text.starts_with("EXARAID superblock v1 "), "{text}");
    for d in &dirs {
        let label = std::fs::read_to_string(d.join(LABEL_FILE)).unwrap();
        assert!(!label.contains("seed"), "{}: {label}", d.display());
    }
    assert!(!text.contains("seed"), "{text}");
    let store = Store::open(&dir).unwrap();
    assert_eq!(store.superblock().block_crc_seed, BlockCrcSeed::Address);
    assert_reads(store.get("f").unwrap(), &want, "get");
    // Rot is still caught and repaired under the old seed.
    let file = store.file_id("f").unwrap();
    let path = dirs[0].join("objects").join(format!("{file}.data"));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[10] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    assert_reads(store.get("f").unwrap(), &want, "get");
    let report = store.scrub(true).unwrap();
    assert_eq!(
        report.corrupt_elements.len(),
        1,
        "{:?}",
        report.corrupt_elements
    );
    assert_consistent(&store);
}

/// New stores name the seed in a superblock header version older binaries refuse
/// (they read version 1 only), and a superblock whose header and seed disagree (a hand
/// edit, a downgrade attempt) is refused as damaged, not taken as either. (OSS directories
/// recorded absolute here, as before session 14: relative ones take header version 3, see
/// `copied_store.rs`.)
#[test]
fn the_seed_is_named_by_the_superblock_header_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.oss_dirs_relative = false;
    let store = Store::init(dir.path(), &opts).unwrap();
    assert_eq!(store.superblock().block_crc_seed, BlockCrcSeed::NEW_STORES);
    drop(store);
    let path = dir.path().join(SUPERBLOCK_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("EXARAID superblock v2 "), "{text}");
    assert!(
        text.contains(r#""block_crc_seed": "store-oss-address""#),
        "{text}"
    );
    let as_v1 = text.replacen(" v2 ", " v1 ", 1);
    std::fs::write(&path, as_v1).unwrap();
    let err = Superblock::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("damaged") && err.contains("header version 1"),
        "{err}"
    );
    // Version 3 names relative OSS directory paths, which this superblock has none of.
    let as_v3 = text.replacen(" v2 ", " v3 ", 1);
    std::fs::write(&path, as_v3).unwrap();
    let err = Superblock::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("damaged") && err.contains("header version 3"),
        "{err}"
    );
    let as_v4 = text.replacen(" v2 ", " v4 ", 1);
    std::fs::write(&path, as_v4).unwrap();
    let err = Store::open(dir.path()).err().unwrap().to_string();
    assert!(err.contains("format version 4"), "{err}");
    std::fs::write(&path, text).unwrap();
    Store::open(dir.path()).unwrap();
}
