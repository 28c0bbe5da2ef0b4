//! s19c's leftover of R18-5: a delayed window's move home over a home block that rotted
//! under the window's bytes, beside bytes the file wrote, on a code with no spare parity in
//! the row (raid5). The move's edge-block heal cannot confirm the bytes it keeps (the
//! block's checksum covers the rotten old byte, no spare parity equation is left), so it
//! refuses before any write, and the failed plan leaves the handle refusing every call. The
//! rot lands after the END parity's reads and before the move (a hook on the END parity's
//! write): the one order in which no read heals the block while the stripe is still
//! consistent (a move run later by the background worker meets it so).
//!
//! Specification: the move's heal and the reopen's recovery give the same answer for the
//! block (session 21, s21d: the heal refused it while the recovery read the same unconfirmed
//! decode with success). Where the decode equals the block's bytes on disk that the move
//! keeps (the rot lies under the window's bytes only), both take it: END succeeds and every
//! byte reads, in process and after a reopen. Where a kept byte rotted too, nothing confirms
//! the decode (no spare parity): END fails with `DataLost` naming the block's file bytes,
//! saying nothing of the move was written and to reopen, and the reopen's recovery records
//! that block lost (it read the unconfirmed decode with success); every other 4 KiB block
//! reads its acknowledged bytes. Never a wrong byte with success.

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::{OpenOptions, Store, StoreError, WritePath};

const OSS: usize = 5;
/// The first write: stripe 0 whole (raid5 4+1, 4 KiB unit), home with parity.
const FIRST_BYTES: usize = 4 * UNIT;
/// The window's bytes, inside data column 0's block 0: its bytes 0..1000 and 1600..4096
/// are written ones the move keeps.
const WINDOW_AT: usize = 1000;
const WINDOW_BYTES: usize = 600;
/// A byte under the window's bytes, and one of the written bytes beside them the move keeps.
const UNDER_WINDOW_AT: usize = 1200;
const KEPT_AT: usize = 3000;

/// Flips payload bytes of a home data slot at the first parity write while armed.
struct RotAtParityWrite {
    armed: AtomicBool,
    /// The zone file and the bytes in it.
    at: (PathBuf, Vec<u64>),
}

impl Hook for RotAtParityWrite {
    fn before_write(&self, _oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if key.zone == Zone::Parity && self.armed.swap(false, Ordering::SeqCst) {
            let (path, at) = &self.at;
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .unwrap();
            for &at in at {
                let mut b = [0u8; 1];
                file.read_exact_at(&mut b, at).unwrap();
                file.write_all_at(&[b[0] ^ 0x5a], at).unwrap();
            }
        }
        Ok(())
    }
}

/// raid5, `first` written home, a window writes `WINDOW_BYTES` at `WINDOW_AT`, and the home
/// block under it rots at `rot_at` (bytes of data column 0's element) after the END parity's
/// reads. `confirmed`: the decode of the block is confirmed (END succeeds, nothing is lost);
/// else END fails naming the block's file bytes and the reopen, and the reopen records
/// exactly that block lost.
fn end_over_rot_after_parity(rot_at: &[usize], confirmed: bool, what: &str) {
    let tmp = scratch();
    let dir = tmp.path();
    let store = init(dir, CodeSpec::raid5(4), OSS, WritePath::Delayed);
    let first = pattern(1, FIRST_BYTES);
    store.write("f", 0, &first).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout().clone();
    store.close().unwrap();
    let pos = layout.geometry().data_pos[0];
    let oss = layout.oss_of(id, 0, pos.col);
    let slot = layout.home_addr(0, pos, 0) / UNIT as u64;
    let hook = Arc::new(RotAtParityWrite {
        armed: AtomicBool::new(false),
        at: (
            object_file(dir, oss, &format!("{id}.data")),
            rot_at
                .iter()
                .map(|&at| slot * SLOT_BYTES as u64 + at as u64)
                .collect(),
        ),
    });
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    let token = store.delayed_start("f").unwrap();
    let new = pattern(2, WINDOW_BYTES);
    store.write("f", WINDOW_AT as u64, &new).unwrap();
    let mut model = first.clone();
    model[WINDOW_AT..WINDOW_AT + WINDOW_BYTES].copy_from_slice(&new);
    hook.armed.store(true, Ordering::SeqCst);
    let ended = store.delayed_end(&token);
    assert!(
        !hook.armed.load(Ordering::SeqCst),
        "the END parity was written"
    );
    match &ended {
        Ok(()) if confirmed => {}
        Err(StoreError::DataLost(m)) if !confirmed => {
            assert!(
                m.contains("'f' bytes 0..4096"),
                "END names the block's file bytes: {m}"
            );
            assert!(
                m.contains("nothing of the move was written") && m.contains("Reopen the store"),
                "END says what it left and what to do: {m}"
            );
        }
        other => panic!("END over rot under the window on raid5: {other:?}"),
    }
    // The failed move poisoned the handle: its reads are refused, naming the way on.
    match store.get("f") {
        Ok(got) => assert!(
            got == model,
            "{what}: read in process after END: wrong bytes"
        ),
        Err(e) => assert!(e.to_string().contains("reopen"), "{what}: {e}"),
    }
    let served = |store: &Store, when: &str| {
        let when = format!("{what}, {when}");
        assert_blocks_read_or_lost_on_record(store, "f", &model, 0..0, &[], &when)
    };
    if confirmed {
        assert!(
            served(&store, "in process after END").is_empty(),
            "{what}: nothing lost in process"
        );
    }
    drop(store);
    let store = Store::open(dir).unwrap();
    let lost = served(&store, "after the reopen");
    // The answer END gave: the block whose decode nothing confirms is lost, on record.
    let expected: Vec<usize> = if confirmed { vec![] } else { vec![0] };
    assert_eq!(
        lost, expected,
        "{what}: blocks lost after the reopen (END said {ended:?})"
    );
    store.close().unwrap();
    let store = Store::open(dir).unwrap();
    assert_eq!(served(&store, "after a second reopen"), expected, "{what}");
    store.close().unwrap();
}

/// The decode equals the block's bytes on disk the move keeps: the rot is under the window's
/// bytes, which replace it.
#[test]
fn raid5_end_over_rot_under_the_window_beside_written_bytes_heals_it_as_recovery_would() {
    end_over_rot_after_parity(
        &[UNDER_WINDOW_AT],
        true,
        "raid5, rot under the window's bytes beside written ones",
    );
}

/// The same block rotten also in a byte the move keeps: the decode that the END parity
/// allows disagrees with the bytes on disk there, and nothing tells which is right.
#[test]
fn raid5_end_over_rot_under_the_window_and_in_kept_bytes_is_lost_in_process_and_after_reopen() {
    end_over_rot_after_parity(
        &[UNDER_WINDOW_AT, KEPT_AT],
        false,
        "raid5, rot under the window's bytes and in a kept byte beside them",
    );
}
