//! Helpers shared by the integration tests: each file of tests/ is a crate of its own and
//! includes this module with `mod common;`.

// Not every test crate uses every helper.
#![allow(dead_code)]

pub mod html;
pub mod mpfr;
pub mod npy;
#[cfg(unix)]
pub mod peak;
pub mod spatial;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `accuracy` binary run with `args`, to completion.
pub fn accuracy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_accuracy"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Bytes of an output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A run's stderr as text.
pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// A fresh, empty directory under the build's scratch space, replaced on every run:
/// `target/tmp/<test crate>/<name>`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
