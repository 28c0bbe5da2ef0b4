//! The review's reproduction of issue #4 from the command line: an OSS fails inside an open
//! delayed window (raid5 over 4 OSSs). No write is acknowledged and stored nowhere, END names
//! the lost bytes and closes the window, `status` lists them across commands, and rm, rebuild,
//! scrub and the window timeout keep working.

use crate::common;
use common::*;

use std::path::Path;

const UNIT: usize = 4096;

/// A delayed raid5 store over 4 OSSs with `other` (written outside windows) and an open
/// window on `ckpt` holding 3 elements of stripe 0. Returns the token and the OSS holding
/// the only copy of `ckpt` bytes 4096..8192.
fn setup(d: &str, timeout_ms: &str) -> (String, usize) {
    ok(
        &[
            "store",
            "init",
            d,
            "--oss",
            "4",
            "--code",
            "raid5",
            "--stripe-unit",
            "4096",
            "--write-path",
            "delayed",
            "--window-timeout-ms",
            timeout_ms,
        ],
        b"",
    );
    ok(&["store", "put", d, "other"], &bytes(1, 50_000));
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "ckpt"], b""))
        .unwrap()
        .trim()
        .to_string();
    ok(
        &["store", "write", d, "ckpt", "--offset", "0"],
        &bytes(2, 3 * UNIT),
    );
    let store = exaraid_store::Store::open(Path::new(d)).unwrap();
    let file = store.file_id("ckpt").unwrap();
    let victim = store.layout().locate(file, UNIT as u64).oss;
    let stripe1 = (0..3u64)
        .map(|i| store.layout().stripe_data_bytes() + i * UNIT as u64)
        .find(|&o| store.layout().locate(file, o).oss == victim)
        .unwrap();
    store.close().unwrap();
    assert_eq!(stripe1 % UNIT as u64, 0);
    (token, victim)
}

fn status(d: &str) -> serde_json::Value {
    serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap()
}

#[test]
fn an_oss_failure_inside_a_window_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let (token, victim) = setup(d, "600000");
    let v = victim.to_string();
    ok(&["store", "fail", d, "--oss", &v], b"");
    // Recorded at once, listed by status (text and JSON) in the next command.
    let st = status(d);
    for key in [
        "oss",
        "bytes_waiting_parity",
        "bytes_unprotected",
        "open_windows",
    ] {
        assert!(st.get(key).is_some(), "status keeps {key}");
    }
    assert_eq!(st["lost_ranges"].as_array().unwrap().len(), 1, "{st}");
    assert_eq!(st["lost_ranges"][0]["file"], "ckpt");
    assert_eq!(st["lost_ranges"][0]["offset_bytes"], UNIT);
    assert_eq!(st["lost_ranges"][0]["len_bytes"], UNIT);
    assert_eq!(st["lost_ranges"][0]["oss"], victim);
    let text = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(text.contains("LOST: 'ckpt' bytes 4096..8192"), "{text}");
    // Every acknowledged write is somewhere: a window write whose only copy would go to the
    // failed OSS is refused; one to a healthy OSS works.
    let mut acknowledged: Vec<(u64, Vec<u8>)> = Vec::new();
    for element in 3..9u64 {
        let at = element * UNIT as u64;
        let data = bytes(10 + element as u8, 1000);
        let out = exaraid(
            &["store", "write", d, "ckpt", "--offset", &at.to_string()],
            &data,
        );
        if out.status.success() {
            acknowledged.push((at, data));
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("refused") && err.contains(&format!("OSS {victim}")),
                "{err}"
            );
        }
    }
    assert!(
        acknowledged.len() >= 3 && acknowledged.len() < 6,
        "{}",
        acknowledged.len()
    );
    // END fails naming the lost bytes, and closes the window.
    let err = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(
        err.contains("'ckpt' bytes 4096..8192") && err.contains(&format!("OSS {victim}")),
        "{err}"
    );
    let err = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(err.contains("no open delayed window"), "{err}");
    // Everything else reads byte-exact; the lost bytes are an error, never zeros.
    assert_eq!(ok(&["store", "get", d, "other"], b""), bytes(1, 50_000));
    let first = ok(
        &[
            "store", "read", d, "ckpt", "--offset", "0", "--length", "4096",
        ],
        b"",
    );
    assert_eq!(first, &bytes(2, 3 * UNIT)[..UNIT]);
    for (at, data) in &acknowledged {
        let got = ok(
            &[
                "store",
                "read",
                d,
                "ckpt",
                "--offset",
                &at.to_string(),
                "--length",
                "1000",
            ],
            b"",
        );
        assert_eq!(&got, data, "acknowledged write at {at}");
    }
    let err = fails(
        &[
            "store", "read", d, "ckpt", "--offset", "5000", "--length", "10",
        ],
        b"",
    );
    assert!(
        err.contains("'ckpt' bytes 4096..8192") && err.contains("lost"),
        "{err}"
    );
    // Rebuild restores full redundancy for everything not lost. In place it empties the
    // OSS's directory, the lost bytes' only copy: it says their loss is final and exits 2
    // (s27d; it exited 0 saying nothing).
    let rebuilt = exaraid(&["store", "rebuild", d, "--oss", &v], b"");
    let said = String::from_utf8_lossy(&rebuilt.stderr);
    assert_eq!(rebuilt.status.code(), Some(2), "{said}");
    assert!(
        said.contains("made final the loss") && said.contains("'ckpt' bytes 4096..8192"),
        "{said}"
    );
    // Scrub finds nothing corrupt, but the lost bytes are a finding (exit 2), named.
    let out = exaraid(&["store", "scrub", d], b"");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("LOST: 'ckpt' bytes 4096..8192"), "{text}");
    assert!(text.contains("corrupt elements: 0"), "{text}");
    assert_eq!(status(d)["lost_ranges"].as_array().unwrap().len(), 1);
    // Writing the lost bytes again makes them readable; rm of the file works.
    let again = bytes(3, UNIT);
    ok(&["store", "write", d, "ckpt", "--offset", "4096"], &again);
    assert!(status(d)["lost_ranges"].as_array().unwrap().is_empty());
    let got = ok(
        &[
            "store", "read", d, "ckpt", "--offset", "4096", "--length", "4096",
        ],
        b"",
    );
    assert_eq!(got, again);
    ok(&["store", "rm", d, "ckpt"], b"");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn a_timeout_after_the_failure_then_a_late_end_and_rm_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    // Every command runs the timers when it opens the store: the timeout must be long
    // enough for the failure to come first (a few commands), then it must pass.
    let (token, victim) = setup(d, "3000");
    ok(&["store", "fail", d, "--oss", &victim.to_string()], b"");
    let lost = status(d)["lost_ranges"].as_array().unwrap().len();
    assert_eq!(
        lost, 1,
        "the failure came inside the window (3 s after its last write)"
    );
    std::thread::sleep(std::time::Duration::from_millis(3100));
    // The timeout fires when the next command opens the store: it must still open.
    assert_eq!(ok(&["store", "get", d, "other"], b""), bytes(1, 50_000));
    let st = status(d);
    assert_eq!(st["bytes_unprotected"], 0);
    assert_eq!(st["lost_ranges"].as_array().unwrap().len(), 1);
    let err = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(err.contains("'ckpt' bytes 4096..8192"), "{err}");
    ok(&["store", "rm", d, "ckpt"], b"");
    assert!(status(d)["lost_ranges"].as_array().unwrap().is_empty());
    ok(&["store", "rebuild", d, "--oss", &victim.to_string()], b"");
    ok(&["store", "scrub", d], b"");
    assert_eq!(ok(&["store", "get", d, "other"], b""), bytes(1, 50_000));
}

/// Review s6r R6-6: `online` after a `fail` inside an open window was refused (the fail
/// recorded the window bytes of that OSS lost). Since session 8 it takes them back from the
/// OSS's cache zone: nothing is lost any more and the window's bytes read back.
#[test]
fn online_after_a_fail_in_a_window_takes_the_lost_ranges_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let (_token, victim) = setup(d, "600000");
    let v = victim.to_string();
    let out = String::from_utf8(ok(&["store", "fail", d, "--oss", &v], b"")).unwrap();
    assert!(out.contains("LOST"), "{out}");
    ok(&["store", "online", d, "--oss", &v], b"");
    assert!(status(d)["lost_ranges"].as_array().unwrap().is_empty());
    assert!(ok(&["store", "get", d, "ckpt"], b"") == bytes(2, 3 * UNIT));
}

/// Review s8s (note 5): a second `fail` printed the losses of the first again, as if it had
/// lost them too. It names only what it adds and how many earlier losses stay on record;
/// the first names the way back (`online`) for window bytes it recorded with an address.
#[test]
fn a_second_fail_prints_only_the_losses_it_adds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let (_token, victim) = setup(d, "600000");
    let v = victim.to_string();
    let first = String::from_utf8(ok(&["store", "fail", d, "--oss", &v], b"")).unwrap();
    assert!(first.contains("LOST: 'ckpt' bytes 4096..8192"), "{first}");
    assert!(
        first.contains(&format!("exaraid store online {d} --oss {v}")),
        "the first fail names the way back: {first}"
    );
    assert!(!first.contains("earlier lost"), "{first}");
    let second = String::from_utf8(ok(&["store", "fail", d, "--oss", &v], b"")).unwrap();
    assert!(!second.contains("LOST"), "nothing new is lost: {second}");
    assert!(
        second.contains("1 earlier lost range(s) stay on record"),
        "{second}"
    );
    assert_eq!(status(d)["lost_ranges"].as_array().unwrap().len(), 1);
}

/// Review s8r R8-1: a window opened while an OSS is failed takes no write whose bytes would
/// have their only copy there; START says so at once (a warning, the token as ever), not
/// the first refused write.
#[test]
fn a_window_opened_on_a_degraded_store_warns_which_writes_it_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store_unit(
        d,
        4096,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    ok(&["store", "fail", d, "--oss", "0"], b"");
    let out = exaraid(&["store", "delayed", "start", d, "ckpt"], b"");
    assert!(out.status.success());
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let warning = String::from_utf8(out.stderr).unwrap();
    assert!(
        warning.contains(&format!(
            "window {token} opened on 'ckpt' with OSS [0] failed"
        )) && warning.contains("rebuild"),
        "{warning}"
    );
    // As the warning says: a write touching OSS 0 is refused, whole.
    let err = fails(
        &["store", "write", d, "ckpt", "--offset", "0"],
        &bytes(1, 65_536),
    );
    assert!(err.contains("would go to a failed OSS"), "{err}");
    ok(&["store", "delayed", "end", d, &token], b"");
}
