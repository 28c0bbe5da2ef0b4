//! Review s32r, R32-3 (metadata damaged at rest): the journal of a store left by a crash
//! loses its last WHOLE records (cut at a record boundary after the session's metadata
//! epoch record, as a file system that lost an fsync'd tail, or a copy of the store's
//! directory taken during the session, leaves it). Every OSS was told the session's epoch,
//! which the cut journal still holds, so the open's epoch check passes; the acknowledged
//! write whose records were cut reads its OLD bytes with success (WCL: its bytes sit in
//! the cache zone, which only the cut records point at).
//!
//! The rule asked: metadata damage at rest may be refused or named LOST; a read must not
//! return bytes that were not the last acknowledged ones with success.

mod common;
use common::*;

use exaraid_codes::CodeSpec;

#[test]
#[ignore = "OPEN: review s32r R32-3: a journal cut at rest at a record boundary inside the session reads an acknowledged WCL write's old bytes with success"]
fn a_journal_that_lost_an_acknowledged_writes_records_at_rest_never_reads_its_old_bytes() {
    let (top, dir, _layout) = init_wcl_without_timeout(CodeSpec::raid6(4));
    let store = open_unsynced(&dir);
    let base = pattern(1, 8 * UNIT);
    store.put("f", &base).unwrap();
    let journal = dir.join("journal");
    let before_write = std::fs::metadata(&journal).unwrap().len();
    let new = pattern(2, UNIT);
    store.write("f", 100, &new).unwrap();
    // The crash image: the store as the acknowledged write left it (its records on disk).
    let saved = top.path().join("saved");
    copy_tree(&dir, &saved);
    drop(store);

    // The journal cut at rest right before the write's first record: whole records lost,
    // the session's epoch record (at its start) kept.
    restore_with_journal_cut(&saved, &dir, &journal, before_write);
    let store = open_unsynced(&dir);
    match store.read("f", 100, UNIT as u64) {
        Err(_) => {}
        Ok(got) => assert!(
            got == new,
            "the acknowledged write 100+4096 read {} bytes of the put's old bytes with success",
            got.iter()
                .zip(&base[100..100 + UNIT])
                .filter(|(a, b)| a == b)
                .count()
        ),
    }
}

/// The control: the same crash image with its whole journal reads the write.
#[test]
fn the_same_crash_image_with_its_whole_journal_reads_the_acknowledged_write() {
    let (top, dir, _layout) = init_wcl_without_timeout(CodeSpec::raid6(4));
    let store = open_unsynced(&dir);
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    let new = pattern(2, UNIT);
    store.write("f", 100, &new).unwrap();
    let saved = top.path().join("saved");
    copy_tree(&dir, &saved);
    drop(store);
    let journal = dir.join("journal");
    let whole = std::fs::metadata(saved.join("journal")).unwrap().len();
    restore_with_journal_cut(&saved, &dir, &journal, whole);
    let store = open_unsynced(&dir);
    assert_eq!(store.read("f", 100, UNIT as u64).unwrap(), new);
}
