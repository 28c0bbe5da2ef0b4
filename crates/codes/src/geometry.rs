//! The geometry of one stripe: a grid of equal-size elements, one column per device.
//!
//! Every code, horizontal or array, is described the same way so that the planner, the
//! load evaluation and the store never special-case a code:
//! - each position is either data or parity;
//! - data positions have an index in the code's own *data order* (the order in which a
//!   file's consecutive bytes fill the stripe; for D-Code and most array codes this is
//!   row-major over data positions, a code may choose otherwise and must say why);
//! - each parity element is a GF(2^8) linear combination of data elements. For XOR codes
//!   every coefficient is 1. Parities that the original paper defines over other parities
//!   (RDP's diagonal over the row parity, EVENODD's adjuster S) are *expanded* to data
//!   elements here, so `parity_terms` is exactly "which parities change when this data
//!   element changes" -- the set an update must touch.

use serde::Serialize;

/// A position in the stripe grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Pos {
    pub row: usize,
    pub col: usize,
}

/// What sits at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cell {
    /// A data element with its index in the code's data order.
    Data(usize),
    /// A parity element with its index in row-major order of parity positions.
    Parity(usize),
    /// A position the code leaves empty (some array codes are not full grids). Empty
    /// elements are never read or written and hold zeros.
    Empty,
}

/// One term of a parity equation: `coef * D[data]` in GF(2^8) (coef 1 = plain XOR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Term {
    pub data: usize,
    pub coef: u8,
}

/// The full geometry of a code instance. Built once by each code; immutable afterwards.
#[derive(Clone, Debug, Serialize)]
pub struct Geometry {
    pub rows: usize,
    pub cols: usize,
    /// Row-major: `cells[row * cols + col]`.
    pub cells: Vec<Cell>,
    /// Data index -> position.
    pub data_pos: Vec<Pos>,
    /// Parity index -> position (row-major order of parity positions).
    pub parity_pos: Vec<Pos>,
    /// Parity index -> its terms, expanded to data elements, sorted by data index, each data
    /// index at most once, no zero coefficient.
    pub parity_terms: Vec<Vec<Term>>,
    /// Data index -> the parity indices whose terms contain it (the inverse of `parity_terms`).
    pub data_parities: Vec<Vec<usize>>,
    /// How many whole columns may be lost and still decoded.
    pub fault_tolerance: usize,
}

impl Geometry {
    pub fn cell(&self, pos: Pos) -> Cell {
        assert!(
            pos.row < self.rows && pos.col < self.cols,
            "position {pos:?} outside grid"
        );
        self.cells[pos.row * self.cols + pos.col]
    }

    pub fn data_count(&self) -> usize {
        self.data_pos.len()
    }

    pub fn parity_count(&self) -> usize {
        self.parity_pos.len()
    }

    /// Build a geometry from its grid and parity equations; derives the inverse maps and
    /// checks every invariant. Codes call this; it panics only on a bug in a code's builder.
    pub fn from_parts(
        rows: usize,
        cols: usize,
        cells: Vec<Cell>,
        parity_terms: Vec<Vec<Term>>,
        fault_tolerance: usize,
    ) -> Geometry {
        assert_eq!(cells.len(), rows * cols, "cells must cover the grid");
        let mut data_pos = Vec::new();
        let mut parity_pos = Vec::new();
        for (i, cell) in cells.iter().enumerate() {
            let pos = Pos {
                row: i / cols,
                col: i % cols,
            };
            match *cell {
                Cell::Data(d) => data_pos.push((d, pos)),
                Cell::Parity(p) => parity_pos.push((p, pos)),
                Cell::Empty => {}
            }
        }
        data_pos.sort();
        parity_pos.sort();
        for (i, (d, _)) in data_pos.iter().enumerate() {
            assert_eq!(*d, i, "data indices must be 0..n without gaps");
        }
        for (i, (p, _)) in parity_pos.iter().enumerate() {
            assert_eq!(*p, i, "parity indices must be 0..n without gaps");
        }
        let parity_in_row_major = parity_pos
            .windows(2)
            .all(|w| w[0].1.row * cols + w[0].1.col < w[1].1.row * cols + w[1].1.col);
        assert!(
            parity_in_row_major,
            "parity indices must follow row-major order"
        );
        assert_eq!(
            parity_terms.len(),
            parity_pos.len(),
            "one equation per parity"
        );
        let mut data_parities = vec![Vec::new(); data_pos.len()];
        for (p, terms) in parity_terms.iter().enumerate() {
            assert!(
                terms.windows(2).all(|w| w[0].data < w[1].data),
                "terms sorted, unique"
            );
            for t in terms {
                assert!(t.coef != 0, "zero coefficient in parity {p}");
                assert!(
                    t.data < data_pos.len(),
                    "parity {p} names unknown data {}",
                    t.data
                );
                data_parities[t.data].push(p);
            }
        }
        Geometry {
            rows,
            cols,
            cells,
            data_pos: data_pos.into_iter().map(|(_, p)| p).collect(),
            parity_pos: parity_pos.into_iter().map(|(_, p)| p).collect(),
            parity_terms,
            data_parities,
            fault_tolerance,
        }
    }
}
