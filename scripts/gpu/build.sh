#!/usr/bin/env bash
# Builds what a GPU run needs into one folder (default target/gpu, which
# git ignores): granule's Cuda test binaries, the cuda_patterns bench and
# the stream_compaction example, in release and stripped; NVRTC 12.9 from
# its PyPI wheel (scripts/install-nvrtc.sh); the scripts that run them
# (run.sh, peers.py, table.py); and the commit they were built from.
#
#   scripts/gpu/build.sh [DIR]
#
# Then, on a machine with an NVIDIA GPU and its driver, from the root of a
# checkout of the same commit with DIR copied into it (the machine needs
# no Rust toolchain, only glibc 2.34 or newer and, for the peers, Python
# with PyTorch or CuPy):
#
#   bash target/gpu/run.sh
#
# See scripts/gpu/README.md. Needs cargo, python3 with pip (for NVRTC's
# wheel), xz and strip.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${1:-target/gpu}

# The test binaries a run takes (their target names): granule-cuda's unit
# tests and device tests (one binary, `cuda`, whose modules are the topics
# run.sh runs; a binary per topic is taken as well), and the root
# package's conformance and algorithms suites. Then the benches and the
# examples.
TESTS=(granule_cuda cuda nvrtc_toolchain translated gpu fidelity dispatch asynchrony soundness
  drivers emu chunk_maps conformance algorithms)
REQUIRED=(conformance algorithms)
BENCHES=(cuda_patterns)
EXAMPLES=(stream_compaction)
# granule-cuda holds the device tests; the root package the suites and
# the examples; granule-bench (benches/) the bench.
PACKAGES=(-p granule -p granule-cuda --features granule/cuda)
BENCH_PACKAGE=(-p granule-bench --features granule-bench/cuda)

# Reads cargo's JSON messages and prints "target_name package_dir
# executable" for the wanted targets (package_dir relative to the root).
pick() {
  python3 -c '
import json, os, sys
want = set(sys.argv[1].split())
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in want:
        pkg = os.path.relpath(os.path.dirname(m["manifest_path"]))
        print(m["target"]["name"], pkg, m["executable"])
' "$1"
}

rm -rf "$G"
mkdir -p "$G/bin" "$G/examples"
cargo test --release "${PACKAGES[@]}" --no-run --message-format=json | pick "${TESTS[*]}" |
  sed 's/^/test /' > "$G/list"
cargo bench "${BENCH_PACKAGE[@]}" --no-run --message-format=json | pick "${BENCHES[*]}" |
  sed 's/^/bench /' >> "$G/list"
while read -r kind name pkg exe; do
  cp "$exe" "$G/bin/$name"
  strip "$G/bin/$name"
  echo "$kind $name $pkg"
done < "$G/list" > "$G/targets.txt"
rm "$G/list"
packed() { awk -v t="$1" '$2 == t {found = 1} END {exit !found}' "$G/targets.txt"; }
for t in "${REQUIRED[@]}" "${BENCHES[@]}"; do
  packed "$t" || { echo "gpu build: cargo built no target named $t" >&2; exit 1; }
done
packed cuda || packed dispatch || { echo "gpu build: cargo built none of granule-cuda's device tests" >&2; exit 1; }
for e in "${EXAMPLES[@]}"; do
  cargo build --quiet --release --features cuda --example "$e"
  cp "target/release/examples/$e" "$G/examples/$e"
  strip "$G/examples/$e"
done

# Test binaries bake in their package's folder (CARGO_MANIFEST_DIR);
# run.sh links this path to the checkout it runs in.
pwd > "$G/build_root"
dirty=""
git diff --quiet HEAD -- . ':!target' || dirty=" (with uncommitted changes)"
echo "$(git rev-parse --short HEAD)$dirty" > "$G/commit"

nvrtc=$(scripts/install-nvrtc.sh)
tar -C "$nvrtc" -cf - libnvrtc.so.12 libnvrtc-builtins.so.12.9 | xz -T0 -6 > "$G/nvrtc12.tar.xz"
cp scripts/gpu/run.sh scripts/gpu/peers.py scripts/gpu/table.py "$G/"

cat "$G/targets.txt"
du -sh "$G"
echo "gpu build: done; on the GPU machine, from the checkout's root: bash $G/run.sh"
