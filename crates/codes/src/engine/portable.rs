//! Plain Rust kernels: correct everywhere, the reference the faster engines are tested against.

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
        dst.copy_from_slice(srcs[0]);
        for s in &srcs[1..] {
            self.xor_into(dst, s);
        }
    }

    fn xor_into(&self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len());
        // u64 lanes: the compiler vectorises this loop.
        let (d8, dtail) = dst.split_at_mut(dst.len() / 8 * 8);
        let (s8, stail) = src.split_at(src.len() / 8 * 8);
        for (d, s) in d8.chunks_exact_mut(8).zip(s8.chunks_exact(8)) {
            let v = u64::from_ne_bytes(d.try_into().unwrap()) ^ u64::from_ne_bytes(s.try_into().unwrap());
            d.copy_from_slice(&v.to_ne_bytes());
        }
        for (d, s) in dtail.iter_mut().zip(stail) {
            *d ^= s;
        }
    }

    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]) {
        assert_eq!(dst.len(), src.len());
        match c {
            0 => {}
            1 => self.xor_into(dst, src),
            _ => {
                let table = gf256::mul_table(c);
                for (d, s) in dst.iter_mut().zip(src) {
                    *d ^= table[*s as usize];
                }
            }
        }
    }

    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        assert_eq!(coefs.len(), inputs.len() * outputs.len(), "matrix shape");
        for (i, out) in outputs.iter_mut().enumerate() {
            out.fill(0);
            for (j, input) in inputs.iter().enumerate() {
                self.gf_mul_xor(coefs[i * inputs.len() + j], input, out);
            }
        }
    }
}
