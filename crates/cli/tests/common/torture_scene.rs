//! A crash scene over the `store torture` write sequence (`exaraid_store::torture`): a
//! store filled by its first writes, the next one killed at a named kill point, and the
//! check that every acknowledged byte reads back. Shared by the kill-point tests of
//! s26e and s27c (before, s26e's test file held its own copy).

use super::{exaraid, init_store_unit, killed_at_with, put_over};
use exaraid_store::torture::{write_of, TortureWrite, FILE, KILL_IN_PLAN_ORDER_ENV};

/// WCL raid6 3+2 at a 4 KiB stripe unit.
pub const RAID6_WCL_4K: (u64, &[&str]) = (
    4096,
    &[
        "--oss",
        "5",
        "--code",
        "raid6",
        "--k",
        "3",
        "--write-path",
        "wcl",
    ],
);

/// `init` arguments of WCL xcode p=5 (5 OSSs, 3 data rows and 2 parity rows a column).
pub const XCODE_WCL: &[&str] = &[
    "--oss",
    "5",
    "--code",
    "xcode",
    "--p",
    "5",
    "--write-path",
    "wcl",
];

/// WCL xcode p=5 at a 16 KiB stripe unit.
pub const XCODE_WCL_16K: (u64, &[&str]) = (16384, XCODE_WCL);

/// The store at `dir` (stripe unit `unit_bytes`, `init` arguments `init_args`) after
/// `acked` acknowledged writes of torture seed `seed` and write `acked` killed at `kill_at`
/// (plan order); the acknowledged bytes. Panics if the write was not killed.
pub fn cut_write_scene(
    dir: &str,
    (unit_bytes, init_args): (u64, &[&str]),
    seed: u64,
    acked: u64,
    kill_at: &str,
) -> Vec<u8> {
    init_store_unit(dir, unit_bytes, init_args);
    let (seed_arg, acked_arg) = (seed.to_string(), acked.to_string());
    let torture = |start: &str, count: &str| {
        vec![
            "store", "torture", dir, "--seed", &seed_arg, "--start", start, "--count", count,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let prefill = torture("0", &acked_arg);
    let prefill: Vec<&str> = prefill.iter().map(String::as_str).collect();
    let out = exaraid(&prefill, b"");
    assert!(out.status.success(), "prefill: {out:?}");
    let cut = torture(&acked_arg, "1");
    let cut: Vec<&str> = cut.iter().map(String::as_str).collect();
    assert!(
        killed_at_with(&cut, b"", kill_at, &[KILL_IN_PLAN_ORDER_ENV]),
        "the write was not killed at {kill_at}"
    );
    let mut acknowledged = Vec::new();
    for i in 0..acked {
        let w = write_of(seed, i);
        put_over(&mut acknowledged, w.offset_bytes as usize, &w.data);
    }
    acknowledged
}

/// Every acknowledged byte reads back with success (the cut write `cut`'s bytes old or
/// new), and scrub is clean.
pub fn reads_every_acknowledged_byte(dir: &str, acknowledged: &[u8], cut: TortureWrite) {
    let (cut_start, cut_end) = (
        cut.offset_bytes as usize,
        cut.offset_bytes as usize + cut.data.len(),
    );
    let out = exaraid(&["store", "get", dir, FILE], b"");
    assert!(
        out.status.success(),
        "get after the kills: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = out.stdout;
    assert!(
        got.len() == acknowledged.len() || got.len() == acknowledged.len().max(cut_end),
        "file is {} bytes, acknowledged {}",
        got.len(),
        acknowledged.len()
    );
    for (b, &g) in got.iter().enumerate() {
        let old = acknowledged.get(b).copied().unwrap_or(0);
        if (cut_start..cut_end).contains(&b) {
            let new = cut.data[b - cut_start];
            assert!(
                g == old || g == new,
                "cut write's byte {b}: {g}, neither old {old} nor new {new}"
            );
        } else {
            assert_eq!(g, old, "acknowledged byte {b}");
        }
    }
    let scrub = exaraid(&["store", "scrub", dir], b"");
    assert!(scrub.status.success(), "scrub: {scrub:?}");
}
