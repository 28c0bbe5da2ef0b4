//! Session 21 (s21e), s20d leftover: `remove` (and `put` over a name) of a file with bytes
//! still in the cache zone settles first (everything home with parity: the cache zone must
//! hold nothing of a removed file). That settle also moves other files' cached bytes home,
//! and where some could be neither read nor rebuilt it records them lost (as every settle
//! does) but said nothing: `remove` returned Ok with no warning, where `flush`, a due
//! timeout and the bound's settle name them.
//! Specification (issue #4: nothing acknowledged vanishes silently): the loss goes on record
//! and a warning (`close_with_warnings`) names the lost bytes.
//!
//! Scene: raid5 over 5 OSSs, 4 KiB unit, WCL, a long-lived `Store` with no background
//! worker (the cached bytes wait in the cache zone): `w` and then `a` written (5,000 bytes
//! each, cached); `w`'s cache stripe (the zone's first) rotten on two columns, more than
//! raid5 rebuilds.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use std::path::Path;

/// Flip one byte of the first cache element of OSSs 0 and 1: two columns of `w`'s cache
/// stripe (written first: the zone's first).
fn rot_two_columns_of_the_first_cache_stripe(dir: &Path) {
    for oss in [0, 1] {
        let path = dir
            .join(format!("oss-{oss}"))
            .join("objects")
            .join(format!("{}.cache", u64::MAX));
        let mut on_disk = std::fs::read(&path).unwrap();
        on_disk[100] ^= 0xff;
        std::fs::write(&path, on_disk).unwrap();
    }
}

#[test]
fn remove_whose_settle_finds_another_files_cached_bytes_rotten_warns_naming_the_lost_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = init(
        dir.path(),
        CodeSpec::raid5(4),
        5,
        exaraid_store::WritePath::Wcl,
    );
    store.write("w", 0, &pattern(1, 5000)).unwrap();
    store.write("a", 0, &pattern(2, 5000)).unwrap();
    rot_two_columns_of_the_first_cache_stripe(dir.path());
    assert!(
        store.status().unwrap().lost_ranges.is_empty(),
        "nothing read the rotten blocks yet"
    );

    store
        .remove("a")
        .expect("the removal goes on: the lost bytes are another file's");
    let lost = store.status().unwrap().lost_ranges;
    assert!(
        lost.iter().any(|l| l.file == "w"),
        "remove's settle moved `w`'s cached bytes home and recorded the rotten ones lost: {lost:?}"
    );
    let named: Vec<String> = lost
        .iter()
        .filter(|l| l.file == "w")
        .map(|l| {
            format!(
                "file 'w' bytes {}..{}",
                l.offset_bytes,
                l.offset_bytes + l.len_bytes
            )
        })
        .collect();
    let warnings = store.close_with_warnings().unwrap();
    for n in &named {
        assert!(
            warnings.iter().any(|w| w.contains(n.as_str())),
            "a warning names the lost bytes {n}: {warnings:?}"
        );
    }
}
