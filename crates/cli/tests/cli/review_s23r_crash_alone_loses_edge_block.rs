//! Review s23r R23-3 (fixed, s24a): one crash and nothing else (no rot, no failed disk) records
//! acknowledged bytes LOST.
//!
//! The scene: raid6 or rs 4+2 over 6 OSSs, 12 KiB elements, rmw. `put` of 80,000 bytes, then
//! a write of 60,401 bytes at 18,386 (stripe 0 from inside data column 1 on, and beyond) killed
//! at its 5th or 6th block write in plan order, that block torn (its new payload under its old
//! checksum): the edge block of column 1, file bytes 16,384..20,480, whose first 2,002 bytes
//! (16,384..18,386) are the put's, acknowledged, and untouched by the write. The next `get`
//! fails: "recovery after a crash could not tell the true bytes of these acknowledged bytes
//! ... file 'f' bytes 16384..20480 (OSS 1, recovery could not tell its true bytes (a write
//! cut by a crash beside bit rot))". There is no bit rot: a crash alone, within every code's
//! tolerance, loses acknowledged bytes (named). Expected: every byte reads, old or the cut
//! write's.
//!
//! Cause: recovery.rs `decide_unproven_cut_block` (s22g) kept a torn block as on disk only
//! where the cut writes' parts cover it whole; the rest of an edge block needed a decode its
//! stored (old) checksum proves, which the stripe cannot give here (the write's other data
//! columns landed, its parity did not: neither version has k columns). s24a journals the crc
//! of the whole new edge block with the plan's parity crcs, before its first home write;
//! recovery keeps a torn block that matches it (store tests: `s24a_torn_edge_block.rs`).

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 12288;
const PUT_BYTES: usize = 80_000;
const WRITE_AT: usize = 18_386;
const WRITE_BYTES: usize = 60_401;

/// Returns whether the write was killed (the scene ran).
fn crash_alone_reads_every_acknowledged_byte(code_args: &[&str], kill_at: usize) -> bool {
    let tmp = fast_tempdir("exaraid-s23r-crash-alone");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut args = vec!["--oss", "6", "--write-path", "rmw"];
    args.extend_from_slice(code_args);
    init_store_unit(d, UNIT_BYTES, &args);
    let old = bytes(7, PUT_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let new_bytes = bytes(99, WRITE_BYTES);
    let offset = WRITE_AT.to_string();
    if !killed_at_with(
        &["store", "write", d, "f", "--offset", &offset],
        &new_bytes,
        &format!("write-torn-block:{kill_at}"),
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    ) {
        return false;
    }
    let what = format!("{code_args:?} write {WRITE_AT}+{WRITE_BYTES} killed at block write {kill_at} (torn), no other fault");
    let got = exaraid(&["store", "get", d, "f"], b"");
    assert!(
        got.status.success(),
        "{what}: get failed: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    let mut new = old.clone();
    put_over(&mut new, WRITE_AT, &new_bytes);
    let got = got.stdout;
    assert!(
        got.len() == old.len() || got.len() == new.len(),
        "{what}: length {}",
        got.len()
    );
    let wrong = (0..got.len())
        .filter(|&i| got[i] != old.get(i).copied().unwrap_or(0) && got[i] != new[i])
        .count();
    assert_eq!(wrong, 0, "{what}: bytes neither old nor the cut write's");
    true
}

#[test]
fn raid6_crash_alone_never_loses_acknowledged_bytes_of_a_torn_edge_block() {
    for kill_at in [5, 6] {
        assert!(crash_alone_reads_every_acknowledged_byte(
            &["--code", "raid6"],
            kill_at
        ));
    }
}

#[test]
fn rs_4_2_crash_alone_never_loses_acknowledged_bytes_of_a_torn_edge_block() {
    for kill_at in [5, 6] {
        assert!(crash_alone_reads_every_acknowledged_byte(
            &["--code", "rs", "--k", "4", "--m", "2"],
            kill_at
        ));
    }
}
