//! s32a (item (1) of "OPEN after session 31", suspected WRONG BYTES in `fits`): in
//! `stale_beside_cut_write`, a world fits where one version is checked and agrees, and the
//! other version, returning `None` (a segment erasing more columns than the code tolerates),
//! is asked nothing. The old version of a first write knows the write's data blocks (zeros)
//! and leaves its landed running parity blocks unknown and untold: where two of them in two
//! columns complete a stale element's error to a codeword in one segment (xcode p=5: data
//! element 1, cell (0,1), by parities (3,4) and (4,3)), its check passes with the stale
//! bytes in it, and the new version (three columns erased by its parity blocks not landed
//! and a `Partial` one's missing piece) refutes nothing.
//!
//! The candidates come from s32a's model (`scripts/repro/s32a-fits-one-version-model.py`;
//! `s32a-fits-one-version-reach.py` for which per-OSS step orders reach them): writes from element a's byte 3000
//! to element b's byte 1000 (block row 0), a running parity block on both ends' chains
//! written in two pieces (`Partial` where a cut lands one), the stale bytes inside the
//! segment the model names. Each scene is s19f's (`common/stale_cut.rs`) at 16 KiB
//! elements: after the next open and a settle every acknowledged block reads its bytes or is
//! named LOST on record, none outside the stale cache stripe is lost, and the stale element
//! never reads its stale bytes with success.
//!
//! Why guards and not a red test (c3ad65a passes them all): the model reaches the arm only
//! where an OSS keeps its anti-diagonal parity block's first piece (or block) while its
//! diagonal one is lost (write 5..14: OSS 3 keeps (4,3)'s first piece, not (3,3); OSSs 0-2
//! keep none of their parity). Each OSS writes its steps in plan order, the diagonal row
//! first (`plan::wcl`: parity steps by `parity_pos`), so no kill and no power cut of
//! `for_each_power_cut` (each OSS's unsynced writes all or none) leaves it; the reordered
//! test drops single unsynced calls and subsets of one OSS's calls (a disk writing back out
//! of order) and found no WRONG BYTES either (see docs/store.md, "Session 32 (s32a)").

use crate::common;
use crate::powercut;

use crate::stale_cut;
use stale_cut::*;

use exaraid_codes::{CodeKind, CodeSpec};

const ELEMENT_BYTES: usize = 16 * 1024;

/// The scene's problems (each printed): the write from data element `a`'s byte 3000 to
/// element `b`'s byte 1000, the lost write over element 1's bytes `stale_bytes`.
fn problems(a: usize, b: usize, stale_bytes: std::ops::Range<usize>) -> Vec<String> {
    assert!(
        2 <= a && a < b && b < 15,
        "off the stale element, inside cache stripe 0"
    );
    assert!(stale_bytes.end <= 4096, "inside block row 0");
    let code = CodeSpec::array(CodeKind::Xcode, 5);
    let cut_write = a * ELEMENT_BYTES + 3000..b * ELEMENT_BYTES + 1000;
    stale_bytes_problems_in_plan_order(code, ELEMENT_BYTES, stale_bytes, cut_write)
}

#[test]
fn xcode_write_3_to_7_stale_bytes_in_the_first_segment_never_read_after_a_power_cut() {
    let found = problems(3, 7, 100..900);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}

#[test]
fn xcode_write_5_to_14_stale_bytes_in_the_first_segment_never_read_after_a_power_cut() {
    let found = problems(5, 14, 100..900);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}

/// The bytes call `j` changed on one OSS: `(oss, file name, changed byte runs)`, from the
/// images before and after it; `None` where it created a file or changed a length (not
/// undone here).
fn call_changes(
    before: &std::path::Path,
    after: &std::path::Path,
    oss_count: usize,
) -> Option<(usize, Vec<(String, Vec<(usize, usize)>)>)> {
    let mut found = None;
    for oss in 0..oss_count {
        let (a, b) = (
            before.join(format!("oss-{oss}")),
            after.join(format!("oss-{oss}")),
        );
        let mut changed = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut dirs: Vec<String> = vec![String::new()];
        while let Some(sub) = dirs.pop() {
            assert!(names.len() + dirs.len() < 10_000, "a bounded OSS directory");
            for entry in std::fs::read_dir(b.join(&sub)).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                let rel = if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                };
                if b.join(&rel).is_dir() {
                    dirs.push(rel);
                } else {
                    names.push(rel);
                }
            }
        }
        // The journal mark is written by `sync`, not by a mutating call, and the power cut
        // keeps it as `sync` left it (`PowerCutBackend::sync`): no call's bytes to undo.
        names.retain(|name| name != exaraid_store::backend::JOURNAL_MARK_FILE);
        for name in names {
            let new = std::fs::read(b.join(&name)).unwrap();
            let Ok(old) = std::fs::read(a.join(&name)) else {
                return None;
            };
            if old.len() != new.len() {
                return None;
            }
            let mut runs: Vec<(usize, usize)> = Vec::new();
            for x in (0..new.len()).filter(|&x| old[x] != new[x]) {
                match runs.last_mut() {
                    Some(r) if r.1 == x => r.1 = x + 1,
                    _ => runs.push((x, x + 1)),
                }
            }
            if !runs.is_empty() {
                changed.push((name, runs));
            }
        }
        if !changed.is_empty() {
            assert!(found.is_none(), "one mutating call changes one OSS");
            found = Some((oss, changed));
        }
    }
    found
}

/// The scene of `problems` at power cuts where the disk of one OSS wrote its unsynced
/// writes back out of order: every call up to image `i` kept but ONE earlier unsynced call
/// `j` of one OSS, a later call of that OSS kept (a page cache writes back in any order;
/// `for_each_power_cut` keeps each OSS's unsynced writes all or none); and, at the image
/// with the most calls unsynced, the OSSs `whole` dropped whole beside every subset of one
/// other OSS's unsynced calls dropped. Calls are undone by their byte diff between the
/// images before and after them. The journal is cut at each record boundary from the
/// image's durable length, the write in flight.
fn problems_with_one_write_reordered(
    a: usize,
    b: usize,
    stale_bytes: std::ops::Range<usize>,
    whole: &[usize],
) -> (usize, Vec<String>) {
    use common::*;
    let code = CodeSpec::array(CodeKind::Xcode, 5);
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let element = ELEMENT_BYTES;
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let oss_count = exaraid_store::superblock::Superblock::load(&dir)
        .unwrap()
        .oss_dirs
        .len();
    let cut = powercut::PowerCut::new(&dir);
    let store = powercut::open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, layout.geometry().data_pos[1].col);
    let mut write = |store: &exaraid_store::Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    write(&store, 0, 3, 2 * element);
    let zone_file = object_file(
        &dir,
        stale_oss,
        &format!("{}.cache", exaraid_store::store::CACHE_OBJECT),
    );
    let snapshot = std::fs::read(&zone_file).unwrap();
    let lost = element + stale_bytes.start..element + stale_bytes.end;
    write(&store, lost.start, 5, lost.len());
    std::fs::write(&zone_file, &snapshot).unwrap();
    let before = before;
    cut.cut_journal_since_previous_call();
    let journal_before_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    let cut_write = a * element + 3000..b * element + 1000;
    let new = pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    let write_done_bytes = durable_record_end_after(&dir.join("journal"), journal_before_bytes);
    drop(store);
    let images = cut.images();
    assert!(images.len() < 200, "a bounded scene");
    let changes: Vec<_> = (0..images.len().saturating_sub(1))
        .map(|j| call_changes(&images[j].dir, &images[j + 1].dir, oss_count))
        .collect();
    let ends = |d: &std::path::Path| -> Vec<u64> {
        let bytes = std::fs::read(d.join("journal")).unwrap();
        journal_record_kinds(&bytes)
            .into_iter()
            .map(|(at, len, _)| (at + len) as u64)
            .collect()
    };
    let (mut points, mut problems) = (0usize, Vec::new());
    // Per power cut: the image, the OSSs whose unsynced writes are all dropped, and the
    // calls dropped one by one (each unsynced at the image, on an OSS not dropped whole).
    let mut cuts: Vec<(usize, Vec<usize>, Vec<usize>)> = Vec::new();
    let unsynced_at = |i: usize, j: usize| -> bool {
        let Some((oss, files)) = &changes[j] else {
            return false;
        };
        files.iter().all(|(name, runs)| {
            let durable = std::fs::read(images[i].oss_durable[*oss].join(name)).unwrap_or_default();
            let old = std::fs::read(images[j].dir.join(format!("oss-{oss}")).join(name)).unwrap();
            runs.iter()
                .all(|&(x, y)| durable.len() >= y && durable[x..y] == old[x..y])
        })
    };
    for i in 1..images.len() {
        for j in 0..i {
            let Some((oss, _)) = &changes[j] else {
                continue;
            };
            // A later call of the same OSS kept (else it is a prefix: `for_each_power_cut`).
            let later_kept =
                (changes[j + 1..i].iter()).any(|c| c.as_ref().is_some_and(|c| c.0 == *oss));
            if later_kept && unsynced_at(i, j) {
                cuts.push((i, Vec::new(), vec![j]));
            }
        }
    }
    // The image `last`: `whole` OSSs dropped whole and any subset of one other OSS's
    // unsynced calls dropped (s32a's model: the old version alone passes the stale element
    // where OSS 3 keeps its anti-diagonal parity's first piece and not its diagonal one).
    // The image with the most calls unsynced (the write's block writes issued, none synced).
    let last = (1..images.len())
        .max_by_key(|&i| (0..i).filter(|&j| unsynced_at(i, j)).count())
        .expect("images");
    eprintln!(
        "most unsynced at image {last}: {}",
        (0..last).filter(|&j| unsynced_at(last, j)).count()
    );
    for o in (0..oss_count).filter(|o| !whole.contains(o)) {
        let mine: Vec<usize> = (0..last)
            .filter(|&j| changes[j].as_ref().is_some_and(|c| c.0 == o) && unsynced_at(last, j))
            .collect();
        assert!(mine.len() <= 10, "a bounded subset enumeration");
        for set in 0..1usize << mine.len() {
            let dropped = (0..mine.len())
                .filter(|k| set >> k & 1 == 1)
                .map(|k| mine[k])
                .collect();
            cuts.push((last, whole.to_vec(), dropped));
        }
    }
    for (i, whole_dropped, calls_dropped) in cuts {
        let image = &images[i];
        for cut_bytes in ends(&image.dir).into_iter().filter(|&e| {
            e >= image.journal_cuts_from_bytes
                && (journal_before_bytes + 1..write_done_bytes).contains(&e)
        }) {
            points += 1;
            let what = format!("image {i}, OSS {whole_dropped:?} dropped, calls {calls_dropped:?} dropped, journal to {cut_bytes}");
            let laid = top.path().join("try");
            copy_tree(&image.dir, &laid);
            for &oss in &whole_dropped {
                let d = laid.join(format!("oss-{oss}"));
                std::fs::remove_dir_all(&d).unwrap();
                copy_tree(&image.oss_durable[oss], &d);
            }
            for &j in &calls_dropped {
                let (oss, files) = changes[j].as_ref().unwrap();
                for (name, runs) in files {
                    let old =
                        std::fs::read(images[j].dir.join(format!("oss-{oss}")).join(name)).unwrap();
                    let path = laid.join(format!("oss-{oss}")).join(name);
                    let mut bytes = std::fs::read(&path).unwrap();
                    for &(x, y) in runs {
                        bytes[x..y].copy_from_slice(&old[x..y]);
                    }
                    std::fs::write(&path, bytes).unwrap();
                }
            }
            std::fs::OpenOptions::new()
                .write(true)
                .open(laid.join("journal"))
                .unwrap()
                .set_len(cut_bytes)
                .unwrap();
            let check = || {
                let (store, lost) = powercut::open_laid_flush_and_read(
                    &laid,
                    &[],
                    &before,
                    cut_write.clone(),
                    &new,
                    &what,
                );
                let outside: Vec<usize> =
                    lost.into_iter().filter(|&at| at >= stripe_bytes).collect();
                assert!(outside.is_empty(), "{what}: acknowledged blocks at {outside:?} outside the stale cache stripe LOST");
                if let Ok(got) = store.read("f", element as u64, element as u64) {
                    assert!(
                        got == before[element..2 * element],
                        "{what}: the stale element read with success"
                    );
                }
            };
            if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
                let said = crate::common::panic_message(&*panic);
                eprintln!("PROBLEM {said}");
                problems.push(said);
            }
            std::fs::remove_dir_all(&laid).unwrap();
        }
    }
    eprintln!(
        "{} images, {points} reordered power cuts checked",
        images.len()
    );
    (points, problems)
}

#[test]
fn xcode_write_5_to_14_stale_bytes_in_the_first_segment_never_read_after_a_reordered_power_cut() {
    let (points, found) = problems_with_one_write_reordered(5, 14, 100..900, &[0, 1, 2]);
    assert!(points > 0);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}
