//! The open's check of the metadata against the OSSs (`refuse_older_metadata`) and the
//! journal's torn tail (review of session 11's merge, item 2). Specification:
//! - an open refused there changes nothing: a torn tail stays in the journal;
//! - the journal's last record damaged after its fsync when it is the metadata epoch's
//!   bump (the OSSs were told that epoch only after the fsync) does not make every later
//!   open refused: the open writes that record again in place, every acknowledged byte
//!   reads back, and the next bump goes past the epoch the OSSs hold (a kill right after
//!   that open: `crates/cli/tests/cli/store_damaged_bump_kill.rs`);
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

/// A tempdir on a RAM file system where there is one: the tests below make a thousand
/// epoch bumps, each fsync'd.
fn fast_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

fn epoch_file(dir: &Path, oss: usize) -> PathBuf {
    dir.join(format!("oss-{oss}"))
        .join(crate::backend::EPOCH_FILE)
}

/// The journal's last record is an epoch bump damaged after its fsync, and the only OSS
/// told that epoch before the crash (OSS 0: the kill came before OSSs 1 and 2 were told) is
/// missing at the next open (not mounted). Nothing vouches for the damaged record, so that
/// open cuts it and the store goes on, making new epochs. OSS 0, mounted again later, holds
/// the lost bump's epoch: this store's own, so it opens (no "another copy" refusal of the
/// store's own OSS), and reads right.
#[test]
fn a_damaged_bump_told_only_to_a_missing_oss_does_not_make_it_another_copys_later() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (store, data) = init(dir);
    let not_told: Vec<(PathBuf, Vec<u8>)> = [1, 2]
        .into_iter()
        .map(|i| {
            let path = epoch_file(dir, i);
            let text = std::fs::read(&path).unwrap();
            (path, text)
        })
        .collect();
    let (before, bump) = bump_then_crash(store, dir);
    for (path, text) in &not_told {
        std::fs::write(path, text).unwrap();
    }
    let mut damaged = before.clone();
    damaged.extend_from_slice(&bump);
    let at = before.len() + bump.len() - 5;
    damaged[at] ^= 0x10;
    std::fs::write(dir.join(JOURNAL_FILE), &damaged).unwrap();
    let away = dir.join("oss-0.away");
    std::fs::rename(dir.join("oss-0"), &away).unwrap();

    // (A read would need a decode through parity the cut may have left stale: refused.)
    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused without OSS 0: {e}"));
    store.close().unwrap();
    std::fs::rename(&away, dir.join("oss-0")).unwrap();
    let store = Store::open(dir).unwrap_or_else(|e| panic!("its own OSS 0 refused: {e}"));
    assert!(store.get("f").unwrap() == data);
    store.close().unwrap();
    Store::open(dir).unwrap().close().unwrap();
}

/// `n` epoch bumps, as `n` writing sessions' first records make them: on record, then
/// told to every OSS in service. Killed after (no close: no further bump).
fn bumps(dir: &Path, n: u64) {
    let store = Store::open(dir).unwrap();
    {
        let mut core = store.core.lock();
        for _ in 0..n {
            store.bump_epoch(&mut core).unwrap();
        }
    }
    drop(store);
}

/// Every element OSS `oss` holds, its bytes changed (checksums valid): a directory that is
/// not this store's own OSS (another copy's, which went on) holds other bytes at the same
/// places, which only decoding around it gets right.
fn other_bytes_on(dir: &Path, oss: usize) {
    let b = backend_of(dir, oss);
    let mut changed = 0;
    for (object, zone, slots) in b.objects().unwrap() {
        for slot in 0..slots {
            let key = ElementKey { object, zone, slot };
            let mut bytes = vec![0u8; 4096];
            b.read(key, 0, &mut bytes).unwrap();
            bytes.iter_mut().for_each(|x| *x ^= 0x5a);
            b.write(key, 0, &bytes).unwrap();
            changed += 1;
        }
    }
    b.sync().unwrap();
    assert!(changed > 0, "OSS {oss} holds elements of f");
}

/// An OSS left behind by the whole lineage (`EPOCH_LINEAGE_LEN` epochs) or more, not
/// holding the epoch it was recorded left at: the state no longer keeps the token of the
/// epoch it holds, so nothing can tell this store's own OSS left behind from another copy's.
/// Since session 16 (review s15r R15-3, direction a) the store opens with it UNAVAILABLE,
/// as a rolled-back OSS, instead of refusing every command (one epoch less far behind,
/// still in the lineage, opens with it in service, as before). Its bytes are never read as
/// current (here they are another copy's, different under valid checksums): reads and
/// writes decode around it, scrub names it, `online` refuses it, and a rebuild in place
/// empties it and the store opens with it.
#[test]
fn an_oss_behind_by_the_whole_lineage_opens_unavailable_and_is_rebuilt() {
    use crate::state::EPOCH_LINEAGE_LEN;
    let tmp = fast_tempdir();
    let dir = tmp.path();
    let (store, data) = init(dir);
    drop(store);
    let left_behind = epoch_file(dir, 2);
    let told_then = std::fs::read(&left_behind).unwrap();
    bumps(dir, EPOCH_LINEAGE_LEN - 1);
    std::fs::write(&left_behind, &told_then).unwrap();
    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused within the lineage: {e}"));
    assert!(store.get("f").unwrap() == data);
    assert!(store.backends[2].healthy(), "in service within the lineage");
    drop(store);

    bumps(dir, 1);
    std::fs::write(&left_behind, &told_then).unwrap();
    other_bytes_on(dir, 2);
    let unprovable = |e: &str| {
        e.contains("OSS 2")
            && e.contains("epochs behind")
            && e.contains(&format!("latest {EPOCH_LINEAGE_LEN} epochs only"))
            && e.contains("cannot prove")
    };
    // Its ways out (rebuild it, or remove its epoch file) are the last word, each said once:
    // a generic "rebuild it" after them read as a second, conflicting instruction (merge
    // review s16m M16-3).
    let ways_out_last = |e: &str| {
        e.matches("exaraid store rebuild").count() == 1
            && e.ends_with("the next writing command tells it the current epoch")
    };
    let mut store = Store::open(dir).unwrap_or_else(|e| panic!("refused past the lineage: {e}"));
    let status = store.status().unwrap();
    let o = &status.oss[2];
    assert!(!o.healthy && !o.failed_on_record && !o.missing, "{o:?}");
    let problem = o.problem.clone().unwrap_or_default();
    assert!(
        unprovable(&problem)
            && problem.contains("UNAVAILABLE")
            && problem.contains(&format!("exaraid store rebuild {} --oss 2", dir.display()))
            && ways_out_last(&problem),
        "status names it, why and what to do: {problem}"
    );
    assert!(store.get("f").unwrap() == data, "decoded around OSS 2");
    let report = store.scrub(true).unwrap();
    assert!(
        report
            .oss_problems
            .iter()
            .any(|(i, p)| *i == 2 && unprovable(p) && ways_out_last(p))
            && report.corrupt_elements.is_empty()
            && report.parity_mismatches.is_empty(),
        "{report:?}"
    );
    let err = store.online_oss(2).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(
            |e| e.contains("UNAVAILABLE") && e.matches("exaraid store rebuild").count() == 1
        ),
        "{err:?}"
    );
    let mut written = data.clone();
    written[5000..5100].fill(0xab);
    store.write("f", 5000, &[0xab; 100]).unwrap();
    assert!(
        store.failed_osses() == vec![2],
        "the write recorded it failed (as the problem says)"
    );
    assert!(store.get("f").unwrap() == written);
    drop(store); // a crash: no close

    // Reopened: failed on record now, and `online` still does not take it as current.
    let mut store = Store::open(dir).unwrap_or_else(|e| panic!("refused after a crash: {e}"));
    assert!(store.failed_osses() == vec![2]);
    assert!(store.get("f").unwrap() == written);
    let err = store.online_oss(2).err().map(|e| e.to_string());
    assert!(err.as_deref().is_some_and(unprovable), "{err:?}");
    store.rebuild(2, None).unwrap();
    assert!(
        std::fs::read(&left_behind).ok() != Some(told_then.clone()),
        "the rebuilt directory no longer holds the epoch it was left behind at"
    );
    drop(store); // a crash: no close
    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused, rebuilt: {e}"));
    assert!(store.failed_osses().is_empty() && store.backends[2].healthy());
    assert!(store.get("f").unwrap() == written);
    let report = store.scrub(false).unwrap();
    assert!(
        report.corrupt_elements.is_empty() && report.parity_mismatches.is_empty(),
        "{report:?}"
    );
    store.close().unwrap();
}

/// Review s15r R15-3d: OSS 1 failed on record (a dead disk awaiting its replacement, raid5
/// tolerating one), OSS 2 back past the lineage and not provably this store's. Out of
/// service it would leave two OSSs out and nothing readable that needs both, and no
/// command could help (`fail` refused past the tolerance, OSS 1 not rebuildable without
/// it): the open is refused, nothing changed, naming OSS 2 and the ways out. The first way
/// (this store's own OSS only away: remove its epoch file) works: every byte reads right,
/// and OSS 1 is rebuilt.
#[test]
fn an_oss_past_the_lineage_beyond_the_tolerance_refuses_the_open_naming_the_way_out() {
    use crate::state::EPOCH_LINEAGE_LEN;
    let tmp = fast_tempdir();
    let dir = tmp.path();
    let (store, data) = init(dir);
    store.fail_oss(1).unwrap();
    store.close().unwrap();
    let left_behind = epoch_file(dir, 2);
    let told_then = std::fs::read(&left_behind).unwrap();
    bumps(dir, EPOCH_LINEAGE_LEN);
    std::fs::write(&left_behind, &told_then).unwrap();
    let metadata = |dir: &Path| {
        (
            journal_of(dir),
            std::fs::read(dir.join(STATE_FILE)).unwrap(),
        )
    };
    let before = metadata(dir);

    let err = Store::open(dir).err().map(|e| e.to_string());
    let e = err.as_deref().unwrap_or_default();
    assert!(
        e.contains("OSS 2")
            && e.contains("cannot prove")
            && e.contains("Nothing was changed")
            && e.contains("OSS 1 failed on record")
            && e.contains("tolerates 1")
            && e.contains(&format!("remove {}", left_behind.display()))
            && e.contains(&format!("exaraid store rebuild {} --oss 1", dir.display())),
        "{err:?}"
    );
    assert!(metadata(dir) == before, "a refused open changes nothing");

    std::fs::remove_file(&left_behind).unwrap();
    let mut store = Store::open(dir).unwrap_or_else(|e| panic!("refused, epoch file removed: {e}"));
    assert!(store.backends[2].healthy());
    assert!(store.get("f").unwrap() == data);
    store.rebuild(1, None).unwrap();
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    assert!(store.failed_osses().is_empty());
    assert!(store.get("f").unwrap() == data);
    assert_eq!(
        backend_of(dir, 2).metadata_epoch().unwrap(),
        store.core.lock().state.metadata_epoch(),
        "told again"
    );
    store.close().unwrap();
}

/// `n` writing sessions (a command that writes: its first record's bump, its close's seal,
/// two epochs each), none touching the OSSs' bytes.
fn sessions(dir: &Path, n: u64) {
    for _ in 0..n {
        let store = Store::open(dir).unwrap();
        {
            let mut core = store.core.lock();
            store.bump_epoch(&mut core).unwrap();
        }
        store.close().unwrap();
    }
}

fn backend_of(dir: &Path, oss: usize) -> DirBackend {
    let sb = Superblock::load(dir).unwrap();
    let label = OssLabel {
        store_id: sb.store_id,
        index: oss,
        element_bytes: 4096,
        block_crc_seed: sb.block_crc_seed,
        settings: None,
    };
    DirBackend::open(&dir.join(format!("oss-{oss}")), &label, None).unwrap()
}

/// Review s15r R15-3: an OSS directory away (unmounted, moved aside) while more writing
/// sessions ran than the lineage keeps epochs of, none of them touching its bytes (never
/// recorded failed), comes back. It is this store's own OSS left behind, current for every
/// byte it holds: the store opens with it (it was refused, and the store with it, until a
/// full rebuild), every byte reads right, and the next session tells it the current epoch.
/// Another copy's directory holding that epoch's number with another token is still not
/// taken as current (out of service): the store recorded which epoch it was left at, token
/// and all.
#[test]
fn an_oss_away_while_the_lineage_went_by_is_taken_back_as_this_stores_own() {
    use crate::state::EPOCH_LINEAGE_LEN;
    let tmp = fast_tempdir();
    let dir = tmp.path();
    let (store, data) = init(dir);
    store.close().unwrap();
    let left_at = backend_of(dir, 2).metadata_epoch().unwrap().unwrap();
    let away = dir.join("oss-2.away");
    std::fs::rename(dir.join("oss-2"), &away).unwrap();
    sessions(dir, EPOCH_LINEAGE_LEN / 2 + 4);
    let store = Store::open(dir).unwrap();
    assert!(store.get("f").unwrap() == data, "decoded without OSS 2");
    let recorded = store.core.lock().state.metadata_epoch().unwrap();
    assert!(recorded.number - left_at.number > EPOCH_LINEAGE_LEN);
    drop(store);

    std::fs::rename(&away, dir.join("oss-2")).unwrap();
    let told_then = std::fs::read(epoch_file(dir, 2)).unwrap();
    let forged = MetadataEpoch {
        number: left_at.number,
        token: left_at.token ^ 1,
    };
    backend_of(dir, 2)
        .set_metadata_epoch(forged, None, true)
        .unwrap();
    // Not taken as current (since session 16 out of service, not the whole store refused).
    let store = Store::open(dir).unwrap_or_else(|e| panic!("refused: {e}"));
    let problem = store.status().unwrap().oss[2].problem.clone();
    assert!(
        problem
            .as_deref()
            .is_some_and(|e| e.contains("OSS 2") && e.contains("cannot prove")),
        "another token at the epoch OSS 2 was left at: {problem:?}"
    );
    assert!(store.get("f").unwrap() == data, "decoded without OSS 2");
    store.close().unwrap();
    std::fs::write(epoch_file(dir, 2), &told_then).unwrap();

    let store = Store::open(dir).unwrap_or_else(|e| panic!("its own OSS 2 refused: {e}"));
    assert!(store.failed_osses().is_empty());
    assert!(store.get("f").unwrap() == data);
    let mut written = data.clone();
    written[5000..5100].fill(0xab);
    store.write("f", 5000, &[0xab; 100]).unwrap();
    store.close().unwrap();
    assert_eq!(
        backend_of(dir, 2)
            .metadata_epoch()
            .unwrap()
            .map(|e| e.number),
        Some(recorded.number + 2),
        "told the epochs of the session after its return"
    );
    let store = Store::open(dir).unwrap();
    assert!(store.get("f").unwrap() == written);
    assert!(store.failed_osses().is_empty());
    store.close().unwrap();
}

/// An OSS away for a while (on record as left behind), back and told the epochs of a few
/// sessions, then away again for longer than the lineage reaches (down at the open of the
/// session after its last: nothing reads what it holds then) is still recognised: each
/// close puts the epoch it tells on record for an OSS that was left behind before.
#[test]
fn an_oss_away_twice_is_recognised_the_second_time() {
    use crate::state::EPOCH_LINEAGE_LEN;
    let tmp = fast_tempdir();
    let dir = tmp.path();
    let (store, data) = init(dir);
    store.close().unwrap();
    let away = dir.join("oss-1.away");
    std::fs::rename(dir.join("oss-1"), &away).unwrap();
    sessions(dir, 3);
    std::fs::rename(&away, dir.join("oss-1")).unwrap();
    sessions(dir, 3);
    std::fs::rename(dir.join("oss-1"), &away).unwrap();
    sessions(dir, EPOCH_LINEAGE_LEN / 2 + 4);
    std::fs::rename(&away, dir.join("oss-1")).unwrap();
    let store = Store::open(dir).unwrap_or_else(|e| panic!("its own OSS 1 refused: {e}"));
    assert!(store.failed_osses().is_empty());
    assert!(store.get("f").unwrap() == data);
    store.close().unwrap();
}

/// Review s15r R15-3b: an OSS in service that was not told the store's latest epochs (its
/// epoch file refused the writes; here: put back as it was after each) is named by
/// `status`, with what it risks and what to do, from the first epoch it missed; told again
/// (the file writable), the warning goes.
#[test]
fn status_warns_of_an_oss_in_service_not_told_the_latest_epoch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (store, _) = init(dir);
    let status = store.status().unwrap();
    assert!(
        status.oss.iter().all(|o| o.epoch_not_told.is_none()),
        "every OSS holds the latest epoch: {status:?}"
    );
    store.close().unwrap();
    let told_then = std::fs::read(epoch_file(dir, 2)).unwrap();
    sessions(dir, 1);
    std::fs::write(epoch_file(dir, 2), &told_then).unwrap();

    let store = Store::open(dir).unwrap();
    let status = store.status().unwrap();
    let warning = status.oss[2].epoch_not_told.clone().unwrap_or_default();
    assert!(
        warning.contains("epochs behind")
            && warning.contains("not told")
            && warning.contains(&format!("{} refuses writes", epoch_file(dir, 2).display()))
            && warning.contains("make it writable"),
        "{warning:?}"
    );
    assert!(status.oss[2].healthy && status.oss[2].problem.is_none());
    assert!(status.oss[..2].iter().all(|o| o.epoch_not_told.is_none()));
    store.put("g", &[1u8; 100]).unwrap();
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    assert!(
        store.status().unwrap().oss[2].epoch_not_told.is_none(),
        "told again"
    );
    store.close().unwrap();
}
