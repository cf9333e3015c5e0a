//! Whether results printed as text kept the f32 values a kernel computed (docs/inputs.md,
//! "Results files").
//!
//! An f32 needs 9 significant digits to survive a round trip through decimal text; a
//! printer that keeps fewer (C's `%g` and `%f`, `std::cout`'s default: 6) moves most values
//! to another f32, and the move is then charged to the kernel as its error. One value cannot
//! tell: a 6-digit decimal is also what a shortest round-trip printer (Python's `repr`,
//! numpy, Rust's `{}`) writes for some f32 values. Many can: under a round-trip printer about
//! a third of all f32 values print with 7 digits or fewer, so that all of 20 values that are
//! not exact decimals do has a chance below 0.33^20 ≈ 2·10^-10.

use generators::Precision;
use serde::Serialize;

/// Values that are no exact decimal, all printed with at most [`short_digits`] digits, from
/// which on the text is refused (below: a warning).
pub const EVIDENCE: usize = 20;

/// The significant digits that make every value of `p` survive a round trip through decimal
/// text, ⌈1 + p·log10(2)⌉: 9 for f32, 5 for f16, 4 for bf16, 17 for f64.
pub fn round_trip_digits(p: Precision) -> u32 {
    (1.0 + p.p() as f64 * 2f64.log10()).ceil() as u32
}

/// The most digits of a printer that loses values of `p`: two short of a round trip (f32: 7,
/// `%.7g`).
pub fn short_digits(p: Precision) -> u32 {
    round_trip_digits(p) - 2
}

/// The digits of a results file's values, as far as they tell how it was printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Digits {
    /// Values whose text is not the exact decimal of the f32 it reads as (finite ones).
    pub inexact: usize,
    /// The most significant digits among those.
    pub max_digits: u32,
    /// Where one of them with the fewest digits is, and its text.
    #[serde(skip)]
    pub example: Option<(String, String)>,
    #[serde(skip)]
    example_digits: u32,
    /// The format the values are of (None: f32).
    #[serde(skip)]
    pub storage: Option<Precision>,
}

/// What the digits say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Enough digits, or exact decimals only.
    Fine,
    /// Few values, all short: perhaps printed too briefly.
    Suspect,
    /// Printed too briefly: the values are not the kernel's.
    TooShort,
}

impl Digits {
    /// Accounts for one value: `text` read as `x`; `place` names it for messages.
    pub fn record(&mut self, text: &str, x: f64, place: impl FnOnce() -> String) {
        if !x.is_finite() || self.is_exact_decimal(text, x) {
            return;
        }
        let d = significant_digits(text);
        self.inexact += 1;
        self.max_digits = self.max_digits.max(d);
        if self.example.is_none() || d < self.example_digits {
            self.example = Some((place(), text.to_string()));
            self.example_digits = d;
        }
    }

    /// Whether `text` is the exact decimal of `x`: for values f32 carries, whether it reads
    /// as x in f64 (an f32 printed short reads as another f64); for f64 ones, whether it is x
    /// in MPFR at 1100 bits (every f64 is a decimal of at most 767 significant digits).
    fn is_exact_decimal(&self, text: &str, x: f64) -> bool {
        if self.format() != Precision::F64 {
            return text.parse::<f64>().ok() == Some(x);
        }
        rug::Float::parse(text)
            .map(|p| rug::Float::with_val(1100, p) == rug::Float::with_val(1100, x))
            .unwrap_or(false)
    }

    pub fn verdict(&self) -> Verdict {
        if self.inexact == 0 || self.max_digits > short_digits(self.format()) {
            Verdict::Fine
        } else if self.inexact >= EVIDENCE {
            Verdict::TooShort
        } else {
            Verdict::Suspect
        }
    }

    fn format(&self) -> Precision {
        self.storage.unwrap_or(Precision::F32)
    }

    /// The one-line explanation, with how to print f32 values (None when fine).
    pub fn message(&self) -> Option<String> {
        let what = match self.verdict() {
            Verdict::Fine => return None,
            Verdict::Suspect => "may have been printed with too few digits",
            Verdict::TooShort => "were printed with too few digits",
        };
        let (place, text) = self.example.clone().unwrap_or_default();
        let p = self.format();
        if p != Precision::F32 {
            let d = round_trip_digits(p);
            return Some(format!(
                "{place}: the results {what}: all {} that are no exact decimal have at most {} \
                 significant digits (here '{text}'), but an {p} needs {d} to round-trip; print \
                 them with %.{d}g or repr(), or save them as .npy",
                self.inexact, self.max_digits
            ));
        }
        Some(format!(
            "{place}: the results {what}: all {} that are no exact decimal have at most {} \
             significant digits (here '{text}'), but an f32 needs 9 to round-trip, and the \
             digits lost would be charged to the kernel; print them with %.9g (numpy: \
             np.savetxt(f, x, fmt='%.9g'); Python: repr(float(v)); C++: \
             std::setprecision(9)) or save them as .npy",
            self.inexact, self.max_digits
        ))
    }
}

/// Significant digits of a decimal number's text: those of its mantissa without leading or
/// trailing zeros (`0.000123` → 3, `1.5e+06` → 2, `-120` → 2).
pub fn significant_digits(text: &str) -> u32 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_matches('0').len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_counted_as_a_printer_writes_them() {
        for (text, d) in [
            ("0.000123", 3),
            ("1.5e+06", 2),
            ("-120", 2),
            ("0.123456791", 9),
            ("1.23457E-05", 6),
            ("0", 0),
        ] {
            assert_eq!(significant_digits(text), d, "{text}");
        }
    }

    #[test]
    fn round_trip_digits_of_each_format() {
        let d: Vec<u32> = Precision::ALL
            .iter()
            .map(|&p| round_trip_digits(p))
            .collect();
        assert_eq!(d, [4, 5, 9, 17]);
        // The printer that loses f32 values is `%.7g`.
        assert_eq!(short_digits(Precision::F32), 7);
    }

    #[test]
    fn six_digits_of_many_values_are_refused_and_nine_are_not() {
        // Values whose f32 is no short decimal: 1/3, 1/7, … scaled.
        let values: Vec<f32> = (1..=40)
            .map(|k| 1.0 / (k as f32 + 2.0) + k as f32)
            .collect();
        let mut six = Digits::default();
        let mut nine = Digits::default();
        let mut shortest = Digits::default();
        for (i, &x) in values.iter().enumerate() {
            let t6 = format!("{:.6}", x as f64);
            let t6: String = format!("{:.5e}", t6.parse::<f64>().unwrap());
            six.record(&t6, t6.parse::<f32>().unwrap().into(), || {
                format!("r.csv:{i}")
            });
            let t9 = format!("{:.8e}", x as f64);
            nine.record(&t9, t9.parse::<f32>().unwrap().into(), || {
                format!("r.csv:{i}")
            });
            let ts = format!("{x}");
            shortest.record(&ts, ts.parse::<f32>().unwrap().into(), || {
                format!("r.csv:{i}")
            });
        }
        assert_eq!(six.verdict(), Verdict::TooShort, "{six:?}");
        assert!(six.message().unwrap().contains("%.9g"));
        assert_eq!(nine.verdict(), Verdict::Fine, "{nine:?}");
        assert_eq!(shortest.verdict(), Verdict::Fine, "{shortest:?}");
        // Exact decimals (integers, halves) say nothing, however short.
        let mut exact = Digits::default();
        for k in 0..100 {
            let t = format!("{}", k as f32 / 2.0);
            exact.record(&t, t.parse::<f32>().unwrap().into(), String::new);
        }
        assert_eq!(exact.verdict(), Verdict::Fine);
        // A few short values: a warning, not a refusal.
        let mut few = Digits::default();
        few.record("0.333333", 0.333333f32.into(), || "r.csv:2".into());
        assert_eq!(few.verdict(), Verdict::Suspect);
    }
}
