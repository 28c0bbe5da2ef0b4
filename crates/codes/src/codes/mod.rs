//! One geometry builder per code. Each file cites the paper its construction follows and
//! says which reading of it was chosen where the text leaves room.
//!
//! A builder only says *where* parity lives and *what each parity is defined over* (data
//! positions, and for some codes other parity positions); `assemble` turns that into a
//! [`Geometry`]: data indices in the code's data order, parity indices in row-major order,
//! and every parity expanded to data elements (GF(2^8) coefficients accumulated, so terms
//! that appear twice cancel, as RDP's diagonal over the row parity needs).

use std::collections::BTreeMap;

use crate::geometry::{Cell, Geometry, Pos, Term};
use crate::gf256;
use crate::{CodeError, CodeKind, CodeSpec};

mod dcode;
mod evenodd;
mod hcode;
mod hdp;
mod raid5;
mod raid6;
mod rdp;
mod rs;
mod xcode;

/// Largest prime an array code accepts. A stripe of an array code holds about p^2 elements
/// and a decode plan is computed per erasure pattern; 127 keeps both small (16 K elements)
/// while staying far above any array width in use (the D-Code paper stops at p = 13).
pub const MAX_P: usize = 127;

/// Largest total column count of a horizontal code: GF(2^8) has 255 non-zero elements, so
/// md's Q coefficients 2^j and the Cauchy rows 1/((k+i) xor j) stay distinct up to 255.
pub const MAX_COLUMNS: usize = 255;

/// The definition of one parity, as a paper writes it: a sum of terms over positions that
/// may be data or (earlier-defined) parity.
pub(crate) type ParityDef = Vec<(Pos, u8)>;

/// The smallest prime each array code accepts, and why.
pub fn min_p(kind: CodeKind) -> usize {
    match kind {
        // HDP needs p >= 5: at p = 3 its 2x2 stripe holds parity only (no data).
        CodeKind::Hdp => 5,
        // The others are MDS from p = 3 (checked by the exhaustive decode test), but their
        // p = 3 stripes are degenerate (X-Code and D-Code hold one data row, every parity
        // a copy of one element); exaraid still accepts them.
        _ => 3,
    }
}

pub fn is_prime(n: usize) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 1;
    }
    true
}

/// Validate `spec` and build its geometry.
pub fn build(spec: CodeSpec) -> Result<Geometry, CodeError> {
    let bad = |msg: String| Err(CodeError::BadParameters(msg));
    if spec.kind.is_array() {
        if spec.k.is_some() || spec.m.is_some() {
            return bad(format!(
                "{} is an array code: give only --p (a prime), not --k/--m",
                spec.kind.name()
            ));
        }
        let Some(p) = spec.p else {
            return bad(format!(
                "{} needs --p, a prime between {} and {MAX_P}",
                spec.kind.name(),
                min_p(spec.kind)
            ));
        };
        if !is_prime(p) {
            return bad(format!(
                "{}: p = {p} is not a prime; the code is MDS only for prime p (try 5, 7, 11 or 13)",
                spec.kind.name()
            ));
        }
        if p < min_p(spec.kind) || p > MAX_P {
            return bad(format!(
                "{}: p = {p} is out of range; use a prime between {} and {MAX_P}",
                spec.kind.name(),
                min_p(spec.kind)
            ));
        }
        Ok(match spec.kind {
            CodeKind::Evenodd => evenodd::build(p),
            CodeKind::Rdp => rdp::build(p),
            CodeKind::Xcode => xcode::build(p),
            CodeKind::Hcode => hcode::build(p),
            CodeKind::Hdp => hdp::build(p),
            CodeKind::Dcode => dcode::build(p),
            _ => unreachable!("is_array covers exactly the array codes"),
        })
    } else {
        if spec.p.is_some() {
            return bad(format!(
                "{} is a horizontal code: give --k (and --m for rs), not --p",
                spec.kind.name()
            ));
        }
        let Some(k) = spec.k else {
            return bad(format!(
                "{} needs --k, the number of data columns",
                spec.kind.name()
            ));
        };
        let (min_k, fixed_m) = match spec.kind {
            CodeKind::Raid5 => (1, Some(1)),
            // Linux md refuses a RAID-6 array of fewer than 4 devices (mdadm(8), "raid6
            // requires at least 4 devices"); with fewer than 2 data columns Q is a copy of P.
            CodeKind::Raid6 => (2, Some(2)),
            _ => (1, None),
        };
        let m = match (fixed_m, spec.m) {
            (Some(f), None) => f,
            (Some(f), Some(m)) if m == f => f,
            (Some(f), Some(m)) => {
                return bad(format!(
                "{} has exactly {f} parity column(s), but m = {m} was given; drop --m or use rs",
                spec.kind.name()
            ))
            }
            (None, Some(m)) => m,
            (None, None) => return bad("rs needs --m, the number of parity columns".to_string()),
        };
        if k < min_k {
            return bad(format!(
                "{}: k = {k} data columns is too few; use k >= {min_k}",
                spec.kind.name()
            ));
        }
        if m < 1 {
            return bad(format!(
                "{}: m = 0 parity columns protects nothing; use m >= 1",
                spec.kind.name()
            ));
        }
        if k + m > MAX_COLUMNS {
            return bad(format!(
                "{}: k + m = {} columns is too many; GF(2^8) allows at most {MAX_COLUMNS} columns",
                spec.kind.name(),
                k + m
            ));
        }
        Ok(match spec.kind {
            CodeKind::Raid5 => raid5::build(k),
            CodeKind::Raid6 => raid6::build(k),
            CodeKind::Rs => rs::build(k, m),
            _ => unreachable!("not is_array covers exactly the horizontal codes"),
        })
    }
}

/// Lay out a horizontal code: one row, data in columns 0..k-1 (data index = column),
/// parity i in column k+i with coefficient `coef(i, j)` on data column j.
pub(crate) fn horizontal(k: usize, m: usize, coef: impl Fn(usize, usize) -> u8) -> Geometry {
    let mut cells = Vec::with_capacity(k + m);
    cells.extend((0..k).map(Cell::Data));
    cells.extend((0..m).map(Cell::Parity));
    let terms = (0..m)
        .map(|i| {
            (0..k)
                .map(|j| Term {
                    data: j,
                    coef: coef(i, j),
                })
                .collect()
        })
        .collect();
    Geometry::from_parts(1, k + m, cells, terms, m)
}

/// Build an array code's geometry from its parity definitions.
///
/// - `defs`: every parity position with its definition, over data positions and over
///   parity positions whose own definitions do not (transitively) refer back to it;
/// - data positions are every position without a definition, numbered in row-major order
///   (the data order of every array code here; see the crate docs).
pub(crate) fn assemble(
    rows: usize,
    cols: usize,
    defs: BTreeMap<Pos, ParityDef>,
    fault_tolerance: usize,
) -> Geometry {
    let mut cells = vec![Cell::Empty; rows * cols];
    let mut data_index = BTreeMap::new();
    // BTreeMap<Pos, _> iterates in (row, col) order: parity indices are row-major.
    for (i, pos) in defs.keys().enumerate() {
        cells[pos.row * cols + pos.col] = Cell::Parity(i);
    }
    for row in 0..rows {
        for col in 0..cols {
            let pos = Pos { row, col };
            if !defs.contains_key(&pos) {
                let d = data_index.len();
                data_index.insert(pos, d);
                cells[row * cols + col] = Cell::Data(d);
            }
        }
    }
    let terms = defs
        .keys()
        .map(|pos| {
            let mut acc = BTreeMap::new();
            expand(*pos, 1, &defs, &data_index, &mut acc, 0);
            acc.into_iter()
                .filter(|&(_, c)| c != 0)
                .map(|(data, coef)| Term { data, coef })
                .collect()
        })
        .collect();
    Geometry::from_parts(rows, cols, cells, terms, fault_tolerance)
}

/// Add `scale * definition(parity)` to `acc` (data index -> coefficient), recursing into
/// parity terms. Addition in GF(2^8) is XOR, so an element reached twice cancels.
fn expand(
    parity: Pos,
    scale: u8,
    defs: &BTreeMap<Pos, ParityDef>,
    data_index: &BTreeMap<Pos, usize>,
    acc: &mut BTreeMap<usize, u8>,
    depth: usize,
) {
    assert!(
        depth <= defs.len(),
        "parity definitions form a cycle at {parity:?}"
    );
    for &(pos, coef) in &defs[&parity] {
        let c = gf256::mul(scale, coef);
        if let Some(&d) = data_index.get(&pos) {
            *acc.entry(d).or_insert(0) ^= c;
        } else {
            assert!(
                defs.contains_key(&pos),
                "parity {parity:?} refers to {pos:?}, which is neither data nor parity"
            );
            assert!(pos != parity, "parity {parity:?} refers to itself");
            expand(pos, c, defs, data_index, acc, depth + 1);
        }
    }
}

/// Insert a parity definition, asserting that no two parities share a position (a wrong
/// index formula in a builder shows up here, at build time).
pub(crate) fn define(defs: &mut BTreeMap<Pos, ParityDef>, pos: Pos, terms: ParityDef) {
    let previous = defs.insert(pos, terms);
    assert!(previous.is_none(), "two parities placed at {pos:?}");
}

/// `⟨x⟩_n`: x mod n in 0..n, for possibly negative x.
pub(crate) fn modp(x: i64, n: usize) -> usize {
    x.rem_euclid(n as i64) as usize
}
