//! Review r48b (of s48b's `old_in_pages`): a power cut ALONE (nothing stale) of a WCL
//! write over a cache block whose bytes outside its live (acknowledged) ranges are not
//! zeros on disk: a REUSED cache chunk (bytes of an older cache stripe), and also a fresh
//! one (traced: element 1's block 0, live 0..1000, holds 2801 nonzero bytes at 1000..3808).
//! The write's page-cut record's "old" crcs are of the slot as the write read it (those
//! bytes included), while the old version of the row is the planner's view, masked to its
//! live ranges (zeros there): the told crc fails on the TRUE old row. Every acknowledged
//! byte must read its last acknowledged value; a crash alone should lose no more than
//! before s48b.

use crate::common::*;
use crate::powercut::*;

use exaraid_codes::CodeSpec;

/// Stripe 0 of "f" filled through the cache (moved home, chunks freed, checkpoint:
/// handed out again) when `reuse`, then a first write over `0..first` (and `second`,
/// where given), then the cut
/// write `cut_write`, every power cut of `out_of_order`, NOTHING stale. Returns (cuts,
/// WRONG problems, LOST cuts).
pub(crate) fn cut_write_into_reused_chunks(
    code: CodeSpec,
    element: usize,
    reuse: bool,
    first: usize,
    second: Option<std::ops::Range<usize>>,
    cut_write: std::ops::Range<usize>,
    out_of_order: Option<OutOfOrder>,
) -> (usize, Vec<String>, Vec<Vec<usize>>) {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let mut write = |store: &exaraid_store::Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    if reuse {
        // The whole stripe through the cache in two writes: complete, moved home, its
        // chunks freed; the checkpoint restarts the planner, which hands them out again.
        write(&store, 0, 7, stripe_bytes / 2);
        write(&store, stripe_bytes / 2, 8, stripe_bytes - stripe_bytes / 2);
        store.checkpoint().unwrap();
    }
    write(&store, 0, 3, first);
    if let Some(second) = second {
        write(&store, second.start, 9, second.len());
    }
    let before = before;
    let (points, problems, losses) = cut_write_at_every_power_cut(
        top.path(),
        &cut,
        store,
        &format!("{:?}", code.kind),
        &before,
        cut_write,
        out_of_order,
    );
    (points, problems, losses)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| v.parse().unwrap())
        .unwrap_or(default)
}

/// Probe: `R48B_CODE` (a `code_of_env` spec, raid6:4 where unset), `R48B_E`,
/// `R48B_REUSE=0|1`, `R48B_FIRST`, `R48B_WRITE=a+n`, `R48B_SEED`.
#[test]
#[ignore = "probe"]
fn probe_r48b_reused_chunks() {
    let e = env_usize("R48B_E", 2 * UNIT);
    let code = code_of_env("R48B_CODE", "raid6:4");
    let (a, n) = std::env::var("R48B_WRITE")
        .ok()
        .map(|v| {
            let (a, n) = v.split_once('+').unwrap();
            (a.parse().unwrap(), n.parse().unwrap())
        })
        .unwrap_or((12000, 12000));
    let (points, problems, losses) = cut_write_into_reused_chunks(
        code,
        e,
        env_usize("R48B_REUSE", 1) == 1,
        env_usize("R48B_FIRST", e + 2000),
        std::env::var("R48B_SECOND").ok().map(|v| {
            let (a, n) = v.split_once('+').unwrap();
            let (a, n): (usize, usize) = (a.parse().unwrap(), n.parse().unwrap());
            a..a + n
        }),
        a..a + n,
        Some(OutOfOrder {
            subsets_per_image: 16,
            seed: env_usize("R48B_SEED", 1) as u64,
            pages: true,
            only: false,
        }),
    );
    eprintln!(
        "probe: {points} cuts, {} WRONG, {} LOST",
        problems.len(),
        losses.len()
    );
}

/// Review r48b MEDIUM-1: a power cut ALONE (nothing stale, fresh cache chunks) of the
/// write 12000+12000 over raid6:4 at 8 KiB, beside blocks acknowledged in part: element 1
/// acknowledged over 0..1000 (the first write 0..9192), element 2 over 0..3000 (a second
/// write 16384+3000); the cut write extends element 1's block 0 (3808..4096, page
/// boundary at 4072) and overwrites element 2's acknowledged bytes. Every cut of
/// `16,1,pages` seed 1. On 3ab4cbf7 2 cuts LOST (#58, #61: older than s48b); on s48b cut
/// #54 too: blocks at [0, 8192, 16384] LOST, the row read right before. Element 1's block 0
/// torn (its tail's page kept, head dropped): `old_in_pages` tells the OLD version the
/// page-cut record's old head crc, which is of the slot's raw bytes as the write read
/// them, while the old version's decode is the planner's view, zeros outside the block's
/// live (acknowledged) ranges: the crc fails, `version_check` says `Some(None)`, the
/// `confirms` arm's `every_world_old_refuted` (with `in_pages`) refuted the TRUE row;
/// since the lead's mend a side's told crc is used only inside the live ranges.
#[test]
fn raid6_8k_cut_write_extending_a_partly_acknowledged_block_crash_alone_loses_no_more_than_before()
{
    let (points, problems, losses) = cut_write_into_reused_chunks(
        CodeSpec::raid6(4),
        2 * UNIT,
        false,
        UNIT * 2 + 1000,
        Some(16384..16384 + 3000),
        12000..24000,
        Some(OutOfOrder {
            subsets_per_image: 16,
            seed: 1,
            pages: true,
            only: false,
        }),
    );
    assert_eq!(points, 69, "the scene's cuts");
    assert!(
        problems.is_empty(),
        "a power cut alone read wrong: {problems:?}"
    );
    assert!(
        losses.len() <= 2,
        "a power cut alone lost more cuts than on 3ab4cbf7 (2: #58, #61): {}: {losses:?}",
        losses.len()
    );
}
