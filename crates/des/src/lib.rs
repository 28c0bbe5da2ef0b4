//! A deterministic discrete-event engine.
//!
//! Time is an integer count of nanoseconds so that runs are bit-identical across machines
//! (no float accumulation in the clock). Events at the same instant fire in the order they
//! were scheduled (a sequence number breaks ties), which makes a run a pure function of its
//! inputs and seed.
//!
//! The engine knows nothing of storage: the PFS simulator and the tape tier each define
//! their own event type and drive `pop` in their own loop.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

struct Entry<E> {
    at_ns: TimeNs,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at_ns == other.at_ns && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: reverse so the earliest (time, seq) pops first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_ns, other.seq).cmp(&(self.at_ns, self.seq))
    }
}

/// The event queue and the clock.
pub struct Engine<E> {
    now_ns: TimeNs,
    seq: u64,
    queue: BinaryHeap<Entry<E>>,
    events_fired: u64,
    /// A limit on pending events: a model that schedules without bound is a bug, and
    /// failing loudly beats exhausting memory.
    pending_max: usize,
}

impl<E> Engine<E> {
    pub fn new(pending_max: usize) -> Engine<E> {
        assert!(pending_max > 0);
        Engine { now_ns: 0, seq: 0, queue: BinaryHeap::new(), events_fired: 0, pending_max }
    }

    pub fn now_ns(&self) -> TimeNs {
        self.now_ns
    }

    pub fn events_fired(&self) -> u64 {
        self.events_fired
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Schedule `event` at absolute time `at_ns` (never in the past).
    pub fn schedule_at(&mut self, at_ns: TimeNs, event: E) {
        assert!(at_ns >= self.now_ns, "event scheduled in the past: {at_ns} < now {}", self.now_ns);
        assert!(self.queue.len() < self.pending_max, "more than {} pending events: runaway model", self.pending_max);
        self.seq += 1;
        self.queue.push(Entry { at_ns, seq: self.seq, event });
    }

    /// Schedule `event` `delay_ns` from now.
    pub fn schedule_in(&mut self, delay_ns: TimeNs, event: E) {
        let at = self.now_ns.checked_add(delay_ns).expect("simulated time overflow");
        self.schedule_at(at, event);
    }

    /// Advance the clock to the next event and return it.
    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        let entry = self.queue.pop()?;
        debug_assert!(entry.at_ns >= self.now_ns);
        self.now_ns = entry.at_ns;
        self.events_fired += 1;
        Some((entry.at_ns, entry.event))
    }

    /// The time of the next event, if any, without firing it.
    pub fn peek_ns(&self) -> Option<TimeNs> {
        self.queue.peek().map(|e| e.at_ns)
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
