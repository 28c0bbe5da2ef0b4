//! Session 41 (s41c): the journal marks' open items (`backend::JOURNAL_MARK_FILE`, the check
//! at open in `store/journal_marks.rs`). A mark is the journal record the journal was
//! durable (or, without fsync, written) through when its OSS wrote cache zone bytes; an
//! open that finds one past the journal refuses the store (review s32r R32-3). These tests
//! hold the places review r38c (LOW-9) named untested or blind.

use crate::common;

use std::path::Path;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::backend::JOURNAL_MARK_FILE;
use exaraid_store::Store;

/// Bytes of OSS `oss`'s WCL cache zone file in the store at `dir` (empty: none).
fn cache_zone_of(dir: &Path, oss: usize) -> Vec<u8> {
    std::fs::read(object_file(dir, oss, &format!("{}.cache", u64::MAX))).unwrap_or_default()
}

/// Review r38c LOW-9: an OSS rebuilt in place in this process (its directory kept, or
/// emptied as a new disk at the same mount point) must keep marks of the writes after the
/// rebuild, so that a later journal cut that loses such a write is caught by its mark
/// alone. Scene: WCL writes, fail and rebuild (in place) an OSS that holds a mark, an empty
/// put after the rebuild's checkpoint (so the next session epoch's record survives the
/// cut), then an acknowledged WCL write whose cache bytes reach that OSS; the journal is
/// then cut before the write's records, and every OSS's mark but the rebuilt one's is
/// removed. Rule: the open refuses the store naming the rebuilt OSS, or the read returns
/// the write's bytes (or an error): never the bytes before it with success.
#[test]
fn an_oss_rebuilt_in_place_marks_the_writes_after_its_rebuild() {
    // Own directories: the rebuild makes a fresh `DirBackend`; supplied backends (a
    // remote OSS, the power-cut model): the same backend object is emptied and written.
    for (fsync, disk_lost, supplied) in [
        (true, false, false),
        (true, true, false),
        (false, false, false),
        (false, true, false),
        (true, false, true),
        (false, false, true),
    ] {
        eprintln!("scene: fsync {fsync}, disk lost {disk_lost}, backends supplied {supplied}");
        let what = format!("fsync {fsync}, disk lost {disk_lost}, backends supplied {supplied}");
        let code = CodeSpec::raid6(4);
        let (top, dir, _layout) = init_wcl_without_timeout(code);
        let options = exaraid_store::OpenOptions {
            fsync,
            ..exaraid_store::OpenOptions::default()
        };
        let mut store = match supplied {
            false => Store::open_with(&dir, options).unwrap(),
            true => {
                let backends = own_oss_dirs(&dir)
                    .into_iter()
                    .map(|b| Box::new(b) as Box<dyn exaraid_store::backend::Backend>)
                    .collect();
                Store::open_with_backends(&dir, options, backends).unwrap()
            }
        };
        store.put("f", &pattern(1, 8 * UNIT)).unwrap();
        let first = pattern(2, UNIT);
        store.write("f", 100, &first).unwrap();
        let marked = osses_with_a_mark(&dir, columns(code));
        assert!(!marked.is_empty(), "{what}: the first write left marks");
        let oss = marked[0];
        store.fail_oss(oss).unwrap();
        if disk_lost {
            lose_disk(&dir, oss);
        }
        store.rebuild(oss, None).unwrap();
        store.put("g", &[]).unwrap();
        let journal = dir.join("journal");
        let before_write = std::fs::metadata(&journal).unwrap().len();
        let cache_before = cache_zone_of(&dir, oss);
        let second = pattern(3, UNIT);
        store.write("f", 100, &second).unwrap();
        assert_ne!(
            cache_zone_of(&dir, oss),
            cache_before,
            "{what}: the scene needs the write's cache bytes on the rebuilt OSS {oss}"
        );
        let saved = top.path().join("saved");
        copy_tree(&dir, &saved);
        drop(store);
        for other in (0..columns(code)).filter(|&o| o != oss) {
            let _ =
                std::fs::remove_file(saved.join(format!("oss-{other}")).join(JOURNAL_MARK_FILE));
        }
        assert!(
            std::fs::metadata(saved.join("journal")).unwrap().len() > before_write,
            "{what}: the write left records to cut"
        );
        restore_with_journal_cut(&saved, &dir, &journal, before_write);
        let options = exaraid_store::OpenOptions {
            fsync: false,
            ..exaraid_store::OpenOptions::default()
        };
        match Store::open_with(&dir, options) {
            Err(e) => {
                let msg = e.to_string();
                eprintln!("{what}: refused: {msg}");
                assert!(
                    msg.contains("lost records") && msg.contains(&format!("OSS {oss} ")),
                    "{what}: the refusal names the cut journal and the rebuilt OSS {oss}: {msg}"
                );
            }
            Ok(store) => match store.read("f", 100, UNIT as u64) {
                Err(e) => eprintln!("{what}: opened, the read failed: {e}"),
                Ok(got) => assert!(
                    got == second,
                    "{what}: the journal cut lost the write after the rebuild of OSS {oss}, the open took it, and the read returned {} (the bytes before the write: {})",
                    if got == first { "the bytes before it" } else { "other bytes" },
                    got == first
                ),
            },
        }
    }
}

/// The journal's records in the file at `journal`: (start byte, end byte, seq), in order, up
/// to the first that is not whole (the journal's frame: `| len: u32 LE | crc: u32 LE |
/// payload: JSON {"seq": N, ...} |`).
fn journal_records(journal: &Path) -> Vec<(u64, u64, u64)> {
    let bytes = std::fs::read(journal).unwrap();
    let seq_of = |payload: &[u8]| -> u64 {
        let start = b"{\"seq\":";
        assert!(payload.starts_with(start), "a journal record's payload");
        let digits: String = payload[start.len()..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .map(|&b| b as char)
            .collect();
        digits.parse().unwrap()
    };
    (journal_whole_records(&bytes).into_iter())
        .map(|(a, z)| (a as u64, z as u64, seq_of(&bytes[a + 8..z])))
        .collect()
}

/// OSS `oss`'s journal mark in the store at `dir`: (seq, written without fsync); `None`
/// without a whole mark file (`backend::JOURNAL_MARK_FILE`'s layout: `| epoch: u64 | token:
/// u32 | seq word: u64, bit 63 = without fsync | crc32c: u32 |`).
fn mark_of(dir: &Path, oss: usize) -> Option<(u64, bool)> {
    let b = std::fs::read(dir.join(format!("oss-{oss}")).join(JOURNAL_MARK_FILE)).ok()?;
    if b.len() != 24 {
        return None;
    }
    let word = u64::from_le_bytes(b[12..20].try_into().unwrap());
    Some((word & !(1 << 63), word & (1 << 63) != 0))
}

/// Review r38c LOW-9, the torn-tail slack: a store WITHOUT fsync writes its marks naming
/// records only written (`Backend::write_journal_mark_unsynced`), so a power cut may keep a
/// mark and tear the very record it names (the journal's unsynced tail). The open allows one
/// record past a torn tail (`refuse_journal_behind_marks`, `tail_cut`): that store opens.
/// Rule: it opens (a refusal would trade every read of the store for nothing: no record
/// the mark names was lost whole), and the acknowledged write whose record was torn is not
/// read WRONG: it reads its bytes before the write (nothing was durable; its records are
/// gone), the write's bytes, or fails; never other bytes with success.
#[test]
fn a_store_without_fsync_torn_inside_the_record_its_mark_names_opens_and_reads_no_wrong_byte() {
    for code in [CodeSpec::raid5(4), CodeSpec::raid6(4)] {
        let (top, dir, _layout) = init_wcl_without_timeout(code);
        let store = open_unsynced(&dir);
        let base = pattern(1, 8 * UNIT);
        store.put("f", &base).unwrap();
        let journal = dir.join("journal");
        let before_write_bytes = std::fs::metadata(&journal).unwrap().len();
        let new = pattern(2, UNIT);
        store.write("f", 100, &new).unwrap();
        let saved = top.path().join("saved");
        copy_tree(&dir, &saved);
        drop(store);

        let (mark_seq, oss) = (0..columns(code))
            .filter_map(|oss| {
                mark_of(&saved, oss).map(|(seq, without_fsync)| {
                    assert!(
                        without_fsync,
                        "{:?}: OSS {oss}'s mark says the store ran without fsync",
                        code.kind
                    );
                    (seq, oss)
                })
            })
            .max()
            .expect("the WCL write left marks");
        let records = journal_records(&saved.join("journal"));
        let &(start, end, _) = records
            .iter()
            .find(|&&(_, _, seq)| seq == mark_seq)
            .unwrap_or_else(|| {
                panic!(
                    "{:?}: the journal holds record {mark_seq}, OSS {oss}'s mark",
                    code.kind
                )
            });
        assert!(
            start >= before_write_bytes,
            "{:?}: the marked record {mark_seq} is the write's (at byte {start}, the write's records from {before_write_bytes})",
            code.kind
        );
        let torn_bytes = start + (end - start) / 2;
        let what = format!(
            "{:?}: the journal torn at byte {torn_bytes}, inside record {mark_seq} ({start}..{end}) that OSS {oss}'s mark names",
            code.kind
        );
        restore_with_journal_cut(&saved, &dir, &journal, torn_bytes);
        let store = match exaraid_store::Store::open_with(
            &dir,
            exaraid_store::OpenOptions {
                fsync: false,
                ..exaraid_store::OpenOptions::default()
            },
        ) {
            Ok(store) => store,
            Err(e) => panic!("{what}: the open refused the store: {e}"),
        };
        match store.read("f", 100, UNIT as u64) {
            Err(e) => eprintln!("{what}: the write's range reads an error: {e}"),
            Ok(got) if got == new => eprintln!("{what}: the write's range reads the write"),
            Ok(got) if got[..] == base[100..100 + UNIT] => {
                eprintln!("{what}: the write's range reads its bytes before the write")
            }
            Ok(got) => panic!(
                "{what}: the write's range read {} bytes that are neither the write's nor those before it, with success",
                got.iter()
                    .zip(&new)
                    .zip(&base[100..100 + UNIT])
                    .filter(|((g, n), b)| g != n && g != b)
                    .count()
            ),
        }
        // The rest of the file: the put's bytes, untouched by the torn record.
        let mut rest = store.read("f", 0, 8 * UNIT as u64).unwrap();
        rest[100..100 + UNIT].copy_from_slice(&base[100..100 + UNIT]);
        assert!(
            rest == base,
            "{what}: the bytes outside the write read the put's"
        );
    }
}
