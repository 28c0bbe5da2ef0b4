//! Every code, every pattern of up to `fault_tolerance` erased columns: the erased columns
//! are overwritten with garbage, decoded, and must come back byte for byte.

mod common;

use common::*;
use exaraid_codes::{Code, CodeSpec};

fn check_exhaustive(spec: CodeSpec, element_bytes: usize) -> usize {
    let code = Code::new(spec).unwrap();
    let original = random_stripe(&code, element_bytes, 0x5eed ^ element_bytes as u64);
    assert!(
        code.verify(&original).unwrap().is_empty(),
        "{spec}: encode then verify"
    );
    let g = code.geometry();
    let mut checked = 0;
    for pattern in patterns(g.cols, g.fault_tolerance) {
        let mut stripe = original.clone();
        for &col in &pattern {
            stripe.column_mut(col).fill(0xa5);
        }
        code.decode(&mut stripe, &pattern)
            .unwrap_or_else(|e| panic!("{spec}: decode {pattern:?}: {e}"));
        assert!(
            stripe == original,
            "{spec}: erasing columns {pattern:?} did not decode back to the original bytes"
        );
        checked += 1;
    }
    checked
}

#[test]
fn array_codes_decode_every_double_erasure() {
    for kind in ARRAY_CODES {
        for p in PRIMES {
            let spec = CodeSpec::array(kind, p);
            let cols = Code::new(spec).unwrap().geometry().cols;
            for element_bytes in [64, 96] {
                let n = check_exhaustive(spec, element_bytes);
                assert_eq!(
                    n,
                    1 + cols + cols * (cols - 1) / 2,
                    "{spec}: all patterns of <= 2 columns"
                );
            }
        }
    }
}

#[test]
fn array_codes_at_p3_where_allowed() {
    for kind in ARRAY_CODES
        .into_iter()
        .filter(|&k| k != exaraid_codes::CodeKind::Hdp)
    {
        check_exhaustive(CodeSpec::array(kind, 3), 32);
    }
}

#[test]
fn raid5_and_raid6_decode_every_pattern() {
    for k in 1..=12 {
        check_exhaustive(CodeSpec::raid5(k), 64);
        if k >= 2 {
            check_exhaustive(CodeSpec::raid6(k), 96);
        }
    }
}

#[test]
fn rs_decodes_every_pattern_up_to_12_plus_4() {
    for k in 1..=12 {
        for m in 1..=4 {
            check_exhaustive(CodeSpec::rs(k, m), 64);
        }
    }
}

#[test]
fn rs_wide_codes_decode_random_patterns() {
    // k + m near the GF(2^8) limit: every square sub-matrix of a Cauchy matrix is
    // invertible, so any m columns decode; spot-check erasing the first m data columns and
    // a mix of data and parity.
    for (k, m) in [(200, 55), (100, 20), (250, 5)] {
        let code = Code::new(CodeSpec::rs(k, m)).unwrap();
        let original = random_stripe(&code, 32, k as u64);
        for pattern in [
            (0..m).collect::<Vec<_>>(),
            (k - m / 2..k + m - m / 2).collect(),
        ] {
            let mut stripe = original.clone();
            for &c in &pattern {
                stripe.column_mut(c).fill(0);
            }
            code.decode(&mut stripe, &pattern).unwrap();
            assert!(stripe == original, "rs {k}+{m} pattern {pattern:?}");
        }
    }
}

#[test]
fn library_exhaustive_check_counts_every_pattern_and_passes() {
    let check = Code::new(CodeSpec::rs(12, 4))
        .unwrap()
        .check_every_erasure(64, 1)
        .unwrap();
    assert_eq!(check.patterns, 16 + 120 + 560 + 1820);
    assert!(check.ok(), "{:?}", check.failed);
    let check = Code::new(CodeSpec::array(exaraid_codes::CodeKind::Dcode, 13))
        .unwrap()
        .check_every_erasure(96, 2)
        .unwrap();
    assert_eq!(check.patterns, 13 + 78);
    assert!(check.ok());
}

/// The check can fail: X-Code with one anti-diagonal parity replaced by a copy of another
/// parity's equation is not MDS, and the exhaustive check must say which patterns break.
#[test]
fn exhaustive_check_catches_a_geometry_that_is_not_mds() {
    let spec = CodeSpec::array(exaraid_codes::CodeKind::Xcode, 7);
    let good = Code::new(spec).unwrap().geometry().clone();
    let mut terms = good.parity_terms.clone();
    let last = terms.len() - 1;
    terms[last] = terms[last - 1].clone();
    let broken =
        exaraid_codes::Geometry::from_parts(good.rows, good.cols, good.cells.clone(), terms, 2);
    let code = Code::with_geometry(spec, broken);
    let check = code.check_every_erasure(32, 3).unwrap();
    assert!(
        !check.ok(),
        "a duplicated parity equation must leave some double erasure undecodable"
    );
    let pattern = &check.failed[0];
    let mut stripe = code.new_stripe(32).unwrap();
    let err = code.decode(&mut stripe, pattern).unwrap_err();
    assert!(err.to_string().contains("singular"), "{err}");
}
