//! Kernels written in Rust: correct everywhere, the fallback when ISA-L is not used
//! (`EXARAID_ENGINE=portable`), and the engine the ISA-L one is tested against.
//!
//! On x86-64 with AVX2 (checked at run time with `is_x86_feature_detected!`) the GF(2^8)
//! multiply uses the split-nibble table lookup with `vpshufb` (the method of ISA-L and of
//! Plank, Greenan, Miller, "Screaming Fast Galois Field Arithmetic Using Intel SIMD
//! Instructions", FAST 2013): c*x = T_lo[x & 15] ^ T_hi[x >> 4]. Everywhere else the kernels
//! are u64-wide XOR and a 256-entry multiply table, which the compiler vectorises as it can.
//! The byte-at-a-time reference in `super::tests` checks both paths.

use super::Engine;
use crate::gf256;

#[derive(Debug, Default, Clone, Copy)]
pub struct Portable;

impl Engine for Portable {
    fn name(&self) -> &'static str {
        "portable"
    }

    fn xor_many(&self, srcs: &[&[u8]], dst: &mut [u8]) {
        assert!(!srcs.is_empty(), "xor_many needs at least one source");
        for s in srcs {
            assert_eq!(
                s.len(),
                dst.len(),
                "xor_many: every source has the destination's length"
            );
        }
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: AVX2 is present (checked above); lengths are equal (asserted above).
            unsafe { avx2::xor_many(srcs, dst) };
            return;
        }
        scalar::xor_many(srcs, dst);
    }

    fn xor_into(&self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(
            dst.len(),
            src.len(),
            "xor_into: source and destination lengths differ"
        );
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: AVX2 is present; lengths are equal.
            unsafe { avx2::xor_into(dst, src) };
            return;
        }
        scalar::xor_into(dst, src);
    }

    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]) {
        assert_eq!(
            dst.len(),
            src.len(),
            "gf_mul_xor: source and destination lengths differ"
        );
        match c {
            0 => {}
            1 => self.xor_into(dst, src),
            _ => {
                #[cfg(target_arch = "x86_64")]
                if avx2::available() {
                    // SAFETY: AVX2 is present; lengths are equal.
                    unsafe { avx2::gf_mul_xor(c, src, dst) };
                    return;
                }
                scalar::gf_mul_xor(c, src, dst);
            }
        }
    }

    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        assert_eq!(
            coefs.len(),
            inputs.len() * outputs.len(),
            "gf_matrix_mul: coefs must be outputs x inputs"
        );
        if outputs.is_empty() {
            return;
        }
        let len = outputs[0].len();
        for s in inputs {
            assert_eq!(
                s.len(),
                len,
                "gf_matrix_mul: every input has the outputs' length"
            );
        }
        for o in outputs.iter() {
            assert_eq!(
                o.len(),
                len,
                "gf_matrix_mul: every output has the same length"
            );
        }
        let k = inputs.len();
        for (i, out) in outputs.iter_mut().enumerate() {
            let row = &coefs[i * k..(i + 1) * k];
            #[cfg(target_arch = "x86_64")]
            if avx2::available() {
                // SAFETY: AVX2 is present; lengths are equal (asserted above).
                unsafe { avx2::dot_prod(row, inputs, out) };
                continue;
            }
            out.fill(0);
            for (j, input) in inputs.iter().enumerate() {
                self.gf_mul_xor(row[j], input, out);
            }
        }
    }
}

/// Plain Rust, no target features: what runs where AVX2 is absent.
mod scalar {
    use super::gf256;

    pub fn xor_many(srcs: &[&[u8]], dst: &mut [u8]) {
        dst.copy_from_slice(srcs[0]);
        for s in &srcs[1..] {
            xor_into(dst, s);
        }
    }

    pub fn xor_into(dst: &mut [u8], src: &[u8]) {
        // u64 lanes: the compiler vectorises this loop with whatever SIMD the target has.
        let split = dst.len() / 8 * 8;
        let (d8, dtail) = dst.split_at_mut(split);
        let (s8, stail) = src.split_at(split);
        for (d, s) in d8.chunks_exact_mut(8).zip(s8.chunks_exact(8)) {
            let v = u64::from_ne_bytes(d.try_into().unwrap())
                ^ u64::from_ne_bytes(s.try_into().unwrap());
            d.copy_from_slice(&v.to_ne_bytes());
        }
        for (d, s) in dtail.iter_mut().zip(stail) {
            *d ^= s;
        }
    }

    pub fn gf_mul_xor(c: u8, src: &[u8], dst: &mut [u8]) {
        let table = gf256::mul_table(c);
        for (d, s) in dst.iter_mut().zip(src) {
            *d ^= table[*s as usize];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! Every kernel runs its main loop on 32-byte aligned addresses when all its buffers share
    //! one offset modulo 32 (the elements of one stripe buffer do): a 32-byte access that
    //! straddles two cache lines costs about double, and malloc'd stripe buffers start 16 bytes
    //! past a boundary. The unaligned first and last 32 bytes are computed up front from the
    //! original destination (so the accumulating kernels stay correct where they overlap the
    //! main loop) and stored after it.

    use super::gf256;
    use std::arch::x86_64::*;

    /// Bytes per AVX2 register.
    const LANE: usize = 32;
    /// Bytes handled per loop iteration: four registers, to keep several loads in flight.
    const BLOCK: usize = 4 * LANE;

    pub fn available() -> bool {
        // std caches the CPUID answer; this is one relaxed load after the first call.
        is_x86_feature_detected!("avx2")
    }

    /// Where the aligned main loop starts and ends: (start, end), with start < LANE and
    /// (end - start) a multiple of LANE. start = 0 when the buffers do not share an offset
    /// (the loop then runs unaligned). Needs len >= LANE.
    fn aligned_span(
        dst: *const u8,
        others: impl Iterator<Item = *const u8>,
        len: usize,
    ) -> (usize, usize) {
        debug_assert!(len >= LANE);
        let misalign = dst as usize % LANE;
        let mut same = true;
        for p in others {
            same &= p as usize % LANE == misalign;
        }
        let start = if same { (LANE - misalign) % LANE } else { 0 };
        (start, start + (len - start) / LANE * LANE)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(p: *const u8) -> __m256i {
        _mm256_loadu_si256(p as *const __m256i)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store(p: *mut u8, v: __m256i) {
        _mm256_storeu_si256(p as *mut __m256i, v)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn xor_lane(srcs: &[&[u8]], pos: usize) -> __m256i {
        let mut a = load(srcs[0].as_ptr().add(pos));
        for s in &srcs[1..] {
            a = _mm256_xor_si256(a, load(s.as_ptr().add(pos)));
        }
        a
    }

    /// `dst = xor of srcs`, one pass over all sources per block (as ISA-L's xor_gen does),
    /// so the destination is written once and never read.
    #[target_feature(enable = "avx2")]
    pub unsafe fn xor_many(srcs: &[&[u8]], dst: &mut [u8]) {
        let len = dst.len();
        if len < LANE {
            for i in 0..len {
                dst[i] = srcs.iter().fold(0, |a, s| a ^ s[i]);
            }
            return;
        }
        let d = dst.as_mut_ptr();
        let (start, end) = aligned_span(d, srcs.iter().map(|s| s.as_ptr()), len);
        let first = xor_lane(srcs, 0);
        let last = xor_lane(srcs, len - LANE);
        let mut pos = start;
        while pos + BLOCK <= end {
            let s0 = srcs[0].as_ptr().add(pos);
            let mut a0 = load(s0);
            let mut a1 = load(s0.add(LANE));
            let mut a2 = load(s0.add(2 * LANE));
            let mut a3 = load(s0.add(3 * LANE));
            for s in &srcs[1..] {
                let p = s.as_ptr().add(pos);
                a0 = _mm256_xor_si256(a0, load(p));
                a1 = _mm256_xor_si256(a1, load(p.add(LANE)));
                a2 = _mm256_xor_si256(a2, load(p.add(2 * LANE)));
                a3 = _mm256_xor_si256(a3, load(p.add(3 * LANE)));
            }
            store(d.add(pos), a0);
            store(d.add(pos + LANE), a1);
            store(d.add(pos + 2 * LANE), a2);
            store(d.add(pos + 3 * LANE), a3);
            pos += BLOCK;
        }
        while pos < end {
            store(d.add(pos), xor_lane(srcs, pos));
            pos += LANE;
        }
        store(d, first);
        store(d.add(len - LANE), last);
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn xor_into(dst: &mut [u8], src: &[u8]) {
        let len = dst.len();
        if len < LANE {
            for i in 0..len {
                dst[i] ^= src[i];
            }
            return;
        }
        let d = dst.as_mut_ptr();
        let s = src.as_ptr();
        let (start, end) = aligned_span(d, std::iter::once(s), len);
        // From the original destination, before the main loop changes any of it.
        let first = _mm256_xor_si256(load(d), load(s));
        let last = _mm256_xor_si256(load(d.add(len - LANE)), load(s.add(len - LANE)));
        let mut pos = start;
        while pos + BLOCK <= end {
            for lane in 0..4 {
                let o = pos + lane * LANE;
                store(d.add(o), _mm256_xor_si256(load(d.add(o)), load(s.add(o))));
            }
            pos += BLOCK;
        }
        while pos < end {
            store(
                d.add(pos),
                _mm256_xor_si256(load(d.add(pos)), load(s.add(pos))),
            );
            pos += LANE;
        }
        store(d, first);
        store(d.add(len - LANE), last);
    }

    /// The two 16-entry nibble tables of c, each broadcast to both 128-bit halves
    /// (`vpshufb` looks up within each half).
    #[target_feature(enable = "avx2")]
    unsafe fn nibble_tables(c: u8) -> (__m256i, __m256i) {
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        for x in 0..16u8 {
            lo[x as usize] = gf256::mul(c, x);
            hi[x as usize] = gf256::mul(c, x << 4);
        }
        let lo = _mm_loadu_si128(lo.as_ptr() as *const __m128i);
        let hi = _mm_loadu_si128(hi.as_ptr() as *const __m128i);
        (
            _mm256_broadcastsi128_si256(lo),
            _mm256_broadcastsi128_si256(hi),
        )
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn mul_lane(v: __m256i, lo: __m256i, hi: __m256i, mask: __m256i) -> __m256i {
        let l = _mm256_and_si256(v, mask);
        let h = _mm256_and_si256(_mm256_srli_epi64::<4>(v), mask);
        _mm256_xor_si256(_mm256_shuffle_epi8(lo, l), _mm256_shuffle_epi8(hi, h))
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn gf_mul_xor(c: u8, src: &[u8], dst: &mut [u8]) {
        let len = dst.len();
        if len < LANE {
            for i in 0..len {
                dst[i] ^= gf256::mul(c, src[i]);
            }
            return;
        }
        let (lo, hi) = nibble_tables(c);
        let mask = _mm256_set1_epi8(0x0f);
        let d = dst.as_mut_ptr();
        let s = src.as_ptr();
        let (start, end) = aligned_span(d, std::iter::once(s), len);
        let step = |pos: usize| {
            _mm256_xor_si256(load(d.add(pos)), mul_lane(load(s.add(pos)), lo, hi, mask))
        };
        let first = step(0);
        let last = step(len - LANE);
        let mut pos = start;
        while pos < end {
            store(d.add(pos), step(pos));
            pos += LANE;
        }
        store(d, first);
        store(d.add(len - LANE), last);
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn dot_lane(
        tables: &[(__m256i, __m256i)],
        inputs: &[&[u8]],
        pos: usize,
        mask: __m256i,
    ) -> __m256i {
        let mut a = _mm256_setzero_si256();
        for (input, &(lo, hi)) in inputs.iter().zip(tables) {
            a = _mm256_xor_si256(a, mul_lane(load(input.as_ptr().add(pos)), lo, hi, mask));
        }
        a
    }

    /// `out = sum_j row[j] * inputs[j]`, one pass over the inputs per 64-byte block with the
    /// sum held in registers (the shape of ISA-L's gf_vect_dot_prod), so `out` is written once.
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot_prod(row: &[u8], inputs: &[&[u8]], out: &mut [u8]) {
        let len = out.len();
        if len < LANE {
            for i in 0..len {
                out[i] = inputs
                    .iter()
                    .zip(row)
                    .fold(0, |a, (s, &c)| a ^ gf256::mul(c, s[i]));
            }
            return;
        }
        // Bound the table memory: 256 inputs x 64 bytes = 16 KiB at most (k + m <= 255).
        assert!(inputs.len() <= 256, "dot_prod supports at most 256 inputs");
        let tables: Vec<(__m256i, __m256i)> = row.iter().map(|&c| nibble_tables(c)).collect();
        let mask = _mm256_set1_epi8(0x0f);
        let d = out.as_mut_ptr();
        let (start, end) = aligned_span(d, inputs.iter().map(|s| s.as_ptr()), len);
        let first = dot_lane(&tables, inputs, 0, mask);
        let last = dot_lane(&tables, inputs, len - LANE, mask);
        let mut pos = start;
        while pos + 2 * LANE <= end {
            let mut a0 = _mm256_setzero_si256();
            let mut a1 = _mm256_setzero_si256();
            for (input, &(lo, hi)) in inputs.iter().zip(&tables) {
                let p = input.as_ptr().add(pos);
                a0 = _mm256_xor_si256(a0, mul_lane(load(p), lo, hi, mask));
                a1 = _mm256_xor_si256(a1, mul_lane(load(p.add(LANE)), lo, hi, mask));
            }
            store(d.add(pos), a0);
            store(d.add(pos + LANE), a1);
            pos += 2 * LANE;
        }
        while pos < end {
            store(d.add(pos), dot_lane(&tables, inputs, pos, mask));
            pos += LANE;
        }
        store(d, first);
        store(d.add(len - LANE), last);
    }
}
