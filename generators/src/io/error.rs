//! The one error type of every reader: a located, one-line message.

use crate::TreeError;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a file could not be read. `Display` is one line: `FILE:LINE:COL: reason` for a problem
/// at a place in the text, `FILE: byte N: reason` for gzip or binary problems (N counts the
/// raw bytes for gzip, the decompressed bytes for binary data), `FILE: reason` for problems of
/// the whole file. Lines and columns count from 1; columns count characters.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A problem at a place in the text.
    #[error("{}:{line}:{col}: {reason}", path.display())]
    At {
        path: PathBuf,
        line: u64,
        col: u64,
        reason: Reason,
    },
    /// A problem in the gzip layer or binary data, at a byte offset.
    #[error("{}: byte {offset}: {reason}", path.display())]
    AtByte {
        path: PathBuf,
        offset: u64,
        reason: Reason,
    },
    /// A problem of the whole file.
    #[error("{}: {reason}", path.display())]
    File { path: PathBuf, reason: Reason },
}

impl ReadError {
    /// The reason, without the location.
    pub fn reason(&self) -> Option<&Reason> {
        match self {
            ReadError::Io { .. } => None,
            ReadError::At { reason, .. }
            | ReadError::AtByte { reason, .. }
            | ReadError::File { reason, .. } => Some(reason),
        }
    }

    /// `(line, column)` for errors located in the text.
    pub fn line_col(&self) -> Option<(u64, u64)> {
        match self {
            ReadError::At { line, col, .. } => Some((*line, *col)),
            _ => None,
        }
    }
}

/// What a value is, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    BranchLength,
    Weight,
    Value,
    VertexId,
    Parent,
    Index,
    Count,
    Key,
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            What::BranchLength => "branch length",
            What::Weight => "weight",
            What::Value => "value",
            What::VertexId => "vertex id",
            What::Parent => "parent",
            What::Index => "index",
            What::Count => "count",
            What::Key => "key",
        })
    }
}

/// The reason of a [`ReadError`], typed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Reason {
    // ---- whole file, gzip, binary
    #[error("empty file")]
    Empty,
    #[error("empty file after gzip decompression")]
    EmptyDecompressed,
    #[error("is a directory, not a file")]
    IsDirectory,
    #[error("truncated gzip data: the file ends inside the compressed stream")]
    GzipTruncated,
    #[error("corrupt gzip data: {0}")]
    GzipCorrupt(String),
    #[error("{bytes} trailing bytes after the gzip stream (they do not start another gzip member)")]
    GzipTrailing { bytes: usize },
    #[error("binary data (a NUL byte): not a text tree file")]
    Binary,
    #[error("text is not valid UTF-8")]
    NotUtf8,
    #[error("{what} '{text}' is not a number")]
    NotANumber { what: What, text: String },
    #[error("{what} '{text}' is not an integer")]
    NotAnInteger { what: What, text: String },
    #[error("vertex id '{text}' is not a non-negative integer")]
    NotAVertexId { text: String },
    #[error("{what} '{text}' is NaN")]
    Nan { what: What, text: String },
    #[error("{what} '{text}' is infinite")]
    Infinite { what: What, text: String },
    #[error("{what} '{text}' overflows f32 (largest finite value 3.4028235e38)")]
    Overflow { what: What, text: String },
    #[error("{what} '{text}' overflows f64 (largest finite value 1.7976931348623157e308)")]
    OverflowF64 { what: What, text: String },
    #[error(
        "{what} '{text}' is nonzero but below half of f64's smallest subnormal (5e-324): in f64 \
         it would be zero"
    )]
    UnderflowF64 { what: What, text: String },
    #[error(
        "{what} '{text}' is nonzero but below f32::MIN_POSITIVE (1.1754944e-38): in f32 it \
         would be subnormal or zero, and GPUs flush subnormals to zero"
    )]
    Subnormal { what: What, text: String },
    #[error("the tree has more than 2^31 vertices")]
    TooManyVertices,
    #[error("{0}")]
    Tree(TreeError),

    // ---- Newick
    #[error("unbalanced parentheses: {open} '(' not closed (the innermost opened at {line}:{col})")]
    UnclosedParen { open: usize, line: u64, col: u64 },
    #[error("unbalanced parentheses: ')' without a matching '('")]
    UnexpectedClose,
    #[error("',' outside parentheses")]
    CommaOutside,
    #[error("unexpected {found}; expected {expected}")]
    Unexpected {
        found: String,
        expected: &'static str,
    },
    #[error("unexpected end of file: the tree has no closing ';'")]
    MissingSemicolon,
    #[error("unexpected end of file inside the tree (truncated?)")]
    TruncatedTree,
    #[error("text after the ';' of tree {trees} is not a tree (no closing ';')")]
    TextAfterTree { trees: usize },
    #[error("empty tree: ';' without any vertex")]
    EmptyTree,
    #[error("unclosed comment: '[' without ']'")]
    UnclosedComment,
    #[error("unclosed quoted label")]
    UnclosedQuote,
    #[error("':' without a branch length")]
    MissingLength,
    #[error("no tree in the file")]
    NoTree,
    #[error("tree index {index} out of range: the file holds {count} tree(s)")]
    TreeIndex { index: usize, count: usize },

    // ---- NEXUS
    #[error("missing '#NEXUS' at the start of the file")]
    NexusHeader,
    #[error("block {name} has no END;")]
    NexusUnclosedBlock { name: String },
    #[error("no TREES block with a tree")]
    NexusNoTrees,
    #[error("TRANSLATE: expected 'key label' pairs separated by ','")]
    NexusTranslate,
    #[error("TRANSLATE: duplicate key '{0}'")]
    NexusTranslateDuplicate(String),

    // ---- parent arrays
    #[error("expected 'vertex parent [weight]', found {found} fields")]
    ParentFields { found: usize },
    #[error("vertex ids must start at 0 or 1; the smallest is {min}")]
    BadBase { min: u64 },
    #[error("{what} {id} is larger than any vertex id of a tree of {lines} lines")]
    IdTooLarge { what: What, id: u64, lines: u64 },
    #[error(
        "missing vertex {missing}: ids must run {first}..={last}, but this line has vertex {seen}"
    )]
    MissingVertex {
        missing: u64,
        first: u64,
        last: u64,
        seen: u64,
    },
    #[error("duplicate vertex {vertex} (first on line {first_line})")]
    DuplicateVertex { vertex: u64, first_line: u64 },
    #[error("parent {parent} out of range {first}..={last} (the root's parent is -1 or empty)")]
    ParentOutOfRange { parent: i64, first: u64, last: u64 },
    #[error("vertex {vertex} is its own parent")]
    SelfLoop { vertex: u64 },
    #[error(
        "several roots: vertex {first} (line {first_line}) and vertex {second} (this line) have no parent"
    )]
    SeveralRoots {
        first: u64,
        first_line: u64,
        second: u64,
    },
    #[error("no root: every vertex has a parent (the root's parent is -1 or empty)")]
    NoRoot,
    #[error("cycle: vertex {vertex} lies on a cycle of {len} vertices, unreachable from the root")]
    Cycle { vertex: u64, len: u64 },
    #[error(
        "no weight on this line, but line {with} has one (give weights on every line or on none)"
    )]
    MixedWeights { with: u64 },

    // ---- Matrix Market
    #[error(
        "missing Matrix Market header: the first line must be \
         '%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric>'"
    )]
    MtxMissingHeader,
    #[error("bad Matrix Market header: {0}")]
    MtxHeader(String),
    #[error("expected the size line 'rows columns entries'")]
    MtxSizeLine,
    #[error("the matrix is {rows}x{cols}; a graph needs a square matrix")]
    MtxNotSquare { rows: u64, cols: u64 },
    #[error("{what} {index} out of range 1..={n}")]
    MtxIndex {
        what: &'static str,
        index: u64,
        n: u64,
    },
    #[error("expected 'row column{}' ({found} fields)", if *.valued { " value" } else { "" })]
    MtxFields { found: usize, valued: bool },
    #[error("the size line declares {expected} entries, the file has {found}")]
    MtxTooFew { expected: u64, found: u64 },
    #[error("more entries than the {expected} the size line declares")]
    MtxTooMany { expected: u64 },
    #[error("the size line declares {declared} entries, but only {following} lines follow it")]
    MtxEntriesBeyondFile { declared: u64, following: u64 },
    #[error("the size line declares {declared} entries; at most 4294967294 are supported")]
    MtxTooManyEntries { declared: u64 },
    #[error("a BFS root applies only to Matrix Market graphs, not to {format} files")]
    RootOption { format: super::Format },
    #[error("root {root} is not a vertex (1..={n})")]
    RootOutOfRange { root: u64, n: u64 },
    #[error(
        "the graph is disconnected: {components} components, the largest has {largest} of {n} \
         vertices (choose a forest mode: largest or virtual-root)"
    )]
    Disconnected {
        components: usize,
        largest: usize,
        n: usize,
    },
    #[error(
        "root {root} is not in the largest component ({size} vertices, smallest vertex {smallest})"
    )]
    RootNotInLargest {
        root: u64,
        size: usize,
        smallest: u64,
    },

    // ---- weights files
    #[error("expected 'key value', found {found} fields")]
    WeightFields { found: usize },
    #[error("unknown vertex '{key}': {hint}")]
    UnknownKey { key: String, hint: &'static str },
    #[error("duplicate key '{key}' (first on line {first_line})")]
    DuplicateKey { key: String, first_line: u64 },
    #[error("label '{key}' names several vertices ({first} and {second})")]
    AmbiguousLabel {
        key: String,
        first: u32,
        second: u32,
    },
    #[error(
        "key '{key}' is ambiguous: the label of vertex {label_vertex}, and the id of vertex \
         {id_vertex} (0..n-1 in preorder of the file)"
    )]
    AmbiguousKey {
        key: String,
        label_vertex: u32,
        id_vertex: u32,
    },

    // ---- memory
    #[error(
        "{vertices} vertices need about {} of memory to read, more than the {} available",
        human_bytes(*needed),
        human_bytes(*available)
    )]
    TooLargeForMemory {
        vertices: u64,
        needed: u64,
        available: u64,
    },
    #[error(
        "the tree reaches {vertices} vertices here and would need about {} of memory to read, \
         more than the {} available",
        human_bytes(*needed),
        human_bytes(*available)
    )]
    GrowsBeyondMemory {
        vertices: u64,
        needed: u64,
        available: u64,
    },
    #[error(
        "the file holds {bytes} bytes, more than the {} of memory a file's text may take (a \
         third of the {} available)",
        human_bytes(*limit),
        human_bytes(*limit * 3)
    )]
    FileTooLarge { bytes: u64, limit: u64 },
    #[error(
        "the gzip data inflates to more than {} here, the memory a file's text may take (a \
         third of the {} available): a gzip bomb, or a file too large for this machine",
        human_bytes(*limit),
        human_bytes(*limit * 3)
    )]
    InflatesBeyondMemory { limit: u64 },
    #[error(
        "the input goes on past {}, the memory a file's text may take (a third of the {} \
         available): a stream without end (a device such as /dev/zero), or one too large for \
         this machine",
        human_bytes(*limit),
        human_bytes(*limit * 3)
    )]
    StreamTooLarge { limit: u64 },
}

impl Reason {
    /// Whether the reason is the memory available (a file or stream larger than its share,
    /// a gzip stream that inflates past it, a tree that outgrows it), not the file's content.
    pub fn is_memory(&self) -> bool {
        matches!(
            self,
            Reason::TooLargeForMemory { .. }
                | Reason::GrowsBeyondMemory { .. }
                | Reason::FileTooLarge { .. }
                | Reason::InflatesBeyondMemory { .. }
                | Reason::StreamTooLarge { .. }
        )
    }
}

/// A failure inside a reader, located before the file name is known.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fail {
    /// At a byte offset of the (decompressed) text.
    At(usize, Reason),
    /// At the first column of a line (1-based).
    Line(u64, Reason),
    /// The whole file.
    File(Reason),
}

/// Line and column (both 1-based, the column in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &[u8], offset: usize) -> (u64, u64) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    // Count characters, not bytes: skip UTF-8 continuation bytes.
    let col = before[start..]
        .iter()
        .filter(|&&b| (b & 0xC0) != 0x80)
        .count() as u64
        + 1;
    (line, col)
}

impl Fail {
    pub(crate) fn locate(self, path: &Path, text: &[u8]) -> ReadError {
        let path = path.to_path_buf();
        match self {
            Fail::At(offset, reason) => {
                let (line, col) = line_col(text, offset);
                ReadError::At {
                    path,
                    line,
                    col,
                    reason,
                }
            }
            Fail::Line(line, reason) => ReadError::At {
                path,
                line,
                col: 1,
                reason,
            },
            Fail::File(reason) => ReadError::File { path, reason },
        }
    }
}

/// `bytes` as a person reads it: `9.6 GB`, `310 MB`, `12 kB` (decimal units).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_people_write_them() {
        assert_eq!(human_bytes(9_600_000_000), "9.6 GB");
        assert_eq!(human_bytes(310_000_000), "310 MB");
        assert_eq!(human_bytes(12_000), "12 kB");
    }
}
