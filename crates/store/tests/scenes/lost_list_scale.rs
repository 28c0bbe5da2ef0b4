//! note15 item 3 (s15i leftover): past the changed-while-failed bound a rebuild after a
//! journal tail cut names LOST every written stripe it cannot check, so the lost list grows
//! with the store (a 100 GiB store: hundreds of thousands of ranges). The list was a plain
//! vector: each recorded range was checked against every range on record (the journal
//! replay at every open, and the rebuild that records them, quadratic: 100,000 ranges did
//! not open within minutes), and every write and read scanned it.
//!
//! Specification: a store with 100,000 lost ranges on record opens, writes and reads in
//! time proportional to what it does (seconds, not minutes), and the ranges stay exactly
//! as recorded: reads of them fail naming them, a write over one clears only that one.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{LostRange, Rec, LOST_RANGES_MAX};
use exaraid_store::{StoreError, WritePath};

/// Ranges as a rebuild past the bound names them: one per written element of the failed
/// OSS, with gaps between (the other columns' elements), journaled in records of 10,000.
const RANGES: usize = 100_000;
const STEP_BYTES: u64 = 8;
const LEN_BYTES: u64 = 4;

/// Far above what the work takes (well under a second beside other builds); on the
/// quadratic list the open alone took minutes.
const GENEROUS: Duration = Duration::from_secs(30);

#[test]
fn a_store_with_a_hundred_thousand_lost_ranges_opens_writes_and_reads_in_seconds() {
    const { assert!(RANGES < LOST_RANGES_MAX) };
    let root = scratch();
    let dir = root.path().join("store");
    let store = init(&dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    store
        .put("lost", &pattern(1, RANGES * STEP_BYTES as usize))
        .unwrap();
    let mut model = pattern(2, 1 << 20);
    store.put("g", &model).unwrap();
    let lost_id = store.file_id("lost").unwrap();
    store.close().unwrap();
    let ranges: Vec<LostRange> = (0..RANGES as u64)
        .map(|i| LostRange {
            file: lost_id,
            offset_bytes: STEP_BYTES * i,
            len_bytes: LEN_BYTES,
            oss: 1,
            token: "UNCHECKED_DECODE_AFTER_TAIL_CUT".into(),
            cache_addr_bytes: None,
            made_final_by_rebuild: false,
        })
        .collect();
    {
        // Journaled as the store's own records would be: past the last checkpoint.
        let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
        journal.advance_to(1 << 40);
        for chunk in ranges.chunks(10_000) {
            let rec = Rec::Lost {
                ranges: chunk.to_vec(),
            };
            journal.append(&rec, true).unwrap();
        }
    }

    let t = Instant::now();
    let store = open_unsynced(&dir);
    let opened = t.elapsed();
    assert!(opened < GENEROUS, "the open took {opened:?}");
    let status = store.status().unwrap();
    assert_eq!(status.lost_ranges.len(), RANGES, "every range on record");

    let t = Instant::now();
    for i in 0..1000u64 {
        let at = (i * 1000) as usize;
        model[at..at + 100].fill(i as u8);
        store.write("g", at as u64, &model[at..at + 100]).unwrap();
    }
    for i in 0..1000u64 {
        let at = i * 1000;
        assert_eq!(
            store.read("g", at, 100).unwrap(),
            model[at as usize..at as usize + 100]
        );
    }
    let worked = t.elapsed();
    assert!(worked < GENEROUS, "1,000 writes and reads took {worked:?}");

    // The index answers as the list did: a read over a lost range fails naming it; the
    // bytes between ranges read; a write over one range clears that one only.
    let at = STEP_BYTES * 77_777;
    match store.read("lost", at, LEN_BYTES) {
        Err(StoreError::DataLost(m)) => {
            assert!(m.contains(&format!("{at}..{}", at + LEN_BYTES)), "{m}")
        }
        other => panic!("a read of lost bytes must fail naming them: {other:?}"),
    }
    let between = pattern(1, RANGES * STEP_BYTES as usize);
    let gap = (at + LEN_BYTES) as usize;
    assert_eq!(
        store.read("lost", gap as u64, 4).unwrap(),
        between[gap..gap + 4]
    );
    store.write("lost", at, &[9u8; LEN_BYTES as usize]).unwrap();
    assert_eq!(store.read("lost", at, LEN_BYTES).unwrap(), vec![9u8; 4]);
    let status = store.status().unwrap();
    assert_eq!(
        status.lost_ranges.len(),
        RANGES - 1,
        "only the rewritten one cleared"
    );
    assert!(store.read("lost", at - STEP_BYTES, LEN_BYTES).is_err());
    assert!(store.read("lost", at + STEP_BYTES, LEN_BYTES).is_err());
    store.close().unwrap();
}

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

/// Appends `ranges` to the store's journal as `Rec::Lost` records of 10,000, as a rebuild
/// that records them durably leaves them.
fn journal_lost(dir: &std::path::Path, ranges: &[LostRange]) {
    let state: exaraid_store::state::State =
        exaraid_store::superblock::read_checked(&dir.join("state"), "state").unwrap();
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    for chunk in ranges.chunks(10_000) {
        let rec = Rec::Lost {
            ranges: chunk.to_vec(),
        };
        journal.append(&rec, true).unwrap();
    }
}

/// `count` one-byte ranges of file `file`, two bytes apart: room on the lost list taken.
fn filler(file: u64, count: usize) -> Vec<LostRange> {
    (0..count as u64)
        .map(|i| 2 * i)
        .map(|at| LostRange {
            file,
            offset_bytes: at,
            len_bytes: 1,
            oss: 2,
            token: "UNCHECKED_DECODE_AFTER_TAIL_CUT".into(),
            cache_addr_bytes: None,
            made_final_by_rebuild: false,
        })
        .collect()
}

/// The scene of the bound's tests: "f" written while OSS 1 was failed, "other" beside it;
/// `room_taken` one-byte lost ranges of "other" on record from before the failure (so the
/// failed OSS's record of changes does not grow with them). Returns "other"'s id.
fn written_while_failed_beside(dir: &std::path::Path, room_taken: usize) -> u64 {
    let store = init(dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    store.put("f", &pattern(71, 8 * sdb)).unwrap();
    store
        .put("other", &pattern(3, 2 * LOST_RANGES_MAX))
        .unwrap();
    let other = store.file_id("other").unwrap();
    store.close().unwrap();
    journal_lost(dir, &filler(other, room_taken));
    let store = open_unsynced(dir);
    store.fail_oss(FAILED).unwrap();
    store.write("f", 0, &pattern(72, 8 * sdb)).unwrap();
    store.close().unwrap();
    other
}

/// Review s16m M16-1: the bound counts only ranges not on record yet. A rerun of a rebuild
/// killed after it recorded what it cannot check names the same ranges again (every run
/// does the check since s16a); counted twice, a first run that recorded more than the
/// room left after it could never be rerun (the OSS stuck rebuilding: `online` refuses it,
/// the rebuild refused it). Here the first run's ranges are on record and the list is one
/// short of its bound: the rebuild goes on and names nothing twice.
#[test]
fn a_rebuild_whose_ranges_are_already_on_record_is_not_refused_by_the_bound() {
    let root = scratch();
    // What the rebuild names, learnt on the same scene rebuilt to the end: the first run's
    // records.
    let probe = root.path().join("probe");
    written_while_failed_beside(&probe, 0);
    cut_a_write_at_the_tail(&probe);
    let mut first = open_unsynced(&probe);
    first.rebuild(FAILED, None).unwrap();
    first.close().unwrap();
    let state: exaraid_store::state::State =
        exaraid_store::superblock::read_checked(&probe.join("state"), "state").unwrap();
    let named: Vec<LostRange> = state.lost.iter().cloned().collect();
    assert!(
        named.len() >= 2,
        "the scene names ranges the bound would count twice: {named:?}"
    );

    let dir = root.path().join("store");
    written_while_failed_beside(&dir, LOST_RANGES_MAX - 1 - named.len());
    journal_lost(&dir, &named);
    cut_a_write_at_the_tail(&dir);
    let mut store = open_unsynced(&dir);
    assert!(store.status().unwrap().journal_tail_cut.is_some());
    assert_eq!(
        store.status().unwrap().lost_ranges.len(),
        LOST_RANGES_MAX - 1
    );
    store
        .rebuild(FAILED, None)
        .unwrap_or_else(|e| panic!("nothing new to name, so nothing past the bound: {e}"));
    assert!(store.failed_osses().is_empty());
    assert_eq!(
        store.status().unwrap().lost_ranges.len(),
        LOST_RANGES_MAX - 1,
        "the first run's ranges named once"
    );
    store.close().unwrap();
}

/// The bound's refusal: a rebuild after a tail cut that would take the lost list past
/// `LOST_RANGES_MAX` changes nothing and says what to do; doing it (removing the file whose
/// ranges fill the list) lets the rebuild go on.
#[test]
fn a_rebuild_that_would_take_the_lost_list_past_its_bound_is_refused_changing_nothing() {
    let root = scratch();
    let dir = root.path().join("store");
    let store = init(&dir, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    store.put("f", &pattern(71, 8 * sdb)).unwrap();
    store
        .put("other", &pattern(3, 2 * LOST_RANGES_MAX))
        .unwrap();
    let other = store.file_id("other").unwrap();
    store.close().unwrap();
    let store = open_unsynced(&dir);
    store.fail_oss(FAILED).unwrap();
    store.write("f", 0, &pattern(72, 8 * sdb)).unwrap();
    store.close().unwrap();
    // One range short of the bound on record (as earlier rebuilds would have left them).
    journal_lost(&dir, &filler(other, LOST_RANGES_MAX - 1));
    cut_a_write_at_the_tail(&dir);
    let mut store = open_unsynced(&dir);
    assert!(store.status().unwrap().journal_tail_cut.is_some());

    let refused = store.rebuild(FAILED, None).unwrap_err().to_string();
    assert!(
        refused.contains("refused, nothing changed")
            && refused.contains(&format!("more than the {LOST_RANGES_MAX}"))
            && refused.contains("remove files"),
        "{refused}"
    );
    assert_eq!(store.failed_osses(), vec![FAILED], "still failed");
    let status = store.status().unwrap();
    assert_eq!(
        status.lost_ranges.len(),
        LOST_RANGES_MAX - 1,
        "nothing recorded"
    );

    store.remove("other").unwrap();
    store
        .rebuild(FAILED, None)
        .unwrap_or_else(|e| panic!("with the list emptied the rebuild goes on: {e}"));
    assert!(store.failed_osses().is_empty());
    assert!(
        !store.status().unwrap().lost_ranges.is_empty(),
        "and names what it cannot check"
    );
    store.close().unwrap();
}
