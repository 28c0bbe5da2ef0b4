//! A refuted old version of a cut write's block row rolled forward where every
//! acknowledged byte the row keeps is checked (session 49, s49b; review r47b MEDIUM-1,
//! review r48a HIGH).
//!
//! s47b's refutations (`every_world_old_refuted`, `unchecked_worlds_refuted`, s48b's
//! `in_pages` twins) name the row LOST where a data block of the write kept OLD over
//! acknowledged bytes disagrees with the rest of the old version. One check at the stale
//! offsets cannot tell a stale data block from a stale running parity block: with Q's OSS
//! the lost write's (the data right, Q old under its valid checksum) such rows read right
//! on c092d8a5 and are LOST since (raid6 4 KiB, `R47B_STALE_COL=5`).
//!
//! s48a rolled the kept-old block's part of the write forward where its new bytes, decoded
//! from the new version, hold the crc the write journaled for exactly that part: the write
//! is cut, unacknowledged, may land per block, so those bytes are right whichever column
//! is stale. The lead withdrew it (review r48a HIGH): the block's acknowledged bytes
//! OUTSIDE the part were kept as they stand and the row's parity rewritten from them; a
//! second lost write there (D2's 500..600, where the old version erases D3 and P) read
//! WRONG where the cache witness holds no piece.
//!
//! Here the roll is taken only where every acknowledged data byte of the row outside the
//! rolled parts lies at an offset some version CHECKS (`refuted_offsets`: a segment with a
//! column to spare, or a told crc of an erased block over it that holds), in a version that
//! KNOWS that byte where it is kept as it stands, and no version disagrees there: outside
//! the parts the rolled block and every calm column hold the same bytes in both versions,
//! so a check in either proves them. In r48a's scene (cut #138, traced) both refuse: the
//! old version with the torn D3 known per page (`old_in_pages`) disagrees at 500..600,
//! outside the part, and the NEW version checks 0..1000 by the write's crc of D3's part
//! (D3 and Q erased there, D2 as it stands enters the decode of D3), which the second stale
//! range breaks. Where a told crc refutes a version, its whole told range counts as refuted
//! (it locates nothing finer); a told range a segment past the tolerance leaves undecoded
//! is neither checked nor refuted.
//!
//! Not rolled (OPEN, docs/results/s49-s49b.md): a TORN data block whose part holds the
//! refuted offsets (its new part may decode, but the caller decodes a failing block
//! again after the fixes: not argued), and rows whose new part no version decodes.

use super::*;

/// Why `part_decoded_new` did not prove a part new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PartUnproven {
    /// The new version knows the block in a segment of its part (not kept old there).
    KeptOldKnown,
    /// A segment past the tolerance, not decoding, disagreeing, or the crc not held.
    NotDecoded,
}

impl Store {
    /// Where s47b's refutations name the row LOST (`every_world_old_refuted`,
    /// `unchecked_worlds_refuted`): `Located` with the kept-old blocks' parts of the write
    /// rolled forward where `refuted_parts_proven_new` proves it, else `Unlocated` as before.
    pub(super) fn refuted_row_rolled_forward(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        choices: &[(Pos, Vec<BlockVersion>)],
        plan: PlanId,
    ) -> CutRowStale {
        match self.refuted_parts_proven_new(v, crcs, choices, plan) {
            Some(fixes) => CutRowStale::Located(fixes),
            None => CutRowStale::Unlocated,
        }
    }

    /// The fixes (`(pos, block bytes)`: the part new, the rest as it stands) where, in the
    /// row's ONE world (its assignment told by the crcs: which blocks to roll is not known
    /// across several):
    /// 1. each data block kept old over acknowledged bytes has its part wholly acknowledged
    ///    (the caller lays a fix over acknowledged bytes only) and its crc on record;
    /// 2. both old versions (`old_in_pieces`, `old_in_pages`) disagree only at offsets
    ///    inside those parts (`refuted_offsets`), and somewhere (the refutation located);
    /// 3. the new version (`new_in_pieces`) disagrees nowhere it checks;
    /// 4. every acknowledged data byte of the row outside the parts lies where the new
    ///    version or an old one checks (`refuted_offsets`), one that knows the byte where
    ///    it is kept as it stands: those bytes are proven (review r48a HIGH);
    /// 5. each part's new bytes, decoded segment by segment from the new version with at
    ///    most the tolerance's columns erased, agree with every position known there, are
    ///    zeros where an erased position is dead, and hold the write's crc for the part.
    ///
    /// `None` otherwise (the row LOST, as s47b).
    fn refuted_parts_proven_new(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        choices: &[(Pos, Vec<BlockVersion>)],
        plan: PlanId,
    ) -> Option<Vec<(Pos, Vec<u8>)>> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (v.i as u64 * block, (v.i as u64 + 1) * block);
        let none: Ranges = Vec::new();
        let Some((assignments, false)) = self.checkable_assignments(choices) else {
            return None;
        };
        let [assigned] = &assignments[..] else {
            return None;
        };
        let w = self.cut_row_versions(v, crcs, assigned);
        // (1) The data blocks kept old over acknowledged bytes and their parts.
        let mut rolled: Vec<(Pos, (usize, usize), u32)> = Vec::new();
        for (p, (x, y), crc) in self.kept_old_cut_parts(v, crcs, assigned) {
            let (a, z) = (start + x as u64, start + y as u64);
            let acked = v.acked.get(&p).unwrap_or(&none);
            let crc = crc.filter(|_| outside(acked, a, z).is_empty())?;
            rolled.push((p, (x, y), crc));
        }
        assert!(rolled.len() <= g.data_pos.len(), "one part per data block");
        if rolled.is_empty() {
            return None;
        }
        let inside = |x: usize| rolled.iter().any(|&(_, (a, z), _)| a <= x && x < z);
        // (2) Both old versions refuted only inside the parts, and refuted.
        let olds = [
            self.old_in_pieces(v, crcs, assigned, &w),
            self.old_known(v, crcs, Some(plan), assigned, &w),
        ];
        let mut located = false;
        let mut checks: Vec<(&Version, Vec<bool>)> = Vec::new();
        for old in &olds {
            let (wrong, old_checked) = self.refuted_offsets(old);
            assert_eq!(
                wrong.len(),
                block as usize,
                "a flag per byte of the block row"
            );
            if (0..wrong.len()).any(|x| wrong[x] && !inside(x)) {
                return None;
            }
            located |= wrong.iter().any(|&b| b);
            checks.push((old, old_checked));
        }
        if !located {
            return None;
        }
        // (3) The new version agrees wherever it checks.
        let new = self.new_in_pieces(v, crcs, assigned, &w);
        let (wrong, new_checked) = self.refuted_offsets(&new);
        if wrong.iter().any(|&b| b) {
            return None;
        }
        checks.push((&new, new_checked));
        // (4) Every acknowledged data byte outside the parts checked by some version: one
        // that knows it where it is kept as it stands (a block that verifies, or the rest of
        // a rolled one), any that checks the offset where the caller decodes it (a block
        // that fails its checksum or has no bytes, not fixed here).
        for (p, acked) in v.acked {
            if !matches!(g.cell(*p), Cell::Data(_)) {
                continue;
            }
            let kept = v.held.get(p).is_none_or(|h| h[v.i] == Held::Verified);
            let proven = |b: usize| {
                (checks.iter()).any(|(ver, checked)| checked[b] && (!kept || ver.known_at(p, b)))
            };
            for (a, z) in intersect(acked, &[(start, end)]) {
                let (x, y) = ((a - start) as usize, (z - start) as usize);
                if (x..y).any(|b| !inside(b) && !proven(b)) {
                    return None;
                }
            }
        }
        // (5) Each part's new bytes decoded and proven by the write's crc.
        let mut fixes: Vec<(Pos, Vec<u8>)> = Vec::new();
        for &(p, (a, z), crc) in &rolled {
            let part = match self.part_decoded_new(&new, p, (a, z), crc) {
                Ok(part) => part,
                Err(PartUnproven::KeptOldKnown) => panic!("a block kept old is not new"),
                Err(PartUnproven::NotDecoded) => return None,
            };
            let mut right = v.raw[&p][start as usize..end as usize].to_vec();
            right[a..z].copy_from_slice(&part);
            fixes.push((p, right));
        }
        Some(fixes)
    }

    /// The new bytes of data block `p`'s part `(a, z)` (relative to the block row) of the
    /// cut write, decoded from version `new` segment by segment (cut at its known parts'
    /// ends) with at most the tolerance's columns erased, where every segment agrees with
    /// each position known there, decodes to zeros where an erased position is dead, and
    /// the part holds the write's journaled `crc`. Shared by s49b's roll of a refuted row
    /// (`refuted_parts_proven_new`) and s50e's roll of an unproven kept-old block
    /// (`kept_old_rolled_forward`). `KeptOldKnown` where `new` knows `p` in a segment of
    /// the part (a block kept old is erased in the new version: the caller says whether
    /// that can happen), `NotDecoded` where the part is not proven so. Bounded: one row
    /// clone per segment, at most two segment ends per known part.
    pub(super) fn part_decoded_new(
        &self,
        new: &Version,
        p: Pos,
        (a, z): (usize, usize),
        crc: u32,
    ) -> Result<Vec<u8>, PartUnproven> {
        let m = self.tolerance();
        let start = new.start_bytes;
        assert!(
            a < z && z <= new.row.element_bytes,
            "a part inside the block row"
        );
        let mut ends: BTreeSet<usize> = [a, z].into_iter().collect();
        for &(x, y) in new.known_parts.values().flatten() {
            let (x, y) = ((x - start) as usize, (y - start) as usize);
            ends.extend([x, y].into_iter().filter(|&e| a < e && e < z));
        }
        let mut part = vec![0u8; z - a];
        for s in ends.into_iter().collect::<Vec<usize>>().windows(2) {
            let (x, y) = (s[0], s[1]);
            let erased = self.erased_at(new, x);
            if !erased.contains(&p.col) {
                return Err(PartUnproven::KeptOldKnown);
            }
            if erased.len() > m {
                return Err(PartUnproven::NotDecoded);
            }
            let mut d = new.row.clone();
            if self.code.decode(&mut d, &erased).is_err() || self.code.encode(&mut d).is_err() {
                return Err(PartUnproven::NotDecoded);
            }
            let agrees = (new.known.keys())
                .filter(|q| new.known_at(q, x))
                .all(|q| new.row.element(*q)[x..y] == d.element(*q)[x..y]);
            // An erased position holds zeros outside its live ranges after the write.
            let dead_zero = (new.known.keys()).filter(|q| !new.known_at(q, x)).all(|q| {
                let live = &new.live[q];
                (x..y).all(|b| {
                    let at = start + b as u64;
                    overlaps(live, at, at + 1) || d.element(*q)[b] == 0
                })
            });
            if !agrees || !dead_zero {
                return Err(PartUnproven::NotDecoded);
            }
            part[x - a..y - a].copy_from_slice(&d.element(p)[x..y]);
        }
        if crc32c::crc32c(&part) != crc {
            return Err(PartUnproven::NotDecoded);
        }
        Ok(part)
    }

    /// The columns of version `ver` holding a position not known at byte `x` of the block
    /// row, in order.
    pub(super) fn erased_at(&self, ver: &Version, x: usize) -> Vec<usize> {
        (ver.known.keys())
            .filter(|p| !ver.known_at(p, x))
            .map(|p| p.col)
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .collect()
    }

    /// The offsets of the block row (relative) where version `ver` is refuted: in a
    /// segment (cut at its known parts' ends) with a column to spare, a known position
    /// differing from the decode or an erased one decoding to other than zeros outside its
    /// live ranges; and the whole range of a crc told of a position erased over it whose
    /// decode (the segments' side by side, each with at most the tolerance's columns
    /// erased) does not hold it (a told range some segment leaves undecoded is neither
    /// checked nor refuted). A segment that
    /// erases fewer columns than the tolerance but does not decode counts as refuted
    /// whole. Also the offsets it checks: a segment decoded with a column to spare, or the
    /// range of a told crc that holds. Bounded: two flags per byte of the block row, one
    /// row clone per segment.
    pub(super) fn refuted_offsets(&self, ver: &Version) -> (Vec<bool>, Vec<bool>) {
        let m = self.tolerance();
        let block = ver.row.element_bytes;
        let start = ver.start_bytes;
        let mut wrong = vec![false; block];
        let mut decoded = vec![false; block];
        let mut checked = vec![false; block];
        let mut d = ver.row.clone();
        let mut ends: BTreeSet<usize> = [0, block].into_iter().collect();
        for &(a, z) in ver.known_parts.values().flatten() {
            ends.extend([(a - start) as usize, (z - start) as usize]);
        }
        for &(_, (x, y), _) in &ver.told {
            assert!(
                x < y && y <= block,
                "a told range lies inside the block row"
            );
            ends.extend([x, y]);
        }
        let parts_count: usize = ver.known_parts.values().map(|r| r.len()).sum();
        assert!(ends.len() <= 2 * (parts_count + ver.told.len()) + 2);
        for s in ends.into_iter().collect::<Vec<usize>>().windows(2) {
            let (x, y) = (s[0], s[1]);
            let erased = self.erased_at(ver, x);
            if erased.len() > m {
                continue; // nothing decodes this segment
            }
            let mut seg = ver.row.clone();
            if (!erased.is_empty() && self.code.decode(&mut seg, &erased).is_err())
                || self.code.encode(&mut seg).is_err()
            {
                if erased.len() < m {
                    wrong[x..y].fill(true); // where it is wrong is not known: everywhere
                }
                continue;
            }
            for &p in ver.known.keys() {
                d.element_mut(p)[x..y].copy_from_slice(&seg.element(p)[x..y]);
            }
            decoded[x..y].fill(true);
            if erased.len() == m {
                continue; // no column to spare: only a told crc checks it (below)
            }
            checked[x..y].fill(true);
            for &p in ver.known.keys() {
                let known = ver.known_at(&p, x);
                let live = &ver.live[&p];
                let (had, got) = (ver.row.element(p), seg.element(p));
                for (b, wrong) in wrong.iter_mut().enumerate().take(y).skip(x) {
                    let at = start + b as u64;
                    *wrong |= if known {
                        had[b] != got[b]
                    } else {
                        !overlaps(live, at, at + 1) && got[b] != 0
                    };
                }
            }
        }
        for (p, (x, y), told) in &ver.told {
            if (*x..*y).any(|b| ver.known_at(p, b)) {
                continue; // known there: the crc is not what checks it
            }
            if !decoded[*x..*y].iter().all(|&b| b) {
                continue; // a segment past the tolerance: the crc checks nothing here
            }
            let bytes = &d.element(*p)[*x..*y];
            let holds = match told {
                Told::Crc(crc) => crc32c::crc32c(bytes) == *crc,
                Told::Zeros => bytes.iter().all(|&b| b == 0),
            };
            if holds {
                checked[*x..*y].fill(true);
            } else {
                wrong[*x..*y].fill(true);
            }
        }
        (wrong, checked)
    }

    /// World `w`'s (`assigned`'s) NEW version with the write's in-flight blocks it does not
    /// know made known where both versions hold the same bytes, as `old_in_pieces` does for
    /// the old one: outside their own write ranges (`known_pieces`' new parts) and outside
    /// their live ranges after the write (zeros). A block known so in the old version at
    /// an offset is known in this one there too (the same untouched and dead ranges, or
    /// fewer dead ones), so a column that refutes the old version there enters this
    /// version's decode as it stands (s48a).
    fn new_in_pieces(
        &self,
        v: &RowView,
        crcs: &RowCrcs,
        assigned: &BTreeMap<Pos, BlockVersion>,
        w: &[Version; 2],
    ) -> Version {
        self.version_in_pieces(v, crcs, assigned, w, 1)
    }
}
