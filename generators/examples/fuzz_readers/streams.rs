//! The fuzzer's sources without a size: a pipe (`stdin`) and device files (`device`). A
//! source must read as the file of its bytes; one without end must be refused at the memory
//! limit; a panic, a multi-line message or a read slower than 2 s is a finding.

use crate::common::*;
use generators::io::{ReadOptions, Reason, read_stream, read_tree, read_tree_bytes};
use rand::RngExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq)]
pub enum Source {
    Stdin,
    Device,
}

impl Source {
    pub fn parse(s: &str) -> Option<Source> {
        match s {
            "stdin" => Some(Source::Stdin),
            "device" => Some(Source::Device),
            _ => None,
        }
    }
}

fn corpus() -> Vec<Vec<u8>> {
    let file = |f: &str| std::fs::read(data_dir().join(f)).unwrap();
    let newick = file("ape_bird_families.nwk");
    vec![
        gzip(&newick),
        newick,
        file("unifrac_crawford.tre"),
        file("HB_494_bus.mtx.gz"),
        b"0 -1\n1 0\n2 0 1.5\n".to_vec(),
        gzip(&vec![b'('; 32 << 20]),
    ]
}

/// What went wrong with one read of `input`, if anything.
fn audit(
    name: &str,
    input: &[u8],
    got: Result<generators::io::TreeFile, generators::ReadError>,
    forever: bool,
    opts: &ReadOptions,
) -> Option<String> {
    if forever {
        return match got {
            Err(e) if matches!(e.reason(), Some(Reason::StreamTooLarge { .. })) => None,
            Err(e) => Some(format!("an endless stream refused otherwise: {e}")),
            Ok(_) => Some("an endless stream read as a tree".into()),
        };
    }
    let file = read_tree_bytes(Path::new(name), input, opts);
    match (got, file) {
        (Ok(a), Ok(b)) if a.tree.parents() == b.tree.parents() => None,
        (Err(a), Err(b)) if a.to_string() == b.to_string() => a
            .to_string()
            .contains('\n')
            .then(|| format!("multi-line message: {a}")),
        _ => Some("the source and the file of its bytes disagree".into()),
    }
}

/// A named pipe fed `input` (forever, or once) by a thread, read as a tree file.
#[cfg(unix)]
fn through_fifo(
    dir: &Path,
    input: &[u8],
    forever: bool,
    opts: &ReadOptions,
) -> Result<generators::io::TreeFile, generators::ReadError> {
    let fifo = dir.join(format!("fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let data = input.to_vec();
    let path = fifo.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&path) else {
            return;
        };
        while f.write_all(&data).is_ok() && forever {}
    });
    let r = read_tree(&fifo, opts);
    writer.join().unwrap();
    let _ = std::fs::remove_file(&fifo);
    r
}

/// One read of a mutated `input` from `source`; `None` when fine.
fn exec(
    source: Source,
    input: &[u8],
    rng: &mut generators::Rng,
    opts: &ReadOptions,
    dir: &Path,
) -> Option<String> {
    // Nothing repeated forever is still nothing.
    let forever = rng.random_range(0..8) == 0 && !input.is_empty();
    match source {
        Source::Stdin => {
            let stream = Pieces {
                data: input,
                at: 0,
                forever,
                rng: generators::rng(rng.random()),
            };
            let got = read_stream(stream, Path::new("<stdin>"), opts.memory_limit)
                .and_then(|b| read_tree_bytes(Path::new("<stdin>"), &b, opts));
            audit("<stdin>", input, got, forever, opts)
        }
        Source::Device => {
            let device = ["/dev/zero", "/dev/urandom", "/dev/null", "fifo"][rng.random_range(0..4)];
            match device {
                #[cfg(unix)]
                "fifo" => {
                    let got = through_fifo(dir, input, forever, opts);
                    let name = dir.join(format!("fifo-{}", std::process::id()));
                    audit(name.to_str().unwrap(), input, got, forever, opts)
                }
                "/dev/null" => match read_tree(Path::new(device), opts) {
                    Err(e) if e.to_string() == "/dev/null: empty file" => None,
                    r => Some(format!("/dev/null: {:?}", r.err())),
                },
                _ => {
                    let got = read_tree(Path::new(device), opts);
                    audit(device, &[], got, true, opts)
                }
            }
        }
    }
}

/// The loop of `--reader stdin|device`, for `seconds`.
pub fn run(source: Source, seconds: f64, seed: u64, memory_limit: u64, dir: &Path) {
    let opts = ReadOptions {
        memory_limit: Some(memory_limit),
        ..Default::default()
    };
    let corpus = corpus();
    let mut rng = generators::rng(seed);
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let (mut execs, mut findings) = (0u64, 0u64);
    while start.elapsed() < Duration::from_secs_f64(seconds) {
        let i = rng.random_range(0..corpus.len());
        let muts: Vec<Mutation> = (0..rng.random_range(0..4))
            .map(|_| random_mutation(&mut rng))
            .collect();
        let input = mutate(&corpus[i], Target::Newick, &muts);
        let t0 = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| {
            exec(source, &input, &mut rng, &opts, dir)
        }));
        execs += 1;
        let problem = match r {
            Err(_) => Some("panic".to_string()),
            Ok(p) => p.or_else(|| {
                (t0.elapsed() > Duration::from_secs(2)).then(|| format!("slow: {:?}", t0.elapsed()))
            }),
        };
        if let Some(p) = problem {
            findings += 1;
            let path = dir.join(format!("stream-{seed}-{execs}.bin"));
            std::fs::write(&path, &input).unwrap();
            eprintln!("finding: {p} -> {}", path.display());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{execs} executions in {secs:.0} s, {findings} findings");
}
