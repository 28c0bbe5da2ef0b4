//! `exaraid store ...`: the real parity-protected store (crate exaraid-store). This file only
//! parses arguments and prints; every operation is one call of the `Store` API.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::store::{LostRangeStatus, PUT_PIECE_BYTES};
use exaraid_store::{
    InitOptions, OpenOptions, Store, StoreError, WritePath, WRITE_CHUNK_BYTES_MAX,
};

#[derive(Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
    /// How long a command waits for the store while another process has it open (one
    /// process at a time: commands run one after the other), in milliseconds, before it
    /// gives up with nothing done (at least one attempt, about 3 s).
    #[arg(long, global = true, default_value_t = LOCK_WAIT_MS_DEFAULT)]
    lock_wait_ms: u64,
}

/// Many ranks of one job each running a command (the delayed-window example) queue on the
/// store's lock; the library's own wait is a few seconds, too short for a queue of dozens
/// (review s7r R7-7: 14 of 48 concurrent writes failed after 3 s).
const LOCK_WAIT_MS_DEFAULT: u64 = 60_000;
/// Upper limit of --lock-wait-ms: one day.
const LOCK_WAIT_MS_MAX: u64 = 86_400_000;

/// Set once at the start of `run`: every open of this one-command process waits as long.
static LOCK_WAIT_MS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Open the store with `opener`, again and again while another process holds it, for at most
/// --lock-wait-ms.
fn open_waiting(opener: impl Fn() -> Result<Store, StoreError>) -> Result<Store> {
    let wait_ms = *LOCK_WAIT_MS.get().unwrap_or(&LOCK_WAIT_MS_DEFAULT);
    let start = std::time::Instant::now();
    loop {
        match opener() {
            // Each attempt already waited a few seconds inside `open`.
            Err(StoreError::Busy(_)) if (start.elapsed().as_millis() as u64) < wait_ms => {}
            Err(StoreError::Busy(m)) => {
                let waited_ms = start.elapsed().as_millis();
                bail!("{m}; gave up after waiting {waited_ms} ms (--lock-wait-ms {wait_ms}; one attempt waits about 3 s, so a shorter wait is one attempt)")
            }
            other => {
                let store = other?;
                // Every command says so until a scrub checked the parity (review s9r R9-3).
                if let Some(warning) = store.journal_tail_cut_warning() {
                    eprintln_lossy!("exaraid: warning: {warning}");
                }
                return Ok(store);
            }
        }
    }
}

#[derive(Subcommand)]
enum StoreCommand {
    /// Create a store: its superblock in DIR and one directory per OSS.
    Init(InitArgs),
    /// Store stdin as file NAME (replacing it). Refused, nothing changed, while NAME has an
    /// open delayed window: end it first (`delayed end`).
    Put {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
    },
    /// Write file NAME to stdout.
    Get {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
    },
    /// Write stdin at --offset of file NAME (created if missing), in 8 MiB pieces, each
    /// durable before the next is read: exit 0 when all of it is durable; an error says up
    /// to which offset it is.
    Write {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
        /// Byte offset in the file where stdin's first byte goes (past the end: the gap
        /// reads as zeros).
        #[arg(long)]
        offset: u64,
    },
    /// Write --length bytes at --offset of file NAME to stdout.
    Read {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
        /// Byte offset in the file of the first byte to read.
        #[arg(long)]
        offset: u64,
        /// How many bytes to read: the range must end inside the file, and one read
        /// returns at most 4 GiB (`get` streams a whole file).
        #[arg(long)]
        length: u64,
    },
    /// List the files and their sizes.
    Ls {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// Print JSON (an array of {name, size_bytes}).
        #[arg(long)]
        json: bool,
    },
    /// Remove file NAME. Refused, nothing changed, while NAME has an open delayed window:
    /// end it first (`delayed end`).
    Rm {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
    },
    /// Move every byte waiting in the cache zones home with parity now; bytes of open delayed
    /// windows get their parity now too (the windows stay open).
    Flush {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
    },
    /// Per-OSS health and operation counters, bytes waiting for parity, open delayed windows,
    /// bytes lost with an OSS that failed inside a delayed window.
    Status {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// Print JSON: {oss: [{index, path, healthy, ops: {data_read, data_write, parity_read,
        /// parity_write, cache_read, cache_write}, missing, problem?}], bytes_waiting_parity,
        /// bytes_unprotected,
        /// open_windows, lost_ranges: [{file, offset_bytes, len_bytes, oss, window}], ...}.
        #[arg(long)]
        json: bool,
    },
    /// Mark OSS I failed (as if its disk died): reads are rebuilt from parity until `rebuild`
    /// (or `online`, which takes a mistaken `fail` back).
    Fail {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The index I of the OSS to mark failed (0 .. OSS count - 1; `status` lists them).
        #[arg(long)]
        oss: usize,
    },
    /// Use failed OSS I again without a rebuild (a mistaken `fail`): only if its directory
    /// carries its label at the generation on record and no rebuild of it began. What
    /// changed while it was failed is taken back: its stale columns are rewritten from the
    /// others, and the bytes its `fail` recorded lost are read back from its cache zone
    /// where their checksums verify. Past the bound of changes on record, `rebuild` is
    /// needed, and said so. Killed part way, run it again.
    Online {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The index I of the failed OSS to use again (`status` lists the failed ones).
        #[arg(long)]
        oss: usize,
    },
    /// Rewrite OSS I's damaged label (`exaraid-oss.json`: unreadable, unparseable, or
    /// disagreeing with the superblock) from the superblock. Refused, nothing changed, unless
    /// the directory is shown to be that OSS of this store: its epoch file names this store
    /// directory, and every written block on it verifies under this store's and this OSS's
    /// checksums. A label that parses and names another store or OSS is never rewritten. An
    /// OSS failed on record still needs `online` (or `rebuild`) afterwards.
    RepairLabel {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The index I of the OSS whose label is damaged (`status` names it).
        #[arg(long)]
        oss: usize,
    },
    /// Rebuild everything failed OSS I holds from the other OSSs, onto --to NEWDIR or in place.
    /// A rebuild that was interrupted is finished by running the same command again.
    Rebuild {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The index I of the failed OSS to rebuild (`status` lists the failed ones).
        #[arg(long)]
        oss: usize,
        /// A new, empty directory that replaces the OSS (default: its own directory), or the
        /// one an interrupted `rebuild --to` of this OSS left.
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// Verify every element checksum and every stripe's parity; --repair fixes from parity.
    Scrub {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// Also rewrite what is found wrong where the rest of its stripe shows which bytes
        /// are right (a corrupt element rebuilt from parity, its checksums confirming it);
        /// anything else is reported (`unrepairable`) and left as it is.
        #[arg(long)]
        repair: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// After a clean scrub, accept the damaged journal records on record (the warning
        /// every command prints names them): their warning ends. Check the files changed
        /// last first: what such a record held is unknown.
        #[arg(long)]
        accept_journal_damage: bool,
    },
    /// Delayed-parity windows (START_DELAYED / END_DELAYED hints).
    Delayed {
        #[command(subcommand)]
        command: DelayedCommand,
    },
    /// Throughput and per-OSS operation counts of raid0, rmw, wcl and delayed, beside the raw
    /// write bandwidth of the same directories.
    Bench(BenchArgs),
    /// Test helper for the crash-injection test: writes a deterministic sequence of writes
    /// and prints "ack I" after each acknowledged one.
    #[command(hide = true)]
    Torture {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// Seed of the deterministic write sequence.
        #[arg(long)]
        seed: u64,
        /// Index of the first write of the sequence to run.
        #[arg(long)]
        start: u64,
        /// How many writes to run.
        #[arg(long)]
        count: u64,
        /// Wrap every 8 writes in a delayed window (ends windows left open first).
        #[arg(long)]
        windows: bool,
    },
}

#[derive(Subcommand)]
enum DelayedCommand {
    /// START_DELAYED on file NAME: prints the window's token. A NAME that does not exist yet
    /// is created empty (an application announces the file it is about to write), and a
    /// note on stderr says so.
    Start {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The file's name in the store (`ls` lists them).
        name: String,
    },
    /// END_DELAYED: returns when the parity of the window's stripes is durable.
    End {
        /// The store's directory (where its superblock is).
        dir: PathBuf,
        /// The window's token, as `delayed start` printed it (`status` lists open windows).
        token: String,
    },
}

#[derive(Args)]
struct InitArgs {
    /// The store's directory (superblock, journal; OSS directories by default).
    dir: PathBuf,
    /// Number of OSSs, created as DIR/oss-0 .. DIR/oss-{N-1}.
    #[arg(long, conflicts_with = "oss_dirs")]
    oss: Option<usize>,
    /// OSS directories, comma-separated (one per disk or OST).
    #[arg(long, value_delimiter = ',')]
    oss_dirs: Option<Vec<PathBuf>>,
    /// Code: raid5, raid6, rs, evenodd, rdp, xcode, hcode, hdp, dcode.
    #[arg(long)]
    code: String,
    /// Data columns (raid5, raid6, rs). Default: OSS count minus parity columns.
    #[arg(long)]
    k: Option<usize>,
    /// Parity columns (rs).
    #[arg(long)]
    m: Option<usize>,
    /// The prime of an array code.
    #[arg(long)]
    p: Option<usize>,
    /// Stripe unit in bytes: a multiple of 4096 from 4096 to 4194304.
    #[arg(long, default_value_t = 1 << 20)]
    stripe_unit: usize,
    /// Write path: rmw (STD-RAID), wcl (Write Cache Layer), delayed (rmw outside windows;
    /// inside `delayed start` .. `end` windows cache-zone writes with no parity until END),
    /// raid0 (no parity, benchmarks only: data striped over as many columns as the
    /// code has, parity columns included).
    #[arg(long, default_value = "rmw")]
    write_path: String,
    /// Emulate OSS disks of this many bytes each (to test a full disk).
    #[arg(long)]
    oss_capacity: Option<u64>,
    /// A delayed window without END for this long gets its parity anyway (milliseconds).
    #[arg(long, default_value_t = 600_000)]
    window_timeout_ms: u64,
    /// Advance parity in the background when open windows hold more unprotected bytes.
    #[arg(long, default_value_t = 1 << 30)]
    unprotected_max_bytes: u64,
}

fn code_spec(a: &InitArgs, oss_count: usize) -> Result<CodeSpec> {
    let kind = CodeKind::from_name(&a.code)?;
    // A parameter the code does not take is refused, not dropped: the user meant something
    // by it, and a store cannot change its code later (review s6r R6-3).
    let given = [("--k", a.k), ("--m", a.m), ("--p", a.p)];
    let takes: &[&str] = match kind {
        CodeKind::Raid5 | CodeKind::Raid6 => &["--k"],
        CodeKind::Rs => &["--k", "--m"],
        _ => &["--p"],
    };
    for (flag, value) in given {
        if value.is_some() && !takes.contains(&flag) {
            bail!(
                "{flag} does not apply to {}: it takes {} only ({}); drop {flag}",
                a.code,
                takes.join(" and "),
                match kind {
                    CodeKind::Raid5 => "its parity is one column",
                    CodeKind::Raid6 => "its parity is two columns",
                    CodeKind::Rs => "data and parity columns",
                    _ => "an array code's geometry follows from its prime",
                }
            );
        }
    }
    Ok(match kind {
        CodeKind::Raid5 => CodeSpec::raid5(a.k.unwrap_or(oss_count.saturating_sub(1))),
        CodeKind::Raid6 => CodeSpec::raid6(a.k.unwrap_or(oss_count.saturating_sub(2))),
        CodeKind::Rs => {
            let m =
                a.m.context("rs needs --m (parity columns), e.g. --k 4 --m 2")?;
            CodeSpec::rs(a.k.unwrap_or(oss_count.saturating_sub(m)), m)
        }
        _ => CodeSpec::array(
            kind,
            a.p.with_context(|| {
                format!(
                    "{} is an array code: give its prime with --p, e.g. --p 5",
                    a.code
                )
            })?,
        ),
    })
}

/// `println!` that returns the error instead of panicking: a reader that closed its end
/// of the pipe (`exaraid store status DIR | head -1`) ends the command quietly (see
/// `main`), never with a panic (review s4e Minor).
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)?
    };
}

/// A closed stdin (fd 0 not open at start) is no input at all, not an empty one: refused
/// before the store is opened, so file `name` is unchanged. Why not read it as empty: a
/// `put` from a wrapper that closed fd 0 replaced the file with an empty one, exit 0.
fn refuse_closed_stdin(command: &str, name: &str) -> Result<()> {
    if crate::stdin_at_start::was_closed() {
        bail!(
            "refused, nothing changed: stdin is closed (file descriptor 0 was not open), so `{command}` has no input for '{}'; give the bytes on stdin (`< FILE` or a pipe); for an empty file use `< /dev/null`",
            shown(name)
        );
    }
    if let Some(why) = stdin_unreadable() {
        bail!(
            "refused, nothing changed: stdin {why}, so `{command}` cannot read input for '{}'; give the bytes on stdin opened for reading (`< FILE` or a pipe); for an empty file use `< /dev/null`",
            shown(name)
        );
    }
    Ok(())
}

/// Why fd 0, open, cannot be read, if it cannot. Rust's `Stdin` takes EBADF as end of
/// input, and a read of an fd opened write-only (`0> FILE`) or as a bare path (O_PATH) fails
/// EBADF: `put` then replaced the file with an empty one, exit 0 (review s16r R16-2).
fn stdin_unreadable() -> Option<&'static str> {
    // SAFETY: F_GETFL only reads the open file description's status flags of fd 0.
    let flags = unsafe { libc::fcntl(0, libc::F_GETFL) };
    if flags == -1 {
        return Some("is not an open file descriptor");
    }
    if flags & libc::O_ACCMODE == libc::O_WRONLY {
        return Some("is open for writing only (`0> FILE`?)");
    }
    #[cfg(target_os = "linux")]
    if flags & libc::O_PATH != 0 {
        return Some("is a path-only descriptor (O_PATH)");
    }
    None
}

/// `write`'s stdin: its first piece (up to `PUT_PIECE_BYTES`) is read before the store is
/// opened, then the rest streams (`Store::write_from`). Why read first: a command of the
/// same store ahead in a pipe (`exaraid store read S a ... | exaraid store write S b ...`)
/// holds the store (one process at a time) until it has its bytes, and `read` closes the
/// store before it prints: so that pipe works as when `write` read its stdin whole.
fn stdin_first_piece() -> Result<Vec<u8>> {
    let mut first = Vec::new();
    std::io::stdin()
        .lock()
        .take(PUT_PIECE_BYTES as u64)
        .read_to_end(&mut first)
        .context("reading stdin")?;
    Ok(first)
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).map_err(stdout_failed)?;
    out.flush().map_err(stdout_failed)?;
    Ok(())
}

/// A failed write of the bytes `get` or `read` read to stdout, said as what it is: the
/// error alone ("File too large (os error 27)" under `ulimit -f`) read as the store's.
/// A reader that went away stays a plain broken pipe (`main` ends quietly).
fn stdout_failed(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return e.into();
    }
    let what_to_do = if e.raw_os_error() == Some(libc::EFBIG) {
        "the file stdout goes to reached the file size limit (`ulimit -f`, RLIMIT_FSIZE): raise the limit, or send stdout elsewhere, and run the command again"
    } else {
        "check where stdout goes (a full disk, a closed file) and run the command again"
    };
    anyhow::Error::new(e).context(format!(
        "writing the bytes read to stdout failed, so it holds only part of them; nothing in the store changed; {what_to_do}"
    ))
}

/// Longest file `get` reads whole into memory and writes after closing the store (see
/// `StoreCommand::Get`): one streamed piece, so no more memory than a longer file takes.
const GET_IN_MEMORY_BYTES_MAX: u64 = WRITE_CHUNK_BYTES_MAX;

/// Most zero bytes `get` writes at once for a hole of a sparse file.
const ZEROS_PIECE_BYTES: usize = 1 << 20;

fn write_zeros(mut len_bytes: u64) -> Result<()> {
    let zeros = vec![0u8; ZEROS_PIECE_BYTES.min(len_bytes as usize)];
    let mut out = std::io::stdout().lock();
    while len_bytes > 0 {
        let piece = len_bytes.min(ZEROS_PIECE_BYTES as u64) as usize;
        out.write_all(&zeros[..piece]).map_err(stdout_failed)?;
        len_bytes -= piece as u64;
    }
    out.flush().map_err(stdout_failed)?;
    Ok(())
}

/// A lost range's identity, to tell the losses a command added from those on record before.
type LostKey = (String, u64, u64, usize, String);

fn lost_key(l: &LostRangeStatus) -> LostKey {
    (
        l.file.clone(),
        l.offset_bytes,
        l.len_bytes,
        l.oss,
        l.window.clone(),
    )
}

/// A file name as the CLI prints it: control characters (and quotes) escaped, as `ls` does.
/// Why (review s11r R11-1): a name with a newline forged lines (`LOST: ...`) in the output a
/// monitoring script parses, and an ESC sequence went raw to the terminal.
fn shown(name: &str) -> std::str::EscapeDebug<'_> {
    name.escape_debug()
}

/// `status`'s LOST lines: one per lost range on record.
fn print_lost(lost: &[LostRangeStatus]) -> Result<()> {
    for l in lost {
        // A loss outside any window names its cause in place of a token.
        if let Some(cause) = l.window.strip_prefix("none: ") {
            out!(
                "LOST: '{}' bytes {}..{} (OSS {}: {cause}): reads fail until written again",
                shown(&l.file),
                l.offset_bytes,
                l.offset_bytes + l.len_bytes,
                l.oss
            );
            continue;
        }
        out!(
            "LOST: '{}' bytes {}..{} (only copy was on failed OSS {}, window {}): reads fail until written again",
            shown(&l.file),
            l.offset_bytes,
            l.offset_bytes + l.len_bytes,
            l.oss,
            l.window
        );
    }
    Ok(())
}

fn open(dir: &Path) -> Result<Store> {
    open_waiting(|| Store::open(dir))
}

/// Close the store; what it could not do without losing anything (a state checkpoint on a
/// full metadata disk) is a warning on stderr, not a failed command.
fn close(store: Store) -> Result<()> {
    for warning in store.close_with_warnings()? {
        eprintln_lossy!("exaraid: warning: {warning}");
    }
    Ok(())
}

pub fn run(args: StoreArgs) -> Result<()> {
    if args.lock_wait_ms > LOCK_WAIT_MS_MAX {
        bail!(
            "--lock-wait-ms {} is more than a day ({LOCK_WAIT_MS_MAX}); give a shorter wait",
            args.lock_wait_ms
        );
    }
    let _ = LOCK_WAIT_MS.set(args.lock_wait_ms);
    match args.command {
        StoreCommand::Init(a) => {
            let dirs: Vec<PathBuf> = match (&a.oss, &a.oss_dirs) {
                (Some(n), None) => (0..*n).map(|i| a.dir.join(format!("oss-{i}"))).collect(),
                (None, Some(d)) => d.clone(),
                _ => bail!("give the OSSs with --oss N or --oss-dirs A,B,C"),
            };
            if dirs.is_empty() {
                bail!("a store needs at least one OSS");
            }
            let spec = code_spec(&a, dirs.len())?;
            let mut opts = InitOptions::new(dirs, spec);
            opts.element_bytes = a.stripe_unit;
            opts.write_path = WritePath::from_name(&a.write_path)?;
            opts.oss_capacity_bytes = a.oss_capacity;
            opts.window_timeout_ms = a.window_timeout_ms;
            opts.unprotected_bytes_max = a.unprotected_max_bytes;
            // Waits while another process holds the directory (a racing init of it, or a
            // command on the store it made); then refuses if that made a store.
            let store = open_waiting(|| Store::init(&a.dir, &opts))?;
            out!(
                "created store {} : {} over {} OSSs, stripe unit {} bytes, write path {}",
                store.dir().display(),
                store.layout().code_name(),
                store.oss_count(),
                a.stripe_unit,
                opts.write_path.name()
            );
            close(store)?;
        }
        StoreCommand::Put { dir, name } => {
            refuse_closed_stdin("put", &name)?;
            let store = open(&dir)?;
            // Streamed in pieces, still atomic: the new content takes the name only once
            // stdin ended and every piece is durable.
            store.put_from(&name, &mut std::io::stdin().lock())?;
            close(store)?;
        }
        StoreCommand::Get { dir, name } => {
            let store = open(&dir)?;
            // In pieces: a sparse file may be far longer than memory (1 TiB with 10 bytes
            // written); one buffer of the whole file would abort the process.
            let size_bytes = store
                .list()
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| s);
            match size_bytes {
                None | Some(0) => {
                    let data = store.get(&name)?;
                    close(store)?;
                    write_stdout(&data)?;
                }
                Some(size_bytes) if size_bytes <= GET_IN_MEMORY_BYTES_MAX => {
                    // Read whole, the store closed, then written: a reader that stops (a
                    // pager left open, a stopped job, a slow link) then holds no lock, where
                    // every other command of every process waited for it and gave up
                    // (review s11r R11-8). No more memory than one streamed piece.
                    let mut data = vec![0u8; size_bytes as usize];
                    for (start, end) in store.written_runs(&name)? {
                        assert!(start < end && end <= size_bytes);
                        let run = store.read(&name, start, end - start)?;
                        data[start as usize..end as usize].copy_from_slice(&run);
                    }
                    close(store)?;
                    write_stdout(&data)?;
                }
                Some(size_bytes) => {
                    // Longer than that: streamed with the store open (its lock held until
                    // the reader has taken the last piece; docs/store.md says so).
                    // Never-written runs (holes) are zeros: written without reading them.
                    let mut at = 0;
                    for (start, end) in store.written_runs(&name)? {
                        assert!(at <= start && start < end && end <= size_bytes);
                        write_zeros(start - at)?;
                        at = start;
                        while at < end {
                            let piece = (end - at).min(WRITE_CHUNK_BYTES_MAX);
                            write_stdout(&store.read(&name, at, piece)?)?;
                            at += piece;
                        }
                    }
                    write_zeros(size_bytes - at)?;
                    close(store)?;
                }
            }
        }
        StoreCommand::Write { dir, name, offset } => {
            refuse_closed_stdin("write", &name)?;
            let first = stdin_first_piece()?;
            let store = open(&dir)?;
            // In pieces, each acknowledged before the next is read (see `write_from`): a
            // failure part-way says up to which offset the input is durable.
            if first.len() < PUT_PIECE_BYTES {
                // Stdin ended (not read again: a terminal would wait for a second end).
                store.write_from(&name, offset, &mut first.as_slice())?;
            } else {
                let mut rest = first.as_slice().chain(std::io::stdin().lock());
                store.write_from(&name, offset, &mut rest)?;
            }
            close(store)?;
        }
        StoreCommand::Read {
            dir,
            name,
            offset,
            length,
        } => {
            let store = open(&dir)?;
            let data = store.read(&name, offset, length)?;
            close(store)?;
            write_stdout(&data)?;
        }
        StoreCommand::Ls { dir, json } => {
            let store = open(&dir)?;
            let files = store.list();
            close(store)?;
            if json {
                let v: Vec<_> = files
                    .iter()
                    .map(|(n, s)| serde_json::json!({"name": n, "size_bytes": s}))
                    .collect();
                out!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                for (n, s) in files {
                    // A name is any bytes but NUL: one with a newline or an escape sequence
                    // printed raw would read as two files or drive the terminal (review s5r
                    // R3). `--json` keeps names exact.
                    if n.chars().any(char::is_control) {
                        out!("{s:>14}  {}", n.escape_debug());
                    } else {
                        out!("{s:>14}  {n}");
                    }
                }
            }
        }
        StoreCommand::Rm { dir, name } => {
            let store = open(&dir)?;
            store.remove(&name)?;
            close(store)?;
        }
        StoreCommand::Flush { dir } => {
            let store = open(&dir)?;
            store.flush()?;
            let status = store.status()?;
            close(store)?;
            out!(
                "flushed: {} bytes waiting for parity, {} bytes unprotected",
                status.bytes_waiting_parity,
                status.bytes_unprotected
            );
        }
        StoreCommand::Status { dir, json } => {
            // Also when recovery waits for missing OSSs: status tells which are missing.
            let store = open_waiting(|| Store::open_for_status(&dir))?;
            let status = store.status()?;
            if status.recovery_pending.is_some() {
                // Its only close warning would be the pending recovery (a store open for
                // reads only), which the status below names: said once, not twice.
                store.close()?;
            } else {
                close(store)?;
            }
            if json {
                out!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                out!(
                    "code {}  stripe unit {} bytes  write path {}  files {}",
                    status.code,
                    status.element_bytes,
                    status.write_path,
                    status.files
                );
                out!(
                    "{:>4} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  path",
                    "oss",
                    "health",
                    "data_rd",
                    "data_wr",
                    "par_rd",
                    "par_wr",
                    "cache_rd",
                    "cache_wr"
                );
                for o in &status.oss {
                    out!(
                        "{:>4} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}",
                        o.index,
                        // FAILED only on record (docs/store.md): an OSS that answers but
                        // cannot be used (a stale generation, damaged own metadata) is
                        // UNAVAIL, as its line below and `online`'s refusal call it
                        // (review s14r2: status said FAILED, online "not recorded as
                        // failed").
                        match (o.healthy, o.missing, o.failed_on_record) {
                            (true, _, _) => "ok",
                            (false, _, true) => "FAILED",
                            (false, true, false) => "MISSING",
                            (false, false, false) => "UNAVAIL",
                        },
                        o.ops.data_read,
                        o.ops.data_write,
                        o.ops.parity_read,
                        o.ops.parity_write,
                        o.ops.cache_read,
                        o.ops.cache_write,
                        o.path
                    );
                }
                for o in &status.oss {
                    if let Some(problem) = &o.problem {
                        let what = if o.missing { "MISSING" } else { "UNAVAILABLE" };
                        out!("{what}: OSS {}: {problem}", o.index);
                    }
                }
                for o in &status.oss {
                    if let Some(warning) = &o.epoch_not_told {
                        out!("EPOCH NOT TOLD: OSS {}: {warning}", o.index);
                    }
                }
                if let Some(warning) = &status.journal_tail_cut {
                    out!("JOURNAL TAIL CUT: {warning}");
                }
                if let Some(why) = &status.recovery_pending {
                    // Open for reads only: reads and a verify-only scrub do not wait. A
                    // metadata directory that refuses writes has no recovery to wait for:
                    // every change is refused until it is remounted read-write.
                    let (label, waits) = if why.contains("its metadata (directory") {
                        ("READ ONLY", "reads work, every change is refused")
                    } else if why.contains("shares its files with another directory") {
                        // A hard-link copy (`cp -al`): no recovery to wait for either.
                        ("HARD-LINKED", "reads work, every change is refused")
                    } else if why.contains("metadata disk is full") {
                        ("METADATA DISK FULL", "reads work, every change is refused")
                    } else if why.starts_with("open for reads only") {
                        ("RECOVERY PENDING", "reads work, every change waits for it")
                    } else {
                        ("RECOVERY PENDING", "every other command waits for it")
                    };
                    out!("{label} ({waits}): {why}");
                }
                out!("bytes waiting for parity: {}", status.bytes_waiting_parity);
                out!("bytes unprotected: {}", status.bytes_unprotected);
                for w in &status.open_windows {
                    out!(
                        "open window {} on '{}': {} unprotected bytes",
                        w.token,
                        shown(&w.file),
                        w.unprotected_bytes
                    );
                }
                print_lost(&status.lost_ranges)?;
            }
        }
        StoreCommand::Fail { dir, oss } => {
            // A store that needs crash recovery with this OSS's directory missing: the
            // failure goes on record before recovery, which then runs without it (review
            // s4e E13; without `fail` the open refuses and waits for the mount).
            let options = OpenOptions {
                fail_down_osses_before_recovery: vec![oss],
                ..OpenOptions::default()
            };
            // The losses on record before this command: a second `fail` printed them again
            // as if it had lost them (review s8s). Read by a plain open first, because the
            // open below may itself record losses (recovery run without this OSS); a store
            // that plain open refuses (a missing mount with recovery to do): every line
            // counts as new.
            let lost_before: BTreeSet<LostKey> = Store::open(&dir)
                .and_then(|store| {
                    let lost = store.status()?.lost_ranges;
                    // Its error (a store open for reads only says so at close) is the
                    // real open's to report.
                    let _ = store.close();
                    Ok(lost.iter().map(lost_key).collect())
                })
                .unwrap_or_default();
            let store = open_waiting(|| Store::open_with(&dir, options.clone()))?;
            store.fail_oss(oss)?;
            let failed = store.failed_osses();
            let tolerance = store.code().geometry().fault_tolerance;
            let lost = store.status()?.lost_ranges;
            let take_back = store.take_back_advice(oss);
            close(store)?;
            out!("OSS {oss} marked failed; failed OSSs now {failed:?} (the code tolerates {tolerance})");
            // Bytes this failure recorded lost: named here, not only by a later `status`.
            let (earlier, added): (Vec<_>, Vec<_>) = lost
                .into_iter()
                .partition(|l| lost_before.contains(&lost_key(l)));
            print_lost(&added)?;
            if !earlier.is_empty() {
                out!(
                    "{} earlier lost range(s) stay on record (`exaraid store status {}` lists them)",
                    earlier.len(),
                    dir.display()
                );
            }
            if let Some(advice) = take_back.filter(|_| added.iter().any(|l| l.restorable)) {
                // Bytes lost with their window's cache on this OSS: a disk that still reads
                // gives them back through `online`, or `rebuild --to` while it still reads,
                // up to the take-back bound, which the advice says past it.
                out!("{advice}");
            }
            if failed.len() > tolerance {
                // `fail_oss` refuses to record past the tolerance; another OSS went missing.
                eprintln_lossy!("exaraid: warning: more OSSs are failed or unavailable than the code tolerates: check the OSS directories");
            }
        }
        StoreCommand::Online { dir, oss } => {
            let mut store = open(&dir)?;
            // Asked before `online_oss`: a rerun of an `online` cut after its `Online`
            // record is finished by the open, and the user should hear that it was.
            let finished_by_open = store.online_finished_at_open(oss);
            let failed_before = store.failed_osses().contains(&oss);
            // A rerun that only writes back what a cut run read back clears lost ranges.
            let lost_before = store.status()?.lost_ranges.len();
            store.online_oss(oss)?;
            let failed = store.failed_osses();
            let wrote_back = store.status()?.lost_ranges.len() < lost_before;
            let left_lost_bytes = store.online_left_lost_bytes();
            close(store)?;
            if !failed_before && !finished_by_open && !wrote_back {
                out!("nothing to do: OSS {oss} is online (not failed on record: an earlier `online` or `rebuild` of it finished, or it never failed); failed OSSs now {failed:?}");
            } else if finished_by_open {
                out!("OSS {oss} is online again: the `online` cut after its `Online` record is finished (by this run); nothing else to do; failed OSSs now {failed:?}");
            } else if left_lost_bytes > 0 {
                out!("OSS {oss} is online again, but {left_lost_bytes} acknowledged bytes it could not give back are lost for good (see the warning): write them again; failed OSSs now {failed:?}");
            } else {
                out!("OSS {oss} is online again; failed OSSs now {failed:?}");
            }
            // Back in service, but the store does not hold every acknowledged byte: as
            // `rebuild`'s exit 2 (s27d: it exited 0).
            if left_lost_bytes > 0 {
                std::process::exit(2);
            }
        }
        StoreCommand::RepairLabel { dir, oss } => {
            // Also when crash recovery is due and waits for OSSs that do not answer (this
            // one among them): the label does not need it (review s17m M17-2).
            let mut store = open_waiting(|| Store::open_for_label_repair(&dir))?;
            let done = store.repair_label(oss)?;
            close(store)?;
            let next = if done.recovery_pending {
                format!(
                    "; the store still needs crash recovery (a write was cut while OSSs did not answer): the next command runs it once the OSSs answer, this one now among them (a command refused meanwhile names those that still do not, e.g. `exaraid store ls {}`){}",
                    dir.display(),
                    if done.failed_on_record {
                        format!(
                            "; it is still failed on record: take it back with `exaraid store online {} --oss {oss}` (or rebuild it)",
                            dir.display()
                        )
                    } else {
                        String::new()
                    }
                )
            } else if done.failed_on_record {
                format!(
                    "; it is still failed on record: take it back with `exaraid store online {} --oss {oss}` (or rebuild it)",
                    dir.display()
                )
            } else {
                "; the next command checks it like any other OSS (label, epoch, generation) and uses it".to_string()
            };
            out!(
                "OSS {oss}: label rewritten from the superblock after {} written 4 KiB blocks on it verified under its checksums{next}",
                done.blocks_checked
            );
        }
        StoreCommand::Rebuild { dir, oss, to } => {
            // An OSS that answers with its own metadata damaged, in a store that needs crash
            // recovery: on record failed before recovery, which then runs without it (its
            // bytes are unknown: the rebuild rewrites them). Without it the open waited for
            // the OSS as for a missing mount, refusing the rebuild `status` advised (review
            // s22r R22-2). An OSS merely not answering is still waited for.
            let options = OpenOptions {
                fail_damaged_osses_before_recovery: vec![oss],
                ..OpenOptions::default()
            };
            let mut store = open_waiting(|| Store::open_with(&dir, options.clone()))?;
            if store.failed_before_recovery().contains(&oss) {
                out!(
                    "OSS {oss} answers but its own metadata is damaged: recorded failed before the crash recovery this store needed, which ran without it; its bytes are rebuilt from the other OSSs"
                );
                // Recovery without it may have recorded bytes lost: named here, as `fail`
                // names its own, not only by a later `status`.
                print_lost(&store.status()?.lost_ranges)?;
            }
            // Asked before: `rebuild` of it returns Ok with nothing done.
            let finished_before = to
                .as_deref()
                .is_some_and(|to| store.rebuild_finished_onto(oss, to));
            // Ranges the rebuild itself recorded lost (its settle of a cache stripe whose
            // running parity disagrees with its data, say): it exited 0 "OSS rebuilt",
            // naming none (s27d). Named here, and exit 2 below.
            let lost_before: BTreeSet<(String, u64, u64)> = (store.status()?.lost_ranges)
                .into_iter()
                .map(|l| (l.file, l.offset_bytes, l.len_bytes))
                .collect();
            store.rebuild(oss, to.as_deref())?;
            let mut left_lost_bytes = store.rebuild_left_lost_bytes();
            let recorded: Vec<(String, u64, u64)> = (store.status()?.lost_ranges)
                .into_iter()
                .map(|l| (l.file, l.offset_bytes, l.len_bytes))
                .filter(|r| !lost_before.contains(r))
                .collect();
            close(store)?;
            if !recorded.is_empty() {
                let bytes: u64 = recorded.iter().map(|r| r.2).sum();
                let names: Vec<String> = recorded
                    .iter()
                    .map(|(f, a, n)| format!("'{}' bytes {a}..{}", shown(f), a + n))
                    .collect();
                eprintln_lossy!(
                    "exaraid: warning: the rebuild of OSS {oss} recorded {bytes} acknowledged bytes lost that it could not tell ({}); reads of them fail until they are written again: write each range again from your own copy (`exaraid store write {} FILE --offset OFFSET`; `exaraid store status {}` lists them)",
                    names.join(", "),
                    dir.display(),
                    dir.display()
                );
                left_lost_bytes += bytes;
            }
            match (finished_before, to) {
                (true, Some(to)) if left_lost_bytes > 0 => out!(
                    "nothing to do: OSS {oss} is in service in {} already (an earlier `rebuild --to` of it finished), but {left_lost_bytes} acknowledged bytes are lost for good (see the warning): write them again",
                    to.display()
                ),
                (true, Some(to)) => out!(
                    "nothing to do: OSS {oss} is in service in {} already (an earlier `rebuild --to` of it finished)",
                    to.display()
                ),
                _ if left_lost_bytes > 0 => out!(
                    "OSS {oss} rebuilt, but {left_lost_bytes} acknowledged bytes are lost for good (see the warning): write them again"
                ),
                _ => out!("OSS {oss} rebuilt"),
            }
            // Done, but the store does not hold every acknowledged byte: as scrub's exit 2
            // (s24c leftover: it exited 0, and a script read success).
            if left_lost_bytes > 0 {
                std::process::exit(2);
            }
        }
        StoreCommand::Scrub {
            dir,
            repair,
            json,
            accept_journal_damage,
        } => {
            let store = open(&dir)?;
            let report = store.scrub(repair)?;
            // Each OSS down is worded as `status` words it (FAILED on record, MISSING, or
            // UNAVAILABLE), with what to do about that one (session 15's s15f leftover: a
            // merely unmounted OSS was "failed or unavailable" and told to rebuild).
            let oss_status = store.status()?.oss;
            let clean = !scrub_left_problems(&report, repair);
            let accepted = if accept_journal_damage && clean {
                Some(store.accept_journal_damage()?)
            } else {
                None
            };
            close(store)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                out!("stripes checked: {}", report.stripes_checked);
                for f in &report.corrupt_elements {
                    out!(
                        "corrupt: OSS {} file '{}' stripe {} {} row {} blocks {:?}{}",
                        f.oss,
                        shown(&f.file),
                        f.stripe,
                        f.zone,
                        f.row,
                        f.blocks,
                        if f.repaired {
                            " (repaired)".to_string()
                        } else if let Some(lost) = &f.lost {
                            past_tolerance("they are bad", lost)
                        } else {
                            String::new()
                        }
                    );
                }
                for f in &report.unreadable_elements {
                    out!(
                        "unreadable: OSS {} file '{}' stripe {} {} row {}: {}{}",
                        f.oss,
                        shown(&f.file),
                        f.stripe,
                        f.zone,
                        f.row,
                        f.why,
                        if f.repaired {
                            " (repaired: rewritten from parity and read back)".to_string()
                        } else if repair {
                            String::new()
                        } else if let Some(lost) = &f.lost {
                            past_tolerance("it does not read", lost)
                        } else {
                            "; its stripe lacks that redundancy: `scrub --repair` rewrites it from parity (a write remaps a bad sector), or records the OSS failed if it cannot".to_string()
                        }
                    );
                }
                for f in &report.corrupt_cache_elements {
                    let ranges = byte_ranges(&f.file_ranges);
                    out!(
                        "corrupt cache: OSS {} cache slot {} ({} row {}) file '{}' stripe {} bytes [{}] blocks {:?}{}",
                        f.oss,
                        f.cache_slot,
                        f.zone,
                        f.row,
                        shown(&f.file),
                        f.stripe,
                        ranges,
                        f.blocks,
                        if f.repaired { " (repaired)" } else { "" }
                    );
                }
                for f in &report.unreadable_cache_elements {
                    let ranges = byte_ranges(&f.file_ranges);
                    let at_risk = if f.zone == "parity" {
                        "the running parity of a cache stripe waiting to be moved home: those cached bytes lack that redundancy".to_string()
                    } else if f.without_parity {
                        format!(
                            "the only copy of bytes [{}] (an open delayed window, no parity)",
                            ranges
                        )
                    } else {
                        format!("the newest copy of bytes [{}], waiting to be moved home (reads decode them from parity)", ranges)
                    };
                    out!(
                        "unreadable cache: OSS {} cache slot {} ({} row {}) file '{}' stripe {}: {}; it holds {at_risk}{}",
                        f.oss,
                        f.cache_slot,
                        f.zone,
                        f.row,
                        shown(&f.file),
                        f.stripe,
                        f.why,
                        if f.repaired {
                            " (repaired: rewritten from the cache stripe's parity and read back)"
                        } else if repair || f.without_parity {
                            ""
                        } else {
                            "; `scrub --repair` rewrites it from the cache stripe's parity (a write remaps a bad sector), or records the OSS failed if it cannot"
                        }
                    );
                }
                for &(oss, slot, block, repaired) in &report.dead_cache_blocks {
                    out!(
                        "corrupt dead cache block: OSS {oss} cache slot {slot} block {block} (no file's bytes: stale bytes a later cache write could fail on){}",
                        if repaired { " (repaired: zeros)" } else { "; `scrub --repair` rewrites it as zeros" }
                    );
                }
                for (f, s) in &report.parity_mismatches {
                    out!("parity mismatch: file '{}' stripe {s}", shown(f));
                }
                for (f, s) in &report.unsettled_stripes {
                    out!("not compared: file '{}' stripe {s}: the recovery that could not finish rewrites it (data and parity may differ there until it finishes; checksums checked)", shown(f));
                }
                for r in &report.stale_repaired {
                    out!("repaired: {r}");
                }
                for u in &report.unrepairable {
                    out!("unrepairable: {u}");
                }
                for o in &report.failed_oss {
                    let status = oss_status.iter().find(|s| s.index == *o);
                    let problem = report
                        .oss_problems
                        .iter()
                        .find(|(p, _)| p == o)
                        .map(|(_, problem)| problem.clone())
                        .or_else(|| status.and_then(|s| s.problem.clone()));
                    let not_checked =
                        "its elements were not checked and its stripes lack that redundancy";
                    match (status.is_some_and(|s| s.failed_on_record), status.is_some_and(|s| s.missing), problem) {
                        (true, _, Some(problem)) => out!(
                            "FAILED: OSS {o} is failed on record: {not_checked}: {problem}"
                        ),
                        (true, _, None) => out!(
                            "FAILED: OSS {o} is failed on record: {not_checked}; `exaraid store rebuild {} --oss {o}` (or `exaraid store online {} --oss {o}` if its disk works again)",
                            dir.display(),
                            dir.display()
                        ),
                        (false, true, Some(problem)) => out!(
                            "MISSING: OSS {o} (not failed on record): {not_checked}: {problem}"
                        ),
                        (false, _, Some(problem)) => out!(
                            "UNAVAILABLE: OSS {o} (not failed on record): {not_checked}: {problem}"
                        ),
                        (false, _, None) => out!(
                            "UNAVAILABLE: OSS {o} (not failed on record): {not_checked}; `exaraid store status {}` says why",
                            dir.display()
                        ),
                    }
                }
                for (o, problem) in &report.oss_problems {
                    if !report.failed_oss.contains(o) {
                        out!("UNAVAILABLE: OSS {o}: {problem}");
                    }
                }
                if report.journal_tail_cuts_checked > 0 {
                    out!(
                        "journal tail cut: checked (every stripe's parity matches now); the warning is cleared"
                    );
                }
                match accepted {
                    Some(0) => out!("journal damage: none on record"),
                    Some(n) => out!("journal damage: {n} damaged records accepted; their warning is cleared"),
                    None if accept_journal_damage => out!(
                        "journal damage: NOT accepted: this scrub found problems (above); deal with them and scrub again"
                    ),
                    None => {}
                }
                for l in &report.lost_ranges {
                    out!(
                        "LOST: '{}' bytes {}..{} (OSS {}): reads fail until written again",
                        shown(&l.file),
                        l.offset_bytes,
                        l.offset_bytes + l.len_bytes,
                        l.oss
                    );
                }
                out!(
                    "corrupt elements: {}, unreadable elements: {}, corrupt cache elements: {}, unreadable cache elements: {} (of {} checked), parity mismatches: {}, repaired: {}",
                    report.corrupt_elements.len(),
                    report.unreadable_elements.len(),
                    report.corrupt_cache_elements.len(),
                    report.unreadable_cache_elements.len(),
                    report.cache_elements_checked,
                    report.parity_mismatches.len(),
                    report.repaired_elements
                );
            }
            if !clean {
                std::process::exit(2);
            }
        }
        StoreCommand::Delayed { command } => match command {
            DelayedCommand::Start { dir, name } => {
                let store = open(&dir)?;
                // A name that does not exist is created (an application announces the file
                // it is about to write: the START_DELAYED, the docs' checkpoint
                // example), but a mistyped name then got a window on a new empty file
                // without a word (review s26r): said on stderr, stdout keeps the token alone.
                let existed = store.size(&name).is_ok();
                let token = store.delayed_start(&name)?;
                close(store)?;
                out!("{token}");
                if !existed {
                    eprintln_lossy!(
                        "exaraid: note: '{}' did not exist: `delayed start` created it, empty, for the window's writes; if you meant another file (`exaraid store ls {}` lists them), end this window (`exaraid store delayed end {} {token}`) and remove it (`exaraid store rm {} NAME`)",
                        shown(&name),
                        dir.display(),
                        dir.display(),
                        dir.display()
                    );
                }
            }
            DelayedCommand::End { dir, token } => {
                let store = open(&dir)?;
                store.delayed_end(&token)?;
                close(store)?;
            }
        },
        StoreCommand::Bench(a) => run_bench(a)?,
        StoreCommand::Torture {
            dir,
            seed,
            start,
            count,
            windows,
        } => {
            let store = open(&dir)?;
            let mut out = std::io::stdout().lock();
            if windows {
                for w in store.status()?.open_windows {
                    store.delayed_end(&w.token)?;
                }
            }
            writeln!(out, "open")?;
            out.flush()?;
            let mut token = None;
            for i in start..start + count {
                if windows && i % 8 == 0 {
                    token = Some(store.delayed_start(exaraid_store::torture::FILE)?);
                }
                // Logged before the write starts, so the crash test can tell a kill that
                // interrupted a write from one that landed between writes.
                writeln!(out, "start {i}")?;
                out.flush()?;
                let w = exaraid_store::torture::write_of(seed, i);
                store.write(exaraid_store::torture::FILE, w.offset_bytes, &w.data)?;
                if let (true, Some(t)) = (i % 8 == 7, &token) {
                    store.delayed_end(t)?;
                    token = None;
                }
                writeln!(out, "ack {i}")?;
                out.flush()?;
            }
            close(store)?;
        }
    }
    Ok(())
}

/// Arguments of `exaraid store bench`.
#[derive(Args)]
struct BenchArgs {
    /// Add per backend operation the service time of an emulated device (a mean-value model
    /// over the simulator's HDD / SSD constants; see docs/store.md).
    #[arg(long, value_parser = ["hdd", "ssd"])]
    emulate: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Fewer writes per thread (16 instead of 64).
    #[arg(long)]
    quick: bool,
    /// Writer threads.
    #[arg(long, default_value_t = 8)]
    threads: usize,
    /// Writes per thread (default 64; 16 with --quick; 32 with --emulate hdd).
    #[arg(long)]
    writes_per_thread: Option<usize>,
    /// Where the stores and raw files are created (default: a temporary directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Also write the JSON report to this file, and beside it the per-repetition CSV and the
    /// figure (same name with .csv, .png and .svg).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run every configuration this many times (ratios are reported as min/median/max).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Do not fsync before acknowledging (measures the store's own overhead over the page
    /// cache; emulated runs never fsync: the device model is the cost).
    #[arg(long)]
    no_fsync: bool,
    /// Bytes of WCL destage writes the store may hold back while client writes run (they
    /// run when the writers pause); 0 destages at once, competing with the writes.
    #[arg(long)]
    destage_defer_max_bytes: Option<u64>,
    /// Data columns of the RAID-5 (k+1 OSSs) and RAID-6 (k+2 OSSs) stores. Full-stripe
    /// streaming can reach at most k/(k+m) of raw bandwidth: 0.80 / 0.67 at the default 4,
    /// 0.89 / 0.80 at 8 (the seed's stripes are 512 OSSs wide).
    #[arg(long, default_value_t = 4)]
    k: usize,
    /// What the timed writes do: `fresh`, the seed's (each thread writes its own new
    /// region); `overwrite`, an untimed first pass writes those regions, then the timed
    /// writes rewrite half of every earlier write (from a quarter in plus 2 KiB, both ends
    /// mid-block: read-modify-writes of witnessed blocks). Overwrite runs report the write
    /// paths alone (no raw, streaming or goals: those are the seed's), each with the home
    /// witness checks its read steps ran; delayed's "ops = planner" is false there: its
    /// window writes read their two edge blocks for their block crcs, outside the plan.
    #[arg(long, value_parser = ["fresh", "overwrite"], default_value = "fresh")]
    workload: String,
}

/// A mean-value service-time model over the simulator's device constants (crates/sim
/// models/device.rs, where each constant has its source). Not the simulator's queueing
/// model: every request is charged its average cost, independent of the others.
struct MeanDevice {
    name: &'static str,
    read_fixed_s: f64,
    write_fixed_s: f64,
    read_bytes_per_s: f64,
    write_bytes_per_s: f64,
    units: usize,
}

impl MeanDevice {
    fn hdd() -> MeanDevice {
        let p = exaraid_sim::models::device::HddParams::default();
        // A random access: average seek plus half a revolution, then the transfer.
        let rotation_s = p.revolution_s() / 2.0;
        MeanDevice {
            name: "hdd (mean seek + half revolution + transfer; WD Black 750 GB constants of crates/sim)",
            read_fixed_s: p.avg_seek_read_s + rotation_s,
            write_fixed_s: p.avg_seek_write_s + rotation_s,
            read_bytes_per_s: p.sustained_bytes_per_s,
            write_bytes_per_s: p.sustained_bytes_per_s,
            units: 1,
        }
    }
    fn ssd() -> MeanDevice {
        let p = exaraid_sim::models::device::SsdParams::default();
        MeanDevice {
            name:
                "ssd (latency + transfer, 10 parallel units; Intel SSD 320 constants of crates/sim)",
            read_fixed_s: p.seq_read_latency_s,
            write_fixed_s: p.seq_write_latency_s,
            read_bytes_per_s: p.seq_read_bytes_per_s,
            write_bytes_per_s: p.seq_write_bytes_per_s,
            units: p.parallel_units,
        }
    }
}

impl exaraid_store::ServiceTime for MeanDevice {
    fn name(&self) -> String {
        self.name.to_string()
    }
    fn service_ns(&self, op: exaraid_plan::Op, bytes: u64) -> u64 {
        let s = match op {
            exaraid_plan::Op::Read => self.read_fixed_s + bytes as f64 / self.read_bytes_per_s,
            exaraid_plan::Op::Write => self.write_fixed_s + bytes as f64 / self.write_bytes_per_s,
        };
        (s * 1e9) as u64
    }
    fn parallel_units(&self) -> usize {
        self.units
    }
}

fn run_bench(a: BenchArgs) -> Result<()> {
    let tmp = tempfile_dir(a.dir.as_deref())?;
    let mut opts = exaraid_store::bench::BenchOptions::new(tmp.clone(), a.quick);
    if a.threads == 0 || a.threads > 1024 {
        bail!("--threads must be between 1 and 1024");
    }
    opts.threads = a.threads;
    opts.fsync = !a.no_fsync;
    let k_max = exaraid_store::bench::PROBE_OSS_MAX - 2;
    if a.k < 2 || a.k > k_max {
        bail!("--k must be between 2 and {k_max} (RAID-6 uses k + 2 OSS directories)");
    }
    opts.k = a.k;
    opts.workload = exaraid_store::bench::Workload::parse(&a.workload)
        .with_context(|| format!("--workload {}: fresh or overwrite", a.workload))?;
    if let Some(bytes) = a.destage_defer_max_bytes {
        opts.destage_defer_max_bytes = bytes;
    }
    if let Some(e) = &a.emulate {
        let model: std::sync::Arc<dyn exaraid_store::ServiceTime> =
            std::sync::Arc::new(if e == "hdd" {
                MeanDevice::hdd()
            } else {
                MeanDevice::ssd()
            });
        opts.emulate = Some(model);
        opts.fsync = false;
        if e == "hdd" && !a.quick {
            opts.writes_per_thread = 32;
        }
    }
    if let Some(w) = a.writes_per_thread {
        if w == 0 || w > 1 << 20 {
            bail!("--writes-per-thread must be between 1 and 1048576");
        }
        opts.writes_per_thread = w;
    }
    if a.repeat == 0 || a.repeat > 100 {
        bail!("--repeat must be between 1 and 100");
    }
    let series =
        exaraid_store::bench::run_repeated(&opts, a.repeat, |line| eprintln_lossy!("{line}"));
    let _ = std::fs::remove_dir_all(&tmp);
    let series = series?;
    let json = serde_json::to_string_pretty(&series)?;
    if let Some(out) = &a.out {
        std::fs::write(out, &json).with_context(|| format!("writing {}", out.display()))?;
        let csv = out.with_extension("csv");
        std::fs::write(&csv, bench_csv(&series))
            .with_context(|| format!("writing {}", csv.display()))?;
        let (png, svg) = (out.with_extension("png"), out.with_extension("svg"));
        exaraid_report::render(&bench_figure(&series), &png, &svg)
            .with_context(|| format!("drawing the bench figure {}", png.display()))?;
        eprintln_lossy!(
            "wrote {}, {}, {} and {}",
            out.display(),
            csv.display(),
            png.display(),
            svg.display()
        );
    }
    if a.json {
        out!("{json}");
        return Ok(());
    }
    let report = series.runs.last().expect("at least one repetition");
    out!(
        "store bench ({} workload): {} threads x {} writes of {} KiB, stripe unit {} KiB, fsync {}, destage held back up to {} MiB, device {}, {} repetitions",
        report.workload.name(),
        report.threads,
        report.writes_per_thread,
        report.write_bytes >> 10,
        report.element_bytes >> 10,
        report.fsync,
        report.destage_defer_max_bytes >> 20,
        report
            .emulate
            .as_deref()
            .unwrap_or("none (this machine's disks)"),
        series.repetitions
    );
    out!("last repetition, operations per OSS:");
    for r in report.results.iter().chain(report.streaming.iter()) {
        let label = if report.streaming.iter().any(|s| std::ptr::eq(s, r)) {
            format!("{} (full stripes)", r.path)
        } else {
            r.path.clone()
        };
        out!(
            "{:<18} {:<22} {:>9.1} MiB/s  write phase {:>7.3} s  total {:>7.3} s  ops = planner: {}",
            r.code, label, r.throughput_mib_s, r.write_phase_s, r.total_s, r.ops_match_planner
        );
        if report.workload == exaraid_store::bench::Workload::Overwrite {
            out!(
                "    home witness read-step checks: {} steps, {} pieces ({} read again from disk), {:.4} thread-s of {:.3} executing plans",
                r.time.home_witness_checked_steps,
                r.time.home_witness_checked_pieces,
                r.time.home_witness_piece_reads,
                r.time.home_witness_check_s,
                r.time.execute_s
            );
        }
        for (i, o) in r.ops_per_oss.iter().enumerate() {
            // Reads outside the plan's steps (not in the ops, nor in the planner's): the
            // checks before a write (`UnplannedReads`).
            let u = r.unplanned_per_oss.get(i).copied().unwrap_or_default();
            out!(
                "    oss {i}: data r/w {:>5}/{:<5} parity r/w {:>5}/{:<5} cache r/w {:>5}/{:<5}  + unplanned reads {:>5} (edge check {}, page cut {}, witness {}, window old {})",
                o.data_read,
                o.data_write,
                o.parity_read,
                o.parity_write,
                o.cache_read,
                o.cache_write,
                u.total(),
                u.edge_check_read,
                u.page_cut_read,
                u.witness_piece_read,
                u.window_old_read
            );
        }
    }
    out!(
        "throughput over {} repetitions (MiB/s, min / median / max):",
        series.repetitions
    );
    for t in &series.throughput {
        out!(
            "{:<18} {:<22} {:>9.1} {:>9.1} {:>9.1}",
            t.code,
            t.path,
            t.spread_mib_s.min,
            t.spread_mib_s.median,
            t.spread_mib_s.max
        );
    }
    out!(
        "goals over {} repetitions (min / median / max):",
        series.repetitions
    );
    for r in &series.ratios {
        let bound = match (&r.model_bound_foreground, &r.model_bound_all) {
            (Some(f), Some(a)) => format!(
                "  device-time ratio {:.2} (background competing) .. {:.2} (background free)",
                a.median, f.median
            ),
            _ => String::new(),
        };
        out!(
            "{:<18} {:<30} {:>6.2} {:>6.2} {:>6.2}  goal >= {:.2}  met in {}/{}{}",
            r.code,
            r.what,
            r.spread.min,
            r.spread.median,
            r.spread.max,
            r.goal,
            r.met_runs,
            series.repetitions,
            bound
        );
    }
    Ok(())
}

/// One row per repetition and measured configuration (throughput) or goal (ratio).
fn bench_csv(series: &exaraid_store::bench::BenchSeries) -> String {
    let mut out = String::from("repetition,code,what,value,goal\n");
    for t in &series.throughput {
        for (i, v) in t.values_mib_s.iter().enumerate() {
            out += &format!("{},{},{} MiB/s,{v:.3},\n", i + 1, t.code, t.path);
        }
    }
    for r in &series.ratios {
        for (i, v) in r.values.iter().enumerate() {
            out += &format!("{},{},{},{v:.4},{}\n", i + 1, r.code, r.what, r.goal);
        }
    }
    out
}

/// Per code: the throughput of each write path, and each goal's ratio with its goal line
/// (and the device model's bound when emulated), over the repetitions.
fn bench_figure(series: &exaraid_store::bench::BenchSeries) -> exaraid_report::Figure {
    use exaraid_report::{Figure, Panel, Series};
    let report = series.runs.last().expect("at least one repetition");
    let device = match &report.emulate {
        Some(e) => e.split(' ').next().unwrap_or("").to_string() + " (emulated)",
        None => format!("this machine's disk, fsync {}", report.fsync),
    };
    let reps = |v: &[f64]| -> Vec<(f64, f64)> {
        v.iter()
            .enumerate()
            .map(|(i, &y)| ((i + 1) as f64, y))
            .collect()
    };
    let mut codes: Vec<String> = series.ratios.iter().map(|r| r.code.clone()).collect();
    codes.dedup();
    let mut panels = Vec::new();
    for code in &codes {
        panels.push(Panel {
            title: format!("{code}: write-phase throughput"),
            x_label: "repetition".into(),
            y_label: "MiB/s".into(),
            log_y: true,
            series: series
                .throughput
                .iter()
                .filter(|t| &t.code == code)
                .map(|t| Series {
                    name: t.path.clone(),
                    points: reps(&t.values_mib_s),
                })
                .collect(),
            ..Panel::default()
        });
        // One panel per goal: the measured ratio per repetition, the goal, and (emulated)
        // the ratio of the device model's busiest-OSS times.
        for r in series.ratios.iter().filter(|r| &r.code == code) {
            let short = r.what.split(" (").next().unwrap_or(&r.what).to_string();
            let mut lines = vec![
                Series {
                    name: format!("measured {short}"),
                    points: reps(&r.values),
                },
                Series {
                    name: format!("goal >= {:.2}", r.goal),
                    points: reps(&vec![r.goal; r.values.len()]),
                },
            ];
            if let Some(b) = &r.model_bound_all {
                lines.push(Series {
                    name: "device-time ratio, background competing".into(),
                    points: reps(&vec![b.median; r.values.len()]),
                });
            }
            if let Some(b) = &r.model_bound_foreground {
                if r.model_bound_all
                    .as_ref()
                    .is_none_or(|a| (a.median - b.median).abs() > 1e-3)
                {
                    lines.push(Series {
                        name: "device-time ratio, background free".into(),
                        points: reps(&vec![b.median; r.values.len()]),
                    });
                }
            }
            panels.push(Panel {
                title: format!("{}: {short}", r.code),
                x_label: "repetition".into(),
                y_label: "ratio".into(),
                series: lines,
                ..Panel::default()
            });
        }
    }
    Figure {
        title: format!(
            "exaraid store bench: {} threads x {} writes of {} KiB, {device}",
            report.threads,
            report.writes_per_thread,
            report.write_bytes >> 10
        ),
        columns: panels.len().div_ceil(codes.len().max(1)),
        panels,
    }
}

fn tempfile_dir(dir: Option<&Path>) -> Result<PathBuf> {
    let base = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::temp_dir(),
    };
    let d = base.join(format!("exaraid-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
    Ok(d)
}

/// Did the scrub leave anything wrong (`scrub` exits 2 then)?
fn scrub_left_problems(report: &exaraid_store::store::ScrubReport, repair: bool) -> bool {
    let unrepaired = report.corrupt_elements.iter().any(|f| !f.repaired)
        || report.unreadable_elements.iter().any(|f| !f.repaired)
        || report.corrupt_cache_elements.iter().any(|f| !f.repaired)
        || report.unreadable_cache_elements.iter().any(|f| !f.repaired)
        || report.dead_cache_blocks.iter().any(|f| !f.3)
        || !report.unrepairable.is_empty()
        || !report.failed_oss.is_empty()
        || !report.lost_ranges.is_empty()
        || !report.unsettled_stripes.is_empty();
    unrepaired || (!repair && !report.parity_mismatches.is_empty())
}

/// What scrub says of a damaged element its stripe cannot rebuild (`lost`: the bytes that do
/// not read, and why: past the code's tolerance, or data and parity disagreeing beside it), so
/// that it advises no `--repair` that cannot rebuild it (review s17r R17-2); `while_`: how
/// long that lasts ("it does not read", "they are bad"). Why the cause is left to `lost`
/// (review s24r R24-6): a stale parity beside one rotten block on raid6 is within the
/// tolerance, and this said "past the code's tolerance".
fn past_tolerance(while_: &str, lost: &str) -> String {
    format!("; it cannot be rebuilt, by `scrub --repair` or otherwise, while {while_}: {lost}")
}

/// A scrub finding's file byte ranges as `a..z, ...` (corrupt and unreadable cache elements).
fn byte_ranges(ranges: &[(u64, u64)]) -> String {
    let parts: Vec<String> = ranges.iter().map(|(a, z)| format!("{a}..{z}")).collect();
    parts.join(", ")
}
