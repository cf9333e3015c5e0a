//! The exponent of a power law fitted on log–log axes: the slope of the least-squares line
//! through (ln n, ln E). Energy per vertex flat as n grows is an exponent of 1 (E = O(n));
//! the seed's bad layouts have E = Θ(n^1.5).

/// The fitted exponent b of E ≈ a·n^b over the points (n, E) with n, E > 0, and the
/// coefficient of determination R² of the line; `None` with fewer than two distinct n.
pub fn exponent(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(n, e)| *n > 0.0 && *e > 0.0)
        .map(|(n, e)| (n.ln(), e.ln()))
        .collect();
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my) * (p.1 - my)).sum();
    if pts.len() < 2 || sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        sxy * sxy / (sxx * syy)
    } else {
        1.0
    };
    Some((slope, r2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_exponents() {
        let pts: Vec<(f64, f64)> = (10..=22)
            .map(|k| {
                let n = (1u64 << k) as f64;
                (n, 3.0 * n.powf(1.5))
            })
            .collect();
        let (b, r2) = exponent(&pts).unwrap();
        assert!((b - 1.5).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
        // n log n over 2^10 … 2^22 fits an exponent of 1.093: near-linear is not 1.
        let pts: Vec<(f64, f64)> = (10..=22)
            .map(|k| {
                let n = (1u64 << k) as f64;
                (n, n * n.log2())
            })
            .collect();
        let (b, _) = exponent(&pts).unwrap();
        assert!((1.09..1.10).contains(&b), "{b}");
        assert_eq!(exponent(&[(4.0, 1.0)]), None);
        assert_eq!(exponent(&[(4.0, 1.0), (4.0, 2.0)]), None);
    }
}
