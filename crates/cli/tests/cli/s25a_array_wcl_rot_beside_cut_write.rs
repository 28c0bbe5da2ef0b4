//! s25a (review s24r R24-3): array codes on WCL, one client write cut by a crash at a torn
//! cache block, then ONE bit of rot in another OSS's cache bytes the cut write changed: two
//! damaged columns on a 2-parity code, within the tolerance. Every byte must read as the
//! put's or the cut write's, or the read must be refused naming the bytes lost.
//!
//! Before s25a, recovery's cache block rules (s23d `decide_rotten_cache_block`, s24d's whole
//! cache edge block crcs) were taken on one-row codes only: on an array code a rotten cache
//! block in the cut write's range was kept as torn, and `get` read the flipped bit with
//! success (hcode, rdp, evenodd in the review's sweep). An array code's element is, as on a
//! one-row code, contiguous file bytes in 4 KiB blocks, and since s24b its WCL writes sync
//! their crcs before the first cache write: the rules hold per block of the element.
//!
//! Each scene kills its write once, then tries several flips, each on a fresh copy of the
//! crash image (a `get` runs recovery, which changes the image).

use crate::common;
use common::*;
use std::path::Path;

const CACHE_FILE: &str = "objects/18446744073709551615.cache";
/// Flips tried per scene (each one `get` of a fresh copy of the crash image).
const FLIPS_PER_SCENE_MAX: usize = 12;

// Bytes with no structure (splitmix64 of `seed`): patterned bytes can make a wrong decode
// agree with the rot by chance.
use common::random_bytes;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The cache zone file of every OSS of the store: `(oss, bytes)`.
fn cache_zones(dir: &Path, oss_count: usize) -> Vec<(usize, Vec<u8>)> {
    (0..oss_count)
        .map(|oss| {
            let path = dir.join(format!("oss-{oss}")).join(CACHE_FILE);
            (oss, std::fs::read(path).unwrap_or_default())
        })
        .collect()
}

/// The OSSs the kill's message names (the OSS caught in the torn block).
fn torn_osses(stderr: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for line in stderr.lines().filter(|l| l.contains("torn")) {
        for part in line.split("/oss-").skip(1) {
            let digits: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(oss) = digits.parse() {
                if !out.contains(&oss) {
                    out.push(oss);
                }
            }
        }
    }
    out
}

struct Scene<'a> {
    name: &'a str,
    code: &'a [&'a str],
    oss_count: usize,
    unit_bytes: u64,
    put_bytes: usize,
    write_at: usize,
    write_bytes: usize,
    kill_at: &'a str,
}

/// Run `scene`: init, put, the write killed at its torn block, then each flip on a copy of
/// the crash image and `get`: old or new at every byte, or refused naming bytes lost.
/// Returns how many flips read back (the rest were refused, named lost).
fn rot_beside_a_cut_write_never_reads_back_with_success(scene: &Scene) -> usize {
    let tmp = fast_tempdir("exaraid-s25a");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut init: Vec<&str> = vec!["--oss"];
    let oss = scene.oss_count.to_string();
    init.push(&oss);
    init.extend_from_slice(scene.code);
    init.extend_from_slice(&["--write-path", "wcl"]);
    init_store_unit(d, scene.unit_bytes, &init);
    let old = random_bytes(7, scene.put_bytes);
    ok(&["store", "put", d, "f"], &old);
    let before = cache_zones(&dir, scene.oss_count);
    let new_bytes = random_bytes(99, scene.write_bytes);
    let offset = scene.write_at.to_string();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_exaraid"));
    cmd.args(["store", "write", d, "f", "--offset", &offset])
        .env(exaraid_store::torture::KILL_AT_ENV, scene.kill_at)
        .env(exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&new_bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(9),
        "{}: the write is killed at {}: {stderr}",
        scene.name,
        scene.kill_at
    );
    let torn = torn_osses(&stderr);
    assert_eq!(torn.len(), 1, "{}: one OSS torn: {stderr}", scene.name);
    let after = cache_zones(&dir, scene.oss_count);
    // Cache bytes the cut write changed on the OSSs it did not tear.
    let mut changed: Vec<(usize, usize)> = Vec::new();
    for ((oss, b), (_, a)) in before.iter().zip(&after) {
        if torn.contains(oss) {
            continue;
        }
        changed.extend(
            (0..a.len())
                .filter(|&i| i >= b.len() || a[i] != b[i])
                .map(|i| (*oss, i)),
        );
    }
    assert!(
        !changed.is_empty(),
        "{}: the cut write changed cache bytes on an OSS it did not tear",
        scene.name
    );
    let mut new = old.clone();
    put_over(&mut new, scene.write_at, &new_bytes);
    let flips = changed.len().min(FLIPS_PER_SCENE_MAX);
    let mut read_back = 0;
    for j in 0..flips {
        // Spread over the changed bytes: every OSS and element the write reached gets some.
        let (oss, at) = changed[j * changed.len() / flips];
        let mask = 1u8 << (j % 8);
        let image = tmp.path().join(format!("flip-{j}"));
        copy_dir(&dir, &image);
        let zone = image.join(format!("oss-{oss}")).join(CACHE_FILE);
        let mut z = std::fs::read(&zone).unwrap();
        z[at] ^= mask;
        std::fs::write(&zone, &z).unwrap();
        let what = format!(
            "{}: write {}+{} killed at {} (torn on OSS {}), bit {} of oss-{oss} cache byte {at} rotten",
            scene.name,
            scene.write_at,
            scene.write_bytes,
            scene.kill_at,
            torn[0],
            j % 8
        );
        let got = exaraid(&["store", "get", s(&image), "f"], b"");
        if !got.status.success() {
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(
                err.contains("lost"),
                "{what}: a refused read names the bytes lost: {err}"
            );
        } else {
            let got = got.stdout;
            assert!(
                got.len() == old.len() || got.len() == new.len(),
                "{what}: length {}",
                got.len()
            );
            let wrong: Vec<usize> = (0..got.len())
                .filter(|&i| got[i] != old.get(i).copied().unwrap_or(0) && got[i] != new[i])
                .collect();
            assert!(
                wrong.is_empty(),
                "{what}: {} byte(s) neither the put's nor the cut write's read with success, \
                 first {:?}",
                wrong.len(),
                &wrong[..wrong.len().min(4)],
            );
            read_back += 1;
        }
        std::fs::remove_dir_all(&image).unwrap();
    }
    eprintln!("{}: {read_back} of {flips} flips read back", scene.name);
    read_back
}

#[test]
fn hcode_wcl_rot_in_a_cut_writes_cache_bytes_never_reads_back_with_success() {
    // R24-3's hand cut-down scene (review s24r), with splitmix64 bytes.
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "hcode p=5 6 OSSs",
        code: &["--code", "hcode", "--p", "5"],
        oss_count: 6,
        unit_bytes: 8192,
        put_bytes: 27_372,
        write_at: 0,
        write_bytes: 35_748,
        kill_at: "write-torn-block:8",
    });
}

#[test]
fn rdp_wcl_rot_in_a_cut_writes_cache_bytes_never_reads_back_with_success() {
    // The review's sweep (`rdp:5:6 8192`, seed 307, trial 4): torn on OSS 1, rot on OSS 0.
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "rdp p=5 6 OSSs",
        code: &["--code", "rdp", "--p", "5"],
        oss_count: 6,
        unit_bytes: 8192,
        put_bytes: 28_968,
        write_at: 0,
        write_bytes: 23_182,
        kill_at: "write-torn-block:2",
    });
}

#[test]
fn evenodd_wcl_rot_in_a_cut_writes_cache_bytes_never_reads_back_with_success() {
    // The review's sweep (`evenodd:5:7 8192`, seed 308, trial 8): torn on OSS 2.
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "evenodd p=5 7 OSSs",
        code: &["--code", "evenodd", "--p", "5"],
        oss_count: 7,
        unit_bytes: 8192,
        put_bytes: 81_590,
        write_at: 47_205,
        write_bytes: 22_519,
        kill_at: "write-torn-block:3",
    });
}

#[test]
fn evenodd_wcl_rot_in_a_cut_writes_single_block_never_reads_back_with_success() {
    // The review's sweep (`evenodd:5:7 8192`, seed 308, trial 2): a write of 5,732 bytes
    // within one element, torn on OSS 2.
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "evenodd p=5 7 OSSs, short write",
        code: &["--code", "evenodd", "--p", "5"],
        oss_count: 7,
        unit_bytes: 8192,
        put_bytes: 30_592,
        write_at: 15_560,
        write_bytes: 5_732,
        kill_at: "write-torn-block:2",
    });
}

#[test]
fn xcode_wcl_rot_in_a_cut_writes_cache_bytes_never_reads_back_with_success() {
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "xcode p=5 5 OSSs",
        code: &["--code", "xcode", "--p", "5"],
        oss_count: 5,
        unit_bytes: 8192,
        put_bytes: 28_968,
        write_at: 0,
        write_bytes: 23_182,
        kill_at: "write-torn-block:6",
    });
}

#[test]
fn dcode_wcl_rot_in_a_cut_writes_cache_bytes_never_reads_back_with_success() {
    rot_beside_a_cut_write_never_reads_back_with_success(&Scene {
        name: "dcode p=5 5 OSSs",
        code: &["--code", "dcode", "--p", "5"],
        oss_count: 5,
        unit_bytes: 8192,
        put_bytes: 28_968,
        write_at: 0,
        write_bytes: 23_182,
        kill_at: "write-torn-block:2",
    });
}

/// A crash alone (no rot): the write killed at each of its first `kills` torn block writes
/// in plan order, then `get` reads every byte as the put's or the write's (exit 0): a torn
/// cache edge block holds acknowledged bytes beside the write's part, and is kept whole by
/// its journaled crc (`WriteParityCrcs::edge_blocks`, on array codes since s25a) where no
/// decode proves it. Returns the kill points that killed the write.
fn crash_alone_reads_every_byte(scene: &Scene, kills: usize) -> usize {
    assert!(kills <= 16, "a bounded sweep");
    let mut killed = 0;
    for n in 1..=kills {
        let tmp = fast_tempdir("exaraid-s25a-crash");
        let dir = tmp.path().join("store");
        let d = s(&dir);
        let oss = scene.oss_count.to_string();
        let mut init: Vec<&str> = vec!["--oss", &oss];
        init.extend_from_slice(scene.code);
        init.extend_from_slice(&["--write-path", "wcl"]);
        init_store_unit(d, scene.unit_bytes, &init);
        let old = random_bytes(7, scene.put_bytes);
        ok(&["store", "put", d, "f"], &old);
        let new_bytes = random_bytes(99, scene.write_bytes);
        let offset = scene.write_at.to_string();
        let kill = format!("write-torn-block:{n}");
        if !killed_at_with(
            &["store", "write", d, "f", "--offset", &offset],
            &new_bytes,
            &kill,
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ) {
            break; // the write has fewer block writes
        }
        killed += 1;
        let got = exaraid(&["store", "get", d, "f"], b"");
        assert!(
            got.status.success(),
            "{}: write {}+{} killed at {kill}, no rot: get fails: {}",
            scene.name,
            scene.write_at,
            scene.write_bytes,
            String::from_utf8_lossy(&got.stderr)
        );
        let mut new = old.clone();
        put_over(&mut new, scene.write_at, &new_bytes);
        let got = got.stdout;
        let wrong: Vec<usize> = (0..got.len())
            .filter(|&i| got[i] != old.get(i).copied().unwrap_or(0) && got[i] != new[i])
            .collect();
        assert!(
            wrong.is_empty(),
            "{}: killed at {kill}, no rot: {} wrong byte(s), first {:?}",
            scene.name,
            wrong.len(),
            &wrong[..wrong.len().min(4)]
        );
    }
    killed
}

/// Both ends of the write inside a 4 KiB block holding the put's bytes beside it.
fn edge_scene<'a>(name: &'a str, code: &'a [&'a str], oss_count: usize) -> Scene<'a> {
    Scene {
        name,
        code,
        oss_count,
        unit_bytes: 8192,
        put_bytes: 60_000,
        write_at: 1_000,
        write_bytes: 30_000,
        kill_at: "",
    }
}

#[test]
fn hcode_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    let scene = edge_scene("hcode p=5", &["--code", "hcode", "--p", "5"], 6);
    assert!(crash_alone_reads_every_byte(&scene, 12) >= 4);
}

#[test]
fn rdp_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    let scene = edge_scene("rdp p=5", &["--code", "rdp", "--p", "5"], 6);
    assert!(crash_alone_reads_every_byte(&scene, 12) >= 4);
}

#[test]
fn evenodd_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    let scene = edge_scene("evenodd p=5", &["--code", "evenodd", "--p", "5"], 7);
    assert!(crash_alone_reads_every_byte(&scene, 12) >= 4);
}

#[test]
fn xcode_wcl_crash_alone_reads_every_byte_of_torn_cache_edge_blocks() {
    let scene = edge_scene("xcode p=5", &["--code", "xcode", "--p", "5"], 5);
    assert!(crash_alone_reads_every_byte(&scene, 12) >= 4);
}
