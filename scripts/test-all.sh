#!/usr/bin/env bash
# The one command that runs every test of granule, from a fresh clone.
# It does its own setup and leaves the system untouched: everything it
# fetches goes under target/.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "toolchain"
cargo --version
rustc --version

step "format"
cargo fmt --all -- --check

step "clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "tests (unit, conformance, compile-fail, doc)"
cargo test --workspace --all-features

step "examples run and check themselves"
for ex in examples/*.rs; do
  name=$(basename "$ex" .rs)
  cargo run --quiet --release --example "$name"
done

step "all tests passed"
