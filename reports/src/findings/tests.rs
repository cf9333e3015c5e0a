use super::*;
use crate::data::ReportData;
use analysis::Algorithm;
use analysis::algorithms::{Family, PaperRole};

/// The registry's names of the paper's three algorithms and of the contraction.
fn seq() -> &'static str {
    Algorithm::with_role(PaperRole::Baseline).name()
}
fn par() -> &'static str {
    Algorithm::with_role(PaperRole::Algorithm1).name()
}
fn vct() -> &'static str {
    Algorithm::with_role(PaperRole::Algorithm2).name()
}
fn con() -> &'static str {
    Algorithm::ALL
        .into_iter()
        .find(|a| a.family() == Family::Contraction)
        .unwrap()
        .name()
}

fn row(tree: usize, algo: &str, op: &str, cond: f64, bits: f64) -> ResultRow {
    crate::test_rows::result_row(tree, "chain", cond, (algo, op), bits)
}

fn data(rows: Vec<ResultRow>) -> ReportData {
    ReportData {
        dir: "d".into(),
        rows,
        header: vec![],
        raw: vec![],
        bound_columns: vec![],
        nodes: None,
        summary: None,
        params: None,
        bounds_table: None,
        bench: None,
        max_lost_bits: None,
    }
}

#[test]
fn compares_algorithms_at_high_condition_numbers() {
    let mut rows = Vec::new();
    for (t, cond) in [1e2f64, 1e6, 1e7, 1e8].into_iter().enumerate() {
        let base = cond.log2();
        rows.push(row(t, par(), "leaffix", cond, base));
        rows.push(row(t, vct(), "leaffix", cond, base + 2.125));
    }
    let f = findings(&data(rows));
    assert!(
        f.iter()
            .any(|s| s
                .starts_with("For κ ≥ 1e6, vectorial leaffix lost 2.1 bits more than parallel")),
        "{f:#?}"
    );
    assert!(
        f[0].starts_with("The largest loss was 28.7 bits"),
        "{}",
        f[0]
    );
    assert!(
        f.iter()
            .any(|s| s.contains("leaffix loss grew by 3.3 (parallel), 3.3 (vectorial)")),
        "{f:#?}"
    );
}

#[test]
fn exact_runs_and_bounds() {
    let mut r = row(0, seq(), "rootfix", 10.0, 0.0);
    r.max_rel_error = 0.0;
    r.bound_violations = Some(0);
    r.median_tightness = Some(0.01);
    r.max_tightness = Some(0.5);
    let f = findings(&data(vec![r]));
    assert!(f[0].contains("computed exactly"), "{f:#?}");
    assert!(f.iter().any(|s| s.contains("0 violations")), "{f:#?}");
    assert!(f.iter().any(|s| s.contains("≈ 1e2× pessimistic")), "{f:#?}");
}

#[test]
fn gpu_mismatches_in_words() {
    let mut a = row(0, par(), "rootfix", 10.0, 1.0);
    a.gpu_mismatches = Some(0);
    let mut b = row(0, vct(), "rootfix", 10.0, 1.0);
    b.gpu_mismatches = Some(0);
    let cpu_only = row(0, seq(), "rootfix", 10.0, 1.0);
    let f = findings(&data(vec![a.clone(), b.clone(), cpu_only.clone()]));
    assert!(
        f.iter().any(|s| s
            == "Every GPU result equalled its CPU twin bit for bit, at every node of the 2 runs that compared them."),
        "{f:#?}"
    );
    b.gpu_mismatches = Some(4);
    let f = findings(&data(vec![a, b, cpu_only.clone()]));
    assert!(
        f[1].starts_with(
            "The GPU result differed from its CPU twin at 4 nodes in 1 of 2 runs (vectorial rootfix)"
        ),
        "{f:#?}"
    );
    assert!(!f.iter().any(|s| s.starts_with("Every GPU result")));
    // No GPU columns: no GPU sentence at all.
    let f = findings(&data(vec![cpu_only]));
    assert!(!f.iter().any(|s| s.contains("GPU")), "{f:#?}");
}

#[test]
fn child_orders_in_words() {
    let mut rows = Vec::new();
    for (order, chain_bits, star_bits) in [("natural", 20.0, 30.0), ("light-first", 12.0, 30.4)] {
        for (topology, bits) in [("chain", chain_bits), ("star", star_bits)] {
            let mut r = row(0, vct(), "rootfix", 1e4, bits);
            r.topology = topology.into();
            r.child_order = order.into();
            rows.push(r);
        }
    }
    let f = findings(&data(rows.clone()));
    assert!(
        f.iter().any(|s| s.starts_with(
            "light-first child order against natural, vectorial rootfix (mean of per-tree max lost bits): helped on chain 20.0 → 12.0; changed less than 1 bit on star."
        )),
        "{f:#?}"
    );
    // One order only: nothing to compare.
    rows.retain(|r| r.child_order == "natural");
    let f = findings(&data(rows));
    assert!(!f.iter().any(|s| s.contains("child order")), "{f:#?}");
}

#[test]
fn contraction_in_words() {
    let rows = vec![
        row(0, seq(), "rootfix", 1e4, 20.0),
        row(0, con(), "rootfix", 1e4, 17.5),
    ];
    let f = findings(&data(rows));
    assert!(
        f.iter().any(|s| {
            s
            .starts_with("contraction rootfix (tree contraction, rake and compress")
            && s.contains(
                ") lost 2.5 bits fewer than sequential's order on average (17.5 against 20.0 bits"
            )
        }),
        "{f:#?}"
    );
}

#[test]
fn vectorial_family_in_words() {
    let rows = vec![
        row(0, par(), "leaffix", 1e4, 20.0),
        row(0, vct(), "leaffix", 1e4, 50.0),
        row(0, "vectorial-seqscan", "leaffix", 1e4, 24.0),
    ];
    let f = findings(&data(rows));
    assert!(
        f.iter().any(|s| s.starts_with(
            "Vectorial leaffix, mean of per-tree maxima over 1 trees: vectorial 50.0 bits, parallel 20.0; vectorial-seqscan 24.0"
        ) && s.contains("rounded along different paths")),
        "{f:#?}"
    );
}
