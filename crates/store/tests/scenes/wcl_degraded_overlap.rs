//! WCL with a failed OSS: a write that overwrites bytes of the open cache stripe on the
//! failed OSS reads their old value back (rebuilt from the cache stripe's running parity)
//! to update that parity. Those old bytes, and every read after, must be the file's bytes,
//! whatever else the write adds to the cache stripe.
//!
//! Found through the CLI (issue #4): raid5 over 6 OSSs, stripe unit 4096, OSS 1 failed,
//! 5000 bytes written at 3393600 then 5000 at 3391050: `get` exited 0 with 462 wrong bytes
//! (neither write's nor the original), and raid5 with one OSS failed has no redundancy left
//! to notice.

use crate::common;
use crate::hooked;
use common::*;

use std::path::Path;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{OpenOptions, Store, WritePath};

/// Without fsync: these tests build many small stores and crash none of them.
fn open(dir: &Path) -> Store {
    let options = OpenOptions {
        fsync: false,
        ..OpenOptions::default()
    };
    Store::open_with(dir, options).unwrap()
}

fn assert_same(what: &str, got: &[u8], want: &[u8]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let wrong: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    if let (Some(first), Some(last)) = (wrong.first(), wrong.last()) {
        panic!(
            "{what}: {} wrong bytes, offsets {first}..={last}",
            wrong.len()
        );
    }
}

/// Write `data` at `at` into the store and the model, then the whole file reads as the model
/// .
fn write_and_check(store: &mut Store, model: &mut [u8], at: usize, data: &[u8], what: &str) {
    store.write("f", at as u64, data).unwrap();
    model[at..at + data.len()].copy_from_slice(data);
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: get: {e}"));
    assert_same(what, &got, model);
}

/// The CLI report shrunk: the second write overlaps the first inside one home stripe and
/// reaches bytes of the open cache stripe that the first did not (the element before, the
/// start of the element on the failed OSS).
#[test]
fn raid5_overlapping_cached_writes_read_back_with_each_oss_failed() {
    let code = CodeSpec::raid5(5);
    let sdb = 5 * UNIT;
    for failed in 0..6 {
        let dir = scratch();
        let mut model = pattern(1, 3 * sdb);
        // The whole file put: its cache stripes destaged, their chunks free again for the
        // next cache stripes (stale bytes in them).
        init(dir.path(), code, 6, WritePath::Wcl).close().unwrap();
        let mut store = open(dir.path());
        store.put("f", &model).unwrap();
        store.fail_oss(failed).unwrap();
        // As in the report: 14400 and 11850 bytes into a stripe.
        for (seed, at) in [(2u64, sdb + 14400), (3, sdb + 11850)] {
            let data = pattern(seed, 5000);
            let what = format!("raid5, OSS {failed} failed, 5000 bytes at {at}");
            write_and_check(&mut store, &mut model, at, &data, &what);
        }
        store.close().unwrap();
        let store = open(dir.path());
        assert_same(
            &format!("raid5, OSS {failed} failed, reopened"),
            &store.get("f").unwrap(),
            &model,
        );
    }
}

/// Random overlapping writes into one home stripe (and its neighbour), with each OSS failed
/// in turn: every read equals the model. raid5 and raid6 (one row per column), and two array
/// codes (several rows: without the fix these writes failed with DataLost, the decoded cache
/// stripe disagreeing with its running parity).
#[test]
fn random_overlapping_cached_writes_read_back_with_one_oss_failed() {
    let mut rng = Rng(0x5eed_0f0e_471a);
    let codes = [
        CodeSpec::raid5(5),
        CodeSpec::raid6(4),
        CodeSpec::array(CodeKind::Evenodd, 5),
        CodeSpec::array(CodeKind::Rdp, 5),
    ];
    for code in codes {
        let cols = exaraid_codes::Code::new(code)
            .expect("a valid code")
            .geometry()
            .cols;
        for failed in 0..cols {
            let dir = scratch();
            init(dir.path(), code, cols, WritePath::Wcl)
                .close()
                .unwrap();
            let mut store = open(dir.path());
            let sdb = store.layout().stripe_data_bytes() as usize;
            let mut model = pattern(10 + failed as u64, 3 * sdb);
            store.put("f", &model).unwrap();
            store.fail_oss(failed).unwrap();
            for w in 0..4 {
                // Inside stripe 1, sometimes over into stripe 2.
                let at = sdb + rng.below(sdb as u64) as usize;
                let len = 1 + rng.below(sdb as u64 / 2) as usize;
                let data = pattern(rng.next(), len);
                let what = format!("{code}, OSS {failed} failed, write {w}: {len} bytes at {at}");
                write_and_check(&mut store, &mut model, at, &data, &what);
            }
        }
    }
}

/// The write that completes a cache stripe also overwrites bytes of it on the failed OSS:
/// its destage is planned with it, so the cache stripe counts as complete (every byte
/// written) while the write has not run yet; the old bytes it reads are rebuilt from what
/// the cache stripe held before it.
#[test]
fn write_completing_a_cache_stripe_over_cached_bytes_reads_back_with_each_oss_failed() {
    for (code, k) in [(CodeSpec::raid5(5), 5), (CodeSpec::raid6(4), 4)] {
        let sdb = k * UNIT;
        for failed in 0..6 {
            let dir = scratch();
            let mut model = pattern(20, 3 * sdb);
            init(dir.path(), code, 6, WritePath::Wcl).close().unwrap();
            let mut store = open(dir.path());
            store.put("f", &model).unwrap();
            store.fail_oss(failed).unwrap();
            // The start of every column of stripe 1: its open cache stripe.
            for col in 0..k {
                let at = sdb + col * UNIT;
                let what = format!("{code}, OSS {failed} failed: 2000 bytes at {at}");
                write_and_check(
                    &mut store,
                    &mut model,
                    at,
                    &pattern(21 + col as u64, 2000),
                    &what,
                );
            }
            let data = pattern(23, sdb - 1000);
            let what = format!("{code}, OSS {failed} failed: the completing write");
            write_and_check(&mut store, &mut model, sdb + 1000, &data, &what);
        }
    }
}

/// A read queued before a write that adds bytes to the same open cache stripe: the write is
/// planned (the planner's lookup names its bytes) but runs after the read, so the read's
/// rebuild of the failed OSS's cached bytes must not count the write's bytes as there.
#[test]
fn read_queued_before_a_write_into_its_cache_stripe_reads_back_with_each_oss_failed() {
    use std::sync::atomic::Ordering;
    use std::sync::{mpsc, Arc};
    use std::time::{Duration, Instant};
    let code = CodeSpec::raid5(5);
    let sdb = 5 * UNIT;
    for failed in 0..6 {
        let dir = scratch();
        let mut model = pattern(30, 3 * sdb);
        init(dir.path(), code, 6, WritePath::Wcl).close().unwrap();
        let store = open(dir.path());
        store.put("f", &model).unwrap();
        store.close().unwrap();
        let hooks = Arc::new(hooked::Hooks::default());
        let store = Arc::new(hooked::open_hooked(dir.path(), &hooks, &[failed]).unwrap());
        let first = pattern(31, 5000);
        store.write("f", (sdb + 14400) as u64, &first).unwrap();
        model[sdb + 14400..sdb + 19400].copy_from_slice(&first);
        let before = model.clone();

        // The read parks at its first backend read (stripe 0, at home), its place in the
        // stripe queues taken.
        hooks.pause_reads_of(store.file_id("f").unwrap());
        let (tx, rx) = mpsc::channel();
        let s = store.clone();
        let len = model.len() as u64;
        std::thread::spawn(move || {
            let _ = tx.send(s.read("f", 0, len));
        });
        let start = Instant::now();
        while hooks.reads_parked.load(Ordering::SeqCst) == 0 {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the read never started"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        // The write is planned now and waits for the read.
        let second = pattern(32, 5000);
        let s = store.clone();
        let data = second.clone();
        let writer = std::thread::spawn(move || s.write("f", (sdb + 11850) as u64, &data));
        std::thread::sleep(Duration::from_millis(200));
        hooks.release_reads();
        let got = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the read returns")
            .unwrap_or_else(|e| panic!("raid5, OSS {failed} failed: the read: {e}"));
        assert_same(
            &format!("raid5, OSS {failed} failed: the read queued before the write"),
            &got,
            &before,
        );
        writer.join().unwrap().unwrap();
        model[sdb + 11850..sdb + 16850].copy_from_slice(&second);
        assert_same(
            &format!("raid5, OSS {failed} failed: after the write"),
            &store.get("f").unwrap(),
            &model,
        );
    }
}
