//! The simulator's contract: determinism, the results.csv header, clear TOML errors, and
//! that it executes exactly the planner's plans (per-OSS op counts equal).

use exaraid_plan::{counts_per_oss, ClientWrite, Hint, IoPlan, StrategyConfig, StrategyKind};
use exaraid_sim::executor::StopRule;
use exaraid_sim::experiment::{self, Experiment, Point, CSV_HEADER};
use exaraid_sim::port::point_layout;
use std::path::Path;

fn tiny_toml(raid: &str, strategies: &str) -> String {
    format!(
        r#"
experiment = "tiny"
title = "tiny"
raid = "{raid}"
oss_count = 8
stripe_unit_bytes = 65536
stripe_width = 8
devices = ["hdd", "ssd"]
strategies = [{strategies}]
clients = [40]
seeds = [7]
clients_per_app = 10
[scaling]
kind = "weak"
write_bytes = 16384
[stop]
warmup_rounds = 1
measure_rounds = 2
min_measured_writes = 200
"#
    )
}

fn points(raid: &str, strategies: &str) -> Vec<Point> {
    Experiment::parse(&tiny_toml(raid, strategies), Path::new("."), false)
        .unwrap()
        .points
}

#[test]
fn the_same_seed_gives_bit_identical_results_and_another_seed_differs() {
    for p in points("raid5", r#""rmw", "wcl""#) {
        let a = experiment::run_point(&p).unwrap().result;
        let b = experiment::run_point(&p).unwrap().result;
        assert_eq!(a.bandwidth_mib_s.to_bits(), b.bandwidth_mib_s.to_bits());
        assert_eq!(a.sim_seconds.to_bits(), b.sim_seconds.to_bits());
        assert_eq!(a.ops_per_oss, b.ops_per_oss);
        assert_eq!(a.events, b.events);
        let mut other = p.clone();
        other.seed = 8;
        let c = experiment::run_point(&other).unwrap().result;
        assert_ne!(
            a.sim_seconds.to_bits(),
            c.sim_seconds.to_bits(),
            "seed must matter ({:?})",
            p.strategy
        );
    }
}

#[test]
fn a_tiny_run_writes_the_exact_csv_header_and_a_figure() {
    let exp = Experiment::parse(
        &tiny_toml("raid6", r#""raid0", "rmw", "wcl""#),
        Path::new("."),
        false,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let outcomes = experiment::run_experiment(&exp, dir.path()).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), CSV_HEADER);
    assert_eq!(
        CSV_HEADER,
        "experiment,raid,device,strategy,clients,write_bytes,seed,sim_seconds,bandwidth_mib_s,relative_to_std,ops_data_read,ops_data_write,ops_parity_read,ops_parity_write"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), outcomes.len());
    assert_eq!(rows.len(), 2 * 3);
    for row in &rows {
        assert_eq!(row.split(',').count(), 14, "{row}");
        assert!(row.starts_with("tiny,raid6,"));
    }
    // STD-RAID is 1.0 relative to itself.
    assert!(rows
        .iter()
        .any(|r| r.contains(",rmw,") && r.contains(",1.000000,")));
    assert!(dir.path().join("figure.png").exists() && dir.path().join("figure.svg").exists());
}

#[test]
fn bad_toml_names_the_key_and_what_is_expected() {
    let good = tiny_toml("raid5", r#""rmw""#);
    let cases: Vec<(String, &str)> = vec![
        (
            good.replace("raid = \"raid5\"", "raid = \"raid7\""),
            "key `raid`",
        ),
        (
            good.replace("strategies = [\"rmw\"]", "strategies = [\"fast\"]"),
            "key `strategies`",
        ),
        (
            good.replace("clients = [40]", "clients = [\"many\"]"),
            "clients",
        ),
        (good.replace("oss_count = 8\n", ""), "oss_count"),
        (
            good.replace("stripe_width = 8", "stripe_width = 9"),
            "key `stripe_width`",
        ),
        (
            good.replace("kind = \"weak\"", "kind = \"medium\""),
            "key `scaling.kind`",
        ),
        (
            good.replace("seeds = [7]", "seeds = [7]\nspeed = 3"),
            "speed",
        ),
        (
            good.replace("devices = [\"hdd\", \"ssd\"]", "devices = [\"tape\"]"),
            "key `devices`",
        ),
        (
            good.replace("measure_rounds = 2", "measure_rounds = 0"),
            "measure_rounds",
        ),
        (
            good.replace("write_bytes = 16384", ""),
            "scaling.write_bytes",
        ),
    ];
    for (text, expected) in cases {
        let err = format!(
            "{:#}",
            Experiment::parse(&text, Path::new("."), false).unwrap_err()
        );
        assert!(
            err.contains(expected),
            "error `{err}` should mention `{expected}`"
        );
    }
    let err = format!(
        "{:#}",
        Experiment::parse(&good, Path::new("."), true).unwrap_err()
    );
    assert!(err.contains("[quick]"), "{err}");
}

#[test]
fn every_figure3_file_parses_at_both_scales() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    for f in ["fig3a.toml", "fig3b.toml", "fig3c.toml", "fig3d.toml"] {
        let full = Experiment::load(&dir.join(f), false).unwrap();
        let quick = Experiment::load(&dir.join(f), true).unwrap();
        assert_eq!(full.points.len(), 2 * 8 * 3 * 4, "{f}");
        assert!(quick.points.len() < full.points.len());
        assert!(full.points.iter().all(|p| p.oss_count == 512
            && p.stripe_width == 512
            && p.stripe_unit_bytes == 1 << 20));
        assert!(full.points.iter().any(|p| p.clients == 500_000));
    }
}

/// Feed the planner the same workload directly (no simulator): per-OSS op counts.
fn planner_counts(point: &Point, iterations: u64) -> Vec<exaraid_plan::ContentCounts> {
    let layout = point_layout(
        point.strategy,
        point.parities,
        point.stripe_width,
        point.stripe_unit_bytes,
        point.oss_count as usize,
    )
    .unwrap();
    let mut s =
        exaraid_plan::new_strategy(point.strategy, layout, StrategyConfig::default()).unwrap();
    let w = exaraid_sim::workload::Workload::new(
        point.clients,
        point.clients_per_app,
        point.write_bytes,
    );
    let mut plans: Vec<IoPlan> = Vec::new();
    let delayed = point.strategy == StrategyKind::Delayed;
    let mut now = 0u64;
    // Complete plans in the order they were returned (an order the executor may also
    // take: a plan's `after_plans` were returned before it).
    let complete_all =
        |s: &mut Box<dyn exaraid_plan::Strategy>, batch: Vec<IoPlan>, plans: &mut Vec<IoPlan>| {
            let mut queue: std::collections::VecDeque<IoPlan> = batch.into();
            while let Some(p) = queue.pop_front() {
                queue.extend(s.on_complete(p.id).unwrap());
                plans.push(p);
            }
        };
    for it in 0..iterations {
        for app in 0..w.apps() {
            let file = w.file_id(app, it);
            now += 1;
            if delayed {
                let b = s
                    .on_hint(&Hint::StartDelayed { window: file, file }, now)
                    .unwrap();
                complete_all(&mut s, b, &mut plans);
            }
            for rank in 0..w.app_clients(app) {
                let cw = ClientWrite {
                    client: w.client_id(app, rank),
                    app,
                    file,
                    offset_bytes: w.offset_bytes(rank),
                    len_bytes: w.write_bytes,
                };
                let b = s.on_write(&cw, now).unwrap();
                complete_all(&mut s, b, &mut plans);
            }
            if delayed {
                let b = s.on_hint(&Hint::EndDelayed { window: file }, now).unwrap();
                complete_all(&mut s, b, &mut plans);
            }
        }
    }
    counts_per_oss(plans.iter(), point.oss_count as usize)
        .into_iter()
        .map(|c| c.by_content())
        .collect()
}

#[test]
fn simulator_op_counts_per_oss_equal_the_planners() {
    let strategies = r#""raid0", "rmw", "wcl", "delayed""#;
    for raid in ["raid5", "raid6"] {
        for mut p in points(raid, strategies)
            .into_iter()
            .filter(|p| p.device_name == "hdd")
        {
            let iterations = 3;
            p.stop = StopRule {
                iterations: Some(iterations),
                ..StopRule::default()
            };
            let sim = experiment::run_point_with(&p, false).unwrap().result;
            let expected = planner_counts(&p, iterations);
            let got: Vec<[u64; 4]> = sim.ops_per_oss.clone();
            let want: Vec<[u64; 4]> = expected
                .iter()
                .map(|c| [c.data_read, c.data_write, c.parity_read, c.parity_write])
                .collect();
            assert_eq!(
                got, want,
                "{raid} {:?}: simulator vs planner op counts per OSS",
                p.strategy
            );
            assert!(want.iter().flatten().sum::<u64>() > 0);
            // And the executor really did all client writes.
            assert_eq!(sim.writes_measured, p.clients * iterations);
        }
    }
}

#[test]
fn a_measured_device_table_drives_a_point() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("fio.csv"),
        "op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\n\
         write,16384,rand,1,4000,5000,7000,9000\n\
         read,16384,rand,1,3000,4000,6000,8000\n\
         write,16384,seq,1,100,120,150,200\n",
    )
    .unwrap();
    let text = tiny_toml("raid5", r#""rmw""#).replace(
        r#"devices = ["hdd", "ssd"]"#,
        r#"devices = ["measured:fio.csv"]"#,
    );
    let exp = Experiment::parse(&text, dir.path(), false).unwrap();
    assert_eq!(exp.points.len(), 1);
    let r = experiment::run_point(&exp.points[0]).unwrap().result;
    assert!(r.bandwidth_mib_s > 0.0);
    // A broken table is reported with its file and line.
    std::fs::write(
        dir.path().join("bad.csv"),
        "op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nwrite,0,rand,1,1,2,3,4\n",
    )
    .unwrap();
    let bad = text.replace("fio.csv", "bad.csv");
    let err = format!(
        "{:#}",
        Experiment::parse(&bad, dir.path(), false).unwrap_err()
    );
    assert!(err.contains("bad.csv") && err.contains("line 2"), "{err}");
}
