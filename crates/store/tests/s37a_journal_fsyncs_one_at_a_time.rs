//! Every fsync of the journal runs in one turn (session 35's open item 5). Linux reports
//! a writeback error once per open file, and the group commit fsyncs a handle sharing the
//! journal's open file: where a group commit's fsync and another fsync of the journal (a
//! synced append's, the checkpoint's truncation) ran at once, the other could take the
//! error and the group commit's return success over pages the kernel dropped,
//! acknowledging its writers over records not on disk (a power cut then loses them).
//! The scene, made deterministic: a writer's group commit is held inside its fsync window
//! (`torture::JOURNAL_GROUP_FSYNC`, its `Durable` record's fsync, the write's last), the
//! next journal fsync is made to fail (`torture::fail_journal_fsyncs`, EIO once, to
//! whichever fsync comes first, as the kernel reports it), and another thread journals
//! synced (a window's START) or checkpoints. Then the writer goes on. Its write must not
//! be acknowledged (on the base, s37a's branch point, it was: the other fsync took the
//! error, the writer's returned success) and the store must be poisoned.

mod common;
use common::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use exaraid_codes::CodeSpec;
use exaraid_store::torture::{
    fail_journal_fsyncs, fail_journal_truncations, set_pause_hook, JOURNAL_GROUP_FSYNC,
};
use exaraid_store::{Store, StoreError, WritePath};

/// The pause hook and the injected failures are process-wide: one test at a time.
static HOOKS_USER: Mutex<()> = Mutex::new(());

/// Both hooks off when a test ends, failed or not (a panic left them armed for the next).
struct HooksOff;

impl Drop for HooksOff {
    fn drop(&mut self) {
        set_pause_hook(None);
        fail_journal_fsyncs(0);
        fail_journal_truncations(0);
    }
}
const WRITER: &str = "s37a-writer";
const WRITE_BYTES: usize = 1000;
/// The writer's group-commit fsync held: its second (an rmw-like write outside a window
/// syncs its input before its home writes, then its `Durable` record: the last before its
/// acknowledgement).
const HELD_FSYNC: usize = 2;

/// A delayed store, fsync on, whose epoch bump and files `f` and `g` are behind it (so the
/// scene's write journals no synced record of its own); `f`'s bytes.
fn scene(dir: &std::path::Path) -> (Store, Vec<u8>) {
    init(dir, CodeSpec::raid5(3), 4, WritePath::Delayed)
        .close()
        .unwrap();
    let store = Store::open(dir).unwrap();
    let f = pattern(1, WRITE_BYTES);
    store.write("f", 0, &f).unwrap();
    store.write("g", 0, &pattern(2, WRITE_BYTES)).unwrap();
    (store, f)
}

/// The writer's group commit runs `other` while held inside its fsync window; returns the
/// writer's result, `other`'s, and the store (for the checks after).
fn overlap(
    dir: &std::path::Path,
    held_fsync: usize,
    other: impl FnOnce(&Store) -> Result<(), StoreError> + Send,
) -> (
    Result<(), StoreError>,
    Result<(), StoreError>,
    Store,
    Vec<u8>,
) {
    let (store, f_old) = scene(dir);
    let passes = Arc::new(AtomicUsize::new(0));
    let (at_fsync_tx, at_fsync) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    let counted = passes.clone();
    set_pause_hook(Some(Arc::new(move |point: &str| {
        if point != JOURNAL_GROUP_FSYNC || std::thread::current().name() != Some(WRITER) {
            return;
        }
        if counted.fetch_add(1, Ordering::SeqCst) + 1 == held_fsync {
            at_fsync_tx.send(()).unwrap();
            go_rx
                .lock()
                .unwrap()
                .recv_timeout(NO_PROGRESS)
                .expect("the test lets the writer's fsync go on");
        }
    })));
    let f_new = pattern(3, WRITE_BYTES);
    let (written, othered) = std::thread::scope(|s| {
        let writer = std::thread::Builder::new()
            .name(WRITER.to_string())
            .spawn_scoped(s, || store.write("f", 0, &f_new))
            .unwrap();
        at_fsync
            .recv_timeout(NO_PROGRESS)
            .expect("the writer's group commit reaches its fsync");
        fail_journal_fsyncs(1);
        let other = s.spawn(|| other(&store));
        // Done (its fsync ran, beside the held one), or waiting for its turn.
        eventually("the other fsync ran or waits for its turn", || {
            other.is_finished() || store.journal_fsync_waiters() > 0
        });
        go.send(()).unwrap();
        (writer.join().unwrap(), other.join().unwrap())
    });
    set_pause_hook(None);
    fail_journal_fsyncs(0);
    assert_eq!(
        passes.load(Ordering::SeqCst),
        held_fsync,
        "the writer's group-commit fsyncs (the held one its last)"
    );
    let mut f = f_old;
    if written.is_ok() {
        f = f_new;
    }
    (written, othered, store, f)
}

/// After the scene: nothing acknowledged over the failed fsync, the store poisoned, and
/// after a reopen (recovery) `f` reads its old bytes or the unacknowledged new ones.
fn check(
    dir: &std::path::Path,
    written: Result<(), StoreError>,
    othered: Result<(), StoreError>,
    store: Store,
    f_old: Vec<u8>,
    what: &str,
) {
    assert!(
        othered.is_err(),
        "{what} succeeded though a journal fsync failed"
    );
    assert!(
        written.is_err(),
        "the writer was acknowledged over a journal fsync held while {what}'s fsync failed ({othered:?}): its records may not be on disk"
    );
    assert!(
        store.write("f", 0, &pattern(4, WRITE_BYTES)).is_err(),
        "the store is poisoned after a failed journal fsync"
    );
    drop(store);
    let store = Store::open(dir).unwrap();
    let f = store.get("f").unwrap();
    assert!(
        f == f_old || f == pattern(3, WRITE_BYTES),
        "f reads WRONG bytes after the reopen"
    );
    assert_consistent(&store);
}

#[test]
fn a_synced_append_failing_beside_a_held_group_commit_acknowledges_no_writer() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    // START journals its planner input synced (`delayed_start`).
    let (written, othered, store, f) = overlap(dir.path(), HELD_FSYNC, |store| {
        store.delayed_start("g").map(|_| ())
    });
    check(dir.path(), written, othered, store, f, "a window's START");
}

#[test]
fn a_checkpoint_failing_beside_a_held_group_commit_acknowledges_no_writer() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    let (written, othered, store, f) = overlap(dir.path(), HELD_FSYNC, Store::checkpoint);
    check(dir.path(), written, othered, store, f, "a checkpoint");
}

/// A close whose checkpoint is written and whose emptying of the journal after it fails its
/// fsync (injected: the close's only journal fsync, nothing changed since the last close)
/// is no failure of the command: the changes were durable before, the state file holds
/// them, and the next open skips the records it holds, whatever length the journal has.
/// It closes with a warning naming the failure (before the lead's mend of s37a the command
/// failed; before s37a a second fsync could pass falsely and warn "not written").
#[test]
fn a_close_whose_journal_emptying_fails_warns_and_loses_nothing() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    let (store, f) = scene(dir.path());
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    fail_journal_fsyncs(1);
    let closed = store.close_with_warnings();
    fail_journal_fsyncs(0);
    let warnings = closed.expect("the close of a store whose changes were durable");
    assert!(
        warnings.iter().any(|w| w.contains("emptying the journal")),
        "the failed emptying is told: {warnings:?}"
    );
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.get("f").unwrap(),
        f,
        "f after the close's failed emptying"
    );
    assert_eq!(store.get("g").unwrap(), pattern(2, WRITE_BYTES));
    assert_consistent(&store);
}

/// Merge review of s37a, HIGH-1: the writer's FIRST group-commit fsync (its input's, before
/// its home writes) held, a checkpoint waiting for the turn with its state written, the
/// writer's fsync failing: the checkpoint's truncation is refused in the turn (the file
/// already emptied), and the writer's plan, failing before its writes, journals that it
/// wrote nothing (refused too, rewound). The rewind once went back to the journal's length
/// before the truncation: the refused record and zeros up to it, which the next open took
/// for a torn tail (or, with a record after them, for damage that refuses the store).
#[test]
fn a_checkpoint_refused_after_a_failed_fsync_leaves_no_zeros_in_the_journal() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    let (written, othered, store, f) = overlap(dir.path(), 1, Store::checkpoint);
    let journal = std::fs::read(dir.path().join("journal")).unwrap();
    let zeros_max = journal
        .split(|&b| b != 0)
        .map(|run| run.len())
        .max()
        .unwrap_or(0);
    assert!(
        zeros_max < ZERO_RUN_BYTES_MAX,
        "the journal ({} bytes) holds a run of {zeros_max} zero bytes after a checkpoint refused beside a failed fsync",
        journal.len()
    );
    check(dir.path(), written, othered, store, f, "a checkpoint");
}

/// Longer runs of zeros than any record holds (a record's frame is its length, crc and a
/// compact payload).
const ZERO_RUN_BYTES_MAX: usize = 256;

/// s37a's LOW (session 38): a close whose checkpoint's `set_len(0)` fails (the state file
/// written, the journal unchanged) warned "the state checkpoint was not written" and told
/// the user to free the metadata disk: it was written. It warns that the emptying failed,
/// and the next open reads every write once (the journal's records are the checkpoint's).
#[test]
fn a_close_whose_journal_truncation_fails_says_the_checkpoint_was_written() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    let (store, f) = scene(dir.path());
    fail_journal_truncations(1);
    let closed = store.close_with_warnings();
    fail_journal_truncations(0);
    let warnings = closed.expect("the close of a store whose changes were durable");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("checkpoint was written") && w.contains("emptying the journal")),
        "the failed emptying is told, the checkpoint written: {warnings:?}"
    );
    assert!(
        std::fs::metadata(dir.path().join("journal")).unwrap().len() > 0,
        "the scene: the journal kept its records"
    );
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), f, "f after the failed truncation");
    assert_eq!(store.get("g").unwrap(), pattern(2, WRITE_BYTES));
    assert_consistent(&store);
    store.close().unwrap();
}

/// A checkpoint in the session whose `set_len(0)` fails is refused, the store goes on (the
/// state file and the journal both hold its records), and a write after it, the close and
/// the next open keep every byte: the records the checkpoint holds are not applied twice.
#[test]
fn a_checkpoint_whose_journal_truncation_fails_is_refused_and_loses_nothing() {
    let _hooks = HOOKS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let _off = HooksOff;
    let dir = scratch();
    let (store, f) = scene(dir.path());
    fail_journal_truncations(1);
    let checkpointed = store.checkpoint();
    fail_journal_truncations(0);
    assert!(
        checkpointed.is_err(),
        "a checkpoint whose journal truncation failed is refused"
    );
    let h = pattern(3, WRITE_BYTES);
    store.write("h", 0, &h).unwrap();
    let warnings = store.close_with_warnings().unwrap();
    assert!(warnings.is_empty(), "a clean close: {warnings:?}");
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), f);
    assert_eq!(store.get("g").unwrap(), pattern(2, WRITE_BYTES));
    assert_eq!(store.get("h").unwrap(), h);
    assert_consistent(&store);
    store.close().unwrap();
}
