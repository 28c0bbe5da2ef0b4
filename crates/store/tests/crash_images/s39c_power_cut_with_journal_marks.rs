//! Review r38c MEDIUM-4: the power-cut emulation (`common/powercut.rs`) forwarded no journal
//! mark method (`backend::JOURNAL_MARK_FILE`), so no power-cut test wrote or checked a mark,
//! and none showed that a power cut ALONE never makes the open refuse a healthy store ("the
//! journal ... lost records it had made durable"). A refusal there would trade every read of
//! the store for nothing: a power cut keeps the journal to at least its last fsync, and each
//! mark names a record the journal had made durable before it was written.
//!
//! Specification: WCL client writes (fsync on), each making cache zone bytes durable and so
//! writing marks, cut by a power cut before any of their backend calls or after the last
//! (the journal cut at each record boundary its fsyncs allow, each OSS keeping or dropping
//! its unsynced writes and its mark with them): every cut opens, and every acknowledged
//! byte reads back as acknowledged (a write in flight as before it or as it wrote it), with
//! success, before any settle.
//!
//! Review r38c LOW-9, a torn journal tail beside marks: the same power cuts with the journal
//! torn inside the record after the cut instead (a record the journal had not fsync'd, so
//! no write it belongs to was acknowledged) open and read every acknowledged byte as well.
//! These do NOT test the one record of slack `refuse_journal_behind_marks` allows past a
//! torn tail (review r39c MEDIUM-2: they pass without it): with fsync on no mark names a
//! record that was not fsync'd, so no mark reaches into a torn tail; the slack is for a
//! store without fsync, whose marks name records only written, and no test tears such a
//! store's journal inside the record its mark names (open).

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::JOURNAL_MARK_FILE;

/// WCL client writes cut by the power cut: enough that marks advance while armed.
const WRITES: usize = 3;

/// The mark files of every OSS of a store laid at `dir` (`None`: no mark file).
fn marks_of(dir: &std::path::Path, oss_count: usize) -> Vec<Option<Vec<u8>>> {
    (0..oss_count)
        .map(|oss| std::fs::read(dir.join(format!("oss-{oss}")).join(JOURNAL_MARK_FILE)).ok())
        .collect()
}

/// Power cuts through `WRITES` WCL writes into the cache zone of a file; with `torn`, each
/// journal cut that has a record after it torn halfway into that record instead. Returns
/// how many were checked.
fn power_cuts_through_wcl_writes_with_marks(code: CodeSpec, torn: bool) -> usize {
    images_in_plan_order();
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(stripe_bytes >= 2 * UNIT, "the writes need two data columns");
    let oss_count = exaraid_store::superblock::Superblock::load(&dir)
        .unwrap()
        .oss_dirs
        .len();

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut base = pattern(1, 2 * stripe_bytes);
    store.put("f", &base).unwrap();
    // One acknowledged WCL write before the cuts: a mark on disk already at the first image.
    let first = pattern(2, UNIT);
    store.write("f", 0, &first).unwrap();
    base[..UNIT].copy_from_slice(&first);
    let base = base;

    let mut writes = Vec::new();
    cut.arm();
    for k in 0..WRITES {
        // Columns 1, 0 and 1 of stripe 0, then of stripe 1: the same cache slots again, and
        // new ones.
        let at = (k % 2) * stripe_bytes + ((k + 1) % 2) * UNIT;
        let bytes = pattern(10 + k as u64, UNIT);
        let issued_at = cut.images().len();
        store.write("f", at as u64, &bytes).unwrap();
        writes.push(Issued {
            at,
            bytes,
            issued_at,
            acked_at: cut.images().len(),
        });
    }
    cut.last_image();
    drop(store);
    let writes = vec![writes];

    let images = cut.images();
    let first_marks = marks_of(&images[0].dir, oss_count);
    let last_marks = marks_of(&images.last().unwrap().dir, oss_count);
    assert!(
        first_marks.iter().any(Option::is_some),
        "the scene: a mark on disk before the cut writes (the WCL write before them)"
    );
    assert_ne!(
        first_marks, last_marks,
        "the scene: the cut writes advance some OSS's mark (the power cut sees marks written)"
    );

    let laid = top.path().join("try");
    let mut points = 0;
    for_each_power_cut(&images, |point| {
        points += 1;
        let mut what = format!("{:?}: {}", code.kind, point.what());
        let (acked, flight) = model_at(&base, &writes, point.image_index);
        let next_record_end = journal_cuts(point.image)
            .into_iter()
            .find(|&end| end > point.journal_cut_bytes);
        if torn && next_record_end.is_none() {
            return;
        }
        point.lay(&laid);
        if let Some(end) = next_record_end.filter(|_| torn) {
            assert!(
                point.journal_cut_bytes >= point.image.journal_durable_bytes,
                "the torn record was never fsync'd"
            );
            let torn_bytes = point.journal_cut_bytes + (end - point.journal_cut_bytes) / 2;
            std::fs::copy(point.image.dir.join("journal"), laid.join("journal")).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(laid.join("journal"))
                .unwrap()
                .set_len(torn_bytes)
                .unwrap();
            what = format!("{what}, the journal torn at byte {torn_bytes} (record end {end})");
        }
        let store = open_laid(&laid, &[]).unwrap_or_else(|e| {
            panic!("{what}: a power cut alone, and the open refused the store: {e}")
        });
        match check_reads(&store, &acked, &flight) {
            Ok((lost, _)) if lost.is_empty() => {}
            Ok((lost, message)) => {
                panic!("{what}: acknowledged blocks at {lost:?} read LOST: {message}")
            }
            Err(wrong) => panic!("{what}: {wrong}"),
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{:?}: {} images, {points} power cuts checked (torn {torn})",
        code.kind,
        images.len()
    );
    points
}

#[test]
fn raid5_a_power_cut_through_wcl_writes_with_journal_marks_opens_and_reads_every_acknowledged_byte()
{
    assert!(power_cuts_through_wcl_writes_with_marks(CodeSpec::raid5(4), false) > 1);
}

#[test]
fn raid6_a_power_cut_through_wcl_writes_with_journal_marks_opens_and_reads_every_acknowledged_byte()
{
    assert!(power_cuts_through_wcl_writes_with_marks(CodeSpec::raid6(4), false) > 1);
}

#[test]
fn raid5_a_power_cut_with_the_journal_torn_in_an_unsynced_record_opens_and_reads_every_acknowledged_byte(
) {
    assert!(power_cuts_through_wcl_writes_with_marks(CodeSpec::raid5(4), true) > 1);
}

#[test]
fn raid6_a_power_cut_with_the_journal_torn_in_an_unsynced_record_opens_and_reads_every_acknowledged_byte(
) {
    assert!(power_cuts_through_wcl_writes_with_marks(CodeSpec::raid6(4), true) > 1);
}
