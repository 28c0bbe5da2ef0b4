//! Recovery after a WCL write that failed on a checksum error in the cache zone (issue #4
//! F1, second line of defence, the cache side): acknowledged bytes wait in an open cache
//! stripe, one of their blocks rots right after the executor's own check of it and before
//! the write reaches it, so the backend refuses the partial-block write ("checksum
//! mismatch"). The plan never became durable, so the next open decides the block as torn by
//! an interrupted write. Before, recovery kept the bytes on disk inside the write's range,
//! the rotten byte among them, under a fresh checksum: an acknowledged byte the write was
//! overwriting read back neither old nor new. Now each byte of the range reads old or new,
//! every other byte old, and scrub is clean.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::PathBuf;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::Mutex;

/// Flips byte `at` of `path` right before the first write to `key` on OSS `oss`.
struct RotBeforeWrite {
    rot: Mutex<Option<(usize, ElementKey, PathBuf, usize)>>,
}

impl Hook for RotBeforeWrite {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        let mut rot = self.rot.lock();
        if rot.as_ref().is_some_and(|r| r.0 == oss && r.1 == key) {
            let (_, _, path, at) = rot.take().expect("checked");
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[at] ^= 0x5a;
            std::fs::write(&path, bytes).unwrap();
        }
        Ok(())
    }
}

/// WCL store, 5000 bytes of "a" cached (one open cache stripe: every chunk is cache slot 0);
/// reopen with a backend that rots the cache byte of file byte `rot_at` right before the
/// write of `len` bytes at `offset` reaches its block; the write fails; after reopening,
/// each byte of the write's range is old or new, every other byte old, scrub is clean.
fn rot_under_a_failing_cache_write(
    code: CodeSpec,
    oss: usize,
    rot_at: usize,
    offset: usize,
    len: usize,
) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, WritePath::Wcl);
    let old = pattern(21, 5000);
    store.write("a", 0, &old).unwrap();
    let file = store.file_id("a").unwrap();
    let rot_oss = store.layout().locate(file, rot_at as u64).oss;
    let path = store.superblock().oss_dirs[rot_oss]
        .join("objects")
        .join(format!("{CACHE_OBJECT}.cache"));
    store.close().unwrap();
    let key = ElementKey {
        object: CACHE_OBJECT,
        zone: Zone::Cache,
        slot: 0,
    };
    let hook = Arc::new(RotBeforeWrite {
        rot: Mutex::new(Some((rot_oss, key, path, rot_at % UNIT))),
    });
    let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
    let new = pattern(3, len);
    let what = format!("{code}: cache rot at file byte {rot_at} under the write {offset}+{len}");
    let r = store.write("a", offset as u64, &new);
    assert!(
        hook.rot.lock().is_none(),
        "{what}: the write reached the rotting block"
    );
    assert!(
        r.is_err(),
        "{what}: the backend refuses the rotten edge block"
    );
    drop(store);

    let store = Store::open(dir.path()).unwrap();
    let got = store
        .get("a")
        .unwrap_or_else(|e| panic!("{what}: get after reopen: {e}"));
    assert_eq!(got.len(), old.len().max(offset + len), "{what}: length");
    for (i, &b) in got.iter().enumerate() {
        let in_write = (offset..offset + len).contains(&i);
        let was = old.get(i).copied().unwrap_or(0);
        let ok = b == was || (in_write && b == new[i - offset]);
        assert!(
            ok,
            "{what}: byte {i} reads {b:#04x}: neither old ({was:#04x}) nor new ({:?}) after reopen",
            in_write.then(|| new[i - offset])
        );
    }
    assert_consistent(&store);
}

fn cases(code: CodeSpec, oss: usize) {
    rot_under_a_failing_cache_write(code, oss, 100, 90, 20); // the rot inside the write
    rot_under_a_failing_cache_write(code, oss, 100, 50, 20); // beside it, same block
    rot_under_a_failing_cache_write(code, oss, 4196, 4150, 100); // inside, second element
}

#[test]
fn raid5_wcl_cache_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::raid5(3), 4);
}

#[test]
fn raid6_wcl_cache_rot_under_a_write_that_failed_reads_old_or_new_after_reopen() {
    cases(CodeSpec::raid6(3), 5);
}
