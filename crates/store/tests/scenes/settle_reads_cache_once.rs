//! A settle (`flush`) reads each cached element of a WCL cache stripe once (task s13c).
//!
//! Why: since s12j (review s11r R11-9) a settle checks each cache stripe against its running
//! parity before its bytes go home, reading every live byte of the cache stripe, and then
//! read the data bytes again to move them home: a 64 MiB flush took 1.6x the CPU time of
//! one without the check. The check's reads are verified and nothing writes the cache zone
//! in between, so the settle takes the data bytes from them.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{ElementKey, Zone};
use exaraid_store::{OpenOptions, WritePath};

#[derive(Default)]
struct CountCacheReads {
    reads: AtomicUsize,
}

impl Hook for CountCacheReads {
    fn before_read(&self, _oss: usize, key: ElementKey) {
        if key.zone == Zone::Cache {
            self.reads.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// One partial cache stripe (every data element written, the last one but for 1000 bytes),
/// flushed by a store that counts its cache-zone reads.
fn flush_reads_of_one_partial_cache_stripe(code: CodeSpec) {
    let cols = columns(code);
    let dir = scratch();
    let store = init(dir.path(), code, cols, WritePath::Wcl);
    let g = store.layout().geometry().clone();
    let data = pattern(7, g.data_count() * UNIT - 1000);
    store.write("f", 0, &data).unwrap();
    store.close().unwrap();
    let hook = Arc::new(CountCacheReads::default());
    let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
    assert!(store.status().unwrap().bytes_waiting_parity > 0, "{code}");
    hook.reads.store(0, Ordering::SeqCst);
    store.flush().unwrap();
    let reads = hook.reads.load(Ordering::SeqCst);
    // Every element of the cache stripe holds one live range: one read each, the check's.
    let elements = g.data_count() + g.parity_pos.len();
    assert!(
        reads <= elements,
        "{code}: the flush made {reads} cache-zone reads of a cache stripe of {elements} elements (each cached byte read more than once)"
    );
    assert_eq!(store.status().unwrap().bytes_waiting_parity, 0, "{code}");
    assert_eq!(store.get("f").unwrap(), data, "{code}");
    assert_consistent(&store);
}

#[test]
fn a_flush_reads_each_cached_element_once_raid6() {
    flush_reads_of_one_partial_cache_stripe(CodeSpec::raid6(4));
}

#[test]
fn a_flush_reads_each_cached_element_once_raid5() {
    flush_reads_of_one_partial_cache_stripe(CodeSpec::raid5(4));
}

#[test]
fn a_flush_reads_each_cached_element_once_array_code() {
    flush_reads_of_one_partial_cache_stripe(CodeSpec::array(CodeKind::Rdp, 5));
}
