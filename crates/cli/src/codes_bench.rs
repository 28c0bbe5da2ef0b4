//! `exaraid codes bench`: encode and decode throughput of every code, beside ISA-L called
//! directly on the same data in the same run, and single-core memcpy.
//!
//! Method (the same for every number, so that ratios compare like with like):
//! - one thread; throughput = DATA bytes of the stripe / time (GB/s, 10^9 bytes/s);
//! - each measurement repeats the call until a fixed byte budget is processed, after one
//!   warm-up pass; the best of several passes is kept (the least disturbed by other work);
//! - exaraid goes through the public API (`Code::encode`, `Code::decode` on a `StripeBuf`);
//!   ISA-L through `exaraid_codes::engine::isal` (thin FFI) on a copy of the same stripe in the
//!   same layout (columns back to back), its base 64-byte aligned as xor_gen/pq_gen require;
//! - each exaraid measurement's passes alternate with its yardstick's (ISA-L, or memcpy of the
//!   same byte count for the array codes), so both see the same background load;
//! - decode erases the worst case, `fault_tolerance` columns, all of them data columns
//!   (columns 0..f); for ISA-L the decode matrix is inverted and its tables expanded once,
//!   outside the timed loop, which matches exaraid caching its decode plan per erasure pattern;
//! - results are checked once outside the timing: exaraid's parity equals ISA-L's for the
//!   horizontal codes, and both decodes give back the original bytes.

use anyhow::{bail, Context};
use clap::Args;
use exaraid_codes::engine::{self, isal};
use exaraid_codes::{gf256, Code, CodeKind, CodeSpec, StripeBuf};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchArgs {
    /// Print the results as a JSON array on stdout (the table then goes to stderr).
    #[arg(long)]
    json: bool,
    /// Small byte budget and fewer repetitions: a few seconds, for smoke runs (noisier).
    #[arg(long)]
    quick: bool,
    /// Measure only these codes (comma-separated names, e.g. `raid6,rs`); default: all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Skip the kernel table (engines side by side on raw buffers).
    #[arg(long)]
    no_kernels: bool,
}

/// Element sizes measured: large elements (streaming, memory-bound) and 4 KiB (cache-resident,
/// per-call overheads show).
const ELEMENT_SIZES: [usize; 2] = [1 << 20, 4 << 10];
/// Primes of the array codes.
const ARRAY_PRIMES: [usize; 2] = [5, 7];
/// The array codes, in the order of the issue.
const ARRAY_CODES: [CodeKind; 6] = [
    CodeKind::Evenodd,
    CodeKind::Rdp,
    CodeKind::Xcode,
    CodeKind::Hcode,
    CodeKind::Hdp,
    CodeKind::Dcode,
];

/// How much work one measurement does.
#[derive(Clone, Copy)]
struct Budget {
    /// Data bytes processed per timed pass.
    bytes_per_pass: usize,
    /// Timed passes (best kept), after one warm-up pass.
    passes: usize,
}

/// Short passes, many of them: on a shared machine a short pass is more likely to run
/// undisturbed, and the best of many keeps that one.
const FULL: Budget = Budget {
    bytes_per_pass: 32 << 20,
    passes: 25,
};
const QUICK: Budget = Budget {
    bytes_per_pass: 8 << 20,
    passes: 3,
};

/// One line of the JSON output. Exactly the keys of the contract.
#[derive(Serialize, Clone)]
struct Row {
    code: String,
    k: usize,
    m: usize,
    p: Option<usize>,
    element_bytes: usize,
    op: &'static str,
    gb_s: f64,
    isal_gb_s: Option<f64>,
    ratio: Option<f64>,
}

/// Table-only extras (not in the JSON): the memcpy yardstick of the array codes.
struct Extra {
    memcpy_gb_s: Option<f64>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let budget = if args.quick { QUICK } else { FULL };
    let mut rng = ChaCha8Rng::seed_from_u64(0xbe7c_0001);
    let mut rows: Vec<(Row, Extra)> = Vec::new();

    let horizontal: Vec<CodeSpec> = vec![
        CodeSpec::raid5(4),
        CodeSpec::raid5(8),
        CodeSpec::raid6(4),
        CodeSpec::raid6(8),
        CodeSpec::rs(4, 2),
        CodeSpec::rs(8, 2),
        CodeSpec::rs(10, 4),
    ];
    let mut specs = horizontal.clone();
    for kind in ARRAY_CODES {
        for p in ARRAY_PRIMES {
            specs.push(CodeSpec::array(kind, p));
        }
    }

    for name in &args.only {
        CodeKind::from_name(name)?;
    }
    specs.retain(|s| args.only.is_empty() || args.only.iter().any(|n| n == s.kind.name()));
    for &element_bytes in &ELEMENT_SIZES {
        for spec in &specs {
            eprintln_lossy!("bench: {spec} element {} ...", human_bytes(element_bytes));
            let case = Case::new(*spec, element_bytes, &mut rng)
                .with_context(|| format!("setting up {spec} with {element_bytes}-byte elements"))?;
            rows.extend(case.measure(budget)?);
        }
    }

    let mut table = render_table(&rows, budget, args.quick);
    if !args.no_kernels {
        table.push_str(&kernel_table(budget, &mut rng));
    }
    if args.json {
        eprint_lossy!("{table}");
        let json: Vec<&Row> = rows.iter().map(|(r, _)| r).collect();
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{table}");
    }
    Ok(())
}

/// One code at one element size: the exaraid stripe and, for horizontal codes, the ISA-L
/// buffers holding the same data.
struct Case {
    spec: CodeSpec,
    code: Code,
    element_bytes: usize,
    stripe: StripeBuf,
    /// The encoded stripe, for checking decodes.
    reference: StripeBuf,
    erased: Vec<usize>,
}

impl Case {
    fn new(spec: CodeSpec, element_bytes: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Case> {
        let code = Code::new(spec)?;
        code.check_element_bytes(element_bytes)?;
        let g = code.geometry();
        let mut stripe = StripeBuf::zeroed(g.rows, g.cols, element_bytes);
        for &pos in &g.data_pos {
            rng.fill_bytes(stripe.element_mut(pos));
        }
        code.encode(&mut stripe)?;
        let reference = stripe.clone();
        let f = g.fault_tolerance;
        // Worst case: as many erased columns as the code tolerates, all holding data.
        let data_cols: Vec<usize> = {
            let mut cols: Vec<usize> = g.data_pos.iter().map(|p| p.col).collect();
            cols.sort_unstable();
            cols.dedup();
            cols
        };
        if data_cols.len() < f {
            bail!(
                "{spec} has fewer data columns ({}) than its fault tolerance ({f})",
                data_cols.len()
            );
        }
        let erased = data_cols[..f].to_vec();
        Ok(Case {
            spec,
            code,
            element_bytes,
            stripe,
            reference,
            erased,
        })
    }

    fn data_bytes(&self) -> usize {
        self.code.geometry().data_count() * self.element_bytes
    }

    /// (k, m) for the JSON: data and parity columns of horizontal codes; for array codes the
    /// column count minus the fault tolerance, and the fault tolerance (their parity is spread
    /// over the columns, so these are "columns' worth" of data and parity).
    fn k_m(&self) -> (usize, usize) {
        let g = self.code.geometry();
        match (self.spec.k, self.spec.m) {
            (Some(k), Some(m)) => (k, m),
            _ => (g.cols - g.fault_tolerance, g.fault_tolerance),
        }
    }

    fn measure(mut self, budget: Budget) -> anyhow::Result<Vec<(Row, Extra)>> {
        let data_bytes = self.data_bytes();
        let (k, m) = self.k_m();
        let code = self.code.clone();
        let erased = self.erased.clone();
        let mut stripe = self.stripe.clone();
        let mut peer = if self.spec.kind.is_array() {
            None
        } else {
            Some(IsalPeer::new(&self)?)
        };

        // Each exaraid measurement is interleaved pass by pass with its yardstick (ISA-L on the
        // same data, or memcpy of the same number of bytes), so both see the same background
        // load and the ratio stays meaningful on a busy machine.
        let mut copy_src = vec![0x5au8; data_bytes];
        let mut copy_dst = vec![0u8; data_bytes];
        let mut memcpy = || {
            copy_dst.copy_from_slice(std::hint::black_box(&copy_src));
            std::hint::black_box(&mut copy_dst);
        };
        let (encode_gb_s, encode_peer_gb_s) = match &mut peer {
            Some(peer) => best_gb_s_pair(
                budget,
                data_bytes,
                || code.encode(&mut stripe).expect("encode of a valid stripe"),
                || peer.encode(),
            ),
            None => best_gb_s_pair(
                budget,
                data_bytes,
                || code.encode(&mut stripe).expect("encode of a valid stripe"),
                &mut memcpy,
            ),
        };
        anyhow::ensure!(
            stripe == self.reference,
            "{}: repeated encode changed the stripe",
            self.spec
        );
        let (decode_gb_s, decode_peer_gb_s) = match &mut peer {
            Some(peer) => best_gb_s_pair(
                budget,
                data_bytes,
                || {
                    code.decode(&mut self.stripe, &erased)
                        .expect("decode within the fault tolerance")
                },
                || peer.decode(),
            ),
            None => best_gb_s_pair(
                budget,
                data_bytes,
                || {
                    code.decode(&mut self.stripe, &erased)
                        .expect("decode within the fault tolerance")
                },
                &mut memcpy,
            ),
        };
        copy_src[0] ^= 1; // keep the copy buffers alive and used

        // The timed decodes ran on a stripe whose erased columns still held the right bytes;
        // check that decode really rebuilds them from the others.
        for &col in &self.erased {
            self.stripe.column_mut(col).fill(0xa5);
        }
        self.code.decode(&mut self.stripe, &self.erased)?;
        anyhow::ensure!(
            self.stripe == self.reference,
            "{}: decode of {:?} did not restore the stripe",
            self.spec,
            self.erased
        );
        if let Some(peer) = &mut peer {
            peer.check(&self)?;
        }

        let name = self.spec.kind.name().to_string();
        let p = self.spec.p;
        let is_array = self.spec.kind.is_array();
        let row = |op: &'static str, gb_s: f64, peer_gb_s: f64| {
            let isal_gb_s = (!is_array).then_some(peer_gb_s);
            (
                Row {
                    code: name.clone(),
                    k,
                    m,
                    p,
                    element_bytes: self.element_bytes,
                    op,
                    gb_s,
                    isal_gb_s,
                    ratio: isal_gb_s.map(|i| gb_s / i),
                },
                Extra {
                    memcpy_gb_s: is_array.then_some(peer_gb_s),
                },
            )
        };
        Ok(vec![
            row("encode", encode_gb_s, encode_peer_gb_s),
            row("decode", decode_gb_s, decode_peer_gb_s),
        ])
    }
}

/// ISA-L called directly on a copy of the stripe in exaraid's own layout (columns back to
/// back, `element_bytes` apart, so the cache-set behaviour is the same), its base 64-byte
/// aligned as ISA-L's raid functions require.
struct IsalPeer {
    kind: CodeKind,
    k: usize,
    m: usize,
    /// Erased (and rebuilt) data columns: 0..f.
    f: usize,
    e: usize,
    buf: Aligned,
    encode_tables: Option<isal::Tables>,
    decode_tables: Option<isal::Tables>,
}

impl IsalPeer {
    fn new(case: &Case) -> anyhow::Result<IsalPeer> {
        let g = case.code.geometry();
        let e = case.element_bytes;
        let k = g.data_count();
        let m = g.parity_count();
        let f = g.fault_tolerance;
        anyhow::ensure!(
            g.rows == 1 && g.cols == k + m,
            "{}: a horizontal code has one row of k + m columns",
            case.spec
        );
        // The code's full (k+m) x k generator matrix as ISA-L sees it: identity on top.
        let generator: Vec<u8> = match case.spec.kind {
            CodeKind::Raid5 => identity_then(k, &vec![1u8; k]),
            CodeKind::Raid6 => identity_then(k, &[vec![1u8; k], gf256::raid6_q_coefs(k)].concat()),
            CodeKind::Rs => isal::gen_cauchy1_matrix(k + m, k),
            other => bail!("{} has no ISA-L peer", other.name()),
        };
        // Data columns 0..f are lost; the survivors are data f..k and parities 0..f, which
        // sit back to back in the buffer (columns f..k+f).
        let survivors_rows: Vec<usize> = (f..k + f).collect();
        let (encode_tables, decode_tables) = match case.spec.kind {
            // xor_gen / pq_gen need no tables; raid6 decode goes through the matrix.
            CodeKind::Raid5 => (None, None),
            kind => {
                let square: Vec<u8> = survivors_rows
                    .iter()
                    .flat_map(|&r| generator[r * k..(r + 1) * k].to_vec())
                    .collect();
                let inverse =
                    isal::invert_matrix(&square, k).context("the survivors' matrix is singular")?;
                // Rows of the inverse that give back the lost data columns 0..f; built once, as
                // exaraid caches its decode plan per erasure pattern.
                let decode = Some(isal::Tables::new(&inverse[..f * k], k, f));
                let encode =
                    (kind == CodeKind::Rs).then(|| isal::Tables::new(&generator[k * k..], k, m));
                (encode, decode)
            }
        };
        let mut buf = Aligned::zeroed((k + m) * e);
        buf.as_mut_slice()[..k * e].copy_from_slice(&case.reference.bytes[..k * e]);
        let mut peer = IsalPeer {
            kind: case.spec.kind,
            k,
            m,
            f,
            e,
            buf,
            encode_tables,
            decode_tables,
        };
        // Fail here, with a message, if ISA-L refuses the buffers.
        peer.try_encode()
            .map_err(|r| anyhow::anyhow!("ISA-L refused the buffers: {r:?}"))?;
        Ok(peer)
    }

    fn try_encode(&mut self) -> Result<(), isal::Rejected> {
        let e = self.e;
        let (data, parity) = self.buf.as_mut_slice().split_at_mut(self.k * e);
        let srcs: Vec<&[u8]> = data.chunks_exact(e).collect();
        match self.kind {
            CodeKind::Raid5 => isal::xor_gen(&srcs, parity),
            CodeKind::Raid6 => {
                let (p, q) = parity.split_at_mut(e);
                isal::pq_gen(&srcs, p, q)
            }
            _ => {
                let mut outs: Vec<&mut [u8]> = parity.chunks_exact_mut(e).collect();
                isal::encode_data(
                    self.encode_tables.as_ref().expect("rs has encode tables"),
                    &srcs,
                    &mut outs,
                );
                Ok(())
            }
        }
    }

    fn encode(&mut self) {
        self.try_encode()
            .expect("ISA-L accepted these buffers at setup");
    }

    fn decode(&mut self) {
        let e = self.e;
        let (lost, rest) = self.buf.as_mut_slice().split_at_mut(self.f * e);
        let survivors: Vec<&[u8]> = rest[..self.k * e].chunks_exact(e).collect();
        match &self.decode_tables {
            None => isal::xor_gen(&survivors, lost).expect("xor_gen on aligned buffers"),
            Some(tables) => {
                let mut outs: Vec<&mut [u8]> = lost.chunks_exact_mut(e).collect();
                isal::encode_data(tables, &survivors, &mut outs)
            }
        }
    }

    /// ISA-L's parity equals exaraid's, and ISA-L's decode gives back the lost data.
    fn check(&mut self, case: &Case) -> anyhow::Result<()> {
        let want = &case.reference.bytes[..(self.k + self.m) * self.e];
        anyhow::ensure!(
            self.buf.as_slice() == want,
            "{}: exaraid's parity differs from ISA-L's on the same data",
            case.spec
        );
        self.buf.as_mut_slice()[..self.f * self.e].fill(0xa5);
        self.decode();
        anyhow::ensure!(
            self.buf.as_slice() == want,
            "{}: ISA-L's decode did not restore the lost columns",
            case.spec
        );
        Ok(())
    }
}

fn identity_then(k: usize, parity_rows: &[u8]) -> Vec<u8> {
    let mut a = vec![0u8; k * k];
    for i in 0..k {
        a[i * k + i] = 1;
    }
    a.extend_from_slice(parity_rows);
    a
}

/// Best throughput of two operations over `budget.passes` timed passes each (after one
/// warm-up pass each), their passes interleaved a, b, a, b; each pass calls the operation
/// until `budget.bytes_per_pass` data bytes are done (at least once).
fn best_gb_s_pair(
    budget: Budget,
    bytes_per_call: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (f64, f64) {
    let r = best_gb_s_each(budget, bytes_per_call, 2, |which| {
        if which == 0 {
            a()
        } else {
            b()
        }
    });
    (r[0], r[1])
}

/// Best throughput of `ops` operations (`op(i)` runs operation i once), passes interleaved.
fn best_gb_s_each(
    budget: Budget,
    bytes_per_call: usize,
    ops: usize,
    mut op: impl FnMut(usize),
) -> Vec<f64> {
    assert!(bytes_per_call > 0, "a call must process some bytes");
    let calls = budget.bytes_per_pass.div_ceil(bytes_per_call).max(1);
    let mut best = vec![Duration::MAX; ops];
    for pass in 0..=budget.passes {
        for (which, best) in best.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..calls {
                op(which);
            }
            let took = start.elapsed();
            if pass > 0 {
                *best = (*best).min(took);
            }
        }
    }
    best.into_iter()
        .map(|d| (calls * bytes_per_call) as f64 / d.as_secs_f64().max(1e-9) / 1e9)
        .collect()
}

/// A 64-byte aligned buffer (ISA-L's raid functions want 32-byte aligned pointers).
struct Aligned {
    backing: Vec<u8>,
    offset: usize,
    len: usize,
}

impl Aligned {
    const ALIGN: usize = 64;
    fn zeroed(len: usize) -> Aligned {
        let backing = vec![0u8; len + Self::ALIGN];
        let offset = (Self::ALIGN - backing.as_ptr() as usize % Self::ALIGN) % Self::ALIGN;
        Aligned {
            backing,
            offset,
            len,
        }
    }
    fn as_slice(&self) -> &[u8] {
        &self.backing[self.offset..self.offset + self.len]
    }
    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.backing[self.offset..self.offset + self.len]
    }
}

fn human_bytes(b: usize) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 && b.is_multiple_of(1 << 10) {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}

/// The goal of the issue for one row, if it has one: ratio >= 1.0 against ISA-L for the
/// horizontal codes; at least half of memcpy for the array codes.
fn goal(row: &Row, extra: &Extra) -> Option<bool> {
    match (row.ratio, extra.memcpy_gb_s) {
        (Some(ratio), _) => Some(ratio >= 1.0),
        (None, Some(memcpy)) => Some(row.gb_s >= 0.5 * memcpy),
        _ => None,
    }
}

fn render_table(rows: &[(Row, Extra)], budget: Budget, quick: bool) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "exaraid codes bench: engine {}, one thread, GB/s = 10^9 data bytes/s, best of {} passes of {} ({})",
        engine::engine().name(),
        budget.passes,
        human_bytes(budget.bytes_per_pass),
        if quick { "--quick: noisy" } else { "full" }
    );
    let _ = writeln!(
        s,
        "{:<8} {:>3} {:>2} {:>3} {:>8} {:<6} {:>9} {:>9} {:>6} {:>9} {:>7} {:>5}",
        "code",
        "k",
        "m",
        "p",
        "element",
        "op",
        "exaraid",
        "isa-l",
        "ratio",
        "memcpy",
        "of_cpy",
        "goal"
    );
    let mut met = 0;
    let mut with_goal = 0;
    for (r, x) in rows {
        let opt = |v: Option<f64>, w: usize, prec: usize| {
            v.map_or(format!("{:>w$}", "-"), |v| format!("{v:>w$.prec$}"))
        };
        let fraction = x.memcpy_gb_s.map(|c| r.gb_s / c);
        let g = goal(r, x);
        if let Some(ok) = g {
            with_goal += 1;
            met += usize::from(ok);
        }
        let _ = writeln!(
            s,
            "{:<8} {:>3} {:>2} {:>3} {:>8} {:<6} {:>9.2} {} {} {} {} {:>5}",
            r.code,
            r.k,
            r.m,
            r.p.map_or("-".to_string(), |p| p.to_string()),
            human_bytes(r.element_bytes),
            r.op,
            r.gb_s,
            opt(r.isal_gb_s, 9, 2),
            opt(r.ratio, 6, 3),
            opt(x.memcpy_gb_s, 9, 2),
            opt(fraction, 7, 3),
            match g {
                Some(true) => "met",
                Some(false) => "NOT",
                None => "-",
            }
        );
    }
    let _ = writeln!(
        s,
        "goals met: {met} of {with_goal} (ratio >= 1.0 vs ISA-L for raid5/raid6/rs; >= 0.5 of memcpy for array codes)"
    );
    s
}

/// The engines' kernels side by side on 64-byte aligned and on 16-byte-offset buffers (the
/// alignment malloc gives a stripe buffer): the measurement behind the choice of ISA-L as
/// the default engine. GB/s of input bytes.
fn kernel_table(budget: Budget, rng: &mut ChaCha8Rng) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "\nkernels (GB/s of input bytes, one thread, passes interleaved; layout+N: N = bytes past a 64-byte boundary):");
    let engines = engine::engines();
    let _ = write!(s, "{:<26} {:>8} {:>9}", "kernel", "element", "layout");
    for e in &engines {
        let _ = write!(s, " {:>9}", e.name());
    }
    let _ = writeln!(s);
    type Shape = (&'static str, usize, usize, Option<Vec<u8>>);
    let shapes: Vec<Shape> = vec![
        ("xor_many 4 sources", 4, 1, None),
        ("xor_many 8 sources", 8, 1, None),
        (
            "P+Q of 8 (raid6 matrix)",
            8,
            2,
            Some([vec![1u8; 8], gf256::raid6_q_coefs(8)].concat()),
        ),
        (
            "rs 10+4 cauchy matrix",
            10,
            4,
            Some(gf256::cauchy1_matrix(10, 4)),
        ),
    ];
    for (label, k, rows, coefs) in &shapes {
        for &element_bytes in &ELEMENT_SIZES {
            for layout in ["stripe+0", "stripe+16", "padded+0"] {
                // "stripe+N": the vectors back to back, exactly `element_bytes` apart, as in a
                // StripeBuf, starting N bytes past a 64-byte boundary (malloc gives +16 for
                // large buffers). "padded+0": 64-byte aligned and `element_bytes + 64` apart, so
                // vector j starts j cache lines later in the cache-set cycle (power-of-two
                // strides put every vector in the same sets).
                let n = k + rows;
                let (stride, offset) = match layout {
                    "stripe+0" => (element_bytes, 0),
                    "stripe+16" => (element_bytes, 16),
                    _ => (element_bytes + 64, 0),
                };
                let mut one = vec![0u8; n * stride + 128];
                rng.fill_bytes(&mut one);
                let base = (64 - one.as_ptr() as usize % 64) % 64 + offset;
                let _ = write!(
                    s,
                    "{:<26} {:>8} {:>9}",
                    label,
                    human_bytes(element_bytes),
                    layout
                );
                let area = &mut one[base..base + n * stride];
                let (a, b) = area.split_at_mut(k * stride);
                let srcs: Vec<&[u8]> = a
                    .chunks_exact(stride)
                    .map(|c| &c[..element_bytes])
                    .collect();
                let mut dsts: Vec<&mut [u8]> = b
                    .chunks_exact_mut(stride)
                    .map(|c| &mut c[..element_bytes])
                    .collect();
                // Every engine on the same buffers, passes interleaved.
                let results =
                    best_gb_s_each(budget, k * element_bytes, engines.len(), |i| match coefs {
                        None => engines[i].xor_many(&srcs, dsts[0]),
                        Some(c) => engines[i].gf_matrix_mul(c, &srcs, &mut dsts),
                    });
                for gb_s in results {
                    let _ = write!(s, " {gb_s:>9.2}");
                }
                let _ = writeln!(s);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One call per pass: these tests check what the bench computes and compares, never speed.
    const TINY: Budget = Budget {
        bytes_per_pass: 1,
        passes: 1,
    };

    #[test]
    fn json_rows_have_exactly_the_contract_keys() {
        let row = Row {
            code: "dcode".into(),
            k: 5,
            m: 2,
            p: Some(7),
            element_bytes: 4096,
            op: "decode",
            gb_s: 1.5,
            isal_gb_s: None,
            ratio: None,
        };
        let v = serde_json::to_value(&row).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "code",
                "element_bytes",
                "gb_s",
                "isal_gb_s",
                "k",
                "m",
                "op",
                "p",
                "ratio"
            ]
        );
        assert!(
            v["isal_gb_s"].is_null() && v["ratio"].is_null(),
            "absent peers are null, not missing"
        );
    }

    #[test]
    fn horizontal_codes_match_isal_parity_and_both_decodes_restore_the_data() {
        // measure() fails if exaraid's parity differs from ISA-L's on the same data, or if
        // either decode does not give back the erased columns.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for spec in [CodeSpec::raid5(4), CodeSpec::raid6(8), CodeSpec::rs(10, 4)] {
            let case = Case::new(spec, 4096 + 512, &mut rng).unwrap();
            let rows = case.measure(TINY).unwrap();
            assert_eq!(rows.len(), 2);
            assert!(rows.iter().all(|(r, x)| r.isal_gb_s.is_some()
                && r.ratio.is_some()
                && x.memcpy_gb_s.is_none()));
        }
    }

    #[test]
    fn array_codes_report_memcpy_and_no_isal_peer() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let case = Case::new(CodeSpec::array(CodeKind::Dcode, 5), 1024, &mut rng).unwrap();
        let rows = case.measure(TINY).unwrap();
        assert!(rows.iter().all(|(r, x)| r.p == Some(5)
            && r.isal_gb_s.is_none()
            && r.ratio.is_none()
            && x.memcpy_gb_s.is_some()));
        assert_eq!(
            (rows[0].0.k, rows[0].0.m),
            (3, 2),
            "D-Code p=5: 5 columns, tolerance 2"
        );
    }
}
