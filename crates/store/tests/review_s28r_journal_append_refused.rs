//! Review s28r R28-1: a write whose journal append fails (a full metadata disk) in a
//! long-lived process. The write is refused; once there is room again, the same `Store`
//! must go on: the next write must complete and every read must give bytes some write put.
//!
//! The full metadata disk: this process's files cannot grow past the journal's length
//! (a soft RLIMIT_FSIZE, SIGXFSZ ignored: such a write fails with EFBIG, as with ENOSPC),
//! after the journal was made longer than every zone file (puts and removals of another
//! file), so the OSS writes of the refused write still have room and only the journal
//! has none. The limit is lifted again right after the refusal ("room again"). One test
//! per path, run one at a time (the limit is the whole process's).

mod common;
use common::*;
#[path = "common/journal_full.rs"]
mod journal_full;
use journal_full::*;

use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

const OLD_BYTES: usize = 20_000;
const WRITE_AT_BYTES: u64 = 5_000;
const WRITE_BYTES: usize = 3_000;
/// The next write, after the refused one: another data element of the same stripe.
const NEXT_AT_BYTES: usize = 14_000;

/// Every byte of `got` is the old content's or the refused write's (which may or may not
/// show), and `got` is as long as the old content (the write was inside it).
fn old_or_refused(got: &[u8], old: &[u8], refused: &[u8]) -> Result<(), String> {
    if got.len() != old.len() {
        return Err(format!("{} bytes, not {}", got.len(), old.len()));
    }
    let at = WRITE_AT_BYTES as usize;
    let bad: Vec<usize> = (0..got.len())
        .filter(|&x| {
            got[x] != old[x] && !(at..at + refused.len()).contains(&x)
                || (at..at + refused.len()).contains(&x)
                    && got[x] != old[x]
                    && got[x] != refused[x - at]
        })
        .collect();
    match bad.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "WRONG BYTES: {} bytes neither old nor the refused write's, the first at {first}",
            bad.len()
        )),
    }
}

/// What the scene gave after a write refused because its journal append failed.
struct Outcome {
    /// How the write was refused (the store's message).
    why: String,
    /// The read of f right after the refusal, room again: every byte old or the refused
    /// write's (an error naming bytes is no wrong byte: also fine).
    read_after: Result<(), String>,
    /// The next write of the same `Store`, and a read after it.
    next_write: Result<(), String>,
    /// A new open of the store (the process went on, the `Store` dropped) and a read of f:
    /// every acknowledged byte (the next write's where it was acknowledged).
    reopen: Result<(), String>,
}

/// The scene: put f, journal made long, the write of f bytes 5000..8000 refused with
/// `room_bytes` left for the journal, the limit lifted, then a read, the next write
/// (bytes 14000..17000) and a new open. `None`: the write was not refused (room enough).
fn journal_full_then_room_again(path: WritePath, room_bytes: u64) -> Option<Outcome> {
    let _turn = FILE_SIZE_LIMIT_TURN
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = scratch();
    let store = Arc::new(init(dir.path(), CodeSpec::raid5(4), 5, path));
    let old = splitmix_bytes(1, OLD_BYTES);
    store.put("f", &old).unwrap();
    let journal_bytes = make_journal_longer_than_every_zone_file(&store, dir.path(), 5);
    let refused_bytes = splitmix_bytes(2, WRITE_BYTES);
    set_file_size_limit(journal_bytes + room_bytes);
    let refused = store.write("f", WRITE_AT_BYTES, &refused_bytes);
    lift_file_size_limit();
    let why = match refused {
        Ok(()) => return None,
        Err(e) => e.to_string(),
    };
    let read_after = match store.get("f") {
        Ok(got) => old_or_refused(&got, &old, &refused_bytes).map_err(|e| {
            format!(
                "{e} (bytes 5000..5008 read {:?}, old {:?}, the refused write's {:?})",
                &got[5000..5008],
                &old[5000..5008],
                &refused_bytes[..8]
            )
        }),
        Err(_) => Ok(()),
    };
    let next = splitmix_bytes(3, WRITE_BYTES);
    let writer = Arc::clone(&store);
    let next_for_writer = next.clone();
    let rx = spawn(move || {
        writer
            .write("f", NEXT_AT_BYTES as u64, &next_for_writer)
            .map_err(|e| e.to_string())
    });
    let mut acknowledged = old.clone();
    let next_write = match rx.recv_timeout(NO_PROGRESS) {
        Err(_) => Err(format!(
            "made no progress in {NO_PROGRESS:?} (plans waiting for earlier: {})",
            store.plans_waiting_for_earlier()
        )),
        Ok(Err(e)) => Err(format!("refused: {e}")),
        Ok(Ok(())) => {
            acknowledged[NEXT_AT_BYTES..NEXT_AT_BYTES + WRITE_BYTES].copy_from_slice(&next);
            match store.get("f") {
                Ok(got) => old_or_refused(&got, &acknowledged, &refused_bytes),
                Err(e) => Err(format!("the read after it failed: {e}")),
            }
        }
    };
    drop(store); // the process goes on; a new open reads what is on disk
    let reopen = exaraid_store::Store::open(dir.path())
        .and_then(|s| s.get("f"))
        .map_err(|e| e.to_string())
        .and_then(|got| old_or_refused(&got, &acknowledged, &refused_bytes));
    Some(Outcome {
        why,
        read_after,
        next_write,
        reopen,
    })
}

/// No read of the refused write's range gives a byte no write put there.
#[test]
fn a_wcl_write_refused_by_a_full_journal_never_makes_a_later_read_of_its_range_wrong() {
    let o = journal_full_then_room_again(WritePath::Wcl, 0).expect("the write is refused");
    if let Err(e) = o.read_after {
        panic!(
            "WCL: a write refused because its journal append failed ({}); with room again the same Store read f: {e}",
            o.why
        );
    }
}

/// The store stays openable and reads every acknowledged byte after the process goes on.
#[test]
fn a_write_refused_by_a_full_journal_leaves_the_store_openable_with_every_acknowledged_byte() {
    let mut problems = Vec::new();
    for (path, room_bytes) in [
        (WritePath::Wcl, 0),
        (WritePath::Wcl, 160),
        (WritePath::Delayed, 0),
    ] {
        let o = journal_full_then_room_again(path, room_bytes).expect("the write is refused");
        if let Err(e) = o.reopen {
            problems.push(format!(
                "{path:?}, journal room {room_bytes} bytes: after a write refused because its journal append failed ({}), the next write ({:?}), then a new open of the store: {e}",
                o.why, o.next_write
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Control: on rmw the same scene reads right, the next write runs and the store reopens.
/// With room for the write's input and not its crcs (160 bytes) the store is poisoned
/// (lead, review of R28-1's fix: the input on record changed the state without the write's
/// bytes): the read and the next write are refused naming the reopen, and the reopen is
/// right.
#[test]
fn an_rmw_write_refused_by_a_full_journal_leaves_reads_the_next_write_and_the_reopen_right() {
    for room_bytes in [0, 160] {
        let o = journal_full_then_room_again(WritePath::Rmw, room_bytes).expect("refused");
        let reopen_told = |r: &Result<(), String>| match r {
            Err(e) if room_bytes > 0 => e.contains("reopen the store"),
            other => other.is_ok(),
        };
        assert!(
            reopen_told(&o.read_after) && reopen_told(&o.next_write) && o.reopen.is_ok(),
            "rmw, journal room {room_bytes} bytes ({}): read {:?}, next write {:?}, reopen {:?}",
            o.why,
            o.read_after,
            o.next_write,
            o.reopen
        );
    }
}

#[test]
#[ignore = "probe: every path and room, by hand"]
fn probe_rooms() {
    for path in [WritePath::Wcl, WritePath::Rmw, WritePath::Delayed] {
        for room_bytes in (0..1200).step_by(40) {
            match journal_full_then_room_again(path, room_bytes) {
                None => println!("PROBE {path:?} room {room_bytes}: not refused"),
                Some(o) => println!(
                    "PROBE {path:?} room {room_bytes}: read {:?} | next {:?} | reopen {:?}",
                    o.read_after, o.next_write, o.reopen
                ),
            }
        }
    }
}

/// Probe: the refused operation is a `put` replacing f, or a write inside a delayed window
/// (its END after room came back); then reads, the next write and a reopen as above.
#[test]
#[ignore = "probe: put and window writes refused by a full journal, by hand"]
fn probe_put_and_window_write() {
    for (path, window) in [
        (WritePath::Wcl, false),
        (WritePath::Rmw, false),
        (WritePath::Delayed, false),
        (WritePath::Delayed, true),
    ] {
        for room_bytes in (0..800).step_by(40) {
            let _turn = FILE_SIZE_LIMIT_TURN
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let dir = scratch();
            let store = init(dir.path(), CodeSpec::raid5(4), 5, path);
            let old = splitmix_bytes(1, OLD_BYTES);
            store.put("f", &old).unwrap();
            let journal_bytes = make_journal_longer_than_every_zone_file(&store, dir.path(), 5);
            let new = splitmix_bytes(2, 9_000);
            let token = window.then(|| store.delayed_start("f").unwrap());
            set_file_size_limit(journal_bytes + room_bytes);
            let refused = if window {
                store.write("f", WRITE_AT_BYTES, &new[..WRITE_BYTES])
            } else {
                store.put("f", &new)
            };
            lift_file_size_limit();
            let Err(why) = refused else {
                println!("PROBE {path:?} window {window} room {room_bytes}: not refused");
                continue;
            };
            let mut notes = Vec::new();
            let whole_or_old = |got: &[u8]| {
                if window {
                    old_or_refused(got, &old, &new[..WRITE_BYTES])
                } else if got == old.as_slice() || got == new.as_slice() {
                    Ok(())
                } else {
                    Err(format!("{} bytes, neither old nor new whole", got.len()))
                }
            };
            match store.get("f") {
                Ok(got) => {
                    if let Err(e) = whole_or_old(&got) {
                        notes.push(format!("read after: {e}"));
                    }
                }
                Err(e) => notes.push(format!("read after failed: {e}")),
            }
            if let Some(t) = &token {
                if let Err(e) = store.delayed_end(t) {
                    notes.push(format!("END: {e}"));
                }
            }
            let next = splitmix_bytes(3, 2_000);
            match store.write("f", 1_000, &next) {
                Ok(()) => {}
                Err(e) => notes.push(format!("next write: {e}")),
            }
            drop(store);
            match exaraid_store::Store::open(dir.path()).and_then(|s| s.get("f")) {
                Ok(got) => {
                    let mut a = old.clone();
                    a[1_000..3_000].copy_from_slice(&next);
                    let mut b = new.clone();
                    b[1_000..3_000].copy_from_slice(&next);
                    if !window && got != a && got != b {
                        notes.push(format!("reopen read {} bytes, neither", got.len()));
                    }
                }
                Err(e) => notes.push(format!("reopen: {e}")),
            }
            println!(
                "PROBE {path:?} window {window} room {room_bytes}: refused ({}) | {}",
                &why.to_string()[..60.min(why.to_string().len())],
                notes.join(" | ")
            );
        }
    }
}
