//! Review s20r R20-1 (fixed in session 21, s21a): damage that lands between a crash and its recovery. raid6
//! (tolerance 2), read-modify-write: a partial-stripe write killed with one block torn (new
//! payload under old checksums), then one bit of a data element in ANOTHER column of that
//! stripe rots before the next open. Two faults, within the code's tolerance: every byte must
//! read old or new (the write was never acknowledged), or the read must fail naming the bytes
//! LOST. Before session 21 the open's recovery kept the rotten byte under a fresh checksum:
//! `get` exited 0 with a byte one bit off the write's byte, and `scrub` was clean after it.
//! Now the write's journaled crcs (`Rec::WriteCrcs`) tell the torn block from the rotten one.
//! (docs/store.md Limits, "OPEN after session 19", has the raid5 form, past the tolerance.)

use crate::common;
use common::*;

use std::path::Path;

const UNIT_BYTES: u64 = 4096;
const OLD_BYTES: usize = 48_453;
/// Inside stripe 1 (file bytes 16384..32768 on raid6 4+2): the write covers 14338..29399.
const WRITE_AT: usize = 14_338;
const WRITE_BYTES: usize = 15_061;

fn flip_bit(file: &Path, at: u64, mask: u8) {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(file)
        .unwrap();
    let mut b = [0u8];
    f.seek(SeekFrom::Start(at)).unwrap();
    f.read_exact(&mut b).unwrap();
    b[0] ^= mask;
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&b).unwrap();
    f.sync_all().unwrap();
}

#[test]
fn raid6_write_cut_with_a_torn_block_then_one_rotten_byte_reads_old_or_new_or_lost() {
    let tmp = fast_tempdir("exaraid-s20r-torn-rot");
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
    // The 3rd block write in plan order: a block of stripe 1 on OSS 5 (a data column there).
    assert!(
        killed_at_with(
            &["store", "write", d, "f", "--offset", &offset],
            &new_bytes,
            "write-torn-block:3",
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "the write finished before its 3rd block write"
    );
    // One rotten bit in OSS 1's data zone: file byte 27294, stripe 1, another column than
    // the torn block's.
    flip_bit(&dir.join("oss-1/objects/0.data"), 6818, 0x02);

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
    let wrong: Vec<String> = (0..got.len())
        .filter(|&i| got[i] != old[i] && got[i] != new[i])
        .map(|i| {
            format!(
                "{i}: got {:#04x} old {:#04x} new {:#04x}",
                got[i], old[i], new[i]
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "get exited 0 with bytes that are neither old nor the cut write's: {wrong:?}"
    );
}

/// Review s20r R20-3 (fixed in session 20, s20g): raid6, delayed. A window write is
/// acknowledged; END is killed at its 3rd block write (plan order: stripe 0's two new parity
/// blocks are written, then stripe 1's parity is torn); then one bit rots in stripe 0's home
/// data column 1 (bytes the `put` wrote, outside the window). Stripe 0 then holds one unreadable block beside parity that END made
/// over the window's bytes, whose copies are in the cache zone: the block decodes (and its
/// stored checksum confirms it). The open's recovery named those acknowledged bytes LOST.
#[test]
fn raid6_end_cut_after_its_parity_then_one_rotten_home_block_reads_back() {
    let tmp = fast_tempdir("exaraid-s20r-end-rot");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store_unit(
        d,
        UNIT_BYTES,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let old = bytes(7, 10_263);
    ok(&["store", "put", d, "f"], &old);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let window = bytes(8, 18_952);
    ok(&["store", "write", d, "f", "--offset", "9419"], &window);
    assert!(
        killed_at_with(
            &["store", "delayed", "end", d, token.trim()],
            b"",
            "write-torn-block:3",
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        ),
        "END finished before its 3rd block write"
    );
    // File byte 4096 + 829: stripe 0, data column 1 (OSS 1), acknowledged by the put.
    flip_bit(&dir.join("oss-1/objects/0.data"), 829, 0x10);

    let mut model = old.clone();
    put_over(&mut model, 9419, &window);
    let got = exaraid(&["store", "get", d, "f"], b"");
    assert!(
        got.status.success(),
        "one rotten block beside a cut END (raid6): get failed: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert!(
        got.stdout == model,
        "get exited 0 with bytes other than the acknowledged ones"
    );
}
