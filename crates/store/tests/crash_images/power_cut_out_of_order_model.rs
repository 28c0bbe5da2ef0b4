//! The power-cut model's out-of-order mode (`powercut::OutOfOrder`, "OPEN after session 32"
//! item (5), s33f): a disk's page cache writes an OSS's unsynced writes back in any order,
//! so a power cut can keep a LATER unsynced call of an OSS and drop an EARLIER one. The
//! all-or-none model (`for_each_power_cut`) keeps each OSS's unsynced calls all or none:
//! every OSS directory it lays is some image's or some image's durable copy. These tests
//! check the mode itself, not the store: it lays a disk the all-or-none model cannot, its
//! extremes are the all-or-none disks, and its cuts are bounded and deterministic.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Subsets per image in these tests (a bound on their cost).
const SUBSETS_PER_IMAGE: usize = 6;

/// A put of two raid5 stripes, imaged before each of its mutating calls (plan order: the
/// same images every run). Each OSS gets one block write per stripe, unsynced until the
/// put's end.
fn put_of_two_stripes_imaged() -> (tempfile::TempDir, Vec<PowerCutImage>) {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let (top, dir, layout) = init_without_timeout_on(CodeSpec::raid5(4), UNIT, WritePath::Rmw);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    cut.arm();
    store.put("f", &pattern(1, 2 * stripe_bytes)).unwrap();
    cut.last_image();
    drop(store);
    let images = cut.images();
    assert!(images.len() < 200, "a bounded scene");
    (top, images)
}

fn oss_dir(dir: &std::path::Path, oss: usize) -> std::path::PathBuf {
    dir.join(format!("oss-{oss}"))
}

#[test]
fn out_of_order_cut_keeps_a_later_unsynced_call_of_an_oss_without_an_earlier_one() {
    let (_top, images) = put_of_two_stripes_imaged();
    let calls = CallChanges::of(&images);
    let mut found = None;
    'search: for i in 0..images.len() {
        let per_oss = calls.unsynced(&images, i);
        let all: Vec<usize> = per_oss.iter().flatten().copied().collect();
        for (oss, mine) in per_oss.iter().enumerate() {
            // An earlier call dropped, every other unsynced call (a later one of this OSS
            // among them) kept.
            for &earlier in mine.iter().take(mine.len().saturating_sub(1)) {
                let kept: Vec<usize> = all.iter().copied().filter(|&j| j != earlier).collect();
                let kept = calls.units_of_calls(&images, i, &kept);
                let laid = lay_out_of_order_image(&images, &calls, i, &kept);
                let laid_oss = oss_dir(&laid.dir, oss);
                let all_or_none_cannot = images.iter().all(|image| {
                    !same_tree(&laid_oss, &oss_dir(&image.dir, oss))
                        && !same_tree(&laid_oss, &image.oss_durable[oss])
                });
                if all_or_none_cannot {
                    found = Some((i, oss, earlier, laid));
                    break 'search;
                }
                std::fs::remove_dir_all(&laid.dir).unwrap();
            }
        }
    }
    let (i, oss, earlier, laid) =
        found.expect("a cut keeping a later unsynced call of an OSS without an earlier one");
    eprintln!(
        "image {i}: OSS {oss} without call {earlier}: {}",
        laid.out_of_order.as_deref().unwrap()
    );
    std::fs::remove_dir_all(&laid.dir).unwrap();
}

#[test]
fn out_of_order_cut_keeping_every_unsynced_call_is_the_image_and_keeping_none_the_durable_disk() {
    let (_top, images) = put_of_two_stripes_imaged();
    let calls = CallChanges::of(&images);
    let mut checked = 0;
    for i in 0..images.len() {
        let per_oss = calls.units(&images, i);
        let all: Vec<UnsyncedUnit> = per_oss.iter().flatten().cloned().collect();
        if all.is_empty() {
            continue;
        }
        for (kept, everything) in [(all.clone(), true), (Vec::new(), false)] {
            let laid = lay_out_of_order_image(&images, &calls, i, &kept);
            for oss in 0..per_oss.len() {
                let want = match everything {
                    true => oss_dir(&images[i].dir, oss),
                    false if per_oss[oss].is_empty() => oss_dir(&images[i].dir, oss),
                    false => images[i].oss_durable[oss].clone(),
                };
                assert!(
                    same_tree(&oss_dir(&laid.dir, oss), &want),
                    "image {i}, OSS {oss}, every unsynced call kept: {everything}"
                );
            }
            std::fs::remove_dir_all(&laid.dir).unwrap();
            checked += 1;
        }
    }
    assert!(checked >= 2, "images with unsynced calls");
}

#[test]
fn out_of_order_cuts_are_bounded_deterministic_and_off_without_the_knob() {
    let (_top, images) = put_of_two_stripes_imaged();
    for pages in [false, true] {
        let ooo = OutOfOrder {
            subsets_per_image: SUBSETS_PER_IMAGE,
            seed: 7,
            pages,
            only: true,
        };
        out_of_order_cuts_bounded_and_deterministic(&images, ooo);
    }
    let all_or_none = whats(&images, None);
    assert!(
        all_or_none
            .iter()
            .all(|(_, what)| !what.contains("OUT OF ORDER")),
        "without the knob, the all-or-none cuts alone"
    );
    assert!(!all_or_none.is_empty());
    // The images left as they were: no out-of-order disk left beside them.
    for image in &images {
        assert!(!std::path::Path::new(&format!("{}.out-of-order", image.dir.display())).exists());
    }
}

/// Per cut: its image and what it kept and dropped.
fn whats(images: &[PowerCutImage], ooo: Option<OutOfOrder>) -> Vec<(usize, String)> {
    let mut whats: Vec<(usize, String)> = Vec::new();
    let points = for_each_power_cut_with(images, ooo, |point| {
        let what = point.what();
        whats.push((
            point.image_index,
            what[what.find(", journal").unwrap()..].to_string(),
        ));
    });
    assert_eq!(points, whats.len());
    whats
}

fn out_of_order_cuts_bounded_and_deterministic(images: &[PowerCutImage], ooo: OutOfOrder) {
    let first = whats(images, Some(ooo));
    assert!(!first.is_empty(), "the put's images have out-of-order cuts");
    assert!(
        first.iter().all(|(_, what)| what.contains("OUT OF ORDER")),
        "`only`: no all-or-none cut"
    );
    assert_eq!(
        first,
        whats(images, Some(ooo)),
        "the same cuts on a second run"
    );
    for i in 0..images.len() {
        let at_i = first.iter().filter(|(image, _)| *image == i).count();
        let journal_cuts = journal_cuts(&images[i]).len();
        assert!(
            at_i <= SUBSETS_PER_IMAGE * journal_cuts,
            "image {i}: {at_i} cuts, at most {SUBSETS_PER_IMAGE} subsets per journal cut"
        );
    }
}
