//! Two API threads `put` the same name at once (review H3). A put writes its new content
//! under the name's staging name first; the two puts shared it, so one could give the name
//! the other's half-written content: a read right after an acknowledged put returned bytes
//! that were neither put's. Now puts of one name take turns: whatever a reader sees after
//! either put returned is one put's content, whole.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Enough rounds that two puts overlap in most of them (each put is several plans).
const ROUNDS: usize = 40;

#[test]
fn concurrent_puts_of_one_name_each_leave_one_whole_content() {
    let dir = scratch();
    let store = init(dir.path(), CodeSpec::raid5(3), 4, WritePath::Rmw);
    let a = pattern(1, 20_000);
    let b = pattern(2, 23_000);
    for round in 0..ROUNDS {
        std::thread::scope(|s| {
            for content in [&a, &b] {
                let store = &store;
                let (a, b) = (&a, &b);
                s.spawn(move || {
                    store.put("g", content).unwrap();
                    let got = store.get("g").unwrap();
                    assert!(
                        got == *a || got == *b,
                        "round {round}: read right after an acknowledged put: {} bytes, neither put's content",
                        got.len()
                    );
                });
            }
        });
        let got = store.get("g").unwrap();
        assert!(got == a || got == b, "round {round}: after both puts");
    }
    assert_eq!(store.list().len(), 1, "no staging file is listed");
}
