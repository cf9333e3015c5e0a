//! Files `accuracy` reads, written from the library (and from Python): a tree as a parent
//! array, weights, and another program's results — so a tree, its weights and a kernel's
//! results made in a program reach `accuracy score --tree T --weights-file W --results R`
//! bit for bit. Text carries every f32 exactly: weights in their shortest round-trip form,
//! results with 9 significant digits (what `score` asks of results); `.npy` files hold the
//! float32 values themselves. Every file is written whole or not at all.

use crate::{Error, Op, output};
use generators::{NO_PARENT, Tree};
use std::fmt::Write;
use std::path::Path;

/// The tree as a parent array (`vertex parent [weight]` lines, docs/inputs.md), with the
/// weights on every line when given: `accuracy --tree PATH` reads back the same tree, the
/// same vertex ids, and (`--weights file`) the same weights.
pub fn write_tree(path: &Path, tree: &Tree, weights: Option<&[f32]>) -> Result<(), Error> {
    if let Some(w) = weights {
        same_length(w.len(), tree.len(), "weights")?;
    }
    let mut s = String::with_capacity(tree.len() * 16);
    s.push_str("# vertex parent");
    s.push_str(if weights.is_some() { " weight\n" } else { "\n" });
    for (v, &p) in tree.parents().iter().enumerate() {
        let _ = write!(s, "{v} ");
        if p == NO_PARENT {
            s.push_str("-1");
        } else {
            let _ = write!(s, "{p}");
        }
        if let Some(w) = weights {
            let _ = write!(s, " {:e}", w[v]);
        }
        s.push('\n');
    }
    output::write_file(path, s.as_bytes())
}

/// Weights, one per vertex: a `.npy` float32 array when `path` ends in `.npy`, else a
/// weights file of `vertex value` lines (`--weights-file`).
pub fn write_weights(path: &Path, weights: &[f32]) -> Result<(), Error> {
    if is_npy(path) {
        return output::write_file(path, &npy(weights));
    }
    let mut s = String::with_capacity(weights.len() * 16);
    for (v, w) in weights.iter().enumerate() {
        let _ = writeln!(s, "{v} {w:e}");
    }
    output::write_file(path, s.as_bytes())
}

/// Results of one or both ops: a CSV `vertex,op,result` (9 significant digits, as `score`
/// asks), or, when `path` ends in `.npy`, one op's float32 array in vertex order (give it to
/// `score` as `OP=PATH`).
pub fn write_results(path: &Path, results: &[(Op, &[f32])]) -> Result<(), Error> {
    if is_npy(path) {
        return match results {
            [(_, values)] => output::write_file(path, &npy(values)),
            _ => Err(Error::Usage(format!(
                "{}: an .npy file holds one op's results: write each op to its own file",
                path.display()
            ))),
        };
    }
    let mut s = String::from("vertex,op,result\n");
    for (op, values) in results {
        for (v, x) in values.iter().enumerate() {
            let _ = writeln!(s, "{v},{},{}", op.name(), nine_digits(*x));
        }
    }
    output::write_file(path, s.as_bytes())
}

/// `x` with 9 significant digits (every f32 reads back exactly), `nan`, `inf`, `-inf`.
fn nine_digits(x: f32) -> String {
    if x.is_finite() {
        format!("{x:.8e}")
    } else {
        x.to_string().to_ascii_lowercase()
    }
}

fn same_length(got: usize, n: usize, what: &str) -> Result<(), Error> {
    if got == n {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{got} {what} for a tree of {n} vertices: one per vertex"
        )))
    }
}

fn is_npy(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// A version 1.0 `.npy` file of a 1-d little-endian float32 array.
fn npy(values: &[f32]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    // Magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 4 * values.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for x in values {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_digits_read_back_exactly() {
        for x in [0.1f32, -1e-45, 3.4028235e38, 1.0 / 3.0, -0.0, 16_777_217.0] {
            let s = nine_digits(x);
            assert_eq!(s.parse::<f32>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
        assert_eq!(nine_digits(f32::NEG_INFINITY), "-inf");
    }

    #[test]
    fn npy_header_is_aligned() {
        let b = npy(&[1.0, 2.0]);
        let len = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + len) % 64, 0);
        assert_eq!(b.len(), 10 + len + 8);
    }
}
