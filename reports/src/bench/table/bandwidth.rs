//! The baselines' tables: the copy kernel, upload and download as effective bandwidth (bytes
//! moved ÷ time), and how close the vectorial stages and the transfers come to them.

use super::{Cell, Column, Table, find, size};
use crate::bench::BenchData;
use crate::fmt::sig3;
use analysis::Algorithm;
use analysis::algorithms::PaperRole;
use analysis::format::{f64_shortest, gb_per_s};
use analysis::records::bench::BenchRecord;

/// The time a baseline row measured, median and fastest: it times one thing (the copy kernel,
/// or the bus transfer) and leaves the other time 0, so the sum is that time whichever field
/// holds it.
fn baseline_s(r: &BenchRecord) -> (f64, f64) {
    (
        r.compute_s + r.transfer_s,
        r.compute_min_s + r.transfer_min_s,
    )
}

/// The baseline `algorithm` (`copy`, `upload`, `download`) for trees of `n` vertices.
fn baseline<'a>(records: &'a [BenchRecord], n: usize, algorithm: &str) -> Option<&'a BenchRecord> {
    find(records, "", n, "", algorithm)
}

/// A baseline's bandwidth in GB/s (median time).
fn bandwidth(r: &BenchRecord) -> f64 {
    gb_per_s(r.bytes_moved, baseline_s(r).0)
}

/// The terminal's baselines: GB/s of each size's copy kernel, upload and download (medians).
pub fn baseline_bandwidth(records: &[BenchRecord]) -> Table {
    let rows = records
        .iter()
        .filter(|r| r.algorithm == "copy")
        .map(|c| {
            let other = |a: &str| Cell::of(baseline(records, c.n, a).map(|r| sig3(bandwidth(r))));
            vec![
                size(c.n).into(),
                sig3(bandwidth(c)).into(),
                other("upload"),
                other("download"),
            ]
        })
        .collect();
    Table {
        caption: "Baselines (GB/s, medians): copy kernel (bytes read + written), upload and download (plain buffer copies: Queue::write_buffer; copy into a mapped buffer, read back into a Vec)".into(),
        columns: ["n", "copy", "upload", "download"]
            .into_iter()
            .map(Column::number)
            .collect(),
        rows,
    }
}

/// Per vectorial row: its stages' bandwidth against the copy kernel of the same size, and the
/// transfers of both paper kernels (weights up + results down, 8 bytes a vertex) against
/// upload + download.
pub fn effective_bandwidth(records: &[BenchRecord]) -> Table {
    let par = Algorithm::with_role(PaperRole::Algorithm1).to_string();
    let vec = Algorithm::with_role(PaperRole::Algorithm2).to_string();
    let rows = records
        .iter()
        .filter(|r| r.algorithm == vec)
        .filter_map(|v| {
            let copy_bw = bandwidth(baseline(records, v.n, "copy")?);
            let stage = |name: &str| {
                Cell::of(
                    find(records, &v.topology, v.n, &v.op, &format!("{vec}/{name}")).map(|r| {
                        let bw = gb_per_s(r.bytes_moved, r.compute_s);
                        format!("{} GB/s ({}%)", sig3(bw), sig3(100.0 * bw / copy_bw))
                    }),
                )
            };
            let bus = match (
                baseline(records, v.n, "upload"),
                baseline(records, v.n, "download"),
            ) {
                (Some(u), Some(d)) => baseline_s(u).0 + baseline_s(d).0,
                _ => f64::NAN,
            };
            let transfers = |r: Option<&BenchRecord>| {
                Cell::of(r.map(|r| {
                    format!(
                        "{} GB/s ({}%)",
                        sig3(gb_per_s(8 * r.n as u64, r.transfer_s)),
                        sig3(100.0 * bus / r.transfer_s)
                    )
                }))
            };
            Some(vec![
                v.topology.as_str().into(),
                size(v.n).into(),
                v.op.as_str().into(),
                stage("scan"),
                stage("read"),
                transfers(find(records, &v.topology, v.n, &v.op, &par)),
                transfers(Some(v)),
            ])
        })
        .collect();
    let mut columns = vec![
        Column::text("topology"),
        Column::number("n"),
        Column::text("op"),
    ];
    columns.extend(
        [
            "vectorial write + scan",
            "vectorial read",
            "parallel transfers",
            "vectorial transfers",
        ]
        .into_iter()
        .map(Column::number),
    );
    Table {
        caption: "Effective bandwidth against the baselines of the same size (% of copy kernel; transfers: weights up + results down, % of upload + download)".into(),
        columns,
        rows,
    }
}

/// The page's baselines: each copy / upload / download row with its bytes, median time and
/// bandwidth, median and best (no rows when the run has none).
pub fn baselines(data: &BenchData) -> Table {
    let rows = data
        .rows
        .iter()
        .filter(|r| super::super::is_baseline(r))
        .map(|r| {
            let (t, best) = baseline_s(r);
            let gbs = |s: f64| Cell::of((s > 0.0).then(|| sig3(gb_per_s(r.bytes_moved, s))));
            let what = match r.algorithm.as_str() {
                "copy" => "copy kernel (device to device; bytes read + written)",
                "upload" => "upload (host to device)",
                _ => "download (device to host)",
            };
            vec![
                what.into(),
                r.backend.as_str().into(),
                r.bytes_moved.to_string().into(),
                f64_shortest(t).into(),
                gbs(t),
                gbs(best),
            ]
        })
        .collect();
    Table {
        caption: "Baselines: effective bandwidth".into(),
        columns: vec![
            Column::text("baseline"),
            Column::text("backend"),
            Column::number("bytes moved").titled("bytes_moved"),
            Column::number("time (s)").titled("median time"),
            Column::number("bandwidth (GB/s)").titled("bytes_moved / median time"),
            Column::number("best (GB/s)").titled("bytes_moved / fastest time"),
        ],
        rows,
    }
}
