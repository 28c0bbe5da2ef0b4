//! The deterministic write sequence of the crash-injection test (`exaraid store torture`,
//! hidden): write `i` of seed `s` is the same in the child that is killed and in the test
//! that checks what survived. And the kill points that let a test kill the store at a named
//! place (inside recovery), see [`KILL_AT_ENV`].

/// The file the sequence writes.
pub const FILE: &str = "torture";
/// Writes land in the first `SPAN_BYTES` of the file (small, so verification is fast and
/// writes overlap often).
pub const SPAN_BYTES: u64 = 96 * 1024;
/// Longest write of the sequence.
pub const WRITE_BYTES_MAX: u64 = 20 * 1024;

pub struct TortureWrite {
    pub offset_bytes: u64,
    pub data: Vec<u8>,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64: a good, dependency-free hash of (seed, index).
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Write `index` of sequence `seed`: offsets and lengths vary (unaligned, partial and full
/// stripes), bytes are a pattern of (seed, index) so every write is distinguishable.
pub fn write_of(seed: u64, index: u64) -> TortureWrite {
    let h = mix(seed ^ mix(index));
    let len = 1 + mix(h) % WRITE_BYTES_MAX;
    let offset_bytes = mix(h ^ 1) % (SPAN_BYTES - len);
    let mut x = h | 1;
    let data = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    TortureWrite { offset_bytes, data }
}

// ---------------------------------------------------------------- pause points

/// A pause point in `Store::write`: the write's plans ran (its bytes are durable, a
/// background worker may now run the destage of the cache stripe it completed), its end
/// (what it clears from the lost record) has not begun. Tests hold the writer here to run
/// what a slow writer would let run first (`tests/background_destage_lost.rs`).
pub const WRITE_PLANS_RAN: &str = "write-plans-ran";

/// A pause point in `Store::write`: the write's plans are planned and admitted (a delayed
/// window write's cache address is reserved, its bytes count as the window's), none has
/// begun to run (none holds the failure gate). Tests hold the writer here to fail an OSS
/// in that gap (`tests/window_write_fail_race_online.rs`).
pub const WRITE_PLANS_ADMITTED: &str = "write-plans-admitted";

/// A pause point in a scrub's repair after a journal tail cut
/// (`reencode_parity_after_tail_cut`): the stripe is read and held, its parity re-encoded,
/// nothing synced, journaled or written yet. Tests queue a write on the stripe here
/// (`tests/s32g_repair_or_settle_killed_then_a_lost_oss.rs`).
pub const TAIL_CUT_REPAIR_ENCODED: &str = "tail-cut-repair-encoded";

/// A pause point in a read (`Store::read`, `get`): its first check that the store may be
/// read passed, nothing else done. Tests hold a reader here while a writer's `WriteCrcs`
/// append is refused and poisons the store, then let it go on: it must check again under
/// the core lock before its lookup (review s28r R28-1;
/// `tests/s29e_read_beside_refused_write_crcs.rs`).
pub const READ_CHECKED: &str = "read-checked";

/// A pause point on the background worker (`Store::serve_background`): one of its plans
/// ran its writes and synced them, its `Durable` record is not appended yet. Tests hold
/// the worker here to fill the metadata disk under that record
/// (`tests/full_disk_background_plan.rs`).
pub const BACKGROUND_PLAN_WRITTEN: &str = "background-plan-written";

/// A pause point in a group commit's fsync of the journal (`Store::sync_journal_through`):
/// its leader holds the journal's fsync turn, its fsync has not begun. Tests hold the
/// leader here while another thread's fsync of the journal fails
/// (`tests/s37a_journal_fsyncs_one_at_a_time.rs`).
pub const JOURNAL_GROUP_FSYNC: &str = "journal-group-fsync";

type PauseHook = std::sync::Arc<dyn Fn(&str) + Send + Sync>;
static PAUSE_HOOK: Mutex<Option<PauseHook>> = Mutex::new(None);
static PAUSE_HOOK_SET: AtomicBool = AtomicBool::new(false);

/// Tests only: `hook` is called with the point's name by every thread of this process that
/// passes a pause point (it may hold the thread there); `None` removes it. Process-wide: a
/// test that sets it filters on its own threads (their names). Never set by the store.
#[doc(hidden)]
pub fn set_pause_hook(hook: Option<PauseHook>) {
    let mut slot = PAUSE_HOOK.lock().unwrap();
    PAUSE_HOOK_SET.store(hook.is_some(), Ordering::SeqCst);
    *slot = hook;
}

/// Pass pause point `point`: one load unless a test set a hook (`set_pause_hook`). The
/// hook runs outside the slot's lock, so it may wait as long as it likes.
pub fn pause_point(point: &str) {
    if !PAUSE_HOOK_SET.load(Ordering::Relaxed) {
        return;
    }
    let hook = PAUSE_HOOK.lock().unwrap().clone();
    if let Some(hook) = hook {
        hook(point);
    }
}

// ---------------------------------------------------------------- kill points

/// The environment variable that arms one kill point: `EXARAID_KILL_AT=<point>:<n>` makes
/// the process kill itself with SIGKILL (what `kill -9` does: no destructor, no flush) the
/// `n`-th time (from 1) it passes `<point>`. Unset, every kill point costs one load.
/// Why in the store and not in the test: a kill at a random moment (see
/// `crates/cli/tests/cli/store_crash.rs`) almost never lands inside recovery, which is short;
/// a named point lands there every time.
pub const KILL_AT_ENV: &str = "EXARAID_KILL_AT";

/// Kill points of a settle (recovery, flush): after its `SettleBegin` record is durable,
/// after each element it writes (and each block it marks lost), after each stripe, and
/// after its writes are synced but before the `PlannerReset` record that ends it.
pub const SETTLE_BEGUN: &str = "settle-begun";
pub const SETTLE_ELEMENT: &str = "settle-element";
pub const SETTLE_STRIPE: &str = "settle-stripe";
pub const SETTLE_SYNCED: &str = "settle-synced";
/// Inside a backend block write, between its payload and its checksums (a torn write:
/// new bytes under old checksums), counted only while a settle runs.
pub const SETTLE_TORN_BLOCK: &str = "settle-torn-block";
/// Inside a backend block write, between its payload and its checksums, counted only while
/// no settle runs: every block a plan writes (a client write, a destage, a move home), so a
/// test can cut a write at each of its steps, half-way through a block.
pub const WRITE_TORN_BLOCK: &str = "write-torn-block";
/// Before a backend block write's payload, counted only while no settle runs (as
/// [`WRITE_TORN_BLOCK`]): the process is killed just before the `n`-th block write is
/// issued, so block writes `1..n` are whole (payload and checksums) and the `n`-th and every
/// later one untouched. Always counted in plan order (arming it turns
/// [`KILL_IN_PLAN_ORDER_ENV`] on by itself): with one thread per OSS the other OSSs'
/// threads would be anywhere in their own block writes, and "blocks before `n` whole, the
/// rest untouched" would not hold. Why (s28c, session 29): the torn and page-cut points
/// stop a write INSIDE a block write; a crash between two block writes was reached only
/// on a page-aligned block (cache slot 0, where a page cut writes nothing), so sweeps
/// never left "block `n-1` whole, block `n` untouched" for any other slot.
pub const WRITE_BEFORE_BLOCK: &str = "write-before-block";
/// As [`WRITE_BEFORE_BLOCK`], counted only while a settle runs (recovery's writes, a
/// flush, a window's END): the process is killed just before the `n`-th block write of the
/// settle is issued, block writes `1..n` whole and the rest untouched. Plan order is turned
/// on by itself, as for [`WRITE_BEFORE_BLOCK`]. Why (s30d; review "a recovery is still not
/// stopped between two of its own block writes"): the settle's torn and page-cut points stop
/// a recovery INSIDE a block write; this one stops it between two, for example between its
/// running parity rewrites of one cache stripe row (s29b, s29c), at every slot.
pub const SETTLE_BEFORE_BLOCK: &str = "settle-before-block";
/// The page-cut kill points, one family (merged in session 27, s27c, from s26a's
/// `write-page-cut[-last]` and s26e's `block-page-cut` / `settle-page-cut`, which did one
/// job): inside a backend block write, the `n`-th block write writes its payload up to the
/// first 4 KiB boundary of the zone file strictly inside it ([`WRITE_PAGE_CUT`],
/// [`SETTLE_PAGE_CUT`]) or the last one ([`WRITE_PAGE_CUT_LAST`], [`SETTLE_PAGE_CUT_LAST`]:
/// every block before it whole), nothing of the rest and no checksum, then the process is
/// killed; a write with no boundary inside writes nothing. Counted over every block write
/// (cache and home alike, as [`WRITE_TORN_BLOCK`] / [`SETTLE_TORN_BLOCK`]): the `write-`
/// points while no settle runs (a client write, a destage, a move home), the `settle-`
/// points while one runs (recovery's writes, a flush, a window's END).
/// Why (s26a, s26e): a SIGKILL that lands while the kernel copies a pwrite stops it at a
/// page boundary (Linux `generic_perform_write` checks for a fatal signal before each
/// page), and slots are not page-aligned past slot 0 (each carries its checksum area), so
/// most blocks hold one (`backend::page_cut_in_block`): a block cut there holds its new
/// head and old tail under its old checksum, which neither the old nor the new crc of the
/// block matches, a state the between-payload-and-checksum points never leave.
pub const WRITE_PAGE_CUT: &str = "write-page-cut";
pub const WRITE_PAGE_CUT_LAST: &str = "write-page-cut-last";
pub const SETTLE_PAGE_CUT: &str = "settle-page-cut";
pub const SETTLE_PAGE_CUT_LAST: &str = "settle-page-cut-last";

/// Which 4 KiB boundary inside a block write an armed page-cut point stops it at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PageCut {
    First,
    Last,
}

/// Kill points of a rebuild: after its `RebuildBegin` record is durable (nothing on the OSS
/// or the target directory touched yet), after each element it writes onto the rebuilt
/// OSS, and (`rebuild --to`) after the superblock names the new directory but before the
/// `Rebuilt` record.
pub const REBUILD_BEGUN: &str = "rebuild-begun";
pub const REBUILD_ELEMENT: &str = "rebuild-element";
pub const REBUILD_SWITCHED: &str = "rebuild-switched";
/// Kill point at the end of a rebuild: everything durable (its `Rebuilt` record, the bytes
/// it read back written again, the checkpoint), before the command tells its warnings.
pub const REBUILD_DONE: &str = "rebuild-done";
/// Kill point after each object file (one zone of one object on one OSS) a removal deleted
/// (`rm`, the old content of a `put`): a sweep kills a removal at every file.
pub const REMOVE_ZONE: &str = "remove-zone";
/// Kill points of `online` taking back a failed OSS: after each home stripe whose columns
/// on it were rewritten, and after its `Online` record, before the bytes it read back from
/// the OSS's cache zone are written again.
pub const ONLINE_STRIPE: &str = "online-stripe";
pub const ONLINE_BACK: &str = "online-back";
/// Kill point of `online`'s write-back phase: after each range of the bytes it read back is
/// written again (acknowledged), before the next (note 8 OPEN 5: no kill test inside it).
pub const ONLINE_BACK_RANGE: &str = "online-back-range";

/// Kill points of `init`: after its marker is written, after each OSS directory is made,
/// and before the superblock (see `store::INIT_MARKER_FILE`).
pub const INIT_STEP: &str = "init-step";
/// Kill point after each journal record is appended (and synced when the record asks for
/// it), before the store acts on it: a test sweeping `n` kills a command at every record
/// boundary, for example between the records of one START or END of a delayed window.
pub const JOURNAL_RECORD: &str = "journal-record";
/// Kill point of an open, right after it dealt with the journal's torn tail (cut it, or
/// wrote a damaged epoch bump over it again) and before it appends anything: the epoch
/// bump of the open's first record comes after (note 12 OPEN 3).
pub const JOURNAL_TAIL: &str = "journal-tail";
/// Kill points of an open's cut of the journal's torn tail with its decisions written in
/// its place (`Journal::cut_tail_writing`): after each record is written to the journal's
/// replacement (not fsync'd), and after the replacement is renamed over the journal (before
/// the directory's fsync). A sweep over `n` stops the write after every record.
pub const JOURNAL_CUT_WRITE: &str = "journal-cut-write";
/// Inside a gap merge of an OSS's zone file (`EXTENTS_RUNS_PER_ZONE_MAX`), a torn write:
/// the n-th crc area it writes into a never-written slot gets only its first half, then the
/// process is killed (what a crash inside that one write can leave, review s5s S3).
pub const GAP_FILL_TORN: &str = "gap-fill-torn";
/// Kill point after an OSS's extents log append (slot records, a generation record) is
/// fdatasync'd, before the store can journal the generation it reached: the OSS is then
/// ahead of the store's record, which must never read as a rolled-back OSS.
pub const EXTENTS_SYNCED: &str = "extents-synced";
/// Kill point after an OSS's journal mark (`backend::JOURNAL_MARK_FILE`) is written (and
/// fdatasync'd, on a store that fsyncs), before the store journals the plan durable: the
/// mark is then at most the journal's last record, which the next open must accept.
pub const JOURNAL_MARK_WRITTEN: &str = "journal-mark-written";

/// Set (to anything) beside an armed kill point: every plan runs its steps one at a time in
/// plan order, on the calling thread, instead of one thread per OSS. The `n`-th pass of a
/// block-write kill point ([`WRITE_TORN_BLOCK`], [`SETTLE_TORN_BLOCK`]) is then the same
/// block of the same step in every run, whatever the machine's load. Why (session 11):
/// counted in arrival order over the per-OSS threads, `write-torn-block:12` of a delayed
/// END landed on another block under load than alone, so a sweep over `n` did not cover
/// each block, and a failure at one `n` could not be repeated. Opt-in: the threaded order
/// reaches other crash states (several OSSs part-way), which the other sweeps keep.
pub const KILL_IN_PLAN_ORDER_ENV: &str = "EXARAID_KILL_IN_PLAN_ORDER";

/// Set (to anything) beside an armed kill point: as [`KILL_IN_PLAN_ORDER_ENV`], one step at
/// a time on the calling thread, but the OSSs of each group of steps run in the reverse of
/// their plan order (each OSS's own steps still in plan order: one per-OSS thread running all
/// of its steps before the next thread starts, an order the threads can meet). Why (session
/// 29, s29a): a degraded raid5 write lost acknowledged bytes once in CI in an order of the
/// per-OSS threads that plan order never reached (its data and parity blocks torn at once,
/// reached deterministically with [`KILL_TEAR_EVERY_OSS_ENV`]); with both orders a sweep
/// over `n` also covers either block of a two-write plan torn first, whatever the load.
pub const KILL_IN_REVERSED_PLAN_ORDER_ENV: &str = "EXARAID_KILL_IN_REVERSED_PLAN_ORDER";

/// Set (to anything) beside an armed [`WRITE_TORN_BLOCK`] point and
/// [`KILL_IN_PLAN_ORDER_ENV`]: the kill catches every OSS in a torn block write at once, as
/// a SIGKILL can catch each per-OSS write thread between a block's payload and its
/// checksum. From the `n`-th block write on, each block write to an OSS not caught yet
/// writes its payload only (no checksums) and catches its OSS; the first block write to
/// an OSS already caught, or the end of the write wave, kills the process (that thread
/// would not have gone on). Why (session 11): the CI run that lost bytes had two OSSs'
/// threads in torn blocks of one stripe, a state one thread at a time never reaches.
pub const KILL_TEAR_EVERY_OSS_ENV: &str = "EXARAID_KILL_TEAR_EVERY_OSS";

/// Set to a seed (a decimal `u64`): every plan runs its steps one at a time on the calling
/// thread, in a seeded random merge of its per-OSS step lists (each OSS's own steps in plan
/// order, as its per-OSS thread runs them; the OSSs interleaved as the threads may be),
/// instead of one thread per OSS or plan order. The same seed gives the same order for the
/// same group of steps, the groups counted in this process from its start (see
/// [`seeded_merge`]). Why (session 32, s32e; a knob since session 33, s33g): R30-1 lost a
/// home stripe in 104 of 300 raid6 seeds of this merge and in 0 of 30 runs in thread order:
/// plan order and its reverse check one interleaving each, the threads reach the others
/// rarely and never twice alike. A test knob, like [`KILL_AT_ENV`]: unset (the default) it
/// costs one read of a cached `Option` per group of steps; refused beside
/// [`KILL_IN_REVERSED_PLAN_ORDER_ENV`] (one order at a time).
pub const STEP_ORDER_SEED_ENV: &str = "EXARAID_STEP_ORDER_SEED";

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The OSSs (backend directories) caught in a torn block ([`KILL_TEAR_EVERY_OSS_ENV`]).
static CAUGHT: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn tear_every_oss() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        kill_test_in_plan_order() && std::env::var_os(KILL_TEAR_EVERY_OSS_ENV).is_some()
    })
}

fn kill_now() -> ! {
    // SAFETY: kill(2) on our own pid has no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    // SIGKILL to ourselves is delivered before kill(2) returns; never go on.
    std::process::abort();
}

/// Called by the backend before a block write's payload to OSS `oss` (its directory),
/// before anything of it is done: [`WRITE_BEFORE_BLOCK`] is passed here (`what` names the
/// block write it kills before, on stderr); with [`KILL_TEAR_EVERY_OSS_ENV`], an OSS already
/// caught in a torn block writes nothing more.
pub fn before_block_write(oss: &str, what: &dyn Fn() -> String) {
    if armed().is_none() {
        return;
    }
    if SETTLING.load(Ordering::SeqCst) {
        kill_point_naming(SETTLE_BEFORE_BLOCK, &|| format!("{} (before it)", what()));
        return;
    }
    kill_point_naming(WRITE_BEFORE_BLOCK, &|| format!("{} (before it)", what()));
    if !tear_every_oss() {
        return;
    }
    if CAUGHT.lock().unwrap().iter().any(|o| o == oss) {
        eprintln!("exaraid: killed at a block write to {oss}, caught in a torn block before");
        kill_now();
    }
}

/// Called by the store after a write wave's steps returned: with
/// [`KILL_TEAR_EVERY_OSS_ENV`], a wave that left OSSs in torn blocks never goes on.
pub fn write_wave_done() {
    if armed().is_none() || !tear_every_oss() {
        return;
    }
    if !CAUGHT.lock().unwrap().is_empty() {
        eprintln!("exaraid: killed after the write wave (OSSs caught in torn blocks)");
        kill_now();
    }
}

/// Do plans run their steps one at a time in plan order (see [`KILL_IN_PLAN_ORDER_ENV`],
/// [`run_steps_in_plan_order_in_this_process`])? Only under a kill test or an in-process
/// test that asked: never in a store that is not under test.
pub fn steps_in_plan_order() -> bool {
    STEPS_IN_PLAN_ORDER_ASKED.load(Ordering::SeqCst) || kill_test_in_plan_order()
}

fn kill_test_in_plan_order() -> bool {
    static IN_ORDER: OnceLock<bool> = OnceLock::new();
    *IN_ORDER.get_or_init(|| match armed() {
        None => false,
        // Its count means "block writes before it whole" only in plan order.
        Some((point, _)) if point == WRITE_BEFORE_BLOCK || point == SETTLE_BEFORE_BLOCK => true,
        Some(_) => {
            std::env::var_os(KILL_IN_PLAN_ORDER_ENV).is_some()
                || std::env::var_os(KILL_IN_REVERSED_PLAN_ORDER_ENV).is_some()
        }
    })
}

/// The seed of [`STEP_ORDER_SEED_ENV`], read once; `None` when unset (the default).
pub fn step_order_seed() -> Option<u64> {
    static SEED: OnceLock<Option<u64>> = OnceLock::new();
    *SEED.get_or_init(|| {
        let value = std::env::var(STEP_ORDER_SEED_ENV).ok()?;
        let seed = value.trim().parse::<u64>().unwrap_or_else(|_| {
            panic!("{STEP_ORDER_SEED_ENV}={value:?}: a seed is a decimal u64")
        });
        assert!(
            std::env::var_os(KILL_IN_REVERSED_PLAN_ORDER_ENV).is_none(),
            "{STEP_ORDER_SEED_ENV} and {KILL_IN_REVERSED_PLAN_ORDER_ENV} are two step orders: set one"
        );
        Some(seed)
    })
}

/// Groups of steps merged under [`STEP_ORDER_SEED_ENV`] in this process so far.
static SEEDED_WAVES: AtomicU64 = AtomicU64::new(0);

/// The order in which the steps of one group run under [`STEP_ORDER_SEED_ENV`] (`seed`):
/// [`seeded_merge`] of its per-OSS step lists, this group's wave the next one.
pub fn steps_in_seeded_order(seed: u64, per_oss: &[&[usize]]) -> Vec<usize> {
    let wave = SEEDED_WAVES.fetch_add(1, Ordering::SeqCst);
    seeded_merge(seed, wave, per_oss)
}

/// Steps in one group beyond which a merge is a bug, not a plan.
const SEEDED_MERGE_STEPS_MAX: usize = 1 << 20;

/// A random merge of `lists` drawn from (`seed`, `wave`): at each pick one list not yet
/// empty is drawn, its first step taken. Each list's own order is kept; the result is a
/// permutation of all their steps. (The draws are s32e's scratch instrument's, kept so its
/// seeds lay the same orders: splitmix64 from `seed` and `wave`.)
pub fn seeded_merge(seed: u64, wave: u64, lists: &[&[usize]]) -> Vec<usize> {
    let total: usize = lists.iter().map(|l| l.len()).sum();
    assert!(
        total <= SEEDED_MERGE_STEPS_MAX,
        "{total} steps in one group"
    );
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ wave.wrapping_mul(0xD1B5_4A32_D192_ED69);
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut taken = vec![0usize; lists.len()];
    let mut order: Vec<usize> = Vec::with_capacity(total);
    while order.len() < total {
        let live: Vec<usize> = (0..lists.len())
            .filter(|&j| taken[j] < lists[j].len())
            .collect();
        let j = live[(next() % live.len() as u64) as usize];
        order.push(lists[j][taken[j]]);
        taken[j] += 1;
    }
    // A permutation that keeps each list's order: every list exhausted, each step placed
    // once, and each list's steps at rising places (linear: plans may hold many steps).
    assert!(taken.iter().zip(lists).all(|(&t, l)| t == l.len()));
    let steps_end = order.iter().max().map_or(0, |&i| i + 1);
    let mut place = vec![usize::MAX; steps_end];
    for (p, &i) in order.iter().enumerate() {
        assert_eq!(place[i], usize::MAX, "step {i} placed twice");
        place[i] = p;
    }
    for list in lists {
        assert!(
            list.windows(2).all(|w| place[w[0]] < place[w[1]]),
            "a list's order kept"
        );
    }
    order
}

/// Do the OSSs of a group of steps run in reversed plan order (see
/// [`KILL_IN_REVERSED_PLAN_ORDER_ENV`])? Only under a kill test.
pub fn steps_in_reversed_plan_order() -> bool {
    static REVERSED: OnceLock<bool> = OnceLock::new();
    *REVERSED.get_or_init(|| {
        armed().is_some() && std::env::var_os(KILL_IN_REVERSED_PLAN_ORDER_ENV).is_some()
    })
}

static STEPS_IN_PLAN_ORDER_ASKED: AtomicBool = AtomicBool::new(false);

/// From now on every plan of every store in this process runs its steps one at a time in
/// plan order (as [`KILL_IN_PLAN_ORDER_ENV`] does for a kill test), for good. For in-process
/// power-cut tests (tests/common/powercut.rs), whose images are taken before each mutating
/// backend call in the order the calls arrive: with one thread per OSS that order, and so
/// which disks the images are, changed from run to run with the machine's load (s27e: the
/// torn scene of `s25c_confirm_by_versions_exactly_k.rs` checked 8, 10 or 14 power cuts).
pub fn run_steps_in_plan_order_in_this_process() {
    STEPS_IN_PLAN_ORDER_ASKED.store(true, Ordering::SeqCst);
}

/// Every point `EXARAID_KILL_AT` can arm. Why a list: a name the store does not pass
/// killed nothing, silently, so a sweep armed with a misspelled or retired point (s26e's
/// `block-page-cut`, merged into `write-page-cut` in session 27) ran every trial unkilled
/// and looked clean.
pub const KILL_POINTS: &[&str] = &[
    SETTLE_BEGUN,
    SETTLE_ELEMENT,
    SETTLE_STRIPE,
    SETTLE_SYNCED,
    SETTLE_TORN_BLOCK,
    WRITE_TORN_BLOCK,
    WRITE_BEFORE_BLOCK,
    SETTLE_BEFORE_BLOCK,
    WRITE_PAGE_CUT,
    WRITE_PAGE_CUT_LAST,
    SETTLE_PAGE_CUT,
    SETTLE_PAGE_CUT_LAST,
    REBUILD_BEGUN,
    REBUILD_ELEMENT,
    REBUILD_SWITCHED,
    REBUILD_DONE,
    REMOVE_ZONE,
    ONLINE_STRIPE,
    ONLINE_BACK,
    ONLINE_BACK_RANGE,
    INIT_STEP,
    JOURNAL_RECORD,
    JOURNAL_TAIL,
    JOURNAL_CUT_WRITE,
    GAP_FILL_TORN,
    EXTENTS_SYNCED,
    JOURNAL_MARK_WRITTEN,
];

/// `EXARAID_KILL_AT`'s value as `(point, n)`, or what is wrong with it: unset is `Ok(None)`.
fn parse_kill_at(value: Option<&str>) -> Result<Option<(String, u64)>, String> {
    let Some(v) = value else {
        return Ok(None);
    };
    let bad = |why: &str| {
        format!(
            "{KILL_AT_ENV}={v:?}: {why}; it takes <point>:<n> (n from 1), <point> one of: {}",
            KILL_POINTS.join(", ")
        )
    };
    let Some((point, n)) = v.rsplit_once(':') else {
        return Err(bad("no `:<n>`"));
    };
    let Some(n) = n.parse::<u64>().ok().filter(|&n| n >= 1) else {
        return Err(bad("<n> is not a whole number from 1"));
    };
    if !KILL_POINTS.contains(&point) {
        return Err(bad(&format!("`{point}` is not a kill point")));
    }
    Ok(Some((point.to_string(), n)))
}

/// What is wrong with `EXARAID_KILL_AT` in this process's environment, if anything: a
/// binary checks it first and refuses to run (the store would otherwise panic at its first
/// kill point rather than run unkilled).
pub fn kill_at_env_error() -> Option<String> {
    parse_kill_at(std::env::var(KILL_AT_ENV).ok().as_deref()).err()
}

/// The armed point and the hit it fires on, read once.
fn armed() -> Option<&'static (String, u64)> {
    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    ARMED
        .get_or_init(|| {
            parse_kill_at(std::env::var(KILL_AT_ENV).ok().as_deref())
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .as_ref()
}

static HITS: AtomicU64 = AtomicU64::new(0);
static SETTLING: AtomicBool = AtomicBool::new(false);

/// Pass kill point `point`.
pub fn kill_point(point: &str) {
    kill_point_naming(point, &|| String::new());
}

/// Pass kill point `point`; when it fires, `what` names the place on stderr first (which
/// block of which OSS a torn block write tore), for the test that reads it.
fn kill_point_naming(point: &str, what: &dyn Fn() -> String) {
    let Some((armed_point, n)) = armed() else {
        return;
    };
    if armed_point == point && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *n {
        let what = what();
        if !what.is_empty() {
            eprintln!("exaraid: killed at {point}:{n}: {what}");
        }
        // SAFETY: kill(2) on our own pid has no memory-safety preconditions.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        // SIGKILL to ourselves is delivered before kill(2) returns; never go on.
        std::process::abort();
    }
}

/// Pass kill point `point` of a write that a crash tears: when it fires, `write_part` runs
/// first (it writes part of the bytes), then the process is killed.
pub fn torn_write_point(point: &str, write_part: impl FnOnce()) {
    let Some((armed_point, n)) = armed() else {
        return;
    };
    if armed_point == point && HITS.load(Ordering::SeqCst) + 1 == *n {
        write_part();
    }
    kill_point(point);
}

/// The page-cut point armed (the one parser of the family): whether it counts settle
/// writes, and where it cuts.
fn page_cut_armed() -> Option<(bool, PageCut, u64)> {
    let (point, n) = armed()?;
    let (settle, cut) = match point.as_str() {
        WRITE_PAGE_CUT => (false, PageCut::First),
        WRITE_PAGE_CUT_LAST => (false, PageCut::Last),
        SETTLE_PAGE_CUT => (true, PageCut::First),
        SETTLE_PAGE_CUT_LAST => (true, PageCut::Last),
        _ => return None,
    };
    Some((settle, cut, *n))
}

/// Called by the backend before every block write's payload: where the armed page-cut
/// point ([`WRITE_PAGE_CUT`] and its family) fires on this write, `write_head` runs with
/// the boundary to stop at (it writes the payload up to it), then the process is killed;
/// `what` names the blocks on stderr for the test that reads it.
pub fn page_cut_point(what: &dyn Fn() -> String, write_head: impl FnOnce(PageCut)) {
    let Some((settle, cut, n)) = page_cut_armed() else {
        return;
    };
    if settle != SETTLING.load(Ordering::SeqCst) {
        return;
    }
    if HITS.fetch_add(1, Ordering::SeqCst) + 1 == n {
        write_head(cut);
        let (point, _) = armed().expect("armed");
        eprintln!("exaraid: killed at {point}:{n}: {}", what());
        kill_now();
    }
}

/// A settle starts (`true`) or ends (`false`): block writes count as [`SETTLE_TORN_BLOCK`]
/// only in between.
pub fn settling(on: bool) {
    if armed().is_some() {
        SETTLING.store(on, Ordering::SeqCst);
    }
}

/// Called by the backend between a block write's payload and its checksums to OSS `oss`;
/// `what` names the blocks (OSS, element, block range) on stderr when the point fires.
/// `true`: leave the checksums unwritten (the OSS is caught in this torn block, see
/// [`KILL_TEAR_EVERY_OSS_ENV`]).
pub fn kill_point_between_payload_and_checksum(oss: &str, what: &dyn Fn() -> String) -> bool {
    if armed().is_none() {
        return false;
    }
    if tear_every_oss() && !SETTLING.load(Ordering::SeqCst) {
        let mut caught = CAUGHT.lock().unwrap();
        let tear = !caught.is_empty() || {
            let (armed_point, n) = armed().expect("checked above");
            armed_point == WRITE_TORN_BLOCK && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *n
        };
        if tear {
            eprintln!("exaraid: torn (payload, no checksum): {}", what());
            caught.push(oss.to_string());
        }
        return tear;
    }
    if SETTLING.load(Ordering::SeqCst) {
        kill_point_naming(SETTLE_TORN_BLOCK, what);
    } else {
        kill_point_naming(WRITE_TORN_BLOCK, what);
    }
    false
}

// ---------------------------------------------------------------- power-cut emulation

/// Is some test tracking journal fsyncs (`track_journal_syncs`)? Unset, each journal fsync
/// costs one load more.
static JOURNAL_SYNCS_TRACKED: AtomicBool = AtomicBool::new(false);
/// Per tracked journal file, the length its last fsync made durable.
static JOURNAL_SYNCED: Mutex<Vec<(std::path::PathBuf, u64)>> = Mutex::new(Vec::new());
/// Tracked journals at most: a power-cut test tracks one or two stores, and a test binary
/// of many test files runs many such tests in one process; past it the journals whose
/// files are gone (their test's temporary directory removed) are forgotten.
const JOURNALS_TRACKED_MAX: usize = 64;

/// A power-cut test (crates/store/tests/common/powercut.rs) tracks how much of the journal
/// file at `path` its fsyncs made durable, from `durable_bytes` (its length now, synced by
/// the test's choice) on. Why in the store: the journal's fsyncs are the store's own (an
/// append's, a group commit's on a second handle), which no backend wrapper sees, and a
/// power cut keeps only what they made durable.
pub fn track_journal_syncs(path: &std::path::Path, durable_bytes: u64) {
    let mut synced = JOURNAL_SYNCED.lock().unwrap();
    synced.retain(|(p, _)| p != path);
    if synced.len() >= JOURNALS_TRACKED_MAX {
        synced.retain(|(p, _)| p.exists());
    }
    assert!(
        synced.len() < JOURNALS_TRACKED_MAX,
        "too many tracked journals whose files still exist"
    );
    synced.push((path.to_path_buf(), durable_bytes));
    JOURNAL_SYNCS_TRACKED.store(true, Ordering::SeqCst);
}

/// The length of the tracked journal at `path` its last fsync made durable.
pub fn journal_synced_bytes(path: &std::path::Path) -> Option<u64> {
    let synced = JOURNAL_SYNCED.lock().unwrap();
    synced.iter().find(|(p, _)| p == path).map(|&(_, n)| n)
}

/// Is any journal tracked? The caller then measures what its fsync covers.
pub(crate) fn journal_syncs_tracked() -> bool {
    JOURNAL_SYNCS_TRACKED.load(Ordering::Relaxed)
}

/// Called after an fsync of the journal at `path` returned: its first `len_bytes` are
/// durable (a truncation makes the durable length shorter, so it is set, not maxed).
pub(crate) fn journal_synced(path: &std::path::Path, len_bytes: u64) {
    if !journal_syncs_tracked() {
        return;
    }
    let mut synced = JOURNAL_SYNCED.lock().unwrap();
    if let Some(entry) = synced.iter_mut().find(|(p, _)| p == path) {
        entry.1 = len_bytes;
    }
}

// ---------------------------------------------------------------- journal fsync failures

/// Journal fsyncs a test made fail (`fail_journal_fsyncs`), still to come.
static JOURNAL_FSYNC_FAILURES: AtomicU32 = AtomicU32::new(0);

/// Tests only: the next `n` fsyncs of any journal in this process (an append's, a group
/// commit's, a checkpoint's) return EIO after they ran, as the kernel reports a writeback
/// error once: to whichever fsync of the open file comes first. Never set by the store.
#[doc(hidden)]
pub fn fail_journal_fsyncs(n: u32) {
    JOURNAL_FSYNC_FAILURES.store(n, Ordering::SeqCst);
}

/// Run `fsync`, one fsync of a journal file: its result, or EIO where a test asked for a
/// failure (`fail_journal_fsyncs`). One load unless a test did.
pub(crate) fn journal_fsync(fsync: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<()> {
    let result = fsync();
    let injected = JOURNAL_FSYNC_FAILURES
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if injected {
        return Err(std::io::Error::from_raw_os_error(libc::EIO));
    }
    result
}

/// Journal truncations a test made fail (`fail_journal_truncations`), still to come.
static JOURNAL_TRUNCATION_FAILURES: AtomicU32 = AtomicU32::new(0);

/// Tests only: the next `n` truncations of any journal in this process (a checkpoint's
/// `set_len(0)`) return EIO without changing the file. Never set by the store.
#[doc(hidden)]
pub fn fail_journal_truncations(n: u32) {
    JOURNAL_TRUNCATION_FAILURES.store(n, Ordering::SeqCst);
}

/// Run `truncate`, one truncation of a journal file: its result, or EIO without running
/// it where a test asked for a failure (`fail_journal_truncations`).
pub(crate) fn journal_truncate(
    truncate: impl FnOnce() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let injected = JOURNAL_TRUNCATION_FAILURES
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if injected {
        return Err(std::io::Error::from_raw_os_error(libc::EIO));
    }
    truncate()
}

#[cfg(test)]
mod kill_at_tests {
    use super::*;

    #[test]
    fn a_known_point_and_count_arm_it() {
        assert_eq!(
            parse_kill_at(Some("write-page-cut:3")),
            Ok(Some(("write-page-cut".to_string(), 3)))
        );
        assert_eq!(parse_kill_at(None), Ok(None));
        assert_eq!(
            parse_kill_at(Some("write-before-block:2")),
            Ok(Some(("write-before-block".to_string(), 2)))
        );
    }

    #[test]
    fn an_unknown_or_retired_point_is_refused_naming_the_known_ones() {
        let e = parse_kill_at(Some("block-page-cut:4")).unwrap_err();
        assert!(e.contains("`block-page-cut` is not a kill point"), "{e}");
        assert!(e.contains("write-page-cut-last"), "{e}");
    }

    #[test]
    fn a_value_without_a_count_from_1_is_refused() {
        for v in ["journal-record", "journal-record:0", "journal-record:x"] {
            assert!(parse_kill_at(Some(v)).is_err(), "{v}");
        }
    }
}

#[cfg(test)]
mod seeded_merge_tests {
    use super::*;

    /// Per-OSS step lists as `run_steps` builds them: step indices, each in one list.
    fn lists_of(shape: &[usize]) -> Vec<Vec<usize>> {
        let mut next = 0;
        shape
            .iter()
            .map(|&n| {
                let l: Vec<usize> = (next..next + n).collect();
                next += n;
                l
            })
            .collect()
    }

    fn merge(seed: u64, wave: u64, lists: &[Vec<usize>]) -> Vec<usize> {
        let slices: Vec<&[usize]> = lists.iter().map(Vec::as_slice).collect();
        seeded_merge(seed, wave, &slices)
    }

    #[test]
    fn a_merge_is_a_permutation_keeping_each_oss_steps_in_plan_order() {
        for (s, shape) in [&[1usize, 1][..], &[3, 2, 4, 1, 2, 2], &[5], &[0, 2, 0, 3]]
            .iter()
            .enumerate()
        {
            let lists = lists_of(shape);
            for seed in 0..64u64 {
                let order = merge(seed, s as u64, &lists);
                let mut sorted = order.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..shape.iter().sum()).collect::<Vec<_>>());
                for l in &lists {
                    let mine: Vec<usize> =
                        order.iter().copied().filter(|i| l.contains(i)).collect();
                    assert_eq!(&mine, l, "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn the_same_seed_and_wave_give_the_same_order() {
        let lists = lists_of(&[3, 2, 4, 1, 2, 2]);
        for seed in 0..32u64 {
            assert_eq!(merge(seed, 5, &lists), merge(seed, 5, &lists));
        }
    }

    #[test]
    fn seeds_and_waves_give_different_orders_on_a_multi_oss_group() {
        let lists = lists_of(&[3, 2, 4, 1, 2, 2]);
        let orders: std::collections::BTreeSet<Vec<usize>> =
            (0..32u64).map(|seed| merge(seed, 0, &lists)).collect();
        // 14 steps over 6 OSSs have millions of merges: 32 seeds drawing fewer than 30
        // distinct ones would mean the seed barely reaches the order.
        assert!(
            orders.len() >= 30,
            "{} distinct orders of 32 seeds",
            orders.len()
        );
        let waves: std::collections::BTreeSet<Vec<usize>> =
            (0..32u64).map(|wave| merge(7, wave, &lists)).collect();
        assert!(
            waves.len() >= 30,
            "{} distinct orders of 32 waves",
            waves.len()
        );
    }

    #[test]
    fn one_oss_runs_in_plan_order_whatever_the_seed() {
        let lists = lists_of(&[6]);
        for seed in 0..16u64 {
            assert_eq!(merge(seed, seed, &lists), lists[0]);
        }
    }
}
