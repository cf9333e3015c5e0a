//! The legend a single chart draws inside its SVG: a column right of the plot, one row per
//! reference line, series and set of bars (small multiples leave their legends to the page).

use super::draw::line_style;
use super::{Chart, Dash, LEGEND_ROW, LEGEND_TOP};
use crate::style::{SeriesStyle, Shape};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawError = DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>;

/// Reference lines first, then the series, then the bars, one row each.
pub(super) fn draw(area: &Area<'_>, chart: &Chart, style: &TextStyle) -> Result<(), DrawError> {
    let x_mark = 16;
    let x_text = 38;
    let mut y = LEGEND_TOP;
    let anchor = style.pos(Pos::new(HPos::Left, VPos::Center));
    for line in &chart.lines {
        area.draw(&PathElement::new(
            vec![(x_mark - 12, y), (x_mark + 12, y)],
            line_style(line.color),
        ))?;
        if line.dash != Dash::Solid {
            // Gaps painted over the sample line show the dash pattern.
            let (on, off) = if line.dash == Dash::Dashed {
                (6, 4)
            } else {
                (2, 3)
            };
            let mut x = x_mark - 12 + on;
            while x < x_mark + 12 {
                area.draw(&Rectangle::new(
                    [(x, y - 2), ((x + off).min(x_mark + 12), y + 2)],
                    WHITE.filled(),
                ))?;
                x += on + off;
            }
        }
        area.draw_text(&line.label, &anchor, (x_text, y))?;
        y += LEGEND_ROW;
    }
    for s in &chart.series {
        if s.connect {
            area.draw(&PathElement::new(
                vec![(x_mark - 12, y), (x_mark + 12, y)],
                line_style(s.style.color),
            ))?;
        }
        markers!(
            s.style,
            s.size.max(4),
            s.opacity,
            std::iter::once((x_mark, y)),
            |it| {
                for e in it {
                    area.draw(&e)?;
                }
                Ok::<(), DrawError>(())
            }
        )?;
        area.draw_text(&s.label, &anchor, (x_text, y))?;
        y += LEGEND_ROW;
    }
    for b in &chart.bars {
        area.draw(&Rectangle::new(
            [(x_mark - 7, y - 7), (x_mark + 7, y + 7)],
            b.color.filled(),
        ))?;
        area.draw_text(&b.label, &anchor, (x_text, y))?;
        y += LEGEND_ROW;
    }
    Ok(())
}
