//! EVENODD (M. Blaum, J. Brady, J. Bruck, J. Menon, "EVENODD: An Efficient Scheme for
//! Tolerating Double Disk Failures in RAID Architectures", IEEE Trans. Computers 44(2),
//! 1995, section II): a (p-1) x (p+2) array, data in columns 0..p-1, horizontal parity in
//! column p, diagonal parity in column p+1. With an imaginary all-zero row p-1:
//!   a(l, p)   = XOR_{t=0}^{p-1} a(l, t)
//!   S         = XOR_{t=1}^{p-1} a(p-1-t, t)              (the "adjuster")
//!   a(l, p+1) = S ^ XOR_{t=0}^{p-1} a(⟨l-t⟩_p, t)          for l = 0..p-2.
//! S is not stored; it is expanded into every diagonal parity, so `parity_terms` says
//! honestly that a data element on diagonal p-1 touches every diagonal parity. Encode and
//! decode do not read it expanded: both compute S once into a scratch element (the solver
//! finds S as the data set three or more parities share; with two lost data columns the
//! decoder gets S from all row and diagonal parities, as the paper's decoder does), so a
//! rebuilt element reads about p + 1 elements at p = 13 (13.96) instead of ~19.

use std::collections::BTreeMap;

use super::{assemble, define, modp};
use crate::geometry::{Geometry, Pos};

pub(crate) fn build(p: usize) -> Geometry {
    let rows = p - 1;
    let mut defs = BTreeMap::new();
    for l in 0..rows {
        let row_terms = (0..p).map(|t| (Pos { row: l, col: t }, 1)).collect();
        define(&mut defs, Pos { row: l, col: p }, row_terms);
    }
    let adjuster: Vec<(Pos, u8)> = (1..p)
        .map(|t| {
            (
                Pos {
                    row: p - 1 - t,
                    col: t,
                },
                1,
            )
        })
        .collect();
    for l in 0..rows {
        let mut terms = adjuster.clone();
        for t in 0..p {
            let r = modp(l as i64 - t as i64, p);
            if r < rows {
                terms.push((Pos { row: r, col: t }, 1));
            }
        }
        define(&mut defs, Pos { row: l, col: p + 1 }, terms);
    }
    assemble(rows, p + 2, defs, 2)
}
