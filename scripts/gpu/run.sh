#!/usr/bin/env bash
# Runs what scripts/gpu/build.sh packed, on a machine with an NVIDIA GPU:
# granule's Cuda suites on the GPU, the cuda_patterns bench, and PyTorch's
# and CuPy's figures for the same operations on the same card when they
# are importable; then prints one table of the results.
#
#   bash target/gpu/run.sh [MODE]
#
# Run it from the root of a checkout of the commit the folder was built
# from (the tests read files of their packages), or keep the folder at
# target/gpu inside that checkout and run it from anywhere. No Rust
# toolchain is needed there. Modes:
#   (none)      the suites' Cuda tests, group by group (below), the bench,
#               the peers and the table
#   --all       every test of every packed binary, one process per binary
#               (the emulator's and the unit tests too; not the trybuild
#               tests, which need a Rust toolchain), then the same bench,
#               peers and table
#   --isolated  every Cuda test of the packed binaries in a process of its
#               own, 12 at a time, and the list of failures: a real device
#               fault (a sticky error) ends every CUDA context of its
#               process, so only this tells a test's own failure from one
#               its neighbour caused
#   --sanitize  compute-sanitizer over the dispatch tests and the
#               algorithms suite (SANITIZE_TOOL: memcheck by default, or
#               racecheck; SANITIZE_TESTS names other device-test topics
#               or packed binaries, SANITIZE_FILTER the filter of the root
#               package's suites)
#   --profile   Nsight Compute over the bench's scan, compaction and sort
#               at 2^24 (PROFILE_BENCHES: other bench filters;
#               PROFILE_KERNEL: a kernel-name regex)
#   --examples  the packed examples (stream_compaction: the course
#               project's report at 2^24)
#   --cache-ab  the bench at 2^24 with the Cuda space's memory cache off
#               (GRANULE_CUDA_NO_CACHE=1) and on, alternating, AB_ROUNDS
#               times (2 by default)
#
# The groups of the default mode (in parentheses, the topic: a module of
# granule-cuda's test binary `cuda`):
#   nvrtc        NVRTC compiles the hand-written and golden kernels to PTX
#                and CUBIN (nvrtc_toolchain; translated)
#   device       the cudarc device: launches, copies, parameter tables (gpu)
#   fidelity     host bits, error records, argument checks (fidelity)
#   dispatch     every pattern and policy through the Cuda space (dispatch)
#   async        asynchronous dispatch: stream order, one wait per fence, a
#                fault reported at the next synchronization with its label
#                (asynchrony)
#   soundness    the Cuda write model on the device: team and lane writes,
#                refusals before the launch (soundness)
#   drivers      device drivers from crates above granule-cuda (drivers)
#   conformance  the conformance suite's Cuda instance (the root package's
#                `conformance` binary, `cuda::`), in one process: a failing
#                GPU thread exits without a trap, so the device goes on
#                after the tests whose kernels panic on purpose
#   algorithms   the algorithms suite's Cuda instance (`algorithms`,
#                `cuda::`)
#
# Environment: GRANULE_CUDA selects the GPU (gpu, the default here, or
# gpu:N; the suites would take the emulator without it); NVRTC_LIB names a
# libnvrtc to use instead of the packed 12.9 (the machine's NVRTC 13, say;
# the test that asserts version 12 is then skipped); OUT is where the logs
# and result.md go (default: DIR/results); GPU_TEST_LIMIT bounds each test
# group in seconds (600); GPU_BENCH_ARGS replaces the bench's criterion
# options. GRANULE_REQUIRE_GPU=1 and CI=true are set, so a missing driver
# or NVRTC fails the run instead of skipping tests.
set -uo pipefail

G=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=cuda_patterns
LIMIT=${GPU_TEST_LIMIT:-600}
BENCH_ARGS=${GPU_BENCH_ARGS:---warm-up-time 1 --measurement-time 2}
SKIP=()

# The checkout the binaries run in: the one around the folder, else the
# current directory.
find_root() {
  if [ -f "$G/../../Cargo.toml" ] && [ -d "$G/../../backends/cuda" ]; then
    ROOT=$(cd "$G/../.." && pwd)
  elif [ -f Cargo.toml ] && [ -d backends/cuda ]; then
    ROOT=$PWD
  else
    echo "gpu run: run this from the root of a granule checkout (the tests read its files)" >&2
    exit 2
  fi
  cd "$ROOT"
  [ -f "$G/targets.txt" ] || { echo "gpu run: no $G/targets.txt; build with scripts/gpu/build.sh first" >&2; exit 2; }
}

# "package_folder" of the packed target NAME (empty when not packed).
package_of() {
  awk -v t="$1" '$2 == t {print $3; exit}' "$G/targets.txt"
}

# "binary [filter]" of the device tests of TOPIC: a binary of that name
# when one is packed, else the topic's module in granule-cuda's test
# binary, `cuda`.
topic() {
  if [ -n "$(package_of "$1")" ]; then
    echo "$1"
  else
    echo "cuda $1::"
  fi
}

# cudarc dlopens the bare names libcuda.so and libnvrtc.so before any
# versioned one, and takes no path: a folder of links placed first on
# LD_LIBRARY_PATH decides what it loads. libnvrtc finds its builtins
# library by name, so its own folder goes on the path too.
link_libraries() {
  local shim cuda1 nvlib nvdir
  shim=$(mktemp -d)
  cuda1=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/{print $NF; exit}')
  [ -z "$cuda1" ] && cuda1=$(ls /usr/local/nvidia/lib64/libcuda.so.1 \
    /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 2>/dev/null | head -1)
  [ -n "$cuda1" ] && ln -s "$cuda1" "$shim/libcuda.so"
  if [ -n "${NVRTC_LIB:-}" ]; then
    nvlib=$NVRTC_LIB
    case "$(basename "$nvlib")" in libnvrtc.so.12*) ;; *) SKIP=(--skip nvrtc_is_version_12) ;; esac
  else
    nvdir=$(mktemp -d)
    tar -C "$nvdir" -xJf "$G/nvrtc12.tar.xz" 2>/dev/null || python3 -c \
      "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$G/nvrtc12.tar.xz" "$nvdir"
    nvlib=$nvdir/libnvrtc.so.12
  fi
  ln -s "$nvlib" "$shim/libnvrtc.so"
  export LD_LIBRARY_PATH=$shim:$(dirname "$nvlib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  NVRTC_USED=$nvlib
  echo "libcuda: ${cuda1:-NOT FOUND}; libnvrtc: $nvlib"
}

# Test binaries bake in their package's folder on the build machine: make
# that path name this checkout when it does not exist here.
link_build_root() {
  local root
  root=$(cat "$G/build_root")
  if [ "$root" != "$ROOT" ] && [ ! -e "$root" ]; then
    mkdir -p "$(dirname "$root")" && ln -s "$ROOT" "$root"
  fi
}

# What every mode starts with: the checkout, the output folder (its log
# is $OUT/LOG), the libraries, and the Cuda spaces on the GPU.
setup() {
  find_root
  OUT=${OUT:-$G/results}
  mkdir -p "$OUT"
  exec > >(tee "$OUT/$1") 2>&1
  DEVICE=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total \
    --format=csv,noheader 2>/dev/null | head -1)
  echo "== device (driver): ${DEVICE:-nvidia-smi found no GPU}"
  echo "== commit: $(cat "$G/commit" 2>/dev/null || echo unknown); host compiler: $(g++ -dumpfullversion 2>/dev/null || echo none)"
  link_libraries
  link_build_root
  case "${GRANULE_CUDA:-}" in gpu | gpu:*) ;; *) export GRANULE_CUDA=gpu ;; esac
  export CI=true RUST_BACKTRACE=1 GRANULE_REQUIRE_GPU=1
}

START=$SECONDS
FAILED=0

# group NAME BINARY [ARGS...]: runs a packed binary from its package
# folder within LIMIT seconds and records its verdict and libtest's counts
# in $OUT/groups.tsv.
group() {
  local name=$1 bin=$2
  shift 2
  local pkg log rc counts verdict t0=$SECONDS
  pkg=$(package_of "$bin")
  if [ -z "$pkg" ]; then
    printf '%s\tMISSING\t0\t%s was not packed\n' "$name" "$bin" >> "$OUT/groups.tsv"
    FAILED=1
    return
  fi
  echo "== $name: $bin $* (in $pkg, at most ${LIMIT}s)"
  log=$(mktemp)
  (cd "$pkg" && timeout -k 5 "$LIMIT" "$G/bin/$bin" "$@" < /dev/null) > "$log" 2>&1
  rc=$?
  cat "$log"
  counts=$(awk '/^test result:/ {m++; p += $4; f += $6} END {if (m) printf "%d passed, %d failed", p, f}' \
    FS='[ ;.]+' "$log")
  verdict=PASS
  [ $rc -ne 0 ] && verdict=FAIL && FAILED=1
  [ $rc -eq 124 ] && counts="timed out after ${LIMIT}s; $counts"
  printf '%s\t%s\t%s\t%s\n' "$name" "$verdict" "$((SECONDS - t0))" "${counts:-rc $rc}" >> "$OUT/groups.tsv"
  echo "== $name: $verdict ($((SECONDS - t0)) s) $counts"
  [ "$name" = bench ] && grep -E "^cuda_|time:" "$log" > "$OUT/bench.txt"
  rm -f "$log"
}

# The bench, the peers and the table: the end of the default and --all
# modes.
finish() {
  # shellcheck disable=SC2086
  group bench "$BENCH" --bench $BENCH_ARGS --noplot
  echo "== peers: PyTorch and CuPy on the same GPU"
  if command -v python3 > /dev/null; then
    python3 "$G/peers.py" | tee "$OUT/peers.txt"
    {
      echo "device: ${DEVICE:-unknown}"
      echo "commit: $(cat "$G/commit" 2>/dev/null || echo unknown)"
      echo "nvrtc: $NVRTC_USED"
      echo "seconds: $((SECONDS - START))"
    } > "$OUT/about.txt"
    python3 "$G/table.py" "$OUT" | tee "$OUT/result.md"
  else
    echo "peers: skipped (no python3)"
    cat "$OUT/groups.tsv"
  fi
  return $FAILED
}

run_groups() {
  setup run.log
  : > "$OUT/groups.tsv"
  # shellcheck disable=SC2046
  {
    group nvrtc $(topic nvrtc_toolchain) ${SKIP[@]+"${SKIP[@]}"}
    group nvrtc-translated $(topic translated)
    group device $(topic gpu)
    group fidelity $(topic fidelity)
    group dispatch $(topic dispatch)
    group async $(topic asynchrony)
    group soundness $(topic soundness)
    group drivers $(topic drivers)
  }
  group conformance conformance cuda::
  group algorithms algorithms cuda::
  finish
}

run_all() {
  setup run.log
  : > "$OUT/groups.tsv"
  local kind name pkg
  # The trybuild tests need a Rust toolchain, which this machine may lack.
  while read -r kind name pkg; do
    [ "$kind" = test ] && group "$name" "$name" --skip compile_fail:: ${SKIP[@]+"${SKIP[@]}"}
  done < "$G/targets.txt"
  finish
}

# One test in its own process (used by isolated, through xargs).
one_test() {
  local bin=$1 pkg=$2 name=$3 log
  log="$OUT/isolated/${bin}__${name//[^A-Za-z0-9_]/_}.log"
  if (cd "$pkg" && timeout -k 5 120 "$G/bin/$bin" --exact "$name" --test-threads=1 < /dev/null) > "$log" 2>&1; then
    echo "PASS $name"
    rm -f "$log"
  else
    echo "FAIL $name"
  fi
}

isolated() {
  setup isolated.log
  mkdir -p "$OUT/isolated"
  export -f one_test
  export G OUT
  local kind bin pkg
  while read -r kind bin pkg; do
    [ "$kind" = test ] || continue
    (cd "$pkg" && "$G/bin/$bin" --list --format terse < /dev/null 2> /dev/null) | sed -n 's/: test$//p' |
      { if [ "$pkg" = . ]; then grep -E '^(cuda|semantics)::'; else grep -v '^compile_fail::'; fi; } |
      xargs -P 12 -I{} bash -c 'one_test "$@"' _ "$bin" "$pkg" {} > "$OUT/isolated-$bin.txt"
    echo "== $bin: $(grep -c ^PASS "$OUT/isolated-$bin.txt") passed, $(grep -c ^FAIL "$OUT/isolated-$bin.txt") failed"
    grep ^FAIL "$OUT/isolated-$bin.txt" | sort
  done < "$G/targets.txt"
}

# An out-of-bounds or misaligned access of a driver shows under memcheck
# even when the results are right; racecheck finds shared-memory hazards.
sanitize() {
  setup sanitize.log
  local cs t bin pkg filter
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2> /dev/null | head -1)
  [ -n "$cs" ] || { echo "sanitize: no compute-sanitizer"; return 1; }
  for t in ${SANITIZE_TESTS:-dispatch algorithms}; do
    read -r bin filter <<< "$(topic "$t")"
    pkg=$(package_of "$bin")
    [ -n "$pkg" ] || { echo "sanitize: $t was not packed"; continue; }
    [ "$pkg" = . ] && filter=${SANITIZE_FILTER:-cuda::}
    echo "== ${SANITIZE_TOOL:-memcheck} $bin $filter"
    # shellcheck disable=SC2086
    (cd "$pkg" && timeout -k 5 "${SANITIZE_LIMIT:-300}" "$cs" --tool "${SANITIZE_TOOL:-memcheck}" --print-limit 20 \
      "$G/bin/$bin" $filter --test-threads=4 < /dev/null 2>&1 |
      grep -E "SUMMARY|Invalid|[Rr]ace |^=========  |test result|FAILED" | head -60)
  done
}

# Where the drivers' time goes, kernel by kernel: the first launches of
# each profiled benchmark, `--set detailed`.
profile() {
  setup profile.txt
  local ncu pkg f
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | head -1)
  [ -n "$ncu" ] || { echo "profile: no ncu"; return 1; }
  pkg=$(package_of "$BENCH")
  local benches=${PROFILE_BENCHES:-'2\^24/scan$ 2\^24/algorithms::exclusive_scan 2\^24/algorithms::copy_if 2\^24/algorithms::sort'}
  local only=()
  [ -n "${PROFILE_KERNEL:-}" ] && only=(--kernel-name "regex:$PROFILE_KERNEL")
  for f in $benches; do
    echo "== ncu $f ${PROFILE_KERNEL:-}"
    (cd "$pkg" && timeout -k 5 "${PROFILE_LIMIT:-120}" "$ncu" --set detailed ${only[@]+"${only[@]}"} \
      --launch-count "${PROFILE_LAUNCHES:-6}" "$G/bin/$BENCH" --bench "$f" --warm-up-time 1 \
      --measurement-time 1 --noplot 2>&1 | grep -vE "^(Benchmarking|Gnuplot)" | head -"${PROFILE_LINES:-700}")
  done
}

examples() {
  setup examples.txt
  local e
  for e in "$G"/examples/*; do
    [ -x "$e" ] || continue
    echo "== example $(basename "$e")"
    timeout -k 5 "${EXAMPLE_LIMIT:-300}" "$e"
    echo "== example $(basename "$e"): rc $?"
  done
}

# What the per-call allocations cost: the bench at 2^24 with the space's
# cache of released memory off and on.
cache_ab() {
  setup cache-ab.txt
  local pkg round mode
  pkg=$(package_of "$BENCH")
  for round in $(seq "${AB_ROUNDS:-2}"); do
    for mode in 1 0; do
      echo "== round $round, GRANULE_CUDA_NO_CACHE=$mode"
      (cd "$pkg" && GRANULE_CUDA_NO_CACHE=$mode timeout -k 5 "${AB_LIMIT:-120}" "$G/bin/$BENCH" \
        --bench '2\^24/' --warm-up-time 1 --measurement-time 1 --noplot 2>&1 | grep -E "^cuda_|time:")
    done
  done
}

case "${1:-}" in
  "") run_groups ;;
  --all) run_all ;;
  --isolated) isolated ;;
  --sanitize) sanitize ;;
  --profile) profile ;;
  --examples) examples ;;
  --cache-ab) cache_ab ;;
  *)
    echo "usage: $0 [--all|--isolated|--sanitize|--profile|--examples|--cache-ab]" >&2
    exit 2
    ;;
esac
