//! The one reader of a cut client write's journaled data crcs (`Rec::WriteCrcs`) for every
//! rule that asks them (session 34, s34d; item (5) of "OPEN after session 33").
//!
//! One write journals one `WriteCrcs` record naming all its plans today, but a journal of
//! another binary (or a later change) may hold several for one plan and file. A reader of
//! the FIRST record alone says "nothing on record" of bytes a later record tells (merge
//! review of session 32, H2): s33d routed `write_crc_matches` and `confirm_by_versions`
//! through `write_crc_of`; `cache_block_parts_landed`, the home cut writes' `CutWriteCrcs`,
//! `cut_row_crcs` and `JournaledCrcs::of` (the last with no file filter) still took the
//! first. All ask `WriteCrcRecords` now: every record of the plan and file, and those that
//! tell a range must agree (`agreed_crc`, as the restore's since s32d). Records that
//! disagree tell nothing there: each reader then takes the range as it takes one with no
//! crcs on record (a journal of an older binary), never as proven. This binary writes one
//! record per write, so they agree (or there is one); a second record that agrees only
//! adds the proof of a range the first did not cover.

use exaraid_plan::PlanId;

use super::dropped_cut_blocks::agreed_crc;
use crate::state::{State, WriteCrcs};

/// Every `WriteCrcs` record of one plan and file (state order).
#[derive(Clone, Debug, Default)]
pub(in crate::store) struct WriteCrcRecords<'s> {
    records: Vec<&'s WriteCrcs>,
}

impl<'s> WriteCrcRecords<'s> {
    /// The records naming `plan` among its plans, of `file`.
    pub(in crate::store) fn of(state: &'s State, plan: PlanId, file: u64) -> WriteCrcRecords<'s> {
        WriteCrcRecords {
            records: (state.write_crcs.iter())
                .filter(|w| w.plans.contains(&plan) && w.file == file)
                .collect(),
        }
    }

    /// No record: the write journaled none (a kill before its record, an older binary).
    pub(in crate::store) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The crc the records tell of the write's bytes at file range `[at, end)` (exactly its
    /// part of one 4 KiB block, `WriteCrcs::crc_of`): `None` where none tells it or two
    /// that tell it disagree.
    pub(in crate::store) fn crc_of(&self, at: u64, end: u64) -> Option<u32> {
        agreed_crc(self.records.iter().map(|w| w.crc_of(at, end)))
    }

    /// Each record's file range that meets `[start, end)`, clipped to it (a writer's parts
    /// of one block: one per record that reaches it; records over the same bytes give the
    /// same part once).
    pub(in crate::store) fn parts_in(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
        assert!(start < end);
        let mut parts: Vec<(u64, u64)> = Vec::new();
        for w in &self.records {
            let (p, q) = (
                w.offset_bytes.max(start),
                (w.offset_bytes + w.len_bytes).min(end),
            );
            if p < q && !parts.contains(&(p, q)) {
                parts.push((p, q));
            }
        }
        parts
    }
}

#[cfg(test)]
pub(in crate::store) mod tests {
    use super::*;

    const BLOCK: u64 = WriteCrcs::BLOCK_BYTES;

    pub(in crate::store) fn bytes_of(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (z ^ (z >> 31)) as u8
            })
            .collect()
    }

    /// Plan 7 of file 3 with two records: the first over block 0, the second over block 2
    /// (two pieces of one write journaled apart). Also a record of another plan and one of
    /// another file over block 2 with other bytes: never asked for plan 7 of file 3.
    pub(in crate::store) fn state_with_two_records() -> (State, Vec<u8>, Vec<u8>) {
        let (first, second) = (bytes_of(1, 1000), bytes_of(2, 3000));
        let mut state = State::default();
        state
            .write_crcs
            .push(WriteCrcs::of(vec![7], 3, 100, &first));
        state
            .write_crcs
            .push(WriteCrcs::of(vec![8], 3, 2 * BLOCK, &bytes_of(9, 3000)));
        state
            .write_crcs
            .push(WriteCrcs::of(vec![7], 4, 2 * BLOCK, &bytes_of(10, 3000)));
        state
            .write_crcs
            .push(WriteCrcs::of(vec![6, 7], 3, 2 * BLOCK, &second));
        (state, first, second)
    }

    #[test]
    fn every_record_of_the_plan_and_file_tells_its_range_not_only_the_first() {
        let (state, first, second) = state_with_two_records();
        let r = WriteCrcRecords::of(&state, 7, 3);
        assert!(!r.is_empty());
        assert_eq!(r.crc_of(100, 1100), Some(crc32c::crc32c(&first)));
        assert_eq!(
            r.crc_of(2 * BLOCK, 2 * BLOCK + 3000),
            Some(crc32c::crc32c(&second)),
            "the second record's range"
        );
        // Not a part a record tells exactly: nothing.
        assert_eq!(r.crc_of(2 * BLOCK, 2 * BLOCK + 2000), None);
        // Parts in blocks 0, 1 and 2.
        assert_eq!(r.parts_in(0, BLOCK), vec![(100, 1100)]);
        assert_eq!(r.parts_in(BLOCK, 2 * BLOCK), vec![]);
        assert_eq!(
            r.parts_in(2 * BLOCK, 3 * BLOCK),
            vec![(2 * BLOCK, 2 * BLOCK + 3000)]
        );
        assert!(WriteCrcRecords::of(&state, 5, 3).is_empty());
    }

    #[test]
    fn records_that_disagree_on_a_range_prove_nothing_there() {
        let (mut state, first, _) = state_with_two_records();
        let mut other = first.clone();
        other[10] ^= 1;
        state
            .write_crcs
            .push(WriteCrcs::of(vec![7], 3, 100, &other));
        let r = WriteCrcRecords::of(&state, 7, 3);
        assert_eq!(r.crc_of(100, 1100), None);
        // The same bytes journaled twice agree.
        state.write_crcs.pop();
        state
            .write_crcs
            .push(WriteCrcs::of(vec![7], 3, 100, &first));
        let r = WriteCrcRecords::of(&state, 7, 3);
        assert_eq!(r.crc_of(100, 1100), Some(crc32c::crc32c(&first)));
        assert_eq!(r.parts_in(0, BLOCK), vec![(100, 1100)], "one part, once");
    }
}
