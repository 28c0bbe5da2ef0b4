//! D-Code (M. Fu, J. Shu, "D-Code: An Efficient RAID-6 Code to Optimize I/O Loads and Read
//! Performance"; the seed /work/shared/seeds/002_5cd09881d6ea6744.txt, section III-A): an
//! n x n array for prime n, data in rows 0..n-3, horizontal parities in row n-2,
//! deployment parities in row n-1.
//!
//! Reading chosen. The closed forms (1) and (2) are garbled in the extracted text (e.g.
//! Eq. (2)'s "⟨i-j-2⟩_{n-j}"), so exaraid builds D-Code from the paper's step-by-step
//! rules, which are legible, and checks them against the two pieces of ground truth:
//!
//! Horizontal rules (steps 1-4): number the data elements in row-major order ("the next
//! horizontal element of D(i,j) is D(i,j+1), or D(i+1,0) at the end of a row"); group g
//! holds elements g(n-2) .. g(n-2)+(n-3); if the group's last element is D(x,y), its
//! parity is P(n-2, ⟨y+1⟩_n).
//!
//! Deployment rules (steps 1-4): start at D(0,0); "the next deployment element of D(i,j)
//! is D(⟨i+1⟩_{n-2}, j-1) if j != 0, else D(i, n-1)"; group g (letter A, B, ...) holds
//! deployment elements g(n-2) .. g(n-2)+(n-3) and its parity is P(n-1, ⟨2(g+1)⟩_n) ("the
//! 2th deployment parity is A, the ⟨4⟩_n th is B, ..., the ⟨2n⟩_n th").
//!
//! Checks (unit tests below): the 7-disk example P(5,1) = D(1,3)^D(1,4)^D(1,5)^D(1,6)^D(2,0)
//! and P(6,2) = D(0,0)^D(0,6)^D(1,5)^D(2,4)^D(3,3); and Theorem 1 for every prime tested:
//! X-Code with data element E(i,j) moved to N(⟨(n-3)/2 * (j-i)⟩_{n-2}, j) (Eq. (3)) has
//! exactly D-Code's parity equations. Eq. (3) as printed is taken literally.
//!
//! Data order: the horizontal order of the paper (row-major over data positions), which is
//! what makes "continuous data elements share a horizontal parity".

use std::collections::BTreeMap;

use super::{assemble, define};
use crate::geometry::{Geometry, Pos};

pub(crate) fn build(n: usize) -> Geometry {
    let data_rows = n - 2;
    let group = n - 2;
    let mut defs = BTreeMap::new();

    let horizontal: Vec<Pos> = (0..data_rows)
        .flat_map(|row| (0..n).map(move |col| Pos { row, col }))
        .collect();
    for chunk in horizontal.chunks(group) {
        assert_eq!(
            chunk.len(),
            group,
            "n(n-2) data elements split into n groups of n-2"
        );
        let last = chunk[group - 1];
        let parity = Pos {
            row: n - 2,
            col: (last.col + 1) % n,
        };
        define(
            &mut defs,
            parity,
            chunk.iter().map(|&pos| (pos, 1)).collect(),
        );
    }

    let deployment = deployment_order(n);
    for (g, chunk) in deployment.chunks(group).enumerate() {
        assert_eq!(
            chunk.len(),
            group,
            "n(n-2) data elements split into n groups of n-2"
        );
        let parity = Pos {
            row: n - 1,
            col: (2 * (g + 1)) % n,
        };
        define(
            &mut defs,
            parity,
            chunk.iter().map(|&pos| (pos, 1)).collect(),
        );
    }
    assemble(n, n, defs, 2)
}

/// The data elements in the paper's deployment order; asserts it visits each exactly once.
fn deployment_order(n: usize) -> Vec<Pos> {
    let data_rows = n - 2;
    let count = n * data_rows;
    let mut seen = vec![false; count];
    let mut order = Vec::with_capacity(count);
    let mut at = Pos { row: 0, col: 0 };
    for _ in 0..count {
        let slot = at.row * n + at.col;
        assert!(!seen[slot], "deployment order revisits {at:?}");
        seen[slot] = true;
        order.push(at);
        at = if at.col != 0 {
            Pos {
                row: (at.row + 1) % data_rows,
                col: at.col - 1,
            }
        } else {
            Pos {
                row: at.row,
                col: n - 1,
            }
        };
    }
    order
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::geometry::Cell;

    fn covered(g: &Geometry, parity: Pos) -> BTreeSet<Pos> {
        let Cell::Parity(i) = g.cell(parity) else {
            panic!("{parity:?} is not a parity")
        };
        g.parity_terms[i]
            .iter()
            .map(|t| {
                assert_eq!(t.coef, 1, "D-Code is an XOR code");
                g.data_pos[t.data]
            })
            .collect()
    }

    fn set(cells: &[(usize, usize)]) -> BTreeSet<Pos> {
        cells.iter().map(|&(row, col)| Pos { row, col }).collect()
    }

    #[test]
    fn seven_disk_example_of_the_paper() {
        let g = build(7);
        assert_eq!((g.rows, g.cols), (7, 7));
        assert_eq!(
            covered(&g, Pos { row: 5, col: 1 }),
            set(&[(1, 3), (1, 4), (1, 5), (1, 6), (2, 0)])
        );
        assert_eq!(
            covered(&g, Pos { row: 6, col: 2 }),
            set(&[(0, 0), (0, 6), (1, 5), (2, 4), (3, 3)])
        );
    }

    #[test]
    fn parities_fill_the_last_two_rows_and_data_is_row_major() {
        for n in [5, 7, 11, 13] {
            let g = build(n);
            for (d, pos) in g.data_pos.iter().enumerate() {
                assert_eq!(
                    *pos,
                    Pos {
                        row: d / n,
                        col: d % n
                    },
                    "data order is the horizontal order"
                );
            }
            assert!(g.parity_pos.iter().all(|p| p.row >= n - 2));
            assert_eq!(g.parity_count(), 2 * n);
            assert!(
                g.parity_terms.iter().all(|t| t.len() == n - 2),
                "each parity covers n-2 data elements"
            );
        }
    }

    /// Theorem 1: D-Code is X-Code with the data elements of each column reordered by
    /// Eq. (3): E(i,j) -> N(⟨(n-3)/2 * (j-i)⟩_{n-2}, j); parity rows stay in place.
    #[test]
    fn theorem_1_dcode_is_xcode_with_columns_reordered() {
        for n in [3, 5, 7, 11, 13] {
            let d = build(n);
            let x = super::super::xcode::build(n);
            let half = (n as i64 - 3) / 2;
            let moved = |e: Pos| Pos {
                row: super::super::modp(half * (e.col as i64 - e.row as i64), n - 2),
                col: e.col,
            };
            // Eq. (3) is a permutation of each column's data rows.
            for col in 0..n {
                let rows: BTreeSet<usize> =
                    (0..n - 2).map(|row| moved(Pos { row, col }).row).collect();
                assert_eq!(
                    rows.len(),
                    n - 2,
                    "n = {n}: Eq. (3) must permute column {col}"
                );
            }
            for &parity in &x.parity_pos {
                let via_xcode: BTreeSet<Pos> = covered(&x, parity).into_iter().map(moved).collect();
                assert_eq!(via_xcode, covered(&d, parity), "n = {n}: parity {parity:?}");
            }
        }
    }
}
