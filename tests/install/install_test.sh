#!/usr/bin/env bash
# Installs itercl into a temporary prefix, then builds and runs examples/kmeans_loop against it with
# find_package(itercl): what another project does.
set -euo pipefail
build_dir=$1
source_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/itercl" || { echo "the CLI was not installed"; exit 1; }
cmake -S "$source_dir/examples/kmeans_loop" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/example" -j2 >/dev/null
out=$("$tmp/example/kmeans_loop" "$source_dir/datasets/uef/s1.data.gz" 15)
echo "$out" | tail -3
echo "$out" | grep -q "^iteration 19: inertia" || { echo "the example did not run its 20 iterations"; exit 1; }
