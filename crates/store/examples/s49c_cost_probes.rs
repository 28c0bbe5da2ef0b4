//! Bench tool (not CI; session 49, s49c): two costs earlier reviews left unmeasured, in a
//! release build (`cargo build --release -p exaraid-store --example s49c_cost_probes`).
//!
//! 1. Review r47a LOW-5: session 47's promise (`Input::Write::home_crcs_follow`, written
//!    only when true) makes every rmw client write's input record longer. Measured on the
//!    real journal of a raid5 4+1 rmw store after `WRITES` writes of 128 KiB: each input
//!    record framed as the journal frames it (`Journal::frame`), as written and with the
//!    flag false (left out: the record a session-46 binary wrote), and the journal bytes
//!    per write in all (input, crcs, durable).
//! 2. Review r48c ("small"): s48c's `DisplacedWriteCrcs::narrowed`, run once per home write
//!    whose input displaced witness pieces (when its `WriteCrcs` is applied), sorts the
//!    blocks of its pieces (`blocks_of`) and builds runs. Timed over piece counts from one
//!    128 KiB overwrite (32 pieces) to the witness's bound (`HOME_WITNESS_PIECES_MAX`),
//!    beside a bare `sort_unstable` + `dedup` of the same block numbers.
//!
//! Usage (CARGO_TARGET_DIR/release/examples/s49c_cost_probes): s49c_cost_probes DIR

use std::time::Instant;

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{DisplacedWriteCrcs, HomePiece, Input, Rec, WriteCrcs};
use exaraid_store::{InitOptions, Store, WritePath};

/// Writes of the journal measurement (well below any checkpoint).
const WRITES: usize = 64;
const WRITE_BYTES: usize = 128 << 10;
/// Each timing loop runs for at least this long (and at least `TIMED_CALLS_MIN` calls).
const TIMED_NS_MIN: u128 = 200_000_000;
const TIMED_CALLS_MIN: u64 = 16;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: DIR"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    input_record_bytes(&dir.join("store"));
    narrowed_time();
    let _ = std::fs::remove_dir_all(&dir);
}

fn input_record_bytes(dir: &std::path::Path) {
    let mut init = InitOptions::with_oss_count(dir, 5, CodeSpec::raid5(4));
    init.write_path = WritePath::Rmw;
    Store::init(dir, &init).unwrap().close().unwrap();
    let store = Store::open(dir).unwrap();
    let data = vec![7u8; WRITE_BYTES];
    store.write("f", 0, &data).unwrap();
    store.checkpoint().unwrap();
    for i in 0..WRITES {
        // Fresh regions and overwrites alike: the flag is per input, not per piece.
        let at = (i % (WRITES / 2)) * WRITE_BYTES;
        store.write("f", at as u64, &data).unwrap();
    }
    // Not closed: a close checkpoints and empties the journal (the s48c probe reads it so).
    std::mem::forget(store);
    let (_, records) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    let (mut inputs, mut promised, mut as_written, mut without, mut all) = (0, 0, 0, 0, 0);
    for (seq, rec) in &records {
        all += Journal::<Rec>::frame(*seq, rec).len();
        if let Rec::Input(Input::Write {
            file,
            offset_bytes,
            len_bytes,
            now_ns,
            crcs_follow,
            home_crcs_follow,
        }) = rec
        {
            inputs += 1;
            promised += usize::from(*home_crcs_follow);
            as_written += Journal::<Rec>::frame(*seq, rec).len();
            let old = Rec::Input(Input::Write {
                file: *file,
                offset_bytes: *offset_bytes,
                len_bytes: *len_bytes,
                now_ns: *now_ns,
                crcs_follow: *crcs_follow,
                home_crcs_follow: false,
            });
            without += Journal::<Rec>::frame(*seq, &old).len();
        }
    }
    assert!(inputs >= WRITES, "every write journals its input");
    println!(
        "r47a LOW-5: raid5 4+1 rmw, {inputs} write inputs ({promised} promising their crcs): {:.1} B per input record as written, {:.1} B without the promise (+{:.1} B, +{:.1} %); the journal after the checkpoint: {all} B in {} records, {:.0} B per write (the promise {:.2} % of it)",
        as_written as f64 / inputs as f64,
        without as f64 / inputs as f64,
        (as_written - without) as f64 / inputs as f64,
        100.0 * (as_written - without) as f64 / without as f64,
        records.len(),
        all as f64 / inputs as f64,
        100.0 * (as_written - without) as f64 / all as f64,
    );
}

/// Nanoseconds per call of `f` (a loop of at least `TIMED_NS_MIN`).
fn ns_per_call(mut f: impl FnMut() -> usize) -> f64 {
    let mut calls = 0u64;
    let mut sink = 0usize;
    let start = Instant::now();
    while calls < TIMED_CALLS_MIN || start.elapsed().as_nanos() < TIMED_NS_MIN {
        sink = sink.wrapping_add(f());
        calls += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / calls as f64;
    std::hint::black_box(sink);
    ns
}

fn narrowed_time() {
    let block = WriteCrcs::BLOCK_BYTES;
    for pieces_n in [
        32usize,
        256,
        4096,
        16384,
        exaraid_store::state::HOME_WITNESS_PIECES_MAX,
    ] {
        // A write over `pieces_n` witnessed blocks, one piece each, as `take_pieces` gives
        // them (ascending: out of a BTreeMap range).
        let w = WriteCrcs {
            plans: vec![1, 2],
            file: 1,
            offset_bytes: 0,
            len_bytes: pieces_n as u64 * block,
            block_crcs: (0..pieces_n as u32).collect(),
        };
        let pieces: Vec<(u64, HomePiece)> = (0..pieces_n as u64)
            .map(|b| {
                let piece = HomePiece {
                    end_bytes: (b + 1) * block,
                    crc: b as u32,
                    seq: b,
                };
                (b * block, piece)
            })
            .collect();
        let narrowed_ns = ns_per_call(|| {
            DisplacedWriteCrcs::narrowed(std::hint::black_box(&w), &pieces).crcs_count()
        });
        let sort_ns = ns_per_call(|| {
            let mut blocks: Vec<u64> = pieces.iter().map(|&(a, _)| a / block).collect();
            blocks.sort_unstable();
            blocks.dedup();
            std::hint::black_box(&blocks).len()
        });
        println!(
            "s48c narrowed: {pieces_n:>6} pieces ({:>6} KiB witnessed under the write): {:>12.0} ns per call ({:.1} ns per piece); its blocks' sort + dedup alone {:>10.0} ns",
            pieces_n as u64 * block / 1024,
            narrowed_ns,
            narrowed_ns / pieces_n as f64,
            sort_ns
        );
    }
}
