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
}
