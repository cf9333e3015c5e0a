//! Series styles: every algorithm gets one colour and one marker shape, the same in every
//! panel of every page whatever the op — each algorithm's [`Look`] in [`LOOKS`], the one place
//! that says how an algorithm is drawn (the registry names no presentation), every shape
//! distinct. Where one panel holds two series of one algorithm (both ops, or a GPU kernel and
//! its CPU twin), the second keeps the colour and takes the open variant of the shape
//! ([`second_series`]); its legend names it.

use analysis::Algorithm;
use plotters::style::RGBColor;

/// How the report draws an algorithm: its colour and marker shape; `second` is a further
/// colour the palette offers to series that are no algorithm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    pub color: [u8; 3],
    pub second: [u8; 3],
    pub marker: Shape,
}

/// Every algorithm's look, by its registry name.
pub const LOOKS: &[(&str, Look)] = &[
    (
        "sequential",
        Look {
            color: [0x00, 0x72, 0xB2],
            second: [0x88, 0x22, 0x55],
            marker: Shape::Circle,
        },
    ),
    (
        "parallel",
        Look {
            color: [0xE6, 0x9F, 0x00],
            second: [0x56, 0xB4, 0xE9],
            marker: Shape::Cross,
        },
    ),
    (
        "vectorial",
        Look {
            color: [0x00, 0x9E, 0x73],
            second: [0xD5, 0x5E, 0x00],
            marker: Shape::Triangle,
        },
    ),
    (
        "vectorial-seqscan",
        Look {
            color: [0xCC, 0x79, 0xA7],
            second: [0x55, 0x55, 0x55],
            marker: Shape::Diamond,
        },
    ),
    (
        "vectorial-chained",
        Look {
            color: [0x44, 0xAA, 0x99],
            second: [0x99, 0x99, 0x33],
            marker: Shape::Square,
        },
    ),
    (
        "vectorial-compensated",
        Look {
            color: [0x33, 0x22, 0x88],
            second: [0x11, 0x77, 0x33],
            marker: Shape::TriangleDown,
        },
    ),
    (
        "contraction",
        Look {
            color: [0xAA, 0x44, 0x99],
            second: [0xEE, 0x66, 0x77],
            marker: Shape::OpenSquare,
        },
    ),
    (
        "vectorial-exact",
        Look {
            color: [0x11, 0x11, 0x11],
            second: [0x99, 0x44, 0x00],
            marker: Shape::Plus,
        },
    ),
];

/// The look of a registry algorithm.
pub fn look(a: Algorithm) -> Look {
    LOOKS
        .iter()
        .find(|(name, _)| *name == a.name())
        .map(|(_, look)| *look)
        .expect("every algorithm of the registry has a look (tests: every_algorithm_has_a_look)")
}

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

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// The style of an algorithm: its own look from the registry, whatever the op; `extra`
/// numbers algorithms the registry does not know (another program's, in a results file), in
/// the order the caller met them, which cycle through the palette after the registry's.
pub fn series_style(algorithm: &str, extra: usize) -> SeriesStyle {
    if let Ok(a) = algorithm.parse::<Algorithm>() {
        let look = look(a);
        return SeriesStyle {
            color: rgb(look.color),
            shape: look.marker,
        };
    }
    // The registry's second colours, reused: they cycle over the algorithms, the shapes over
    // 6, so (colour, shape) pairs repeat only after the least common multiple.
    let a = Algorithm::ALL.len() + extra;
    let look = look(Algorithm::ALL[a % Algorithm::ALL.len()]);
    SeriesStyle {
        color: rgb(look.second),
        shape: FILLED[a % FILLED.len()],
    }
}

/// The second series of one algorithm in a panel (its leaffix beside its rootfix, its CPU
/// twin beside its kernel): the same colour, the open variant of the shape — or, for a shape
/// drawn as an outline already (a cross, a plus, an open shape), the same shape in a lighter
/// tint: the cross's "open variant" would be the plus, another algorithm's marker.
pub fn second_series(st: SeriesStyle) -> SeriesStyle {
    let open = open_variant(st.shape);
    if open == st.shape || st.shape == Shape::Cross {
        SeriesStyle {
            color: lighter(st.color, 0.5),
            shape: st.shape,
        }
    } else {
        SeriesStyle {
            color: st.color,
            shape: open,
        }
    }
}

/// Styles for a list of (op, algorithm) keys: each algorithm's own, whatever the op.
pub fn styles_for(keys: &[(String, String)]) -> Vec<SeriesStyle> {
    let mut unknown: Vec<&str> = Vec::new();
    keys.iter()
        .map(|(_, algo)| {
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
            series_style(algo, extra)
        })
        .collect()
}

/// Reference lines.
pub const LINE_U_KAPPA: RGBColor = RGBColor(0x44, 0x44, 0x44);
pub const LINE_BOUND: RGBColor = RGBColor(0xB2, 0x18, 0x2B);
pub const LINE_PROB: RGBColor = RGBColor(0x21, 0x66, 0xAC);
/// The Pareto front and the ring around the answer.
pub const LINE_FRONT: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// The `i`-th filled marker shape, cycling (a series' marker where colour alone is not enough).
pub fn filled_shape(i: usize) -> Shape {
    FILLED[i % FILLED.len()]
}

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

/// The `i`-th colour of the report's palette — the registry's looks, every algorithm's
/// colour then every second colour — cycling.
pub fn palette(i: usize) -> RGBColor {
    let k = Algorithm::ALL.len();
    let look = look(Algorithm::ALL[i % k]);
    if (i / k).is_multiple_of(2) {
        rgb(look.color)
    } else {
        rgb(look.second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_has_a_look() {
        for a in Algorithm::ALL {
            assert!(LOOKS.iter().any(|(name, _)| *name == a.name()), "{a:?}");
        }
        for (name, _) in LOOKS {
            assert!(
                name.parse::<Algorithm>().is_ok(),
                "{name} is in no registry"
            );
        }
    }

    #[test]
    fn every_algorithm_looks_unlike_every_other_and_the_same_in_both_ops() {
        for (i, (a, x)) in LOOKS.iter().enumerate() {
            for (b, y) in &LOOKS[i + 1..] {
                assert_ne!(x.marker, y.marker, "{a} and {b} share a marker");
                assert_ne!(x.color, y.color, "{a} and {b} share a colour");
            }
        }
        let keys: Vec<(String, String)> = ["rootfix", "leaffix"]
            .iter()
            .flat_map(|op| LOOKS.iter().map(|(a, _)| (op.to_string(), a.to_string())))
            .collect();
        let styles = styles_for(&keys);
        let k = LOOKS.len();
        assert_eq!(styles[..k], styles[k..]);
        for st in &styles[..k] {
            assert_ne!(second_series(*st), *st);
        }
    }
}
