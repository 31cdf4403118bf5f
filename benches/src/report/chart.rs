//! Charts, rendered with plotters' SVG backend. plotters is built without a font backend, so
//! text is laid out by its fixed estimate and written as SVG text: no system font is looked up,
//! and the same data renders to the same bytes on any machine.

use super::bootstrap::Ratio;
use super::view::Page;
use crate::catalog::Role;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// Series colors, in ladder order.
const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

const GRAY: RGBColor = RGBColor(128, 128, 128);

fn err(e: impl std::fmt::Display) -> String {
    format!("chart: {e}")
}

/// One variant's speed-ups over the baseline, per workload.
pub struct Series {
    /// The variant.
    pub name: String,
    /// Its rung.
    pub role: Role,
    /// Per workload, the speed-up with its interval, where measured.
    pub ratios: Vec<Option<Ratio>>,
}

/// What an experiment's chart shows.
pub struct Speedups {
    /// The page's title.
    pub title: String,
    /// The workloads, in order.
    pub workloads: Vec<String>,
    /// Every variant but the baseline.
    pub series: Vec<Series>,
    /// Per workload, the original change's ratio where it published one.
    pub originals: Vec<Option<f64>>,
}

/// The speed-ups of an experiment page, from its view.
pub fn speedups(page: &Page) -> Speedups {
    let data = page.data;
    let base = data.baseline();
    let series = data.variants[1..]
        .iter()
        .map(|v| Series {
            name: v.name.clone(),
            role: v.role,
            ratios: data
                .workloads
                .iter()
                .map(|w| page.speedup(&w.name, &v.name)?.ratio())
                .collect(),
        })
        .collect();
    let originals = data
        .workloads
        .iter()
        .map(|w| page.original(&w.name).and_then(|o| o.ratio))
        .collect();
    Speedups {
        title: format!("{}: speed-up over {}", data.experiment, base),
        workloads: data.workloads.iter().map(|w| w.name.clone()).collect(),
        series,
        originals,
    }
}

/// Draws the series' legend at `position`, boxed on a translucent white ground.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(err)
}

/// The range of a log axis that holds `values` (and 1, for a speed-up axis), with some room.
fn log_range(values: impl Iterator<Item = f64>, with_one: bool) -> std::ops::Range<f64> {
    let start = if with_one {
        (1.0, 1.0)
    } else {
        (f64::MAX, f64::MIN)
    };
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(start, |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return 0.1..10.0;
    }
    lo / 1.6..hi * 1.6
}

/// Renders the per-workload speed-up chart: a whisker per variant, the limit as a line, the
/// original's ratio as a triangle.
///
/// # Errors
///
/// When plotters fails to draw.
pub fn speedup_chart(s: &Speedups) -> Result<String, String> {
    let m = s.series.len().max(1);
    let k = m + 1;
    let n = s.workloads.len().max(1);
    let values = s
        .series
        .iter()
        .flat_map(|v| v.ratios.iter().flatten().flat_map(|r| [r.lower, r.upper]))
        .chain(s.originals.iter().flatten().copied());
    let y = log_range(values, true);
    let width = (n * k * 16 + 160).max(640) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&s.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((0..n * k).into_segmented(), y.log_scale())
            .map_err(err)?;
        let label = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) if i % k == (m - 1) / 2 => {
                s.workloads.get(i / k).cloned().unwrap_or_default()
            }
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * k)
            .x_label_formatter(&label)
            .y_desc("speed-up (log scale)")
            .draw()
            .map_err(err)?;
        let one = [
            (SegmentValue::Exact(0), 1.0),
            (SegmentValue::Exact(n * k), 1.0),
        ];
        chart
            .draw_series(std::iter::once(PathElement::new(
                one,
                BLACK.stroke_width(1),
            )))
            .map_err(err)?;
        draw_series(&mut chart, s, k)?;
        draw_originals(&mut chart, s, k)?;
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

type SpeedupChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<
        plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordusize>,
        plotters::coord::combinators::LogCoord<f64>,
    >,
>;

fn draw_series(chart: &mut SpeedupChart<'_, '_>, s: &Speedups, k: usize) -> Result<(), String> {
    for (j, v) in s.series.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let points = v
            .ratios
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, r)));
        if v.role == Role::Limit {
            let lines = points.map(|(i, r)| {
                let path = [
                    (SegmentValue::Exact(i * k), r.value),
                    (SegmentValue::Exact(i * k + k - 1), r.value),
                ];
                PathElement::new(path, color.stroke_width(2))
            });
            chart
                .draw_series(lines)
                .map_err(err)?
                .label(format!("{} (limit)", v.name))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
            continue;
        }
        let bars = points.map(|(i, r)| {
            ErrorBar::new_vertical(
                SegmentValue::CenterOf(i * k + j),
                r.lower,
                r.value,
                r.upper,
                color.filled(),
                6,
            )
        });
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(v.name.clone())
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    Ok(())
}

/// The original's ratio per workload, as a triangle in the gap after the workload's variants.
fn draw_originals(chart: &mut SpeedupChart<'_, '_>, s: &Speedups, k: usize) -> Result<(), String> {
    if s.originals.iter().all(Option::is_none) {
        return Ok(());
    }
    let marks = s.originals.iter().enumerate().filter_map(|(i, o)| {
        o.map(|o| {
            TriangleMarker::new(
                (SegmentValue::CenterOf(i * k + k - 1), o),
                7,
                BLACK.filled(),
            )
        })
    });
    chart
        .draw_series(marks)
        .map_err(err)?
        .label("the original's ratio")
        .legend(|(x, y)| TriangleMarker::new((x + 8, y), 6, BLACK.filled()));
    Ok(())
}

/// One bar of the headline chart.
pub struct Bar {
    /// The experiment page.
    pub label: String,
    /// Its headline speed-up.
    pub ratio: Ratio,
    /// The original's ratio, where it published one.
    pub original: Option<f64>,
}

/// Renders the headline chart: a bar per experiment (gray where its interval contains 1), its
/// interval as a whisker, the original's ratio as a triangle.
///
/// # Errors
///
/// When plotters fails to draw.
pub fn headline_chart(bars: &[Bar]) -> Result<String, String> {
    let n = bars.len().max(1);
    let x = log_range(
        bars.iter()
            .flat_map(|b| [b.ratio.lower, b.ratio.upper])
            .chain(bars.iter().filter_map(|b| b.original)),
        true,
    );
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (760, (n * 30 + 90) as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "wirelab: headline speed-up, optimized over baseline",
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(230)
            .build_cartesian_2d(x.clone().log_scale(), (0..n).into_segmented())
            .map_err(err)?;
        let label = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) => bars.get(*i).map(|b| b.label.clone()).unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&label)
            .x_desc("speed-up (log scale); whiskers: 95 % bootstrap interval")
            .draw()
            .map_err(err)?;
        let rects = bars.iter().enumerate().map(|(i, b)| {
            let color = if b.ratio.spans_one() { GRAY } else { COLORS[0] };
            let mut r = Rectangle::new(
                [
                    (1.0, SegmentValue::Exact(i)),
                    (b.ratio.value, SegmentValue::Exact(i + 1)),
                ],
                color.mix(0.7).filled(),
            );
            r.set_margin(5, 5, 0, 0);
            r
        });
        chart.draw_series(rects).map_err(err)?;
        let whiskers = bars.iter().enumerate().map(|(i, b)| {
            ErrorBar::new_horizontal(
                SegmentValue::CenterOf(i),
                b.ratio.lower,
                b.ratio.value,
                b.ratio.upper,
                BLACK.filled(),
                6,
            )
        });
        chart.draw_series(whiskers).map_err(err)?;
        let originals = bars.iter().enumerate().filter_map(|(i, b)| {
            b.original
                .map(|o| TriangleMarker::new((o, SegmentValue::CenterOf(i)), 7, RED.filled()))
        });
        chart
            .draw_series(originals)
            .map_err(err)?
            .label("the original's ratio")
            .legend(|(x, y)| TriangleMarker::new((x + 8, y), 6, RED.filled()));
        legend(&mut chart, SeriesLabelPosition::MiddleRight)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One line of a scaling chart: a variant's (size, time per byte) points.
pub struct Line {
    /// The variant.
    pub name: String,
    /// (size, nanoseconds per input byte), in size order.
    pub points: Vec<(f64, f64)>,
}

/// Renders a log-log scaling chart: time per byte against a size, a line per variant.
///
/// # Errors
///
/// When plotters fails to draw.
pub fn scaling_chart(title: &str, size: &str, lines: &[Line]) -> Result<String, String> {
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let x = log_range(all().map(|p| p.0), false);
    let y = log_range(all().map(|p| p.1), false);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x.log_scale(), y.log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(size)
            .y_desc("ns per input byte (log scale)")
            .draw()
            .map_err(err)?;
        for (j, l) in lines.iter().enumerate() {
            let color = COLORS[j % COLORS.len()];
            chart
                .draw_series(
                    LineSeries::new(l.points.iter().copied(), color.stroke_width(2)).point_size(3),
                )
                .map_err(err)?
                .label(l.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
