//! GF(2^8) with polynomial 0x11d and generator 2 (Linux md RAID-6, ISA-L).

const POLY: u16 = 0x11d;

const fn build_tables() -> ([u8; 256], [u8; 512]) {
    let mut log = [0u8; 256];
    let mut exp = [0u8; 512];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        exp[i] = x as u8;
        exp[i + 255] = x as u8;
        log[x as usize] = i as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= POLY;
        }
        i += 1;
    }
    (log, exp)
}

const TABLES: ([u8; 256], [u8; 512]) = build_tables();
pub const LOG: [u8; 256] = TABLES.0;
pub const EXP: [u8; 512] = TABLES.1;

pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        EXP[LOG[a as usize] as usize + LOG[b as usize] as usize]
    }
}

pub fn inv(a: u8) -> u8 {
    assert!(a != 0, "zero has no inverse in GF(2^8)");
    EXP[255 - LOG[a as usize] as usize]
}

/// 2^e.
pub fn pow2(e: usize) -> u8 {
    EXP[e % 255]
}

/// The 256-entry table of `c * x` for every x.
pub fn mul_table(c: u8) -> [u8; 256] {
    let mut t = [0u8; 256];
    for (x, slot) in t.iter_mut().enumerate() {
        *slot = mul(c, x as u8);
    }
    t
}

/// The m x k parity rows (row-major, `m * k` bytes) of the systematic Cauchy matrix exactly
/// as ISA-L's `gf_gen_cauchy1_matrix` builds them: parity row r, data column j holds
/// `1 / ((k + r) ^ j)` in GF(2^8). Source: intel/isa-l, erasure_code/ec_base.c,
/// `gf_gen_cauchy1_matrix` ("For the rest choose 1/(i + j) | i != j", i in k..k+m, j in 0..k;
/// addition in GF(2^8) is XOR). The x values {k..k+m-1} and y values {0..k-1} are disjoint,
/// so every square submatrix is a nonsingular Cauchy matrix: any k of the k+m columns
/// recover the data (unlike ISA-L's Vandermonde `gf_gen_rs_matrix`, see ISA-L issue #46).
/// Needs `k + m <= 256` so that every row index fits a byte.
pub fn cauchy1_matrix(k: usize, m: usize) -> Vec<u8> {
    assert!(
        k >= 1 && m >= 1,
        "cauchy1_matrix needs k >= 1 and m >= 1 (got k={k}, m={m})"
    );
    assert!(
        k + m <= 256,
        "cauchy1_matrix needs k + m <= 256 (got {})",
        k + m
    );
    let mut rows = Vec::with_capacity(m * k);
    for r in 0..m {
        for j in 0..k {
            let x = ((k + r) ^ j) as u8;
            debug_assert!(x != 0, "row index and column index never coincide");
            rows.push(inv(x));
        }
    }
    rows
}

/// RAID-6 Q coefficients of Linux md (lib/raid6, H. Peter Anvin, "The mathematics of RAID-6"):
/// Q = sum over data columns j of 2^j * D_j, so coefficient j is 2^j. `k <= 255` keeps the
/// powers distinct (2 generates a group of order 255).
pub fn raid6_q_coefs(k: usize) -> Vec<u8> {
    assert!(
        (1..=255).contains(&k),
        "raid6_q_coefs needs 1 <= k <= 255 (got k={k})"
    );
    (0..k).map(pow2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_axioms_hold_for_every_pair() {
        for a in 0..=255u8 {
            assert_eq!(mul(a, 1), a);
            assert_eq!(mul(a, 0), 0);
            if a != 0 {
                assert_eq!(mul(a, inv(a)), 1, "a={a}");
            }
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), mul(b, a));
            }
        }
        // 2 generates the multiplicative group: 255 distinct powers.
        let powers: std::collections::HashSet<u8> = (0..255).map(pow2).collect();
        assert_eq!(powers.len(), 255);
        assert_eq!(mul(0x80, 2), 0x1d, "reduction by 0x11d");
    }

    #[test]
    fn cauchy1_rows_are_the_inverses_of_row_xor_column() {
        // k=4, m=2: row 0 is 1/(4^j), row 1 is 1/(5^j).
        let rows = cauchy1_matrix(4, 2);
        assert_eq!(rows.len(), 8);
        for j in 0..4 {
            assert_eq!(mul(rows[j], (4 ^ j) as u8), 1);
            assert_eq!(mul(rows[4 + j], (5 ^ j) as u8), 1);
        }
    }

    #[test]
    fn raid6_q_coefs_are_powers_of_two() {
        assert_eq!(raid6_q_coefs(9), vec![1, 2, 4, 8, 16, 32, 64, 128, 0x1d]);
    }
}
