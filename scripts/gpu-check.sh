#!/usr/bin/env bash
# Builds everything a run on the GPU machine needs into target/gpu (see
# ../shared/reference/gpu-runs.md): the CUDA test binaries, the
# conformance suite, the device tests (emulator and cudarc), NVRTC 12.9
# and the run script. Extra arguments go to gpu-pack (e.g. --bench NAME).
# Then, through the device tool, with carry ["target/gpu"]:
#   GRANULE_REQUIRE_GPU=1 GRANULE_CUDA=gpu bash target/gpu/run.sh 12
# GRANULE_CUDA=gpu runs the Cuda dispatch tests and the conformance
# suite's Cuda instance on the GPU instead of the emulator.
# GRANULE_REQUIRE_GPU=1 turns the cudarc tests' skip (no driver) into a
# failure, so a GPU run cannot pass without touching the GPU.
# For a run under 5 minutes with a result file to commit, see
# scripts/gpu-smoke.sh (and benches/results/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
../shared/tools/gpu-pack granule_cuda nvrtc_toolchain translated emu gpu dispatch chunk_maps fidelity conformance --bench cuda_patterns "$@"
