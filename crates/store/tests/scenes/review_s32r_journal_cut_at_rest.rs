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

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Opens the store at `dir` without fsync, or `None` where the open refused it: then the
/// refusal must name the journal as what lost records, the way out, and change nothing
/// (the journal keeps its length).
fn open_unless_refused_for_a_cut_journal(dir: &std::path::Path) -> Option<exaraid_store::Store> {
    let journal = dir.join("journal");
    let before = std::fs::metadata(&journal).unwrap().len();
    let options = exaraid_store::OpenOptions {
        fsync: false,
        ..exaraid_store::OpenOptions::default()
    };
    match exaraid_store::Store::open_with(dir, options) {
        Ok(store) => Some(store),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("the journal {} lost records", journal.display()))
                    && msg.contains("OSS ")
                    && msg.contains("Nothing was changed"),
                "the refusal names the cut journal and an OSS: {msg}"
            );
            assert_eq!(std::fs::metadata(&journal).unwrap().len(), before);
            None
        }
    }
}

#[test]
fn a_journal_that_lost_an_acknowledged_writes_records_at_rest_never_reads_its_old_bytes() {
    journal_lost_an_acknowledged_writes_records(false);
}

/// The same with fsync on, as stores run (review r38c MEDIUM-3: the test above exercises
/// only the marks a store without fsync writes after each plan; here the mark is the one
/// `DirBackend::sync` keeps, of the records the group commit made durable).
#[test]
fn with_fsync_a_journal_that_lost_an_acknowledged_writes_records_at_rest_never_reads_its_old_bytes()
{
    journal_lost_an_acknowledged_writes_records(true);
}

fn journal_lost_an_acknowledged_writes_records(fsync: bool) {
    let (top, dir, _layout) = init_wcl_without_timeout(CodeSpec::raid6(4));
    let store = match fsync {
        true => exaraid_store::Store::open(&dir).unwrap(),
        false => open_unsynced(&dir),
    };
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
    // A refused open reads nothing: that is the clear error asked for.
    let Some(store) = open_unless_refused_for_a_cut_journal(&dir) else {
        return;
    };
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

/// Bytes of the WCL cache zone files on every OSS of the store at `dir` (`oss_count` OSSs).
fn cache_zone_bytes(dir: &std::path::Path, oss_count: usize) -> Vec<u64> {
    let name = format!("{}.cache", u64::MAX);
    (0..oss_count)
        .map(|oss| std::fs::metadata(object_file(dir, oss, &name)).map_or(0, |m| m.len()))
        .collect()
}

/// The scene of s32h's twin of R32-3: an acknowledged WCL write 100+4096 into cache chunks
/// the cache zone already held (a quiet checkpoint restarts the planner and keeps the cache
/// zone, so its chunks are handed out again from the first). Returns the scratch dir, the
/// store dir, its crash image (`saved`), the journal's length before the write's records,
/// the write's bytes and the bytes at 100..4196 before it.
fn write_into_a_reused_cache_chunk() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
    u64,
    Vec<u8>,
    Vec<u8>,
) {
    let code = CodeSpec::raid6(4);
    let oss_count = columns(code);
    let (top, dir, _layout) = init_wcl_without_timeout(code);
    let store = open_unsynced(&dir);
    store.put("f", &pattern(1, 8 * UNIT)).unwrap();
    // Home stripe 0 filled through the cache in two writes: its cache stripe is complete,
    // moved home, its chunks freed; the checkpoint then finds nothing cached and restarts
    // the planner.
    let old = pattern(3, 4 * UNIT);
    store.write("f", 0, &old[..2 * UNIT]).unwrap();
    store.write("f", 2 * UNIT as u64, &old[2 * UNIT..]).unwrap();
    store.checkpoint().unwrap();
    let cache_before = cache_zone_bytes(&dir, oss_count);
    assert!(
        cache_before.iter().any(|&b| b > 0),
        "the scene needs a cache zone kept across the restart: {cache_before:?}"
    );
    // The session's epoch record after the checkpoint goes before this empty put's record,
    // which no cache write follows: a cut at `before_write` keeps both.
    store.put("g", &[]).unwrap();
    let before_write = std::fs::metadata(dir.join("journal")).unwrap().len();
    let new = pattern(2, UNIT);
    store.write("f", 100, &new).unwrap();
    assert_eq!(
        cache_zone_bytes(&dir, oss_count),
        cache_before,
        "the write went into chunks the cache zone already held"
    );
    let saved = top.path().join("saved");
    copy_tree(&dir, &saved);
    drop(store);
    (
        top,
        dir,
        saved,
        before_write,
        new,
        old[100..100 + UNIT].to_vec(),
    )
}

/// s32h, beside R32-3: the same cut where the lost write went into reused cache chunks. No
/// OSS file grows, no cache slot is first written: a witness made of the OSSs' written cache
/// slots (the extents record) cannot see this cut; one that records each write on every
/// OSS it reaches could.
#[test]
fn a_journal_that_lost_a_write_into_a_reused_cache_chunk_at_rest_never_reads_its_old_bytes() {
    let (_top, dir, saved, before_write, new, old) = write_into_a_reused_cache_chunk();
    restore_with_journal_cut(&saved, &dir, &dir.join("journal"), before_write);
    let Some(store) = open_unless_refused_for_a_cut_journal(&dir) else {
        return;
    };
    match store.read("f", 100, UNIT as u64) {
        Err(_) => {}
        Ok(got) => assert!(
            got == new,
            "the acknowledged write 100+4096 read {} bytes of the earlier write's bytes with success",
            got.iter().zip(&old).filter(|(a, b)| a == b).count()
        ),
    }
}

/// Its control: the same crash image with its whole journal reads the write.
#[test]
fn a_write_into_a_reused_cache_chunk_reads_back_from_its_crash_image_with_the_whole_journal() {
    let (_top, dir, saved, _, new, _) = write_into_a_reused_cache_chunk();
    let whole = std::fs::metadata(saved.join("journal")).unwrap().len();
    restore_with_journal_cut(&saved, &dir, &dir.join("journal"), whole);
    let store = open_unsynced(&dir);
    assert_eq!(store.read("f", 100, UNIT as u64).unwrap(), new);
}

/// s32h, the bounds of R32-3: on write paths that write home in place (rmw; delayed outside
/// a window) the same cut loses the write's records but not its bytes, which sit where
/// reads look: the read returns the acknowledged write.
#[test]
fn a_journal_cut_at_rest_on_an_in_place_write_path_still_reads_the_acknowledged_write() {
    for path in [WritePath::Rmw, WritePath::Delayed] {
        let (top, dir, _layout) = init_without_timeout_on(CodeSpec::raid6(4), UNIT, path);
        let store = open_unsynced(&dir);
        store.put("f", &pattern(1, 8 * UNIT)).unwrap();
        let journal = dir.join("journal");
        let before_write = std::fs::metadata(&journal).unwrap().len();
        let new = pattern(2, UNIT);
        store.write("f", 100, &new).unwrap();
        let saved = top.path().join("saved");
        copy_tree(&dir, &saved);
        drop(store);
        let whole = std::fs::metadata(saved.join("journal")).unwrap().len();
        assert!(
            whole > before_write,
            "{path:?}: the write left records to cut"
        );
        restore_with_journal_cut(&saved, &dir, &journal, before_write);
        let store = open_unsynced(&dir);
        // A trade since session 44 (s44b): the home witness kept the crcs of the put's
        // bytes (the cut dropped the write's records, and with them the input that drops
        // the put's pieces), so the read takes the write's bytes for a lost write's: the
        // stripe's parity agrees with them, not with the piece, and the block is recorded
        // LOST (named, on record), where before it read the acknowledged write.
        match store.read("f", 100, UNIT as u64) {
            Ok(got) => assert_eq!(got, new, "{path:?}: the write's bytes are home"),
            Err(exaraid_store::StoreError::DataLost(msg)) => {
                eprintln!("{path:?}: read LOST (the s44b trade): {msg}");
                let on_record = store.status().unwrap().lost_ranges;
                assert!(
                    on_record
                        .iter()
                        .any(|l| l.file == "f" && l.offset_bytes < 100 + UNIT as u64),
                    "{path:?}: {msg}: not on record: {on_record:?}"
                );
            }
            Err(e) => panic!("{path:?}: {e}"),
        }
    }
}
