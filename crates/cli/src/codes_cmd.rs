//! `exaraid codes ...`

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct CodesArgs {
    #[command(subcommand)]
    command: CodesCommand,
}

#[derive(Subcommand)]
enum CodesCommand {}

pub fn run(args: CodesArgs) -> anyhow::Result<()> {
    match args.command {}
}
