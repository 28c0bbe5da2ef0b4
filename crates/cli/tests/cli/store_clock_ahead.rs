//! One command run with the wall clock far ahead (a node with a wrong RTC, a VM restored, an
//! NTP step back afterwards) must not stop delayed-window timeouts for the commands after it
//! (review s11r R11-5): the store's time never goes backwards, and it used to stay at that
//! future instant until the real clock caught up (years), so window bytes stayed without
//! parity past `--window-timeout-ms`, silently.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Ten years, in seconds: the wall clock of the one command that runs ahead.
const AHEAD_S: u64 = 10 * 365 * 24 * 3600;
const WINDOW_TIMEOUT_MS: u64 = 1000;

/// Build scripts/clockshim.c (an LD_PRELOAD that adds CLOCKSHIM_OFFSET_S to
/// CLOCK_REALTIME) into `dir`; `None` where no C compiler is found (the test says so).
fn build_clock_shim(dir: &Path) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/clockshim.c");
    let out = dir.join("clockshim.so");
    let status = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .arg("-ldl")
        .status()
        .ok()?;
    status.success().then_some(out)
}

fn unprotected_bytes(d: &str) -> u64 {
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("bytes unprotected:"))
        .unwrap_or_else(|| panic!("status names the unprotected bytes: {status}"));
    line["bytes unprotected:".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn a_command_run_with_the_clock_ahead_does_not_stop_window_timeouts() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(shim) = build_clock_shim(tmp.path()) else {
        eprintln!("no C compiler (cc): the clock shim cannot be built, test skipped");
        return;
    };
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let timeout = WINDOW_TIMEOUT_MS.to_string();
    init_store(
        d,
        &[
            "--oss",
            "5",
            "--code",
            "raid5",
            "--write-path",
            "delayed",
            "--window-timeout-ms",
            &timeout,
        ],
    );
    let g = bytes(1, 5000);
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "put", d, "g"])
        .env("LD_PRELOAD", &shim)
        .env("CLOCKSHIM_OFFSET_S", AHEAD_S.to_string())
        .stdin(std::fs::File::open(write_input(tmp.path(), &g)).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the put with the clock ahead: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // From here on the clock is right again.
    let f = bytes(2, 20_000);
    ok(&["store", "delayed", "start", d, "f"], b"");
    ok(&["store", "write", d, "f", "--offset", "0"], &f);
    std::thread::sleep(std::time::Duration::from_millis(2 * WINDOW_TIMEOUT_MS));
    assert_eq!(
        unprotected_bytes(d),
        0,
        "the window without END timed out after {WINDOW_TIMEOUT_MS} ms: its parity is computed"
    );
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    assert!(ok(&["store", "get", d, "g"], b"") == g);
    ok(&["store", "scrub", d], b"");
}

fn write_input(dir: &Path, data: &[u8]) -> PathBuf {
    let path = dir.join("input");
    std::fs::write(&path, data).unwrap();
    path
}
