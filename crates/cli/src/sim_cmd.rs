//! `exaraid sim ...`: the exascale PFS simulator (seed Figure 3: WCL and Delayed Parity).

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use exaraid_sim::experiment::{self, Experiment, PointOutcome};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SimArgs {
    #[command(subcommand)]
    command: SimCommand,
}

#[derive(Subcommand)]
enum SimCommand {
    /// Run one experiment file: writes OUT/results.csv, OUT/figure.png and OUT/figure.svg.
    Run {
        /// The experiment TOML file (e.g. experiments/fig3a.toml).
        file: PathBuf,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Use the file's [quick] scale (fewer OSSs and clients, one seed): for CI.
        #[arg(long)]
        quick: bool,
        /// Also print one JSON object per point on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run all of Figure 3 (fig3a..fig3d): points of all four files in parallel.
    Reproduce {
        /// Reduced scale (each file's [quick] table).
        #[arg(long)]
        quick: bool,
        /// Output directory: one sub-directory per file, plus results.csv and figure.png/svg
        /// of the whole figure.
        #[arg(long, default_value = "out/sim")]
        out: PathBuf,
        /// Where the experiment files are.
        #[arg(long, default_value = "experiments")]
        dir: PathBuf,
        /// Also print one JSON object per point on stdout.
        #[arg(long)]
        json: bool,
        /// Run only these seeds (comma-separated) instead of each file's list, e.g. to
        /// run one seed of the full figure first.
        #[arg(long, value_delimiter = ',')]
        seeds: Option<Vec<u64>>,
        /// Run only points with at most this many clients (a cheaper subset).
        #[arg(long)]
        max_clients: Option<u64>,
    },
    /// Measure the event engine (events/s with ~1e5 pending events) beside std's BinaryHeap,
    /// and the simulator's end-to-end event rate on one point.
    Bench {
        /// Pending events held in the queue.
        #[arg(long, default_value_t = 100_000)]
        pending: usize,
        /// Events fired in the measurement.
        #[arg(long, default_value_t = 20_000_000)]
        events: u64,
        /// Skip the end-to-end simulator point.
        #[arg(long)]
        engine_only: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: SimArgs) -> Result<()> {
    match args.command {
        SimCommand::Run {
            file,
            out,
            quick,
            json,
        } => {
            let exp = Experiment::load(&file, quick)?;
            eprintln_lossy!(
                "{}: {} points -> {}",
                exp.name,
                exp.points.len(),
                out.display()
            );
            let start = std::time::Instant::now();
            let outcomes = experiment::run_experiment(&exp, &out)?;
            print_points(&outcomes, json);
            eprintln_lossy!(
                "done in {:.1} s: {}",
                start.elapsed().as_secs_f64(),
                out.join("results.csv").display()
            );
            Ok(())
        }
        SimCommand::Reproduce {
            quick,
            out,
            dir,
            json,
            seeds,
            max_clients,
        } => reproduce(&dir, &out, quick, json, seeds, max_clients),
        SimCommand::Bench {
            pending,
            events,
            engine_only,
            json,
        } => {
            anyhow::ensure!(
                pending > 0 && events > 0,
                "--pending and --events must be positive"
            );
            let mut r = exaraid_sim::bench::run(pending, events);
            if !engine_only {
                r.simulator_events_per_s = Some(simulator_rate()?);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!(
                    "event engine (radix heap), {} pending: {:.2} M events per CPU second",
                    r.pending,
                    r.engine_events_per_s / 1e6
                );
                println!(
                    "std BinaryHeap, same events:        {:.2} M events per CPU second",
                    r.binary_heap_events_per_s / 1e6
                );
                println!("speedup: {:.2}x", r.speedup);
                if let Some(s) = r.simulator_events_per_s {
                    println!("simulator end to end (RAID-5 STD-RAID, HDD, 64 OSSs, 20000 clients, planner included): {:.2} M events per CPU second", s / 1e6);
                }
            }
            Ok(())
        }
    }
}

/// The simulator's own event rate: one mid-sized point, events / wall time.
fn simulator_rate() -> Result<f64> {
    let toml = r#"
experiment = "bench"
title = "bench"
raid = "raid5"
oss_count = 64
stripe_unit_bytes = 1048576
stripe_width = 64
devices = ["hdd"]
strategies = ["rmw"]
clients = [20000]
seeds = [1]
clients_per_app = 150
[scaling]
kind = "weak"
write_bytes = 131072
[stop]
warmup_rounds = 1
measure_rounds = 3
min_measured_writes = 0
"#;
    let exp = Experiment::parse(toml, Path::new("."), false)?;
    let o = experiment::run_point(&exp.points[0])?;
    Ok(o.result.events as f64 / o.cpu_seconds.max(1e-9))
}

fn print_points(outcomes: &[PointOutcome], json: bool) {
    if !json {
        return;
    }
    for o in outcomes {
        // Load imbalance: the busiest OSS's operations over the mean (1.0 = even).
        let per_oss: Vec<u64> = o
            .result
            .ops_per_oss
            .iter()
            .map(|c| c.iter().sum())
            .collect();
        let mean = per_oss.iter().sum::<u64>() as f64 / per_oss.len().max(1) as f64;
        let imbalance = per_oss.iter().copied().max().unwrap_or(0) as f64 / mean.max(1e-9);
        let v = serde_json::json!({
            "ops_max_over_mean_oss": imbalance,
            "experiment": o.point.experiment, "raid": o.point.raid, "device": o.point.device_name,
            "strategy": o.point.strategy.name(), "clients": o.point.clients, "write_bytes": o.point.write_bytes,
            "seed": o.point.seed, "sim_seconds": o.result.sim_seconds, "window_seconds": o.result.window_seconds,
            "bandwidth_mib_s": o.result.bandwidth_mib_s, "first_half_mib_s": o.result.first_half_mib_s,
            "second_half_mib_s": o.result.second_half_mib_s, "events": o.result.events, "wall_seconds": o.wall_seconds, "cpu_seconds": o.cpu_seconds,
        });
        println!("{v}");
    }
}

const FIGURE3_FILES: [&str; 4] = ["fig3a.toml", "fig3b.toml", "fig3c.toml", "fig3d.toml"];

fn reproduce(
    dir: &Path,
    out: &Path,
    quick: bool,
    json: bool,
    seeds: Option<Vec<u64>>,
    max_clients: Option<u64>,
) -> Result<()> {
    let mut exps = Vec::new();
    for f in FIGURE3_FILES {
        let mut e = Experiment::load(&dir.join(f), quick)
            .with_context(|| format!("looking for {f} in {} (use --dir)", dir.display()))?;
        if let Some(keep) = &seeds {
            e.points.retain(|p| keep.contains(&p.seed));
            anyhow::ensure!(
                !e.points.is_empty(),
                "--seeds {keep:?}: {f} has no point with these seeds"
            );
        }
        if let Some(max) = max_clients {
            e.points.retain(|p| p.clients <= max);
            anyhow::ensure!(
                !e.points.is_empty(),
                "--max-clients {max}: {f} has no point with that few clients"
            );
        }
        exps.push(e);
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    // All points of all four files in one parallel pool.
    let all: Vec<_> = exps.iter().flat_map(|e| e.points.iter().cloned()).collect();
    eprintln_lossy!(
        "Figure 3 ({}): {} points -> {}",
        if quick { "quick" } else { "full" },
        all.len(),
        out.display()
    );
    let start = std::time::Instant::now();
    let outcomes = experiment::run_points(&all, "figure 3")?;
    let mut offset = 0;
    let mut panels = Vec::new();
    for e in &exps {
        let mine = &outcomes[offset..offset + e.points.len()];
        offset += e.points.len();
        experiment::write_outputs(e, mine, &out.join(&e.name))?;
        panels.push(experiment::panels(
            &format!("{} {}", e.name, e.title),
            &e.devices,
            &e.strategies,
            mine,
        ));
    }
    // Seed layout: RAID-5 left, RAID-6 right; weak (a, b) above strong (c, d); one row per
    // device.
    let mut grid = Vec::new();
    for pair in [(0usize, 1usize), (2, 3)] {
        let devices = panels[pair.0].len().max(panels[pair.1].len());
        for d in 0..devices {
            for side in [pair.0, pair.1] {
                if let Some(p) = panels[side].get(d) {
                    grid.push(p.clone());
                }
            }
        }
    }
    std::fs::write(out.join("results.csv"), experiment::csv_text(&outcomes))?;
    let figure = exaraid_report::Figure {
        title: "Figure 3: write bandwidth relative to STD-RAID (RAID-5 left, RAID-6 right; weak scaling top, strong bottom)".into(),
        panels: grid,
        columns: 2,
    };
    exaraid_report::render(&figure, &out.join("figure.png"), &out.join("figure.svg"))?;
    print_points(&outcomes, json);
    eprintln_lossy!(
        "done in {:.1} s: {}",
        start.elapsed().as_secs_f64(),
        out.join("results.csv").display()
    );
    Ok(())
}
