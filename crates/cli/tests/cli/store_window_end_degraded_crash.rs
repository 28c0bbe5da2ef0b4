//! kill -9 of a delayed window's END with one OSS failed (review H5). The failed OSS holds a
//! data column of stripes the window wrote, outside the window's bytes: its acknowledged
//! bytes exist only as a decode of the other columns. END rewrites the parity of those
//! stripes, then moves the window's bytes home. Killed anywhere in it (after any journal
//! record, or between any block's new bytes and its checksum), the store must afterwards
//! read every acknowledged byte, rebuild the failed OSS, and scrub clean. It used to mark
//! the failed OSS's bytes lost (raid6, one failure) and `rebuild` failed: recovery took the
//! END's parity, and the move home that cannot start before it, as in flight beside the
//! failed column, and did not count cached bytes as covered by a parity that was durable.

//!
//! The same for a window ended by its timeout instead of END (the timeout path of H5,
//! `PlanCause::WindowTimeout`): the window's deadline has passed when the killed command
//! opens the store, so the open's timer run ends it, with the same plans as END.
//!
//! The same on raid5 (review s6s S6-4): the failed OSS holds a column (data or parity) of
//! stripes whose other columns the move home writes in part (a 4 KiB block holding window
//! bytes and older ones). A kill between such a block's new bytes and its checksum left it
//! failing its old checksum; raid5 has no redundancy left beside the failed column to tell
//! its older bytes, so recovery recorded a HEALTHY OSS's acknowledged bytes lost (and the
//! failed OSS's beside them). The move now journals those edge blocks whole first.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{bytes, exaraid, fast_tempdir, killed_at, ok, s};
use exaraid_store::torture::{JOURNAL_RECORD, WRITE_TORN_BLOCK};

const FILE_BYTES: usize = 50_000;
/// The window's writes `(offset, length)`: none holds bytes of the failed OSS (checked).
const WINDOW_WRITES: [(usize, usize); 4] =
    [(21222, 2472), (25875, 792), (4747, 8780), (6168, 5992)];
/// A code and the OSS failed inside its window.
#[derive(Clone, Copy)]
struct Setup {
    code: &'static str,
    /// raid6 over 5: data column 0 of stripe 0 (file bytes 0..4096), beside the window's
    /// bytes. raid5 over 5: the parity of stripe 0 and data column 0 of stripe 1 (file
    /// bytes 16384..20480), beside window bytes the move home writes in part.
    failed_oss: &'static str,
}
const RAID6: Setup = Setup {
    code: "raid6",
    failed_oss: "0",
};
const RAID5: Setup = Setup {
    code: "raid5",
    failed_oss: "4",
};
/// More kill points than one END passes (the sweep stops at the first it survives).
const KILLS_MAX: u64 = 48;
/// The window's timeout: long enough for the setup's commands to run inside the window
/// (a setup that took longer is retried with a longer one), short for the test's wall time.
const TIMEOUT_MS_FIRST: u64 = 1500;
/// The window's timeout when END ends it: never reached.
const TIMEOUT_MS_END: u64 = 600_000;
const SETUP_ATTEMPTS: u32 = 4;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A delayed store of `setup.code` over 5 OSSs (window timeout `timeout_ms`) with an open
/// window on `f` holding `WINDOW_WRITES`, then OSS `setup.failed_oss` failed. Returns the
/// window's token and every acknowledged byte of `f`, or `None` when the window timed out
/// during the setup.
fn store_with_open_window_and_failed_oss(
    dir: &Path,
    timeout_ms: u64,
    setup: Setup,
) -> Option<(String, Vec<u8>)> {
    let d = s(dir);
    let timeout = timeout_ms.to_string();
    let init = [
        "store",
        "init",
        d,
        "--oss",
        "5",
        "--code",
        setup.code,
        "--stripe-unit",
        "4096",
        "--write-path",
        "delayed",
        "--window-timeout-ms",
        &timeout,
    ];
    ok(&init, b"");
    let mut model = bytes(1, FILE_BYTES);
    ok(&["store", "put", d, "f"], &model);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let token = token.trim().to_string();
    for (i, &(offset, len)) in WINDOW_WRITES.iter().enumerate() {
        let new = bytes(10 + i as u8, len);
        ok(
            &["store", "write", d, "f", "--offset", &offset.to_string()],
            &new,
        );
        model[offset..offset + len].copy_from_slice(&new);
    }
    ok(&["store", "fail", d, "--oss", setup.failed_oss], b"");
    // The scenario's premise: no acknowledged byte was lost with the failed OSS.
    assert!(
        ok(&["store", "get", d, "f"], b"") == model,
        "setup: the window's bytes must not sit on the failed OSS"
    );
    // Still inside the window: its bytes have no parity yet.
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    let unprotected = status["bytes_unprotected"].as_u64().unwrap();
    (unprotected > 0).then_some((token, model))
}

/// How the window ends in the killed command.
#[derive(Clone, Copy, PartialEq)]
enum Ending {
    /// `exaraid store delayed end DIR TOKEN`.
    End,
    /// Its timeout, fired by the timers the open of any command runs (here `ls`).
    Timeout,
}

fn window_ending_killed_at_every(ending: Ending, point: &str, setup: Setup) {
    let failed_oss = setup.failed_oss;
    let what = match ending {
        Ending::End => "END",
        Ending::Timeout => "timeout",
    };
    let tmp = fast_tempdir("exaraid-window-ending-degraded");
    // The superblock names its OSS directories by absolute path: every run uses the same
    // store directory, restored from a copy of the store as it was before the timeout.
    let dir = tmp.path().join("store");
    let pristine = tmp.path().join("pristine");
    let mut timeout_ms = match ending {
        Ending::End => TIMEOUT_MS_END,
        Ending::Timeout => TIMEOUT_MS_FIRST,
    };
    let mut made = None;
    for _ in 0..SETUP_ATTEMPTS {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        made = store_with_open_window_and_failed_oss(&dir, timeout_ms, setup);
        if made.is_some() {
            break;
        }
        timeout_ms *= 4; // a slow machine: the window timed out before the setup ended
    }
    let (token, model) = made.expect("the setup ran inside the window's timeout");
    copy_dir(&dir, &pristine);
    if ending == Ending::Timeout {
        // Past the deadline: the next command's open ends the window by its timeout.
        std::thread::sleep(Duration::from_millis(timeout_ms + 100));
    }
    let d = s(&dir);
    let mut kills = 0;
    for n in 1..=KILLS_MAX {
        std::fs::remove_dir_all(&dir).unwrap();
        copy_dir(&pristine, &dir);
        let command: &[&str] = match ending {
            Ending::End => &["store", "delayed", "end", d, &token],
            Ending::Timeout => &["store", "ls", d],
        };
        let killed = killed_at(command, b"", &format!("{point}:{n}"));
        if ending == Ending::Timeout {
            // The timeout gave the window's bytes parity (the next open's timers, after a
            // kill).
            let status: serde_json::Value =
                serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
            assert_eq!(
                status["bytes_unprotected"], 0,
                "timeout killed at {point}:{n}: window bytes without parity after the deadline"
            );
        }
        let get = exaraid(&["store", "get", d, "f"], b"");
        assert!(
            get.status.success(),
            "{what} killed at {point}:{n}: get fails: {}",
            String::from_utf8_lossy(&get.stderr)
        );
        if get.stdout != model {
            let bad: Vec<usize> = (0..model.len().min(get.stdout.len()))
                .filter(|&i| get.stdout[i] != model[i])
                .collect();
            panic!(
                "{what} killed at {point}:{n}: wrong bytes, exit 0: {} bytes (of {}), {} differ, first {:?} last {:?}",
                get.stdout.len(),
                model.len(),
                bad.len(),
                bad.first(),
                bad.last()
            );
        }
        let rebuild = exaraid(&["store", "rebuild", d, "--oss", failed_oss], b"");
        assert!(
            rebuild.status.success(),
            "{what} killed at {point}:{n}: rebuild fails: {}",
            String::from_utf8_lossy(&rebuild.stderr)
        );
        assert!(
            ok(&["store", "get", d, "f"], b"") == model,
            "{what} killed at {point}:{n}: the file changed in the rebuild"
        );
        ok(&["store", "scrub", d], b"");
        if !killed {
            break;
        }
        kills += 1;
    }
    assert!(
        kills >= 4,
        "only {kills} kills at {point} landed in the window's {what}"
    );
    assert!(
        kills < KILLS_MAX,
        "the window's {what} never finished within {KILLS_MAX} kill points at {point}"
    );
}

#[test]
fn a_window_end_killed_after_any_journal_record_with_a_failed_oss_keeps_every_acknowledged_byte() {
    window_ending_killed_at_every(Ending::End, JOURNAL_RECORD, RAID6);
}

#[test]
fn a_window_end_killed_at_any_block_with_a_failed_oss_keeps_every_acknowledged_byte() {
    window_ending_killed_at_every(Ending::End, WRITE_TORN_BLOCK, RAID6);
}

#[test]
fn a_window_timeout_killed_after_any_journal_record_with_a_failed_oss_keeps_every_acknowledged_byte(
) {
    window_ending_killed_at_every(Ending::Timeout, JOURNAL_RECORD, RAID6);
}

#[test]
fn a_window_timeout_killed_at_any_block_with_a_failed_oss_keeps_every_acknowledged_byte() {
    window_ending_killed_at_every(Ending::Timeout, WRITE_TORN_BLOCK, RAID6);
}

/// Review s6s S6-4: a HEALTHY OSS's acknowledged bytes in a block the move home writes in
/// part were recorded lost on raid5 (4 of 6 kill points).
#[test]
fn a_raid5_window_end_killed_at_any_block_with_a_failed_oss_keeps_every_acknowledged_byte() {
    window_ending_killed_at_every(Ending::End, WRITE_TORN_BLOCK, RAID5);
}

/// The move home's edge-block copies are a journal record more: a kill after any record.
#[test]
fn a_raid5_window_end_killed_after_any_journal_record_with_a_failed_oss_keeps_every_acknowledged_byte(
) {
    window_ending_killed_at_every(Ending::End, JOURNAL_RECORD, RAID5);
}
