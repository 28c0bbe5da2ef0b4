//! START_DELAYED and END_DELAYED are atomic across a crash (review d, D1 and D2): a
//! `delayed start` or `delayed end` killed after any of its journal records leaves either
//! the whole transition done or none of it.
//! - START: the window is listed with its token (and its END works), or there is no window
//!   at all: writes get parity and START works again. Never a window the planner holds and
//!   the user cannot see (writes without parity, START refused).
//! - END: the window is gone with its parity durable, or still listed and a second END works.
//!   Never a window listed forever that END says was never started. Either way the
//!   acknowledged bytes read back, scrub finds nothing, and they survive two failed OSSs.

use crate::common;
use common::*;

/// More journal records than one START or END (with its open and close) writes: the sweep
/// stops at the first `n` the command survives, and fails if it never does.
const JOURNAL_RECORDS_MAX: u64 = 40;

fn init(d: &str) {
    init_store(
        d,
        &["--oss", "5", "--code", "raid6", "--write-path", "delayed"],
    );
}

fn status(d: &str) -> serde_json::Value {
    serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap()
}

/// Tokens of the windows `status` lists on `file`.
fn windows_on(st: &serde_json::Value, file: &str) -> Vec<String> {
    st["open_windows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["file"] == file)
        .map(|w| w["token"].as_str().unwrap().to_string())
        .collect()
}

/// Run `exaraid store <args>` killed (SIGKILL) at the `n`-th journal record it appends.
/// Returns whether it was killed (`false`: it finished, successfully).
fn killed_at_record(args: &[&str], n: u64) -> bool {
    let mut all = vec!["store"];
    all.extend_from_slice(args);
    let point = exaraid_store::torture::JOURNAL_RECORD;
    killed_at(&all, b"", &format!("{point}:{n}"))
}

/// `file` reads back as `model`, scrub finds nothing wrong, and it still reads with two
/// OSSs failed (raid6: the parity of every stripe matches its data).
fn check_protected(d: &str, file: &str, model: &[u8], what: &str) {
    assert_eq!(ok(&["store", "get", d, file], b""), model, "{what}: get");
    let scrub: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "scrub", d, "--json"], b"")).unwrap();
    for key in [
        "corrupt_elements",
        "corrupt_cache_elements",
        "parity_mismatches",
        "unrepairable",
    ] {
        assert_eq!(
            scrub[key].as_array().map(|a| a.len()),
            Some(0),
            "{what}: scrub {key}: {scrub}"
        );
    }
    ok(&["store", "fail", d, "--oss", "0"], b"");
    ok(&["store", "fail", d, "--oss", "3"], b"");
    assert_eq!(
        ok(&["store", "get", d, file], b""),
        model,
        "{what}: get with OSS 0 and 3 failed"
    );
}

#[test]
fn a_start_killed_at_any_journal_record_takes_effect_whole_or_not_at_all() {
    let mut finished = false;
    for n in 1..=JOURNAL_RECORDS_MAX {
        let tmp = fast_tempdir("exaraid-store-window-crash");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        init(d);
        ok(&["store", "put", d, "f"], &bytes(1, 20_000));
        let killed = killed_at_record(&["delayed", "start", d, "f"], n);
        let what = format!("START killed at journal record {n}");
        // The first command after the crash writes: a window only the planner knew of would
        // take these bytes without parity (any command that closes the store with no window
        // listed and nothing cached would reset the planner and hide it).
        let model = bytes(2, 30_000);
        ok(&["store", "write", d, "f", "--offset", "0"], &model);
        let st = status(d);
        let tokens = windows_on(&st, "f");
        assert!(tokens.len() <= 1, "{what}: {st}");
        if !killed {
            assert_eq!(tokens.len(), 1, "{what}: a finished START lists its window");
        }
        match tokens.first() {
            // Whole: the window is listed with a token that ENDs it (and protects the write).
            Some(token) => ok(&["store", "delayed", "end", d, token], b""),
            // None of it: the write got its parity at once.
            None => {
                assert_eq!(st["bytes_unprotected"], 0, "{what}: {st}");
                Vec::new()
            }
        };
        let st = status(d);
        assert_eq!(st["bytes_unprotected"], 0, "{what}: {st}");
        assert_eq!(windows_on(&st, "f").len(), 0, "{what}: {st}");
        // START works again.
        let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
        ok(&["store", "delayed", "end", d, token.trim()], b"");
        check_protected(d, "f", &model, &what);
        if !killed {
            finished = true;
            break;
        }
    }
    assert!(
        finished,
        "START never finished within {JOURNAL_RECORDS_MAX} journal records"
    );
}

#[test]
fn an_end_killed_at_any_journal_record_ends_the_window_whole_or_not_at_all() {
    let mut finished = false;
    // Kills that left the window listed / gone: the sweep must see both.
    let mut kills_listed_gone = [0u32; 2];
    for n in 1..=JOURNAL_RECORDS_MAX {
        let tmp = fast_tempdir("exaraid-store-window-crash");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        init(d);
        let mut model = bytes(1, 50_000);
        ok(&["store", "put", d, "f"], &model);
        let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b""))
            .unwrap()
            .trim()
            .to_string();
        for (seed, offset, len) in [(2u8, 7_000usize, 15_000usize), (3, 40_000, 9_000)] {
            let w = bytes(seed, len);
            let o = offset.to_string();
            ok(&["store", "write", d, "f", "--offset", &o], &w);
            model[offset..offset + len].copy_from_slice(&w);
        }
        let killed = killed_at_record(&["delayed", "end", d, &token], n);
        let what = format!("END killed at journal record {n}");
        let st = status(d);
        let tokens = windows_on(&st, "f");
        if killed {
            kills_listed_gone[usize::from(tokens.is_empty())] += 1;
        }
        if killed && !tokens.is_empty() {
            // None of it: still listed, and a second END ends it.
            assert_eq!(tokens, vec![token.clone()], "{what}: {st}");
            ok(&["store", "delayed", "end", d, &token], b"");
        } else {
            // Whole: gone; a second END says so (no "never started").
            assert_eq!(tokens.len(), 0, "{what}: {st}");
            let err = fails(&["store", "delayed", "end", d, &token], b"");
            assert!(err.contains("no open delayed window"), "{what}: {err}");
        }
        let st = status(d);
        assert_eq!(windows_on(&st, "f").len(), 0, "{what}: {st}");
        assert_eq!(st["bytes_unprotected"], 0, "{what}: {st}");
        // START works again on the file.
        let t2 = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
        ok(&["store", "delayed", "end", d, t2.trim()], b"");
        check_protected(d, "f", &model, &what);
        if !killed {
            finished = true;
            break;
        }
    }
    assert!(
        finished,
        "END never finished within {JOURNAL_RECORDS_MAX} journal records"
    );
    eprintln!(
        "END kills: window still listed {}, gone {}",
        kills_listed_gone[0], kills_listed_gone[1]
    );
    assert!(
        kills_listed_gone.iter().all(|&k| k > 0),
        "the sweep killed END both before and after it took effect: {kills_listed_gone:?}"
    );
}
