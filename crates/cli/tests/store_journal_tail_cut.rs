//! A journal whose last record does not check out is cut at open (a store cut by a power
//! failure must open), but never silently (review s9r R9-3): that record may have been
//! fsync'd, then damaged, after its plan's OSS writes began, and the write it stood for is
//! then never recovered; its stripe may be left inconsistent. Every command warns (and
//! `status` shows it) until a scrub finds every stripe's parity matching or `--repair`
//! fixed it; after that, with one more OSS failed, every acknowledged byte reads.

mod common;

use common::*;

const CUT_WARNING: &str = "was damaged or torn by a power cut and was cut off";
/// The warning of a whole record damaged (not a torn append: review s12r R12-1), which no
/// parity check ends: the operator's `scrub --accept-journal-damage` does.
const DAMAGE_WARNING: &str = "was whole and damaged after it was written";
/// The part of the warning that a scrub of the parity ends.
const PARITY_WARNING: &str = "until a scrub finds every stripe's parity matching";

/// Byte offset of the journal's last record (records: length u32 LE, crc u32 LE, payload).
fn last_record_start(journal: &[u8]) -> usize {
    let mut at = 0usize;
    let mut last = None;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        last = Some(at);
        at += 8 + len;
    }
    assert_eq!(at, journal.len(), "the test's journal ends on a record");
    last.expect("the killed write left a record")
}

/// The cut write's last record is its crcs (`WriteCrcs`, appended unsynced after its input
/// on codes of two or more parities since session 21): a power cut may lose that append
/// and keep the input before it. Dropped here, so that the write's input is the journal's
/// last record, the one the scene damages (as before session 21).
fn drop_write_crcs_after_the_write(journal: &std::path::Path) {
    let mut bytes = std::fs::read(journal).unwrap();
    let start = last_record_start(&bytes);
    let env: serde_json::Value = serde_json::from_slice(&bytes[start + 8..]).unwrap();
    if env["rec"].get("WriteCrcs").is_some() {
        bytes.truncate(start);
        std::fs::write(journal, &bytes).unwrap();
    }
}

/// The reviewer's scene (scripts/meta-sweep.py of branch s9r, `JOURNAL=1`): raid6 3+2 over
/// 5 OSSs, delayed path, a window open on f2 with bytes written, then `write f0` killed in
/// the middle of its home writes (here at a named kill point inside its k-th block write:
/// k=1 its data block torn, k=3 its data and P written, Q torn); then one bit of the
/// journal's last record (that write's) flipped: in its length field, its payload, its last
/// byte. `away`: OSS `away` is missing (a mount not back) for the first commands.
struct CutScene {
    root: tempfile::TempDir,
    store: std::path::PathBuf,
    pristine: std::path::PathBuf,
    f0: Vec<u8>,
    f2_now: Vec<u8>,
    cut_write: Vec<u8>,
}

fn cut_scene(block: usize) -> CutScene {
    let root = fast_tempdir("exaraid-tail-cut-");
    let pristine = root.path().join("pristine");
    let store = root.path().join("store");
    let d = s(&store);
    let f0 = bytes(1, 9000);
    let f2 = bytes(3, 23000);
    let window_bytes = bytes(4, 3000);
    let cut_write = bytes(5, 4000);
    init_store(
        d,
        &["--oss", "5", "--code", "raid6", "--write-path", "delayed"],
    );
    ok(&["store", "put", d, "f0"], &f0);
    ok(&["store", "put", d, "f2"], &f2);
    let token = String::from_utf8(ok(&["store", "delayed", "start", d, "f2"], b"")).unwrap();
    assert!(!token.trim().is_empty());
    ok(
        &["store", "write", d, "f2", "--offset", "100"],
        &window_bytes,
    );
    let mut f2_now = f2.clone();
    f2_now[100..3100].copy_from_slice(&window_bytes);
    let killed = killed_at(
        &["store", "write", d, "f0", "--offset", "0"],
        &cut_write,
        &format!("write-torn-block:{block}"),
    );
    assert!(killed, "block {block}: the write was cut");
    drop_write_crcs_after_the_write(&store.join("journal"));
    copy_store(&store, &pristine);
    CutScene {
        root,
        store,
        pristine,
        f0,
        f2_now,
        cut_write,
    }
}

impl CutScene {
    /// The pristine image back, with one bit of the journal's last record flipped at
    /// `flip`. Returns where that record starts and how long it is.
    fn damage(&self, flip_at: impl Fn(usize, usize) -> usize) -> (usize, usize) {
        let journal = std::fs::read(self.pristine.join("journal")).unwrap();
        let start = last_record_start(&journal);
        let cut_bytes = journal.len() - start;
        let flip = flip_at(start, journal.len());
        copy_store(&self.pristine, &self.store);
        let mut damaged = journal.clone();
        damaged[flip] ^= 1 << (flip % 8);
        std::fs::write(self.store.join("journal"), &damaged).unwrap();
        (start, cut_bytes)
    }

    /// One more failed OSS, any of them: every acknowledged byte reads. The cut write's
    /// range holds its old bytes or its new ones (it was never acknowledged).
    fn every_byte_reads_with_one_more_failure(&self, case: &str) {
        // Each case starts from this store put back whole: a copy of the store directory
        // would name these same OSS directories (their paths are absolute), and once its
        // commands moved them on, this store's metadata is behind them and refused (the
        // metadata epoch, review s10 R10-1).
        let repaired = self.root.path().join("repaired");
        copy_store(&self.store, &repaired);
        let fd = s(&self.store);
        for oss in 0..5 {
            copy_store(&repaired, &self.store);
            ok(&["store", "fail", fd, "--oss", &oss.to_string()], b"");
            let got = ok(&["store", "get", fd, "f0"], b"");
            assert_eq!(got.len(), self.f0.len(), "{case}, OSS {oss} failed");
            assert!(
                got[4000..] == self.f0[4000..],
                "{case}, OSS {oss} failed: acknowledged bytes of f0 differ"
            );
            assert!(
                got[..4000] == self.f0[..4000] || got[..4000] == self.cut_write[..],
                "{case}, OSS {oss} failed: the cut write's range is neither version"
            );
            // The open window's bytes have no parity yet: on the failed OSS they are
            // the documented window loss, named; every other byte of f2 reads.
            let out = exaraid(&["store", "get", fd, "f2"], b"");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.stdout == self.f2_now
                    || (!out.status.success()
                        && err.contains("without parity: file 'f2' bytes 100..3100")),
                "{case}, OSS {oss} failed: {err}"
            );
        }
    }
}

/// Every OSS up: the open that cuts the record scrubs the store and repairs the cut
/// write's stripe by itself (review R10-5: before, it only checked, and a failure before
/// the user's `scrub --repair` decoded through the stale parity), says so once, and no
/// parity warning stays; then any one more failure leaves every acknowledged byte readable.
/// The record was whole and damaged, so the damage warning stays (status, every command)
/// until `scrub --accept-journal-damage` (review s12r R12-1).
#[test]
fn a_damaged_last_journal_record_is_cut_and_the_open_repairs_its_stripe() {
    for block in [1, 3] {
        let scene = cut_scene(block);
        let d = s(&scene.store);
        for which in 0..3 {
            let (start, _) = scene.damage(|start, len| match which {
                0 => start,
                1 => start + 8 + (len - start - 8) / 2,
                _ => len - 1,
            });
            let case = format!("block {block}, bit flipped at journal byte {which} of {start}");
            let out = exaraid(&["store", "status", d], b"");
            assert!(out.status.success(), "{case}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(CUT_WARNING)
                    && err.contains("the open checked every stripe's parity")
                    && err.contains("repaired"),
                "{case}: {err}"
            );
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("JOURNAL TAIL CUT:") && text.contains(DAMAGE_WARNING));
            let out = exaraid(&["store", "ls", d], b"");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success()
                    && err.contains(DAMAGE_WARNING)
                    && !err.contains(PARITY_WARNING)
                    && !err.contains("the open checked"),
                "{case}: the parity part said once, the damage every time: {err}"
            );
            ok(&["store", "scrub", d], b""); // clean: exit 0
            let out = exaraid(&["store", "ls", d], b"");
            assert!(String::from_utf8_lossy(&out.stderr).contains(DAMAGE_WARNING));
            let said = ok(&["store", "scrub", d, "--accept-journal-damage"], b"");
            assert!(String::from_utf8_lossy(&said).contains("1 damaged records accepted"));
            let out = exaraid(&["store", "ls", d], b"");
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{case}: accepted"
            );
            scene.every_byte_reads_with_one_more_failure(&case);
        }
    }
}

/// An OSS missing at the open that cuts the record: nothing can check the parity, so every
/// command warns (and `status` shows it), saying where and how much was cut and what to
/// do; a scrub cannot clear it. With the OSS back, the next open repairs by itself.
#[test]
fn with_an_oss_missing_the_cut_warns_until_the_open_can_repair() {
    let scene = cut_scene(3);
    let d = s(&scene.store);
    let (start, cut_bytes) = scene.damage(|start, len| start + 8 + (len - start - 8) / 2);
    let oss_dir = scene.store.join("oss-4");
    let away = scene.root.path().join("oss-4-away");
    std::fs::rename(&oss_dir, &away).unwrap();
    std::fs::create_dir(&oss_dir).unwrap();

    let out = exaraid(&["store", "status", d], b"");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let said = format!("at byte {start} ({cut_bytes} bytes)");
    assert!(err.contains(CUT_WARNING) && err.contains(&said), "{err}");
    assert!(err.contains("exaraid store scrub") && err.contains("--repair"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("JOURNAL TAIL CUT:"), "{text}");
    let json = ok(&["store", "status", d, "--json"], b"");
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(json["journal_tail_cut"].as_str().unwrap().contains(&said));
    let out = exaraid(&["store", "ls", d], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(CUT_WARNING));
    // A scrub with an OSS missing checks nothing of its columns: the warning stays.
    let out = exaraid(&["store", "scrub", d], b"");
    assert_ne!(out.status.code(), Some(0));
    let out = exaraid(&["store", "status", d], b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains(CUT_WARNING));

    // The mount is back: the next open repairs, once, for good.
    std::fs::remove_dir(&oss_dir).unwrap();
    std::fs::rename(&away, &oss_dir).unwrap();
    let out = exaraid(&["store", "status", d], b"");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the open checked every stripe's parity"),
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains(PARITY_WARNING) && text.contains(DAMAGE_WARNING),
        "{text}"
    );
    let out = exaraid(&["store", "status", d], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains(PARITY_WARNING) && err.contains(DAMAGE_WARNING),
        "{err}"
    );
    ok(&["store", "scrub", d], b"");
    scene.every_byte_reads_with_one_more_failure("OSS 4 missing first");
}

/// The common case, a power cut that tore the record of a write before any of its OSS
/// writes (here: the write killed right after its first journal record, whose second half
/// then reads as zeros, pages that never reached the disk): the open finds the cut, checks
/// every stripe's parity by itself (a small store), finds it matching and says so once; no
/// warning stays.
#[test]
fn a_cut_record_whose_write_never_began_is_checked_by_the_open_itself() {
    let root = fast_tempdir("exaraid-tail-cut-");
    let store = root.path().join("store");
    let d = s(&store);
    let f0 = bytes(1, 9000);
    init_store(
        d,
        &["--oss", "5", "--code", "raid6", "--write-path", "delayed"],
    );
    ok(&["store", "put", d, "f0"], &f0);
    let killed = killed_at(
        &["store", "write", d, "f0", "--offset", "0"],
        &bytes(5, 4000),
        "journal-record:1",
    );
    assert!(killed, "the write was cut after its first record");
    let mut journal = std::fs::read(store.join("journal")).unwrap();
    let start = last_record_start(&journal);
    let torn_from = start + 8 + (journal.len() - start - 8) / 2;
    let end = journal.len();
    journal[torn_from..end].fill(0);
    std::fs::write(store.join("journal"), &journal).unwrap();

    let out = exaraid(&["store", "status", d], b"");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the open checked every stripe's parity") && err.contains("nothing to do"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("JOURNAL TAIL CUT"));
    let out = exaraid(&["store", "status", d], b"");
    assert!(
        out.stderr.is_empty(),
        "said once: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(ok(&["store", "get", d, "f0"], b""), f0);
}
