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
    if let Some([median, max]) = ranks_nonneg(v, [mid, v.len() - 1]) {
        return (median, max);
    }
    let (_, &mut median, above) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let max = above
        .iter()
        .copied()
        .fold(median, |m, x| if x.total_cmp(&m).is_gt() { x } else { m });
    (median, max)
}

/// Below this many values a selection is done by [`slice::select_nth_unstable_by`] alone.
const RADIX_FROM: usize = 1 << 16;

/// The elements of ranks `ks` (0-based, in the order of [`f64::total_cmp`]) of `v`, when
/// every value is ≥ +0 (sign bit clear: then that order is the order of the bit patterns)
/// and `v` is large: one pass counts the values by their top 16 bits (sign, exponent and 4
/// bits of significand), a second gathers the few values of the buckets holding the ranks,
/// where they are selected. The elements a full selection would give, found in two
/// streaming passes. None (select as usual) for short slices, a negative value, or a rank
/// in a bucket holding more than a quarter of the values.
pub fn ranks_nonneg<const K: usize>(v: &[f64], ks: [usize; K]) -> Option<[f64; K]> {
    if v.len() < RADIX_FROM {
        return None;
    }
    let bucket = |x: f64| (x.to_bits() >> 48) as usize;
    let mut count = vec![0u32; 1 << 16];
    for &x in v {
        count[bucket(x)] += 1;
    }
    if count[1 << 15..].iter().any(|&c| c > 0) {
        return None;
    }
    // Each rank's bucket and its rank among the bucket's values.
    let mut at = [(0usize, 0usize); K];
    for (slot, &k) in at.iter_mut().zip(&ks) {
        let mut below = 0usize;
        let b = count
            .iter()
            .position(|&c| {
                below += c as usize;
                below > k
            })
            .expect("a rank below the length");
        let c = count[b] as usize;
        if c > v.len() / 4 {
            return None;
        }
        *slot = (b, k - (below - c));
    }
    let mut out = [0.0; K];
    for (slot, &(b, r)) in out.iter_mut().zip(&at) {
        let mut gathered: Vec<f64> = v.iter().copied().filter(|&x| bucket(x) == b).collect();
        *slot = *gathered.select_nth_unstable_by(r, f64::total_cmp).1;
    }
    Some(out)
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

    /// The radix ranks are the full selection's, on values spread over many binades with
    /// ties, zeros and infinities; a negative value or a crowded bucket declines.
    #[test]
    fn radix_ranks_are_the_selections() {
        let n = 3 * RADIX_FROM + 17;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let v: Vec<f64> = (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match i % 50 {
                    0 => 0.0,
                    1 => f64::INFINITY,
                    2 => 1.5,
                    _ => (x >> 11) as f64 * 2f64.powi((x % 80) as i32 - 100),
                }
            })
            .collect();
        let ks = [0, 1, n / 2, n - n / 100, n - 2, n - 1];
        let got = ranks_nonneg(&v, ks).expect("applies");
        for (k, g) in ks.iter().zip(got) {
            let mut w = v.clone();
            assert_eq!(
                g.to_bits(),
                w.select_nth_unstable_by(*k, f64::total_cmp).1.to_bits()
            );
        }
        let mut neg = v.clone();
        neg[7] = -1.0;
        assert_eq!(ranks_nonneg(&neg, [0]), None);
        assert_eq!(ranks_nonneg(&vec![2.0; n], [5]), None);
        assert_eq!(ranks_nonneg(&v[..100], [5]), None);
        let mut w = v.clone();
        assert_eq!(median_max(&mut w).1, f64::INFINITY);
    }
}
