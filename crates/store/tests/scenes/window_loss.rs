//! An OSS failure inside an open delayed window is a defined event, not silent loss (issue #4):
//! the store records exactly which file bytes lost their only copy, refuses writes that would
//! have their only copy on the failed OSS, END fails naming every lost range and closes the
//! window, and everything else stays readable, removable and rebuildable.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// A raid5 3+1 delayed store with a file `other` written outside any window and a window on
/// `ckpt` holding one element (UNIT bytes) on each data OSS of stripe 0. Returns the store,
/// the window's token, `other`'s bytes, the window's bytes and the OSS holding the only copy
/// of `ckpt` bytes UNIT..2*UNIT.
fn window_with_data(dir: &std::path::Path, opts: Option<InitOptions>) -> Setup {
    let store = match opts {
        Some(o) => Store::init(dir, &o).unwrap(),
        None => init(dir, CodeSpec::raid5(3), 4, WritePath::Delayed),
    };
    let other = pattern(40, 50_000);
    store.put("other", &other).unwrap();
    let token = store.delayed_start("ckpt").unwrap();
    let ckpt = pattern(41, 3 * UNIT);
    store.write("ckpt", 0, &ckpt).unwrap();
    let victim = oss_of(&store, "ckpt", UNIT as u64);
    Setup {
        store,
        token,
        other,
        ckpt,
        victim,
    }
}

struct Setup {
    store: Store,
    token: String,
    other: Vec<u8>,
    ckpt: Vec<u8>,
    victim: usize,
}

fn oss_of(store: &Store, name: &str, offset: u64) -> usize {
    store
        .layout()
        .locate(store.file_id(name).unwrap(), offset)
        .oss
}

/// A window timeout long enough that the setup never outlasts it on a loaded machine (a 20 ms
/// one in full_disk_timers.rs did), short enough for a test to wait it out.
const TIMEOUT_MS: u64 = 400;

fn timeout_opts(dir: &std::path::Path, timeout_ms: u64) -> InitOptions {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = timeout_ms;
    opts
}

const LOST: &str = "'ckpt' bytes 4096..8192";

/// `status --json`'s `lost_ranges` as (file, offset, length, OSS). Read through the JSON so
/// this specification compiles against a store without the key (and fails there).
fn lost_ranges(store: &Store) -> Vec<(String, u64, u64, usize)> {
    let json = serde_json::to_value(store.status().unwrap()).unwrap();
    for key in [
        "oss",
        "bytes_waiting_parity",
        "bytes_unprotected",
        "open_windows",
    ] {
        assert!(json.get(key).is_some(), "status keeps key {key}");
    }
    let Some(list) = json.get("lost_ranges").and_then(|l| l.as_array()) else {
        return vec![("status has no lost_ranges".into(), 0, 0, usize::MAX)];
    };
    list.iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["offset_bytes"].as_u64().unwrap(),
                l["len_bytes"].as_u64().unwrap(),
                l["oss"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// The bytes of `ckpt` that survive a failure of the victim: everything but UNIT..2*UNIT.
fn assert_survivors_read(s: &Setup) {
    assert_eq!(
        s.store.get("other").unwrap(),
        s.other,
        "other file byte-exact"
    );
    let u = UNIT as u64;
    assert_eq!(s.store.read("ckpt", 0, u).unwrap(), &s.ckpt[..UNIT]);
    assert_eq!(s.store.read("ckpt", 2 * u, u).unwrap(), &s.ckpt[2 * UNIT..]);
}

fn assert_lost_read(store: &Store, offset: u64, len: u64) {
    match store.read("ckpt", offset, len) {
        Err(StoreError::DataLost(msg)) => assert!(msg.contains(LOST), "names the range: {msg}"),
        other => panic!("reading lost bytes {offset}+{len} must be DataLost, got {other:?}"),
    }
}

#[test]
fn a_window_write_whose_only_copy_would_sit_on_a_failed_oss_is_refused_never_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    let sdb = s.store.layout().stripe_data_bytes();
    s.store.fail_oss(s.victim).unwrap();
    // Stripe 1, data element on the victim: the window would keep it only in that cache zone.
    let at = (0..3)
        .map(|d| sdb + d * UNIT as u64)
        .find(|&o| oss_of(&s.store, "ckpt", o) == s.victim)
        .expect("stripe 1 has a data element on the victim");
    let err = s
        .store
        .write("ckpt", at, &pattern(42, 100))
        .expect_err("a write stored nowhere must not be acknowledged");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("OSS {}", s.victim))
            && msg.contains("refused, nothing of it was written"),
        "{msg}"
    );
    assert_eq!(
        s.store.size("ckpt").unwrap(),
        3 * UNIT as u64,
        "the refused write left nothing behind"
    );
    assert_eq!(s.store.status().unwrap().bytes_unprotected, 0);
    // A window write whose only copy lands on a healthy OSS is accepted and reads back.
    let healthy = (0..3)
        .map(|d| sdb + d * UNIT as u64)
        .find(|&o| oss_of(&s.store, "ckpt", o) != s.victim)
        .unwrap();
    let bytes = pattern(43, 100);
    s.store.write("ckpt", healthy, &bytes).unwrap();
    assert!(
        s.store.delayed_end(&s.token).is_err(),
        "END reports the loss"
    );
    assert_eq!(s.store.read("ckpt", healthy, 100).unwrap(), bytes);
    // After END the file has no window: the same write goes home with parity (degraded).
    s.store.write("ckpt", at, &pattern(42, 100)).unwrap();
    assert_eq!(s.store.read("ckpt", at, 100).unwrap(), pattern(42, 100));
}

#[test]
fn end_names_every_lost_range_closes_the_window_and_a_second_end_says_the_token_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    assert_eq!(
        lost_ranges(&s.store),
        [("ckpt".to_string(), UNIT as u64, UNIT as u64, s.victim)],
        "recorded when the failure is known"
    );
    let status = s.store.status().unwrap();
    assert_eq!(
        status.bytes_unprotected,
        2 * UNIT as u64,
        "lost bytes are not waiting for parity"
    );
    assert_eq!(status.open_windows[0].unprotected_bytes, 2 * UNIT as u64);
    let err = s.store.delayed_end(&s.token).unwrap_err();
    assert!(matches!(err, StoreError::DataLost(_)), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains(LOST), "{msg}");
    assert!(msg.contains(&format!("OSS {}", s.victim)), "{msg}");
    assert!(
        !msg.contains("bytes 0..") && !msg.contains("8192..12288"),
        "only lost ranges: {msg}"
    );
    let status = s.store.status().unwrap();
    assert!(status.open_windows.is_empty(), "the window is closed");
    assert_eq!(
        status.bytes_unprotected, 0,
        "the surviving bytes have parity"
    );
    assert_eq!(status.bytes_waiting_parity, 0);
    let again = s.store.delayed_end(&s.token).unwrap_err().to_string();
    assert!(again.contains("no open delayed window"), "{again}");
    // The file can get a new window; its END succeeds (nothing of it sits on the failed OSS).
    let w = s.store.delayed_window("ckpt").unwrap();
    s.store.write("ckpt", 0, &pattern(44, 10)).unwrap();
    w.end().unwrap();
    assert_eq!(s.store.read("ckpt", 0, 10).unwrap(), pattern(44, 10));
}

#[test]
fn the_guards_end_reports_the_same_loss() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Delayed);
    let window = store.delayed_window("ckpt").unwrap();
    let data = pattern(45, 3 * UNIT);
    store.write("ckpt", 0, &data).unwrap();
    let victim = oss_of(&store, "ckpt", 2 * UNIT as u64);
    store.fail_oss(victim).unwrap();
    let msg = window.end().unwrap_err().to_string();
    assert!(
        msg.contains("'ckpt' bytes 8192..12288") && msg.contains(&format!("OSS {victim}")),
        "{msg}"
    );
    assert_eq!(
        store.read("ckpt", 0, 2 * UNIT as u64).unwrap(),
        &data[..2 * UNIT]
    );
    assert!(store.status().unwrap().open_windows.is_empty());
}

#[test]
fn after_the_failure_every_other_byte_reads_exactly_and_lost_bytes_are_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    // Inside the still-open window.
    assert_survivors_read(&s);
    assert_lost_read(&s.store, UNIT as u64, 10);
    assert_lost_read(&s.store, 0, 3 * UNIT as u64);
    assert!(s.store.delayed_end(&s.token).is_err());
    // After END: never zeros, never the bytes from before the window.
    assert_survivors_read(&s);
    assert_lost_read(&s.store, UNIT as u64, 10);
    assert_lost_read(&s.store, UNIT as u64 + 4000, 200);
    assert!(matches!(s.store.get("ckpt"), Err(StoreError::DataLost(_))));
    // The surviving window bytes are protected by parity now: a second failure (the first
    // OSS is rebuilt first) loses nothing more.
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    let healthy = oss_of(&store, "ckpt", 0);
    store.fail_oss(healthy).unwrap();
    assert_eq!(store.read("ckpt", 0, UNIT as u64).unwrap(), &s.ckpt[..UNIT]);
    assert_eq!(store.get("other").unwrap(), s.other);
}

#[test]
fn rebuild_with_the_window_still_open_restores_redundancy_for_everything_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("other").unwrap(), s.other);
    assert_eq!(store.read("ckpt", 0, UNIT as u64).unwrap(), &s.ckpt[..UNIT]);
    assert_lost_read(&store, UNIT as u64, UNIT as u64);
    let msg = store.delayed_end(&s.token).unwrap_err().to_string();
    assert!(
        msg.contains(LOST),
        "END still names the loss after rebuild: {msg}"
    );
    assert_consistent(&store);
    // Full redundancy: any single OSS may fail now.
    for oss in 0..4 {
        store.fail_oss(oss).unwrap();
        assert_eq!(store.get("other").unwrap(), s.other, "OSS {oss} failed");
        assert_eq!(
            store.read("ckpt", 2 * UNIT as u64, UNIT as u64).unwrap(),
            &s.ckpt[2 * UNIT..]
        );
        store.rebuild(oss, None).unwrap();
    }
    assert_consistent(&store);
}

/// rm inside the window is refused (as for any open window: its END must come first, and
/// here it also names the lost bytes); after the END, rm of the file with lost bytes works.
#[test]
fn rm_of_a_file_with_lost_bytes_works_after_the_window_ends() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    let err = s.store.remove("ckpt").unwrap_err().to_string();
    assert!(
        err.contains("open delayed window") && err.contains(&s.token),
        "{err}"
    );
    assert!(!lost_ranges(&s.store).is_empty(), "nothing changed");
    let err = s.store.delayed_end(&s.token).unwrap_err().to_string();
    assert!(err.contains(LOST), "{err}");
    s.store.remove("ckpt").unwrap();
    assert!(
        lost_ranges(&s.store).is_empty(),
        "the loss went with the file"
    );
    assert!(s.store.status().unwrap().open_windows.is_empty());
    assert_eq!(s.store.get("other").unwrap(), s.other);
    // The name is free again and works normally.
    s.store.put("ckpt", &pattern(46, 5000)).unwrap();
    assert_eq!(s.store.get("ckpt").unwrap(), pattern(46, 5000));
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
}

#[test]
fn a_window_timeout_with_lost_bytes_never_makes_the_store_unopenable() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), Some(timeout_opts(dir.path(), TIMEOUT_MS)));
    s.store.fail_oss(s.victim).unwrap();
    s.store.close().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(TIMEOUT_MS + 100));
    // Every open runs the timers: the timeout fires now.
    let store = Store::open(dir.path()).unwrap();
    store.tick().unwrap();
    let status = store.status().unwrap();
    assert_eq!(
        status.bytes_unprotected, 0,
        "the timeout protected the survivors"
    );
    assert_eq!(lost_ranges(&store).len(), 1);
    let s = Setup { store, ..s };
    assert_survivors_read(&s);
    assert_lost_read(&s.store, UNIT as u64, 1);
    s.store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let msg = store.delayed_end(&s.token).unwrap_err().to_string();
    assert!(msg.contains(LOST), "a late END still names the loss: {msg}");
    store.close().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    assert!(store.status().unwrap().open_windows.is_empty());
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("other").unwrap(), s.other);
}

#[test]
fn a_timeout_during_writes_after_the_failure_keeps_the_store_working() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), Some(timeout_opts(dir.path(), TIMEOUT_MS)));
    s.store.fail_oss(s.victim).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(TIMEOUT_MS + 100));
    // The write runs the timers first; the timed-out window's survivors get parity.
    s.store.write("other", 0, &pattern(47, 1000)).unwrap();
    let mut other = s.other.clone();
    other[..1000].copy_from_slice(&pattern(47, 1000));
    assert_eq!(s.store.get("other").unwrap(), other);
    assert_eq!(s.store.status().unwrap().bytes_unprotected, 0);
    assert_eq!(
        s.store.read("ckpt", 0, UNIT as u64).unwrap(),
        &s.ckpt[..UNIT]
    );
    assert_lost_read(&s.store, UNIT as u64, 1);
}

#[test]
fn status_lists_the_lost_ranges_and_they_survive_close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    let check = |store: &Store| {
        assert_eq!(
            lost_ranges(store),
            [("ckpt".to_string(), UNIT as u64, UNIT as u64, s.victim)]
        );
    };
    check(&s.store);
    s.store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    check(&store);
    assert!(store.delayed_end(&s.token).is_err());
    check(&store);
    store.checkpoint().unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    check(&store);
    assert_lost_read(&store, UNIT as u64, 100);
    assert!(store.status().unwrap().open_windows.is_empty());
}

#[test]
fn writing_lost_bytes_anew_makes_them_readable_again() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    assert!(s.store.delayed_end(&s.token).is_err());
    let u = UNIT as u64;
    let part = pattern(48, 1000);
    s.store.write("ckpt", u, &part).unwrap();
    assert_eq!(s.store.read("ckpt", u, 1000).unwrap(), part);
    assert_eq!(
        lost_ranges(&s.store),
        [("ckpt".to_string(), u + 1000, u - 1000, s.victim)],
        "the loss record shrinks to the bytes not written again"
    );
    assert!(
        s.store.read("ckpt", u + 999, 2).is_err(),
        "the rest is still lost"
    );
    let rest = pattern(49, UNIT - 1000);
    s.store.write("ckpt", u + 1000, &rest).unwrap();
    assert!(lost_ranges(&s.store).is_empty());
    let mut want = s.ckpt.clone();
    want[UNIT..UNIT + 1000].copy_from_slice(&part);
    want[UNIT + 1000..2 * UNIT].copy_from_slice(&rest);
    assert_eq!(s.store.get("ckpt").unwrap(), want);
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("ckpt").unwrap(), want);
}

/// A late END after a timeout is not a planner input (the planner refuses it): journaling it
/// made every later open fail replaying the journal while another window kept the log alive.
#[test]
fn a_late_end_after_a_timeout_leaves_the_store_openable_while_another_window_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::init(dir.path(), &timeout_opts(dir.path(), TIMEOUT_MS)).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 0, &pattern(50, 20_000)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(TIMEOUT_MS + 100));
    store.tick().unwrap();
    let _other = store.delayed_start("g").unwrap();
    store.write("g", 0, &pattern(51, 100)).unwrap();
    store.delayed_end(&token).unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).expect("the journal replays");
    assert_eq!(store.get("f").unwrap(), pattern(50, 20_000));
    assert_eq!(store.get("g").unwrap(), pattern(51, 100));
}

/// A disk that is gone when the store opens (no `store fail`): open and reads record nothing
/// (a directory missing for a while, say an unmounted disk, comes back with its bytes); the
/// window's END, a change, records the failure and names the lost bytes.
#[test]
fn an_oss_directory_gone_while_the_store_was_closed_is_found_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    let gone = s.store.superblock().oss_dirs[s.victim].clone();
    s.store.close().unwrap();
    std::fs::remove_dir_all(&gone).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(lost_ranges(&store).is_empty());
    let s = Setup { store, ..s };
    assert_survivors_read(&s);
    assert!(matches!(
        s.store.read("ckpt", UNIT as u64, 1),
        Err(StoreError::DataLost(_))
    ));
    assert!(lost_ranges(&s.store).is_empty(), "a read records nothing");
    let msg = s.store.delayed_end(&s.token).unwrap_err().to_string();
    assert!(msg.contains(LOST), "{msg}");
    assert_eq!(
        lost_ranges(&s.store),
        [("ckpt".to_string(), UNIT as u64, UNIT as u64, s.victim)]
    );
    assert_lost_read(&s.store, UNIT as u64, 1);
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("other").unwrap(), s.other);
}

/// Whatever the moment of the failure relative to a stream of window writes: every write that
/// returned Ok reads back byte-exact or is on record as lost (and reads as `DataLost`); none
/// reads wrong bytes silently.
#[test]
fn a_failure_racing_window_writes_never_loses_an_acknowledged_byte_silently() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let token = store.delayed_start("ckpt").unwrap();
    store.write("ckpt", 0, &pattern(60, 1)).unwrap();
    let victim = oss_of(&store, "ckpt", UNIT as u64);
    let writes = 120u64;
    let acknowledged: Vec<(u64, Vec<u8>)> = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut ok = Vec::new();
            for i in 0..writes {
                let at = i * UNIT as u64 + 17;
                let data = pattern(61 + i, 1000);
                if store.write("ckpt", at, &data).is_ok() {
                    ok.push((at, data));
                }
            }
            ok
        });
        // Fail the OSS somewhere in the middle of the stream (where exactly does not matter).
        while store.size("ckpt").unwrap() < (writes / 3) * UNIT as u64 {
            std::thread::yield_now();
        }
        store.fail_oss(victim).unwrap();
        writer.join().unwrap()
    });
    assert!(!acknowledged.is_empty());
    let _ = store.delayed_end(&token);
    let lost = lost_ranges(&store);
    for (at, data) in &acknowledged {
        let on_record = lost
            .iter()
            .any(|(f, o, n, _)| f == "ckpt" && *o < at + 1000 && at < &(o + n));
        match store.read("ckpt", *at, 1000) {
            Ok(got) => {
                assert!(!on_record, "bytes at {at} are on record as lost but read");
                assert_eq!(&got, data, "acknowledged write at {at}");
            }
            Err(StoreError::DataLost(msg)) => assert!(on_record, "{at}: {msg}"),
            Err(e) => panic!("{at}: {e}"),
        }
    }
    let mut store = store;
    store.rebuild(victim, None).unwrap();
    assert_consistent(&store);
}

/// The same OSS failing again after its rebuild, inside a new window, is a new loss: found,
/// recorded and kept out of END's parity like the first.
#[test]
fn an_oss_failing_again_after_its_rebuild_loses_only_the_new_windows_bytes_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let s = window_with_data(dir.path(), None);
    s.store.fail_oss(s.victim).unwrap();
    assert!(s.store.delayed_end(&s.token).is_err());
    let mut store = s.store;
    store.rebuild(s.victim, None).unwrap();
    store
        .write("ckpt", UNIT as u64, &pattern(70, UNIT))
        .unwrap();
    assert!(lost_ranges(&store).is_empty());
    let token = store.delayed_start("ckpt").unwrap();
    let again = pattern(71, 3 * UNIT);
    store.write("ckpt", 0, &again).unwrap();
    store.fail_oss(s.victim).unwrap();
    assert_eq!(
        lost_ranges(&store),
        [("ckpt".to_string(), UNIT as u64, UNIT as u64, s.victim)]
    );
    let msg = store.delayed_end(&token).unwrap_err().to_string();
    assert!(msg.contains(LOST) && msg.contains(&token), "{msg}");
    assert_eq!(store.read("ckpt", 0, UNIT as u64).unwrap(), &again[..UNIT]);
    assert_lost_read(&store, UNIT as u64, 1);
    store.rebuild(s.victim, None).unwrap();
    assert_consistent(&store);
    assert_eq!(store.get("other").unwrap(), s.other);
}
