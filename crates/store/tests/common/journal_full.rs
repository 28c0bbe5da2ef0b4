//! A full metadata disk under one journal append, in process (review s28r R28-1's scene,
//! moved here from `review_s28r_journal_append_refused.rs` for s29e's race scene): this
//! process's files cannot grow past a length (a soft RLIMIT_FSIZE, SIGXFSZ ignored: such a
//! write fails with EFBIG, as with ENOSPC), after the journal was made longer than every
//! zone file, so the OSS writes still have room and only the journal has none. The limit is
//! the whole process's: tests of one file take turns (`FILE_SIZE_LIMIT_TURN`).

use std::path::Path;
use std::sync::Mutex;

use crate::common::splitmix_bytes;
use exaraid_store::Store;

/// The limit is per process: tests of one file take turns.
pub static FILE_SIZE_LIMIT_TURN: Mutex<()> = Mutex::new(());

/// Puts and removals of another file, to make the journal longer than every zone file:
/// whole stripes of a 4+1 store of 4 KiB elements, which a WCL store writes home, not
/// cached (a settle of the cache zone would begin the journal anew).
pub const GROW_ROUNDS: usize = 60;
pub const GROW_FILE_BYTES: usize = 2 * 4 * 4096;
/// How much longer than every zone file the journal must be: more than one refused write's
/// OSS writes reach (its element or cache slots, a few 4 KiB slots in).
pub const JOURNAL_LONGER_BYTES: u64 = 32 << 10;

pub fn set_file_size_limit(bytes: u64) {
    // SAFETY: plain system calls on this process's own limits and signal disposition.
    unsafe {
        assert!(libc::signal(libc::SIGXFSZ, libc::SIG_IGN) != libc::SIG_ERR);
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit), 0);
        limit.rlim_cur = bytes.min(limit.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
}

pub fn lift_file_size_limit() {
    // SAFETY: as above; the soft limit goes back up to the hard one.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
}

pub fn largest_file_under(dir: &Path) -> u64 {
    let mut largest = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        largest = largest.max(if m.is_dir() {
            largest_file_under(&e.path())
        } else {
            m.len()
        });
    }
    largest
}

/// Puts and removals of file "x" until the journal of the store at `dir` is longer than
/// every zone file of its `oss_count` OSSs by `JOURNAL_LONGER_BYTES`; its length.
pub fn make_journal_longer_than_every_zone_file(
    store: &Store,
    dir: &Path,
    oss_count: usize,
) -> u64 {
    for i in 0..GROW_ROUNDS {
        store
            .put("x", &splitmix_bytes(100 + i as u64, GROW_FILE_BYTES))
            .unwrap();
        store.remove("x").unwrap();
    }
    let journal_bytes = std::fs::metadata(dir.join("journal")).unwrap().len();
    let zone_bytes_max = (0..oss_count)
        .map(|o| largest_file_under(&dir.join(format!("oss-{o}"))))
        .max()
        .unwrap();
    assert!(
        journal_bytes > zone_bytes_max + JOURNAL_LONGER_BYTES,
        "scene: the journal ({journal_bytes} bytes) is longer than every zone file ({zone_bytes_max}) by far"
    );
    journal_bytes
}
