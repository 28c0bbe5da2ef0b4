//! `exaraid archive ...`

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct ArchiveArgs {
    #[command(subcommand)]
    command: ArchiveCommand,
}

#[derive(Subcommand)]
enum ArchiveCommand {}

pub fn run(args: ArchiveArgs) -> anyhow::Result<()> {
    match args.command {}
}
