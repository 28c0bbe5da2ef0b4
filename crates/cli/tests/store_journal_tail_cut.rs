//! A journal whose last record does not check out is cut at open (a store cut by a power
//! failure must open), but never silently (review s9r R9-3): that record may have been
//! fsync'd, then damaged, after its plan's OSS writes began, and the write it stood for is
//! then never recovered; its stripe may be left inconsistent. Every command warns (and
//! `status` shows it) until a scrub finds every stripe's parity matching or `--repair`
//! fixed it; after that, with one more OSS failed, every acknowledged byte reads.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

const CUT_WARNING: &str = "was damaged or torn by a power cut and was cut off";

fn copy_store(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp")
        .args(["-a", s(from), s(to)])
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {from:?} {to:?}");
}

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

/// The reviewer's scene (scripts/meta-sweep.py of branch s9r, `JOURNAL=1`): raid6 3+2 over
/// 5 OSSs, delayed path, a window open on f2 with bytes written, then `write f0` killed in
/// the middle of its home writes (here at a named kill point inside its k-th block write:
/// k=1 its data block torn, k=3 its data and P written, Q torn); then one bit of the
/// journal's last record (that write's) flipped: in its length field, its payload, its last
/// byte.
#[test]
fn a_damaged_last_journal_record_is_cut_with_a_warning_until_a_scrub_repairs_its_stripe() {
    let root = fast_tempdir("exaraid-tail-cut-");
    let pristine = root.path().join("pristine");
    let store = root.path().join("store");
    let d = s(&store);
    let f0 = bytes(1, 9000);
    let f2 = bytes(3, 23000);
    let window_bytes = bytes(4, 3000);
    let cut_write = bytes(5, 4000);
    for block in [1, 3] {
        let _ = std::fs::remove_dir_all(&store);
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
        copy_store(&store, &pristine);
        let journal = std::fs::read(pristine.join("journal")).unwrap();
        let start = last_record_start(&journal);
        let cut_bytes = journal.len() - start;
        for flip in [start, start + 8 + cut_bytes / 2, journal.len() - 1] {
            let case = format!("block {block}, bit flipped at journal byte {flip}");
            copy_store(&pristine, &store);
            let mut damaged = journal.clone();
            damaged[flip] ^= 1 << (flip % 8);
            std::fs::write(store.join("journal"), &damaged).unwrap();

            // Every command warns, saying where and how much was cut and what to do.
            let out = exaraid(&["store", "status", d], b"");
            assert!(out.status.success(), "{case}");
            let err = String::from_utf8_lossy(&out.stderr);
            let said = format!("at byte {start} ({cut_bytes} bytes)");
            assert!(
                err.contains(CUT_WARNING) && err.contains(&said),
                "{case}: {err}"
            );
            assert!(err.contains("exaraid store scrub") && err.contains("--repair"));
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("JOURNAL TAIL CUT:"), "{case}: {text}");
            let json = ok(&["store", "status", d, "--json"], b"");
            let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
            assert!(json["journal_tail_cut"].as_str().unwrap().contains(&said));
            let out = exaraid(&["store", "ls", d], b"");
            assert!(out.status.success());
            assert!(String::from_utf8_lossy(&out.stderr).contains(CUT_WARNING));
            // A scrub without --repair finds the torn stripe and leaves the warning.
            let out = exaraid(&["store", "scrub", d], b"");
            assert_eq!(out.status.code(), Some(2), "{case}");
            let out = exaraid(&["store", "status", d], b"");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(CUT_WARNING),
                "{case}"
            );

            // The repair fixes the stripe and clears the warning, for good.
            let repaired = String::from_utf8(ok(&["store", "scrub", d, "--repair"], b"")).unwrap();
            assert!(
                repaired.contains("journal tail cut: checked"),
                "{case}: {repaired}"
            );
            let out = exaraid(&["store", "status", d], b"");
            assert!(out.status.success());
            assert!(
                !String::from_utf8_lossy(&out.stderr).contains(CUT_WARNING)
                    && !String::from_utf8_lossy(&out.stdout).contains("JOURNAL TAIL CUT"),
                "{case}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            ok(&["store", "scrub", d], b""); // clean: exit 0

            // One more failed OSS, any of them: every acknowledged byte reads. The cut
            // write's range holds its old bytes or its new ones (it was never acknowledged).
            // Each case starts from the repaired store put back whole: a copy of the store
            // directory would name these same OSS directories (their paths are absolute),
            // and once its commands moved them on, this store's metadata is behind them
            // and refused (review s10 R10-1).
            let repaired_store = root.path().join("repaired");
            copy_store(&store, &repaired_store);
            let fd = d;
            for oss in 0..5 {
                copy_store(&repaired_store, &store);
                ok(&["store", "fail", fd, "--oss", &oss.to_string()], b"");
                let got = ok(&["store", "get", fd, "f0"], b"");
                assert_eq!(got.len(), f0.len(), "{case}, OSS {oss} failed");
                assert!(
                    got[4000..] == f0[4000..],
                    "{case}, OSS {oss} failed: acknowledged bytes of f0 differ"
                );
                assert!(
                    got[..4000] == f0[..4000] || got[..4000] == cut_write[..],
                    "{case}, OSS {oss} failed: the cut write's range is neither version"
                );
                // The open window's bytes have no parity yet: on the failed OSS they are
                // the documented window loss, named; every other byte of f2 reads.
                let out = exaraid(&["store", "get", fd, "f2"], b"");
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.stdout == f2_now
                        || (!out.status.success()
                            && err.contains("without parity: file 'f2' bytes 100..3100")),
                    "{case}, OSS {oss} failed: {err}"
                );
            }
        }
    }
}

/// The common case, a power cut that tore the record of a write before any of its OSS
/// writes (here: the write killed right after its first journal record, whose bytes are
/// then flipped): the open finds the cut, checks every stripe's parity by itself (a small
/// store), finds it matching and says so once; no warning stays.
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
    let flip = start + 8 + (journal.len() - start - 8) / 2;
    journal[flip] ^= 1 << (flip % 8);
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
