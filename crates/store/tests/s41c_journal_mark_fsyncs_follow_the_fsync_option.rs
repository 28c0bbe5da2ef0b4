//! Session 41 (s39c's note): `checkpoint_locked` fdatasync'd every OSS's journal mark
//! (`Backend::sync_journal_mark`) also on a store opened without fsync, whose marks name
//! records only written (`backend::JOURNAL_MARK_FILE`). Such a store promises no record
//! durable, and the checkpoint's state snapshot, fsync'd after the marks, holds every
//! record they name: the fdatasync bought no detection, cost one fsync per OSS per
//! checkpoint, and made a power cut between it and the snapshot keep a mark past the
//! journal's unsynced tail for certain (a refusal).
//!
//! Specification, by the probe counter `PROBE.journal_mark_fsyncs` (process-wide: this
//! binary holds this one test): a checkpoint of a store without fsync whose WCL writes wrote
//! marks fdatasyncs none of them; the same checkpoint with fsync on fdatasyncs the mark its
//! last write left unsynced (the control: the probe sees a checkpoint's mark fsyncs).

mod common;

use std::sync::atomic::Ordering;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::backend::JOURNAL_MARK_FILE;
use exaraid_store::bench::PROBE;
use exaraid_store::Store;

#[test]
fn a_checkpoint_fdatasyncs_journal_marks_only_on_a_store_with_fsync() {
    for fsync in [false, true] {
        let code = CodeSpec::raid6(4);
        let (_top, dir, _layout) = init_wcl_without_timeout(code);
        let store = match fsync {
            true => Store::open(&dir).unwrap(),
            false => open_unsynced(&dir),
        };
        store.put("f", &pattern(1, 8 * UNIT)).unwrap();
        // Two writes within the mark's fdatasync interval (one second): with fsync on, the
        // second's mark is written and left for the checkpoint to fdatasync.
        store.write("f", 100, &pattern(2, UNIT)).unwrap();
        store.write("f", 100, &pattern(3, UNIT)).unwrap();
        let marks = (0..columns(code))
            .filter(|oss| {
                dir.join(format!("oss-{oss}"))
                    .join(JOURNAL_MARK_FILE)
                    .exists()
            })
            .count();
        assert!(marks > 0, "fsync {fsync}: the WCL writes left marks");
        let before = PROBE.journal_mark_fsyncs.load(Ordering::SeqCst);
        store.checkpoint().unwrap();
        let mark_fsyncs = PROBE.journal_mark_fsyncs.load(Ordering::SeqCst) - before;
        eprintln!(
            "fsync {fsync}: {marks} OSSs with a mark, the checkpoint fdatasync'd {mark_fsyncs}"
        );
        match fsync {
            false => assert_eq!(
                mark_fsyncs, 0,
                "a checkpoint of a store without fsync fdatasync'd journal marks"
            ),
            true => assert!(
                mark_fsyncs > 0,
                "the control: a checkpoint with fsync on fdatasyncs the marks left unsynced"
            ),
        }
        store.close().unwrap();
    }
}
