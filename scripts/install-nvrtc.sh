#!/usr/bin/env bash
# Installs NVRTC (the CUDA run-time compiler) from its pinned PyPI wheel into
# a cache under target/, so the CUDA code generator can be checked on a
# machine with no CUDA toolkit and no GPU. It changes nothing outside
# target/nvrtc/ and is a no-op when the library is already there.
# Prints the directory that holds libnvrtc.so.12: put it on LD_LIBRARY_PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

version=12.9.86
prefix="target/nvrtc/$version"
libdir="$prefix/nvidia/cuda_nvrtc/lib"

if [ ! -f "$libdir/libnvrtc.so.12" ]; then
  # Progress goes to stderr so that stdout carries only the path.
  python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$prefix" "nvidia-cuda-nvrtc-cu12==$version" >&2
fi
if [ ! -f "$libdir/libnvrtc.so.12" ]; then
  echo "install-nvrtc: $libdir/libnvrtc.so.12 is missing after the install" >&2
  exit 1
fi
cd "$libdir" && pwd
