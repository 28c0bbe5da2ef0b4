//! Review s12r R12-1 (WRONG BYTES, exit 0): an API write through the WCL cache or a delayed
//! window returns Ok once its plan's `Durable` record is fsync'd; the `Complete` behind it is
//! appended unsynced, so after a power cut the journal may END with that `Durable`. With one
//! bit of it flipped (the damage the tail-cut rule exists for) the open cut it as a torn
//! tail, dropped the acknowledged cached bytes (the OLD bytes read with Ok), and its own
//! parity check (blind to the cache zone) then cleared the warning: from the second open on
//! nothing said a write was lost.
//!
//! Specification: after that damage every acknowledged byte reads back, or reads fail naming
//! the bytes lost (and `status` lists them); never the old bytes with Ok. Where the write
//! journaled checksums of what it wrote (a WCL store of one-row code with two or more
//! parities; every delayed window write), the open proves the cut write whole on disk and
//! finishes it: the acknowledged bytes read. And a whole record with a bad checksum at the
//! tail is damage, not a torn append: its warning stays on record (status, every open)
//! until the operator accepts it, whatever the open's parity check found.
//!
//! The scene: a store image taken right after the write returned (the disk a power cut at
//! that instant leaves, once the unsynced records after the `Durable` are dropped), put back
//! in place (the superblock names the OSS directories by absolute path).

mod common;

use std::path::PathBuf;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

const OLD_BYTES: usize = 65536;
const WRITE_AT_BYTES: u64 = 1000;
const WRITE_BYTES: usize = 3000;

struct Scene {
    _dir: tempfile::TempDir,
    store_dir: PathBuf,
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
    let new = pattern(2, WRITE_BYTES);
    store.write("f", WRITE_AT_BYTES, &new).unwrap();
    let mut acked = old.clone();
    let at = WRITE_AT_BYTES as usize;
    acked[at..at + WRITE_BYTES].copy_from_slice(&new);
    let image = dir.path().join("image");
    copy_tree(&store_dir, &image);
    drop(store); // no close: the process died
    std::fs::remove_dir_all(&store_dir).unwrap();
    copy_tree(&image, &store_dir);

    let journal = store_dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let recs = journal_record_kinds(&bytes);
    let last_durable = recs.iter().rposition(|r| r.2 == "Durable").unwrap();
    // What the write appended after its acknowledgement is not fsync'd: a power cut drops it.
    for r in &recs[last_durable + 1..] {
        assert_eq!(r.2, "Input", "only unsynced records follow: {recs:?}");
    }
    let (start, len, _) = recs[last_durable];
    bytes.truncate(start + len);
    bytes[start + 8 + (len - 8) / 2] ^= 0x10;
    std::fs::write(&journal, &bytes).unwrap();
    Scene {
        _dir: dir,
        store_dir,
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

/// raid5 WCL journals no crcs of a write's bytes (nothing to prove the cut write whole
/// with): its bytes are named lost, never read old with Ok. Bytes outside the write read.
#[test]
fn an_acknowledged_write_that_cannot_be_proven_is_named_lost() {
    let scene =
        acknowledged_write_then_damaged_durable(CodeSpec::raid5(4), 5, WritePath::Wcl, false);
    for open in 0..2 {
        let store = Store::open(&scene.store_dir).unwrap();
        match store.get("f") {
            Ok(got) => assert!(got == scene.acked, "open {open}: f read wrong bytes"),
            Err(StoreError::DataLost(m)) => {
                assert!(
                    m.contains("journal's last record was damaged"),
                    "open {open}: the error says why: {m}"
                );
                let lost = store.status().unwrap().lost_ranges;
                let covered = |i: u64| {
                    lost.iter().any(|l| {
                        l.file == "f" && l.offset_bytes <= i && i < l.offset_bytes + l.len_bytes
                    })
                };
                assert!(
                    (WRITE_AT_BYTES..WRITE_AT_BYTES + WRITE_BYTES as u64).all(covered),
                    "open {open}: the write's bytes are on record as lost: {lost:?} ({m})"
                );
                let after = WRITE_AT_BYTES as usize + WRITE_BYTES + 8192;
                let tail = store
                    .read("f", after as u64, (OLD_BYTES - after) as u64)
                    .unwrap();
                assert!(
                    tail == scene.old[after..],
                    "open {open}: bytes beside the loss read"
                );
            }
            Err(e) => panic!("open {open}: {e}"),
        }
        assert_damage_warned(&store, open);
        store.close().unwrap();
    }
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
