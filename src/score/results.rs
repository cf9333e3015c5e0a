//! Reading another program's results: `vertex,op,result` CSV rows, or one op's values in
//! vertex order as `.npy` (`rootfix=r.npy`); from a file or from standard input (`-`).
//! Docs: docs/inputs.md, "Results files".

use super::precision::Digits;
use crate::Error;
use crate::inputs::STDIN;
use analysis::Op;
use generators::Precision;
use generators::io::Labels;
use generators::io::show_text;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One `--results` argument: `PATH` (CSV rows naming their op) or `OP=PATH` (`.npy`, or CSV
/// rows of that op only); `-` is standard input.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsArg {
    pub op: Option<Op>,
    pub path: PathBuf,
}

impl ResultsArg {
    pub fn is_stdin(&self) -> bool {
        self.path.as_os_str() == "-"
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        if self.is_stdin() {
            STDIN.into()
        } else {
            self.path.display().to_string()
        }
    }
}

impl FromStr for ResultsArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((op, path)) = s.split_once('=')
            && let Ok(op) = parse_op(op)
        {
            return Ok(ResultsArg {
                op: Some(op),
                path: path.into(),
            });
        }
        Ok(ResultsArg {
            op: None,
            path: s.into(),
        })
    }
}

/// An op's name in any case (`Rootfix`, `LEAFFIX`).
pub fn parse_op(s: &str) -> Result<Op, String> {
    Op::ALL
        .into_iter()
        .find(|op| op.name().eq_ignore_ascii_case(s.trim()))
        .ok_or_else(|| {
            format!(
                "unknown op '{}' (expected rootfix or leaffix, in any case)",
                quoted(s)
            )
        })
}

/// Results read, per op, with how precisely their text was printed.
#[derive(Debug, Default)]
pub struct ReadResults {
    /// In the order first met.
    /// Each value of the storage format, exact as an f64.
    pub ops: Vec<(Op, Vec<f64>)>,
    pub digits: Digits,
}

/// The `.npy` magic: `\x93NUMPY`.
const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// Reads every source into per-op values (one per vertex): each vertex of each op present
/// exactly once; a vertex named by a key `keys` cannot resolve is a one-line error.
/// A source's bytes are read within the text share of `memory_limit`
/// ([`generators::io::read_bytes`]): a stream or device file without end is refused, never
/// read into all memory.
pub fn read(
    sources: &[ResultsArg],
    keys: &VertexKeys,
    n: usize,
    memory_limit: Option<u64>,
    storage: Precision,
) -> Result<ReadResults, Error> {
    let mut out = ReadResults::default();
    out.digits.storage = Some(storage);
    let mut slots: Vec<(Op, Vec<Option<f64>>)> = Vec::new();
    for src in sources {
        let bytes = if src.is_stdin() {
            generators::io::read_stdin(Path::new(STDIN), memory_limit)?
        } else {
            generators::io::read_bytes(&src.path, memory_limit)?
        };
        if bytes.starts_with(NPY_MAGIC) {
            let Some(op) = src.op else {
                return Err(Error::Usage(format!(
                    "{}: an .npy file holds one op's results in vertex order: say which, as \
                     rootfix={0} or leaffix={0}",
                    src.name()
                )));
            };
            let values = read_npy_in(&src.name(), &bytes, n, storage)?;
            if slots.iter().any(|(o, _)| *o == op) {
                return Err(Error::Usage(format!(
                    "{}: a second set of {op} results",
                    src.name()
                )));
            }
            slots.push((op, values.into_iter().map(Some).collect()));
        } else {
            read_csv(src, &bytes, (keys, n, storage), &mut slots, &mut out.digits)?;
        }
    }
    if slots.is_empty() {
        let names: Vec<String> = sources.iter().map(ResultsArg::name).collect();
        return Err(Error::Usage(format!("{}: no results", names.join(", "))));
    }
    let names: Vec<String> = sources.iter().map(ResultsArg::name).collect();
    for (op, values) in slots {
        let missing = values.iter().filter(|x| x.is_none()).count();
        if missing > 0 {
            return Err(Error::Usage(format!(
                "{}: {missing} of {n} vertices have no {op} result",
                names.join(", ")
            )));
        }
        out.ops.push((
            op,
            values.into_iter().map(Option::unwrap_or_default).collect(),
        ));
    }
    Ok(out)
}

/// `vertex,op,result` rows (header first, `#` comments); the op column may be left out when
/// the argument names the op (`rootfix=r.csv`).
fn read_csv(
    src: &ResultsArg,
    bytes: &[u8],
    (keys, n, storage): (&VertexKeys, usize, Precision),
    slots: &mut Vec<(Op, Vec<Option<f64>>)>,
    digits: &mut Digits,
) -> Result<(), Error> {
    let name = src.name();
    let at = |line: u64, why: String| Error::Usage(format!("{name}:{line}: {why}"));
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(bytes);
    let headers = reader.headers().map_err(|e| bad_csv(&name, &e, 1))?.clone();
    let expected = if src.op.is_some() {
        "vertex,result (or vertex,op,result)"
    } else {
        "vertex,op,result"
    };
    let col = |h: &str| headers.iter().position(|x| x.eq_ignore_ascii_case(h));
    let missing = |h: &str| at(1, format!("no column '{h}' (expected {expected})"));
    let cv = col("vertex").ok_or_else(|| missing("vertex"))?;
    let cr = col("result").ok_or_else(|| missing("result"))?;
    let co = match (col("op"), src.op) {
        (Some(c), _) => Some(c),
        (None, Some(_)) => None,
        (None, None) => return Err(missing("op")),
    };
    // A column more (a second `vertex`, an `extra`) would be read by nobody: a file meant
    // otherwise, refused rather than half-read.
    let known = [Some(cv), Some(cr), co];
    if let Some(extra) = headers
        .iter()
        .enumerate()
        .find(|(i, _)| !known.contains(&Some(*i)))
    {
        return Err(at(
            1,
            format!(
                "column '{}' is not one of {expected}: more columns are refused",
                quoted(extra.1)
            ),
        ));
    }
    for rec in reader.records() {
        let rec = rec.map_err(|e| bad_csv(&name, &e, headers.len()))?;
        let line = rec.position().map_or(0, |p| p.line());
        let field = |i: usize| rec.get(i).unwrap_or("");
        let v = keys.resolve(field(cv)).map_err(|why| at(line, why))?;
        let op = match co {
            Some(c) => parse_op(field(c)).map_err(|e| at(line, e))?,
            None => src.op.expect("checked above"),
        };
        if let Some(want) = src.op
            && op != want
        {
            return Err(at(
                line,
                format!("a {op} row in results given as {want}={}", src.name()),
            ));
        }
        let text = field(cr);
        let x = parse_in(text, storage).map_err(|why| at(line, why))?;
        digits.record(text, x, || format!("{name}:{line}"));
        let slot = match slots.iter().position(|(o, _)| *o == op) {
            Some(i) => i,
            None => {
                slots.push((op, vec![None; n]));
                slots.len() - 1
            }
        };
        let cell = &mut slots[slot].1[v as usize];
        if cell.is_some() {
            return Err(at(
                line,
                format!("a second {op} result for vertex '{}'", quoted(field(cv))),
            ));
        }
        *cell = Some(x);
    }
    Ok(())
}

/// A result's text as a value of `storage` (exact as an f64). f32 and f64 values are read as
/// they are (a value that is no f32 is the kernel's error to measure). A narrower format's value
/// may be printed with fewer digits than an f32 needs (numpy prints float16 0.0999755859375 as
/// 0.1): the text is taken as the nearest value of the format when it is that value printed
/// with the text's own digits (within half a unit of its last digit), and refused otherwise
/// (an f32 result, say, that the format does not hold).
fn parse_in(text: &str, storage: Precision) -> Result<f64, String> {
    let not_number = || format!("result '{}' is not a number", quoted(text));
    if storage == Precision::F64 {
        return text.parse().map_err(|_| not_number());
    }
    let x: f32 = text.parse().map_err(|_| not_number())?;
    if storage == Precision::F32 || storage.holds(x as f64) {
        return Ok(x as f64);
    }
    let wide: f64 = text.parse().map_err(|_| not_number())?;
    let nearest = storage.round(wide);
    let digits = super::precision::significant_digits(text) as i32;
    let last_digit = 10f64.powi(wide.abs().log10().floor() as i32 - digits + 1);
    if (wide - nearest).abs() <= 0.5 * last_digit * (1.0 + 1e-9) {
        return Ok(nearest);
    }
    Err(format!(
        "result '{}' is no {storage} value, nor one printed with {digits} digits (the nearest is {nearest})",
        quoted(text)
    ))
}

/// A results file the csv reader cannot parse, as a one-line usage error naming the line.
fn bad_csv(name: &str, e: &csv::Error, columns: usize) -> Error {
    let line = e.position().map_or(0, |p| p.line());
    let why = match e.kind() {
        csv::ErrorKind::UnequalLengths { len, .. } => format!(
            "{len} fields, but the header has {columns} (expected vertex,op,result and no more)"
        ),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => show_text(&e.to_string(), MESSAGE_TEXT),
    };
    Error::Usage(format!("{name}:{line}: {why}"))
}

/// One op's results in vertex order: a 1-d `.npy` array of n float32 values (float64 ones
/// are taken when every value is an f32, as `x.astype(np.float64)` leaves them). A malformed
/// header is a one-line error quoting at most a line's worth of it, control characters
/// escaped.
pub fn read_npy(name: &str, bytes: &[u8], n: usize) -> Result<Vec<f32>, Error> {
    let values = read_npy_in(name, bytes, n, Precision::F32)?;
    Ok(values.into_iter().map(|x| x as f32).collect())
}

/// [`read_npy`] of values of `storage` (exact as f64): float16 (`<f2`), float32, float64,
/// and for bf16 the 2-byte void dtype that ml_dtypes' bfloat16 saves as (`<V2`), each value
/// one of `storage`'s.
pub fn read_npy_in(
    name: &str,
    bytes: &[u8],
    n: usize,
    storage: Precision,
) -> Result<Vec<f64>, Error> {
    let bad = |why: String| Error::Usage(format!("{name}: {why}"));
    // The header's length is read from the file (32 bits from version 2 on), and the parser
    // allocates that much before it reads: a length beyond the file is refused first.
    let (declared, after) = match bytes.get(6..8) {
        Some([1, _]) => (
            bytes
                .get(8..10)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64),
            10,
        ),
        Some([2 | 3, _]) => (
            bytes
                .get(8..12)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64),
            12,
        ),
        _ => (None, 0),
    };
    if let Some(len) = declared.filter(|&len| len > bytes.len().saturating_sub(after) as u64) {
        return Err(bad(format!(
            "not a valid .npy file: its header declares {len} bytes, but {} follow",
            bytes.len().saturating_sub(after)
        )));
    }
    // The parser's time grows exponentially with nested braces (12 took 7.6 s, 16 over a
    // minute): a header nested deeper than any float array's is refused before it.
    if let Some(len) = declared {
        let text = &bytes[after..after + len as usize];
        if nesting(text) > NPY_NESTING {
            return Err(bad(format!(
                "not a valid .npy file: its header nests brackets more than {NPY_NESTING} deep \
                 (a float array's nests 2)"
            )));
        }
    }
    // npyz quotes the header it could not parse, over several lines: one line, cut, here.
    let npy = npyz::NpyFile::new(bytes).map_err(|e| {
        bad(format!(
            "not a valid .npy file: {}",
            show_text(&e.to_string(), MESSAGE_TEXT)
        ))
    })?;
    let shape = npy.shape().to_vec();
    if shape != [n as u64] {
        return Err(bad(format!(
            "shape {shape:?}, but the tree has {n} vertices: expected a 1-d array of {n} \
             results in vertex order"
        )));
    }
    let descr = npy.dtype().descr();
    // `descr` is the header's Python literal, quotes included: '<f4'.
    let dtype = quoted(descr.trim_matches(['\'', '"']));
    let as_f32 = |e: std::io::Error| bad(format!("cannot read its {dtype} data: {e}"));
    let values = match dtype.trim_start_matches(['<', '>', '=', '|']) {
        "f2" => Ok(npy
            .into_vec::<half::f16>()
            .map_err(as_f32)?
            .into_iter()
            .map(half::f16::to_f64)
            .collect::<Vec<f64>>()),
        // ml_dtypes writes its bfloat16 little-endian, whatever the descr's byte order.
        "V2" if storage == Precision::Bf16 => Ok(npy
            .into_vec::<npyz::FixedSizeBytes<2>>()
            .map_err(as_f32)?
            .into_iter()
            .map(|b| half::bf16::from_bits(u16::from_le_bytes(b.0)).to_f64())
            .collect::<Vec<f64>>()),
        "V2" => Err(bad(format!(
            "dtype {dtype}: 2-byte values of no float type numpy knows; ml_dtypes' bfloat16 saves so: give --precision bf16"
        ))),
        "f4" => Ok(npy
            .into_vec::<f32>()
            .map_err(as_f32)?
            .into_iter()
            .map(f64::from)
            .collect()),
        "f8" if storage == Precision::F64 => npy.into_vec::<f64>().map_err(as_f32),
        "f8" => {
            let wide = npy.into_vec::<f64>().map_err(as_f32)?;
            wide.iter()
                .enumerate()
                .map(|(i, &x)| {
                    if f64::from(x as f32) == x || x.is_nan() {
                        Ok(x)
                    } else {
                        Err(bad(format!(
                            "element {i} ({x:e}) is not an f32 value: score judges f32 \
                             results (save x.astype(np.float32))"
                        )))
                    }
                })
                .collect()
        }
        _ => Err(bad(format!(
            "dtype {dtype}: expected float32 results (save x.astype(np.float32))"
        ))),
    }?;
    if let Some((i, x)) = values.iter().enumerate().find(|&(_, &x)| !storage.holds(x)) {
        return Err(bad(format!(
            "element {i} ({x:e}) is no {storage} value: give the results as the kernel stored them"
        )));
    }
    Ok(values)
}

/// The deepest bracket nesting a `.npy` header may have: a 1-d float array's header nests 2
/// (`{'shape': (n,)}`), a structured dtype's a few more (refused later, by its dtype).
const NPY_NESTING: usize = 4;

/// The deepest nesting of `(`, `[` and `{` in a Python literal, outside its quoted strings.
fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &b in text {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    deepest
}

/// How a results file's keys name vertices (docs/inputs.md, "Results files"): a label
/// (Newick/NEXUS name, a file's vertex id) or the vertex's number (0..n−1, preorder of a
/// Newick/NEXUS file). A label carried by several vertices, or a key that is one vertex's
/// label and another's number, is refused: which one the file means cannot be told.
pub struct VertexKeys<'a> {
    labels: &'a Labels,
    n: usize,
    /// Newick/NEXUS names: the first vertex carrying each, and a second one if any.
    names: HashMap<&'a str, (u32, Option<u32>)>,
}

impl<'a> VertexKeys<'a> {
    pub fn new(labels: &'a Labels, n: usize) -> VertexKeys<'a> {
        let mut names = HashMap::new();
        if let Labels::Names { .. } = labels {
            for v in 0..n as u32 {
                if let Some(generators::io::Label::Name(s)) = labels.get(v) {
                    names
                        .entry(s)
                        .and_modify(|e: &mut (u32, Option<u32>)| {
                            e.1.get_or_insert(v);
                        })
                        .or_insert((v, None));
                }
            }
        }
        VertexKeys { labels, n, names }
    }

    /// The vertex a key names, or why none.
    pub fn resolve(&self, key: &str) -> Result<u32, String> {
        let number = key.parse::<u64>().ok();
        let index = number.filter(|&k| k < self.n as u64).map(|k| k as u32);
        let unknown = || format!("unknown vertex '{}'", quoted(key));
        match self.labels {
            Labels::None => index.ok_or_else(unknown),
            Labels::Names { .. } => match (self.names.get(key), index) {
                (Some(&(a, Some(b))), _) => Err(format!(
                    "vertex '{}' is ambiguous: the label of vertices {a} and {b} (and \
                     perhaps more); name them by number (0..n-1 in preorder of the file), or \
                     give the results in vertex order (.npy)",
                    quoted(key)
                )),
                (Some(&(a, None)), Some(i)) if i != a => Err(format!(
                    "vertex '{}' is ambiguous: the label of vertex {a}, and the number of \
                     vertex {i} (0..n-1 in preorder of the file)",
                    quoted(key)
                )),
                (Some(&(a, None)), _) => Ok(a),
                (None, Some(i)) => Ok(i),
                (None, None) => Err(unknown()),
            },
            Labels::FileIds { base, len } => match number {
                Some(k) if k >= *base && k - base < *len as u64 => Ok((k - base) as u32),
                // A vertex without a file id (a virtual root) by its number.
                _ => index.filter(|&i| i as usize >= *len).ok_or_else(unknown),
            },
            Labels::Listed(ids) => match number.map(|k| ids.binary_search(&k)) {
                Some(Ok(i)) => Ok(i as u32),
                _ => index
                    .filter(|&i| i as usize >= ids.len())
                    .ok_or_else(unknown),
            },
        }
    }
}

/// The most characters of a file's text a message quotes.
const MESSAGE_TEXT: usize = 200;

/// A value from the file as a message quotes it: one line, control characters escaped, cut
/// after 40 characters.
fn quoted(text: &str) -> String {
    show_text(text, 40)
}

/// A path's display name (`-`: standard input).
pub fn display(path: &Path) -> String {
    if path.as_os_str() == "-" {
        STDIN.into()
    } else {
        path.display().to_string()
    }
}
