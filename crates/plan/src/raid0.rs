//! RAID-0: data only, no parity.
//!
//! The seed's baseline: "RAID-0 represents the performance obtained from the OSSs when there
//! are no parity calculations". Every piece of the write goes home in one write request per
//! OSS and contiguous range; parity columns of the layout (if the layout has any) are never
//! touched. Use [`Layout::raid0`] for a pure RAID-0 layout.

use crate::plan::{Bytes, PlanBuilder, PlanCause, PlanKind, Zone};
use crate::strategy::*;
use crate::{IoPlan, Layout, PlanId};

/// The RAID-0 write path.
pub struct Raid0 {
    layout: Layout,
    next_plan: PlanId,
}

impl Raid0 {
    pub fn new(layout: Layout) -> Raid0 {
        Raid0 {
            layout,
            next_plan: 0,
        }
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
        let _ = now_ns;
        check_write(&self.layout, write)?;
        let mut b = PlanBuilder::new();
        for (file_off, e) in self.layout.split(write.offset_bytes, write.len_bytes)? {
            let oss = self.layout.oss_of(write.file, e.stripe, e.pos.col);
            let addr = self.layout.home_addr(e.stripe, e.pos, e.offset_bytes);
            b.write(
                oss,
                Zone::Data,
                write.file,
                addr,
                e,
                Bytes::Client {
                    file_offset_bytes: file_off,
                },
                Vec::new(),
            );
        }
        b.coalesce();
        let id = self.next_plan;
        self.next_plan += 1;
        Ok(vec![b.finish(
            id,
            PlanKind::Foreground,
            PlanCause::Write {
                client: write.client,
                file: write.file,
            },
            Vec::new(),
        )])
    }
    fn on_hint(&mut self, _hint: &Hint, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Err(PlanError::HintNotSupported { strategy: "raid0" })
    }
    fn on_tick(&mut self, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Ok(Vec::new())
    }
    fn lookup(
        &self,
        file: crate::FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<Extent>, PlanError> {
        home_lookup(&self.layout, file, offset_bytes, len_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::OpCounts;
    use crate::testing::raid5;

    #[test]
    fn a_one_element_write_is_one_data_write() {
        let mut s = Raid0::new(Layout::raid0(4, 65536, 4).unwrap());
        let plans = s
            .on_write(
                &ClientWrite {
                    client: 0,
                    app: 0,
                    file: 0,
                    offset_bytes: 100,
                    len_bytes: 1000,
                },
                0,
            )
            .unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!(
            plans[0].op_counts(),
            OpCounts {
                data_write: 1,
                ..OpCounts::default()
            }
        );
        assert!(plans[0].computes.is_empty());
    }

    #[test]
    fn a_raid5_layout_under_raid0_never_touches_parity() {
        let mut s = Raid0::new(Layout::from_geometry(raid5(4), "raid5", 65536, 5).unwrap());
        let plans = s
            .on_write(
                &ClientWrite {
                    client: 0,
                    app: 0,
                    file: 0,
                    offset_bytes: 0,
                    len_bytes: 4 * 65536,
                },
                0,
            )
            .unwrap();
        assert_eq!(
            plans[0].op_counts(),
            OpCounts {
                data_write: 4,
                ..OpCounts::default()
            }
        );
    }

    #[test]
    fn consecutive_stripes_on_one_oss_merge_into_one_request() {
        // Width 1: every stripe lives on the one OSS, contiguous: one request.
        let mut s = Raid0::new(Layout::raid0(1, 4096, 1).unwrap());
        let plans = s
            .on_write(
                &ClientWrite {
                    client: 0,
                    app: 0,
                    file: 0,
                    offset_bytes: 0,
                    len_bytes: 10 * 4096,
                },
                0,
            )
            .unwrap();
        assert_eq!(plans[0].op_counts().data_write, 1);
        assert_eq!(plans[0].steps[0].pieces.len(), 10);
    }
}
