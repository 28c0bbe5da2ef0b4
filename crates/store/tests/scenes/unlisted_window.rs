//! A delayed window the planner holds open and the store's state does not list (review d,
//! D2: an exaraid that journaled START's planner input before its `WindowStart` record, killed
//! between the two) is ended, with its parity, when the store opens. Nobody holds its token,
//! so nobody would END it: writes to its file would get no parity until the window timeout
//! (acknowledged bytes lost with one failed OSS on raid6) and START on the file was refused.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Input, Rec};
use exaraid_store::{Store, WritePath};

#[test]
fn a_window_only_the_planner_knows_is_ended_with_its_parity_when_the_store_opens() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), CodeSpec::raid6(3), 5, WritePath::Delayed);
    store.put("f", &pattern(1, 20_000)).unwrap();
    let file = store.file_id("f").unwrap();
    // A crash (no close): the journal keeps its records, and the older START's first record
    // is the last one in it.
    drop(store);
    {
        let (mut journal, _) = Journal::<Rec>::open(&dir.path().join("journal")).unwrap();
        let now_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let start = Input::StartDelayed {
            window: 0,
            file,
            now_ns,
        };
        journal.append(&Rec::Input(start), true).unwrap();
    }

    let store = Store::open(dir.path()).unwrap();
    let new = pattern(2, 30_000);
    store.write("f", 0, &new).unwrap();
    let status = store.status().unwrap();
    assert!(status.open_windows.is_empty(), "{:?}", status.open_windows);
    assert_eq!(
        status.bytes_unprotected, 0,
        "the write got its parity at once"
    );
    let token = store.delayed_start("f").unwrap();
    store.delayed_end(&token).unwrap();
    assert_consistent(&store);
    store.fail_oss(0).unwrap();
    store.fail_oss(3).unwrap();
    assert!(store.get("f").unwrap() == new, "reads with two OSSs failed");
    store.close().unwrap();
}
