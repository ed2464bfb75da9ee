#!/usr/bin/env bash
# PageRank's whole call over MPI ranks against one process (issues 32 and 33: the time to solution), on
# the 2- or 4-GPU machine through the device tool: R-MAT 25 (33.5 M nodes, 537 M links) drawn in parts,
# float, 20 iterations, the default format and graph build for the GPU, `repeat: 2` (the second call's
# program cache warm). Prints, per rank count, rank 0's timings.time_to_solution_ms and its phases_ms
# (each in ms and in ns per link; over ranks the ranks' phases: degree_counts, reorder, exchange_edges,
# graph_build, halo_plan, format, ...; docs/pagerank.md "Time to solution"), and the first call's beside
# it. Writes under $OUT: pagerank-whole-call.txt (the table) and the results files packed into
# results.tgz.
#   BIN    the itercl binary built here (default .gpu/itercl)
#   RANKS  the rank counts (default "1 2"; each needs as many GPUs)
#   SCALE  the R-MAT scale (default 25)
#   ITER   iterations per run (default 20)
#   DEVICE the config's device (default gpu; cpu tries the script on PoCL)
# On the nvidia-h200-x2 kind, from the repository root:
#   BIN=.gpu/itercl OUT=$OUT bash benchmarks/mpi/pagerank_whole_call.sh
# On the nvidia-h200-x4 kind: RANKS="1 2 4" BIN=.gpu/itercl OUT=$OUT bash benchmarks/mpi/pagerank_whole_call.sh
set -euo pipefail
BIN=${BIN:-.gpu/itercl}
OUT=${OUT:-/tmp/itercl-pagerank-whole-call}
RANKS=${RANKS:-"1 2"}
SCALE=${SCALE:-25}
ITER=${ITER:-20}
DEVICE=${DEVICE:-gpu}
work=$(mktemp -d)
mkdir -p "$OUT" /etc/OpenCL/vendors
[[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
exec > >(tee -a "$OUT/pagerank-whole-call.txt") 2>&1
{ "$BIN" devices; nvidia-smi --query-gpu=name,memory.total --format=csv; nproc; } || true

for p in $RANKS; do
  name="rmat$SCALE-np$p"
  cat > "$work/$name.config.json" <<JSON
{"name": "$name", "algorithm": "pagerank", "device": "$DEVICE", "precision": "float", "repeat": 2,
 "data": {"generator": "rmat", "scale": $SCALE, "edge_factor": 16, "random_state": 1},
 "params": {"max_iter": $ITER, "tol": 0},
 "output": {"path": "$work/$name.json", "ranks": false}}
JSON
  command=("$BIN" run "$work/$name.config.json" --quiet)
  # --bind-to none: Open MPI would pin each rank to one core and starve its host threads (each rank takes
  # the host's cores over its ranks, core::host_cores).
  if ((p > 1)); then command=(mpirun --allow-run-as-root --bind-to none -np "$p" "${command[@]}"); fi
  if ! timeout 580 "${command[@]}"; then echo "$name: failed or timed out"; continue; fi
  python3 - "$work/$name.json" "$p" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t, links = r["timings"], r["data"]["n_links"]
print(f'{sys.argv[2]} rank(s), {links} links: time to solution {t["time_to_solution_ms"]:.1f} ms '
      f'(first call {t.get("first_fit", t)["time_to_solution_ms"]:.1f} ms), median iteration '
      f'{t["median_iteration"]["wall_ms"]:.3f} ms')
first = t.get("first_fit", t)["phases_ms"]
for phase in sorted(set(t["phases_ms"]) | set(first)):  # a first call's program_build may be the only one
    ms = t["phases_ms"].get(phase, 0.0)
    print(f'  {phase:15s} {ms:10.1f} ms  {ms * 1e6 / links:7.2f} ns/link   (first call {first.get(phase, 0.0):10.1f} ms)')
PY
done
tar -czf "$OUT/results.tgz" -C "$work" .
