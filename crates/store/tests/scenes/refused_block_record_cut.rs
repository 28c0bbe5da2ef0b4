//! Review s19r R19-1, the window session 19 left open: a client write is refused on a home
//! block that rotted under it (after the executor's edge-block check), after the plan's
//! parity writes landed; the refusal's `Rec::RefusedBlocks` record (journaled, fsync'd, when
//! the plan's write wave has ended) never reaches the journal, as a kill right between the
//! two leaves it. The backend wrote nothing of the refused block, so its bytes on disk are
//! the block before the write with the rot in them, and nothing on record says so: the next
//! open sees a write cut by a crash and a block failing its checksum inside it, the same as
//! a torn block. It kept the bytes on disk (the rot) under a fresh checksum where it could
//! confirm no decode (another data column in flight beside it), and `get` returned them.
//! Expected: each byte of the write's range old or new, or its block recorded LOST and
//! named; never the rotten byte; and every byte outside the losses acknowledged.
//!
//! The kill is emulated exactly: the refused write runs to its end (nothing writes an OSS
//! after its wave), then the journal is cut before its `RefusedBlocks` record (the last).
//!
//! Fixed in session 21 (s21a): the window still exists (the record is journaled after the
//! plan's write wave), but on codes of two or more parities the write journals its crcs
//! with its input (`Rec::WriteCrcs`), so recovery sees the block holds neither the write's
//! bytes nor (its checksum fails) the block before it: rot, never kept. Before, both tests
//! read the rotten byte with success.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use exaraid_codes::{Cell, CodeSpec, Pos};
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::Mutex;

/// Before the first write into `key` of OSS `oss`: wait (up to 5 s) until
/// `parity_writes_min` parity writes were served, then flip byte `at` of `path` (bit rot
/// after the plan's checks, before the write reaches the block).
struct RotAfterParity {
    target: Mutex<Option<(usize, ElementKey, PathBuf, usize)>>,
    parity_writes: AtomicUsize,
    parity_writes_min: usize,
    parity_first: Mutex<Option<bool>>,
}

impl Hook for RotAfterParity {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Parity {
            self.parity_writes.fetch_add(1, Ordering::SeqCst);
            return Ok(());
        }
        let hit = self
            .target
            .lock()
            .as_ref()
            .is_some_and(|(o, k, _, _)| (*o, *k) == (oss, key));
        if hit {
            let deadline = Instant::now() + Duration::from_secs(5);
            while self.parity_writes.load(Ordering::SeqCst) < self.parity_writes_min
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(2));
            }
            *self.parity_first.lock() =
                Some(self.parity_writes.load(Ordering::SeqCst) >= self.parity_writes_min);
            let (_, _, path, at) = self.target.lock().take().expect("checked");
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[at] ^= 0x5a;
            std::fs::write(&path, bytes).unwrap();
        }
        Ok(())
    }
}

/// The scene on `code` (rmw, 4 KiB unit, stripe 0 whole before): byte `rot_at` of data
/// column `rot_data` of stripe 0 rots right before the write (`second` at `second_at`)
/// reaches it, after all `parity_writes_min` parity writes landed; the write is refused;
/// its `RefusedBlocks` record is cut off the journal; the next open must read each byte
/// old, new, or lost on record, never the rot.
fn refused_write_whose_record_was_cut_never_reads_the_rot(
    code: CodeSpec,
    rot_data: usize,
    rot_at: usize,
    (second_at, second_len): (u64, usize),
    parity_writes_min: usize,
) {
    let top = scratch();
    let dir = top.path().join("s");
    std::fs::create_dir(&dir).unwrap();
    let oss_count = columns(code);
    let store = init(&dir, code, oss_count, WritePath::Rmw);
    let old = pattern(11, 20000);
    store.write("f", 0, &old).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout();
    let pos: Pos = layout.geometry().data_pos[rot_data];
    assert!(matches!(layout.geometry().cell(pos), Cell::Data(_)));
    let oss = layout.oss_of(id, 0, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.data"));
    let slot = layout.home_addr(0, pos, 0) / UNIT as u64;
    let rot_in_file = layout.file_offset(0, rot_data, rot_at as u64) as usize;
    drop(store);
    assert!(
        (second_at as usize..second_at as usize + second_len).contains(&rot_in_file),
        "the rot is inside the refused write"
    );
    let key = ElementKey {
        object: id,
        zone: Zone::Data,
        slot,
    };
    let hook = Arc::new(RotAfterParity {
        target: Mutex::new(Some((oss, key, path, slot as usize * SLOT_BYTES + rot_at))),
        parity_writes: AtomicUsize::new(0),
        parity_writes_min,
        parity_first: Mutex::new(None),
    });
    let store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
    let new = pattern(12, second_len);
    let refused = store.write("f", second_at, &new);
    assert_eq!(
        *hook.parity_first.lock(),
        Some(true),
        "the scene: the write reached the rotting block after its {parity_writes_min} parity writes"
    );
    assert!(
        refused.is_err(),
        "the backend refuses the rotten edge block"
    );
    drop(store);

    // The kill between the refusal and its record: the journal ends before it.
    let journal = dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let records = journal_record_kinds(&bytes);
    let (start, _, kind) = records.last().expect("records").clone();
    assert_eq!(
        kind, "RefusedBlocks",
        "the refusal's record is the journal's last"
    );
    bytes.truncate(start);
    std::fs::write(&journal, &bytes).unwrap();

    let store = Store::open(&dir).unwrap();
    let cut = second_at as usize..second_at as usize + second_len;
    let what = "after a refusal whose record a kill cut";
    let lost = assert_blocks_read_or_lost_on_record(&store, "f", &old, cut, &new, what);
    let rot_block = rot_in_file / 4096 * 4096;
    assert!(
        lost.iter().all(|&at| at == rot_block),
        "{what}: only the rotten block may be lost (one rot, one cut write): {lost:?}"
    );
    if lost.is_empty() {
        assert_consistent(&store);
    }
}

#[test]
fn raid6_refused_write_whose_record_a_kill_cut_never_reads_the_rot() {
    // raid6 4+2: stripe 0 holds file bytes 0..16384. The write 3000..5000 writes column 0
    // bytes 3000..4096 (an edge block: the backend verifies it first) and column 1 bytes
    // 0..904, so another data column is in flight beside the refused one; both parities
    // land first. Byte 3500 of column 0 (inside the write) rots.
    refused_write_whose_record_was_cut_never_reads_the_rot(
        CodeSpec::raid6(4),
        0,
        3500,
        (3000, 2000),
        2,
    );
}

#[test]
fn rs_4_2_refused_write_whose_record_a_kill_cut_never_reads_the_rot() {
    // Reed-Solomon 4+2: the rot at byte 100 of column 1, the write 4100..12000 (column 1
    // bytes 4..4096, an edge block, and column 2 whole).
    refused_write_whose_record_was_cut_never_reads_the_rot(
        CodeSpec::rs(4, 2),
        1,
        100,
        (4100, 7900),
        2,
    );
}
