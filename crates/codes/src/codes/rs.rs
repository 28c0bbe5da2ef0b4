//! Reed-Solomon k+m with a Cauchy generator matrix, exactly as ISA-L builds it in
//! `gf_gen_cauchy1_matrix` (intel/isa-l, erasure_code/ec_base.c, commit 00b4f42): the
//! top k rows are the identity and row i >= k, column j holds 1 / (i xor j). Parity i
//! (0-based) therefore has coefficient inv((k + i) xor j) on data column j.
//!
//! Why Cauchy: with x_i = k + i and y_j = j all distinct (k + m <= 256), every square
//! sub-matrix of [1 / (x_i + y_j)] is invertible, so every pattern of up to m erased
//! columns is decodable. A systematic Vandermonde matrix (ISA-L's `gf_gen_rs_matrix`) is
//! not: ISA-L issue #46 shows singular sub-matrices beyond small k, m.

use crate::geometry::Geometry;
use crate::gf256;

pub(crate) fn build(k: usize, m: usize) -> Geometry {
    let rows = gf256::cauchy1_matrix(k, m);
    super::horizontal(k, m, |i, j| rows[i * k + j])
}
