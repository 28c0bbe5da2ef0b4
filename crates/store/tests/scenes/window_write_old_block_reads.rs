//! A delayed window write reads the bytes before it of its blocks in one read per element
//! it writes, not one per block (task s13c).
//!
//! Why: the crcs a window write journals (s12t, `WindowBlockCrcs::page_cuts`) need the old
//! tail of every block with a page boundary inside, and zone slots are 4096 + 4 bytes per
//! block, so nearly every block has one: a 128 KiB window write made about 32 verified
//! 4 KiB reads (three syscalls each) before it wrote anything.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{ElementKey, Zone};
use exaraid_store::{InitOptions, OpenOptions, Store, WritePath};

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

#[test]
fn a_window_write_reads_its_old_blocks_once_per_element() {
    const ELEMENT_BYTES: usize = 64 << 10;
    let dir = scratch();
    let mut options = InitOptions::with_oss_count(dir.path(), 5, CodeSpec::raid5(4));
    options.element_bytes = ELEMENT_BYTES;
    options.write_path = WritePath::Delayed;
    Store::init(dir.path(), &options).unwrap().close().unwrap();
    let hook = Arc::new(CountCacheReads::default());
    let store = open_wrapped(dir.path(), &hook, &[], OpenOptions::default()).unwrap();
    let token = store.delayed_start("f").unwrap();
    // Three stripes, so that the write below lands in cache slots past the first of each
    // OSS: a slot's blocks start at 4096 + 4 bytes times its block number from the zone
    // file's start, so the first slot's blocks are page-aligned and later ones are not.
    let first = pattern(1, 12 * ELEMENT_BYTES);
    store.write("f", 0, &first).unwrap();
    // Over the first write in its third stripe, 4 KiB on: three elements, the first and
    // the last partial.
    let at = 8 * ELEMENT_BYTES + 4096;
    let second = pattern(2, 2 * ELEMENT_BYTES);
    hook.reads.store(0, Ordering::SeqCst);
    store.write("f", at as u64, &second).unwrap();
    let reads = hook.reads.load(Ordering::SeqCst);
    assert!(
        reads <= 3,
        "a window write over 3 elements made {reads} cache-zone reads (one per block)"
    );
    store.delayed_end(&token).unwrap();
    let mut want = first.clone();
    want[at..at + second.len()].copy_from_slice(&second);
    assert_eq!(store.get("f").unwrap(), want);
    assert_consistent(&store);
}
