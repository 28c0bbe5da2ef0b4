//! s29e: a read running while a writer's `WriteCrcs` append is refused (a full metadata
//! disk, review s28r R28-1). The refusal poisons the store with the write's plans left in
//! its planner, never to run; a read that began before must either return the
//! acknowledged bytes or be refused, never bytes of the refused write's unwritten slots
//! (lead's fix, session 28: reads check the poison again under the core lock before their
//! lookup). The full metadata disk is `common/journal_full.rs`'s.
//!
//! Two scenes. Held: the reader is held at `torture::READ_CHECKED` (its first check passed)
//! while the write is refused, then let go: the order R28-1's re-check is for, every run.
//! Free: a reader reads the refused write's range back to back while the write is refused,
//! in whatever order the threads meet; every read it gets must be right. The held scene is
//! the deterministic one; the free one adds the orders around it (each of them must pass,
//! so it cannot flake on a right store).

mod common;
use common::*;
#[path = "common/journal_full.rs"]
mod journal_full;
use journal_full::*;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const OSS_COUNT: usize = 5;
const OLD_BYTES: usize = 20_000;
const WRITE_AT_BYTES: u64 = 5_000;
const WRITE_BYTES: usize = 3_000;
/// Journal room for the write's `Input` record and not its `WriteCrcs` (R28-1's review:
/// 160 bytes on raid5 4+1; checked by the refusal's message, which names the reopen).
const ROOM_FOR_THE_INPUT_BYTES: u64 = 160;
/// Reads of the free reader at most (it stops at the first refusal).
const FREE_READS_MAX: usize = 10_000;
const READER: &str = "s29e-reader";

/// The reader's result: `Ok` for the acknowledged bytes or a refusal; `Err` names wrong
/// bytes read with success.
fn acknowledged_or_refused(read: &Result<Vec<u8>, String>, old: &[u8]) -> Result<(), String> {
    let Ok(got) = read else {
        return Ok(());
    };
    if got.len() != old.len() {
        return Err(format!(
            "{} bytes read, {} acknowledged",
            got.len(),
            old.len()
        ));
    }
    let wrong: Vec<usize> = (0..got.len()).filter(|&i| got[i] != old[i]).collect();
    match wrong.first() {
        None => Ok(()),
        Some(&first) => Err(format!(
            "WRONG BYTES read with success: {} bytes not the acknowledged ones, the first at {first} \
             (read {:#04x}, acknowledged {:#04x})",
            wrong.len(),
            got[first],
            old[first]
        )),
    }
}

/// A store on `path` with f put and the journal made long; f's bytes and the journal's length.
fn scene(dir: &std::path::Path, path: WritePath) -> (Arc<Store>, Vec<u8>, u64) {
    let store = Arc::new(init(dir, CodeSpec::raid5(4), OSS_COUNT, path));
    let old = splitmix_bytes(0x529e_0010, OLD_BYTES);
    store.put("f", &old).unwrap();
    let journal_bytes = make_journal_longer_than_every_zone_file(&store, dir, OSS_COUNT);
    (store, old, journal_bytes)
}

/// The write of f bytes 5000..8000 with room for its input alone: refused, the store
/// poisoned (the refusal names the reopen). Panics if the scene is not that one.
fn refused_after_its_input(store: &Store, journal_bytes: u64) {
    let refused_bytes = splitmix_bytes(0x529e_0011, WRITE_BYTES);
    set_file_size_limit(journal_bytes + ROOM_FOR_THE_INPUT_BYTES);
    let refused = store.write("f", WRITE_AT_BYTES, &refused_bytes);
    lift_file_size_limit();
    match refused {
        Err(e) if e.to_string().contains("reopen the store") => {}
        other => {
            panic!("scene: the write's WriteCrcs append refused, the store poisoned; got {other:?}")
        }
    }
}

/// The pause hook holding the reader thread at `READ_CHECKED` until `release`.
struct Held {
    parked: AtomicBool,
    released: Mutex<bool>,
    go: Condvar,
}

impl Held {
    fn hold_reader() -> Arc<Held> {
        let held = Arc::new(Held {
            parked: AtomicBool::new(false),
            released: Mutex::new(false),
            go: Condvar::new(),
        });
        let h = Arc::clone(&held);
        exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
            if point != exaraid_store::torture::READ_CHECKED
                || std::thread::current().name() != Some(READER)
            {
                return;
            }
            h.parked.store(true, Ordering::SeqCst);
            let mut released = h.released.lock().unwrap();
            while !*released {
                released = h.go.wait(released).unwrap();
            }
        })));
        held
    }

    fn release(&self) {
        *self.released.lock().unwrap() = true;
        self.go.notify_all();
    }
}

/// Removes the pause hook when dropped (also when the test panics). Not `Held`'s own drop:
/// the hook holds a `Held`, and dropping the hook under the hook's slot lock would run it.
struct HookRemoved;

impl Drop for HookRemoved {
    fn drop(&mut self) {
        exaraid_store::torture::set_pause_hook(None);
    }
}

fn read_begun_before_the_poisoning_returns_the_acknowledged_bytes_or_refuses(path: WritePath) {
    let _turn = FILE_SIZE_LIMIT_TURN
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = scratch();
    let (store, old, journal_bytes) = scene(dir.path(), path);
    let held = Held::hold_reader();
    let hook_removed = HookRemoved;
    let reader_store = Arc::clone(&store);
    let reader = std::thread::Builder::new()
        .name(READER.into())
        .spawn(move || reader_store.get("f").map_err(|e| e.to_string()))
        .unwrap();
    eventually("the reader is held after its first check", || {
        held.parked.load(Ordering::SeqCst)
    });
    refused_after_its_input(&store, journal_bytes);
    held.release();
    let read = reader.join().unwrap();
    drop(hook_removed);
    if let Err(e) = acknowledged_or_refused(&read, &old) {
        panic!(
            "{path:?}: a read begun before a write's WriteCrcs append was refused (the store \
             poisoned), going on after it: {e}"
        );
    }
    // The poison holds for a read begun after it too, and the reopen reads what was
    // acknowledged (recovery forgets the refused write).
    assert!(
        store.get("f").is_err(),
        "{path:?}: a read after the poisoning"
    );
    drop(store);
    let reopened = Store::open(dir.path()).unwrap().get("f").unwrap();
    assert!(
        reopened == old,
        "{path:?}: the reopened store reads f as put"
    );
}

#[test]
fn a_wcl_read_begun_before_a_refused_write_crcs_append_returns_the_acknowledged_bytes_or_refuses() {
    read_begun_before_the_poisoning_returns_the_acknowledged_bytes_or_refuses(WritePath::Wcl);
}

#[test]
fn an_rmw_read_begun_before_a_refused_write_crcs_append_returns_the_acknowledged_bytes_or_refuses()
{
    read_begun_before_the_poisoning_returns_the_acknowledged_bytes_or_refuses(WritePath::Rmw);
}

#[test]
fn a_delayed_read_begun_before_a_refused_write_crcs_append_returns_the_acknowledged_bytes_or_refuses(
) {
    read_begun_before_the_poisoning_returns_the_acknowledged_bytes_or_refuses(WritePath::Delayed);
}

/// Free: reads back to back beside the refused write, every one right or refused; the
/// reader stops at its first refusal (the poison stays) or after `FREE_READS_MAX` reads.
#[test]
fn wcl_reads_back_to_back_beside_a_refused_write_crcs_append_are_each_acknowledged_bytes_or_refused(
) {
    let _turn = FILE_SIZE_LIMIT_TURN
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = scratch();
    let (store, old, journal_bytes) = scene(dir.path(), WritePath::Wcl);
    let reads_bytes_right = Arc::new(AtomicUsize::new(0));
    let (reader_store, right, old_for_reader) = (
        Arc::clone(&store),
        Arc::clone(&reads_bytes_right),
        old.clone(),
    );
    let reader = std::thread::Builder::new()
        .name(READER.into())
        .spawn(move || {
            for _ in 0..FREE_READS_MAX {
                let read = reader_store
                    .read("f", WRITE_AT_BYTES - 1000, WRITE_BYTES as u64 + 2000)
                    .map_err(|e| e.to_string());
                let at = WRITE_AT_BYTES as usize - 1000;
                let want = &old_for_reader[at..at + WRITE_BYTES + 2000];
                if let Ok(got) = &read {
                    if got.as_slice() != want {
                        let first = (0..want.len()).find(|&i| got[i] != want[i]);
                        return Err(format!(
                            "WRONG BYTES read with success, the first at file byte {:?}",
                            first.map(|i| i + at)
                        ));
                    }
                    right.fetch_add(1, Ordering::SeqCst);
                } else {
                    return Ok(());
                }
            }
            Ok(())
        })
        .unwrap();
    // Some reads before the write: the reader is running when the write is refused.
    eventually("the reader read f", || {
        reads_bytes_right.load(Ordering::SeqCst) >= 1
    });
    refused_after_its_input(&store, journal_bytes);
    let result = reader.join().unwrap();
    assert!(
        result.is_ok(),
        "reads beside a refused WriteCrcs append ({} right first): {}",
        reads_bytes_right.load(Ordering::SeqCst),
        result.unwrap_err()
    );
    drop(store);
    let reopened = Store::open(dir.path()).unwrap().get("f").unwrap();
    assert!(reopened == old, "the reopened store reads f as put");
}
