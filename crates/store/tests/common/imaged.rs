#![allow(dead_code)]
//! A kill -9 at any point of one operation, in process (the crash tests of END:
//! fail_during_end.rs, end_oss_dies_crash.rs). A test module that uses it also declares
//! `common` and `#[path = "common/hooked.rs"] mod hooked`.
//!
//! Every backend call of the store runs under one lock (an image never sees half a write),
//! and while armed the whole store (metadata and OSS directories) is copied aside before
//! each mutating call: the disk as a kill -9 at that instant leaves it. Between two such
//! calls the journal may have grown by several records: each record boundary in between is
//! a kill point too (the journal cut there, the OSSs as at the later call: no OSS write in
//! between depends on those records). `for_each_kill_point` walks them all.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_store::backend::{
    Backend, BackendError, ChecksumWitness, DirBackend, ElementKey, MetadataEpoch, Zone,
};
use exaraid_store::{OpenOptions, Store, StoreError};
use parking_lot::Mutex;

use crate::common::{copy_tree, open_own_dirs_unsynced, own_oss_dirs};
use crate::hooked::Hook;

/// The lock every backend call of one store runs under, and the images taken.
pub struct Imager {
    root: PathBuf,
    io: Mutex<()>,
    armed: AtomicBool,
    images: Mutex<Vec<PathBuf>>,
}

impl Imager {
    /// Images of the store at `root`, taken beside it (in `root`'s parent).
    pub fn new(root: &Path) -> Arc<Imager> {
        Arc::new(Imager {
            root: root.to_path_buf(),
            io: Mutex::new(()),
            armed: AtomicBool::new(false),
            images: Mutex::new(Vec::new()),
        })
    }

    /// From now on, an image before each mutating backend call.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    pub fn disarm(&self) {
        self.armed.store(false, Ordering::SeqCst);
    }

    /// The store as it is now, as the last image (a kill after the operation returned);
    /// no more images after it.
    pub fn last_image(&self) {
        let _io = self.io.lock();
        self.copy();
        self.disarm();
    }

    /// The images taken, in order.
    pub fn images(&self) -> Vec<PathBuf> {
        self.images.lock().clone()
    }

    /// Call under `io`.
    fn image_if_armed(&self) {
        if self.armed.load(Ordering::SeqCst) {
            self.copy();
        }
    }

    fn copy(&self) {
        let mut images = self.images.lock();
        let to = self
            .root
            .parent()
            .unwrap()
            .join(format!("image-{}", images.len()));
        copy_tree(&self.root, &to);
        images.push(to);
    }
}

/// A `DirBackend` whose calls run under its imager's lock, imaged before each mutating
/// call. It asks its hook before each read, outside the lock (a parked read holds no other
/// call back), and before each write, after the image (a write the hook refuses is a kill
/// point too); not before `mark_lost`.
pub struct Imaged<H: Hook> {
    index: usize,
    inner: DirBackend,
    imager: Arc<Imager>,
    hook: Arc<H>,
}

impl<H: Hook> Imaged<H> {
    fn mutating<T>(&self, f: impl FnOnce() -> Result<T, BackendError>) -> Result<T, BackendError> {
        let _io = self.imager.io.lock();
        self.imager.image_if_armed();
        f()
    }
}

impl<H: Hook> Backend for Imaged<H> {
    fn location(&self) -> String {
        self.inner.location()
    }
    fn element_bytes(&self) -> usize {
        self.inner.element_bytes()
    }
    fn healthy(&self) -> bool {
        self.inner.healthy()
    }
    fn set_failed(&self, failed: bool) {
        self.inner.set_failed(failed)
    }
    fn problem(&self) -> Option<String> {
        self.inner.problem()
    }
    fn read(&self, key: ElementKey, offset: usize, buf: &mut [u8]) -> Result<(), BackendError> {
        self.hook.before_read(self.index, key);
        let _io = self.imager.io.lock();
        self.inner.read(key, offset, buf)
    }
    fn write(&self, key: ElementKey, offset: usize, bytes: &[u8]) -> Result<(), BackendError> {
        self.mutating(|| {
            self.hook.before_write(self.index, key)?;
            self.inner.write(key, offset, bytes)
        })
    }
    fn reserve(&self, keys: &[ElementKey]) -> Result<(), BackendError> {
        self.mutating(|| self.inner.reserve(keys))
    }
    fn sync(&self) -> Result<(), BackendError> {
        self.mutating(|| self.inner.sync())
    }
    fn verify(&self, key: ElementKey) -> Result<Vec<usize>, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.verify(key)
    }
    fn objects(&self) -> Result<Vec<(u64, Zone, u64)>, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.objects()
    }
    fn zone_written_on_record(&self, object: u64, zone: Zone) -> Option<bool> {
        self.inner.zone_written_on_record(object, zone)
    }
    fn remove_object(&self, object: u64) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_object(object))
    }
    fn remove_zone(&self, object: u64, zone: Zone) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_zone(object, zone))
    }
    fn read_unverified(&self, key: ElementKey, buf: &mut [u8]) -> Result<Vec<usize>, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.read_unverified(key, buf)
    }
    fn checksum_witness(
        &self,
        key: ElementKey,
        block: usize,
        bytes: &[u8],
    ) -> Result<ChecksumWitness, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.checksum_witness(key, block, bytes)
    }
    fn mark_lost(&self, key: ElementKey, block: usize) -> Result<(), BackendError> {
        self.mutating(|| self.inner.mark_lost(key, block))
    }
    // The OSS's own metadata, forwarded (note16 OPEN 5d): without, the store under test
    // kept no generation, told no OSS its epoch and took none back as rolled back (the
    // trait's defaults), unlike over its real directories. Telling an epoch and finishing
    // torn crcs change the OSS: kill points too.
    fn generation(&self) -> Option<u64> {
        let _io = self.imager.io.lock();
        self.inner.generation()
    }
    fn set_rolled_back(&self, why: String) {
        self.inner.set_rolled_back(why)
    }
    fn metadata_epoch(&self) -> Result<Option<MetadataEpoch>, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.metadata_epoch()
    }
    fn set_metadata_epoch(
        &self,
        epoch: MetadataEpoch,
        store_dir: Option<&Path>,
        durable: bool,
    ) -> Result<(), BackendError> {
        self.mutating(|| self.inner.set_metadata_epoch(epoch, store_dir, durable))
    }
    fn allocated_slots(&self, object: u64, zone: Zone) -> Result<Vec<(u64, u64)>, BackendError> {
        let _io = self.imager.io.lock();
        self.inner.allocated_slots(object, zone)
    }
    fn finish_torn_zero_crcs(&self, object: u64, zone: Zone) -> Result<usize, BackendError> {
        self.mutating(|| self.inner.finish_torn_zero_crcs(object, zone))
    }
}

/// The store at `dir` with every OSS imaged by `imager` and hooked by `hook`.
pub fn open_imaged<H: Hook>(
    dir: &Path,
    imager: &Arc<Imager>,
    hook: &Arc<H>,
    options: OpenOptions,
) -> Result<Store, StoreError> {
    let backends = own_oss_dirs(dir)
        .into_iter()
        .enumerate()
        .map(|(index, inner)| {
            Box::new(Imaged {
                index,
                inner,
                imager: imager.clone(),
                hook: hook.clone(),
            }) as Box<dyn Backend>
        })
        .collect();
    Store::open_with_backends(dir, options, backends)
}

/// Open an image over its own OSS directories; the `failed` OSSs are down from the start.
pub fn open_image(dir: &Path, failed: &[usize]) -> Result<Store, StoreError> {
    open_own_dirs_unsynced(dir, failed)
}

/// The journal's records: `(end offset, payload)` of each intact one, in order.
pub fn journal_records(dir: &Path) -> Vec<(u64, String)> {
    let bytes = std::fs::read(dir.join("journal")).unwrap();
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > bytes.len() {
            break; // a torn tail (the image caught an append half way)
        }
        let payload = String::from_utf8_lossy(&bytes[at + 8..at + 8 + len]).into_owned();
        at += 8 + len;
        out.push((at as u64, payload));
    }
    out
}

/// One kill point: an image with its journal cut at a record boundary.
pub struct KillPoint<'a> {
    pub image_index: usize,
    pub image: &'a Path,
    pub cut_bytes: u64,
    /// The image's intact records (`journal_records`), those beyond the cut too.
    pub records: &'a [(u64, String)],
}

impl KillPoint<'_> {
    pub fn what(&self) -> String {
        let full_bytes = self.records.last().map_or(0, |r| r.0);
        format!(
            "image {}, journal cut at byte {} of {full_bytes}",
            self.image_index, self.cut_bytes
        )
    }

    /// The payloads of the records that end after `from_bytes` and by the cut.
    pub fn records_since(&self, from_bytes: u64) -> impl Iterator<Item = &str> {
        let cut_bytes = self.cut_bytes;
        self.records
            .iter()
            .filter(move |(end, _)| *end > from_bytes && *end <= cut_bytes)
            .map(|(_, payload)| payload.as_str())
    }

    /// The disk this kill leaves, laid at `to` (which must not exist).
    pub fn lay(&self, to: &Path) {
        copy_tree(self.image, to);
        std::fs::OpenOptions::new()
            .write(true)
            .open(to.join("journal"))
            .unwrap()
            .set_len(self.cut_bytes)
            .unwrap();
    }
}

/// Calls `check` at every kill point of `images` (in order, as `Imager::images` gives them)
/// from the journal's byte `from_bytes` on (its end when the operation began): each image
/// cut at each record boundary from the previous image's end to its own. Returns how many.
pub fn for_each_kill_point(
    images: &[PathBuf],
    from_bytes: u64,
    mut check: impl FnMut(&KillPoint),
) -> usize {
    let mut before_bytes = from_bytes;
    let mut kill_points = 0;
    for (image_index, image) in images.iter().enumerate() {
        let records = journal_records(image);
        let full_bytes = records.last().expect("an image has a journal").0;
        for &(cut_bytes, _) in records.iter().filter(|(end, _)| *end >= before_bytes) {
            check(&KillPoint {
                image_index,
                image,
                cut_bytes,
                records: &records,
            });
            kill_points += 1;
        }
        before_bytes = full_bytes;
    }
    kill_points
}
