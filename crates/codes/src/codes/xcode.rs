//! X-Code (L. Xu, J. Bruck, "X-Code: MDS Array Codes with Optimal Encoding", IEEE Trans.
//! Information Theory 45(1), 1999, section II): a p x p array, data in rows 0..p-3,
//! diagonal parity in row p-2 and anti-diagonal parity in row p-1:
//!   C(p-2, i) = XOR_{k=0}^{p-3} C(k, ⟨i + k + 2⟩_p)
//!   C(p-1, i) = XOR_{k=0}^{p-3} C(k, ⟨i - k - 2⟩_p)
//! (the same equations the D-Code paper quotes as its Eq. (4), (5)).

use std::collections::BTreeMap;

use super::{assemble, define, modp};
use crate::geometry::{Geometry, Pos};

pub(crate) fn build(p: usize) -> Geometry {
    let mut defs = BTreeMap::new();
    for i in 0..p {
        let diagonal = (0..p - 2)
            .map(|k| {
                (
                    Pos {
                        row: k,
                        col: (i + k + 2) % p,
                    },
                    1,
                )
            })
            .collect();
        define(&mut defs, Pos { row: p - 2, col: i }, diagonal);
        let anti = (0..p - 2)
            .map(|k| {
                (
                    Pos {
                        row: k,
                        col: modp(i as i64 - k as i64 - 2, p),
                    },
                    1,
                )
            })
            .collect();
        define(&mut defs, Pos { row: p - 1, col: i }, anti);
    }
    assemble(p, p, defs, 2)
}
