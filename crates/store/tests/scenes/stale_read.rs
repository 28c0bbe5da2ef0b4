//! A read never returns bytes older than a write acknowledged before the read started, even
//! while another read is in flight.
//!
//! Why this needs a test: while any read is between its lookup and its last byte, the store
//! holds back telling the planner that plans completed (`on_complete` lets the planner reuse
//! cache space that read may still need). A delayed window's bytes stay listed in the
//! planner's lookup as "newest, in the cache zone" until the move home is marked complete.
//! A write outside any window goes home, ordered after the move: it can be acknowledged
//! while the move's completion is still held back, and a later read must then not take the
//! window's cache copy over the newer home bytes.
//!
//! Each test parks a read of another file inside its backend read (so the count of reads in
//! flight never drops to zero), then writes and reads on the main thread. Every store call
//! that could wait runs on a thread of its own with a deadline, so a deadlock fails the test
//! instead of hanging it.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

/// Long enough for any machine; a liveness limit, not a timing assertion.
const DEADLINE: Duration = Duration::from_secs(30);

/// Bytes of one full stripe of raid5(3) with `UNIT` elements.
const STRIPE: usize = 3 * UNIT;

fn open(dir: &Path, path: WritePath) -> (Arc<Store>, Arc<Hooks>) {
    drop(init(dir, CodeSpec::raid5(3), 4, path));
    let hooks = Arc::new(Hooks::default());
    let store = open_hooked(dir, &hooks, &[]).unwrap();
    (Arc::new(store), hooks)
}

/// Run `f` on a thread of its own; its result, or a test failure naming `what` past the
/// deadline (the thread is left behind: it is stuck in the store).
fn within_deadline<T: Send + 'static>(
    what: &str,
    store: &Arc<Store>,
    f: impl FnOnce(&Store) -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    let store = store.clone();
    std::thread::spawn(move || {
        let _ = tx.send(f(&store));
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("{what} did not return: the store is stuck"))
}

/// Start a read of the first `len` bytes of file `other` (at home) and hold it inside its first backend read. Returns
/// the receiver of its result.
fn park_a_read_of(
    store: &Arc<Store>,
    hooks: &Arc<Hooks>,
    other: &str,
    len: usize,
) -> mpsc::Receiver<Vec<u8>> {
    hooks.pause_reads_of(store.file_id(other).unwrap());
    let (tx, rx) = mpsc::channel();
    let (s, name) = (store.clone(), other.to_string());
    std::thread::spawn(move || {
        let _ = tx.send(s.read(&name, 0, len as u64).unwrap());
    });
    let start = Instant::now();
    while hooks.reads_parked.load(Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed() < DEADLINE,
            "the read of '{other}' never reached the backend"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    rx
}

#[test]
fn delayed_a_write_after_the_move_home_is_what_later_reads_return_while_a_read_is_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let (store, hooks) = open(dir.path(), WritePath::Delayed);
    let len = 2 * STRIPE + UNIT / 2; // full stripes and a partial one
    store.write("other", 0, &pattern(9, UNIT)).unwrap();
    store.write("f", 0, &pattern(1, len)).unwrap(); // at home
    let token = store.delayed_start("f").unwrap();
    store.write("f", 0, &pattern(2, len)).unwrap(); // the window's bytes, in the cache zone

    // Read A is in flight from here on: completions are held back.
    let read_a = park_a_read_of(&store, &hooks, "other", UNIT);

    // END: the parity plan and the move home run (no background worker: inline).
    within_deadline("END", &store, move |s| s.delayed_end(&token)).unwrap();
    // A write outside any window: home, after the move. Acknowledged when it returns.
    within_deadline("the write after END", &store, move |s| {
        s.write("f", 0, &pattern(3, len))
    })
    .unwrap();
    // Read B starts after that acknowledgement, while read A is still in flight.
    let read_b = within_deadline("read B", &store, move |s| s.read("f", 0, len as u64)).unwrap();
    assert!(
        read_b == pattern(3, len),
        "read B returned older bytes than the acknowledged write (window bytes: {})",
        read_b == pattern(2, len)
    );
    // A part of the range, and one byte of each stripe, too.
    for (at, n) in [
        (UNIT as u64 + 7, 100u64),
        (STRIPE as u64, 1),
        (2 * STRIPE as u64, 1),
    ] {
        let got = within_deadline("a partial read", &store, move |s| s.read("f", at, n)).unwrap();
        assert_eq!(
            got,
            pattern(3, len)[at as usize..(at + n) as usize],
            "bytes {at}+{n}"
        );
    }

    hooks.release_reads();
    let a = read_a
        .recv_timeout(DEADLINE)
        .expect("read A returns once released");
    assert_eq!(a, pattern(9, UNIT));
    // The held-back completions are delivered now: still the newest bytes, parity matches.
    assert_eq!(store.get("f").unwrap(), pattern(3, len));
    assert_consistent(&store);
    assert!(store.status().unwrap().open_windows.is_empty());
}

/// WCL never writes around its cache (every write goes into a cache stripe, and the
/// planner's lookup lists the newest first), so a held-back destage completion cannot hide
/// a newer write: a regression spec for the same interleaving.
#[test]
fn wcl_a_write_after_a_destage_is_what_later_reads_return_while_a_read_is_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let (store, hooks) = open(dir.path(), WritePath::Wcl);
    // A full stripe: destaged at once, so a read of it reads the file's own home objects.
    store.write("other", 0, &pattern(9, STRIPE)).unwrap();
    let read_a = park_a_read_of(&store, &hooks, "other", UNIT);
    // A full stripe: its cache stripe completes and is destaged (completion held back).
    within_deadline("the first write", &store, |s| {
        s.write("f", 0, &pattern(1, STRIPE))
    })
    .unwrap();
    within_deadline("the second write", &store, |s| {
        s.write("f", 0, &pattern(2, STRIPE))
    })
    .unwrap();
    within_deadline("a partial write", &store, |s| {
        s.write("f", 100, &pattern(3, 50))
    })
    .unwrap();
    let mut want = pattern(2, STRIPE);
    want[100..150].copy_from_slice(&pattern(3, 50));
    let got = within_deadline("read B", &store, |s| s.read("f", 0, STRIPE as u64)).unwrap();
    assert!(
        got == want,
        "read B returned older bytes than the acknowledged writes"
    );

    hooks.release_reads();
    assert_eq!(
        read_a.recv_timeout(DEADLINE).unwrap(),
        pattern(9, STRIPE)[..UNIT]
    );
    assert_eq!(store.get("f").unwrap(), want);
    assert_consistent(&store);
}
