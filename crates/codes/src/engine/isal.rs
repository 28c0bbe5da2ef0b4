//! ISA-L (Intel Intelligent Storage Acceleration Library, <https://github.com/intel/isa-l>,
//! BSD-3-Clause) through a small hand-written FFI to the system library (Debian libisal-dev,
//! linked by build.rs). ISA-L picks its SSE / AVX / AVX2 / AVX-512 variant at run time
//! itself ("multibinary" dispatch on CPUID), so this engine needs no feature checks.
//!
//! Prototypes are from /usr/include/isa-l/erasure_code.h and raid.h (ISA-L 2.30). Their
//! constraints, which the wrappers below check before every call:
//! - `xor_gen(vects, len, array)`: at least 2 sources (vects >= 3), destination last; the
//!   header requires 32-byte aligned pointers (the AVX variant loads with `vmovdqa`).
//! - `pq_gen(vects, len, array)`: at least 2 sources (vects >= 4), P then Q last; `len` a
//!   multiple of 32 (the AVX2 variant returns failure otherwise) and 32-byte aligned pointers.
//!   Q = sum_j 2^j * D_j, evaluated by Horner's rule from the last source: md's Q.
//! - `ec_encode_data(len, k, rows, tables, data, coding)`: any length, unaligned pointers
//!   (the dot-product kernels load with `vmovdqu`); `tables` from `ec_init_tables`,
//!   32 bytes per coefficient.
//!
//! Lengths are C `int`s, so long buffers are cut into calls of at most [`MAX_CALL_BYTES`].

use super::{Engine, Portable};
use crate::gf256;
use std::cell::RefCell;
use std::os::raw::{c_int, c_uchar, c_void};
use std::sync::OnceLock;

mod ffi {
    use super::*;
    #[link(name = "isal")]
    extern "C" {
        pub fn ec_init_tables(k: c_int, rows: c_int, a: *mut c_uchar, gftbls: *mut c_uchar);
        pub fn ec_encode_data(
            len: c_int,
            k: c_int,
            rows: c_int,
            gftbls: *mut c_uchar,
            data: *mut *mut c_uchar,
            coding: *mut *mut c_uchar,
        );
        pub fn ec_encode_data_update(
            len: c_int,
            k: c_int,
            rows: c_int,
            vec_i: c_int,
            gftbls: *mut c_uchar,
            data: *mut c_uchar,
            coding: *mut *mut c_uchar,
        );
        pub fn gf_gen_rs_matrix(a: *mut c_uchar, m: c_int, k: c_int);
        pub fn gf_gen_cauchy1_matrix(a: *mut c_uchar, m: c_int, k: c_int);
        pub fn gf_invert_matrix(in_mat: *mut c_uchar, out_mat: *mut c_uchar, n: c_int) -> c_int;
        pub fn gf_mul(a: c_uchar, b: c_uchar) -> c_uchar;
        pub fn xor_gen(vects: c_int, len: c_int, array: *mut *mut c_void) -> c_int;
        pub fn pq_gen(vects: c_int, len: c_int, array: *mut *mut c_void) -> c_int;
    }
}

/// Longest buffer handed to one ISA-L call: lengths are C ints; a multiple of 64 so that
/// aligned pieces stay aligned.
pub const MAX_CALL_BYTES: usize = 1 << 30;
/// Most vectors (sources plus destinations) in one call: k + m <= 255 for GF(2^8) codes.
pub const MAX_VECTS: usize = 256;
/// Alignment the raid.h functions require of every pointer.
pub const RAID_ALIGN_BYTES: usize = 32;
/// Bytes of expanded table ISA-L needs per matrix coefficient.
pub const TABLE_BYTES_PER_COEF: usize = 32;

/// `a * b` in GF(2^8)/0x11d, computed by ISA-L.
pub fn gf_mul(a: u8, b: u8) -> u8 {
    // SAFETY: pure function on two bytes.
    unsafe { ffi::gf_mul(a, b) }
}

/// ISA-L's Vandermonde-derived systematic matrix: `total_rows x k`, identity on top, parity
/// row i (i >= k) column j = (2^(i-k))^j. Not MDS for every shape (ISA-L issue #46); used
/// here only to cross-check RAID-6 Q (its first parity rows are all ones and 2^j).
pub fn gen_rs_matrix(total_rows: usize, k: usize) -> Vec<u8> {
    assert!(
        k >= 1 && total_rows >= k && total_rows <= MAX_VECTS,
        "gen_rs_matrix: need 1 <= k <= rows <= 256"
    );
    let mut a = vec![0u8; total_rows * k];
    // SAFETY: `a` holds total_rows * k bytes, as the function writes.
    unsafe { ffi::gf_gen_rs_matrix(a.as_mut_ptr(), total_rows as c_int, k as c_int) };
    a
}

/// ISA-L's systematic Cauchy matrix: `total_rows x k`, identity on top, then 1/(i ^ j).
pub fn gen_cauchy1_matrix(total_rows: usize, k: usize) -> Vec<u8> {
    assert!(
        k >= 1 && total_rows >= k && total_rows <= MAX_VECTS,
        "gen_cauchy1_matrix: need 1 <= k <= rows <= 256"
    );
    let mut a = vec![0u8; total_rows * k];
    // SAFETY: `a` holds total_rows * k bytes, as the function writes.
    unsafe { ffi::gf_gen_cauchy1_matrix(a.as_mut_ptr(), total_rows as c_int, k as c_int) };
    a
}

/// The inverse of the n x n matrix `m` (row-major), or None if it is singular.
pub fn invert_matrix(m: &[u8], n: usize) -> Option<Vec<u8>> {
    assert_eq!(m.len(), n * n, "invert_matrix: matrix must be n x n");
    assert!(
        (1..=MAX_VECTS).contains(&n),
        "invert_matrix: n must be in 1..=256"
    );
    let mut scratch = m.to_vec();
    let mut out = vec![0u8; n * n];
    // SAFETY: both buffers hold n*n bytes; ISA-L destroys `scratch`, our copy.
    let rc = unsafe { ffi::gf_invert_matrix(scratch.as_mut_ptr(), out.as_mut_ptr(), n as c_int) };
    (rc == 0).then_some(out)
}

/// The expanded multiplication tables of one `rows x k` coefficient matrix (ec_init_tables).
#[derive(Clone, Debug)]
pub struct Tables {
    k: usize,
    rows: usize,
    bytes: Vec<u8>,
}

impl Tables {
    pub fn new(coefs: &[u8], k: usize, rows: usize) -> Tables {
        assert_eq!(coefs.len(), k * rows, "Tables::new: coefs must be rows x k");
        assert!(
            (1..=MAX_VECTS).contains(&k) && (1..=MAX_VECTS).contains(&rows),
            "Tables::new: k and rows in 1..=256"
        );
        let mut a = coefs.to_vec();
        let mut bytes = vec![0u8; TABLE_BYTES_PER_COEF * k * rows];
        // SAFETY: `a` holds k*rows coefficients, `bytes` the 32*k*rows the header asks for.
        unsafe {
            ffi::ec_init_tables(
                k as c_int,
                rows as c_int,
                a.as_mut_ptr(),
                bytes.as_mut_ptr(),
            )
        };
        Tables { k, rows, bytes }
    }
    pub fn k(&self) -> usize {
        self.k
    }
    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn size_bytes(&self) -> usize {
        self.bytes.len()
    }
}

/// Vectors whose pointer list lives on the stack; calls with more use the heap. (A full
/// 256-entry array would cost a 2 KiB memset per call, which shows at 4 KiB elements.)
const STACK_VECTS: usize = 40;

/// Call `f` with a C array of `n` pointers made by `item`.
fn with_ptrs<T, R>(
    n: usize,
    mut item: impl FnMut(usize) -> *mut T,
    f: impl FnOnce(*mut *mut T) -> R,
) -> R {
    if n <= STACK_VECTS {
        let mut a = [std::ptr::null_mut::<T>(); STACK_VECTS];
        for (i, slot) in a.iter_mut().enumerate().take(n) {
            *slot = item(i);
        }
        f(a.as_mut_ptr())
    } else {
        let mut v: Vec<*mut T> = (0..n).map(item).collect();
        f(v.as_mut_ptr())
    }
}

/// `outputs[i] = sum_j coefs[i][j] * inputs[j]` with ISA-L's `ec_encode_data`.
pub fn encode_data(tables: &Tables, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
    assert_eq!(
        inputs.len(),
        tables.k,
        "encode_data: one input per matrix column"
    );
    assert_eq!(
        outputs.len(),
        tables.rows,
        "encode_data: one output per matrix row"
    );
    let len = outputs[0].len();
    assert!(
        inputs.iter().all(|s| s.len() == len),
        "encode_data: inputs and outputs differ in length"
    );
    assert!(
        outputs.iter().all(|s| s.len() == len),
        "encode_data: outputs differ in length"
    );
    let mut start = 0;
    while start < len {
        let n = (len - start).min(MAX_CALL_BYTES);
        // ISA-L only reads `data` and the tables; the C prototypes lack the const.
        with_ptrs(
            tables.k,
            |j| inputs[j][start..].as_ptr() as *mut u8,
            |data| {
                with_ptrs(
                    tables.rows,
                    |i| outputs[i][start..].as_mut_ptr(),
                    // SAFETY: k and rows match the tables; every pointer has n valid bytes.
                    |coding| unsafe {
                        ffi::ec_encode_data(
                            n as c_int,
                            tables.k as c_int,
                            tables.rows as c_int,
                            tables.bytes.as_ptr() as *mut u8,
                            data,
                            coding,
                        )
                    },
                )
            },
        );
        start += n;
    }
}

/// `dst ^= c * src` with ISA-L's `ec_encode_data_update` (k = 1, one output).
pub fn mul_xor(c: u8, src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len(), "mul_xor: lengths differ");
    static TABLES: OnceLock<Vec<Tables>> = OnceLock::new();
    // 256 one-coefficient tables, 8 KiB: built once.
    let tables = TABLES.get_or_init(|| (0..=255u8).map(|c| Tables::new(&[c], 1, 1)).collect());
    let t = &tables[c as usize];
    let mut start = 0;
    while start < dst.len() {
        let n = (dst.len() - start).min(MAX_CALL_BYTES);
        let mut coding = [dst[start..].as_mut_ptr()];
        // SAFETY: both pointers have n valid bytes; the source and tables are only read.
        unsafe {
            ffi::ec_encode_data_update(
                n as c_int,
                1,
                1,
                0,
                t.bytes.as_ptr() as *mut u8,
                src[start..].as_ptr() as *mut u8,
                coding.as_mut_ptr(),
            )
        };
        start += n;
    }
}

/// Why a raid.h call was not made: the caller falls back to another kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    TooFewSources,
    TooManyVectors,
    LengthNotMultipleOf32,
    PointerNotAligned,
    Failed,
}

/// The raid.h constraints for sources `srcs[j][range]` and destinations at `dests`.
fn check_raid_args(
    srcs: &[&[u8]],
    dests: &[usize],
    range: &std::ops::Range<usize>,
) -> Result<(), Rejected> {
    if srcs.len() < 2 {
        return Err(Rejected::TooFewSources);
    }
    if srcs.len() + dests.len() > MAX_VECTS {
        return Err(Rejected::TooManyVectors);
    }
    if !range.len().is_multiple_of(RAID_ALIGN_BYTES) {
        return Err(Rejected::LengthNotMultipleOf32);
    }
    let misaligned = |a: usize| !a.is_multiple_of(RAID_ALIGN_BYTES);
    if srcs
        .iter()
        .any(|s| misaligned(s[range.start..].as_ptr() as usize))
        || dests.iter().any(|&d| misaligned(d))
    {
        return Err(Rejected::PointerNotAligned);
    }
    Ok(())
}

/// `dst = xor of srcs` with ISA-L's `xor_gen`, if its constraints hold (else nothing is done).
pub fn xor_gen(srcs: &[&[u8]], dst: &mut [u8]) -> Result<(), Rejected> {
    let len = dst.len();
    assert!(
        srcs.iter().all(|s| s.len() == len),
        "xor_gen: sources and destination differ in length"
    );
    check_raid_args(srcs, &[dst.as_ptr() as usize], &(0..len))?;
    let n = srcs.len();
    let mut start = 0;
    while start < len {
        let chunk = (len - start).min(MAX_CALL_BYTES);
        let d = dst[start..].as_mut_ptr() as *mut c_void;
        let item = |i: usize| {
            if i < n {
                srcs[i][start..].as_ptr() as *mut c_void
            } else {
                d
            }
        };
        // SAFETY: vects = sources + 1 destination (last), every pointer 32-byte aligned with
        // `chunk` valid bytes; sources are only read.
        let rc = with_ptrs(n + 1, item, |array| unsafe {
            ffi::xor_gen((n + 1) as c_int, chunk as c_int, array)
        });
        if rc != 0 {
            return Err(Rejected::Failed);
        }
        start += chunk;
    }
    Ok(())
}

/// `p = xor of srcs`, `q = sum_j 2^j srcs[j]` with ISA-L's `pq_gen`, if its constraints hold.
pub fn pq_gen(srcs: &[&[u8]], p: &mut [u8], q: &mut [u8]) -> Result<(), Rejected> {
    let len = p.len();
    assert_eq!(q.len(), len, "pq_gen: P and Q differ in length");
    assert!(
        srcs.iter().all(|s| s.len() == len),
        "pq_gen: sources and parities differ in length"
    );
    pq_gen_range(srcs, p, q, 0..len)
}

/// pq_gen on bytes `range` of every source and of P and Q.
fn pq_gen_range(
    srcs: &[&[u8]],
    p: &mut [u8],
    q: &mut [u8],
    range: std::ops::Range<usize>,
) -> Result<(), Rejected> {
    check_raid_args(
        srcs,
        &[
            p[range.start..].as_ptr() as usize,
            q[range.start..].as_ptr() as usize,
        ],
        &range,
    )?;
    let n = srcs.len();
    let mut start = range.start;
    while start < range.end {
        let chunk = (range.end - start).min(MAX_CALL_BYTES);
        let (pp, qp) = (
            p[start..].as_mut_ptr() as *mut c_void,
            q[start..].as_mut_ptr() as *mut c_void,
        );
        let item = |i: usize| match i {
            _ if i < n => srcs[i][start..].as_ptr() as *mut c_void,
            _ if i == n => pp,
            _ => qp,
        };
        // SAFETY: vects = sources + P + Q (last two), pointers 32-byte aligned, `chunk` a
        // multiple of 32 with that many valid bytes behind every pointer.
        let rc = with_ptrs(n + 2, item, |array| unsafe {
            ffi::pq_gen((n + 2) as c_int, chunk as c_int, array)
        });
        if rc != 0 {
            return Err(Rejected::Failed);
        }
        start += chunk;
    }
    Ok(())
}

/// Expanded tables of recently used matrices, per thread (no lock on the hot path).
/// ec_init_tables costs about as much as encoding a few KiB, so at 4 KiB elements building
/// tables on every call would halve the speed. Bounded in entries and bytes; least recently
/// used first out.
struct TableCache {
    entries: Vec<(Vec<u8>, Tables)>,
    bytes: usize,
}

const CACHE_MAX_ENTRIES: usize = 64;
const CACHE_MAX_BYTES: usize = 8 << 20;

impl TableCache {
    fn with_tables<R>(
        &mut self,
        coefs: &[u8],
        k: usize,
        rows: usize,
        f: impl FnOnce(&Tables) -> R,
    ) -> R {
        let hit = self
            .entries
            .iter()
            .position(|(key, t)| t.k == k && t.rows == rows && key == coefs);
        let index = match hit {
            Some(i) => i,
            None => {
                let tables = Tables::new(coefs, k, rows);
                if tables.size_bytes() > CACHE_MAX_BYTES {
                    // Too big to keep (k * rows > 256 Ki coefficients cannot happen in
                    // GF(2^8) codes, but the bound is what keeps memory finite).
                    return f(&tables);
                }
                while self.entries.len() >= CACHE_MAX_ENTRIES
                    || self.bytes + tables.size_bytes() > CACHE_MAX_BYTES
                {
                    let (_, old) = self.entries.pop().expect("cache over budget is not empty");
                    self.bytes -= old.size_bytes();
                }
                self.bytes += tables.size_bytes();
                self.entries.push((coefs.to_vec(), tables));
                self.entries.len() - 1
            }
        };
        // Move to the front so the next lookup of a hot matrix is one comparison.
        if index != 0 {
            let e = self.entries.remove(index);
            self.entries.insert(0, e);
        }
        f(&self.entries[0].1)
    }
}

thread_local! {
    static CACHE: RefCell<TableCache> = const { RefCell::new(TableCache { entries: Vec::new(), bytes: 0 }) };
}

/// The engine on ISA-L's kernels.
#[derive(Debug, Default, Clone, Copy)]
pub struct Isal;

static FALLBACK: Portable = Portable;

impl Isal {
    /// Known-answer check run once before the engine is chosen: ISA-L's multiply and its
    /// P+Q kernel agree with our own tables on a small buffer.
    pub fn self_test() -> bool {
        if gf_mul(0x80, 2) != 0x1d || gf_mul(7, 9) != gf256::mul(7, 9) {
            return false;
        }
        let mut buf = vec![0u8; 6 * 64 + RAID_ALIGN_BYTES];
        let off = (RAID_ALIGN_BYTES - buf.as_ptr() as usize % RAID_ALIGN_BYTES) % RAID_ALIGN_BYTES;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (i * 37 + 11) as u8;
        }
        let (srcs, par) = buf[off..off + 6 * 64].split_at_mut(4 * 64);
        let srcs: Vec<&[u8]> = srcs.chunks(64).collect();
        let (p, q) = par.split_at_mut(64);
        if pq_gen(&srcs, p, q).is_err() {
            return false;
        }
        (0..64).all(|i| {
            let want_p = srcs.iter().fold(0u8, |a, s| a ^ s[i]);
            let want_q = srcs
                .iter()
                .enumerate()
                .fold(0u8, |a, (j, s)| a ^ gf256::mul(gf256::pow2(j), s[i]));
            p[i] == want_p && q[i] == want_q
        })
    }

    /// The matrices with a faster kernel than the general multiply: one all-ones row (XOR)
    /// and md's P+Q rows (pq_gen). True if done. Shapes are checked by the caller.
    pub(super) fn special_paths(
        &self,
        coefs: &[u8],
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
    ) -> bool {
        let k = inputs.len();
        if outputs.len() == 1 && coefs.iter().all(|&c| c == 1) {
            self.xor_many(inputs, outputs[0]);
            return true;
        }
        outputs.len() == 2 && k >= 2 && Self::is_pq(coefs, k) && self.try_pq(inputs, outputs)
    }

    fn is_pq(coefs: &[u8], k: usize) -> bool {
        coefs[..k].iter().all(|&c| c == 1)
            && coefs[k..]
                .iter()
                .enumerate()
                .all(|(j, &c)| c == gf256::pow2(j))
    }

    /// P+Q through pq_gen on the 32-byte aligned middle, the edges (under 32 bytes each, when
    /// the buffers start off a 32-byte boundary, as malloc'd stripe buffers do) with a u64
    /// SWAR loop of the same recurrence. False (nothing written) if the pointers do not share
    /// one alignment, or k is out of pq_gen's range.
    fn try_pq(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> bool {
        let len = outputs[0].len();
        let k = inputs.len();
        if k < 2 || k + 2 > MAX_VECTS {
            return false;
        }
        let misalign = outputs[0].as_ptr() as usize % RAID_ALIGN_BYTES;
        let same = |a: *const u8| a as usize % RAID_ALIGN_BYTES == misalign;
        if !inputs.iter().all(|s| same(s.as_ptr())) || !same(outputs[1].as_ptr()) {
            return false;
        }
        let head = ((RAID_ALIGN_BYTES - misalign) % RAID_ALIGN_BYTES).min(len);
        let middle = (len - head) / RAID_ALIGN_BYTES * RAID_ALIGN_BYTES;
        let [p, q] = outputs else {
            unreachable!("two outputs checked by the caller")
        };
        if middle > 0 && pq_gen_range(inputs, p, q, head..head + middle).is_err() {
            return false;
        }
        pq_swar(inputs, p, q, 0..head);
        pq_swar(inputs, p, q, head + middle..len);
        true
    }
}

/// GF(2^8) multiply by 2 of the 8 bytes of a u64 (shift, then reduce by 0x1d where the high
/// bit fell out): the step of md's and ISA-L's Q recurrence.
fn mul2_swar(x: u64) -> u64 {
    let high = x & 0x8080_8080_8080_8080;
    ((x << 1) & 0xfefe_fefe_fefe_fefe) ^ ((high >> 7) * 0x1d)
}

/// P and Q of bytes `range` (under 32 of them) by Horner's rule from the last source:
/// Q = (((D_{k-1}) * 2 ^ D_{k-2}) * 2 ^ ...) ^ D_0 = sum_j 2^j D_j.
fn pq_swar(inputs: &[&[u8]], p: &mut [u8], q: &mut [u8], range: std::ops::Range<usize>) {
    const WORDS: usize = RAID_ALIGN_BYTES / 8;
    let n = range.len();
    if n == 0 {
        return;
    }
    assert!(
        n < RAID_ALIGN_BYTES,
        "edges are shorter than one 32-byte lane"
    );
    let mut pw = [0u64; WORDS];
    let mut qw = [0u64; WORDS];
    for s in inputs.iter().rev() {
        let mut bytes = [0u8; RAID_ALIGN_BYTES];
        bytes[..n].copy_from_slice(&s[range.clone()]);
        for w in 0..n.div_ceil(8) {
            let v = u64::from_le_bytes(bytes[w * 8..w * 8 + 8].try_into().expect("8 bytes"));
            pw[w] ^= v;
            qw[w] = mul2_swar(qw[w]) ^ v;
        }
    }
    let mut pb = [0u8; RAID_ALIGN_BYTES];
    let mut qb = [0u8; RAID_ALIGN_BYTES];
    for w in 0..WORDS {
        pb[w * 8..w * 8 + 8].copy_from_slice(&pw[w].to_le_bytes());
        qb[w * 8..w * 8 + 8].copy_from_slice(&qw[w].to_le_bytes());
    }
    p[range.clone()].copy_from_slice(&pb[..n]);
    q[range].copy_from_slice(&qb[..n]);
}

impl Engine for Isal {
    fn name(&self) -> &'static str {
        "isa-l"
    }

    fn xor_many(&self, srcs: &[&[u8]], dst: &mut [u8]) {
        assert!(!srcs.is_empty(), "xor_many needs at least one source");
        assert!(
            srcs.iter().all(|s| s.len() == dst.len()),
            "xor_many: every source has the destination's length"
        );
        // Measured (`exaraid codes bench`, kernel table): the Rust AVX2 loop is as fast as
        // ISA-L's xor_gen on 1 MiB buffers and about twice as fast on cache-resident 4 KiB ones
        // (it needs no alignment split and, we believe, avoids xor_gen's non-temporal stores,
        // which push the parity out of cache). So XOR stays on our kernel; `xor_gen` remains
        // the ISA-L peer the benchmark compares raid5 with.
        FALLBACK.xor_many(srcs, dst);
    }

    fn xor_into(&self, dst: &mut [u8], src: &[u8]) {
        // Two streams in, one out: memory-bound, the AVX2 loop is as fast as xor_gen here and
        // needs no alignment.
        FALLBACK.xor_into(dst, src);
    }

    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]) {
        assert_eq!(
            src.len(),
            dst.len(),
            "gf_mul_xor: source and destination lengths differ"
        );
        match c {
            0 => {}
            1 => self.xor_into(dst, src),
            _ => mul_xor(c, src, dst),
        }
    }

    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
        if super::matrix_mul_is_trivial(coefs, inputs, outputs) {
            return;
        }
        let k = inputs.len();
        let rows = outputs.len();
        if self.special_paths(coefs, inputs, outputs) {
            return;
        }
        if k > MAX_VECTS || rows > MAX_VECTS {
            FALLBACK.gf_matrix_mul(coefs, inputs, outputs);
            return;
        }
        CACHE.with(|cache| {
            cache
                .borrow_mut()
                .with_tables(coefs, k, rows, |t| encode_data_aligned(t, inputs, outputs))
        });
    }
}

/// Alignment ISA-L's AVX-512 dot products work best at (one cache line per load).
const EC_ALIGN_BYTES: usize = 64;

/// `encode_data` with its main call on 64-byte aligned addresses when every buffer shares one
/// offset (elements of a malloc'd stripe do): ec_encode_data (pure: outputs depend on inputs
/// only) runs once on the first 64 bytes unaligned and once from the first boundary to the
/// end; the overlap is computed twice, to the same bytes.
fn encode_data_aligned(tables: &Tables, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) {
    let len = outputs[0].len();
    let misalign = outputs[0].as_ptr() as usize % EC_ALIGN_BYTES;
    let shared = inputs
        .iter()
        .all(|s| s.as_ptr() as usize % EC_ALIGN_BYTES == misalign)
        && outputs
            .iter()
            .all(|o| o.as_ptr() as usize % EC_ALIGN_BYTES == misalign);
    if misalign == 0 || !shared || len < 2 * EC_ALIGN_BYTES {
        encode_data(tables, inputs, outputs);
        return;
    }
    let head = EC_ALIGN_BYTES - misalign;
    let mut ins: [&[u8]; STACK_VECTS] = [&[]; STACK_VECTS];
    if inputs.len() > STACK_VECTS || outputs.len() > STACK_VECTS {
        encode_data(tables, inputs, outputs);
        return;
    }
    let (k, rows) = (inputs.len(), outputs.len());
    for range in [0..EC_ALIGN_BYTES, head..len] {
        for (slot, s) in ins.iter_mut().zip(inputs) {
            *slot = &s[range.clone()];
        }
        let mut outs: [&mut [u8]; STACK_VECTS] = std::array::from_fn(|_| &mut [][..]);
        for (slot, o) in outs.iter_mut().zip(outputs.iter_mut()) {
            *slot = &mut o[range.clone()];
        }
        encode_data(tables, &ins[..k], &mut outs[..rows]);
    }
}
