//! Delayed parity.
use crate::strategy::*;
use crate::{IoPlan, Layout, PlanId};

/// The delayed-parity write path.
pub struct Delayed {
    layout: Layout,
    next_plan: PlanId,
}

impl Delayed {
    pub fn new(layout: Layout, config: StrategyConfig) -> Result<Delayed, PlanError> {
        let _ = config;
        Ok(Delayed { layout, next_plan: 0 })
    }
}

impl Strategy for Delayed {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Delayed
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        let _ = (write, now_ns, self.next_plan);
        todo!()
    }
    fn on_hint(&mut self, _hint: &Hint, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Err(PlanError::HintNotSupported { strategy: "delayed" })
    }
    fn on_tick(&mut self, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Ok(Vec::new())
    }
    fn lookup(&self, file: crate::FileId, offset_bytes: u64, len_bytes: u64) -> Result<Vec<Extent>, PlanError> {
        home_lookup(&self.layout, file, offset_bytes, len_bytes)
    }
}
