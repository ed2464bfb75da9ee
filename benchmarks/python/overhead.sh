#!/usr/bin/env bash
# The Python call's overhead over the C++ call (issue 12: at most 5%): K-Means at N = 1 M and PageRank
# at R-MAT scale 20 on the default device ($ITERCL_DEVICE, else auto), the C++ side built against an
# installed itercl (pkg-config, static), the sides alternating ROUNDS times so that a neighbour's load
# falls on both. Medians per side and their ratio go to OUT (JSON).
#   benchmarks/python/overhead.sh BUILD_DIR OUT.json [ROUNDS=5] [REPEATS=2]
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 rounds=${3:-5} repeats=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2046  # pkg-config's flags are words
g++ -O2 -std=c++20 "$here/overhead_cpp.cpp" -o "$tmp/overhead_cpp" $(pkg-config --cflags --libs --static itercl)
for _ in $(seq "$rounds"); do
  "$tmp/overhead_cpp" "$tmp" "$repeats" >> "$tmp/lines.jsonl"
  PYTHONPATH="$build/python" /usr/bin/python3 "$here/overhead.py" "$tmp" "$repeats" >> "$tmp/lines.jsonl"
done
PYTHONPATH="$build/python" /usr/bin/python3 "$here/overhead.py" --summarise "$tmp/lines.jsonl" "$out"
