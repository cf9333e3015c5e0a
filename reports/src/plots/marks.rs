//! What plotters needs to draw this project's axes and markers: an axis whose ticks are the
//! given values, and the marker shapes of the series styles as plotters elements.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;

/// A linear f64 axis whose ticks are exactly the given values (bold: labelled grid lines,
/// light: minor grid lines).
pub struct Ticked {
    pub(super) inner: RangedCoordf64,
    pub(super) bold: Vec<f64>,
    pub(super) light: Vec<f64>,
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

pub(super) type Coord = Ticked;

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
