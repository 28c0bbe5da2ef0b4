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

mod common;
use common::*;
#[path = "common/powercut.rs"]
mod powercut;
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
