#![allow(dead_code)]
//! Helpers shared by the store's integration tests.

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

/// Small stripe unit so tests touch many stripes with few bytes.
pub const UNIT: usize = 4096;

pub fn init(dir: &Path, code: CodeSpec, oss: usize, path: WritePath) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = UNIT;
    opts.write_path = path;
    Store::init(dir, &opts).unwrap()
}

/// A deterministic byte pattern (xorshift), different per seed.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A tiny deterministic RNG for test workloads.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every stripe's parity matches its data and every checksum is clean.
pub fn assert_consistent(store: &Store) {
    let report = store.scrub(false).unwrap();
    assert!(
        report.corrupt_elements.is_empty(),
        "corrupt elements: {:?}",
        report.corrupt_elements
    );
    assert!(
        report.parity_mismatches.is_empty(),
        "parity mismatches: {:?}",
        report.parity_mismatches
    );
}
