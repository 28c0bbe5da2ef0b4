//! s19b's bound case through the command line: a delayed window's only copy of some bytes
//! rots; another file's write past the bound on unprotected bytes settles it, and the loss
//! goes on record. Specification (issue #4: nothing acknowledged vanishes silently): that
//! write exits 0 (its own bytes are acknowledged) and warns on stderr naming the lost bytes
//! and their window (it was silent); `status` lists them and the window's END exits
//! non-zero naming them.

use crate::common;
use common::*;

#[test]
fn a_write_past_the_bound_that_settles_a_rotten_window_block_exits_0_and_warns_naming_the_loss() {
    let tmp = fast_tempdir("s20d-window-rot-bound");
    let dir = tmp.path().join("s");
    let d = s(&dir);
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
            "--unprotected-max-bytes",
            "8192",
        ],
    );
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

    // 6,000 more bytes without parity (a window on `x`): past the bound, the write's
    // settle meets the rot.
    ok(&["store", "delayed", "start", d, "x"], b"");
    let x = bytes(3, 6000);
    let wrote = exaraid(&["store", "write", d, "x", "--offset", "0"], &x);
    let stderr = String::from_utf8_lossy(&wrote.stderr);
    assert!(
        wrote.status.success(),
        "the write of another file is acknowledged: {stderr}"
    );
    assert!(
        stderr.contains("warning")
            && stderr.contains("file 'w' bytes 4096..5000")
            && stderr.contains(&token),
        "the write warns naming the window bytes its settle found lost: {stderr}"
    );
    assert_eq!(ok(&["store", "get", d, "x"], b""), x);
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
}
