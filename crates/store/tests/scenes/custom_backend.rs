//! A remote OSS plugs in without touching the write paths: the store runs on any
//! implementation of `backend::Backend`. Here a second implementation, written in this test
//! (an in-memory OSS that counts its calls and fails with EIO on demand), carries every
//! write path (rmw, wcl, delayed) byte-exactly, including degraded reads after an injected
//! failure, and nothing reaches the OSS directories.

use crate::common;
use common::*;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{
    Backend, BackendError, ChecksumWitness, ElementKey, Zone, CHECKSUM_BLOCK_BYTES as BLOCK,
};
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::Mutex;

/// An OSS in memory. Never-written bytes read as zeros; memory does not rot, so `verify`
/// finds nothing.
struct MemOss {
    name: String,
    element_bytes: usize,
    failed: AtomicBool,
    /// Injected fault: every call fails as a disk answering EIO would (`Unavailable`).
    eio: AtomicBool,
    calls: AtomicU64,
    slots: Mutex<HashMap<ElementKey, Vec<u8>>>,
    /// Blocks recovery marked lost (`mark_lost`): they read as corrupt until rewritten.
    lost_blocks: Mutex<std::collections::HashSet<(ElementKey, usize)>>,
}

impl MemOss {
    fn new(name: String, element_bytes: usize) -> Arc<MemOss> {
        Arc::new(MemOss {
            name,
            element_bytes,
            failed: AtomicBool::new(false),
            eio: AtomicBool::new(false),
            calls: AtomicU64::new(0),
            slots: Mutex::new(HashMap::new()),
            lost_blocks: Mutex::new(std::collections::HashSet::new()),
        })
    }

    fn enter(&self) -> Result<(), BackendError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let why = if self.eio.load(Ordering::SeqCst) {
            "injected EIO"
        } else if self.failed.load(Ordering::SeqCst) {
            "marked failed"
        } else {
            return Ok(());
        };
        Err(BackendError::Unavailable {
            oss: self.location(),
            why: why.into(),
        })
    }

    fn check_range(&self, offset: usize, len: usize) {
        assert!(
            offset + len <= self.element_bytes,
            "the store asked for {offset}+{len} of a {} byte element",
            self.element_bytes
        );
    }
}

/// The store owns `Box<dyn Backend>`; the test keeps an `Arc` to look inside.
struct Shared(Arc<MemOss>);

impl Backend for Shared {
    fn location(&self) -> String {
        self.0.location()
    }
    fn element_bytes(&self) -> usize {
        self.0.element_bytes
    }
    fn healthy(&self) -> bool {
        !self.0.failed.load(Ordering::SeqCst) && !self.0.eio.load(Ordering::SeqCst)
    }
    fn set_failed(&self, failed: bool) {
        self.0.failed.store(failed, Ordering::SeqCst)
    }
    fn read(&self, key: ElementKey, offset: usize, buf: &mut [u8]) -> Result<(), BackendError> {
        self.0.enter()?;
        self.0.check_range(offset, buf.len());
        if let Some(&(_, block)) =
            self.0.lost_blocks.lock().iter().find(|(k, b)| {
                *k == key && b * BLOCK < offset + buf.len() && offset < (b + 1) * BLOCK
            })
        {
            return Err(BackendError::Corrupt {
                oss: self.location(),
                key,
                block,
            });
        }
        match self.0.slots.lock().get(&key) {
            Some(slot) => buf.copy_from_slice(&slot[offset..offset + buf.len()]),
            None => buf.fill(0),
        }
        Ok(())
    }
    fn write(&self, key: ElementKey, offset: usize, bytes: &[u8]) -> Result<(), BackendError> {
        self.0.enter()?;
        self.0.check_range(offset, bytes.len());
        let mut slots = self.0.slots.lock();
        let slot = slots
            .entry(key)
            .or_insert_with(|| vec![0; self.0.element_bytes]);
        slot[offset..offset + bytes.len()].copy_from_slice(bytes);
        // A rewrite of a whole lost block makes it readable again; a partial one cannot
        // (the rest of the block is still unknown), as on disk.
        self.0.lost_blocks.lock().retain(|(k, b)| {
            !(*k == key && offset <= b * BLOCK && (b + 1) * BLOCK <= offset + bytes.len())
        });
        Ok(())
    }
    fn reserve(&self, _keys: &[ElementKey]) -> Result<(), BackendError> {
        self.0.enter()
    }
    fn sync(&self) -> Result<(), BackendError> {
        self.0.enter()
    }
    fn verify(&self, _key: ElementKey) -> Result<Vec<usize>, BackendError> {
        self.0.enter()?;
        Ok(Vec::new())
    }
    fn objects(&self) -> Result<Vec<(u64, Zone, u64)>, BackendError> {
        self.0.enter()?;
        let mut top: HashMap<(u64, Zone), u64> = HashMap::new();
        for k in self.0.slots.lock().keys() {
            let n = top.entry((k.object, k.zone)).or_default();
            *n = (*n).max(k.slot + 1);
        }
        Ok(top.into_iter().map(|((o, z), n)| (o, z, n)).collect())
    }
    fn remove_object(&self, object: u64) -> Result<(), BackendError> {
        self.0.enter()?;
        self.0.slots.lock().retain(|k, _| k.object != object);
        self.0
            .lost_blocks
            .lock()
            .retain(|(k, _)| k.object != object);
        Ok(())
    }
    fn read_unverified(&self, key: ElementKey, buf: &mut [u8]) -> Result<Vec<usize>, BackendError> {
        self.0.enter()?;
        self.0.check_range(0, buf.len());
        match self.0.slots.lock().get(&key) {
            Some(slot) => buf.copy_from_slice(slot),
            None => buf.fill(0),
        }
        let mut lost: Vec<usize> = self
            .0
            .lost_blocks
            .lock()
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|&(_, b)| b)
            .collect();
        lost.sort_unstable();
        Ok(lost)
    }
    fn checksum_witness(
        &self,
        key: ElementKey,
        block: usize,
        bytes: &[u8],
    ) -> Result<ChecksumWitness, BackendError> {
        self.0.enter()?;
        if self.0.lost_blocks.lock().contains(&(key, block)) {
            return Ok(ChecksumWitness::Differs);
        }
        let range = block * BLOCK..(block + 1) * BLOCK;
        let matches = match self.0.slots.lock().get(&key) {
            Some(slot) => slot[range] == *bytes,
            None => bytes.iter().all(|&b| b == 0),
        };
        Ok(match matches {
            true => ChecksumWitness::Matches,
            false => ChecksumWitness::Differs,
        })
    }
    fn mark_lost(&self, key: ElementKey, block: usize) -> Result<(), BackendError> {
        self.0.enter()?;
        self.0.check_range(block * BLOCK, BLOCK);
        self.0.lost_blocks.lock().insert((key, block));
        Ok(())
    }
    fn remove_zone(&self, object: u64, zone: Zone) -> Result<(), BackendError> {
        self.0.enter()?;
        self.0
            .slots
            .lock()
            .retain(|k, _| !(k.object == object && k.zone == zone));
        self.0
            .lost_blocks
            .lock()
            .retain(|(k, _)| !(k.object == object && k.zone == zone));
        Ok(())
    }
}

impl MemOss {
    fn location(&self) -> String {
        format!("mem://{}", self.name)
    }
}

fn open_in_memory(dir: &std::path::Path, osses: &[Arc<MemOss>]) -> Store {
    let backends: Vec<Box<dyn Backend>> = osses
        .iter()
        .map(|m| Box::new(Shared(m.clone())) as Box<dyn Backend>)
        .collect();
    Store::open_with_backends(dir, OpenOptions::default(), backends).unwrap()
}

/// Files in the OSS directories' `objects/` (all zones of all files).
fn objects_on_disk(store: &Store) -> usize {
    store
        .superblock()
        .oss_dirs
        .iter()
        .map(|d| std::fs::read_dir(d.join("objects")).unwrap().count())
        .sum()
}

fn every_path_runs_on_an_in_memory_backend(path: WritePath) {
    let dir = tempfile::tempdir().unwrap();
    let oss_count = 5;
    init(dir.path(), CodeSpec::raid6(3), oss_count, path)
        .close()
        .unwrap();
    let osses: Vec<Arc<MemOss>> = (0..oss_count)
        .map(|i| MemOss::new(format!("oss-{i}"), UNIT))
        .collect();
    let store = open_in_memory(dir.path(), &osses);
    let status = store.status().unwrap();
    assert_eq!(
        status.oss[2].path, "mem://oss-2",
        "status names the backend"
    );

    // put / write / get / read.
    let mut a = pattern(31, 150_000);
    let b = pattern(32, 33_333);
    store.put("a", &a).unwrap();
    store.put("b", &b).unwrap();
    store.write("a", 5000, &pattern(33, 9000)).unwrap();
    a[5000..14_000].copy_from_slice(&pattern(33, 9000));
    let mut c = vec![0u8; 0];
    if path == WritePath::Delayed {
        let window = store.delayed_window("c").unwrap();
        c = pattern(34, 3 * UNIT + 100);
        store.write("c", 0, &c).unwrap();
        assert_eq!(
            store.get("c").unwrap(),
            c,
            "window bytes from the cache zone"
        );
        window.end().unwrap();
    }
    assert_eq!(store.get("a").unwrap(), a, "{path:?}");
    assert_eq!(store.get("b").unwrap(), b);
    assert_eq!(store.read("a", 4000, 11_000).unwrap(), &a[4000..15_000]);
    if path == WritePath::Wcl {
        assert!(
            store.status().unwrap().bytes_waiting_parity > 0,
            "some bytes wait in the (in-memory) cache zone"
        );
    }
    assert_consistent(&store);
    assert_eq!(
        objects_on_disk(&store),
        0,
        "nothing went to the directories"
    );
    assert!(osses.iter().all(|m| m.calls.load(Ordering::SeqCst) > 0));

    // An OSS starts failing with EIO: reads rebuild its elements from parity (home and,
    // for wcl, the cache stripe), writes go on degraded.
    osses[1].eio.store(true, Ordering::SeqCst);
    assert_eq!(store.get("a").unwrap(), a, "{path:?}: degraded read");
    assert_eq!(store.get("b").unwrap(), b);
    assert!(!store.status().unwrap().oss[1].healthy);
    assert_eq!(store.failed_osses(), vec![1]);
    store.write("b", 100, &pattern(35, 20_000)).unwrap();
    let mut b2 = b.clone();
    b2[100..20_100].copy_from_slice(&pattern(35, 20_000));
    assert_eq!(store.get("b").unwrap(), b2, "degraded write then read");
    // A second failure (raid6 tolerates two).
    osses[3].eio.store(true, Ordering::SeqCst);
    assert_eq!(store.get("a").unwrap(), a, "{path:?}: two OSSs lost");
    assert_eq!(store.get("b").unwrap(), b2);
    if path == WritePath::Delayed {
        assert_eq!(store.get("c").unwrap(), c);
    }
    // A read records no failure (the OSS may only be unreachable for a while): the
    // operator does, before replacing it.
    store.fail_oss(3).unwrap();
    store.close().unwrap();

    // The same backends after a reopen: the failures are remembered, the bytes are there.
    let store = open_in_memory(dir.path(), &osses);
    assert_eq!(store.failed_osses(), vec![1, 3]);
    assert_eq!(store.get("a").unwrap(), a);
    assert_eq!(store.get("b").unwrap(), b2);
    store.close().unwrap();

    // Replacement OSSs (new, empty backends in the failed ones' places) are rebuilt in place
    // through the trait; then two other OSSs may fail.
    let mut osses = osses;
    osses[1] = MemOss::new("new-1".into(), UNIT);
    osses[3] = MemOss::new("new-3".into(), UNIT);
    let mut store = open_in_memory(dir.path(), &osses);
    store.rebuild(1, None).unwrap();
    store.rebuild(3, None).unwrap();
    assert!(store.failed_osses().is_empty());
    assert_consistent(&store);
    osses[0].eio.store(true, Ordering::SeqCst);
    osses[4].eio.store(true, Ordering::SeqCst);
    assert_eq!(
        store.get("a").unwrap(),
        a,
        "{path:?}: from the rebuilt OSSs"
    );
    assert_eq!(store.get("b").unwrap(), b2);
    if path == WritePath::Delayed {
        assert_eq!(store.get("c").unwrap(), c);
    }
    assert_eq!(objects_on_disk(&store), 0);
}

#[test]
fn rmw_runs_on_a_backend_written_outside_the_store() {
    every_path_runs_on_an_in_memory_backend(WritePath::Rmw);
}

#[test]
fn wcl_runs_on_a_backend_written_outside_the_store() {
    every_path_runs_on_an_in_memory_backend(WritePath::Wcl);
}

#[test]
fn delayed_runs_on_a_backend_written_outside_the_store() {
    every_path_runs_on_an_in_memory_backend(WritePath::Delayed);
}

#[test]
fn rebuild_onto_a_new_directory_is_refused_with_caller_supplied_backends_and_a_wrong_count_is_bad_input(
) {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw)
        .close()
        .unwrap();
    let three: Vec<Box<dyn Backend>> = (0..3)
        .map(|i| Box::new(Shared(MemOss::new(format!("m{i}"), UNIT))) as Box<dyn Backend>)
        .collect();
    let err = Store::open_with_backends(dir.path(), OpenOptions::default(), three)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("3 backends were given but the store has 4 OSSs"),
        "{err}"
    );
    let wrong_unit: Vec<Box<dyn Backend>> = (0..4)
        .map(|i| Box::new(Shared(MemOss::new(format!("m{i}"), 2 * UNIT))) as Box<dyn Backend>)
        .collect();
    let err = Store::open_with_backends(dir.path(), OpenOptions::default(), wrong_unit)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("8192 byte elements"), "{err}");
    let osses: Vec<Arc<MemOss>> = (0..4).map(|i| MemOss::new(format!("m{i}"), UNIT)).collect();
    let mut store = open_in_memory(dir.path(), &osses);
    store.put("a", &pattern(36, 20_000)).unwrap();
    store.fail_oss(2).unwrap();
    let new_dir = dir.path().join("new-oss");
    let err = store.rebuild(2, Some(&new_dir)).unwrap_err().to_string();
    assert!(
        err.contains("caller-supplied backends") && err.contains("rebuild in place"),
        "{err}"
    );
    assert!(!new_dir.exists());
    assert_eq!(store.get("a").unwrap(), pattern(36, 20_000));
}
