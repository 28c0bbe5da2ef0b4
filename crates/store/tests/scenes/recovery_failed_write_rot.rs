//! Recovery after a write that failed on a checksum error (issue #4 F1, second line of
//! defence): the block the write went into rotted on disk, so the backend refused the
//! partial-block write ("checksum mismatch") -- here the rot comes after the plan's own
//! checks, between them and the write, the one window the executor cannot close. The plan
//! never became durable, so the next open settles its range as in flight. Before, that
//! settle kept the bytes on disk of the write's range (a torn write keeps what reached the
//! disk), blessing the rotten byte under a fresh checksum: `get` returned a byte that was
//! neither old nor new, with success, and scrub found nothing. Now each byte of the range
//! reads back old or new (rebuilt from parity), never the rotten one.
//!
//! Also here, with the same counting backend: what the first line of defence (the check of
//! unread partial edge blocks before a plan's first write) costs, and that aligned writes
//! do not pay for it.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{Cell, CodeKind, CodeSpec, Pos};
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::Mutex;

const BLOCK: usize = 4096;

/// Where the rot goes: the first write to `key` on OSS `oss` flips byte `at` of `path`
/// first (then the backend, which verifies the rest of a partial edge block, refuses it).
struct Rot {
    oss: usize,
    key: ElementKey,
    path: PathBuf,
    at: usize,
}

/// Rots one block just before the first write into it, and counts the reads of all OSSs.
struct RotBeforeWrite {
    rot: Arc<Mutex<Option<Rot>>>,
    reads: Arc<AtomicUsize>,
}

impl Hook for RotBeforeWrite {
    fn before_read(&self, _oss: usize, _key: ElementKey) {
        self.reads.fetch_add(1, Ordering::SeqCst);
    }
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let mut rot = self.rot.lock();
        if rot.as_ref().is_some_and(|r| r.oss == oss && r.key == key) {
            let r = rot.take().expect("checked");
            let mut bytes = std::fs::read(&r.path).unwrap();
            bytes[r.at] ^= 0x5a;
            std::fs::write(&r.path, bytes).unwrap();
        }
        Ok(())
    }
}

fn open_rotting(
    dir: &std::path::Path,
    rot: &Arc<Mutex<Option<Rot>>>,
    reads: &Arc<AtomicUsize>,
) -> Store {
    let hook = Arc::new(RotBeforeWrite {
        rot: rot.clone(),
        reads: reads.clone(),
    });
    open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap()
}

/// put; reopen with a backend that rots byte `rot_at` of block 0 of the file's first data
/// element right before the write of `len` bytes at `offset` (inside that element) reaches
/// it; the write fails; after reopening, each byte of the write's range is old or new, every
/// other byte is old, and scrub is clean.
fn rot_under_a_failing_write(code: CodeSpec, oss: usize, rot_at: usize, offset: usize, len: usize) {
    assert!(rot_at < BLOCK && offset + len <= UNIT);
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Rmw);
    let size = 3 * UNIT;
    let old = pattern(3, size);
    store.put("f", &old).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout().clone();
    let e = store.superblock().element_bytes;
    let pos: Pos = layout.geometry().data_pos[0];
    assert!(matches!(layout.geometry().cell(pos), Cell::Data(0)));
    let target = layout.oss_of(id, 0, pos.col);
    let slot = layout.home_addr(0, pos, 0) / e as u64;
    let rot = Rot {
        oss: target,
        key: ElementKey {
            object: id,
            zone: Zone::Data,
            slot,
        },
        path: store.superblock().oss_dirs[target]
            .join("objects")
            .join(format!("{id}.data")),
        at: slot as usize * (e + e / BLOCK * 4) + rot_at,
    };
    drop(store);

    let rot = Arc::new(Mutex::new(Some(rot)));
    let store = open_rotting(dir.path(), &rot, &Arc::new(AtomicUsize::new(0)));
    let new = pattern(4, len);
    let what = format!(
        "{code:?}: rot byte {rot_at} under the write {offset}..{}",
        offset + len
    );
    let r = store.write("f", offset as u64, &new);
    assert!(
        rot.lock().is_none(),
        "{what}: the write reached the rotting element"
    );
    assert!(
        r.is_err(),
        "{what}: the backend refuses the rotten edge block"
    );
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: get after reopen: {e}"));
    assert_eq!(got.len(), size);
    for (i, &b) in got.iter().enumerate() {
        let in_write = (offset..offset + len).contains(&i);
        let ok = b == old[i] || (in_write && b == new[i - offset]);
        assert!(
            ok,
            "{what}: byte {i} reads {b:#04x}: neither old ({:#04x}) nor new ({:?}) after reopen",
            old[i],
            in_write.then(|| new[i - offset])
        );
    }
    assert_consistent(&store);
}

fn cases(code: CodeSpec, oss: usize) {
    rot_under_a_failing_write(code, oss, 30, 0, 50); // the rot inside the write
    rot_under_a_failing_write(code, oss, 30, 10, 3000);
    rot_under_a_failing_write(code, oss, 100, 0, 50); // beside it, same block
    rot_under_a_failing_write(code, oss, 3000, 100, 3000); // both edges partial
}

#[test]
fn raid5_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::raid5(4), 5);
    cases(CodeSpec::raid5(2), 3);
}

#[test]
fn raid6_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::raid6(4), 6);
    cases(CodeSpec::raid6(3), 5);
}

#[test]
fn rs_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::rs(4, 2), 6);
}

#[test]
fn xcode_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::array(CodeKind::Xcode, 5), 5);
}

/// What the check of unread edge blocks costs (the first line of defence, in the executor):
/// a 4 KiB-aligned write reads exactly what its plan reads, an unaligned one reads each
/// partial edge block of a home write that its plan does not read once more. raid6 k=3, a
/// write inside the first data element: the plan reads the other two data elements
/// (reconstruct-write) and writes data, P and Q.
#[test]
fn only_unaligned_writes_pay_for_the_edge_block_check() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Rmw);
    store.put("f", &pattern(5, 3 * UNIT)).unwrap();
    drop(store);
    let no_rot = Arc::new(Mutex::new(None));
    let reads = Arc::new(AtomicUsize::new(0));
    let store = open_rotting(dir.path(), &no_rot, &reads);
    let reads_of = |offset: usize, len: usize| {
        let before = reads.load(Ordering::SeqCst);
        store.write("f", offset as u64, &pattern(6, len)).unwrap();
        reads.load(Ordering::SeqCst) - before
    };
    assert_eq!(reads_of(0, UNIT), 2, "aligned: the two other data elements");
    assert_eq!(
        reads_of(100, 50),
        2 + 3,
        "unaligned, one edge block: and that block of data, P and Q"
    );
    assert_eq!(
        reads_of(0, UNIT),
        2,
        "aligned again: nothing more (the check is not sticky)"
    );
}
