//! s19f's leftover in `recovery::cut_only_ranges`: the bytes "only writes cut by the crash
//! ever wrote" were the cut writes' ranges minus the runs of the last state checkpoint and
//! minus the journaled writes the crash did not cut. A journaled `PlannerReset` drops the
//! inputs before it, so an acknowledged write made before a reset that no checkpoint
//! followed (a kill between the close's reset and its checkpoint) was in neither: a later
//! cut write over the same bytes made them "never written but by the cut write", and where
//! home could not tell the block (its checksum rotten, and rot beside it: past the code's
//! tolerance) recovery wrote zeros over the acknowledged bytes and read them back with
//! success.
//!
//! Specification: after such a crash every 4 KiB block of the file reads its acknowledged
//! bytes (or the cut write's), or fails `DataLost` with a loss on record; never zeros.

use crate::common;

use std::path::Path;

use common::*;
use exaraid_codes::{CodeSpec, Pos};
use exaraid_plan::Layout;
use exaraid_store::{Store, WritePath};

/// Tells the child process below where its store is.
const CHILD_DIR_ENV: &str = "EXARAID_TEST_RESET_WITHOUT_CHECKPOINT_CHILD_DIR";
const OSS: usize = 5;
/// The acknowledged write: stripe 0 whole (raid5 4+1, 4 KiB unit), one block per column.
const ACKED_BYTES: usize = 4 * UNIT;
/// Bounded: the child's open, write and close journal a handful of records.
const KILL_POINTS_MAX: u64 = 32;

/// The child: the acknowledged write, then a close (its `PlannerReset`, then the checkpoint),
/// in a process the parent set to kill itself at a kill point. Run as a test of its own (no
/// store named) it does nothing.
#[test]
fn child_write_then_close() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store.write("f", 0, &pattern(2, ACKED_BYTES)).unwrap();
    store.close().unwrap();
}

/// Flip byte `at_bytes` of the home slot of stripe 0's element at `pos` of object `id`
/// (payload `0..UNIT`, then block 0's stored checksum), without opening the store: the block
/// then fails its checksum.
fn rot_home_slot(dir: &Path, layout: &Layout, id: u64, pos: Pos, at_bytes: usize) {
    assert!(at_bytes < SLOT_BYTES);
    let oss = layout.oss_of(id, 0, pos.col);
    let path = object_file(dir, oss, &format!("{id}.data"));
    let slot = (layout.home_addr(0, pos, 0) / UNIT as u64) as usize;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[slot * SLOT_BYTES + at_bytes] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
}

#[test]
fn a_cut_write_over_bytes_acknowledged_before_an_unchecked_reset_never_reads_zeros() {
    let tmp = scratch();
    let dir = tmp.path().join("s");
    let store = init(&dir, CodeSpec::raid5(4), OSS, WritePath::Rmw);
    // The name exists in the checkpoint, with no byte written: its checkpointed runs are
    // empty, so every later byte of it is known written only from the journal.
    store.put("f", &[]).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout().clone();
    store.close().unwrap();
    let saved = tmp.path().join("saved");
    copy_tree(&dir, &saved);

    // Kill the child right after its close journaled the `PlannerReset` (fsync'd), before
    // the checkpoint that would have put the write's runs in the state file.
    let point = exaraid_store::torture::JOURNAL_RECORD;
    let mut n = 1;
    loop {
        assert!(
            n <= KILL_POINTS_MAX,
            "the close's PlannerReset is journaled within {KILL_POINTS_MAX} records"
        );
        let killed = child_test_killed_at(
            concat!(module_path!(), "::child_write_then_close"),
            CHILD_DIR_ENV,
            &dir,
            point,
            n,
        );
        assert!(killed, "the child ended before its close's PlannerReset");
        let journal = std::fs::read(dir.join("journal")).unwrap();
        let kinds = journal_record_kinds(&journal);
        if kinds
            .last()
            .is_some_and(|(_, _, kind)| kind == "PlannerReset")
        {
            let writes = kinds.iter().filter(|(_, _, k)| k == "Input").count();
            assert!(
                writes >= 1,
                "the write's input is journaled before the reset"
            );
            break;
        }
        std::fs::remove_dir_all(&dir).unwrap();
        copy_tree(&saved, &dir);
        n += 1;
    }

    // Past raid5's tolerance in the row: data column 1's block rots, column 0's block's
    // stored checksum rots (its bytes stay the acknowledged ones), and a write over column
    // 0's bytes is cut right after its input was journaled. Home cannot tell column 0's block.
    let g = layout.geometry();
    rot_home_slot(&dir, &layout, id, g.data_pos[1], 100);
    rot_home_slot(&dir, &layout, id, g.data_pos[0], UNIT);
    let cut_new = pattern(3, UNIT);
    leave_write_in_flight(&dir, "f", 0, UNIT as u64);

    let store = Store::open(&dir).unwrap();
    let acked = pattern(2, ACKED_BYTES);
    let what = "column 0's checksum and column 1's bytes rotten, a write over column 0 cut after an unchecked reset";
    assert_blocks_read_or_lost_on_record(&store, "f", &acked, 0..UNIT, &cut_new, what);
    store.close().unwrap();
    // And the same after another open (nothing left undecided for it to decide otherwise).
    let store = Store::open(&dir).unwrap();
    assert_blocks_read_or_lost_on_record(&store, "f", &acked, 0..UNIT, &cut_new, what);
    store.close().unwrap();
}
