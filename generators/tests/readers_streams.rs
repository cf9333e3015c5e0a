//! Inputs without a size: standard input and pipes, delivered in pieces of any length (and
//! interrupted reads, as a signal leaves them), and device files. Mutated trees read through
//! a stream give what the same bytes read as a file give; a stream that does not end (a
//! file's bytes repeated forever, `/dev/zero`, `/dev/urandom`, a named pipe kept open) is
//! refused at the memory limit, never read to an end that does not come. Seeded: reproducible
//! in CI. The long-run driver is `examples/fuzz_readers.rs --reader stdin|device`.

mod common;

use common::*;
use generators::io::{ReadOptions, Reason, read_bytes, read_stream, read_tree_bytes};
use rand::RngExt;
use std::path::Path;

fn seeds() -> Vec<Vec<u8>> {
    let file = |f: &str| std::fs::read(data_dir().join(f)).unwrap();
    let newick = file("ape_bird_families.nwk");
    vec![
        gzip(&newick),
        newick,
        file("HB_494_bus.mtx.gz"),
        b"0 -1\n1 0\n2 0 1.5\n".to_vec(),
    ]
}

#[test]
fn a_stream_reads_as_the_file_of_its_bytes() {
    let limit = Some(30_000_000);
    let opts = ReadOptions {
        memory_limit: limit,
        ..Default::default()
    };
    let seeds = seeds();
    let mut rng = generators::rng(21);
    let (mut same, mut refused) = (0, 0);
    for case in 0..600 {
        let base = &seeds[case % seeds.len()];
        let muts: Vec<Mutation> = (0..rng.random_range(0..4))
            .map(|_| random_mutation(&mut rng))
            .collect();
        let input = mutate(base, Target::Newick, &muts);
        let stream = Pieces {
            data: &input,
            at: 0,
            forever: false,
            rng: generators::rng(case as u64),
        };
        let bytes = read_stream(stream, Path::new("<stdin>"), limit).unwrap();
        assert_eq!(bytes, input, "case {case}: the stream's bytes differ");
        let from_stream = read_tree_bytes(Path::new("<stdin>"), &bytes, &opts);
        let from_file = read_tree_bytes(Path::new("<stdin>"), &input, &opts);
        match (&from_stream, &from_file) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.tree.parents(), b.tree.parents(), "case {case}");
                same += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "case {case}");
                assert!(!a.to_string().contains('\n'), "case {case}: {a}");
                refused += 1;
            }
            _ => panic!("case {case}: the stream and the file disagree"),
        }
    }
    assert!(same > 0 && refused > 0, "{same} read, {refused} refused");
}

#[test]
fn a_stream_without_end_is_refused_at_the_limit() {
    let limit = 3_000_000;
    for (k, base) in seeds().iter().enumerate() {
        let stream = Pieces {
            data: base,
            at: 0,
            forever: true,
            rng: generators::rng(k as u64),
        };
        let e = read_stream(stream, Path::new("<stdin>"), Some(limit)).unwrap_err();
        assert!(
            matches!(e.reason(), Some(Reason::StreamTooLarge { limit: l }) if *l == limit / 3),
            "seed {k}: {e}"
        );
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

/// Device files declare no size (a length of 0): each is read as a stream. `/dev/null` is an
/// empty file; the endless ones are refused at the limit; a named pipe whose writer goes on
/// is refused too, one whose writer stops is read.
#[cfg(target_os = "linux")]
#[test]
fn device_files_and_named_pipes_are_read_as_streams() {
    let limit = Some(30_000_000);
    let opts = ReadOptions {
        memory_limit: limit,
        ..Default::default()
    };
    for device in ["/dev/zero", "/dev/urandom"] {
        let e = read_bytes(Path::new(device), limit).unwrap_err();
        assert!(
            matches!(e.reason(), Some(Reason::StreamTooLarge { .. })),
            "{device}: {e}"
        );
    }
    assert_eq!(read_bytes(Path::new("/dev/null"), limit).unwrap(), b"");
    let e = generators::io::read_tree(Path::new("/dev/null"), &opts).unwrap_err();
    assert_eq!(e.to_string(), "/dev/null: empty file");

    let dir = std::env::temp_dir().join(format!("treefix-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, forever) in [("ends", false), ("goes-on", true)] {
        let fifo = dir.join(name);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let path = fifo.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            let tree = b"((a:1,b:2):1,c:3);\n";
            loop {
                if f.write_all(tree).is_err() || !forever {
                    break;
                }
            }
        });
        let r = generators::io::read_tree(&fifo, &opts);
        if forever {
            let e = r.unwrap_err();
            assert!(
                matches!(e.reason(), Some(Reason::StreamTooLarge { .. })),
                "{name}: {e}"
            );
        } else {
            assert_eq!(r.unwrap().tree.len(), 5, "{name}");
        }
        writer.join().unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
