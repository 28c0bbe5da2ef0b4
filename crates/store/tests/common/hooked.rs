#![allow(dead_code)]
//! One `DirBackend` wrapper for every test that must act between the store and its OSSs
//! (park a thread inside a plan, cut a plan half way, rot a block right before a write,
//! count requests): `Wrapped` forwards every call and asks its `Hook` first. `Hooks` is the
//! common hook: it parks or fails home-data writes and parks reads.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_store::backend::{
    Backend, BackendError, ChecksumWitness, DirBackend, ElementKey, JournalMark, MetadataEpoch,
    OssLabel, Zone,
};
use exaraid_store::superblock::Superblock;
use exaraid_store::{OpenOptions, Store, StoreError};
use parking_lot::{Condvar, Mutex};

/// The name the tests give the background worker's thread.
pub const WORKER: &str = "exaraid-test-worker";

/// What the tests do to the backends: park home-data writes of the worker thread, fail
/// home-data writes (an interrupted move home), fail an OSS from open on.
#[derive(Default)]
pub struct Hooks {
    paused: Mutex<bool>,
    changed: Condvar,
    pub parked: AtomicUsize,
    pub fail_home_writes: AtomicBool,
    /// Park home-data writes of any thread (the executor runs the steps of a plan that
    /// reaches several OSSs on threads of its own); only the worker writes home then.
    pub park_any_thread: AtomicBool,
    /// Park every read of this object (a file id) on any thread until `release_reads`: holds
    /// a client read between its lookup and its last byte.
    reads_paused_of: Mutex<Option<u64>>,
    reads_changed: Condvar,
    pub reads_parked: AtomicUsize,
}

/// What a test does before the real backend serves a request of OSS `oss`.
pub trait Hook: Send + Sync + 'static {
    fn before_read(&self, _oss: usize, _key: ElementKey) {}
    /// An error to return instead of serving a verified read (a transient EIO, a dropped
    /// mount): `Ok` serves it.
    fn fail_read(&self, _oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        Ok(())
    }
    /// Also called before `mark_lost` (it writes the block's checksum).
    fn before_write(&self, _oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        Ok(())
    }
    fn before_sync(&self, _oss: usize) -> Result<(), BackendError> {
        Ok(())
    }
    /// An error to return instead of reserving room (a disk whose `fallocate` fails EIO).
    fn before_reserve(&self, _oss: usize) -> Result<(), BackendError> {
        Ok(())
    }
    /// Forward the journal mark methods (`backend::JOURNAL_MARK_FILE`) to the directory.
    /// Off by default: the tests written before marks keep the store they checked (no
    /// mark written, none checked at open).
    fn forward_journal_marks(&self) -> bool {
        false
    }
}

impl Hook for Hooks {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        Hooks::before_read(self, key)
    }
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        Hooks::before_write(self, key)
    }
}

impl Hooks {
    pub fn pause(&self) {
        *self.paused.lock() = true;
    }
    pub fn release(&self) {
        *self.paused.lock() = false;
        self.changed.notify_all();
    }
    pub fn pause_reads_of(&self, object: u64) {
        *self.reads_paused_of.lock() = Some(object);
    }
    pub fn release_reads(&self) {
        *self.reads_paused_of.lock() = None;
        self.reads_changed.notify_all();
    }
    pub fn before_read(&self, key: ElementKey) {
        let mut paused = self.reads_paused_of.lock();
        if *paused == Some(key.object) {
            self.reads_parked.fetch_add(1, Ordering::SeqCst);
            while *paused == Some(key.object) {
                self.reads_changed.wait(&mut paused);
            }
            self.reads_parked.fetch_sub(1, Ordering::SeqCst);
        }
    }
    pub fn before_write(&self, key: ElementKey) -> Result<(), BackendError> {
        if key.zone != Zone::Data {
            return Ok(());
        }
        if self.fail_home_writes.load(Ordering::SeqCst) {
            return Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the move home is cut here".into(),
            });
        }
        if std::thread::current().name() != Some(WORKER)
            && !self.park_any_thread.load(Ordering::SeqCst)
        {
            return Ok(());
        }
        let mut paused = self.paused.lock();
        if *paused {
            self.parked.fetch_add(1, Ordering::SeqCst);
            while *paused {
                self.changed.wait(&mut paused);
            }
            self.parked.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// A `DirBackend` that asks its hook before every read, write and lost mark.
pub struct Wrapped<H: Hook> {
    index: usize,
    inner: DirBackend,
    hook: Arc<H>,
}

impl<H: Hook> Backend for Wrapped<H> {
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
        self.hook.fail_read(self.index, key)?;
        self.inner.read(key, offset, buf)
    }
    fn write(&self, key: ElementKey, offset: usize, bytes: &[u8]) -> Result<(), BackendError> {
        self.hook.before_write(self.index, key)?;
        self.inner.write(key, offset, bytes)
    }
    fn reserve(&self, keys: &[ElementKey]) -> Result<(), BackendError> {
        self.hook.before_reserve(self.index)?;
        self.inner.reserve(keys)
    }
    fn sync(&self) -> Result<(), BackendError> {
        self.hook.before_sync(self.index)?;
        self.inner.sync()
    }
    fn verify(&self, key: ElementKey) -> Result<Vec<usize>, BackendError> {
        self.inner.verify(key)
    }
    fn objects(&self) -> Result<Vec<(u64, Zone, u64)>, BackendError> {
        self.inner.objects()
    }
    fn zone_written_on_record(&self, object: u64, zone: Zone) -> Option<bool> {
        self.inner.zone_written_on_record(object, zone)
    }
    fn remove_object(&self, object: u64) -> Result<(), BackendError> {
        self.inner.remove_object(object)
    }
    fn remove_zone(&self, object: u64, zone: Zone) -> Result<(), BackendError> {
        self.inner.remove_zone(object, zone)
    }
    fn read_unverified(&self, key: ElementKey, buf: &mut [u8]) -> Result<Vec<usize>, BackendError> {
        self.inner.read_unverified(key, buf)
    }
    fn checksum_witness(
        &self,
        key: ElementKey,
        block: usize,
        bytes: &[u8],
    ) -> Result<ChecksumWitness, BackendError> {
        self.inner.checksum_witness(key, block, bytes)
    }
    fn mark_lost(&self, key: ElementKey, block: usize) -> Result<(), BackendError> {
        self.hook.before_write(self.index, key)?;
        self.inner.mark_lost(key, block)
    }
    // The OSS's own metadata, forwarded (note16 OPEN 5d): without, the store under test
    // kept no generation, told no OSS its epoch and took none back as rolled back (the
    // trait's defaults), unlike over its real directories.
    fn generation(&self) -> Option<u64> {
        self.inner.generation()
    }
    fn set_rolled_back(&self, why: String) {
        self.inner.set_rolled_back(why)
    }
    fn metadata_epoch(&self) -> Result<Option<MetadataEpoch>, BackendError> {
        self.inner.metadata_epoch()
    }
    fn set_metadata_epoch(
        &self,
        epoch: MetadataEpoch,
        store_dir: Option<&Path>,
        durable: bool,
    ) -> Result<(), BackendError> {
        self.inner.set_metadata_epoch(epoch, store_dir, durable)
    }
    fn allocated_slots(&self, object: u64, zone: Zone) -> Result<Vec<(u64, u64)>, BackendError> {
        self.inner.allocated_slots(object, zone)
    }
    fn finish_torn_zero_crcs(&self, object: u64, zone: Zone) -> Result<usize, BackendError> {
        self.inner.finish_torn_zero_crcs(object, zone)
    }
    fn note_journal_through(&self, seq: u64, durable: bool) {
        if self.hook.forward_journal_marks() {
            self.inner.note_journal_through(seq, durable)
        }
    }
    fn journal_mark(&self) -> Option<JournalMark> {
        self.hook
            .forward_journal_marks()
            .then(|| self.inner.journal_mark())
            .flatten()
    }
    fn write_journal_mark_unsynced(&self) -> Result<(), BackendError> {
        match self.hook.forward_journal_marks() {
            true => self.inner.write_journal_mark_unsynced(),
            false => Ok(()),
        }
    }
    fn sync_journal_mark(&self) -> Result<(), BackendError> {
        match self.hook.forward_journal_marks() {
            true => self.inner.sync_journal_mark(),
            false => Ok(()),
        }
    }
}

/// Open with every OSS wrapped in `hook`; `failed` OSSs are down from the start (a failure
/// while the store was closed: a disk known to be gone, so crash recovery, if the store
/// needs it, records them failed first, as `store fail` does; it waits for an OSS that is
/// merely down otherwise, review s4e E13).
pub fn open_wrapped<H: Hook>(
    dir: &Path,
    hook: &Arc<H>,
    failed: &[usize],
    mut options: OpenOptions,
) -> Result<Store, StoreError> {
    options
        .fail_down_osses_before_recovery
        .extend_from_slice(failed);
    let sb = Superblock::load(dir).unwrap();
    let backends: Vec<Box<dyn Backend>> = sb
        .oss_dirs
        .iter()
        .enumerate()
        .map(|(index, d)| {
            let label = OssLabel {
                store_id: sb.store_id.clone(),
                index,
                element_bytes: sb.element_bytes,
                block_crc_seed: sb.block_crc_seed,
                settings: None,
            };
            let inner = DirBackend::open(d, &label, None).unwrap();
            if failed.contains(&index) {
                inner.set_failed(true);
            }
            Box::new(Wrapped {
                index,
                inner,
                hook: hook.clone(),
            }) as Box<dyn Backend>
        })
        .collect();
    Store::open_with_backends(dir, options, backends)
}

/// `open_wrapped` with `Hooks` and the default options.
pub fn open_hooked(dir: &Path, hooks: &Arc<Hooks>, failed: &[usize]) -> Result<Store, StoreError> {
    open_wrapped(dir, hooks, failed, OpenOptions::default())
}

/// Every sync (fsync) of OSS `oss` fails while `armed` (an fsync EIO: the OSS may have
/// dropped the bytes written since its last sync); with `cut_home_writes`, every write
/// outside the cache zone fails too (a settle cut half way, as a kill there leaves it).
#[derive(Default)]
pub struct SyncFails {
    pub armed: AtomicBool,
    pub oss: AtomicUsize,
    /// How many syncs failed.
    pub failed: AtomicUsize,
    pub cut_home_writes: AtomicBool,
}

impl SyncFails {
    /// Armed on OSS `oss`.
    pub fn on(oss: usize) -> Arc<SyncFails> {
        let hook = Arc::new(SyncFails::default());
        hook.oss.store(oss, Ordering::SeqCst);
        hook.armed.store(true, Ordering::SeqCst);
        hook
    }
    pub fn disarm(&self) {
        self.armed.store(false, Ordering::SeqCst);
    }
}

impl Hook for SyncFails {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if self.cut_home_writes.load(Ordering::SeqCst) && key.zone != Zone::Cache {
            return Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the settle is cut here".into(),
            });
        }
        Ok(())
    }
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) || oss != self.oss.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.failed.fetch_add(1, Ordering::SeqCst);
        Err(BackendError::Io {
            oss: format!("oss-{oss}"),
            why: "injected: fsync EIO".into(),
        })
    }
}
