//! `rebuild` keeps holes holes (review s7r R7-1b): an element no byte of which the file
//! ever wrote is not written onto the rebuilt OSS, so a rebuilt OSS costs on disk what the
//! OSS it replaces held, not a whole stripe unit per element of every written stripe. The
//! rebuilt store reads every byte right and scrubs clean, also after a rebuild killed -9
//! half way and run again.

use crate::common;
use common::*;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A stripe unit far above the 4 KiB checksum block, so an element written as zeros where
/// a hole was shows in the disk use.
const UNIT_BYTES: u64 = 64 * 1024;
/// raid6 4+2 over 6 OSSs: the stripe width is the OSS count.
const DATA_COLUMNS: u64 = 4;
const SMALL_FILES: usize = 6;

/// Bytes allocated on disk under `dir` (what `du` counts), recursively.
fn allocated_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            total += allocated_bytes(&entry.path());
        } else {
            total += meta.blocks() * 512;
        }
    }
    total
}

/// The files and their full contents: small files of 100 bytes (one data element written
/// of each stripe's four), and a sparse file whose written stripes hold whole-element holes
/// (bytes in element 0 of stripe 0, in element 2 of stripe 3, nothing in between).
fn contents() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = (0..SMALL_FILES)
        .map(|i| (format!("small{i}"), bytes(i as u8, 100)))
        .collect();
    let stripe_bytes = UNIT_BYTES * DATA_COLUMNS;
    let far = (3 * stripe_bytes + 2 * UNIT_BYTES + 1000) as usize;
    let mut sparse = vec![0u8; far + 5000];
    sparse[..3000].copy_from_slice(&bytes(77, 3000));
    sparse[far..].copy_from_slice(&bytes(78, 5000));
    files.push(("sparse".to_string(), sparse));
    files
}

fn write_all(d: &str) {
    for (name, want) in contents() {
        if name == "sparse" {
            let far = want.len() - 5000;
            ok(
                &["store", "write", d, &name, "--offset", "0"],
                &want[..3000],
            );
            ok(
                &["store", "write", d, &name, "--offset", &far.to_string()],
                &want[far..],
            );
        } else {
            ok(&["store", "put", d, &name], &want);
        }
    }
}

fn every_byte_reads_right_and_scrub_is_clean(d: &str) {
    for (name, want) in contents() {
        let got = ok(&["store", "get", d, &name], b"");
        assert!(got == want, "{name} reads wrong after the rebuild");
    }
    let out = exaraid(&["store", "scrub", d], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "scrub: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn rebuilt_oss_costs_what_it_held(write_path: &str, kill_first: bool) {
    let tmp = fast_tempdir("s8f-holes");
    let dir = tmp.path().join("D");
    let d = s(&dir);
    init_store_unit(
        d,
        UNIT_BYTES,
        &["--oss", "6", "--code", "raid6", "--write-path", write_path],
    );
    write_all(d);
    ok(&["store", "flush", d], b"");
    let held: Vec<u64> = (0..6)
        .map(|i| allocated_bytes(&dir.join(format!("oss-{i}"))))
        .collect();
    let mut killed = 0;
    for (oss, &held_bytes) in held.iter().enumerate() {
        let o = oss.to_string();
        ok(&["store", "fail", d, "--oss", &o], b"");
        let rebuild = ["store", "rebuild", d, "--oss", &o];
        // Killed at the second element written: the OSS is half rebuilt, and the same
        // rebuild run again finishes it. An OSS holding fewer elements is rebuilt whole
        // before that point: nothing is left to retry.
        if !kill_first || killed_at(&rebuild, b"", "rebuild-element:2") {
            killed += usize::from(kill_first);
            ok(&rebuild, b"");
        }
        let after = allocated_bytes(&dir.join(format!("oss-{oss}")));
        // The rebuilt OSS holds the elements the old one held (its checksums and extents
        // records beside them), never a zero element where it had none: one stripe unit
        // more than before fails.
        assert!(
            after < held_bytes + UNIT_BYTES,
            "{write_path}: OSS {oss} held {} bytes on disk, {after} after its rebuild (kill first: {kill_first})",
            held_bytes
        );
        every_byte_reads_right_and_scrub_is_clean(d);
    }
    if kill_first {
        assert!(killed > 0, "no rebuild was cut half way");
    }
}

#[test]
fn a_rebuilt_oss_keeps_the_holes_of_small_and_sparse_files_on_rmw() {
    rebuilt_oss_costs_what_it_held("rmw", false);
}

#[test]
fn a_rebuild_killed_half_way_and_run_again_keeps_the_holes_on_wcl() {
    rebuilt_oss_costs_what_it_held("wcl", true);
}
