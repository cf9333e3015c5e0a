//! Charts as SVG strings, drawn with plotters.
//!
//! Log axes are drawn in transformed coordinates (log10 of the data) with ticks placed at
//! integers, so every tick sits exactly on a power of ten and is labelled `10ᵏ`; the minor grid
//! marks 2·10ᵏ … 9·10ᵏ. Lines are clipped to the plot area, markers that would land on the same
//! pixel as an earlier marker of the same series are drawn once (the picture is identical, the
//! file smaller), and the legend sits in its own column to the right of the plot, so it never
//! covers data or text.

use super::ReportError;
use super::fmt::escape;
use super::font::{self, FAMILY};
use super::style::{SeriesStyle, Shape};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::HashSet;

mod geometry;
pub use geometry::log_page_range;
use geometry::{clip_polyline, page_range, tick_label, ticks};

/// How an axis maps data to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Log10,
    Linear,
}

/// One axis: description (quantity and unit), scale and optional range in data units.
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    pub range: Option<(f64, f64)>,
    /// A categorical axis: category `i` sits at `i` and is labelled with its name.
    pub categories: Vec<String>,
}

impl Axis {
    pub fn log(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Log10,
            range: None,
            categories: Vec::new(),
        }
    }
    pub fn linear(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            range: None,
            categories: Vec::new(),
        }
    }
    /// Named categories at 0, 1, …, each with room for a group of bars.
    pub fn categories(label: impl Into<String>, names: Vec<String>) -> Axis {
        let k = names.len().max(1) as f64;
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            range: Some((-0.5, k - 0.5)),
            categories: names,
        }
    }
    /// Labelled and light ticks in page coordinates.
    fn ticks(&self, lo: f64, hi: f64, max_labels: usize) -> (Vec<f64>, Vec<f64>) {
        if self.categories.is_empty() {
            ticks(self.scale, lo, hi, max_labels)
        } else {
            (
                (0..self.categories.len()).map(|i| i as f64).collect(),
                vec![],
            )
        }
    }
    /// The label of the tick at page coordinate `v`.
    fn tick_label(&self, v: f64, step: f64) -> String {
        if self.categories.is_empty() {
            tick_label(self.scale, v, step)
        } else {
            let i = v.round().max(0.0) as usize;
            self.categories.get(i).cloned().unwrap_or_default()
        }
    }
    pub fn with_range(mut self, lo: f64, hi: f64) -> Axis {
        self.range = Some((lo, hi));
        self
    }
    fn to_page(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Log10 => {
                if v > 0.0 {
                    v.log10()
                } else {
                    f64::NAN
                }
            }
            Scale::Linear => v,
        }
    }
}

/// Dash pattern of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    Solid,
    Dashed,
    Dotted,
}

/// Markers (and optionally a connecting polyline) of one series.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub style: SeriesStyle,
    pub points: Vec<(f64, f64)>,
    /// Marker radius in pixels.
    pub size: i32,
    /// Draw a polyline through the points (in the given order) as well.
    pub connect: bool,
    /// Marker opacity (dense scatters stay readable where series overlap).
    pub opacity: f64,
}

/// A reference line through data points (clipped to the plot area).
#[derive(Debug, Clone)]
pub struct RefLine {
    pub label: String,
    pub color: RGBColor,
    pub dash: Dash,
    pub points: Vec<(f64, f64)>,
}

/// One bar per category of a categorical x axis (`None`: no bar), grouped side by side with
/// the other bar series, each with an optional range (min, max) drawn as a whisker.
#[derive(Debug, Clone)]
pub struct Bars {
    pub label: String,
    pub color: RGBColor,
    pub values: Vec<Option<f64>>,
    pub ranges: Vec<Option<(f64, f64)>>,
}

/// A shaded region between two curves over the same x values (a bound's range, say): drawn
/// behind everything else, clamped to the plot area.
#[derive(Debug, Clone)]
pub struct Band {
    pub color: RGBColor,
    /// Opacity of the fill.
    pub opacity: f64,
    /// (x, lower y, upper y), in data units, in the order of x.
    pub points: Vec<(f64, f64, f64)>,
}

/// A whole chart.
#[derive(Debug, Clone)]
pub struct Chart {
    pub width: u32,
    pub height: u32,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub lines: Vec<RefLine>,
    /// Bar groups (for a categorical x axis), drawn behind the lines and markers.
    pub bars: Vec<Bars>,
    /// Shaded bands, drawn behind everything.
    pub bands: Vec<Band>,
    /// Whether the SVG holds its own legend (a column right of the plot); small multiples
    /// leave it to the page, which shows one per panel.
    pub legend: bool,
}

impl Chart {
    /// One panel of small multiples (`width` × `height`): markers, reference lines and shaded
    /// bands, its legend left to the page.
    pub fn panel(
        (width, height): (u32, u32),
        (x, y): (Axis, Axis),
        series: Vec<Series>,
        lines: Vec<RefLine>,
        bands: Vec<Band>,
    ) -> Chart {
        Chart {
            width,
            height,
            x,
            y,
            series,
            lines,
            bars: Vec::new(),
            bands,
            legend: false,
        }
    }
}

/// An SVG chart and what it showed.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub svg: String,
    /// Markers written to the SVG (after merging markers on the same pixel).
    pub markers: usize,
    /// Points with a coordinate a log axis cannot show (≤ 0, ∞, NaN) or outside a fixed range.
    pub not_shown: usize,
    /// Reference lines entirely outside the plot area (by label).
    pub lines_outside: Vec<String>,
}

/// Text style whose rendered font size is `px` pixels (plotters writes size / 1.24 into SVG).
pub fn text(px: f64) -> TextStyle<'static> {
    font::register();
    TextStyle::from((FAMILY, px * 1.24).into_font()).color(&RGBColor(0x22, 0x22, 0x22))
}

const TICK_PX: f64 = 14.0;
const DESC_PX: f64 = 15.0;
const LEGEND_PX: f64 = 14.0;
/// Legend: the first row's centre and the height of a row, in pixels.
const LEGEND_TOP: i32 = 22;
const LEGEND_ROW: i32 = (LEGEND_PX * 1.9) as i32;

/// A linear f64 axis whose ticks are exactly the given values (bold: labelled grid lines,
/// light: minor grid lines).
pub struct Ticked {
    inner: RangedCoordf64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.max_num_points() == 0 {
            vec![]
        } else if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

type Coord = Ticked;

/// Runs `$body` with `$it` bound to an iterator of marker elements (one per point of
/// `$points`) of the series style `$style` and radius `$r`. A macro rather than a function
/// because each shape is a different element type.
macro_rules! markers {
    ($style:expr, $r:expr, $opacity:expr, $points:expr, |$it:ident| $body:expr) => {{
        let st: SeriesStyle = $style;
        let c = st.color.mix($opacity);
        let fill = c.filled();
        let stroke = c.stroke_width(2);
        let r: i32 = $r;
        let t = r + 1; // triangles and diamonds look smaller than circles of the same radius
        match st.shape {
            Shape::Circle => {
                let $it = $points.map(move |p| EmptyElement::at(p) + Circle::new((0, 0), r, fill));
                $body
            }
            Shape::OpenCircle => {
                let $it =
                    $points.map(move |p| EmptyElement::at(p) + Circle::new((0, 0), r, stroke));
                $body
            }
            Shape::Square => {
                let $it = $points
                    .map(move |p| EmptyElement::at(p) + Rectangle::new([(-r, -r), (r, r)], fill));
                $body
            }
            Shape::OpenSquare => {
                let $it = $points
                    .map(move |p| EmptyElement::at(p) + Rectangle::new([(-r, -r), (r, r)], stroke));
                $body
            }
            Shape::Triangle => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p) + Polygon::new(vec![(0, -t), (t, t - 1), (-t, t - 1)], fill)
                });
                $body
            }
            Shape::OpenTriangle => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p)
                        + PathElement::new(vec![(0, -t), (t, t - 1), (-t, t - 1), (0, -t)], stroke)
                });
                $body
            }
            Shape::TriangleDown => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p) + Polygon::new(vec![(0, t), (t, 1 - t), (-t, 1 - t)], fill)
                });
                $body
            }
            Shape::OpenTriangleDown => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p)
                        + PathElement::new(vec![(0, t), (t, 1 - t), (-t, 1 - t), (0, t)], stroke)
                });
                $body
            }
            Shape::Diamond => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p) + Polygon::new(vec![(0, -t), (t, 0), (0, t), (-t, 0)], fill)
                });
                $body
            }
            Shape::OpenDiamond => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p)
                        + PathElement::new(vec![(0, -t), (t, 0), (0, t), (-t, 0), (0, -t)], stroke)
                });
                $body
            }
            Shape::Cross => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p)
                        + PathElement::new(vec![(-r, -r), (r, r)], stroke)
                        + PathElement::new(vec![(-r, r), (r, -r)], stroke)
                });
                $body
            }
            Shape::Plus => {
                let $it = $points.map(move |p| {
                    EmptyElement::at(p)
                        + PathElement::new(vec![(-t, 0), (t, 0)], stroke)
                        + PathElement::new(vec![(0, -t), (0, t)], stroke)
                });
                $body
            }
        }
    }};
}

fn line_style(color: RGBColor) -> ShapeStyle {
    color.stroke_width(2)
}

fn plot_err<E: std::fmt::Debug>(what: &str) -> impl Fn(E) -> ReportError + '_ {
    move |e| ReportError::Plot {
        what: what.to_string(),
        message: format!("{e:?}"),
    }
}

/// Draws `chart`; `what` names it in errors.
pub fn render(chart: &Chart, what: &str) -> Result<Rendered, ReportError> {
    font::register();
    let err = plot_err(what);
    let (xr, yr) = (
        page_range(
            &chart.x,
            chart
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
        ),
        page_range(
            &chart.y,
            chart
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain(chart.bars.iter().flat_map(|b| {
                    let ranges = b.ranges.iter().flatten().flat_map(|r| [r.0, r.1]);
                    b.values.iter().flatten().copied().chain(ranges)
                })),
        ),
    );
    let tick_style = text(TICK_PX);
    let legend_style = text(LEGEND_PX);

    // Legend column width from the measured labels.
    let mut legend_labels: Vec<&str> = Vec::new();
    if chart.legend {
        legend_labels.extend(chart.lines.iter().map(|l| l.label.as_str()));
        legend_labels.extend(chart.series.iter().map(|s| s.label.as_str()));
        legend_labels.extend(chart.bars.iter().map(|b| b.label.as_str()));
    }
    let measure = |s: &str, st: &TextStyle| -> Result<(u32, u32), ReportError> {
        st.font.box_size(s).map_err(plot_err(what))
    };
    let mut legend_w = 0u32;
    for l in &legend_labels {
        legend_w = legend_w.max(measure(l, &legend_style)?.0);
    }
    let legend_w = if legend_labels.is_empty() {
        0
    } else {
        legend_w + 56
    };

    let max_x_labels = ((chart.width - legend_w) / 70).max(2) as usize;
    // A chart grows taller rather than cut its legend (one row per line, series and bars).
    let legend_rows = if chart.legend {
        (chart.lines.len() + chart.series.len() + chart.bars.len()) as u32
    } else {
        0
    };
    let height = chart
        .height
        .max(LEGEND_TOP as u32 + legend_rows * LEGEND_ROW as u32);
    let max_y_labels = (height / 32).max(2) as usize;
    let (xb, xl) = chart.x.ticks(xr.0, xr.1, max_x_labels);
    let (yb, yl) = chart.y.ticks(yr.0, yr.1, max_y_labels);
    let step = |b: &[f64]| {
        if b.len() > 1 {
            (b[1] - b[0]).abs()
        } else {
            1.0
        }
    };
    let (xstep, ystep) = (step(&xb), step(&yb));
    let y_label_w = yb
        .iter()
        .map(|&v| measure(&chart.y.tick_label(v, ystep), &tick_style).map(|s| s.0))
        .collect::<Result<Vec<u32>, _>>()?
        .into_iter()
        .max()
        .unwrap_or(20);
    let tick_h = measure("10⁻⁸", &tick_style)?.1;
    // Axis descriptions shrink (down to 11 px) rather than run past the plot's edge.
    let fit = |label: &str, room: f64| -> Result<TextStyle<'static>, ReportError> {
        let mut px = DESC_PX;
        while px > 11.0 && f64::from(measure(label, &text(px))?.0) > room {
            px -= 0.5;
        }
        Ok(text(px))
    };
    let desc_h = measure("Ag", &text(DESC_PX))?.1;
    let x_desc_style = fit(
        &chart.x.label,
        f64::from(chart.width - legend_w) - f64::from(y_label_w + desc_h + 22) - 40.0,
    )?;
    let y_desc_style = fit(
        &chart.y.label,
        f64::from(height) - f64::from(tick_h + desc_h + 22) - 30.0,
    )?;

    let mut svg = String::new();
    let mut markers = 0;
    let mut not_shown = 0;
    let mut lines_outside = Vec::new();
    {
        let backend = SVGBackend::with_string(&mut svg, (chart.width, height));
        let root = backend.into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let (plot_area, legend_area) = root.split_horizontally(chart.width - legend_w);
        let x_coord = Ticked {
            inner: (xr.0..xr.1).into(),
            bold: xb.clone(),
            light: xl,
        };
        let y_coord = Ticked {
            inner: (yr.0..yr.1).into(),
            bold: yb.clone(),
            light: yl,
        };
        let mut cc = ChartBuilder::on(&plot_area)
            .margin_top(14)
            .margin_right(28)
            .margin_left(6)
            .margin_bottom(6)
            .x_label_area_size(tick_h + desc_h + 22)
            .y_label_area_size(y_label_w + desc_h + 22)
            .build_cartesian_2d(x_coord, y_coord)
            .map_err(&err)?;
        let fx = |v: &f64| chart.x.tick_label(*v, xstep);
        let fy = |v: &f64| chart.y.tick_label(*v, ystep);
        cc.configure_mesh()
            .x_desc(chart.x.label.as_str())
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .label_style(tick_style.clone())
            .axis_desc_style(x_desc_style)
            .bold_line_style(RGBColor(0xC8, 0xC8, 0xC8).stroke_width(1))
            .light_line_style(RGBColor(0xEC, 0xEC, 0xEC).stroke_width(1))
            .axis_style(RGBColor(0x33, 0x33, 0x33).stroke_width(1))
            .draw()
            .map_err(&err)?;
        // The y description separately, in its own (possibly smaller) size: plotters uses one
        // style for both axis descriptions.
        cc.configure_mesh()
            .disable_mesh()
            .disable_axes()
            .disable_x_axis()
            .x_labels(0)
            .y_labels(0)
            .y_desc(chart.y.label.as_str())
            .axis_desc_style(y_desc_style)
            .draw()
            .map_err(&err)?;

        let rect = (xr.0, xr.1, yr.0, yr.1);
        for band in &chart.bands {
            draw_band(&mut cc, chart, band, rect).map_err(&err)?;
        }
        draw_bars(&mut cc, chart, yr).map_err(&err)?;
        for line in &chart.lines {
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .map(|p| (chart.x.to_page(p.0), chart.y.to_page(p.1)))
                .collect();
            let parts = clip_polyline(&pts, rect);
            if parts.is_empty() {
                lines_outside.push(line.label.clone());
            }
            for part in parts {
                draw_path(&mut cc, part, line.color, line.dash).map_err(&err)?;
            }
        }
        let inside = |p: &(f64, f64)| {
            p.0.is_finite()
                && p.1.is_finite()
                && p.0 >= xr.0.min(xr.1)
                && p.0 <= xr.0.max(xr.1)
                && p.1 >= yr.0.min(yr.1)
                && p.1 <= yr.0.max(yr.1)
        };
        for s in &chart.series {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .map(|p| (chart.x.to_page(p.0), chart.y.to_page(p.1)))
                .collect();
            if s.connect {
                for part in clip_polyline(&pts, rect) {
                    draw_path(&mut cc, part, s.style.color, Dash::Solid).map_err(&err)?;
                }
            }
            let mut seen = HashSet::new();
            let mut keep = Vec::new();
            for p in pts {
                if !inside(&p) {
                    not_shown += 1;
                    continue;
                }
                if seen.insert(cc.backend_coord(&p)) {
                    keep.push(p);
                }
            }
            markers += keep.len();
            let (style, size) = (s.style, s.size);
            markers!(style, size, s.opacity, keep.into_iter(), |it| cc
                .draw_series(it)
                .map(|_| ())
                .map_err(&err))?;
        }

        // Legend: reference lines first, then the series, one row each.
        if chart.legend {
            let row_h = LEGEND_ROW;
            let x_mark = 16;
            let x_text = 38;
            let mut y = LEGEND_TOP;
            let anchor = legend_style.pos(Pos::new(HPos::Left, VPos::Center));
            for line in &chart.lines {
                legend_area
                    .draw(&PathElement::new(
                        vec![(x_mark - 12, y), (x_mark + 12, y)],
                        line_style(line.color),
                    ))
                    .map_err(&err)?;
                if line.dash != Dash::Solid {
                    // Gaps painted over the sample line show the dash pattern.
                    let (on, off) = if line.dash == Dash::Dashed {
                        (6, 4)
                    } else {
                        (2, 3)
                    };
                    let mut x = x_mark - 12 + on;
                    while x < x_mark + 12 {
                        legend_area
                            .draw(&Rectangle::new(
                                [(x, y - 2), ((x + off).min(x_mark + 12), y + 2)],
                                WHITE.filled(),
                            ))
                            .map_err(&err)?;
                        x += on + off;
                    }
                }
                legend_area
                    .draw_text(&line.label, &anchor, (x_text, y))
                    .map_err(&err)?;
                y += row_h;
            }
            for s in &chart.series {
                if s.connect {
                    legend_area
                        .draw(&PathElement::new(
                            vec![(x_mark - 12, y), (x_mark + 12, y)],
                            line_style(s.style.color),
                        ))
                        .map_err(&err)?;
                }
                markers!(
                    s.style,
                    s.size.max(4),
                    s.opacity,
                    std::iter::once((x_mark, y)),
                    |it| {
                        for e in it {
                            legend_area.draw(&e).map_err(&err)?;
                        }
                        Ok::<(), ReportError>(())
                    }
                )?;
                legend_area
                    .draw_text(&s.label, &anchor, (x_text, y))
                    .map_err(&err)?;
                y += row_h;
            }
            for b in &chart.bars {
                legend_area
                    .draw(&Rectangle::new(
                        [(x_mark - 7, y - 7), (x_mark + 7, y + 7)],
                        b.color.filled(),
                    ))
                    .map_err(&err)?;
                legend_area
                    .draw_text(&b.label, &anchor, (x_text, y))
                    .map_err(&err)?;
                y += row_h;
            }
        }
        root.present().map_err(&err)?;
    }
    Ok(Rendered {
        svg: responsive(svg, what),
        markers,
        not_shown,
        lines_outside,
    })
}

/// The bars of `chart` (x: category index; y: page coordinates, from the bottom of the plot
/// or from 0 on a linear axis), with their whiskers.
fn draw_bars(
    cc: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<Coord, Coord>>,
    chart: &Chart,
    yr: (f64, f64),
) -> Result<(), DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>> {
    let groups = chart.bars.len();
    if groups == 0 {
        return Ok(());
    }
    let base = match chart.y.scale {
        Scale::Log10 => yr.0,
        Scale::Linear => 0f64.clamp(yr.0, yr.1),
    };
    let clamp = |v: f64| v.clamp(yr.0, yr.1);
    let width = 0.8 / groups as f64;
    for (j, b) in chart.bars.iter().enumerate() {
        let left = |i: usize| i as f64 - 0.4 + j as f64 * width;
        let rects = b.values.iter().enumerate().filter_map(|(i, v)| {
            let top = chart.y.to_page((*v)?);
            top.is_finite().then(|| {
                Rectangle::new(
                    [(left(i), base), (left(i) + 0.9 * width, clamp(top))],
                    b.color.filled(),
                )
            })
        });
        cc.draw_series(rects)?;
        let whiskers = b.ranges.iter().enumerate().filter_map(|(i, r)| {
            let (lo, hi) = (*r)?;
            let (lo, hi) = (chart.y.to_page(lo), chart.y.to_page(hi));
            let x = left(i) + 0.45 * width;
            (lo.is_finite() && hi.is_finite()).then(|| {
                PathElement::new(
                    vec![(x, clamp(lo)), (x, clamp(hi))],
                    RGBColor(0x22, 0x22, 0x22).stroke_width(1),
                )
            })
        });
        cc.draw_series(whiskers)?;
    }
    Ok(())
}

/// A band as one polygon (upper edge left to right, lower edge back), clamped to `rect`.
fn draw_band(
    cc: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<Coord, Coord>>,
    chart: &Chart,
    band: &Band,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) -> Result<(), DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>> {
    let page = |x: f64, y: f64| {
        let (x, y) = (chart.x.to_page(x), chart.y.to_page(y));
        (x.is_finite() && y.is_finite()).then(|| (x.clamp(x0, x1), y.clamp(y0, y1)))
    };
    let upper: Vec<(f64, f64)> = band.points.iter().filter_map(|p| page(p.0, p.2)).collect();
    let lower: Vec<(f64, f64)> = band
        .points
        .iter()
        .rev()
        .filter_map(|p| page(p.0, p.1))
        .collect();
    if upper.is_empty() || lower.is_empty() {
        return Ok(());
    }
    let mut outline = upper;
    outline.extend(lower);
    cc.draw_series(std::iter::once(Polygon::new(
        outline,
        band.color.mix(band.opacity).filled(),
    )))?;
    Ok(())
}

fn draw_path(
    cc: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<Coord, Coord>>,
    part: Vec<(f64, f64)>,
    color: RGBColor,
    dash: Dash,
) -> Result<(), DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>> {
    match dash {
        Dash::Solid => {
            cc.draw_series(std::iter::once(PathElement::new(part, line_style(color))))?;
        }
        Dash::Dashed => {
            cc.draw_series(std::iter::once(DashedPathElement::new(
                part,
                8,
                5,
                line_style(color),
            )))?;
        }
        Dash::Dotted => {
            cc.draw_series(std::iter::once(DashedPathElement::new(
                part,
                2,
                4,
                line_style(color),
            )))?;
        }
    }
    Ok(())
}

/// Makes the SVG scale down in narrow windows (it keeps its size otherwise) and gives it an
/// accessible name.
fn responsive(svg: String, what: &str) -> String {
    let title = escape(what);
    match svg.find("<svg ") {
        Some(i) => {
            let end = svg[i..].find('>').map(|j| i + j).unwrap_or(i);
            let mut out = String::with_capacity(svg.len() + 100);
            out.push_str(&svg[..end]);
            out.push_str(&format!(
                " role=\"img\" aria-label=\"{title}\" style=\"max-width:100%;height:auto\">"
            ));
            out.push_str(&svg[end + 1..]);
            out
        }
        None => svg,
    }
}
