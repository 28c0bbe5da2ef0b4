//! The codes' byte-level behaviour as specifications: known answers computed independently
//! of the crate's GF tables, updates equal re-encoding, and every bad input a clear error.

mod common;

use common::*;
use exaraid_codes::{Cell, Code, CodeError, CodeKind, CodeSpec, Pos, StripeBuf};
use proptest::prelude::*;

/// GF(2^8)/0x11d multiplication by shift-and-add, independent of `gf256`'s tables.
fn slow_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0x1d;
        }
        b >>= 1;
    }
    r
}

#[test]
fn raid5_parity_is_the_xor_of_the_data() {
    for k in [1, 2, 5, 12] {
        let code = Code::new(CodeSpec::raid5(k)).unwrap();
        let s = random_stripe(&code, 64, k as u64);
        let mut want = [0u8; 64];
        for j in 0..k {
            for (w, b) in want.iter_mut().zip(s.column(j)) {
                *w ^= b;
            }
        }
        assert_eq!(s.column(k), &want[..], "raid5 k={k}");
    }
}

/// Linux md computes Q by Horner's rule from the highest data disk down:
/// Q = (((D(k-1)) * 2 + D(k-2)) * 2 + ...) * 2 + D0 (lib/raid6/int.uc, `gen_syndrome`).
#[test]
fn raid6_p_and_q_equal_md_gen_syndrome() {
    for k in [2, 3, 4, 8, 12, 30] {
        let code = Code::new(CodeSpec::raid6(k)).unwrap();
        let s = random_stripe(&code, 96, 100 + k as u64);
        let (mut p, mut q) = (vec![0u8; 96], vec![0u8; 96]);
        for j in (0..k).rev() {
            for i in 0..96 {
                let d = s.column(j)[i];
                p[i] ^= d;
                q[i] = slow_mul(q[i], 2) ^ d;
            }
        }
        assert_eq!(s.column(k), &p[..], "raid6 k={k}: P");
        assert_eq!(s.column(k + 1), &q[..], "raid6 k={k}: Q");
    }
}

#[test]
fn rs_coefficients_are_isal_cauchy1_rows() {
    for (k, m) in [(1, 1), (4, 2), (8, 3), (10, 4), (12, 4), (200, 55)] {
        let g = Code::new(CodeSpec::rs(k, m)).unwrap().geometry().clone();
        for i in 0..m {
            assert_eq!(g.parity_pos[i], Pos { row: 0, col: k + i });
            assert_eq!(g.parity_terms[i].len(), k);
            for t in &g.parity_terms[i] {
                // coef = 1 / ((k + i) xor j)  <=>  coef * ((k + i) xor j) = 1
                assert_eq!(
                    slow_mul(t.coef, ((k + i) ^ t.data) as u8),
                    1,
                    "rs {k}+{m}: parity {i} data {}",
                    t.data
                );
            }
        }
    }
}

#[test]
fn horizontal_codes_put_data_first_then_parity_in_one_row() {
    for spec in [CodeSpec::raid5(4), CodeSpec::raid6(6), CodeSpec::rs(10, 4)] {
        let code = Code::new(spec).unwrap();
        let g = code.geometry();
        let k = spec.k.unwrap();
        assert_eq!(g.rows, 1);
        assert_eq!(g.fault_tolerance, spec.m.unwrap());
        for c in 0..g.cols {
            let want = if c < k {
                Cell::Data(c)
            } else {
                Cell::Parity(c - k)
            };
            assert_eq!(g.cell(Pos { row: 0, col: c }), want, "{spec} column {c}");
        }
    }
}

#[test]
fn array_code_shapes_follow_their_papers() {
    for p in PRIMES {
        let shape = |kind| {
            let g = Code::new(CodeSpec::array(kind, p))
                .unwrap()
                .geometry()
                .clone();
            assert_eq!(g.fault_tolerance, 2);
            (g.rows, g.cols, g.data_count(), g.parity_count())
        };
        // (rows, columns, data elements, parity elements)
        assert_eq!(
            shape(CodeKind::Evenodd),
            (p - 1, p + 2, (p - 1) * p, 2 * (p - 1))
        );
        assert_eq!(
            shape(CodeKind::Rdp),
            (p - 1, p + 1, (p - 1) * (p - 1), 2 * (p - 1))
        );
        assert_eq!(shape(CodeKind::Xcode), (p, p, p * (p - 2), 2 * p));
        assert_eq!(
            shape(CodeKind::Hcode),
            (p - 1, p + 1, (p - 1) * (p - 1), 2 * (p - 1))
        );
        assert_eq!(
            shape(CodeKind::Hdp),
            (p - 1, p - 1, (p - 1) * (p - 3), 2 * (p - 1))
        );
        assert_eq!(shape(CodeKind::Dcode), (p, p, p * (p - 2), 2 * p));
    }
}

#[test]
fn data_order_is_row_major_and_data_parities_inverts_parity_terms() {
    for spec in all_specs() {
        let code = Code::new(spec).unwrap();
        let g = code.geometry();
        assert!(
            g.data_pos
                .windows(2)
                .all(|w| (w[0].row, w[0].col) < (w[1].row, w[1].col)),
            "{spec}: row-major data order"
        );
        for (d, parities) in g.data_parities.iter().enumerate() {
            assert!(
                !parities.is_empty(),
                "{spec}: data {d} is protected by no parity"
            );
            for &p in parities {
                assert!(g.parity_terms[p].iter().any(|t| t.data == d));
            }
        }
    }
}

#[test]
fn verify_names_exactly_the_corrupted_parity() {
    for spec in [
        CodeSpec::raid6(5),
        CodeSpec::array(CodeKind::Dcode, 7),
        CodeSpec::array(CodeKind::Rdp, 5),
    ] {
        let code = Code::new(spec).unwrap();
        let mut s = random_stripe(&code, 32, 7);
        assert_eq!(code.verify(&s).unwrap(), Vec::<usize>::new());
        let p = code.geometry().parity_count() - 1;
        s.element_mut(code.geometry().parity_pos[p])[5] ^= 1;
        assert_eq!(code.verify(&s).unwrap(), vec![p], "{spec}");
        // A corrupted data element shows up in exactly the parities it is in.
        let mut s = random_stripe(&code, 32, 8);
        s.element_mut(code.geometry().data_pos[0])[0] ^= 0x80;
        assert_eq!(
            code.verify(&s).unwrap(),
            code.geometry().data_parities[0],
            "{spec}"
        );
    }
}

#[test]
fn decode_plans_of_xor_codes_use_xor_only() {
    for kind in ARRAY_CODES {
        let code = Code::new(CodeSpec::array(kind, 7)).unwrap();
        let plan = code.decode_plan(&[0, 3]).unwrap();
        assert!(plan.stages.iter().all(|s| s.is_xor()), "{kind:?}");
    }
}

fn err(spec: CodeSpec) -> String {
    match Code::new(spec) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{spec} must be refused"),
    }
}

#[test]
fn bad_parameters_are_refused_with_a_reason() {
    assert!(err(CodeSpec::array(CodeKind::Dcode, 9)).contains("not a prime"));
    assert!(err(CodeSpec::array(CodeKind::Xcode, 1)).contains("not a prime"));
    assert!(err(CodeSpec::array(CodeKind::Hdp, 3)).contains("out of range"));
    assert!(err(CodeSpec::array(CodeKind::Rdp, 131)).contains("out of range"));
    assert!(err(CodeSpec::rs(250, 6)).contains("at most 255"));
    assert!(err(CodeSpec::rs(0, 2)).contains("k >= 1"));
    assert!(err(CodeSpec::rs(4, 0)).contains("m >= 1"));
    assert!(err(CodeSpec::raid6(1)).contains("k >= 2"));
    assert!(err(CodeSpec {
        m: Some(2),
        ..CodeSpec::raid5(4)
    })
    .contains("exactly 1 parity"));
    assert!(err(CodeSpec {
        p: None,
        ..CodeSpec::array(CodeKind::Evenodd, 5)
    })
    .contains("needs --p"));
    assert!(err(CodeSpec {
        k: Some(3),
        ..CodeSpec::array(CodeKind::Evenodd, 5)
    })
    .contains("array code"));
    assert!(err(CodeSpec {
        p: Some(5),
        ..CodeSpec::rs(4, 2)
    })
    .contains("horizontal code"));
    assert_eq!(
        CodeKind::from_name("raid7"),
        Err(CodeError::UnknownCode("raid7".into()))
    );
}

#[test]
fn bad_buffers_and_indices_are_refused_without_panic() {
    let code = Code::new(CodeSpec::array(CodeKind::Dcode, 5)).unwrap();
    for bytes in [0, 33, 48] {
        let e = code.check_element_bytes(bytes).unwrap_err();
        assert!(matches!(e, CodeError::BadElementSize { got, .. } if got == bytes));
        assert!(e.to_string().contains("32"), "{e}");
    }
    assert!(code
        .check_element_bytes(33)
        .unwrap_err()
        .to_string()
        .contains("pad each element to 64 bytes"));
    assert!(code.new_stripe(0).is_err());

    let mut s = random_stripe(&code, 32, 1);
    assert!(matches!(
        code.decode(&mut s, &[0, 1, 2]),
        Err(CodeError::TooManyErasures {
            erased: 3,
            tolerance: 2,
            ..
        })
    ));
    assert_eq!(
        code.decode(&mut s, &[5]),
        Err(CodeError::BadColumn { col: 5, cols: 5 })
    );
    // Repeated columns count once.
    code.decode(&mut s, &[1, 1, 4]).unwrap();
    assert!(matches!(
        code.update(&mut s, 15, &[0; 32]),
        Err(CodeError::BadDataIndex {
            index: 15,
            count: 15
        })
    ));
    assert!(matches!(
        code.update(&mut s, 0, &[0; 31]),
        Err(CodeError::BadElementSize { got: 31, .. })
    ));

    let mut short = s.clone();
    short.bytes.pop();
    assert!(matches!(
        code.encode(&mut short),
        Err(CodeError::BadStripeLength { .. })
    ));
    assert!(matches!(
        code.verify(&short),
        Err(CodeError::BadStripeLength { .. })
    ));
    let mut wrong_shape = StripeBuf::zeroed(4, 5, 32);
    assert!(matches!(
        code.encode(&mut wrong_shape),
        Err(CodeError::BadParameters(_))
    ));
    let mut odd = StripeBuf::zeroed(5, 5, 40);
    assert!(matches!(
        code.decode(&mut odd, &[0]),
        Err(CodeError::BadElementSize { got: 40, .. })
    ));

    // apply_delta: a parity the data element is not in is refused, not silently skipped.
    let g = code.geometry();
    let outside = (0..g.parity_count())
        .find(|p| !g.data_parities[0].contains(p))
        .unwrap();
    let mut parity = [0u8; 32];
    assert!(matches!(
        code.apply_delta(outside, 0, &[1; 32], &mut parity),
        Err(CodeError::BadParameters(_))
    ));
    assert!(matches!(
        code.apply_delta(99, 0, &[1; 32], &mut parity),
        Err(CodeError::BadParameters(_))
    ));
    assert!(matches!(
        code.apply_delta(0, 99, &[1; 32], &mut parity),
        Err(CodeError::BadDataIndex { .. })
    ));
    assert!(matches!(
        code.apply_delta(g.data_parities[0][0], 0, &[1; 32], &mut [0u8; 64]),
        Err(CodeError::BadElementSize { .. })
    ));
}

/// Small instances of every code, for the property tests.
fn small_specs() -> Vec<CodeSpec> {
    let mut v: Vec<CodeSpec> = ARRAY_CODES
        .iter()
        .flat_map(|&k| [CodeSpec::array(k, 5), CodeSpec::array(k, 7)])
        .collect();
    v.extend([
        CodeSpec::raid5(1),
        CodeSpec::raid5(4),
        CodeSpec::raid6(2),
        CodeSpec::raid6(7),
        CodeSpec::rs(3, 3),
        CodeSpec::rs(10, 4),
    ]);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// update(d, new) == write new data then encode from scratch; and apply_delta on each
    /// parity in data_parities[d] gives the same parity bytes; no other element changes.
    #[test]
    fn update_equals_reencode(which in 0usize..18, seed in any::<u64>(), pick in any::<usize>(), new in proptest::collection::vec(any::<u8>(), 64)) {
        let specs = small_specs();
        let spec = specs[which % specs.len()];
        let code = Code::new(spec).unwrap();
        let g = code.geometry();
        let d = pick % g.data_count();
        let before = random_stripe(&code, 64, seed);

        let mut updated = before.clone();
        code.update(&mut updated, d, &new).unwrap();

        let mut reencoded = before.clone();
        reencoded.element_mut(g.data_pos[d]).copy_from_slice(&new);
        code.encode(&mut reencoded).unwrap();
        prop_assert!(updated == reencoded, "{}: update of data {} differs from re-encode", spec, d);

        let delta: Vec<u8> = before.element(g.data_pos[d]).iter().zip(&new).map(|(a, b)| a ^ b).collect();
        for &p in &g.data_parities[d] {
            let mut parity = before.element(g.parity_pos[p]).to_vec();
            code.apply_delta(p, d, &delta, &mut parity).unwrap();
            prop_assert_eq!(&parity[..], reencoded.element(g.parity_pos[p]));
        }
        for p in (0..g.parity_count()).filter(|p| !g.data_parities[d].contains(p)) {
            prop_assert_eq!(before.element(g.parity_pos[p]), updated.element(g.parity_pos[p]), "parity {} must not change", p);
        }
    }

    /// Random data, random erasure pattern within the tolerance, random element size.
    #[test]
    fn decode_restores_random_patterns(which in 0usize..18, seed in any::<u64>(), a in any::<usize>(), b in any::<usize>(), lanes in 1usize..5) {
        let specs = small_specs();
        let code = Code::new(specs[which % specs.len()]).unwrap();
        let g = code.geometry();
        let original = random_stripe(&code, 32 * lanes, seed);
        let mut pattern = vec![a % g.cols, b % g.cols];
        pattern.truncate(g.fault_tolerance);
        let mut s = original.clone();
        for &c in &pattern { s.column_mut(c).fill(0xff); }
        code.decode(&mut s, &pattern).unwrap();
        prop_assert!(s == original);
    }
}

/// encode's plan may compute a parity from another parity (RDP's diagonal from the row
/// parity, as the paper does); it must still read fewer elements than the expanded terms
/// and give the parity the expanded terms define (checked by verify in every test above).
#[test]
fn rdp_encode_reuses_the_row_parity() {
    let g = Code::new(CodeSpec::array(CodeKind::Rdp, 7))
        .unwrap()
        .geometry()
        .clone();
    let plan = exaraid_codes::solver::encode_plan(&g);
    let expanded: usize = g.parity_terms.iter().map(|t| t.len()).sum();
    let planned: usize = plan.iter().map(|s| s.sources.len()).sum();
    // p = 7: 6 row parities of 6 data each; each diagonal has p-1 = 6 members among the
    // existing rows: 1 row parity + 5 data (diagonals 0..4), or 6 data (diagonal 5, which
    // misses the row-parity column) -- exactly the paper's encoder.
    assert_eq!(planned, 6 * 6 + 6 * 6);
    assert!(planned < expanded, "{planned} >= {expanded}");
}

/// The seed's D-Code section IV: "D-Code needs ... (n - 3) XOR operations per failed
/// element" to recover from double failures, as X-Code does. The shared solver must find
/// those chain recipes: n - 2 sources (n - 3 XORs) for every rebuilt element.
#[test]
fn dcode_and_xcode_double_failure_decoding_costs_n_minus_3_xors_per_element() {
    for kind in [CodeKind::Dcode, CodeKind::Xcode] {
        for n in PRIMES {
            let code = Code::new(CodeSpec::array(kind, n)).unwrap();
            for a in 0..n {
                for b in a + 1..n {
                    let plan = code.decode_plan(&[a, b]).unwrap();
                    for stage in &plan.stages {
                        assert_eq!(stage.targets.len(), 1);
                        assert_eq!(
                            stage.sources.len(),
                            n - 2,
                            "{kind:?} n={n} columns {a},{b}: {stage:?}"
                        );
                    }
                }
            }
        }
    }
}

/// RDP's paper decodes a double failure with chains of p-1 elements; the solver (which
/// starts from expanded equations) must get within one read per element of that on average.
#[test]
fn rdp_double_failure_decoding_stays_near_the_chain_cost() {
    for p in PRIMES {
        let code = Code::new(CodeSpec::array(CodeKind::Rdp, p)).unwrap();
        let (mut reads, mut rebuilt) = (0, 0);
        for a in 0..p + 1 {
            for b in a + 1..p + 1 {
                let plan = code.decode_plan(&[a, b]).unwrap();
                reads += plan.reads();
                rebuilt += plan.stages.iter().map(|s| s.targets.len()).sum::<usize>();
            }
        }
        let per_element = reads as f64 / rebuilt as f64;
        assert!(
            per_element <= (p - 1) as f64 + 1.0,
            "rdp p={p}: {per_element:.2} reads per rebuilt element"
        );
    }
}

/// EVENODD's adjuster S sits in every diagonal parity; the encode plan computes it once.
#[test]
fn evenodd_encode_computes_the_adjuster_once() {
    for p in PRIMES {
        let g = Code::new(CodeSpec::array(CodeKind::Evenodd, p))
            .unwrap()
            .geometry()
            .clone();
        let plan = exaraid_codes::solver::encode_plan(&g);
        let aux: Vec<_> = plan
            .iter()
            .filter(|s| s.targets == [exaraid_codes::solver::AUX])
            .collect();
        assert_eq!(aux.len(), 1, "p={p}: one scratch stage");
        assert_eq!(
            aux[0].sources.len(),
            p - 1,
            "p={p}: S = XOR of the p-1 elements of diagonal p-1"
        );
        let planned: usize = plan.iter().map(|s| s.sources.len()).sum();
        // S once, p-1 rows of p data, p-1 diagonals of S + their p-1 data elements.
        assert_eq!(planned, (p - 1) + (p - 1) * p + (p - 1) * p, "p={p}");
    }
}

/// Executors share one Code between threads (the store's writers, the simulator).
#[test]
fn code_is_shareable_between_threads() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<Code>();
    let code = Code::new(CodeSpec::array(CodeKind::Dcode, 5)).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let code = code.clone();
            std::thread::spawn(move || {
                let original = random_stripe(&code, 32, t);
                let mut s = original.clone();
                s.column_mut(t as usize).fill(0);
                code.decode(&mut s, &[t as usize]).unwrap();
                s == original
            })
        })
        .collect();
    assert!(handles.into_iter().all(|h| h.join().unwrap()));
}

/// The decode plan cache keys a pattern by its set of columns: order and repeats do not
/// matter, and the per-thread cache of recent plans never hands one code another code's
/// plan, even when both have the same shape and the same erased columns (raid6 and rs 4+2
/// are both 1 x 6; evenodd and rdp at p = 5 and 7 differ in shape but share column ids).
#[test]
fn decode_plans_are_cached_per_code_and_column_set() {
    let raid6 = Code::new(CodeSpec::raid6(4)).unwrap();
    let rs = Code::new(CodeSpec::rs(4, 2)).unwrap();
    let a = raid6.decode_plan(&[3, 1]).unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &a,
        &raid6.decode_plan(&[1, 3, 1]).unwrap()
    ));
    assert_eq!(a.erased_cols, [1, 3]);
    assert!(
        std::sync::Arc::ptr_eq(&a, &raid6.clone().decode_plan(&[1, 3]).unwrap()),
        "clones share plans"
    );
    let b = rs.decode_plan(&[1, 3]).unwrap();
    assert_ne!(
        a.stages, b.stages,
        "raid6 and rs 4+2 rebuild with different coefficients"
    );
    // Interleave many codes and patterns on one thread (more than the per-thread slots):
    // every decode must still restore the stripe.
    let codes: Vec<Code> = [
        CodeSpec::raid6(4),
        CodeSpec::rs(4, 2),
        CodeSpec::raid5(5),
        CodeSpec::array(CodeKind::Evenodd, 5),
        CodeSpec::array(CodeKind::Rdp, 5),
        CodeSpec::array(CodeKind::Hdp, 7),
    ]
    .into_iter()
    .map(|spec| Code::new(spec).unwrap())
    .collect();
    for round in 0..3u64 {
        for (i, code) in codes.iter().enumerate() {
            let original = random_stripe(code, 64, round * 10 + i as u64);
            let f = code.geometry().fault_tolerance;
            let erased: Vec<usize> = (0..f)
                .map(|j| (j * 2 + round as usize) % code.geometry().cols)
                .rev()
                .collect();
            let mut s = original.clone();
            erased.iter().for_each(|&c| s.column_mut(c).fill(0x5a));
            code.decode(&mut s, &erased).unwrap();
            assert!(s == original, "{} erased {erased:?}", code.spec());
        }
    }
}

/// H-Code's chains, pinned against an independent public implementation: the DiskSim
/// erasure extension by zyz915 (github.com/RainyLi/Disksim_Erasure, src/disksim_erasure.c,
/// `hcode_initialize`), whose index arithmetic is transcribed here as written there:
///   horizontal chain r: C(r, c) for c in 0..p, c != r + 1, parity at C(r, p);
///   anti-diagonal chain r: C((c + p - r - 2) % p, c) for c in 0..p with
///   (c + p - r - 1) % p != 0, parity at C(r, r + 1).
/// Plus the p = 5 chains of row 0 written out by hand.
#[test]
fn hcode_chains_match_an_independent_implementation() {
    use std::collections::BTreeSet;
    fn chains(g: &exaraid_codes::Geometry) -> BTreeSet<(Pos, BTreeSet<Pos>)> {
        (0..g.parity_count())
            .map(|p| {
                (
                    g.parity_pos[p],
                    g.parity_terms[p]
                        .iter()
                        .map(|t| g.data_pos[t.data])
                        .collect(),
                )
            })
            .collect()
    }
    let at = |row, col| Pos { row, col };
    for p in [5usize, 7, 11, 13] {
        let code = Code::new(CodeSpec::array(CodeKind::Hcode, p)).unwrap();
        let mut expected = BTreeSet::new();
        for r in 0..p - 1 {
            expected.insert((
                at(r, p),
                (0..p).filter(|&c| r + 1 != c).map(|c| at(r, c)).collect(),
            ));
            expected.insert((
                at(r, r + 1),
                (0..p)
                    .filter(|&c| (c + p - r - 1) % p != 0)
                    .map(|c| at((c + p - r - 2) % p, c))
                    .collect(),
            ));
        }
        assert_eq!(chains(code.geometry()), expected, "hcode p={p}");
    }
    let g = Code::new(CodeSpec::array(CodeKind::Hcode, 5))
        .unwrap()
        .geometry()
        .clone();
    let found = chains(&g);
    assert!(found.contains(&(
        at(0, 5),
        [at(0, 0), at(0, 2), at(0, 3), at(0, 4)]
            .into_iter()
            .collect()
    )));
    assert!(found.contains(&(
        at(0, 1),
        [at(3, 0), at(0, 2), at(1, 3), at(2, 4)]
            .into_iter()
            .collect()
    )));
}

/// EVENODD's decoder (Blaum et al., section III) computes the adjuster S once, from all
/// row and diagonal parities, and then runs the chains with S read as one element. The
/// solver does the same with its auxiliary unknown: with two lost data columns a rebuilt
/// element reads at most p + 2 elements on average (S's 2(p-1) reads shared by the 2(p-1)
/// rebuilt elements, plus a chain of p), where expanding S into every diagonal read ~19
/// per element at p = 13.
#[test]
fn evenodd_double_data_failure_reads_s_once() {
    for p in PRIMES {
        let code = Code::new(CodeSpec::array(CodeKind::Evenodd, p)).unwrap();
        let (mut reads, mut rebuilt) = (0, 0);
        for a in 0..p {
            for b in a + 1..p {
                let plan = code.decode_plan(&[a, b]).unwrap();
                reads += plan.reads();
                rebuilt += plan
                    .stages
                    .iter()
                    .filter(|s| s.targets != [exaraid_codes::solver::AUX])
                    .map(|s| s.targets.len())
                    .sum::<usize>();
                assert!(plan.uses_aux, "p={p} columns {a},{b}");
            }
        }
        let per_element = reads as f64 / rebuilt as f64;
        println!("evenodd p={p}: {per_element:.2} reads per rebuilt element (two data columns)");
        assert!(
            per_element <= (p + 2) as f64,
            "evenodd p={p}: {per_element:.2} reads per rebuilt element"
        );
    }
}
