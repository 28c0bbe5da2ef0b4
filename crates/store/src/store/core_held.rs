//! Error paths of reads made while the caller holds the core lock (a settle reading the
//! cached ranges it moves home): they must take what they need from the held core, never
//! the lock again (it is not reentrant, so that would wait forever).

use super::*;
use std::sync::mpsc;
use std::time::Duration;

/// Long enough for a slow CI machine; a read that waits for its own lock never returns.
const HANG_TIMEOUT_S: u64 = 20;

/// A read of a home element whose block row is beyond the code's tolerance (both data
/// columns of a raid5 stripe rotten in their first block), made with the core lock held,
/// fails naming the lost file bytes instead of hanging on the lock for the file's name.
#[test]
fn a_lost_home_block_read_with_the_core_held_fails_naming_the_bytes_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 3, CodeSpec::raid5(2));
    opts.element_bytes = 4096;
    let store = Store::init(dir.path(), &opts).unwrap();
    let data: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
    store.put("f", &data).unwrap();
    // Rot in block 0 of every data element: row 0 has two unreadable columns, raid5 one.
    let mut rotten = 0;
    for i in 0..3 {
        for entry in std::fs::read_dir(dir.path().join(format!("oss-{i}/objects"))).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "data") {
                let mut bytes = std::fs::read(&path).unwrap();
                bytes[100] ^= 0xff;
                std::fs::write(&path, &bytes).unwrap();
                rotten += 1;
            }
        }
    }
    assert_eq!(rotten, 2, "one stripe: two data elements");
    let store = Arc::new(store);
    let (tx, rx) = mpsc::channel();
    let reader = Arc::clone(&store);
    std::thread::spawn(move || {
        let (file, _) = reader.file("f").unwrap();
        let core = reader.core.lock();
        let extents = core.strategy.lookup(file, 0, 4096).unwrap();
        let x = &extents[0];
        assert_eq!(x.zone, PlanZone::Data, "rmw: the bytes are home");
        let mut buf = vec![0u8; x.len_bytes as usize];
        let at = ElementRead::of_extent(file, x);
        let result = reader.read_range(Some(&core), at, &mut buf);
        tx.send(result.map_err(|e| e.to_string())).unwrap();
    });
    let result = rx
        .recv_timeout(Duration::from_secs(HANG_TIMEOUT_S))
        .unwrap_or_else(|_| {
            panic!("the read did not return in {HANG_TIMEOUT_S} s: it waits for the core lock its caller holds")
        });
    let err = result.expect_err("both data blocks of row 0 are rotten: beyond raid5");
    assert!(err.contains("file 'f' bytes 0..8192 are lost"), "{err}");
}
