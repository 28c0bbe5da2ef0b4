//! The safety net under `Store::journal_before_deletions` (review s12r R12-7, R12-8; task
//! s13b). In a journal written before session 13 the `Replace`, `Remove` or
//! `PlannerReset` that allowed a deletion may be its LAST record while the deletion ran,
//! and an open that cuts that record as damaged takes it as never made, though the zone
//! files it let go are gone; a missing zone file reads as never-written slots: zeros, exit 0.
//! So an open that cut a record looks at the OSSs, before the planner is replayed and
//! before anything reads, for deletions that ran after it, and journals what they imply:
//! - a settle's end: the replayed planner holds cached bytes on an OSS (up, trusted) whose
//!   cache zone is gone, and the settle on record covers every cached stripe. Only a
//!   settle's end deletes the cache zone, after its `PlannerReset` is durable and its home
//!   writes are synced: the cut record was that `PlannerReset`, journaled again here
//!   (rolled forward: every cached byte is home with parity).
//! - a file's removal: a file without cached bytes or a cut write whose data or parity zone
//!   is gone on an OSS (up, trusted) that holds a written element of it in that zone. Only
//!   a removal deletes a file's objects, after the `Replace` or `Remove` that took the name
//!   off it: the cut record was that. Which content that record gave the name cannot be
//!   told for sure (a staged put content may be a failed put's, never acknowledged), so the
//!   file's written bytes are recorded LOST, named (`OBJECTS_DELETED`), never read as zeros.
//!
//! These records are written where the torn tail was, together with the open's decision of
//! a cut cached write (`cut_durable::cut_tail_finishing`), all or nothing (a replacement of
//! the journal renamed over it, `Journal::cut_tail_writing`): a kill or a power cut leaves
//! the tail (decided again by the next open) or every record (merge review
//! s13m P1, P3: appended by themselves they moved the journal past the cut record, so a
//! cut cached write went undecided, and a kill between the cut and the append left a
//! journal without tail and without them). One zone file gone is enough: a removal forgets
//! a zone's extents before it unlinks the file, so the slots of a zone it deleted on one
//! OSS read as never written (zeros), not as missing, and no decode goes around them (a
//! threshold at the code's tolerance, tried in the merge, read zeros so). A zone file
//! deleted outside exaraid is told apart by the OSS's extents (`zone_written_on_record`:
//! they still name it written, where a removal forgot them first): not a removal, its
//! slots read `Missing` and reads decode around them (session 15; before, its whole file
//! was recorded lost beside a cut tail, or under the older-metadata signature below).
//!
//! The same check of removed files runs at an open of metadata older than its OSSs, let in
//! by removing every OSS's epoch file (`epoch_files_removed`, review s14r R14-2): removals
//! only newer metadata knew of deleted objects this metadata calls written. It decides also
//! where such an open cuts a torn tail (s14m F3): newer metadata explains what is gone as
//! well as the cut record does.

use std::collections::BTreeSet;

use exaraid_plan::{Layout, StrategyConfig, StrategyKind, Zone as PlanZone};

use super::recovery::replay;
use super::{plan_err, plan_stripes, CACHE_OBJECT, LOST_RANGES_PER_RECORD_MAX};
use crate::backend::{Backend, Zone};
use crate::state::{LostRange, Rec, State};
use crate::StoreError;

/// The token of bytes recorded lost because a removal whose record was cut deleted their
/// file's objects (see the module).
pub(super) const OBJECTS_DELETED: &str =
    "none: a removal whose journal record was damaged and cut off deleted the file's objects";

/// The token of bytes recorded lost because their objects are gone from the OSSs while the
/// state and journal, older than the OSSs, still call them written (see
/// `epoch_files_removed`): a newer metadata's `put` over the file or `rm` deleted them.
pub(super) const OBJECTS_REMOVED_SINCE: &str =
    "none: its objects were removed from the OSSs after this state and journal were current (a `put` over it or an `rm` recorded only in newer metadata)";

/// The open's signature of metadata opened through the "older than its OSS directories"
/// refusal's escape hatch (review s14r R14-2): the state and journal made a metadata epoch,
/// yet no OSS that is up keeps one (every `exaraid-epoch.json` was removed). The metadata
/// may then be older than the OSSs: a removal it does not know of deleted objects it calls
/// written, whose slots the OSSs report never written (zeros). Only the store's own OSS
/// directories count (a caller's backends may keep no epoch at all). A first bump killed
/// before any OSS was told matches too, harmlessly: no object was removed behind it.
pub(super) fn epoch_files_removed(backends: &[Box<dyn Backend>], state: &State) -> bool {
    if state.metadata_epoch().is_none() {
        return false;
    }
    let mut asked = backends
        .iter()
        .enumerate()
        .filter(|(oss, b)| b.healthy() && !state.failed_oss.contains(oss))
        .peekable();
    asked.peek().is_some() && asked.all(|(_, b)| matches!(b.metadata_epoch(), Ok(None)))
}

/// Metadata opened through the older-metadata refusal's way out, told by what the
/// operator did (review r44b MEDIUM-1): `epoch_files_removed`, and every OSS that is up
/// (labelled: `healthy` needs its label) and not failed on record keeps epochs and has no
/// epoch file at all. The state's home witness may then hold crcs of bytes the OSSs have
/// since overwritten in place, acknowledged by the newer metadata that is gone: as a lost
/// write's they would read LOST where the refusal promised "bytes written since ... read
/// back as the OSSs hold them now". Not the way out, so the witness stays: a blank
/// replacement disk (no label: not up, and the OSSs beside it keep their epochs: the
/// session 44 mend fired there and a lost write read stale), a backend keeping no epochs
/// (`metadata_epoch_absent` is `None`), epoch files a power cut tore (there, damaged).
pub(super) fn epoch_files_taken_away(backends: &[Box<dyn Backend>], state: &State) -> bool {
    if !epoch_files_removed(backends, state) {
        return false;
    }
    backends
        .iter()
        .enumerate()
        .filter(|(oss, b)| b.healthy() && !state.failed_oss.contains(oss))
        .all(|(_, b)| b.metadata_epoch_absent() == Some(true))
}

/// Written stripes per file whose elements are looked for: bounds the open's work (a file
/// with more stripes has elements on every OSS well before).
const STRIPES_CHECKED_PER_FILE_MAX: usize = 4096;

/// An open that cut the journal's last record: the records that deletions which ran after
/// that record imply (see the module), applied to `state` as records `first_seq`, ... and
/// returned for the caller to write in the tail's place; none when no deletion ran.
/// `token`: why a deleted file's bytes are lost (`OBJECTS_DELETED`, or
/// `OBJECTS_REMOVED_SINCE` for metadata older than its OSSs: no settle is rolled forward
/// then, since a newer metadata's settle may have deleted the cache zone).
pub(super) fn cut_deletion_records(
    backends: &[Box<dyn Backend>],
    layout: &Layout,
    kind: StrategyKind,
    config: StrategyConfig,
    state: &mut State,
    (first_seq, token): (u64, &'static str),
) -> Result<Vec<Rec>, StoreError> {
    assert!(token == OBJECTS_DELETED || token == OBJECTS_REMOVED_SINCE);
    let mut recs = Vec::new();
    // What each OSS whose directory can tell holds: up, neither failed nor stale on record,
    // and listed (an OSS whose listing fails tells nothing here; reads find it later).
    let listed: Vec<Option<BTreeSet<(u64, Zone)>>> = backends
        .iter()
        .enumerate()
        .map(|(oss, b)| {
            let trusted =
                b.healthy() && !state.failed_oss.contains(&oss) && !state.stale_oss.contains(&oss);
            let objects = trusted.then(|| b.objects().ok()).flatten()?;
            Some(objects.into_iter().map(|(o, z, _)| (o, z)).collect())
        })
        .collect();
    // Deleted by a removal: not listed, and not named written by the OSS's extents (a
    // removal forgets them durably before it deletes the file). A zone file gone while its
    // extents still name it written was deleted outside exaraid: its slots read `Missing`
    // and reads decode around them, or name them lost beyond the code's tolerance (note14
    // items 8, 9: it was taken for a removal and its whole file recorded lost).
    let gone = |oss: usize, object: u64, zone: Zone| {
        listed[oss]
            .as_ref()
            .is_some_and(|held| !held.contains(&(object, zone)))
            && backends[oss].zone_written_on_record(object, zone) != Some(true)
    };
    let mut push = |state: &mut State, rec: Rec| {
        state.apply(first_seq + recs.len() as u64, &rec);
        recs.push(rec);
    };
    if token == OBJECTS_DELETED && settle_ended(layout, kind, config, state, &gone)? {
        // The timed-out windows first, as the settle itself journals them before its reset
        // (`Store::record_closed_windows`): the reset drops the inputs that closed them, and
        // without the marks the open after it started them fresh, their files' writes
        // unprotected again for a new timeout (note16 OPEN 8; a journal of a binary before
        // session 16 lacks the settle's own marks).
        let (strategy, _) = replay(kind, layout, config, &state.inputs)?;
        for rec in super::window::closed_window_records(state, strategy.as_ref()) {
            push(state, rec);
        }
        push(state, Rec::PlannerReset);
    }
    let lost = deleted_files(layout, kind, config, state, (&gone, token))?;
    for ranges in lost.chunks(LOST_RANGES_PER_RECORD_MAX) {
        push(
            state,
            Rec::Lost {
                ranges: ranges.to_vec(),
            },
        );
    }
    Ok(recs)
}

/// A settle on record ended (see the module): a cache zone holding cached bytes is gone on
/// an OSS that can tell, and the settle covers every stripe with cached bytes.
fn settle_ended(
    layout: &Layout,
    kind: StrategyKind,
    config: StrategyConfig,
    state: &State,
    gone: &dyn Fn(usize, u64, Zone) -> bool,
) -> Result<bool, StoreError> {
    let Some(settling) = &state.settling else {
        return Ok(false);
    };
    let (strategy, plans) = replay(kind, layout, config, &state.inputs)?;
    if plans.iter().any(|(_, p)| !state.durable.contains(&p.id)) {
        // A plan cut by a crash may never have written the cache zone it names (the
        // first cache write to an OSS creates its cache zone file): its absence proves
        // nothing then. (A flush's settle runs once every plan is durable; recovery's,
        // beside plans a crash cut, is not rolled forward.)
        return Ok(false);
    }
    let sdb = layout.stripe_data_bytes();
    let mut cache_gone_on: BTreeSet<usize> = BTreeSet::new();
    for meta in state.files.values() {
        for stripe in strategy.cached_stripes(meta.id) {
            let start = stripe * sdb;
            if start >= meta.size_bytes {
                continue;
            }
            if !settling.contains(&(meta.id, stripe)) {
                return Ok(false); // cached bytes that settle did not move home
            }
            let len = sdb.min(meta.size_bytes - start);
            let extents = strategy.lookup(meta.id, start, len).map_err(plan_err)?;
            cache_gone_on.extend(
                extents
                    .iter()
                    .filter(|x| x.zone == PlanZone::Cache && gone(x.oss, CACHE_OBJECT, Zone::Cache))
                    .map(|x| x.oss),
            );
        }
    }
    Ok(!cache_gone_on.is_empty())
}

/// The written ranges of every file a removal deleted (see the module), each named with
/// an OSS that lost its zone.
fn deleted_files(
    layout: &Layout,
    kind: StrategyKind,
    config: StrategyConfig,
    state: &State,
    (gone, token): (&dyn Fn(usize, u64, Zone) -> bool, &str),
) -> Result<Vec<LostRange>, StoreError> {
    let (strategy, plans) = replay(kind, layout, config, &state.inputs)?;
    // A write cut by a crash may have written none of its elements: its stripes tell nothing.
    let cut: BTreeSet<(u64, u64)> = plans
        .iter()
        .filter(|(_, p)| !state.durable.contains(&p.id))
        .flat_map(|(_, p)| plan_stripes(p))
        .collect();
    let sdb = layout.stripe_data_bytes();
    let element_bytes = layout.element_bytes();
    let mut lost = Vec::new();
    for (name, meta) in &state.files {
        // A put's staging content (never acknowledged; every open drops it), and bytes in
        // the cache zone (WCL, a window), whose home elements may not be written yet.
        let cached = !strategy.cached_stripes(meta.id).is_empty()
            || state.windows.values().any(|w| w.file == meta.id);
        if name.ends_with("\0put") || cached {
            continue;
        }
        let runs = meta.written_runs();
        let written = |a: u64, z: u64| runs.iter().any(|&(ra, rz)| ra < z && a < rz);
        let mut deleted_on: BTreeSet<usize> = BTreeSet::new();
        let stripes = meta.written_stripes(sdb).take(STRIPES_CHECKED_PER_FILE_MAX);
        for stripe in stripes.filter(|&s| !cut.contains(&(meta.id, s))) {
            // Every written stripe has its parity at home; a data element where written.
            for oss in layout.parity_oss(meta.id, stripe) {
                if gone(oss, meta.id, Zone::Parity) {
                    deleted_on.insert(oss);
                }
            }
            for data in 0..layout.data_per_stripe() {
                let at = layout.file_offset(stripe, data, 0);
                let oss = layout.locate(meta.id, at).oss;
                if !written(at, at + element_bytes) {
                    continue;
                }
                if gone(oss, meta.id, Zone::Data) {
                    deleted_on.insert(oss);
                }
            }
        }
        if deleted_on.is_empty() {
            continue;
        }
        let oss = *deleted_on.first().expect("more OSSs than the tolerance");
        // Already on record: an open killed after journaling them and before the OSSs
        // were told an epoch finds the same signature again.
        let recorded = |a: u64, z: u64| {
            state
                .lost_in(meta.id, a, z - a)
                .iter()
                .any(|l| l.offset_bytes == a && l.end_bytes() == z)
        };
        lost.extend(
            runs.iter()
                .filter(|&&(a, z)| !recorded(a, z))
                .map(|&(a, z)| LostRange {
                    file: meta.id,
                    offset_bytes: a,
                    len_bytes: z - a,
                    oss,
                    token: token.into(),
                    cache_addr_bytes: None,
                    made_final_by_rebuild: false,
                }),
        );
    }
    Ok(lost)
}
