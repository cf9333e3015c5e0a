//! Verdicts that make a command fail after its results are written (exit code 3): nodes above
//! a deterministic error bound, and backend results that differ from their CPU twin. Both are
//! bugs, never noise.

use crate::Error;
use crate::experiment::Measured;
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

/// Prints the offending nodes to stderr and fails with exit code 3 if there are any. Call it
/// after the results are written. Against the double-double reference (not exact) a node
/// above its bound may be the reference's own error: the nodes are printed as a warning and
/// no verdict is given.
pub fn fail_on_violations(v: &Violations, reference: ReferenceKind) -> Result<(), Error> {
    if v.count == 0 {
        return Ok(());
    }
    if reference != ReferenceKind::Exact {
        eprintln!(
            "warning: {} node(s) above a deterministic bound, judged against the {} reference, \
             which is not exact: no verdict (rerun with --reference exact):",
            v.count,
            reference.name()
        );
        for line in &v.lines {
            eprintln!("  {line}");
        }
        return Ok(());
    }
    eprintln!("DETERMINISTIC BOUND VIOLATED (a bug):");
    for line in &v.lines {
        eprintln!("  {line}");
    }
    Err(Error::BoundViolation(v.count))
}

/// Prints the nodes where a backend differs from its CPU twin and fails with exit code 3 if
/// there are any. Call it after the results are written.
pub fn fail_on_mismatches((count, lines): &(usize, Vec<String>)) -> Result<(), Error> {
    if *count == 0 {
        return Ok(());
    }
    eprintln!("GPU RESULT DIFFERS FROM ITS CPU TWIN (a bug):");
    for line in lines {
        eprintln!("  {line}");
    }
    Err(Error::GpuMismatch(*count))
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
        assert!(fail_on_violations(&Violations::default(), ReferenceKind::Exact).is_ok());
        assert!(matches!(
            fail_on_violations(&one_violation(), ReferenceKind::Exact),
            Err(Error::BoundViolation(1))
        ));
        assert!(fail_on_violations(&one_violation(), ReferenceKind::Dd).is_ok());
    }
}
