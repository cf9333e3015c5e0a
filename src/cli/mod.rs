//! One module per `accuracy` subcommand: its arguments and what it does. `main.rs` only
//! parses and dispatches; argument groups shared by several commands live here, declared once
//! and flattened into each command.

pub mod algorithms;
pub mod allocator;
pub mod bench;
pub mod bounds_table;
pub mod check;
pub mod generate;
pub mod merge;
pub mod phases;
pub mod report;
pub mod run;
pub mod score;
pub mod spatial;
pub mod stats;
pub mod sweep;

use analysis::{Algorithm, Op, ReferenceKind};
use clap::Args;
use generators::ChildOrder;
use generators::io::{ForestMode, Format, ReadOptions, Subnormal};
use std::io::Write;
use std::path::{Path, PathBuf};
use treefix_accuracy::Error;
use treefix_accuracy::cond::{CondSpec, parse_cond};
use treefix_accuracy::device::{Device, Selected};
use treefix_accuracy::experiment::Backend;
use treefix_accuracy::inputs::WeightChoice;

/// How a weighted tree is generated: weight model, seed and child order.
#[derive(Args, Clone)]
pub struct InstanceArgs {
    /// Weight model: gensum, uniform, normal, lognormal, integers, ones; or file (the tree
    /// file's own weights: branch lengths, matrix values, parent-array weights).
    #[arg(long, default_value = "gensum")]
    pub weights: WeightChoice,
    /// Seed of the portable generator (ChaCha20); the same seed gives the same trees and weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Child order, which fixes the Euler tour: natural, light-first, heavy-first (`sweep`
    /// takes a comma list and evaluates every tree in each order).
    #[arg(long, value_delimiter = ',', default_value = "natural")]
    pub child_order: Vec<ChildOrder>,
}

impl InstanceArgs {
    /// The one child order of a command that takes one.
    pub fn child_order(&self) -> Result<ChildOrder, Error> {
        match self.child_order[..] {
            [one] => Ok(one),
            _ => Err(Error::Usage(
                "--child-order takes one order here (sweep compares several)".into(),
            )),
        }
    }
}

/// How tree files are read (`--tree FILE`); formats and conventions in docs/inputs.md.
#[derive(Args, Clone)]
pub struct ReadArgs {
    /// Tree file format: newick, nexus, mtx (Matrix Market), parents (parent array); default:
    /// detected from the content, then the name (gzip is detected and decompressed).
    #[arg(long)]
    pub format: Option<Format>,
    /// Which tree of a Newick/NEXUS file holding several (0 = the first).
    #[arg(long, default_value_t = 0)]
    pub tree_index: usize,
    /// BFS root of a Matrix Market graph's spanning tree, as a vertex id of the file (default 1).
    #[arg(long)]
    pub root: Option<u64>,
    /// A disconnected Matrix Market graph: refuse (an error naming the components), largest
    /// (its largest component), virtual-root (one extra root, weight 0, joins the components).
    #[arg(long, default_value = "refuse")]
    pub forest: ForestMode,
    /// Weights that are nonzero but subnormal in f32 (GPUs flush them to zero): refuse (an
    /// error naming the value) or flush (read as zero, counted on stderr and in `run`'s
    /// header). Checked only where a file's numbers become weights.
    #[arg(long, default_value = "refuse")]
    pub subnormal: Subnormal,
}

impl ReadArgs {
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format,
            tree_index: self.tree_index,
            root: self.root,
            forest: self.forest,
            subnormal: self.subnormal,
            memory_limit: treefix_accuracy::memory::reader_limit(),
        }
    }
}

/// A separate weights file for a tree file (commands with `--tree` and `--weights`).
#[derive(Args, Clone)]
pub struct WeightsFileArgs {
    /// Weights from this file: `key value` lines, key = a vertex id of the tree file or a
    /// label; vertices it does not name get 0.
    #[arg(
        long,
        value_name = "PATH",
        requires = "tree",
        conflicts_with = "weights"
    )]
    pub weights_file: Option<PathBuf>,
}

/// Which operations to compute.
#[derive(Args, Clone)]
pub struct OpsArgs {
    /// Operations, comma-separated: rootfix, leaffix.
    #[arg(long, value_delimiter = ',', default_value = "rootfix,leaffix")]
    pub ops: Vec<Op>,
}

/// The formats a kernel stores and adds in.
#[derive(Args, Clone)]
pub struct ArithmeticArgs {
    /// The format the weights and results are stored in: f16, bf16, f32 or f64 (f64 on the
    /// CPU, WGSL has no f64; score: f64 weights drawn by a model, or from Python).
    #[arg(long, default_value = "f32", value_name = "FORMAT")]
    precision: generators::Precision,
    /// The format the additions are made in, as wide as --precision or wider (default: the
    /// same): bf16 storage with f32 accumulation adds in f32 and rounds once, at the store.
    #[arg(long, value_name = "FORMAT")]
    accumulate: Option<generators::Precision>,
}

impl ArithmeticArgs {
    pub fn arithmetic(&self) -> Result<generators::Arithmetic, Error> {
        generators::Arithmetic::new(self.precision, self.accumulate.unwrap_or(self.precision))
            .map_err(Error::Usage)
    }
}

/// What the results are measured against, and where the kernels run.
#[derive(Args, Clone)]
pub struct MeasureArgs {
    /// Reference for the errors: exact (fixed-point, checked against MPFR) or dd (double-double,
    /// faster, not exact).
    #[arg(long, default_value = "exact")]
    pub reference: ReferenceKind,
    /// Where the algorithms with a GPU kernel run: cpu (their twins), gpu, or auto (GPU if an
    /// adapter exists, else CPU). The results are the same bits either way (tested); the GPU
    /// checks that on real hardware. Default cpu: the evaluation (exact reference, bounds) runs
    /// on the CPU either way, so the GPU shortens only the kernels' share (docs/gpu.md).
    /// [default: cpu; a resumed sweep: the one it ran on]
    #[arg(long)]
    pub backend: Option<Device>,
    /// Where the exact reference is computed: cpu (the exact treefix: one walk of the tree's
    /// order in fixed point, on every core) or gpu (vectorial-exact's fixed-point scan on the GPU backend, its
    /// sums read back unrounded, Σ|terms| by a second scan of |w|). The same exact values
    /// either way: results.csv is byte-identical (tested). Needs --backend gpu or auto; weights
    /// holding a −0 are referenced on the CPU (the sign of a zero sum).
    #[arg(long, default_value = "cpu", value_parser = place)]
    pub exact_on: Device,
}

/// A device where something runs: `cpu` or `gpu` (not `auto`).
fn place(s: &str) -> Result<Device, String> {
    match s.parse()? {
        Device::Auto => Err("expected cpu or gpu".into()),
        d => Ok(d),
    }
}

impl MeasureArgs {
    /// Where the exact reference comes from, when not from the CPU (a line for stderr).
    pub fn reference_line(&self) -> Option<&'static str> {
        self.exact_on_gpu().then_some(
            "exact reference: on the GPU (vectorial-exact's scan read back unrounded; \
             the CPU's for weights holding a -0)",
        )
    }

    /// The backend of `--backend`, computing the exact reference if `--exact-on gpu`; its
    /// notice (`auto` without an adapter) is shown here, on stderr.
    pub fn backend(&self) -> Result<Selected<Box<dyn Backend>>, Error> {
        let on_gpu = self.exact_on_gpu();
        if on_gpu && self.reference != ReferenceKind::Exact {
            return Err(Error::Usage(
                "--exact-on gpu computes the exact reference: it needs --reference exact".into(),
            ));
        }
        if on_gpu && self.choice() == Device::Cpu {
            return Err(Error::Usage(
                "--exact-on gpu needs a GPU backend (--backend gpu or auto)".into(),
            ));
        }
        let selected = treefix_accuracy::gpu::select_backend(self.choice(), self.exact_on)?;
        show(selected.notice.as_ref());
        Ok(selected)
    }

    /// `--backend` (cpu when not given).
    pub fn choice(&self) -> Device {
        self.backend.unwrap_or(Device::Cpu)
    }

    /// Whether `--exact-on gpu` was given.
    pub fn exact_on_gpu(&self) -> bool {
        self.exact_on == Device::Gpu
    }

    /// How a tree is evaluated with these options, for the memory estimate.
    pub fn evaluation<'a>(
        &self,
        algos: &'a [Algorithm],
        ops: &[Op],
    ) -> treefix_accuracy::memory::Evaluation<'a> {
        treefix_accuracy::memory::Evaluation {
            algos,
            ops: ops.len(),
            reference: self.reference,
            gpu: self.choice() != Device::Cpu,
        }
    }
}

/// Algorithms, with every algorithm as the default.
#[derive(Args, Clone)]
pub struct AllAlgosArgs {
    /// Algorithms, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = algorithm_parser(),
        default_values_t = Algorithm::ALL.to_vec()
    )]
    pub algos: Vec<Algorithm>,
}

/// `--algos`' parser: the registry's names, which `--help` lists.
pub fn algorithm_parser() -> impl clap::builder::TypedValueParser<Value = Algorithm> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Algorithm::names())
        .map(|s| s.parse::<Algorithm>().expect("a name of the registry"))
}

/// A `--cond` option that takes exactly one value.
pub fn parse_single_cond(s: &str) -> Result<f64, String> {
    match parse_cond(s)? {
        CondSpec::List(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(format!(
            "invalid condition number '{s}': expected one value such as 1e5"
        )),
    }
}

/// The answer's threshold (`report` and `sweep --max-lost-bits B`): a finite number of bits,
/// 0 or more.
pub fn parse_max_lost_bits(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(b) if b.is_finite() && b >= 0.0 => Ok(b),
        _ => Err(format!(
            "invalid threshold '{s}': expected a number of bits, 0 or more, such as 12"
        )),
    }
}

/// A vertex count: an integer or a power of ten or two as `--cond` takes them (`1e6`,
/// `2^20`), from 1 to 2^31 (the trees' 32-bit vertex ids).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let n = parse_len(s)?;
    if n > 1 << 31 {
        return Err(format!("invalid vertex count '{s}': expected 1 to 2^31"));
    }
    Ok(n)
}

/// A number of values, written as [`parse_count`] takes it, without the trees' limit (`gen
/// --n`: what memory allows is checked afterwards, with the reason).
pub fn parse_len(s: &str) -> Result<u64, String> {
    let bad =
        || format!("invalid vertex count '{s}': expected an integer such as 10000, 1e6 or 2^20");
    let t = s.trim();
    let n = if let Ok(n) = t.parse::<u64>() {
        n
    } else if let Some((base, exp)) = t.split_once('^') {
        let (base, exp) = (
            base.parse::<u64>().map_err(|_| bad())?,
            exp.parse::<u32>().map_err(|_| bad())?,
        );
        base.checked_pow(exp).ok_or_else(bad)?
    } else {
        // `1e6`, `2.5e5`: only when the value is a whole number.
        let x = t.parse::<f64>().map_err(|_| bad())?;
        if !(x.is_finite() && x.fract() == 0.0 && x >= 0.0 && x <= u64::MAX as f64) {
            return Err(bad());
        }
        x as u64
    };
    if n == 0 {
        return Err(format!("invalid count '{s}': expected 1 or more"));
    }
    Ok(n)
}

/// Whether an output path names standard output (`-`).
pub fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// Bytes to standard output; a failed write is a one-line error.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(Error::write("<stdout>"))
}

/// Shows the library's notices on stderr, one after the other: the binary's part of
/// [`treefix_accuracy::notice`] (the library only returns them).
pub fn show<'a>(notices: impl IntoIterator<Item = &'a treefix_accuracy::Notice>) {
    for n in notices {
        eprintln!("{n}");
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_count, parse_len};

    #[test]
    fn counts_take_integers_and_powers() {
        assert_eq!(parse_count("10000"), Ok(10_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("2.5e5"), Ok(250_000));
        assert_eq!(parse_count("2^20"), Ok(1 << 20));
        assert_eq!(parse_count("2^31"), Ok(1 << 31));
        assert_eq!(parse_len("1e10"), Ok(10_000_000_000));
        for bad in ["0", "1.5", "1e10", "2^32", "-3", "abc", "1e", "nan", "inf"] {
            assert!(parse_count(bad).is_err(), "{bad} accepted");
        }
    }
}
