//! s25c (docs/store.md "OPEN after session 24", reasoned by s24d, not shown):
//! `decide_rotten_cache_block` keeps a WCL cache block as on disk where it holds no
//! acknowledged byte. A cut write that extends the file puts its bytes in fresh file space
//! (past the end: their old bytes are none, read as zeros), and its cache blocks there hold
//! no acknowledged byte; one rotten bit in them after the crash could then read back with
//! success after recovery.
//!
//! Scene (raid6 4+2 and rs 4+3, 12 KiB unit, wcl): `put` of `PUT_BYTES`, then a write of
//! `WRITE_BYTES` at the file's end killed at its n-th block write in plan order (that block
//! torn: its new payload under its old checksum), then one bit flipped in the cut write's
//! bytes in another OSS's cache zone (found by content: splitmix64 bytes, a 32-byte needle
//! is unique), then `get`. Expected: every byte the put's (or zero past it) or the write's,
//! or a read that fails naming the bytes lost. A byte neither = WRONG BYTES.
//!
//! Result (s25c, on a40ace1): the path is reached and is right. A debug probe at the rule's
//! last line counted 14 of these images (both codes) whose rotten block holds no
//! acknowledged byte and was kept as on disk, rot included; every byte still reads the
//! put's, zero or the write's. Why: recovery rebuilds the planner without the plans the
//! crash cut (`Store::open`: replayed up to the first cut plan, or `forget_writes`), so
//! the cut write's cached bytes are not among those the settle moves home (`acked`, from
//! the planner's lookup); its range reads home (zeros in fresh space). The kept block's
//! bytes no one reads; only its running parity is rewritten from them.
//!
//! Why a child process: a crash is a SIGKILL at a named kill point (`EXARAID_KILL_AT`, read
//! once per process), so the write runs in a child (this same test binary, the helper test
//! below) and the parent reopens what the kill left.

mod common;
use common::scratch;

use std::path::{Path, PathBuf};
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const UNIT_BYTES: usize = 12288;
const PUT_BYTES: usize = 20_000;
const WRITE_AT: usize = PUT_BYTES;
const WRITE_BYTES: usize = 40_000;
/// The block writes of the write's cache plan cut here: where the rule under test was met
/// (a probe: kills 3 to 6); at 7 and later its cache stripe is whole on disk and every
/// byte read new there, at 1 its cache bytes were on no OSS yet.
const KILL_POINTS: std::ops::RangeInclusive<u32> = 2..=6;
/// Bytes of the write searched for in a cache zone (unique in splitmix64 bytes).
const NEEDLE_BYTES: usize = 32;
const CHILD_DIR_ENV: &str = "S25C_FRESH_SPACE_CHILD_DIR";

// Seeded pseudo-random bytes (splitmix64): regular patterns let a decode through mixed
// versions pass for one.
use common::splitmix_bytes as bytes;

fn old_bytes() -> Vec<u8> {
    bytes(11, PUT_BYTES)
}

fn new_bytes() -> Vec<u8> {
    bytes(2025, WRITE_BYTES)
}

/// Helper run as the child process of the tests below (does nothing otherwise): the write,
/// killed by the kill point the parent armed.
#[test]
fn child_process_helper_write_killed() {
    let Some(dir) = std::env::var_os(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.write("f", WRITE_AT as u64, &new_bytes()).unwrap();
    // Not killed: the parent's kill point lies past the write's block writes.
    std::process::exit(0);
}

/// The store with the put made, the write killed at block write `n` (torn). `false`: the
/// write ran to its end (no kill point `n` in it).
fn crash_image(dir: &Path, code: CodeSpec, n: u32) -> bool {
    let oss = code.k.unwrap() + code.m.unwrap();
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(dir, &opts).unwrap();
    store.put("f", &old_bytes()).unwrap();
    drop(store);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_process_helper_write_killed",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_DIR_ENV, dir)
        .env(
            exaraid_store::torture::KILL_AT_ENV,
            format!("write-torn-block:{n}"),
        )
        .env(exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV, "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return false;
    }
    assert!(
        err.contains("killed at write-torn-block"),
        "n={n}: the child failed without the kill: {err}"
    );
    true
}

/// The cache zone files of OSS `oss` (its objects ending in `.cache`).
fn cache_zones(dir: &Path, oss: usize) -> Vec<PathBuf> {
    let objects = dir.join(format!("oss-{oss}/objects"));
    let Ok(entries) = std::fs::read_dir(&objects) else {
        return Vec::new();
    };
    let mut zones: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cache"))
        .collect();
    zones.sort();
    zones
}

/// Flip bit `bit` of the first byte of the cut write's bytes found in OSS `oss`'s cache
/// zone, at a needle starting at a write offset in fresh space (past the put). `Some(file
/// offset)` of the flipped byte, or `None` where that cache holds none of them.
fn rot_cut_write_byte(dir: &Path, oss: usize, bit: u8) -> Option<usize> {
    let new = new_bytes();
    for zone in cache_zones(dir, oss) {
        let mut z = std::fs::read(&zone).unwrap();
        for w in (0..WRITE_BYTES - NEEDLE_BYTES).step_by(1024) {
            let needle = &new[w..w + NEEDLE_BYTES];
            if let Some(at) = z.windows(NEEDLE_BYTES).position(|x| x == needle) {
                // The middle of the needle: inside the same 4 KiB block most of the time.
                let at = at + NEEDLE_BYTES / 2;
                z[at] ^= 1 << bit;
                std::fs::write(&zone, &z).unwrap();
                return Some(WRITE_AT + w + NEEDLE_BYTES / 2);
            }
        }
    }
    None
}

fn copy_dir(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp -a {} {}", from.display(), to.display());
}

/// Every byte read is the put's (zero past it) or the cut write's; a refused read names
/// the bytes lost. `Err`: the first wrong byte.
fn check_read(store: &Store, what: &str) -> Result<(), String> {
    let old = old_bytes();
    let new = new_bytes();
    let got = match store.get("f") {
        Ok(g) => g,
        Err(e) => {
            assert!(
                e.to_string().contains("lost"),
                "{what}: a refused read must name the bytes lost: {e}"
            );
            return Ok(());
        }
    };
    assert!(got.len() >= PUT_BYTES, "{what}: length {}", got.len());
    assert!(
        got.len() <= WRITE_AT + WRITE_BYTES,
        "{what}: length {}",
        got.len()
    );
    for (x, &v) in got.iter().enumerate() {
        let was = old.get(x).copied().unwrap_or(0);
        let cut = (WRITE_AT..WRITE_AT + WRITE_BYTES)
            .contains(&x)
            .then(|| new[x - WRITE_AT]);
        if v != was && Some(v) != cut {
            return Err(format!(
                "{what}: file byte {x} read back as {v:#04x} with success: neither the old \
                 {was:#04x} nor the cut write's {cut:02x?}"
            ));
        }
    }
    Ok(())
}

fn rot_in_fresh_space_never_reads_back(code: CodeSpec, bit: u8) {
    let oss_count = code.k.unwrap() + code.m.unwrap();
    let mut rotted = 0;
    let mut wrong: Vec<String> = Vec::new();
    for n in KILL_POINTS {
        let tmp = scratch();
        let image = tmp.path().join("image");
        assert!(
            crash_image(&image, code, n),
            "the write ran to its end before block write {n}"
        );
        for oss in 0..oss_count {
            let dir = tmp.path().join(format!("rot-{oss}"));
            copy_dir(&image, &dir);
            let Some(at) = rot_cut_write_byte(&dir, oss, bit) else {
                continue;
            };
            rotted += 1;
            let store = Store::open(&dir).expect("the open recovers the crash");
            let what = format!("killed at write-torn-block:{n}, bit {bit} of file byte {at} rotten in OSS {oss}'s cache");
            if let Err(e) = check_read(&store, &what) {
                wrong.push(e);
            }
        }
    }
    assert!(
        rotted >= 8,
        "only {rotted} crash images held the write's bytes in a cache zone"
    );
    assert!(
        wrong.is_empty(),
        "{} WRONG:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn raid6_wcl_rot_in_a_cut_writes_fresh_space_never_reads_back_with_success() {
    rot_in_fresh_space_never_reads_back(CodeSpec::raid6(4), 3);
}

#[test]
fn rs_4_3_wcl_rot_in_a_cut_writes_fresh_space_never_reads_back_with_success() {
    rot_in_fresh_space_never_reads_back(CodeSpec::rs(4, 3), 5);
}
