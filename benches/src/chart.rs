//! One PNG per benchmark family: GB/s against size, one line per
//! implementation, the sizes on a log₂ axis.
//!
//! The powers of two draw each line; the `2^k - d` sizes (odd tails) are
//! hollow marks in the line's colour beside it, so a slow tail shows as a
//! gap. The text is drawn with a font compiled into the tool (Hack, from
//! `epaint_default_fonts`) through ab_glyph, so plotting needs no system
//! font or font library.

use crate::medians::significant;
use crate::results::{Error, Point};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::OnceLock;

/// The size of a plot in pixels (8 × 4.5 inches at 110 dpi).
pub const SIZE: (u32, u32) = (880, 495);

/// The family every text of a plot is drawn in.
const FONT: &str = "sans-serif";

/// Ten colours that stay apart from each other (matplotlib's "tab10").
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Draws `family`'s series (`{function: points by size}`) into the PNG
/// at `path`.
pub fn draw(family: &str, series: &BTreeMap<String, Vec<Point>>, path: &Path) -> Result<(), Error> {
    let fail = |reason: String| Error::Plot {
        path: path.to_path_buf(),
        reason,
    };
    register_the_font().map_err(fail)?;
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    render(family, series, &mut rgb).map_err(fail)?;
    write_png(path, &rgb).map_err(fail)
}

/// plotters looks fonts up by family name; ab_glyph's table starts empty.
fn register_the_font() -> Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font(FONT, FontStyle::Normal, epaint_default_fonts::HACK_REGULAR).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| "the embedded font does not parse".to_string())
}

fn render(
    family: &str,
    series: &BTreeMap<String, Vec<Point>>,
    rgb: &mut [u8],
) -> Result<(), String> {
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (x, y) = bounds(series);
    let mut chart = ChartBuilder::on(&root)
        .caption(family, (FONT, 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(56)
        .build_cartesian_2d(x.clone(), y.clone())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels((x.end - x.start).ceil() as usize + 1)
        .x_label_formatter(&power_of_two)
        .y_label_formatter(&|v| significant(*v, 4))
        .max_light_lines(1)
        .x_desc("elements")
        .y_desc("GB/s (bytes / median time)")
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .bold_line_style(BLACK.mix(0.18))
        .light_line_style(BLACK.mix(0.06))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let (line, odd): (Vec<Point>, Vec<Point>) =
            points.iter().partition(|p| p.elements.is_power_of_two());
        if !line.is_empty() {
            chart
                .draw_series(
                    LineSeries::new(line.iter().map(at), colour.filled().stroke_width(2))
                        .point_size(3),
                )
                .map_err(|e| e.to_string())?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                });
        }
        if !odd.is_empty() {
            let marks = chart
                .draw_series(
                    odd.iter()
                        .map(|p| Circle::new(at(p), 5, colour.stroke_width(1))),
                )
                .map_err(|e| e.to_string())?;
            // A function measured only at odd sizes still needs a name.
            if line.is_empty() {
                marks
                    .label(name)
                    .legend(move |(x, y)| Circle::new((x + 9, y), 5, colour.stroke_width(1)));
            }
        }
    }
    chart
        .configure_series_labels()
        .position(legend_corner(series, &x, &y))
        .label_font((FONT, 12))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// The corner whose quarter of the chart the series cross least (the
/// lines sampled between their points), where the legend hides least.
fn legend_corner(
    series: &BTreeMap<String, Vec<Point>>,
    x: &std::ops::Range<f64>,
    y: &std::ops::Range<f64>,
) -> SeriesLabelPosition {
    let mut crossings = [0usize; 4];
    for points in series.values() {
        let xy: Vec<(f64, f64)> = points.iter().map(at).collect();
        let samples = xy.windows(2).flat_map(|w| {
            (0..8).map(move |i| {
                let t = f64::from(i) / 8.0;
                (
                    w[0].0 + t * (w[1].0 - w[0].0),
                    w[0].1 + t * (w[1].1 - w[0].1),
                )
            })
        });
        for (px, py) in samples.chain(xy.last().copied()) {
            let right = (px - x.start) / (x.end - x.start) > 0.5;
            let low = (py - y.start) / (y.end - y.start) < 0.5;
            crossings[usize::from(right) + 2 * usize::from(low)] += 1;
        }
    }
    let corners = [
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::LowerLeft,
        SeriesLabelPosition::LowerRight,
    ];
    // The first of the emptiest, so ties keep the upper left.
    let (best, _) = crossings
        .iter()
        .enumerate()
        .min_by_key(|&(i, &n)| (n, i))
        .expect("four corners");
    corners[best].clone()
}

/// A point on the chart: log₂ of its size, its GB/s.
fn at(p: &Point) -> (f64, f64) {
    ((p.elements as f64).log2(), p.gbps)
}

/// The axes' ranges: half a power of two beyond the sizes on each side,
/// and 0 to a tenth above the fastest point.
fn bounds(series: &BTreeMap<String, Vec<Point>>) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
    let all = || series.values().flatten().map(at);
    let lo = all().map(|(x, _)| x).fold(f64::INFINITY, f64::min);
    let hi = all().map(|(x, _)| x).fold(f64::NEG_INFINITY, f64::max);
    let top = all().map(|(_, y)| y).fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let top = if top > 0.0 { top * 1.1 } else { 1.0 };
    ((lo - 0.5).floor()..(hi + 0.5).ceil(), 0.0..top)
}

/// The label of an x tick: `2^k` at whole powers, nothing between them.
fn power_of_two(k: &f64) -> String {
    if (k - k.round()).abs() < 1e-9 {
        format!("2^{}", k.round())
    } else {
        String::new()
    }
}

fn write_png(path: &Path, rgb: &[u8]) -> Result<(), String> {
    let file = File::create(path).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_name_whole_powers_only() {
        assert_eq!(power_of_two(&20.0), "2^20");
        assert_eq!(power_of_two(&20.5), "");
    }

    #[test]
    fn bounds_pad_the_sizes_and_start_at_zero() {
        let p = |k: u32, gbps| Point {
            elements: 1 << k,
            gbps,
        };
        let series = [("a".to_string(), vec![p(10, 2.0), p(20, 10.0)])].into();
        let (x, y) = bounds(&series);
        assert_eq!(x, 9.0..21.0);
        assert_eq!(y, 0.0..11.0);
    }

    #[test]
    fn the_legend_goes_where_the_lines_are_not() {
        let p = |k: u32, gbps| Point {
            elements: 1 << k,
            gbps,
        };
        // Falling from the upper left to the lower right: the upper right
        // is the emptiest.
        let series = [("a".to_string(), vec![p(10, 10.0), p(20, 0.5)])].into();
        let (x, y) = bounds(&series);
        let corner = legend_corner(&series, &x, &y);
        assert!(
            matches!(corner, SeriesLabelPosition::UpperRight),
            "{corner:?}"
        );
        // Flat and low: both upper corners are empty, the left one wins.
        let series = [("a".to_string(), vec![p(10, 1.0), p(20, 1.0), p(21, 10.0)])].into();
        let (x, y) = bounds(&series);
        let corner = legend_corner(&series, &x, &y);
        assert!(
            matches!(corner, SeriesLabelPosition::UpperLeft),
            "{corner:?}"
        );
    }

    /// A family with a line and odd marks becomes a PNG of the plot's size.
    #[test]
    fn draws_a_png() {
        let p = |n: u64, gbps| Point { elements: n, gbps };
        let series = [
            (
                "granule".to_string(),
                vec![p(1021, 3.0), p(1024, 4.0), p(1 << 20, 9.5)],
            ),
            ("only_odd".to_string(), vec![p((1 << 20) - 3, 7.0)]),
        ]
        .into();
        let path =
            std::env::temp_dir().join(format!("granule-bench-chart-{}.png", std::process::id()));
        draw("scan_exclusive_i64", &series, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let info = decoder.read_info().unwrap().info().clone();
        assert_eq!((info.width, info.height), SIZE);
    }
}
