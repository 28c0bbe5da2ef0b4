//! The one decoder every code shares.
//!
//! Unknowns are the data elements of the erased columns; equations are the parities that
//! survive (`parity ^ sum coef * data = 0` over GF(2^8); XOR codes have every coef 1).
//! The plan is a list of [`Stage`]s, each "targets = coefs x sources", where a source is a
//! surviving element or a target of an earlier stage:
//! 1. peeling: while some equation has exactly one unknown data element left, solve it from
//!    the shortest such equation. For XOR codes the equations include sums of two parity
//!    equations that are no longer than the longer one, which restores the papers'
//!    unexpanded chains (RDP's diagonal through its row parity, HDP's row through its
//!    anti-diagonal parity); this is the chain decoding of RDP, X-Code, D-Code, H-Code, HDP;
//! 2. if peeling stalls (EVENODD's adjuster, RAID-6 and RS with two or more lost data
//!    columns), Gaussian elimination over GF(2^8) on the remaining unknowns. GF codes take
//!    all of them in one stage (one matrix multiply); XOR codes take the one with the
//!    shortest recipe and go back to peeling;
//! 3. the erased parity elements are recomputed from their (now complete) data;
//! 4. XOR recipes are then shortened with the surviving parity equations where possible.
//!
//! A system that cannot be solved with at most `fault_tolerance` erased columns means a
//! geometry is not MDS: a bug, reported as an error and caught by the exhaustive tests.

use std::collections::{BTreeMap, BTreeSet};

use crate::geometry::{Cell, Geometry, Pos};
use crate::gf256;
use crate::CodeError;

/// `targets[t] = sum_s coefs[t * sources.len() + s] * sources[s]`. Targets and sources of
/// one stage are disjoint; a stage with no sources sets its targets to zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    pub targets: Vec<Pos>,
    pub sources: Vec<Pos>,
    pub coefs: Vec<u8>,
}

impl Stage {
    /// True when every coefficient is 0 or 1, so XOR kernels suffice.
    pub fn is_xor(&self) -> bool {
        self.coefs.iter().all(|&c| c <= 1)
    }
}

/// How to rebuild one erasure pattern.
///
/// A source or target may be [`AUX`], a scratch element in memory that is on no device
/// (EVENODD's adjuster S, see [`DecodePlan::build`]); `uses_aux` says whether any stage
/// does. Planners that count device reads skip it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodePlan {
    pub erased_cols: Vec<usize>,
    pub stages: Vec<Stage>,
    pub uses_aux: bool,
}

/// One parity equation over positions: `sum coef * element = 0`, sorted by position.
type Equation = Vec<(Pos, u8)>;

impl DecodePlan {
    /// Build the plan for `erased_cols` (sorted, unique, in range, at most the tolerance:
    /// the caller checks).
    ///
    /// XOR codes whose parities share one data set three or more times (EVENODD's
    /// adjuster S, in every diagonal parity; found by the same rule as the encode plan's
    /// scratch element) get that set as an auxiliary unknown [`AUX`]: the equations that
    /// contain the set hold AUX instead, and one more equation defines AUX as the set's
    /// sum. Peeling and elimination treat AUX like a lost data element, except that it is
    /// never solved for its own sake. With two lost data columns EVENODD's S is then
    /// computed once (from all P and Q, as the paper's decoder does) and read as one
    /// element by each diagonal, instead of expanded into every diagonal's recipe.
    pub fn build(g: &Geometry, erased_cols: &[usize]) -> Result<DecodePlan, CodeError> {
        assert!(
            erased_cols.windows(2).all(|w| w[0] < w[1]),
            "erased columns sorted and unique"
        );
        assert!(erased_cols.iter().all(|&c| c < g.cols));
        let erased = |pos: Pos| pos != AUX && erased_cols.binary_search(&pos.col).is_ok();
        let mut stages = Vec::new();

        // Empty cells of erased columns hold zeros by definition.
        let empty: Vec<Pos> = (0..g.rows)
            .flat_map(|row| erased_cols.iter().map(move |&col| Pos { row, col }))
            .filter(|&pos| g.cell(pos) == Cell::Empty)
            .collect();
        if !empty.is_empty() {
            stages.push(Stage {
                targets: empty,
                sources: Vec::new(),
                coefs: Vec::new(),
            });
        }

        let xor_only = g.parity_terms.iter().flatten().all(|t| t.coef == 1);
        let shared = if xor_only { shared_subset(g) } else { None };
        let mut unknown: BTreeSet<Pos> = g
            .data_pos
            .iter()
            .copied()
            .filter(|&pos| erased(pos))
            .collect();
        let equations: Vec<usize> = (0..g.parity_count())
            .filter(|&p| !erased(g.parity_pos[p]))
            .collect();

        // 1. Peeling, over the surviving parities' equations written over positions
        //    (`parity + sum coef * data = 0`). For XOR codes the sums of two equations that
        //    are no longer than the longer of the two are added: they restore the papers'
        //    unexpanded chains (RDP's diagonal through the row parity, HDP's horizontal-
        //    diagonal row through its anti-diagonal parity), which the expanded
        //    `parity_terms` hide. Among the equations with exactly one unknown left, the
        //    shortest is used, so recipes read as little as possible.
        let mut eqs: Vec<Equation> = equations
            .iter()
            .map(|&p| {
                let own: Vec<usize> = g.parity_terms[p].iter().map(|t| t.data).collect();
                let mut e: Equation = match &shared {
                    Some(set) if is_subset(set, &own) => {
                        let mut e: Equation = own
                            .iter()
                            .filter(|d| set.binary_search(d).is_err())
                            .map(|&d| (g.data_pos[d], 1))
                            .collect();
                        e.push((AUX, 1));
                        e
                    }
                    _ => g.parity_terms[p]
                        .iter()
                        .map(|t| (g.data_pos[t.data], t.coef))
                        .collect(),
                };
                e.push((g.parity_pos[p], 1));
                e.sort_unstable();
                e
            })
            .collect();
        if let Some(set) = &shared {
            let mut e: Equation = set.iter().map(|&d| (g.data_pos[d], 1)).collect();
            e.push((AUX, 1));
            e.sort_unstable();
            eqs.push(e);
            unknown.insert(AUX);
        }
        let base = eqs.len();
        if xor_only {
            for i in 0..base {
                for j in i + 1..base {
                    let sum = sym_diff(&eqs[i], &eqs[j]);
                    if !sum.is_empty() && sum.len() <= eqs[i].len().max(eqs[j].len()) {
                        eqs.push(sum);
                    }
                }
            }
        }
        let mut left: Vec<usize> = eqs
            .iter()
            .map(|e| e.iter().filter(|(pos, _)| unknown.contains(pos)).count())
            .collect();
        let mut containing: BTreeMap<Pos, Vec<usize>> = BTreeMap::new();
        for (i, e) in eqs.iter().enumerate() {
            for &(pos, _) in e.iter().filter(|(pos, _)| unknown.contains(pos)) {
                containing.entry(pos).or_default().push(i);
            }
        }
        // Lost data left to rebuild (AUX is only ever a means).
        let data_left = |unknown: &BTreeSet<Pos>| unknown.iter().any(|&pos| pos != AUX);
        // 2. When peeling stalls: Gaussian elimination over GF(2^8) on the unknowns left.
        //    GF codes (raid6, rs) take every remaining unknown from it in one stage (one
        //    matrix multiply, as ISA-L decodes). XOR codes take only the unknown with the
        //    shortest recipe and go back to peeling: for EVENODD, once S is known, the
        //    diagonal chains run again.
        loop {
            while data_left(&unknown) {
                let Some(i) = (0..eqs.len())
                    .filter(|&i| left[i] == 1)
                    .min_by_key(|&i| eqs[i].len())
                else {
                    break;
                };
                let e = &eqs[i];
                let &(target, coef) = e
                    .iter()
                    .find(|(pos, _)| unknown.contains(pos))
                    .expect("one unknown left");
                let scale = gf256::inv(coef);
                let others = e.iter().filter(|(pos, _)| *pos != target);
                let sources = others.clone().map(|&(pos, _)| pos).collect();
                let coefs = others.map(|&(_, c)| gf256::mul(scale, c)).collect();
                stages.push(Stage {
                    targets: vec![target],
                    sources,
                    coefs,
                });
                unknown.remove(&target);
                for &j in &containing[&target] {
                    left[j] -= 1;
                }
            }
            if !data_left(&unknown) {
                break;
            }
            let block = eliminate(g, &unknown, &eqs[..base], erased_cols)?;
            if !xor_only {
                stages.push(block);
                unknown.clear();
                break;
            }
            let n = block.sources.len();
            let best = (0..block.targets.len())
                .min_by_key(|&t| {
                    block.coefs[t * n..(t + 1) * n]
                        .iter()
                        .filter(|&&c| c != 0)
                        .count()
                })
                .expect("unknowns left");
            let row = &block.coefs[best * n..(best + 1) * n];
            let target = block.targets[best];
            let sources = (0..n)
                .filter(|&s| row[s] != 0)
                .map(|s| block.sources[s])
                .collect::<Vec<_>>();
            stages.push(Stage {
                targets: vec![target],
                coefs: vec![1; sources.len()],
                sources,
            });
            unknown.remove(&target);
            for &j in &containing[&target] {
                left[j] -= 1;
            }
        }

        // 3. Erased parities from their data.
        let parities: Vec<usize> = (0..g.parity_count())
            .filter(|&p| erased(g.parity_pos[p]))
            .collect();
        if !parities.is_empty() {
            let sources: BTreeSet<usize> = parities
                .iter()
                .flat_map(|&p| g.parity_terms[p].iter().map(|t| t.data))
                .collect();
            let sources: Vec<usize> = sources.into_iter().collect();
            let mut coefs = vec![0u8; parities.len() * sources.len()];
            for (i, &p) in parities.iter().enumerate() {
                for t in &g.parity_terms[p] {
                    let s = sources.binary_search(&t.data).expect("source listed");
                    coefs[i * sources.len() + s] = t.coef;
                }
            }
            stages.push(Stage {
                targets: parities.iter().map(|&p| g.parity_pos[p]).collect(),
                sources: sources.iter().map(|&d| g.data_pos[d]).collect(),
                coefs,
            });
        }
        if xor_only {
            // The AUX-form equations too (their sums with the expanded ones are the
            // expanded ones), so a rebuilt S shortens recipes that contain its set.
            let aux_forms: Vec<Vec<Pos>> = if shared.is_some() {
                eqs[..base]
                    .iter()
                    .map(|e| e.iter().map(|&(pos, _)| pos).collect())
                    .collect()
            } else {
                Vec::new()
            };
            stages = shorten_xor_stages(g, erased_cols, stages, aux_forms);
        }
        let uses_aux = stages
            .iter()
            .any(|s| s.targets.contains(&AUX) || s.sources.contains(&AUX));
        Ok(DecodePlan {
            erased_cols: erased_cols.to_vec(),
            stages,
            uses_aux,
        })
    }

    /// Elements read (sources summed over stages): the plan's cost. The scratch element
    /// [`AUX`] counts like any other.
    pub fn reads(&self) -> usize {
        self.stages
            .iter()
            .map(|s| s.sources.len() * s.targets.len().max(1))
            .sum()
    }
}

/// XOR codes: rewrite each recipe "target = XOR(S)" to read fewer elements.
///
/// The equations are expanded to data, so a recipe found by peeling can be longer than the
/// paper's (RDP's diagonal chain, expanded, drags in a whole row). For every surviving
/// parity Q, `Q ^ XOR(terms of Q) = 0`, so XOR(S) = XOR(S xor ({Q} + terms of Q)); the
/// rewrite is taken while it shortens S and reads only available elements (surviving, or
/// rebuilt by an earlier stage), never the target itself. Multi-target stages are split
/// into one stage per target first (XOR stages run target by target anyway).
fn shorten_xor_stages(
    g: &Geometry,
    erased_cols: &[usize],
    stages: Vec<Stage>,
    extra_equations: Vec<Vec<Pos>>,
) -> Vec<Stage> {
    let erased = |pos: Pos| pos != AUX && erased_cols.binary_search(&pos.col).is_ok();
    let mut equations: Vec<Vec<Pos>> = (0..g.parity_count())
        .filter(|&p| !erased(g.parity_pos[p]))
        .map(|p| {
            let mut e: Vec<Pos> = g.parity_terms[p]
                .iter()
                .map(|t| g.data_pos[t.data])
                .collect();
            e.push(g.parity_pos[p]);
            e.sort_unstable();
            e
        })
        .collect();
    equations.extend(extra_equations);
    let mut rebuilt: BTreeSet<Pos> = BTreeSet::new();
    let mut out = Vec::with_capacity(stages.len());
    for stage in stages {
        if stage.sources.is_empty() {
            rebuilt.extend(stage.targets.iter().copied());
            out.push(stage);
            continue;
        }
        let n = stage.sources.len();
        for (t, &target) in stage.targets.iter().enumerate() {
            let mut sources: Vec<Pos> = (0..n)
                .filter(|&s| stage.coefs[t * n + s] == 1)
                .map(|s| stage.sources[s])
                .collect();
            sources.sort_unstable();
            // AUX is in memory only once a stage has computed it.
            let available = |pos: &Pos| {
                if *pos == AUX {
                    rebuilt.contains(pos)
                } else {
                    !erased(*pos) || rebuilt.contains(pos)
                }
            };
            // Each accepted rewrite shortens the list, so this loop runs at most n times.
            loop {
                let best = equations
                    .iter()
                    .map(|e| sym_diff(&sources, e))
                    .filter(|c| {
                        c.len() < sources.len() && !c.contains(&target) && c.iter().all(available)
                    })
                    .min_by_key(|c| c.len());
                match best {
                    Some(shorter) => sources = shorter,
                    None => break,
                }
            }
            rebuilt.insert(target);
            out.push(Stage {
                targets: vec![target],
                coefs: vec![1; sources.len()],
                sources,
            });
        }
    }
    out
}

fn sym_diff<T: Ord + Copy>(a: &[T], b: &[T]) -> Vec<T> {
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(a.len() + b.len()));
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Solve the remaining unknowns by Gauss-Jordan elimination. Every equation gives one
/// row: sum_{u unknown} a_u x_u = the rest of the equation (over known or already-rebuilt
/// elements).
fn eliminate(
    g: &Geometry,
    unknown: &BTreeSet<Pos>,
    equations: &[Equation],
    erased_cols: &[usize],
) -> Result<Stage, CodeError> {
    let unknowns: Vec<Pos> = unknown.iter().copied().collect();
    let n = unknowns.len();
    // Right-hand sides range over every position of the grid plus AUX (dense; grids are
    // small: at most ~16 K positions and 2 * 127 equations).
    let width = g.rows * g.cols + 1;
    let slot = |pos: Pos| {
        if pos == AUX {
            width - 1
        } else {
            pos.row * g.cols + pos.col
        }
    };
    let position = |s: usize| {
        if s == width - 1 {
            AUX
        } else {
            Pos {
                row: s / g.cols,
                col: s % g.cols,
            }
        }
    };
    let mut lhs: Vec<Vec<u8>> = Vec::with_capacity(equations.len());
    let mut rhs: Vec<Vec<u8>> = Vec::with_capacity(equations.len());
    for e in equations {
        let mut a = vec![0u8; n];
        let mut b = vec![0u8; width];
        for &(pos, coef) in e {
            match unknowns.binary_search(&pos) {
                Ok(u) => a[u] ^= coef,
                Err(_) => b[slot(pos)] ^= coef,
            }
        }
        if a.iter().any(|&c| c != 0) {
            lhs.push(a);
            rhs.push(b);
        }
    }
    let rows = lhs.len();
    for col in 0..n {
        let Some(pivot) = (col..rows).find(|&r| lhs[r][col] != 0) else {
            return Err(CodeError::BadParameters(format!(
                "internal error: erasure of columns {erased_cols:?} leaves a singular system ({n} unknowns); \
                 this geometry is not MDS, which is a bug in exaraid's code builder, please report it"
            )));
        };
        lhs.swap(col, pivot);
        rhs.swap(col, pivot);
        let scale = gf256::inv(lhs[col][col]);
        scale_row(&mut lhs[col], scale);
        scale_row(&mut rhs[col], scale);
        for r in 0..rows {
            let f = lhs[r][col];
            if r != col && f != 0 {
                let (pl, pr) = (lhs[col].clone(), rhs[col].clone());
                add_scaled(&mut lhs[r], &pl, f);
                add_scaled(&mut rhs[r], &pr, f);
            }
        }
    }
    // Rows 0..n are now the identity on the left: unknown u = rhs[u].
    let used: Vec<usize> = (0..width)
        .filter(|&s| (0..n).any(|u| rhs[u][s] != 0))
        .collect();
    let sources: Vec<Pos> = used.iter().map(|&s| position(s)).collect();
    let mut coefs = Vec::with_capacity(n * used.len());
    for row in rhs.iter().take(n) {
        coefs.extend(used.iter().map(|&s| row[s]));
    }
    Ok(Stage {
        targets: unknowns,
        sources,
        coefs,
    })
}

fn scale_row(row: &mut [u8], c: u8) {
    for x in row.iter_mut() {
        *x = gf256::mul(*x, c);
    }
}

fn add_scaled(row: &mut [u8], pivot: &[u8], c: u8) {
    for (x, &y) in row.iter_mut().zip(pivot) {
        *x ^= gf256::mul(c, y);
    }
}

/// The order and recipe in which `encode` computes an array code's parities.
///
/// `parity_terms` are expanded to data, which is what updates and planners need, but
/// computing every parity from its expanded terms reads more than the papers' encoders do:
/// RDP's diagonal parity expands to about 2p data elements although it is "one row parity
/// plus p-1 diagonal elements", and HDP's horizontal-diagonal parity likewise contains a
/// whole anti-diagonal chain. For XOR codes, a parity P whose data set differs from an
/// already computed parity Q's by a small set is P = Q ^ (T_P xor T_Q); the plan takes that
/// whenever it needs fewer sources than P's own terms. Parities are computed in order of
/// their term count, so the shorter parities (RDP's rows, HDP's anti-diagonals) come first.
/// Codes with GF(2^8) coefficients keep one stage per parity over its own terms. A data set
/// shared by three or more parities (EVENODD's S) is computed once into [`AUX`].
pub fn encode_plan(g: &Geometry) -> Vec<Stage> {
    let xor_only = g.parity_terms.iter().flatten().all(|t| t.coef == 1);
    // Data indices; AUX_TERM stands for the scratch element (sorts last).
    const AUX_TERM: usize = usize::MAX;
    let shared = if xor_only { shared_subset(g) } else { None };
    let mut stages = Vec::with_capacity(g.parity_count() + 1);
    let terms_of = |p: usize| -> Vec<usize> {
        let own: Vec<usize> = g.parity_terms[p].iter().map(|t| t.data).collect();
        match &shared {
            Some(c) if is_subset(c, &own) => {
                let mut rest: Vec<usize> = own
                    .into_iter()
                    .filter(|d| c.binary_search(d).is_err())
                    .collect();
                rest.push(AUX_TERM);
                rest
            }
            _ => own,
        }
    };
    if let Some(c) = &shared {
        let sources: Vec<Pos> = c.iter().map(|&d| g.data_pos[d]).collect();
        stages.push(Stage {
            targets: vec![AUX],
            coefs: vec![1; sources.len()],
            sources,
        });
    }
    let position = |d: usize| if d == AUX_TERM { AUX } else { g.data_pos[d] };
    let mut order: Vec<usize> = (0..g.parity_count()).collect();
    order.sort_by_key(|&p| (terms_of(p).len(), p));
    let mut done: Vec<(usize, Vec<usize>)> = Vec::with_capacity(order.len());
    for &p in &order {
        let own = terms_of(p);
        let mut best: Option<(usize, Vec<usize>)> = None;
        if xor_only {
            for (q, theirs) in &done {
                let diff = sym_diff(&own, theirs);
                let better = diff.len() + 1 < best.as_ref().map_or(own.len(), |(_, d)| d.len() + 1);
                if better {
                    best = Some((*q, diff));
                }
            }
        }
        let stage = match best {
            Some((q, diff)) => {
                let mut sources = vec![g.parity_pos[q]];
                sources.extend(diff.iter().map(|&d| position(d)));
                Stage {
                    targets: vec![g.parity_pos[p]],
                    coefs: vec![1; sources.len()],
                    sources,
                }
            }
            None if xor_only => Stage {
                targets: vec![g.parity_pos[p]],
                coefs: vec![1; own.len()],
                sources: own.iter().map(|&d| position(d)).collect(),
            },
            None => Stage {
                targets: vec![g.parity_pos[p]],
                sources: own.iter().map(|&d| g.data_pos[d]).collect(),
                coefs: g.parity_terms[p].iter().map(|t| t.coef).collect(),
            },
        };
        stages.push(stage);
        done.push((p, own));
    }
    stages
}

/// The scratch element of an encode plan: a position outside every grid. Only the
/// stages of [`encode_plan`] use it, never a decode plan.
pub const AUX: Pos = Pos {
    row: usize::MAX,
    col: 0,
};

/// A set of data elements that at least three parities share, worth computing once into
/// [`AUX`]: EVENODD's adjuster S, which every diagonal parity contains. Chosen by the reads
/// it saves: a parity reads AUX (1) instead of the set, and AUX costs the set once.
fn shared_subset(g: &Geometry) -> Option<Vec<usize>> {
    let sets: Vec<Vec<usize>> = g
        .parity_terms
        .iter()
        .map(|t| t.iter().map(|t| t.data).collect())
        .collect();
    let mut seen = BTreeSet::new();
    let mut best: Option<(usize, Vec<usize>)> = None;
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let common: Vec<usize> = sets[i]
                .iter()
                .copied()
                .filter(|d| sets[j].binary_search(d).is_ok())
                .collect();
            if common.len() < 2 || !seen.insert(common.clone()) {
                continue;
            }
            let count = sets.iter().filter(|s| is_subset(&common, s)).count();
            if count < 3 {
                continue;
            }
            let saved = count * (common.len() - 1);
            if saved > common.len() && best.as_ref().is_none_or(|(b, _)| saved - common.len() > *b)
            {
                best = Some((saved - common.len(), common));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// Is sorted `a` contained in sorted `b`?
fn is_subset(a: &[usize], b: &[usize]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}
