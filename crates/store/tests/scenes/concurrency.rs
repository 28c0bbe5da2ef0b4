//! Concurrent writers (threads) on disjoint ranges of one file keep parity correct: the
//! stripe lock table serialises the read-modify-write of shared parity.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

fn writers_on_disjoint_ranges(path: WritePath, code: CodeSpec, oss: usize) {
    let dir = tempfile::tempdir().unwrap();
    let store = init(dir.path(), code, oss, path);
    const THREADS: usize = 6;
    const WRITES: usize = 24;
    // Writes are 1.5 KiB, interleaved between threads: neighbours share elements, stripes
    // and so parity, which is exactly what the locks must protect.
    const LEN: usize = 1536;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let store = &store;
            s.spawn(move || {
                for i in 0..WRITES {
                    let slot = i * THREADS + t;
                    store
                        .write(
                            "shared",
                            (slot * LEN) as u64,
                            &pattern((t * 1000 + i) as u64, LEN),
                        )
                        .unwrap();
                }
            });
        }
    });
    let mut want = Vec::new();
    for i in 0..WRITES {
        for t in 0..THREADS {
            want.extend(pattern((t * 1000 + i) as u64, LEN));
        }
    }
    assert_eq!(store.get("shared").unwrap(), want);
    assert_consistent(&store);
    store.close().unwrap();
}

#[test]
fn rmw_concurrent_writers_keep_parity_correct() {
    writers_on_disjoint_ranges(WritePath::Rmw, CodeSpec::raid6(3), 5);
}

#[test]
fn wcl_concurrent_writers_keep_parity_correct() {
    writers_on_disjoint_ranges(WritePath::Wcl, CodeSpec::raid5(4), 5);
}
