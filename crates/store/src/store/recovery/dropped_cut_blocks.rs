//! A cut WCL plan's cache blocks that a power cut dropped under a later durable plan's
//! running parity, proven by the cut plan's own crcs and decoded back (session 31, s31e,
//! review s30r R30-2).
//!
//! Why: where a later durable plan took a cut plan's stripe, recovery takes the cut plan's
//! writes there as on disk (`finished_by_later`), since the later plan's running parity
//! counts them. Before session 30 (s30b) a plan left its stripes before its own OSS syncs,
//! so in a journal an older binary wrote the later plan may have synced only the OSSs it
//! wrote: a power cut then dropped the cut plan's cache blocks on the others (old bytes
//! under a valid checksum, or a block that fails its checksum) beneath a synced running
//! parity that counts them. With two such columns no single stale column explains the
//! disagreement, and every acknowledged byte of the cache stripe was recorded LOST at the
//! first settle.
//!
//! The rule: each such block (on an OSS no later durable plan of the stripe synced) whose
//! bytes in the cut plan's range do not match the crc the plan journaled before its first
//! cache write (`Rec::WriteCrcs` for data, `Rec::WriteParityCrcs` for running parity) is
//! taken as erased; the block row is decoded with those columns erased, and the decode is
//! taken only where it proves itself: every erased block's bytes in the cut plan's range
//! match that plan's crc, every other live byte of the erased columns equals the bytes on
//! disk (they were synced before the cut plan wrote), and every parity equation left
//! holds. Then the cut plan's bytes are written back into those blocks and the OSS synced,
//! so the cache stripe agrees with its running parity again. Anything less (no crc on
//! record, a block that does not read beside them, more erased columns than the code
//! tolerates, a decode that fails a check) leaves the row as it was: the settle's check
//! then records it lost as before, never moves a guess home.
//!
//! Session 32 (s32d): a kill inside these writes is redone by the next open from the same
//! crcs (a torn block's bytes beside the part are compared as its payload holds them,
//! unverified: the same in both versions of the block); every crc record of the plan is
//! asked, and the parts are restored per cache stripe (generation) that holds them.

use super::*;

/// One block of a cut plan's cache write whose bytes on disk are not the plan's: its
/// position, checksum block, chunk `(oss, base)`, and the plan's element range in that block
/// with the crc32c it journaled for it.
struct DroppedPart {
    pos: Pos,
    block: usize,
    chunk: (usize, u64),
    part: (u64, u64),
    crc: u32,
}

/// Decoded bytes to write back, by `(oss, chunk base, position)`: `(element offset, bytes)`.
type Restores = BTreeMap<(usize, u64, Pos), Vec<(u64, Vec<u8>)>>;

/// Most dropped parts one open restores: a plan's cache writes are bounded by its steps,
/// and a journal's cut plans by the planner's queue; past this something else is wrong.
const DROPPED_PARTS_MAX: usize = 1 << 16;

/// Most crc records (`WriteCrcs` of a plan and file, or running parity pieces of a plan's
/// element) asked for one part. One write journals one `WriteCrcs` naming all its plans and
/// each plan one piece per parity element it writes, so one is expected; the state keeps
/// only plans not durable yet.
const CRC_RECORDS_MAX: usize = 1 << 10;

impl Store {
    /// Restore the cut WCL client plans' cache blocks a power cut dropped in stripes a later
    /// durable plan took (see the module docs). `later_synced`: per cut plan and stripe it
    /// took, the OSSs later durable plans of that stripe synced (their writes drain the cut
    /// plan's writes there, so those blocks are on disk).
    pub(super) fn restore_dropped_cut_cache_blocks(
        &self,
        core: &Core,
        undurable: &[IoPlan],
        later_synced: &HashMap<PlanId, BTreeMap<(u64, u64), BTreeSet<usize>>>,
    ) -> Result<(), StoreError> {
        if self.kind != StrategyKind::Wcl || self.tolerance() == 0 {
            return Ok(());
        }
        let mut dropped: BTreeMap<(u64, u64), Vec<DroppedPart>> = BTreeMap::new();
        let mut unknown: BTreeSet<(u64, u64)> = BTreeSet::new();
        let mut parts = 0usize;
        for (at, plan) in undurable.iter().enumerate() {
            if !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. }) {
                continue;
            }
            let Some(taken) = later_synced.get(&plan.id) else {
                continue;
            };
            let found = self.dropped_parts_of(core, plan, taken, &mut dropped, &mut unknown)?;
            parts += found;
            // Past the bound something else is wrong: leave every stripe as it was (the
            // settle's checks name what they cannot tell), never fail the open over it.
            if parts > DROPPED_PARTS_MAX {
                return Ok(());
            }
            // A later cut plan that wrote a block of this one: its bytes may have landed
            // over this plan's, so this plan's crc no longer tells that block (review of
            // session 31, G2): the stripe as before.
            for later in &undurable[at + 1..] {
                for (file, stripe) in cache_blocks_of(later, self.sb.element_bytes as u64)
                    .intersection(&cache_blocks_of(plan, self.sb.element_bytes as u64))
                    .map(|&(file, stripe, _, _)| (file, stripe))
                {
                    unknown.insert((file, stripe));
                }
            }
        }
        if parts == 0 {
            return Ok(());
        }
        for ((file, stripe), parts) in dropped {
            // A block of the cut plan that nothing on record tells: the stripe as before.
            if unknown.contains(&(file, stripe)) {
                continue;
            }
            // A recovery decided this stripe and journaled it (s30d): its record rules the
            // stripe, not the cut plan's older crcs (G2).
            if (core.state.recovery_decisions.iter()).any(|d| (d.file, d.stripe) == (file, stripe))
            {
                continue;
            }
            self.restore_dropped_in_stripe(core, (file, stripe), &parts)?;
        }
        Ok(())
    }

    /// The parts of `plan`'s cache writes in the stripes it `taken` (a later durable plan
    /// took them) on OSSs no such plan synced, whose bytes on disk do not match the crc the
    /// plan journaled. A part with no crc on record marks its stripe `unknown`.
    fn dropped_parts_of(
        &self,
        core: &Core,
        plan: &IoPlan,
        taken: &BTreeMap<(u64, u64), BTreeSet<usize>>,
        dropped: &mut BTreeMap<(u64, u64), Vec<DroppedPart>>,
        unknown: &mut BTreeSet<(u64, u64)>,
    ) -> Result<usize, StoreError> {
        let mut found = 0usize;
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let cache_writes =
            (plan.steps.iter()).filter(|s| s.op == Op::Write && s.zone == PlanZone::Cache);
        for step in cache_writes {
            if !self.backends[step.oss].healthy() || self.oss_failed(core, step.oss) {
                continue; // its column is decoded by its readers, not proven here
            }
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let here = at;
                at += el.len_bytes;
                let Some(synced) = taken.get(&(step.file, el.stripe)) else {
                    continue;
                };
                if synced.contains(&step.oss) || el.len_bytes == 0 {
                    continue;
                }
                let base = step.addr_bytes + here - el.pos.row as u64 * e - el.offset_bytes;
                let key = self.key(PlanZone::Cache, step.file, base + el.pos.row as u64 * e);
                let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
                assert!(z <= e, "a cache piece lies within its element");
                for i in a / block..z.div_ceil(block) {
                    let part = (a.max(i * block), z.min((i + 1) * block));
                    // Every record of the plan and file is asked (review of session 31,
                    // G5: only the first was), and they must agree.
                    let crc = match g.cell(el.pos) {
                        Cell::Data(d) => {
                            let at_file = self.layout.file_offset(el.stripe, d, part.0);
                            agreed_crc(
                                (core.state.write_crcs.iter())
                                    .filter(|w| w.plans.contains(&plan.id))
                                    .filter(|w| w.file == step.file)
                                    .map(|w| w.crc_of(at_file, at_file + (part.1 - part.0))),
                            )
                        }
                        Cell::Parity(_) => agreed_crc(
                            (core.state.write_parity_crcs.iter())
                                .filter(|w| w.plan == plan.id && w.file == step.file)
                                .flat_map(|w| w.pieces.iter())
                                .filter(|p| p.stripe == el.stripe && p.row == el.pos.row)
                                .filter(|p| p.col == el.pos.col)
                                .map(|p| p.crc_of(part.0, part.1)),
                        ),
                        Cell::Empty => None,
                    };
                    let Some(crc) = crc else {
                        unknown.insert((step.file, el.stripe));
                        continue;
                    };
                    let mut bytes = vec![0u8; (part.1 - part.0) as usize];
                    let landed =
                        match self.read_retrying(step.oss, key, part.0 as usize, &mut bytes) {
                            Ok(()) => crc32c::crc32c(&bytes) == crc,
                            Err(err) if err.is_unavailable() => {
                                unknown.insert((step.file, el.stripe));
                                continue;
                            }
                            Err(_) => false, // fails its checksum: erased like a dropped block
                        };
                    if !landed {
                        found += 1;
                        dropped
                            .entry((step.file, el.stripe))
                            .or_default()
                            .push(DroppedPart {
                                pos: el.pos,
                                block: i as usize,
                                chunk: (step.oss, base),
                                part,
                                crc,
                            });
                    }
                }
            }
        }
        Ok(found)
    }

    /// Decode and prove the dropped parts of one stripe's cache stripe, block row by block
    /// row, and write back the rows that prove themselves (see the module docs).
    fn restore_dropped_in_stripe(
        &self,
        core: &Core,
        (file, stripe): (u64, u64),
        parts: &[DroppedPart],
    ) -> Result<(), StoreError> {
        // Each part in the cache stripe (generation) whose chunk at its column is the
        // part's: a home stripe may have a destaging cache stripe beside its open one, and
        // the cut plans' parts may lie in both (review of session 31, G5: the stripe was
        // skipped unless one generation held every part). Chunks are never shared between
        // generations; a part in none or in two is told by nothing: the stripe as before.
        let generations = self.cache_generations(file, stripe);
        let mut by_generation: Vec<Vec<&DroppedPart>> = vec![Vec::new(); generations.len()];
        for p in parts {
            let holding: Vec<usize> = (generations.iter().enumerate())
                .filter(|(_, (chunks, _))| chunks.get(&p.pos.col) == Some(&p.chunk))
                .map(|(at, _)| at)
                .collect();
            let [at] = holding[..] else {
                return Ok(());
            };
            by_generation[at].push(p);
        }
        assert_eq!(
            by_generation.iter().map(Vec::len).sum::<usize>(),
            parts.len(),
            "each dropped part lies in one cache stripe"
        );
        for (generation, parts) in generations.iter().zip(&by_generation) {
            if !parts.is_empty() {
                self.restore_dropped_in_generation(core, (file, stripe), generation, parts)?;
            }
        }
        Ok(())
    }

    /// `restore_dropped_in_stripe` for the parts in one cache stripe (`generation`).
    fn restore_dropped_in_generation(
        &self,
        core: &Core,
        (file, stripe): (u64, u64),
        generation: &stale_cache::CacheGeneration,
        parts: &[&DroppedPart],
    ) -> Result<(), StoreError> {
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        // A stripe that does not read is another fault: left as before (review G3).
        let Ok(Some(checked)) =
            self.read_and_check_cache_stripe(Some(core), file, stripe, generation, false)
        else {
            return Ok(());
        };
        let g = self.layout.geometry().clone();
        // The bytes on disk the decode must match beside the parts: as read, and for a
        // dropped block that failed its checksum, its live bytes as its payload holds them
        // unverified. Why (review of session 31: a kill inside this restore's own writes
        // left a torn block the next open named LOST): the restore writes each block whole
        // with the bytes beside the part unchanged (`rest_agrees`), so a block it tore
        // (payload without checksum, or cut at a page boundary) still shows those bytes in
        // either version; its part is proven by the crc as before. A block that fails for
        // another reason (rot beside the part) shows other bytes there: the row as before.
        let mut on_disk = checked.read.clone();
        for p in parts
            .iter()
            .filter(|p| checked.erased.contains(&(p.pos, p.block)))
        {
            let key = self.key(
                PlanZone::Cache,
                file,
                p.chunk.1 + p.pos.row as u64 * e as u64,
            );
            let mut element = vec![0u8; e];
            if self.backends[p.chunk.0]
                .read_unverified(key, &mut element)
                .is_err()
            {
                continue; // zeros, as read: only a decode of zeros there agrees
            }
            let (bs, be) = (
                (p.block * block) as u64,
                ((p.block + 1) * block).min(e) as u64,
            );
            for &(a, z) in checked.live_of(&g, p.pos) {
                let (a, z) = (a.max(bs) as usize, z.min(be) as usize);
                if a < z {
                    on_disk.element_mut(p.pos)[a..z].copy_from_slice(&element[a..z]);
                }
            }
        }
        let mut rows: BTreeMap<usize, Vec<&DroppedPart>> = BTreeMap::new();
        for &p in parts {
            rows.entry(p.block).or_default().push(p);
        }
        let mut writes: Restores = BTreeMap::new();
        for (i, row_parts) in rows {
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            let dropped_at: BTreeSet<Pos> = row_parts.iter().map(|p| p.pos).collect();
            // A block that did not read beside them is another fault: not decided here.
            if (checked.erased.iter()).any(|&(p, j)| j == i && !dropped_at.contains(&p)) {
                continue;
            }
            let cols: Vec<usize> = dropped_at
                .iter()
                .map(|p| p.col)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if cols.len() > self.tolerance() {
                continue;
            }
            let mut trial = checked.read.clone();
            if self.code.decode(&mut trial, &cols).is_err() {
                continue;
            }
            // Every dropped part is the cut plan's bytes, by its crc.
            let crcs_hold = (row_parts.iter()).all(|p| {
                let (a, z) = (p.part.0 as usize, p.part.1 as usize);
                crc32c::crc32c(&trial.element(p.pos)[a..z]) == p.crc
            });
            // Every other byte of the erased columns in this row is as on disk (synced
            // before the cut plan wrote, or nothing: zeros outside live ranges; `on_disk`).
            let rest_agrees = cols.iter().all(|&col| {
                (0..g.rows).all(|row| {
                    let pos = Pos { row, col };
                    let mut rest = vec![(bs as u64, be as u64)];
                    for p in row_parts.iter().filter(|p| p.pos == pos) {
                        crate::state::sub_range(&mut rest, p.part.0, p.part.1);
                    }
                    rest.iter().all(|&(a, z)| {
                        let (a, z) = (a as usize, z as usize);
                        trial.element(pos)[a..z] == on_disk.element(pos)[a..z]
                    })
                })
            });
            // Every parity equation holds on the decoded row (none is left to fail where the
            // erased columns use up the tolerance: then the crcs are the proof).
            let mut encoded = trial.clone();
            let equations_hold = self.code.encode(&mut encoded).is_ok()
                && (g.parity_pos.iter())
                    .all(|p| encoded.element(*p)[bs..be] == trial.element(*p)[bs..be]);
            if !(crcs_hold && rest_agrees && equations_hold) {
                continue;
            }
            // The whole block from the proven decode (its rest equals the checked bytes on
            // disk, `rest_agrees`): never the raw bytes around the part, which may be the
            // very fault that made the block fail its checksum (review G1).
            for p in row_parts {
                let fixes = writes.entry((p.chunk.0, p.chunk.1, p.pos)).or_default();
                if !fixes.iter().any(|(a, _)| *a == bs as u64) {
                    fixes.push((bs as u64, trial.element(p.pos)[bs..be].to_vec()));
                }
            }
        }
        let mut synced: BTreeSet<usize> = BTreeSet::new();
        for ((oss, base, pos), fixes) in writes {
            let key = self.key(PlanZone::Cache, file, base + pos.row as u64 * e as u64);
            for (at, bytes) in &fixes {
                assert!(
                    *at as usize % block == 0 && *at as usize + bytes.len() <= e,
                    "a restore writes whole checksum blocks of its element"
                );
                self.backends[oss]
                    .write(key, *at as usize, bytes)
                    .map_err(|err| {
                        StoreError::Io(format!(
                            "OSS {oss}: restoring a dropped cache element: {err}"
                        ))
                    })?;
            }
            synced.insert(oss);
        }
        for oss in synced {
            self.backends[oss].sync().map_err(|err| {
                StoreError::Io(format!("OSS {oss}: syncing restored cache blocks: {err}"))
            })?;
        }
        Ok(())
    }
}

/// The crc the records asked tell of one part: `Some` where at least one record tells it and
/// every one that does agrees, `None` otherwise (nothing on record, or records that disagree:
/// no proof). Past `CRC_RECORDS_MAX` records something else is wrong: `None`.
pub(super) fn agreed_crc(told: impl Iterator<Item = Option<u32>>) -> Option<u32> {
    let mut agreed = None;
    for (asked, crc) in told.enumerate() {
        if asked >= CRC_RECORDS_MAX {
            return None;
        }
        match (agreed, crc) {
            (_, None) => {}
            (None, Some(c)) => agreed = Some(c),
            (Some(a), Some(c)) if a == c => {}
            (Some(_), Some(_)) => return None,
        }
    }
    agreed
}

/// The cache blocks `plan` writes: `(file, stripe, position, 4 KiB block within the element)`.
fn cache_blocks_of(plan: &IoPlan, element_bytes: u64) -> BTreeSet<(u64, u64, Pos, u64)> {
    let block = CHECKSUM_BLOCK_BYTES as u64;
    let mut blocks = BTreeSet::new();
    let cache_writes =
        (plan.steps.iter()).filter(|s| s.op == Op::Write && s.zone == PlanZone::Cache);
    for step in cache_writes {
        for piece in &step.pieces {
            let el = &piece.element;
            let (a, z) = (el.offset_bytes, el.offset_bytes + el.len_bytes);
            assert!(z <= element_bytes, "a cache piece lies within its element");
            for i in a / block..z.div_ceil(block) {
                blocks.insert((step.file, el.stripe, el.pos, i));
            }
        }
    }
    blocks
}
