//! The open's check of the metadata against the OSSs (`refuse_older_metadata`) and the
//! journal's torn tail (review of session 11's merge, item 2). Specification:
//! - an open refused there changes nothing: a torn tail stays in the journal;
//! - the journal's last record damaged after its fsync when it is the metadata epoch's
//!   bump (the OSSs were told that epoch only after the fsync) does not make every later
//!   open refused: the open writes that record again in place, every acknowledged byte
//!   reads back, and the next bump goes past the epoch the OSSs hold (a kill right after
//!   that open: `crates/cli/tests/store_damaged_bump_kill.rs`);
//! - an older copy of the metadata, one epoch behind, with a torn tail of its own (a copy
//!   taken while a record was written, even the bump's) is still refused.

use super::*;

const BEHIND: &str = "the store's state and journal are older than its OSS directories";

fn init(dir: &Path) -> (Store, Vec<u8>) {
    let mut opts = InitOptions::with_oss_count(dir, 3, CodeSpec::raid5(2));
    opts.element_bytes = 4096;
    let store = Store::init(dir, &opts).unwrap();
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + 3) as u8).collect();
    store.put("f", &data).unwrap();
    store.close().unwrap();
    (Store::open(dir).unwrap(), data)
}

fn journal_of(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join(JOURNAL_FILE)).unwrap()
}

/// The store's next session bumps the epoch (fsync'd, then the OSSs told) and is killed
/// right after: the bump is the journal's last record. Returns the journal before the bump
/// and the bump's frame.
fn bump_then_crash(store: Store, dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let before = journal_of(dir);
    {
        let mut core = store.core.lock();
        store.bump_epoch(&mut core).unwrap();
    }
    drop(store); // a kill: no close
    let after = journal_of(dir);
    assert!(after.starts_with(&before) && after.len() > before.len());
    (before.clone(), after[before.len()..].to_vec())
}

fn epoch_told(dir: &Path) -> MetadataEpoch {
    let sb = Superblock::load(dir).unwrap();
    let label = OssLabel {
        store_id: sb.store_id,
        index: 0,
        element_bytes: 4096,
        block_crc_seed: sb.block_crc_seed,
        settings: None,
    };
    DirBackend::open(&dir.join("oss-0"), &label, None)
        .unwrap()
        .metadata_epoch()
        .unwrap()
        .expect("told an epoch")
}

#[test]
fn a_damaged_epoch_bump_at_the_journal_tail_opens_and_the_next_bump_goes_past_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (store, data) = init(dir);
    let (before, bump) = bump_then_crash(store, dir);
    let told = epoch_told(dir);
    // One flipped bit in the bump's payload, after its fsync: the open writes the record
    // the OSSs vouch for over it again.
    let mut damaged = before.clone();
    damaged.extend_from_slice(&bump);
    let at = before.len() + bump.len() - 5;
    damaged[at] ^= 0x10;
    std::fs::write(dir.join(JOURNAL_FILE), &damaged).unwrap();

    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused: {e}"));
    let mut mended = before.clone();
    mended.extend_from_slice(&bump);
    assert!(
        journal_of(dir) == mended,
        "the damaged record is written again in place, as it was before the damage"
    );
    assert!(store.get("f").unwrap() == data);
    let warnings = store.deferred_warnings.lock().clone();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("written again in place"))
            && !warnings.iter().any(|w| w.contains("cut off")),
        "the mend is told, and it is no tail cut (no write's record was lost): {warnings:?}"
    );
    assert!(
        store.core.lock().state.journal_tail_cuts.is_empty(),
        "no tail cut on record"
    );
    store.put("g", &data[..5000]).unwrap();
    let next = epoch_told(dir);
    assert!(
        next.number > told.number,
        "the next bump goes past the epoch the OSSs held: {next:?} after {told:?}"
    );
    drop(store); // a kill again: the journal replays to the same epoch
    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(store.get("f").unwrap() == data);
    assert!(store.get("g").unwrap() == data[..5000]);
    store.close().unwrap();
    Store::open(dir).unwrap().close().unwrap();
}

#[test]
fn an_open_refused_as_behind_leaves_the_torn_tail_in_the_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (store, _) = init(dir);
    let old_state = std::fs::read(dir.join(STATE_FILE)).unwrap();
    let old_journal = journal_of(dir);
    store.put("g", &[5u8; 9000]).unwrap();
    store.close().unwrap();
    // An older copy of the metadata put back, its journal ending in a torn record.
    std::fs::write(dir.join(STATE_FILE), &old_state).unwrap();
    let mut torn = old_journal.clone();
    torn.extend_from_slice(&[40, 0, 0, 0, 1, 2, 3, 4, b'{', b'"']);
    std::fs::write(dir.join(JOURNAL_FILE), &torn).unwrap();

    let err = Store::open(dir).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains(BEHIND)),
        "{err:?}"
    );
    assert!(
        journal_of(dir) == torn,
        "a refused open changes nothing, the journal's torn tail neither"
    );
}

#[test]
fn an_older_copy_one_epoch_behind_with_a_torn_tail_is_still_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (store, _) = init(dir);
    let old_state = std::fs::read(dir.join(STATE_FILE)).unwrap();
    let (before, bump) = bump_then_crash(store, dir);
    // The OSSs hold the new epoch; the metadata a copy taken while its bump was written
    // holds is one epoch behind.
    let restore = |tail: &[u8]| {
        std::fs::write(dir.join(STATE_FILE), &old_state).unwrap();
        let mut journal = before.clone();
        journal.extend_from_slice(tail);
        std::fs::write(dir.join(JOURNAL_FILE), &journal).unwrap();
    };
    // A copy taken while the bump was written (cut short), or while another record was
    // (not the bump), is one epoch behind the OSSs now: refused.
    let half = &bump[..bump.len() / 2];
    let mut other = bump.clone();
    for b in other.iter_mut().skip(8) {
        *b = b'x';
    }
    for tail in [half, &other[..]] {
        restore(tail);
        let err = Store::open(dir).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains(BEHIND)),
            "{err:?}"
        );
    }
}
