//! `exaraid`: a thin binary over the exaraid crates. Each command group lives in its own
//! module so that one group can be read (and changed) without the others.

use clap::{Parser, Subcommand};

/// `eprintln!` that ignores a failed write: with stderr a pipe whose reader went away
/// (`2>&1 | head -1`, a log shipper that exited) `eprintln!` panics (exit 101), so an error
/// lost its exit code and a read that only warned never wrote its bytes to stdout (review
/// s13r R13-5). A message nobody can receive is dropped; the command's result stands.
macro_rules! eprintln_lossy {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that ignores a failed write (see `eprintln_lossy!`).
macro_rules! eprint_lossy {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod archive_cmd;
mod codes_bench;
mod codes_cmd;
mod codes_loads;
mod sim_cmd;
mod store_cmd;

#[derive(Parser)]
#[command(
    name = "exaraid",
    version,
    about = "Parity-based reliability (RAID-5, RAID-6, Reed-Solomon, array codes) for exascale parallel file systems"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Erasure codes: list, show, encode, verify, I/O-load evaluation, benchmark.
    Codes(codes_cmd::CodesArgs),
    /// The exascale PFS simulator (Write Cache Layer and Delayed Parity evaluation).
    Sim(sim_cmd::SimArgs),
    /// The real parity-protected store over OSS directories.
    Store(store_cmd::StoreArgs),
    /// The tape archival tier (Blue Waters archival policies).
    Archive(archive_cmd::ArchiveArgs),
}

/// Under a file-size limit (`ulimit -f`, RLIMIT_FSIZE) the kernel's default for a write past
/// it is to kill the process with SIGXFSZ (exit 153): a put whose data already took effect
/// would report failure, and one refused in the middle would die without a word. Ignored,
/// the write fails with EFBIG instead, which the store handles like a full disk: a clear
/// refusal before anything is acknowledged, or a warning for a checkpoint it could not
/// write (docs/store.md, "Durability and recovery"). Rust's runtime does the same for
/// SIGPIPE. Children (none today) would inherit the disposition.
fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN at the start of `main`, before any
    // thread exists, installs no handler code and races with nothing.
    let previous = unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    assert!(
        previous != libc::SIG_ERR,
        "SIGXFSZ is a valid signal whose disposition can always be set"
    );
}

fn main() {
    ignore_file_size_signal();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Codes(args) => codes_cmd::run(args),
        Command::Sim(args) => sim_cmd::run(args),
        Command::Store(args) => store_cmd::run(args),
        Command::Archive(args) => archive_cmd::run(args),
    };
    if let Err(err) = result {
        // The reader of stdout went away (`... | head -1`): it has what it wanted; end
        // quietly, as ripgrep does, instead of reporting an error it did not ask about.
        let broken_pipe = err.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        });
        if broken_pipe {
            std::process::exit(0);
        }
        eprintln_lossy!("exaraid: error: {err:#}");
        std::process::exit(1);
    }
}
