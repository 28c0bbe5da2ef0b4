//! The CLI tests' payloads (`common::bytes`) have no structure a store's layout can meet.
//! A test proves a read right by comparing it with the bytes it wrote: where the bytes of
//! one row equal another row's, or a stripe's parity is the same whatever its data, a wrong
//! decode (a block of another row, a stale parity) reads them back right by chance and the
//! test cannot fail. Until session 25 `bytes()` was `(i*31+seed) ^ (i>>8)`: it repeats every
//! 64 KiB, and the raid5 parity of every aligned stripe of four (or eight) 4 KiB blocks of
//! it was all zeros, for every seed: a parity left stale by a lost write equalled the new one.

use crate::common;
use common::*;

use std::collections::HashSet;

/// The stripe unit of the CLI tests (`init_store`).
const BLOCK_BYTES: usize = 4096;
/// More than most CLI tests write to one file.
const SPAN_BYTES: usize = 1 << 20;
/// Seeds checked: the low ones the tests use most.
const SEEDS: std::ops::Range<u8> = 0..8;
/// Data columns of the one-row codes the CLI tests lay out (raid5 2+1 .. rs 8+p).
const DATA_COLUMNS: std::ops::RangeInclusive<usize> = 2..=8;

fn blocks(seed: u8) -> Vec<Vec<u8>> {
    let b = bytes(seed, SPAN_BYTES);
    assert_eq!(b.len(), SPAN_BYTES);
    b.chunks(BLOCK_BYTES).map(<[u8]>::to_vec).collect()
}

#[test]
fn no_two_4_kib_blocks_of_a_mib_of_test_bytes_are_equal() {
    for seed in SEEDS {
        let blocks = blocks(seed);
        let distinct: HashSet<&Vec<u8>> = blocks.iter().collect();
        assert_eq!(
            distinct.len(),
            blocks.len(),
            "seed {seed}: {} distinct 4 KiB blocks of {} (a block read from another row agrees)",
            distinct.len(),
            blocks.len()
        );
    }
}

#[test]
fn no_4_kib_block_of_test_bytes_is_another_seeds_block() {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut count = 0usize;
    for seed in SEEDS {
        // Repeats inside one seed are the test above's: here only blocks of other seeds.
        let own: HashSet<Vec<u8>> = blocks(seed).into_iter().collect();
        count += own.len();
        seen.extend(own);
    }
    assert_eq!(seen.len(), count, "equal 4 KiB blocks across seeds");
}

/// The raid5 parity of each aligned stripe of `k` blocks of `seed`'s bytes, in order.
fn raid5_parities(seed: u8, k: usize) -> Vec<Vec<u8>> {
    let blocks = blocks(seed);
    assert!(blocks.len() / k >= 2, "k {k}: the span holds two stripes");
    blocks
        .chunks_exact(k)
        .map(|stripe| {
            let mut parity = vec![0u8; BLOCK_BYTES];
            for block in stripe {
                parity.iter_mut().zip(block).for_each(|(p, b)| *p ^= b);
            }
            parity
        })
        .collect()
}

#[test]
fn the_raid5_parity_of_every_aligned_stripe_of_test_bytes_is_not_all_zeros() {
    for seed in SEEDS {
        for k in DATA_COLUMNS {
            for (stripe, parity) in raid5_parities(seed, k).iter().enumerate() {
                assert!(
                    parity.iter().any(|&p| p != 0),
                    "seed {seed}, {k} data blocks, stripe {stripe}: the raid5 parity is all \
                     zeros (a stale parity of such a stripe equals the new one)"
                );
            }
        }
    }
}

#[test]
fn no_two_aligned_stripes_of_test_bytes_have_one_raid5_parity() {
    for seed in SEEDS {
        for k in DATA_COLUMNS {
            let parities = raid5_parities(seed, k);
            let distinct: HashSet<&Vec<u8>> = parities.iter().collect();
            assert_eq!(
                distinct.len(),
                parities.len(),
                "seed {seed}, {k} data blocks: two stripes with one raid5 parity"
            );
        }
    }
}

#[test]
fn a_shorter_run_of_test_bytes_is_a_prefix_of_a_longer_one_and_the_same_every_run() {
    // Tests build a file's model from `bytes(seed, n)` and compare against slices of it.
    let long = bytes(3, 10_000);
    assert_eq!(bytes(3, 4_321), long[..4_321]);
    assert_eq!(bytes(3, 10_000), long);
    assert_ne!(bytes(4, 10_000), long);
}
