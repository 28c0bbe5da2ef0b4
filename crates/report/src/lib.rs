//! Figures for every exaraid experiment, in one place so all plots look alike.
//!
//! A [`Figure`] is a grid of [`Panel`]s, each a set of named line series with markers
//! (the shape of every figure in the seed papers). [`render`] writes it as PNG and SVG.
//! Text needs a TrueType font: DejaVu Sans from Debian's fonts-dejavu-core, which
//! scripts/setup.sh installs.

use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// One named line.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

#[derive(Clone, Debug, Default)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
}

const FONT_PATHS: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

fn ensure_font() -> Result<()> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let path = FONT_PATHS.iter().find(|p| Path::new(p).exists()).ok_or_else(|| {
            format!("no DejaVu Sans font at {FONT_PATHS:?}: install Debian's fonts-dejavu-core (scripts/setup.sh does)")
        })?;
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read font {path}: {e}"))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{path} is not a usable TrueType font"))
    })
    .clone()
    .map_err(anyhow::Error::msg)
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

const PANEL_W: u32 = 640;
const LOG_LABELS_MAX: usize = 10;

/// A short tick label: 1500 -> "1.5k", 500000 -> "500k", 0.25 -> "0.25", 3.0 -> "3".
pub fn tick_label(v: f64) -> String {
    fn trim(x: f64) -> String {
        let s = format!("{x:.2}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    }
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else if a >= 100.0 || a == 0.0 {
        format!("{}", v.round())
    } else if a >= 0.01 {
        trim(v)
    } else {
        format!("{v:.1e}")
    }
}
const PANEL_H: u32 = 420;
const TITLE_H: u32 = 40;

/// Write the figure to `png` and `svg`.
pub fn render(figure: &Figure, png: &Path, svg: &Path) -> Result<()> {
    ensure_font()?;
    if figure.panels.is_empty() {
        bail!("figure '{}' has no panels", figure.title);
    }
    let columns = figure.columns.clamp(1, figure.panels.len());
    let rows = figure.panels.len().div_ceil(columns);
    let size = (PANEL_W * columns as u32, PANEL_H * rows as u32 + TITLE_H);
    {
        let root = BitMapBackend::new(png, size).into_drawing_area();
        draw(figure, root, columns, rows).with_context(|| format!("drawing {}", png.display()))?;
    }
    {
        let root = SVGBackend::new(svg, size).into_drawing_area();
        draw(figure, root, columns, rows).with_context(|| format!("drawing {}", svg.display()))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(
    figure: &Figure,
    root: DrawingArea<DB, plotters::coord::Shift>,
    columns: usize,
    rows: usize,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let (title_area, body) = root.split_vertically(TITLE_H);
    title_area
        .titled(&figure.title, ("sans-serif", 22))
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let areas = body.split_evenly((rows, columns));
    for (panel, area) in figure.panels.iter().zip(areas.iter()) {
        draw_panel(panel, area).map_err(|e| anyhow::anyhow!("panel '{}': {e}", panel.title))?;
    }
    root.present().map_err(|e| anyhow::anyhow!("{e:?}"))?;
    Ok(())
}

fn range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (if log { 1.0 } else { 0.0 }, 1.0);
    }
    if log {
        (lo / 1.5, hi * 1.5)
    } else {
        let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.05).max(1e-9);
        (
            if lo >= 0.0 {
                (lo - pad).max(0.0)
            } else {
                lo - pad
            },
            hi + pad,
        )
    }
}

fn draw_panel<DB: DrawingBackend>(
    panel: &Panel,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let all = || panel.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = range(all().map(|p| p.0), panel.log_x);
    let (y0, y1) = range(all().map(|p| p.1), panel.log_y);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60);
    // plotters types differ for log and linear axes; four combinations, one body.
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart.map_err(|e| format!("{e:?}"))?;
            let mut mesh = chart.configure_mesh();
            // Log axes get few, compact labels: plotters' defaults crowd "3000.0 4000.0 ..."
            // together at the right end of a decade.
            if panel.log_x {
                mesh.x_labels(LOG_LABELS_MAX);
            }
            if panel.log_y {
                mesh.y_labels(LOG_LABELS_MAX);
            }
            mesh.x_label_formatter(&|v| tick_label(*v))
                .y_label_formatter(&|v| tick_label(*v))
                .x_desc(panel.x_label.as_str())
                .y_desc(panel.y_label.as_str())
                .label_style(("sans-serif", 13))
                .draw()
                .map_err(|e| format!("{e:?}"))?;
            for (i, s) in panel.series.iter().enumerate() {
                let color = PALETTE[i % PALETTE.len()];
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|(x, y)| {
                        x.is_finite()
                            && y.is_finite()
                            && (!panel.log_x || *x > 0.0)
                            && (!panel.log_y || *y > 0.0)
                    })
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(|e| format!("{e:?}"))?
                    .label(s.name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| format!("{e:?}"))?;
            }
            if panel.series.iter().any(|s| !s.name.is_empty()) {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 12))
                    .draw()
                    .map_err(|e| format!("{e:?}"))?;
            }
        }};
    }
    match (panel.log_x, panel.log_y) {
        (false, false) => body!(builder.build_cartesian_2d(x0..x1, y0..y1)),
        (true, false) => body!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)),
        (false, true) => body!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())),
        (true, true) => {
            body!(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale()))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(500_000.0), "500k");
        assert_eq!(tick_label(1_500_000.0), "1.5M");
        assert_eq!(tick_label(4000.0), "4000");
        assert_eq!(tick_label(16_384.0), "16.38k");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(3.0), "3");
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(0.001), "1.0e-3");
    }

    #[test]
    fn renders_png_and_svg_with_every_series() {
        let dir = tempfile::tempdir().unwrap();
        let fig = Figure {
            title: "test".into(),
            columns: 2,
            panels: vec![
                Panel {
                    title: "linear".into(),
                    x_label: "x".into(),
                    y_label: "y".into(),
                    series: vec![
                        Series {
                            name: "alpha".into(),
                            points: vec![(1.0, 2.0), (2.0, 3.0)],
                        },
                        Series {
                            name: "beta".into(),
                            points: vec![(1.0, 1.0), (2.0, 5.0)],
                        },
                    ],
                    ..Default::default()
                },
                Panel {
                    title: "log".into(),
                    log_x: true,
                    series: vec![Series {
                        name: "gamma".into(),
                        points: vec![(10.0, 2.0), (1000.0, 3.0)],
                    }],
                    ..Default::default()
                },
            ],
        };
        let png = dir.path().join("f.png");
        let svg = dir.path().join("f.svg");
        render(&fig, &png, &svg).unwrap();
        let png_bytes = std::fs::read(&png).unwrap();
        assert_eq!(&png_bytes[1..4], b"PNG");
        let svg_text = std::fs::read_to_string(&svg).unwrap();
        for name in ["alpha", "beta", "gamma"] {
            assert!(
                svg_text.contains(name),
                "legend entry {name} missing from the SVG"
            );
        }
    }
}
