//! Review s34r: ONE power cut (no stale element, no failed OSS before it) during an rmw
//! client write, a delayed window's END, its timeout or its parity advance past the bound,
//! under the power-cut model's out-of-order mode (`powercut::OutOfOrder`, s33f) and its
//! all-or-none mode. One power cut is one fault: no
//! acknowledged byte may be lost; with one more disk lost after the cut, still none within
//! the code's tolerance (raid5's END promise: its parity crcs are durable before its first
//! parity write, store_window_end_crash_dead_disk.rs).
//!
//! Scene (s30r R30-1's, copied from power_cut_out_of_order_probes.rs, not edited there): a
//! store of 4 KiB units without a window timeout; `f` put over two stripes, then writes of
//! one unit at 100 and at 2 units + 100 acknowledged; then, armed (an image before each
//! mutating backend call, steps in plan order: the same images on every run), the cut
//! operation. At each cut: lay, lose the disks named, open with them down, read every 4 KiB
//! block (each byte acknowledged, or the cut write's where it was in flight), `flush`,
//! read again. WRONG BYTES panics; a block read LOST holding acknowledged bytes is counted.
//!
//! Findings (docs/reviews/session34-r.md):
//! - R34-1: a home data block whose checksum landed over its OLD payload. Home slots are
//!   4,100 bytes (payload, then its checksum), so slot 0's checksum shares the zone file's
//!   page 1 with slot 1's payload: a page cache that writes back page 1 (with a later
//!   write of slot 1, or alone) and not page 0 leaves block 0's old payload under its new
//!   checksum. The block's acknowledged bytes (outside the write's range) are on disk,
//!   and provable: on raid6 and rs the new checksum is the crc32c of the payload outside
//!   the write's range combined with the crc the write journaled for its part of the block
//!   (`Rec::WriteCrcs`); on any code, where nothing else of the write landed, a decode of
//!   the other columns equals the payload at every acknowledged byte. Recovery reads the
//!   block as rotten and records its acknowledged bytes LOST. s33i's rule covers the WCL
//!   cache slot only.
//! - R34-2: END cut, then one data OSS lost (its column untouched by the window): raid5,
//!   xcode, dcode and hdp lose that column at kill-like cuts (all or none); raid6 where OSS
//!   4 kept the first piece of P and dropped the second while Q's first piece landed (out
//!   of order).
//! - R34-3: the parity advance past the bound on unprotected bytes, cut, then one data OSS
//!   lost: hdp (one kill-like cut) and xcode lose acknowledged blocks.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{StoreError, WritePath};

/// Which operation the power cut cuts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// One client write (never acknowledged at the cut but at the last image).
    Write,
    /// A delayed window's END; the window's write acknowledged before the arm.
    End,
    /// A window's timeout (its END never came): the window's write acknowledged, the
    /// timeout (`TIMEOUT_MS`) passed, then `tick` (what a background worker or the next
    /// command does) computes the parity, cut. Probe only: the setup must beat the timeout.
    Timeout,
    /// No operation cut: the window's write acknowledged, its window still open, then the
    /// power cut (one image: the disk as the write left it; R34-2's array codes' control).
    WindowOpen,
    /// A window write past the bound on unprotected bytes (`BOUND_BYTES`): with no
    /// background worker it advances the window's parity itself before it returns. The
    /// window holds 2296+3141 acknowledged before the arm; the cut write is `write`.
    Bound,
}

/// The bound on unprotected bytes of `Op::Bound`: above the window's first write (3141
/// bytes), below it plus the cut write.
const BOUND_BYTES: u64 = 4096;
/// The window timeout of `Op::Timeout`'s store at its first try (the other ops: an hour).
const TIMEOUT_MS: u64 = 1500;
/// `Op::Timeout`'s tries: where the setup (the window's write) outlives the timeout (a
/// loaded machine), the scene is built again with the timeout doubled, so the probe's
/// meaning (the timeout fires at `tick`, after the arm) holds at any machine speed; a
/// machine slower than this many doublings fails the setup's assertion.
const TIMEOUT_TRIES_MAX: u32 = 5;
/// `Op::Bound`'s first window write, acknowledged before the arm.
const BOUND_FIRST: std::ops::Range<usize> = 2296..5437;

/// The scene's images and what each cut must read.
struct Scene {
    top: tempfile::TempDir,
    images: Vec<PowerCutImage>,
    /// Acknowledged bytes at a cut before the last image.
    base: Vec<u8>,
    /// Acknowledged bytes at the last image (the cut write returned).
    after: Vec<u8>,
    /// Per byte, the cut write's byte where it was in flight.
    flight: Vec<Option<u8>>,
}

fn scene(code: CodeSpec, path: WritePath, op: Op, write: std::ops::Range<usize>) -> Scene {
    if op != Op::Timeout {
        return scene_with_timeout(code, path, op, write, 3_600_000)
            .expect("no timeout within the hour");
    }
    (0..TIMEOUT_TRIES_MAX)
        .find_map(|t| scene_with_timeout(code, path, op, write.clone(), TIMEOUT_MS << t))
        .unwrap_or_else(|| {
            panic!(
                "setup: the window timed out before the probe meant it to at every timeout up to {} ms",
                TIMEOUT_MS << (TIMEOUT_TRIES_MAX - 1)
            )
        })
}

/// `scene` on a store whose window timeout is `timeout_ms`; `None` where `Op::Timeout`'s
/// setup outlived it (the window could time out before the arm).
fn scene_with_timeout(
    code: CodeSpec,
    path: WritePath,
    op: Op,
    write: std::ops::Range<usize>,
    timeout_ms: u64,
) -> Option<Scene> {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let path = if op == Op::Write {
        path
    } else {
        WritePath::Delayed
    };
    let (top, dir, layout) = init_with_bound(code, path, timeout_ms);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(write.end <= 2 * stripe_bytes, "the cut write inside `f`");
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut base = put_f_with_two_acknowledged_writes(&store, stripe_bytes);
    let new = bytes_of(1000, write.start as u64, write.len() as u64);
    let mut after = base.clone();
    after[write.clone()].copy_from_slice(&new);
    let mut flight = vec![None; base.len()];
    match op {
        Op::Write => {
            for (j, &b) in new.iter().enumerate() {
                flight[write.start + j] = Some(b);
            }
            cut.arm();
            store.write("f", write.start as u64, &new).unwrap();
            cut.last_image();
        }
        Op::End => {
            let window = store.delayed_window("f").unwrap();
            store.write("f", write.start as u64, &new).unwrap();
            // A window's bytes are acknowledged by its write; END only computes parity.
            base = after.clone();
            cut.arm();
            window.end().unwrap();
            cut.last_image();
        }
        Op::Timeout => {
            let started = std::time::Instant::now();
            let _window = store.delayed_window("f").unwrap();
            store.write("f", write.start as u64, &new).unwrap();
            if started.elapsed() >= std::time::Duration::from_millis(timeout_ms) {
                eprintln!("setup outlived the window timeout of {timeout_ms} ms: built again");
                return None;
            }
            base = after.clone();
            std::thread::sleep(std::time::Duration::from_millis(timeout_ms + 200));
            cut.arm();
            store.tick().unwrap();
            cut.last_image();
        }
        Op::WindowOpen => {
            let _window = store.delayed_window("f").unwrap();
            store.write("f", write.start as u64, &new).unwrap();
            base = after.clone();
            cut.arm();
            cut.last_image();
        }
        Op::Bound => {
            let _window = store.delayed_window("f").unwrap();
            let first = bytes_of(999, BOUND_FIRST.start as u64, BOUND_FIRST.len() as u64);
            store.write("f", BOUND_FIRST.start as u64, &first).unwrap();
            base[BOUND_FIRST].copy_from_slice(&first);
            after = base.clone();
            after[write.clone()].copy_from_slice(&new);
            for (j, &b) in new.iter().enumerate() {
                flight[write.start + j] = Some(b);
            }
            cut.arm();
            store.write("f", write.start as u64, &new).unwrap();
            cut.last_image();
            // The window stays open (dropped unended, as a client that never sent END).
        }
    }
    drop(store);
    Some(Scene {
        images: cut.images(),
        top,
        base,
        after,
        flight,
    })
}

/// `common::init_without_timeout_on` with the bound on unprotected bytes at `BOUND_BYTES`
/// (every op: only `Op::Bound`'s window passes it) and the window timeout given.
fn init_with_bound(
    code: CodeSpec,
    path: WritePath,
    window_timeout_ms: u64,
) -> (tempfile::TempDir, std::path::PathBuf, exaraid_plan::Layout) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = exaraid_store::InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = UNIT;
    opts.write_path = path;
    opts.window_timeout_ms = window_timeout_ms;
    opts.unprotected_bytes_max = BOUND_BYTES;
    let layout = exaraid_store::Store::init(&dir, &opts)
        .unwrap()
        .layout()
        .clone();
    (top, dir, layout)
}

#[derive(Default, Debug)]
struct Counts {
    cuts: usize,
    lost: usize,
    /// Losing cuts a kill leaves too: nothing dropped, nothing out of order, the journal
    /// whole.
    lost_kill_like: usize,
    first_lost: Option<String>,
    /// Cuts whose first open refused (`DataLost`); the second open worked.
    open_refused: usize,
    first_open_refused: Option<String>,
}

/// Every power cut of `s` (all or none per OSS with `ooo` None; else only the out-of-order
/// ones), the disks of `lost_after` lost with the cut. Panics on a wrong byte.
fn cuts(s: &Scene, op: Op, ooo: Option<OutOfOrder>, lost_after: &[usize]) -> Counts {
    let last = s.images.len() - 1;
    let laid = s.top.path().join("try");
    let mut c = Counts::default();
    let no_flight = vec![None; s.base.len()];
    for_each_power_cut_with(&s.images, ooo, |point| {
        c.cuts += 1;
        let what = format!("image {} of {last}: {}", point.image_index, point.what());
        point.lay(&laid);
        for &d in lost_after {
            lose_disk(&laid, d);
        }
        let cut_write = matches!(op, Op::Write | Op::Bound);
        let (acked, flight) = if cut_write && point.image_index == last {
            (&s.after, &no_flight)
        } else if cut_write {
            (&s.base, &s.flight)
        } else {
            (&s.base, &no_flight)
        };
        // An open that names a loss and refuses is counted; a second open must then work
        // (a store that never opens again loses every byte).
        let store = match open_laid(&laid, lost_after) {
            Ok(store) => store,
            Err(StoreError::DataLost(m)) => {
                c.open_refused += 1;
                c.first_open_refused
                    .get_or_insert(format!("{what}: open refused: {m}"));
                open_laid(&laid, lost_after)
                    .unwrap_or_else(|e| panic!("{what}: the second open: {e}"))
            }
            Err(e) => panic!("{what}: open: {e}"),
        };
        let (mut lost, message) = check_reads(&store, acked, flight)
            .unwrap_or_else(|e| panic!("{what}: before the flush: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        lost.extend(
            check_reads(&store, acked, flight)
                .unwrap_or_else(|e| panic!("{what}: after the flush: {e}"))
                .0,
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
        lost.sort_unstable();
        lost.dedup();
        if !lost.is_empty() {
            let journal_bytes = std::fs::metadata(point.image.dir.join("journal"))
                .unwrap()
                .len();
            let kill_like = point.image.out_of_order.is_none()
                && !point.dropped.iter().any(|&d| d)
                && point.journal_cut_bytes == journal_bytes;
            c.lost_kill_like += usize::from(kill_like);
            if std::env::var("S34R_ALL").is_ok() {
                eprintln!("LOSING (kill-like {kill_like}) {what}: blocks at {lost:?}");
            }
            c.lost += 1;
            c.first_lost
                .get_or_insert(format!("{what}: blocks at {lost:?} LOST: {message}"));
        }
    });
    c
}

fn calls_out_of_order() -> Option<OutOfOrder> {
    Some(OutOfOrder {
        subsets_per_image: 16,
        seed: 1,
        pages: false,
        only: true,
    })
}

fn pages_out_of_order() -> Option<OutOfOrder> {
    Some(OutOfOrder {
        pages: true,
        ..calls_out_of_order().unwrap()
    })
}

/// Each scene's counts as one line, and whether any cut lost acknowledged bytes or had its
/// open refused.
fn report(runs: &[(CodeSpec, Counts)]) -> (bool, String) {
    let lines: Vec<String> = runs
        .iter()
        .map(|(code, c)| {
            format!(
                "{:?}: {} of {} cuts lost acknowledged bytes, {} had the open refused; first: {:?}; first refused: {:?}",
                code.kind, c.lost, c.cuts, c.open_refused, c.first_lost, c.first_open_refused
            )
        })
        .collect();
    let bad = runs.iter().any(|(_, c)| c.lost > 0 || c.open_refused > 0);
    (bad, lines.join("\n"))
}

fn rmw_codes() -> [CodeSpec; 3] {
    [CodeSpec::raid5(4), CodeSpec::raid6(4), CodeSpec::rs(4, 2)]
}

/// R34-1, whole calls: an rmw write over both stripes writes two home blocks on OSS 0
/// (stripe 0's block 0 in slot 0, then stripe 1's in slot 1). A cut keeping the second
/// call and dropping the first lays page 1 as the second call left it, slot 0's NEW
/// checksum in it, over slot 0's OLD payload in page 0. Block 0's acknowledged bytes
/// 0..2296 are on disk (see the file's doc for how they can be proven).
/// Fails on 39e5b6e: raid5 21 of 48 cuts, raid6 and rs 4+2 17 of 64, each reading file
/// block 0 LOST (before and after a flush).
#[test]
#[ignore = "OPEN: review s34r R34-1: rmw write over two stripes, a page cache writing back slot 1's page (slot 0's new checksum) before slot 0's payload page: block 0 LOST"]
fn rmw_write_loses_no_acknowledged_byte_when_a_later_block_write_lands_before_an_earlier_one_on_one_oss(
) {
    let runs: Vec<(CodeSpec, Counts)> = rmw_codes()
        .into_iter()
        .map(|code| {
            let s = scene(code, WritePath::Rmw, Op::Write, 2296..22296);
            let c = cuts(&s, Op::Write, calls_out_of_order(), &[]);
            assert!(c.cuts > 0, "{:?}: out-of-order cuts exist", code.kind);
            (code, c)
        })
        .collect();
    let (any_lost, lines) = report(&runs);
    assert!(!any_lost, "one power cut lost acknowledged bytes:\n{lines}");
}

/// R34-1, pages: an rmw write inside one block row (4000+200: blocks 0 and 1), cut where
/// its first home block write is unsynced and only its payload page dropped: block 0's old
/// payload under its new checksum. Fails on 39e5b6e: raid5 15 of 30 cuts, raid6 and rs 4+2
/// 20 of 62.
#[test]
#[ignore = "OPEN: review s34r R34-1: rmw home block with its old payload under its new checksum (pages out of order): its acknowledged bytes LOST"]
fn rmw_write_loses_no_acknowledged_byte_when_a_home_blocks_checksum_page_lands_without_its_payload_page(
) {
    let runs: Vec<(CodeSpec, Counts)> = rmw_codes()
        .into_iter()
        .map(|code| {
            let s = scene(code, WritePath::Rmw, Op::Write, 4000..4200);
            let c = cuts(&s, Op::Write, pages_out_of_order(), &[]);
            assert!(c.cuts > 0, "{:?}: out-of-order cuts exist", code.kind);
            (code, c)
        })
        .collect();
    let (any_lost, lines) = report(&runs);
    assert!(!any_lost, "one power cut lost acknowledged bytes:\n{lines}");
}

/// The control of R34-1: the same rmw writes under the all-or-none model (each OSS keeps
/// all or none of its unsynced writes: no page laid from a later call over an earlier
/// dropped one) lose nothing and read no wrong byte.
#[test]
fn rmw_write_power_cuts_all_or_none_per_oss_lose_no_acknowledged_byte() {
    for code in rmw_codes() {
        for write in [2296..22296, 4000..4200] {
            let s = scene(code, WritePath::Rmw, Op::Write, write.clone());
            let c = cuts(&s, Op::Write, None, &[]);
            assert!(c.cuts > 1);
            let (any_lost, lines) = report(&[(code, c)]);
            assert!(!any_lost, "write {write:?}: {lines}");
        }
    }
}

/// R34-2 (all or none: each losing scene has kill-like cuts, a kill leaves the same disk):
/// END of a window holding 2296+3141 (file elements 0 and 1: OSSs 0 and 1), cut, then OSS
/// 3's disk lost (a data column the window never touched: acknowledged home bytes 12288..
/// 16384, and more on the array codes). One crash and one lost disk are within the
/// tolerance of every code here, and END's design says so: its parity crcs durable before
/// its first parity write, a dead data column decoded from blocks of ONE version
/// (`decide_by_end_versions`, docs/store.md). The array codes journal no such crcs
/// (`journal_end_parity_crcs` skips geometries of more than one row). raid5: the cut before END's second mutating call (P of
/// stripe 0 is written in two pieces, calls 0 and 1 on OSS 4: its first piece new, its
/// second old). Fails on 39e5b6e: raid5 1 of 14 cuts (1 kill-like), xcode 15 of 26 (4),
/// dcode 9 of 20 (4), hdp 25 of 36 (6), block 12288 LOST "too few columns left to tell";
/// the array codes from the cut before END's first block write (its records durable,
/// nothing written), where the open window alone loses nothing (the control below).
#[test]
#[ignore = "OPEN: review s34r R34-2: END cut by a crash, then a data OSS the window never touched lost (raid5, xcode, dcode, hdp): its acknowledged blocks LOST"]
fn end_cut_then_a_data_oss_the_window_never_touched_lost_loses_no_acknowledged_byte() {
    let runs: Vec<(CodeSpec, Counts)> = [
        CodeSpec::raid5(4),
        CodeSpec::array(exaraid_codes::CodeKind::Xcode, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Dcode, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Hdp, 5),
    ]
    .into_iter()
    .map(|code| {
        let s = scene(code, WritePath::Delayed, Op::End, 2296..5437);
        let c = cuts(&s, Op::End, None, &[3]);
        assert!(c.cuts > 1);
        (code, c)
    })
    .collect();
    let (any_lost, lines) = report(&runs);
    assert!(!any_lost, "{lines}");
}

/// R34-2 (raid6, out of order): the same END writes P in two pieces (calls 0 and 1, OSS 4)
/// and Q in two (calls 2 and 3, OSS 5). The cut before call 3 keeping calls 0 and 2 and
/// dropping call 1 (P's second piece old, its first new; Q's first piece new), then OSS 3
/// lost: one erased column and each parity of one version per piece. Fails on 39e5b6e: 1
/// of 6 cuts, block 12288 LOST.
#[test]
#[ignore = "OPEN: review s34r R34-2: raid6 END's parity pieces out of order, then a data OSS lost: its acknowledged block LOST"]
fn raid6_end_parity_pieces_out_of_order_then_a_data_oss_lost_loses_no_acknowledged_byte() {
    let code = CodeSpec::raid6(4);
    let s = scene(code, WritePath::Delayed, Op::End, 2296..5437);
    let c = cuts(&s, Op::End, calls_out_of_order(), &[3]);
    assert!(c.cuts > 0);
    let (any_lost, lines) = report(&[(code, c)]);
    assert!(!any_lost, "{lines}");
}

/// The control of R34-2: raid6 and rs 4+2 END cut anywhere (all or none per OSS), then
/// OSS 3 lost, lose nothing.
#[test]
fn raid6_and_rs_end_power_cuts_all_or_none_then_a_data_oss_lost_lose_no_acknowledged_byte() {
    for code in [CodeSpec::raid6(4), CodeSpec::rs(4, 2)] {
        let s = scene(code, WritePath::Delayed, Op::End, 2296..5437);
        let c = cuts(&s, Op::End, None, &[3]);
        assert!(c.cuts > 1);
        let (any_lost, lines) = report(&[(code, c)]);
        assert!(!any_lost, "{lines}");
    }
}

/// R34-3: the window's parity advance past the bound on unprotected bytes (no background
/// worker: the writer past the bound advances it itself before it returns), cut, then OSS
/// 3's disk lost (the window, 2296+3141 acknowledged and the cut write 8292+3000, never
/// touched it). hdp tolerates two: one crash and one lost disk are within it. Fails on
/// 39e5b6e: hdp 3 of 155 cuts (1 kill-like: before call 13), xcode 2 of 263 (OSS 0 or 2's
/// unsynced writes dropped), blocks 12288 and 20480 (xcode: 12288, 32768, 53248) LOST. On
/// raid5 (8 of 75, none kill-like: the parity OSS's write dropped) the same cut with a
/// dead disk is two faults, kept out of this test; END and the timeout keep raid5's
/// promise there (power_cut_window_parity.rs), the advance does not.
#[test]
#[ignore = "OPEN: review s34r R34-3: the parity advance past the unprotected bound cut by a crash, then a data OSS the window never touched lost (hdp, xcode): acknowledged blocks LOST"]
fn bound_parity_advance_cut_then_a_data_oss_lost_loses_no_acknowledged_byte() {
    let runs: Vec<(CodeSpec, Counts)> = [
        CodeSpec::array(exaraid_codes::CodeKind::Hdp, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Xcode, 5),
    ]
    .into_iter()
    .map(|code| {
        let s = scene(code, WritePath::Delayed, Op::Bound, 8292..11292);
        let c = cuts(&s, Op::Bound, None, &[3]);
        assert!(c.cuts > 1);
        (code, c)
    })
    .collect();
    let (any_lost, lines) = report(&runs);
    assert!(!any_lost, "{lines}");
}

/// The control of R34-3: the same advance cut on raid6, rs 4+2 and dcode, then OSS 3 lost,
/// loses nothing; and with no disk lost no code loses anything.
#[test]
fn bound_parity_advance_power_cuts_lose_no_acknowledged_byte_within_the_tolerance() {
    for code in [
        CodeSpec::raid6(4),
        CodeSpec::rs(4, 2),
        CodeSpec::array(exaraid_codes::CodeKind::Dcode, 5),
    ] {
        let s = scene(code, WritePath::Delayed, Op::Bound, 8292..11292);
        let c = cuts(&s, Op::Bound, None, &[3]);
        assert!(c.cuts > 1);
        let (any_lost, lines) = report(&[(code, c)]);
        assert!(!any_lost, "OSS 3 lost: {lines}");
    }
    for code in [
        CodeSpec::raid5(4),
        CodeSpec::array(exaraid_codes::CodeKind::Hdp, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Xcode, 5),
    ] {
        let s = scene(code, WritePath::Delayed, Op::Bound, 8292..11292);
        let c = cuts(&s, Op::Bound, None, &[]);
        assert!(c.cuts > 1);
        let (any_lost, lines) = report(&[(code, c)]);
        assert!(!any_lost, "no disk lost: {lines}");
    }
}

/// A probe (not a specification): one power cut of `Op::Bound` (a window write past the
/// bound on unprotected bytes, whose parity advance runs in the writer), or of the other
/// ops, over the all-or-none or out-of-order cuts, one OSS's disk lost at each cut or none.
/// Knobs: `S34R_CODE` (default raid6:4), `S34R_OP` (`bound`, `end`, `timeout`, `open`,
/// `write`), `S34R_PATH` (`write` only), `S34R_WRITE=AT+LEN` (default 8292+3000: with
/// `bound`, a write reaching OSS K's cache zone makes a loss of OSS K the window's known
/// risk, not a finding), `S34R_LOST=K`, `S34R_ALL=1` (print each losing cut), and the
/// model's `EXARAID_POWER_CUT_OUT_OF_ORDER` (unset: all or none).
#[test]
#[ignore = "probe: S34R_CODE=raid6:4 S34R_OP=bound S34R_WRITE=8292+3000 [S34R_LOST=3] [EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only]"]
fn probe_one_power_cut_of_env() {
    let code = code_of_env("S34R_CODE", "raid6:4");
    let op = match std::env::var("S34R_OP").as_deref() {
        Err(_) | Ok("bound") => Op::Bound,
        Ok("end") => Op::End,
        Ok("write") => Op::Write,
        Ok("open") => Op::WindowOpen,
        Ok("timeout") => Op::Timeout,
        Ok(other) => panic!("S34R_OP {other}"),
    };
    let write = match std::env::var("S34R_WRITE") {
        Ok(_) => cut_write_of_env("S34R_WRITE"),
        Err(_) => 8292..11292,
    };
    let lost: Vec<usize> = std::env::var("S34R_LOST")
        .map(|k| vec![k.parse().unwrap()])
        .unwrap_or_default();
    let path = write_path_of_env("S34R_PATH", WritePath::Rmw);
    let s = scene(code, path, op, write.clone());
    let c = cuts(&s, op, OutOfOrder::from_env(), &lost);
    eprintln!(
        "S34R {:?} {op:?} {}+{} lost {lost:?} {:?}: {} images, {} cuts, {} losing ({} kill-like), {} open refused; first: {:?}; first refused: {:?}",
        code.kind,
        write.start,
        write.len(),
        OutOfOrder::from_env(),
        s.images.len(),
        c.cuts,
        c.lost,
        c.lost_kill_like,
        c.open_refused,
        c.first_lost,
        c.first_open_refused
    );
}

/// The control of R34-2 on the array codes: the same window, open (its write acknowledged,
/// no END), the power cut, then OSS 3 lost: nothing lost. So their loss at END's first cut
/// (END's records durable, none of its blocks written) is END's recovery, not the open
/// window.
#[test]
fn window_open_then_a_data_oss_lost_loses_no_acknowledged_byte() {
    for code in [
        CodeSpec::raid5(4),
        CodeSpec::array(exaraid_codes::CodeKind::Xcode, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Dcode, 5),
        CodeSpec::array(exaraid_codes::CodeKind::Hdp, 5),
    ] {
        let s = scene(code, WritePath::Delayed, Op::WindowOpen, 2296..5437);
        let c = cuts(&s, Op::WindowOpen, None, &[3]);
        assert!(c.cuts > 0);
        let (any_lost, lines) = report(&[(code, c)]);
        assert!(!any_lost, "{lines}");
    }
}

/// R34-4: a window's TIMEOUT (its END never came; `tick` after the timeout computes its
/// parity, as a background worker or the next command does) cut by ONE power cut, every
/// disk kept (pages out of order: the timeout writes a parity block in two pieces, calls 0
/// and 1 of one OSS, and the first refused cut lays the payload page as call 1 left it under
/// the checksum page as call 0 left it: both pieces' bytes, the first piece's crc). The next open
/// must not fail: on the array codes it returns `DataLost` ("stripe 0's parity cannot be
/// read ... no file byte is in it, and the stripe's data reads; write the stripe again"),
/// then a second open works and reads every byte. END's same cuts open at once. Fails on
/// 39e5b6e and e4b1aa9: xcode 19 of 66 cuts, dcode 16 of 70, hdp 44 of 134 (no byte lost):
/// the cut kept the parity write and dropped the unsynced tick, so the open fired the
/// timeout again over the torn parity (s35o: the tick is synced before its plans run).
/// Timing: the setup must beat the window timeout (1.5 s, doubled and built again where a
/// loaded machine's setup outlives it, `TIMEOUT_TRIES_MAX`).
#[test]
fn window_timeout_parity_cut_by_one_power_cut_never_refuses_the_next_open() {
    let runs: Vec<(CodeSpec, Counts)> = [
        exaraid_codes::CodeKind::Xcode,
        exaraid_codes::CodeKind::Dcode,
        exaraid_codes::CodeKind::Hdp,
    ]
    .into_iter()
    .map(|kind| {
        let code = CodeSpec::array(kind, 5);
        let s = scene(code, WritePath::Delayed, Op::Timeout, 2296..5437);
        let c = cuts(&s, Op::Timeout, pages_out_of_order(), &[]);
        assert!(c.cuts > 0);
        (code, c)
    })
    .collect();
    let (bad, lines) = report(&runs);
    assert!(!bad, "{lines}");
}
