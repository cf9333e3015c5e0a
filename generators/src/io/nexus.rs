//! NEXUS: the trees of TREES blocks (`TREE name = [&R] (...);`), with TRANSLATE applied to
//! leaf labels. Other blocks are skipped; keywords are case-insensitive; `[...]` comments
//! may stand anywhere.

use super::error::{Fail, Reason};
use super::newick::{Parsed, Parser};
use super::text::show;
use std::collections::HashMap;

enum Tok<'a> {
    Word(&'a [u8]),
    /// A quoted string, unescaped.
    Quoted(Vec<u8>),
    Punct(u8),
}

struct Lexer<'a> {
    p: Parser<'a>,
}

impl<'a> Lexer<'a> {
    /// The next token and its offset; `None` at the end of the file.
    fn next(&mut self) -> Result<Option<(usize, Tok<'a>)>, Fail> {
        self.p.skip_ws()?;
        let s = self.p.s;
        let start = self.p.pos;
        let Some(&b) = s.get(start) else {
            return Ok(None);
        };
        let tok = match b {
            b';' | b'=' | b',' => {
                self.p.pos += 1;
                Tok::Punct(b)
            }
            b'\'' | b'"' => {
                let mut out = Vec::new();
                let mut i = start + 1;
                loop {
                    match s[i..].iter().position(|&c| c == b) {
                        None => return Err(Fail::At(start, Reason::UnclosedQuote)),
                        Some(q) => {
                            out.extend_from_slice(&s[i..i + q]);
                            i += q + 1;
                            if s.get(i) == Some(&b) {
                                out.push(b);
                                i += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                self.p.pos = i;
                Tok::Quoted(out)
            }
            _ => {
                let mut i = start;
                while i < s.len()
                    && !s[i].is_ascii_whitespace()
                    && !matches!(s[i], b';' | b'=' | b',' | b'[' | b'\'' | b'"')
                {
                    i += 1;
                }
                self.p.pos = i;
                Tok::Word(&s[start..i])
            }
        };
        Ok(Some((start, tok)))
    }

    /// Skips to the end of the current command (past its ';'). Returns false at the end of
    /// the file.
    fn skip_command(&mut self) -> Result<bool, Fail> {
        loop {
            match self.next()? {
                None => return Ok(false),
                Some((_, Tok::Punct(b';'))) => return Ok(true),
                _ => {}
            }
        }
    }
}

fn is(w: &[u8], kw: &str) -> bool {
    w.eq_ignore_ascii_case(kw.as_bytes())
}

fn unexpected(tok: &Tok, expected: &'static str) -> Reason {
    let found = match tok {
        Tok::Word(w) => format!("'{}'", show(w)),
        Tok::Quoted(q) => format!("'{}'", show(q)),
        Tok::Punct(b) => format!("'{}'", *b as char),
    };
    Reason::Unexpected { found, expected }
}

/// Parses a NEXUS file, keeping tree `index` (counted over all TREES blocks) with its
/// TRANSLATE table applied, its arrays within `budget` bytes. Returns it and the number of
/// trees.
pub(crate) fn parse_file(
    s: &[u8],
    index: usize,
    budget: Option<u64>,
) -> Result<(Parsed, usize), Fail> {
    let mut lx = Lexer {
        p: Parser::new(s, 0, budget),
    };
    match lx.next()? {
        Some((_, Tok::Word(w))) if is(w, "#NEXUS") => {}
        Some((at, _)) => return Err(Fail::At(at, Reason::NexusHeader)),
        None => return Err(Fail::File(Reason::Empty)),
    }
    let mut kept: Option<(Parsed, HashMap<Vec<u8>, String>)> = None;
    let mut scratch = Parsed::default();
    let mut count = 0;
    while let Some((at, tok)) = lx.next()? {
        match tok {
            Tok::Word(w) if is(w, "BEGIN") => {}
            Tok::Punct(b';') => continue,
            t => return Err(Fail::At(at, unexpected(&t, "BEGIN"))),
        }
        let name = match lx.next()? {
            Some((_, Tok::Word(w))) => w.to_ascii_uppercase(),
            Some((at, t)) => return Err(Fail::At(at, unexpected(&t, "a block name"))),
            None => return Err(Fail::At(s.len(), Reason::TruncatedTree)),
        };
        let block = show(&name);
        let unclosed = || {
            Fail::At(
                at,
                Reason::NexusUnclosedBlock {
                    name: block.clone(),
                },
            )
        };
        match lx.next()? {
            Some((_, Tok::Punct(b';'))) => {}
            Some((at, t)) => return Err(Fail::At(at, unexpected(&t, "';'"))),
            None => return Err(unclosed()),
        }
        let trees = name == b"TREES";
        let mut translate: HashMap<Vec<u8>, String> = HashMap::new();
        // Commands of the block, up to END; or ENDBLOCK;.
        loop {
            let Some((_, cmd)) = lx.next()? else {
                return Err(unclosed());
            };
            let Tok::Word(w) = cmd else {
                if matches!(cmd, Tok::Punct(b';')) {
                    continue;
                }
                if !lx.skip_command()? {
                    return Err(unclosed());
                }
                continue;
            };
            if is(w, "END") || is(w, "ENDBLOCK") {
                match lx.next()? {
                    Some((_, Tok::Punct(b';'))) | None => break,
                    Some((at, t)) => return Err(Fail::At(at, unexpected(&t, "';'"))),
                }
            }
            if !trees {
                if !lx.skip_command()? {
                    return Err(unclosed());
                }
                continue;
            }
            if is(w, "TRANSLATE") {
                translate_table(&mut lx, &mut translate, &unclosed)?;
            } else if is(w, "TREE") || is(w, "UTREE") {
                tree_header(&mut lx, &unclosed)?;
                if count == index {
                    let mut t = Parsed::default();
                    lx.p.tree(&mut t)?;
                    kept = Some((t, translate.clone()));
                } else {
                    lx.p.tree(&mut scratch)?;
                }
                count += 1;
            } else if !lx.skip_command()? {
                return Err(unclosed());
            }
        }
    }
    if count == 0 {
        return Err(Fail::File(Reason::NexusNoTrees));
    }
    let Some((mut t, translate)) = kept else {
        return Err(Fail::File(Reason::TreeIndex { index, count }));
    };
    if !translate.is_empty() {
        apply_translate(&mut t, &translate);
    }
    Ok((t, count))
}

/// A TRANSLATE command after its keyword: `key label, key label, ...;` into `translate`.
fn translate_table(
    lx: &mut Lexer<'_>,
    translate: &mut HashMap<Vec<u8>, String>,
    unclosed: &dyn Fn() -> Fail,
) -> Result<(), Fail> {
    loop {
        let key = match lx.next()? {
            Some((_, Tok::Word(k))) => k.to_vec(),
            Some((_, Tok::Quoted(k))) => k,
            Some((at, _)) => return Err(Fail::At(at, Reason::NexusTranslate)),
            None => return Err(unclosed()),
        };
        let (lat, label) = match lx.next()? {
            Some((at, Tok::Word(l))) => (at, l.to_vec()),
            Some((at, Tok::Quoted(l))) => (at, l),
            Some((at, _)) => return Err(Fail::At(at, Reason::NexusTranslate)),
            None => return Err(unclosed()),
        };
        let label = String::from_utf8(label).map_err(|_| Fail::At(lat, Reason::NotUtf8))?;
        if translate.contains_key(&key) {
            let k = show(&key);
            return Err(Fail::At(lat, Reason::NexusTranslateDuplicate(k)));
        }
        translate.insert(key, label);
        match lx.next()? {
            Some((_, Tok::Punct(b','))) => {}
            Some((_, Tok::Punct(b';'))) => return Ok(()),
            Some((at, _)) => return Err(Fail::At(at, Reason::NexusTranslate)),
            None => return Err(unclosed()),
        }
    }
}

/// A TREE command after its keyword, up to its Newick: `[*] name =`.
fn tree_header(lx: &mut Lexer<'_>, unclosed: &dyn Fn() -> Fail) -> Result<(), Fail> {
    let mut tok = lx.next()?;
    if matches!(tok, Some((_, Tok::Word(b"*")))) {
        tok = lx.next()?;
    }
    match tok {
        Some((_, Tok::Word(_) | Tok::Quoted(_))) => {}
        Some((at, t)) => return Err(Fail::At(at, unexpected(&t, "a tree name"))),
        None => return Err(unclosed()),
    }
    match lx.next()? {
        Some((_, Tok::Punct(b'='))) => Ok(()),
        Some((at, t)) => Err(Fail::At(at, unexpected(&t, "'='"))),
        None => Err(unclosed()),
    }
}

/// Replaces leaf labels that are TRANSLATE keys by their taxon names (internal labels are
/// support values or clade names, not taxa).
fn apply_translate(t: &mut Parsed, translate: &HashMap<Vec<u8>, String>) {
    let mut is_leaf = vec![true; t.parent.len()];
    for &p in &t.parent {
        if p != crate::NO_PARENT {
            is_leaf[p as usize] = false;
        }
    }
    let mut text = String::with_capacity(t.label_text.len());
    let mut spans = Vec::with_capacity(t.label_spans.len());
    for &(v, a, b) in &t.label_spans {
        let old = &t.label_text[a as usize..b as usize];
        let new = match translate.get(old.as_bytes()) {
            Some(name) if is_leaf[v as usize] => name.as_str(),
            _ => old,
        };
        let start = text.len() as u32;
        text.push_str(new);
        spans.push((v, start, text.len() as u32));
    }
    t.label_text = text;
    t.label_spans = spans;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NO_PARENT;

    const FILE: &str = "#NEXUS\n[comment; with semicolon]\nBegin taxa;\n  Dimensions ntax=3;\n  \
        taxlabels A 'B b' C;\nEND;\nBEGIN data; matrix A ACGT [;] 'x;y' ; end;\n\
        begin trees;\n translate 1 A, 2 'B b', 3 C;\n tree one = [&R] ((1:1,2:2)9:3,3:4);\n\
        TREE * two = (3,(1,2));\nEndBlock;\n";

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
    fn trees_block_with_translate() {
        let (t, n) = parse_file(FILE.as_bytes(), 0, None).unwrap();
        assert_eq!(n, 2);
        assert_eq!(t.parent, vec![NO_PARENT, 0, 1, 1, 0]);
        assert_eq!(t.length, vec![0.0, 3.0, 1.0, 2.0, 4.0]);
        // The internal label 9 is not translated.
        assert_eq!(labels(&t), vec![(1, "9"), (2, "A"), (3, "B b"), (4, "C")]);
        let (t2, _) = parse_file(FILE.as_bytes(), 1, None).unwrap();
        assert_eq!(labels(&t2), vec![(1, "C"), (3, "A"), (4, "B b")]);
        assert_eq!(
            parse_file(FILE.as_bytes(), 5, None).unwrap_err(),
            Fail::File(Reason::TreeIndex { index: 5, count: 2 })
        );
    }

    #[test]
    fn errors() {
        assert!(matches!(
            parse_file(b"begin trees; tree a = (x,y); end;", 0, None),
            Err(Fail::At(0, Reason::NexusHeader))
        ));
        assert!(matches!(
            parse_file(b"#NEXUS begin trees; tree a = (x,y);", 0, None),
            Err(Fail::At(_, Reason::NexusUnclosedBlock { .. }))
        ));
        assert!(matches!(
            parse_file(b"#NEXUS begin taxa; end;", 0, None),
            Err(Fail::File(Reason::NexusNoTrees))
        ));
        assert!(matches!(
            parse_file(b"#nexus begin trees; tree a = (x,y; end;", 0, None),
            Err(Fail::At(_, Reason::UnclosedParen { .. }))
        ));
    }
}
