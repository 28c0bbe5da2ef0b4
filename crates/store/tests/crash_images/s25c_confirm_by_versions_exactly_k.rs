//! s25c (docs/store.md "OPEN after session 24", unproven since s22a): `confirm_by_versions`
//! decides a failed cache column from exactly k known blocks of one version, where the
//! decode agrees with those k columns whatever they hold: a stale column among them (its
//! OSS lost a write) gives the failed column's bytes wrong, checked by nothing there.
//!
//! Scene (WCL, raid6 and rs 4+2, 4 KiB unit, as `s23c_overwrite_beside_stale_and_failed.rs`,
//! splitmix64 bytes): data elements 0, 1 and 2 of a cache stripe cached twice; the OSS of
//! element 1 loses the second write (a stale cache element: old bytes under valid
//! checksums); a client OVERWRITE of cached element 0 is cut by a power cut at every point;
//! the OSS of element 2 (acknowledged cached bytes) dies with the power cut (failed on
//! record before recovery). `torn`: also element 0's cache block torn where the power cut
//! left it unwritten (its new payload under its old checksum: what a SIGKILL between the
//! backend's payload and checksum writes leaves, `common::Block::PayloadOnly`; the input
//! and crcs of the write are synced before its first cache write). A torn block is no
//! fault: the lost write and the dead OSS are two, within raid6's tolerance.
//!
//! What must hold: after the open and a `flush`, every acknowledged block reads its bytes
//! or is named LOST on record (inside the overwrite's range old or new bytes).
//!
//! Result (s25c, on a40ace1; debug probes in `confirm_by_versions` and its caller, not
//! committed). Without the tear (pinned): `confirm_by_versions` is reached from exactly k
//! known columns with no crc check in 8 power cuts of 38 per code (version 0 erasing
//! columns 0 and 2, or version 1 erasing 2 and a parity), and its decode is right there:
//! in those cuts the overwrite had healed the stale element before it journaled (its
//! check before the delta, mutating call 0), so no stale column is among the k. Where the
//! power cut drops that heal (OSS 1's unsynced writes), `stale_beside_cut` finds the row
//! `Unlocated` first and names it LOST. With the tear: WRONG BYTES, OPEN. At the power
//! cut before mutating call 10 with OSS 1's unsynced writes dropped (the stale element
//! back), the row has the dead column and the torn block out, as many as raid6
//! tolerates, one failing its checksum: `stale_beside_cut` does not check it ("agrees"),
//! `confirm_by_versions` decodes the dead column from exactly k known columns of version
//! 0 (the stale one among them), no check, and takes it (probe: first bytes 6b 03 7d 58,
//! true 21 f3 d7 e6); the settle's check finds that row at full tolerance (columns 0 and
//! 2 erased) and sends it home unchecked. `get`: "'f' WRONG byte 4096: 0x5d, acknowledged
//! 0x83" (the stale element read back) on raid6 and rs 4+2.
//!
//! Fixed in session 26 (s26b): the torn block's payload is whole the write's new block by
//! the crc it journaled for exactly that block (`cut_block_whole_new`), so `stale_beside_cut`
//! counts it as a known block of the new version, not an erasure: the row keeps one check,
//! the decode carried from the old version into the new one misses the write's journaled
//! parity crcs where the stale element is back, no column explains it alone, and the row's
//! acknowledged cached bytes are named LOST (elements 0, 1 and 2); with the stale element
//! healed every byte reads. `confirm_by_versions` refuses such a carried decode too (alone it
//! refuses the dead column's wrong decode, 6b 03 7d 58, but the stale element itself still
//! went home: "'f' WRONG byte 4096"), and knows the torn block as new (a crash and the dead
//! column alone, cut before mutating call 12, no longer lose element 2).
//!
//! s27e. The number of power cuts checked varied from run to run (torn: 8, 10 or 14 on
//! raid6): the overwrite's block writes ran one thread per OSS, so the order of its mutating
//! calls, and with it which disks the images are, followed the machine's load. The scene
//! now runs every plan's steps in plan order (`run_steps_in_plan_order_in_this_process`):
//! 38 / 8 (raid6, rs 4+2: untorn / torn) and 13 (rs 4+3 torn) in every run. In plan order
//! the overwrite's mutating calls are 9 reservations, the heal of the stale element (OSS
//! 1, call 9, never synced), then its cache writes (element 0, P, Q). The untorn cuts that
//! lose elements 0, 1 and 2 (s26b's "calls 1..9, no dropped write") are exactly those that
//! leave the stale element on disk: before the heal, or with OSS 1's unsynced heal
//! dropped. The stale element and the dead column alone (no write cut) lose the same three
//! on raid6 and rs 4+2: a column of unknown place costs two parity equations and the dead
//! one a third (2e + f <= m fails), beyond the tolerance, named LOST, the crash adding
//! nothing (asserted at every cut). On rs 4+3 the faults alone are within the tolerance and
//! still lost the row: fixed in s28d (`rs_4_3_a_stale_cache_element_beside_one_dead_column_alone_loses_nothing`);
//! some power cuts beside them still lose it there (OPEN, ignored test at the end).

use crate::common;
use crate::powercut;

use common::*;
use powercut::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError};

// Seeded pseudo-random bytes (splitmix64): regular patterns let a decode through mixed
// versions pass for one.
use common::splitmix_bytes as bytes;

/// Tear element 0's cache block where it holds its bytes before the overwrite (`old`): the
/// overwrite's bytes (`new`) laid over its payload, its checksum left. `false`: no slot
/// holds `old` (the overwrite reached it: nothing torn).
fn tear_element_0_cache_block(dir: &Path, oss_count: usize, old: &[u8], new: &[u8]) -> bool {
    for oss in 0..oss_count {
        let zone = object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"));
        let Ok(mut z) = std::fs::read(&zone) else {
            continue;
        };
        for slot in 0..z.len() / SLOT_BYTES {
            let payload = &z[slot * SLOT_BYTES..slot * SLOT_BYTES + UNIT];
            if payload == old {
                z[slot * SLOT_BYTES..slot * SLOT_BYTES + UNIT].copy_from_slice(new);
                std::fs::write(&zone, &z).unwrap();
                return true;
            }
        }
    }
    false
}

/// Does the journal at `dir` hold, past byte `from_bytes`, a `WriteParityCrcs` record (a
/// client write's, synced with its input before its first cache write)?
fn write_on_record(dir: &Path, from_bytes: u64) -> bool {
    let bytes = std::fs::read(dir.join("journal")).unwrap();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > bytes.len() {
            break; // a torn tail
        }
        let payload = String::from_utf8_lossy(&bytes[at + 8..at + 8 + len]);
        if at as u64 >= from_bytes && payload.contains("WriteParityCrcs") {
            return true;
        }
        at += 8 + len;
    }
    false
}

/// What one run of the scene found.
struct Found {
    /// Power cuts checked.
    points: usize,
    /// The blocks the two faults alone (the stale element and the dead column, no write
    /// cut) lose.
    faults_alone_lost: Vec<usize>,
    /// The power cuts that left the stale element on disk and lost blocks past what the two
    /// faults alone lose (each named, with those blocks).
    lost_past_faults_alone: Vec<String>,
}

/// Runs the scene (see the module docs): every block reads right or is named LOST, at every
/// power cut (panics otherwise).
fn overwrite_cut_beside_stale_cache_and_failed(code: CodeSpec, torn: bool) -> Found {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let g = layout.geometry().clone();
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(
        g.data_count() >= 4,
        "the scene: an open cache stripe of three columns"
    );

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = bytes(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_oss = layout.oss_of(0, 0, g.data_pos[1].col);
    let failed = vec![layout.oss_of(0, 0, g.data_pos[2].col)];
    assert!(!failed.contains(&stale_oss), "the scene");
    let mut write = |store: &Store, at: usize, seed: u64, len: usize| {
        let b = bytes(seed, len);
        store.write("f", at as u64, &b).unwrap();
        before[at..at + len].copy_from_slice(&b);
    };
    write(&store, 0, 3, 3 * UNIT);
    let zone_file = object_file(&dir, stale_oss, &format!("{CACHE_OBJECT}.cache"));
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, 0, 5, 3 * UNIT);
    std::fs::write(&zone_file, &snapshot).unwrap();
    let before = before;

    // The two faults alone, no write cut: the disk now (every write returned, synced)
    // with the stale element and, at its open, the dead column.
    let faults_alone = top.path().join("faults-alone");
    copy_tree(&dir, &faults_alone);

    // The write under test: an overwrite of cached element 0.
    cut.cut_journal_since_previous_call();
    let new = bytes(4, UNIT);
    let journal_before_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    cut.arm();
    store.write("f", 0, &new).unwrap();
    cut.last_image();
    drop(store);

    // The stale element beside the dead column is past what raid6 / rs 4+2 can place: a
    // column of unknown place costs two parity equations, the dead one a third (2e + f <=
    // m). Every cached element of the row is named LOST (nothing tells which one is stale;
    // element 3 is not cached), and none reads wrong.
    let stale_row = vec![0, UNIT, 2 * UNIT];
    let faults_alone_lost = {
        let what = format!("{code} failed {failed:?}: the stale element and the dead column alone");
        let store =
            open_laid(&faults_alone, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        assert_blocks_read_or_lost_on_record(&store, "f", &before, 0..0, &[], &what)
    };
    if g.parity_pos.len() == 2 {
        assert_eq!(faults_alone_lost, stale_row, "the two faults alone");
    }

    let images = cut.images();
    let mut points = 0;
    let mut lost_past_faults_alone = Vec::new();
    for_each_power_cut(&images, |point| {
        let what = format!("{code} failed {failed:?} torn {torn}: {}", point.what());
        let laid = top.path().join("try");
        point.lay(&laid);
        // A torn block only where the write is on record (its parity crcs, the last of
        // what it syncs before its first cache write): else a changed block nothing
        // journaled, a third fault (the overwrite heals the stale element before it
        // journals its input, at mutating call 9 after its reservations).
        let on_record = write_on_record(&laid, journal_before_bytes);
        if torn
            && (!on_record
                || !tear_element_0_cache_block(&laid, columns(code), &before[..UNIT], &new))
        {
            std::fs::remove_dir_all(&laid).unwrap();
            return;
        }
        points += 1;
        // The stale element back (the power cut dropped the overwrite's heal of it), or
        // healed: then a crash and the dead column are all, within the tolerance.
        let laid_zone = object_file(&laid, stale_oss, &format!("{CACHE_OBJECT}.cache"));
        let stale_back = std::fs::read(&laid_zone).unwrap() == snapshot;
        let store = open_laid(&laid, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        let lost = assert_blocks_read_or_lost_on_record(&store, "f", &before, 0..UNIT, &new, &what);
        // s26b: the torn block is known by the crc its write journaled, so with the stale
        // element healed nothing is lost (before, element 2 was, cut before mutating
        // call 12). s27e: with the tear or without, a power cut loses blocks only where it
        // left the stale element on disk, and then exactly what the two faults alone lose
        // (the power cut came before the overwrite's heal of it, mutating call 9 after
        // nine reservations, or dropped that heal, OSS 1's unsynced write), and then no
        // more than the two faults alone lose: the crash adds no loss (on raid6 and rs 4+2
        // every such cut loses elements 0, 1 and 2, named; on rs 4+3 the cut write's crcs
        // locate the stale element at some cuts, where the faults alone lose the row).
        if stale_back {
            let more: Vec<&usize> = (lost.iter())
                .filter(|at| !faults_alone_lost.contains(at))
                .collect();
            if !more.is_empty() {
                lost_past_faults_alone.push(format!("{what}: lost {more:?}"));
            }
        } else {
            assert!(
                lost.is_empty(),
                "{what}: a crash and a dead column alone lost blocks at {lost:?}"
            );
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{code} failed {failed:?} torn {torn}: {} images, {points} power cuts checked",
        images.len()
    );
    Found {
        points,
        faults_alone_lost,
        lost_past_faults_alone,
    }
}

/// The crash adds no loss to the stale element and the dead column: every power cut that
/// left the stale element on disk loses no block the two faults alone do not lose.
fn assert_the_crash_adds_no_loss(found: &Found) {
    assert!(
        found.lost_past_faults_alone.is_empty(),
        "the stale element back, blocks lost past what the two faults alone lose:\n{}",
        found.lost_past_faults_alone.join("\n")
    );
}

/// raid6 and rs 4+2: the stale element and the dead column alone are past the tolerance
/// (the row LOST, named); a power cut beside them adds no loss.
fn beyond_the_tolerance_the_crash_adds_no_loss(code: CodeSpec, torn: bool) {
    let found = overwrite_cut_beside_stale_cache_and_failed(code, torn);
    assert!(found.points > 1);
    assert_the_crash_adds_no_loss(&found);
}

#[test]
fn raid6_a_cut_overwrite_beside_a_stale_cache_element_and_a_dead_column_never_reads_wrong() {
    beyond_the_tolerance_the_crash_adds_no_loss(CodeSpec::raid6(4), false);
}

#[test]
fn rs_4_2_a_cut_overwrite_beside_a_stale_cache_element_and_a_dead_column_never_reads_wrong() {
    beyond_the_tolerance_the_crash_adds_no_loss(CodeSpec::rs(4, 2), false);
}

#[test]
fn raid6_a_cut_overwrite_torn_beside_a_stale_element_and_a_dead_column_never_reads_wrong() {
    beyond_the_tolerance_the_crash_adds_no_loss(CodeSpec::raid6(4), true);
}

#[test]
fn rs_4_2_a_cut_overwrite_torn_beside_a_stale_element_and_a_dead_column_never_reads_wrong() {
    beyond_the_tolerance_the_crash_adds_no_loss(CodeSpec::rs(4, 2), true);
}

/// rs 4+3 tolerates three: the dead column and the torn block leave one erasure to check
/// with, so the row was checked there before s26b as well (a pin of the same scene). Every
/// block reads right or is named LOST at every power cut. (Until s28d this test also held
/// the crash to the faults alone's loss, which was the whole row; since the faults alone
/// lose nothing, that is `rs_4_3_a_cut_overwrite_beside_a_stale_element_and_a_dead_column_loses_nothing_past_the_faults_alone`.)
#[test]
fn rs_4_3_a_cut_overwrite_torn_beside_a_stale_element_and_a_dead_column_never_reads_wrong() {
    assert!(overwrite_cut_beside_stale_cache_and_failed(CodeSpec::rs(4, 3), true).points > 1);
}

/// s27e's OPEN, fixed in s28d: the two faults alone (no write cut, no power cut) on rs 4+3,
/// a stale cache element and one dead column, are within what the code can place (2e + f =
/// 3 <= m = 3: the dead column erased and each other column erased in turn, one equation is
/// left to tell the stale one). On b97f293 the flush named elements 0, 1 and 2 LOST ("its
/// WCL cache stripe's running parity disagrees with its data and no single stale column
/// explains it"; element 2: "its cache copy is unreadable beyond the code's tolerance"):
/// "a stale cache element and one dead column on rs 4+3 lost blocks at [0, 4096, 8192]".
/// Cause: `check_erased_rows` (stale_cache.rs) decoded a block row with erased columns and
/// checked it, but never erased one more column to locate a stale one beside them
/// (`locate_beside_erased` now does). raid6 and rs 4+2 lose the same row there rightly
/// (2e + f = 3 > 2).
#[test]
fn rs_4_3_a_stale_cache_element_beside_one_dead_column_alone_loses_nothing() {
    let found = overwrite_cut_beside_stale_cache_and_failed(CodeSpec::rs(4, 3), false);
    assert!(
        found.faults_alone_lost.is_empty(),
        "a stale cache element and one dead column on rs 4+3 lost blocks at {:?}",
        found.faults_alone_lost
    );
}

/// OPEN (s28d): rs 4+3, the same two faults and the overwrite cut by a power cut that left
/// the stale element on disk. Within the tolerance with the write's journaled crcs, and the
/// faults alone lose nothing, but the power cuts after the overwrite's data block and its
/// first running parity block landed, before the other two (mutating call 14, torn or not),
/// lose elements 0, 1 and 2 ("recovery could not tell its true bytes ... too few columns
/// left to tell"). `stale_beside_cut` checks each version of the row apart: the old one
/// erases the overwritten block, its first parity block, the dead column and the stale one
/// (4 > 3), the new one its last two parity blocks, the dead and the stale column (4 > 3),
/// and carrying the calm columns' decode from one into the other needs one of them
/// decodable. Per byte the two versions together hold three equations (the new first
/// parity, the old last two) for three unknowns (the overwritten bytes, the dead and the
/// stale column), checked by the last two parity blocks' journaled crcs: a joint decode of
/// both versions, not built. The cut before the first parity block (call 13) was the same
/// until s28d carried the stale candidate's decode across (`cross_version_check`). On
/// b97f293 these cuts lost the same blocks (then no more than the faults alone).
#[test]
#[ignore = "OPEN (s28d): rs 4+3, a cut overwrite beside a stale element and a dead column, cut after its first running parity block: each version one erasure short, no joint decode"]
fn rs_4_3_a_cut_overwrite_beside_a_stale_element_and_a_dead_column_loses_nothing_past_the_faults_alone(
) {
    for torn in [false, true] {
        let found = overwrite_cut_beside_stale_cache_and_failed(CodeSpec::rs(4, 3), torn);
        assert!(found.points > 1);
        assert_the_crash_adds_no_loss(&found);
    }
}
