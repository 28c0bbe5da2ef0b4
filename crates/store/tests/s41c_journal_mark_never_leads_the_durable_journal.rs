//! Review r39c LOW-4: with fsync on, a sync that makes cache zone bytes durable keeps as its
//! OSS's journal mark the record the journal was fsync'd through (`sync_osses`:
//! `GroupCommit::synced_through_seq`), not the last appended. No test held a scene where the
//! two differ, so a mark leading the durable journal by one record passed every test; a
//! power cut alone then left the mark past the journal, and the open refused a healthy
//! store ("lost records it had made durable").
//!
//! The scene, deterministic: writer X's WCL write is parked at its first cache zone write
//! (its input record fsync'd before it); writer Y's WCL write, on another stripe, runs to
//! its `Durable` record and is held inside that record's group-commit fsync
//! (`torture::JOURNAL_GROUP_FSYNC`): appended, not durable. X then goes on: its sync writes
//! its OSSs' marks and it appends its own `Durable` record, and waits for Y's fsync turn.
//! The crash image then: the journal cut where Y's held fsync began (what a power cut keeps
//! at least), every OSS file as written. Specification: that image opens.

mod common;
use common::*;
#[path = "common/hooked.rs"]
mod hooked;
use hooked::*;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::torture::{set_pause_hook, JOURNAL_GROUP_FSYNC};
use exaraid_store::OpenOptions;

const WRITER_Y: &str = "s41c-writer-y";

/// Parks the first cache zone write after `armed` (any thread: the executor writes a plan's
/// elements on threads of its own) until `released`; forwards the journal marks.
#[derive(Default)]
struct ParkCacheWrite {
    armed: AtomicBool,
    parked: AtomicBool,
    released: parking_lot::Mutex<bool>,
    changed: parking_lot::Condvar,
}

impl Hook for ParkCacheWrite {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Cache && self.armed.swap(false, Ordering::SeqCst) {
            self.parked.store(true, Ordering::SeqCst);
            let mut released = self.released.lock();
            while !*released {
                self.changed.wait(&mut released);
            }
        }
        Ok(())
    }
    fn forward_journal_marks(&self) -> bool {
        true
    }
}

impl ParkCacheWrite {
    fn release(&self) {
        *self.released.lock() = true;
        self.changed.notify_all();
    }
}

/// Releases X's parked write when the test's scope unwinds: `thread::scope` joins every
/// thread before it passes a panic on, so a failed step would hang on X instead of failing
/// (review r41c MEDIUM-2).
struct ReleaseOnDrop<'a>(&'a ParkCacheWrite);

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The start of the journal's last whole record and whether it is a `Durable` record.
fn last_record(journal: &std::path::Path) -> (u64, bool) {
    let bytes = std::fs::read(journal).unwrap();
    let Some(&(a, z)) = journal_whole_records(&bytes).last() else {
        return (0, false);
    };
    let payload = String::from_utf8_lossy(&bytes[a + 8..z]);
    (a as u64, payload.contains("\"Durable\""))
}

/// The pause hook is process-wide: it is off when the test ends, failed or not.
struct HookOff;

impl Drop for HookOff {
    fn drop(&mut self) {
        set_pause_hook(None);
    }
}

#[test]
fn a_power_cut_beside_a_group_fsync_in_flight_never_leaves_a_mark_past_the_journal() {
    let _off = HookOff;
    let (top, dir, layout) = init_wcl_without_timeout(CodeSpec::raid5(4));
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let journal = dir.join("journal");
    let hook = Arc::new(ParkCacheWrite::default());
    let store = open_wrapped(&dir, &hook, &[], OpenOptions::default()).unwrap();
    store.put("f", &pattern(1, 2 * stripe_bytes)).unwrap();
    store.write("f", 0, &pattern(2, UNIT)).unwrap();

    // Y held inside the fsync of its `Durable` record; the cut: where that record starts.
    let (held_tx, held) = mpsc::channel::<u64>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let held_tx = Mutex::new(held_tx);
    let journal_in_hook = journal.clone();
    set_pause_hook(Some(Arc::new(move |point: &str| {
        if point != JOURNAL_GROUP_FSYNC || std::thread::current().name() != Some(WRITER_Y) {
            return;
        }
        let (start, durable) = last_record(&journal_in_hook);
        if !durable {
            return;
        }
        held_tx.lock().unwrap().send(start).unwrap();
        go_rx
            .lock()
            .unwrap()
            .recv_timeout(NO_PROGRESS)
            .expect("the test lets Y's fsync go on");
    })));

    hook.armed.store(true, Ordering::SeqCst);
    let image = top.path().join("image");
    let (x_written, y_written) = std::thread::scope(|s| {
        let _release_x = ReleaseOnDrop(&hook);
        let x = s.spawn(|| store.write("f", 0, &pattern(3, UNIT)));
        eventually("X's write parks at its first cache write", || {
            hook.parked.load(Ordering::SeqCst)
        });
        let y = std::thread::Builder::new()
            .name(WRITER_Y.to_string())
            .spawn_scoped(s, || {
                store.write("f", stripe_bytes as u64, &pattern(4, UNIT))
            })
            .unwrap();
        let cut = held
            .recv_timeout(NO_PROGRESS)
            .expect("Y's write reaches the fsync of its Durable record");
        let held_len = std::fs::metadata(&journal).unwrap().len();
        hook.release();
        // X's `Durable` record follows its sync (and the marks it kept).
        eventually(
            "X's write synced its OSSs and appended its Durable record",
            || std::fs::metadata(&journal).unwrap().len() > held_len,
        );
        copy_tree(&dir, &image);
        std::fs::OpenOptions::new()
            .write(true)
            .open(image.join("journal"))
            .unwrap()
            .set_len(cut)
            .unwrap();
        go.send(()).unwrap();
        (x.join().unwrap(), y.join().unwrap())
    });
    set_pause_hook(None);
    x_written.unwrap();
    y_written.unwrap();
    drop(store);

    let options = OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    };
    match exaraid_store::Store::open_with(&image, options) {
        Ok(store) => drop(store),
        Err(e) => panic!(
            "a power cut alone (the journal cut where Y's held fsync began) and the open refused the store: {e}"
        ),
    }
}
