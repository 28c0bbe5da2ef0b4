//! The simulator's view of the planner: what it feeds in (writes, hints, timer ticks, plan
//! completions) and the plans it gets back, flattened to the fields the models need.
//!
//! [`StrategyPort`] implements this over exaraid-plan's strategies: the write paths are the
//! planner's, never re-implemented here.

use crate::models::device::IoKind;
use anyhow::{Context, Result};
use exaraid_codes::{Cell, Geometry, Term};
use exaraid_des::TimeNs;
use exaraid_plan::{
    ClientWrite, Hint, IoPlan, Layout, Op, PlanKind, Strategy, StrategyConfig, StrategyKind, Zone,
};

/// Where on an OSS a step lands and what it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ZoneClass {
    Data,
    /// The WCL cache zone, data content.
    CacheData,
    /// The WCL cache zone, running parity.
    CacheParity,
    Parity,
}

impl ZoneClass {
    pub fn is_parity(self) -> bool {
        matches!(self, ZoneClass::Parity | ZoneClass::CacheParity)
    }
    /// Device region index: home data, cache, parity.
    pub fn region(self) -> usize {
        match self {
            ZoneClass::Data => 0,
            ZoneClass::CacheData | ZoneClass::CacheParity => 1,
            ZoneClass::Parity => 2,
        }
    }
}

/// One I/O of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSpec {
    pub oss: u32,
    pub kind: IoKind,
    pub zone: ZoneClass,
    /// The file whose object this is (data and parity zones).
    pub object: u64,
    /// Byte address inside the zone of this OSS (the planner's address).
    pub address_bytes: u64,
    pub size_bytes: u64,
}

/// One plan as the executor runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOut {
    pub id: u64,
    /// The caller (client, or the application for END) waits for it.
    pub foreground: bool,
    /// Plans that must complete before this one starts.
    pub after_plans: Vec<u64>,
    pub steps: Vec<StepSpec>,
    /// Dependencies inside the plan: (step that must complete first, step that waits).
    pub dep_edges: Vec<(u16, u16)>,
}

pub trait PlannerPort {
    fn write(
        &mut self,
        now_ns: TimeNs,
        client: u64,
        app: u64,
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<PlanOut>>;
    /// START_DELAYED of `window` on `file` (only called when `uses_hints`).
    fn start_delayed(&mut self, now_ns: TimeNs, window: u64, file: u64) -> Result<Vec<PlanOut>>;
    fn end_delayed(&mut self, now_ns: TimeNs, window: u64) -> Result<Vec<PlanOut>>;
    fn tick(&mut self, now_ns: TimeNs) -> Result<Vec<PlanOut>>;
    /// The executor finished plan `id`.
    fn complete(&mut self, id: u64) -> Result<Vec<PlanOut>>;
    fn next_tick_ns(&self) -> Option<TimeNs>;
    fn uses_hints(&self) -> bool;
}

/// A geometry with RAID-5's or RAID-6's shape at any width, for timing only.
///
/// The codes crate builds GF(2^8) codes of at most 255 columns, so the seed's 512-wide
/// RAID-6 cannot be built as a real code. The simulator moves no bytes: it needs the
/// *shape* (which columns are parity, which data each parity covers), which for RAID-5 and
/// the seed's "two horizontal parity devices" RAID-6 is the same at every width. The
/// coefficients are placeholders (1) and never used for arithmetic.
pub fn timing_geometry(parities: usize, width: usize) -> Result<Geometry> {
    anyhow::ensure!(
        (1..=2).contains(&parities),
        "parities must be 1 (RAID-5) or 2 (RAID-6), got {parities}"
    );
    anyhow::ensure!(
        width > parities,
        "stripe width {width} leaves no data column with {parities} parities"
    );
    let k = width - parities;
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    let mut terms = Vec::new();
    for p in 0..parities {
        cells.push(Cell::Parity(p));
        terms.push((0..k).map(|d| Term { data: d, coef: 1 }).collect());
    }
    Ok(Geometry::from_parts(1, width, cells, terms, parities))
}

/// The layout of one point: RAID-0 for the raid0 strategy, otherwise the code's shape.
pub fn point_layout(
    strategy: StrategyKind,
    parities: usize,
    width: usize,
    element_bytes: u64,
    oss_count: usize,
) -> Result<Layout> {
    let layout = if strategy == StrategyKind::Raid0 {
        Layout::raid0(width, element_bytes, oss_count)
    } else {
        let name = if parities == 1 { "raid5" } else { "raid6" };
        Layout::from_geometry(
            timing_geometry(parities, width)?,
            &format!("{name} width={width} (timing)"),
            element_bytes,
            oss_count,
        )
    };
    layout.map_err(|e| anyhow::anyhow!("{e}"))
}

/// exaraid-plan's strategy behind the port.
pub struct StrategyPort {
    strategy: Box<dyn Strategy>,
    oss_count: u64,
    /// Rotate each file's OSSs by a seeded offset (Lustre picks a file's first OST
    /// per file; see `rotate`). Off in the op-count equality test.
    rotate_files: bool,
    seed: u64,
    /// Every plan returned, counted per OSS before rotation (tests compare with these).
    pub plans_seen: u64,
}

impl StrategyPort {
    pub fn new(
        kind: StrategyKind,
        layout: Layout,
        config: StrategyConfig,
        rotate_files: bool,
        seed: u64,
    ) -> Result<StrategyPort> {
        let oss_count = layout.oss_count() as u64;
        let strategy =
            exaraid_plan::new_strategy(kind, layout, config).map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(StrategyPort {
            strategy,
            oss_count,
            rotate_files,
            seed,
            plans_seen: 0,
        })
    }

    /// The OSS a planner OSS of `file` runs on.
    ///
    /// The planner places file `f` on OSSs `(f * width) % oss_count ..` which, with the seed's
    /// 512 OSSs and width 512, puts every file's first stripe (and so its parity) on the same
    /// OSSs. Lustre instead picks each file's first OST per file; the seed says its seeds
    /// "control how requests are mapped into each storage device". We rotate every file's
    /// OSSs by a seeded pseudo-random offset: a permutation, so per-file op counts and
    /// per-OSS totals over many files keep their meaning.
    pub fn rotate(&self, file: u64, oss: usize) -> u32 {
        if !self.rotate_files {
            return oss as u32;
        }
        let offset = splitmix(self.seed ^ splitmix(file)) % self.oss_count;
        ((oss as u64 + offset) % self.oss_count) as u32
    }

    fn convert(&mut self, plans: Vec<IoPlan>) -> Result<Vec<PlanOut>> {
        self.plans_seen += plans.len() as u64;
        plans
            .into_iter()
            .map(|p| {
                anyhow::ensure!(
                    p.steps.len() < u16::MAX as usize,
                    "plan {} has {} steps, more than the executor's limit",
                    p.id,
                    p.steps.len()
                );
                let mut dep_edges = Vec::new();
                for (j, s) in p.steps.iter().enumerate() {
                    for &a in &s.after {
                        dep_edges.push((a as u16, j as u16));
                    }
                }
                let steps = p
                    .steps
                    .iter()
                    .map(|s| {
                        let zone = match s.zone {
                            Zone::Data => ZoneClass::Data,
                            Zone::Parity => ZoneClass::Parity,
                            Zone::Cache if s.is_parity() => ZoneClass::CacheParity,
                            Zone::Cache => ZoneClass::CacheData,
                        };
                        StepSpec {
                            oss: self.rotate(s.file, s.oss),
                            kind: match s.op {
                                Op::Read => IoKind::Read,
                                Op::Write => IoKind::Write,
                            },
                            zone,
                            object: s.file,
                            address_bytes: s.addr_bytes,
                            size_bytes: s.len_bytes,
                        }
                    })
                    .collect();
                Ok(PlanOut {
                    id: p.id,
                    foreground: p.kind == PlanKind::Foreground,
                    after_plans: p.after_plans,
                    steps,
                    dep_edges,
                })
            })
            .collect()
    }
}

fn plan_err(e: exaraid_plan::PlanError) -> anyhow::Error {
    anyhow::anyhow!("planner: {e}")
}

impl PlannerPort for StrategyPort {
    fn write(
        &mut self,
        now_ns: TimeNs,
        client: u64,
        app: u64,
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<PlanOut>> {
        let w = ClientWrite {
            client,
            app,
            file,
            offset_bytes,
            len_bytes,
        };
        let plans = self
            .strategy
            .on_write(&w, now_ns)
            .map_err(plan_err)
            .context("client write")?;
        self.convert(plans)
    }
    fn start_delayed(&mut self, now_ns: TimeNs, window: u64, file: u64) -> Result<Vec<PlanOut>> {
        let plans = self
            .strategy
            .on_hint(&Hint::StartDelayed { window, file }, now_ns)
            .map_err(plan_err)?;
        self.convert(plans)
    }
    fn end_delayed(&mut self, now_ns: TimeNs, window: u64) -> Result<Vec<PlanOut>> {
        let plans = self
            .strategy
            .on_hint(&Hint::EndDelayed { window }, now_ns)
            .map_err(plan_err)?;
        self.convert(plans)
    }
    fn tick(&mut self, now_ns: TimeNs) -> Result<Vec<PlanOut>> {
        let plans = self.strategy.on_tick(now_ns).map_err(plan_err)?;
        self.convert(plans)
    }
    fn complete(&mut self, id: u64) -> Result<Vec<PlanOut>> {
        let plans = self.strategy.on_complete(id).map_err(plan_err)?;
        self.convert(plans)
    }
    fn next_tick_ns(&self) -> Option<TimeNs> {
        self.strategy.next_deadline_ns()
    }
    fn uses_hints(&self) -> bool {
        self.strategy.kind() == StrategyKind::Delayed
    }
}

/// SplitMix64 finaliser: a fixed, well-mixed hash (deterministic across platforms).
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
