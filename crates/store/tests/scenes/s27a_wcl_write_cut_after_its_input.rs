//! Review s26r R26-3 at the store's API: a WCL client write killed right after its `Input`
//! record (before its `Rec::WriteCrcs`, so before any of its plans ran: nothing of it on any
//! OSS), while an acknowledged `put` of the same file is still in the cache zone. A crash
//! ALONE: every byte of the put must read, also with one disk failed after the crash (within
//! the tolerance of every code here).
//!
//! Rule (s27a, `Store::cache_write_without_its_crcs`): a client plan that writes the cache
//! zone, whose input promised its crcs next (`Input::Write::crcs_follow`, session 27 on),
//! and that no `Rec::WriteCrcs` names wrote nothing (the write appends those crcs right
//! after its input, before its plans are admitted, and syncs them before its first cache
//! write). Before it, recovery took the plan as in flight and decided the
//! cache stripe it would have written as if its never-written blocks were the stripe's
//! newest bytes: on xcode, hdp and dcode the settle named the whole put LOST
//! (`UNDECIDABLE_MOVING_HOME`), in some builds of the same source and not in others
//! (see docs/store.md, "Fixed in session 27 (s27a)").
//!
//! The crash image: the store closed after the put (its bytes cached, not destaged), then
//! the write's input journaled alone (`leave_wcl_write_input_alone`), as a `kill -9` at
//! `journal-record:1` of `exaraid store write` leaves it.

use crate::common;
use common::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::{Store, WritePath};

/// `(code, OSS count)`.
fn codes() -> [(CodeSpec, usize); 4] {
    [
        (CodeSpec::array(CodeKind::Xcode, 5), 5),
        (CodeSpec::array(CodeKind::Hdp, 5), 4),
        (CodeSpec::array(CodeKind::Dcode, 5), 5),
        // Control: read every byte before the rule too.
        (CodeSpec::raid6(4), 6),
    ]
}

/// The smallest scene of the review (xcode, 4 KiB elements): a 5,033-byte put, then a write
/// of 20,035 bytes at 309, which covers every data column of element row 0.
const PUT_BYTES: usize = 5_033;
const CUT_AT: u64 = 309;
const CUT_BYTES: u64 = 20_035;

fn splitmix_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A store of `code` holding "f" (the put's bytes, cached) with the cut write's input alone
/// on the journal after it. Returns the put's bytes.
fn crash_image(dir: &std::path::Path, code: CodeSpec, oss: usize) -> Vec<u8> {
    let put = splitmix_bytes(0x5327_A001, PUT_BYTES);
    let store = init(dir, code, oss, WritePath::Wcl);
    store.put("f", &put).unwrap();
    assert!(
        store.status().unwrap().bytes_waiting_parity > 0,
        "{code}: the put's bytes stay cached"
    );
    store.close().unwrap();
    leave_wcl_write_input_alone(dir, "f", CUT_AT, CUT_BYTES);
    put
}

/// The bytes "f" may hold after the crash: the put's, then zeros up to the cut write's end
/// (the write's input extends the file; its bytes landed nowhere).
fn expected(put: &[u8]) -> Vec<u8> {
    let mut want = put.to_vec();
    want.resize((CUT_AT + CUT_BYTES) as usize, 0);
    want
}

/// Why `got` is not the put's bytes (with the cut write's extension as zeros), or `None`.
fn mismatch(got: &[u8], put: &[u8]) -> Option<String> {
    let want = expected(put);
    if got.len() != want.len() {
        return Some(format!("length {} (want {})", got.len(), want.len()));
    }
    let wrong = (0..got.len()).filter(|&i| got[i] != want[i]).count();
    (wrong > 0).then(|| format!("{wrong} bytes neither the put's nor zeros"))
}

#[test]
fn a_wcl_write_killed_after_its_input_record_loses_no_byte_of_the_cached_put() {
    let mut failures = Vec::new();
    for (code, oss) in codes() {
        let tmp = scratch();
        let dir = tmp.path();
        let put = crash_image(dir, code, oss);
        let store = Store::open(dir).unwrap();
        match store.get("f") {
            Ok(got) => {
                if let Some(why) = mismatch(&got, &put) {
                    failures.push(format!("{code}: {why}"));
                }
                assert_consistent(&store);
            }
            Err(e) => failures.push(format!("{code}: get failed: {e}")),
        }
        store.close().unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_wcl_write_killed_after_its_input_record_then_one_failed_disk_loses_no_byte() {
    let mut failures = Vec::new();
    for (code, oss) in codes() {
        for dead in 0..oss {
            let tmp = scratch();
            let dir = tmp.path();
            let put = crash_image(dir, code, oss);
            lose_disk(dir, dead);
            let store = open_failing_unsynced(dir, dead);
            match store.get("f") {
                Ok(got) => {
                    if let Some(why) = mismatch(&got, &put) {
                        failures.push(format!("{code}, OSS {dead} failed: {why}"));
                    }
                }
                Err(e) => failures.push(format!("{code}, OSS {dead} failed: get failed: {e}")),
            }
            store.close().unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
