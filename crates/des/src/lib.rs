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
    assert!(
        seconds.is_finite() && seconds >= 0.0,
        "a duration must be finite and >= 0, got {seconds}"
    );
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

/// Buckets of the radix heap: bucket 0 holds the key equal to the last popped key, bucket
/// i (1..=128) the keys whose highest bit differing from it is bit i-1.
const BUCKETS: usize = 129;

/// The event queue and the clock.
///
/// A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) over the packed (time, sequence) key.
/// It needs keys that never go below the last popped one, which a discrete-event clock
/// guarantees (no event in the past, and the sequence number grows). A push is O(1); a pop
/// redistributes one bucket, and each entry only ever moves to lower buckets, so the
/// amortised cost is small and independent of the number of pending events' order.
/// `exaraid sim bench` measures it beside `std::collections::BinaryHeap`.
pub struct Engine<E> {
    now_ns: TimeNs,
    seq: u64,
    /// The last popped key: every pending key is greater.
    last: u128,
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit i set when bucket i is non-empty.
    nonempty: [u64; 3],
    len: usize,
    events_fired: u64,
    /// A limit on pending events: a model that schedules without bound is a bug, and
    /// failing loudly beats exhausting memory.
    pending_max: usize,
}

#[inline(always)]
fn bucket_of(key: u128, last: u128) -> usize {
    let diff = key ^ last;
    if diff == 0 {
        0
    } else {
        128 - diff.leading_zeros() as usize
    }
}

impl<E> Engine<E> {
    pub fn new(pending_max: usize) -> Engine<E> {
        assert!(pending_max > 0);
        Engine {
            now_ns: 0,
            seq: 0,
            last: 0,
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            nonempty: [0; 3],
            len: 0,
            events_fired: 0,
            pending_max,
        }
    }

    pub fn now_ns(&self) -> TimeNs {
        self.now_ns
    }

    pub fn events_fired(&self) -> u64 {
        self.events_fired
    }

    pub fn pending(&self) -> usize {
        self.len
    }

    /// Schedule `event` at absolute time `at_ns` (never in the past).
    #[inline]
    pub fn schedule_at(&mut self, at_ns: TimeNs, event: E) {
        assert!(
            at_ns >= self.now_ns,
            "event scheduled in the past: {at_ns} < now {}",
            self.now_ns
        );
        assert!(
            self.len < self.pending_max,
            "more than {} pending events: runaway model",
            self.pending_max
        );
        self.seq += 1;
        let key = key_of(at_ns, self.seq);
        debug_assert!(key > self.last);
        self.push(Entry { key, event });
        self.len += 1;
    }

    #[inline(always)]
    fn push(&mut self, entry: Entry<E>) {
        let b = bucket_of(entry.key, self.last);
        self.buckets[b].push(entry);
        self.nonempty[b >> 6] |= 1 << (b & 63);
    }

    /// Schedule `event` `delay_ns` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay_ns: TimeNs, event: E) {
        let at = self
            .now_ns
            .checked_add(delay_ns)
            .expect("simulated time overflow");
        self.schedule_at(at, event);
    }

    fn first_nonempty(&self) -> Option<usize> {
        self.nonempty
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// Advance the clock to the next event and return it.
    #[inline]
    pub fn pop(&mut self) -> Option<(TimeNs, E)> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let b = self
                .first_nonempty()
                .expect("len > 0 means a non-empty bucket");
            debug_assert!(b > 0);
            let mut moving = std::mem::take(&mut self.buckets[b]);
            self.nonempty[b >> 6] &= !(1 << (b & 63));
            self.last = moving
                .iter()
                .map(|e| e.key)
                .min()
                .expect("non-empty bucket");
            for entry in moving.drain(..) {
                self.push(entry);
            }
            // Keep the bucket's allocation for reuse.
            self.buckets[b] = moving;
        }
        let entry = self.buckets[0].pop().expect("bucket 0 holds the minimum");
        debug_assert!(self.buckets[0].is_empty(), "keys are unique");
        self.nonempty[0] &= !1;
        self.len -= 1;
        let at_ns = at_of(entry.key);
        debug_assert!(at_ns >= self.now_ns);
        self.now_ns = at_ns;
        self.events_fired += 1;
        Some((at_ns, entry.event))
    }

    /// The time of the next event, if any, without firing it.
    pub fn peek_ns(&self) -> Option<TimeNs> {
        if self.len == 0 {
            return None;
        }
        let b = self.first_nonempty()?;
        self.buckets[b].iter().map(|e| e.key).min().map(at_of)
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
            assert!(
                w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1),
                "{w:?}"
            );
        }
    }

    #[test]
    fn peek_sees_the_next_event_without_firing_it() {
        let mut engine = Engine::new(16);
        assert_eq!(engine.peek_ns(), None);
        engine.schedule_at(40, 1);
        engine.schedule_at(7, 2);
        assert_eq!(engine.peek_ns(), Some(7));
        assert_eq!(engine.pop(), Some((7, 2)));
        assert_eq!(engine.peek_ns(), Some(40));
        assert_eq!(engine.pending(), 1);
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
