//! Axis ticks, ranges and clipping in page coordinates (log10 of the data on log axes).

use super::Axis;
use super::Scale;
use crate::fmt::{pow2_label, pow10_label};

/// Where a log₂ axis draws the value 0 (a count of none: 0 ulps), below 2⁰ and labelled `0`.
pub const LOG2_ZERO: f64 = -2.0;

/// Ticks in page coordinates: (bold with labels, light without).
pub(super) fn ticks(scale: Scale, lo: f64, hi: f64, max_labels: usize) -> (Vec<f64>, Vec<f64>) {
    match scale {
        Scale::Log10 => {
            let (a, b) = (lo.ceil() as i32, hi.floor() as i32);
            let decades = (b - a + 1).max(1) as usize;
            let step = decades.div_ceil(max_labels.max(1)).max(1) as i32;
            let bold: Vec<f64> = (a..=b)
                .filter(|k| k.rem_euclid(step) == 0)
                .map(f64::from)
                .collect();
            let mut light = Vec::new();
            for k in (lo.floor() as i32)..=(hi.ceil() as i32) {
                if step == 1 {
                    for m in 2..=9 {
                        let v = f64::from(k) + f64::from(m).log10();
                        if v > lo && v < hi {
                            light.push(v);
                        }
                    }
                } else if k.rem_euclid(step) != 0 && f64::from(k) > lo && f64::from(k) < hi {
                    light.push(f64::from(k));
                }
            }
            (bold, light)
        }
        Scale::Log2 => {
            // Powers of two in steps of 1, 2, 4, 8 … binades; the zero row when in range.
            let span = (hi - lo).max(1.0);
            let mut step = 1.0;
            while span / step > max_labels.max(1) as f64 {
                step *= 2.0;
            }
            let mut first = (lo.max(0.0) / step).ceil() as i64;
            let last = (hi / step).floor() as i64;
            let zero = (lo..=hi).contains(&LOG2_ZERO);
            // 2⁰ sits close above the zero row: labelled only where the steps are as close.
            if zero && first == 0 && step > -LOG2_ZERO {
                first = 1;
            }
            let mut bold: Vec<f64> = (first..=last).map(|i| i as f64 * step).collect();
            if zero {
                bold.insert(0, LOG2_ZERO);
            }
            (bold, vec![])
        }
        Scale::Linear => {
            let step = nice_step((hi - lo) / max_labels.max(1) as f64);
            let first = (lo / step).ceil() as i64;
            let last = (hi / step).floor() as i64;
            let bold = (first..=last).map(|i| i as f64 * step).collect();
            (bold, vec![])
        }
    }
}

fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * p
}

pub(super) fn tick_label(scale: Scale, v: f64, step: f64) -> String {
    match scale {
        Scale::Log10 => pow10_label(v.round() as i32),
        Scale::Log2 if v == LOG2_ZERO => "0".into(),
        Scale::Log2 => pow2_label(v.round() as i32),
        Scale::Linear => {
            let decimals = if step >= 1.0 {
                0
            } else {
                (-step.log10().floor()) as usize
            };
            let s = format!("{v:.decimals$}");
            if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
                s[1..].to_string()
            } else {
                s.replace('-', "−")
            }
        }
    }
}

/// Page-space range of an axis: the fixed range, or the data's (whole decades for log axes).
pub(super) fn page_range(axis: &Axis, values: impl Iterator<Item = f64>) -> (f64, f64) {
    if let Some((lo, hi)) = axis.range {
        let (lo, hi) = (axis.to_page(lo), axis.to_page(hi));
        // The zero row of a log₂ axis and its top tick keep a margin for their markers.
        return match axis.scale {
            Scale::Log2 => (lo.min(LOG2_ZERO) - 0.5, hi + 0.5),
            _ => (lo, hi),
        };
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.map(|v| axis.to_page(v)).filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    match axis.scale {
        Scale::Log10 => log_page_range(lo, hi),
        Scale::Log2 => (lo.min(0.0).floor() - 0.5, hi.ceil() + 0.5),
        Scale::Linear => {
            if lo == hi {
                (lo - 1.0, hi + 1.0)
            } else {
                let pad = (hi - lo) * 0.04;
                (lo - pad, hi + pad)
            }
        }
    }
}

/// Whole decades around [lo, hi] (log10 units), widened by a little where the data sit on a
/// decade, so no marker lies on the axis line.
pub fn log_page_range(lo: f64, hi: f64) -> (f64, f64) {
    // A marker's radius is a few pixels: ~3 % of the axis keeps it whole on either end.
    let pad = (0.03 * (hi - lo)).max(0.12);
    let l = lo.floor().min(lo - pad);
    let h = hi.ceil().max(hi + pad);
    (l, h)
}

/// Liang–Barsky: the part of segment p–q inside the rectangle.
fn clip(
    p: (f64, f64),
    q: (f64, f64),
    (x0, x1, y0, y1): (f64, f64, f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (num, den) in [
        (p.0 - x0, -dx),
        (x1 - p.0, dx),
        (p.1 - y0, -dy),
        (y1 - p.1, dy),
    ] {
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    Some((
        (p.0 + t0 * dx, p.1 + t0 * dy),
        (p.0 + t1 * dx, p.1 + t1 * dy),
    ))
}

/// Polylines of `pts` (page coordinates) clipped to the rectangle.
pub(super) fn clip_polyline(
    pts: &[(f64, f64)],
    rect: (f64, f64, f64, f64),
) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    for w in pts.windows(2) {
        if !(w[0].0.is_finite() && w[0].1.is_finite() && w[1].0.is_finite() && w[1].1.is_finite()) {
            if current.len() > 1 {
                out.push(std::mem::take(&mut current));
            }
            current.clear();
            continue;
        }
        match clip(w[0], w[1], rect) {
            Some((a, b)) => {
                if current.last() != Some(&a) {
                    if current.len() > 1 {
                        out.push(std::mem::take(&mut current));
                    }
                    current = vec![a];
                }
                current.push(b);
            }
            None => {
                if current.len() > 1 {
                    out.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() > 1 {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_integers() {
        let (bold, light) = ticks(Scale::Log10, -9.0, 3.0, 20);
        assert_eq!(bold, (-9..=3).map(f64::from).collect::<Vec<_>>());
        assert!(light.iter().all(|v| v.fract() != 0.0));
        let (bold, _) = ticks(Scale::Log10, -20.0, 20.0, 10);
        assert!(bold.len() <= 11 && bold.iter().all(|v| v.fract() == 0.0));
    }

    #[test]
    fn labels() {
        assert_eq!(tick_label(Scale::Log10, -6.0, 1.0), "10⁻⁶");
        assert_eq!(tick_label(Scale::Linear, 2.5, 0.5), "2.5");
        assert_eq!(tick_label(Scale::Linear, -0.0, 2.0), "0");
        assert_eq!(tick_label(Scale::Log2, 16.0, 4.0), "2¹⁶");
        assert_eq!(tick_label(Scale::Log2, LOG2_ZERO, 4.0), "0");
        let (bold, _) = ticks(Scale::Log2, LOG2_ZERO - 0.5, 40.0, 8);
        assert_eq!(bold, [LOG2_ZERO, 8.0, 16.0, 24.0, 32.0, 40.0]);
        let (bold, _) = ticks(Scale::Log2, LOG2_ZERO - 0.5, 6.0, 10);
        assert_eq!(bold, [LOG2_ZERO, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn clipping() {
        let r = (0.0, 1.0, 0.0, 1.0);
        assert_eq!(
            clip((-1.0, -1.0), (2.0, 2.0), r),
            Some(((0.0, 0.0), (1.0, 1.0)))
        );
        assert_eq!(clip((2.0, 0.0), (3.0, 1.0), r), None);
    }
}
