//! Session 46 (s46d), review r45b MEDIUM-1: the epoch refusal's way out clears the home
//! witness (s45b), and that clear must be on disk before the open's first epoch bump tells
//! the OSSs an epoch again. Those epoch files hide the way out from the next open: were the
//! clear only in memory until the open's best-effort checkpoint, a kill (or a refused
//! checkpoint) in between brought the witness back from the state snapshot, and the
//! in-place overwrites the put-back metadata does not know read LOST on record (never
//! WRONG). The clear is journaled (`Rec::HomeWitnessCleared`) before the bump's fsync.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const FILE_BYTES: usize = 65_536;
/// Every block of the in-place overwrites (4 KiB each) the put-back metadata never saw.
pub(crate) const OVERWRITES_AT: [usize; 4] = [0, 8192, 20_480, 40_960];

/// Raid6 4+2 rmw at `dir`: a put of "f", the metadata saved (under `tmp`), the in-place
/// overwrites `OVERWRITES_AT`, the metadata put back; the open refuses for the epoch; every
/// OSS's `exaraid-epoch.json` removed (the way out). Returns "f"'s acknowledged bytes.
pub(crate) fn way_out_of_put_back_metadata(
    tmp: &std::path::Path,
    dir: &std::path::Path,
) -> Vec<u8> {
    let store = init(dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let mut acked = pattern(1, FILE_BYTES);
    store.put("f", &acked).unwrap();
    store.close().unwrap();
    let saved = tmp.join("saved");
    copy_tree(dir, &saved);
    let store = Store::open(dir).unwrap();
    for (i, at) in OVERWRITES_AT.into_iter().enumerate() {
        let b = pattern(50 + i as u64, 4096);
        store.write("f", at as u64, &b).unwrap();
        acked[at..at + 4096].copy_from_slice(&b);
    }
    store.close().unwrap();
    put_metadata_back(&saved, dir);
    let e = Store::open(dir).err().expect("refused for the epoch");
    assert!(e.to_string().contains("exaraid-epoch.json"), "{e}");
    for oss in 0..6 {
        std::fs::remove_file(dir.join(format!("oss-{oss}")).join("exaraid-epoch.json")).unwrap();
    }
    acked
}

/// Raid6 4+2, rmw: a put, the metadata saved, four 4 KiB in-place overwrites, the metadata
/// put back; the open refuses for the epoch; every OSS's `exaraid-epoch.json` removed (the
/// way out). That open's end-of-open checkpoint is refused (a directory stands where the
/// state file's temporary copy goes: `write_atomic`'s `state.tmp`), then a put of another
/// file bumps the epoch (every OSS holds an epoch file again), and the process ends with no
/// checkpoint (the store dropped, no close: a kill -9). With the blocker gone, the next
/// open no longer sees the way out; the overwrites must read right, nothing on record lost,
/// and again after a clean close and reopen. On 7c9d35f8: "read at 0 ... lost".
#[test]
fn s46d_way_out_then_a_kill_before_the_checkpoint_keeps_the_overwrites_readable() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let acked = way_out_of_put_back_metadata(tmp.path(), &dir);
    let epoch_file = |oss: usize| dir.join(format!("oss-{oss}")).join("exaraid-epoch.json");
    // Every checkpoint of this process is refused from here.
    let blocker = dir.join("state.tmp");
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"x").unwrap();
    let store = Store::open(&dir).unwrap();
    all_right(&store, &acked, "the way out");
    store.put("g", &pattern(7, 5000)).unwrap();
    assert!(
        (0..6).all(|oss| epoch_file(oss).exists()),
        "the put's epoch bump told every OSS"
    );
    drop(store);
    std::fs::remove_dir_all(&blocker).unwrap();
    let store = Store::open(&dir).unwrap();
    all_right(
        &store,
        &acked,
        "reopened after a kill before the checkpoint",
    );
    assert_eq!(store.get("g").unwrap(), pattern(7, 5000));
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    all_right(&store, &acked, "reopened after a close");
    store.close().unwrap();
}
