//! Experiments as files: a TOML file names the points (RAID level, scaling, devices,
//! strategies, client counts, seeds) and the stop rule; `run` simulates every point (in
//! parallel with rayon), writes results.csv and the figure laid out like the seed's
//! Figure 3 (bandwidth relative to STD-RAID against clients, one panel per device).

use crate::executor::{Executor, PointParams, PointResult, StopRule};
use crate::models::calibration::MeasuredTable;
use crate::models::device::{DeviceKind, HddParams, SsdParams};
use crate::models::network::{NetworkParams, OSS_SERVICE_THREADS};
use crate::port::{point_layout, StrategyPort};
use crate::workload::{Scaling, Workload};
use anyhow::{bail, Context, Result};
use exaraid_des::ns_from_s;
use exaraid_plan::{StrategyConfig, StrategyKind};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The exact column list of results.csv (issue #3's contract).
pub const CSV_HEADER: &str = "experiment,raid,device,strategy,clients,write_bytes,seed,sim_seconds,bandwidth_mib_s,relative_to_std,ops_data_read,ops_data_write,ops_parity_read,ops_parity_write";

/// Limits on what a file may ask for (a typo like an extra zero should fail, not run for
/// days).
pub const CLIENTS_MAX: u64 = 10_000_000;
pub const OSS_MAX: u32 = 65_536;
pub const POINTS_MAX: usize = 100_000;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopFile {
    /// Application iterations (rounds) simulated before measuring.
    pub warmup_rounds: u64,
    /// Rounds measured.
    pub measure_rounds: u64,
    /// Client writes measured at least.
    pub min_measured_writes: u64,
    /// Simulated seconds at least (the seed's rule is 1000).
    #[serde(default)]
    pub min_sim_seconds: f64,
    /// Event budget per point.
    #[serde(default = "default_max_events")]
    pub max_events: u64,
}

fn default_max_events() -> u64 {
    4_000_000_000
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalingFile {
    /// "weak" or "strong".
    pub kind: String,
    /// Weak scaling: bytes per write per client.
    pub write_bytes: Option<u64>,
    /// Strong scaling: bytes per iteration over all clients.
    pub total_bytes: Option<u64>,
}

/// The reduced scale of `--quick` (CI): fewer OSSs and clients, one seed, a short stop rule.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickFile {
    pub oss_count: u32,
    pub stripe_width: usize,
    pub clients: Vec<u64>,
    pub seeds: Vec<u64>,
    pub stop: StopFile,
    /// Strong scaling: the iteration total at the quick scale.
    pub total_bytes: Option<u64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    pub experiment: String,
    pub title: String,
    /// "raid5" or "raid6" (two horizontal parities, as the seed's section 3.2).
    pub raid: String,
    pub scaling: ScalingFile,
    pub oss_count: u32,
    pub stripe_unit_bytes: u64,
    pub stripe_width: usize,
    /// "hdd", "ssd", or "measured:PATH.csv" (a calibration table, relative to the file).
    pub devices: Vec<String>,
    /// Planner strategy names: raid0, rmw (STD-RAID), wcl, delayed.
    pub strategies: Vec<String>,
    pub clients: Vec<u64>,
    pub seeds: Vec<u64>,
    pub clients_per_app: u64,
    pub stop: StopFile,
    pub quick: Option<QuickFile>,
}

/// One simulated point, resolved.
#[derive(Clone, Debug)]
pub struct Point {
    pub experiment: String,
    pub raid: String,
    pub parities: usize,
    pub device_name: String,
    pub device: DeviceKind,
    pub strategy: StrategyKind,
    pub clients: u64,
    pub write_bytes: u64,
    pub seed: u64,
    pub oss_count: u32,
    pub stripe_width: usize,
    pub stripe_unit_bytes: u64,
    pub clients_per_app: u64,
    pub stop: StopRule,
}

#[derive(Clone, Debug)]
pub struct PointOutcome {
    pub point: Point,
    pub result: PointResult,
    pub wall_seconds: f64,
    /// CPU time of the thread that ran the point (wall time is inflated when the machine
    /// is shared; events per CPU second is the per-core rate).
    pub cpu_seconds: f64,
}

/// CPU time consumed by the calling thread, in seconds.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A parsed, validated experiment.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub name: String,
    pub title: String,
    pub raid: String,
    pub points: Vec<Point>,
    pub devices: Vec<String>,
    pub strategies: Vec<StrategyKind>,
}

fn stop_rule(s: &StopFile, what: &str) -> Result<StopRule> {
    if s.measure_rounds == 0 {
        bail!("{what}.measure_rounds: expected an integer >= 1 (application iterations measured), found 0");
    }
    if !(s.min_sim_seconds.is_finite() && s.min_sim_seconds >= 0.0 && s.min_sim_seconds <= 1e6) {
        bail!(
            "{what}.min_sim_seconds: expected seconds in 0..=1000000, found {}",
            s.min_sim_seconds
        );
    }
    if s.max_events == 0 {
        bail!("{what}.max_events: expected a positive event budget");
    }
    Ok(StopRule {
        warmup_rounds: s.warmup_rounds,
        measure_rounds: s.measure_rounds,
        min_measured_writes: s.min_measured_writes,
        min_sim_ns: ns_from_s(s.min_sim_seconds),
        iterations: None,
        max_events: s.max_events,
    })
}

impl Experiment {
    pub fn load(path: &Path, quick: bool) -> Result<Experiment> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading experiment file {}", path.display()))?;
        Experiment::parse(&text, path.parent().unwrap_or(Path::new(".")), quick)
            .with_context(|| format!("in experiment file {}", path.display()))
    }

    /// Parse and validate; every error names the key and what is expected.
    pub fn parse(text: &str, base_dir: &Path, quick: bool) -> Result<Experiment> {
        let file: ExperimentFile = toml::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        let parities = match file.raid.as_str() {
            "raid5" => 1,
            "raid6" => 2,
            other => bail!("key `raid`: expected \"raid5\" or \"raid6\", found \"{other}\""),
        };
        let (oss_count, stripe_width, clients, seeds, stop, quick_total) = match (quick, &file.quick) {
            (false, _) => (file.oss_count, file.stripe_width, file.clients.clone(), file.seeds.clone(), stop_rule(&file.stop, "stop")?, None),
            (true, Some(q)) => (q.oss_count, q.stripe_width, q.clients.clone(), q.seeds.clone(), stop_rule(&q.stop, "quick.stop")?, q.total_bytes),
            (true, None) => bail!("--quick needs a [quick] table (oss_count, stripe_width, clients, seeds, [quick.stop]) in the experiment file"),
        };
        let scaling = match file.scaling.kind.as_str() {
            "weak" => Scaling::Weak {
                write_bytes: file.scaling.write_bytes.filter(|b| *b > 0).context("scaling.write_bytes: weak scaling needs the bytes per write per client, e.g. 131072")?,
            },
            "strong" => Scaling::Strong {
                total_bytes: quick_total
                    .or(file.scaling.total_bytes)
                    .filter(|b| *b > 0)
                    .context("scaling.total_bytes: strong scaling needs the bytes per iteration over all clients, e.g. 4096000000")?,
            },
            other => bail!("key `scaling.kind`: expected \"weak\" or \"strong\", found \"{other}\""),
        };
        if oss_count == 0 || oss_count > OSS_MAX {
            bail!("key `oss_count`: expected 1..={OSS_MAX}, found {oss_count}");
        }
        if stripe_width <= parities || stripe_width > oss_count as usize {
            bail!("key `stripe_width`: expected {}..={oss_count} (more columns than parities, at most oss_count), found {stripe_width}", parities + 1);
        }
        if file.stripe_unit_bytes == 0
            || file.stripe_unit_bytes % 4096 != 0
            || file.stripe_unit_bytes > 1 << 30
        {
            bail!("key `stripe_unit_bytes`: expected a multiple of 4096 up to 1 GiB, e.g. 1048576, found {}", file.stripe_unit_bytes);
        }
        if clients.is_empty() || clients.iter().any(|c| *c == 0 || *c > CLIENTS_MAX) {
            bail!("key `clients`: expected a non-empty list of client counts in 1..={CLIENTS_MAX}, found {clients:?}");
        }
        if seeds.is_empty() {
            bail!("key `seeds`: expected a non-empty list of integers, e.g. [1, 2, 3]");
        }
        if file.clients_per_app == 0 {
            bail!("key `clients_per_app`: expected an integer >= 1 (the seed implies ~150)");
        }
        if file.devices.is_empty() {
            bail!("key `devices`: expected a non-empty list of \"hdd\", \"ssd\" or \"measured:PATH.csv\"");
        }
        let mut devices = Vec::new();
        for d in &file.devices {
            let kind = match d.as_str() {
                "hdd" => DeviceKind::Hdd(HddParams::default()),
                "ssd" => DeviceKind::Ssd(SsdParams::default()),
                other => match other.strip_prefix("measured:") {
                    Some(p) => {
                        let path: PathBuf = base_dir.join(p);
                        DeviceKind::Measured(Arc::new(MeasuredTable::load(&path).with_context(|| format!("key `devices`: entry \"{other}\""))?))
                    }
                    None => bail!("key `devices`: expected \"hdd\", \"ssd\" or \"measured:PATH.csv\", found \"{other}\""),
                },
            };
            devices.push((d.clone(), kind));
        }
        if file.strategies.is_empty() {
            bail!("key `strategies`: expected a non-empty list of raid0, rmw, wcl, delayed");
        }
        let mut strategies = Vec::new();
        for s in &file.strategies {
            strategies.push(
                StrategyKind::from_name(s).map_err(|_| anyhow::anyhow!("key `strategies`: expected raid0, rmw (STD-RAID), wcl or delayed, found \"{s}\""))?,
            );
        }
        let mut points = Vec::new();
        for (device_name, device) in &devices {
            for &c in &clients {
                for &seed in &seeds {
                    for &strategy in &strategies {
                        points.push(Point {
                            experiment: file.experiment.clone(),
                            raid: file.raid.clone(),
                            parities,
                            device_name: device_name.clone(),
                            device: device.clone(),
                            strategy,
                            clients: c,
                            write_bytes: scaling.write_bytes(c),
                            seed,
                            oss_count,
                            stripe_width,
                            stripe_unit_bytes: file.stripe_unit_bytes,
                            clients_per_app: file.clients_per_app,
                            stop: stop.clone(),
                        });
                    }
                }
            }
        }
        if points.len() > POINTS_MAX {
            bail!(
                "the file asks for {} points, more than the limit of {POINTS_MAX}",
                points.len()
            );
        }
        Ok(Experiment {
            name: file.experiment,
            title: file.title,
            raid: file.raid,
            points,
            devices: devices.into_iter().map(|d| d.0).collect(),
            strategies,
        })
    }
}

/// Simulate one point.
pub fn run_point(point: &Point) -> Result<PointOutcome> {
    run_point_with(point, true)
}

/// The executor's parameters for a point.
pub fn point_params(point: &Point) -> PointParams {
    PointParams {
        oss_count: point.oss_count,
        device: point.device.clone(),
        network: NetworkParams::default(),
        service_threads: OSS_SERVICE_THREADS,
        workload: Workload::new(point.clients, point.clients_per_app, point.write_bytes),
        stop: point.stop.clone(),
        // Each point's randomness depends on its seed and what it is, not on run order.
        seed: crate::port::splitmix(
            point.seed ^ crate::port::splitmix(point.clients) ^ (point.parities as u64) << 60,
        ),
    }
}

/// Simulate one point; `rotate_files` off keeps the planner's OSS numbering (tests).
pub fn run_point_with(point: &Point, rotate_files: bool) -> Result<PointOutcome> {
    let start = std::time::Instant::now();
    let cpu_start = thread_cpu_seconds();
    let layout = point_layout(
        point.strategy,
        point.parities,
        point.stripe_width,
        point.stripe_unit_bytes,
        point.oss_count as usize,
    )?;
    let mut port = StrategyPort::new(
        point.strategy,
        layout,
        StrategyConfig::default(),
        rotate_files,
        point.seed,
    )?;
    let params = point_params(point);
    let result = Executor::new(params, &mut port).run().with_context(|| {
        format!(
            "point {} {} {} clients={} seed={}",
            point.device_name,
            point.raid,
            point.strategy.name(),
            point.clients,
            point.seed
        )
    })?;
    Ok(PointOutcome {
        point: point.clone(),
        result,
        wall_seconds: start.elapsed().as_secs_f64(),
        cpu_seconds: thread_cpu_seconds() - cpu_start,
    })
}

/// Run points in parallel with a progress bar on stderr. Output order = input order.
pub fn run_points(points: &[Point], label: &str) -> Result<Vec<PointOutcome>> {
    let bar = ProgressBar::new(points.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {bar:40} {pos}/{len} points (eta {eta})",
        )
        .expect("valid template"),
    );
    bar.set_message(label.to_string());
    // Largest points first so that the pool is not left waiting on one big point at the end.
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(points[i].clients * points[i].write_bytes.max(1)));
    // Without a terminal the bar is hidden: log a line every 5 % instead (CI logs).
    let plain = !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let started = std::time::Instant::now();
    let step = (points.len() / 20).max(1);
    let results: Vec<(usize, Result<PointOutcome>)> = order
        .par_iter()
        .map(|&i| {
            let r = run_point(&points[i]);
            bar.inc(1);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if plain && (n % step == 0 || n == points.len()) {
                eprintln!(
                    "{label}: {n}/{} points, {:.0} s",
                    points.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            (i, r)
        })
        .collect();
    bar.finish_and_clear();
    let mut out: Vec<Option<PointOutcome>> = vec![None; points.len()];
    for (i, r) in results {
        out[i] = Some(r?);
    }
    Ok(out
        .into_iter()
        .map(|o| o.expect("every point ran"))
        .collect())
}

/// results.csv text: the exact header, one row per point.
pub fn csv_text(outcomes: &[PointOutcome]) -> String {
    // STD-RAID bandwidth of the same (experiment, device, clients, seed).
    let mut std_bw: BTreeMap<(String, String, u64, u64), f64> = BTreeMap::new();
    for o in outcomes {
        if o.point.strategy == StrategyKind::Rmw {
            std_bw.insert(
                (
                    o.point.experiment.clone(),
                    o.point.device_name.clone(),
                    o.point.clients,
                    o.point.seed,
                ),
                o.result.bandwidth_mib_s,
            );
        }
    }
    let mut text = String::from(CSV_HEADER);
    text.push('\n');
    for o in outcomes {
        let p = &o.point;
        let r = &o.result;
        let rel = std_bw
            .get(&(
                p.experiment.clone(),
                p.device_name.clone(),
                p.clients,
                p.seed,
            ))
            .filter(|b| **b > 0.0)
            .map(|b| format!("{:.6}", r.bandwidth_mib_s / b))
            .unwrap_or_default();
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{:.6},{:.6},{},{},{},{},{}\n",
            p.experiment,
            p.raid,
            p.device_name,
            p.strategy.name(),
            p.clients,
            p.write_bytes,
            p.seed,
            r.sim_seconds,
            r.bandwidth_mib_s,
            rel,
            r.ops[0],
            r.ops[1],
            r.ops[2],
            r.ops[3]
        ));
    }
    text
}

/// Mean relative-to-STD bandwidth over seeds, per (device, strategy): points (clients, rel).
pub fn relative_series(
    outcomes: &[PointOutcome],
) -> BTreeMap<(String, StrategyKind), Vec<(f64, f64)>> {
    let mut std_bw: BTreeMap<(String, u64, u64), f64> = BTreeMap::new();
    for o in outcomes {
        if o.point.strategy == StrategyKind::Rmw {
            std_bw.insert(
                (o.point.device_name.clone(), o.point.clients, o.point.seed),
                o.result.bandwidth_mib_s,
            );
        }
    }
    let mut acc: BTreeMap<(String, StrategyKind), BTreeMap<u64, (f64, u32)>> = BTreeMap::new();
    for o in outcomes {
        let p = &o.point;
        if let Some(b) = std_bw
            .get(&(p.device_name.clone(), p.clients, p.seed))
            .filter(|b| **b > 0.0)
        {
            let e = acc
                .entry((p.device_name.clone(), p.strategy))
                .or_default()
                .entry(p.clients)
                .or_insert((0.0, 0));
            e.0 += o.result.bandwidth_mib_s / b;
            e.1 += 1;
        }
    }
    acc.into_iter()
        .map(|(k, m)| {
            (
                k,
                m.into_iter()
                    .map(|(c, (s, n))| (c as f64, s / n as f64))
                    .collect(),
            )
        })
        .collect()
}

fn device_label(name: &str) -> String {
    match name {
        "hdd" => "HDD (WD Black 750 GB class)".into(),
        "ssd" => "SSD (Intel SSD 320 class)".into(),
        other => other.to_string(),
    }
}

/// Panels of one experiment: one per device.
pub fn panels(
    exp_title: &str,
    devices: &[String],
    strategies: &[StrategyKind],
    outcomes: &[PointOutcome],
) -> Vec<exaraid_report::Panel> {
    let series = relative_series(outcomes);
    devices
        .iter()
        .map(|d| exaraid_report::Panel {
            title: format!("{exp_title}: {}", device_label(d)),
            x_label: "clients".into(),
            y_label: "write bandwidth / STD-RAID".into(),
            log_x: true,
            log_y: false,
            series: strategies
                .iter()
                .filter_map(|s| {
                    series
                        .get(&(d.clone(), *s))
                        .map(|pts| exaraid_report::Series {
                            name: s.paper_name().into(),
                            points: pts.clone(),
                        })
                })
                .collect(),
        })
        .collect()
}

/// Run one experiment file into `out_dir`: results.csv, figure.png, figure.svg.
pub fn run_experiment(exp: &Experiment, out_dir: &Path) -> Result<Vec<PointOutcome>> {
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating output directory {}", out_dir.display()))?;
    let outcomes = run_points(&exp.points, &exp.name)?;
    write_outputs(exp, &outcomes, out_dir)?;
    Ok(outcomes)
}

pub fn write_outputs(exp: &Experiment, outcomes: &[PointOutcome], out_dir: &Path) -> Result<()> {
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating output directory {}", out_dir.display()))?;
    let csv_path = out_dir.join("results.csv");
    std::fs::write(&csv_path, csv_text(outcomes))
        .with_context(|| format!("writing {}", csv_path.display()))?;
    let figure = exaraid_report::Figure {
        title: format!(
            "{}: {} (write bandwidth relative to STD-RAID)",
            exp.name, exp.title
        ),
        panels: panels(&exp.title, &exp.devices, &exp.strategies, outcomes),
        columns: exp.devices.len().max(1),
    };
    exaraid_report::render(
        &figure,
        &out_dir.join("figure.png"),
        &out_dir.join("figure.svg"),
    )?;
    Ok(())
}
