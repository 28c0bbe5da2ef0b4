//! `write` streams stdin into the store in pieces (`Store::write_from`): it used to read stdin
//! whole into memory (at most 4 GiB, and a write larger than the memory at hand aborted).
//! Each piece is acknowledged (durable) before the next is read, so a `write` killed or
//! failing part-way leaves the pieces before it whole and says where to go on from.

use crate::common;
use common::*;

use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::process::{Command, Stdio};

use exaraid_store::store::PUT_PIECE_BYTES;

/// The cap `write` runs under (as `put`'s in `store_put_stream.rs`, which measured 64 MiB
/// for 8 MiB pieces; `write` holds one more piece, its first, read before the store opens).
const WRITE_ADDRESS_SPACE_BYTES: u64 = 96 << 20;
/// More than the cap: held whole, the write could not even allocate its input.
const WRITE_BYTES: usize = 128 << 20;
/// Address space of the `get` that checks it (it holds a 64 MiB piece).
const GET_ADDRESS_SPACE_BYTES: u64 = 160 << 20;
/// How long the killed write may take to take in its input: a liveness bound, not a timing.
const INPUT_TAKEN_WAIT_MS: u64 = 120_000;

fn init_1_mib_unit(d: &str) {
    init_store_unit(d, 1 << 20, &["--oss", "4", "--code", "raid5"]);
}

#[test]
fn a_write_larger_than_the_memory_cap_streams_in_pieces() {
    let tmp = fast_tempdir("exaraid-store-write-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let out = tmp.path().join("stdout");
    let o = &out;
    init_1_mib_unit(d);
    // Not aligned to a piece, an element or a checksum block.
    let offset_bytes: usize = (5 << 20) + 3;
    let content = bytes(9, WRITE_BYTES);
    let offset = offset_bytes.to_string();
    let write = capped_at(
        WRITE_ADDRESS_SPACE_BYTES,
        &["store", "write", d, "big", "--offset", &offset],
        &content,
        o,
    );
    assert!(
        write.status.success(),
        "a write of {WRITE_BYTES} bytes under a {WRITE_ADDRESS_SPACE_BYTES}-byte cap: {}, {}",
        write.status,
        String::from_utf8_lossy(&write.stderr)
    );
    let got = capped_ok_at(GET_ADDRESS_SPACE_BYTES, &["store", "get", d, "big"], b"", o);
    assert_eq!(got.len(), offset_bytes + WRITE_BYTES);
    assert!(
        got[..offset_bytes].iter().all(|&b| b == 0),
        "the hole before"
    );
    assert!(got[offset_bytes..] == content[..], "the bytes streamed in");
}

/// Bytes the child has not read yet from the pipe `stdin` (FIONREAD works on either end).
fn unread_bytes(stdin: &std::process::ChildStdin) -> usize {
    let mut unread: libc::c_int = 0;
    let rc = unsafe { libc::ioctl(stdin.as_raw_fd(), libc::FIONREAD, &mut unread) };
    assert_eq!(rc, 0, "FIONREAD on the child's stdin");
    unread as usize
}

#[test]
fn a_write_killed_while_it_waits_for_input_keeps_the_pieces_it_took() {
    let tmp = fast_tempdir("exaraid-store-write-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let old = bytes(1, 3 * PUT_PIECE_BYTES);
    ok(&["store", "write", d, "f", "--offset", "0"], &old);
    // Two whole pieces and the start of a third; then the producer stalls.
    let fed = 2 * PUT_PIECE_BYTES + 1024;
    let new = bytes(2, fed);
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "write", d, "f", "--offset", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&new).unwrap();
    // Once the child has read all of it, it is waiting for the third piece's rest, which
    // it reads only after the second piece was acknowledged.
    let mut waited_ms = 0;
    while unread_bytes(&stdin) > 0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the write ended before its input did"
        );
        assert!(
            waited_ms < INPUT_TAKEN_WAIT_MS,
            "the write did not take its input"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited_ms += 50;
    }
    child.kill().unwrap(); // SIGKILL, stdin still open: never an end of input
    let status = child.wait().unwrap();
    assert!(!status.success());
    drop(stdin);
    // Recovery runs at this open.
    let got = ok(&["store", "get", d, "f"], b"");
    assert_eq!(got.len(), old.len(), "the file did not grow");
    let acked = 2 * PUT_PIECE_BYTES;
    assert!(
        got[..acked] == new[..acked],
        "the two pieces taken before the kill are durable"
    );
    assert!(
        got[acked..] == old[acked..],
        "the third piece, never written (its input had not ended), left the old bytes"
    );
}

#[test]
fn a_write_failing_part_way_says_how_far_it_is_durable() {
    let tmp = fast_tempdir("exaraid-store-write-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    // Room on each OSS for one piece (about 2.7 MiB of elements and their crc blocks per
    // OSS on raid5 3+1), not for two.
    let capacity = (8 << 20).to_string();
    init_store(
        d,
        &["--oss", "4", "--code", "raid5", "--oss-capacity", &capacity],
    );
    let offset_bytes = 100;
    let input = bytes(3, 3 * PUT_PIECE_BYTES);
    let offset = offset_bytes.to_string();
    let err = fails(&["store", "write", d, "f", "--offset", &offset], &input);
    let durable_end = offset_bytes + PUT_PIECE_BYTES;
    assert!(
        err.contains("is full")
            && err.contains(&format!(
                "the first {PUT_PIECE_BYTES} bytes of the input are written at offsets \
                 {offset_bytes}..{durable_end} and durable"
            ))
            && err.contains(&format!(
                "write the rest of the input from offset {durable_end}"
            )),
        "the error names the full OSS and how far the input is durable: {err}"
    );
    // Review s12r: the full OSS's own words ("nothing was written") said the opposite of
    // the durable first piece in the same message.
    assert!(
        !err.contains("nothing was written")
            && err.contains(&format!(
                "the piece from offset {durable_end} (at most {PUT_PIECE_BYTES} bytes) was not acknowledged"
            )),
        "the error says only what is durable and what is not: {err}"
    );
    let piece = PUT_PIECE_BYTES.to_string();
    let got = ok(
        &[
            "store", "read", d, "f", "--offset", &offset, "--length", &piece,
        ],
        b"",
    );
    assert!(got == input[..PUT_PIECE_BYTES], "the first piece is there");
}

#[test]
fn a_write_refused_at_once_creates_no_file() {
    let tmp = fast_tempdir("exaraid-store-write-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    let past_the_largest_file = (1u64 << 61).to_string();
    let err = fails(
        &[
            "store",
            "write",
            d,
            "far",
            "--offset",
            &past_the_largest_file,
        ],
        b"abc",
    );
    assert!(err.contains("beyond the largest file"), "{err}");
    let empty = fails(&["store", "write", d, "none", "--offset", "0"], b"");
    assert!(empty.contains("a write of 0 bytes does nothing"), "{empty}");
    let ls = ok(&["store", "ls", d], b"");
    assert!(
        ls.is_empty(),
        "no file made: {}",
        String::from_utf8_lossy(&ls)
    );
}
