//! The CLI on a metadata disk that takes no more bytes, and into a reader that went away
//! (review s4e E1 and Minor): reads and `status` still succeed, writes fail before they
//! acknowledge anything, and `... | head -1` ends quietly without changing the store.

use crate::common;
use common::*;

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run the CLI where no file may grow past `fsize_bytes` (RLIMIT_FSIZE, as `ulimit -f` sets
/// it), with SIGXFSZ at its default disposition (kill), as a shell or batch job leaves it:
/// the CLI itself must make a write past the limit fail with EFBIG, as on a full disk,
/// instead of being killed (review s11r R11-6). The state checkpoint and the journal are
/// files like any other: none of them can grow past it, as on a full metadata disk.
/// `stdin`: a file the command reads (a put's data), or none.
fn with_file_size_limit_reading(fsize_bytes: u64, args: &[&str], stdin: Option<&Path>) -> Output {
    let stdin = match stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
        None => Stdio::null(),
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    command.args(args).stdin(stdin);
    output_under_file_size_limit(command, fsize_bytes)
}

fn with_file_size_limit(fsize_bytes: u64, args: &[&str]) -> Output {
    with_file_size_limit_reading(fsize_bytes, args, None)
}

/// Smaller than any record of the journal and than the state file: nothing grows.
const NO_ROOM_BYTES: u64 = 64;

#[test]
fn a_full_metadata_disk_fails_writes_but_not_reads() {
    let tmp = fast_tempdir("exaraid-store-full-disks");
    let d = tmp.path().join("s");
    let d = s(&d);
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "wcl"]);
    let p0 = bytes(1, 100_000);
    ok(&["store", "put", d, "p0"], &p0);
    for args in [
        vec!["store", "status", d],
        vec!["store", "ls", d],
        vec!["store", "get", d, "p0"],
        vec!["store", "read", d, "p0", "--offset", "10", "--length", "20"],
    ] {
        let out = with_file_size_limit(NO_ROOM_BYTES, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?} changed nothing, so a checkpoint it cannot write is no failure: {stderr}"
        );
        assert!(
            stderr.contains("warning") && stderr.contains("nothing is lost"),
            "{args:?} says the checkpoint was not written: {stderr}"
        );
        if args[1] == "get" {
            assert!(out.stdout == p0, "get wrote the file's bytes");
        }
        if args[1] == "read" {
            assert!(out.stdout == p0[10..30], "read wrote the range's bytes");
        }
    }
    // A write needs the journal: refused before it acknowledges anything, saying why.
    let out = with_file_size_limit(NO_ROOM_BYTES, &["store", "rm", d, "p0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "rm cannot be journaled");
    assert!(
        stderr.contains("full"),
        "the error says the disk is full: {stderr}"
    );
    // Room again: every byte as before, and the store writes again.
    assert!(ok(&["store", "get", d, "p0"], b"") == p0);
    assert!(ok(&["store", "ls", d], b"").ends_with(b"p0\n"));
    ok(
        &["store", "write", d, "p0", "--offset", "5000"],
        &bytes(2, 3000),
    );
    let mut expect = p0.clone();
    expect[5000..8000].copy_from_slice(&bytes(2, 3000));
    assert!(ok(&["store", "get", d, "p0"], b"") == expect);
    ok(&["store", "scrub", d], b"");
}

/// Review s11r R11-6: under a file-size limit a put is refused with the full-disk message, or
/// succeeds with the checkpoint warning, never killed by SIGXFSZ (exit 153) whether or not
/// its data took effect. Every acknowledged byte reads back; the refused put is not listed.
#[test]
fn a_file_size_limit_refuses_cleanly_instead_of_killing_the_cli() {
    const LIMIT_BYTES: u64 = 8 * 1024;
    let tmp = fast_tempdir("exaraid-store-full-disks");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store_unit(d, 4096, &["--oss", "5", "--code", "raid5"]);
    let mut acked: Vec<(String, Vec<u8>)> = Vec::new();
    // Long names grow the state past the limit, so the closing checkpoint cannot be written.
    for i in 0..60u8 {
        let name = format!("longname-for-state-growth-{i}");
        let data = bytes(i, 20);
        ok(&["store", "put", d, &name], &data);
        acked.push((name, data));
    }
    let state_bytes = std::fs::metadata(dir.join("state")).unwrap().len();
    assert!(
        state_bytes > LIMIT_BYTES,
        "the test needs a state ({state_bytes} bytes) larger than the limit"
    );

    // The put's data and journal fit under the limit, its checkpoint does not: the put is
    // durable (journaled), so it succeeds and warns about the checkpoint.
    let small = bytes(61, 3000);
    let small_path = tmp.path().join("small");
    std::fs::write(&small_path, &small).unwrap();
    let out = with_file_size_limit_reading(
        LIMIT_BYTES,
        &["store", "put", d, "newone"],
        Some(&small_path),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "a put whose only oversize file is the checkpoint succeeds: exit {:?}, signal {:?}: {stderr}",
        out.status.code(),
        std::os::unix::process::ExitStatusExt::signal(&out.status)
    );
    assert!(
        stderr.contains("warning"),
        "the put says the checkpoint was not written: {stderr}"
    );
    acked.push(("newone".to_string(), small));

    // A zone file passes the limit: refused before anything is acknowledged, saying why.
    let big_path = tmp.path().join("big");
    std::fs::write(&big_path, bytes(62, 300_000)).unwrap();
    let out = with_file_size_limit_reading(50 * 1024, &["store", "put", d, "big"], Some(&big_path));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1),
        "a put past the limit is refused with exit 1: exit {:?}, signal {:?}: {stderr}",
        out.status.code(),
        std::os::unix::process::ExitStatusExt::signal(&out.status)
    );
    assert!(
        stderr.contains("is full") && stderr.contains("nothing was written"),
        "the refusal says which disk is full and that nothing was written: {stderr}"
    );

    // Without the limit: the refused put is not there, every acknowledged byte is.
    let listed = String::from_utf8(ok(&["store", "ls", d], b"")).unwrap();
    assert!(
        !listed.lines().any(|line| line.ends_with("big")),
        "the refused put is not listed: {listed}"
    );
    for (name, data) in &acked {
        assert!(
            &ok(&["store", "get", d, name], b"") == data,
            "{name} reads back as acknowledged"
        );
    }
    ok(&["store", "scrub", d], b"");
}

/// The payload of the journal's last record (frames: length u32 LE, crc32c u32, payload).
fn last_journal_record(dir: &Path) -> String {
    journal_records(dir).pop().unwrap_or_default()
}

/// Review s11r R11-4: a put cut between its `Durable` and `Complete` records (a full
/// metadata disk refused the second; here a kill, the same journal) leaves the next open a
/// record to write. On a metadata disk with no room for it every command, reads too,
/// failed until space was freed; the guide says reads keep working on a full metadata
/// disk. Now the open serves reads, refuses changes saying why, and with room again the
/// store takes changes and reads every acknowledged byte.
#[test]
fn an_open_that_cannot_journal_a_durable_plans_completion_still_serves_reads() {
    let tmp = fast_tempdir("exaraid-store-full-disks");
    let kept = bytes(7, 20_000);
    let victim = bytes(8, 9_000);
    // The kill point right after the put's `Durable` record: the first record count whose
    // kill leaves it last in the journal.
    const RECORDS_MAX: usize = 20;
    let dir = (1..=RECORDS_MAX)
        .find_map(|n| {
            let dir = tmp.path().join(format!("s{n}"));
            let d = s(&dir);
            init_store(
                d,
                &["--oss", "5", "--code", "raid5", "--write-path", "delayed"],
            );
            ok(&["store", "put", d, "kept"], &kept);
            let kill_at = format!("{}:{n}", exaraid_store::torture::JOURNAL_RECORD);
            assert!(
                killed_at(&["store", "put", d, "victim"], &victim, &kill_at),
                "a put appends a Durable record within {RECORDS_MAX} records"
            );
            last_journal_record(&dir)
                .contains("\"Durable\"")
                .then_some(dir)
        })
        .expect("a kill right after the put's Durable record");
    let d = s(&dir);
    // No room for one more journal byte (nor for the state checkpoint).
    let journal_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    for args in [
        vec!["store", "ls", d],
        vec!["store", "status", d],
        vec!["store", "get", d, "kept"],
        vec![
            "store", "read", d, "kept", "--offset", "100", "--length", "50",
        ],
    ] {
        let out = with_file_size_limit(journal_bytes, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?} on a full metadata disk serves its read: exit {:?}: {stderr}",
            out.status.code()
        );
        // `status` says it in its output, the others in a warning.
        let told = if args[1] == "status" {
            String::from_utf8_lossy(&out.stdout)
        } else {
            stderr.clone()
        };
        assert!(
            told.contains("reads only") && told.contains("Free space"),
            "{args:?} says the store is open for reads only and what to do: {told}"
        );
        match args[1] {
            "ls" => assert!(
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .any(|l| l.ends_with("kept"))
                    && !String::from_utf8_lossy(&out.stdout).contains("victim"),
                "ls lists the acknowledged file only: {}",
                String::from_utf8_lossy(&out.stdout)
            ),
            "get" => assert!(out.stdout == kept, "get reads the acknowledged bytes"),
            "read" => assert!(out.stdout == kept[100..150], "read reads the range"),
            _ => {}
        }
    }
    let put = tmp.path().join("other");
    std::fs::write(&put, bytes(9, 5_000)).unwrap();
    let out =
        with_file_size_limit_reading(journal_bytes, &["store", "put", d, "other"], Some(&put));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1)
            && stderr.contains("reads only")
            && stderr.contains("refused, nothing was done")
            && stderr.contains("Free space"),
        "a change is refused, saying why and what to do: exit {:?}: {stderr}",
        out.status.code()
    );
    // Room again: the open journals the completion, the store takes changes.
    let out = exaraid(&["store", "ls", d], b"");
    assert!(
        out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("reads only"),
        "with room the store opens for changes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ok(&["store", "put", d, "other"], &bytes(9, 5_000));
    assert!(ok(&["store", "get", d, "kept"], b"") == kept);
    assert!(ok(&["store", "get", d, "other"], b"") == bytes(9, 5_000));
    ok(&["store", "scrub", d], b"");
}

/// Run the CLI with stdout into a socket whose reading end is already closed: its first
/// write fails with EPIPE, deterministically (a reader that exited, as `head -1` does).
fn into_closed_pipe(args: &[&str]) -> Output {
    let (ours, theirs) = UnixStream::pair().unwrap();
    drop(ours);
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(OwnedFd::from(theirs)))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn metadata_files(d: &Path) -> Vec<(String, Vec<u8>)> {
    ["state", "journal"]
        .iter()
        .map(|name| {
            let bytes = std::fs::read(d.join(name)).unwrap_or_default();
            (name.to_string(), bytes)
        })
        .collect()
}

#[test]
fn commands_into_a_closed_pipe_end_quietly_and_change_nothing() {
    let tmp = fast_tempdir("exaraid-store-full-disks");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5", "--write-path", "wcl"]);
    let f = bytes(3, 300_000);
    ok(&["store", "put", d, "f"], &f);
    ok(
        &["store", "write", d, "f", "--offset", "1000"],
        &bytes(4, 500),
    );
    for args in [
        vec!["store", "status", d],
        vec!["store", "status", d, "--json"],
        vec!["store", "ls", d],
        vec!["store", "get", d, "f"],
        vec![
            "store", "read", d, "f", "--offset", "0", "--length", "100000",
        ],
        vec!["store", "scrub", d],
    ] {
        let out = into_closed_pipe(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "{args:?} into a closed pipe: exit {:?}, stderr: {stderr}",
            out.status.code()
        );
    }
    // A `get` into a closed pipe changes nothing: the journal is as it was. (Its close
    // comes before its output, review s11r R11-8: the checkpoint it writes differs in the
    // operation counters only.)
    let before = metadata_files(&dir);
    let out = into_closed_pipe(&["store", "get", d, "f"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        metadata_files(&dir)[1] == before[1],
        "a get into a closed pipe left the store's journal as it was"
    );
    let mut expect = f.clone();
    expect[1000..1500].copy_from_slice(&bytes(4, 500));
    assert!(ok(&["store", "get", d, "f"], b"") == expect);
}

/// Item 7 of the session-13 note: the open that cuts a damaged journal tail must journal
/// its decision first (in the tail's place); on a full metadata disk that write fails. The
/// journal is left exactly as it was (no part of the decision written over the tail), so
/// the open with room decides again and warns of the damaged record. Meanwhile (note14 item
/// 6, session 15) the store is open for reads only with the decision in memory: `status`,
/// `ls` and `get` work and say the metadata disk is full and what to do; a change is
/// refused saying so (before session 15 every command failed, reads too).
#[test]
fn a_full_metadata_disk_keeps_the_opens_tail_decision_in_memory_serving_reads() {
    let tmp = fast_tempdir("exaraid-store-full-disks");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    init_store(d, &["--oss", "5", "--code", "raid5"]);
    let p0 = bytes(1, 20_000);
    ok(&["store", "put", d, "p0"], &p0);
    // A whole last record damaged after it was written: a short payload (no zero byte) under
    // a wrong checksum. The open's records in its place are longer than it.
    let journal = dir.join("journal");
    let mut damaged = std::fs::read(&journal).unwrap();
    let payload = br#"{"seq":900,"rec":"X"}"#;
    damaged.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    damaged.extend_from_slice(&(crc32c_of(payload) ^ 1).to_le_bytes());
    damaged.extend_from_slice(payload);
    std::fs::write(&journal, &damaged).unwrap();
    // No file may grow past the journal as it is: neither the journal nor a copy of it.
    let full = |args: &[&str]| with_file_size_limit(damaged.len() as u64, args);
    let out = full(&["store", "status", d]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "status reads: {stderr}");
    assert!(
        stdout.contains("METADATA DISK FULL")
            && stdout.contains("last record")
            && stdout.contains("Free space on the file system holding"),
        "status names the metadata disk, the undecided record and what to do: {stdout}"
    );
    let out = full(&["store", "get", d, "p0"]);
    assert!(
        out.status.success() && out.stdout == p0,
        "get reads the file"
    );
    let out = full(&["store", "ls", d]);
    assert!(
        out.status.success() && out.stdout.ends_with(b"p0\n"),
        "ls lists it"
    );
    let out = full(&["store", "rm", d, "p0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a change cannot be journaled");
    assert!(
        stderr.contains("metadata disk is full") && stderr.contains("Free space"),
        "the refusal names the metadata disk and what to do: {stderr}"
    );
    assert!(
        std::fs::read(&journal).unwrap() == damaged,
        "the journal is as it was (its damaged tail neither cut nor written over): {stderr}"
    );
    assert!(
        !dir.join("journal.tmp").exists(),
        "no partial replacement left to take room"
    );
    // Room again: the open decides, warns of the damaged record, and every byte reads.
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert!(status.contains("damaged"), "{status}");
    assert!(!status.contains("METADATA DISK FULL"), "{status}");
    assert!(ok(&["store", "get", d, "p0"], b"") == p0);
}

/// crc32c (Castagnoli), bit by bit: the journal's record checksum.
fn crc32c_of(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}
