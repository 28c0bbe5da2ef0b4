//! A disk that returns EIO to `fallocate` (a dying disk) met first by a reservation (a write
//! into new slots) is treated as a write step's EIO is (review s17r R17-4): the OSS is recorded
//! failed and the write goes on degraded; past the tolerance the write is refused, nothing
//! recorded, and the message says why. Before, the write was refused at every retry and
//! the OSS never recorded failed (s17h fixed only the message: it named `fail`, `rebuild`).

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

const DYING_OSS: usize = 3;

/// `store write DIR a --offset OFFSET` of `data` with every `fallocate` on `DYING_OSS`'s
/// objects failing EIO.
fn write_with_falloc_eio(shim: &Path, dir: &Path, offset: u64, data: &[u8]) -> Output {
    write_with_eio(shim, dir, "a", offset, data, "falloc")
}

/// `store write DIR NAME --offset OFFSET` of `data` with every call of `kind` (`falloc`:
/// `fallocate`; `write`: the write calls) on `DYING_OSS`'s objects failing EIO.
fn write_with_eio(
    shim: &Path,
    dir: &Path,
    name: &str,
    offset: u64,
    data: &[u8],
    kind: &str,
) -> Output {
    let input = dir.with_extension("input");
    std::fs::write(&input, data).unwrap();
    let offset = offset.to_string();
    let out = with_eio(
        shim,
        DYING_OSS,
        &["store", "write", s(dir), name, "--offset", &offset],
        std::fs::File::open(&input).unwrap().into(),
        kind,
    );
    std::fs::remove_file(&input).unwrap();
    out
}

/// `exaraid ARGS` with every call of `kind` (as in `write_with_eio`) on OSS `dying`'s
/// objects failing EIO.
fn with_eio(shim: &Path, dying: usize, args: &[&str], stdin: Stdio, kind: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(stdin)
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .env("LD_PRELOAD", shim)
        .env("NOSPCFILE", format!("oss-{dying}/objects"))
        .env("NOSPCAFTER", "0")
        .env("NOSPCERRNO", "5")
        .env("NOSPCKIND", kind)
        .output()
        .unwrap()
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

#[test]
fn falloc_eio_records_the_oss_failed_and_the_write_goes_on_degraded() {
    let tmp = fast_tempdir("exaraid-reserve-eio-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    init_store(
        s(&dir),
        &["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"],
    );
    let base = bytes(3, 100_000);
    ok(&["store", "put", s(&dir), "a"], &base);

    // Past the end of the file: new slots on every OSS, OSS 3's reservation meets the EIO.
    let more = bytes(9, 50_000);
    let out = write_with_falloc_eio(&shim, &dir, 90_000, &more);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the write goes on degraded: {err}");
    let mut want = base.clone();
    put_over(&mut want, 90_000, &more);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
    let up = healthy(&dir);
    assert!(!up[DYING_OSS], "OSS {DYING_OSS} recorded failed: {up:?}");
    assert_eq!(
        up.iter().filter(|h| !**h).count(),
        1,
        "only OSS {DYING_OSS}: {up:?}"
    );

    // A second write while the disk still fails: the OSS is failed, nothing reserves on it.
    let again = bytes(11, 30_000);
    let out = write_with_falloc_eio(&shim, &dir, 150_000, &again);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    put_over(&mut want, 150_000, &again);
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);

    // The way back: the rebuild the failure calls for works, every byte exact.
    let oss = DYING_OSS.to_string();
    let new = tmp.path().join("new-disk");
    ok(
        &["store", "rebuild", s(&dir), "--oss", &oss, "--to", s(&new)],
        b"",
    );
    assert!(healthy(&dir).iter().all(|h| *h));
    for other in ["0", "1", "2"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }
    assert_eq!(
        ok(&["store", "get", s(&dir), "a"], b""),
        want,
        "OSS 3 rebuilt right"
    );
}

/// Past the tolerance (rs 4+3 with OSSs 0, 1, 2 failed already) the EIO cannot be recorded as
/// a failure: the write is refused, nothing of it written, and the message says the disk
/// failed the reservation and how many OSSs are out.
#[test]
fn falloc_eio_past_the_tolerance_refuses_the_write_and_changes_nothing() {
    let tmp = fast_tempdir("exaraid-reserve-eio-past-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    init_store(
        s(&dir),
        &["--oss", "7", "--code", "rs", "--k", "4", "--m", "3"],
    );
    let base = bytes(3, 100_000);
    ok(&["store", "put", s(&dir), "a"], &base);
    for other in ["0", "1", "2"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }
    let out = write_with_falloc_eio(&shim, &dir, 90_000, &bytes(9, 50_000));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "past the tolerance: {err}");
    assert!(
        err.contains(&format!("OSS {DYING_OSS}"))
            && err.contains("I/O error on reserving room")
            && err.contains("cannot be recorded failed")
            && err.contains("tolerates 3"),
        "{err}"
    );
    // Its disk answered (EIO): no mount to check (the message said to check those "not
    // answering" were mounted, OSS 3 among them, before session 19).
    assert!(!err.contains("mounted"), "{err}");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), base);
    let up = healthy(&dir);
    assert!(up[DYING_OSS], "OSS {DYING_OSS} not recorded failed: {up:?}");
}

/// The OSS of the settle scene whose disk fails: the settle copies of `FAILED_FIRST`'s
/// cached column go there (new slots, `fallocate`d: a WCL write reserved every home slot it
/// lands in, so a settle meets the disk only there).
const SETTLE_DYING_OSS: usize = 0;
/// A data column of the cached stripe, failed before the settle.
const FAILED_FIRST: usize = 1;

/// A WCL store (rs 4+3) holding `a` (100000 bytes, home) and a write past its end that is
/// still in the cache zone, with OSS `FAILED_FIRST` failed. Returns the bytes `a` reads.
fn wcl_store_with_cached_bytes(dir: &Path) -> Vec<u8> {
    init_store(
        s(dir),
        &[
            "--oss",
            "7",
            "--code",
            "rs",
            "--k",
            "4",
            "--m",
            "3",
            "--write-path",
            "wcl",
        ],
    );
    let mut want = bytes(3, 100_000);
    ok(&["store", "put", s(dir), "a"], &want);
    ok(&["store", "flush", s(dir)], b"");
    let more = bytes(9, 5_000);
    ok(
        &["store", "write", s(dir), "a", "--offset", "100000"],
        &more,
    );
    want.extend_from_slice(&more);
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    assert_eq!(
        status["bytes_waiting_parity"], 5_000,
        "the scene: the write waits in the cache zone"
    );
    let failed = FAILED_FIRST.to_string();
    ok(&["store", "fail", s(dir), "--oss", &failed], b"");
    want
}

fn flush_with_falloc_eio(shim: &Path, dir: &Path) -> Output {
    with_eio(
        shim,
        SETTLE_DYING_OSS,
        &["store", "flush", s(dir)],
        Stdio::null(),
        "falloc",
    )
}

/// A settle's reservation (`flush`: moving cached bytes home, here degraded) meeting the
/// EIO is treated as a write's is: the OSS is recorded failed and the settle goes on
/// degraded, exit 0, every byte exact and home with parity. On the code before, the flush
/// stopped: "its disk returned an I/O error on reserving room for new elements ...; the
/// command stopped there", every retry alike.
#[test]
fn falloc_eio_on_a_settles_reservation_records_the_oss_failed_and_the_settle_goes_on_degraded() {
    let tmp = fast_tempdir("exaraid-reserve-eio-settle-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let want = wcl_store_with_cached_bytes(&dir);

    let out = flush_with_falloc_eio(&shim, &dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the settle goes on degraded: {err}");
    let down: Vec<usize> = (healthy(&dir).iter().enumerate())
        .filter(|(_, h)| !**h)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        down,
        vec![SETTLE_DYING_OSS, FAILED_FIRST],
        "recorded failed"
    );
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(&dir), "--json"], b"")).unwrap();
    assert_eq!(status["bytes_waiting_parity"], 0, "settled: {status}");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
    // Home with parity: both OSSs rebuilt, then three others failed, every byte exact.
    for oss in [SETTLE_DYING_OSS, FAILED_FIRST] {
        let new = tmp.path().join(format!("new-disk-{oss}"));
        let oss = oss.to_string();
        ok(
            &["store", "rebuild", s(&dir), "--oss", &oss, "--to", s(&new)],
            b"",
        );
    }
    for other in ["2", "3", "4"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }
    assert_eq!(
        ok(&["store", "get", s(&dir), "a"], b""),
        want,
        "rebuilt right"
    );
}

/// Past the tolerance (OSSs 1, 2, 3 failed) the settle is refused, nothing changed: the
/// message says the disk failed the reservation, that its directory answers (no mount to
/// check for it), and names the rebuild of a failed OSS that makes room for the failure,
/// which then works. On the code before, it named `fail` for that OSS (refused past the
/// tolerance) and said nothing of the OSSs out.
#[test]
fn falloc_eio_on_a_settles_reservation_past_the_tolerance_changes_nothing_and_names_the_way_out() {
    let tmp = fast_tempdir("exaraid-reserve-eio-settle-past-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let want = wcl_store_with_cached_bytes(&dir);
    for other in ["2", "3"] {
        ok(&["store", "fail", s(&dir), "--oss", other], b"");
    }

    let out = flush_with_falloc_eio(&shim, &dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "past the tolerance: {err}");
    assert!(
        err.contains(&format!("OSS {SETTLE_DYING_OSS}"))
            && err.contains("I/O error on reserving room")
            && err.contains("cannot be recorded failed")
            && err.contains("tolerates 3")
            && err.contains("Nothing was changed")
            && err.contains(&format!("--oss {FAILED_FIRST} --to NEWDIR")),
        "{err}"
    );
    assert!(
        !err.contains("mounted") && !err.contains("store fail"),
        "no mount to check, no `fail` refused past the tolerance: {err}"
    );
    let up = healthy(&dir);
    assert!(up[SETTLE_DYING_OSS], "not recorded failed: {up:?}");
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
    // The way out the message names: one failed OSS rebuilt (its settle, with the disk
    // sound then, moves the cached bytes home).
    let new = tmp.path().join("new-disk");
    let failed = FAILED_FIRST.to_string();
    ok(
        &[
            "store",
            "rebuild",
            s(&dir),
            "--oss",
            &failed,
            "--to",
            s(&new),
        ],
        b"",
    );
    assert_eq!(ok(&["store", "get", s(&dir), "a"], b""), want);
}

/// `(offset_bytes, end_bytes)` of every range `status` lists lost, in file `name`.
fn lost_ranges(dir: &Path, name: &str) -> Vec<(u64, u64)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", s(dir), "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["file"] == name)
        .map(|l| {
            let at = l["offset_bytes"].as_u64().unwrap();
            (at, at + l["len_bytes"].as_u64().unwrap())
        })
        .collect()
}

/// A raid5 delayed store over 5 OSSs with file `a` (`A_BYTES`) and a window open on it,
/// `WINDOW_BYTES` written at 0 inside the window (acknowledged, cached without parity, one
/// element on each data OSS, `DYING_OSS` among them).
const A_BYTES: usize = 65_536;
const WINDOW_BYTES: usize = 16_384;

fn window_scene(tmp: &Path, window_bytes: usize) -> std::path::PathBuf {
    let dir = tmp.join("s");
    init_store(
        s(&dir),
        &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
    );
    ok(&["store", "put", s(&dir), "a"], &bytes(3, A_BYTES));
    ok(&["store", "delayed", "start", s(&dir), "a"], b"");
    if window_bytes > 0 {
        ok(
            &["store", "write", s(&dir), "a", "--offset", "0"],
            &bytes(5, window_bytes),
        );
    }
    dir
}

/// Every lost range of `a` lies inside the window's acknowledged bytes, and `err` names each
/// as `file 'a' bytes A..Z`; at least one is.
fn assert_names_window_losses(dir: &Path, err: &str) {
    let lost = lost_ranges(dir, "a");
    assert!(!lost.is_empty(), "the failure lost window bytes: {err}");
    for (at, end) in lost {
        assert!(
            end <= WINDOW_BYTES as u64,
            "only the window's acknowledged bytes are lost: {at}..{end}"
        );
        assert!(
            err.contains(&format!("file 'a' bytes {at}..{end}")),
            "the message names lost bytes {at}..{end}: {err}"
        );
    }
}

/// Merge review s18m M18-2: a window write whose reservation meets the EIO records
/// `DYING_OSS` failed (s18c), which takes the window's earlier acknowledged bytes cached only
/// there; the write itself is then refused (its own bytes would go to the failed OSS). Its
/// refusal said neither: the user learnt of the loss only from `status`, a read or END.
#[test]
fn a_refused_window_write_names_the_oss_it_recorded_failed_and_the_acknowledged_bytes_lost() {
    let tmp = fast_tempdir("exaraid-reserve-eio-window-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = window_scene(tmp.path(), WINDOW_BYTES);
    let out = write_with_falloc_eio(&shim, &dir, A_BYTES as u64, &bytes(9, 262_144));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "its bytes would go to the failed OSS: {err}"
    );
    assert!(
        err.contains("nothing of it was written"),
        "the refusal as before: {err}"
    );
    assert!(
        err.contains(&format!("OSS {DYING_OSS} was recorded failed")),
        "{err}"
    );
    assert_names_window_losses(&dir, &err);
    assert!(err.contains("written again"), "what to do: {err}");
    assert!(!healthy(&dir)[DYING_OSS]);
}

/// The same refusal with no acknowledged byte on the failed OSS says none was lost.
#[test]
fn a_refused_window_write_that_lost_nothing_says_none_was_lost() {
    let tmp = fast_tempdir("exaraid-reserve-eio-window-none-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = window_scene(tmp.path(), 0);
    let out = write_with_falloc_eio(&shim, &dir, A_BYTES as u64, &bytes(9, 262_144));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!("OSS {DYING_OSS} was recorded failed"))
            && err.contains("none was lost"),
        "{err}"
    );
    assert!(lost_ranges(&dir, "a").is_empty());
}

/// A write outside any window (file `b`) that records `DYING_OSS` failed goes on degraded,
/// exit 0, and warns naming the window bytes of `a` the failure lost.
#[test]
fn a_write_that_goes_on_degraded_warns_of_the_window_bytes_its_oss_failure_lost() {
    let tmp = fast_tempdir("exaraid-reserve-eio-other-file-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = window_scene(tmp.path(), WINDOW_BYTES);
    let b = bytes(11, 262_144);
    let out = write_with_eio(&shim, &dir, "b", 0, &b, "falloc");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "b goes on degraded: {err}");
    assert!(
        err.contains("warning") && err.contains(&format!("OSS {DYING_OSS} was recorded failed")),
        "{err}"
    );
    assert_names_window_losses(&dir, &err);
    assert_eq!(ok(&["store", "get", s(&dir), "b"], b""), b);
}

/// The write step's EIO (not the reservation's) in the same scene: the refused write named
/// only its own bytes on the failed OSS, not the window's earlier ones that failure lost.
#[test]
fn a_window_write_step_eio_names_the_earlier_acknowledged_bytes_its_oss_failure_lost() {
    let tmp = fast_tempdir("exaraid-write-eio-window-");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the EIO shim was not built, test skipped");
        return;
    };
    let dir = window_scene(tmp.path(), WINDOW_BYTES);
    let out = write_with_eio(&shim, &dir, "a", 20_480, &bytes(9, 20_480), "write");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!("OSS {DYING_OSS} was recorded failed")),
        "{err}"
    );
    let lost = lost_ranges(&dir, "a");
    let earlier: Vec<&(u64, u64)> = lost
        .iter()
        .filter(|(_, end)| *end <= WINDOW_BYTES as u64)
        .collect();
    assert!(!earlier.is_empty(), "earlier window bytes lost: {lost:?}");
    for (at, end) in earlier {
        assert!(
            err.contains(&format!("file 'a' bytes {at}..{end}")),
            "the message names earlier lost bytes {at}..{end}: {err}"
        );
    }
}
