use super::*;
use crate::bench::BenchData;

/// A bench row with the given times (compute, transfers) and bytes.
fn row(
    topology: &str,
    n: usize,
    op: &str,
    algorithm: &str,
    t: (f64, f64),
    bytes: u64,
) -> BenchRecord {
    BenchRecord {
        topology: topology.into(),
        n,
        height: if topology == "chain" { n as u32 - 1 } else { 1 },
        op: op.into(),
        algorithm: algorithm.into(),
        backend: "gpu: Test".into(),
        compute_s: t.0,
        compute_min_s: t.0 * 0.9,
        compute_max_s: t.0 * 1.1,
        transfer_s: t.1,
        transfer_min_s: t.1 * 0.9,
        transfer_max_s: t.1 * 1.1,
        bytes_moved: bytes,
        reps: 3,
    }
}

/// Two trees of 2^10 vertices and a tree file of 3000: the paper's kernels, vectorial's
/// stages, one other kernel (missing on the chain), and the baselines of 2^10 (no upload).
fn records() -> Vec<BenchRecord> {
    let n = 1024;
    vec![
        row("", n, "", "copy", (2.5e-5, 0.0), 16 * n as u64),
        row("", n, "", "download", (0.0, 4.0e-5), 4 * n as u64),
        row(
            "star",
            n,
            "rootfix",
            "parallel",
            (3.1e-5, 6.0e-5),
            8 * n as u64,
        ),
        row(
            "star",
            n,
            "rootfix",
            "vectorial",
            (7.7e-5, 5.1e-5),
            24 * n as u64,
        ),
        row(
            "star",
            n,
            "rootfix",
            "vectorial/scan",
            (5.0e-5, 0.0),
            16 * n as u64,
        ),
        row(
            "star",
            n,
            "rootfix",
            "vectorial/read",
            (2.7e-5, 0.0),
            8 * n as u64,
        ),
        row(
            "star",
            n,
            "rootfix",
            "vectorial-exact",
            (9.9e-5, 5.2e-5),
            32 * n as u64,
        ),
        row(
            "chain",
            n,
            "rootfix",
            "parallel",
            (4.0e-4, 6.1e-5),
            8 * n as u64,
        ),
        row(
            "chain",
            n,
            "rootfix",
            "vectorial",
            (2.6e-4, 5.5e-5),
            24 * n as u64,
        ),
        row(
            "road.tree",
            3000,
            "rootfix",
            "vectorial",
            (1.2e-3, 1.9e-4),
            72000,
        ),
    ]
}

/// The terminal's tables, byte for byte as `accuracy bench` printed them before the tables
/// became models (the same records through the former code).
#[test]
fn terminal_tables_read_as_before() {
    let shown = markdown(&terminal("gpu: Test; heading", &records()));
    let expected = r#"gpu: Test; heading

| topology | n | height | op | parallel compute | vectorial compute | par/vec | parallel + transfers | vectorial + transfers | par/vec |
|---|---:|---:|---|---:|---:|---:|---:|---:|---:|
| star | 2^10 | 1 | rootfix | 30.3 | 75.2 | 0.403 | 88.9 | 125 | 0.711 |
| chain | 2^10 | 1023 | rootfix | 391 | 254 | 1.54 | 450 | 308 | 1.46 |

The other kernels: compute ns per vertex (medians) and the ratio to vectorial in the same run

| topology | n | op | vectorial | vectorial-exact | ratio |
|---|---:|---|---:|---:|---:|
| star | 2^10 | rootfix | 75.2 | 96.7 | 1.29 |
| chain | 2^10 | rootfix | 254 | - | - |
| road.tree | 3000 | rootfix | 400 | - | - |

Baselines (GB/s, medians): copy kernel (bytes read + written), upload and download (plain buffer copies: Queue::write_buffer; copy into a mapped buffer, read back into a Vec)

| n | copy | upload | download |
|---:|---:|---:|---:|
| 2^10 | 0.655 | - | 0.102 |

Effective bandwidth against the baselines of the same size (% of copy kernel; transfers: weights up + results down, % of upload + download)

| topology | n | op | vectorial write + scan | vectorial read | parallel transfers | vectorial transfers |
|---|---:|---|---:|---:|---:|---:|
| star | 2^10 | rootfix | 0.328 GB/s (50.0%) | 0.303 GB/s (46.3%) | 0.137 GB/s (NaN%) | 0.161 GB/s (NaN%) |
| chain | 2^10 | rootfix | - | - | 0.134 GB/s (NaN%) | 0.149 GB/s (NaN%) |
"#;
    assert_eq!(shown, expected);
}

/// The text of each `<td>` of each `<tr>` of an HTML table, and of its `<th>`s.
fn html_cells(h: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let inner = |s: &str, tag: &str| -> Vec<String> {
        s.split(&format!("<{tag}"))
            .skip(1)
            // `<thead>` is no `<th>`.
            .filter(|c| c.starts_with(['>', ' ']))
            .map(|c| {
                let c = &c[c.find('>').unwrap() + 1..];
                c[..c.find(&format!("</{tag}>")).unwrap()].to_string()
            })
            .collect()
    };
    let (head, body) = h.split_once("</thead>").unwrap();
    let rows = body.split("<tr>").skip(1).map(|r| inner(r, "td")).collect();
    (inner(head, "th"), rows)
}

/// The cells of a markdown table (after the caption and a blank line): heads, alignment row,
/// rows.
fn markdown_cells(m: &str) -> (Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let mut lines = m.lines().skip(2);
    let cells = |l: &str| -> Vec<String> {
        let inner = l.strip_prefix("| ").unwrap().strip_suffix(" |").unwrap();
        inner.split(" | ").map(str::to_string).collect()
    };
    let heads = cells(lines.next().unwrap());
    let align = lines.next().unwrap();
    let align: Vec<String> = align[1..]
        .split_terminator('|')
        .map(str::to_string)
        .collect();
    (heads, align, lines.map(cells).collect())
}

/// Both printers show every table with the same heads, the same cells in the same places
/// (a missing value as `-` and as the page's dash) and the same columns right-aligned.
#[test]
fn both_printers_show_the_same_cells() {
    let records = records();
    let data = BenchData {
        path: "bench.csv".into(),
        rows: records.clone(),
    };
    let mut tables = terminal("heading", &records);
    tables.extend([all_rows(&records), baselines(&data)]);
    assert_eq!(
        tables.len(),
        6,
        "every terminal table, and two of the page's"
    );
    let mut missing = 0;
    for t in &tables {
        let (heads, align, rows) = markdown_cells(&markdown(std::slice::from_ref(t)));
        let mut h = String::new();
        html(&mut h, "t", None, t);
        let (html_heads, html_rows) = html_cells(&h);
        assert_eq!(heads, html_heads, "{}", t.caption);
        assert_eq!(rows.len(), html_rows.len(), "{}", t.caption);
        assert!(!rows.is_empty(), "{}: no rows to compare", t.caption);
        for (m, x) in rows.iter().zip(&html_rows) {
            assert_eq!(m.len(), t.columns.len());
            for (a, b) in m.iter().zip(x) {
                if a == "-" {
                    assert_eq!(b, crate::fmt::NA);
                    missing += 1;
                } else {
                    assert_eq!(a, b, "{}", t.caption);
                }
            }
        }
        let th_num = h.matches("<th class=\"num\"").count();
        let right = align.iter().filter(|a| a.as_str() == "---:").count();
        assert_eq!(th_num, right, "{}", t.caption);
    }
    assert!(missing > 0, "the records leave some cells missing");
}

/// Every time per vertex shown is [`ns_per_vertex`] to 3 digits, whichever table shows it.
#[test]
fn ns_per_vertex_is_one_rule() {
    let records = records();
    let star = &records[3];
    let expected = sig3(ns_per_vertex(star.compute_s, star.n));
    assert_eq!(expected, "75.2");
    let paper = paper_kernels("", &records);
    let others = other_kernels(&records).unwrap();
    let all = all_rows(&records);
    assert_eq!(paper.rows[0][5], Cell::Text(expected.clone()));
    assert_eq!(others.rows[0][3], Cell::Text(expected.clone()));
    assert_eq!(all.rows[3][12], Cell::Text(expected));
}
