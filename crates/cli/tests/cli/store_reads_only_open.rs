//! The read-only open from the command line (review s4e E6; OPEN 4 and 6 of session 8): a
//! write is killed half way (a plan the crash cut), and while one OSS refuses every write
//! (`scripts/eioshim.c`, `FAILWRITESUNDER`: a disk whose writes fail, reads work) the
//! recovery's settle cannot finish. Before session 9 every command failed then, `get` and
//! `status` too, for as long as the cause lasted. Now the store opens for reads only: a
//! stripe no cut write touched reads right, a read of the cut write's stripe is refused
//! naming it, every change is refused with the cause and what to do; once the disk takes
//! writes again the next command finishes recovery and every acknowledged byte reads.

use crate::common;

use common::*;
use std::path::PathBuf;
use std::process::{Command, Output};

/// A store at `dir` (in a scratch directory that lives as long as this) whose OSS 2 can be
/// made to refuse every write and sync (EIO) while reads work.
struct Scene {
    _tmp: tempfile::TempDir,
    shim: PathBuf,
    dir: PathBuf,
    /// What refuses writes under the shim: OSS 2's objects.
    refusing: PathBuf,
}

impl Scene {
    fn new(prefix: &str) -> Scene {
        let tmp = fast_tempdir(prefix);
        let Some(shim) = build_shim(tmp.path()) else {
            panic!("no C compiler (cc) to build scripts/eioshim.c: install gcc (scripts/setup.sh)");
        };
        let dir = tmp.path().join("store");
        let refusing = dir.join("oss-2").join("objects");
        Scene {
            _tmp: tmp,
            shim,
            dir,
            refusing,
        }
    }

    /// `exaraid args` with every write and sync under `refusing` failing (EIO).
    fn with_writes_failing(&self, args: &[&str], stdin: &[u8]) -> Output {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
            .args(args)
            .env("LD_PRELOAD", &self.shim)
            .env("FAILWRITESUNDER", &self.refusing)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    /// A read of `file` that needs its stripe 0 (undecided: the cut write's) is refused,
    /// naming the stripe.
    fn get_is_refused_naming_stripe_0(&self, file: &str) {
        let got = self.with_writes_failing(&["store", "get", s(&self.dir), file], b"");
        assert!(
            !got.status.success(),
            "get {file} (its stripe 0 undecided) is refused"
        );
        let why = text(&got);
        assert!(
            why.contains("stripe 0") && why.contains("nothing was read"),
            "the refusal names the stripe and says nothing was read: {why}"
        );
    }

    /// A write to `file` is refused with the cause and what to do; returns what it said.
    fn write_is_refused_with_the_cause(&self, file: &str) -> String {
        let got = self.with_writes_failing(
            &["store", "write", s(&self.dir), file, "--offset", "0"],
            b"xyz",
        );
        assert!(!got.status.success(), "a write while open for reads only");
        let why = text(&got);
        for said in [
            "open for reads only",
            "this change was refused, nothing was done",
            "Fix the cause",
            "oss-2",
        ] {
            assert!(why.contains(said), "the refusal says {said:?}: {why}");
        }
        why
    }
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_crash_cut_write_whose_recovery_cannot_finish_opens_for_reads_only() {
    let scene = Scene::new("readsonlyopen");
    let d = s(&scene.dir);
    // raid5 4+1, 4 KiB units: 16 KiB of data per stripe.
    init_store(d, &["--oss", "5", "--code", "raid5", "--write-path", "rmw"]);
    let sdb = 4 * 4096;
    let f1 = bytes(1, 3 * sdb);
    let f2 = bytes(2, 2 * sdb);
    ok(&["store", "put", d, "f1"], &f1);
    ok(&["store", "put", d, "f2"], &f2);

    // A write into f1's stripe 0, killed inside its second block write: a cut plan.
    let new = bytes(3, 9000);
    assert!(
        killed_at(
            &["store", "write", d, "f1", "--offset", "0"],
            &new,
            "write-torn-block:2"
        ),
        "the write reached its second block write"
    );

    // OSS 2 refuses every write from now on: recovery's settle (which rewrites every
    // element of f1's stripe 0) cannot finish.
    let got = scene.with_writes_failing(&["store", "get", d, "f2"], b"");
    assert!(
        got.status.success(),
        "get of a file the cut write never touched, while recovery cannot finish: {}",
        text(&got)
    );
    assert!(got.stdout == f2, "f2 reads right");
    assert!(
        text(&got).contains("open for reads only"),
        "get warns that the store is open for reads only: {}",
        text(&got)
    );
    // f1 beyond the cut write's stripe reads; its stripe 0 is refused, naming it.
    let (off, len) = (sdb.to_string(), (2 * sdb).to_string());
    let read = ["store", "read", d, "f1", "--offset", &off, "--length", &len];
    let got = scene.with_writes_failing(&read, b"");
    assert!(
        got.status.success(),
        "read of f1 stripes 1-2: {}",
        text(&got)
    );
    assert!(got.stdout == f1[sdb..], "f1 stripes 1-2 read right");
    scene.get_is_refused_naming_stripe_0("f1");
    // Every change is refused with the cause and what to do.
    scene.write_is_refused_with_the_cause("f2");
    let got = scene.with_writes_failing(&["store", "status", d], b"");
    assert!(
        String::from_utf8_lossy(&got.stdout).contains("reads only")
            || text(&got).contains("reads only"),
        "status shows the pending recovery: {}{}",
        String::from_utf8_lossy(&got.stdout),
        text(&got)
    );

    // The disk takes writes again: the next command finishes recovery.
    let got = ok(&["store", "get", d, "f1"], b"");
    assert_eq!(got.len(), f1.len());
    // The cut write was never acknowledged: each of its bytes reads old or new.
    for (i, &b) in got.iter().enumerate() {
        let new_here = (i < new.len()).then(|| new[i]);
        assert!(
            b == f1[i] || Some(b) == new_here,
            "f1 byte {i}: {b} is neither the old nor the cut write's byte"
        );
    }
    assert!(
        ok(&["store", "get", d, "f2"], b"") == f2,
        "f2 after recovery"
    );
    ok(&["store", "write", d, "f2", "--offset", "0"], b"xyz");
    let mut f2 = f2;
    f2[..3].copy_from_slice(b"xyz");
    assert!(
        ok(&["store", "get", d, "f2"], b"") == f2,
        "f2 after a write"
    );
    ok(&["store", "scrub", d], b"");
}

/// The same on a WCL store (review s9s S9-4): recovery decides the cut write's cache stripes
/// (their running parity rewritten) before its settle begins, and a disk refusing those
/// writes failed every open, `get` of files the cut write never touched too, with the
/// backend's "reads fall back to parity" that did not happen. Now recovery breaking there
/// opens for reads only as well: the untouched files read, the cut file's stripes are
/// refused naming them, every change is refused once, with the cause and what to do.
#[test]
fn wcl_a_crash_cut_write_whose_recovery_breaks_before_its_settle_opens_for_reads_only() {
    let scene = Scene::new("readsonlywcl");
    let d = s(&scene.dir);
    // raid6 4+2, 4 KiB units: 16 KiB of data per stripe.
    init_store(d, &["--oss", "6", "--code", "raid6", "--write-path", "wcl"]);
    let sdb = 4 * 4096;
    let mut files: Vec<Vec<u8>> = (0..3u8).map(|i| bytes(10 + i, 4 * sdb - 100)).collect();
    for (i, f) in files.iter().enumerate() {
        ok(&["store", "put", d, &format!("f{i}")], f);
    }
    // Cached bytes in f0 and f2 (WCL: they wait in the cache zone under running parity).
    for (i, offset) in [(0usize, 5000usize), (2, 100)] {
        let new = bytes(20 + i as u8, 7000);
        ok(
            &[
                "store",
                "write",
                d,
                &format!("f{i}"),
                "--offset",
                &offset.to_string(),
            ],
            &new,
        );
        put_over(&mut files[i], offset, &new);
    }
    // A write over f1's stripes 0-2, killed inside its second block write: a cut plan.
    let (cut_at, cut) = (10_000usize, bytes(30, 30_000));
    assert!(
        killed_at(
            &["store", "write", d, "f1", "--offset", &cut_at.to_string()],
            &cut,
            "write-torn-block:2"
        ),
        "the write reached its second block write"
    );

    for i in [0usize, 2] {
        let got = scene.with_writes_failing(&["store", "get", d, &format!("f{i}")], b"");
        assert!(
            got.status.success(),
            "get f{i} (the cut write never touched it) while recovery cannot finish: {}",
            text(&got)
        );
        assert!(got.stdout == files[i], "f{i} reads right");
        let warned = text(&got);
        assert!(
            warned.contains("open for reads only"),
            "get warns that the store is open for reads only: {warned}"
        );
        assert!(
            !warned.contains("reads fall back to parity"),
            "no decode from parity happened, none is claimed: {warned}"
        );
    }
    // f1's last stripe (bytes 49152..) is beyond the cut write (10000..40000): it reads.
    let (off, len) = ((3 * sdb).to_string(), (sdb - 100).to_string());
    let read = ["store", "read", d, "f1", "--offset", &off, "--length", &len];
    let got = scene.with_writes_failing(&read, b"");
    assert!(got.status.success(), "read of f1 stripe 3: {}", text(&got));
    assert!(got.stdout == files[1][3 * sdb..], "f1 stripe 3 reads right");
    // Stripes 0-2 undecided: the refusal names the first.
    scene.get_is_refused_naming_stripe_0("f1");
    let why = scene.write_is_refused_with_the_cause("f0");
    assert_eq!(
        why.matches("open for reads only").count(),
        1,
        "the refusal is said once: {why}"
    );
    // `status` names the pending recovery once (not again as a warning at close), and
    // that reads do not wait for it.
    let got = scene.with_writes_failing(&["store", "status", d], b"");
    let said = format!("{}{}", String::from_utf8_lossy(&got.stdout), text(&got));
    assert!(
        said.contains("RECOVERY PENDING (reads work") && said.matches("reads only").count() == 1,
        "status shows the pending recovery once: {said}"
    );
    // A verify-only scrub is served; the cut stripes' parity is not compared (undecided).
    let got = scene.with_writes_failing(&["store", "scrub", d], b"");
    let said = String::from_utf8_lossy(&got.stdout);
    assert!(
        said.contains("not compared: file 'f1' stripe 0") && said.contains("parity mismatches: 0"),
        "scrub while open for reads only: {said}{}",
        text(&got)
    );

    // The disk takes writes again: the next command finishes recovery.
    let got = ok(&["store", "get", d, "f1"], b"");
    assert_eq!(got.len(), files[1].len());
    for (i, &b) in got.iter().enumerate() {
        let new_here = (cut_at..cut_at + cut.len())
            .contains(&i)
            .then(|| cut[i - cut_at]);
        assert!(
            b == files[1][i] || Some(b) == new_here,
            "f1 byte {i}: {b} is neither the old nor the cut write's byte"
        );
    }
    for i in [0usize, 2] {
        assert!(
            ok(&["store", "get", d, &format!("f{i}")], b"") == files[i],
            "f{i} after recovery"
        );
    }
    ok(&["store", "write", d, "f0", "--offset", "0"], b"xyz");
    put_over(&mut files[0], 0, b"xyz");
    assert!(
        ok(&["store", "get", d, "f0"], b"") == files[0],
        "f0 after a write"
    );
    ok(&["store", "scrub", d], b"");
}
