#!/usr/bin/env bash
# Checks what each published crate of the workspace would ship: lists
# every package's files (`cargo package --list`, which builds nothing and
# needs no registry beyond what cargo already fetched) and fails, naming
# the files, if any package would carry benchmark results, plots, images,
# scripts, CI files, build output or benches. Prints each crate's file
# count when all are clean. Members with `publish = false` (granule-bench)
# are skipped: they never leave the repository.
#
#   scripts/check-package.sh [CARGO PACKAGE OPTIONS...]   (e.g. --offline)
#
# The working tree is listed as it is (--allow-dirty), so a change to an
# `include` list can be checked before it is committed.
set -euo pipefail
cd "$(dirname "$0")/.."

# What a published crate must not carry, as extended regular expressions
# over the paths cargo lists (relative to the package's root).
FORBIDDEN='(^|/)(results|plots|scripts|target|benches|\.ci)/|\.(png|svg)$'

# The workspace's publishable members: `publish = false` reads as an
# empty list of registries in cargo's metadata.
packages=$(cargo metadata --no-deps --format-version 1 "$@" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] != []:
        print(p["name"])
')
[ -n "$packages" ] || { echo "check-package: cargo metadata listed no publishable package" >&2; exit 1; }

bad=0
report=()
for name in $packages; do
  files=$(cargo package --quiet -p "$name" --no-verify --allow-dirty --list "$@")
  offending=$(grep -E "$FORBIDDEN" <<< "$files" || true)
  if [ -n "$offending" ]; then
    echo "check-package: $name would ship files that belong to the repository only:" >&2
    sed 's/^/  /' <<< "$offending" >&2
    bad=1
  fi
  report+=("$(printf '%-20s %4d files' "$name" "$(grep -c . <<< "$files")")")
done
if [ "$bad" = 1 ]; then
  echo "check-package: FAILED; narrow the crate's \`include\` in its Cargo.toml" >&2
  exit 1
fi
printf '%s\n' "${report[@]}"
echo "check-package: every published crate ships only its sources, docs and licenses"
