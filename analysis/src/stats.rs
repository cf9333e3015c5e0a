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
    let radix = median_max_ranks(v.len()).and_then(|ks| ranks_nonneg(v, ks));
    median_max_from(v, radix)
}

/// The ranks of the median and the max among `len` values (None for none).
fn median_max_ranks(len: usize) -> Option<[usize; 2]> {
    (len > 0).then(|| [(len - 1) / 2, len - 1])
}

/// [`median_max`] of `v`, given its two elements where the radix selection found them.
fn median_max_from(v: &mut [f64], radix: Option<[f64; 2]>) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    if let Some([median, max]) = radix {
        return (median, max);
    }
    let mid = (v.len() - 1) / 2;
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
/// streaming passes whatever K. None (select as usual) for short slices, a negative value,
/// or a rank in a bucket holding more than a quarter of the values.
pub fn ranks_nonneg<const K: usize>(v: &[f64], ks: [usize; K]) -> Option<[f64; K]> {
    if v.len() < RADIX_FROM {
        return None;
    }
    let mut count = vec![0u32; BUCKETS];
    for &x in v {
        count[bucket(x)] += 1;
    }
    ranks_counted(v, &count, ks)
}

/// Buckets of the radix selection: the values' top 16 bits.
const BUCKETS: usize = 1 << 16;

/// A value's bucket.
#[inline]
fn bucket(x: f64) -> usize {
    (x.to_bits() >> 48) as usize
}

/// [`ranks_nonneg`] given how many values of `v` each bucket holds.
fn ranks_counted<const K: usize>(v: &[f64], count: &[u32], ks: [usize; K]) -> Option<[f64; K]> {
    debug_assert_eq!(count.iter().map(|&c| c as usize).sum::<usize>(), v.len());
    if count[BUCKETS / 2..].iter().any(|&c| c > 0) {
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
    // One pass gathers the values of every bucket holding a rank (the counts give their sizes);
    // ranks sharing a bucket select in the same values.
    let mut gathered: Vec<(usize, Vec<f64>)> = Vec::with_capacity(K);
    for &(b, _) in &at {
        if gathered.iter().all(|&(c, _)| c != b) {
            gathered.push((b, Vec::with_capacity(count[b] as usize)));
        }
    }
    for &x in v {
        let bx = bucket(x);
        if let Some((_, g)) = gathered.iter_mut().find(|(b, _)| *b == bx) {
            g.push(x);
        }
    }
    let mut out = [0.0; K];
    for (slot, &(b, r)) in out.iter_mut().zip(&at) {
        let (_, g) = gathered
            .iter_mut()
            .find(|(c, _)| *c == b)
            .expect("every rank's bucket gathered");
        *slot = *g.select_nth_unstable_by(r, f64::total_cmp).1;
    }
    Some(out)
}

/// Values gathered for a selection, counted by [`ranks_nonneg`]'s buckets as they are
/// gathered when there is room for enough of them: the pass that selection would make to
/// count them is saved. One per measure, reused for each statistic it selects.
#[derive(Debug)]
pub struct Ranks {
    values: Vec<f64>,
    /// Per bucket (empty: not counted, below [`RADIX_FROM`] values).
    count: Vec<u32>,
}

impl Ranks {
    /// Room for `n` values.
    pub fn with_capacity(n: usize) -> Ranks {
        Ranks {
            values: Vec::with_capacity(n),
            count: if n >= RADIX_FROM {
                vec![0; BUCKETS]
            } else {
                Vec::new()
            },
        }
    }

    /// Holds the values of `values` instead of those held.
    pub fn fill(&mut self, values: impl Iterator<Item = f64>) {
        self.values.clear();
        if self.count.is_empty() {
            self.values.extend(values);
            return;
        }
        self.count.fill(0);
        for x in values {
            self.count[bucket(x)] += 1;
            self.values.push(x);
        }
    }

    /// The values held (in an order the selections change).
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// [`ranks_nonneg`] of the values held.
    pub fn ranks_nonneg<const K: usize>(&self, ks: [usize; K]) -> Option<[f64; K]> {
        if self.values.len() < RADIX_FROM {
            return None;
        }
        if self.count.is_empty() {
            return ranks_nonneg(&self.values, ks);
        }
        ranks_counted(&self.values, &self.count, ks)
    }

    /// [`median_max`] of the values held.
    pub fn median_max(&mut self) -> (f64, f64) {
        let radix = median_max_ranks(self.values.len()).and_then(|ks| self.ranks_nonneg(ks));
        median_max_from(&mut self.values, radix)
    }
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

    /// Values counted as they are gathered give the ranks and the (median, max) the slice's
    /// own selections give, refilled with other values, above and below the radix size,
    /// and where the radix selection declines (a negative value).
    #[test]
    fn counted_ranks_are_the_slices() {
        let n = 2 * RADIX_FROM + 5;
        let mut ranks = Ranks::with_capacity(n);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for (round, len) in [n, n - 3, 1000, 0, n].into_iter().enumerate() {
            let v: Vec<f64> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let y = (x >> 11) as f64 * 2f64.powi((x % 60) as i32 - 80);
                    if round == 4 && i == 9 {
                        -y
                    } else if i % 40 == 0 {
                        0.0
                    } else {
                        y
                    }
                })
                .collect();
            ranks.fill(v.iter().copied());
            let ks = [0, len / 3, len.saturating_sub(1)];
            if len > 0 {
                assert_eq!(ranks.ranks_nonneg(ks), ranks_nonneg(&v, ks), "{len}");
            }
            // The radix selection applies from RADIX_FROM values, unless one is negative.
            let applies = len >= RADIX_FROM && round != 4;
            assert_eq!(ranks.ranks_nonneg([0]).is_some(), applies, "{len}");
            let (m, mx) = ranks.median_max();
            let mut w = v.clone();
            let (wm, wmx) = median_max(&mut w);
            assert_eq!(
                (m.to_bits(), mx.to_bits()),
                (wm.to_bits(), wmx.to_bits()),
                "{len}"
            );
        }
    }
}
