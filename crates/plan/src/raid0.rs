//! RAID-0: data only, no parity.
use crate::strategy::*;
use crate::{IoPlan, Layout, PlanId};

/// The RAID-0 write path.
pub struct Raid0 {
    layout: Layout,
    next_plan: PlanId,
}

impl Raid0 {
    pub fn new(layout: Layout) -> Raid0 {
        Raid0 { layout, next_plan: 0 }
    }
}

impl Strategy for Raid0 {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Raid0
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        let _ = (write, now_ns, self.next_plan);
        todo!()
    }
    fn on_hint(&mut self, _hint: &Hint, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Err(PlanError::HintNotSupported { strategy: "raid0" })
    }
    fn on_tick(&mut self, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Ok(Vec::new())
    }
    fn lookup(&self, file: crate::FileId, offset_bytes: u64, len_bytes: u64) -> Result<Vec<Extent>, PlanError> {
        home_lookup(&self.layout, file, offset_bytes, len_bytes)
    }
}
