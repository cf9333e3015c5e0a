//! Readers for trees users bring: Newick, NEXUS, Matrix Market graphs (BFS spanning trees)
//! and parent arrays, gzipped or not, plus weights files. Conventions: `docs/inputs.md`.
//!
//! Every reader is iterative (no recursion: a caterpillar nested 10^6 deep loads), keeps
//! labels in one buffer, and reports bad input as a [`ReadError`] whose `Display` is one
//! line `FILE:LINE:COL: reason`; no input makes it panic.

mod error;
mod memory;
mod mtx;
mod mtx_read;
mod newick;
mod nexus;
mod own_weights;
mod parents;
mod source;
mod spanning;
mod text;
mod weights;

pub use error::human_bytes;
pub use error::{ReadError, Reason, What};
pub use own_weights::{OwnWeights, Subnormal};
pub use source::{read_bytes, read_stdin, read_stream};
pub use text::show_text;
pub use weights::WeightsFile;

use crate::Tree;
use error::Fail;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

/// A tree file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Newick,
    Nexus,
    MatrixMarket,
    ParentArray,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Newick,
        Format::Nexus,
        Format::MatrixMarket,
        Format::ParentArray,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Newick => "newick",
            Format::Nexus => "nexus",
            Format::MatrixMarket => "mtx",
            Format::ParentArray => "parents",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "newick" | "nwk" => Ok(Format::Newick),
            "nexus" | "nex" => Ok(Format::Nexus),
            "mtx" | "matrix-market" | "mm" => Ok(Format::MatrixMarket),
            "parents" | "parent-array" => Ok(Format::ParentArray),
            _ => Err(format!(
                "unknown tree format '{s}' (expected newick, nexus, mtx or parents)"
            )),
        }
    }
}

/// What to do with a disconnected Matrix Market graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ForestMode {
    /// An error naming the number of components and the size of the largest.
    #[default]
    Refuse,
    /// Keep the largest component (ties: the one holding the smallest vertex), renumbered
    /// compactly in increasing file id; labels keep the file ids.
    Largest,
    /// Add one root vertex (id n, weight 0) whose children are the BFS roots of the
    /// components: the requested root for its component, the smallest vertex for the others.
    VirtualRoot,
}

impl ForestMode {
    pub fn name(self) -> &'static str {
        match self {
            ForestMode::Refuse => "refuse",
            ForestMode::Largest => "largest",
            ForestMode::VirtualRoot => "virtual-root",
        }
    }
}

impl fmt::Display for ForestMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ForestMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "refuse" => Ok(ForestMode::Refuse),
            "largest" => Ok(ForestMode::Largest),
            "virtual-root" => Ok(ForestMode::VirtualRoot),
            _ => Err(format!(
                "unknown forest mode '{s}' (expected refuse, largest or virtual-root)"
            )),
        }
    }
}

/// How to read a tree file.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The format; `None` detects it (see [`detect_format`]).
    pub format: Option<Format>,
    /// Which tree of a Newick/NEXUS file with several (0 = the first).
    pub tree_index: usize,
    /// BFS root of a Matrix Market graph, as a file id (1-based); `None` = vertex 1.
    pub root: Option<u64>,
    /// What to do with a disconnected Matrix Market graph.
    pub forest: ForestMode,
    /// What to do with subnormal weights: the file's own (when they are used) and those of a
    /// weights file read for it.
    pub subnormal: Subnormal,
    /// Bytes the reader may allocate beyond the file's text; a file declaring more vertices
    /// than fit is refused before its arrays are allocated. `None`: no check.
    pub memory_limit: Option<u64>,
}

/// Per-vertex labels, stored compactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Labels {
    /// No vertex has a label (a Newick/NEXUS file without names).
    None,
    /// Newick/NEXUS names: vertex v's label is `text[spans[v].0..spans[v].1]`, unlabelled
    /// where the span is empty.
    Names {
        text: String,
        spans: Vec<(u32, u32)>,
    },
    /// Vertex `v < len` is file id `v + base` (parent arrays; Matrix Market with base 1);
    /// vertices from `len` on (a virtual root) have no file id.
    FileIds { base: u64, len: usize },
    /// Vertex v is file id `ids[v]` (increasing; Matrix Market forest mode `Largest`).
    Listed(Vec<u64>),
}

/// One vertex's label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label<'a> {
    Name(&'a str),
    FileId(u64),
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Name(s) => f.write_str(s),
            Label::FileId(id) => write!(f, "{id}"),
        }
    }
}

impl Labels {
    /// The label of vertex `v`, if it has one.
    pub fn get(&self, v: u32) -> Option<Label<'_>> {
        let v = v as usize;
        match self {
            Labels::None => None,
            Labels::Names { text, spans } => {
                let &(a, b) = spans.get(v)?;
                (a < b).then(|| Label::Name(&text[a as usize..b as usize]))
            }
            Labels::FileIds { base, len } => (v < *len).then(|| Label::FileId(v as u64 + base)),
            Labels::Listed(ids) => ids.get(v).map(|&id| Label::FileId(id)),
        }
    }
}

/// A tree read from a file.
#[derive(Debug, Clone)]
pub struct TreeFile {
    pub path: PathBuf,
    pub format: Format,
    /// SHA-256 (hex) of the file's bytes as stored: of the compressed bytes if gzipped.
    pub sha256: String,
    /// Size of the file as stored.
    pub bytes: u64,
    /// Whether the file was gzipped.
    pub gzipped: bool,
    /// The tree, natural child order (= file order for Newick/NEXUS, increasing vertex id
    /// otherwise).
    pub tree: Tree,
    /// The file's own weights (branch lengths, matrix values, parent-array weights); `None`
    /// when it has none. Numbers that are no valid f32 weights are an error only when these
    /// weights are used ([`OwnWeights::get`], [`TreeFile::own_weights`]).
    pub weights: Option<OwnWeights>,
    /// The read's subnormal mode; a weights file read for this tree follows it.
    pub subnormal: Subnormal,
    /// The read's memory limit ([`ReadOptions::memory_limit`]); so does a weights file.
    pub memory_limit: Option<u64>,
    pub labels: Labels,
    /// Trees in the file (Newick/NEXUS; 1 otherwise).
    pub trees_in_file: usize,
    /// Connected components of a Matrix Market graph (1 otherwise).
    pub components: usize,
    /// Wall time of the read, parse and tree construction, in seconds.
    pub read_s: f64,
}

impl TreeFile {
    /// The file's own weights, `None` if it has none, or the error of the first number in the
    /// file that is no valid weight (see [`OwnWeights::get`]).
    pub fn own_weights(&self) -> Result<Option<&[f32]>, ReadError> {
        self.weights.as_ref().map(OwnWeights::get).transpose()
    }
}

/// Structural figures of a tree (the seed paper's Table I and more).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeStats {
    pub vertices: usize,
    pub leaves: usize,
    /// The largest depth (0 for a single vertex).
    pub height: u32,
    /// Number of levels (height + 1): Table I's "Depth" column (its n / levels is exactly the
    /// table's average branching factor).
    pub levels: usize,
    /// Vertices per level, Table I's average branching factor ([`Tree::mean_branching`]).
    pub mean_branching: f64,
    /// Largest number of children.
    pub max_degree: u32,
}

impl TreeStats {
    pub fn of(tree: &Tree) -> TreeStats {
        let (start, _) = tree.csr();
        let leaves = start.windows(2).filter(|w| w[0] == w[1]).count();
        TreeStats {
            vertices: tree.len(),
            leaves,
            height: tree.height(),
            levels: tree.num_levels(),
            mean_branching: tree.mean_branching(),
            max_degree: tree.max_out_degree(),
        }
    }
}

/// The format of a file: `#NEXUS` or `%%MatrixMarket` at the start of the text (after a
/// byte-order mark, whitespace and `[...]` comments); else the extension (a trailing `.gz`
/// ignored): `.nwk .tre .tree .newick .nw` Newick, `.nex .nexus .nxs` NEXUS, `.mtx` Matrix
/// Market; else Newick if the text starts with `(`; else a parent array.
pub fn detect_format(path: &Path, text: &[u8]) -> Format {
    let mut t = text.strip_prefix(BOM).unwrap_or(text);
    loop {
        let skip = t
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(t.len());
        t = &t[skip..];
        // Leading Newick/NEXUS comments.
        if t.first() == Some(&b'[') {
            match t.iter().position(|&b| b == b']') {
                Some(p) => t = &t[p + 1..],
                None => break,
            }
        } else {
            break;
        }
    }
    let starts = |p: &str| t.len() >= p.len() && t[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    if starts("#NEXUS") {
        return Format::Nexus;
    }
    if starts("%%MatrixMarket") {
        return Format::MatrixMarket;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase());
    let name = name.as_deref().unwrap_or("");
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "nwk" | "tre" | "tree" | "newick" | "nw" => Format::Newick,
        "nex" | "nexus" | "nxs" => Format::Nexus,
        "mtx" => Format::MatrixMarket,
        _ if t.first() == Some(&b'(') => Format::Newick,
        _ => Format::ParentArray,
    }
}

/// The UTF-8 byte-order mark some editors put at the start of a text file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The text of a file: gunzipped if it starts with the gzip magic bytes (1f 8b), whatever
/// its name, and without a leading UTF-8 byte-order mark (line 1's columns count from the
/// character after it). A truncated or corrupt gzip stream is an error, never short data; so
/// are bytes after it that do not start another member, an empty file and a NUL byte
/// (binary data, at an offset of the decompressed bytes, a byte-order mark included); and so
/// is a stream that inflates beyond `text_limit`, at the compressed byte where it does.
fn decode<'a>(
    path: &Path,
    raw: &'a [u8],
    text_limit: Option<u64>,
) -> Result<(Cow<'a, [u8]>, bool), ReadError> {
    let file_err = |reason| ReadError::File {
        path: path.to_path_buf(),
        reason,
    };
    let byte_err = |offset: usize, reason| ReadError::AtByte {
        path: path.to_path_buf(),
        offset: offset as u64,
        reason,
    };
    if raw.is_empty() {
        return Err(file_err(Reason::Empty));
    }
    let gzipped = raw.starts_with(&GZIP_MAGIC);
    let mut text: Cow<[u8]> = if gzipped {
        let out = gunzip(raw, text_limit).map_err(|(at, reason)| byte_err(at, reason))?;
        if out.is_empty() {
            return Err(file_err(Reason::EmptyDecompressed));
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    };
    if let Some(p) = text.iter().position(|&b| b == 0) {
        return Err(byte_err(p, Reason::Binary));
    }
    if text.starts_with(BOM) {
        text = match text {
            Cow::Borrowed(t) => Cow::Borrowed(&t[BOM.len()..]),
            Cow::Owned(mut t) => {
                t.drain(..BOM.len());
                Cow::Owned(t)
            }
        };
    }
    Ok((text, gzipped))
}

/// Decompresses gzip data member by member, as `zcat` does with concatenated members (`cat
/// a.gz b.gz`, bgzip). Bytes after a member that do not start another one are an error naming
/// their offset: such a file was damaged or mis-assembled, and its text may be incomplete.
/// Errors are (offset in `raw`, reason). The output stops at `limit` bytes, and a stream that
/// would go on is an error at the compressed byte reached: a few megabytes of gzip can inflate
/// to gigabytes.
fn gunzip(raw: &[u8], limit: Option<u64>) -> Result<Vec<u8>, (usize, Reason)> {
    let limit = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let mut out: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut rest: &[u8] = raw;
    loop {
        // A `&[u8]` reader: the decoder consumes exactly one member from it.
        let mut dec = flate2::bufread::GzDecoder::new(&mut rest);
        loop {
            let read = dec.read(&mut chunk);
            let consumed = raw.len() - dec.get_ref().len();
            let n = match read {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Err((consumed, Reason::GzipTruncated));
                }
                Err(e) => return Err((consumed, Reason::GzipCorrupt(e.to_string()))),
            };
            if out.len() + n > limit {
                return Err((
                    consumed,
                    Reason::InflatesBeyondMemory {
                        limit: limit as u64,
                    },
                ));
            }
            // Doubling, but never past the limit: the buffer stays within it.
            if out.capacity() - out.len() < n {
                let want = (out.capacity() * 2).max(out.len() + n).min(limit);
                out.reserve_exact(want - out.len());
            }
            out.extend_from_slice(&chunk[..n]);
        }
        drop(dec);
        if rest.is_empty() {
            return Ok(out);
        }
        if !rest.starts_with(&GZIP_MAGIC) {
            return Err((
                raw.len() - rest.len(),
                Reason::GzipTrailing { bytes: rest.len() },
            ));
        }
    }
}

pub fn sha256_hex(raw: &[u8]) -> String {
    let digest = Sha256::digest(raw);
    let mut s = String::with_capacity(64);
    for b in digest {
        use fmt::Write;
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Reads a tree file (see the module docs and `docs/inputs.md`).
pub fn read_tree(path: &Path, opts: &ReadOptions) -> Result<TreeFile, ReadError> {
    let t0 = Instant::now();
    let raw = read_bytes(path, opts.memory_limit)?;
    let mut tf = read_tree_bytes(path, &raw, opts)?;
    tf.read_s = t0.elapsed().as_secs_f64();
    Ok(tf)
}

/// Reads a tree from the bytes of a file; `path` names it in messages and picks the format
/// by extension when the content does not.
pub fn read_tree_bytes(path: &Path, raw: &[u8], opts: &ReadOptions) -> Result<TreeFile, ReadError> {
    let t0 = Instant::now();
    let (text, gzipped) = decode(path, raw, memory::text_limit(opts.memory_limit))?;
    let format = opts.format.unwrap_or_else(|| detect_format(path, &text));
    // What the tree's arrays may take: the limit less the bytes held while it parses (the
    // file, its inflated text, and the labels copied out of it, at most as long).
    let held = raw.len() as u64 + text.len() as u64 * if gzipped { 2 } else { 1 };
    let budget = opts.memory_limit.map(|l| l.saturating_sub(held));
    let fail = |f: Fail| f.locate(path, &text);
    let only_one = |count: usize| {
        if opts.tree_index >= count {
            Err(Fail::File(Reason::TreeIndex {
                index: opts.tree_index,
                count,
            }))
        } else {
            Ok(())
        }
    };
    if opts.root.is_some() && format != Format::MatrixMarket {
        return Err(fail(Fail::File(Reason::RootOption { format })));
    }
    let own = |values, refused| OwnWeights::new(values, refused, opts.subnormal, path, &text);
    let (tree, weights, labels, trees_in_file, components) = match format {
        Format::Newick | Format::Nexus => {
            let (p, count) = if format == Format::Newick {
                newick::parse_file(&text, opts.tree_index, budget)
            } else {
                nexus::parse_file(&text, opts.tree_index, budget)
            }
            .map_err(fail)?;
            let n = p.parent.len();
            let labels = if p.label_spans.is_empty() {
                Labels::None
            } else {
                let mut spans = vec![(0u32, 0u32); n];
                for &(v, a, b) in &p.label_spans {
                    spans[v as usize] = (a, b);
                }
                Labels::Names {
                    text: p.label_text,
                    spans,
                }
            };
            let weights = p.any_length.then(|| own(p.length, p.refused));
            let tree = Tree::from_parents(p.parent, crate::ChildOrder::Natural)
                .map_err(|e| fail(Fail::File(Reason::Tree(e))))?;
            (tree, weights, labels, count, 1)
        }
        Format::ParentArray => {
            only_one(1).map_err(fail)?;
            memory::check_parents(opts.memory_limit, &text).map_err(fail)?;
            let p = parents::parse(&text).map_err(fail)?;
            let len = p.tree.len();
            let labels = Labels::FileIds { base: p.base, len };
            let weights = p.weights.map(|w| own(w, p.refused));
            (p.tree, weights, labels, 1, 1)
        }
        Format::MatrixMarket => {
            only_one(1).map_err(fail)?;
            let m = mtx::parse_within(&text, opts.root, opts.forest, opts.memory_limit)
                .map_err(fail)?;
            let labels = match m.file_ids {
                Some(ids) => Labels::Listed(ids),
                None => Labels::FileIds {
                    base: 1,
                    len: m.file_vertices as usize,
                },
            };
            let weights = m.weights.map(|w| own(w, m.refused));
            (m.tree, weights, labels, 1, m.components)
        }
    };
    Ok(TreeFile {
        path: path.to_path_buf(),
        format,
        sha256: sha256_hex(raw),
        bytes: raw.len() as u64,
        gzipped,
        tree,
        weights,
        subnormal: opts.subnormal,
        memory_limit: opts.memory_limit,
        labels,
        trees_in_file,
        components,
        read_s: t0.elapsed().as_secs_f64(),
    })
}

/// Reads a weights file for `tree` (see the module `weights`): one weight per vertex of the
/// tree, 0 for vertices the file does not name; subnormal values as `tree.subnormal` says.
pub fn read_weights_file(path: &Path, tree: &TreeFile) -> Result<WeightsFile, ReadError> {
    let raw = read_bytes(path, tree.memory_limit)?;
    read_weights_bytes(path, &raw, tree)
}

/// [`read_weights_file`] on the bytes of a file.
pub fn read_weights_bytes(
    path: &Path,
    raw: &[u8],
    tree: &TreeFile,
) -> Result<WeightsFile, ReadError> {
    let (text, _) = decode(path, raw, memory::text_limit(tree.memory_limit))?;
    weights::parse(&text, &tree.labels, tree.tree.len(), tree.subnormal)
        .map_err(|f| f.locate(path, &text))
}

/// [`read_weights_file`] with every value read as the nearest f64 (f64 weights, on the CPU:
/// subnormals kept, a nonzero value that f64 rounds to zero refused).
pub fn read_weights_file_f64(path: &Path, tree: &TreeFile) -> Result<WeightsFile<f64>, ReadError> {
    let raw = read_bytes(path, tree.memory_limit)?;
    let (text, _) = decode(path, &raw, memory::text_limit(tree.memory_limit))?;
    weights::parse(&text, &tree.labels, tree.tree.len(), tree.subnormal)
        .map_err(|f| f.locate(path, &text))
}
