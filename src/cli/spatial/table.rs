//! `accuracy spatial`'s terminal output: the table of every layout × pattern (a summary per
//! pattern when there are many layouts, the rows staying in the JSON and the page), and the
//! answer.

use analysis::records::spatial::{LayoutRecord, PatternRecord, PointRecord, SpatialRecord};

/// More layouts than this print a summary per pattern instead of a row per layout × pattern.
pub const FULL_TABLE_LAYOUTS: usize = 4;

/// Lost bits as printed: `–` where the pattern is no algorithm.
fn bits(b: Option<f64>) -> String {
    b.map_or("–".into(), |b| format!("{b:.2}"))
}

/// Cycles as printed: 3 significant digits, scientific from 10^7.
fn cycles(c: f64) -> String {
    match c {
        c if c >= 1e7 => format!("{c:.2e}"),
        c => format!("{c:.0}"),
    }
}

/// The first line: the trees, the weights, the seed.
fn heading(r: &SpatialRecord) -> String {
    let same = r.trees.iter().all(|t| t.name == r.trees[0].name);
    match (&r.trees[..], same) {
        ([t], _) => {
            let sides: Vec<String> = t
                .curves
                .iter()
                .zip(&t.sides)
                .map(|(c, side)| format!("{c} {side}×{side}"))
                .collect();
            format!(
                "{} n={} height={} max degree={} weights={} seed={} vectorial-exact limbs={} grid: {}\n",
                t.name,
                t.n,
                t.height,
                t.max_degree,
                r.weights,
                r.seed,
                t.limbs,
                sides.join(", ")
            )
        }
        (trees, true) => {
            let sizes: Vec<String> = trees.iter().map(|t| t.n.to_string()).collect();
            format!(
                "{} n={} weights={} seed={}\n",
                trees[0].name,
                sizes.join(","),
                r.weights,
                r.seed
            )
        }
        (trees, false) => {
            let all: Vec<String> = trees
                .iter()
                .map(|t| format!("{} n={}", t.name, t.n))
                .collect();
            format!("{} weights={} seed={}\n", all.join(", "), r.weights, r.seed)
        }
    }
}

/// One row of the table.
fn row(l: &LayoutRecord, p: &PatternRecord, one: bool) -> String {
    let (order, curve, label) = (l.order.name(), l.curve.name(), p.label());
    if let Some(why) = &p.not_applicable {
        let short = why.split(';').next().unwrap_or(why);
        return format!("{order:<13} {curve:<9} {label:<30} not applicable: {short}\n");
    }
    let q = &p.points[p.points.len() - 1];
    if one {
        return format!(
            "{order:<13} {curve:<9} {label:<30} {:>14} {:>9.2} {:>9} {:>7} {:>6} {:>9} {:>9}\n",
            q.energy,
            q.energy_per_vertex,
            q.depth,
            q.chain_depth,
            q.congestion,
            cycles(q.cycles),
            bits(q.lost_bits)
        );
    }
    let exponent = p.exponent.map_or("–".into(), |e| format!("{e:.3}"));
    format!(
        "{order:<13} {curve:<9} {label:<30} {:>11.2} {:>11.2} {exponent:>8} {:>9} {:>9} {:>9}\n",
        p.points[0].energy_per_vertex,
        q.energy_per_vertex,
        q.depth,
        q.chain_depth,
        bits(q.lost_bits)
    )
}

/// The printed table: one tree, every point; several, the first and last E/n, the exponent,
/// and the depths and lost bits at the largest. More than [`FULL_TABLE_LAYOUTS`] layouts: a
/// summary per pattern (`json`: whether the rows are in a JSON file).
pub fn table(r: &SpatialRecord, json: bool) -> String {
    let mut s = heading(r);
    if r.layouts.len() > FULL_TABLE_LAYOUTS {
        return s + &summary(r, json);
    }
    let one = r.trees.len() == 1;
    if one {
        s += &format!(
            "{:<13} {:<9} {:<30} {:>14} {:>9} {:>9} {:>7} {:>6} {:>9} {:>9}\n",
            "order",
            "curve",
            "pattern",
            "energy",
            "E/n",
            "depth",
            "chain",
            "cong.",
            "cycles",
            "lost bits"
        );
    } else {
        let (first, last) = (r.trees[0].n, r.trees[r.trees.len() - 1].n);
        s += &format!(
            "{:<13} {:<9} {:<30} {:>11} {:>11} {:>8} {:>9} {:>9} {:>9}\n",
            "order",
            "curve",
            "pattern",
            format!("E/n@{first}"),
            format!("E/n@{last}"),
            "exponent",
            "depth@max",
            "chain@max",
            "bits@max"
        );
    }
    for l in &r.layouts {
        for p in &l.patterns {
            s += &row(l, p, one);
        }
    }
    s += "depth: rounds under the model's limit of one message sent and one received per processor per round; chain: the longest chain of dependent messages, without it; cong.: the most messages one processor sends or receives in one phase\n";
    if !one {
        s += "exponent: least-squares slope of ln energy against ln n over every size (1: energy per vertex flat)\n";
    }
    s
}

/// Per pattern, the layouts of least and most energy at the largest tree.
fn summary(r: &SpatialRecord, json: bool) -> String {
    let n = r.trees.last().map_or(0, |t| t.n);
    let rows: usize = r.layouts.iter().map(|l| l.patterns.len()).sum();
    let mut s = format!(
        "{} layouts × {} patterns: {rows} rows, {}; per pattern at n={n}, the layouts of least and most energy:\n",
        r.layouts.len(),
        r.layouts[0].patterns.len(),
        match json {
            true => "every one in the JSON",
            false => "every one in --json FILE (and --html FILE)",
        }
    );
    s += &format!(
        "{:<30} {:>9} {:>7} {:<28} {:>9} {:<24}\n",
        "pattern", "least E/n", "depth", "layout", "most E/n", "layout"
    );
    for (k, p) in r.layouts[0].patterns.iter().enumerate() {
        let points: Vec<(&LayoutRecord, &PointRecord)> = r
            .layouts
            .iter()
            .filter_map(|l| Some((l, l.patterns[k].points.last()?)))
            .collect();
        let least = points.iter().min_by_key(|x| x.1.energy);
        let most = points.iter().max_by_key(|x| x.1.energy);
        let (Some(&(ll, lp)), Some(&(ml, mp))) = (least, most) else {
            s += &format!("{:<30} not applicable on any layout\n", p.label());
            continue;
        };
        let ties = points.iter().filter(|x| x.1.energy == lp.energy).count() - 1;
        let name = |l: &LayoutRecord| format!("{} {}", l.order.name(), l.curve.name());
        let least_name = match ties {
            0 => name(ll),
            t => format!("{} (+{t} tied)", name(ll)),
        };
        s += &format!(
            "{:<30} {:>9.2} {:>7} {least_name:<28} {:>9.2} {:<24}\n",
            p.label(),
            lp.energy_per_vertex,
            lp.depth,
            mp.energy_per_vertex,
            name(ml)
        );
    }
    s
}

/// The answer: per op and algorithm at the last tree, lost bits, time per vertex (and where
/// it was measured), energy per vertex, depths, cycles and the layout's construction on its
/// cheapest layout; then the sentences per op.
pub fn answer_table(r: &SpatialRecord) -> String {
    let Some(first) = r.answer.first() else {
        return String::new();
    };
    let mut s = format!(
        "answer at n={}: each algorithm's lost bits, time and, on its least-energy layout, energy, depth, estimated cycles, and that layout's construction\n",
        first.n
    );
    s += &format!(
        "{:<8} {:<22} {:>9} {:>9} {:<10} {:>8} {:>9} {:>7} {:>9} {:>8} {:>8}  {}\n",
        "op",
        "algorithm",
        "lost bits",
        "ns/vertex",
        "timed as",
        "E/n",
        "depth",
        "chain",
        "cycles",
        "build E/n",
        "build d",
        "layout"
    );
    for a in &r.answer {
        let ns = a
            .time_per_vertex_s
            .map_or("–".into(), |t| format!("{:.2}", t * 1e9));
        let place = if a.time_source.starts_with("GPU") {
            "GPU kernel"
        } else {
            "CPU twin"
        };
        let tied = match a.tied.len() {
            0 => String::new(),
            k => format!(" (+{k} tied)"),
        };
        s += &format!(
            "{:<8} {:<22} {:>9} {ns:>9} {place:<10} {:>8.2} {:>9} {:>7} {:>9} {:>8} {:>8}  {} {}{tied}\n",
            a.op.name(),
            a.algorithm,
            bits(a.lost_bits),
            a.energy_per_vertex,
            a.depth,
            a.chain_depth,
            cycles(a.cycles),
            a.construction_energy_per_vertex
                .map_or("–".into(), |e| format!("{e:.2}")),
            a.construction_depth.map_or("–".into(), |d| d.to_string()),
            a.order.name(),
            a.curve.name()
        );
    }
    if let Some(gpu) = r.answer.iter().find(|a| a.time_source.starts_with("GPU")) {
        s += &format!("GPU times: {}\n", gpu.time_source);
    } else {
        s += "times: CPU twins of this run, not GPU kernels (`--bench B/bench.csv` from `accuracy bench --out B` gives GPU prices)\n";
    }
    s += &format!(
        "cycles: T = max(C, E/N + L) + (2·T_R + 1)·D (Luczynski et al. 2024), T_R = {} (--ramp-latency), N = {} of the grid's links (--active-links)\n",
        r.time_model.ramp_latency, r.time_model.active_links
    );
    for line in analysis::records::spatial_answer::sentences(&r.answer, &r.ops) {
        s += &line;
        s += "\n";
    }
    s
}
