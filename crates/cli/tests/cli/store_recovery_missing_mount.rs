//! Review s4e E13 remainder: crash recovery at the next open while one OSS directory is
//! missing (a dropped mount, within the code's tolerance), beside a write the crash cut in a
//! stripe with data on that OSS. Recovery without that OSS cannot decide the stripe (its
//! missing column plus the cut write's torn data and parity are more than raid6 tolerates),
//! so it recorded that OSS's acknowledged bytes as lost, although they were intact on the
//! disk that came back. Now recovery waits for an OSS that is merely missing (not failed on
//! record): every command refuses, names the directory, changes nothing, and the next open
//! with the mount back recovers fully. The operator's way on for a disk that is gone for good
//! is `store fail`: it records the OSS failed first, recovery then runs without it, and the
//! bytes it cannot tell are named in `fail`'s output.

use crate::common;
use common::*;

/// 64 KiB unit: the cut write tears several 4 KiB blocks of data and parity per element.
const UNIT_BYTES: usize = 65_536;
/// The cut write (inside f1, across the boundary of its first stripe of 4 x 64 KiB).
const CUT_OFFSET_BYTES: usize = 228_888;
const CUT_LEN_BYTES: usize = 89_049;
/// The cut write is killed at its 3rd block write, its steps one at a time in plan order,
/// with OSS 6 missing at the next open: OSS 6 holds a data column of the cut stripe that the
/// write does not cover. Why plan order: in thread order which blocks had landed by the 3rd
/// write varied with the machine, and with some of them recovery tells the stripe without
/// OSS 6 (nothing lost, every byte right): the test then failed its "fail names a loss"
/// assert (CI of session 32, about half the runs on that machine, c3ad65a's code too). In
/// plan order, kills at block writes 2 and 3 leave the stripe recovery cannot tell; 1, 4,
/// 5 and 6 it tells.
const KILL_AT_BLOCK: usize = 3;
/// The thread-order sweep's kill points: block writes 1 to 6, every one the cut write has
/// (in plan order `write-torn-block:7` finds it finished).
const THREAD_ORDER_KILLS: usize = 6;
const MISSING_OSS: usize = 6;

/// What the store acknowledged: every file's bytes, and f1's bytes had the cut write
/// finished (inside its range each byte may be old or new: it was never acknowledged).
struct Acked {
    files: Vec<Vec<u8>>,
    f1_if_written: Vec<u8>,
}

/// raid6 k=4 over 9 OSSs, rmw, 64 KiB unit; f0..f3; then a write to f1 killed -9 half way
/// (at `KILL_AT_BLOCK`, plan order).
fn store_with_a_cut_write(d: &str) -> Acked {
    store_with_a_cut_write_at(
        d,
        KILL_AT_BLOCK,
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    )
}

/// `store_with_a_cut_write` killed at block write `kill_at_block`, with the kill test's
/// environment variables `envs` (none: thread order).
fn store_with_a_cut_write_at(d: &str, kill_at_block: usize, envs: &[&str]) -> Acked {
    let unit = UNIT_BYTES.to_string();
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "9",
            "--code",
            "raid6",
            "--k",
            "4",
            "--stripe-unit",
            &unit,
        ],
        b"",
    );
    let files: Vec<Vec<u8>> = (0..4)
        .map(|i| bytes(11 + i as u8, 200_000 + i * 130_001))
        .collect();
    for (i, f) in files.iter().enumerate() {
        ok(&["store", "put", d, &format!("f{i}")], f);
    }
    let w = bytes(99, CUT_LEN_BYTES);
    let mut f1_if_written = files[1].clone();
    assert!(CUT_OFFSET_BYTES + CUT_LEN_BYTES <= f1_if_written.len());
    f1_if_written[CUT_OFFSET_BYTES..CUT_OFFSET_BYTES + CUT_LEN_BYTES].copy_from_slice(&w);
    let offset = CUT_OFFSET_BYTES.to_string();
    let kill_at = format!(
        "{}:{kill_at_block}",
        exaraid_store::torture::WRITE_TORN_BLOCK
    );
    assert!(
        killed_at_with(
            &["store", "write", d, "f1", "--offset", &offset],
            &w,
            &kill_at,
            envs
        ),
        "the write must be cut at {kill_at} ({envs:?})"
    );
    Acked {
        files,
        f1_if_written,
    }
}

/// Every file reads exactly its acknowledged bytes; f1 inside the cut write old or new.
fn every_acked_byte_reads(d: &str, acked: &Acked) {
    for (i, f) in acked.files.iter().enumerate() {
        let got = ok(&["store", "get", d, &format!("f{i}")], b"");
        assert_eq!(got.len(), f.len(), "f{i} length");
        let wrong = (0..f.len())
            .filter(|&j| got[j] != f[j] && (i != 1 || got[j] != acked.f1_if_written[j]))
            .count();
        assert_eq!(
            wrong, 0,
            "f{i} reads {wrong} bytes neither acknowledged nor cut"
        );
    }
}

/// `store fail` of `MISSING_OSS` (recovery then runs without it): what it said, its LOST
/// lines, and what `status` says after it.
fn fail_the_missing_oss(d: &str) -> (String, Vec<String>, String) {
    let out = String::from_utf8_lossy(&ok(
        &["store", "fail", d, "--oss", &MISSING_OSS.to_string()],
        b"",
    ))
    .to_string();
    let named = lost_lines(&out);
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    (out, named, status)
}

/// f0, f2 and f3 (no byte of theirs in the cut stripe) read exactly.
fn the_other_files_read_exactly(d: &str, acked: &Acked, what: &str) {
    for i in [0, 2, 3] {
        let got = ok(&["store", "get", d, &format!("f{i}")], b"");
        assert!(got == acked.files[i], "{what}: f{i}");
    }
}

fn lost_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("LOST"))
        .map(str::to_string)
        .collect()
}

#[test]
fn recovery_waits_for_a_missing_oss_directory_and_records_nothing() {
    let tmp = fast_tempdir("exaraid-e13-wait");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let acked = store_with_a_cut_write(d);
    oss_away(&dir, MISSING_OSS);
    let missing = dir.join(format!("oss-{MISSING_OSS}"));
    // Every command opens the store (and so needs recovery first), also the read-only ones:
    // a clear error naming the directory and both ways on, never a panic or a silent loss.
    // (`status` opens without recovery and says the same: s24c_status_while_recovery_waits.rs.)
    for args in [
        vec!["store", "ls", d],
        vec!["store", "get", d, "f0"],
        vec!["store", "scrub", d],
    ] {
        let err = fails(&args, b"");
        assert!(
            err.contains(s(&missing))
                && err.contains("mount it and retry")
                && err.contains(&format!("exaraid store fail {d} --oss {MISSING_OSS}"))
                && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    oss_back(&dir, MISSING_OSS);
    // The mount is back: recovery runs with every OSS, nothing failed, nothing lost.
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert!(!status.contains("FAILED"), "{status}");
    assert!(lost_lines(&status).is_empty(), "{status}");
    every_acked_byte_reads(d, &acked);
    ok(&["store", "scrub", d], b"");
}

#[test]
fn store_fail_records_the_missing_oss_first_and_names_what_recovery_lost() {
    let tmp = fast_tempdir("exaraid-e13-fail");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let acked = store_with_a_cut_write(d);
    oss_away(&dir, MISSING_OSS);
    // The disk is gone for good: `fail` records it, then recovery runs without it. The cut
    // stripe is then beyond raid6 (the failed column and the torn data and parity): its
    // bytes on that OSS are lost, and `fail` says which.
    let (out, named, status) = fail_the_missing_oss(d);
    assert!(
        !named.is_empty() && named.iter().all(|l| l.contains("'f1'")),
        "fail must name the bytes recovery could not tell:\n{out}"
    );
    assert!(status.contains("FAILED"), "{status}");
    assert_eq!(lost_lines(&status), named, "status lists what fail named");
    // The other files read exactly; f1 fails naming its lost bytes, never wrong bytes.
    the_other_files_read_exactly(d, &acked, "OSS 6 gone, failed");
    let err = fails(&["store", "get", d, "f1"], b"");
    assert!(err.contains("lost"), "{err}");
    // ... and every f1 byte outside what is on record lost reads right.
    let (f1, cut) = (&acked.files[1], Some(acked.f1_if_written.as_slice()));
    reads_right_outside_its_losses(d, "f1", f1, cut, "OSS 6 gone, failed");
}

/// The cut write's block writes in thread order (one thread per OSS, as a real kill meets
/// them), killed at each of `THREAD_ORDER_KILLS`, then OSS 6 gone and `fail`ed. Which blocks
/// have landed by the n-th write varies with the machine's load, and with some of them
/// recovery tells the stripe without OSS 6: so this asserts only what holds at every kill
/// (the loss named in the test above is plan order's, asserted there). Kept beside it
/// because plan order never leaves several OSSs part-way at once, which this sweep does.
#[test]
fn store_fail_after_a_write_cut_in_thread_order_names_any_loss_and_never_reads_wrong_bytes() {
    let mut named_a_loss = Vec::new();
    for kill_at_block in 1..=THREAD_ORDER_KILLS {
        let tmp = fast_tempdir("exaraid-e13-threads");
        let dir = tmp.path().join("D");
        let d = s(&dir);
        let acked = store_with_a_cut_write_at(d, kill_at_block, &[]);
        oss_away(&dir, MISSING_OSS);
        let what = format!(
            "thread order, killed at block write {kill_at_block}, OSS {MISSING_OSS} failed"
        );
        let (out, named, status) = fail_the_missing_oss(d);
        assert!(
            named.iter().all(|l| l.contains("'f1'")),
            "{what}: only the cut file's stripe may lose bytes:\n{out}"
        );
        assert!(status.contains("FAILED"), "{what}: {status}");
        assert_eq!(
            lost_lines(&status),
            named,
            "{what}: status lists what fail named"
        );
        the_other_files_read_exactly(d, &acked, &what);
        let got = exaraid(&["store", "get", d, "f1"], b"");
        if got.status.success() {
            let (f1, cut) = (&acked.files[1], &acked.f1_if_written);
            assert_eq!(got.stdout.len(), f1.len(), "{what}: f1 length");
            let wrong = (0..f1.len())
                .filter(|&j| got.stdout[j] != f1[j] && got.stdout[j] != cut[j])
                .count();
            assert_eq!(
                wrong, 0,
                "{what}: f1 reads {wrong} bytes neither acknowledged nor cut"
            );
            assert!(
                named.is_empty(),
                "{what}: f1 reads whole, yet fail named:\n{out}"
            );
        } else {
            named_a_loss.push(kill_at_block);
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(err.contains("lost"), "{what}: {err}");
            let (f1, cut) = (&acked.files[1], Some(acked.f1_if_written.as_slice()));
            reads_right_outside_its_losses(d, "f1", f1, cut, &what);
        }
    }
    println!("thread order: of block writes 1..={THREAD_ORDER_KILLS}, {named_a_loss:?} named a loss of f1");
}

#[test]
fn two_disks_gone_take_two_fails_one_oss_each() {
    let tmp = fast_tempdir("exaraid-e13-two");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let acked = store_with_a_cut_write(d);
    for oss in [6, 7] {
        let from = dir.join(format!("oss-{oss}"));
        std::fs::rename(from, dir.join(format!("gone-{oss}"))).unwrap();
    }
    // The first `fail` records its OSS and names the other one, still waited for.
    let err = fails(&["store", "fail", d, "--oss", "6"], b"");
    assert!(
        err.contains("recording OSS [6] failed as asked")
            && err.contains(&format!("exaraid store fail {d} --oss 7")),
        "{err}"
    );
    // The second records the other: recovery runs without both (raid6 tolerates two).
    ok(&["store", "fail", d, "--oss", "7"], b"");
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert_eq!(status.matches("FAILED").count(), 2, "{status}");
    for i in [0, 2, 3] {
        let got = ok(&["store", "get", d, &format!("f{i}")], b"");
        assert!(got == acked.files[i], "f{i}");
    }
}
