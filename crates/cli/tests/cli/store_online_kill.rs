//! `exaraid store online` taking back an OSS failed by mistake inside an open delayed window
//! (review s6r R6-6), killed -9 part way (while it rewrites the OSS's columns, and after its
//! `Online` record before the bytes it read back are written again): the same command run
//! again finishes it, and every acknowledged byte reads back.

use crate::common;
use common::*;

use std::path::Path;

struct Scene {
    token: String,
    ckpt: Vec<u8>,
    other: Vec<u8>,
    victim: usize,
}

/// raid5 3+1 delayed, 4 KiB units: `other` put, a window on `ckpt` with 12 elements, the
/// OSS holding `ckpt` bytes 4096.. failed, then `other` written while it is failed.
fn scene(dir: &Path) -> Scene {
    let d = s(dir);
    init_store(
        d,
        &["--oss", "4", "--code", "raid5", "--write-path", "delayed"],
    );
    let mut other = bytes(60, 50_000);
    ok(&["store", "put", d, "other"], &other);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "ckpt"], b""))
        .unwrap()
        .trim()
        .to_string();
    let ckpt = bytes(61, 12 * 4096);
    ok(&["store", "write", d, "ckpt", "--offset", "0"], &ckpt);
    let victim = {
        let store = exaraid_store::Store::open(dir).unwrap();
        let id = store.file_id("ckpt").unwrap();
        let oss = store.layout().locate(id, 4096).oss;
        store.close().unwrap();
        oss
    };
    ok(&["store", "fail", d, "--oss", &victim.to_string()], b"");
    let new_bytes = bytes(62, 9000);
    ok(
        &["store", "write", d, "other", "--offset", "5000"],
        &new_bytes,
    );
    other[5000..14000].copy_from_slice(&new_bytes);
    Scene {
        token,
        ckpt,
        other,
        victim,
    }
}

fn killed_online_is_finished_by_a_rerun(kill_at: &str) {
    let tmp = fast_tempdir("s8f-online");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    let sc = scene(&dir);
    let v = sc.victim.to_string();
    let online = ["store", "online", d, "--oss", v.as_str()];
    assert!(
        killed_at(&online, b"", kill_at),
        "online finished before {kill_at}"
    );
    ok(&online, b"");
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    assert!(
        status["lost_ranges"].as_array().unwrap().is_empty(),
        "{kill_at}: {status}"
    );
    assert!(
        ok(&["store", "get", d, "ckpt"], b"") == sc.ckpt,
        "{kill_at}: ckpt"
    );
    assert!(
        ok(&["store", "get", d, "other"], b"") == sc.other,
        "{kill_at}: other"
    );
    ok(&["store", "delayed", "end", d, &sc.token], b"");
    assert!(ok(&["store", "get", d, "ckpt"], b"") == sc.ckpt);
    ok(&["store", "scrub", d], b"");
}

#[test]
fn online_killed_while_it_rewrites_the_oss_is_finished_by_a_rerun() {
    killed_online_is_finished_by_a_rerun("online-stripe:2");
}

#[test]
fn online_killed_after_its_online_record_is_finished_by_a_rerun() {
    killed_online_is_finished_by_a_rerun("online-back:1");
}

/// Note 8 OPEN 5: killed inside the write-back phase, after the first range it read back was
/// written again and before the rest: the rerun writes only what is still lost on record
/// (the range written stays), and every byte reads back.
#[test]
fn online_killed_inside_its_write_back_is_finished_by_a_rerun() {
    killed_online_is_finished_by_a_rerun("online-back-range:1");
}
