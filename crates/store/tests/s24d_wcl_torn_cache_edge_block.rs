//! s24d (review s24r R24-1, R24-2): a WCL cache data block that fails its checksum after a
//! crash, beside a cut write's part, is kept as on disk only where something proves it; a
//! crash alone still reads every acknowledged byte of a torn cache edge block.
//!
//! Scene (one-row codes, 12 KiB unit, wcl): `put` of 80,000 bytes, then a write of 60,401
//! bytes at 18,386 killed at its n-th block write in plan order, that block torn (its new
//! payload under its old checksum). The write's first and last 4 KiB blocks are edge blocks:
//! it covers them only in part, and the cache write copies their other bytes (the put's,
//! acknowledged) with them. Since s24d recovery keeps such a block failing its checksum only
//! where it matches the journaled crc of the whole new block (`WriteParityCrcs::edge_blocks`)
//! or a proof (s23d's rule); this checks that a crash alone (no rot) still reads every byte.
//! The rot side is `review_s24r_wcl_rot_beside_cut_write_part.rs` (CLI).
//!
//! Why a child process: a crash is a SIGKILL at a named kill point (`EXARAID_KILL_AT`, read
//! once per process), so the write runs in a child (this same test binary, the helper test
//! below) and the parent reopens what the kill left.

mod common;
use common::scratch;

use std::path::Path;
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const UNIT_BYTES: usize = 12288;
const PUT_BYTES: usize = 80_000;
const WRITE_AT: usize = 18_386;
const WRITE_BYTES: usize = 60_401;
/// Past every block write of the write (data and running parity blocks, at most 30).
const KILL_POINTS_MAX: u32 = 40;
const CHILD_DIR_ENV: &str = "S24D_TORN_CACHE_EDGE_CHILD_DIR";

// Seeded pseudo-random bytes (splitmix64): regular patterns let a decode through mixed
// versions pass for one.
use common::splitmix_bytes as bytes;

fn old_bytes() -> Vec<u8> {
    bytes(7, PUT_BYTES)
}

fn new_bytes() -> Vec<u8> {
    bytes(99, WRITE_BYTES)
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

/// Every byte reads, the put's or the cut write's (acknowledged bytes beside the write's
/// part of an edge block: the put's).
fn assert_every_acknowledged_byte_reads(store: &Store, what: &str) {
    let old = old_bytes();
    let mut new = old.clone();
    new[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&new_bytes());
    let got = match store.get("f") {
        Ok(g) => g,
        Err(e) => panic!("{what}: a crash alone lost bytes: {e}"),
    };
    assert_eq!(got.len(), PUT_BYTES, "{what}: length");
    for (x, &v) in got.iter().enumerate() {
        assert!(
            v == old[x] || v == new[x],
            "{what}: file byte {x} is {v:#04x}: neither the put's {:#04x} nor the write's {:#04x}",
            old[x],
            new[x]
        );
    }
}

fn wcl_crash_alone_reads_every_byte(code: CodeSpec) {
    let mut killed = 0;
    for n in 1..=KILL_POINTS_MAX {
        let tmp = scratch();
        let dir = tmp.path().join("s");
        if !crash_image(&dir, code, n) {
            assert!(
                killed >= 8,
                "the write was killed at {killed} block writes only"
            );
            return;
        }
        killed += 1;
        let store = Store::open(&dir).expect("the open recovers the crash");
        assert_every_acknowledged_byte_reads(
            &store,
            &format!("wcl killed at write-torn-block:{n}"),
        );
    }
    panic!("the write was never left to run to its end");
}

#[test]
fn raid6_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    wcl_crash_alone_reads_every_byte(CodeSpec::raid6(4));
}

#[test]
fn rs_4_3_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    wcl_crash_alone_reads_every_byte(CodeSpec::rs(4, 3));
}

#[test]
fn raid5_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    wcl_crash_alone_reads_every_byte(CodeSpec::raid5(5));
}
