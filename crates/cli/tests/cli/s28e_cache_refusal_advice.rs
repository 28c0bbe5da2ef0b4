//! Session 28 (s28e): two cache refusals that ended "write these bytes again" with no scene
//! checking them (docs/store.md "OPEN after session 27", Errors): a read's (exec.rs, "the
//! bytes rebuilt from the cache stripe's parity do not match it either") and `scrub
//! --repair`'s (repair.rs). Followed as written, that advice was refused with the same
//! message. Like s27d's refusals (`s27d_error_advice.rs`), each must say what was wrong,
//! that it recorded nothing, and what works; and that advice, followed, must work.
//!
//! The scene: WCL raid5 over 4 OSSs, 4 KiB elements. `put` of 10,000 bytes (one cache
//! stripe, not moved home), an acknowledged write of 100 bytes at 200 whose update of the
//! running parity block is put back as it was (a lost write: a stale running parity under a
//! valid checksum), then one bit of the written cached data block flipped (rot, its crc
//! kept). Two faults in one row of a single-parity stripe: file bytes 0..4096 cannot be
//! told (the decode gives the bytes before the write, the block on disk is rotten).
//! Bytes are splitmix64 (`random_bytes`).

use crate::common;
use common::zone_slots::*;
use common::*;

const OSS_COUNT: usize = 4;
const ELEMENT_BYTES: usize = 4096;

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The scene above. Returns the tempdir, the store and f's acknowledged bytes.
fn rot_beside_a_stale_running_parity() -> (tempfile::TempDir, String, Vec<u8>) {
    let tmp = fast_tempdir("s28e-cache-refusal");
    let dir = tmp.path().join("store");
    let d = s(&dir).to_string();
    init_store(
        &d,
        &["--oss", "4", "--code", "raid5", "--write-path", "wcl"],
    );
    let mut acked = random_bytes(0x5328_e001, 10_000);
    ok(&["store", "put", &d, "f"], &acked);
    let before = zone_files(&dir, OSS_COUNT);
    let w = random_bytes(0x5328_e002, 100);
    ok(&["store", "write", &d, "f", "--offset", "200"], &w);
    put_over(&mut acked, 200, &w);
    let after = zone_files(&dir, OSS_COUNT);
    let slot = slot_bytes(ELEMENT_BYTES);
    let (data, parity): (Vec<_>, Vec<_>) = changed_slots(&before, &after, ELEMENT_BYTES)
        .into_iter()
        .partition(|(p, i)| std::fs::read(p).unwrap()[i * slot + 200..i * slot + 300] == w[..]);
    assert_eq!(data.len(), 1, "the scene: one cached data element written");
    assert_eq!(parity.len(), 1, "the scene: its running parity block");
    let (parity_file, parity_slot) = &parity[0];
    let old = &before.iter().find(|(p, _)| p == parity_file).unwrap().1;
    put_slot_back(parity_file, old, ELEMENT_BYTES, *parity_slot);
    rot_slot_at(&data[0].0, ELEMENT_BYTES, data[0].1, 250);
    (tmp, d, acked)
}

/// `exaraid store status`'s lost ranges: `(file, offset, length)`.
fn lost(d: &str) -> Vec<(String, usize, usize)> {
    let out = ok(&["store", "status", d, "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_string(),
                r["offset_bytes"].as_u64().unwrap() as usize,
                r["len_bytes"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// The advice both refusals give: a write of the bytes is refused and records them lost;
/// then each lost range written again from the caller's copy works, every byte reads and
/// scrub is clean.
fn following_the_advice_keeps_every_byte(d: &str, acked: &[u8]) {
    let write = exaraid(&["store", "write", d, "f", "--offset", "0"], &acked[..4096]);
    assert_eq!(
        write.status.code(),
        Some(1),
        "as the advice says, the write is refused: {}",
        text(&write)
    );
    let on_record = lost(d);
    assert_eq!(
        on_record,
        vec![("f".to_string(), 0, 4096)],
        "the refused write recorded the bytes that cannot be told lost"
    );
    for (file, a, n) in on_record {
        let offset = a.to_string();
        ok(
            &["store", "write", d, &file, "--offset", &offset],
            &acked[a..a + n],
        );
    }
    assert_eq!(lost(d), vec![], "every loss written again");
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "f reads every acknowledged byte");
    let scrub = exaraid(&["store", "scrub", d], b"");
    assert!(scrub.status.success(), "scrub is clean: {}", text(&scrub));
}

/// The read's refusal (exec.rs). On b97f293: "file 'f' stripe 0 bytes 0..4096 of the
/// element at row 0 column 0 in the cache zone of OSS 0: blocks [0] fail their checksum,
/// and the bytes rebuilt from the cache stripe's parity do not match it either (data and
/// parity disagree there); write these bytes again" (element bytes, no file bytes), and the
/// write it asks for is refused with the same message.
#[test]
fn a_read_refused_for_a_rotten_cache_block_beside_a_stale_parity_names_file_bytes_and_advice_that_works(
) {
    let (_tmp, d, acked) = rot_beside_a_stale_running_parity();
    let get = exaraid(&["store", "get", &d, "f"], b"");
    let said = text(&get);
    assert_eq!(get.status.code(), Some(1), "the scene: {said}");
    assert!(
        said.contains("rebuilt from the cache stripe's parity do not match"),
        "the scene: {said}"
    );
    assert!(
        said.contains("(file bytes 0..4096)"),
        "the refusal names the file bytes it cannot tell: {said}"
    );
    assert!(
        said.contains("nothing was recorded by this read"),
        "the refusal says it recorded nothing: {said}"
    );
    let lists = format!("`exaraid store status {d}` lists them");
    assert!(
        said.contains("A write of these bytes is refused with this message and records them lost")
            && said.contains(&lists),
        "the refusal says what records the loss and what then works: {said}"
    );
    assert!(
        !said.trim_end().ends_with("write these bytes again"),
        "not the advice that was refused: {said}"
    );
    assert_eq!(lost(&d), vec![], "the read recorded nothing");
    following_the_advice_keeps_every_byte(&d, &acked);
}

/// `scrub --repair`'s refusal (repair.rs). On b97f293: "unrepairable: file 'f' bytes
/// 0..4096 in the cache zone of OSS 0 (slot 0): blocks [0] fail their checksum and the
/// bytes rebuilt from the cache stripe's parity do not match it either (data and parity
/// disagree there): not repaired; write these bytes again".
#[test]
fn a_scrub_repair_that_cannot_confirm_a_rotten_cache_block_says_what_works_and_it_does() {
    let (_tmp, d, acked) = rot_beside_a_stale_running_parity();
    let repair = exaraid(&["store", "scrub", &d, "--repair"], b"");
    let said = text(&repair);
    assert_eq!(repair.status.code(), Some(2), "the scene: {said}");
    assert!(
        said.contains("unrepairable: file 'f' bytes 0..4096 in the cache zone of OSS"),
        "the scene: {said}"
    );
    assert!(
        said.contains("not repaired, nothing recorded"),
        "the refusal says it recorded nothing: {said}"
    );
    let lists = format!("`exaraid store status {d}` lists them");
    assert!(
        said.contains("A write of the file's bytes there is refused and records those that cannot be told lost")
            && said.contains(&lists),
        "the refusal says what records the loss and what then works: {said}"
    );
    assert_eq!(lost(&d), vec![], "the scrub recorded nothing");
    following_the_advice_keeps_every_byte(&d, &acked);
}
