//! An OSS dies by itself (EIO on every write, persisting over the retries) in the middle of
//! a client write's plan, after its copy check found every OSS healthy, and a kill -9 comes
//! before the plan's `Durable` record (the H6 remainder: `fail_oss` waits for plans, a disk
//! that dies does not).
//!
//! The plan's writes on the other columns leave data and parity of different versions at
//! its offsets, so the dead OSS's acknowledged bytes there are no longer decodable: recovery
//! must find them elsewhere. Before the failure goes on record, the plan journals what it
//! holds of the dead OSS in memory (`copy_columns_of_failing_oss`): the bytes its reads
//! returned (a reconstruct-write reads the columns it does not write) and its own new bytes.
//!
//! How the crash is made, in process: every home write of the plan waits until the dead
//! OSS's write has failed; then one OSS's writes land and the others fail (the crash cuts
//! them), the plan fails, and the store is dropped without `close` and opened again with
//! the OSS still dead.

use crate::common;
use crate::hooked;
use common::*;
use hooked::{open_wrapped, Hook};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, WritePath};
use parking_lot::{Condvar, Mutex};

/// Home writes (data, parity) of OSS `dead` fail for good once armed. Parity writes wait
/// until one has failed (a plan's parity writes come in its last wave, with or after its
/// data writes), then fail: the crash cuts them. Data writes land on OSS `land`; on the
/// others they fail once the dead OSS has failed.
struct DiesMidWrite {
    armed: AtomicBool,
    dead: AtomicUsize,
    land: AtomicUsize,
    dead_refused: Mutex<usize>,
    refused_changed: Condvar,
}

impl Hook for DiesMidWrite {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if !self.armed.load(Ordering::SeqCst) || key.zone == Zone::Cache {
            return Ok(());
        }
        if oss == self.dead.load(Ordering::SeqCst) {
            *self.dead_refused.lock() += 1;
            self.refused_changed.notify_all();
            return Err(BackendError::Unavailable {
                oss: format!("oss-{oss}"),
                why: "injected: the disk died (EIO on every write)".into(),
            });
        }
        let cut = || {
            Err(BackendError::Io {
                oss: "test".into(),
                why: "injected: the crash cuts this write before it lands".into(),
            })
        };
        if key.zone == Zone::Parity {
            let mut refused = self.dead_refused.lock();
            let started = std::time::Instant::now();
            while *refused == 0 {
                assert!(
                    started.elapsed() < NO_PROGRESS,
                    "the dead OSS was never written"
                );
                self.refused_changed
                    .wait_for(&mut refused, std::time::Duration::from_millis(10));
            }
            return cut();
        }
        if oss != self.land.load(Ordering::SeqCst) && *self.dead_refused.lock() > 0 {
            return cut();
        }
        Ok(())
    }
}

/// A write cut at a file offset: the offset and the bytes.
type CutWrite = (usize, Vec<u8>);

/// A store of `code` over `oss_count` OSSs holding two acknowledged stripes of "f"; then a
/// write of stripe 0's first data element whole and the first `victim_bytes` of its second,
/// during which the OSS of that second element dies, and a crash. The write's data lands on
/// the first element's OSS; its parity writes are cut. Returns the reopened store (the OSS
/// still dead), the acknowledged bytes, the cut write, and the file range of the dead OSS's
/// element.
fn die_mid_write_then_crash(
    dir: &std::path::Path,
    code: CodeSpec,
    oss_count: usize,
    victim_bytes: usize,
) -> (Store, Vec<u8>, CutWrite, (usize, usize)) {
    let store = init(dir, code, oss_count, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let model = pattern(71, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let (land, dead) = (
        store.layout().locate(id, 0).oss,
        store.layout().locate(id, UNIT as u64).oss,
    );
    assert!(0 < victim_bytes && victim_bytes < UNIT);
    let (a, z) = (0, UNIT + victim_bytes);
    store.close().unwrap();

    let hook = Arc::new(DiesMidWrite {
        armed: AtomicBool::new(false),
        dead: AtomicUsize::new(dead),
        land: AtomicUsize::new(land),
        dead_refused: Mutex::new(0),
        refused_changed: Condvar::new(),
    });
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let cut = (a, pattern(72, z - a));
    hook.armed.store(true, Ordering::SeqCst);
    let written = store.write("f", a as u64, &cut.1);
    assert!(written.is_err(), "the crash cut the write: {written:?}");
    assert!(
        *hook.dead_refused.lock() > 0,
        "the OSS died during the write"
    );
    drop(store); // no close: the crash

    hook.armed.store(false, Ordering::SeqCst);
    let store = open_wrapped(dir, &hook, &[dead], OpenOptions::default()).unwrap();
    (store, model, cut, (UNIT, 2 * UNIT))
}

/// Every byte of "f" outside the cut write equals `model`; inside it, old or new.
fn assert_acknowledged(store: &Store, model: &[u8], cut: &(usize, Vec<u8>), what: &str) {
    let got = store
        .get("f")
        .unwrap_or_else(|e| panic!("{what}: reading f failed: {e}"));
    assert_eq!(got.len(), model.len());
    let (a, z) = (cut.0, cut.0 + cut.1.len());
    for i in (0..model.len()).filter(|&i| i < a || i >= z) {
        assert_eq!(got[i], model[i], "{what}: acknowledged byte {i} is wrong");
    }
    for i in a..z {
        assert!(
            got[i] == model[i] || got[i] == cut.1[i - a],
            "{what}: byte {i} of the cut write is neither old nor new"
        );
    }
}

/// The dead OSS's acknowledged bytes beside the cut write's bytes in its element (the
/// rest of the 4 KiB block) read exact after the crash, every other byte too.
fn assert_nothing_lost(code: CodeSpec, oss_count: usize, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (store, model, cut, (a, z)) = die_mid_write_then_crash(dir.path(), code, oss_count, 1100);
    // Its bytes the write did not cover: acknowledged, tied by the write's other columns.
    let acked = store.read("f", (a + 1100) as u64, (z - a - 1100) as u64);
    match acked {
        Ok(bytes) => assert_eq!(bytes, model[a + 1100..z], "{what}: the dead OSS's bytes"),
        Err(e) => panic!(
            "{what}: the dead OSS's acknowledged bytes {}..{z}: {e}",
            a + 1100
        ),
    }
    assert_acknowledged(&store, &model, &cut, what);
    assert!(store.status().unwrap().lost_ranges.is_empty(), "{what}");
}

/// raid6 3+2: the write's parity is a reconstruct-write (it reads the columns it does not
/// write, the dead OSS's bytes beside the write among them): the plan holds them.
#[test]
fn an_oss_dying_mid_reconstruct_write_then_a_crash_loses_no_byte() {
    assert_nothing_lost(CodeSpec::raid6(3), 5, "raid6 3+2");
}

/// raid6 6+2: a read-modify-write (old data and parity at the write's offsets only): the
/// dead OSS's bytes beside the write are decoded from the stripe before the plan.
#[test]
fn an_oss_dying_mid_read_modify_write_then_a_crash_loses_no_byte() {
    assert_nothing_lost(CodeSpec::raid6(6), 8, "raid6 6+2");
}

/// raid5 3+1: with one failure, nothing is left to decode the dead OSS's bytes from but
/// the plan's own reads and the untouched columns.
#[test]
fn raid5_an_oss_dying_mid_write_then_a_crash_loses_no_byte() {
    assert_nothing_lost(CodeSpec::raid5(3), 4, "raid5 3+1");
}

/// Array codes (several rows per column, parity rows on the data OSSs for X-code, D-code,
/// H-code and HDP): the decode of the dead OSS's bytes goes through the same
/// `decode_block` as on one-row codes, every byte offset a codeword across the rows.
#[test]
fn array_codes_an_oss_dying_mid_write_then_a_crash_lose_no_byte() {
    for kind in ARRAY_CODE_KINDS {
        let code = CodeSpec::array(kind, 5);
        assert_nothing_lost(code, columns(code), &format!("{code}"));
    }
}
