//! `exaraid store ...`

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Subcommand)]
enum StoreCommand {}

pub fn run(args: StoreArgs) -> anyhow::Result<()> {
    match args.command {}
}
