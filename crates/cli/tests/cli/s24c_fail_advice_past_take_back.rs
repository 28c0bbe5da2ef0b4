//! Session 24 (s24c), review s23r R23-1: past 8 MiB of a delayed window's bytes lost with a
//! `fail`ed OSS's cache zone, `fail` said `online` or `rebuild --to NEWDIR` takes them
//! back; neither does past that bound (`online` refuses, `rebuild --to` makes the loss
//! final with a warning).
//!
//! Specification: `fail` says what happens to those bytes and what keeps them, and doing
//! what it says works: it says `online` refuses and a rebuild makes the loss final (no
//! promise of a take-back); ending the window (the command it prints), writing the lost
//! ranges again, then `online` puts the OSS back, and where no more than the bound is
//! left on record lost, `online` takes that rest back from the old disk; every byte of the
//! file then reads as acknowledged, nothing is on record lost.

use crate::common;
use common::*;

/// The take-back bound of `online` and `rebuild --to` (`RESTORE_BYTES_MAX` in
/// crates/store/src/store/repair.rs).
const RESTORE_BYTES_MAX: u64 = 8 << 20;

/// `(file, offset, len)` of each `LOST:` line of `out`.
fn lost_lines(out: &str) -> Vec<(String, u64, u64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("LOST: '"))
        .map(|l| {
            let (file, rest) = l.split_once("' bytes ").unwrap();
            let range = rest.split_whitespace().next().unwrap();
            let (a, z) = range.split_once("..").unwrap();
            let (a, z): (u64, u64) = (a.parse().unwrap(), z.parse().unwrap());
            (file.to_string(), a, z - a)
        })
        .collect()
}

#[test]
fn fail_past_the_take_back_bound_says_what_keeps_the_bytes_and_following_it_keeps_them() {
    let tmp = fast_tempdir("s24c-take-back-bound");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    // raid5 over 3 OSSs, 1 MiB units: a third of a window's bytes is cached on each OSS.
    init_store_unit(
        d,
        1 << 20,
        &["--oss", "3", "--code", "raid5", "--write-path", "delayed"],
    );
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.trim();
    let window = bytes(7, 30 << 20);
    ok(&["store", "write", d, "f", "--offset", "0"], &window);

    let out = String::from_utf8(ok(&["store", "fail", d, "--oss", "0"], b"")).unwrap();
    let lost = lost_lines(&out);
    let lost_bytes: u64 = lost.iter().map(|(_, _, n)| n).sum();
    assert!(
        lost_bytes > RESTORE_BYTES_MAX,
        "the scene: more window bytes lost with OSS 0 than `online` takes back ({lost_bytes}): {out}"
    );
    let end = format!("exaraid store delayed end {d} {token}");
    let advice = out
        .lines()
        .find(|l| l.contains("cache zone"))
        .unwrap_or_else(|| panic!("fail's advice on the window bytes: {out}"));
    assert!(
        !advice.contains("are taken back by")
            && advice.contains(&RESTORE_BYTES_MAX.to_string())
            && advice.contains(&lost_bytes.to_string())
            && advice.contains("refuses")
            && advice.contains("makes their loss final")
            && advice.contains(&end)
            && advice.contains("write them again"),
        "fail promises no take-back past the bound, says what `online` and a rebuild do, and what keeps the bytes: {advice}"
    );

    // What it says `online` does.
    let err = fails(&["store", "online", d, "--oss", "0"], b"");
    assert!(
        err.contains("refused") && err.contains(&end),
        "online refuses, with the same way on: {err}"
    );

    // What it says keeps them: end the window, write the lost ranges again (all but the
    // last: fewer than the bound left on record), then `online`, which takes back the rest.
    let ended = exaraid(&["store", "delayed", "end", d, token], b"");
    let said = String::from_utf8_lossy(&ended.stderr);
    assert!(
        said.contains("not all of its bytes are protected"),
        "END names the bytes it cannot protect: {said}"
    );
    let (kept, rest) = lost.split_at(lost.len() - 1);
    assert!(rest[0].2 <= RESTORE_BYTES_MAX, "the rest fits the bound");
    for (file, at, len) in kept {
        let (a, z) = (*at as usize, (at + len) as usize);
        let offset = at.to_string();
        ok(
            &["store", "write", d, file, "--offset", &offset],
            &window[a..z],
        );
    }
    let out = String::from_utf8(ok(&["store", "online", d, "--oss", "0"], b"")).unwrap();
    assert!(out.contains("online again"), "{out}");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("LOST") && !status.contains("FAILED"),
        "nothing lost or failed: {status}"
    );
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == window, "f reads every acknowledged byte");
}
