//! `exaraid archive ...`: the tape archival tier (Blue Waters archival policies).

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use exaraid_archive::experiment::{self, parse_size};
use exaraid_archive::sim::{Policy, Sim, SimConfig, DAY_S};
use exaraid_archive::Platform;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct ArchiveArgs {
    #[command(subcommand)]
    command: ArchiveCommand,
}

#[derive(Subcommand)]
enum ArchiveCommand {
    /// Run one experiment file: writes OUT/results.csv and OUT/figure.png + figure.svg.
    Run(RunArgs),
    /// Run every experiments/archive-*.toml (all points in parallel) into OUT/<name>/.
    Reproduce(ReproduceArgs),
    /// Simulate one point (default: one year at full Blue Waters scale) and report the
    /// metrics and the wall-clock time it took.
    Year(YearArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The experiment TOML file (see experiments/archive-*.toml).
    file: PathBuf,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// Short arrival window and one seed (what CI runs).
    #[arg(long)]
    quick: bool,
    /// Also print the rows as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReproduceArgs {
    /// Short arrival windows and one seed per point.
    #[arg(long)]
    quick: bool,
    /// Output folder (one sub-folder per experiment).
    #[arg(long, default_value = "results/archive")]
    out: PathBuf,
    /// Where the experiment files are.
    #[arg(long, default_value = "experiments")]
    experiments: PathBuf,
}

#[derive(Args)]
struct YearArgs {
    /// rait, parallel, vertical or hetero.
    #[arg(long, default_value = "vertical")]
    policy: String,
    /// Arrival rate (requests per hour).
    #[arg(long, default_value_t = 800.0)]
    rate: f64,
    #[arg(long, default_value = "10MB")]
    size_min: String,
    #[arg(long, default_value = "1GB")]
    size_max: String,
    /// Simulated arrival window in days.
    #[arg(long, default_value_t = 365.0)]
    days: f64,
    /// RAIT block size.
    #[arg(long, default_value = "16MB")]
    rait_block: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the metrics as JSON.
    #[arg(long)]
    json: bool,
}

fn policy_from(name: &str) -> Result<Policy> {
    Ok(match name {
        "rait" => Policy::Rait,
        "parallel" => Policy::Parallel,
        "vertical" => Policy::Vertical,
        "hetero" => Policy::Hetero,
        other => bail!("unknown policy '{other}': expected rait, parallel, vertical or hetero"),
    })
}

pub fn run(args: ArchiveArgs) -> Result<()> {
    match args.command {
        ArchiveCommand::Run(a) => {
            let started = Instant::now();
            let (exp, points, metrics) = experiment::run_experiment(&a.file, &a.out, a.quick)?;
            if a.json {
                let rows: Vec<_> = points
                    .iter()
                    .zip(&metrics)
                    .map(|(p, m)| serde_json::json!({"experiment": p.experiment, "policy": p.policy.name(), "x": p.x, "seed": p.cfg.seed, "metrics": m}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&rows)?);
            }
            eprintln_lossy!(
                "{}: {} points in {:.1} s -> {}",
                exp.name,
                points.len(),
                started.elapsed().as_secs_f64(),
                a.out.display()
            );
            Ok(())
        }
        ArchiveCommand::Reproduce(a) => {
            let started = Instant::now();
            let done = experiment::reproduce(&a.experiments, &a.out, a.quick)?;
            for (exp, dir) in &done {
                eprintln_lossy!("{} -> {}", exp.name, dir.display());
            }
            eprintln_lossy!(
                "reproduced {} experiments in {:.1} s",
                done.len(),
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        ArchiveCommand::Year(a) => {
            let policy = policy_from(&a.policy)?;
            let lo = parse_size(&a.size_min)?;
            let hi = parse_size(&a.size_max)?;
            if !(a.rate > 0.0 && a.days > 0.0) {
                bail!("--rate and --days must be > 0");
            }
            let mut cfg = SimConfig::new(policy, lo, hi, a.rate, a.days * DAY_S, a.seed);
            cfg.rait_block_bytes = parse_size(&a.rait_block)?;
            let started = Instant::now();
            let (m, _) = Sim::new(cfg, Platform::blue_waters()).run();
            let wall_s = started.elapsed().as_secs_f64();
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"wall_s": wall_s, "metrics": m})
                    )?
                );
            } else {
                println!(
                    "{} {}..{} at {}/h for {} days: {} requests ({} done), weighted {:.3} s/GB, response {:.1} s, {:.0} MB/s, saturated {}, {} delayed, {} LB runs, {} mounts, {} processes created, drive transfer utilization {:.3}, {} events; wall {:.2} s",
                    policy.label(), a.size_min, a.size_max, a.rate, a.days, m.requests, m.completed, m.avg_weighted_response_s_per_gb, m.avg_response_s, m.throughput_mb_s, m.saturated, m.delayed, m.lb_runs, m.tape_mounts, m.processes_created, m.drive_transfer_utilization, m.events, wall_s
                );
            }
            Ok(())
        }
    }
}
