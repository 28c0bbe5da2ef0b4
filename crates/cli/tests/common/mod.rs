//! Helpers shared by the `exaraid store` command-line tests: run the binary, check its exit.
#![allow(dead_code)] // each test file uses a different subset

pub mod torture_scene;
pub mod zone_slots;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `init` arguments of a code, the OSS count and write path left to the test (raid6's k
/// and the OSS count are init's defaults).
pub const RAID6: &[&str] = &["--code", "raid6"];
pub const RS_4_2: &[&str] = &["--code", "rs", "--k", "4", "--m", "2"];
pub const RS_4_3: &[&str] = &["--code", "rs", "--k", "4", "--m", "3"];
/// xcode p=5 over its 5 OSSs (the write path left to the test).
pub const XCODE: &[&str] = &["--oss", "5", "--code", "xcode", "--p", "5"];
/// WCL raid6 4+2 over 6 OSSs.
pub const RAID6_4_2_WCL: &[&str] = &[
    "--oss",
    "6",
    "--code",
    "raid6",
    "--k",
    "4",
    "--write-path",
    "wcl",
];
/// WCL raid6 4+2 striped over 9 OSSs.
pub const RAID6_4_2_WCL_OVER_9: &[&str] = &[
    "--oss",
    "9",
    "--code",
    "raid6",
    "--k",
    "4",
    "--write-path",
    "wcl",
];
/// WCL rs 4+2 over 6 OSSs.
pub const RS_4_2_WCL: &[&str] = &[
    "--oss",
    "6",
    "--code",
    "rs",
    "--k",
    "4",
    "--m",
    "2",
    "--write-path",
    "wcl",
];

pub fn exaraid(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    feed(&mut child, stdin);
    child.wait_with_output().unwrap()
}

/// Write `stdin` to the child and close it. A command that refuses before it reads its input
/// (a bad name, a put over an open window) closes the pipe first: not the test's failure,
/// the exit status tells.
fn feed(child: &mut std::process::Child, stdin: &[u8]) {
    match child.stdin.take().unwrap().write_all(stdin) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("writing the command's stdin: {e}"),
    }
}

pub fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = exaraid(args, stdin);
    assert!(
        out.status.success(),
        "exaraid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

pub fn fails(args: &[&str], stdin: &[u8]) -> String {
    let out = exaraid(args, stdin);
    assert!(!out.status.success(), "exaraid {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// `len` test bytes of `seed` with no structure (`random_bytes`). They were patterned,
/// `(i*31+seed) ^ (i>>8)`: periodic, so a wrong decode (through a stale parity, a block of
/// another row) could agree with the right bytes by chance (review s24r's R24-1 scene read
/// right with them). The same seed and length give the same bytes in every run, and a
/// shorter run of a seed is a prefix of a longer one.
pub fn bytes(seed: u8, len: usize) -> Vec<u8> {
    random_bytes(u64::from(seed), len)
}

/// `len` bytes of splitmix64 (Steele, Lea, Flood, OOPSLA 2014) from `seed`, one low byte a
/// step: deterministic and with no period a test's block sizes can meet.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run `exaraid args` with `stdin`, set to SIGKILL itself at `kill_at` (`point:n`, the n-th
/// pass of a store kill point, see `exaraid_store::torture`). `true`: it was killed there;
/// `false`: it finished first, successfully (it passed the point fewer than n times). Any
/// other failure fails the test.
pub fn killed_at(args: &[&str], stdin: &[u8], kill_at: &str) -> bool {
    killed_at_with(args, stdin, kill_at, &[])
}

/// `killed_at` with the kill test's environment variables `envs` set, for example
/// `torture::KILL_IN_PLAN_ORDER_ENV` (the plan's steps one at a time in plan order: the
/// `n`-th block write is then the same one in every run, whatever the machine's load).
pub fn killed_at_with(args: &[&str], stdin: &[u8], kill_at: &str, envs: &[&str]) -> bool {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_exaraid"));
    for env in envs {
        cmd.env(env, "1");
    }
    let mut child = cmd
        .args(args)
        .env(exaraid_store::torture::KILL_AT_ENV, kill_at)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command reads all of stdin before it writes anything: no kill before this ends.
    feed(&mut child, stdin);
    let out: Output = child.wait_with_output().unwrap();
    if out.status.success() {
        return false;
    }
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(9), // SIGKILL
        "exaraid {args:?} killed at {kill_at}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

/// The scene of s31c's and s32g's tests (a recovery's record of a partly filled WCL cache
/// stripe), laid in the store at `d` (`init` arguments `init`, 4 KiB unit): a put of one
/// 4 KiB element (`old`, column 0 of home stripe 0), a write of the next 4 KiB (`new`,
/// column 1) killed at its first block write (`write-page-cut:1`, plan order), then the
/// open's recovery (`store ls`) killed at `settle-before-block:recovery_kill_at` (plan
/// order). `name` names the code in a failure.
pub fn killed_recovery_of_a_cut_cache_write(
    d: &str,
    name: &str,
    init: &[&str],
    (old, new): (&[u8], &[u8]),
    recovery_kill_at: u32,
) {
    use exaraid_store::torture::{KILL_IN_PLAN_ORDER_ENV, SETTLE_BEFORE_BLOCK, WRITE_PAGE_CUT};
    const UNIT_BYTES: usize = 4096;
    assert!(old.len() == UNIT_BYTES && new.len() == UNIT_BYTES);
    init_store_unit(d, UNIT_BYTES as u64, init);
    ok(&["store", "put", d, "f"], old);
    let write = ["store", "write", d, "f", "--offset", "4096"];
    let write_kill = format!("{WRITE_PAGE_CUT}:1");
    assert!(
        killed_at_with(&write, new, &write_kill, &[KILL_IN_PLAN_ORDER_ENV]),
        "{name}: the write was not killed at {write_kill}"
    );
    let recovery_kill = format!("{SETTLE_BEFORE_BLOCK}:{recovery_kill_at}");
    assert!(
        killed_at_with(
            &["store", "ls", d],
            b"",
            &recovery_kill,
            &[KILL_IN_PLAN_ORDER_ENV]
        ),
        "{name}: the recovery was not killed at {recovery_kill}"
    );
}

/// Whether /dev/shm is a tmpfs with room for the tests' stores. A container's default /dev/shm
/// is 64 MiB, which a suite running several stores at once could fill (ENOSPC would read as a
/// store failure), so below `SHM_FREE_BYTES_MIN` the tests use the disk instead: slower
/// (every fsync real), never wrong. Asked once per test binary.
fn shm_has_room() -> bool {
    const SHM_FREE_BYTES_MIN: u64 = 1 << 30;
    static ROOM: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOM.get_or_init(|| {
        let out = std::process::Command::new("df")
            .args(["-k", "--output=avail", "/dev/shm"])
            .output();
        let free_kib = out.ok().filter(|o| o.status.success()).and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .nth(1)
                .and_then(|l| l.trim().parse::<u64>().ok())
        });
        free_kib.is_some_and(|kib| kib * 1024 >= SHM_FREE_BYTES_MIN)
    })
}

/// A temporary directory on tmpfs when there is one (fast fsync: crash sweeps run many
/// commands), else the default.
pub fn fast_tempdir(prefix: &str) -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && shm_has_room() {
        if let Ok(d) = tempfile::Builder::new().prefix(prefix).tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

/// `exaraid store init DIR --stripe-unit 4096 ARGS..` (the small unit every CLI test uses, so
/// a few KiB touch many stripes); fails the test if init fails.
pub fn init_store(dir: &str, args: &[&str]) {
    init_store_unit(dir, 4096, args);
}

/// `init_store` with another stripe unit (tests that move many MiB use larger elements).
pub fn init_store_unit(dir: &str, unit_bytes: u64, args: &[&str]) {
    let unit = unit_bytes.to_string();
    let mut all = vec!["store", "init", dir, "--stripe-unit", unit.as_str()];
    all.extend_from_slice(args);
    ok(&all, b"");
}

/// Run the CLI under `prlimit --as=cap_bytes` (an address-space cap), stdout into `out` (a
/// file, not memory of this test).
pub fn capped_at(cap_bytes: u64, args: &[&str], stdin: &[u8], out: &Path) -> Output {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={cap_bytes}"))
        .arg(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) runs the CLI under a memory cap");
    // A command that fails early closes its stdin: its exit status tells.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// `capped_at` that must succeed; returns what the command wrote to `out`.
pub fn capped_ok_at(cap_bytes: u64, args: &[&str], stdin: &[u8], out: &Path) -> Vec<u8> {
    let o = capped_at(cap_bytes, args, stdin, out);
    assert!(
        o.status.success(),
        "exaraid {args:?} under a {cap_bytes}-byte cap: {}, {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read(out).unwrap()
}

/// An OSS directory's mount dropped: `DIR/oss-I` moved to `DIR/away` (one at a time).
pub fn oss_away(dir: &Path, oss: usize) {
    std::fs::rename(dir.join(format!("oss-{oss}")), dir.join("away")).unwrap();
}

/// The mount back: `DIR/away` moved back to `DIR/oss-I`.
pub fn oss_back(dir: &Path, oss: usize) {
    std::fs::rename(dir.join("away"), dir.join(format!("oss-{oss}"))).unwrap();
}

/// A file that does not read whole: every byte outside its lost ranges on record (`status
/// --json`) still reads its acknowledged bytes `acked` (one `read` per gap between losses),
/// or where `cut` is given (the file's bytes had a write a crash cut finished) each byte
/// may be `cut`'s instead. A loss is no licence for wrong bytes beside it.
pub fn reads_right_outside_its_losses(
    d: &str,
    name: &str,
    acked: &[u8],
    cut: Option<&[u8]>,
    what: &str,
) {
    assert!(cut.is_none_or(|c| c.len() == acked.len()), "{what}: {name}");
    let status: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    let mut losses: Vec<(usize, usize)> = status["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["file"] == name)
        .map(|l| {
            let o = l["offset_bytes"].as_u64().unwrap() as usize;
            (o, o + l["len_bytes"].as_u64().unwrap() as usize)
        })
        .collect();
    assert!(
        !losses.is_empty(),
        "{what}: {name} refused with no loss on record"
    );
    losses.sort();
    let mut gaps = Vec::new();
    let mut at = 0;
    for &(a, z) in &losses {
        if at < a {
            gaps.push((at, a.min(acked.len())));
        }
        at = at.max(z);
    }
    if at < acked.len() {
        gaps.push((at, acked.len()));
    }
    for (a, z) in gaps.into_iter().filter(|(a, z)| a < z) {
        let (offset, len) = (a.to_string(), (z - a).to_string());
        let got = ok(
            &[
                "store", "read", d, name, "--offset", &offset, "--length", &len,
            ],
            b"",
        );
        let wrong = (a..z)
            .filter(|&i| got.get(i - a) != Some(&acked[i]))
            .filter(|&i| cut.is_none_or(|c| got.get(i - a) != Some(&c[i])))
            .count();
        assert!(
            got.len() == z - a && wrong == 0,
            "{what}: {name} bytes {a}..{z} (outside its losses {losses:?}) read {wrong} wrong bytes"
        );
    }
}

/// After a crash: `get` of file `f` in the store `dir` must succeed with bytes `check`
/// accepts (`Some(why)` where they are wrong), then `scrub` must exit 0. The first problem
/// found, named with `what`; `None` where there is none.
pub fn get_then_scrub_problem(
    dir: &str,
    what: &str,
    check: &dyn Fn(&[u8]) -> Option<String>,
) -> Option<String> {
    let got = exaraid(&["store", "get", dir, "f"], b"");
    if !got.status.success() {
        return Some(format!(
            "{what}: get failed: {}",
            String::from_utf8_lossy(&got.stderr)
        ));
    }
    if let Some(wrong) = check(&got.stdout) {
        return Some(format!("{what}: {wrong}"));
    }
    let scrub = exaraid(&["store", "scrub", dir], b"");
    (!scrub.status.success()).then(|| {
        format!(
            "{what}: scrub exit {:?}: {}",
            scrub.status.code(),
            String::from_utf8_lossy(&scrub.stdout)
        )
    })
}

/// Build the EIO shim (scripts/eioshim.c) into `dir`; `None` where no C compiler is found
/// (the test says so).
pub fn build_shim(dir: &Path) -> Option<std::path::PathBuf> {
    build_c_shim(dir, "eioshim")
}

/// Build the LD_PRELOAD shim scripts/`name`.c into `dir`; `None` where no C compiler is
/// found (the test says so).
pub fn build_c_shim(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scripts/{name}.c"));
    let stem = Path::new(name)
        .file_name()
        .expect("a shim name")
        .to_string_lossy();
    let out = dir.join(format!("{stem}.so"));
    let status = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .arg("-ldl")
        .status()
        .ok()?;
    status.success().then_some(out)
}

/// Lay `data` over `base` at `offset`, growing it with zeros (a model of `write --offset`).
pub fn put_over(base: &mut Vec<u8>, offset: usize, data: &[u8]) {
    if base.len() < offset + data.len() {
        base.resize(offset + data.len(), 0);
    }
    base[offset..offset + data.len()].copy_from_slice(data);
}

/// `cp -a FROM TO`, TO removed first (a store's image, copied back between kill points).
pub fn copy_store(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp")
        .args(["-a", s(from), s(to)])
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {from:?} {to:?}");
}

/// Run `command` with its files limited to `fsize_bytes` (RLIMIT_FSIZE, as `ulimit -f`
/// sets it) and SIGXFSZ at its default disposition, as a shell leaves it (whatever the test
/// runner inherited: CI may run it under `trap '' XFSZ`).
pub fn output_under_file_size_limit(mut command: Command, fsize_bytes: u64) -> Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only two async-signal-safe system calls run.
    unsafe {
        command.pre_exec(move || {
            if libc::signal(libc::SIGXFSZ, libc::SIG_DFL) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
            let limit = libc::rlimit {
                rlim_cur: fsize_bytes,
                rlim_max: fsize_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
        .output()
        .expect("the CLI runs under a file-size limit")
}

/// A tmpfs of a given size mounted at a directory (a small disk to fill), unmounted when
/// dropped. Mounting needs root: `mount` returns `None` where it is not permitted.
pub struct Tmpfs(pub std::path::PathBuf);

impl Tmpfs {
    pub fn mount(at: &Path, size_bytes: u64) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let size = format!("size={size_bytes}");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &size, "tmpfs", s(at)])
            .output()
            .is_ok_and(|o| o.status.success());
        mounted.then(|| Tmpfs(at.to_path_buf()))
    }

    /// Fill the file system to 0 bytes free, with a file whose blocks are allocated
    /// (`posix_fallocate`): what the store writes next into room it has not allocated
    /// before fails ENOSPC, as on a disk that filled up.
    pub fn fill(&self) {
        use std::os::fd::AsRawFd;
        let filler = std::fs::File::create(self.filler()).unwrap();
        let free = free_bytes(&self.0);
        assert!(
            free > 0,
            "{}: no bytes free before the filler",
            self.0.display()
        );
        let len = free as libc::off_t;
        // SAFETY: a plain call on an open descriptor.
        let rc = unsafe { libc::posix_fallocate(filler.as_raw_fd(), 0, len) };
        assert_eq!(
            rc,
            0,
            "posix_fallocate of the filler on {}",
            self.0.display()
        );
        let left = free_bytes(&self.0);
        assert_eq!(left, 0, "{}: {left} bytes still free", self.0.display());
    }

    /// Room back: the filler removed.
    pub fn unfill(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }

    fn filler(&self) -> std::path::PathBuf {
        self.0.join("filler")
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

pub fn free_bytes(at: &Path) -> u64 {
    let c = std::ffi::CString::new(s(at)).unwrap();
    // SAFETY: statvfs fills the zeroed struct; the path is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
    st.f_bavail as u64 * st.f_frsize as u64
}

/// For a test that needs `Tmpfs` where mounting is not permitted.
pub fn tmpfs_skipped() {
    eprintln!("SKIPPED: mounting a tmpfs is not permitted here (needs root)");
}

/// The payloads (JSON) of the records of the store's journal at `dir`, in order (frames:
/// length u32 LE, crc32c u32, payload); a torn last record cut to what is there.
pub fn journal_records(dir: &Path) -> Vec<String> {
    let journal = std::fs::read(dir.join("journal")).unwrap_or_default();
    let mut at = 0usize;
    let mut records = Vec::new();
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        let end = (at + 8 + len).min(journal.len());
        records.push(String::from_utf8_lossy(&journal[at + 8..end]).to_string());
        at = end;
    }
    records
}
