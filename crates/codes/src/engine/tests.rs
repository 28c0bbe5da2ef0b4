//! Every engine against a byte-at-a-time reference, on random data and odd shapes; ISA-L's
//! matrices and multiply against our GF(2^8) tables.

use super::*;
use crate::gf256;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The definitions, one byte at a time: what every kernel must equal.
mod reference {
    use crate::gf256;

    pub fn xor_many(srcs: &[&[u8]], dst: &mut [u8]) {
        for (i, d) in dst.iter_mut().enumerate() {
            *d = srcs.iter().fold(0, |a, s| a ^ s[i]);
        }
    }
    pub fn gf_mul_xor(c: u8, src: &[u8], dst: &mut [u8]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d ^= gf256::mul(c, *s);
        }
    }
    pub fn gf_matrix_mul(coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        let k = inputs.len();
        for (r, out) in outputs.iter_mut().enumerate() {
            for (i, o) in out.iter_mut().enumerate() {
                *o = (0..k).fold(0, |a, j| a ^ gf256::mul(coefs[r * k + j], inputs[j][i]));
            }
        }
    }
}

/// `count` buffers of `len` random bytes, each starting `misalign[i % misalign.len()]` bytes
/// past a 64-byte boundary, carved out of one allocation (as a stripe buffer would be).
struct Buffers {
    backing: Vec<u8>,
    starts: Vec<usize>,
    len: usize,
}

impl Buffers {
    fn new(rng: &mut ChaCha8Rng, count: usize, len: usize, misalign: &[usize]) -> Buffers {
        let stride = (len + 64).next_multiple_of(64) + 64;
        let mut backing = vec![0u8; count * stride + 128];
        rng.fill(&mut backing[..]);
        let base = (64 - backing.as_ptr() as usize % 64) % 64;
        let starts = (0..count)
            .map(|i| base + i * stride + misalign[i % misalign.len()])
            .collect();
        Buffers {
            backing,
            starts,
            len,
        }
    }
    fn get(&self, i: usize) -> &[u8] {
        &self.backing[self.starts[i]..self.starts[i] + self.len]
    }
    /// Inputs 0..n_in shared, outputs n_in.. mutable.
    fn split(&mut self, n_in: usize) -> (Vec<&[u8]>, Vec<&mut [u8]>) {
        let len = self.len;
        let mut ins = Vec::new();
        let mut outs = Vec::new();
        let mut rest: &mut [u8] = &mut self.backing;
        let mut consumed = 0;
        for (i, &start) in self.starts.iter().enumerate() {
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - consumed);
            let (this, after) = tail.split_at_mut(len);
            consumed = start + len;
            rest = after;
            if i < n_in {
                ins.push(&*this);
            } else {
                outs.push(this);
            }
        }
        (ins, outs)
    }
}

const LENGTHS: [usize; 14] = [
    0,
    1,
    7,
    16,
    31,
    32,
    33,
    63,
    64,
    65,
    100,
    4096,
    4096 + 17,
    65536 + 40,
];
/// Offsets past a 64-byte boundary: all aligned, all equally misaligned (a stripe buffer from
/// malloc), and each different (no shared alignment, so no xor_gen/pq_gen).
const MISALIGNS: [&[usize]; 4] = [&[0], &[16], &[5], &[0, 3, 32, 17, 8]];

fn engines_under_test() -> Vec<&'static dyn Engine> {
    let all = engines();
    assert!(
        all.iter().any(|e| e.name() == "isa-l"),
        "ISA-L must be usable on the test machine"
    );
    all
}

fn random_matrix(rng: &mut ChaCha8Rng, rows: usize, k: usize) -> Vec<u8> {
    (0..rows * k).map(|_| rng.gen()).collect()
}

/// The matrices that take the special paths (XOR row, RAID-6 P+Q) plus random ones.
fn matrices(rng: &mut ChaCha8Rng, k: usize) -> Vec<(usize, Vec<u8>)> {
    let mut pq = vec![1u8; k];
    pq.extend(gf256::raid6_q_coefs(k));
    let mut all = vec![
        (1, vec![1u8; k]),
        (2, pq),
        (1, random_matrix(rng, 1, k)),
        (3, random_matrix(rng, 3, k)),
    ];
    if k <= 12 {
        all.push((7, random_matrix(rng, 7, k)));
    }
    if k <= 5 {
        // More outputs than one pass of the GFNI kernel takes.
        all.push((11, random_matrix(rng, 11, k)));
    }
    // A matrix with zero and one coefficients mixed in.
    let mut sparse = random_matrix(rng, 2, k);
    for (i, c) in sparse.iter_mut().enumerate() {
        if i % 3 == 0 {
            *c = 0;
        } else if i % 3 == 1 {
            *c = 1;
        }
    }
    all.push((2, sparse));
    all
}

#[test]
fn gf_matrix_mul_equals_reference_for_every_engine_and_shape() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0001);
    for engine in engines_under_test() {
        for k in [1usize, 2, 3, 5, 10, 17, 45] {
            for (rows, coefs) in matrices(&mut rng, k) {
                for len in LENGTHS {
                    for misalign in MISALIGNS {
                        let mut bufs = Buffers::new(&mut rng, k + rows, len, misalign);
                        let mut want: Vec<Vec<u8>> = vec![vec![0; len]; rows];
                        {
                            let ins: Vec<&[u8]> = (0..k).map(|j| bufs.get(j)).collect();
                            let mut w: Vec<&mut [u8]> =
                                want.iter_mut().map(|v| &mut v[..]).collect();
                            reference::gf_matrix_mul(&coefs, &ins, &mut w);
                        }
                        let (ins, mut outs) = bufs.split(k);
                        engine.gf_matrix_mul(&coefs, &ins, &mut outs);
                        for (r, (got, want)) in outs.iter().zip(&want).enumerate() {
                            assert!(
                                got[..] == want[..],
                                "{}: gf_matrix_mul k={k} rows={rows} len={len} misalign={misalign:?} row {r} coefs={coefs:?}",
                                engine.name()
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn xor_many_equals_reference_for_every_engine_and_shape() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0002);
    for engine in engines_under_test() {
        for n in [1usize, 2, 3, 4, 8, 13] {
            for len in LENGTHS {
                for misalign in MISALIGNS {
                    let mut bufs = Buffers::new(&mut rng, n + 1, len, misalign);
                    let mut want = vec![0u8; len];
                    let ins: Vec<&[u8]> = (0..n).map(|j| bufs.get(j)).collect();
                    reference::xor_many(&ins, &mut want);
                    let (ins, mut outs) = bufs.split(n);
                    engine.xor_many(&ins, outs[0]);
                    assert!(
                        outs[0][..] == want[..],
                        "{}: xor_many n={n} len={len} misalign={misalign:?}",
                        engine.name()
                    );
                }
            }
        }
    }
}

#[test]
fn xor_into_and_gf_mul_xor_equal_reference_for_every_engine() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0003);
    for engine in engines_under_test() {
        for len in LENGTHS {
            for misalign in MISALIGNS {
                for c in [0u8, 1, 2, 3, 0x1d, 0x80, 0x8e, 255, rng.gen()] {
                    let mut bufs = Buffers::new(&mut rng, 2, len, misalign);
                    let mut want = bufs.get(1).to_vec();
                    reference::gf_mul_xor(c, bufs.get(0), &mut want);
                    let (ins, mut outs) = bufs.split(1);
                    engine.gf_mul_xor(c, ins[0], outs[0]);
                    assert!(
                        outs[0][..] == want[..],
                        "{}: gf_mul_xor c={c} len={len} misalign={misalign:?}",
                        engine.name()
                    );
                }
                let mut bufs = Buffers::new(&mut rng, 2, len, misalign);
                let mut want = bufs.get(1).to_vec();
                reference::xor_many(&[bufs.get(0), bufs.get(1)], &mut want);
                let (ins, mut outs) = bufs.split(1);
                engine.xor_into(outs[0], ins[0]);
                assert!(
                    outs[0][..] == want[..],
                    "{}: xor_into len={len} misalign={misalign:?}",
                    engine.name()
                );
            }
        }
    }
}

#[test]
fn isal_tables_survive_many_distinct_matrices() {
    // More distinct matrices than the cache holds, then the first ones again: evicted tables
    // must be rebuilt, never reused for the wrong matrix.
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0004);
    let k = 6;
    let len = 256;
    let mats: Vec<Vec<u8>> = (0..150).map(|_| random_matrix(&mut rng, 2, k)).collect();
    let mut bufs = Buffers::new(&mut rng, k + 2, len, &[0]);
    for round in 0..2 {
        for m in &mats {
            let mut want: Vec<Vec<u8>> = vec![vec![0; len]; 2];
            {
                let ins: Vec<&[u8]> = (0..k).map(|j| bufs.get(j)).collect();
                let mut w: Vec<&mut [u8]> = want.iter_mut().map(|v| &mut v[..]).collect();
                reference::gf_matrix_mul(m, &ins, &mut w);
            }
            let (ins, mut outs) = bufs.split(k);
            Isal.gf_matrix_mul(m, &ins, &mut outs);
            assert!(
                outs[0][..] == want[0][..] && outs[1][..] == want[1][..],
                "round {round}"
            );
        }
    }
}

#[test]
fn isal_rs_matrix_parity_rows_are_md_raid6_p_and_q() {
    // ISA-L's gf_gen_rs_matrix: first parity row is (2^0)^j = 1, second (2^1)^j = 2^j, which
    // is Linux md's Q = sum 2^j D_j (H. P. Anvin, "The mathematics of RAID-6").
    for k in 1..=64 {
        let a = isal::gen_rs_matrix(k + 2, k);
        assert!(a[k * k..k * k + k].iter().all(|&c| c == 1), "k={k}: P row");
        assert_eq!(
            &a[(k + 1) * k..(k + 2) * k],
            &gf256::raid6_q_coefs(k)[..],
            "k={k}: Q row"
        );
    }
}

#[test]
fn isal_cauchy1_matrix_equals_ours_up_to_32_columns() {
    for total in 2..=32 {
        for k in 1..total {
            let m = total - k;
            let a = isal::gen_cauchy1_matrix(total, k);
            for (i, row) in a[..k * k].chunks(k).enumerate() {
                assert!(
                    row.iter().enumerate().all(|(j, &c)| c == u8::from(i == j)),
                    "identity on top"
                );
            }
            assert_eq!(&a[k * k..], &gf256::cauchy1_matrix(k, m)[..], "k={k} m={m}");
        }
    }
    // And at the largest size the code allows.
    let a = isal::gen_cauchy1_matrix(255, 200);
    assert_eq!(&a[200 * 200..], &gf256::cauchy1_matrix(200, 55)[..]);
}

#[test]
fn gf256_tables_equal_isal_gf_mul_for_all_pairs() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            assert_eq!(gf256::mul(a, b), isal::gf_mul(a, b), "a={a} b={b}");
        }
    }
}

#[test]
fn isal_inverse_of_cauchy_submatrix_is_an_inverse() {
    let (k, m) = (10, 4);
    let full = isal::gen_cauchy1_matrix(k + m, k);
    // Drop the first m data rows: keep rows m..k+m.
    let sub: Vec<u8> = full[m * k..].to_vec();
    let inv = isal::invert_matrix(&sub, k).expect("Cauchy submatrices are invertible");
    for i in 0..k {
        for j in 0..k {
            let dot = (0..k).fold(0u8, |a, t| a ^ gf256::mul(sub[i * k + t], inv[t * k + j]));
            assert_eq!(dot, u8::from(i == j), "(M * M^-1)[{i}][{j}]");
        }
    }
    assert!(
        isal::invert_matrix(&[1, 1, 1, 1], 2).is_none(),
        "a singular matrix is reported"
    );
}

#[test]
fn raid_kernels_refuse_what_isal_cannot_take() {
    let mut buf = vec![0u8; 4 * 128 + 64];
    let base = (32 - buf.as_ptr() as usize % 32) % 32;
    let (srcs, dst) = buf[base..base + 4 * 128].split_at_mut(3 * 128);
    let srcs: Vec<&[u8]> = srcs.chunks(128).collect();
    assert_eq!(
        isal::xor_gen(&srcs[..1], dst),
        Err(isal::Rejected::TooFewSources)
    );
    assert_eq!(
        isal::xor_gen(&[&srcs[0][..40], &srcs[1][..40]], &mut dst[..40]),
        Err(isal::Rejected::LengthNotMultipleOf32)
    );
    assert_eq!(
        isal::xor_gen(&[&srcs[0][1..33], &srcs[1][..32]], &mut dst[..32]),
        Err(isal::Rejected::PointerNotAligned)
    );
    assert_eq!(isal::xor_gen(&srcs, dst), Ok(()));
}

#[test]
fn engine_choice_follows_the_environment_value() {
    let default = if gfni_usable() { "gfni" } else { "isa-l" };
    assert_eq!(choose("portable").name(), "portable");
    assert_eq!(choose("").name(), default);
    assert_eq!(choose("gfni").name(), default);
    assert_eq!(choose("isal").name(), "isa-l");
    assert_eq!(choose("isa-l").name(), "isa-l");
    assert_eq!(
        choose("no-such-engine").name(),
        default,
        "an unknown name warns and uses the default"
    );
}

#[test]
fn isal_pq_gen_is_md_p_and_q() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0005);
    for k in [2usize, 3, 8, 30] {
        let len = 4096 + 96;
        let mut bufs = Buffers::new(&mut rng, k + 2, len, &[0, 32]);
        let mut coefs = vec![1u8; k];
        coefs.extend(gf256::raid6_q_coefs(k));
        let mut want: Vec<Vec<u8>> = vec![vec![0; len]; 2];
        {
            let ins: Vec<&[u8]> = (0..k).map(|j| bufs.get(j)).collect();
            let mut w: Vec<&mut [u8]> = want.iter_mut().map(|v| &mut v[..]).collect();
            reference::gf_matrix_mul(&coefs, &ins, &mut w);
        }
        let (ins, mut outs) = bufs.split(k);
        let [p, q] = &mut outs[..] else {
            unreachable!()
        };
        isal::pq_gen(&ins, p, q).expect("aligned, length a multiple of 32, k >= 2");
        assert!(p[..] == want[0][..] && q[..] == want[1][..], "k={k}");
    }
}
