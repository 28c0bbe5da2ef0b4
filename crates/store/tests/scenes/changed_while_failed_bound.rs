//! s15a's report (session 15): past `CHANGED_WHILE_FAILED_MAX` changes recorded while an OSS
//! was failed, its record of what changed is dropped, and `online` can no longer take it
//! back (it cannot list the stale columns): only a rebuild can. With a journal tail cut on
//! record as well, a rebuild that would decode more than that many stripes through parity
//! nothing can check was refused and pointed to `online`, which pointed back to `rebuild`:
//! a dead end, the OSS failed for good.
//!
//! Specification: every refusal's advice leads somewhere that works. When `online` cannot
//! take the OSS back (its record dropped, or its directory gone), the rebuild goes on, and names LOST exactly the bytes only an
//! unchecked decode gives (the failed OSS's data elements); every other byte reads right.
//!
//! Real scenes, no test knob: a file of 4,097 stripes, and 4,097 one-byte writes while the
//! OSS is failed (4,097 disjoint ranges), or its disk gone (`online` cannot either).

use crate::common;

use std::collections::BTreeSet;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::state::CHANGED_WHILE_FAILED_MAX;
use exaraid_store::{StoreError, WritePath};

const FAILED: usize = 1;

/// The journal's last record: a write of "f" left in flight, then damaged (the open cuts it
/// and cannot know what it changed).
fn cut_a_write_at_the_tail(dir: &std::path::Path) {
    let journal = dir.join("journal");
    let start = std::fs::metadata(&journal).unwrap().len() as usize;
    leave_write_in_flight(dir, "f", 0, UNIT as u64);
    let mut bytes = std::fs::read(&journal).unwrap();
    assert!(bytes.len() > start + 8, "the input record was appended");
    let flip = start + 8 + (bytes.len() - start - 8) / 2;
    bytes[flip] ^= 0x10;
    std::fs::write(&journal, bytes).unwrap();
}

/// How the scene's OSS came to be past `online`'s reach.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scene {
    /// 4,097 one-byte writes while it was failed (as many disjoint ranges): its record of
    /// changes is dropped, and `online` refuses it naming `rebuild`.
    RecordDropped,
    /// One write of the whole file while it was failed (its record kept, one range over
    /// every stripe), then its directory gone (the disk died): `online` refuses it, no label.
    DirectoryGone,
}

fn the_rebuild_names_lost_what_it_cannot_check_and_goes_on(scene: Scene) {
    let root = scratch();
    let dir = root.path().join("store");
    let store = init(&dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let past = CHANGED_WHILE_FAILED_MAX + 1;
    let mut model = pattern(71, past * sdb);
    store.put("f", &model).unwrap();
    // Reopened: the `fail` seeds its record with the writes since the planner's restart,
    // and the put's range would swallow every one-byte write below.
    store.close().unwrap();
    let store = open_unsynced(&dir);
    store.fail_oss(FAILED).unwrap();
    match scene {
        Scene::RecordDropped => {
            for i in 0..past {
                let at = 2 * i;
                model[at] = !model[at];
                store.write("f", at as u64, &model[at..at + 1]).unwrap();
            }
        }
        Scene::DirectoryGone => {
            model = pattern(72, past * sdb);
            store.write("f", 0, &model).unwrap();
        }
    }
    store.close().unwrap();
    cut_a_write_at_the_tail(&dir);
    let mut store = open_unsynced(&dir);
    assert!(
        store.status().unwrap().journal_tail_cut.is_some(),
        "the scene has a tail cut on record"
    );
    if scene == Scene::DirectoryGone {
        std::fs::remove_dir_all(dir.join(format!("oss-{FAILED}"))).unwrap();
    }
    let online = store.online_oss(FAILED).unwrap_err().to_string();
    let why = match scene {
        Scene::RecordDropped => format!("more places than {CHANGED_WHILE_FAILED_MAX}"),
        Scene::DirectoryGone => "holds no OSS label".to_string(),
    };
    assert!(
        online.contains(&why),
        "{scene:?}: `online` is refused: {online}"
    );
    store
        .rebuild(FAILED, None)
        .unwrap_or_else(|e| panic!("{scene:?}: `online` cannot, the rebuild is the way out: {e}"));
    assert!(store.failed_osses().is_empty());

    // LOST exactly the failed OSS's data elements (only the unchecked decode gave them);
    // every other byte reads as acknowledged.
    let id = store.file_id("f").unwrap();
    let layout = store.layout();
    let geometry = layout.geometry();
    let mut lost_blocks: BTreeSet<usize> = BTreeSet::new();
    for stripe in 0..past as u64 {
        for (d, pos) in geometry.data_pos.iter().enumerate() {
            if layout.oss_of(id, stripe, pos.col) == FAILED {
                lost_blocks.insert(layout.file_offset(stripe, d, 0) as usize);
            }
        }
    }
    assert!(!lost_blocks.is_empty());
    for at in (0..model.len()).step_by(UNIT) {
        match store.read("f", at as u64, UNIT as u64) {
            Ok(got) => assert!(
                !lost_blocks.contains(&at) && got == model[at..at + UNIT],
                "{scene:?}: bytes {at}..: read, {}",
                if lost_blocks.contains(&at) {
                    "but only an unchecked decode gave them"
                } else {
                    "WRONG"
                }
            ),
            Err(StoreError::DataLost(why)) => assert!(
                lost_blocks.contains(&at) && why.contains("cut off"),
                "{scene:?}: bytes {at}.. recorded lost: {why}"
            ),
            Err(e) => panic!("{scene:?}: bytes {at}..: {e}"),
        }
    }
}

#[test]
fn past_the_bound_of_changes_after_a_tail_cut_the_rebuild_names_lost_and_goes_on() {
    the_rebuild_names_lost_what_it_cannot_check_and_goes_on(Scene::RecordDropped);
}

#[test]
fn past_the_bound_of_unchecked_stripes_with_the_disk_gone_the_rebuild_names_lost_and_goes_on() {
    the_rebuild_names_lost_what_it_cannot_check_and_goes_on(Scene::DirectoryGone);
}
