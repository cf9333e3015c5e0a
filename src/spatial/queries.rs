//! Batched LCA's queries for `accuracy spatial --lca FILE | --lca-random K`, and its answers
//! written out (docs/design.md §12.7).
//!
//! A queries file holds one pair of vertex ids per line, `u,v` (or separated by spaces or a
//! tab), ids as the tree numbers them (a generated tree's, a tree file's: Newick and NEXUS in
//! the file's preorder, 0 at the root); blank lines and lines starting with `#` are skipped,
//! and a first line `u,v` is a header. Any other line is refused with its file, line and
//! reason. Reading stops at [`MAX_QUERIES`] pairs and [`MAX_LINE`] bytes per line, so that a
//! stream or a device file cannot grow without bound.

use crate::Error;
use std::io::{BufRead, Read, Write};
use std::path::Path;

/// The most queries one run takes (their arrays take about 24 bytes each).
pub const MAX_QUERIES: usize = 1 << 28;
/// The longest line of a queries file, in bytes.
pub const MAX_LINE: usize = 256;

/// A line as text for a message: at most 40 characters, control characters escaped.
fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text
        .chars()
        .take(40)
        .flat_map(|c| match c.is_control() {
            true => c.escape_debug().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// The pair of one line, or why not.
fn pair(line: &str, n: usize) -> Result<(u32, u32), String> {
    let fields: Vec<&str> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|f| !f.is_empty())
        .collect();
    let [u, v] = fields[..] else {
        return Err(format!(
            "expected two vertex ids (u,v), found {} field(s)",
            fields.len()
        ));
    };
    let id = |f: &str| -> Result<u32, String> {
        let x: u64 = f
            .parse()
            .map_err(|_| format!("'{}' is not a vertex id", show(f.as_bytes())))?;
        match x < n as u64 {
            true => Ok(x as u32),
            false => Err(format!(
                "vertex {x} is not in the tree (ids 0 … {})",
                n.saturating_sub(1)
            )),
        }
    };
    Ok((id(u)?, id(v)?))
}

/// The queries of the file `path` on a tree of `n` vertices.
pub fn read(path: &Path, n: usize) -> Result<Vec<(u32, u32)>, Error> {
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    read_from(std::io::BufReader::new(file), path, n)
}

/// [`read`] from any reader (`path` names it in messages).
pub fn read_from(mut r: impl BufRead, path: &Path, n: usize) -> Result<Vec<(u32, u32)>, Error> {
    let fail =
        |line: usize, why: String| Error::Usage(format!("{}, line {line}: {why}", path.display()));
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        let got = (&mut r)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(Error::io(path))?;
        if got == 0 {
            break;
        }
        if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
            return Err(fail(number, format!("longer than {MAX_LINE} bytes")));
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            return Err(fail(number, format!("not UTF-8: {}", show(&buf))));
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if number == 1 && line.eq_ignore_ascii_case("u,v") {
            continue;
        }
        if out.len() == MAX_QUERIES {
            return Err(fail(number, format!("more than {MAX_QUERIES} queries")));
        }
        out.push(pair(line, n).map_err(|why| fail(number, why))?);
    }
    Ok(out)
}

/// `k` pairs of vertices drawn uniformly (with replacement) from a tree of `n` vertices:
/// `generators::rng(derive_seed(seed, STREAM))`.
pub fn random(n: usize, k: usize, seed: u64) -> Vec<(u32, u32)> {
    use rand::RngExt as _;
    /// The stream of the queries, apart from the tree's and the weights'.
    const STREAM: u64 = 0x006c_6361;
    let mut rng = generators::rng(generators::derive_seed(seed, STREAM));
    (0..k)
        .map(|_| (rng.random_range(0..n as u32), rng.random_range(0..n as u32)))
        .collect()
}

/// Writes the answers as CSV (`u,v,lca`, one line per query in the order given), complete or
/// not at all.
pub fn write_answers(path: &Path, queries: &[(u32, u32)], answers: &[u32]) -> Result<(), Error> {
    let mut f = crate::output::OutputFile::create(path)?;
    {
        let mut w = std::io::BufWriter::new(&mut f);
        let mut put = || -> std::io::Result<()> {
            writeln!(w, "u,v,lca")?;
            for (&(u, v), &a) in queries.iter().zip(answers) {
                writeln!(w, "{u},{v},{a}")?;
            }
            w.flush()
        };
        put().map_err(Error::write(path))?;
    }
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, n: usize) -> Result<Vec<(u32, u32)>, String> {
        read_from(text.as_bytes(), Path::new("q.csv"), n).map_err(|e| e.to_string())
    }

    #[test]
    fn pairs_header_comments_and_refusals() {
        assert_eq!(
            parse("u,v\n0,1\n# c\n\n2 3\n4\t0\r\n", 5).unwrap(),
            [(0, 1), (2, 3), (4, 0)]
        );
        assert_eq!(
            parse("0,1\n1,5\n", 5).unwrap_err(),
            "q.csv, line 2: vertex 5 is not in the tree (ids 0 … 4)"
        );
        assert_eq!(
            parse("0,x\u{1b}\n", 5).unwrap_err(),
            "q.csv, line 1: 'x\\u{1b}' is not a vertex id"
        );
        assert!(
            parse("1,2,3\n", 5)
                .unwrap_err()
                .ends_with("found 3 field(s)")
        );
        assert!(
            parse("u,v\nu,v\n", 5)
                .unwrap_err()
                .starts_with("q.csv, line 2")
        );
        let long = "0,".repeat(300);
        assert!(
            parse(&long, 5)
                .unwrap_err()
                .ends_with("longer than 256 bytes")
        );
        assert_eq!(random(10, 100, 3), random(10, 100, 3));
        assert!(random(10, 100, 3).iter().all(|&(u, v)| u < 10 && v < 10));
    }
}
