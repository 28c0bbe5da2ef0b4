//! A WCL cache stripe checked against its running parity before its bytes move home, and by
//! `scrub` (review s11r R11-9).
//!
//! Why: a stale cache element (a lost write on one OSS: old bytes under a valid checksum)
//! passes every checksum. A destage copied it home beside the running parity (home then
//! disagreed with itself), and a settle (`flush`, `rm`, ...) laid it over home and encoded
//! fresh home parity from it: wrong bytes, read back with success, for good.
//!
//! What the running parity of a cache stripe covers: the bytes written into the cache
//! stripe so far, unwritten bytes counting as zeros, for data and parity alike. Of a
//! partial (open) cache stripe, a data element's live bytes are the ranges its writes
//! reached; a parity element's are the union of its terms' (the planner initialises a
//! parity range when a write of one of its terms reaches it). The rest of a reused chunk
//! holds an older cache stripe's bytes and must be read as zeros. A column the cache
//! stripe never wrote has no chunk the store knows of: zeros. Every byte offset of a stripe
//! is a codeword of its own (array codes too: their rows meet at one offset), so the check
//! and the location are per checksum block.
//!
//! Locating: a block whose parity disagrees is decoded once per column with that column
//! taken as erased; where exactly one column gives a stripe that satisfies every parity
//! equation (and nothing outside that column's live ranges), that column is the stale one
//! and the decode gives its right bytes (a code tolerating two failures or more; like the
//! home scrub's repair, it assumes one stale column). Beside erased columns (an OSS out of
//! service, blocks that do not read) the same, with those columns erased in every decode,
//! where the code has an equation left after one more erasure (s28d: rs 4+3 beside one
//! erased column; never raid6 beside one, where every column's erasure fits). Otherwise
//! the data of that block of the cache stripe cannot be told, and is recorded lost
//! (`STALE_CACHE`), never moved home as if it were right.

use super::*;

use exec::Chunks;

/// The window token of a lost range whose cache stripe's running parity disagreed with its
/// data where no single stale column explains it (a settle or destage found it).
pub(super) const STALE_CACHE: &str =
    "none: its WCL cache stripe's running parity disagrees with its data and no single stale column explains it";

/// The window token of a lost range whose cached bytes differ from the crc on record of
/// the last acknowledged write there (`State::cache_witness`) and that no parity rebuilt.
pub(super) const WITNESS_STALE: &str =
    "none: its WCL cache block holds bytes other than the last acknowledged ones (their crc on record differs: an OSS lost a write) and its cache stripe's parity could not rebuild them";

/// The window token of a lost range of a WCL cache block whose OSS is failed on record and
/// whose decode needs a column that fails its witness piece (a lost write), beside no
/// column only away: no remount brings its bytes back (s45a, review r44c MEDIUM-2).
pub(super) const WITNESS_DECODE_LOST: &str =
    "none: its WCL cache block's OSS is failed and the decode from its cache stripe's parity needs a column that holds bytes other than the last acknowledged ones (their crc on record differs: an OSS lost a write)";

/// Located stale bytes of a cache element: `(pos, element offset, right bytes)`.
pub(super) type Fix = (Pos, u64, Vec<u8>);

/// What the check of one cache stripe against its running parity found.
#[derive(Debug, Default)]
pub(super) struct StaleCheck {
    /// Located stale bytes, only live ranges.
    pub(super) fixes: Vec<Fix>,
    /// Checksum blocks (element offset / block) that disagree and are not located: every
    /// data byte of the cache stripe there is unknown.
    pub(super) unlocated_blocks: BTreeSet<usize>,
    /// Checksum blocks that disagree (located or not).
    pub(super) bad_blocks: BTreeSet<usize>,
    /// Checksum blocks with as many erased columns as the code tolerates: nothing is left
    /// to check them with, so their data bytes are unproven (a stale element among them,
    /// or a failed column decoded through one, passes every checksum). Not a disagreement.
    pub(super) unchecked_blocks: BTreeSet<usize>,
    /// Erased blocks `(pos, checksum block)` of block rows where a stale column was located
    /// beside them (`check_erased_rows`, s28d): their right bytes, the whole block (zeros
    /// outside live ranges), decoded with the stale column erased too. Their reader's own
    /// decode would go through the stale column (on disk until a repair rewrites it) and
    /// be refused by the equations left, or, with none left, be wrong.
    pub(super) decoded: BTreeMap<(Pos, usize), Vec<u8>>,
}

impl StaleCheck {
    pub(super) fn is_clean(&self) -> bool {
        self.bad_blocks.is_empty()
    }
}

/// One cache stripe of a home stripe: its chunks and whether it is complete (being
/// destaged: every byte written).
pub(super) type CacheGeneration = (Chunks, bool);

/// One cache stripe as its check against its running parity read it: each element's live
/// bytes (verified reads; zeros elsewhere), and what the check found.
pub(super) struct CheckedCacheStripe {
    pub(super) chunks: Chunks,
    /// Live element ranges per data column, then per parity (`cache_stripe_live`).
    live: Vec<Vec<(u64, u64)>>,
    pub(super) read: StripeBuf,
    /// `(pos, checksum block)` of live elements that did not read: zeros in `read`, their
    /// bytes are their reader's to decode.
    pub(super) erased: BTreeSet<(Pos, usize)>,
    pub(super) check: StaleCheck,
}

impl CheckedCacheStripe {
    /// The live ranges of element `pos`: where `read` holds its bytes (zeros elsewhere).
    pub(super) fn live_of(&self, g: &exaraid_codes::Geometry, pos: Pos) -> &[(u64, u64)] {
        match g.cell(pos) {
            Cell::Data(d) => &self.live[d],
            Cell::Parity(q) => &self.live[g.data_count() + q],
            Cell::Empty => &[],
        }
    }

    /// Not judge checksum blocks `blocks`: where recovery decided them by its own proofs
    /// and left their running parity as it was (`InFlight::cache_decided`), a disagreement
    /// there is no stale element. Their bytes are taken as read.
    pub(super) fn forget_blocks(&mut self, blocks: &BTreeSet<usize>) {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let check = &mut self.check;
        check.fixes.retain(|(_, at, right)| {
            let (a, z) = (*at, *at + right.len() as u64);
            !(a / block..z.div_ceil(block)).any(|i| blocks.contains(&(i as usize)))
        });
        check.unlocated_blocks.retain(|i| !blocks.contains(i));
        check.bad_blocks.retain(|i| !blocks.contains(i));
        check.unchecked_blocks.retain(|i| !blocks.contains(i));
        check.decoded.retain(|(_, i), _| !blocks.contains(i));
    }
}

impl Store {
    /// Check `buf` (each element's live bytes laid, zeros elsewhere) against its parity,
    /// and locate a stale column where the disagreement allows (see the module docs).
    /// `buf` is encoded in place and put back: it holds the same bytes when this returns.
    ///
    /// `erased`: `(pos, checksum block)` of elements that did not read (zeros in `buf`).
    /// A block row with some is checked with their columns erased (review s13r R13-2): the
    /// decode must satisfy every parity equation left (the caller checks no row with as
    /// many erased columns as the code tolerates: nothing would be left to check), and then
    /// the readable elements of those columns that differ from it are the stale ones
    /// (`fixes`; a code decodes whole columns, so this is the erased column's own fault,
    /// one column as everywhere here); where it does not, one column more is erased in turn
    /// to locate a stale one beside them (`locate_beside_erased`), else the row is
    /// unlocated. The erased blocks' own bytes are not in `fixes`: the caller's read of them
    /// decodes them, or takes `decoded` where a stale column was located beside them.
    pub(super) fn check_running_parity(
        &self,
        buf: &mut StripeBuf,
        live_of: &dyn Fn(Pos) -> Vec<(u64, u64)>,
        erased: &BTreeSet<(Pos, usize)>,
    ) -> StaleCheck {
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        let blocks = e.div_ceil(block);
        let mut out = StaleCheck::default();
        if self.kind == StrategyKind::Raid0 || self.tolerance() == 0 {
            return out;
        }
        let disagrees = |b: &StripeBuf, i: usize, skip_col: Option<usize>| -> bool {
            let mut check = b.clone();
            if self.code.encode(&mut check).is_err() {
                return true;
            }
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            g.parity_pos.iter().any(|p| {
                Some(p.col) != skip_col && check.element(*p)[bs..be] != b.element(*p)[bs..be]
            })
        };
        // Bytes of column `col` in block `bs..be` outside its live ranges are nothing: a
        // decode that gives them anything else does not explain the stripe.
        let outside_live_zero = |trial: &StripeBuf, col: usize, bs: usize, be: usize| -> bool {
            (0..g.rows).all(|row| {
                let p = Pos { row, col };
                let mut dead = vec![(bs as u64, be as u64)];
                for (a, z) in live_of(p) {
                    crate::state::sub_range(&mut dead, a, z);
                }
                dead.iter().all(|&(a, z)| {
                    trial.element(p)[a as usize..z as usize]
                        .iter()
                        .all(|&x| x == 0)
                })
            })
        };
        // Block rows with erased elements, by the columns erased there.
        let mut erased_cols: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &(p, i) in erased {
            erased_cols.entry(i).or_default().insert(p.col);
        }
        assert!(
            erased_cols.values().all(|c| c.len() < self.tolerance()),
            "a parity equation left to check every decode"
        );
        // The parity as read kept aside while the stripe is encoded in place from its data,
        // then put back: a copy of the parity rather than of the whole stripe (task s13c).
        let read_parity: Vec<Vec<u8>> = g
            .parity_pos
            .iter()
            .map(|p| buf.element(*p).to_vec())
            .collect();
        let encoded = self.code.encode(buf).is_ok();
        for i in (0..blocks).filter(|i| encoded && !erased_cols.contains_key(i)) {
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            if g.parity_pos
                .iter()
                .zip(&read_parity)
                .any(|(p, read)| buf.element(*p)[bs..be] != read[bs..be])
            {
                out.bad_blocks.insert(i);
            }
        }
        for (p, read) in g.parity_pos.iter().zip(&read_parity) {
            buf.element_mut(*p).copy_from_slice(read);
        }
        let buf = &*buf;
        self.check_erased_rows(
            buf,
            live_of,
            erased,
            &erased_cols,
            &mut out,
            &disagrees,
            &outside_live_zero,
        );
        if out.bad_blocks.iter().all(|i| erased_cols.contains_key(i)) {
            return out;
        }
        // Per bad block, the columns whose erasure explains it.
        let mut explained_by: BTreeMap<usize, Vec<(usize, StripeBuf)>> = BTreeMap::new();
        if self.tolerance() >= 2 {
            for col in 0..g.cols {
                let mut trial = buf.clone();
                if self.code.decode(&mut trial, &[col]).is_err() {
                    continue;
                }
                for &i in out
                    .bad_blocks
                    .iter()
                    .filter(|i| !erased_cols.contains_key(i))
                {
                    let (bs, be) = (i * block, ((i + 1) * block).min(e));
                    if disagrees(&trial, i, None) {
                        continue;
                    }
                    if outside_live_zero(&trial, col, bs, be) {
                        explained_by
                            .entry(i)
                            .or_default()
                            .push((col, trial.clone()));
                    }
                }
            }
        }
        let not_erased: Vec<usize> = out
            .bad_blocks
            .iter()
            .copied()
            .filter(|i| !erased_cols.contains_key(i))
            .collect();
        for i in not_erased {
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            match explained_by.get(&i).map(|v| v.as_slice()) {
                Some([(col, trial)]) => {
                    for row in 0..g.rows {
                        let p = Pos { row, col: *col };
                        for (a, z) in live_of(p) {
                            let (a, z) = ((a as usize).max(bs), (z as usize).min(be));
                            if a < z && trial.element(p)[a..z] != buf.element(p)[a..z] {
                                out.fixes
                                    .push((p, a as u64, trial.element(p)[a..z].to_vec()));
                            }
                        }
                    }
                }
                _ => {
                    out.unlocated_blocks.insert(i);
                }
            }
        }
        out
    }

    /// `check_running_parity`'s block rows with erased elements (`erased_cols`: block row
    /// to the columns erased there): decoded with those columns erased, once per set of
    /// columns, and checked (see `check_running_parity`). A row that decode does not
    /// explain is located where the code has a column to spare for it
    /// (`locate_beside_erased`), else unlocated.
    #[allow(clippy::too_many_arguments)]
    fn check_erased_rows(
        &self,
        buf: &StripeBuf,
        live_of: &dyn Fn(Pos) -> Vec<(u64, u64)>,
        erased: &BTreeSet<(Pos, usize)>,
        erased_cols: &BTreeMap<usize, BTreeSet<usize>>,
        out: &mut StaleCheck,
        disagrees: &dyn Fn(&StripeBuf, usize, Option<usize>) -> bool,
        outside_live_zero: &dyn Fn(&StripeBuf, usize, usize, usize) -> bool,
    ) {
        let g = self.layout.geometry();
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        let mut rows_of_set: BTreeMap<Vec<usize>, Vec<usize>> = BTreeMap::new();
        for (&i, cols) in erased_cols {
            rows_of_set
                .entry(cols.iter().copied().collect())
                .or_default()
                .push(i);
        }
        for (cols, rows) in rows_of_set {
            let mut trial = buf.clone();
            let decoded = self.code.decode(&mut trial, &cols).is_ok();
            let mut unexplained: Vec<usize> = Vec::new();
            for i in rows {
                let (bs, be) = (i * block, ((i + 1) * block).min(e));
                let explained = decoded
                    && !disagrees(&trial, i, None)
                    && cols.iter().all(|&c| outside_live_zero(&trial, c, bs, be));
                if !explained {
                    unexplained.push(i);
                    continue;
                }
                for &col in &cols {
                    for row in 0..g.rows {
                        let p = Pos { row, col };
                        if erased.contains(&(p, i)) {
                            continue;
                        }
                        for (a, z) in live_of(p) {
                            let (a, z) = ((a as usize).max(bs), (z as usize).min(be));
                            if a < z && trial.element(p)[a..z] != buf.element(p)[a..z] {
                                out.bad_blocks.insert(i);
                                out.fixes
                                    .push((p, a as u64, trial.element(p)[a..z].to_vec()));
                            }
                        }
                    }
                }
            }
            if !unexplained.is_empty() {
                self.locate_beside_erased(
                    buf,
                    live_of,
                    erased,
                    (&cols, &unexplained),
                    out,
                    disagrees,
                    outside_live_zero,
                );
            }
        }
    }

    /// Block rows `rows` with columns `cols` erased whose decode does not explain them
    /// (s28d, s27e's rs 4+3 LOSS): each other column erased beside `cols` in turn, where
    /// the code tolerates one more erasure than that and still has an equation left to
    /// check the decode (`cols.len() + 2 <= tolerance`: a column of unknown place costs two
    /// equations, each erased one one). The one column whose erasure explains a row (every
    /// parity equation holds, nothing outside live ranges, the erased columns' elements
    /// that read agree) is its stale one: its live bytes that differ are `fixes`, and the
    /// erased blocks' decode is `decoded` (their reader's decode would go through the stale
    /// column). No column, or two (never a guess; an MDS code with an equation to spare
    /// cannot give two for one stale column), or no column to spare: unlocated. With no
    /// equation left every column's erasure explains the row (rs 4+3 with two erased,
    /// raid6 with one): that is the limit.
    #[allow(clippy::too_many_arguments)]
    fn locate_beside_erased(
        &self,
        buf: &StripeBuf,
        live_of: &dyn Fn(Pos) -> Vec<(u64, u64)>,
        erased: &BTreeSet<(Pos, usize)>,
        (cols, rows): (&[usize], &[usize]),
        out: &mut StaleCheck,
        disagrees: &dyn Fn(&StripeBuf, usize, Option<usize>) -> bool,
        outside_live_zero: &dyn Fn(&StripeBuf, usize, usize, usize) -> bool,
    ) {
        let g = self.layout.geometry();
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        assert!(!rows.is_empty() && !cols.is_empty());
        let mut explained_by: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut trials: BTreeMap<usize, StripeBuf> = BTreeMap::new();
        if cols.len() + 2 <= self.tolerance() {
            for candidate in (0..g.cols).filter(|c| !cols.contains(c)) {
                let mut with: Vec<usize> = cols.to_vec();
                with.push(candidate);
                with.sort_unstable();
                let mut trial = buf.clone();
                if self.code.decode(&mut trial, &with).is_err() {
                    continue;
                }
                for &i in rows {
                    let (bs, be) = (i * block, ((i + 1) * block).min(e));
                    // An erased column's elements that read (an array code's other rows)
                    // are checks too: one that differs would be a second stale column.
                    let erased_cols_agree = cols.iter().all(|&col| {
                        (0..g.rows).all(|row| {
                            let p = Pos { row, col };
                            erased.contains(&(p, i))
                                || trial.element(p)[bs..be] == buf.element(p)[bs..be]
                        })
                    });
                    if !disagrees(&trial, i, None)
                        && erased_cols_agree
                        && with.iter().all(|&c| outside_live_zero(&trial, c, bs, be))
                    {
                        explained_by.entry(i).or_default().push(candidate);
                    }
                }
                if explained_by.values().any(|v| v.contains(&candidate)) {
                    trials.insert(candidate, trial);
                }
            }
        }
        for &i in rows {
            out.bad_blocks.insert(i);
            let Some(&[col]) = explained_by.get(&i).map(|v| v.as_slice()) else {
                out.unlocated_blocks.insert(i);
                continue;
            };
            let trial = &trials[&col];
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            for row in 0..g.rows {
                let p = Pos { row, col };
                for (a, z) in live_of(p) {
                    let (a, z) = ((a as usize).max(bs), (z as usize).min(be));
                    if a < z && trial.element(p)[a..z] != buf.element(p)[a..z] {
                        out.fixes
                            .push((p, a as u64, trial.element(p)[a..z].to_vec()));
                    }
                }
            }
            for &(p, _) in erased.iter().filter(|&&(_, j)| j == i) {
                assert!(
                    cols.contains(&p.col),
                    "an erased block of this row's columns"
                );
                out.decoded
                    .insert((p, i), trial.element(p)[bs..be].to_vec());
            }
        }
    }

    /// The WCL cache stripes of a home stripe the store knows of: each destaging one
    /// (complete) and the open one.
    pub(super) fn cache_generations(&self, file: u64, stripe: u64) -> Vec<CacheGeneration> {
        let stripes = self.cache_stripes.lock();
        let Some(g) = stripes.by_stripe.get(&(file, stripe)) else {
            return Vec::new();
        };
        let mut out: Vec<CacheGeneration> =
            g.destaging.iter().map(|(_, c)| (c.clone(), true)).collect();
        if !g.open.is_empty() {
            out.push((g.open.clone(), false));
        }
        out
    }

    /// The element ranges written into the cache stripe whose chunks are `chunks`, per data
    /// element, as the planner planned them (plans not yet run included: the callers take
    /// those out, `CacheStripes::unexecuted`). Empty where the planner knows no such cache
    /// stripe. Not from the planner's lookup (review s27r R27-1, session 28): the lookup
    /// names the newest copy of each byte, so a write queued behind the caller that put
    /// bytes into a newer cache stripe of the same home stripe (this one complete and
    /// being destaged) hid them from this one's extents, while this one's chunks and
    /// running parity still hold them: a write's check before its delta
    /// (`verify_cache_before_delta`) took them for never written, found the running parity
    /// disagreeing with its data and recorded acknowledged bytes lost, with no fault.
    pub(super) fn planned_cache_written(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        chunks: &Chunks,
    ) -> Vec<Vec<(u64, u64)>> {
        let none = vec![Vec::new(); self.layout.geometry().data_count()];
        // The planner puts each column's chunk on the column's own OSS; a chunk named
        // elsewhere is an invariant of the store broken, never a cache stripe with nothing
        // written. Why not count it as nothing written (session 28, F5 of s28a; session 29,
        // s29d): the callers then check the running parity against zeros, and an invariant
        // broken turned into acknowledged bytes named LOST.
        for (&col, &(oss, base)) in chunks {
            let home = self.layout.oss_of(file, stripe, col);
            assert!(
                oss == home,
                "file {file} stripe {stripe}: the cache chunk of column {col} (at {base}) is named on OSS {oss}, and the planner puts that column's chunks on OSS {home}"
            );
        }
        let named: Vec<(usize, u64)> = (chunks.iter())
            .map(|(&col, &(_, base))| (col, base))
            .collect();
        if named.is_empty() {
            return none;
        }
        let written = match core {
            Some(c) => c.strategy.cache_stripe_written(file, stripe, &named),
            None => (self.core.lock().strategy).cache_stripe_written(file, stripe, &named),
        };
        let Some(written) = written else {
            return none;
        };
        let e_bytes = self.sb.element_bytes as u64;
        assert_eq!(written.len(), none.len(), "one range list per data element");
        assert!(
            written
                .iter()
                .flatten()
                .all(|&(a, z)| a < z && z <= e_bytes),
            "written ranges lie within one element"
        );
        written
    }

    /// The live element ranges of each position of one cache stripe (indexed as
    /// `g.data_count() + parity index` for parity), as `rebuild_from_cache_stripe` takes
    /// them: a complete one holds every byte; of an open one, what the planner wrote into
    /// its chunks (`planned_cache_written`), less the bytes of plans not yet run.
    fn cache_stripe_live(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        (chunks, complete): &CacheGeneration,
    ) -> Result<Vec<Vec<(u64, u64)>>, StoreError> {
        let g = self.layout.geometry().clone();
        let e_bytes = self.sb.element_bytes as u64;
        let mut written: Vec<Vec<(u64, u64)>> = if *complete {
            vec![vec![(0, e_bytes)]; g.data_count()]
        } else {
            self.planned_cache_written(core, file, stripe, chunks)
        };
        if !*complete {
            let stripes = self.cache_stripes.lock();
            for n in stripes.unexecuted.values().flatten() {
                if n.key != (file, stripe) || chunks.get(&n.pos.col) != Some(&n.chunk) {
                    continue;
                }
                if let Cell::Data(d) = g.cell(n.pos) {
                    crate::state::sub_range(&mut written[d], n.a, n.z);
                }
            }
        }
        let mut live = written.clone();
        for terms in &g.parity_terms {
            let mut init: Vec<(u64, u64)> = Vec::new();
            for t in terms {
                for &(a, z) in &written[t.data] {
                    crate::state::add_range(&mut init, a, z);
                }
            }
            live.push(init);
        }
        Ok(live)
    }

    /// Read one cache stripe's live bytes and check them against its running parity. `None`:
    /// not checked (a column on an OSS out of service or a block that does not read: the
    /// decode of such a column checks the parity equations left itself, and unreadable
    /// blocks are the checksum pass's).
    pub(super) fn check_cache_stripe_on_disk(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        generation: &CacheGeneration,
    ) -> Result<Option<StaleCheck>, StoreError> {
        Ok(self
            .read_and_check_cache_stripe(core, file, stripe, generation, true)?
            .map(|c| c.check))
    }

    /// `check_cache_stripe_on_disk`, keeping the bytes it read (see `CheckedCacheStripe`);
    /// `counted`: its reads count as ops (a check outside any plan's `IoPlan` passes
    /// `false`, so that the counts stay the planner's and the simulator's).
    pub(super) fn read_and_check_cache_stripe(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        generation: &CacheGeneration,
        counted: bool,
    ) -> Result<Option<CheckedCacheStripe>, StoreError> {
        if self.kind != StrategyKind::Wcl || self.tolerance() == 0 {
            return Ok(None);
        }
        let g = self.layout.geometry().clone();
        let e_bytes = self.sb.element_bytes as u64;
        let chunks = &generation.0;
        let live = self.cache_stripe_live(core, file, stripe, generation)?;
        let live_at = |p: Pos| -> Vec<(u64, u64)> {
            match g.cell(p) {
                Cell::Data(d) => live[d].clone(),
                Cell::Parity(q) => live[g.data_count() + q].clone(),
                Cell::Empty => Vec::new(),
            }
        };
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, self.sb.element_bytes);
        let block = CHECKSUM_BLOCK_BYTES;
        let mut erased: BTreeSet<(Pos, usize)> = BTreeSet::new();
        for (&col, &(oss, base)) in chunks {
            // A column on an OSS out of service is an erasure of the check, as blocks that
            // do not read: returned unchecked, a stale element beside it went home with
            // success (session 21, s21g).
            let down = !self.backends[oss].healthy();
            for row in 0..g.rows {
                let p = Pos { row, col };
                let key = self.key(PlanZone::Cache, file, base + row as u64 * e_bytes);
                for (a, z) in live_at(p) {
                    let (a, z) = (a as usize, z as usize);
                    if down {
                        erased.extend((a / block..z.div_ceil(block)).map(|i| (p, i)));
                        continue;
                    }
                    if counted {
                        self.count(oss, Zone::Cache, Op::Read, false);
                    }
                    match self.read_retrying(oss, key, a, &mut buf.element_mut(p)[a..z]) {
                        Ok(()) => {}
                        // Down, as any read that finds it so: its caller's reads decode it.
                        Err(err) if err.is_unavailable() => {
                            self.note_unavailable(core, oss)?;
                            return Ok(None);
                        }
                        // Checksum-bad or missing: block by block, the blocks that do not
                        // read are erasures of the check (review s13r R13-2: skipped, the
                        // stripe went home through a stale element beside them). These
                        // reads only on that path, not counted (diagnosis, not the plan's).
                        Err(_) => {
                            for i in a / block..z.div_ceil(block) {
                                let (s, t) = (a.max(i * block), z.min((i + 1) * block));
                                let into = &mut buf.element_mut(p)[s..t];
                                match self.read_retrying(oss, key, s, into) {
                                    Ok(()) => {}
                                    Err(err) if err.is_unavailable() => {
                                        self.note_unavailable(core, oss)?;
                                        return Ok(None);
                                    }
                                    Err(_) => {
                                        into.fill(0);
                                        erased.insert((p, i));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // A block row with as many erased columns as the code tolerates has no equation
        // left to check a decode: its data bytes are unproven (`unchecked_blocks`). Before
        // session 22 the whole cache stripe was returned unchecked and a stale element (or
        // a failed column decoded through it) went home with success.
        let mut erased_cols: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &(p, i) in &erased {
            erased_cols.entry(i).or_default().insert(p.col);
        }
        let unchecked_blocks: BTreeSet<usize> = (erased_cols.iter())
            .filter(|(_, cols)| cols.len() >= self.tolerance())
            .map(|(&i, _)| i)
            .collect();
        // Such a row is not checked; the other rows of the cache stripe are (session 24,
        // s24b: before, one such row sent the whole cache stripe home unchecked on one-row
        // codes, and a stale element in a checkable row beside it went home unseen). The
        // unchecked rows go home in degraded mode, as before session 22. s22a recorded their
        // cached bytes LOST on codes of two or more parities, which lost every cached byte
        // of a store with as many OSSs failed as its code tolerates and no other fault (a
        // raid6 WCL store with two OSSs failed, `custom_backend.rs`), to guard against a
        // stale element there, a fault beyond the tolerance (a lost write on a third OSS).
        // Degraded mode holds where a cut cache write is always on record, so recovery
        // decides its rows before any settle: every code syncs the write's input (and
        // crcs) before its first cache write (s21d; array codes since s24b).

        // A column without a chunk was never written by this cache stripe: its live ranges
        // must be empty, or the chunk map and the planner disagree (not checked then).
        let unknown_col_live = (0..g.cols)
            .filter(|c| !chunks.contains_key(c))
            .any(|col| (0..g.rows).any(|row| !live_at(Pos { row, col }).is_empty()));
        if unknown_col_live {
            return Ok(None);
        }
        let checkable: BTreeSet<(Pos, usize)> = (erased.iter())
            .filter(|(_, i)| !unchecked_blocks.contains(i))
            .copied()
            .collect();
        let mut check = self.check_running_parity(&mut buf, &live_at, &checkable);
        // Those rows were checked above with zeros for their erased blocks: whatever that
        // found there means nothing.
        let block_u64 = block as u64;
        check.fixes.retain(|(_, at, right)| {
            let (a, z) = (*at, *at + right.len() as u64);
            !(a / block_u64..z.div_ceil(block_u64))
                .any(|i| unchecked_blocks.contains(&(i as usize)))
        });
        check
            .unlocated_blocks
            .retain(|i| !unchecked_blocks.contains(i));
        check.bad_blocks.retain(|i| !unchecked_blocks.contains(i));
        check
            .decoded
            .retain(|(_, i), _| !unchecked_blocks.contains(i));
        check.unchecked_blocks = unchecked_blocks;
        Ok(Some(CheckedCacheStripe {
            chunks: chunks.clone(),
            live,
            read: buf,
            erased,
            check,
        }))
    }

    /// A settle's cached extent `x` taken from the bytes its cache stripe's check read
    /// (`checked`) instead of reading them a second time (task s13c: the second read made a
    /// 64 MiB flush take 1.6x the CPU of one without the check). Those reads were verified
    /// reads of the same slot and offsets; the caller has held the core lock since, and a
    /// settle never writes the cache zone, so they are the bytes a read now returns.
    /// `false`: some byte of `x` was not read there (read it).
    pub(super) fn cached_bytes_from_check(
        &self,
        checked: &[CheckedCacheStripe],
        x: &exaraid_plan::Extent,
        bytes: &mut [u8],
    ) -> bool {
        let e = self.sb.element_bytes as u64;
        let g = self.layout.geometry();
        let pos = x.element.pos;
        let (o, n) = (x.element.offset_bytes, x.len_bytes);
        assert_eq!(bytes.len() as u64, n);
        let Cell::Data(d) = g.cell(pos) else {
            return false;
        };
        let Some(c) = checked.iter().find(|c| {
            c.chunks.get(&pos.col).is_some_and(|&(oss, base)| {
                let slot = base + pos.row as u64 * e;
                oss == x.oss && slot <= x.addr_bytes && x.addr_bytes - slot == o
            })
        }) else {
            return false;
        };
        if o + n > e || !c.live[d].iter().any(|&(a, z)| a <= o && o + n <= z) {
            return false;
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        bytes.copy_from_slice(&c.read.element(pos)[o as usize..(o + n) as usize]);
        for i in o / block..(o + n).div_ceil(block) {
            if !c.erased.contains(&(pos, i as usize)) {
                continue;
            }
            // Did not read: its reader decodes it, unless the check located a stale column
            // beside it (then that decode would go through the stale column).
            let Some(right) = c.check.decoded.get(&(pos, i as usize)) else {
                return false;
            };
            let (s, t) = ((i * block).max(o), ((i + 1) * block).min(o + n));
            bytes[(s - o) as usize..(t - o) as usize]
                .copy_from_slice(&right[(s - i * block) as usize..(t - i * block) as usize]);
        }
        true
    }

    /// A settle's cached extent `x` of home stripe `(file, stripe)`, read into `bytes`: the
    /// located stale bytes of its cache stripe replaced by their right value (`checks`:
    /// each checked cache stripe of the home stripe), and the checksum blocks of the
    /// element no single column explains returned (their bytes are unknown: lost), each
    /// with its lost range's token (`STALE_CACHE`).
    pub(super) fn correct_stale_extent(
        &self,
        checks: &[CheckedCacheStripe],
        x: &exaraid_plan::Extent,
        bytes: &mut [u8],
    ) -> Vec<(usize, &'static str)> {
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let pos = x.element.pos;
        let (o, n) = (x.element.offset_bytes, x.len_bytes);
        assert_eq!(bytes.len() as u64, n);
        let Some(CheckedCacheStripe { check, .. }) = checks.iter().find(|c| {
            c.chunks.get(&pos.col).is_some_and(|&(oss, base)| {
                let slot = base + pos.row as u64 * e;
                oss == x.oss && slot <= x.addr_bytes && x.addr_bytes < slot + e
            })
        }) else {
            return Vec::new();
        };
        for (p, a, right) in &check.fixes {
            let z = a + right.len() as u64;
            let (s, t) = ((*a).max(o), z.min(o + n));
            if *p != pos || s >= t {
                continue;
            }
            bytes[(s - o) as usize..(t - o) as usize]
                .copy_from_slice(&right[(s - a) as usize..(t - a) as usize]);
        }
        let in_extent = |&i: &usize| (i as u64 * block) < o + n && o < (i as u64 + 1) * block;
        let unlocated = (check.unlocated_blocks.iter().copied()).map(|i| (i, STALE_CACHE));
        // The rows at full tolerance (`unchecked_blocks`) go home in degraded mode, not lost
        // (see `read_and_check_cache_stripe`): their erased blocks are decoded by the
        // settle's read, which checks what it can.
        unlocated.filter(|(i, _)| in_extent(i)).collect()
    }

    /// The checksum blocks (element offset / block) of cached bytes `bytes` of `file`, file
    /// byte `fa` and element byte `eo` their first, as a settle or destage will move them
    /// home (located stale bytes corrected), that differ from a piece of the cache-zone
    /// witness (`State::cache_witness`) lying within them: the bytes of a write the OSS
    /// lost. A piece reaching past `bytes` is not checked.
    pub(super) fn witness_stale_blocks(
        &self,
        core: &Core,
        file: u64,
        (fa, eo): (u64, u64),
        bytes: &[u8],
    ) -> Vec<usize> {
        let n = bytes.len() as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let mut out = Vec::new();
        for (pa, pz, crc) in core.state.cache_witness_in(file, fa, fa + n) {
            if pa < fa || pz > fa + n {
                continue;
            }
            if crc32c::crc32c(&bytes[(pa - fa) as usize..(pz - fa) as usize]) != crc {
                let i = ((eo + (pa - fa)) / block) as usize;
                if !out.contains(&i) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// A WCL destage's reads (`read_bytes`, one per read step: whole cache elements of a
    /// complete cache stripe) checked against the running parity before they go home (see
    /// the module docs): a located stale element goes home with its right bytes; blocks no
    /// single column explains are recorded lost (every data byte of the cache stripe
    /// there) and their parity is encoded from the data that goes home, so that the home
    /// stripe agrees with itself and the rest of it stays protected. Not checked with a
    /// column on an OSS out of service (its read is a decode that checks the parity left).
    /// Returns the ranges recorded lost.
    pub(super) fn check_destage_reads(
        &self,
        plan: &IoPlan,
        (file, stripe): (u64, u64),
        read_bytes: &mut [Option<Vec<u8>>],
    ) -> Result<Vec<LostRange>, StoreError> {
        if self.kind != StrategyKind::Wcl || self.tolerance() == 0 {
            return Ok(Vec::new());
        }
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes;
        let mut buf = StripeBuf::zeroed(g.rows, g.cols, e);
        let mut seen: BTreeSet<Pos> = BTreeSet::new();
        // Where each element's bytes are: (step, offset in its read).
        let mut at: BTreeMap<Pos, (usize, usize)> = BTreeMap::new();
        for (i, step) in plan.steps.iter().enumerate() {
            if step.op != Op::Read || step.zone != PlanZone::Cache {
                continue;
            }
            if !self.backends[step.oss].healthy() {
                return Ok(Vec::new());
            }
            let Some(bytes) = read_bytes[i].as_ref() else {
                return Ok(Vec::new());
            };
            let mut off = 0usize;
            for piece in &step.pieces {
                let el = &piece.element;
                let len = el.len_bytes as usize;
                if el.offset_bytes != 0 || len != e {
                    return Ok(Vec::new()); // not a whole-element destage read: not checked
                }
                buf.element_mut(el.pos)
                    .copy_from_slice(&bytes[off..off + len]);
                seen.insert(el.pos);
                at.insert(el.pos, (i, off));
                off += len;
            }
        }
        let cells = (0..g.rows)
            .flat_map(|row| (0..g.cols).map(move |col| Pos { row, col }))
            .filter(|&p| !matches!(g.cell(p), Cell::Empty));
        if cells.clone().any(|p| !seen.contains(&p)) {
            return Ok(Vec::new()); // not every element read here
        }
        let whole = |p: Pos| -> Vec<(u64, u64)> {
            match g.cell(p) {
                Cell::Empty => Vec::new(),
                _ => vec![(0, e as u64)],
            }
        };
        let mut check = self.check_running_parity(&mut buf, &whole, &BTreeSet::new());
        for (p, a, right) in &check.fixes {
            let (i, off) = at[p];
            let bytes = read_bytes[i].as_mut().expect("read above");
            buf.element_mut(*p)[*a as usize..*a as usize + right.len()].copy_from_slice(right);
            let a = off + *a as usize;
            bytes[a..a + right.len()].copy_from_slice(right);
        }
        // Data blocks that differ from the last acknowledged write's crc on record (the
        // cache-zone witness, s43b; located stale bytes corrected first): lost, only that
        // column's block, and the block row's parity encoded from the data that goes home
        // as for an unlocated row (where the running parity agreed with the stale bytes, a
        // stale parity too, or disagreed without a located column).
        let mut witness_stale: BTreeSet<(Pos, usize)> = BTreeSet::new();
        {
            let core = self.core.lock();
            for &p in &g.data_pos {
                let Cell::Data(d) = g.cell(p) else {
                    continue;
                };
                let fa = self.layout.file_offset(stripe, d, 0);
                for i in self.witness_stale_blocks(&core, file, (fa, 0), buf.element(p)) {
                    witness_stale.insert((p, i));
                }
            }
        }
        if check.is_clean() && witness_stale.is_empty() {
            return Ok(Vec::new());
        }
        // Rows with only witness-stale blocks: their parity follows the data too.
        let unlocated_before = check.unlocated_blocks.clone();
        check
            .unlocated_blocks
            .extend(witness_stale.iter().map(|&(_, i)| i));
        if check.unlocated_blocks.is_empty() {
            return Ok(Vec::new());
        }
        // Unlocated: the data stays as read (unknown, on record lost), the parity follows it.
        let mut encoded = buf.clone();
        self.code
            .encode(&mut encoded)
            .map_err(|err| StoreError::Io(err.to_string()))?;
        let block = CHECKSUM_BLOCK_BYTES;
        let mut ranges: Vec<LostRange> = Vec::new();
        for &i in &check.unlocated_blocks {
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            for &p in &g.parity_pos {
                let (s, off) = at[&p];
                let bytes = read_bytes[s].as_mut().expect("read above");
                bytes[off + bs..off + be].copy_from_slice(&encoded.element(p)[bs..be]);
            }
            for &p in &g.data_pos {
                let Cell::Data(d) = g.cell(p) else {
                    continue;
                };
                let by_witness = witness_stale.contains(&(p, i));
                if !unlocated_before.contains(&i) && !by_witness {
                    continue; // a row lost only by the witness: only its stale blocks
                }
                let oss = self.layout.oss_of(file, stripe, p.col);
                ranges.push(LostRange {
                    file,
                    offset_bytes: self.layout.file_offset(stripe, d, bs as u64),
                    len_bytes: (be - bs) as u64,
                    oss,
                    token: if by_witness && !unlocated_before.contains(&i) {
                        WITNESS_STALE.into()
                    } else {
                        STALE_CACHE.into()
                    },
                    cache_addr_bytes: None,
                    made_final_by_rebuild: false,
                });
            }
        }
        self.journal_lost_in_file(plan.id, file, ranges)
    }

    /// Journal (synced) `ranges` of `file` LOST, clipped to the file's size first (bytes past
    /// its end are no file bytes), for `plan` (a destage, or a write's check of its cache
    /// stripe); returns what was recorded. Under the same lock, every write in flight
    /// admitted before `plan` notes them (`WriteInFlight`): its end never clears them from
    /// the lost record as rewritten, and fails naming them.
    fn journal_lost_in_file(
        &self,
        plan: PlanId,
        file: u64,
        mut ranges: Vec<LostRange>,
    ) -> Result<Vec<LostRange>, StoreError> {
        let mut core = self.core.lock();
        let size = core.state.file_by_id(file).map_or(0, |(_, m)| m.size_bytes);
        ranges.retain_mut(|r| {
            r.len_bytes = r.len_bytes.min(size.saturating_sub(r.offset_bytes));
            r.len_bytes > 0
        });
        if !ranges.is_empty() {
            self.journal(
                &mut core,
                Rec::Lost {
                    ranges: ranges.clone(),
                },
                true,
            )?;
            for w in core.writes_in_flight.values_mut() {
                w.note_lost_by_plan(plan, &ranges);
            }
        }
        Ok(ranges)
    }

    /// A WCL destage whose reads failed (`err`): a cache block neither read nor rebuilt,
    /// typically a rotten block whose rebuild the parity left refuses (a stale element
    /// beside it in the same block row: one parity fewer than the check needs). Instead of
    /// failing, the destage does what a settle does (`read_and_check_cache_stripe`: the
    /// blocks that do not read are erasures of the check): located stale bytes go home
    /// right, an unreadable block whose row the parity left explains goes home decoded,
    /// and in the block rows nothing explains every data byte of the cache stripe is
    /// recorded lost (`UNREADABLE_CACHE` for the blocks that did not read, `STALE_CACHE`
    /// for the rest) and their parity is encoded from the data that goes home, so the home
    /// stripe agrees with itself. Why: failing here failed the client write whose bytes
    /// were durable (the destage runs after its acknowledgement is on record) and
    /// poisoned the store, only for the reopen's recovery to record the same bytes lost.
    /// Returns the ranges recorded lost (journaled, synced). Returns `err` where the check
    /// cannot decide (an OSS out of service, a block row with as many unreadable columns
    /// as the code tolerates, not a whole-stripe read): the destage fails as before.
    pub(super) fn destage_reads_by_check(
        &self,
        plan: &IoPlan,
        (file, stripe): (u64, u64),
        read_bytes: &mut [Option<Vec<u8>>],
        err: StoreError,
    ) -> Result<Vec<LostRange>, StoreError> {
        if self.kind != StrategyKind::Wcl
            || self.tolerance() == 0
            || !matches!(err, StoreError::DataLost(_))
        {
            return Err(err);
        }
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes;
        // Each element's read: (step, offset in its read); each column's chunk.
        let mut at: BTreeMap<Pos, (usize, usize)> = BTreeMap::new();
        let mut chunks: Chunks = Chunks::new();
        for (i, step) in plan.steps.iter().enumerate() {
            if step.op != Op::Read {
                continue;
            }
            if step.zone != PlanZone::Cache {
                return Err(err); // not a destage's read: not checked
            }
            let mut off = 0usize;
            for piece in &step.pieces {
                let el = &piece.element;
                if el.offset_bytes != 0 || el.len_bytes as usize != e {
                    return Err(err); // not a whole-element destage read
                }
                let base = step.addr_bytes + off as u64 - el.pos.row as u64 * e as u64;
                if *chunks.entry(el.pos.col).or_insert((step.oss, base)) != (step.oss, base) {
                    return Err(err); // one column in two chunks: not one cache stripe
                }
                at.insert(el.pos, (i, off));
                off += e;
            }
        }
        let cells = (0..g.rows)
            .flat_map(|row| (0..g.cols).map(move |col| Pos { row, col }))
            .filter(|&p| !matches!(g.cell(p), Cell::Empty));
        if cells.clone().any(|p| !at.contains_key(&p)) {
            return Err(err); // not every element read here
        }
        let Some(checked) =
            self.read_and_check_cache_stripe(None, file, stripe, &(chunks, true), false)?
        else {
            return Err(err);
        };
        if !checked.check.unchecked_blocks.is_empty() {
            return Err(err); // nothing checks a decode of those rows: failed as before
        }
        let check = &checked.check;
        let mut buf = checked.read.clone();
        for (p, a, right) in &check.fixes {
            let a = *a as usize;
            buf.element_mut(*p)[a..a + right.len()].copy_from_slice(right);
        }
        let block = CHECKSUM_BLOCK_BYTES;
        // Unreadable blocks of rows the parity left explains: decoded (as the check did).
        let mut cols_of_row: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &(p, i) in &checked.erased {
            if !check.unlocated_blocks.contains(&i) {
                cols_of_row.entry(i).or_default().insert(p.col);
            }
        }
        for (i, cols) in cols_of_row {
            // From the bytes with the located stale ones corrected: a stale column beside
            // the erased ones (s28d) would give them wrong bytes.
            let mut trial = buf.clone();
            let cols: Vec<usize> = cols.into_iter().collect();
            if self.code.decode(&mut trial, &cols).is_err() {
                return Err(err);
            }
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            for &(p, j) in checked.erased.iter().filter(|&&(_, j)| j == i) {
                assert_eq!(j, i);
                buf.element_mut(p)[bs..be].copy_from_slice(&trial.element(p)[bs..be]);
            }
        }
        // Unlocated rows: the data stays as read (unknown, on record lost; zeros where it
        // did not read), the parity follows it.
        let mut ranges: Vec<LostRange> = Vec::new();
        if !check.unlocated_blocks.is_empty() {
            let mut encoded = buf.clone();
            self.code
                .encode(&mut encoded)
                .map_err(|err| StoreError::Io(err.to_string()))?;
            for &i in &check.unlocated_blocks {
                let (bs, be) = (i * block, ((i + 1) * block).min(e));
                for &p in &g.parity_pos {
                    buf.element_mut(p)[bs..be].copy_from_slice(&encoded.element(p)[bs..be]);
                }
                for &p in &g.data_pos {
                    let Cell::Data(d) = g.cell(p) else {
                        continue;
                    };
                    let token = if checked.erased.contains(&(p, i)) {
                        super::exec::UNREADABLE_CACHE
                    } else {
                        STALE_CACHE
                    };
                    ranges.push(LostRange {
                        file,
                        offset_bytes: self.layout.file_offset(stripe, d, bs as u64),
                        len_bytes: (be - bs) as u64,
                        oss: self.layout.oss_of(file, stripe, p.col),
                        token: token.into(),
                        cache_addr_bytes: None,
                        made_final_by_rebuild: false,
                    });
                }
            }
        }
        for (p, (i, off)) in at {
            let bytes =
                read_bytes[i].get_or_insert_with(|| vec![0u8; plan.steps[i].len_bytes as usize]);
            bytes[off..off + e].copy_from_slice(buf.element(p));
        }
        assert!(ranges.len() <= g.data_count() * e.div_ceil(block));
        self.journal_lost_in_file(plan.id, file, ranges)
    }

    /// `settle`: the cache stripes of home stripe `(file, stripe)` checked against their
    /// running parity, with the bytes each check read (clean ones too: the settle takes its
    /// cached bytes from them, `cached_bytes_from_check`).
    pub(super) fn stale_cache_checks(
        &self,
        core: &Core,
        file: u64,
        stripe: u64,
    ) -> Result<Vec<CheckedCacheStripe>, StoreError> {
        let mut out = Vec::new();
        for generation in self.cache_generations(file, stripe) {
            if let Some(checked) =
                self.read_and_check_cache_stripe(Some(core), file, stripe, &generation, true)?
            {
                out.push(checked);
            }
        }
        Ok(out)
    }

    /// `scrub` of one home stripe's WCL cache stripes (its stripe lock held, completions
    /// held back): each checked against its running parity. A disagreement is a parity
    /// mismatch of the stripe (rc 2); `repair` rewrites a located stale element's blocks
    /// with their right bytes (in its live ranges; the rest of each block as it is) and
    /// reports the rest unrepairable (the next move home records those bytes lost).
    pub(super) fn scrub_cache_stripe_parity(
        &self,
        repair: bool,
        (file, stripe, name): (u64, u64, &str),
        report: &mut ScrubReport,
    ) -> Result<(), StoreError> {
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        let mut reported = false;
        for generation in self.cache_generations(file, stripe) {
            let Some(check) = self.check_cache_stripe_on_disk(None, file, stripe, &generation)?
            else {
                continue;
            };
            if check.is_clean() {
                continue;
            }
            if !reported {
                report.parity_mismatches.push((name.to_string(), stripe));
                reported = true;
            }
            let file_name = read::describe_file_name(name);
            if !repair {
                continue;
            }
            let mut by_pos: BTreeMap<Pos, Vec<&Fix>> = BTreeMap::new();
            for fix in &check.fixes {
                by_pos.entry(fix.0).or_default().push(fix);
            }
            for (pos, fixes) in by_pos {
                let (oss, base) = generation.0[&pos.col];
                let key = self.key(PlanZone::Cache, file, base + pos.row as u64 * e as u64);
                let mut element = vec![0u8; e];
                self.count(oss, Zone::Cache, Op::Read, false);
                if let Err(err) = self.backends[oss].read_unverified(key, &mut element) {
                    report.unrepairable.push(format!(
                        "{file_name} stripe {stripe}: a stale element of its cache stripe (row {} column {}, OSS {oss}) was located but could not be read to rewrite it: {err}",
                        pos.row, pos.col
                    ));
                    continue;
                }
                let mut blocks: BTreeSet<u64> = BTreeSet::new();
                for (_, a, right) in fixes {
                    let a = *a as usize;
                    element[a..a + right.len()].copy_from_slice(right);
                    blocks.extend((a / block..(a + right.len()).div_ceil(block)).map(|i| i as u64));
                }
                for &n in &blocks {
                    let at = n as usize * block;
                    let end = (at + block).min(e);
                    self.count(oss, Zone::Cache, Op::Write, false);
                    self.backends[oss].write(key, at, &element[at..end])?;
                }
                report.stale_repaired.push(format!(
                    "{file_name} stripe {stripe}: cache element row {} column {} on OSS {oss} was stale (its cache stripe's running parity located it); blocks {blocks:?} rewritten",
                    pos.row, pos.col
                ));
            }
            if !check.unlocated_blocks.is_empty() {
                report.unrepairable.push(format!(
                    "{file_name} stripe {stripe}: its cache stripe's running parity disagrees with its data in element blocks {:?} and no single stale column explains it; the next move home (flush, destage) records those bytes lost: write them again first, or restore the file",
                    check.unlocated_blocks
                ));
            }
        }
        Ok(())
    }

    /// A WCL client write plan that reads data bytes of its open cache stripe (the old value
    /// its running-parity delta XORs out: an overwrite of cached bytes) checks that cache
    /// stripe against its running parity first (review s13r R13-1). Why: a stale element
    /// (a lost cache write: old bytes under a valid checksum) read as the old value makes
    /// the delta encode `new ^ lost ^ stale` in every parity while the element holds `new`;
    /// the check before the next move home then "locates" the right bytes as the stale ones
    /// and replaces acknowledged bytes with wrong ones (or, one parity, records them lost).
    /// A located stale element is rewritten with its right bytes before the plan reads it,
    /// so the delta XORs out the right old value. Blocks no single column explains: every
    /// live data byte of the cache stripe there is recorded lost (`STALE_CACHE`; this
    /// write's own bytes are durable again when it returns, `Rec::Rewritten`) and their
    /// running parity is encoded from the data as it is, so the delta starts from a parity
    /// that agrees and this write's bytes go home right. Costs nothing unless the plan
    /// overwrites cached bytes; these reads and rewrites are outside the plan's `IoPlan` and
    /// not counted as ops (the planner and the simulator count the same plan).
    pub(super) fn verify_cache_before_delta(&self, plan: &IoPlan) -> Result<(), StoreError> {
        if self.kind != StrategyKind::Wcl
            || self.tolerance() == 0
            || !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
        {
            return Ok(());
        }
        let e = self.sb.element_bytes as u64;
        // The chunks whose data bytes this plan reads, per home stripe.
        let mut read_chunks: BTreeMap<(u64, u64), Chunks> = BTreeMap::new();
        for step in &plan.steps {
            if step.op != Op::Read || step.zone != PlanZone::Cache {
                continue;
            }
            let mut at = 0u64;
            for piece in &step.pieces {
                let el = &piece.element;
                let base = step.addr_bytes + at - el.pos.row as u64 * e - el.offset_bytes;
                at += el.len_bytes;
                if matches!(el.cell, Cell::Data(_)) {
                    read_chunks
                        .entry((step.file, el.stripe))
                        .or_default()
                        .insert(el.pos.col, (step.oss, base));
                }
            }
        }
        for ((file, stripe), chunks) in read_chunks {
            for generation in self.cache_generations(file, stripe) {
                let of_this = chunks
                    .iter()
                    .all(|(col, at)| generation.0.get(col) == Some(at));
                if !of_this {
                    continue;
                }
                // Live bytes from the planner's lookup less the plans not run yet, also of
                // a cache stripe marked complete: the plan that completes it may be this
                // one, its new bytes not written yet.
                let as_open = (generation.0.clone(), false);
                let Some(CheckedCacheStripe {
                    live,
                    read: buf,
                    erased,
                    check,
                    ..
                }) = self.read_and_check_cache_stripe(None, file, stripe, &as_open, false)?
                else {
                    continue;
                };
                if check.is_clean() {
                    continue;
                }
                // Also beside blocks that do not read (R13-2): a stale element located by
                // the decode of their column, else the delta would XOR it out and make the
                // running parity agree on a third value of that column.
                self.rewrite_located_stale(file, &generation.0, &check.fixes)?;
                // Not re-encoded beside blocks that do not read (the encode would take
                // their zeros for data): the move home finds those rows unlocated again
                // and records their bytes lost.
                if !check.unlocated_blocks.is_empty() && erased.is_empty() {
                    self.reencode_unlocated_blocks(
                        plan.id,
                        (file, stripe),
                        &generation.0,
                        &check.unlocated_blocks,
                        &buf,
                        &live,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Write located stale bytes of a cache stripe (`fixes`, live ranges only) over their
    /// elements, block by block (each block's bytes outside the fix as they are on disk).
    fn rewrite_located_stale(
        &self,
        file: u64,
        chunks: &Chunks,
        fixes: &[Fix],
    ) -> Result<(), StoreError> {
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        let mut by_pos: BTreeMap<Pos, Vec<&Fix>> = BTreeMap::new();
        for fix in fixes {
            by_pos.entry(fix.0).or_default().push(fix);
        }
        for (pos, fixes) in by_pos {
            let (oss, base) = chunks[&pos.col];
            let key = self.key(PlanZone::Cache, file, base + pos.row as u64 * e as u64);
            let mut element = vec![0u8; e];
            self.backends[oss]
                .read_unverified(key, &mut element)
                .map_err(|err| {
                    StoreError::Io(format!(
                        "OSS {oss}: reading a stale cache element to correct it: {err}"
                    ))
                })?;
            let mut blocks: BTreeSet<usize> = BTreeSet::new();
            for (_, a, right) in fixes {
                let a = *a as usize;
                element[a..a + right.len()].copy_from_slice(right);
                blocks.extend(a / block..(a + right.len()).div_ceil(block));
            }
            for n in blocks {
                let (at, end) = (n * block, ((n + 1) * block).min(e));
                self.backends[oss]
                    .write(key, at, &element[at..end])
                    .map_err(|err| {
                        StoreError::Io(format!(
                            "OSS {oss}: correcting a stale cache element: {err}"
                        ))
                    })?;
            }
        }
        Ok(())
    }

    /// Blocks of a cache stripe whose running parity disagrees with its data and no single
    /// column explains: their live data bytes recorded lost (`STALE_CACHE`), then their
    /// running parity (its live ranges) encoded from the data as read (`buf`, `live` as
    /// `read_and_check_cache_stripe` returns them), so that it agrees with the data again.
    fn reencode_unlocated_blocks(
        &self,
        plan: PlanId,
        (file, stripe): (u64, u64),
        chunks: &Chunks,
        unlocated: &BTreeSet<usize>,
        buf: &StripeBuf,
        live: &[Vec<(u64, u64)>],
    ) -> Result<(), StoreError> {
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes;
        let block = CHECKSUM_BLOCK_BYTES;
        let live_at = |p: Pos| -> &[(u64, u64)] {
            match g.cell(p) {
                Cell::Data(d) => &live[d],
                Cell::Parity(q) => &live[g.data_count() + q],
                Cell::Empty => &[],
            }
        };
        let in_block = |p: Pos, i: usize| -> Vec<(usize, usize)> {
            let (bs, be) = (i * block, ((i + 1) * block).min(e));
            live_at(p)
                .iter()
                .map(|&(a, z)| ((a as usize).max(bs), (z as usize).min(be)))
                .filter(|(a, z)| a < z)
                .collect()
        };
        let mut ranges: Vec<LostRange> = Vec::new();
        for &i in unlocated {
            for &p in &g.data_pos {
                let Cell::Data(d) = g.cell(p) else {
                    continue;
                };
                for (a, z) in in_block(p, i) {
                    ranges.push(LostRange {
                        file,
                        offset_bytes: self.layout.file_offset(stripe, d, a as u64),
                        len_bytes: (z - a) as u64,
                        oss: chunks.get(&p.col).map_or(0, |&(oss, _)| oss),
                        token: STALE_CACHE.into(),
                        cache_addr_bytes: None,
                        made_final_by_rebuild: false,
                    });
                }
            }
        }
        // On record before the parity that no longer covers them is written; the bytes of
        // earlier writes still in flight among them noted on those writes (this plan's own
        // write has a `Rewritten` for them).
        self.journal_lost_in_file(plan, file, ranges)?;
        let mut encoded = buf.clone();
        self.code
            .encode(&mut encoded)
            .map_err(|err| StoreError::Io(err.to_string()))?;
        for &p in &g.parity_pos {
            let Some(&(oss, base)) = chunks.get(&p.col) else {
                continue;
            };
            let key = self.key(PlanZone::Cache, file, base + p.row as u64 * e as u64);
            let mut element = vec![0u8; e];
            self.backends[oss]
                .read_unverified(key, &mut element)
                .map_err(|err| {
                    StoreError::Io(format!(
                        "OSS {oss}: reading a running parity element to re-encode it: {err}"
                    ))
                })?;
            for &i in unlocated {
                let ranges = in_block(p, i);
                if ranges.is_empty() {
                    continue;
                }
                for (a, z) in ranges {
                    element[a..z].copy_from_slice(&encoded.element(p)[a..z]);
                }
                let (at, end) = (i * block, ((i + 1) * block).min(e));
                self.backends[oss]
                    .write(key, at, &element[at..end])
                    .map_err(|err| {
                        StoreError::Io(format!(
                            "OSS {oss}: re-encoding a running parity block: {err}"
                        ))
                    })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Session 29 (s29d, F5 of s28a): the planner puts every column's cache chunk on that
    /// column's OSS (`Layout::oss_of`). A chunk named on another OSS is a broken invariant
    /// of the store, not a cache stripe with nothing written: taken as nothing written, the
    /// caller checked the running parity against zeros and named acknowledged bytes LOST.
    #[test]
    #[should_panic(expected = "stripe 0: the cache chunk of column 1 (at")]
    fn a_cache_chunk_named_on_another_oss_than_its_column_s_stops_the_store_instead_of_reading_as_nothing_written(
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = InitOptions::with_oss_count(dir.path(), 5, CodeSpec::raid5(4));
        opts.element_bytes = 4096;
        opts.write_path = WritePath::Wcl;
        let store = Store::init(dir.path(), &opts).unwrap();
        let sdb = store.layout().stripe_data_bytes();
        let bytes: Vec<u8> = (0..2 * sdb)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 29) as u8)
            .collect();
        store.put("f", &bytes).unwrap();
        // Cached: element 0 and the first 1000 bytes of element 1 of stripe 0.
        store.write("f", 0, &bytes[..5096]).unwrap();
        let file = store.file_id("f").unwrap();
        let generations = store.cache_generations(file, 0);
        let (chunks, complete) = generations.last().expect("an open cache stripe");
        assert!(!complete, "stripe 0's cache stripe is open");
        let written = store.planned_cache_written(None, file, 0, chunks);
        assert_eq!(
            written[1],
            vec![(0, 1000)],
            "element 1's cached bytes, with every chunk where the planner put it"
        );
        let mut moved = chunks.clone();
        let (oss, base) = moved[&1];
        moved.insert(1, ((oss + 1) % 5, base));
        let _ = store.planned_cache_written(None, file, 0, &moved);
    }
}
