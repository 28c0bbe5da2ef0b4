//! Note14 item 6 (session 14's s14a left it): an open that finds the journal's last record
//! cut must journal its decision about it first (the journal's replacement, all or
//! nothing); on a full metadata disk that write fails, and the open failed outright: no
//! `get`, no `status`, until space was freed.
//!
//! Specification: such an open decides the tail in memory and is open for reads only.
//! Reads return exactly what the open with room then decides (the acknowledged bytes of a
//! cut cached write it proves whole; a failure naming the bytes it could not prove), every
//! change is refused saying the metadata disk is full, which record could not be decided
//! on record, and what to do; the journal is left byte for byte as it was.
//!
//! The full disk: the open runs in a child process whose files cannot grow past the
//! journal's length (RLIMIT_FSIZE, SIGXFSZ ignored: every such write fails with EFBIG, as
//! with ENOSPC), so neither the journal nor its replacement can be written.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

const OLD_BYTES: usize = 65536;
const WRITE_AT_BYTES: u64 = 1000;
const WRITE_BYTES: usize = 3000;
const CHILD_DIR_ENV: &str = "EXARAID_TEST_FULL_METADATA_TAIL_DIR";
const CHILD_EXPECT_ENV: &str = "EXARAID_TEST_FULL_METADATA_TAIL_EXPECT";

fn old_bytes() -> Vec<u8> {
    pattern(1, OLD_BYTES)
}

fn acknowledged_bytes() -> Vec<u8> {
    let mut acked = old_bytes();
    let at = WRITE_AT_BYTES as usize;
    acked[at..at + WRITE_BYTES].copy_from_slice(&pattern(2, WRITE_BYTES));
    acked
}

/// `put f`, an acknowledged WCL write into f, the power cut right after it returned (the
/// unsynced records after its `Durable` dropped) and one bit of that `Durable` flipped:
/// the open must decide the cut record (see `acknowledged_durable_tail.rs`). Returns the
/// scratch dir, the store and a copy of it as before the write.
fn damaged_durable_scene() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = scratch();
    let store_dir = dir.path().join("s");
    let store = init(&store_dir, CodeSpec::raid5(4), 5, WritePath::Wcl);
    store.put("f", &old_bytes()).unwrap();
    let before = dir.path().join("before");
    copy_tree(&store_dir, &before);
    store
        .write("f", WRITE_AT_BYTES, &pattern(2, WRITE_BYTES))
        .unwrap();
    let image = dir.path().join("image");
    copy_tree(&store_dir, &image);
    drop(store); // no close: the process died
    std::fs::remove_dir_all(&store_dir).unwrap();
    copy_tree(&image, &store_dir);
    let journal = store_dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let recs = journal_record_kinds(&bytes);
    let last_durable = recs.iter().rposition(|r| r.2 == "Durable").unwrap();
    let (start, len, _) = recs[last_durable];
    bytes.truncate(start + len);
    bytes[start + 8 + (len - 8) / 2] ^= 0x10;
    std::fs::write(&journal, &bytes).unwrap();
    (dir, store_dir, before)
}

/// Flip one payload byte of the first slot the write changed on disk (its checksum left as
/// it was): nothing proves the cut write whole any more.
fn rot_one_block_the_write_changed(store_dir: &Path, before: &Path, oss_count: usize) {
    for oss in 0..oss_count {
        for name in object_names(store_dir, oss) {
            let x = std::fs::read(object_file(before, oss, &name)).unwrap_or_default();
            let path = object_file(store_dir, oss, &name);
            let mut y = std::fs::read(&path).unwrap();
            for slot in 0..y.len() / SLOT_BYTES {
                let r = slot * SLOT_BYTES..(slot + 1) * SLOT_BYTES;
                if x.get(r.clone()) != Some(&y[r]) {
                    y[slot * SLOT_BYTES + 100] ^= 0x01;
                    std::fs::write(&path, y).unwrap();
                    return;
                }
            }
        }
    }
    panic!("the write changed no slot on disk");
}

/// What `f` reads as: its bytes, or "lost" when the read fails naming lost bytes that
/// `status` lists over the whole write. Anything else fails the test.
fn what_f_reads(store: &Store, when: &str) -> Result<Vec<u8>, &'static str> {
    match store.get("f") {
        Ok(got) => Ok(got),
        Err(StoreError::DataLost(m)) => {
            let lost = store.status().unwrap().lost_ranges;
            let covered = |i: u64| {
                lost.iter().any(|l| {
                    l.file == "f" && l.offset_bytes <= i && i < l.offset_bytes + l.len_bytes
                })
            };
            assert!(
                (WRITE_AT_BYTES..WRITE_AT_BYTES + WRITE_BYTES as u64).all(covered),
                "{when}: the write's bytes are on record as lost: {lost:?} ({m})"
            );
            Err("lost")
        }
        Err(e) => panic!("{when}: get f: {e}"),
    }
}

/// The child: the open on the full metadata disk. Run as a test of its own (no store
/// named) it does nothing.
#[test]
fn child_open_on_a_full_metadata_disk() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let expect = std::env::var(CHILD_EXPECT_ENV).unwrap();
    let dir = Path::new(&dir);
    let store = Store::open(dir).expect("a full metadata disk still lets the store be read");
    match expect.as_str() {
        "acknowledged" => assert!(
            what_f_reads(&store, "the reads-only open").ok() == Some(acknowledged_bytes()),
            "the cut write proven whole reads its acknowledged bytes"
        ),
        // Its bytes are named lost, or its stripe, which the recovery the open cannot
        // journal decides, is refused naming it: never bytes read with Ok.
        "lost" => match store.read("f", WRITE_AT_BYTES, WRITE_BYTES as u64) {
            Ok(_) => panic!("the unproven cut write read Ok"),
            Err(StoreError::DataLost(_)) => {}
            Err(e) => {
                let e = e.to_string();
                assert!(
                    e.contains("stripe") && e.contains("nothing was read"),
                    "the refusal names the stripe: {e}"
                );
            }
        },
        other => panic!("unknown expectation {other}"),
    }
    // Stripes no cut write touched read as before.
    let far = OLD_BYTES / 2;
    let tail = store
        .read("f", far as u64, (OLD_BYTES - far) as u64)
        .expect("a stripe no cut write touched reads");
    assert!(tail == old_bytes()[far..], "the bytes beside the cut write");
    let status = store.status().unwrap();
    let why = status
        .recovery_pending
        .expect("status says it is open for reads only");
    for words in [
        "metadata disk is full",
        "last record",
        "Free space on the file system holding",
        &dir.display().to_string(),
    ] {
        assert!(why.contains(words), "status names {words:?}: {why}");
    }
    let refused = store.write("f", 0, b"x").unwrap_err().to_string();
    assert!(
        refused.contains("open for reads only")
            && refused.contains("metadata disk is full")
            && refused.contains("nothing was done"),
        "a change is refused saying why and that nothing was done: {refused}"
    );
    let refused = store.remove("f").unwrap_err().to_string();
    assert!(refused.contains("metadata disk is full"), "{refused}");
    let scrub = store.scrub(false).expect("a verify-only scrub works");
    drop(scrub);
    store.close().unwrap();
}

/// Run the child above on `dir`, its files unable to grow past `fsize_bytes`.
fn open_on_full_metadata_disk(dir: &Path, fsize_bytes: u64, expect: &str) {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "child_open_on_a_full_metadata_disk",
            "--test-threads",
            "1",
        ])
        .env(CHILD_DIR_ENV, dir)
        .env(CHILD_EXPECT_ENV, expect);
    // SAFETY: between fork and exec only two async-signal-safe system calls run.
    unsafe {
        command.pre_exec(move || {
            if libc::signal(libc::SIGXFSZ, libc::SIG_IGN) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
            let limit = libc::rlimit {
                rlim_cur: fsize_bytes,
                rlim_max: fsize_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "the open on the full metadata disk: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The full-disk open reads as the open with room then decides, and changes nothing.
fn reads_only_open_then_room(rot: bool, expect: &str) {
    let (_dir, store_dir, before) = damaged_durable_scene();
    if rot {
        rot_one_block_the_write_changed(&store_dir, &before, 5);
    }
    let journal = store_dir.join("journal");
    let damaged = std::fs::read(&journal).unwrap();
    open_on_full_metadata_disk(&store_dir, damaged.len() as u64, expect);
    assert!(
        std::fs::read(&journal).unwrap() == damaged,
        "the journal is as it was (its damaged tail neither cut nor written over)"
    );
    assert!(
        !store_dir.join("journal.tmp").exists(),
        "no partial replacement left to take room"
    );
    // Room again: the open writes its decision, the same one.
    for open in 0..2 {
        let store = Store::open(&store_dir).unwrap();
        let got = what_f_reads(&store, "the open with room");
        match expect {
            "acknowledged" => assert!(
                got.as_ref().ok() == Some(&acknowledged_bytes()),
                "open {open}: the acknowledged bytes, as the reads-only open read them"
            ),
            _ => assert!(
                got == Err("lost"),
                "open {open}: lost, as the reads-only open said"
            ),
        }
        assert!(store.status().unwrap().recovery_pending.is_none());
        store.close().unwrap();
    }
    assert!(
        std::fs::read(&journal).unwrap() != damaged,
        "the decision is on record now"
    );
}

#[test]
fn a_full_metadata_disk_reads_a_cut_write_it_proves_whole_as_the_open_with_room_decides() {
    reads_only_open_then_room(false, "acknowledged");
}

#[test]
fn a_full_metadata_disk_names_an_unproven_cut_write_lost_as_the_open_with_room_decides() {
    reads_only_open_then_room(true, "lost");
}
