//! Review s29r R29-1 (OPEN): a crash ALONE of a WCL store with two or more API writers in
//! flight records an acknowledged write's bytes LOST.
//!
//! Found with `scripts/repro/s29r-killmid-sweep.sh` (the s22r killmid tool: writer threads on
//! overlapping ranges of one file through one `Store`, killed at `write-torn-block:N` in plan
//! order; no rot, no failed OSS): on 20c2fb7 WCL lost bytes in 5..10 of 60 trials on raid5,
//! raid6 and rs 4+2, 1..2 of 60 on rdp and evenodd; rmw and delayed lost none. Each test opens
//! a crash image the sweep kept (recovery of an image is one process, one thread: the tests
//! are deterministic) and reads `f`: a crash alone is one fault, inside every code's
//! tolerance, so every acknowledged byte must read back. `image.log` lists the writes: `I id
//! off len` issued, `A id` acknowledged.
//!
//! The shape of every image looked at: a write's plan P1 has its input, crcs and parity crcs
//! on record but no `Durable` (its thread was cut between its writes and its record), and a
//! later plan P2 over the same home stripe is `Durable` and `Complete`. The open records
//! P2's (acknowledged) bytes lost: "its WCL cache stripe's running parity disagrees with its
//! data and no single stale column explains it". Suspected cause (docs/reviews/session29-r.md):
//! the open forgets P1's writes in the planner (`forget_writes`, store/mod.rs "Concurrent
//! writers: a plan cut by the crash, then a later one that finished"), while recovery takes
//! P1's cache pieces in that stripe as whole (`finished_by_later`) and so not in flight: P2's
//! running parity covers P1's chunk, which neither side counts.

use crate::common;
use common::unpack_fixture;

use std::collections::BTreeSet;
use std::path::Path;

use exaraid_store::Store;

/// raid5 image: write 100100 (plan 3), acknowledged, nothing issued after it over its bytes.
const ACKNOWLEDGED_ID: u64 = 100100;
const ACKNOWLEDGED_AT_BYTES: u64 = 9611;
const ACKNOWLEDGED_LEN_BYTES: u64 = 5491;
/// Writes in the log, a bound on what the parser accepts.
const LOG_WRITES_MAX: usize = 64;

/// The killmid tool's byte of write `id` at file offset `x` (splitmix64 of both; never 0).
fn byte_of(id: u64, x: u64) -> u8 {
    let mut z = (id.wrapping_mul(1_000_003) ^ x).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) as u8) | 1
}

/// (id, offset, length) of every issued write, in issue order, and the acknowledged ids.
fn writes_of(log: &Path) -> (Vec<(u64, u64, u64)>, BTreeSet<u64>) {
    let text = std::fs::read_to_string(log).unwrap();
    let mut issued = Vec::new();
    let mut acked = BTreeSet::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["I", id, off, len] => issued.push((
                id.parse().unwrap(),
                off.parse().unwrap(),
                len.parse().unwrap(),
            )),
            ["A", id] => {
                acked.insert(id.parse::<u64>().unwrap());
            }
            _ => panic!("a log line the tool never writes: {line:?}"),
        }
    }
    assert!(issued.len() <= LOG_WRITES_MAX);
    (issued, acked)
}

/// Open the crash image of `fixture` (recovery runs) and read `f`: every byte must come from
/// a write issued over it (zero only where no acknowledged write covers it), the length past
/// every acknowledged write's end. Returns the bytes read and the log.
fn recovered_image_reads_whole(fixture: &str) -> (Vec<u8>, Vec<(u64, u64, u64)>, BTreeSet<u64>) {
    let tmp = tempfile::tempdir().unwrap();
    let root = unpack_fixture(tmp.path(), fixture);
    let (issued, acked) = writes_of(&root.join("image.log"));
    let store = Store::open(&root.join("image")).expect("the open recovers the crash");
    let got = store.get("f").unwrap_or_else(|e| {
        panic!("a crash alone (no failed OSS, no rot) lost acknowledged bytes: {e}")
    });
    let acknowledged_end_bytes = issued
        .iter()
        .filter(|w| acked.contains(&w.0))
        .map(|w| w.1 + w.2)
        .max()
        .unwrap();
    assert!(got.len() as u64 >= acknowledged_end_bytes);
    for (x, &b) in got.iter().enumerate() {
        let x = x as u64;
        let over: Vec<&(u64, u64, u64)> = issued
            .iter()
            .filter(|&&(_, o, l)| o <= x && x < o + l)
            .collect();
        let any_acked = over.iter().any(|w| acked.contains(&w.0));
        assert!(
            over.iter().any(|&&(id, _, _)| byte_of(id, x) == b) || (b == 0 && !any_acked),
            "byte {x} = {b:#04x} comes from no write over it"
        );
    }
    (got, issued, acked)
}

/// raid5 4+1 (5 OSSs), 4 KiB unit, WCL, TWO writer threads of 10 writes each, no background
/// worker (`fixtures/s29r_wcl_raid5_two_writers_crash_image.tgz`, 46 KB: sweep seed 3000 trial
/// 18, run seed 3018, `write-torn-block:25` in plan order, `THREADS=2 WRITES=10`). After the put
/// (21257 bytes): write 100 (4863..8854, plan 2) has no `Durable`; write 100100 (9611..15102,
/// plan 3, home stripe 0 too) is `Durable`, `Complete` and acknowledged; write 100101 (plan 4)
/// durable; write 100102 (23157..29115, plan 5) cut by the kill. On 20c2fb7 the open records
/// write 100100's bytes lost: "file 'f' bytes 9611..12288 (OSS 2, its WCL cache stripe's
/// running parity disagrees with its data and no single stale column explains it), file 'f'
/// bytes 12288..15102 (OSS 3, ...)".
#[test]
fn a_crash_alone_of_two_wcl_raid5_writers_loses_no_acknowledged_byte() {
    let (got, _, acked) = recovered_image_reads_whole("s29r_wcl_raid5_two_writers_crash_image.tgz");
    assert!(
        acked.contains(&ACKNOWLEDGED_ID),
        "the log acknowledges write 100100"
    );
    for x in ACKNOWLEDGED_AT_BYTES..ACKNOWLEDGED_AT_BYTES + ACKNOWLEDGED_LEN_BYTES {
        assert_eq!(
            got[x as usize],
            byte_of(ACKNOWLEDGED_ID, x),
            "byte {x}: write 100100's (acknowledged, nothing later over it)"
        );
    }
}

/// raid6 4+2 (6 OSSs), 4 KiB unit, WCL, four writer threads of 40 writes each, no background
/// worker, no flush (`fixtures/s29r_wcl_four_writers_crash_image_4k.tgz`, 89 KB: run seed 20,
/// `write-torn-block:86` in plan order, OSS 4's cache slot 1 torn). Write 100103 (32629..40445,
/// plan 12) has no `Durable`; write 200102 (36442..40663, plan 13, home stripe 2 too) is
/// `Durable` and `Complete`. On 20c2fb7 the open records 32768..35407 and 36442..36864 (OSS 4;
/// acknowledged writes 300101 and 200102 are the last acknowledged writers there) lost.
#[test]
fn a_crash_alone_of_four_wcl_raid6_writers_loses_no_acknowledged_byte() {
    recovered_image_reads_whole("s29r_wcl_four_writers_crash_image_4k.tgz");
}
