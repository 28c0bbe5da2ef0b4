//! s33f: s28c's scene (`s28c_stale_beside_running_parity_written_in_pieces.rs`: a stale
//! cache element, data element 1's OSS having lost a write, beside the client write from
//! element 2's byte 3000 to element 3's byte 1000, 4 KiB elements, WCL, plan order) under
//! the power-cut model's out-of-order mode in pages (`powercut::OutOfOrder`, `pages`: each
//! block write's 4 KiB pages of its zone file land or not on their own, so a payload can
//! land without its checksum). Two faults: the stale element and one power cut. On raid6,
//! 8 of the 18 cuts, each splitting the write's first two block writes (calls 10 and 11, on
//! OSSs 2 and 3: torn at a page boundary), read the stale element with success: 'f' WRONG
//! byte 4096 (0xda read, 0xf8 acknowledged; 5 of 5 runs on 8b60df4). The same scene with
//! each OSS's writes all or none (s28c's own tests) reads right.
//!
//! s34b: the smallest page set is two pages. Each cache slot is 4100 bytes (payload, then
//! its crc), so the write's slot 3 spans zone pages 3 and 4: page 3 holds payload bytes
//! 0..4084, page 4 the last 12 and the crc. Dropping page 3 of both block writes (image 12,
//! before the running parity's first write) leaves element 2's block old but for its last
//! 12 bytes and element 3's block whole old, each under its NEW crc: both fail, and the
//! cache stripe holds no acknowledged byte in either (the write is the first there). P and
//! Q verify, old. `stale_beside_cut_write` counted both blocks erased in every world (two:
//! raid6's tolerance) and took the row as proven by "the decisions below", which had
//! nothing to decode there (no acknowledged bytes: kept as they stand); the row's running
//! parity was rewritten from the data and blessed the stale element. Now such a block is
//! known in the old version (its zeros, `torn_over_nothing_acked`): that version holds
//! every column and locates the stale one (read right). Where both parity blocks are torn
//! too (7 cuts at calls 14 and 15) nothing checks the row: LOST, no longer taken as proven
//! by failing blocks no decision decodes.
//!
//! Specification (s19f's, `stale_cut.rs`): every acknowledged block reads its bytes (or the
//! cut write's) or is named LOST on record; the stale element never reads its stale bytes
//! with success.
//!
//! The cuts: `OUT_OF_ORDER`, as `EXARAID_POWER_CUT_OUT_OF_ORDER=4,1,pages,only` would set
//! them (4 seeded subsets of the unsynced pages per image, seed 1), given to the scene.

mod common;
#[path = "common/powercut.rs"]
mod powercut;

#[path = "common/stale_cut.rs"]
mod stale_cut;
use stale_cut::*;

use common::UNIT;
use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::StoreError;
use powercut::*;

const CUT_WRITE: std::ops::Range<usize> = 2 * UNIT + 3000..3 * UNIT + 1000;

/// The cuts' out-of-order model, given to the scene rather than set in the environment: a
/// probe of this binary run beside these tests reads the environment as its caller set it.
const OUT_OF_ORDER: OutOfOrder = OutOfOrder {
    subsets_per_image: 4,
    seed: 1,
    pages: true,
    only: true,
};

fn problems(code: CodeSpec) -> (usize, Vec<String>) {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    power_cut_client_write_beside_stale_bytes_after_first_write_problems(
        code,
        Stale {
            element_bytes: UNIT,
            lost_write: 0..2 * UNIT,
        },
        (&[], &[]),
        Cuts::All,
        CUT_WRITE,
        true,
        true,
        2 * UNIT,
        Some(OUT_OF_ORDER),
    )
}

fn assert_no_problem(code: CodeSpec) {
    let (checked, found) = problems(code);
    assert!(checked > 0, "out-of-order cuts");
    assert!(
        found.is_empty(),
        "{} of {checked} cuts: first: {}",
        found.len(),
        found[0]
    );
}

#[test]
fn raid6_stale_cache_element_is_never_read_after_a_power_cut_tearing_the_cut_write_in_pages() {
    assert_no_problem(CodeSpec::raid6(4));
}

/// s34b: the same cuts on rs 4+2 read the stale element with success at 8 of 18 cuts on
/// 39e5b6e, as raid6.
#[test]
fn rs_4_2_stale_cache_element_is_never_read_after_a_power_cut_tearing_the_cut_write_in_pages() {
    assert_no_problem(CodeSpec::rs(4, 2));
}

/// s34b: xcode 5 read it with success at 5 of 18 cuts on 39e5b6e; those cuts read it LOST
/// now (every cut of this scene loses it on xcode, all-or-none cuts too).
#[test]
fn xcode_stale_cache_element_is_never_read_after_a_power_cut_tearing_the_cut_write_in_pages() {
    assert_no_problem(CodeSpec::array(CodeKind::Xcode, 5));
}

/// The scene of `stale_cut.rs` with the cut write `CUT_WRITE`, its power-cut images kept.
struct Scene {
    top: tempfile::TempDir,
    images: Vec<PowerCutImage>,
    before: Vec<u8>,
    new: Vec<u8>,
    /// `CUT_WRITE` at the scene's element size (see `scene_of`).
    cut_write: std::ops::Range<usize>,
}

fn scene(code: CodeSpec) -> Scene {
    scene_of(code, UNIT, true)
}

/// The scene at `element_bytes` per element (s42c): the two first writes cover data
/// elements 0 and 1, the cut write runs from element 2's byte 3000 to element 3's byte 1000
/// (`CUT_WRITE` at 4 KiB elements), so it still tears both elements' first block. `stale`
/// false: the OSS of data element 1 keeps its second write (the power cut ALONE, the same
/// calls in the same order).
fn scene_of(code: CodeSpec, element_bytes: usize, stale: bool) -> Scene {
    common::images_in_plan_order();
    let (top, dir, layout) = common::init_wcl_without_timeout_with_element(code, element_bytes);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = common::pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, layout.geometry().data_pos[1].col);
    let mut write = |store: &exaraid_store::Store, seed: u64| {
        let bytes = common::pattern(seed, 2 * element_bytes);
        store.write("f", 0, &bytes).unwrap();
        before[..2 * element_bytes].copy_from_slice(&bytes);
    };
    write(&store, 3);
    let zone_file = common::object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, 5);
    if stale {
        std::fs::write(&zone_file, &snapshot).unwrap();
    }
    cut.cut_journal_since_previous_call();
    let cut_write = 2 * element_bytes + 3000..3 * element_bytes + 1000;
    let new = common::pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    Scene {
        top,
        images: cut.images(),
        before,
        new,
        cut_write,
    }
}

/// Per 4 KiB block of 'f' after the open and a flush of the disk `point` lays: "ok",
/// "LOST" (on record) or "WRONG" (read with success, a byte neither acknowledged nor the
/// cut write's).
fn outcomes(s: &Scene, point: &PowerCutPoint) -> Vec<&'static str> {
    let laid = s.top.path().join("laid");
    point.lay(&laid);
    let store = open_laid(&laid, &[]).unwrap();
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("flush: {e}"),
    }
    let on_record: Vec<(u64, u64)> = (store.status().unwrap().lost_ranges.iter())
        .filter(|l| l.file == "f")
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    let said = (0..s.before.len())
        .step_by(UNIT)
        .map(|at| match store.read("f", at as u64, UNIT as u64) {
            Ok(got) => {
                let right = (0..UNIT).all(|j| {
                    let i = at + j;
                    got[j] == s.before[i]
                        || (s.cut_write.contains(&i) && got[j] == s.new[i - s.cut_write.start])
                });
                if right {
                    "ok"
                } else {
                    "WRONG"
                }
            }
            Err(StoreError::DataLost(_)) => {
                let (a, z) = (at as u64, (at + UNIT) as u64);
                assert!(
                    on_record.iter().any(|&(x, y)| x < z && a < y),
                    "block {at} read LOST, none on record"
                );
                "LOST"
            }
            Err(e) => panic!("read at {at}: {e}"),
        })
        .collect();
    drop(store);
    std::fs::remove_dir_all(&laid).unwrap();
    said
}

/// s34b, the smallest page set of the sweep's WRONG cuts: raid6, before mutating call 12,
/// every unsynced page lands but page 3 of the write's two block writes (calls 10 and 11,
/// OSSs 2 and 3). Dropping either page alone reads right on 39e5b6e too. Both torn blocks
/// hold nothing acknowledged, so the old version of the row holds every column and the
/// stale element is located and read right (on 39e5b6e: 'f' block 1 WRONG, 5 of 5 runs).
#[test]
fn raid6_stale_element_beside_two_data_blocks_torn_over_nothing_acknowledged_is_located() {
    const IMAGE: usize = 12;
    let s = scene(CodeSpec::raid6(4));
    let calls = CallChanges::of(&s.images);
    let units = calls.units(&s.images, IMAGE);
    let slot_pages = |call: usize| {
        let file = format!("objects/{CACHE_OBJECT}.cache");
        [3, 4].map(|page| (call, file.clone(), Part::Page(page)))
    };
    assert_eq!(
        units,
        vec![
            vec![],
            vec![],
            slot_pages(10).to_vec(),
            slot_pages(11).to_vec(),
            vec![],
            vec![],
        ],
        "the scene: the write's two block writes unsynced, each over zone pages 3 and 4"
    );
    let kept = [slot_pages(10)[1].clone(), slot_pages(11)[1].clone()];
    let image = lay_out_of_order_image(&s.images, &calls, IMAGE, &kept);
    let said = outcomes(
        &s,
        &PowerCutPoint {
            image_index: IMAGE,
            image: &image,
            journal_cut_bytes: image.journal_durable_bytes,
            dropped: vec![false; image.oss_durable.len()],
        },
    );
    std::fs::remove_dir_all(&image.dir).unwrap();
    assert!(said.iter().all(|&o| o == "ok"), "per block: {said:?}");
}

/// Per 4 KiB block of 'f' (`outcomes`) at the cut before mutating call `image_index`
/// where every unsynced zone page lands but `dropped` (`(call, page)`, each one of the
/// image's unsynced units).
fn outcomes_dropping(
    s: &Scene,
    image_index: usize,
    dropped: &[(usize, usize)],
) -> Vec<&'static str> {
    let calls = CallChanges::of(&s.images);
    let units: Vec<UnsyncedUnit> = calls.units(&s.images, image_index).concat();
    let page = |u: &UnsyncedUnit| match u.2 {
        Part::Page(page) => Some((u.0, page)),
        _ => None,
    };
    for d in dropped {
        assert!(
            units.iter().any(|u| page(u) == Some(*d)),
            "the scene: call {} page {} unsynced at image {image_index}: {units:?}",
            d.0,
            d.1
        );
    }
    let kept: Vec<UnsyncedUnit> = (units.iter())
        .filter(|u| page(u).is_none_or(|p| !dropped.contains(&p)))
        .cloned()
        .collect();
    let image = lay_out_of_order_image(&s.images, &calls, image_index, &kept);
    let said = outcomes(
        s,
        &PowerCutPoint {
            image_index,
            image: &image,
            journal_cut_bytes: image.journal_durable_bytes,
            dropped: vec![false; image.oss_durable.len()],
        },
    );
    std::fs::remove_dir_all(&image.dir).unwrap();
    said
}

/// s35b (s34b's sweep, `S34B_CODE=rs:4:3`, its one WRONG cut): rs 4+3, before mutating
/// call 19, the write's two data block writes (calls 12 and 13) dropped whole (old,
/// verified) and P, Q and R each torn by or between their piece writes (calls 14 and 15 on
/// OSS 4, 16 on OSS 5, 18 on OSS 6: a payload page or the checksum page dropped). Every
/// blind column holds running parity and every data block reads: the row's parity was
/// rewritten from the data unchecked, stale element 1 included ('f' block 1 WRONG on
/// e4b1aa9). Now the torn parity checks the row where the write did not reach it (it
/// disagrees with the stale element there): block 1 and its row's other cached block LOST.
#[test]
fn rs_4_3_stale_element_beside_every_parity_block_torn_over_the_old_data_is_never_read() {
    let s = scene(CodeSpec::rs(4, 3));
    let said = outcomes_dropping(
        &s,
        19,
        &[
            (12, 3),
            (12, 4),
            (13, 3),
            (13, 4),
            (14, 3),
            (15, 4),
            (16, 4),
            (18, 4),
        ],
    );
    assert!(!said.contains(&"WRONG"), "per block: {said:?}");
    assert_eq!(said[1], "LOST", "the stale element's block: {said:?}");
}

/// s35b (s34b's sweep, `S34B_CODE=raid5:4`, both its WRONG cuts): raid5, before mutating
/// call 11, the write's first data block write dropped (call 8), the second landed (call 9,
/// its checksum page dropped in the second cut: whole new by the write's crc), and P's
/// checksum page dropped (call 10): P torn, every data block read, the row taken unchecked
/// and its parity rewritten through stale element 1 ('f' block 1 WRONG on e4b1aa9).
#[test]
fn raid5_stale_element_beside_a_torn_running_parity_is_never_read() {
    let s = scene(CodeSpec::raid5(4));
    for dropped in [
        &[(8, 3), (8, 4), (10, 4)][..],
        &[(8, 3), (8, 4), (9, 4), (10, 4)][..],
    ] {
        let said = outcomes_dropping(&s, 11, dropped);
        assert!(
            !said.contains(&"WRONG"),
            "dropped {dropped:?}, per block: {said:?}"
        );
        assert_eq!(said[1], "LOST", "dropped {dropped:?}: {said:?}");
    }
}

/// s35b: the sweep's cuts on rs 4+3 (1 of 26 read the stale element with success on
/// e4b1aa9) and raid5 (2 of 10).
#[test]
fn rs_4_3_and_raid5_stale_cache_element_is_never_read_after_a_power_cut_tearing_the_cut_write_in_pages(
) {
    assert_no_problem(CodeSpec::rs(4, 3));
    assert_no_problem(CodeSpec::raid5(4));
}

/// Every cut of the scene under `EXARAID_POWER_CUT_OUT_OF_ORDER` as set (unset: the
/// all-or-none cuts), counted: cuts with a WRONG block, cuts with a LOST block, LOST
/// blocks. `S34B_CODE` as `common::code_of_env` reads it (raid6:4 when unset).
#[test]
#[ignore = "probe: counts per cut (docs/results/s34-s34b-torn-pages-beside-stale.md)"]
fn probe_sweep_counts() {
    let code = common::code_of_env("S34B_CODE", "raid6:4");
    let s = scene(code);
    let (mut cuts, mut wrong, mut lost_cuts, mut lost_blocks) = (0, 0, 0, 0);
    for_each_power_cut(&s.images, |point| {
        let said = outcomes(&s, point);
        let w = said.iter().filter(|&&o| o == "WRONG").count();
        let l = said.iter().filter(|&&o| o == "LOST").count();
        cuts += 1;
        wrong += usize::from(w > 0);
        lost_cuts += usize::from(l > 0);
        lost_blocks += l;
        if w > 0 || l > 0 {
            eprintln!("CUT wrong {w} lost {l}: {}", point.what());
        }
    });
    eprintln!(
        "COUNTS {code:?}: cuts {cuts}, WRONG cuts {wrong}, LOST cuts {lost_cuts}, LOST blocks {lost_blocks}"
    );
}

/// The child process of the kill tests below: set to a store's directory, it opens the
/// store and issues `CUT_WRITE` (killed by the kill point the parent armed).
const KILL_CHILD_DIR_ENV: &str = "S36T_CUT_WRITE_KILLED_CHILD_DIR";
/// Past every block write of `CUT_WRITE` (two data blocks and the running parity's pieces).
const KILLS_MAX: u64 = 12;

fn cut_write_bytes() -> Vec<u8> {
    common::pattern(4, CUT_WRITE.len())
}

/// Helper run as the child process of the kill tests below (does nothing otherwise).
#[test]
fn child_process_helper_cut_write_killed() {
    let Some(dir) = std::env::var_os(KILL_CHILD_DIR_ENV) else {
        return;
    };
    let store = exaraid_store::Store::open(std::path::Path::new(&dir)).unwrap();
    store
        .write("f", CUT_WRITE.start as u64, &cut_write_bytes())
        .unwrap();
    // Not killed: the parent's kill point lies past the write's block writes.
    std::process::exit(0);
}

/// A write the OSS of one column of stripe 0 loses: (column, file bytes inside data element
/// 1). The write is issued and acknowledged, then that OSS's cache zone is put back (a
/// stale data block where the column is data element 1's, a stale running parity where it
/// is a parity column's).
type LostWrite = (usize, std::ops::Range<usize>);

/// s33f's scene before its cut write, killed instead of cut by power (one process, the
/// store dropped unclosed): `f` put over 4 stripes, 0..2 units written, then `lost_write`.
/// Returns the scratch, the store's directory and `f` as acknowledged.
fn kill_scene(
    code: CodeSpec,
    lost_write: Option<LostWrite>,
) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    common::images_in_plan_order();
    let (top, dir, layout) = common::init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let store = exaraid_store::Store::open(&dir).unwrap();
    let mut acked = common::pattern(1, 4 * stripe_bytes);
    store.put("f", &acked).unwrap();
    let first = common::pattern(3, 2 * UNIT);
    store.write("f", 0, &first).unwrap();
    acked[..2 * UNIT].copy_from_slice(&first);
    if let Some((col, lost)) = lost_write {
        assert!(
            UNIT <= lost.start && lost.end <= 2 * UNIT,
            "the lost write lies in data element 1"
        );
        let stale_oss = layout.oss_of(0, 0, col);
        let zone_file = common::object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
        let snapshot = std::fs::read(&zone_file).unwrap();
        let bytes = common::pattern(5, lost.len());
        store.write("f", lost.start as u64, &bytes).unwrap();
        acked[lost].copy_from_slice(&bytes);
        std::fs::write(&zone_file, &snapshot).unwrap();
    }
    drop(store);
    (top, dir, acked)
}

/// Per kill of `CUT_WRITE` at `point:n` (`write-torn-block`: its n-th block write torn, new
/// payload under old checksums; `write-before-block`: killed before it; plan order), over a
/// copy of the scene: what the child's stderr named and per 4 KiB block of `f`, after the
/// open and after a flush: "ok", "LOST" (on record, asserted) or "WRONG" (read with
/// success, a byte neither acknowledged nor the cut write's).
fn kills_of_the_cut_write(code: CodeSpec, lost_write: Option<LostWrite>, point: &str) -> Vec<Kill> {
    let (top, dir, acked) = kill_scene(code, lost_write);
    let new = cut_write_bytes();
    let mut kills = Vec::new();
    for n in 1..=KILLS_MAX {
        let killed = top.path().join("killed");
        common::copy_tree(&dir, &killed);
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "child_process_helper_cut_write_killed",
                "--exact",
                "--nocapture",
            ])
            .env(KILL_CHILD_DIR_ENV, &killed)
            .env(exaraid_store::torture::KILL_AT_ENV, format!("{point}:{n}"))
            .env(exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV, "1")
            .output()
            .unwrap();
        if out.status.success() {
            std::fs::remove_dir_all(&killed).unwrap();
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let what = (err.lines())
            .find(|l| l.contains(&format!("killed at {point}:{n}")))
            .unwrap_or_else(|| panic!("{point}:{n}: the child failed without the kill: {err}"))
            .to_string();
        let store =
            exaraid_store::Store::open(&killed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let mut said = vec!["ok"; acked.len().div_ceil(UNIT)];
        for flushed in [false, true] {
            if flushed {
                match store.flush() {
                    Ok(()) | Err(StoreError::DataLost(_)) => {}
                    Err(e) => panic!("{what}: flush: {e}"),
                }
            }
            for (b, at) in (0..acked.len()).step_by(UNIT).enumerate() {
                let outcome = match store.read("f", at as u64, UNIT as u64) {
                    Ok(got) => {
                        let right = (0..UNIT).all(|j| {
                            let i = at + j;
                            got[j] == acked[i]
                                || (CUT_WRITE.contains(&i) && got[j] == new[i - CUT_WRITE.start])
                        });
                        if right {
                            "ok"
                        } else {
                            "WRONG"
                        }
                    }
                    Err(StoreError::DataLost(_)) => {
                        let on_record = (store.status().unwrap().lost_ranges.iter())
                            .filter(|l| l.file == "f")
                            .any(|l| {
                                l.offset_bytes < (at + UNIT) as u64
                                    && (at as u64) < l.offset_bytes + l.len_bytes
                            });
                        assert!(on_record, "{what}: block {at} read LOST, none on record");
                        "LOST"
                    }
                    Err(e) => panic!("{what}: read at {at}: {e}"),
                };
                if said[b] == "ok" {
                    said[b] = outcome;
                }
            }
        }
        drop(store);
        std::fs::remove_dir_all(&killed).unwrap();
        eprintln!("{what}: {said:?}");
        let torn_oss = torn_oss(&what);
        kills.push(Kill {
            what,
            torn_oss,
            said,
        });
    }
    assert!(
        (kills.len() as u64) < KILLS_MAX,
        "the cut write has more block writes than the sweep covers"
    );
    kills
}

/// One kill of `kills_of_the_cut_write`.
#[derive(Debug)]
struct Kill {
    /// The child's stderr line naming the block write the kill stopped in.
    what: String,
    /// That block write's OSS.
    torn_oss: usize,
    /// Per 4 KiB block of `f`: "ok", "LOST" or "WRONG".
    said: Vec<&'static str>,
}

/// The OSS of a killed block write, from the kill's stderr line (`.../oss-N object ...`).
fn torn_oss(what: &str) -> usize {
    let at = what.rfind("/oss-").expect("the torn block's OSS named") + "/oss-".len();
    let digits: String = what[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// The OSS of stripe 0's (and its cache stripe's) running parity P.
fn p_oss(code: CodeSpec) -> usize {
    let (_top, _dir, layout) = common::init_wcl_without_timeout(code);
    layout.oss_of(0, 0, layout.geometry().parity_pos[0].col)
}

/// raid5's cut write killed at each of its block writes (`stale`: a data column and the
/// element bytes its OSS lost, or none), with P's OSS: some kill falls between P's payload
/// and its checksum (asserted).
fn raid5_kills_tearing_p(stale: Option<LostWrite>) -> (Vec<Kill>, usize) {
    let code = CodeSpec::raid5(4);
    let kills = kills_of_the_cut_write(code, stale, exaraid_store::torture::WRITE_TORN_BLOCK);
    let p = p_oss(code);
    assert!(
        kills.iter().any(|k| k.torn_oss == p),
        "a kill between P's payload and its checksum: {kills:?}"
    );
    (kills, p)
}

/// Merge review of s35b (HIGH-1) and the lead's mend d1a7f09: a crash ALONE (kill -9, no
/// stale element) between raid5's P payload and its checksum, the data blocks landed whole
/// before it: P fails its checksum, told new by its journaled piece crcs; the row's one
/// blind column is that torn running parity beside every data block read
/// (`blind_parity_torn`). s35b's first rule named the row LOST at once wherever its
/// acknowledged bytes meet the write's offsets (D0 and D1 of the cache row: 'f' blocks 0
/// and 1); every kill of the write must read every block right.
#[test]
fn raid5_kill_alone_between_p_payload_and_checksum_reads_every_block() {
    let (kills, _) = raid5_kills_tearing_p(None);
    for k in &kills {
        assert!(
            k.said.iter().all(|&o| o == "ok"),
            "{}: per block {:?}",
            k.what,
            k.said
        );
    }
}

/// The review of d1a7f09 (its fix a4712dd, `calm_offsets_disagree` beside running parity the
/// cut tore): the kill of the test above with a stale data block beside, data element 1's
/// OSS having lost an acknowledged write at element bytes 1500..2500, offsets the cut write
/// does not meet (it meets 3000..4096 of element 2 and 0..1000 of element 3). P told new by
/// its piece crcs checks the row only at the write's offsets, where the stale block holds
/// its right bytes: the world fits, and without the calm offsets' check the stale bytes
/// read with success ('f' block 1 WRONG). No kill may read a wrong byte, and where the kill
/// tore P, block 1 is LOST on record.
#[test]
fn raid5_kill_between_p_payload_and_checksum_beside_a_stale_block_at_calm_offsets_never_reads_it() {
    let data_1 = exaraid_codes::Code::new(CodeSpec::raid5(4))
        .unwrap()
        .geometry()
        .data_pos[1]
        .col;
    let (kills, p) = raid5_kills_tearing_p(Some((data_1, UNIT + 1500..UNIT + 2500)));
    for k in &kills {
        assert!(
            !k.said.contains(&"WRONG"),
            "{}: per block {:?}",
            k.what,
            k.said
        );
        if k.torn_oss == p {
            assert_eq!(
                k.said[1], "LOST",
                "{}: the stale block: {:?}",
                k.what, k.said
            );
        }
    }
}

/// Looked for as the scene of `calm_offsets_contradict`'s parity-alone arm (s35c review
/// MEDIUM-1; not reached: traced, the function never found the calm offsets disagreeing
/// here): raid6, P's OSS lost an acknowledged write's parity update (its cache zone put
/// back: P stale at element bytes 1500..2500, offsets the cut write does not meet), then
/// the cut write killed before each of its block writes (a crash: every block whole, old
/// or new). Two faults (a lost write and a crash), so a named loss keeps the rules; yet the
/// data columns are whole and right and P is the one wrong column: every block should read
/// right, the running parity rewritten from the data.
#[test]
#[ignore = "OPEN (s36t): raid6, P stale at 1500..2500 (a lost write) and the cut write 2 units + 3000..3 units + 1000 killed before any of its 6 block writes: 'f' blocks 0 and 1 LOST at every kill, even before its first block write (never WRONG)"]
fn raid6_kill_beside_a_stale_running_parity_at_calm_offsets_reads_every_block() {
    let code = CodeSpec::raid6(4);
    let p = exaraid_codes::Code::new(code)
        .unwrap()
        .geometry()
        .parity_pos[0]
        .col;
    let kills = kills_of_the_cut_write(
        code,
        Some((p, UNIT + 1500..UNIT + 2500)),
        exaraid_store::torture::WRITE_BEFORE_BLOCK,
    );
    assert!(kills.len() >= 3, "the cut write's block writes: {kills:?}");
    for k in &kills {
        assert!(
            k.said.iter().all(|&o| o == "ok"),
            "{}: per block {:?}",
            k.what,
            k.said
        );
    }
}

/// s42c's pinned cut at 8 KiB elements (`S35F_ELEMENT_BYTES=8192
/// EXARAID_POWER_CUT_OUT_OF_ORDER=256,1,pages`, the s35f probe's scene with nothing stale
/// and no OSS failed, cut write 19384+6192: cut #559, one of 100 of 715 cuts losing block
/// row 0): raid6, the power cut ALONE before mutating call 15, every unsynced zone page
/// landed but page 6 and 8 of element 3's block write (call 11), page 7 of P's second
/// piece (call 13) and page 8 of Q's write (call 14). Cache slot 3 is bytes 24600..32800
/// of the zone file: block 0 on pages 6 and 7, block 1 on pages 7 and 8, both checksums on
/// page 8. Q's call 14 changes pages 6 and 8 only (a piece of block 0, the checksum area):
/// its piece lands, its checksum page does not (new bytes under the OLD checksum, the
/// block's tail untouched), a tear 4 KiB elements cannot lay off slot 0 (there a block's
/// tail and its checksum share the block's last page). Traced (s42c,
/// a temporary eprintln, removed): `stale_beside_cut_write` names row 0 `Unlocated` at its
/// `blind_unconfirmed` arm (P and Q both fail their checksum, no world checked): s34a's
/// blind-row rule, the crash-alone loss traded knowingly for the stale element ("every
/// parity block of a row torn"), which 4 KiB elements show too (67 of 623 cuts at
/// `256,1,pages`, 100 of 715 at 8 KiB). Known shape, kept on record here.
const S42C_ALONE_8K_IMAGE: usize = 15;
const S42C_ALONE_8K_DROPPED: [(usize, usize); 4] = [(11, 6), (11, 8), (13, 7), (14, 8)];

/// `S42C_ALONE_8K_*` read: no WRONG byte and, since session 49 (s49d: a blind row's torn
/// running parity blocks known per piece by the write's journaled new and old crcs),
/// nothing LOST: every block reads its acknowledged bytes. Before s49d (0fa3470a) it lost
/// exactly block row 0 of the cache stripe's elements 0 and 1 ('f' bytes 0 and 8192,
/// on record), and this test asserted that loss; it fails there now.
#[test]
fn raid6_8k_power_cut_alone_tearing_p_and_q_in_pages_reads_no_wrong_byte() {
    let s = scene_of(CodeSpec::raid6(4), 2 * UNIT, false);
    let said = outcomes_dropping(&s, S42C_ALONE_8K_IMAGE, &S42C_ALONE_8K_DROPPED);
    assert!(!said.contains(&"WRONG"), "per block: {said:?}");
    let lost: Vec<usize> = (0..said.len()).filter(|&b| said[b] == "LOST").collect();
    assert_eq!(lost, Vec::<usize>::new(), "the 4 KiB blocks LOST: {said:?}");
}
