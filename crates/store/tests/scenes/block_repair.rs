//! Repair works per 4 KiB checksum block row, not per element: block `i` of every element
//! of a stripe is a codeword of the stripe's code on its own, so a stripe whose elements each
//! hold a few corrupt blocks is whole again as long as no block row holds more unreadable
//! blocks than the code tolerates. Degraded reads and `scrub --repair` rebuild those rows;
//! only rows beyond the tolerance are lost, and the error names exactly their file bytes.

use crate::common;
use common::*;

use exaraid_codes::{Cell, CodeKind, CodeSpec, Pos};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

const BLOCK: usize = 4096;

fn init_with_unit(dir: &std::path::Path, code: CodeSpec, oss: usize, unit: usize) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = unit;
    opts.write_path = WritePath::Rmw;
    Store::init(dir, &opts).unwrap()
}

/// Flip one byte of checksum block `block` of the home element at `pos` of `stripe` of file
/// `name`, in its OSS's zone file (payload only: the block then fails its crc32c).
fn flip(store: &Store, name: &str, stripe: u64, pos: Pos, block: usize) {
    let id = store.file_id(name).unwrap();
    let layout = store.layout();
    let e = store.superblock().element_bytes;
    let zone = match layout.geometry().cell(pos) {
        Cell::Data(_) => "data",
        Cell::Parity(_) => "parity",
        Cell::Empty => panic!("{pos:?} holds no element"),
    };
    let oss = layout.oss_of(id, stripe, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.{zone}"));
    let slot = layout.home_addr(stripe, pos, 0) / e as u64;
    let slot_bytes = e + e / BLOCK * 4;
    let at = slot as usize * slot_bytes + block * BLOCK + 1234;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
}

/// The code column of `stripe` of file `name` that OSS `oss` holds.
fn col_on(store: &Store, name: &str, stripe: u64, oss: usize) -> usize {
    let id = store.file_id(name).unwrap();
    let cols = store.layout().geometry().cols;
    (0..cols)
        .find(|&c| store.layout().oss_of(id, stripe, c) == oss)
        .unwrap()
}

/// Data element `d` of the stripe.
fn data(store: &Store, d: usize) -> Pos {
    store.layout().geometry().data_pos[d]
}

/// Scrub with repair rewrites every corrupt block, then the store is clean and reads back.
fn assert_repaired(store: &Store, name: &str, want: &[u8], corrupt_elements: usize) {
    let report = store.scrub(false).unwrap();
    assert_eq!(
        report.corrupt_elements.len(),
        corrupt_elements,
        "{report:?}"
    );
    let report = store.scrub(true).unwrap();
    assert!(report.unrepairable.is_empty(), "{:?}", report.unrepairable);
    assert_eq!(report.repaired_elements, corrupt_elements as u64);
    assert!(report.corrupt_elements.iter().all(|f| f.repaired));
    assert_consistent(store);
    assert!(store.get(name).unwrap() == want);
}

/// The reviewer's scenario: raid5 over 5 OSSs, 64 KiB stripe unit; block 2 of the stripe-0
/// element on OSS 0 and block 7 of the stripe-0 element on OSS 1 rot. Two columns are
/// corrupt, but each block row has one bad block: nothing is lost.
#[test]
fn raid5_corrupt_blocks_in_two_columns_on_different_block_rows_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_with_unit(dir.path(), CodeSpec::raid5(4), 5, 65536);
    let a = pattern(1, 300_000);
    store.put("a", &a).unwrap();
    let c0 = col_on(&store, "a", 0, 0);
    let c1 = col_on(&store, "a", 0, 1);
    flip(&store, "a", 0, Pos { row: 0, col: c0 }, 2);
    flip(&store, "a", 0, Pos { row: 0, col: c1 }, 7);

    assert!(store.get("a").unwrap() == a, "degraded read of the stripe");
    assert_repaired(&store, "a", &a, 2);
}

/// raid6: three corrupt columns (two data, one parity), never more than two bad blocks in
/// one block row.
#[test]
fn raid6_three_corrupt_columns_spread_over_block_rows_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_with_unit(dir.path(), CodeSpec::raid6(4), 6, 65536);
    let a = pattern(2, 300_000);
    store.put("a", &a).unwrap();
    let q = store.layout().geometry().parity_pos[1];
    flip(&store, "a", 0, data(&store, 0), 2);
    flip(&store, "a", 0, data(&store, 2), 2);
    flip(&store, "a", 0, q, 7);

    assert!(store.get("a").unwrap() == a, "degraded read of the stripe");
    assert_repaired(&store, "a", &a, 3);
}

/// An array code (RDP p=5: 4 rows of elements per column): block row `i` is block `i` of
/// every element of every row, a codeword of RDP on its own. Three corrupt columns, at most
/// two in one block row.
#[test]
fn rdp_three_corrupt_columns_spread_over_block_rows_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_with_unit(dir.path(), CodeSpec::array(CodeKind::Rdp, 5), 6, 16384);
    let a = pattern(3, 300_000);
    store.put("a", &a).unwrap();
    flip(&store, "a", 0, Pos { row: 0, col: 0 }, 1);
    flip(&store, "a", 0, Pos { row: 2, col: 1 }, 1);
    flip(&store, "a", 0, Pos { row: 3, col: 2 }, 3);

    assert!(store.get("a").unwrap() == a, "degraded read of the stripe");
    assert_repaired(&store, "a", &a, 3);
}

/// raid5: block row 3 holds two corrupt data blocks (beyond the tolerance of one) and row 7
/// one. Exactly the two blocks of row 3 are lost: reads and the scrub name those bytes, every
/// other byte of the stripe (the corrupt block of row 7 included) reads and is repaired.
#[test]
fn a_block_row_beyond_the_tolerance_loses_exactly_its_corrupt_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let unit = 65536;
    let store = init_with_unit(dir.path(), CodeSpec::raid5(4), 5, unit);
    let a = pattern(4, 300_000);
    store.put("a", &a).unwrap();
    flip(&store, "a", 0, data(&store, 0), 3);
    flip(&store, "a", 0, data(&store, 1), 3);
    flip(&store, "a", 0, data(&store, 2), 7);
    let lost = "bytes 12288..16384, 77824..81920 are lost";

    let err = store.get("a").unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    assert!(err.to_string().contains(lost), "{err}");
    // Everything beside the two lost blocks reads, the rebuilt block of row 7 included.
    let read = |from: usize, to: usize| store.read("a", from as u64, (to - from) as u64);
    assert!(read(0, 12288).unwrap() == a[..12288]);
    assert!(read(16384, 77824).unwrap() == a[16384..77824]);
    assert!(read(81920, a.len()).unwrap() == a[81920..]);
    let err = read(70000, 80000).unwrap_err();
    assert!(err.to_string().contains(lost), "{err}");

    let report = store.scrub(true).unwrap();
    assert_eq!(report.unrepairable.len(), 1, "{:?}", report.unrepairable);
    assert!(
        report.unrepairable[0].contains(lost),
        "{:?}",
        report.unrepairable
    );
    assert_eq!(report.repaired_elements, 1, "the element of row 7's block");
    let repaired: Vec<(usize, Vec<usize>)> = report
        .corrupt_elements
        .iter()
        .filter(|f| f.repaired)
        .map(|f| (f.row, f.blocks.clone()))
        .collect();
    assert_eq!(repaired, vec![(0, vec![7])]);
    // After the repair only row 3 is unreadable; the rest still reads, rewriting the lost
    // bytes clears the loss.
    let report = store.scrub(false).unwrap();
    let blocks: Vec<Vec<usize>> = report
        .corrupt_elements
        .iter()
        .map(|f| f.blocks.clone())
        .collect();
    assert_eq!(blocks, vec![vec![3], vec![3]]);
    assert!(read(81920, a.len()).unwrap() == a[81920..]);
    store.write("a", 0, &a[..unit * 4]).unwrap();
    assert_consistent(&store);
    assert!(store.get("a").unwrap() == a);
}

/// X-code p=5 keeps its parity in the last two rows of every column: three corrupt parity
/// blocks in one block row are beyond the tolerance of two, but that row's data is clean, so
/// its parity is encoded again from the data.
#[test]
fn xcode_a_block_row_with_only_parity_beyond_the_tolerance_is_encoded_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = init_with_unit(dir.path(), CodeSpec::array(CodeKind::Xcode, 5), 5, 16384);
    let a = pattern(5, 300_000);
    store.put("a", &a).unwrap();
    let parity = store.layout().geometry().parity_pos.clone();
    let mut cols = std::collections::BTreeSet::new();
    for &pos in parity.iter().filter(|p| cols.insert(p.col)).take(3) {
        flip(&store, "a", 0, pos, 2);
    }
    assert_eq!(cols.len(), 3, "three parity columns");

    assert!(store.get("a").unwrap() == a);
    assert_repaired(&store, "a", &a, 3);
}

/// Parity that disagrees with the data (a write hole: data block 5 of element 0 was
/// rewritten, then the parity zone went back to its old bytes, with their valid checksums)
/// rebuilds wrong bytes for block 5 of element 1 when that rots. `scrub --repair` must not
/// write them under a fresh checksum: it confirms each rebuilt block against the block's
/// stored checksum, reports the block as unrepairable and leaves it failing; the corrupt
/// block of another row, with clean parity, is repaired.
#[test]
fn scrub_repair_does_not_write_a_block_rebuilt_from_stale_parity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let unit = 65536;
    let store = init_with_unit(&dir, CodeSpec::raid5(4), 5, unit);
    let mut a = pattern(6, 300_000);
    store.put("a", &a).unwrap();
    let id = store.file_id("a").unwrap();
    let parity_files: Vec<(std::path::PathBuf, Vec<u8>)> = store
        .superblock()
        .oss_dirs
        .iter()
        .map(|d| d.join("objects").join(format!("{id}.parity")))
        .filter(|p| p.exists())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let new = pattern(7, BLOCK);
    store.write("a", 5 * BLOCK as u64, &new).unwrap();
    a[5 * BLOCK..6 * BLOCK].copy_from_slice(&new);
    store.close().unwrap();
    for (p, bytes) in &parity_files {
        std::fs::write(p, bytes).unwrap();
    }
    let store = Store::open(&dir).unwrap();
    flip(&store, "a", 0, data(&store, 1), 5);
    flip(&store, "a", 0, data(&store, 2), 9);

    let report = store.scrub(true).unwrap();
    assert_eq!(report.unrepairable.len(), 1, "{:?}", report.unrepairable);
    assert!(
        report.unrepairable[0].contains("do not match"),
        "{:?}",
        report.unrepairable
    );
    assert_eq!(report.repaired_elements, 1, "{report:?}");
    let left: Vec<Vec<usize>> = store
        .scrub(false)
        .unwrap()
        .corrupt_elements
        .iter()
        .map(|f| f.blocks.clone())
        .collect();
    assert_eq!(
        left,
        vec![vec![5]],
        "the unconfirmed block still fails its checksum"
    );
    let e1_block5 = unit + 5 * BLOCK;
    let err = store.read("a", e1_block5 as u64, BLOCK as u64).unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err}");
    let e2_block9 = 2 * unit + 9 * BLOCK;
    assert!(
        store.read("a", e2_block9 as u64, BLOCK as u64).unwrap() == a[e2_block9..e2_block9 + BLOCK]
    );
}
