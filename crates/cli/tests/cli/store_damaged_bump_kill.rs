//! Note 12 OPEN 3: the journal's last record is the metadata epoch's bump, damaged after
//! its fsync (the OSSs were told that epoch only after it). Session 12's open cut the
//! damaged record, made the cut durable, and appended the next bump later: an open killed
//! in between left the OSSs one epoch ahead of a journal with nothing to recognise, and
//! every later open was refused as metadata older than its OSSs. Specification: an open
//! killed right after it dealt with that tail (`torture::JOURNAL_TAIL`) leaves a store
//! that every later open takes, every acknowledged byte reading back right.

use crate::common;
use common::*;
use std::path::Path;

/// The bytes of the journal's record frames from byte `at` on: `(start, length)` of each.
fn frames_from(journal: &[u8], mut at: usize) -> Vec<(usize, usize)> {
    let mut frames = Vec::new();
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        frames.push((at, 8 + len));
        at += 8 + len;
    }
    assert_eq!(at, journal.len(), "the journal ends on a record");
    frames
}

/// A session whose first record is journaled is killed right after it: its epoch bump
/// came before it (durable, then the OSSs told). That first record dropped, the journal
/// ends with the bump, as a kill between the bump and the record leaves it. Returns the
/// bump's frame `(start, length)`.
fn journal_ending_with_a_bump(dir: &Path) -> (usize, usize) {
    let journal_path = dir.join("journal");
    let before = std::fs::read(&journal_path).unwrap().len();
    assert!(killed_at(
        &["store", "put", s(dir), "g"],
        &bytes(2, 9000),
        &format!("{}:1", exaraid_store::torture::JOURNAL_RECORD)
    ));
    let journal = std::fs::read(&journal_path).unwrap();
    let frames = frames_from(&journal, before);
    assert!(frames.len() >= 2, "the bump, then the session's record");
    let (start, len) = frames[0];
    let bump = String::from_utf8_lossy(&journal[start + 8..start + len]).to_string();
    assert!(
        bump.contains("OssGenerations"),
        "the session's first record is its epoch bump: {bump}"
    );
    std::fs::write(&journal_path, &journal[..start + len]).unwrap();
    (start, len)
}

#[test]
fn an_open_killed_after_mending_a_damaged_epoch_bump_leaves_a_store_that_opens() {
    let tmp = fast_tempdir("damaged-bump-kill");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let f = bytes(1, 40_000);
    ok(&["store", "put", d, "f"], &f);
    let (start, len) = journal_ending_with_a_bump(&dir);
    // One flipped bit in the bump's payload, after its fsync.
    let journal_path = dir.join("journal");
    let mut journal = std::fs::read(&journal_path).unwrap();
    journal[start + len - 5] ^= 0x10;
    std::fs::write(&journal_path, &journal).unwrap();

    assert!(
        killed_at(
            &["store", "get", d, "f"],
            b"",
            &format!("{}:1", exaraid_store::torture::JOURNAL_TAIL)
        ),
        "the open passes the point right after it dealt with the journal's tail"
    );
    // Every later open: reads right, takes a write, and opens again after it.
    for _ in 0..2 {
        assert!(ok(&["store", "get", d, "f"], b"") == f);
    }
    let g = bytes(3, 12_345);
    ok(&["store", "put", d, "g"], &g);
    assert!(ok(&["store", "get", d, "f"], b"") == f);
    assert!(ok(&["store", "get", d, "g"], b"") == g);
    ok(&["store", "status", d], b"");
}
