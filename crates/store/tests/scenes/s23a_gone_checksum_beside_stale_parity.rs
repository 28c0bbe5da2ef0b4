//! A checksum that is gone (zeroed inside a written slot, outside exaraid) never vouches
//! for bytes (issue #4, session 23, s23a). The backend says so: `ChecksumWitness::
//! NoWitness`; until session 23 it "matched anything", and every path that confirms a
//! decode against a block's checksum took a decode through stale parity on its word.
//!
//! The scene, per code (raid6 4+2, rs 4+2 over 6 OSSs, rmw) and element size (4 KiB and
//! 64 KiB): one stripe of file `f`. Block row `ROW_OF[e]` of data element 0 is rewritten
//! (acknowledged), then the first parity element goes back to its old bytes with their
//! valid checksums (a lost write: stale, suspect to nobody). In the same block row, data
//! element 1's checksum is zeroed (alone, or with its payload), and a second column is
//! erased beside it: data element 2's block rots (a flipped byte), or its OSS is failed.
//! That row then has as many columns erased as the code tolerates: its decode uses the
//! stale parity and nothing is left over to check it, so it is wrong, and only element 1's
//! checksum could have told, which is gone. Each caller must return the acknowledged bytes
//! or fail naming them lost; never wrong bytes with success.

use crate::common;
use common::*;

use std::path::PathBuf;

use exaraid_codes::{CodeSpec, Pos};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

const BLOCK_BYTES: usize = 4096;
const OSS_COUNT: usize = 6;
const ELEMENT_SIZES_BYTES: [usize; 2] = [4096, 65536];

fn codes() -> [(&'static str, CodeSpec); 2] {
    [
        ("raid6 4+2", CodeSpec::raid6(4)),
        ("rs 4+2", CodeSpec::rs(4, 2)),
    ]
}

/// The block row the scene damages: the only one of a 4 KiB element, else one inside.
fn damaged_row(element_bytes: usize) -> usize {
    (element_bytes / BLOCK_BYTES).min(4) - 1
}

#[derive(Clone, Copy, Debug)]
enum Zeroed {
    Crc,
    CrcAndPayload,
}

/// The column erased beside the gone checksum, in the same block row.
#[derive(Clone, Copy, Debug)]
enum Beside {
    /// Data element 2's block rots (a byte flipped: it fails its own checksum).
    Rot,
    /// Data element 2's OSS is failed on record (a degraded read).
    FailedOss,
}

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    /// The acknowledged bytes of `f`.
    model: Vec<u8>,
    element_bytes: usize,
    row: usize,
    what: String,
}

impl Scene {
    /// File offset of block row `self.row` of data element `d`.
    fn block_at(&self, d: usize) -> u64 {
        (d * self.element_bytes + self.row * BLOCK_BYTES) as u64
    }

    fn open(&self) -> Store {
        Store::open(&self.dir).unwrap_or_else(|e| panic!("{}: open: {e}", self.what))
    }
}

/// Zone file and slot offset of the stripe-0 home element at `pos` of file `f`.
fn home_slot(store: &Store, pos: Pos) -> (usize, PathBuf, usize) {
    let id = store.file_id("f").unwrap();
    let layout = store.layout();
    let e = store.superblock().element_bytes;
    let zone = match layout.geometry().cell(pos) {
        exaraid_codes::Cell::Data(_) => "data",
        exaraid_codes::Cell::Parity(_) => "parity",
        exaraid_codes::Cell::Empty => panic!("{pos:?} holds no element"),
    };
    let oss = layout.oss_of(id, 0, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.{zone}"));
    let slot = (layout.home_addr(0, pos, 0) / e as u64) as usize;
    (oss, path, slot * (e + e / BLOCK_BYTES * 4))
}

fn scene(code: (&str, CodeSpec), element_bytes: usize, zeroed: Zeroed, beside: Beside) -> Scene {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let mut opts = InitOptions::with_oss_count(&dir, OSS_COUNT, code.1);
    opts.element_bytes = element_bytes;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(&dir, &opts).unwrap();
    let row = damaged_row(element_bytes);
    let mut model = pattern(element_bytes as u64, 4 * element_bytes);
    store.put("f", &model).unwrap();
    let g = store.layout().geometry().clone();
    let (_, parity_path, _) = home_slot(&store, g.parity_pos[0]);
    let old_parity = std::fs::read(&parity_path).unwrap();
    let at = row * BLOCK_BYTES;
    let new = pattern(7, BLOCK_BYTES);
    store.write("f", at as u64, &new).unwrap();
    model[at..at + BLOCK_BYTES].copy_from_slice(&new);
    let (_, e1_path, e1_slot) = home_slot(&store, g.data_pos[1]);
    let (e2_oss, e2_path, e2_slot) = home_slot(&store, g.data_pos[2]);
    store.close().unwrap();
    assert_ne!(
        std::fs::read(&parity_path).unwrap(),
        old_parity,
        "the write changed the first parity"
    );
    std::fs::write(&parity_path, &old_parity).unwrap();

    let mut e1 = std::fs::read(&e1_path).unwrap();
    let crc_at = e1_slot + element_bytes + row * 4;
    e1[crc_at..crc_at + 4].fill(0);
    if let Zeroed::CrcAndPayload = zeroed {
        let from = e1_slot + row * BLOCK_BYTES;
        e1[from..from + BLOCK_BYTES].fill(0);
    }
    std::fs::write(&e1_path, e1).unwrap();
    match beside {
        Beside::Rot => {
            let mut e2 = std::fs::read(&e2_path).unwrap();
            e2[e2_slot + row * BLOCK_BYTES + 100] ^= 0x5a;
            std::fs::write(&e2_path, e2).unwrap();
        }
        Beside::FailedOss => {
            let store = Store::open(&dir).unwrap();
            store.fail_oss(e2_oss).unwrap();
            store.close().unwrap();
        }
    }
    Scene {
        _tmp: tmp,
        dir,
        model,
        element_bytes,
        row,
        what: format!(
            "{} {} KiB elements, {zeroed:?} zeroed beside {beside:?}",
            code.0,
            element_bytes / 1024
        ),
    }
}

/// Every scene: each code, element size, zeroing and second erasure.
fn each_scene(besides: &[Beside], mut check: impl FnMut(Scene)) {
    for code in codes() {
        for element_bytes in ELEMENT_SIZES_BYTES {
            for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
                for &beside in besides {
                    check(scene(code, element_bytes, zeroed, beside));
                }
            }
        }
    }
}

/// The 4 KiB block of `f` at `at` reads `want`, or fails with `DataLost` naming its bytes.
/// Returns whether it read.
fn reads_right_or_lost(store: &Store, at: u64, want: &[u8], what: &str) -> bool {
    match store.read("f", at, BLOCK_BYTES as u64) {
        Ok(got) => {
            let wrong = got.iter().zip(want).filter(|(g, w)| g != w).count();
            assert!(
                wrong == 0,
                "{what}: bytes {at}..{} read with success, {wrong} of them wrong (a decode through stale parity vouched for by a gone checksum)",
                at + BLOCK_BYTES as u64
            );
            true
        }
        Err(e @ StoreError::DataLost(_)) => {
            let msg = e.to_string();
            let named = format!("{at}..{}", at + BLOCK_BYTES as u64);
            assert!(
                msg.contains(&named) && msg.contains("lost"),
                "{what}: the error names bytes {named} lost: {msg}"
            );
            false
        }
        Err(e) => panic!("{what}: bytes {at}.. failed other than DataLost: {e}"),
    }
}

/// `get` (a plain read, every OSS up): element 1's block rebuilt from the stale parity is
/// refused; on 9e15292 the gone checksum vouched for it and the read returned it.
#[test]
fn a_read_never_takes_a_decode_vouched_for_by_a_gone_checksum() {
    each_scene(&[Beside::Rot], |sc| {
        let store = sc.open();
        let at = sc.block_at(1);
        let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
        assert!(
            !reads_right_or_lost(&store, at, want, &sc.what),
            "{}: nothing proves the block (no checksum, no spare parity, its bytes on disk disagree with the decode), yet it read",
            sc.what
        );
        // The rows beside it are untouched: they read.
        if sc.row > 0 {
            let at = (sc.element_bytes) as u64;
            assert!(reads_right_or_lost(
                &store,
                at,
                &sc.model[at as usize..][..BLOCK_BYTES],
                &sc.what
            ));
        }
    });
}

/// Degraded `get` (data element 2's OSS failed): the same refusal for element 1's block.
/// Element 2's own block in that row (no checksum: its OSS is failed) is not read here:
/// see the report of s23a (a decode with no spare parity left through a stale element
/// is unchecked wherever the column has no checksum, a limit apart from gone checksums).
#[test]
fn a_degraded_read_never_takes_a_decode_vouched_for_by_a_gone_checksum() {
    each_scene(&[Beside::FailedOss], |sc| {
        let store = sc.open();
        let at = sc.block_at(1);
        let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
        assert!(
            !reads_right_or_lost(&store, at, want, &sc.what),
            "{}: nothing proves the block, yet it read",
            sc.what
        );
    });
}

/// With a spare parity left (nothing erased beside the gone checksum), the decode of the
/// block is checked by it, and a healthy stripe reads whole (no false loss): here with
/// the stale parity put back right first, the block reads its bytes.
#[test]
fn a_gone_checksum_with_a_spare_parity_left_reads_its_bytes() {
    for code in codes() {
        for element_bytes in ELEMENT_SIZES_BYTES {
            for zeroed in [Zeroed::Crc, Zeroed::CrcAndPayload] {
                let tmp = scratch();
                let dir = tmp.path().join("store");
                let mut opts = InitOptions::with_oss_count(&dir, OSS_COUNT, code.1);
                opts.element_bytes = element_bytes;
                opts.write_path = WritePath::Rmw;
                let store = Store::init(&dir, &opts).unwrap();
                let model = pattern(element_bytes as u64, 4 * element_bytes);
                store.put("f", &model).unwrap();
                let g = store.layout().geometry().clone();
                let (_, e1_path, e1_slot) = home_slot(&store, g.data_pos[1]);
                store.close().unwrap();
                let row = damaged_row(element_bytes);
                let mut e1 = std::fs::read(&e1_path).unwrap();
                let crc_at = e1_slot + element_bytes + row * 4;
                e1[crc_at..crc_at + 4].fill(0);
                if let Zeroed::CrcAndPayload = zeroed {
                    let from = e1_slot + row * BLOCK_BYTES;
                    e1[from..from + BLOCK_BYTES].fill(0);
                }
                std::fs::write(&e1_path, e1).unwrap();
                let store = Store::open(&dir).unwrap();
                let what = format!("{} {element_bytes} B elements, {zeroed:?}", code.0);
                assert!(store.get("f").unwrap() == model, "{what}: get");
            }
        }
    }
}

/// `scrub` reports the block whose checksum is gone and changes nothing on disk.
#[test]
fn scrub_reports_a_gone_checksum_and_changes_nothing() {
    each_scene(&[Beside::Rot], |sc| {
        let store = sc.open();
        let before = object_files_bytes(&sc.dir);
        let report = store.scrub(false).unwrap();
        assert!(
            report.corrupt_elements.len() >= 2,
            "{}: scrub names both damaged elements: {report:?}",
            sc.what
        );
        assert!(
            before == object_files_bytes(&sc.dir),
            "{}: scrub wrote",
            sc.what
        );
    });
}

/// `scrub --repair` never seals a decode under a fresh checksum on a gone checksum's word:
/// on 9e15292 it wrote the wrong decode back, and every later read returned it.
#[test]
fn scrub_repair_never_seals_a_decode_vouched_for_by_a_gone_checksum() {
    each_scene(&[Beside::Rot], |sc| {
        let store = sc.open();
        let report = store.scrub(true).unwrap();
        let at = sc.block_at(1);
        let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
        let what = format!("{}, after scrub --repair ({report:?})", sc.what);
        assert!(
            !reads_right_or_lost(&store, at, want, &what),
            "{what}: read"
        );
        assert!(
            report
                .unrepairable
                .iter()
                .any(|u| u.contains("no checksum left")),
            "{what}: the repair names the block it left"
        );
        store.close().unwrap();
        let store = sc.open();
        reads_right_or_lost(&store, at, want, &format!("{what}, reopened"));
    });
}

/// A write over part of the block (rmw reads its old bytes, and its read step heals a
/// block that fails its checksum by writing the confirmed decode back): the write fails
/// naming lost bytes, or every byte of the block reads right (the new bytes, the old ones
/// around them) or lost. On 9e15292 the wrong decode was healed in and read back with
/// success.
#[test]
fn a_write_over_the_block_never_heals_in_a_decode_vouched_for_by_a_gone_checksum() {
    each_scene(&[Beside::Rot], |mut sc| {
        let store = sc.open();
        let at = sc.block_at(1);
        let new = pattern(99, 100);
        let a = at as usize + 10;
        match store.write("f", a as u64, &new) {
            Ok(()) => {
                sc.model[a..a + new.len()].copy_from_slice(&new);
                let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
                reads_right_or_lost(&store, at, want, &sc.what);
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    matches!(e, StoreError::DataLost(_)) && msg.contains("lost"),
                    "{}: the write failed naming nothing lost: {msg}",
                    sc.what
                );
                // Not acknowledged: nothing of it may have reached the disk (checked
                // below, the block read whole as before the write or lost).
            }
        }
        drop(store);
        let store = sc.open();
        let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
        reads_right_or_lost(&store, at, want, &format!("{}, reopened", sc.what));
    });
}

/// Recovery (a write of element 0's first bytes left in flight, so the next open decides
/// the stripe): the block whose checksum is gone, nothing in flight over it, is not taken
/// from the decode on its checksum's word (`decode_told`), nor through
/// `confirm_block`: read right or lost.
#[test]
fn recovery_never_takes_a_decode_vouched_for_by_a_gone_checksum() {
    each_scene(&[Beside::Rot], |sc| {
        leave_write_in_flight(&sc.dir, "f", 0, 100);
        let store = sc.open();
        let at = sc.block_at(1);
        let want = &sc.model[at as usize..at as usize + BLOCK_BYTES];
        reads_right_or_lost(&store, at, want, &format!("{}, recovered", sc.what));
    });
}

/// Review s11r R11-3's scene on raid5 4+1 (4 KiB elements, a 100,000-byte put, OSS 2's
/// data zone file copied over OSS 1's; it was a variant of oss_seeded_crcs.rs): OSS 1's
/// blocks that OSS 2 also held carry OSS 2's crcs (`Foreign`: no bytes of OSS 1's, read
/// around from parity as a missing slot), but where OSS 2 held no slot the copy left crcs
/// of 0 in OSS 1's written slots: gone checksums, and on one parity nothing is left to
/// check their decode. Until session 23 they vouched for it; now those bytes are lost,
/// named, and every other byte reads, before and after `scrub --repair`.
#[test]
fn a_zone_file_copied_from_another_oss_on_one_parity_loses_only_the_blocks_it_left_without_checksums(
) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Rmw);
    let model = pattern(3, 100_000);
    store.put("f", &model).unwrap();
    let zone_file = format!("{}.data", store.file_id("f").unwrap());
    drop(store);
    std::fs::copy(
        object_file(&dir, 2, &zone_file),
        object_file(&dir, 1, &zone_file),
    )
    .unwrap();
    let blocks_read_and_lost = |store: &Store, what: &str| {
        let (mut read, mut lost) = (0, 0);
        for at in (0..model.len()).step_by(BLOCK_BYTES) {
            let want = &model[at..(at + BLOCK_BYTES).min(model.len())];
            let got = store.read("f", at as u64, want.len() as u64);
            match got {
                Ok(got) => {
                    assert!(got == want, "{what}: bytes {at}.. read wrong");
                    read += 1;
                }
                Err(e @ StoreError::DataLost(_)) => {
                    let msg = e.to_string();
                    assert!(msg.contains("no checksum left"), "{what}: {msg}");
                    lost += 1;
                }
                Err(e) => panic!("{what}: bytes {at}..: {e}"),
            }
        }
        (read, lost)
    };
    let store = Store::open(&dir).unwrap();
    let (read, lost) = blocks_read_and_lost(&store, "copied");
    assert!(
        lost > 0,
        "the copy left gone checksums in OSS 1's written slots"
    );
    assert!(
        read > lost,
        "the rest reads around OSS 1's foreign blocks: {read} read"
    );
    store.scrub(true).unwrap();
    drop(store);
    let store = Store::open(&dir).unwrap();
    let after = blocks_read_and_lost(&store, "after scrub --repair");
    assert!(after.0 >= read, "a repair loses nothing: {after:?}");
}

/// Every object file of the store's OSSs, with its bytes.
fn object_files_bytes(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for oss in 0..OSS_COUNT {
        for name in object_names(dir, oss) {
            let p = object_file(dir, oss, &name);
            let bytes = std::fs::read(&p).unwrap();
            files.push((p, bytes));
        }
    }
    files
}
