//! `exaraid codes loads`

use clap::Args;

#[derive(Args)]
pub struct LoadsArgs {}

pub fn run(_args: LoadsArgs) -> anyhow::Result<()> {
    anyhow::bail!("exaraid codes loads is not built yet")
}
