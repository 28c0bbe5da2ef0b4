//! The deterministic write sequence of the crash-injection test (`exaraid store torture`,
//! hidden): write `i` of seed `s` is the same in the child that is killed and in the test
//! that checks what survived.

/// The file the sequence writes.
pub const FILE: &str = "torture";
/// Writes land in the first `SPAN_BYTES` of the file (small, so verification is fast and
/// writes overlap often).
pub const SPAN_BYTES: u64 = 96 * 1024;
/// Longest write of the sequence.
pub const WRITE_BYTES_MAX: u64 = 20 * 1024;

pub struct TortureWrite {
    pub offset_bytes: u64,
    pub data: Vec<u8>,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64: a good, dependency-free hash of (seed, index).
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Write `index` of sequence `seed`: offsets and lengths vary (unaligned, partial and full
/// stripes), bytes are a pattern of (seed, index) so every write is distinguishable.
pub fn write_of(seed: u64, index: u64) -> TortureWrite {
    let h = mix(seed ^ mix(index));
    let len = 1 + mix(h) % WRITE_BYTES_MAX;
    let offset_bytes = mix(h ^ 1) % (SPAN_BYTES - len);
    let mut x = h | 1;
    let data = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    TortureWrite { offset_bytes, data }
}
