//! `exaraid codes bench`

use clap::Args;

#[derive(Args)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("exaraid codes bench is not built yet")
}
