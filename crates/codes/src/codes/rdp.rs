//! RDP, Row-Diagonal Parity (P. Corbett, B. English, A. Goel, T. Grcanac, S. Kleiman,
//! J. Leong, S. Sankar, "Row-Diagonal Parity for Double Disk Failure Correction",
//! USENIX FAST 2004, section 3): a (p-1) x (p+1) array, data in columns 0..p-2, row
//! parity in column p-1, diagonal parity in column p.
//!   row parity (r, p-1) = XOR of the data of row r;
//!   diagonal d consists of the elements (r, c), c in 0..p-1 (row-parity column included),
//!   with ⟨r + c⟩_p = d; diagonal p-1 is the "missing diagonal" and is not stored;
//!   diagonal parity (d, p) = XOR of diagonal d, for d = 0..p-2.
//! The diagonal parity is defined over one row-parity element; here it is expanded to data
//! (the row parity's data, with the element of the diagonal that also lies in that row
//! cancelling), so `parity_terms` lists exactly the data each parity depends on.

use std::collections::BTreeMap;

use super::{assemble, define};
use crate::geometry::{Geometry, Pos};

pub(crate) fn build(p: usize) -> Geometry {
    let rows = p - 1;
    let mut defs = BTreeMap::new();
    for r in 0..rows {
        let terms = (0..p - 1).map(|c| (Pos { row: r, col: c }, 1)).collect();
        define(&mut defs, Pos { row: r, col: p - 1 }, terms);
    }
    for d in 0..p - 1 {
        let mut terms = Vec::new();
        for c in 0..p {
            // r + c = d (mod p)  =>  r = <d - c>_p; row p-1 does not exist.
            let r = (d + p - c) % p;
            if r < rows {
                terms.push((Pos { row: r, col: c }, 1));
            }
        }
        define(&mut defs, Pos { row: d, col: p }, terms);
    }
    assemble(rows, p + 1, defs, 2)
}
