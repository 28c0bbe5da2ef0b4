//! WCL basic avoidance.
use crate::strategy::*;
use crate::{IoPlan, Layout, PlanId};

/// The WCL write path.
pub struct Wcl {
    layout: Layout,
    next_plan: PlanId,
}

impl Wcl {
    pub fn new(layout: Layout) -> Wcl {
        Wcl { layout, next_plan: 0 }
    }
}

impl Strategy for Wcl {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Wcl
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        let _ = (write, now_ns, self.next_plan);
        todo!()
    }
    fn on_hint(&mut self, _hint: &Hint, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Err(PlanError::HintNotSupported { strategy: "wcl" })
    }
    fn on_tick(&mut self, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Ok(Vec::new())
    }
    fn lookup(&self, file: crate::FileId, offset_bytes: u64, len_bytes: u64) -> Result<Vec<Extent>, PlanError> {
        home_lookup(&self.layout, file, offset_bytes, len_bytes)
    }
}
