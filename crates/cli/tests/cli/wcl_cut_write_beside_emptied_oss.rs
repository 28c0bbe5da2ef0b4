//! Review s21r R21-3 (session 22, s22c): a WCL client write cut by a crash, then every zone
//! file of ONE other OSS emptied (a disk that lost its files' contents) before the next open.
//! raid6 tolerates two faults; the review saw acknowledged bytes cached on another OSS
//! recorded LOST there ("its WCL cache stripe's running parity disagrees with its data and
//! no single stale column explains it", main 7c01036, `s21r-emptied-cache.py raid6 9 5 all`
//! trial 8; a 7c01036 build loses file bytes 8192..11183 at the cut's 4th journal record with
//! OSS 0, 1, 2 or 3 emptied). On main 32a1b03 the scene reads right (also with s21c's Missing
//! read of an emptied slot reverted: a session-21 change to `stale_beside_cut.rs` fixed it,
//! not bisected); these tests keep it so.
//!
//! The scene of trial 8, seed-independent: a 4,391-byte put, two acknowledged (cached)
//! writes, a third (4,086 + 9,746 bytes, extending the file) killed at each of its journal
//! records (in plan order: the same step in every run), no torn block. One erased
//! column beside a cut write whose blocks the journaled crcs tell old or new: every byte must
//! read acknowledged (old or the cut write's), nothing LOST.
//!
//! The two-fault variant (a torn block of the cut write AND an emptied OSS: review
//! `KPS=write-torn-block`, seed 4, 4 of 20 trials LOST) loses the emptied OSS's cached
//! element: in its rows three columns are unknown in both versions of the write (the emptied
//! one, the torn one, and a block the write overwrote in place or a parity it had not reached
//! yet), past raid6's two. That loss must stay on that element, named, with every other byte
//! reading right (`a_torn_block_and_an_emptied_oss_lose_only_the_emptied_element`).

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OSS_COUNT: usize = 6;
const PLAN_ORDER: &str = exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV;
/// Far above the journal records of one client write.
const RECORDS_MAX: usize = 32;

/// The store after a put of `size_bytes`, the acknowledged `writes` and a last write
/// (`cut`) killed at `kill_at`; every `objects/*` file of OSS `emptied` then emptied.
/// Returns the acknowledged content and the content had the cut write finished, or `None`
/// where the write finished before the kill point.
fn scene(
    d: &str,
    size_bytes: usize,
    writes: &[(usize, usize)],
    cut: (usize, usize),
    kill_at: &str,
    emptied: usize,
) -> Option<(Vec<u8>, Vec<u8>)> {
    init_store_unit(
        d,
        UNIT_BYTES,
        &[
            "--oss",
            &OSS_COUNT.to_string(),
            "--code",
            "raid6",
            "--write-path",
            "wcl",
        ],
    );
    let mut acked = bytes(1, size_bytes);
    ok(&["store", "put", d, "f"], &acked);
    for (n, &(at, len)) in writes.iter().enumerate() {
        let data = bytes(2 + n as u8, len);
        ok(
            &["store", "write", d, "f", "--offset", &at.to_string()],
            &data,
        );
        put_over(&mut acked, at, &data);
    }
    let data = bytes(9, cut.1);
    let offset = cut.0.to_string();
    if !killed_at_with(
        &["store", "write", d, "f", "--offset", &offset],
        &data,
        kill_at,
        &[PLAN_ORDER],
    ) {
        return None;
    }
    let mut finished = acked.clone();
    put_over(&mut finished, cut.0, &data);
    acked.resize(finished.len(), 0); // past the old end a cut write reads zeros or its bytes
    let objects = std::path::Path::new(d).join(format!("oss-{emptied}/objects"));
    for entry in std::fs::read_dir(objects).unwrap() {
        std::fs::write(entry.unwrap().path(), b"").unwrap();
    }
    Some((acked, finished))
}

/// Bytes of `got` that are neither acknowledged nor the cut write's.
fn wrong_bytes(got: &[u8], acked: &[u8], finished: &[u8]) -> usize {
    (0..got.len())
        .filter(|&i| Some(&got[i]) != acked.get(i) && Some(&got[i]) != finished.get(i))
        .count()
}

#[test]
fn raid6_wcl_write_cut_beside_one_emptied_oss_reads_every_acknowledged_byte() {
    let tmp = fast_tempdir("exaraid-s22c-emptied-oss");
    // Every journal record of the cut write, until it finishes: the review's build cut it at
    // its 4th, and session 21 changed which records a WCL write journals (s21d).
    let mut finished_at = None;
    for record in 1..=RECORDS_MAX {
        let kill_at = format!("journal-record:{record}");
        for emptied in 0..OSS_COUNT {
            let dir = tmp.path().join(format!("store-{record}-{emptied}"));
            let d = s(&dir);
            let what = format!("cut at {kill_at}, OSS {emptied} emptied");
            let Some((acked, finished)) = scene(
                d,
                4_391,
                &[(2_722, 8_461), (4_336, 6_632)],
                (4_086, 9_746),
                &kill_at,
                emptied,
            ) else {
                finished_at = Some(record);
                break;
            };
            let got = exaraid(&["store", "get", d, "f"], b"");
            assert!(
                got.status.success(),
                "{what}: one fault beside a cut write that raid6 decodes: get failed: {}",
                String::from_utf8_lossy(&got.stderr)
            );
            let got = got.stdout;
            assert!(
                got.len() == acked.len() || got.len() == finished.len(),
                "{what}: {} bytes, neither the acknowledged size nor the cut write's",
                got.len()
            );
            let wrong = wrong_bytes(&got, &acked, &finished);
            assert_eq!(
                wrong, 0,
                "{what}: bytes neither acknowledged nor the cut write's"
            );
            std::fs::remove_dir_all(&dir).unwrap();
        }
        if finished_at.is_some() {
            break;
        }
    }
    let finished_at = finished_at.expect("the write journals more than RECORDS_MAX records");
    assert!(
        finished_at > 4,
        "the review's cut (4th record) is no longer reached"
    );
}

#[test]
fn a_torn_block_and_an_emptied_oss_lose_only_the_emptied_element() {
    // Review seed 4, trial 12: the cut write lands its data block (file 2,394..2,901, OSS 0),
    // tears the running parity P (OSS 4) and never reaches Q; OSS 1's cached element (file
    // 4,096..8,192) is emptied. At the write's offsets its row has three unknowns in each
    // version (old: OSS 0's overwritten bytes, P, OSS 1; new: P, Q, OSS 1): lost, named.
    let tmp = fast_tempdir("exaraid-s22c-torn-emptied");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let emptied_element = (4_096, 8_192);
    let Some((acked, finished)) = scene(
        d,
        6_075,
        &[(1_897, 179), (1_813, 8_872)],
        (2_394, 507),
        "write-torn-block:2",
        1,
    ) else {
        panic!("the write finished before its second block: the scene moved");
    };
    let got = exaraid(&["store", "get", d, "f"], b"");
    if got.status.success() {
        let wrong = wrong_bytes(&got.stdout, &acked, &finished);
        assert_eq!(wrong, 0, "bytes neither acknowledged nor the cut write's");
        return;
    }
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("lost"), "get failed naming no loss: {err}");
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    for l in status["lost_ranges"].as_array().unwrap() {
        let at = l["offset_bytes"].as_u64().unwrap() as usize;
        let end = at + l["len_bytes"].as_u64().unwrap() as usize;
        assert!(
            emptied_element.0 <= at && end <= emptied_element.1,
            "lost {at}..{end} outside the emptied OSS's element {emptied_element:?}: {l}"
        );
    }
    // The cut write's bytes are whole in the file (it extended nothing): either content
    // outside the losses.
    assert_eq!(acked.len(), finished.len());
    reads_right_outside_its_losses(d, "f", &acked, Some(&finished), "torn block + emptied OSS");
}
