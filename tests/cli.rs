//! The `accuracy` binary: bad arguments are clean errors, outputs have their documented shape.

mod common;
use common::{accuracy, scratch, stderr};

#[test]
fn bad_condition_numbers_are_usage_errors() {
    for bad in ["abc", "1e10..1e1", "0", "-5", "1e400"] {
        let o = accuracy(&[
            "sweep",
            "--cond",
            bad,
            "--quiet",
            "--out",
            "/nonexistent/never",
        ]);
        assert_eq!(o.status.code(), Some(2), "--cond {bad}");
        let e = stderr(&o);
        assert!(e.contains("condition number"), "--cond {bad}: {e}");
        assert!(!e.contains("panicked"), "--cond {bad}: {e}");
        let o = accuracy(&["gen", "--n", "10", "--cond", bad]);
        assert_eq!(o.status.code(), Some(2), "gen --cond {bad}");
    }
}

#[test]
fn other_bad_arguments_are_usage_errors() {
    for args in [
        &["sweep", "--topology", "tree"][..],
        &["sweep", "--nodes", "0"],
        &["sweep", "--algos", "fast"],
        &["sweep", "--ops", "sideways"],
        &["run", "--topology", "kary:0", "--nodes", "5"],
        &["run", "--topology", "chain"],
        &["gen", "--n", "1", "--cond", "10"],
        &["gen", "--n", "10", "--cond", "0.5"],
        &[
            "run",
            "--topology",
            "chain",
            "--nodes",
            "5",
            "--child-order",
            "natural,light-first",
        ],
    ] {
        let o = accuracy(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
        assert_eq!(
            stderr(&o)
                .trim()
                .lines()
                .filter(|l| l.starts_with("error"))
                .count(),
            1,
            "{args:?}"
        );
    }
}

/// Every subcommand clap defines (the Commands: list of the top-level help, so a new one is
/// covered without editing this test) has a help of its own.
#[test]
fn help_on_every_subcommand() {
    let o = accuracy(&["--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout).into_owned();
    let subcommands: Vec<&str> = help
        .lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A wrapped description continues on lines indented past the names.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&sub| sub != "help")
        .collect();
    for sub in ["sweep", "run", "gen", "bench"] {
        assert!(subcommands.contains(&sub), "{sub} not in {subcommands:?}");
    }
    for sub in subcommands {
        let o = accuracy(&[sub, "--help"]);
        assert!(o.status.success(), "{sub}: {}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("Usage: accuracy {sub}")),
            "{sub}: {out}"
        );
        assert!(out.contains("--help"), "{sub}: {out}");
    }
}

#[test]
fn sweep_writes_results_and_resumes() {
    let dir = scratch("sweep");
    let d = dir.to_str().unwrap();
    let args = [
        "sweep", "--cond", "1e2..1e6", "--points", "3", "--trees", "2", "--nodes", "300", "--out",
        d,
    ];
    let o = accuracy(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "topology",
        "n",
        "seed",
        "target_cond",
        "achieved_cond",
        "algorithm",
        "op",
        "max_rel_error",
        "median_rel_error",
        "p99_rel_error",
        "max_lost_bits",
        "flagged_nodes",
    ] {
        assert!(header.split(',').any(|c| c == col), "missing column {col}");
    }
    // 3 targets × 2 trees × the main job's algorithms × 2 ops.
    let algorithms = analysis::Algorithm::main_job().len();
    assert_eq!(csv.lines().count(), 1 + 3 * 2 * algorithms * 2);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["trees"], 6);

    // Running again resumes: nothing recomputed, same rows.
    let o = accuracy(&args);
    assert!(o.status.success());
    assert!(stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("results.csv")).unwrap(),
        csv
    );

    // Other parameters in the same directory are refused.
    let mut other = args.to_vec();
    other[8] = "301";
    let o = accuracy(&other);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nodes"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_dumps_per_node_rows() {
    let path = scratch("dump").join("nodes.csv");
    let o = accuracy(&[
        "run",
        "--topology",
        "prufer",
        "--nodes",
        "50",
        "--weights",
        "normal",
        "--dump",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "vertex,parent,depth,weight,op,algorithm,result,reference,rel_error,lost_bits,cond,\
         bound,sharp_bound,prob_bound,running_bound,cond_scan,pred_extra_bits,meas_extra_bits,\
         abs_error,label,nonfinite,overflow,reference_f32,ulps"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 50 * 2 * analysis::Algorithm::ALL.len());
    // The root has an empty parent; every reference carries ≥ 25 significant digits.
    assert!(rows.iter().any(|r| r[0] == "0" && r[1].is_empty()));
    for r in &rows {
        let digits = r[7]
            .chars()
            .take_while(|c| *c != 'e')
            .filter(|c| c.is_ascii_digit())
            .count();
        assert!(digits >= 25 || r[7] == "0", "{}", r[7]);
        assert_eq!(
            r[6].parse::<f32>()
                .unwrap()
                .to_string()
                .parse::<f32>()
                .unwrap(),
            r[6].parse::<f32>().unwrap()
        );
    }
    let _ = std::fs::remove_file(&path);
}

/// The algorithms whose scan word is fixed point (vectorial-exact) say the scale the weights
/// set, one line each; the float scans say nothing.
#[test]
fn run_names_the_fixed_point_scale_of_exact_scans_only() {
    let scale_lines = |algos: &str| -> Vec<String> {
        let o = accuracy(&[
            "run",
            "--topology",
            "chain",
            "--nodes",
            "200",
            "--algos",
            algos,
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.contains("fixed point of"))
            .map(str::to_string)
            .collect()
    };
    let exact = scale_lines("vectorial,vectorial-exact");
    assert_eq!(exact.len(), 1, "{exact:?}");
    assert!(
        exact[0].starts_with("vectorial-exact: fixed point of ")
            && exact[0].contains(" limb(s) of 32 bits, unit 2^"),
        "{}",
        exact[0]
    );
    assert!(scale_lines("vectorial,vectorial-compensated").is_empty());
}

#[test]
fn gen_prints_n_values() {
    let o = accuracy(&["gen", "--n", "100", "--cond", "1e8", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let values: Vec<f32> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(values.len(), 100);
    let achieved = generators::exact_sum::condition_number(&values);
    assert!(
        stderr(&o).contains(&format!("{achieved:e}")),
        "{}",
        stderr(&o)
    );
    // Same seed, same bytes.
    assert_eq!(
        accuracy(&["gen", "--n", "100", "--cond", "1e8", "--seed", "3"]).stdout,
        o.stdout
    );
}

#[test]
fn same_seed_same_results() {
    let base = scratch("seed");
    let run = |name: &str, seed: &str| {
        let dir = base.join(name);
        let args = [
            "sweep", "--quiet", "--cond", "1e3,1e9", "--trees", "2", "--nodes", "500",
        ];
        let topo = [
            "--topology",
            "prufer,profile:8:3",
            "--seed",
            seed,
            "--out",
            dir.to_str().unwrap(),
        ];
        let o = accuracy(&[&args[..], &topo[..]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(dir.join("results.csv")).unwrap()
    };
    let (a, b, c) = (run("a", "7"), run("b", "7"), run("c", "8"));
    assert_eq!(a, b, "the same seed must give the same bytes");
    assert_ne!(a, c);
    let _ = std::fs::remove_dir_all(&base);
}

/// `sweep --child-order natural,light-first`: every draw is evaluated in both orders on the
/// same tree and weights (same seed; the exact values, hence κ, identical), and the rows say
/// which order they are; a sweep.json written with a single `child_order` still resumes.
#[test]
fn sweep_compares_child_orders_on_the_same_trees() {
    let dir = scratch("child-orders");
    let d = dir.to_str().unwrap();
    let args = [
        "sweep",
        "--topology",
        "caterpillar-legs",
        "--nodes",
        "300",
        "--cond",
        "1e3",
        "--trees",
        "2",
        "--algos",
        "parallel,vectorial",
        "--ops",
        "rootfix",
        "--child-order",
        "natural,light-first",
        "--quiet",
        "--out",
        d,
    ];
    let o = accuracy(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Vec<analysis::records::results::ResultRow> =
        csv::Reader::from_path(dir.join("results.csv"))
            .unwrap()
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!(rows.len(), 2 * 2 * 2);
    for pair in rows.chunks(4) {
        let (natural, light) = (&pair[..2], &pair[2..]);
        assert!(natural.iter().all(|r| r.child_order == "natural"));
        assert!(light.iter().all(|r| r.child_order == "light-first"));
        for (a, b) in natural.iter().zip(light) {
            assert_eq!(a.seed, b.seed);
            assert_eq!(a.achieved_cond.to_bits(), b.achieved_cond.to_bits());
            assert_eq!(a.algorithm, b.algorithm);
        }
        // Parallel rootfix is the path recursion, which no child order changes.
        assert_eq!(
            natural[0].max_rel_error.to_bits(),
            light[0].max_rel_error.to_bits()
        );
    }
    assert_ne!(rows[0].seed, rows[4].seed, "each draw has its own seed");
    // An older sweep.json names one child order.
    let json = std::fs::read_to_string(dir.join("sweep.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p = v.as_object_mut().unwrap();
    assert!(p.remove("child_orders").is_some(), "{json}");
    p.insert("child_order".into(), "natural".into());
    let old = scratch("child-orders-old");
    std::fs::write(old.join("sweep.json"), serde_json::to_string(&v).unwrap()).unwrap();
    let o = accuracy(&["sweep", "--resume", old.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let resumed = std::fs::read_to_string(old.join("results.csv")).unwrap();
    assert_eq!(resumed.lines().count(), 1 + 2 * 2);
    assert!(resumed.lines().skip(1).all(|l| l.contains(",natural,")));
}

/// `accuracy check` away from a clone says what it compares with and how to point at it,
/// before the suite runs.
#[test]
fn check_without_its_baseline_says_what_it_needs() {
    let dir = scratch("check-elsewhere");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .current_dir(&dir)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("reports/baseline.json: no such file") && e.contains("--baseline FILE"),
        "{e}"
    );
}
