//! Review s18r R18-3 through the command line (`scripts/repro/repro-r18-3.sh`): a delayed
//! window's only copy of some bytes rots and its timeout comes due. Specification: the next
//! command, a read of another file, succeeds (it was refused with the window file's error);
//! `status` lists the window's lost bytes; `delayed end` exits non-zero naming them (it
//! exited 0 saying nothing: docs/store.md promises END never exits 0 for a loss of its
//! window).

use crate::common;
use common::*;

#[test]
fn after_a_timeout_over_a_rotten_window_block_other_files_read_and_end_exits_non_zero_naming_the_loss(
) {
    let tmp = fast_tempdir("s19b-window-rot");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let timeout_ms = 400;
    init_store(
        d,
        &[
            "--oss",
            "8",
            "--code",
            "rs",
            "--k",
            "5",
            "--m",
            "3",
            "--write-path",
            "delayed",
            "--window-timeout-ms",
            &timeout_ms.to_string(),
        ],
    );
    let other = bytes(1, 30_000);
    ok(&["store", "put", d, "other"], &other);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "w"], b""))
        .unwrap()
        .trim()
        .to_string();
    ok(
        &["store", "write", d, "w", "--offset", "0"],
        &bytes(2, 5000),
    );
    // File `w` bytes 4096..5000 (column 1 of stripe 0): their only copy, in OSS 1's cache.
    let cache = dir
        .join("oss-1")
        .join("objects")
        .join(format!("{}.cache", u64::MAX));
    let mut on_disk = std::fs::read(&cache).unwrap();
    on_disk[100] ^= 0xff;
    std::fs::write(&cache, on_disk).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(timeout_ms + 200));

    let read = exaraid(
        &[
            "store", "read", d, "other", "--offset", "0", "--length", "100",
        ],
        b"",
    );
    assert!(
        read.status.success(),
        "a read of another file after the timeout succeeds: {}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(read.stdout, other[..100]);
    let warned = String::from_utf8_lossy(&read.stderr);
    assert!(
        warned.contains("warning") && warned.contains("file 'w' bytes 4096..5000"),
        "the read warns of the window's loss it went on beside: {warned}"
    );
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(
        status.contains("LOST: 'w' bytes 4096..5000") && status.contains(&token),
        "status lists the window's lost bytes and the window: {status}"
    );
    let end = fails(&["store", "delayed", "end", d, &token], b"");
    assert!(
        end.contains("file 'w' bytes 4096..5000") && end.contains(&token),
        "END exits non-zero naming the lost range and its window: {end}"
    );
    let get = fails(&["store", "get", d, "w"], b"");
    assert!(get.contains("bytes 4096..5000"), "{get}");
}
