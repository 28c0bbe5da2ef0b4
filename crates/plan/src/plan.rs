//! IoPlan: what an executor must do for one client write, hint or timer.
//!
//! A plan is a list of [`Step`]s (one step = one I/O request to one OSS: a read or a write
//! of one contiguous byte range of one zone) plus the [`ParityCompute`]s the executor must
//! perform between them. Steps name their dependencies (`after`: steps of the same plan that
//! must complete first); steps without a path between them may run in parallel.
//!
//! Bytes flow through [`Bytes`]: a write step says where each of its pieces' bytes come from
//! (the client's buffer, an earlier read step of the plan, or a parity compute), and a compute
//! says where each of its inputs comes from. The store executes exactly that on real bytes;
//! the simulator times the steps and may charge CPU for `ParityCompute::input_bytes`.

use crate::layout::ElementRange;
use crate::{ClientId, FileId, PlanId, WindowId};
use exaraid_codes::Cell;
use serde::Serialize;
use std::collections::BTreeMap;

/// Most steps one plan may hold. A write of 1 GiB over 1 MiB elements on RAID-6 needs a few
/// thousand; a delayed-parity END over a huge window is split by the caller long before.
pub const STEPS_PER_PLAN_MAX: usize = 1 << 22;

/// Index of a step inside its plan.
pub type StepId = usize;
/// Index of a compute inside its plan.
pub type ComputeId = usize;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

/// The area of an OSS a step touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Zone {
    /// Home location of data elements (the file's object on the OSS).
    Data,
    /// Home location of parity elements (same object, parity positions).
    Parity,
    /// The OSS's write cache zone (WCL and delayed parity): data and running parity of
    /// cache stripes, addressed by the cache zone's own offsets.
    Cache,
}

/// Whether a plan is on a client's critical path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanKind {
    /// The client (or, for an END hint, the application) waits for it.
    Foreground,
    /// Off the critical path: WCL destage, delayed parity after a timeout, data moves home.
    Background,
}

/// Why a plan exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanCause {
    /// A client write.
    Write { client: ClientId, file: FileId },
    /// WCL: a complete cache stripe moved home.
    Destage { file: FileId, stripe: u64 },
    /// Delayed parity: the END hint of a window (parity of its stripes).
    WindowEnd { window: WindowId, file: FileId },
    /// Delayed parity: a window whose END never came, closed by the timeout.
    WindowTimeout { window: WindowId, file: FileId },
    /// Delayed parity: the window's data moved from the cache zone home.
    WindowMove { window: WindowId, file: FileId },
}

/// Where bytes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bytes {
    /// All zeros (an absent old value: a never-written cache range).
    Zero,
    /// The client's new data at this file offset (the write's buffer at
    /// `file_offset_bytes - write.offset_bytes`).
    Client { file_offset_bytes: u64 },
    /// The bytes read by step `step` of the same plan, starting `offset_bytes` into it.
    Read { step: StepId, offset_bytes: u64 },
    /// The output of compute `compute` of the same plan, starting `offset_bytes` into it.
    Computed {
        compute: ComputeId,
        offset_bytes: u64,
    },
}

/// One contiguous part of a step: which element bytes it addresses and, for writes, where
/// the bytes come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub element: ElementRange,
    /// `Some` for writes, `None` for reads.
    pub source: Option<Bytes>,
}

/// Splits pieces (in element-offset order) into runs whose element ranges are contiguous:
/// each run becomes one request, since an OSS serves a contiguous extent in one operation.
pub(crate) fn contiguous_runs(pieces: Vec<Piece>) -> Vec<Vec<Piece>> {
    let mut runs: Vec<Vec<Piece>> = Vec::new();
    for piece in pieces {
        let extends_last = runs.last().and_then(|run| run.last()).is_some_and(|last| {
            last.element.offset_bytes + last.element.len_bytes == piece.element.offset_bytes
        });
        match runs.last_mut() {
            Some(run) if extends_last => run.push(piece),
            _ => runs.push(vec![piece]),
        }
    }
    runs
}

/// One I/O request to one OSS: a read or write of `[addr_bytes, addr_bytes + len_bytes)` of
/// one zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub oss: usize,
    pub op: Op,
    pub zone: Zone,
    /// The file whose bytes these are. Data/Parity zones: the file's home object on `oss`.
    pub file: FileId,
    /// Offset in the file's home object (Data, Parity) or in the OSS's cache zone (Cache).
    pub addr_bytes: u64,
    pub len_bytes: u64,
    /// The element ranges laid out back to back from `addr_bytes`; lengths sum to `len_bytes`.
    pub pieces: Vec<Piece>,
    /// Steps of this plan that must complete before this one starts.
    pub after: Vec<StepId>,
}

impl Step {
    /// Does this step carry parity (home parity zone or running parity in the cache)?
    pub fn is_parity(&self) -> bool {
        matches!(
            self.pieces.first().map(|p| p.element.cell),
            Some(Cell::Parity(_))
        )
    }
}

/// One term of a parity computation: `coef * (new ^ old)` of data element `data` over the
/// compute's byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ParityTerm {
    pub data: usize,
    /// GF(2^8) coefficient of `data` in this parity (1 = plain XOR).
    pub coef: u8,
    pub new: Bytes,
    /// `Bytes::Zero` when the data is new (full encode, WCL running parity).
    pub old: Bytes,
}

/// How the parity is obtained (informative: the arithmetic is always the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParityMethod {
    /// From every data element of the parity's equation (full-stripe write, reconstruct
    /// write, delayed parity): base is zero, old values are zero.
    Encode,
    /// Read-modify-write: old parity + coef * (old data ^ new data).
    Delta,
    /// WCL: running parity of a cache stripe + coef * new data (old data is zero because
    /// the cache zone is never overwritten).
    Accumulate,
}

/// `out = base ^ sum(coef * (new ^ old))` over `len_bytes` bytes of parity element `parity`
/// of `stripe`, starting at byte `offset_bytes` of the element. Every input covers the same
/// byte range of its own element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParityCompute {
    pub file: FileId,
    pub stripe: u64,
    pub parity: usize,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    pub method: ParityMethod,
    pub base: Bytes,
    pub terms: Vec<ParityTerm>,
    /// Read steps whose bytes it needs.
    pub after: Vec<StepId>,
}

impl ParityCompute {
    /// Bytes the executor feeds to the GF kernels (CPU cost model input).
    pub fn input_bytes(&self) -> u64 {
        self.len_bytes * (self.terms.len() as u64 + 1)
    }
}

/// Operation counts by zone and direction. Cache-zone ops are split by content (data or
/// running parity). `by_content` folds the cache ops into data / parity, which is how the
/// seed counts ("3 operations" of a WCL write = data write + parity read + parity write).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct OpCounts {
    pub data_read: u64,
    pub data_write: u64,
    pub parity_read: u64,
    pub parity_write: u64,
    pub cache_data_read: u64,
    pub cache_data_write: u64,
    pub cache_parity_read: u64,
    pub cache_parity_write: u64,
}

/// Operation counts by content only (cache ops folded in): the seed's accounting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ContentCounts {
    pub data_read: u64,
    pub data_write: u64,
    pub parity_read: u64,
    pub parity_write: u64,
}

impl OpCounts {
    pub fn cache_read(&self) -> u64 {
        self.cache_data_read + self.cache_parity_read
    }
    pub fn cache_write(&self) -> u64 {
        self.cache_data_write + self.cache_parity_write
    }
    pub fn total(&self) -> u64 {
        self.data_read
            + self.data_write
            + self.parity_read
            + self.parity_write
            + self.cache_read()
            + self.cache_write()
    }
    pub fn by_content(&self) -> ContentCounts {
        ContentCounts {
            data_read: self.data_read + self.cache_data_read,
            data_write: self.data_write + self.cache_data_write,
            parity_read: self.parity_read + self.cache_parity_read,
            parity_write: self.parity_write + self.cache_parity_write,
        }
    }
    /// Count one step.
    pub fn add_step(&mut self, step: &Step) {
        let parity = step.is_parity();
        let counter = match (step.zone, step.op, parity) {
            (Zone::Data, Op::Read, _) => &mut self.data_read,
            (Zone::Data, Op::Write, _) => &mut self.data_write,
            (Zone::Parity, Op::Read, _) => &mut self.parity_read,
            (Zone::Parity, Op::Write, _) => &mut self.parity_write,
            (Zone::Cache, Op::Read, false) => &mut self.cache_data_read,
            (Zone::Cache, Op::Write, false) => &mut self.cache_data_write,
            (Zone::Cache, Op::Read, true) => &mut self.cache_parity_read,
            (Zone::Cache, Op::Write, true) => &mut self.cache_parity_write,
        };
        *counter += 1;
    }
}

impl std::ops::AddAssign for OpCounts {
    fn add_assign(&mut self, o: OpCounts) {
        self.data_read += o.data_read;
        self.data_write += o.data_write;
        self.parity_read += o.parity_read;
        self.parity_write += o.parity_write;
        self.cache_data_read += o.cache_data_read;
        self.cache_data_write += o.cache_data_write;
        self.cache_parity_read += o.cache_parity_read;
        self.cache_parity_write += o.cache_parity_write;
    }
}

impl std::ops::Add for OpCounts {
    type Output = OpCounts;
    fn add(mut self, o: OpCounts) -> OpCounts {
        self += o;
        self
    }
}

/// Everything an executor needs for one unit of work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IoPlan {
    /// Unique per strategy instance, increasing.
    pub id: PlanId,
    pub kind: PlanKind,
    pub cause: PlanCause,
    /// Plans that must complete before this one starts (e.g. a destage waits for the
    /// writes that filled its cache stripe).
    pub after_plans: Vec<PlanId>,
    pub steps: Vec<Step>,
    pub computes: Vec<ParityCompute>,
}

impl IoPlan {
    pub fn op_counts(&self) -> OpCounts {
        let mut c = OpCounts::default();
        for s in &self.steps {
            c.add_step(s);
        }
        c
    }

    /// Counts per OSS, indexed by OSS (`oss_count` entries).
    pub fn op_counts_per_oss(&self, oss_count: usize) -> Vec<OpCounts> {
        let mut v = vec![OpCounts::default(); oss_count];
        self.add_counts_per_oss(&mut v);
        v
    }

    /// Add this plan's counts into a per-OSS table (as long as the layout's OSS count).
    pub fn add_counts_per_oss(&self, per_oss: &mut [OpCounts]) {
        for s in &self.steps {
            per_oss[s.oss].add_step(s);
        }
    }

    /// The distinct OSSs the plan touches, sorted.
    pub fn osses(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.steps.iter().map(|s| s.oss).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn bytes_moved(&self) -> u64 {
        self.steps.iter().map(|s| s.len_bytes).sum()
    }

    /// Check the plan's internal invariants (dependencies point backwards, pieces fill each
    /// step, sources are consistent). Executors may call it in debug builds; tests do.
    pub fn validate(&self) -> Result<(), String> {
        for (i, s) in self.steps.iter().enumerate() {
            let sum: u64 = s.pieces.iter().map(|p| p.element.len_bytes).sum();
            if sum != s.len_bytes || s.len_bytes == 0 {
                return Err(format!(
                    "step {i}: pieces sum to {sum} bytes, step is {} bytes",
                    s.len_bytes
                ));
            }
            for &a in &s.after {
                if a >= i {
                    return Err(format!("step {i} depends on later step {a}"));
                }
            }
            for p in &s.pieces {
                match (s.op, p.source) {
                    (Op::Read, None) => {}
                    (Op::Write, Some(Bytes::Read { step, .. }))
                        if step < i && s.after.contains(&step) => {}
                    (Op::Write, Some(Bytes::Read { step, .. })) => {
                        return Err(format!(
                            "step {i} copies from step {step} without depending on it"
                        ))
                    }
                    (Op::Write, Some(Bytes::Computed { compute, .. }))
                        if compute < self.computes.len() =>
                    {
                        for a in &self.computes[compute].after {
                            if !s.after.contains(a) {
                                return Err(format!("step {i} writes compute {compute} but does not wait for its input step {a}"));
                            }
                        }
                    }
                    (Op::Write, Some(Bytes::Client { .. })) | (Op::Write, Some(Bytes::Zero)) => {}
                    (op, src) => return Err(format!("step {i}: {op:?} with source {src:?}")),
                }
            }
        }
        for (i, c) in self.computes.iter().enumerate() {
            let inputs = std::iter::once(c.base).chain(c.terms.iter().flat_map(|t| [t.new, t.old]));
            for b in inputs {
                match b {
                    Bytes::Read { step, .. } if !c.after.contains(&step) => {
                        return Err(format!(
                            "compute {i} reads step {step} without depending on it"
                        ))
                    }
                    Bytes::Computed { .. } => {
                        return Err(format!("compute {i} takes another compute as input"))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Builds one plan step by step (crate-internal helper of the strategies).
#[derive(Debug, Default)]
pub(crate) struct PlanBuilder {
    pub steps: Vec<Step>,
    pub computes: Vec<ParityCompute>,
}

impl PlanBuilder {
    pub fn new() -> PlanBuilder {
        PlanBuilder::default()
    }

    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        oss: usize,
        op: Op,
        zone: Zone,
        file: FileId,
        addr_bytes: u64,
        pieces: Vec<Piece>,
        after: Vec<StepId>,
    ) -> StepId {
        assert!(!pieces.is_empty());
        assert!(
            self.steps.len() < STEPS_PER_PLAN_MAX,
            "plan exceeds {STEPS_PER_PLAN_MAX} steps"
        );
        let len_bytes = pieces.iter().map(|p| p.element.len_bytes).sum();
        self.steps.push(Step {
            oss,
            op,
            zone,
            file,
            addr_bytes,
            len_bytes,
            pieces,
            after,
        });
        self.steps.len() - 1
    }

    pub fn read(
        &mut self,
        oss: usize,
        zone: Zone,
        file: FileId,
        addr_bytes: u64,
        element: ElementRange,
    ) -> StepId {
        self.step(
            oss,
            Op::Read,
            zone,
            file,
            addr_bytes,
            vec![Piece {
                element,
                source: None,
            }],
            Vec::new(),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        oss: usize,
        zone: Zone,
        file: FileId,
        addr_bytes: u64,
        element: ElementRange,
        source: Bytes,
        after: Vec<StepId>,
    ) -> StepId {
        self.step(
            oss,
            Op::Write,
            zone,
            file,
            addr_bytes,
            vec![Piece {
                element,
                source: Some(source),
            }],
            after,
        )
    }

    pub fn compute(&mut self, c: ParityCompute) -> ComputeId {
        self.computes.push(c);
        self.computes.len() - 1
    }

    /// Merge steps that are contiguous on the same OSS, zone, file and direction into one
    /// request ("consolidated sequential writes", seed 004 section 2.2). Only steps of the
    /// same dependency depth are merged so no cycle can appear; references to merged steps
    /// are rewritten. Order: by (depth, oss, zone, file, op, address).
    pub fn coalesce(&mut self) {
        let n = self.steps.len();
        if n < 2 {
            return;
        }
        let mut depth = vec![0usize; n];
        for i in 0..n {
            depth[i] = self.steps[i]
                .after
                .iter()
                .map(|&a| depth[a] + 1)
                .max()
                .unwrap_or(0);
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| {
            let s = &self.steps[i];
            (
                depth[i],
                s.oss,
                s.zone,
                if s.zone == Zone::Cache { 0 } else { s.file },
                s.op,
                s.is_parity(),
                s.addr_bytes,
            )
        });
        // Group consecutive contiguous steps.
        let mut new_steps: Vec<Step> = Vec::new();
        let mut map: Vec<(StepId, u64)> = vec![(0, 0); n]; // old -> (new, offset in new)
        let mut group_depth = Vec::new();
        for &i in &order {
            let s = &self.steps[i];
            if let Some(last) = new_steps.last_mut() {
                let same = *group_depth.last().unwrap() == depth[i]
                    && last.oss == s.oss
                    && last.zone == s.zone
                    && (s.zone == Zone::Cache || last.file == s.file)
                    && last.op == s.op
                    && last.is_parity() == s.is_parity()
                    && last.addr_bytes + last.len_bytes == s.addr_bytes;
                if same {
                    map[i] = (group_depth.len() - 1, last.len_bytes);
                    last.len_bytes += s.len_bytes;
                    last.pieces.extend(s.pieces.iter().copied());
                    last.after.extend(s.after.iter().copied());
                    continue;
                }
            }
            map[i] = (new_steps.len(), 0);
            new_steps.push(s.clone());
            group_depth.push(depth[i]);
        }
        let remap = |b: Bytes| match b {
            Bytes::Read { step, offset_bytes } => Bytes::Read {
                step: map[step].0,
                offset_bytes: offset_bytes + map[step].1,
            },
            other => other,
        };
        for s in &mut new_steps {
            let mut after: Vec<StepId> = s.after.iter().map(|&a| map[a].0).collect();
            after.sort_unstable();
            after.dedup();
            s.after = after;
            for p in &mut s.pieces {
                p.source = p.source.map(remap);
            }
        }
        for c in &mut self.computes {
            c.base = remap(c.base);
            for t in &mut c.terms {
                t.new = remap(t.new);
                t.old = remap(t.old);
            }
            let mut after: Vec<StepId> = c.after.iter().map(|&a| map[a].0).collect();
            after.sort_unstable();
            after.dedup();
            c.after = after;
        }
        self.steps = new_steps;
    }

    pub fn finish(
        self,
        id: PlanId,
        kind: PlanKind,
        cause: PlanCause,
        after_plans: Vec<PlanId>,
    ) -> IoPlan {
        let plan = IoPlan {
            id,
            kind,
            cause,
            after_plans,
            steps: self.steps,
            computes: self.computes,
        };
        debug_assert_eq!(plan.validate(), Ok(()), "planner built an invalid plan");
        plan
    }
}

/// Sum the counts of many plans per OSS (helper for executors and the cross-executor test).
pub fn counts_per_oss<'a>(
    plans: impl IntoIterator<Item = &'a IoPlan>,
    oss_count: usize,
) -> Vec<OpCounts> {
    let mut v = vec![OpCounts::default(); oss_count];
    for p in plans {
        p.add_counts_per_oss(&mut v);
    }
    v
}

/// Sum the counts of many plans.
pub fn total_counts<'a>(plans: impl IntoIterator<Item = &'a IoPlan>) -> OpCounts {
    let mut c = OpCounts::default();
    for p in plans {
        c += p.op_counts();
    }
    c
}

/// Counts grouped by plan kind (foreground, background).
pub fn counts_by_kind<'a>(
    plans: impl IntoIterator<Item = &'a IoPlan>,
) -> BTreeMap<&'static str, OpCounts> {
    let mut m = BTreeMap::new();
    for p in plans {
        let key = match p.kind {
            PlanKind::Foreground => "foreground",
            PlanKind::Background => "background",
        };
        *m.entry(key).or_default() += p.op_counts();
    }
    m
}

#[cfg(test)]
mod tests {
    use crate::strategy::{new_strategy, ClientWrite, StrategyConfig, StrategyKind};
    use crate::testing::raid6;
    use crate::Layout;

    #[test]
    fn a_plan_serialises_to_json_with_its_steps_and_computes() {
        let layout = Layout::from_geometry(raid6(4), "raid6", 4096, 6).unwrap();
        let mut s = new_strategy(StrategyKind::Rmw, layout, StrategyConfig::default()).unwrap();
        let plan = s
            .on_write(
                &ClientWrite {
                    client: 1,
                    app: 0,
                    file: 2,
                    offset_bytes: 10,
                    len_bytes: 20,
                },
                0,
            )
            .unwrap()
            .remove(0);
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(json["kind"], "foreground");
        assert_eq!(json["steps"].as_array().unwrap().len(), 6);
        assert_eq!(json["computes"].as_array().unwrap().len(), 2);
        assert_eq!(json["steps"][0]["op"], "read");
    }
}
