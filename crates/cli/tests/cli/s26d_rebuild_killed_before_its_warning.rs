//! Session 26 (s26d): a `rebuild --to NEWDIR` that makes the loss of window bytes final
//! (their only copy was in the failed OSS's cache zone, and its old directory is not read
//! back) warns at close and exits 2 (s25d). Its `RebuildBegin` record forgets where those
//! bytes were (the old directory is no longer trusted): a run killed after it and run
//! again found nothing to warn about and exited 0, "OSS 0 rebuilt" (reasoned in s25d's
//! bullet, shown here).
//!
//! Scene: raid5 over 3 OSSs, delayed; `put` of f (splitmix64), a window writing over part
//! of it, then `fail --oss 0` (the window's bytes cached on OSS 0 recorded lost, with their
//! cache address: `online` could take them back), then OSS 0's old directory is gone, so a
//! rebuild onto a new directory cannot read them back.
//!
//! Specification: a rebuild killed at any of its kill points, run again, says what an
//! uninterrupted one says: the loss is final, the bytes (named), write them again from your
//! own copy, exit 2; the loss stays on record; doing what it says makes every byte read.
//!
//! On 13411ef the rerun after `rebuild-begun:1` exits 0 saying "OSS 0 rebuilt" and warns
//! nothing (the kill point `rebuild-done` did not exist: that run is not killed).

use crate::common;
use common::*;

use std::path::Path;

const PUT_BYTES: usize = 96 * 1024;
const WINDOW_AT: usize = 8 * 1024;
const WINDOW_BYTES: usize = 48 * 1024;

/// `(file, offset, len)` of every range `status` lists lost.
fn lost(d: &str) -> Vec<(String, u64, u64)> {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_string(),
                l["offset_bytes"].as_u64().unwrap(),
                l["len_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The scene up to the rebuild, OSS 0's old directory gone: returns the window's token and
/// f's acknowledged bytes.
fn scene(dir: &Path) -> (String, Vec<u8>) {
    let (token, acked) = scene_old_dir_kept(dir);
    // The old disk is gone: nothing can be read back from it.
    std::fs::rename(dir.join("oss-0"), dir.join("oss-0-gone")).unwrap();
    (token, acked)
}

/// The scene up to the rebuild, OSS 0's old directory still there.
fn scene_old_dir_kept(dir: &Path) -> (String, Vec<u8>) {
    let d = s(dir);
    init_store(
        d,
        &["--oss", "3", "--code", "raid5", "--write-path", "delayed"],
    );
    let mut acked = random_bytes(1, PUT_BYTES);
    ok(&["store", "put", d, "f"], &acked);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f"], b"")).unwrap();
    let window = random_bytes(2, WINDOW_BYTES);
    let at = WINDOW_AT.to_string();
    ok(&["store", "write", d, "f", "--offset", &at], &window);
    put_over(&mut acked, WINDOW_AT, &window);
    ok(&["store", "fail", d, "--oss", "0"], b"");
    (token.trim().to_string(), acked)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What an uninterrupted rebuild says (s25d), checked on every run that finishes one.
fn says_the_loss_is_final(d: &str, out: &std::process::Output, lost_bytes: u64, what: &str) {
    let said = text(out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: rebuilt, but acknowledged bytes are lost for good: exit 2: {said}"
    );
    assert!(
        said.contains(&format!(
            "{lost_bytes} acknowledged bytes are lost for good"
        )),
        "{what}: {said}"
    );
    assert!(
        said.contains("made final the loss")
            && said.contains("nothing takes them back")
            && said.contains(&format!("{lost_bytes} bytes in"))
            && said.contains("'f' bytes")
            && said.contains("from your own copy")
            && said.contains(&format!("exaraid store write {d} FILE --offset OFFSET")),
        "{what}: the warning says the loss is final, names the bytes and what to do: {said}"
    );
}

/// Write each lost range again from the acknowledged bytes (the advice), end the window:
/// every byte reads and scrub is clean.
fn writing_again_keeps_every_byte(d: &str, token: &str, acked: &[u8], what: &str) {
    for (file, at, len) in lost(d) {
        let (a, z) = (at as usize, (at + len) as usize);
        let offset = at.to_string();
        ok(
            &["store", "write", d, &file, "--offset", &offset],
            &acked[a..z],
        );
    }
    assert_eq!(lost(d), vec![], "{what}: a write clears its loss");
    ok(&["store", "delayed", "end", d, token], b"");
    let got = ok(&["store", "get", d, "f"], b"");
    assert!(got == acked, "{what}: f reads every acknowledged byte");
    ok(&["store", "scrub", d], b"");
}

#[test]
fn an_uninterrupted_rebuild_to_a_new_dir_says_the_loss_of_window_bytes_is_final_and_exits_2() {
    let tmp = fast_tempdir("s26d-rebuild-whole");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let (token, acked) = scene(&dir);
    let on_record = lost(d);
    let lost_bytes: u64 = on_record.iter().map(|(_, _, n)| n).sum();
    assert!(lost_bytes > 0, "the scene: window bytes lost with OSS 0");
    let new = tmp.path().join("new-0");
    let out = exaraid(&["store", "rebuild", d, "--oss", "0", "--to", s(&new)], b"");
    says_the_loss_is_final(d, &out, lost_bytes, "uninterrupted");
    assert_eq!(lost(d), on_record, "they stay lost, on record");
    // Run again once finished: the same (the store still lacks those bytes).
    let again = exaraid(&["store", "rebuild", d, "--oss", "0", "--to", s(&new)], b"");
    says_the_loss_is_final(d, &again, lost_bytes, "run again once finished");
    writing_again_keeps_every_byte(d, &token, &acked, "uninterrupted");
}

#[test]
fn a_rebuild_to_killed_before_its_warning_and_run_again_says_the_loss_is_final_and_exits_2() {
    for kill_at in [
        "rebuild-begun:1",
        "rebuild-element:1",
        "rebuild-element:3",
        "rebuild-switched:1",
        "rebuild-done:1",
    ] {
        let tmp = fast_tempdir("s26d-rebuild-killed");
        let dir = tmp.path().join("D");
        let d = s(&dir);
        let (token, acked) = scene(&dir);
        let on_record = lost(d);
        let lost_bytes: u64 = on_record.iter().map(|(_, _, n)| n).sum();
        let new = tmp.path().join("new-0");
        let args = ["store", "rebuild", d, "--oss", "0", "--to", s(&new)];
        assert!(
            killed_at(&args, b"", kill_at),
            "the scene: the rebuild is killed at {kill_at}"
        );
        let out = exaraid(&args, b"");
        says_the_loss_is_final(d, &out, lost_bytes, kill_at);
        assert_eq!(lost(d), on_record, "{kill_at}: they stay lost, on record");
        writing_again_keeps_every_byte(d, &token, &acked, kill_at);
    }
}

/// The old directory still reads, but one 4 KiB block of the lost window bytes in its cache
/// zone rotted: the rebuild takes back the others, and that block's loss is final. On
/// 13411ef it exited 0, "OSS 0 rebuilt", naming nothing.
#[test]
fn a_rebuild_to_that_could_not_take_back_a_rotten_cache_block_says_its_loss_is_final_and_exits_2() {
    const SLOT_BYTES: usize = 4096 + 4;
    let tmp = fast_tempdir("s26d-rebuild-rot");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let (token, acked) = scene_old_dir_kept(&dir);
    let on_record = lost(d);
    assert!(
        on_record.len() > 1,
        "the scene: several ranges lost: {on_record:?}"
    );
    let (_, at, len) = on_record[0].clone();
    assert_eq!(
        len, 4096,
        "the scene: one 4 KiB block a range: {on_record:?}"
    );
    let cache = std::fs::read_dir(dir.join("oss-0/objects"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cache"))
        .expect("OSS 0's cache zone file");
    let mut b = std::fs::read(&cache).unwrap();
    let content = &acked[at as usize..(at + len) as usize];
    let i = (0..b.len() / SLOT_BYTES)
        .find(|&i| &b[i * SLOT_BYTES..i * SLOT_BYTES + 4096] == content)
        .expect("the lost block in OSS 0's cache zone");
    b[i * SLOT_BYTES + 100] ^= 0x10;
    std::fs::write(&cache, &b).unwrap();

    let new = tmp.path().join("new-0");
    let out = exaraid(&["store", "rebuild", d, "--oss", "0", "--to", s(&new)], b"");
    says_the_loss_is_final(d, &out, len, "rotten cache block");
    assert!(
        text(&out).contains(&format!("'f' bytes {at}..{}", at + len)),
        "names the rotten block's bytes: {}",
        text(&out)
    );
    assert_eq!(
        lost(d),
        vec![("f".to_string(), at, len)],
        "the other ranges are taken back, the rotten one stays lost"
    );
    writing_again_keeps_every_byte(d, &token, &acked, "rotten cache block");
}
