#!/usr/bin/env bash
# Runs every fuzz target over its committed corpus (fuzz/corpus/<target>: small valid and invalid files
# and every reproducer of issue 14) as a regression test, then fuzzes each for SECONDS seconds from a
# scratch copy of that corpus (the committed one is left as it is). A crash, a sanitizer report, a leak
# or an out-of-memory fails the run, leaving the input under the scratch folder's artifacts/.
# Usage: bash fuzz/run.sh BUILD_DIR/fuzz [SECONDS (default 10)]
set -euo pipefail
bin=$(realpath "$1")
seconds=${2:-10}
corpus=$(realpath "$(dirname "$0")/corpus")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/artifacts"
for dir in "$corpus"/*/; do
  target=$(basename "$dir")
  start=$SECONDS
  "$bin/fuzz_$target" -runs=0 "$dir" >"$scratch/$target.log" 2>&1 ||
    { cat "$scratch/$target.log" >&2; echo "fuzz: $target fails on its committed corpus" >&2; exit 1; }
  if ((seconds > 0)); then
    mkdir "$scratch/$target" && cp "$dir"* "$scratch/$target/"
    "$bin/fuzz_$target" -max_total_time="$seconds" -max_len=8192 -artifact_prefix="$scratch/artifacts/$target-" \
      "$scratch/$target" >"$scratch/$target.log" 2>&1 ||
      { tail -60 "$scratch/$target.log" >&2; echo "fuzz: $target: a finding (input above)" >&2; exit 1; }
  fi
  echo "fuzz: $target: $(find "$dir" -type f | wc -l) corpus files pass; $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$scratch/$target.log") executions in $((SECONDS - start)) s"
done
