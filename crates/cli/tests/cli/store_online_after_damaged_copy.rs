//! Review s14r R14-3: a degraded write (OSS 1 failed) killed -9 whose `FailedColumnCopy`
//! record (the only true copy of the failed OSS's column, synced before the write's first
//! write) is the journal's last record, damaged after it was written. The open cuts it and
//! refuses reads that need a decode nothing checks; the two ways out its message offers,
//! `online --oss 1` and `rebuild --oss 1`, rewrote OSS 1's column from a decode through the
//! cut write's half-done stripe (new data, old parity): acknowledged bytes read wrong with
//! exit 0, scrub clean. Whatever either command does, every acknowledged byte must then
//! read as written (the cut write's range old or new), or the read is refused naming the
//! bytes: lost on record, or the decode it would need.
//!
//! The scene is the reviewer's (`scripts/repro/repro-r14-3.py`): 4+1 (or 4+2) over 5 OSSs,
//! 4 KiB unit; one acknowledged 1,000-byte degraded write into each data column of stripe
//! 0 (OSS 1's column exists then only as parity); a 3,000-byte write into column 2 killed
//! at each durable call (scripts/killshim.c) whose journal then ends on its
//! `FailedColumnCopy`; one bit of that record flipped.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cut write: into column 2 of stripe 0, rows 500..3500.
const CUT_AT: usize = 2 * 4096 + 500;
const CUT_BYTES: usize = 3000;
/// Durable calls a killed write is swept over (the write makes fewer).
const KILL_CALLS_MAX: u32 = 60;

/// `(start, framed length, kind)` of the journal's last record.
fn last_record(journal: &[u8]) -> Option<(usize, usize, String)> {
    let mut at = 0usize;
    let mut last = None;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > journal.len() {
            return None; // a torn record last (a killed journal write): not the scene
        }
        let payload = &journal[at + 8..at + 8 + len];
        let kind = serde_json::from_slice::<serde_json::Value>(payload)
            .ok()
            .and_then(|v| match &v["rec"] {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Object(m) => m.keys().next().cloned(),
                _ => None,
            })
            .unwrap_or_default();
        last = Some((at, 8 + len, kind));
        at += 8 + len;
    }
    last
}

/// The store before the killed write, and the file's acknowledged bytes then.
struct Scene {
    root: tempfile::TempDir,
    pristine: PathBuf,
    acked: Vec<u8>,
    cut_write: Vec<u8>,
}

fn scene(code: &str, write_path: &str, also_failed: Option<usize>) -> Scene {
    let root = fast_tempdir("exaraid-r14-3-");
    // Built where every case runs and copied away: the superblock names the OSS
    // directories by absolute path, so a case starts from this copy put back whole.
    let store = root.path().join("store");
    let pristine = root.path().join("pristine");
    let d = s(&store);
    init_store(
        d,
        &["--oss", "5", "--code", code, "--write-path", write_path],
    );
    let mut acked = bytes(1, 30_000);
    ok(&["store", "put", d, "f"], &acked);
    ok(&["store", "put", d, "g"], &bytes(2, 20_000));
    ok(&["store", "fail", d, "--oss", "1"], b"");
    if let Some(oss) = also_failed {
        ok(&["store", "fail", d, "--oss", &oss.to_string()], b"");
    }
    for col in 0..4u8 {
        let w = bytes(10 + col, 1000);
        let at = col as usize * 4096 + 100;
        ok(&["store", "write", d, "f", "--offset", &at.to_string()], &w);
        put_over(&mut acked, at, &w);
    }
    copy_store(&store, &pristine);
    Scene {
        root,
        pristine,
        acked,
        cut_write: bytes(20, CUT_BYTES),
    }
}

impl Scene {
    /// The write killed at durable call `k` on a fresh copy of the scene. `None`: it
    /// finished (no call `k`); `Some(false)`: the journal does not end on the write's
    /// `FailedColumnCopy`; `Some(true)`: it does, and one bit of it is flipped.
    /// `tear`: `KILLTEAR` of the shim ("" for none; "1": a pwrite killed half written).
    fn kill_and_damage(&self, shim: &Path, k: u32, tear: &str) -> Option<bool> {
        let store = self.root.path().join("store");
        copy_store(&self.pristine, &store);
        let d = s(&store);
        let offset = CUT_AT.to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(["store", "write", d, "f", "--offset", &offset])
            .env("LD_PRELOAD", shim)
            .env("KILLN", k.to_string())
            .env("KILLTEAR", tear)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            let _ = stdin.write_all(&self.cut_write);
        }
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            return None;
        }
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(9),
            "k={k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = store.join("journal");
        let mut journal = std::fs::read(&path).unwrap();
        let Some((at, framed, kind)) = last_record(&journal) else {
            return Some(false);
        };
        if kind != "FailedColumnCopy" {
            return Some(false);
        }
        // Where the reviewer's sweep flips it: the middle of the payload.
        journal[at + framed / 2 - 2] ^= 0x08;
        std::fs::write(&path, &journal).unwrap();
        Some(true)
    }

    /// After `fix` (`online` or `rebuild` of OSS 1, whatever it answered): `f` reads its
    /// acknowledged bytes (the cut write's range old or new), or is refused naming what it
    /// cannot read; then every byte outside the losses on record reads right.
    /// `late`: an OSS failed after the crash (`store fail`), the one `fix` then runs on.
    fn every_byte_right_or_named(&self, fix: &str, case: &str, late: Option<usize>) {
        let store = self.root.path().join("store");
        let d = s(&store);
        let target = late.unwrap_or(1).to_string();
        if late.is_some() {
            let failed = exaraid(&["store", "fail", d, "--oss", &target], b"");
            assert!(
                failed.status.success(),
                "{case}: fail --oss {target}: {}",
                String::from_utf8_lossy(&failed.stderr)
            );
        }
        let fixed = exaraid(&["store", fix, d, "--oss", &target], b"");
        self.reads_right_or_named(fix, case, &fixed.stderr);
    }

    /// After `fix` (whose stderr was `fixed_stderr`): `f` reads its acknowledged bytes (the
    /// cut write's range old or new), or is refused naming what it cannot read; then every
    /// byte outside the losses on record reads right.
    fn reads_right_or_named(&self, fix: &str, case: &str, fixed_stderr: &[u8]) {
        let store = self.root.path().join("store");
        let d = s(&store);
        let mut cut = self.acked.clone();
        put_over(&mut cut, CUT_AT, &self.cut_write);
        let got = exaraid(&["store", "get", d, "f"], b"");
        if got.status.success() {
            let wrong: Vec<usize> = (0..self.acked.len())
                .filter(|&i| got.stdout.get(i) != Some(&self.acked[i]))
                .filter(|&i| got.stdout.get(i) != Some(&cut[i]))
                .collect();
            assert!(
                got.stdout.len() == self.acked.len() && wrong.is_empty(),
                "{case}: after `{fix}` ({}) `get f` exits 0 with {} wrong bytes ({:?}..{:?})",
                String::from_utf8_lossy(fixed_stderr),
                wrong.len(),
                wrong.first(),
                wrong.last()
            );
            return;
        }
        let err = String::from_utf8_lossy(&got.stderr).into_owned();
        assert!(err.contains("'f'"), "{case}: `get f` refused: {err}");
        // Refused: each 4 KiB piece reads its acknowledged bytes, or is refused naming them
        // (lost on record, or a decode it would need and cannot check).
        let mut refused = 0;
        for a in (0..self.acked.len()).step_by(4096) {
            let z = (a + 4096).min(self.acked.len());
            let (offset, len) = (a.to_string(), (z - a).to_string());
            let out = exaraid(
                &[
                    "store", "read", d, "f", "--offset", &offset, "--length", &len,
                ],
                b"",
            );
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(err.contains("'f'"), "{case}: read {a}..{z} refused: {err}");
                refused += 1;
                continue;
            }
            let wrong = (a..z)
                .filter(|&i| out.stdout.get(i - a) != Some(&self.acked[i]))
                .filter(|&i| out.stdout.get(i - a) != Some(&cut[i]))
                .count();
            assert!(
                out.stdout.len() == z - a && wrong == 0,
                "{case}: after `{fix}` read {a}..{z} exits 0 with {wrong} wrong bytes"
            );
        }
        assert!(
            refused > 0,
            "{case}: `get f` refused, every piece reads: {err}"
        );
    }
}

impl Scene {
    /// `rebuild --oss 1` killed at kill point `kill_at` (`EXARAID_KILL_AT`) or stopped before
    /// it, its rebuild left unfinished either way, then OSS `late`
    /// failed (if any), then the same `rebuild --oss 1` run again to its end; then
    /// `reads_right_or_named`.
    fn rebuild_rerun_after_a_kill(&self, case: &str, kill_at: &str, late: Option<usize>) {
        use std::os::unix::process::ExitStatusExt;
        let store = self.root.path().join("store");
        let d = s(&store);
        let killed = Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(["store", "rebuild", d, "--oss", "1"])
            .env(exaraid_store::torture::KILL_AT_ENV, kill_at)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        // Killed, or stopped before the kill point, leaving its rebuild unfinished (raid6:
        // the cut write's stripe disagrees with both parities, which no single column
        // explains).
        let stopped = String::from_utf8_lossy(&killed.stderr);
        assert!(
            killed.status.signal() == Some(9)
                || (!killed.status.success() && stopped.contains("run the rebuild again")),
            "{case}: the first rebuild was neither killed at {kill_at} nor stopped: {stopped}"
        );
        if let Some(late) = late {
            let failed = exaraid(&["store", "fail", d, "--oss", &late.to_string()], b"");
            assert!(
                failed.status.success(),
                "{case}: fail --oss {late}: {}",
                String::from_utf8_lossy(&failed.stderr)
            );
        }
        let rerun = exaraid(&["store", "rebuild", d, "--oss", "1"], b"");
        self.reads_right_or_named("rebuild (rerun)", case, &rerun.stderr);
    }
}

/// `sweep` of `rebuild --oss 1` killed at `kill_at` and run again, OSS `late` failed
/// between the two runs (see `Scene::rebuild_rerun_after_a_kill`).
fn sweep_rebuild_rerun(code: &str, kill_at: &str, late: Option<usize>) {
    let scene = scene(code, "rmw", None);
    let Some(shim) = build_c_shim(scene.root.path(), "killshim") else {
        eprintln!("no C compiler: the kill sweep needs scripts/killshim.c built; skipped");
        return;
    };
    let mut damaged = 0;
    for k in 1..=KILL_CALLS_MAX {
        let case =
            format!("{code} rmw, rebuild killed at {kill_at}, then {late:?} failed, kill of the write at call {k}");
        match scene.kill_and_damage(&shim, k, "") {
            None => break,
            Some(false) => continue,
            Some(true) => {
                damaged += 1;
                scene.rebuild_rerun_after_a_kill(&case, kill_at, late);
            }
        }
    }
    assert!(damaged > 0, "{code} rmw: no kill left the copy last");
}

fn sweep(code: &str, write_path: &str, also_failed: Option<usize>, fix: &str) {
    sweep_torn(code, write_path, also_failed, fix, "");
}

/// `sweep` with the killed pwrite torn as `KILLTEAR=tear` leaves it (scripts/killshim.c).
fn sweep_torn(code: &str, write_path: &str, also_failed: Option<usize>, fix: &str, tear: &str) {
    sweep_late(code, write_path, also_failed, fix, tear, None);
}

/// `sweep_torn`, and before `fix` OSS `late` (up under the cut write) is failed and `fix`
/// runs on it rather than on OSS 1.
fn sweep_late(
    code: &str,
    write_path: &str,
    also_failed: Option<usize>,
    fix: &str,
    tear: &str,
    late: Option<usize>,
) {
    let scene = scene(code, write_path, also_failed);
    let Some(shim) = build_c_shim(scene.root.path(), "killshim") else {
        eprintln!("no C compiler: the kill sweep needs scripts/killshim.c built; skipped");
        return;
    };
    let mut damaged = 0;
    for k in 1..=KILL_CALLS_MAX {
        let case = format!(
            "{code} {write_path} failed {also_failed:?} then {late:?}, `{fix}`, kill at call {k} (KILLTEAR={tear:?})"
        );
        match scene.kill_and_damage(&shim, k, tear) {
            None => break,
            Some(false) => continue,
            Some(true) => {
                damaged += 1;
                scene.every_byte_right_or_named(fix, &case, late);
            }
        }
    }
    assert!(
        damaged > 0,
        "{code} {write_path}: no kill left the copy last"
    );
}

#[test]
fn online_after_a_damaged_failed_column_copy_raid5_rmw() {
    sweep("raid5", "rmw", None, "online");
}

#[test]
fn rebuild_after_a_damaged_failed_column_copy_raid5_rmw() {
    sweep("raid5", "rmw", None, "rebuild");
}

#[test]
fn online_after_a_damaged_failed_column_copy_raid5_wcl() {
    sweep("raid5", "wcl", None, "online");
}

#[test]
fn online_after_a_damaged_failed_column_copy_raid6_rmw() {
    sweep("raid6", "rmw", None, "online");
}

#[test]
fn online_after_a_damaged_failed_column_copy_raid6_rmw_two_failed() {
    sweep("raid6", "rmw", Some(4), "online");
}

#[test]
fn rebuild_after_a_damaged_failed_column_copy_raid6_rmw_two_failed() {
    sweep("raid6", "rmw", Some(4), "rebuild");
}

/// s14e leftover 1: `rebuild` (not `online`) with one OSS failed on raid6, the cut write's
/// pwrites torn where the kill lands: a parity block written whole whose checksum the kill
/// tore does not verify, so the decode of OSS 1's column has only the other parity, which
/// the cut write may not have reached yet (old). It gave 3,000 wrong bytes with exit 0.
#[test]
fn rebuild_after_a_damaged_failed_column_copy_raid6_rmw_torn() {
    sweep_torn("raid6", "rmw", None, "rebuild", "1");
}

/// The same with `online`, whose merge fix (columns with unverified blocks erased) this
/// keeps covered for torn pwrites.
#[test]
fn online_after_a_damaged_failed_column_copy_raid6_rmw_torn() {
    sweep_torn("raid6", "rmw", None, "online", "1");
}

/// s14e leftover 2: OSS 1 failed under the cut write (its `FailedColumnCopy` cut), another
/// OSS failed after the crash and rebuilt. That OSS's record of what changed while it was
/// failed does not hold the cut write, so its rebuild decoded the cut write's stripe
/// through parity nothing checks, and its rebuilt elements made the stripe's parity agree
/// with that decode: OSS 1's column then read 3,000 wrong bytes with exit 0 (OSS 3, a
/// parity column there; OSS 0, a data column).
#[test]
fn rebuild_of_an_oss_failed_after_the_crash_raid6_rmw() {
    for late in [0, 3] {
        sweep_late("raid6", "rmw", None, "rebuild", "", Some(late));
    }
}

/// The scene of the two tests below: OSS 1 failed on record, an acknowledged degraded write,
/// a torn last journal record (an append a kill cut short: the open cuts it), and OSS 3's
/// directory moved away (unmounted, never failed). Returns the scratch dir (store at `s`)
/// and the file's bytes as acknowledged.
fn tail_cut_with_oss_3_unmounted(init_args: &[&str]) -> (tempfile::TempDir, Vec<u8>) {
    let tmp = fast_tempdir("s15-tail-cut-unmounted");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store_unit(d, 4096, init_args);
    let mut want = bytes(5, 60_000);
    ok(&["store", "put", d, "f"], &want);
    ok(&["store", "fail", d, "--oss", "1"], b"");
    ok(
        &["store", "write", d, "f", "--offset", "100"],
        &[0xab; 1000],
    );
    put_over(&mut want, 100, &[0xab; 1000]);
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("journal"))
        .unwrap();
    std::io::Write::write_all(&mut journal, &[0x10, 0, 0, 0, 0]).unwrap();
    drop(journal);
    std::fs::rename(dir.join("oss-3"), dir.join("oss-3.away")).unwrap();
    (tmp, want)
}

/// With OSS 3 back: nothing of it on the LOST list, and every byte reads as written or the
/// read is refused naming bytes lost on record.
fn nothing_of_oss_3_lost_and_every_byte_right_or_named(d: &str, want: &[u8]) {
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    for line in status.lines().filter(|l| l.starts_with("LOST")) {
        assert!(!line.contains("OSS 3"), "OSS 3 was never failed: {line}");
    }
    let got = exaraid(&["store", "get", d, "f"], b"");
    if got.status.success() {
        assert_eq!(got.stdout, want);
    } else {
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(err.contains("lost"), "{err}");
    }
}

/// Merge review s15m M15-1: after a journal tail cut, a `rebuild` of failed OSS 1 while OSS
/// 3 is merely unmounted (never failed on record, every byte intact on its disk) named OSS
/// 3's written bytes LOST in every written stripe, and they stayed LOST once it was mounted
/// back. On raid6 the two OSSs down use up the tolerance: the rebuild is refused instead,
/// nothing changed, saying to mount it back (or `fail` a disk that is gone); with it back
/// the rebuild runs and names nothing of OSS 3 lost.
#[test]
fn rebuild_after_a_tail_cut_waits_for_an_unmounted_oss_instead_of_naming_its_bytes_lost() {
    let (tmp, want) =
        tail_cut_with_oss_3_unmounted(&["--oss", "5", "--code", "raid6", "--write-path", "rmw"]);
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let err = fails(&["store", "rebuild", d, "--oss", "1"], b"");
    assert!(
        err.contains("refused, nothing changed")
            && err.contains("[3]")
            && err.contains("mount their directories back"),
        "{err}"
    );
    std::fs::rename(dir.join("oss-3.away"), dir.join("oss-3")).unwrap();
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("LOST"),
        "the refusal recorded losses:\n{status}"
    );
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    nothing_of_oss_3_lost_and_every_byte_right_or_named(d, &want);
}

/// Review s15l L15-2: the refusal above only where the OSSs down use up the tolerance. On rs
/// 3+3 with OSS 1 failed and OSS 3 unmounted every decode keeps parity to check it: the
/// rebuild runs, and nothing of OSS 3 is named lost.
#[test]
fn rebuild_after_a_tail_cut_with_tolerance_left_runs_beside_an_unmounted_oss() {
    let (tmp, want) =
        tail_cut_with_oss_3_unmounted(&["--oss", "6", "--code", "rs", "--k", "3", "--m", "3"]);
    let dir = tmp.path().join("s");
    let d = s(&dir);
    ok(&["store", "rebuild", d, "--oss", "1"], b"");
    std::fs::rename(dir.join("oss-3.away"), dir.join("oss-3")).unwrap();
    nothing_of_oss_3_lost_and_every_byte_right_or_named(d, &want);
}

/// Review s15l L15-1: a rerun of a `rebuild` killed after its `RebuildBegin` skipped the
/// check that names LOST what only a decode nothing checks could give after a journal tail
/// cut; that is right only if the same OSSs are down as at the first run. Here the first
/// run (raid6, only OSS 1 down) had parity left to check every decode and named nothing;
/// then OSS `late` failed, and the rerun decoded the cut write's stripe (new data, old
/// parity) with nothing left to check it.
#[test]
fn rebuild_rerun_after_a_kill_with_another_oss_failed_between_raid6_rmw() {
    for late in [0, 3] {
        sweep_rebuild_rerun("raid6", "rebuild-begun:1", Some(late));
    }
}

/// The same, the first run killed after the first element it wrote onto OSS 1.
#[test]
fn rebuild_rerun_after_a_kill_part_way_with_another_oss_failed_between_raid6_rmw() {
    sweep_rebuild_rerun("raid6", "rebuild-element:1", Some(3));
}

/// A rerun with the same OSSs down as the first run: what the first named stays named.
#[test]
fn rebuild_rerun_after_a_kill_same_osses_down() {
    sweep_rebuild_rerun("raid5", "rebuild-begun:1", None);
    sweep_rebuild_rerun("raid6", "rebuild-element:1", None);
}
