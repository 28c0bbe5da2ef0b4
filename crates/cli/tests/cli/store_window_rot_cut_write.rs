//! Review s9s S9-1 and S9-3 from the command line: a delayed window's cached block with bit
//! rot, and a small window write into that block that is refused (it must read the block's
//! other bytes, and they fail their checksum) or killed before it writes anything. The next
//! open must not take that write for one cut by a crash and move the rotten block home under
//! a fresh checksum: the rotten bytes are lost on record (reads fail naming them), never read
//! back, exit 0. And a refused write past the end of the file does not grow it.
//! (`scripts/repro/repro-window-rot-failed-write.py 1000 1500`.)

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

const UNIT: usize = 16384;
/// Where the window write lands in the file: one whole element, cached on one OSS.
const WINDOW_AT: usize = UNIT;
/// The byte of the cache file whose bit flips: block 0 of the window element's slot.
const ROT_AT: usize = 1000;
/// Where the small write lands inside the rotten block (element offset).
const SMALL_AT: usize = 1500;

/// A delayed raid6 store over 6 OSSs with file `f` (`len` bytes) and an open window on it
/// holding `window` at `WINDOW_AT` (one element, cached on one OSS). Returns what `f` holds.
fn setup(d: &str, len: usize, window: &[u8]) -> Vec<u8> {
    init_store_unit(
        d,
        UNIT as u64,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let mut f = bytes(1, len);
    ok(&["store", "put", d, "f"], &f);
    ok(&["store", "delayed", "start", d, "f"], b"");
    let at = WINDOW_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], window);
    let end = WINDOW_AT + window.len();
    if f.len() < end {
        f.resize(end, 0);
    }
    f[WINDOW_AT..end].copy_from_slice(window);
    f
}

/// The one cache zone file holding the window's bytes.
fn window_cache_file(d: &str) -> PathBuf {
    let mut caches: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("oss-"))
        .flat_map(|e| {
            std::fs::read_dir(e.path().join("objects"))
                .unwrap()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cache"))
        .filter(|p| std::fs::metadata(p).unwrap().len() > 0)
        .collect();
    assert_eq!(caches.len(), 1, "one OSS caches the window: {caches:?}");
    caches.pop().unwrap()
}

/// Bit rot: one bit of the window block flips on disk (its checksum stays).
fn flip_bit(cache: &Path) {
    let mut data = std::fs::read(cache).unwrap();
    data[ROT_AT] ^= 4;
    std::fs::write(cache, &data).unwrap();
}

/// `get` must give every byte right or fail naming a loss: exit 0 with any other byte is
/// the bug. `inside`: a range of a write never acknowledged, where its bytes `new` or the
/// old ones are both right. Returns whether the read succeeded.
fn read_is_never_wrong(d: &str, want: &[u8], inside: Option<(usize, &[u8])>) -> bool {
    let out = exaraid(&["store", "get", d, "f"], b"");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("'f' bytes"),
            "a failed read names what it cannot give: {err}"
        );
        return false;
    }
    let got = out.stdout;
    assert_eq!(got.len(), want.len(), "the file's size");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let new = inside.and_then(|(at, new)| i.checked_sub(at).and_then(|j| new.get(j)));
        assert!(
            g == w || new == Some(&g),
            "byte {i} reads {g} (exit 0), not the acknowledged {w}{}",
            new.map(|n| format!(" nor the cut write's {n}"))
                .unwrap_or_default()
        );
    }
    true
}

fn lost_ranges(d: &str) -> Vec<(u64, u64)> {
    let st: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    st["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["offset_bytes"].as_u64().unwrap(),
                l["len_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The rot's byte in the file is lost on record (named by status), and a write of the lost
/// range makes the file whole again.
fn rot_is_lost_on_record(d: &str, f: &[u8]) {
    let rot_in_file = (WINDOW_AT + ROT_AT) as u64;
    let lost = lost_ranges(d);
    assert!(
        lost.iter()
            .any(|&(at, n)| at <= rot_in_file && rot_in_file < at + n),
        "status names the rotten byte lost: {lost:?}"
    );
    for (at, n) in lost {
        let (at, n) = (at as usize, n as usize);
        let off = at.to_string();
        ok(
            &["store", "write", d, "f", "--offset", &off],
            &f[at..at + n],
        );
    }
    assert_eq!(ok(&["store", "get", d, "f"], b""), f, "rewritten whole");
}

/// S9-1: the refused write left its input in the journal, the next open recovered it as a
/// cut write, kept the rotten block as on disk and sealed it: exit 0, one byte wrong.
#[test]
fn a_refused_window_write_into_a_rotten_block_does_not_bless_the_rot() {
    let tmp = fast_tempdir("s11a-refused");
    let d = tmp.path().join("s");
    let d = s(&d);
    let f = setup(d, 100_000, &bytes(2, UNIT));
    flip_bit(&window_cache_file(d));
    assert!(!read_is_never_wrong(d, &f, None), "the rot reads as lost");
    let at = (WINDOW_AT + SMALL_AT).to_string();
    let err = fails(&["store", "write", d, "f", "--offset", &at], b"zz");
    assert!(
        !err.contains("part of it went through"),
        "nothing of it was written: {err}"
    );
    // The next open recovers; the refused write was never made.
    assert!(
        !read_is_never_wrong(d, &f, None),
        "the rot still reads as lost"
    );
    rot_is_lost_on_record(d, &f);
}

/// S9-1, killed: the same small write killed -9 after each of its journal records (the first
/// one: its input, before it wrote anything). No kill may bless the rot.
#[test]
fn a_window_write_killed_before_it_writes_into_a_rotten_block_does_not_bless_the_rot() {
    let tmp = fast_tempdir("s11a-killed");
    let d = tmp.path().join("s");
    let pristine = tmp.path().join("pristine");
    let d = s(&d);
    let f = setup(d, 100_000, &bytes(2, UNIT));
    flip_bit(&window_cache_file(d));
    copy_dir(Path::new(d), &pristine);
    let at = (WINDOW_AT + SMALL_AT).to_string();
    let args = ["store", "write", d, "f", "--offset", &at];
    let mut kills = 0;
    for n in 1..=8 {
        std::fs::remove_dir_all(d).unwrap();
        copy_dir(&pristine, Path::new(d));
        let point = format!("{}:{n}", exaraid_store::torture::JOURNAL_RECORD);
        if !killed_at_or_refused(&args, b"zz", &point) {
            break;
        }
        kills += 1;
        let new = (WINDOW_AT + SMALL_AT, &b"zz"[..]);
        assert!(
            !read_is_never_wrong(d, &f, Some(new)),
            "kill {point}: the rot reads as lost"
        );
        rot_is_lost_on_record(d, &f);
    }
    assert!(kills >= 1, "the write was killed after its input record");
}

/// The kill -9 guarantee beside the fix: a window write into a healthy cached block, killed
/// inside its block write (new payload on disk, old checksum), loses no acknowledged byte of
/// that block: recovery keeps the landed block (its payload matches the crc the write
/// journaled), where marking every torn window block lost would lose the bytes beside it.
#[test]
fn a_window_write_killed_inside_its_block_write_keeps_the_bytes_beside_it() {
    let tmp = fast_tempdir("s11a-torn");
    let d = tmp.path().join("s");
    let d = s(&d);
    let f = setup(d, 100_000, &bytes(2, UNIT));
    let at = (WINDOW_AT + SMALL_AT).to_string();
    let point = format!("{}:1", exaraid_store::torture::WRITE_TORN_BLOCK);
    assert!(
        killed_in_plan_order(&["store", "write", d, "f", "--offset", &at], b"zz", &point),
        "killed inside the write's block write"
    );
    let new = (WINDOW_AT + SMALL_AT, &b"zz"[..]);
    assert!(
        read_is_never_wrong(d, &f, Some(new)),
        "every acknowledged byte reads"
    );
    assert!(lost_ranges(d).is_empty(), "nothing lost");
}

/// The same kill, and then the block's write torn at a sector boundary (what a power cut may
/// leave of its one write: its first sectors new, the rest old): every sector of the block is
/// the block before or after the write, so its acknowledged bytes beside the write are
/// intact and kept, not recorded lost (the write journals its edge blocks' sector crcs).
#[test]
fn a_window_write_torn_at_a_sector_boundary_keeps_the_bytes_beside_it() {
    let tmp = fast_tempdir("s11a-sectors");
    let d = tmp.path().join("s");
    let d = s(&d);
    let f = setup(d, 100_000, &bytes(2, UNIT));
    let cache = window_cache_file(d);
    let before = std::fs::read(&cache).unwrap();
    let at = (WINDOW_AT + SMALL_AT).to_string();
    // Across the block's middle: torn there, it is neither the block before nor after.
    let w = bytes(5, 1500);
    assert!(SMALL_AT < 2048 && 2048 < SMALL_AT + w.len() && SMALL_AT + w.len() < 4096);
    let point = format!("{}:1", exaraid_store::torture::WRITE_TORN_BLOCK);
    assert!(
        killed_in_plan_order(&["store", "write", d, "f", "--offset", &at], &w, &point),
        "killed inside the write's block write"
    );
    let mut torn = std::fs::read(&cache).unwrap();
    assert_ne!(torn[..4096], before[..4096], "the new block landed");
    // Sectors 0..4 new, 4..8 old (the write's bytes from 2048 on old).
    torn[2048..4096].copy_from_slice(&before[2048..4096]);
    std::fs::write(&cache, &torn).unwrap();
    let new = (WINDOW_AT + SMALL_AT, &w[..]);
    assert!(
        read_is_never_wrong(d, &f, Some(new)),
        "every acknowledged byte reads"
    );
    assert!(lost_ranges(d).is_empty(), "nothing lost");
}

/// S9-3: a write refused with nothing written, past the end of the file, left the file grown
/// with zeros at the next open (exit 0, no message).
#[test]
fn a_refused_window_write_past_the_end_does_not_grow_the_file() {
    let tmp = fast_tempdir("s11a-size");
    let d = tmp.path().join("s");
    let d = s(&d);
    let len = WINDOW_AT + UNIT + 3000;
    let f = setup(d, len, &bytes(2, UNIT));
    flip_bit(&window_cache_file(d));
    let at = (WINDOW_AT + SMALL_AT).to_string();
    let past_end = bytes(3, len + 5000 - (WINDOW_AT + SMALL_AT));
    let err = fails(&["store", "write", d, "f", "--offset", &at], &past_end);
    assert!(
        !err.contains("part of it went through"),
        "nothing of it was written: {err}"
    );
    let ls: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "ls", d, "--json"], b"")).unwrap();
    assert_eq!(ls[0]["name"], "f");
    assert_eq!(
        ls[0]["size_bytes"],
        f.len(),
        "the refused write grew the file"
    );
    assert!(!read_is_never_wrong(d, &f, None), "the rot reads as lost");
    rot_is_lost_on_record(d, &f);
}

fn copy_dir(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `killed_at` with the plan's steps one at a time in plan order. The two torn-block tests
/// above name the block the kill tore (the window block: "the new block landed", "nothing
/// lost"); their write has one block write today (a window write: no parity), so thread
/// order tore the same block, but a second block write in the plan would make the first
/// one thread order reaches vary with the machine's load (the CI failure of
/// `store_recovery_missing_mount.rs`, session 32).
fn killed_in_plan_order(args: &[&str], stdin: &[u8], kill_at: &str) -> bool {
    killed_at_with(
        args,
        stdin,
        kill_at,
        &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
    )
}

/// `killed_at`, except that the command may also end refused (exit 1: it passed the point
/// fewer than n times): `false` then.
fn killed_at_or_refused(args: &[&str], stdin: &[u8], kill_at: &str) -> bool {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .env(exaraid_store::torture::KILL_AT_ENV, kill_at)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let _ = child.stdin.take().unwrap().write_all(stdin);
            child.wait_with_output()
        })
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    out.status.signal() == Some(9)
}
