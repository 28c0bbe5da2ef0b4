//! The power-cut emulation (common/powercut.rs: the journal keeps only what its fsyncs
//! covered, each OSS keeps or drops its unsynced writes) beyond raid5's END and timeout
//! (power_cut_window_parity.rs): WCL writes into the cache zone, a WCL write whose cache
//! stripe is complete (its destage runs inline), a settle (`flush`), and END on raid6 and
//! Reed-Solomon.
//!
//! At every power cut the store is opened with every disk, and again with disks dead (their
//! disks died with the power cut, `store fail` before recovery); every 4 KiB block of the
//! file is read on its own. What must hold:
//! - never wrong bytes read without error, never a panic, the open never refused;
//! - a byte acknowledged before the operation reads as acknowledged or is named LOST on
//!   record; inside the operation's own write (not acknowledged until it returns) each byte
//!   may be the old one or the new one;
//! - with every disk, nothing acknowledged is LOST: only blocks of the operation's own
//!   write may be (and, after the operation returned, none);
//! - END: the dead disk beside the window loses nothing either (a dead window column may
//!   lose the window's bytes, which have no parity until END: named LOST, never wrong).

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use std::ops::Range;
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const BLOCK_BYTES: usize = 4096;

struct Scene {
    top: tempfile::TempDir,
    cut: Arc<PowerCut>,
    store: Store,
    k: usize,
    m: usize,
}

fn scene(code: CodeSpec, path: WritePath) -> Scene {
    images_in_plan_order();
    // tmpfs: every power cut copies the store twice and opens it.
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let cols = columns(code);
    let mut opts = InitOptions::with_oss_count(&dir, cols, code);
    opts.element_bytes = UNIT;
    opts.write_path = path;
    // No timeout during the test: only the operation under test writes.
    opts.window_timeout_ms = 3_600_000;
    drop(Store::init(&dir, &opts).unwrap());
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let m = store.code().geometry().parity_count();
    let k = cols - m;
    Scene {
        top,
        cut,
        store,
        k,
        m,
    }
}

/// The disk of power cut `point` laid under `top`, opened with the `failed` OSSs dead and
/// handed to `check`, removed after. Debugging: `POWER_CUT_KEEP=DIR` keeps a copy of the
/// disk checked last (a failing one) at DIR.
fn opened(
    top: &std::path::Path,
    point: &PowerCutPoint,
    failed: &[usize],
    what: &str,
    check: impl FnOnce(Store),
) {
    let laid = top.join("try");
    point.lay(&laid);
    if let Some(keep) = std::env::var_os("POWER_CUT_KEEP") {
        let keep = std::path::Path::new(&keep);
        let _ = std::fs::remove_dir_all(keep);
        copy_tree(&laid, keep);
    }
    check(open_laid(&laid, failed).unwrap_or_else(|e| panic!("{what}: open: {e}")));
    std::fs::remove_dir_all(&laid).unwrap();
}

/// What the operation under test may leave in file "f".
struct Expect<'a> {
    /// "f" as acknowledged before the operation.
    before: &'a [u8],
    /// The operation's own write of "f" (empty: it writes no file bytes) and its bytes.
    write: Range<usize>,
    new: &'a [u8],
    /// The dead-disk sets to open every power cut with (besides every disk).
    failed: Vec<Vec<usize>>,
    /// Dead disks fewer than this lose no acknowledged byte (1: only with every disk).
    lossless_below_dead: usize,
}

/// Run `op` armed, then open every power cut of it and check it (see the module doc).
/// Returns the number of power cuts checked.
fn power_cut_at_every_point(s: Scene, op: impl FnOnce(&Store), expect: &Expect) -> usize {
    let Scene {
        top, cut, store, ..
    } = s;
    // Debugging (POWER_CUT_KEEP): the images stay when a check fails.
    let top = std::mem::ManuallyDrop::new(top);
    cut.arm();
    op(&store);
    cut.last_image();
    drop(store);
    let images = cut.images();
    let last = images.len() - 1;
    let mut after = expect.before.to_vec();
    after[expect.write.clone()].copy_from_slice(expect.new);
    let mut lost_with_dead = 0usize;
    let points = for_each_power_cut(&images, |point| {
        let returned = point.image_index == last;
        let (model, write) = if returned {
            (&after[..], 0..0)
        } else {
            (expect.before, expect.write.clone())
        };
        let new = if write.is_empty() {
            &[][..]
        } else {
            expect.new
        };
        for failed in std::iter::once(vec![]).chain(expect.failed.iter().cloned()) {
            let what = format!("{}, OSS {failed:?} dead", point.what());
            opened(top.path(), point, &failed, &what, |store| {
                let lost = assert_blocks_read_or_lost_on_record(
                    &store,
                    "f",
                    model,
                    write.clone(),
                    new,
                    &what,
                );
                if failed.len() < expect.lossless_below_dead {
                    let acknowledged: Vec<usize> = lost
                        .iter()
                        .copied()
                        .filter(|&at| !(write.start < at + BLOCK_BYTES && at < write.end))
                        .collect();
                    assert!(
                        acknowledged.is_empty(),
                        "{what}: acknowledged blocks at {acknowledged:?} LOST"
                    );
                } else {
                    lost_with_dead += lost.len();
                    if !lost.is_empty() && std::env::var_os("POWER_CUT_SAY").is_some() {
                        eprintln!("{what}: lost {lost:?}");
                    }
                }
            });
        }
    });
    drop(std::mem::ManuallyDrop::into_inner(top));
    eprintln!(
        "{} images, {points} power cuts, {lost_with_dead} blocks named lost with disks dead",
        images.len()
    );
    points
}

/// The OSS of file byte `at`.
fn oss_of(store: &Store, at: usize) -> usize {
    let id = store.file_id("f").unwrap();
    store.layout().locate(id, at as u64).oss
}

/// WCL: "f" of two stripes put; the operation writes `write` of it with new bytes.
fn wcl_write(code: CodeSpec, write: Range<usize>) {
    let s = scene(code, WritePath::Wcl);
    let stripe_bytes = s.k * UNIT;
    let before = pattern(1, 2 * stripe_bytes);
    s.store.put("f", &before).unwrap();
    // A data column the write does not touch, and the written one.
    let beside = oss_of(&s.store, stripe_bytes - 1);
    let written = oss_of(&s.store, write.start);
    assert_ne!(beside, written);
    let mut failed = vec![vec![beside], vec![written]];
    if s.m >= 2 {
        failed.push(vec![beside, written]);
    }
    let new = pattern(2, write.len());
    let expect = Expect {
        before: &before,
        write: write.clone(),
        new: &new,
        failed,
        lossless_below_dead: 1,
    };
    let points = power_cut_at_every_point(
        s,
        |store| store.write("f", write.start as u64, &new).unwrap(),
        &expect,
    );
    assert!(points > 1);
}

#[test]
fn wcl_raid5_power_cut_at_any_point_of_a_write_into_the_cache_zone() {
    // Inside stripe 0, over two data columns: cached, no destage.
    wcl_write(CodeSpec::raid5(3), 1000..UNIT + 2000);
}

#[test]
fn wcl_raid5_power_cut_at_any_point_of_a_write_completing_its_cache_stripe_and_its_destage() {
    // Stripe 0 whole: its cache stripe is complete, the destage follows inline.
    wcl_write(CodeSpec::raid5(3), 0..3 * UNIT);
}

#[test]
fn wcl_raid6_power_cut_at_any_point_of_a_write_completing_its_cache_stripe_and_its_destage() {
    wcl_write(CodeSpec::raid6(3), 0..3 * UNIT);
}

/// WCL: acknowledged bytes in the cache zone moved home by a settle (`flush`).
fn wcl_settle(code: CodeSpec) {
    let s = scene(code, WritePath::Wcl);
    let stripe_bytes = s.k * UNIT;
    let mut before = pattern(1, 2 * stripe_bytes);
    s.store.put("f", &before).unwrap();
    let write = 1000..UNIT + 2000;
    let new = pattern(2, write.len());
    s.store.write("f", write.start as u64, &new).unwrap();
    before[write.clone()].copy_from_slice(&new);
    let beside = oss_of(&s.store, stripe_bytes - 1);
    let written = oss_of(&s.store, write.start);
    let mut failed = vec![vec![beside], vec![written]];
    if s.m >= 2 {
        failed.push(vec![beside, written]);
    }
    let expect = Expect {
        before: &before,
        write: 0..0,
        new: &[],
        failed,
        lossless_below_dead: 1,
    };
    let points = power_cut_at_every_point(s, |store| store.flush().unwrap(), &expect);
    assert!(points > 1);
}

#[test]
fn wcl_raid5_power_cut_at_any_point_of_a_settle() {
    wcl_settle(CodeSpec::raid5(3));
}

/// Delayed: a window written beside the OSS of file byte 0 (every data column of three
/// stripes but that one), its END power cut at every point.
fn end_beside(code: CodeSpec) {
    let s = scene(code, WritePath::Delayed);
    let (k, m) = (s.k, s.m);
    let stripe_bytes = k * UNIT;
    let store = &s.store;
    let mut want = pattern(1, 3 * stripe_bytes + 1000);
    store.put("f", &want).unwrap();
    let dead = oss_of(store, 0);
    let token = store.delayed_start("f").unwrap();
    for stripe in 0..3 {
        for d in 0..k {
            let at = stripe * stripe_bytes + d * UNIT;
            if oss_of(store, at) == dead {
                continue;
            }
            let (a, z) = if stripe == 2 {
                (at, at + UNIT)
            } else {
                (at + 500, at + 3500)
            };
            let new = pattern(10 + (stripe * k + d) as u64, z - a);
            store.write("f", a as u64, &new).unwrap();
            want[a..z].copy_from_slice(&new);
        }
    }
    // Dead: the column beside the window, then as many window columns as the code has
    // parities left.
    let mut failed = vec![vec![dead]];
    for d in 1..m {
        let mut more = failed.last().unwrap().clone();
        more.push(oss_of(store, d * UNIT));
        failed.push(more);
    }
    // The window's own bytes have no parity until END: a dead window column loses them
    // (named LOST); the dead column beside the window alone loses nothing.
    let expect = Expect {
        before: &want,
        write: 0..0,
        new: &[],
        failed,
        lossless_below_dead: 2,
    };
    let points = power_cut_at_every_point(
        s,
        |store| {
            store.delayed_end(&token).unwrap();
            assert_eq!(store.status().unwrap().bytes_unprotected, 0);
        },
        &expect,
    );
    assert!(points > 1);
}

#[test]
fn raid6_power_cut_at_any_point_of_end_beside_dead_disks() {
    end_beside(CodeSpec::raid6(3));
}

#[test]
fn rs_3_3_power_cut_at_any_point_of_end_beside_dead_disks() {
    end_beside(CodeSpec::rs(3, 3));
}

/// The first change after an open bumps the metadata epoch and tells every OSS (their epoch
/// files): a `put` right after the open, power cut at every point, the OSS epoch files kept
/// or dropped with each OSS's other unsynced writes. "f" is absent (the put never
/// acknowledged) or reads the put's bytes, never other bytes; with every disk nothing is
/// lost after the put returned; the open never refuses.
#[test]
fn raid5_power_cut_at_any_point_of_the_first_put_after_an_open_and_its_epoch_telling() {
    let s = scene(CodeSpec::raid5(3), WritePath::Rmw);
    let Scene {
        top, cut, store, k, ..
    } = s;
    let new = pattern(3, 2 * k * UNIT - 700);
    cut.arm();
    store.put("f", &new).unwrap();
    cut.last_image();
    drop(store);
    assert!(
        cut.epochs_told.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the put's first record told the OSSs a new epoch"
    );
    let images = cut.images();
    let last = images.len() - 1;
    let mut present = 0;
    let points = for_each_power_cut(&images, |point| {
        for failed in [vec![], vec![1]] {
            let what = format!("{}, OSS {failed:?} dead", point.what());
            opened(top.path(), point, &failed, &what, |store| {
                let returned = point.image_index == last;
                if store.list().iter().any(|(name, _)| name == "f") {
                    present += 1;
                    let lost =
                        assert_blocks_read_or_lost_on_record(&store, "f", &new, 0..0, &[], &what);
                    assert!(
                        !(returned && failed.is_empty()) || lost.is_empty(),
                        "{what}: acknowledged blocks at {lost:?} LOST"
                    );
                } else {
                    assert!(!returned, "{what}: the put returned, 'f' is gone");
                }
            });
        }
    });
    assert!(points > 1 && present > 0);
    eprintln!(
        "{} images, {points} power cuts, 'f' there in {present}",
        images.len()
    );
}

/// A rebuild in place of OSS `x` (failed, with acknowledged bytes in the cache zone and
/// bytes written while it was failed), power cut at every point before its closing
/// checkpoint; the next open reruns it, as the CLI advises. Before the rerun (reads decode
/// around `x`) and after it every acknowledged byte reads back; with every other disk
/// nothing is lost; with `also_dead` dead too (its disk died with the power cut), bytes
/// read back or are named LOST.
fn rebuild_rerun(code: CodeSpec, also_dead: &[usize]) {
    let s = scene(code, WritePath::Wcl);
    let Scene {
        top,
        cut,
        mut store,
        k,
        ..
    } = s;
    let stripe_bytes = k * UNIT;
    let mut want = pattern(1, 2 * stripe_bytes);
    store.put("f", &want).unwrap();
    let cached = 1000..UNIT + 2000;
    let new = pattern(2, cached.len());
    store.write("f", cached.start as u64, &new).unwrap();
    want[cached].copy_from_slice(&new);
    let x = oss_of(&store, 2 * UNIT);
    store.fail_oss(x).unwrap();
    let while_failed = stripe_bytes + 2 * UNIT + 100..stripe_bytes + 2 * UNIT + 900;
    let new = pattern(3, while_failed.len());
    store.write("f", while_failed.start as u64, &new).unwrap();
    want[while_failed].copy_from_slice(&new);
    assert!(!also_dead.contains(&x));

    let top = std::mem::ManuallyDrop::new(top);
    cut.arm();
    store.rebuild(x, None).unwrap();
    cut.disarm();
    drop(store);
    let images = cut.images();
    let mut lost_with_dead = 0;
    let points = for_each_power_cut(&images, |point| {
        for failed in [vec![], also_dead.to_vec()] {
            let what = format!("{}, OSS {failed:?} dead", point.what());
            opened(top.path(), point, &failed, &what, |mut store| {
                let lost = assert_blocks_read_or_lost_on_record(
                    &store,
                    "f",
                    &want,
                    0..0,
                    &[],
                    &format!("{what}, before the rerun"),
                );
                assert!(
                    !failed.is_empty() || lost.is_empty(),
                    "{what}: before the rerun, acknowledged blocks at {lost:?} LOST"
                );
                store
                    .rebuild(x, None)
                    .unwrap_or_else(|e| panic!("{what}: the rebuild's rerun: {e}"));
                let lost = assert_blocks_read_or_lost_on_record(
                    &store,
                    "f",
                    &want,
                    0..0,
                    &[],
                    &format!("{what}, after the rerun"),
                );
                if failed.is_empty() {
                    assert!(
                        lost.is_empty(),
                        "{what}: after the rerun, acknowledged blocks at {lost:?} LOST"
                    );
                    assert!(
                        store.scrub(false).unwrap().parity_mismatches.is_empty(),
                        "{what}: after the rerun, the parity matches the data"
                    );
                } else {
                    lost_with_dead += lost.len();
                    if !lost.is_empty() && std::env::var_os("POWER_CUT_SAY").is_some() {
                        eprintln!("{what}: lost {lost:?}");
                    }
                }
            });
        }
    });
    drop(std::mem::ManuallyDrop::into_inner(top));
    assert!(points > 1);
    eprintln!(
        "{} images, {points} power cuts, {lost_with_dead} blocks named lost with disks dead",
        images.len()
    );
}

#[test]
fn wcl_raid5_power_cut_at_any_point_of_a_rebuild_then_its_rerun() {
    rebuild_rerun(CodeSpec::raid5(3), &[]);
}

#[test]
fn wcl_raid6_power_cut_at_any_point_of_a_rebuild_then_its_rerun_beside_a_dead_disk() {
    rebuild_rerun(CodeSpec::raid6(3), &[0]);
}
