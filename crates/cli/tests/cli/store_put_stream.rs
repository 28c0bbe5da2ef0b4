//! `put` streams stdin into the store in pieces (`Store::put_from`): it used to read stdin
//! whole into memory (a 4 GiB limit, and a put larger than the memory at hand aborted). And
//! `get` of a sparse file writes its never-written runs as zeros without reading them (it
//! used to read every element of the file's size). Both run under an address-space cap far
//! below what they move; what `get` reads is counted (the operation counters), not timed.

use crate::common;
use common::*;
use std::path::Path;

use exaraid_store::torture::WRITE_TORN_BLOCK;

/// Address space each command may use (as in `store_sparse.rs`; `get` holds a 64 MiB piece).
const COMMAND_ADDRESS_SPACE_BYTES: u64 = 160 << 20;
/// The cap `put` runs under: a put streaming in 8 MiB pieces needed 64 MiB on the machine
/// this was written on (measured: 48 MiB failed).
const PUT_ADDRESS_SPACE_BYTES: u64 = 96 << 20;
/// More than the put's cap: held whole, the put could not even allocate its input.
const PUT_BYTES: usize = 128 << 20;

/// Run the CLI under the command cap, stdout into `out`; it must succeed.
fn capped_ok(args: &[&str], stdin: &[u8], out: &Path) -> Vec<u8> {
    capped_ok_at(COMMAND_ADDRESS_SPACE_BYTES, args, stdin, out)
}

/// Home data elements read so far (every OSS), from the counters `status` shows.
fn data_reads(dir: &str) -> u64 {
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", dir, "--json"], b"")).unwrap();
    status["oss"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ops"]["data_read"].as_u64().unwrap())
        .sum()
}

#[test]
fn a_put_larger_than_the_memory_cap_streams_in_pieces_and_stays_atomic() {
    let tmp = fast_tempdir("exaraid-store-put-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let out = tmp.path().join("stdout");
    let o = &out;
    // A larger unit than the other CLI tests: 256 MiB in fewer, larger elements.
    init_store_unit(d, 1 << 20, &["--oss", "4", "--code", "raid5"]);
    let content = bytes(7, PUT_BYTES);
    let put = capped_at(
        PUT_ADDRESS_SPACE_BYTES,
        &["store", "put", d, "big"],
        &content,
        o,
    );
    assert!(
        put.status.success(),
        "a put of {PUT_BYTES} bytes under a {PUT_ADDRESS_SPACE_BYTES}-byte cap: {}, {}",
        put.status,
        String::from_utf8_lossy(&put.stderr)
    );
    let got = capped_ok(&["store", "get", d, "big"], b"", o);
    assert!(got == content, "get returns what put streamed in");
    drop(got);
    // Killed part-way through a second put of the name: the old content, whole.
    let new = bytes(8, PUT_BYTES / 4);
    let killed = killed_at(
        &["store", "put", d, "big"],
        &new,
        &format!("{WRITE_TORN_BLOCK}:40"),
    );
    assert!(killed, "the put passes more than 40 blocks");
    let got = capped_ok(&["store", "get", d, "big"], b"", o);
    assert!(got == content, "a killed put left the old content whole");
    drop(got);
    let ls = String::from_utf8(capped_ok(&["store", "ls", d], b"", o)).unwrap();
    assert!(
        ls.lines().count() == 1 && ls.trim_end().ends_with(" big"),
        "one file, no staging file listed: {ls}"
    );
    // An empty stdin makes an empty file (the name exists).
    capped_ok(&["store", "put", d, "empty"], b"", o);
    assert_eq!(capped_ok(&["store", "get", d, "empty"], b"", o), b"");
}

#[test]
fn get_of_a_sparse_file_reads_its_written_stripes_only() {
    let tmp = fast_tempdir("exaraid-store-put-stream");
    let dir = tmp.path().join("store");
    let d = s(&dir);
    let out = tmp.path().join("stdout");
    let o = &out;
    init_store(d, &["--oss", "4", "--code", "raid5"]);
    // A hole of 190 MiB, then 3 bytes; a second run of 5 bytes inside the hole.
    let end = (190u64 << 20).to_string();
    let inside = (64u64 << 20).to_string();
    capped_ok(&["store", "write", d, "g", "--offset", &end], b"abc", o);
    capped_ok(
        &["store", "write", d, "g", "--offset", &inside],
        b"12345",
        o,
    );
    let before = data_reads(d);
    let got = capped_ok(&["store", "get", d, "g"], b"", o);
    let reads = data_reads(d) - before;
    assert_eq!(got.len() as u64, (190 << 20) + 3);
    assert_eq!(&got[64 << 20..(64 << 20) + 5], b"12345");
    assert_eq!(&got[190 << 20..], b"abc");
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &b)| b == 0 || (64 << 20..(64 << 20) + 5).contains(&i) || i >= 190 << 20),
        "the holes read as zeros"
    );
    // Two written stripes of three 4 KiB elements; reading every element of the size took
    // 190 MiB / 4 KiB = 48,640 reads.
    assert!(
        reads <= 6,
        "get read {reads} data elements for 8 written bytes"
    );
}
