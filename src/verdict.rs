//! Verdicts that make a command fail after its results are written (exit code 3): nodes above
//! a deterministic error bound, and backend results that differ from their CPU twin. Both are
//! bugs, never noise. The offending nodes travel in the error; the library prints nothing.

use crate::Error;
use crate::error::Flagged;
use crate::experiment::Measured;
use crate::notice::Notice;
use analysis::ReferenceKind;

/// Deterministic-bound violations found by a command, with one line per reported node.
#[derive(Debug, Default, Clone)]
pub struct Violations {
    /// Offending nodes (a priori and running bounds together).
    pub count: usize,
    pub lines: Vec<String>,
}

impl Violations {
    pub fn extend(&mut self, other: Violations) {
        self.count += other.count;
        self.lines.extend(other.lines);
    }
}

/// The violations of one evaluated instance; `context` names the instance.
pub fn violations<'a>(
    context: &str,
    measured: impl IntoIterator<Item = &'a Measured>,
) -> Violations {
    let mut out = Violations::default();
    for o in measured {
        let s = &o.bound_summary;
        let total = s.bound_violations + s.sharp_violations + s.running_violations;
        if total == 0 {
            continue;
        }
        out.count += total;
        for v in &s.violations {
            out.lines.push(format!(
                "{context} {} {} vertex {}: computed {:e}, exact {:e}, |error| {:e} > {} bound {:e}",
                o.op,
                o.algorithm,
                v.vertex,
                v.computed,
                v.reference,
                v.abs_error,
                v.bound_kind,
                v.bound
            ));
        }
        if total > s.violations.len() {
            out.lines.push(format!(
                "{context} {} {}: … and {} more",
                o.op,
                o.algorithm,
                total - s.violations.len()
            ));
        }
    }
    out
}

/// Fails with exit code 3 if there are violations, the offending nodes in the error (the
/// binary lists them above its error line). Call it after the results are written. Against
/// the double-double reference (not exact) a node above its bound may be the reference's own
/// error: no verdict is given, and the nodes come back as a warning for the caller to show.
pub fn fail_on_violations(
    v: &Violations,
    reference: ReferenceKind,
) -> Result<Option<Notice>, Error> {
    if v.count == 0 {
        return Ok(None);
    }
    if reference != ReferenceKind::Exact {
        return Ok(Some(Notice::warning(
            format!(
                "{} node(s) above a deterministic bound, judged against the {} reference, \
                 which is not exact: no verdict (rerun with --reference exact):",
                v.count,
                reference.name()
            ),
            v.lines.clone(),
        )));
    }
    Err(Error::BoundViolation(Flagged {
        count: v.count,
        lines: v.lines.clone(),
    }))
}

/// Fails with exit code 3 if a backend differs from its CPU twin anywhere, the nodes in the
/// error. Call it after the results are written.
pub fn fail_on_mismatches((count, lines): &(usize, Vec<String>)) -> Result<(), Error> {
    if *count == 0 {
        return Ok(());
    }
    Err(Error::GpuMismatch(Flagged {
        count: *count,
        lines: lines.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_violation() -> Violations {
        Violations {
            count: 1,
            lines: vec!["tree 0 rootfix vectorial vertex 3: …".into()],
        }
    }

    /// Exact reference: a violation is a verdict (exit 3). Double-double: only a warning.
    #[test]
    fn verdict_only_against_the_exact_reference() {
        assert_eq!(
            fail_on_violations(&Violations::default(), ReferenceKind::Exact).unwrap(),
            None
        );
        match fail_on_violations(&one_violation(), ReferenceKind::Exact) {
            Err(Error::BoundViolation(f)) => assert_eq!((f.count, f.lines.len()), (1, 1)),
            other => panic!("{other:?}"),
        }
        let warning = fail_on_violations(&one_violation(), ReferenceKind::Dd)
            .unwrap()
            .unwrap();
        assert!(warning.head.contains("no verdict"), "{warning}");
        assert_eq!(warning.details, one_violation().lines);
    }
}
