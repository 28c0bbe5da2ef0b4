//! Review s30r R30-2's state laid deterministically (session 32, s32d; OPEN after session 31,
//! item (4)): a cut WCL client write A whose cache stripe a later write B of the same home
//! stripe took and made durable, B's OSS syncs covering only the OSSs B wrote, and a power
//! cut that dropped A's cache blocks on the others. A binary before s30b (a plan left its
//! stripe locks before its own OSS syncs) could leave this; a journal it wrote must still
//! open with nothing LOST: the open proves A's dropped blocks by the crcs A journaled
//! before its first cache write (`recovery/dropped_cut_blocks.rs`) and writes them back.
//!
//! How the state is laid (no thread timing): an acknowledged write W0 over the home stripe
//! (so A's cache blocks have older bytes under valid checksums), the store tree copied
//! (`after_w0`), A and B run one after the other, the tree copied again, then in that copy
//! A's `Durable` record is taken out of the journal (A in flight at the cut) and every OSS
//! A wrote and B did not is put back as `after_w0` had it (its unsynced writes dropped: B
//! synced only its own OSSs). The image test (`review_s30r_two_wcl_writers_power_cut_image`)
//! covers rdp as a thread run left it; these cover rs 4+2 and raid5 (data blocks dropped)
//! and xcode (a running-parity block of A dropped on an OSS where A wrote no data).
//!
//! Specification: a power cut is one fault; every byte of `f` reads as acknowledged (W0, B)
//! or, inside A's range and outside B's, as A wrote it; nothing is LOST; also after a flush.

use crate::common;
use common::*;

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};

use exaraid_codes::{Code, CodeKind, CodeSpec};
use exaraid_store::Store;

/// One scene: the code, W0's, A's and B's file ranges, and how many of A's columns B does
/// not write (the columns the power cut drops).
struct Scene {
    code: CodeSpec,
    w0: Range<usize>,
    a: Range<usize>,
    b: Range<usize>,
    dropped_columns: usize,
}

/// The files of OSS directory `oss` of the tree at `dir`, by relative path.
fn oss_files(dir: &Path, oss: usize) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, at: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                walk(root, &entry.path(), out);
            } else {
                let rel = entry.path().strip_prefix(root).unwrap().to_path_buf();
                out.push((rel, std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    let root = dir.join(format!("oss-{oss}"));
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// The OSSs whose directories differ between two trees of one store.
fn changed_osses(before: &Path, after: &Path, oss_count: usize) -> BTreeSet<usize> {
    (0..oss_count)
        .filter(|&oss| oss_files(before, oss) != oss_files(after, oss))
        .collect()
}

/// Take plan A's `Durable` record out of the journal at `dir`, and the `Complete` input that
/// follows it: A's write's records lie in `from..to`, its one `Durable` record names A's
/// plan only. A power cut while A's syncs ran: B's records, appended meanwhile, come
/// before them in such a journal, so none of A's end is on record.
fn take_out_durable_record(dir: &Path, from: usize, to: usize) {
    let journal = dir.join("journal");
    let bytes = std::fs::read(&journal).unwrap();
    let payload = |at: usize, len: usize| -> serde_json::Value {
        serde_json::from_slice(&bytes[at + 8..at + len]).unwrap()
    };
    let of_a: Vec<(usize, usize, String)> = journal_record_kinds(&bytes)
        .into_iter()
        .filter(|&(at, _, _)| at >= from && at < to)
        .collect();
    let durable: Vec<&(usize, usize, String)> = of_a
        .iter()
        .filter(|(_, _, kind)| kind == "Durable")
        .collect();
    assert_eq!(durable.len(), 1, "A's write journals one Durable record");
    let (at, len, _) = *durable[0];
    let plans = payload(at, len)["rec"]["Durable"]["plans"].clone();
    assert_eq!(
        plans.as_array().unwrap().len(),
        1,
        "A's Durable record names A's plan only"
    );
    let plan = plans[0].clone();
    let complete: Vec<&(usize, usize, String)> = (of_a.iter())
        .filter(|&&(a, l, ref kind)| {
            kind == "Input" && payload(a, l)["rec"]["Input"]["Complete"]["plan"] == plan
        })
        .collect();
    assert!(complete.len() <= 1, "one Complete input of plan A");
    let mut out = Vec::with_capacity(bytes.len());
    let mut kept_to = 0;
    for &&(a, l, _) in durable.iter().chain(&complete) {
        assert!(
            a >= kept_to,
            "A's Durable record comes before its Complete input"
        );
        out.extend_from_slice(&bytes[kept_to..a]);
        kept_to = a + l;
    }
    out.extend_from_slice(&bytes[kept_to..]);
    std::fs::write(&journal, out).unwrap();
}

/// Lay the scene's power-cut image under `top`; returns it with the model of `f` at the cut
/// (acknowledged bytes; A's bytes where a read may show them) and the dropped OSSs.
fn lay(top: &Path, scene: &Scene) -> (PathBuf, Vec<u8>, Vec<Option<u8>>, BTreeSet<usize>) {
    let dir = top.join("store");
    std::fs::create_dir(&dir).unwrap();
    let oss_count = columns(scene.code);
    let mut opts = exaraid_store::InitOptions::with_oss_count(&dir, oss_count, scene.code);
    opts.element_bytes = UNIT;
    opts.write_path = exaraid_store::WritePath::Wcl;
    opts.window_timeout_ms = 3_600_000;
    let layout = Store::init(&dir, &opts).unwrap().layout().clone();
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(scene.w0.end < stripe_bytes && scene.a.end <= stripe_bytes);
    assert!(
        scene.b.end <= stripe_bytes,
        "W0, A and B write home stripe 0"
    );

    let store = open_unsynced(&dir);
    let mut acked = pattern(1, 2 * stripe_bytes);
    store.put("f", &acked).unwrap();
    let w0 = bytes_of(10, scene.w0.start as u64, scene.w0.len() as u64);
    store.write("f", scene.w0.start as u64, &w0).unwrap();
    acked[scene.w0.clone()].copy_from_slice(&w0);
    let after_w0 = top.join("after-w0");
    copy_tree(&dir, &after_w0);

    let a_from = std::fs::metadata(dir.join("journal")).unwrap().len() as usize;
    let a = bytes_of(11, scene.a.start as u64, scene.a.len() as u64);
    store.write("f", scene.a.start as u64, &a).unwrap();
    let a_to = std::fs::metadata(dir.join("journal")).unwrap().len() as usize;
    let after_a = top.join("after-a");
    copy_tree(&dir, &after_a);
    let b = bytes_of(12, scene.b.start as u64, scene.b.len() as u64);
    store.write("f", scene.b.start as u64, &b).unwrap();
    let image = top.join("image");
    copy_tree(&dir, &image);
    drop(store); // no close: the power cut

    let a_wrote = changed_osses(&after_w0, &after_a, oss_count);
    let b_wrote = changed_osses(&after_a, &image, oss_count);
    let dropped: BTreeSet<usize> = a_wrote.difference(&b_wrote).copied().collect();
    assert_eq!(
        dropped.len(),
        scene.dropped_columns,
        "the scene's shape: A wrote OSSs {a_wrote:?}, B {b_wrote:?}"
    );
    take_out_durable_record(&image, a_from, a_to);
    for &oss in &dropped {
        let d = image.join(format!("oss-{oss}"));
        std::fs::remove_dir_all(&d).unwrap();
        copy_tree(&after_w0.join(format!("oss-{oss}")), &d);
    }

    let mut flight: Vec<Option<u8>> = vec![None; acked.len()];
    for i in scene.a.clone() {
        flight[i] = Some(a[i - scene.a.start]);
    }
    for i in scene.b.clone() {
        flight[i] = None;
    }
    acked[scene.b.clone()].copy_from_slice(&b);
    (image, acked, flight, dropped)
}

fn assert_nothing_lost(scene: &Scene) {
    let top = scratch();
    let (image, acked, flight, dropped) = lay(top.path(), scene);
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the power cut");
    let lost = lost_blocks_across_a_flush(&store, &acked, &flight, "before the settle");
    assert!(
        lost.is_empty(),
        "{}: a power cut (one fault) that dropped A's cache blocks on OSSs {dropped:?} lost \
         acknowledged bytes: blocks at {lost:?}",
        scene.code
    );
}

/// rs 4+2: A over data elements 0, 1 and 2; B inside element 1: A's blocks of elements 0
/// and 2 dropped, two columns, the code's tolerance.
fn rs_4_2_scene() -> Scene {
    Scene {
        code: CodeSpec::rs(4, 2),
        w0: 100..4 * UNIT - 100,
        a: 1924..2 * UNIT + 3000,
        b: UNIT + 900..UNIT + 1500,
        dropped_columns: 2,
    }
}

#[test]
fn rs_4_2_cut_write_whose_two_dropped_data_blocks_a_later_durable_write_counts_loses_nothing() {
    assert_nothing_lost(&rs_4_2_scene());
}

#[test]
fn raid5_cut_write_whose_dropped_data_block_a_later_durable_write_counts_loses_nothing() {
    // A over data elements 0 and 1; B inside element 1: A's block of element 0 dropped. One
    // stale column raid5's one parity cannot locate.
    assert_nothing_lost(&Scene {
        code: CodeSpec::raid5(4),
        w0: 100..4 * UNIT - 100,
        a: 1924..UNIT + 3000,
        b: UNIT + 3500..UNIT + 3900,
        dropped_columns: 1,
    });
}

/// The columns a write over data elements `data` of one stripe writes: theirs and those of
/// every parity that counts one of them.
fn columns_written(code: &Code, data: &[usize]) -> BTreeSet<usize> {
    let g = code.geometry();
    let mut cols: BTreeSet<usize> = data.iter().map(|&d| g.data_pos[d].col).collect();
    for (j, p) in g.parity_pos.iter().enumerate() {
        if data.iter().any(|&d| code.coef(j, d).is_some()) {
            cols.insert(p.col);
        }
    }
    cols
}

/// xcode p=5 (parity in every column): A over data elements 2 and 3, B inside element 13.
/// The columns A writes and B does not hold only A's running parity, no data of A: the
/// power cut drops two running-parity blocks under B's durable running parity.
fn xcode_scene_dropping_running_parity_blocks() -> Scene {
    let spec = CodeSpec::array(CodeKind::Xcode, 5);
    let code = Code::new(spec).unwrap();
    let g = code.geometry();
    let (a_data, b_data) = ([2usize, 3], [13usize]);
    let a_data_cols: BTreeSet<usize> = a_data.iter().map(|&d| g.data_pos[d].col).collect();
    let dropped: BTreeSet<usize> = columns_written(&code, &a_data)
        .difference(&columns_written(&code, &b_data))
        .copied()
        .collect();
    assert_eq!(dropped.len(), 2, "the code's tolerance");
    assert!(
        dropped.is_disjoint(&a_data_cols),
        "the dropped columns hold A's running parity only: {dropped:?}, A's data in {a_data_cols:?}"
    );
    Scene {
        code: spec,
        w0: 100..g.data_count() * UNIT - 100,
        a: 2 * UNIT + 500..3 * UNIT + 3000,
        b: 13 * UNIT + 100..13 * UNIT + 600,
        dropped_columns: 2,
    }
}

#[test]
fn xcode_cut_write_whose_dropped_running_parity_blocks_a_later_durable_write_counts_loses_nothing()
{
    assert_nothing_lost(&xcode_scene_dropping_running_parity_blocks());
}

const CHILD_DIR_ENV: &str = "S32D_DROPPED_CUT_BLOCKS_CHILD_DIR";

/// The killed child of the test below: an open of the image, in a process its parent set
/// to kill itself at a kill point (`EXARAID_KILL_AT`). Run as a test of its own (no image
/// named) it does nothing.
#[test]
fn child_open() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = open_own_dirs_unsynced(Path::new(&dir), &[]).unwrap();
    drop(store);
}

/// The restore's block writes run outside a settle: `write-` kill points count them, and
/// they are the open's first block writes. Most kills per point: far above the blocks this
/// scene restores (one per dropped column).
const KILLS_PER_POINT_MAX: u64 = 16;

/// Kill the open of `scene`'s image at each of the restore's block writes, at each block
/// write kill point, and open again: nothing lost.
fn assert_a_kill_in_the_restore_loses_nothing(scene: &Scene) {
    let top = scratch();
    let (image, acked, flight, dropped) = lay(top.path(), scene);
    let points = [
        exaraid_store::torture::WRITE_TORN_BLOCK,
        exaraid_store::torture::WRITE_BEFORE_BLOCK,
        exaraid_store::torture::WRITE_PAGE_CUT,
        exaraid_store::torture::WRITE_PAGE_CUT_LAST,
    ];
    for point in points {
        let mut kills = 0u64;
        loop {
            assert!(kills < KILLS_PER_POINT_MAX, "{point}: the open ends");
            let trial = top.path().join(format!("trial-{point}-{}", kills + 1));
            copy_tree(&image, &trial);
            if !child_test_killed_at(
                concat!(module_path!(), "::child_open"),
                CHILD_DIR_ENV,
                &trial,
                point,
                kills + 1,
            ) {
                std::fs::remove_dir_all(&trial).unwrap();
                break;
            }
            kills += 1;
            let store = open_own_dirs_unsynced(&trial, &[]).expect("the open after the kill");
            let lost = lost_blocks_across_a_flush(&store, &acked, &flight, "after the kill");
            assert!(
                lost.is_empty(),
                "{}: killed at {point}:{kills} in the restore of OSSs {dropped:?}: \
                 acknowledged bytes lost at blocks {lost:?}",
                scene.code
            );
            drop(store);
            std::fs::remove_dir_all(&trial).unwrap();
        }
        // The restore writes at least one block per dropped column, each a kill point of
        // every kind here (a 4 KiB element: one block; the page cut of slot 0 writes none).
        assert!(
            kills >= dropped.len() as u64,
            "{}: {point} killed {kills} times, {} columns dropped",
            scene.code,
            dropped.len()
        );
    }
}

#[test]
fn a_kill_inside_the_restores_block_writes_leaves_nothing_lost_at_the_next_open() {
    assert_a_kill_in_the_restore_loses_nothing(&rs_4_2_scene());
}

#[test]
fn a_kill_inside_the_restores_running_parity_writes_leaves_nothing_lost_at_the_next_open() {
    assert_a_kill_in_the_restore_loses_nothing(&xcode_scene_dropping_running_parity_blocks());
}
