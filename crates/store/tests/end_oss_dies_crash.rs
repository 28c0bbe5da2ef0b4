//! An OSS dies in the middle of a delayed window's END (its parity write fails for good), and
//! the process is killed at any point of what follows (review E11 item 2).
//!
//! END's parity plan reads every window byte before its first write. When a write of it
//! then finds an OSS dead, the window bytes whose only copy sat in that OSS's cache zone are
//! still in the plan's memory: the store journals them (a failed-column copy, synced) before
//! the failure goes on record, so they are not lost: END succeeds, and after a kill -9 at
//! any point the next open lays them over their stripes. Before, every such byte was
//! recorded lost, also those END had already read, and END failed naming them.
//!
//! How the kill is made, in process: every backend call of the store runs under one lock,
//! and before each mutating call during END the whole store (metadata and OSS directories)
//! is copied aside: the disk as a kill -9 at that instant leaves it. Between two such calls
//! the journal may have grown by several records (the copy, the `Fail`, ...): each record
//! boundary in between is a kill point too (the journal cut there, the OSSs as at the later
//! call: no OSS write in between depends on those records). Each image is opened with the
//! dead OSS still dead, and again with it back.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{Backend, BackendError, DirBackend, ElementKey, OssLabel, Zone};
use exaraid_store::superblock::Superblock;
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};
use parking_lot::Mutex;

/// What every OSS of one store shares: the lock that serialises backend calls (so a copy
/// of the directories never sees half a write), the images taken, and the dead OSS.
struct World {
    root: PathBuf,
    io: Mutex<()>,
    armed: AtomicBool,
    images: Mutex<Vec<PathBuf>>,
    /// The OSS whose home writes (data, parity) fail for good once `dead`.
    victim: AtomicUsize,
    dead: AtomicBool,
    home_writes_refused: AtomicUsize,
}

impl World {
    /// Copy the store as it is on disk now (call under `io`).
    fn image(&self) {
        if !self.armed.load(Ordering::SeqCst) {
            return;
        }
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

/// A `DirBackend` whose calls run under the world's lock, imaged before each mutating call.
struct Imaged {
    index: usize,
    inner: DirBackend,
    world: Arc<World>,
}

impl Imaged {
    fn mutating<T>(&self, f: impl FnOnce() -> Result<T, BackendError>) -> Result<T, BackendError> {
        let _io = self.world.io.lock();
        self.world.image();
        f()
    }
}

impl Backend for Imaged {
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
        let _io = self.world.io.lock();
        self.inner.read(key, offset, buf)
    }
    fn write(&self, key: ElementKey, offset: usize, bytes: &[u8]) -> Result<(), BackendError> {
        self.mutating(|| {
            let w = &self.world;
            if w.dead.load(Ordering::SeqCst)
                && self.index == w.victim.load(Ordering::SeqCst)
                && key.zone != Zone::Cache
            {
                w.home_writes_refused.fetch_add(1, Ordering::SeqCst);
                return Err(BackendError::Unavailable {
                    oss: format!("oss-{}", self.index),
                    why: "injected: the disk died (EIO on every write)".into(),
                });
            }
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
        let _io = self.world.io.lock();
        self.inner.verify(key)
    }
    fn objects(&self) -> Result<Vec<(u64, Zone, u64)>, BackendError> {
        let _io = self.world.io.lock();
        self.inner.objects()
    }
    fn remove_object(&self, object: u64) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_object(object))
    }
    fn remove_zone(&self, object: u64, zone: Zone) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_zone(object, zone))
    }
    fn read_unverified(&self, key: ElementKey, buf: &mut [u8]) -> Result<Vec<usize>, BackendError> {
        let _io = self.world.io.lock();
        self.inner.read_unverified(key, buf)
    }
    fn checksum_matches(
        &self,
        key: ElementKey,
        block: usize,
        bytes: &[u8],
    ) -> Result<bool, BackendError> {
        let _io = self.world.io.lock();
        self.inner.checksum_matches(key, block, bytes)
    }
    fn mark_lost(&self, key: ElementKey, block: usize) -> Result<(), BackendError> {
        self.mutating(|| self.inner.mark_lost(key, block))
    }
}

/// The OSS directories of the store at `dir` (by index), as found under `dir` itself (an
/// image keeps the superblock's paths of the original).
fn oss_dirs(dir: &Path) -> Vec<PathBuf> {
    let sb = Superblock::load(dir).unwrap();
    (0..sb.oss_dirs.len())
        .map(|i| dir.join(format!("oss-{i}")))
        .collect()
}

fn label(dir: &Path, index: usize) -> OssLabel {
    let sb = Superblock::load(dir).unwrap();
    OssLabel {
        store_id: sb.store_id.clone(),
        index,
        element_bytes: sb.element_bytes,
        settings: None,
    }
}

fn open_imaged(dir: &Path, world: &Arc<World>) -> Store {
    let backends: Vec<Box<dyn Backend>> = oss_dirs(dir)
        .iter()
        .enumerate()
        .map(|(index, d)| {
            Box::new(Imaged {
                index,
                inner: DirBackend::open(d, &label(dir, index), None).unwrap(),
                world: world.clone(),
            }) as Box<dyn Backend>
        })
        .collect();
    Store::open_with_backends(dir, OpenOptions::default(), backends).unwrap()
}

/// Open an image with its own OSS directories; `dead` is down from the start.
fn open_image(dir: &Path, dead: Option<usize>) -> Result<Store, StoreError> {
    let backends: Vec<Box<dyn Backend>> = oss_dirs(dir)
        .iter()
        .enumerate()
        .map(|(index, d)| {
            let b = DirBackend::open(d, &label(dir, index), None).unwrap();
            if dead == Some(index) {
                b.set_failed(true);
            }
            Box::new(b) as Box<dyn Backend>
        })
        .collect();
    // No fsync: the image is checked, not crashed again (and 2 cores run the suite). A
    // dead OSS not failed on record makes recovery wait for it: the operator's `store fail`
    // (recorded before recovery) is what lets such a store open.
    let options = OpenOptions {
        fsync: false,
        fail_down_osses_before_recovery: dead.into_iter().collect(),
        ..OpenOptions::default()
    };
    Store::open_with_backends(dir, options, backends)
}

/// The journal's records: `(end offset, payload)` of each intact one, in order.
fn journal_records(dir: &Path) -> Vec<(u64, String)> {
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

/// Every byte of "ckpt" reads as `want`. Only where the victim is dead and the store
/// never learnt of its failure before the kill (nothing of it journaled: the crash and the
/// disk death came together) may bytes of the victim's element fail instead, naming a
/// range inside it; nothing else is on record as lost.
fn check_image(
    image: &Path,
    dead: Option<usize>,
    want: &[u8],
    victim_element: (usize, usize),
    failure_on_record: bool,
    what: &str,
) {
    let store = open_image(image, dead).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    let (va, vz) = victim_element;
    let may_lose = dead.is_some() && !failure_on_record;
    for at in (0..want.len()).step_by(UNIT) {
        let got = store.read("ckpt", at as u64, UNIT as u64);
        match got {
            Ok(bytes) => assert!(
                bytes == want[at..at + UNIT],
                "{what}: ckpt bytes {at}..{} read wrong",
                at + UNIT
            ),
            Err(StoreError::DataLost(msg)) if may_lose && (va..vz).contains(&at) => {
                assert!(msg.contains("'ckpt' bytes"), "{what}: {msg}");
            }
            Err(e) => panic!("{what}: ckpt bytes {at}..{} do not read: {e}", at + UNIT),
        }
    }
    let status = store.status().unwrap();
    for l in &status.lost_ranges {
        let (a, z) = (
            l.offset_bytes as usize,
            (l.offset_bytes + l.len_bytes) as usize,
        );
        assert!(
            may_lose && va <= a && z <= vz,
            "{what}: bytes on record as lost although END kept them: {l:?}"
        );
    }
    assert!(
        store.scrub(false).unwrap().parity_mismatches.is_empty(),
        "{what}: parity matches the data"
    );
}

/// Two whole stripes in the window: END reads every byte of the victim's element.
#[test]
fn a_kill_at_any_point_after_an_oss_dies_during_end_loses_no_byte_end_had_read() {
    sweep_end_with_a_dying_oss(0);
}

/// The window starts 1000 bytes into the victim's element: END's parity plan ties the
/// victim's home bytes before the window (acknowledged, in the same 4 KiB block) to the
/// parity it rewrites; they are decoded from the stripe as it was before END's writes.
#[test]
fn a_kill_at_any_point_after_an_oss_dies_during_end_loses_no_home_byte_beside_the_window() {
    sweep_end_with_a_dying_oss(1000);
}

/// "ckpt" holds two acknowledged stripes; a window rewrites it from `into_victim` bytes
/// into the victim's element of stripe 0 to the end; the victim dies during END (its
/// parity write of stripe 1 fails); every kill point after is checked (see the module
/// docs).
fn sweep_end_with_a_dying_oss(into_victim: usize) {
    let top = tempfile::tempdir().unwrap();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    drop(init(&dir, CodeSpec::raid5(3), 4, WritePath::Delayed));
    let world = Arc::new(World {
        root: dir.clone(),
        io: Mutex::new(()),
        armed: AtomicBool::new(false),
        images: Mutex::new(Vec::new()),
        victim: AtomicUsize::new(usize::MAX),
        dead: AtomicBool::new(false),
        home_writes_refused: AtomicUsize::new(0),
    });
    let store = open_imaged(&dir, &world);
    let mut want = pattern(60, 6 * UNIT);
    store.put("ckpt", &want).unwrap();
    // The victim holds stripe 1's parity (END's write there fails) and a data element of
    // stripe 0 (window bytes END reads before that write).
    let id = store.file_id("ckpt").unwrap();
    let oss_at = |offset: usize| store.layout().locate(id, offset as u64).oss;
    let victim = (0..4)
        .find(|&o| (3..6).all(|d| oss_at(d * UNIT) != o))
        .expect("one OSS holds stripe 1's parity");
    let victim_at = (0..3)
        .map(|d| d * UNIT)
        .find(|&at| oss_at(at) == victim)
        .expect("the parity OSS of stripe 1 holds data of stripe 0");
    let victim_element = (victim_at, victim_at + UNIT);
    // raid5 3+1: one element on each data OSS of each stripe, only in the cache zones
    // until END.
    let token = store.delayed_start("ckpt").unwrap();
    let from = victim_at + into_victim;
    let window = pattern(61, 6 * UNIT - from);
    store.write("ckpt", from as u64, &window).unwrap();
    want[from..].copy_from_slice(&window);
    world.victim.store(victim, Ordering::SeqCst);
    let journal_at_end_bytes = journal_records(&dir).last().unwrap().0;

    world.armed.store(true, Ordering::SeqCst);
    world.dead.store(true, Ordering::SeqCst);
    let ended = store.delayed_end(&token);
    world.armed.store(false, Ordering::SeqCst);
    assert!(
        world.home_writes_refused.load(Ordering::SeqCst) > 0,
        "the victim died during END"
    );
    // Killed after END returned: the last image.
    {
        let _io = world.io.lock();
        world.armed.store(true, Ordering::SeqCst);
        world.image();
        world.armed.store(false, Ordering::SeqCst);
    }

    let images = world.images.lock().clone();
    assert!(images.len() > 4, "END made several backend calls");
    let mut before_bytes = journal_at_end_bytes;
    let mut kill_points = 0;
    for (k, image) in images.iter().enumerate() {
        let records = journal_records(image);
        let full_bytes = records.last().unwrap().0;
        for (cut_bytes, _) in records.iter().filter(|(end, _)| *end >= before_bytes) {
            let cut_image = top.path().join(format!("cut-{k}-{cut_bytes}"));
            copy_tree(image, &cut_image);
            let journal = std::fs::OpenOptions::new()
                .write(true)
                .open(cut_image.join("journal"))
                .unwrap();
            journal.set_len(*cut_bytes).unwrap();
            drop(journal);
            // Did the store learn of the failure before this kill (its copy or its `Fail`)?
            let failure_on_record = records
                .iter()
                .filter(|(end, _)| *end > journal_at_end_bytes && end <= cut_bytes)
                .any(|(_, p)| p.contains("\"Fail\"") || p.contains("\"FailedColumnCopy\""));
            for dead in [Some(victim), None] {
                let what = format!(
                    "image {k} (journal cut at byte {cut_bytes} of {full_bytes}), OSS {victim} {}",
                    if dead.is_some() { "still dead" } else { "back" }
                );
                let attempt = top.path().join(format!("try-{k}-{cut_bytes}"));
                copy_tree(&cut_image, &attempt);
                check_image(
                    &attempt,
                    dead,
                    &want,
                    victim_element,
                    failure_on_record,
                    &what,
                );
                std::fs::remove_dir_all(&attempt).unwrap();
                kill_points += 1;
            }
            std::fs::remove_dir_all(&cut_image).unwrap();
        }
        before_bytes = full_bytes;
    }
    assert!(kill_points > images.len(), "{kill_points} kill points");
    eprintln!("{} images, {kill_points} kill points", images.len());

    // The process that was not killed: END succeeded, the OSS is failed, nothing is lost.
    assert!(
        ended.is_ok(),
        "END kept every window byte it had read: {ended:?}"
    );
    let status = store.status().unwrap();
    assert!(!status.oss[victim].healthy, "the failure is on record");
    assert!(status.lost_ranges.is_empty(), "{:?}", status.lost_ranges);
    assert_eq!(store.get("ckpt").unwrap(), want);
    drop(store);
}
