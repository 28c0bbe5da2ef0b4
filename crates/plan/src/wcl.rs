//! WCL basic avoidance (seed 004 section 2.1): parity from new data only.
//!
//! "the WCL creates a cache zone or working zone using the available space in the storage
//! devices connected to each OSS, and redirects all write operations to it. This effectively
//! allows the WCL to treat all data writes as new data writes instead of updates, which
//! allows to compute the parities based only on the new data written (i.e., avoiding the
//! unnecessary reads of old data blocks). Once a stripe has been completely written and its
//! parity checksums computed, the WCL simply moves (i.e., rewrites) the stripe back to its
//! original placement into the OSS."
//!
//! # The model
//!
//! - The first write into home stripe `s` of a file opens a *cache stripe*: one cache chunk
//!   (one column: `rows * element_bytes`) in the cache zone of each of the stripe's OSSs
//!   (data and parity OSSs alike), so each element keeps its OSS and the cache stripe has the
//!   same failure independence as the home stripe.
//! - A write puts its new data into the cache chunk at the element's position. The cache
//!   stripe has its own *running parity*: the parity of the bytes written into the cache
//!   stripe so far, unwritten bytes counting as zeros. Because cache bytes start as "nothing",
//!   the new running parity is `old running parity ^ coef * new data`: no old data is read.
//! - So a write inside one element costs, on the critical path (seed: "using the WCL
//!   approach requires a parity for each write (a read and a write to the Parity OSS)"):
//!   1. write the new data into the cache zone of the data OSS;
//!   2. read the running parity from the cache zone of each parity OSS;
//!   3. write the new running parity back there.
//!
//!   RAID-5: 3 ops ("reducing the number of operations when writing new data by 25 % in
//!   RAID-5"), RAID-6 with P+Q: 5 ops ("16 % in RAID-6"). Exception: the first write that
//!   touches a parity byte range of a cache stripe has no running parity to read there
//!   (it is zero), so it costs 2 (RAID-5) / 3 (RAID-6) ops. The seed counts every write as
//!   3 / 5; with the seed's 512-wide stripes the difference is 1 write in 511 per range.
//! - An interval index per data element tracks what the cache stripe holds; when every data
//!   element is fully written the stripe is *complete*: its running parity is the full
//!   parity, and a background destage plan moves it home ("full-stripe reads (probably cached
//!   in the OSS) and writes that can happen out of the critical path"): per column, one
//!   cache read and one home write. The destage waits for every write plan that filled the
//!   stripe (`after_plans`). A later write to the same home stripe opens a new cache stripe.
//! - A write that overwrites bytes already in the open cache stripe (not the seed's
//!   non-overwriting workload) is planned as a read-modify-write inside the cache stripe:
//!   the old cache bytes are read and enter the parity delta. Correct, and it costs the one
//!   extra read the seed's log/versioning layer would avoid.
//! - Reads: [`Strategy::lookup`] gives the newest copy of each byte: the open cache stripe,
//!   else a cache stripe still being destaged (until `on_complete` of its destage plan), else
//!   home.

use crate::cache::CacheAllocator;
use crate::interval::IntervalSet;
use crate::layout::{ElementRange, Layout};
use crate::plan::{
    Bytes, IoPlan, Op, ParityCompute, ParityMethod, ParityTerm, Piece, PlanBuilder, PlanCause,
    PlanKind, StepId, Zone,
};
use crate::strategy::*;
use crate::update::shift;
use crate::{FileId, PlanId};
use exaraid_codes::{Cell, Pos};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One home stripe's copy in the cache zone.
#[derive(Clone, Debug)]
struct CacheStripe {
    /// Cache-zone address of the chunk on each code column's OSS.
    chunk_addr_bytes: Vec<u64>,
    /// Bytes written, per data element (element coordinates).
    written: Vec<IntervalSet>,
    /// Bytes of the running parity that exist, per parity element.
    parity_init: Vec<IntervalSet>,
    /// Write plans not yet complete that put bytes into this cache stripe (its destage
    /// runs after them).
    writers: Vec<PlanId>,
    /// Each incomplete write's data range `(plan, data element, start, end)`, in plan
    /// order: with `settled`, what `written` is made of, so that recovery can take back the
    /// writes a crash cut (`forget_writes`). One entry per element range a write touched in
    /// this stripe; at most `CACHE_STRIPE_WRITES_MAX` (see there).
    writes: Vec<(PlanId, usize, u64, u64)>,
    /// Bytes written by complete writes, per data element. Why apart from `writes`: a
    /// complete write is durable, so a crash never takes it back; merging its ranges here
    /// when it completes keeps `writes` to the writes in flight (it grew by one entry per
    /// write for as long as the stripe stayed open: review note 3, "unbounded").
    settled: Vec<IntervalSet>,
}

/// Most ranges of incomplete writes one cache stripe keeps (`CacheStripe::writes`). Writes
/// leave it when they complete, so only writes in flight count: reaching it takes thousands
/// of writes into one stripe whose completions are all held back (the store holds them
/// back while reads run). Past it a write into the stripe is refused, nothing changed,
/// with `PlanError::CacheStripeBusy` (retry once writes complete).
pub const CACHE_STRIPE_WRITES_MAX: usize = 4096;

/// New bytes of one data element range in the cache stripe, with their old value.
struct Entry {
    data: usize,
    a: u64,
    z: u64,
    new: Bytes,
    /// Zero for a first write, a cache read for an overwrite.
    old: Bytes,
    old_read: Option<StepId>,
}

/// The WCL write path.
pub struct Wcl {
    layout: Layout,
    next_plan: PlanId,
    clock: Clock,
    alloc: CacheAllocator,
    open: HashMap<(FileId, u64), CacheStripe>,
    /// Cache stripes being moved home, oldest first, by home stripe.
    destaging: HashMap<(FileId, u64), Vec<(PlanId, CacheStripe)>>,
    destage_plans: HashMap<PlanId, (FileId, u64)>,
    /// Incomplete write plans -> the home stripes whose cache stripe holds their ranges
    /// (`CacheStripe::writes`), so that their completion merges them into `settled`.
    write_stripes: HashMap<PlanId, Vec<(FileId, u64)>>,
}

impl Wcl {
    pub fn new(layout: Layout) -> Wcl {
        let alloc = CacheAllocator::new(layout.oss_count(), layout.column_bytes());
        Wcl {
            layout,
            next_plan: 0,
            clock: Clock::default(),
            alloc,
            open: HashMap::new(),
            destaging: HashMap::new(),
            destage_plans: HashMap::new(),
            write_stripes: HashMap::new(),
        }
    }

    /// Cache stripes currently open (partially written).
    pub fn open_cache_stripes(&self) -> usize {
        self.open.len()
    }

    /// Highest cache-zone address used on each OSS: the cache space this workload needs.
    pub fn cache_high_water_bytes(&self) -> &[u64] {
        self.alloc.high_water_bytes()
    }

    fn cache_addr(&self, cs: &CacheStripe, pos: Pos, offset_bytes: u64) -> u64 {
        cs.chunk_addr_bytes[pos.col] + pos.row as u64 * self.layout.element_bytes() + offset_bytes
    }

    fn plan_id(&mut self) -> PlanId {
        let id = self.next_plan;
        self.next_plan += 1;
        id
    }

    /// Plan the part of a write that falls into one stripe: data into the cache stripe and
    /// its running parity updated from the new data.
    fn plan_stripe(
        &mut self,
        b: &mut PlanBuilder,
        plan: PlanId,
        file: FileId,
        stripe: u64,
        pieces: &[(u64, ElementRange)],
    ) -> Option<CacheStripe> {
        let layout = &self.layout;
        let g = layout.geometry();
        let e_bytes = layout.element_bytes();
        // Take the cache stripe out of the index while planning (no clone on the hot path).
        let mut cs = match self.open.remove(&(file, stripe)) {
            Some(cs) => cs,
            None => CacheStripe {
                chunk_addr_bytes: (0..layout.width())
                    .map(|c| self.alloc.alloc(layout.oss_of(file, stripe, c)))
                    .collect(),
                written: vec![IntervalSet::new(); g.data_count()],
                parity_init: vec![IntervalSet::new(); g.parity_count()],
                writers: Vec::new(),
                writes: Vec::new(),
                settled: vec![IntervalSet::new(); g.data_count()],
            },
        };

        // 1. New data into the cache chunk of its OSS (old cache bytes read first if overwritten).
        let mut entries: Vec<Entry> = Vec::new();
        for &(file_off, e) in pieces {
            let Cell::Data(d) = e.cell else {
                unreachable!("split yields data pieces")
            };
            let oss = layout.oss_of(file, stripe, e.pos.col);
            let mut after = Vec::new();
            for (a, z, covered) in cs.written[d].split(e.offset_bytes, e.offset_bytes + e.len_bytes)
            {
                let new = Bytes::Client {
                    file_offset_bytes: file_off + (a - e.offset_bytes),
                };
                let (old, old_read) = if covered {
                    let range = ElementRange {
                        offset_bytes: a,
                        len_bytes: z - a,
                        ..e
                    };
                    let s = b.read(
                        oss,
                        Zone::Cache,
                        file,
                        self.cache_addr(&cs, e.pos, a),
                        range,
                    );
                    after.push(s);
                    (
                        Bytes::Read {
                            step: s,
                            offset_bytes: 0,
                        },
                        Some(s),
                    )
                } else {
                    (Bytes::Zero, None)
                };
                entries.push(Entry {
                    data: d,
                    a,
                    z,
                    new,
                    old,
                    old_read,
                });
            }
            b.write(
                oss,
                Zone::Cache,
                file,
                self.cache_addr(&cs, e.pos, e.offset_bytes),
                e,
                Bytes::Client {
                    file_offset_bytes: file_off,
                },
                after,
            );
        }

        // 2. Running parity: for each parity containing a written element, read what exists
        //    of it over the written ranges, add coef * (new ^ old), write it back.
        let affected: BTreeSet<usize> = entries
            .iter()
            .flat_map(|en| g.data_parities[en.data].iter().copied())
            .collect();
        let mut new_init: Vec<(usize, u64, u64)> = Vec::new();
        for p in affected {
            // Terms are sorted by data index: binary search instead of a map (512-wide stripes).
            let parity_terms = &g.parity_terms[p];
            let coef_of = |d: usize| {
                parity_terms
                    .binary_search_by_key(&d, |t| t.data)
                    .ok()
                    .map(|i| parity_terms[i].coef)
            };
            let mine: Vec<&Entry> = entries
                .iter()
                .filter(|en| coef_of(en.data).is_some())
                .collect();
            let mut cuts: BTreeSet<u64> = BTreeSet::new();
            for en in &mine {
                cuts.insert(en.a);
                cuts.insert(en.z);
            }
            let (lo, hi) = (*cuts.first().unwrap(), *cuts.last().unwrap());
            for (a, z) in cs.parity_init[p].iter() {
                for x in [a, z] {
                    if lo < x && x < hi {
                        cuts.insert(x);
                    }
                }
            }
            let cuts: Vec<u64> = cuts.into_iter().collect();
            let segments: Vec<(u64, u64)> = cuts
                .windows(2)
                .map(|w| (w[0], w[1]))
                .filter(|&(a, z)| mine.iter().any(|en| en.a <= a && z <= en.z))
                .collect();
            let ppos = g.parity_pos[p];
            let poss = layout.oss_of(file, stripe, ppos.col);
            let prange = |a: u64, z: u64| ElementRange {
                stripe,
                pos: ppos,
                cell: Cell::Parity(p),
                offset_bytes: a,
                len_bytes: z - a,
            };
            // Reads of the existing running parity, one per contiguous initialised run.
            let mut reads: Vec<(u64, u64, StepId)> = Vec::new();
            for &(a, z) in &segments {
                if !cs.parity_init[p].covers(a, z) {
                    continue;
                }
                match reads.last_mut() {
                    Some(last) if last.1 == a => {
                        // Extend the previous read step in place: it is contiguous.
                        let s = last.2;
                        last.1 = z;
                        let st = &mut b.steps[s];
                        st.len_bytes += z - a;
                        st.pieces.push(Piece {
                            element: prange(a, z),
                            source: None,
                        });
                    }
                    _ => {
                        let s = b.read(
                            poss,
                            Zone::Cache,
                            file,
                            self.cache_addr(&cs, ppos, a),
                            prange(a, z),
                        );
                        reads.push((a, z, s));
                    }
                }
            }
            let mut pieces_out: Vec<Piece> = Vec::new();
            let mut write_after: Vec<StepId> = Vec::new();
            for &(a, z) in &segments {
                let mut after = Vec::new();
                let base = match reads.iter().find(|r| r.0 <= a && z <= r.1) {
                    Some(&(ra, _, s)) => {
                        after.push(s);
                        Bytes::Read {
                            step: s,
                            offset_bytes: a - ra,
                        }
                    }
                    None => Bytes::Zero,
                };
                let mut terms = Vec::new();
                for en in mine.iter().filter(|en| en.a <= a && z <= en.z) {
                    if let Some(s) = en.old_read {
                        after.push(s);
                    }
                    terms.push(ParityTerm {
                        data: en.data,
                        coef: coef_of(en.data).expect("term"),
                        new: shift(en.new, a - en.a),
                        old: shift(en.old, a - en.a),
                    });
                }
                after.sort_unstable();
                after.dedup();
                write_after.extend(after.iter().copied());
                let c = b.compute(ParityCompute {
                    file,
                    stripe,
                    parity: p,
                    offset_bytes: a,
                    len_bytes: z - a,
                    method: ParityMethod::Accumulate,
                    base,
                    terms,
                    after,
                });
                pieces_out.push(Piece {
                    element: prange(a, z),
                    source: Some(Bytes::Computed {
                        compute: c,
                        offset_bytes: 0,
                    }),
                });
                new_init.push((p, a, z));
            }
            write_after.sort_unstable();
            write_after.dedup();
            // One running-parity write per contiguous run of segments.
            for run in crate::plan::contiguous_runs(pieces_out) {
                let addr = self.cache_addr(&cs, ppos, run[0].element.offset_bytes);
                b.step(
                    poss,
                    Op::Write,
                    Zone::Cache,
                    file,
                    addr,
                    run,
                    write_after.clone(),
                );
            }
        }

        // 3. Index update; a complete stripe leaves the open set for destaging.
        for en in &entries {
            cs.written[en.data].insert(en.a, en.z);
            cs.writes.push((plan, en.data, en.a, en.z));
        }
        for (p, a, z) in new_init {
            cs.parity_init[p].insert(a, z);
        }
        cs.writers.push(plan);
        assert!(
            cs.writes.len() <= CACHE_STRIPE_WRITES_MAX,
            "on_write refuses writes past the limit"
        );
        self.write_stripes
            .entry(plan)
            .or_default()
            .push((file, stripe));
        let complete = cs.written.iter().all(|w| w.covers(0, e_bytes));
        if complete {
            Some(cs)
        } else {
            self.open.insert((file, stripe), cs);
            None
        }
    }

    /// Background plan moving a complete cache stripe home: per column and run of rows of
    /// one kind, one cache read and one home write.
    fn destage(&mut self, file: FileId, stripe: u64, cs: CacheStripe) -> IoPlan {
        let layout = &self.layout;
        let g = layout.geometry();
        let e_bytes = layout.element_bytes();
        assert!(
            cs.parity_init.iter().all(|p| p.covers(0, e_bytes)),
            "a complete cache stripe has its full running parity"
        );
        let mut b = PlanBuilder::new();
        for col in 0..layout.width() {
            let oss = layout.oss_of(file, stripe, col);
            let mut row = 0;
            while row < layout.rows() {
                let kind = |r: usize| match g.cell(Pos { row: r, col }) {
                    Cell::Data(_) => Some(Zone::Data),
                    Cell::Parity(_) => Some(Zone::Parity),
                    Cell::Empty => None,
                };
                let Some(zone) = kind(row) else {
                    row += 1;
                    continue;
                };
                let mut end = row + 1;
                while end < layout.rows() && kind(end) == Some(zone) {
                    end += 1;
                }
                let elements: Vec<ElementRange> = (row..end)
                    .map(|r| {
                        let pos = Pos { row: r, col };
                        ElementRange {
                            stripe,
                            pos,
                            cell: g.cell(pos),
                            offset_bytes: 0,
                            len_bytes: e_bytes,
                        }
                    })
                    .collect();
                let start = Pos { row, col };
                let read_addr = self.cache_addr(&cs, start, 0);
                let read = b.step(
                    oss,
                    Op::Read,
                    Zone::Cache,
                    file,
                    read_addr,
                    elements
                        .iter()
                        .map(|&element| Piece {
                            element,
                            source: None,
                        })
                        .collect(),
                    Vec::new(),
                );
                let pieces = elements
                    .iter()
                    .enumerate()
                    .map(|(i, &element)| Piece {
                        element,
                        source: Some(Bytes::Read {
                            step: read,
                            offset_bytes: i as u64 * e_bytes,
                        }),
                    })
                    .collect();
                b.step(
                    oss,
                    Op::Write,
                    zone,
                    file,
                    layout.home_addr(stripe, start, 0),
                    pieces,
                    vec![read],
                );
                row = end;
            }
        }
        b.coalesce();
        let id = self.plan_id();
        let plan = b.finish(
            id,
            PlanKind::Background,
            PlanCause::Destage { file, stripe },
            cs.writers.clone(),
        );
        self.destaging
            .entry((file, stripe))
            .or_default()
            .push((id, cs));
        self.destage_plans.insert(id, (file, stripe));
        plan
    }
}

impl Strategy for Wcl {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Wcl
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        check_write(&self.layout, write)?;
        self.clock.advance(now_ns)?;
        let pieces = self.layout.split(write.offset_bytes, write.len_bytes)?;
        let mut by_stripe: BTreeMap<u64, Vec<(u64, ElementRange)>> = BTreeMap::new();
        for (file_off, e) in pieces {
            by_stripe.entry(e.stripe).or_default().push((file_off, e));
        }
        // Before anything changes: a write adds at most one range per piece it writes.
        for (&stripe, pieces) in &by_stripe {
            let in_flight = self
                .open
                .get(&(write.file, stripe))
                .map_or(0, |cs| cs.writes.len());
            if in_flight + pieces.len() > CACHE_STRIPE_WRITES_MAX {
                return Err(PlanError::CacheStripeBusy {
                    file: write.file,
                    stripe,
                    ranges: in_flight as u64,
                    max: CACHE_STRIPE_WRITES_MAX as u64,
                });
            }
        }
        let id = self.plan_id();
        let mut b = PlanBuilder::new();
        let mut completed = Vec::new();
        for (stripe, pieces) in by_stripe {
            if let Some(cs) = self.plan_stripe(&mut b, id, write.file, stripe, &pieces) {
                completed.push((stripe, cs));
            }
        }
        b.coalesce();
        let mut plans = vec![b.finish(
            id,
            PlanKind::Foreground,
            PlanCause::Write {
                client: write.client,
                file: write.file,
            },
            Vec::new(),
        )];
        for (stripe, cs) in completed {
            plans.push(self.destage(write.file, stripe, cs));
        }
        Ok(plans)
    }

    fn on_hint(&mut self, _hint: &Hint, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Err(PlanError::HintNotSupported { strategy: "wcl" })
    }

    fn on_tick(&mut self, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        self.clock.advance(now_ns)?;
        Ok(Vec::new())
    }

    fn on_complete(&mut self, plan: PlanId) -> Result<Vec<IoPlan>, PlanError> {
        if plan >= self.next_plan {
            return Err(PlanError::UnknownPlan { plan });
        }
        if let Some(keys) = self.write_stripes.remove(&plan) {
            // A complete write is durable: its ranges can never be taken back.
            for key in keys {
                let layers = self.open.get_mut(&key).into_iter().chain(
                    self.destaging
                        .get_mut(&key)
                        .into_iter()
                        .flat_map(|l| l.iter_mut().map(|(_, cs)| cs)),
                );
                for cs in layers {
                    for &(p, d, a, z) in &cs.writes {
                        if p == plan {
                            cs.settled[d].insert(a, z);
                        }
                    }
                    cs.writes.retain(|w| w.0 != plan);
                    cs.writers.retain(|&w| w != plan);
                }
            }
        }
        if let Some(key) = self.destage_plans.remove(&plan) {
            let list = self.destaging.get_mut(&key).expect("destage recorded");
            let i = list
                .iter()
                .position(|(p, _)| *p == plan)
                .expect("destage recorded");
            let (_, cs) = list.remove(i);
            if list.is_empty() {
                self.destaging.remove(&key);
            }
            for (col, &addr) in cs.chunk_addr_bytes.iter().enumerate() {
                self.alloc.free(self.layout.oss_of(key.0, key.1, col), addr);
            }
        }
        Ok(Vec::new())
    }

    /// A cut write's cache bytes were maybe never written: its slot holds zeros or an older
    /// cache stripe's stale bytes there, neither the old nor the new bytes of the file. So its
    /// ranges read from whatever held them before it (an older cache stripe, or home), unless
    /// another write, not cut, wrote them into the same cache stripe (then the slot holds
    /// that write's bytes or the cut one's, both right). The running parity is left as is
    /// (recovery rewrites it from the bytes it decides).
    fn forget_writes(&mut self, cut: &CutWrites) {
        let layers = self.open.iter_mut().map(|(key, cs)| (*key, cs)).chain(
            self.destaging
                .iter_mut()
                .flat_map(|(key, l)| l.iter_mut().map(|(_, cs)| (*key, cs))),
        );
        for (key, cs) in layers {
            let forgotten = |plan: &PlanId| cut.get(plan).is_some_and(|s| s.contains(&key));
            if !cs.writes.iter().any(|w| forgotten(&w.0)) {
                continue;
            }
            cs.written = cs.settled.clone();
            for &(plan, d, a, z) in &cs.writes {
                if !forgotten(&plan) {
                    cs.written[d].insert(a, z);
                }
            }
        }
    }

    fn forget_file(&mut self, file: FileId) -> Result<(), PlanError> {
        // Refused before anything changes: no chunk a plan in flight reads or writes may go
        // to another stripe (the contract of `on_complete`).
        let writing = self
            .write_stripes
            .iter()
            .filter(|(_, keys)| keys.iter().any(|&(f, _)| f == file))
            .map(|(&plan, _)| plan);
        let moving = self
            .destage_plans
            .iter()
            .filter(|(_, &(f, _))| f == file)
            .map(|(&plan, _)| plan);
        if let Some(plan) = writing.chain(moving).min() {
            return Err(PlanError::PlansInFlight { file, plan });
        }
        // With no destage in flight the file has no destaging cache stripe (a completed
        // destage leaves `destaging`): only open ones, none with a writer in flight.
        assert!(
            !self.destaging.keys().any(|&(f, _)| f == file),
            "a destaging cache stripe without its destage plan in flight"
        );
        let mut keys: Vec<(FileId, u64)> = self
            .open
            .keys()
            .copied()
            .filter(|&(f, _)| f == file)
            .collect();
        keys.sort_unstable(); // the order chunks are freed in decides their reuse: replayable
        for key in keys {
            let cs = self.open.remove(&key).expect("listed above");
            assert!(
                cs.writers.is_empty() && cs.writes.is_empty(),
                "an open cache stripe with a write in flight"
            );
            for (col, &addr) in cs.chunk_addr_bytes.iter().enumerate() {
                self.alloc.free(self.layout.oss_of(key.0, key.1, col), addr);
            }
        }
        Ok(())
    }

    fn lookup(
        &self,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<Extent>, PlanError> {
        let mut out = Vec::new();
        for ext in home_lookup(&self.layout, file, offset_bytes, len_bytes)? {
            let key = (file, ext.element.stripe);
            // Newest first: the open cache stripe, then destaging ones from newest to oldest.
            let mut layers: Vec<&CacheStripe> = Vec::new();
            if let Some(cs) = self.open.get(&key) {
                layers.push(cs);
            }
            if let Some(list) = self.destaging.get(&key) {
                layers.extend(list.iter().rev().map(|(_, cs)| cs));
            }
            resolve(&self.layout, &layers, ext, &mut out);
        }
        Ok(out)
    }

    fn cache_stripe_written(
        &self,
        file: FileId,
        stripe: u64,
        chunks: &[(usize, u64)],
    ) -> Option<Vec<Vec<(u64, u64)>>> {
        assert!(!chunks.is_empty(), "a cache stripe is named by its chunks");
        let key = (file, stripe);
        let destaging = self.destaging.get(&key).into_iter().flatten();
        let mut layers = self
            .open
            .get(&key)
            .into_iter()
            .chain(destaging.map(|(_, cs)| cs));
        let cs = layers.find(|cs| {
            (chunks.iter()).all(|&(col, addr)| cs.chunk_addr_bytes.get(col) == Some(&addr))
        })?;
        Some(cs.written.iter().map(|w| w.iter().collect()).collect())
    }

    fn cached_stripes(&self, file: FileId) -> Vec<u64> {
        let stripes: BTreeSet<u64> = (self.open.keys())
            .chain(self.destaging.keys())
            .filter(|(f, _)| *f == file)
            .map(|&(_, stripe)| stripe)
            .collect();
        stripes.into_iter().collect()
    }
}

/// Split a home extent by the cache layers that hold newer bytes (newest layer first).
fn resolve(layout: &Layout, layers: &[&CacheStripe], ext: Extent, out: &mut Vec<Extent>) {
    let Some((cs, rest)) = layers.split_first() else {
        out.push(ext);
        return;
    };
    let Cell::Data(d) = ext.element.cell else {
        unreachable!()
    };
    let e = ext.element;
    for (a, z, covered) in cs.written[d].split(e.offset_bytes, e.offset_bytes + e.len_bytes) {
        let sub = Extent {
            file_offset_bytes: ext.file_offset_bytes + (a - e.offset_bytes),
            len_bytes: z - a,
            oss: ext.oss,
            zone: Zone::Data,
            addr_bytes: ext.addr_bytes + (a - e.offset_bytes),
            element: ElementRange {
                offset_bytes: a,
                len_bytes: z - a,
                ..e
            },
        };
        if covered {
            let addr =
                cs.chunk_addr_bytes[e.pos.col] + e.pos.row as u64 * layout.element_bytes() + a;
            out.push(Extent {
                zone: Zone::Cache,
                addr_bytes: addr,
                ..sub
            });
        } else {
            resolve(layout, rest, sub, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{total_counts, OpCounts};
    use crate::testing::{raid5, raid6};

    const E: u64 = 64 * 1024;

    fn w(offset_bytes: u64, len_bytes: u64) -> ClientWrite {
        ClientWrite {
            client: 3,
            app: 0,
            file: 0,
            offset_bytes,
            len_bytes,
        }
    }

    fn wcl5() -> Wcl {
        Wcl::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap())
    }
    fn wcl6() -> Wcl {
        Wcl::new(Layout::from_geometry(raid6(4), "raid6", E, 6).unwrap())
    }

    #[test]
    fn raid5_partial_write_is_data_write_plus_running_parity_read_and_write_3_ops() {
        let mut s = wcl5();
        // Two clients write the same quarter of elements 0 and 1 of stripe 0: the second
        // finds a running parity over its range.
        let first = s.on_write(&w(0, E / 4), 0).unwrap();
        let second = s.on_write(&w(E, E / 4), 0).unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(second.len(), 1);
        // First write of the range: nothing to read, 2 ops.
        assert_eq!(
            first[0].op_counts(),
            OpCounts {
                cache_data_write: 1,
                cache_parity_write: 1,
                ..OpCounts::default()
            }
        );
        // The seed's 3 ops: data write, parity read, parity write -- no old-data read.
        assert_eq!(
            second[0].op_counts(),
            OpCounts {
                cache_data_write: 1,
                cache_parity_read: 1,
                cache_parity_write: 1,
                ..OpCounts::default()
            }
        );
        let c = second[0].op_counts().by_content();
        assert_eq!(
            (c.data_read, c.data_write, c.parity_read, c.parity_write),
            (0, 1, 1, 1)
        );
        assert_eq!(second[0].osses().len(), 2);
        assert_eq!(second[0].computes[0].method, ParityMethod::Accumulate);
        assert_eq!(
            second[0].computes[0].terms[0].old,
            Bytes::Zero,
            "parity from new data only"
        );
    }

    /// A cache stripe that stays open (every write lands in the same element, it never
    /// completes) keeps one range per write only while the write is in flight.
    #[test]
    fn an_open_cache_stripe_keeps_the_ranges_of_writes_in_flight_only() {
        let mut s = wcl5();
        for i in 0..10_000u64 {
            let plans = s.on_write(&w(i % 100, 1), 0).unwrap();
            assert_eq!(plans.len(), 1, "the stripe never completes: no destage");
            s.on_complete(plans[0].id).unwrap();
        }
        let in_flight = s.on_write(&w(200, 1), 0).unwrap()[0].id;
        let cs = &s.open[&(0, 0)];
        assert_eq!(
            cs.writes.len(),
            1,
            "only the write in flight keeps its range"
        );
        assert_eq!(cs.writers, vec![in_flight]);
        // A crash cut the write in flight: the complete writes' bytes stay where they are.
        s.forget_writes(&[(in_flight, [(0, 0)].into_iter().collect())].into());
        let cs = &s.open[&(0, 0)];
        assert!(cs.written[0].covers(0, 100) && !cs.written[0].overlaps(200, 201));
    }

    #[test]
    fn a_write_past_the_limit_of_ranges_in_flight_is_refused_until_writes_complete() {
        let mut s = wcl5();
        let mut first = None;
        for i in 0..CACHE_STRIPE_WRITES_MAX as u64 {
            let plans = s.on_write(&w(i % 100, 1), 0).unwrap();
            first.get_or_insert(plans[0].id);
        }
        let next_plan = s.next_plan;
        let refused = s.on_write(&w(7, 1), 0).unwrap_err();
        assert!(matches!(
            refused,
            PlanError::CacheStripeBusy { stripe: 0, .. }
        ));
        assert!(refused.to_string().contains("retry"), "{refused}");
        assert_eq!(s.next_plan, next_plan, "a refused write changes nothing");
        assert_eq!(s.open[&(0, 0)].writes.len(), CACHE_STRIPE_WRITES_MAX);
        // Another stripe is not held up.
        s.on_write(&w(10 * E, 1), 0).unwrap();
        s.on_complete(first.unwrap()).unwrap();
        s.on_write(&w(7, 1), 0).unwrap();
    }

    #[test]
    fn raid6_partial_write_is_5_ops() {
        let mut s = wcl6();
        let first = s.on_write(&w(0, 4096), 0).unwrap();
        assert_eq!(
            first[0].op_counts(),
            OpCounts {
                cache_data_write: 1,
                cache_parity_write: 2,
                ..OpCounts::default()
            }
        );
        let p = s.on_write(&w(2 * E, 4096), 0).unwrap();
        assert_eq!(
            p[0].op_counts(),
            OpCounts {
                cache_data_write: 1,
                cache_parity_read: 2,
                cache_parity_write: 2,
                ..OpCounts::default()
            }
        );
        assert_eq!(p[0].osses().len(), 3);
    }

    #[test]
    fn completing_a_stripe_emits_a_background_destage_after_every_filling_write() {
        let mut s = wcl5();
        let mut ids = Vec::new();
        for d in 0..3 {
            let plans = s.on_write(&w(d * E, E), 0).unwrap();
            assert_eq!(plans.len(), 1, "stripe not complete yet");
            ids.push(plans[0].id);
        }
        assert_eq!(s.open_cache_stripes(), 1);
        let plans = s.on_write(&w(3 * E, E), 0).unwrap();
        assert_eq!(plans.len(), 2);
        ids.push(plans[0].id);
        let destage = &plans[1];
        assert_eq!(destage.kind, PlanKind::Background);
        assert_eq!(destage.after_plans, ids);
        // Per column one cache read and one home write: 5 reads, 4 data + 1 parity writes.
        assert_eq!(
            destage.op_counts(),
            OpCounts {
                cache_data_read: 4,
                cache_parity_read: 1,
                data_write: 4,
                parity_write: 1,
                ..OpCounts::default()
            }
        );
        assert_eq!(s.open_cache_stripes(), 0);
        destage.validate().unwrap();
    }

    #[test]
    fn lookup_finds_the_newest_bytes_in_cache_until_the_destage_completes() {
        let mut s = wcl5();
        s.on_write(&w(100, 50), 0).unwrap();
        let ext = s.lookup(0, 0, 300).unwrap();
        let zones: Vec<(u64, u64, Zone)> = ext
            .iter()
            .map(|e| (e.file_offset_bytes, e.len_bytes, e.zone))
            .collect();
        assert_eq!(
            zones,
            vec![
                (0, 100, Zone::Data),
                (100, 50, Zone::Cache),
                (150, 150, Zone::Data)
            ]
        );
        // Fill the stripe: the destage is planned but the bytes stay in cache until done.
        let mut destage = None;
        for d in 0..4 {
            for p in s.on_write(&w(d * E, E), 0).unwrap() {
                if p.kind == PlanKind::Background {
                    destage = Some(p.id);
                }
            }
        }
        assert!(s
            .lookup(0, 0, 4 * E)
            .unwrap()
            .iter()
            .all(|e| e.zone == Zone::Cache));
        s.on_complete(destage.unwrap()).unwrap();
        assert!(s
            .lookup(0, 0, 4 * E)
            .unwrap()
            .iter()
            .all(|e| e.zone == Zone::Data));
    }

    #[test]
    fn an_overwrite_in_the_open_cache_stripe_reads_the_old_cache_bytes() {
        let mut s = wcl5();
        s.on_write(&w(0, 4096), 0).unwrap();
        let p = s.on_write(&w(0, 4096), 0).unwrap();
        assert_eq!(
            p[0].op_counts(),
            OpCounts {
                cache_data_read: 1,
                cache_data_write: 1,
                cache_parity_read: 1,
                cache_parity_write: 1,
                ..OpCounts::default()
            }
        );
        let t = p[0].computes[0].terms[0];
        assert!(matches!(t.old, Bytes::Read { .. }));
    }

    #[test]
    fn freed_cache_chunks_are_reused_only_after_completion() {
        let mut s = wcl5();
        let plans = s.on_write(&w(0, 4 * E), 0).unwrap();
        let high = s.cache_high_water_bytes().to_vec();
        s.on_write(&w(4 * E, 4 * E), 0).unwrap();
        assert!(s.cache_high_water_bytes().iter().sum::<u64>() > high.iter().sum::<u64>());
        let grown = s.cache_high_water_bytes().to_vec();
        s.on_complete(plans[1].id).unwrap();
        s.on_write(&w(8 * E, 4 * E), 0).unwrap();
        assert_eq!(
            s.cache_high_water_bytes(),
            &grown[..],
            "chunks of the completed destage reused"
        );
        assert_eq!(total_counts(&plans).data_read, 0);
    }

    fn wf(file: FileId, offset_bytes: u64, len_bytes: u64) -> ClientWrite {
        ClientWrite {
            file,
            ..w(offset_bytes, len_bytes)
        }
    }

    /// A file dropped unacknowledged (a failed put's staging content) loses its cache
    /// stripes without a settle; another file's stay, and the freed chunks are reused.
    #[test]
    fn a_forgotten_file_reads_home_and_its_cache_chunks_are_reused() {
        let mut s = wcl5();
        let kept = s.on_write(&wf(1, 0, 100), 0).unwrap()[0].id;
        let dropped = s.on_write(&wf(2, 0, 100), 0).unwrap()[0].id;
        let dropped_far = s.on_write(&wf(2, 9 * E, 100), 0).unwrap()[0].id;
        let refused = s.forget_file(2).unwrap_err();
        assert_eq!(
            refused,
            PlanError::PlansInFlight {
                file: 2,
                plan: dropped
            },
            "a write of it still in flight"
        );
        assert_eq!(s.cached_stripes(2), vec![0, 2], "a refusal changes nothing");
        for plan in [kept, dropped, dropped_far] {
            s.on_complete(plan).unwrap();
        }
        let high = s.cache_high_water_bytes().to_vec();
        s.forget_file(2).unwrap();
        assert!(s.cached_stripes(2).is_empty());
        assert!(s
            .lookup(2, 0, 10 * E)
            .unwrap()
            .iter()
            .all(|x| x.zone == Zone::Data));
        assert_eq!(
            s.cached_stripes(1),
            vec![0],
            "another file's bytes stay cached"
        );
        assert_eq!(s.lookup(1, 0, 100).unwrap()[0].zone, Zone::Cache);
        // Two new cache stripes fit in the two freed ones: the cache zone does not grow.
        s.on_write(&wf(3, 0, 100), 0).unwrap();
        s.on_write(&wf(3, 5 * E, 100), 0).unwrap();
        assert_eq!(s.cache_high_water_bytes(), &high[..], "freed chunks reused");
        s.forget_file(7).unwrap(); // nothing cached: nothing to do
    }

    #[test]
    fn a_file_whose_destage_is_in_flight_is_not_forgotten() {
        let mut s = wcl5();
        let plans = s.on_write(&wf(2, 0, 4 * E), 0).unwrap();
        assert_eq!(plans.len(), 2, "a full stripe: its destage");
        s.on_complete(plans[0].id).unwrap();
        assert_eq!(
            s.forget_file(2),
            Err(PlanError::PlansInFlight {
                file: 2,
                plan: plans[1].id
            })
        );
        s.on_complete(plans[1].id).unwrap();
        s.forget_file(2).unwrap();
    }
}
