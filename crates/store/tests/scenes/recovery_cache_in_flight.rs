//! Recovery decides a WCL cache block an interrupted write touched the way it decides a home
//! block: the bytes the cut write covered keep what reached the disk (never acknowledged),
//! but acknowledged cached bytes sharing the 4 KiB checksum block with it are rebuilt from
//! the cache stripe (which has its own running parity), never blessed by a fresh checksum.
//! Where the cache stripe cannot tell (data and running parity both torn on single parity,
//! and bit rot beside the write), reads fail with `DataLost` naming the range instead.
//!
//! Elements are one checksum block (4 KiB), raid5(3) over 4 OSSs, write path WCL: file "a"
//! has 1000 acknowledged bytes in its open cache stripe (slot 0 of every OSS's cache zone).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;
const ACKED_BYTES: usize = 1000;
/// The interrupted write: bytes 2000..2100 of "a", in the same checksum block as the
/// acknowledged bytes 0..1000.
const IN_FLIGHT: std::ops::Range<usize> = 2000..2100;

/// Change payload bytes of cache slot 0 of an OSS, leaving the checksums as they are (what a
/// kill between a block's payload and its checksum leaves, or what bit rot does).
fn change_cache_payload(path: &Path, range: std::ops::Range<usize>, f: impl Fn(usize, u8) -> u8) {
    let mut bytes = std::fs::read(path).unwrap();
    assert!(bytes.len() >= SLOT_BYTES, "cache slot 0 exists");
    for b in range {
        bytes[b] = f(b, bytes[b]);
    }
    std::fs::write(path, &bytes).unwrap();
}

struct Cached {
    acked: Vec<u8>,
    new: Vec<u8>,
    /// The cache zone files holding element 0 of the cache stripe and its running parity.
    data: PathBuf,
    parity: PathBuf,
}

/// "a" with `ACKED_BYTES` acknowledged in the cache zone, the store closed, and a write of
/// `IN_FLIGHT` left in flight (nothing of it on disk yet: each test tears what it needs).
fn cached_bytes_and_a_write_in_flight(dir: &Path) -> Cached {
    cached_bytes_and_a_write_in_flight_on(dir, CodeSpec::raid5(3), 4)
}

fn cached_bytes_and_a_write_in_flight_on(dir: &Path, code: CodeSpec, oss: usize) -> Cached {
    let store = init(dir, code, oss, WritePath::Wcl);
    let acked = pattern(81, ACKED_BYTES);
    store.write("a", 0, &acked).unwrap();
    assert_eq!(
        store.status().unwrap().bytes_waiting_parity,
        ACKED_BYTES as u64
    );
    let id = store.file_id("a").unwrap();
    let cache_file = |oss: usize| {
        store.superblock().oss_dirs[oss]
            .join("objects")
            .join(format!("{CACHE_OBJECT}.cache"))
    };
    let data = cache_file(store.layout().oss_of(id, 0, 0));
    let parity_col = store.layout().geometry().parity_pos[0].col;
    let parity = cache_file(store.layout().oss_of(id, 0, parity_col));
    store.close().unwrap();
    leave_write_in_flight(dir, "a", IN_FLIGHT.start as u64, IN_FLIGHT.len() as u64);
    Cached {
        acked,
        new: pattern(82, IN_FLIGHT.len()),
        data,
        parity,
    }
}

/// The write's new data reached element 0 of the cache stripe (under the old checksum).
fn tear_data(c: &Cached) {
    change_cache_payload(&c.data, IN_FLIGHT, |b, _| c.new[b - IN_FLIGHT.start]);
}

/// The write's new running parity (old parity ^ new data: the bytes were never written)
/// reached the parity element too (under its old checksum).
fn tear_parity(c: &Cached) {
    change_cache_payload(&c.parity, IN_FLIGHT, |b, x| x ^ c.new[b - IN_FLIGHT.start]);
}

/// Bytes `IN_FLIGHT` may be old (zeros: never written) or new; every other byte must be the
/// acknowledged one.
fn assert_acknowledged(c: &Cached, got: &[u8]) {
    for (b, &g) in got.iter().enumerate() {
        if IN_FLIGHT.contains(&b) {
            let n = c.new[b - IN_FLIGHT.start];
            assert!(g == 0 || g == n, "byte {b} of the write in flight is {g}");
        } else {
            let want = c.acked.get(b).copied().unwrap_or(0);
            assert_eq!(
                g, want,
                "acknowledged byte {b} is {g}, was {want}: recovery blessed bit rot in the cache zone"
            );
        }
    }
}

/// The write tore on the cached data element only (its running parity update never
/// started), and a bit rotted at byte 500: acknowledged, in the same checksum block. The
/// running parity was not in flight at byte 500: recovery rebuilds it from the cache stripe.
#[test]
fn a_flipped_bit_beside_a_torn_cache_write_is_rebuilt_from_the_cache_stripe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let c = cached_bytes_and_a_write_in_flight(&dir);
    tear_data(&c);
    change_cache_payload(&c.data, 500..501, |_, x| x ^ 0x04);

    let store = Store::open(&dir).expect("recovery");
    assert_acknowledged(&c, &store.get("a").unwrap());
    assert_consistent(&store);
}

/// Data and running parity both tore, and a bit rotted beside the write: single parity sees
/// the row disagree at byte 500 but cannot tell whether the data or the parity rotted. Reads
/// of those bytes fail naming the range; they never return the flipped byte.
#[test]
fn a_flipped_bit_beside_a_cache_write_torn_on_data_and_parity_is_reported_lost_on_raid5() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let c = cached_bytes_and_a_write_in_flight(&dir);
    tear_data(&c);
    tear_parity(&c);
    change_cache_payload(&c.data, 500..501, |_, x| x ^ 0x04);

    let store = Store::open(&dir).expect("recovery opens the store even when it loses a block");
    let e = store.read("a", 0, ACKED_BYTES as u64).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, StoreError::DataLost(_)), "{msg}");
    assert!(
        msg.contains("'a' bytes 0.."),
        "the error names the range: {msg}"
    );
    let listed = store.status().unwrap().lost_ranges;
    assert!(
        listed.len() == 1 && listed[0].file == "a" && listed[0].offset_bytes == 0,
        "status lists the loss: {listed:?}"
    );
    let report = store.scrub(false).unwrap();
    assert!(
        !report.corrupt_elements.is_empty(),
        "scrub reports the lost block: {report:?}"
    );
    // Still lost after another open, and a write of the whole stripe clears it.
    drop(store);
    let store = Store::open(&dir).unwrap();
    if let Ok(got) = store.read("a", 0, ACKED_BYTES as u64) {
        assert_acknowledged(&c, &got);
    }
    let whole = pattern(83, 3 * UNIT);
    store.write("a", 0, &whole).unwrap();
    assert!(store.get("a").unwrap() == whole);
    assert!(store.status().unwrap().lost_ranges.is_empty(), "cleared");
}

/// Data and running parity both tore and nothing rotted: the row agrees where nothing was
/// in flight, so the acknowledged bytes are kept (no false loss in a plain crash).
#[test]
fn a_cache_write_torn_on_data_and_parity_keeps_the_acknowledged_bytes_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let c = cached_bytes_and_a_write_in_flight(&dir);
    tear_data(&c);
    tear_parity(&c);

    let store = Store::open(&dir).expect("recovery");
    assert_acknowledged(&c, &store.get("a").unwrap());
    assert_consistent(&store);
}

/// Double parity: data and the first running parity both tore, and a bit rotted beside the
/// write. The second running parity was not in flight at byte 500: the cache stripe
/// rebuilds the acknowledged bytes instead of losing them.
#[test]
fn a_flipped_bit_beside_a_cache_write_torn_on_data_and_parity_is_rebuilt_on_raid6() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let c = cached_bytes_and_a_write_in_flight_on(&dir, CodeSpec::raid6(3), 5);
    tear_data(&c);
    // Any change of the parity's in-flight bytes will do: they were never acknowledged.
    tear_parity(&c);
    change_cache_payload(&c.data, 500..501, |_, x| x ^ 0x04);

    let store = Store::open(&dir).expect("recovery");
    assert_acknowledged(&c, &store.get("a").unwrap());
    assert_consistent(&store);
}
