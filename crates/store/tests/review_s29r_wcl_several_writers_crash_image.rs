//! Review s29r R29-1 (OPEN): a crash ALONE of a WCL raid6 store with several API writers in
//! flight records an acknowledged write's bytes LOST.
//!
//! The crash image (`fixtures/s29r_wcl_several_writers_crash_image.tgz`, 340 KB) is what a kill
//! left of a raid6 store (6 OSSs, 16 KiB stripe unit, WCL) whose four API writer threads wrote
//! overlapping ranges of file `f` while a background worker (`serve_background`) and a thread
//! calling `flush` ran (`scripts/repro/s22r-api-killmid.rs`, run seed 60029, killed at
//! `write-torn-block:129` in plan order by the loop that is `scripts/repro/s29r-killmid-sweep.sh`;
//! the kill tore OSS 5's cache slot 0, blocks 3..4; thread order varies, the image does not). `image.log` lists the writes: `I id
//! off len` issued, `A id` acknowledged. Write 200103 (bytes 83698..85628) is acknowledged and
//! no write issued after it covers those bytes, so they must read as its bytes. Four writes
//! were in flight at the kill (106, 300107, 100103, 200104); no OSS failed, nothing rotted.
//!
//! The open's recovery records 83698..85628 lost: "these acknowledged bytes sat in a WCL cache
//! stripe whose running parity disagrees with its data (an OSS lost a write into its cache zone:
//! a stale element) and the code could not locate the stale column ... file 'f' bytes
//! 83698..85628 (OSS 0, ...)". A crash alone is one fault (the cut writes), inside raid6's
//! tolerance: nothing acknowledged may be lost. Suspected cause (docs/reviews/session29-r.md):
//! recovery's cache-stripe decision (`recovery.rs::decide_cache_stripe`) with several writers
//! of one home stripe in flight, the path docs/store.md's OPEN bullet names as having no scene.
//! The recovery of an image is one process, one thread: the test is deterministic.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use exaraid_store::Store;

/// Write 200103: acknowledged, nothing issued after it over its bytes.
const ACKNOWLEDGED_ID: u64 = 200103;
const ACKNOWLEDGED_AT_BYTES: u64 = 83698;
const ACKNOWLEDGED_LEN_BYTES: u64 = 1930;
/// Writes in the log, a bound on what the parser accepts.
const LOG_WRITES_MAX: usize = 64;

/// The killmid tool's byte of write `id` at file offset `x` (splitmix64 of both; never 0).
fn byte_of(id: u64, x: u64) -> u8 {
    let mut z = (id.wrapping_mul(1_000_003) ^ x).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) as u8) | 1
}

fn unpack(into: &Path, fixture: &str) -> PathBuf {
    let tgz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let st = Command::new("tar")
        .arg("xzf")
        .arg(&tgz)
        .arg("-C")
        .arg(into)
        .status()
        .expect("tar runs");
    assert!(st.success(), "unpacking {}", tgz.display());
    into.to_path_buf()
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
    let root = unpack(tmp.path(), fixture);
    let (issued, acked) = writes_of(&root.join("image.log"));
    let store = Store::open(&root.join("image")).expect("the open recovers the crash");
    let got = store.get("f").unwrap_or_else(|e| {
        panic!("a crash alone (raid6, no failed OSS, no rot) lost acknowledged bytes: {e}")
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

#[test]
#[ignore = "OPEN: review s29r R29-1 (a crash alone beside several WCL writers in flight loses an acknowledged write)"]
fn a_crash_alone_beside_several_wcl_writers_in_flight_loses_no_acknowledged_byte() {
    let (got, _, acked) = recovered_image_reads_whole("s29r_wcl_several_writers_crash_image.tgz");
    assert!(
        acked.contains(&ACKNOWLEDGED_ID),
        "the log acknowledges write 200103"
    );
    for x in ACKNOWLEDGED_AT_BYTES..ACKNOWLEDGED_AT_BYTES + ACKNOWLEDGED_LEN_BYTES {
        assert_eq!(
            got[x as usize],
            byte_of(ACKNOWLEDGED_ID, x),
            "byte {x}: write 200103's (acknowledged, nothing later over it)"
        );
    }
}

/// The same loss with nothing but the four writers (no background worker, no flush thread),
/// 4 KiB stripe unit (`fixtures/s29r_wcl_four_writers_crash_image_4k.tgz`, 89 KB: raid6 6 OSSs,
/// WCL, run seed 20 killed at `write-torn-block:86` in plan order, OSS 4's cache slot 1 torn).
/// Its journal shows the shape of both images: write 100103 (32629..40445, plan 12) has its
/// input, crcs and parity crcs on record but no `Durable`; write 200102 (36442..40663, plan 13,
/// planned after it over the same home stripe 2) is `Durable` and `Complete`. The open records
/// 32768..35407 and 36442..36864 (OSS 4; acknowledged writes 300101 and 200102 are the last
/// acknowledged writers there) lost: "its WCL cache stripe's running parity disagrees with its
/// data and no single stale column explains it".
#[test]
#[ignore = "OPEN: review s29r R29-1 (a crash alone beside several WCL writers in flight loses an acknowledged write)"]
fn a_crash_alone_of_four_wcl_writers_without_background_work_loses_no_acknowledged_byte() {
    recovered_image_reads_whole("s29r_wcl_four_writers_crash_image_4k.tgz");
}
