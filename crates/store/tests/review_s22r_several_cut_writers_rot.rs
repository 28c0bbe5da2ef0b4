//! Review s22r (R22-1 context): two client writes sharing one block of a stripe, cut by
//! one crash, then bit rot in that shared block: never read back as data.
//!
//! Scene (raid6, 6 OSSs, 4 KiB unit, rmw): a file of three stripes is put. Write A (part of
//! stripe 1's data column 0 block) has run its plans and is held before its end
//! (`WRITE_PLANS_RAN`); write B (the rest of that block, overlapping A's end, and column 1)
//! is then killed at its n-th block write, half-way through a block (`write-torn-block:n`,
//! plan order). Before the next open one bit flips in the shared block (on another OSS than
//! the torn one; at one of four offsets: put's bytes, A's, both's, B's). Two faults: raid6
//! tolerates them. Neither write was acknowledged, so every byte must read as the put's or as
//! a cut write's, or the open must record the bytes lost and name them.
//!
//! This scene passes on main 32a1b03. The review's API fuzz (`scripts/repro/s22r-killmid-
//! drive.py`, four writer threads each cut mid-plan) read back such a rotten byte with
//! success (R22-1, docs/reviews/session22-r.md): there every cut writer was inside its plans
//! (none held after them), a state this test cannot reach without a pause point inside a
//! plan. The store's "Limits" list the rule as unproven ("stripes with several cut writers
//! keep the old keep rule").
//!
//! Why a child process: a crash is a SIGKILL at a named kill point (`EXARAID_KILL_AT`, read
//! once per process), so the writes run in a child (this same test binary, the helper test
//! below) and the parent reopens what the kill left.

mod common;
use common::scratch;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const UNIT_BYTES: usize = 4096;
const STRIPE_BYTES: u64 = 4 * UNIT_BYTES as u64;
const PUT_BYTES: u64 = 3 * STRIPE_BYTES;
/// Write A: stripe 1, part of data column 0's block.
const A_RANGE: (u64, u64) = (STRIPE_BYTES + 100, STRIPE_BYTES + 3000);
/// Write B: stripe 1, the rest of data column 0's block (overlapping A's end) and column 1.
const B_RANGE: (u64, u64) = (STRIPE_BYTES + 2000, STRIPE_BYTES + 2 * UNIT_BYTES as u64);
/// The block both writes share: stripe 1, data column 0.
const SHARED_BLOCK: (u64, u64) = (STRIPE_BYTES, STRIPE_BYTES + UNIT_BYTES as u64);
const CHILD_DIR_ENV: &str = "S22R_SEVERAL_CUT_CHILD_DIR";
const WRITER_A: &str = "s22r-writer-a";
/// Printed by the child when A is held and B starts: a kill after it cut both.
const B_STARTS: &str = "s22r: B starts";

/// The byte write `id` puts at file offset `x` (never equal between writes at one offset).
fn byte_of(id: u8, x: u64) -> u8 {
    let h = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 29) as u8;
    h.wrapping_add(id.wrapping_mul(85))
}

fn bytes_of(id: u8, (a, z): (u64, u64)) -> Vec<u8> {
    (a..z).map(|x| byte_of(id, x)).collect()
}

const PUT: u8 = 1;
const A: u8 = 2;
const B: u8 = 3;

/// Helper run as the child process of the test below (does nothing otherwise): put, A held
/// after its plans ran, B killed by the kill point the parent armed.
#[test]
fn child_process_helper_two_cut_writers() {
    let Some(dir) = std::env::var_os(CHILD_DIR_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    // B waiting on A forever (were the stripe's writes serialized) must not hang the parent.
    std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_secs(20));
        eprintln!("s22r: child timed out");
        std::process::exit(3);
    });
    let mut opts = InitOptions::with_oss_count(dir, 6, CodeSpec::raid6(4));
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = WritePath::Rmw;
    let store = Store::init(dir, &opts).unwrap();
    store.put("f", &bytes_of(PUT, (0, PUT_BYTES))).unwrap();
    let (held_tx, held_rx) = std::sync::mpsc::channel::<()>();
    let held_tx = std::sync::Mutex::new(held_tx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_RAN
            && std::thread::current().name() == Some(WRITER_A)
        {
            held_tx.lock().unwrap().send(()).unwrap();
            // Held until the kill: A's bytes are on disk, its end never comes.
            loop {
                std::thread::park();
            }
        }
    })));
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name(WRITER_A.into())
            .spawn_scoped(s, || {
                store.write("f", A_RANGE.0, &bytes_of(A, A_RANGE)).unwrap();
            })
            .unwrap();
        held_rx.recv().unwrap();
        eprintln!("{B_STARTS}");
        store.write("f", B_RANGE.0, &bytes_of(B, B_RANGE)).unwrap();
        // Not killed inside B: the parent skips this n.
        std::process::exit(0);
    });
}

/// Flips one bit (at `off` of the block) in the first block on disk (outside OSS `torn`) that holds `want` whole.
fn flip_in_block_holding(dir: &Path, want: &[u8], torn: &str, off: usize) -> Option<String> {
    // A zone file holds slots of 4096 payload bytes, each followed by its 4-byte checksum.
    const SLOT_BYTES: usize = UNIT_BYTES + 4;
    for oss in 0..6 {
        let name = format!("oss-{oss}");
        if name == torn {
            continue;
        }
        let path = dir.join(&name).join("objects").join("0.data");
        let Ok(mut bytes) = std::fs::read(&path) else {
            continue;
        };
        for slot in 0..bytes.len() / SLOT_BYTES {
            let at = slot * SLOT_BYTES;
            if &bytes[at..at + UNIT_BYTES] == want {
                bytes[at + off] ^= 0x20;
                std::fs::write(&path, &bytes).unwrap();
                return Some(format!("{name} slot {slot} byte {off}"));
            }
        }
    }
    None
}

#[test]
fn two_cut_writers_sharing_a_block_then_rot_in_it_never_read_back_as_data() {
    let exe = std::env::current_exe().unwrap();
    let mut wrong = Vec::new();
    let mut cut_both = 0;
    for n in 1..=40u32 {
        let tmp = scratch();
        let dir = tmp.path().join("s");
        let out = Command::new(&exe)
            .args([
                "child_process_helper_two_cut_writers",
                "--exact",
                "--nocapture",
            ])
            .env(CHILD_DIR_ENV, &dir)
            .env("EXARAID_KILL_AT", format!("write-torn-block:{n}"))
            .env("EXARAID_KILL_IN_PLAN_ORDER", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let Some(after_b) = err.split(B_STARTS).nth(1) else {
            continue; // killed inside the put or A: not this scene
        };
        let Some(kill) = after_b
            .lines()
            .find(|l| l.contains("killed at write-torn-block"))
        else {
            continue; // B ran to its end
        };
        cut_both += 1;
        let torn = kill
            .split('/')
            .find(|p| p.starts_with("oss-"))
            .map(|p| p.split_whitespace().next().unwrap().to_string())
            .unwrap_or_default();
        // Rot in the block both cut writes share, inside A's bytes only (as the writes
        // landed there: A then B, or A alone where the kill came first).
        let shared = |with_b: bool| -> Vec<u8> {
            (SHARED_BLOCK.0..SHARED_BLOCK.1)
                .map(|x| {
                    if with_b && (B_RANGE.0..B_RANGE.1).contains(&x) {
                        byte_of(B, x)
                    } else if (A_RANGE.0..A_RANGE.1).contains(&x) {
                        byte_of(A, x)
                    } else {
                        byte_of(PUT, x)
                    }
                })
                .collect()
        };
        // Offsets in the shared block: put's bytes only, A's only, A's and B's, B's only.
        let off = [50, 500, 2500, 3500][n as usize % 4];
        let Some(flip) = flip_in_block_holding(&dir, &shared(true), &torn, off)
            .or_else(|| flip_in_block_holding(&dir, &shared(false), &torn, off))
        else {
            continue;
        };
        let store = match Store::open(&dir) {
            Ok(s) => s,
            Err(e) => panic!("n={n}: open after the crash failed: {e}"),
        };
        let got = match store.get("f") {
            Ok(g) => g,
            Err(e) if e.to_string().to_lowercase().contains("lost") => continue, // named: allowed
            Err(e) => panic!("n={n}: get failed without naming lost bytes: {e}"),
        };
        assert_eq!(got.len() as u64, PUT_BYTES, "n={n}: length");
        let bad: Vec<u64> = (0..PUT_BYTES)
            .filter(|&x| {
                let b = got[x as usize];
                let in_a = (A_RANGE.0..A_RANGE.1).contains(&x);
                let in_b = (B_RANGE.0..B_RANGE.1).contains(&x);
                b != byte_of(PUT, x)
                    && !(in_a && b == byte_of(A, x))
                    && !(in_b && b == byte_of(B, x))
            })
            .collect();
        if !bad.is_empty() {
            wrong.push(format!(
                "n={n} (torn {torn}, rot {flip}): {} bytes neither the put's nor a cut write's, first at {} (got {:#04x})",
                bad.len(),
                bad[0],
                got[bad[0] as usize]
            ));
        }
    }
    assert!(cut_both > 0, "no kill landed inside B while A was held");
    assert!(
        wrong.is_empty(),
        "two cut writers + one rotten block read back wrong bytes with success: {wrong:?}"
    );
}
