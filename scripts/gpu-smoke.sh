#!/usr/bin/env bash
# A GPU smoke run of granule's Cuda backend that finishes in under 5
# minutes on the lent GPU machine (see ../shared/reference/gpu-runs.md and
# benches/results/README.md). Two halves, one script:
#
# 1. HERE (project root, an idle machine, 3-5 minutes):
#      scripts/gpu-smoke.sh pack
#    builds the release test and bench binaries with ../shared/tools/gpu-pack
#    into target/gpu (NVRTC 12.9 carried), and adds this script and the
#    commit it was built from.
# 2. THERE, through the device tool's `run`, with carry ["target/gpu"]:
#      bash target/gpu/gpu-smoke.sh run
#    prints PASS/FAIL per group and the device the driver reports, and
#    writes $OUT/gpu-smoke.log (everything) and $OUT/gpu-smoke-result.md
#    (the summary), which the tool brings back.
# 3. HERE again: commit the summary,
#      cp <files_at>/gpu-smoke-result.md benches/results/$(date +%F)-gpu-smoke.md
#      git add benches/results && git commit -m "GPU smoke run: ..."
#
# Groups (each under a time limit, all within GPU_SMOKE_BUDGET seconds, 280 by default):
#   nvrtc        NVRTC 12.9 compiles the hand-written and the golden kernels to
#                PTX and CUBIN there (nvrtc_toolchain, translated; the suite's
#                every-kernel compile is CPU work, over a minute, and runs here)
#   device       the cudarc device: launches, copies, parameter tables (gpu)
#   fidelity     host bits, error records, argument checks, on the GPU (fidelity)
#   dispatch     every pattern and policy through the Cuda space (dispatch)
#   async        asynchronous dispatch: stream order, one wait per fence, a
#                fault reported at the next synchronization with its label
#                (asynchrony)
#   soundness    the Cuda write model's holes (issue 14), closed on the GPU
#                too: team and lane writes, refusals before the launch
#   drivers      the hand-written device drivers (reduce, scan, team)
#   conformance  the conformance suite's Cuda instance, in one process: the
#                tests whose kernels panic on purpose share it with the others
#                (a failing GPU thread exits without a trap, so the device
#                goes on)
#   algorithms   the algorithms suite's Cuda instance (scan, compaction,
#                reductions, sorts)
#   bench        cuda_patterns (scan, reduce, d2d copy, exclusive_scan,
#                copy_if and radix sort at 2^24 and 2^28), short
#   peers        PyTorch's cumsum/sum/copy, masked_select/nonzero and sort
#                on the same card (not pass/fail)
# `bash target/gpu/gpu-smoke.sh profile` runs Nsight Compute over the bench's
# scan, compaction and sort at 2^24 ($OUT/profile.txt), and `sanitize`
# compute-sanitizer's memcheck over the dispatch and algorithms tests.
# `bash target/gpu/gpu-smoke.sh examples` runs the packed examples there
# (stream_compaction: the course project's report at 2^24, $OUT/examples.txt).
# `bash target/gpu/gpu-smoke.sh cache-ab` runs the bench at 2^24 with the
# Cuda space's memory cache off and on, alternating ($OUT/cache-ab.txt).
# `bash target/gpu/gpu-smoke.sh isolated` (after the same pack) runs every
# Cuda test of the packed binaries in a process of its own, 12 at a time,
# and lists the failures ($OUT/isolated-*.txt, logs in $OUT/isolated/):
# a real fault (a sticky error) ends every CUDA context of its process on
# an H100, so only this tells a test's own failure from its neighbour's.
# GRANULE_CUDA=gpu puts the Cuda spaces on GPU 0; GRANULE_REQUIRE_GPU=1 and
# CI=true make a missing driver or NVRTC a failure, never a skip.
set -uo pipefail

TESTS=(conformance dispatch asynchrony nvrtc_toolchain translated fidelity gpu algorithms soundness drivers)
BENCH=cuda_patterns
# Examples that run on the GPU as they are (`example` mode).
EXAMPLES=(stream_compaction)
G=target/gpu
BUDGET=${GPU_SMOKE_BUDGET:-280}

pack() {
  set -e
  cd "$(dirname "$0")/.."
  ../shared/tools/gpu-pack "${TESTS[@]}" --bench "$BENCH"
  cp scripts/gpu-smoke.sh "$G/gpu-smoke.sh"
  cp scripts/gpu-peers-algorithms.py "$G/peers-algorithms.py"
  pack_examples
  fit_the_carry
  local dirty=""
  git diff --quiet HEAD -- . ':!target' || dirty=" (with uncommitted changes)"
  echo "$(git rev-parse --short HEAD)$dirty" > "$G/commit"
  for t in "${TESTS[@]}" "$BENCH"; do
    [ -n "$(packed "$t")" ] || { echo "gpu-smoke: $t was not packed" >&2; exit 1; }
  done
  du -sh "$G"
  echo 'carry ["target/gpu"]; command: bash target/gpu/gpu-smoke.sh run'
}

# The EXAMPLES, built for Cuda, stripped, into $G/examples.
pack_examples() {
  mkdir -p "$G/examples"
  local e
  for e in "${EXAMPLES[@]}"; do
    cargo build --quiet --release --features cuda --example "$e"
    cp "target/release/examples/$e" "$G/examples/$e"
    strip "$G/examples/$e"
  done
}

# The device tool carries at most 64 MiB: the tree's tracked and
# untracked-but-not-ignored files plus target/gpu. On 2026-11-27 gpu-pack's
# `xz -6` of NVRTC left them 0.6 MB over; `xz -9e` saves 1.25 MB (and two
# minutes), so it runs only when the pack does not fit.
fit_the_carry() {
  local limit=$((64 * 1024 * 1024)) tree pack nv
  tree=$({ git ls-files -z; git ls-files -z -o --exclude-standard; } | xargs -0 du -cb 2>/dev/null | awk 'END {print $1}')
  pack=$(du -sb "$G" | cut -f1)
  if [ $((tree + pack)) -gt $limit ]; then
    echo "gpu-smoke: $((tree + pack)) bytes to carry, over 64 MiB: recompressing NVRTC with xz -9e"
    nv=$(scripts/install-nvrtc.sh)
    tar -C "$nv" -cf - libnvrtc.so.12 libnvrtc-builtins.so.12.9 | xz -T0 -9e > "$G/nvrtc12.tar.xz"
    pack=$(du -sb "$G" | cut -f1)
  fi
  if [ $((tree + pack)) -gt $limit ] && [ -d "$G/bin" ]; then
    # On 2026-11-27 (later) that was 0.4 MB short too: the stripped
    # binaries (32 MB) shrink to a quarter in xz; the modes unpack them
    # there (unpack_bins).
    echo "gpu-smoke: $((tree + pack)) bytes, still over: packing the binaries with xz"
    tar -C "$G" -cf - bin | xz -T0 -6 > "$G/bin.tar.xz"
    rm -rf "$G/bin"
    pack=$(du -sb "$G" | cut -f1)
  fi
  if [ $((tree + pack)) -gt $limit ]; then
    echo "gpu-smoke: the tree and the pack are $((tree + pack)) bytes, over the device tool's 64 MiB" >&2
    exit 1
  fi
  echo "gpu-smoke: $((tree + pack)) bytes to carry (limit $limit)"
}

# "file package_folder" of target NAME in targets.txt (cargo names the
# binaries NAME-<hash>).
packed() {
  awk -v b="$1" '$2 == b || $2 ~ ("^" b "-[0-9a-f]+$") {print $2, $3; exit}' "$G/targets.txt"
}

# Links libcuda and libnvrtc where cudarc looks (bare names first on
# LD_LIBRARY_PATH), as ../shared/tools/gpu-run.sh does, with the carried
# NVRTC 12.9.
link_libraries() {
  local shim cuda1 nvdir
  shim=$(mktemp -d)
  cuda1=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/{print $NF; exit}')
  [ -z "$cuda1" ] && cuda1=$(ls /usr/local/nvidia/lib64/libcuda.so.1 \
    /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 2>/dev/null | head -1)
  [ -n "$cuda1" ] && ln -s "$cuda1" "$shim/libcuda.so"
  nvdir=/tmp/gpu-smoke-nvrtc12
  mkdir -p "$nvdir"
  tar -C "$nvdir" -xJf "$G/nvrtc12.tar.xz" 2>/dev/null || python3 -c \
    "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$G/nvrtc12.tar.xz" "$nvdir"
  ln -s "$nvdir/libnvrtc.so.12" "$shim/libnvrtc.so"
  export LD_LIBRARY_PATH=$shim:$nvdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "libcuda: ${cuda1:-NOT FOUND}; libnvrtc: $nvdir/libnvrtc.so.12"
}

# The binaries, when the pack had to carry them in xz (fit_the_carry).
unpack_bins() {
  if [ -f "$G/bin.tar.xz" ] && [ ! -d "$G/bin" ]; then
    xz -dc "$G/bin.tar.xz" | tar -C "$G" -xf -
  fi
}

# Test binaries bake in CARGO_MANIFEST_DIR: make the build root name this
# copy (and unpack the binaries first, when they came in xz).
link_build_root() {
  unpack_bins
  local root
  root=$(cat "$G/build_root")
  if [ "$root" != "$PWD" ] && [ ! -e "$root" ]; then
    mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
  fi
}

START=$SECONDS
RESULTS=()
FAILED=0

# group NAME LIMIT BINARY [ARGS...]: runs a packed binary from its package
# folder within LIMIT seconds (less if the budget is nearly spent) and
# records PASS or FAIL with libtest's counts.
group() {
  local name=$1 limit=$2 bin=$3; shift 3
  local left=$((BUDGET - (SECONDS - START)))
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$limit" -le 5 ]; then
    RESULTS+=("| $name | SKIPPED | 0 s | the $BUDGET s budget was spent |")
    echo "== $name: SKIPPED (budget spent)"
    FAILED=1
    return
  fi
  local found exe pkg
  found=$(packed "$bin")
  exe=${found%% *} pkg=${found#* }
  echo "== $name: $bin $* (cwd ${pkg:-?}, limit ${limit}s)"
  local t0=$SECONDS log
  log=$(mktemp)
  (cd "${pkg:-.}" && timeout -k 5 "$limit" "$OLDPWD/$G/bin/${exe:-$bin}" "$@") >"$log" 2>&1
  local rc=$?
  cat "$log"
  local counts
  counts=$(awk '/^test result:/ {m++; p += $4; f += $6} END {if (m) printf "%d passed, %d failed", p, f}' \
    FS='[ ;.]+' "$log")
  local verdict=PASS
  [ $rc -ne 0 ] && verdict=FAIL && FAILED=1
  [ $rc -eq 124 ] && counts="timed out after ${limit}s; $counts"
  RESULTS+=("| $name | $verdict | $((SECONDS - t0)) s | ${counts:-rc $rc} |")
  echo "== $name: $verdict ($((SECONDS - t0)) s) $counts"
  if [ "$name" = bench ]; then
    grep -E "^cuda_i32|time:|thrpt:" "$log" > "$OUT/bench.txt" || true
  fi
  rm -f "$log"
}

run() {
  OUT=${OUT:-/tmp/gpu-out}
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu-smoke.log") 2>&1
  [ -f "$G/targets.txt" ] || { echo "gpu-smoke: no $G/targets.txt: run 'scripts/gpu-smoke.sh pack' first"; exit 2; }
  local device
  device=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total \
    --format=csv,noheader 2>/dev/null | head -1)
  echo "== device (driver): ${device:-nvidia-smi found no GPU}"
  echo "== commit: $(cat "$G/commit" 2>/dev/null || echo unknown); host compiler: $(g++ -dumpfullversion 2>/dev/null || echo none)"
  link_libraries
  link_build_root
  export CI=true RUST_BACKTRACE=1 GRANULE_REQUIRE_GPU=1 GRANULE_CUDA=gpu
  group nvrtc 40 nvrtc_toolchain
  group nvrtc-translated 40 translated
  group device 30 gpu
  group fidelity 30 fidelity
  group dispatch 40 dispatch
  group async 30 asynchrony
  group soundness 40 soundness
  group drivers 30 drivers
  group conformance 120 conformance cuda::
  group algorithms 90 algorithms cuda::
  group bench 90 "$BENCH" --bench --warm-up-time 1 --measurement-time 2 --noplot
  peers peers.py peers.txt
  peers peers-algorithms.py peers-algorithms.txt
  summary "$device" > "$OUT/gpu-smoke-result.md"
  cat "$OUT/gpu-smoke-result.md"
  return $FAILED
}

# peers SCRIPT LOG: PyTorch's figures on the same card (not pass/fail),
# while at least 20 s of the budget are left.
peers() {
  local left=$((BUDGET - (SECONDS - START)))
  [ -f "$G/$1" ] && [ "$left" -gt 20 ] || return 0
  echo "== peers: $1 (PyTorch on the same GPU)"
  timeout -k 5 "$left" python3 "$G/$1" | tee "$OUT/$2" || true
}

summary() {
  echo "# GPU smoke run, $(date -u +%F) ($(date -u +%H:%M) UTC)"
  echo
  echo "- device, as the driver reports it: ${1:-unknown}"
  echo "- commit: $(cat "$G/commit" 2>/dev/null || echo unknown); NVRTC 12.9.86 (carried wheel)"
  echo "- command: \`bash target/gpu/gpu-smoke.sh run\` (packed by \`scripts/gpu-smoke.sh pack\`),"
  echo "  GRANULE_CUDA=gpu GRANULE_REQUIRE_GPU=1 CI=true; $((SECONDS - START)) s in all"
  echo
  echo "| group | result | time | tests |"
  echo "|---|---|---|---|"
  printf '%s\n' "${RESULTS[@]}"
  echo
  echo "## bench (GPU figures; criterion, short: 1 s warm-up, 2 s measurement)"
  echo '```'
  cat "$OUT/bench.txt" 2>/dev/null || echo "(no bench output)"
  echo '```'
  echo
  echo "## peers (PyTorch on the same card, median ms and GB/s)"
  echo '```'
  cat "$OUT/peers.txt" "$OUT/peers-algorithms.txt" 2>/dev/null || echo "(not run)"
  echo '```'
}

# One test in its own process: a device fault (a trap) poisons every CUDA
# context of its process on a real GPU, new ones included, so a test that
# faults on purpose fails every test that shares its process.
one_test() {
  local exe=$1 pkg=$2 name=$3 log
  log="$OUT/isolated/$(basename "$exe" | sed 's/-[0-9a-f]*$//')__${name//[^A-Za-z0-9_]/_}.log"
  if (cd "$pkg" && timeout -k 5 120 "$OLDPWD/$G/bin/$exe" --exact "$name" --test-threads=1) >"$log" 2>&1; then
    echo "PASS $name"; rm -f "$log"
  else
    echo "FAIL $name"
  fi
}

# Every Cuda test of every packed test binary, each in its own process,
# 12 at a time: which tests fail on the GPU for a reason of their own.
isolated() {
  OUT=${OUT:-/tmp/gpu-out}
  mkdir -p "$OUT/isolated"
  exec > >(tee "$OUT/isolated.log") 2>&1
  echo "== device (driver): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "== commit: $(cat "$G/commit" 2>/dev/null || echo unknown)"
  link_libraries
  link_build_root
  export CI=true RUST_BACKTRACE=1 GRANULE_REQUIRE_GPU=1 GRANULE_CUDA=gpu
  export -f one_test
  export G OUT
  local t
  for t in "${TESTS[@]}"; do
    local found exe pkg
    found=$(packed "$t")
    exe=${found%% *} pkg=${found#* }
    (cd "$pkg" && "$OLDPWD/$G/bin/$exe" --list --format terse 2>/dev/null) | sed -n 's/: test$//p' |
      { if [ "$pkg" = . ]; then grep -E '^(cuda|semantics)::'; else cat; fi; } |
      xargs -P 12 -I{} bash -c 'one_test "$@"' _ "$exe" "$pkg" {} > "$OUT/isolated-$t.txt"
    echo "== $t: $(grep -c ^PASS "$OUT/isolated-$t.txt") passed, $(grep -c ^FAIL "$OUT/isolated-$t.txt") failed"
    grep ^FAIL "$OUT/isolated-$t.txt" | sort
  done
}

# The start of a mode that runs a packed binary under an NVIDIA tool: its
# log is $OUT/LOG, and the Cuda spaces are on GPU 0.
tool_mode() {
  OUT=${OUT:-/tmp/gpu-out}
  mkdir -p "$OUT"
  exec > >(tee "$OUT/$1") 2>&1
  link_libraries
  link_build_root
  export GRANULE_CUDA=gpu
}

# compute-sanitizer's memcheck over the dispatch tests and the algorithms
# suite's Cuda instance (each under a time limit, SANITIZE_LIMIT seconds):
# an out-of-bounds or misaligned access of a driver shows there even when
# the results are right. SANITIZE_TESTS names other packed test binaries
# and SANITIZE_FILTER other test filters (libtest's, space-separated) for
# the root package's binaries, and SANITIZE_TOOL another tool (racecheck:
# shared-memory hazards). Its log is $OUT/sanitize.log.
sanitize() {
  tool_mode sanitize.log
  export CI=true GRANULE_REQUIRE_GPU=1
  local cs t found exe pkg filter
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  [ -n "$cs" ] || { echo "sanitize: no compute-sanitizer"; return 1; }
  for t in ${SANITIZE_TESTS:-dispatch algorithms}; do
    found=$(packed "$t")
    exe=${found%% *} pkg=${found#* }
    filter=""
    [ "$pkg" = . ] && filter=${SANITIZE_FILTER:-cuda::}
    echo "== ${SANITIZE_TOOL:-memcheck} $t $filter"
    (cd "$pkg" && timeout -k 5 "${SANITIZE_LIMIT:-90}" "$cs" --tool "${SANITIZE_TOOL:-memcheck}" --print-limit 20 \
      "$OLDPWD/$G/bin/$exe" $filter --test-threads=4 2>&1 | grep -E "SUMMARY|Invalid|[Rr]ace |^=========  |test result|FAILED" | head -60)
  done
}

# Nsight Compute over the bench's scan, compaction and sort at 2^24 (the
# first launches of each, `--set detailed`): where the drivers lose to
# CUB. PROFILE_BENCHES replaces the bench filters (space-separated) and
# PROFILE_KERNEL limits it to kernels whose name matches that regex.
# Its report is $OUT/profile.txt.
profile() {
  tool_mode profile.txt
  local ncu found exe pkg f
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$ncu" ] || { echo "profile: no ncu"; return 1; }
  found=$(packed "$BENCH")
  exe=${found%% *} pkg=${found#* }
  local benches=${PROFILE_BENCHES:-'2\^24/scan$ 2\^24/algorithms::exclusive_scan 2\^24/algorithms::copy_if 2\^24/algorithms::sort'}
  local only=()
  [ -n "${PROFILE_KERNEL:-}" ] && only=(--kernel-name "regex:$PROFILE_KERNEL")
  for f in $benches; do
    echo "== ncu $f ${PROFILE_KERNEL:-}"
    (cd "$pkg" && timeout -k 5 "${PROFILE_LIMIT:-60}" "$ncu" --set detailed "${only[@]}" --launch-count "${PROFILE_LAUNCHES:-6}" \
      "$OLDPWD/$G/bin/$exe" --bench "$f" --warm-up-time 1 --measurement-time 1 --noplot 2>&1 |
      grep -vE "^(Benchmarking|Gnuplot)" | head -${PROFILE_LINES:-700})
  done
}

# Each packed example on GPU 0 (the course project's report, at 2^24 there);
# its log is $OUT/examples.txt.
examples() {
  tool_mode examples.txt
  export CI=true GRANULE_REQUIRE_GPU=1
  local e
  for e in "${EXAMPLES[@]}"; do
    echo "== example $e"
    timeout -k 5 "${EXAMPLE_LIMIT:-120}" "$G/examples/$e"
    echo "== example $e: rc $?"
  done
}

# The bench at 2^24 with the space's cache of released memory off
# (GRANULE_CUDA_NO_CACHE=1) and on, alternating, AB_ROUNDS times (2 by
# default): what the per-call allocations cost. Its log is $OUT/cache-ab.txt.
cache_ab() {
  tool_mode cache-ab.txt
  export CI=true GRANULE_REQUIRE_GPU=1
  local found exe pkg round mode
  found=$(packed "$BENCH")
  exe=${found%% *} pkg=${found#* }
  for round in $(seq "${AB_ROUNDS:-2}"); do
    for mode in 1 0; do
      echo "== round $round, GRANULE_CUDA_NO_CACHE=$mode"
      (cd "$pkg" && GRANULE_CUDA_NO_CACHE=$mode timeout -k 5 "${AB_LIMIT:-60}" "$OLDPWD/$G/bin/$exe" \
        --bench '2\^24/' --warm-up-time 1 --measurement-time 1 --noplot 2>&1 | grep -E "^cuda_i32|time:")
    done
  done
}

# Sourced (by an ad-hoc script on the GPU machine, for its helpers), it
# runs nothing.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-pack}" in
    pack) pack ;;
    run) run ;;
    isolated) isolated ;;
    sanitize) sanitize ;;
    profile) profile ;;
    cache-ab) cache_ab ;;
    examples) examples ;;
    *) echo "usage: $0 [pack|run|isolated|sanitize|profile|cache-ab|examples]" >&2; exit 2 ;;
  esac
fi
