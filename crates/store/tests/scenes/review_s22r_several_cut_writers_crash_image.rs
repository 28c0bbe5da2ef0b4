//! Review s22r R22-1 (fixed in session 22, s22g): an acknowledged byte, in a block that several cut writers'
//! stripe holds, rots before the open: read back with success.
//!
//! The crash image (`fixtures/s22r_several_cut_writers_crash_image.tgz`, 60 KB) is what a
//! kill left of a raid6 store (6 OSSs, 4 KiB unit, rmw) whose four API writer threads wrote
//! overlapping ranges of file `f` (`scripts/repro/s22r-killmid-drive.py`, seed 7 trial 25:
//! `write-torn-block:79` in plan order, torn block on OSS 2). `trial-25.log` lists the writes:
//! `I id off len` issued, `A id` acknowledged. Write 101 (15215..23371) is acknowledged; no write
//! issued after it covers file byte 20372, so that byte's true value is write 101's, 0x39.
//! Its block (stripe 1, data column 0, on OSS 5) is shared with cut write 300103
//! (11228..16595), and stripe 1 has four cut writers (102, 103, 100102, 300103).
//!
//! The test flips one bit of that byte on OSS 5 (bit rot after the crash, before the open):
//! two faults (the torn block on OSS 2, the rot on OSS 5), within raid6's tolerance. The open
//! must decode the byte back (0x39) or record the block lost and name it. On main 32a1b03 the
//! read returns the rotten 0x38 with success and scrub is clean after (resealed). The
//! store's Limits list the rule as unproven: "stripes with several cut writers keep the old
//! keep rule" (s21a's journaled `WriteCrcs` decide a rotten cut block only where one writer
//! of the stripe is cut). The rotten block was reached by one cut write (300103, its first
//! 211 bytes) whose crcs matched its part, so the rest of the block fell to the keep rule;
//! s22g keeps such a block only as far as those crcs or its stored checksum prove it
//! (`decide_unproven_cut_block`): here nothing does, and the block is recorded lost.

use crate::common;
use common::unpack_fixture;

use std::path::Path;

use exaraid_store::Store;

/// File byte 20372 of `f`: write 101's byte there (acknowledged, nothing later over it).
const BYTE_AT: u64 = 20372;
const ACKNOWLEDGED_BYTE: u8 = 0x39;
/// Where that byte lies on OSS 5: zone file slot 1 (4096 payload bytes + 4 checksum bytes
/// per slot), element offset 3988.
const ZONE_FILE: &str = "oss-5/objects/0.data";
const ZONE_FILE_OFFSET: usize = 4100 + 3988;

fn unpack(into: &Path) -> std::path::PathBuf {
    unpack_fixture(into, "s22r_several_cut_writers_crash_image.tgz").join("trial-25")
}

#[test]
fn rot_beside_several_cut_writers_never_read_back_as_acknowledged_data() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = unpack(tmp.path());
    let zone = dir.join(ZONE_FILE);
    let mut bytes = std::fs::read(&zone).unwrap();
    assert_eq!(
        bytes[ZONE_FILE_OFFSET], ACKNOWLEDGED_BYTE,
        "the image holds write 101's byte there"
    );
    bytes[ZONE_FILE_OFFSET] ^= 0x01;
    std::fs::write(&zone, &bytes).unwrap();

    let store = Store::open(&dir).expect("the open recovers the crash");
    match store.read("f", BYTE_AT, 1) {
        Ok(got) => assert_eq!(
            got,
            vec![ACKNOWLEDGED_BYTE],
            "acknowledged byte {BYTE_AT} read back as {:#04x} with success (rot kept beside several cut writers)",
            got[0]
        ),
        Err(e) => assert!(
            e.to_string().contains("lost"),
            "a refused read must name the bytes lost: {e}"
        ),
    }
}
