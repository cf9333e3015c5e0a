//! Order statistics shared by every table, file and report that prints a median.

/// The nearest-rank `p`-quantile of `v` (reordered): the element of rank ⌈p·len⌉ (at least
/// 1) in the order of [`f64::total_cmp`] — always an element of `v`. None when `v` is empty.
pub fn percentile(v: &mut [f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(*v.select_nth_unstable_by(rank - 1, f64::total_cmp).1)
}

/// The median of `v` (reordered): [`percentile`] at ½, so for an even count the *lower* of
/// the two middle elements — always an element of `v`, never an average of two. This is the
/// one convention of every median the project computes (tightness, agreement offsets,
/// findings, the report's tables, GPU timings). None when `v` is empty.
pub fn median(v: &mut [f64]) -> Option<f64> {
    percentile(v, 0.5)
}

/// ([`median`], max) of `v` (reordered), max in the order of [`f64::total_cmp`]; (0, 0) when
/// `v` is empty.
pub fn median_max(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mid = (v.len() - 1) / 2;
    let (_, &mut median, above) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let max = above
        .iter()
        .copied()
        .fold(median, |m, x| if x.total_cmp(&m).is_gt() { x } else { m });
    (median, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_middle_element() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.0));
        for len in 1..12 {
            let mut v: Vec<f64> = (0..len).rev().map(f64::from).collect();
            assert_eq!(median(&mut v), Some(f64::from((len - 1) / 2)), "{len}");
        }
        assert_eq!(percentile(&mut [5.0, 1.0, 3.0, 2.0, 4.0], 0.9), Some(5.0));
        assert_eq!(percentile(&mut [5.0, 1.0, 3.0, 2.0, 4.0], 0.0), Some(1.0));
        assert_eq!(median_max(&mut [4.0, 1.0, 2.0, 3.0]), (2.0, 4.0));
        assert_eq!(median_max(&mut [5.0]), (5.0, 5.0));
        assert_eq!(median_max(&mut []), (0.0, 0.0));
        // total_cmp: −0 below +0.
        assert_eq!(
            median(&mut [0.0, -0.0]).unwrap().to_bits(),
            (-0.0f64).to_bits()
        );
    }
}
