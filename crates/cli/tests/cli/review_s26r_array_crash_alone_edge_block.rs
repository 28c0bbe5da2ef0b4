//! Review s26r R26-1 (OPEN): on an ARRAY code (hdp, hcode, dcode), rmw, one crash and nothing
//! else (no rot, no failed disk) records acknowledged bytes LOST, and the recovery that names
//! them leaves the parity blocks of that 4 KiB block row marked bad, so a later single failed
//! disk (within the tolerance of two) cannot be rebuilt and loses more.
//!
//! The scene: 16 KiB elements, rmw. `put` of 169,901 bytes, then a write of 61,947 bytes at
//! 49,919 killed at one block write in plan order, that block torn (its new payload under its
//! old checksum): an edge block of the write, whose bytes outside the write are the put's,
//! acknowledged and untouched by it (hdp p=5 over 4 OSSs: block write 9, OSS 3, file bytes
//! 49,152..53,248, of which 49,152..49,919 are the put's; dcode p=5 over 5 OSSs: block write 7,
//! the same block; hcode p=5 over 6 OSSs: block write 4, OSS 3, file bytes 110,592..114,688, of
//! which 111,866..114,688 are the put's). The next `get` fails: "recovery after a crash could not
//! tell the true bytes ... file 'f' bytes 49152..53248 (OSS 3, recovery could not tell its true
//! bytes (a write cut by a crash reached part of this 4 KiB block, which fails its checksum
//! ...". Faults: the crash alone, within every code's tolerance. Expected: every byte reads, the
//! put's or the cut write's. The same scene on raid6 (s24a's fix), rdp and xcode reads at every
//! kill (found by `scripts/repro/s25r-crash-rebuild.py`, hdp:5:4, trial 60 of seed 109).
//!
//! Then `scrub` counts 9 corrupt elements in stripe 0 (hdp: the row's parity blocks and the torn
//! block), and after `fail --oss 0` (one disk: within the tolerance) `rebuild --oss 0 --to NEW`
//! exits 1: "file 'f' bytes 32768..36864, 49152..53248, 65536..69632 are lost (... block rows
//! {0} are past the code's tolerance ...)", OSS 0 stays failed.
//!
//! Fixed in session 27 (s27b): array-code client writes of rmw and delayed stores journal the
//! whole edge block crcs (and s26a's page-cut crcs) in a record of their own, and recovery
//! reads them by the element's row and column: both tests below pass, un-ignored.
//!
//! Cause: s24a's whole edge block crcs (`edge_blocks` in `WriteParityCrcs`) ride on
//! the parity crcs record, which array-code rmw plans do not journal ("Not covered: array
//! codes" in s24a's bullet; the OPEN list's R23-3 sentence no longer names them): s22g's rule
//! then needs a decode the block's stored (old) checksum proves, which the half-written stripe
//! cannot give. Why rdp and xcode read: where their plans put the edge block in the write order.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 16384;
const PUT_BYTES: usize = 169_901;
const WRITE_AT: usize = 49_919;
const WRITE_BYTES: usize = 61_947;

/// The array codes and the block write (plan order) that tears the cut write's edge block.
const SCENES: [(&[&str], usize); 3] = [
    (&["--oss", "4", "--code", "hdp", "--p", "5"], 9),
    (&["--oss", "6", "--code", "hcode", "--p", "5"], 4),
    (&["--oss", "5", "--code", "dcode", "--p", "5"], 7),
];

type Crashed = (tempfile::TempDir, String, Vec<u8>, Vec<u8>);

/// The store after the crash: `(tempdir, store dir, put bytes, cut write's bytes)`.
fn crashed_store(code_args: &[&str], kill_at: usize) -> Crashed {
    crashed_store_if_killed(code_args, kill_at)
        .unwrap_or_else(|| panic!("{code_args:?}: the write must reach block write {kill_at}"))
}

/// `crashed_store`, or `None` where the write finished before block write `kill_at`.
fn crashed_store_if_killed(code_args: &[&str], kill_at: usize) -> Option<Crashed> {
    let tmp = fast_tempdir("exaraid-s26r-array-edge");
    let dir = s(&tmp.path().join("store")).to_string();
    let mut args = vec!["--write-path", "rmw"];
    args.extend_from_slice(code_args);
    init_store_unit(&dir, UNIT_BYTES, &args);
    let old = random_bytes(0x5326_0001, PUT_BYTES);
    ok(&["store", "put", &dir, "f"], &old);
    let new_bytes = random_bytes(0x5326_0002, WRITE_BYTES);
    let offset = WRITE_AT.to_string();
    if !killed_at_with(
        &["store", "write", &dir, "f", "--offset", &offset],
        &new_bytes,
        &format!("write-torn-block:{kill_at}"),
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    ) {
        return None;
    }
    Some((tmp, dir, old, new_bytes))
}

/// Every byte of `got` is the put's or the cut write's, and its length one of theirs.
fn assert_old_or_cut_write(what: &str, got: &[u8], old: &[u8], new_bytes: &[u8]) {
    let mut new = old.to_vec();
    put_over(&mut new, WRITE_AT, new_bytes);
    assert!(
        got.len() == old.len() || got.len() == new.len(),
        "{what}: length {}",
        got.len()
    );
    let wrong = (0..got.len())
        .filter(|&i| got[i] != old.get(i).copied().unwrap_or(0) && got[i] != new[i])
        .count();
    assert_eq!(
        wrong, 0,
        "{what}: bytes neither the put's nor the cut write's"
    );
}

#[test]
fn an_array_code_crash_alone_never_loses_acknowledged_bytes_of_a_torn_edge_block() {
    let mut failures = Vec::new();
    for (code_args, kill_at) in SCENES {
        let (_tmp, dir, old, new_bytes) = crashed_store(code_args, kill_at);
        let what = format!("{code_args:?} write {WRITE_AT}+{WRITE_BYTES} killed at block write {kill_at} (torn), no other fault");
        let got = exaraid(&["store", "get", &dir, "f"], b"");
        if !got.status.success() {
            failures.push(format!(
                "{what}: get failed: {}",
                String::from_utf8_lossy(&got.stderr)
            ));
            continue;
        }
        assert_old_or_cut_write(&what, &got.stdout, &old, &new_bytes);
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenes:\n{}",
        failures.len(),
        SCENES.len(),
        failures.join("\n")
    );
}

#[test]
fn an_array_code_crash_alone_then_one_failed_disk_still_rebuilds() {
    let mut failures = Vec::new();
    for (code_args, kill_at) in SCENES {
        let (tmp, dir, _old, _new) = crashed_store(code_args, kill_at);
        ok(&["store", "status", &dir], b""); // the open settles the crash
        ok(&["store", "fail", &dir, "--oss", "0"], b"");
        let new_dir = tmp.path().join("new-oss-0");
        let rebuilt = exaraid(
            &["store", "rebuild", &dir, "--oss", "0", "--to", s(&new_dir)],
            b"",
        );
        if !rebuilt.status.success() {
            failures.push(format!(
                "{code_args:?} crash at block write {kill_at}, then OSS 0 failed: rebuild exit {:?}: {}",
                rebuilt.status.code(),
                String::from_utf8_lossy(&rebuilt.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenes:\n{}",
        failures.len(),
        SCENES.len(),
        failures.join("\n")
    );
}

/// Control: the same scene on raid6 (s24a's edge crcs) and rdp reads every byte at every block
/// write of the cut write (raid6: 8 block writes, rdp p=5: 10; past them the write finishes).
#[test]
fn the_same_crash_on_raid6_and_rdp_reads_every_acknowledged_byte_at_every_block_write() {
    const BLOCK_WRITES_MAX: usize = 16;
    let controls: [&[&str]; 2] = [
        &["--oss", "6", "--code", "raid6"],
        &["--oss", "6", "--code", "rdp", "--p", "5"],
    ];
    for code_args in controls {
        let mut kills = 0;
        for kill_at in 1..=BLOCK_WRITES_MAX {
            let Some((_tmp, dir, old, new_bytes)) = crashed_store_if_killed(code_args, kill_at)
            else {
                break;
            };
            kills += 1;
            let got = ok(&["store", "get", &dir, "f"], b"");
            assert_old_or_cut_write(
                &format!("{code_args:?} kill {kill_at}"),
                &got,
                &old,
                &new_bytes,
            );
        }
        assert!(kills >= 8, "{code_args:?}: only {kills} block writes");
    }
}

/// Review s26r R26-2 (OPEN, ERROR): R26-1's hdp scene, then OSS 0 failed; `rebuild --oss 0`
/// exits 1 naming file bytes 32768..36864, 49152..53248, 65536..69632 lost and advising "write
/// these bytes again, or restore the file; then run the rebuild again". Doing exactly that (a
/// `write` of each named 4 KiB range from one's own copy) is refused with the same message:
/// a write of part of the stripe reads the rest of its row for the parity, and that row is past
/// the tolerance. A write of the whole stripe (file bytes 0..131072) succeeds and the rebuild
/// then finishes: the advice should name that (as s25d's `lost_blocks_error` does where data
/// and parity disagree). The OPEN list named such messages "not checked" (s25d).
#[test]
#[ignore = "OPEN: review s26r R26-2 has no scene left: since R26-1's fix (s27b) the rebuild succeeds and this test returns at its first check (passes vacuously); kept for a scene that reaches the advice"]
fn the_rebuilds_advice_to_write_the_lost_bytes_again_is_accepted_by_write() {
    let (code_args, kill_at) = SCENES[0];
    let (tmp, dir, old, _new) = crashed_store(code_args, kill_at);
    ok(&["store", "status", &dir], b"");
    ok(&["store", "fail", &dir, "--oss", "0"], b"");
    let new_dir = tmp.path().join("new-oss-0");
    let rebuild = ["store", "rebuild", &dir, "--oss", "0", "--to", s(&new_dir)];
    let refused = exaraid(&rebuild, b"");
    if refused.status.success() {
        return; // R26-1 fixed: nothing to advise
    }
    let message = String::from_utf8_lossy(&refused.stderr).to_string();
    assert!(message.contains("write these bytes again"), "{message}");
    // The ranges it names, as the user reads them: "bytes A..B, C..D are lost".
    let named = message
        .split(" bytes ")
        .nth(1)
        .and_then(|t| t.split(" are lost").next())
        .unwrap_or_else(|| panic!("no ranges named: {message}"));
    for range in named.split(", ") {
        let (a, z) = range.split_once("..").unwrap();
        let (a, z): (usize, usize) = (a.parse().unwrap(), z.parse().unwrap());
        let offset = a.to_string();
        let wrote = exaraid(
            &["store", "write", &dir, "f", "--offset", &offset],
            &old[a..z],
        );
        assert!(
            wrote.status.success(),
            "the rebuild advised \"write these bytes again\" ({named}); `write --offset {a}` of {} bytes exited {:?}: {}",
            z - a,
            wrote.status.code(),
            String::from_utf8_lossy(&wrote.stderr)
        );
    }
    ok(&rebuild, b"");
}
