//! A small set of disjoint half-open byte intervals `[start, end)`, merged on insert.
//!
//! The write cache layer needs exactly three questions answered per element: which bytes
//! are already written (is the element complete? does a new write overwrite?), and which
//! sub-ranges of a query are covered. A `BTreeMap<start, end>` answers them in
//! O(log n + hits); no crate needed for that.

use std::collections::BTreeMap;

/// Disjoint, non-adjacent half-open intervals (adjacent ones are merged).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalSet {
    /// start -> end, with `start < end` and `end < next start`.
    runs: BTreeMap<u64, u64>,
}

impl IntervalSet {
    pub fn new() -> IntervalSet {
        IntervalSet {
            runs: BTreeMap::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Number of disjoint runs.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Total bytes covered.
    pub fn covered_bytes(&self) -> u64 {
        self.runs.iter().map(|(s, e)| e - s).sum()
    }

    /// Add `[start, end)`, merging with overlapping or adjacent runs.
    pub fn insert(&mut self, start: u64, end: u64) {
        assert!(start < end, "empty interval [{start}, {end})");
        let mut new_start = start;
        let mut new_end = end;
        // The run that starts at or before `start` may overlap or touch it.
        if let Some((&s, &e)) = self.runs.range(..=start).next_back() {
            if e >= start {
                new_start = s;
                new_end = new_end.max(e);
            }
        }
        // Runs starting inside [new_start, new_end] are absorbed.
        let absorbed: Vec<(u64, u64)> = self
            .runs
            .range(new_start..=new_end)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in absorbed {
            self.runs.remove(&s);
            new_end = new_end.max(e);
        }
        self.runs.insert(new_start, new_end);
        self.check();
    }

    /// Does the set cover every byte of `[start, end)`?
    pub fn covers(&self, start: u64, end: u64) -> bool {
        assert!(start < end);
        match self.runs.range(..=start).next_back() {
            Some((_, &e)) => e >= end,
            None => false,
        }
    }

    /// Does the set cover any byte of `[start, end)`?
    pub fn overlaps(&self, start: u64, end: u64) -> bool {
        assert!(start < end);
        if let Some((_, &e)) = self.runs.range(..=start).next_back() {
            if e > start {
                return true;
            }
        }
        self.runs.range(start..end).next().is_some()
    }

    /// Split `[start, end)` into maximal pieces, each wholly covered (`true`) or wholly
    /// uncovered (`false`), in address order.
    pub fn split(&self, start: u64, end: u64) -> Vec<(u64, u64, bool)> {
        assert!(start < end);
        let mut out = Vec::new();
        let mut at = start;
        let first = self.runs.range(..=start).next_back().map(|(&s, &e)| (s, e));
        let rest = self.runs.range(start + 1..end).map(|(&s, &e)| (s, e));
        for (s, e) in first.into_iter().chain(rest) {
            if e <= at || s >= end {
                continue;
            }
            if s > at {
                out.push((at, s, false));
            }
            let covered_end = e.min(end);
            out.push((at.max(s), covered_end, true));
            at = covered_end;
        }
        if at < end {
            out.push((at, end, false));
        }
        out
    }

    /// The runs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.runs.iter().map(|(&s, &e)| (s, e))
    }

    fn check(&self) {
        if cfg!(debug_assertions) {
            let mut prev_end: Option<u64> = None;
            for (&s, &e) in &self.runs {
                assert!(s < e, "empty run");
                if let Some(p) = prev_end {
                    assert!(p < s, "runs overlap or touch");
                }
                prev_end = Some(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn inserting_adjacent_and_overlapping_runs_merges_them() {
        let mut set = IntervalSet::new();
        set.insert(10, 20);
        set.insert(30, 40);
        assert_eq!(set.runs(), 2);
        set.insert(20, 30);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(10, 40)]);
        set.insert(5, 12);
        set.insert(39, 50);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(5, 50)]);
        assert!(set.covers(5, 50));
        assert!(!set.covers(4, 6));
        assert!(set.overlaps(0, 6));
        assert!(!set.overlaps(50, 60));
    }

    #[test]
    fn split_alternates_covered_and_uncovered_pieces() {
        let mut set = IntervalSet::new();
        set.insert(10, 20);
        set.insert(30, 40);
        assert_eq!(
            set.split(0, 50),
            vec![
                (0, 10, false),
                (10, 20, true),
                (20, 30, false),
                (30, 40, true),
                (40, 50, false)
            ]
        );
        assert_eq!(
            set.split(15, 35),
            vec![(15, 20, true), (20, 30, false), (30, 35, true)]
        );
    }

    proptest! {
        #[test]
        fn set_matches_a_bitmap(ranges in prop::collection::vec((0u64..200, 1u64..40), 0..20), q in (0u64..200, 1u64..60)) {
            let mut set = IntervalSet::new();
            let mut bits = vec![false; 300];
            for (s, l) in ranges {
                set.insert(s, s + l);
                for b in s..s + l { bits[b as usize] = true; }
            }
            prop_assert_eq!(set.covered_bytes(), bits.iter().filter(|b| **b).count() as u64);
            let (qs, ql) = q;
            let qe = qs + ql;
            prop_assert_eq!(set.covers(qs, qe), (qs..qe).all(|b| bits[b as usize]));
            prop_assert_eq!(set.overlaps(qs, qe), (qs..qe).any(|b| bits[b as usize]));
            let pieces = set.split(qs, qe);
            let mut at = qs;
            for (s, e, covered) in pieces {
                prop_assert_eq!(s, at);
                prop_assert!(s < e);
                for b in s..e { prop_assert_eq!(bits[b as usize], covered); }
                at = e;
            }
            prop_assert_eq!(at, qe);
        }
    }
}
