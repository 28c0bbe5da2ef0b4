//! Group commit of the journal: with fsync on, a plan is acknowledged only after a journal
//! fsync that started after its durable record was appended; plans finishing together may
//! share one. Counted with the bench's process-wide probe (this file's only test, so no
//! other test in the process adds to it).

mod common;
use common::*;

use std::sync::atomic::Ordering;

use exaraid_codes::CodeSpec;
use exaraid_store::bench::PROBE;
use exaraid_store::{Store, WritePath};

fn counts() -> (u64, u64) {
    (
        PROBE.plans.load(Ordering::SeqCst),
        PROBE.journal_fsyncs.load(Ordering::SeqCst),
    )
}

#[test]
fn every_plan_waits_for_a_journal_fsync_and_concurrent_plans_may_share_one() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw)
        .close()
        .unwrap();
    let store = Store::open(dir.path()).unwrap(); // fsync on: the store's default
    let write_bytes = 1000;

    // One writer: nothing to share, so exactly two fsyncs per rmw client plan (none
    // skipped, none extra): its input's before its first home write (s22f: a power cut must
    // not keep home bytes of a write whose input it dropped), its durable record's after.
    let (plans_before, fsyncs_before) = counts();
    let writes = 20;
    for i in 0..writes {
        store
            .write(
                "f",
                (i * write_bytes) as u64,
                &pattern(i as u64, write_bytes),
            )
            .unwrap();
    }
    let (plans, fsyncs) = counts();
    let plans = plans - plans_before;
    assert!(
        plans >= writes as u64,
        "one plan or more per write: {plans}"
    );
    assert_eq!(
        fsyncs - fsyncs_before,
        2 * plans,
        "journal fsyncs, one writer"
    );

    // Eight writers on disjoint ranges: at most two fsyncs per plan, every write durable.
    let (plans_before, fsyncs_before) = counts();
    let threads = 8;
    std::thread::scope(|s| {
        for t in 0..threads {
            let store = &store;
            s.spawn(move || {
                for i in 0..writes {
                    let at = ((writes + t * writes + i) * write_bytes) as u64;
                    store
                        .write("f", at, &pattern((t * writes + i) as u64, write_bytes))
                        .unwrap();
                }
            });
        }
    });
    let (plans, fsyncs) = counts();
    let (plans, fsyncs) = (plans - plans_before, fsyncs - fsyncs_before);
    assert!(plans >= (threads * writes) as u64);
    assert!(
        (1..=2 * plans).contains(&fsyncs),
        "{fsyncs} journal fsyncs for {plans} plans"
    );
    let got = store.get("f").unwrap();
    for t in 0..=threads {
        for i in 0..writes {
            let (at, seed) = if t == 0 {
                (i * write_bytes, i)
            } else {
                (
                    (writes + (t - 1) * writes + i) * write_bytes,
                    (t - 1) * writes + i,
                )
            };
            assert!(
                got[at..at + write_bytes] == pattern(seed as u64, write_bytes)[..],
                "write {i} of writer {t}"
            );
        }
    }
    assert_consistent(&store);
}
