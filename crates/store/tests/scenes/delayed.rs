//! Delayed parity windows (START_DELAYED / END_DELAYED) on real bytes.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

fn parity_writes(store: &Store) -> u64 {
    store
        .status()
        .unwrap()
        .oss
        .iter()
        .map(|o| o.ops.parity_write)
        .sum()
}

#[test]
fn a_window_writes_without_parity_and_end_makes_parity_durable() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let window = store.delayed_window("ckpt").unwrap();
    let before = parity_writes(&store);
    let data = pattern(1, 5 * sdb + 1000);
    for (i, chunk) in data.chunks(UNIT).enumerate() {
        store.write("ckpt", (i * UNIT) as u64, chunk).unwrap();
    }
    assert_eq!(
        parity_writes(&store),
        before,
        "no parity I/O inside the window"
    );
    let status = store.status().unwrap();
    assert_eq!(status.open_windows.len(), 1);
    assert_eq!(status.bytes_unprotected, data.len() as u64);
    assert_eq!(
        store.get("ckpt").unwrap(),
        data,
        "reads see the cached bytes"
    );
    window.end().unwrap();
    let status = store.status().unwrap();
    assert!(status.open_windows.is_empty());
    assert_eq!(status.bytes_unprotected, 0);
    assert!(parity_writes(&store) > before);
    assert_consistent(&store);
    assert_eq!(store.get("ckpt").unwrap(), data);
    // Parity really protects the window's data now.
    store.fail_oss(1).unwrap();
    assert_eq!(store.get("ckpt").unwrap(), data);
}

#[test]
fn a_window_persists_between_processes() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Delayed);
    let token = store.delayed_start("f").unwrap();
    store.write("f", 0, &pattern(2, 30_000)).unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let status = store.status().unwrap();
    assert_eq!(status.open_windows.len(), 1);
    assert_eq!(status.open_windows[0].token, token);
    assert_eq!(status.bytes_unprotected, 30_000);
    store.write("f", 30_000, &pattern(3, 10_000)).unwrap();
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.delayed_end(&token).unwrap();
    assert_consistent(&store);
    let mut want = pattern(2, 30_000);
    want.extend(pattern(3, 10_000));
    assert_eq!(store.get("f").unwrap(), want);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.status().unwrap().open_windows.is_empty());
}

#[test]
fn bad_window_requests_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let err = store.delayed_end("nope-1").unwrap_err().to_string();
    assert!(
        err.contains("no open delayed window has token 'nope-1'"),
        "{err}"
    );
    let token = store.delayed_start("f").unwrap();
    let err = store.delayed_start("f").unwrap_err().to_string();
    assert!(
        err.contains("already has an open delayed window") && err.contains(&token),
        "{err}"
    );
    store.delayed_end(&token).unwrap();
    let err = store.delayed_end(&token).unwrap_err().to_string();
    assert!(err.contains("no open delayed window"), "{err}");
    // A store with another write path refuses windows.
    let dir2 = tempfile::tempdir().unwrap();
    let rmw = init(dir2.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let err = rmw.delayed_start("f").unwrap_err().to_string();
    assert!(err.contains("--write-path delayed"), "{err}");
}

/// `put` or `rm` over a file whose delayed window is open would drop the window under its
/// writer (its END then said "unknown token"): both are refused naming the token and the
/// END to run, nothing changes (the window's bytes and the window itself stay), and after
/// END both work.
#[test]
fn put_and_rm_of_a_file_with_an_open_window_are_refused_until_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let old = pattern(50, 3 * UNIT);
    store.put("f", &old).unwrap();
    let token = store.delayed_start("f").unwrap();
    let written = pattern(51, UNIT);
    store.write("f", UNIT as u64, &written).unwrap();
    let mut expected = old.clone();
    expected[UNIT..2 * UNIT].copy_from_slice(&written);
    for (what, err) in [
        ("put", store.put("f", &pattern(52, 100)).unwrap_err()),
        ("rm", store.remove("f").unwrap_err()),
    ] {
        let err = err.to_string();
        assert!(
            err.contains("'f' has an open delayed window")
                && err.contains(&token)
                && err.contains("exaraid store delayed end")
                && err.contains("nothing changed"),
            "{what}: {err}"
        );
        assert_eq!(store.get("f").unwrap(), expected, "{what} changed nothing");
        let open = store.status().unwrap().open_windows;
        assert_eq!(open.len(), 1, "{what}: the window stays open");
        assert_eq!(open[0].token, token);
    }
    // Another file is not concerned.
    store.put("g", &pattern(53, 10)).unwrap();
    store.remove("g").unwrap();
    store.delayed_end(&token).unwrap();
    store.put("f", &pattern(52, 100)).unwrap();
    assert_eq!(store.get("f").unwrap(), pattern(52, 100));
    store.remove("f").unwrap();
    assert!(store.list().is_empty());
    assert_consistent(&store);
}

#[test]
fn a_failure_inside_a_window_names_the_lost_ranges_and_keeps_the_rest_readable() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Delayed);
    let other = pattern(4, 40_000);
    store.put("other", &other).unwrap();
    let token = store.delayed_start("ckpt").unwrap();
    // One element (4 KiB) of window data on each data OSS of stripe 0.
    let data = pattern(5, 3 * UNIT);
    store.write("ckpt", 0, &data).unwrap();
    let victim = store
        .layout()
        .locate(store.file_id("ckpt").unwrap(), UNIT as u64)
        .oss;
    store.fail_oss(victim).unwrap();
    let err = store.delayed_end(&token).unwrap_err().to_string();
    assert!(
        err.contains("'ckpt' bytes 4096..8192"),
        "END names the lost range: {err}"
    );
    assert!(err.contains(&format!("OSS {victim}")), "{err}");
    // Everything else stays readable: the other file (degraded) and the window's ranges on
    // healthy OSSs.
    assert_eq!(store.get("other").unwrap(), other);
    assert_eq!(store.read("ckpt", 0, UNIT as u64).unwrap(), &data[..UNIT]);
    assert_eq!(
        store.read("ckpt", 2 * UNIT as u64, UNIT as u64).unwrap(),
        &data[2 * UNIT..]
    );
    assert!(
        store.read("ckpt", UNIT as u64, 10).is_err(),
        "the lost range is reported, not invented"
    );
}

#[test]
fn a_window_without_end_gets_its_parity_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    // Long enough that the setup never outlasts it on a loaded machine (a 20 ms one did).
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 0, &pattern(6, 20_000)).unwrap();
    assert!(store.status().unwrap().bytes_unprotected > 0);
    std::thread::sleep(std::time::Duration::from_millis(500));
    store.tick().unwrap();
    assert_eq!(
        store.status().unwrap().bytes_unprotected,
        0,
        "the timeout computed the parity"
    );
    assert_consistent(&store);
    store.delayed_end(&token).unwrap(); // a late END has nothing left to do
    assert_eq!(store.get("f").unwrap(), pattern(6, 20_000));
}

#[test]
fn past_the_unprotected_bound_the_store_advances_the_parity() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.unprotected_bytes_max = 20_000;
    let store = Store::init(dir.path(), &opts).unwrap();
    let window = store.delayed_window("f").unwrap();
    let data = pattern(7, 60_000);
    for (i, chunk) in data.chunks(8000).enumerate() {
        store.write("f", (i * 8000) as u64, chunk).unwrap();
        let status = store.status().unwrap();
        assert!(
            status.bytes_unprotected <= 20_000,
            "bound kept: {}",
            status.bytes_unprotected
        );
        assert_eq!(status.open_windows.len(), 1, "the window stays open");
    }
    assert_consistent(&store);
    window.end().unwrap();
    assert_eq!(store.get("f").unwrap(), data);
    assert_consistent(&store);
}

/// note16 OPEN 8 (s16d leftover): START on a file whose window timed out (its parity
/// computed at the timeout, the window never ended) said "already has an open delayed
/// window", which sent the user looking for a writer that may be long gone. It says the
/// window timed out and how to end it, before and after a settle (which journals the
/// window again marked timed out); after its END a new window starts.
#[test]
fn start_on_a_file_whose_window_timed_out_says_so_and_how_to_end_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 4, CodeSpec::raid5(3));
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Delayed;
    opts.window_timeout_ms = 400;
    let store = Store::init(dir.path(), &opts).unwrap();
    let token = store.delayed_start("f").unwrap();
    store.write("f", 0, &pattern(7, 20_000)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    store.tick().unwrap();
    assert_eq!(store.status().unwrap().bytes_unprotected, 0, "timed out");
    let says_timed_out = |store: &Store, when: &str| {
        let err = store.delayed_start("f").unwrap_err().to_string();
        assert!(
            err.contains("timed out")
                && err.contains(&format!("delayed end {} {token}", dir.path().display()))
                && !err.contains("already has an open delayed window"),
            "{when}: {err}"
        );
    };
    says_timed_out(&store, "after the timeout");
    store.flush().unwrap();
    says_timed_out(&store, "after a settle");
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    says_timed_out(&store, "reopened");
    store.delayed_end(&token).unwrap();
    let again = store.delayed_start("f").unwrap();
    assert_ne!(again, token);
    store.delayed_end(&again).unwrap();
    assert_eq!(store.get("f").unwrap(), pattern(7, 20_000));
    assert_consistent(&store);
}
