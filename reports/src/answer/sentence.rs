//! The recommendation for one op in one sentence, from the table's numbers: the cheapest
//! algorithm within the threshold (its price said for the kind of time measured: GPU kernels
//! or CPU twins), or the most accurate when none is within it, and the correctly rounded
//! algorithms the sweep did not run, with the flag that adds them.

use super::super::fmt::{fixed, pow2_label, sci, sig3};
use super::{Cell, OpAnswer, Threshold, few, times};
use analysis::Algorithm;
use analysis::f32_format::BITS;
use analysis::format::ns_per_vertex;

/// The sentence for one op.
pub(super) fn sentence(a: &OpAnswer) -> String {
    let op = &a.op;
    if a.algorithms.is_empty() {
        return format!("{op}: no algorithm ran.");
    }
    let bands = a.lines.len();
    let scope = format!(
        "in every topology and κ band of this sweep ({bands} line{} of the table)",
        if bands == 1 { "" } else { "s" }
    );
    let target = target(a.threshold);
    let meeting: Vec<usize> = (0..a.algorithms.len()).filter(|&i| a.meets(i)).collect();
    let mut s = if meeting.is_empty() {
        none_meets(a, &target, &scope)
    } else {
        cheapest(a, &meeting, &target, &scope)
    };
    if let Some((missing, flag)) = &a.not_run {
        let (verb, it) = if missing.len() == 1 {
            ("was", "it")
        } else {
            ("were", "them")
        };
        s.push_str(&format!(
            " {} — correctly rounded by construction (0 lost bits at every node), so within any threshold — {verb} not run: add {it} with `{flag}`.",
            few(missing)
        ));
    }
    s
}

/// "lost at most 1 bit (relative error ≤ 2⁻²³, about one ulp; the default threshold,
/// `--max-lost-bits B` sets another) at every node".
fn target(t: Threshold) -> String {
    let e = t.bits - BITS;
    let rel = if e.fract() == 0.0 {
        pow2_label(e as i32)
    } else {
        format!("2^({})", fixed(e, 1).replace('-', "−"))
    };
    let ulp = if t.bits == 1.0 { ", about one ulp" } else { "" };
    let who = if t.given {
        format!("--max-lost-bits {}", analysis::format::f64_shortest(t.bits))
    } else {
        "the default threshold, `--max-lost-bits B` sets another".to_string()
    };
    format!(
        "lost at most {} (relative error ≤ {rel}{ulp}; {who}) at every node",
        t.text()
    )
}

/// The algorithm the sentence names: the cheapest within the threshold among those with a
/// time of the compared kind, else (none within it) the most accurate.
pub(super) fn pick(a: &OpAnswer) -> Option<usize> {
    let n = a.algorithms.len();
    let meeting: Vec<usize> = (0..n).filter(|&i| a.meets(i)).collect();
    if meeting.is_empty() {
        return most_accurate(a);
    }
    meeting
        .into_iter()
        .filter(|&i| a.costs.relative(i).is_some())
        .min_by(|&i, &j| {
            let (x, y) = (a.costs.relative(i), a.costs.relative(j));
            x.unwrap().total_cmp(&y.unwrap())
        })
}

fn most_accurate(a: &OpAnswer) -> Option<usize> {
    (0..a.algorithms.len())
        .filter(|&i| a.worst[i].is_some())
        .min_by(|&i, &j| {
            let (x, y) = (a.worst[i].unwrap(), a.worst[j].unwrap());
            x.bits.total_cmp(&y.bits)
        })
}

/// A loss in words: `0 ulps` style detail where results.csv has the ulps.
fn loss(c: &Cell) -> String {
    let bits = if c.bits.is_finite() {
        format!("{} bits", fixed(c.bits, 1))
    } else {
        "an infinite loss (a NaN or ±∞ result)".into()
    };
    match c.ulps {
        Some(0.0) => format!("{bits} (correctly rounded at every node)"),
        Some(u) if u < super::super::ulps::SATURATED => format!("{bits}, {} ulps", sci(u)),
        _ => bits,
    }
}

fn worst(a: &OpAnswer, i: usize) -> String {
    a.worst[i].map(|c| loss(&c)).unwrap_or_default()
}

/// "12.4 ns per vertex".
fn per_vertex(a: &OpAnswer, i: usize) -> String {
    a.costs.costs[i]
        .as_ref()
        .map(|c| {
            format!(
                "{} ns per vertex",
                sig3(ns_per_vertex(c.time.per_vertex_s, 1))
            )
        })
        .unwrap_or_default()
}

/// Where the compared times ran: "CPU twins" or "GPU kernels (gpu: …)".
fn compared(a: &OpAnswer) -> String {
    let adapter = a
        .costs
        .costs
        .iter()
        .flatten()
        .find_map(|c| match &c.time.place {
            super::Place::GpuKernel(name) if a.costs.gpu => Some(name.clone()),
            _ => None,
        });
    match adapter {
        Some(name) => format!("GPU kernels ({name})"),
        None => "CPU twins".into(),
    }
}

/// When only CPU twins were timed, where a GPU kernel's price comes from: a benchmark of the
/// pick's kernel beside the fastest twin's and the paper's Algorithm 2 (where they have one).
fn gpu_price(a: &OpAnswer, pick: usize) -> String {
    if a.costs.gpu {
        return String::new();
    }
    let kernel = |name: &str| {
        name.parse::<Algorithm>()
            .is_ok_and(Algorithm::has_gpu_kernel)
    };
    if !kernel(&a.algorithms[pick]) {
        return format!(" ({} has no GPU kernel)", a.algorithms[pick]);
    }
    let mut bench: Vec<&str> = vec![&a.algorithms[pick]];
    let fastest = a.costs.fastest().map(|f| a.algorithms[f].as_str());
    let paper = Algorithm::with_role(analysis::algorithms::PaperRole::Algorithm2).name();
    for name in fastest.into_iter().chain([paper]) {
        if kernel(name) && !bench.contains(&name) {
            bench.push(name);
        }
    }
    format!(
        " (times of CPU twins, not of GPU kernels: `accuracy bench --algos {} --out B` then `accuracy report DIR --bench B/bench.csv` give the GPU price)",
        bench.join(",")
    )
}

/// Some algorithms are within the threshold: the cheapest of them by the compared times.
fn cheapest(a: &OpAnswer, meeting: &[usize], target: &str, scope: &str) -> String {
    let op = &a.op;
    let Some(pick) = a.pick else {
        return unpriced(a, meeting, target, scope);
    };
    let fastest = a.costs.fastest().expect("a ranked algorithm exists");
    let kind = compared(a);
    let cost = if pick == fastest {
        format!(
            "; it is also the fastest of the {kind} ({})",
            per_vertex(a, pick)
        )
    } else {
        format!(
            "; as {kind} its values took {} the time of the fastest, {} ({} against {}; which lost up to {})",
            times(a.costs.relative(pick).unwrap()),
            a.algorithms[fastest],
            per_vertex(a, pick),
            per_vertex(a, fastest),
            worst(a, fastest)
        )
    };
    let others = meeting.len() - 1;
    let also = if others > 0 {
        format!(
            " ({others} other{} also met it, at more cost or with no comparable time)",
            if others == 1 { "" } else { "s" }
        )
    } else {
        String::new()
    };
    format!(
        "{op}: use {} — the cheapest algorithm that {target} {scope}{also}: its worst was {}{cost}{}.",
        a.algorithms[pick],
        worst(a, pick),
        gpu_price(a, pick)
    )
}

/// Algorithms within the threshold, none with a time of the compared kind.
fn unpriced(a: &OpAnswer, meeting: &[usize], target: &str, scope: &str) -> String {
    let names: Vec<String> = meeting.iter().map(|&i| a.algorithms[i].clone()).collect();
    let (who, why) = if a.costs.costs.iter().all(Option::is_none) {
        (
            names.len(),
            "this run has no per-algorithm timings (summary.json without timings.kernels), so which costs least is not known".to_string(),
        )
    } else {
        (
            names.len(),
            format!(
                "the times compare {}, and {} no such time, so its price there is not known",
                compared(a),
                if names.len() == 1 {
                    "it has"
                } else {
                    "they have"
                }
            ),
        )
    };
    format!(
        "{}: {} {} {target} {scope}; {why}.",
        a.op,
        few(&names),
        if who == 1 {
            "is the only algorithm that"
        } else {
            "are the algorithms that"
        }
    )
}

/// No algorithm is within the threshold: the most accurate, and its price.
fn none_meets(a: &OpAnswer, target: &str, scope: &str) -> String {
    let op = &a.op;
    let Some(best) = a.pick else {
        return format!("{op}: no algorithm has results.");
    };
    let kind = compared(a);
    let cost = match (a.costs.fastest(), a.costs.relative(best)) {
        (Some(f), Some(_)) if f == best => format!("; it is also the fastest of the {kind}"),
        (Some(f), Some(r)) => format!(
            ", and as {kind} its values took {} the time of the fastest, {}",
            times(r),
            a.algorithms[f]
        ),
        _ => String::new(),
    };
    format!(
        "{op}: no algorithm {target} {scope}; the most accurate, {}, lost up to {}{cost}.",
        a.algorithms[best],
        worst(a, best)
    )
}
