//! A device model measured on a real device: a CSV table of latency percentiles per
//! (operation, request size, access pattern, queue depth), e.g. from fio runs.
//!
//! Format (header required, one row per measured combination):
//!
//! ```text
//! op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us
//! write,131072,rand,32,9800,16500,26000,31000
//! ```
//!
//! - `op`: `read` or `write`; `pattern`: `seq` or `rand`;
//! - `size_bytes` > 0, `queue_depth` >= 1 (fio `--bs`, `--iodepth`);
//! - `p10_us <= p50_us <= p90_us <= p99_us`, completion latency in microseconds (fio's
//!   `clat` percentiles).
//!
//! Sampling: the row with the same op and pattern, the nearest size (in log2) and the
//! nearest queue depth is chosen; a latency is drawn by inverse-CDF interpolation between
//! the percentiles. A latency measured at queue depth q on a saturated device is q service
//! times (Little's law), so the service time is latency / q.

use super::device::IoKind;
use anyhow::{bail, Context, Result};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredRow {
    pub op: IoKind,
    pub size_bytes: u64,
    pub sequential: bool,
    pub queue_depth: u32,
    /// p10, p50, p90, p99 in seconds.
    pub percentiles_s: [f64; 4],
}

#[derive(Clone, Debug, Default)]
pub struct MeasuredTable {
    pub rows: Vec<MeasuredRow>,
}

const HEADER: [&str; 8] = [
    "op",
    "size_bytes",
    "pattern",
    "queue_depth",
    "p10_us",
    "p50_us",
    "p90_us",
    "p99_us",
];
/// Limits: a calibration table is small; a huge file is a mistake.
const ROWS_MAX: usize = 100_000;

impl MeasuredTable {
    pub fn load(path: &Path) -> Result<MeasuredTable> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading calibration table {}", path.display()))?;
        MeasuredTable::parse(&text)
            .with_context(|| format!("in calibration table {}", path.display()))
    }

    /// Parse the CSV text; every bad row is an error naming its line.
    pub fn parse(text: &str) -> Result<MeasuredTable> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let header = reader.headers().context("reading the header line")?.clone();
        let got: Vec<&str> = header.iter().collect();
        if got != HEADER {
            bail!(
                "line 1: header must be `{}`, found `{}`",
                HEADER.join(","),
                got.join(",")
            );
        }
        let mut rows = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let line = i + 2;
            let record = record.with_context(|| format!("line {line}: not a CSV row"))?;
            if record.len() != HEADER.len() {
                bail!(
                    "line {line}: expected {} fields, found {}",
                    HEADER.len(),
                    record.len()
                );
            }
            let op = match &record[0] {
                "read" => IoKind::Read,
                "write" => IoKind::Write,
                other => bail!("line {line}: op must be `read` or `write`, found `{other}`"),
            };
            let size_bytes: u64 = record[1].parse().ok().filter(|s| *s > 0).with_context(|| {
                format!(
                    "line {line}: size_bytes must be a positive integer, found `{}`",
                    &record[1]
                )
            })?;
            let sequential = match &record[2] {
                "seq" => true,
                "rand" => false,
                other => bail!("line {line}: pattern must be `seq` or `rand`, found `{other}`"),
            };
            let queue_depth: u32 =
                record[3]
                    .parse()
                    .ok()
                    .filter(|q| *q >= 1)
                    .with_context(|| {
                        format!(
                            "line {line}: queue_depth must be an integer >= 1, found `{}`",
                            &record[3]
                        )
                    })?;
            let mut percentiles_s = [0.0; 4];
            for (k, p) in percentiles_s.iter_mut().enumerate() {
                let field = &record[4 + k];
                let us: f64 = field.parse().ok().filter(|v: &f64| v.is_finite() && *v > 0.0).with_context(|| {
                    format!("line {line}: {} must be a positive number of microseconds, found `{field}`", HEADER[4 + k])
                })?;
                *p = us * 1e-6;
            }
            if percentiles_s.windows(2).any(|w| w[0] > w[1]) {
                bail!("line {line}: percentiles must not decrease (p10 <= p50 <= p90 <= p99)");
            }
            rows.push(MeasuredRow {
                op,
                size_bytes,
                sequential,
                queue_depth,
                percentiles_s,
            });
            if rows.len() > ROWS_MAX {
                bail!("more than {ROWS_MAX} rows: is this really a calibration table?");
            }
        }
        if rows.is_empty() {
            bail!("no rows after the header: the table needs at least one measurement");
        }
        Ok(MeasuredTable { rows })
    }

    fn nearest(&self, op: IoKind, size_bytes: u64, sequential: bool, depth: usize) -> &MeasuredRow {
        let score = |r: &MeasuredRow| {
            let mismatch =
                (r.op != op) as u32 as f64 * 1e6 + (r.sequential != sequential) as u32 as f64 * 1e3;
            let size = ((r.size_bytes as f64).log2() - (size_bytes.max(1) as f64).log2()).abs();
            let qd = ((r.queue_depth as f64).log2() - (depth.max(1) as f64).log2()).abs() * 0.01;
            mismatch + size + qd
        };
        self.rows
            .iter()
            .min_by(|a, b| score(a).partial_cmp(&score(b)).expect("finite scores"))
            .expect("a parsed table has rows")
    }

    /// Draw a service time in seconds.
    pub fn sample_s(
        &self,
        op: IoKind,
        size_bytes: u64,
        sequential: bool,
        depth: usize,
        rng: &mut ChaCha8Rng,
    ) -> f64 {
        let row = self.nearest(op, size_bytes, sequential, depth);
        let u: f64 = rng.gen();
        let [p10, p50, p90, p99] = row.percentiles_s;
        let latency = if u < 0.1 {
            p10
        } else if u < 0.5 {
            p10 + (p50 - p10) * (u - 0.1) / 0.4
        } else if u < 0.9 {
            p50 + (p90 - p50) * (u - 0.5) / 0.4
        } else if u < 0.99 {
            p90 + (p99 - p90) * (u - 0.9) / 0.09
        } else {
            p99
        };
        // Scale the row's size to the request's size linearly in bytes (transfer part).
        let size_scale = size_bytes.max(1) as f64 / row.size_bytes as f64;
        let scaled = if size_scale > 1.0 {
            latency * size_scale
        } else {
            latency
        };
        scaled / row.queue_depth as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const GOOD: &str = "op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\n\
write,131072,rand,1,9000,12000,16000,20000\n\
write,131072,seq,1,900,1000,1100,1500\n\
read,4096,rand,32,60000,120000,200000,260000\n";

    #[test]
    fn loads_a_table_and_samples_within_its_percentiles() {
        let table = MeasuredTable::parse(GOOD).unwrap();
        assert_eq!(table.rows.len(), 3);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..1000 {
            let s = table.sample_s(IoKind::Write, 131072, false, 1, &mut rng);
            assert!((9000e-6..=20000e-6).contains(&s), "{s}");
            let q = table.sample_s(IoKind::Read, 4096, false, 32, &mut rng);
            assert!((60000e-6 / 32.0..=260000e-6 / 32.0).contains(&q), "{q}");
        }
        let seq = table.sample_s(IoKind::Write, 131072, true, 1, &mut rng);
        assert!(seq < 2e-3);
    }

    #[test]
    fn bad_rows_are_rejected_with_their_line_number() {
        let cases = [
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nerase,4096,rand,1,1,2,3,4\n", "line 2: op"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nread,4096,rand,1,1,2,3,4\nread,-5,rand,1,1,2,3,4\n", "line 3: size_bytes"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nread,4096,zigzag,1,1,2,3,4\n", "line 2: pattern"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nread,4096,seq,0,1,2,3,4\n", "line 2: queue_depth"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nread,4096,seq,1,5,2,3,4\n", "line 2: percentiles"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\nread,4096,seq,1,1,2,x,4\n", "line 2: p90_us"),
            ("size,op\n4096,read\n", "line 1: header"),
            ("op,size_bytes,pattern,queue_depth,p10_us,p50_us,p90_us,p99_us\n", "no rows"),
        ];
        for (text, expected) in cases {
            let err = format!("{:#}", MeasuredTable::parse(text).unwrap_err());
            assert!(
                err.contains(expected),
                "error `{err}` should contain `{expected}`"
            );
        }
    }
}
