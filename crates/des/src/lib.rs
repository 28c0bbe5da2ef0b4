//! A deterministic discrete-event engine.
//!
//! Time is an integer count of nanoseconds so that runs are bit-identical across machines
//! (no float accumulation in the clock). Events at the same instant fire in the order they
//! were scheduled (a sequence number breaks ties), which makes a run a pure function of its
//! inputs and seed.
//!
//! The engine knows nothing of storage: the PFS simulator and the tape tier each define
//! their own event type and drive `pop` in their own loop.


/// Simulated time in nanoseconds.
pub type TimeNs = u64;

pub const NS_PER_US: TimeNs = 1_000;
pub const NS_PER_MS: TimeNs = 1_000_000;
pub const NS_PER_S: TimeNs = 1_000_000_000;

/// Convert seconds (a model constant) to engine time, rounding to the nearest nanosecond.
pub fn ns_from_s(seconds: f64) -> TimeNs {
    assert!(seconds.is_finite() && seconds >= 0.0, "a duration must be finite and >= 0, got {seconds}");
    (seconds * NS_PER_S as f64).round() as TimeNs
}

pub fn s_from_ns(ns: TimeNs) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// One pending event. The key packs (time, sequence) into one `u128` so that the heap
/// compares a single integer: earliest time first, then schedule order.
struct Entry<E> {
    key: u128,
    event: E,
}

#[inline(always)]
fn key_of(at_ns: TimeNs, seq: u64) -> u128 {
    ((at_ns as u128) << 64) | seq as u128
}

#[inline(always)]
fn at_of(key: u128) -> TimeNs {
    (key >> 64) as TimeNs
}

/// Children per heap node. A 4-ary heap halves the depth of a binary heap and keeps the
/// four children of a node in one or two cache lines: measured by `exaraid sim bench`
/// against `std::collections::BinaryHeap` (docs/results/sim-figure3.md).
const ARITY: usize = 4;

/// The event queue and the clock.
pub struct Engine<E> {
    now_ns: TimeNs,
    seq: u64,
    /// A min-heap on `key` with `ARITY` children per node.
    heap: Vec<Entry<E>>,
    events_fired: u64,
    /// A limit on pending events: a model that schedules without bound is a bug, and
    /// failing loudly beats exhausting memory.
    pending_max: usize,
}

impl<E> Engine<E> {
    pub fn new(pending_max: usize) -> Engine<E> {
        assert!(pending_max > 0);
        Engine { now_ns: 0, seq: 0, heap: Vec::new(), events_fired: 0, pending_max }
    }

    pub fn now_ns(&self) -> TimeNs {
        self.now_ns
    }

    pub fn events_fired(&self) -> u64 {
        self.events_fired
    }

    pub fn pending(&self) -> usize {
        self.heap.len()
    }

    /// Schedule `event` at absolute time `at_ns` (never in the past).
    #[inline]
    pub fn schedule_at(&mut self, at_ns: TimeNs, event: E) {
        assert!(at_ns >= self.now_ns, "event scheduled in the past: {at_ns} < now {}", self.now_ns);
        assert!(self.heap.len() < self.pending_max, "more than {} pending events: runaway model", self.pending_max);
        self.seq += 1;
        let key = key_of(at_ns, self.seq);
        self.heap.push(Entry { key, event });
        self.sift_up(self.heap.len() - 1);
    }

    /// Schedule `event` `delay_ns` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay_ns: TimeNs, event: E) {
        let at = self.now_ns.checked_add(delay_ns).expect("simulated time overflow");
        self.schedule_at(at, event);
    }

    /// Advance the clock to the next event and return it.
    #[inline]
    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        let len = self.heap.len();
        if len == 0 {
            return None;
        }
        let last = self.heap.pop().expect("non-empty");
        let entry = if len == 1 {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.sift_down(0);
            top
        };
        let at_ns = at_of(entry.key);
        debug_assert!(at_ns >= self.now_ns);
        self.now_ns = at_ns;
        self.events_fired += 1;
        Some((at_ns, entry.event))
    }

    /// The time of the next event, if any, without firing it.
    pub fn peek_ns(&self) -> Option<TimeNs> {
        self.heap.first().map(|e| at_of(e.key))
    }

    #[inline(always)]
    fn sift_up(&mut self, mut i: usize) {
        let heap = &mut self.heap;
        let key = heap[i].key;
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if heap[parent].key <= key {
                break;
            }
            heap.swap(i, parent);
            i = parent;
        }
    }

    #[inline(always)]
    fn sift_down(&mut self, mut i: usize) {
        let heap = &mut self.heap;
        let len = heap.len();
        let key = heap[i].key;
        loop {
            let first = i * ARITY + 1;
            if first >= len {
                break;
            }
            let end = (first + ARITY).min(len);
            let mut best = first;
            let mut best_key = heap[first].key;
            for c in first + 1..end {
                let k = heap[c].key;
                if k < best_key {
                    best = c;
                    best_key = k;
                }
            }
            if best_key >= key {
                break;
            }
            heap.swap(i, best);
            i = best;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_fire_in_time_order_and_ties_in_schedule_order() {
        let mut engine = Engine::new(16);
        engine.schedule_at(30, "c");
        engine.schedule_at(10, "a");
        engine.schedule_at(10, "b");
        engine.schedule_at(20, "x");
        let order: Vec<_> = std::iter::from_fn(|| engine.pop()).collect();
        assert_eq!(order, vec![(10, "a"), (10, "b"), (20, "x"), (30, "c")]);
        assert_eq!(engine.now_ns(), 30);
        assert_eq!(engine.events_fired(), 4);
    }

    #[test]
    fn matches_a_sorted_reference_on_a_long_random_interleaving() {
        // A small xorshift so the test needs no dependency and is deterministic.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut engine = Engine::new(1 << 20);
        let mut reference: Vec<(TimeNs, u64)> = Vec::new();
        let mut fired = Vec::new();
        let mut id = 0u64;
        for round in 0..2000 {
            for _ in 0..(next() % 5) {
                let at = engine.now_ns() + next() % 50;
                engine.schedule_at(at, id);
                reference.push((at, id));
                id += 1;
            }
            if round % 3 != 0 {
                if let Some(e) = engine.pop() {
                    fired.push(e);
                }
            }
        }
        while let Some(e) = engine.pop() {
            fired.push(e);
        }
        assert_eq!(fired.len(), reference.len());
        // Times never go backwards, and equal times fire in schedule (id) order.
        for w in fired.windows(2) {
            assert!(w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1), "{w:?}");
        }
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_a_bug() {
        let mut engine = Engine::new(4);
        engine.schedule_at(10, ());
        engine.pop();
        engine.schedule_at(5, ());
    }

    #[test]
    #[should_panic(expected = "runaway model")]
    fn pending_limit_is_enforced() {
        let mut engine = Engine::new(2);
        for t in 0..3 {
            engine.schedule_at(t, ());
        }
    }
}
