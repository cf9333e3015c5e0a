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
use super::style::SeriesStyle;
use plotters::prelude::*;

#[macro_use]
mod marks;
mod draw;
mod geometry;
mod svg_legend;
pub use geometry::{LOG2_ZERO, log_page_range};
use geometry::{page_range, tick_label, ticks};
use marks::Ticked;

/// How an axis maps data to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Log10,
    /// Powers of two (a count of ulps, say), with a row for 0 below 2⁰ ([`LOG2_ZERO`]).
    Log2,
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
    pub fn log2(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Log2,
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
            Scale::Log2 => {
                if v > 0.0 {
                    v.log2()
                } else if v == 0.0 {
                    LOG2_ZERO
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
    /// Its legend entry (empty: none).
    pub label: String,
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

fn plot_err<E: std::fmt::Debug>(what: &str) -> impl Fn(E) -> ReportError + '_ {
    move |e| ReportError::Plot {
        what: what.to_string(),
        message: format!("{e:?}"),
    }
}

/// A chart's geometry, measured in the embedded font before anything is drawn.
struct Layout {
    /// Page ranges of the axes.
    xr: (f64, f64),
    yr: (f64, f64),
    x: Ticked,
    y: Ticked,
    xstep: f64,
    ystep: f64,
    /// The legend column's width (0 without one) and the chart's height (grown for it).
    legend_w: u32,
    height: u32,
    x_area: u32,
    y_area: u32,
    x_desc: TextStyle<'static>,
    y_desc: TextStyle<'static>,
}

fn layout(chart: &Chart, what: &str) -> Result<Layout, ReportError> {
    let xr = page_range(
        &chart.x,
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
    );
    let yr = page_range(
        &chart.y,
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(chart.bars.iter().flat_map(|b| {
                let ranges = b.ranges.iter().flatten().flat_map(|r| [r.0, r.1]);
                b.values.iter().flatten().copied().chain(ranges)
            })),
    );
    let tick_style = text(TICK_PX);
    let measure = |s: &str, st: &TextStyle| -> Result<(u32, u32), ReportError> {
        st.font.box_size(s).map_err(plot_err(what))
    };
    // Legend column width from the measured labels; a chart grows taller rather than cut its
    // legend (one row per line, series and bars).
    let (mut legend_w, mut rows) = (0u32, 0u32);
    if chart.legend {
        let labels = chart.lines.iter().map(|l| &l.label);
        let labels = labels.chain(chart.series.iter().map(|s| &s.label));
        for l in labels.chain(chart.bars.iter().map(|b| &b.label)) {
            legend_w = legend_w.max(measure(l, &text(LEGEND_PX))?.0 + 56);
            rows += 1;
        }
    }
    let height = chart
        .height
        .max(LEGEND_TOP as u32 + rows * LEGEND_ROW as u32);
    let max_x_labels = ((chart.width - legend_w) / 70).max(2) as usize;
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
    let mut y_label_w = 20;
    if !yb.is_empty() {
        y_label_w = 0;
        for &v in &yb {
            y_label_w = y_label_w.max(measure(&chart.y.tick_label(v, ystep), &tick_style)?.0);
        }
    }
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
    let (x_area, y_area) = (tick_h + desc_h + 22, y_label_w + desc_h + 22);
    let x_room = f64::from(chart.width - legend_w) - f64::from(y_area) - 40.0;
    Ok(Layout {
        xr,
        yr,
        x: Ticked {
            inner: (xr.0..xr.1).into(),
            bold: xb,
            light: xl,
        },
        y: Ticked {
            inner: (yr.0..yr.1).into(),
            bold: yb,
            light: yl,
        },
        xstep,
        ystep,
        legend_w,
        height,
        x_area,
        y_area,
        x_desc: fit(&chart.x.label, x_room)?,
        y_desc: fit(&chart.y.label, f64::from(height - x_area) - 30.0)?,
    })
}

/// Draws `chart`; `what` names it in errors.
pub fn render(chart: &Chart, what: &str) -> Result<Rendered, ReportError> {
    font::register();
    let err = plot_err(what);
    let l = layout(chart, what)?;
    let mut svg = String::new();
    let counted = {
        let backend = SVGBackend::with_string(&mut svg, (chart.width, l.height));
        let root = backend.into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let (plot_area, legend_area) = root.split_horizontally(chart.width - l.legend_w);
        let mut cc = ChartBuilder::on(&plot_area)
            .margin_top(14)
            .margin_right(28)
            .margin_left(6)
            .margin_bottom(6)
            .x_label_area_size(l.x_area)
            .y_label_area_size(l.y_area)
            .build_cartesian_2d(l.x, l.y)
            .map_err(&err)?;
        let fx = |v: &f64| chart.x.tick_label(*v, l.xstep);
        let fy = |v: &f64| chart.y.tick_label(*v, l.ystep);
        cc.configure_mesh()
            .x_desc(chart.x.label.as_str())
            .x_label_formatter(&fx)
            .y_label_formatter(&fy)
            .label_style(text(TICK_PX))
            .axis_desc_style(l.x_desc)
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
            .axis_desc_style(l.y_desc)
            .draw()
            .map_err(&err)?;
        let rect = (l.xr.0, l.xr.1, l.yr.0, l.yr.1);
        let counted = draw::data(&mut cc, chart, rect).map_err(&err)?;
        if chart.legend {
            svg_legend::draw(&legend_area, chart, &text(LEGEND_PX)).map_err(&err)?;
        }
        root.present().map_err(&err)?;
        counted
    };
    Ok(Rendered {
        svg: responsive(svg, what),
        markers: counted.markers,
        not_shown: counted.not_shown,
        lines_outside: counted.lines_outside,
    })
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
