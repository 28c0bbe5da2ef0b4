//! L2: errors name a file by the name the user gave it, never by its internal id.

mod common;
use common::*;

/// The reviewer's case: raid5 WCL, cached bytes rotten in two columns of one cache stripe
/// (beyond what raid5 tolerates: the loss is right), and the error said "file id 0".
#[test]
fn a_cache_stripe_beyond_repair_is_named_by_its_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let d = s(&dir);
    init_store(d, &["--oss", "4", "--code", "raid5", "--write-path", "wcl"]);
    // Less than a stripe: it stays in the cache zone (WCL destages complete stripes).
    ok(&["store", "put", d, "c"], &bytes(3, 10_000));
    let cache = format!("{}.cache", u64::MAX);
    for oss in 0..2 {
        let path = dir.join(format!("oss-{oss}")).join("objects").join(&cache);
        let mut on_disk = std::fs::read(&path).unwrap();
        on_disk[100] ^= 0xff;
        std::fs::write(&path, on_disk).unwrap();
    }
    let err = fails(&["store", "get", d, "c"], b"");
    assert!(
        err.contains("file 'c' stripe 0") && !err.contains("file id"),
        "{err}"
    );
}
