//! `exaraid codes ...`

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct CodesArgs {
    #[command(subcommand)]
    command: CodesCommand,
}

#[derive(Subcommand)]
enum CodesCommand {
    /// I/O-load evaluation of the D-Code paper (load-balancing factor and I/O cost).
    Loads(crate::codes_loads::LoadsArgs),
    /// Encode/decode throughput of every code beside ISA-L, measured in the same run.
    Bench(crate::codes_bench::BenchArgs),
}

pub fn run(args: CodesArgs) -> anyhow::Result<()> {
    match args.command {
        CodesCommand::Loads(a) => crate::codes_loads::run(a),
        CodesCommand::Bench(a) => crate::codes_bench::run(a),
    }
}
