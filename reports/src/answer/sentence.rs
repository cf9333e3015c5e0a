//! The recommendation for one op in one sentence, from the table's numbers: the cheapest
//! algorithm within the threshold (its price said for the kind of time measured: GPU kernels
//! or CPU twins), or the most accurate when none is within it, and the correctly rounded
//! algorithms the sweep did not run, with the flag that adds them.

use super::super::fmt::{fixed, pow2_label, sci, sig3};
use super::{Cell, OpAnswer, Threshold, bands, few, times};
use analysis::f32_format::BITS;
use analysis::format::ns_per_vertex;

/// The sentence for one op: the choice and its price first, in one short line; the
/// details go to [`details`].
pub(super) fn sentence(a: &OpAnswer) -> String {
    let op = &a.op;
    if a.algorithms.is_empty() {
        return format!("{op}: no algorithm ran.");
    }
    let meeting: Vec<usize> = (0..a.algorithms.len()).filter(|&i| a.meets(i)).collect();
    let within = format!("at most {} lost at every node", a.threshold.text());
    let Some(pick) = a.pick else {
        if meeting.is_empty() {
            return format!("{op}: no algorithm has results.");
        }
        let names: Vec<String> = meeting.iter().map(|&i| a.algorithms[i].clone()).collect();
        return format!(
            "{op}: {} kept {within}; which costs least is not known (no comparable times).",
            few(&names)
        );
    };
    let price = price(a, pick);
    if meeting.is_empty() {
        return format!(
            "{op}: none kept {within}; the most accurate, {}, lost up to {}{price}.",
            a.algorithms[pick],
            short_loss(a, pick)
        );
    }
    format!(
        "{op}: use {} — {within} (worst {}){price}.",
        a.algorithms[pick],
        short_loss(a, pick)
    )
}

/// ", 2.9× the time of parallel as GPU kernels" or ", the fastest of the CPU twins".
fn price(a: &OpAnswer, pick: usize) -> String {
    match (a.costs.fastest(), a.costs.relative(pick)) {
        (Some(f), Some(_)) if f == pick => format!(", the fastest of the {}", a.costs.kind()),
        (Some(f), Some(r)) => format!(
            ", {} the time of {} as {}",
            times(r),
            a.algorithms[f],
            a.costs.kind()
        ),
        _ => String::new(),
    }
}

/// "0.0 bits", "∞ bits".
fn short_loss(a: &OpAnswer, i: usize) -> String {
    match a.worst[i] {
        Some(c) if c.bits.is_finite() => format!("{} bits", fixed(c.bits, 1)),
        Some(_) => "∞ bits (a NaN or ±∞ result)".into(),
        None => "no result".into(),
    }
}

/// The lines under the sentence: the choice per κ band (and per topology where it differs),
/// what the threshold means, the times behind the price, what the bench lacks, and the
/// correctly rounded algorithms not run.
pub(super) fn details(a: &OpAnswer) -> Vec<String> {
    let mut out = Vec::new();
    if a.algorithms.is_empty() {
        return out;
    }
    let what = if a.bands.iter().all(|b| b.within) {
        format!("cheapest within {}", a.threshold.text())
    } else {
        format!(
            "cheapest within {} (else the most accurate)",
            a.threshold.text()
        )
    };
    if a.bands.len() > 1 {
        out.push(format!("{what} per κ band: {}", bands::text(a, &a.bands)));
    }
    for (topology, picks) in &a.by_topology {
        out.push(format!("on {topology}, {what}: {}", bands::text(a, picks)));
    }
    out.push(target(a.threshold));
    if let Some(pick) = a.pick {
        out.push(times_line(a, pick));
    }
    let meeting = (0..a.algorithms.len()).filter(|&i| a.meets(i)).count();
    if a.pick.is_some_and(|p| a.meets(p)) && meeting > 1 {
        let others = meeting - 1;
        out.push(format!(
            "{others} other{} also kept it everywhere, at more cost or with no comparable time.",
            if others == 1 { "" } else { "s" }
        ));
    }
    if !a.costs.bench_lacks.is_empty() {
        out.push(format!(
            "bench.csv has {}: its ratios leave them out.",
            a.costs.bench_lacks.join("; ")
        ));
    }
    if let Some((missing, flag)) = &a.not_run {
        let (verb, it) = if missing.len() == 1 {
            ("was", "it")
        } else {
            ("were", "them")
        };
        out.push(format!(
            "{} — correctly rounded by construction (0 lost bits at every node) — {verb} not run: add {it} with `{flag}`.",
            few(missing)
        ));
    }
    out
}

/// "times (CPU twins): vectorial-exact 6.51 ns per vertex; the fastest, parallel, 3.57 ns
/// per vertex (lost up to 35.8 bits)".
fn times_line(a: &OpAnswer, pick: usize) -> String {
    let kind = compared(a);
    match a.costs.fastest() {
        None if a.costs.costs.iter().all(Option::is_none) => {
            "times: none (summary.json has no per-algorithm timings), so which costs least is not known.".into()
        }
        None => format!("times: {} has no time of the compared kind.", a.algorithms[pick]),
        Some(f) if f == pick => format!(
            "times as {kind}: {} {}, the fastest; {}.",
            a.algorithms[pick],
            per_vertex(a, pick),
            a.costs.source
        ),
        Some(f) => format!(
            "times as {kind}: {} {}; the fastest, {}, {} (lost up to {}); {}.",
            a.algorithms[pick],
            per_vertex(a, pick),
            a.algorithms[f],
            per_vertex(a, f),
            worst(a, f),
            a.costs.source
        ),
    }
}

/// "1 bit lost: relative error ≤ 2⁻²³, about one ulp (the default; `--max-lost-bits B` sets
/// another)".
fn target(t: Threshold) -> String {
    let e = t.bits - BITS;
    let rel = if e.fract() == 0.0 {
        pow2_label(e as i32)
    } else {
        format!("2^({})", fixed(e, 1).replace('-', "−"))
    };
    let ulp = if t.bits == 1.0 { ", about one ulp" } else { "" };
    let who = if t.given {
        format!(
            "`--max-lost-bits {}`",
            analysis::format::f64_shortest(t.bits)
        )
    } else {
        "the default; `--max-lost-bits B` sets another number of bits B".to_string()
    };
    format!("{} lost: relative error ≤ {rel}{ulp} ({who}).", t.text())
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
