//! Home parity update of one stripe: read-modify-write or reconstruct-write, whichever
//! reads fewer ranges. Shared by STD-RAID (`rmw`) and by delayed parity's END (which brings
//! the window's data home).
//!
//! Given the new bytes of some data ranges of one stripe, the parity elements that contain
//! them must change over the same byte ranges (a parity byte at offset `x` of its element
//! depends only on byte `x` of each of its data terms). Two ways:
//!
//! - **read-modify-write (RMW)**: read the old bytes of every written data range and the old
//!   parity over the affected ranges; `new parity = old parity ^ sum coef * (old ^ new)`.
//! - **reconstruct-write (RCW)**: read the old bytes of the data ranges that are *not*
//!   written but share a parity with written ones; `new parity = sum coef * data` over all
//!   terms (new where written, old where not).
//!
//! Both write the same (new data, new parity), so the choice is by reads: RCW when it
//! needs strictly fewer read requests, else RMW (the seed's STD-RAID path: "reading the
//! original datum and the old parity and writing the new datum and the new parity"). So a
//! one-element write is RMW on RAID-5 with k >= 3 and on RAID-6 with k >= 4 (tie on k=3..4
//! goes to RMW), and a full-stripe write is RCW with zero reads: parity from new data only.

use crate::layout::{ElementRange, Layout};
use crate::plan::{
    Bytes, ParityCompute, ParityMethod, ParityTerm, Piece, PlanBuilder, StepId, Zone,
};
use crate::FileId;
use exaraid_codes::Cell;
use std::collections::{BTreeMap, BTreeSet};

/// New bytes for `[offset_bytes, offset_bytes + len_bytes)` of data element `data`.
#[derive(Clone, Debug)]
pub(crate) struct NewData {
    pub data: usize,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// Where the first new byte comes from; later bytes follow contiguously.
    pub source: Bytes,
    /// Steps that produce `source` (cache reads for delayed parity).
    pub after: Vec<StepId>,
}

/// What the update planned.
#[derive(Debug, Default)]
pub(crate) struct HomeUpdate {
    /// Old-data reads by data element: new data must be written home only after them.
    pub old_data_reads: BTreeMap<usize, Vec<StepId>>,
    pub parity_writes: Vec<StepId>,
}

/// `b` advanced by `by` bytes.
pub(crate) fn shift(b: Bytes, by: u64) -> Bytes {
    match b {
        Bytes::Zero => Bytes::Zero,
        Bytes::Client { file_offset_bytes } => Bytes::Client {
            file_offset_bytes: file_offset_bytes + by,
        },
        Bytes::Read { step, offset_bytes } => Bytes::Read {
            step,
            offset_bytes: offset_bytes + by,
        },
        Bytes::Computed {
            compute,
            offset_bytes,
        } => Bytes::Computed {
            compute,
            offset_bytes: offset_bytes + by,
        },
    }
}

/// Contiguous runs of sorted, disjoint segments.
fn runs(segments: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(a, b) in segments {
        match out.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => out.push((a, b)),
        }
    }
    out
}

/// Index of the new pieces by data element, so lookups stay O(pieces of that element)
/// on 512-wide stripes.
struct ByData<'a> {
    new: &'a [NewData],
    index: BTreeMap<usize, Vec<usize>>,
}

impl<'a> ByData<'a> {
    fn new(new: &'a [NewData]) -> ByData<'a> {
        let mut index: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, n) in new.iter().enumerate() {
            index.entry(n.data).or_default().push(i);
        }
        ByData { new, index }
    }

    /// Index of the new piece of `data` covering `[a, b)`, if any (pieces of one element
    /// are disjoint).
    fn covering(&self, data: usize, a: u64, b: u64) -> Option<usize> {
        let list = self.index.get(&data)?;
        list.iter().copied().find(|&i| {
            let n = &self.new[i];
            n.offset_bytes <= a && b <= n.offset_bytes + n.len_bytes
        })
    }
}

/// Plan the home parity update of `stripe` of `file` for the new data `new` (disjoint ranges).
/// Adds the reads, computes and parity writes to `b`; the caller writes the new data.
pub(crate) fn plan_home_parity(
    b: &mut PlanBuilder,
    layout: &Layout,
    file: FileId,
    stripe: u64,
    new: &[NewData],
) -> HomeUpdate {
    let g = layout.geometry();
    let e_bytes = layout.element_bytes();
    // Affected parities and, per parity, its segments: the byte ranges between breakpoints of
    // its written terms where at least one term is written. Inside a segment every term is
    // either wholly written or wholly not.
    let mut affected: BTreeSet<usize> = BTreeSet::new();
    for n in new {
        assert!(n.len_bytes > 0 && n.offset_bytes + n.len_bytes <= e_bytes);
        affected.extend(g.data_parities[n.data].iter().copied());
    }
    let by_data = ByData::new(new);
    let mut segments: BTreeMap<usize, Vec<(u64, u64)>> = BTreeMap::new();
    for &p in &affected {
        // The written pieces of this parity's terms (few), not its terms (up to 510).
        let terms = &g.parity_terms[p];
        let mine: Vec<&NewData> = by_data
            .index
            .iter()
            .filter(|(&d, _)| terms.binary_search_by_key(&d, |t| t.data).is_ok())
            .flat_map(|(_, list)| list.iter().map(|&i| &new[i]))
            .collect();
        let mut cuts: BTreeSet<u64> = BTreeSet::new();
        for n in &mine {
            cuts.insert(n.offset_bytes);
            cuts.insert(n.offset_bytes + n.len_bytes);
        }
        let cuts: Vec<u64> = cuts.into_iter().collect();
        let segs: Vec<(u64, u64)> = cuts
            .windows(2)
            .map(|w| (w[0], w[1]))
            .filter(|&(a, z)| {
                mine.iter()
                    .any(|n| n.offset_bytes <= a && z <= n.offset_bytes + n.len_bytes)
            })
            .collect();
        segments.insert(p, segs);
    }

    // RMW reads: each written range once, each parity run once.
    let rmw_reads = new.len() + segments.values().map(|s| runs(s).len()).sum::<usize>();
    // RCW needs at least one read per unwritten term of any (parity, segment): when that
    // lower bound already reaches the RMW reads (a small write on a wide stripe), RMW wins
    // without listing the RCW reads (O(written) instead of O(stripe width) per write).
    let mut rcw_lower_bound = 0usize;
    for (&p, segs) in &segments {
        let terms = &g.parity_terms[p];
        for &(a, z) in segs {
            let written = by_data
                .index
                .keys()
                .filter(|&&d| {
                    terms.binary_search_by_key(&d, |t| t.data).is_ok()
                        && by_data.covering(d, a, z).is_some()
                })
                .count();
            rcw_lower_bound = rcw_lower_bound.max(terms.len() - written);
        }
    }
    // RCW reads: per data element, the runs of bytes it must supply but nobody writes.
    let mut rcw_need: BTreeMap<usize, Vec<(u64, u64)>> = BTreeMap::new();
    if rcw_lower_bound < rmw_reads {
        for (&p, segs) in &segments {
            for &(a, z) in segs {
                for t in &g.parity_terms[p] {
                    if by_data.covering(t.data, a, z).is_none() {
                        rcw_need.entry(t.data).or_default().push((a, z));
                    }
                }
            }
        }
        for v in rcw_need.values_mut() {
            v.sort_unstable();
            v.dedup();
            // Segments of different parities may overlap only if identical (same cut points
            // come from the same written pieces for horizontal codes); merge overlaps anyway.
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for &(a, z) in v.iter() {
                match merged.last_mut() {
                    Some(last) if a <= last.1 => last.1 = last.1.max(z),
                    _ => merged.push((a, z)),
                }
            }
            *v = merged;
        }
    }
    let rcw_reads: usize = rcw_need.values().map(|v| v.len()).sum();
    let reconstruct = rcw_lower_bound < rmw_reads && rcw_reads < rmw_reads;

    let mut out = HomeUpdate::default();
    let data_range = |d: usize, a: u64, z: u64| ElementRange {
        stripe,
        pos: g.data_pos[d],
        cell: Cell::Data(d),
        offset_bytes: a,
        len_bytes: z - a,
    };
    let parity_range = |p: usize, a: u64, z: u64| ElementRange {
        stripe,
        pos: g.parity_pos[p],
        cell: Cell::Parity(p),
        offset_bytes: a,
        len_bytes: z - a,
    };
    let home_read = |b: &mut PlanBuilder, zone: Zone, e: ElementRange| {
        let oss = layout.oss_of(file, stripe, e.pos.col);
        b.read(
            oss,
            zone,
            file,
            layout.home_addr(stripe, e.pos, e.offset_bytes),
            e,
        )
    };

    if reconstruct {
        // Old data of the unwritten terms.
        let mut reads: BTreeMap<usize, Vec<(u64, u64, StepId)>> = BTreeMap::new();
        for (&d, ranges) in &rcw_need {
            for &(a, z) in ranges {
                let s = home_read(b, Zone::Data, data_range(d, a, z));
                reads.entry(d).or_default().push((a, z, s));
                out.old_data_reads.entry(d).or_default().push(s);
            }
        }
        for (&p, segs) in &segments {
            let mut pieces = Vec::new();
            let mut write_after = Vec::new();
            for &(a, z) in segs {
                let mut terms = Vec::new();
                let mut after = Vec::new();
                for t in &g.parity_terms[p] {
                    let newb = match by_data.covering(t.data, a, z).map(|i| &new[i]) {
                        Some(n) => {
                            write_after.extend(n.after.iter().copied());
                            after.extend(n.after.iter().copied());
                            shift(n.source, a - n.offset_bytes)
                        }
                        None => {
                            let &(ra, _, s) = reads[&t.data]
                                .iter()
                                .find(|r| r.0 <= a && z <= r.1)
                                .expect("read planned");
                            after.push(s);
                            Bytes::Read {
                                step: s,
                                offset_bytes: a - ra,
                            }
                        }
                    };
                    terms.push(ParityTerm {
                        data: t.data,
                        coef: t.coef,
                        new: newb,
                        old: Bytes::Zero,
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
                    method: ParityMethod::Encode,
                    base: Bytes::Zero,
                    terms,
                    after,
                });
                pieces.push(Piece {
                    element: parity_range(p, a, z),
                    source: Some(Bytes::Computed {
                        compute: c,
                        offset_bytes: 0,
                    }),
                });
            }
            out.parity_writes.extend(write_parity_runs(
                b,
                layout,
                file,
                stripe,
                p,
                pieces,
                write_after,
            ));
        }
    } else {
        // Old data of each written range, old parity of each affected run.
        let old_reads: Vec<StepId> = new
            .iter()
            .map(|n| {
                let s = home_read(
                    b,
                    Zone::Data,
                    data_range(n.data, n.offset_bytes, n.offset_bytes + n.len_bytes),
                );
                out.old_data_reads.entry(n.data).or_default().push(s);
                s
            })
            .collect();
        for (&p, segs) in &segments {
            let parity_reads: Vec<(u64, u64, StepId)> = runs(segs)
                .into_iter()
                .map(|(a, z)| (a, z, home_read(b, Zone::Parity, parity_range(p, a, z))))
                .collect();
            let mut pieces = Vec::new();
            let mut write_after = Vec::new();
            for &(a, z) in segs {
                let &(ra, _, ps) = parity_reads
                    .iter()
                    .find(|r| r.0 <= a && z <= r.1)
                    .expect("parity run read");
                let mut after = vec![ps];
                let mut terms = Vec::new();
                let parity_terms = &g.parity_terms[p];
                let written_terms = by_data.index.keys().filter_map(|&d| {
                    parity_terms
                        .binary_search_by_key(&d, |t| t.data)
                        .ok()
                        .map(|j| parity_terms[j])
                });
                for t in written_terms {
                    if let Some(i) = by_data.covering(t.data, a, z) {
                        let n = &new[i];
                        after.push(old_reads[i]);
                        after.extend(n.after.iter().copied());
                        terms.push(ParityTerm {
                            data: t.data,
                            coef: t.coef,
                            new: shift(n.source, a - n.offset_bytes),
                            old: Bytes::Read {
                                step: old_reads[i],
                                offset_bytes: a - n.offset_bytes,
                            },
                        });
                    }
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
                    method: ParityMethod::Delta,
                    base: Bytes::Read {
                        step: ps,
                        offset_bytes: a - ra,
                    },
                    terms,
                    after,
                });
                pieces.push(Piece {
                    element: parity_range(p, a, z),
                    source: Some(Bytes::Computed {
                        compute: c,
                        offset_bytes: 0,
                    }),
                });
            }
            out.parity_writes.extend(write_parity_runs(
                b,
                layout,
                file,
                stripe,
                p,
                pieces,
                write_after,
            ));
        }
    }
    out
}

/// One home parity write per contiguous run of computed pieces.
fn write_parity_runs(
    b: &mut PlanBuilder,
    layout: &Layout,
    file: FileId,
    stripe: u64,
    parity: usize,
    pieces: Vec<Piece>,
    mut after: Vec<StepId>,
) -> Vec<StepId> {
    after.sort_unstable();
    after.dedup();
    let pos = layout.geometry().parity_pos[parity];
    let oss = layout.oss_of(file, stripe, pos.col);
    crate::plan::contiguous_runs(pieces)
        .into_iter()
        .map(|run| {
            let addr = layout.home_addr(stripe, pos, run[0].element.offset_bytes);
            b.step(
                oss,
                crate::plan::Op::Write,
                Zone::Parity,
                file,
                addr,
                run,
                after.clone(),
            )
        })
        .collect()
}
