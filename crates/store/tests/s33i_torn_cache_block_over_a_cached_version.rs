//! s33i (s33f's finding 2 in docs/results/s33-s33f-out-of-order-power-cuts.md): a WCL cache
//! block torn by a crash ALONE (kill -9, no power cut) over a stripe the cache already
//! holds. Scene (s30r R30-1's, as `power_cut_out_of_order_probes.rs`): raid6 4+2, WCL,
//! 4 KiB unit, `f` put over two stripes, then acknowledged writes at 100 and 2 units + 100
//! (home stripe 0 cached), then the write 4000+200 killed at its `n`-th block write in plan
//! order: torn (`write-torn-block`: new payload, old checksum), cut at a page boundary
//! (`write-page-cut`), or before it (`write-before-block`).
//!
//! Specification: a crash alone is one fault; after the open and after a flush every byte
//! of `f` reads as acknowledged, or inside the killed write's range as it wrote it; nothing
//! LOST, no wrong byte.
//!
//! Why (s33i, step 2 of s33f's finding 2): the power cut of
//! `power_cut_out_of_order_probes.rs` that lost block 0 here tears the write's first block
//! write (cache slot 1, zone file bytes 4100..8200) by keeping page 2 (the payload's last 4
//! bytes and the NEW checksum) and dropping page 1 (the rest of the payload). A kill cannot
//! leave that: a block write is one pwrite of its payload, then one of its checksums, and a
//! SIGKILL stops a pwrite at a page boundary with its head written. These sweeps are the
//! kills' side of that claim: each kill of the write (6 block writes per point) read every
//! byte on 8b60df4 + b833910 already, before s33i's rule.
//!
//! Why a child process: `EXARAID_KILL_AT` is read once per process, so the write runs in a
//! child (this same test binary, the helper test below) and the parent opens what the kill
//! left.

mod common;
use common::*;

use std::path::Path;
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const WRITE_AT: usize = 4000;
const WRITE_BYTES: usize = 200;
/// Past every block write of the write (6 columns, a cache row and its running parities).
const KILL_POINTS_MAX: u64 = 24;
const CHILD_DIR_ENV: &str = "S33I_TORN_CACHE_BLOCK_CHILD_DIR";

fn new_bytes() -> Vec<u8> {
    bytes_of(1000, WRITE_AT as u64, WRITE_BYTES as u64)
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

/// The scene before the killed write, at `<top>/store`: `(dir, acknowledged bytes of f)`.
fn scene(code: CodeSpec, top: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let dir = top.join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = exaraid_store::InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = UNIT;
    opts.write_path = WritePath::Wcl;
    opts.window_timeout_ms = 3_600_000;
    let store = Store::init(&dir, &opts).unwrap();
    let stripe_bytes = store.layout().stripe_data_bytes() as usize;
    assert!(WRITE_AT + WRITE_BYTES <= 2 * stripe_bytes);
    let base = put_f_with_two_acknowledged_writes(&store, stripe_bytes);
    drop(store);
    (dir, base)
}

/// Kill the write at `point:n`; `false` when it ran to its end (no `n`-th block write).
fn killed_at(dir: &Path, point: &str, n: u64) -> bool {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_process_helper_write_killed",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_DIR_ENV, dir)
        .env(exaraid_store::torture::KILL_AT_ENV, format!("{point}:{n}"))
        .env(exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV, "1")
        .output()
        .unwrap();
    if out.status.success() {
        return false;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("killed at {point}")),
        "{point}:{n}: the child failed without the kill: {err}"
    );
    true
}

/// Every kill of the write at `point`: `(n, blocks LOST)` of the kills that lost any.
fn kills_losing_blocks(code: CodeSpec, point: &str) -> Vec<(u64, Vec<usize>)> {
    let mut losses = Vec::new();
    let mut killed = 0u64;
    for n in 1..=KILL_POINTS_MAX {
        let top = scratch();
        let (dir, base) = scene(code, top.path());
        if !killed_at(&dir, point, n) {
            break;
        }
        killed += 1;
        let mut flight = vec![None; base.len()];
        for (j, &b) in new_bytes().iter().enumerate() {
            flight[WRITE_AT + j] = Some(b);
        }
        let what = format!("{code}: killed at {point}:{n}");
        let store = Store::open(&dir).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let lost = lost_blocks_across_a_flush(&store, &base, &flight, &what);
        if !lost.is_empty() {
            eprintln!("{what}: blocks at {lost:?} LOST");
            losses.push((n, lost));
        }
    }
    eprintln!(
        "{code}: {point} killed the write {killed} times, {} losing",
        losses.len()
    );
    assert!(
        killed >= 1,
        "{code}: {point} killed the write {killed} times"
    );
    assert!(
        killed < KILL_POINTS_MAX,
        "{code}: {point}: the write has more block writes than the sweep covers"
    );
    losses
}

/// The first block write of the write is the cache block of data column 0 (cache slot 0:
/// its payload in the zone file's page 0, its checksum in page 1). Torn there, its new
/// payload lies under the checksum of the cached version before it (the write at 100).
#[test]
fn raid6_wcl_cache_block_torn_by_a_kill_over_a_cached_version_loses_no_acknowledged_byte() {
    let losses = kills_losing_blocks(CodeSpec::raid6(4), exaraid_store::torture::WRITE_TORN_BLOCK);
    assert!(losses.is_empty(), "kills losing blocks: {losses:?}");
}

#[test]
fn raid6_wcl_cache_block_cut_at_a_page_by_a_kill_over_a_cached_version_loses_no_acknowledged_byte()
{
    let losses = kills_losing_blocks(CodeSpec::raid6(4), exaraid_store::torture::WRITE_PAGE_CUT);
    assert!(losses.is_empty(), "kills losing blocks: {losses:?}");
}

#[test]
fn raid6_wcl_write_killed_before_a_block_write_over_a_cached_version_loses_no_acknowledged_byte() {
    let losses = kills_losing_blocks(
        CodeSpec::raid6(4),
        exaraid_store::torture::WRITE_BEFORE_BLOCK,
    );
    assert!(losses.is_empty(), "kills losing blocks: {losses:?}");
}
