//! Review s30r R30-1, fixed in s31a: ONE power cut during ONE WCL client write over a cached
//! home stripe recorded the home stripe's acknowledged bytes LOST. The scene
//! (`review_s30r_raid5_wcl_power_cut_loses_acknowledged_stripe.rs`) loses at 1 of ~25..49
//! cuts, and which cut depends on which thread issues the Nth mutating call (2 cores, CI):
//! these images are losing cuts it laid (`S31A_KEEP`), so the rule is tested
//! deterministically. Each image holds the laid disk (the power cut already applied) and what
//! the scene knew: `s31a-acked.bin` (every byte of `f` as acknowledged), `s31a-flight.bin`
//! and `s31a-flight-mask.bin` (the byte the cut write would leave, where mask is 1).
//!
//! The shape (s30f's diagnosis): the cut write's running parity block is `Partial` (some of
//! its `WriteParityCrcs` pieces landed, others not), one in-flight data block `Old` and one
//! `New`, each told by `WriteCrcs`. Each segment of the row decodes with redundancy in only
//! one version, so no single version checks the row and every acknowledged block of the
//! row was recorded LOST. Rule (s31a, `segments_proven_across_versions`): each segment is
//! checked in whichever version decodes it; the row is proven when every segment holding
//! acknowledged bytes is.
//!
//! Specification: a power cut is one fault; every byte of `f` reads as acknowledged or,
//! inside the cut write, as it wrote it; nothing is LOST; also after a `flush`.

mod common;
use common::*;

use std::path::Path;
use std::process::Command;

use exaraid_store::{Store, StoreError};

fn unpack(into: &Path, fixture: &str) {
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
}

/// Blocks of `f` read LOST (4 KiB offsets); a wrong byte fails at once.
fn lost_blocks(store: &Store, acked: &[u8], flight: &[u8], mask: &[u8], what: &str) -> Vec<usize> {
    let block_bytes = 4096;
    let mut lost = Vec::new();
    for at in (0..acked.len()).step_by(block_bytes) {
        let len = block_bytes.min(acked.len() - at);
        match store.read("f", at as u64, len as u64) {
            Ok(got) => {
                assert_eq!(got.len(), len, "{what}: read at {at}");
                for (j, &x) in got.iter().enumerate() {
                    let i = at + j;
                    assert!(
                        x == acked[i] || (mask[i] == 1 && x == flight[i]),
                        "{what}: WRONG byte {i}: {x:#04x}, acknowledged {:#04x}",
                        acked[i]
                    );
                }
            }
            Err(StoreError::DataLost(_)) => lost.push(at),
            Err(e) => panic!("{what}: read at {at}: {e}"),
        }
    }
    lost
}

fn the_image_loses_no_acknowledged_byte(fixture: &str) {
    let tmp = tempfile::tempdir().unwrap();
    unpack(tmp.path(), fixture);
    let image = tmp.path().join("image");
    let acked = std::fs::read(image.join("s31a-acked.bin")).unwrap();
    let flight = std::fs::read(image.join("s31a-flight.bin")).unwrap();
    let mask = std::fs::read(image.join("s31a-flight-mask.bin")).unwrap();
    assert!(acked.len() == flight.len() && acked.len() == mask.len());
    assert!(
        mask.contains(&1),
        "the image is of a cut write that did not return"
    );
    let store = open_own_dirs_unsynced(&image, &[]).expect("the open recovers the power cut");
    let mut lost = lost_blocks(&store, &acked, &flight, &mask, "before the flush");
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("flush: {e}"),
    }
    lost.extend(lost_blocks(
        &store,
        &acked,
        &flight,
        &mask,
        "after the flush",
    ));
    assert!(
        lost.is_empty(),
        "{fixture}: a power cut (one fault) lost acknowledged bytes: blocks at {lost:?}"
    );
}

/// raid5 4+1, the scene's default write (bytes 2296..5437 of `f`) after two acknowledged
/// writes: "power cut before mutating call 11, journal kept to byte 4239 (durable 4239),
/// unsynced writes of OSS [0] dropped". On 2eb0122 every block of home stripe 0 (bytes
/// 0..16384) read LOST, before and after the flush.
#[test]
fn raid5_a_power_cut_leaving_partial_running_parity_loses_no_acknowledged_byte() {
    the_image_loses_no_acknowledged_byte("s31a_raid5_wcl_power_cut_partial_parity_image.tgz");
}
