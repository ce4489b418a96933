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
# Groups (each under a time limit, all within 280 s):
#   nvrtc        NVRTC 12.9 compiles the hand-written and the golden kernels to
#                PTX and CUBIN there (nvrtc_toolchain, translated; the suite's
#                every-kernel compile is CPU work, over a minute, and runs here)
#   device       the cudarc device: launches, copies, parameter tables (gpu)
#   fidelity     host bits, error records, argument checks, on the GPU (fidelity)
#   dispatch     every pattern and policy through the Cuda space (dispatch)
#   async        asynchronous dispatch: stream order, one wait per fence, a
#                fault reported at the next synchronization with its label
#                (asynchrony)
#   conformance  the conformance suite's Cuda instance, minus the tests whose
#                kernels panic on purpose
#   panics       those tests, one after another: a device panic loses the
#                space's CUDA context, so they must not share it with others
#                (the semantics test's panicking points run 2 per type there)
#   bench        cuda_patterns (scan, reduce, d2d copy at 2^24 and 2^28), short
#   peers        PyTorch's cumsum/sum/copy on the same card (not pass/fail)
# GRANULE_CUDA=gpu puts the Cuda spaces on GPU 0; GRANULE_REQUIRE_GPU=1 and
# CI=true make a missing driver or NVRTC a failure, never a skip.
set -uo pipefail

TESTS=(conformance dispatch asynchrony nvrtc_toolchain translated fidelity gpu)
BENCH=cuda_patterns
G=target/gpu
BUDGET=280

pack() {
  set -e
  cd "$(dirname "$0")/.."
  ../shared/tools/gpu-pack "${TESTS[@]}" --bench "$BENCH"
  cp scripts/gpu-smoke.sh "$G/gpu-smoke.sh"
  local dirty=""
  git diff --quiet HEAD -- . ':!target' || dirty=" (with uncommitted changes)"
  echo "$(git rev-parse --short HEAD)$dirty" > "$G/commit"
  for t in "${TESTS[@]}" "$BENCH"; do
    [ -n "$(packed "$t")" ] || { echo "gpu-smoke: $t was not packed" >&2; exit 1; }
  done
  du -sh "$G"
  echo 'carry ["target/gpu"]; command: bash target/gpu/gpu-smoke.sh run'
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

# Test binaries bake in CARGO_MANIFEST_DIR: make the build root name this copy.
link_build_root() {
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
  local panics=(cuda::panic_in_ cuda::a_huge_scan_range_panics cuda::semantic_panics_of_
    cuda::team_broadcast_from_past_the_team_fails)
  local skips=()
  for p in "${panics[@]}"; do skips+=(--skip "$p"); done
  group nvrtc 40 nvrtc_toolchain
  group nvrtc-translated 40 translated
  group device 30 gpu
  group fidelity 30 fidelity
  group dispatch 40 dispatch
  group async 30 asynchrony
  group conformance 90 conformance cuda:: "${skips[@]}"
  group panics 60 conformance "${panics[@]}" --test-threads=1
  group bench 50 "$BENCH" --bench --warm-up-time 1 --measurement-time 2 --noplot
  if [ -f "$G/peers.py" ] && [ $((BUDGET - (SECONDS - START))) -gt 20 ]; then
    echo "== peers (PyTorch on the same GPU)"
    timeout -k 5 $((BUDGET - (SECONDS - START))) python3 "$G/peers.py" | tee "$OUT/peers.txt" || true
  fi
  summary "$device" > "$OUT/gpu-smoke-result.md"
  cat "$OUT/gpu-smoke-result.md"
  return $FAILED
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
  cat "$OUT/peers.txt" 2>/dev/null || echo "(not run)"
  echo '```'
}

case "${1:-pack}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: $0 [pack|run]" >&2; exit 2 ;;
esac
