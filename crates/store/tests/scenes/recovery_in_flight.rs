//! Recovery decides, per 4 KiB checksum block, which bytes of a stripe to keep after a crash
//! cut a write. The bytes the cut write covered were never acknowledged (old or new are both
//! right), but a checksum block is larger than a write: the rest of a torn write's edge
//! block is acknowledged data, and bit rot there must be rebuilt from parity, never blessed
//! by a fresh checksum. Where the code cannot tell the true bytes (bit rot where the cut write
//! left data and parity disagreeing, on single parity), reads must fail with `DataLost`
//! naming the range instead of returning wrong bytes.
//!
//! Elements here are one checksum block (4 KiB), raid5(3) over 4 OSSs (raid6 over 5): one
//! stripe holds file bytes 0..12288, element `i` holds bytes `i*4096..(i+1)*4096`.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::state::State;
use exaraid_store::superblock::read_checked;
use exaraid_store::{Store, WritePath};

const STRIPE_BYTES: usize = 3 * UNIT;

fn file_id(dir: &Path, name: &str) -> u64 {
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    state.files[name].id
}

/// The data-zone file whose first slot holds `element` (found by content).
fn data_file(dir: &Path, oss: usize, id: u64, element: &[u8]) -> PathBuf {
    (0..oss)
        .map(|i| dir.join(format!("oss-{i}/objects/{id}.data")))
        .find(|p| std::fs::read(p).is_ok_and(|b| b.len() >= UNIT && &b[..UNIT] == element))
        .expect("element found on an OSS")
}

/// Every parity-zone file of the store (path, bytes).
fn parity_files(dir: &Path, oss: usize, id: u64) -> Vec<(PathBuf, Vec<u8>)> {
    (0..oss)
        .map(|i| dir.join(format!("oss-{i}/objects/{id}.parity")))
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

/// Change payload bytes of slot 0 of a zone file, leaving its checksums as they are (what a
/// kill between a block's payload and its checksum leaves, or what bit rot does).
fn change_payload(path: &Path, at: usize, f: impl Fn(usize, u8) -> u8) {
    change_payload_range(path, at, 1, f)
}

fn change_payload_range(path: &Path, at: usize, len: usize, f: impl Fn(usize, u8) -> u8) {
    let mut bytes = std::fs::read(path).unwrap();
    for (i, b) in bytes[at..at + len].iter_mut().enumerate() {
        *b = f(at + i, *b);
    }
    std::fs::write(path, &bytes).unwrap();
}

/// A store with one acknowledged, fully home stripe of `data`, closed.
fn one_stripe(dir: &Path, code: CodeSpec, oss: usize, data: &[u8]) {
    let store = init(dir, code, oss, WritePath::Rmw);
    store.put("f", data).unwrap();
    store.close().unwrap();
}

/// Bytes `in_flight` may be old or new; every other byte must be the acknowledged one.
fn assert_acknowledged(got: &[u8], old: &[u8], new: &[u8], in_flight: std::ops::Range<usize>) {
    assert_eq!(got.len(), old.len());
    for (b, &g) in got.iter().enumerate() {
        if in_flight.contains(&b) {
            let n = new[b - in_flight.start];
            assert!(
                g == old[b] || g == n,
                "byte {b} of the write in flight is {g}: neither old {} nor new {n}",
                old[b]
            );
        } else {
            assert_eq!(
                g, old[b],
                "acknowledged byte {b} is {g}, was {}: recovery blessed bit rot",
                old[b]
            );
        }
    }
}

// ------------------------------------------------------------------ item: rot beside a torn write

/// A write of bytes 100..200 tore (its new bytes reached element 0, the block's checksum did
/// not), and a bit rotted at byte 3000 of the same checksum block, outside the write. The
/// block's checksum cannot tell the two apart; parity can, because nothing was in flight at
/// byte 3000: recovery rebuilds it.
#[test]
fn a_flipped_bit_beside_a_torn_partial_block_write_is_rebuilt_from_parity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let data = pattern(51, STRIPE_BYTES);
    one_stripe(&dir, CodeSpec::raid5(3), 4, &data);
    let id = file_id(&dir, "f");
    let d0 = data_file(&dir, 4, id, &data[..UNIT]);
    let new = pattern(52, 100);
    leave_write_in_flight(&dir, "f", 100, 100);
    change_payload_range(&d0, 100, 100, |b, _| new[b - 100]);
    change_payload(&d0, 3000, |_, x| x ^ 0x04);

    let store = Store::open(&dir).expect("recovery");
    let got = store.get("f").unwrap();
    assert_acknowledged(&got, &data, &new, 100..200);
    assert_consistent(&store);
}

/// The same bit rot beside a write that never reached the disk: the block fails its checksum
/// only because of the rot, and a reseal of the write's range would bless it.
#[test]
fn a_flipped_bit_beside_an_in_flight_write_that_never_landed_is_rebuilt_from_parity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let data = pattern(53, STRIPE_BYTES);
    one_stripe(&dir, CodeSpec::raid5(3), 4, &data);
    let id = file_id(&dir, "f");
    let d0 = data_file(&dir, 4, id, &data[..UNIT]);
    leave_write_in_flight(&dir, "f", 100, 100);
    change_payload(&d0, 3000, |_, x| x ^ 0x80);

    let store = Store::open(&dir).expect("recovery");
    let got = store.get("f").unwrap();
    assert_acknowledged(&got, &data, &data[100..200], 100..200);
    assert_eq!(got, data, "nothing new reached the disk");
    assert_consistent(&store);
}

/// The write tore on both its data element and the parity, and a bit rotted beside it in the
/// data block. Single parity sees the row disagree at byte 3000 but cannot tell whether the
/// data or the parity rotted: reads of that data must fail naming the range, never return
/// the flipped byte. The other elements stay readable.
#[test]
fn a_flipped_bit_beside_a_write_torn_on_data_and_parity_is_reported_lost_on_raid5() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let data = pattern(54, STRIPE_BYTES);
    one_stripe(&dir, CodeSpec::raid5(3), 4, &data);
    let id = file_id(&dir, "f");
    let d0 = data_file(&dir, 4, id, &data[..UNIT]);
    let new = pattern(55, 100);
    leave_write_in_flight(&dir, "f", 100, 100);
    change_payload_range(&d0, 100, 100, |b, _| new[b - 100]);
    // The parity's new bytes (old parity + old data + new data) reached its disk too.
    let parity = parity_files(&dir, 4, id);
    assert_eq!(parity.len(), 1, "raid5: one parity element");
    change_payload_range(&parity[0].0, 100, 100, |b, x| x ^ data[b] ^ new[b - 100]);
    change_payload(&d0, 3000, |_, x| x ^ 0x04);

    let store = Store::open(&dir).expect("recovery opens the store even when it loses a block");
    let e = store.read("f", 0, UNIT as u64).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, exaraid_store::StoreError::DataLost(_)), "{msg}");
    assert!(
        msg.contains("'f' bytes 0..4096"),
        "the error names the block: {msg}"
    );
    assert!(
        store.read("f", UNIT as u64, 2 * UNIT as u64).unwrap() == data[UNIT..],
        "the other elements of the stripe stay readable and intact"
    );
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_elements.is_empty(),
        "scrub reports the lost block: {report:?}"
    );
    assert_eq!(
        lost(&report.lost_ranges),
        vec![("f".into(), 0, UNIT as u64)]
    );
    // rm clears the record with the file.
    store.remove("f").unwrap();
    assert!(store.status().unwrap().lost_ranges.is_empty());
}

/// `(file, offset, length)` of lost ranges as `status` and `scrub` list them.
fn lost(ranges: &[exaraid_store::store::LostRangeStatus]) -> Vec<(String, u64, u64)> {
    ranges
        .iter()
        .map(|l| (l.file.clone(), l.offset_bytes, l.len_bytes))
        .collect()
}

// ------------------------------------------------------------------ item: rot in a write hole

/// Build the write hole: element 0's new bytes (`new`) reached its disk whole (with their
/// checksum), the parity update did not (the parity files hold the old parity, whole); the
/// write is in flight in the journal. Then a bit rots in element 1 at byte 100, where data
/// and parity disagree.
fn write_hole_with_rot_beside_it(dir: &Path, code: CodeSpec, oss: usize, data: &[u8], new: &[u8]) {
    one_stripe(dir, code, oss, data);
    let id = file_id(dir, "f");
    let old_parity = parity_files(dir, oss, id);
    let store = Store::open(dir).unwrap();
    store.write("f", 0, new).unwrap();
    store.close().unwrap();
    for (path, bytes) in &old_parity {
        std::fs::write(path, bytes).unwrap();
    }
    leave_write_in_flight(dir, "f", 0, new.len() as u64);
    let d1 = data_file(dir, oss, id, &data[UNIT..2 * UNIT]);
    change_payload(&d1, 100, |_, x| x ^ 0x01);
}

/// Single parity: decoding element 1 from the new element 0 and the old parity gives wrong
/// bytes, and single parity cannot tell. Its checksum says so: reads of element 1 must fail
/// with DataLost naming the range, never return those bytes.
#[test]
fn a_flipped_bit_in_a_write_hole_on_raid5_is_reported_lost_not_rebuilt_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let data = pattern(61, STRIPE_BYTES);
    let new = pattern(62, UNIT);
    write_hole_with_rot_beside_it(&dir, CodeSpec::raid5(3), 4, &data, &new);

    let store = Store::open(&dir).expect("recovery opens the store even when it loses a block");
    let e = store.read("f", UNIT as u64, UNIT as u64).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, exaraid_store::StoreError::DataLost(_)), "{msg}");
    assert!(
        msg.contains("'f' bytes 4096..8192") && msg.contains("recovery after a crash"),
        "the error names the block and why: {msg}"
    );
    // Listed where every other loss is: status and scrub.
    let status = store.status().unwrap();
    assert_eq!(
        lost(&status.lost_ranges),
        vec![("f".into(), UNIT as u64, UNIT as u64)]
    );
    // Element 0 (in flight: old or new) and element 2 (acknowledged) stay readable.
    let e0 = store.read("f", 0, UNIT as u64).unwrap();
    assert!(
        e0 == data[..UNIT] || e0 == new,
        "element 0 is neither old nor new"
    );
    assert!(
        store.read("f", 2 * UNIT as u64, UNIT as u64).unwrap() == data[2 * UNIT..],
        "element 2 is acknowledged and intact"
    );
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_elements.is_empty(),
        "scrub reports the lost block: {report:?}"
    );
    assert_eq!(lost(&report.lost_ranges), lost(&status.lost_ranges));
    // Still lost after another open (journaled, and the mark is on disk).
    drop(store);
    let store = Store::open(&dir).unwrap();
    assert!(store.read("f", UNIT as u64, UNIT as u64).is_err());
    assert_eq!(lost(&store.status().unwrap().lost_ranges).len(), 1);
    // A write of the whole stripe makes it readable again and clears the record.
    let whole = pattern(63, STRIPE_BYTES);
    store.write("f", 0, &whole).unwrap();
    assert!(store.status().unwrap().lost_ranges.is_empty());
    assert!(store.get("f").unwrap() == whole);
    assert_consistent(&store);
}

/// Double parity can undo the write hole: erasing the in-flight element 0 as well, element 1
/// decodes from the two old parities, and its checksum confirms it.
#[test]
fn a_flipped_bit_in_a_write_hole_on_raid6_is_rebuilt_and_confirmed_by_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let data = pattern(63, STRIPE_BYTES);
    let new = pattern(64, UNIT);
    write_hole_with_rot_beside_it(&dir, CodeSpec::raid6(3), 5, &data, &new);

    let store = Store::open(&dir).expect("recovery");
    let got = store.get("f").unwrap();
    assert_acknowledged(&got, &data, &new, 0..UNIT);
    assert_consistent(&store);
}
