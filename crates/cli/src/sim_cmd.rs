//! `exaraid sim ...`

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct SimArgs {
    #[command(subcommand)]
    command: SimCommand,
}

#[derive(Subcommand)]
enum SimCommand {}

pub fn run(args: SimArgs) -> anyhow::Result<()> {
    match args.command {}
}
