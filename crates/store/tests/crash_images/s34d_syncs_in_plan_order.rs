//! Session 34 (s34d), item (7) of "OPEN after session 33" (s33c's audit): `exec.rs::
//! sync_osses` ran one thread per OSS even where a kill test or an in-process power-cut
//! test asked for plan order (`torture::steps_in_plan_order`), so the n-th pass of
//! `extents-synced` (counted per OSS sync) was another OSS from run to run, and the images
//! an imaged test takes before each sync came in thread order.
//!
//! Specification: with plan order asked, a plan's OSS syncs run one at a time on the
//! calling thread, in the plan's OSS order (ascending index), every time.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, OpenOptions, Store};
use parking_lot::Mutex;
use std::sync::Arc;

/// Records each OSS sync: the OSS and the thread that asked.
#[derive(Default)]
struct SyncLog {
    syncs: Mutex<Vec<(usize, std::thread::ThreadId)>>,
}

impl Hook for SyncLog {
    fn before_sync(&self, oss: usize) -> Result<(), exaraid_store::backend::BackendError> {
        self.syncs.lock().push((oss, std::thread::current().id()));
        Ok(())
    }
}

#[test]
fn with_plan_order_asked_a_writes_oss_syncs_run_on_the_calling_thread_in_plan_order() {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let osses = 4;
    let mut opts = InitOptions::with_oss_count(&dir, osses, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    Store::init(&dir, &opts).unwrap().close().unwrap();

    let log = Arc::new(SyncLog::default());
    let store = open_wrapped(&dir, &log, &[], OpenOptions::default()).unwrap();
    let me = std::thread::current().id();
    // Rounds: one thread-ordered run could come out ascending by chance.
    let rounds = 8;
    for round in 0..rounds {
        log.syncs.lock().clear();
        // One full stripe: a plan writing every OSS.
        let data = splitmix_bytes(34 + round, 3 * UNIT);
        store.write("f", 0, &data).unwrap();
        let syncs = std::mem::take(&mut *log.syncs.lock());
        let order: Vec<usize> = syncs.iter().map(|&(oss, _)| oss).collect();
        assert!(
            syncs.iter().all(|&(_, t)| t == me),
            "round {round}: every sync on the calling thread: {syncs:?}"
        );
        assert_eq!(
            order,
            (0..osses).collect::<Vec<_>>(),
            "round {round}: the plan's OSSs synced once each, in plan order"
        );
        assert_eq!(store.read("f", 0, data.len() as u64).unwrap(), data);
    }
    store.close().unwrap();
}
