//! Recovery after a crash must not bless bit rot: only the byte ranges an interrupted
//! (never acknowledged) plan wrote may get fresh checksums; a flipped bit anywhere else in
//! the stripes recovery touches is corruption, rebuilt from parity or reported, never
//! returned by `get` as if it were data.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::state::State;
use exaraid_store::superblock::read_checked;
use exaraid_store::{Store, WritePath};

/// The OSS data-zone file holding `element` (file bytes `element*UNIT..(element+1)*UNIT`)
/// of stripe 0 in its first slot, found by content.
fn data_file_of(
    dir: &std::path::Path,
    oss: usize,
    id: u64,
    data: &[u8],
    element: usize,
) -> Option<std::path::PathBuf> {
    let want = &data[element * UNIT..(element + 1) * UNIT];
    for i in 0..oss {
        let path = dir
            .join(format!("oss-{i}"))
            .join("objects")
            .join(format!("{id}.data"));
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.len() >= UNIT && &bytes[..UNIT] == want {
            return Some(path);
        }
    }
    None
}

#[test]
fn recovery_after_an_interrupted_write_rebuilds_a_flipped_bit_in_another_block_of_the_stripe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let oss = 4;
    let store = init(&dir, CodeSpec::raid5(3), oss, WritePath::Rmw);
    // Two full stripes of acknowledged data.
    let data = pattern(41, 6 * UNIT);
    store.put("f", &data).unwrap();
    store.close().unwrap();
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    let id = state.files["f"].id;

    leave_write_in_flight(&dir, "f", 0, UNIT as u64);
    // Bit rot in element 1 of stripe 0 (file bytes UNIT..2*UNIT), which the interrupted
    // write (bytes 0..UNIT, element 0, and the stripe's parity) never touched.
    let victim =
        data_file_of(&dir, oss, id, &data, 1).expect("element 1 of stripe 0 found on an OSS");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(&victim, &bytes).unwrap();

    let store = Store::open(&dir).expect("recovery after the interrupted write");
    match store.get("f") {
        Ok(got) => {
            assert_eq!(got.len(), data.len());
            assert_eq!(
                got[UNIT + 100],
                data[UNIT + 100],
                "get returned the flipped byte: recovery blessed bit rot outside the interrupted write"
            );
            // Bytes 0..UNIT were in flight (old or new are both allowed; the planner never got
            // new bytes here, so the old ones are what is on disk); the rest is acknowledged.
            assert_eq!(&got[UNIT..], &data[UNIT..]);
        }
        Err(e) => {
            // An error is acceptable (never the flipped byte), but this stripe is within the
            // code's tolerance, so say what happened.
            panic!("get failed where one corrupt element is within raid5's tolerance: {e}");
        }
    }
    // Scrub must not hide it: either recovery rebuilt the element (the disk holds the original
    // byte again and scrub is clean), or scrub reports it.
    let report = store.scrub(false).unwrap();
    let on_disk = std::fs::read(&victim).unwrap();
    assert!(
        on_disk[100] == data[UNIT + 100] || !report.corrupt_elements.is_empty(),
        "the flipped bit stays on disk and scrub does not report it: {report:?}"
    );
    assert_consistent(&store);
}

#[test]
fn recovery_moving_cached_bytes_home_rebuilds_a_flipped_bit_outside_the_cached_range() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let oss = 4;
    let store = init(&dir, CodeSpec::raid5(3), oss, WritePath::Wcl);
    let mut data = pattern(43, 6 * UNIT);
    store.put("f", &data).unwrap();
    store.close().unwrap(); // everything home
    let store = Store::open(&dir).unwrap();
    // An acknowledged partial-stripe write: it stays in the cache zone (stripe 0, element 2).
    let small = pattern(44, 1000);
    store.write("f", 2 * UNIT as u64 + 10, &small).unwrap();
    data[2 * UNIT + 10..2 * UNIT + 1010].copy_from_slice(&small);
    drop(store); // a crash after the acknowledgement: no close, the cache zone stays
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    let id = state.files["f"].id;
    leave_write_in_flight(&dir, "f", 0, UNIT as u64);
    // Bit rot at home in element 1 of stripe 0: recovery moves the cached range (element 2)
    // home and recomputes this stripe's parity, but element 1 is no business of it.
    let victim = data_file_of(&dir, oss, id, &pattern(43, 6 * UNIT), 1).expect("element 1 found");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(&victim, &bytes).unwrap();

    let store = Store::open(&dir).expect("recovery after the interrupted write");
    let got = store
        .get("f")
        .expect("one corrupt element is within raid5's tolerance");
    assert_eq!(
        got[UNIT + 100],
        data[UNIT + 100],
        "get returned the flipped byte: recovery blessed bit rot outside the in-flight ranges"
    );
    assert_eq!(
        &got[UNIT..],
        &data[UNIT..],
        "acknowledged bytes (cached and home) survive"
    );
    let report = store.scrub(false).unwrap();
    let on_disk = std::fs::read(&victim).unwrap();
    assert!(
        on_disk[100] == data[UNIT + 100] || !report.corrupt_elements.is_empty(),
        "the flipped bit stays on disk and scrub does not report it: {report:?}"
    );
    assert_consistent(&store);
}

#[test]
fn recovery_rebuilds_only_the_corrupt_block_when_a_torn_write_left_a_write_hole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let oss = 4;
    // Four checksum blocks per element, so one element holds both the write hole and rot.
    let e = 4 * UNIT;
    let mut opts = exaraid_store::InitOptions::with_oss_count(&dir, oss, CodeSpec::raid5(3));
    opts.element_bytes = e;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(&dir, &opts).unwrap();
    let data = pattern(45, 3 * e);
    store.put("f", &data).unwrap();
    store.close().unwrap();
    let state: State = read_checked(&dir.join("state"), "state").unwrap();
    let id = state.files["f"].id;
    let file_of = |element: usize| {
        (0..oss)
            .map(|i| dir.join(format!("oss-{i}/objects/{id}.data")))
            .find(|p| {
                std::fs::read(p)
                    .is_ok_and(|b| b.len() >= e && b[..e] == data[element * e..(element + 1) * e])
            })
            .expect("element found")
    };
    let (d0, d1) = (file_of(0), file_of(1));
    // File bytes 0..UNIT: block 0 of element 0.
    leave_write_in_flight(&dir, "f", 0, UNIT as u64);
    // The interrupted write tore: its new bytes reached element 0 but not the parity, so the
    // stripe's data and parity disagree in block 0 of every element (a write hole).
    let mut bytes = std::fs::read(&d0).unwrap();
    bytes[..UNIT].copy_from_slice(&pattern(46, UNIT));
    std::fs::write(&d0, &bytes).unwrap();
    // Bit rot in block 2 of element 1, away from the write hole.
    let mut bytes = std::fs::read(&d1).unwrap();
    bytes[2 * UNIT + 100] ^= 0x01;
    std::fs::write(&d1, &bytes).unwrap();

    let store = Store::open(&dir).expect("recovery after the torn write");
    let got = store.get("f").unwrap();
    assert_eq!(
        got[e + 2 * UNIT + 100],
        data[e + 2 * UNIT + 100],
        "the flipped byte was blessed"
    );
    assert_eq!(
        &got[e..],
        &data[e..],
        "element 1 must be intact: only its corrupt block may be rebuilt, not the write hole"
    );
    assert_consistent(&store);
}
