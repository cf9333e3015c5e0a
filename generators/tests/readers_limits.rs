//! The readers keep within their memory limit ([`ReadOptions::memory_limit`]) on inputs built
//! to exhaust it: gzip bombs (a few kilobytes inflating to megabytes of `(`), parentheses
//! nested hundreds of thousands deep, a parent array of blank lines, and mutations of those
//! and of the real files (a fixed-seed proptest, so CI runs it in bounded time). A counting
//! allocator measures the bytes each read holds at its peak; the read must end with a tree or
//! a one-line error, and its peak must stay within the limit it was given.

mod common;

use common::*;
use generators::io::{ReadError, ReadOptions, Reason, read_tree_bytes};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

/// Counts the bytes the current thread holds and their peak (each test reads on its own
/// thread, so the counts of tests running at once do not mix).
struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: a thread being torn down has no counters left, and needs none.
    let _ = HELD.try_with(|h| {
        let now = h.get() + delta;
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: the system allocator's calls, counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            count(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        count(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // Counted as a move: old and new are both held while the bytes are copied.
        let q = unsafe { System.alloc(Layout::from_size_align_unchecked(new, l.align())) };
        if !q.is_null() {
            count(new as isize);
            unsafe { std::ptr::copy_nonoverlapping(p, q, l.size().min(new)) };
            unsafe { System.dealloc(p, l) };
            count(-(l.size() as isize));
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Reads `bytes` under `limit`; returns the result and the peak bytes the read held beyond
/// what was held before it.
fn read_counted(name: &str, bytes: &[u8], limit: u64) -> (Result<usize, ReadError>, u64) {
    let opts = ReadOptions {
        memory_limit: Some(limit),
        ..Default::default()
    };
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = read_tree_bytes(Path::new(name), bytes, &opts).map(|t| t.tree.len());
    let peak = PEAK.with(Cell::get) - base;
    (r, peak.max(0) as u64)
}

fn parens(n: usize) -> Vec<u8> {
    vec![b'('; n]
}

/// A caterpillar nested `depth` deep: `(((a,b),c),d)…;`.
fn caterpillar(depth: usize) -> Vec<u8> {
    let mut s = parens(depth);
    s.extend_from_slice(b"a,b)");
    for _ in 1..depth {
        s.extend_from_slice(b",c)");
    }
    s.extend_from_slice(b";\n");
    s
}

#[test]
fn a_gzip_bomb_is_refused_at_the_byte_where_it_passes_the_limit() {
    let bomb = gzip(&parens(64 << 20));
    assert!(bomb.len() < 400_000, "{} bytes of gzip", bomb.len());
    let limit = 30_000_000;
    let (r, peak) = read_counted("b.nwk.gz", &bomb, limit);
    let e = r.unwrap_err();
    let ReadError::AtByte { offset, .. } = &e else {
        panic!("{e}")
    };
    assert!(*offset > 0 && (*offset as usize) < bomb.len(), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "b.nwk.gz: byte {offset}: the gzip data inflates to more than 10 MB here, the \
             memory a file's text may take (a third of the 30 MB available): a gzip bomb, or \
             a file too large for this machine"
        )
    );
    assert!(peak <= limit, "peak {peak} B above the limit {limit} B");
}

#[test]
fn deep_nesting_is_refused_as_it_grows() {
    // 2 MB of '(' inflating under the text limit: the parser's own check stops it.
    let bomb = gzip(&parens(2_000_000));
    let limit = 60_000_000;
    let (r, peak) = read_counted("n.nwk.gz", &bomb, limit);
    let e = r.unwrap_err();
    assert!(
        matches!(e.reason(), Some(Reason::GrowsBeyondMemory { .. })),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "n.nwk.gz:1:393217: the tree reaches 393216 vertices here and would need about 65 MB \
         of memory to read, more than the 56 MB available"
    );
    assert!(peak <= limit, "peak {peak} B above the limit {limit} B");
    // A tree nested 300 000 deep reads where it fits, within its limit.
    let deep = caterpillar(300_000);
    let limit = 200_000_000;
    let (r, peak) = read_counted("deep.nwk", &deep, limit);
    assert_eq!(r.unwrap(), 600_001);
    assert!(peak <= limit, "peak {peak} B above the limit {limit} B");
}

#[test]
fn a_file_larger_than_its_share_is_refused_before_it_is_read() {
    let d = tempfile_dir();
    let p = d.join("big.nwk");
    std::fs::write(&p, caterpillar(100_000)).unwrap();
    let opts = ReadOptions {
        memory_limit: Some(1_000_000),
        ..Default::default()
    };
    let e = generators::io::read_tree(&p, &opts).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: the file holds 400003 bytes, more than the 333 kB of memory a file's text may \
             take (a third of the 1000 kB available)",
            p.display()
        )
    );
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers-limits");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Mutated bombs, deep trees and real files, each read under a random limit: a tree or a
/// one-line error, and never a peak above the limit.
#[test]
fn mutated_inputs_stay_within_their_limit() {
    let data = |f: &str| std::fs::read(data_dir().join(f)).unwrap();
    let seeds: Vec<(&str, Target, Vec<u8>)> = vec![
        ("b.nwk.gz", Target::Gzip, gzip(&parens(8 << 20))),
        ("n.nwk", Target::Newick, parens(300_000)),
        ("c.nwk", Target::Newick, caterpillar(50_000)),
        ("c.nwk.gz", Target::Gzip, gzip(&caterpillar(50_000))),
        ("a.nwk", Target::Newick, data("ape_bird_families.nwk")),
        ("u.tre", Target::Newick, data("unifrac_crawford.tre")),
        ("b.nex", Target::Nexus, data("biopython_bats.nex")),
        ("g.mtx.gz", Target::Gzip, data("HB_494_bus.mtx.gz")),
        (
            "p.txt",
            Target::Parents,
            [b"0 -1\n1 0\n".as_slice(), &vec![b'\n'; 200_000]].concat(),
        ),
    ];
    let config = Config {
        cases: 300,
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[21; 32]));
    let mutation = (any::<u32>(), any::<u8>(), 0..4usize).prop_map(|(at, byte, kind)| {
        let at = at as usize;
        match kind {
            0 => Mutation::FlipBit { at, bit: byte },
            1 => Mutation::Truncate { at },
            2 => Mutation::InsertToken {
                at,
                token: byte as usize,
            },
            _ => Mutation::RepeatToken {
                at,
                token: byte as usize,
                times: 4095,
            },
        }
    });
    let strat = (
        0..seeds.len(),
        prop::collection::vec(mutation, 0..3),
        1_000_000u64..40_000_000,
    );
    runner
        .run(&strat, |(i, muts, limit)| {
            let (name, target, seed) = &seeds[i];
            let input = mutate(seed, *target, &muts);
            let (r, peak) = read_counted(name, &input, limit);
            if let Err(e) = &r {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n') && msg.starts_with(name), "{msg}");
            }
            prop_assert!(
                peak <= limit,
                "{name}: peak {peak} B above the limit {limit} B ({:?})",
                r.map_err(|e| e.to_string())
            );
            Ok(())
        })
        .unwrap();
}
