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

/// Whether file descriptor 0 was closed when the process started (`exaraid store put S f
/// <&-`, a daemon or batch wrapper that closed it). Why it must be asked before `main`:
/// Rust's runtime opens /dev/null on a closed fd 0 before `main` runs, so a closed stdin then
/// reads as an empty one, and `put` replaced the file with an empty one, exit 0 (review
/// s14r2, minor). An empty stdin (`< /dev/null`) stays a legal put of an empty file.
pub(crate) mod stdin_at_start {
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    /// Runs from the ELF `.init_array`, i.e. before Rust's runtime sanitizes fds 0..2.
    #[cfg(target_os = "linux")]
    extern "C" fn probe() {
        // SAFETY: F_GETFD only reads the descriptor's flags; it fails only with EBADF (fd 0
        // not open). No Rust runtime state is touched: an atomic store is all this does.
        let closed = unsafe { libc::fcntl(0, libc::F_GETFD) } == -1;
        CLOSED.store(closed, Ordering::Relaxed);
    }

    #[cfg(target_os = "linux")]
    #[used]
    #[link_section = ".init_array"]
    static PROBE: extern "C" fn() = probe;

    /// True when fd 0 was not open at start (always false where the probe cannot run).
    pub(crate) fn was_closed() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }
}

fn main() {
    ignore_file_size_signal();
    // A kill test's point the store does not know would kill nothing and let the test
    // pass unkilled: refuse before any work (exit 2, as for bad usage).
    if let Some(e) = exaraid_store::torture::kill_at_env_error() {
        eprintln_lossy!("exaraid: error: {e}");
        std::process::exit(2);
    }
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

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every argument of every `exaraid store` subcommand, positional or option, says what
    /// it is in `--help` (review s14r R14-4: `scrub --repair`, DIR and NAME of most
    /// subcommands and `read`/`write`'s `--offset`/`--length` had no text). The hidden
    /// test helper `torture` too: a hidden command is still run by hand.
    #[test]
    fn every_store_argument_has_help_text() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                let text = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                if text.trim().is_empty() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_name() == "help" {
                    continue;
                }
                let sub_path = format!("{path} {}", sub.get_name());
                if sub.get_about().is_none() {
                    missing.push(format!("{sub_path} (the subcommand itself)"));
                }
                walk(sub, &sub_path, missing);
            }
        }
        let cli = Cli::command();
        let store = cli
            .find_subcommand("store")
            .expect("`exaraid store` exists");
        let mut missing = Vec::new();
        walk(store, "exaraid store", &mut missing);
        assert!(
            missing.is_empty(),
            "arguments without help text: {missing:#?}"
        );
    }

    /// `fail --help` names both ways back from a `fail` (review s14r R14-4), and `put` and
    /// `rm` say they are refused on a file with an open delayed window.
    #[test]
    fn store_help_names_online_and_the_open_window_refusal() {
        let cli = Cli::command();
        let store = cli.find_subcommand("store").unwrap();
        let about = |name: &str| {
            let sub = store.find_subcommand(name).unwrap();
            sub.get_long_about()
                .or(sub.get_about())
                .map(|t| t.to_string())
                .unwrap_or_default()
        };
        let fail = about("fail");
        assert!(
            fail.contains("rebuild") && fail.contains("online"),
            "{fail}"
        );
        for name in ["put", "rm"] {
            let text = about(name);
            assert!(text.contains("open delayed window"), "{name}: {text}");
        }
    }
}
