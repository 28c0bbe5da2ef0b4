//! RAID-6 as Linux md computes it (H. Peter Anvin, "The mathematics of RAID-6", 2004/2011,
//! <https://mirrors.edge.kernel.org/pub/linux/kernel/people/hpa/raid6.pdf>, section 2):
//! GF(2^8) with polynomial 0x11d, generator g = 2,
//!   P = D0 ^ D1 ^ ... ^ D(k-1),
//!   Q = g^0 * D0 ^ g^1 * D1 ^ ... ^ g^(k-1) * D(k-1).
//! These are also rows k and k+1 of ISA-L's `gf_gen_rs_matrix` (all-ones row, then powers
//! of 2), which `pq_gen` computes.

use crate::geometry::Geometry;
use crate::gf256;

pub(crate) fn build(k: usize) -> Geometry {
    let q = gf256::raid6_q_coefs(k);
    super::horizontal(k, 2, |parity, j| if parity == 0 { 1 } else { q[j] })
}
