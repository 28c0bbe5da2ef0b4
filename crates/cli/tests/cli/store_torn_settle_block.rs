//! A settle killed between one block's payload and its checksum (a torn block: new bytes
//! under the old checksum) while an OSS with cached bytes is failed: the next open decides
//! that block and every acknowledged byte reads back (review s5r R7: recovery offset an own
//! range of the block's element that lay wholly before the block, the u64 wrapped, and every
//! later open panicked, so every command failed for good).

use crate::common;
use common::*;

const UNIT_BYTES: usize = 65536;

/// The reviewer's store (crash-geom.py `rebuild` scenario, seed 7: sizes and offsets kept,
/// bytes our own): raid6 4+2 striped over 9 OSSs, 64 KiB units, WCL; four files, then four
/// writes into f1 that wait in the cache zone (partial stripes), some of them on OSS 1.
/// Returns the files' contents.
fn store_with_cached_writes(d: &str) -> Vec<(String, Vec<u8>)> {
    init_store_unit(d, UNIT_BYTES as u64, RAID6_4_2_WCL_OVER_9);
    let mut files = Vec::new();
    for (i, size_bytes) in [257_162usize, 603_054, 166_469, 294_382]
        .into_iter()
        .enumerate()
    {
        let name = format!("f{i}");
        let content = bytes(i as u8 + 1, size_bytes);
        ok(&["store", "put", d, &name], &content);
        files.push((name, content));
    }
    for (i, (offset_bytes, len_bytes)) in [
        (50_631usize, 9_495usize),
        (561_913, 12_338),
        (383_452, 76_388),
        (60_816, 119_237),
    ]
    .into_iter()
    .enumerate()
    {
        let new = bytes(0x40 + i as u8, len_bytes);
        let offset = offset_bytes.to_string();
        ok(&["store", "write", d, "f1", "--offset", &offset], &new);
        let f1 = &mut files[1].1;
        assert!(offset_bytes + len_bytes <= f1.len());
        f1[offset_bytes..offset_bytes + len_bytes].copy_from_slice(&new);
    }
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        !status.contains("bytes waiting for parity: 0"),
        "the scenario needs cached bytes: {status}"
    );
    files
}

fn every_file_reads_back(d: &str, files: &[(String, Vec<u8>)], when: &str) {
    for (name, content) in files {
        let got = exaraid(&["store", "get", d, name], b"");
        assert!(
            got.status.success(),
            "{when}: get {name}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert!(got.stdout == *content, "{when}: {name} reads other bytes");
    }
}

fn listed(d: &str, name: &str) -> bool {
    let ls = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    ls.lines()
        .any(|l| l.split_whitespace().last() == Some(name))
}

/// The store above with OSS `failed` failed after the cached writes, then `store ARGS`
/// (`args[0]` the verb, the store directory goes after it: a command that settles the
/// cached bytes) killed inside the `n`-th block write of that settle. The next open
/// (`status`) must decide the torn block and every file must read back; the same command
/// run again must finish and every file read back; with the failed OSS rebuilt, scrub
/// must be clean.
fn settle_killed_inside_a_block_write(failed: &str, args: &[&str], n: u64) {
    let tmp = fast_tempdir("exaraid-torn-settle");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let mut files = store_with_cached_writes(d);
    ok(&["store", "fail", d, "--oss", failed], b"");
    let mut command = vec!["store", args[0], d];
    command.extend_from_slice(&args[1..]);
    let kill_at = format!("{}:{n}", exaraid_store::torture::SETTLE_TORN_BLOCK);
    assert!(
        killed_at(&command, b"", &kill_at),
        "{args:?} finished before {kill_at}: the scenario no longer reaches the torn block"
    );
    let when = format!("after {args:?} killed at {kill_at}");
    let status = exaraid(&["store", "status", d], b"");
    assert!(
        status.status.success(),
        "{when}: status (the open runs recovery): {}",
        String::from_utf8_lossy(&status.stderr)
    );
    // `rm` settles before it removes: the kill leaves the file there.
    let removed = (args[0] == "rm").then(|| args[1]);
    if let Some(name) = removed {
        assert!(listed(d, name), "{when}: {name} is gone");
    }
    every_file_reads_back(d, &files, &when);
    ok(&command, b"");
    files.retain(|(name, _)| Some(name.as_str()) != removed);
    every_file_reads_back(d, &files, &format!("{when}, then run again"));
    if args[0] != "rebuild" {
        // Scrub checks every column only with every OSS up.
        ok(&["store", "rebuild", d, "--oss", failed], b"");
        every_file_reads_back(d, &files, &format!("{when}, then rebuilt"));
    }
    ok(&["store", "scrub", d], b"");
}

/// `rebuild --oss 1` of the failed OSS: its settle moves the cached writes home first and
/// is killed inside its 8th block write, the reviewer's kill (repro-rebuild-kill-panic.py
/// 31): there the torn block's element has a range of the settle wholly before that block,
/// the case that panicked.
#[test]
fn a_rebuild_killed_inside_a_block_write_of_its_settle_opens_and_loses_nothing() {
    settle_killed_inside_a_block_write("1", &["rebuild", "--oss", "1"], 8);
}

/// The same through a routine `rm` (it flushes the cache zone home first) with OSS 2 failed
/// (`SCEN=flush repro-rebuild-kill-panic.py`, its kill point 29 is this 8th block write).
#[test]
fn an_rm_killed_inside_a_block_write_of_its_flush_opens_and_loses_nothing() {
    settle_killed_inside_a_block_write("2", &["rm", "f3"], 8);
}
