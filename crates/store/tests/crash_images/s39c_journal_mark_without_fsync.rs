//! Review r38c LOW-5: a store run without fsync (`OpenOptions::fsync` off, `store bench
//! --no-fsync`) writes its journal marks unsynced (`Backend::write_journal_mark_unsynced`),
//! naming records only written. A power cut alone may then keep a mark and drop the records
//! it names, and the open refuses the store; its message said the journal lost records "it
//! had made durable", which sends the operator after a copy that holds them: nothing was
//! durable, and no copy may hold them.
//!
//! Specification: WCL writes of a store without fsync, cut by a power cut before any of
//! their backend calls or after the last: every cut opens or is refused; a refusal names the
//! journal's lost records, says the store ran without fsync, and never says they were made
//! durable. (The refusal itself stays: the cache bytes of the lost records may be on disk,
//! and opened, those writes would read older bytes with success, LOST with no name.)

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::StoreError;

#[test]
fn a_store_run_without_fsync_refused_after_a_power_cut_says_it_ran_without_fsync() {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(CodeSpec::raid5(4));
    let stripe_bytes = layout.stripe_data_bytes() as usize;

    let cut = PowerCut::new(&dir);
    let without_fsync = exaraid_store::OpenOptions {
        fsync: false,
        ..exaraid_store::OpenOptions::default()
    };
    let store = open_power_cut_with(&dir, &cut, without_fsync).unwrap();
    store.put("f", &pattern(1, 2 * stripe_bytes)).unwrap();
    store.write("f", 0, &pattern(2, UNIT)).unwrap();
    cut.arm();
    for k in 0..2u64 {
        store
            .write("f", (k + 1) * UNIT as u64, &pattern(3 + k, UNIT))
            .unwrap();
    }
    cut.last_image();
    drop(store);

    let images = cut.images();
    let laid = top.path().join("try");
    let (mut opened, mut refused) = (0, 0);
    for_each_power_cut(&images, |point| {
        let what = point.what();
        point.lay(&laid);
        match open_laid(&laid, &[]) {
            Ok(store) => {
                opened += 1;
                drop(store);
            }
            Err(StoreError::Metadata(msg)) if msg.contains("lost records") => {
                refused += 1;
                assert!(
                    msg.contains("WITHOUT fsync") && !msg.contains("made durable"),
                    "{what}: the refusal of a store run without fsync does not say so: {msg}"
                );
            }
            Err(e) => panic!("{what}: open: {e}"),
        }
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{} images: {opened} power cuts opened, {refused} refused",
        images.len()
    );
    assert!(
        refused > 0,
        "the scene: a power cut that drops the journal's unsynced records beside a mark kept"
    );
}

/// Review r39c MEDIUM-1: a store without fsync still calls `sync` (scrub's repair, a
/// settle, the restore of dropped cache blocks), and such a sync rewrote every mark of the
/// noted, only written records as if an fsync had made them durable. Specification: after
/// WCL writes and a `scrub --repair` of a store without fsync, a journal cut back to before
/// the writes (what a power cut alone may leave: none of it was fsync'd) is refused with the
/// message that says the store ran without fsync.
#[test]
fn a_store_run_without_fsync_says_so_after_a_scrub_repair_synced_its_osss() {
    let (top, dir, _layout) = init_wcl_without_timeout(CodeSpec::raid5(4));
    let store = open_unsynced(&dir);
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    let journal = dir.join("journal");
    let before_writes = std::fs::metadata(&journal).unwrap().len();
    store.write("f", 100, &pattern(2, UNIT)).unwrap();
    store
        .write("f", 100 + 2 * UNIT as u64, &pattern(3, UNIT))
        .unwrap();
    store.scrub(true).unwrap();
    let saved = top.path().join("saved");
    copy_tree(&dir, &saved);
    drop(store);

    restore_with_journal_cut(&saved, &dir, &journal, before_writes);
    let without_fsync = exaraid_store::OpenOptions {
        fsync: false,
        ..exaraid_store::OpenOptions::default()
    };
    let msg = match exaraid_store::Store::open_with(&dir, without_fsync) {
        Ok(_) => panic!("the scene: the journal cut behind the marks opened"),
        Err(e) => e.to_string(),
    };
    assert!(
        msg.contains("lost records")
            && msg.contains("WITHOUT fsync")
            && !msg.contains("made durable"),
        "the refusal of a store run without fsync, after a scrub's sync, does not say so: {msg}"
    );
}
