//! Parsing of condition-number targets: `1e1..1e10`, a single value, or a comma list.

/// A set of targets, before the number of points of a range is known.
#[derive(Debug, Clone, PartialEq)]
pub enum CondSpec {
    /// Log-spaced targets from `lo` to `hi` (both included).
    Range { lo: f64, hi: f64 },
    /// Exactly these targets.
    List(Vec<f64>),
}

impl CondSpec {
    /// The targets: `points` log-spaced values for a range (one if lo = hi), the list as given.
    pub fn targets(&self, points: usize) -> Vec<f64> {
        match *self {
            CondSpec::List(ref v) => v.clone(),
            CondSpec::Range { lo, hi } if lo == hi || points <= 1 => vec![lo],
            CondSpec::Range { lo, hi } => {
                let (a, b) = (lo.log10(), hi.log10());
                (0..points)
                    .map(|i| {
                        if i == points - 1 {
                            hi
                        } else {
                            10f64.powf(a + (b - a) * i as f64 / (points - 1) as f64)
                        }
                    })
                    .collect()
            }
        }
    }
}

fn value(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !x.is_finite() {
        return Err(format!("'{s}' is not finite"));
    }
    if x < 1.0 {
        return Err(format!("'{s}' is below 1 (a condition number is ≥ 1)"));
    }
    Ok(x)
}

/// Parses `1e1..1e10`, `1e5`, or `1e2,1e5,1e8`.
pub fn parse_cond(s: &str) -> Result<CondSpec, String> {
    let bad = |why: String| {
        format!(
            "invalid condition number '{s}': {why} (expected e.g. 1e1..1e10, 1e5 or 1e2,1e5,1e8)"
        )
    };
    if let Some((lo, hi)) = s.split_once("..") {
        let (lo, hi) = (value(lo).map_err(bad)?, value(hi).map_err(bad)?);
        if lo > hi {
            return Err(bad("the range runs downwards".into()));
        }
        Ok(CondSpec::Range { lo, hi })
    } else {
        let list: Vec<f64> = s
            .split(',')
            .map(value)
            .collect::<Result<_, _>>()
            .map_err(bad)?;
        Ok(CondSpec::List(list))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(
            parse_cond("1e1..1e10").unwrap(),
            CondSpec::Range { lo: 10.0, hi: 1e10 }
        );
        assert_eq!(parse_cond("1e5").unwrap(), CondSpec::List(vec![1e5]));
        assert_eq!(
            parse_cond("1e2,1e5,1e8").unwrap(),
            CondSpec::List(vec![1e2, 1e5, 1e8])
        );
        for bad in [
            "abc",
            "1e10..1e1",
            "0",
            "-5",
            "1e400",
            "",
            "1e2,,1e3",
            "1..",
            "nan",
        ] {
            assert!(parse_cond(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn log_spaced() {
        let t = parse_cond("1e1..1e10").unwrap().targets(10);
        assert_eq!(t.len(), 10);
        assert_eq!((t[0], t[9]), (10.0, 1e10));
        assert!((t[4] - 1e5).abs() / 1e5 < 1e-12);
        assert_eq!(parse_cond("1e3..1e3").unwrap().targets(10), vec![1e3]);
    }
}
