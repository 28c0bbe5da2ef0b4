//! Experiments: a TOML file per figure of the seed, run as points (policy x swept value x
//! seed) in parallel, written as results.csv and a figure in the seed's layout.

use crate::hardware::Platform;
use crate::sim::{Compression, Metrics, Policy, SchedulerParams, Sim, SimConfig, DAY_S};
use anyhow::{anyhow, bail, Context, Result};
use exaraid_report::{Figure, Panel, Series};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The CSV header, exactly (issue 5).
pub const CSV_HEADER: &str =
    "experiment,policy,size_class,arrival_rate_per_hour,seed,requests,avg_weighted_response_s_per_gb,avg_response_s,throughput_mb_s,saturated";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sweep {
    ArrivalRate,
    RaitBlock,
    EcCompression,
    LbInterval,
}

/// Optional overrides of the scheduler knobs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerToml {
    pub max_light_load: Option<usize>,
    pub min_lb_interval_days: Option<f64>,
    pub max_waiting_time_hours: Option<f64>,
    pub max_req_count: Option<usize>,
    pub max_imbalance: Option<f64>,
}

/// One experiment file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentToml {
    /// Name used in the CSV `experiment` column and as the output folder.
    pub name: String,
    pub title: String,
    pub sweep: Sweep,
    pub policies: Vec<Policy>,
    pub size_class: String,
    /// Sizes as "10MB", "1GB", "1TB" (decimal units).
    pub size_min: String,
    pub size_max: String,
    #[serde(default)]
    pub arrival_rates_per_hour: Vec<f64>,
    pub arrival_rate_per_hour: Option<f64>,
    #[serde(default = "default_block")]
    pub rait_block: String,
    #[serde(default)]
    pub rait_blocks: Vec<String>,
    #[serde(default)]
    pub ec_compressions: Vec<f64>,
    pub data_compression: Option<f64>,
    #[serde(default)]
    pub lb_intervals_days: Vec<f64>,
    pub seeds: Vec<u64>,
    pub duration_days: f64,
    pub quick_duration_days: f64,
    /// The arrival window is stretched so that about this many requests arrive (slow rates).
    #[serde(default = "default_min_requests")]
    pub min_requests: f64,
    #[serde(default = "default_quick_min_requests")]
    pub quick_min_requests: f64,
    #[serde(default = "default_max_days")]
    pub max_duration_days: f64,
    #[serde(default)]
    pub scheduler: SchedulerToml,
}

fn default_block() -> String {
    "192MB".into()
}
fn default_min_requests() -> f64 {
    300.0
}
fn default_quick_min_requests() -> f64 {
    40.0
}
fn default_max_days() -> f64 {
    3.0 * 365.0
}

/// "10MB" -> 1e7. Decimal units, as tape and disk makers count.
pub fn parse_size(text: &str) -> Result<f64> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).ok_or_else(|| {
        anyhow!("size '{text}' has no unit: write e.g. \"10MB\", \"1GB\" or \"1TB\"")
    })?;
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| anyhow!("size '{text}': '{num}' is not a number"))?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "PB" => 1e15,
        other => {
            bail!("size '{text}': unknown unit '{other}', expected one of B, KB, MB, GB, TB, PB")
        }
    };
    if !(value > 0.0 && value.is_finite()) {
        bail!("size '{text}' must be positive");
    }
    Ok(value * mult)
}

impl ExperimentToml {
    pub fn load(path: &Path) -> Result<ExperimentToml> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read experiment file {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("in experiment file {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<ExperimentToml> {
        let exp: ExperimentToml =
            toml::from_str(text).map_err(|e| anyhow!("bad experiment TOML: {e}"))?;
        exp.validate()?;
        Ok(exp)
    }

    fn validate(&self) -> Result<()> {
        let lo = parse_size(&self.size_min).context("key `size_min`")?;
        let hi = parse_size(&self.size_max).context("key `size_max`")?;
        if hi < lo {
            bail!(
                "key `size_max` ({}) is smaller than `size_min` ({})",
                self.size_max,
                self.size_min
            );
        }
        parse_size(&self.rait_block).context("key `rait_block`")?;
        if self.policies.is_empty() {
            bail!("key `policies` is empty: list at least one of \"rait\", \"parallel\", \"vertical\", \"hetero\"");
        }
        if self.seeds.is_empty() {
            bail!("key `seeds` is empty: give at least one seed, e.g. seeds = [1, 2, 3]");
        }
        if !(self.duration_days > 0.0 && self.quick_duration_days > 0.0) {
            bail!("keys `duration_days` and `quick_duration_days` must be > 0 days");
        }
        let need_rate = || {
            self.arrival_rate_per_hour.filter(|r| *r > 0.0).ok_or_else(|| anyhow!("key `arrival_rate_per_hour` (a number > 0, requests per hour) is required for sweep \"{:?}\"", self.sweep))
        };
        match self.sweep {
            Sweep::ArrivalRate => {
                if self.arrival_rates_per_hour.is_empty()
                    || self
                        .arrival_rates_per_hour
                        .iter()
                        .any(|r| *r <= 0.0 || !r.is_finite())
                {
                    bail!("sweep \"arrival_rate\" needs key `arrival_rates_per_hour`: a non-empty list of rates > 0 (requests per hour)");
                }
            }
            Sweep::RaitBlock => {
                need_rate()?;
                if self.rait_blocks.is_empty() {
                    bail!("sweep \"rait_block\" needs key `rait_blocks`: a list of sizes such as [\"1MB\", \"192MB\", \"8GB\"]");
                }
                for b in &self.rait_blocks {
                    let bytes = parse_size(b).context("key `rait_blocks`")?;
                    if bytes > 1e11 {
                        bail!("key `rait_blocks`: {b} is larger than a tenth of a 1 TB tape");
                    }
                }
            }
            Sweep::EcCompression => {
                need_rate()?;
                let cd = self.data_compression.ok_or_else(|| anyhow!("sweep \"ec_compression\" needs key `data_compression` (C_D, a number in [1, 3])"))?;
                if !(1.0..=3.0).contains(&cd) {
                    bail!("key `data_compression` = {cd} must be in [1, 3]");
                }
                if self.ec_compressions.is_empty()
                    || self.ec_compressions.iter().any(|c| !(1.0..=cd).contains(c))
                {
                    bail!("key `ec_compressions` must list C_P values in [1, data_compression = {cd}]");
                }
            }
            Sweep::LbInterval => {
                need_rate()?;
                if self.lb_intervals_days.is_empty()
                    || self.lb_intervals_days.iter().any(|d| *d <= 0.0)
                {
                    bail!("sweep \"lb_interval\" needs key `lb_intervals_days`: a list of MINLBINTERVAL values > 0 (days)");
                }
            }
        }
        Ok(())
    }

    fn scheduler(&self) -> SchedulerParams {
        let mut s = SchedulerParams::default();
        let t = &self.scheduler;
        if let Some(v) = t.max_light_load {
            s.max_light_load = v;
        }
        if let Some(v) = t.min_lb_interval_days {
            s.min_lb_interval_s = v * DAY_S;
        }
        if let Some(v) = t.max_waiting_time_hours {
            s.max_waiting_time_s = v * 3600.0;
        }
        if let Some(v) = t.max_req_count {
            s.max_req_count = v;
        }
        if let Some(v) = t.max_imbalance {
            s.max_imbalance = v;
        }
        s
    }

    /// Every point to simulate.
    pub fn points(&self, quick: bool) -> Vec<Point> {
        let lo = parse_size(&self.size_min).expect("validated");
        let hi = parse_size(&self.size_max).expect("validated");
        let seeds: Vec<u64> = if quick {
            self.seeds[..1].to_vec()
        } else {
            self.seeds.clone()
        };
        let (days, min_requests) = if quick {
            (self.quick_duration_days, self.quick_min_requests)
        } else {
            (self.duration_days, self.min_requests)
        };
        let base_block = parse_size(&self.rait_block).expect("validated");
        let mut out = Vec::new();
        let mut push = |policy: Policy,
                        rate: f64,
                        x: f64,
                        param: Option<String>,
                        tweak: &dyn Fn(&mut SimConfig)| {
            for &seed in &seeds {
                let duration_s = (days * DAY_S)
                    .max(min_requests / rate * 3600.0)
                    .min(self.max_duration_days * DAY_S);
                let mut cfg = SimConfig::new(policy, lo, hi, rate, duration_s, seed);
                cfg.rait_block_bytes = base_block;
                cfg.scheduler = self.scheduler();
                tweak(&mut cfg);
                let experiment = match &param {
                    Some(p) => format!("{}/{}", self.name, p),
                    None => self.name.clone(),
                };
                out.push(Point {
                    experiment,
                    group: self.name.clone(),
                    policy,
                    size_class: self.size_class.clone(),
                    x,
                    cfg,
                });
            }
        };
        for &policy in &self.policies {
            match self.sweep {
                Sweep::ArrivalRate => {
                    for &rate in &self.arrival_rates_per_hour {
                        push(policy, rate, rate, None, &|_| {});
                    }
                }
                Sweep::RaitBlock => {
                    let rate = self.arrival_rate_per_hour.expect("validated");
                    if policy == Policy::Rait {
                        for b in &self.rait_blocks {
                            let bytes = parse_size(b).expect("validated");
                            push(
                                policy,
                                rate,
                                bytes / 1e6,
                                Some(format!("rait_block_mb={}", bytes / 1e6)),
                                &|c| c.rait_block_bytes = bytes,
                            );
                        }
                    } else {
                        // B is RAIT's alone: the others are one reference point each.
                        push(policy, rate, f64::NAN, Some("reference".into()), &|_| {});
                    }
                }
                Sweep::EcCompression => {
                    let rate = self.arrival_rate_per_hour.expect("validated");
                    let cd = self.data_compression.expect("validated");
                    for &cp in &self.ec_compressions {
                        push(policy, rate, cp, Some(format!("c_d={cd},c_p={cp}")), &|c| {
                            c.compression = Compression::Fixed { data: cd, ec: cp }
                        });
                    }
                }
                Sweep::LbInterval => {
                    let rate = self.arrival_rate_per_hour.expect("validated");
                    for &days in &self.lb_intervals_days {
                        push(
                            policy,
                            rate,
                            days,
                            Some(format!("min_lb_interval_days={days}")),
                            &|c| c.scheduler.min_lb_interval_s = days * DAY_S,
                        );
                    }
                }
            }
        }
        out
    }
}

/// One simulation to run.
#[derive(Clone, Debug)]
pub struct Point {
    pub experiment: String,
    pub group: String,
    pub policy: Policy,
    pub size_class: String,
    /// The swept value (NaN for a reference point drawn as a flat line).
    pub x: f64,
    pub cfg: SimConfig,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub experiment: String,
    pub policy: String,
    pub size_class: String,
    pub arrival_rate_per_hour: f64,
    pub seed: u64,
    pub requests: u64,
    pub avg_weighted_response_s_per_gb: f64,
    pub avg_response_s: f64,
    pub throughput_mb_s: f64,
    pub saturated: bool,
}

pub fn run_point(point: &Point) -> Metrics {
    let (metrics, _) = Sim::new(point.cfg.clone(), Platform::blue_waters()).run();
    metrics
}

fn row(point: &Point, m: &Metrics) -> Row {
    Row {
        experiment: point.experiment.clone(),
        policy: point.policy.name().into(),
        size_class: point.size_class.clone(),
        arrival_rate_per_hour: point.cfg.arrival_rate_per_hour,
        seed: point.cfg.seed,
        requests: m.requests,
        avg_weighted_response_s_per_gb: m.avg_weighted_response_s_per_gb,
        avg_response_s: m.avg_response_s,
        throughput_mb_s: m.throughput_mb_s,
        saturated: m.saturated,
    }
}

/// Run points in parallel (rayon), with a progress bar on stderr.
pub fn run_points(points: &[Point]) -> Vec<Metrics> {
    let bar = ProgressBar::new(points.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} points ({eta} left)",
        )
        .expect("valid template"),
    );
    let results: Vec<Metrics> = points
        .par_iter()
        .map(|p| {
            let m = run_point(p);
            bar.inc(1);
            m
        })
        .collect();
    bar.finish_and_clear();
    results
}

pub fn write_csv(path: &Path, points: &[Point], metrics: &[Metrics]) -> Result<()> {
    let mut w = csv::Writer::from_path(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    for (p, m) in points.iter().zip(metrics) {
        w.serialize(row(p, m))?;
    }
    w.flush()?;
    Ok(())
}

fn x_label(sweep: Sweep) -> &'static str {
    match sweep {
        Sweep::ArrivalRate => "arrival rate (requests per hour)",
        Sweep::RaitBlock => "RAIT block size B (MB)",
        Sweep::EcCompression => "EC compression rate C_P (data C_D fixed)",
        Sweep::LbInterval => "MINLBINTERVAL (days)",
    }
}

/// The figure in the seed's layout: average weighted response time (s/GB, log) against the
/// swept value, one line per policy, mean over seeds.
pub fn figure(exp: &ExperimentToml, points: &[Point], metrics: &[Metrics]) -> Figure {
    let xs_all: Vec<f64> = points
        .iter()
        .map(|p| p.x)
        .filter(|x| x.is_finite())
        .collect();
    let (xmin, xmax) = xs_all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let mut series = Vec::new();
    for &policy in &exp.policies {
        let mut by_x: Vec<(f64, Vec<f64>)> = Vec::new();
        for (p, m) in points
            .iter()
            .zip(metrics)
            .filter(|(p, _)| p.policy == policy)
        {
            match by_x.iter_mut().find(|(x, _)| x.to_bits() == p.x.to_bits()) {
                Some((_, v)) => v.push(m.avg_weighted_response_s_per_gb),
                None => by_x.push((p.x, vec![m.avg_weighted_response_s_per_gb])),
            }
        }
        let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
        let pts: Vec<(f64, f64)> = if by_x.len() == 1 && !by_x[0].0.is_finite() {
            // A reference policy in the block-size sweep: a flat line across the sweep.
            let y = mean(&by_x[0].1);
            vec![(xmin, y), (xmax, y)]
        } else {
            let mut v: Vec<(f64, f64)> = by_x.iter().map(|(x, ys)| (*x, mean(ys))).collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        };
        series.push(Series {
            name: policy.label().into(),
            points: pts,
        });
    }
    let log_x = matches!(exp.sweep, Sweep::RaitBlock | Sweep::LbInterval)
        || (exp.sweep == Sweep::ArrivalRate && xmax / xmin.max(1e-12) > 50.0);
    Figure {
        title: exp.title.clone(),
        columns: 1,
        panels: vec![Panel {
            title: format!("{} ({} to {})", exp.size_class, exp.size_min, exp.size_max),
            x_label: x_label(exp.sweep).into(),
            y_label: "average weighted response time (s/GB)".into(),
            log_x,
            log_y: true,
            series,
        }],
    }
}

/// `exaraid archive run`: one experiment to `out/results.csv` and `out/figure.{png,svg}`.
pub fn run_experiment(
    file: &Path,
    out: &Path,
    quick: bool,
) -> Result<(ExperimentToml, Vec<Point>, Vec<Metrics>)> {
    let exp = ExperimentToml::load(file)?;
    let points = exp.points(quick);
    let metrics = run_points(&points);
    write_outputs(&exp, out, &points, &metrics)?;
    Ok((exp, points, metrics))
}

pub fn write_outputs(
    exp: &ExperimentToml,
    out: &Path,
    points: &[Point],
    metrics: &[Metrics],
) -> Result<()> {
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create output folder {}", out.display()))?;
    write_csv(&out.join("results.csv"), points, metrics)?;
    exaraid_report::render(
        &figure(exp, points, metrics),
        &out.join("figure.png"),
        &out.join("figure.svg"),
    )
}

/// `exaraid archive reproduce`: every experiments/archive-*.toml, all points of all
/// experiments in one parallel pool.
pub fn reproduce(
    experiments_dir: &Path,
    out: &Path,
    quick: bool,
) -> Result<Vec<(ExperimentToml, PathBuf)>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(experiments_dir)
        .with_context(|| {
            format!(
                "cannot list {}: run from the repository root or pass --experiments",
                experiments_dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("archive-") && n.ends_with(".toml"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(
            "no experiments/archive-*.toml in {}",
            experiments_dir.display()
        );
    }
    let exps: Vec<ExperimentToml> = files
        .iter()
        .map(|f| ExperimentToml::load(f))
        .collect::<Result<_>>()?;
    let all: Vec<(usize, Point)> = exps
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.points(quick).into_iter().map(move |p| (i, p)))
        .collect();
    let points: Vec<Point> = all.iter().map(|(_, p)| p.clone()).collect();
    let metrics = run_points(&points);
    let mut done = Vec::new();
    for (i, exp) in exps.into_iter().enumerate() {
        let (ps, ms): (Vec<Point>, Vec<Metrics>) = all
            .iter()
            .zip(&metrics)
            .filter(|((j, _), _)| *j == i)
            .map(|((_, p), m)| (p.clone(), m.clone()))
            .unzip();
        let dir = out.join(&exp.name);
        write_outputs(&exp, &dir, &ps, &ms)?;
        done.push((exp, dir));
    }
    Ok(done)
}
