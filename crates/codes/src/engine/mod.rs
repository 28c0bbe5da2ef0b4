//! Byte kernels behind one trait, chosen at run time (as reed-solomon-simd does): the codes
//! never call a kernel directly, only through [`engine()`].
//!
//! GF(2^8) arithmetic everywhere uses the polynomial 0x11d (x^8+x^4+x^3+x^2+1) and
//! generator 2, as Linux md RAID-6 and ISA-L do.

mod portable;

pub use portable::Portable;

/// The byte kernels a code needs. Every slice in one call has the same length.
pub trait Engine: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &'static str;
    /// `dst = src[0] ^ src[1] ^ ...` (at least one source).
    fn xor_many(&self, srcs: &[&[u8]], dst: &mut [u8]);
    /// `dst ^= src`.
    fn xor_into(&self, dst: &mut [u8], src: &[u8]);
    /// `dst ^= c * src` in GF(2^8).
    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]);
    /// `outputs[i] = sum_j coefs[i * inputs.len() + j] * inputs[j]` in GF(2^8).
    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]);
}

/// The engine for this process: the fastest one this CPU and this build support.
pub fn engine() -> &'static dyn Engine {
    static PORTABLE: Portable = Portable;
    &PORTABLE
}
