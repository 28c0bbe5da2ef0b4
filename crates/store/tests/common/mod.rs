#![allow(dead_code)]
//! Helpers shared by the store's integration tests.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use exaraid_codes::{Cell, CodeKind, CodeSpec, Pos};
use exaraid_store::{InitOptions, Store, StoreError, WritePath};

/// Small stripe unit so tests touch many stripes with few bytes.
pub const UNIT: usize = 4096;

pub fn init(dir: &Path, code: CodeSpec, oss: usize, path: WritePath) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, oss, code);
    opts.element_bytes = UNIT;
    opts.write_path = path;
    Store::init(dir, &opts).unwrap()
}

/// The message a caught panic carries (`panic!` with a format gives a `String`, with a
/// literal a `&str`), or "" for any other payload: sweeps collect these to name each
/// failing case instead of stopping at the first.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    (panic.downcast_ref::<String>().cloned())
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// splitmix64 (Steele, Lea, Flood, OOPSLA 2014): the output for state `x`.
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// `len` bytes of splitmix64 from `seed`, one low byte a step: deterministic, and a wrong
/// decode never agrees with it by a pattern.
pub fn splitmix_bytes(seed: u64, len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| splitmix64(seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))) as u8)
        .collect()
}

/// The bytes write `id` puts at file offsets `off..off + len_bytes`: each byte a function
/// of its offset, so any two writes' bytes (and any two offsets) differ.
pub fn bytes_of(id: u64, off: u64, len_bytes: u64) -> Vec<u8> {
    (off..off + len_bytes)
        .map(|x| splitmix64(id.wrapping_mul(1_000_003) ^ x) as u8)
        .collect()
}

/// A deterministic byte pattern (xorshift), different per seed.
/// The power-cut and kill scenes' file `f` before their cut: two stripes of `pattern(1)`
/// put, then one element of `pattern(11)` at 100 and one of `pattern(12)` at `2 * UNIT +
/// 100` written, each acknowledged (cached bytes on both stripes); its bytes.
pub fn put_f_with_two_acknowledged_writes(store: &Store, stripe_bytes: usize) -> Vec<u8> {
    let mut acked = pattern(1, 2 * stripe_bytes);
    store.put("f", &acked).unwrap();
    for (at, s) in [(100usize, 11u64), (2 * UNIT + 100, 12)] {
        let b = pattern(s, UNIT);
        store.write("f", at as u64, &b).unwrap();
        acked[at..at + UNIT].copy_from_slice(&b);
    }
    acked
}

pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A tiny deterministic RNG for test workloads.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every stripe's parity matches its data and every checksum is clean.
pub fn assert_consistent(store: &Store) {
    let report = store.scrub(false).unwrap();
    assert!(
        report.corrupt_elements.is_empty(),
        "corrupt elements: {:?}",
        report.corrupt_elements
    );
    assert!(
        report.unreadable_elements.is_empty(),
        "unreadable elements: {:?}",
        report.unreadable_elements
    );
    assert!(
        report.unreadable_cache_elements.is_empty(),
        "unreadable cache elements: {:?}",
        report.unreadable_cache_elements
    );
    assert!(
        report.parity_mismatches.is_empty(),
        "parity mismatches: {:?}",
        report.parity_mismatches
    );
}

/// A liveness limit for tests that wait on other threads, not a timing assertion: every
/// scenario needs milliseconds, so only a hang (a deadlock, a lost wake-up) reaches it.
pub const NO_PROGRESS: Duration = Duration::from_secs(30);

/// Poll `done` until it holds; fail naming `what` after `NO_PROGRESS`.
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < NO_PROGRESS, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Run `f` on a thread of its own; its result arrives on the channel.
pub fn spawn<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> mpsc::Receiver<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx
}

/// The result of a `spawn`ed call; fail as a deadlock after `NO_PROGRESS`.
pub fn done_in_time<T>(rx: &mpsc::Receiver<T>, what: &str) -> T {
    rx.recv_timeout(NO_PROGRESS)
        .unwrap_or_else(|_| panic!("deadlock: {what} made no progress in {NO_PROGRESS:?}"))
}

/// Flip byte `at_bytes` of checksum block `block` of the stripe-0 home element at `pos` of
/// file `name`, in its OSS's zone file (payload only: the block then fails its crc32c).
pub fn flip_home_byte(store: &Store, name: &str, pos: Pos, block: usize, at_bytes: usize) {
    const BLOCK: usize = 4096;
    assert!(at_bytes < BLOCK);
    let id = store.file_id(name).unwrap();
    let layout = store.layout();
    let e = store.superblock().element_bytes;
    let zone = match layout.geometry().cell(pos) {
        Cell::Data(_) => "data",
        Cell::Parity(_) => "parity",
        Cell::Empty => panic!("{pos:?} holds no element"),
    };
    let oss = layout.oss_of(id, 0, pos.col);
    let path = store.superblock().oss_dirs[oss]
        .join("objects")
        .join(format!("{id}.{zone}"));
    let slot = layout.home_addr(0, pos, 0) / e as u64;
    let slot_bytes = e + e / BLOCK * 4;
    assert!(block < e / BLOCK);
    let at = slot as usize * slot_bytes + block * BLOCK + at_bytes;
    let mut bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?} {pos:?}: {e}"));
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
}

/// Leave a write of bytes `offset_bytes..offset_bytes + len_bytes` of file `name` in
/// flight, as a `kill -9` right after the store journaled its input does: its plan has no
/// `Durable` record, so the next open recovers its stripes. What the write got onto the
/// disks is up to each test. The input's planner clock is wall time, as the store's is.
pub fn leave_write_in_flight(dir: &Path, name: &str, offset_bytes: u64, len_bytes: u64) {
    let now_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    leave_write_in_flight_at(dir, name, offset_bytes, len_bytes, now_ns);
}

/// `leave_write_in_flight` with the input's planner clock `now_ns`.
pub fn leave_write_in_flight_at(
    dir: &Path,
    name: &str,
    offset_bytes: u64,
    len_bytes: u64,
    now_ns: u64,
) {
    journal_write_input(dir, name, (offset_bytes, len_bytes), now_ns, (false, false));
}

/// Leave an rmw write of bytes `offset_bytes..offset_bytes + len_bytes` of file `name` cut
/// as a `kill -9` at `journal-record:1` of `exaraid store write` leaves it on a non-WCL
/// store with a parity (session 47 on): its input alone, promising its home crcs next
/// (`Input::Write::home_crcs_follow`), and nothing of it on any OSS. (`leave_write_in_flight`
/// leaves the input of a write with no crcs, as older binaries journaled it: tests that
/// put some of the write on the disks themselves.)
pub fn leave_home_write_input_alone(dir: &Path, name: &str, offset_bytes: u64, len_bytes: u64) {
    let now_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    journal_write_input(dir, name, (offset_bytes, len_bytes), now_ns, (false, true));
}

/// Leave a WCL write of bytes `offset_bytes..offset_bytes + len_bytes` of file `name` cut
/// as a `kill -9` at `journal-record:1` of `exaraid store write` leaves it (session 27 on):
/// its input alone, promising its crcs next (`Input::Write::crcs_follow`), and nothing of
/// it on any OSS.
pub fn leave_wcl_write_input_alone(dir: &Path, name: &str, offset_bytes: u64, len_bytes: u64) {
    let now_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    journal_write_input(dir, name, (offset_bytes, len_bytes), now_ns, (true, false));
}

/// `follow`: the input's `(crcs_follow, home_crcs_follow)`.
fn journal_write_input(
    dir: &Path,
    name: &str,
    (offset_bytes, len_bytes): (u64, u64),
    now_ns: u64,
    (crcs_follow, home_crcs_follow): (bool, bool),
) {
    use exaraid_store::journal::Journal;
    use exaraid_store::state::{Input, Rec, State};
    let state: State =
        exaraid_store::superblock::read_checked(&dir.join("state"), "state").unwrap();
    let (mut journal, _) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    journal.advance_to(state.last_seq + 1);
    let rec = Rec::Input(Input::Write {
        file: state.files[name].id,
        offset_bytes,
        len_bytes,
        now_ns,
        crcs_follow,
        home_crcs_follow,
    });
    journal.append(&rec, true).unwrap();
}

/// Object file `name` of OSS `oss` of the store in `dir` (default OSS directories).
pub fn object_file(dir: &Path, oss: usize, name: &str) -> std::path::PathBuf {
    dir.join(format!("oss-{oss}")).join("objects").join(name)
}

/// The object file names of OSS `oss` of the store in `dir`, sorted.
pub fn object_names(dir: &Path, oss: usize) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join(format!("oss-{oss}")).join("objects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// Copy a store (metadata and OSS directories) as it is on disk now: the disk a kill -9 at
/// this instant leaves, for crash tests that open the copy.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every 4 KiB block of "f" reads `acked`, with nothing lost on record (the home witness
/// scenes whose in-place overwrites must read right, never LOST).
pub fn all_right(store: &Store, acked: &[u8], what: &str) {
    for at in (0..acked.len()).step_by(4096) {
        let len = 4096.min(acked.len() - at);
        let got = store
            .read("f", at as u64, len as u64)
            .unwrap_or_else(|e| panic!("{what}: read at {at}: {e}"));
        if let Some(j) = (0..len).find(|&j| got[j] != acked[at + j]) {
            panic!("{what}: WRONG byte {}", at + j);
        }
    }
    let lost = store.status().unwrap().lost_ranges;
    assert!(lost.is_empty(), "{what}: lost on record: {lost:?}");
}

/// Put back a store's metadata (everything in `dir` but the OSS directories) from the copy
/// `saved`, as an operator restoring an older copy of the metadata does.
pub fn put_metadata_back(saved: &Path, dir: &Path) {
    for entry in std::fs::read_dir(saved).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.starts_with("oss-") {
            continue;
        }
        let to = dir.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::remove_dir_all(&to).ok();
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// A disk gone for good: OSS `oss`'s directory emptied (the mount point stays).
pub fn lose_disk(dir: &Path, oss: usize) {
    let d = dir.join(format!("oss-{oss}"));
    std::fs::remove_dir_all(&d).unwrap();
    std::fs::create_dir_all(&d).unwrap();
}

/// Open after a crash with OSS `dead` failed first, as `store fail DIR --oss dead` does
/// (no fsync: crash-image tests open many copies).
pub fn open_failing_unsynced(dir: &Path, dead: usize) -> Store {
    let options = exaraid_store::OpenOptions {
        fsync: false,
        fail_down_osses_before_recovery: vec![dead],
        ..exaraid_store::OpenOptions::default()
    };
    Store::open_with(dir, options).unwrap()
}

/// The OSS directories of the store at `dir`, as found under `dir` itself (a crash image
/// copied aside keeps the superblock's paths of the original).
pub fn own_oss_dirs(dir: &Path) -> Vec<exaraid_store::backend::DirBackend> {
    let sb = exaraid_store::superblock::Superblock::load(dir).unwrap();
    (0..sb.oss_dirs.len())
        .map(|index| {
            let label = exaraid_store::backend::OssLabel {
                store_id: sb.store_id.clone(),
                index,
                element_bytes: sb.element_bytes,
                block_crc_seed: sb.block_crc_seed,
                settings: None,
            };
            exaraid_store::backend::DirBackend::open(
                &dir.join(format!("oss-{index}")),
                &label,
                None,
            )
            .unwrap()
        })
        .collect()
}

/// Open a crash image over its own OSS directories; the `failed` OSSs are down from the
/// start (their disks died with the crash), failed on record before recovery as `store
/// fail` does (a dead OSS not failed on record makes recovery wait for it). No fsync: the
/// image is checked, not crashed again (and 2 cores run the suite).
pub fn open_own_dirs_unsynced(
    dir: &Path,
    failed: &[usize],
) -> Result<Store, exaraid_store::StoreError> {
    open_own_dirs_unsynced_with(dir, failed, exaraid_store::OpenOptions::default())
}

/// `open_own_dirs_unsynced` from `base` (its test hooks: `cache_witness_held_at_bound`).
pub fn open_own_dirs_unsynced_with(
    dir: &Path,
    failed: &[usize],
    base: exaraid_store::OpenOptions,
) -> Result<Store, exaraid_store::StoreError> {
    use exaraid_store::backend::Backend;
    let backends = own_oss_dirs(dir)
        .into_iter()
        .enumerate()
        .map(|(index, b)| {
            if failed.contains(&index) {
                b.set_failed(true);
            }
            Box::new(b) as Box<dyn Backend>
        })
        .collect();
    let options = exaraid_store::OpenOptions {
        fsync: false,
        fail_down_osses_before_recovery: failed.to_vec(),
        ..base
    };
    Store::open_with_backends(dir, options, backends)
}

/// Open without fsync (crash-image tests open many copies).
pub fn open_unsynced(dir: &Path) -> Store {
    let options = exaraid_store::OpenOptions {
        fsync: false,
        ..exaraid_store::OpenOptions::default()
    };
    Store::open_with(dir, options).unwrap()
}

/// File "f" of two stripes put (`pattern(seed)`), then its element 1 (file bytes
/// `UNIT..2 * UNIT`) written again (`pattern(seed + 1)`; cached on WCL). Returns the
/// acknowledged bytes of "f" and the OSS of its element 1 (the one every later write or
/// settle of that element reaches).
pub fn put_two_stripes_and_rewrite_element_1(store: &Store, seed: u64) -> (Vec<u8>, usize) {
    let sdb = store.layout().stripe_data_bytes() as usize;
    let mut acked = pattern(seed, 2 * sdb);
    store.put("f", &acked).unwrap();
    let again = pattern(seed + 1, UNIT);
    store.write("f", UNIT as u64, &again).unwrap();
    acked[UNIT..2 * UNIT].copy_from_slice(&again);
    let id = store.file_id("f").unwrap();
    let element_1_oss = store.layout().locate(id, UNIT as u64).oss;
    (acked, element_1_oss)
}

/// Every RAID-6 array code: horizontal (EVENODD, RDP), vertical with parity rows in the data
/// columns (X-code, D-code), hybrid (H-code, HDP).
pub const ARRAY_CODE_KINDS: [CodeKind; 6] = [
    CodeKind::Evenodd,
    CodeKind::Rdp,
    CodeKind::Xcode,
    CodeKind::Dcode,
    CodeKind::Hcode,
    CodeKind::Hdp,
];

/// The columns of `code`'s stripe: the OSS count of a store with one OSS per column.
pub fn columns(code: CodeSpec) -> usize {
    exaraid_codes::Code::new(code).unwrap().geometry().cols
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

/// The env knob that keeps a scene's plan steps on their per-OSS threads (see
/// `images_in_plan_order`): for a sweep that means to try the orders threads give.
pub const THREAD_ORDER_ENV: &str = "EXARAID_TEST_THREAD_ORDER";

/// Every plan of this test process runs its steps one at a time in plan order, unless
/// `THREAD_ORDER_ENV` is set. Why: in-process power-cut and kill images
/// (`powercut.rs`, `imaged.rs`) are taken before each mutating backend call in the order
/// the calls reach the lock; with one thread per OSS that order, and so which disks a
/// scene checks, changed with the machine's load (R30-1's raid6 scene lost 1 of 47 cuts in
/// CI and never here). The switch is process-wide and for good: a test binary calls this
/// first in every test (a test that did not would run in either order, as its neighbours
/// happened to start).
pub fn images_in_plan_order() {
    if std::env::var_os(THREAD_ORDER_ENV).is_none() {
        exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    }
}

/// A scratch directory on tmpfs when there is one: for tests that make many small stores,
/// each write fsync'd.
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && shm_has_room() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().unwrap()
}

/// A fresh WCL store at `<scratch>/store`, one OSS per column of `code`, 4 KiB unit, its
/// window never timing out (a power-cut scene settles only when it says so). Returns the
/// scratch (kept alive by the caller), the store's directory and its layout.
pub fn init_wcl_without_timeout(
    code: CodeSpec,
) -> (tempfile::TempDir, std::path::PathBuf, exaraid_plan::Layout) {
    init_wcl_without_timeout_with_element(code, UNIT)
}

/// `init_wcl_without_timeout` with `element_bytes` per element in place of 4 KiB.
pub fn init_wcl_without_timeout_with_element(
    code: CodeSpec,
    element_bytes: usize,
) -> (tempfile::TempDir, std::path::PathBuf, exaraid_plan::Layout) {
    init_without_timeout_on(code, element_bytes, WritePath::Wcl)
}

/// `init_wcl_without_timeout` with `element_bytes` per element, on the write path `path`.
pub fn init_without_timeout_on(
    code: CodeSpec,
    element_bytes: usize,
    path: WritePath,
) -> (tempfile::TempDir, std::path::PathBuf, exaraid_plan::Layout) {
    let top = scratch();
    let dir = top.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    let mut opts = InitOptions::with_oss_count(&dir, columns(code), code);
    opts.element_bytes = element_bytes;
    opts.write_path = path;
    opts.window_timeout_ms = 3_600_000;
    let layout = Store::init(&dir, &opts).unwrap().layout().clone();
    (top, dir, layout)
}

/// Unpacks `tests/fixtures/<fixture>` (a .tgz of a kept crash or power-cut image) into
/// `into`; returns `into`.
pub fn unpack_fixture(into: &Path, fixture: &str) -> std::path::PathBuf {
    let tgz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(fixture);
    let st = std::process::Command::new("tar")
        .arg("xzf")
        .arg(&tgz)
        .arg("-C")
        .arg(into)
        .status()
        .expect("tar runs");
    assert!(st.success(), "unpacking {}", tgz.display());
    into.to_path_buf()
}

/// Reads `f` block by block (4 KiB): `Err(the first wrong byte)` (one neither as
/// acknowledged, `acked`, nor as a write in flight would leave it, `flight`), or the blocks
/// read LOST (offsets) and the first loss's message.
pub fn check_reads(
    store: &Store,
    acked: &[u8],
    flight: &[Option<u8>],
) -> Result<(Vec<usize>, String), String> {
    let block_bytes = 4096;
    let mut lost = Vec::new();
    let mut message = String::new();
    for at in (0..acked.len()).step_by(block_bytes) {
        let len = block_bytes.min(acked.len() - at);
        match store.read("f", at as u64, len as u64) {
            Ok(got) => {
                if got.len() != len {
                    return Err(format!("read at {at}: {} bytes of {len}", got.len()));
                }
                for (j, &x) in got.iter().enumerate() {
                    let i = at + j;
                    if x != acked[i] && Some(x) != flight[i] {
                        return Err(format!(
                            "WRONG byte {i}: {x:#04x}, acknowledged {:#04x}, in flight {:?}",
                            acked[i], flight[i]
                        ));
                    }
                }
            }
            Err(StoreError::DataLost(m)) => {
                if lost.is_empty() {
                    message = m;
                }
                lost.push(at);
            }
            Err(e) => return Err(format!("read at {at}: {e}")),
        }
    }
    Ok((lost, message))
}

/// What a kept power-cut image knows of `f` at the cut, from its files `<prefix>-acked.bin`
/// (every byte as acknowledged), `<prefix>-flight.bin` and `<prefix>-flight-mask.bin` (the
/// byte a write in flight would leave, where the mask is 1): `(acked, flight)`.
pub fn image_model(image: &Path, prefix: &str) -> (Vec<u8>, Vec<Option<u8>>) {
    let acked = std::fs::read(image.join(format!("{prefix}-acked.bin"))).unwrap();
    let flight = std::fs::read(image.join(format!("{prefix}-flight.bin"))).unwrap();
    let mask = std::fs::read(image.join(format!("{prefix}-flight-mask.bin"))).unwrap();
    assert!(acked.len() == flight.len() && acked.len() == mask.len());
    let flight = flight
        .iter()
        .zip(&mask)
        .map(|(&b, &m)| (m == 1).then_some(b))
        .collect();
    (acked, flight)
}

/// Blocks of `f` read LOST (4 KiB offsets) before a `flush` (told as `before`) and after it
/// (a flush may itself report a loss); a wrong byte fails at once.
pub fn lost_blocks_across_a_flush(
    store: &Store,
    acked: &[u8],
    flight: &[Option<u8>],
    before: &str,
) -> Vec<usize> {
    let lost_blocks = |what: &str| {
        check_reads(store, acked, flight)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
            .0
    };
    let mut lost = lost_blocks(before);
    match store.flush() {
        Ok(()) | Err(StoreError::DataLost(_)) => {}
        Err(e) => panic!("flush: {e}"),
    }
    lost.extend(lost_blocks("after the flush"));
    lost
}

/// The cut write a power-cut scene's knob `var` names as `AT+LEN` (file bytes), else R30-1's
/// write of 2296+3141.
pub fn cut_write_of_env(var: &str) -> std::ops::Range<usize> {
    match std::env::var(var) {
        Ok(w) => {
            let (at, len) = w.split_once('+').unwrap();
            let (at, len): (usize, usize) = (at.parse().unwrap(), len.parse().unwrap());
            at..at + len
        }
        Err(_) => 2296..2296 + 3141,
    }
}

/// Bytes of one slot of an object file on disk: the payload, then one crc32c per 4 KiB block
/// (crash-image tests copy slots, or parts of them, between trees of one store).
pub const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;

/// A slot of an object file: `(oss, file name, slot)`.
pub type Unit = (usize, String, usize);

/// The slots whose bytes differ between two trees of the same store, in object files that
/// `keep(oss, name)` takes (no object file grows between the two trees).
pub fn changed_slots(
    before: &Path,
    after: &Path,
    oss_count: usize,
    keep: impl Fn(usize, &str) -> bool,
) -> Vec<Unit> {
    let mut units = Vec::new();
    for oss in 0..oss_count {
        for name in object_names(after, oss)
            .into_iter()
            .filter(|n| keep(oss, n))
        {
            let x = std::fs::read(object_file(before, oss, &name)).unwrap_or_default();
            let y = std::fs::read(object_file(after, oss, &name)).unwrap();
            assert_eq!(x.len(), y.len(), "{name}: no object file grew");
            for slot in 0..x.len() / SLOT_BYTES {
                let r = slot * SLOT_BYTES..(slot + 1) * SLOT_BYTES;
                if x[r.clone()] != y[r] {
                    units.push((oss, name.clone(), slot));
                }
            }
        }
    }
    units
}

/// Copy the bytes `range` of slot `unit` from the tree `from` into `to`.
pub fn copy_slot_bytes(
    from: &Path,
    to: &Path,
    (oss, name, slot): &Unit,
    range: std::ops::Range<usize>,
) {
    let src = std::fs::read(object_file(from, *oss, name)).unwrap();
    let mut dst = std::fs::read(object_file(to, *oss, name)).unwrap();
    let at = slot * SLOT_BYTES;
    dst[at + range.start..at + range.end].copy_from_slice(&src[at + range.start..at + range.end]);
    std::fs::write(object_file(to, *oss, name), dst).unwrap();
}

/// What a slot a cut write changed holds in a crash image built over the tree before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Old,
    Landed,
    /// Its new checksum, its old payload (a power loss that kept the later write only).
    ChecksumOnly,
    /// Its new payload, its old checksum (a kill between the two: the backend writes the
    /// payload first).
    PayloadOnly,
}

/// Lay `block` of slot `unit` into `dir` (a copy of the tree before the write) from `after`
/// (the tree after it).
pub fn lay_block(after: &Path, dir: &Path, unit: &Unit, block: Block) {
    match block {
        Block::Old => {}
        Block::Landed => copy_slot_bytes(after, dir, unit, 0..SLOT_BYTES),
        Block::ChecksumOnly => copy_slot_bytes(after, dir, unit, UNIT..SLOT_BYTES),
        Block::PayloadOnly => copy_slot_bytes(after, dir, unit, 0..UNIT),
    }
}

/// Every 4 KiB block of file `name` read on its own: each reads its acknowledged bytes
/// `model` (inside `cut`, a write a crash cut, each byte may be the old one or the cut
/// write's `new[i - cut.start]`), or fails with `DataLost` and overlaps a lost range of
/// `name` on record (`status`). Panics otherwise; returns the offsets of the blocks lost.
/// Why block by block: one lost block fails a whole `get`, and a wrong byte beside it, or a
/// loss nothing records, went unseen.
pub fn assert_blocks_read_or_lost_on_record(
    store: &Store,
    name: &str,
    model: &[u8],
    cut: std::ops::Range<usize>,
    new: &[u8],
    what: &str,
) -> Vec<usize> {
    assert!(
        cut.is_empty() || cut.len() == new.len(),
        "{what}: the cut write's bytes"
    );
    let block_bytes = 4096;
    let on_record: Vec<(u64, u64)> = store
        .status()
        .unwrap()
        .lost_ranges
        .iter()
        .filter(|l| l.file == name)
        .map(|l| (l.offset_bytes, l.offset_bytes + l.len_bytes))
        .collect();
    let mut lost = Vec::new();
    for at in (0..model.len()).step_by(block_bytes) {
        let len = block_bytes.min(model.len() - at);
        match store.read(name, at as u64, len as u64) {
            Ok(got) => {
                assert_eq!(got.len(), len, "{what}: '{name}' block {at}: length");
                for (j, &x) in got.iter().enumerate() {
                    let i = at + j;
                    let ok = x == model[i] || (cut.contains(&i) && x == new[i - cut.start]);
                    assert!(
                        ok,
                        "{what}: '{name}' WRONG byte {i}: {x:#04x}, acknowledged {:#04x}",
                        model[i]
                    );
                }
            }
            Err(exaraid_store::StoreError::DataLost(msg)) => {
                let (a, z) = (at as u64, (at + len) as u64);
                assert!(
                    on_record.iter().any(|&(s, e)| s < z && a < e),
                    "{what}: '{name}' bytes {a}..{z} read DataLost ({msg}) but no loss there is on record: {on_record:?}"
                );
                lost.push(at);
            }
            Err(e) => panic!("{what}: '{name}' read at {at}: {e}"),
        }
    }
    lost
}

/// Byte offsets of the journal's record boundaries from `from` on (the frame: payload
/// length u32 LE, crc u32, payload), the end included.
pub fn record_boundaries(journal: &Path, from: u64) -> Vec<u64> {
    let bytes = std::fs::read(journal).unwrap();
    let mut at = from as usize;
    let mut cuts = vec![from];
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 8 + len;
        assert!(at <= bytes.len(), "a whole journal after a clean run");
        cuts.push(at as u64);
    }
    cuts
}

/// Put the store image `saved` back at `dir` (in place: the superblock names its OSS
/// directories by path) with its journal cut at byte `cut`: a kill after that record.
pub fn restore_with_journal_cut(saved: &Path, dir: &Path, journal: &Path, cut: u64) {
    std::fs::remove_dir_all(dir).unwrap();
    copy_tree(saved, dir);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(journal)
        .unwrap();
    file.set_len(cut).unwrap();
}

/// Overwrite the payload of block 0 of the home slot of stripe 0's data element `data` of
/// file `id` in the store at `dir` with `payload`, leaving its checksum: a write torn between
/// the two. Returns the payload it replaced.
pub fn tear_home_block(
    dir: &Path,
    layout: &exaraid_plan::Layout,
    id: u64,
    data: usize,
    payload: &[u8],
) -> Vec<u8> {
    assert_eq!(payload.len(), UNIT);
    let pos = layout.geometry().data_pos[data];
    let oss = layout.oss_of(id, 0, pos.col);
    let slot = (layout.home_addr(0, pos, 0) / UNIT as u64) as usize;
    let path = object_file(dir, oss, &format!("{id}.data"));
    let mut bytes = std::fs::read(&path).unwrap();
    let range = slot * SLOT_BYTES..slot * SLOT_BYTES + UNIT;
    let before = bytes[range.clone()].to_vec();
    bytes[range].copy_from_slice(payload);
    std::fs::write(&path, bytes).unwrap();
    before
}

/// Where a kill test of one operation begins its journal cuts when the operation was the
/// first change of its open (the journal's length was `before`): after the metadata epoch's
/// record (`OssGenerations`), which the store journals, fsyncs and then tells every OSS
/// (their epoch files) before the operation's own records. A cut before it with the epoch
/// files of the operation's end is no disk a kill leaves (refused at open as metadata older
/// than its OSSs), and a kill there leaves the disk as before the operation.
pub fn cuts_after_epoch_bump(journal: &Path, before: u64) -> u64 {
    let bytes = std::fs::read(journal).unwrap();
    journal_record_kinds(&bytes)
        .into_iter()
        .find(|&(at, _, _)| at as u64 == before)
        .filter(|(_, _, kind)| kind == "OssGenerations")
        .map_or(before, |(at, len, _)| (at + len) as u64)
}

/// The end of the first `Durable` record at or after byte `from_bytes` of the journal file
/// `journal`: a write whose records begin at `from_bytes` is done on record from there on
/// (a power cut whose durable journal ends before it leaves the write in flight).
pub fn durable_record_end_after(journal: &Path, from_bytes: u64) -> u64 {
    let bytes = std::fs::read(journal).unwrap();
    journal_record_kinds(&bytes)
        .into_iter()
        .filter(|(at, _, kind)| *at as u64 >= from_bytes && kind == "Durable")
        .map(|(at, len, _)| (at + len) as u64)
        .next()
        .expect("the write's Durable record")
}

/// `(start, framed length, record kind)` of every record of the journal.
pub fn journal_record_kinds(journal: &[u8]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= journal.len() {
        let len = u32::from_le_bytes(journal[at..at + 4].try_into().unwrap()) as usize;
        assert!(at + 8 + len <= journal.len(), "a whole journal");
        let env: serde_json::Value =
            serde_json::from_slice(&journal[at + 8..at + 8 + len]).unwrap();
        let kind = match &env["rec"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Object(m) => m.keys().next().unwrap().clone(),
            other => panic!("record {other}"),
        };
        out.push((at, 8 + len, kind));
        at += 8 + len;
    }
    assert_eq!(at, journal.len(), "the journal ends on a record");
    out
}

/// The object files on OSSs `0..oss_count`: (OSS, object id, zone), as named in each OSS's
/// `objects` directory (`ID.ZONE`; other files there are not objects).
pub fn object_files(store_dir: &Path, oss_count: usize) -> Vec<(usize, u64, String)> {
    let mut out = Vec::new();
    for oss in 0..oss_count {
        let objects = store_dir.join(format!("oss-{oss}")).join("objects");
        for entry in std::fs::read_dir(&objects).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().to_string();
            if let Some((id, zone)) = name.split_once('.') {
                if let Ok(id) = id.parse::<u64>() {
                    out.push((oss, id, zone.to_string()));
                }
            }
        }
    }
    out
}

/// f put with `f`, then g with `g`, both flushed home. Returns g's object id: the newest id
/// that f's put did not make (`u64::MAX` is not a file's).
pub fn put_f_then_g_flushed(
    store: &Store,
    store_dir: &Path,
    oss_count: usize,
    f: &[u8],
    g: &[u8],
) -> u64 {
    store.put("f", f).unwrap();
    let before: Vec<u64> = object_files(store_dir, oss_count)
        .iter()
        .map(|x| x.1)
        .collect();
    store.put("g", g).unwrap();
    store.flush().unwrap();
    object_files(store_dir, oss_count)
        .iter()
        .map(|x| x.1)
        .filter(|id| !before.contains(id) && *id != u64::MAX)
        .max()
        .unwrap()
}

/// Delete the `zone` file of object `id` on the first OSS holding one, outside exaraid (a
/// file lost or deleted by hand). Returns its path.
pub fn delete_zone_file(
    store_dir: &Path,
    oss_count: usize,
    id: u64,
    zone: &str,
) -> std::path::PathBuf {
    let (oss, id, zone) = object_files(store_dir, oss_count)
        .into_iter()
        .find(|x| x.1 == id && x.2 == zone)
        .unwrap();
    let path = store_dir
        .join(format!("oss-{oss}"))
        .join("objects")
        .join(format!("{id}.{zone}"));
    std::fs::remove_file(&path).unwrap();
    path
}

/// An acknowledged write of `new` at `at_bytes` of file f (whose bytes were `old`), then the
/// power cut right after it returned: the store dropped without a close (the process died)
/// and its directory put back as an image taken at that instant (`image` beside it), so
/// nothing the drop does counts. Returns `old` with the write in it (what was acknowledged).
pub fn acknowledged_write_then_power_cut(
    store: Store,
    store_dir: &Path,
    old: &[u8],
    at_bytes: u64,
    new: &[u8],
) -> Vec<u8> {
    store.write("f", at_bytes, new).unwrap();
    let mut acked = old.to_vec();
    let at = at_bytes as usize;
    acked[at..at + new.len()].copy_from_slice(new);
    let image = store_dir.parent().unwrap().join("image");
    copy_tree(store_dir, &image);
    drop(store); // no close: the process died
    std::fs::remove_dir_all(store_dir).unwrap();
    copy_tree(&image, store_dir);
    acked
}

/// How the journal's last kept record ends in `end_journal_on_last`.
#[derive(Clone, Copy, Debug)]
pub enum RecordEnd {
    /// Whole, one bit in its middle flipped (damage: its checksum fails).
    BitFlipped,
    /// Cut short by 3 bytes (a torn append).
    Torn,
}

/// The journal ends on its last record of `kind` (the records after it cut off, as a power
/// cut before their sync leaves it), that record ended as `end` says. Returns the records
/// cut off: (start, framed length, kind).
pub fn end_journal_on_last(
    store_dir: &Path,
    kind: &str,
    end: RecordEnd,
) -> Vec<(usize, usize, String)> {
    let journal = store_dir.join("journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let mut recs = journal_record_kinds(&bytes);
    let last = recs.iter().rposition(|r| r.2 == kind).unwrap();
    let (start, len, _) = recs[last];
    bytes.truncate(start + len);
    match end {
        RecordEnd::BitFlipped => bytes[start + 8 + (len - 8) / 2] ^= 0x10,
        RecordEnd::Torn => bytes.truncate(start + len - 3),
    }
    std::fs::write(&journal, &bytes).unwrap();
    recs.split_off(last + 1)
}

/// The libtest name of the test at module path `child` (`concat!(module_path!(), "::name")`
/// at the test): the path without its crate, `name` in a binary of one test file,
/// `<file>::name` in a binary of many (`tests/scenes/main.rs`). Why not the bare name:
/// `--exact` with it runs nothing in a binary of many, which looks like a child that ended
/// successfully.
fn test_name_of(child: &str) -> &str {
    let (_crate, name) = child
        .split_once("::")
        .unwrap_or_else(|| panic!("{child}: a child test is named by its module path"));
    name
}

/// Run test `child` (its module path, see `test_name_of`) of this test executable with
/// `dir_env` naming `dir`, set to kill itself at the `n`-th pass of kill point `point`
/// (`EXARAID_KILL_AT`). `true`: killed there; `false`: it ended first, successfully. Any
/// other end fails the test.
pub fn child_test_killed_at(child: &str, dir_env: &str, dir: &Path, point: &str, n: u64) -> bool {
    use std::os::unix::process::ExitStatusExt;
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test_name_of(child), "--test-threads", "1"])
        .env(dir_env, dir)
        .env(exaraid_store::torture::KILL_AT_ENV, format!("{point}:{n}"))
        .output()
        .unwrap();
    if out.status.success() {
        return false;
    }
    assert_eq!(
        out.status.signal(),
        Some(9),
        "the child at {point}:{n} failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    true
}

/// A tmpfs of `bytes` at `at` (a small disk), unmounted when dropped; `None` where
/// mounting is not permitted (it needs root).
pub struct Tmpfs(pub std::path::PathBuf);

impl Tmpfs {
    pub fn mount(at: &std::path::Path, bytes: u64) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(at)
            .output()
            .is_ok_and(|o| o.status.success());
        mounted.then(|| Tmpfs(at.to_path_buf()))
    }

    /// Every free block taken by one file: an append that needs a new block fails ENOSPC.
    pub fn fill(&self) {
        let filler = self.0.join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        use std::io::Write;
        let page = vec![0u8; 4096];
        while f.write_all(&page).is_ok() {}
        let _ = f.write_all(&[0u8; 1]);
    }

    pub fn unfill(&self) {
        std::fs::remove_file(self.0.join("filler")).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A probe's range knob `a+n` (first byte, length): `a..a + n`.
pub fn range_of(v: &str) -> std::ops::Range<usize> {
    let (a, n) = (v.split_once('+')).unwrap_or_else(|| panic!("{v:?}: a range is FIRST+LENGTH"));
    let (a, n): (usize, usize) = (a.parse().unwrap(), n.parse().unwrap());
    a..a + n
}

/// `range_of` of the environment variable `var`, `default` (first byte, length) when unset.
pub fn range_of_env(var: &str, default: (usize, usize)) -> std::ops::Range<usize> {
    std::env::var(var).map_or(default.0..default.0 + default.1, |v| range_of(&v))
}

/// A probe's code knob (`S30R_CODE`, `S31R_CODE`): `raid5:K`, `raid6:K`, `rs:K:M` or an
/// array code `hcode:P` (evenodd, rdp, xcode, dcode, hcode, hdp); `default` when unset.
pub fn code_of_env(var: &str, default: &str) -> CodeSpec {
    let spec = std::env::var(var).unwrap_or_else(|_| default.into());
    let w: Vec<&str> = spec.split(':').collect();
    let n = |i: usize| w[i].parse::<usize>().unwrap();
    match w[0] {
        "raid5" => CodeSpec::raid5(n(1)),
        "raid6" => CodeSpec::raid6(n(1)),
        "rs" => CodeSpec::rs(n(1), n(2)),
        "evenodd" => CodeSpec::array(CodeKind::Evenodd, n(1)),
        "rdp" => CodeSpec::array(CodeKind::Rdp, n(1)),
        "xcode" => CodeSpec::array(CodeKind::Xcode, n(1)),
        "dcode" => CodeSpec::array(CodeKind::Dcode, n(1)),
        "hcode" => CodeSpec::array(CodeKind::Hcode, n(1)),
        "hdp" => CodeSpec::array(CodeKind::Hdp, n(1)),
        other => panic!("{var} {other}"),
    }
}

/// A probe's write-path knob (`S30R_PATH`, `S31R_PATH`): `wcl`, `rmw` or `delayed`;
/// `default` when unset.
pub fn write_path_of_env(var: &str, default: WritePath) -> WritePath {
    match std::env::var(var).as_deref() {
        Err(_) => default,
        Ok("wcl") => WritePath::Wcl,
        Ok("rmw") => WritePath::Rmw,
        Ok("delayed") => WritePath::Delayed,
        Ok(other) => panic!("{var} {other}"),
    }
}

/// A probe's count knob (`S30R_WRITES`, `S31R_THREADS`, ...): `default` when unset.
pub fn count_of_env(var: &str, default: usize) -> usize {
    std::env::var(var).map_or(default, |s| s.parse().unwrap())
}

/// A probe's seeds knob (`S30R_SEEDS=1,2,3`): seed 1 when unset.
pub fn seeds_of_env(var: &str) -> Vec<u64> {
    match std::env::var(var) {
        Ok(s) => s.split(',').map(|x| x.parse().unwrap()).collect(),
        Err(_) => vec![1],
    }
}

/// The checksum block: the unit `f_blocks_lost_or_wrong` reads `f` in.
pub const READ_BLOCK_BYTES: usize = 4096;

/// Every block of `f` read (`READ_BLOCK_BYTES` each): the blocks read LOST, or the first
/// wrong byte (neither acknowledged, `acked`, nor the cut write's, `flight`). Blocks inside
/// `skip` are not read (a stale column's own lost write: the lost-write class, not the rule
/// a test is of).
pub fn f_blocks_lost_or_wrong(
    store: &Store,
    acked: &[u8],
    flight: &[Option<u8>],
    skip: std::ops::Range<usize>,
) -> Result<Vec<usize>, String> {
    let mut lost = Vec::new();
    for at in (0..acked.len()).step_by(READ_BLOCK_BYTES) {
        if skip.contains(&at) {
            continue;
        }
        let len = READ_BLOCK_BYTES.min(acked.len() - at);
        match store.read("f", at as u64, len as u64) {
            Ok(got) => {
                assert_eq!(got.len(), len, "read at {at}");
                if let Some(j) =
                    (0..len).find(|&j| got[j] != acked[at + j] && Some(got[j]) != flight[at + j])
                {
                    return Err(format!(
                        "WRONG byte {}: {:#04x}, acknowledged {:#04x}",
                        at + j,
                        got[j],
                        acked[at + j]
                    ));
                }
            }
            Err(StoreError::DataLost(_)) => lost.push(at),
            Err(e) => return Err(format!("read at {at}: {e}")),
        }
    }
    Ok(lost)
}

/// The journal's whole records in `bytes` (a journal file's): (start, end) byte offsets of
/// each, in order, up to the first that is not whole (the frame: `| len: u32 LE | crc: u32
/// LE | payload |`; the payload is `bytes[start + 8..end]`).
pub fn journal_whole_records(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > bytes.len() {
            break;
        }
        out.push((at, at + 8 + len));
        at += 8 + len;
    }
    out
}

/// The OSSs of the store at `dir` (`oss_count` of them) that keep a journal mark.
pub fn osses_with_a_mark(dir: &Path, oss_count: usize) -> Vec<usize> {
    (0..oss_count)
        .filter(|oss| {
            dir.join(format!("oss-{oss}"))
                .join(exaraid_store::backend::JOURNAL_MARK_FILE)
                .exists()
        })
        .collect()
}

/// A read-only bind mount of `from` at `at` (needs root; `None` where mounting fails),
/// unmounted when dropped.
pub struct ReadOnlyMount(std::path::PathBuf);

impl ReadOnlyMount {
    pub fn new(from: &Path, at: &Path) -> Option<ReadOnlyMount> {
        std::fs::create_dir_all(at).unwrap();
        let run = |args: &[&str]| {
            std::process::Command::new("mount")
                .args(args)
                .status()
                .is_ok_and(|st| st.success())
        };
        if !run(&["--bind", from.to_str()?, at.to_str()?]) {
            return None;
        }
        let mount = ReadOnlyMount(at.to_path_buf());
        run(&["-o", "remount,ro,bind", at.to_str()?]).then_some(mount)
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}
