//! VERTICAL on real bytes: the EC the mover accumulates block by block while the drive fills
//! the data tapes one after the other is exactly the full X+Y encode of those data tapes
//! (block row r of the EC tapes = the parity of block row r of the group's data tapes, a
//! tape that is shorter or missing counting as zeros). The simulator moves sizes only; this
//! is the byte-level check of the same rules.

use exaraid_archive::layout::{
    vertical_layout, vertical_write_bytes, Block, Scheme, TapeBytes, TABLE1,
};
use exaraid_codes::Code;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BLOCK_BYTES: usize = 64;

/// The reference: for each group of X data tapes, one stripe per block row, encoded whole.
fn full_encode_of_groups(
    scheme: Scheme,
    data_tapes: &[&TapeBytes],
    blocks_per_tape: usize,
) -> Vec<Vec<u8>> {
    let code = Code::new(scheme.code().expect("a scheme with EC")).unwrap();
    let g = code.geometry();
    assert_eq!(g.data_count(), scheme.x);
    let mut ec_tapes = Vec::new();
    for group in data_tapes.chunks(scheme.x) {
        let longest_blocks = group
            .iter()
            .map(|t| t.bytes.len() / BLOCK_BYTES)
            .max()
            .unwrap();
        let mut areas = vec![Vec::new(); scheme.y];
        for row in 0..longest_blocks.min(blocks_per_tape) {
            let mut stripe = code.new_stripe(BLOCK_BYTES).unwrap();
            for (j, tape) in group.iter().enumerate() {
                if let Some(block) = tape.bytes.get(row * BLOCK_BYTES..(row + 1) * BLOCK_BYTES) {
                    stripe.element_mut(g.data_pos[j]).copy_from_slice(block);
                }
            }
            code.encode(&mut stripe).unwrap();
            for (i, area) in areas.iter_mut().enumerate() {
                area.extend_from_slice(stripe.element(g.parity_pos[i]));
            }
        }
        ec_tapes.extend(areas);
    }
    ec_tapes
}

#[test]
fn vertical_ec_accumulated_block_by_block_equals_the_full_encode_of_the_data_tapes() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for (scheme, _) in TABLE1.iter().filter(|(s, _)| s.y > 0) {
        // Full groups, a partial last group, and a last tape only partly filled.
        for (data_blocks, blocks_per_tape) in [(24usize, 3usize), (29, 4), (5, 3), (1, 5), (40, 2)]
        {
            let mut data = vec![0u8; data_blocks * BLOCK_BYTES];
            rng.fill(&mut data[..]);
            let tapes = vertical_write_bytes(*scheme, &data, BLOCK_BYTES, blocks_per_tape).unwrap();
            let data_tapes: Vec<&TapeBytes> = tapes.iter().filter(|t| !t.is_ec).collect();
            let ec_tapes: Vec<Vec<u8>> = tapes
                .iter()
                .filter(|t| t.is_ec)
                .map(|t| t.bytes.clone())
                .collect();
            // The data tapes hold the data, in order.
            assert_eq!(
                data_tapes
                    .iter()
                    .flat_map(|t| t.bytes.iter().copied())
                    .collect::<Vec<u8>>(),
                data
            );
            // The EC tapes are the full encode of the data tapes.
            assert_eq!(
                ec_tapes,
                full_encode_of_groups(*scheme, &data_tapes, blocks_per_tape),
                "scheme {scheme}, {data_blocks} blocks, {blocks_per_tape} per tape"
            );
            // And the tapes come in the order and with the lengths of the block layout.
            let layout = vertical_layout(*scheme, data_blocks as u64, blocks_per_tape as u64);
            let shape: Vec<(bool, usize)> = tapes
                .iter()
                .map(|t| (t.is_ec, t.bytes.len() / BLOCK_BYTES))
                .collect();
            let want: Vec<(bool, usize)> = layout
                .iter()
                .map(|t| (matches!(t[0], Block::P(_)), t.len()))
                .collect();
            assert_eq!(
                shape, want,
                "scheme {scheme}, {data_blocks} blocks, {blocks_per_tape} per tape"
            );
        }
    }
}

#[test]
fn an_ec_block_changes_when_any_data_block_of_its_row_changes() {
    // The check above must be able to fail: flip one data byte, the EC differs.
    let scheme = Scheme { x: 4, y: 2 };
    let mut data = vec![7u8; 12 * BLOCK_BYTES];
    let before = vertical_write_bytes(scheme, &data, BLOCK_BYTES, 3).unwrap();
    data[7 * BLOCK_BYTES + 5] ^= 1;
    let after = vertical_write_bytes(scheme, &data, BLOCK_BYTES, 3).unwrap();
    let ec = |t: &[TapeBytes]| {
        t.iter()
            .filter(|t| t.is_ec)
            .map(|t| t.bytes.clone())
            .collect::<Vec<_>>()
    };
    assert_ne!(ec(&before), ec(&after));
}

#[test]
fn a_scheme_without_ec_writes_only_data_tapes() {
    let tapes = vertical_write_bytes(
        Scheme { x: 1, y: 0 },
        &[1u8; 5 * BLOCK_BYTES],
        BLOCK_BYTES,
        2,
    )
    .unwrap();
    assert_eq!(tapes.len(), 3);
    assert!(tapes.iter().all(|t| !t.is_ec));
}

#[test]
fn bad_block_sizes_are_clear_errors() {
    let scheme = Scheme { x: 4, y: 1 };
    let err = vertical_write_bytes(scheme, &[0u8; 100], 50, 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("multiple of 32"), "{err}");
    let err = vertical_write_bytes(scheme, &[0u8; 100], 64, 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("pad the last block"), "{err}");
    assert!(vertical_write_bytes(scheme, &[0u8; 64], 64, 0).is_err());
}
