//! Session 48 (s48c, review r46a MEDIUM-1): the size of a home write's displaced-pieces
//! entry (`State::home_witness_displaced`) while the write is in flight. Since session 46
//! the entry kept the write's whole `WriteCrcs` (one crc per 4 KiB block of the WRITE),
//! so a big write over a few witnessed blocks put every block crc of it into the state and
//! into every snapshot while it waited (in flight, or cut until the next open decides it).
//! What the open's decision needs is the crc of the write's part of each block a displaced
//! piece lies in: the entry must grow with its pieces, not with its write.
//!
//! The scene: a raid5 4+1 rmw store (4 KiB elements, the home witness on), "f" put with
//! `witnessed_bytes`, then a write of `write_bytes` at 0 over it, stopped (in the state
//! replayed from the journal) right before the first `Durable` of its plans: the state a
//! checkpoint while it is in flight, or a kill then, leaves.

use crate::common::*;

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Rec, State};
use exaraid_store::WritePath;

/// What `in_flight_entry` measured.
#[derive(Debug)]
struct Measured {
    /// The write's plans and 4 KiB blocks.
    plans: usize,
    write_blocks: u64,
    /// Displaced entries and pieces in all.
    entries: usize,
    pieces: usize,
    /// `serde_json::to_vec_pretty` of `State::home_witness_displaced` and of the whole
    /// state (the snapshot's body, as `superblock::write_checked` writes it).
    entries_json_bytes: usize,
    snapshot_json_bytes: usize,
    /// Of the snapshot, beside the entry: the pending home witness (the write's whole
    /// `WriteCrcs`, which gives its pieces at its `Durable`).
    pending_json_bytes: usize,
}

/// Run the scene in `dir` and measure the state right before the big write's first
/// `Durable`.
fn in_flight_entry(dir: &Path, witnessed_bytes: usize, write_bytes: usize) -> Measured {
    let store = init(dir, CodeSpec::raid5(4), 5, WritePath::Rmw);
    store.put("f", &pattern(1, witnessed_bytes)).unwrap();
    store.checkpoint().unwrap();
    store.write("f", 0, &pattern(2, write_bytes)).unwrap();
    // As a kill leaves it: no close, no checkpoint after the write.
    std::mem::forget(store);
    let mut state: State =
        exaraid_store::superblock::read_checked(&dir.join("state"), "state").unwrap();
    let (_, records) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    let mut plans: Vec<u64> = Vec::new();
    let snapshot_seq = state.last_seq;
    for (seq, rec) in records.into_iter().filter(|(s, _)| *s > snapshot_seq) {
        match &rec {
            Rec::WriteCrcs(w) if w.len_bytes == write_bytes as u64 => plans = w.plans.clone(),
            Rec::Durable { plans: done } if done.iter().any(|p| plans.contains(p)) => break,
            _ => {}
        }
        state.apply(seq, &rec);
    }
    assert!(!plans.is_empty(), "the big write's crcs are on record");
    Measured {
        plans: plans.len(),
        write_blocks: (write_bytes as u64).div_ceil(4096),
        entries: state.home_witness_displaced.len(),
        pieces: state.home_witness_displaced_pieces().len(),
        entries_json_bytes: serde_json::to_vec_pretty(&state.home_witness_displaced)
            .unwrap()
            .len(),
        snapshot_json_bytes: serde_json::to_vec_pretty(&state).unwrap().len(),
        pending_json_bytes: serde_json::to_vec_pretty(&state.home_witness_pending)
            .unwrap()
            .len(),
    }
}

/// Most bytes of pretty JSON a displaced entry may take per piece it holds (the piece, its
/// block's crc of the write, indentation) and in all besides (its range, its plans): the
/// entry grows with its pieces and plans, not with its write's blocks.
const ENTRY_JSON_BYTES_PER_PIECE_MAX: usize = 256;
const ENTRY_JSON_BYTES_PER_PLAN_MAX: usize = 32;
const ENTRY_JSON_BYTES_FIXED_MAX: usize = 1024;

/// A 4 MiB write over the two witnessed blocks of an 8 KiB file: its entry holds the two
/// pieces and what the decision needs of them, not 1024 block crcs (3ab4cbf7: about 20 KiB
/// of crcs for two pieces).
#[test]
fn s48c_a_big_write_over_two_witnessed_blocks_keeps_an_entry_the_size_of_its_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let m = in_flight_entry(dir.path(), 8192, 4 << 20);
    eprintln!("{m:?}");
    assert_eq!(
        (m.entries, m.pieces),
        (1, 2),
        "the scene: two pieces displaced"
    );
    let max = m.pieces * ENTRY_JSON_BYTES_PER_PIECE_MAX
        + m.plans * ENTRY_JSON_BYTES_PER_PLAN_MAX
        + ENTRY_JSON_BYTES_FIXED_MAX;
    assert!(
        m.entries_json_bytes <= max,
        "the entry of {} pieces takes {} bytes (most {max}): it grows with its write's {} blocks",
        m.pieces,
        m.entries_json_bytes,
        m.write_blocks
    );
}

/// The measurement behind the session-48 report (`cargo test -p exaraid-store --test
/// scenes s48c_probe -- --ignored --nocapture`): `S48C_WRITE_MIB` (default 64) written
/// over `S48C_WITNESSED_KIB` (default 8) of witnessed bytes, then over as many witnessed
/// bytes as it writes.
#[test]
#[ignore = "probe: sizes of the displaced entry and the snapshot; env S48C_WRITE_MIB, S48C_WITNESSED_KIB"]
fn s48c_probe_displaced_entry_and_snapshot_size() {
    let env = |name: &str, default: usize| {
        std::env::var(name).map_or(default, |v| v.parse().expect("a number"))
    };
    let write_bytes = env("S48C_WRITE_MIB", 64) << 20;
    for witnessed_bytes in [env("S48C_WITNESSED_KIB", 8) << 10, write_bytes] {
        let dir = tempfile::tempdir().unwrap();
        let m = in_flight_entry(dir.path(), witnessed_bytes, write_bytes);
        eprintln!(
            "write {write_bytes} bytes over {witnessed_bytes} witnessed: {m:?} ({} bytes of entry per piece; snapshot {} bytes, of it pending witness {})",
            m.entries_json_bytes / m.pieces.max(1),
            m.snapshot_json_bytes,
            m.pending_json_bytes
        );
    }
}
