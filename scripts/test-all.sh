#!/usr/bin/env bash
# The one command that runs every test of granule, from a fresh clone.
# It does its own setup and leaves the system untouched: everything it
# fetches (crates, the NVRTC wheel) goes under target/ or cargo's cache.
# Needs: the Rust toolchain, python3 with pip, network access to crates.io
# and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "toolchain"
cargo --version
rustc --version

step "NVRTC (pinned PyPI wheel, cached under target/nvrtc)"
# CUDA kernels are compiled to PTX and CUBIN without a GPU; with CI=true a
# missing NVRTC fails the NVRTC tests instead of skipping them.
NVRTC_LIB=$(scripts/install-nvrtc.sh)
export LD_LIBRARY_PATH="$NVRTC_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "libnvrtc: $NVRTC_LIB"

# With the cuda feature (on in --all-features) DefaultExecutionSpace is
# Cuda, and Cuda::default() reads GRANULE_CUDA: this machine has no GPU, so
# the tests, doc tests and examples name the CPU emulator explicitly.
export GRANULE_CUDA=emulator

step "format"
cargo fmt --all -- --check

step "clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "rustdoc (broken links are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

step "tests (unit, conformance, compile-fail, doc)"
cargo test --workspace --all-features

step "size and index arithmetic in release (where overflow would wrap, not trap)"
# Debug builds trap on integer overflow, so a computation that wraps only
# in release (a chunk map's index, a scratch sum, a tile bound) is caught
# here: the regression tests of views, core and the conformance suite.
cargo test --release --quiet -p granule-views -p granule-core -p granule-rayon --lib
cargo test --release --quiet --test conformance
cargo test --release --quiet --test algorithms

step "examples run and check themselves (default features, then on Cuda through the emulator)"
for ex in examples/*.rs; do
  name=$(basename "$ex" .rs)
  cargo run --quiet --release --example "$name"
  cargo run --quiet --release --features cuda --example "$name"
done

step "bench plot script (its parser's doctests)"
python3 -m doctest scripts/plot_benches.py

step "all tests passed"
