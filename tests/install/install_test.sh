#!/usr/bin/env bash
# Installs itercl into a temporary prefix, then builds and runs examples/kmeans_loop against it twice, as
# another project would: with find_package(itercl), and with pkg-config.
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

# The same program through pkg-config, as a Makefile or Meson project would build it: static, so the
# library's own dependencies come with --static.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/$(gcc -print-multiarch 2>/dev/null)/pkgconfig"
pkg-config --exists itercl || { echo "itercl.pc was not installed where pkg-config looks"; exit 1; }
test "$(pkg-config --modversion itercl)" = "$(sed -n 's/^project(itercl VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")" ||
  { echo "itercl.pc's version differs from the project's"; exit 1; }
# shellcheck disable=SC2046  # pkg-config's flags are meant to split into words
g++ -O1 -o "$tmp/kmeans_loop_pc" "$source_dir/examples/kmeans_loop/kmeans_loop.cpp" \
  $(pkg-config --cflags --libs --static itercl)
# A shared build's library is found where it was installed, as a user's LD_LIBRARY_PATH or ldconfig would.
LD_LIBRARY_PATH="$(pkg-config --variable=libdir itercl)" "$tmp/kmeans_loop_pc" "$source_dir/datasets/uef/s1.data.gz" 15 | grep -q "^iteration 19: inertia" ||
  { echo "the pkg-config build of the example did not run its 20 iterations"; exit 1; }
echo "pkg-config: built and ran the example against itercl $(pkg-config --modversion itercl)"
