//! A write whose bytes are durable is not reported as failed because the parity advance
//! past `--unprotected-max-bytes` that follows it finds no room (review s6r R6-4). Before,
//! the write returned the settle's error ("... needs room that is not there ... Nothing
//! was changed") while the file held its bytes: a caller trusting the error took the range
//! as old (docs/store.md F4: a write that returns an error did not change the file).

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{InitOptions, Store, WritePath};

/// One CLI command: open, run, close (as `exaraid store ...` does; a failed command drops
/// the store without closing it).
fn command<T>(
    dir: &std::path::Path,
    run: impl FnOnce(&mut Store) -> Result<T, exaraid_store::StoreError>,
) -> Result<(T, Vec<String>), exaraid_store::StoreError> {
    let mut store = Store::open(dir)?;
    let out = run(&mut store)?;
    let warnings = store.close_with_warnings()?;
    Ok((out, warnings))
}

/// The reviewer's 31 commands (scripts/full-capacity-fuzz.py seed 3, minimized in
/// scripts/repro/repro-bound-settle-full.py; random bytes there, a pattern here: the room
/// they take is the same). Outcomes of the commands before the last are not checked: the
/// sequence only brings the store to a full disk with OSS 5 failed and a window open on f2.
#[test]
fn a_window_write_past_the_bound_on_a_full_store_is_acknowledged_or_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut opts = InitOptions::with_oss_count(dir, 6, CodeSpec::array(CodeKind::Dcode, 5));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Delayed;
    opts.oss_capacity_bytes = Some(120_000);
    opts.unprotected_bytes_max = 5000;
    Store::init(dir, &opts).unwrap().close().unwrap();
    let mut seed = 0u64;
    let mut bytes = |n: usize| {
        seed += 1;
        pattern(seed, n)
    };
    let write = |name: &str, at: u64, data: Vec<u8>| {
        let _ = command(dir, |s| s.write_from(name, at, &mut data.as_slice()));
    };
    let put = |name: &str, data: Vec<u8>| {
        let _ = command(dir, |s| s.put_from(name, &mut data.as_slice()));
    };
    let rm = |name: &str| {
        let _ = command(dir, |s| s.remove(name));
    };
    write("f4", 1068, bytes(6062));
    write("f1", 3613, bytes(11843));
    write("f2", 1256, bytes(9156));
    put("f2", bytes(5131));
    put("f1", bytes(40592));
    put("f1", bytes(40970));
    write("f0", 1108, bytes(6559));
    rm("f0");
    put("f5", bytes(24514));
    put("f5", bytes(36696));
    put("f5", bytes(18287));
    put("f4", bytes(368));
    let _ = command(dir, |s| s.delayed_start("f4"));
    write("f5", 695, bytes(12183));
    put("f5", bytes(47276));
    write("f0", 1323, bytes(12121));
    rm("f5");
    put("f1", bytes(10525));
    write("f3", 3889, bytes(6337));
    put("f3", bytes(39804));
    write("f5", 1489, bytes(1729));
    put("f1", bytes(6383));
    rm("f1");
    put("f2", bytes(38578));
    let _ = command(dir, |s| s.fail_oss(3));
    write("f3", 3549, bytes(7028));
    let _ = command(dir, |s| s.rebuild(3, None));
    let _ = command(dir, |s| s.fail_oss(5));
    let _ = command(dir, |s| s.delayed_start("f2"));
    let (before, _) = command(dir, |s| s.get("f2")).unwrap();
    let data = bytes(9432);
    let at = 10783u64;
    let written = command(dir, |s| s.write_from("f2", at, &mut data.as_slice()));
    let (after, _) = command(dir, |s| s.get("f2")).unwrap();
    match written {
        Ok(_) => {
            let mut expect = before.clone();
            let end = at as usize + data.len();
            expect.resize(expect.len().max(end), 0);
            expect[at as usize..end].copy_from_slice(&data);
            assert!(after == expect, "an acknowledged write reads back");
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                after == before || m.contains("written and durable"),
                "a write that returned an error changed the file without saying so: {m}"
            );
        }
    }
}
