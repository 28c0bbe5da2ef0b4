//! Home columns checked against the old home parity before a write encodes new parity from
//! them (review s11r R11-9, the home part).
//!
//! Why: a stale home element (a lost write on one OSS, or its object file put back from an
//! older copy: old bytes under a valid checksum, the checksums seeded with the address, not
//! a version) passes every checksum; only the parity equations see it, and `scrub` reports
//! the stripe. A reconstruct-write (rmw, a delayed window's END) reads the columns it does
//! not write and encodes the new parity from them; a settle (`flush`, `rm`, ...) reads the
//! whole home stripe, lays the cached bytes over it and encodes the parity afresh. Both made
//! the stale bytes the stripe's data under parity computed from them: scrub clean, the
//! acknowledged bytes gone for good.
//!
//! What is checked: the planner's reconstruct-write reads the whole stripe (every data and
//! parity element) over each byte range where it reads an unwritten column
//! (`exaraid_plan::update`), so its reads are a codeword there; a settle reads every element
//! whole. The check and the location are stale_cache.rs's (`check_running_parity`): per
//! 4 KiB block, and where the code has two parities or more, the one column whose decode
//! from the others satisfies every equation is the stale one. A located stale column enters
//! the encode with its right bytes (a settle also writes them home; a write leaves the home
//! column as it is, for `scrub --repair`, and its parity then still disagrees with it there,
//! as before the write). Where no single column explains a block (raid5, or two stale
//! columns), the home bytes of that block that the write does not replace are unknown: a
//! client write is refused, nothing written (`scrub` names the stripe; failing the stale
//! OSS reads the acknowledged bytes); a settle or a delayed window's parity records them
//! lost (token `STALE_HOME`), never encodes them as if right and says nothing.
//!
//! Not checked (as before): a stripe with a column on an OSS out of service (its read is a
//! decode), one with bytes on record lost, and a settle's stripe that a cut write or an
//! interrupted settle left in flight (recovery decides those by its own proofs). Nor a
//! read-modify-write: it reads only the columns it writes and the parity, and does not
//! launder an unwritten stale column (the delta keeps the old parity's disagreement with
//! it); a stale *written* column is folded into its delta (docs/store.md Limits, R11-9).

use super::*;

/// The window token of a lost range whose home stripe disagreed with its parity where no
/// single stale column explains it (found by a settle or a delayed window's parity plan
/// before it encoded new parity from it).
pub(super) const STALE_HOME: &str =
    "none: its home stripe's parity disagreed with its data before new parity was computed from them, and no single stale column explains it";

/// Element ranges by position.
type RangesByPos = BTreeMap<Pos, Vec<(u64, u64)>>;

impl Store {
    /// A plan's reconstruct-writes checked before anything is written: each stripe whose
    /// parity the plan encodes from home reads (see the module docs). Located stale bytes
    /// replace what was read (the parity computes run again from them); an unlocated
    /// disagreement refuses a client write, or records the unknown home bytes lost.
    pub(super) fn check_reconstruct_reads(
        &self,
        plan: &IoPlan,
        read_bytes: &mut [Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
    ) -> Result<(), StoreError> {
        if self.kind == StrategyKind::Raid0 || self.tolerance() == 0 {
            return Ok(());
        }
        let stripes: BTreeSet<(u64, u64)> = plan
            .computes
            .iter()
            .filter(|c| c.method == exaraid_plan::ParityMethod::Encode)
            .map(|c| (c.file, c.stripe))
            .collect();
        for (file, stripe) in stripes {
            self.check_reconstructed_stripe(plan, (file, stripe), read_bytes, computed)?;
        }
        Ok(())
    }

    /// The read steps of `plan` that only a reconstruct-write's check uses (no compute and
    /// no write takes their bytes) of stripes that check would skip (a column out of
    /// service, bytes on record lost): not run. Why: those are the reads of the written
    /// columns' old bytes and of the old parity, which a reconstruct-write did not need,
    /// and in a row lost on record (its parity marked lost) they fail; the write of the
    /// lost bytes again, which clears the loss, must still run.
    pub(super) fn check_reads_not_needed(&self, plan: &IoPlan) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        if self.kind == StrategyKind::Raid0 || self.tolerance() == 0 {
            return out;
        }
        let encoded: BTreeSet<(u64, u64)> = plan
            .computes
            .iter()
            .filter(|c| c.method == exaraid_plan::ParityMethod::Encode)
            .map(|c| (c.file, c.stripe))
            .collect();
        let sdb = self.layout.stripe_data_bytes();
        let width = self.layout.geometry().cols;
        let unchecked: BTreeSet<(u64, u64)> = {
            let core = self.core.lock();
            encoded
                .into_iter()
                .filter(|&(file, stripe)| {
                    (0..width)
                        .any(|col| !self.backends[self.layout.oss_of(file, stripe, col)].healthy())
                        || !core.state.lost_in(file, stripe * sdb, sdb).is_empty()
                })
                .collect()
        };
        if unchecked.is_empty() {
            return out;
        }
        let mut used: BTreeSet<usize> = BTreeSet::new();
        let mut note = |b: &Bytes| {
            if let Bytes::Read { step, .. } = b {
                used.insert(*step);
            }
        };
        for c in &plan.computes {
            note(&c.base);
            for t in &c.terms {
                note(&t.new);
                note(&t.old);
            }
        }
        for step in &plan.steps {
            for piece in &step.pieces {
                if let Some(source) = &piece.source {
                    note(source);
                }
            }
        }
        for (i, step) in plan.steps.iter().enumerate() {
            let home = matches!(step.zone, PlanZone::Data | PlanZone::Parity);
            let only_unchecked = step
                .pieces
                .iter()
                .all(|p| unchecked.contains(&(step.file, p.element.stripe)));
            if step.op == Op::Read && home && !used.contains(&i) && only_unchecked {
                out.insert(i);
            }
        }
        out
    }

    fn check_reconstructed_stripe(
        &self,
        plan: &IoPlan,
        (file, stripe): (u64, u64),
        read_bytes: &mut [Option<Vec<u8>>],
        computed: &mut [Option<Vec<u8>>],
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        // Each home piece read of the stripe: (pos, element offset, length, step, offset in
        // the step's bytes), and per position the ranges read.
        let mut at: Vec<(Pos, u64, u64, usize, usize)> = Vec::new();
        let mut live: RangesByPos = BTreeMap::new();
        for (i, step) in plan.steps.iter().enumerate() {
            let home = matches!(step.zone, PlanZone::Data | PlanZone::Parity);
            if step.op != Op::Read || step.file != file || !home {
                continue;
            }
            let mut off = 0usize;
            for piece in &step.pieces {
                let el = &piece.element;
                if el.stripe == stripe {
                    if read_bytes[i].is_none() {
                        return Ok(()); // a check-only read not run: not checked
                    }
                    let r = live.entry(el.pos).or_default();
                    crate::state::add_range(r, el.offset_bytes, el.offset_bytes + el.len_bytes);
                    at.push((el.pos, el.offset_bytes, el.len_bytes, i, off));
                }
                off += el.len_bytes as usize;
            }
        }
        if live.is_empty() {
            return Ok(()); // parity from new data only: nothing read, nothing to check
        }
        // The planner reads every element over the same ranges (a codeword there); anything
        // else is not a checked reconstruct-write.
        let cells: Vec<Pos> = (0..g.rows)
            .flat_map(|row| (0..g.cols).map(move |col| Pos { row, col }))
            .filter(|&p| !matches!(g.cell(p), Cell::Empty))
            .collect();
        let first = live.get(&cells[0]).cloned().unwrap_or_default();
        if first.is_empty() || cells.iter().any(|p| live.get(p) != Some(&first)) {
            return Ok(());
        }
        // Only the blocks the reads reach are checked: a window of the stripe's elements
        // (a 128 KiB write into 1 MiB elements encodes 128 KiB per element, not 1 MiB).
        let lo = first[0].0 / block * block;
        let hi = (first[first.len() - 1].1.div_ceil(block) * block).min(e);
        assert!(
            lo < hi && (hi - lo).is_multiple_of(32),
            "a window of whole blocks"
        );
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, (hi - lo) as usize);
        for &(pos, o, n, i, off) in &at {
            let bytes = read_bytes[i].as_ref().expect("checked above");
            let a = (o - lo) as usize;
            buf.element_mut(pos)[a..a + n as usize].copy_from_slice(&bytes[off..off + n as usize]);
        }
        let window_of = |p: Pos| -> Vec<(u64, u64)> {
            let ranges = live.get(&p).map(|r| r.as_slice()).unwrap_or(&[]);
            ranges.iter().map(|&(a, z)| (a - lo, z - lo)).collect()
        };
        let out_of_service =
            (0..g.cols).any(|col| !self.backends[self.layout.oss_of(file, stripe, col)].healthy());
        let sdb = self.layout.stripe_data_bytes();
        let lost_here = !self
            .core
            .lock()
            .state
            .lost_in(file, stripe * sdb, sdb)
            .is_empty();
        if out_of_service || lost_here {
            return Ok(());
        }
        let check = self.check_running_parity(&buf, &window_of);
        if check.is_clean() {
            return Ok(());
        }
        for (p, a, right) in &check.fixes {
            // Window offsets back to element offsets.
            let a = a + lo;
            let z = a + right.len() as u64;
            for &(pos, o, n, i, off) in &at {
                let (s, t) = (a.max(o), z.min(o + n));
                if pos != *p || s >= t {
                    continue;
                }
                let bytes = read_bytes[i].as_mut().expect("read above");
                let from = off + (s - o) as usize;
                bytes[from..from + (t - s) as usize]
                    .copy_from_slice(&right[(s - a) as usize..(t - a) as usize]);
            }
        }
        // Computed (maybe while other reads ran) from the bytes as read: again, when needed.
        for (c, compute) in plan.computes.iter().enumerate() {
            if (compute.file, compute.stripe) == (file, stripe) {
                computed[c] = None;
            }
        }
        if check.unlocated_blocks.is_empty() {
            return Ok(());
        }
        // The data bytes of the unlocated blocks that this plan does not write: unknown.
        let mut written: RangesByPos = BTreeMap::new();
        let home_writes = plan
            .steps
            .iter()
            .filter(|s| s.op == Op::Write && s.zone == PlanZone::Data && s.file == file);
        for step in home_writes {
            for el in step.pieces.iter().map(|p| &p.element) {
                if el.stripe == stripe {
                    let r = written.entry(el.pos).or_default();
                    crate::state::add_range(r, el.offset_bytes, el.offset_bytes + el.len_bytes);
                }
            }
        }
        let size = self
            .core
            .lock()
            .state
            .file_by_id(file)
            .map_or(0, |(_, m)| m.size_bytes);
        let live_of = |p: Pos| live.get(&p).cloned().unwrap_or_default();
        let first_block = (lo / block) as usize;
        let unlocated: BTreeSet<usize> = check
            .unlocated_blocks
            .iter()
            .map(|i| i + first_block)
            .collect();
        let unknown =
            self.unknown_home_ranges((file, stripe, size), &unlocated, &live_of, &written);
        if unknown.is_empty() {
            return Ok(()); // the write replaces every byte of them
        }
        if matches!(plan.cause, exaraid_plan::PlanCause::Write { .. }) {
            let name = self
                .core
                .lock()
                .state
                .file_by_id(file)
                .map(|(n, _)| read::describe_file_name(n))
                .unwrap_or_else(|| format!("file #{file}"));
            let bytes: Vec<String> = unknown
                .iter()
                .map(|r| format!("{}..{}", r.offset_bytes, r.end_bytes()))
                .collect();
            return Err(StoreError::DataLost(format!(
                "this write was refused, nothing was written: {name} stripe {stripe}: its data and parity disagree in 4 KiB blocks {:?} (a stale element: a lost write, or an OSS object file put back from an older copy) and no single column explains it, so bytes {} cannot be told; the write would have computed new parity from them and made the disagreement permanent. `exaraid store scrub DIR` names the stripe; if you know which OSS lost writes, `exaraid store fail DIR --oss I` reads the acknowledged bytes (then `rebuild` it), or write the whole stripe (a full-stripe write reads nothing)",
                unlocated,
                bytes.join(", ")
            )));
        }
        let mut core = self.core.lock();
        self.journal(&mut core, Rec::Lost { ranges: unknown }, true)?;
        Ok(())
    }

    /// The file ranges of the data bytes in `blocks` (element blocks) of home stripe
    /// `(file, stripe)` inside `live_of` and outside `replaced`: bytes nobody can tell, as
    /// lost ranges (`STALE_HOME`), cut at the file's end (`size`).
    fn unknown_home_ranges(
        &self,
        (file, stripe, size): (u64, u64, u64),
        blocks: &BTreeSet<usize>,
        live_of: &dyn Fn(Pos) -> Vec<(u64, u64)>,
        replaced: &RangesByPos,
    ) -> Vec<LostRange> {
        let g = self.layout.geometry();
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let mut out = Vec::new();
        for (d, &pos) in g.data_pos.iter().enumerate() {
            let oss = self.layout.oss_of(file, stripe, pos.col);
            for &i in blocks {
                let (bs, be) = (i as u64 * block, ((i as u64 + 1) * block).min(e));
                let mut unknown: Vec<(u64, u64)> = Vec::new();
                for (a, z) in live_of(pos) {
                    let (a, z) = (a.max(bs), z.min(be));
                    if a < z {
                        crate::state::add_range(&mut unknown, a, z);
                    }
                }
                for &(a, z) in replaced.get(&pos).into_iter().flatten() {
                    crate::state::sub_range(&mut unknown, a, z);
                }
                for (a, z) in unknown {
                    let offset_bytes = self.layout.file_offset(stripe, d, a);
                    let len_bytes = (z - a).min(size.saturating_sub(offset_bytes));
                    if len_bytes > 0 {
                        out.push(LostRange {
                            file,
                            offset_bytes,
                            len_bytes,
                            oss,
                            token: STALE_HOME.into(),
                            cache_addr_bytes: None,
                        });
                    }
                }
            }
        }
        out
    }

    /// A settle's home stripe `buf` as read (before the cached bytes `cached`, element
    /// ranges by position, go over it), checked against its parity: located stale bytes
    /// corrected in `buf` (the settle writes them home with the stripe), and the home data
    /// bytes of blocks no single column explains that the cached bytes do not replace
    /// recorded lost. The caller checks only a stripe with nothing in flight.
    pub(super) fn check_settled_home(
        &self,
        core: &mut Core,
        (file, stripe): (u64, u64),
        buf: &mut StripeBuf,
        cached: &RangesByPos,
    ) -> Result<(), StoreError> {
        if self.kind == StrategyKind::Raid0 || self.tolerance() == 0 {
            return Ok(());
        }
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes as u64;
        let out_of_service =
            (0..g.cols).any(|col| !self.backends[self.layout.oss_of(file, stripe, col)].healthy());
        let sdb = self.layout.stripe_data_bytes();
        if out_of_service || !core.state.lost_in(file, stripe * sdb, sdb).is_empty() {
            return Ok(());
        }
        let whole = |p: Pos| -> Vec<(u64, u64)> {
            match g.cell(p) {
                Cell::Empty => Vec::new(),
                _ => vec![(0, e)],
            }
        };
        let check = self.check_running_parity(buf, &whole);
        if check.is_clean() {
            return Ok(());
        }
        for (p, a, right) in &check.fixes {
            let a = *a as usize;
            buf.element_mut(*p)[a..a + right.len()].copy_from_slice(right);
        }
        if check.unlocated_blocks.is_empty() {
            return Ok(());
        }
        let size = core.state.file_by_id(file).map_or(0, |(_, m)| m.size_bytes);
        let ranges = self.unknown_home_ranges(
            (file, stripe, size),
            &check.unlocated_blocks,
            &whole,
            cached,
        );
        if !ranges.is_empty() {
            self.journal(core, Rec::Lost { ranges }, true)?;
        }
        Ok(())
    }
}
