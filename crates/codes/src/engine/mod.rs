//! Byte kernels behind one trait, chosen at run time (as reed-solomon-simd does): the codes
//! never call a kernel directly, only through [`engine()`].
//!
//! GF(2^8) arithmetic everywhere uses the polynomial 0x11d (x^8+x^4+x^3+x^2+1) and
//! generator 2, as Linux md RAID-6 and ISA-L do.
//!
//! # Which kernel, and why
//!
//! The issue asks for a *vetted* kernel for `rs` unless our own is measured faster. Three
//! engines exist; all are tested against a byte-at-a-time reference on random data and odd
//! shapes (src/engine/tests.rs), and the codes' exhaustive erasure tests run on whichever one
//! [`engine()`] picks.
//!
//! - [`Isal`] (`isa-l`): Intel's ISA-L (Debian's libisal-dev 2.30, linked by build.rs through
//!   a small hand-written FFI in `isal.rs`), the erasure-code library behind Ceph's and HDFS's
//!   ISA plugins. Inside [`Engine::gf_matrix_mul`]:
//!   - rows `[1, 1, ..]` and `[2^0, 2^1, ..]` -> `pq_gen` (md's RAID-6 P and Q in one pass).
//!     pq_gen needs 32-byte aligned pointers and lengths; elements of one stripe buffer share
//!     their alignment (element sizes are multiples of 32), so pq_gen runs on the aligned
//!     middle and a u64 SWAR loop of the same recurrence on the edge bytes (under 32 each);
//!   - anything else (RS encode, every decode matrix) -> `ec_init_tables` + `ec_encode_data`,
//!     with the expanded tables of recently used matrices in a bounded per-thread cache,
//!     because building them costs about as much as encoding a 4 KiB stripe;
//!   - XOR (one all-ones row, [`Engine::xor_many`], [`Engine::xor_into`]) -> our AVX2 loop,
//!     NOT `xor_gen`: measured as fast as xor_gen on 1 MiB buffers and about twice as fast on
//!     cache-resident 4 KiB buffers (no alignment split needed; we have not confirmed which
//!     xor_gen variant ISA-L picks here: its AVX one writes with non-temporal stores, which
//!     would explain it). XOR needs no vetting beyond the reference tests.
//! - [`Gfni`] (`gfni`, x86-64 with AVX-512BW and GFNI, built with rustc >= 1.89): every
//!   matrix multiply (RS encode, RAID-6 P+Q, every decode matrix) by our `vgf2p8affineqb`
//!   kernel and XOR of many sources by an AVX-512 loop (`gfni.rs`); `xor_into` and
//!   single-coefficient updates as in [`Isal`]. Measured on the same buffers, passes
//!   interleaved: 2.5-2.9x ISA-L 2.30's `ec_encode_data` for rs 10+4 and 1.2-1.6x its
//!   `pq_gen` for P+Q of 8. Debian's ISA-L 2.30 has no GFNI kernels; ISA-L added them in
//!   2.31, so a newer ISA-L would likely close most of the gap.
//! - [`Portable`] (`portable`): plain Rust (AVX2 `vpshufb` split-nibble multiply when
//!   `is_x86_feature_detected!("avx2")`, u64 scalar otherwise): the fallback and the reference.
//!
//! All numbers: `exaraid codes bench` (kernel table and per-code table), docs/results/codes-bench.md.
//! Because raid5, raid6 and rs end in these same kernels, the bench's ratio exaraid/ISA-L for
//! them measures the kernel difference (GFNI vs ISA-L's `vpshufb`, our XOR vs xor_gen) plus
//! exaraid's own per-call overhead (stripe checks, decode-plan lookup, slicing, table cache),
//! not a different algorithm.
//!
//! Alignment matters as much as the kernel: a 32- or 64-byte access that straddles two cache
//! lines costs about double, and a malloc'd [`crate::StripeBuf`] starts 16 bytes past a
//! 64-byte boundary. All elements of one stripe share that offset (element sizes are multiples
//! of 32), so every Rust kernel peels the unaligned first bytes and runs its main loop on
//! aligned addresses (the AVX2 kernels compute the first and last 32 bytes from the original
//! destination up front; the GFNI kernel masks its first block). The kernel table's `stripe+16`
//! rows measure this against `stripe+0`; before the peeling, rs 10+4 on GFNI ran at half speed
//! on `stripe+16`.
//!
//! # Dispatch
//!
//! [`engine()`] decides once per process (a `OnceLock`): [`Gfni`] if the CPU has AVX-512BW and
//! GFNI and ISA-L passes its known-answer self test, else [`Isal`] if it passes, else
//! [`Portable`]. ISA-L itself then dispatches to its SSE / AVX / AVX2 / AVX-512 variant from
//! CPUID. `EXARAID_ENGINE=portable` forces the Rust kernels, `isal` (or `isa-l`) puts every GF(2^8)
//! multiply on ISA-L (the vetted-only configuration; XOR stays on the Rust loop), `gfni` asks
//! for the default.

#[cfg(all(target_arch = "x86_64", exaraid_avx512))]
pub mod gfni;
pub mod isal;
mod portable;

#[cfg(all(target_arch = "x86_64", exaraid_avx512))]
pub use gfni::Gfni;
pub use isal::Isal;
pub use portable::Portable;

use std::sync::OnceLock;

/// The byte kernels a code needs. Every slice in one call has the same length.
pub trait Engine: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &'static str;
    /// `dst = src[0] ^ src[1] ^ ...` (at least one source).
    fn xor_many(&self, srcs: &[&[u8]], dst: &mut [u8]);
    /// `dst ^= src`.
    fn xor_into(&self, dst: &mut [u8], src: &[u8]);
    /// `dst ^= c * src` in GF(2^8).
    fn gf_mul_xor(&self, c: u8, src: &[u8], dst: &mut [u8]);
    /// `outputs[i] = sum_j coefs[i * inputs.len() + j] * inputs[j]` in GF(2^8).
    fn gf_matrix_mul(&self, coefs: &[u8], inputs: &[&[u8]], outputs: &mut [&mut [u8]]);
}

/// The environment variable that overrides the engine choice.
pub const ENGINE_ENV: &str = "EXARAID_ENGINE";

static PORTABLE: Portable = Portable;
static ISAL: Isal = Isal;
#[cfg(all(target_arch = "x86_64", exaraid_avx512))]
static GFNI: Gfni = Gfni;

/// The engine for this process: ISA-L when it passes its self test, unless
/// `EXARAID_ENGINE=portable` says otherwise.
pub fn engine() -> &'static dyn Engine {
    static CHOSEN: OnceLock<&'static dyn Engine> = OnceLock::new();
    *CHOSEN.get_or_init(|| choose(&std::env::var(ENGINE_ENV).unwrap_or_default()))
}

/// The engine for a value of `EXARAID_ENGINE` (empty when unset).
fn choose(wanted: &str) -> &'static dyn Engine {
    match wanted {
        "portable" => &PORTABLE,
        "isal" | "isa-l" => isal_or_portable(),
        "" | "gfni" => fastest(),
        other => {
            // Not a panic: a typo in an environment variable should not stop a run, but it must
            // not pass silently either. A stderr nobody reads must not make it a panic.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "exaraid: {ENGINE_ENV}={other} is not an engine (use 'portable', 'isal' or 'gfni'); using the default"
            );
            fastest()
        }
    }
}

fn isal_usable() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(Isal::self_test)
}

fn gfni_usable() -> bool {
    #[cfg(all(target_arch = "x86_64", exaraid_avx512))]
    {
        isal_usable() && gfni::available()
    }
    #[cfg(not(all(target_arch = "x86_64", exaraid_avx512)))]
    {
        false
    }
}

fn isal_or_portable() -> &'static dyn Engine {
    if isal_usable() {
        &ISAL
    } else {
        &PORTABLE
    }
}

/// The measured-fastest engine this CPU runs (docs/results/codes-bench.md, kernel table).
fn fastest() -> &'static dyn Engine {
    #[cfg(all(target_arch = "x86_64", exaraid_avx512))]
    if gfni_usable() {
        return &GFNI;
    }
    isal_or_portable()
}

/// Every engine this build can run on this CPU (for tests and the benchmark), reference first.
pub fn engines() -> Vec<&'static dyn Engine> {
    let mut all: Vec<&'static dyn Engine> = vec![&PORTABLE];
    if isal_usable() {
        all.push(&ISAL);
    }
    #[cfg(all(target_arch = "x86_64", exaraid_avx512))]
    if gfni_usable() {
        all.push(&GFNI);
    }
    all
}

/// The engine with this name (`portable`, `isa-l` or `gfni`), if it runs here.
pub fn engine_named(name: &str) -> Option<&'static dyn Engine> {
    engines().into_iter().find(|e| e.name() == name)
}

#[cfg(test)]
mod tests;

/// Checks the shape of a `gf_matrix_mul` call (coefs is outputs x inputs, every buffer has one
/// length) and completes the trivial ones: no outputs, empty buffers, or no inputs (outputs are
/// zero). Returns true when nothing is left to compute. Shared by the SIMD engines so their
/// contract cannot drift apart.
pub(crate) fn matrix_mul_is_trivial(
    coefs: &[u8],
    inputs: &[&[u8]],
    outputs: &mut [&mut [u8]],
) -> bool {
    let k = inputs.len();
    let rows = outputs.len();
    assert_eq!(
        coefs.len(),
        k * rows,
        "gf_matrix_mul: coefs must be outputs x inputs"
    );
    if rows == 0 {
        return true;
    }
    let len = outputs[0].len();
    assert!(
        inputs.iter().all(|s| s.len() == len),
        "gf_matrix_mul: every input has the outputs' length"
    );
    assert!(
        outputs.iter().all(|s| s.len() == len),
        "gf_matrix_mul: every output has the same length"
    );
    if len == 0 {
        return true;
    }
    if k == 0 {
        outputs.iter_mut().for_each(|o| o.fill(0));
        return true;
    }
    false
}
