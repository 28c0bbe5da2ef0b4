//! Session 25 (s25d): what is said of a delayed window's bytes lost with an OSS's cache zone
//! past the 8 MiB take-back bound (`RESTORE_BYTES_MAX`: neither `online` nor a rebuild
//! onto a new disk takes any back past it, s24c).
//!
//! - A write whose reservation met an EIO (the OSS recorded failed, its window bytes lost)
//!   said "`exaraid store online DIR --oss I` takes back, once that disk works again, those
//!   whose blocks still verify, as does a rebuild onto a new disk (`--to NEWDIR`)"
//!   (`restorable_hint`), past the bound too, where `online` then refuses and the rebuild
//!   makes the loss final. Specification: past the bound it promises no take-back, says what
//!   `online` and a rebuild do there and what keeps the bytes, as `fail` does since s24c.
//! - `rebuild --to NEWDIR` past the bound exited 0, warning "did not take back ... its old
//!   directory was not read (...); they stay lost: write them again". Specification: it says
//!   the loss is now final and nothing takes them back, names the bytes and where to write
//!   them from (the user's own copy, `exaraid store write`), and exits 2 (done, but the store
//!   does not hold every acknowledged byte, as scrub's exit 2); writing them again as it
//!   says makes every byte read.
//!
//! On a40ace1: the write's refusal promises the take-back past the bound; the rebuild exits
//! 0 with "did not take back".

use crate::common;
use common::*;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The take-back bound of `online` and `rebuild --to` (`RESTORE_BYTES_MAX` in
/// crates/store/src/store/repair.rs).
const RESTORE_BYTES_MAX: u64 = 8 << 20;
/// The window's bytes: a third of them is cached on each OSS of a raid5 over 3, more than
/// the bound on each.
const WINDOW_BYTES: usize = 30 << 20;

/// `(file, offset, len)` of every range `status` lists lost.
fn lost(d: &str) -> Vec<(String, u64, u64)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["offset_bytes"].as_u64().unwrap(),
                l["len_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// raid5 over 3 OSSs, 1 MiB units, delayed: a window on `f` holding `WINDOW_BYTES` at 0.
/// Returns the window's token and its bytes.
fn big_window(d: &str) -> (String, Vec<u8>) {
    init_store_unit(
        d,
        1 << 20,
        &["--oss", "3", "--code", "raid5", "--write-path", "delayed"],
    );
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let window = bytes(7, WINDOW_BYTES);
    ok(&["store", "write", d, "f", "--offset", "0"], &window);
    (token.trim().to_string(), window)
}

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

#[test]
fn a_write_whose_reservation_eio_lost_window_bytes_past_the_take_back_bound_promises_no_take_back()
{
    let tmp = fast_tempdir("s25d-hint-bound");
    let Some(shim) = build_c_shim(tmp.path(), "repro/s17r-nospc-shim") else {
        eprintln!("no C compiler: the fallocate EIO shim was not built, test skipped");
        return;
    };
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let (token, _) = big_window(d);
    let offset = WINDOW_BYTES.to_string();
    let out = with_falloc_eio(
        &shim,
        0,
        &["store", "write", d, "f", "--offset", &offset],
        &bytes(9, 3 << 20),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("OSS 0 was recorded failed"),
        "the scene: the write's reservation met OSS 0's EIO: {err}"
    );
    let lost_bytes: u64 = lost(d).iter().map(|(_, _, n)| n).sum();
    assert!(
        lost_bytes > RESTORE_BYTES_MAX,
        "the scene: more window bytes lost with OSS 0 than `online` takes back ({lost_bytes}): {err}"
    );
    assert!(
        !err.contains("takes back, once that disk works again"),
        "no promise of a take-back past the bound: {err}"
    );
    let end = format!("exaraid store delayed end {d} {token}");
    assert!(
        err.contains(&RESTORE_BYTES_MAX.to_string())
            && err.contains("refuses")
            && err.contains("makes their loss final")
            && err.contains(&end)
            && err.contains("write them again from your own copy"),
        "says what `online` and a rebuild do past the bound, and what keeps the bytes: {err}"
    );
    // What it says `online` does.
    let refused = fails(&["store", "online", d, "--oss", "0"], b"");
    assert!(refused.contains("refused"), "online refuses: {refused}");
}

#[test]
fn a_rebuild_to_past_the_take_back_bound_says_the_loss_is_final_exits_2_and_writing_again_keeps_the_bytes(
) {
    let tmp = fast_tempdir("s25d-rebuild-bound");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let (token, window) = big_window(d);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let on_record = lost(d);
    let lost_bytes: u64 = on_record.iter().map(|(_, _, n)| n).sum();
    assert!(
        lost_bytes > RESTORE_BYTES_MAX,
        "the scene: more window bytes lost with OSS 0 than a rebuild takes back ({lost_bytes})"
    );

    let new = tmp.path().join("new-0");
    let out = exaraid(&["store", "rebuild", d, "--oss", "0", "--to", s(&new)], b"");
    let said = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "rebuilt, but acknowledged bytes are lost for good: exit 2: {said}{err}"
    );
    assert!(
        said.contains("OSS 0 rebuilt, but")
            && said.contains(&format!("{lost_bytes} acknowledged bytes")),
        "{said}"
    );
    assert!(
        err.contains("made final the loss")
            && err.contains("nothing takes them back")
            && err.contains(&RESTORE_BYTES_MAX.to_string())
            && err.contains(&format!("{lost_bytes} bytes"))
            && err.contains("from your own copy")
            && err.contains(&format!("exaraid store write {d} FILE --offset OFFSET")),
        "the warning says the loss is final, why, and what to do: {err}"
    );
    assert_eq!(lost(d), on_record, "they stay lost, on record");

    // What it says to do: write each range again (the window is still open, its cache OSS
    // in service again), then every byte reads and nothing is lost.
    for (file, at, len) in &on_record {
        let (a, z) = (*at as usize, (at + len) as usize);
        let offset = at.to_string();
        ok(
            &["store", "write", d, file, "--offset", &offset],
            &window[a..z],
        );
    }
    assert_eq!(lost(d), vec![], "a write clears its loss from the record");
    ok(&["store", "delayed", "end", d, &token], b"");
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == window, "f reads every acknowledged byte");
}
