#!/usr/bin/env bash
# The second half of the test command (README, .ci/run: `cargo test --workspace &&
# scripts/test-python.sh`): the API docs built with every rustdoc warning an error (a broken
# or ambiguous intra-doc link fails here, not silently on docs.rs), then the Python package
# built into a virtual environment, its pytest suite and stubtest of its type stubs. Runs
# after `cargo test --workspace`, whose build it reuses.
# Needs a Rust toolchain, m4, python3 with venv; PyPI for maturin, numpy, pytest and mypy.
set -euo pipefail
cd "$(dirname "$0")/.."

# Only the workspace's own crates: the dependencies' docs are theirs to keep.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
# `cargo test` builds neither the benchmarks nor the examples: checked here, so that the
# benchmarks that guard the speed claims cannot stop compiling unnoticed.
cargo check --workspace --benches --examples --quiet

# The venv lives under target/ (ignored, and removed with it).
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade "maturin>=1.9.4,<2" "numpy>=1.21" "pytest>=7" "mypy>=1.8" "ml_dtypes>=0.3"
# `maturin develop --profile dev` builds the extension with the workspace's dev profile (the
# package's own is the wheel profile, for pip), in target/, so it
# reuses what `cargo test` built.
(cd python && VIRTUAL_ENV="$PWD/../$venv" "../$venv/bin/maturin" develop --quiet --profile dev)
# `cargo test --workspace` built target/debug/accuracy for the CLI tests, with the workspace's
# features; `cargo build --bin accuracy` would resolve them again and rebuild the dependencies.
test -x target/debug/accuracy
export TREEFIX_ACCURACY_BIN="$PWD/target/debug/accuracy" TREEFIX_REQUIRE_CLI=1
"$venv/bin/python" -m pytest python/tests -q
"$venv/bin/python" -m mypy.stubtest treefix_accuracy._core --allowlist python/stubtest-allowlist.txt
