//! Byte kernels behind one trait, chosen at run time (as reed-solomon-simd does): the codes
//! never call a kernel directly, only through [`engine()`].
//!
//! GF(2^8) arithmetic everywhere uses the polynomial 0x11d (x^8+x^4+x^3+x^2+1) and
//! generator 2, as Linux md RAID-6 and ISA-L do.
//!
//! # Which kernel, and why
//!
//! The default engine is [`Isal`]: Intel's ISA-L (Debian's libisal-dev, linked by build.rs
//! through a small hand-written FFI in `isal.rs`). The issue asks for a *vetted* kernel for
//! `rs`; ISA-L is the erasure-code library behind Ceph's and HDFS's ISA plugins and has had its
//! SSE/AVX2/AVX-512 kernels in production for a decade, so we use it rather than trust kernels of
//! our own. Inside [`Engine::gf_matrix_mul`] it picks:
//! - a single all-ones row -> `xor_gen` (RAID-5 parity, RAID-6 P alone, array-code parities);
//! - rows `[1, 1, ..]` and `[2^0, 2^1, ..]` -> `pq_gen` (md's RAID-6 P and Q in one pass);
//! - anything else (RS encode, every decode matrix) -> `ec_init_tables` + `ec_encode_data`,
//!   with the expanded tables of recently used matrices kept in a bounded per-thread cache,
//!   because building them costs about as much as encoding a 4 KiB stripe.
//!
//! `xor_gen` and `pq_gen` need 32-byte aligned pointers and lengths that are multiples of 32.
//! Elements of one stripe buffer share their alignment when the element size is a multiple of
//! 32, so the engine runs ISA-L on the aligned middle and the Rust kernels on the few edge
//! bytes; when the pointers do not share an alignment it falls back to `ec_encode_data`
//! (which takes unaligned buffers) or the Rust XOR loop.
//!
//! Measured, not assumed: `exaraid codes bench` times exaraid's public encode/decode beside
//! direct ISA-L calls on the same data in the same run (docs/results/codes-bench.md). Because
//! the horizontal codes (raid5, raid6, rs) end in these same ISA-L calls, their ratio
//! exaraid/ISA-L measures exaraid's own overhead (geometry walk, slicing, table cache lookup),
//! not a different kernel.
//!
//! # Dispatch
//!
//! [`engine()`] decides once per process (a `OnceLock`): [`Isal`] if its known-answer self
//! test passes, else [`Portable`]. ISA-L itself then dispatches to its SSE / AVX / AVX2 /
//! AVX-512 variant from CPUID. `EXARAID_ENGINE=portable` forces the Rust kernels (`isal` or
//! `isa-l` force ISA-L). [`Portable`] is the reference every engine is tested against; it uses
//! AVX2 (`vpshufb` split-nibble multiply) when `is_x86_feature_detected!("avx2")` says so and
//! u64-wide scalar code elsewhere.

#[cfg(target_arch = "x86_64")]
pub mod gfni;
pub mod isal;
mod portable;

#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
            // not pass silently either.
            eprintln!(
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
    #[cfg(target_arch = "x86_64")]
    {
        isal_usable() && gfni::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
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
    #[cfg(target_arch = "x86_64")]
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
    #[cfg(target_arch = "x86_64")]
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
