//! Review s10 R10-2: the lock of the store directory said "already open, in this process or
//! another" for every failing `flock`, whatever its errno, and only after waiting for a
//! holder that did not exist. Only EWOULDBLOCK means a holder now.

use super::*;
use std::os::unix::fs::OpenOptionsExt;

/// A handle `flock` refuses with EBADF (an `O_PATH` descriptor): the lock call failing.
#[test]
fn a_lock_call_that_fails_is_named_at_once_not_taken_for_another_open() {
    let dir = tempfile::tempdir().unwrap();
    let path_only = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(dir.path())
        .unwrap();
    let start = std::time::Instant::now();
    let err = lock_open_dir(dir.path(), path_only).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, StoreError::Io(_)), "{err:?}");
    assert!(
        message.contains("locking the store directory")
            && message.contains(&std::io::Error::from_raw_os_error(libc::EBADF).to_string())
            && message.contains("not another process having the store open")
            && !message.contains("already open"),
        "{message}"
    );
    // The holder's wait is LOCK_ATTEMPTS x 10 ms (3 s); a failing call waits for nothing.
    assert!(start.elapsed() < std::time::Duration::from_secs(1));
}

#[test]
fn enolck_says_the_filesystem_keeps_no_locks_and_what_to_do() {
    let err = lock_failed(
        Path::new("/mnt/nfs/store"),
        &std::io::Error::from_raw_os_error(libc::ENOLCK),
    )
    .to_string();
    assert!(
        err.contains("/mnt/nfs/store")
            && err.contains("keeps no locks")
            && err.contains("put the store directory on a filesystem with locks")
            && !err.contains("already open"),
        "{err}"
    );
}

/// The holder case is unchanged: a second open of one directory waits, then says busy.
#[test]
fn a_held_lock_is_still_busy() {
    let dir = tempfile::tempdir().unwrap();
    let _held = lock_dir(dir.path()).unwrap();
    let err = lock_dir(dir.path()).unwrap_err();
    assert!(matches!(err, StoreError::Busy(_)), "{err:?}");
    assert!(err.to_string().contains("already open"), "{err}");
}
