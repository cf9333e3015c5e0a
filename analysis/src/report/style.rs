//! Series styles: every (op, algorithm) pair gets its own colour and its own marker shape, the
//! same in every figure of every report. The shape family follows the algorithm (circle,
//! cross, triangle, diamond, …) and the op picks the filled or open variant, so sequential and
//! parallel — which agree bit for bit — stay visible on top of each other.

use crate::Algorithm;
use plotters::style::RGBColor;

/// A marker shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Circle,
    OpenCircle,
    Cross,
    Plus,
    Triangle,
    OpenTriangle,
    Diamond,
    OpenDiamond,
    Square,
    OpenSquare,
    TriangleDown,
    OpenTriangleDown,
}

/// Colour and marker of one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesStyle {
    pub color: RGBColor,
    pub shape: Shape,
}

/// Colourblind-safe colours (Okabe–Ito and Tol), one per (op index, algorithm index).
const ROOTFIX_COLORS: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x44, 0xAA, 0x99), // teal
    RGBColor(0x33, 0x22, 0x88), // indigo
    RGBColor(0xAA, 0x44, 0x99), // purple
    RGBColor(0x66, 0x66, 0x00), // dark olive
];
const LEAFFIX_COLORS: [RGBColor; 8] = [
    RGBColor(0x88, 0x22, 0x55), // wine
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x55, 0x55, 0x55), // dark grey
    RGBColor(0x99, 0x99, 0x33), // olive
    RGBColor(0x11, 0x77, 0x33), // green
    RGBColor(0xEE, 0x66, 0x77), // rose
    RGBColor(0x00, 0x44, 0x88), // dark blue
];

const FILLED: [Shape; 6] = [
    Shape::Circle,
    Shape::Cross,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Square,
    Shape::TriangleDown,
];
const OPEN: [Shape; 6] = [
    Shape::OpenCircle,
    Shape::Plus,
    Shape::OpenTriangle,
    Shape::OpenDiamond,
    Shape::OpenSquare,
    Shape::OpenTriangleDown,
];

/// The style of (op, algorithm): the algorithm's own look from the registry; `extra` numbers
/// algorithms the registry does not know (another program's, in a results file), in the order
/// the caller met them, which cycle through the palette after the registry's.
pub fn series_style(op: &str, algorithm: &str, extra: usize) -> SeriesStyle {
    let rgb = |c: [u8; 3]| RGBColor(c[0], c[1], c[2]);
    if let Ok(a) = algorithm.parse::<Algorithm>() {
        let look = a.descriptor().look;
        return if op == "leaffix" {
            SeriesStyle {
                color: rgb(look.leaffix),
                shape: open_variant(look.marker),
            }
        } else {
            SeriesStyle {
                color: rgb(look.rootfix),
                shape: look.marker,
            }
        };
    }
    // Colours cycle over 8, shapes over 6: (colour, shape) pairs repeat only after 24.
    let a = Algorithm::ALL.len() + extra;
    let (c, m) = (a % ROOTFIX_COLORS.len(), a % FILLED.len());
    if op == "leaffix" {
        SeriesStyle {
            color: LEAFFIX_COLORS[c],
            shape: OPEN[m],
        }
    } else {
        SeriesStyle {
            color: ROOTFIX_COLORS[c],
            shape: FILLED[m],
        }
    }
}

/// Styles for a list of (op, algorithm) keys.
pub fn styles_for(keys: &[(String, String)]) -> Vec<SeriesStyle> {
    let mut unknown: Vec<&str> = Vec::new();
    keys.iter()
        .map(|(op, algo)| {
            let extra = if algo.parse::<Algorithm>().is_ok() {
                0
            } else {
                match unknown.iter().position(|u| *u == algo) {
                    Some(i) => i,
                    None => {
                        unknown.push(algo);
                        unknown.len() - 1
                    }
                }
            };
            series_style(op, algo, extra)
        })
        .collect()
}

/// Reference lines.
pub const LINE_U_KAPPA: RGBColor = RGBColor(0x44, 0x44, 0x44);
pub const LINE_BOUND: RGBColor = RGBColor(0xB2, 0x18, 0x2B);
pub const LINE_PROB: RGBColor = RGBColor(0x21, 0x66, 0xAC);
/// A band that spans several series (their bounds' range).
pub const BAND_GREY: RGBColor = RGBColor(0x70, 0x70, 0x70);

/// The open (outline) variant of a filled marker shape; open shapes stay as they are.
pub fn open_variant(shape: Shape) -> Shape {
    FILLED
        .iter()
        .position(|s| *s == shape)
        .map_or(shape, |i| OPEN[i])
}

/// `color` mixed with white: `share` of the colour, the rest white (lighter bars).
pub fn lighter(color: RGBColor, share: f64) -> RGBColor {
    let mix = |c: u8| (f64::from(c) * share + 255.0 * (1.0 - share)).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// The `i`-th colour of the report's palette (the rootfix then the leaffix colours), cycling.
pub fn palette(i: usize) -> RGBColor {
    let all = ROOTFIX_COLORS.len() + LEAFFIX_COLORS.len();
    let i = i % all;
    if i < ROOTFIX_COLORS.len() {
        ROOTFIX_COLORS[i]
    } else {
        LEAFFIX_COLORS[i - ROOTFIX_COLORS.len()]
    }
}

/// The `i`-th filled marker shape, cycling.
pub fn filled_shape(i: usize) -> Shape {
    FILLED[i % FILLED.len()]
}
