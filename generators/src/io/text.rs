//! Number parsing and line splitting shared by the readers.

use super::error::{Reason, What};

/// A token as text for messages: lossy UTF-8, at most 40 characters, control characters
/// escaped (`\n`, `\u{0}`) so that a message stays on one line.
pub(crate) fn show(tok: &[u8]) -> String {
    show_text(&String::from_utf8_lossy(tok), 40)
}

/// Text from an input as a message may quote it: on one line, control characters escaped
/// (`\n`, `\u{1b}`: a terminal shows them as text, never obeys them), and cut after `max`
/// characters with an ellipsis.
pub fn show_text(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses a weight (branch length, weight file value, matrix value) as f32 with correct
/// rounding (`str::parse::<f32>`), refusing NaN, infinities, values that overflow f32 and
/// nonzero values whose f32 rounding is subnormal or zero (GPUs flush subnormals).
pub(crate) fn parse_f32(tok: &[u8], what: What) -> Result<f32, Reason> {
    parse_float(tok, what)
}

/// A format a weight is read in.
pub(crate) trait TextFloat: std::str::FromStr + Copy + Default {
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_zero(self) -> bool;
    /// Whether the value is refused as too small for the format's kernels (a subnormal f32,
    /// which GPUs flush; for f64, on the CPU, none is).
    fn too_small(self) -> bool;
    /// −0.
    fn negative_zero() -> Self;
    fn overflow(what: What, text: String) -> Reason;
    fn underflow(what: What, text: String) -> Reason;
}

impl TextFloat for f32 {
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn is_infinite(self) -> bool {
        f32::is_infinite(self)
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn too_small(self) -> bool {
        !self.is_normal()
    }
    fn negative_zero() -> Self {
        -0.0
    }
    fn overflow(what: What, text: String) -> Reason {
        Reason::Overflow { what, text }
    }
    fn underflow(what: What, text: String) -> Reason {
        Reason::Subnormal { what, text }
    }
}

impl TextFloat for f64 {
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn is_infinite(self) -> bool {
        f64::is_infinite(self)
    }
    fn is_zero(self) -> bool {
        self == 0.0
    }
    fn too_small(self) -> bool {
        false
    }
    fn negative_zero() -> Self {
        -0.0
    }
    fn overflow(what: What, text: String) -> Reason {
        Reason::OverflowF64 { what, text }
    }
    fn underflow(what: What, text: String) -> Reason {
        Reason::UnderflowF64 { what, text }
    }
}

/// [`parse_f32`] in the format `F`, correctly rounded by `str::parse`.
pub(crate) fn parse_float<F: TextFloat>(tok: &[u8], what: What) -> Result<F, Reason> {
    let text = || show(tok);
    let s = std::str::from_utf8(tok).map_err(|_| Reason::NotANumber { what, text: text() })?;
    let v: F = s
        .parse()
        .map_err(|_| Reason::NotANumber { what, text: text() })?;
    if v.is_nan() {
        return Err(Reason::Nan { what, text: text() });
    }
    if v.is_infinite() {
        // Rust accepts "inf" and "infinity"; any other infinite result is an overflow.
        return Err(if tok.iter().any(|b| b.eq_ignore_ascii_case(&b'i')) {
            Reason::Infinite { what, text: text() }
        } else {
            F::overflow(what, text())
        });
    }
    if v.is_zero() {
        // A zero result from a nonzero mantissa underflowed.
        let mantissa = tok
            .iter()
            .take_while(|b| !b.eq_ignore_ascii_case(&b'e'))
            .any(|b| (b'1'..=b'9').contains(b));
        if mantissa {
            return Err(F::underflow(what, text()));
        }
    } else if v.too_small() {
        return Err(F::underflow(what, text()));
    }
    Ok(v)
}

/// Parses a decimal integer (optional sign); `None` if it is not one or overflows i64.
pub(crate) fn parse_i64(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((b - b'0') as i64)?;
    }
    Some(if neg { -v } else { v })
}

/// Parses a non-negative decimal integer.
pub(crate) fn parse_u64(tok: &[u8]) -> Option<u64> {
    let digits = tok.strip_prefix(b"+").unwrap_or(tok);
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((b - b'0') as u64)?;
    }
    Some(v)
}

/// Lines of a text with their 1-based numbers and byte offsets; `\r\n` endings lose the `\r`.
pub(crate) struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    line: u64,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Self {
        Lines {
            text,
            pos: 0,
            line: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    /// (line number, offset of the line's first byte, the line without its ending)
    type Item = (u64, usize, &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.text[start..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |p| p);
        self.pos = start + end + 1;
        self.line += 1;
        let mut l = &rest[..end];
        if let [head @ .., b'\r'] = l {
            l = head;
        }
        Some((self.line, start, l))
    }
}

/// Splits a data line into fields: at commas (each field trimmed, empty fields kept) if the
/// line has one, else at runs of whitespace. Returns the fields with their offsets in `line`.
pub(crate) fn fields<'a>(line: &'a [u8], out: &mut Vec<(usize, &'a [u8])>) {
    out.clear();
    if line.contains(&b',') {
        let mut start = 0;
        for piece in line.split(|&b| b == b',') {
            let lead = piece
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(piece.len());
            let trail = piece
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(lead, |p| p + 1);
            out.push((start + lead, &piece[lead..trail]));
            start += piece.len() + 1;
        }
    } else {
        split_ws(line, out);
    }
}

/// Splits a line at runs of whitespace; the fields with their offsets in `line`.
pub(crate) fn split_ws<'a>(line: &'a [u8], out: &mut Vec<(usize, &'a [u8])>) {
    out.clear();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == line.len() {
            break;
        }
        let s = i;
        while i < line.len() && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        out.push((s, &line[s..i]));
    }
}

/// The line without a `#` comment and surrounding whitespace; `None` if nothing is left.
pub(crate) fn data_part(line: &[u8]) -> Option<&[u8]> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(p) => &line[..p],
        None => line,
    };
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        None
    } else {
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f64 weights: every finite f64 (its subnormals too, on the CPU), correctly rounded; a
    /// value past f64's range or below half its smallest subnormal, refused.
    #[test]
    fn f64_checks() {
        let w = What::Weight;
        let f64_of = |t: &[u8]| parse_float::<f64>(t, w);
        assert_eq!(f64_of(b"0.1"), Ok(0.1));
        assert_eq!(f64_of(b"1e300"), Ok(1e300));
        assert_eq!(f64_of(b"5e-324"), Ok(f64::from_bits(1)));
        assert_eq!(f64_of(b"-0").map(f64::to_bits), Ok((-0.0f64).to_bits()));
        assert!(matches!(f64_of(b"1e309"), Err(Reason::OverflowF64 { .. })));
        assert!(matches!(
            f64_of(b"1e-400"),
            Err(Reason::UnderflowF64 { .. })
        ));
        assert!(matches!(f64_of(b"nan"), Err(Reason::Nan { .. })));
        assert!(matches!(f64_of(b"inf"), Err(Reason::Infinite { .. })));
    }

    #[test]
    fn f32_checks() {
        let w = What::Weight;
        assert_eq!(parse_f32(b"1.5", w), Ok(1.5));
        assert_eq!(
            parse_f32(b"-0", w).map(f32::to_bits),
            Ok((-0.0f32).to_bits())
        );
        assert_eq!(parse_f32(b"0.000e5", w), Ok(0.0));
        // Correct rounding, not f64 then f32 (double rounding).
        assert_eq!(
            parse_f32(b"1.00000005960464477539062500001", w),
            Ok(1.0000001)
        );
        assert!(matches!(parse_f32(b"nan", w), Err(Reason::Nan { .. })));
        assert!(matches!(
            parse_f32(b"-inf", w),
            Err(Reason::Infinite { .. })
        ));
        assert!(matches!(
            parse_f32(b"Infinity", w),
            Err(Reason::Infinite { .. })
        ));
        assert!(matches!(
            parse_f32(b"1e39", w),
            Err(Reason::Overflow { .. })
        ));
        assert!(matches!(
            parse_f32(b"1e400", w),
            Err(Reason::Overflow { .. })
        ));
        assert!(matches!(
            parse_f32(b"1e-40", w),
            Err(Reason::Subnormal { .. })
        ));
        assert!(matches!(
            parse_f32(b"1e-50", w),
            Err(Reason::Subnormal { .. })
        ));
        assert!(matches!(
            parse_f32(b"-1e-400", w),
            Err(Reason::Subnormal { .. })
        ));
        assert!(matches!(
            parse_f32(b"abc", w),
            Err(Reason::NotANumber { .. })
        ));
        assert!(matches!(parse_f32(b"", w), Err(Reason::NotANumber { .. })));
        assert!(matches!(
            parse_f32(b"1.0.0", w),
            Err(Reason::NotANumber { .. })
        ));
        // Rounds up to the smallest normal: accepted.
        assert_eq!(parse_f32(b"1.17549430e-38", w), Ok(f32::MIN_POSITIVE));
        assert_eq!(parse_f32(b"3.40282355e38", w), Ok(f32::MAX));
    }

    #[test]
    fn integers() {
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"+12"), Some(12));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"1x"), None);
        assert_eq!(parse_i64(b"-"), None);
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
    }

    #[test]
    fn field_splitting() {
        let mut f = Vec::new();
        fields(b"3,,", &mut f);
        assert_eq!(f, vec![(0, &b"3"[..]), (2, &b""[..]), (3, &b""[..])]);
        fields(b" 3 , 1 ,0.5 ", &mut f);
        assert_eq!(f, vec![(1, &b"3"[..]), (5, &b"1"[..]), (8, &b"0.5"[..])]);
        fields(b"  3\t1  0.5", &mut f);
        assert_eq!(f, vec![(2, &b"3"[..]), (4, &b"1"[..]), (7, &b"0.5"[..])]);
    }
}
