//! Review s21r R21-1 (fixed in session 21 by s21c, `DirBackend::read_unverified`: a written
//! slot whose checksums are all zero, the settle's refill of a lost slot, reads Missing): one OSS's home zone file emptied (a disk that lost the file's
//! contents: one fault) while a write over it was cut by a crash. raid6 (tolerance 2),
//! read-modify-write: the write is killed right after its first journal record, before any
//! block of it is written, so the stripe on disk still holds the put's bytes under their
//! checksums; then OSS 5's `objects/0.data` is emptied before the next open. Every byte must
//! read old or new (the write was never acknowledged), decoded from the other five columns,
//! or the read must fail naming the bytes LOST. The open's recovery lays ZEROS over the cut
//! write's bytes on the emptied OSS instead: `get` exits 0 with them and `scrub` is clean
//! after (the zeros are resealed under fresh checksums and parity). This is the lead
//! "emptying an OSS's home zone file while a write over it is cut may read zeros with
//! success (s20f)" of docs/store.md "OPEN after session 20", confirmed.

use crate::common;
use common::*;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 56_644;
/// The write covers file bytes 14992..34363: stripes 0..2 of raid6 4+2 with a 4 KiB unit;
/// OSS 5 holds file bytes 16384..20480 of stripe 1.
const WRITE_AT: usize = 14_992;
const WRITE_BYTES: usize = 19_371;

#[test]
fn raid6_write_cut_then_one_emptied_zone_file_reads_old_or_new_or_lost() {
    let tmp = fast_tempdir("exaraid-s21r-emptied-zone");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store_unit(
        d,
        UNIT_BYTES,
        &["--oss", "6", "--code", "raid6", "--write-path", "rmw"],
    );
    let old = bytes(7, OLD_BYTES);
    ok(&["store", "put", d, "f"], &old);
    let new_bytes = bytes(8, WRITE_BYTES);
    let offset = WRITE_AT.to_string();
    assert!(
        killed_at(
            &["store", "write", d, "f", "--offset", &offset],
            &new_bytes,
            "journal-record:1",
        ),
        "the write finished before its first journal record"
    );
    // The disk of OSS 5 lost the home zone file's contents (one fault of two tolerated).
    std::fs::write(dir.join("oss-5/objects/0.data"), b"").unwrap();

    let got = exaraid(&["store", "get", d, "f"], b"");
    if !got.status.success() {
        let err = String::from_utf8_lossy(&got.stderr);
        assert!(
            err.contains("lost"),
            "get failed without naming lost bytes: {err}"
        );
        return;
    }
    let mut new = old.clone();
    put_over(&mut new, WRITE_AT, &new_bytes);
    let got = got.stdout;
    assert_eq!(got.len(), OLD_BYTES, "the write stays inside the file");
    let wrong: Vec<usize> = (0..got.len())
        .filter(|&i| got[i] != old[i] && got[i] != new[i])
        .collect();
    assert!(
        wrong.is_empty(),
        "get exited 0 with {} bytes that are neither old nor the cut write's (zeros: {}), first {:?}",
        wrong.len(),
        wrong.iter().filter(|&&i| got[i] == 0).count(),
        &wrong[..wrong.len().min(4)]
    );
}
