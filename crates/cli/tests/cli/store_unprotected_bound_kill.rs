//! The bound on unprotected bytes (`--unprotected-max-bytes`) holds after a crash too (review
//! s8r R8-2): a window write that passes the bound journals its bytes, then advances the
//! parity; killed -9 in between, the bytes are durable without parity and, before, stayed
//! past the bound until the next window write, END, flush or timeout (a `fail` then recorded
//! more than the bound lost). Now the next open advances the parity as the write would have.
//!
//! The sweep kills the write at every journal record it appends, until it survives one.

use crate::common;
use common::*;

/// More journal records than one window write with its parity advance appends.
const JOURNAL_RECORDS_MAX: u64 = 60;
const BOUND_BYTES: u64 = 10_000;
const FILE_BYTES: usize = 40_000;
const FIRST_BYTES: usize = 9_000;
const CUT_OFFSET: usize = 20_000;
const CUT_BYTES: usize = 4_000;

fn status(d: &str) -> serde_json::Value {
    serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap()
}

/// A delayed raid5 store with a window open on `f` holding `FIRST_BYTES` unprotected
/// bytes: one more write of `CUT_BYTES` passes the bound.
fn scene(d: &str) -> (Vec<u8>, String) {
    let bound = BOUND_BYTES.to_string();
    let args = [
        "--oss",
        "6",
        "--code",
        "raid5",
        "--write-path",
        "delayed",
        "--unprotected-max-bytes",
        bound.as_str(),
    ];
    init_store_unit(d, 4096, &args);
    let mut model = bytes(1, FILE_BYTES);
    ok(&["store", "put", d, "f"], &model);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b""))
        .unwrap()
        .trim()
        .to_string();
    let first = bytes(2, FIRST_BYTES);
    ok(&["store", "write", d, "f", "--offset", "0"], &first);
    model[..FIRST_BYTES].copy_from_slice(&first);
    assert_eq!(status(d)["bytes_unprotected"], FIRST_BYTES as u64);
    (model, token)
}

#[test]
fn a_write_killed_before_its_parity_advance_leaves_the_next_open_within_the_bound() {
    let cut = bytes(3, CUT_BYTES);
    let offset = CUT_OFFSET.to_string();
    let mut kills = 0u64;
    let mut survived = false;
    for n in 1..=JOURNAL_RECORDS_MAX {
        let tmp = fast_tempdir("exaraid-bound-kill");
        let d = tmp.path().join("s");
        let d = s(&d);
        let (model, token) = scene(d);
        let point = exaraid_store::torture::JOURNAL_RECORD;
        let write = ["store", "write", d, "f", "--offset", offset.as_str()];
        if !killed_at(&write, &cut, &format!("{point}:{n}")) {
            survived = true;
            break;
        }
        kills += 1;
        let what = format!("write killed at journal record {n}");
        let st = status(d);
        let unprotected = st["bytes_unprotected"].as_u64().unwrap();
        assert!(
            unprotected <= BOUND_BYTES,
            "{what}: {unprotected} bytes unprotected after the next open, past the bound of {BOUND_BYTES}: {st}"
        );
        // The cut write's range is each byte old or new; every other byte is as acknowledged.
        let got = ok(&["store", "get", d, "f"], b"");
        assert_eq!(got.len(), FILE_BYTES, "{what}");
        for (i, (&g, &m)) in got.iter().zip(&model).enumerate() {
            let in_cut = (CUT_OFFSET..CUT_OFFSET + CUT_BYTES).contains(&i);
            let ok_byte = g == m || (in_cut && g == cut[i - CUT_OFFSET]);
            assert!(ok_byte, "{what}: byte {i} is {g}, acknowledged {m}");
        }
        // The window is still open and its END works.
        ok(&["store", "delayed", "end", d, &token], b"");
    }
    assert!(
        survived,
        "the write never survived {JOURNAL_RECORDS_MAX} records"
    );
    assert!(
        kills >= 2,
        "only {kills} kill points: the sweep tests nothing"
    );
}
