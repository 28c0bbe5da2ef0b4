//! An OSS dies in the middle of a delayed window's END (its parity write fails for good), and
//! the process is killed at any point of what follows (review E11 item 2).
//!
//! END's parity plan reads every window byte before its first write. When a write of it
//! then finds an OSS dead, the window bytes whose only copy sat in that OSS's cache zone are
//! still in the plan's memory: the store journals them (a failed-column copy, synced) before
//! the failure goes on record, so they are not lost: END succeeds, and after a kill -9 at
//! any point the next open lays them over their stripes. Before, every such byte was
//! recorded lost, also those END had already read, and END failed naming them.
//!
//! How the kill is made, in process: common/imaged.rs (an image of the store before each
//! mutating backend call during END, cut at each journal record boundary since the one
//! before: the copy, the `Fail`, ...). Each image is opened with the dead OSS still dead,
//! and again with it back.

use crate::common;
use crate::hooked;
use crate::imaged;
use common::*;
use hooked::Hook;
use imaged::*;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, StoreError, WritePath};

/// The OSS whose home writes (data, parity) fail for good once `dead`.
struct Dies {
    victim: AtomicUsize,
    dead: AtomicBool,
    home_writes_refused: AtomicUsize,
}

impl Hook for Dies {
    fn before_write(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if self.dead.load(Ordering::SeqCst)
            && oss == self.victim.load(Ordering::SeqCst)
            && key.zone != Zone::Cache
        {
            self.home_writes_refused.fetch_add(1, Ordering::SeqCst);
            return Err(BackendError::Unavailable {
                oss: format!("oss-{oss}"),
                why: "injected: the disk died (EIO on every write)".into(),
            });
        }
        Ok(())
    }
}

/// Every byte of "ckpt" reads as `want`. Only where the victim is dead and the store
/// never learnt of its failure before the kill (nothing of it journaled: the crash and the
/// disk death came together) may bytes of the victim's element fail instead, naming a
/// range inside it; nothing else is on record as lost.
fn check_image(
    image: &Path,
    dead: Option<usize>,
    want: &[u8],
    victim_element: (usize, usize),
    failure_on_record: bool,
    what: &str,
) {
    let failed: Vec<usize> = dead.into_iter().collect();
    let store = open_image(image, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    let (va, vz) = victim_element;
    let may_lose = dead.is_some() && !failure_on_record;
    for at in (0..want.len()).step_by(UNIT) {
        let got = store.read("ckpt", at as u64, UNIT as u64);
        match got {
            Ok(bytes) => assert!(
                bytes == want[at..at + UNIT],
                "{what}: ckpt bytes {at}..{} read wrong",
                at + UNIT
            ),
            Err(StoreError::DataLost(msg)) if may_lose && (va..vz).contains(&at) => {
                assert!(msg.contains("'ckpt' bytes"), "{what}: {msg}");
            }
            Err(e) => panic!("{what}: ckpt bytes {at}..{} do not read: {e}", at + UNIT),
        }
    }
    let status = store.status().unwrap();
    for l in &status.lost_ranges {
        let (a, z) = (
            l.offset_bytes as usize,
            (l.offset_bytes + l.len_bytes) as usize,
        );
        assert!(
            may_lose && va <= a && z <= vz,
            "{what}: bytes on record as lost although END kept them: {l:?}"
        );
    }
    assert!(
        store.scrub(false).unwrap().parity_mismatches.is_empty(),
        "{what}: parity matches the data"
    );
}

/// Two whole stripes in the window: END reads every byte of the victim's element.
#[test]
fn a_kill_at_any_point_after_an_oss_dies_during_end_loses_no_byte_end_had_read() {
    sweep_end_with_a_dying_oss(0);
}

/// The window starts 1000 bytes into the victim's element: END's parity plan ties the
/// victim's home bytes before the window (acknowledged, in the same 4 KiB block) to the
/// parity it rewrites; they are decoded from the stripe as it was before END's writes.
#[test]
fn a_kill_at_any_point_after_an_oss_dies_during_end_loses_no_home_byte_beside_the_window() {
    sweep_end_with_a_dying_oss(1000);
}

/// "ckpt" holds two acknowledged stripes; a window rewrites it from `into_victim` bytes
/// into the victim's element of stripe 0 to the end; the victim dies during END (its
/// parity write of stripe 1 fails); every kill point after is checked (see the module
/// docs).
fn sweep_end_with_a_dying_oss(into_victim: usize) {
    images_in_plan_order();
    let top = tempfile::tempdir().unwrap();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    drop(init(&dir, CodeSpec::raid5(3), 4, WritePath::Delayed));
    let imager = Imager::new(&dir);
    let dies = Arc::new(Dies {
        victim: AtomicUsize::new(usize::MAX),
        dead: AtomicBool::new(false),
        home_writes_refused: AtomicUsize::new(0),
    });
    let store = open_imaged(&dir, &imager, &dies, OpenOptions::default()).unwrap();
    let mut want = pattern(60, 6 * UNIT);
    store.put("ckpt", &want).unwrap();
    // The victim holds stripe 1's parity (END's write there fails) and a data element of
    // stripe 0 (window bytes END reads before that write).
    let id = store.file_id("ckpt").unwrap();
    let oss_at = |offset: usize| store.layout().locate(id, offset as u64).oss;
    let victim = (0..4)
        .find(|&o| (3..6).all(|d| oss_at(d * UNIT) != o))
        .expect("one OSS holds stripe 1's parity");
    let victim_at = (0..3)
        .map(|d| d * UNIT)
        .find(|&at| oss_at(at) == victim)
        .expect("the parity OSS of stripe 1 holds data of stripe 0");
    let victim_element = (victim_at, victim_at + UNIT);
    // raid5 3+1: one element on each data OSS of each stripe, only in the cache zones
    // until END.
    let token = store.delayed_start("ckpt").unwrap();
    let from = victim_at + into_victim;
    let window = pattern(61, 6 * UNIT - from);
    store.write("ckpt", from as u64, &window).unwrap();
    want[from..].copy_from_slice(&window);
    dies.victim.store(victim, Ordering::SeqCst);
    let journal_at_end_bytes = journal_records(&dir).last().unwrap().0;

    imager.arm();
    dies.dead.store(true, Ordering::SeqCst);
    let ended = store.delayed_end(&token);
    imager.disarm();
    assert!(
        dies.home_writes_refused.load(Ordering::SeqCst) > 0,
        "the victim died during END"
    );
    // Killed after END returned: the last image.
    imager.last_image();

    let images = imager.images();
    assert!(images.len() > 4, "END made several backend calls");
    let mut kill_points = 0;
    for_each_kill_point(&images, journal_at_end_bytes, |kill| {
        // Did the store learn of the failure before this kill (its copy or its `Fail`)?
        let failure_on_record = kill
            .records_since(journal_at_end_bytes)
            .any(|p| p.contains("\"Fail\"") || p.contains("\"FailedColumnCopy\""));
        for dead in [Some(victim), None] {
            let what = format!(
                "{}, OSS {victim} {}",
                kill.what(),
                if dead.is_some() { "still dead" } else { "back" }
            );
            let attempt = top.path().join("try");
            kill.lay(&attempt);
            check_image(
                &attempt,
                dead,
                &want,
                victim_element,
                failure_on_record,
                &what,
            );
            std::fs::remove_dir_all(&attempt).unwrap();
            kill_points += 1;
        }
    });
    assert!(kill_points > images.len(), "{kill_points} kill points");
    eprintln!("{} images, {kill_points} kill points", images.len());

    // The process that was not killed: END succeeded, the OSS is failed, nothing is lost.
    assert!(
        ended.is_ok(),
        "END kept every window byte it had read: {ended:?}"
    );
    let status = store.status().unwrap();
    assert!(!status.oss[victim].healthy, "the failure is on record");
    assert!(status.lost_ranges.is_empty(), "{:?}", status.lost_ranges);
    assert_eq!(store.get("ckpt").unwrap(), want);
    drop(store);
}
