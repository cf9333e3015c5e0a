//! Formatting for reports: numbers, HTML escaping, JSON values and command lines.

const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// `10ᵏ` with superscript digits (`10⁻⁶`); 10⁰ and 10¹ are written `1` and `10`.
pub fn pow10_label(k: i32) -> String {
    match k {
        0 => "1".into(),
        1 => "10".into(),
        _ => format!("10{}", superscript(k)),
    }
}

/// `2ᵏ` with superscript digits (`2¹⁶`).
pub fn pow2_label(k: i32) -> String {
    format!("2{}", superscript(k))
}

/// `k` in superscript digits, with a superscript minus.
fn superscript(k: i32) -> String {
    let mut s = String::new();
    if k < 0 {
        s.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        s.push(SUPERSCRIPT[(d - b'0') as usize]);
    }
    s
}

/// `x` rounded to 3 significant digits, without an exponent (`0.203`, `108`, `1270`).
pub fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return analysis::format::f64_shortest(x);
    }
    // Round first (in decimal), then read the exponent of the rounded value: 9.996 → 10.0.
    let rounded = format!("{x:.2e}");
    let exp: i32 = rounded
        .rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let r: f64 = rounded.parse().unwrap_or(x);
    let decimals = (2 - exp).max(0) as usize;
    format!("{r:.decimals$}")
}

/// Compact scientific form for prose and summary tables: `1.2e-7`, `3e6`, `1.1` (no exponent
/// from 1 to 10), `∞`. The one such form of the project: terminal tables and text files use
/// it too, through [`sci_text`].
pub fn sci(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x > 0.0 {
            "∞".into()
        } else {
            format!("{x}")
        };
    }
    let s = format!("{x:.1e}").replace(".0e", "e"); // 3.0e6 → 3e6
    // No exponent for 1 ≤ |x| < 10: 1.1e0 → 1.1.
    s.strip_suffix("e0").map(str::to_string).unwrap_or(s)
}

/// [`sci`] for terminal tables and text files: +∞ is `inf`, as in the CSV files.
pub fn sci_text(x: f64) -> String {
    if x == f64::INFINITY {
        "inf".into()
    } else {
        sci(x)
    }
}

/// Fixed decimals, with a true minus sign.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// The cell shown where a run lacks a value.
pub const NA: &str = "<span class=\"na\" title=\"not available in this run\">—</span>";

/// HTML-escapes text for element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A JSON value as plain text (arrays comma-separated, null as —).
pub fn value_text(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Object(_) => v.to_string(),
    }
}

/// A command-line argument as a POSIX shell would need it quoted.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_ten() {
        assert_eq!(pow10_label(-6), "10⁻⁶");
        assert_eq!(pow10_label(-10), "10⁻¹⁰");
        assert_eq!(pow10_label(12), "10¹²");
        assert_eq!(pow10_label(0), "1");
        assert_eq!(pow10_label(1), "10");
        assert_eq!(pow2_label(16), "2¹⁶");
    }

    #[test]
    fn three_significant_digits() {
        for (x, s) in [
            (0.2034, "0.203"),
            (108.75, "109"),
            (1267.14, "1270"),
            (9.996, "10.0"),
            (0.000123456, "0.000123"),
            (5.0, "5.00"),
            (0.0312, "0.0312"),
            (0.03, "0.0300"),
            (12345.0, "12300"),
            (0.0, "0"),
        ] {
            assert_eq!(sig3(x), s, "{x}");
        }
    }

    #[test]
    fn compact_scientific() {
        assert_eq!(sci(3e6), "3e6");
        assert_eq!(sci(1.23e-7), "1.2e-7");
        assert_eq!(sci(1.14), "1.1");
        assert_eq!(sci(10.0), "1e1");
    }

    #[test]
    fn escapes() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
