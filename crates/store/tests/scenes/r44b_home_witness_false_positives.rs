//! Review r44b (session 44): scenes hunting a FALSE positive of s44b's home witness: a read
//! that fails `DataLost` (or records a loss) where every byte on disk is the last
//! acknowledged one. Each scene reads every 4 KiB block and requires the acknowledged
//! bytes with success and nothing on record lost.

use crate::common;
use common::*;

use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const FILE_BYTES: usize = 65_536;

fn write(store: &Store, acked: &mut [u8], at: usize, seed: u64, len: usize) {
    let b = pattern(seed, len);
    store.write("f", at as u64, &b).unwrap();
    acked[at..at + len].copy_from_slice(&b);
}

/// Delayed store: a witnessed home write, then a window over the same blocks (partial
/// overwrite), END (move home), reopen.
#[test]
fn r44b_delayed_window_over_witnessed_blocks_reads_right() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Delayed);
    let mut acked = pattern(1, FILE_BYTES);
    store.put("f", &acked).unwrap();
    write(&store, &mut acked, 4396, 2, 3000);
    write(&store, &mut acked, 20_000, 3, 9000);
    all_right(&store, &acked, "before the window");
    let token = store.delayed_start("f").unwrap();
    write(&store, &mut acked, 5000, 4, 500);
    write(&store, &mut acked, 4100, 5, 10);
    write(&store, &mut acked, 24_000, 6, 100);
    all_right(&store, &acked, "window open");
    store.delayed_end(&token).unwrap();
    all_right(&store, &acked, "after END");
    write(&store, &mut acked, 5200, 7, 30);
    all_right(&store, &acked, "after a write past END");
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    all_right(&store, &acked, "reopened");
    store.close().unwrap();
}

/// Concurrent rmw writers on the same few blocks, readers beside them: no read may fail
/// `DataLost` and nothing may go on record lost.
fn concurrent(code: CodeSpec, oss: usize, path: WritePath) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = Arc::new(init(&dir, code, oss, path));
    store.put("f", &pattern(1, FILE_BYTES)).unwrap();
    let mut handles = Vec::new();
    for t in 0..4u64 {
        let s = store.clone();
        handles.push(std::thread::spawn(move || {
            let mut rng = Rng(0x9e37 + t * 7919);
            for i in 0..150u64 {
                let at = rng.below(20_000) as usize;
                let len = 1 + rng.below(6000) as usize;
                let b = pattern(t * 1000 + i + 10, len);
                s.write("f", at as u64, &b).unwrap();
            }
        }));
    }
    for t in 0..2u64 {
        let s = store.clone();
        handles.push(std::thread::spawn(move || {
            for i in 0..300u64 {
                let at = (i * 4096 + t * 777) % 24_576;
                if let Err(e) = s.read("f", at, 4096) {
                    panic!("concurrent read at {at}: {e}");
                }
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    let got = store.get("f").unwrap();
    let lost = store.status().unwrap().lost_ranges;
    assert!(lost.is_empty(), "lost on record: {lost:?}");
    Arc::try_unwrap(store).ok().unwrap().close().unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.get("f").unwrap() == got, "reopened");
    all_right(&store, &got, "reopened");
    store.close().unwrap();
}

#[test]
fn r44b_concurrent_rmw_writers_and_readers_raid5() {
    concurrent(CodeSpec::raid5(4), 5, WritePath::Rmw);
}

#[test]
fn r44b_concurrent_rmw_writers_and_readers_raid6() {
    concurrent(CodeSpec::raid6(4), 6, WritePath::Rmw);
}

#[test]
fn r44b_concurrent_delayed_writers_and_readers_raid5() {
    concurrent(CodeSpec::raid5(4), 5, WritePath::Delayed);
}

/// Witnessed writes, then an OSS lost and rebuilt onto a new directory; then reads, scrub
/// --repair, a put over the file, and a reopen.
#[test]
fn r44b_rebuild_scrub_repair_and_put_over_read_right() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = init(&dir, CodeSpec::raid6(4), 6, WritePath::Rmw);
    let mut acked = pattern(1, FILE_BYTES);
    store.put("f", &acked).unwrap();
    for (i, at) in [100usize, 4396, 9000, 30_000, 40_000]
        .into_iter()
        .enumerate()
    {
        write(&store, &mut acked, at, 20 + i as u64, 5000);
    }
    let id = store.file_id("f").unwrap();
    let victim = store.layout().locate(id, 4396).oss;
    store.close().unwrap();
    lose_disk(&dir, victim);
    let mut store = Store::open(&dir).unwrap();
    store.fail_oss(victim).unwrap();
    all_right(&store, &acked, "degraded");
    let to = tmp.path().join("new");
    std::fs::create_dir_all(&to).unwrap();
    store.rebuild(victim, Some(&to)).unwrap();
    all_right(&store, &acked, "rebuilt");
    store.scrub(true).unwrap();
    all_right(&store, &acked, "scrubbed");
    store.close().unwrap();
    let store = Store::open(&dir).unwrap();
    all_right(&store, &acked, "reopened");
    let mut acked = pattern(99, FILE_BYTES);
    store.put("f", &acked).unwrap();
    all_right(&store, &acked, "put over");
    write(&store, &mut acked, 4000, 77, 200);
    all_right(&store, &acked, "written after the put");
    store.close().unwrap();
}

/// The s32h trade, wider than "a journal cut at a record boundary": an rmw (delayed) store
/// whose METADATA (journal, state) is put back from a copy taken before some in-place
/// overwrites, the OSSs as they are. The open refuses for the epoch and names the way out
/// (remove exaraid-epoch.json from every OSS: "bytes written since into the files it lists
/// read back as the OSSs hold them now"). Taken, on af8127a3 the overwrites read back (home
/// in place, parity agreeing). On s44b the restored home witness held the put's crcs for
/// those blocks: each overwritten block read LOST, and went on record (review r44b
/// MEDIUM-1). Since session 45 (s45b) an open that finds every OSS in service without an
/// epoch file at all (the way out, `cut_deletions::epoch_files_taken_away`) trusts no home
/// witness and checkpoints it cleared, so the overwrites read right, also after a reopen
/// (whose OSSs hold this open's epoch again). The boundary the session 44 mend broke (a
/// blank replacement disk holds no epoch file either) is pinned by
/// `s45b_lost_home_write_beside_a_blank_disk_never_reads_stale` (s44b_lost_home_write.rs).
#[test]
fn r44b_rmw_metadata_put_back_reads_the_in_place_overwrites() {
    for path in [WritePath::Rmw, WritePath::Delayed] {
        let tmp = scratch();
        let dir = tmp.path().join("store");
        let store = init(&dir, CodeSpec::raid6(4), 6, path);
        let mut acked = pattern(1, FILE_BYTES);
        store.put("f", &acked).unwrap();
        store.close().unwrap();
        let saved = tmp.path().join("saved");
        copy_tree(&dir, &saved);
        let store = Store::open(&dir).unwrap();
        for (i, at) in [0usize, 8192, 20_480, 40_960].into_iter().enumerate() {
            write(&store, &mut acked, at, 50 + i as u64, 4096);
        }
        store.close().unwrap();
        // Put back the metadata (everything but the OSS directories) from the copy.
        put_metadata_back(&saved, &dir);
        // Refused for the epoch; its message's way out: "removing exaraid-epoch.json from
        // every OSS directory opens the store as this older metadata has it: ... bytes
        // written since into the files it lists read back as the OSSs hold them now".
        let e = Store::open(&dir).err().expect("refused for the epoch");
        assert!(e.to_string().contains("exaraid-epoch.json"), "{e}");
        for oss in 0..6 {
            std::fs::remove_file(dir.join(format!("oss-{oss}")).join("exaraid-epoch.json"))
                .unwrap();
        }
        let store = Store::open(&dir).unwrap();
        all_right(&store, &acked, &format!("{path:?}: metadata put back"));
        store.close().unwrap();
        let store = Store::open(&dir).unwrap();
        all_right(
            &store,
            &acked,
            &format!("{path:?}: metadata put back, reopened"),
        );
        store.close().unwrap();
    }
}
