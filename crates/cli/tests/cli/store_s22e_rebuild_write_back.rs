//! Session 22 (s22e): a rebuild writes back the pieces a killed `online` read back from the
//! failed OSS's cache zone (`Restore`, written again after `Rebuilt`, s21e). Those pieces
//! are the newest bytes of their range only until something changes that range: a client
//! write (its `Rewritten`), a `put` replacing the file, an `rm`. Specification: whatever
//! came between the killed `online` and the rebuild, the rebuild never writes a piece over
//! newer bytes (WRONG BYTES: the old window's bytes read back with success); what no later
//! change touched is written back (the bytes read, nothing lost).
//!
//! Scene (as `store_online_stale_bytes.rs`): raid6 over 6 OSSs, delayed; a window on f1
//! writes block A at `AT` (its only copy in OSS x's cache zone); x is failed (A lost with its
//! cache address); f2 changes while x is failed; `online x` is killed after its `Restore`
//! record (`online-stripe:1`: x still failed) or after its `Online` record (`online-back:1`:
//! x back, the pieces not yet written again).

use crate::common;
use common::*;

use std::path::Path;

const FILE_BYTES: usize = 65536;
/// The window's block: file bytes `AT..AT + BLOCK` (one element, cached on one OSS).
const AT: usize = 8192;
const BLOCK: usize = 4096;
/// A write covering only part of the block (and so of the piece read back for it).
const HALF: usize = BLOCK / 2;

fn fill(byte: u8, len: usize) -> Vec<u8> {
    vec![byte; len]
}

fn start_window(d: &str, file: &str) -> String {
    String::from_utf8(ok(&["store", "delayed", "start", d, file], b""))
        .unwrap()
        .trim()
        .to_string()
}

/// The OSS whose cache zone holds `block`: exactly one copy.
fn oss_caching(dir: &Path, block: &[u8]) -> usize {
    let mut found = Vec::new();
    for oss in 0..6 {
        let objects = dir.join(format!("oss-{oss}")).join("objects");
        for entry in std::fs::read_dir(&objects).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".cache") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(block.len()).any(|w| w == block) {
                found.push(oss);
            }
        }
    }
    assert_eq!(found.len(), 1, "one cache copy of the block: {found:?}");
    found[0]
}

/// The lost ranges on record: `(file name, offset, len)`.
fn lost(d: &str) -> Vec<(String, usize, usize)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["offset_bytes"].as_u64().unwrap() as usize,
                l["len_bytes"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// `file` reads exactly `model`, one 4 KiB block at a time (a wrong block is named).
fn reads_exactly(d: &str, file: &str, model: &[u8], what: &str) {
    for at in (0..model.len()).step_by(BLOCK) {
        let len = BLOCK.min(model.len() - at);
        let (a, l) = (at.to_string(), len.to_string());
        let out = exaraid(
            &["store", "read", d, file, "--offset", &a, "--length", &l],
            b"",
        );
        assert!(
            out.status.success(),
            "{what}: {file} bytes {at}..{} do not read: {}",
            at + len,
            String::from_utf8_lossy(&out.stderr)
        );
        let wrong = (0..len).filter(|&i| out.stdout[i] != model[at + i]).count();
        assert_eq!(
            wrong,
            0,
            "{what}: {file} bytes {at}..{}: {wrong} bytes not the acknowledged ones (first {:?}, want {:?})",
            at + len,
            &out.stdout[..8.min(len)],
            &model[at..at + 8.min(len)]
        );
    }
}

struct Scene {
    token: String,
    f1: Vec<u8>,
    f2: Vec<u8>,
    x: usize,
}

/// Where `online` of x is killed.
#[derive(Clone, Copy, Debug)]
enum Kill {
    /// After its `Restore` record, rewriting a changed stripe: x still failed.
    Stripe,
    /// After its `Online` record: x back, the pieces not yet written again.
    Back,
}

/// The scene up to the killed `online` (see the file's comment).
fn scene(dir: &Path, kill: Kill) -> Scene {
    let d = s(dir);
    init_store(
        d,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let (mut f1, mut f2) = (bytes(11, FILE_BYTES), bytes(12, FILE_BYTES));
    ok(&["store", "put", d, "f1"], &f1);
    ok(&["store", "put", d, "f2"], &f2);
    let token = start_window(d, "f1");
    let a = fill(b'A', BLOCK);
    ok(
        &["store", "write", d, "f1", "--offset", &AT.to_string()],
        &a,
    );
    f1[AT..AT + BLOCK].copy_from_slice(&a);
    let x = oss_caching(dir, &a);
    ok(&["store", "fail", d, "--oss", &x.to_string()], b"");
    assert_eq!(lost(d), [("f1".to_string(), AT, BLOCK)], "A lost with x");
    // A stripe for `online` to rewrite (its `online-stripe` kill point): f2 changed.
    let z = bytes(13, 5000);
    ok(&["store", "write", d, "f2", "--offset", "0"], &z);
    f2[..z.len()].copy_from_slice(&z);
    let point = match kill {
        Kill::Stripe => "online-stripe:1",
        Kill::Back => "online-back:1",
    };
    assert!(
        killed_at(&["store", "online", d, "--oss", &x.to_string()], b"", point),
        "online finished before {point}"
    );
    Scene { token, f1, f2, x }
}

/// What comes between the killed `online` and the rebuild.
#[derive(Clone, Copy, Debug)]
enum Between {
    /// END of the window (refused, naming A: the window is closed), then a write outside
    /// any window (rmw) of B over `len` bytes from `AT`.
    RmwWrite { len: usize },
    /// B over `len` bytes from `AT` inside the still open window (x back: its cache takes
    /// it), then END.
    WindowWrite { len: usize },
    /// END (refused), then `put` of new content for f1 (`Replace`).
    PutReplaces,
    /// END (refused), `rm f1`, then `put` of f1 again (a new file id).
    RmThenPut,
    /// END (refused), then a new window on f1 writing C over `len` bytes from `AT`, still
    /// open while the rebuild runs (ended after it).
    NewWindowOver { len: usize },
    /// END (refused), then a new window on f1 writing elsewhere, open while the rebuild
    /// writes the piece back (into that window), ended after it.
    NewWindowElsewhere,
}

/// How the OSS is rebuilt after it.
#[derive(Clone, Copy, Debug)]
enum Rebuild {
    InPlace,
    To,
    /// (`Kill::Back` only: x is not failed) `rebuild` of it as it is, which only writes
    /// back the pieces an `online` or rebuild cut after its record left.
    WriteBackOnly,
}

/// The scene, `between`, then `rebuild`: every byte of f1 and f2 reads the acknowledged
/// bytes (B or C over A where written, A where nothing wrote), nothing lost, scrub clean.
fn never_over_newer_bytes(kill: Kill, between: Between, rebuild: Rebuild) {
    let what = format!("{kill:?}, {between:?}, {rebuild:?}");
    let tmp = fast_tempdir("s22e-write-back");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let mut sc = scene(&dir, kill);
    let x = sc.x.to_string();
    let at = AT.to_string();
    let mut open_window = None;
    let end_refused = |sc: &Scene| {
        let err = fails(&["store", "delayed", "end", d, &sc.token], b"");
        assert!(err.contains("lost"), "{what}: END names the loss: {err}");
    };
    match between {
        Between::RmwWrite { len } => {
            end_refused(&sc);
            let b = fill(b'B', len);
            ok(&["store", "write", d, "f1", "--offset", &at], &b);
            sc.f1[AT..AT + len].copy_from_slice(&b);
        }
        Between::WindowWrite { len } => {
            assert!(matches!(kill, Kill::Back), "x takes window bytes only back");
            let b = fill(b'B', len);
            ok(&["store", "write", d, "f1", "--offset", &at], &b);
            sc.f1[AT..AT + len].copy_from_slice(&b);
            if len == BLOCK {
                ok(&["store", "delayed", "end", d, &sc.token], b"");
            } else {
                end_refused(&sc);
            }
        }
        Between::PutReplaces => {
            end_refused(&sc);
            sc.f1 = bytes(21, FILE_BYTES);
            ok(&["store", "put", d, "f1"], &sc.f1);
        }
        Between::RmThenPut => {
            end_refused(&sc);
            ok(&["store", "rm", d, "f1"], b"");
            sc.f1 = bytes(22, FILE_BYTES - 1000);
            ok(&["store", "put", d, "f1"], &sc.f1);
        }
        Between::NewWindowOver { len } => {
            assert!(matches!(kill, Kill::Back), "x takes window bytes only back");
            end_refused(&sc);
            open_window = Some(start_window(d, "f1"));
            let c = fill(b'C', len);
            ok(&["store", "write", d, "f1", "--offset", &at], &c);
            sc.f1[AT..AT + len].copy_from_slice(&c);
        }
        Between::NewWindowElsewhere => {
            end_refused(&sc);
            open_window = Some(start_window(d, "f1"));
            match kill {
                Kill::Stripe => {
                    // One block whose data OSS takes window bytes (x is failed: a window
                    // write there is refused whole, nothing written).
                    let c = fill(b'C', BLOCK);
                    let at = (AT + BLOCK..FILE_BYTES)
                        .step_by(BLOCK)
                        .find(|at| {
                            let at = at.to_string();
                            exaraid(&["store", "write", d, "f1", "--offset", &at], &c)
                                .status
                                .success()
                        })
                        .expect("some block of f1 is not on x");
                    sc.f1[at..at + BLOCK].copy_from_slice(&c);
                }
                Kill::Back => {
                    // Every block after A's (x is back: some are cached there), so that
                    // the `fail` before the rebuild loses some of them with their address.
                    let c = bytes(31, FILE_BYTES - AT - BLOCK);
                    let from = (AT + BLOCK).to_string();
                    ok(&["store", "write", d, "f1", "--offset", &from], &c);
                    sc.f1[AT + BLOCK..].copy_from_slice(&c);
                }
            }
        }
    }
    match rebuild {
        Rebuild::InPlace | Rebuild::To => {
            if matches!(kill, Kill::Back) {
                ok(&["store", "fail", d, "--oss", &x], b"");
                if matches!(between, Between::NewWindowElsewhere) {
                    assert!(
                        lost(d).iter().any(|(_, at, _)| *at > AT),
                        "{what}: the scene: the new window's bytes on x are lost with it"
                    );
                }
            }
            let new_dir = tmp.path().join("new-oss");
            let mut args = vec!["store", "rebuild", d, "--oss", x.as_str()];
            if matches!(rebuild, Rebuild::To) {
                args.extend(["--to", s(&new_dir)]);
            }
            ok(&args, b"");
        }
        Rebuild::WriteBackOnly => {
            assert!(matches!(kill, Kill::Back), "x is failed: a real rebuild");
            let out = exaraid(&["store", "rebuild", d, "--oss", &x], b"");
            // With every piece dropped (a write over all of it, `rm`) nothing is owed: x is
            // refused as any healthy OSS, nothing changed.
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() || err.contains("healthy"),
                "{what}: {err}"
            );
        }
    }
    if let Some(token) = open_window {
        ok(&["store", "delayed", "end", d, &token], b"");
    }
    reads_exactly(d, "f1", &sc.f1, &what);
    reads_exactly(d, "f2", &sc.f2, &what);
    assert_eq!(lost(d), [], "{what}: nothing lost");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn a_write_outside_windows_after_an_online_killed_before_online_is_never_overwritten_by_the_rebuild(
) {
    for len in [BLOCK, HALF] {
        for rebuild in [Rebuild::InPlace, Rebuild::To] {
            never_over_newer_bytes(Kill::Stripe, Between::RmwWrite { len }, rebuild);
        }
    }
}

#[test]
fn a_write_outside_windows_after_an_online_killed_after_online_is_never_overwritten_by_the_rebuild()
{
    for len in [BLOCK, HALF] {
        for rebuild in [Rebuild::WriteBackOnly, Rebuild::To] {
            never_over_newer_bytes(Kill::Back, Between::RmwWrite { len }, rebuild);
        }
    }
}

#[test]
fn a_window_write_after_an_online_killed_after_online_is_never_overwritten_by_the_rebuild() {
    for len in [BLOCK, HALF] {
        for rebuild in [Rebuild::WriteBackOnly, Rebuild::InPlace, Rebuild::To] {
            never_over_newer_bytes(Kill::Back, Between::WindowWrite { len }, rebuild);
        }
        never_over_newer_bytes(
            Kill::Back,
            Between::NewWindowOver { len },
            Rebuild::WriteBackOnly,
        );
    }
}

#[test]
fn a_put_or_rm_after_a_killed_online_is_never_overwritten_by_the_rebuild() {
    for kill in [Kill::Stripe, Kill::Back] {
        for between in [Between::PutReplaces, Between::RmThenPut] {
            never_over_newer_bytes(kill, between, Rebuild::To);
        }
    }
    never_over_newer_bytes(Kill::Stripe, Between::PutReplaces, Rebuild::InPlace);
    never_over_newer_bytes(Kill::Back, Between::RmThenPut, Rebuild::WriteBackOnly);
}

#[test]
fn a_window_open_elsewhere_in_the_file_takes_the_pieces_the_rebuild_writes_back() {
    never_over_newer_bytes(Kill::Stripe, Between::NewWindowElsewhere, Rebuild::InPlace);
    never_over_newer_bytes(Kill::Back, Between::NewWindowElsewhere, Rebuild::To);
}
