//! Review s10 R10-1, the copies the command-line tests cannot make: a copy of the store's
//! metadata (state and journal) taken while the store is open, restored after more writes.
//! The metadata epoch is bumped before a session's first record, before the first record
//! after each checkpoint, and at the close of a session that wrote (`backend::MetadataEpoch`),
//! so such a copy is behind the OSSs once the session closed or checkpointed since.

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::{InitOptions, Store, WritePath};

const BEHIND: &str = "the store's state and journal are older than its OSS directories";

fn copy_metadata(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for name in ["state", "journal"] {
        let _ = std::fs::remove_file(to.join(name));
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

fn init(dir: &Path) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 4, CodeSpec::raid5(3));
    opts.element_bytes = 4096;
    opts.write_path = WritePath::Wcl;
    Store::init(dir, &opts).unwrap()
}

fn refused(dir: &Path) {
    let err = Store::open(dir).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains(BEHIND)),
        "{err:?}"
    );
}

/// The close of a session that wrote bumps the epoch: a copy taken during it is behind.
#[test]
fn a_copy_taken_while_open_is_refused_after_the_close() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir);
    store.put("f", &[1u8; 20_000]).unwrap();
    let hot = tmp.path().join("hot");
    copy_metadata(&dir, &hot);
    store.write("f", 4096, &[2u8; 5000]).unwrap();
    store.close().unwrap();
    let newest = tmp.path().join("newest");
    copy_metadata(&dir, &newest);
    copy_metadata(&hot, &dir);
    refused(&dir);
    copy_metadata(&newest, &dir);
    let store = Store::open(&dir).unwrap();
    let mut want = vec![1u8; 20_000];
    want[4096..9096].fill(2);
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}

/// A checkpoint followed by a record bumps the epoch: a copy taken before the checkpoint is
/// behind, also when the session then ends in a crash (no close).
#[test]
fn a_copy_taken_before_a_checkpoint_is_refused_after_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir);
    store.put("f", &[1u8; 20_000]).unwrap();
    let hot = tmp.path().join("hot");
    copy_metadata(&dir, &hot);
    store.checkpoint().unwrap();
    store.write("f", 4096, &[2u8; 5000]).unwrap();
    drop(store); // a crash: no close
    copy_metadata(&hot, &dir);
    refused(&dir);
}

/// Read-only sessions tell the OSSs nothing: a copy of the metadata stays good across them.
#[test]
fn sessions_that_only_read_keep_the_epoch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir);
    store.put("f", &[1u8; 20_000]).unwrap();
    store.close().unwrap();
    let copy = tmp.path().join("copy");
    copy_metadata(&dir, &copy);
    let epoch_file = dir.join("oss-0").join("exaraid-epoch.json");
    let told = std::fs::read(&epoch_file).unwrap();
    for _ in 0..3 {
        let store = Store::open(&dir).unwrap();
        assert!(store.get("f").unwrap() == vec![1u8; 20_000]);
        store.close().unwrap();
    }
    assert!(std::fs::read(&epoch_file).unwrap() == told);
    copy_metadata(&copy, &dir);
    Store::open(&dir).unwrap().close().unwrap();
}

/// Review of session 11's merge, item 7: an epoch file that cannot be read (an I/O error,
/// not its absence) was taken as "never told", so metadata behind every such OSS opened.
/// The open is refused instead, naming the file and what to do; readable again, it opens.
#[test]
fn an_unreadable_epoch_file_refuses_the_open_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let store = init(&dir);
    store.put("f", &[1u8; 20_000]).unwrap();
    store.close().unwrap();
    let epoch_file = dir.join("oss-1").join("exaraid-epoch.json");
    let told = std::fs::read(&epoch_file).unwrap();
    // A directory in its place: reading it fails (EISDIR), also for root.
    std::fs::remove_file(&epoch_file).unwrap();
    std::fs::create_dir(&epoch_file).unwrap();
    let err = Store::open(&dir).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(
            |e| e.contains(&epoch_file.display().to_string()) && e.contains("cannot be read")
        ),
        "{err:?}"
    );
    std::fs::remove_dir(&epoch_file).unwrap();
    std::fs::write(&epoch_file, &told).unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(store.get("f").unwrap() == vec![1u8; 20_000]);
    store.close().unwrap();
}
