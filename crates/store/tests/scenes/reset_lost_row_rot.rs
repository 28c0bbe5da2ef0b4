//! Review s6s S6-1: a read-modify-write that covers whole an undecodable block row of a
//! stripe holding bytes lost on record. Session 6's S1 fix resets such a row first (zeros
//! in its unreadable data blocks, their parity) so that the write of the lost bytes again
//! can run. That is safe only for blocks whose loss is ON RECORD: the record keeps their
//! reads failing until the write is durable. A row made undecodable by bit rot found later
//! (a dead column and a rotten block beside it, nothing on record) must not be reset: a
//! kill after the reset, before the write is durable, left the zeros as the file's bytes,
//! read back without an error (25 of 70 reads in the reviewer's sweep,
//! `scripts/repro/repro-reset-lost-row-kill.py`). Such a write is refused, as it was before
//! S1, naming the row, before any backend write (no row reset, also not the one lost on
//! record beside it), and nothing a read returns changes.
//!
//! The reviewer's geometry: raid5 4+1 over 5 OSSs, 64 KiB units, so an element holds 16
//! checksum blocks (block rows) and the write covers one row of two elements whole without
//! covering the elements: it is a read-modify-write that needs that row's old bytes. (With
//! 4 KiB units a row is a whole element and the write a reconstruct-write that reads no
//! old byte of it, legitimately, so such a test could not tell the fix.)
//!
//! The crash: every backend write from the n-th on is held before it is served and the
//! store's directory is copied then: the disk a kill -9 at that instant leaves. n runs from
//! 1 until the write finishes without reaching an n-th backend write.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey};
use exaraid_store::{InitOptions, OpenOptions, Store, StoreError, WritePath};
use parking_lot::{Condvar, Mutex};

/// The stripe unit: 16 checksum blocks per element.
const UNIT_BYTES: usize = 64 * 1024;
const BLOCK_BYTES: usize = 4096;
const OSS_COUNT: usize = 5;
/// The first cut write: one block of data element 1, row 5.
const CUT_ROW: usize = 5;
/// The row made undecodable by rot beside the dead column: row 3.
const ROT_ROW: usize = 3;
/// Bound on the backend writes one client write of this test makes (reset, data,
/// parity, failed-column copies): the sweep stops at the first that is not reached.
const WRITES_MAX: usize = 64;

fn opts() -> OpenOptions {
    OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    }
}

/// Holds every backend write from the `from`-th on (counted from 1) until `thaw`.
struct FreezeFrom {
    from: usize,
    writes: AtomicUsize,
    held: AtomicUsize,
    frozen: Mutex<bool>,
    thawed: Condvar,
}

impl FreezeFrom {
    fn new(from: usize) -> FreezeFrom {
        FreezeFrom {
            from,
            writes: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
            frozen: Mutex::new(true),
            thawed: Condvar::new(),
        }
    }
    fn thaw(&self) {
        *self.frozen.lock() = false;
        self.thawed.notify_all();
    }
}

impl Hook for FreezeFrom {
    fn before_write(&self, _oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        if n < self.from {
            return Ok(());
        }
        let mut frozen = self.frozen.lock();
        self.held.fetch_add(1, Ordering::SeqCst);
        while *frozen {
            self.thawed.wait(&mut frozen);
        }
        Ok(())
    }
}

/// The store after the reviewer's setup, in `dir`: file "f" (one stripe, `old`), OSS
/// `dead` (data element 0) failed with its disk gone, row `CUT_ROW` of element 0 lost on
/// record, and row `ROT_ROW` of element 1 rotten (not on record).
struct Scene {
    _tmp: tempfile::TempDir,
    tmp: PathBuf,
    /// The store's own directory (its superblock names its OSS directories inside it).
    dir: PathBuf,
    old: Vec<u8>,
    dead: usize,
    lost: Vec<(u64, u64)>,
    /// What each 4 KiB block of "f" reads in the scene (`reads_by_block`).
    reads: Vec<Option<Vec<u8>>>,
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let (saved, after) = (tmp.path().join("saved"), tmp.path().join("after"));
    let mut init = InitOptions::with_oss_count(&dir, OSS_COUNT, CodeSpec::raid5(4));
    init.element_bytes = UNIT_BYTES;
    init.write_path = WritePath::Rmw;
    let store = Store::init(&dir, &init).unwrap();
    let old = pattern(1, 4 * UNIT_BYTES);
    store.put("f", &old).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout().clone();
    let data_pos = layout.geometry().data_pos.clone();
    let dead = layout.oss_of(id, 0, data_pos[0].col);
    let cut_oss = layout.oss_of(id, 0, data_pos[1].col);
    store.close().unwrap();
    copy_tree(&dir, &saved);

    // The first write, cut by a crash after its data block landed and before its parity:
    // data and parity of row CUT_ROW of different versions.
    let cut_at = (UNIT_BYTES + CUT_ROW * BLOCK_BYTES) as u64;
    let store = Store::open_with(&dir, opts()).unwrap();
    store.write("f", cut_at, &pattern(2, BLOCK_BYTES)).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&saved, &dir);
    leave_write_in_flight_at(&dir, "f", cut_at, BLOCK_BYTES as u64, 1);
    let data_file = format!("{id}.data");
    std::fs::copy(
        object_file(&after, cut_oss, &data_file),
        object_file(&dir, cut_oss, &data_file),
    )
    .unwrap();
    // The disk of element 0 is gone; the operator runs `store fail`: raid5 has nothing
    // left to decide the cut row with, so recovery records it lost.
    let d = dir.join(format!("oss-{dead}"));
    std::fs::remove_dir_all(&d).unwrap();
    std::fs::create_dir_all(&d).unwrap();
    let store = Store::open_with(
        &dir,
        OpenOptions {
            fail_down_osses_before_recovery: vec![dead],
            ..opts()
        },
    )
    .unwrap();
    let lost = lost_on_record(&store);
    assert!(!lost.is_empty(), "setup: the cut row is lost on record");
    for (a, n) in &lost {
        for r in rot_reads() {
            assert!(
                a + n <= r || r + BLOCK_BYTES as u64 <= *a,
                "setup: the rot row {r} must not be on record ({lost:?})"
            );
        }
    }
    // Rot found later, not on record: row ROT_ROW has two unreadable blocks.
    flip_home_byte(&store, "f", data_pos[1], ROT_ROW, 100);
    for r in rot_reads() {
        assert!(
            matches!(
                store.read("f", r, BLOCK_BYTES as u64),
                Err(StoreError::DataLost(_))
            ),
            "setup: row {ROT_ROW} is undecodable at {r}"
        );
    }
    let reads = reads_by_block(&store);
    store.close().unwrap();
    for d in [saved, after] {
        std::fs::remove_dir_all(d).unwrap();
    }
    Scene {
        tmp: tmp.path().to_path_buf(),
        _tmp: tmp,
        dir,
        old,
        dead,
        lost,
        reads,
    }
}

/// The file ranges lost on record, `(offset, length)`.
fn lost_on_record(store: &Store) -> Vec<(u64, u64)> {
    let status = store.status().unwrap();
    let lost = status.lost_ranges.iter();
    lost.map(|l| (l.offset_bytes, l.len_bytes)).collect()
}

/// What a read of each 4 KiB block of "f" returns: its bytes, or `None` for `DataLost`.
fn reads_by_block(store: &Store) -> Vec<Option<Vec<u8>>> {
    (0..4 * UNIT_BYTES / BLOCK_BYTES)
        .map(
            |b| match store.read("f", (b * BLOCK_BYTES) as u64, BLOCK_BYTES as u64) {
                Ok(got) => Some(got),
                Err(StoreError::DataLost(_)) => None,
                Err(e) => panic!("read of block {b}: {e}"),
            },
        )
        .collect()
}

/// File offsets of row `ROT_ROW` of data elements 0 (dead) and 1 (rotten).
fn rot_reads() -> [u64; 2] {
    let at = (ROT_ROW * BLOCK_BYTES) as u64;
    [at, UNIT_BYTES as u64 + at]
}

/// The write over the rotten row: file bytes [12 KiB, 80 KiB), row ROT_ROW of elements 0
/// and 1 whole (and elements 0's rest, element 1's first rows), not either element whole.
fn second_write() -> (u64, Vec<u8>) {
    let at = (ROT_ROW * BLOCK_BYTES) as u64;
    (at, pattern(3, UNIT_BYTES + BLOCK_BYTES))
}

/// Row ROT_ROW in a store opened after a crash reads `DataLost`, its old bytes or the
/// write's new ones: never anything else (the reset's zeros).
fn check_rot_row(s: &Scene, store: &Store, what: &str) {
    let (at, new) = second_write();
    for r in rot_reads() {
        let (r0, n0) = (r as usize, (r - at) as usize);
        match store.read("f", r, BLOCK_BYTES as u64) {
            Ok(got) => assert!(
                got == s.old[r0..r0 + BLOCK_BYTES] || got == new[n0..n0 + BLOCK_BYTES],
                "{what}: WRONG bytes at {r} read without an error (zeros: {})",
                got.iter().all(|&b| b == 0)
            ),
            Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: read at {r}: {e}"),
        }
    }
}

#[test]
fn rmw_write_over_a_rotten_row_beside_a_lost_one_is_refused_and_never_reads_zeros() {
    let s = scene();
    let (at, new) = second_write();
    // A copy of a store shares the OSS directories its superblock names: every run and
    // every crash image is laid back into the store's own directory before it is opened.
    let clean = s.tmp.join("clean");
    let image = s.tmp.join("image");
    copy_tree(&s.dir, &clean);
    let lay_back = |from: &Path| {
        std::fs::remove_dir_all(&s.dir).unwrap();
        copy_tree(from, &s.dir);
    };
    let mut refused = None;
    for from in 1..=WRITES_MAX {
        let what = format!("kill before backend write {from}");
        lay_back(&clean);
        let hook = Arc::new(FreezeFrom::new(from));
        let store = open_wrapped(&s.dir, &hook, &[s.dead], opts()).unwrap();
        let result = std::thread::scope(|scope| {
            let writer = scope.spawn(|| store.write("f", at, &new));
            eventually(&what, || {
                hook.held.load(Ordering::SeqCst) > 0 || writer.is_finished()
            });
            let crashed = hook.held.load(Ordering::SeqCst) > 0;
            if crashed {
                let _ = std::fs::remove_dir_all(&image);
                copy_tree(&s.dir, &image);
            }
            hook.thaw();
            (crashed, writer.join().unwrap())
        });
        drop(store);
        match result {
            (true, _) => {
                lay_back(&image);
                let store = Store::open_with(&s.dir, opts()).unwrap();
                check_rot_row(&s, &store, &what);
                store.close().unwrap();
            }
            (false, result) => {
                refused = Some((result, hook.writes.load(Ordering::SeqCst)));
                break;
            }
        }
    }
    let (result, writes) = refused.expect("the write ends within WRITES_MAX backend writes");
    match result {
        Err(StoreError::DataLost(why)) => {
            for r in rot_reads() {
                let bytes = format!("{r}..{}", r + BLOCK_BYTES as u64);
                assert!(why.contains(&bytes), "the refusal names {bytes}: {why}");
            }
        }
        other => panic!("the write over the rotten row must be refused: {other:?}"),
    }
    // Refused before any backend write (no row reset, also not row CUT_ROW, which S1's
    // reset would zero for a write it lets run): nothing a read returns changed, block by
    // block, and the record is the same.
    assert_eq!(writes, 0, "refused before any backend write");
    let store = Store::open_with(&s.dir, opts()).unwrap();
    assert_eq!(
        lost_on_record(&store),
        s.lost,
        "the lost record is unchanged"
    );
    assert!(
        reads_by_block(&store) == s.reads,
        "every 4 KiB block reads as before the refused write"
    );
    store.close().unwrap();
}
