//! Space-filling curves: a bijection between the positions 0 … side² − 1 of a linear order
//! and the cells of a side × side grid of processors (seed 002 §II-B, docs/design.md §12.2).
//!
//! - [`Curve::RowMajor`]: row after row, any side (a line of the order far from its
//!   predecessor a row up: not distance-bound);
//! - [`Curve::Morton`] (Z-order): the bits of the position interleaved, x from the even bits;
//!   side a power of two; not distance-bound (its diagonals), but energy-bound with light-first
//!   order (the seed's Theorem 2);
//! - [`Curve::Hilbert`]: side a power of two; consecutive positions are neighbours, and
//!   |i − j| ≤ k puts the cells within c·√k (distance-bound, Theorem 1);
//! - [`Curve::Peano`]: the 3 × 3 serpentine, recursively, side a power of three; distance-bound
//!   with consecutive positions neighbours too.
//!
//! No tree types here: a curve only maps numbers to cells.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A cell of the grid: column `x`, row `y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Point {
    pub x: u32,
    pub y: u32,
}

impl Point {
    /// The Manhattan distance: the energy of a one-word message between the two cells.
    #[inline]
    pub fn manhattan(self, other: Point) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y)
    }
}

/// Why a grid, a position or a cell is not valid for a curve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurveError {
    #[error("the {curve} curve needs a side that is a power of {base} (got {side})")]
    Side { curve: Curve, base: u32, side: u32 },
    #[error("{cells} cells need a grid side above 65536, the largest the counts support")]
    TooLarge { cells: u64 },
    #[error("position {index} is outside the {cells} cells of the grid")]
    Index { index: u64, cells: u64 },
    #[error("cell ({x}, {y}) is outside the {side} × {side} grid")]
    Cell { x: u32, y: u32, side: u32 },
}

/// The largest grid side: coordinates are stored in 16 bits by the counts (`Placement`), and
/// 65 536² cells hold every tree of 2³¹ vertices.
pub const MAX_SIDE: u32 = 1 << 16;

/// A space-filling curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Curve {
    RowMajor,
    /// Z-order.
    #[serde(rename = "z")]
    Morton,
    Hilbert,
    Peano,
}

impl Curve {
    pub const ALL: [Curve; 4] = [Curve::RowMajor, Curve::Morton, Curve::Hilbert, Curve::Peano];

    /// The name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Curve::RowMajor => "row-major",
            Curve::Morton => "z",
            Curve::Hilbert => "hilbert",
            Curve::Peano => "peano",
        }
    }

    /// The base the side must be a power of (`None`: any side).
    pub fn base(self) -> Option<u32> {
        match self {
            Curve::RowMajor => None,
            Curve::Morton | Curve::Hilbert => Some(2),
            Curve::Peano => Some(3),
        }
    }

    /// The largest order (side = base^order) whose coordinates fit [`MAX_SIDE`].
    pub fn max_order(self) -> u32 {
        match self.base() {
            None => 1,
            Some(b) => {
                let mut order = 0;
                while (b as u64).pow(order + 1) <= MAX_SIDE as u64 {
                    order += 1;
                }
                order
            }
        }
    }
}

impl fmt::Display for Curve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Curve {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "morton" | "z-order" => Ok(Curve::Morton),
            _ => Curve::ALL
                .into_iter()
                .find(|c| c.name() == s)
                .ok_or_else(|| {
                    format!("unknown curve '{s}' (expected row-major, z, hilbert or peano)")
                }),
        }
    }
}

/// A curve on a square grid of a given side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    curve: Curve,
    side: u32,
    /// side = base^order for the recursive curves; 0 for row-major.
    order: u32,
}

impl Grid {
    /// The curve on a `side` × `side` grid: any side for row-major, else a power of the base.
    pub fn with_side(curve: Curve, side: u32) -> Result<Grid, CurveError> {
        if side == 0 || side > MAX_SIDE {
            return Err(CurveError::TooLarge {
                cells: side as u64 * side as u64,
            });
        }
        let order = match curve.base() {
            None => 0,
            Some(b) => {
                let (mut s, mut order) = (1u32, 0);
                while s < side {
                    s *= b;
                    order += 1;
                }
                if s != side {
                    return Err(CurveError::Side {
                        curve,
                        base: b,
                        side,
                    });
                }
                order
            }
        };
        Ok(Grid { curve, side, order })
    }

    /// The smallest grid of the curve with at least `cells` cells (row-major: side ⌈√cells⌉).
    pub fn for_cells(curve: Curve, cells: u64) -> Result<Grid, CurveError> {
        let cells = cells.max(1);
        let mut side = match curve.base() {
            None => (cells as f64).sqrt().ceil() as u64,
            Some(b) => {
                let mut s = 1u64;
                while s * s < cells {
                    s *= b as u64;
                }
                s
            }
        };
        // sqrt may round either way near a square.
        while side > 1 && curve.base().is_none() && (side - 1) * (side - 1) >= cells {
            side -= 1;
        }
        while side * side < cells {
            side += 1;
        }
        if side > MAX_SIDE as u64 {
            return Err(CurveError::TooLarge { cells });
        }
        Grid::with_side(curve, side as u32)
    }

    pub fn curve(&self) -> Curve {
        self.curve
    }
    pub fn side(&self) -> u32 {
        self.side
    }
    /// side = base^order (0 for row-major).
    pub fn order(&self) -> u32 {
        self.order
    }
    pub fn cells(&self) -> u64 {
        self.side as u64 * self.side as u64
    }

    /// The cell of position `index`.
    pub fn point(&self, index: u64) -> Result<Point, CurveError> {
        if index >= self.cells() {
            return Err(CurveError::Index {
                index,
                cells: self.cells(),
            });
        }
        Ok(self.point_unchecked(index))
    }

    /// The position of cell `p`.
    pub fn index(&self, p: Point) -> Result<u64, CurveError> {
        if p.x >= self.side || p.y >= self.side {
            return Err(CurveError::Cell {
                x: p.x,
                y: p.y,
                side: self.side,
            });
        }
        Ok(match self.curve {
            Curve::RowMajor => p.y as u64 * self.side as u64 + p.x as u64,
            Curve::Morton => spread(p.x) | spread(p.y) << 1,
            Curve::Hilbert => hilbert_index(self.side, p),
            Curve::Peano => peano_index(self.order, p),
        })
    }

    /// The cell of position `index` < [`Grid::cells`].
    #[inline]
    pub fn point_unchecked(&self, index: u64) -> Point {
        match self.curve {
            Curve::RowMajor => Point {
                x: (index % self.side as u64) as u32,
                y: (index / self.side as u64) as u32,
            },
            Curve::Morton => Point {
                x: compact(index),
                y: compact(index >> 1),
            },
            Curve::Hilbert => hilbert_point(self.side, index),
            Curve::Peano => peano_point(self.order, index),
        }
    }
}

/// The bits of `v` at the even positions of the result.
fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The even bits of `v`, packed (the inverse of [`spread`]).
fn compact(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF;
    x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
    (x | x >> 16) as u32
}

/// Rotates / reflects a quadrant of side `s` so that the sub-curve starts and ends where the
/// Hilbert curve enters and leaves it.
#[inline]
fn hilbert_rotate(s: u32, p: &mut Point, rx: u32, ry: u32) {
    if ry == 0 {
        if rx == 1 {
            p.x = s - 1 - p.x;
            p.y = s - 1 - p.y;
        }
        std::mem::swap(&mut p.x, &mut p.y);
    }
}

fn hilbert_point(side: u32, index: u64) -> Point {
    let mut p = Point { x: 0, y: 0 };
    let mut t = index;
    let mut s = 1;
    while s < side {
        let rx = (1 & (t / 2)) as u32;
        let ry = (1 & (t ^ rx as u64)) as u32;
        hilbert_rotate(s, &mut p, rx, ry);
        p.x += s * rx;
        p.y += s * ry;
        t /= 4;
        s *= 2;
    }
    p
}

fn hilbert_index(side: u32, mut p: Point) -> u64 {
    let mut d = 0u64;
    let mut s = side / 2;
    while s > 0 {
        let rx = u32::from(p.x & s > 0);
        let ry = u32::from(p.y & s > 0);
        d += s as u64 * s as u64 * ((3 * rx) ^ ry) as u64;
        hilbert_rotate(side, &mut p, rx, ry);
        s /= 2;
    }
    d
}

/// Peano: the position's base-3 digits, most significant first, in pairs (a, b): a picks the
/// column of the 3 × 3 block, b the row, each reflected (d ↦ 2 − d) when the digits of the
/// other coordinate above it sum to an odd number — the serpentine that keeps consecutive
/// positions adjacent (a block in an odd column runs downwards, one in an odd row leftwards).
fn peano_point(order: u32, index: u64) -> Point {
    let mut digits = index;
    let top = 9u64.pow(order.saturating_sub(1));
    let (mut xpar, mut ypar) = (0u32, 0u32);
    let (mut x, mut y) = (0u32, 0u32);
    let mut unit = top;
    for _ in 0..order {
        let pair = digits / unit;
        digits %= unit;
        unit /= 9;
        let (a, b) = ((pair / 3) as u32, (pair % 3) as u32);
        ypar += a;
        let xd = if xpar % 2 == 1 { 2 - a } else { a };
        let yd = if ypar % 2 == 1 { 2 - b } else { b };
        xpar += b;
        x = 3 * x + xd;
        y = 3 * y + yd;
    }
    Point { x, y }
}

fn peano_index(order: u32, p: Point) -> u64 {
    let (mut xpar, mut ypar) = (0u32, 0u32);
    let mut d = 0u64;
    let mut unit = 3u32.pow(order.saturating_sub(1));
    for _ in 0..order {
        let (xd, yd) = ((p.x / unit) % 3, (p.y / unit) % 3);
        unit /= 3;
        let a = if xpar % 2 == 1 { 2 - xd } else { xd };
        ypar += a;
        let b = if ypar % 2 == 1 { 2 - yd } else { yd };
        xpar += b;
        d = 9 * d + 3 * a as u64 + b as u64;
    }
    d
}

/// The cells of positions 0 … count − 1 of a grid, coordinates in 16 bits: what the counts
/// read for every message (`crate::spatial::messages`).
#[derive(Debug, Clone)]
pub struct Placement {
    grid: Grid,
    cells: Vec<[u16; 2]>,
}

impl Placement {
    /// The smallest grid of `curve` holding `count` positions, and their cells.
    pub fn new(curve: Curve, count: usize) -> Result<Placement, CurveError> {
        let grid = Grid::for_cells(curve, count as u64)?;
        let cells = (0..count)
            .into_par_iter()
            .map(|i| {
                let p = grid.point_unchecked(i as u64);
                [p.x as u16, p.y as u16]
            })
            .collect();
        Ok(Placement { grid, cells })
    }

    pub fn grid(&self) -> Grid {
        self.grid
    }
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// The cells, by position.
    pub fn cells(&self) -> &[[u16; 2]] {
        &self.cells
    }
    /// The directed links of the grid between two cells that hold a position (each way
    /// counted): the links a pattern on these processors can use at once.
    pub fn links(&self) -> u64 {
        let side = self.grid.side() as usize;
        let mut held = vec![false; side * side];
        for c in &self.cells {
            held[c[1] as usize * side + c[0] as usize] = true;
        }
        let at = |x: usize, y: usize| held[y * side + x];
        let mut links = 0u64;
        for y in 0..side {
            for x in 0..side {
                if at(x, y) {
                    links += u64::from(x + 1 < side && at(x + 1, y));
                    links += u64::from(y + 1 < side && at(x, y + 1));
                }
            }
        }
        2 * links
    }

    /// The Manhattan distance between positions `i` and `j`.
    #[inline]
    pub fn distance(&self, i: u32, j: u32) -> u32 {
        let (a, b) = (self.cells[i as usize], self.cells[j as usize]);
        a[0].abs_diff(b[0]) as u32 + a[1].abs_diff(b[1]) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every curve is a bijection of the full grid: index(point(i)) = i, every cell once.
    #[test]
    fn bijection_on_full_grids() {
        for curve in Curve::ALL {
            let sides: &[u32] = match curve {
                Curve::RowMajor => &[1, 2, 3, 7, 10, 64],
                Curve::Morton | Curve::Hilbert => &[1, 2, 4, 8, 32, 64],
                Curve::Peano => &[1, 3, 9, 27, 81],
            };
            for &side in sides {
                let g = Grid::with_side(curve, side).unwrap();
                let mut seen = vec![false; g.cells() as usize];
                for i in 0..g.cells() {
                    let p = g.point(i).unwrap();
                    assert!(p.x < side && p.y < side, "{curve} {side} {i}");
                    let cell = (p.y * side + p.x) as usize;
                    assert!(!seen[cell], "{curve} side {side}: cell {p:?} twice");
                    seen[cell] = true;
                    assert_eq!(g.index(p).unwrap(), i, "{curve} side {side}");
                }
            }
        }
    }

    /// Hilbert and Peano move one cell per position; Z and row-major do not.
    #[test]
    fn hilbert_and_peano_take_unit_steps() {
        for (curve, side) in [(Curve::Hilbert, 256), (Curve::Peano, 243)] {
            let g = Grid::with_side(curve, side).unwrap();
            for i in 1..g.cells() {
                let d = g.point(i - 1).unwrap().manhattan(g.point(i).unwrap());
                assert_eq!(d, 1, "{curve} side {side}, step {i}");
            }
        }
        for (curve, side) in [(Curve::Morton, 16), (Curve::RowMajor, 16)] {
            let g = Grid::with_side(curve, side).unwrap();
            let max = (1..g.cells())
                .map(|i| g.point(i - 1).unwrap().manhattan(g.point(i).unwrap()))
                .max();
            assert!(max > Some(1), "{curve}");
        }
    }

    /// The seed's Fig. 2 Z-order: upper left, upper right, lower left, lower right (x first).
    #[test]
    fn z_order_interleaves_x_first() {
        let g = Grid::with_side(Curve::Morton, 4).unwrap();
        let first: Vec<(u32, u32)> = (0..8)
            .map(|i| g.point(i).unwrap())
            .map(|p| (p.x, p.y))
            .collect();
        let want = [
            (0, 0),
            (1, 0),
            (0, 1),
            (1, 1),
            (2, 0),
            (3, 0),
            (2, 1),
            (3, 1),
        ];
        assert_eq!(first, want);
    }

    /// The constant c of "distance-bound" measured: the largest (distance between positions
    /// at most k apart) / √k over every k ≤ `k_max` and every pair of the whole grid.
    fn measured_c(g: &Grid, k_max: usize) -> f64 {
        let pts: Vec<Point> = (0..g.cells()).map(|i| g.point(i).unwrap()).collect();
        let (mut reach, mut c) = (0u32, 0f64);
        for k in 1..=k_max.min(pts.len() - 1) {
            // The farthest two positions exactly k apart; `reach` keeps the farthest ≤ k.
            let far = (0..pts.len() - k)
                .map(|i| pts[i].manhattan(pts[i + k]))
                .max();
            reach = reach.max(far.unwrap_or(0));
            c = c.max(reach as f64 / (k as f64).sqrt());
        }
        c
    }

    /// Distance-bound (seed §III-B): |i − j| ≤ k ⇒ distance ≤ c·√k. Over k ≤ 512: the
    /// constant does not grow with the grid, and Hilbert stays within 3; Z-order has no such
    /// c: its worst step of 1 is the diagonal between the grid's halves, of Manhattan length
    /// side. The figures of docs/design.md §12.2 (k ≤ 4096) are [`distance_bound_to_4096`]'s.
    #[test]
    fn distance_bound_with_c_measured() {
        let c = |curve, side| measured_c(&Grid::with_side(curve, side).unwrap(), 512);
        let (h64, h128) = (c(Curve::Hilbert, 64), c(Curve::Hilbert, 128));
        assert_eq!(h64, h128);
        assert!((2.8..=3.0).contains(&h128), "Hilbert c = {h128}");
        let (p81, p243) = (c(Curve::Peano, 81), c(Curve::Peano, 243));
        assert_eq!(p81, p243);
        assert!((2.8..=3.3).contains(&p81), "Peano c = {p81}");
        for side in [16, 64] {
            let z = measured_c(&Grid::with_side(Curve::Morton, side).unwrap(), 1);
            assert_eq!(z, side as f64, "Z side {side}");
        }
    }

    /// The constants docs/design.md §12.2 states, over k ≤ 4096: Hilbert c = 2.969 on
    /// 128 × 128 and 256 × 256 (approaching 3, the constant of the Manhattan metric, at
    /// k = 4^j), Peano c = 3.205 on 81 × 81 and 243 × 243 (about 6 · 10^8 distances, 1 s).
    #[test]
    fn distance_bound_to_4096() {
        let c = |curve, side| measured_c(&Grid::with_side(curve, side).unwrap(), 4096);
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        for side in [128, 256] {
            assert_eq!(round(c(Curve::Hilbert, side)), 2.969, "Hilbert {side}");
        }
        for side in [81, 243] {
            assert_eq!(round(c(Curve::Peano, side)), 3.205, "Peano {side}");
        }
    }

    #[test]
    fn sides_and_errors() {
        assert_eq!(Grid::for_cells(Curve::Hilbert, 5).unwrap().side(), 4);
        assert_eq!(Grid::for_cells(Curve::Hilbert, 16).unwrap().side(), 4);
        assert_eq!(Grid::for_cells(Curve::Peano, 10).unwrap().side(), 9);
        assert_eq!(Grid::for_cells(Curve::RowMajor, 10).unwrap().side(), 4);
        assert_eq!(Grid::for_cells(Curve::RowMajor, 9).unwrap().side(), 3);
        assert_eq!(Grid::for_cells(Curve::RowMajor, 1).unwrap().side(), 1);
        assert!(matches!(
            Grid::with_side(Curve::Hilbert, 6),
            Err(CurveError::Side { base: 2, .. })
        ));
        assert!(matches!(
            Grid::with_side(Curve::Peano, 4),
            Err(CurveError::Side { base: 3, .. })
        ));
        let g = Grid::with_side(Curve::Hilbert, 4).unwrap();
        assert!(matches!(g.point(16), Err(CurveError::Index { .. })));
        assert!(matches!(
            g.index(Point { x: 4, y: 0 }),
            Err(CurveError::Cell { .. })
        ));
        assert!(matches!(
            Grid::for_cells(Curve::Peano, 1 << 32),
            Err(CurveError::TooLarge { .. })
        ));
        assert_eq!(Curve::Hilbert.max_order(), 16);
        assert_eq!(Curve::Peano.max_order(), 10);
        for c in Curve::ALL {
            assert_eq!(c.name().parse::<Curve>().unwrap(), c);
        }
        assert!("spiral".parse::<Curve>().is_err());
    }

    /// Links: a full 4 × 4 grid has 2 · 4 · 3 = 24 undirected links, 48 directed; 5 positions
    /// of row-major on a 3 × 3 grid (a row of 3, then 2) have 2 + 1 + 2 = 5, 10 directed.
    #[test]
    fn links_between_held_cells() {
        assert_eq!(Placement::new(Curve::Hilbert, 16).unwrap().links(), 48);
        assert_eq!(Placement::new(Curve::RowMajor, 5).unwrap().links(), 10);
        assert_eq!(Placement::new(Curve::Peano, 1).unwrap().links(), 0);
    }
}
