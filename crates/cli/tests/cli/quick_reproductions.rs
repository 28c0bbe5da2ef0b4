//! The `--quick` reproductions run in CI: every figure of the WCL paper (sim) and of the Blue
//! Waters study (archive) is produced end to end through the binary, with the exact CSV
//! contract and both figure formats.

use std::path::{Path, PathBuf};
use std::process::Command;

fn exaraid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_exaraid"))
}

fn experiments_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments")
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().expect("exaraid runs");
    assert!(
        out.status.success(),
        "exaraid failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Fields of one CSV row; a quoted field may hold commas (RFC 4180).
fn csv_fields(row: &str) -> usize {
    let mut fields = 1;
    let mut quoted = false;
    for c in row.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields += 1,
            _ => {}
        }
    }
    assert!(!quoted, "unbalanced quotes in {row}");
    fields
}

fn assert_results(dir: &Path, header: &str) -> usize {
    let csv = std::fs::read_to_string(dir.join("results.csv"))
        .unwrap_or_else(|e| panic!("{}/results.csv: {e}", dir.display()));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(header),
        "CSV header of {}",
        dir.display()
    );
    let columns = header.split(',').count();
    let rows: Vec<&str> = lines.collect();
    assert!(!rows.is_empty(), "{} has no result rows", dir.display());
    for row in &rows {
        assert_eq!(csv_fields(row), columns, "row of {}: {row}", dir.display());
    }
    for figure in ["figure.png", "figure.svg"] {
        let len = std::fs::metadata(dir.join(figure))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(len > 1000, "{}/{figure} missing or empty", dir.display());
    }
    rows.len()
}

#[test]
fn sim_reproduce_quick_writes_figure_3_with_the_csv_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sim");
    run_ok(
        exaraid()
            .args(["sim", "reproduce", "--quick", "--out"])
            .arg(&out)
            .arg("--dir")
            .arg(experiments_dir()),
    );
    let rows = assert_results(
        &out,
        "experiment,raid,device,strategy,clients,write_bytes,seed,sim_seconds,bandwidth_mib_s,relative_to_std,ops_data_read,ops_data_write,ops_parity_read,ops_parity_write",
    );
    // Four files (fig3a..d) x two devices x four strategies, at least one client count each.
    assert!(rows >= 4 * 2 * 4, "only {rows} points");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    for strategy in ["raid0", "rmw", "wcl", "delayed"] {
        assert!(
            csv.contains(strategy) || csv.to_lowercase().contains(strategy),
            "no {strategy} rows"
        );
    }
}

#[test]
fn archive_reproduce_quick_writes_every_figure_with_the_csv_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("archive");
    run_ok(
        exaraid()
            .args(["archive", "reproduce", "--quick", "--out"])
            .arg(&out)
            .arg("--experiments")
            .arg(experiments_dir()),
    );
    let experiments: Vec<_> = std::fs::read_dir(experiments_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("archive-")
        })
        .collect();
    assert!(
        experiments.len() >= 7,
        "expected the seven experiments of Figures 5-11"
    );
    for file in experiments {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        assert_results(
            &out.join(&name),
            "experiment,policy,size_class,arrival_rate_per_hour,seed,requests,avg_weighted_response_s_per_gb,avg_response_s,throughput_mb_s,saturated",
        );
    }
}
