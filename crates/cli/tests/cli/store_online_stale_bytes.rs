//! `exaraid store online` must take back only the bytes of the loss it finds on record now:
//! never bytes an earlier, interrupted `online` read back (review s8s S8-1), nor whatever
//! another window wrote since at a cache address a loss kept (review s8s S8-3). Both gave
//! the wrong bytes with exit 0 before the fixes in crates/store/src/state.rs (`unrestore` on
//! `Rewritten`/`Remove`/`Replace`; `Online`/`Rebuilt` forgetting the cache addresses of that
//! OSS's losses left on record).
//!
//! Every test reads every byte of both files at the end: bytes outside a loss on record must
//! be the acknowledged ones, and a range that does not read must be on record as lost.

use crate::common;
use common::*;

use std::path::Path;

const FILE_BYTES: usize = 65536;
/// The window's block: file bytes `AT..AT + BLOCK` (one element, cached on one OSS).
const AT: usize = 8192;
const BLOCK: usize = 4096;

fn fill(byte: u8) -> Vec<u8> {
    vec![byte; BLOCK]
}

fn start_window(d: &str, file: &str) -> String {
    String::from_utf8(ok(&["store", "delayed", "start", d, file], b""))
        .unwrap()
        .trim()
        .to_string()
}

/// The OSS whose cache zone holds `block` (the window's bytes of one element), and that
/// cache object file.
fn oss_caching(dir: &Path, block: &[u8]) -> (usize, std::path::PathBuf) {
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
                found.push((oss, path));
            }
        }
    }
    assert_eq!(
        found.len(),
        1,
        "one cache copy of the window's block: {found:?}"
    );
    found.pop().unwrap()
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

/// Every 4 KiB block of `file` reads its acknowledged bytes `model`, or fails as lost and
/// lies in a lost range on record. Returns the blocks that did not read.
fn check_file(d: &str, file: &str, model: &[u8]) -> Vec<usize> {
    let on_record = lost(d);
    let mut refused = Vec::new();
    for at in (0..model.len()).step_by(BLOCK) {
        let len = BLOCK.min(model.len() - at);
        let (a, l) = (at.to_string(), len.to_string());
        let out = exaraid(
            &["store", "read", d, file, "--offset", &a, "--length", &l],
            b"",
        );
        if out.status.success() {
            let wrong = (0..len).filter(|&i| out.stdout[i] != model[at + i]).count();
            assert_eq!(
                wrong,
                0,
                "{file} bytes {at}..{}: {wrong} bytes not the acknowledged ones (first {:?})",
                at + len,
                &out.stdout[..8.min(len)]
            );
            continue;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            on_record
                .iter()
                .any(|(f, o, n)| f == file && *o < at + len && at < o + n),
            "{file} bytes {at}..{} do not read ({err}) but no loss there is on record: {on_record:?}",
            at + len
        );
        refused.push(at);
    }
    refused
}

struct Scene {
    token: String,
    f1: Vec<u8>,
    f2: Vec<u8>,
    /// The OSS whose cache holds the window's block of f1.
    x: usize,
    cache_file: std::path::PathBuf,
}

/// raid6 over 6 OSSs, delayed, 4 KiB units: f1 and f2 put; a window on f1 writes block A at
/// `AT` (cached on OSS `x` only); `x` failed: the block is lost on record with its cache
/// address.
fn scene(dir: &Path) -> Scene {
    let d = s(dir);
    init_store(
        d,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let (mut f1, f2) = (bytes(11, FILE_BYTES), bytes(12, FILE_BYTES));
    ok(&["store", "put", d, "f1"], &f1);
    ok(&["store", "put", d, "f2"], &f2);
    let token = start_window(d, "f1");
    ok(
        &["store", "write", d, "f1", "--offset", "8192"],
        &fill(b'A'),
    );
    f1[AT..AT + BLOCK].copy_from_slice(&fill(b'A'));
    let (x, cache_file) = oss_caching(dir, &fill(b'A'));
    ok(&["store", "fail", d, "--oss", &x.to_string()], b"");
    assert_eq!(
        lost(d),
        [("f1".to_string(), AT, BLOCK)],
        "the window's block"
    );
    Scene {
        token,
        f1,
        f2,
        x,
        cache_file,
    }
}

/// Review s8s S8-1: `online` killed at `kill_at` (after its `Restore` record), then instead
/// of a rerun (`rebuild` first when `rebuild_instead`) the lost block is written again (B,
/// then C in a second window), its OSS fails again and comes back with `online`: f1 must
/// read C there (the OSS's cache holds it), never the first window's A.
fn interrupted_online_never_writes_back_stale_bytes(kill_at: &str, rebuild_instead: bool) {
    let tmp = fast_tempdir("s9a-stale");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let mut sc = scene(&dir);
    let x = sc.x.to_string();
    // A stripe for `online` to rewrite: f2 changed while x is failed.
    let z = bytes(13, 5000);
    ok(&["store", "write", d, "f2", "--offset", "0"], &z);
    sc.f2[..z.len()].copy_from_slice(&z);
    let online = ["store", "online", d, "--oss", x.as_str()];
    assert!(
        killed_at(&online, b"", kill_at),
        "online finished before {kill_at}"
    );
    if rebuild_instead {
        ok(&["store", "rebuild", d, "--oss", &x], b"");
    }
    if rebuild_instead {
        // Session 21 (s21e): the rebuild finishes the killed online's `Restore` (its pieces
        // read verified from x's old directory) after `Rebuilt`, as a rerun of `online`
        // would: the block is back, and END gives the window its parity.
        ok(&["store", "delayed", "end", d, &sc.token], b"");
        assert_eq!(lost(d), [], "{kill_at}: the rebuild took the block back");
        assert_eq!(
            check_file(d, "f1", &sc.f1),
            [] as [usize; 0],
            "{kill_at}: A back"
        );
    } else {
        // Ending the window names the loss (the block is not back): refused.
        fails(&["store", "delayed", "end", d, &sc.token], b"");
    }
    ok(
        &["store", "write", d, "f1", "--offset", "8192"],
        &fill(b'B'),
    );
    sc.f1[AT..AT + BLOCK].copy_from_slice(&fill(b'B'));
    assert_eq!(lost(d), [], "{kill_at}: the write cleared the loss");
    let t2 = start_window(d, "f1");
    ok(
        &["store", "write", d, "f1", "--offset", "8192"],
        &fill(b'C'),
    );
    sc.f1[AT..AT + BLOCK].copy_from_slice(&fill(b'C'));
    // C must sit on x for its failure to lose it again (the scene this test is about).
    assert_eq!(
        oss_caching(&dir, &fill(b'C')).0,
        sc.x,
        "{kill_at}: C cached on x"
    );
    ok(&["store", "fail", d, "--oss", &x], b"");
    assert_eq!(
        lost(d),
        [("f1".to_string(), AT, BLOCK)],
        "{kill_at}: C lost"
    );
    ok(&online, b"");
    let refused = check_file(d, "f1", &sc.f1);
    // x came back with its cache whole: C is taken back, nothing else is lost.
    assert_eq!(refused, [] as [usize; 0], "{kill_at}: f1");
    assert_eq!(
        check_file(d, "f2", &sc.f2),
        [] as [usize; 0],
        "{kill_at}: f2"
    );
    ok(&["store", "delayed", "end", d, &t2], b"");
    assert!(
        ok(&["store", "get", d, "f1"], b"") == sc.f1,
        "{kill_at}: f1 after END"
    );
    ok(&["store", "scrub", d], b"");
}

#[test]
fn online_killed_after_its_restore_record_then_a_rebuild_never_writes_back_stale_bytes() {
    interrupted_online_never_writes_back_stale_bytes("online-stripe:1", true);
}

#[test]
fn online_killed_after_its_online_record_never_writes_back_stale_bytes_later() {
    interrupted_online_never_writes_back_stale_bytes("online-back:1", false);
}

/// Review s8s S8-3: the OSS comes back with the lost block's cache chunk damaged, so
/// `online` cannot take it back (the loss stays on record); then a window of f2 gets that
/// cache chunk, the OSS fails and comes back again: f1's block must stay lost (or read A),
/// never read f2's bytes B.
#[test]
fn a_loss_online_could_not_take_back_never_takes_back_another_files_bytes() {
    let tmp = fast_tempdir("s9a-reused");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let mut sc = scene(&dir);
    let x = sc.x.to_string();
    // A bad sector in the block's cache chunk: its checksum fails.
    let mut cache = std::fs::read(&sc.cache_file).unwrap();
    let at = cache
        .windows(BLOCK)
        .position(|w| w == fill(b'A').as_slice())
        .unwrap();
    cache[at + 100..at + 108].copy_from_slice(b"damaged!");
    std::fs::write(&sc.cache_file, cache).unwrap();
    // It says so and exits 2 (s27d; it exited 0 saying nothing): nothing takes it back now.
    let online = exaraid(&["store", "online", d, "--oss", &x], b"");
    let said = String::from_utf8_lossy(&online.stderr);
    assert_eq!(online.status.code(), Some(2), "{said}");
    assert!(
        said.contains("did not give back") && said.contains("'f1' bytes 8192..12288"),
        "{said}"
    );
    assert_eq!(lost(d), [("f1".to_string(), AT, BLOCK)], "not taken back");
    fails(&["store", "delayed", "end", d, &sc.token], b"");
    let t2 = start_window(d, "f2");
    ok(
        &["store", "write", d, "f2", "--offset", "8192"],
        &fill(b'B'),
    );
    sc.f2[AT..AT + BLOCK].copy_from_slice(&fill(b'B'));
    // The scene: B reuses the chunk on x that f1's loss had (checked by its place).
    let (b_oss, b_file) = oss_caching(&dir, &fill(b'B'));
    assert_eq!((b_oss, &b_file), (sc.x, &sc.cache_file), "B at A's chunk");
    assert_eq!(
        std::fs::read(&b_file)
            .unwrap()
            .windows(BLOCK)
            .position(|w| w == fill(b'B').as_slice()),
        Some(at),
        "B at A's cache address"
    );
    ok(&["store", "fail", d, "--oss", &x], b"");
    ok(&["store", "online", d, "--oss", &x], b"");
    // f1's block: A is gone (damaged), so it must refuse, on record.
    assert_eq!(check_file(d, "f1", &sc.f1), [AT], "f1");
    assert_eq!(check_file(d, "f2", &sc.f2), [] as [usize; 0], "f2");
    ok(&["store", "delayed", "end", d, &t2], b"");
    assert_eq!(
        check_file(d, "f2", &sc.f2),
        [] as [usize; 0],
        "f2 after END"
    );
}
