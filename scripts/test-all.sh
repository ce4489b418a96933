#!/usr/bin/env bash
# The one command that runs every test of granule, from a fresh clone.
# It does its own setup and leaves the system untouched: everything it
# fetches (crates, the NVRTC wheel) goes under target/ or cargo's cache;
# the one exception: run as root without MPI, it installs Debian's
# OpenMPI and libclang (apt-get) for the mpi feature.
# Needs: the Rust toolchain, python3 with pip, network access to crates.io
# and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step prints the seconds since the start, so a slow step shows in the log.
step() { printf '\n== [%ss] %s\n' "$SECONDS" "$*"; }

step "toolchain"
cargo --version
rustc --version

# A run from a fresh clone builds everything once: incremental caches
# would only be written, and debug info only linked, into every test
# binary and doc test (a failing test still names its file and line).
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0

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

step "MPI (Debian's OpenMPI, and libclang for rsmpi's bindings), for the mpi feature"
# The mpi feature (granule-mpi) builds against the system's MPI, so it
# must be there before the first workspace build. As root (CI) this
# installs it; otherwise it says how and leaves only the MPI parts out.
MPI_PACKAGES="libopenmpi-dev openmpi-bin libclang-dev"
# libclang itself (libclang.so, libclang-14.so.1), not libclang-cpp, which
# bindgen cannot load.
have_mpi() { command -v mpicc >/dev/null && command -v mpirun >/dev/null && ldconfig -p | grep -E 'libclang(-[0-9.]+)?\.so' >/dev/null; }
if ! have_mpi && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $MPI_PACKAGES >/dev/null
fi
if have_mpi; then
  WITH_MPI=1
  ALL_FEATURES=(--workspace --all-features)
  mpirun --version | head -1
else
  WITH_MPI=0
  ALL_FEATURES=(--workspace --exclude granule-mpi --features rayon,cuda,ndarray)
  echo "SKIPPING the MPI parts (granule-mpi, the mpi feature, heat3d_mpi): MPI is missing."
  echo "Install it with: sudo apt-get install -y $MPI_PACKAGES"
fi
# mpirun refuses root unless told; CI runs as root. Two ranks on two
# cores (or fewer) need oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

step "format"
cargo fmt --all -- --check

step "clippy (all targets, all features, warnings are errors)"
cargo clippy "${ALL_FEATURES[@]}" --all-targets -- -D warnings

step "rustdoc (broken links are errors)"
if [ "$WITH_MPI" = 1 ]; then
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
else
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --exclude granule-mpi --no-deps --quiet
fi

step "tests (unit, conformance, compile-fail, doc; granule-mpi's under mpirun -n 1 and -n 2)"
cargo test "${ALL_FEATURES[@]}"

step "size and index arithmetic in release (where overflow would wrap, not trap)"
# Debug builds trap on integer overflow, so a computation that wraps only
# in release (a chunk map's index, a scratch sum, a tile bound) is caught
# here: the regression tests of views, core and the conformance suite.
cargo test --release --quiet -p granule-views -p granule-core -p granule-rayon --lib
# NVRTC compiles the same generated C++ whatever the Rust profile, and
# the debug run above compiled every kernel already: skip it here.
cargo test --release --quiet --test conformance -- --skip nvrtc::
cargo test --release --quiet --test algorithms

step "examples run and check themselves (default features, then on Cuda through the emulator)"
for ex in examples/*.rs; do
  name=$(basename "$ex" .rs)
  case "$name" in *_mpi) continue ;; esac # need the mpi feature: run below
  cargo run --quiet --release --example "$name"
  cargo run --quiet --release --features cuda --example "$name"
done

step "MPI examples under mpirun -n 1 and -n 2 (default space, then Cuda through the emulator)"
if [ "$WITH_MPI" = 1 ]; then
  for ex in examples/*_mpi.rs; do
    name=$(basename "$ex" .rs)
    for features in mpi cuda,mpi; do
      cargo build --quiet --release --features "$features" --example "$name"
      for ranks in 1 2; do
        echo "-- $name, features $features, $ranks rank(s)"
        timeout 300 mpirun --oversubscribe -n "$ranks" "target/release/examples/$name"
      done
    done
  done
  echo "-- heat3d_mpi cut along y (1x2x1), 2 ranks, features cuda,mpi (the last build)"
  timeout 300 mpirun --oversubscribe -n 2 target/release/examples/heat3d_mpi -X 9 -Y 10 -Z 7 -PX 1 -PY 2 -PZ 1
else
  echo "SKIPPED: MPI is missing (see the MPI step above)"
fi

step "what each published crate would ship (no results, plots, scripts or benches)"
scripts/check-package.sh

step "all tests passed"
