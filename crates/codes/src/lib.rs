//! exaraid's erasure codes.
//!
//! One API for every code (see [`Geometry`]): a stripe is a grid of equal-size elements,
//! one column per device; each element is data or parity; each parity is a GF(2^8)
//! combination of data elements. On top of the geometry every code offers
//! [`Code::encode`], [`Code::decode`], [`Code::update`] and [`Code::verify`] on real bytes.
//!
//! Two types make the public API (as in reed-solomon-simd): [`CodeSpec`] says which code,
//! [`Code`] is a built instance. Byte kernels sit behind an engine chosen at run time
//! ([`engine`]: ISA-L where it is usable, Rust AVX2/scalar kernels otherwise).
//!
//! # The codes, their sources, and the reading chosen
//!
//! | code | grid (rows x cols) | source | notes |
//! |---|---|---|---|
//! | `raid5` | 1 x (k+1) | Patterson, Gibson, Katz, SIGMOD 1988 | P = XOR of data; k >= 1 |
//! | `raid6` | 1 x (k+2) | Linux md / H. P. Anvin, "The mathematics of RAID-6" | P = XOR, Q = sum 2^j D_j in GF(2^8)/0x11d; k >= 2 (md needs 4 devices) |
//! | `rs` | 1 x (k+m) | ISA-L `gf_gen_cauchy1_matrix` (erasure_code/ec_base.c) | parity i, data j: 1/((k+i) xor j); Cauchy, so every k+m <= 255 is MDS (Vandermonde systematic is not: ISA-L issue #46) |
//! | `evenodd` | (p-1) x (p+2) | Blaum, Brady, Bruck, Menon, IEEE TC 1995 | the adjuster S is expanded into every diagonal parity's terms; encode and decode compute it once into a scratch element |
//! | `rdp` | (p-1) x (p+1) | Corbett et al., USENIX FAST 2004 | diagonals ⟨r+c⟩_p over data and row parity; the row-parity term is expanded (cancelling) |
//! | `xcode` | p x p | Xu, Bruck, IEEE TIT 1999 | rows p-2 / p-1: C(k, ⟨i+k+2⟩_p) / C(k, ⟨i-k-2⟩_p) |
//! | `hcode` | (p-1) x (p+1) | Wu, Wan, He, Cao, Xie, IPDPS 2011 (text not reachable; chains checked against the independent implementation in github.com/RainyLi/Disksim_Erasure) | horizontal parity in column p; anti-diagonal parity at C(i, i+1), chain C(⟨p-2-i+j⟩_p, j) |
//! | `hdp` | (p-1) x (p-1) | Wu, He, Wu, Wan, Liu, Cao, Xie, DSN 2011 (text not found; our unverified reading, see `codes::hdp`) | horizontal-diagonal parity at C(i,i) over its whole row (its anti-diagonal parity included, expanded here); anti-diagonal parity at C(i, p-2-i), chain C(⟨2i+j+2⟩_p, j); p >= 5 |
//! | `dcode` | p x p | Fu, Shu, D-Code (seed 002) | built from the paper's step-by-step horizontal and deployment rules (its closed forms (1), (2) are garbled in the seed text); checked against the 7-disk example and Theorem 1 (X-Code reordered by Eq. (3)) |
//!
//! Each builder in [`codes`] cites its paper and spells out its equations. Array codes take
//! a prime p (3..=127; HDP 5..=127); horizontal codes take k (and m for rs), k + m <= 255.
//! H-Code and HDP: the seed does not restate their equations and neither paper's text was
//! reachable by search (only abstracts). H-Code's chains match, index for index, an
//! independent public implementation (DiskSim erasure extension, `hcode_initialize`; pinned
//! by a test); HDP's are our unverified reading of its paper (no implementation found
//! either). The exhaustive decode tests (every pair of columns, p in {5, 7, 11, 13}) check
//! that each construction is MDS.
//!
//! **Data order** (the order a file's consecutive bytes fill a stripe): row-major over data
//! positions for every array code (for D-Code this is the paper's "horizontal order", which
//! its horizontal parities follow); column order for the horizontal codes.
//!
//! **Parities over parities** (RDP's diagonal over the row-parity column, EVENODD's S, HDP's
//! horizontal-diagonal parity over the anti-diagonal parity) are expanded to data in
//! `parity_terms`, so `data_parities[d]` is exactly the set of parities an update of d must
//! touch.
//!
//! **Decoding** is one generic solver ([`solver`]): peeling over surviving parities (the
//! chain decoding of the array codes), Gaussian elimination over GF(2^8) for what peeling
//! cannot reach, a data set shared by three or more parities (EVENODD's S) as an auxiliary
//! unknown computed once, plans cached per erasure pattern. The decode hot path allocates
//! nothing and takes no lock: the pattern is a 256-bit column set on the stack, the plan
//! comes from a small per-thread cache of recent plans (then the code's shared cache), and
//! stages run on the stripe's bytes with source lists on the stack.
//!
//! **Encoding**: horizontal codes in one `gf_matrix_mul` per stripe (the engine maps it to
//! ISA-L's `xor_gen` / `pq_gen` / `ec_encode_data`); array codes one `xor_many` per parity,
//! following an encode plan ([`solver::encode_plan`]) that computes a parity from another
//! when that reads less (RDP's diagonal from its row parity, as the paper's encoder) and a
//! subset shared by three or more parities once (EVENODD's S, into a scratch element).
//!
//! **Element sizes** must be a positive multiple of 32 bytes (the SIMD kernels' lane).

pub mod accumulate;
pub mod codes;
pub mod engine;
pub mod geometry;
pub mod gf256;
pub mod solver;

pub use geometry::{Cell, Geometry, Pos, Term};
pub use solver::{DecodePlan, Stage};

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// Every code exaraid knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeKind {
    Raid5,
    Raid6,
    Rs,
    Evenodd,
    Rdp,
    Xcode,
    Hcode,
    Hdp,
    Dcode,
}

impl CodeKind {
    pub const ALL: [CodeKind; 9] = [
        CodeKind::Raid5,
        CodeKind::Raid6,
        CodeKind::Rs,
        CodeKind::Evenodd,
        CodeKind::Rdp,
        CodeKind::Xcode,
        CodeKind::Hcode,
        CodeKind::Hdp,
        CodeKind::Dcode,
    ];

    /// The name used on the command line and in every output file.
    pub fn name(self) -> &'static str {
        match self {
            CodeKind::Raid5 => "raid5",
            CodeKind::Raid6 => "raid6",
            CodeKind::Rs => "rs",
            CodeKind::Evenodd => "evenodd",
            CodeKind::Rdp => "rdp",
            CodeKind::Xcode => "xcode",
            CodeKind::Hcode => "hcode",
            CodeKind::Hdp => "hdp",
            CodeKind::Dcode => "dcode",
        }
    }

    pub fn from_name(name: &str) -> Result<CodeKind, CodeError> {
        CodeKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| CodeError::UnknownCode(name.to_string()))
    }

    /// Array codes are parameterised by a prime p; horizontal codes by k (and m).
    pub fn is_array(self) -> bool {
        !matches!(self, CodeKind::Raid5 | CodeKind::Raid6 | CodeKind::Rs)
    }
}

/// Which code, with its parameters. Validated by [`Code::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CodeSpec {
    pub kind: CodeKind,
    /// Data columns (horizontal codes).
    pub k: Option<usize>,
    /// Parity columns (rs only; raid5 is 1, raid6 is 2).
    pub m: Option<usize>,
    /// The prime of an array code.
    pub p: Option<usize>,
}

impl CodeSpec {
    pub fn raid5(k: usize) -> CodeSpec {
        CodeSpec {
            kind: CodeKind::Raid5,
            k: Some(k),
            m: Some(1),
            p: None,
        }
    }
    pub fn raid6(k: usize) -> CodeSpec {
        CodeSpec {
            kind: CodeKind::Raid6,
            k: Some(k),
            m: Some(2),
            p: None,
        }
    }
    pub fn rs(k: usize, m: usize) -> CodeSpec {
        CodeSpec {
            kind: CodeKind::Rs,
            k: Some(k),
            m: Some(m),
            p: None,
        }
    }
    pub fn array(kind: CodeKind, p: usize) -> CodeSpec {
        CodeSpec {
            kind,
            k: None,
            m: None,
            p: Some(p),
        }
    }
}

impl std::fmt::Display for CodeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.kind.is_array(), self.k, self.m, self.p) {
            (true, _, _, Some(p)) => write!(f, "{} p={p}", self.kind.name()),
            (false, Some(k), Some(m), _) => write!(f, "{} k={k} m={m}", self.kind.name()),
            _ => write!(f, "{} (incomplete parameters)", self.kind.name()),
        }
    }
}

/// Everything that can be wrong with a request to the codes crate. Each message says what
/// was wrong and what to do instead.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CodeError {
    #[error("unknown code '{0}': expected one of raid5, raid6, rs, evenodd, rdp, xcode, hcode, hdp, dcode")]
    UnknownCode(String),
    #[error("{0}")]
    BadParameters(String),
    #[error("element size {got} bytes is not allowed: {why}")]
    BadElementSize { got: usize, why: String },
    #[error("{erased} columns erased but {code} tolerates at most {tolerance}: the data cannot be rebuilt")]
    TooManyErasures {
        code: String,
        erased: usize,
        tolerance: usize,
    },
    #[error("column {col} does not exist: the stripe has columns 0..{cols}")]
    BadColumn { col: usize, cols: usize },
    #[error("data index {index} does not exist: the stripe has {count} data elements")]
    BadDataIndex { index: usize, count: usize },
    #[error("buffer holds {got} bytes but one stripe of this code needs {want}")]
    BadStripeLength { got: usize, want: usize },
}

/// One stripe's bytes: `rows * cols` elements of `element_bytes` each, stored column by
/// column (column c is what one device holds for this stripe, contiguous).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StripeBuf {
    pub rows: usize,
    pub cols: usize,
    pub element_bytes: usize,
    pub bytes: Vec<u8>,
}

impl StripeBuf {
    pub fn zeroed(rows: usize, cols: usize, element_bytes: usize) -> StripeBuf {
        StripeBuf {
            rows,
            cols,
            element_bytes,
            bytes: vec![0; rows * cols * element_bytes],
        }
    }
    fn offset(&self, pos: Pos) -> usize {
        assert!(
            pos.row < self.rows && pos.col < self.cols,
            "position {pos:?} outside stripe"
        );
        (pos.col * self.rows + pos.row) * self.element_bytes
    }
    pub fn element(&self, pos: Pos) -> &[u8] {
        let o = self.offset(pos);
        &self.bytes[o..o + self.element_bytes]
    }
    pub fn element_mut(&mut self, pos: Pos) -> &mut [u8] {
        let o = self.offset(pos);
        let e = self.element_bytes;
        &mut self.bytes[o..o + e]
    }
    pub fn column(&self, col: usize) -> &[u8] {
        let n = self.rows * self.element_bytes;
        &self.bytes[col * n..(col + 1) * n]
    }
    pub fn column_mut(&mut self, col: usize) -> &mut [u8] {
        let n = self.rows * self.element_bytes;
        &mut self.bytes[col * n..(col + 1) * n]
    }
}

/// Largest element the kernels accept: 1 GiB. Bounds every buffer the crate allocates.
pub const MAX_ELEMENT_BYTES: usize = 1 << 30;

/// Element sizes must be a multiple of this: the SIMD kernels (ISA-L's `xor_gen`,
/// `pq_gen`, `ec_encode_data` and exaraid's AVX2 kernels) work in 32-byte lanes.
pub const ELEMENT_ALIGN_BYTES: usize = 32;

/// How many erasure patterns' decode plans one [`Code`] keeps (bounded memory; a full
/// exhaustive check of rs 12+4 visits 2,516 patterns).
const MAX_CACHED_PLANS: usize = 4096;

/// A built code instance: its geometry plus the byte kernels.
#[derive(Clone, Debug)]
pub struct Code {
    spec: CodeSpec,
    geometry: Geometry,
    /// Horizontal codes: the m x k coefficient matrix, encoded with one matrix multiply.
    matrix: Option<Vec<u8>>,
    /// Array codes: how encode computes each parity ([`solver::encode_plan`]).
    encode_stages: Vec<Stage>,
    /// Decode plans by erasure pattern, shared between clones. Each thread first looks in
    /// its own [`RECENT_PLANS`], so a steady stream of decodes never takes this lock.
    plans: Arc<Mutex<HashMap<ErasureKey, Arc<DecodePlan>>>>,
    /// Names this code's plan cache in the per-thread cache (clones share it, as they share
    /// `plans`). A counter, not an address: an address can be reused by a later code.
    plans_id: u64,
}

/// Columns a stripe may have: horizontal codes at most [`codes::MAX_COLUMNS`] (255), array
/// codes at most p + 2 = 129. An [`ErasureKey`] has one bit per column.
const MAX_STRIPE_COLUMNS: usize = 256;
const _: () = assert!(codes::MAX_COLUMNS <= MAX_STRIPE_COLUMNS);

/// An erasure pattern as a set of columns (bit c set = column c lost). Order and
/// repetitions in the caller's list do not matter, and the key needs no sorting and no
/// allocation: the decode hot path builds one per call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct ErasureKey([u64; MAX_STRIPE_COLUMNS / 64]);

impl ErasureKey {
    /// Add a column; true if it was not in the set yet. Callers count columns from this
    /// rather than with a popcount afterwards: the baseline x86-64 target has no popcnt
    /// instruction, and re-reading the words just written (16 bytes at a time) stalls on
    /// store forwarding; together they cost a fifth of a 4 KiB raid5 decode.
    #[inline(always)]
    fn insert(&mut self, col: usize) -> bool {
        assert!(col < MAX_STRIPE_COLUMNS);
        let (word, bit) = (col / 64, 1u64 << (col % 64));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }
    /// The erased columns, sorted and unique (what [`DecodePlan::build`] takes).
    fn columns(&self) -> Vec<usize> {
        (0..MAX_STRIPE_COLUMNS)
            .filter(|&c| self.0[c / 64] >> (c % 64) & 1 == 1)
            .collect()
    }
}

/// Source of [`Code::plans_id`].
static NEXT_PLANS_ID: AtomicU64 = AtomicU64::new(0);

/// Plans each thread used last, whatever the code: (code's `plans_id`, pattern, plan). A
/// hit costs a few compares and one reference-count increment instead of a mutex and a
/// hash lookup, which at 4 KiB elements cost as much as the XOR of a raid5 decode. Four
/// slots, so a thread that alternates between a few codes or patterns still hits.
const RECENT_PLAN_SLOTS: usize = 4;

struct RecentPlans {
    slots: [Option<(u64, ErasureKey, Arc<DecodePlan>)>; RECENT_PLAN_SLOTS],
    /// The slot the next miss overwrites (round robin).
    next: usize,
}

impl RecentPlans {
    #[inline(always)]
    fn find(&self, plans_id: u64, key: ErasureKey) -> Option<&Arc<DecodePlan>> {
        self.slots
            .iter()
            .flatten()
            .find(|(id, k, _)| *id == plans_id && *k == key)
            .map(|(_, _, plan)| plan)
    }
}

thread_local! {
    static RECENT_PLANS: RefCell<RecentPlans> = const { RefCell::new(RecentPlans { slots: [const { None }; RECENT_PLAN_SLOTS], next: 0 }) };
}

impl Code {
    /// Validate the parameters and build the geometry.
    pub fn new(spec: CodeSpec) -> Result<Code, CodeError> {
        let geometry = codes::build(spec)?;
        // raid5 and raid6 have a fixed m: record it, so every spec that built is complete.
        let spec = match spec.kind {
            CodeKind::Raid5 | CodeKind::Raid6 => CodeSpec {
                m: Some(geometry.parity_count()),
                ..spec
            },
            _ => spec,
        };
        let matrix = (!spec.kind.is_array()).then(|| {
            let k = geometry.data_count();
            let mut m = vec![0u8; geometry.parity_count() * k];
            for (i, terms) in geometry.parity_terms.iter().enumerate() {
                for t in terms {
                    m[i * k + t.data] = t.coef;
                }
            }
            m
        });
        let encode_stages = if matrix.is_some() {
            Vec::new()
        } else {
            solver::encode_plan(&geometry)
        };
        Ok(Code::assemble(spec, geometry, matrix, encode_stages))
    }
    /// A code over a hand-made geometry, for experiments with new constructions and for
    /// tests that the checks catch a broken one. Nothing guarantees it is MDS: run
    /// [`Code::check_every_erasure`] on it.
    pub fn with_geometry(spec: CodeSpec, geometry: Geometry) -> Code {
        let encode_stages = solver::encode_plan(&geometry);
        Code::assemble(spec, geometry, None, encode_stages)
    }
    fn assemble(
        spec: CodeSpec,
        geometry: Geometry,
        matrix: Option<Vec<u8>>,
        encode_stages: Vec<Stage>,
    ) -> Code {
        assert!(
            geometry.cols <= MAX_STRIPE_COLUMNS,
            "{spec}: {} columns, an erasure key holds {MAX_STRIPE_COLUMNS}",
            geometry.cols
        );
        let plans_id = NEXT_PLANS_ID.fetch_add(1, Ordering::Relaxed);
        Code {
            spec,
            geometry,
            matrix,
            encode_stages,
            plans: Arc::new(Mutex::new(HashMap::new())),
            plans_id,
        }
    }
    pub fn spec(&self) -> CodeSpec {
        self.spec
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    /// A zeroed stripe of this code with `element_bytes` per element.
    pub fn new_stripe(&self, element_bytes: usize) -> Result<StripeBuf, CodeError> {
        self.check_element_bytes(element_bytes)?;
        Ok(StripeBuf::zeroed(
            self.geometry.rows,
            self.geometry.cols,
            element_bytes,
        ))
    }
    /// Element sizes the kernels accept: more than 0, at most [`MAX_ELEMENT_BYTES`], and a
    /// multiple of [`ELEMENT_ALIGN_BYTES`] (32) for the SIMD kernels.
    pub fn check_element_bytes(&self, element_bytes: usize) -> Result<(), CodeError> {
        let why = if element_bytes == 0 {
            "an element must hold at least 32 bytes".to_string()
        } else if element_bytes > MAX_ELEMENT_BYTES {
            format!(
                "elements are limited to {MAX_ELEMENT_BYTES} bytes (1 GiB); use smaller elements"
            )
        } else if !element_bytes.is_multiple_of(ELEMENT_ALIGN_BYTES) {
            let padded = element_bytes.div_ceil(ELEMENT_ALIGN_BYTES) * ELEMENT_ALIGN_BYTES;
            format!(
                "it must be a multiple of {ELEMENT_ALIGN_BYTES} bytes (the SIMD kernels work in 32-byte lanes); \
                 pad each element to {padded} bytes"
            )
        } else {
            return Ok(());
        };
        Err(CodeError::BadElementSize {
            got: element_bytes,
            why,
        })
    }
    /// Compute every parity element of the stripe from its data elements.
    pub fn encode(&self, stripe: &mut StripeBuf) -> Result<(), CodeError> {
        self.check_stripe(stripe)?;
        let g = &self.geometry;
        let e = stripe.element_bytes;
        if let Some(matrix) = &self.matrix {
            // One row: columns 0..k are data, k..k+m parity, each one element, contiguous.
            let k = g.data_count();
            let (data, parity) = stripe.bytes.split_at_mut(k * e);
            // Column lists on the stack (k + m <= 255), neither allocated nor initialised:
            // at 4 KiB elements either would cost as much as the encode itself.
            let mut inputs: StackList<&[u8], { codes::MAX_COLUMNS }> = StackList::new();
            let mut outputs: StackList<&mut [u8], { codes::MAX_COLUMNS }> = StackList::new();
            data.chunks_exact(e).for_each(|column| inputs.push(column));
            parity
                .chunks_exact_mut(e)
                .for_each(|column| outputs.push(column));
            engine::engine().gf_matrix_mul(matrix, inputs.as_slice(), outputs.as_mut_slice());
            return Ok(());
        }
        let mut elements: Vec<&mut [u8]> = stripe.bytes.chunks_exact_mut(e).collect();
        // The plan's scratch element (EVENODD's S), after the grid's elements.
        let mut scratch = if self
            .encode_stages
            .iter()
            .any(|s| s.targets.contains(&solver::AUX))
        {
            vec![0u8; e]
        } else {
            Vec::new()
        };
        if !scratch.is_empty() {
            elements.push(&mut scratch[..]);
        }
        for stage in &self.encode_stages {
            run_stage(stage, g.rows, &mut elements);
        }
        Ok(())
    }
    /// Rebuild every element of the erased columns (data and parity) from the others.
    pub fn decode(&self, stripe: &mut StripeBuf, erased_cols: &[usize]) -> Result<(), CodeError> {
        self.check_stripe(stripe)?;
        let key = self.erasure_key(erased_cols)?;
        // Hot path: the plan is one this thread used recently; run it while it is borrowed
        // from the per-thread cache, so not even a reference count changes.
        let done = RECENT_PLANS.with_borrow(|recent| match recent.find(self.plans_id, key) {
            Some(plan) if !plan.uses_aux => {
                run_plan_in_place(plan, self.geometry.rows, stripe);
                true
            }
            _ => false,
        });
        if done {
            return Ok(());
        }
        let plan = self.plan_for(key)?;
        if plan.uses_aux {
            // EVENODD's S computed once into a scratch element after the grid's elements
            // (as encode does); the in-place path has nowhere to put it.
            let e = stripe.element_bytes;
            let mut scratch = vec![0u8; e];
            let mut elements: Vec<&mut [u8]> = stripe.bytes.chunks_exact_mut(e).collect();
            elements.push(&mut scratch[..]);
            for stage in &plan.stages {
                run_stage(stage, self.geometry.rows, &mut elements);
            }
        } else {
            run_plan_in_place(&plan, self.geometry.rows, stripe);
        }
        Ok(())
    }
    /// The recipe [`Code::decode`] follows for this erasure pattern (cached): which
    /// surviving elements rebuild which lost ones. Degraded-read planners can count the
    /// elements a rebuild reads from its `sources`. `erased_cols` may be in any order and
    /// repeat a column.
    pub fn decode_plan(&self, erased_cols: &[usize]) -> Result<Arc<DecodePlan>, CodeError> {
        self.plan_for(self.erasure_key(erased_cols)?)
    }
    /// Check an erasure pattern and make its key: every column exists, and no more columns
    /// than the code tolerates.
    // Inlined into decode so the key stays in registers: returned through memory it is
    // written 8 bytes at a time and read back 16 at a time, a store-forwarding stall.
    #[inline(always)]
    fn erasure_key(&self, erased_cols: &[usize]) -> Result<ErasureKey, CodeError> {
        let g = &self.geometry;
        if let Some(col) = erased_cols.iter().copied().filter(|&c| c >= g.cols).min() {
            return Err(CodeError::BadColumn { col, cols: g.cols });
        }
        let mut key = ErasureKey::default();
        let erased = erased_cols.iter().filter(|&&c| key.insert(c)).count();
        if erased > g.fault_tolerance {
            return Err(CodeError::TooManyErasures {
                code: self.spec.to_string(),
                erased,
                tolerance: g.fault_tolerance,
            });
        }
        Ok(key)
    }
    /// The plan for a checked pattern: this thread's recent plans, then the code's shared
    /// cache, then the solver.
    fn plan_for(&self, key: ErasureKey) -> Result<Arc<DecodePlan>, CodeError> {
        let recent = RECENT_PLANS.with_borrow(|recent| recent.find(self.plans_id, key).cloned());
        if let Some(plan) = recent {
            return Ok(plan);
        }
        let plan = {
            let mut plans = self
                .plans
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match plans.get(&key) {
                Some(plan) => plan.clone(),
                None => {
                    let plan = Arc::new(DecodePlan::build(&self.geometry, &key.columns())?);
                    if plans.len() >= MAX_CACHED_PLANS {
                        plans.clear();
                    }
                    plans.insert(key, plan.clone());
                    plan
                }
            }
        };
        RECENT_PLANS.with_borrow_mut(|recent| {
            let slot = recent.next;
            recent.slots[slot] = Some((self.plans_id, key, plan.clone()));
            recent.next = (slot + 1) % RECENT_PLAN_SLOTS;
        });
        Ok(plan)
    }
    /// Replace data element `data` with `new_bytes`, updating only the parities it is in
    /// (old parity ^ coef * (old data ^ new data)).
    pub fn update(
        &self,
        stripe: &mut StripeBuf,
        data: usize,
        new_bytes: &[u8],
    ) -> Result<(), CodeError> {
        self.check_stripe(stripe)?;
        let g = &self.geometry;
        if data >= g.data_count() {
            return Err(CodeError::BadDataIndex {
                index: data,
                count: g.data_count(),
            });
        }
        if new_bytes.len() != stripe.element_bytes {
            return Err(CodeError::BadElementSize {
                got: new_bytes.len(),
                why: format!(
                    "the new data must be exactly one element of this stripe ({} bytes)",
                    stripe.element_bytes
                ),
            });
        }
        let pos = g.data_pos[data];
        let mut delta = stripe.element(pos).to_vec();
        engine::engine().xor_into(&mut delta, new_bytes);
        for &p in &g.data_parities[data] {
            let coef = self
                .coef(p, data)
                .expect("data_parities is the inverse of parity_terms");
            engine::engine().gf_mul_xor(coef, &delta, stripe.element_mut(g.parity_pos[p]));
        }
        stripe.element_mut(pos).copy_from_slice(new_bytes);
        Ok(())
    }
    /// The parity delta alone, for executors that hold only the parity element:
    /// `parity ^= coef(parity, data) * delta` where `delta = old data ^ new data`.
    pub fn apply_delta(
        &self,
        parity: usize,
        data: usize,
        delta: &[u8],
        parity_bytes: &mut [u8],
    ) -> Result<(), CodeError> {
        let g = &self.geometry;
        if data >= g.data_count() {
            return Err(CodeError::BadDataIndex {
                index: data,
                count: g.data_count(),
            });
        }
        if parity >= g.parity_count() {
            return Err(CodeError::BadParameters(format!(
                "parity index {parity} does not exist: {} has parities 0..{}",
                self.spec,
                g.parity_count()
            )));
        }
        self.check_element_bytes(delta.len())?;
        if parity_bytes.len() != delta.len() {
            return Err(CodeError::BadElementSize {
                got: parity_bytes.len(),
                why: format!(
                    "the parity element must be as long as the delta ({} bytes)",
                    delta.len()
                ),
            });
        }
        let Some(coef) = self.coef(parity, data) else {
            return Err(CodeError::BadParameters(format!(
                "data element {data} is not in parity {parity} of {}: only the parities in geometry().data_parities[{data}] change",
                self.spec
            )));
        };
        engine::engine().gf_mul_xor(coef, delta, parity_bytes);
        Ok(())
    }
    /// The parity indices whose stored value does not match the data (empty = consistent).
    pub fn verify(&self, stripe: &StripeBuf) -> Result<Vec<usize>, CodeError> {
        self.check_stripe(stripe)?;
        let g = &self.geometry;
        let mut expect = vec![0u8; stripe.element_bytes];
        let mut bad = Vec::new();
        for (p, terms) in g.parity_terms.iter().enumerate() {
            let srcs: Vec<&[u8]> = terms
                .iter()
                .map(|t| stripe.element(g.data_pos[t.data]))
                .collect();
            combine(terms.iter().map(|t| t.coef), &srcs, &mut expect);
            if expect != stripe.element(g.parity_pos[p]) {
                bad.push(p);
            }
        }
        Ok(bad)
    }

    /// The coefficient of data element `data` in parity `parity`, if it is a term.
    pub fn coef(&self, parity: usize, data: usize) -> Option<u8> {
        let terms = &self.geometry.parity_terms[parity];
        terms
            .binary_search_by_key(&data, |t| t.data)
            .ok()
            .map(|i| terms[i].coef)
    }

    fn check_stripe(&self, stripe: &StripeBuf) -> Result<(), CodeError> {
        let g = &self.geometry;
        if stripe.rows != g.rows || stripe.cols != g.cols {
            return Err(CodeError::BadParameters(format!(
                "the stripe is {} rows x {} columns but {} needs {} x {}; build it with Code::new_stripe",
                stripe.rows, stripe.cols, self.spec, g.rows, g.cols
            )));
        }
        self.check_element_bytes(stripe.element_bytes)?;
        let want = g.rows * g.cols * stripe.element_bytes;
        if stripe.bytes.len() != want {
            return Err(CodeError::BadStripeLength {
                got: stripe.bytes.len(),
                want,
            });
        }
        Ok(())
    }
}

/// What [`Code::check_every_erasure`] found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErasureCheck {
    /// Erasure patterns tried: every non-empty set of at most `fault_tolerance` columns.
    pub patterns: usize,
    /// The patterns that did not decode back to the original bytes.
    pub failed: Vec<Vec<usize>>,
}

impl ErasureCheck {
    pub fn ok(&self) -> bool {
        self.failed.is_empty()
    }
}

impl Code {
    /// The exhaustive decode check: fill a stripe with pseudo-random data (seeded), encode
    /// it, then for every non-empty pattern of at most `fault_tolerance` erased columns
    /// overwrite those columns with garbage, decode, and compare with the original.
    pub fn check_every_erasure(
        &self,
        element_bytes: usize,
        seed: u64,
    ) -> Result<ErasureCheck, CodeError> {
        let g = &self.geometry;
        let mut original = self.new_stripe(element_bytes)?;
        let mut state = seed;
        for &pos in &g.data_pos {
            for b in original.element_mut(pos) {
                *b = splitmix64(&mut state) as u8;
            }
        }
        self.encode(&mut original)?;
        let mut failed = Vec::new();
        if !self.verify(&original)?.is_empty() {
            failed.push(Vec::new());
        }
        let mut patterns = 0;
        let mut stripe = original.clone();
        for_each_subset(g.cols, g.fault_tolerance, &mut |cols| {
            patterns += 1;
            stripe.bytes.copy_from_slice(&original.bytes);
            for &c in cols {
                stripe.column_mut(c).fill(0xa5);
            }
            let ok = self.decode(&mut stripe, cols).is_ok() && stripe.bytes == original.bytes;
            if !ok {
                failed.push(cols.to_vec());
            }
        });
        Ok(ErasureCheck { patterns, failed })
    }
}

/// Call `f` with every non-empty subset of 0..n of size at most `max`, each sorted.
fn for_each_subset(n: usize, max: usize, f: &mut dyn FnMut(&[usize])) {
    fn extend(
        n: usize,
        max: usize,
        start: usize,
        current: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]),
    ) {
        for c in start..n {
            current.push(c);
            f(current);
            if current.len() < max {
                extend(n, max, c + 1, current, f);
            }
            current.pop();
        }
    }
    extend(n, max, 0, &mut Vec::with_capacity(max), f);
}

/// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): a tiny seeded generator, so the check
/// needs no random-number crate.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Index of a position's element in a column-major stripe; the encode plan's scratch
/// element [`solver::AUX`] is pushed after the grid, at index rows * cols.
fn slot(rows: usize, pos: Pos, element_count: usize) -> usize {
    if pos == solver::AUX {
        return element_count - 1;
    }
    let at = pos.col * rows + pos.row;
    assert!(at < element_count, "position {pos:?} outside the stripe");
    at
}

/// `out = sum coef_i * srcs_i`: plain XOR when every coefficient is 1.
fn combine(coefs: impl Iterator<Item = u8> + Clone, srcs: &[&[u8]], out: &mut [u8]) {
    if srcs.is_empty() {
        out.fill(0);
    } else if coefs.clone().all(|c| c == 1) {
        engine::engine().xor_many(srcs, out);
    } else {
        let row: Vec<u8> = coefs.collect();
        engine::engine().gf_matrix_mul(&row, srcs, &mut [out]);
    }
}

/// A list of at most N items on the stack that costs nothing to create: the slots stay
/// uninitialised until pushed. Only for items without a destructor (slices here).
struct StackList<T, const N: usize> {
    items: [std::mem::MaybeUninit<T>; N],
    len: usize,
}

impl<T, const N: usize> StackList<T, N> {
    fn new() -> Self {
        const {
            assert!(
                !std::mem::needs_drop::<T>(),
                "StackList never drops its items"
            )
        };
        StackList {
            items: [const { std::mem::MaybeUninit::uninit() }; N],
            len: 0,
        }
    }
    fn push(&mut self, item: T) {
        assert!(self.len < N, "StackList holds at most {N} items");
        self.items[self.len].write(item);
        self.len += 1;
    }
    fn as_slice(&self) -> &[T] {
        // SAFETY: items[..len] were written by push; MaybeUninit<T> has T's layout.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }
    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in as_slice, and &mut self makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }
}

/// Sources a single-target XOR stage may have and still run without a heap allocation
/// (array codes up to p = 31 stay within it; wider ones take the general path).
const STACK_SOURCES: usize = 64;

/// Run a plan without a scratch element on the stripe's bytes.
fn run_plan_in_place(plan: &DecodePlan, rows: usize, stripe: &mut StripeBuf) {
    assert!(
        !plan.uses_aux,
        "plans with a scratch element run over an element list"
    );
    for stage in &plan.stages {
        run_stage_in_place(stage, rows, stripe.element_bytes, &mut stripe.bytes);
    }
}

/// Execute one decode stage directly on a column-major stripe's bytes, without a list of
/// every element's slice: the decode hot path (raid5/raid6 at 4 KiB elements) spends as
/// long building such a list as XORing. Targets are carved out of the buffer with
/// `split_at_mut`, the gaps between them hold the sources; source and target lists live
/// on the stack. Stages this cannot carve (targets out of slot order, more than
/// [`MAX_STRIPE_COLUMNS`] targets or sources) take the general path over an element list.
fn run_stage_in_place(stage: &Stage, rows: usize, element_bytes: usize, bytes: &mut [u8]) {
    // Only plans without AUX come here (run_plan_in_place asserts it once per plan).
    debug_assert!(!stage.targets.contains(&solver::AUX) && !stage.sources.contains(&solver::AUX));
    let e = element_bytes;
    let count = bytes.len() / e;
    if stage.sources.is_empty() {
        // Empty cells of erased columns (or a parity over nothing): zeros.
        for &pos in &stage.targets {
            let t = slot(rows, pos, count);
            bytes[t * e..(t + 1) * e].fill(0);
        }
        return;
    }
    // Hot path of every XOR code: one target, XOR of a few sources.
    if stage.targets.len() == 1 && stage.sources.len() <= STACK_SOURCES && stage.is_xor() {
        let t = slot(rows, stage.targets[0], count);
        let (before, rest) = bytes.split_at_mut(t * e);
        let (out, after) = rest.split_at_mut(e);
        let mut srcs: StackList<&[u8], STACK_SOURCES> = StackList::new();
        for (&pos, &coef) in stage.sources.iter().zip(&stage.coefs) {
            let s = slot(rows, pos, count);
            assert!(s != t, "a stage never reads what it writes");
            if coef == 1 {
                srcs.push(if s < t {
                    &before[s * e..(s + 1) * e]
                } else {
                    &after[(s - t - 1) * e..(s - t) * e]
                });
            }
        }
        if srcs.as_slice().is_empty() {
            out.fill(0);
        } else {
            engine::engine().xor_many(srcs.as_slice(), out);
        }
        return;
    }
    // Several targets (raid6 and rs: the lost data columns in one matrix multiply, the lost
    // parity columns in another). They come in column order for the horizontal codes.
    let mut target_slots: StackList<usize, MAX_STRIPE_COLUMNS> = StackList::new();
    let carvable =
        stage.targets.len() <= MAX_STRIPE_COLUMNS && stage.sources.len() <= MAX_STRIPE_COLUMNS && {
            stage
                .targets
                .iter()
                .for_each(|&pos| target_slots.push(slot(rows, pos, count)));
            target_slots.as_slice().windows(2).all(|w| w[0] < w[1])
        };
    if !carvable {
        let mut elements: Vec<&mut [u8]> = bytes.chunks_exact_mut(e).collect();
        run_stage(stage, rows, &mut elements);
        return;
    }
    let targets = target_slots.as_slice();
    // gaps[i]: the elements between target i-1 and target i (the last gap runs to the end).
    let mut outs: StackList<&mut [u8], MAX_STRIPE_COLUMNS> = StackList::new();
    let mut gaps: StackList<&[u8], { MAX_STRIPE_COLUMNS + 1 }> = StackList::new();
    let mut rest: &mut [u8] = bytes;
    let mut start = 0;
    for &t in targets {
        let (gap, tail) = rest.split_at_mut((t - start) * e);
        let (out, tail) = tail.split_at_mut(e);
        gaps.push(gap);
        outs.push(out);
        rest = tail;
        start = t + 1;
    }
    gaps.push(rest);
    let mut ins: StackList<&[u8], MAX_STRIPE_COLUMNS> = StackList::new();
    for &pos in &stage.sources {
        let s = slot(rows, pos, count);
        let g = targets.partition_point(|&t| t < s);
        assert!(
            g == targets.len() || targets[g] != s,
            "a stage never reads what it writes"
        );
        let gap_start = if g == 0 { 0 } else { targets[g - 1] + 1 };
        ins.push(&gaps.as_slice()[g][(s - gap_start) * e..(s - gap_start + 1) * e]);
    }
    let n = ins.as_slice().len();
    if stage.is_xor() {
        for (t, out) in outs.as_mut_slice().iter_mut().enumerate() {
            let row = &stage.coefs[t * n..(t + 1) * n];
            let mut srcs: StackList<&[u8], MAX_STRIPE_COLUMNS> = StackList::new();
            ins.as_slice()
                .iter()
                .zip(row)
                .filter(|&(_, &c)| c == 1)
                .for_each(|(s, _)| srcs.push(s));
            combine(
                std::iter::repeat_n(1, srcs.as_slice().len()),
                srcs.as_slice(),
                out,
            );
        }
    } else {
        engine::engine().gf_matrix_mul(&stage.coefs, ins.as_slice(), outs.as_mut_slice());
    }
}

/// Execute one stage on the stripe's elements (indexed column-major).
fn run_stage(stage: &Stage, rows: usize, elements: &mut [&mut [u8]]) {
    // Hot path of every array code: one target, XOR of a few sources. Per-call allocations
    // cost about as much as XORing a 4 KiB stripe, so the sources go in a stack array.
    if stage.targets.len() == 1
        && !stage.sources.is_empty()
        && stage.sources.len() <= STACK_SOURCES
        && stage.is_xor()
    {
        let target = slot(rows, stage.targets[0], elements.len());
        let out = std::mem::take(&mut elements[target]);
        {
            let mut srcs: StackList<&[u8], STACK_SOURCES> = StackList::new();
            for (&pos, &coef) in stage.sources.iter().zip(&stage.coefs) {
                let s = slot(rows, pos, elements.len());
                assert!(s != target, "a stage never reads what it writes");
                if coef == 1 {
                    srcs.push(&*elements[s]);
                }
            }
            if srcs.as_slice().is_empty() {
                out.fill(0);
            } else {
                engine::engine().xor_many(srcs.as_slice(), out);
            }
        }
        elements[target] = out;
        return;
    }
    let targets: Vec<usize> = stage
        .targets
        .iter()
        .map(|&p| slot(rows, p, elements.len()))
        .collect();
    let sources: Vec<usize> = stage
        .sources
        .iter()
        .map(|&p| slot(rows, p, elements.len()))
        .collect();
    assert!(
        sources.iter().all(|s| !targets.contains(s)),
        "a stage never reads what it writes"
    );
    // Move the targets out so the sources can be borrowed shared beside them.
    let mut outs: Vec<&mut [u8]> = targets
        .iter()
        .map(|&t| std::mem::take(&mut elements[t]))
        .collect();
    {
        let ins: Vec<&[u8]> = sources.iter().map(|&s| &*elements[s]).collect();
        let n = ins.len();
        if n == 0 {
            outs.iter_mut().for_each(|o| o.fill(0));
        } else if stage.is_xor() {
            for (t, out) in outs.iter_mut().enumerate() {
                let row = &stage.coefs[t * n..(t + 1) * n];
                let srcs: Vec<&[u8]> = ins
                    .iter()
                    .zip(row)
                    .filter(|&(_, &c)| c == 1)
                    .map(|(s, _)| *s)
                    .collect();
                combine(std::iter::repeat_n(1, srcs.len()), &srcs, out);
            }
        } else {
            engine::engine().gf_matrix_mul(&stage.coefs, &ins, &mut outs);
        }
    }
    for (t, out) in targets.into_iter().zip(outs) {
        elements[t] = out;
    }
}
