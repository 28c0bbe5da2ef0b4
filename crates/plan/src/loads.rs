//! The D-Code paper's I/O-load evaluation (seed 002, section IV): per-disk access counts
//! `L(i)`, the load-balancing factor `LF = Lmax / Lmin` and the I/O cost `sum L(i)`.
//!
//! A workload is a list of operations `<S, L, T>`: read or write `L` continuous data
//! elements starting at data address `S`, `T` times. Each operation's element accesses come
//! from [`crate::element_io`] (reads touch only data; writes are read-modify-writes that
//! read and write each touched parity once per operation); its per-column counts are
//! multiplied by `T` and summed over the workload. [`CostModel`] says whether a write's
//! elements count as device I/Os (read + write, the default) or once per element touched.
//!
//! # The paper's workloads
//!
//! "For each workload, we randomly generate 2000 different 3-tuple <S, L, T> ..., where S
//! may be an arbitrary element of the stripe, the range of L is 1 to 20 data elements ...,
//! while the range of T is 1 to 1000" (section IV-A). Read-only has only reads;
//! read-intensive has reads and writes in the ratio 7 : 3; mixed in the ratio 1 : 1.
//! [`generate`] reproduces that:
//! - S is uniform over the stripe's data elements (the only elements an operation can
//!   start at), L uniform in 1..=20, T uniform in 1..=1000, all independent;
//! - the read/write ratio is exact (600 writes of 2000 for 7 : 3, 1000 for 1 : 1), spread
//!   evenly over the list (order does not change the counts);
//! - each workload draws from its own ChaCha8 stream of the seed, and every tuple consumes
//!   the same random numbers whatever the code, so all codes see the same L, T and
//!   operation types and S at the same *relative* place in their stripe (S = a 64-bit
//!   random number modulo the code's data elements per stripe; the modulo bias is below
//!   2^-56). Tuples are independent draws; the paper's "different" is not enforced (a
//!   repeat among 2000 draws of 1 of ~10^6 tuples is rare and changes nothing measurable).
//!
//! # Infinite LF
//!
//! A disk with no access at all under a workload (a dedicated parity disk of RDP, EVENODD
//! or H-Code under the read-only workload) makes `Lmin = 0` and `LF` infinite. The paper
//! keeps it infinite and draws it at 30 in Figure 4 ("we use '30' to represent the
//! infinity"). Here [`DiskLoads::lf`] returns `None` for infinity; JSON writes `null`,
//! tables print `inf`, and the figures draw it at [`LF_INFINITY_PLOTTED_AS`] as the paper did.
//!
//! # Traces
//!
//! [`parse_trace`] reads the same operations from CSV text with the header
//! `op,start,length,times` so one workload can be replayed on every code. `start` is a data
//! address (see [`crate::element_io`]): values past the stripe's data elements address
//! the following stripes, so any trace is valid for every code.

use crate::element_io::{self, ElementAccess, IoKind, RunError};
use exaraid_codes::Geometry;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// The paper's number of tuples per workload.
pub const PAPER_TUPLES: usize = 2000;
/// The paper's longest run, in data elements ("the range of L is 1 to 20").
pub const PAPER_LENGTH_MAX: u64 = 20;
/// The paper's most repetitions of one tuple ("the range of T is 1 to 1000").
pub const PAPER_TIMES_MAX: u64 = 1000;
/// Where Figure 4 draws an infinite LF: "we use '30' to represent the infinity".
pub const LF_INFINITY_PLOTTED_AS: f64 = 30.0;

/// Limits on generated workloads and traces: they bound run time and keep every counter far
/// from overflow (checked anyway).
pub const TUPLES_MAX: usize = 10_000_000;
pub const LENGTH_MAX: u64 = 65_536;
pub const TIMES_MAX: u64 = 1_000_000_000;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

/// One operation `<S, L, T>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Tuple {
    pub op: Op,
    /// S: first data address.
    pub start: u64,
    /// L: continuous data elements.
    pub length: u64,
    /// T: repetitions.
    pub times: u64,
}

/// The paper's three workloads, plus a replayed trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Workload {
    ReadOnly,
    ReadIntensive,
    Mixed,
    Trace,
}

impl Workload {
    pub const PAPER: [Workload; 3] = [Workload::ReadOnly, Workload::ReadIntensive, Workload::Mixed];

    /// The name in every output (`workload` key of the JSON).
    pub fn name(self) -> &'static str {
        match self {
            Workload::ReadOnly => "read-only",
            Workload::ReadIntensive => "read-intensive",
            Workload::Mixed => "mixed",
            Workload::Trace => "trace",
        }
    }

    /// Writes per 10 operations (7 : 3 -> 3, 1 : 1 -> 5); `None` for a trace.
    fn writes_per_ten(self) -> Option<usize> {
        match self {
            Workload::ReadOnly => Some(0),
            Workload::ReadIntensive => Some(3),
            Workload::Mixed => Some(5),
            Workload::Trace => None,
        }
    }

    /// Each workload's own random stream, so adding one never changes another.
    fn stream(self) -> u64 {
        match self {
            Workload::ReadOnly => 1,
            Workload::ReadIntensive => 2,
            Workload::Mixed => 3,
            Workload::Trace => 4,
        }
    }
}

/// Shape of a generated workload (the paper's values by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkloadShape {
    pub tuples: usize,
    pub length_max: u64,
    pub times_max: u64,
}

impl Default for WorkloadShape {
    fn default() -> Self {
        WorkloadShape {
            tuples: PAPER_TUPLES,
            length_max: PAPER_LENGTH_MAX,
            times_max: PAPER_TIMES_MAX,
        }
    }
}

/// Everything that can go wrong in the evaluation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadsError {
    #[error(
        "a trace is not generated: read it with parse_trace (exaraid codes loads --trace FILE)"
    )]
    TraceNotGenerated,
    #[error("{what} = {got} is out of range: it must be in {min}..={max}")]
    OutOfRange {
        what: &'static str,
        got: u64,
        min: u64,
        max: u64,
    },
    #[error("the code has no data elements")]
    NoData,
    #[error("the workload has no operations: nothing to evaluate")]
    EmptyWorkload,
    #[error("operation {index} ({op:?} start {start} length {length}): {source}")]
    BadRun {
        index: usize,
        op: Op,
        start: u64,
        length: u64,
        source: RunError,
    },
    #[error("the access count of column {col} overflows 64 bits: use fewer or shorter operations")]
    Overflow { col: usize },
}

fn check_range(what: &'static str, got: u64, min: u64, max: u64) -> Result<(), LoadsError> {
    if got < min || got > max {
        return Err(LoadsError::OutOfRange {
            what,
            got,
            min,
            max,
        });
    }
    Ok(())
}

/// The paper's random workload for a code with `data_per_stripe` data elements per stripe.
/// Deterministic in (`workload`, `data_per_stripe`, `seed`, `shape`).
pub fn generate(
    workload: Workload,
    data_per_stripe: usize,
    seed: u64,
    shape: WorkloadShape,
) -> Result<Vec<Tuple>, LoadsError> {
    let writes_per_ten = workload
        .writes_per_ten()
        .ok_or(LoadsError::TraceNotGenerated)?;
    if data_per_stripe == 0 {
        return Err(LoadsError::NoData);
    }
    check_range("tuples", shape.tuples as u64, 1, TUPLES_MAX as u64)?;
    check_range("longest run (L max)", shape.length_max, 1, LENGTH_MAX)?;
    check_range("most repetitions (T max)", shape.times_max, 1, TIMES_MAX)?;

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(workload.stream());
    let tuples: Vec<Tuple> = (0..shape.tuples)
        .map(|i| {
            // Bresenham spread: after i+1 tuples exactly floor((i+1) * w / 10) are writes.
            let is_write = (i + 1) * writes_per_ten / 10 > i * writes_per_ten / 10;
            // Always one u64 for S, whatever data_per_stripe, so the L and T draws that
            // follow are the same for every code.
            let start = rng.next_u64() % data_per_stripe as u64;
            let length = rng.gen_range(1..=shape.length_max);
            let times = rng.gen_range(1..=shape.times_max);
            Tuple {
                op: if is_write { Op::Write } else { Op::Read },
                start,
                length,
                times,
            }
        })
        .collect();
    let writes = tuples.iter().filter(|t| t.op == Op::Write).count();
    assert_eq!(
        writes,
        shape.tuples * writes_per_ten / 10,
        "write ratio must be exact"
    );
    Ok(tuples)
}

/// `L(i)` for every disk (column) of a code under one workload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiskLoads {
    pub per_disk: Vec<u64>,
}

impl DiskLoads {
    pub fn lmax(&self) -> u64 {
        self.per_disk.iter().copied().max().unwrap_or(0)
    }
    pub fn lmin(&self) -> u64 {
        self.per_disk.iter().copied().min().unwrap_or(0)
    }
    /// I/O cost: the total number of element accesses, `sum L(i)` (equation 9).
    pub fn cost(&self) -> u64 {
        self.per_disk.iter().sum()
    }
    /// `LF = Lmax / Lmin` (equation 8); `None` when some disk has no access (infinite LF).
    pub fn lf(&self) -> Option<f64> {
        assert!(
            self.lmax() > 0,
            "LF of a workload with no access is undefined"
        );
        match self.lmin() {
            0 => None,
            lmin => Some(self.lmax() as f64 / lmin as f64),
        }
    }
}

/// What one operation adds to a disk's `L(i)`.
///
/// The default, [`CostModel::ReadModifyWrite`], counts device I/Os: a write reads and then
/// writes each of its data elements and each parity it updates, so every element it
/// touches costs 2 accesses. [`CostModel::ElementsTouched`] counts each element an
/// operation touches once, read or written -- a literal reading of the paper's "the total
/// amount of elements that need to be read/written" and of its Figure 1, which marks each
/// such element once. Reads cost the same under both; a write costs exactly half as much
/// under `ElementsTouched`. docs/results/dcode-loads.md compares both with the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
pub enum CostModel {
    #[default]
    ReadModifyWrite,
    ElementsTouched,
}

impl CostModel {
    pub fn name(self) -> &'static str {
        match self {
            CostModel::ReadModifyWrite => "rmw",
            CostModel::ElementsTouched => "elements",
        }
    }
}

/// Per-disk access counts of `tuples` on a code under read-modify-write writes (see the
/// module docs).
pub fn evaluate(geometry: &Geometry, tuples: &[Tuple]) -> Result<DiskLoads, LoadsError> {
    evaluate_with(geometry, tuples, CostModel::ReadModifyWrite)
}

/// Per-disk counts of `tuples` on a code under the given cost model.
pub fn evaluate_with(
    geometry: &Geometry,
    tuples: &[Tuple],
    model: CostModel,
) -> Result<DiskLoads, LoadsError> {
    if tuples.is_empty() {
        return Err(LoadsError::EmptyWorkload);
    }
    if geometry.data_count() == 0 {
        return Err(LoadsError::NoData);
    }
    let mut per_disk = vec![0u64; geometry.cols];
    for (index, tuple) in tuples.iter().enumerate() {
        check_range("times (T)", tuple.times, 1, TIMES_MAX)?;
        let accesses = match tuple.op {
            Op::Read => element_io::read_run(geometry, tuple.start, tuple.length),
            Op::Write => element_io::write_run(geometry, tuple.start, tuple.length),
        }
        .map_err(|source| LoadsError::BadRun {
            index,
            op: tuple.op,
            start: tuple.start,
            length: tuple.length,
            source,
        })?;
        let counted: Vec<ElementAccess> = match model {
            CostModel::ReadModifyWrite => accesses,
            // A read-modify-write writes every element it touches exactly once (and reads
            // it once before): keeping the writes counts each touched element once.
            CostModel::ElementsTouched => match tuple.op {
                Op::Read => accesses,
                Op::Write => accesses
                    .into_iter()
                    .filter(|a| a.kind == IoKind::Write)
                    .collect(),
            },
        };
        let once = element_io::accesses_per_column(geometry.cols, &counted);
        for (col, (total, count)) in per_disk.iter_mut().zip(once).enumerate() {
            *total = count
                .checked_mul(tuple.times)
                .and_then(|n| total.checked_add(n))
                .ok_or(LoadsError::Overflow { col })?;
        }
    }
    per_disk
        .iter()
        .try_fold(0u64, |sum, &n| sum.checked_add(n))
        .ok_or(LoadsError::Overflow { col: 0 })?;
    Ok(DiskLoads { per_disk })
}

/// One line of `exaraid codes loads --json`: exactly the keys `code, p, workload, lf, cost`.
/// `lf` is `null` when infinite (a disk with no access).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadRow {
    pub code: String,
    pub p: usize,
    pub workload: String,
    pub lf: Option<f64>,
    pub cost: u64,
}

/// The header every trace must start with.
pub const TRACE_HEADER: &str = "op,start,length,times";

/// A trace line that cannot be used; `line` counts from 1 (the header is line 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("the trace is empty: its first line must be the header '{TRACE_HEADER}'")]
    Empty,
    #[error("line 1: header is '{got}' but must be exactly '{TRACE_HEADER}'")]
    BadHeader { got: String },
    #[error(
        "line {line}: expected 4 comma-separated fields (op,start,length,times), found {found}"
    )]
    FieldCount { line: usize, found: usize },
    #[error("line {line}: op '{got}' must be 'read' or 'write'")]
    BadOp { line: usize, got: String },
    #[error("line {line}: {field} '{got}' is not a whole number in {min}..={max}")]
    BadNumber {
        line: usize,
        field: &'static str,
        got: String,
        min: u64,
        max: u64,
    },
    #[error("the trace has a header but no operations: add lines like 'write,0,4,5'")]
    NoOperations,
    #[error("the trace has more than {TUPLES_MAX} operations: split it")]
    TooManyOperations,
}

fn parse_field(
    line: usize,
    field: &'static str,
    text: &str,
    min: u64,
    max: u64,
) -> Result<u64, TraceError> {
    let bad = || TraceError::BadNumber {
        line,
        field,
        got: text.to_string(),
        min,
        max,
    };
    let value: u64 = text.parse().map_err(|_| bad())?;
    if value < min || value > max {
        return Err(bad());
    }
    Ok(value)
}

/// Read a trace: a header line `op,start,length,times`, then one operation per line
/// (`read|write`, data address >= 0, length in 1..=[`LENGTH_MAX`], times in
/// 1..=[`TIMES_MAX`]). Blank lines and lines starting with `#` are skipped; spaces around
/// fields are ignored; fields are never quoted.
pub fn parse_trace(text: &str) -> Result<Vec<Tuple>, TraceError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (_, header) = lines.next().ok_or(TraceError::Empty)?;
    let header = header.trim_start_matches('\u{feff}');
    let header_fields: Vec<&str> = header.split(',').map(str::trim).collect();
    if header_fields.join(",") != TRACE_HEADER {
        return Err(TraceError::BadHeader {
            got: header.to_string(),
        });
    }
    let mut tuples = Vec::new();
    for (line, text) in lines {
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        if fields.len() != 4 {
            return Err(TraceError::FieldCount {
                line,
                found: fields.len(),
            });
        }
        let op = match fields[0] {
            "read" => Op::Read,
            "write" => Op::Write,
            other => {
                return Err(TraceError::BadOp {
                    line,
                    got: other.to_string(),
                })
            }
        };
        let start = parse_field(line, "start", fields[1], 0, u64::MAX - LENGTH_MAX)?;
        let length = parse_field(line, "length", fields[2], 1, LENGTH_MAX)?;
        let times = parse_field(line, "times", fields[3], 1, TIMES_MAX)?;
        if tuples.len() == TUPLES_MAX {
            return Err(TraceError::TooManyOperations);
        }
        tuples.push(Tuple {
            op,
            start,
            length,
            times,
        });
    }
    if tuples.is_empty() {
        return Err(TraceError::NoOperations);
    }
    Ok(tuples)
}

/// Write tuples as a trace that [`parse_trace`] reads back unchanged.
pub fn format_trace(tuples: &[Tuple]) -> String {
    let mut out = String::with_capacity(16 * (tuples.len() + 1));
    out.push_str(TRACE_HEADER);
    out.push('\n');
    for t in tuples {
        let op = match t.op {
            Op::Read => "read",
            Op::Write => "write",
        };
        out.push_str(&format!("{op},{},{},{}\n", t.start, t.length, t.times));
    }
    out
}
