//! Order statistics shared by every table, file and report that prints a median.

/// The median of `v` (reordered): for an even count the *lower* of the two middle elements
/// in the order of [`f64::total_cmp`] — always an element of `v`, never an average of two.
/// This is the one convention of every median the project computes (tightness, agreement
/// offsets, findings, GPU timings). None when `v` is empty.
pub fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mid = (v.len() - 1) / 2;
    Some(*v.select_nth_unstable_by(mid, f64::total_cmp).1)
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
