//! Review s21r R21-2 (loss named within the tolerance; fixed by s22b): raid6 (tolerance 2),
//! read-modify-write. A write over three or more data columns of a stripe is killed right
//! after its first journal record, before any block of it is written (every zone file is
//! byte for byte as before the write), then the disk of one of those columns is gone (its
//! directory missing) and recorded failed with `store fail`, as the open's refusal advises.
//! The stripe on disk is the old codeword, one column erased: the put's bytes of that column
//! decode from the others and the second parity proves them (review s5s S1's rule, tested
//! for a cut write of one data column in `crates/store/tests/scenes/dead_disk_beside_cut_write.rs`).
//! The recovery recorded them LOST instead ("too few columns left to tell"); a write over two
//! columns of the same stripe lost nothing. Since s22b the write's plan journals its home
//! parity crcs before its first write, and one with none on record wrote nothing: the
//! failed column decodes from the old columns, checked by one more
//! (`recovery/one_version.rs`; more scenes in `dead_disk_beside_wide_cut_write.rs`).

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 56_644;

#[test]
fn raid6_wide_write_cut_before_any_block_beside_one_dead_disk_loses_nothing() {
    let tmp = fast_tempdir("exaraid-s21r-dead-wide");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store_unit(
        d,
        UNIT_BYTES,
        &["--oss", "6", "--code", "raid6", "--write-path", "rmw"],
    );
    let old = bytes(7, OLD_BYTES);
    ok(&["store", "put", d, "f"], &old);
    // Stripe 1 whole (file bytes 16384..32768); OSS 5 holds its bytes 16384..20480.
    let new_bytes = bytes(8, 16_384);
    assert!(
        killed_at(
            &["store", "write", d, "f", "--offset", "16384"],
            &new_bytes,
            "journal-record:1",
        ),
        "the write finished before its first journal record"
    );
    std::fs::rename(dir.join("oss-5"), tmp.path().join("oss-5-gone")).unwrap();
    ok(&["store", "fail", d, "--oss", "5"], b"");

    let got = exaraid(&["store", "get", d, "f"], b"");
    assert!(
        got.status.success(),
        "one dead disk beside a cut write that wrote nothing (raid6): get failed: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    let mut new = old.clone();
    put_over(&mut new, 16_384, &new_bytes);
    let got = got.stdout;
    assert_eq!(got.len(), OLD_BYTES, "the write stays inside the file");
    let wrong = (0..got.len())
        .filter(|&i| got[i] != old[i] && got[i] != new[i])
        .count();
    assert_eq!(wrong, 0, "bytes neither old nor the cut write's");
}
