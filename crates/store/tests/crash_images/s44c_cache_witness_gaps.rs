//! s44c: the cache-zone witness's known gaps (`State::cache_witness`, session 43; docs/store.md
//! "Limits"). Each scene is a WCL store with one open cache stripe (raid5, k = 4, 4 KiB
//! elements: one block per element, one row) whose data OSSs lose writes: a lost write is made
//! by copying an OSS's cache zone file from before the write back over it after the write
//! (old bytes under their valid older checksum, a "stale element"), as
//! `scenes/stale_cache_element.rs` does. No crash: the store is closed cleanly between steps.
//!
//! Why here (`crash_images`): plans run one at a time in plan order in this binary, so which
//! bytes each cache zone file holds when it is copied does not depend on the machine's load.

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};

/// The cache zone file of `oss` (every cache chunk of that OSS).
fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

/// A lost write of element `d` of stripe 0: its byte range (element bytes).
type LostWrite = (usize, std::ops::Range<usize>);

/// The scene's store: where it is, what was acknowledged, who holds what.
struct Scene {
    _top: tempfile::TempDir,
    dir: PathBuf,
    /// Every acknowledged byte of `f`.
    model: Vec<u8>,
    /// The OSS of each data element of stripe 0, and of its parity P.
    data_oss: Vec<usize>,
    p_oss: usize,
    /// The OSS of each parity element of stripe 0 (P first; raid6: then Q).
    parity_oss: Vec<usize>,
    /// File offset of byte 0 of data element `d` of stripe 0.
    element_at: Vec<usize>,
}

/// raid5 (k = 4) WCL: `f` is two stripes long and home; then data elements 0 and 1 of stripe
/// 0 are written whole into a cache stripe, which stays open (elements 2 and 3 unwritten);
/// then each of `kept` overwrites a part of its element (kept by its OSS: it drops the whole
/// block's piece of the first write, leaving only its own part witnessed); then each of
/// `lost` overwrites a part of its element and its OSS loses that write (its cache zone file
/// put back to the copy taken before). The running parity P holds every acknowledged write.
/// Returns the scene with the store closed.
fn stripe_0_cached_with_lost_writes(kept: &[LostWrite], lost: &[LostWrite]) -> Scene {
    stripe_0_cached_with_lost_writes_of(UNIT, kept, lost)
}

/// `stripe_0_cached_with_lost_writes` with elements of `element_bytes` (a multiple of 4 KiB:
/// an element of several checksum blocks).
fn stripe_0_cached_with_lost_writes_of(
    element_bytes: usize,
    kept: &[LostWrite],
    lost: &[LostWrite],
) -> Scene {
    stripe_0_cached_with_lost_writes_on(CodeSpec::raid5(4), element_bytes, kept, lost)
}

/// `stripe_0_cached_with_lost_writes_of` with the code `code` (k = 4 data elements).
fn stripe_0_cached_with_lost_writes_on(
    code: CodeSpec,
    element_bytes: usize,
    kept: &[LostWrite],
    lost: &[LostWrite],
) -> Scene {
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element_bytes);
    let g = layout.geometry().clone();
    let sdb = layout.stripe_data_bytes() as usize;
    let mut model = splitmix_bytes(1, 2 * sdb);
    let store = Store::open(&dir).unwrap();
    store.put("f", &model).unwrap();
    let id = store.file_id("f").unwrap();
    let data_oss: Vec<usize> = (g.data_pos.iter())
        .map(|p| layout.oss_of(id, 0, p.col))
        .collect();
    let p_oss = layout.oss_of(id, 0, g.parity_pos[0].col);
    let parity_oss: Vec<usize> = (g.parity_pos.iter())
        .map(|p| layout.oss_of(id, 0, p.col))
        .collect();
    assert_eq!(
        g.data_pos.len(),
        4,
        "k = 4: elements 2 and 3 stay unwritten"
    );
    let element_at: Vec<usize> = (0..g.data_pos.len())
        .map(|d| layout.file_offset(0, d, 0) as usize)
        .collect();
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let bytes = splitmix_bytes(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        model[at..at + len].copy_from_slice(&bytes);
    };
    for (d, seed) in [(0usize, 2u64), (1, 3)] {
        write(&store, element_at[d], seed, element_bytes);
    }
    for (n, (d, range)) in kept.iter().enumerate() {
        assert!(range.end <= element_bytes, "a part of one element");
        write(
            &store,
            element_at[*d] + range.start,
            20 + n as u64,
            range.len(),
        );
    }
    store.close().unwrap();
    let snapshots: Vec<(usize, Vec<u8>)> = (lost.iter())
        .map(|(d, _)| {
            let oss = data_oss[*d];
            (oss, std::fs::read(cache_zone_file(&dir, oss)).unwrap())
        })
        .collect();
    let store = Store::open(&dir).unwrap();
    for (n, (d, range)) in lost.iter().enumerate() {
        assert!(range.end <= element_bytes, "a part of one element");
        write(
            &store,
            element_at[*d] + range.start,
            10 + n as u64,
            range.len(),
        );
    }
    store.close().unwrap();
    for (oss, bytes) in snapshots {
        std::fs::write(cache_zone_file(&dir, oss), bytes).unwrap();
    }
    Scene {
        _top: top,
        dir,
        model,
        data_oss,
        p_oss,
        parity_oss,
        element_at,
    }
}

/// Bytes `at..at + UNIT` of `f` read: `Ok` with the first wrong byte (file offset) if any.
fn first_wrong_byte(
    store: &Store,
    model: &[u8],
    at: usize,
) -> Result<Option<(usize, u8, u8)>, StoreError> {
    let got = store.read("f", at as u64, UNIT as u64)?;
    assert_eq!(got.len(), UNIT);
    Ok((0..UNIT)
        .find(|&j| got[j] != model[at + j])
        .map(|j| (at + j, got[j], model[at + j])))
}

/// The lost ranges of `f` on record.
fn lost_on_record(store: &Store) -> Vec<(u64, u64)> {
    (store.status().unwrap().lost_ranges.iter())
        .filter(|l| l.file == "f")
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect()
}

/// Review r43b MEDIUM-1's mend (`outside_agree` in `check_cache_witness`), tested. Data
/// element A (0) lost an overwrite of its bytes 0..1000, data element B (1) one of its bytes
/// 2000..3000: two lost writes in one row of a one-fault code. A's piece (0..1000) fails the
/// witness, so A is rebuilt from P and B; the rebuilt bytes pass A's piece (B is right at
/// 0..1000) but are wrong at 2000..3000, where B is stale and A has no piece (W1's piece
/// over A's block was dropped by the overwrite). What must hold: the read of A's block never
/// returns a wrong byte: where rebuilt and read bytes differ outside the stale piece, neither
/// is known right, and A's block is LOST on record. Every other block reads right or LOST.
/// Fails with `outside_agree` forced true on 88df7b1c (af8127a3's src, before s44c's decode
/// check): "'f' WRONG byte 2000: 0x38, acknowledged 0xaf". Since that check
/// (`witness_failing_columns`) B's bytes fail B's piece, so B is an erasure of A's decode
/// and A's rebuild fails first (LOST as before); `outside_agree` stays the line for a stale
/// column without a piece of its own (docs/results/s44-s44c.md).
#[test]
fn s44c_two_lost_partial_writes_in_one_row_read_no_wrong_byte() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(0, 0..1000), (1, 2000..3000)]);
    a_then_every_block_reads_right_or_lost(&s);
}

/// A's block read first (right, or LOST on record), then B's, then every block of `f`
/// (right, or LOST on record), and nothing outside stripe 0 LOST.
fn a_then_every_block_reads_right_or_lost(s: &Scene) {
    let store = Store::open(&s.dir).unwrap();
    let a = s.element_at[0];
    // A's block first: B's read, once on record, would not change what A's read decides.
    match first_wrong_byte(&store, &s.model, a) {
        Ok(None) => {}
        Ok(Some((at, got, want))) => {
            panic!("'f' WRONG byte {at}: {got:#04x}, acknowledged {want:#04x}")
        }
        Err(StoreError::DataLost(msg)) => {
            let lost = lost_on_record(&store);
            assert!(
                lost.iter().any(|&(x, z)| x <= a as u64 && (a as u64) < z),
                "A's block LOST on record: {lost:?} ({msg})"
            );
        }
        Err(e) => panic!("read of A's block: {e}"),
    }
    // B's block next, read once before the record is taken: a read that finds its block
    // stale records it itself (as A's did above).
    match first_wrong_byte(&store, &s.model, s.element_at[1]) {
        Ok(None) | Err(StoreError::DataLost(_)) => {}
        Ok(Some(wrong)) => panic!("'f' WRONG byte in B's block: {wrong:?}"),
        Err(e) => panic!("read of B's block: {e}"),
    }
    let lost = assert_blocks_read_or_lost_on_record(
        &store,
        "f",
        &s.model,
        0..0,
        &[],
        "two lost partial writes",
    );
    let sdb = 4 * UNIT;
    assert!(
        lost.iter().all(|&at| at < sdb),
        "nothing outside stripe 0 LOST: {lost:?}"
    );
    store.close().unwrap();
}

/// Move OSS `oss`'s directory aside (an unmount: not failed on record, its bytes kept), an
/// empty directory in its place (as `lose_disk` leaves it). Returns where it went.
fn take_away(dir: &Path, oss: usize) -> PathBuf {
    let d = dir.join(format!("oss-{oss}"));
    let aside = dir.with_extension(format!("oss-{oss}-away"));
    std::fs::rename(&d, &aside).unwrap();
    std::fs::create_dir_all(&d).unwrap();
    aside
}

/// Put OSS `oss`'s directory back from `aside`.
fn bring_back(dir: &Path, oss: usize, aside: &Path) {
    let d = dir.join(format!("oss-{oss}"));
    std::fs::remove_dir(&d).unwrap();
    std::fs::rename(aside, &d).unwrap();
}

/// Task 2 (s44c): data element A (0) lost an overwrite of its bytes 0..1000; P's OSS is
/// away (its directory missing, not failed on record). The witness finds A's block stale,
/// and its rebuild needs P: the bytes that prove A are on the away disk. What must hold:
/// while P's directory is missing, the read (and the open's degraded check) records
/// nothing lost and refuses with `DataLost` naming the missing directory and "mount it
/// and retry"; once the directory is back, the read returns the acknowledged bytes,
/// rebuilt from the cache stripe's parity. Before s44c the open with P away recorded A's
/// block LOST for good.
#[test]
fn s44c_a_stale_cached_block_beside_an_away_p_oss_refuses_and_records_nothing() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(0, 0..1000)]);
    let aside = take_away(&s.dir, s.p_oss);
    let a = s.element_at[0];
    {
        let store = Store::open(&s.dir).unwrap();
        assert_eq!(lost_on_record(&store), vec![], "the open recorded nothing");
        match first_wrong_byte(&store, &s.model, a) {
            Err(StoreError::DataLost(msg)) => {
                assert!(
                    msg.contains(&format!("OSS {} is MISSING", s.p_oss))
                        && msg.contains("mount it and retry"),
                    "the refusal names the missing directory: {msg}"
                );
            }
            Ok(wrong) => panic!("read of A's block with P away: {wrong:?}"),
            Err(e) => panic!("read of A's block with P away: {e}"),
        }
        assert_eq!(lost_on_record(&store), vec![], "the read recorded nothing");
        store.close().unwrap();
    }
    bring_back(&s.dir, s.p_oss, &aside);
    a_rebuilt_and_nothing_lost(&s, a, "P back");
}

/// Task 3 (s44c; docs/store.md Limits: "a decode THROUGH a stale column into a column with no
/// piece of its own is not caught"). Data element B (1) lost an overwrite of its bytes
/// 0..1000 (its piece stale); data element A (0) was written whole, then its bytes
/// 3000..3100 overwritten (kept): that dropped the whole block's piece, so A's bytes 0..3000
/// have no piece of their own. A's OSS then fails (on record). A's block is decoded from P
/// and B: at 0..1000 through B's stale bytes, where A has no piece to check the result by.
/// What must hold: the read of A's block never returns a wrong byte; B's bytes fail their
/// piece, so B is an erasure of the decode, not an input, and A's block (two erasures in a
/// one-fault row) is refused `DataLost`. Every other block reads right or LOST on record.
#[test]
fn s44c_a_decode_through_a_stale_column_into_a_column_without_a_piece_reads_no_wrong_byte() {
    let s = stripe_0_cached_with_lost_writes(&[(0, 3000..3100)], &[(1, 0..1000)]);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a = s.element_at[0];
    match first_wrong_byte(&store, &s.model, a) {
        Ok(None) | Err(StoreError::DataLost(_)) => {}
        Ok(Some((at, got, want))) => {
            panic!("'f' WRONG byte {at}: {got:#04x}, acknowledged {want:#04x}")
        }
        Err(e) => panic!("read of A's block: {e}"),
    }
    for at in (0..s.model.len()).step_by(UNIT) {
        match first_wrong_byte(&store, &s.model, at) {
            Ok(None) | Err(StoreError::DataLost(_)) => {}
            Ok(Some(wrong)) => panic!("'f' WRONG byte: {wrong:?}"),
            Err(e) => panic!("read of 'f' block {at}: {e}"),
        }
    }
    store.close().unwrap();
}

/// Review r44c: `missing_oss_of_row` refuses (records nothing) where ANY other OSS of the
/// home row is away, even one the failed rebuild never needed. Data A (0) lost 0..1000 and
/// data B (1) lost 2000..3000 (two lost writes in a one-fault row: A is lost for good, as
/// `s44c_two_lost_partial_writes_in_one_row_read_no_wrong_byte` records); data element 2's
/// OSS is away, and element 2 has no chunk in the open cache stripe (never written there),
/// so its mount brings nothing the decode can use. What must hold: A's block LOST on
/// record (the open's degraded check, or the read), as with every OSS present. Failed on
/// 1d205592 (ignored OPEN there: refused "OSS 2 is MISSING ... mount it and retry", nothing
/// on record); since s45a the refusal weighs the away column (`away_column_could_help`: it
/// holds no chunk of the cache stripe, so it cannot help).
#[test]
fn r44c_an_away_oss_the_rebuild_never_needs_hides_a_real_loss() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(0, 0..1000), (1, 2000..3000)]);
    let _aside = take_away(&s.dir, s.data_oss[2]);
    let a = s.element_at[0];
    let store = Store::open(&s.dir).unwrap();
    let r = first_wrong_byte(&store, &s.model, a);
    let lost = lost_on_record(&store);
    assert!(
        lost.iter().any(|&(x, z)| x <= a as u64 && (a as u64) < z),
        "A's block LOST on record: {lost:?}; read: {r:?}"
    );
    store.close().unwrap();
}

/// Review r44c: the scene above, then the away OSS back: A's block must never read WRONG.
#[test]
fn r44c_an_away_oss_the_rebuild_never_needs_then_back_reads_no_wrong_byte() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(0, 0..1000), (1, 2000..3000)]);
    let aside = take_away(&s.dir, s.data_oss[2]);
    let a = s.element_at[0];
    {
        let store = Store::open(&s.dir).unwrap();
        let _ = first_wrong_byte(&store, &s.model, a);
        store.close().unwrap();
    }
    bring_back(&s.dir, s.data_oss[2], &aside);
    a_then_every_block_reads_right_or_lost(&s);
}

/// Review r44c: data B (1) lost an overwrite of 2000..3000; A's (0) OSS then fails on record.
/// A's block is past the one-fault code at 2000..3000 (A gone, B stale): a real loss. Its
/// bytes 0..1000 decode right through B but nothing proves it (A's piece is the whole
/// block's). What must hold: the read returns the acknowledged bytes, or it is refused and
/// the loss is on record (`status`). On af8127a3: refused, 0..1000 recorded LOST. On s44c:
/// refused, NOTHING on record (B erased whole: "columns [0, 1] ... unreadable"), so
/// `status` shows a store without loss while A's block can never be read (ignored OPEN on
/// 1d205592). Since s45a (`witness_decode_lost_for_good`): every erasure besides the
/// witness's is an OSS failed on record, so the read records A's block LOST.
#[test]
fn r44c_a_failed_oss_beside_a_stale_column_refuses_with_nothing_on_record() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(1, 2000..3000)]);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a = s.element_at[0];
    a_reads_right_or_lost_on_record(&store, &s, a, "A failed");
    store.close().unwrap();
}

/// s45a, the boundary of r44c MEDIUM-1's mend: data element A (0) lost an overwrite of its
/// bytes 0..1000, and data element B's (1) OSS is away (its directory missing, not failed
/// on record). B was written whole into the open cache stripe, so its column holds a chunk
/// A's rebuild needs: with B read, the decode erases A alone (within raid5's tolerance) and
/// rebuilds A's acknowledged bytes from P. What must hold: while B's directory is missing,
/// A's read (and the open's degraded check) refuses `DataLost` naming the missing directory
/// and "mount it and retry", and records nothing (a LOST on record would be for good, and
/// the bytes come back with the mount); once B is back, A reads right and nothing is LOST.
/// The weighing that lets `r44c_an_away_oss_the_rebuild_never_needs_hides_a_real_loss` go
/// on record must not reach this scene.
#[test]
fn s45a_an_away_data_oss_whose_chunk_the_rebuild_needs_refuses_then_back_reads_right() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(0, 0..1000)]);
    let b_oss = s.data_oss[1];
    let aside = take_away(&s.dir, b_oss);
    let a = s.element_at[0];
    {
        let store = Store::open(&s.dir).unwrap();
        assert_eq!(lost_on_record(&store), vec![], "the open recorded nothing");
        match first_wrong_byte(&store, &s.model, a) {
            Err(StoreError::DataLost(msg)) => assert!(
                msg.contains(&format!("OSS {b_oss} is MISSING"))
                    && msg.contains("mount it and retry"),
                "the refusal names B's missing directory: {msg}"
            ),
            Ok(wrong) => panic!("read of A's block with B away: {wrong:?}"),
            Err(e) => panic!("read of A's block with B away: {e}"),
        }
        assert_eq!(lost_on_record(&store), vec![], "the read recorded nothing");
        store.close().unwrap();
    }
    bring_back(&s.dir, b_oss, &aside);
    a_rebuilt_and_nothing_lost(&s, a, "B back");
}

/// s45a, the boundary of r44c MEDIUM-2's mend: data B (1) lost an overwrite of 2000..3000,
/// A's (0) OSS failed on record, then P's OSS only away (directory missing). A's decode
/// would erase A (failed), B (fails its piece) and P (away): an erasure only away, so the
/// read refuses and records nothing (the rule records a loss only where every erasure
/// besides the witness's is an OSS failed on record; on raid5 the read is refused even
/// before, two OSSs being out of service). What must hold: A's read never returns a wrong
/// byte, and A's block is not on record while P is away. (B's own stale bytes are: the
/// degraded open's check finds them, and their rebuild needs A, failed for good, so P's
/// mount could not help: LOST, `away_column_could_help`.) Then P back: the row is past raid5's
/// tolerance still (A failed, B stale), so A's read returns the acknowledged bytes or
/// records A's block LOST (`witness_decode_lost_for_good`). That second half fails on
/// 1d205592 (nothing on record), as r44c's test above does.
#[test]
fn s45a_a_failed_oss_beside_a_stale_column_and_an_away_p_keeps_a_off_the_record_until_p_is_back() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(1, 2000..3000)]);
    {
        // Failed with every other OSS present (a failure beside an away OSS is refused).
        let store = Store::open(&s.dir).unwrap();
        store.fail_oss(s.data_oss[0]).unwrap();
        store.close().unwrap();
    }
    let aside = take_away(&s.dir, s.p_oss);
    let a = s.element_at[0];
    {
        let store = Store::open(&s.dir).unwrap();
        // Refused on raid5 before any decode (two OSSs out of service, past the
        // tolerance: "retry with them back"), so the weighing is not reached here.
        if let Ok(got) = store.read("f", a as u64, 1000) {
            assert_eq!(got, s.model[a..a + 1000], "A's bytes 0..1000");
        }
        let lost = lost_on_record(&store);
        assert!(
            lost.iter()
                .all(|&(x, z)| z <= a as u64 || a as u64 + UNIT as u64 <= x),
            "P away: A's block not on record: {lost:?}"
        );
        store.close().unwrap();
    }
    bring_back(&s.dir, s.p_oss, &aside);
    let store = Store::open(&s.dir).unwrap();
    a_reads_right_or_lost_on_record(&store, &s, a, "P back");
    store.close().unwrap();
}

/// Review r45a: every block of `f` reads its acknowledged bytes or `DataLost`; returns the
/// blocks refused.
fn r45a_every_block_right_or_lost(store: &Store, s: &Scene, when: &str) -> Vec<usize> {
    let mut refused = Vec::new();
    for at in (0..s.model.len()).step_by(UNIT) {
        match first_wrong_byte(store, &s.model, at) {
            Ok(None) => {}
            Err(StoreError::DataLost(_)) => refused.push(at),
            Ok(Some(wrong)) => panic!("{when}: 'f' WRONG byte: {wrong:?}"),
            Err(e) => panic!("{when}: read of 'f' block {at}: {e}"),
        }
    }
    refused
}

/// Review r45a: r44c MEDIUM-2's scene (B lost 2000..3000, A's OSS failed on record), A's
/// read records A's block LOST (`WITNESS_DECODE_LOST`, oss = A's failed OSS); then a flush
/// (the cache stripe destaged with A's LOST range on a failed OSS), then A's OSS rebuilt in
/// place. What must hold at each step: no block of `f` reads WRONG; nothing outside stripe
/// 0 is refused.
#[test]
fn r45a_witness_decode_lost_then_flush_then_rebuild_reads_no_wrong_byte() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(1, 2000..3000)]);
    let mut store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a = s.element_at[0];
    let r = store.read("f", a as u64, 1000);
    eprintln!("A's read: {:?}", r.as_ref().map(|v| v.len()));
    eprintln!("lost after A's read: {:?}", lost_on_record(&store));
    let sdb = s.model.len() / 2;
    let check = |store: &Store, when: &str| {
        let refused = r45a_every_block_right_or_lost(store, &s, when);
        eprintln!(
            "{when}: refused {refused:?}; lost {:?}",
            lost_on_record(store)
        );
        for (x, z) in [(1000usize, 4096usize), (2000, 3000), (1000, 2000)] {
            match store.read("f", (a + x) as u64, (z - x) as u64) {
                Ok(got) => {
                    let wrong = (0..z - x).find(|&j| got[j] != s.model[a + x + j]);
                    eprintln!("{when}: A {x}..{z} read Ok, first wrong {wrong:?}");
                    assert!(
                        wrong.is_none(),
                        "{when}: A's bytes {x}..{z} read WRONG at +{wrong:?}"
                    );
                }
                Err(e) => eprintln!("{when}: A {x}..{z} refused: {e}"),
            }
        }
        eprintln!(
            "{when}: lost after partial reads {:?}",
            lost_on_record(store)
        );
        assert!(
            refused.iter().all(|&x| x < sdb),
            "{when}: refused outside stripe 0: {refused:?}"
        );
    };
    check(&store, "A failed");
    let f = store.flush();
    eprintln!("flush: {f:?}");
    check(&store, "flushed");
    let rb = store.rebuild(s.data_oss[0], None);
    eprintln!("rebuild: {rb:?}");
    check(&store, "rebuilt");
    store.close().unwrap();
    let store = Store::open(&s.dir).unwrap();
    check(&store, "reopened");
    store.close().unwrap();
}

/// Review r45a MEDIUM-1 (mended in session 48, s48d): r44c MEDIUM-2's scene (B lost
/// 2000..3000, A's OSS failed on record), but A's read asks for part of A's block only
/// (0..1000). `witness_decode_lost_for_good` documents "the wanted 4 KiB blocks recorded
/// LOST", yet `blocks_lost` clipped them to the read's piece of the element: only 0..1000
/// went on record (on 3ab4cbf7: "lost on record [(0, 1000)]"), while the rest of A's block
/// is lost alike: A's OSS is failed on record and the decode's erasures in this block row
/// (A whole, B's stale block) are the same at every offset of it. What must hold: after the
/// refused read, `status` lists A's whole block (exactly its 4096 bytes: nothing of another
/// block), and, the evidence that no byte of it was named LOST while another path could read
/// it, each other piece of the block is refused too, before and after a reopen (whose
/// checks add B's stale bytes to the record: lost for good as well).
#[test]
fn r45a_a_refused_part_read_records_the_whole_block_lost() {
    let s = stripe_0_cached_with_lost_writes(&[], &[(1, 2000..3000)]);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a = s.element_at[0] as u64;
    let block = UNIT as u64;
    let r = store.read("f", a, 1000);
    assert!(
        matches!(r, Err(StoreError::DataLost(_))),
        "A's part read refused: {r:?}"
    );
    let lost = lost_on_record(&store);
    assert_eq!(
        lost,
        vec![(a, a + block)],
        "A's whole block is lost for good, and only it, on record"
    );
    let rest_refused = |store: &Store, when: &str| {
        for (x, n) in [(1000, 1000), (2000, 1000), (3000, block - 3000)] {
            let r = store.read("f", a + x, n);
            assert!(
                matches!(r, Err(StoreError::DataLost(_))),
                "{when}: A's bytes {x}..{} read although on record LOST: {:?}",
                x + n,
                r.map(|b| b.len())
            );
        }
        // Still A's block whole on record (the reopen's own checks may add B's stale
        // bytes 2000..3000, lost for good too: B's block, not A's).
        let lost = lost_on_record(store);
        assert!(lost.contains(&(a, a + block)), "{when}: {lost:?}");
        assert!(
            (lost.iter()).all(|&(x, z)| (x, z) == (a, a + block) || z <= a || a + block <= x),
            "{when}: A's block on record in pieces: {lost:?}"
        );
    };
    rest_refused(&store, "A failed");
    store.close().unwrap();
    let store = Store::open(&s.dir).unwrap();
    rest_refused(&store, "reopened");
    store.close().unwrap();
}

/// Session 48 (s48d), the bound of r45a MEDIUM-1's mend: at 8 KiB elements (two 4 KiB
/// blocks each) data B (1) lost a write of its block 0 only (0..1000), A's (0) OSS failed
/// on record, and a read of A's bytes 0..1000 is refused. What must hold: A's block 0
/// (element bytes 0..4096) goes on record LOST whole, and A's block 1 does not (it decodes
/// from B's block 1, which is right: s45's scene below), so the record is the wanted block,
/// never the whole element.
#[test]
fn s48d_a_refused_part_read_records_its_block_and_not_the_elements_other_block() {
    let s = stripe_0_cached_with_lost_writes_of(2 * UNIT, &[], &[(1, 0..1000)]);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a = s.element_at[0] as u64;
    let r = store.read("f", a, 1000);
    assert!(
        matches!(r, Err(StoreError::DataLost(_))),
        "A's part read of block 0 refused: {r:?}"
    );
    assert_eq!(
        lost_on_record(&store),
        vec![(a, a + UNIT as u64)],
        "A's block 0 whole on record, block 1 not"
    );
    assert_eq!(
        first_wrong_byte(&store, &s.model, a as usize + UNIT).unwrap(),
        None,
        "A's block 1 reads its acknowledged bytes"
    );
    store.close().unwrap();
}

/// Session 45 (lead, reading s45a): the witness erases a stale column WHOLE, while a lost
/// write stales only the blocks it wrote. At 8 KiB elements (two 4 KiB blocks each), data B
/// (1) lost a write of its block 0 only (0..1000); then A's (0) OSS fails on record. A's
/// block 1 (element bytes 4096..8192) decodes from B's block 1, which holds its
/// acknowledged bytes (its piece matches), C, D and P: one erasure in that block row, within
/// the one-fault code. `true`: the read must return them (OPEN); `false`: it may be refused,
/// but never with a WRONG byte, and never with A's block 1 on record LOST (a loss `status`
/// would name for bytes the store still has: s45a's rule recorded it, as the decode's
/// erasures were counted by column, not by block row).
fn a_column_stale_in_another_block(must_read: bool) {
    let e = 2 * UNIT;
    let s = stripe_0_cached_with_lost_writes_of(e, &[], &[(1, 0..1000)]);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(s.data_oss[0]).unwrap();
    let a1 = s.element_at[0] + UNIT;
    let r = first_wrong_byte(&store, &s.model, a1);
    let lost = lost_on_record(&store);
    assert!(
        (lost.iter()).all(|&(x, z)| z <= a1 as u64 || a1 as u64 + UNIT as u64 <= x),
        "A's block 1 (its bytes decodable) went on record LOST: {lost:?}; read: {r:?}"
    );
    match r {
        Ok(None) => {}
        Ok(Some(wrong)) => panic!("A's block 1 read WRONG: {wrong:?}"),
        Err(StoreError::DataLost(_)) if !must_read => {}
        Err(e) => panic!("A's block 1 (one erasure in its block row) refused: {e}"),
    }
    store.close().unwrap();
}

#[test]
fn s45_a_failed_oss_beside_a_column_stale_in_another_block_puts_nothing_on_record() {
    a_column_stale_in_another_block(false);
}

#[test]
fn s45_a_failed_oss_beside_a_column_stale_in_another_block_reads_its_block() {
    a_column_stale_in_another_block(true);
}

/// Reopened (an OSS back): nothing on record LOST, A's block (file offset `a`) reads its
/// acknowledged bytes rebuilt from parity, and so does every block of `f`.
fn a_rebuilt_and_nothing_lost(s: &Scene, a: usize, when: &str) {
    let store = Store::open(&s.dir).unwrap();
    assert_eq!(lost_on_record(&store), vec![], "{when}: nothing on record");
    assert_eq!(
        first_wrong_byte(&store, &s.model, a).unwrap(),
        None,
        "{when}: A's block rebuilt from parity"
    );
    let lost = assert_blocks_read_or_lost_on_record(&store, "f", &s.model, 0..0, &[], when);
    assert_eq!(lost, Vec::<usize>::new(), "{when}: nothing LOST");
    store.close().unwrap();
}

/// A's bytes 0..1000 (file offset `a`) read: the acknowledged bytes, or refused with A's
/// block on record LOST (never refused with nothing on record, never WRONG).
fn a_reads_right_or_lost_on_record(store: &Store, s: &Scene, a: usize, when: &str) {
    match store.read("f", a as u64, 1000) {
        Ok(got) => assert_eq!(got, s.model[a..a + 1000], "{when}: A's bytes 0..1000"),
        Err(e) => {
            let lost = lost_on_record(store);
            assert!(
                lost.iter().any(|&(x, z)| x <= a as u64 && (a as u64) < z),
                "{when}: refused, so A's block LOST on record: {lost:?} ({e})"
            );
        }
    }
}

/// s46d, review r45a MEDIUM-2 (`witness_decode_lost_for_good` on raid6/rs, an away OSS not
/// weighed by the tolerance). Raid6 4+2 WCL: data B (1) lost an overwrite of 2000..3000 (a
/// stale cache column the witness erases), A's (0) OSS failed on record, then one parity
/// OSS (P, then in a second store Q) only away (its directory missing). A's decode erases
/// A (failed), B (witness) and the away parity: three erasures, past raid6's two; with the
/// away parity mounted it erases two, within the tolerance (C and D hold no chunk of the
/// cache stripe, so P and Q are the only columns that can stand in). What must hold: while
/// the parity is away, A's read never returns a wrong byte, and it is refused with nothing
/// on record, its message saying to mount the directory and retry (a LOST on record would
/// be for good, and the bytes come back with the mount); B's read too. Once the parity is
/// back: A and B read right (A decoded from P and Q around B's stale column, B rebuilt
/// likewise), every block of `f` reads right and nothing is LOST. Passes on 7c9d35f8: the
/// rule records a loss only where every erasure besides the witness's is an OSS failed on
/// record (the away parity is not), so base already refuses here; pinned.
#[test]
fn s46d_raid6_a_failed_oss_beside_a_stale_column_and_an_away_parity_refuses_then_reads_right() {
    for away in 0..2 {
        let s =
            stripe_0_cached_with_lost_writes_on(CodeSpec::raid6(4), UNIT, &[], &[(1, 2000..3000)]);
        {
            // Failed with every other OSS present (a failure beside an away OSS is refused).
            let store = Store::open(&s.dir).unwrap();
            store.fail_oss(s.data_oss[0]).unwrap();
            store.close().unwrap();
        }
        let away_oss = s.parity_oss[away];
        let when = format!("parity {away} (OSS {away_oss}) away");
        let aside = take_away(&s.dir, away_oss);
        let (a, b) = (s.element_at[0], s.element_at[1]);
        {
            let store = Store::open(&s.dir).unwrap();
            assert_eq!(
                lost_on_record(&store),
                vec![],
                "{when}: the open recorded nothing"
            );
            for (what, at) in [("A", a), ("B", b)] {
                match first_wrong_byte(&store, &s.model, at) {
                    Err(StoreError::DataLost(msg)) => assert!(
                        msg.contains(&format!("OSS {away_oss} is MISSING"))
                            && msg.contains("mount it and retry"),
                        "{when}: {what}'s refusal names the missing directory: {msg}"
                    ),
                    Ok(read) => panic!("{when}: read of {what}'s block: {read:?}"),
                    Err(e) => panic!("{when}: read of {what}'s block: {e}"),
                }
                assert_eq!(
                    lost_on_record(&store),
                    vec![],
                    "{when}: {what}'s read recorded nothing"
                );
            }
            store.close().unwrap();
        }
        bring_back(&s.dir, away_oss, &aside);
        let when = format!("parity {away} back");
        let store = Store::open(&s.dir).unwrap();
        for at in [a, b] {
            assert_eq!(
                first_wrong_byte(&store, &s.model, at).unwrap(),
                None,
                "{when}"
            );
        }
        let lost = assert_blocks_read_or_lost_on_record(&store, "f", &s.model, 0..0, &[], &when);
        assert_eq!(lost, Vec::<usize>::new(), "{when}: nothing LOST");
        assert_eq!(lost_on_record(&store), vec![], "{when}: nothing on record");
        store.close().unwrap();
    }
}
