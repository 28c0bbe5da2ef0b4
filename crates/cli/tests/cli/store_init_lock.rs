//! `exaraid store init` takes the store's lock like every other command (review s11r R11-2:
//! two inits of one directory at once both exited 0, the later one writing an empty state
//! over the store the other had made, and a put acknowledged in between was gone).

use crate::common;
use common::*;

use std::os::unix::io::AsRawFd;

#[test]
fn init_waits_for_the_lock_and_refuses_when_it_cannot_have_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("s");
    std::fs::create_dir(&d).unwrap();
    let d = s(&d);
    // Another process's command (or a racing init) holds the directory.
    let held = std::fs::File::open(d).unwrap();
    let rc = unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(rc, 0, "the test holds the store's lock");
    let err = fails(
        &[
            "store",
            "--lock-wait-ms",
            "0",
            "init",
            d,
            "--stripe-unit",
            "4096",
            "--oss",
            "6",
            "--code",
            "raid6",
        ],
        b"",
    );
    assert!(
        err.contains("in use by another exaraid process") && err.contains("retry"),
        "says why and what to do: {err}"
    );
    let left: Vec<_> = std::fs::read_dir(d).unwrap().collect();
    assert!(left.is_empty(), "a refused init made nothing: {left:?}");
    drop(held);
    init_store(d, &["--oss", "6", "--code", "raid6"]);
    ok(&["store", "put", d, "precious"], &bytes(1, 10_000));
    // A second init of the store, as a racing rank's `init ... || true`: refused, the store
    // and its acknowledged file untouched.
    let err = fails(
        &[
            "store",
            "init",
            d,
            "--stripe-unit",
            "4096",
            "--oss",
            "6",
            "--code",
            "raid6",
        ],
        b"",
    );
    assert!(err.contains("already holds an exaraid store"), "{err}");
    assert!(ok(&["store", "get", d, "precious"], b"") == bytes(1, 10_000));
}
