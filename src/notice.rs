//! What the library has to tell its caller that is neither a result nor an error: a fallback
//! it took, a resume, weights it changed, a judgement it could not make. The library returns
//! notices as values and never prints; the binary writes them on stderr, the Python package
//! turns them into warnings.

use std::fmt;

/// One notice: a first line, and the lines that detail it (each shown indented).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub head: String,
    pub details: Vec<String>,
}

/// How much a notice matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    /// Worth knowing; nothing is wrong (a resume, a fallback that gives the same bits).
    Info,
    /// A result the caller may want to distrust or act on.
    Warning,
}

impl Notice {
    /// An informational notice of one line.
    pub fn info(head: impl Into<String>) -> Notice {
        Notice {
            kind: NoticeKind::Info,
            head: head.into(),
            details: Vec::new(),
        }
    }

    /// A warning, with its detail lines.
    pub fn warning(head: impl Into<String>, details: Vec<String>) -> Notice {
        Notice {
            kind: NoticeKind::Warning,
            head: head.into(),
            details,
        }
    }
}

/// The head (warnings prefixed `warning: `), then each detail indented by two spaces: how the
/// binary shows a notice on stderr.
impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind == NoticeKind::Warning {
            f.write_str("warning: ")?;
        }
        f.write_str(&self.head)?;
        for line in &self.details {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_reads_as_its_head_then_indented_details() {
        let n = Notice::warning("2 nodes", vec!["a".into(), "b".into()]);
        assert_eq!(n.to_string(), "warning: 2 nodes\n  a\n  b");
        assert_eq!(Notice::info("resuming").to_string(), "resuming");
    }
}
