//! Reference geometries for tests: RAID-5 (k+1, XOR parity in the last column) and RAID-6
//! with two horizontal parities P (XOR) and Q (coefficients 2^i, as Linux md) in the last two
//! columns. They let the planner's tests (and the executors' tests) run without depending on
//! the codes crate's builders; a test in `lib.rs` checks that they match `Code::new` once the
//! codes crate builds these codes.

use exaraid_codes::{Cell, Geometry, Term};

fn gf_pow2(i: usize) -> u8 {
    // 2^i in GF(2^8) with the polynomial 0x11d (the RAID-6 field).
    let mut v: u8 = 1;
    for _ in 0..i {
        let hi = v & 0x80 != 0;
        v <<= 1;
        if hi {
            v ^= 0x1d;
        }
    }
    v
}

/// RAID-5 with `k` data columns and one XOR parity in column `k`.
pub fn raid5(k: usize) -> Geometry {
    assert!(k >= 1);
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    cells.push(Cell::Parity(0));
    let p = (0..k).map(|d| Term { data: d, coef: 1 }).collect();
    Geometry::from_parts(1, k + 1, cells, vec![p], 1)
}

/// RAID-6 with `k` data columns, P in column `k` and Q in column `k + 1`.
pub fn raid6(k: usize) -> Geometry {
    assert!((1..=255).contains(&k));
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    cells.push(Cell::Parity(0));
    cells.push(Cell::Parity(1));
    let p = (0..k).map(|d| Term { data: d, coef: 1 }).collect();
    let q = (0..k)
        .map(|d| Term {
            data: d,
            coef: gf_pow2(d),
        })
        .collect();
    Geometry::from_parts(1, k + 2, cells, vec![p, q], 2)
}
