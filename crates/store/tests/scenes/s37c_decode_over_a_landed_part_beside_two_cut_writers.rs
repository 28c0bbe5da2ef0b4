//! s37c ("OPEN after session 35" (1)(b), s35a review H2, traced by hand): in
//! `decide_cache_stripe`, a cache data block failing its checksum whose cut write's part
//! landed (its journaled crcs hold) and holds no acknowledged byte beside that part is not
//! `rotten_cut`; where the decode of the row disagrees with it at the acknowledged bytes
//! inside the write's range (`mine_disagrees`), no stored checksum confirms a candidate and
//! only parity is in flight beside it (`only_parity_beside`), the arm `(None, Some(d)) if
//! mine_disagrees && only_parity_beside` copied that decode over the bytes the write's crc
//! proved. With two cut writers in the cache stripe `stale_beside_cut_write` checks nothing,
//! so a stale column read by the decode put its delta there.
//!
//! Scene (WCL, raid6 4+2, 8 KiB elements: two 4 KiB blocks each, one block per element
//! row): cache stripe 0 holds data element 1's bytes `CUT_AT..CUT_AT + CUT_BYTES` and data
//! element 2 whole, acknowledged; element 2 is written twice and its OSS loses the second
//! write (stale: old bytes under a valid checksum). Two client writes are cut: A over
//! exactly element 1's acknowledged bytes (block 0), landed with P and Q's running parity
//! of block row 0 (its journaled crcs hold); B over element 1's block 1, nothing of it on
//! disk. Then element 1's block 0 rots at one unacknowledged byte (`ROT_AT`): it fails its
//! checksum. The decode of block row 0 reads the stale element.
//!
//! What must hold: every acknowledged block of `f` reads its bytes (inside A old or new;
//! B landed nothing, so old) or is named LOST on record.
//!
//! Found (s37c, on dba232e): "WRONG byte 9192" (A's first byte: the decode through the stale
//! element copied over A's landed part). With that arm kept from bytes the write's crc
//! proved, A's block reads right, and the stale element itself reads WRONG (byte 16384):
//! several cut writers on a cache stripe are not checked for a stale element at all
//! (`stale_beside_cut`'s module doc, "Not checked"), a known limit this scene does not
//! close. So the test that must pass checks every block but the stale element's
//! (`..._outside_the_stale_element_...`); the whole file is the ignored OPEN one.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// Bytes per element: two 4 KiB checksum blocks, so the second writer's range lies in
/// another block row of the same cache stripe (beside the first only by the cache stripe).
const ELEMENT_BYTES: usize = 2 * UNIT;
/// Cut write A: bytes `CUT_AT..CUT_AT + CUT_BYTES` of data element `CUT_DATA` of stripe 0,
/// exactly the bytes an earlier acknowledged write cached there.
const CUT_AT: usize = 1000;
const CUT_BYTES: usize = 600;
const CUT_DATA: usize = 1;
/// Cut write B: in element `CUT_DATA`'s second block.
const B_AT: usize = UNIT + 1000;
const B_BYTES: usize = 600;
/// The cached data element whose OSS loses its second write.
const STALE_DATA: usize = 2;
/// The rotten byte of element `CUT_DATA`'s block 0: no write cached it (unacknowledged in
/// the cache stripe).
const ROT_AT: usize = 3000;

fn write_acked(dir: &Path, model: &mut [u8], at: usize, bytes: &[u8]) {
    let store = open_unsynced(dir);
    store.write("f", at as u64, bytes).unwrap();
    model[at..at + bytes.len()].copy_from_slice(bytes);
    store.close().unwrap();
}

/// Replace OSS `oss`'s object files in `to` by those in `from`.
fn copy_objects(from: &Path, to: &Path, oss: usize) {
    let objects = |d: &Path| d.join(format!("oss-{oss}")).join("objects");
    std::fs::remove_dir_all(objects(to)).unwrap();
    copy_tree(&objects(from), &objects(to));
}

/// Where `needle` lies in OSS `oss`'s object files of `dir`: (file, byte offset), once.
fn find_bytes(dir: &Path, oss: usize, needle: &[u8]) -> (PathBuf, usize) {
    let mut found = Vec::new();
    for name in object_names(dir, oss) {
        let path = object_file(dir, oss, &name);
        let bytes = std::fs::read(&path).unwrap();
        for (at, w) in bytes.windows(needle.len()).enumerate() {
            if w == needle {
                found.push((path.clone(), at));
            }
        }
    }
    assert_eq!(found.len(), 1, "the bytes lie once on OSS {oss}: {found:?}");
    found.pop().unwrap()
}

/// Every 4 KiB block of `f` outside `skip` reads its acknowledged bytes (`model`; inside
/// `cut` old or `new`) or is LOST on record, as `assert_blocks_read_or_lost_on_record`
/// (which it calls with nothing skipped).
fn blocks_read_or_lost_outside(
    store: &Store,
    model: &[u8],
    (cut, new): (std::ops::Range<usize>, &[u8]),
    skip: Option<std::ops::Range<usize>>,
    what: &str,
) -> Vec<usize> {
    let Some(skip) = skip else {
        return assert_blocks_read_or_lost_on_record(store, "f", model, cut, new, what);
    };
    let on_record: Vec<(u64, u64)> = (store.status().unwrap().lost_ranges.iter())
        .filter(|l| l.file == "f")
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    let mut lost = Vec::new();
    for at in (0..model.len()).step_by(UNIT) {
        let len = UNIT.min(model.len() - at);
        if skip.start < at + len && at < skip.end {
            continue;
        }
        match store.read("f", at as u64, len as u64) {
            Ok(got) => {
                for (j, &x) in got.iter().enumerate() {
                    let i = at + j;
                    let ok = x == model[i] || (cut.contains(&i) && x == new[i - cut.start]);
                    assert!(
                        ok,
                        "{what}: 'f' WRONG byte {i}: {x:#04x}, acknowledged {:#04x}",
                        model[i]
                    );
                }
            }
            Err(StoreError::DataLost(msg)) => {
                let (a, z) = (at as u64, (at + len) as u64);
                assert!(
                    on_record.iter().any(|&(s, e)| s < z && a < e),
                    "{what}: 'f' bytes {a}..{z} read DataLost ({msg}), no loss on record"
                );
                lost.push(at);
            }
            Err(e) => panic!("{what}: 'f' read at {at}: {e}"),
        }
    }
    lost
}

/// The scene; `skip_stale`: the stale element's blocks are not read (see the module doc).
fn two_cut_writers_beside_a_stale_element_and_a_rotten_landed_block(
    code: CodeSpec,
    skip_stale: bool,
) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let (saved, after_a, older) = (
        tmp.path().join("saved"),
        tmp.path().join("after-a"),
        tmp.path().join("older"),
    );
    let cols = exaraid_codes::Code::new(code).unwrap().geometry().cols;
    let mut opts = InitOptions::with_oss_count(&dir, cols, code);
    opts.element_bytes = ELEMENT_BYTES;
    opts.write_path = WritePath::Wcl;
    let store = Store::init(&dir, &opts).unwrap();
    let layout = store.layout().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = splitmix_bytes(1, 2 * sdb);
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    let at = |d: usize, o: usize| layout.file_offset(0, d, o as u64) as usize;
    let oss_of = |d: usize| layout.oss_of(id, 0, layout.geometry().data_pos[d].col);
    let a_at = at(CUT_DATA, CUT_AT);
    write_acked(&dir, &mut model, a_at, &splitmix_bytes(6, CUT_BYTES));
    write_acked(
        &dir,
        &mut model,
        at(STALE_DATA, 0),
        &splitmix_bytes(7, ELEMENT_BYTES),
    );
    copy_tree(&dir, &older);
    write_acked(
        &dir,
        &mut model,
        at(STALE_DATA, 0),
        &splitmix_bytes(4, ELEMENT_BYTES),
    );
    copy_tree(&dir, &saved);

    let (a_new, b_new) = (splitmix_bytes(3, CUT_BYTES), splitmix_bytes(8, B_BYTES));
    let b_at = at(CUT_DATA, B_AT);
    let store = open_unsynced(&dir);
    store.write("f", a_at as u64, &a_new).unwrap();
    copy_tree(&dir, &after_a);
    store.write("f", b_at as u64, &b_new).unwrap();
    let journal_copy = tmp.path().join("cut-journal");
    std::fs::copy(dir.join("journal"), &journal_copy).unwrap();
    store.close().unwrap();
    let (_, records) = Journal::<Rec>::open(&journal_copy).unwrap();
    let records: Vec<Rec> = (records.into_iter().map(|(_, rec)| rec))
        .filter(|rec| match rec {
            Rec::Input(Input::Write { offset_bytes, .. }) => {
                [a_at as u64, b_at as u64].contains(offset_bytes)
            }
            Rec::WriteCrcs(_) | Rec::WriteParityCrcs(_) => true,
            _ => false,
        })
        .collect();
    let inputs = (records.iter())
        .filter(|r| matches!(r, Rec::Input(_)))
        .count();
    assert_eq!(
        inputs,
        2,
        "both cut writes' inputs: {} records",
        records.len()
    );

    // The crash image: the tree before both writes, every OSS's objects as A left them
    // (element 1's block 0 and P, Q's block row 0 landed; B issued nothing), the stale
    // element's OSS as before its second write, both writes' records journaled.
    std::fs::remove_dir_all(&dir).unwrap();
    copy_tree(&saved, &dir);
    for oss in 0..cols {
        copy_objects(&after_a, &dir, oss);
    }
    copy_objects(&older, &dir, oss_of(STALE_DATA));
    let state: exaraid_store::state::State =
        exaraid_store::superblock::read_checked(&dir.join("state"), "state").unwrap();
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    for rec in &records {
        journal.append(rec, true).unwrap();
    }
    drop(journal);
    let (file, a_pos) = find_bytes(&dir, oss_of(CUT_DATA), &a_new);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[a_pos - CUT_AT + ROT_AT] ^= 0x5a;
    std::fs::write(&file, bytes).unwrap();

    let store = open_unsynced(&dir);
    let what = format!("{code:?}, two cut writers, stale element {STALE_DATA}, rot at {ROT_AT}");
    // B landed nothing: its bytes read old (the model); A's old or new.
    let cut = a_at..a_at + CUT_BYTES;
    let skip = skip_stale.then(|| at(STALE_DATA, 0)..at(STALE_DATA, 0) + ELEMENT_BYTES);
    let mut lost =
        blocks_read_or_lost_outside(&store, &model, (cut.clone(), &a_new), skip.clone(), &what);
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("{what}: flush: {e}"),
    }
    lost.extend(blocks_read_or_lost_outside(
        &store,
        &model,
        (cut, &a_new),
        skip,
        &format!("{what}: after the flush"),
    ));
    eprintln!("{what}: blocks at {lost:?} LOST");
    assert!(
        lost.iter().all(|&at| at < sdb),
        "{what}: blocks at {lost:?} LOST outside cache stripe 0"
    );
}

#[test]
fn raid6_a_rotten_landed_block_beside_two_cut_writers_reads_no_wrong_byte_outside_the_stale_element(
) {
    two_cut_writers_beside_a_stale_element_and_a_rotten_landed_block(CodeSpec::raid6(4), true);
}

// Was ignored OPEN: several cut writers on a cache stripe are never checked for a stale
// element (stale_beside_cut's module doc): the stale element read WRONG byte 16384 (on
// d1404252 too). Closed in session 43 (s43b), un-ignored: the cache-zone witness keeps the
// crc of the stale element's acknowledged bytes, and the stale bytes are recorded LOST,
// never read as right.
#[test]
fn raid6_a_rotten_landed_block_beside_two_cut_writers_and_a_stale_element_reads_no_wrong_byte() {
    two_cut_writers_beside_a_stale_element_and_a_rotten_landed_block(CodeSpec::raid6(4), false);
}
