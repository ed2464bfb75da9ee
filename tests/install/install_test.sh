#!/usr/bin/env bash
# Installs itercl into a temporary prefix (~/.local of a temporary $HOME, as docs/library.md installs it),
# then builds and runs examples/kmeans_loop against it, as another project would: with find_package(itercl),
# with pkg-config, and with docs/library.md's pkg-config line as written. A shared build (BUILD_SHARED_LIBS)
# also checks the library's SONAME, that it exports itercl's symbols only, and that the installed CLI finds
# it without LD_LIBRARY_PATH.
set -euo pipefail
build_dir=$1
source_dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
prefix=$HOME/.local

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/itercl" || { echo "the CLI was not installed"; exit 1; }
version=$(sed -n 's/^project(itercl VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
shared=$(find "$prefix" -name 'libitercl.so*' -type f | head -1)
if [[ -n $shared ]]; then
  soname=$(readelf -d "$shared" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [[ $soname == "libitercl.so.${version%.*}" ]] || { echo "$shared: SONAME '$soname', expected libitercl.so.${version%.*}"; exit 1; }
  # Every exported symbol is itercl's own (cmake/itercl.map): no instantiation of std::, JSON, Eigen, CLHPP.
  foreign=$(nm -D --defined-only "$shared" | awk '{print $3}' |
    grep -Ev '^_ZN[KV]*6itercl|^_ZT[ISVT]N6itercl|^_ZT[hv].*_N[KV]*6itercl|^_ZZN[KV]*6itercl|^_ZGVZN[KV]*6itercl' || true)
  [[ -z $foreign ]] || { echo "$shared exports symbols that are not itercl's:"; echo "$foreign" | head -20 | c++filt; exit 1; }
  echo "shared: $(basename "$shared"), SONAME $soname, $(nm -D --defined-only "$shared" | wc -l) symbols exported, all itercl's"
  # The installed CLI runs as installed, without LD_LIBRARY_PATH (its RPATH: $ORIGIN/../lib).
  env -u LD_LIBRARY_PATH "$prefix/bin/itercl" --version | grep -qF "$version" ||
    { echo "the installed shared bin/itercl did not run"; exit 1; }
fi
cmake -S "$source_dir/examples/kmeans_loop" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/example" -j2 >/dev/null
out=$("$tmp/example/kmeans_loop" "$source_dir/datasets/uef/s1.data.gz" 15)
echo "$out" | tail -3
echo "$out" | grep -q "^iteration 19: inertia" || { echo "the example did not run its 20 iterations"; exit 1; }

# The same program through pkg-config, as a Makefile or Meson project would build it: static, so the
# library's own dependencies come with --static.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/$(gcc -print-multiarch 2>/dev/null)/pkgconfig"
pkg-config --exists itercl || { echo "itercl.pc was not installed where pkg-config looks"; exit 1; }
test "$(pkg-config --modversion itercl)" = "$version" || { echo "itercl.pc's version differs from the project's"; exit 1; }
# shellcheck disable=SC2046  # pkg-config's flags are meant to split into words
g++ -O1 -o "$tmp/kmeans_loop_pc" "$source_dir/examples/kmeans_loop/kmeans_loop.cpp" \
  $(pkg-config --cflags --libs --static itercl)
# A shared build's library is found where it was installed, as a user's LD_LIBRARY_PATH or ldconfig would.
LD_LIBRARY_PATH="$(pkg-config --variable=libdir itercl)" "$tmp/kmeans_loop_pc" "$source_dir/datasets/uef/s1.data.gz" 15 | grep -q "^iteration 19: inertia" ||
  { echo "the pkg-config build of the example did not run its 20 iterations"; exit 1; }
echo "pkg-config: built and ran the example against itercl $(pkg-config --modversion itercl)"

# docs/library.md's pkg-config lines as written (the one for this build's kind of library), run in a
# folder holding the example as my_loop.cpp, with ~ the temporary $HOME above.
kind=static
[[ -n $shared ]] && kind=shared
doc_line=$(awk '/^## Shared or static/ {s = 1} s && /^```sh/ {b = 1; next} b && /^```/ {exit} b' "$source_dir/docs/library.md" |
  grep -v '# \(shared\|static\)$' || true)
doc_build=$(awk '/^## Shared or static/ {s = 1} s && /^```sh/ {b = 1; next} b && /^```/ {exit} b' "$source_dir/docs/library.md" |
  grep "# $kind\$" || true)
[[ -n $doc_build ]] || { echo "docs/library.md: no pkg-config line marked '# $kind'"; exit 1; }
mkdir "$tmp/doc" && cp "$source_dir/examples/kmeans_loop/kmeans_loop.cpp" "$tmp/doc/my_loop.cpp"
(cd "$tmp/doc" && env -u PKG_CONFIG_PATH bash -euo pipefail -c "$doc_line"$'\n'"$doc_build") ||
  { echo "docs/library.md's $kind pkg-config line failed:"$'\n'"$doc_line"$'\n'"$doc_build"; exit 1; }
env -u LD_LIBRARY_PATH "$tmp/doc/my_loop" "$source_dir/datasets/uef/s1.data.gz" 15 | grep -q "^iteration 19: inertia" ||
  { echo "the program built by docs/library.md's $kind line did not run its 20 iterations"; exit 1; }
echo "docs/library.md: its $kind pkg-config line built a program that ran"
