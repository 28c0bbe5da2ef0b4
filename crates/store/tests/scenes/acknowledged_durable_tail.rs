//! Review s12r R12-1 (WRONG BYTES, exit 0): an API write through the WCL cache or a delayed
//! window returns Ok once its plan's `Durable` record is fsync'd; the `Complete` behind it is
//! appended unsynced, so after a power cut the journal may END with that `Durable`. With one
//! bit of it flipped (the damage the tail-cut rule exists for) the open cut it as a torn
//! tail, dropped the acknowledged cached bytes (the OLD bytes read with Ok), and its own
//! parity check (blind to the cache zone) then cleared the warning: from the second open on
//! nothing said a write was lost.
//!
//! Specification: after that damage every acknowledged byte reads back, or reads fail naming
//! the bytes lost (and `status` lists them); never the old bytes with Ok. Every cached write
//! journals checksums of what it writes (a WCL write: its data and running parity crcs, on
//! every code; a delayed window write: its block crcs), so the open proves the cut write
//! whole on disk and finishes it: the acknowledged bytes read. Where a block of it does not
//! verify, nothing proves it: its bytes are named lost. And a whole record with a bad checksum at the
//! tail is damage, not a torn append: its warning stays on record (status, every open)
//! until the operator accepts it, whatever the open's parity check found.
//!
//! The scene: a store image taken right after the write returned (the disk a power cut at
//! that instant leaves, once the unsynced records after the `Durable` are dropped), put back
//! in place (the superblock names the OSS directories by absolute path).

use crate::common;

use std::path::PathBuf;

use common::*;
use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{Store, StoreError, WritePath};

const OLD_BYTES: usize = 65536;
const WRITE_AT_BYTES: u64 = 1000;
const WRITE_BYTES: usize = 3000;

struct Scene {
    _dir: tempfile::TempDir,
    store_dir: PathBuf,
    /// The store as it was right before the write (its object files).
    before: PathBuf,
    old: Vec<u8>,
    acked: Vec<u8>,
}

/// `put f`, then (a window opened on f first with `window`) an acknowledged write of
/// `WRITE_BYTES` at `WRITE_AT_BYTES`; then the power cut right after it returned, and one
/// bit of the journal's last record, the write's `Durable`, flipped.
fn acknowledged_write_then_damaged_durable(
    code: CodeSpec,
    oss: usize,
    path: WritePath,
    window: bool,
) -> Scene {
    let dir = scratch();
    let store_dir = dir.path().join("s");
    let store = init(&store_dir, code, oss, path);
    let old = pattern(1, OLD_BYTES);
    store.put("f", &old).unwrap();
    if window {
        store.delayed_start("f").unwrap();
    }
    let before = dir.path().join("before");
    copy_tree(&store_dir, &before);
    let new = pattern(2, WRITE_BYTES);
    let acked = acknowledged_write_then_power_cut(store, &store_dir, &old, WRITE_AT_BYTES, &new);

    let dropped = end_journal_on_last(&store_dir, "Durable", RecordEnd::BitFlipped);
    // What the write appended after its acknowledgement is not fsync'd: a power cut drops it.
    for r in &dropped {
        assert_eq!(r.2, "Input", "only unsynced records follow: {dropped:?}");
    }
    Scene {
        _dir: dir,
        store_dir,
        before,
        old,
        acked,
    }
}

/// The acknowledged bytes of f read back exactly, at this open and the next; the damaged
/// record stays on record as a warning.
fn assert_acknowledged_bytes_read(scene: &Scene) {
    for open in 0..2 {
        let store = Store::open(&scene.store_dir).unwrap();
        let got = store.get("f").unwrap();
        assert!(
            got != scene.old,
            "open {open}: the acknowledged write is gone (old bytes, Ok)"
        );
        assert!(
            got == scene.acked,
            "open {open}: f is not the acknowledged bytes"
        );
        assert_damage_warned(&store, open);
        store.close().unwrap();
    }
}

/// The damaged (whole, bad crc) last record stays on record: the warning says the record
/// was damaged, not torn, and names the operator action that settles it.
fn assert_damage_warned(store: &Store, open: usize) {
    let warning = store
        .journal_tail_cut_warning()
        .unwrap_or_else(|| panic!("open {open}: no warning on record"));
    assert!(warning.contains("damaged"), "open {open}: {warning}");
    assert!(
        warning.contains("--accept-journal-damage"),
        "open {open}: the warning names the action that clears it: {warning}"
    );
    let status = store.status().unwrap();
    assert_eq!(status.journal_tail_cut.as_deref(), Some(warning.as_str()));
}

#[test]
fn an_acknowledged_wcl_write_whose_durable_record_is_damaged_reads_back() {
    let scene =
        acknowledged_write_then_damaged_durable(CodeSpec::raid6(4), 6, WritePath::Wcl, false);
    assert_acknowledged_bytes_read(&scene);
}

#[test]
fn an_acknowledged_window_write_whose_durable_record_is_damaged_reads_back() {
    let scene =
        acknowledged_write_then_damaged_durable(CodeSpec::raid6(4), 6, WritePath::Delayed, true);
    assert_acknowledged_bytes_read(&scene);
}

/// raid5 and the array codes have too few parities (or too many symbols per column) for
/// recovery's parity proofs, but their WCL writes journal the crcs of what they write all the
/// same: the open proves the cut write whole by them and finishes it (session 13 named its
/// bytes lost, though they were on disk).
#[test]
fn an_acknowledged_wcl_write_reads_back_on_raid5_and_the_array_codes() {
    let mut codes = vec![CodeSpec::raid5(4)];
    for kind in [
        CodeKind::Dcode,
        CodeKind::Rdp,
        CodeKind::Evenodd,
        CodeKind::Xcode,
        CodeKind::Hcode,
        CodeKind::Hdp,
    ] {
        codes.push(CodeSpec::array(kind, 5));
    }
    for code in codes {
        let oss = columns(code);
        let scene = acknowledged_write_then_damaged_durable(code, oss, WritePath::Wcl, false);
        let store = Store::open(&scene.store_dir).unwrap();
        let got = store.get("f");
        assert!(
            matches!(&got, Ok(b) if *b == scene.acked),
            "{code}: the acknowledged bytes read back: {:?}",
            got.map(|b| b == scene.old)
        );
        store.close().unwrap();
        assert_acknowledged_bytes_read(&scene);
    }
}

/// A cut write one of whose cached blocks does not verify (rot after the power cut) cannot
/// be proven whole, and its `Durable` may be the damaged record: its bytes are named lost,
/// never read old with Ok. Bytes outside the write read.
#[test]
fn an_acknowledged_write_with_a_block_that_does_not_verify_is_named_lost() {
    for code in [CodeSpec::raid5(4), CodeSpec::array(CodeKind::Rdp, 5)] {
        let oss = columns(code);
        let scene = acknowledged_write_then_damaged_durable(code, oss, WritePath::Wcl, false);
        rot_one_block_the_write_changed(&scene, oss);
        for open in 0..2 {
            let store = Store::open(&scene.store_dir).unwrap();
            match store.get("f") {
                Ok(got) => panic!(
                    "{code} open {open}: read Ok ({}) though nothing proves the write",
                    if got == scene.old {
                        "old bytes"
                    } else {
                        "bytes"
                    }
                ),
                Err(StoreError::DataLost(m)) => {
                    assert!(
                        m.contains("journal's last record was damaged"),
                        "{code} open {open}: the error says why: {m}"
                    );
                    let lost = store.status().unwrap().lost_ranges;
                    let covered = |i: u64| {
                        lost.iter().any(|l| {
                            l.file == "f" && l.offset_bytes <= i && i < l.offset_bytes + l.len_bytes
                        })
                    };
                    assert!(
                        (WRITE_AT_BYTES..WRITE_AT_BYTES + WRITE_BYTES as u64).all(covered),
                        "{code} open {open}: the write's bytes are on record as lost: {lost:?} ({m})"
                    );
                    let after = WRITE_AT_BYTES as usize + WRITE_BYTES + 8192;
                    let tail = store
                        .read("f", after as u64, (OLD_BYTES - after) as u64)
                        .unwrap();
                    assert!(
                        tail == scene.old[after..],
                        "{code} open {open}: bytes beside the loss read"
                    );
                }
                Err(e) => panic!("{code} open {open}: {e}"),
            }
            assert_damage_warned(&store, open);
            store.close().unwrap();
        }
    }
}

/// Flip one payload byte of the first block the write changed on disk (its checksum left
/// as it was: the block no longer verifies).
fn rot_one_block_the_write_changed(scene: &Scene, oss_count: usize) {
    for oss in 0..oss_count {
        for name in object_names(&scene.store_dir, oss) {
            let x = std::fs::read(object_file(&scene.before, oss, &name)).unwrap_or_default();
            let path = object_file(&scene.store_dir, oss, &name);
            let mut y = std::fs::read(&path).unwrap();
            for slot in 0..y.len() / SLOT_BYTES {
                let r = slot * SLOT_BYTES..(slot + 1) * SLOT_BYTES;
                if x.get(r.clone()) != Some(&y[r]) {
                    y[slot * SLOT_BYTES + 100] ^= 0x01;
                    std::fs::write(&path, y).unwrap();
                    return;
                }
            }
        }
    }
    panic!("the write changed no slot on disk");
}

/// The operator's acceptance (after a scrub) clears the damage warning for good.
#[test]
fn the_damage_warning_stays_until_accepted() {
    let scene =
        acknowledged_write_then_damaged_durable(CodeSpec::raid6(4), 6, WritePath::Wcl, false);
    let store = Store::open(&scene.store_dir).unwrap();
    assert_damage_warned(&store, 0);
    let report = store.scrub(false).unwrap();
    assert!(report.parity_mismatches.is_empty());
    assert_damage_warned(&store, 0);
    assert_eq!(store.accept_journal_damage().unwrap(), 1);
    assert_eq!(store.journal_tail_cut_warning(), None);
    store.close().unwrap();
    let store = Store::open(&scene.store_dir).unwrap();
    assert_eq!(store.journal_tail_cut_warning(), None);
    assert!(store.get("f").unwrap() == scene.acked);
    store.close().unwrap();
}

/// A torn append (a power cut before the record's fsync: its bytes zeros past a page) is
/// not damage: cut, checked by the open, and no warning stays (as before).
#[test]
fn a_zero_filled_tail_is_a_power_cut_not_damage() {
    let scene =
        acknowledged_write_then_damaged_durable(CodeSpec::raid6(4), 6, WritePath::Wcl, false);
    let journal = scene.store_dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let (start, len, _) = *records_before_damage(&bytes).last().unwrap();
    // The damaged record's payload as a torn append leaves it: its tail zeros.
    let torn_from = start + 8 + (len - 8) / 2;
    let end = bytes.len();
    bytes[torn_from..end].fill(0);
    std::fs::write(&journal, &bytes).unwrap();
    let store = Store::open(&scene.store_dir).unwrap();
    let got = store.get("f").unwrap();
    assert!(
        got == scene.acked || got == scene.old,
        "old or new, both allowed"
    );
    assert_eq!(store.journal_tail_cut_warning(), None);
    store.close().unwrap();
}

/// The records of a journal whose last record is damaged, that one included as its
/// (start, framed length from its length field, "?").
fn records_before_damage(journal: &[u8]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        out.push((at, 8 + len, "?".to_string()));
        at += 8 + len;
    }
    out
}
