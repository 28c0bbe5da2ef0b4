//! Session 47 (s47d), review r46d LOW-3: the epoch refusal's way out (every OSS's epoch
//! file removed) clears the home witness in memory, and the open's first epoch bump journals
//! that clear (`Rec::HomeWitnessCleared`, appended unsynced) right before its own fsync'd
//! record (`Rec::OssGenerations`), then tells every OSS the new epoch (`Store::bump_epoch`,
//! `journal_home_witness_cleared`). s46d's scene covers a kill after the bump; nothing cut
//! the power BETWEEN the clear's append and the bump's fsync, nor while the OSSs are told.
//!
//! Laid by hand, not with `common/powercut.rs`: the open recognises the way out only over
//! its own OSS directories (`epoch_files_removed` is not asked with supplied backends), so
//! the power-cut backends never see it. The bump is the way-out open's own (before its
//! end-of-open checkpoint). A power cut in it leaves: the journal ending before the clear,
//! right after it (appended, not yet fsync'd), or after the bump (its fsync made both
//! durable); the OSSs as before the open, holding no epoch file or, once the bump is
//! durable, the new one on some of them.
//! At every such disk the next open must open (no epoch file anywhere and no bump on
//! record: the way out again, the witness cleared again; the bump on record: the clear is
//! before it in the journal) and every acknowledged byte must read right with nothing LOST
//! on record: the in-place overwrites the put-back metadata never saw are the OSSs' bytes,
//! and a witness brought back from the snapshot would name them LOST (s46d's failure).

use crate::common;
use crate::s46d_way_out_clear_survives_a_kill::way_out_of_put_back_metadata;
use common::*;

use std::path::Path;

use exaraid_store::backend::EPOCH_FILE;
use exaraid_store::Store;

/// The OSSs of `way_out_of_put_back_metadata`'s raid6 4+2 store.
const OSS_COUNT: usize = 6;

fn epoch_file(dir: &Path, oss: usize) -> std::path::PathBuf {
    dir.join(format!("oss-{oss}")).join(EPOCH_FILE)
}

/// Every file under `dir` (its path inside `dir`, its bytes), sorted.
fn list_files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            if e.file_type().unwrap().is_dir() {
                walk(root, &e.path(), out);
            } else {
                let name = e.path().strip_prefix(root).unwrap().display().to_string();
                out.push((name, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    walk(dir, dir, out);
}

/// Raid6 4+2, rmw, fsync on: a put, the metadata saved, four 4 KiB in-place overwrites, the
/// metadata put back; the open refuses for the epoch; every OSS's epoch file removed (the
/// way out), and every checkpoint refused (a directory at `state.tmp`), so the journal only
/// grows. The disk is copied (`before`), the way-out open runs (its bump journals the clear
/// and the epoch and tells every OSS: `opened`; it writes no other OSS file), a put of "g"
/// follows and the process ends with no checkpoint. The power cuts are laid from `before`
/// with the journal cut at each record boundary of the open up to its bump (before the
/// clear, after the clear and before the bump's fsync, after the bump) beside no epoch
/// file, and the bump durable beside the new epoch file on OSSs 0..told for each told in
/// 0..=6 (a cut while telling them). Each is opened twice (the second after a clean close):
/// "f" reads the acknowledged bytes, nothing lost on record; "g" (never acknowledged at
/// these cuts) is absent or reads its bytes. Ablation (replay ignoring the clear): fails at
/// the bump with one OSS told ("bytes 0..4096 are lost (recorded lost)").
#[test]
fn s47d_power_cut_between_the_way_outs_clear_and_the_epoch_bump_keeps_the_overwrites_readable() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = way_out_of_put_back_metadata(tmp.path(), &dir);
    // Every checkpoint of this process is refused from here: the clear stays unjournaled
    // until the put's bump, and the journal only grows.
    let blocker_name = "state.tmp";
    let blocker = dir.join(blocker_name);
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let before = tmp.path().join("before");
    copy_tree(&dir, &before);
    let store = Store::open(&dir).unwrap();
    all_right(&store, &acked, "the way out");
    let opened = tmp.path().join("opened");
    copy_tree(&dir, &opened);
    let g = pattern(7, 5000);
    store.put("g", &g).unwrap();
    drop(store); // a kill: no checkpoint, no close
    let after_journal = std::fs::read(dir.join("journal")).unwrap();
    let before_journal = std::fs::read(before.join("journal")).unwrap();
    assert!(
        after_journal.starts_with(&before_journal),
        "the scene: the open and the put only appended to the journal"
    );
    let records: Vec<(usize, usize, String)> = journal_record_kinds(&after_journal)
        .into_iter()
        .filter(|&(at, _, _)| at >= before_journal.len())
        .collect();
    let kinds: Vec<&str> = records.iter().map(|(_, _, k)| k.as_str()).collect();
    let clear = kinds.iter().position(|&k| k == "HomeWitnessCleared");
    let clear = clear.unwrap_or_else(|| panic!("the scene: the clear journaled: {kinds:?}"));
    assert_eq!(
        kinds.get(clear + 1),
        Some(&"OssGenerations"),
        "the scene: the open's first bump right after the clear: {kinds:?}"
    );
    // The open wrote nothing to the OSSs but the epoch files (the bump's telling): every
    // power cut up to the end of the telling keeps `before`'s OSS files beside the epoch.
    for oss in 0..OSS_COUNT {
        let files = |d: &Path| {
            let mut v = Vec::new();
            list_files(&d.join(format!("oss-{oss}")), &mut v);
            v.retain(|(name, _)| !name.ends_with(EPOCH_FILE));
            v
        };
        assert!(
            files(&before) == files(&opened),
            "the scene: the open wrote OSS {oss}'s files beyond its epoch file"
        );
        assert!(
            !epoch_file(&before, oss).exists() && epoch_file(&opened, oss).exists(),
            "the scene: the open's bump told OSS {oss}, none was told before it"
        );
    }
    let bump_end = records[clear + 1].0 + records[clear + 1].1;
    // (journal kept to byte, OSSs holding the new epoch file): every record boundary of the
    // open up to the bump's end (the clear's append among them) beside no epoch file, and
    // the bump durable beside each count of OSSs told.
    let mut cuts: Vec<(usize, usize)> = std::iter::once(before_journal.len())
        .chain(records[..=clear].iter().map(|&(at, len, _)| at + len))
        .map(|end| (end, 0))
        .collect();
    cuts.extend((0..=OSS_COUNT).map(|told| (bump_end, told)));
    let clear_end = records[clear].0 + records[clear].1;

    eprintln!("the open's records {kinds:?}; cuts (journal bytes, OSSs told) {cuts:?}");
    let laid = tmp.path().join("try");
    for (journal_bytes, told) in cuts {
        let what = format!(
            "power cut with the journal kept to byte {journal_bytes} (clear ends at \
             {clear_end}, bump at {bump_end}), the new epoch on OSSs 0..{told}"
        );
        copy_tree(&before, &laid);
        std::fs::remove_dir_all(laid.join(blocker_name)).unwrap();
        std::fs::write(laid.join("journal"), &after_journal[..journal_bytes]).unwrap();
        for oss in 0..told {
            std::fs::copy(epoch_file(&opened, oss), epoch_file(&laid, oss)).unwrap();
        }
        for pass in ["reopened after the power cut", "reopened after a close"] {
            let store = Store::open(&laid)
                .unwrap_or_else(|e| panic!("{what}: {pass}: a power cut alone, refused: {e}"));
            all_right(&store, &acked, &format!("{what}: {pass}"));
            if let Ok(got) = store.get("g") {
                assert!(got == g, "{what}: {pass}: \"g\" reads WRONG bytes");
            }
            store.close().unwrap();
        }
        std::fs::remove_dir_all(&laid).unwrap();
    }
}
