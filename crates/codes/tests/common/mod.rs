//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use exaraid_codes::{Code, CodeKind, CodeSpec, StripeBuf};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub const ARRAY_CODES: [CodeKind; 6] = [
    CodeKind::Evenodd,
    CodeKind::Rdp,
    CodeKind::Xcode,
    CodeKind::Hcode,
    CodeKind::Hdp,
    CodeKind::Dcode,
];
pub const PRIMES: [usize; 4] = [5, 7, 11, 13];

/// Every code instance the exhaustive checks cover.
pub fn all_specs() -> Vec<CodeSpec> {
    let mut specs = Vec::new();
    for kind in ARRAY_CODES {
        for p in PRIMES {
            specs.push(CodeSpec::array(kind, p));
        }
    }
    for k in 1..=12 {
        specs.push(CodeSpec::raid5(k));
        if k >= 2 {
            specs.push(CodeSpec::raid6(k));
        }
        for m in 1..=4 {
            specs.push(CodeSpec::rs(k, m));
        }
    }
    specs
}

/// A stripe of random data, encoded.
pub fn random_stripe(code: &Code, element_bytes: usize, seed: u64) -> StripeBuf {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut stripe = code.new_stripe(element_bytes).unwrap();
    let g = code.geometry();
    for &pos in &g.data_pos {
        rng.fill(stripe.element_mut(pos));
    }
    code.encode(&mut stripe).unwrap();
    stripe
}

/// Every set of at most `t` columns out of `cols`, in lexicographic order.
pub fn patterns(cols: usize, t: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    let mut frontier = vec![vec![]];
    for _ in 0..t {
        let mut next = Vec::new();
        for p in &frontier {
            let start = p.last().map_or(0, |&c: &usize| c + 1);
            for c in start..cols {
                let mut q: Vec<usize> = p.clone();
                q.push(c);
                next.push(q);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}
