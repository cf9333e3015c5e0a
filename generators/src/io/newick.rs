//! Newick: an iterative parser (explicit stack; a caterpillar nested 10^6 deep is fine).
//!
//! Vertex ids are the preorder of the file: the root is 0 and every vertex gets its id when
//! its subtree opens, so children keep file order and natural child order = file order.

use super::error::{Fail, Reason, What, line_col};
use super::own_weights::{Refused, weight_value};
use super::text::show;
use crate::NO_PARENT;

/// One parsed tree: parent array, branch lengths and labels in preorder of the file.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub parent: Vec<u32>,
    /// Branch length of every vertex (0 where missing).
    pub length: Vec<f32>,
    /// Whether any vertex has a length.
    pub any_length: bool,
    /// Lengths that are numbers but no valid f32 weights (an error only if used).
    pub refused: Refused,
    /// Label text of all labelled vertices, one after the other.
    pub label_text: String,
    /// `(vertex, start, end)` into `label_text` for every labelled vertex, in file order of
    /// the labels (postorder for internal vertices).
    pub label_spans: Vec<(u32, u32, u32)>,
    /// Number of leaves.
    pub leaves: usize,
}

impl Parsed {
    fn clear(&mut self) {
        self.parent.clear();
        self.length.clear();
        self.any_length = false;
        self.refused.clear();
        self.label_text.clear();
        self.label_spans.clear();
        self.leaves = 0;
    }
}

const fn delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')'
            | b'['
            | b']'
            | b'\''
            | b':'
            | b';'
            | b','
            | b' '
            | b'\t'
            | b'\n'
            | b'\r'
            | b'\x0b'
            | b'\x0c'
    )
}

pub(crate) struct Parser<'a> {
    pub s: &'a [u8],
    pub pos: usize,
    /// Bytes the tree's arrays may take ([`super::memory::Budget`]); `None`: no check.
    pub budget: Option<u64>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(s: &'a [u8], pos: usize, budget: Option<u64>) -> Self {
        Parser { s, pos, budget }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// Skips whitespace and `[...]` comments.
    pub(crate) fn skip_ws(&mut self) -> Result<(), Fail> {
        while let Some(b) = self.peek() {
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b'[' {
                match self.s[self.pos..].iter().position(|&c| c == b']') {
                    Some(p) => self.pos += p + 1,
                    None => return Err(Fail::At(self.pos, Reason::UnclosedComment)),
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "end of file".into(),
            Some(_) => {
                let end = (self.pos..self.s.len())
                    .find(|&i| i > self.pos && delim(self.s[i]))
                    .unwrap_or(self.s.len());
                format!("'{}'", show(&self.s[self.pos..end]))
            }
        }
    }

    /// Reads a label (quoted or not) into `out`; returns whether there was one.
    fn label(&mut self, out: &mut String) -> Result<bool, Fail> {
        match self.peek() {
            Some(b'\'') => {
                let open = self.pos;
                self.pos += 1;
                let start = out.len();
                let mut bytes = Vec::new();
                loop {
                    let rest = &self.s[self.pos..];
                    let Some(q) = rest.iter().position(|&c| c == b'\'') else {
                        return Err(Fail::At(open, Reason::UnclosedQuote));
                    };
                    bytes.extend_from_slice(&rest[..q]);
                    self.pos += q + 1;
                    if self.peek() == Some(b'\'') {
                        // '' is an escaped quote.
                        bytes.push(b'\'');
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                let text = std::str::from_utf8(&bytes)
                    .map_err(|e| Fail::At(open + 1 + e.valid_up_to(), Reason::NotUtf8))?;
                out.push_str(text);
                // An empty quoted label '' still counts as a label of length 0: treat as none.
                Ok(out.len() > start)
            }
            Some(b) if !delim(b) => {
                let start = self.pos;
                while self.peek().is_some_and(|c| !delim(c)) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.pos])
                    .map_err(|e| Fail::At(start + e.valid_up_to(), Reason::NotUtf8))?;
                out.push_str(text);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The label and branch length after a vertex.
    fn tail(&mut self, v: u32, t: &mut Parsed) -> Result<(), Fail> {
        self.skip_ws()?;
        let start = t.label_text.len();
        if self.label(&mut t.label_text)? {
            let end = t.label_text.len();
            if end > u32::MAX as usize {
                return Err(Fail::At(self.pos, Reason::TooManyVertices));
            }
            t.label_spans.push((v, start as u32, end as u32));
        }
        self.skip_ws()?;
        if self.peek() == Some(b':') {
            self.pos += 1;
            self.skip_ws()?;
            let start = self.pos;
            while self.peek().is_some_and(|c| !delim(c)) {
                self.pos += 1;
            }
            if start == self.pos {
                return Err(Fail::At(start, Reason::MissingLength));
            }
            let len = weight_value(
                &self.s[start..self.pos],
                What::BranchLength,
                start,
                &mut t.refused,
            )?;
            t.length[v as usize] = len;
            t.any_length = true;
        }
        Ok(())
    }

    fn vertex(&self, t: &mut Parsed, parent: u32) -> Result<u32, Fail> {
        let v = t.parent.len();
        if v >= (1 << 31) {
            return Err(Fail::At(self.pos, Reason::TooManyVertices));
        }
        // Nesting and size alike: every '(' and every leaf is a vertex, so the check of the
        // vertices read so far bounds the stack of open parentheses too.
        if v.is_multiple_of(super::memory::NEWICK_CHECK_EVERY) {
            super::memory::check_newick(self.budget, v as u64)
                .map_err(|r| Fail::At(self.pos, r))?;
        }
        t.parent.push(parent);
        t.length.push(0.0);
        Ok(v as u32)
    }

    /// Parses one tree starting at `self.pos` (after leading whitespace/comments) up to and
    /// including its ';'. `t` is cleared first.
    pub(crate) fn tree(&mut self, t: &mut Parsed) -> Result<(), Fail> {
        t.clear();
        // Open internal vertices and the offsets of their '('.
        let mut stack: Vec<(u32, usize)> = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(b';') {
            return Err(Fail::At(self.pos, Reason::EmptyTree));
        }
        let mut expect_node = true;
        loop {
            self.skip_ws()?;
            let parent = stack.last().map_or(NO_PARENT, |&(v, _)| v);
            if expect_node {
                match self.peek() {
                    Some(b'(') => {
                        let v = self.vertex(t, parent)?;
                        stack.push((v, self.pos));
                        self.pos += 1;
                    }
                    None => return Err(Fail::At(self.pos, Reason::TruncatedTree)),
                    Some(_) => {
                        // A leaf (possibly unnamed, as in "(,)").
                        let v = self.vertex(t, parent)?;
                        t.leaves += 1;
                        self.tail(v, t)?;
                        expect_node = false;
                    }
                }
            } else {
                match self.peek() {
                    Some(b',') => {
                        if stack.is_empty() {
                            return Err(Fail::At(self.pos, Reason::CommaOutside));
                        }
                        self.pos += 1;
                        expect_node = true;
                    }
                    Some(b')') => {
                        let Some((v, _)) = stack.pop() else {
                            return Err(Fail::At(self.pos, Reason::UnexpectedClose));
                        };
                        self.pos += 1;
                        self.tail(v, t)?;
                    }
                    Some(b';') => {
                        if let Some(&(_, open)) = stack.last() {
                            return Err(self.unclosed(stack.len(), open));
                        }
                        self.pos += 1;
                        return Ok(());
                    }
                    None => {
                        return Err(match stack.last() {
                            Some(&(_, open)) => self.unclosed(stack.len(), open),
                            None => Fail::At(self.pos, Reason::MissingSemicolon),
                        });
                    }
                    Some(_) => {
                        return Err(Fail::At(
                            self.pos,
                            Reason::Unexpected {
                                found: self.found(),
                                expected: "',', ')' or ';'",
                            },
                        ));
                    }
                }
            }
        }
    }

    fn unclosed(&self, open: usize, at: usize) -> Fail {
        let (line, col) = line_col(self.s, at);
        Fail::At(self.pos, Reason::UnclosedParen { open, line, col })
    }
}

/// Parses every tree of a Newick file, keeping tree `index`, its arrays within `budget`
/// bytes. Returns it and the tree count.
pub(crate) fn parse_file(
    s: &[u8],
    index: usize,
    budget: Option<u64>,
) -> Result<(Parsed, usize), Fail> {
    let mut p = Parser::new(s, 0, budget);
    let mut kept = Parsed::default();
    let mut scratch = Parsed::default();
    let mut count = 0;
    loop {
        p.skip_ws()?;
        if p.pos >= s.len() {
            break;
        }
        let start = p.pos;
        let t = if count == index {
            &mut kept
        } else {
            &mut scratch
        };
        match p.tree(t) {
            Ok(()) => count += 1,
            Err(Fail::At(_, Reason::MissingSemicolon | Reason::TruncatedTree)) if count > 0 => {
                return Err(Fail::At(start, Reason::TextAfterTree { trees: count }));
            }
            Err(e) => return Err(e),
        }
    }
    if count == 0 {
        return Err(Fail::File(Reason::NoTree));
    }
    if index >= count {
        return Err(Fail::File(Reason::TreeIndex { index, count }));
    }
    Ok((kept, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Parsed {
        parse_file(s.as_bytes(), 0, None).unwrap().0
    }

    fn err(s: &str) -> Reason {
        match parse_file(s.as_bytes(), 0, None).unwrap_err() {
            Fail::At(_, r) | Fail::Line(_, r) | Fail::File(r) => r,
        }
    }

    fn labels(t: &Parsed) -> Vec<(u32, &str)> {
        let mut v: Vec<_> = t
            .label_spans
            .iter()
            .map(|&(v, a, b)| (v, &t.label_text[a as usize..b as usize]))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn fig2_preorder() {
        // a(b(c,d,e),f) as Newick: ((c,d,e)b,f)a;
        let t = one("((c:1,d:2,e:3)b:4,f:5)a;");
        assert_eq!(t.parent, vec![NO_PARENT, 0, 1, 1, 1, 0]);
        assert_eq!(t.length, vec![0.0, 4.0, 1.0, 2.0, 3.0, 5.0]);
        assert_eq!(
            labels(&t),
            vec![(0, "a"), (1, "b"), (2, "c"), (3, "d"), (4, "e"), (5, "f")]
        );
        assert_eq!(t.leaves, 4);
    }

    #[test]
    fn quotes_comments_unary_and_empty_leaves() {
        let t = one("[x]('it''s [not] a comment':1[c],(,):2[&&NHX:x=1])'r o''ot':-0.5;\n[end]");
        assert_eq!(t.parent, vec![NO_PARENT, 0, 0, 2, 2]);
        assert_eq!(labels(&t), vec![(0, "r o'ot"), (1, "it's [not] a comment")]);
        assert_eq!(t.length[0], -0.5);
        let u = one("((a));");
        assert_eq!(u.parent, vec![NO_PARENT, 0, 1]);
        assert!(!u.any_length);
        let single = one("x:3;");
        assert_eq!(single.parent, vec![NO_PARENT]);
        assert_eq!(single.length, vec![3.0]);
    }

    #[test]
    fn several_trees() {
        let s = b"(a,b);\n(c,(d,e));\n";
        let (t, n) = parse_file(s, 1, None).unwrap();
        assert_eq!(n, 2);
        assert_eq!(t.parent, vec![NO_PARENT, 0, 0, 2, 2]);
        assert_eq!(
            parse_file(s, 2, None).unwrap_err(),
            Fail::File(Reason::TreeIndex { index: 2, count: 2 })
        );
    }

    #[test]
    fn errors() {
        assert!(matches!(
            err("((a,b);"),
            Reason::UnclosedParen { open: 1, .. }
        ));
        assert_eq!(err("(a,b));"), Reason::UnexpectedClose);
        assert_eq!(err("(a,b)"), Reason::MissingSemicolon);
        assert_eq!(
            err("(a,b"),
            Reason::UnclosedParen {
                open: 1,
                line: 1,
                col: 1
            }
        );
        assert_eq!(err("(a,"), Reason::TruncatedTree);
        assert_eq!(err("(a,b);x"), Reason::TextAfterTree { trees: 1 });
        assert_eq!(err("a,b;"), Reason::CommaOutside);
        assert_eq!(err("(a:,b);"), Reason::MissingLength);
        assert!(matches!(err("(a:x,b);"), Reason::NotANumber { .. }));
        assert_eq!(err("(a,b)[;"), Reason::UnclosedComment);
        assert_eq!(err("('a,b);"), Reason::UnclosedQuote);
        assert_eq!(err(""), Reason::NoTree);
        assert_eq!(err(" [only a comment] "), Reason::NoTree);
        assert_eq!(err(";"), Reason::EmptyTree);
        assert!(matches!(err("(a b,c);"), Reason::Unexpected { .. }));
    }

    /// Numbers that are no valid weights do not stop the parse: each tree keeps its own
    /// complaints, for when its lengths are used as weights.
    #[test]
    fn invalid_lengths_are_recorded_per_tree() {
        use crate::io::own_weights::Subnormal;
        let s = b"(a:1e39,b:-1e-40);\n(c:nan,d);\n(e:1,f);\n";
        let first = |t: Parsed| t.refused.under(Subnormal::Refuse).0;
        let (t, _) = parse_file(s, 0, None).unwrap();
        assert_eq!(t.length[2].to_bits(), (-0.0f32).to_bits());
        assert!(matches!(first(t), Some((3, Reason::Overflow { .. }))));
        let (t, _) = parse_file(s, 0, None).unwrap();
        assert!(matches!(
            t.refused.under(Subnormal::Flush),
            (Some((3, Reason::Overflow { .. })), 1)
        ));
        assert!(matches!(
            first(parse_file(s, 1, None).unwrap().0),
            Some((22, Reason::Nan { .. }))
        ));
        assert_eq!(first(parse_file(s, 2, None).unwrap().0), None);
    }

    #[test]
    fn deep_caterpillar_has_no_recursion() {
        let n = 200_000;
        let mut s = String::with_capacity(4 * n);
        for _ in 0..n {
            s.push('(');
        }
        s.push('x');
        for _ in 0..n {
            s.push_str(",y)");
        }
        s.push(';');
        let t = one(&s);
        assert_eq!(t.parent.len(), 2 * n + 1);
        assert_eq!(t.leaves, n + 1);
    }
}
