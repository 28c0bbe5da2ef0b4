//! GF(2^8) matrix multiply with the GFNI instruction `vgf2p8affineqb` on AVX-512 registers.
//!
//! Multiplying by a constant c is linear over GF(2), so it is an 8x8 bit matrix A_c, and
//! `vgf2p8affineqb` applies such a matrix to 64 bytes in one instruction, for ANY reduction
//! polynomial (unlike `vgf2p8mulb`, which is fixed to AES's 0x11b and so useless for 0x11d).
//! Against the split-nibble `vpshufb` method of ISA-L 2.30 (two shuffles, two masks, a shift
//! and two XORs per 64 bytes and coefficient) this is one affine op and one XOR. ISA-L added
//! kernels of this kind in release 2.31; Debian's 2.30 does not have them.
//!
//! Matrix layout (Intel SDM, GF2P8AFFINEQB): output bit i of a byte is the parity of
//! (byte 7-i of the 64-bit matrix) AND (input byte). For c*x = XOR_j x_j (c * 2^j), row i
//! has bit j set iff bit i of c * 2^j is set.
//!
//! Used by the [`super::Gfni`] engine only after `is_x86_feature_detected!` confirms avx512f,
//! avx512bw and gfni; checked against the byte reference in `super::tests`.

use super::{Engine, Isal};
use crate::gf256;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Bytes per AVX-512 register.
const LANE: usize = 64;
/// Outputs computed per pass over the inputs: each needs an accumulator register.
pub const MAX_ROWS_PER_PASS: usize = 8;
/// Matrices (one u64 per input and output of a pass) kept on the stack.
const STACK_MATS: usize = 64;

pub fn available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("gfni")
}

/// The affine matrix of "multiply by 1": row i (byte 7 - i) selects bit i.
#[cfg(test)]
const IDENTITY: u64 = 0x0102_0408_1020_4080;

/// The affine matrix of "multiply by c" for every c.
fn matrices() -> &'static [u64; 256] {
    static M: OnceLock<[u64; 256]> = OnceLock::new();
    M.get_or_init(|| {
        let mut all = [0u64; 256];
        for (c, slot) in all.iter_mut().enumerate() {
            let mut a = 0u64;
            for i in 0..8 {
                let mut row = 0u8;
                for j in 0..8 {
                    if (gf256::mul(c as u8, 1 << j) >> i) & 1 == 1 {
                        row |= 1 << j;
                    }
                }
                a |= u64::from(row) << (8 * (7 - i));
            }
            *slot = a;
        }
        all
    })
}

/// `outputs[r] = sum_j coefs[r * k + j] * inputs[j]` for all rows, in passes of up to
/// [`MAX_ROWS_PER_PASS`] rows; each pass reads every input once.
///
/// # Safety
/// The CPU must support avx512f, avx512bw and gfni ([`available`]).
pub unsafe fn matrix_mul(coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
    let k = inputs.len();
    let rows = outputs.len();
    assert_eq!(coefs.len(), k * rows, "matrix_mul: coefs must be rows x k");
    let all = matrices();
    let mut first = 0;
    while first < rows {
        let n = (rows - first).min(MAX_ROWS_PER_PASS);
        // The matrices of this pass, input-major (j * n + r): on the stack for small k (a
        // heap allocation would show at 4 KiB elements), else on the heap.
        let mut small = [0u64; STACK_MATS];
        let mut large = Vec::new();
        let mats: &mut [u64] = if k * n <= STACK_MATS {
            &mut small[..k * n]
        } else {
            large.resize(k * n, 0);
            &mut large
        };
        for r in 0..n {
            for j in 0..k {
                mats[j * n + r] = all[coefs[(first + r) * k + j] as usize];
            }
        }
        let mats: &[u64] = mats;
        let outs = &mut outputs[first..first + n];
        match n {
            1 => pass::<1>(mats, inputs, outs),
            2 => pass::<2>(mats, inputs, outs),
            3 => pass::<3>(mats, inputs, outs),
            4 => pass::<4>(mats, inputs, outs),
            5 => pass::<5>(mats, inputs, outs),
            6 => pass::<6>(mats, inputs, outs),
            7 => pass::<7>(mats, inputs, outs),
            _ => pass::<8>(mats, inputs, outs),
        }
        first += n;
    }
}

/// One pass for R outputs: per 64-byte block, load each input once, multiply-accumulate into
/// R registers, store R results. The last partial block uses masked loads and stores.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn pass<const R: usize>(mats: &[u64], inputs: &[&[u8]], outs: &mut [&mut [u8]]) {
    debug_assert_eq!(outs.len(), R);
    let len = outs[0].len();
    let mut dst = [std::ptr::null_mut::<u8>(); R];
    for (d, o) in dst.iter_mut().zip(outs.iter_mut()) {
        *d = o.as_mut_ptr();
    }
    // Run the main loop on 64-byte aligned addresses when every buffer has the same offset
    // (elements of one stripe buffer do): loads that straddle two cache lines cost about
    // double. The first block then covers just the bytes up to the boundary (masked).
    let misalign = dst[0] as usize % LANE;
    let shared = inputs
        .iter()
        .all(|s| s.as_ptr() as usize % LANE == misalign)
        && dst.iter().all(|&d| d as usize % LANE == misalign);
    let head = if shared { (LANE - misalign) % LANE } else { 0 };
    let mut pos = 0;
    if head > 0 {
        one_block::<R>(mats, inputs, &dst, pos, head.min(len));
        pos += head.min(len);
    }
    // Two blocks per iteration while the accumulators fit in registers (2R of 32), so that
    // twice as many loads are in flight.
    if R <= 4 {
        while pos + 2 * LANE <= len {
            let mut a0 = [_mm512_setzero_si512(); R];
            let mut a1 = [_mm512_setzero_si512(); R];
            for (j, input) in inputs.iter().enumerate() {
                let p = input.as_ptr().add(pos);
                let v0 = _mm512_loadu_si512(p as *const _);
                let v1 = _mm512_loadu_si512(p.add(LANE) as *const _);
                let m = &mats[j * R..(j + 1) * R];
                for r in 0..R {
                    let a = _mm512_set1_epi64(m[r] as i64);
                    a0[r] = _mm512_xor_si512(a0[r], _mm512_gf2p8affine_epi64_epi8::<0>(v0, a));
                    a1[r] = _mm512_xor_si512(a1[r], _mm512_gf2p8affine_epi64_epi8::<0>(v1, a));
                }
            }
            for r in 0..R {
                _mm512_storeu_si512(dst[r].add(pos) as *mut _, a0[r]);
                _mm512_storeu_si512(dst[r].add(pos + LANE) as *mut _, a1[r]);
            }
            pos += 2 * LANE;
        }
    }
    while pos < len {
        let block = LANE.min(len - pos);
        one_block::<R>(mats, inputs, &dst, pos, block);
        pos += block;
    }
}

/// Bytes `pos..pos + block` (block <= 64) of R outputs; masked when block < 64.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn one_block<const R: usize>(
    mats: &[u64],
    inputs: &[&[u8]],
    dst: &[*mut u8; R],
    pos: usize,
    block: usize,
) {
    debug_assert!(block > 0 && block <= LANE);
    let full = block == LANE;
    let mask: __mmask64 = if full { !0 } else { (1u64 << block) - 1 };
    let mut acc = [_mm512_setzero_si512(); R];
    for (j, input) in inputs.iter().enumerate() {
        let p = input.as_ptr().add(pos) as *const i8;
        let v = if full {
            _mm512_loadu_si512(p as *const _)
        } else {
            _mm512_maskz_loadu_epi8(mask, p)
        };
        let m = &mats[j * R..(j + 1) * R];
        for r in 0..R {
            // No special case for coefficient 1: a branch per coefficient and block costs
            // more than the one affine op it would save (measured).
            let a = _mm512_set1_epi64(m[r] as i64);
            acc[r] = _mm512_xor_si512(acc[r], _mm512_gf2p8affine_epi64_epi8::<0>(v, a));
        }
    }
    for r in 0..R {
        let q = dst[r].add(pos) as *mut i8;
        if full {
            _mm512_storeu_si512(q as *mut _, acc[r]);
        } else {
            _mm512_mask_storeu_epi8(q, mask, acc[r]);
        }
    }
}

/// `dst = xor of srcs` with AVX-512: main loop on 64-byte aligned addresses when all buffers
/// share one offset (masked first block), four registers per iteration, masked last block.
///
/// # Safety
/// The CPU must support avx512f and avx512bw ([`available`] checks more than that).
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn xor_many(srcs: &[&[u8]], dst: &mut [u8]) {
    const BLOCK: usize = 4 * LANE;
    let len = dst.len();
    let d = dst.as_mut_ptr();
    let misalign = d as usize % LANE;
    let shared = srcs.iter().all(|s| s.as_ptr() as usize % LANE == misalign);
    let head = if shared {
        ((LANE - misalign) % LANE).min(len)
    } else {
        0
    };
    let masked = |pos: usize, n: usize| {
        let mask: __mmask64 = if n == LANE { !0 } else { (1u64 << n) - 1 };
        let mut a = _mm512_maskz_loadu_epi8(mask, srcs[0].as_ptr().add(pos) as *const i8);
        for s in &srcs[1..] {
            a = _mm512_xor_si512(
                a,
                _mm512_maskz_loadu_epi8(mask, s.as_ptr().add(pos) as *const i8),
            );
        }
        _mm512_mask_storeu_epi8(d.add(pos) as *mut i8, mask, a);
    };
    let mut pos = 0;
    if head > 0 {
        masked(0, head);
        pos = head;
    }
    while pos + BLOCK <= len {
        let s0 = srcs[0].as_ptr().add(pos);
        let mut a0 = _mm512_loadu_si512(s0 as *const _);
        let mut a1 = _mm512_loadu_si512(s0.add(LANE) as *const _);
        let mut a2 = _mm512_loadu_si512(s0.add(2 * LANE) as *const _);
        let mut a3 = _mm512_loadu_si512(s0.add(3 * LANE) as *const _);
        for s in &srcs[1..] {
            let p = s.as_ptr().add(pos);
            a0 = _mm512_xor_si512(a0, _mm512_loadu_si512(p as *const _));
            a1 = _mm512_xor_si512(a1, _mm512_loadu_si512(p.add(LANE) as *const _));
            a2 = _mm512_xor_si512(a2, _mm512_loadu_si512(p.add(2 * LANE) as *const _));
            a3 = _mm512_xor_si512(a3, _mm512_loadu_si512(p.add(3 * LANE) as *const _));
        }
        _mm512_storeu_si512(d.add(pos) as *mut _, a0);
        _mm512_storeu_si512(d.add(pos + LANE) as *mut _, a1);
        _mm512_storeu_si512(d.add(pos + 2 * LANE) as *mut _, a2);
        _mm512_storeu_si512(d.add(pos + 3 * LANE) as *mut _, a3);
        pos += BLOCK;
    }
    while pos < len {
        let n = LANE.min(len - pos);
        masked(pos, n);
        pos += n;
    }
}

/// ISA-L's engine with every GF(2^8) matrix multiply (RS encode, RAID-6 P+Q, every decode
/// matrix) done by the GFNI kernel above and XOR of many sources by the AVX-512 loop above;
/// `xor_into` and single-coefficient updates take the same paths as [`Isal`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Gfni;

static ISAL: Isal = Isal;

impl Engine for Gfni {
    fn name(&self) -> &'static str {
        "gfni"
    }
    fn xor_many(&self, srcs: &[&[u8]], dst: &mut [u8]) {
        assert!(!srcs.is_empty(), "xor_many needs at least one source");
        assert!(
            srcs.iter().all(|s| s.len() == dst.len()),
            "xor_many: every source has the destination's length"
        );
        assert!(
            available(),
            "the gfni engine is only handed out on CPUs with avx512bw and gfni"
        );
        // SAFETY: features asserted; lengths asserted.
        unsafe { xor_many(srcs, dst) }
    }
    fn xor_into(&self, dst: &mut [u8], src: &[u8]) {
        ISAL.xor_into(dst, src)
    }
    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]) {
        ISAL.gf_mul_xor(c, src, dst)
    }
    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        if super::matrix_mul_is_trivial(coefs, inputs, outputs) {
            return;
        }
        let rows = outputs.len();
        // One all-ones row is XOR (our AVX2 loop, as in the ISA-L engine). RAID-6 P+Q is NOT
        // sent to pq_gen here: this kernel is measured faster on the same buffers (kernel
        // table, "P+Q of 8"), and needs no alignment split.
        if rows == 1 && coefs.iter().all(|&c| c == 1) {
            self.xor_many(inputs, outputs[0]);
            return;
        }
        assert!(
            available(),
            "the gfni engine is only handed out on CPUs with avx512bw and gfni"
        );
        // SAFETY: the CPU features are present (asserted); shapes asserted above.
        unsafe { matrix_mul(coefs, inputs, outputs) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_constant_is_the_matrix_of_one() {
        // The layout of the matrices (byte 7 - i is output bit i) gives this constant for 1.
        assert_eq!(matrices()[1], IDENTITY);
        assert!(matrices()
            .iter()
            .enumerate()
            .all(|(c, &m)| (m == IDENTITY) == (c == 1)));
    }

    #[test]
    fn every_matrix_multiplies_like_the_tables() {
        if !available() {
            return; // Nothing to check on a CPU without GFNI; the engine is not offered there.
        }
        let inputs: Vec<u8> = (0..=255u8).cycle().take(256).collect();
        for c in 0..=255u8 {
            let mut out = vec![0u8; 256];
            // SAFETY: available() checked above.
            unsafe { matrix_mul(&[c], &[&inputs], &mut [&mut out]) };
            for (x, got) in inputs.iter().zip(&out) {
                assert_eq!(*got, gf256::mul(c, *x), "c={c} x={x}");
            }
        }
    }
}
