//! Review r48c: a REAL checkpoint while a home write over witnessed blocks is in flight
//! (its input and crcs journaled, its plans admitted, none run): the snapshot holds the
//! displaced entry's narrowed crcs (`piece_block_crcs`) under state header 12; the write
//! then finishes, and the close's checkpoint takes the header back to 11 or below. Then
//! the same with the process "killed" (the store forgotten) right after the checkpoint:
//! the reopen (from the v12 snapshot) reads the acknowledged bytes.

mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WRITER: &str = "r48c-writer";
const WAIT: Duration = Duration::from_secs(60);

fn header(dir: &std::path::Path) -> u32 {
    exaraid_store::superblock::read_checked_version::<serde_json::Value>(
        &dir.join("state"),
        "state",
    )
    .unwrap()
    .1
}

#[test]
fn r48c_checkpoint_while_a_home_write_over_witnessed_blocks_is_in_flight() {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    let store = init(&dir, CodeSpec::raid5(4), 5, WritePath::Rmw);
    let acked = pattern(1, 65536);
    store.put("f", &acked).unwrap();
    store.checkpoint().unwrap();
    let (at_tx, at) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_ADMITTED
            && std::thread::current().name() == Some(WRITER)
        {
            at_tx.send(()).unwrap();
            go_rx.lock().unwrap().recv_timeout(WAIT).unwrap();
        }
    })));
    let over = pattern(9, 5 * 4096 + 700);
    std::thread::scope(|s| {
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", 300, &over))
            .unwrap();
        at.recv_timeout(WAIT).unwrap();
        store.checkpoint().unwrap();
        let v = header(&dir);
        let json = std::fs::read_to_string(dir.join("state")).unwrap();
        eprintln!("header while in flight: {v}");
        assert_eq!(v, 12, "a snapshot holding narrowed displaced crcs says 12");
        assert!(json.contains("piece_block_crcs"));
        // The state as a kill now would leave it, opened elsewhere.
        let copy = tmp.path().join("copy");
        copy_tree(&dir, &copy);
        go.send(()).unwrap();
        writer.join().unwrap().unwrap();
        exaraid_store::torture::set_pause_hook(None);
        let reopened = Store::open(&copy).unwrap();
        let got = reopened.get("f").unwrap();
        let mut cut = acked.clone();
        cut[300..300 + over.len()].copy_from_slice(&over);
        assert!(
            got == acked || got == cut,
            "the copy reads the acknowledged bytes"
        );
        reopened.close().unwrap();
        assert!(header(&copy) <= 11, "decided and closed: {}", header(&copy));
    });
    store.close().unwrap();
    assert!(header(&dir) <= 11, "closed: {}", header(&dir));
}
