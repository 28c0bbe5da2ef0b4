//! `exaraid sim bench`: the event engine's rate on a hold model shaped like the simulator's
//! load (about 1e5 pending events, each fired event schedules one new event a random,
//! device-like delay ahead), side by side with `std::collections::BinaryHeap` on the same
//! event sequence.

use exaraid_des::{Engine, TimeNs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub pending: usize,
    pub events: u64,
    /// Wall seconds (inflated on a loaded machine).
    pub engine_seconds: f64,
    /// Events per CPU second of the benchmark thread.
    pub engine_events_per_s: f64,
    pub binary_heap_seconds: f64,
    pub binary_heap_events_per_s: f64,
    /// engine rate / BinaryHeap rate, measured in the same run.
    pub speedup: f64,
    /// The simulator's own end-to-end rate on a small Figure 3 point (events per CPU
    /// second, planner included), if measured.
    pub simulator_events_per_s: Option<f64>,
}

/// An event as large as the simulator's (16 bytes).
#[derive(Clone, Copy)]
struct Payload {
    _a: u64,
    _b: u32,
    _c: u16,
}

/// Delays drawn like device service times: 50 us .. 20 ms.
fn delays(n: usize, seed: u64) -> Vec<TimeNs> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(50_000..20_000_000)).collect()
}

pub fn run(pending: usize, events: u64) -> BenchResult {
    assert!(pending > 0 && events > 0);
    let table = delays(1 << 16, 42);
    let mask = table.len() - 1;

    // exaraid-des engine.
    let mut engine: Engine<Payload> = Engine::new(pending * 2);
    for i in 0..pending {
        engine.schedule_at(
            table[i & mask],
            Payload {
                _a: i as u64,
                _b: 0,
                _c: 0,
            },
        );
    }
    let start = Instant::now();
    let cpu0 = crate::experiment::thread_cpu_seconds();
    let mut i = 0usize;
    let mut checksum = 0u64;
    for _ in 0..events {
        let (t, e) = engine.pop().expect("hold model never drains");
        checksum = checksum.wrapping_add(t ^ e._a);
        i += 1;
        engine.schedule_in(table[i & mask], e);
    }
    let engine_seconds = start.elapsed().as_secs_f64();
    let engine_cpu_seconds = crate::experiment::thread_cpu_seconds() - cpu0;

    // The same sequence on std's BinaryHeap with (time, seq) keys.
    let mut heap: BinaryHeap<Reverse<(TimeNs, u64, u64)>> = BinaryHeap::with_capacity(pending * 2);
    let mut seq = 0u64;
    for i in 0..pending {
        seq += 1;
        heap.push(Reverse((table[i & mask], seq, i as u64)));
    }
    let start = Instant::now();
    let cpu1 = crate::experiment::thread_cpu_seconds();
    let mut i = 0usize;
    let mut checksum2 = 0u64;
    for _ in 0..events {
        let Reverse((t, _, a)) = heap.pop().expect("hold model never drains");
        checksum2 = checksum2.wrapping_add(t ^ a);
        i += 1;
        seq += 1;
        heap.push(Reverse((t + table[i & mask], seq, a)));
    }
    let binary_heap_seconds = start.elapsed().as_secs_f64();
    let binary_heap_cpu_seconds = crate::experiment::thread_cpu_seconds() - cpu1;
    // Both queues fired the same events in the same order.
    assert_eq!(
        checksum, checksum2,
        "engine and BinaryHeap disagree on the event order"
    );

    // Per core: events per CPU second of this thread (wall time counts waiting for a CPU
    // on a shared machine).
    let engine_events_per_s = events as f64 / engine_cpu_seconds.max(1e-9);
    let binary_heap_events_per_s = events as f64 / binary_heap_cpu_seconds.max(1e-9);
    BenchResult {
        pending,
        events,
        engine_seconds,
        engine_events_per_s,
        binary_heap_seconds,
        binary_heap_events_per_s,
        speedup: engine_events_per_s / binary_heap_events_per_s,
        simulator_events_per_s: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_runs_and_both_queues_agree() {
        let r = super::run(1000, 20_000);
        assert_eq!(r.events, 20_000);
        assert!(r.engine_events_per_s > 0.0 && r.binary_heap_events_per_s > 0.0);
    }
}
