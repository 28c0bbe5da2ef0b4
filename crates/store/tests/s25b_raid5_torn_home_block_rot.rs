//! s25b (review s24r R24-2, its rmw home-zone variant): on single parity (raid5, rs k+1),
//! rmw or delayed outside a window, a client write cut by a crash at a torn home block and
//! one rotten bit in the SAME OSS's home element never read back with success: one column
//! damaged, within the tolerance. Expected: each byte the put's, the acknowledged write's or
//! the cut write's, or the read refused naming the block LOST.
//!
//! Scene (6 OSSs, 8 KiB unit, 5 data columns + 1 parity): `put` of 50,000 bytes, an
//! acknowledged write of 9,000 bytes at 21,201, then a write of 18,615 bytes at 7,062 (data
//! columns 0 to 3 of stripe 0, edge blocks in columns 0 and 3) killed at its n-th block
//! write in plan order, that block torn (its new payload under its old checksum). Then one
//! bit flipped in a 4 KiB block of the torn OSS's home zone files that the cut write
//! changed: at a byte it changed, and (edge blocks) at a byte it did not. Before s25b no
//! crcs of a raid5 home write were journaled, so the torn block and the rot failed their
//! checksum alike and recovery kept the bytes on disk, rot included (the review's sweep:
//! 10 of 37 killed trials WRONG).
//!
//! Why a child process: a crash is a SIGKILL at a named kill point (`EXARAID_KILL_AT`, read
//! once per process), so the write runs in a child (this same test binary, the helper test
//! below) and the parent reopens copies of what the kill left.

mod common;
use common::scratch;

use std::path::{Path, PathBuf};
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const OSS_COUNT: usize = 6;
const UNIT_BYTES: usize = 8192;
const BLOCK_BYTES: usize = 4096;
const PUT_BYTES: usize = 50_000;
const ACK_AT: usize = 21_201;
const ACK_BYTES: usize = 9_000;
const CUT_AT: usize = 7_062;
const CUT_BYTES: usize = 18_615;
/// Past every block write of the cut write (one per element it writes: 4 data columns and
/// the parity).
const KILL_POINTS_MAX: u32 = 20;
/// Unchanged bytes that make a changed block an edge block of the write (random bytes leave
/// about 16 of 4096 equal by chance).
const EDGE_BESIDE_BYTES_MIN: usize = 256;
/// The kill points: a block write torn between its payload and its checksum, and (s26a) one
/// stopped at the first page boundary inside its first block (head new, tail old, old
/// checksum: what a kill -9 landing while the kernel copies the pwrite leaves).
const TORN: &str = exaraid_store::torture::WRITE_TORN_BLOCK;
const PAGE_CUT: &str = exaraid_store::torture::WRITE_PAGE_CUT;
const PAGE_CUT_LAST: &str = exaraid_store::torture::WRITE_PAGE_CUT_LAST;
const CHILD_SHIFT_ENV: &str = "S25B_TORN_HOME_ROT_CHILD_SHIFT";
/// Flips a sweep makes at least (a page cut changes fewer blocks than a torn write).
const FLIPS_MIN: usize = 6;
const CHILD_DIR_ENV: &str = "S25B_TORN_HOME_ROT_CHILD_DIR";

// Seeded pseudo-random bytes (splitmix64): patterned bytes let a decode through mixed
// versions pass for one (the review's first cut-down read right with them).
use common::splitmix_bytes as bytes;

fn ack_bytes() -> Vec<u8> {
    bytes(55, ACK_BYTES)
}

fn cut_bytes() -> Vec<u8> {
    bytes(99, CUT_BYTES)
}

/// The file as acknowledged before the cut write, every write `shift` bytes further (a
/// scene shifted one stripe on, into zone slots that are not page-aligned).
fn acknowledged(shift: usize) -> Vec<u8> {
    let mut f = bytes(7, PUT_BYTES + shift);
    f[shift + ACK_AT..shift + ACK_AT + ACK_BYTES].copy_from_slice(&ack_bytes());
    f
}

/// Helper run as the child process of the tests below (does nothing otherwise): the cut
/// write, killed by the kill point the parent armed.
#[test]
fn child_process_helper_write_killed() {
    let Some(dir) = std::env::var_os(CHILD_DIR_ENV) else {
        return;
    };
    let shift: usize = std::env::var(CHILD_SHIFT_ENV).unwrap().parse().unwrap();
    let store = Store::open(Path::new(&dir)).unwrap();
    store
        .write("f", (shift + CUT_AT) as u64, &cut_bytes())
        .unwrap();
    // Not killed: the parent's kill point lies past the write's block writes.
    std::process::exit(0);
}

/// The home zone files of every OSS (`oss-I/objects/0.*`) and their bytes.
fn home_files(dir: &Path) -> Vec<(usize, PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for oss in 0..OSS_COUNT {
        let objects = dir.join(format!("oss-{oss}/objects"));
        let mut names: Vec<PathBuf> = std::fs::read_dir(&objects)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("0."))
            })
            .collect();
        names.sort();
        for p in names {
            let b = std::fs::read(&p).unwrap();
            out.push((oss, p, b));
        }
    }
    out
}

/// The store with the put and the acknowledged write made, its home files then, and the
/// cut write killed at block write `n` (torn), with the OSS the kill named torn. `None`:
/// the write ran to its end (no kill point `n` in it).
fn crash_image(
    dir: &Path,
    code: CodeSpec,
    path: WritePath,
    point: &str,
    n: u32,
    shift: usize,
) -> Option<(Vec<(usize, PathBuf, Vec<u8>)>, usize)> {
    let mut opts = InitOptions::with_oss_count(dir, OSS_COUNT, code);
    opts.element_bytes = UNIT_BYTES;
    opts.write_path = path;
    let store = Store::init(dir, &opts).unwrap();
    store.put("f", &bytes(7, PUT_BYTES + shift)).unwrap();
    store
        .write("f", (shift + ACK_AT) as u64, &ack_bytes())
        .unwrap();
    drop(store);
    let before = home_files(dir);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_process_helper_write_killed",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_DIR_ENV, dir)
        .env(CHILD_SHIFT_ENV, shift.to_string())
        .env(exaraid_store::torture::KILL_AT_ENV, format!("{point}:{n}"))
        .env(exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV, "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return None;
    }
    let line = (err.lines())
        .find(|l| l.contains(&format!("killed at {point}")))
        .unwrap_or_else(|| panic!("n={n}: the child failed without the kill: {err}"));
    let torn = (0..OSS_COUNT)
        .find(|oss| line.contains(&format!("/oss-{oss} ")))
        .unwrap_or_else(|| panic!("n={n}: the kill names no OSS: {line}"));
    Some((before, torn))
}

/// Each byte the acknowledged one or the cut write's, or the read refused naming a loss.
fn assert_old_or_new_or_lost(store: &Store, what: &str, shift: usize) -> &'static str {
    let old = acknowledged(shift);
    let new = cut_bytes();
    match store.get("f") {
        Ok(got) => {
            assert_eq!(got.len(), PUT_BYTES + shift, "{what}: length");
            let wrong: Vec<usize> = (0..got.len())
                .filter(|&x| {
                    let cut = (shift + CUT_AT..shift + CUT_AT + CUT_BYTES).contains(&x);
                    got[x] != old[x] && !(cut && got[x] == new[x - shift - CUT_AT])
                })
                .collect();
            assert!(
                wrong.is_empty(),
                "{what}: {} byte(s) neither acknowledged nor the cut write's read with success, \
                 first {} (got {:#04x}, acknowledged {:#04x}, the cut write's {:?})",
                wrong.len(),
                wrong[0],
                got[wrong[0]],
                old[wrong[0]],
                (wrong[0].checked_sub(shift + CUT_AT)).and_then(|x| new.get(x)),
            );
            "read"
        }
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("lost"),
                "{what}: a refused read names a loss: {e}"
            );
            "lost, named"
        }
    }
}

/// The scene at every kill point: a crash alone reads every byte, and one bit flipped in
/// each 4 KiB block of the torn OSS's home files the cut write changed (at a byte it
/// changed, and at one it did not where there is one) never reads back.
fn torn_block_and_rot_on_one_oss_never_read_back(
    code: CodeSpec,
    path: WritePath,
    point: &str,
    shift: usize,
) {
    let slot_bytes = exaraid_store::backend::slot_bytes_on_disk(UNIT_BYTES) as usize;
    let mut flips = 0;
    for n in 1..=KILL_POINTS_MAX {
        let tmp = scratch();
        let dir = tmp.path().join("s");
        let Some((before, torn)) = crash_image(&dir, code, path, point, n, shift) else {
            assert!(n > 5, "the write was killed at {} block writes only", n - 1);
            assert!(flips >= FLIPS_MIN, "only {flips} flips were made");
            return;
        };
        let after = home_files(&dir);
        let mut targets: Vec<(PathBuf, usize)> = Vec::new();
        let empty = Vec::new();
        for (_, p, a) in after.iter().filter(|x| x.0 == torn) {
            let b = (before.iter().find(|x| &x.1 == p)).map_or(&empty, |x| &x.2);
            for slot in 0..a.len() / slot_bytes {
                for block in 0..UNIT_BYTES / BLOCK_BYTES {
                    let at = slot * slot_bytes + block * BLOCK_BYTES;
                    let changed: Vec<usize> = (at..at + BLOCK_BYTES)
                        .filter(|&i| b.get(i) != Some(&a[i]))
                        .collect();
                    let Some(&mid) = changed.get(changed.len() / 2) else {
                        continue;
                    };
                    targets.push((p.clone(), mid));
                    // An edge block: bytes beside the write's part (not a few random bytes
                    // the write happened to leave equal).
                    let beside: Vec<usize> = (at..at + BLOCK_BYTES)
                        .filter(|&i| b.get(i) == Some(&a[i]))
                        .collect();
                    if beside.len() >= EDGE_BESIDE_BYTES_MIN {
                        targets.push((p.clone(), beside[beside.len() / 2]));
                    }
                }
            }
        }
        let what = format!("{code:?} {path:?} killed at {point}:{n} (torn OSS {torn})");
        {
            let copy = tmp.path().join("crash-alone");
            copy_dir(&dir, &copy);
            let store = Store::open(&copy).expect("the open recovers the crash");
            let got = store.get("f");
            assert!(got.is_ok(), "{what}: a crash alone lost bytes: {got:?}");
            assert_old_or_new_or_lost(&store, &format!("{what}, no rot"), shift);
        }
        for (k, (file, x)) in targets.iter().enumerate() {
            let copy = tmp.path().join(format!("flip-{k}"));
            copy_dir(&dir, &copy);
            let rel = file.strip_prefix(&dir).unwrap();
            let mut b = std::fs::read(copy.join(rel)).unwrap();
            b[*x] ^= 0x10;
            std::fs::write(copy.join(rel), &b).unwrap();
            flips += 1;
            let what = format!("{what}, bit 4 of {} byte {x} rotten", rel.display());
            let store = Store::open(&copy).expect("the open recovers the crash");
            let how = assert_old_or_new_or_lost(&store, &what, shift);
            eprintln!("{what}: {how}");
        }
    }
    panic!("the write was never left to run to its end");
}

fn copy_dir(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn raid5_rmw_torn_home_block_and_rot_on_the_same_oss_never_read_back() {
    torn_block_and_rot_on_one_oss_never_read_back(CodeSpec::raid5(5), WritePath::Rmw, TORN, 0);
}

#[test]
fn raid5_delayed_torn_home_block_and_rot_on_the_same_oss_never_read_back() {
    torn_block_and_rot_on_one_oss_never_read_back(CodeSpec::raid5(5), WritePath::Delayed, TORN, 0);
}

#[test]
fn rs_5_1_rmw_torn_home_block_and_rot_on_the_same_oss_never_read_back() {
    torn_block_and_rot_on_one_oss_never_read_back(CodeSpec::rs(5, 1), WritePath::Rmw, TORN, 0);
}

// s26a: the same scenes with the block write stopped at a page boundary (the first or the
// last inside it), shifted one stripe on so that the zone slots are not page-aligned (slot 0
// is: its page boundaries fall between blocks). A crash alone must read every byte (old or
// new: the cut write was never acknowledged), and rot beside the cut block on its OSS must
// never read back.

/// One data stripe of each code below: 5 data columns of 8 KiB (raid5, rs 5+1), 4 (raid6).
fn stripe_bytes(code: CodeSpec) -> usize {
    let data_columns = if code == CodeSpec::raid6(4) { 4 } else { 5 };
    data_columns * UNIT_BYTES
}

fn page_cut_scenes(code: CodeSpec, path: WritePath) {
    for point in [PAGE_CUT, PAGE_CUT_LAST] {
        torn_block_and_rot_on_one_oss_never_read_back(code, path, point, stripe_bytes(code));
    }
}

#[test]
fn raid5_rmw_home_block_cut_at_a_page_boundary_alone_or_beside_rot_never_reads_wrong() {
    page_cut_scenes(CodeSpec::raid5(5), WritePath::Rmw);
}

#[test]
fn raid5_delayed_home_block_cut_at_a_page_boundary_alone_or_beside_rot_never_reads_wrong() {
    page_cut_scenes(CodeSpec::raid5(5), WritePath::Delayed);
}

#[test]
fn rs_5_1_rmw_home_block_cut_at_a_page_boundary_alone_or_beside_rot_never_reads_wrong() {
    page_cut_scenes(CodeSpec::rs(5, 1), WritePath::Rmw);
}

#[test]
fn raid6_rmw_home_block_cut_at_a_page_boundary_alone_or_beside_rot_never_reads_wrong() {
    page_cut_scenes(CodeSpec::raid6(4), WritePath::Rmw);
}
