#![allow(dead_code)]
//! The scene of power_cut_client_write_stale_cache.rs (s19f), shared with its sequels: a
//! WCL cache stripe holds a stale element (its OSS lost a write: old bytes under valid
//! checksums) and a client write into another column of the same cache stripe is cut by a
//! power cut at every point; optionally an OSS holding acknowledged cached bytes of that
//! cache stripe dies with the power cut (failed on record before recovery). A test module
//! that uses it also declares `common` and `powercut`.

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::Store;

use crate::common::*;
use crate::powercut::*;

/// Which data column of cache stripe 0 dies with the power cut, if any (column d holds file
/// bytes d*UNIT..).
#[derive(Clone, Copy, Debug)]
pub struct Scene {
    pub code: CodeSpec,
    pub failed_data: Option<usize>,
}

/// Runs the scene; returns the power cuts checked. After the next open and a settle (the
/// open's recovery, or `flush` where no plan was cut), every acknowledged block reads its
/// bytes or is named LOST on record (none outside the stale cache stripe), and the stale
/// element's block never reads the stale bytes with success.
pub fn power_cut_client_write_beside_stale_cache(scene: Scene) -> usize {
    let failed_data: Vec<usize> = scene.failed_data.into_iter().collect();
    power_cut_client_write_beside_stale_cache_and_failed(scene.code, &failed_data, &[])
}

/// The scene with the OSSs of data columns `failed_data` and parity columns
/// `failed_parity` of cache stripe 0 dead after the power cut (session 22: as many as the
/// code tolerates).
pub fn power_cut_client_write_beside_stale_cache_and_failed(
    code: CodeSpec,
    failed_data: &[usize],
    failed_parity: &[usize],
) -> usize {
    power_cut_client_write_beside_stale_cache_and_failed_at(
        code,
        failed_data,
        failed_parity,
        Cuts::All,
    )
}

/// Which power cuts of the scene are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cuts {
    All,
    /// Those whose journal holds the client write cut (some of its records, not its
    /// `Durable`): recovery decides its cache stripe.
    WriteInFlight,
    /// The rest: the journal holds none of the write, or all of it (nothing in flight; the
    /// flush's check decides the cache stripe).
    NothingInFlight,
    /// The one power cut at this index in `for_each_power_cut`'s order (out-of-order cuts
    /// are seeded: a probe's failing cut pinned as a test).
    Nth(usize),
}

/// The scene checked only at the power cuts `cuts` takes.
pub fn power_cut_client_write_beside_stale_cache_and_failed_at(
    code: CodeSpec,
    failed_data: &[usize],
    failed_parity: &[usize],
    cuts: Cuts,
) -> usize {
    let cut_write = 2 * UNIT..3 * UNIT;
    power_cut_client_write_over_beside_stale_cache(
        code,
        (failed_data, failed_parity),
        cuts,
        cut_write,
    )
}

/// The scene with the write under test over file bytes `cut_write` (s28c: the tail of data
/// element 2 and the head of element 3, whose running parity delta has two runs in one
/// block) in place of element 2 whole.
pub fn power_cut_client_write_over_beside_stale_cache(
    code: CodeSpec,
    failed: (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
) -> usize {
    let (points, problems) = power_cut_client_write_over_beside_stale_cache_problems(
        code, failed, cuts, cut_write, false,
    );
    assert!(problems.is_empty());
    points
}

/// The scene of `power_cut_client_write_over_beside_stale_cache`, every power cut checked
/// and each broken rule returned (`collect`: the panic's message, one per power cut) rather
/// than the first one panicking (s30c: to compare two builds point by point).
pub fn power_cut_client_write_over_beside_stale_cache_problems(
    code: CodeSpec,
    failed: (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
    collect: bool,
) -> (usize, Vec<String>) {
    let stale = Stale {
        element_bytes: UNIT,
        lost_write: 0..2 * UNIT,
    };
    power_cut_client_write_beside_stale_bytes_problems(
        code, stale, failed, cuts, cut_write, collect,
    )
}

/// The stale element's shape: the element size, and the file bytes of the earlier write
/// the stale OSS loses (inside data elements 0 and 1 of stripe 0; it lands on data element
/// 1's OSS, whose cache zone is put back as it was before the write).
#[derive(Clone, Debug)]
pub struct Stale {
    pub element_bytes: usize,
    pub lost_write: std::ops::Range<usize>,
}

/// The scene's problems (each printed) in plan order with no OSS failed, every power cut
/// checked: the stale OSS lost the write over bytes `stale_bytes` of data element 1 (of
/// `element_bytes`), and the client write over file bytes `cut_write` is cut (s31b's and
/// s32a's xcode scenes). More than one power cut is checked.
pub fn stale_bytes_problems_in_plan_order(
    code: CodeSpec,
    element_bytes: usize,
    stale_bytes: std::ops::Range<usize>,
    cut_write: std::ops::Range<usize>,
) -> Vec<String> {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let stale = Stale {
        element_bytes,
        lost_write: element_bytes + stale_bytes.start..element_bytes + stale_bytes.end,
    };
    let (checked, problems) = power_cut_client_write_beside_stale_bytes_problems(
        code,
        stale,
        (&[], &[]),
        Cuts::All,
        cut_write,
        true,
    );
    assert!(checked > 1);
    for p in &problems {
        eprintln!("PROBLEM {p}");
    }
    problems
}

/// `power_cut_client_write_over_beside_stale_cache_problems` with the stale element's shape
/// given (s31b: stale bytes only inside a part of a block row, at 16 KiB elements).
pub fn power_cut_client_write_beside_stale_bytes_problems(
    code: CodeSpec,
    stale: Stale,
    failed: (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
    collect: bool,
) -> (usize, Vec<String>) {
    power_cut_client_write_beside_stale_bytes_or_alone_problems(
        code, stale, failed, cuts, cut_write, collect, true,
    )
}

/// The same; `stale_lost`: false keeps the stale OSS's second write (no stale element: the
/// power cut alone, whose losses a rule's cost in right reads is measured by, r38a).
pub fn power_cut_client_write_beside_stale_bytes_or_alone_problems(
    code: CodeSpec,
    stale: Stale,
    failed: (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
    collect: bool,
    stale_lost: bool,
) -> (usize, Vec<String>) {
    let first_write_bytes = 2 * stale.element_bytes;
    power_cut_client_write_beside_stale_bytes_after_first_write_problems(
        code,
        stale,
        failed,
        cuts,
        cut_write,
        collect,
        stale_lost,
        first_write_bytes,
        OutOfOrder::from_env(),
    )
}

/// The same, the cache stripe's first acknowledged write over file bytes
/// `0..first_write_bytes` (at least data elements 0 and 1; past them the cut write may
/// overwrite acknowledged bytes: review r39b MEDIUM-3's overwrite variant), and the
/// power cut's out-of-order model `out_of_order` (given, not read from the process-wide
/// environment: a pinned cut beside other tests of its binary).
#[allow(clippy::too_many_arguments)]
pub fn power_cut_client_write_beside_stale_bytes_after_first_write_problems(
    code: CodeSpec,
    stale: Stale,
    failed: (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
    collect: bool,
    stale_lost: bool,
    first_write_bytes: usize,
    out_of_order: Option<OutOfOrder>,
) -> (usize, Vec<String>) {
    let (points, problems, _losses) =
        power_cut_client_write_beside_stale_bytes_after_first_write_problems_and_losses(
            code,
            stale,
            failed,
            cuts,
            cut_write,
            collect,
            stale_lost,
            first_write_bytes,
            out_of_order,
        );
    (points, problems)
}

/// The same, with the acknowledged blocks (file offsets) each checked power cut names LOST
/// on record (one entry per cut that names any: the probe's `LOST-CUT` lines), so that a
/// pinned cut of a power cut ALONE can require none (s44a).
#[allow(clippy::too_many_arguments)]
pub fn power_cut_client_write_beside_stale_bytes_after_first_write_problems_and_losses(
    code: CodeSpec,
    stale: Stale,
    (failed_data, failed_parity): (&[usize], &[usize]),
    cuts: Cuts,
    cut_write: std::ops::Range<usize>,
    collect: bool,
    stale_lost: bool,
    first_write_bytes: usize,
    out_of_order: Option<OutOfOrder>,
) -> (usize, Vec<String>, Vec<Vec<usize>>) {
    images_in_plan_order();
    let element = stale.element_bytes;
    assert!(
        first_write_bytes >= 2 * element,
        "the first write covers data elements 0 and 1"
    );
    assert!(element % 4096 == 0, "whole checksum blocks per element");
    assert!(
        stale.lost_write.end <= 2 * element && stale.lost_write.end > element,
        "the lost write is on data element 1 (and maybe 0)"
    );
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let data_cols = stripe_bytes / element;
    assert!(data_cols >= 3, "the scene needs three data columns");

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    assert!(
        object_file(&dir, 0, "0.data").exists() || object_file(&dir, 0, "0.parity").exists(),
        "the scene: 'f' is object 0"
    );
    // Data element 1 of stripe 0 goes stale.
    let stale_oss = layout.oss_of(0, 0, layout.geometry().data_pos[1].col);
    let g = layout.geometry();
    let failed: Vec<usize> = (failed_data.iter().map(|&d| g.data_pos[d].col))
        .chain(failed_parity.iter().map(|&q| g.parity_pos[q].col))
        .map(|col| layout.oss_of(0, 0, col))
        .collect();
    assert!(
        !failed.contains(&stale_oss),
        "the scene: the failed OSS is not the stale one"
    );
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    // Elements 0 and 1 of stripe 0 in the cache zone, twice; the stale OSS loses the second.
    assert!(first_write_bytes <= stripe_bytes, "inside cache stripe 0");
    write(&store, 0, 3, first_write_bytes);
    let zone_file = object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    let lost = stale.lost_write.clone();
    write(&store, lost.start, 5, lost.len());
    if stale_lost {
        std::fs::write(&zone_file, &snapshot).unwrap();
    }
    let before = before;

    // The write under test: element 2 of the same cache stripe, the stripe still not whole.
    cut.cut_journal_since_previous_call();
    let journal_before_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    assert!(
        cut_write.start >= 2 * element && cut_write.end <= stripe_bytes,
        "the write under test stays off the stale element, inside cache stripe 0"
    );
    let new = pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    // The write is done on record where the journal holds its `Durable` record.
    let write_done_bytes = durable_record_end_after(&dir.join("journal"), journal_before_bytes);
    drop(store);

    let stale_range = element..2 * element;
    let images = cut.images();
    let mut points = 0;
    let mut problems = Vec::new();
    let mut losses: Vec<Vec<usize>> = Vec::new();
    let mut index = 0;
    for_each_power_cut_with(&images, out_of_order, |point| {
        let in_flight =
            (journal_before_bytes + 1..write_done_bytes).contains(&point.journal_cut_bytes);
        index += 1;
        let checked = match cuts {
            Cuts::All => true,
            Cuts::WriteInFlight => in_flight,
            Cuts::NothingInFlight => !in_flight,
            Cuts::Nth(n) => index - 1 == n,
        };
        if !checked {
            return;
        }
        points += 1;
        let what = format!(
            "{:?} failed {failed:?}: cut #{}: {}",
            code.kind,
            index - 1,
            point.what()
        );
        let laid = top.path().join("try");
        point.lay(&laid);
        let mut check = || {
            // A stale element in the cache stripe is the lost-write class, caught by the flush
            // when it moves home; where its column cannot be located the flush names its
            // blocks lost (on record, checked below).
            let (store, lost) =
                open_laid_flush_and_read(&laid, &failed, &before, cut_write.clone(), &new, &what);
            // Printed so a sweep counts the cuts that name a loss (LOST on record is allowed
            // here, but a rule's cost in LOSS is measured by it: s34a).
            if !lost.is_empty() {
                eprintln!("LOST-CUT {what}: blocks at {lost:?}");
                losses.push(lost.clone());
            }
            let outside: Vec<usize> = (lost.into_iter())
                .filter(|&at| at >= stripe_bytes)
                .collect();
            assert!(
                outside.is_empty(),
                "{what}: acknowledged blocks at {outside:?} outside the stale cache stripe LOST"
            );
            let got = store.read("f", stale_range.start as u64, element as u64);
            if let Ok(got) = got {
                assert!(
                    got == before[stale_range.clone()],
                    "{what}: the stale element read with success"
                );
            }
            drop(store);
        };
        if collect {
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
            if let Err(panic) = caught {
                let said = crate::common::panic_message(&*panic);
                problems.push(said);
            }
        } else {
            check();
        }
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{code:?} failed {failed:?}: {} images, {points} power cuts checked",
        images.len()
    );
    (points, problems, losses)
}
