//! R31-1's last 2 of 116 (s32b's open; raid6 4+2 WCL): a crash (kill -9: nothing dropped,
//! the whole journal) in a client write of 0+8192 (data columns 0 and 1, whole) into a
//! cached home stripe, plus ONE flipped bit in column 3's cache block, which no write in
//! flight reached (outside its acknowledged bytes 0..100, so no parity covers the flip).
//! On 8b60df4 the open records column 3's acknowledged block (file bytes 12288..16384)
//! LOST: at image 12 of 14 columns 0 and 1 hold the write's new bytes, P and Q the old
//! parity, so at each offset version 0 (before the write) erases columns 0, 1 and 3 and
//! version 1 (after it) 3, P and Q: neither proposes column 3 (each erases the tolerance
//! or more).
//!
//! The rule (s33d, `versions_decode_per_range`): the rotten block's OWN bytes, as the
//! running parity counts them (on disk over its acknowledged ranges, zeros beside them),
//! are a proposal too. Version 1 takes it, computes P and Q from the four data columns, and
//! the write's journaled parity crcs (`WriteParityCrcs`) check both: every column of
//! version 1 is then known or checked, so neither the rot (were it inside the acknowledged
//! bytes) nor one wrong column beside it passes (raid6's distance is 3). Own bytes are never
//! taken unchecked: rot inside the acknowledged bytes misses the crcs (a test below).
//!
//! Fixture `s33d_raid6_wcl_kill_both_data_columns_cache_rot_image.tgz`, laid by
//! `review_s31r_power_cut_delayed_window_and_flip.rs`'s probe on 8b60df4 with s33d's
//! `S31R_KEEP_IMAGE` (`S31R_CODE=raid6:4 S31R_WRITE=0+8192 S31R_KEEP=DIR S31R_KEEP_IMAGE=12
//! ... probe_kill_cuts_beside_column_3_rot`): put f (32768 bytes), acknowledged writes
//! 100+4096 and 8292+4096, then write 0+8192 cut before mutating call 12. The image is the
//! disk WITHOUT the flip; the tests flip bits of `oss-3/objects/18446744073709551615.cache`.
//!
//! Also the merge review of session 32's H1 (a refusal outside the wanted bytes refused the
//! whole block) and H2 (only a plan's first `WriteCrcs` record was read), on s32b's fixture.
//! Every test but the controls fails on 8b60df4 (block 12288 LOST).

use crate::common;
use common::*;

const FIXTURE: &str = "s33d_raid6_wcl_kill_both_data_columns_cache_rot_image.tgz";
const ROT_FILE: &str = "oss-3/objects/18446744073709551615.cache";
/// R31-1's flip: bit 7 of this byte, in column 3's cache block beside its acknowledged bytes.
const ROT_BYTE_BESIDE_ACKED: usize = 7791;
/// Column 3's cache element starts here in its file (slot 1, 4096 bytes and 4 bytes of crc
/// per block); its acknowledged bytes are the element's first 100.
const COLUMN_3_ELEMENT_AT: usize = 4100;
const COLUMN_3_ACKED_BYTES: usize = 100;
/// Column 3's acknowledged block: file bytes 12288..16384.
const COLUMN_3_BLOCK_AT: usize = 12288;

fn open_and_read_all(fixture: &str, flip_at: Option<usize>) -> Result<Vec<usize>, String> {
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_fixture(tmp.path(), fixture).join("image");
    let (acked, flight) = image_model(&image, "s30r");
    if let Some(at) = flip_at {
        let f = image.join(ROT_FILE);
        let mut b = std::fs::read(&f).unwrap();
        b[at] ^= 1 << 7;
        std::fs::write(&f, &b).unwrap();
    }
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the crash");
    let (mut lost, _) = check_reads(&store, &acked, &flight)?;
    match store.flush() {
        Ok(()) | Err(exaraid_store::StoreError::DataLost(_)) => {}
        Err(e) => panic!("flush: {e}"),
    }
    lost.extend(check_reads(&store, &acked, &flight)?.0);
    Ok(lost)
}

#[test]
fn the_fixture_holds_column_3s_acknowledged_bytes_where_the_tests_flip() {
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_fixture(tmp.path(), FIXTURE).join("image");
    let (acked, _) = image_model(&image, "s30r");
    let cache = std::fs::read(image.join(ROT_FILE)).unwrap();
    let at = COLUMN_3_ELEMENT_AT;
    assert_eq!(
        cache[at..at + COLUMN_3_ACKED_BYTES],
        acked[COLUMN_3_BLOCK_AT..COLUMN_3_BLOCK_AT + COLUMN_3_ACKED_BYTES],
        "column 3's cache element starts at byte {at} of its file"
    );
    assert!((at + COLUMN_3_ACKED_BYTES..at + 4096).contains(&ROT_BYTE_BESIDE_ACKED));
}

#[test]
fn raid6_wcl_crash_after_both_data_columns_and_one_rotten_cache_block_no_write_reached_loses_no_acknowledged_byte(
) {
    let lost = open_and_read_all(FIXTURE, Some(ROT_BYTE_BESIDE_ACKED)).unwrap();
    assert!(
        lost.is_empty(),
        "a crash and one rotten bit (two erasures at most on raid6) lost acknowledged bytes: blocks at {lost:?}"
    );
}

#[test]
fn rot_inside_the_acknowledged_bytes_of_the_rotten_block_is_never_read_back() {
    // The own bytes then miss the parity crcs: named LOST (or decoded right), never read.
    for at in [0, 50, COLUMN_3_ACKED_BYTES - 1] {
        let flip = COLUMN_3_ELEMENT_AT + at;
        match open_and_read_all(FIXTURE, Some(flip)) {
            Ok(_) => {}
            Err(e) => panic!("rot at byte {at} of column 3's acknowledged bytes: {e}"),
        }
    }
}

#[test]
fn raid6_wcl_crash_alone_after_both_data_columns_reads_every_byte() {
    let lost = open_and_read_all(FIXTURE, None).unwrap();
    assert!(lost.is_empty(), "the crash alone lost blocks at {lost:?}");
}

/// s32b's fixture: write 2296+3141 (column 0's bytes 2296..4096, column 1's 0..1341) cut at
/// image 12 of 16, both data columns new, P and Q old; R31-1's flip at byte 7791 of OSS 3's
/// cache file. Column 3's acknowledged bytes (0..100 of its element) lie under P's and Q's
/// first crc piece (0..1341); their second piece is 2296..4096.
const S32B_FIXTURE: &str = "s32b_raid6_wcl_kill_late_cut_cache_rot_image.tgz";
/// The cache stripe's slot in every cache file of the image (column `c` on OSS `c`, P on
/// OSS 4, Q on OSS 5).
const CACHE_SLOT: u64 = 1;
const P_OSS: usize = 4;

/// Open `image` as is (R31-1's flip laid by the caller) and read every block.
fn read_all_of(image: &std::path::Path) -> Result<Vec<usize>, String> {
    let (acked, flight) = image_model(image, "s30r");
    let store = open_own_dirs_unsynced(image, &[]).expect("the open recovers the crash");
    let (mut lost, _) = check_reads(&store, &acked, &flight)?;
    match store.flush() {
        Ok(()) | Err(exaraid_store::StoreError::DataLost(_)) => {}
        Err(e) => panic!("flush: {e}"),
    }
    lost.extend(check_reads(&store, &acked, &flight)?.0);
    Ok(lost)
}

fn unpack_s32b_with_flip(into: &std::path::Path) -> std::path::PathBuf {
    let image = unpack_fixture(into, S32B_FIXTURE).join("image");
    let f = image.join(ROT_FILE);
    let mut b = std::fs::read(&f).unwrap();
    assert!(
        b[ROT_BYTE_BESIDE_ACKED] != 0,
        "R31-1's flip lands on a cached byte"
    );
    b[ROT_BYTE_BESIDE_ACKED] ^= 1 << 7;
    std::fs::write(&f, &b).unwrap();
    image
}

/// Rewrite cache bytes 2296..4096 of the cache stripe's element on OSS `oss` (each XOR
/// 0x21) through its backend, so that their checksum vouches for them: an OSS that lost an
/// acknowledged write there, a stale column within the rules' one-wrong-column margin.
fn stale_over_2296_to_4096(image: &std::path::Path, oss: usize) {
    use exaraid_store::backend::{Backend, ElementKey, Zone};
    let osses = own_oss_dirs(image);
    let key = ElementKey {
        object: u64::MAX,
        zone: Zone::Cache,
        slot: CACHE_SLOT,
    };
    let mut element = vec![0u8; 4096];
    assert!(
        osses[oss]
            .read_unverified(key, &mut element)
            .unwrap()
            .is_empty(),
        "OSS {oss}'s cache element reads verified"
    );
    let stale: Vec<u8> = element[2296..4096].iter().map(|b| b ^ 0x21).collect();
    osses[oss].write(key, 2296, &stale).unwrap();
}

/// A stale P over 2296..4096 beside the rot: version 0's decode of column 3 there goes
/// through it and misses P's second crc piece; version 1 never reads P (it computes it), so
/// the own bytes taken there prove column 3 (on 8b60df4: LOST at 12288).
#[test]
fn a_stale_parity_beside_the_rotten_block_leaves_its_acknowledged_bytes_readable() {
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_s32b_with_flip(tmp.path());
    stale_over_2296_to_4096(&image, P_OSS);
    let lost = read_all_of(&image).unwrap();
    assert!(
        !lost.contains(&COLUMN_3_BLOCK_AT),
        "column 3's acknowledged block read LOST beside a stale parity (blocks at {lost:?})"
    );
}

/// H1 (merge review of session 32): column 2 stale over 2296..4096 (outside column 3's
/// acknowledged bytes 0..100) beside the rot. Every pair that proposes column 3 there takes
/// column 2's stale bytes, so P's crc of 2296..4096 misses in each. Column 3's acknowledged
/// bytes lie under P's and Q's other crc piece (0..1341), which holds: proven there whatever
/// the miss beside them says (a one-row code is a code word per byte offset). Before s33d's
/// change to per-piece refusals the miss refused the whole pair: LOST at 12288. Column 2's
/// own block (file bytes 8192..12288) reads the stale disk's bytes: the second fault itself,
/// which nothing on the read path checks, not judged here.
#[test]
fn a_crc_miss_beside_the_rotten_blocks_acknowledged_bytes_refuses_only_the_bytes_under_it() {
    const COLUMN_2_BLOCK_AT: usize = 8192;
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_s32b_with_flip(tmp.path());
    stale_over_2296_to_4096(&image, 2);
    let (acked, flight) = image_model(&image, "s30r");
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the crash");
    for when in ["before the flush", "after it"] {
        for at in (0..acked.len()).step_by(4096) {
            if at == COLUMN_2_BLOCK_AT {
                continue;
            }
            match store.read("f", at as u64, 4096) {
                Ok(got) => {
                    let right = got.iter().enumerate().all(|(j, &x)| {
                        x == acked[at + j] || Some(x) == flight[at + j]
                    });
                    assert!(right, "{when}: block {at} read WRONG bytes");
                }
                Err(exaraid_store::StoreError::DataLost(m)) => assert!(
                    at != COLUMN_3_BLOCK_AT,
                    "{when}: column 3's acknowledged block read LOST beside a crc miss outside its bytes: {m}"
                ),
                Err(e) => panic!("{when}: read at {at}: {e}"),
            }
        }
        match store.flush() {
            Ok(()) | Err(exaraid_store::StoreError::DataLost(_)) => {}
            Err(e) => panic!("flush: {e}"),
        }
    }
}

/// H2 (merge review of session 32): `confirm_by_versions` and `write_crc_matches` read only
/// a plan's FIRST `WriteCrcs` record. One record per write today; here the cut write's
/// crcs are journaled in two records (column 0's part, then column 1's), as a later
/// binary might. Column 1's new bytes are told only by the second: read from the first
/// alone, column 1 is unknown in both versions and column 3's block is LOST (on 8b60df4);
/// every record asked, it reads as with one record.
#[test]
fn a_cut_writes_crcs_in_two_records_prove_the_rotten_block_as_one_record_does() {
    use exaraid_store::journal::Journal;
    use exaraid_store::state::{Rec, WriteCrcs};
    let tmp = tempfile::tempdir().unwrap();
    let image = unpack_s32b_with_flip(tmp.path());
    let path = image.join("journal");
    let records = {
        let (_, records) = Journal::<Rec>::open_read_only(&path).unwrap();
        records
    };
    let mut bytes = Vec::new();
    let (mut shift, mut split) = (0u64, 0usize);
    for (seq, rec) in records {
        let parts = match rec {
            Rec::WriteCrcs(w) if w.offset_bytes == 2296 && w.len_bytes == 3141 => {
                assert_eq!(w.block_crcs.len(), 2, "the write's crcs: two file blocks");
                split += 1;
                let part = |offset_bytes: u64, len_bytes: u64, crc: u32| WriteCrcs {
                    plans: w.plans.clone(),
                    file: w.file,
                    offset_bytes,
                    len_bytes,
                    block_crcs: vec![crc],
                };
                vec![
                    Rec::WriteCrcs(part(2296, 4096 - 2296, w.block_crcs[0])),
                    Rec::WriteCrcs(part(4096, 2296 + 3141 - 4096, w.block_crcs[1])),
                ]
            }
            rec => vec![rec],
        };
        let n = parts.len() as u64;
        for (j, rec) in parts.iter().enumerate() {
            bytes.extend(Journal::<Rec>::frame(seq + shift + j as u64, rec));
        }
        shift += n - 1;
    }
    assert_eq!(split, 1, "the cut write's crcs are on record once");
    std::fs::write(&path, &bytes).unwrap();
    let lost = read_all_of(&image).unwrap();
    assert!(
        lost.is_empty(),
        "a crash and one rotten bit, the write's crcs in two records, lost blocks at {lost:?}"
    );
}
