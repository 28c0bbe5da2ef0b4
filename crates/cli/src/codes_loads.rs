//! `exaraid codes loads`: the D-Code paper's I/O-load evaluation (seed 002, section IV,
//! Figures 4 and 5). The model lives in exaraid-plan (`element_io`, `loads`); this file only
//! reads arguments and traces, and writes the table, JSON, CSV and figures.

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use exaraid_codes::{Code, CodeKind, CodeSpec};
use exaraid_plan::loads::{
    self, CostModel, DiskLoads, LoadRow, Tuple, Workload, WorkloadShape, LF_INFINITY_PLOTTED_AS,
};
use exaraid_report::{render, Figure, Panel, Series};
use std::path::{Path, PathBuf};

/// The default seed: fixed so that two runs without --seed print the same numbers.
const DEFAULT_SEED: u64 = 20_140_519;
/// Limits on the lists of codes and primes (each pair is one evaluation).
const CODES_MAX: usize = 16;
const PRIMES_MAX: usize = 16;
/// A trace file larger than this is refused before reading it.
const TRACE_BYTES_MAX: u64 = 1 << 30;

/// I/O-load evaluation of the D-Code paper (section IV, Figures 4 and 5).
///
/// For every code and prime p, counts the element accesses L(i) on each disk under a
/// workload and prints the load-balancing factor LF = Lmax/Lmin and the I/O cost = sum L(i).
/// Reads read only their data elements; a write of L continuous data elements is a
/// read-modify-write: read the old data and every parity they are in, write the new data
/// and those parities, each parity once per operation. Runs that pass the end of a stripe
/// continue in the next stripe.
///
/// Without --trace the paper's three workloads are generated: 2000 random tuples <S, L, T>
/// (S any data element, L in 1..=20, T in 1..=1000) for read-only, read-intensive (7 reads :
/// 3 writes) and mixed (1 : 1). With --trace the operations of the file are replayed on
/// every code and reported with workload "trace".
///
/// LF is infinite when some disk gets no access at all (e.g. RDP's parity disks under
/// read-only load): the table prints "inf", JSON prints null, CSV prints inf, and the
/// figures draw it at 30 as the paper's Figure 4 does.
#[derive(Args)]
#[command(after_help = AFTER_HELP)]
pub struct LoadsArgs {
    /// Codes to evaluate, comma-separated (array codes: rdp, hcode, hdp, xcode, dcode, evenodd).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "rdp,hcode,hdp,xcode,dcode,evenodd"
    )]
    codes: Vec<String>,
    /// Primes p, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "5,7,11,13")]
    primes: Vec<usize>,
    /// Seed of the random workloads (same seed, same numbers).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Random tuples <S, L, T> per workload (the paper uses 2000).
    #[arg(long, default_value_t = loads::PAPER_TUPLES)]
    tuples: usize,
    /// Replay the operations of this CSV file on every code instead of the random workloads.
    /// Header `op,start,length,times`; op is read or write; start is a data element index in
    /// the code's data order (past the stripe's end it addresses the next stripes); length
    /// >= 1; times >= 1. Results are reported with workload "trace".
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// What an operation adds to a disk's count. rmw: device I/Os of a read-modify-write (a
    /// write reads and writes each data element and each parity it updates: 2 accesses per
    /// element). elements: each element an operation touches counts once (the paper's "amount
    /// of elements that need to be read/written"); writes cost half as much. Reads are the
    /// same under both.
    #[arg(long, value_enum, default_value_t = CountArg::Rmw)]
    cost_model: CountArg,
    /// Print a JSON array of objects with exactly the keys code, p, workload, lf, cost
    /// (workload: read-only, read-intensive, mixed, or trace with --trace; lf null = infinite).
    #[arg(long)]
    json: bool,
    /// Also write DIR/dcode-loads.json (as --json), DIR/dcode-loads.csv (with Lmin, Lmax and
    /// every L(i)), and the figures DIR/figures/dcode-loads-fig4-lf.{png,svg} and
    /// DIR/figures/dcode-loads-fig5-cost.{png,svg}; with --cost-model elements the names start
    /// with dcode-loads-elements instead.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CountArg {
    Rmw,
    Elements,
}

impl CountArg {
    fn model(self) -> CostModel {
        match self {
            CountArg::Rmw => CostModel::ReadModifyWrite,
            CountArg::Elements => CostModel::ElementsTouched,
        }
    }
}

/// Shown after the options of `exaraid codes loads --help` (the subcommand's one-line
/// summary comes from codes_cmd.rs).
const AFTER_HELP: &str = "\
For every code and prime p, counts the element accesses L(i) on each disk (column) and prints
LF = Lmax/Lmin and the I/O cost = sum L(i) (seed 002, section IV, Figures 4 and 5).

Reads read only their data elements. A write of L continuous data elements is a
read-modify-write: read the old data and every parity they are in, write the new data and those
parities, each parity once per operation. Runs that pass the end of a stripe continue in the next
stripe (same columns, its own parities). With --cost-model elements a write counts each element
it touches once instead of twice (read + write).

Without --trace: the paper's workloads, 2000 random tuples <S, L, T> each (S any data element,
L in 1..=20, T in 1..=1000): read-only, read-intensive (7 reads : 3 writes), mixed (1 : 1).
With --trace: the file's operations on every code, reported as workload \"trace\".

LF is infinite when a disk gets no access (e.g. RDP's parity disks under read-only load): the
table and CSV print inf, JSON prints null, the figures draw it at 30 as the paper's Figure 4.
Details: docs/results/dcode-loads.md.";

/// One evaluation: a code at one p under one workload.
struct Evaluation {
    kind: CodeKind,
    p: usize,
    disks: usize,
    workload: Workload,
    loads: DiskLoads,
}

impl Evaluation {
    fn row(&self) -> LoadRow {
        LoadRow {
            code: self.kind.name().to_string(),
            p: self.p,
            workload: self.workload.name().to_string(),
            lf: self.loads.lf(),
            cost: self.loads.cost(),
        }
    }
}

fn parse_codes(names: &[String]) -> Result<Vec<CodeKind>> {
    if names.is_empty() || names.len() > CODES_MAX {
        bail!("--codes lists {} codes: give 1 to {CODES_MAX}", names.len());
    }
    names
        .iter()
        .map(|name| {
            let kind = CodeKind::from_name(name.trim())?;
            if !kind.is_array() {
                bail!("--codes: '{name}' is not an array code; the load evaluation compares the codes of the D-Code paper, parameterised by a prime p (rdp, hcode, hdp, xcode, dcode, evenodd)");
            }
            Ok(kind)
        })
        .collect()
}

fn read_trace(path: &Path) -> Result<Vec<Tuple>> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot open trace {}", path.display()))?
        .len();
    if size > TRACE_BYTES_MAX {
        bail!(
            "trace {} is {size} bytes, more than the limit of {TRACE_BYTES_MAX}: split it",
            path.display()
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read trace {} as UTF-8 text", path.display()))?;
    loads::parse_trace(&text).with_context(|| format!("trace {}", path.display()))
}

pub fn run(args: LoadsArgs) -> Result<()> {
    let kinds = parse_codes(&args.codes)?;
    if args.primes.is_empty() || args.primes.len() > PRIMES_MAX {
        bail!(
            "--primes lists {} values: give 1 to {PRIMES_MAX}",
            args.primes.len()
        );
    }
    let trace = args.trace.as_deref().map(read_trace).transpose()?;
    let workloads: Vec<Workload> = if trace.is_some() {
        vec![Workload::Trace]
    } else {
        Workload::PAPER.to_vec()
    };
    let shape = WorkloadShape {
        tuples: args.tuples,
        ..WorkloadShape::default()
    };
    let model = args.cost_model.model();

    let mut evaluations = Vec::new();
    for &workload in &workloads {
        for &kind in &kinds {
            for &p in &args.primes {
                let code = Code::new(CodeSpec::array(kind, p))
                    .with_context(|| format!("{} p={p}", kind.name()))?;
                let geometry = code.geometry();
                let generated;
                let tuples: &[Tuple] = match &trace {
                    Some(t) => t,
                    None => {
                        generated =
                            loads::generate(workload, geometry.data_count(), args.seed, shape)?;
                        &generated
                    }
                };
                let loads = loads::evaluate_with(geometry, tuples, model)
                    .with_context(|| format!("{} p={p} {}", kind.name(), workload.name()))?;
                evaluations.push(Evaluation {
                    kind,
                    p,
                    disks: geometry.cols,
                    workload,
                    loads,
                });
            }
        }
    }

    let rows: Vec<LoadRow> = evaluations.iter().map(Evaluation::row).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", table(&evaluations));
        match &args.trace {
            Some(path) => println!(
                "workload: trace {} ({} operations)",
                path.display(),
                trace.as_ref().map_or(0, Vec::len)
            ),
            None => println!(
                "workloads: {} random tuples <S, L, T> each, seed {}",
                args.tuples, args.seed
            ),
        }
        println!("cost model: {}", model.name());
        println!("LF inf: some disk has no access (Lmin = 0); JSON writes null for it.");
    }
    if let Some(dir) = &args.out {
        let stem = output_stem(model);
        write_outputs(dir, stem, model, &evaluations, &rows)?;
        eprintln_lossy!(
            "wrote {0}/{stem}.{{json,csv}} and {0}/figures/{stem}-fig{{4-lf,5-cost}}.{{png,svg}}",
            dir.display()
        );
    }
    Ok(())
}

fn lf_text(lf: Option<f64>) -> String {
    lf.map_or_else(|| "inf".to_string(), |v| format!("{v:.3}"))
}

fn table(evaluations: &[Evaluation]) -> String {
    let mut out = format!(
        "{:<15} {:<8} {:>3} {:>5} {:>12} {:>12} {:>8} {:>14}\n",
        "workload", "code", "p", "disks", "Lmin", "Lmax", "LF", "cost"
    );
    for e in evaluations {
        out.push_str(&format!(
            "{:<15} {:<8} {:>3} {:>5} {:>12} {:>12} {:>8} {:>14}\n",
            e.workload.name(),
            e.kind.name(),
            e.p,
            e.disks,
            e.loads.lmin(),
            e.loads.lmax(),
            lf_text(e.loads.lf()),
            e.loads.cost()
        ));
    }
    out
}

fn csv(evaluations: &[Evaluation]) -> String {
    let mut out = String::from("code,p,workload,disks,lmin,lmax,lf,cost,per_disk\n");
    for e in evaluations {
        let per_disk: Vec<String> = e.loads.per_disk.iter().map(u64::to_string).collect();
        let lf = e
            .loads
            .lf()
            .map_or_else(|| "inf".to_string(), |v| format!("{v}"));
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{}\n",
            e.kind.name(),
            e.p,
            e.workload.name(),
            e.disks,
            e.loads.lmin(),
            e.loads.lmax(),
            lf,
            e.loads.cost(),
            per_disk.join(" ")
        ));
    }
    out
}

/// The names the paper uses in its legends.
fn display_name(kind: CodeKind) -> &'static str {
    match kind {
        CodeKind::Rdp => "RDP",
        CodeKind::Hcode => "H-Code",
        CodeKind::Hdp => "HDP",
        CodeKind::Xcode => "X-Code",
        CodeKind::Dcode => "D-Code",
        CodeKind::Evenodd => "EVENODD",
        other => other.name(),
    }
}

/// One panel per workload, one series per code, x = p.
fn figure(
    evaluations: &[Evaluation],
    title: &str,
    y_label: &str,
    value: impl Fn(&Evaluation) -> f64,
) -> Figure {
    let mut workloads: Vec<Workload> = Vec::new();
    let mut kinds: Vec<CodeKind> = Vec::new();
    for e in evaluations {
        if !workloads.contains(&e.workload) {
            workloads.push(e.workload);
        }
        if !kinds.contains(&e.kind) {
            kinds.push(e.kind);
        }
    }
    let panels: Vec<Panel> = workloads
        .iter()
        .map(|&workload| Panel {
            title: format!("{} workload", workload.name()),
            x_label: "p".into(),
            y_label: y_label.into(),
            series: kinds
                .iter()
                .map(|&kind| Series {
                    name: display_name(kind).into(),
                    points: evaluations
                        .iter()
                        .filter(|e| e.workload == workload && e.kind == kind)
                        .map(|e| (e.p as f64, value(e)))
                        .collect(),
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Figure {
        title: title.into(),
        columns: panels.len().min(3),
        panels,
    }
}

/// File names: the default model keeps the plain names, the other says which it is.
fn output_stem(model: CostModel) -> &'static str {
    match model {
        CostModel::ReadModifyWrite => "dcode-loads",
        CostModel::ElementsTouched => "dcode-loads-elements",
    }
}

fn write_outputs(
    dir: &Path,
    stem: &str,
    model: CostModel,
    evaluations: &[Evaluation],
    rows: &[LoadRow],
) -> Result<()> {
    let figures = dir.join("figures");
    std::fs::create_dir_all(&figures)
        .with_context(|| format!("cannot create {}", figures.display()))?;
    let json_path = dir.join(format!("{stem}.json"));
    std::fs::write(&json_path, serde_json::to_string_pretty(rows)? + "\n")
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    let csv_path = dir.join(format!("{stem}.csv"));
    std::fs::write(&csv_path, csv(evaluations))
        .with_context(|| format!("cannot write {}", csv_path.display()))?;

    let lf_figure = figure(
        evaluations,
        &format!("Figure 4: load balancing factor LF = Lmax/Lmin, cost model {} (infinite LF drawn at {LF_INFINITY_PLOTTED_AS}, as in the paper)", model.name()),
        "LF",
        |e| e.loads.lf().unwrap_or(LF_INFINITY_PLOTTED_AS),
    );
    render(
        &lf_figure,
        &figures.join(format!("{stem}-fig4-lf.png")),
        &figures.join(format!("{stem}-fig4-lf.svg")),
    )?;
    // In millions: axis labels of eight-digit counts do not fit the panel's label area.
    let cost_title = format!(
        "Figure 5: I/O cost = total element accesses, cost model {}",
        model.name()
    );
    let cost_figure = figure(
        evaluations,
        &cost_title,
        "I/O cost (millions of element accesses)",
        |e| e.loads.cost() as f64 / 1e6,
    );
    render(
        &cost_figure,
        &figures.join(format!("{stem}-fig5-cost.png")),
        &figures.join(format!("{stem}-fig5-cost.svg")),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_evaluations() -> Vec<Evaluation> {
        let mut out = Vec::new();
        for kind in [CodeKind::Rdp, CodeKind::Dcode] {
            for p in [5, 7] {
                let code = Code::new(CodeSpec::array(kind, p)).unwrap();
                let g = code.geometry();
                let shape = WorkloadShape {
                    tuples: 50,
                    ..WorkloadShape::default()
                };
                let tuples = loads::generate(Workload::ReadOnly, g.data_count(), 1, shape).unwrap();
                out.push(Evaluation {
                    kind,
                    p,
                    disks: g.cols,
                    workload: Workload::ReadOnly,
                    loads: loads::evaluate(g, &tuples).unwrap(),
                });
            }
        }
        out
    }

    #[test]
    fn infinite_lf_is_inf_in_the_table_and_csv_and_null_in_json() {
        let evaluations = small_evaluations();
        let table = table(&evaluations);
        let rdp_line = table.lines().find(|l| l.contains("rdp")).unwrap();
        assert!(rdp_line.contains(" inf "), "{rdp_line}");
        let csv = csv(&evaluations);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with("rdp,5,read-only,6,0,"),
            "{csv}"
        );
        assert!(csv.lines().nth(1).unwrap().contains(",inf,"));
        let rows: Vec<LoadRow> = evaluations.iter().map(Evaluation::row).collect();
        let json: serde_json::Value = serde_json::to_value(&rows).unwrap();
        assert!(json[0]["lf"].is_null());
        assert!(json[2]["lf"].as_f64().unwrap() >= 1.0);
    }

    #[test]
    fn out_dir_gets_json_csv_and_both_figures() {
        let dir = tempfile::tempdir().unwrap();
        let evaluations = small_evaluations();
        let rows: Vec<LoadRow> = evaluations.iter().map(Evaluation::row).collect();
        write_outputs(
            dir.path(),
            "dcode-loads",
            CostModel::ReadModifyWrite,
            &evaluations,
            &rows,
        )
        .unwrap();
        for name in [
            "dcode-loads.json",
            "dcode-loads.csv",
            "figures/dcode-loads-fig4-lf.png",
            "figures/dcode-loads-fig5-cost.svg",
        ] {
            assert!(dir.path().join(name).is_file(), "{name} missing");
        }
        let json: Vec<serde_json::Value> = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("dcode-loads.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(json.len(), 4);
    }

    fn args(trace: Option<PathBuf>, out: Option<PathBuf>) -> LoadsArgs {
        LoadsArgs {
            codes: vec!["dcode".into(), "hdp".into()],
            primes: vec![5, 7],
            seed: DEFAULT_SEED,
            tuples: 20,
            trace,
            cost_model: CountArg::Rmw,
            json: true,
            out,
        }
    }

    #[test]
    fn a_bad_trace_fails_with_its_path_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ops.csv");
        std::fs::write(
            &path,
            "op,start,length,times\nread,0,4,5\nwrite,3,twenty,1\n",
        )
        .unwrap();
        let err = format!("{:#}", run(args(Some(path), None)).unwrap_err());
        assert!(
            err.contains("ops.csv") && err.contains("line 3") && err.contains("length 'twenty'"),
            "{err}"
        );
    }

    #[test]
    fn a_trace_run_writes_workload_trace_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ops.csv");
        std::fs::write(&path, "op,start,length,times\nread,0,4,5\nwrite,3,20,2\n").unwrap();
        run(args(Some(path), Some(dir.path().to_path_buf()))).unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("dcode-loads.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|r| r["workload"] == "trace"));
    }

    #[test]
    fn non_array_codes_are_refused_with_the_reason() {
        let err = parse_codes(&["dcode".into(), "rs".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("'rs' is not an array code"), "{err}");
        assert!(parse_codes(&["nope".into()]).is_err());
    }
}
