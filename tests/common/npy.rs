//! `.npy` files for the results reader's tests and its fuzzer (`examples/fuzz_npy.rs`):
//! valid ones as numpy writes them, mutated ones, and the check every read must pass.

use rand::RngExt;

/// A 1-d `.npy` file of `values` with header `text` (padded as numpy pads it), format
/// `version` (1: a 16-bit header length; 2 and 3: 32 bits).
pub fn npy_file(version: u8, text: &str, values: &[f32]) -> Vec<u8> {
    let before = if version == 1 { 10 } else { 12 };
    let mut header = text.to_string();
    while !(before + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend([version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    for x in values {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// numpy's header of a 1-d float32 array of `n` values.
pub fn header(n: usize) -> String {
    format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}")
}

/// Text a mutation writes into a header: Python syntax, hostile numbers, terminal escapes,
/// runs that make a parser's message long.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "'",
    "\"",
    "\\",
    "'descr'",
    "'shape'",
    "'<f8'",
    "'<i8'",
    "'|V3'",
    "'>f4'",
    "True",
    "None",
    "-1",
    "0",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\r",
    "\n",
    "\0",
    "é",
    "<<<<<<<<",
    "((((((((((",
    "'fortran_order': True",
];

/// `base` with 1 to 6 random mutations: bytes flipped or set, cut short, a token inserted (in
/// the header text mostly), the header length field or the version changed.
pub fn mutated(rng: &mut impl RngExt, base: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    for _ in 0..rng.random_range(1..=6) {
        let at = rng.random_range(0..b.len().max(1));
        match rng.random_range(0..7) {
            0 if !b.is_empty() => b[at] ^= 1 << rng.random_range(0..8),
            1 if !b.is_empty() => b[at] = rng.random(),
            2 => b.truncate(at),
            3 | 4 => {
                let token = TOKENS[rng.random_range(0..TOKENS.len())];
                let repeat = if rng.random_range(0..4) == 0 {
                    rng.random_range(1..3000)
                } else {
                    1
                };
                let at = at.min(b.len());
                let inserted = token.repeat(repeat).into_bytes();
                b.splice(at..at, inserted);
            }
            5 if b.len() >= 12 => {
                let len: u32 = rng.random();
                b[8..12].copy_from_slice(&len.to_le_bytes());
            }
            _ if b.len() >= 8 => b[6] = rng.random_range(0..5),
            _ => {}
        }
    }
    b
}

/// What is wrong with a read of `n` values, if anything: a result of another length, or a
/// message that is not one short line of printable text.
pub fn audit<E: std::fmt::Display>(r: &Result<Vec<f32>, E>, n: usize) -> Option<String> {
    match r {
        Ok(v) if v.len() == n => None,
        Ok(v) => Some(format!("{} values for {n}", v.len())),
        Err(e) => {
            let m = e.to_string();
            if m.chars().any(char::is_control) {
                Some(format!("a control character in {m:?}"))
            } else if m.len() > 600 {
                Some(format!("a message of {} bytes", m.len()))
            } else {
                None
            }
        }
    }
}
