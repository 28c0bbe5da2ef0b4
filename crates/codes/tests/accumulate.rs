//! The parity accumulator as a specification: data elements arriving in any order, whole
//! or in pieces, give exactly the parity `Code::encode` computes; an incomplete group gives
//! the parity of the data that arrived with the rest counted as zeros; bad input is a clear
//! error; the size mode keeps the same books without bytes.

use exaraid_codes::accumulate::{ParityAccumulator, MAX_GROUP_DATA_ELEMENTS};
use exaraid_codes::{Code, CodeError, CodeKind, CodeSpec, StripeBuf};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ELEMENT_BYTES: usize = 256;

fn random_data(code: &Code, element_bytes: usize, rng: &mut ChaCha8Rng) -> StripeBuf {
    let mut stripe = code.new_stripe(element_bytes).unwrap();
    for &pos in &code.geometry().data_pos {
        rng.fill(stripe.element_mut(pos));
    }
    stripe
}

fn parity_of(code: &Code, stripe: &StripeBuf) -> Vec<Vec<u8>> {
    code.geometry()
        .parity_pos
        .iter()
        .map(|&pos| stripe.element(pos).to_vec())
        .collect()
}

fn specs() -> Vec<CodeSpec> {
    vec![
        CodeSpec::raid5(4),
        CodeSpec::raid5(1),
        CodeSpec::rs(4, 2),
        CodeSpec::rs(8, 2),
        CodeSpec::rs(6, 3),
        CodeSpec::raid6(5),
        CodeSpec::array(CodeKind::Rdp, 5),
        CodeSpec::array(CodeKind::Evenodd, 7),
        CodeSpec::array(CodeKind::Xcode, 5),
        CodeSpec::array(CodeKind::Dcode, 7),
    ]
}

#[test]
fn whole_elements_in_random_order_give_the_full_encode() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for spec in specs() {
        let code = Code::new(spec).unwrap();
        for _ in 0..4 {
            let mut stripe = random_data(&code, ELEMENT_BYTES, &mut rng);
            let mut acc = ParityAccumulator::new(&code, ELEMENT_BYTES).unwrap();
            let mut order: Vec<usize> = (0..code.geometry().data_count()).collect();
            order.shuffle(&mut rng);
            for (n, &d) in order.iter().enumerate() {
                assert!(
                    !acc.is_complete(),
                    "{spec}: complete after {n} of {} elements",
                    order.len()
                );
                acc.add(d, stripe.element(code.geometry().data_pos[d]))
                    .unwrap();
                assert!(acc.has_arrived(d));
            }
            assert!(acc.is_complete());
            assert_eq!(acc.pending_bytes(), (order.len() * ELEMENT_BYTES) as f64);
            let finished = acc.finish();
            code.encode(&mut stripe).unwrap();
            assert!(finished.complete);
            assert_eq!(finished.extent_bytes, ELEMENT_BYTES as f64);
            assert_eq!(finished.parity, parity_of(&code, &stripe), "{spec}");
            // finish starts an empty group.
            assert_eq!(acc.arrived_count(), 0);
            assert_eq!(acc.pending_bytes(), 0.0);
        }
    }
}

#[test]
fn pieces_appended_front_to_back_with_elements_interleaved_give_the_full_encode() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for spec in specs() {
        let code = Code::new(spec).unwrap();
        let mut stripe = random_data(&code, ELEMENT_BYTES, &mut rng);
        let mut acc = ParityAccumulator::new(&code, ELEMENT_BYTES).unwrap();
        let k = code.geometry().data_count();
        // Each element cut into pieces of 32..=96 bytes; pieces of different elements interleaved.
        let mut next = vec![0usize; k];
        while !acc.is_complete() {
            let open: Vec<usize> = (0..k).filter(|&d| next[d] < ELEMENT_BYTES).collect();
            let d = *open.choose(&mut rng).unwrap();
            let len = (32 * rng.gen_range(1..=3)).min(ELEMENT_BYTES - next[d]);
            let element = stripe.element(code.geometry().data_pos[d]);
            acc.append(d, &element[next[d]..next[d] + len]).unwrap();
            next[d] += len;
        }
        let finished = acc.finish();
        code.encode(&mut stripe).unwrap();
        assert_eq!(finished.parity, parity_of(&code, &stripe), "{spec}");
    }
}

/// VERTICAL at the end of data and Delayed Parity over a partial window: the parity of
/// what arrived, every missing byte counted as zero.
#[test]
fn an_incomplete_group_gives_the_parity_of_what_arrived_with_zeros_for_the_rest() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for spec in [
        CodeSpec::raid5(4),
        CodeSpec::rs(4, 2),
        CodeSpec::array(CodeKind::Rdp, 5),
    ] {
        let code = Code::new(spec).unwrap();
        let k = code.geometry().data_count();
        let mut stripe = random_data(&code, ELEMENT_BYTES, &mut rng);
        let mut acc = ParityAccumulator::new(&code, ELEMENT_BYTES).unwrap();
        // Elements 0 and 1 whole, element 2 only its first 64 bytes (then closed), the rest never.
        for d in 0..2 {
            acc.add(d, stripe.element(code.geometry().data_pos[d]))
                .unwrap();
        }
        acc.append(2, &stripe.element(code.geometry().data_pos[2])[..64])
            .unwrap();
        acc.close(2).unwrap();
        assert_eq!(acc.arrived_count(), 3);
        assert!(!acc.is_complete());
        assert_eq!(acc.pending_bytes(), (2 * ELEMENT_BYTES + 64) as f64);
        let finished = acc.finish();
        assert!(!finished.complete);
        assert_eq!(finished.extent_bytes, ELEMENT_BYTES as f64);
        // The reference: zero everything that did not arrive, then encode.
        stripe.element_mut(code.geometry().data_pos[2])[64..].fill(0);
        for d in 3..k {
            stripe.element_mut(code.geometry().data_pos[d]).fill(0);
        }
        code.encode(&mut stripe).unwrap();
        assert_eq!(finished.parity, parity_of(&code, &stripe), "{spec}");
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let code = Code::new(CodeSpec::rs(4, 2)).unwrap();
    let mut acc = ParityAccumulator::new(&code, 64).unwrap();
    // Wrong element size.
    let err = acc.add(0, &[1u8; 32]).unwrap_err();
    assert!(
        matches!(err, CodeError::BadElementSize { got: 32, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("64 bytes"), "{err}");
    assert!(matches!(
        acc.append(0, &[1u8; 33]),
        Err(CodeError::BadElementSize { got: 33, .. })
    ));
    assert!(matches!(
        acc.append(0, &[1u8; 96]),
        Err(CodeError::BadElementSize { got: 96, .. })
    ));
    assert!(
        ParityAccumulator::new(&code, 100).is_err(),
        "elements are multiples of 32 bytes"
    );
    // Data index out of range.
    let err = acc.add(4, &[1u8; 64]).unwrap_err();
    assert_eq!(err, CodeError::BadDataIndex { index: 4, count: 4 });
    // The same element twice.
    acc.add(1, &[1u8; 64]).unwrap();
    let err = acc.add(1, &[1u8; 64]).unwrap_err();
    assert!(err.to_string().contains("already arrived"), "{err}");
    assert!(acc.append(1, &[1u8; 32]).is_err());
    assert!(acc.close(1).is_err());
    // A whole element over a piece already there.
    acc.append(2, &[1u8; 32]).unwrap();
    let err = acc.add(2, &[1u8; 64]).unwrap_err();
    assert!(err.to_string().contains("already has 32 bytes"), "{err}");
    // Errors leave the books untouched.
    assert_eq!(acc.arrived_count(), 1);
    assert_eq!(acc.pending_bytes(), 96.0);
    // Mode mix-ups.
    assert!(acc
        .append_size(0, 10.0)
        .unwrap_err()
        .to_string()
        .contains("size-only"));
    let mut sizes = ParityAccumulator::sizes_only(4, 2).unwrap();
    assert!(sizes
        .add(0, &[0u8; 64])
        .unwrap_err()
        .to_string()
        .contains("sizes only"));
    assert!(sizes.append_size(0, f64::NAN).is_err());
    assert!(sizes.append_size(0, -1.0).is_err());
    // Limits.
    assert!(ParityAccumulator::sizes_only(0, 1).is_err());
    assert!(ParityAccumulator::sizes_only(MAX_GROUP_DATA_ELEMENTS + 1, 1).is_err());
    assert!(ParityAccumulator::sizes_only(4, 256).is_err());
}

/// The size mode keeps the byte mode's books: same arrivals, completeness, pending bytes
/// and extent for the same sequence of pieces.
#[test]
fn size_mode_keeps_the_same_books_as_byte_mode() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let code = Code::new(CodeSpec::rs(6, 2)).unwrap();
    let mut bytes = ParityAccumulator::new(&code, ELEMENT_BYTES).unwrap();
    let mut sizes = ParityAccumulator::sizes_only(6, 2).unwrap();
    let mut fill = [0usize; 6];
    for _ in 0..30 {
        let d = rng.gen_range(0..6);
        if bytes.has_arrived(d) {
            assert!(sizes.has_arrived(d));
            continue;
        }
        if rng.gen_bool(0.1) {
            bytes.close(d).unwrap();
            sizes.close(d).unwrap();
        } else {
            let len = (32 * rng.gen_range(1..=4)).min(ELEMENT_BYTES - fill[d]);
            bytes.append(d, &vec![0xab; len]).unwrap();
            sizes.append_size(d, len as f64).unwrap();
            fill[d] += len;
            if fill[d] == ELEMENT_BYTES {
                // A full element closes by itself in byte mode; size mode has no cap, the
                // caller (who knows the medium's capacity) closes it.
                sizes.close(d).unwrap();
            }
        }
        assert_eq!(bytes.arrived_count(), sizes.arrived_count());
        assert_eq!(bytes.is_complete(), sizes.is_complete());
        assert_eq!(bytes.pending_bytes(), sizes.pending_bytes());
        assert_eq!(bytes.extent_bytes(), sizes.extent_bytes());
    }
    let (b, s) = (bytes.finish(), sizes.finish());
    assert_eq!(
        (b.extent_bytes, b.complete, b.data_bytes, b.parity_count),
        (s.extent_bytes, s.complete, s.data_bytes, s.parity_count)
    );
    assert!(s.parity.is_empty());
}
