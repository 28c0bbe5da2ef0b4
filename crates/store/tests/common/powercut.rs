#![allow(dead_code)]
//! A power cut at any point of one operation, in process: "a power cut keeps only what was
//! fsync'd". The smallest honest emulation, a test tool. A test module that uses it also
//! declares `common`.
//!
//! Every backend call of the store runs under one lock. While armed, before each mutating
//! call the whole store (metadata and OSS directories) is copied aside (an image: the disk
//! a kill -9 at that instant leaves), with what was durable then: the journal's length its
//! last fsync covered (`torture::journal_synced_bytes`, the store's own fsyncs, appends'
//! and group commits'), and per OSS a copy of its directory as its last `sync` left it.
//! A power cut at that instant keeps (`PowerCutImage::lay`):
//! - the journal cut at any record boundary from its durable length to its length then;
//! - per OSS, either everything written to it (its image) or only what its last `sync` made
//!   durable (that copy): every unsynced write of that OSS dropped, its old bytes back,
//!   its epoch file (`set_metadata_epoch`) as its last durable telling left it, its
//!   extents (snapshot and log) as its last removal (which fsyncs them) left them.
//!
//! With `cut_journal_since_previous_call`, also the journal cut between two of its own
//! fsyncs that no OSS call separates (the OSSs as the next image has them).
//!
//! Out of order (opt-in, `OutOfOrder`: `for_each_power_cut_with`, or any
//! `for_each_power_cut` with `EXARAID_POWER_CUT_OUT_OF_ORDER` set): an OSS keeping some of
//! its unsynced calls (or pages) and dropping others, a later one kept beside an earlier one
//! dropped, as a page cache writing back in any order leaves it; seeded and bounded.
//!
//! Not modelled (say so where it matters): an epoch file told without `durable` and then
//! kept by the OSS's next `sync` (the copy takes it as durable; `DirBackend::sync` may not
//! cover it), without `OutOfOrder` an OSS keeping some of its unsynced writes and
//! dropping others (torn blocks have their own kill tests), a journal keeping a later page
//! of unsynced appends without an earlier one, a checkpoint (state file) or any other
//! metadata file written during the operation (`arm` and the caller's checks assume none).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_store::backend::{
    Backend, BackendError, ChecksumWitness, DirBackend, ElementKey, JournalMark, MetadataEpoch,
    Zone, EPOCH_FILE, EXTENTS_FILE, EXTENTS_LOG_FILE, JOURNAL_MARK_FILE,
};
use exaraid_store::superblock::Superblock;
use exaraid_store::{OpenOptions, Store, StoreError};
use parking_lot::Mutex;

use crate::common::{
    assert_blocks_read_or_lost_on_record, copy_tree, f_blocks_lost_or_wrong, lose_disk,
    open_own_dirs_unsynced, open_own_dirs_unsynced_with, own_oss_dirs,
};

/// Power-cut images of the store at `root`, taken beside it (in `root`'s parent).
pub struct PowerCut {
    root: PathBuf,
    oss_count: usize,
    io: Mutex<()>,
    armed: AtomicBool,
    /// Per OSS, its directory as its last sync left it (a copy).
    durable: Mutex<Vec<PathBuf>>,
    /// Per OSS, how many images there were at its last sync (or `arm`): the calls before
    /// that image are in `durable`; and the files it made durable on its own since, each
    /// with the image count then (see `PowerCutImage::oss_synced_at_image`).
    synced_at: Mutex<Vec<(usize, Vec<(String, usize)>)>>,
    copies: Mutex<usize>,
    images: Mutex<Vec<PowerCutImage>>,
    /// `set_metadata_epoch` calls while armed (a test that means to cut them says so).
    pub epochs_told: std::sync::atomic::AtomicUsize,
    /// See `cut_journal_since_previous_call`.
    journal_cuts_since_previous_call: AtomicBool,
    /// The journal's durable length when an OSS's `sync` last wrote a new journal mark:
    /// no power cut keeps less of the journal beside that mark (see `image`).
    journal_durable_at_last_mark_bytes: Mutex<u64>,
    /// Called before each read (OSS, key), under the lock: a test's change of an OSS's
    /// files (a lost write put back, say) that no image sees half done.
    before_read: Mutex<Option<BeforeRead>>,
    /// See `hold_cache_witness_at_bound`.
    cache_witness_held_at_bound: AtomicBool,
}

/// The cache-zone witness of a scene's store (`State::cache_witness`): `Working` as a
/// user's store has it, or `HeldAtBound`, no piece put in on any open of the store
/// (`OpenOptions::cache_witness_held_at_bound`, tests only): where the witness holds no
/// piece (docs/store.md Limits) recovery's own rules decide alone, and a test of them
/// there must not pass on the witness's catch (review r49b MEDIUM-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Witness {
    Working,
    HeldAtBound,
}

/// A test's action before a read of OSS `oss`: see `PowerCut::before_read`.
pub type BeforeRead = Box<dyn Fn(usize, ElementKey) + Send + Sync>;

/// The disk as it was before one mutating backend call, and what was durable then.
#[derive(Clone)]
pub struct PowerCutImage {
    pub dir: PathBuf,
    pub journal_durable_bytes: u64,
    /// Where this image's journal cuts begin: `journal_durable_bytes`, or, with
    /// `cut_journal_since_previous_call`, what was durable when the previous mutating call
    /// began (a power cut between two journal fsyncs with no OSS call between them).
    pub journal_cuts_from_bytes: u64,
    pub oss_durable: Vec<PathBuf>,
    /// This image's place in `PowerCut::images` (out-of-order cuts find the images
    /// between an OSS's last sync and this one by it).
    pub index: usize,
    /// The OSS of the mutating call this image was taken before (`None`: `last_image`).
    pub next_call_oss: Option<usize>,
    /// Per OSS: the number of images at its last sync (calls `j` before it are in
    /// `oss_durable`, each call `j` being the one between images `j` and `j + 1`), and the
    /// files it made durable on its own since (name, image count then).
    pub oss_synced_at_image: Vec<(usize, Vec<(String, usize)>)>,
    /// A disk laid by `for_each_power_cut_with`'s out-of-order mode: which unsynced calls
    /// it keeps (a copy of image `index`'s directory with some of them undone).
    pub out_of_order: Option<String>,
}

fn journal_of(dir: &Path) -> PathBuf {
    dir.join("journal")
}

impl PowerCut {
    pub fn new(root: &Path) -> Arc<PowerCut> {
        let oss_count = Superblock::load(root).unwrap().oss_dirs.len();
        Arc::new(PowerCut {
            root: root.to_path_buf(),
            oss_count,
            io: Mutex::new(()),
            armed: AtomicBool::new(false),
            durable: Mutex::new(Vec::new()),
            synced_at: Mutex::new(Vec::new()),
            copies: Mutex::new(0),
            images: Mutex::new(Vec::new()),
            epochs_told: Default::default(),
            journal_cuts_since_previous_call: AtomicBool::new(false),
            journal_durable_at_last_mark_bytes: Mutex::new(0),
            before_read: Mutex::new(None),
            cache_witness_held_at_bound: AtomicBool::new(false),
        })
    }

    /// Every open of the store through this cut (`open_power_cut`) and every reopen of
    /// its laid power cuts (`cut_write_at_every_power_cut`) holds the cache witness at
    /// its bound (`Witness::HeldAtBound`): call before the store's first open, so no
    /// write of the scene leaves a piece. `Witness::Working` leaves it as it is.
    pub fn set_witness(&self, witness: Witness) {
        if witness == Witness::HeldAtBound {
            self.cache_witness_held_at_bound
                .store(true, Ordering::SeqCst);
        }
    }

    /// The options every open of this cut's store and its laid cuts starts from.
    pub fn open_options(&self) -> OpenOptions {
        OpenOptions {
            cache_witness_held_at_bound: self.cache_witness_held_at_bound.load(Ordering::SeqCst),
            ..OpenOptions::default()
        }
    }

    /// Also cut each image's journal at the record boundaries its fsyncs since the previous
    /// mutating call made durable: the OSSs are as this image has them from the end of
    /// that call on, and the journal may have been cut anywhere it was appended and synced
    /// meanwhile (records that only the journal's fsyncs order, with no OSS call between
    /// them). Not the default: a journal fsync on another thread while that call ran (the
    /// background worker) would make some of those cuts disks that never were; use it
    /// where only the caller's thread journals.
    pub fn cut_journal_since_previous_call(&self) {
        self.journal_cuts_since_previous_call
            .store(true, Ordering::SeqCst);
    }

    /// Run `f` before each read of the store's OSSs (see `BeforeRead`).
    pub fn before_read(&self, f: BeforeRead) {
        *self.before_read.lock() = Some(f);
    }

    fn fresh(&self, what: &str) -> PathBuf {
        let mut n = self.copies.lock();
        *n += 1;
        self.root.parent().unwrap().join(format!("{what}-{n}"))
    }

    fn copy_oss(&self, oss: usize) -> PathBuf {
        let to = self.fresh(&format!("durable-oss-{oss}"));
        copy_tree(&self.root.join(format!("oss-{oss}")), &to);
        to
    }

    /// From now on, an image before each mutating backend call. The store must be quiet
    /// (no operation running) and everything on disk durable now (the caller synced it:
    /// the last operation returned, its `Durable` record and OSS syncs done).
    pub fn arm(&self) {
        let _io = self.io.lock();
        let journal = journal_of(&self.root);
        let len = std::fs::metadata(&journal).unwrap().len();
        exaraid_store::torture::track_journal_syncs(&journal, len);
        *self.durable.lock() = (0..self.oss_count).map(|i| self.copy_oss(i)).collect();
        let at = self.images.lock().len();
        *self.synced_at.lock() = vec![(at, Vec::new()); self.oss_count];
        *self.journal_durable_at_last_mark_bytes.lock() = 0;
        self.armed.store(true, Ordering::SeqCst);
    }

    /// The store as it is now as the last image (a power cut after the operation
    /// returned); no more images after it.
    pub fn last_image(&self) {
        let _io = self.io.lock();
        self.image(None);
        self.armed.store(false, Ordering::SeqCst);
    }

    /// No more images, none of the store as it is now: for an operation that ends in a
    /// checkpoint (a settle: `flush`), whose state file and truncated journal are not
    /// modelled. The images before cover every mutating call before it.
    pub fn disarm(&self) {
        let _io = self.io.lock();
        self.armed.store(false, Ordering::SeqCst);
    }

    pub fn images(&self) -> Vec<PowerCutImage> {
        self.images.lock().clone()
    }

    /// Call under `io`, before a mutating call of OSS `next_call_oss`.
    fn image(&self, next_call_oss: Option<usize>) {
        let dir = self.fresh("image");
        copy_tree(&self.root, &dir);
        let journal_durable_bytes =
            exaraid_store::torture::journal_synced_bytes(&journal_of(&self.root))
                .expect("the journal is tracked");
        let journal_bytes = std::fs::metadata(journal_of(&dir)).unwrap().len();
        assert!(
            journal_durable_bytes <= journal_bytes,
            "the journal shrank while armed (a checkpoint?): not modelled"
        );
        let mut images = self.images.lock();
        // A `sync` that wrote a mark since the previous call separates the journal's
        // fsyncs as a mutating call does: the mark names a record the journal had made
        // durable, so the OSSs as this image has them never sit beside a journal cut before
        // it (which no power cut leaves).
        let journal_cuts_from_bytes = match images.last() {
            Some(previous) if self.journal_cuts_since_previous_call.load(Ordering::SeqCst) => {
                previous
                    .journal_durable_bytes
                    .max(*self.journal_durable_at_last_mark_bytes.lock())
                    .min(journal_durable_bytes)
            }
            _ => journal_durable_bytes,
        };
        let index = images.len();
        images.push(PowerCutImage {
            dir,
            journal_durable_bytes,
            journal_cuts_from_bytes,
            oss_durable: self.durable.lock().clone(),
            index,
            next_call_oss,
            oss_synced_at_image: self.synced_at.lock().clone(),
            out_of_order: None,
        });
    }
}

/// A power cut's disk: which OSSs lose their unsynced writes (`dropped[oss]`), and where
/// the journal ends.
pub struct PowerCutPoint<'a> {
    pub image_index: usize,
    pub image: &'a PowerCutImage,
    pub journal_cut_bytes: u64,
    pub dropped: Vec<bool>,
}

impl PowerCutPoint<'_> {
    pub fn what(&self) -> String {
        let dropped: Vec<usize> = (0..self.dropped.len())
            .filter(|&i| self.dropped[i])
            .collect();
        let out_of_order = match &self.image.out_of_order {
            Some(kept) => format!(", OUT OF ORDER: {kept}"),
            None => String::new(),
        };
        format!(
            "power cut before mutating call {} (image {}), journal kept to byte {} (durable {}), unsynced writes of OSS {dropped:?} dropped{out_of_order}",
            self.image_index,
            self.image.dir.display(),
            self.journal_cut_bytes,
            self.image.journal_durable_bytes
        )
    }

    /// The disk this power cut leaves, laid at `to` (which must not exist).
    pub fn lay(&self, to: &Path) {
        copy_tree(&self.image.dir, to);
        for (oss, &drop) in self.dropped.iter().enumerate() {
            if drop {
                let d = to.join(format!("oss-{oss}"));
                std::fs::remove_dir_all(&d).unwrap();
                copy_tree(&self.image.oss_durable[oss], &d);
            }
        }
        std::fs::OpenOptions::new()
            .write(true)
            .open(journal_of(to))
            .unwrap()
            .set_len(self.journal_cut_bytes)
            .unwrap();
    }
}

/// Do the directories `a` and `b` hold the same files with the same bytes?
pub fn same_tree(a: &Path, b: &Path) -> bool {
    let names = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let (na, nb) = (names(a), names(b));
    na == nb
        && na.iter().all(|n| {
            let (pa, pb) = (a.join(n), b.join(n));
            if pa.is_dir() {
                pb.is_dir() && same_tree(&pa, &pb)
            } else {
                std::fs::read(&pa).unwrap() == std::fs::read(&pb).unwrap()
            }
        })
}

/// The end offsets of the journal's whole records at `dir` (a torn tail left out).
fn record_ends(dir: &Path) -> Vec<u64> {
    let bytes = std::fs::read(journal_of(dir)).unwrap();
    (crate::common::journal_whole_records(&bytes).into_iter())
        .map(|(_, z)| z as u64)
        .collect()
}

/// Calls `check` at every power cut of `images`: each image with its journal cut at each
/// record boundary from its durable length on, and, per cut, the OSSs' unsynced writes all
/// kept, all dropped, each OSS's alone dropped and each OSS's alone kept (OSSs without
/// unsynced writes left out: the same disk either way). Returns how many.
///
/// With `EXARAID_POWER_CUT_OUT_OF_ORDER` set (see `OutOfOrder::from_env`), also the
/// out-of-order cuts of `for_each_power_cut_with`: a sweep knob, off by default.
pub fn for_each_power_cut(images: &[PowerCutImage], check: impl FnMut(&PowerCutPoint)) -> usize {
    for_each_power_cut_with(images, OutOfOrder::from_env(), check)
}

/// `for_each_power_cut`, and with `out_of_order` its out-of-order cuts (see `OutOfOrder`)
/// after each image's all-or-none ones.
pub fn for_each_power_cut_with(
    images: &[PowerCutImage],
    out_of_order: Option<OutOfOrder>,
    mut check: impl FnMut(&PowerCutPoint),
) -> usize {
    let mut points = 0;
    let calls = out_of_order.map(|_| CallChanges::of(images));
    for (image_index, image) in images.iter().enumerate() {
        if !out_of_order.is_some_and(|ooo| ooo.only) {
            all_or_none_cuts(image_index, image, &mut check, &mut points);
        }
        if let (Some(ooo), Some(calls)) = (out_of_order, &calls) {
            for kept in ooo.subsets(calls, images, image_index) {
                let laid = lay_out_of_order_image(images, calls, image_index, &kept);
                for journal_cut_bytes in journal_cuts(&laid) {
                    check(&PowerCutPoint {
                        image_index,
                        image: &laid,
                        journal_cut_bytes,
                        dropped: vec![false; laid.oss_durable.len()],
                    });
                    points += 1;
                }
                std::fs::remove_dir_all(&laid.dir).unwrap();
            }
        }
    }
    points
}

/// `for_each_power_cut`'s cuts of one image.
fn all_or_none_cuts(
    image_index: usize,
    image: &PowerCutImage,
    check: &mut impl FnMut(&PowerCutPoint),
    points: &mut usize,
) {
    let n = image.oss_durable.len();
    // An OSS without unsynced writes keeps the same disk either way: never dropped.
    let unsynced: Vec<bool> = (0..n)
        .map(|oss| {
            !same_tree(
                &image.dir.join(format!("oss-{oss}")),
                &image.oss_durable[oss],
            )
        })
        .collect();
    let mut masks: Vec<Vec<bool>> = vec![vec![false; n], unsynced.clone()];
    for oss in (0..n).filter(|&oss| unsynced[oss]) {
        masks.push((0..n).map(|i| i == oss).collect());
        masks.push((0..n).map(|i| i != oss && unsynced[i]).collect());
    }
    masks.sort();
    masks.dedup();
    for journal_cut_bytes in journal_cuts(image) {
        for dropped in &masks {
            check(&PowerCutPoint {
                image_index,
                image,
                journal_cut_bytes,
                dropped: dropped.clone(),
            });
            *points += 1;
        }
    }
}

/// The record boundaries `image`'s journal may be cut at.
pub fn journal_cuts(image: &PowerCutImage) -> Vec<u64> {
    let ends = record_ends(&image.dir);
    for durable in [image.journal_durable_bytes, image.journal_cuts_from_bytes] {
        assert!(
            ends.contains(&durable) || durable == 0,
            "the journal's durable length {durable} is a record boundary"
        );
    }
    ends.into_iter()
        .filter(|&end| end >= image.journal_cuts_from_bytes)
        .collect()
}

/// The out-of-order mode of `for_each_power_cut_with` ("OPEN after session 32", item (5)):
/// a disk's page cache writes dirty pages back in any order, so a power cut can keep an
/// OSS's LATER unsynced write and drop an EARLIER one, or keep one file (or page) of a call
/// and not another; all-or-none per OSS never lays such a disk. Per image, up to
/// `subsets_per_image` sets of the unsynced changes kept (every OSS's since its last sync;
/// what a sync or a file's own fsync covered always kept), the rest dropped. A call's
/// change is what it changed between the images before and after it, in units
/// (`UnsyncedUnit`): per zone file (under `objects/`) each changed 4 KiB page and its
/// length (existence included); any other file (extents snapshot and log, epoch: replaced
/// by rename or appended) whole. `pages == false` keeps or drops a call's units together
/// (a subset of calls); `pages == true` each unit alone (a call's write spans pages the
/// cache writes back apart). Laid per file:
/// - a zone file's page as the latest call whose KEPT unit changed it left it (a page is
///   written back whole: it holds every earlier call's bytes of it too), else as the last
///   sync left it; its length likewise (a length can land without the pages under it: they
///   read zeros; a file whose creation is dropped is absent with all its pages);
/// - any other file as the latest kept call that changed it left it, else as synced.
///
/// Only subsets that keep some but not all of at least one OSS's units (calls, with
/// `pages == false`): the rest is the all-or-none model. Every such subset where there are
/// at most `subsets_per_image`, else `subsets_per_image` seeded draws (each unit kept with
/// probability 1/2), deduplicated. Deterministic for a given `seed` and images.
///
/// Not modelled: a page written back in pieces (torn blocks: the kill tests), a file
/// created and removed between two images, the journal's pages out of order. Needs every
/// image of the operation in order (`PowerCut::images()` whole).
#[derive(Clone, Copy, Debug)]
pub struct OutOfOrder {
    pub subsets_per_image: usize,
    pub seed: u64,
    /// Units are pages (and lengths), not calls.
    pub pages: bool,
    /// Only the out-of-order cuts (the all-or-none ones of each image left out).
    pub only: bool,
}

/// `SUBSETS[,SEED][,pages][,only]`: e.g. `EXARAID_POWER_CUT_OUT_OF_ORDER=16,7,only`.
pub const OUT_OF_ORDER_ENV: &str = "EXARAID_POWER_CUT_OUT_OF_ORDER";
const OUT_OF_ORDER_SUBSETS_MAX: usize = 4096;
/// Draws per wanted subset before giving up on finding new ones.
const OUT_OF_ORDER_DRAWS_PER_SUBSET: usize = 8;
const PAGE_BYTES: usize = 4096;

/// One unsynced change of an OSS: (call, file, part).
pub type UnsyncedUnit = (usize, String, Part);

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    Whole,
    Length,
    Page(usize),
}

impl OutOfOrder {
    pub fn from_env() -> Option<OutOfOrder> {
        let v = std::env::var(OUT_OF_ORDER_ENV).ok()?;
        let mut parts = v.split(',').map(str::trim);
        let subsets_per_image: usize = (parts.next().unwrap().parse())
            .unwrap_or_else(|_| panic!("{OUT_OF_ORDER_ENV}={v}: SUBSETS[,SEED][,pages][,only]"));
        let mut ooo = OutOfOrder {
            subsets_per_image,
            seed: 0,
            pages: false,
            only: false,
        };
        for part in parts {
            match part {
                "only" => ooo.only = true,
                "pages" => ooo.pages = true,
                n => {
                    ooo.seed = n
                        .parse()
                        .unwrap_or_else(|_| panic!("{OUT_OF_ORDER_ENV}={v}: a seed"))
                }
            }
        }
        assert!(
            (1..=OUT_OF_ORDER_SUBSETS_MAX).contains(&subsets_per_image),
            "{OUT_OF_ORDER_ENV}: 1..={OUT_OF_ORDER_SUBSETS_MAX} subsets per image"
        );
        Some(ooo)
    }

    /// The kept units of image `image_index`'s out-of-order cuts (each sorted).
    pub fn subsets(
        &self,
        calls: &CallChanges,
        images: &[PowerCutImage],
        image_index: usize,
    ) -> Vec<Vec<UnsyncedUnit>> {
        let units = calls.units(images, image_index);
        // What is kept or dropped together: a call's units, or each unit alone.
        let groups: Vec<Vec<Vec<UnsyncedUnit>>> = (units.iter())
            .map(|mine| match self.pages {
                true => mine.iter().map(|u| vec![u.clone()]).collect(),
                false => {
                    let mut by_call: Vec<Vec<UnsyncedUnit>> = Vec::new();
                    for u in mine {
                        match by_call.last_mut() {
                            Some(g) if g[0].0 == u.0 => g.push(u.clone()),
                            _ => by_call.push(vec![u.clone()]),
                        }
                    }
                    by_call
                }
            })
            .collect();
        let flat: Vec<(usize, &Vec<UnsyncedUnit>)> = (groups.iter().enumerate())
            .flat_map(|(oss, gs)| gs.iter().map(move |g| (oss, g)))
            .collect();
        if !groups.iter().any(|gs| gs.len() >= 2) {
            return Vec::new();
        }
        // Out of order: some but not all of one OSS's groups kept.
        let partial = |kept: &[bool]| {
            (0..groups.len()).any(|oss| {
                let mine: Vec<bool> = (flat.iter().zip(kept))
                    .filter(|((o, _), _)| *o == oss)
                    .map(|(_, &k)| k)
                    .collect();
                mine.iter().any(|&k| k) && !mine.iter().all(|&k| k)
            })
        };
        let units_of = |kept: &[bool]| -> Vec<UnsyncedUnit> {
            let mut v: Vec<UnsyncedUnit> = (flat.iter().zip(kept))
                .filter(|(_, &k)| k)
                .flat_map(|((_, g), _)| g.iter().cloned())
                .collect();
            v.sort();
            v
        };
        let n = flat.len();
        if n < 20 && (1usize << n) <= 4 * self.subsets_per_image {
            let every: Vec<Vec<bool>> = (0..1usize << n)
                .map(|set| (0..n).map(|k| set >> k & 1 == 1).collect::<Vec<bool>>())
                .filter(|kept| partial(kept))
                .collect();
            if every.len() <= self.subsets_per_image {
                return every.iter().map(|kept| units_of(kept)).collect();
            }
        }
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for draw in 0..self.subsets_per_image * OUT_OF_ORDER_DRAWS_PER_SUBSET {
            if out.len() == self.subsets_per_image {
                break;
            }
            let key = crate::common::splitmix64(
                self.seed ^ (image_index as u64).wrapping_mul(0x1000_0001) ^ (draw as u64) << 32,
            );
            let kept: Vec<bool> = (0..n)
                .map(|k| crate::common::splitmix64(key ^ k as u64) & 1 == 1)
                .collect();
            if partial(&kept) && seen.insert(kept.clone()) {
                out.push(units_of(&kept));
            }
        }
        out
    }
}

/// What one mutating call changed in one file of its OSS.
struct FileChange {
    name: String,
    /// A zone file (under `objects/`): laid per page; any other file whole.
    zone: bool,
    /// Its length or existence.
    length_changed: bool,
    /// The `PAGE_BYTES` pages whose bytes changed (past an end: zeros).
    pages: Vec<usize>,
}

/// Per call `j` (the one between images `j` and `j + 1`): its OSS and what it changed.
pub struct CallChanges {
    changes: Vec<Option<(usize, Vec<FileChange>)>>,
}

/// The files under `dir`, by path relative to it.
fn files_under(dir: &Path) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut dirs: Vec<String> = vec![String::new()];
    while let Some(sub) = dirs.pop() {
        assert!(out.len() + dirs.len() < 100_000, "a bounded OSS directory");
        let Ok(entries) = std::fs::read_dir(dir.join(&sub)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let rel = if sub.is_empty() {
                name
            } else {
                format!("{sub}/{name}")
            };
            if entry.file_type().unwrap().is_dir() {
                dirs.push(rel);
            } else {
                out.insert(rel);
            }
        }
    }
    out
}

fn page_of(bytes: &[u8], page: usize) -> Vec<u8> {
    let mut out = vec![0u8; PAGE_BYTES];
    let from = (page * PAGE_BYTES).min(bytes.len());
    let to = ((page + 1) * PAGE_BYTES).min(bytes.len());
    out[..to - from].copy_from_slice(&bytes[from..to]);
    out
}

impl CallChanges {
    pub fn of(images: &[PowerCutImage]) -> CallChanges {
        for (k, image) in images.iter().enumerate() {
            assert_eq!(
                image.index, k,
                "out-of-order cuts need every image of the operation, in order"
            );
        }
        let changes = images
            .windows(2)
            .map(|pair| {
                let oss = pair[0].next_call_oss?;
                let (a, b) = (
                    pair[0].dir.join(format!("oss-{oss}")),
                    pair[1].dir.join(format!("oss-{oss}")),
                );
                let mut names = files_under(&a);
                names.extend(files_under(&b));
                let files = names
                    .into_iter()
                    .filter_map(|name| {
                        let old = std::fs::read(a.join(&name)).ok();
                        let new = std::fs::read(b.join(&name)).ok();
                        if old == new {
                            return None;
                        }
                        let old_bytes = old.as_deref().unwrap_or_default();
                        let new_bytes = new.as_deref().unwrap_or_default();
                        let pages = (0..old_bytes.len().max(new_bytes.len()).div_ceil(PAGE_BYTES))
                            .filter(|&p| page_of(old_bytes, p) != page_of(new_bytes, p))
                            .collect();
                        Some(FileChange {
                            zone: name.starts_with("objects/"),
                            length_changed: old.map(|o| o.len()) != new.map(|n| n.len()),
                            pages,
                            name,
                        })
                    })
                    .collect();
                Some((oss, files))
            })
            .collect();
        CallChanges { changes }
    }

    /// When file `name` of OSS `oss` became durable last before image `image`: the image
    /// count of the OSS's last sync or of the file's own fsync, the later.
    fn durable_from(image: &PowerCutImage, oss: usize, name: &str) -> usize {
        let (synced_at, made) = &image.oss_synced_at_image[oss];
        let own = made
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |&(_, at)| at);
        own.max(*synced_at)
    }

    /// Per OSS, the unsynced units image `image_index` holds, by call (oldest first).
    pub fn units(&self, images: &[PowerCutImage], image_index: usize) -> Vec<Vec<UnsyncedUnit>> {
        let image = &images[image_index];
        let mut out = vec![Vec::new(); image.oss_durable.len()];
        for j in 0..image_index {
            let Some((oss, files)) = &self.changes[j] else {
                continue;
            };
            for f in files {
                if j < Self::durable_from(image, *oss, &f.name) {
                    continue;
                }
                if !f.zone {
                    out[*oss].push((j, f.name.clone(), Part::Whole));
                    continue;
                }
                if f.length_changed {
                    out[*oss].push((j, f.name.clone(), Part::Length));
                }
                for &p in &f.pages {
                    out[*oss].push((j, f.name.clone(), Part::Page(p)));
                }
            }
        }
        out
    }

    /// Per OSS, the calls with unsynced units at image `image_index`.
    pub fn unsynced(&self, images: &[PowerCutImage], image_index: usize) -> Vec<Vec<usize>> {
        (self.units(images, image_index).into_iter())
            .map(|mine| {
                let mut calls: Vec<usize> = mine.into_iter().map(|u| u.0).collect();
                calls.dedup();
                calls
            })
            .collect()
    }

    /// The units of the calls `kept` at image `image_index`.
    pub fn units_of_calls(
        &self,
        images: &[PowerCutImage],
        image_index: usize,
        kept: &[usize],
    ) -> Vec<UnsyncedUnit> {
        (self.units(images, image_index).into_iter().flatten())
            .filter(|u| kept.contains(&u.0))
            .collect()
    }
}

/// Image `image_index` with only the unsynced units `kept` kept (see `OutOfOrder`), laid
/// beside it as a new image (the caller removes its `dir`).
pub fn lay_out_of_order_image(
    images: &[PowerCutImage],
    calls: &CallChanges,
    image_index: usize,
    kept: &[UnsyncedUnit],
) -> PowerCutImage {
    let image = &images[image_index];
    let dir = PathBuf::from(format!("{}.out-of-order", image.dir.display()));
    assert!(!dir.exists(), "{}: left from an earlier cut", dir.display());
    copy_tree(&image.dir, &dir);
    let kept: std::collections::BTreeSet<&UnsyncedUnit> = kept.iter().collect();
    let units = calls.units(images, image_index);
    let mut dropped = Vec::new();
    for (oss, mine) in units.iter().enumerate() {
        if mine.is_empty() {
            continue;
        }
        let to = dir.join(format!("oss-{oss}"));
        std::fs::remove_dir_all(&to).unwrap();
        lay_oss_out_of_order(images, calls, image_index, oss, mine, &kept, &to);
        dropped.extend(
            mine.iter()
                .filter(|u| !kept.contains(u))
                .map(|u| (oss, u.clone())),
        );
    }
    let calls_per_oss = calls.unsynced(images, image_index);
    // Calls some of whose units landed and others not: a block torn at a page boundary
    // (payload and checksum in two pages, or a payload over two).
    let split: Vec<usize> = (calls_per_oss.iter().flatten().copied())
        .filter(|&j| {
            let (landed, lost) = (units.iter().flatten().filter(|u| u.0 == j))
                .partition::<Vec<_>, _>(|u| kept.contains(u));
            !landed.is_empty() && !lost.is_empty()
        })
        .collect();
    PowerCutImage {
        dir,
        out_of_order: Some(format!(
            "unsynced calls per OSS {calls_per_oss:?}, calls split {split:?}, dropped (OSS, (call, file, part)) {dropped:?}"
        )),
        ..image.clone()
    }
}

fn lay_oss_out_of_order(
    images: &[PowerCutImage],
    calls: &CallChanges,
    image_index: usize,
    oss: usize,
    mine: &[UnsyncedUnit],
    kept: &std::collections::BTreeSet<&UnsyncedUnit>,
    to: &Path,
) {
    let base = &images[image_index].oss_durable[oss];
    copy_tree(base, to);
    let after = |j: usize, name: &str| -> Option<Vec<u8>> {
        std::fs::read(images[j + 1].dir.join(format!("oss-{oss}")).join(name)).ok()
    };
    let names: std::collections::BTreeSet<&String> = mine.iter().map(|u| &u.1).collect();
    for name in names {
        // The latest call whose kept unit `part` of this file is.
        let latest = |part: &Part| -> Option<usize> {
            (mine.iter().rev())
                .find(|u| &u.1 == name && &u.2 == part && kept.contains(u))
                .map(|u| u.0)
        };
        let zone = calls.changes[mine.iter().find(|u| &u.1 == name).unwrap().0]
            .as_ref()
            .unwrap()
            .1
            .iter()
            .find(|f| &f.name == name)
            .unwrap()
            .zone;
        let path = to.join(name);
        let bytes = if !zone {
            match latest(&Part::Whole) {
                Some(j) => after(j, name),
                None => continue, // as the last sync left it: the copy of `base`
            }
        } else {
            let length_from = match latest(&Part::Length) {
                Some(j) => after(j, name),
                None => std::fs::read(base.join(name)).ok(),
            };
            length_from.map(|length_from| {
                let len = length_from.len();
                let mut bytes = std::fs::read(base.join(name)).unwrap_or_default();
                bytes.resize(len, 0);
                for page in 0..len.div_ceil(PAGE_BYTES) {
                    if let Some(j) = latest(&Part::Page(page)) {
                        let src = page_of(&after(j, name).unwrap_or_default(), page);
                        let end = ((page + 1) * PAGE_BYTES).min(len);
                        bytes[page * PAGE_BYTES..end]
                            .copy_from_slice(&src[..end - page * PAGE_BYTES]);
                    }
                }
                bytes
            })
        };
        match bytes {
            Some(bytes) => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, bytes).unwrap();
            }
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

/// A `DirBackend` whose calls run under the power cut's lock, imaged before each mutating
/// call, its durable copy taken after each sync.
pub struct PowerCutBackend {
    index: usize,
    inner: DirBackend,
    cut: Arc<PowerCut>,
}

impl PowerCutBackend {
    fn mutating<T>(&self, f: impl FnOnce() -> Result<T, BackendError>) -> Result<T, BackendError> {
        let _io = self.cut.io.lock();
        if self.cut.armed.load(Ordering::SeqCst) {
            self.cut.image(Some(self.index));
        }
        f()
    }
}

impl PowerCutBackend {
    /// The OSS made its files `names` durable on its own (not by `sync`): a power cut
    /// keeps them as they are now, with the rest of the OSS as its last sync left it. A new
    /// copy: the earlier images share the old one.
    fn made_durable(&self, names: &[&str]) {
        if !self.cut.armed.load(Ordering::SeqCst) {
            return;
        }
        let _io = self.cut.io.lock();
        let before = self.cut.durable.lock()[self.index].clone();
        let copy = self.cut.fresh(&format!("durable-oss-{}", self.index));
        copy_tree(&before, &copy);
        let oss_dir = self.cut.root.join(format!("oss-{}", self.index));
        let at = self.cut.images.lock().len();
        {
            let mut synced_at = self.cut.synced_at.lock();
            let files = &mut synced_at[self.index].1;
            files.retain(|(name, _)| !names.contains(&name.as_str()));
            files.extend(names.iter().map(|name| (name.to_string(), at)));
        }
        for name in names {
            let _ = std::fs::remove_file(copy.join(name));
            if oss_dir.join(name).exists() {
                std::fs::copy(oss_dir.join(name), copy.join(name)).unwrap();
            }
        }
        self.cut.durable.lock()[self.index] = copy;
    }
}

impl Backend for PowerCutBackend {
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
        let _io = self.cut.io.lock();
        if let Some(f) = self.cut.before_read.lock().as_ref() {
            f(self.index, key);
        }
        self.inner.read(key, offset, buf)
    }
    fn write(&self, key: ElementKey, offset: usize, bytes: &[u8]) -> Result<(), BackendError> {
        self.mutating(|| self.inner.write(key, offset, bytes))
    }
    fn reserve(&self, keys: &[ElementKey]) -> Result<(), BackendError> {
        self.mutating(|| self.inner.reserve(keys))
    }
    fn sync(&self) -> Result<(), BackendError> {
        let _io = self.cut.io.lock();
        let mark_path = self
            .cut
            .root
            .join(format!("oss-{}", self.index))
            .join(JOURNAL_MARK_FILE);
        let mark_before = std::fs::read(&mark_path).ok();
        self.inner.sync()?;
        if self.cut.armed.load(Ordering::SeqCst) {
            if std::fs::read(&mark_path).ok() != mark_before {
                *self.cut.journal_durable_at_last_mark_bytes.lock() =
                    exaraid_store::torture::journal_synced_bytes(&journal_of(&self.cut.root))
                        .expect("the journal is tracked");
            }
            let copy = self.cut.copy_oss(self.index);
            self.cut.durable.lock()[self.index] = copy;
            let at = self.cut.images.lock().len();
            self.cut.synced_at.lock()[self.index] = (at, Vec::new());
        }
        Ok(())
    }
    fn verify(&self, key: ElementKey) -> Result<Vec<usize>, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.verify(key)
    }
    fn objects(&self) -> Result<Vec<(u64, Zone, u64)>, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.objects()
    }
    // A removal makes its extents change durable (fdatasync'd) before it deletes the file,
    // whose deletion is not: the file may come back, its extents say nobody reads it.
    fn remove_object(&self, object: u64) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_object(object))?;
        self.made_durable(&[EXTENTS_FILE, EXTENTS_LOG_FILE]);
        Ok(())
    }
    fn remove_zone(&self, object: u64, zone: Zone) -> Result<(), BackendError> {
        self.mutating(|| self.inner.remove_zone(object, zone))?;
        self.made_durable(&[EXTENTS_FILE, EXTENTS_LOG_FILE]);
        Ok(())
    }
    fn read_unverified(&self, key: ElementKey, buf: &mut [u8]) -> Result<Vec<usize>, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.read_unverified(key, buf)
    }
    fn checksum_witness(
        &self,
        key: ElementKey,
        block: usize,
        bytes: &[u8],
    ) -> Result<ChecksumWitness, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.checksum_witness(key, block, bytes)
    }
    fn mark_lost(&self, key: ElementKey, block: usize) -> Result<(), BackendError> {
        self.mutating(|| self.inner.mark_lost(key, block))
    }
    // The OSS's own metadata, forwarded: without, the store under test kept no generation
    // and told no OSS its epoch (the trait's defaults), unlike over its real directories.
    fn generation(&self) -> Option<u64> {
        let _io = self.cut.io.lock();
        self.inner.generation()
    }
    fn set_rolled_back(&self, why: String) {
        self.inner.set_rolled_back(why)
    }
    fn metadata_epoch(&self) -> Result<Option<MetadataEpoch>, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.metadata_epoch()
    }
    /// A mutating call; a durable one is its own fsync of the epoch file (and, created, of
    /// its name): that file alone joins what a power cut keeps of this OSS.
    fn set_metadata_epoch(
        &self,
        epoch: MetadataEpoch,
        store_dir: Option<&Path>,
        durable: bool,
    ) -> Result<(), BackendError> {
        self.mutating(|| self.inner.set_metadata_epoch(epoch, store_dir, durable))?;
        if self.cut.armed.load(Ordering::SeqCst) {
            self.cut.epochs_told.fetch_add(1, Ordering::SeqCst);
        }
        if durable {
            self.made_durable(&[EPOCH_FILE]);
        }
        Ok(())
    }
    fn allocated_slots(&self, object: u64, zone: Zone) -> Result<Vec<(u64, u64)>, BackendError> {
        let _io = self.cut.io.lock();
        self.inner.allocated_slots(object, zone)
    }
    fn zone_written_on_record(&self, object: u64, zone: Zone) -> Option<bool> {
        let _io = self.cut.io.lock();
        self.inner.zone_written_on_record(object, zone)
    }
    fn finish_torn_zero_crcs(&self, object: u64, zone: Zone) -> Result<usize, BackendError> {
        self.mutating(|| self.inner.finish_torn_zero_crcs(object, zone))
    }
    // The journal marks, forwarded (review r38c MEDIUM-4): without, no power-cut test wrote
    // or checked one, so none showed that a power cut alone never makes the open refuse a
    // healthy store. The mark `sync` writes joins the copy `sync` takes as durable even when
    // the inner sync left it unsynced (at most one fdatasync a second): the newest mark
    // kept is the strictest case for a false refusal, and an image keeps it as well.
    fn note_journal_through(&self, seq: u64, durable: bool) {
        let _io = self.cut.io.lock();
        self.inner.note_journal_through(seq, durable)
    }
    fn journal_mark(&self) -> Option<JournalMark> {
        let _io = self.cut.io.lock();
        self.inner.journal_mark()
    }
    /// A mutating call, unsynced: a power cut keeps it (the image) or not (the OSS's
    /// durable copy), as the other unsynced writes of its OSS.
    fn write_journal_mark_unsynced(&self) -> Result<(), BackendError> {
        self.mutating(|| self.inner.write_journal_mark_unsynced())
    }
    /// An fdatasync that makes the mark file alone durable. No image before it: it changes
    /// no file's bytes (as `sync`), and the one caller, a checkpoint, runs after the
    /// operation's last record, where no image is modelled (an image there found a rebuild
    /// already done on record, and its rerun refused as "nothing to rebuild").
    fn sync_journal_mark(&self) -> Result<(), BackendError> {
        {
            let _io = self.cut.io.lock();
            self.inner.sync_journal_mark()?;
        }
        self.made_durable(&[JOURNAL_MARK_FILE]);
        Ok(())
    }
}

/// The store at `dir` with every OSS behind `cut`.
pub fn open_power_cut(dir: &Path, cut: &Arc<PowerCut>) -> Result<Store, StoreError> {
    open_power_cut_with(dir, cut, OpenOptions::default())
}

/// `open_power_cut` with `options` (a store without fsync, say); the cut's witness
/// (`PowerCut::set_witness`) holds whatever `options` say.
pub fn open_power_cut_with(
    dir: &Path,
    cut: &Arc<PowerCut>,
    mut options: OpenOptions,
) -> Result<Store, StoreError> {
    options.cache_witness_held_at_bound |= cut.open_options().cache_witness_held_at_bound;
    let backends = own_oss_dirs(dir)
        .into_iter()
        .enumerate()
        .map(|(index, inner)| {
            Box::new(PowerCutBackend {
                index,
                inner,
                cut: cut.clone(),
            }) as Box<dyn Backend>
        })
        .collect();
    Store::open_with_backends(dir, options, backends)
}

/// Open a laid power cut over its own OSS directories; the `failed` OSSs are down from the
/// start (their disks died with the power cut), failed on record before recovery as
/// `store fail` does. No fsync: the disk is checked, not cut again.
pub fn open_laid(dir: &Path, failed: &[usize]) -> Result<Store, StoreError> {
    open_own_dirs_unsynced(dir, failed)
}

/// `open_laid` from `base` (a power cut's `PowerCut::open_options`, say).
pub fn open_laid_with(
    dir: &Path,
    failed: &[usize],
    base: OpenOptions,
) -> Result<Store, StoreError> {
    open_own_dirs_unsynced_with(dir, failed, base)
}

/// `open_laid`, then a flush (where no plan was cut the open settles nothing: the flush
/// checks the cache stripe; it may name blocks LOST on record), then every block of `f`
/// reads `model`'s bytes (either version inside `cut_write`, whose new bytes are `new`) or
/// is LOST on record (panics otherwise, naming `what`): the store and the offsets of the
/// LOST blocks.
pub fn open_laid_flush_and_read(
    dir: &Path,
    failed: &[usize],
    model: &[u8],
    cut_write: std::ops::Range<usize>,
    new: &[u8],
    what: &str,
) -> (Store, Vec<usize>) {
    open_laid_flush_and_read_with(
        dir,
        failed,
        model,
        cut_write,
        new,
        what,
        OpenOptions::default(),
    )
}

/// `open_laid_flush_and_read`, its open from `base`.
pub fn open_laid_flush_and_read_with(
    dir: &Path,
    failed: &[usize],
    model: &[u8],
    cut_write: std::ops::Range<usize>,
    new: &[u8],
    what: &str,
    base: OpenOptions,
) -> (Store, Vec<usize>) {
    let store = open_laid_with(dir, failed, base).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    let lost = assert_blocks_read_or_lost_on_record(&store, "f", model, cut_write, new, what);
    (store, lost)
}

/// One write of a thread: its range, its bytes, and the images taken before it was
/// issued and before it returned (a power cut at image `i >= acked_at` finds it
/// acknowledged; one at `issued_at <= i < acked_at` finds it in flight).
pub struct Issued {
    pub at: usize,
    pub bytes: Vec<u8>,
    pub issued_at: usize,
    pub acked_at: usize,
}

/// Per byte of `f`: the acknowledged value at power cut `image` and, where a write was in
/// flight then, the value it would leave.
pub fn model_at(base: &[u8], writes: &[Vec<Issued>], image: usize) -> (Vec<u8>, Vec<Option<u8>>) {
    let mut acked = base.to_vec();
    let mut flight = vec![None; base.len()];
    for thread in writes {
        for w in thread {
            if w.acked_at <= image {
                acked[w.at..w.at + w.bytes.len()].copy_from_slice(&w.bytes);
            } else if w.issued_at <= image {
                for (j, &b) in w.bytes.iter().enumerate() {
                    flight[w.at + j] = Some(b);
                }
            }
        }
    }
    (acked, flight)
}

/// What a probe's power cuts found (review s30r's and s31r's probes of writer threads).
#[derive(Default)]
pub struct ProbeCounts {
    pub points: usize,
    pub wrong_before_settle: usize,
    pub wrong_after_settle: usize,
    pub lost: usize,
    /// Losing cuts that drop no OSS's writes and keep the image's whole journal: what a
    /// kill -9 at that instant leaves (a crash alone).
    pub lost_kill_like: usize,
    pub first_wrong: Option<String>,
    pub first_lost: Option<String>,
    /// Cuts whose laid disk got one flipped cache bit (s31r's `S31R_FLIP`).
    pub flips: usize,
}

/// One power cut of a probe, its disk laid at `laid` (and faulted there as the probe
/// means): open, read every 4 KiB block of `f` (each byte `acked`, or in a write in flight
/// as `flight` says), `flush`, read again; what it found goes into `counts`, and `laid` is
/// removed. Knobs, prefixed with `knob` (`S30R`, `S31R`): `_ALL=1` says every losing cut;
/// `_KILL_ONLY=1` keeps as the first loss only a kill-like cut; `_KEEP=DIR` lays the first
/// loss at DIR (and DIR.kept, nothing dropped) with `<knob lowercased>-acked.bin`,
/// `-flight.bin`, `-flight-mask.bin` and `-what.txt` for a fixture test; `writes` are
/// printed then.
#[allow(clippy::too_many_arguments)]
pub fn probe_cut(
    knob: &str,
    point: &PowerCutPoint,
    laid: &Path,
    what: &str,
    acked: &[u8],
    flight: &[Option<u8>],
    writes: &[Vec<Issued>],
    counts: &mut ProbeCounts,
) {
    let knob_set = |name: &str| std::env::var(format!("{knob}_{name}")).is_ok();
    let store = open_laid(laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    match crate::common::check_reads(&store, acked, flight) {
        Err(e) => {
            counts.wrong_before_settle += 1;
            counts
                .first_wrong
                .get_or_insert(format!("{what}: before the settle: {e}"));
        }
        Ok((lost, message)) if !lost.is_empty() => {
            counts.lost += 1;
            let image_journal_bytes = std::fs::metadata(point.image.dir.join("journal"))
                .unwrap()
                .len();
            if knob_set("ALL") {
                eprintln!(
                    "LOSING {what}: image journal {image_journal_bytes} bytes: blocks at {lost:?}"
                );
            }
            let kill_like = !point.dropped.iter().any(|&d| d)
                && point.image.out_of_order.is_none()
                && point.journal_cut_bytes == image_journal_bytes;
            counts.lost_kill_like += usize::from(kill_like);
            if counts.first_lost.is_none() && (kill_like || !knob_set("KILL_ONLY")) {
                counts.first_lost = Some(format!(
                    "{what}: blocks at {lost:?} LOST before the settle: {message}"
                ));
                if let Ok(keep) = std::env::var(format!("{knob}_KEEP")) {
                    keep_probe_cut(
                        knob,
                        point,
                        Path::new(&keep),
                        what,
                        &message,
                        acked,
                        flight,
                        writes,
                    );
                }
            }
        }
        Ok(_) => {}
    }
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    if let Err(e) = crate::common::check_reads(&store, acked, flight) {
        counts.wrong_after_settle += 1;
        counts
            .first_wrong
            .get_or_insert(format!("{what}: after the settle: {e}"));
    }
    drop(store);
    std::fs::remove_dir_all(laid).unwrap();
}

/// `probe_cut`'s `_KEEP`: the cut laid at `keep` (once: an existing `keep` is left as it
/// is) and at `keep.kept` with nothing dropped, with what a fixture test of it checks.
#[allow(clippy::too_many_arguments)]
fn keep_probe_cut(
    knob: &str,
    point: &PowerCutPoint,
    keep: &Path,
    what: &str,
    message: &str,
    acked: &[u8],
    flight: &[Option<u8>],
    writes: &[Vec<Issued>],
) {
    if keep.exists() {
        return;
    }
    let prefix = knob.to_lowercase();
    point.lay(keep);
    PowerCutPoint {
        image_index: point.image_index,
        image: point.image,
        journal_cut_bytes: point.journal_cut_bytes,
        dropped: vec![false; point.dropped.len()],
    }
    .lay(&keep.with_extension("kept"));
    // The bytes acknowledged at the cut, and per byte the in-flight value (mask 1) or none
    // (mask 0).
    std::fs::write(keep.join(format!("{prefix}-acked.bin")), acked).unwrap();
    let flight_bytes: Vec<u8> = flight.iter().map(|b| b.unwrap_or(0)).collect();
    let flight_mask: Vec<u8> = flight.iter().map(|b| u8::from(b.is_some())).collect();
    std::fs::write(keep.join(format!("{prefix}-flight.bin")), &flight_bytes).unwrap();
    std::fs::write(keep.join(format!("{prefix}-flight-mask.bin")), &flight_mask).unwrap();
    std::fs::write(
        keep.join(format!("{prefix}-what.txt")),
        format!("{what}\n{message}\n"),
    )
    .unwrap();
    for (t, thread) in writes.iter().enumerate() {
        for w in thread {
            eprintln!(
                "thread {t}: write {}+{} issued at image {} acknowledged at image {}",
                w.at,
                w.bytes.len(),
                w.issued_at,
                w.acked_at
            );
        }
    }
}

/// Review s32r's degraded scene, laid the same way by its tests and probes: a WCL store of
/// `code` (4 KiB unit, no window timeout), `f` put over two stripes, acknowledged writes at
/// 100 and 2 units + 100 (home stripe 0 cached), OSS `dead` failed, then the write `write`
/// cut by power, an image before each of its mutating calls and one after. Its steps run in
/// plan order (the images are the same on every run).
pub struct DegradedCutWrite {
    /// The scratch that holds the store and the images (alive while this is).
    pub top: tempfile::TempDir,
    pub dir: PathBuf,
    pub layout: exaraid_plan::Layout,
    /// The file's acknowledged bytes before the cut write.
    pub base: Vec<u8>,
    /// The cut write's bytes.
    pub new: Vec<u8>,
    /// Per file byte: the cut write's byte where it covers, else `None`.
    pub flight: Vec<Option<u8>>,
    pub images: Vec<PowerCutImage>,
}

pub fn degraded_cut_write(
    code: exaraid_codes::CodeSpec,
    dead: usize,
    write: std::ops::Range<usize>,
) -> DegradedCutWrite {
    use crate::common::{bytes_of, init_wcl_without_timeout, put_f_with_two_acknowledged_writes};
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let base = put_f_with_two_acknowledged_writes(&store, stripe_bytes);
    store.fail_oss(dead).unwrap();
    let new = bytes_of(1000, write.start as u64, write.len() as u64);
    cut.arm();
    store.write("f", write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    let mut flight = vec![None; base.len()];
    for (j, &b) in new.iter().enumerate() {
        flight[write.start + j] = Some(b);
    }
    DegradedCutWrite {
        images: cut.images(),
        top,
        dir,
        layout,
        base,
        new,
        flight,
    }
}

/// `laid` opened at each of its journal cuts (laid out in `scratch`/try), OSS `dead` lost
/// with the cut: every block of `f` outside `skip` reads its acknowledged byte (`acked`) or
/// the cut write's (`flight`), or is named LOST, before and after a settle (a wrong byte
/// panics). Returns (cuts, cuts losing a block); removes `laid`.
pub fn check_f_at_every_journal_cut(
    scratch: &Path,
    laid: &PowerCutImage,
    dead: Option<usize>,
    (acked, flight): (&[u8], &[Option<u8>]),
    skip: std::ops::Range<usize>,
) -> (usize, usize) {
    let failed: Vec<usize> = dead.into_iter().collect();
    let to = scratch.join("try");
    let (mut cuts, mut lost_cuts) = (0, 0);
    for journal_cut_bytes in journal_cuts(laid) {
        let point = PowerCutPoint {
            image_index: laid.index,
            image: laid,
            journal_cut_bytes,
            dropped: vec![false; laid.oss_durable.len()],
        };
        let what = format!("{} {:?}", point.what(), laid.out_of_order);
        point.lay(&to);
        if let Some(dead) = dead {
            lose_disk(&to, dead);
        }
        let store = open_laid(&to, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let read = |when: &str| {
            f_blocks_lost_or_wrong(&store, acked, flight, skip.clone())
                .unwrap_or_else(|e| panic!("{what}: {when}: {e}"))
        };
        let mut lost = read("before the settle");
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        lost.extend(read("after the settle"));
        drop(store);
        std::fs::remove_dir_all(&to).unwrap();
        cuts += 1;
        if !lost.is_empty() {
            lost_cuts += 1;
            eprintln!("{what}: blocks at {lost:?} LOST");
        }
    }
    std::fs::remove_dir_all(&laid.dir).unwrap();
    (cuts, lost_cuts)
}

/// The cut write of a power-cut scene: `store` (opened on `cut`, the file `f` as
/// acknowledged in `before`) writes `cut_write` (pattern 4) armed, and every power cut of
/// `out_of_order` is laid under `top` and checked as `open_laid_flush_and_read` does (a
/// WRONG byte is a problem, a LOST block is named), each reopened as `cut` opens the store
/// (`PowerCut::open_options`: its witness). `label` starts each cut's name.
/// Returns (cuts, WRONG problems, each LOST cut's blocks).
pub fn cut_write_at_every_power_cut(
    top: &Path,
    cut: &Arc<PowerCut>,
    store: Store,
    label: &str,
    before: &[u8],
    cut_write: std::ops::Range<usize>,
    out_of_order: Option<OutOfOrder>,
) -> (usize, Vec<String>, Vec<Vec<usize>>) {
    let scene = (label, before, cut_write, out_of_order);
    cut_write_at_power_cuts(top, cut, store, scene, None)
}

/// `cut_write_at_every_power_cut`, with `only_cut` the cut of that number alone laid and
/// checked (every cut still counted: a pin of one traced cut, at a fraction of the time).
pub fn cut_write_at_power_cuts(
    top: &Path,
    cut: &Arc<PowerCut>,
    store: Store,
    (label, before, cut_write, out_of_order): (
        &str,
        &[u8],
        std::ops::Range<usize>,
        Option<OutOfOrder>,
    ),
    only_cut: Option<usize>,
) -> (usize, Vec<String>, Vec<Vec<usize>>) {
    cut.cut_journal_since_previous_call();
    let new = crate::common::pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    let images = cut.images();
    let (mut points, mut problems, mut losses) = (0, Vec::new(), Vec::new());
    for_each_power_cut_with(&images, out_of_order, |point| {
        points += 1;
        if only_cut.is_some_and(|c| c != points - 1) {
            return;
        }
        let what = format!("{label}: cut #{}: {}", points - 1, point.what());
        let laid = top.join("try");
        point.lay(&laid);
        let check = || {
            let (store, lost) = open_laid_flush_and_read_with(
                &laid,
                &[],
                before,
                cut_write.clone(),
                &new,
                &what,
                cut.open_options(),
            );
            drop(store);
            lost
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
            Ok(lost) => {
                if !lost.is_empty() {
                    eprintln!("LOST-CUT {what}: blocks at {lost:?}");
                    losses.push(lost);
                }
            }
            Err(panic) => {
                let said = crate::common::panic_message(&*panic);
                eprintln!("PROBLEM {said}");
                problems.push(said);
            }
        }
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{points} cuts, {} WRONG, {} LOST",
        problems.len(),
        losses.len()
    );
    (points, problems, losses)
}
