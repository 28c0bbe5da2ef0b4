//! Review s23r R23-2 (fixed, s23d): two writes cut in a row, then one bit of rot: the next open
//! panics in recovery.
//!
//! The crash image (`fixtures/s23r_two_cut_writes_rot.tgz`, 48 KB) is what two kills left of
//! a raid6 store (6 OSSs, 8 KiB unit, rmw; `scripts/repro/s23r-two-cut-writes.py
//! /tmp/s23r-t7 raid6:6 8192 rmw 12 1 11`, trial 8): `put` of 10,177 bytes (`put.bin`), write A
//! of 7,733 bytes at 6,718 (`write-a-6718.bin`, extends the file) killed at
//! `write-torn-block:2` (plan order), then write B of 6,623 bytes at 6,481
//! (`write-b-6481.bin`; its open recovered A) killed at `write-torn-block:1`. Neither write
//! was acknowledged: every byte is the put's, A's or B's (zero past the put's end where
//! nothing of A landed), or is recorded lost and named.
//!
//! The test flips one bit of a byte (0x00) on OSS 1 (bit rot after the crash, before the
//! open). On 9e15292 `Store::open` panics: recovery.rs `decide_rotten_cut_block`,
//! "assertion `left != right` failed: a block failing its checksum is never confirmed as it
//! is" (`confirm_block` returned the bytes on disk, a block of zeros, as the decode). Through
//! the CLI every command exits 101 with that panic once; the next one (after the panic's
//! partial recovery) reads.

use crate::common;
use common::unpack_fixture;

use std::path::Path;

use exaraid_store::Store;

const ZONE_FILE: &str = "oss-1/objects/0.data";
/// Slot 1 of the zone file (4,096 payload bytes + 4 checksum bytes per slot), element
/// offset 3,517: a byte that holds 0x00 in the image.
const ZONE_FILE_OFFSET: usize = 4100 + 3517;

fn unpack(into: &Path) -> std::path::PathBuf {
    unpack_fixture(into, "s23r_two_cut_writes_rot.tgz").join("s23r-two-cut-writes")
}

/// The values byte `x` may hold: the put's (zero past its end), or a cut write's over it.
fn allowed(x: usize, put: &[u8], writes: &[(usize, Vec<u8>)]) -> Vec<u8> {
    let mut v = vec![put.get(x).copied().unwrap_or(0)];
    for (off, data) in writes {
        if (*off..off + data.len()).contains(&x) {
            v.push(data[x - off]);
        }
    }
    v
}

#[test]
fn rot_after_two_cut_writes_recovers_without_panic_and_reads_only_written_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let base = unpack(tmp.path());
    let dir = base.join("store");
    let put = std::fs::read(base.join("put.bin")).unwrap();
    let writes = vec![
        (6718, std::fs::read(base.join("write-a-6718.bin")).unwrap()),
        (6481, std::fs::read(base.join("write-b-6481.bin")).unwrap()),
    ];
    let zone = dir.join(ZONE_FILE);
    let mut bytes = std::fs::read(&zone).unwrap();
    assert_eq!(bytes[ZONE_FILE_OFFSET], 0x00, "the image holds 0x00 there");
    bytes[ZONE_FILE_OFFSET] ^= 0x80;
    std::fs::write(&zone, &bytes).unwrap();

    let opened = std::panic::catch_unwind(|| Store::open(&dir));
    let store = match opened {
        Ok(Ok(store)) => store,
        Ok(Err(e)) => panic!("the open must recover a crash within the tolerance: {e}"),
        Err(_) => panic!("the open's recovery panicked (two cut writes, one rotten bit on OSS 1)"),
    };
    match store.get("f") {
        Ok(got) => {
            let ends = [
                put.len(),
                6718 + writes[0].1.len(),
                6481 + writes[1].1.len(),
            ];
            assert!(
                ends.contains(&got.len()),
                "length {} is no version's",
                got.len()
            );
            for (x, &b) in got.iter().enumerate() {
                let ok = allowed(x, &put, &writes);
                assert!(
                    ok.contains(&b),
                    "byte {x} read back as {b:#04x} with success; allowed {ok:02x?}"
                );
            }
        }
        Err(e) => assert!(
            e.to_string().contains("lost"),
            "a refused read must name the bytes lost: {e}"
        ),
    }
}
