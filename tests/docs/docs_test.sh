#!/usr/bin/env bash
# The commands the README, the examples' docstrings and docs/bench-tune-report.md show, run as written from
# a copy of the checkout's examples (their results and plots land there, not in the checkout): the quick
# start's run, each example config with its plotting script (build/itercl-python, the build's one
# interpreter), the Python examples where the package is built, and benchmarks/report.py on the committed
# results. docs/library.md's pkg-config lines are the install test's. Label full (`ctest -L full`, CI).
# Usage: bash tests/docs/docs_test.sh path/to/build path/to/source_root
set -euo pipefail
build_dir=$(realpath "$1")
source_dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The layout the commands expect: examples/ (copied: they write results/ beside the configs), datasets/,
# benchmarks/ and build/.
mkdir "$tmp/checkout"
cp -r "$source_dir/examples" "$tmp/checkout/examples"
rm -rf "$tmp/checkout/examples/results"
ln -s "$source_dir/datasets" "$tmp/checkout/datasets"
ln -s "$source_dir/benchmarks" "$tmp/checkout/benchmarks"
ln -s "$build_dir" "$tmp/checkout/build"
cd "$tmp/checkout"

ran=0
run() {  # a documented command, as written
  echo "+ $1"
  bash -euo pipefail -c "$1" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "docs_test: FAIL: $1"; exit 1; }
  ran=$((ran + 1))
}

# The README's quick start: what follows its bootstrap and build.
quick=$(grep -m1 -E '^scripts/bootstrap\.sh .*build/itercl run ' "$source_dir/README.md")
[[ -n $quick ]] || { echo "docs_test: no quick-start line in README.md"; exit 1; }
run "build/itercl run ${quick##*build/itercl run }"
grep -q "results: examples/results/kmeans-s1.json" "$tmp/out" || { cat "$tmp/out"; echo "docs_test: the quick start's summary names no results"; exit 1; }

# Each plotting script's first usage line: a config's run, then the script on its results.
for script in examples/*_plot.py; do
  line=$(grep -m1 -E '^    build/itercl run examples/[a-z0-9-]+\.json && build/itercl-python examples/' "$script" || true)
  [[ -n $line ]] || { echo "docs_test: $script shows no 'build/itercl run ... && build/itercl-python ...' line"; exit 1; }
  touch "$tmp/stamp"
  run "${line#    }"
  [[ -n $(find examples -name '*.png' -newer "$tmp/stamp") ]] || { echo "docs_test: $script drew nothing"; exit 1; }
done

# The Python examples, where the package was built.
if [[ -d build/python/itercl ]]; then
  for script in examples/python/*.py; do
    line=$(grep -m1 -E '^    build/itercl-python examples/python/' "$script" || true)
    [[ -n $line ]] || { echo "docs_test: $script shows no 'build/itercl-python examples/python/...' line"; exit 1; }
    line=${line#    }
    run "${line% \[*}"  # without its optional [out.png]
  done
else
  echo "docs_test: the Python package is not built; its examples are not run"
fi

# The report on the committed results of this 2-core machine: the files of an older format are skipped by name.
run "build/itercl-python benchmarks/report.py benchmarks/results/pocl-epyc-2-cores/*.json --out $tmp/report"
grep -q "skipped benchmarks/results/pocl-epyc-2-cores/kmeans.json: not an \`itercl bench\` results file" "$tmp/out" ||
  { cat "$tmp/out"; echo "docs_test: report.py did not name the file it skipped"; exit 1; }
[[ -s $tmp/report/report.md ]] || { echo "docs_test: report.py wrote no report.md"; exit 1; }
echo "docs_test: $ran documented commands ran"
