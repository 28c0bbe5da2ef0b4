//! s24a (review s23r R23-3): a crash alone never loses acknowledged bytes of a torn edge
//! block, and rot beside a cut write's part of it is never read back (review s22r R22-1).
//!
//! Scene (6 OSSs, raid6 or rs 4+2, 12 KiB unit, rmw or delayed): `put` of 80,000 bytes, then a
//! write of 60,401 bytes at 18,386 killed at its n-th block write in plan order, that block
//! torn (its new payload under its old checksum). The write's first 4 KiB block (file bytes
//! 16,384..20,480, stripe 0 data column 1) and its last (77,824..81,920, stripe 1 data column
//! 2) are edge blocks: it covers them only in part, and their other bytes are the put's,
//! acknowledged. Its other data columns land before its parity, so at some n the stripe holds
//! no k columns of one version: only the journaled crc of the whole new edge block
//! (`WriteParityCrcs::edge_blocks`) proves a torn one. Before s24a such a block was recorded
//! LOST ("a write cut by a crash beside bit rot": there was none).
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
const BLOCK_BYTES: usize = 4096;
const PUT_BYTES: usize = 80_000;
const WRITE_AT: usize = 18_386;
const WRITE_BYTES: usize = 60_401;
/// The write's first and last file blocks: each holds put bytes beside the write's part.
const EDGE_BLOCKS: [usize; 2] = [
    WRITE_AT / BLOCK_BYTES,
    (WRITE_AT + WRITE_BYTES) / BLOCK_BYTES,
];
/// Past every block write of the write (it has 24 data and parity blocks at most).
const KILL_POINTS_MAX: u32 = 30;
const CHILD_DIR_ENV: &str = "S24A_TORN_EDGE_CHILD_DIR";

// Seeded pseudo-random bytes (splitmix64): regular patterns let a decode through mixed
// versions pass for one (the scene then never reaches the edge block's rule).
use common::splitmix_bytes as bytes;

fn old_bytes() -> Vec<u8> {
    bytes(7, PUT_BYTES)
}

fn new_bytes() -> Vec<u8> {
    bytes(99, WRITE_BYTES)
}

fn after_write() -> Vec<u8> {
    let mut new = old_bytes();
    new[WRITE_AT..WRITE_AT + WRITE_BYTES].copy_from_slice(&new_bytes());
    new
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

/// The store with the put made, the write killed at block write `n` (torn). `None`: the
/// write ran to its end (no kill point `n` in it).
fn crash_image(dir: &Path, code: CodeSpec, path: WritePath, n: u32) -> Option<()> {
    let mut opts = InitOptions::with_oss_count(dir, 6, code);
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = path;
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
        return None;
    }
    assert!(
        err.contains("killed at write-torn-block"),
        "n={n}: the child failed without the kill: {err}"
    );
    Some(())
}

/// Every byte reads, the put's or the cut write's, each 4 KiB block whole one version.
fn assert_every_acknowledged_byte_reads(store: &Store, what: &str) {
    let (old, new) = (old_bytes(), after_write());
    let got = match store.get("f") {
        Ok(g) => g,
        Err(e) => panic!("{what}: a crash alone lost bytes: {e}"),
    };
    assert_eq!(got.len(), PUT_BYTES, "{what}: length");
    for (b, block) in got.chunks(BLOCK_BYTES).enumerate() {
        let at = b * BLOCK_BYTES;
        let is = |v: &[u8]| block == &v[at..at + block.len()];
        assert!(
            is(&old) || is(&new),
            "{what}: file block {b} ({at}..) is neither the put's nor the cut write's whole"
        );
    }
}

fn crash_alone_reads_every_byte(code: CodeSpec, path: WritePath) {
    let mut killed = 0;
    for n in 1..=KILL_POINTS_MAX {
        let tmp = scratch();
        let dir = tmp.path().join("s");
        if crash_image(&dir, code, path, n).is_none() {
            break;
        }
        killed += 1;
        let store = Store::open(&dir).expect("the open recovers the crash");
        assert_every_acknowledged_byte_reads(
            &store,
            &format!("{path:?} killed at write-torn-block:{n}"),
        );
    }
    assert!(
        killed >= 8,
        "the write was killed at {killed} block writes only"
    );
}

/// Flips one bit at `off` of the block on disk whose payload holds `want` (4 KiB, the block as
/// the cut write left it whole: torn or landed). A zone file holds slots of an element's
/// payload followed by its blocks' checksums. `None`: no OSS holds it so.
fn flip_in_block_holding(dir: &Path, want: &[u8], off: usize) -> Option<String> {
    let slot_bytes = exaraid_store::backend::slot_bytes_on_disk(UNIT_BYTES) as usize;
    for oss in 0..6 {
        let path = dir.join(format!("oss-{oss}/objects/0.data"));
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        for slot in 0..bytes.len() / slot_bytes {
            for block in 0..UNIT_BYTES / BLOCK_BYTES {
                let at = slot * slot_bytes + block * BLOCK_BYTES;
                if &bytes[at..at + BLOCK_BYTES] == want {
                    bytes[at + off] ^= 0x10;
                    std::fs::write(&path, &bytes).unwrap();
                    return Some(format!("oss-{oss} slot {slot} block {block} byte {off}"));
                }
            }
        }
    }
    None
}

/// R22-1 stays fixed: after the kill, one bit flipped in an edge block's put bytes (outside
/// the write's part) where the block holds the write's bytes: that byte never reads back
/// rotten; decoded and proven, or the block is LOST and named.
fn rot_beside_the_write_in_an_edge_block_never_reads(code: CodeSpec, path: WritePath) {
    let (old, new) = (old_bytes(), after_write());
    let mut flipped = 0;
    for n in 1..=KILL_POINTS_MAX {
        for edge in EDGE_BLOCKS {
            let tmp = scratch();
            let dir = tmp.path().join("s");
            if crash_image(&dir, code, path, n).is_none() {
                assert!(n > 8, "the write was killed at {} block writes only", n - 1);
                assert!(
                    flipped > 0,
                    "no edge block held the write's bytes at any kill"
                );
                return;
            }
            let at = edge * BLOCK_BYTES;
            let mut want = vec![0u8; BLOCK_BYTES];
            let end = (at + BLOCK_BYTES).min(PUT_BYTES);
            want[..end - at].copy_from_slice(&new[at..end]);
            // A put byte of the block, outside the write's part.
            let x = if at < WRITE_AT {
                at + 50
            } else {
                PUT_BYTES - 100
            };
            assert!(!(WRITE_AT..WRITE_AT + WRITE_BYTES).contains(&x));
            let Some(flip) = flip_in_block_holding(&dir, &want, x - at) else {
                continue; // the write did not reach that block before the kill
            };
            flipped += 1;
            let what =
                format!("{path:?} killed at write-torn-block:{n}, rot at {flip} (file byte {x})");
            let store = Store::open(&dir).expect("the open recovers the crash");
            match store.read("f", x as u64, 1) {
                Ok(got) => {
                    assert_eq!(got, vec![old[x]], "{what}: the rotten byte read back");
                    eprintln!("{what}: decoded");
                }
                Err(e) => {
                    eprintln!("{what}: lost, named");
                    let e = e.to_string();
                    assert!(
                        e.contains("lost") && e.contains(&format!("{at}..")),
                        "{what}: a refused read names the block lost: {e}"
                    );
                    // What recovery could not tell, not a cause it never saw.
                    assert!(
                        e.contains("torn by the crash or rotten"),
                        "{what}: the loss says what recovery could not tell: {e}"
                    );
                }
            }
        }
    }
    panic!("the write was never left to run to its end");
}

#[test]
fn raid6_rmw_crash_alone_reads_every_byte_of_torn_edge_blocks() {
    crash_alone_reads_every_byte(CodeSpec::raid6(4), WritePath::Rmw);
}

#[test]
fn raid6_delayed_crash_alone_reads_every_byte_of_torn_edge_blocks() {
    crash_alone_reads_every_byte(CodeSpec::raid6(4), WritePath::Delayed);
}

#[test]
fn rs_4_2_rmw_crash_alone_reads_every_byte_of_torn_edge_blocks() {
    crash_alone_reads_every_byte(CodeSpec::rs(4, 2), WritePath::Rmw);
}

#[test]
fn rs_4_2_delayed_crash_alone_reads_every_byte_of_torn_edge_blocks() {
    crash_alone_reads_every_byte(CodeSpec::rs(4, 2), WritePath::Delayed);
}

#[test]
fn raid6_rmw_rot_beside_the_write_in_a_torn_edge_block_is_never_read() {
    rot_beside_the_write_in_an_edge_block_never_reads(CodeSpec::raid6(4), WritePath::Rmw);
}

#[test]
fn rs_4_2_delayed_rot_beside_the_write_in_a_torn_edge_block_is_never_read() {
    rot_beside_the_write_in_an_edge_block_never_reads(CodeSpec::rs(4, 2), WritePath::Delayed);
}

/// The journal stays readable both ways: a parity crcs record of an older binary (no
/// `edge_blocks`) reads with none (recovery then decides as s22g did), and a record with none
/// is written in the same bytes as before s24a.
#[test]
fn parity_crcs_records_without_edge_blocks_keep_their_old_form() {
    let old = r#"{"plan":7,"file":3,"pieces":[]}"#;
    let rec: exaraid_store::state::WriteParityCrcs = serde_json::from_str(old).unwrap();
    assert!(rec.edge_blocks.is_empty());
    assert_eq!(serde_json::to_string(&rec).unwrap(), old);
}
