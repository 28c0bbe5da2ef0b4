//! The journal's cut last record may have been a cached write's acknowledgement (review s12r
//! R12-1).
//!
//! A WCL or delayed-window client write is acknowledged once its plan's `Durable` record is
//! fsync'd; the `Complete` behind it is appended unsynced (`complete_deferred`). After a
//! power cut the `Durable` can be the journal's last record, and damage to that record (a
//! bit flip, a truncation) makes the open cut it as a torn tail: the plan reads as cut by
//! the crash, recovery forgets its cached bytes, and the OLD bytes read with exit 0. No
//! parity check sees it: the bytes were in the cache zone, and home stays consistent.
//!
//! So, when the open cut a tail, each cut client plan that wrote the cache zone is decided
//! before recovery sees it:
//! - every block it wrote reads verified (its checksum) and holds what the plan journaled
//!   it would write (`Rec::WriteCrcs` and `Rec::WriteParityCrcs` on WCL, `Rec::
//!   WindowBlockCrcs` in a delayed window): the write is whole on disk, so it is FINISHED
//!   (its OSSs synced, then its `Durable` journaled again). Safe whatever the cut record
//!   was: an unacknowledged write may read old or new, and new is provably there.
//! - else, when the cut record was damaged whole (`Journal::tail_damaged`, not an append
//!   torn by a kill or a power cut) and is exactly as long as that plan's `Durable` record
//!   would be: it may have been its acknowledgement, and its bytes cannot be told, so they
//!   are recorded LOST (`Rec::Lost`, token `CUT_ACKNOWLEDGEMENT_UNPROVEN`): reads fail
//!   naming them and `status` lists them, instead of returning the old bytes. A torn append
//!   (short, or zeros) was never fsync'd: never an acknowledgement, recovered as before.
//!
//! Decided before the store exists (the open's view of which plans are durable is built
//! from `State::durable` right after), from the OSSs as the open found them.

use std::collections::BTreeSet;
use std::path::Path;

use exaraid_codes::Cell;
use exaraid_plan::{Bytes, IoPlan, Layout, Op, PlanCause, PlanId, Zone as PlanZone};

use super::recovery::write_crc_records::WriteCrcRecords;
use super::{Core, Store, CACHE_OBJECT};
use crate::backend::{Backend, ElementKey, Zone, CHECKSUM_BLOCK_BYTES};
use crate::journal::{Journal, TailCut};
use crate::state::{LostRange, Rec, State};
use crate::superblock::set_header_version;
use crate::StoreError;

/// The window token of a lost range whose write may have been acknowledged by the journal
/// record the open cut as damaged, and whose cached bytes could not be proven whole.
pub(super) const CUT_ACKNOWLEDGEMENT_UNPROVEN: &str =
    "none: the journal's damaged last record may have acknowledged this write, and its cached bytes could not be proven whole on disk";

/// The tail the open cut: the sequence number its record had, its length as found, the
/// length its own length field named (when its bytes were kept), and whether it was a
/// whole record damaged (`journal::whole_record_damaged`).
pub(super) struct CutRecord {
    pub seq: u64,
    pub at_byte: u64,
    pub cut_bytes: u64,
    pub framed_bytes: Option<u64>,
    pub damaged: bool,
}

impl CutRecord {
    /// The cut tail of `journal`, if any: read before anything is appended.
    pub(super) fn of(journal: &Journal<Rec>) -> Option<CutRecord> {
        let cut = journal.tail_cut()?;
        let framed_bytes = journal
            .tail_bytes()
            .filter(|b| b.len() >= 4)
            .map(|b| 8 + u64::from(u32::from_le_bytes(b[0..4].try_into().expect("4 bytes"))));
        Some(CutRecord {
            seq: journal.next_seq(),
            at_byte: cut.at_byte,
            cut_bytes: cut.cut_bytes,
            framed_bytes,
            damaged: journal.tail_damaged(),
        })
    }

    /// Could this cut record have been plan `plan`'s `Durable` record (damaged whole, of
    /// that record's length)? A client write is acknowledged by that record alone (a
    /// `SyncFailedDurable` or `SyncsFailed` ends it with an error).
    fn could_be_durable_of(&self, plan: PlanId) -> bool {
        if !self.damaged {
            return false;
        }
        let frame_bytes =
            Journal::<Rec>::frame(self.seq, &Rec::Durable { plans: vec![plan] }).len() as u64;
        frame_bytes == self.cut_bytes || Some(frame_bytes) == self.framed_bytes
    }
}

/// What `finish_cut_cached_writes` decided.
#[derive(Debug, Default)]
pub(super) struct Decided {
    /// Cut plans proven whole on disk: durable now.
    pub finished: Vec<PlanId>,
    /// The bytes of cut plans that may have been acknowledged and could not be proven.
    pub lost: Vec<LostRange>,
}

/// Cut the journal's torn tail (`cut`: this open's, when no epoch bump took its place),
/// deciding first the cut cached client writes (see the module docs): the records of the
/// decision are written where the tail began, with the cut, all or nothing
/// (`Journal::cut_tail_writing`), and with them the cut itself on record (`tail_cut`:
/// `Rec::JournalTailCut`, and `Rec::JournalTailDamaged` for a whole record damaged), for
/// the warning that stays until a scrub (or the operator) deals with it. Why together
/// (merge review s13m N4): appended after the cut, a kill in between forgot the warning
/// (the next open finds no tail to cut). With `writable` false (a metadata directory that
/// refuses writes) they are applied to `state` only: the next writable open decides again,
/// the tail still there.
pub(super) fn cut_tail_finishing(
    (cut, tail_cut): (Option<&CutRecord>, Option<TailCut>),
    (backends, layout): (&[Box<dyn Backend>], &Layout),
    (state, journal, state_file): (&mut State, &mut Journal<Rec>, (&Path, &mut u32)),
    (plans, applied): (&[(usize, IoPlan)], Vec<Rec>),
    (writable, fsync): (bool, bool),
) -> Result<Decided, StoreError> {
    let decided = match cut {
        Some(cut) => decide(cut, (backends, layout), state, plans, fsync),
        None => Decided::default(),
    };
    // `applied`: records the caller applied to `state` already as the next ones
    // (`cut_deletions::cut_deletion_records`); written first, in the same write.
    let prefix = applied.len();
    let mut recs = applied;
    recs.extend(
        decided
            .finished
            .iter()
            .map(|&plan| Rec::Durable { plans: vec![plan] }),
    );
    if !decided.lost.is_empty() {
        recs.push(Rec::Lost {
            ranges: decided.lost.clone(),
        });
    }
    if let Some(tail) = tail_cut {
        recs.push(Rec::JournalTailCut {
            at_byte: tail.at_byte,
            cut_bytes: tail.cut_bytes,
        });
    }
    if let Some(cut) = cut.filter(|c| c.damaged) {
        recs.push(Rec::JournalTailDamaged(crate::state::JournalTailCut {
            at_byte: cut.at_byte,
            cut_bytes: cut.cut_bytes,
        }));
    }
    let seqs: Vec<u64> = if writable {
        mark_state_file_for(&recs, state_file);
        journal.cut_tail_writing(&recs)?
    } else {
        let first = journal.next_seq();
        journal.advance_to(first + recs.len() as u64);
        (first..first + recs.len() as u64).collect()
    };
    for (seq, rec) in seqs.into_iter().zip(&recs).skip(prefix) {
        state.apply(seq, rec);
    }
    Ok(decided)
}

/// What an open tells when it could not write its decision about the cut tail (a full
/// metadata disk, `why`): which record, what was decided, and that it could not be written.
pub(super) fn unwritten_decision_cause(
    cut: Option<&CutRecord>,
    tail_cut: Option<TailCut>,
    decided: &Decided,
    why: &str,
) -> String {
    let record = match (cut, tail_cut) {
        (Some(c), _) => {
            let how = if c.damaged {
                "was whole and damaged after it was written"
            } else {
                "is torn (its append was cut by a kill or a power cut)"
            };
            format!(
                "the journal's last record (at byte {}, {} bytes) {how}",
                c.at_byte, c.cut_bytes
            )
        }
        (None, Some(t)) => format!(
            "the journal's last record (at byte {}, {} bytes) is torn or damaged",
            t.at_byte, t.cut_bytes
        ),
        (None, None) => "the journal's last record is torn or damaged".to_string(),
    };
    let mut decision: Vec<String> = Vec::new();
    if !decided.finished.is_empty() {
        decision.push(format!(
            "{} cut cached writes proven whole on disk finished",
            decided.finished.len()
        ));
    }
    if !decided.lost.is_empty() {
        let bytes: u64 = decided.lost.iter().map(|r| r.len_bytes).sum();
        decision.push(format!(
            "{bytes} bytes of cut writes it may have acknowledged, not provably whole on disk, recorded LOST (`exaraid store status` lists them)"
        ));
    }
    // Said of the journal's own write; beside bytes this decision records lost it read as
    // if nothing were.
    let why = why.trim_end_matches("; free space and retry, nothing acknowledged was lost");
    if decision.is_empty() {
        decision.push("no write it cut needs finishing or recording lost".to_string());
    }
    format!(
        "{record}; this open decided about it ({}) and must journal that decision in the record's place before anything else, but the store's metadata disk is full ({why})",
        decision.join("; ")
    )
}

/// Before the journal holds `recs`: the state file's header names the newest reader they
/// need (a `JournalTailDamaged`: session 13's), as `Store::journal` does for every record,
/// so that an older binary refuses the store instead of cutting them off as a torn tail
/// (and the damage warning with them). Best effort, as there: a failure (a full metadata
/// disk) fails nothing this binary replays; the next such record tries again.
fn mark_state_file_for(recs: &[Rec], (path, version): (&Path, &mut u32)) {
    let needed = recs.iter().map(Rec::reader_version).max().unwrap_or(0);
    if needed > *version && set_header_version(path, "state", needed).is_ok() {
        *version = needed;
    }
}

/// Which cut cached client writes are finished, which lost (nothing journaled yet).
fn decide(
    cut: &CutRecord,
    (backends, layout): (&[Box<dyn Backend>], &Layout),
    state: &State,
    plans: &[(usize, IoPlan)],
    fsync: bool,
) -> Decided {
    let undurable: BTreeSet<PlanId> = plans
        .iter()
        .map(|(_, p)| p.id)
        .filter(|id| !state.durable.contains(id))
        .collect();
    let mut decided = Decided::default();
    for (_, plan) in plans {
        if !undurable.contains(&plan.id) || !writes_cache_for_client(plan) {
            continue;
        }
        if state.wrote_nothing.contains(&plan.id) {
            continue; // refused before its first write: never acknowledged
        }
        let waits_for_cut = plan
            .after_plans
            .iter()
            .any(|p| undurable.contains(p) && !decided.finished.contains(p));
        if waits_for_cut {
            continue; // never began: it runs only after those are durable
        }
        if cache_writes_proven(backends, layout, state, plan) && synced(backends, plan, fsync) {
            decided.finished.push(plan.id);
        } else if cut.could_be_durable_of(plan.id) {
            decided.lost.extend(client_ranges(layout, plan));
        }
    }
    assert!(decided.finished.len() <= undurable.len());
    decided
}

/// A client write's plan that writes the cache zone (WCL cache stripe, delayed window).
fn writes_cache_for_client(plan: &IoPlan) -> bool {
    matches!(plan.cause, PlanCause::Write { .. })
        && plan
            .steps
            .iter()
            .any(|s| s.op == Op::Write && s.zone == PlanZone::Cache)
}

/// Does every block `plan` wrote read verified, holding what the plan journaled it would
/// write? Only a plan that wrote nothing but the cache zone, on OSSs up and not failed, and
/// took no copies of failed columns (a degraded write: its skipped column is not on disk).
fn cache_writes_proven(
    backends: &[Box<dyn Backend>],
    layout: &Layout,
    state: &State,
    plan: &IoPlan,
) -> bool {
    if state.copied_plans.contains(&plan.id) {
        return false;
    }
    let e = layout.element_bytes();
    let block = CHECKSUM_BLOCK_BYTES as u64;
    let crcs = JournaledCrcs::of(state, plan.id);
    for step in plan.steps.iter().filter(|s| s.op == Op::Write) {
        let usable = step.oss < backends.len()
            && backends[step.oss].healthy()
            && !state.failed_oss.contains(&step.oss);
        if step.zone != PlanZone::Cache || !usable {
            return false;
        }
        let mut at = 0u64;
        for piece in &step.pieces {
            let el = &piece.element;
            let addr = step.addr_bytes + at;
            at += el.len_bytes;
            if el.len_bytes == 0 {
                continue;
            }
            if addr % e != el.offset_bytes {
                return false; // not laid out as expected: nothing proven
            }
            let key = ElementKey {
                object: CACHE_OBJECT,
                zone: Zone::Cache,
                slot: addr / e,
            };
            let end = el.offset_bytes + el.len_bytes;
            let mut buf = vec![0u8; block as usize];
            for i in el.offset_bytes / block..end.div_ceil(block) {
                if backends[step.oss]
                    .read(key, (i * block) as usize, &mut buf)
                    .is_err()
                {
                    return false; // torn, rotten or gone: not whole
                }
                let (a, z) = (el.offset_bytes.max(i * block), end.min((i + 1) * block));
                if !crcs.block_holds_write(layout, (step.file, el), i, (a, z), &buf) {
                    return false;
                }
            }
        }
    }
    true
}

/// The crcs a cut plan journaled of what it writes.
struct JournaledCrcs<'s> {
    state: &'s State,
    plan: PlanId,
    parity: Vec<&'s crate::state::WriteParityCrcs>,
    window: Vec<&'s crate::state::WindowBlockCrcs>,
}

impl<'s> JournaledCrcs<'s> {
    fn of(state: &'s State, plan: PlanId) -> JournaledCrcs<'s> {
        JournaledCrcs {
            state,
            plan,
            parity: state
                .write_parity_crcs
                .iter()
                .filter(|w| w.plan == plan)
                .collect(),
            window: state
                .window_block_crcs
                .iter()
                .filter(|w| w.plan == plan)
                .collect(),
        }
    }

    /// Does `payload` (block `i` of the element of `el`, read verified) hold what the plan
    /// wrote at element bytes `[a, z)` of it? A window block by its whole-block crc; a WCL
    /// data block by the write's crc of those file bytes (every record of the plan and of
    /// `file`, s34d: was the plan's first record of any file, so a second record's bytes
    /// were unproven and another file's record was asked of this file's bytes); running
    /// parity by its piece crc.
    fn block_holds_write(
        &self,
        layout: &Layout,
        (file, el): (u64, &exaraid_plan::ElementRange),
        i: u64,
        (a, z): (u64, u64),
        payload: &[u8],
    ) -> bool {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let part = &payload[(a - i * block) as usize..(z - i * block) as usize];
        if !self.window.is_empty() {
            let crc = crc32c::crc32c(payload);
            return self
                .window
                .iter()
                .any(|w| w.crc_of(el.stripe, el.pos.row, el.pos.col, i) == Some(crc));
        }
        match el.cell {
            Cell::Data(d) => {
                let at = layout.file_offset(el.stripe, d, a);
                let data = WriteCrcRecords::of(self.state, self.plan, file);
                data.crc_of(at, at + (z - a)) == Some(crc32c::crc32c(part))
            }
            Cell::Parity(_) => {
                let crc = crc32c::crc32c(part);
                self.parity
                    .iter()
                    .flat_map(|w| w.pieces.iter())
                    .filter(|p| (p.stripe, p.row, p.col) == (el.stripe, el.pos.row, el.pos.col))
                    .any(|p| p.crc_of(a, z) == Some(crc))
            }
            Cell::Empty => false,
        }
    }
}

/// Sync the OSSs `plan` wrote (with `fsync`): the finished write's bytes are durable before
/// its `Durable` record is (a kill before this open left them in the page cache only).
fn synced(backends: &[Box<dyn Backend>], plan: &IoPlan, fsync: bool) -> bool {
    if !fsync {
        return true;
    }
    let osses: BTreeSet<usize> = plan
        .steps
        .iter()
        .filter(|s| s.op == Op::Write)
        .map(|s| s.oss)
        .collect();
    osses.iter().all(|&oss| backends[oss].sync().is_ok())
}

/// The file ranges of the client's bytes `plan` writes, each with the OSS it writes them to.
fn client_ranges(layout: &Layout, plan: &IoPlan) -> Vec<LostRange> {
    let mut out: Vec<LostRange> = Vec::new();
    for step in plan.steps.iter().filter(|s| s.op == Op::Write) {
        for piece in &step.pieces {
            let Some(Bytes::Client { file_offset_bytes }) = piece.source else {
                continue;
            };
            if piece.element.len_bytes == 0 {
                continue;
            }
            let oss = layout.locate(step.file, file_offset_bytes).oss;
            out.push(LostRange {
                file: step.file,
                offset_bytes: file_offset_bytes,
                len_bytes: piece.element.len_bytes,
                oss,
                token: CUT_ACKNOWLEDGEMENT_UNPROVEN.into(),
                cache_addr_bytes: None,
                made_final_by_rebuild: false,
            });
        }
    }
    out
}

impl Store {
    /// The operator accepts the damaged journal tails on record (after checking what the
    /// files changed last hold, see the warning): their warning ends. Returns how many.
    pub fn accept_journal_damage(&self) -> Result<usize, StoreError> {
        self.check_usable()?;
        let mut core = self.core.lock();
        let damaged = core.state.journal_tail_damage.len();
        if damaged > 0 {
            self.journal(&mut core, Rec::JournalTailAccepted, true)?;
        }
        assert!(core.state.journal_tail_damage.is_empty());
        Ok(damaged)
    }

    /// What the open's own parity check after a tail cut settles: everything, unless the cut
    /// record was damaged whole (a parity check cannot see what it did: the warning stays).
    pub(super) fn parity_check_settles_tail(&self) -> &'static str {
        if self.core.lock().state.journal_tail_damage.is_empty() {
            "nothing to do"
        } else {
            "the parity is consistent, but the cut record was damaged whole and no parity check tells what it did (see the warning)"
        }
    }

    /// While a damaged journal tail is on record: what happened, what the open did about it
    /// and which operator action ends the warning.
    pub(super) fn tail_damage_warning(&self, core: &Core) -> Option<String> {
        let damage = &core.state.journal_tail_damage;
        let last = damage.last()?;
        let earlier = match damage.len() {
            1 => String::new(),
            n => format!(" ({} earlier damaged records are on record too)", n - 1),
        };
        Some(format!(
            "the journal's last record, at byte {} ({} bytes), was whole and damaged after it was written (not torn by a kill or a power cut), and was cut off when the store opened{earlier}: what it recorded is unknown. It may have acknowledged a write: the open finished every cut cached write whose bytes it proved whole on disk, and recorded lost (`exaraid store status`) the bytes of those it could not prove; a record of another kind (a removal, a replacement, the end of a flush) cannot be checked. Check the files changed last (restore them from a backup where wrong), then run `exaraid store scrub {} --accept-journal-damage`: a clean scrub with that flag ends this warning",
            last.at_byte,
            last.cut_bytes,
            self.dir.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::recovery::write_crc_records::tests::state_with_two_records;

    /// Item (5) of "OPEN after session 33": `JournaledCrcs::of` took the plan's FIRST
    /// `WriteCrcs` record of any file, so a cache block holding the bytes a second record
    /// tells was not proven whole (the plan not taken as finished), and another file's
    /// record was asked of this file's bytes. Specification: every record of the plan and
    /// of the step's file is asked; another file's are not.
    #[test]
    fn a_cache_data_block_is_proven_by_the_plans_second_record_of_its_file_only() {
        let (state, first, second) = state_with_two_records();
        let code = exaraid_codes::Code::new(exaraid_codes::CodeSpec::raid5(3)).unwrap();
        let layout = Layout::new(&code, CHECKSUM_BLOCK_BYTES as u64, 4).unwrap();
        let g = layout.geometry().clone();
        let el = |d: usize, a: u64, len: u64| exaraid_plan::ElementRange {
            stripe: 0,
            pos: g.data_pos[d],
            cell: Cell::Data(d),
            offset_bytes: a,
            len_bytes: len,
        };
        // The second record (file 3, plan 7) is of file bytes 8192.., data column 2.
        assert_eq!(layout.file_offset(0, 2, 0), 2 * CHECKSUM_BLOCK_BYTES as u64);
        let mut block = vec![0u8; CHECKSUM_BLOCK_BYTES];
        block[..second.len()].copy_from_slice(&second);
        let crcs = JournaledCrcs::of(&state, 7);
        let part = (0, second.len() as u64);
        assert!(crcs.block_holds_write(&layout, (3, &el(2, 0, part.1)), 0, part, &block));
        // The first record still tells its own part (file bytes 100..1100, column 0).
        let mut block0 = vec![0u8; CHECKSUM_BLOCK_BYTES];
        block0[100..1100].copy_from_slice(&first);
        assert!(crcs.block_holds_write(&layout, (3, &el(0, 100, 1000)), 0, (100, 1100), &block0));
        // Not the write's bytes: not proven.
        block[5] ^= 1;
        assert!(!crcs.block_holds_write(&layout, (3, &el(2, 0, part.1)), 0, part, &block));
        // File 4's record of plan 7 tells file 4's bytes, never file 3's.
        // (Asked without the file, file 4's record over the same bytes disagrees with the
        // second one: the first assert above would fail.)
        let file4 = &state.write_crcs[2];
        assert_eq!(
            (file4.plans.as_slice(), file4.file, file4.offset_bytes),
            (&[7][..], 4, 8192)
        );
        let mut other = vec![0u8; CHECKSUM_BLOCK_BYTES];
        let bytes4 = crate::store::recovery::write_crc_records::tests::bytes_of(10, 3000);
        other[..3000].copy_from_slice(&bytes4);
        assert!(crcs.block_holds_write(&layout, (4, &el(2, 0, 3000)), 0, (0, 3000), &other));
        assert!(!crcs.block_holds_write(&layout, (3, &el(2, 0, 3000)), 0, (0, 3000), &other));
    }
}
