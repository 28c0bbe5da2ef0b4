//! A disk that returns EIO to `fallocate` (a dying disk whose reads still work) met by a
//! reservation while a delayed window holds acknowledged bytes whose only copy (its cache
//! zone, no parity before END) is on that OSS. The OSS is recorded failed (s18c, s19f) and
//! those bytes lost. Specification (issue #4: nothing acknowledged vanishes silently, and
//! nothing is given up that can be taken back):
//! - whatever command met the EIO names the bytes lost: a write (s19d) and a settle (`flush`
//!   here; review s19m: it exited 0 saying nothing);
//! - the losses carry their cache address, as a plain `fail`'s do, so `online` of the OSS,
//!   once its disk works, takes back every block that still verifies (s19d left them
//!   unaddressed: lost for good though the disk read them);
//! - a window write refused for its bytes on that failed OSS advises a rebuild onto a new
//!   disk (`--to NEWDIR`), not in place onto the failing one.

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `exaraid ARGS` with every `fallocate` on OSS `dying`'s objects failing EIO.
fn with_falloc_eio(shim: &Path, dying: usize, args: &[&str], stdin: &[u8]) -> Output {
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), stdin).unwrap();
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::from(std::fs::File::open(input.path()).unwrap()))
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", format!("oss-{dying}/objects"))
        .env("NOSPCAFTER", "0")
        .env("NOSPCERRNO", "5")
        .env("NOSPCKIND", "falloc")
        .output()
        .unwrap()
}

/// Every range `status` lists lost in file `name`: `(offset_bytes, end_bytes, restorable)`.
fn lost_ranges(dir: &Path, name: &str) -> Vec<(u64, u64, bool)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["file"] == name)
        .map(|l| {
            let at = l["offset_bytes"].as_u64().unwrap();
            let end = at + l["len_bytes"].as_u64().unwrap();
            (at, end, l["restorable"].as_bool().unwrap())
        })
        .collect()
}

fn healthy(dir: &Path) -> Vec<bool> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    status["oss"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["healthy"].as_bool().unwrap())
        .collect()
}

const A_BYTES: usize = 65_536;
/// Acknowledged inside the window at 0: one 4 KiB element on each of OSSs 0..3.
const WINDOW_BYTES: usize = 16_384;

/// A delayed store (`code_args`, 4 KiB unit) holding `a` (`A_BYTES`) with a window open on
/// it and `WINDOW_BYTES` written at 0 inside it. Returns the bytes `a` reads.
fn window_scene(dir: &Path, code_args: &[&str]) -> Vec<u8> {
    let mut args = code_args.to_vec();
    args.extend(["--write-path", "delayed"]);
    init_store_unit(s(dir), 4096, &args);
    let mut want = bytes(3, A_BYTES);
    ok(&["store", "put", s(dir), "a"], &want);
    ok(&["store", "delayed", "start", s(dir), "a"], b"");
    let window = bytes(5, WINDOW_BYTES);
    ok(&["store", "write", s(dir), "a", "--offset", "0"], &window);
    put_over(&mut want, 0, &window);
    want
}

/// Each lost range of `a` is named in `err` as `file 'a' bytes A..Z`; at least one is, and
/// every one is restorable (it carries its cache address).
fn named_and_restorable(dir: &Path, err: &str) -> Vec<(u64, u64, bool)> {
    let lost = lost_ranges(dir, "a");
    assert!(!lost.is_empty(), "the failure lost window bytes: {err}");
    for &(at, end, restorable) in &lost {
        assert!(end <= WINDOW_BYTES as u64, "only window bytes: {at}..{end}");
        assert!(
            err.contains(&format!("file 'a' bytes {at}..{end}")),
            "the message names lost bytes {at}..{end}: {err}"
        );
        assert!(
            restorable,
            "lost with their cache address (the disk still reads): {lost:?}"
        );
    }
    lost
}

/// Write path (raid5 over 5 OSSs): a window write past the end of `a` whose reservation
/// meets OSS 3's EIO is refused (its bytes would go to the failed OSS); the window bytes it
/// lost are named, restorable, and `online` (the disk healthy again) takes them back exact.
#[test]
fn window_bytes_a_write_reservations_eio_lost_are_taken_back_by_online() {
    let tmp = fast_tempdir("exaraid-reserve-eio-online-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let want = window_scene(&dir, &["--oss", "5", "--code", "raid5"]);
    let offset = A_BYTES.to_string();
    let out = with_falloc_eio(
        &shim,
        3,
        &["store", "write", s(&dir), "a", "--offset", &offset],
        &bytes(9, 262_144),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused: {err}");
    assert!(err.contains("OSS 3 was recorded failed"), "{err}");
    named_and_restorable(&dir, &err);
    assert!(
        err.contains(&format!("exaraid store online {} --oss 3", s(&dir))),
        "the message says `online` takes them back: {err}"
    );

    ok(&["store", "online", s(&dir), "--oss", "3"], b"");
    assert!(healthy(&dir).iter().all(|h| *h));
    assert_eq!(lost_ranges(&dir, "a"), vec![], "every lost block verified");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
}

/// The same refusal advises rebuilding the OSS onto a new disk: in place, its new elements
/// would go to the disk that just failed.
#[test]
fn a_window_write_refused_after_its_reservation_eio_advises_a_rebuild_onto_a_new_disk() {
    let tmp = fast_tempdir("exaraid-reserve-eio-advice-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    window_scene(&dir, &["--oss", "5", "--code", "raid5"]);
    let offset = A_BYTES.to_string();
    let out = with_falloc_eio(
        &shim,
        3,
        &["store", "write", s(&dir), "a", "--offset", &offset],
        &bytes(9, 262_144),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused: {err}");
    let in_place = format!("`exaraid store rebuild {} --oss 3`", s(&dir));
    assert!(
        !err.contains(&in_place),
        "no in-place rebuild onto the failing disk: {err}"
    );
    assert!(
        err.contains(&format!(
            "rebuild the OSS onto a new disk (`exaraid store rebuild {} --oss 3 --to NEWDIR`)",
            s(&dir)
        )),
        "{err}"
    );
}

/// Settle path (rs 4+3 over 7 OSSs): with OSS 3 failed (its window bytes lost, as by any
/// `fail`), a `flush` moves the window's bytes home degraded, and its copy of OSS 3's column
/// goes to OSS 0, whose disk fails the reservation: OSS 0 is recorded failed and the flush
/// goes on, exit 0. Its window bytes lost are named on stderr, restorable, and `online` of
/// OSS 0 takes them back exact. On the code before, the flush said nothing of them.
#[test]
fn a_flush_whose_reservation_eio_lost_window_bytes_names_them_and_online_takes_them_back() {
    let tmp = fast_tempdir("exaraid-reserve-eio-flush-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let want = window_scene(
        &dir,
        &["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"],
    );
    // No command between: the next open moves the window's bytes home (the settle that
    // takes a failed OSS's window bytes out of the planner), and that must be the flush's.
    ok(&["store", "fail", s(&dir), "--oss", "3"], b"");

    let out = with_falloc_eio(&shim, 0, &["store", "flush", s(&dir)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the flush goes on degraded: {err}");
    assert!(!healthy(&dir)[0], "OSS 0 recorded failed: {err}");
    assert!(
        err.contains("OSS 0 was recorded failed") && err.contains("I/O error on reserving room"),
        "the flush says which OSS it recorded failed and why: {err}"
    );
    let lost = lost_ranges(&dir, "a");
    assert_eq!(
        lost,
        vec![(0, 4096, true), (12_288, 16_384, true)],
        "OSS 0's window element lost by the flush, OSS 3's by `fail`, both restorable"
    );
    assert!(
        err.contains("file 'a' bytes 0..4096"),
        "the flush names the window bytes its OSS failure lost: {err}"
    );
    assert!(
        err.contains(&format!("exaraid store online {} --oss 0", s(&dir))),
        "the flush says `online` takes them back: {err}"
    );
    assert!(
        !err.contains("file 'a' bytes 12288..16384"),
        "not the bytes lost by the earlier `fail`: {err}"
    );

    ok(&["store", "online", s(&dir), "--oss", "0"], b"");
    ok(&["store", "online", s(&dir), "--oss", "3"], b"");
    assert!(healthy(&dir).iter().all(|h| *h));
    assert_eq!(lost_ranges(&dir, "a"), vec![], "every lost block verified");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
}
