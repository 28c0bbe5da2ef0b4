//! A settle (a flush) killed after any of its home writes while every OSS was up, then the
//! disk of a data column it had no cached bytes for gone for good before the next open
//! (`store fail`): every acknowledged byte reads back (review s5s S2 remainder, issue #4
//! OPEN 1, session 9).
//!
//! Why this can be decided at all: the cached bytes the settle moves home stay in the
//! cache zone until its end, so the NEW version of every data element is known, while a
//! data element the settle rewrote has lost its OLD bytes for good. The settle writes
//! every parity element of a stripe before its data (`settle_write_order`): a kill leaves
//! either no data element written (the old stripe decodes the dead column around the
//! parity elements already new) or every parity new (the new stripe decodes it). With
//! data written first, a kill after two cached data columns landed and before the parity
//! left neither version decodable (old: the dead column and both changed columns unknown,
//! three erasures for raid6's two parities; raid5: one changed column is already too many)
//! and recovery recorded the dead column's acknowledged bytes lost: 4 of the 13 kill
//! images below on raid6, 6 of 11 on raid5 (checked with the settle writing in the old
//! order, column by column, data first).
//!
//! The crash images are built from the store's own runs: the settle cut before its first
//! home write (a hook fails every home write: its records, `SettleBegin` and the stripe's
//! `SettleSums`, are journaled and no block changed, what a kill -9 there leaves), the
//! same settle run whole while a hook records the order of its home writes, and for every
//! prefix of that order the slots it wrote copied from the whole run, whole (a kill
//! between two writes) and with the next one's payload only (a kill between a block's
//! payload and its checksum).

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};
use parking_lot::Mutex;

/// The data elements of stripe 0 with cached bytes when the settle starts (two: on raid6
/// one changed column beside the dead one is still within the tolerance either way).
const CACHED_DATA: [usize; 2] = [1, 2];
/// Their cached bytes: the same element bytes in both, so that no offset of the block has
/// only one changed column.
const CACHED_AT: usize = 100;
const CACHED_BYTES: usize = 3000;
/// The data element whose OSS dies: no cached bytes of its own.
const DEAD_DATA: usize = 0;

/// Records the home writes in order; once `cut` is set, fails them instead (the settle is
/// cut before its first home write).
#[derive(Default)]
struct HomeWrites {
    cut: AtomicBool,
    /// `(file id, stripe, rows)`: fail the home writes of that file's stripes from this one
    /// on instead (the settle is cut before that stripe's first home write, after its
    /// `SettleSums` record).
    cut_from: Mutex<Option<(u64, u64, u64)>>,
    order: Mutex<Vec<(usize, ElementKey)>>,
}

impl Hook for HomeWrites {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache {
            return Ok(());
        }
        let cut_here = self
            .cut_from
            .lock()
            .is_some_and(|(id, stripe, rows)| key.object == id && key.slot / rows >= stripe);
        if cut_here || self.cut.load(Ordering::SeqCst) {
            return Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the settle is cut here".into(),
            });
        }
        self.order.lock().push((oss, key));
        Ok(())
    }
}

fn unsynced() -> OpenOptions {
    OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    }
}

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    cut: PathBuf,
    after: PathBuf,
    model: Vec<u8>,
    dead: usize,
    /// The slots of stripe 0 the settle wrote, in the order it wrote them.
    written: Vec<Unit>,
}

fn scene(code: CodeSpec) -> Scene {
    let cols = columns(code);
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, cut, after) = (
        tmp.path().join("saved"),
        tmp.path().join("cut"),
        tmp.path().join("after"),
    );
    let store = init(&dir, code, cols, WritePath::Wcl);
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, 2 * sdb);
    store.write("f", 0, &model).unwrap();
    store.flush().unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, layout.geometry().data_pos[DEAD_DATA].col);
    for (seed, d) in CACHED_DATA.into_iter().enumerate() {
        let at = layout.file_offset(0, d, CACHED_AT as u64) as usize;
        let new = pattern(10 + seed as u64, CACHED_BYTES);
        store.write("f", at as u64, &new).unwrap();
        model[at..at + CACHED_BYTES].copy_from_slice(&new);
    }
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    store.close().unwrap();
    copy_tree(&dir, &saved);

    // The settle whole, its home writes in order.
    let hook = Arc::new(HomeWrites::default());
    let store = open_wrapped(&dir, &hook, &[], unsynced()).unwrap();
    store.flush().unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let order = hook.order.lock().clone();

    // The same settle cut before its first home write.
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&saved, &dir);
    let hook = Arc::new(HomeWrites::default());
    let store = open_wrapped(&dir, &hook, &[], unsynced()).unwrap();
    hook.cut.store(true, Ordering::SeqCst);
    assert!(store.flush().is_err(), "{code}: the settle is cut");
    drop(store);
    copy_tree(&dir, &cut);

    // Stripe 0's slots in write order (every element of it: the settle writes the stripe
    // whole, unchanged elements too; asserted below).
    let mut written: Vec<Unit> = Vec::new();
    for (oss, key) in order {
        let kind = match key.zone {
            Zone::Data => "data",
            Zone::Parity => "parity",
            Zone::Cache => unreachable!("not recorded"),
        };
        let unit: Unit = (oss, format!("{}.{kind}", key.object), key.slot as usize);
        // Only stripe 0 has cached bytes: the settle writes no other stripe of "f".
        let stripe_0 = key.object == id;
        if stripe_0 && !written.contains(&unit) {
            written.push(unit);
        }
    }
    assert_eq!(
        written.len(),
        cols,
        "{code}: every element of stripe 0 once"
    );
    Scene {
        _tmp: tmp,
        dir,
        cut,
        after,
        model,
        dead,
        written,
    }
}

impl Scene {
    /// The image a kill leaves after the settle's first `landed` writes of stripe 0, the
    /// next one's payload on disk under its old checksum when `payload_next`; the dead
    /// OSS's disk gone; opened with it failed (recovery finishes the settle).
    fn crash(&self, landed: usize, payload_next: bool) -> exaraid_store::Store {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.cut, &self.dir);
        for unit in &self.written[..landed] {
            lay_block(&self.after, &self.dir, unit, Block::Landed);
        }
        if payload_next {
            lay_block(
                &self.after,
                &self.dir,
                &self.written[landed],
                Block::PayloadOnly,
            );
        }
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }

    fn reads_back(&self, store: &exaraid_store::Store, what: &str) -> Result<(), String> {
        reads_back(store, &self.model, what)
    }
}

/// `get` of "f" reads every acknowledged byte (`model`), and scrub finds every parity
/// matching; `Err` names what was recorded lost. Panics on a wrong byte.
fn reads_back(store: &Store, model: &[u8], what: &str) -> Result<(), String> {
    let got = match store.get("f") {
        Ok(got) => got,
        Err(StoreError::DataLost(msg)) => {
            let on_record: Vec<(u64, u64)> = (store.status().unwrap().lost_ranges.iter())
                .map(|l| (l.offset_bytes, l.len_bytes))
                .collect();
            return Err(format!(
                "{msg} (lost on record, offset and length: {on_record:?})"
            ));
        }
        Err(e) => panic!("{what}: get: {e}"),
    };
    assert_eq!(got.len(), model.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != model[i]) {
        panic!(
            "{what}: WRONG byte {i}: {:#04x}, acknowledged {:#04x}",
            got[i], model[i]
        );
    }
    let report = store.scrub(false).unwrap();
    assert!(report.parity_mismatches.is_empty(), "{what}: {report:?}");
    Ok(())
}

/// Every kill image of the settle of stripe 0 (after each of its home writes, and
/// between each one's payload and checksum), the dead column's disk gone: the images
/// recovery recorded lost.
fn kill_images_lost(code: CodeSpec) -> Vec<String> {
    let s = scene(code);
    let mut lost = Vec::new();
    for landed in 0..=s.written.len() {
        for payload_next in [false, true] {
            if payload_next && landed == s.written.len() {
                continue;
            }
            let what = format!(
                "{code}: OSS {} dead, the settle's first {landed} home writes landed{}",
                s.dead,
                if payload_next {
                    ", the next one's payload only"
                } else {
                    ""
                }
            );
            let store = s.crash(landed, payload_next);
            if let Err(msg) = s.reads_back(&store, &what) {
                lost.push(format!("{what}: {msg}"));
            }
        }
    }
    lost
}

#[test]
fn raid6_a_settle_killed_anywhere_beside_a_dead_disk_loses_nothing() {
    let lost = kill_images_lost(CodeSpec::raid6(4));
    assert!(lost.is_empty(), "{} images lost: {lost:#?}", lost.len());
}

#[test]
fn raid5_a_settle_killed_anywhere_beside_a_dead_disk_loses_nothing() {
    let lost = kill_images_lost(CodeSpec::raid5(4));
    assert!(lost.is_empty(), "{} images lost: {lost:#?}", lost.len());
}

// ------------------------------------------------------------ the stripe after the cut

/// A settle of two stripes, both with cached bytes, cut anywhere: in stripe 1, which a cut
/// in (or right after) stripe 0 never reached, the cached data column is not the dead one,
/// and the settle writes parity and a data column on OSSs that are up before it. Nothing
/// in the stripe tells that the settle never wrote it: raid5 has no redundancy left beside
/// the dead disk, and its first never-written element comes after elements that may have
/// been written. What tells is the journal: no `SettleSums` record of stripe 1, under a
/// settle that promised one before every stripe's first home write (`SettleBegin`'s
/// `records_every_stripe`). Without that (main before session 11) raid5 recorded the dead
/// column's bytes of stripe 1 lost (docs/results/s9b-s2.md case 2, s11e-s2.md).
struct TwoStripes {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    after: PathBuf,
    /// Per stripe: the store as a kill leaves it right after that stripe's `SettleSums`
    /// record (the stripes before it written whole, nothing of it).
    cut: Vec<PathBuf>,
    /// The store as a kill right after `SettleBegin` leaves it: no sums on record.
    begun: PathBuf,
    model: Vec<u8>,
    dead: usize,
    /// Per stripe: its slots the settle wrote, in the order it wrote them.
    written: Vec<Vec<Unit>>,
}

const STRIPES: u64 = 2;

fn two_stripes(code: CodeSpec) -> TwoStripes {
    let cols = columns(code);
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after, begun) = (
        tmp.path().join("saved"),
        tmp.path().join("after"),
        tmp.path().join("begun"),
    );
    let store = init(&dir, code, cols, WritePath::Wcl);
    let layout = store.layout().clone();
    let g = layout.geometry().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = pattern(1, STRIPES as usize * sdb);
    store.write("f", 0, &model).unwrap();
    store.flush().unwrap();
    let id = store.file_id("f").unwrap();
    let dead = layout.oss_of(id, 0, g.data_pos[DEAD_DATA].col);
    let oss_of_data = |stripe: u64, d: usize| layout.oss_of(id, stripe, g.data_pos[d].col);
    assert!(
        (0..g.data_pos.len()).any(|d| oss_of_data(1, d) == dead),
        "{code}: the dead OSS holds a data column of stripe 1 too"
    );
    for stripe in 0..STRIPES {
        for (seed, d) in CACHED_DATA.into_iter().enumerate() {
            if oss_of_data(stripe, d) == dead {
                continue;
            }
            let at = layout.file_offset(stripe, d, CACHED_AT as u64) as usize;
            let new = pattern(10 + 10 * stripe + seed as u64, CACHED_BYTES);
            store.write("f", at as u64, &new).unwrap();
            model[at..at + CACHED_BYTES].copy_from_slice(&new);
        }
    }
    assert!(store.status().unwrap().bytes_waiting_parity > 0);
    store.close().unwrap();
    copy_tree(&dir, &saved);
    let rows = g.rows as u64;

    // The settle whole, its home writes in order.
    let hook = Arc::new(HomeWrites::default());
    let store = open_wrapped(&dir, &hook, &[], unsynced()).unwrap();
    store.flush().unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let order = hook.order.lock().clone();
    let mut written: Vec<Vec<Unit>> = vec![Vec::new(); STRIPES as usize];
    for (oss, key) in order {
        assert_eq!(key.object, id, "{code}: the settle writes only \"f\"");
        let kind = match key.zone {
            Zone::Data => "data",
            Zone::Parity => "parity",
            Zone::Cache => unreachable!("not recorded"),
        };
        let unit: Unit = (oss, format!("{}.{kind}", key.object), key.slot as usize);
        let of_stripe = &mut written[(key.slot / rows) as usize];
        if !of_stripe.contains(&unit) {
            of_stripe.push(unit);
        }
    }
    for (stripe, units) in written.iter().enumerate() {
        assert_eq!(
            units.len(),
            cols,
            "{code}: every element of stripe {stripe} once"
        );
    }

    // The same settle cut before each stripe's first home write.
    let journal = dir.join("journal");
    let mut cut = Vec::new();
    for stripe in 0..STRIPES {
        std::fs::remove_dir_all(&dir).unwrap();
        copy_tree(&saved, &dir);
        let hook = Arc::new(HomeWrites::default());
        let store = open_wrapped(&dir, &hook, &[], unsynced()).unwrap();
        let before = std::fs::metadata(&journal).unwrap().len();
        *hook.cut_from.lock() = Some((id, stripe, rows));
        assert!(store.flush().is_err(), "{code}: the settle is cut");
        drop(store);
        let image = tmp.path().join(format!("cut-{stripe}"));
        copy_tree(&dir, &image);
        if stripe == 0 {
            // Its last record is stripe 0's sums: cut off, the kill right after `SettleBegin`.
            let cuts = record_boundaries(&journal, before);
            let last = &std::fs::read(&journal).unwrap()
                [cuts[cuts.len() - 2] as usize + 8..cuts[cuts.len() - 1] as usize];
            let last = String::from_utf8_lossy(last);
            assert!(last.contains("SettleSums"), "{code}: {last}");
            restore_with_journal_cut(&image, &dir, &journal, cuts[cuts.len() - 2]);
            let begun_journal =
                String::from_utf8_lossy(&std::fs::read(&journal).unwrap()).into_owned();
            assert!(begun_journal.contains("SettleBegin"), "{code}");
            copy_tree(&dir, &begun);
        }
        cut.push(image);
    }
    TwoStripes {
        _tmp: tmp,
        dir,
        after,
        cut,
        begun,
        model,
        dead,
        written,
    }
}

impl TwoStripes {
    /// The image `base` with `units` landed from the whole run (and the next one's payload
    /// only), the dead OSS's disk gone; opened with it failed (recovery finishes the settle).
    fn crash(&self, base: &Path, units: &[Unit], payload_next: Option<&Unit>) -> Store {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(base, &self.dir);
        for unit in units {
            lay_block(&self.after, &self.dir, unit, Block::Landed);
        }
        if let Some(unit) = payload_next {
            lay_block(&self.after, &self.dir, unit, Block::PayloadOnly);
        }
        lose_disk(&self.dir, self.dead);
        open_failing_unsynced(&self.dir, self.dead)
    }
}

/// Every kill image of the two-stripe settle: right after `SettleBegin`, and in each stripe
/// after its `SettleSums` record and each of its home writes (and between each one's
/// payload and checksum), the dead column's disk gone: the images recovery recorded lost.
fn two_stripe_kill_images_lost(code: CodeSpec) -> Vec<String> {
    let s = two_stripes(code);
    let mut lost = Vec::new();
    let mut check = |store: Store, what: String| {
        if let Err(msg) = reads_back(&store, &s.model, &what) {
            lost.push(format!("{what}: {msg}"));
        }
    };
    let what = format!(
        "{code}: OSS {} dead, killed right after SettleBegin",
        s.dead
    );
    check(s.crash(&s.begun, &[], None), what);
    for (stripe, units) in s.written.iter().enumerate() {
        for landed in 0..=units.len() {
            for payload_next in [false, true] {
                if payload_next && landed == units.len() {
                    continue;
                }
                let what = format!(
                    "{code}: OSS {} dead, stripe {stripe}'s sums on record, its first {landed} home writes landed{}",
                    s.dead,
                    if payload_next {
                        ", the next one's payload only"
                    } else {
                        ""
                    }
                );
                let next = payload_next.then(|| &units[landed]);
                check(s.crash(&s.cut[stripe], &units[..landed], next), what);
            }
        }
    }
    lost
}

#[test]
fn raid5_a_settle_killed_before_a_stripe_beside_a_dead_disk_loses_nothing_of_that_stripe() {
    let lost = two_stripe_kill_images_lost(CodeSpec::raid5(4));
    assert!(lost.is_empty(), "{} images lost: {lost:#?}", lost.len());
}

#[test]
fn raid6_a_settle_killed_before_a_stripe_beside_a_dead_disk_loses_nothing_of_that_stripe() {
    let lost = two_stripe_kill_images_lost(CodeSpec::raid6(4));
    assert!(lost.is_empty(), "{} images lost: {lost:#?}", lost.len());
}
