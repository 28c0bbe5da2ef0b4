//! STD-RAID: the standard parity write path, without optimisations.
//!
//! Seed 004 section 1: "updating a datum in RAID-5 requires four I/O requests (reading the
//! original datum and the old parity and writing the new datum and the new parity) and six
//! I/O requests in RAID-6 (due it uses two parity checksums)".
//!
//! A client write is split per stripe. For each stripe the home parity update is planned by
//! [`crate::update`]: read-modify-write, or reconstruct-write when that needs strictly fewer
//! reads (a full-stripe write is a reconstruct write with no read at all: "full-stripe write
//! computes parity from new data"). The new data is written home after the old data of the
//! same element has been read. All of the write's steps form one foreground plan; contiguous
//! requests to one OSS are merged (one op = one request).
//!
//! Op counts for a write inside one element (pinned by the tests below):
//! - RAID-5, k >= 3: data read + parity read + data write + parity write = 4 ops on 2 OSSs;
//! - RAID-6 (P+Q), k >= 4: data read + P read + Q read + data write + P write + Q write
//!   = 6 ops on 3 OSSs;
//! - full stripe: k data writes + m parity writes, no read.

use crate::layout::Layout;
use crate::plan::{Bytes, IoPlan, PlanBuilder, PlanCause, PlanKind, Zone};
use crate::strategy::*;
use crate::update::{plan_home_parity, NewData};
use crate::{FileId, PlanId};
use exaraid_codes::Cell;
use std::collections::BTreeMap;

/// The STD-RAID write path. Stateless apart from the plan counter: every byte is at home.
pub struct Rmw {
    layout: Layout,
    next_plan: PlanId,
}

impl Rmw {
    pub fn new(layout: Layout) -> Rmw {
        Rmw {
            layout,
            next_plan: 0,
        }
    }

    /// Plan a write of `len_bytes` at `offset_bytes` into `b` (also used by delayed parity
    /// for writes outside any window).
    pub(crate) fn plan_write(
        layout: &Layout,
        b: &mut PlanBuilder,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<(), PlanError> {
        let pieces = layout.split(offset_bytes, len_bytes)?;
        let mut by_stripe: BTreeMap<u64, Vec<(u64, crate::ElementRange)>> = BTreeMap::new();
        for (file_off, e) in pieces {
            by_stripe.entry(e.stripe).or_default().push((file_off, e));
        }
        for (stripe, pieces) in by_stripe {
            let new: Vec<NewData> = pieces
                .iter()
                .map(|(file_off, e)| {
                    let Cell::Data(d) = e.cell else {
                        unreachable!("split yields data pieces")
                    };
                    NewData {
                        data: d,
                        offset_bytes: e.offset_bytes,
                        len_bytes: e.len_bytes,
                        source: Bytes::Client {
                            file_offset_bytes: *file_off,
                        },
                        after: Vec::new(),
                    }
                })
                .collect();
            let update = plan_home_parity(b, layout, file, stripe, &new);
            for (file_off, e) in pieces {
                let Cell::Data(d) = e.cell else {
                    unreachable!()
                };
                let after = update.old_data_reads.get(&d).cloned().unwrap_or_default();
                let oss = layout.oss_of(file, stripe, e.pos.col);
                let addr = layout.home_addr(stripe, e.pos, e.offset_bytes);
                b.write(
                    oss,
                    Zone::Data,
                    file,
                    addr,
                    e,
                    Bytes::Client {
                        file_offset_bytes: file_off,
                    },
                    after,
                );
            }
        }
        Ok(())
    }
}

impl Strategy for Rmw {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Rmw
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    fn on_write(&mut self, write: &ClientWrite, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        check_write(&self.layout, write)?;
        let mut b = PlanBuilder::new();
        Rmw::plan_write(
            &self.layout,
            &mut b,
            write.file,
            write.offset_bytes,
            write.len_bytes,
        )?;
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
        Err(PlanError::HintNotSupported { strategy: "rmw" })
    }
    fn on_tick(&mut self, _now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        Ok(Vec::new())
    }
    fn lookup(
        &self,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<Extent>, PlanError> {
        home_lookup(&self.layout, file, offset_bytes, len_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{OpCounts, ParityMethod};
    use crate::testing::{raid5, raid6};

    const E: u64 = 64 * 1024;

    fn write(file: u64, offset_bytes: u64, len_bytes: u64) -> ClientWrite {
        ClientWrite {
            client: 1,
            app: 0,
            file,
            offset_bytes,
            len_bytes,
        }
    }

    fn one_plan(s: &mut Rmw, w: ClientWrite) -> IoPlan {
        let mut plans = s.on_write(&w, 0).unwrap();
        assert_eq!(
            plans.len(),
            1,
            "STD-RAID plans one foreground plan per write"
        );
        let p = plans.pop().unwrap();
        assert_eq!(p.kind, PlanKind::Foreground);
        p.validate().unwrap();
        p
    }

    #[test]
    fn raid5_one_element_write_is_four_ops_on_two_osss() {
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap());
        // A partial write inside data element 1 of stripe 3.
        let p = one_plan(&mut s, write(0, 3 * 4 * E + E + 100, 4096));
        assert_eq!(
            p.op_counts(),
            OpCounts {
                data_read: 1,
                data_write: 1,
                parity_read: 1,
                parity_write: 1,
                ..OpCounts::default()
            }
        );
        assert_eq!(p.osses().len(), 2);
        assert_eq!(p.computes.len(), 1);
        assert_eq!(p.computes[0].method, ParityMethod::Delta);
        assert_eq!(p.computes[0].len_bytes, 4096);
    }

    #[test]
    fn raid6_one_element_write_is_six_ops_on_three_osss() {
        let mut s = Rmw::new(Layout::from_geometry(raid6(4), "raid6", E, 6).unwrap());
        let p = one_plan(&mut s, write(0, 2 * E, E));
        assert_eq!(
            p.op_counts(),
            OpCounts {
                data_read: 1,
                data_write: 1,
                parity_read: 2,
                parity_write: 2,
                ..OpCounts::default()
            }
        );
        assert_eq!(p.osses().len(), 3);
    }

    #[test]
    fn full_stripe_write_reads_nothing_and_encodes_from_new_data() {
        for (g, k, m) in [(raid5(4), 4u64, 1u64), (raid6(4), 4, 2)] {
            let width = g.cols;
            let mut s = Rmw::new(Layout::from_geometry(g, "code", E, width).unwrap());
            let p = one_plan(&mut s, write(0, 5 * k * E, k * E));
            assert_eq!(
                p.op_counts(),
                OpCounts {
                    data_write: k,
                    parity_write: m,
                    ..OpCounts::default()
                }
            );
            assert!(p
                .computes
                .iter()
                .all(|c| c.method == ParityMethod::Encode && c.base == Bytes::Zero));
            assert_eq!(p.osses().len(), width);
        }
    }

    #[test]
    fn a_write_of_most_of_a_stripe_switches_to_reconstruct_write() {
        // RAID-5 4+1, write elements 0..3 of a stripe: RMW would read 3 data + 1 parity,
        // reconstruct-write reads only element 3.
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap());
        let p = one_plan(&mut s, write(0, 0, 3 * E));
        assert_eq!(
            p.op_counts(),
            OpCounts {
                data_read: 1,
                data_write: 3,
                parity_write: 1,
                ..OpCounts::default()
            }
        );
        // Two elements: RMW reads 2 data + 1 parity = 3, RCW reads 2: RCW.
        let p = one_plan(&mut s, write(0, 0, 2 * E));
        assert_eq!(
            p.op_counts(),
            OpCounts {
                data_read: 2,
                data_write: 2,
                parity_write: 1,
                ..OpCounts::default()
            }
        );
        // Half of one element: RMW (2 reads) beats RCW (3 reads).
        let p = one_plan(&mut s, write(0, E / 2, E / 4));
        assert_eq!(p.op_counts().data_read, 1);
        assert_eq!(p.op_counts().parity_read, 1);
    }

    #[test]
    fn a_write_across_two_stripes_updates_both_parities() {
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap());
        // Last 100 bytes of stripe 0 and first 100 bytes of stripe 1.
        let p = one_plan(&mut s, write(0, 4 * E - 100, 200));
        assert_eq!(
            p.op_counts(),
            OpCounts {
                data_read: 2,
                data_write: 2,
                parity_read: 2,
                parity_write: 2,
                ..OpCounts::default()
            }
        );
    }

    #[test]
    fn the_data_write_waits_for_the_old_data_read() {
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap());
        let p = one_plan(&mut s, write(0, 10, 10));
        let read = p
            .steps
            .iter()
            .position(|st| st.zone == Zone::Data && st.op == crate::Op::Read)
            .unwrap();
        let write = p
            .steps
            .iter()
            .position(|st| st.zone == Zone::Data && st.op == crate::Op::Write)
            .unwrap();
        assert!(p.steps[write].after.contains(&read));
        assert_eq!(p.steps[write].oss, p.steps[read].oss);
        assert_eq!(p.steps[write].addr_bytes, p.steps[read].addr_bytes);
    }

    #[test]
    fn writes_past_the_limits_are_typed_errors() {
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", 512, 5).unwrap());
        let err = s.on_write(&write(0, 0, 0), 0).unwrap_err();
        assert_eq!(err, PlanError::EmptyWrite);
        let err = s
            .on_write(&write(0, 0, WRITE_BYTES_MAX + 1), 0)
            .unwrap_err();
        assert!(matches!(err, PlanError::WriteTooLarge { .. }), "{err}");
        let err = s
            .on_write(&write(0, 0, 512 * ELEMENTS_PER_WRITE_MAX), 0)
            .unwrap_err();
        assert!(err.to_string().contains("split it"), "{err}");
        let err = s.on_write(&write(0, u64::MAX - 10, 100), 0).unwrap_err();
        assert!(matches!(err, PlanError::BeyondFileLimit { .. }), "{err}");
    }

    #[test]
    fn hints_are_rejected_with_a_clear_error() {
        let mut s = Rmw::new(Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap());
        let err = s.on_hint(&Hint::EndDelayed { window: 1 }, 0).unwrap_err();
        assert!(err.to_string().contains("delayed"), "{err}");
    }
}
