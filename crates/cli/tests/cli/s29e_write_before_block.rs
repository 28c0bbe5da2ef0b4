//! s29e: the kill point `write-before-block:n` (`exaraid_store::torture::WRITE_BEFORE_BLOCK`)
//! stops a write BETWEEN two of its block writes: the process dies just before the `n`-th
//! block write is issued, block writes `1..n` whole, the `n`-th and later untouched, counted
//! in plan order whether or not `EXARAID_KILL_IN_PLAN_ORDER` is set. Before it (s28c) a kill
//! reached that state only on a page-aligned block (cache slot 0, where a page cut writes
//! nothing); every other block write was cut inside it.
//!
//! Each scene: a store after a `put`, then one write killed before each of its block writes
//! in turn (from one copy of the store per trial, `copy_store`). Checked per trial: the zone
//! files hold exactly the earlier trial's changes plus one more block write's (so the point
//! does what it says), every acknowledged byte reads back (the cut write's bytes old or new:
//! a crash alone loses nothing), and `scrub` exits 0.

use crate::common;
use common::zone_slots::zone_files;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use exaraid_store::torture::WRITE_BEFORE_BLOCK;

const PUT_BYTES: usize = 61_000;
/// Block writes of one cut write at most (past them the write finishes and the sweep stops).
const BLOCK_WRITES_MAX: usize = 32;

/// The zone files of the store at `dir` (`zone_files`), named by their paths inside it:
/// trials run in a copy of the image.
fn zone_files_in(dir: &Path, oss_count: usize) -> Vec<(PathBuf, Vec<u8>)> {
    zone_files(dir, oss_count)
        .into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .collect()
}

/// The bytes of every zone file that differ from `before`, by (file, offset): a zone file
/// missing or shorter reads as zeros there (the write's reservation may make or grow zone
/// files before its first block write, with zeros).
fn changed_bytes(
    before: &[(PathBuf, Vec<u8>)],
    after: &[(PathBuf, Vec<u8>)],
) -> BTreeMap<(PathBuf, usize), u8> {
    let old: BTreeMap<&PathBuf, &Vec<u8>> = before.iter().map(|(p, b)| (p, b)).collect();
    let mut changed = BTreeMap::new();
    for (p, now) in after {
        let was = old.get(p).map(|b| b.as_slice()).unwrap_or(&[]);
        for (i, &x) in now.iter().enumerate() {
            if was.get(i).copied().unwrap_or(0) != x {
                changed.insert((p.clone(), i), x);
            }
        }
    }
    for (p, was) in before {
        let now = after
            .iter()
            .find(|(q, _)| q == p)
            .map(|(_, b)| b.as_slice())
            .unwrap_or(&[]);
        for (i, &x) in was.iter().enumerate().skip(now.len()) {
            if x != 0 {
                changed.insert((p.clone(), i), 0);
            }
        }
    }
    changed
}

/// One write killed before each of its block writes in turn, nothing else: see the header.
/// `oss_count` OSSs; panics naming every trial that broke a rule. At least `kills_min`
/// block writes.
fn killed_before_each_block_write(
    unit_bytes: u64,
    init_args: &[&str],
    oss_count: usize,
    (write_at, write_bytes): (usize, usize),
    kills_min: usize,
) {
    let tmp = fast_tempdir("exaraid-s29e-before-block");
    let image = tmp.path().join("image");
    let dir_path = tmp.path().join("store");
    let dir = s(&dir_path).to_string();
    init_store_unit(s(&image), unit_bytes, init_args);
    let old = random_bytes(0x529e_0001, PUT_BYTES);
    ok(&["store", "put", s(&image), "f"], &old);
    let new_bytes = random_bytes(0x529e_0002 ^ write_at as u64, write_bytes);
    let mut new = old.clone();
    put_over(&mut new, write_at, &new_bytes);
    let offset = write_at.to_string();
    let before = zone_files_in(&image, oss_count);
    let mut earlier = BTreeMap::new();
    let mut failures = Vec::new();
    let mut kills = 0;
    for n in 1..=BLOCK_WRITES_MAX {
        copy_store(&image, &dir_path);
        let kill_at = format!("{WRITE_BEFORE_BLOCK}:{n}");
        // No `EXARAID_KILL_IN_PLAN_ORDER`: the point counts in plan order by itself.
        let killed = killed_at_with(
            &["store", "write", &dir, "f", "--offset", &offset],
            &new_bytes,
            &kill_at,
            &[],
        );
        let now = changed_bytes(&before, &zone_files_in(&dir_path, oss_count));
        let what = format!("{init_args:?} write {write_at}+{write_bytes} killed at {kill_at}");
        // Every byte the block writes before this one changed is still so: a later block
        // write of the same command never rewrites an earlier one's bytes (checked, not
        // assumed: such a plan would make the count's meaning weaker).
        let lost_earlier = earlier
            .iter()
            .filter(|&(k, v)| now.get(k) != Some(v))
            .count();
        if lost_earlier > 0 {
            failures.push(format!(
                "{what}: {lost_earlier} byte(s) the earlier block writes wrote differ"
            ));
        }
        if !killed {
            assert!(
                n > 1,
                "{what}: the write finished before its first block write"
            );
            break;
        }
        kills += 1;
        if n == 1 && !now.is_empty() {
            failures.push(format!(
                "{what}: {} zone file byte(s) changed before the first block write",
                now.len()
            ));
        }
        if n > 1 && now.len() == earlier.len() {
            failures.push(format!("{what}: block write {} changed nothing", n - 1));
        }
        earlier = now;
        // Past the put's end a byte of the cut write reads as the write's or as a hole's zero.
        let check = |got: &[u8]| {
            let wrong: Vec<usize> = (0..got.len())
                .filter(|&i| {
                    got[i] != old.get(i).copied().unwrap_or(0) && Some(&got[i]) != new.get(i)
                })
                .collect();
            ((got.len() != old.len() && got.len() != new.len()) || !wrong.is_empty()).then(|| {
                format!(
                    "WRONG BYTES: {} byte(s) neither the put's nor the cut write's (first {:?}), {} bytes read",
                    wrong.len(),
                    wrong.first(),
                    got.len()
                )
            })
        };
        failures.extend(get_then_scrub_problem(&dir, &what, &check));
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) in {kills} killed trials:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(kills >= kills_min, "{init_args:?}: only {kills} kills");
}

#[test]
fn a_wcl_raid6_write_killed_before_each_block_write_keeps_the_earlier_ones_and_every_acknowledged_byte(
) {
    // Over three data elements of one cache stripe, not its first slot: its running parity
    // is written beside them.
    let (unit_bytes, init_args) = common::torture_scene::RAID6_WCL_4K;
    killed_before_each_block_write(unit_bytes, init_args, 5, (5_000, 9_000), 4);
}

#[test]
fn an_rmw_raid5_write_killed_before_each_block_write_keeps_the_earlier_ones_and_every_acknowledged_byte(
) {
    // Across two stripes of 4 x 16 KiB, both ends inside 4 KiB blocks.
    killed_before_each_block_write(
        16384,
        &["--oss", "5", "--code", "raid5", "--write-path", "rmw"],
        5,
        (50_000, 30_001),
        4,
    );
}

#[test]
fn an_rmw_xcode_write_killed_before_each_block_write_keeps_the_earlier_ones_and_every_acknowledged_byte(
) {
    killed_before_each_block_write(
        4096,
        &[
            "--oss",
            "5",
            "--code",
            "xcode",
            "--p",
            "5",
            "--write-path",
            "rmw",
        ],
        5,
        (3_000, 20_000),
        4,
    );
}

/// Found by s29e's sweep (`s28c-every-block-write.py --point write-before-block`, WCL xcode
/// 16 KiB, torture seed 0x5eed2901, 146 trials, this one failed): write 24 (writes 0..24
/// acknowledged) killed before its 4th block write. Its 3rd wrote OSS 2's cache slot 3
/// blocks 0..3, its 4th would write blocks 2..4 of the same slot: by the bytes, a running
/// parity cell on the chains of both data cells the write meets (4 from its byte 9926, 5 up
/// to 9460), updated in two delta runs, 0..9460 and 9926..16384, one block write each, both
/// meeting block 2: s28c's scene on an array code. After the cut block 2 is s28c's
/// `BlockVersion::Partial` (unknown in both versions), and with the write's other parity
/// cells of the row still old (OSS 3, 4) and its data cells landed (OSS 0, 1) each version
/// has three columns unknown: the open's recovery recorded block row 2 of the cache stripe
/// LOST (file bytes 8192..12288, 24576..28672, 40960..45056, 57344..61440, 73728..77824,
/// 90112..93653: "a move of cached bytes home (a settle) could not tell its true bytes"), by
/// a crash alone. Not reachable before s29e's point (a page cut or torn block of the 4th
/// write leaves another state; block 2 is not page-aligned). s30c: block 2 is known piece
/// by piece (its landed piece in the new version by the piece's journaled crc, the other in
/// the old), so the new version has at most two columns unknown at each offset and the row
/// is checked (`known_pieces`); fails on 6b51ed6 with the LOST above.
#[test]
fn a_wcl_xcode_16k_write_killed_between_two_block_writes_of_one_shared_block_loses_no_acknowledged_byte(
) {
    use common::torture_scene::{cut_write_scene, reads_every_acknowledged_byte, XCODE_WCL_16K};
    const SEED: u64 = 0x5eed_2901;
    const ACKED: u64 = 24;
    let tmp = fast_tempdir("exaraid-s29e-xcode-shared-block");
    let dir = s(tmp.path()).to_string() + "/store";
    let acknowledged = cut_write_scene(
        &dir,
        XCODE_WCL_16K,
        SEED,
        ACKED,
        &format!("{WRITE_BEFORE_BLOCK}:4"),
    );
    reads_every_acknowledged_byte(
        &dir,
        &acknowledged,
        exaraid_store::torture::write_of(SEED, ACKED),
    );
}
