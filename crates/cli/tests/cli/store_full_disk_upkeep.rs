//! The upkeep an open of a delayed store runs by itself must not fail the open on a full
//! disk (review s17r R17-3, R17-1, R17-1b). A due window timeout (its parity, journaled by
//! the open's tick) and the settle that absorbs the losses of an OSS failed inside a window
//! both need room; refused for it, they failed the open, so every command was refused
//! while the disk was full: `get` of a file no window touched, `ls`, `status`, and the
//! `rm` the message offered as the way out.
//!
//! Specification: with the disk full, `get` of an untouched file, `ls`, `status` and reads
//! of the window's file outside its lost bytes succeed with the acknowledged bytes, and
//! stderr tells that the upkeep was deferred and which disk lacks room; a write or END that
//! needs the upkeep first is refused naming that disk, nothing changed. What a failure lost
//! stays on record exactly as `fail` recorded it, no more, no less. Once there is room, the
//! next command does the upkeep (the timeout's parity computed, the losses absorbed: no
//! byte left without parity) and every byte reads right.
//!
//! The full disk: a small tmpfs filled to 0 bytes free (needs `mount`: root; skipped,
//! saying so, where it is not permitted), as the review's repros scripts/repro/
//! repro-r17-{3,1,1b}.sh.

use crate::common;
use common::*;

use std::path::Path;
use std::time::{Duration, Instant};

const UNIT: u64 = 4096;
const A_BYTES: usize = 70_000;
const B_BYTES: usize = 5_000;
/// The window's writes into `a` (offset, length): three, in different stripes.
const WINDOW_WRITES: [(usize, usize); 3] = [(1000, 9000), (30_000, 9000), (52_000, 9000)];
/// The small disk: room for the metadata (or one OSS's few elements), filled afterwards.
const TMPFS_BYTES: u64 = 2 << 20;
/// Long enough that the window's writes (CLI commands on a loaded machine) end before it.
const WINDOW_TIMEOUT_MS: u64 = 5000;
/// The OSS `fail`ed inside the window.
const FAILED_OSS: usize = 2;

/// A delayed rs 4+3 store over 7 OSSs with `a` (a window open on it, three writes in it)
/// and `b` (no window: nothing cached). The models of both files' acknowledged bytes.
struct Scene {
    dir: std::path::PathBuf,
    token: String,
    a: Vec<u8>,
    b: Vec<u8>,
    /// The small disk: the store's metadata directory or OSS 0's (see `Full`).
    disk: Tmpfs,
    _tmp: tempfile::TempDir,
}

/// Which disk is the small one.
#[derive(PartialEq)]
enum Full {
    Metadata,
    Oss0,
}

impl Scene {
    fn new(full: Full, timeout_ms: Option<u64>) -> Option<Scene> {
        let tmp = tempfile::tempdir().unwrap();
        let disk = Tmpfs::mount(&tmp.path().join("mnt"), TMPFS_BYTES)?;
        let oss_dir = |i: usize| match full {
            Full::Oss0 if i == 0 => disk.0.join("o0"),
            _ => tmp.path().join(format!("o{i}")),
        };
        let oss_dirs: Vec<String> = (0..7).map(|i| s(&oss_dir(i)).to_string()).collect();
        let oss_dirs = oss_dirs.join(",");
        let dir = match full {
            Full::Metadata => disk.0.join("s"),
            Full::Oss0 => tmp.path().join("s"),
        };
        let timeout = timeout_ms.map(|t| t.to_string());
        let mut args = vec![
            "--oss-dirs",
            &oss_dirs,
            "--code",
            "rs",
            "--k",
            "4",
            "--m",
            "3",
            "--write-path",
            "delayed",
        ];
        if let Some(t) = &timeout {
            args.extend(["--window-timeout-ms", t]);
        }
        init_store_unit(s(&dir), UNIT, &args);
        let d = s(&dir);
        let mut a = bytes(1, A_BYTES);
        let b = bytes(2, B_BYTES);
        ok(&["store", "put", d, "a"], &a);
        ok(&["store", "put", d, "b"], &b);
        let token = String::from_utf8(ok(&["store", "delayed", "start", d, "a"], b""))
            .unwrap()
            .trim()
            .to_string();
        for (i, &(at, len)) in WINDOW_WRITES.iter().enumerate() {
            let w = bytes(10 + i as u8, len);
            ok(&["store", "write", d, "a", "--offset", &at.to_string()], &w);
            put_over(&mut a, at, &w);
        }
        Some(Scene {
            dir,
            token,
            a,
            b,
            disk,
            _tmp: tmp,
        })
    }

    fn d(&self) -> &str {
        s(&self.dir)
    }

    fn status_json(&self) -> serde_json::Value {
        serde_json::from_slice(&ok(&["store", "status", self.d(), "--json"], b"")).unwrap()
    }

    /// The lost ranges on record, as (file, offset, length, oss), sorted.
    fn lost(&self) -> Vec<(String, u64, u64, u64)> {
        let status = self.status_json();
        let mut lost: Vec<(String, u64, u64, u64)> = status["lost_ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["file"].as_str().unwrap().to_string(),
                    l["offset_bytes"].as_u64().unwrap(),
                    l["len_bytes"].as_u64().unwrap(),
                    l["oss"].as_u64().unwrap(),
                )
            })
            .collect();
        lost.sort();
        lost
    }

    fn unprotected_bytes(&self) -> u64 {
        self.status_json()["bytes_unprotected"].as_u64().unwrap()
    }

    /// `get b`, `ls` and `status` succeed with the full disk, `b` exact, and each says on
    /// stderr that the upkeep was deferred, naming `disk_named`. Returns `status`'s stdout.
    fn reads_work_while_full(&self, disk_named: &Path, what: &str) -> String {
        let d = self.d();
        let mut status_out = String::new();
        for args in [
            vec!["store", "get", d, "b"],
            vec!["store", "ls", d],
            vec!["store", "status", d],
        ] {
            let out = exaraid(&args, b"");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "{what}: {args:?} on the full disk: {stderr}"
            );
            assert!(
                stderr.contains("deferred") && stderr.contains(s(disk_named)),
                "{what}: {args:?} tells the upkeep it deferred and the disk to free ({}): {stderr}",
                disk_named.display()
            );
            let stdout = String::from_utf8_lossy(&out.stdout).to_string();
            match args[1] {
                "get" => assert!(out.stdout == self.b, "{what}: b reads its bytes"),
                "ls" => assert!(
                    stdout.contains(" a\n") && stdout.contains(" b\n"),
                    "{what}: ls lists a and b: {stdout}"
                ),
                _ => status_out = stdout,
            }
        }
        status_out
    }
}

/// R17-3: a window whose END never came (its writer died) is due for its timeout, and the
/// store's metadata disk is full: the timeout's record cannot be journaled.
#[test]
fn a_due_window_timeout_on_a_full_metadata_disk_is_deferred_and_reads_work() {
    let Some(scene) = Scene::new(Full::Metadata, Some(WINDOW_TIMEOUT_MS)) else {
        return tmpfs_skipped();
    };
    let written = Instant::now();
    let d = scene.d();
    let window_bytes: u64 = WINDOW_WRITES.iter().map(|&(_, n)| n as u64).sum();
    assert_eq!(
        scene.unprotected_bytes(),
        window_bytes,
        "the timeout is not due yet (else this machine is too slow for {WINDOW_TIMEOUT_MS} ms)"
    );
    scene.disk.fill();
    let due = Duration::from_millis(WINDOW_TIMEOUT_MS + 500);
    std::thread::sleep(due.saturating_sub(written.elapsed()));

    let journal = scene.dir.join("journal");
    let what = "due timeout, metadata disk full";
    let status = scene.reads_work_while_full(&journal, what);
    assert!(
        status.contains(&scene.token),
        "{what}: status lists the window: {status}"
    );
    assert!(
        ok(&["store", "get", d, "a"], b"") == scene.a,
        "{what}: the window's bytes read from the cache zone"
    );
    // A write needs the timeout fired first (its record before the write's): refused,
    // naming the full disk, nothing changed.
    let refused = fails(&["store", "write", d, "a", "--offset", "0"], &bytes(7, 100));
    assert!(
        refused.contains(s(&journal)) && refused.contains("full"),
        "{what}: the write is refused naming the full metadata disk: {refused}"
    );
    assert!(
        ok(&["store", "get", d, "a"], b"") == scene.a,
        "{what}: a unchanged"
    );

    scene.disk.unfill();
    let status = status_with_nothing_deferred(d, what);
    assert_eq!(
        status["bytes_unprotected"], 0,
        "room back: this command's open fired the timeout, the window's bytes have parity"
    );
    assert!(
        ok(&["store", "get", d, "a"], b"") == scene.a,
        "room back: a"
    );
    assert!(
        ok(&["store", "get", d, "b"], b"") == scene.b,
        "room back: b"
    );
    ok(&["store", "scrub", d], b"");
    ok(&["store", "delayed", "end", d, &scene.token], b"");
    // Parity protects the window's bytes: one OSS less, every byte still reads.
    ok(&["store", "fail", d, "--oss", "1"], b"");
    assert!(ok(&["store", "get", d, "a"], b"") == scene.a, "degraded: a");
}

/// The part shared by R17-1 and R17-1b, after OSS `FAILED_OSS` was failed inside the window
/// (`fail` records the window bytes whose only copy was there lost) and the small disk was
/// filled: reads work, the losses stay on record exactly, END is refused naming
/// `disk_named`; with room the next command absorbs the losses and END names them.
fn failed_oss_inside_a_window_on_a_full_disk(scene: Scene, disk_named: &Path, what: &str) {
    let d = scene.d();
    let lost = scene.lost();
    assert!(
        !lost.is_empty(),
        "{what}: fail recorded the window's bytes on it lost"
    );
    for (file, at, len, oss) in &lost {
        assert!(
            file == "a"
                && *oss == FAILED_OSS as u64
                && WINDOW_WRITES
                    .iter()
                    .any(|&(w, n)| w as u64 <= *at && at + len <= (w + n) as u64),
            "{what}: a loss on record lies in a window write on OSS {FAILED_OSS}: {lost:?}"
        );
    }

    let status = scene.reads_work_while_full(disk_named, what);
    assert!(
        status.contains("LOST"),
        "{what}: status lists the losses: {status}"
    );
    assert_eq!(scene.lost(), lost, "{what}: the losses on record, exactly");
    let refused = fails(&["store", "get", d, "a"], b"");
    assert!(
        refused.contains(&format!("OSS {FAILED_OSS}")),
        "{what}: get a is refused naming its lost bytes: {refused}"
    );
    reads_right_outside_its_losses(d, "a", &scene.a, None, what);
    // END needs the losses absorbed first: refused naming the full disk, nothing changed.
    let refused = fails(&["store", "delayed", "end", d, &scene.token], b"");
    assert!(
        refused.contains(s(disk_named)) && refused.contains("full"),
        "{what}: END is refused naming the full disk: {refused}"
    );
    assert_eq!(
        scene.lost(),
        lost,
        "{what}: the refused END changed no loss"
    );

    scene.disk.unfill();
    let status = status_with_nothing_deferred(d, what);
    assert_eq!(
        status["bytes_unprotected"], 0,
        "{what}, room back: the losses were absorbed (the window's other bytes have parity)"
    );
    assert_eq!(scene.lost(), lost, "{what}, room back: the same losses");
    let refused = fails(&["store", "delayed", "end", d, &scene.token], b"");
    assert!(
        refused.contains("lost") && refused.contains(&format!("OSS {FAILED_OSS}")),
        "{what}, room back: END ends the window and names its losses: {refused}"
    );
    assert_eq!(scene.lost(), lost, "{what}, after END: the same losses");
    assert!(
        ok(&["store", "get", d, "b"], b"") == scene.b,
        "{what}, room back: b"
    );
    reads_right_outside_its_losses(d, "a", &scene.a, None, what);
}

/// R17-1: OSS 0's disk full, OSS 2 failed inside the window: the absorb's settle has no
/// room on OSS 0.
#[test]
fn a_failed_oss_inside_a_window_on_a_full_oss_disk_defers_the_absorb_and_reads_work() {
    let Some(scene) = Scene::new(Full::Oss0, None) else {
        return tmpfs_skipped();
    };
    scene.disk.fill();
    ok(
        &["store", "fail", scene.d(), "--oss", &FAILED_OSS.to_string()],
        b"",
    );
    let oss0 = scene.disk.0.join("o0");
    failed_oss_inside_a_window_on_a_full_disk(
        scene,
        &oss0,
        "OSS 2 failed in the window, OSS 0 full",
    );
}

/// R17-1b: the same with the store's metadata disk full after the `fail` (which had room):
/// the absorb's settle cannot journal its begin.
#[test]
fn a_failed_oss_inside_a_window_on_a_full_metadata_disk_defers_the_absorb_and_reads_work() {
    let Some(scene) = Scene::new(Full::Metadata, None) else {
        return tmpfs_skipped();
    };
    ok(
        &["store", "fail", scene.d(), "--oss", &FAILED_OSS.to_string()],
        b"",
    );
    scene.disk.fill();
    let journal = scene.dir.join("journal");
    let what = "OSS 2 failed in the window, metadata disk full";
    failed_oss_inside_a_window_on_a_full_disk(scene, &journal, what);
}

/// `status --json` once there is room again: it succeeds and defers nothing (its open did the
/// upkeep the full disk had put off).
fn status_with_nothing_deferred(d: &str, what: &str) -> serde_json::Value {
    let out = exaraid(&["store", "status", d, "--json"], b"");
    assert!(out.status.success(), "{what}, room back: status exits 0");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("deferred"),
        "{what}, room back: nothing deferred: {stderr}"
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
