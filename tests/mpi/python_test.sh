#!/usr/bin/env bash
# The Python package over MPI ranks (mpi4py): K-Means, MDS from vectors, PageRank from edge parts, the
# distance histogram, pair counts, g(r) and the matrix of distances with comm=MPI.COMM_WORLD under mpirun -np 2 and -np 3, each
# rank passing its rows, against `itercl run` over the same ranks (identical) and against one process
# (within the ranks tolerances): tests/mpi/python_compare.py says which value is held to what.
# Usage: python_test.sh ITERCL MPIEXEC SOURCE_DIR PYTHONPATH
set -euo pipefail
itercl=$1
mpiexec=$2
here="$3/tests/mpi"
export PYTHONPATH=$4
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun() { timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -np "$@"; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset ITERCL_DEVICE

"$python" -c 'import mpi4py' || { echo "FAIL: mpi4py is missing (Debian: python3-mpi4py; scripts/bootstrap.sh)"; exit 1; }
"$python" "$here/python_compare.py" make "$tmp"
"$python" "$here/python_ranks.py" "$tmp" "$tmp/python.one.json" --one
failures=0
for p in 2 3; do
  for name in kmeans smacof pagerank histogram pair_counts pairwise pairwise_y; do
    (cd "$tmp" && mpirun "$p" "$itercl" run "$name.config.json" --quiet --out "$name.np$p.json") ||
      { echo "FAIL: itercl run $name over $p ranks"; failures=$((failures + 1)); }
    [[ $name != kmeans ]] || mv "$tmp/kmeans.labels.txt" "$tmp/kmeans.np$p.labels.txt"
  done
  "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); r["result"]["labels"] = sys.argv[2]
json.dump(r, open(sys.argv[1], "w"))' "$tmp/kmeans.np$p.json" "$tmp/kmeans.np$p.labels.txt"
  if mpirun "$p" "$python" "$here/python_ranks.py" "$tmp" "$tmp/python.np$p.json" >"$tmp/python.np$p.log" 2>&1; then
    "$python" "$here/python_compare.py" compare "$tmp" "$p" || failures=$((failures + 1))
  else
    echo "FAIL: python_ranks.py over $p ranks"; cat "$tmp/python.np$p.log"; failures=$((failures + 1))
  fi
done
[[ $failures -eq 0 ]] && echo "python over ranks: all passed"
exit $((failures > 0))
