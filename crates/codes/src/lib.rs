//! exaraid's erasure codes.
//!
//! One API for every code (see [`Geometry`]): a stripe is a grid of equal-size elements,
//! one column per device; each element is data or parity; each parity is a GF(2^8)
//! combination of data elements. On top of the geometry every code offers
//! [`Code::encode`], [`Code::decode`], [`Code::update`] and [`Code::verify`] on real bytes.
//!
//! Two types make the public API (as in reed-solomon-simd): [`CodeSpec`] says which code,
//! [`Code`] is a built instance. Byte kernels sit behind an engine chosen at run time.

pub mod engine;
pub mod geometry;
pub mod gf256;

pub use geometry::{Cell, Geometry, Pos, Term};

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
        CodeSpec { kind: CodeKind::Raid5, k: Some(k), m: Some(1), p: None }
    }
    pub fn raid6(k: usize) -> CodeSpec {
        CodeSpec { kind: CodeKind::Raid6, k: Some(k), m: Some(2), p: None }
    }
    pub fn rs(k: usize, m: usize) -> CodeSpec {
        CodeSpec { kind: CodeKind::Rs, k: Some(k), m: Some(m), p: None }
    }
    pub fn array(kind: CodeKind, p: usize) -> CodeSpec {
        CodeSpec { kind, k: None, m: None, p: Some(p) }
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
    TooManyErasures { code: String, erased: usize, tolerance: usize },
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
        StripeBuf { rows, cols, element_bytes, bytes: vec![0; rows * cols * element_bytes] }
    }
    fn offset(&self, pos: Pos) -> usize {
        assert!(pos.row < self.rows && pos.col < self.cols, "position {pos:?} outside stripe");
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

/// A built code instance: its geometry plus the byte kernels.
#[derive(Clone, Debug)]
pub struct Code {
    spec: CodeSpec,
    geometry: Geometry,
}

impl Code {
    /// Validate the parameters and build the geometry.
    pub fn new(spec: CodeSpec) -> Result<Code, CodeError> {
        let _ = spec;
        todo!("codes: per-code geometry builders")
    }
    pub fn spec(&self) -> CodeSpec {
        self.spec
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    /// Element sizes the kernels accept (e.g. multiples of 32 bytes for the SIMD kernels).
    pub fn check_element_bytes(&self, element_bytes: usize) -> Result<(), CodeError> {
        let _ = element_bytes;
        todo!()
    }
    /// Compute every parity element of the stripe from its data elements.
    pub fn encode(&self, stripe: &mut StripeBuf) -> Result<(), CodeError> {
        let _ = stripe;
        todo!()
    }
    /// Rebuild every element of the erased columns (data and parity) from the others.
    pub fn decode(&self, stripe: &mut StripeBuf, erased_cols: &[usize]) -> Result<(), CodeError> {
        let _ = (stripe, erased_cols);
        todo!()
    }
    /// Replace data element `data` with `new_bytes`, updating only the parities it is in
    /// (old parity ^ coef * (old data ^ new data)).
    pub fn update(&self, stripe: &mut StripeBuf, data: usize, new_bytes: &[u8]) -> Result<(), CodeError> {
        let _ = (stripe, data, new_bytes);
        todo!()
    }
    /// The parity delta alone, for executors that hold only the parity element:
    /// `parity ^= coef(parity, data) * delta` where `delta = old data ^ new data`.
    pub fn apply_delta(&self, parity: usize, data: usize, delta: &[u8], parity_bytes: &mut [u8]) -> Result<(), CodeError> {
        let _ = (parity, data, delta, parity_bytes);
        todo!()
    }
    /// The parity indices whose stored value does not match the data (empty = consistent).
    pub fn verify(&self, stripe: &StripeBuf) -> Result<Vec<usize>, CodeError> {
        let _ = stripe;
        todo!()
    }
}
