//! `Store::get` beside a `put` of the same name from another thread returns one whole version
//! of the file, never the new bytes cut to the old length (review s7r R7-8: `get` looked the
//! size up, then `read` looked the name up again; a put between the two made `get` return a
//! buffer that never was the file's content, or fail "goes past its end").

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Version i: `len(i)` bytes, every one equal to i (a cut or a mix shows).
fn len(i: u8) -> usize {
    1000 + (i as usize * 7919) % 30_000
}

#[test]
fn every_get_beside_puts_of_the_same_name_is_one_whole_version() {
    // The old code failed about twice per put here (445 of 405,454 gets for 250 puts): 25
    // puts keep the test to a few seconds and fail it with near certainty.
    const PUTS: u8 = 25;
    for path in [WritePath::Rmw, WritePath::Wcl] {
        let dir = scratch();
        let store = init(dir.path(), CodeSpec::raid5(4), 5, path);
        store.put("p", &vec![1u8; len(1)]).unwrap();
        let stop = AtomicBool::new(false);
        let gets = AtomicUsize::new(0);
        let mut wrong: Vec<String> = Vec::new();
        std::thread::scope(|s| {
            let (store, stop, gets) = (&store, &stop, &gets);
            let getters: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(move || {
                        let mut wrong = Vec::new();
                        while !stop.load(Ordering::SeqCst) {
                            match store.get("p") {
                                Ok(b) => {
                                    gets.fetch_add(1, Ordering::SeqCst);
                                    let v = b[0];
                                    if b.len() != len(v) || b.iter().any(|&x| x != v) {
                                        wrong.push(format!(
                                            "first byte {v}, {} bytes, version {v} has {}",
                                            b.len(),
                                            len(v)
                                        ));
                                    }
                                }
                                Err(e) => wrong.push(format!("get failed: {e}")),
                            }
                        }
                        wrong
                    })
                })
                .collect();
            for i in 2..=PUTS {
                store.put("p", &vec![i; len(i)]).unwrap();
            }
            stop.store(true, Ordering::SeqCst);
            for g in getters {
                wrong.extend(g.join().unwrap());
            }
        });
        assert!(
            wrong.is_empty(),
            "{path:?}: {} of {} gets were not one whole version: {:?}",
            wrong.len(),
            gets.load(Ordering::SeqCst),
            &wrong[..wrong.len().min(5)]
        );
        assert_eq!(store.get("p").unwrap(), vec![PUTS; len(PUTS)]);
        assert_consistent(&store);
    }
}
