//! docs/store.md "OPEN after session 22", Errors: `rebuild --oss I` of a healthy OSS whose
//! owed pieces a later write dropped did not mention the cut `online`. Scene (as
//! `store_s22e_rebuild_write_back.rs`): raid6 over 6 OSSs, delayed; a window on f1 writes
//! block A (its only copy in OSS x's cache zone); x is failed (A lost); `online x` is killed
//! after its `Online` record (x back in service, A read back, not yet written again); a
//! write outside any window covers all of A (the piece owed is dropped: newer bytes win).
//! The operator then runs `rebuild --oss x`, as for any cut `online` or rebuild.
//!
//! Specification: refused, nothing changed (x is healthy, nothing is owed to it), and the
//! message says so: x is in service, the cut `online` left nothing to write back (later
//! writes replaced what it read back), nothing to do. Every byte reads the newest
//! acknowledged one, nothing lost.

use crate::common;
use common::*;

use std::path::Path;

const FILE_BYTES: usize = 65536;
/// The window's block: file bytes `AT..AT + BLOCK` (one element, cached on one OSS).
const AT: usize = 8192;
const BLOCK: usize = 4096;

/// The OSS whose cache zone holds `block`: exactly one copy.
fn oss_caching(dir: &Path, block: &[u8]) -> usize {
    let mut found = Vec::new();
    for oss in 0..6 {
        let objects = dir.join(format!("oss-{oss}")).join("objects");
        for entry in std::fs::read_dir(&objects).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".cache") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(block.len()).any(|w| w == block) {
                found.push(oss);
            }
        }
    }
    assert_eq!(found.len(), 1, "one cache copy of the block: {found:?}");
    found[0]
}

#[test]
fn rebuild_of_an_oss_a_cut_online_put_back_with_nothing_owed_says_so_and_changes_nothing() {
    let tmp = fast_tempdir("s23b-cut-online");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init_store(
        d,
        &["--oss", "6", "--code", "raid6", "--write-path", "delayed"],
    );
    let mut f1 = bytes(11, FILE_BYTES);
    ok(&["store", "put", d, "f1"], &f1);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f1"], b""))
        .unwrap()
        .trim()
        .to_string();
    let a = vec![b'A'; BLOCK];
    let at = AT.to_string();
    ok(&["store", "write", d, "f1", "--offset", &at], &a);
    let x = oss_caching(&dir, &a).to_string();
    ok(&["store", "fail", d, "--oss", &x], b"");
    assert!(
        killed_at(&["store", "online", d, "--oss", &x], b"", "online-back:1"),
        "online finished before online-back:1"
    );
    // The window is closed by its END (refused, naming A as lost, which `online` read back
    // and had not written again), then B over all of A outside any window.
    let err = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(err.contains("lost"), "END names the loss: {err}");
    let b = vec![b'B'; BLOCK];
    ok(&["store", "write", d, "f1", "--offset", &at], &b);
    f1[AT..AT + BLOCK].copy_from_slice(&b);

    let err = fails(&["store", "rebuild", d, "--oss", &x], b"");
    assert!(
        err.contains(&format!("OSS {x} is healthy")) && err.contains("nothing changed"),
        "refused as a healthy OSS, nothing changed: {err}"
    );
    assert!(
        err.contains("`online`") && err.contains("left nothing to write back"),
        "the refusal says a cut `online` of it left nothing to write back: {err}"
    );
    assert!(
        err.contains("nothing to do for it"),
        "and that nothing is to be done: {err}"
    );
    assert_eq!(ok(&["store", "get", d, "f1"], b""), f1, "B over A, exact");
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("LOST"), "nothing lost: {status}");
    ok(&["store", "scrub", d], b"");
}
