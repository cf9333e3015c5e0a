//! Drawing a chart's data inside its plot area: bands behind, then bars, reference lines and
//! markers (each marker once per pixel), all in page coordinates and clipped to the area.

use super::geometry::clip_polyline;
use super::marks::Coord;
use super::{Band, Chart, Dash, Scale};
use crate::style::{SeriesStyle, Shape};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::collections::HashSet;

type Area<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Coord, Coord>>;
type DrawError = DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>;

/// What the data drawing counted.
pub(super) struct Counted {
    pub markers: usize,
    pub not_shown: usize,
    pub lines_outside: Vec<String>,
}

/// Bands, bars, reference lines and markers of `chart` in the plot rectangle `rect`
/// (x0, x1, y0, y1, page coordinates).
pub(super) fn data(
    cc: &mut Area<'_, '_>,
    chart: &Chart,
    rect: (f64, f64, f64, f64),
) -> Result<Counted, DrawError> {
    let mut counted = Counted {
        markers: 0,
        not_shown: 0,
        lines_outside: Vec::new(),
    };
    for band in &chart.bands {
        draw_band(cc, chart, band, rect)?;
    }
    draw_bars(cc, chart, (rect.2, rect.3))?;
    for line in &chart.lines {
        let pts: Vec<(f64, f64)> = line
            .points
            .iter()
            .map(|p| (chart.x.to_page(p.0), chart.y.to_page(p.1)))
            .collect();
        let parts = clip_polyline(&pts, rect);
        if parts.is_empty() {
            counted.lines_outside.push(line.label.clone());
        }
        for part in parts {
            draw_path(cc, part, line.color, line.dash)?;
        }
    }
    let (x0, x1, y0, y1) = rect;
    let inside = |p: &(f64, f64)| {
        p.0.is_finite()
            && p.1.is_finite()
            && p.0 >= x0.min(x1)
            && p.0 <= x0.max(x1)
            && p.1 >= y0.min(y1)
            && p.1 <= y0.max(y1)
    };
    for s in &chart.series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (chart.x.to_page(p.0), chart.y.to_page(p.1)))
            .collect();
        if s.connect {
            for part in clip_polyline(&pts, rect) {
                draw_path(cc, part, s.style.color, Dash::Solid)?;
            }
        }
        let mut seen = HashSet::new();
        let mut keep = Vec::new();
        for p in pts {
            if !inside(&p) {
                counted.not_shown += 1;
                continue;
            }
            if seen.insert(cc.backend_coord(&p)) {
                keep.push(p);
            }
        }
        counted.markers += keep.len();
        let (style, size) = (s.style, s.size);
        markers!(style, size, s.opacity, keep.into_iter(), |it| cc
            .draw_series(it)
            .map(|_| ()))?;
    }
    Ok(counted)
}

pub(super) fn line_style(color: RGBColor) -> ShapeStyle {
    color.stroke_width(2)
}

/// The bars of `chart` (x: category index; y: page coordinates, from the bottom of the plot
/// or from 0 on a linear axis), with their whiskers.
fn draw_bars(cc: &mut Area<'_, '_>, chart: &Chart, yr: (f64, f64)) -> Result<(), DrawError> {
    let groups = chart.bars.len();
    if groups == 0 {
        return Ok(());
    }
    let base = match chart.y.scale {
        Scale::Log10 | Scale::Log2 => yr.0,
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
    cc: &mut Area<'_, '_>,
    chart: &Chart,
    band: &Band,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) -> Result<(), DrawError> {
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
    cc: &mut Area<'_, '_>,
    part: Vec<(f64, f64)>,
    color: RGBColor,
    dash: Dash,
) -> Result<(), DrawError> {
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
