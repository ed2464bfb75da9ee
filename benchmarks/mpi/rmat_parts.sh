#!/usr/bin/env bash
# R-MAT drawn in parts over MPI ranks against the same graph read on rank 0: the peak resident memory of
# every rank (/usr/bin/time's maximum RSS) and the time to draw the graph and build the ranks' rows, for
# the plain run, -np P with BIN (each rank draws its part) and, if BEFORE is given, -np P with an itercl
# built before the parts (rank 0 draws the whole graph and scatters the rows). Two iterations each: the
# setup is what is measured. Results (each run's results file and time's lines) land in $OUT.
#   BIN  itercl (default build/itercl)   BEFORE  an older itercl (optional)   SCALE  (default 22)   P  (default 2)
set -euo pipefail
BIN=${BIN:-build/itercl}
BEFORE=${BEFORE:-}
OUT=${OUT:-/tmp/itercl-rmat-parts}
SCALE=${SCALE:-22}
P=${P:-2}
mkdir -p "$OUT"
cat >"$OUT/rmat.json" <<JSON
{"name": "rmat-parts", "algorithm": "pagerank", "device": "cpu", "precision": "float",
 "data": {"generator": "rmat", "scale": $SCALE, "edge_factor": 16, "random_state": 1},
 "params": {"format": "csr_scalar", "max_iter": 2, "tol": 0}, "output": {"ranks": false}}
JSON
# One line per rank: its peak RSS and wall time (time -v's words), then rank 0's results' setup times.
run() {  # name, command...
  local name=$1
  shift
  "$@" run "$OUT/rmat.json" --quiet --out "$OUT/$name.json" >"$OUT/$name.log" 2>&1
  for t in "$OUT/$name".rank*.time; do
    rank=${t%.time}
    echo "$name: rank ${rank##*.rank}: peak RSS $(awk '/Maximum resident/ {print $6}' "$t") kB," \
      "wall $(awk '/Elapsed \(wall/ {print $8}' "$t")"
  done | tee -a "$OUT/summary.txt"
  python3 - "$OUT/$name.json" "$name" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
d, t = r["data"], r["timings"]
print(f'{sys.argv[2]}: rank 0: load (draw) {d["load_ms"]:.0f} ms, in-links {d["in_links_ms"]:.0f} ms, '
      f'upload {t["upload"]["wall_ms"]:.0f} ms (comm {t["upload"].get("comm_ms", 0):.0f}), '
      f'{d["n_links"]} links, drawn in parts: {d.get("drawn_in_parts", "no")}')
PY
}
timed() {  # the command, each rank's time -v to $OUT/<name>.rank<R>.time
  local name=$1
  shift
  /usr/bin/time -v -o "$OUT/$name.rank${OMPI_COMM_WORLD_RANK:-0}.time" "$@"
}
export -f timed
export OUT
: >"$OUT/summary.txt"
run plain bash -c 'timed plain "$@"' _ "$BIN"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$P")
run "parts-np$P" "${mpi[@]}" bash -c 'timed '"parts-np$P"' "$@"' _ "$BIN"
if [[ -n $BEFORE ]]; then run "rank0-np$P" "${mpi[@]}" bash -c 'timed '"rank0-np$P"' "$@"' _ "$BEFORE"; fi
