//! `exaraid codes ...`: the byte-level contract of the codes crate (list, show, encode,
//! verify) plus the load evaluation and the benchmark, which live in their own modules.
//!
//! Stable contract (other tools call these):
//! - `list`: one line per code with its parameters.
//! - `show --code C (--p P | --k K [--m M]) [--json]`: the grid and each parity's data.
//! - `encode --code C (--p P | --k K [--m M]) --element-size E`: stdin = the stripe's data
//!   elements in row-major order of their positions (parity positions skipped); stdout = the
//!   parity elements in row-major order of their positions.
//! - `verify (--all | --code C ...)`: the exhaustive decode check, one line per instance.

use std::io::{Read, Write};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use exaraid_codes::{codes, Cell, Code, CodeKind, CodeSpec, Geometry, Pos};
use serde::Serialize;

#[derive(Args)]
pub struct CodesArgs {
    #[command(subcommand)]
    command: CodesCommand,
}

#[derive(Subcommand)]
enum CodesCommand {
    /// List every code with its parameters, shape and fault tolerance.
    List(ListArgs),
    /// Print a code's stripe grid (data D / parity P) and the data each parity covers.
    Show(ShowArgs),
    /// Compute one stripe's parity: data elements on stdin, parity elements on stdout.
    Encode(EncodeArgs),
    /// Exhaustive decode check: every pattern of up to fault-tolerance erased columns.
    Verify(VerifyArgs),
    /// I/O-load evaluation of the D-Code paper (load-balancing factor and I/O cost).
    Loads(crate::codes_loads::LoadsArgs),
    /// Encode/decode throughput of every code beside ISA-L, measured in the same run.
    Bench(crate::codes_bench::BenchArgs),
}

pub fn run(args: CodesArgs) -> anyhow::Result<()> {
    match args.command {
        CodesCommand::List(a) => list(a),
        CodesCommand::Show(a) => show(a),
        CodesCommand::Encode(a) => encode(a),
        CodesCommand::Verify(a) => verify(a),
        CodesCommand::Loads(a) => crate::codes_loads::run(a),
        CodesCommand::Bench(a) => crate::codes_bench::run(a),
    }
}

/// Which code instance: an array code takes --p, a horizontal code --k (and --m for rs).
#[derive(Args, Clone, Debug)]
pub struct CodeParams {
    /// Code name: raid5, raid6, rs, evenodd, rdp, xcode, hcode, hdp, dcode.
    #[arg(long)]
    code: String,
    /// The prime of an array code (evenodd, rdp, xcode, hcode, hdp, dcode).
    #[arg(long)]
    p: Option<usize>,
    /// Data columns of a horizontal code (raid5, raid6, rs).
    #[arg(long)]
    k: Option<usize>,
    /// Parity columns: required for rs; raid5 is 1 and raid6 is 2 (if given, it must agree).
    #[arg(long)]
    m: Option<usize>,
}

impl CodeParams {
    pub fn build(&self) -> anyhow::Result<Code> {
        let kind = CodeKind::from_name(&self.code)?;
        let spec = CodeSpec {
            kind,
            k: self.k,
            m: self.m,
            p: self.p,
        };
        Ok(Code::new(spec)?)
    }
}

#[derive(Args)]
struct ListArgs {
    /// Print a JSON array instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct CodeInfo {
    code: &'static str,
    params: &'static str,
    rows: &'static str,
    columns: &'static str,
    fault_tolerance: &'static str,
    allowed: String,
    source: &'static str,
}

fn code_infos() -> Vec<CodeInfo> {
    let prime = |kind| format!("p prime, {} <= p <= {}", codes::min_p(kind), codes::MAX_P);
    let info = |code, params, rows, columns, fault_tolerance, allowed, source| CodeInfo {
        code,
        params,
        rows,
        columns,
        fault_tolerance,
        allowed,
        source,
    };
    vec![
        info(
            "raid5",
            "--k K",
            "1",
            "k+1",
            "1",
            format!("k >= 1, k+1 <= {}", codes::MAX_COLUMNS),
            "XOR parity (Patterson, Gibson, Katz 1988)",
        ),
        info(
            "raid6",
            "--k K",
            "1",
            "k+2",
            "2",
            format!("k >= 2, k+2 <= {}", codes::MAX_COLUMNS),
            "P + Q as Linux md, GF(2^8)/0x11d, g = 2",
        ),
        info(
            "rs",
            "--k K --m M",
            "1",
            "k+m",
            "m",
            format!("k >= 1, m >= 1, k+m <= {}", codes::MAX_COLUMNS),
            "Cauchy Reed-Solomon, ISA-L gf_gen_cauchy1_matrix",
        ),
        info(
            "evenodd",
            "--p P",
            "p-1",
            "p+2",
            "2",
            prime(CodeKind::Evenodd),
            "Blaum, Brady, Bruck, Menon 1995",
        ),
        info(
            "rdp",
            "--p P",
            "p-1",
            "p+1",
            "2",
            prime(CodeKind::Rdp),
            "Corbett et al., FAST 2004",
        ),
        info(
            "xcode",
            "--p P",
            "p",
            "p",
            "2",
            prime(CodeKind::Xcode),
            "Xu, Bruck 1999",
        ),
        info(
            "hcode",
            "--p P",
            "p-1",
            "p+1",
            "2",
            prime(CodeKind::Hcode),
            "Wu et al., IPDPS 2011",
        ),
        info(
            "hdp",
            "--p P",
            "p-1",
            "p-1",
            "2",
            prime(CodeKind::Hdp),
            "Wu et al., DSN 2011",
        ),
        info(
            "dcode",
            "--p P",
            "p",
            "p",
            "2",
            prime(CodeKind::Dcode),
            "Fu, Shu, D-Code (seed 002)",
        ),
    ]
}

fn list(args: ListArgs) -> anyhow::Result<()> {
    let infos = code_infos();
    assert_eq!(infos.len(), CodeKind::ALL.len(), "one line per code");
    if args.json {
        println!("{}", serde_json::to_string_pretty(&infos)?);
        return Ok(());
    }
    for i in &infos {
        println!(
            "{:<8} {:<12} rows {:<4} columns {:<4} tolerates {} column(s)  [{}]  {}",
            i.code, i.params, i.rows, i.columns, i.fault_tolerance, i.allowed, i.source
        );
    }
    Ok(())
}

#[derive(Args)]
struct ShowArgs {
    #[command(flatten)]
    params: CodeParams,
    /// Print the Geometry as JSON instead of the grid.
    #[arg(long)]
    json: bool,
}

fn term_label(g: &Geometry, data: usize, coef: u8) -> String {
    let pos = g.data_pos[data];
    if coef == 1 {
        format!("D({},{})", pos.row, pos.col)
    } else {
        format!("{coef:#04x}*D({},{})", pos.row, pos.col)
    }
}

fn show(args: ShowArgs) -> anyhow::Result<()> {
    let code = args.params.build()?;
    let g = code.geometry();
    if args.json {
        println!("{}", serde_json::to_string_pretty(g)?);
        return Ok(());
    }
    println!(
        "{}: {} rows x {} columns, {} data + {} parity elements, tolerates {} erased column(s)",
        code.spec(),
        g.rows,
        g.cols,
        g.data_count(),
        g.parity_count(),
        g.fault_tolerance
    );
    println!("grid (Dn = data element n in the code's data order, Pn = parity n, . = empty):");
    let width = 1 + g.data_count().max(g.parity_count()).to_string().len() + 1;
    print!("{:>8}", "");
    for c in 0..g.cols {
        print!("{:>width$}", format!("c{c}"));
    }
    println!();
    for r in 0..g.rows {
        print!("{:>8}", format!("row {r}"));
        for c in 0..g.cols {
            let label = match g.cell(Pos { row: r, col: c }) {
                Cell::Data(d) => format!("D{d}"),
                Cell::Parity(p) => format!("P{p}"),
                Cell::Empty => ".".to_string(),
            };
            print!("{label:>width$}");
        }
        println!();
    }
    println!(
        "parities (D(row,col) are positions; GF(2^8) coefficients other than 1 shown as 0xNN*):"
    );
    for (p, terms) in g.parity_terms.iter().enumerate() {
        let pos = g.parity_pos[p];
        let sum: Vec<String> = terms
            .iter()
            .map(|t| term_label(g, t.data, t.coef))
            .collect();
        println!("P{p} = P({},{}) = {}", pos.row, pos.col, sum.join(" ^ "));
    }
    Ok(())
}

#[derive(Args)]
struct EncodeArgs {
    #[command(flatten)]
    params: CodeParams,
    /// Bytes per element: a positive multiple of 32.
    #[arg(long)]
    element_size: usize,
}

fn encode(args: EncodeArgs) -> anyhow::Result<()> {
    let code = args.params.build()?;
    let e = args.element_size;
    let mut stripe = code.new_stripe(e)?;
    let g = code.geometry().clone();
    // Row-major *position* order; may differ from the code's data order.
    let positions = |want: fn(Cell) -> bool| -> Vec<Pos> {
        (0..g.rows)
            .flat_map(|row| (0..g.cols).map(move |col| Pos { row, col }))
            .filter(|&pos| want(g.cell(pos)))
            .collect()
    };
    let data = positions(|c| matches!(c, Cell::Data(_)));
    let parity = positions(|c| matches!(c, Cell::Parity(_)));
    let want = data.len() * e;
    let mut input = Vec::with_capacity(want);
    std::io::stdin()
        .lock()
        .take(want as u64 + 1)
        .read_to_end(&mut input)
        .context("reading the data elements from stdin")?;
    if input.len() != want {
        let got = if input.len() > want {
            format!("more than {want}")
        } else {
            input.len().to_string()
        };
        bail!(
            "stdin held {got} bytes, but one stripe of {} is {} data elements x {e} bytes = {want} bytes \
             (data elements in row-major order of their positions, parity positions skipped)",
            code.spec(),
            data.len()
        );
    }
    for (pos, bytes) in data.iter().zip(input.chunks_exact(e)) {
        stripe.element_mut(*pos).copy_from_slice(bytes);
    }
    code.encode(&mut stripe)?;
    let mut out = std::io::stdout().lock();
    for pos in parity {
        out.write_all(stripe.element(pos))
            .context("writing the parity elements to stdout")?;
    }
    out.flush()?;
    Ok(())
}

#[derive(Args)]
struct VerifyArgs {
    /// Check every code: array codes at p = 5, 7, 11, 13; raid5 k = 1..12; raid6 k = 2..12;
    /// rs every k = 1..12 with m = 1..4.
    #[arg(long, conflicts_with_all = ["code", "p", "k", "m"])]
    all: bool,
    /// Code name (instead of --all).
    #[arg(long)]
    code: Option<String>,
    /// The prime of an array code.
    #[arg(long)]
    p: Option<usize>,
    /// Data columns of a horizontal code.
    #[arg(long)]
    k: Option<usize>,
    /// Parity columns (rs).
    #[arg(long)]
    m: Option<usize>,
    /// Bytes per element of the random test stripe (a multiple of 32; more than one lane
    /// so kernels' block and tail paths both run).
    #[arg(long, default_value_t = 96)]
    element_size: usize,
    /// Seed of the random stripe contents.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON array of {code, params, patterns, ok, failed} instead of lines.
    #[arg(long)]
    json: bool,
}

/// The instances `verify --all` covers.
pub fn verify_all_specs() -> Vec<CodeSpec> {
    let mut specs = Vec::new();
    for kind in [
        CodeKind::Evenodd,
        CodeKind::Rdp,
        CodeKind::Xcode,
        CodeKind::Hcode,
        CodeKind::Hdp,
        CodeKind::Dcode,
    ] {
        for p in [5, 7, 11, 13] {
            specs.push(CodeSpec::array(kind, p));
        }
    }
    specs.extend((1..=12).map(CodeSpec::raid5));
    specs.extend((2..=12).map(CodeSpec::raid6));
    for k in 1..=12 {
        specs.extend((1..=4).map(|m| CodeSpec::rs(k, m)));
    }
    specs
}

#[derive(Serialize)]
struct VerifyLine {
    code: &'static str,
    params: String,
    columns: usize,
    patterns: usize,
    ok: bool,
    failed: Vec<Vec<usize>>,
}

fn params_of(spec: CodeSpec) -> String {
    match (spec.p, spec.k, spec.m) {
        (Some(p), _, _) => format!("p={p}"),
        (None, Some(k), Some(m)) => format!("k={k} m={m}"),
        _ => String::new(),
    }
}

fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let codes: Vec<Code> = if args.all {
        verify_all_specs()
            .into_iter()
            .map(Code::new)
            .collect::<Result<_, _>>()?
    } else if let Some(name) = &args.code {
        vec![CodeParams {
            code: name.clone(),
            p: args.p,
            k: args.k,
            m: args.m,
        }
        .build()?]
    } else {
        bail!("say what to verify: --all, or --code C with --p P (array codes) or --k K [--m M] (raid5, raid6, rs)");
    };
    let mut lines = Vec::with_capacity(codes.len());
    for code in &codes {
        let check = code.check_every_erasure(args.element_size, args.seed)?;
        let spec = code.spec();
        let line = VerifyLine {
            code: spec.kind.name(),
            params: params_of(spec),
            columns: code.geometry().cols,
            patterns: check.patterns,
            ok: check.ok(),
            failed: check.failed,
        };
        if !args.json {
            let verdict = if line.ok {
                "ok".to_string()
            } else {
                format!(
                    "FAILED ({} patterns, first {:?})",
                    line.failed.len(),
                    line.failed[0]
                )
            };
            println!(
                "{:<8} {:<10} columns {:>3}  patterns {:>5}  {verdict}",
                line.code, line.params, line.columns, line.patterns
            );
        }
        lines.push(line);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&lines)?);
    }
    let failed = lines.iter().filter(|l| !l.ok).count();
    let patterns: usize = lines.iter().map(|l| l.patterns).sum();
    if failed > 0 {
        bail!(
            "{failed} of {} code instances FAILED the exhaustive decode check",
            lines.len()
        );
    }
    eprintln_lossy!(
        "verified {} code instances, {patterns} erasure patterns, element size {} bytes: all ok",
        lines.len(),
        args.element_size
    );
    Ok(())
}
