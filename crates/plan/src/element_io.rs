//! Element accesses of reads and partial-stripe writes on one stripe of any code.
//!
//! This module answers one question for every code exaraid knows, without special-casing
//! any of them: *to read or write a run of `len` continuous data elements starting at data
//! address `start`, which elements of which columns (devices) are read and which are
//! written?* It works only on the code's [`Geometry`] (data order, parity positions and
//! parity equations expanded to data), so a new code needs no change here.
//!
//! # Addresses and wrapping
//!
//! A *data address* is a data element's index in the code's own data order (the order in
//! which consecutive file bytes fill a stripe, see `exaraid_codes::geometry`), continued over
//! an unbounded sequence of identical stripes: address `a` is data element `a % n` of stripe
//! `a / n`, with `n` data elements per stripe. A run that reaches the end of a stripe
//! therefore *continues into the next stripe*, on the same columns (no rotation: rotating
//! columns between stripes is the layout's job, and the D-Code paper evaluates the codes
//! without it -- section I says rotation "cannot balance the I/O accesses on the same
//! stripe"). Each stripe has its own parities, so two elements in different stripes never
//! share a parity element.
//!
//! Why continue rather than stop or wrap inside the stripe: the paper's runs are up to 20
//! elements long and may start at any element, while a 5-disk D-Code stripe holds only 15
//! data elements, so a run must go somewhere after the stripe's last element. A file's next
//! bytes live in the next stripe, so that is where the run goes. Wrapping back to data
//! element 0 of the *same* stripe would make one write touch some elements twice and
//! share parities that a real file never shares.
//!
//! # Read
//!
//! A read of a run reads each of its `len` data elements once (one access on the element's
//! column) and nothing else: in normal mode "reads don't bring any extra disk accesses"
//! (seed 002, section IV-C).
//!
//! # Partial-stripe write: read-modify-write
//!
//! A write of a run is planned as a read-modify-write, the update path of every parity code
//! (new parity = old parity ^ coef * (old data ^ new data)):
//!
//! 1. read the old value of each of the `len` data elements;
//! 2. read the old value of each parity element that contains at least one of them
//!    (`Geometry::data_parities`, parities expanded to data, so RDP's diagonal over the
//!    row parity and EVENODD's adjuster are included exactly when they change);
//! 3. write the `len` new data elements;
//! 4. write each of those parity elements.
//!
//! Each parity element is read once and written once *per operation*, however many of the
//! written data elements it covers: the deltas are combined in memory before the parity is
//! written back. So a write of `len` elements costs `2 * len + 2 * |parities touched|`
//! element accesses. On a RAID-5-like stripe a one-element write costs 2 data accesses plus
//! 2 for its parity (the classic "small write costs 4 I/Os"); on a RAID-6 code it costs 2
//! plus 2 per parity the element is in.
//!
//! This is the model the D-Code paper used, as far as its text says:
//! - it defines the I/O cost as "the total amount of elements that need to be read/written"
//!   (section I), and Figure 1 marks "the data elements that need to be read/written" and
//!   "the elements that need to be extra read/written" -- data elements and parity elements
//!   are both read and written;
//! - its whole argument for D-Code's lower cost is that "continuous data elements (that need
//!   to be written) usually share the common horizontal parities" (section II-A), which
//!   lowers the cost only if a shared parity is accessed once per operation, not once per
//!   data element;
//! - "in order to update each data element, D-Code just needs to update exactly two
//!   additional parity elements" (section III-D): the update touches the parities the data
//!   element is in, not the whole stripe.
//!
//! The paper's figures are closer to a count of each touched element once per operation
//! (a write's data and parity elements counted once, not read + write); the load evaluation
//! offers that count as `loads::CostModel::ElementsTouched`, derived from these same
//! accesses, and docs/results/dcode-loads.md compares the two.
//!
//! The paper does not say whether a write covering a whole stripe switches to a full-stripe
//! (reconstruct) write; this module always plans read-modify-write, which is what the
//! brief of the evaluation (and the paper's silence) suggests. Planners that want a
//! full-stripe or reconstruct write can build it from the same geometry.
//!
//! Order of the returned accesses: all reads first (data in run order, then parities by
//! (stripe, parity index)), then all writes in the same order -- the dependency order of
//! a read-modify-write.

use exaraid_codes::{Geometry, Pos};
use serde::Serialize;
use std::collections::BTreeSet;

/// Longest run one call accepts, in data elements. Far above any single request (the
/// paper's runs are at most 20 elements); it bounds the memory of one plan.
pub const RUN_ELEMENTS_MAX: u64 = 1 << 20;

/// Direction of one element access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IoKind {
    Read,
    Write,
}

/// Which element of a stripe: a data index or a parity index of the code's geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ElementRef {
    Data(usize),
    Parity(usize),
}

/// One element read or written on one column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ElementAccess {
    /// Absolute stripe index (`data address / data elements per stripe`).
    pub stripe: u64,
    pub element: ElementRef,
    /// Position in the stripe grid; `pos.col` is the device that serves the access.
    pub pos: Pos,
    pub kind: IoKind,
}

/// What is wrong with a requested run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("a run of 0 data elements does nothing: the length must be at least 1")]
    EmptyRun,
    #[error("a run of {len} data elements is longer than the limit of {max}: split the request")]
    RunTooLong { len: u64, max: u64 },
    #[error("the code's geometry has no data elements: nothing can be read or written")]
    NoData,
    #[error("data address {start} + length {len} overflows the address space")]
    AddressOverflow { start: u64, len: u64 },
}

/// The (stripe, data index) of each data element of the run, in run order.
fn run_elements(geometry: &Geometry, start: u64, len: u64) -> Result<Vec<(u64, usize)>, RunError> {
    let data_per_stripe = geometry.data_count() as u64;
    if data_per_stripe == 0 {
        return Err(RunError::NoData);
    }
    if len == 0 {
        return Err(RunError::EmptyRun);
    }
    if len > RUN_ELEMENTS_MAX {
        return Err(RunError::RunTooLong {
            len,
            max: RUN_ELEMENTS_MAX,
        });
    }
    start
        .checked_add(len)
        .ok_or(RunError::AddressOverflow { start, len })?;
    let elements: Vec<(u64, usize)> = (start..start + len)
        .map(|address| {
            (
                address / data_per_stripe,
                (address % data_per_stripe) as usize,
            )
        })
        .collect();
    assert_eq!(elements.len() as u64, len);
    Ok(elements)
}

fn data_access(geometry: &Geometry, stripe: u64, data: usize, kind: IoKind) -> ElementAccess {
    ElementAccess {
        stripe,
        element: ElementRef::Data(data),
        pos: geometry.data_pos[data],
        kind,
    }
}

fn parity_access(geometry: &Geometry, stripe: u64, parity: usize, kind: IoKind) -> ElementAccess {
    ElementAccess {
        stripe,
        element: ElementRef::Parity(parity),
        pos: geometry.parity_pos[parity],
        kind,
    }
}

/// The accesses of a normal-mode read of `len` data elements from data address `start`:
/// one read per data element, no parity.
pub fn read_run(geometry: &Geometry, start: u64, len: u64) -> Result<Vec<ElementAccess>, RunError> {
    let elements = run_elements(geometry, start, len)?;
    Ok(read_elements(geometry, &elements))
}

/// The accesses of a normal-mode read of any list of (stripe, data index) elements, in the
/// given order. Panics on a data index outside the geometry (a caller bug).
pub fn read_elements(geometry: &Geometry, elements: &[(u64, usize)]) -> Vec<ElementAccess> {
    elements
        .iter()
        .map(|&(stripe, data)| data_access(geometry, stripe, data, IoKind::Read))
        .collect()
}

/// The parity elements (stripe, parity index) a write of these data elements must update,
/// each once, sorted.
pub fn touched_parities(geometry: &Geometry, elements: &[(u64, usize)]) -> BTreeSet<(u64, usize)> {
    let mut parities = BTreeSet::new();
    for &(stripe, data) in elements {
        assert!(
            data < geometry.data_count(),
            "data index {data} outside 0..{}",
            geometry.data_count()
        );
        for &parity in &geometry.data_parities[data] {
            parities.insert((stripe, parity));
        }
    }
    parities
}

/// The accesses of a read-modify-write of `len` data elements from data address `start`
/// (see the module docs for the model): reads of the old data and of every parity touched,
/// then writes of the new data and of those parities. Each parity appears once as a read
/// and once as a write.
pub fn write_run(
    geometry: &Geometry,
    start: u64,
    len: u64,
) -> Result<Vec<ElementAccess>, RunError> {
    let elements = run_elements(geometry, start, len)?;
    Ok(write_elements(geometry, &elements))
}

/// The read-modify-write accesses for any list of (stripe, data index) elements -- not only
/// a continuous run: old data and every touched parity read, then new data and those
/// parities written, each parity once. Data accesses keep the given order; list each
/// element once. Panics on a data index outside the geometry (a caller bug).
pub fn write_elements(geometry: &Geometry, elements: &[(u64, usize)]) -> Vec<ElementAccess> {
    let parities = touched_parities(geometry, elements);
    let mut accesses = Vec::with_capacity(2 * (elements.len() + parities.len()));
    for kind in [IoKind::Read, IoKind::Write] {
        accesses.extend(
            elements
                .iter()
                .map(|&(stripe, data)| data_access(geometry, stripe, data, kind)),
        );
        accesses.extend(
            parities
                .iter()
                .map(|&(stripe, parity)| parity_access(geometry, stripe, parity, kind)),
        );
    }
    assert_eq!(accesses.len(), 2 * (elements.len() + parities.len()));
    accesses
}

/// Number of accesses per column (device), reads and writes together: the `L(i)` of one
/// operation in the D-Code paper's terms.
pub fn accesses_per_column(cols: usize, accesses: &[ElementAccess]) -> Vec<u64> {
    let mut per_column = vec![0u64; cols];
    for access in accesses {
        assert!(
            access.pos.col < cols,
            "access on column {} outside 0..{cols}",
            access.pos.col
        );
        per_column[access.pos.col] += 1;
    }
    per_column
}
